/*
 * schedule.c — what each format plays and when (docs/tournaments.md):
 *
 *   round-robin  k = 2: the circle method (every participant at most once
 *                per round), every pair once per cycle; k > 2: every
 *                k-subset per cycle, or a greedy balanced design when there
 *                would be more than TOUR_MAX_SUBSET_TABLES;
 *   gauntlet     participant 0 with every other (k = 2), or with every
 *                (k-1)-subset of the others (balanced passes when too many);
 *   swiss        Monrad pairing by round points with no repeat meeting where
 *                a backtracking search finds one, byes to the lowest ranked
 *                without one;
 *   knockout     a seeded bracket (1 v N, byes to the top seeds), ties of
 *                best_of groups decided by points, point difference, extra
 *                groups, then seeding.
 *
 * Groups of a round are laid out "group-major": every table's first group,
 * then every table's second, so a tournament stopped half-way has played
 * every pairing about equally. Decisions (knockout ties, the SPRT) are
 * pure functions of the results in schedule order: re-evaluated from
 * scratch after a load they give the same answers.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tournament/internal.h"

/* ---- building blocks ---------------------------------------------------------- */

int tour__add_pairing(tour *t, int round, const int *members, int64_t *out)
{
    if (t->npair == t->cappair) {
        int64_t cap = t->cappair ? 2 * t->cappair : 64;
        tour__pairing *p = realloc(t->pair, (size_t)cap * sizeof *p);
        if (!p)
            return ENG_ENOMEM;
        t->pair = p;
        t->cappair = cap;
    }
    tour__pairing *p = &t->pair[t->npair];
    memset(p, 0, sizeof *p);
    p->round = round;
    p->regular = t->gpg;
    for (int b = 0; b < t->k; b++)
        p->member[b] = (int16_t)members[b];
    if (round + 1 > t->rounds_scheduled)
        t->rounds_scheduled = round + 1;
    if (out)
        *out = t->npair;
    t->npair++;
    return 0;
}

int tour__add_group(tour *t, int64_t pairing, int64_t *out)
{
    int k = t->k;
    if (tour__ngames(t) + k > TOUR_MAX_GAMES)
        return ENG_ETOO_MANY;
    if (t->ngroups == t->capgroups) {
        int64_t cap = t->capgroups ? 2 * t->capgroups : 256;
        int64_t *gp = realloc(t->group_pair, (size_t)cap * sizeof *gp);
        if (!gp)
            return ENG_ENOMEM;
        t->group_pair = gp;
        uint8_t *st = realloc(t->status, (size_t)(cap * k));
        if (!st)
            return ENG_ENOMEM;
        t->status = st;
        tour__res **res = realloc(t->res, (size_t)(cap * k) * sizeof *res);
        if (!res)
            return ENG_ENOMEM;
        t->res = res;
        char **ref = realloc(t->ref, (size_t)(cap * k) * sizeof *ref);
        if (!ref)
            return ENG_ENOMEM;
        t->ref = ref;
        t->capgroups = cap;
    }
    tour__pairing *p = &t->pair[pairing];
    if (p->ngrp == p->capgrp) {
        int cap = p->capgrp ? 2 * p->capgrp : 4;
        int64_t *g = realloc(p->grp, (size_t)cap * sizeof *g);
        if (!g)
            return ENG_ENOMEM;
        p->grp = g;
        p->capgrp = cap;
    }
    int64_t g = t->ngroups++;
    p->grp[p->ngrp++] = g;
    t->group_pair[g] = pairing;
    for (int r = 0; r < k; r++) {
        int64_t id = g * k + r;
        t->status[id] = TOUR_PENDING;
        t->res[id] = NULL;
        t->ref[id] = NULL;
    }
    t->cnt[TOUR_PENDING] += k;
    if (out)
        *out = g;
    return 0;
}

/* Groups for pairings [from, to): `groups` each, group-major. */
static int add_groups(tour *t, int64_t from, int64_t to, int groups)
{
    for (int g = 0; g < groups; g++)
        for (int64_t p = from; p < to; p++) {
            int rc = tour__add_group(t, p, NULL);
            if (rc)
                return rc;
        }
    return 0;
}

static void shuffle(int *a, int n, eng_rng *rng)
{
    for (int i = n - 1; i > 0; i--) {
        int j = (int)eng_rng_below(rng, (uint32_t)i + 1);
        int x = a[i];
        a[i] = a[j];
        a[j] = x;
    }
}

/* Next k-subset of {0..n-1} in lexicographic order; false after the last. */
static bool next_subset(int *c, int k, int n)
{
    int i = k - 1;
    while (i >= 0 && c[i] == n - k + i)
        i--;
    if (i < 0)
        return false;
    c[i]++;
    for (int j = i + 1; j < k; j++)
        c[j] = c[j - 1] + 1;
    return true;
}

/* ---- round-robin and gauntlet -------------------------------------------------------- */

/* The circle method: in round r, r meets the fixed position m-1 and
 * (r+i) meets (r-i) mod (m-1); a dummy (index n when n is odd) is a bye. */
static int rr_pairs(tour *t, int cycle)
{
    int n = t->n, m = n % 2 ? n + 1 : n, R = m - 1;
    for (int r = 0; r < R; r++) {
        for (int i = 0; i < m / 2; i++) {
            int a = i == 0 ? r : (r + i) % R;
            int b = i == 0 ? m - 1 : ((r - i) % R + R) % R;
            if (a >= n || b >= n)
                continue;
            int mem[2] = {a < b ? a : b, a < b ? b : a};
            int rc = tour__add_pairing(t, cycle * R + r, mem, NULL);
            if (rc)
                return rc;
        }
    }
    return 0;
}

/* One round of the greedy balanced design, from a seeded shuffle: the n
 * mod k who sit out are those who sat out least (ties in shuffled order);
 * each table is filled with the candidates who met its members least.
 * Writes the tables (k ids each) and returns the number of repeat
 * meetings it causes. */
static int design_round(int n, int k, const int *met, const int *sat, eng_rng *rng, int *tables,
                        int *sitout)
{
    int order[TOUR_MAX_PARTICIPANTS], rest[TOUR_MAX_PARTICIPANTS], cost = 0, nt = 0;
    for (int i = 0; i < n; i++)
        order[i] = i;
    shuffle(order, n, rng);
    for (int i = 1; i < n; i++) /* stable: fewest sit-outs first */
        for (int j = i; j > 0 && sat[order[j - 1]] > sat[order[j]]; j--) {
            int x = order[j];
            order[j] = order[j - 1];
            order[j - 1] = x;
        }
    int out = n % k, nrest = 0;
    for (int i = 0; i < n; i++) {
        if (i < out)
            sitout[i] = order[i];
        else
            rest[nrest++] = order[i];
    }
    while (nrest > 0) {
        int *table = &tables[nt++ * k];
        table[0] = rest[0];
        memmove(rest, rest + 1, (size_t)--nrest * sizeof *rest);
        for (int m = 1; m < k; m++) {
            int best = 0, bestc = -1;
            for (int i = 0; i < nrest; i++) {
                int c = 0;
                for (int j = 0; j < m; j++)
                    c += met[rest[i] * n + table[j]];
                if (bestc < 0 || c < bestc) {
                    bestc = c;
                    best = i;
                }
            }
            cost += bestc;
            table[m] = rest[best];
            memmove(rest + best, rest + best + 1, (size_t)(--nrest - best) * sizeof *rest);
        }
    }
    return cost;
}

/* Greedy balanced design for k-seat tables when every k-subset is too
 * many: ceil((n-1)/(k-1)) rounds per cycle (enough for everyone to meet
 * everyone once if a perfect design existed) in which everybody plays at
 * most once. Each round is the best of TOUR__DESIGN_TRIES seeded greedy
 * attempts (fewest repeat meetings; the first such). */
#define TOUR__DESIGN_TRIES 64
static int rr_balanced(tour *t, int cycle, int *met, int *sat)
{
    int n = t->n, k = t->k, R = (n - 1 + k - 2) / (k - 1);
    int tables[TOUR_MAX_PARTICIPANTS], best[TOUR_MAX_PARTICIPANTS];
    int sit[ENG_MAX_PLAYERS], bestsit[ENG_MAX_PLAYERS];
    for (int r = 0; r < R; r++) {
        int bestcost = -1;
        for (int a = 0; a < TOUR__DESIGN_TRIES && bestcost != 0; a++) {
            eng_rng rng;
            eng_rng_seed_stream(&rng, t->spec->seed ^ TOUR__TAG_DESIGN,
                                ((uint64_t)cycle * (uint64_t)R + (uint64_t)r) * TOUR__DESIGN_TRIES +
                                    (uint64_t)a);
            int cost = design_round(n, k, met, sat, &rng, tables, sit);
            if (bestcost < 0 || cost < bestcost) {
                bestcost = cost;
                memcpy(best, tables, sizeof tables);
                memcpy(bestsit, sit, sizeof sit);
            }
        }
        for (int i = 0; i < n % k; i++)
            sat[bestsit[i]]++;
        for (int x = 0; x < n / k; x++) {
            const int *table = &best[x * k];
            for (int a = 0; a < k; a++)
                for (int b = 0; b < k; b++)
                    if (a != b)
                        met[table[a] * n + table[b]]++;
            int rc = tour__add_pairing(t, cycle * R + r, table, NULL);
            if (rc)
                return rc;
        }
    }
    return 0;
}

/* Gauntlet of k-seat tables when every (k-1)-subset of the others is too
 * many: ceil((n-1)/(k-1)) tables per cycle, the others drawn in seeded
 * random passes so each plays once per pass (a few twice to fill the last
 * table). */
static int gauntlet_balanced(tour *t, int cycle, int *queue, int *nq, int *pass)
{
    int n = t->n, k = t->k, T = (n - 1 + k - 2) / (k - 1);
    for (int x = 0; x < T; x++) {
        int table[ENG_MAX_PLAYERS] = {0};
        for (int m = 1; m < k; m++) {
            for (;;) {
                if (*nq == 0) { /* a new pass over the others */
                    eng_rng rng;
                    eng_rng_seed_stream(&rng, t->spec->seed ^ TOUR__TAG_DESIGN,
                                        0x8000000000000000ULL | (uint64_t)(*pass)++);
                    for (int i = 0; i < n - 1; i++)
                        queue[i] = i + 1;
                    shuffle(queue, n - 1, &rng);
                    *nq = n - 1;
                }
                int pick = -1;
                for (int i = 0; i < *nq && pick < 0; i++) {
                    bool dup = false;
                    for (int j = 1; j < m; j++)
                        dup |= table[j] == queue[i];
                    if (!dup)
                        pick = i;
                }
                if (pick < 0) { /* only duplicates left in this pass: start the next */
                    *nq = 0;
                    continue;
                }
                table[m] = queue[pick];
                memmove(queue + pick, queue + pick + 1, (size_t)(--*nq - pick) * sizeof *queue);
                break;
            }
        }
        int rc = tour__add_pairing(t, cycle, table, NULL);
        if (rc)
            return rc;
    }
    return 0;
}

static int schedule_all_cycles(tour *t)
{
    int n = t->n, k = t->k, rc = 0;
    bool balanced;
    tour__tables_per_cycle(t->spec->format, n, k, &balanced);
    int *met = NULL, *sat = NULL, *queue = NULL, nq = 0, pass = 0;
    if (balanced) {
        met = calloc((size_t)n * (size_t)n, sizeof *met);
        sat = calloc((size_t)n, sizeof *sat);
        queue = calloc((size_t)n, sizeof *queue);
        if (!met || !sat || !queue) {
            rc = ENG_ENOMEM;
            goto out;
        }
    }
    for (int c = 0; c < t->spec->cycles && !rc; c++) {
        int64_t from = t->npair;
        if (t->spec->format == TOUR_ROUND_ROBIN) {
            if (k == 2) {
                rc = rr_pairs(t, c);
            } else if (balanced) {
                rc = rr_balanced(t, c, met, sat);
            } else {
                int sub[ENG_MAX_PLAYERS];
                for (int i = 0; i < k; i++)
                    sub[i] = i;
                do
                    rc = tour__add_pairing(t, c, sub, NULL);
                while (!rc && next_subset(sub, k, n));
            }
        } else { /* gauntlet: participant 0 at every table, in base position 0 */
            if (balanced) {
                rc = gauntlet_balanced(t, c, queue, &nq, &pass);
            } else {
                int sub[ENG_MAX_PLAYERS], table[ENG_MAX_PLAYERS];
                for (int i = 0; i < k - 1; i++)
                    sub[i] = i;
                do {
                    table[0] = 0;
                    for (int i = 0; i < k - 1; i++)
                        table[i + 1] = sub[i] + 1;
                    rc = tour__add_pairing(t, c, table, NULL);
                } while (!rc && next_subset(sub, k - 1, n - 1));
            }
        }
        if (!rc)
            rc = add_groups(t, from, t->npair, t->gpg);
    }
out:
    free(met);
    free(sat);
    free(queue);
    return rc;
}

/* ---- Swiss ------------------------------------------------------------------------- */

/* Is every game of round r done or void? */
static bool round_complete(const tour *t, int r)
{
    for (int64_t p = 0; p < t->npair; p++) {
        if (t->pair[p].round != r)
            continue;
        for (int i = 0; i < t->pair[p].ngrp; i++)
            for (int s = 0; s < t->k; s++) {
                int st = t->status[t->pair[p].grp[i] * t->k + s];
                if (st == TOUR_PENDING || st == TOUR_RUNNING)
                    return false;
            }
    }
    return true;
}

int tour__swiss_state(const tour *t, double *points, double *buchholz, int *byes)
{
    int n = t->n, k = t->k;
    double pts[TOUR_MAX_PARTICIPANTS] = {0};
    int by[TOUR_MAX_PARTICIPANTS] = {0};
    bool complete[TOUR_MAX_ROUNDS];
    int R = t->rounds_scheduled;
    for (int r = 0; r < R; r++)
        complete[r] = round_complete(t, r);
    /* byes: not seated in a complete round */
    for (int r = 0; r < R; r++) {
        if (!complete[r])
            continue;
        bool seated[TOUR_MAX_PARTICIPANTS] = {false};
        for (int64_t p = 0; p < t->npair; p++)
            if (t->pair[p].round == r)
                for (int b = 0; b < k; b++)
                    seated[t->pair[p].member[b]] = true;
        for (int i = 0; i < n; i++)
            if (!seated[i]) {
                by[i]++;
                pts[i] += 1.0;
            }
    }
    /* round points: head to head at the table over the round's games */
    for (int64_t p = 0; p < t->npair; p++) {
        const tour__pairing *pr = &t->pair[p];
        if (!complete[pr->round])
            continue;
        double h2h[ENG_MAX_PLAYERS][ENG_MAX_PLAYERS] = {{0}};
        for (int i = 0; i < pr->ngrp; i++)
            for (int r = 0; r < k; r++) {
                const tour__res *res = t->res[pr->grp[i] * k + r];
                if (!res)
                    continue;
                for (int a = 0; a < k; a++)
                    for (int b = 0; b < k; b++)
                        if (a != b)
                            h2h[a][b] += tour__pair_points(res, (a + r) % k, (b + r) % k);
            }
        for (int a = 0; a < k; a++)
            for (int b = 0; b < k; b++)
                if (a != b) {
                    double x = h2h[a][b] > h2h[b][a] ? 1 : h2h[a][b] == h2h[b][a] ? 0.5 : 0;
                    pts[pr->member[a]] += x / (k - 1);
                }
    }
    if (buchholz) {
        for (int i = 0; i < n; i++)
            buchholz[i] = 0;
        for (int64_t p = 0; p < t->npair; p++) {
            const tour__pairing *pr = &t->pair[p];
            if (!complete[pr->round])
                continue;
            for (int a = 0; a < k; a++)
                for (int b = 0; b < k; b++)
                    if (a != b)
                        buchholz[pr->member[a]] += pts[pr->member[b]] / (k - 1);
        }
    }
    for (int i = 0; i < n; i++) {
        if (points)
            points[i] = pts[i];
        if (byes)
            byes[i] = by[i];
    }
    return 0;
}

typedef struct swiss_ctx {
    int n, k, L;     /* participants, seats, players to seat */
    const int *list; /* participants in standings order */
    const int *met;  /* n*n meetings so far */
    bool *used;      /* by list position */
    int *tab;        /* tables of list positions, k each */
    int ntab;
    long budget;
} swiss_ctx;

static bool sw_meets(const swiss_ctx *c, const int *tab, int m, int cand)
{
    for (int i = 0; i < m; i++)
        if (c->met[c->list[tab[i]] * c->n + c->list[cand]])
            return true;
    return false;
}

static bool sw_place(swiss_ctx *c, int filled);

static bool sw_fill(swiss_ctx *c, int *tab, int m, int from, int filled)
{
    if (m == c->k)
        return sw_place(c, filled);
    for (int i = from; i < c->L; i++) {
        if (c->used[i] || sw_meets(c, tab, m, i))
            continue;
        c->used[i] = true;
        tab[m] = i;
        if (sw_fill(c, tab, m + 1, i + 1, filled + 1))
            return true;
        c->used[i] = false;
        if (c->budget < 0)
            return false;
    }
    return false;
}

/* Seat the first free player as the head of a new table and fill it. */
static bool sw_place(swiss_ctx *c, int filled)
{
    if (filled == c->L)
        return true;
    if (--c->budget < 0)
        return false;
    int head = 0;
    while (c->used[head])
        head++;
    c->used[head] = true;
    int *tab = &c->tab[c->ntab * c->k];
    tab[0] = head;
    c->ntab++;
    if (sw_fill(c, tab, 1, head + 1, filled + 1))
        return true;
    c->ntab--;
    c->used[head] = false;
    return false;
}

/* Fewest repeats, greedily: each table's head is the best free player,
 * then the free players who met the table least, nearest in the standings. */
static void sw_greedy(swiss_ctx *c)
{
    memset(c->used, 0, (size_t)c->L * sizeof *c->used);
    c->ntab = 0;
    for (int filled = 0; filled < c->L; filled += c->k) {
        int *tab = &c->tab[c->ntab++ * c->k];
        int head = 0;
        while (c->used[head])
            head++;
        c->used[head] = true;
        tab[0] = head;
        for (int m = 1; m < c->k; m++) {
            int best = -1, bestc = 0;
            for (int i = 0; i < c->L; i++) {
                if (c->used[i])
                    continue;
                int cnt = 0;
                for (int j = 0; j < m; j++)
                    cnt += c->met[c->list[tab[j]] * c->n + c->list[i]];
                if (best < 0 || cnt < bestc) {
                    best = i;
                    bestc = cnt;
                }
            }
            c->used[best] = true;
            tab[m] = best;
        }
    }
}

/* Pair one Swiss round. Byes (n mod k of them) go to the lowest ranked
 * among those with the fewest byes; among such choices, the first (in that
 * order) that allows a round without a repeat meeting is taken. Without one,
 * the default byes and the fewest-repeats greedy pairing. */
static int swiss_round(tour *t, int round)
{
    int n = t->n, k = t->k, b = n % k, rc = 0;
    double pts[TOUR_MAX_PARTICIPANTS];
    int byes[TOUR_MAX_PARTICIPANTS], order[TOUR_MAX_PARTICIPANTS], list[TOUR_MAX_PARTICIPANTS];
    int cand[TOUR_MAX_PARTICIPANTS];
    tour__swiss_state(t, pts, NULL, byes);
    /* standings order: round points, then seeding */
    for (int i = 0; i < n; i++)
        order[i] = i;
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && pts[order[j - 1]] < pts[order[j]]; j--) {
            int x = order[j];
            order[j] = order[j - 1];
            order[j - 1] = x;
        }
    /* bye candidates: fewest byes first, then the lowest ranked */
    for (int i = 0; i < n; i++)
        cand[i] = order[n - 1 - i];
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && byes[cand[j - 1]] > byes[cand[j]]; j--) {
            int x = cand[j];
            cand[j] = cand[j - 1];
            cand[j - 1] = x;
        }
    int m = 0; /* candidates with the fewest byes */
    while (m < n && byes[cand[m]] == byes[cand[0]])
        m++;
    if (m < b)
        m = n;
    int *met = calloc((size_t)n * (size_t)n, sizeof *met);
    bool *used = calloc((size_t)n, sizeof *used);
    int *tab = calloc((size_t)n, sizeof *tab);
    if (!met || !used || !tab) {
        rc = ENG_ENOMEM;
        goto out;
    }
    for (int64_t p = 0; p < t->npair; p++)
        for (int a = 0; a < k; a++)
            for (int c = 0; c < k; c++)
                if (a != c)
                    met[t->pair[p].member[a] * n + t->pair[p].member[c]]++;
    swiss_ctx c = {.n = n,
                   .k = k,
                   .L = n - b,
                   .list = list,
                   .met = met,
                   .used = used,
                   .tab = tab,
                   .budget = TOUR_SWISS_SEARCH_BUDGET};
    int combo[ENG_MAX_PLAYERS], tries = 0;
    bool ok = false;
    for (int i = 0; i < b; i++)
        combo[i] = i;
    for (;;) {
        bool bye[TOUR_MAX_PARTICIPANTS] = {false};
        for (int i = 0; i < b; i++)
            bye[cand[combo[i]]] = true;
        int L = 0;
        for (int i = 0; i < n; i++)
            if (!bye[order[i]])
                list[L++] = order[i];
        memset(used, 0, (size_t)n * sizeof *used);
        c.ntab = 0;
        if ((ok = sw_place(&c, 0)))
            break;
        if (c.budget < 0 || ++tries >= 256 || b == 0 || !next_subset(combo, b, m))
            break;
    }
    if (!ok) { /* the default byes, fewest repeats */
        bool bye[TOUR_MAX_PARTICIPANTS] = {false};
        for (int i = 0; i < b; i++)
            bye[cand[i]] = true;
        int L = 0;
        for (int i = 0; i < n; i++)
            if (!bye[order[i]])
                list[L++] = order[i];
        sw_greedy(&c);
    }
    int64_t from = t->npair;
    for (int x = 0; x < c.ntab && !rc; x++) {
        int mem[ENG_MAX_PLAYERS];
        for (int j = 0; j < k; j++)
            mem[j] = list[tab[x * k + j]];
        rc = tour__add_pairing(t, round, mem, NULL);
    }
    if (!rc)
        rc = add_groups(t, from, t->npair, t->gpg);
out:
    free(met);
    free(used);
    free(tab);
    return rc;
}

/* ---- knockout ------------------------------------------------------------------------ */

int tour__ko_rounds(const tour *t)
{
    int r = 0;
    while ((1 << r) < t->ko_size)
        r++;
    return r;
}

/* Round-0 slots: seeds in bracket order (1, P, P/2+1, P/2, ...) so that
 * seeds 1 and 2 can meet only in the final; seeds beyond n are byes (-1). */
static void ko_first_slots(const tour *t, int *slot)
{
    int P = t->ko_size, len = 1;
    slot[0] = 0;
    while (len < P) {
        for (int i = len - 1; i >= 0; i--) {
            int s = slot[i];
            slot[2 * i] = s;
            slot[2 * i + 1] = 2 * len - 1 - s;
        }
        len *= 2;
    }
    for (int i = 0; i < P; i++)
        if (slot[i] >= t->n)
            slot[i] = -1;
}

void tour__ko_eval(const tour *t, int64_t pairing, int *winner, const char **how, bool *need_extra)
{
    const tour__pairing *p = &t->pair[pairing];
    int k = t->k;
    double pa = 0, pb = 0, pd = 0;
    int remaining = 0, voided = 0;
    bool extra_open = false;
    *winner = -1;
    *how = NULL;
    *need_extra = false;
    for (int i = 0; i < p->ngrp; i++)
        for (int r = 0; r < k; r++) {
            int64_t id = p->grp[i] * k + r;
            const tour__res *res = t->res[id];
            if (res) {
                int sa = r % k, sb = (1 + r) % k; /* member b sits in seat (b + r) % k */
                double x = tour__pair_points(res, sa, sb);
                pa += x;
                pb += 1 - x;
                pd += res->score[sa] - res->score[sb];
            } else if (t->status[id] == TOUR_PENDING || t->status[id] == TOUR_RUNNING) {
                if (i < p->regular)
                    remaining++;
                else
                    extra_open = true;
            } else if (i < p->regular) {
                voided++; /* only a decision by the lead voids a regular game */
            }
        }
    int extras = p->ngrp - p->regular;
    if (remaining > 0) {
        if (fabs(pa - pb) > remaining) { /* the rest cannot catch up */
            *winner = pa > pb ? p->member[0] : p->member[1];
            *how = "lead";
        }
        return;
    }
    if (extra_open)
        return;
    if (pa != pb) {
        *winner = pa > pb ? p->member[0] : p->member[1];
        *how = extras ? "extra groups" : voided ? "lead" : "points";
    } else if (fabs(pd) > 1e-9) {
        *winner = pd > 0 ? p->member[0] : p->member[1];
        *how = extras ? "extra groups" : "point difference";
    } else if (extras < TOUR_KO_MAX_EXTRA && !t->cancelled) {
        *need_extra = true;
    } else {
        *winner = p->member[0]; /* the higher seed */
        *how = "seeding";
    }
}

/* Slots of round r (P >> r of them): a participant, -1 for nobody (a bye's
 * empty side), -2 for an undecided tie. The ties of a round are its
 * pairings in creation order, one per pair of present slots. */
static void ko_slots(const tour *t, int r, int *slot)
{
    int P = t->ko_size;
    ko_first_slots(t, slot);
    int64_t p = 0;
    for (int q = 0; q < r; q++) {
        int len = P >> q;
        for (int i = 0; i < len / 2; i++) {
            int a = slot[2 * i], b = slot[2 * i + 1], w;
            if (a == -2 || b == -2) {
                w = -2;
            } else if (a >= 0 && b >= 0) {
                while (p < t->npair && t->pair[p].round != q)
                    p++;
                if (p >= t->npair) {
                    w = -2; /* not scheduled yet */
                } else {
                    const char *how;
                    bool extra;
                    tour__ko_eval(t, p, &w, &how, &extra);
                    if (w < 0)
                        w = -2;
                    p++;
                }
            } else {
                w = a >= 0 ? a : b; /* a bye */
            }
            slot[i] = w;
        }
    }
}

int tour__ko_progress(const tour *t, int *reached, bool *alive)
{
    int R = tour__ko_rounds(t), P = t->ko_size;
    int *slot = malloc((size_t)P * sizeof *slot);
    if (!slot)
        return ENG_ENOMEM;
    for (int i = 0; i < t->n; i++) {
        reached[i] = 0;
        alive[i] = true;
    }
    for (int r = 0; r <= R; r++) {
        ko_slots(t, r, slot);
        int len = P >> r;
        for (int i = 0; i < len; i++)
            if (slot[i] >= 0)
                reached[slot[i]] = r;
    }
    /* a decided tie eliminates its loser */
    for (int64_t p = 0; p < t->npair; p++) {
        int w;
        const char *how;
        bool extra;
        tour__ko_eval(t, p, &w, &how, &extra);
        if (w >= 0)
            alive[t->pair[p].member[0] == w ? t->pair[p].member[1] : t->pair[p].member[0]] = false;
    }
    free(slot);
    return 0;
}

static int ko_round(tour *t, int r)
{
    int P = t->ko_size, len = P >> r;
    int *slot = malloc((size_t)P * sizeof *slot);
    if (!slot)
        return ENG_ENOMEM;
    ko_slots(t, r, slot);
    int rc = 0;
    int64_t from = t->npair;
    for (int i = 0; i < len / 2 && !rc; i++) {
        int a = slot[2 * i], b = slot[2 * i + 1];
        if (a >= 0 && b >= 0) {
            int mem[2] = {a < b ? a : b, a < b ? b : a}; /* higher seed first */
            rc = tour__add_pairing(t, r, mem, NULL);
        }
    }
    if (!rc) {
        t->rounds_scheduled = r + 1;
        rc = add_groups(t, from, t->npair, t->gpg);
    }
    free(slot);
    return rc;
}

static int void_pending_pairing(tour *t, int64_t pairing)
{
    const tour__pairing *p = &t->pair[pairing];
    for (int i = 0; i < p->ngrp; i++)
        for (int r = 0; r < t->k; r++) {
            int64_t id = p->grp[i] * t->k + r;
            if (t->status[id] == TOUR_PENDING) {
                int rc = tour__set_status(t, id, TOUR_VOID);
                if (rc)
                    return rc;
            }
        }
    return 0;
}

static int ko_advance(tour *t)
{
    int R = tour__ko_rounds(t);
    for (;;) {
        int r = t->rounds_scheduled - 1;
        bool all = true;
        for (int64_t p = 0; p < t->npair; p++) {
            if (t->pair[p].round != r)
                continue;
            int w;
            const char *how;
            bool extra;
            tour__ko_eval(t, p, &w, &how, &extra);
            int rc = 0;
            if (w >= 0) {
                rc = void_pending_pairing(t, p);
            } else {
                all = false;
                if (extra)
                    rc = tour__add_group(t, p, NULL);
            }
            if (rc)
                return rc;
        }
        if (!all || t->rounds_scheduled >= R)
            return 0;
        int rc = ko_round(t, t->rounds_scheduled);
        if (rc)
            return rc;
    }
}

/* ---- SPRT ------------------------------------------------------------------------------ */

/* Read complete groups in schedule order from sprt_next; stop at the first
 * group that is not finished, or when the test decides. */
static int sprt_scan(tour *t)
{
    const tour_sprt_params *sp = &t->spec->sprt;
    if (!sp->enabled || t->sprt.state != TOUR_SPRT_CONTINUE)
        return 0;
    bool changed = false;
    while (t->sprt_next < t->ngroups) {
        int64_t g = t->sprt_next, id0 = g * 2, id1 = id0 + 1;
        int s0 = t->status[id0], s1 = t->status[id1];
        if (s0 == TOUR_PENDING || s0 == TOUR_RUNNING || s1 == TOUR_PENDING || s1 == TOUR_RUNNING)
            break;
        t->sprt_next++;
        if (s0 != TOUR_DONE || s1 != TOUR_DONE)
            continue; /* a void game: the pair does not count */
        /* A is participant 0: member b sits in seat (b + r) % 2 */
        const tour__pairing *p = &t->pair[t->group_pair[g]];
        int b = p->member[0] == 0 ? 0 : 1;
        double x0 = tour__pair_points(t->res[id0], b % 2, (b + 1) % 2);
        double x1 = tour__pair_points(t->res[id1], (b + 1) % 2, b % 2);
        tour_penta_add(&t->sprt.penta, x0, x1);
        t->sprt.llr = tour_sprt_llr(sp, &t->sprt.penta);
        changed = true;
        t->sprt.state = tour_sprt_decide(sp, t->sprt.llr);
        if (t->sprt.state != TOUR_SPRT_CONTINUE) {
            t->sprt.decided_at = t->sprt_next;
            return tour__void_pending_all(t);
        }
    }
    (void)changed;
    return 0;
}

void tour__sprt_rescan(tour *t)
{
    memset(&t->sprt.penta, 0, sizeof t->sprt.penta);
    t->sprt.state = TOUR_SPRT_CONTINUE;
    t->sprt.llr = 0;
    t->sprt.decided_at = -1;
    t->sprt_next = 0;
}

/* ---- the whole ------------------------------------------------------------------------- */

int tour__void_pending_all(tour *t)
{
    int64_t ng = tour__ngames(t);
    for (int64_t id = t->cursor; id < ng; id++)
        if (t->status[id] == TOUR_PENDING) {
            int rc = tour__set_status(t, id, TOUR_VOID);
            if (rc)
                return rc;
        }
    return 0;
}

int tour__schedule_initial(tour *t)
{
    switch (t->spec->format) {
    case TOUR_ROUND_ROBIN:
    case TOUR_GAUNTLET: return schedule_all_cycles(t);
    case TOUR_SWISS: return swiss_round(t, 0);
    case TOUR_KNOCKOUT: return ko_round(t, 0);
    }
    return ENG_EINVAL;
}

bool tour__more_rounds(const tour *t)
{
    if (t->cancelled)
        return false;
    if (t->spec->format == TOUR_SWISS)
        return t->rounds_scheduled < t->rounds_total;
    if (t->spec->format == TOUR_KNOCKOUT) {
        if (t->rounds_scheduled < t->rounds_total)
            return true;
        /* the final (or any tie of the last round) still undecided, e.g. waiting for an
         * extra group that has not been scheduled */
        for (int64_t p = 0; p < t->npair; p++) {
            if (t->pair[p].round != t->rounds_scheduled - 1)
                continue;
            int w;
            const char *how;
            bool extra;
            tour__ko_eval(t, p, &w, &how, &extra);
            if (w < 0)
                return true;
        }
    }
    return false;
}

int tour__advance(tour *t)
{
    int rc = sprt_scan(t);
    if (rc || t->cancelled)
        return rc;
    if (t->spec->format == TOUR_KNOCKOUT)
        return ko_advance(t);
    if (t->spec->format == TOUR_SWISS) {
        while (t->rounds_scheduled < t->rounds_total && t->cnt[TOUR_PENDING] == 0 &&
               t->cnt[TOUR_RUNNING] == 0)
            if ((rc = swiss_round(t, t->rounds_scheduled)))
                return rc;
    }
    return 0;
}

int64_t tour__expected_games(const tour *t)
{
    int64_t e = tour__ngames(t) - t->cnt[TOUR_VOID];
    if (t->cancelled || t->sprt.state != TOUR_SPRT_CONTINUE)
        return e;
    if (t->spec->format == TOUR_SWISS)
        e += (int64_t)(t->rounds_total - t->rounds_scheduled) * (t->n / t->k) * t->gpp;
    if (t->spec->format == TOUR_KNOCKOUT)
        for (int r = t->rounds_scheduled; r < t->rounds_total; r++)
            e += (int64_t)(t->ko_size >> (r + 1)) * t->gpg * t->k;
    return e;
}
