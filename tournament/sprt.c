/*
 * sprt.c — the pentanomial GSPRT (see sprt.h). Written from the
 * mathematics in Michel Van den Bergh's "Comments on Normalized Elo": for
 * each hypothesis, the distribution over the five pair scores that is
 * closest to the observed frequencies (maximum likelihood) while
 * satisfying the hypothesis, found through its one Lagrange multiplier.
 *
 * Root finding is plain bisection on a function that is strictly monotone
 * on an open interval with infinite limits at both ends: slower than
 * fancier methods by a few microseconds per pair, and obviously right.
 */
#include <math.h>
#include <string.h>

#include "engine/eng.h"
#include "tournament/rating.h"
#include "tournament/sprt.h"

#define NPENTA 5
static const double pair_score[NPENTA] = {0, 0.25, 0.5, 0.75, 1}; /* per game, from A's side */

void tour_penta_add(tour_penta *c, double a_first, double a_second)
{
    double s = a_first + a_second;
    if (s < 0.25)
        c->ll++;
    else if (s < 0.75)
        c->ld++;
    else if (s < 1.25) {
        if (a_first == 0.5)
            c->dd++;
        else
            c->wl++;
    } else if (s < 1.75)
        c->wd++;
    else
        c->ww++;
}

int64_t tour_penta_pairs(const tour_penta *c)
{
    return c->ll + c->ld + c->dd + c->wl + c->wd + c->ww;
}

const char *tour_sprt_state_name(tour_sprt_state s)
{
    return s == TOUR_SPRT_H0 ? "H0" : s == TOUR_SPRT_H1 ? "H1" : "continue";
}

const char *tour_sprt_model_name(tour_sprt_model m)
{
    return m == TOUR_SPRT_LOGISTIC ? "logistic" : "normalized";
}

int tour_sprt_model_parse(const char *s, tour_sprt_model *out)
{
    if (s && strcmp(s, "normalized") == 0) {
        *out = TOUR_SPRT_NORMALIZED;
        return 0;
    }
    if (s && strcmp(s, "logistic") == 0) {
        *out = TOUR_SPRT_LOGISTIC;
        return 0;
    }
    return ENG_EINVAL;
}

int tour_sprt_check(const tour_sprt_params *p, char *err, size_t errcap)
{
    if (!isfinite(p->elo0) || !isfinite(p->elo1) || !isfinite(p->alpha) || !isfinite(p->beta))
        return eng_seterr(err, errcap, ENG_EINVAL,
                          "SPRT: elo0, elo1, alpha and beta must be "
                          "numbers");
    if (p->elo0 >= p->elo1)
        return eng_seterr(err, errcap, ENG_EINVAL, "SPRT: elo0 (%g) must be less than elo1 (%g)",
                          p->elo0, p->elo1);
    if (fabs(p->elo0) > 1000 || fabs(p->elo1) > 1000)
        return eng_seterr(err, errcap, ENG_EINVAL, "SPRT: elo0 and elo1 must be within +-1000");
    if (!(p->alpha > 0 && p->alpha < 1) || !(p->beta > 0 && p->beta < 1))
        return eng_seterr(err, errcap, ENG_EINVAL,
                          "SPRT: alpha and beta must be between 0 and 1, got %g and %g", p->alpha,
                          p->beta);
    if (p->alpha + p->beta >= 1)
        return eng_seterr(err, errcap, ENG_EINVAL, "SPRT: alpha + beta must be less than 1");
    if (p->model != TOUR_SPRT_NORMALIZED && p->model != TOUR_SPRT_LOGISTIC)
        return eng_seterr(err, errcap, ENG_EINVAL, "SPRT: unknown model %d", (int)p->model);
    return 0;
}

void tour_sprt_bounds(const tour_sprt_params *p, double *lower, double *upper)
{
    *lower = log(p->beta / (1 - p->alpha));
    *upper = log((1 - p->beta) / p->alpha);
}

tour_sprt_state tour_sprt_decide(const tour_sprt_params *p, double llr)
{
    double lo, hi;
    tour_sprt_bounds(p, &lo, &hi);
    if (llr >= hi)
        return TOUR_SPRT_H1;
    if (llr <= lo)
        return TOUR_SPRT_H0;
    return TOUR_SPRT_CONTINUE;
}

/* The root of sum_i w_i x_i / (1 + th x_i) over th in (-1/max x, -1/min x)
 * (needs min x < 0 < max x): the function falls from +inf to -inf. */
static double solve_theta(const double *w, const double *x)
{
    double xmin = x[0], xmax = x[0];
    for (int i = 1; i < NPENTA; i++) {
        xmin = fmin(xmin, x[i]);
        xmax = fmax(xmax, x[i]);
    }
    double lo = -1 / xmax, hi = -1 / xmin;
    for (int it = 0; it < 200; it++) {
        double mid = lo + (hi - lo) / 2;
        if (mid <= lo || mid >= hi)
            break;
        double f = 0;
        for (int i = 0; i < NPENTA; i++)
            f += w[i] * x[i] / (1 + mid * x[i]);
        if (f > 0)
            lo = mid;
        else
            hi = mid;
    }
    return lo + (hi - lo) / 2;
}

/* Most likely distribution p near `ph` with expected score s. */
static void mle_mean(const double *ph, double s, double *p)
{
    double x[NPENTA];
    for (int i = 0; i < NPENTA; i++)
        x[i] = pair_score[i] - s;
    double th = solve_theta(ph, x);
    for (int i = 0; i < NPENTA; i++)
        p[i] = ph[i] / (1 + th * x[i]);
}

/* Most likely distribution p near `ph` with (mean - 1/2) / sd = t: a fixed
 * point, each step solving the linearised constraint exactly. */
static void mle_normalized(const double *ph, double t, double *p)
{
    for (int i = 0; i < NPENTA; i++)
        p[i] = 1.0 / NPENTA;
    for (int it = 0; it < 1000; it++) {
        double mu = 0, var = 0;
        for (int i = 0; i < NPENTA; i++)
            mu += p[i] * pair_score[i];
        for (int i = 0; i < NPENTA; i++)
            var += p[i] * (pair_score[i] - mu) * (pair_score[i] - mu);
        double sd = sqrt(var), phi[NPENTA], lo = INFINITY, hi = -INFINITY;
        if (!(sd > 0))
            break;
        for (int i = 0; i < NPENTA; i++) {
            double z = (pair_score[i] - mu) / sd;
            phi[i] = pair_score[i] - 0.5 - 0.5 * t * sd * (1 + z * z);
            lo = fmin(lo, phi[i]);
            hi = fmax(hi, phi[i]);
        }
        if (!(lo < 0 && hi > 0))
            break; /* no distribution satisfies the constraint near here */
        double th = solve_theta(ph, phi), diff = 0;
        for (int i = 0; i < NPENTA; i++) {
            double q = ph[i] / (1 + th * phi[i]);
            diff = fmax(diff, fabs(q - p[i]));
            p[i] = q;
        }
        if (diff < 1e-10)
            break;
    }
}

double tour_sprt_llr(const tour_sprt_params *p, const tour_penta *c)
{
    if (tour_penta_pairs(c) == 0)
        return 0;
    double cnt[NPENTA] = {(double)c->ll, (double)c->ld, (double)(c->dd + c->wl), (double)c->wd,
                          (double)c->ww};
    double total = 0, ph[NPENTA], p0[NPENTA], p1[NPENTA];
    for (int i = 0; i < NPENTA; i++) {
        if (cnt[i] == 0)
            cnt[i] = 1e-3; /* as fastchess: an unseen outcome is not impossible */
        total += cnt[i];
    }
    for (int i = 0; i < NPENTA; i++)
        ph[i] = cnt[i] / total;
    if (p->model == TOUR_SPRT_NORMALIZED) {
        double scale = sqrt(2.0) / (800.0 / log(10.0)); /* nElo -> t per pair */
        mle_normalized(ph, p->elo0 * scale, p0);
        mle_normalized(ph, p->elo1 * scale, p1);
    } else {
        mle_mean(ph, tour_elo_to_score(p->elo0), p0);
        mle_mean(ph, tour_elo_to_score(p->elo1), p1);
    }
    double llr = 0;
    for (int i = 0; i < NPENTA; i++)
        llr += ph[i] * (log(p1[i]) - log(p0[i]));
    return total * llr;
}

void tour_penta_estimate(const tour_penta *c, tour_penta_est *out)
{
    memset(out, 0, sizeof *out);
    out->los = 0.5;
    int64_t N = tour_penta_pairs(c);
    out->pairs = N;
    if (N == 0)
        return;
    double cnt[NPENTA] = {(double)c->ll, (double)c->ld, (double)(c->dd + c->wl), (double)c->wd,
                          (double)c->ww};
    double mu = 0, var = 0;
    for (int i = 0; i < NPENTA; i++)
        mu += cnt[i] * pair_score[i] / N;
    for (int i = 0; i < NPENTA; i++)
        var += cnt[i] * (pair_score[i] - mu) * (pair_score[i] - mu) / N;
    double se = sqrt(var / N);
    out->score = mu;
    out->elo = tour_score_to_elo(mu);
    out->elo_lo = tour_score_to_elo(mu - TOUR_Z95 * se);
    out->elo_hi = tour_score_to_elo(mu + TOUR_Z95 * se);
    double k = 800.0 / log(10.0) / sqrt(2.0);
    if (var > 0) {
        double tt = (mu - 0.5) / sqrt(var), half = TOUR_Z95 / sqrt((double)N);
        out->nelo = tt * k;
        out->nelo_lo = (tt - half) * k;
        out->nelo_hi = (tt + half) * k;
        out->los = 0.5 * erfc(-(mu - 0.5) / (se * sqrt(2.0)));
    } else {
        double v = mu > 0.5 ? INFINITY : mu < 0.5 ? -INFINITY : 0;
        out->nelo = out->nelo_lo = out->nelo_hi = v;
        out->los = mu > 0.5 ? 1 : mu < 0.5 ? 0 : 0.5;
    }
}
