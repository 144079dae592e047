/*
 * dodgem.c — Dodgem n x n (n = 3, 4, 5), registered as "dodgem".
 *
 * The rules (docs/rules.md, as in the EvoMCTS paper, after Berlekamp, Conway
 * and Guy): each player has n-1 cars; Black's start on the left column (rows
 * 1..n-1) and drive east, north or south; White's start on the top row
 * (columns 1..n-1) and drive south, west or east; never backwards. A move
 * takes one car one step onto an empty cell, or off the board by a forward
 * move from the far edge. Black moves first. The player who has no legal
 * move on their own turn — all cars gone, or every car blocked — WINS: so
 * leaving the opponent without a move loses. Games can cycle, so the rule
 * `max_plies` (default 100) ends a game that reaches it as a draw.
 *
 * The board is two bitboards (bit y*n+x). Moves are (cell * 4 + direction);
 * the slow, obviously-correct reference that checks this file lives in
 * tests/engine/test_dodgem.c.
 *
 * Scores: 1 for the winner, 0 otherwise (a draw is 0-0). evaluate() is in
 * those units: +1/-1/0 at the end, and in between a value strictly inside
 * (-1, 1) growing with the opponent's remaining distance minus one's own.
 */
#include "dodgem.h"

#include <stdio.h>
#include <string.h>

static const char dir_letter[4] = {'N', 'E', 'S', 'W'};

/* Step from (x, y) in dir: the new cell, or -1 off the board. */
static inline int step(int n, int x, int y, int dir)
{
    switch (dir) {
    case DODGEM_N: y--; break;
    case DODGEM_E: x++; break;
    case DODGEM_S: y++; break;
    default: x--; break;
    }
    if (x < 0 || y < 0 || x >= n || y >= n)
        return -1;
    return y * n + x;
}

/* The directions a player's cars may take, forward first. */
static const int dirs_of[2][3] = {
    {DODGEM_E, DODGEM_N, DODGEM_S}, /* Black: forward is east */
    {DODGEM_S, DODGEM_W, DODGEM_E}, /* White: forward is south */
};

/* Is the move of the car on `cell` in `dir` legal for `player` (who owns it)? */
static inline bool car_move_ok(const dodgem_state *s, int player, int cell, int dir)
{
    int n = s->n, x = cell % n, y = cell / n;
    int to = step(n, x, y, dir);
    if (to < 0)
        return dir == dirs_of[player][0]; /* off the board: forward only */
    return !(((s->car[0] | s->car[1]) >> to) & 1u);
}

int dodgem_moves_of(const dodgem_state *s, int player, int32_t *out)
{
    int cnt = 0;
    for (uint32_t m = s->car[player]; m; m &= m - 1) {
        int cell = __builtin_ctz(m);
        /* ascending direction order (N, E, S, W) keeps the list sorted */
        for (int d = 0; d < 4; d++) {
            if (d == (player == DODGEM_BLACK ? DODGEM_W : DODGEM_N))
                continue; /* backwards */
            if (car_move_ok(s, player, cell, d))
                out[cnt++] = cell * 4 + d;
        }
    }
    return cnt;
}

int dodgem_distance(const dodgem_state *s, int player)
{
    int n = s->n, dist = 0;
    for (uint32_t m = s->car[player]; m; m &= m - 1) {
        int cell = __builtin_ctz(m);
        dist += player == DODGEM_BLACK ? n - cell % n : n - cell / n;
    }
    return dist;
}

static void dodgem_init(void *st, const eng_rules *rules)
{
    dodgem_state *s = st;
    memset(s, 0, sizeof *s);
    s->rules = *rules;
    int n = rules->opt[DODGEM_OPT_SIZE];
    s->n = (uint8_t)n;
    s->cap = (uint16_t)rules->opt[DODGEM_OPT_MAX_PLIES];
    for (int i = 1; i < n; i++) {
        s->car[DODGEM_BLACK] |= 1u << (i * n); /* (0, i) */
        s->car[DODGEM_WHITE] |= 1u << i;       /* (i, 0) */
    }
    s->to_move = DODGEM_BLACK;
    s->result = DODGEM_PLAYING;
}

static int dodgem_current_player(const void *st)
{
    const dodgem_state *s = st;
    return s->result != DODGEM_PLAYING ? ENG_TERMINAL : s->to_move;
}

/* What every state holds, hand-built test positions included: the rules'
 * size and cap, two players, at most n - 1 cars each on the board, one a
 * cell, the result in range and the ply count within the cap. */
int dodgem_check(const dodgem_state *s, char *why, size_t cap)
{
    int n = s->n;
    if (n < DODGEM_MIN_N || n > DODGEM_MAX_N || n != s->rules.opt[DODGEM_OPT_SIZE] ||
        s->cap != s->rules.opt[DODGEM_OPT_MAX_PLIES] || s->rules.players != 2 || s->to_move > 1)
        return eng_seterr(why, cap, ENG_EINTERNAL, "size %d, cap %d, %d players, to move %d", n,
                          s->cap, s->rules.players, s->to_move);
    uint32_t board = (1u << (n * n)) - 1;
    if ((s->car[0] | s->car[1]) & ~board || (s->car[0] & s->car[1]) ||
        __builtin_popcount(s->car[0]) > n - 1 || __builtin_popcount(s->car[1]) > n - 1)
        return eng_seterr(why, cap, ENG_EINTERNAL, "cars %#x and %#x on a %dx%d board",
                          s->car[0], s->car[1], n, n);
    if (s->plies > s->cap || s->result < DODGEM_PLAYING || s->result > DODGEM_DRAW)
        return eng_seterr(why, cap, ENG_EINTERNAL, "result %d after %d plies of %d", s->result,
                          s->plies, s->cap);
    return 0;
}

#if ENG_CHECKS
/* The ENG_CHECKS hook at the top of apply (m >= 0) and legal_moves (m < 0):
 * the state's invariants, and apply's move legal. */
static void debug_check(const dodgem_state *s, eng_move m, const char *where)
{
    char why[160];
    if (dodgem_check(s, why, sizeof why) != 0)
        eng_check_failed("dodgem", __FILE__, __LINE__, "%s: %s", where, why);
    if (m < 0)
        return;
    int32_t moves[12];
    int k = s->result == DODGEM_PLAYING ? dodgem_moves_of(s, s->to_move, moves) : 0;
    bool ok = false;
    for (int i = 0; i < k; i++)
        ok |= moves[i] == m;
    if (!ok)
        eng_check_failed("dodgem", __FILE__, __LINE__, "apply: move %d is not legal", (int)m);
}
#endif

static int dodgem_legal_moves(const void *st, eng_move *out)
{
    const dodgem_state *s = st;
#if ENG_CHECKS
    debug_check(s, -1, "legal_moves");
#endif
    if (s->result != DODGEM_PLAYING)
        return 0;
    return dodgem_moves_of(s, s->to_move, out);
}

static int dodgem_chance_outcomes(const void *st, eng_move *out, double *prob)
{
    (void)st, (void)out, (void)prob;
    return 0;
}

/* Does `player` have at least one legal move? */
static bool can_move(const dodgem_state *s, int player)
{
    for (uint32_t m = s->car[player]; m; m &= m - 1) {
        int cell = __builtin_ctz(m);
        for (int k = 0; k < 3; k++)
            if (car_move_ok(s, player, cell, dirs_of[player][k]))
                return true;
    }
    return false;
}

static void dodgem_apply(void *st, eng_move m)
{
    dodgem_state *s = st;
#if ENG_CHECKS
    debug_check(s, m, "apply");
#endif
    int me = s->to_move, n = s->n;
    int cell = m >> 2, dir = m & 3;
    int to = step(n, cell % n, cell / n, dir);
    s->car[me] &= ~(1u << cell);
    if (to >= 0)
        s->car[me] |= 1u << to;
    s->to_move = (uint8_t)!me;
    s->plies++;
    /* The player to move without a move wins; else the cap draws. */
    if (!can_move(s, s->to_move))
        s->result = (int8_t)s->to_move;
    else if (s->plies >= s->cap)
        s->result = DODGEM_DRAW;
}

static void dodgem_scores(const void *st, double *out)
{
    const dodgem_state *s = st;
    out[0] = s->result == 0 ? 1.0 : 0.0;
    out[1] = s->result == 1 ? 1.0 : 0.0;
}

static void dodgem_returns(const void *st, double *out)
{
    const dodgem_state *s = st;
    out[0] = s->result == 0 ? 1.0 : s->result == 1 ? 0.0 : 0.5;
    out[1] = 1.0 - out[0];
}

static double dodgem_evaluate(const void *st, int player)
{
    const dodgem_state *s = st;
    if (s->result != DODGEM_PLAYING)
        return s->result == player ? 1.0 : s->result == DODGEM_DRAW ? 0.0 : -1.0;
    /* distance lead, squashed into (-1, 1): x / (1 + |x|) */
    double x = 0.25 * (dodgem_distance(s, !player) - dodgem_distance(s, player));
    return x / (1.0 + (x < 0 ? -x : x));
}

/* Named evaluations: the EvoMCTS paper's Dodgem terminals (docs/evomcts.md). */
static const char *const dodgem_eval_names[] = {"ManCount", "PosCount", "Mobility", NULL};

static double dodgem_evaluate_named(const void *st, int player, int which)
{
    const dodgem_state *s = st;
    int32_t buf[12];
    switch (which) {
    case 0: return __builtin_popcount(s->car[player]);
    case 1: return dodgem_distance(s, player);
    case 2: return dodgem_moves_of(s, player, buf);
    }
    return 0.0;
}

static int dodgem_grid_cell(const void *st, int x, int y)
{
    const dodgem_state *s = st;
    if (x < 0 || y < 0 || x >= s->n || y >= s->n)
        return ENG_GRID_OFF;
    int b = y * s->n + x;
    return (s->car[0] >> b) & 1u ? 0 : (s->car[1] >> b) & 1u ? 1 : ENG_GRID_EMPTY;
}

static int dodgem_move_to_str(const void *st, eng_move m, char *buf, size_t cap)
{
    const dodgem_state *s = st;
    int n = s->n;
    if (m < 0 || m >= n * n * 4)
        return ENG_EINVAL;
    int cell = m >> 2;
    int k = snprintf(buf, cap, "%d %d %c", cell % n, cell / n, dir_letter[m & 3]);
    return k < 0 || (size_t)k >= cap ? ENG_EINVAL : k;
}

static int dodgem_move_from_str(const void *st, const char *str, eng_move *m)
{
    const dodgem_state *s = st;
    /* exactly "x y D": one digit each, single spaces, D one of NESW */
    if (!str || strlen(str) != 5 || str[1] != ' ' || str[3] != ' ')
        return ENG_EBAD_MOVE;
    int x = str[0] - '0', y = str[2] - '0';
    const char *d = memchr(dir_letter, str[4], 4);
    if (x < 0 || y < 0 || x >= s->n || y >= s->n || !d)
        return ENG_EBAD_MOVE;
    eng_move mv = dodgem_move(s->n, x, y, (int)(d - dir_letter));
    if (!eng_is_legal(&dodgem_game, st, mv))
        return ENG_EILLEGAL_MOVE;
    *m = mv;
    return 0;
}

static int dodgem_render(const void *st, char *buf, size_t cap)
{
    const dodgem_state *s = st;
    int n = s->n;
    eng_text t = eng_text_start(buf, cap);
    eng_textf(&t, "  ");
    for (int x = 0; x < n; x++)
        eng_textf(&t, " %d", x);
    eng_textf(&t, "\n");
    for (int y = 0; y < n; y++) {
        eng_textf(&t, "%d ", y);
        for (int x = 0; x < n; x++) {
            int c = dodgem_grid_cell(s, x, y);
            eng_textf(&t, " %c", c == 0 ? 'B' : c == 1 ? 'W' : '.');
        }
        eng_textf(&t, " >\n"); /* Black leaves east */
    }
    eng_textf(&t, "  ");
    for (int x = 0; x < n; x++)
        eng_textf(&t, " v"); /* White leaves south */
    eng_textf(&t, "\n");
    const char *status = s->result == DODGEM_PLAYING
                             ? (s->to_move == DODGEM_BLACK ? "B to move" : "W to move")
                         : s->result == DODGEM_DRAW  ? "draw (ply cap)"
                         : s->result == DODGEM_BLACK ? "B (black) wins"
                                                     : "W (white) wins";
    eng_textf(&t, "B %d cars, W %d cars, ply %d of %d, %s\n", __builtin_popcount(s->car[0]),
              __builtin_popcount(s->car[1]), s->plies, s->cap, status);
    return (int)t.len;
}

static const eng_option dodgem_options[] = {
    {"size", "board size n (n x n, n-1 cars each)", 5, DODGEM_MIN_N, DODGEM_MAX_N, false},
    {"max_plies", "plies after which an unfinished game is a draw", 100, 1, DODGEM_MAX_PLY_CAP,
     false},
};

const eng_game dodgem_game = {
    .name = "dodgem",
    .move_encoding = 1,
    .title = "Dodgem",
    .min_players = 2,
    .max_players = 2,
    .default_players = 2,
    .state_size = sizeof(dodgem_state),
    .max_moves = 3 * (DODGEM_MAX_N - 1), /* every car: forward and two sideways */
    .max_chance = 0,
    .max_plies = DODGEM_MAX_PLY_CAP, /* the largest ply cap */
    .turn_decisions = 1,
    .n_options = 2,
    .options = dodgem_options,
    .init = dodgem_init,
    .current_player = dodgem_current_player,
    .legal_moves = dodgem_legal_moves,
    .chance_outcomes = dodgem_chance_outcomes,
    .apply = dodgem_apply,
    .scores = dodgem_scores,
    .returns = dodgem_returns,
    .evaluate = dodgem_evaluate,
    .move_to_str = dodgem_move_to_str,
    .move_from_str = dodgem_move_from_str,
    .render = dodgem_render,
    .eval_names = dodgem_eval_names,
    .evaluate_named = dodgem_evaluate_named,
    .grid_w = DODGEM_MAX_N, /* the largest; grid_cell() is ENG_GRID_OFF beyond size x size */
    .grid_h = DODGEM_MAX_N,
    .grid_cell = dodgem_grid_cell,
};
