/*
 * rules.c — the rules of Carcassonne behind the generic game vtable:
 * the turn (draw, placement, meeple), the bag, legal moves and the random
 * policy, the notation and the text rendering.
 *
 * The board itself (features, open cells, placing a tile) is board.c, the
 * scores scoring.c, the invariants check.c, the tile model tiles.c; this
 * file holds the game's state machine and everything that reads a move.
 *
 * Speed: the random policy's steps (draw, place, meeple) run millions of
 * times a second in playouts; the bag keeps running counts (a draw finds
 * its type by one compare), the random placement walks the open cells from
 * the nearer end, and the meeple pick needs no branch. The order of legal
 * moves is part of the contract: seeded random games are the same move for
 * move as they have always been (test_carc_random checks a digest).
 * Nothing here allocates; everything lives in the fixed-size carc_state.
 */
#include "carcassonne.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "internal.h"

static const eng_option carc_options[] = {
    {"tiny_city", "points for a completed two-tile city: 4 (current rules) or 2 (old rule)", 4, 2, 4,
     false},
    {"farms", "meeples may stand on fields, which score 3 per completed city at the end", 1, 0, 1,
     true},
};

/* ---- the bag ------------------------------------------------------------- */

/* The tile of draw number r (0 <= r < bag_n) in bag order: the first type t
 * whose running count bag_upto[t] exceeds r, i.e. the number of running
 * counts <= r. With SSE2 (every x86-64) all 24 are compared at once (counts
 * stay below 128, so signed byte compares are exact); elsewhere a walk. */
static inline int bag_pick(const carc_state *s, uint32_t r)
{
#ifdef __SSE2__
    _Static_assert(CARC_NTYPES == 24, "the bag is 16 + 8 bytes");
    __m128i a = _mm_loadu_si128((const __m128i *)s->bag_upto);
    __m128i b = _mm_loadl_epi64((const __m128i *)(s->bag_upto + 16));
    __m128i rr = _mm_set1_epi8((char)r);
    unsigned le = (unsigned)_mm_movemask_epi8(_mm_cmpgt_epi8(a, rr)) |
                  ((unsigned)_mm_movemask_epi8(_mm_cmpgt_epi8(b, rr)) & 0xffu) << 16;
    return __builtin_ctz(le);
#else
    int t = 0;
    while (r >= s->bag_upto[t])
        t++;
    return t;
#endif
}

/* One tile of type t leaves the bag: the running counts from t on drop. */
static inline void bag_take(carc_state *s, int t)
{
    s->bag[t]--;
    s->bag_n--;
#ifdef __SSE2__
    const __m128i lo = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m128i hi = _mm_setr_epi8(16, 17, 18, 19, 20, 21, 22, 23, 0, 0, 0, 0, 0, 0, 0, 0);
    __m128i tt = _mm_set1_epi8((char)(t - 1));
    __m128i a = _mm_loadu_si128((const __m128i *)s->bag_upto);
    __m128i b = _mm_loadl_epi64((const __m128i *)(s->bag_upto + 16));
    a = _mm_add_epi8(a, _mm_cmpgt_epi8(lo, tt)); /* -1 where i > t - 1 */
    b = _mm_add_epi8(b, _mm_cmpgt_epi8(hi, tt));
    _mm_storeu_si128((__m128i *)s->bag_upto, a);
    _mm_storel_epi64((__m128i *)(s->bag_upto + 16), b);
#else
    for (int i = t; i < CARC_NTYPES; i++)
        s->bag_upto[i]--;
#endif
}

/* bag_upto[] from bag[]. */
static void bag_sums(carc_state *s)
{
    for (int t = 0, sum = 0; t < CARC_NTYPES; t++)
        s->bag_upto[t] = (uint8_t)(sum += s->bag[t]);
}

/* ---- the turn ------------------------------------------------------------ */

int carc_count_placements(const carc_state *s, int type)
{
    return s->nfit[type]; /* kept up to date by the open-cell updates */
}

static void draw(carc_state *s, int type)
{
    bag_take(s, type);
    s->turns++;
    s->drawn = (uint8_t)type;
    s->dead = s->nfit[type] == 0;
    if (!s->dead) {
        s->phase = CARC_PLACE;
        return;
    }
    s->discards++;
    if (s->bag_n == 0)
        carc__end_game(s);
}

static void place_move(carc_state *s, eng_move m)
{
    carc__place(s, s->drawn, m & 3, m >> 2);
    s->phase = CARC_MEEPLE;
}

static void meeple_move(carc_state *s, eng_move m)
{
    if (m != CARC_NO_MEEPLE) {
        const carc_placed *pl = &s->placed[s->nplaced - 1];
        int n = pl->node0 + (m - CARC_MEEPLE0);
        int r = carc__find(s, n);
        s->mee[r]++;
        s->meeple[s->nmeeples].node = (uint8_t)n;
        s->meeple[s->nmeeples].player = s->player;
        s->nmeeples++;
        s->supply[s->player]--;
    }
    for (int i = 0; i < s->ncomplete; i++)
        if (s->mee[s->complete[i]] != 0)
            carc__score_completed(s, s->complete[i]);
    s->ncomplete = 0;
    s->player = (uint8_t)(s->player + 1 == s->rules.players ? 0 : s->player + 1);
    s->phase = CARC_DRAW;
    if (s->bag_n == 0)
        carc__end_game(s);
}

void carc__set_bag(carc_state *s, const uint8_t counts[CARC_NTYPES])
{
    s->bag_n = 0;
    for (int t = 0; t < CARC_NTYPES; t++) {
        s->bag[t] = counts[t];
        s->bag_n = (uint8_t)(s->bag_n + counts[t]);
    }
    bag_sums(s);
}

/* "heyden" is Heyden's evaluation (MCTS reward=heyden); ScoreCount (points
 * so far) and ManCount (meeples on the board) are the EvoMCTS terminals we
 * define for Carcassonne (docs/evomcts.md). */
static double carc_evaluate_named(const void *st, int player, int which)
{
    const carc_state *s = st;
    switch (which) {
    case 0: return carc_heyden(st, player);
    case 1: return s->score[player];
    case 2: return CARC_MEEPLES - s->supply[player];
    }
    return 0.0;
}

static const char *const carc_eval_names[] = {"heyden", "ScoreCount", "ManCount", NULL};

/* ---- vtable -------------------------------------------------------------- */

static int carc_check_rules(const eng_rules *r, char *err, size_t cap)
{
    int tiny = r->opt[CARC_OPT_TINY_CITY];
    if (tiny != 2 && tiny != 4) {
        if (err && cap)
            snprintf(err, cap, "rule 'tiny_city' is 4 (current rules) or 2 (old rule), not %d", tiny);
        return ENG_EBAD_RULE;
    }
    return 0;
}

static void carc_init(void *st, const eng_rules *rules)
{
    carc_state *s = st;
    carc__tables_init();
    const carc_type *ty = carc__types;
    memset(s, 0, sizeof *s);
    s->rules = *rules;
    memset(s->cloister_x, CARC_NOWHERE, sizeof s->cloister_x);
    memset(s->cloister_y, CARC_NOWHERE, sizeof s->cloister_y);
    for (int t = 0; t < CARC_NTYPES; t++) {
        s->bag[t] = ty[t].count;
        s->bag_n = (uint8_t)(s->bag_n + ty[t].count);
    }
    int start = carc_type_of_letter('D');
    s->bag[start]--;
    s->bag_n--;
    bag_sums(s);
    for (int p = 0; p < rules->players; p++)
        s->supply[p] = CARC_MEEPLES;
    carc__place(s, start, 0, carc_cell(0, 0));
    s->ncomplete = 0;
    s->phase = CARC_DRAW;
    s->player = 0;
}

static int carc_current_player(const void *st)
{
    const carc_state *s = st;
    unsigned ph = s->phase; /* DRAW 0 -> ENG_CHANCE -1, OVER 3 -> ENG_TERMINAL -2 */
    _Static_assert(CARC_DRAW == 0 && CARC_OVER == 3 && ENG_CHANCE == -1 && ENG_TERMINAL == -2,
                   "the phases map onto current_player() as below");
    return ph - 1u < 2u ? s->player : -1 - (int)(ph >> 1);
}

int carc_meeple_options_for(const carc_state *s, eng_move place, uint8_t *segs)
{
    if (s->phase != CARC_PLACE || place < 0 || s->supply[s->player] == 0)
        return 0;
    int cell = place >> 2, rot = place & 3;
    if (cell >= CARC_CELLS)
        return 0;
    const carc_type *ty = &carc__types[s->drawn];
    const carc_tile *rt = &ty->rot[rot];
    bool farms = s->rules.opt[CARC_OPT_FARMS] != 0;
    /* the neighbour features each local segment would join, as place() unites them */
    uint8_t joined[CARC_MAX_SEGS][12];
    int nj[CARC_MAX_SEGS] = {0};
#define JOIN(g, node) (joined[g][nj[g]++] = (uint8_t)carc__find(s, (node)))
    for (int d = 0; d < 4; d++) {
        uint8_t nb = s->grid[carc__wrap(cell + carc__dcell[d])];
        if (nb == 0 || nb >= CARC_CELL_OPEN0)
            continue;
        int od = (d + 2) & 3;
        const carc_placed *q = &s->placed[nb - 1];
        const carc_tile *qt = &carc__types[q->type].rot[q->rot];
        uint8_t ek = rt->edge[d];
        if (ek == CARC_FIELD && !farms)
            continue;
        JOIN(rt->seg[3 * d + 1], q->node0 + qt->seg[3 * od + 1]);
        if (ek == CARC_ROAD && farms) {
            JOIN(rt->seg[3 * d], q->node0 + qt->seg[3 * od + 2]);
            JOIN(rt->seg[3 * d + 2], q->node0 + qt->seg[3 * od]);
        }
    }
#undef JOIN
    /* local segments sharing a neighbour feature become one feature */
    int grp[CARC_MAX_SEGS];
    for (int g = 0; g < ty->nseg; g++) {
        grp[g] = g;
        for (int h = 0; h < g && grp[g] == g; h++)
            for (int i = 0; i < nj[g] && grp[g] == g; i++)
                for (int j = 0; j < nj[h]; j++)
                    if (joined[g][i] == joined[h][j]) {
                        grp[g] = grp[h];
                        break;
                    }
    }
    /* a merge through a later segment can join two earlier groups: settle */
    for (bool changed = true; changed;) {
        changed = false;
        for (int g = 0; g < ty->nseg; g++)
            for (int h = 0; h < ty->nseg; h++) {
                if (grp[g] == grp[h])
                    continue;
                for (int i = 0; i < nj[g]; i++)
                    for (int j = 0; j < nj[h]; j++)
                        if (joined[g][i] == joined[h][j] && grp[g] != grp[h]) {
                            int a = grp[g] < grp[h] ? grp[g] : grp[h];
                            int b = grp[g] < grp[h] ? grp[h] : grp[g];
                            for (int k = 0; k < ty->nseg; k++)
                                if (grp[k] == b)
                                    grp[k] = a;
                            changed = true;
                        }
            }
    }
    int n = 0;
    for (int g = 0; g < ty->nseg; g++) {
        if ((ty->kind[g] == CARC_FIELD && !farms) || grp[g] != g)
            continue;
        bool taken = false;
        for (int h = g; h < ty->nseg && !taken; h++)
            if (grp[h] == g)
                for (int i = 0; i < nj[h] && !taken; i++)
                    taken = s->mee[joined[h][i]] != 0;
        if (!taken)
            segs[n++] = (uint8_t)g;
    }
    return n;
}

static int carc_legal_moves(const void *st, eng_move *out)
{
    const carc_state *s = st;
#if ENG_CHECKS
    carc__debug_check(s, -1, "legal_moves");
#endif
    int n = 0;
    if (s->phase == CARC_PLACE) {
        for (int i = 0; i < s->nopen; i++) {
            unsigned m = carc__fit[s->opens[i].pattern][s->drawn];
            while (m) {
                int r = __builtin_ctz(m);
                m &= m - 1;
                out[n++] = s->opens[i].cell * 4 + r;
            }
        }
    } else if (s->phase == CARC_MEEPLE) {
        uint8_t segs[CARC_MAX_SEGS];
        int k = carc__meeple_options(s, segs);
        out[n++] = CARC_NO_MEEPLE;
        for (int i = 0; i < k; i++)
            out[n++] = CARC_MEEPLE0 + segs[i];
    }
    return n;
}

static int carc_chance_outcomes(const void *st, eng_move *out, double *prob)
{
    const carc_state *s = st;
    if (s->phase != CARC_DRAW)
        return 0;
    int n = 0;
    for (int t = 0; t < CARC_NTYPES; t++)
        if (s->bag[t]) {
            out[n] = t;
            prob[n] = (double)s->bag[t] / s->bag_n;
            n++;
        }
    return n;
}

static void carc_apply(void *st, eng_move m)
{
    carc_state *s = st;
#if ENG_CHECKS
    carc__debug_check(s, m, "apply");
#endif
    switch (s->phase) {
    case CARC_DRAW: draw(s, m); break;
    case CARC_PLACE: place_move(s, m); break;
    case CARC_MEEPLE: meeple_move(s, m); break;
    default: break;
    }
}

static eng_move carc_sample_chance(const void *st, eng_rng *rng)
{
    const carc_state *s = st;
    return bag_pick(s, eng_rng_below(rng, s->bag_n));
}

/* The meeple decision's choices as offsets from CARC_MEEPLE0: option 0 is
 * no meeple, then the features (so a random pick needs no branch); returns
 * their number. */
static inline int meeple_choices(const carc_state *s, uint8_t opt[1 + CARC_MAX_SEGS])
{
    opt[0] = CARC_NO_MEEPLE - CARC_MEEPLE0;
    return 1 + carc__meeple_options(s, opt + 1);
}

/* The random meeple decision, out of line: the placement's path stays light. */
static __attribute__((noinline)) eng_move random_meeple(const carc_state *s, eng_rng *rng)
{
    uint8_t opt[1 + CARC_MAX_SEGS];
    int n = meeple_choices(s, opt);
    return CARC_MEEPLE0 + opt[eng_rng_below(rng, (uint32_t)n)];
}

/* The random placement: the k-th distinct placement in the order of
 * legal_moves, found by a walk over the open cells (one table byte each)
 * from the nearer end: from the first cell for k in the first half of the
 * placements, else from the last for the (n-1-k)-th counted backwards, the
 * same placement in half the steps. The walk reads the cells' pattern bytes
 * at byte offsets into the state, a step of +-4 (sizeof(carc_open)), so one
 * loop serves both directions without a branch on the direction (a coin
 * toss); it reads at most 3 cells past the walk's far end (past the last
 * open cell: inside opens[]; before the first: the end of placed[]), only
 * after the k-th is in sight. */
static inline eng_move random_placement(const carc_state *s, eng_rng *rng)
{
    _Static_assert(offsetof(carc_state, opens) >= 3 * sizeof(carc_open) &&
                       CARC_MAX_OPEN >= 2 * CARC_NTILES + 2 + 3,
                   "the walk's reads past either end stay in the state");
    uint32_t n = s->nfit[s->drawn], k = eng_rng_below(rng, n);
    int back = carc__opaque(-(int)(2 * k >= n)); /* all ones: walk from the last cell */
    uint32_t j = k ^ ((k ^ (n - 1 - k)) & (uint32_t)back);
    const uint8_t *cnt = carc__cnt[s->drawn];
    const unsigned char *p = (const unsigned char *)s + offsetof(carc_state, opens) +
                             offsetof(carc_open, pattern) +
                             ((size_t)(s->nopen - 1) * sizeof(carc_open) & (size_t)(ptrdiff_t)back);
    ptrdiff_t d1 = ((ptrdiff_t)sizeof(carc_open) ^ back) - back, d2 = 2 * d1, d3 = 3 * d1;
    /* four cells at a step while the j-th is further on */
    for (uint32_t c; j >= (c = (uint32_t)cnt[p[0]] + cnt[p[d1]] + cnt[p[d2]] + cnt[p[d3]]);
         p += 4 * d1)
        j -= c;
    /* then the j-th is one of the next four: find it without a branch, the
     * first three cells' running counts as the bytes of a word (the fourth
     * byte above any j), and the cell is the number of them <= j (j and the
     * counts are below 17: a byte's subtraction never borrows) */
    uint32_t c0 = cnt[p[0]], c1 = c0 + cnt[p[d1]], c2 = c1 + cnt[p[d2]];
    uint32_t run = c0 | c1 << 8 | c2 << 16 | 0x7fu << 24;
    uint32_t le = ((j | 0x80u) * 0x01010101u - run) & 0x80808080u;
    uint32_t i = ((le >> 7) * 0x01010101u) >> 24; /* 0..3 */
    uint32_t before = (run << 8) >> (8 * i) & 0xffu;
    p += (((ptrdiff_t)i * 4) ^ back) - back;
    const carc_open *o = (const carc_open *)(const void *)(p - offsetof(carc_open, pattern));
    /* the rotation: j - before from the cell's first, or from its last */
    uint32_t r = ((j - before) ^ (uint32_t)back) + (cnt[o->pattern] & (uint32_t)back);
    return o->cell * 4 + (carc__rotk[s->drawn][o->pattern] >> (2 * r) & 3u);
}

static eng_move carc_random_move(const void *st, eng_rng *rng)
{
    const carc_state *s = st;
    return s->phase == CARC_PLACE ? random_placement(s, rng) : random_meeple(s, rng);
}

/* eng_playout()'s fast path: the steps of the generic loop (sample_chance,
 * random_move, apply) without the calls between them, the same generator
 * calls in the same order. */
static int carc_playout(void *st, eng_rng *rng)
{
    carc_state *s = st;
    /* the generator in a local whose address never leaves this function,
     * so it stays in registers across the calls instead of being stored
     * and reloaded around every write to the state (a byte store may alias
     * anything) */
    eng_rng r = *rng;
    int plies = 0;
    /* The turn as straight code, draw, placement, meeple, instead of a
     * switch on the phase at every step (its three-way jump was a
     * mispredicted branch in a few turns of every playout); a playout that
     * starts inside a turn enters it at its phase. */
    switch (s->phase) {
    case CARC_DRAW: break;
    case CARC_PLACE: goto place;
    case CARC_MEEPLE: goto meeple;
    default: return 0;
    }
    for (;;) {
        draw(s, bag_pick(s, eng_rng_below(&r, s->bag_n)));
        plies++;
        if (s->phase != CARC_PLACE) { /* a dead tile, discarded: the same seat draws */
            if (s->phase == CARC_OVER)
                break;
            continue;
        }
    place:
        place_move(s, random_placement(s, &r));
        plies++;
    meeple: { /* random_meeple, with the local generator */
        uint8_t opt[1 + CARC_MAX_SEGS];
        int n = meeple_choices(s, opt);
        meeple_move(s, CARC_MEEPLE0 + opt[eng_rng_below(&r, (uint32_t)n)]);
        plies++;
        if (s->phase == CARC_OVER)
            break;
    }
    }
    *rng = r;
    return plies;
}

static void carc_scores(const void *st, double *out)
{
    const carc_state *s = st;
    for (int p = 0; p < s->rules.players; p++)
        out[p] = s->score[p];
}

static void carc_returns(const void *st, double *out)
{
    const carc_state *s = st;
    int best = -1, k = 0;
    for (int p = 0; p < s->rules.players; p++)
        if (s->score[p] > best)
            best = s->score[p];
    for (int p = 0; p < s->rules.players; p++)
        k += s->score[p] == best;
    for (int p = 0; p < s->rules.players; p++)
        out[p] = s->score[p] == best ? 1.0 / k : 0.0;
}

/* Heuristic: the player's virtual score (incomplete features and fields
 * counted as at the end) minus the best virtual score among the others. */
static double carc_evaluate(const void *st, int player)
{
    const carc_state *s = st;
    int v[ENG_MAX_PLAYERS];
    carc_virtual_scores(s, v);
    int best = -32768;
    for (int p = 0; p < s->rules.players; p++)
        if (p != player && v[p] > best)
            best = v[p];
    return (double)(v[player] - best);
}

/* ---- notation ------------------------------------------------------------ */

int carc_place_move(const carc_state *s, int x, int y, int rot, eng_move *m)
{
    if (s->phase != CARC_PLACE || rot < 0 || rot > 3 || x < -127 || x > 127 || y < -127 || y > 127)
        return ENG_EILLEGAL_MOVE;
    const carc_open *o = carc_open_at(s, x, y);
    if (!o)
        return ENG_EILLEGAL_MOVE;
    int cell = o->cell;
    int canon = carc__types[s->drawn].canon[rot];
    if (!(carc__fit[o->pattern][s->drawn] & (1u << canon)))
        return ENG_EILLEGAL_MOVE;
    *m = cell * 4 + canon;
    return 0;
}

int carc_meeple_move(const carc_state *s, int port, eng_move *m)
{
    if (s->phase != CARC_MEEPLE)
        return ENG_EILLEGAL_MOVE;
    if (port < 0) {
        *m = CARC_NO_MEEPLE;
        return 0;
    }
    if (port >= CARC_NPORTS)
        return ENG_EILLEGAL_MOVE;
    const carc_placed *pl = &s->placed[s->nplaced - 1];
    uint8_t seg = carc__types[pl->type].rot[pl->rot].seg[port];
    if (seg == 0xff)
        return ENG_EILLEGAL_MOVE;
    int r = carc__find(s, pl->node0 + seg);
    uint8_t segs[CARC_MAX_SEGS];
    int k = carc__meeple_options(s, segs);
    for (int i = 0; i < k; i++)
        if (carc__find(s, pl->node0 + segs[i]) == r) {
            *m = CARC_MEEPLE0 + segs[i];
            return 0;
        }
    return ENG_EILLEGAL_MOVE;
}

int carc_decode_place(const carc_state *s, eng_move m, int *x, int *y, int *rot)
{
    if (m < 0 || m >= CARC_MEEPLE0)
        return ENG_EINVAL;
    uint8_t g = s->grid[m >> 2];
    if (g >= CARC_CELL_OPEN0) {
        carc_open_xy(s, &s->opens[g - CARC_CELL_OPEN0], x, y);
    } else if (g > 0) {
        *x = s->placed[g - 1].x;
        *y = s->placed[g - 1].y;
    } else {
        return ENG_EINVAL;
    }
    *rot = m & 3;
    return 0;
}

int carc_decode_meeple(const carc_state *s, eng_move m)
{
    if (m < CARC_MEEPLE0 || m >= CARC_NO_MEEPLE || s->nplaced == 0)
        return -1;
    const carc_placed *pl = &s->placed[s->nplaced - 1];
    return carc_feature_port(pl->type, pl->rot, m - CARC_MEEPLE0);
}

const carc_placed *carc_tile_at(const carc_state *s, int x, int y)
{
    if (x < -127 || x > 127 || y < -127 || y > 127)
        return NULL;
    uint8_t g = s->grid[carc_cell(x, y)];
    if (g == 0 || g >= CARC_CELL_OPEN0)
        return NULL;
    const carc_placed *pl = &s->placed[g - 1];
    return pl->x == x && pl->y == y ? pl : NULL;
}

static int carc_move_to_str(const void *st, eng_move m, char *buf, size_t cap)
{
    const carc_state *s = st;
    int n;
    if (s->phase == CARC_DRAW) {
        if (m < 0 || m >= CARC_NTYPES)
            return ENG_EINVAL;
        n = snprintf(buf, cap, "%c", carc__types[m].letter);
    } else if (s->phase == CARC_PLACE) {
        int x, y, rot;
        if (carc_decode_place(s, m, &x, &y, &rot) != 0)
            return ENG_EINVAL;
        n = snprintf(buf, cap, "%c %d %d %d", carc__types[s->drawn].letter, x, y, rot);
    } else if (s->phase == CARC_MEEPLE) {
        if (m == CARC_NO_MEEPLE)
            n = snprintf(buf, cap, "-");
        else {
            int port = carc_decode_meeple(s, m);
            if (port < 0)
                return ENG_EINVAL;
            n = snprintf(buf, cap, "%s", carc_port_name(port));
        }
    } else {
        return ENG_EINVAL;
    }
    return n < 0 || (size_t)n >= cap ? ENG_EINVAL : n;
}

static int carc_move_from_str(const void *st, const char *str, eng_move *m)
{
    const carc_state *s = st;
    if (!str)
        return ENG_EBAD_MOVE;
    while (*str == ' ')
        str++;
    if (s->phase == CARC_DRAW) {
        if (!str[0] || str[1])
            return ENG_EBAD_MOVE;
        int t = carc_type_of_letter(str[0]);
        if (t < 0)
            return ENG_EBAD_MOVE;
        if (s->bag[t] == 0)
            return ENG_EILLEGAL_MOVE;
        *m = t;
        return 0;
    }
    if (s->phase == CARC_PLACE) {
        int x, y, rot, used = 0;
        char letter = 0;
        if (str[0] && ((str[0] >= 'A' && str[0] <= 'X') || (str[0] >= 'a' && str[0] <= 'x')) &&
            str[1] == ' ') {
            letter = str[0];
            str += 2;
        }
        if (sscanf(str, "%d %d %d%n", &x, &y, &rot, &used) != 3 || str[used] != 0)
            return ENG_EBAD_MOVE;
        if (letter && carc_type_of_letter(letter) != s->drawn)
            return ENG_EILLEGAL_MOVE;
        return carc_place_move(s, x, y, rot, m);
    }
    if (s->phase == CARC_MEEPLE) {
        /* "" is not a move (test_conformance: garbage is rejected); "no
         * meeple" is written "-" or "none" */
        if (strcmp(str, "-") == 0 || strcmp(str, "none") == 0)
            return carc_meeple_move(s, -1, m);
        int port = carc_port_of_name(str);
        if (port < 0)
            return ENG_EBAD_MOVE;
        return carc_meeple_move(s, port, m);
    }
    return ENG_EILLEGAL_MOVE;
}

/* ---- text rendering ------------------------------------------------------ */

/* Cell (row, col) of the 3x3 drawing where a port's meeple is shown. */
static const uint8_t port_rc[CARC_NPORTS][2] = {
    {0, 0}, {0, 1}, {0, 2}, {0, 2}, {1, 2}, {2, 2}, {2, 2}, {2, 1}, {2, 0}, {2, 0}, {1, 0}, {0, 0}, {1, 1},
};

static void draw_tile(const carc_state *s, int idx, char g[3][3])
{
    const carc_placed *pl = &s->placed[idx];
    const carc_type *ty = &carc__types[pl->type];
    const carc_tile *rt = &ty->rot[pl->rot];
    static const char edge_ns[] = {' ', '#', '|', '.'};
    static const char edge_we[] = {' ', '#', '-', '.'};
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            g[r][c] = '.';
    g[0][1] = edge_ns[rt->edge[0]];
    g[1][2] = edge_we[rt->edge[1]];
    g[2][1] = edge_ns[rt->edge[2]];
    g[1][0] = edge_we[rt->edge[3]];
    /* corners: city when a neighbouring half port is city */
    static const uint8_t corner_ports[4][2] = {{CARC_NW, CARC_WN}, {CARC_NE, CARC_EN},
                                               {CARC_SE, CARC_ES}, {CARC_SW, CARC_WS}};
    static const uint8_t corner_rc[4][2] = {{0, 0}, {0, 2}, {2, 2}, {2, 0}};
    for (int k = 0; k < 4; k++)
        for (int j = 0; j < 2; j++) {
            uint8_t sg = rt->seg[corner_ports[k][j]];
            if (sg != 0xff && ty->kind[sg] == CARC_CITY)
                g[corner_rc[k][0]][corner_rc[k][1]] = '#';
        }
    g[1][1] = rt->seg[CARC_C] != 0xff ? '+' : (char)(ty->letter - 'A' + 'a');
    for (int i = 0; i < s->nmeeples; i++) {
        int n = s->meeple[i].node;
        if (s->tile[n] != idx)
            continue;
        int port = carc_feature_port(pl->type, pl->rot, n - pl->node0);
        if (port >= 0)
            g[port_rc[port][0]][port_rc[port][1]] = (char)('1' + s->meeple[i].player);
    }
}

static int carc_render(const void *st, char *buf, size_t cap)
{
    const carc_state *s = st;
    eng_text o = eng_text_start(buf, cap);
    int x0 = 0, x1 = 0, y0 = 0, y1 = 0;
    for (int i = 0; i < s->nplaced; i++) {
        const carc_placed *pl = &s->placed[i];
        if (pl->x < x0) x0 = pl->x;
        if (pl->x > x1) x1 = pl->x;
        if (pl->y < y0) y0 = pl->y;
        if (pl->y > y1) y1 = pl->y;
    }
    eng_textf(&o, "board x %d..%d, y %d..%d (# city, |- road, . field, + cloister, digits meeples)\n", x0,
        x1, y0, y1);
    for (int y = y0; y <= y1; y++)
        for (int r = 0; r < 3; r++) {
            eng_textf(&o, r == 1 ? "%4d " : "     ", y);
            for (int x = x0; x <= x1; x++) {
                const carc_placed *pl = carc_tile_at(s, x, y);
                if (!pl) {
                    eng_textf(&o, "   ");
                    continue;
                }
                char g[3][3];
                draw_tile(s, (int)(pl - s->placed), g);
                eng_textf(&o, "%c%c%c", g[r][0], g[r][1], g[r][2]);
            }
            eng_textf(&o, "\n");
        }
    eng_textf(&o, "scores:");
    for (int p = 0; p < s->rules.players; p++)
        eng_textf(&o, " P%d=%d", p + 1, s->score[p]);
    eng_textf(&o, "  meeples in hand:");
    for (int p = 0; p < s->rules.players; p++)
        eng_textf(&o, " P%d=%d", p + 1, s->supply[p]);
    eng_textf(&o, "  tiles left %d, discarded %d\n", s->bag_n, s->discards);
    static const char *const phase[] = {"draw", "place", "meeple", "over"};
    if (s->phase == CARC_OVER)
        eng_textf(&o, "game over\n");
    else
        eng_textf(&o, "to play: P%d (%s%s%c)\n", s->player + 1, phase[s->phase],
            s->phase == CARC_DRAW ? "" : " ", s->phase == CARC_DRAW ? ' ' : carc__types[s->drawn].letter);
    return (int)o.len;
}

/* A draw belongs to the turn of the seat that draws (again, after a tile
 * that fit nowhere). */
static int carc_turn_seat(const void *st)
{
    const carc_state *s = st;
    return s->phase == CARC_OVER ? ENG_TERMINAL : s->player;
}

const eng_game carc_game = {
    .name = "carcassonne",
    .title = "Carcassonne",
    .move_encoding = 1,
    .min_players = 2,
    .max_players = 5,
    .default_players = 2,
    .state_size = sizeof(carc_state),
    .max_moves = CARC_MAX_MOVES,
    .max_chance = CARC_NTYPES,
    .max_plies = 3 * (CARC_NTILES - 1),
    .turn_decisions = 2, /* the placement, then the meeple (or none) */
    .n_options = (int)(sizeof carc_options / sizeof carc_options[0]),
    .options = carc_options,
    .check_rules = carc_check_rules,
    .init = carc_init,
    .current_player = carc_current_player,
    .turn_seat = carc_turn_seat,
    .legal_moves = carc_legal_moves,
    .chance_outcomes = carc_chance_outcomes,
    .apply = carc_apply,
    .scores = carc_scores,
    .returns = carc_returns,
    .evaluate = carc_evaluate,
    .move_to_str = carc_move_to_str,
    .move_from_str = carc_move_from_str,
    .render = carc_render,
    .sample_chance = carc_sample_chance,
    .random_move = carc_random_move,
    .playout = carc_playout,
    .eval_names = carc_eval_names,
    .evaluate_named = carc_evaluate_named,
    .rate_moves = carc_rate_moves,
};
