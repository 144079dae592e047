/*
 * test_reversi.c — the bitboard Reversi engine checked against a slow,
 * obviously-correct reference written here.
 *
 * The reference keeps the board as an 8x8 array of characters and finds
 * flips by walking each of the eight directions square by square, the way
 * one would explain the rules to a person. Nothing in it shares code or
 * tricks with engine/reversi/reversi.c (no shifts, no masks), so the two
 * agreeing over thousands of random games is real evidence.
 *
 * What is checked:
 *   - the start position and Black's four opening moves;
 *   - flips and move masks on random (not necessarily reachable) boards,
 *     which stress the edge wrap-around of the shift-and-mask code;
 *   - 2,000 random games, every position: the disc sets, the side to move,
 *     the legal move set, the flips of every empty square, passes (a player
 *     without a move must pass; a pass is a move), the end of the game
 *     (neither side can move), scores and returns, and the text of every move;
 *   - hand-built positions: a forced pass, a game ending with empty squares,
 *     a line that would wrap from the h-file to the a-file;
 *   - perft from the start (a pass is one ply, a finished game is a leaf),
 *     depths 1-9 with the engine, 1-7 with the reference, and the shortest
 *     possible game; depths 10 and 11 run only with --deep (label `slow`).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine/eng.h"
#include "engine/reversi/reversi.h"

/* ---- the reference ---------------------------------------------------- */

/* A position as a person would draw it. */
typedef struct ref_pos {
    char sq[8][8]; /* [rank][file], rank 0 = "1", file 0 = "a": '.', 'X' Black, 'O' White */
    int to_move;   /* 0 Black, 1 White */
    int over;      /* 1 once neither side can move */
    int plies;     /* moves played, passes included */
} ref_pos;

static const int dir_file[8] = {1, 1, 0, -1, -1, -1, 0, 1};
static const int dir_rank[8] = {0, 1, 1, 1, 0, -1, -1, -1};

static char ref_colour(int player)
{
    return player == 0 ? 'X' : 'O';
}

static int on_board(int file, int rank)
{
    return file >= 0 && file < 8 && rank >= 0 && rank < 8;
}

static void ref_empty(ref_pos *p)
{
    memset(p, 0, sizeof *p);
    for (int r = 0; r < 8; r++)
        for (int f = 0; f < 8; f++)
            p->sq[r][f] = '.';
}

static void ref_init(ref_pos *p)
{
    ref_empty(p);
    p->sq[3][3] = 'O'; /* d4 */
    p->sq[4][4] = 'O'; /* e5 */
    p->sq[4][3] = 'X'; /* d5 */
    p->sq[3][4] = 'X'; /* e4 */
}

/* Mark in flip[][] the discs `player` would turn over by playing (file,
 * rank); returns how many. The square itself is not checked for being empty. */
static int ref_flips(const ref_pos *p, int player, int file, int rank, char flip[8][8])
{
    char me = ref_colour(player), them = ref_colour(1 - player);
    int total = 0;
    memset(flip, 0, 64);
    for (int d = 0; d < 8; d++) {
        int f = file + dir_file[d], r = rank + dir_rank[d], run = 0;
        while (on_board(f, r) && p->sq[r][f] == them) {
            run++;
            f += dir_file[d];
            r += dir_rank[d];
        }
        if (run > 0 && on_board(f, r) && p->sq[r][f] == me) {
            /* walk back over the run and mark it */
            for (int k = 1; k <= run; k++)
                flip[rank + k * dir_rank[d]][file + k * dir_file[d]] = 1;
            total += run;
        }
    }
    return total;
}

/* Legal squares (file + 8 * rank, ascending) of `player`; returns how many. */
static int ref_legal(const ref_pos *p, int player, int *out)
{
    char flip[8][8];
    int n = 0;
    for (int sq = 0; sq < 64; sq++) {
        int f = sq % 8, r = sq / 8;
        if (p->sq[r][f] == '.' && ref_flips(p, player, f, r, flip) > 0)
            out[n++] = sq;
    }
    return n;
}

/* Play square `sq` (or REV_PASS) for the side to move. */
static void ref_play(ref_pos *p, int sq)
{
    int me = p->to_move;
    if (sq != REV_PASS) {
        char flip[8][8];
        int f = sq % 8, r = sq / 8;
        ref_flips(p, me, f, r, flip);
        for (int rr = 0; rr < 8; rr++)
            for (int ff = 0; ff < 8; ff++)
                if (flip[rr][ff])
                    p->sq[rr][ff] = ref_colour(me);
        p->sq[r][f] = ref_colour(me);
    }
    p->to_move = 1 - me;
    p->plies++;
    int moves[64];
    if (ref_legal(p, 0, moves) == 0 && ref_legal(p, 1, moves) == 0)
        p->over = 1;
}

static int ref_count(const ref_pos *p, char c)
{
    int n = 0;
    for (int r = 0; r < 8; r++)
        for (int f = 0; f < 8; f++)
            n += p->sq[r][f] == c;
    return n;
}

/* The reference board as two bitboards, for comparison with the engine. */
static uint64_t ref_bits(const ref_pos *p, char c)
{
    uint64_t b = 0;
    for (int r = 0; r < 8; r++)
        for (int f = 0; f < 8; f++)
            if (p->sq[r][f] == c)
                b |= 1ULL << (f + 8 * r);
    return b;
}

static void ref_from_bits(ref_pos *p, uint64_t black, uint64_t white, int to_move)
{
    ref_empty(p);
    for (int sq = 0; sq < 64; sq++) {
        if (black >> sq & 1)
            p->sq[sq / 8][sq % 8] = 'X';
        else if (white >> sq & 1)
            p->sq[sq / 8][sq % 8] = 'O';
    }
    p->to_move = to_move;
}

static uint64_t flip_bits(char flip[8][8])
{
    uint64_t b = 0;
    for (int r = 0; r < 8; r++)
        for (int f = 0; f < 8; f++)
            if (flip[r][f])
                b |= 1ULL << (f + 8 * r);
    return b;
}

/* ---- helpers ------------------------------------------------------------ */

static void name_of(int sq, char out[3])
{
    out[0] = (char)('a' + sq % 8);
    out[1] = (char)('1' + sq / 8);
    out[2] = 0;
}

static void init_state(rev_state *s)
{
    eng_rules rules;
    eng_rules_default(&rev_game, &rules);
    char err[128] = "";
    assert_int_equal(eng_init(&rev_game, s, &rules, err, sizeof err), 0);
}

static int cmp_move(const void *a, const void *b)
{
    eng_move x = *(const eng_move *)a, y = *(const eng_move *)b;
    return (x > y) - (x < y);
}

/* Fail with the position drawn, so a mismatch can be read. */
__attribute__((format(printf, 3, 4))) static void fail_at(const ref_pos *p, const rev_state *s,
                                                          const char *fmt, ...)
{
    char msg[256], board[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    rev_game.render(s, board, sizeof board);
    print_error("%s\nreference (ply %d, %s to move):\n", msg, p->plies, p->to_move ? "O" : "X");
    for (int r = 7; r >= 0; r--)
        print_error("%d %.8s\n", r + 1, p->sq[r]);
    print_error("engine:\n%s", board);
    fail();
}

/* Compare everything observable about an engine state with the reference. */
static void compare(const rev_state *s, const ref_pos *p)
{
    if (s->disc[REV_BLACK] != ref_bits(p, 'X') || s->disc[REV_WHITE] != ref_bits(p, 'O'))
        fail_at(p, s, "disc sets differ");
    if (s->disc[0] & s->disc[1])
        fail_at(p, s, "a square holds two discs");
    if (s->plies != p->plies)
        fail_at(p, s, "plies %d, reference %d", s->plies, p->plies);
    if (!!s->over != p->over)
        fail_at(p, s, "over %d, reference %d", s->over, p->over);
    int cp = rev_game.current_player(s);
    int want = p->over ? ENG_TERMINAL : p->to_move;
    if (cp != want)
        fail_at(p, s, "current_player %d, reference %d", cp, want);
    if (!p->over && s->to_move != p->to_move)
        fail_at(p, s, "to_move %d, reference %d", s->to_move, p->to_move);
    double sc[2];
    rev_game.scores(s, sc);
    if (sc[0] != ref_count(p, 'X') || sc[1] != ref_count(p, 'O'))
        fail_at(p, s, "scores %g/%g", sc[0], sc[1]);
    double e0 = rev_game.evaluate(s, 0), e1 = rev_game.evaluate(s, 1);
    if (e0 != -e1)
        fail_at(p, s, "evaluate is not zero-sum: %g vs %g", e0, e1);
}

/* ---- the start position ---------------------------------------------- */

static void test_registered(void **unused)
{
    (void)unused;
    assert_ptr_equal(eng_find_game("reversi"), &rev_game);
    assert_int_equal(rev_game.min_players, 2);
    assert_int_equal(rev_game.max_players, 2);
    assert_int_equal(rev_game.max_chance, 0);
    assert_true(rev_game.state_size == sizeof(rev_state));
}

static void test_start_position(void **unused)
{
    (void)unused;
    rev_state s;
    init_state(&s);
    ref_pos p;
    ref_init(&p);
    compare(&s, &p);
    /* White d4 e5, Black d5 e4 */
    assert_true(s.disc[REV_WHITE] == ((1ULL << rev_square_of("d4")) | (1ULL << rev_square_of("e5"))));
    assert_true(s.disc[REV_BLACK] == ((1ULL << rev_square_of("d5")) | (1ULL << rev_square_of("e4"))));
    assert_int_equal(rev_game.current_player(&s), REV_BLACK);

    eng_move mv[64];
    int n = rev_game.legal_moves(&s, mv);
    assert_int_equal(n, 4);
    qsort(mv, (size_t)n, sizeof mv[0], cmp_move);
    static const char *const want[4] = {"d3", "c4", "f5", "e6"}; /* ascending square order */
    for (int i = 0; i < 4; i++) {
        char txt[ENG_MOVE_STR_MAX];
        assert_int_equal(mv[i], rev_square_of(want[i]));
        assert_int_equal(rev_game.move_to_str(&s, mv[i], txt, sizeof txt), 2);
        assert_string_equal(txt, want[i]);
        /* each flips exactly one disc */
        assert_int_equal(__builtin_popcountll(rev_flips(s.disc[0], s.disc[1], mv[i])), 1);
    }
    /* White would have d6 c5 f4 e3 */
    uint64_t w = rev_moves_mask(s.disc[REV_WHITE], s.disc[REV_BLACK]);
    assert_true(w == ((1ULL << rev_square_of("d6")) | (1ULL << rev_square_of("c5")) |
                      (1ULL << rev_square_of("f4")) | (1ULL << rev_square_of("e3"))));

    char board[1024];
    int len = rev_game.render(&s, board, sizeof board);
    assert_true(len > 0 && (size_t)len == strlen(board));
    assert_non_null(strstr(board, "4 . . * O X . . .\n")); /* c4 legal, d4 white, e4 black */
    assert_non_null(strstr(board, "5 . . . X O * . .\n")); /* f5 legal */
}

/* ---- move text -------------------------------------------------------- */

static void test_move_text(void **unused)
{
    (void)unused;
    rev_state s;
    init_state(&s);
    char txt[ENG_MOVE_STR_MAX], want[3], upper[3];
    for (int sq = 0; sq < 64; sq++) {
        name_of(sq, want);
        assert_int_equal(rev_game.move_to_str(&s, sq, txt, sizeof txt), 2);
        assert_string_equal(txt, want);
        assert_int_equal(rev_square_of(want), sq);
        upper[0] = (char)(want[0] - 'a' + 'A');
        upper[1] = want[1];
        upper[2] = 0;
        assert_int_equal(rev_square_of(upper), sq);
    }
    assert_int_equal(rev_square_of("a1"), 0);
    assert_int_equal(rev_square_of("h1"), 7);
    assert_int_equal(rev_square_of("a8"), 56);
    assert_int_equal(rev_square_of("d3"), 19);
    static const char *const bad[] = {"", "a", "a0", "a9", "i1", "`1", "d33", "3d", "pass", "zzz"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(rev_square_of(bad[i]), -1);
    assert_int_equal(rev_square_of(NULL), -1);

    assert_int_equal(rev_game.move_to_str(&s, REV_PASS, txt, sizeof txt), 4);
    assert_string_equal(txt, "pass");
    /* too small a buffer, or not a move: an error, never an overflow */
    char small[8];
    memset(small, '#', sizeof small);
    assert_true(rev_game.move_to_str(&s, 19, small, 2) < 0);
    assert_true(small[2] == '#');
    assert_int_equal(rev_game.move_to_str(&s, 19, small, 3), 2);
    assert_string_equal(small, "d3");
    assert_true(rev_game.move_to_str(&s, REV_PASS, small, 4) < 0);
    assert_int_equal(rev_game.move_to_str(&s, REV_PASS, small, 5), 4);
    assert_true(rev_game.move_to_str(&s, -1, txt, sizeof txt) < 0);
    assert_true(rev_game.move_to_str(&s, 65, txt, sizeof txt) < 0);

    /* parsing at the start: legal, illegal, malformed */
    eng_move m = -7;
    assert_int_equal(rev_game.move_from_str(&s, "d3", &m), 0);
    assert_int_equal(m, 19);
    assert_int_equal(rev_game.move_from_str(&s, "E6", &m), 0);
    assert_int_equal(m, rev_square_of("e6"));
    assert_int_equal(rev_game.move_from_str(&s, "a1", &m), ENG_EILLEGAL_MOVE);
    assert_int_equal(rev_game.move_from_str(&s, "d4", &m), ENG_EILLEGAL_MOVE); /* occupied */
    assert_int_equal(rev_game.move_from_str(&s, "pass", &m), ENG_EILLEGAL_MOVE);
    assert_int_equal(rev_game.move_from_str(&s, "", &m), ENG_EBAD_MOVE);
    assert_int_equal(rev_game.move_from_str(&s, "zzz", &m), ENG_EBAD_MOVE);
    assert_int_equal(rev_game.move_from_str(&s, "d3 ", &m), ENG_EBAD_MOVE);
    assert_int_equal(rev_game.move_from_str(&s, "i9", &m), ENG_EBAD_MOVE);
}

/* ---- random boards: flips and masks, edges included ------------------- */

static void test_random_boards(void **unused)
{
    (void)unused;
    eng_rng rng;
    eng_rng_seed(&rng, 0x5eed0001);
    long checked = 0;
    for (int b = 0; b < 20000; b++) {
        /* density from sparse to nearly full */
        uint32_t fill = 10 + eng_rng_below(&rng, 85);
        uint64_t black = 0, white = 0;
        for (int sq = 0; sq < 64; sq++) {
            if (eng_rng_below(&rng, 100) >= fill)
                continue;
            if (eng_rng_below(&rng, 2))
                black |= 1ULL << sq;
            else
                white |= 1ULL << sq;
        }
        for (int player = 0; player < 2; player++) {
            uint64_t me = player ? white : black, opp = player ? black : white;
            ref_pos p;
            ref_from_bits(&p, black, white, player);
            uint64_t want_mask = 0;
            for (int sq = 0; sq < 64; sq++) {
                if (p.sq[sq / 8][sq % 8] != '.')
                    continue;
                char flip[8][8];
                ref_flips(&p, player, sq % 8, sq / 8, flip);
                uint64_t want = flip_bits(flip);
                uint64_t got = rev_flips(me, opp, sq);
                if (got != want)
                    fail_msg("board %d: %s on %c%c flips %016llx, reference %016llx (black %016llx "
                             "white %016llx)",
                             b, player ? "White" : "Black", 'a' + sq % 8, '1' + sq / 8,
                             (unsigned long long)got, (unsigned long long)want,
                             (unsigned long long)black, (unsigned long long)white);
                if (want)
                    want_mask |= 1ULL << sq;
                checked++;
            }
            uint64_t got_mask = rev_moves_mask(me, opp);
            if (got_mask != want_mask)
                fail_msg("board %d: %s moves %016llx, reference %016llx (black %016llx white %016llx)",
                         b, player ? "White" : "Black", (unsigned long long)got_mask,
                         (unsigned long long)want_mask, (unsigned long long)black,
                         (unsigned long long)white);
        }
    }
    print_message("      %ld empty squares on 20000 random boards agree\n", checked);
}

/* ---- random games against the reference ------------------------------- */

static void test_random_games(void **unused)
{
    (void)unused;
    const int games = 2000;
    eng_rng rng;
    eng_rng_seed(&rng, 20240601);
    long positions = 0, passes = 0, early_ends = 0, results[3] = {0, 0, 0};
    int longest = 0;
    for (int gi = 0; gi < games; gi++) {
        rev_state s;
        init_state(&s);
        ref_pos p;
        ref_init(&p);
        for (;;) {
            compare(&s, &p);
            positions++;
            eng_move eng_mv[64];
            int ref_mv[64];
            int ne = rev_game.legal_moves(&s, eng_mv);
            if (ne > rev_game.max_moves)
                fail_at(&p, &s, "%d legal moves > max_moves", ne);
            if (p.over) {
                if (ne != 0)
                    fail_at(&p, &s, "%d legal moves in a finished game", ne);
                int b = ref_count(&p, 'X'), w = ref_count(&p, 'O');
                double ret[2];
                rev_game.returns(&s, ret);
                double want0 = b > w ? 1.0 : b < w ? 0.0 : 0.5;
                if (ret[0] != want0 || ret[1] != 1.0 - want0)
                    fail_at(&p, &s, "returns %g/%g for %d-%d", ret[0], ret[1], b, w);
                results[b > w ? 0 : b < w ? 1 : 2]++;
                if (b + w < 64)
                    early_ends++;
                break;
            }
            int nr = ref_legal(&p, p.to_move, ref_mv);
            int move;
            if (nr == 0) {
                /* the side to move has nothing: exactly one move, the pass */
                if (ne != 1 || eng_mv[0] != REV_PASS)
                    fail_at(&p, &s, "must pass, engine offers %d moves", ne);
                move = REV_PASS;
                passes++;
            } else {
                if (ne != nr)
                    fail_at(&p, &s, "engine has %d moves, reference %d", ne, nr);
                qsort(eng_mv, (size_t)ne, sizeof eng_mv[0], cmp_move);
                for (int i = 0; i < nr; i++)
                    if (eng_mv[i] != ref_mv[i])
                        fail_at(&p, &s, "move sets differ at %d: %d vs %d", i, eng_mv[i],
                                ref_mv[i]);
                move = ref_mv[eng_rng_below(&rng, (uint32_t)nr)];
            }
            /* every empty square flips what the reference flips; every
             * move's text parses back */
            uint64_t me = s.disc[s.to_move], opp = s.disc[!s.to_move];
            for (int sq = 0; sq < 64; sq++) {
                if (p.sq[sq / 8][sq % 8] != '.')
                    continue;
                char flip[8][8];
                ref_flips(&p, p.to_move, sq % 8, sq / 8, flip);
                if (rev_flips(me, opp, sq) != flip_bits(flip))
                    fail_at(&p, &s, "flips of %c%c differ", 'a' + sq % 8, '1' + sq / 8);
            }
            for (int i = 0; i < ne; i++) {
                char txt[ENG_MOVE_STR_MAX];
                eng_move back = -1;
                int len = rev_game.move_to_str(&s, eng_mv[i], txt, sizeof txt);
                if (eng_mv[i] == REV_PASS ? len != 4 || strcmp(txt, "pass") != 0 : len != 2)
                    fail_at(&p, &s, "text of move %d is '%s'", eng_mv[i], txt);
                if (rev_game.move_from_str(&s, txt, &back) != 0 || back != eng_mv[i])
                    fail_at(&p, &s, "'%s' does not parse back to %d", txt, eng_mv[i]);
            }
            /* the pass is legal only when forced */
            eng_move pm;
            int rc = rev_game.move_from_str(&s, "pass", &pm);
            if ((rc == 0) != (nr == 0))
                fail_at(&p, &s, "parsing 'pass' gives %d with %d moves", rc, nr);

            rev_game.apply(&s, move);
            ref_play(&p, move);
            if (p.plies > rev_game.max_plies)
                fail_at(&p, &s, "game longer than max_plies");
        }
        if (p.plies > longest)
            longest = p.plies;
    }
    print_message("      %d games, %ld positions, %ld passes, %ld ended with empty squares, "
                  "Black %ld White %ld draws %ld, longest %d plies\n",
                  games, positions, passes, early_ends, results[0], results[1], results[2],
                  longest);
    /* the sample must actually exercise the rare paths */
    assert_true(passes > 0);
    assert_true(early_ends > 0);
    assert_true(results[0] > 0 && results[1] > 0 && results[2] > 0);
}

/* ---- hand-built positions --------------------------------------------- */

static void set_position(rev_state *s, ref_pos *p, const char *black, const char *white,
                         int to_move)
{
    init_state(s);
    uint64_t b = 0, w = 0;
    char sq[3] = {0, 0, 0};
    for (const char *c = black; *c; c += 2) {
        sq[0] = c[0], sq[1] = c[1];
        b |= 1ULL << rev_square_of(sq);
    }
    for (const char *c = white; *c; c += 2) {
        sq[0] = c[0], sq[1] = c[1];
        w |= 1ULL << rev_square_of(sq);
    }
    s->disc[REV_BLACK] = b;
    s->disc[REV_WHITE] = w;
    s->to_move = (uint8_t)to_move;
    ref_from_bits(p, b, w, to_move);
}

static void test_forced_pass_and_early_end(void **unused)
{
    (void)unused;
    rev_state s;
    ref_pos p;
    /* Black b1 cannot outflank White a1 (the board ends); White can play c1. */
    set_position(&s, &p, "b1", "a1", REV_BLACK);
    compare(&s, &p);
    eng_move mv[64], m;
    assert_int_equal(rev_game.legal_moves(&s, mv), 1);
    assert_int_equal(mv[0], REV_PASS);
    assert_true(eng_is_legal(&rev_game, &s, REV_PASS));
    assert_false(eng_is_legal(&rev_game, &s, rev_square_of("c1")));
    assert_int_equal(rev_game.move_from_str(&s, "pass", &m), 0);
    assert_int_equal(m, REV_PASS);
    assert_int_equal(rev_game.move_from_str(&s, "c1", &m), ENG_EILLEGAL_MOVE);

    /* the pass is a move: a ply, the turn changes, the game goes on */
    rev_game.apply(&s, REV_PASS);
    ref_play(&p, REV_PASS);
    compare(&s, &p);
    assert_int_equal(s.plies, 1);
    assert_int_equal(rev_game.current_player(&s), REV_WHITE);
    assert_int_equal(rev_game.legal_moves(&s, mv), 1);
    assert_int_equal(mv[0], rev_square_of("c1"));

    /* White c1 wipes Black out: neither side can move, 61 squares empty */
    rev_game.apply(&s, mv[0]);
    ref_play(&p, mv[0]);
    compare(&s, &p);
    assert_int_equal(rev_game.current_player(&s), ENG_TERMINAL);
    assert_int_equal(rev_game.legal_moves(&s, mv), 0);
    assert_false(eng_is_legal(&rev_game, &s, REV_PASS));
    double sc[2], ret[2];
    rev_game.scores(&s, sc);
    rev_game.returns(&s, ret);
    assert_true(sc[0] == 0 && sc[1] == 3);
    assert_true(ret[0] == 0.0 && ret[1] == 1.0);

    /* the game also ends with discs of both colours left when neither side
     * can outflank anything: Black c1 takes b1; White's h8 is out of reach */
    set_position(&s, &p, "a1", "b1h8", REV_BLACK);
    assert_int_equal(rev_game.move_from_str(&s, "c1", &m), 0);
    rev_game.apply(&s, m);
    ref_play(&p, m);
    compare(&s, &p);
    assert_int_equal(rev_game.current_player(&s), ENG_TERMINAL);
    rev_game.scores(&s, sc);
    rev_game.returns(&s, ret);
    assert_true(sc[0] == 3 && sc[1] == 1);
    assert_true(ret[0] == 1.0 && ret[1] == 0.0);

    /* and as a draw: three discs each when it stops */
    set_position(&s, &p, "a1", "b1h8h6a8", REV_BLACK);
    assert_int_equal(rev_game.move_from_str(&s, "c1", &m), 0);
    rev_game.apply(&s, m);
    ref_play(&p, m);
    compare(&s, &p);
    assert_int_equal(rev_game.current_player(&s), ENG_TERMINAL);
    rev_game.scores(&s, sc);
    rev_game.returns(&s, ret);
    assert_true(sc[0] == 3 && sc[1] == 3);
    assert_true(ret[0] == 0.5 && ret[1] == 0.5);
}

static void test_no_wrap_across_edges(void **unused)
{
    (void)unused;
    /* Lines that would continue from the h-file onto the a-file one rank up
     * (or down) if shifts leaked across the edge. */
    static const struct {
        const char *black, *white, *square;
        int player;
    } cases[] = {
        {"a2", "h1", "g1", REV_BLACK}, /* east from g1: h1, then a2 if it wrapped */
        {"h1", "a2", "b2", REV_BLACK}, /* west from b2: a2, then h1 */
        {"a4", "h2", "g1", REV_BLACK}, /* north-east from g1: h2, then a4 */
        {"h2", "a2", "b1", REV_BLACK}, /* north-west from b1: a2, then h2 */
        {"a7", "h7", "g8", REV_BLACK}, /* south-east from g8: h7, then a7 */
        {"h5", "a7", "b8", REV_BLACK}, /* south-west from b8: a7, then h5 */
        {"h1", "a2", "b2", REV_WHITE}, /* White to move: nothing of its own beyond */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rev_state s;
        ref_pos p;
        set_position(&s, &p, cases[i].black, cases[i].white, cases[i].player);
        int pl = cases[i].player, sq = rev_square_of(cases[i].square);
        uint64_t me = s.disc[pl], opp = s.disc[!pl];
        char flip[8][8];
        assert_int_equal(ref_flips(&p, pl, sq % 8, sq / 8, flip), 0);
        assert_true(rev_flips(me, opp, sq) == 0);
        int mv[64];
        assert_int_equal(ref_legal(&p, pl, mv), 0);
        assert_true(rev_moves_mask(me, opp) == 0);
    }
    /* and a genuine edge line: Black a1, White b1..g1, Black plays h1 */
    rev_state s;
    ref_pos p;
    set_position(&s, &p, "a1", "b1c1d1e1f1g1", REV_BLACK);
    assert_true(rev_flips(s.disc[0], s.disc[1], rev_square_of("h1")) == 0x7eULL);
    assert_true(rev_moves_mask(s.disc[0], s.disc[1]) == 1ULL << rev_square_of("h1"));
}

/* ---- perft ------------------------------------------------------------- */

/* Leaves `depth` plies below s with the engine (a finished game is a leaf). */
static uint64_t perft(const rev_state *s, int depth)
{
    if (depth == 0 || rev_game.current_player(s) == ENG_TERMINAL)
        return 1;
    eng_move mv[64];
    int n = rev_game.legal_moves(s, mv);
    if (depth == 1)
        return (uint64_t)n;
    uint64_t total = 0;
    for (int i = 0; i < n; i++) {
        rev_state c = *s;
        rev_game.apply(&c, mv[i]);
        total += perft(&c, depth - 1);
    }
    return total;
}

/* Same count, every leaf visited, with finished games tallied by ply. */
static uint64_t perft_full(const rev_state *s, int depth, int ply, uint64_t *ended,
                           uint64_t *ended_black)
{
    if (rev_game.current_player(s) == ENG_TERMINAL) {
        ended[ply]++;
        if (__builtin_popcountll(s->disc[REV_WHITE]) == 0)
            ended_black[ply]++;
        return 1;
    }
    if (depth == 0)
        return 1;
    eng_move mv[64];
    int n = rev_game.legal_moves(s, mv);
    uint64_t total = 0;
    for (int i = 0; i < n; i++) {
        rev_state c = *s;
        rev_game.apply(&c, mv[i]);
        total += perft_full(&c, depth - 1, ply + 1, ended, ended_black);
    }
    return total;
}

static uint64_t ref_perft(const ref_pos *p, int depth)
{
    if (depth == 0 || p->over)
        return 1;
    int mv[64];
    int n = ref_legal(p, p->to_move, mv);
    if (n == 0) {
        mv[0] = REV_PASS;
        n = 1;
    }
    uint64_t total = 0;
    for (int i = 0; i < n; i++) {
        ref_pos c = *p;
        ref_play(&c, mv[i]);
        total += ref_perft(&c, depth - 1);
    }
    return total;
}

static const uint64_t perft_want[12] = {
    1, 4, 12, 56, 244, 1396, 8200, 55092, 390216, 3005288, 24571284, 212258800,
};

static void test_perft(void **unused)
{
    (void)unused;
    rev_state s;
    init_state(&s);
    for (int d = 1; d <= 8; d++)
        assert_int_equal(perft(&s, d), perft_want[d]);
    /* depth 9 visiting every leaf, which also finds the shortest games */
    uint64_t ended[16] = {0}, ended_black[16] = {0};
    assert_int_equal(perft_full(&s, 9, 0, ended, ended_black), perft_want[9]);
    /* No game can end before ply 9; the shortest games are Black wipe-outs
     * (13 Black discs, none White) after nine moves. */
    for (int ply = 0; ply < 9; ply++)
        assert_int_equal(ended[ply], 0);
    assert_true(ended[9] > 0);
    assert_int_equal(ended_black[9], ended[9]);
    print_message("      perft 1-9 match; %llu games end at ply 9, all Black wipe-outs\n",
                  (unsigned long long)ended[9]);
}

static void test_reference_perft(void **unused)
{
    (void)unused;
    ref_pos p;
    ref_init(&p);
    for (int d = 1; d <= 7; d++)
        assert_int_equal(ref_perft(&p, d), perft_want[d]);
}

static void test_perft_deep(void **unused)
{
    (void)unused;
    rev_state s;
    init_state(&s);
    for (int d = 10; d <= 11; d++) {
        uint64_t n = perft(&s, d);
        print_message("      perft %d = %llu\n", d, (unsigned long long)n);
        assert_int_equal(n, perft_want[d]);
    }
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--deep") == 0) {
        const struct CMUnitTest deep[] = {
            cmocka_unit_test(test_perft_deep),
        };
        return cmocka_run_group_tests_name("reversi_perft_deep", deep, NULL, NULL);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registered),
        cmocka_unit_test(test_start_position),
        cmocka_unit_test(test_move_text),
        cmocka_unit_test(test_random_boards),
        cmocka_unit_test(test_forced_pass_and_early_end),
        cmocka_unit_test(test_no_wrap_across_edges),
        cmocka_unit_test(test_random_games),
        cmocka_unit_test(test_reference_perft),
        cmocka_unit_test(test_perft),
    };
    return cmocka_run_group_tests_name("reversi", tests, NULL, NULL);
}
