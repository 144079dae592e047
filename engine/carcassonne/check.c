/*
 * check.c — the invariants of a Carcassonne state (engine/carcassonne),
 * after Edax's board_check: carc_check (quick: counts, bag, meeples,
 * cloister table, drawn tile; deep: every tile, open cell and feature
 * against the grid and each other), and in debug builds (ENG_CHECKS) the
 * check at the top of apply and legal_moves that also tests apply's move.
 */
#include "carcassonne.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "internal.h"

/* ---- invariants ---------------------------------------------------------- */

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
    const carc_type *ty = carc__types;
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
        int ox = CARC_NOWHERE, oy = CARC_NOWHERE;
        if (o->cell < CARC_CELLS && carc__sides[o->pattern] != 0)
            carc_open_xy(s, o, &ox, &oy);
        if (o->cell >= CARC_CELLS || o->cell != carc_cell(ox, oy) ||
            s->grid[o->cell] != CARC_CELL_OPEN0 + i || o->pad != 0)
            return BAD("open cell %d at %d,%d: cell %d, grid %d, pattern %#x", i, ox, oy,
                       o->cell, o->cell < CARC_CELLS ? s->grid[o->cell] : -1, o->pattern);
        unsigned want = 0;
        for (int d = 0; d < 4; d++) {
            uint8_t nb = s->grid[carc__nbrxy[o->cell][d] & 0xffffu];
            if (nb >= 1 && nb < CARC_CELL_OPEN0) {
                const carc_placed *q = &s->placed[nb - 1];
                want |= (unsigned)ty[q->type].rot[q->rot].edge[(d + 2) & 3] << (2 * d);
            }
        }
        if (want == 0 || o->pattern != want)
            return BAD("open cell %d at %d,%d: pattern %#x, its neighbours require %#x", i, ox,
                       oy, o->pattern, want);
        for (int t = 0; t < CARC_NTYPES; t++)
            nfit[t] += carc__cnt[t][o->pattern];
    }
    /* the slots past the last open cell are zero: a new open cell's old
     * pattern reads as 0 there (board.c's open_cells) */
    for (int i = s->nopen; i < CARC_MAX_OPEN; i++)
        if (s->opens[i].cell != 0 || s->opens[i].pattern != 0 || s->opens[i].pad != 0)
            return BAD("open slot %d past the last (%d) is not zero: cell %d, pattern %#x", i,
                       s->nopen, s->opens[i].cell, s->opens[i].pattern);
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
        int k = carc__meeple_options(s, segs);
        for (int i = 0; i < k; i++)
            if (m == CARC_MEEPLE0 + segs[i])
                return true;
        return false;
    }
    default: return false;
    }
}

/* The ENG_CHECKS hook at the top of apply (m >= 0) and legal_moves (m < 0). */
void carc__debug_check(const carc_state *s, eng_move m, const char *where)
{
    char why[256];
    if (carc_check(s, false, why, sizeof why) != 0)
        eng_check_failed("carcassonne", __FILE__, __LINE__, "%s: %s", where, why);
    if (m >= 0 && !move_ok(s, m))
        eng_check_failed("carcassonne", __FILE__, __LINE__, "apply: move %d is not legal in phase %d",
                         (int)m, s->phase);
}
#endif
