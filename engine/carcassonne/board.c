/*
 * board.c — Carcassonne's board: placing a tile (engine/carcassonne).
 *
 * Features (cities, roads, fields, cloisters) are the segments of the
 * placed tiles labelled with their root: each segment's par is its
 * feature's root (a merge relabels the smaller feature). Each root carries
 * the aggregates the rules need: unmatched sides (a city or road is
 * complete when none are left), pennants and meeples; the segments of one
 * feature also form a circular list so that scoring (scoring.c) can count
 * distinct tiles and a field can find the cities it touches. Cloisters
 * count their empty neighbours; the incomplete ones sit in a small table
 * that a placement tests at once.
 *
 * Legal placements come from the open cells (empty cells next to a tile):
 * each keeps a byte with the edge kind its neighbours require on each side,
 * and a precomputed table maps (byte, tile type) to the rotations that fit;
 * the per-type counts of placements follow every change of the open cells.
 * An open cell's coordinates follow from a neighbouring tile's.
 *
 * Speed: playouts place tiles millions of times a second, so this is
 * table-driven (neighbour cells, side descriptors, per-type counts), and
 * where a condition is a coin toss (is this neighbour cell new? which
 * feature is larger? what kind is this side?) it selects without a branch.
 * The order of open cells and of completed features is part of the
 * contract: seeded random games are the same move for move as they have
 * always been (test_carc_random checks a digest of them).
 */
#include "carcassonne.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "internal.h"

int carc_cell(int x, int y)
{
    long c = ((long)CARC_ORIGIN + (long)y * CARC_GW + x) % CARC_CELLS;
    return (int)(c < 0 ? c + CARC_CELLS : c);
}

/* ---- features: segments labelled with their root ------------------------ */

/* Every segment's par is the root of its feature, so finding a feature is
 * one read. A merge relabels the segments of the smaller feature (walking
 * its circular nxt list) under the larger one's root, which is the root
 * union by size would keep, so roots are those of a union-find forest:
 * a segment is relabelled only when its feature at least doubles, at most
 * 8 times over the 243 segments of a game. */
int carc_root(const carc_state *s, int node)
{
    return carc__find(s, node);
}

/* Merge the features of segments a and b; returns the root: rb's when its
 * feature is larger, else ra's (ties keep a's root). */
static inline int unite(carc_state *s, int a, int b)
{
    int ra = s->par[a], rb = s->par[b];
    if (ra == rb)
        return ra;
    /* without a branch: which feature is larger is a coin toss */
    int keep = ra ^ ((ra ^ rb) & carc__opaque(-(int)(s->size[ra] < s->size[rb])));
    int gone = ra ^ rb ^ keep;
    int n = gone;
    do {
        s->par[n] = (uint8_t)keep;
        n = s->nxt[n];
    } while (n != gone);
    s->size[keep] = (uint8_t)(s->size[keep] + s->size[gone]);
    s->open[keep] = (uint8_t)(s->open[keep] + s->open[gone]);
    s->pen[keep] = (uint8_t)(s->pen[keep] + s->pen[gone]);
    s->mee[keep] = (uint8_t)(s->mee[keep] + s->mee[gone]);
    uint8_t t = s->nxt[keep];
    s->nxt[keep] = s->nxt[gone];
    s->nxt[gone] = t;
    return keep;
}

/* ---- open cells -------------------------------------------------------- */

/* Keep nfit[] (placements per tile type) in step with the open cells: a
 * cell's pattern enters, leaves, or changes. 24 lanes of 16 bits, three SSE
 * registers: a placement sums its changes in registers and adds them to the
 * state once. */
typedef carc__lanes8 lanes8;
_Static_assert(CARC_NTYPES == 24, "nfit is three registers of 8 lanes");

/* The open cells around a tile just placed at `cell`: the one it fills
 * (slot `filled`, -1 for the start tile) leaves, swapped for the last one;
 * on each side in `free` (no tile there) the cell opens (appended, in the
 * order of the sides) or its pattern gains the tile's edge, needs[d]
 * (carc__needs). No branch on whether a side's cell is new, a coin toss:
 * the slots past the last open cell are kept zero (cell 0, pattern 0), so
 * a new cell's slot is nopen, found from its grid byte 0 by one add, and
 * its old pattern reads as 0, whose row counts nothing. */
static inline __attribute__((always_inline)) void open_cells(carc_state *s, int filled,
                                                             unsigned free, const uint8_t *needs,
                                                             int cell)
{
    _Static_assert(offsetof(carc_open, pattern) == 2 && sizeof(carc_open) == 4,
                   "carc_open is cell, pattern, pad: one word");
    int nopen = s->nopen;
    lanes8 d0 = {0}, d1 = {0}, d2 = {0};
    if (filled >= 0) {
        const lanes8 *rp = carc__nfit8[s->opens[filled].pattern];
        d0 -= rp[0];
        d1 -= rp[1];
        d2 -= rp[2];
        nopen--;
        s->opens[filled] = s->opens[nopen];
        s->grid[s->opens[filled].cell] = (uint8_t)(CARC_CELL_OPEN0 + filled);
        memset(&s->opens[nopen], 0, sizeof s->opens[nopen]);
    }
    const uint32_t *nbr = carc__nbrxy[cell];
    for (unsigned m = free; m; m &= m - 1) {
        int d = __builtin_ctz(m);
        unsigned nc = (uint16_t)nbr[d];
        int gb = s->grid[nc];
        int fresh = carc__opaque(-(int)(gb == 0)); /* all ones for a new cell */
        /* slot: gb - OPEN0, or nopen for a new cell (gb 0) */
        int slot = gb - CARC_CELL_OPEN0 + ((nopen + CARC_CELL_OPEN0) & fresh);
        carc_open *o = &s->opens[slot];
        unsigned old = o->pattern;
        unsigned pat = old | needs[d];
        const lanes8 *rn = carc__nfit8[pat], *ro = carc__nfit8[old];
        d0 += rn[0] - ro[0];
        d1 += rn[1] - ro[1];
        d2 += rn[2] - ro[2];
        uint32_t word = nc | pat << 16; /* cell, pattern, pad: one store */
        memcpy(o, &word, 4);
        s->grid[nc] = (uint8_t)(CARC_CELL_OPEN0 + slot);
        nopen -= fresh;
    }
    s->nopen = (uint8_t)nopen;
    lanes8 v[3];
    memcpy(v, s->nfit, sizeof v);
    v[0] += d0;
    v[1] += d1;
    v[2] += d2;
    memcpy(s->nfit, v, sizeof v);
}

/* The step from a cell to its neighbour on side d, as x and y. */
static inline int step_x(uint32_t nbrxy)
{
    return (int8_t)(nbrxy >> 16);
}
static inline int step_y(uint32_t nbrxy)
{
    return (int8_t)(nbrxy >> 24);
}

void carc_open_xy(const carc_state *s, const carc_open *o, int *x, int *y)
{
    /* an open cell has a tile on some side d: one step back from it */
    int d = __builtin_ctz(carc__sides[o->pattern]);
    uint32_t nb = carc__nbrxy[o->cell][d];
    const carc_placed *q = &s->placed[s->grid[nb & 0xffffu] - 1];
    *x = q->x - step_x(nb);
    *y = q->y - step_y(nb);
}

const carc_open *carc_open_at(const carc_state *s, int x, int y)
{
    if (x < -127 || x > 127 || y < -127 || y > 127)
        return NULL;
    uint8_t g = s->grid[carc_cell(x, y)];
    if (g < CARC_CELL_OPEN0 || g - CARC_CELL_OPEN0 >= s->nopen)
        return NULL;
    const carc_open *o = &s->opens[g - CARC_CELL_OPEN0];
    int ox, oy;
    carc_open_xy(s, o, &ox, &oy);
    return ox == x && oy == y ? o : NULL;
}

/* ---- placing a tile ------------------------------------------------------ */

static void add_complete(carc_state *s, int node)
{
    for (int i = 0; i < s->ncomplete; i++)
        if (s->complete[i] == node)
            return;
    s->complete[s->ncomplete++] = (uint8_t)node;
}

/* 8 bytes at p (an array of the state with room for them). */
static inline void put8(uint8_t *p, uint64_t v)
{
    memcpy(p, &v, 8);
}

/* ---- cloisters ------------------------------------------------------------ */

/* The lanes of the incomplete cloisters' table within one cell (the eight
 * around, or the cell itself) of (x, y): bit i for lane i. Unused lanes sit
 * at CARC_NOWHERE and never match: with x, y and the cloisters' coordinates
 * within -73..73, cx - x + 1 wraps to 0..2 as a byte only when it is 0..2,
 * and CARC_NOWHERE - x + 1 to 56..202. */
static inline unsigned cloisters_near(const carc_state *s, int x, int y)
{
#ifdef __SSE2__
    __m128i cx = _mm_loadl_epi64((const __m128i *)s->cloister_x);
    __m128i cy = _mm_loadl_epi64((const __m128i *)s->cloister_y);
    __m128i ox = _mm_sub_epi8(cx, _mm_set1_epi8((char)(x - 1)));
    __m128i oy = _mm_sub_epi8(cy, _mm_set1_epi8((char)(y - 1)));
    __m128i two = _mm_set1_epi8(2);
    __m128i in = _mm_and_si128(_mm_cmpeq_epi8(_mm_min_epu8(ox, two), ox),
                               _mm_cmpeq_epi8(_mm_min_epu8(oy, two), oy));
    return (unsigned)_mm_movemask_epi8(in) & 0xffu;
#else
    unsigned m = 0;
    for (int i = 0; i < s->ncloisters; i++)
        if ((unsigned)(s->cloister_x[i] - x + 1) <= 2u &&
            (unsigned)(s->cloister_y[i] - y + 1) <= 2u)
            m |= 1u << i;
    return m;
#endif
}

static void cloister_add(carc_state *s, int node, int x, int y)
{
    int i = s->ncloisters++;
    s->cloister[i] = (uint8_t)node;
    s->cloister_x[i] = (int8_t)x;
    s->cloister_y[i] = (int8_t)y;
}

static void cloister_remove(carc_state *s, int node)
{
    int i = 0;
    while (s->cloister[i] != node)
        i++;
    int last = --s->ncloisters;
    s->cloister[i] = s->cloister[last];
    s->cloister_x[i] = s->cloister_x[last];
    s->cloister_y[i] = s->cloister_y[last];
    s->cloister_x[last] = s->cloister_y[last] = CARC_NOWHERE;
}

/* The cloisters of lanes `near` gain a neighbour (a tile placed at (x, y));
 * those it completes leave the table and join s->complete in the order of
 * the cells around (x, y), row by row from the north-west, as scoring has
 * always taken them. */
static void cloisters_gain(carc_state *s, unsigned near, int x, int y)
{
    uint8_t done[CARC_NCLOISTERS], key[CARC_NCLOISTERS];
    int nd = 0;
    for (; near; near &= near - 1) {
        int i = __builtin_ctz(near), cn = s->cloister[i];
        if (--s->open[cn] != 0)
            continue;
        int k = nd++, kk = (s->cloister_y[i] - y + 1) * 3 + (s->cloister_x[i] - x + 1);
        for (; k > 0 && key[k - 1] > kk; k--) {
            done[k] = done[k - 1];
            key[k] = key[k - 1];
        }
        done[k] = (uint8_t)cn;
        key[k] = (uint8_t)kk;
    }
    for (int k = 0; k < nd; k++) {
        s->complete[s->ncomplete++] = done[k];
        cloister_remove(s, done[k]);
    }
}

/* Put a tile on the board at an open cell (or the start tile at (0, 0) on
 * an empty board), merge its features with the neighbours', update the open
 * cells and record which features it completed. The open cell's pattern
 * says which sides have a tile: those merge features, the others open
 * cells; the first of them gives the cell's coordinates. */
void carc__place(carc_state *s, int type, int rot, int cell)
{
    const carc_type *ty = &carc__types[type];
    const carc_tile *rt = &ty->rot[rot];
    const uint32_t *nbr = carc__nbrxy[cell];

    /* The open cells first (what they need dies before the merges). */
    unsigned pat = 0; /* sides with a tile (none for the start tile) */
    int slot = -1, x = 0, y = 0;
    uint8_t gb = s->grid[cell];
    if (gb >= CARC_CELL_OPEN0) {
        slot = gb - CARC_CELL_OPEN0;
        pat = s->opens[slot].pattern;
        uint32_t nb = nbr[__builtin_ctz(carc__sides[pat])];
        const carc_placed *q = &s->placed[s->grid[nb & 0xffffu] - 1];
        x = q->x - step_x(nb);
        y = q->y - step_y(nb);
    }
    unsigned tiles = carc__sides[pat];
    open_cells(s, slot, ~tiles & 15u, carc__needs[type * 4 + rot], cell);

    int idx = s->nplaced++;
    int node0 = s->nnodes;
    s->grid[cell] = (uint8_t)(idx + 1);
    carc_placed *pl = &s->placed[idx];
    pl->type = (uint8_t)type;
    pl->rot = (uint8_t)rot;
    pl->x = (int8_t)x;
    pl->y = (int8_t)y;
    pl->cell = (uint16_t)cell;
    pl->node0 = (uint8_t)node0;

    /* The tile's segments node0 .. node0+nseg-1, 8 bytes per array at once
     * (the type's tables are zero past nseg; the bytes past the last
     * segment are not in use yet and are written again when they are). */
    _Static_assert(243 + CARC_MAX_SEGS <= CARC_MAX_NODES, "a tile's 8 bytes stay in the arrays");
    const uint64_t ones = 0x0101010101010101ULL;
    uint64_t self = 0x0706050403020100ULL + (uint64_t)node0 * ones; /* node0 + g */
    put8(s->par + node0, self);
    put8(s->nxt + node0, self);
    put8(s->size + node0, ones);
    put8(s->tile + node0, (uint64_t)idx * ones);
    put8(s->mee + node0, 0);
    memcpy(s->kind + node0, ty->kind, 8);
    memcpy(s->open + node0, ty->edges, 8);
    memcpy(s->pen + node0, ty->pennant, 8);
    s->nnodes = (uint8_t)(node0 + ty->nseg);

    bool farms = s->rules.opt[CARC_OPT_FARMS] != 0;
    int nofarms = carc__opaque(-(int)!farms); /* all ones without farms */
    unsigned closed = 0; /* a city or road of this tile was completed */
    s->ncomplete = 0;
    const uint32_t *mine = carc__side[type * 4 + rot];
    for (unsigned m = tiles; m; m &= m - 1) {
        int d = __builtin_ctz(m);
        const carc_placed *q = &s->placed[s->grid[nbr[d] & 0xffffu] - 1];
        uint32_t me = mine[d], them = carc__side[q->type * 4 + q->rot][d ^ 2];
        unsigned ek = me & 0xffu;
        int a = node0 + (int)(me >> 8 & 0xffu), b = q->node0 + (int)(them >> 8 & 0xffu);
        /* without a branch on the side's kind (a coin toss): a field side
         * without farms unites a with itself, and a field's open count (0)
         * loses nothing */
        int field = carc__opaque(-(int)(ek == CARC_FIELD));
        b ^= (a ^ b) & field & nofarms;
        int r = unite(s, a, b);
        s->open[r] = (uint8_t)(s->open[r] - (2 & ~field));
        closed |= (unsigned)(s->open[r] == 0) & ~(unsigned)field;
        if (ek == CARC_ROAD && farms) {
            /* the fields beside the road: our first half meets their second */
            unite(s, node0 + (int)(me >> 16 & 0xffu), q->node0 + (int)(them >> 24));
            unite(s, node0 + (int)(me >> 24), q->node0 + (int)(them >> 16 & 0xffu));
        }
    }

    /* A completed road or city is one this tile closed (each of its own
     * starts with an open side); list them in the order of its segments. */
    if (closed & 1)
        for (unsigned g = carc__cr[type]; g; g &= g - 1) {
            int r = carc__find(s, node0 + __builtin_ctz(g));
            if (s->open[r] == 0)
                add_complete(s, r);
        }

    /* Cloisters: those around the cell, then this tile's own. */
    unsigned near = cloisters_near(s, x, y);
    if (near)
        cloisters_gain(s, near, x, y);
    uint8_t own = rt->seg[CARC_C];
    if (own != 0xff) {
        int filled = 0;
        for (int i = 0; i < 8; i++) {
            uint8_t nb = s->grid[carc__wrap(cell + carc__dcell8[i])];
            filled += nb != 0 && nb < CARC_CELL_OPEN0;
        }
        s->open[node0 + own] = (uint8_t)(8 - filled);
        if (filled == 8)
            add_complete(s, node0 + own);
        else
            cloister_add(s, node0 + own, x, y);
    }
}

/* Meeple options of the tile just placed: local feature indices, one per
 * distinct unoccupied feature (the lowest index naming it). Returns their
 * number. The roots seen so far sit in the bytes of one word (unused bytes
 * 0xff, never a node), so "seen before?" is a zero-byte test, not a loop. */
int carc__meeple_options(const carc_state *s, uint8_t *segs)
{
    const carc_placed *pl = &s->placed[s->nplaced - 1];
    /* none without a meeple in hand (no branch: a coin toss late in a game) */
    unsigned cand = carc__cand[pl->type][s->rules.opt[CARC_OPT_FARMS] != 0] &
                    -(unsigned)(s->supply[s->player] != 0);
    const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
    uint64_t seen = ~0ULL;
    int n = 0;
    for (; cand; cand &= cand - 1) {
        int g = __builtin_ctz(cand), r = carc__find(s, pl->node0 + g);
        uint64_t x = seen ^ ((uint64_t)r * ones);
        int fresh = ((x - ones) & ~x & highs) == 0;
        seen = seen << 8 | (uint64_t)r;
        segs[n] = (uint8_t)g;
        n += fresh & (s->mee[r] == 0);
    }
    return n;
}
