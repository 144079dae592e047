/*
 * carcassonne.c — the rules of Carcassonne behind the generic game vtable.
 *
 * Features (cities, roads, fields, cloisters) are the segments of the
 * placed tiles labelled with their root: each segment's par is its
 * feature's root (a merge relabels the smaller feature). Each root carries
 * the aggregates the rules need: unmatched sides (a city or road is
 * complete when none are left), pennants and meeples; the segments of one
 * feature also form a circular list so that scoring can count distinct
 * tiles (a feature may reach the same tile twice, e.g. both cities of an H)
 * and a field can find the cities it touches. Cloisters count their empty
 * neighbours; the incomplete ones sit in a small table that a placement
 * tests at once.
 *
 * Legal placements come from the open cells (empty cells next to a tile):
 * each keeps a byte with the edge kind its neighbours require on each side,
 * and a precomputed table maps (byte, tile type) to the rotations that fit;
 * the per-type counts of placements follow every change of the open cells.
 *
 * Speed: playouts take these steps millions of times a second, so the hot
 * paths are table-driven (neighbour cells, side descriptors, per-type
 * counts), and where a condition is a coin toss (is this neighbour cell
 * new? which feature is larger?) they select without a branch. The order
 * of open cells, of legal moves and of completed features is part of the
 * contract: seeded random games are the same move for move as they have
 * always been (test_carc_random checks a digest of them).
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

#define ORIGIN ((CARC_GH / 2) * CARC_GW + CARC_GW / 2)

static const int dcell[4] = {-CARC_GW, 1, CARC_GW, -1};
static const int dcell8[8] = {-CARC_GW - 1, -CARC_GW, -CARC_GW + 1, -1,
                              1,            CARC_GW - 1, CARC_GW,   CARC_GW + 1};

static const eng_option carc_options[] = {
    {"tiny_city", "points for a completed two-tile city: 4 (current rules) or 2 (old rule)", 4, 2, 4,
     false},
    {"farms", "meeples may stand on fields, which score 3 per completed city at the end", 1, 0, 1,
     true},
};

static inline int wrap(int c)
{
    if (c < 0)
        c += CARC_CELLS;
    else if (c >= CARC_CELLS)
        c -= CARC_CELLS;
    return c;
}

int carc_cell(int x, int y)
{
    long c = ((long)ORIGIN + (long)y * CARC_GW + x) % CARC_CELLS;
    return (int)(c < 0 ? c + CARC_CELLS : c);
}

static inline const carc_type *T(void)
{
    return carc__types; /* built by carc_init before any state exists */
}

/* v, hidden from the optimiser: a mask built from a comparison stays a
 * mask (and the select a cmov) instead of becoming a branch again, where the
 * comparison is a coin toss that a branch would mispredict half the time. */
static inline int opaque(int v)
{
    __asm__("" : "+r"(v));
    return v;
}

/* ---- features: segments labelled with their root ------------------------ */

/* Every segment's par is the root of its feature, so finding a feature is
 * one read. A merge relabels the segments of the smaller feature (walking
 * its circular nxt list) under the larger one's root, which is the root
 * union by size would keep, so roots are those of a union-find forest:
 * a segment is relabelled only when its feature at least doubles, at most
 * 8 times over the 243 segments of a game. */
static inline int find(const carc_state *s, int n)
{
    return s->par[n];
}

int carc_root(const carc_state *s, int node)
{
    return find(s, node);
}

/* Merge the features of segments a and b; returns the root: rb's when its
 * feature is larger, else ra's (ties keep a's root). */
static inline int unite(carc_state *s, int a, int b)
{
    int ra = s->par[a], rb = s->par[b];
    if (ra == rb)
        return ra;
    /* without a branch: which feature is larger is a coin toss */
    int keep = ra ^ ((ra ^ rb) & opaque(-(int)(s->size[ra] < s->size[rb])));
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

/* Write open cell o: its first four bytes (cell, x, y) as one word, then
 * its pattern (and a zero pad). */
static inline void carc_open_put(carc_open *o, uint32_t head, unsigned pattern)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    _Static_assert(offsetof(carc_open, x) == 2 && offsetof(carc_open, y) == 3 &&
                       offsetof(carc_open, pattern) == 4 && sizeof(carc_open) == 6,
                   "carc_open is cell, x, y, pattern, pad");
    uint16_t tail = (uint16_t)pattern;
    memcpy(o, &head, 4);
    memcpy(&o->pattern, &tail, 2);
#else
    o->cell = (uint16_t)head;
    o->x = (int8_t)(head >> 16);
    o->y = (int8_t)(head >> 24);
    o->pattern = (uint8_t)pattern;
    o->pad = 0;
#endif
}

/* The open cells around a tile just placed at `cell` (x, y): the one it
 * fills (slot `filled`, -1 for the start tile) leaves, swapped for the last
 * one; on each side in `free` (no tile there) the cell opens (appended, in
 * the order of the sides) or its pattern gains the tile's edge, byte d of
 * `needs` (carc__needs). No branch on whether a side's cell is new, a coin
 * toss. */
static inline __attribute__((always_inline)) void
open_cells(carc_state *s, int filled, unsigned free, uint32_t needs, int cell, int x, int y)
{
    int nopen = s->nopen;
    lanes8 d0 = {0}, d1 = {0}, d2 = {0};
    if (filled >= 0) {
        unsigned p = s->opens[filled].pattern;
        d0 -= carc__nfit8[0][p];
        d1 -= carc__nfit8[1][p];
        d2 -= carc__nfit8[2][p];
        nopen--;
        s->opens[filled] = s->opens[nopen];
        s->grid[s->opens[filled].cell] = (uint8_t)(CARC_CELL_OPEN0 + filled);
    }
    const uint32_t *nbr = carc__nbrxy[cell];
    uint32_t xy = (uint32_t)(uint8_t)x << 16 | (uint32_t)(uint8_t)y << 24;
    for (unsigned m = free; m; m &= m - 1) {
        int d = __builtin_ctz(m);
        /* the cell's first four bytes as an open cell: cell, then x and y
         * stepped towards side d byte by byte (no carry between them) */
        uint32_t step = nbr[d], nc = step & 0xffffu;
        uint32_t head =
            nc | (((xy & 0x7f7f0000u) + (step & 0x7f7f0000u)) ^ ((xy ^ step) & 0x80800000u));
        int gb = s->grid[nc];
        int fresh = opaque(gb == 0);
        /* slot: fresh ? nopen : gb - OPEN0; old pattern: fresh ? none : its */
        int slot = (gb - CARC_CELL_OPEN0) ^ (((gb - CARC_CELL_OPEN0) ^ nopen) & -fresh);
        carc_open *o = &s->opens[slot];
        unsigned keep = (unsigned)fresh - 1u; /* all ones for a cell already open */
        unsigned old = (o->pattern & keep) | (CARC_NO_PATTERN & ~keep);
        unsigned pat = (o->pattern & keep) | (needs >> (8 * d) & 0xffu);
        d0 += carc__nfit8[0][pat] - carc__nfit8[0][old];
        d1 += carc__nfit8[1][pat] - carc__nfit8[1][old];
        d2 += carc__nfit8[2][pat] - carc__nfit8[2][old];
        carc_open_put(o, head, pat);
        s->grid[nc] = (uint8_t)(CARC_CELL_OPEN0 + slot);
        nopen += fresh;
    }
    s->nopen = (uint8_t)nopen;
    lanes8 v[3];
    memcpy(v, s->nfit, sizeof v);
    v[0] += d0;
    v[1] += d1;
    v[2] += d2;
    memcpy(s->nfit, v, sizeof v);
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

/* Put a tile on the board at an open cell (or the start tile on an empty
 * board), merge its features with the neighbours', update the open cells
 * and record which features it completed. The open cell's pattern says
 * which sides have a tile: those merge features, the others open cells. */
static void place(carc_state *s, int type, int rot, int cell, int x, int y)
{
    const carc_type *ty = &T()[type];
    const carc_tile *rt = &ty->rot[rot];

    /* The open cells first (what they need dies before the merges). */
    unsigned pat = 0; /* sides with a tile (none for the start tile) */
    int slot = -1;
    uint8_t gb = s->grid[cell];
    if (gb >= CARC_CELL_OPEN0) {
        slot = gb - CARC_CELL_OPEN0;
        pat = s->opens[slot].pattern;
    }
    unsigned tiles = carc__sides[pat];
    open_cells(s, slot, ~tiles & 15u, carc__needs[type * 4 + rot], cell, x, y);

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
    bool closed = false; /* a city or road of this tile was completed */
    s->ncomplete = 0;
    const uint32_t *mine = carc__side[type * 4 + rot];
    const uint32_t *nbr = carc__nbrxy[cell];
    for (unsigned m = tiles; m; m &= m - 1) {
        int d = __builtin_ctz(m);
        const carc_placed *q = &s->placed[s->grid[nbr[d] & 0xffffu] - 1];
        uint32_t me = mine[d], them = carc__side[q->type * 4 + q->rot][d ^ 2];
        unsigned ek = me & 0xffu;
        int a = node0 + (int)(me >> 8 & 0xffu), b = q->node0 + (int)(them >> 8 & 0xffu);
        if (ek == CARC_FIELD) {
            if (farms)
                unite(s, a, b);
            continue;
        }
        int r = unite(s, a, b);
        s->open[r] = (uint8_t)(s->open[r] - 2);
        closed |= s->open[r] == 0;
        if (ek == CARC_ROAD && farms) {
            /* the fields beside the road: our first half meets their second */
            unite(s, node0 + (int)(me >> 16 & 0xffu), q->node0 + (int)(them >> 24));
            unite(s, node0 + (int)(me >> 24), q->node0 + (int)(them >> 16 & 0xffu));
        }
    }

    /* A completed road or city is one this tile closed (each of its own
     * starts with an open side); list them in the order of its segments. */
    if (closed)
        for (int g = 0; g < ty->nseg; g++) {
            int k = ty->kind[g];
            if (k == CARC_CITY || k == CARC_ROAD) {
                int r = find(s, node0 + g);
                if (s->open[r] == 0)
                    add_complete(s, r);
            }
        }

    /* Cloisters: those around the cell, then this tile's own. */
    unsigned near = cloisters_near(s, x, y);
    if (near)
        cloisters_gain(s, near, x, y);
    uint8_t own = rt->seg[CARC_C];
    if (own != 0xff) {
        int filled = 0;
        for (int i = 0; i < 8; i++) {
            uint8_t nb = s->grid[wrap(cell + dcell8[i])];
            filled += nb != 0 && nb < CARC_CELL_OPEN0;
        }
        s->open[node0 + own] = (uint8_t)(8 - filled);
        if (filled == 8)
            add_complete(s, node0 + own);
        else
            cloister_add(s, node0 + own, x, y);
    }
}

/* ---- scoring ------------------------------------------------------------- */

/* Bits set in a word, without a popcount instruction (the default target
 * has none, and the libgcc fallback is a call). */
static inline int pop64(uint64_t x)
{
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
    return (int)((x * 0x0101010101010101ULL) >> 56);
}

/* Tiles a feature covers, each once: its segments' tiles as a set. */
static int distinct_tiles(const carc_state *s, int root)
{
    uint64_t seen[2] = {0, 0};
    int n = root;
    do {
        int t = s->tile[n];
        seen[t >> 6] |= 1ULL << (t & 63);
        n = s->nxt[n];
    } while (n != root);
    return pop64(seen[0]) + pop64(seen[1]);
}

/* 3 points per completed city the field touches: the completed cities'
 * roots as a set. A field segment touches at most two cities of its tile
 * (H, I), taken without a branch: a missing one reads segment 8 of the
 * tile, inside the arrays (node0 + 8 < 256), and counts for nothing. */
static int field_value(const carc_state *s, int root)
{
    uint64_t seen[CARC_MAX_NODES / 64] = {0};
    int n = root;
    do {
        const carc_placed *pl = &s->placed[s->tile[n]];
        unsigned mask = T()[pl->type].cities[n - pl->node0];
        unsigned rest = mask & (mask - 1);
        int c0 = find(s, pl->node0 + __builtin_ctz(mask | 0x100u));
        int c1 = find(s, pl->node0 + __builtin_ctz(rest | 0x100u));
        seen[c0 >> 6] |= (uint64_t)((mask != 0) & (s->open[c0] == 0)) << (c0 & 63);
        seen[c1 >> 6] |= (uint64_t)((rest != 0) & (s->open[c1] == 0)) << (c1 & 63);
        n = s->nxt[n];
    } while (n != root);
    return 3 * (pop64(seen[0]) + pop64(seen[1]) + pop64(seen[2]) + pop64(seen[3]));
}

static int value_of_root(const carc_state *s, int r)
{
    switch (s->kind[r]) {
    case CARC_CITY: {
        int tiles = distinct_tiles(s, r);
        if (s->open[r] != 0)
            return tiles + s->pen[r];
        if (tiles == 2 && s->rules.opt[CARC_OPT_TINY_CITY] == 2)
            return 2;
        return 2 * tiles + 2 * s->pen[r];
    }
    case CARC_ROAD:
        return distinct_tiles(s, r);
    case CARC_CLOISTER:
        return 9 - s->open[r];
    case CARC_FIELD:
        return field_value(s, r);
    default:
        return 0;
    }
}

int carc_feature_value(const carc_state *s, int node)
{
    return value_of_root(s, find(s, node));
}

bool carc_feature_complete(const carc_state *s, int node)
{
    int r = find(s, node);
    return s->kind[r] != CARC_FIELD && s->open[r] == 0;
}

/* Award the feature at root r to the players with the most meeples on it,
 * adding to pts[]. */
static void award(const carc_state *s, int r, int *pts)
{
    int cnt[ENG_MAX_PLAYERS] = {0};
    for (int i = 0; i < s->nmeeples; i++)
        if (find(s, s->meeple[i].node) == r)
            cnt[s->meeple[i].player]++;
    int best = 0;
    for (int p = 0; p < s->rules.players; p++)
        if (cnt[p] > best)
            best = cnt[p];
    if (best == 0)
        return;
    int v = value_of_root(s, r);
    for (int p = 0; p < s->rules.players; p++)
        if (cnt[p] == best)
            pts[p] += v;
}

/* Out of line, as end_game: the turn's hot path keeps few registers. */
static __attribute__((noinline)) void score_and_return(carc_state *s, int r)
{
    int pts[ENG_MAX_PLAYERS] = {0};
    award(s, r, pts);
    for (int p = 0; p < s->rules.players; p++)
        s->score[p] = (int16_t)(s->score[p] + pts[p]);
    for (int i = 0; i < s->nmeeples;) {
        if (find(s, s->meeple[i].node) == r) {
            s->supply[s->meeple[i].player]++;
            s->meeple[i] = s->meeple[--s->nmeeples];
        } else {
            i++;
        }
    }
    s->mee[r] = 0;
}

/* The features with meeples on them: each one's root, and the seats with
 * the most meeples on it as a bit mask (ties share). Returns how many. */
enum { CARC_MAX_HELD = ENG_MAX_PLAYERS * CARC_MEEPLES };
static int held_features(const carc_state *s, uint8_t roots[CARC_MAX_HELD],
                         uint8_t holders[CARC_MAX_HELD])
{
    uint8_t slot[CARC_MAX_NODES];
    uint8_t cnt[CARC_MAX_HELD][ENG_MAX_PLAYERS];
    int nr = 0;
    memset(slot, 0xff, sizeof slot);
    for (int i = 0; i < s->nmeeples; i++) {
        int r = find(s, s->meeple[i].node);
        if (slot[r] == 0xff) {
            slot[r] = (uint8_t)nr;
            roots[nr] = (uint8_t)r;
            memset(cnt[nr], 0, sizeof cnt[nr]);
            nr++;
        }
        cnt[slot[r]][s->meeple[i].player]++;
    }
    for (int k = 0; k < nr; k++) {
        int best = 0;
        for (int p = 0; p < s->rules.players; p++)
            if (cnt[k][p] > best)
                best = cnt[k][p];
        holders[k] = 0;
        for (int p = 0; p < s->rules.players; p++)
            if (cnt[k][p] == best)
                holders[k] |= (uint8_t)(1u << p);
    }
    return nr;
}

/* Points every player would add if the game ended now: each occupied
 * feature once, to the players with the most meeples on it. */
static void end_points(const carc_state *s, int *pts)
{
    uint8_t roots[CARC_MAX_HELD], holders[CARC_MAX_HELD];
    int nr = held_features(s, roots, holders);
    for (int k = 0; k < nr; k++) {
        int v = value_of_root(s, roots[k]);
        for (int p = 0; p < s->rules.players; p++)
            if (holders[k] >> p & 1)
                pts[p] += v;
    }
}

/* Heyden's evaluation (Müller's thesis §4.4.4, docs/references.md), for
 * `reward=heyden`: with o the best-scoring other seat,
 *   100 x (score_p - score_o) + 10 x (meeples in hand_p - _o)
 *   + 10 x (incomplete roads, cloisters and fields controlled, at their value now: p - o)
 *   + 12.5 x (incomplete cities controlled, not doubled: p - o)
 *   - 40 x (fields p controls that touch fewer than 3 completed cities).
 * "Controls" means having the most meeples on the feature (ties: all of them). */
double carc_heyden(const carc_state *s, int player)
{
    uint8_t roots[CARC_MAX_HELD], holders[CARC_MAX_HELD];
    int nr = held_features(s, roots, holders), np = s->rules.players;
    double other[ENG_MAX_PLAYERS] = {0}, city[ENG_MAX_PLAYERS] = {0};
    int thin_fields = 0;
    for (int k = 0; k < nr; k++) {
        int r = roots[k], v = value_of_root(s, r);
        for (int p = 0; p < np; p++) {
            if (!(holders[k] >> p & 1))
                continue;
            if (s->kind[r] == CARC_CITY)
                city[p] += v;
            else
                other[p] += v;
            if (p == player && s->kind[r] == CARC_FIELD && v < 9)
                thin_fields++;
        }
    }
    int o = -1;
    for (int p = 0; p < np; p++)
        if (p != player && (o < 0 || s->score[p] > s->score[o]))
            o = p;
    return 100.0 * (s->score[player] - s->score[o]) + 10.0 * (s->supply[player] - s->supply[o]) +
           10.0 * (other[player] - other[o]) + 12.5 * (city[player] - city[o]) -
           40.0 * thin_fields;
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

void carc_virtual_scores(const carc_state *s, int *out)
{
    int pts[ENG_MAX_PLAYERS] = {0};
    if (s->phase != CARC_OVER)
        end_points(s, pts);
    for (int p = 0; p < s->rules.players; p++)
        out[p] = s->score[p] + pts[p];
}

static __attribute__((noinline)) void end_game(carc_state *s)
{
    int pts[ENG_MAX_PLAYERS] = {0};
    end_points(s, pts);
    for (int p = 0; p < s->rules.players; p++)
        s->score[p] = (int16_t)(s->score[p] + pts[p]);
    s->phase = CARC_OVER;
}

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
        end_game(s);
}

static void place_move(carc_state *s, eng_move m)
{
    int cell = m >> 2, rot = m & 3;
    const carc_open *o = &s->opens[s->grid[cell] - CARC_CELL_OPEN0];
    place(s, s->drawn, rot, cell, o->x, o->y);
    s->phase = CARC_MEEPLE;
}

static void meeple_move(carc_state *s, eng_move m)
{
    if (m != CARC_NO_MEEPLE) {
        const carc_placed *pl = &s->placed[s->nplaced - 1];
        int n = pl->node0 + (m - CARC_MEEPLE0);
        int r = find(s, n);
        s->mee[r]++;
        s->meeple[s->nmeeples].node = (uint8_t)n;
        s->meeple[s->nmeeples].player = s->player;
        s->nmeeples++;
        s->supply[s->player]--;
    }
    for (int i = 0; i < s->ncomplete; i++)
        if (s->mee[s->complete[i]] != 0)
            score_and_return(s, s->complete[i]);
    s->ncomplete = 0;
    s->player = (uint8_t)(s->player + 1 == s->rules.players ? 0 : s->player + 1);
    s->phase = CARC_DRAW;
    if (s->bag_n == 0)
        end_game(s);
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

/* ---- invariants ---------------------------------------------------------- */

static int meeple_options(const carc_state *s, uint8_t *segs);

#define BAD(...) eng_seterr(why, cap, ENG_EINTERNAL, __VA_ARGS__)

static int check_quick(const carc_state *s, char *why, size_t cap)
{
    int np = s->rules.players;
    if (np < carc_game.min_players || np > carc_game.max_players)
        return BAD("%d players", np);
    if (s->phase > CARC_OVER || s->player >= np)
        return BAD("phase %d, player %d of %d", s->phase, s->player, np);
    if (s->nplaced < 1 || s->nplaced > CARC_NTILES || s->nnodes > 243 ||
        s->nopen > 2 * CARC_NTILES + 2 || s->nmeeples > np * CARC_MEEPLES ||
        s->ncomplete > CARC_MAX_COMPLETE || s->ncloisters > CARC_NCLOISTERS)
        return BAD("counts: %d tiles, %d segments, %d open cells, %d meeples, %d completed, %d "
                   "cloisters",
                   s->nplaced, s->nnodes, s->nopen, s->nmeeples, s->ncomplete, s->ncloisters);
    int sum = 0;
    for (int t = 0; t < CARC_NTYPES; t++) {
        sum += s->bag[t];
        if (s->bag_upto[t] != sum)
            return BAD("the bag's running count at %c is %d, its counts sum to %d", 'A' + t,
                       s->bag_upto[t], sum);
    }
    /* a draw (a turn) places, discards or holds (PLACE) a tile; the bag holds
     * the rest of the 71 (fewer after carc__set_bag, the tests' hook) */
    int out = s->nplaced - 1 + s->discards + (s->phase == CARC_PLACE);
    if (sum != s->bag_n || s->bag_n + out > CARC_NTILES - 1 || s->turns != out)
        return BAD("bag of %d (counts %d), %d tiles out, %d turns", s->bag_n, sum, out, s->turns);
    if ((s->phase == CARC_PLACE && (s->drawn >= CARC_NTYPES || s->nfit[s->drawn] == 0)) ||
        (s->phase == CARC_OVER) != (s->bag_n == 0 && s->phase != CARC_PLACE && s->phase != CARC_MEEPLE))
        return BAD("phase %d with %d tiles in the bag, tile %d drawn", s->phase, s->bag_n, s->drawn);
    int on_board[ENG_MAX_PLAYERS] = {0};
    for (int i = 0; i < s->nmeeples; i++) {
        if (s->meeple[i].player >= np || s->meeple[i].node >= s->nnodes)
            return BAD("meeple %d: player %d on segment %d", i, s->meeple[i].player,
                       s->meeple[i].node);
        on_board[s->meeple[i].player]++;
    }
    for (int p = 0; p < np; p++)
        if (s->supply[p] + on_board[p] != CARC_MEEPLES)
            return BAD("player %d: %d meeples in hand and %d on the board", p, s->supply[p],
                       on_board[p]);
    for (int i = 0; i < CARC_CLOISTER_LANES; i++) {
        bool used = i < s->ncloisters;
        if (!used && (s->cloister_x[i] != CARC_NOWHERE || s->cloister_y[i] != CARC_NOWHERE))
            return BAD("unused cloister lane %d is at %d,%d", i, s->cloister_x[i], s->cloister_y[i]);
        if (used && (s->cloister[i] >= s->nnodes || s->kind[s->cloister[i]] != CARC_CLOISTER ||
                     s->open[s->cloister[i]] == 0))
            return BAD("cloister lane %d: segment %d", i, s->cloister[i]);
    }
    return 0;
}

static int check_deep(const carc_state *s, char *why, size_t cap)
{
    const carc_type *ty = T();
    bool farms = s->rules.opt[CARC_OPT_FARMS] != 0;
    /* tiles: the grid names them, their segments follow one another */
    int node = 0, tiles = 0, opens = 0;
    for (int i = 0; i < s->nplaced; i++) {
        const carc_placed *pl = &s->placed[i];
        if (pl->type >= CARC_NTYPES || pl->rot > 3 || pl->cell != carc_cell(pl->x, pl->y) ||
            s->grid[pl->cell] != i + 1 || pl->node0 != node)
            return BAD("tile %d (type %d rot %d at %d,%d): cell %d, grid %d, first segment %d", i,
                       pl->type, pl->rot, pl->x, pl->y, pl->cell, s->grid[pl->cell], pl->node0);
        for (int g = 0; g < ty[pl->type].nseg; g++)
            if (s->tile[node + g] != i || s->kind[node + g] != ty[pl->type].kind[g])
                return BAD("segment %d of tile %d: tile %d, kind %d", node + g, i,
                           s->tile[node + g], s->kind[node + g]);
        node += ty[pl->type].nseg;
    }
    if (node != s->nnodes)
        return BAD("%d segments, the tiles have %d", s->nnodes, node);
    for (int c = 0; c < CARC_CELLS; c++) {
        tiles += s->grid[c] >= 1 && s->grid[c] < CARC_CELL_OPEN0;
        opens += s->grid[c] >= CARC_CELL_OPEN0;
    }
    if (tiles != s->nplaced || opens != s->nopen)
        return BAD("the grid holds %d tiles and %d open cells, the state %d and %d", tiles, opens,
                   s->nplaced, s->nopen);
    /* open cells: each pattern is what its neighbours require; the counts */
    uint32_t nfit[CARC_NTYPES] = {0};
    for (int i = 0; i < s->nopen; i++) {
        const carc_open *o = &s->opens[i];
        if (o->cell != carc_cell(o->x, o->y) || s->grid[o->cell] != CARC_CELL_OPEN0 + i)
            return BAD("open cell %d at %d,%d: cell %d, grid %d", i, o->x, o->y, o->cell,
                       s->grid[o->cell]);
        unsigned want = 0;
        for (int d = 0; d < 4; d++) {
            uint8_t nb = s->grid[carc__nbrxy[o->cell][d] & 0xffffu];
            if (nb >= 1 && nb < CARC_CELL_OPEN0) {
                const carc_placed *q = &s->placed[nb - 1];
                want |= (unsigned)ty[q->type].rot[q->rot].edge[(d + 2) & 3] << (2 * d);
            }
        }
        if (want == 0 || o->pattern != want)
            return BAD("open cell %d at %d,%d: pattern %#x, its neighbours require %#x", i, o->x,
                       o->y, o->pattern, want);
        for (int t = 0; t < CARC_NTYPES; t++)
            nfit[t] += carc__cnt[t][o->pattern];
    }
    for (int t = 0; t < CARC_NTYPES; t++)
        if (s->nfit[t] != nfit[t])
            return BAD("%d placements of %c counted, %u on the board", s->nfit[t], 'A' + t,
                       nfit[t]);
    /* features: every segment's par is a root of its kind; each root's list
     * holds exactly its segments; the aggregates add up */
    uint8_t seen[CARC_MAX_NODES] = {0};
    int sides[CARC_MAX_NODES] = {0}, pens[CARC_MAX_NODES] = {0}, mees[CARC_MAX_NODES] = {0};
    for (int n = 0; n < s->nnodes; n++) {
        int r = s->par[n];
        if (r >= s->nnodes || s->par[r] != r || s->kind[r] != s->kind[n])
            return BAD("segment %d: root %d (its root %d), kind %d, the root's %d", n, r,
                       s->par[r], s->kind[n], s->kind[r]);
        if (!farms && s->kind[n] == CARC_FIELD && r != n)
            return BAD("field segment %d merged without farms", n);
        const carc_placed *pl = &s->placed[s->tile[n]];
        pens[r] += ty[pl->type].pennant[n - pl->node0];
    }
    for (int n = 0; n < s->nnodes; n++) {
        if (s->par[n] != n)
            continue;
        int k = 0, m = n;
        do {
            if (s->par[m] != n || seen[m]++)
                return BAD("the list of feature %d reaches segment %d (root %d) twice or "
                           "astray",
                           n, m, s->par[m]);
            m = s->nxt[m];
            k++;
        } while (m != n && k <= s->nnodes);
        if (k != s->size[n])
            return BAD("feature %d: %d segments listed, size %d", n, k, s->size[n]);
    }
    for (int n = 0; n < s->nnodes; n++)
        if (!seen[n])
            return BAD("segment %d is in no feature's list", n);
    /* unmatched sides of cities and roads: sides whose cell holds no tile */
    for (int i = 0; i < s->nplaced; i++) {
        const carc_placed *pl = &s->placed[i];
        const carc_tile *rt = &ty[pl->type].rot[pl->rot];
        for (int d = 0; d < 4; d++) {
            uint8_t nb = s->grid[carc__nbrxy[pl->cell][d] & 0xffffu];
            if (rt->edge[d] != CARC_FIELD && (nb == 0 || nb >= CARC_CELL_OPEN0))
                sides[s->par[pl->node0 + rt->seg[3 * d + 1]]]++;
        }
    }
    for (int i = 0; i < s->nmeeples; i++)
        mees[s->par[s->meeple[i].node]]++;
    for (int r = 0; r < s->nnodes; r++) {
        if (s->par[r] != r)
            continue;
        int k = s->kind[r];
        if ((k == CARC_CITY || k == CARC_ROAD) && s->open[r] != sides[r])
            return BAD("feature %d (kind %d): %d open sides counted, %d unmatched", r, k,
                       s->open[r], sides[r]);
        if (k == CARC_CITY && s->pen[r] != pens[r])
            return BAD("city %d: %d pennants counted, %d on its tiles", r, s->pen[r], pens[r]);
        if (s->mee[r] != mees[r])
            return BAD("feature %d: %d meeples counted, %d on it", r, s->mee[r], mees[r]);
        if (k == CARC_CLOISTER) {
            const carc_placed *pl = &s->placed[s->tile[r]];
            int empty = 0;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    uint8_t g = s->grid[carc_cell(pl->x + dx, pl->y + dy)];
                    empty += (dx || dy) && (g == 0 || g >= CARC_CELL_OPEN0);
                }
            bool listed = false;
            for (int i = 0; i < s->ncloisters; i++)
                listed |= s->cloister[i] == r && s->cloister_x[i] == pl->x &&
                          s->cloister_y[i] == pl->y;
            if (s->open[r] != empty || listed != (empty > 0))
                return BAD("cloister %d at %d,%d: %d empty neighbours counted, %d empty, %s in "
                           "the table",
                           r, pl->x, pl->y, s->open[r], empty, listed ? "" : "not");
        }
    }
    return 0;
}

int carc_check(const carc_state *s, bool deep, char *why, size_t cap)
{
    int rc = check_quick(s, why, cap);
    return rc || !deep ? rc : check_deep(s, why, cap);
}

#undef BAD

#if ENG_CHECKS
/* Is m legal in s? (the debug builds' check of apply's contract) */
static bool move_ok(const carc_state *s, eng_move m)
{
    switch (s->phase) {
    case CARC_DRAW: return m >= 0 && m < CARC_NTYPES && s->bag[m] > 0;
    case CARC_PLACE: {
        if (m < 0 || m >= CARC_MEEPLE0)
            return false;
        uint8_t g = s->grid[m >> 2];
        return g >= CARC_CELL_OPEN0 && g - CARC_CELL_OPEN0 < s->nopen &&
               (carc__fit[s->opens[g - CARC_CELL_OPEN0].pattern][s->drawn] >> (m & 3) & 1);
    }
    case CARC_MEEPLE: {
        if (m == CARC_NO_MEEPLE)
            return true;
        uint8_t segs[CARC_MAX_SEGS];
        int k = meeple_options(s, segs);
        for (int i = 0; i < k; i++)
            if (m == CARC_MEEPLE0 + segs[i])
                return true;
        return false;
    }
    default: return false;
    }
}

/* The ENG_CHECKS hook at the top of apply (m >= 0) and legal_moves (m < 0). */
static void debug_check(const carc_state *s, eng_move m, const char *where)
{
    char why[256];
    if (carc_check(s, false, why, sizeof why) != 0)
        eng_check_failed("carcassonne", __FILE__, __LINE__, "%s: %s", where, why);
    if (m >= 0 && !move_ok(s, m))
        eng_check_failed("carcassonne", __FILE__, __LINE__, "apply: move %d is not legal in phase %d",
                         (int)m, s->phase);
}
#endif

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
    const carc_type *ty = T();
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
    place(s, start, 0, carc_cell(0, 0), 0, 0);
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

/* Meeple options of the tile just placed: local feature indices, one per
 * distinct unoccupied feature (the lowest index naming it). Returns their
 * number. The roots seen so far sit in the bytes of one word (unused bytes
 * 0xff, never a node), so "seen before?" is a zero-byte test, not a loop. */
static int meeple_options(const carc_state *s, uint8_t *segs)
{
    if (s->supply[s->player] == 0)
        return 0;
    const carc_placed *pl = &s->placed[s->nplaced - 1];
    unsigned cand = carc__cand[pl->type][s->rules.opt[CARC_OPT_FARMS] != 0];
    const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
    uint64_t seen = ~0ULL;
    int n = 0;
    for (; cand; cand &= cand - 1) {
        int g = __builtin_ctz(cand), r = find(s, pl->node0 + g);
        uint64_t x = seen ^ ((uint64_t)r * ones);
        int fresh = ((x - ones) & ~x & highs) == 0;
        seen = seen << 8 | (uint64_t)r;
        segs[n] = (uint8_t)g;
        n += fresh & (s->mee[r] == 0);
    }
    return n;
}

int carc_meeple_options_for(const carc_state *s, eng_move place, uint8_t *segs)
{
    if (s->phase != CARC_PLACE || place < 0 || s->supply[s->player] == 0)
        return 0;
    int cell = place >> 2, rot = place & 3;
    if (cell >= CARC_CELLS)
        return 0;
    const carc_type *ty = &T()[s->drawn];
    const carc_tile *rt = &ty->rot[rot];
    bool farms = s->rules.opt[CARC_OPT_FARMS] != 0;
    /* the neighbour features each local segment would join, as place() unites them */
    uint8_t joined[CARC_MAX_SEGS][12];
    int nj[CARC_MAX_SEGS] = {0};
#define JOIN(g, node) (joined[g][nj[g]++] = (uint8_t)find(s, (node)))
    for (int d = 0; d < 4; d++) {
        uint8_t nb = s->grid[wrap(cell + dcell[d])];
        if (nb == 0 || nb >= CARC_CELL_OPEN0)
            continue;
        int od = (d + 2) & 3;
        const carc_placed *q = &s->placed[nb - 1];
        const carc_tile *qt = &T()[q->type].rot[q->rot];
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
    debug_check(s, -1, "legal_moves");
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
        int k = meeple_options(s, segs);
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
    debug_check(s, m, "apply");
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

/* The random meeple decision, out of line: the placement's path stays light. */
static __attribute__((noinline)) eng_move random_meeple(const carc_state *s, eng_rng *rng)
{
    uint8_t segs[CARC_MAX_SEGS];
    int k = meeple_options(s, segs);
    uint32_t pick = eng_rng_below(rng, (uint32_t)k + 1);
    return pick == 0 ? CARC_NO_MEEPLE : CARC_MEEPLE0 + segs[pick - 1];
}

/* The random placement: the k-th distinct placement in the order of
 * legal_moves. */
static inline eng_move random_placement(const carc_state *s, eng_rng *rng)
{
    /* walk the open cells, one table byte each */
    uint32_t k = eng_rng_below(rng, s->nfit[s->drawn]);
    const uint8_t *cnt = carc__cnt[s->drawn];
    const carc_open *o = s->opens;
    /* four cells at a step while the k-th is further on (the cells read
     * past the last open one, at most 3, come after the k-th) */
    for (uint32_t c; k >= (c = (uint32_t)cnt[o[0].pattern] + cnt[o[1].pattern] + cnt[o[2].pattern] +
                               cnt[o[3].pattern]);
         o += 4)
        k -= c;
    /* then the k-th is one of the next four: find it without a branch */
    uint32_t c0 = cnt[o[0].pattern], c1 = c0 + cnt[o[1].pattern], c2 = c1 + cnt[o[2].pattern];
    uint32_t m0 = (uint32_t)opaque(-(int)(k >= c0)), m1 = (uint32_t)opaque(-(int)(k >= c1)),
             m2 = (uint32_t)opaque(-(int)(k >= c2));
    uint32_t before = (c0 & m0 & ~m1) | (c1 & m1 & ~m2) | (c2 & m2);
    o += (m0 & 1) + (m1 & 1) + (m2 & 1);
    return o->cell * 4 + carc__sel[carc__fit[o->pattern][s->drawn]][k - before];
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
    int plies = 0;
    for (;; plies++) {
        switch (s->phase) {
        case CARC_DRAW: draw(s, bag_pick(s, eng_rng_below(rng, s->bag_n))); break;
        case CARC_PLACE: place_move(s, random_placement(s, rng)); break;
        case CARC_MEEPLE: meeple_move(s, random_meeple(s, rng)); break;
        default: return plies;
        }
    }
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
    int cell = carc_cell(x, y);
    uint8_t g = s->grid[cell];
    if (g < CARC_CELL_OPEN0)
        return ENG_EILLEGAL_MOVE;
    const carc_open *o = &s->opens[g - CARC_CELL_OPEN0];
    if (o->x != x || o->y != y)
        return ENG_EILLEGAL_MOVE;
    int canon = T()[s->drawn].canon[rot];
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
    uint8_t seg = T()[pl->type].rot[pl->rot].seg[port];
    if (seg == 0xff)
        return ENG_EILLEGAL_MOVE;
    int r = find(s, pl->node0 + seg);
    uint8_t segs[CARC_MAX_SEGS];
    int k = meeple_options(s, segs);
    for (int i = 0; i < k; i++)
        if (find(s, pl->node0 + segs[i]) == r) {
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
        *x = s->opens[g - CARC_CELL_OPEN0].x;
        *y = s->opens[g - CARC_CELL_OPEN0].y;
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
        n = snprintf(buf, cap, "%c", T()[m].letter);
    } else if (s->phase == CARC_PLACE) {
        int x, y, rot;
        if (carc_decode_place(s, m, &x, &y, &rot) != 0)
            return ENG_EINVAL;
        n = snprintf(buf, cap, "%c %d %d %d", T()[s->drawn].letter, x, y, rot);
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
    const carc_type *ty = &T()[pl->type];
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
            s->phase == CARC_DRAW ? "" : " ", s->phase == CARC_DRAW ? ' ' : T()[s->drawn].letter);
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
