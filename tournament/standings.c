/*
 * standings.c — the standings of a tournament from its finished games (see
 * standings.h for what each figure means, docs/tournaments.md for the
 * ordering of each format).
 *
 * League matches (docs/league.md): within one pairing (a table in one
 * round), the games of one rotation have every seat fixed, so for every
 * rotation and every pair at the table they form one league match, decided
 * head to head by the final ranking and scored by tour_league_add() — the
 * same rule as tessera match.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tournament/internal.h"
#include "tournament/rating.h"
#include "tournament/standings.h"

/* ---- league points ------------------------------------------------------------- */

static void league_result(tour_league *winner, tour_league *loser, int64_t w, int64_t decisive)
{
    winner->won++;
    winner->points += 4;
    loser->lost++;
    if (4 * w >= 3 * decisive) { /* w / decisive >= 75% */
        winner->bwp++;
        winner->points++;
    } else if (20 * w <= 11 * decisive) { /* w / decisive <= 55% */
        loser->blp++;
        loser->points++;
    }
}

void tour_league_add(tour_league *a, tour_league *b, int64_t a_wins, int64_t b_wins, int64_t draws,
                     double a_mean_diff)
{
    (void)draws; /* drawn games count for neither side and are not decisive */
    int64_t decisive = a_wins + b_wins;
    a->matches++;
    b->matches++;
    a->pd += a_mean_diff;
    b->pd -= a_mean_diff;
    if (a_wins > b_wins)
        league_result(a, b, a_wins, decisive);
    else if (b_wins > a_wins)
        league_result(b, a, b_wins, decisive);
    else {
        a->drawn++;
        b->drawn++;
        a->points += 2;
        b->points += 2;
    }
}

/* ---- standings ------------------------------------------------------------------ */

void tour_standings_free(tour_standings *s)
{
    if (!s)
        return;
    free(s->rows);
    free(s->cross_points);
    free(s->cross_games);
    free(s->elo_cov);
    free(s);
}

const tour_row *tour_standings_row(const tour_standings *s, int participant)
{
    for (int i = 0; i < s->n; i++)
        if (s->rows[i].participant == participant)
            return &s->rows[i];
    return NULL;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Quantile q of sorted v[0..n) by linear interpolation (R's type 7). */
static double quantile(const double *v, int64_t n, double q)
{
    if (n == 0)
        return 0;
    double h = (double)(n - 1) * q;
    int64_t i = (int64_t)floor(h);
    if (i + 1 >= n)
        return v[n - 1];
    return v[i] + (h - (double)i) * (v[i + 1] - v[i]);
}

/* Ordering of rows, per format (docs/tournaments.md, "Standings"). */
static int cmp_rows(tour_format f, const tour_row *a, const tour_row *b)
{
    switch (f) {
    case TOUR_SWISS:
        if (a->swiss_points != b->swiss_points)
            return a->swiss_points > b->swiss_points ? -1 : 1;
        if (a->buchholz != b->buchholz)
            return a->buchholz > b->buchholz ? -1 : 1;
        if (a->points != b->points)
            return a->points > b->points ? -1 : 1;
        break;
    case TOUR_KNOCKOUT:
        if (a->ko_reached != b->ko_reached)
            return a->ko_reached > b->ko_reached ? -1 : 1;
        break;
    default:
        if (a->rate != b->rate)
            return a->rate > b->rate ? -1 : 1;
        if (a->league.points != b->league.points)
            return a->league.points > b->league.points ? -1 : 1;
        if (a->pd != b->pd)
            return a->pd > b->pd ? -1 : 1;
        break;
    }
    return a->participant - b->participant; /* seeding order */
}

tour_standings *tour_standings_new(const tour *t)
{
    int n = t->n, k = t->k;
    size_t nn = (size_t)n * (size_t)n;
    tour_standings *s = calloc(1, sizeof *s);
    double *ws = NULL, *wg = NULL, **sc = NULL;
    int64_t *nsc = NULL, *capsc = NULL;
    if (!s)
        return NULL;
    s->n = n;
    s->seats = k;
    s->format = t->spec->format;
    s->anchor = t->anchor;
    s->rows = calloc((size_t)n, sizeof *s->rows);
    s->cross_points = calloc(nn, sizeof(double));
    s->cross_games = calloc(nn, sizeof(double));
    s->elo_cov = calloc(nn, sizeof(double));
    ws = calloc(nn, sizeof *ws);
    wg = calloc(nn, sizeof *wg);
    sc = calloc((size_t)n, sizeof *sc);
    nsc = calloc((size_t)n, sizeof *nsc);
    capsc = calloc((size_t)n, sizeof *capsc);
    if (!s->rows || !s->cross_points || !s->cross_games || !s->elo_cov || !ws || !wg || !sc ||
        !nsc || !capsc)
        goto fail;
    tour_row *row = s->rows; /* indexed by participant until sorted */
    for (int i = 0; i < n; i++)
        row[i].participant = i;
    double sum_score[TOUR_MAX_PARTICIPANTS] = {0}, sum_pd[TOUR_MAX_PARTICIPANTS] = {0};
    double w = 1.0 / (k - 1);

    for (int64_t pi = 0; pi < t->npair; pi++) {
        const tour__pairing *p = &t->pair[pi];
        /* league tallies per rotation and ordered pair of members */
        int64_t lw[ENG_MAX_PLAYERS][ENG_MAX_PLAYERS][ENG_MAX_PLAYERS];
        int64_t lg[ENG_MAX_PLAYERS][ENG_MAX_PLAYERS][ENG_MAX_PLAYERS];
        double ld[ENG_MAX_PLAYERS][ENG_MAX_PLAYERS][ENG_MAX_PLAYERS];
        memset(lw, 0, sizeof lw);
        memset(lg, 0, sizeof lg);
        memset(ld, 0, sizeof ld);
        for (int gi = 0; gi < p->ngrp; gi++)
            for (int r = 0; r < k; r++) {
                const tour__res *res = t->res[p->grp[gi] * k + r];
                if (!res)
                    continue;
                for (int b = 0; b < k; b++) {
                    int seat = (b + r) % k, i = p->member[b];
                    tour_row *x = &row[i];
                    x->games++;
                    int firsts = 0;
                    double best_other = -INFINITY, pts = 0;
                    for (int o = 0; o < k; o++) {
                        firsts += res->rank[o] == 1;
                        if (o != seat) {
                            best_other = fmax(best_other, res->score[o]);
                            pts += tour__pair_points(res, seat, o);
                        }
                    }
                    if (res->rank[seat] != 1)
                        x->losses++;
                    else if (firsts > 1)
                        x->draws++;
                    else
                        x->wins++;
                    x->points += pts * w;
                    sum_score[i] += res->score[seat];
                    sum_pd[i] += res->score[seat] - best_other;
                    x->time_ms += res->time_ms[seat];
                    x->moves += res->moves[seat];
                    x->time_losses += (res->time_loss >> seat) & 1;
                    x->faults += res->culprit == seat && res->end != TOUR_END_NORMAL;
                    if (nsc[i] == capsc[i]) {
                        int64_t cap = capsc[i] ? 2 * capsc[i] : 16;
                        double *v = realloc(sc[i], (size_t)cap * sizeof *v);
                        if (!v)
                            goto fail;
                        sc[i] = v;
                        capsc[i] = cap;
                    }
                    sc[i][nsc[i]++] = res->score[seat];
                }
                for (int a = 0; a < k; a++)
                    for (int b = 0; b < k; b++) {
                        if (a == b)
                            continue;
                        int sa = (a + r) % k, sb = (b + r) % k;
                        int i = p->member[a], j = p->member[b];
                        double x = tour__pair_points(res, sa, sb);
                        s->cross_points[i * n + j] += x;
                        s->cross_games[i * n + j] += 1;
                        ws[i * n + j] += w * x;
                        wg[i * n + j] += w;
                        lg[r][a][b]++;
                        lw[r][a][b] += x == 1.0;
                        ld[r][a][b] += res->score[sa] - res->score[sb];
                    }
            }
        for (int r = 0; r < k; r++)
            for (int a = 0; a < k; a++)
                for (int b = a + 1; b < k; b++) {
                    int64_t g = lg[r][a][b];
                    if (g == 0)
                        continue;
                    int64_t wa = lw[r][a][b], wb = lw[r][b][a];
                    tour_league_add(&row[p->member[a]].league, &row[p->member[b]].league, wa, wb,
                                    g - wa - wb, ld[r][a][b] / (double)g);
                }
    }

    for (int i = 0; i < n; i++) {
        tour_row *x = &row[i];
        if (x->games) {
            x->rate = x->points / (double)x->games;
            x->mean_score = sum_score[i] / (double)x->games;
            x->pd = sum_pd[i] / (double)x->games;
        }
        tour_wilson(x->rate, (double)x->games, TOUR_Z95, &x->rate_lo, &x->rate_hi);
        x->ms_per_move = x->moves ? x->time_ms / (double)x->moves : 0;
        if (nsc[i]) {
            qsort(sc[i], (size_t)nsc[i], sizeof *sc[i], cmp_double);
            x->score_min = sc[i][0];
            x->score_q1 = quantile(sc[i], nsc[i], 0.25);
            x->score_median = quantile(sc[i], nsc[i], 0.5);
            x->score_q3 = quantile(sc[i], nsc[i], 0.75);
            x->score_max = sc[i][nsc[i] - 1];
        }
    }

    /* ratings */
    double elo[TOUR_MAX_PARTICIPANTS], se[TOUR_MAX_PARTICIPANTS];
    tour_fit_info info;
    if (tour_fit_ratings(n, ws, wg, t->anchor, TOUR_PRIOR_AUTO, elo, se, s->elo_cov, &info, NULL,
                         0) != 0) {
        /* the anchor has not played yet, or no data: rate around the mean */
        if (tour_fit_ratings(n, ws, wg, -1, TOUR_PRIOR_AUTO, elo, se, s->elo_cov, &info, NULL, 0) !=
            0)
            for (int i = 0; i < n; i++)
                elo[i] = se[i] = 0;
        s->anchor = -1;
    }
    s->rating_prior = info.prior;
    for (int i = 0; i < n; i++) {
        row[i].elo = elo[i];
        row[i].elo_se = se[i];
        row[i].elo_lo = elo[i] - TOUR_Z95 * se[i];
        row[i].elo_hi = elo[i] + TOUR_Z95 * se[i];
    }

    /* format figures */
    if (t->spec->format == TOUR_SWISS) {
        double pts[TOUR_MAX_PARTICIPANTS], bh[TOUR_MAX_PARTICIPANTS];
        int by[TOUR_MAX_PARTICIPANTS];
        tour__swiss_state(t, pts, bh, by);
        for (int i = 0; i < n; i++) {
            row[i].swiss_points = pts[i];
            row[i].buchholz = bh[i];
            row[i].byes = by[i];
        }
    } else if (t->spec->format == TOUR_KNOCKOUT) {
        int reached[TOUR_MAX_PARTICIPANTS];
        bool alive[TOUR_MAX_PARTICIPANTS];
        if (tour__ko_progress(t, reached, alive))
            goto fail;
        for (int i = 0; i < n; i++) {
            row[i].ko_reached = reached[i];
            row[i].ko_alive = alive[i];
        }
    }

    /* head to head: every complete pair of a two-participant, two-seat tournament */
    if (n == 2 && k == 2) {
        for (int64_t g = 0; g < t->ngroups; g++) {
            const tour__res *r0 = t->res[2 * g], *r1 = t->res[2 * g + 1];
            if (!r0 || !r1)
                continue;
            int b = t->pair[t->group_pair[g]].member[0] == 0 ? 0 : 1;
            tour_penta_add(&s->penta, tour__pair_points(r0, b, 1 - b),
                           tour__pair_points(r1, 1 - b, b));
        }
        tour_penta_estimate(&s->penta, &s->est);
    }
    s->has_sprt = tour_get_sprt(t, &s->sprt);
    tour_get_counts(t, &s->counts);
    s->done = tour_is_done(t);

    for (int i = 1; i < n; i++) /* insertion sort: n <= 256, and no global comparator state */
        for (int j = i; j > 0 && cmp_rows(t->spec->format, &row[j - 1], &row[j]) > 0; j--) {
            tour_row x = row[j];
            row[j] = row[j - 1];
            row[j - 1] = x;
        }
    for (int i = 0; i < n; i++) {
        if (t->spec->format == TOUR_KNOCKOUT) {
            int better = 0;
            for (int j = 0; j < n; j++)
                better += row[j].ko_reached > row[i].ko_reached;
            row[i].place = 1 + better;
        } else {
            row[i].place = i + 1;
        }
    }
    goto out;
fail:
    tour_standings_free(s);
    s = NULL;
out:
    for (int i = 0; sc && i < n; i++)
        free(sc[i]);
    free(sc);
    free(nsc);
    free(capsc);
    free(ws);
    free(wg);
    return s;
}
