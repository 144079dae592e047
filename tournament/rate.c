/*
 * rate.c — one player's rating against a ladder of fixed ratings (rate.h):
 * the one-dimensional Bradley–Terry fit, the nearest rungs, the stop rule.
 */
#include "tournament/rate.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>

#include "engine/errors.h"
#include "tournament/rating.h"

#define LN10_400 (2.302585092994046 / 400.0) /* d/dr of the logit, per Elo */
#define MAX_STEP 400.0                       /* Newton steps are clamped to this (Elo) */

/* The rung the prior's virtual draw is played against: the median rating. */
static double middle_rating(const tour_rate_tally *t, int n)
{
    double r[TOUR_RATE_MAX_RUNGS];
    for (int i = 0; i < n; i++) {
        int j = i;
        while (j > 0 && r[j - 1] > t[i].elo) {
            r[j] = r[j - 1];
            j--;
        }
        r[j] = t[i].elo;
    }
    return n % 2 ? r[n / 2] : 0.5 * (r[n / 2 - 1] + r[n / 2]);
}

int tour_rate_fit(const tour_rate_tally *t, int n, tour_rate_estimate *out)
{
    if (!t || !out || n < 1 || n > TOUR_RATE_MAX_RUNGS)
        return ENG_EINVAL;
    double games = 0;
    for (int i = 0; i < n; i++) {
        if (!isfinite(t[i].elo) || !(t[i].games >= 0) || !(t[i].score >= 0) ||
            t[i].score > t[i].games)
            return ENG_EINVAL;
        games += t[i].games;
    }
    double mid = middle_rating(t, n);
    /* Newton on the concave log-likelihood in r, from the prior's rung. The
     * gradient is sum g_i (s_i/g_i - p_i), the curvature -sum g_i p_i (1-p_i),
     * both times LN10_400 per Elo. */
    double r = mid, info = 0;
    int it;
    for (it = 1; it <= 100; it++) {
        double grad = 0.5 - tour_elo_to_score(r - mid); /* the virtual draw */
        double p0 = tour_elo_to_score(r - mid);
        info = p0 * (1 - p0);
        for (int i = 0; i < n; i++) {
            if (t[i].games <= 0)
                continue;
            double p = tour_elo_to_score(r - t[i].elo);
            grad += t[i].score - t[i].games * p;
            info += t[i].games * p * (1 - p);
        }
        double step = grad / (info * LN10_400);
        if (step > MAX_STEP)
            step = MAX_STEP;
        if (step < -MAX_STEP)
            step = -MAX_STEP;
        r += step;
        if (fabs(step) < 1e-6)
            break;
    }
    /* the information at the estimate (with the prior: it is what bounds it) */
    double p0 = tour_elo_to_score(r - mid);
    info = p0 * (1 - p0);
    for (int i = 0; i < n; i++)
        if (t[i].games > 0) {
            double p = tour_elo_to_score(r - t[i].elo);
            info += t[i].games * p * (1 - p);
        }
    assert(info > 0);
    out->elo = r;
    out->half95 = TOUR_Z95 / (sqrt(info) * LN10_400);
    out->games = games;
    out->iterations = it;
    return 0;
}

int tour_rate_nearest(const tour_rate_tally *t, int n, double elo, int k, int *pick)
{
    if (!t || !pick || n < 1 || n > TOUR_RATE_MAX_RUNGS || k < 0 || k > n || !isfinite(elo))
        return ENG_EINVAL;
    bool used[TOUR_RATE_MAX_RUNGS] = {false};
    for (int m = 0; m < k; m++) {
        int best = -1;
        for (int i = 0; i < n; i++) {
            if (used[i])
                continue;
            double d = fabs(t[i].elo - elo), bd = best < 0 ? INFINITY : fabs(t[best].elo - elo);
            if (d < bd || (d == bd && t[i].elo < t[best].elo))
                best = i;
        }
        used[best] = true;
        pick[m] = best;
    }
    return k;
}

bool tour_rate_done(const tour_rate_estimate *e, const tour_rate_stop *s)
{
    if (s->max_games > 0 && e->games >= s->max_games)
        return true;
    return e->games >= s->min_games && e->half95 <= s->target;
}
