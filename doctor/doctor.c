/*
 * doctor.c — the checks of `tessera doctor` (doctor.h): games played with
 * the player under test in one seat and a uniformly random opponent in
 * the others, every turn of the player checked (verdict, time, stray
 * output), special positions joined with player_resume, and a line of
 * findings per check with a hint a student can act on.
 */
#include "doctor/internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bots/bot.h"

#define MAX_SCENARIOS 16
#define UNKNOWN_TURNS 8 /* own turns of the unknown_fields check */
#define LOW_TURN      3 /* the own turn of low_clock that gets the low clock */

const char *doctor_status_name(doctor_status s)
{
    switch (s) {
    case DOCTOR_PASS: return "pass";
    case DOCTOR_FAIL: return "FAIL";
    case DOCTOR_SKIP: return "skip";
    }
    return "?";
}

void doctor_config_default(doctor_config *c)
{
    memset(c, 0, sizeof *c);
    c->move_ms = DOCTOR_MOVE_MS;
    c->first_move_ms = DOCTOR_FIRST_MOVE_MS;
    c->startup_ms = PLAYER_DEFAULT_STARTUP_MS;
    c->low_ms = DOCTOR_LOW_MS;
    c->seed = 1;
}

/* What to do about a failing verdict. */
static const char *verdict_hint(player_verdict v)
{
    switch (v) {
    case PLAYER_TIME_LIMIT:
        return "answer within your_turn.time_left_ms (counted from when the line is written) and "
               "flush stdout after every move (print(..., flush=True), fflush(stdout), "
               "System.out.flush()); leave a margin for a loaded machine";
    case PLAYER_MEMORY_LIMIT:
        return "the sandbox caps the address space (start.limits.memory_mb): use less memory, or "
               "give a larger limit (--memory-mb)";
    case PLAYER_CRASHED:
        return "the program died: read its stderr above, and run it by hand on the line it was "
               "given";
    case PLAYER_BAD_OUTPUT:
        return "print exactly one JSON object per line on stdout, "
               "{\"type\":\"move\",\"move\":...}; anything else (debugging) goes to stderr";
    case PLAYER_ILLEGAL_MOVE:
        return "answer with an entry of `legal` (Carcassonne: an entry as it is, or with "
               "\"meeple\" set to one of its \"meeples\")";
    case PLAYER_NO_ANSWER:
        return "answer every your_turn, and keep reading stdin until it closes (after game_over "
               "another start may follow)";
    case PLAYER_OUTPUT_FLOOD:
        return "print less: at most 1 MiB on stdout and 16 MiB on stderr in one turn";
    case PLAYER_RESIGNED: return "the bot resigned: resign only a lost game";
    case PLAYER_INTERNAL: return "tessera's own failure, not the bot's: please report it";
    default: return NULL;
    }
}

/* What to do when a particular check fails (before the verdict's hint). */
static const char *check_hint(const char *name)
{
    static const struct {
        const char *name, *hint;
    } hints[] = {
        {"first_move", "start-up (imports, weights) has its own allowance before the game "
                       "(--startup-ms); what is not done by then, and the first your_turn, run on "
                       "the first move's clock: do the slow work before reading the first line"},
        {"new_game", "after game_over a long-running program gets `start` for the next game in "
                     "the same process: reset your game state on every `start`"},
        {"more_players", "a game may have more than two seats: read the seat count from "
                         "start.rules.players and scores/legal by seat, never 1 - seat"},
        {"low_clock", "time_left_ms can be small: scale your thinking to it, and answer at once "
                      "when it is"},
        {"unknown_fields", "ignore fields you do not know: later releases add fields to every "
                           "message"},
        {"resync", "a program may be started mid-game: read start.history (every turn so far) "
                   "and start.state"},
        {"last_move", "the last turn ends the game: game_over follows your move"},
        {"only_move", "a turn may offer a single legal move (Reversi: pass): answer it"},
        {"dead_tile", "an update may say \"by\":\"server\",\"reason\":\"dead tile\": its record "
                      "is a discard (no placement) and the same seat draws again"},
        {"no_meeples", "with no meeple in hand every legal entry has \"meeples\":[]: play the "
                       "placement without a meeple"},
    };
    for (size_t i = 0; i < sizeof hints / sizeof hints[0]; i++)
        if (strcmp(hints[i].name, name) == 0)
            return hints[i].hint;
    return NULL;
}

/* ---- one game with the player --------------------------------------------------------- */

typedef struct run {
    const doctor_config *cfg;
    const eng_game *g;
    player *p;
    unsigned char *st;
    eng_rng rng; /* the opponents and the draws */
    player_result *res;
    int seat;
    int turns; /* record turns completed (a turn ends where chance, the end or another
                * seat comes next) */
    doctor_check *c;
    char hintbuf[512];
    int last_asked;      /* the record turn it was last asked to play in this game (0: none) */
    int prev_last_asked; /* the same in the game before, in this process (0: none) */
} run;

static void set_detail(doctor_check *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void set_detail(doctor_check *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->detail, sizeof c->detail, fmt, ap);
    va_end(ap);
    for (char *s = c->detail; *s; s++)
        if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
            *s = '?';
}

/* The last (up to 4) non-empty lines of a program's stderr, printable. */
static void tail_lines(const player_result *res, char *out, size_t cap)
{
    out[0] = 0;
    const char *t = res->stderr_tail, *end = t + res->stderr_len;
    const char *starts[4];
    size_t lens[4];
    int n = 0;
    while (end > t && n < 4) {
        while (end > t && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' '))
            end--;
        if (end == t)
            break;
        const char *s = end;
        while (s > t && s[-1] != '\n')
            s--;
        starts[n] = s;
        lens[n++] = (size_t)(end - s);
        end = s;
    }
    size_t o = 0;
    for (int i = n - 1; i >= 0 && o + 1 < cap; i--) {
        if (o && o + 4 < cap) {
            memcpy(out + o, " | ", 3);
            o += 3;
        }
        size_t len = lens[i] > 200 ? 200 : lens[i];
        for (size_t j = 0; j < len && o + 1 < cap; j++) {
            unsigned char ch = (unsigned char)starts[i][j];
            out[o++] = ch >= 0x20 && ch < 0x7f ? (char)ch : '?';
        }
    }
    out[o] = 0;
}

/* The check fails at record turn `turn` with verdict v. */
static void fail(run *r, player_verdict v, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void fail(run *r, player_verdict v, const char *fmt, ...)
{
    doctor_check *c = r->c;
    c->status = DOCTOR_FAIL;
    c->verdict = v;
    c->turn = r->turns + 1;
    char text[DOCTOR_DETAIL_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    set_detail(c, "turn %d: %s", c->turn, text);
    tail_lines(r->res, c->stderr_tail, sizeof c->stderr_tail);
    const char *ch = check_hint(c->name), *vh = verdict_hint(v);
    /* not_your_turn naming a turn this program was asked in the game before
     * (a bot that never reset its count names a later one): the line read
     * was left over from that game — a copy of a move, debugging printed on
     * stdout after an answer —, not a state it failed to reset (issue 30:
     * the state hint blamed the wrong thing) */
    const char *other = strstr(r->res->detail, "not_your_turn: the move is for turn ");
    long for_turn = other ? strtol(other + 36, NULL, 10) : 0;
    if (v == PLAYER_BAD_OUTPUT && other && r->prev_last_asked > 0 && for_turn >= 1 &&
        for_turn <= r->prev_last_asked) {
        snprintf(r->hintbuf, sizeof r->hintbuf,
                 "the line read as this answer is for turn %ld of the game before: a line left "
                 "over on stdout from that game (a copy of a move, or debugging printed after "
                 "an answer). Print exactly one line per your_turn and nothing else on stdout: "
                 "debugging goes to stderr or the move's \"debug\"",
                 for_turn);
        c->hint = r->hintbuf;
        return;
    }
    snprintf(r->hintbuf, sizeof r->hintbuf, "%s%s%s", ch ? ch : "", ch && vh ? "; " : "",
             vh ? vh : "");
    c->hint = r->hintbuf[0] ? r->hintbuf : NULL;
}

/* Apply m (anyone's move or a chance outcome), shown to the player first. */
static void step(run *r, eng_move m, const char *reason)
{
    const eng_game *g = r->g;
    int before = g->current_player(r->st);
    player_observe(r->p, r->st, m, reason);
    g->apply(r->st, m);
    if (eng_turn_ends(g, before, r->st))
        r->turns++;
}

/* Move the game on until the player's seat is to move or the game is over:
 * draws sampled, other seats played at random. */
static void advance(run *r)
{
    const eng_game *g = r->g;
    for (;;) {
        int who = g->current_player(r->st);
        if (who == ENG_TERMINAL || who == r->seat)
            return;
        eng_move m = who == ENG_CHANCE ? eng_sample_chance(g, r->st, &r->rng)
                                       : eng_random_move(g, r->st, &r->rng);
        step(r, m, NULL);
    }
}

/* The player's turn with `allowed_ms`. Returns true when it was answered in
 * time with a legal turn (then applied), else the check has failed. */
static bool own_turn(run *r, double allowed_ms, const char *what)
{
    doctor_check *c = r->c;
    double deadline = bot_now_ms() + allowed_ms;
    bool first_in_game = r->last_asked == 0;
    r->last_asked = r->turns + 1;
    player_verdict v = player_turn(r->p, r->st, deadline, NULL, r->res);
    if (v != PLAYER_OK) {
        fail(r, v, "%s%s%s (%s): %s", what ? what : "", what ? ": " : "", player_verdict_name(v),
             player_verdict_short(v), r->res->detail);
        return false;
    }
    if (r->res->wall_ms > allowed_ms) {
        fail(r, PLAYER_TIME_LIMIT, "%s%sanswered after %.0f ms; %.0f ms were allowed",
             what ? what : "", what ? ": " : "", r->res->wall_ms, allowed_ms);
        return false;
    }
    const char *stray = strstr(r->res->note, "printed outside its turn");
    if (stray) {
        fail(r, PLAYER_BAD_OUTPUT, "%s%sstdout is for moves only, and it printed other lines: %s",
             what ? what : "", what ? ": " : "", r->res->note);
        /* frozen between turns (the sandbox), a program prints what it
         * printed after its answer when it is let run again: at the next
         * turn, or the next game's first one */
        bool game_before = r->prev_last_asked > 0 && first_in_game;
        snprintf(r->hintbuf, sizeof r->hintbuf,
                 "a line left over on stdout after an answer%s (a copy of a move, or debugging) "
                 "is read at the next turn and ignored: print exactly one line per your_turn and "
                 "nothing else on stdout; debugging goes to stderr or the move's \"debug\"",
                 game_before ? ", in the game before" : "");
        c->hint = r->hintbuf;
        return false;
    }
    c->moves++;
    if (r->res->wall_ms > c->slowest_ms) {
        c->slowest_ms = r->res->wall_ms;
        c->allowed_ms = allowed_ms;
    }
    for (int i = 0; i < r->res->nmoves; i++)
        step(r, r->res->moves[i], NULL);
    return true;
}

/* End the game for the player: normally when over, else aborted. */
static void end_game(run *r, const char *why)
{
    bool over = r->g->current_player(r->st) == ENG_TERMINAL;
    player_game_over(r->p, r->st, over ? "normal" : "aborted", -1,
                     over ? NULL : (why ? why : "the check is over"), r->res);
}

/* After a failed turn: game_over as a server would send it. */
static void end_failed(run *r)
{
    player_verdict v = r->c->verdict;
    const char *reason = v == PLAYER_ILLEGAL_MOVE || v == PLAYER_BAD_OUTPUT ? "illegal"
                         : v == PLAYER_RESIGNED                             ? "resignation"
                                                                            : "timeout";
    player_game_over(r->p, r->st, reason, r->seat, r->c->detail, r->res);
}

/* Play own turns (allowance move_ms; the game's first own turn first_ms
 * when > 0, turn number `low_at` low_ms when > 0) until the game is over or
 * max_own turns were played (0: no cap). Returns true when all passed. */
static bool play(run *r, int max_own, double first_ms, int low_at, double low_ms)
{
    int own = 0;
    for (;;) {
        advance(r);
        if (r->g->current_player(r->st) == ENG_TERMINAL || (max_own > 0 && own >= max_own))
            return true;
        own++;
        double allowed = (double)r->cfg->move_ms;
        const char *what = NULL;
        if (own == 1 && first_ms > 0) {
            allowed = first_ms;
            what = "its first move";
        }
        if (own == low_at) {
            allowed = low_ms;
            what = "with the low clock";
        }
        if (!own_turn(r, allowed, what))
            return false;
    }
}

static int run_init(run *r, const doctor_config *cfg, const eng_game *g, doctor_check *c,
                    player_result *res, uint64_t stream)
{
    memset(r, 0, sizeof *r);
    r->cfg = cfg;
    r->g = g;
    r->c = c;
    r->res = res;
    r->st = malloc(g->state_size);
    eng_rng_seed_stream(&r->rng, cfg->seed, stream);
    return r->st ? 0 : ENG_ENOMEM;
}

static void run_close(run *r)
{
    player_destroy(r->p);
    r->p = NULL;
    free(r->st);
    r->st = NULL;
}

/* The player under test, for game g; extra: unknown fields for every
 * message (NULL: none). NULL with the reason in err. */
static player *make_player(const doctor_config *cfg, const eng_game *g, const json_t *extra,
                           char *err, size_t errcap)
{
    player_config pc;
    player_config_default(&pc);
    pc.seed = cfg->seed;
    pc.limits = cfg->limits;
    pc.extra_fields = extra;
    pc.startup_ms = cfg->startup_ms;
    json_t *tc = json_pack("{s:I, s:I}", "move_ms", (json_int_t)cfg->move_ms, "first_move_ms",
                           (json_int_t)cfg->first_move_ms);
    pc.time_control = tc;
    player *p = player_create(cfg->spec, g, &pc, err, errcap);
    json_decref(tc);
    return p;
}

/* A new game of `rules` in `seat` for r->p. */
static void new_game(run *r, const eng_rules *rules, int seat, const char *match)
{
    eng_init(r->g, r->st, rules, NULL, 0);
    r->seat = seat;
    r->turns = 0;
    r->prev_last_asked = r->last_asked;
    r->last_asked = 0;
    player_new_game(r->p, r->st, seat, match);
}

/* ---- the checks -------------------------------------------------------------------- */

typedef struct checker {
    const doctor_config *cfg;
    doctor_summary *sum;
    player_result *res;
} checker;

/* Was check `name` asked for? */
static bool wanted(const doctor_config *cfg, const char *name)
{
    if (cfg->nchecks == 0)
        return true;
    for (int i = 0; i < cfg->nchecks; i++)
        if (strcmp(cfg->checks[i], name) == 0)
            return true;
    return false;
}

static void emit(checker *k, doctor_check *c)
{
    if (!wanted(k->cfg, c->name))
        return;
    if (c->status == DOCTOR_PASS)
        k->sum->passed++;
    else if (c->status == DOCTOR_FAIL)
        k->sum->failed++;
    else
        k->sum->skipped++;
    if (k->cfg->on_check)
        k->cfg->on_check(c, k->cfg->ud);
}

static void check_init(doctor_check *c, const eng_game *g, const char *name, const char *about)
{
    memset(c, 0, sizeof *c);
    c->game = g->name;
    c->name = name;
    c->about = about;
    c->status = DOCTOR_PASS;
    c->verdict = PLAYER_OK;
}

static void skip(checker *k, doctor_check *c, const char *why)
{
    c->status = DOCTOR_SKIP;
    set_detail(c, "%s", why);
    emit(k, c);
}

/* "N moves, all legal and in time; slowest X ms of Y" */
static void passed(doctor_check *c, const char *what)
{
    set_detail(c, "%s%s%d move%s, all legal and in time; the slowest took %.0f ms of %.0f",
               what ? what : "", what ? ": " : "", c->moves, c->moves == 1 ? "" : "s",
               c->slowest_ms, c->allowed_ms);
}

/* first_move, full_game and new_game: one player, two whole games. */
static void check_games(checker *k, const eng_game *g)
{
    const doctor_config *cfg = k->cfg;
    if (!wanted(cfg, "first_move") && !wanted(cfg, "full_game") && !wanted(cfg, "new_game"))
        return;
    doctor_check c;
    run r;
    char err[PLAYER_DETAIL_MAX];
    check_init(&c, g, "first_move", "start-up, then the first move of a game");
    if (run_init(&r, cfg, g, &c, k->res, 1)) {
        skip(k, &c, "out of memory");
        return;
    }
    r.p = make_player(cfg, g, NULL, err, sizeof err);
    if (!r.p) {
        fail(&r, PLAYER_INTERNAL, "cannot make the player: %s", err);
        emit(k, &c);
        run_close(&r);
        return;
    }
    eng_rules rules;
    eng_rules_default(g, &rules);
    new_game(&r, &rules, 0, "doctor-1");
    bool ok = play(&r, 1, (double)cfg->first_move_ms, 0, 0);
    if (ok) {
        player_info pi;
        player_get_info(r.p, &pi);
        char up[200] = "";
        if (pi.startup_ms >= 0)
            snprintf(up, sizeof up, "; its start-up took %.0f ms (CPU %.0f ms; allowance %lld ms%s)",
                     pi.startup_ms, pi.startup_cpu_ms, (long long)cfg->startup_ms,
                     pi.startup_over ? ": not finished by then, the rest ran on the first move"
                                     : "");
        set_detail(&c, "answered in %.0f ms (allowed %lld ms), seat 0%s", c.slowest_ms,
                   (long long)cfg->first_move_ms, up);
    }
    emit(k, &c);

    doctor_check full;
    check_init(&full, g, "full_game", "a whole game, every move legal and in time");
    if (!ok) {
        end_failed(&r);
        skip(k, &full, "not played: the first move failed");
    } else {
        r.c = &full;
        full.moves = 1; /* the first move was one of this game's */
        full.slowest_ms = c.slowest_ms;
        full.allowed_ms = c.allowed_ms;
        ok = play(&r, 0, 0, 0, 0);
        if (ok) {
            passed(&full, "seat 0");
            end_game(&r, NULL);
        } else {
            end_failed(&r);
        }
        emit(k, &full);
    }

    doctor_check ng;
    check_init(&ng, g, "new_game", "game_over, then a new game in the same process, another seat");
    r.c = &ng;
    player_info before;
    player_get_info(r.p, &before);
    int seat = rules.players - 1;
    new_game(&r, &rules, seat, "doctor-2");
    ok = play(&r, 0, (double)cfg->first_move_ms, 0, 0);
    if (ok) {
        player_info after;
        player_get_info(r.p, &after);
        char what[160];
        if (player_get_kind(r.p) == PLAYER_PROGRAM && after.starts > before.starts &&
            strncmp(cfg->spec, "cmd-stateless:", 14) != 0)
            snprintf(what, sizeof what,
                     "seat %d (note: the program had ended after game_over and was started "
                     "again: that costs its start-up time)",
                     seat);
        else
            snprintf(what, sizeof what, "seat %d", seat);
        passed(&ng, what);
        end_game(&r, NULL);
    } else {
        end_failed(&r);
    }
    emit(k, &ng);
    run_close(&r);
}

/* more_players: the most seats the game allows, the last seat. */
static void check_more_players(checker *k, const eng_game *g)
{
    eng_rules rules;
    eng_rules_default(g, &rules);
    if (g->max_players <= rules.players || !wanted(k->cfg, "more_players"))
        return;
    const doctor_config *cfg = k->cfg;
    doctor_check c;
    run r;
    char err[PLAYER_DETAIL_MAX];
    check_init(&c, g, "more_players", "a game with the most seats the game allows, last seat");
    if (run_init(&r, cfg, g, &c, k->res, 2)) {
        skip(k, &c, "out of memory");
        return;
    }
    rules.players = g->max_players;
    r.p = make_player(cfg, g, NULL, err, sizeof err);
    if (!r.p) {
        fail(&r, PLAYER_INTERNAL, "cannot make the player: %s", err);
    } else {
        new_game(&r, &rules, rules.players - 1, "doctor-3");
        if (play(&r, 0, (double)cfg->first_move_ms, 0, 0)) {
            char what[64];
            snprintf(what, sizeof what, "%d players, seat %d", rules.players, rules.players - 1);
            passed(&c, what);
            end_game(&r, NULL);
        } else {
            end_failed(&r);
        }
    }
    emit(k, &c);
    run_close(&r);
}

/* low_clock: the third own turn with low_ms. */
static void check_low_clock(checker *k, const eng_game *g)
{
    const doctor_config *cfg = k->cfg;
    if (!wanted(cfg, "low_clock"))
        return;
    doctor_check c;
    run r;
    char err[PLAYER_DETAIL_MAX];
    check_init(&c, g, "low_clock", "a turn with the clock close to zero");
    if (run_init(&r, cfg, g, &c, k->res, 3)) {
        skip(k, &c, "out of memory");
        return;
    }
    r.p = make_player(cfg, g, NULL, err, sizeof err);
    if (!r.p) {
        fail(&r, PLAYER_INTERNAL, "cannot make the player: %s", err);
    } else {
        eng_rules rules;
        eng_rules_default(g, &rules);
        new_game(&r, &rules, 0, "doctor-4");
        if (play(&r, LOW_TURN, (double)cfg->first_move_ms, LOW_TURN, (double)cfg->low_ms)) {
            if (c.moves < LOW_TURN)
                set_detail(&c, "the game ended before its turn %d", LOW_TURN);
            else
                set_detail(&c, "its turn %d with %lld ms left: answered in time (%d moves)",
                           LOW_TURN, (long long)cfg->low_ms, c.moves);
            end_game(&r, NULL);
        } else {
            end_failed(&r);
        }
    }
    emit(k, &c);
    run_close(&r);
}

/* unknown_fields: every message with fields no bot can know. */
static void check_unknown_fields(checker *k, const eng_game *g)
{
    const doctor_config *cfg = k->cfg;
    if (!wanted(cfg, "unknown_fields"))
        return;
    doctor_check c;
    run r;
    char err[PLAYER_DETAIL_MAX];
    check_init(&c, g, "unknown_fields", "every message carries fields the bot cannot know");
    if (run_init(&r, cfg, g, &c, k->res, 4)) {
        skip(k, &c, "out of memory");
        return;
    }
    json_t *extra =
        json_pack("{s:{s:[i,s,n], s:f}, s:b, s:s}", "x_doctor", "nested", 1, "two", "ratio", 0.5,
                  "zz_future_flag", 1, "zz_note", "fields a bot does not know must be ignored");
    r.p = make_player(cfg, g, extra, err, sizeof err);
    json_decref(extra);
    if (!r.p) {
        fail(&r, PLAYER_INTERNAL, "cannot make the player: %s", err);
    } else {
        eng_rules rules;
        eng_rules_default(g, &rules);
        new_game(&r, &rules, rules.players - 1, "doctor-5");
        if (play(&r, UNKNOWN_TURNS, (double)cfg->first_move_ms, 0, 0)) {
            passed(&c, "fields x_doctor, zz_future_flag, zz_note in every message");
            end_game(&r, NULL);
        } else {
            end_failed(&r);
        }
    }
    emit(k, &c);
    run_close(&r);
}

/* A special position: the player joins it with player_resume (at the last
 * decision before it), sees the chance outcomes after that live, plays its
 * turn and DOCTOR_TURNS_AFTER more. */
static void check_position(checker *k, const eng_game *g, const doctor_scenario *sc, int index)
{
    const doctor_config *cfg = k->cfg;
    if (!wanted(cfg, sc->name))
        return;
    doctor_check c;
    run r;
    doctor_pos pos;
    char err[PLAYER_DETAIL_MAX];
    check_init(&c, g, sc->name, sc->about);
    if (doctor__pos_init(&pos, g) || run_init(&r, cfg, g, &c, k->res, 10 + (uint64_t)index)) {
        doctor__pos_free(&pos);
        skip(k, &c, "out of memory");
        return;
    }
    int rc = sc->find(g, cfg->seed + (uint64_t)index * 7919, &pos);
    if (rc != 0) {
        skip(k, &c, rc > 0 ? pos.what : "out of memory");
        doctor__pos_free(&pos);
        run_close(&r);
        return;
    }
    r.p = make_player(cfg, g, NULL, err, sizeof err);
    if (!r.p) {
        fail(&r, PLAYER_INTERNAL, "cannot make the player: %s", err);
        emit(k, &c);
        doctor__pos_free(&pos);
        run_close(&r);
        return;
    }
    /* join at the last decision: the trailing chance outcomes are seen live */
    eng_init(g, r.st, &pos.rules, NULL, 0);
    int join = pos.n;
    {
        unsigned char *t = malloc(g->state_size);
        if (t) {
            while (join > 0) {
                eng_init(g, t, &pos.rules, NULL, 0);
                for (int i = 0; i < join - 1; i++)
                    g->apply(t, pos.moves[i]);
                if (g->current_player(t) != ENG_CHANCE)
                    break;
                join--;
            }
            free(t);
        }
    }
    r.seat = pos.seat;
    int turns = 0;
    for (int i = 0; i < join; i++) {
        int before = g->current_player(r.st);
        g->apply(r.st, pos.moves[i]);
        turns += eng_turn_ends(g, before, r.st);
    }
    r.turns = turns;
    unsigned char *initial = malloc(g->state_size);
    if (!initial) {
        skip(k, &c, "out of memory");
        doctor__pos_free(&pos);
        run_close(&r);
        return;
    }
    eng_init(g, initial, &pos.rules, NULL, 0);
    rc = player_resume(r.p, initial, pos.moves, join, pos.seat, "doctor-6");
    free(initial);
    if (rc) {
        fail(&r, PLAYER_INTERNAL, "cannot join the position: %s", eng_err_message(rc));
    } else {
        for (int i = join; i < pos.n; i++)
            step(&r, pos.moves[i], NULL);
        double allowed = (double)cfg->move_ms;
        if (own_turn(&r, allowed, "at the position") && play(&r, DOCTOR_TURNS_AFTER, 0, 0, 0)) {
            passed(&c, pos.what);
            end_game(&r, NULL);
        } else {
            end_failed(&r);
        }
    }
    emit(k, &c);
    doctor__pos_free(&pos);
    run_close(&r);
}

int doctor_run(const doctor_config *cfg, doctor_summary *sum, char *err, size_t errcap)
{
    memset(sum, 0, sizeof *sum);
    const eng_game *games[64];
    int ng = 0;
    if (cfg->ngames > 0) {
        for (int i = 0; i < cfg->ngames; i++) {
            const eng_game *g = eng_find_game(cfg->games[i]);
            if (!g)
                return eng_seterr(err, errcap, ENG_EUNKNOWN_GAME, "unknown game '%s'",
                                  cfg->games[i]);
            if (!codec_find(g->name))
                return eng_seterr(err, errcap, ENG_EUNKNOWN_GAME,
                                  "%s has no wire codec: bots cannot be checked on it", g->name);
            games[ng++] = g;
        }
    } else {
        int n;
        const eng_game *const *all = eng_games(&n);
        for (int i = 0; i < n && ng < 64; i++)
            if (codec_find(all[i]->name))
                games[ng++] = all[i];
    }
    /* every check named must exist (in some game) */
    for (int i = 0; i < cfg->nchecks; i++) {
        static const char *const fixed[] = {"first_move",   "full_game", "new_game",
                                            "more_players", "low_clock", "unknown_fields"};
        bool known = false;
        for (size_t j = 0; j < sizeof fixed / sizeof fixed[0]; j++)
            known |= strcmp(cfg->checks[i], fixed[j]) == 0;
        for (int j = 0; j < ng && !known; j++) {
            doctor_scenario sc[MAX_SCENARIOS];
            int nsc = doctor__scenarios(games[j], sc, MAX_SCENARIOS);
            for (int m = 0; m < nsc; m++)
                known |= strcmp(cfg->checks[i], sc[m].name) == 0;
        }
        if (!known)
            return eng_seterr(err, errcap, ENG_EINVAL,
                              "unknown check '%s' (checks: first_move, full_game, new_game, "
                              "more_players, low_clock, unknown_fields, resync, last_move, "
                              "only_move, dead_tile, no_meeples)",
                              cfg->checks[i]);
    }
    /* the spec must make a player for at least one of them */
    bool any = false;
    char first[PLAYER_DETAIL_MAX] = "";
    for (int i = 0; i < ng; i++) {
        char e[PLAYER_DETAIL_MAX];
        player *p = player_create(cfg->spec, games[i], NULL, e, sizeof e);
        if (p) {
            sum->program = player_get_kind(p) == PLAYER_PROGRAM;
            player_destroy(p);
            any = true;
            break;
        }
        if (!first[0])
            snprintf(first, sizeof first, "%s", e);
    }
    if (!any)
        return eng_seterr(err, errcap, ENG_EBAD_BOT_SPEC, "%s", first[0] ? first : "no game");
    sum->stateless = strncmp(cfg->spec, "cmd-stateless:", 14) == 0;
    sum->protections = sum->program ? sandbox_probe(&cfg->limits) : 0;

    player_result *res = malloc(sizeof *res);
    if (!res)
        return eng_seterr(err, errcap, ENG_ENOMEM, "out of memory");
    checker k = {cfg, sum, res};
    for (int i = 0; i < ng; i++) {
        const eng_game *g = games[i];
        char e[PLAYER_DETAIL_MAX];
        player *p = player_create(cfg->spec, g, NULL, e, sizeof e);
        if (!p) {
            doctor_check c;
            check_init(&c, g, "plays", "the player can play this game");
            char why[DOCTOR_DETAIL_MAX];
            snprintf(why, sizeof why, "it cannot play %s: %s", g->name, e);
            skip(&k, &c, why);
            continue;
        }
        player_destroy(p);
        check_games(&k, g);
        check_more_players(&k, g);
        check_low_clock(&k, g);
        check_unknown_fields(&k, g);
        doctor_scenario sc[MAX_SCENARIOS];
        int nsc = doctor__scenarios(g, sc, MAX_SCENARIOS);
        for (int j = 0; j < nsc; j++)
            check_position(&k, g, &sc[j], j);
    }
    free(res);
    return 0;
}
