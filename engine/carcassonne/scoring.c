/*
 * scoring.c — Carcassonne's scoring (engine/carcassonne): what a feature
 * is worth, completed features scored when the turn ends, the final
 * scoring, the scores as if the game ended now, and Heyden's evaluation.
 *
 * A feature's value is read from its root's aggregates and a walk of its
 * circular segment list (distinct tiles, a field's completed cities).
 * Nothing here changes the board: scoring returns meeples and adds points.
 * At the end of a game whose features are many and whose kinds are coin
 * tosses, the per-seat and per-kind choices are made without branches.
 */
#include "carcassonne.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "internal.h"

/* ---- scoring ------------------------------------------------------------- */

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
    return carc__pop64(seen[0]) + carc__pop64(seen[1]);
}

/* 3 points per completed city the field touches, each counted once: a
 * city's root is counted when its byte in this thread's stamps is not yet
 * this call's stamp, then stamped (no table to clear per call, none to sum:
 * the stamps are cleared once every 255 calls). A segment's missing city,
 * or one not completed, goes to byte 255 (no root: there are at most 243),
 * stamped before the walk, without a branch. */
static _Thread_local uint8_t city_stamp[CARC_MAX_NODES];
static _Thread_local uint8_t city_epoch;

static int field_value(const carc_state *s, int root)
{
    if (++city_epoch == 0) {
        memset(city_stamp, 0, sizeof city_stamp);
        city_epoch = 1;
    }
    unsigned e = city_epoch;
    uint8_t *stamp = city_stamp;
    stamp[255] = (uint8_t)e;
    int count = 0, n = root;
    do {
        const carc_placed *pl = &s->placed[s->tile[n]];
        unsigned fc = carc__fcity[pl->type][n - pl->node0];
        int c0 = carc__find(s, pl->node0 + (int)(fc & 7u));
        c0 |= carc__opaque(-(int)(((fc & 0x80u) != 0) | (s->open[c0] != 0))) & 0xff;
        count += stamp[c0] != e;
        stamp[c0] = (uint8_t)e;
        int c1 = carc__find(s, pl->node0 + (int)(fc >> 8 & 7u));
        c1 |= carc__opaque(-(int)(((fc & 0x8000u) != 0) | (s->open[c1] != 0))) & 0xff;
        count += stamp[c1] != e;
        stamp[c1] = (uint8_t)e;
        n = s->nxt[n];
    } while (n != root);
    return 3 * count;
}

/* The value of the feature at root r (see carc_feature_value): a field's
 * walk, or the tiles of any other kind, whose value is then selected
 * without a branch on the kind (a coin toss at the end of a game). */
static int value_of_root(const carc_state *s, int r)
{
    int k = s->kind[r];
    if (k == CARC_FIELD)
        return field_value(s, r);
    int tiles = distinct_tiles(s, r), open = s->open[r], pen = s->pen[r];
    int city = open != 0 ? tiles + pen
                         : (tiles == 2 && s->rules.opt[CARC_OPT_TINY_CITY] == 2 ? 2
                                                                              : 2 * tiles + 2 * pen);
    int v = k == CARC_CITY ? city : k == CARC_ROAD ? tiles : 9 - open;
    return k == CARC_NONE ? 0 : v;
}

int carc_feature_value(const carc_state *s, int node)
{
    return value_of_root(s, carc__find(s, node));
}

bool carc_feature_complete(const carc_state *s, int node)
{
    int r = carc__find(s, node);
    return s->kind[r] != CARC_FIELD && s->open[r] == 0;
}

/* Award the feature at root r to the players with the most meeples on it,
 * adding to pts[]. */
static void award(const carc_state *s, int r, int *pts)
{
    int cnt[ENG_MAX_PLAYERS] = {0};
    for (int i = 0; i < s->nmeeples; i++)
        if (carc__find(s, s->meeple[i].node) == r)
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

void carc__score_completed(carc_state *s, int r)
{
    int pts[ENG_MAX_PLAYERS] = {0};
    award(s, r, pts);
    for (int p = 0; p < s->rules.players; p++)
        s->score[p] = (int16_t)(s->score[p] + pts[p]);
    for (int i = 0; i < s->nmeeples;) {
        if (carc__find(s, s->meeple[i].node) == r) {
            s->supply[s->meeple[i].player]++;
            s->meeple[i] = s->meeple[--s->nmeeples];
        } else {
            i++;
        }
    }
    s->mee[r] = 0;
}

/* The features with meeples on them: each one's root, and the seats with
 * the most meeples on it as a bit mask (ties share). Returns how many, k;
 * slot[r] is root r's index in roots (0xff for a root without meeples). */
enum { CARC_MAX_HELD = ENG_MAX_PLAYERS * CARC_MEEPLES };
static int held_features(const carc_state *s, uint8_t roots[CARC_MAX_HELD],
                         uint8_t holders[CARC_MAX_HELD], uint8_t slot[CARC_MAX_NODES])
{
    uint8_t cnt[CARC_MAX_HELD][ENG_MAX_PLAYERS];
    int nr = 0;
    memset(slot, 0xff, CARC_MAX_NODES);
    for (int i = 0; i < s->nmeeples; i++) {
        int r = carc__find(s, s->meeple[i].node);
        if (slot[r] == 0xff) {
            slot[r] = (uint8_t)nr;
            roots[nr] = (uint8_t)r;
            memset(cnt[nr], 0, sizeof cnt[nr]);
            nr++;
        }
        cnt[slot[r]][s->meeple[i].player]++;
    }
    for (int k = 0; k < nr; k++) { /* without a branch per seat: coin tosses */
        int best = 0;
        for (int p = 0; p < s->rules.players; p++)
            best = cnt[k][p] > best ? cnt[k][p] : best;
        unsigned h = 0;
        for (int p = 0; p < s->rules.players; p++)
            h |= (unsigned)(cnt[k][p] == best) << p;
        holders[k] = (uint8_t)h;
    }
    return nr;
}

/* The completed cities that the held fields touch, counted from the
 * cities' side: cities[k] for the field at slot k (slot[] as held_features
 * fills it), each city once per field. field_value walks a field's segments;
 * at the end of a game the held fields are many and large (a meeple on a
 * field stays there), while the completed cities are few and small, so the
 * final scoring walks these instead: every completed city root (par[r] ==
 * r, a city with no open side), its segments, and on each segment's tile
 * the fields beside it (cfield), the same pairs as fcity. A field's value
 * is then 3 x cities[k], equal to field_value's (the oracle checks both). */
static void held_field_cities(const carc_state *s, const uint8_t slot[CARC_MAX_NODES],
                              uint8_t cities[CARC_MAX_NODES])
{
    /* slot 0xff (no meeples) counts into cities[0xff], never read; the
     * held slots are below CARC_MAX_HELD, so only those and 0xff are
     * cleared (not the 512 bytes) */
    uint8_t last[CARC_MAX_NODES]; /* the last city counted for a slot, + 1 */
    _Static_assert(CARC_MAX_HELD <= 48, "three 16-byte stores clear the held slots");
    memset(cities, 0, 48);
    memset(last, 0, 48);
    last[0xff] = 0;
    int e = 0, nn = s->nnodes;
    for (int base = 0; base < nn; base += 16) {
        unsigned found; /* bit i: node base + i is a completed city's root */
#ifdef __SSE2__
        _Static_assert(CARC_MAX_NODES % 16 == 0, "the scan reads whole 16-byte rows");
        const __m128i iota = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        __m128i par = _mm_loadu_si128((const __m128i *)(s->par + base));
        __m128i kind = _mm_loadu_si128((const __m128i *)(s->kind + base));
        __m128i open = _mm_loadu_si128((const __m128i *)(s->open + base));
        __m128i root = _mm_cmpeq_epi8(par, _mm_add_epi8(iota, _mm_set1_epi8((char)base)));
        __m128i city = _mm_cmpeq_epi8(kind, _mm_set1_epi8(CARC_CITY));
        __m128i closed = _mm_cmpeq_epi8(open, _mm_setzero_si128());
        found = (unsigned)_mm_movemask_epi8(_mm_and_si128(root, _mm_and_si128(city, closed)));
#else
        found = 0;
        for (int i = 0; i < 16 && base + i < CARC_MAX_NODES; i++) {
            int r = base + i;
            found |= (unsigned)(s->par[r] == r && s->kind[r] == CARC_CITY && s->open[r] == 0) << i;
        }
#endif
        if (nn - base < 16)
            found &= (1u << (nn - base)) - 1u;
        for (; found; found &= found - 1) {
            int c = base + __builtin_ctz(found), n = c;
            e++; /* a completed city spans two tiles or more: at most 72 * 4 / 2 = 144 < 256 */
            do {
                const carc_placed *pl = &s->placed[s->tile[n]];
                for (unsigned fm = carc__cfield[pl->type][n - pl->node0]; fm; fm &= fm - 1) {
                    unsigned k = slot[s->par[pl->node0 + __builtin_ctz(fm)]];
                    cities[k] = (uint8_t)(cities[k] + (last[k] != e));
                    last[k] = (uint8_t)e;
                }
                n = s->nxt[n];
            } while (n != c);
        }
    }
}

/* Points every player would add if the game ended now: each occupied
 * feature once, to the players with the most meeples on it. */
/* The values of the nr held features (held_features' roots and slot), as
 * value_of_root gives them; the fields' from held_field_cities. */
static void held_values(const carc_state *s, const uint8_t *roots, int nr,
                        const uint8_t slot[CARC_MAX_NODES], int *v)
{
    /* the fields and the others in two lists, without a branch on the kind
     * (a coin toss): each slot is written to both lists, and only its own
     * list's count moves */
    uint8_t fields[CARC_MAX_HELD], others[CARC_MAX_HELD];
    int nf = 0, no = 0;
    for (int k = 0; k < nr; k++) {
        int f = s->kind[roots[k]] == CARC_FIELD;
        fields[nf] = (uint8_t)k;
        others[no] = (uint8_t)k;
        nf += f;
        no += 1 - f;
    }
    if (nf) {
        uint8_t cities[CARC_MAX_NODES];
        held_field_cities(s, slot, cities);
        for (int i = 0; i < nf; i++)
            v[fields[i]] = 3 * cities[fields[i]];
    }
    for (int i = 0; i < no; i++)
        v[others[i]] = value_of_root(s, roots[others[i]]);
}

static void end_points(const carc_state *s, int *pts)
{
    uint8_t roots[CARC_MAX_HELD], holders[CARC_MAX_HELD], slot[CARC_MAX_NODES];
    int val[CARC_MAX_HELD];
    int nr = held_features(s, roots, holders, slot);
    held_values(s, roots, nr, slot, val);
    for (int k = 0; k < nr; k++) {
        int v = val[k];
        for (int p = 0; p < s->rules.players; p++)
            pts[p] += v & -(int)(holders[k] >> p & 1);
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
    uint8_t roots[CARC_MAX_HELD], holders[CARC_MAX_HELD], slot[CARC_MAX_NODES];
    int val[CARC_MAX_HELD];
    int nr = held_features(s, roots, holders, slot), np = s->rules.players;
    held_values(s, roots, nr, slot, val);
    double other[ENG_MAX_PLAYERS] = {0}, city[ENG_MAX_PLAYERS] = {0};
    int thin_fields = 0;
    for (int k = 0; k < nr; k++) {
        int r = roots[k], v = val[k];
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

void carc_virtual_scores(const carc_state *s, int *out)
{
    int pts[ENG_MAX_PLAYERS] = {0};
    if (s->phase != CARC_OVER)
        end_points(s, pts);
    for (int p = 0; p < s->rules.players; p++)
        out[p] = s->score[p] + pts[p];
}

void carc__end_game(carc_state *s)
{
    int pts[ENG_MAX_PLAYERS] = {0};
    end_points(s, pts);
    for (int p = 0; p < s->rules.players; p++)
        s->score[p] = (int16_t)(s->score[p] + pts[p]);
    s->phase = CARC_OVER;
}
