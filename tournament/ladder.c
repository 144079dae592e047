/*
 * ladder.c — tables for the continuous ladder (see ladder.h). Quadratic in
 * the number of free players at worst, which a server calls with tens.
 */
#include <math.h>
#include <stdlib.h>

#include "engine/eng.h"
#include "tournament/ladder.h"

/* Order of players by rating, best first; ties by id. */
static bool better(const tour_ladder_player *a, const tour_ladder_player *b)
{
    return a->rating != b->rating ? a->rating > b->rating : a->id < b->id;
}

int tour_ladder_pick(const tour_ladder_player *pl, int n, const tour_ladder_opts *o, int *tables,
                     int cap)
{
    if (!pl || !o || !tables || n < 0 || cap < 0 || o->seats < 2 || o->seats > ENG_MAX_PLAYERS ||
        o->placement_games < 0 || o->max_tables < 0)
        return ENG_EINVAL;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++)
            if (pl[i].id == pl[j].id)
                return ENG_EINVAL;
    int k = o->seats, limit = o->max_tables > 0 && o->max_tables < cap ? o->max_tables : cap;
    int nt = 0;
    bool *used = calloc((size_t)n + 1, sizeof *used);
    int *idx = malloc(((size_t)n + 1) * sizeof *idx);
    if (!used || !idx) {
        free(used);
        free(idx);
        return ENG_ENOMEM;
    }

    /* 1. newcomers, fewest games first, against the closest free references */
    int nn = 0;
    for (int i = 0; i < n; i++)
        if (!pl[i].reference && pl[i].games < o->placement_games)
            idx[nn++] = i;
    for (int i = 1; i < nn; i++)
        for (int j = i; j > 0; j--) {
            const tour_ladder_player *a = &pl[idx[j - 1]], *b = &pl[idx[j]];
            if (a->games < b->games || (a->games == b->games && a->id < b->id))
                break;
            int x = idx[j];
            idx[j] = idx[j - 1];
            idx[j - 1] = x;
        }
    for (int c = 0; c < nn && nt < limit; c++) {
        int who = idx[c], seat[ENG_MAX_PLAYERS], got = 0;
        if (used[who])
            continue;
        seat[got++] = who;
        for (int m = 1; m < k; m++) {
            int best = -1;
            double bestd = 0;
            for (int pass = 0; pass < 2 && best < 0; pass++) /* pass 0 avoids the last opponent */
                for (int r = 0; r < n; r++) {
                    if (!pl[r].reference || used[r] || r == who)
                        continue;
                    bool taken = false;
                    for (int s = 1; s < got; s++)
                        taken |= seat[s] == r;
                    if (taken || (pass == 0 && k == 2 && pl[who].last_opponent == pl[r].id))
                        continue;
                    double d = fabs(pl[r].rating - pl[who].rating);
                    if (best < 0 || d < bestd || (d == bestd && pl[r].id < pl[best].id)) {
                        best = r;
                        bestd = d;
                    }
                }
            if (best < 0)
                break;
            seat[got++] = best;
        }
        if (got < k)
            continue; /* not enough free references: wait in the pool */
        for (int s = 0; s < k; s++) {
            used[seat[s]] = true;
            tables[nt * k + s] = pl[seat[s]].id;
        }
        nt++;
    }

    /* 2. the rest by rating: the tightest window of k consecutive players */
    int np = 0;
    for (int i = 0; i < n; i++)
        if (!used[i])
            idx[np++] = i;
    for (int i = 1; i < np; i++)
        for (int j = i; j > 0 && better(&pl[idx[j]], &pl[idx[j - 1]]); j--) {
            int x = idx[j];
            idx[j] = idx[j - 1];
            idx[j - 1] = x;
        }
    while (np >= k && nt < limit) {
        int best = -1;
        double bestc = 0;
        for (int w = 0; w + k <= np; w++) {
            double c = pl[idx[w]].rating - pl[idx[w + k - 1]].rating;
            if (k == 2 && (pl[idx[w]].last_opponent == pl[idx[w + 1]].id ||
                           pl[idx[w + 1]].last_opponent == pl[idx[w]].id))
                c += 1e12; /* a rematch only when nothing else is possible */
            if (best < 0 || c < bestc) {
                best = w;
                bestc = c;
            }
        }
        for (int s = 0; s < k; s++)
            tables[nt * k + s] = pl[idx[best + s]].id;
        nt++;
        for (int s = best; s + k < np; s++)
            idx[s] = idx[s + k];
        np -= k;
    }
    free(used);
    free(idx);
    return nt;
}
