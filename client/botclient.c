/*
 * botclient.c — `tessera bot` and `tessera bridge`: seats on a remote server
 * played by players (players/player.h): one of our bots, or an external
 * program in the sandbox (docs/botclient.md, docs/stdio.md).
 *
 * Two layers. The connection (one libuv loop thread): the WebSocket link,
 * hello, then `join`/`resume` of one seat or `register` under a name,
 * reconnecting with backoff, and routing every message to the session of
 * its match. A session is one seat of one match: the client's own copy of
 * the game, and a player on a thread of its own (worker.h) which the loop
 * thread feeds with the game's moves and asks for turns. Nothing on the
 * loop thread waits for a player.
 *
 * Keeping the game in sync with the server: sync.c.
 *
 * Time: a player must decide by the moment the server's `time_left_ms`
 * runs out, minus the margin and the time the message waited here; that
 * deadline is what a program is told (`your_turn.time_left_ms`). Each move
 * carries `think_ms`: a program's CPU time in the turn, a bot's wall time
 * (the server keeps it in its records). Servers from before think_ms refuse
 * the field; for them only, such a move is sent again without it and no
 * move carries it from then on.
 *
 * Faults of a program (players' verdicts) are reported to the user, never
 * hidden: an unreadable or illegal answer is asked again while time is
 * left (the program is told why, as the server's `reject` policy does); a
 * program that crashed, timed out or flooded sends nothing, so that the
 * server's policy applies at the deadline, and it is started again at the
 * seat's next turn with the history; `resign` is passed on.
 *
 * Reconnecting: a lost connection is retried after 100 ms, doubling up to
 * 5 s, until `give_up_ms` have passed without a connection; then exit
 * status 1. A seat is resumed with its resume token (and a `your_turn` for
 * a turn already decided gets the same move again); a registration is
 * made again, and every live seat of the name comes back as `resumed`.
 */
#include "botclient.h"

#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <uv.h>

#include "bots/bot.h"
#include "engine/eng.h"
#include "link.h"
#include "players/player.h"
#include "protocol/record.h"
#include "protocol/wire.h"
#include "session.h"
#include "worker.h"

/* ---- logging (say.c) and small readers ---------------------------------------- */

static uint64_t now_ms(void)
{
    return uv_hrtime() / 1000000u;
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

/* The id of a move: "move-TURN-SEAT-MATCH", so that an error names the
 * session (a registered client may even hold two seats of one match). */
static void move_id(const session *s, int turn, char *buf, size_t cap)
{
    snprintf(buf, cap, "move-%d-%d-%s", turn, s->seat, s->match);
}

static void send_move(session *s, int turn, const json_t *move, int64_t think_ms)
{
    botclient *bc = s->bc;
    char id[96];
    move_id(s, turn, id, sizeof id);
    json_t *m =
        json_pack("{s:s, s:s, s:i, s:O}", "type", "move", "id", id, "turn", turn, "move", move);
    if (m && s->match[0])
        json_object_set_new(m, "match", json_string(s->match));
    if (m && s->seat >= 0 && bc->registering)
        json_object_set_new(m, "seat", json_integer(s->seat));
    if (m && think_ms >= 0 && !bc->no_think_ms)
        json_object_set_new(m, "think_ms",
                            json_integer(think_ms > THINK_MS_MAX ? THINK_MS_MAX : think_ms));
    json_t *line = m && s->line && s->line_turn == turn ? json_copy(s->line) : NULL;
    if (line) { /* the line right before it rides the move (docs/botclient.md): one frame */
        json_object_del(line, "turn");
        json_object_set_new(m, "info", line);
        json_decref(s->line);
        s->line = NULL;
    }
    send_msg(bc, m);
}

/* A thinking line of the program (players/ checked it) to the server, as
 * the WebSocket protocol's info (docs/protocol.md): the body with its turn. */
static void send_info(session *s, int turn, const json_t *body)
{
    botclient *bc = s->bc;
    if (bc->no_info)
        return;
    /* "id" only so that a server from before info can say so (on_error) */
    json_t *m = json_pack("{s:s, s:s, s:i}", "type", "info", "id", "info", "turn", turn);
    if (!m || json_object_update(m, (json_t *)body)) {
        json_decref(m);
        return;
    }
    json_object_set_new(m, "turn", json_integer(turn));
    if (s->match[0])
        json_object_set_new(m, "match", json_string(s->match));
    if (s->seat >= 0 && bc->registering)
        json_object_set_new(m, "seat", json_integer(s->seat));
    send_msg(bc, m);
}

/* A line held for a move that did not come right behind it: on its own. */
static void flush_line(session *s)
{
    if (s->line && s->line_turn == s->asked_turn && !s->bc->done)
        send_info(s, s->line_turn, s->line);
    json_decref(s->line);
    s->line = NULL;
}

static void write_token_file(session *s)
{
    botclient *bc = s->bc;
    if (!bc->cfg.token_file)
        return;
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp%ld", bc->cfg.token_file, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f || fprintf(f, "%s\n", s->resume) < 0 || fclose(f) != 0 ||
        rename(tmp, bc->cfg.token_file) != 0) {
        cl__say(bc, true, "cannot write the resume token to %s", bc->cfg.token_file);
        remove(tmp);
    }
}

/* ---- sessions --------------------------------------------------------------------- */

/* The session of seat `seat` (-1: any) of match `match`: a live one
 * first, else one whose game is over. */
static session *find_session(botclient *bc, const char *match, int seat)
{
    session *over = NULL;
    for (session *s = bc->sessions; s; s = s->next)
        if (s->match[0] && strcmp(s->match, match) == 0 && (seat < 0 || s->seat == seat)) {
            if (!s->over)
                return s;
            over = over ? over : s;
        }
    return over;
}

static session *new_session(botclient *bc, const char *match, int seat)
{
    session *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->bc = bc;
    s->seat = seat;
    s->cache_think = -1;
    snprintf(s->match, sizeof s->match, "%s", match ? match : "");
    s->next = bc->sessions;
    bc->sessions = s;
    return s;
}

/* Sessions whose game is not over. */
static int live_sessions(const botclient *bc)
{
    int n = 0;
    for (const session *s = bc->sessions; s; s = s->next)
        n += !s->over;
    return n;
}

static void free_game(session *s)
{
    free(s->initial);
    free(s->st);
    free(s->tmp);
    free(s->dec);
    free(s->tdec);
    free(s->outcomes);
    free(s->probs);
    free(s->moves);
    s->initial = s->st = s->tmp = s->dec = s->tdec = NULL;
    s->outcomes = NULL;
    s->probs = NULL;
    s->moves = NULL;
    json_decref(s->history);
    json_decref(s->time_control);
    s->history = s->time_control = NULL;
    s->g = NULL;
}

static void free_session(session *s)
{
    cl_worker_free(s->wk);
    free_game(s);
    json_decref(s->legal);
    json_decref(s->asked_state);
    json_decref(s->think_state);
    json_decref(s->cache_move);
    json_decref(s->cache_state);
    json_decref(s->line);
    free(s);
}

/* Let the session's player go (its thread destroys it and ends). */
static void close_player(session *s)
{
    if (s->wk && !s->closing) {
        s->closing = true;
        cl_worker_close(s->wk);
    }
}

/* ---- the end ---------------------------------------------------------------------- */

static void on_handle_closed(uv_handle_t *h)
{
    (void)h;
}

/* Once finishing and every player's thread has ended: close the handles,
 * so that the loop returns. */
static void maybe_close(botclient *bc)
{
    if (!bc->done || bc->closed)
        return;
    for (session *s = bc->sessions; s; s = s->next)
        if (s->wk && !cl_worker_finished(s->wk))
            return;
    bc->closed = true;
    if (bc->handles) {
        uv_close((uv_handle_t *)&bc->retry, on_handle_closed);
        uv_close((uv_handle_t *)&bc->reattach, on_handle_closed);
        uv_close((uv_handle_t *)&bc->wake, on_handle_closed);
        uv_close((uv_handle_t *)&bc->sigint, on_handle_closed);
        uv_close((uv_handle_t *)&bc->sigterm, on_handle_closed);
    }
}

static void finish(botclient *bc, int status)
{
    if (bc->done)
        return;
    bc->done = true;
    bc->status = status;
    if (bc->handles) {
        uv_timer_stop(&bc->retry);
        uv_timer_stop(&bc->reattach);
        uv_signal_stop(&bc->sigint);
        uv_signal_stop(&bc->sigterm);
    }
    for (session *s = bc->sessions; s; s = s->next)
        close_player(s);
    cl_link_shutdown(bc->link);
    maybe_close(bc);
}

/* A session's game is over (or its seat is gone): let its player go, and
 * end the client when nothing is left to play. */
static void session_over(session *s)
{
    botclient *bc = s->bc;
    s->over = true;
    s->asked_turn = 0;
    close_player(s);
    if (!bc->registering) {
        finish(bc, BOTCLIENT_OVER);
        return;
    }
    bool enough = bc->cfg.max_games > 0 && bc->games_ended >= bc->cfg.max_games;
    if ((enough || bc->draining) && live_sessions(bc) == 0) {
        if (enough)
            cl__say(bc, false, "%d game%s played; stopping", bc->games_ended,
                    bc->games_ended == 1 ? "" : "s");
        finish(bc, BOTCLIENT_OVER);
    }
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
static void print_result(session *s, const json_t *result, const json_t *scores,
                         const json_t *ranking, int turns)
{
    FILE *f = s->bc->cfg.out ? s->bc->cfg.out : stdout;
    const json_t *sc = json_object_get(result, "scores");
    const json_t *rk = json_object_get(result, "ranking");
    char reason[64];
    snprintf(reason, sizeof reason, "%s",
             cl__str_of(result, "reason")[0] ? cl__str_of(result, "reason") : "?");
    fprintf(f, "game over: reason=%s scores=", cl__printable(reason));
    print_ints(f, sc ? sc : scores);
    fprintf(f, " winners=");
    print_ints(f, json_object_get(result, "winners"));
    fprintf(f, " ranking=");
    print_ints(f, rk ? rk : ranking);
    fprintf(f, " turns=%d match=%s seat=", turns, s->match);
    if (s->seat >= 0)
        fprintf(f, "%d", s->seat);
    else
        fputc('?', f); /* resumed a finished match by token alone */
    if (json_is_integer(json_object_get(result, "seat")))
        fprintf(f, " faulty=%lld", int_of(result, "seat", -1));
    if (json_is_string(json_object_get(result, "detail"))) {
        char detail[256];
        snprintf(detail, sizeof detail, "%s", cl__str_of(result, "detail"));
        fprintf(f, " detail=\"%s\"", cl__printable(detail));
    }
    fputc('\n', f);
    fflush(f);
}

/* ---- the player's thread ---------------------------------------------------------- */

static void wake_cb(void *ud)
{
    botclient *bc = ud;
    uv_async_send(&bc->wake); /* thread-safe; coalesced */
}

/* Show what a program wrote on stderr (its debug channel), line by line:
 * len bytes of text, the last of total. */
static void show_stderr_text(const session *s, const char *text, size_t len, uint64_t total)
{
    botclient *bc = s->bc;
    if (bc->cfg.quiet || len == 0)
        return;
    if (len > PLAYER_STDERR_KEEP)
        len = PLAYER_STDERR_KEEP;
    if (total > len)
        cl__say(bc, false, "%sthe program wrote %llu bytes on stderr; the last %zu:", cl__who(s),
                (unsigned long long)total, len);
    char buf[PLAYER_STDERR_KEEP + 1];
    memcpy(buf, text, len);
    buf[len] = 0;
    char *save = NULL;
    for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        size_t n = strlen(line);
        if (n && line[n - 1] == '\r')
            line[n - 1] = 0;
        cl__say(bc, false, "%sstderr| %s", cl__who(s), line);
    }
}

static void show_stderr(session *s, const player_result *r)
{
    show_stderr_text(s, r->stderr_tail, r->stderr_len, r->stderr_total);
}

/* What the program wrote after its last call (after game_over, as it
 * exits): on the player's thread as it is destroyed, before the session
 * can be freed (that waits for the thread's end). */
static void stderr_at_exit(const char *text, size_t len, uint64_t total, void *user)
{
    show_stderr_text(user, text, len, total);
}

/* The match's game set up (sync.c) and, the first time, its player started
 * on a thread of its own. 0, or -1 after saying why and ending the session
 * (registered: the client goes on) or the client. */
static int join_game(session *s, const json_t *msg)
{
    botclient *bc = s->bc;
    int status = BOTCLIENT_FAIL;
    bool fresh = !s->g;
    char err[PLAYER_DETAIL_MAX];
    if (cl__setup_game(s, msg) != 0)
        goto fail;
    if (!fresh)
        return 0;
    const eng_game *g = s->g;
    player_config pc;
    player_config_default(&pc);
    pc.seed = bc->cfg.seed;
    pc.bot_margin_ms = 0; /* --margin-ms is already kept back from the deadline; a bot still
                           * stops 1/20 of its time early, as players/ does */
    pc.limits = bc->cfg.limits;
    pc.time_control = s->time_control;
    pc.startup_ms = 0; /* the server's clock runs: the start-up is on the first move's (the
                        * server's first_move_ms) */
    pc.stderr_at_exit = stderr_at_exit;
    pc.stderr_at_exit_user = s;
    player *p = player_create(bc->cfg.bot_spec, g, &pc, err, sizeof err);
    if (!p) {
        cl__say(bc, true, "%s'%s' cannot play %s: %s", cl__who(s), bc->cfg.bot_spec, g->name, err);
        status = BOTCLIENT_BADARG;
        goto fail;
    }
    s->wk = cl_worker_start(p, g, wake_cb, bc);
    if (!s->wk) {
        cl__say(bc, true, "cannot start a thread for the player");
        goto fail;
    }
    return 0;
fail:
    free_game(s);
    if (bc->registering) {
        session_over(s);
        return -1;
    }
    finish(bc, status);
    return -1;
}

/* ---- deciding --------------------------------------------------------------------- */

/* A uniformly random entry of `legal`, as a move (new reference or NULL);
 * an entry that stands for several moves becomes one of them, picked
 * uniformly by the game's codec (pick_entry). */
static json_t *random_legal(session *s)
{
    botclient *bc = s->bc;
    size_t n = json_array_size(s->legal);
    if (n == 0)
        return NULL;
    const json_t *entry = json_array_get(s->legal, eng_rng_below(&bc->rng, (uint32_t)n));
    return s->w->pick_entry ? s->w->pick_entry(entry, &bc->rng) : json_deep_copy(entry);
}

/* Keep the move (stolen) chosen for `turn` in the server's `state`, to send
 * it again if the server asks for the same turn in the same state. */
static void remember(session *s, int turn, json_t *move, const json_t *state, int64_t think)
{
    json_decref(s->cache_move);
    json_decref(s->cache_state);
    s->cache_move = move;
    s->cache_state = json_incref((json_t *)state);
    s->cache_turn = turn;
    s->cache_think = think;
}

/* The move of `turn` is decided (move stolen): remember it, and send it if
 * the server still waits for it. */
static void decided(session *s, int turn, json_t *move, int64_t think)
{
    remember(s, turn, move, s->asked_state, think);
    if (s->asked_turn == turn)
        send_move(s, turn, move, think);
}

static void play_random(session *s, int turn, const char *why)
{
    json_t *m = random_legal(s);
    if (!m) {
        cl__say(s->bc, true, "%sturn %d: no legal move to choose from", cl__who(s), turn);
        return;
    }
    char *text = json_dumps(m, JSON_COMPACT);
    cl__say(s->bc, false, "%sturn %d: %s (random: %s)", cl__who(s), turn, text ? text : "?", why);
    free(text);
    decided(s, turn, m, -1);
}

/* Ask the player for the turn in s->dec (already observed up to it). */
static void start_turn(session *s, int turn)
{
    const eng_game *g = s->g;
    memcpy(s->tdec, s->dec, g->state_size);
    s->think_turn = turn;
    json_decref(s->think_state);
    s->think_state = json_incref(s->asked_state);
    double left = s->asked_deadline - bot_now_ms();
    s->think_budget = left > 0 ? (int64_t)left : 0;
    if (cl_worker_turn(s->wk, s->tdec, s->asked_deadline, turn) != 0) {
        s->think_turn = 0;
        play_random(s, turn, "out of memory");
    }
}

/* A turn came back from the player. */
static void turn_done(session *s, cl_done *d)
{
    botclient *bc = s->bc;
    const player_result *r = &d->res;
    int turn = d->tag;
    if (turn != s->think_turn)
        return; /* a turn given up (the session resynchronised meanwhile) */
    s->think_turn = 0;
    show_stderr(s, r);
    if (r->note[0])
        cl__say(bc, false, "%sturn %d: note: %s", cl__who(s), turn, r->note);
    if (s->turns >= turn || s->over) {
        if (r->verdict == PLAYER_OK)
            cl__say(bc, true,
                    "%sturn %d: the server played this turn for the seat (see its update); the "
                    "move came %.0f ms after the request and is dropped",
                    cl__who(s), turn, r->wall_ms);
        return;
    }
    bool program = cl_worker_kind(s->wk) == PLAYER_PROGRAM;
    int64_t think = (int64_t)llround(program ? r->cpu_ms : r->wall_ms);
    if (think < 0)
        think = 0;
    json_t *move = NULL;
    if (r->verdict == PLAYER_OK &&
        eng_turn_check(s->g, s->tdec, r->moves, r->nmoves, s->tmp, NULL, 0) == 0)
        move = s->w->format_move(s->tdec, r->moves, r->nmoves);
    if (move && !json_is_null(move)) {
        char *text = json_dumps(move, JSON_COMPACT);
        if (program)
            cl__say(bc, false, "%sturn %d: %s cpu %lld ms, %.0f ms (budget %lld ms)%s%.300s",
                    cl__who(s), turn, text ? text : "?", (long long)think, r->wall_ms,
                    (long long)s->think_budget, r->debug[0] ? "; debug: " : "", r->debug);
        else
            cl__say(bc, false, "%sturn %d: %s sims %lld, %.0f ms (budget %lld ms)", cl__who(s),
                    turn, text ? text : "?", (long long)r->sims, r->wall_ms,
                    (long long)s->think_budget);
        free(text);
        remember(s, turn, move, s->think_state, think);
        if (s->asked_turn == turn)
            send_move(s, turn, move, think);
        return;
    }
    json_decref(move);
    if (r->verdict == PLAYER_OK) {
        cl__say(bc, true, "%sturn %d: the player's moves are not one legal turn", cl__who(s), turn);
        play_random(s, turn, "no legal turn");
        return;
    }
    /* a fault: said plainly, with the short name judges use */
    cl__say(bc, true, "%sturn %d: %s (%s): %s", cl__who(s), turn, player_verdict_name(r->verdict),
            player_verdict_short(r->verdict), r->detail);
    if (!program || r->verdict == PLAYER_INTERNAL) {
        play_random(s, turn, r->verdict == PLAYER_INTERNAL ? "internal error" : "the bot failed");
        return;
    }
    if (r->verdict == PLAYER_RESIGNED) {
        cl__say(bc, false, "%sresigning for the program", cl__who(s));
        json_t *m =
            json_pack("{s:s, s:s, s:s}", "type", "resign", "id", "resign", "match", s->match);
        if (m && s->seat >= 0)
            json_object_set_new(m, "seat", json_integer(s->seat));
        send_msg(bc, m);
        return;
    }
    bool again = r->verdict == PLAYER_ILLEGAL_MOVE || r->verdict == PLAYER_BAD_OUTPUT;
    if (again && s->tries + 1 < BOTCLIENT_RETRIES && bot_now_ms() + 5 < s->asked_deadline &&
        s->asked_turn == turn) {
        s->tries++;
        cl__say(bc, false, "%sturn %d: asking the program again (it is told why)", cl__who(s),
                turn);
        memcpy(s->dec, s->tdec, s->g->state_size);
        start_turn(s, turn);
        return;
    }
    cl__say(bc, false,
            "%sturn %d: no move sent: the server's policy for a seat out of time applies%s",
            cl__who(s), turn, again ? "" : "; the program is started again at its next turn");
}

/* Results from the session's player. */
static void drain_worker(session *s)
{
    cl_done *d;
    while (s->wk && (d = cl_worker_take(s->wk)) != NULL) {
        if (d->kind != CL_DONE_TURN)
            flush_line(s);
        switch (d->kind) {
        case CL_DONE_TURN:
            if (d->info) { /* the turn's last line: it replaces none, it comes after them */
                flush_line(s);
                s->line = d->info;
                s->line_turn = d->tag;
                d->info = NULL;
                if (!s->bc->move_info)
                    flush_line(s); /* a server from before move_info: before the move */
            }
            if (!s->bc->done)
                turn_done(s, d); /* its move takes the line held, if it is the turn's */
            flush_line(s);
            break;
        case CL_DONE_GAME_OVER: show_stderr(s, &d->res); break;
        case CL_DONE_ERROR: cl__say(s->bc, true, "%s%s", cl__who(s), d->res.detail); break;
        case CL_DONE_INFO:
            if (!s->bc->done && d->tag == s->asked_turn && s->bc->move_info && !s->bc->no_info) {
                s->line = d->info; /* held: the move may be right behind it */
                s->line_turn = d->tag;
                d->info = NULL;
            } else if (!s->bc->done && d->tag == s->asked_turn) {
                send_info(s, d->tag, d->info);
            }
            break;
        }
        json_decref(d->info);
        free(d);
    }
    flush_line(s);
}

static void on_your_turn(session *s, const json_t *msg, double at)
{
    botclient *bc = s->bc;
    int turn = (int)int_of(msg, "turn", 0);
    bool same = s->asked_turn == turn;
    s->asked_turn = turn;
    s->refusals = 0;
    json_decref(s->legal);
    s->legal = json_incref(json_object_get(msg, "legal"));
    json_decref(s->asked_state);
    s->asked_state = json_incref(json_object_get(msg, "state"));
    int64_t left = int_of(msg, "time_left_ms", 1000);
    s->asked_deadline = at + (double)(left - bc->cfg.margin_ms);
    if (!same)
        s->tries = 0;
    if (s->cache_turn == turn && s->cache_move && json_equal(s->cache_state, s->asked_state)) {
        send_move(s, turn, s->cache_move, s->cache_think); /* asked again (resume, grace) */
        return;
    }
    if (s->think_turn == turn && json_equal(s->think_state, s->asked_state))
        return; /* still thinking about it: the answer goes out when it comes */
    if (s->think_turn) {
        cl_worker_stop_turn(s->wk, s->think_turn); /* moot: asked something else */
        s->think_turn = 0;
    }
    if (!s->g || !s->synced) {
        play_random(s, turn, "not following the match");
        return;
    }
    if (turn != s->turns + 1) {
        cl__say(bc, true, "%sturn %d: the server asks for turn %d but %d turns are known",
                cl__who(s), turn, turn, s->turns);
        play_random(s, turn, "turn numbers differ");
        return;
    }
    char why[200] = "";
    eng_move chance[1];
    int nchance = cl__to_decision(s, json_object_get(msg, "state"), chance, why, sizeof why);
    if (nchance < 0 || s->g->current_player(s->dec) != s->seat) {
        cl__say(bc, true, "%sturn %d: the local state differs from the server's: %s", cl__who(s),
                turn, nchance < 0 ? why : "another seat is to move");
        play_random(s, turn, "state mismatch");
        return;
    }
    if (s->pre_turn == turn && (s->pre_n != nchance || (nchance && s->pre[0] != chance[0]))) {
        /* the player saw another draw for this turn (a restarted server drew
         * again): it catches up from the beginning */
        if (s->nmoves + nchance <= s->cap_moves) {
            memcpy(s->moves + s->nmoves, chance, (size_t)nchance * sizeof chance[0]);
            cl_worker_resume(s->wk, s->initial, s->moves, s->nmoves + nchance, s->seat, s->match);
        }
    } else if (s->pre_turn != turn) {
        for (int i = 0; i < nchance; i++)
            cl_worker_observe(s->wk, s->st, chance[i], NULL);
    }
    s->pre_turn = turn;
    s->pre_n = nchance;
    memcpy(s->pre, chance, (size_t)nchance * sizeof chance[0]);
    if (s->asked_deadline - bot_now_ms() < 1)
        s->asked_deadline = bot_now_ms() + 1;
    start_turn(s, turn);
}

/* ---- messages --------------------------------------------------------------------- */

static void send_join_or_resume(botclient *bc, session *s)
{
    json_t *m;
    if (s->resume[0]) {
        char id[96] = "resume";
        if (bc->registering)
            snprintf(id, sizeof id, "resume-%d-%s", s->seat, s->match);
        m = json_pack("{s:s, s:s, s:s}", "type", "resume", "id", id, "resume_token", s->resume);
    } else {
        m = json_pack("{s:s, s:s, s:s, s:i, s:s}", "type", "join", "id", "join", "match",
                      bc->cfg.match ? bc->cfg.match : "", "seat", bc->cfg.seat, "token",
                      bc->cfg.token ? bc->cfg.token : "");
    }
    send_msg(bc, m);
}

static void send_register(botclient *bc)
{
    json_t *m =
        json_pack("{s:s, s:s, s:s, s:s, s:i}", "type", "register", "id", "register", "name",
                  bc->cfg.register_name, "secret", bc->cfg.secret, "capacity", bc->cfg.capacity);
    if (m && bc->cfg.ngames > 0) {
        json_t *games = json_array();
        for (int i = 0; i < bc->cfg.ngames; i++)
            json_array_append_new(games, json_string(bc->cfg.games[i]));
        json_object_set_new(m, "games", games);
    }
    send_msg(bc, m);
}

static void on_seat(session *s, const json_t *msg, bool resumed)
{
    botclient *bc = s->bc;
    const char *match = cl__str_of(msg, "match"), *res = cl__str_of(msg, "resume_token");
    int seat = (int)int_of(msg, "seat", -1);
    if (s->match[0] && strcmp(s->match, match) != 0)
        cl__say(bc, true, "the server seated us in match %s, not %s", match, s->match);
    snprintf(s->match, sizeof s->match, "%s", match);
    cl__printable(s->match); /* printed in the result line */
    s->seat = seat;
    s->reattached = true;
    if (res[0] && strcmp(res, s->resume) != 0) {
        snprintf(s->resume, sizeof s->resume, "%s", res);
        cl__printable(s->resume); /* written to the token file */
        write_token_file(s);
    }
    if (join_game(s, msg) != 0)
        return;
    cl__rebuild(s, json_object_get(msg, "history"));
    bc->lost_at = 0;
    bc->backoff_ms = BOTCLIENT_BACKOFF_MIN_MS;
    s->asked_turn = 0;
    s->tried_join = false;
    cl__say(bc, false, "%s match %s as seat %d (%s, %d turns played)",
            resumed ? "resumed" : "joined", s->match, s->seat, s->g->name, s->turns);
    /* reached through another server of a cluster: play on the match's own
     * (docs/scaling.md), with the resume token; a seat of a registration
     * stays where its name is */
    const char *owner = cl__str_of(msg, "owner_url");
    char err[160];
    if (owner[0] && !bc->registering && s->resume[0] && bc->follows < BOTCLIENT_MAX_FOLLOWS &&
        cl_link_set_url(bc->link, owner, err, sizeof err) == 0) {
        bc->follows++;
        bc->following = 1;
        cl__say(bc, false, "the match is played on %.200s: playing there", owner);
        cl_link_drop(bc->link);
    }
}

/* Drop the connection and resume: the server sends the whole history. */
static void resync(session *s, const char *why)
{
    cl__say(s->bc, true, "%s%s; reconnecting to resynchronise", cl__who(s), why);
    cl_link_drop(s->bc->link);
}

static void on_update(session *s, const json_t *msg)
{
    int turn = (int)int_of(msg, "turn", 0);
    const json_t *rec = json_object_get(msg, "record");
    if (!s->g || turn <= s->turns)
        return; /* before we knew the game, or already known */
    if (s->asked_turn == turn)
        s->asked_turn = 0;
    if (s->think_turn == turn)
        cl_worker_stop_turn(s->wk, turn); /* the server played it (its policy) */
    if (turn != s->turns + 1) {
        resync(s, "turns were missed");
        return;
    }
    if (!s->synced) {
        json_array_append(s->history, (json_t *)rec);
        s->turns = turn;
        return;
    }
    const char *reason =
        strcmp(cl__str_of(msg, "by"), "server") == 0 ? cl__str_of(msg, "reason") : NULL;
    if (reason && !reason[0])
        reason = "server";
    char err[256];
    if (cl__apply_record(s, rec, true, reason, err, sizeof err) != 0) {
        char why[320];
        snprintf(why, sizeof why, "turn %d: the update does not apply: %s", turn, err);
        resync(s, why);
    }
}

static void on_game_over(session *s, const json_t *msg)
{
    botclient *bc = s->bc;
    const json_t *result = json_object_get(msg, "result");
    print_result(s, result, json_object_get(msg, "scores"), json_object_get(msg, "ranking"),
                 s->turns);
    if (s->over)
        return;
    bc->games_ended++;
    if (s->think_turn)
        cl_worker_stop_turn(s->wk, s->think_turn);
    s->think_turn = 0;
    if (s->wk && s->g && s->synced) {
        /* the state the player last saw: with the draw of a turn left unplayed */
        const void *st = s->pre_turn == s->turns + 1 ? s->dec : s->st;
        const json_t *faulty = json_object_get(result, "seat");
        const char *detail = cl__str_of(result, "detail");
        cl_worker_game_over(
            s->wk, st, cl__str_of(result, "reason")[0] ? cl__str_of(result, "reason") : "normal",
            json_is_integer(faulty) ? (int)json_integer_value(faulty) : -1,
            detail[0] ? detail : NULL);
    }
    session_over(s);
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

/* The session a join/resume reply is for. */
static session *session_of_seat_reply(botclient *bc, const char *id, const json_t *msg)
{
    if (!bc->registering)
        return bc->sessions;
    char *end;
    long seat = strncmp(id, "resume-", 7) == 0 ? strtol(id + 7, &end, 10) : -1;
    if (seat >= 0 && *end == '-')
        return find_session(bc, end + 1, (int)seat);
    return find_session(bc, cl__str_of(msg, "match"), (int)int_of(msg, "seat", -1));
}

static void on_error(botclient *bc, const json_t *msg)
{
    const char *code = cl__str_of(msg, "code"), *text = cl__str_of(msg, "message");
    const json_t *jid = json_object_get(msg, "id");
    const char *id = json_is_string(jid) ? json_string_value(jid) : "";
    if (strcmp(id, "info") == 0) {
        /* a server from before thinking lines (current ones never answer an
         * info): they go no more */
        if (!bc->no_info)
            cl__say(bc, false, "the server does not take thinking lines (%s); they go no more", code);
        bc->no_info = true;
        return;
    }
    if (strcmp(id, "join") == 0 || strcmp(id, "resume") == 0 || strncmp(id, "resume-", 7) == 0) {
        session *s = session_of_seat_reply(bc, id, msg);
        const char *what = id[0] == 'j' ? "join" : "resume";
        if (!s)
            return;
        if (transient(code)) {
            cl__say(bc, false, "%s refused for now: %s: %s", what, code, text);
            cl_link_drop(bc->link);
            return;
        }
        if (what[0] == 'r' && strcmp(code, "match_over") == 0 && s->match[0]) {
            /* it ended while we were away: read the result as a spectator */
            send_msg(bc, json_pack("{s:s, s:s, s:s}", "type", "spectate", "id", "spectate", "match",
                                   s->match));
            return;
        }
        if (!bc->registering && what[0] == 'r' && strcmp(code, "bad_token") == 0 &&
            !s->tried_join && bc->cfg.match && bc->cfg.token && bc->cfg.seat >= 0) {
            cl__say(bc, false, "resume token refused; joining with the seat token");
            s->tried_join = true;
            s->resume[0] = 0;
            send_join_or_resume(bc, s);
            return;
        }
        if (s->match[0] && s->seat >= 0)
            cl__say(bc, true, "cannot %s match %s seat %d: %s: %s", what, s->match, s->seat, code,
                    text);
        else
            cl__say(bc, true, "cannot %s: %s: %s", what, code, text);
        if (bc->registering) {
            session_over(s); /* that seat is gone; the others play on */
            return;
        }
        finish(bc, BOTCLIENT_FAIL);
        return;
    }
    if (strcmp(id, "register") == 0) {
        if (transient(code)) {
            cl__say(bc, false, "register refused for now: %s: %s", code, text);
            cl_link_drop(bc->link);
            return;
        }
        cl__say(bc, true, "cannot register as %s: %s: %s", bc->cfg.register_name, code, text);
        finish(bc, BOTCLIENT_FAIL);
        return;
    }
    if (strcmp(id, "hello") == 0 || strcmp(id, "spectate") == 0) {
        cl__say(bc, true, "the server refused %s: %s: %s", id, code, text);
        if (strcmp(id, "spectate") == 0 && bc->registering)
            return;
        finish(bc, BOTCLIENT_FAIL);
        return;
    }
    if (strncmp(id, "move-", 5) == 0) {
        char *end, *end2 = NULL;
        long turn = strtol(id + 5, &end, 10);
        long seat = *end == '-' ? strtol(end + 1, &end2, 10) : -1;
        session *s = end2 && *end2 == '-' ? find_session(bc, end2 + 1, (int)seat) : NULL;
        if (!s && !bc->registering)
            s = bc->sessions;
        if (!s)
            return;
        if (strcmp(code, "bad_message") == 0 && strstr(text, "think_ms")) {
            /* a server from before think_ms (current ones keep it): send the
             * move again without it (every move sent before the first
             * refusal comes back so) */
            if (!bc->no_think_ms)
                cl__say(bc, false, "the server does not take think_ms; moves go without it");
            bc->no_think_ms = true;
            if (s->asked_turn == turn && s->cache_turn == turn && s->cache_move)
                send_move(s, (int)turn, s->cache_move, -1);
            return;
        }
        bool refused = strcmp(code, "illegal_move") == 0 || strcmp(code, "bad_move") == 0;
        cl__say(bc, refused, "%sturn %ld: move refused: %s: %s", cl__who(s), turn, code, text);
        if (refused && s->asked_turn == turn && s->refusals < MAX_MOVE_RETRIES) {
            s->refusals++;
            json_t *m = random_legal(s);
            if (m)
                decided(s, (int)turn, m, -1);
        }
        if (bc->registering && (strcmp(code, "wrong_seat") == 0 || strcmp(code, "not_joined") == 0))
            session_over(s); /* the seat was taken over elsewhere */
        return;
    }
    if (strcmp(code, "registration_taken") == 0) {
        cl__say(bc, true, "another connection registered as %s: %s", bc->cfg.register_name, text);
        finish(bc, BOTCLIENT_FAIL);
        return;
    }
    if (strcmp(code, "seat_taken") == 0) {
        /* unasked: another connection resumed one of our seats (newer
         * servers name its match) */
        session *s = bc->registering
                         ? find_session(bc, cl__str_of(msg, "match"), (int)int_of(msg, "seat", -1))
                         : bc->sessions;
        if (!bc->registering) {
            cl__say(bc, true, "another connection took over seat %d: %s", s ? s->seat : -1, text);
            finish(bc, BOTCLIENT_FAIL);
        } else if (s) {
            cl__say(bc, true, "%sanother connection took over seat %d: %s", cl__who(s), s->seat,
                    text);
            session_over(s);
        } else {
            cl__say(bc, true, "another connection took over a seat: %s", text);
        }
        return;
    }
    cl__say(bc, !transient(code), "server: %s: %s", code, text);
}

/* Registered again after a reconnect: seats the server has not given back
 * within REATTACH_MS are resumed by token (a match that ended meanwhile
 * is then read as a spectator). */
static void on_reattach(uv_timer_t *t)
{
    botclient *bc = t->data;
    if (bc->done || !cl_link_is_open(bc->link))
        return;
    for (session *s = bc->sessions; s; s = s->next)
        if (!s->over && !s->reattached && s->resume[0])
            send_join_or_resume(bc, s);
}

static void on_registered(botclient *bc, const json_t *msg)
{
    bc->registered = true;
    bc->lost_at = 0;
    bc->backoff_ms = BOTCLIENT_BACKOFF_MIN_MS;
    cl__say(bc, false, "registered as %s (capacity %lld)%s", cl__str_of(msg, "name"),
            int_of(msg, "capacity", bc->cfg.capacity),
            live_sessions(bc) ? "; taking the live games back" : "; waiting for games");
    if (bc->draining) {
        send_msg(bc, json_pack("{s:s, s:s}", "type", "unregister", "id", "unregister"));
        return;
    }
    if (live_sessions(bc))
        uv_timer_start(&bc->reattach, on_reattach, REATTACH_MS, 0);
}

/* A seat for this connection: the reply to our join/resume, or (registered)
 * one the server gave us. NULL when the message is not for us. */
static session *seat_session(botclient *bc, const json_t *msg)
{
    const json_t *jid = json_object_get(msg, "id");
    const char *id = json_is_string(jid) ? json_string_value(jid) : "";
    if (!bc->registering)
        return bc->sessions;
    const char *match = cl__str_of(msg, "match");
    session *s = find_session(bc, match, (int)int_of(msg, "seat", -1));
    if (s)
        return s->over ? NULL : s;
    if (id[0])
        return NULL;
    if (!match[0])
        return NULL;
    if (live_sessions(bc) >= bc->cfg.capacity)
        cl__say(bc, true, "the server seated us in %d games at once, more than our capacity of %d",
                live_sessions(bc) + 1, bc->cfg.capacity);
    return new_session(bc, match, (int)int_of(msg, "seat", -1));
}

/* update, game_over, spectating (the result of a match that ended while
 * we were away) for session s. */
static void table_message(session *s, const char *type, const json_t *msg)
{
    botclient *bc = s ? s->bc : NULL;
    if (!s || s->over)
        return;
    if (strcmp(type, "update") == 0) {
        on_update(s, msg);
    } else if (strcmp(type, "game_over") == 0) {
        on_game_over(s, msg);
    } else if (strcmp(type, "spectating") == 0) {
        const json_t *result = json_object_get(msg, "result");
        if (!json_is_object(result)) {
            cl__say(bc, true, "the server says match %s is over but gives no result", s->match);
            if (!bc->registering)
                finish(bc, BOTCLIENT_FAIL);
            else
                session_over(s);
            return;
        }
        print_result(s, result, NULL, NULL, (int)json_array_size(json_object_get(msg, "history")));
        bc->games_ended++;
        session_over(s);
    }
    /* move_accepted, pong and anything newer: nothing to do */
}

static void handle(botclient *bc, const json_t *msg, double at)
{
    const char *type = cl__str_of(msg, "type");
    const char *match = cl__str_of(msg, "match");
    if (strcmp(type, "welcome") == 0) {
        const json_t *caps = json_object_get(msg, "capabilities"), *cap;
        size_t i;
        bc->move_info = false; /* a server from before it refuses the field */
        json_array_foreach(caps, i, cap)
            bc->move_info |= json_is_string(cap) && strcmp(json_string_value(cap), "move_info") == 0;
        if (bc->registering)
            send_register(bc);
        else if (bc->sessions)
            send_join_or_resume(bc, bc->sessions);
    } else if (strcmp(type, "registered") == 0) {
        on_registered(bc, msg);
    } else if (strcmp(type, "unregistered") == 0) {
        bc->registered = false;
        cl__say(bc, false, "unregistered: no new games; %d still being played", live_sessions(bc));
        if (live_sessions(bc) == 0)
            finish(bc, BOTCLIENT_OVER);
    } else if (strcmp(type, "registration_taken") == 0) {
        cl__say(bc, true, "another connection registered as %s", bc->cfg.register_name);
        finish(bc, BOTCLIENT_FAIL);
    } else if (strcmp(type, "joined") == 0 || strcmp(type, "resumed") == 0) {
        session *s = seat_session(bc, msg);
        if (s)
            on_seat(s, msg, type[0] == 'r');
    } else if (strcmp(type, "error") == 0) {
        on_error(bc, msg);
    } else if (strcmp(type, "your_turn") == 0) {
        /* names its seat: one session */
        session *s =
            bc->registering ? find_session(bc, match, (int)int_of(msg, "seat", -1)) : bc->sessions;
        if (s && !s->over)
            on_your_turn(s, msg, at);
    } else if (!bc->registering) {
        table_message(bc->sessions, type, msg);
    } else {
        /* to the table, once per connection: every seat we hold in the match */
        for (session *s = bc->sessions; s; s = s->next)
            if (s->match[0] && strcmp(s->match, match) == 0)
                table_message(s, type, msg);
    }
}

/* ---- link and loop events --------------------------------------------------------- */

static void on_opened(void *ud)
{
    botclient *bc = ud;
    bc->following = 0; /* the owner's address answers */
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
        cl__say(bc, true, "ignoring a message that is not a JSON object with a type");
        json_decref(msg);
        return;
    }
    handle(bc, msg, bot_now_ms()); /* the players' clock */
    json_decref(msg);
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
    bc->registered = false;
    for (session *s = bc->sessions; s; s = s->next)
        s->reattached = false;
    if (bc->following == 1) { /* the old connection closed: now to the owner's */
        bc->following = 2;
    } else if (bc->following == 2) { /* the owner's address does not answer us: back, and stay */
        char err[160];
        cl_link_set_url(bc->link, bc->cfg.url, err, sizeof err);
        bc->following = 0;
        bc->follows = BOTCLIENT_MAX_FOLLOWS;
        cl__say(bc, true, "%s at the match's server; playing through %s again", why, bc->cfg.url);
    }
    uv_timer_stop(&bc->reattach);
    uint64_t now = now_ms();
    if (!bc->lost_at)
        bc->lost_at = now;
    uint64_t deadline = bc->lost_at + (uint64_t)bc->cfg.give_up_ms;
    if (now >= deadline) {
        cl__say(bc, true, "%s; giving up after %.1f s without a connection", why,
                (double)(now - bc->lost_at) / 1000.0);
        finish(bc, BOTCLIENT_FAIL);
        return;
    }
    int64_t delay = bc->backoff_ms;
    bc->backoff_ms = bc->backoff_ms * 2 > BOTCLIENT_BACKOFF_MAX_MS ? BOTCLIENT_BACKOFF_MAX_MS
                                                                   : bc->backoff_ms * 2;
    if (now + (uint64_t)delay > deadline)
        delay = (int64_t)(deadline - now); /* one last try at the deadline */
    cl__say(bc, false, "%s; reconnecting in %lld ms", why, (long long)delay);
    uv_timer_start(&bc->retry, on_retry, (uint64_t)delay, 0);
}

static void on_wake(uv_async_t *a)
{
    botclient *bc = a->data;
    for (session *s = bc->sessions; s; s = s->next)
        drain_worker(s);
    /* sessions whose player has gone: freed (once the client is not ending,
     * which frees them all at the end) */
    if (!bc->done) {
        for (session **pp = &bc->sessions; *pp;) {
            session *s = *pp;
            if (s->over && (!s->wk || cl_worker_finished(s->wk))) {
                drain_worker(s);
                *pp = s->next;
                free_session(s);
            } else {
                pp = &s->next;
            }
        }
    }
    maybe_close(bc);
}

static void on_signal(uv_signal_t *h, int signum)
{
    botclient *bc = h->data;
    if (bc->done)
        return;
    if (bc->draining || live_sessions(bc) == 0) {
        cl__say(bc, false, "%s: stopping now", strsignal(signum));
        finish(bc, live_sessions(bc) ? BOTCLIENT_FAIL : BOTCLIENT_OVER);
        return;
    }
    bc->draining = true;
    cl__say(bc, false, "%s: no new games; finishing the %d being played (again to stop at once)",
            strsignal(signum), live_sessions(bc));
    if (bc->registered)
        send_msg(bc, json_pack("{s:s, s:s}", "type", "unregister", "id", "unregister"));
}

/* ---- public ----------------------------------------------------------------------- */

void botclient_config_default(botclient_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->seat = -1;
    cfg->capacity = 1;
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
        fprintf(stderr, "%s: error: out of memory\n",
                cfg->log_name ? cfg->log_name : "tessera bot");
        return BOTCLIENT_FAIL;
    }
    bc->cfg = *cfg;
    bc->logname = cfg->log_name ? cfg->log_name : "tessera bot";
    bc->registering = cfg->register_name != NULL;
    if (bc->cfg.capacity < 1)
        bc->cfg.capacity = 1;
    bc->backoff_ms = BOTCLIENT_BACKOFF_MIN_MS;
    eng_rng_seed_stream(&bc->rng, cfg->seed, 0xc11e47);
    if (!bc->registering) {
        session *s = new_session(bc, cfg->match, cfg->match && cfg->seat >= 0 ? cfg->seat : -1);
        if (!s) {
            cl__say(bc, true, "out of memory");
            free(bc);
            return BOTCLIENT_FAIL;
        }
        if (cfg->resume_token)
            snprintf(s->resume, sizeof s->resume, "%s", cfg->resume_token);
    }
    int rc = uv_loop_init(&bc->loop);
    if (rc) {
        cl__say(bc, true, "cannot start an event loop: %s", uv_strerror(rc));
        free(bc->sessions);
        free(bc);
        return BOTCLIENT_FAIL;
    }
    char err[256];
    static const cl_link_events ev = {on_opened, on_text, on_closed};
    bool bad_url = cl_url_check(cfg->url, err, sizeof err) != 0;
    bc->link = bad_url ? NULL : cl_link_create(&bc->loop, cfg->url, &ev, bc, err, sizeof err);
    if (!bc->link) {
        cl__say(bc, true, "%s", err);
        uv_loop_close(&bc->loop);
        free(bc->sessions);
        free(bc);
        return bad_url ? BOTCLIENT_BADARG : BOTCLIENT_FAIL;
    }
    uv_timer_init(&bc->loop, &bc->retry);
    uv_timer_init(&bc->loop, &bc->reattach);
    uv_async_init(&bc->loop, &bc->wake, on_wake);
    uv_signal_init(&bc->loop, &bc->sigint);
    uv_signal_init(&bc->loop, &bc->sigterm);
    bc->retry.data = bc->reattach.data = bc->wake.data = bc->sigint.data = bc->sigterm.data = bc;
    bc->handles = true;
    if (bc->registering) {
        uv_signal_start(&bc->sigint, on_signal, SIGINT);
        uv_signal_start(&bc->sigterm, on_signal, SIGTERM);
    }
    cl_link_connect(bc->link);
    uv_run(&bc->loop, UV_RUN_DEFAULT);
    cl_link_free(bc->link);
    if (uv_loop_close(&bc->loop) != 0)
        cl__say(bc, true, "internal: the event loop still had handles open");

    while (bc->sessions) {
        session *s = bc->sessions;
        bc->sessions = s->next;
        drain_worker(s);
        free_session(s);
    }
    int status = bc->status;
    free(bc);
    return status;
}
