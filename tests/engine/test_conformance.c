/*
 * test_conformance.c — the contracts of engine/eng.h, checked generically
 * over every registered game and every allowed player count.
 *
 * Nothing here knows which games exist: the suite walks eng_games(), reads
 * each game's declared maxima and options, and plays seeded random games
 * checking at every step what the interface promises (in the spirit of
 * OpenSpiel's basic tests):
 *   - random games end within max_plies;
 *   - a decision has 1..max_moves distinct, non-negative moves, each
 *     accepted by eng_is_legal(), and no chance outcomes; a chance node has
 *     1..max_chance distinct outcomes with positive probabilities summing to
 *     1, and no moves; the current player is a seat, ENG_CHANCE or
 *     ENG_TERMINAL; nothing is written past the declared maxima;
 *   - queries (legal moves, outcomes, scores, evaluate, text, render) leave
 *     the state's bytes alone, and give the same answer twice;
 *   - states are pointer-free: a memcpy'd copy fed the same moves stays
 *     byte-identical, and a copy keeps working after the original's memory
 *     is scribbled over and freed;
 *   - determinism: the same seed gives the same moves and the same final
 *     bytes (even when the buffers held different garbage before init), and
 *     eng_playout() with that seed (the game's playout fast path when it
 *     has one) reaches the same final state, byte for byte, from the start
 *     and from a state taken mid-game (inside a turn, where MCTS starts its
 *     playouts) as the generic loop of sample_chance / random_move does;
 *   - the text of every legal move and chance outcome parses back to it;
 *     garbage is rejected with ENG_EBAD_MOVE / ENG_EILLEGAL_MOVE; too small
 *     a buffer never overflows;
 *   - render() returns the full length, and with caps 0, 1, 10, ... leaves
 *     a NUL-terminated prefix and never touches a guard byte;
 *   - scores, evaluate and the named evaluations are finite for every seat;
 *     grid cells (where the game has a grid) are a seat, empty or off the
 *     board; at the end returns are in [0,1], sum to 1, and split evenly
 *     among the winners;
 *   - eng_state_rules() of every state equals the rules it was created with;
 *   - turns: cut at eng_turn_ends(), a game's turns hold at most
 *     turn_decisions decisions of one seat and ENG_MAX_TURN_MOVES moves in
 *     all; eng_turn_check() takes each turn's decisions whole and refuses
 *     them cut short, with one too many, or with an illegal one;
 *     eng_random_turn() plays a turn eng_turn_check() takes; eng_turn_seat()
 *     is the turn's seat at its decisions;
 *   - eng_sample_chance() and eng_random_move() (the game's fast paths and
 *     the generic ones in eng.c) follow the stated distributions;
 *   - rule parsing: unknown rules, malformed "k=v", out-of-range values and
 *     bad seat counts fail with the right code and a message; booleans take
 *     true/false/1/0; the error table round-trips.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine/eng.h"

#define GUARD 16          /* guard entries/bytes past every buffer we hand out */
#define GUARD_BYTE 0x5a   /* what guard bytes hold */
#define SENTINEL_MOVE ((eng_move)0x7eadbeef)
#define RENDER_CAP (1u << 20)

/* ---- context and failure reports ----------------------------------------- */

typedef struct ctx {
    const eng_game *g;
    eng_rules rules;    /* what the states are created with */
    char label[160];    /* "carcassonne players=3 farms=0", for messages */
    uint64_t seed;      /* game being played */
    int ply;            /* plies applied so far */
    int render_every;   /* check render() every this many plies */
    int buf_n;          /* entries in the move buffers, guard excluded */
    eng_move *mv, *mv2, *co, *co2, *sorted; /* buf_n + GUARD entries each */
    double *prob, *prob2;                   /* buf_n + GUARD entries each */
    unsigned char *before;                  /* state_size bytes */
    char *big;                              /* RENDER_CAP bytes */
    char *small;                            /* RENDER_CAP + GUARD bytes */
} ctx;

static void report(const ctx *c, const char *what)
{
    print_error("%s seed %llu ply %d: check failed: %s\n", c->label, (unsigned long long)c->seed,
                c->ply, what);
}

/* Fail with the game, seed and ply, then the message. */
#define CHECK(c, cond, ...)                                                                        \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            report((c), #cond);                                                                    \
            fail_msg(__VA_ARGS__);                                                                 \
        }                                                                                          \
    } while (0)

static void ctx_open(ctx *c, const eng_game *g, const eng_rules *rules)
{
    memset(c, 0, sizeof *c);
    c->g = g;
    c->rules = *rules;
    int n = snprintf(c->label, sizeof c->label, "%s players=%d", g->name, (int)rules->players);
    for (int i = 0; i < g->n_options && n > 0 && (size_t)n < sizeof c->label; i++)
        if (rules->opt[i] != g->options[i].def)
            n += snprintf(c->label + n, sizeof c->label - (size_t)n, " %s=%d", g->options[i].name,
                          (int)rules->opt[i]);
    c->render_every = 1;
    c->buf_n = g->max_moves > g->max_chance ? g->max_moves : g->max_chance;
    size_t entries = (size_t)c->buf_n + GUARD;
    c->mv = malloc(entries * sizeof *c->mv);
    c->mv2 = malloc(entries * sizeof *c->mv2);
    c->co = malloc(entries * sizeof *c->co);
    c->co2 = malloc(entries * sizeof *c->co2);
    c->sorted = malloc(entries * sizeof *c->sorted);
    c->prob = malloc(entries * sizeof *c->prob);
    c->prob2 = malloc(entries * sizeof *c->prob2);
    c->before = malloc(g->state_size);
    c->big = malloc(RENDER_CAP);
    c->small = malloc(RENDER_CAP + GUARD);
    assert_true(c->mv && c->mv2 && c->co && c->co2 && c->sorted && c->prob && c->prob2 &&
                c->before && c->big && c->small);
}

static void ctx_close(ctx *c)
{
    free(c->mv);
    free(c->mv2);
    free(c->co);
    free(c->co2);
    free(c->sorted);
    free(c->prob);
    free(c->prob2);
    free(c->before);
    free(c->big);
    free(c->small);
}

static int cmp_move(const void *a, const void *b)
{
    eng_move x = *(const eng_move *)a, y = *(const eng_move *)b;
    return (x > y) - (x < y);
}

static void fill_moves(eng_move *buf, int n)
{
    for (int i = 0; i < n; i++)
        buf[i] = SENTINEL_MOVE;
}

/* Entries [from, buf_n + GUARD) still hold the sentinel? Only the declared
 * maximum may be written, so check from max(n, declared max). */
static bool moves_guard_ok(const ctx *c, const eng_move *buf, int from)
{
    for (int i = from; i < c->buf_n + GUARD; i++)
        if (buf[i] != SENTINEL_MOVE)
            return false;
    return true;
}

/* n moves: non-negative and pairwise distinct. */
static void check_distinct(ctx *c, const eng_move *m, int n, const char *what)
{
    memcpy(c->sorted, m, (size_t)n * sizeof *m);
    qsort(c->sorted, (size_t)n, sizeof *c->sorted, cmp_move);
    for (int i = 0; i < n; i++) {
        CHECK(c, c->sorted[i] >= 0, "%s: negative move %d", what, (int)c->sorted[i]);
        CHECK(c, i == 0 || c->sorted[i] != c->sorted[i - 1], "%s: move %d listed twice", what,
              (int)c->sorted[i]);
    }
}

/* ---- text of moves --------------------------------------------------------- */

static char long_z[4096], long_9[4096], long_num[4096];

static void init_garbage(void)
{
    memset(long_z, 'z', sizeof long_z - 1);
    memset(long_9, '9', sizeof long_9 - 1);
    for (size_t i = 0; i + 2 < sizeof long_num; i += 2) {
        long_num[i] = '1';
        long_num[i + 1] = ' ';
    }
}

/* m's text parses back to m; small buffers never overflow. */
static void check_round_trip(ctx *c, const void *st, eng_move m, bool small_buffers)
{
    const eng_game *g = c->g;
    char txt[ENG_MOVE_STR_MAX + GUARD];
    memset(txt, GUARD_BYTE, sizeof txt);
    int len = g->move_to_str(st, m, txt, ENG_MOVE_STR_MAX);
    CHECK(c, len > 0 && len < ENG_MOVE_STR_MAX, "move_to_str(%d) returned %d", (int)m, len);
    CHECK(c, strlen(txt) == (size_t)len, "move_to_str(%d): length %d but text '%s'", (int)m, len,
          txt);
    for (int i = ENG_MOVE_STR_MAX; i < ENG_MOVE_STR_MAX + GUARD; i++)
        CHECK(c, (unsigned char)txt[i] == GUARD_BYTE, "move_to_str wrote past cap");
    eng_move back = SENTINEL_MOVE;
    int rc = g->move_from_str(st, txt, &back);
    CHECK(c, rc == 0 && back == m, "'%s' (move %d) parses to rc %d move %d", txt, (int)m, rc,
          (int)back);
    if (!small_buffers)
        return;
    /* caps 0, 1 and one short of the text: an error or a shorter string,
     * NUL-terminated inside the cap, never a byte past it */
    size_t caps[3] = {0, 1, (size_t)len};
    for (int k = 0; k < 3; k++) {
        char buf[ENG_MOVE_STR_MAX + GUARD];
        memset(buf, GUARD_BYTE, sizeof buf);
        int r = g->move_to_str(st, m, buf, caps[k]);
        CHECK(c, r < 0 || (size_t)r < caps[k], "move_to_str(cap %zu) returned %d", caps[k], r);
        if (r >= 0)
            CHECK(c, strlen(buf) == (size_t)r, "move_to_str(cap %zu) text and length differ",
                  caps[k]);
        for (size_t i = caps[k]; i < caps[k] + GUARD; i++)
            CHECK(c, (unsigned char)buf[i] == GUARD_BYTE, "move_to_str(cap %zu) wrote byte %zu",
                  caps[k], i);
    }
}

static void check_garbage_rejected(ctx *c, const void *st)
{
    const char *garbage[] = {"", "zzz", long_z, long_9, long_num};
    for (size_t i = 0; i < sizeof garbage / sizeof garbage[0]; i++) {
        eng_move m = SENTINEL_MOVE;
        int rc = c->g->move_from_str(st, garbage[i], &m);
        CHECK(c, rc == ENG_EBAD_MOVE || rc == ENG_EILLEGAL_MOVE,
              "move_from_str(\"%.20s\"%s) returned %d (move %d)", garbage[i],
              strlen(garbage[i]) > 20 ? "..." : "", rc, (int)m);
    }
}

/* ---- render ------------------------------------------------------------------ */

static void check_render(ctx *c, const void *st)
{
    const eng_game *g = c->g;
    int full = g->render(st, c->big, RENDER_CAP);
    CHECK(c, full > 0 && (size_t)full < RENDER_CAP, "render returned %d", full);
    CHECK(c, strlen(c->big) == (size_t)full, "render returned %d but wrote %zu bytes", full,
          strlen(c->big));
    size_t caps[] = {0, 1, 10, (size_t)full / 2, (size_t)full, (size_t)full + 1};
    for (size_t k = 0; k < sizeof caps / sizeof caps[0]; k++) {
        size_t cap = caps[k];
        memset(c->small, GUARD_BYTE, cap + GUARD);
        int r = g->render(st, c->small, cap);
        CHECK(c, r == full, "render(cap %zu) returned %d, full length %d", cap, r, full);
        for (size_t i = cap; i < cap + GUARD; i++)
            CHECK(c, (unsigned char)c->small[i] == GUARD_BYTE, "render(cap %zu) wrote byte %zu",
                  cap, i);
        if (cap == 0)
            continue;
        CHECK(c, memchr(c->small, 0, cap) != NULL, "render(cap %zu) left no NUL", cap);
        size_t len = strlen(c->small);
        CHECK(c, strncmp(c->small, c->big, len) == 0, "render(cap %zu) is not a prefix", cap);
        if (cap > (size_t)full)
            CHECK(c, strcmp(c->small, c->big) == 0, "render(cap %zu) is not the whole text", cap);
    }
}

/* ---- one position ------------------------------------------------------------- */

static void check_values(ctx *c, const void *st, bool terminal)
{
    const eng_game *g = c->g;
    int np = c->rules.players;
    double v[ENG_MAX_PLAYERS];
    for (int p = 0; p < ENG_MAX_PLAYERS; p++)
        v[p] = NAN;
    g->scores(st, v);
    for (int p = 0; p < np; p++)
        CHECK(c, isfinite(v[p]), "scores[%d] = %g", p, v[p]);
    for (int p = 0; p < np; p++) {
        double e = g->evaluate(st, p);
        CHECK(c, isfinite(e), "evaluate(%d) = %g", p, e);
        for (int k = 0; g->eval_names && g->evaluate_named && g->eval_names[k]; k++) {
            e = g->evaluate_named(st, p, k);
            CHECK(c, isfinite(e), "evaluate_named(%d, %s) = %g", p, g->eval_names[k], e);
        }
    }
    /* the optional grid: each cell a seat, empty, or off this state's board */
    for (int y = -1; g->grid_cell && y <= g->grid_h; y++)
        for (int x = -1; x <= g->grid_w; x++) {
            int cell = g->grid_cell(st, x, y);
            bool inside = x >= 0 && y >= 0 && x < g->grid_w && y < g->grid_h;
            CHECK(c,
                  cell == ENG_GRID_OFF ||
                      (inside && (cell == ENG_GRID_EMPTY || (cell >= 0 && cell < np))),
                  "grid_cell(%d, %d) = %d", x, y, cell);
        }
    if (!terminal)
        return;
    for (int p = 0; p < ENG_MAX_PLAYERS; p++)
        v[p] = NAN;
    g->returns(st, v);
    double sum = 0, best = 0;
    int winners = 0;
    for (int p = 0; p < np; p++) {
        CHECK(c, isfinite(v[p]) && v[p] >= 0 && v[p] <= 1, "returns[%d] = %g", p, v[p]);
        sum += v[p];
        if (v[p] > 0) {
            winners++;
            best = v[p];
        }
    }
    CHECK(c, fabs(sum - 1.0) <= 1e-9, "returns sum to %.17g", sum);
    /* a sole winner gets 1, k tied winners 1/k each, everybody else 0 */
    for (int p = 0; p < np; p++)
        CHECK(c, v[p] == 0 || fabs(v[p] - 1.0 / winners) <= 1e-12,
              "returns[%d] = %g with %d winners (%g)", p, v[p], winners, best);
}

/* Everything checkable about one state; returns its current player. */
static int check_position(ctx *c, const void *st, bool deep)
{
    const eng_game *g = c->g;
    const int np = c->rules.players;
    memcpy(c->before, st, g->state_size);

    int p = g->current_player(st);
    CHECK(c, p == ENG_CHANCE || p == ENG_TERMINAL || (p >= 0 && p < np), "current_player %d", p);
    CHECK(c, g->current_player(st) == p, "current_player changed between calls");
    CHECK(c, memcmp(eng_state_rules(st), &c->rules, sizeof c->rules) == 0,
          "eng_state_rules() differs from the rules given");
    CHECK(c, eng_num_players(st) == np, "eng_num_players %d", eng_num_players(st));

    fill_moves(c->mv, c->buf_n + GUARD);
    fill_moves(c->co, c->buf_n + GUARD);
    int n = g->legal_moves(st, c->mv);
    int k = g->chance_outcomes(st, c->co, c->prob);
    CHECK(c, moves_guard_ok(c, c->mv, n > g->max_moves ? n : g->max_moves),
          "legal_moves wrote past max_moves (%d)", g->max_moves);
    CHECK(c, moves_guard_ok(c, c->co, k > g->max_chance ? k : g->max_chance),
          "chance_outcomes wrote past max_chance (%d)", g->max_chance);

    if (p == ENG_TERMINAL) {
        CHECK(c, n == 0 && k == 0, "terminal state with %d moves, %d outcomes", n, k);
    } else if (p == ENG_CHANCE) {
        CHECK(c, n == 0, "chance node with %d legal moves", n);
        CHECK(c, k >= 1 && k <= g->max_chance, "%d chance outcomes, max_chance %d", k,
              g->max_chance);
        check_distinct(c, c->co, k, "chance_outcomes");
        double sum = 0;
        for (int i = 0; i < k; i++) {
            CHECK(c, isfinite(c->prob[i]) && c->prob[i] > 0 && c->prob[i] <= 1,
                  "outcome %d has probability %g", (int)c->co[i], c->prob[i]);
            sum += c->prob[i];
        }
        CHECK(c, fabs(sum - 1.0) <= 1e-9, "chance probabilities sum to %.17g", sum);
        int k2 = g->chance_outcomes(st, c->co2, c->prob2);
        CHECK(c, k2 == k && memcmp(c->co, c->co2, (size_t)k * sizeof *c->co) == 0 &&
                     memcmp(c->prob, c->prob2, (size_t)k * sizeof *c->prob) == 0,
              "chance_outcomes differ between two calls");
        for (int i = 0; i < k; i++) {
            CHECK(c, eng_is_legal(g, st, c->co[i]), "eng_is_legal rejects outcome %d",
                  (int)c->co[i]);
            check_round_trip(c, st, c->co[i], deep && i == 0);
        }
    } else {
        CHECK(c, k == 0, "decision with %d chance outcomes", k);
        CHECK(c, n >= 1 && n <= g->max_moves, "%d legal moves, max_moves %d", n, g->max_moves);
        check_distinct(c, c->mv, n, "legal_moves");
        int n2 = g->legal_moves(st, c->mv2);
        CHECK(c, n2 == n && memcmp(c->mv, c->mv2, (size_t)n * sizeof *c->mv) == 0,
              "legal_moves differ between two calls (order must be deterministic)");
        for (int i = 0; i < n; i++) {
            CHECK(c, eng_is_legal(g, st, c->mv[i]), "eng_is_legal rejects move %d", (int)c->mv[i]);
            check_round_trip(c, st, c->mv[i], deep && i == 0);
        }
    }
    /* moves that are not listed are not legal */
    const eng_move *list = p == ENG_CHANCE ? c->co : c->mv;
    int len = p == ENG_CHANCE ? k : n;
    eng_move top = -1;
    for (int i = 0; i < len; i++)
        if (list[i] > top)
            top = list[i];
    CHECK(c, !eng_is_legal(g, st, -1), "eng_is_legal(-1)");
    CHECK(c, !eng_is_legal(g, st, top + 1), "eng_is_legal(%d) for an unlisted move", (int)top + 1);
    CHECK(c, !eng_is_legal(g, st, INT32_MAX), "eng_is_legal(INT32_MAX)");

    check_values(c, st, p == ENG_TERMINAL);
    check_garbage_rejected(c, st);
    if (deep)
        check_render(c, st);
    CHECK(c, memcmp(c->before, st, g->state_size) == 0, "a query modified the state");
    return p;
}

/* ---- whole games ---------------------------------------------------------------- */

typedef struct game_run {
    eng_move *moves;      /* max_plies entries */
    int n;                /* plies played */
    unsigned char *final; /* state_size bytes */
} game_run;

static void run_alloc(const eng_game *g, game_run *r)
{
    r->moves = malloc((size_t)g->max_plies * sizeof *r->moves);
    r->final = malloc(g->state_size);
    r->n = 0;
    assert_true(r->moves && r->final);
}

static void run_free(game_run *r)
{
    free(r->moves);
    free(r->final);
}

static void *new_state(ctx *c, unsigned char fill)
{
    void *st = malloc(c->g->state_size);
    assert_non_null(st);
    memset(st, fill, c->g->state_size); /* garbage the game must overwrite */
    char err[256] = "";
    int rc = eng_init(c->g, st, &c->rules, err, sizeof err);
    CHECK(c, rc == 0, "eng_init: %d %s", rc, err);
    return st;
}

/* Play one seeded random game, checking every position. The buffers start
 * filled with `fill`. Moves come from eng_sample_chance / eng_random_move on
 * one generator, exactly as eng_playout() draws them. */
static void play_checked(ctx *c, uint64_t seed, unsigned char fill, game_run *out)
{
    const eng_game *g = c->g;
    c->seed = seed;
    c->ply = 0;
    void *st = new_state(c, fill);
    void *shadow = malloc(g->state_size); /* a memcpy'd copy that follows along */
    assert_non_null(shadow);
    memcpy(shadow, st, g->state_size);
    eng_rng rng;
    eng_rng_seed(&rng, seed);
    for (;;) {
        bool deep = c->ply % c->render_every == 0;
        int p = check_position(c, st, deep);
        if (p == ENG_TERMINAL)
            break;
        CHECK(c, c->ply < g->max_plies, "the game is longer than max_plies %d", g->max_plies);
        eng_move m;
        if (p == ENG_CHANCE) {
            m = eng_sample_chance(g, st, &rng);
            CHECK(c, eng_is_legal(g, st, m), "eng_sample_chance gave %d, not an outcome", (int)m);
        } else {
            m = eng_random_move(g, st, &rng);
            CHECK(c, eng_is_legal(g, st, m), "eng_random_move gave %d, not legal", (int)m);
        }
        g->apply(st, m);
        g->apply(shadow, m);
        out->moves[c->ply++] = m;
        CHECK(c, memcmp(st, shadow, g->state_size) == 0,
              "a memcpy'd copy given the same move differs");
    }
    check_render(c, st); /* always at the end */
    out->n = c->ply;
    memcpy(out->final, st, g->state_size);
    free(shadow);
    free(st);
}

/* Replay moves[0..n) from a fresh state; returns the state (caller frees). */
static void *replay(ctx *c, const game_run *r, int n, unsigned char fill)
{
    void *st = new_state(c, fill);
    for (int i = 0; i < n; i++) {
        c->ply = i;
        CHECK(c, eng_is_legal(c->g, st, r->moves[i]), "replayed move %d is not legal",
              (int)r->moves[i]);
        c->g->apply(st, r->moves[i]);
    }
    return st;
}

/* The turns of a played game (see the top of this file). */
static void check_turns(ctx *c, const game_run *r)
{
    const eng_game *g = c->g;
    void *st = new_state(c, 0x00);
    void *start = malloc(g->state_size), *scratch = malloc(g->state_size);
    assert_true(start && scratch);
    char err[256];
    int i = 0;
    while (i < r->n) {
        /* one turn: chance outcomes, then the decisions of one seat */
        int first = i, seat = -1, ndec = 0;
        eng_move dec[ENG_MAX_TURN_MOVES + 1];
        for (;;) {
            c->ply = i;
            int before = g->current_player(st);
            if (before >= 0) {
                if (seat < 0) {
                    seat = before;
                    memcpy(start, st, g->state_size);
                }
                CHECK(c, before == seat, "two seats decide in one turn");
                CHECK(c, eng_turn_seat(g, st) == seat, "eng_turn_seat is %d at a decision of %d",
                      eng_turn_seat(g, st), seat);
                CHECK(c, ndec < g->turn_decisions, "a turn holds more than turn_decisions %d",
                      g->turn_decisions);
                dec[ndec++] = r->moves[i];
            } else {
                CHECK(c, seat < 0, "a chance event inside a seat's decisions");
            }
            g->apply(st, r->moves[i++]);
            CHECK(c, i - first <= ENG_MAX_TURN_MOVES, "a turn of more than ENG_MAX_TURN_MOVES");
            if (eng_turn_ends(g, before, st) || i == r->n)
                break;
        }
        if (seat < 0)
            continue; /* a chance outcome that left its seat nothing to decide */
        c->ply = first;
        int rc = eng_turn_check(g, start, dec, ndec, scratch, err, sizeof err);
        CHECK(c, rc == 0, "eng_turn_check refuses a played turn: %s", err);
        CHECK(c, memcmp(scratch, st, g->state_size) == 0, "eng_turn_check ends elsewhere");
        if (ndec > 1) {
            rc = eng_turn_check(g, start, dec, ndec - 1, scratch, err, sizeof err);
            CHECK(c, rc == ENG_EILLEGAL_MOVE && strstr(err, "stops before"),
                  "a turn cut short: %d %s", rc, err);
        }
        rc = eng_turn_check(g, start, dec, 0, scratch, err, sizeof err);
        CHECK(c, rc == ENG_EILLEGAL_MOVE, "an empty turn: %d", rc);
        if (g->current_player(st) >= 0 && ndec < ENG_MAX_TURN_MOVES) {
            /* the next seat's move appended: one decision too many */
            eng_rng rng;
            eng_rng_seed(&rng, (uint64_t)first);
            dec[ndec] = eng_random_move(g, st, &rng);
            rc = eng_turn_check(g, start, dec, ndec + 1, scratch, err, sizeof err);
            CHECK(c, rc == ENG_EILLEGAL_MOVE, "a turn with a decision of the next seat: %d", rc);
        }
        dec[ndec - 1] = -1; /* never a move */
        rc = eng_turn_check(g, start, dec, ndec, scratch, err, sizeof err);
        CHECK(c, rc == ENG_EILLEGAL_MOVE && strstr(err, "not a legal move"),
              "a turn with an illegal decision: %d %s", rc, err);
        /* a random turn from the same start */
        eng_rng rng;
        eng_rng_seed(&rng, (uint64_t)first * 31 + 7);
        memcpy(scratch, start, g->state_size);
        int nr = eng_random_turn(g, scratch, &rng, dec);
        CHECK(c, nr >= 1 && nr <= g->turn_decisions, "eng_random_turn played %d decisions", nr);
        void *again = malloc(g->state_size);
        assert_non_null(again);
        rc = eng_turn_check(g, start, dec, nr, again, err, sizeof err);
        CHECK(c, rc == 0 && memcmp(again, scratch, g->state_size) == 0,
              "eng_turn_check refuses eng_random_turn's turn: %s", err);
        free(again);
    }
    c->ply = r->n;
    CHECK(c, g->current_player(st) == ENG_TERMINAL, "the turns do not end the game");
    int nr = eng_random_turn(g, st, NULL, NULL);
    CHECK(c, nr == 0, "eng_random_turn at the end played %d", nr);
    free(scratch);
    free(start);
    free(st);
}

/* The whole battery for one game under one set of rules. */
static void check_config(const eng_game *g, const eng_rules *rules, int games, uint64_t seed0,
                         long *plies_out)
{
    ctx c;
    ctx_open(&c, g, rules);
    game_run a, b;
    run_alloc(g, &a);
    run_alloc(g, &b);
    eng_rng seeds;
    eng_rng_seed(&seeds, seed0);
    long plies = 0;
    for (int gi = 0; gi < games; gi++) {
        uint64_t seed = eng_rng_next(&seeds);
        /* render() is the slowest query: every ply in the first game */
        c.render_every = gi == 0 ? 1 : 7;
        play_checked(&c, seed, 0x00, &a);
        plies += a.n;
        check_turns(&c, &a);

        /* determinism: same seed, other garbage in the buffer */
        if (gi < 4 || gi % 4 == 0) {
            c.render_every = 1 << 30;
            play_checked(&c, seed, 0xff, &b);
            CHECK(&c, b.n == a.n, "same seed, %d plies then %d", a.n, b.n);
            CHECK(&c, memcmp(a.moves, b.moves, (size_t)a.n * sizeof *a.moves) == 0,
                  "same seed, different moves");
            CHECK(&c, memcmp(a.final, b.final, g->state_size) == 0,
                  "same seed, different final bytes (uninitialised bytes in the state?)");
        }

        /* eng_playout draws from the generator the same way */
        void *st = new_state(&c, 0xa5);
        eng_rng rng;
        eng_rng_seed(&rng, seed);
        int n = eng_playout(g, st, &rng);
        c.ply = n;
        CHECK(&c, n == a.n, "eng_playout played %d plies, the checked game %d", n, a.n);
        CHECK(&c, g->current_player(st) == ENG_TERMINAL, "eng_playout stopped early");
        CHECK(&c, memcmp(st, a.final, g->state_size) == 0, "eng_playout reached another state");
        free(st);

        /* a copy taken mid-game does not depend on the original's memory */
        int cut = a.n > 0 ? (int)eng_rng_below(&seeds, (uint32_t)a.n + 1) : 0;
        void *orig = replay(&c, &a, cut, 0x00);
        void *copy = malloc(g->state_size);
        assert_non_null(copy);
        memcpy(copy, orig, g->state_size);
        memset(orig, 0xa5, g->state_size);
        free(orig);
        for (int i = cut; i < a.n; i++) {
            c.ply = i;
            CHECK(&c, eng_is_legal(g, copy, a.moves[i]), "move %d illegal in a copy taken at ply %d",
                  (int)a.moves[i], cut);
            g->apply(copy, a.moves[i]);
        }
        CHECK(&c, memcmp(copy, a.final, g->state_size) == 0,
              "a copy taken at ply %d ends in other bytes", cut);

        /* eng_playout from the state at the cut (any phase of a turn) ends
         * where the generic loop ends from it with the same generator */
        void *mid = replay(&c, &a, cut, 0x00), *ref = replay(&c, &a, cut, 0x5a);
        eng_rng r1, r2;
        eng_rng_seed(&r1, seed ^ 0x9e3779b97f4a7c15ULL);
        r2 = r1;
        int np = eng_playout(g, mid, &r1), nl = 0;
        for (int p; (p = g->current_player(ref)) != ENG_TERMINAL; nl++)
            g->apply(ref, p == ENG_CHANCE ? eng_sample_chance(g, ref, &r2)
                                          : eng_random_move(g, ref, &r2));
        c.ply = cut;
        CHECK(&c, np == nl, "eng_playout from ply %d played %d plies, the generic loop %d", cut,
              np, nl);
        CHECK(&c, memcmp(mid, ref, g->state_size) == 0,
              "eng_playout from ply %d reached another state than the generic loop", cut);
        CHECK(&c, memcmp(&r1, &r2, sizeof r1) == 0,
              "eng_playout from ply %d left the generator elsewhere", cut);
        free(mid);
        free(ref);
        free(copy);
    }
    if (plies_out)
        *plies_out += plies;
    run_free(&a);
    run_free(&b);
    ctx_close(&c);
}

/* ---- the registry and the declared maxima --------------------------------------- */

static bool lower_name(const char *s)
{
    if (!s || !*s)
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_' || *s == '-'))
            return false;
    return true;
}

static void test_registry(void **unused)
{
    (void)unused;
    int n = -1;
    const eng_game *const *games = eng_games(&n);
    assert_non_null(games);
    assert_true(n >= 1);
    for (int i = 0; i < n; i++) {
        const eng_game *g = games[i];
        assert_non_null(g);
        if (!lower_name(g->name))
            fail_msg("game %d has name '%s'", i, g->name ? g->name : "(null)");
        assert_ptr_equal(eng_find_game(g->name), g);
        for (int j = 0; j < i; j++)
            assert_string_not_equal(games[j]->name, g->name);
        assert_true(g->title && g->title[0]);
        assert_true(g->move_encoding >= 1); /* the journal stores it with every match */

        assert_true(g->min_players >= 1);
        assert_true(g->min_players <= g->default_players);
        assert_true(g->default_players <= g->max_players);
        assert_true(g->max_players <= ENG_MAX_PLAYERS);
        assert_true(g->state_size >= sizeof(eng_rules));
        assert_true(g->max_moves >= 1);
        assert_true(g->max_chance >= 0);
        assert_true(g->max_plies >= 1);
        assert_true(g->turn_decisions >= 1 && g->turn_decisions <= ENG_MAX_TURN_MOVES);
        assert_true(g->n_options >= 0 && g->n_options <= ENG_MAX_OPTIONS);
        assert_true(g->n_options == 0 || g->options != NULL);
        for (int o = 0; o < g->n_options; o++) {
            const eng_option *op = &g->options[o];
            if (!lower_name(op->name) || strcmp(op->name, "players") == 0)
                fail_msg("%s option %d has name '%s'", g->name, o, op->name ? op->name : "(null)");
            assert_true(op->help && op->help[0]);
            assert_true(op->min <= op->def && op->def <= op->max);
            if (op->boolean)
                assert_true(op->min == 0 && op->max == 1);
            assert_int_equal(eng_option_index(g, op->name), o);
            for (int q = 0; q < o; q++)
                assert_string_not_equal(g->options[q].name, op->name);
        }
        /* the mandatory slots */
        assert_non_null(g->init);
        assert_non_null(g->current_player);
        assert_non_null(g->legal_moves);
        assert_non_null(g->chance_outcomes);
        assert_non_null(g->apply);
        assert_non_null(g->scores);
        assert_non_null(g->returns);
        assert_non_null(g->evaluate);
        assert_non_null(g->move_to_str);
        assert_non_null(g->move_from_str);
        assert_non_null(g->render);
        assert_int_equal(eng_option_index(g, "no_such_option"), -1);
    }
    assert_null(eng_find_game("no_such_game"));
    assert_null(eng_find_game(""));
    assert_null(eng_find_game(NULL));
}

/* ---- random games ------------------------------------------------------------------ */

/* About this many plies per rules variant, so cheap and costly games get
 * similar time; at least a few games each. Under the sanitizers
 * (TESSERA_SANITIZED=1, the test script's second pass) a quarter of the
 * plies: that pass is after memory errors, on the same paths, and the first
 * pass plays them all (in full the suite took 464 s under ASan on a loaded
 * machine). */
static int games_for(const eng_game *g, long ply_budget)
{
    if (getenv("TESSERA_SANITIZED"))
        ply_budget /= 4;
    long n = ply_budget / g->max_plies;
    return n < 3 ? 3 : (int)n;
}

static void test_random_games(void **unused)
{
    (void)unused;
    int ng;
    const eng_game *const *games = eng_games(&ng);
    for (int gi = 0; gi < ng; gi++) {
        const eng_game *g = games[gi];
        long plies = 0;
        int configs = 0, played = 0;
        char err[256];
        /* every seat count with the default options */
        for (int p = g->min_players; p <= g->max_players; p++) {
            eng_rules r;
            eng_rules_default(g, &r);
            char kv[32];
            snprintf(kv, sizeof kv, "players=%d", p);
            assert_int_equal(eng_rules_set(g, &r, kv, err, sizeof err), 0);
            assert_int_equal(eng_rules_check(g, &r, err, sizeof err), 0);
            int n = games_for(g, 30000);
            check_config(g, &r, n, 0xc0ffee00u + (uint64_t)p * 7919 + (uint64_t)gi, &plies);
            configs++;
            played += n;
        }
        /* every other value of each small-ranged option, default seats */
        for (int o = 0; o < g->n_options; o++) {
            const eng_option *op = &g->options[o];
            if ((int64_t)op->max - op->min > 16)
                continue;
            for (int32_t v = op->min; v <= op->max; v++) {
                if (v == op->def)
                    continue;
                eng_rules r;
                eng_rules_default(g, &r);
                r.opt[o] = v;
                if (eng_rules_check(g, &r, err, sizeof err) != 0)
                    continue; /* a value the game's cross-check refuses */
                int n = games_for(g, 8000);
                check_config(g, &r, n, 0xbadc0de0u + (uint64_t)o * 131 + (uint64_t)v, &plies);
                configs++;
                played += n;
            }
        }
        print_message("      %-12s %d rules variants, %d games (each also replayed, copied, "
                      "played out), %ld plies checked\n",
                      g->name, configs, played, plies);
    }
}

/* ---- sampling ------------------------------------------------------------------------- */

/* Pearson's chi-square of counts against expected frequencies; fails when
 * far above its degrees of freedom (seeds are fixed, so this never flakes;
 * the bound catches a move that is never or doubly drawn). */
static void check_chi2(ctx *c, const char *what, const long *count, const double *prob, int n,
                       long draws)
{
    double chi2 = 0;
    for (int i = 0; i < n; i++) {
        double e = prob[i] * (double)draws;
        CHECK(c, count[i] > 0 || e < 5, "%s: outcome %d never drawn (expected %.1f)", what, i, e);
        chi2 += (count[i] - e) * (count[i] - e) / e;
    }
    double df = n - 1;
    double bound = df + 8.0 * sqrt(2.0 * df) + 12.0;
    CHECK(c, chi2 <= bound, "%s: chi-square %.1f over %d outcomes (bound %.1f)", what, chi2, n,
          bound);
}

/* Draw from the sampler repeatedly at st and compare with the stated
 * distribution (chance) or the uniform one (decisions). */
static void check_sampling_at(ctx *c, const eng_game *g, const void *st, eng_rng *rng)
{
    int p = g->current_player(st);
    int n;
    if (p == ENG_CHANCE)
        n = g->chance_outcomes(st, c->co, c->prob);
    else {
        n = g->legal_moves(st, c->co);
        for (int i = 0; i < n; i++)
            c->prob[i] = 1.0 / n;
    }
    long *count = calloc((size_t)n, sizeof *count);
    assert_non_null(count);
    long draws = 40L * n < 4000 ? 4000 : 40L * n;
    for (long d = 0; d < draws; d++) {
        eng_move m = p == ENG_CHANCE ? eng_sample_chance(g, st, rng) : eng_random_move(g, st, rng);
        int i = 0;
        while (i < n && c->co[i] != m)
            i++;
        CHECK(c, i < n, "%s sampler gave %d, not in the list",
              p == ENG_CHANCE ? "chance" : "move", (int)m);
        count[i]++;
    }
    check_chi2(c, p == ENG_CHANCE ? "eng_sample_chance" : "eng_random_move", count, c->prob, n,
               draws);
    free(count);
}

static void test_sampling(void **unused)
{
    (void)unused;
    int ng;
    const eng_game *const *games = eng_games(&ng);
    for (int gi = 0; gi < ng; gi++) {
        /* the game as registered (fast paths, if any), and a copy without
         * them so the generic samplers in eng.c are checked too */
        eng_game generic = *games[gi];
        generic.sample_chance = NULL;
        generic.random_move = NULL;
        generic.playout = NULL;
        const eng_game *variants[2] = {games[gi], &generic};
        for (int vi = 0; vi < 2; vi++) {
            const eng_game *g = variants[vi];
            eng_rules r;
            eng_rules_default(g, &r);
            r.players = g->max_players;
            ctx c;
            ctx_open(&c, g, &r);
            strncat(c.label, vi ? " (generic samplers)" : "", sizeof c.label - strlen(c.label) - 1);
            eng_rng rng, pick;
            eng_rng_seed(&rng, 4242 + (uint64_t)gi);
            eng_rng_seed(&pick, 99);
            c.seed = 4242 + (uint64_t)gi;
            void *st = new_state(&c, 0);
            /* sample at a handful of positions along one game */
            int checked = 0;
            while (g->current_player(st) != ENG_TERMINAL) {
                if (eng_rng_below(&pick, 6) == 0 && checked < 12) {
                    check_sampling_at(&c, g, st, &rng);
                    checked++;
                }
                eng_move m = g->current_player(st) == ENG_CHANCE ? eng_sample_chance(g, st, &rng)
                                                                 : eng_random_move(g, st, &rng);
                g->apply(st, m);
                c.ply++;
            }
            CHECK(&c, checked > 0, "no position sampled");
            free(st);
            ctx_close(&c);
        }
    }
}

/* ---- rules parsing ------------------------------------------------------------------------ */

/* eng_rules_set must fail with `want`, leave r alone, and explain itself;
 * a tiny error buffer stays NUL-terminated and a NULL one is allowed. */
static void expect_set_fails(const eng_game *g, const char *kv, int want)
{
    eng_rules r, before;
    eng_rules_default(g, &r);
    before = r;
    char err[256];
    memset(err, 0, sizeof err);
    int rc = eng_rules_set(g, &r, kv, err, sizeof err);
    if (rc != want)
        fail_msg("%s: eng_rules_set(\"%.40s\") returned %d (%s), expected %d (%s); message '%s'",
                 g->name, kv ? kv : "(null)", rc, eng_err_code(rc), want, eng_err_code(want), err);
    if (memcmp(&r, &before, sizeof r) != 0)
        fail_msg("%s: failed eng_rules_set(\"%.40s\") changed the rules", g->name, kv ? kv : "");
    if (err[0] == 0 || memchr(err, 0, sizeof err) == NULL)
        fail_msg("%s: eng_rules_set(\"%.40s\") gave no message", g->name, kv ? kv : "(null)");

    char tiny[4 + GUARD];
    memset(tiny, GUARD_BYTE, sizeof tiny);
    assert_int_equal(eng_rules_set(g, &r, kv, tiny, 4), want);
    assert_non_null(memchr(tiny, 0, 4));
    for (int i = 4; i < 4 + GUARD; i++)
        assert_int_equal((unsigned char)tiny[i], GUARD_BYTE);
    assert_int_equal(eng_rules_set(g, &r, kv, NULL, 0), want);
    assert_memory_equal(&r, &before, sizeof r);
}

static void expect_set_ok(const eng_game *g, eng_rules *r, const char *kv)
{
    char err[256] = "";
    int rc = eng_rules_set(g, r, kv, err, sizeof err);
    if (rc != 0)
        fail_msg("%s: eng_rules_set(\"%s\") returned %d: %s", g->name, kv, rc, err);
}

static void test_rules(void **unused)
{
    (void)unused;
    int ng;
    const eng_game *const *games = eng_games(&ng);
    char kv[512], err[256];
    for (int gi = 0; gi < ng; gi++) {
        const eng_game *g = games[gi];
        eng_rules r;

        /* defaults are valid */
        eng_rules_default(g, &r);
        assert_int_equal(r.players, g->default_players);
        for (int o = 0; o < g->n_options; o++)
            assert_int_equal(r.opt[o], g->options[o].def);
        assert_int_equal(eng_rules_check(g, &r, err, sizeof err), 0);

        /* seat counts */
        for (int p = g->min_players; p <= g->max_players; p++) {
            eng_rules_default(g, &r);
            snprintf(kv, sizeof kv, "players=%d", p);
            expect_set_ok(g, &r, kv);
            assert_int_equal(r.players, p);
            assert_int_equal(eng_rules_check(g, &r, err, sizeof err), 0);
        }
        const long bad_players[] = {g->min_players - 1L, g->max_players + 1L, 0, -1, 1000,
                                    INT32_MAX, INT32_MIN};
        for (size_t i = 0; i < sizeof bad_players / sizeof bad_players[0]; i++) {
            if (bad_players[i] >= g->min_players && bad_players[i] <= g->max_players)
                continue;
            snprintf(kv, sizeof kv, "players=%ld", bad_players[i]);
            expect_set_fails(g, kv, ENG_EBAD_PLAYERS);
        }
        /* a seat count that is not a number is a bad seat count too */
        const char *bad_players_text[] = {"players=", "players=two", "players=2x", "players=2.0",
                                          "players=99999999999999999999", "players=true"};
        for (size_t i = 0; i < sizeof bad_players_text / sizeof bad_players_text[0]; i++)
            expect_set_fails(g, bad_players_text[i], ENG_EBAD_PLAYERS);

        /* unknown rules and malformed settings */
        const char *bad_rules[] = {"no_such_rule=1", "no_such_rule=true", "no_such_rule=",
                                   "no_such_rule", "", "=", "=1", "players", NULL};
        for (size_t i = 0; i < sizeof bad_rules / sizeof bad_rules[0]; i++)
            expect_set_fails(g, bad_rules[i], ENG_EBAD_RULE);
        memset(kv, 'k', 300);
        strcpy(kv + 300, "=1");
        expect_set_fails(g, kv, ENG_EBAD_RULE); /* a very long key */

        /* eng_rules_set_value */
        eng_rules_default(g, &r);
        assert_int_equal(eng_rules_set_value(g, &r, "no_such_rule", 0, err, sizeof err),
                         ENG_EBAD_RULE);
        assert_int_equal(eng_rules_set_value(g, &r, "players", g->max_players + 1, err, sizeof err),
                         ENG_EBAD_PLAYERS);
        assert_int_equal(eng_rules_set_value(g, &r, "players", g->min_players, err, sizeof err), 0);
        assert_int_equal(r.players, g->min_players);

        /* eng_rules_check / eng_init on a rules struct filled by hand */
        void *st = malloc(g->state_size);
        assert_non_null(st);
        eng_rules_default(g, &r);
        r.players = g->max_players + 1;
        err[0] = 0;
        assert_int_equal(eng_rules_check(g, &r, err, sizeof err), ENG_EBAD_PLAYERS);
        assert_true(err[0] != 0);
        assert_int_equal(eng_init(g, st, &r, err, sizeof err), ENG_EBAD_PLAYERS);
        r.players = g->min_players - 1;
        assert_int_equal(eng_rules_check(g, &r, err, sizeof err), ENG_EBAD_PLAYERS);

        for (int o = 0; o < g->n_options; o++) {
            const eng_option *op = &g->options[o];
            /* every value in range is accepted by the parser; the game's
             * cross-check may still refuse it, with ENG_EBAD_RULE */
            int64_t span = (int64_t)op->max - op->min;
            for (int64_t v = op->min; v <= op->max; v += span > 64 ? span / 8 + 1 : 1) {
                eng_rules_default(g, &r);
                eng_rules before = r;
                snprintf(kv, sizeof kv, "%s=%lld", op->name, (long long)v);
                expect_set_ok(g, &r, kv);
                assert_int_equal(r.opt[o], v);
                before.opt[o] = (int32_t)v;
                assert_memory_equal(&r, &before, sizeof r); /* nothing else moved */
                err[0] = 0;
                int rc = eng_rules_check(g, &r, err, sizeof err);
                if (rc != 0) {
                    assert_int_equal(rc, ENG_EBAD_RULE);
                    assert_true(err[0] != 0);
                    assert_int_equal(eng_init(g, st, &r, err, sizeof err), ENG_EBAD_RULE);
                }
            }
            /* out of range */
            if (op->min > INT32_MIN) {
                snprintf(kv, sizeof kv, "%s=%lld", op->name, (long long)op->min - 1);
                expect_set_fails(g, kv, ENG_EBAD_RULE);
            }
            if (op->max < INT32_MAX) {
                snprintf(kv, sizeof kv, "%s=%lld", op->name, (long long)op->max + 1);
                expect_set_fails(g, kv, ENG_EBAD_RULE);
            }
            const char *bad_values[] = {"99999999999999999999", "-99999999999999999999", "", "abc",
                                        "1x", "0x1", "maybe", "tru", "1.0"};
            for (size_t i = 0; i < sizeof bad_values / sizeof bad_values[0]; i++) {
                snprintf(kv, sizeof kv, "%s=%s", op->name, bad_values[i]);
                expect_set_fails(g, kv, ENG_EBAD_RULE);
            }
            eng_rules_default(g, &r);
            assert_int_equal(eng_rules_set_value(g, &r, op->name, op->min - (op->min > INT32_MIN),
                                                 err, sizeof err),
                             op->min > INT32_MIN ? ENG_EBAD_RULE : 0);
            /* a hand-filled struct out of range */
            eng_rules_default(g, &r);
            if (op->max < INT32_MAX) {
                r.opt[o] = op->max + 1;
                assert_int_equal(eng_rules_check(g, &r, err, sizeof err), ENG_EBAD_RULE);
                assert_int_equal(eng_init(g, st, &r, err, sizeof err), ENG_EBAD_RULE);
            }

            if (op->boolean) {
                static const struct {
                    const char *text;
                    int32_t value;
                } forms[] = {{"true", 1}, {"false", 0}, {"1", 1}, {"0", 0}};
                for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
                    eng_rules_default(g, &r);
                    r.opt[o] = 1 - forms[i].value; /* so the write shows */
                    snprintf(kv, sizeof kv, "%s=%s", op->name, forms[i].text);
                    expect_set_ok(g, &r, kv);
                    assert_int_equal(r.opt[o], forms[i].value);
                }
                snprintf(kv, sizeof kv, "%s=2", op->name);
                expect_set_fails(g, kv, ENG_EBAD_RULE);
                snprintf(kv, sizeof kv, "%s=-1", op->name);
                expect_set_fails(g, kv, ENG_EBAD_RULE);
            } else {
                snprintf(kv, sizeof kv, "%s=true", op->name);
                expect_set_fails(g, kv, ENG_EBAD_RULE); /* integers are not booleans */
            }
        }
        free(st);
    }
}

/* ---- the error table ------------------------------------------------------------------------ */

static const struct {
    int code;
    const char *wire, *msg;
} err_rows[] = {
#define ROW_(name, wire, msg) {ENG_E##name, wire, msg},
    ENG_ERR_MAP(ROW_)
#undef ROW_
};

static void test_error_table(void **unused)
{
    (void)unused;
    const int rows = (int)(sizeof err_rows / sizeof err_rows[0]);
    assert_true(rows >= 1);
    assert_string_equal(eng_err_code(ENG_OK), "ok");
    assert_true(eng_err_message(ENG_OK)[0] != 0);
    for (int i = 0; i < rows; i++) {
        int code = err_rows[i].code;
        /* codes are -1, -2, ... in table order */
        assert_int_equal(code, -(i + 1));
        const char *wire = eng_err_code(code);
        assert_string_equal(wire, err_rows[i].wire);
        assert_string_equal(eng_err_message(code), err_rows[i].msg);
        if (!lower_name(wire) || strcmp(wire, "unknown_error") == 0 || strcmp(wire, "ok") == 0)
            fail_msg("code %d has wire string '%s'", code, wire);
        assert_int_equal(eng_err_from_code(wire), code);
        assert_true(eng_err_message(code)[0] != 0);
        for (int j = 0; j < i; j++)
            assert_string_not_equal(err_rows[j].wire, wire);
    }
    /* codes outside the table */
    const int outside[] = {1, 2, 1000, -(rows + 1), -1000, INT_MAX, INT_MIN, INT_MIN + 1};
    for (size_t i = 0; i < sizeof outside / sizeof outside[0]; i++) {
        assert_string_equal(eng_err_code(outside[i]), "unknown_error");
        assert_non_null(eng_err_message(outside[i]));
        assert_true(eng_err_message(outside[i])[0] != 0);
    }
    assert_int_equal(eng_err_from_code("no_such_code"), 0);
    assert_int_equal(eng_err_from_code(""), 0);
    assert_int_equal(eng_err_from_code("unknown_error"), 0);
}

int main(void)
{
    init_garbage();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registry),
        cmocka_unit_test(test_error_table),
        cmocka_unit_test(test_rules),
        cmocka_unit_test(test_sampling),
        cmocka_unit_test(test_random_games),
    };
    return cmocka_run_group_tests_name("conformance", tests, NULL, NULL);
}
