/*
 * test_stats.c — the statistics of tournament/ against answers computed
 * independently: the Bradley–Terry fit against a case solved by hand and
 * against Zermelo's slow fixed-point iteration (Hunter's MM algorithm), its
 * covariance against a finite-difference Hessian, intervals shrinking with
 * more games; the Wilson interval against published values; the SPRT's
 * LLR against its normal approximation, and its decisions on games drawn
 * from known Elo differences (accepting H1 / H0 when it must, error rates
 * near alpha and beta, stopping early); the ladder's tables.
 */
#include "util.h"

#include "tournament/ladder.h"
#include "tournament/rating.h"
#include "tournament/sprt.h"
#include "tournament/standings.h"

/* ---- ratings ---------------------------------------------------------------------------- */

static void test_rating_two_players(void **state)
{
    (void)state;
    /* A scores 3 of 4 against B: the ML difference is 400 log10(3) */
    double score[4] = {0, 3, 1, 0}, games[4] = {0, 4, 4, 0};
    double elo[2], se[2], cov[4];
    tour_fit_info info;
    char err[256];
    assert_int_equal(tour_fit_ratings(2, score, games, -1, TOUR_PRIOR_NONE, elo, se, cov, &info,
                                      err, sizeof err),
                     0);
    double d = 400 * log10(3.0);
    assert_near(elo[0], d / 2, 1e-9);
    assert_near(elo[1], -d / 2, 1e-9);
    /* information of the difference: n p (1-p) = 4 * 3/4 * 1/4 nats^-2 */
    double se_diff = sqrt(1 / 0.75) * 400 / log(10.0);
    assert_near(se[0], se_diff / 2, 1e-9);
    assert_near(se[1], se_diff / 2, 1e-9);
    assert_near(cov[1], -se_diff * se_diff / 4, 1e-6);
    assert_false(info.prior);
    /* anchored at A: B at -d with the whole error */
    assert_int_equal(
        tour_fit_ratings(2, score, games, 0, TOUR_PRIOR_NONE, elo, se, cov, &info, err, sizeof err),
        0);
    assert_near(elo[0], 0, 1e-12);
    assert_near(se[0], 0, 1e-12);
    assert_near(elo[1], -d, 1e-9);
    assert_near(se[1], se_diff, 1e-9);
}

/* Zermelo / Hunter (2004) MM iteration: pi_i <- W_i / sum_j n_ij / (pi_i + pi_j). */
static void mm_reference(int n, const double *S, const double *G, double *elo)
{
    double pi[8], W[8];
    for (int i = 0; i < n; i++) {
        pi[i] = 1;
        W[i] = 0;
        for (int j = 0; j < n; j++)
            W[i] += S[i * n + j];
    }
    for (int it = 0; it < 200000; it++) {
        double np[8], sum = 0, change = 0;
        for (int i = 0; i < n; i++) {
            double den = 0;
            for (int j = 0; j < n; j++)
                if (j != i && G[i * n + j] > 0)
                    den += G[i * n + j] / (pi[i] + pi[j]);
            np[i] = W[i] / den;
            sum += log(np[i]);
        }
        for (int i = 0; i < n; i++) {
            double x = np[i] / exp(sum / n);
            change = fmax(change, fabs(x - pi[i]) / pi[i]);
            pi[i] = x;
        }
        if (change < 1e-14)
            break;
    }
    for (int i = 0; i < n; i++)
        elo[i] = 400 * log10(pi[i]); /* geometric mean 1: Elo mean 0 */
}

static void test_rating_against_mm(void **state)
{
    (void)state;
    enum { N = 5 };
    eng_rng rng;
    eng_rng_seed(&rng, 42);
    double S[N * N] = {0}, G[N * N] = {0};
    for (int i = 0; i < N; i++)
        for (int j = i + 1; j < N; j++) {
            int g = 2 + (int)eng_rng_below(&rng, 20);
            double s = 0;
            for (int x = 0; x < g; x++) /* 0, 1/2 or 1, with the lower index stronger */
                s += eng_rng_below(&rng, 10) < (unsigned)(5 + j - i) ? 1 : 0.5 * (x % 2);
            if (s == 0)
                s = 0.5;
            if (s == g)
                s = g - 0.5;
            S[i * N + j] = s;
            S[j * N + i] = g - s;
            G[i * N + j] = G[j * N + i] = g;
        }
    double ref[N], elo[N], se[N];
    mm_reference(N, S, G, ref);
    tour_fit_info info;
    assert_int_equal(tour_fit_ratings(N, S, G, -1, TOUR_PRIOR_NONE, elo, se, NULL, &info, NULL, 0),
                     0);
    for (int i = 0; i < N; i++)
        assert_near(elo[i], ref[i], 1e-6);
    assert_true(info.iterations < 20);
    /* anchoring only shifts */
    double elo2[N], se2[N];
    assert_int_equal(tour_fit_ratings(N, S, G, 3, TOUR_PRIOR_NONE, elo2, se2, NULL, NULL, NULL, 0),
                     0);
    for (int i = 0; i < N; i++)
        assert_near(elo2[i], ref[i] - ref[3], 1e-6);
}

/* The covariance is the inverse of minus the Hessian of the log-likelihood:
 * check it against central differences on a 3-player case (anchor 0). */
static double ll3(const double *S, double t1, double t2)
{
    double th[3] = {0, t1, t2}, L = 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            if (i != j)
                L += S[i * 3 + j] * -log1p(exp(-(th[i] - th[j])));
    return L;
}

static void test_rating_covariance(void **state)
{
    (void)state;
    double S[9] = {0, 7, 5.5, 3, 0, 6, 2.5, 4, 0}, G[9] = {0, 10, 8, 10, 0, 10, 8, 10, 0};
    double elo[3], se[3], cov[9];
    assert_int_equal(tour_fit_ratings(3, S, G, 0, TOUR_PRIOR_NONE, elo, se, cov, NULL, NULL, 0), 0);
    double k = log(10.0) / 400, t1 = elo[1] * k, t2 = elo[2] * k, h = 1e-4;
    double f = ll3(S, t1, t2);
    double h11 = (ll3(S, t1 + h, t2) - 2 * f + ll3(S, t1 - h, t2)) / (h * h);
    double h22 = (ll3(S, t1, t2 + h) - 2 * f + ll3(S, t1, t2 - h)) / (h * h);
    double h12 = (ll3(S, t1 + h, t2 + h) - ll3(S, t1 + h, t2 - h) - ll3(S, t1 - h, t2 + h) +
                  ll3(S, t1 - h, t2 - h)) /
                 (4 * h * h);
    /* inverse of [[-h11, -h12], [-h12, -h22]] */
    double det = h11 * h22 - h12 * h12;
    double c11 = -h22 / det, c22 = -h11 / det, c12 = h12 / det;
    double e2 = 1 / (k * k);
    assert_near(cov[1 * 3 + 1] / e2, c11, 1e-5 * fabs(c11));
    assert_near(cov[2 * 3 + 2] / e2, c22, 1e-5 * fabs(c22));
    assert_near(cov[1 * 3 + 2] / e2, c12, 1e-4 * fabs(c12));
    assert_near(se[1], sqrt(c11) / k, 1e-3);
    /* the gradient is zero at the optimum */
    assert_near((ll3(S, t1 + h, t2) - ll3(S, t1 - h, t2)) / (2 * h), 0, 1e-6);
}

static void test_rating_more_games(void **state)
{
    (void)state;
    /* the same proportions with 4 times the games: same ratings, half the errors */
    double S[9] = {0, 7, 5.5, 3, 0, 6, 2.5, 4, 0}, G[9] = {0, 10, 8, 10, 0, 10, 8, 10, 0};
    double S4[9], G4[9], e1[3], s1[3], e4[3], s4[3];
    for (int i = 0; i < 9; i++) {
        S4[i] = 4 * S[i];
        G4[i] = 4 * G[i];
    }
    assert_int_equal(tour_fit_ratings(3, S, G, -1, TOUR_PRIOR_NONE, e1, s1, NULL, NULL, NULL, 0),
                     0);
    assert_int_equal(tour_fit_ratings(3, S4, G4, -1, TOUR_PRIOR_NONE, e4, s4, NULL, NULL, NULL, 0),
                     0);
    for (int i = 0; i < 3; i++) {
        assert_near(e4[i], e1[i], 1e-8);
        assert_near(s4[i], s1[i] / 2, 1e-8);
    }
    /* through a tournament: 4 participants 100 Elo apart; more games per
     * pairing, narrower intervals, and the truth inside them */
    int n = 4;
    double prev[4] = {1e9, 1e9, 1e9, 1e9};
    for (int64_t gpp = 20; gpp <= 320; gpp *= 4) {
        spec_fixture f;
        fixture(&f, TOUR_ROUND_ROBIN, "reversi", 2, n, gpp);
        f.spec.anchor = "P3";
        tour *t;
        char err[256];
        assert_int_equal(tour_create(&f.spec, &t, err, sizeof err), 0);
        model m = {.strength = strength_by_index, .user = &n, .draw = 0.2, .seed = 8};
        drive(t, &m, 4, 0);
        tour_standings *s = tour_standings_new(t);
        assert_non_null(s);
        assert_int_equal(s->anchor, 3);
        for (int p = 0; p < n; p++) {
            const tour_row *r = tour_standings_row(s, p);
            if (p == 3) {
                assert_near(r->elo, 0, 1e-9);
                continue;
            }
            assert_true(r->elo_se < prev[p]);
            prev[p] = r->elo_se;
            double truth = 100.0 * (3 - p);
            assert_true(fabs(r->elo - truth) < 3 * r->elo_se);
            assert_near(r->elo_hi - r->elo_lo, 2 * TOUR_Z95 * r->elo_se, 1e-9);
        }
        tour_standings_free(s);
        tour_destroy(t);
    }
}

static void test_rating_prior_and_errors(void **state)
{
    (void)state;
    /* A won everything: no finite ML ratings */
    double S[9] = {0, 5, 5, 0, 0, 3, 0, 2, 0}, G[9] = {0, 5, 5, 5, 0, 5, 5, 5, 0};
    double elo[3], se[3];
    tour_fit_info info;
    char err[256] = "";
    assert_int_equal(
        tour_fit_ratings(3, S, G, -1, TOUR_PRIOR_NONE, elo, se, NULL, &info, err, sizeof err),
        ENG_EINVAL);
    assert_err_has(err, "no finite maximum-likelihood");
    assert_int_equal(
        tour_fit_ratings(3, S, G, -1, TOUR_PRIOR_AUTO, elo, se, NULL, &info, err, sizeof err), 0);
    assert_true(info.prior);
    for (int i = 0; i < 3; i++) {
        assert_true(isfinite(elo[i]) && se[i] > 0);
    }
    assert_true(elo[0] > elo[1] && elo[1] > elo[2]);
    /* a participant without games is left out */
    double S4[16] = {0}, G4[16] = {0};
    S4[0 * 4 + 1] = 2;
    S4[1 * 4 + 0] = 1;
    G4[1] = G4[4] = 3;
    double e4[4], s4[4];
    assert_int_equal(tour_fit_ratings(4, S4, G4, -1, TOUR_PRIOR_NONE, e4, s4, NULL, &info, NULL, 0),
                     0);
    assert_int_equal(info.rated, 2);
    assert_near(e4[2], 0, 0);
    assert_near(s4[3], 0, 0);
    assert_near(e4[0] - e4[1], 400 * log10(2.0), 1e-9);
    /* the anchor must have played; inconsistent matrices are refused */
    assert_int_equal(
        tour_fit_ratings(4, S4, G4, 2, TOUR_PRIOR_NONE, e4, s4, NULL, NULL, err, sizeof err),
        ENG_EINVAL);
    assert_err_has(err, "anchor");
    S4[1] = 5; /* more points than games */
    assert_int_equal(
        tour_fit_ratings(4, S4, G4, -1, TOUR_PRIOR_NONE, e4, s4, NULL, NULL, err, sizeof err),
        ENG_EINVAL);
    assert_err_has(err, "inconsistent");
}

static void test_elo_and_wilson(void **state)
{
    (void)state;
    assert_near(tour_elo_to_score(0), 0.5, 1e-15);
    assert_near(tour_elo_to_score(400), 10.0 / 11, 1e-15);
    assert_near(tour_score_to_elo(10.0 / 11), 400, 1e-9);
    assert_true(isinf(tour_score_to_elo(1)) && tour_score_to_elo(1) > 0);
    double lo, hi;
    /* published 95% Wilson intervals: 5/10 -> [0.2366, 0.7634], 0/10 -> [0, 0.2775],
     * 81/263 -> [0.2553, 0.3662] (Newcombe 1998, Table I) */
    tour_wilson(0.5, 10, TOUR_Z95, &lo, &hi);
    assert_near(lo, 0.2366, 5e-5);
    assert_near(hi, 0.7634, 5e-5);
    tour_wilson(0, 10, TOUR_Z95, &lo, &hi);
    assert_near(lo, 0, 1e-12);
    assert_near(hi, 0.2775, 5e-5);
    tour_wilson(81.0 / 263, 263, TOUR_Z95, &lo, &hi);
    assert_near(lo, 0.2553, 5e-5);
    assert_near(hi, 0.3662, 5e-5);
    tour_wilson(0.3, 0, TOUR_Z95, &lo, &hi);
    assert_near(lo, 0, 0);
    assert_near(hi, 1, 0);
}

/* ---- SPRT -------------------------------------------------------------------------------- */

static void test_sprt_basics(void **state)
{
    (void)state;
    tour_sprt_params p = {.enabled = true, .elo0 = 0, .elo1 = 5, .alpha = 0.05, .beta = 0.05};
    double lo, hi;
    tour_sprt_bounds(&p, &lo, &hi);
    assert_near(lo, log(0.05 / 0.95), 1e-12);
    assert_near(hi, log(0.95 / 0.05), 1e-12);
    assert_near(hi, 2.944438979, 1e-8);
    assert_int_equal(tour_sprt_decide(&p, 3.0), TOUR_SPRT_H1);
    assert_int_equal(tour_sprt_decide(&p, -3.0), TOUR_SPRT_H0);
    assert_int_equal(tour_sprt_decide(&p, 0.1), TOUR_SPRT_CONTINUE);
    tour_penta c = {0};
    assert_near(tour_sprt_llr(&p, &c), 0, 0);
    tour_penta_add(&c, 1, 1);
    tour_penta_add(&c, 1, 0.5);
    tour_penta_add(&c, 0.5, 1);
    tour_penta_add(&c, 1, 0);
    tour_penta_add(&c, 0, 1);
    tour_penta_add(&c, 0.5, 0.5);
    tour_penta_add(&c, 0, 0.5);
    tour_penta_add(&c, 0, 0);
    assert_int_equal(c.ww, 1);
    assert_int_equal(c.wd, 2);
    assert_int_equal(c.wl, 2);
    assert_int_equal(c.dd, 1);
    assert_int_equal(c.ld, 1);
    assert_int_equal(c.ll, 1);
    assert_int_equal(tour_penta_pairs(&c), 8);
    char err[128];
    assert_int_equal(tour_sprt_check(&p, err, sizeof err), 0);
    tour_sprt_model mdl;
    assert_int_equal(tour_sprt_model_parse("logistic", &mdl), 0);
    assert_int_equal(mdl, TOUR_SPRT_LOGISTIC);
    assert_int_equal(tour_sprt_model_parse("bayesian", &mdl), ENG_EINVAL);
}

/* Profile log-likelihood term of the logistic GSPRT, by duality: the most
 * likely distribution with mean s has log-likelihood
 * sum ph log ph - max_th sum ph log(1 + th (a - s)); the maximum is found
 * here by golden-section search (the library finds a root by bisection). */
static double dual_max(const double *ph, const double *a, double s)
{
    double lo = -1 / (1 - s) + 1e-12, hi = 1 / s - 1e-12, g = (sqrt(5.0) - 1) / 2;
    for (int it = 0; it < 300; it++) {
        double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo), f1 = 0, f2 = 0;
        for (int i = 0; i < 5; i++) {
            f1 += ph[i] * log(1 + x1 * (a[i] - s));
            f2 += ph[i] * log(1 + x2 * (a[i] - s));
        }
        if (f1 > f2)
            hi = x2;
        else
            lo = x1;
    }
    double th = (lo + hi) / 2, f = 0;
    for (int i = 0; i < 5; i++)
        f += ph[i] * log(1 + th * (a[i] - s));
    return f;
}

static void test_sprt_llr_reference(void **state)
{
    (void)state;
    tour_penta c = {.ll = 60, .ld = 220, .dd = 270, .wl = 30, .wd = 240, .ww = 65};
    double a[5] = {0, 0.25, 0.5, 0.75, 1}, cnt[5] = {60, 220, 300, 240, 65}, N = 885;
    double ph[5], m = 0, v = 0;
    for (int i = 0; i < 5; i++) {
        ph[i] = cnt[i] / N;
        m += ph[i] * a[i];
    }
    for (int i = 0; i < 5; i++)
        v += ph[i] * (a[i] - m) * (a[i] - m);
    tour_sprt_params p = {.enabled = true,
                          .elo0 = 0,
                          .elo1 = 5,
                          .alpha = 0.05,
                          .beta = 0.05,
                          .model = TOUR_SPRT_LOGISTIC};
    double s0 = tour_elo_to_score(0), s1 = tour_elo_to_score(5);
    double exact = N * (dual_max(ph, a, s0) - dual_max(ph, a, s1));
    double llr = tour_sprt_llr(&p, &c);
    assert_near(llr, exact, 1e-6);
    /* and near the normal approximation N (s1 - s0)(2m - s0 - s1) / (2 v) */
    double approx = N * (s1 - s0) * (2 * m - s0 - s1) / (2 * v);
    assert_near(llr, approx, 0.01 * fabs(approx));
    /* normalised: t = (m - 1/2)/sd per pair, nElo = t (800/ln 10)/sqrt 2; the
     * normal approximation is N (t1 - t0)(2 t^ - t0 - t1) / 2 */
    p.model = TOUR_SPRT_NORMALIZED;
    double scale = sqrt(2.0) * log(10.0) / 800, t0 = 0 * scale, t1 = 5 * scale;
    double that = (m - 0.5) / sqrt(v);
    approx = N * (t1 - t0) * (2 * that - t0 - t1) / 2;
    llr = tour_sprt_llr(&p, &c);
    assert_near(llr, approx, 0.02 * fabs(approx));
    /* mirrored results under mirrored hypotheses: LLR 0 */
    tour_penta sym = {.ll = 40, .ld = 100, .dd = 80, .wl = 30, .wd = 100, .ww = 40};
    p.elo0 = -5;
    p.elo1 = 5;
    assert_near(tour_sprt_llr(&p, &sym), 0, 1e-6);
    p.model = TOUR_SPRT_LOGISTIC;
    assert_near(tour_sprt_llr(&p, &sym), 0, 1e-6);
}

/* A game's result for A with Elo advantage d: win, draw, loss. */
static double sim_game(eng_rng *r, double d, double draw)
{
    double e = tour_elo_to_score(d), u = eng_rng_double(r);
    return u < e - draw / 2 ? 1 : u < e + draw / 2 ? 0.5 : 0;
}

/* Run one SPRT on simulated pairs; returns the decision, *pairs the pairs used. */
static tour_sprt_state sim_sprt(const tour_sprt_params *p, double d, double draw, eng_rng *r,
                                int max_pairs, int *pairs)
{
    tour_penta c = {0};
    for (int i = 0; i < max_pairs; i++) {
        double a1 = sim_game(r, d, draw), a2 = sim_game(r, d, draw);
        tour_penta_add(&c, a1, a2);
        tour_sprt_state s = tour_sprt_decide(p, tour_sprt_llr(p, &c));
        if (s != TOUR_SPRT_CONTINUE) {
            *pairs = i + 1;
            return s;
        }
    }
    *pairs = max_pairs;
    return TOUR_SPRT_CONTINUE;
}

/* The logistic Elo difference whose games have normalised Elo `nelo`
 * (pairs of independent games, draw rate `draw`). */
static double elo_for_nelo(double nelo, double draw)
{
    double lo = -600, hi = 600;
    for (int i = 0; i < 100; i++) {
        double d = (lo + hi) / 2, e = tour_elo_to_score(d);
        double var = (e - draw / 2) + draw / 4 - e * e; /* per game */
        double t = (e - 0.5) / sqrt(var / 2);           /* per pair */
        double ne = t * 800 / log(10.0) / sqrt(2.0);
        if (ne < nelo)
            lo = d;
        else
            hi = d;
    }
    return (lo + hi) / 2;
}

static void test_sprt_decisions(void **state)
{
    (void)state;
    eng_rng rng;
    eng_rng_seed(&rng, 2026);
    int pairs;
    for (int md = 0; md < 2; md++) {
        tour_sprt_params p = {.enabled = true,
                              .elo0 = 0,
                              .elo1 = 10,
                              .alpha = 0.05,
                              .beta = 0.05,
                              .model = (tour_sprt_model)md};
        /* clear cases decide the right way, early */
        assert_int_equal(sim_sprt(&p, 80, 0.3, &rng, 20000, &pairs), TOUR_SPRT_H1);
        assert_true(pairs < 500);
        assert_int_equal(sim_sprt(&p, -80, 0.3, &rng, 20000, &pairs), TOUR_SPRT_H0);
        assert_true(pairs < 500);
    }
    /* error rates at the hypotheses: about alpha and beta (Wald's bounds
     * keep them at most alpha/(1-beta)); 150 runs each, at most 14% seen */
    for (int md = 0; md < 2; md++) {
        tour_sprt_params p = {.enabled = true,
                              .elo0 = 0,
                              .elo1 = 40,
                              .alpha = 0.05,
                              .beta = 0.05,
                              .model = (tour_sprt_model)md};
        double d0 = 0, d1 = md == TOUR_SPRT_LOGISTIC ? 40 : elo_for_nelo(40, 0.3);
        int false_h1 = 0, false_h0 = 0, runs = 150;
        long total = 0;
        for (int i = 0; i < runs; i++) {
            false_h1 += sim_sprt(&p, d0, 0.3, &rng, 100000, &pairs) == TOUR_SPRT_H1;
            total += pairs;
            false_h0 += sim_sprt(&p, d1, 0.3, &rng, 100000, &pairs) == TOUR_SPRT_H0;
            total += pairs;
        }
        print_message("SPRT %s [0, 40]: H1 at elo0 %d/%d, H0 at elo1 %d/%d, %.0f pairs per "
                      "test\n",
                      tour_sprt_model_name(p.model), false_h1, runs, false_h0, runs,
                      (double)total / (2 * runs));
        assert_true(false_h1 <= runs * 14 / 100);
        assert_true(false_h0 <= runs * 14 / 100);
    }
}

static void test_penta_estimate(void **state)
{
    (void)state;
    tour_penta c = {.ll = 10, .ld = 20, .dd = 30, .wl = 10, .wd = 20, .ww = 10};
    tour_penta_est e;
    tour_penta_estimate(&c, &e);
    assert_int_equal(e.pairs, 100);
    assert_near(e.score, 0.5, 1e-12);
    assert_near(e.elo, 0, 1e-9);
    assert_near(e.los, 0.5, 1e-12);
    assert_true(e.elo_lo < 0 && e.elo_hi > 0);
    assert_near(e.elo_hi, -e.elo_lo, 1e-9);
    c.ww += 40;
    tour_penta_estimate(&c, &e);
    assert_true(e.elo > 0 && e.nelo > 0 && e.los > 0.99);
    tour_penta none = {0};
    tour_penta_estimate(&none, &e);
    assert_int_equal(e.pairs, 0);
    assert_near(e.los, 0.5, 0);
}

/* ---- ladder ------------------------------------------------------------------------------- */

static void test_ladder(void **state)
{
    (void)state;
    int tables[40];
    tour_ladder_opts o = {.seats = 2, .placement_games = 10, .max_tables = 0};
    tour_ladder_player pl[8] = {
        {1, 1500, 50, false, -1}, {2, 1490, 50, false, -1}, {3, 1200, 50, false, -1},
        {4, 1180, 50, false, -1}, {5, 900, 50, false, -1},  {6, 905, 50, false, -1},
    };
    /* closest ratings: 905-900, then 1500-1490, then 1200-1180 */
    assert_int_equal(tour_ladder_pick(pl, 6, &o, tables, 10), 3);
    int want[6] = {6, 5, 1, 2, 3, 4};
    for (int i = 0; i < 6; i++)
        assert_int_equal(tables[i], want[i]);
    o.max_tables = 1;
    assert_int_equal(tour_ladder_pick(pl, 6, &o, tables, 10), 1);
    o.max_tables = 0;
    /* a newcomer plays the closest free reference first */
    tour_ladder_player nl[5] = {
        {1, 1500, 50, true, -1}, {3, 1200, 50, true, -1},  {5, 900, 50, true, -1},
        {7, 1000, 0, false, -1}, {8, 1480, 40, false, -1},
    };
    assert_int_equal(tour_ladder_pick(nl, 5, &o, tables, 10), 2);
    assert_int_equal(tables[0], 7);
    assert_int_equal(tables[1], 5);
    assert_int_equal(tables[2], 1); /* then 1500 with 1480 */
    assert_int_equal(tables[3], 8);
    /* no free reference: the newcomer waits in the pool */
    tour_ladder_player nr[3] = {
        {7, 1000, 0, false, -1}, {8, 1480, 40, false, -1}, {9, 1100, 40, false, -1}};
    assert_int_equal(tour_ladder_pick(nr, 3, &o, tables, 10), 1);
    assert_int_equal(tables[0], 9);
    assert_int_equal(tables[1], 7);
    /* no immediate rematch while another table is possible */
    tour_ladder_player rm[4] = {{1, 1500, 50, false, 2},
                                {2, 1490, 50, false, 1},
                                {3, 1480, 50, false, -1},
                                {4, 1000, 50, false, -1}};
    assert_int_equal(tour_ladder_pick(rm, 4, &o, tables, 10), 2);
    assert_int_equal(tables[0], 2);
    assert_int_equal(tables[1], 3);
    assert_int_equal(tables[2], 1);
    assert_int_equal(tables[3], 4);
    /* only the two of them: they play again */
    assert_int_equal(tour_ladder_pick(rm, 2, &o, tables, 10), 1);
    /* three seats: the tightest window of three */
    o.seats = 3;
    tour_ladder_player th[7] = {{1, 2000, 50, false, -1}, {2, 1600, 50, false, -1},
                                {3, 1590, 50, false, -1}, {4, 1580, 50, false, -1},
                                {5, 1300, 50, false, -1}, {6, 1200, 50, false, -1},
                                {7, 1100, 50, false, -1}};
    assert_int_equal(tour_ladder_pick(th, 7, &o, tables, 10), 2);
    assert_int_equal(tables[0] + tables[1] + tables[2], 2 + 3 + 4);
    assert_int_equal(tables[3] + tables[4] + tables[5], 5 + 6 + 7);
    /* bad input */
    th[1].id = 1;
    assert_int_equal(tour_ladder_pick(th, 7, &o, tables, 10), ENG_EINVAL);
    o.seats = 1;
    assert_int_equal(tour_ladder_pick(pl, 6, &o, tables, 10), ENG_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rating_two_players),
        cmocka_unit_test(test_rating_against_mm),
        cmocka_unit_test(test_rating_covariance),
        cmocka_unit_test(test_rating_more_games),
        cmocka_unit_test(test_rating_prior_and_errors),
        cmocka_unit_test(test_elo_and_wilson),
        cmocka_unit_test(test_sprt_basics),
        cmocka_unit_test(test_sprt_llr_reference),
        cmocka_unit_test(test_sprt_decisions),
        cmocka_unit_test(test_penta_estimate),
        cmocka_unit_test(test_ladder),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
