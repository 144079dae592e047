/*
 * test_pentago.c — Pentago-Twist (engine/pentago/) against a slow,
 * obviously-correct reference written here from the rules alone: a 6x6
 * array of characters, quadrants copied out, rotated or mirrored as
 * matrices and copied back, five-in-a-row found by walking from every cell
 * in four directions.
 *
 *   - perft from the start at depths 1-3 (a finished game is a leaf), engine
 *     and reference counted separately, and pinned; perft at depths 1-3 from
 *     random middle-game positions, where wins and draws occur;
 *   - thousands of random games replayed move by move in both: the same
 *     legal moves in the same order, the same board after every move, the
 *     same end and winner, the same named evaluations;
 *   - rules on hand-built positions: the twist is mandatory and comes before
 *     the check (a five made by the twist wins, a five the twist breaks does
 *     not), both five is a draw, a full board is a draw, empty quadrants may
 *     be twisted;
 *   - notation: "x y Q T" round trips; bad strings are refused.
 *
 * `test_pentago --slow` adds depth-4 perft from the middle-game positions.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine/pentago/pentago.h"

static bool slow_mode;

/* ---- the reference ------------------------------------------------------------ */

typedef struct ref_pos {
    char b[6][6]; /* [row y][column x]: '.', 'W' (seat 0) or 'B' (seat 1) */
    int to_move;
    int plies;
    int result; /* -1 playing, 0/1 winner, 2 draw */
} ref_pos;

static void ref_init(ref_pos *p)
{
    memset(p->b, '.', sizeof p->b);
    p->to_move = 0;
    p->plies = 0;
    p->result = -1;
}

/* Moves: every empty cell (row-major), then quadrant 0..3, rotate then flip. */
static int ref_moves(const ref_pos *p, int32_t *out)
{
    int n = 0;
    if (p->result >= 0)
        return 0;
    for (int y = 0; y < 6; y++)
        for (int x = 0; x < 6; x++)
            if (p->b[y][x] == '.')
                for (int q = 0; q < 4; q++)
                    for (int t = 0; t < 2; t++)
                        out[n++] = (y * 6 + x) * 8 + q * 2 + t;
    return n;
}

/* Rotate quadrant q clockwise (t = 0) or mirror it left <-> right (t = 1),
 * as a 3x3 matrix: clockwise, new[i][j] = old[2-j][i]; mirror,
 * new[i][j] = old[i][2-j]. */
static void ref_twist(ref_pos *p, int q, int t)
{
    int r0 = (q / 2) * 3, c0 = (q % 2) * 3;
    char old[3][3], nw[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            old[i][j] = p->b[r0 + i][c0 + j];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            nw[i][j] = t == 0 ? old[2 - j][i] : old[i][2 - j];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            p->b[r0 + i][c0 + j] = nw[i][j];
}

/* Five or more of c in a row, walking from every cell east, south,
 * south-east and south-west. */
static bool ref_five(const ref_pos *p, char c)
{
    static const int dx[4] = {1, 0, 1, -1}, dy[4] = {0, 1, 1, 1};
    for (int y = 0; y < 6; y++)
        for (int x = 0; x < 6; x++)
            for (int d = 0; d < 4; d++) {
                int k = 0, cx = x, cy = y;
                while (cx >= 0 && cx < 6 && cy < 6 && p->b[cy][cx] == c) {
                    k++;
                    cx += dx[d];
                    cy += dy[d];
                }
                if (k >= 5)
                    return true;
            }
    return false;
}

static void ref_apply(ref_pos *p, int32_t m)
{
    int cell = m / 8, q = (m % 8) / 2, t = m % 2;
    p->b[cell / 6][cell % 6] = p->to_move == 0 ? 'W' : 'B';
    ref_twist(p, q, t);
    p->plies++;
    p->to_move = 1 - p->to_move;
    bool w = ref_five(p, 'W'), b = ref_five(p, 'B');
    if (w && b)
        p->result = 2;
    else if (w)
        p->result = 0;
    else if (b)
        p->result = 1;
    else if (p->plies == 36)
        p->result = 2;
}

static void assert_same(const pt_state *s, const ref_pos *p, const char *what)
{
    for (int y = 0; y < 6; y++)
        for (int x = 0; x < 6; x++) {
            int g = pt_game.grid_cell(s, x, y);
            char c = p->b[y][x];
            int want = c == 'W' ? 0 : c == 'B' ? 1 : ENG_GRID_EMPTY;
            if (g != want)
                fail_msg("%s: cell (%d,%d) is %d in the engine, '%c' in the reference", what, x, y,
                         g, c);
        }
    int cp = pt_game.current_player(s);
    assert_int_equal(cp, p->result >= 0 ? ENG_TERMINAL : p->to_move);
    assert_int_equal(s->result, p->result);
    assert_int_equal(s->plies, p->plies);
}

/* ---- perft -------------------------------------------------------------------- */

/* Leaves at `depth` (a finished game is a leaf), counting finished games
 * in *ends; `bulk` counts the last ply's moves without playing them (then
 * games finished by the last ply are not in *ends). */
static uint64_t perft(const pt_state *s, int depth, uint64_t *ends, bool bulk)
{
    if (pt_game.current_player(s) == ENG_TERMINAL) {
        ends[0]++;
        return 1;
    }
    if (depth == 0)
        return 1;
    eng_move mv[288];
    int n = pt_game.legal_moves(s, mv);
    if (bulk && depth == 1)
        return (uint64_t)n;
    uint64_t total = 0;
    for (int i = 0; i < n; i++) {
        pt_state c = *s;
        pt_game.apply(&c, mv[i]);
        total += perft(&c, depth - 1, ends, bulk);
    }
    return total;
}

static uint64_t ref_perft(const ref_pos *p, int depth, bool bulk)
{
    if (depth == 0 || p->result >= 0)
        return 1;
    int32_t mv[288];
    int n = ref_moves(p, mv);
    if (bulk && depth == 1)
        return (uint64_t)n;
    uint64_t total = 0;
    for (int i = 0; i < n; i++) {
        ref_pos c = *p;
        ref_apply(&c, mv[i]);
        total += ref_perft(&c, depth - 1, bulk);
    }
    return total;
}

static void test_perft_start(void **unused)
{
    (void)unused;
    /* no five is possible in three plies: the counts are 288, 288*280,
     * 288*280*272, but each is counted, not assumed */
    static const uint64_t want[4] = {1, 288, 80640, 21934080};
    pt_state s;
    eng_rules r;
    eng_rules_default(&pt_game, &r);
    pt_game.init(&s, &r);
    ref_pos p;
    ref_init(&p);
    for (int d = 1; d <= 3; d++) {
        uint64_t ends = 0, e = perft(&s, d, &ends, true), rf = ref_perft(&p, d, true);
        print_message("      perft %d = %llu (reference %llu)\n", d, (unsigned long long)e,
                      (unsigned long long)rf);
        assert_true(e == want[d] && rf == want[d] && ends == 0);
    }
}

/* A random position after `plies` plies (the game still on), seed `seed`. */
static bool random_position(uint64_t seed, int plies, pt_state *s, ref_pos *p)
{
    eng_rules r;
    eng_rules_default(&pt_game, &r);
    pt_game.init(s, &r);
    ref_init(p);
    eng_rng rng;
    eng_rng_seed(&rng, seed);
    for (int k = 0; k < plies; k++) {
        if (pt_game.current_player(s) == ENG_TERMINAL)
            return false;
        eng_move m = eng_random_move(&pt_game, s, &rng);
        pt_game.apply(s, m);
        ref_apply(p, m);
    }
    return pt_game.current_player(s) != ENG_TERMINAL;
}

static void test_perft_middle(void **unused)
{
    (void)unused;
    int depth = slow_mode ? 4 : 3, positions = 0;
    uint64_t total_ends = 0;
    for (uint64_t seed = 1; positions < (slow_mode ? 12 : 6); seed++) {
        pt_state s;
        ref_pos p;
        int plies = 18 + (int)(seed % 12); /* 18..29 pieces: wins are near */
        if (!random_position(seed, plies, &s, &p))
            continue;
        positions++;
        for (int d = 1; d <= depth; d++) {
            if (d == 4 && plies < 26)
                continue; /* keep the slow run to minutes */
            uint64_t ends = 0, e = perft(&s, d, &ends, false), rf = ref_perft(&p, d, false);
            if (e != rf)
                fail_msg("seed %llu after %d plies, perft %d: engine %llu, reference %llu",
                         (unsigned long long)seed, plies, d, (unsigned long long)e,
                         (unsigned long long)rf);
            total_ends += ends;
        }
    }
    print_message("      %d middle-game positions, perft 1-%d equal; %llu finished games among "
                  "the leaves\n",
                  positions, depth, (unsigned long long)total_ends);
    assert_true(total_ends > 0); /* the win and draw checks were exercised */
}

/* ---- random games -------------------------------------------------------------- */

/* Reference PosCount: the fewest pieces `c` misses in a five-cell line free
 * of the other colour (6 when there is none). */
static int ref_distance(const ref_pos *p, char c)
{
    static const int dx[4] = {1, 0, 1, -1}, dy[4] = {0, 1, 1, 1};
    char other = c == 'W' ? 'B' : 'W';
    int best = 6;
    for (int y = 0; y < 6; y++)
        for (int x = 0; x < 6; x++)
            for (int d = 0; d < 4; d++) {
                int ex = x + 4 * dx[d], ey = y + 4 * dy[d];
                if (ex < 0 || ex >= 6 || ey >= 6)
                    continue;
                int mine = 0;
                bool blocked = false;
                for (int k = 0; k < 5; k++) {
                    char v = p->b[y + k * dy[d]][x + k * dx[d]];
                    mine += v == c;
                    blocked |= v == other;
                }
                if (!blocked && 5 - mine < best)
                    best = 5 - mine;
            }
    return best;
}

static void test_random_games(void **unused)
{
    (void)unused;
    int results[3] = {0, 0, 0};
    int games = 1500;
    for (int g = 0; g < games; g++) {
        pt_state s;
        ref_pos p;
        eng_rules r;
        eng_rules_default(&pt_game, &r);
        pt_game.init(&s, &r);
        ref_init(&p);
        eng_rng rng;
        eng_rng_seed(&rng, 77000 + (uint64_t)g);
        char what[64];
        for (;;) {
            snprintf(what, sizeof what, "game %d ply %d", g, p.plies);
            assert_same(&s, &p, what);
            for (int pl = 0; pl < 2; pl++) {
                char c = pl == 0 ? 'W' : 'B';
                int men = 0, centres = 0;
                for (int y = 0; y < 6; y++)
                    for (int x = 0; x < 6; x++) {
                        men += p.b[y][x] == c;
                        centres += p.b[y][x] == c && (x % 3 == 1) && (y % 3 == 1);
                    }
                assert_true(pt_game.evaluate_named(&s, pl, 0) == men);
                assert_true(pt_game.evaluate_named(&s, pl, 1) == centres);
                assert_true(pt_game.evaluate_named(&s, pl, 2) == ref_distance(&p, c));
            }
            if (p.result >= 0)
                break;
            eng_move a[288];
            int32_t b[288];
            int na = pt_game.legal_moves(&s, a), nb = ref_moves(&p, b);
            if (na != nb || memcmp(a, b, (size_t)na * sizeof a[0]) != 0)
                fail_msg("%s: %d legal moves, reference %d", what, na, nb);
            assert_int_equal(na, 8 * (36 - p.plies));
            eng_move m = a[eng_rng_below(&rng, (uint32_t)na)];
            pt_game.apply(&s, m);
            ref_apply(&p, m);
        }
        double sc[2], ret[2];
        pt_game.scores(&s, sc);
        pt_game.returns(&s, ret);
        if (p.result == 2)
            assert_true(sc[0] == 0 && sc[1] == 0 && ret[0] == 0.5 && ret[1] == 0.5);
        else
            assert_true(sc[p.result] == 1 && ret[p.result] == 1 && ret[1 - p.result] == 0);
        results[p.result]++;
    }
    print_message("      %d random games: White %d, Black %d, draws %d\n", games, results[0],
                  results[1], results[2]);
    assert_true(results[0] > 0 && results[1] > 0 && results[2] > 0);
}

/* ---- hand-built positions ----------------------------------------------------------- */

/* Engine state from a picture: 6 rows of 6 characters (W, B, .). */
static void from_rows(pt_state *s, const char *const rows[6], int to_move)
{
    eng_rules r;
    eng_rules_default(&pt_game, &r);
    pt_game.init(s, &r);
    for (int y = 0; y < 6; y++)
        for (int x = 0; x < 6; x++) {
            if (rows[y][x] == 'W')
                s->stone[0] |= 1ULL << (y * 6 + x);
            else if (rows[y][x] == 'B')
                s->stone[1] |= 1ULL << (y * 6 + x);
        }
    s->plies = (uint8_t)(__builtin_popcountll(s->stone[0] | s->stone[1]));
    s->to_move = (uint8_t)to_move;
}

static eng_move parse(const pt_state *s, const char *text)
{
    eng_move m = -1;
    int rc = pt_game.move_from_str(s, text, &m);
    if (rc != 0)
        fail_msg("'%s' refused (%d)", text, rc);
    return m;
}

static void test_twists(void **unused)
{
    (void)unused;
    pt_state s;
    eng_rules r;
    eng_rules_default(&pt_game, &r);
    pt_game.init(&s, &r);
    eng_move mv[288];
    assert_int_equal(pt_game.legal_moves(&s, mv), 288);
    /* a piece on (0,0) and quadrant 0 rotated clockwise: it lands on (2,0) */
    pt_game.apply(&s, parse(&s, "0 0 0 R"));
    assert_int_equal(pt_game.grid_cell(&s, 2, 0), PT_WHITE);
    assert_int_equal(pt_game.grid_cell(&s, 0, 0), ENG_GRID_EMPTY);
    /* Black on (0,1), quadrant 0 flipped: (0,1) -> (2,1), (2,0) -> (0,0) */
    pt_game.apply(&s, parse(&s, "0 1 0 F"));
    assert_int_equal(pt_game.grid_cell(&s, 2, 1), PT_BLACK);
    assert_int_equal(pt_game.grid_cell(&s, 0, 0), PT_WHITE);
    /* quadrant 3: (3,3) rotated clockwise goes to (5,3); the centre stays */
    pt_game.apply(&s, parse(&s, "3 3 3 R"));
    assert_int_equal(pt_game.grid_cell(&s, 5, 3), PT_WHITE);
    pt_game.apply(&s, parse(&s, "4 4 3 R"));
    assert_int_equal(pt_game.grid_cell(&s, 4, 4), PT_BLACK);
    /* twisting an empty quadrant is a legal move, and changes nothing there */
    pt_game.apply(&s, parse(&s, "1 4 1 F"));
    assert_int_equal(pt_game.grid_cell(&s, 1, 4), PT_WHITE);
    assert_int_equal(pt_game.legal_moves(&s, mv), 8 * 31);
    /* pt_twist four times (rotate) or twice (flip) is the identity */
    uint64_t b = s.stone[0] | (s.stone[1] << 1);
    for (int q = 0; q < 4; q++) {
        uint64_t x = b & PT_BOARD;
        assert_true(
            pt_twist(pt_twist(pt_twist(pt_twist(x, q, PT_ROTATE), q, PT_ROTATE), q, PT_ROTATE), q,
                     PT_ROTATE) == x);
        assert_true(pt_twist(pt_twist(x, q, PT_FLIP), q, PT_FLIP) == x);
    }
}

/* Apply m to a copy of s and to the reference built from the same rows;
 * both must agree on the result, which is returned. */
static int play_checked(const pt_state *s, const char *const rows[6], const char *text,
                        pt_state *out)
{
    *out = *s;
    eng_move m = parse(out, text);
    pt_game.apply(out, m);
    ref_pos p;
    ref_init(&p);
    for (int y = 0; y < 6; y++)
        for (int x = 0; x < 6; x++)
            p.b[y][x] = rows[y][x];
    p.to_move = s->to_move;
    p.plies = s->plies;
    ref_apply(&p, m);
    assert_same(out, &p, text);
    return out->result;
}

static void test_five_after_twist(void **unused)
{
    (void)unused;
    pt_state s, c;
    /* White has four in row 0 (x 0..3). */
    static const char *const four[6] = {
        "WWWW..", "BB.B..", "......", "......", "....B.", "......",
    };
    from_rows(&s, four, PT_WHITE);
    /* (4,0) and a twist of the empty quadrant 2: five, White wins */
    assert_int_equal(play_checked(&s, four, "4 0 2 R", &c), PT_WHITE);
    double sc[2];
    pt_game.scores(&c, sc);
    assert_true(sc[0] == 1 && sc[1] == 0);
    assert_true(pt_game.evaluate(&c, 0) == 1.0 && pt_game.evaluate(&c, 1) == -1.0);
    /* (4,0) and a clockwise rotation of quadrant 0: its top row becomes its
     * right column, row 0 reads . B W W W .: no five, the game goes on */
    assert_int_equal(play_checked(&s, four, "4 0 0 R", &c), PT_PLAYING);
    assert_int_equal(pt_game.current_player(&c), PT_BLACK);
    assert_int_equal(pt_game.grid_cell(&c, 2, 2), PT_WHITE); /* (2,0) went to (2,2) */

    /* A five made by the twist alone: rotating quadrant 0 turns row 0
     * (x 0..2) into column 2 (y 0..2), which with (2,3) and (2,4) is five. */
    static const char *const vertical[6] = {
        "WWW...", "......", "......", "..W...", "..W...", "B.BB.B",
    };
    from_rows(&s, vertical, PT_WHITE);
    assert_int_equal(play_checked(&s, vertical, "5 0 0 R", &c), PT_WHITE);
    /* the same piece with the flip of quadrant 0 makes nothing */
    assert_int_equal(play_checked(&s, vertical, "5 0 0 F", &c), PT_PLAYING);

    /* A five the twist breaks: White's row 1 holds x 1..4; placing (0,1)
     * makes five, but rotating quadrant 0 then turns x 0..2 of row 1 into
     * column 1: not a win. Flipping quadrant 0 keeps the row: a win. */
    static const char *const row1[6] = {
        "......", ".WWWW.", "......", "......", "B.B...", "...B..",
    };
    from_rows(&s, row1, PT_WHITE);
    assert_int_equal(play_checked(&s, row1, "0 1 0 R", &c), PT_PLAYING);
    assert_int_equal(play_checked(&s, row1, "0 1 0 F", &c), PT_WHITE);
    assert_int_equal(play_checked(&s, row1, "5 1 2 F", &c), PT_WHITE); /* x 1..5 */
}

static void test_draws(void **unused)
{
    (void)unused;
    pt_state s, c;
    /* One flip completes both rows: White's row 0 and Black's row 1 each
     * miss x 3 and hold x 5; flipping quadrant 1 mirrors x 3 <-> x 5 in rows
     * 0..2, so both read five from x 0 to 4: a draw. White places
     * harmlessly on (0,5) first. (10 pieces: White to move.) */
    static const char *const both[6] = {
        "WWW.WW", "BBB.BB", "......", "......", "......", "......",
    };
    from_rows(&s, both, PT_WHITE);
    assert_int_equal(s.plies, 10);
    assert_int_equal(play_checked(&s, both, "0 5 1 F", &c), PT_DRAW);
    double ret[2], sc[2];
    pt_game.returns(&c, ret);
    pt_game.scores(&c, sc);
    assert_true(ret[0] == 0.5 && ret[1] == 0.5 && sc[0] == 0 && sc[1] == 0);
    assert_true(pt_game.evaluate(&c, 0) == 0.0 && pt_game.evaluate(&c, 1) == 0.0);
    /* the same piece with a rotation of quadrant 1 completes nothing */
    assert_int_equal(play_checked(&s, both, "0 5 1 R", &c), PT_PLAYING);
    /* and placing on (3,0) with an empty-quadrant twist gives White alone */
    assert_int_equal(play_checked(&s, both, "3 0 2 R", &c), PT_WHITE);

    /* A full board: 35 pieces without five, Black to place the last one. */
    static const char *const full[6] = {
        "WWBBWW", "BBWWBB", "WWBBWW", "BBWWBB", "WWBBWW", "BBWWB.",
    };
    from_rows(&s, full, PT_BLACK);
    assert_int_equal(s.plies, 35);
    eng_move mv[288];
    assert_int_equal(pt_game.legal_moves(&s, mv), 8);
    int endings[3] = {0, 0, 0};
    for (int i = 0; i < 8; i++) {
        char text[ENG_MOVE_STR_MAX];
        pt_game.move_to_str(&s, mv[i], text, sizeof text);
        int r = play_checked(&s, full, text, &c);
        assert_int_equal(pt_game.current_player(&c), ENG_TERMINAL);
        assert_true(r == PT_DRAW || r == PT_WHITE || r == PT_BLACK);
        endings[r]++;
    }
    print_message("      the last cell's 8 moves: %d White wins, %d Black wins, %d draws\n",
                  endings[0], endings[1], endings[2]);
    assert_true(endings[2] > 0); /* a full board without five is a draw */
}

static void test_notation(void **unused)
{
    (void)unused;
    pt_state s;
    eng_rules r;
    eng_rules_default(&pt_game, &r);
    pt_game.init(&s, &r);
    char buf[ENG_MOVE_STR_MAX];
    eng_move mv[288];
    int n = pt_game.legal_moves(&s, mv);
    for (int i = 0; i < n; i++) {
        assert_int_equal(pt_game.move_to_str(&s, mv[i], buf, sizeof buf), 7);
        assert_int_equal(parse(&s, buf), mv[i]);
    }
    assert_int_equal(parse(&s, "2 3 1 R"), pt_move(2, 3, 1, PT_ROTATE));
    assert_int_equal(parse(&s, "5 5 3 F"), pt_move(5, 5, 3, PT_FLIP));
    static const char *const bad[] = {"",        "2 3 1",    "2 3 1 r", "2 3 4 R",
                                      "6 0 0 R", "0 6 0 R",  "2 3 1 X", "2  3 1 R",
                                      "23 1 R",  "2 3 1 R ", "-1 0 0 R"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        eng_move m = 777;
        if (pt_game.move_from_str(&s, bad[i], &m) != ENG_EBAD_MOVE)
            fail_msg("'%s' not refused as bad_move", bad[i]);
        assert_int_equal(m, 777);
    }
    pt_game.apply(&s, parse(&s, "2 3 1 R"));
    eng_move m;
    assert_int_equal(pt_game.move_from_str(&s, "2 3 0 F", &m), ENG_EILLEGAL_MOVE); /* occupied */
    assert_int_equal(pt_game.move_to_str(&s, 288, buf, sizeof buf), ENG_EINVAL);
}

int main(int argc, char **argv)
{
    slow_mode = argc > 1 && strcmp(argv[1], "--slow") == 0;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_twists),       cmocka_unit_test(test_five_after_twist),
        cmocka_unit_test(test_draws),        cmocka_unit_test(test_notation),
        cmocka_unit_test(test_perft_start),  cmocka_unit_test(test_perft_middle),
        cmocka_unit_test(test_random_games),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
