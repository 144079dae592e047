/*
 * reversi.c — Reversi (Othello) 8x8 on bitboards, registered as "reversi".
 *
 * Standard rules: White on d4/e5, Black on d5/e4, Black (seat 0) moves
 * first; a move must outflank and flips every outflanked line; a player with
 * no legal move must pass, and a pass is a move (REV_PASS); the game ends
 * when neither player can move. Most discs wins; equal counts draw.
 *
 * Squares are numbered a1 = 0 ... h1 = 7, a2 = 8 ... h8 = 63 (file + 8*rank),
 * so "d3" is 19. Move generation and flipping use the usual shift-and-mask
 * over the eight directions. The slow, obviously-correct reference lives in
 * the tests (tests/engine/test_reversi.c) and checks this code.
 */
#include "reversi.h"

#include <stdio.h>
#include <string.h>

#define NOT_A 0xfefefefefefefefeULL /* every square except file a */
#define NOT_H 0x7f7f7f7f7f7f7f7fULL /* every square except file h */

/* Shift a set one step in direction d (0..7: E, W, N, S, NE, NW, SE, SW),
 * dropping what falls off the board. "N" is towards rank 8 (+8). */
static inline uint64_t shift(uint64_t b, int d)
{
    switch (d) {
    case 0: return (b << 1) & NOT_A;
    case 1: return (b >> 1) & NOT_H;
    case 2: return b << 8;
    case 3: return b >> 8;
    case 4: return (b << 9) & NOT_A;
    case 5: return (b << 7) & NOT_H;
    case 6: return (b >> 7) & NOT_A;
    default: return (b >> 9) & NOT_H;
    }
}

uint64_t rev_moves_mask(uint64_t me, uint64_t opp)
{
    uint64_t empty = ~(me | opp), moves = 0;
    for (int d = 0; d < 8; d++) {
        uint64_t x = shift(me, d) & opp;
        for (int i = 0; i < 5; i++)
            x |= shift(x, d) & opp;
        moves |= shift(x, d) & empty;
    }
    return moves;
}

uint64_t rev_flips(uint64_t me, uint64_t opp, int sq)
{
    uint64_t from = 1ULL << sq, flips = 0;
    for (int d = 0; d < 8; d++) {
        uint64_t line = 0, x = shift(from, d);
        while (x & opp) {
            line |= x;
            x = shift(x, d);
        }
        if (x & me)
            flips |= line;
    }
    return flips;
}

static void rev_init(void *st, const eng_rules *rules)
{
    rev_state *s = st;
    memset(s, 0, sizeof *s);
    s->rules = *rules;
    /* d4 = 27, e5 = 36 white; d5 = 35, e4 = 28 black */
    s->disc[REV_WHITE] = (1ULL << 27) | (1ULL << 36);
    s->disc[REV_BLACK] = (1ULL << 35) | (1ULL << 28);
    s->to_move = REV_BLACK;
}

static int rev_current_player(const void *st)
{
    const rev_state *s = st;
    return s->over ? ENG_TERMINAL : s->to_move;
}

/* What every state holds, hand-built test positions included (they may
 * leave the centre empty, or set a position neither side can move from
 * without ending the game): two players, one colour a square, the counters
 * in range. */
int rev_check(const rev_state *s, char *why, size_t cap)
{
    if (s->rules.players != 2 || s->to_move > 1 || s->over > 1 || s->plies > rev_game.max_plies)
        return eng_seterr(why, cap, ENG_EINTERNAL, "%d players, to move %d, over %d, %d plies",
                          s->rules.players, s->to_move, s->over, s->plies);
    if (s->disc[0] & s->disc[1])
        return eng_seterr(why, cap, ENG_EINTERNAL, "squares %#llx hold both colours",
                          (unsigned long long)(s->disc[0] & s->disc[1]));
    return 0;
}

#if ENG_CHECKS
/* The ENG_CHECKS hook at the top of apply (m >= 0) and legal_moves (m < 0):
 * the state's invariants, and apply's move legal. */
static void debug_check(const rev_state *s, eng_move m, const char *where)
{
    char why[160];
    if (rev_check(s, why, sizeof why) != 0)
        eng_check_failed("reversi", __FILE__, __LINE__, "%s: %s", where, why);
    if (m < 0)
        return;
    uint64_t mask = rev_moves_mask(s->disc[s->to_move], s->disc[!s->to_move]);
    if (s->over || (m == REV_PASS ? mask != 0 : m > 63 || !(mask >> m & 1)))
        eng_check_failed("reversi", __FILE__, __LINE__, "apply: move %d is not legal", (int)m);
}
#endif

static int rev_legal_moves(const void *st, eng_move *out)
{
    const rev_state *s = st;
#if ENG_CHECKS
    debug_check(s, -1, "legal_moves");
#endif
    if (s->over)
        return 0;
    uint64_t m = rev_moves_mask(s->disc[s->to_move], s->disc[!s->to_move]);
    if (!m) {
        out[0] = REV_PASS;
        return 1;
    }
    int n = 0;
    while (m) {
        out[n++] = __builtin_ctzll(m);
        m &= m - 1;
    }
    return n;
}

static int rev_chance_outcomes(const void *st, eng_move *out, double *prob)
{
    (void)st, (void)out, (void)prob;
    return 0;
}

static void rev_apply(void *st, eng_move m)
{
    rev_state *s = st;
#if ENG_CHECKS
    debug_check(s, m, "apply");
#endif
    int me = s->to_move, op = !me;
    if (m != REV_PASS) {
        uint64_t f = rev_flips(s->disc[me], s->disc[op], m);
        s->disc[me] |= f | (1ULL << m);
        s->disc[op] &= ~f;
    }
    s->to_move = (uint8_t)op;
    s->plies++;
    /* The game ends when neither side has a move. */
    if (!rev_moves_mask(s->disc[op], s->disc[me]) && !rev_moves_mask(s->disc[me], s->disc[op]))
        s->over = 1;
}

static void rev_scores(const void *st, double *out)
{
    const rev_state *s = st;
    out[0] = __builtin_popcountll(s->disc[0]);
    out[1] = __builtin_popcountll(s->disc[1]);
}

static void rev_returns(const void *st, double *out)
{
    const rev_state *s = st;
    int a = __builtin_popcountll(s->disc[0]), b = __builtin_popcountll(s->disc[1]);
    out[0] = a > b ? 1.0 : a < b ? 0.0 : 0.5;
    out[1] = 1.0 - out[0];
}

/* Heuristic: disc difference plus mobility and corners, in disc units. */
static double rev_evaluate(const void *st, int player)
{
    const rev_state *s = st;
    uint64_t me = s->disc[player], op = s->disc[!player];
    const uint64_t corners = 0x8100000000000081ULL;
    double v = __builtin_popcountll(me) - __builtin_popcountll(op);
    if (s->over)
        return v * 100.0;
    v += 2.0 * (__builtin_popcountll(rev_moves_mask(me, op)) -
                __builtin_popcountll(rev_moves_mask(op, me)));
    v += 10.0 * (__builtin_popcountll(me & corners) - __builtin_popcountll(op & corners));
    return v;
}

/* Named evaluations: the EvoMCTS paper's Reversi terminals (docs/evomcts.md):
 * discs, legal moves, corners of `player`. */
static const char *const rev_eval_names[] = {"ManCount", "Mobility", "CornerCount", NULL};

static double rev_evaluate_named(const void *st, int player, int which)
{
    const rev_state *s = st;
    uint64_t me = s->disc[player], op = s->disc[!player];
    switch (which) {
    case 0: return __builtin_popcountll(me);
    case 1: return s->over ? 0 : __builtin_popcountll(rev_moves_mask(me, op));
    case 2: return __builtin_popcountll(me & 0x8100000000000081ULL);
    }
    return 0.0;
}

/* The board as a grid: x is the file (a = 0), y the rank (1 = 0). */
static int rev_grid_cell(const void *st, int x, int y)
{
    const rev_state *s = st;
    if (x < 0 || y < 0 || x >= 8 || y >= 8)
        return ENG_GRID_OFF;
    uint64_t b = 1ULL << (x + 8 * y);
    return (s->disc[REV_BLACK] & b) ? REV_BLACK : (s->disc[REV_WHITE] & b) ? REV_WHITE : ENG_GRID_EMPTY;
}

static int rev_move_to_str(const void *st, eng_move m, char *buf, size_t cap)
{
    (void)st;
    int n;
    if (m == REV_PASS)
        n = snprintf(buf, cap, "pass");
    else if (m >= 0 && m < 64)
        n = snprintf(buf, cap, "%c%d", 'a' + (m & 7), 1 + (m >> 3));
    else
        return ENG_EINVAL;
    return n < 0 || (size_t)n >= cap ? ENG_EINVAL : n;
}

int rev_square_of(const char *s)
{
    if (!s || !s[0] || !s[1] || s[2])
        return -1;
    char f = s[0] >= 'A' && s[0] <= 'H' ? (char)(s[0] - 'A' + 'a') : s[0];
    if (f < 'a' || f > 'h' || s[1] < '1' || s[1] > '8')
        return -1;
    return (f - 'a') + 8 * (s[1] - '1');
}

static int rev_move_from_str(const void *st, const char *str, eng_move *m)
{
    eng_move mv;
    if (str && strcmp(str, "pass") == 0)
        mv = REV_PASS;
    else if ((mv = rev_square_of(str)) < 0)
        return ENG_EBAD_MOVE;
    if (!eng_is_legal(&rev_game, st, mv))
        return ENG_EILLEGAL_MOVE;
    *m = mv;
    return 0;
}

static int rev_render(const void *st, char *buf, size_t cap)
{
    const rev_state *s = st;
    eng_text t = eng_text_start(buf, cap);
    uint64_t legal = s->over ? 0 : rev_moves_mask(s->disc[s->to_move], s->disc[!s->to_move]);
    for (int r = 7; r >= 0; r--) {
        eng_textf(&t, "%d", r + 1);
        for (int f = 0; f < 8; f++) {
            uint64_t b = 1ULL << (f + 8 * r);
            char c = (s->disc[REV_BLACK] & b)   ? 'X'
                     : (s->disc[REV_WHITE] & b) ? 'O'
                     : (legal & b)              ? '*'
                                                : '.';
            eng_textf(&t, " %c", c);
        }
        eng_textf(&t, "\n");
    }
    eng_textf(&t, "  a b c d e f g h\n");
    /* P1 (seat 0) is black */
    eng_textf(&t, "P1 X (black) %d  P2 O (white) %d  %s\n", __builtin_popcountll(s->disc[0]),
              __builtin_popcountll(s->disc[1]),
              s->over                    ? "game over"
              : s->to_move == REV_BLACK ? "to play: P1 (X)"
                                        : "to play: P2 (O)");
    return (int)t.len;
}

const eng_game rev_game = {
    .name = "reversi",
    .title = "Reversi 8x8",
    .move_encoding = 1,
    .min_players = 2,
    .max_players = 2,
    .default_players = 2,
    .state_size = sizeof(rev_state),
    .max_moves = 60, /* never more moves than empty squares */
    .max_chance = 0,
    .max_plies = 120, /* 60 discs, and a pass is always followed by a disc */
    .turn_decisions = 1,
    .n_options = 0,
    .options = NULL,
    .init = rev_init,
    .current_player = rev_current_player,
    .legal_moves = rev_legal_moves,
    .chance_outcomes = rev_chance_outcomes,
    .apply = rev_apply,
    .scores = rev_scores,
    .returns = rev_returns,
    .evaluate = rev_evaluate,
    .move_to_str = rev_move_to_str,
    .move_from_str = rev_move_from_str,
    .render = rev_render,
    .eval_names = rev_eval_names,
    .evaluate_named = rev_evaluate_named,
    .grid_w = 8,
    .grid_h = 8,
    .grid_cell = rev_grid_cell,
};
