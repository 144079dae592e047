/*
 * carcassonne.c — the rules of Carcassonne behind the generic game vtable.
 *
 * Features (cities, roads, fields, cloisters) are tracked as a union-find
 * forest over the feature segments of the placed tiles. Each root carries the
 * aggregates the rules need: unmatched sides (a city or road is complete when
 * none are left), pennants and meeples; the segments of one feature also form
 * a circular list so that scoring can count distinct tiles (a feature may
 * reach the same tile twice, e.g. both cities of an H) and a field can find
 * the cities it touches. Cloisters count their empty neighbours instead.
 *
 * Legal placements come from the open cells (empty cells next to a tile):
 * each keeps a byte with the edge kind its neighbours require on each side,
 * and a precomputed table maps (byte, tile type) to the rotations that fit.
 * Nothing here allocates; everything lives in the fixed-size carc_state.
 */
#include "carcassonne.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

#define ORIGIN ((CARC_GH / 2) * CARC_GW + CARC_GW / 2)

static const int dx[4] = {0, 1, 0, -1};
static const int dy[4] = {-1, 0, 1, 0};
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

/* ---- union-find over feature segments --------------------------------- */

static inline int find(const carc_state *s, int n)
{
    while (s->par[n] != n)
        n = s->par[n];
    return n;
}

int carc_root(const carc_state *s, int node)
{
    return find(s, node);
}

static inline int find_mut(carc_state *s, int n)
{
    while (s->par[n] != n) {
        s->par[n] = s->par[s->par[n]];
        n = s->par[n];
    }
    return n;
}

/* Merge the features of segments a and b; returns the root. */
static int unite(carc_state *s, int a, int b)
{
    int ra = find_mut(s, a), rb = find_mut(s, b);
    if (ra == rb)
        return ra;
    if (s->size[ra] < s->size[rb]) {
        int t = ra;
        ra = rb;
        rb = t;
    }
    s->par[rb] = (uint8_t)ra;
    s->size[ra] = (uint8_t)(s->size[ra] + s->size[rb]);
    s->open[ra] = (uint8_t)(s->open[ra] + s->open[rb]);
    s->pen[ra] = (uint8_t)(s->pen[ra] + s->pen[rb]);
    s->mee[ra] = (uint8_t)(s->mee[ra] + s->mee[rb]);
    uint8_t t = s->nxt[ra];
    s->nxt[ra] = s->nxt[rb];
    s->nxt[rb] = t;
    return ra;
}

/* ---- open cells -------------------------------------------------------- */

/* Keep nfit[] (placements per tile type) in step with the open cells: a
 * cell's pattern enters, leaves, or changes. Plain loops over 24 lanes,
 * which the compiler turns into a few vector adds. */
typedef uint16_t lanes8 __attribute__((vector_size(16))); /* 8 x u16, one SSE register */
_Static_assert(CARC_NTYPES % 8 == 0, "nfit is updated 8 lanes at a time");

static inline void nfit_update(carc_state *s, uint8_t pattern, bool add)
{
    const uint16_t *v = carc__nfit[pattern];
    for (int k = 0; k < CARC_NTYPES; k += 8) {
        lanes8 a, b;
        memcpy(&a, s->nfit + k, sizeof a);
        memcpy(&b, v + k, sizeof b);
        a = add ? a + b : a - b;
        memcpy(s->nfit + k, &a, sizeof a);
    }
}

static inline void nfit_add(carc_state *s, uint8_t pattern)
{
    nfit_update(s, pattern, true);
}

static inline void nfit_sub(carc_state *s, uint8_t pattern)
{
    nfit_update(s, pattern, false);
}

static void open_remove(carc_state *s, int slot)
{
    nfit_sub(s, s->opens[slot].pattern);
    int last = --s->nopen;
    if (slot != last) {
        s->opens[slot] = s->opens[last];
        s->grid[s->opens[slot].cell] = (uint8_t)(CARC_CELL_OPEN0 + slot);
    }
}

static void open_add(carc_state *s, int cell, int x, int y, uint8_t pattern)
{
    int slot = s->nopen++;
    s->opens[slot].cell = (uint16_t)cell;
    s->opens[slot].x = (int8_t)x;
    s->opens[slot].y = (int8_t)y;
    s->opens[slot].pattern = pattern;
    s->grid[cell] = (uint8_t)(CARC_CELL_OPEN0 + slot);
    nfit_add(s, pattern);
}

/* ---- placing a tile ------------------------------------------------------ */

static void add_complete(carc_state *s, int node)
{
    for (int i = 0; i < s->ncomplete; i++)
        if (s->complete[i] == node)
            return;
    s->complete[s->ncomplete++] = (uint8_t)node;
}

/* Put a tile on the board, merge its features with the neighbours', update
 * the open cells and record which features it completed. */
static void place(carc_state *s, int type, int rot, int cell, int x, int y)
{
    const carc_type *ty = &T()[type];
    const carc_tile *rt = &ty->rot[rot];
    int idx = s->nplaced++;
    int node0 = s->nnodes;
    carc_placed *pl = &s->placed[idx];
    pl->type = (uint8_t)type;
    pl->rot = (uint8_t)rot;
    pl->x = (int8_t)x;
    pl->y = (int8_t)y;
    pl->cell = (uint16_t)cell;
    pl->node0 = (uint8_t)node0;

    for (int g = 0; g < ty->nseg; g++) {
        int n = node0 + g;
        s->par[n] = (uint8_t)n;
        s->nxt[n] = (uint8_t)n;
        s->size[n] = 1;
        s->kind[n] = ty->kind[g];
        s->tile[n] = (uint8_t)idx;
        s->open[n] = ty->edges[g];
        s->pen[n] = ty->pennant[g];
        s->mee[n] = 0;
    }
    s->nnodes = (uint8_t)(node0 + ty->nseg);

    uint8_t gb = s->grid[cell];
    if (gb >= CARC_CELL_OPEN0)
        open_remove(s, gb - CARC_CELL_OPEN0);
    s->grid[cell] = (uint8_t)(idx + 1);

    bool farms = s->rules.opt[CARC_OPT_FARMS] != 0;
    s->ncomplete = 0;
    for (int d = 0; d < 4; d++) {
        int nc = wrap(cell + dcell[d]);
        int od = (d + 2) & 3;
        uint8_t nb = s->grid[nc];
        uint8_t ek = rt->edge[d];
        if (nb == 0) {
            open_add(s, nc, x + dx[d], y + dy[d], (uint8_t)(ek << (2 * od)));
        } else if (nb >= CARC_CELL_OPEN0) {
            carc_open *o = &s->opens[nb - CARC_CELL_OPEN0];
            nfit_sub(s, o->pattern);
            o->pattern |= (uint8_t)(ek << (2 * od));
            nfit_add(s, o->pattern);
        } else {
            const carc_placed *q = &s->placed[nb - 1];
            const carc_tile *qt = &T()[q->type].rot[q->rot];
            int a = node0 + rt->seg[3 * d + 1];
            int b = q->node0 + qt->seg[3 * od + 1];
            if (ek == CARC_FIELD) {
                if (farms)
                    unite(s, a, b);
                continue;
            }
            int r = unite(s, a, b);
            s->open[r] = (uint8_t)(s->open[r] - 2);
            if (ek == CARC_ROAD && farms) {
                unite(s, node0 + rt->seg[3 * d], q->node0 + qt->seg[3 * od + 2]);
                unite(s, node0 + rt->seg[3 * d + 2], q->node0 + qt->seg[3 * od]);
            }
        }
    }

    for (int g = 0; g < ty->nseg; g++) {
        int k = ty->kind[g];
        if (k == CARC_CITY || k == CARC_ROAD) {
            int r = find_mut(s, node0 + g);
            if (s->open[r] == 0)
                add_complete(s, r);
        }
    }

    /* Cloisters: this tile's own, and any among the eight neighbours. */
    int filled = 0;
    for (int i = 0; i < 8; i++) {
        uint8_t nb = s->grid[wrap(cell + dcell8[i])];
        if (nb == 0 || nb >= CARC_CELL_OPEN0)
            continue;
        filled++;
        const carc_placed *q = &s->placed[nb - 1];
        uint8_t cs = T()[q->type].rot[0].seg[CARC_C];
        if (cs == 0xff)
            continue;
        int cn = q->node0 + cs;
        if (--s->open[cn] == 0)
            add_complete(s, cn);
    }
    uint8_t own = rt->seg[CARC_C];
    if (own != 0xff) {
        s->open[node0 + own] = (uint8_t)(8 - filled);
        if (filled == 8)
            add_complete(s, node0 + own);
    }
}

/* ---- scoring ------------------------------------------------------------- */

static int distinct_tiles(const carc_state *s, int root)
{
    uint64_t seen[2] = {0, 0};
    int n = root, count = 0;
    do {
        int t = s->tile[n];
        uint64_t bit = 1ULL << (t & 63);
        if (!(seen[t >> 6] & bit)) {
            seen[t >> 6] |= bit;
            count++;
        }
        n = s->nxt[n];
    } while (n != root);
    return count;
}

static int field_value(const carc_state *s, int root)
{
    uint64_t seen[CARC_MAX_NODES / 64] = {0};
    int n = root, cities = 0;
    do {
        const carc_placed *pl = &s->placed[s->tile[n]];
        uint8_t mask = T()[pl->type].cities[n - pl->node0];
        while (mask) {
            int c = __builtin_ctz(mask);
            mask &= (uint8_t)(mask - 1);
            int cr = find(s, pl->node0 + c);
            if (s->open[cr] != 0)
                continue;
            uint64_t bit = 1ULL << (cr & 63);
            if (!(seen[cr >> 6] & bit)) {
                seen[cr >> 6] |= bit;
                cities++;
            }
        }
        n = s->nxt[n];
    } while (n != root);
    return 3 * cities;
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

static void score_and_return(carc_state *s, int r)
{
    if (s->mee[r] == 0)
        return;
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

static void end_game(carc_state *s)
{
    int pts[ENG_MAX_PLAYERS] = {0};
    end_points(s, pts);
    for (int p = 0; p < s->rules.players; p++)
        s->score[p] = (int16_t)(s->score[p] + pts[p]);
    s->phase = CARC_OVER;
}

/* ---- the turn ------------------------------------------------------------ */

int carc_count_placements(const carc_state *s, int type)
{
    return s->nfit[type]; /* kept up to date by the open-cell updates */
}

static void draw(carc_state *s, int type)
{
    s->bag[type]--;
    s->bag_n--;
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
        int r = find_mut(s, n);
        s->mee[r]++;
        s->meeple[s->nmeeples].node = (uint8_t)n;
        s->meeple[s->nmeeples].player = s->player;
        s->nmeeples++;
        s->supply[s->player]--;
    }
    for (int i = 0; i < s->ncomplete; i++)
        score_and_return(s, s->complete[i]);
    s->ncomplete = 0;
    s->player = (uint8_t)((s->player + 1) % s->rules.players);
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
}

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
    for (int t = 0; t < CARC_NTYPES; t++) {
        s->bag[t] = ty[t].count;
        s->bag_n = (uint8_t)(s->bag_n + ty[t].count);
    }
    int start = carc_type_of_letter('D');
    s->bag[start]--;
    s->bag_n--;
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
    switch (s->phase) {
    case CARC_DRAW: return ENG_CHANCE;
    case CARC_OVER: return ENG_TERMINAL;
    default: return s->player;
    }
}

/* Meeple options of the tile just placed: local feature indices, one per
 * distinct unoccupied feature. Returns their number. */
static int meeple_options(const carc_state *s, uint8_t *segs)
{
    if (s->supply[s->player] == 0)
        return 0;
    const carc_placed *pl = &s->placed[s->nplaced - 1];
    const carc_type *ty = &T()[pl->type];
    bool farms = s->rules.opt[CARC_OPT_FARMS] != 0;
    int roots[CARC_MAX_SEGS];
    int n = 0, nr = 0;
    for (int g = 0; g < ty->nseg; g++) {
        if (ty->kind[g] == CARC_FIELD && !farms)
            continue;
        int r = find(s, pl->node0 + g);
        bool dup = false;
        for (int i = 0; i < nr; i++)
            if (roots[i] == r)
                dup = true;
        if (dup)
            continue;
        roots[nr++] = r;
        if (s->mee[r] == 0)
            segs[n++] = (uint8_t)g;
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
    uint32_t r = eng_rng_below(rng, s->bag_n);
    int t = 0;
    while (r >= s->bag[t]) {
        r -= s->bag[t];
        t++;
    }
    return t;
}

static eng_move carc_random_move(const void *st, eng_rng *rng)
{
    const carc_state *s = st;
    if (s->phase == CARC_PLACE) {
        uint32_t k = eng_rng_below(rng, s->nfit[s->drawn]);
        for (int i = 0;; i++) {
            unsigned m = carc__fit[s->opens[i].pattern][s->drawn];
            unsigned c = (unsigned)carc__nrot(m);
            if (k < c) {
                while (k--)
                    m &= m - 1;
                return s->opens[i].cell * 4 + __builtin_ctz(m);
            }
            k -= c;
        }
    }
    uint8_t segs[CARC_MAX_SEGS];
    int k = meeple_options(s, segs);
    uint32_t pick = eng_rng_below(rng, (uint32_t)k + 1);
    return pick == 0 ? CARC_NO_MEEPLE : CARC_MEEPLE0 + segs[pick - 1];
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
    .eval_names = carc_eval_names,
    .evaluate_named = carc_evaluate_named,
    .rate_moves = carc_rate_moves,
};
