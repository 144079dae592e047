/*
 * test_rate.c — the rating against a fixed ladder (tournament/rate.h):
 * the fit against answers worked out independently (one rung: the logit of
 * the score; several: a grid search of the log-likelihood), the interval
 * against the information computed by finite differences, the prior keeping
 * an all-wins record finite, the nearest rungs, the stop rule, bad input;
 * and the whole adaptive schedule on games drawn from a known rating: the
 * interval holds the true rating in about 95% of runs.
 */
#include "util.h"

#include "engine/rng.h"
#include "tournament/rate.h"
#include "tournament/rating.h"

static void test_one_rung_logit(void **state)
{
    (void)state;
    /* 3,000 of 4,000 against a rung at 200: the estimate is 200 + 400 log10(3),
     * moved by the prior's one draw at the same rung by less than a point */
    tour_rate_tally t = {200, 4000, 3000};
    tour_rate_estimate e;
    assert_int_equal(tour_rate_fit(&t, 1, &e), 0);
    double want = 200 + 400 * log10(3.0);
    assert_near(e.elo, want, 0.5);
    /* information 4000 * 3/4 * 1/4 (+ the prior's) per (ln 10 / 400)^2 */
    double half = 1.959963984540054 * 400 / log(10.0) / sqrt(4000 * 0.1875);
    assert_near(e.half95, half, 0.05);
    assert_near(e.games, 4000, 1e-9);
}

/* The log-likelihood the fit maximises, prior included. */
static double loglik(const tour_rate_tally *t, int n, double mid, double r)
{
    double p0 = tour_elo_to_score(r - mid), l = 0.5 * log(p0) + 0.5 * log(1 - p0);
    for (int i = 0; i < n; i++) {
        double p = tour_elo_to_score(r - t[i].elo);
        l += t[i].score * log(p) + (t[i].games - t[i].score) * log(1 - p);
    }
    return l;
}

static void test_several_rungs_against_a_grid(void **state)
{
    (void)state;
    tour_rate_tally t[4] = {{0, 30, 29}, {400, 40, 30.5}, {700, 40, 12}, {1100, 10, 0.5}};
    tour_rate_estimate e;
    assert_int_equal(tour_rate_fit(t, 4, &e), 0);
    double mid = 550; /* the median of 0, 400, 700, 1100 */
    double best = -1, bestl = -INFINITY;
    for (double r = -500; r <= 1500; r += 0.01) {
        double l = loglik(t, 4, mid, r);
        if (l > bestl) {
            bestl = l;
            best = r;
        }
    }
    assert_near(e.elo, best, 0.02);
    /* the interval from the curvature by finite differences */
    double h = 0.5;
    double curv = (loglik(t, 4, mid, best + h) - 2 * loglik(t, 4, mid, best) +
                   loglik(t, 4, mid, best - h)) / (h * h);
    assert_near(e.half95, 1.959963984540054 / sqrt(-curv), 0.05);
}

static void test_all_wins_stays_finite(void **state)
{
    (void)state;
    tour_rate_tally t[3] = {{0, 20, 20}, {300, 20, 20}, {600, 20, 20}};
    tour_rate_estimate e;
    assert_int_equal(tour_rate_fit(t, 3, &e), 0);
    assert_true(isfinite(e.elo) && isfinite(e.half95));
    assert_true(e.elo > 600);
    /* no games: the prior alone, at the middle rung */
    tour_rate_tally z[3] = {{0, 0, 0}, {300, 0, 0}, {600, 0, 0}};
    assert_int_equal(tour_rate_fit(z, 3, &e), 0);
    assert_near(e.elo, 300, 1e-6);
    assert_true(e.half95 > 500);
}

static void test_nearest_and_stop(void **state)
{
    (void)state;
    tour_rate_tally t[5] = {{0, 0, 0}, {450, 0, 0}, {300, 0, 0}, {900, 0, 0}, {600, 0, 0}};
    int pick[5];
    assert_int_equal(tour_rate_nearest(t, 5, 500, 3, pick), 3);
    assert_int_equal(pick[0], 1); /* 450 */
    assert_int_equal(pick[1], 4); /* 600 */
    assert_int_equal(pick[2], 2); /* 300 */
    assert_int_equal(tour_rate_nearest(t, 5, 375, 2, pick), 2);
    assert_int_equal(pick[0], 2); /* 300 and 450 are as near: the lower first */
    assert_int_equal(pick[1], 1);
    tour_rate_stop s = {50, 20, 400};
    tour_rate_estimate e = {0, 49, 10, 1};
    assert_false(tour_rate_done(&e, &s)); /* precise enough, too few games */
    e.games = 20;
    assert_true(tour_rate_done(&e, &s));
    e.half95 = 51;
    assert_false(tour_rate_done(&e, &s));
    e.games = 400;
    assert_true(tour_rate_done(&e, &s)); /* the maximum */
}

static void test_bad_input(void **state)
{
    (void)state;
    tour_rate_estimate e;
    tour_rate_tally bad[2] = {{0, 10, 11}, {100, 1, 0}};
    assert_int_equal(tour_rate_fit(bad, 2, &e), ENG_EINVAL);
    bad[0].score = -1;
    assert_int_equal(tour_rate_fit(bad, 2, &e), ENG_EINVAL);
    bad[0] = (tour_rate_tally){NAN, 1, 1};
    assert_int_equal(tour_rate_fit(bad, 2, &e), ENG_EINVAL);
    assert_int_equal(tour_rate_fit(bad, 0, &e), ENG_EINVAL);
    assert_int_equal(tour_rate_fit(bad, TOUR_RATE_MAX_RUNGS + 1, &e), ENG_EINVAL);
    int pick[2];
    assert_int_equal(tour_rate_nearest(bad + 1, 1, 0, 2, pick), ENG_EINVAL);
}

/* The adaptive schedule as `tessera rate` runs it: pairs of games against
 * the nearest rung, until +-50 at 95%, on results drawn from a true rating. */
static void test_coverage_of_the_adaptive_run(void **state)
{
    (void)state;
    const double ladder[6] = {0, 420, 650, 810, 1000, 1290};
    eng_rng rng;
    eng_rng_seed(&rng, 2026);
    int runs = 400, covered = 0;
    double games = 0;
    for (int run = 0; run < runs; run++) {
        double truth = 200 + 900 * eng_rng_double(&rng);
        tour_rate_tally t[6];
        for (int i = 0; i < 6; i++)
            t[i] = (tour_rate_tally){ladder[i], 0, 0};
        tour_rate_stop stop = {50, 20, 4000};
        tour_rate_estimate e;
        assert_int_equal(tour_rate_fit(t, 6, &e), 0);
        while (!tour_rate_done(&e, &stop)) {
            int pick;
            tour_rate_nearest(t, 6, e.elo, 1, &pick);
            for (int g = 0; g < 2; g++) {
                t[pick].games += 1;
                t[pick].score += eng_rng_double(&rng) < tour_elo_to_score(truth - ladder[pick]);
            }
            assert_int_equal(tour_rate_fit(t, 6, &e), 0);
        }
        covered += fabs(e.elo - truth) <= e.half95;
        games += e.games;
    }
    double rate = (double)covered / runs;
    print_message("coverage %.3f over %d runs, %.0f games a run\n", rate, runs, games / runs);
    assert_true(rate > 0.91 && rate < 0.99);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_rung_logit),
        cmocka_unit_test(test_several_rungs_against_a_grid),
        cmocka_unit_test(test_all_wins_stays_finite),
        cmocka_unit_test(test_nearest_and_stop),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_coverage_of_the_adaptive_run),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
