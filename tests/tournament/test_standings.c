/*
 * test_standings.c — standings on hand-built results: the two worked
 * examples of docs/league.md (league points through tour_league_add, as
 * tessera match computes them), W/L/D and pairwise points of a three-seat
 * table, mean score and PD, Wilson intervals, score quantiles, time use,
 * time losses and faults, the cross-table, the ratings in the table and the
 * head-to-head pentanomial counts.
 */
#include "util.h"

#include "tournament/rating.h"
#include "tournament/standings.h"

static tour *make(spec_fixture *f)
{
    tour *t = NULL;
    char err[256] = "";
    int rc = tour_create(&f->spec, &t, err, sizeof err);
    if (rc)
        print_error("tour_create: %s\n", err);
    assert_int_equal(rc, 0);
    return t;
}

/* Finish game id with scores given per participant (not per seat). */
static void finish_by_participant(tour *t, int64_t id, const double *by_part, tour_result *r)
{
    tour_game g;
    assert_int_equal(tour_get_game(t, id, &g), 0);
    for (int s = 0; s < g.seats; s++)
        r->score[s] = by_part[g.table[s]];
    assert_int_equal(tour_game_started(t, id, NULL), 0);
    char err[256];
    int rc = tour_game_finished(t, id, r, err, sizeof err);
    if (rc)
        print_error("%s\n", err);
    assert_int_equal(rc, 0);
}

/* docs/league.md, "A three-bot example": A, B, C at three seats, one group.
 * League points A 14, B 17, C 12. */
static void test_three_bot_example(void **state)
{
    (void)state;
    spec_fixture f;
    fixture(&f, TOUR_ROUND_ROBIN, "carcassonne", 3, 3, 3);
    tour *t = make(&f);
    assert_int_equal(tour_game_count(t), 3);
    double sc[3][3] = {{30, 30, 10}, {5, 20, 15}, {40, 10, 40}};
    for (int64_t id = 0; id < 3; id++) {
        tour_result r;
        tour_result_init(&r);
        finish_by_participant(t, id, sc[id], &r);
    }
    assert_true(tour_is_done(t));
    tour_standings *s = tour_standings_new(t);
    assert_non_null(s);
    const tour_row *A = tour_standings_row(s, 0), *B = tour_standings_row(s, 1),
                   *C = tour_standings_row(s, 2);
    assert_int_equal(A->league.points, 14);
    assert_int_equal(B->league.points, 17);
    assert_int_equal(C->league.points, 12);
    assert_int_equal(A->league.matches, 6);
    /* W/L/D: a shared first place is a draw */
    assert_int_equal(A->wins, 0);
    assert_int_equal(A->draws, 2);
    assert_int_equal(A->losses, 1);
    assert_int_equal(B->wins, 1);
    assert_int_equal(B->draws, 1);
    assert_int_equal(C->draws, 1);
    assert_int_equal(C->losses, 2);
    /* pairwise points: (beaten + tied/2) / 2 per game */
    assert_near(A->points, 0.75 + 0 + 0.75, 1e-12);
    assert_near(B->points, 0.75 + 1 + 0, 1e-12);
    assert_near(C->points, 0 + 0.5 + 0.75, 1e-12);
    assert_near(A->mean_score, 25, 1e-12);
    assert_near(A->pd, (0 - 15 + 0) / 3.0, 1e-12);
    assert_near(B->pd, (0 + 5 - 30) / 3.0, 1e-12);
    /* order by rate: B, A, C */
    assert_int_equal(s->rows[0].participant, 1);
    assert_int_equal(s->rows[1].participant, 0);
    assert_int_equal(s->rows[2].participant, 2);
    assert_int_equal(s->rows[2].place, 3);
    /* cross-table: A against B drew, lost, won */
    assert_near(s->cross_points[0 * 3 + 1], 1.5, 1e-12);
    assert_near(s->cross_games[0 * 3 + 1], 3, 0);
    assert_near(s->cross_points[1 * 3 + 0], 1.5, 1e-12);
    assert_near(s->cross_points[2 * 3 + 0], 1.5, 1e-12); /* C: lost, won, drew */
    /* every participant sat in every seat once */
    for (int p = 0; p < 3; p++)
        assert_int_equal(tour_standings_row(s, p)->games, 3);
    tour_standings_free(s);
    tour_destroy(t);
}

/* docs/league.md, the worked example: 50 games A v B; with A first A won
 * 18, B 6, 1 drawn; with B first A won 11, B 13, 1 drawn. A 6 points (one
 * match each way, BWP, BLP), B 4. */
static void test_two_bot_worked_example(void **state)
{
    (void)state;
    spec_fixture f;
    fixture(&f, TOUR_ROUND_ROBIN, "reversi", 2, 2, 50);
    tour *t = make(&f);
    assert_int_equal(tour_game_count(t), 50);
    int aw[2] = {0, 0}, bw[2] = {0, 0};
    double time_a = 0;
    int64_t a_losses_on_time = 0, b_faults = 0;
    tour_penta want = {0};
    double first = 0;
    for (int64_t id = 0; id < 50; id++) {
        int r = (int)(id % 2), grp = (int)(id / 2);
        /* rotation 0: A first. groups 0-17 A wins, 18-23 B, 24 draw;
         * rotation 1: groups 0-10 A, 11-23 B, 24 draw */
        double a, b;
        if (r == 0) {
            a = grp < 18 ? 40 : grp < 24 ? 20 : 32;
            b = grp < 18 ? 24 : grp < 24 ? 44 : 32;
        } else {
            a = grp < 11 ? 36 : grp < 24 ? 28 : 32;
            b = grp < 11 ? 28 : grp < 24 ? 36 : 32;
        }
        aw[r] += a > b;
        bw[r] += b > a;
        double by_part[2] = {a, b};
        tour_result res;
        tour_result_init(&res);
        tour_game g;
        tour_get_game(t, id, &g);
        int sa = g.table[0] == 0 ? 0 : 1;
        assert_int_equal(sa, r); /* A sits in seat r */
        res.time_ms[sa] = 100;
        res.time_ms[1 - sa] = 50;
        res.moves[sa] = 30;
        res.moves[1 - sa] = 30;
        time_a += 100;
        if (grp == 20 && r == 0) { /* A lost this one on time */
            res.time_loss[sa] = true;
            res.end = TOUR_END_TIMEOUT;
            res.culprit = sa;
            a_losses_on_time++;
        }
        if (grp == 5 && r == 1) { /* B crashed and lost */
            res.end = TOUR_END_CRASH;
            res.culprit = 1 - sa;
            b_faults++;
        }
        finish_by_participant(t, id, by_part, &res);
        double x = a > b ? 1 : a < b ? 0 : 0.5;
        if (r == 0)
            first = x;
        else
            tour_penta_add(&want, first, x);
    }
    assert_int_equal(aw[0], 18);
    assert_int_equal(bw[0], 6);
    assert_int_equal(aw[1], 11);
    assert_int_equal(bw[1], 13);
    tour_standings *s = tour_standings_new(t);
    assert_non_null(s);
    const tour_row *A = tour_standings_row(s, 0), *B = tour_standings_row(s, 1);
    assert_int_equal(A->league.points, 6);
    assert_int_equal(A->league.bwp, 1);
    assert_int_equal(A->league.blp, 1);
    assert_int_equal(A->league.won, 1);
    assert_int_equal(A->league.lost, 1);
    assert_int_equal(B->league.points, 4);
    assert_int_equal(A->wins, 29);
    assert_int_equal(A->losses, 19);
    assert_int_equal(A->draws, 2);
    assert_near(A->points, 30, 1e-12);
    assert_near(A->rate, 0.6, 1e-12);
    double lo, hi;
    tour_wilson(0.6, 50, TOUR_Z95, &lo, &hi);
    assert_near(A->rate_lo, lo, 1e-12);
    assert_near(A->rate_hi, hi, 1e-12);
    assert_near(A->time_ms, time_a, 1e-9);
    assert_int_equal(A->moves, 50 * 30);
    assert_near(A->ms_per_move, 100.0 / 30, 1e-12);
    assert_int_equal(A->time_losses, a_losses_on_time);
    assert_int_equal(A->faults, a_losses_on_time);
    assert_int_equal(B->faults, b_faults);
    assert_int_equal(B->time_losses, 0);
    /* the rating in the table is the fit on the results: 30 of 50 */
    double d = 400 * log10(30.0 / 20.0);
    assert_near(A->elo - B->elo, d, 1e-6);
    assert_near(A->elo, d / 2, 1e-6);
    /* head to head over the 25 pairs */
    assert_int_equal(s->penta.ww, want.ww);
    assert_int_equal(s->penta.wl, want.wl);
    assert_int_equal(s->penta.ll, want.ll);
    assert_int_equal(s->penta.dd, want.dd);
    assert_int_equal(tour_penta_pairs(&s->penta), 25);
    assert_near(s->est.score, 0.6, 1e-12);
    /* score quantiles of A: 18x40, 6x20, 11x36, 13x28, 2x32 */
    assert_near(A->score_min, 20, 0);
    assert_near(A->score_max, 40, 0);
    assert_near(A->score_median, 36, 1e-12); /* the 25th and 26th of 50 sorted: 36, 36 */
    assert_near(A->mean_score, (18 * 40 + 6 * 20 + 11 * 36 + 13 * 28 + 2 * 32) / 50.0, 1e-12);
    assert_true(s->done);
    assert_false(s->has_sprt);
    tour_standings_free(s);
    tour_destroy(t);
}

/* Live standings: nothing played, then one game. */
static void test_live_and_empty(void **state)
{
    (void)state;
    spec_fixture f;
    fixture(&f, TOUR_ROUND_ROBIN, "reversi", 2, 4, 2);
    tour *t = make(&f);
    tour_standings *s = tour_standings_new(t);
    assert_non_null(s);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(s->rows[i].games, 0);
        assert_near(s->rows[i].elo, 0, 0);
        assert_near(s->rows[i].rate_lo, 0, 0);
        assert_near(s->rows[i].rate_hi, 1, 0);
        assert_int_equal(s->rows[i].place, i + 1);
    }
    assert_false(s->done);
    tour_standings_free(s);
    double sc[4] = {40, 24, 0, 0};
    tour_result r;
    tour_result_init(&r);
    tour_game g;
    tour_get_game(t, 0, &g);
    double by[4] = {0};
    by[g.table[0]] = sc[0];
    by[g.table[1]] = sc[1];
    finish_by_participant(t, 0, by, &r);
    s = tour_standings_new(t);
    assert_non_null(s);
    /* one decisive game: no ML ratings yet, the prior keeps them finite */
    assert_true(s->rating_prior);
    const tour_row *w = tour_standings_row(s, g.table[0]), *l = tour_standings_row(s, g.table[1]);
    assert_true(w->elo > 0 && l->elo < 0 && isfinite(w->elo_hi));
    assert_int_equal(s->rows[0].participant, g.table[0]);
    assert_int_equal(s->counts.done, 1);
    tour_standings_free(s);
    tour_destroy(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_three_bot_example),
        cmocka_unit_test(test_two_bot_worked_example),
        cmocka_unit_test(test_live_and_empty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
