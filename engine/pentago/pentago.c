/*
 * pentago.c — Pentago-Twist 6x6 (McGill COMP 424), registered as
 * "pentago-twist".
 *
 * The rules (docs/rules.md): an empty 6x6 board of four 3x3 quadrants; White
 * (seat 0) moves first. A move places a piece of one's colour on an empty
 * cell and then MUST transform one quadrant (any of the four, empty or not):
 * rotate it 90 degrees clockwise, or flip it left <-> right. Only after the
 * twist is the board checked: five or more in a row — horizontally,
 * vertically or diagonally, 32 five-cell windows — wins; both players having
 * five at once is a draw; a full board (36 plies) without five is a draw.
 * Moves: 8 x the empty cells (288 at the start).
 *
 * The board is two 36-bit bitboards. The slow, obviously-correct reference
 * that checks this file (an array of cells, lines scanned cell by cell) lives
 * in tests/engine/test_pentago.c.
 *
 * Scores: 1 for the winner, 0 otherwise (a draw is 0-0). evaluate() is in
 * those units: +1/-1/0 at the end, strictly inside (-1, 1) before.
 */
#include "pentago.h"

#include <stdio.h>
#include <string.h>

/* The 32 five-cell windows: 12 horizontal, 12 vertical, 8 diagonal. */
static const uint64_t windows[32] = {
    0x00000001fULL, 0x00000003eULL, 0x0000007c0ULL, 0x000000f80ULL, 0x00001f000ULL, 0x00003e000ULL,
    0x0007c0000ULL, 0x000f80000ULL, 0x01f000000ULL, 0x03e000000ULL, 0x7c0000000ULL, 0xf80000000ULL,
    0x001041041ULL, 0x041041040ULL, 0x002082082ULL, 0x082082080ULL, 0x004104104ULL, 0x104104100ULL,
    0x008208208ULL, 0x208208200ULL, 0x010410410ULL, 0x410410400ULL, 0x020820820ULL, 0x820820800ULL,
    0x010204081ULL, 0x002108420ULL, 0x408102040ULL, 0x084210800ULL, 0x020408102ULL, 0x001084210ULL,
    0x810204080ULL, 0x042108400ULL,
};

/* The quadrant centres: the cells no twist ever moves. */
#define CENTRES ((1ULL << 7) | (1ULL << 10) | (1ULL << 25) | (1ULL << 28))

uint64_t pt_twist(uint64_t b, int q, int twist)
{
    int ox = (q & 1) * 3, oy = (q >> 1) * 3;
    uint64_t out = b;
    for (int cy = 0; cy < 3; cy++)
        out &= ~(7ULL << ((oy + cy) * PT_SIZE + ox));
    for (int cy = 0; cy < 3; cy++)
        for (int cx = 0; cx < 3; cx++) {
            if (!((b >> ((oy + cy) * PT_SIZE + ox + cx)) & 1))
                continue;
            /* clockwise on screen (y down): (cx, cy) -> (2 - cy, cx) */
            int nx = twist == PT_ROTATE ? 2 - cy : 2 - cx;
            int ny = twist == PT_ROTATE ? cx : cy;
            out |= 1ULL << ((oy + ny) * PT_SIZE + ox + nx);
        }
    return out;
}

bool pt_has_five(uint64_t b)
{
    for (int i = 0; i < 32; i++)
        if ((b & windows[i]) == windows[i])
            return true;
    return false;
}

static void pt_init(void *st, const eng_rules *rules)
{
    pt_state *s = st;
    memset(s, 0, sizeof *s);
    s->rules = *rules;
    s->to_move = PT_WHITE;
    s->result = PT_PLAYING;
}

static int pt_current_player(const void *st)
{
    const pt_state *s = st;
    return s->result != PT_PLAYING ? ENG_TERMINAL : s->to_move;
}

/* What every state holds, hand-built test positions included (any count of
 * each colour, set up with plies = pieces): two players, pieces on the
 * board, one a cell, one a ply. */
int pt_check(const pt_state *s, char *why, size_t cap)
{
    int w = __builtin_popcountll(s->stone[PT_WHITE]), b = __builtin_popcountll(s->stone[PT_BLACK]);
    if (s->rules.players != 2 || s->to_move > 1 || s->result < PT_PLAYING || s->result > PT_DRAW)
        return eng_seterr(why, cap, ENG_EINTERNAL, "%d players, to move %d, result %d",
                          s->rules.players, s->to_move, s->result);
    if (((s->stone[0] | s->stone[1]) & ~PT_BOARD) || (s->stone[0] & s->stone[1]))
        return eng_seterr(why, cap, ENG_EINTERNAL, "stones off the board or doubled");
    if (w + b != s->plies)
        return eng_seterr(why, cap, ENG_EINTERNAL, "%d white and %d black after %d plies", w, b,
                          s->plies);
    return 0;
}

#if ENG_CHECKS
/* The ENG_CHECKS hook at the top of apply (m >= 0) and legal_moves (m < 0):
 * the state's invariants, and apply's move legal. */
static void debug_check(const pt_state *s, eng_move m, const char *where)
{
    char why[160];
    if (pt_check(s, why, sizeof why) != 0)
        eng_check_failed("pentago-twist", __FILE__, __LINE__, "%s: %s", where, why);
    if (m >= 0 && (s->result != PT_PLAYING || m >= PT_CELLS * 8 ||
                   ((s->stone[0] | s->stone[1]) >> (m >> 3) & 1)))
        eng_check_failed("pentago-twist", __FILE__, __LINE__, "apply: move %d is not legal",
                         (int)m);
}
#endif

static int pt_legal_moves(const void *st, eng_move *out)
{
    const pt_state *s = st;
#if ENG_CHECKS
    debug_check(s, -1, "legal_moves");
#endif
    if (s->result != PT_PLAYING)
        return 0;
    int n = 0;
    for (uint64_t e = ~(s->stone[0] | s->stone[1]) & PT_BOARD; e; e &= e - 1) {
        int cell = __builtin_ctzll(e);
        for (int k = 0; k < 8; k++)
            out[n++] = cell * 8 + k;
    }
    return n;
}

static int pt_chance_outcomes(const void *st, eng_move *out, double *prob)
{
    (void)st, (void)out, (void)prob;
    return 0;
}

static void pt_apply(void *st, eng_move m)
{
    pt_state *s = st;
#if ENG_CHECKS
    debug_check(s, m, "apply");
#endif
    int cell = m >> 3, q = (m >> 1) & 3, t = m & 1;
    s->stone[s->to_move] |= 1ULL << cell;
    s->stone[0] = pt_twist(s->stone[0], q, t);
    s->stone[1] = pt_twist(s->stone[1], q, t);
    s->plies++;
    s->to_move = (uint8_t)!s->to_move;
    bool w = pt_has_five(s->stone[PT_WHITE]), b = pt_has_five(s->stone[PT_BLACK]);
    if (w && b)
        s->result = PT_DRAW;
    else if (w)
        s->result = PT_WHITE;
    else if (b)
        s->result = PT_BLACK;
    else if (s->plies >= PT_CELLS)
        s->result = PT_DRAW;
}

static eng_move pt_random_move(const void *st, eng_rng *rng)
{
    const pt_state *s = st;
    uint64_t e = ~(s->stone[0] | s->stone[1]) & PT_BOARD;
    uint32_t r = eng_rng_below(rng, 8u * (uint32_t)__builtin_popcountll(e));
    for (uint32_t k = r >> 3; k; k--)
        e &= e - 1; /* drop the lowest empty cells: the (r/8)-th is now lowest */
    return __builtin_ctzll(e) * 8 + (eng_move)(r & 7);
}

static void pt_scores(const void *st, double *out)
{
    const pt_state *s = st;
    out[0] = s->result == PT_WHITE ? 1.0 : 0.0;
    out[1] = s->result == PT_BLACK ? 1.0 : 0.0;
}

static void pt_returns(const void *st, double *out)
{
    const pt_state *s = st;
    out[0] = s->result == PT_WHITE ? 1.0 : s->result == PT_BLACK ? 0.0 : 0.5;
    out[1] = 1.0 - out[0];
}

/* Open-window weight by the pieces in it (a window holding no enemy piece). */
static const double open_weight[6] = {0, 1, 4, 16, 64, 256};

static double pt_evaluate(const void *st, int player)
{
    const pt_state *s = st;
    if (s->result != PT_PLAYING)
        return s->result == player ? 1.0 : s->result == PT_DRAW ? 0.0 : -1.0;
    uint64_t me = s->stone[player], op = s->stone[!player];
    double v = 0;
    for (int i = 0; i < 32; i++) {
        int a = __builtin_popcountll(me & windows[i]), b = __builtin_popcountll(op & windows[i]);
        if (!b)
            v += open_weight[a];
        if (!a)
            v -= open_weight[b];
    }
    v += 2.0 * (__builtin_popcountll(me & CENTRES) - __builtin_popcountll(op & CENTRES));
    double x = v / 64.0; /* squashed into (-1, 1): x / (1 + |x|) */
    return x / (1.0 + (x < 0 ? -x : x));
}

/* Named evaluations: the EvoMCTS terminal set we define for Pentago-Twist
 * (docs/evomcts.md). PosCount is the distance from a win: the fewest pieces
 * missing from any window free of enemy pieces (6 when every window is
 * blocked). CenterCount counts the four quadrant centres, the cells no twist
 * moves — Pentago's counterpart of Reversi's stable corners. */
static const char *const pt_eval_names[] = {"ManCount", "CenterCount", "PosCount", "Mobility",
                                            NULL};

static double pt_evaluate_named(const void *st, int player, int which)
{
    const pt_state *s = st;
    uint64_t me = s->stone[player], op = s->stone[!player];
    switch (which) {
    case 0: return __builtin_popcountll(me);
    case 1: return __builtin_popcountll(me & CENTRES);
    case 2: {
        int best = 6;
        for (int i = 0; i < 32; i++)
            if (!(op & windows[i])) {
                int missing = 5 - __builtin_popcountll(me & windows[i]);
                if (missing < best)
                    best = missing;
            }
        return best;
    }
    case 3: return s->result != PT_PLAYING ? 0 : 8 * __builtin_popcountll(~(me | op) & PT_BOARD);
    }
    return 0.0;
}

static int pt_grid_cell(const void *st, int x, int y)
{
    const pt_state *s = st;
    if (x < 0 || y < 0 || x >= PT_SIZE || y >= PT_SIZE)
        return ENG_GRID_OFF;
    int b = y * PT_SIZE + x;
    return (s->stone[0] >> b) & 1 ? 0 : (s->stone[1] >> b) & 1 ? 1 : ENG_GRID_EMPTY;
}

static int pt_move_to_str(const void *st, eng_move m, char *buf, size_t cap)
{
    (void)st;
    if (m < 0 || m >= PT_CELLS * 8)
        return ENG_EINVAL;
    int cell = m >> 3;
    int k = snprintf(buf, cap, "%d %d %d %c", cell % PT_SIZE, cell / PT_SIZE, (m >> 1) & 3,
                     (m & 1) == PT_ROTATE ? 'R' : 'F');
    return k < 0 || (size_t)k >= cap ? ENG_EINVAL : k;
}

static int pt_move_from_str(const void *st, const char *str, eng_move *m)
{
    /* exactly "x y Q T": digits, single spaces, T one of R F */
    if (!str || strlen(str) != 7 || str[1] != ' ' || str[3] != ' ' || str[5] != ' ')
        return ENG_EBAD_MOVE;
    int x = str[0] - '0', y = str[2] - '0', q = str[4] - '0';
    int t = str[6] == 'R' ? PT_ROTATE : str[6] == 'F' ? PT_FLIP : -1;
    if (x < 0 || x >= PT_SIZE || y < 0 || y >= PT_SIZE || q < 0 || q > 3 || t < 0)
        return ENG_EBAD_MOVE;
    eng_move mv = pt_move(x, y, q, t);
    if (!eng_is_legal(&pt_game, st, mv))
        return ENG_EILLEGAL_MOVE;
    *m = mv;
    return 0;
}

static int pt_render(const void *st, char *buf, size_t cap)
{
    const pt_state *s = st;
    eng_text t = eng_text_start(buf, cap);
    eng_textf(&t, "   0 1 2   3 4 5\n");
    for (int y = 0; y < PT_SIZE; y++) {
        if (y == 3)
            eng_textf(&t, "   ------+------\n");
        eng_textf(&t, "%d ", y);
        for (int x = 0; x < PT_SIZE; x++) {
            int c = pt_grid_cell(s, x, y);
            eng_textf(&t, "%s%c", x == 3 ? " | " : " ",
                      c == PT_WHITE ? 'W' : c == PT_BLACK ? 'B' : '.');
        }
        eng_textf(&t, "\n");
    }
    const char *status = s->result == PT_PLAYING
                             ? (s->to_move == PT_WHITE ? "W to move" : "B to move")
                         : s->result == PT_DRAW  ? "draw"
                         : s->result == PT_WHITE ? "W (white) wins"
                                                 : "B (black) wins";
    eng_textf(&t, "quadrants 0 1 / 2 3; ply %d of 36, %s\n", s->plies, status);
    return (int)t.len;
}

const eng_game pt_game = {
    .name = "pentago-twist",
    .move_encoding = 1,
    .title = "Pentago-Twist",
    .min_players = 2,
    .max_players = 2,
    .default_players = 2,
    .state_size = sizeof(pt_state),
    .max_moves = 8 * PT_CELLS, /* 288: 8 twists per empty cell, at the start */
    .max_chance = 0,
    .max_plies = PT_CELLS, /* one piece per ply, the board fills after 36 */
    .turn_decisions = 1, /* the placement and its twist are one move */
    .n_options = 0,
    .options = NULL,
    .init = pt_init,
    .current_player = pt_current_player,
    .legal_moves = pt_legal_moves,
    .chance_outcomes = pt_chance_outcomes,
    .apply = pt_apply,
    .scores = pt_scores,
    .returns = pt_returns,
    .evaluate = pt_evaluate,
    .move_to_str = pt_move_to_str,
    .move_from_str = pt_move_from_str,
    .render = pt_render,
    .random_move = pt_random_move,
    .eval_names = pt_eval_names,
    .evaluate_named = pt_evaluate_named,
    .grid_w = PT_SIZE,
    .grid_h = PT_SIZE,
    .grid_cell = pt_grid_cell,
};
