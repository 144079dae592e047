/*
 * botclient.c — `tessera bot`: one seat of a remote match played by one of
 * our bots (docs/botclient.md).
 *
 * Everything runs on one libuv loop thread except the bot's search, which
 * runs on the libuv thread pool (uv_queue_work) so that the connection keeps
 * answering pings while the bot thinks. While a search runs the bot belongs
 * to the worker: messages that arrive meanwhile wait in a queue and are
 * handled, in order, once the search is back (an `update` or `game_over`
 * for the turn being searched also raises the search's stop flag).
 *
 * Keeping the game in sync (the server never sends engine moves, and must
 * not: the bag order is secret):
 *   - `joined`/`resumed` give the rules and the history (record form); the
 *     client builds the state from the initial position with the record
 *     codec (rec_apply_turn), which checks every turn and returns the engine
 *     moves it applied, so the bot can observe them (tree reuse);
 *   - each `update.record` is one more turn, applied the same way;
 *   - on `your_turn` the turn's chance event (Carcassonne: the tile just
 *     drawn) is not in the history yet. The client tries every chance
 *     outcome of its local state and keeps the one whose public state, as
 *     the wire codec writes it, equals `your_turn.state` — generic, no
 *     per-game code. A game without chance is simply compared. When nothing
 *     matches, the client says so and plays a uniformly random entry of
 *     `legal` instead of trusting its bot on a wrong state;
 *   - a record that does not apply makes the client drop the connection and
 *     resume, which sends the whole history again; if even that does not
 *     apply, the client plays random legal moves to the end.
 *
 * Reconnecting: a lost connection is retried after 100 ms, doubling up to
 * 5 s, until `give_up_ms` have passed without a seat; then exit status 1.
 * The client resumes with its resume token (and answers a `your_turn` for a
 * turn it already decided with the same move again).
 */
#include "botclient.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <uv.h>

#include "bots/bot.h"
#include "engine/eng.h"
#include "link.h"
#include "protocol/record.h"
#include "protocol/wire.h"

#define CLIENT_NAME      "tessera-bot/0.1.0"
#define MAX_MOVE_RETRIES 3 /* random moves sent after the server refused ours, per turn */

typedef struct botclient botclient;

/* A message waiting to be handled (while the bot thinks). */
typedef struct pending {
    struct pending *next;
    json_t *msg;    /* owned */
    uint64_t at_ms; /* when it arrived (monotonic ms) */
} pending;

/* One decision of the bot on the thread pool. */
typedef struct think_job {
    uv_work_t req;
    botclient *bc;
    bot *bot; /* the worker's alone while it runs */
    const eng_game *g;
    unsigned char *start; /* the decision state (read-only) */
    unsigned char *work;  /* the worker's copy */
    int seat, turn;
    json_t *asked;                       /* the server's state for this turn (owned) */
    int64_t ms;                          /* time budget of the whole turn */
    atomic_bool stop;                    /* raised by the loop thread */
    eng_move moves[WIRE_MAX_TURN_MOVES]; /* the turn chosen */
    int n;
    bot_stats stats; /* summed over the turn's decisions */
} think_job;

struct botclient {
    botclient_config cfg;
    uv_loop_t loop;
    cl_link *link;
    uv_timer_t retry; /* reconnect backoff */
    eng_rng rng;      /* random fallbacks */

    /* the seat */
    char match[64];   /* match id ("" until known) */
    int seat;         /* -1 until known */
    char resume[128]; /* resume token ("" until known) */
    bool tried_join;  /* fell back from a refused resume to join once */

    /* the game, once known */
    const eng_game *g;
    const wire_game *w;
    eng_rules rules;
    unsigned char *st;  /* local state after the last known turn */
    unsigned char *tmp; /* scratch */
    unsigned char *dec; /* the decision state of the current turn */
    eng_move *outcomes; /* scratch: g->max_chance chance outcomes */
    double *probs;
    json_t *history; /* the records of the turns known so far */
    int turns;       /* number of turns known (applied, or counted when not synced) */
    bool synced;     /* st follows the match */
    bot *bot;

    /* the decision */
    pending *qhead, *qtail; /* messages waiting for the search */
    think_job *job;         /* the search running, or NULL */
    int asked_turn;         /* the turn the server waits for from us (0: none) */
    json_t *legal;          /* `legal` of the last your_turn */
    json_t *asked_state;    /* `state` of the last your_turn */
    int cache_turn;         /* the last turn decided, its move and the server's state then: */
    json_t *cache_move;     /* sent again when the same turn is asked in the same state */
    json_t *cache_state;    /* (after a resume; a restarted server may have redrawn) */
    int pre_turn, pre_n;    /* moves of turn pre_turn the bot already observed */
    eng_move pre[REC_TURN_MOVES_MAX];
    int refusals; /* moves refused by the server this turn */

    /* the connection */
    uint64_t lost_at; /* when the seat was lost (0: we hold it) */
    int64_t backoff_ms;
    bool done;
    int status;
};

/* ---- logging ---------------------------------------------------------------------- */

/* Text from the server (codes, messages, names, close reasons) reaches the
 * terminal only through here: control characters, which could drive the
 * terminal, become '?'. In place; returns s. */
static char *printable(char *s)
{
    for (unsigned char *p = (unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            *p = '?';
    return s;
}

static void say(const botclient *bc, bool error, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void say(const botclient *bc, bool error, const char *fmt, ...)
{
    if (!error && bc->cfg.quiet)
        return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "tessera bot: %s%s\n", error ? "error: " : "", printable(line));
}

static uint64_t now_ms(void)
{
    return uv_hrtime() / 1000000u;
}

static const char *str_of(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

static long long int_of(const json_t *o, const char *key, long long def)
{
    const json_t *v = json_object_get(o, key);
    return json_is_integer(v) ? (long long)json_integer_value(v) : def;
}

/* ---- sending ---------------------------------------------------------------------- */

/* Send msg (stolen). Returns 0, or -1 when not connected. */
static int send_msg(botclient *bc, json_t *msg)
{
    int rc = -1;
    char *text = msg ? json_dumps(msg, JSON_COMPACT) : NULL;
    if (text)
        rc = cl_link_send(bc->link, text, strlen(text));
    free(text);
    json_decref(msg);
    return rc;
}

static void send_move(botclient *bc, int turn, const json_t *move)
{
    char id[32];
    snprintf(id, sizeof id, "move-%d", turn);
    json_t *m =
        json_pack("{s:s, s:s, s:i, s:O}", "type", "move", "id", id, "turn", turn, "move", move);
    if (m && bc->match[0])
        json_object_set_new(m, "match", json_string(bc->match));
    send_msg(bc, m);
}

static void write_token_file(botclient *bc)
{
    if (!bc->cfg.token_file)
        return;
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp%ld", bc->cfg.token_file, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f || fprintf(f, "%s\n", bc->resume) < 0 || fclose(f) != 0 ||
        rename(tmp, bc->cfg.token_file) != 0) {
        say(bc, true, "cannot write the resume token to %s", bc->cfg.token_file);
        remove(tmp);
    }
}

/* ---- the end ---------------------------------------------------------------------- */

static void finish(botclient *bc, int status)
{
    if (bc->done)
        return;
    bc->done = true;
    bc->status = status;
    uv_timer_stop(&bc->retry);
    uv_close((uv_handle_t *)&bc->retry, NULL);
    if (bc->job)
        atomic_store(&bc->job->stop, true); /* its completion frees it */
    cl_link_shutdown(bc->link);
}

static void print_ints(FILE *f, const json_t *arr)
{
    size_t i;
    const json_t *v;
    if (!json_is_array(arr) || json_array_size(arr) == 0) {
        fputc('-', f);
        return;
    }
    json_array_foreach(arr, i, v)
        fprintf(f, "%s%lld", i ? "," : "", (long long)json_integer_value(v));
}

/* The result line: key=value pairs, stable for scripts. */
static void print_result(botclient *bc, const json_t *result, const json_t *scores,
                         const json_t *ranking, int turns)
{
    FILE *f = bc->cfg.out ? bc->cfg.out : stdout;
    const json_t *sc = json_object_get(result, "scores");
    const json_t *rk = json_object_get(result, "ranking");
    char reason[64];
    snprintf(reason, sizeof reason, "%s", str_of(result, "reason")[0] ? str_of(result, "reason") : "?");
    fprintf(f, "game over: reason=%s scores=", printable(reason));
    print_ints(f, sc ? sc : scores);
    fprintf(f, " winners=");
    print_ints(f, json_object_get(result, "winners"));
    fprintf(f, " ranking=");
    print_ints(f, rk ? rk : ranking);
    fprintf(f, " turns=%d match=%s seat=", turns, bc->match);
    if (bc->seat >= 0)
        fprintf(f, "%d", bc->seat);
    else
        fputc('?', f); /* resumed a finished match by token alone */
    if (json_is_integer(json_object_get(result, "seat")))
        fprintf(f, " faulty=%lld", int_of(result, "seat", -1));
    if (json_is_string(json_object_get(result, "detail"))) {
        char detail[256];
        snprintf(detail, sizeof detail, "%s", str_of(result, "detail"));
        fprintf(f, " detail=\"%s\"", printable(detail));
    }
    fputc('\n', f);
    fflush(f);
}

/* ---- the game --------------------------------------------------------------------- */

static void free_game(botclient *bc)
{
    bot_destroy(bc->bot);
    bc->bot = NULL;
    free(bc->st);
    free(bc->tmp);
    free(bc->dec);
    free(bc->outcomes);
    free(bc->probs);
    bc->st = bc->tmp = bc->dec = NULL;
    bc->outcomes = NULL;
    bc->probs = NULL;
    json_decref(bc->history);
    bc->history = NULL;
    bc->g = NULL;
}

static bool same_rules(const eng_game *g, const eng_rules *a, const eng_rules *b)
{
    if (a->players != b->players)
        return false;
    for (int i = 0; i < g->n_options; i++)
        if (a->opt[i] != b->opt[i])
            return false;
    return true;
}

/* Set up the game of the match (first join), or check it is the same one.
 * Returns 0, or finishes the client and returns -1. */
static int setup_game(botclient *bc, const json_t *msg)
{
    const char *name = str_of(msg, "game");
    const eng_game *g = eng_find_game(name);
    const wire_game *w = g ? wire_find(g->name) : NULL;
    char err[256];
    if (!g || !w) {
        say(bc, true, "the match plays '%.40s', a game this client does not know", name);
        finish(bc, BOTCLIENT_FAIL);
        return -1;
    }
    eng_rules r;
    if (wire_rules_parse(g, json_object_get(msg, "rules"), 0, &r, err, sizeof err) != 0) {
        say(bc, true, "cannot read the match's rules: %s", err);
        finish(bc, BOTCLIENT_FAIL);
        return -1;
    }
    if (bc->g) {
        if (bc->g == g && same_rules(g, &bc->rules, &r))
            return 0;
        say(bc, true, "the match's game or rules changed between connections");
        finish(bc, BOTCLIENT_FAIL);
        return -1;
    }
    bc->g = g;
    bc->w = w;
    bc->rules = r;
    bc->st = malloc(g->state_size);
    bc->tmp = malloc(g->state_size);
    bc->dec = malloc(g->state_size);
    int nc = g->max_chance > 0 ? g->max_chance : 1;
    bc->outcomes = malloc((size_t)nc * sizeof *bc->outcomes);
    bc->probs = malloc((size_t)nc * sizeof *bc->probs);
    bc->history = json_array();
    if (!bc->st || !bc->tmp || !bc->dec || !bc->outcomes || !bc->probs || !bc->history) {
        say(bc, true, "out of memory");
        finish(bc, BOTCLIENT_FAIL);
        return -1;
    }
    bc->bot = bot_create(bc->cfg.bot_spec, g, bc->cfg.seed, err, sizeof err);
    if (!bc->bot) {
        say(bc, true, "bot '%s' cannot play %s: %s", bc->cfg.bot_spec, g->name, err);
        finish(bc, BOTCLIENT_BADARG);
        return -1;
    }
    g->init(bc->st, &r);
    bc->turns = 0;
    bc->synced = true;
    return 0;
}

/* Apply one record turn to the local state, letting the bot observe every
 * engine move (except those of the turn it already saw at your_turn). */
static int apply_record(botclient *bc, const json_t *rec, char *err, size_t errcap)
{
    const eng_game *g = bc->g;
    eng_move mv[REC_TURN_MOVES_MAX];
    int n = 0;
    memcpy(bc->tmp, bc->st, g->state_size);
    int rc = rec_apply_turn(g, bc->tmp, rec, mv, &n, err, errcap);
    if (rc)
        return rc;
    int turn = bc->turns + 1;
    for (int i = 0; i < n; i++) {
        bool seen = bc->pre_turn == turn && i < bc->pre_n && bc->pre[i] == mv[i];
        if (!seen)
            bot_observe(bc->bot, bc->st, mv[i]);
        g->apply(bc->st, mv[i]);
    }
    if (memcmp(bc->st, bc->tmp, g->state_size) != 0) {
        /* the codec and the moves it reported disagree (a codec bug): trust
         * its state, drop the bot's tree */
        say(bc, true, "internal: turn %d: the record codec's moves do not give its state", turn);
        memcpy(bc->st, bc->tmp, g->state_size);
        bot_reset(bc->bot);
    }
    if (bc->pre_turn == turn)
        bc->pre_turn = bc->pre_n = 0;
    json_array_append(bc->history, (json_t *)rec);
    bc->turns = turn;
    return 0;
}

/* Bring the local state in line with a history (joined/resumed): keep what
 * we have when it is a prefix of it, else start again from the beginning. */
static void rebuild(botclient *bc, const json_t *history)
{
    size_t n = json_array_size(history);
    bool prefix = bc->synced && (size_t)bc->turns <= n;
    for (int i = 0; prefix && i < bc->turns; i++)
        prefix =
            json_equal(json_array_get(bc->history, (size_t)i), json_array_get(history, (size_t)i));
    if (!prefix) {
        bc->g->init(bc->st, &bc->rules);
        bot_reset(bc->bot);
        json_array_clear(bc->history);
        bc->turns = 0;
        bc->synced = true;
        bc->pre_turn = bc->pre_n = 0;
        bc->cache_turn = 0;
    }
    for (size_t i = (size_t)bc->turns; i < n; i++) {
        const json_t *rec = json_array_get(history, i);
        char err[256];
        if (bc->synced && apply_record(bc, rec, err, sizeof err) != 0) {
            say(bc, true,
                "cannot follow the match: history turn %zu: %s; playing random legal "
                "moves from now on",
                i + 1, err);
            bc->synced = false;
        }
        if (!bc->synced) {
            json_array_append(bc->history, (json_t *)rec);
            bc->turns = (int)i + 1;
        }
    }
}

/* Name the first top-level field where two public states differ. */
static const char *first_difference(const json_t *mine, const json_t *theirs)
{
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)theirs, key, v)
    {
        if (!json_equal(json_object_get(mine, key), v))
            return key;
    }
    json_object_foreach((json_t *)mine, key, v)
    {
        if (!json_object_get(theirs, key))
            return key;
    }
    return "?";
}

/* Put the decision state of this turn in bc->dec: the local state plus the
 * chance outcome whose public state is the server's `state`. Returns the
 * number of chance moves applied (0 or 1), or -1 with a reason. */
static int to_decision(botclient *bc, const json_t *target, eng_move *chance, char *why,
                       size_t whycap)
{
    const eng_game *g = bc->g;
    if (g->current_player(bc->st) != ENG_CHANCE) {
        json_t *mine = bc->w->state(bc->st);
        bool eq = json_equal(mine, target);
        if (!eq)
            snprintf(why, whycap, "field '%s' differs", first_difference(mine, target));
        json_decref(mine);
        if (!eq)
            return -1;
        memcpy(bc->dec, bc->st, g->state_size);
        return 0;
    }
    int n = g->chance_outcomes(bc->st, bc->outcomes, bc->probs);
    for (int i = 0; i < n; i++) {
        memcpy(bc->tmp, bc->st, g->state_size);
        g->apply(bc->tmp, bc->outcomes[i]);
        json_t *mine = bc->w->state(bc->tmp);
        bool eq = json_equal(mine, target);
        if (!eq && i == 0)
            snprintf(why, whycap,
                     "no chance outcome gives the server's state (field '%s' "
                     "differs after the first)",
                     first_difference(mine, target));
        json_decref(mine);
        if (eq) {
            memcpy(bc->dec, bc->tmp, g->state_size);
            chance[0] = bc->outcomes[i];
            return 1;
        }
    }
    if (n == 0)
        snprintf(why, whycap, "the local state has no chance outcome");
    return -1;
}

/* ---- deciding --------------------------------------------------------------------- */

/* A uniformly random entry of `legal`, as a move (new reference or NULL).
 * Entries are moves, except that an entry may list the meeple ports it
 * allows (Carcassonne: "meeples"); one of them, or none, is then picked
 * uniformly. */
static json_t *random_legal(botclient *bc)
{
    size_t n = json_array_size(bc->legal);
    if (n == 0)
        return NULL;
    json_t *m = json_deep_copy(json_array_get(bc->legal, eng_rng_below(&bc->rng, (uint32_t)n)));
    json_t *opts = json_object_get(m, "meeples");
    if (json_is_array(opts)) {
        size_t k = json_array_size(opts);
        size_t j = eng_rng_below(&bc->rng, (uint32_t)k + 1);
        json_object_set_new(m, "meeple",
                            j < k ? json_incref(json_array_get(opts, j)) : json_null());
        json_object_del(m, "meeples");
    }
    return m;
}

/* Keep the move (stolen) chosen for `turn` in the server's `state`, to send
 * it again if the server asks for the same turn in the same state. */
static void remember(botclient *bc, int turn, json_t *move, json_t *state)
{
    json_decref(bc->cache_move);
    json_decref(bc->cache_state);
    bc->cache_move = move;
    bc->cache_state = json_incref(state);
    bc->cache_turn = turn;
}

/* The move of `turn` is decided (move stolen): remember it, and send it if
 * the server still waits for it. */
static void decided(botclient *bc, int turn, json_t *move)
{
    remember(bc, turn, move, bc->asked_state);
    if (bc->asked_turn == turn)
        send_move(bc, turn, move);
}

static void play_random(botclient *bc, int turn, const char *why)
{
    json_t *m = random_legal(bc);
    if (!m) {
        say(bc, true, "turn %d: no legal move to choose from", turn);
        return;
    }
    char *text = json_dumps(m, JSON_COMPACT);
    say(bc, false, "turn %d: %s (random: %s)", turn, text ? text : "?", why);
    free(text);
    decided(bc, turn, m);
}

static void think(uv_work_t *req)
{
    think_job *j = req->data;
    const eng_game *g = j->g;
    double t0 = bot_now_ms();
    memcpy(j->work, j->start, g->state_size);
    j->n = 0;
    while (j->n < WIRE_MAX_TURN_MOVES && g->current_player(j->work) == j->seat) {
        double left = (double)j->ms - (bot_now_ms() - t0);
        bot_budget b = {.ms = left > 1 ? (int64_t)left : 1, .cap_only = true, .stop = &j->stop};
        bot_stats st;
        memset(&st, 0, sizeof st);
        eng_move m = bot_choose(j->bot, j->work, &b, &st);
        j->stats.sims += st.sims;
        j->stats.nodes += st.nodes;
        j->moves[j->n++] = m;
        if (!eng_is_legal(g, j->work, m))
            break; /* the loop thread replaces the turn */
        g->apply(j->work, m);
    }
    j->stats.ms = bot_now_ms() - t0;
}

static void drain(botclient *bc);

/* Is moves[0..n) from st one whole legal turn of `seat`? */
static bool whole_turn(const eng_game *g, void *scratch, const void *st, int seat,
                       const eng_move *moves, int n)
{
    if (n <= 0)
        return false;
    memcpy(scratch, st, g->state_size);
    for (int i = 0; i < n; i++) {
        if (g->current_player(scratch) != seat || !eng_is_legal(g, scratch, moves[i]))
            return false;
        g->apply(scratch, moves[i]);
    }
    return g->current_player(scratch) != seat;
}

static void free_job(think_job *j)
{
    json_decref(j->asked);
    free(j->start);
    free(j->work);
    free(j);
}

static void thought(uv_work_t *req, int status)
{
    think_job *j = req->data;
    botclient *bc = j->bc;
    bc->job = NULL;
    if (bc->done) {
        free_job(j);
        return;
    }
    /* what arrived meanwhile is handled next (a resume may re-ask this very
     * turn; a policy may have played it for us) */
    bool asked_again = false, played = false;
    for (pending *p = bc->qhead; p; p = p->next) {
        const char *type = str_of(p->msg, "type");
        int t = (int)int_of(p->msg, "turn", 0);
        asked_again |= strcmp(type, "your_turn") == 0 && t == j->turn;
        played |= strcmp(type, "update") == 0 && t == j->turn;
    }
    json_t *move = NULL;
    if (status == 0 && whole_turn(bc->g, bc->tmp, j->start, j->seat, j->moves, j->n))
        move = bc->w->format_move(j->start, j->moves, j->n);
    if (played) {
        say(bc, true,
            "turn %d: the server played this turn for the seat (see its update); the "
            "bot's move is dropped",
            j->turn);
        json_decref(move);
    } else if (move && !json_is_null(move)) {
        char *text = json_dumps(move, JSON_COMPACT);
        say(bc, false, "turn %d: %s sims %lld, %.0f ms (budget %lld ms)", j->turn,
            text ? text : "?", (long long)j->stats.sims, j->stats.ms, (long long)j->ms);
        free(text);
        remember(bc, j->turn, move, j->asked);
    } else {
        json_decref(move);
        if (status == 0)
            say(bc, true,
                "turn %d: the bot did not return a legal turn; playing a random "
                "legal move",
                j->turn);
        json_t *r = random_legal(bc);
        if (r)
            remember(bc, j->turn, r, j->asked);
    }
    int turn = j->turn;
    free_job(j);
    drain(bc);
    if (!bc->done && !asked_again && bc->asked_turn == turn && bc->cache_turn == turn)
        send_move(bc, turn, bc->cache_move);
}

static void start_thinking(botclient *bc, int turn, int64_t ms)
{
    const eng_game *g = bc->g;
    think_job *j = calloc(1, sizeof *j);
    if (j) {
        j->start = malloc(g->state_size);
        j->work = malloc(g->state_size);
    }
    if (!j || !j->start || !j->work) {
        if (j)
            free_job(j);
        play_random(bc, turn, "out of memory");
        return;
    }
    memcpy(j->start, bc->dec, g->state_size);
    j->bc = bc;
    j->bot = bc->bot;
    j->g = g;
    j->seat = g->current_player(bc->dec);
    j->turn = turn;
    j->asked = json_incref(bc->asked_state);
    j->ms = ms;
    atomic_init(&j->stop, false);
    j->req.data = j;
    if (uv_queue_work(&bc->loop, &j->req, think, thought) != 0) {
        free_job(j);
        play_random(bc, turn, "cannot start a worker");
        return;
    }
    bc->job = j;
}

static void on_your_turn(botclient *bc, const json_t *msg, uint64_t at)
{
    int turn = (int)int_of(msg, "turn", 0);
    bc->asked_turn = turn;
    bc->refusals = 0;
    json_decref(bc->legal);
    bc->legal = json_incref(json_object_get(msg, "legal"));
    json_decref(bc->asked_state);
    bc->asked_state = json_incref(json_object_get(msg, "state"));
    if (bc->cache_turn == turn && bc->cache_move && json_equal(bc->cache_state, bc->asked_state)) {
        send_move(bc, turn, bc->cache_move); /* asked again (resume, grace): same answer */
        return;
    }
    if (!bc->g || !bc->synced) {
        play_random(bc, turn, "not following the match");
        return;
    }
    if (turn != bc->turns + 1) {
        say(bc, true, "turn %d: the server asks for turn %d but %d turns are known", turn, turn,
            bc->turns);
        play_random(bc, turn, "turn numbers differ");
        return;
    }
    char why[200] = "";
    eng_move chance[1];
    int nchance = to_decision(bc, json_object_get(msg, "state"), chance, why, sizeof why);
    if (nchance < 0 || bc->g->current_player(bc->dec) != bc->seat) {
        say(bc, true, "turn %d: the local state differs from the server's: %s", turn,
            nchance < 0 ? why : "another seat is to move");
        play_random(bc, turn, "state mismatch");
        return;
    }
    for (int i = 0; i < nchance; i++)
        bot_observe(bc->bot, bc->st, chance[i]);
    bc->pre_turn = turn;
    bc->pre_n = nchance;
    memcpy(bc->pre, chance, (size_t)nchance * sizeof chance[0]);

    int64_t left = int_of(msg, "time_left_ms", 1000);
    int64_t ms = left - bc->cfg.margin_ms - (int64_t)(now_ms() - at);
    start_thinking(bc, turn, ms > 1 ? ms : 1);
}

/* ---- messages --------------------------------------------------------------------- */

static void send_join_or_resume(botclient *bc)
{
    json_t *m;
    if (bc->resume[0]) {
        m = json_pack("{s:s, s:s, s:s}", "type", "resume", "id", "resume", "resume_token",
                      bc->resume);
    } else {
        m = json_pack("{s:s, s:s, s:s, s:i, s:s}", "type", "join", "id", "join", "match",
                      bc->cfg.match ? bc->cfg.match : "", "seat", bc->cfg.seat, "token",
                      bc->cfg.token ? bc->cfg.token : "");
    }
    send_msg(bc, m);
}

static void on_seat(botclient *bc, const json_t *msg, bool resumed)
{
    const char *match = str_of(msg, "match"), *res = str_of(msg, "resume_token");
    int seat = (int)int_of(msg, "seat", -1);
    if (bc->match[0] && strcmp(bc->match, match) != 0)
        say(bc, true, "the server seated us in match %s, not %s", match, bc->match);
    snprintf(bc->match, sizeof bc->match, "%s", match);
    printable(bc->match); /* printed in the result line */
    bc->seat = seat;
    if (res[0] && strcmp(res, bc->resume) != 0) {
        snprintf(bc->resume, sizeof bc->resume, "%s", res);
        printable(bc->resume); /* written to the token file */
        write_token_file(bc);
    }
    if (setup_game(bc, msg) != 0)
        return;
    rebuild(bc, json_object_get(msg, "history"));
    bc->lost_at = 0;
    bc->backoff_ms = BOTCLIENT_BACKOFF_MIN_MS;
    bc->asked_turn = 0;
    bc->tried_join = false;
    say(bc, false, "%s match %s as seat %d (%s, %d turns played)", resumed ? "resumed" : "joined",
        bc->match, bc->seat, bc->g->name, bc->turns);
}

/* Drop the connection and resume: the server sends the whole history. */
static void resync(botclient *bc, const char *why)
{
    say(bc, true, "%s; reconnecting to resynchronise", why);
    cl_link_drop(bc->link);
}

static void on_update(botclient *bc, const json_t *msg)
{
    int turn = (int)int_of(msg, "turn", 0);
    const json_t *rec = json_object_get(msg, "record");
    if (!bc->g || turn <= bc->turns)
        return; /* before we knew the game, or already known */
    if (bc->asked_turn == turn)
        bc->asked_turn = 0;
    if (turn != bc->turns + 1) {
        resync(bc, "turns were missed");
        return;
    }
    if (!bc->synced) {
        json_array_append(bc->history, (json_t *)rec);
        bc->turns = turn;
        return;
    }
    char err[256];
    if (apply_record(bc, rec, err, sizeof err) != 0) {
        char why[320];
        snprintf(why, sizeof why, "turn %d: the update does not apply: %s", turn, err);
        resync(bc, why);
    }
}

static bool transient(const char *code)
{
    static const char *const codes[] = {"shutting_down", "too_many", "internal_error",
                                        "storage_error", "rate_limited"};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
        if (strcmp(code, codes[i]) == 0)
            return true;
    return false;
}

static void on_error(botclient *bc, const json_t *msg)
{
    const char *code = str_of(msg, "code"), *text = str_of(msg, "message");
    const json_t *jid = json_object_get(msg, "id");
    const char *id = json_is_string(jid) ? json_string_value(jid) : "";
    if (strcmp(id, "join") == 0 || strcmp(id, "resume") == 0) {
        if (transient(code)) {
            say(bc, false, "%s refused for now: %s: %s", id, code, text);
            cl_link_drop(bc->link);
            return;
        }
        if (strcmp(id, "resume") == 0 && strcmp(code, "match_over") == 0 && bc->match[0]) {
            /* it ended while we were away: read the result as a spectator */
            send_msg(bc, json_pack("{s:s, s:s, s:s}", "type", "spectate", "id", "spectate", "match",
                                   bc->match));
            return;
        }
        if (strcmp(id, "resume") == 0 && strcmp(code, "bad_token") == 0 && !bc->tried_join &&
            bc->cfg.match && bc->cfg.token && bc->cfg.seat >= 0) {
            say(bc, false, "resume token refused; joining with the seat token");
            bc->tried_join = true;
            bc->resume[0] = 0;
            send_join_or_resume(bc);
            return;
        }
        if (bc->match[0] && bc->seat >= 0)
            say(bc, true, "cannot %s match %s seat %d: %s: %s", id, bc->match, bc->seat, code,
                text);
        else
            say(bc, true, "cannot %s: %s: %s", id, code, text);
        finish(bc, BOTCLIENT_FAIL);
        return;
    }
    if (strcmp(id, "hello") == 0 || strcmp(id, "spectate") == 0) {
        say(bc, true, "the server refused %s: %s: %s", id, code, text);
        finish(bc, BOTCLIENT_FAIL);
        return;
    }
    if (strncmp(id, "move-", 5) == 0) {
        int turn = atoi(id + 5);
        bool refused = strcmp(code, "illegal_move") == 0 || strcmp(code, "bad_move") == 0;
        say(bc, refused, "turn %d: move refused: %s: %s", turn, code, text);
        if (refused && bc->asked_turn == turn && bc->refusals < MAX_MOVE_RETRIES) {
            bc->refusals++;
            json_t *m = random_legal(bc);
            if (m)
                decided(bc, turn, m);
        }
        return;
    }
    if (strcmp(code, "seat_taken") == 0) {
        say(bc, true, "another connection took over seat %d: %s", bc->seat, text);
        finish(bc, BOTCLIENT_FAIL);
        return;
    }
    say(bc, !transient(code), "server: %s: %s", code, text);
}

static void handle(botclient *bc, const json_t *msg, uint64_t at)
{
    const char *type = str_of(msg, "type");
    if (strcmp(type, "welcome") == 0) {
        send_join_or_resume(bc);
    } else if (strcmp(type, "joined") == 0 || strcmp(type, "resumed") == 0) {
        on_seat(bc, msg, type[0] == 'r');
    } else if (strcmp(type, "your_turn") == 0) {
        on_your_turn(bc, msg, at);
    } else if (strcmp(type, "update") == 0) {
        on_update(bc, msg);
    } else if (strcmp(type, "game_over") == 0) {
        print_result(bc, json_object_get(msg, "result"), json_object_get(msg, "scores"),
                     json_object_get(msg, "ranking"), bc->turns);
        finish(bc, BOTCLIENT_OVER);
    } else if (strcmp(type, "spectating") == 0) {
        const json_t *result = json_object_get(msg, "result");
        if (!json_is_object(result)) {
            say(bc, true, "the server says match %s is over but gives no result", bc->match);
            finish(bc, BOTCLIENT_FAIL);
            return;
        }
        print_result(bc, result, NULL, NULL, (int)json_array_size(json_object_get(msg, "history")));
        finish(bc, BOTCLIENT_OVER);
    } else if (strcmp(type, "error") == 0) {
        on_error(bc, msg);
    }
    /* move_accepted, pong and anything newer: nothing to do */
}

static void drain(botclient *bc)
{
    while (!bc->done && !bc->job && bc->qhead) {
        pending *p = bc->qhead;
        bc->qhead = p->next;
        if (!bc->qhead)
            bc->qtail = NULL;
        handle(bc, p->msg, p->at_ms);
        json_decref(p->msg);
        free(p);
    }
}

/* ---- link events ------------------------------------------------------------------ */

static void on_opened(void *ud)
{
    botclient *bc = ud;
    send_msg(bc, json_pack("{s:s, s:s, s:i, s:s}", "type", "hello", "id", "hello", "protocol", 1,
                           "client", bc->cfg.name ? bc->cfg.name : CLIENT_NAME));
}

static void on_text(void *ud, const char *text, size_t len)
{
    botclient *bc = ud;
    if (bc->done)
        return;
    json_error_t e;
    json_t *msg = json_loadb(text, len, JSON_REJECT_DUPLICATES, &e);
    if (!json_is_object(msg) || !json_is_string(json_object_get(msg, "type"))) {
        say(bc, true, "ignoring a message that is not a JSON object with a type");
        json_decref(msg);
        return;
    }
    const char *type = str_of(msg, "type");
    if (bc->job && (strcmp(type, "update") == 0 || strcmp(type, "game_over") == 0))
        atomic_store(&bc->job->stop, true); /* the search is moot */
    pending *p = malloc(sizeof *p);
    if (!p) {
        json_decref(msg);
        return;
    }
    p->next = NULL;
    p->msg = msg;
    p->at_ms = now_ms();
    if (bc->qtail)
        bc->qtail->next = p;
    else
        bc->qhead = p;
    bc->qtail = p;
    drain(bc);
}

static void on_retry(uv_timer_t *t)
{
    botclient *bc = t->data;
    if (!bc->done)
        cl_link_connect(bc->link);
}

static void on_closed(void *ud, const char *why)
{
    botclient *bc = ud;
    if (bc->done)
        return;
    uint64_t now = now_ms();
    if (!bc->lost_at)
        bc->lost_at = now;
    uint64_t deadline = bc->lost_at + (uint64_t)bc->cfg.give_up_ms;
    if (now >= deadline) {
        say(bc, true, "%s; giving up after %.1f s without a connection", why,
            (double)(now - bc->lost_at) / 1000.0);
        finish(bc, BOTCLIENT_FAIL);
        return;
    }
    int64_t delay = bc->backoff_ms;
    bc->backoff_ms = bc->backoff_ms * 2 > BOTCLIENT_BACKOFF_MAX_MS ? BOTCLIENT_BACKOFF_MAX_MS
                                                                   : bc->backoff_ms * 2;
    if (now + (uint64_t)delay > deadline)
        delay = (int64_t)(deadline - now); /* one last try at the deadline */
    say(bc, false, "%s; reconnecting in %lld ms", why, (long long)delay);
    uv_timer_start(&bc->retry, on_retry, (uint64_t)delay, 0);
}

/* ---- public ----------------------------------------------------------------------- */

void botclient_config_default(botclient_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->seat = -1;
    cfg->margin_ms = BOTCLIENT_MARGIN_MS;
    cfg->give_up_ms = BOTCLIENT_GIVE_UP_MS;
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    cfg->seed = (uint64_t)t.tv_sec * 1000000007u ^ (uint64_t)t.tv_nsec ^ ((uint64_t)getpid() << 32);
}

int botclient_run(const botclient_config *cfg)
{
    botclient *bc = calloc(1, sizeof *bc);
    if (!bc) {
        fprintf(stderr, "tessera bot: error: out of memory\n");
        return BOTCLIENT_FAIL;
    }
    bc->cfg = *cfg;
    bc->seat = cfg->match && cfg->seat >= 0 ? cfg->seat : -1;
    if (cfg->match)
        snprintf(bc->match, sizeof bc->match, "%s", cfg->match);
    if (cfg->resume_token)
        snprintf(bc->resume, sizeof bc->resume, "%s", cfg->resume_token);
    bc->backoff_ms = BOTCLIENT_BACKOFF_MIN_MS;
    eng_rng_seed_stream(&bc->rng, cfg->seed, 0xc11e47);
    int rc = uv_loop_init(&bc->loop);
    if (rc) {
        say(bc, true, "cannot start an event loop: %s", uv_strerror(rc));
        free(bc);
        return BOTCLIENT_FAIL;
    }
    char err[256];
    static const cl_link_events ev = {on_opened, on_text, on_closed};
    bool bad_url = cl_url_check(cfg->url, err, sizeof err) != 0;
    bc->link = bad_url ? NULL : cl_link_create(&bc->loop, cfg->url, &ev, bc, err, sizeof err);
    if (!bc->link) {
        say(bc, true, "%s", err);
        uv_loop_close(&bc->loop);
        free(bc);
        return bad_url ? BOTCLIENT_BADARG : BOTCLIENT_FAIL;
    }
    uv_timer_init(&bc->loop, &bc->retry);
    bc->retry.data = bc;
    cl_link_connect(bc->link);
    uv_run(&bc->loop, UV_RUN_DEFAULT);
    cl_link_free(bc->link);
    if (uv_loop_close(&bc->loop) != 0)
        say(bc, true, "internal: the event loop still had handles open");

    while (bc->qhead) {
        pending *p = bc->qhead;
        bc->qhead = p->next;
        json_decref(p->msg);
        free(p);
    }
    json_decref(bc->legal);
    json_decref(bc->asked_state);
    json_decref(bc->cache_move);
    json_decref(bc->cache_state);
    free_game(bc);
    int status = bc->status;
    free(bc);
    return status;
}
