/*
 * test_dodgem.c — Dodgem (engine/dodgem/) against a slow, obviously-correct
 * reference written here from the rules alone: a board of characters, cars
 * found by scanning it, moves tried one direction at a time.
 *
 *   - perft from the start on 3x3, 4x4 and 5x5 (a finished game is a leaf),
 *     engine and reference counted separately, and pinned;
 *   - thousands of random games (every size, several ply caps) replayed
 *     move by move in both: the same legal moves in the same order, the
 *     same end, the same winner;
 *   - rules on hand-built positions: forward exits only from the far edge,
 *     no backward moves, blocked cars, the player without a move wins (all
 *     cars gone, or all blocked), the ply cap draws and yields to a win;
 *   - the solved game: an exhaustive retrograde solver over the reference
 *     proves 3x3 a first-player win (and, with --slow, 4x4 a draw), and a
 *     memoised search over the engine itself wins 3x3 within the default
 *     cap of 100 plies;
 *   - notation: "x y D" round trips; bad strings are refused.
 *
 * `test_dodgem --slow` adds the 4x4 solve and deeper perft (a `slow` test).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine/dodgem/dodgem.h"

static bool slow_mode;

/* ---- the reference ------------------------------------------------------------ */

typedef struct ref_pos {
    int n;
    char cell[5][5]; /* [y][x]: '.', 'B' or 'W' */
    int to_move;     /* 0 Black, 1 White */
    int plies, cap;
    int result; /* -1 playing, 0/1 winner, 2 draw */
} ref_pos;

static void ref_init(ref_pos *p, int n, int cap)
{
    memset(p, 0, sizeof *p);
    p->n = n;
    p->cap = cap;
    p->result = -1;
    for (int y = 0; y < n; y++)
        for (int x = 0; x < n; x++)
            p->cell[y][x] = '.';
    for (int i = 1; i < n; i++) {
        p->cell[i][0] = 'B'; /* left column, rows 1..n-1 */
        p->cell[0][i] = 'W'; /* top row, columns 1..n-1 */
    }
}

/* Moves of `player` by scanning the board row by row, directions N E S W:
 * each written as (x, y, dir) packed the engine's way for comparison. */
static int ref_moves(const ref_pos *p, int player, int32_t *out)
{
    static const int dx[4] = {0, 1, 0, -1}, dy[4] = {-1, 0, 1, 0};
    char mine = player == 0 ? 'B' : 'W';
    int forward = player == 0 ? 1 : 2;  /* E for Black, S for White */
    int backward = player == 0 ? 3 : 0; /* W for Black, N for White */
    int cnt = 0;
    for (int y = 0; y < p->n; y++)
        for (int x = 0; x < p->n; x++) {
            if (p->cell[y][x] != mine)
                continue;
            for (int d = 0; d < 4; d++) {
                if (d == backward)
                    continue;
                int nx = x + dx[d], ny = y + dy[d];
                bool inside = nx >= 0 && ny >= 0 && nx < p->n && ny < p->n;
                bool ok = inside ? p->cell[ny][nx] == '.' : d == forward;
                if (ok)
                    out[cnt++] = (y * p->n + x) * 4 + d;
            }
        }
    return cnt;
}

static void ref_apply(ref_pos *p, int32_t m)
{
    static const int dx[4] = {0, 1, 0, -1}, dy[4] = {-1, 0, 1, 0};
    int cell = m / 4, d = m % 4, x = cell % p->n, y = cell / p->n;
    char c = p->cell[y][x];
    p->cell[y][x] = '.';
    int nx = x + dx[d], ny = y + dy[d];
    if (nx >= 0 && ny >= 0 && nx < p->n && ny < p->n)
        p->cell[ny][nx] = c;
    p->to_move = 1 - p->to_move;
    p->plies++;
    int32_t buf[64];
    if (ref_moves(p, p->to_move, buf) == 0)
        p->result = p->to_move; /* no move on your own turn: you win */
    else if (p->plies >= p->cap)
        p->result = 2;
}

/* ---- helpers --------------------------------------------------------------------- */

static void engine_init(dodgem_state *s, int n, int cap)
{
    eng_rules r;
    eng_rules_default(&dodgem_game, &r);
    r.opt[DODGEM_OPT_SIZE] = n;
    r.opt[DODGEM_OPT_MAX_PLIES] = cap;
    char err[128];
    if (eng_init(&dodgem_game, s, &r, err, sizeof err) != 0)
        fail_msg("init n=%d cap=%d: %s", n, cap, err);
}

/* Engine state from a picture: n rows of n characters (B, W, .). */
static void engine_from(dodgem_state *s, int cap, int to_move, const char *const *rows, int n)
{
    engine_init(s, n, cap);
    s->car[0] = s->car[1] = 0;
    for (int y = 0; y < n; y++)
        for (int x = 0; x < n; x++) {
            if (rows[y][x] == 'B')
                s->car[0] |= 1u << (y * n + x);
            else if (rows[y][x] == 'W')
                s->car[1] |= 1u << (y * n + x);
        }
    s->to_move = (uint8_t)to_move;
}

static eng_move parse(const dodgem_state *s, const char *text)
{
    eng_move m = -1;
    int rc = dodgem_game.move_from_str(s, text, &m);
    if (rc != 0)
        fail_msg("'%s' refused (%d)", text, rc);
    return m;
}

static bool legal(const dodgem_state *s, const char *text)
{
    eng_move m;
    return dodgem_game.move_from_str(s, text, &m) == 0;
}

/* ---- perft ------------------------------------------------------------------------ */

static uint64_t perft(const dodgem_state *s, int depth)
{
    if (depth == 0 || dodgem_game.current_player(s) == ENG_TERMINAL)
        return 1;
    eng_move mv[16];
    int n = dodgem_game.legal_moves(s, mv);
    uint64_t total = 0;
    for (int i = 0; i < n; i++) {
        dodgem_state c = *s;
        dodgem_game.apply(&c, mv[i]);
        total += perft(&c, depth - 1);
    }
    return total;
}

static uint64_t ref_perft(const ref_pos *p, int depth)
{
    if (depth == 0 || p->result >= 0)
        return 1;
    int32_t mv[64];
    int n = ref_moves(p, p->to_move, mv);
    uint64_t total = 0;
    for (int i = 0; i < n; i++) {
        ref_pos c = *p;
        ref_apply(&c, mv[i]);
        total += ref_perft(&c, depth - 1);
    }
    return total;
}

/* Pinned counts (engine and reference agree on each; computed once and kept
 * so a change to both at once is caught). Index: the depth. */
static const uint64_t perft_3[11] = {1, 3, 7, 27, 101, 279, 757, 2483, 8865, 24591, 70953};
static const uint64_t perft_4[9] = {1, 4, 14, 79, 438, 2358, 12372, 66007, 344986};
static const uint64_t perft_5[11] = {1,     5,      23,      163,      1146,     8398,
                                     60654, 459024, 3444119, 25957128, 193650492};

static void check_perft(int n, const uint64_t *want, int maxd, int refd)
{
    dodgem_state s;
    engine_init(&s, n, 100);
    ref_pos p;
    ref_init(&p, n, 100);
    for (int d = 1; d <= maxd; d++) {
        uint64_t e = perft(&s, d);
        if (d <= refd) {
            uint64_t r = ref_perft(&p, d);
            if (e != r)
                fail_msg("%dx%d perft %d: engine %llu, reference %llu", n, n, d,
                         (unsigned long long)e, (unsigned long long)r);
        }
        if (want && e != want[d])
            fail_msg("%dx%d perft %d: %llu, pinned %llu", n, n, d, (unsigned long long)e,
                     (unsigned long long)want[d]);
        print_message("      %dx%d perft %d = %llu\n", n, n, d, (unsigned long long)e);
    }
}

static void test_perft(void **unused)
{
    (void)unused;
    check_perft(3, perft_3, 10, 10);
    check_perft(4, perft_4, 8, 8);
    check_perft(5, perft_5, 7, 7);
    if (slow_mode)
        check_perft(5, perft_5, 10, 9);
}

/* ---- random games against the reference ------------------------------------------------ */

static void compare_game(int n, int cap, uint64_t seed, int *wins)
{
    dodgem_state s;
    engine_init(&s, n, cap);
    ref_pos p;
    ref_init(&p, n, cap);
    eng_rng rng;
    eng_rng_seed(&rng, seed);
    for (;;) {
        int cp = dodgem_game.current_player(&s);
        int want = p.result >= 0 ? ENG_TERMINAL : p.to_move;
        if (cp != want)
            fail_msg("n=%d cap=%d seed %llu ply %d: current player %d, reference %d", n, cap,
                     (unsigned long long)seed, p.plies, cp, want);
        if (cp == ENG_TERMINAL)
            break;
        eng_move a[16];
        int32_t b[64];
        int na = dodgem_game.legal_moves(&s, a), nb = ref_moves(&p, p.to_move, b);
        if (na != nb || memcmp(a, b, (size_t)na * sizeof a[0]) != 0)
            fail_msg("n=%d seed %llu ply %d: %d legal moves, reference %d", n,
                     (unsigned long long)seed, p.plies, na, nb);
        /* every other named query agrees too */
        for (int pl = 0; pl < 2; pl++) {
            int32_t c[64];
            assert_int_equal(dodgem_moves_of(&s, pl, c), ref_moves(&p, pl, b));
            for (int y = 0; y < n; y++)
                for (int x = 0; x < n; x++) {
                    int g = dodgem_game.grid_cell(&s, x, y);
                    char ch = p.cell[y][x];
                    assert_int_equal(g, ch == 'B' ? 0 : ch == 'W' ? 1 : ENG_GRID_EMPTY);
                }
        }
        eng_move m = a[eng_rng_below(&rng, (uint32_t)na)];
        dodgem_game.apply(&s, m);
        ref_apply(&p, m);
    }
    double sc[2], ret[2];
    dodgem_game.scores(&s, sc);
    dodgem_game.returns(&s, ret);
    assert_int_equal(s.result, p.result);
    assert_int_equal(s.plies, p.plies);
    if (p.result == 2) {
        assert_true(sc[0] == 0 && sc[1] == 0 && ret[0] == 0.5 && ret[1] == 0.5);
        assert_int_equal(p.plies, cap);
    } else {
        assert_true(sc[p.result] == 1 && sc[1 - p.result] == 0);
        assert_true(ret[p.result] == 1 && ret[1 - p.result] == 0);
    }
    wins[p.result]++;
}

static void test_random_games(void **unused)
{
    (void)unused;
    static const int caps[] = {100, 1, 7, 40, 1000};
    for (int n = 3; n <= 5; n++)
        for (size_t c = 0; c < sizeof caps / sizeof caps[0]; c++) {
            int wins[3] = {0, 0, 0};
            int games = caps[c] == 1000 ? 300 : 1500;
            for (int i = 0; i < games; i++)
                compare_game(n, caps[c], 1000003u * (uint64_t)n + 7919u * c + (uint64_t)i, wins);
            print_message("      %dx%d cap %4d: %d games, Black %d, White %d, draws %d\n", n, n,
                          caps[c], games, wins[0], wins[1], wins[2]);
            if (caps[c] >= 100)
                assert_true(wins[0] > 0 && wins[1] > 0); /* both kinds of end occur */
            if (caps[c] == 1)
                assert_int_equal(wins[2], games); /* one ply, then the cap */
        }
}

/* ---- rules on hand-built positions ---------------------------------------------------- */

static void test_start(void **unused)
{
    (void)unused;
    dodgem_state s;
    engine_init(&s, 5, 100);
    assert_int_equal(dodgem_game.current_player(&s), DODGEM_BLACK);
    /* Black's cars on (0,1)..(0,4), White's on (1,0)..(4,0), (0,0) empty */
    assert_int_equal(dodgem_game.grid_cell(&s, 0, 0), ENG_GRID_EMPTY);
    for (int i = 1; i < 5; i++) {
        assert_int_equal(dodgem_game.grid_cell(&s, 0, i), DODGEM_BLACK);
        assert_int_equal(dodgem_game.grid_cell(&s, i, 0), DODGEM_WHITE);
    }
    assert_int_equal(dodgem_game.grid_cell(&s, 5, 0), ENG_GRID_OFF);
    eng_move mv[16];
    /* (0,1) may go E or N (into the empty corner); the others only E */
    assert_int_equal(dodgem_game.legal_moves(&s, mv), 5);
    assert_true(legal(&s, "0 1 N") && legal(&s, "0 1 E") && !legal(&s, "0 1 S"));
    assert_true(!legal(&s, "0 1 W")); /* backwards, and off the board */
    assert_int_equal(dodgem_distance(&s, 0), 20);
    assert_int_equal(dodgem_distance(&s, 1), 20);
    /* 3x3: two cars each */
    engine_init(&s, 3, 100);
    assert_int_equal(__builtin_popcount(s.car[0]), 2);
    assert_int_equal(__builtin_popcount(s.car[1]), 2);
    assert_int_equal(dodgem_game.grid_cell(&s, 3, 3), ENG_GRID_OFF);
}

static void test_exits_and_directions(void **unused)
{
    (void)unused;
    dodgem_state s;
    /* Black car on the east edge, White car on the south edge */
    static const char *const rows[] = {
        ".....", "....B", ".....", ".....", ".W...",
    };
    engine_from(&s, 100, DODGEM_BLACK, rows, 5);
    assert_true(legal(&s, "4 1 E")); /* forward off the board */
    assert_true(legal(&s, "4 1 N") && legal(&s, "4 1 S"));
    assert_false(legal(&s, "4 1 W")); /* backwards */
    assert_false(legal(&s, "1 4 S")); /* not Black's car */
    dodgem_game.apply(&s, parse(&s, "4 1 E"));
    assert_int_equal(s.car[0], 0);
    /* Black has no car left; White moves; then Black, without a move, wins */
    assert_int_equal(dodgem_game.current_player(&s), DODGEM_WHITE);
    assert_true(legal(&s, "1 4 S") && legal(&s, "1 4 W") && legal(&s, "1 4 E"));
    assert_false(legal(&s, "1 4 N")); /* backwards */
    dodgem_game.apply(&s, parse(&s, "1 4 W"));
    assert_int_equal(dodgem_game.current_player(&s), ENG_TERMINAL);
    assert_int_equal(s.result, DODGEM_BLACK);
    double sc[2];
    dodgem_game.scores(&s, sc);
    assert_true(sc[0] == 1 && sc[1] == 0);
    assert_true(dodgem_game.evaluate(&s, 0) == 1.0 && dodgem_game.evaluate(&s, 1) == -1.0);

    /* sideways moves never leave the board */
    static const char *const edge[] = {
        "B..",
        "...",
        "..W",
    };
    engine_from(&s, 100, DODGEM_BLACK, edge, 3);
    assert_false(legal(&s, "0 0 N"));
    assert_true(legal(&s, "0 0 S") && legal(&s, "0 0 E"));
    s.to_move = DODGEM_WHITE;
    assert_false(legal(&s, "2 2 E"));
    assert_true(legal(&s, "2 2 S") && legal(&s, "2 2 W"));
}

/* White's only car, on (1,0), boxed in by Black on (0,0), (2,0) and (1,1). */
static const char *const boxed[] = {
    "BWB..", ".B...", ".....", "...B.", ".....",
};

static void test_blocked(void **unused)
{
    (void)unused;
    dodgem_state s;
    engine_from(&s, 100, DODGEM_BLACK, boxed, 5);
    int32_t white[16];
    assert_int_equal(dodgem_moves_of(&s, DODGEM_WHITE, white), 0);
    /* freeing a neighbour cell gives White a move: the game goes on */
    dodgem_game.apply(&s, parse(&s, "2 0 E"));
    assert_int_equal(dodgem_game.current_player(&s), DODGEM_WHITE);
    assert_true(legal(&s, "1 0 E"));
    /* a move that leaves White boxed in hands White the win */
    engine_from(&s, 100, DODGEM_BLACK, boxed, 5);
    dodgem_game.apply(&s, parse(&s, "3 3 E"));
    assert_int_equal(dodgem_game.current_player(&s), ENG_TERMINAL);
    assert_int_equal(s.result, DODGEM_WHITE);
    double ret[2];
    dodgem_game.returns(&s, ret);
    assert_true(ret[0] == 0 && ret[1] == 1);
    /* named evaluations of the blocked side */
    assert_true(dodgem_game.evaluate_named(&s, DODGEM_WHITE, 2) == 0); /* Mobility */
    assert_true(dodgem_game.evaluate_named(&s, DODGEM_WHITE, 0) == 1); /* ManCount */
    assert_true(dodgem_game.evaluate_named(&s, DODGEM_WHITE, 1) == 5); /* PosCount */
    assert_true(dodgem_game.evaluate_named(&s, DODGEM_BLACK, 0) == 4);
}

static void test_ply_cap(void **unused)
{
    (void)unused;
    dodgem_state s;
    engine_init(&s, 3, 2);
    dodgem_game.apply(&s, parse(&s, "0 1 E"));
    assert_int_equal(dodgem_game.current_player(&s), DODGEM_WHITE);
    dodgem_game.apply(&s, parse(&s, "2 0 S"));
    assert_int_equal(dodgem_game.current_player(&s), ENG_TERMINAL);
    assert_int_equal(s.result, DODGEM_DRAW);
    double sc[2], ret[2];
    dodgem_game.scores(&s, sc);
    dodgem_game.returns(&s, ret);
    assert_true(sc[0] == 0 && sc[1] == 0 && ret[0] == 0.5 && ret[1] == 0.5);
    assert_true(dodgem_game.evaluate(&s, 0) == 0.0);
    eng_move mv[16];
    assert_int_equal(dodgem_game.legal_moves(&s, mv), 0);

    /* A win on the capping ply is a win, not a draw. */
    engine_from(&s, 1, DODGEM_BLACK, boxed, 5);
    dodgem_game.apply(&s, parse(&s, "3 3 E"));
    assert_int_equal(s.result, DODGEM_WHITE);

    /* the rule is range-checked */
    eng_rules r;
    eng_rules_default(&dodgem_game, &r);
    char err[128];
    assert_int_equal(eng_rules_set(&dodgem_game, &r, "max_plies=0", err, sizeof err),
                     ENG_EBAD_RULE);
    assert_int_equal(eng_rules_set(&dodgem_game, &r, "size=6", err, sizeof err), ENG_EBAD_RULE);
    assert_int_equal(eng_rules_set(&dodgem_game, &r, "size=2", err, sizeof err), ENG_EBAD_RULE);
    assert_int_equal(eng_rules_set(&dodgem_game, &r, "max_plies=1000", err, sizeof err), 0);
    assert_int_equal(eng_rules_get(&dodgem_game, &r, "size"), 5);
    assert_int_equal(eng_rules_get(&dodgem_game, &r, "max_plies"), 1000);
}

static void test_notation(void **unused)
{
    (void)unused;
    dodgem_state s;
    engine_init(&s, 4, 100);
    char buf[ENG_MOVE_STR_MAX];
    eng_move mv[16];
    int n = dodgem_game.legal_moves(&s, mv);
    for (int i = 0; i < n; i++) {
        assert_true(dodgem_game.move_to_str(&s, mv[i], buf, sizeof buf) == 5);
        assert_int_equal(parse(&s, buf), mv[i]);
    }
    static const char *const bad[] = {"",      "0 1",   "0 1 e x", "0  1 E", "01 E",   "0 1 X",
                                      "4 1 E", "0 4 E", "-1 1 E",  "0 1 E ", " 0 1 E", "a b E"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        eng_move m = 12345;
        assert_int_equal(dodgem_game.move_from_str(&s, bad[i], &m), ENG_EBAD_MOVE);
        assert_int_equal(m, 12345);
    }
    eng_move m;
    assert_int_equal(dodgem_game.move_from_str(&s, "0 1 S", &m), ENG_EILLEGAL_MOVE); /* occupied */
    assert_int_equal(dodgem_game.move_from_str(&s, "1 0 S", &m), ENG_EILLEGAL_MOVE); /* White's */
    assert_int_equal(dodgem_game.move_from_str(&s, "0 1 W", &m), ENG_EILLEGAL_MOVE); /* backwards */
    assert_int_equal(dodgem_game.move_to_str(&s, 4 * 4 * 4, buf, sizeof buf), ENG_EINVAL);
}

/* ---- the solved game ------------------------------------------------------------------- */

/* Exhaustive retrograde analysis of n x n Dodgem over the reference rules,
 * without a ply cap. A position is (Black's cars, White's cars, side to
 * move); cars are interchangeable, so each side is a cell set of at most n-1
 * cells. Returns the value of the start for Black: 1 win, -1 loss, 0 draw
 * (a cycle neither side can escape), and the plies to the end with best play
 * in *plies (0 for a draw). */
enum { UNKNOWN = 0, WIN = 1, LOSS = 2 };

typedef struct solver {
    int n, cells;
    int nsub;       /* cell sets with at most n-1 cells */
    uint32_t *sub;  /* index -> cell set */
    int32_t *index; /* cell set -> index, or -1 */
    uint32_t npos;  /* nsub * nsub * 2 */
} solver;

static uint32_t pos_id(const solver *sv, int b, int w, int tm)
{
    return ((uint32_t)b * (uint32_t)sv->nsub + (uint32_t)w) * 2u + (uint32_t)tm;
}

static void pos_ref(const solver *sv, uint32_t id, ref_pos *p)
{
    int tm = (int)(id & 1), w = (int)((id >> 1) % (uint32_t)sv->nsub),
        b = (int)((id >> 1) / (uint32_t)sv->nsub);
    ref_init(p, sv->n, 1 << 30);
    for (int c = 0; c < sv->cells; c++) {
        char ch = (sv->sub[b] >> c) & 1 ? 'B' : (sv->sub[w] >> c) & 1 ? 'W' : '.';
        p->cell[c / sv->n][c % sv->n] = ch;
    }
    p->to_move = tm;
}

static uint32_t ref_id(const solver *sv, const ref_pos *p)
{
    uint32_t b = 0, w = 0;
    for (int c = 0; c < sv->cells; c++) {
        char ch = p->cell[c / sv->n][c % sv->n];
        b |= (uint32_t)(ch == 'B') << c;
        w |= (uint32_t)(ch == 'W') << c;
    }
    return pos_id(sv, sv->index[b], sv->index[w], p->to_move);
}

static int solve(int n, int *plies, uint32_t *decided, uint32_t *total)
{
    solver sv = {.n = n, .cells = n * n};
    sv.index = malloc(sizeof(int32_t) << sv.cells);
    sv.sub = malloc(sizeof(uint32_t) << sv.cells);
    assert_true(sv.index && sv.sub);
    for (uint32_t m = 0; m < (1u << sv.cells); m++) {
        sv.index[m] = -1;
        if (__builtin_popcount(m) <= n - 1) {
            sv.index[m] = sv.nsub;
            sv.sub[sv.nsub++] = m;
        }
    }
    sv.npos = (uint32_t)sv.nsub * (uint32_t)sv.nsub * 2u;
    uint8_t *val = calloc(sv.npos, 1);
    uint16_t *left = calloc(sv.npos, sizeof(uint16_t)); /* undecided successors */
    uint32_t *dist = calloc(sv.npos, sizeof(uint32_t));
    uint32_t *deg = calloc((size_t)sv.npos + 1, sizeof(uint32_t)); /* predecessor CSR */
    uint32_t *queue = malloc(sv.npos * sizeof(uint32_t));
    assert_true(val && left && dist && deg && queue);
    uint32_t qh = 0, qt = 0;

    /* successors of every valid position; count predecessors */
    int32_t mv[64];
    for (uint32_t id = 0; id < sv.npos; id++) {
        ref_pos p;
        pos_ref(&sv, id, &p);
        uint32_t b = sv.sub[(id >> 1) / (uint32_t)sv.nsub],
                 w = sv.sub[(id >> 1) % (uint32_t)sv.nsub];
        if (b & w) {
            val[id] = 0xff; /* two cars on a cell: not a position */
            continue;
        }
        int k = ref_moves(&p, p.to_move, mv);
        left[id] = (uint16_t)k;
        if (k == 0) { /* no move on your own turn: you win */
            val[id] = WIN;
            queue[qt++] = id;
        }
        for (int i = 0; i < k; i++) {
            ref_pos c = p;
            ref_apply(&c, mv[i]);
            deg[ref_id(&sv, &c) + 1]++;
        }
    }
    for (uint32_t i = 0; i < sv.npos; i++)
        deg[i + 1] += deg[i];
    uint32_t *pred = malloc(((size_t)deg[sv.npos] + 1) * sizeof(uint32_t));
    uint32_t *fill = calloc(sv.npos, sizeof(uint32_t));
    assert_true(pred && fill);
    for (uint32_t id = 0; id < sv.npos; id++) {
        if (val[id] == 0xff)
            continue;
        ref_pos p;
        pos_ref(&sv, id, &p);
        int k = ref_moves(&p, p.to_move, mv);
        for (int i = 0; i < k; i++) {
            ref_pos c = p;
            ref_apply(&c, mv[i]);
            uint32_t to = ref_id(&sv, &c);
            pred[deg[to] + fill[to]++] = id;
        }
    }
    /* propagate: a position with a move into a loss (for the opponent) is a
     * win; one whose moves all lead to wins (for the opponent) is a loss */
    while (qh < qt) {
        uint32_t q = queue[qh++];
        for (uint32_t e = deg[q]; e < deg[q + 1]; e++) {
            uint32_t p = pred[e];
            if (val[p] != UNKNOWN)
                continue;
            if (val[q] == LOSS) {
                val[p] = WIN;
                dist[p] = dist[q] + 1;
                queue[qt++] = p;
            } else if (--left[p] == 0) {
                val[p] = LOSS;
                dist[p] = dist[q] + 1;
                queue[qt++] = p;
            }
        }
    }
    ref_pos start;
    ref_init(&start, n, 1 << 30);
    uint32_t sid = ref_id(&sv, &start);
    int v = val[sid] == WIN ? 1 : val[sid] == LOSS ? -1 : 0;
    *plies = v ? (int)dist[sid] : 0;
    *decided = qt;
    *total = 0;
    for (uint32_t id = 0; id < sv.npos; id++)
        *total += val[id] != 0xff;
    free(sv.index);
    free(sv.sub);
    free(val);
    free(left);
    free(dist);
    free(deg);
    free(queue);
    free(pred);
    free(fill);
    return v;
}

/* The engine's own view, under its ply cap: memoised negamax over
 * (cars, side, plies). Value for the side to move: 1, 0, -1. */
#define MEMO_BITS 22
typedef struct memo_entry {
    uint64_t key; /* 0 = empty */
    int8_t value;
} memo_entry;

static int engine_negamax(const dodgem_state *s, memo_entry *memo, uint64_t *nodes)
{
    int cp = dodgem_game.current_player(s);
    if (cp == ENG_TERMINAL) {
        double r[2];
        dodgem_game.returns(s, r);
        int me = s->to_move; /* the seat that would move next */
        return r[me] == 1 ? 1 : r[me] == 0 ? -1 : 0;
    }
    uint64_t key = ((uint64_t)s->car[0] << 34) ^ ((uint64_t)s->car[1] << 9) ^
                   ((uint64_t)s->plies << 1) ^ s->to_move;
    key = key * 0x9e3779b97f4a7c15ULL + 1;
    uint64_t h = key >> (64 - MEMO_BITS);
    while (memo[h].key && memo[h].key != key)
        h = (h + 1) & ((1u << MEMO_BITS) - 1);
    if (memo[h].key == key)
        return memo[h].value;
    (*nodes)++;
    eng_move mv[16];
    int n = dodgem_game.legal_moves(s, mv), best = -2;
    for (int i = 0; i < n && best < 1; i++) {
        dodgem_state c = *s;
        dodgem_game.apply(&c, mv[i]);
        int v = -engine_negamax(&c, memo, nodes);
        if (v > best)
            best = v;
    }
    /* re-probe: the recursion may have filled the table */
    h = key >> (64 - MEMO_BITS);
    while (memo[h].key && memo[h].key != key)
        h = (h + 1) & ((1u << MEMO_BITS) - 1);
    memo[h].key = key;
    memo[h].value = (int8_t)best;
    return best;
}

static void test_solve_3x3(void **unused)
{
    (void)unused;
    int plies;
    uint32_t decided, total;
    int v = solve(3, &plies, &decided, &total);
    print_message("      3x3 retrograde: %u positions, %u decided; start: %s in %d plies\n", total,
                  decided,
                  v > 0   ? "Black wins"
                  : v < 0 ? "White wins"
                          : "draw",
                  plies);
    assert_int_equal(v, 1); /* the first player wins */
    assert_true(plies > 0 && plies <= 100);

    /* the engine under the default cap agrees: Black forces a win */
    memo_entry *memo = calloc(1u << MEMO_BITS, sizeof *memo);
    assert_non_null(memo);
    dodgem_state s;
    engine_init(&s, 3, 100);
    uint64_t nodes = 0;
    int ev = engine_negamax(&s, memo, &nodes);
    print_message("      3x3 engine negamax under the 100-ply cap: %s (%llu positions)\n",
                  ev > 0   ? "Black wins"
                  : ev < 0 ? "White wins"
                           : "draw",
                  (unsigned long long)nodes);
    assert_int_equal(ev, 1);
    /* and with a cap shorter than the forced win, it cannot be a win */
    memset(memo, 0, sizeof *memo << MEMO_BITS);
    engine_init(&s, 3, plies - 1);
    assert_true(engine_negamax(&s, memo, &nodes) < 1);
    free(memo);
}

static void test_solve_4x4(void **unused)
{
    (void)unused;
    if (!slow_mode)
        skip();
    int plies;
    uint32_t decided, total;
    int v = solve(4, &plies, &decided, &total);
    print_message("      4x4 retrograde: %u positions, %u decided; start: %s\n", total, decided,
                  v > 0   ? "Black wins"
                  : v < 0 ? "White wins"
                          : "draw");
    assert_int_equal(v, 0); /* a draw with perfect play (desJardins) */
}

int main(int argc, char **argv)
{
    slow_mode = argc > 1 && strcmp(argv[1], "--slow") == 0;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_start),        cmocka_unit_test(test_exits_and_directions),
        cmocka_unit_test(test_blocked),      cmocka_unit_test(test_ply_cap),
        cmocka_unit_test(test_notation),     cmocka_unit_test(test_perft),
        cmocka_unit_test(test_random_games), cmocka_unit_test(test_solve_3x3),
        cmocka_unit_test(test_solve_4x4),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
