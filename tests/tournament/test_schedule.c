/*
 * test_schedule.c — what each format schedules (tournament/schedule.c):
 * counts, every pairing in every seat order, the same chance seed within a
 * group, rounds without a participant twice, k-seat tables, Swiss pairing
 * (no repeats where avoidable, byes), the knockout bracket (seeding, byes,
 * advancement, early decisions, every tie-break), the SPRT's stop, the
 * game life cycle and its errors, and every bad spec.
 *
 * Results come from the synthetic model of util.h; no game is played.
 */
#include "util.h"

#include <jansson.h>

#include "tournament/standings.h"

static void all_games(tour *t, tour_game *out, int64_t cap, int64_t *n)
{
    *n = tour_game_count(t);
    assert_true(*n <= cap);
    for (int64_t i = 0; i < *n; i++)
        assert_int_equal(tour_get_game(t, i, &out[i]), 0);
}

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

/* Every group: k games with seats rotated and the same chance seed; groups
 * differ in chance seeds; ids dense. */
static void check_groups(const tour_game *g, int64_t n, int k)
{
    for (int64_t i = 0; i < n; i++) {
        for (int a = 0; a < k; a++) /* nobody twice at a table */
            for (int b = 0; b < a; b++)
                assert_int_not_equal(g[i].table[a], g[i].table[b]);
        assert_int_equal(g[i].id, i);
        assert_int_equal(g[i].group, i / k);
        assert_int_equal(g[i].rotation, i % k);
        if (i % k) {
            const tour_game *a = &g[i - i % k];
            assert_true(g[i].chance_seed == a->chance_seed);
            assert_int_equal(g[i].pairing, a->pairing);
            for (int s = 0; s < k; s++) /* seats rotated by one */
                assert_int_equal(g[i].table[(s + 1) % k], g[i - 1].table[s]);
        } else if (i) {
            assert_true(g[i].chance_seed != g[i - k].chance_seed);
        }
    }
}

/* ---- round-robin ------------------------------------------------------------------ */

static void test_round_robin_two_seats(void **state)
{
    (void)state;
    static tour_game g[2000];
    for (int n = 5; n <= 6; n++) {
        spec_fixture f;
        fixture(&f, TOUR_ROUND_ROBIN, "reversi", 2, n, 3); /* 3 -> 4 games: 2 pairs */
        f.spec.cycles = 2;
        tour *t = make(&f);
        int64_t ng;
        all_games(t, g, 2000, &ng);
        assert_int_equal(ng, (int64_t)n * (n - 1) / 2 * 4 * 2);
        check_groups(g, ng, 2);
        int ordered[8][8] = {{0}};
        for (int64_t i = 0; i < ng; i++)
            ordered[g[i].table[0]][g[i].table[1]]++;
        for (int a = 0; a < n; a++)
            for (int b = 0; b < n; b++)
                assert_int_equal(ordered[a][b],
                                 a == b ? 0 : 4); /* both seat orders, 2 each per cycle */
        /* the circle method: nobody twice in a round */
        tour_counts c;
        tour_get_counts(t, &c);
        assert_int_equal(c.rounds, (n % 2 ? n : n - 1) * 2);
        for (int r = 0; r < c.rounds; r++) {
            int seen[8] = {0};
            int64_t pairings[64];
            int np = 0;
            for (int64_t i = 0; i < ng; i++)
                if (g[i].round == r && g[i].rotation == 0) {
                    bool known = false;
                    for (int x = 0; x < np; x++)
                        known |= pairings[x] == g[i].pairing;
                    if (!known) {
                        pairings[np++] = g[i].pairing;
                        seen[g[i].table[0]]++;
                        seen[g[i].table[1]]++;
                    }
                }
            assert_int_equal(np, n / 2);
            for (int p = 0; p < n; p++)
                assert_true(seen[p] <= 1);
        }
        /* group-major: the first n(n-1)/2 groups cover every pairing once */
        int first[8][8] = {{0}};
        for (int64_t i = 0; i < (int64_t)n * (n - 1); i += 2)
            first[g[i].table[0] < g[i].table[1] ? g[i].table[0] : g[i].table[1]]
                 [g[i].table[0] < g[i].table[1] ? g[i].table[1] : g[i].table[0]]++;
        for (int a = 0; a < n; a++)
            for (int b = a + 1; b < n; b++)
                assert_int_equal(first[a][b], 1);
        assert_int_equal(c.expected, ng);
        tour_destroy(t);
    }
}

static void test_round_robin_three_seats(void **state)
{
    (void)state;
    static tour_game g[200];
    spec_fixture f;
    fixture(&f, TOUR_ROUND_ROBIN, "carcassonne", 3, 5, 2); /* 2 -> 3 games: one group */
    tour *t = make(&f);
    int64_t ng;
    all_games(t, g, 200, &ng);
    assert_int_equal(ng, 10 * 3); /* C(5,3) tables */
    check_groups(g, ng, 3);
    int seat[5][3] = {{0}}, tables[5] = {0};
    for (int64_t i = 0; i < ng; i++)
        for (int s = 0; s < 3; s++) {
            seat[g[i].table[s]][s]++;
            if (i % 3 == 0)
                tables[g[i].table[s]]++;
        }
    for (int p = 0; p < 5; p++) {
        assert_int_equal(tables[p], 6); /* C(4,2) tables hold p */
        for (int s = 0; s < 3; s++)
            assert_int_equal(seat[p][s], 6); /* every seat equally often */
    }
    tour_destroy(t);
}

/* Greedy balanced design: 16 participants at 4 seats (C(16,4) = 1820 tables
 * is over the limit). 5 rounds of 4 tables; everybody plays once per round. */
static void test_round_robin_balanced(void **state)
{
    (void)state;
    static tour_game g[4000];
    for (int n = 16; n <= 17; n++) {
        spec_fixture f;
        fixture(&f, TOUR_ROUND_ROBIN, "carcassonne", 4, n, 4);
        tour *t = make(&f);
        int64_t ng;
        all_games(t, g, 4000, &ng);
        int R = (n - 1 + 2) / 3;
        assert_int_equal(ng, (int64_t)R * (n / 4) * 4);
        check_groups(g, ng, 4);
        int met[17][17] = {{0}}, tables[17] = {0};
        for (int r = 0; r < R; r++) {
            int in_round[17] = {0};
            for (int64_t i = 0; i < ng; i += 4)
                if (g[i].round == r)
                    for (int s = 0; s < 4; s++)
                        in_round[g[i].table[s]]++;
            for (int p = 0; p < n; p++)
                assert_true(in_round[p] <= 1);
        }
        for (int64_t i = 0; i < ng; i += 4)
            for (int a = 0; a < 4; a++) {
                tables[g[i].table[a]]++;
                for (int b = 0; b < 4; b++)
                    if (a != b)
                        met[g[i].table[a]][g[i].table[b]]++;
            }
        int tmin = 99, tmax = 0, distinct_min = 99, maxmeet = 0;
        for (int p = 0; p < n; p++) {
            tmin = tables[p] < tmin ? tables[p] : tmin;
            tmax = tables[p] > tmax ? tables[p] : tmax;
            int d = 0;
            for (int q = 0; q < n; q++) {
                d += met[p][q] > 0;
                maxmeet = met[p][q] > maxmeet ? met[p][q] : maxmeet;
            }
            distinct_min = d < distinct_min ? d : distinct_min;
        }
        assert_true(tmax - tmin <= 1); /* sit-outs spread evenly */
        /* nearly the whole field met (a perfect design would meet all n - 1;
         * the greedy one measured 13 to 16), nobody three times */
        assert_true(distinct_min >= n - 4);
        assert_true(maxmeet <= 2);
        tour_destroy(t);
    }
}

/* ---- gauntlet -------------------------------------------------------------------- */

static void test_gauntlet(void **state)
{
    (void)state;
    static tour_game g[400];
    spec_fixture f;
    fixture(&f, TOUR_GAUNTLET, "reversi", 2, 4, 4);
    tour *t = make(&f);
    int64_t ng;
    all_games(t, g, 400, &ng);
    assert_int_equal(ng, 3 * 4);
    check_groups(g, ng, 2);
    int vs[4] = {0};
    for (int64_t i = 0; i < ng; i++) {
        assert_true(g[i].table[0] == 0 || g[i].table[1] == 0);
        vs[g[i].table[0] + g[i].table[1]]++;
    }
    for (int p = 1; p < 4; p++)
        assert_int_equal(vs[p], 4);
    tour_destroy(t);

    fixture(&f, TOUR_GAUNTLET, "carcassonne", 3, 5, 3);
    t = make(&f);
    all_games(t, g, 400, &ng);
    assert_int_equal(ng, 6 * 3); /* C(4,2) tables of 0 and two others */
    check_groups(g, ng, 3);
    for (int64_t i = 0; i < ng; i++)
        assert_true(g[i].table[0] == 0 || g[i].table[1] == 0 || g[i].table[2] == 0);
    tour_destroy(t);

    /* 20 at 5 seats: C(19,4) = 3876 tables is too many; ceil(19/4) = 5 tables
     * per cycle, the others drawn in passes: over 2 cycles each plays 2 or 3 */
    fixture(&f, TOUR_GAUNTLET, "carcassonne", 5, 20, 5);
    f.spec.cycles = 2;
    t = make(&f);
    all_games(t, g, 400, &ng);
    assert_int_equal(ng, 2 * 5 * 5);
    check_groups(g, ng, 5);
    int plays[20] = {0};
    for (int64_t i = 0; i < ng; i += 5) {
        bool has0 = false;
        for (int s = 0; s < 5; s++) {
            has0 |= g[i].table[s] == 0;
            plays[g[i].table[s]]++;
        }
        assert_true(has0);
    }
    assert_int_equal(plays[0], 10);
    for (int p = 1; p < 20; p++)
        assert_true(plays[p] == 2 || plays[p] == 3);
    tour_destroy(t);
}

/* ---- Swiss ------------------------------------------------------------------------- */

/* Distinct pairings of round r as (a, b) pairs; returns how many. */
static int round_pairs(tour *t, int r, int (*pairs)[ENG_MAX_PLAYERS], int k)
{
    int np = 0;
    int64_t last = -1;
    for (int64_t i = 0; i < tour_game_count(t); i++) {
        tour_game g;
        tour_get_game(t, i, &g);
        if (g.round != r || g.rotation != 0 || g.pairing <= last)
            continue;
        last = g.pairing;
        for (int s = 0; s < k; s++)
            pairs[np][s] = g.table[s];
        np++;
    }
    return np;
}

static void test_swiss_pairing(void **state)
{
    (void)state;
    int n = 8;
    spec_fixture f;
    fixture(&f, TOUR_SWISS, "reversi", 2, n, 2);
    f.spec.rounds = 3;
    tour *t = make(&f);
    tour_counts c;
    tour_get_counts(t, &c);
    assert_int_equal(c.round, 1); /* only round 1 is scheduled */
    assert_int_equal(c.scheduled, 4 * 2);
    assert_int_equal(c.expected, 3 * 4 * 2);
    /* round 1 by seeding (Monrad): 1-2, 3-4, 5-6, 7-8 */
    int pairs[16][ENG_MAX_PLAYERS];
    assert_int_equal(round_pairs(t, 0, pairs, 2), 4);
    for (int x = 0; x < 4; x++) {
        int a = pairs[x][0] < pairs[x][1] ? pairs[x][0] : pairs[x][1];
        int b = pairs[x][0] + pairs[x][1] - a;
        assert_int_equal(a, 2 * x);
        assert_int_equal(b, 2 * x + 1);
    }
    /* round 2 waits for round 1: start everything, finish nothing */
    tour_game g;
    int64_t ids[8];
    for (int i = 0; i < 8; i++) {
        assert_int_equal(tour_next_game(t, NULL, &g), 1);
        ids[i] = g.id;
        assert_int_equal(tour_game_started(t, g.id, NULL), 0);
    }
    assert_int_equal(tour_next_game(t, NULL, &g), 0);
    assert_false(tour_is_done(t));
    model m = {.strength = strength_by_index, .user = &n, .draw = 0, .seed = 5};
    char err[256];
    for (int i = 7; i >= 0; i--) { /* finish in reverse */
        tour_game gg;
        tour_get_game(t, ids[i], &gg);
        tour_result r;
        model_result(&m, &gg, &r);
        assert_int_equal(tour_game_finished(t, ids[i], &r, err, sizeof err), 0);
        tour_get_counts(t, &c);
        assert_int_equal(c.round, i ? 1 : 2); /* round 2 appears with the last result */
    }
    drive(t, &m, 3, 0);
    tour_get_counts(t, &c);
    assert_int_equal(c.round, 3);
    assert_int_equal(c.done, 3 * 4 * 2);
    /* no pairing twice; everybody plays every round */
    int met[8][8] = {{0}};
    for (int r = 0; r < 3; r++) {
        int np = round_pairs(t, r, pairs, 2), seen[8] = {0};
        assert_int_equal(np, 4);
        for (int x = 0; x < np; x++) {
            met[pairs[x][0]][pairs[x][1]]++;
            met[pairs[x][1]][pairs[x][0]]++;
            seen[pairs[x][0]]++;
            seen[pairs[x][1]]++;
        }
        for (int p = 0; p < n; p++)
            assert_int_equal(seen[p], 1);
    }
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++)
            assert_true(met[a][b] <= 1);
    /* the winner has the most round points */
    tour_standings *s = tour_standings_new(t);
    assert_non_null(s);
    assert_true(s->rows[0].swiss_points >= s->rows[1].swiss_points);
    double pts, bh;
    int byes;
    assert_true(tour_swiss_score(t, s->rows[0].participant, &pts, &bh, &byes));
    assert_near(pts, s->rows[0].swiss_points, 1e-12);
    tour_standings_free(s);
    tour_destroy(t);
}

static void test_swiss_byes_and_repeats(void **state)
{
    (void)state;
    /* 7 participants, 3 rounds: one bye per round, never twice to the same */
    int n = 7;
    spec_fixture f;
    fixture(&f, TOUR_SWISS, "reversi", 2, n, 2);
    f.spec.rounds = 3;
    tour *t = make(&f);
    model m = {.strength = strength_by_index, .user = &n, .draw = 0.1, .seed = 9};
    drive(t, &m, 4, 1);
    int pairs[16][ENG_MAX_PLAYERS], byes[7] = {0};
    for (int r = 0; r < 3; r++) {
        int np = round_pairs(t, r, pairs, 2), seen[7] = {0};
        assert_int_equal(np, 3);
        for (int x = 0; x < np; x++) {
            seen[pairs[x][0]]++;
            seen[pairs[x][1]]++;
        }
        for (int p = 0; p < n; p++)
            byes[p] += seen[p] == 0;
    }
    int total = 0;
    for (int p = 0; p < n; p++) {
        assert_true(byes[p] <= 1);
        total += byes[p];
        double pts, bh;
        int b;
        assert_true(tour_swiss_score(t, p, &pts, &bh, &b));
        assert_int_equal(b, byes[p]);
    }
    assert_int_equal(total, 3);
    tour_destroy(t);

    /* 4 participants, 5 rounds: repeats are unavoidable after 3 rounds but the
     * first 3 rounds are a full round-robin */
    n = 4;
    fixture(&f, TOUR_SWISS, "reversi", 2, n, 2);
    f.spec.rounds = 5;
    t = make(&f);
    drive(t, &m, 2, 0);
    int met[4][4] = {{0}};
    for (int r = 0; r < 5; r++) {
        int np = round_pairs(t, r, pairs, 2);
        assert_int_equal(np, 2);
        for (int x = 0; x < np; x++) {
            met[pairs[x][0]][pairs[x][1]]++;
            met[pairs[x][1]][pairs[x][0]]++;
        }
        if (r == 2)
            for (int a = 0; a < 4; a++)
                for (int b = 0; b < 4; b++)
                    assert_int_equal(met[a][b], a != b);
    }
    tour_destroy(t);
}

static void test_swiss_three_seats(void **state)
{
    (void)state;
    /* 9 at 3 seats: 3 tables a round; 4 rounds without a repeat meeting
     * exist (the affine plane of order 3), and the search finds them */
    int n = 9;
    spec_fixture f;
    fixture(&f, TOUR_SWISS, "carcassonne", 3, n, 3);
    f.spec.rounds = 4;
    tour *t = make(&f);
    model m = {.strength = strength_by_index, .user = &n, .seed = 3};
    drive(t, &m, 5, 0);
    int tabs[16][ENG_MAX_PLAYERS], met[9][9] = {{0}};
    for (int r = 0; r < 4; r++) {
        int np = round_pairs(t, r, tabs, 3), seen[9] = {0};
        assert_int_equal(np, 3);
        for (int x = 0; x < np; x++)
            for (int a = 0; a < 3; a++) {
                seen[tabs[x][a]]++;
                for (int b = 0; b < 3; b++)
                    if (a != b)
                        met[tabs[x][a]][tabs[x][b]]++;
            }
        for (int p = 0; p < n; p++)
            assert_int_equal(seen[p], 1);
    }
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++)
            assert_int_equal(met[a][b], a != b); /* every pair exactly once */
    tour_counts c;
    tour_get_counts(t, &c);
    assert_int_equal(c.done, 4 * 3 * 3);
    tour_destroy(t);

    /* 7 at 3 seats: 2 tables and a bye a round, never a second bye (a
     * repeat meeting is unavoidable from round 2: pigeonhole) */
    n = 7;
    fixture(&f, TOUR_SWISS, "carcassonne", 3, n, 3);
    f.spec.rounds = 3;
    t = make(&f);
    drive(t, &m, 5, 0);
    int byes[7] = {0};
    for (int r = 0; r < 3; r++) {
        int np = round_pairs(t, r, tabs, 3), seen[7] = {0};
        assert_int_equal(np, 2);
        for (int x = 0; x < np; x++)
            for (int a = 0; a < 3; a++)
                seen[tabs[x][a]]++;
        for (int p = 0; p < n; p++)
            byes[p] += seen[p] == 0;
    }
    for (int p = 0; p < n; p++)
        assert_true(byes[p] <= 1);
    tour_destroy(t);
}

/* ---- knockout ---------------------------------------------------------------------- */

static double strength_steep(int i, void *user)
{
    return 400.0 * (*(const int *)user - 1 - i);
}

static void test_knockout_bracket(void **state)
{
    (void)state;
    int n = 8;
    spec_fixture f;
    fixture(&f, TOUR_KNOCKOUT, "reversi", 2, n, 2);
    f.spec.best_of = 3;
    tour *t = make(&f);
    int pairs[16][ENG_MAX_PLAYERS];
    assert_int_equal(round_pairs(t, 0, pairs, 2), 4);
    /* 1 v 8, 4 v 5, 2 v 7, 3 v 6 (0-based: 0-7, 3-4, 1-6, 2-5) */
    int want[4][2] = {{0, 7}, {3, 4}, {1, 6}, {2, 5}};
    for (int x = 0; x < 4; x++) {
        int a = pairs[x][0] < pairs[x][1] ? pairs[x][0] : pairs[x][1];
        assert_int_equal(a, want[x][0]);
        assert_int_equal(pairs[x][0] + pairs[x][1] - a, want[x][1]);
    }
    model m = {.strength = strength_steep, .user = &n, .draw = 0, .seed = 1};
    /* 400 Elo between neighbours: the stronger nearly always goes through */
    drive(t, &m, 4, 0);
    tour_counts c;
    tour_get_counts(t, &c);
    assert_int_equal(c.rounds, 3);
    assert_int_equal(c.round, 3);
    tour_standings *s = tour_standings_new(t);
    assert_non_null(s);
    /* the strongest wins; places 1, 2, 3=, 5= */
    assert_int_equal(s->rows[0].participant, 0);
    assert_int_equal(s->rows[0].place, 1);
    assert_int_equal(s->rows[0].ko_reached, 3);
    assert_int_equal(s->rows[1].place, 2);
    assert_int_equal(s->rows[2].place, 3);
    assert_int_equal(s->rows[3].place, 3);
    for (int i = 4; i < 8; i++)
        assert_int_equal(s->rows[i].place, 5);
    int reached;
    bool alive;
    assert_true(tour_knockout_reached(t, 0, &reached, &alive));
    assert_int_equal(reached, 3);
    assert_true(alive);
    assert_true(tour_knockout_reached(t, 7, &reached, &alive));
    assert_int_equal(reached, 0);
    assert_false(alive);
    tour_standings_free(s);
    /* ties ended early are void, never played */
    assert_true(c.voided > 0);
    assert_int_equal(c.done + c.voided, c.scheduled);
    tour_destroy(t);
}

static void test_knockout_byes(void **state)
{
    (void)state;
    int n = 5;
    spec_fixture f;
    fixture(&f, TOUR_KNOCKOUT, "reversi", 2, n, 2);
    f.spec.best_of = 1;
    tour *t = make(&f);
    int pairs[16][ENG_MAX_PLAYERS];
    /* 8 slots: seeds 1-3 have byes; only 4 v 5 plays in round 1 */
    assert_int_equal(round_pairs(t, 0, pairs, 2), 1);
    assert_int_equal(pairs[0][0] + pairs[0][1], 3 + 4);
    int reached;
    bool alive;
    assert_true(tour_knockout_reached(t, 0, &reached, &alive));
    assert_int_equal(reached, 1); /* through on a bye */
    model m = {.strength = strength_by_index, .user = &n, .draw = 0, .seed = 2};
    drive(t, &m, 2, 0);
    assert_int_equal(round_pairs(t, 1, pairs, 2), 2);
    /* round 2: 1 v winner(4,5), 2 v 3 */
    int sums[2] = {pairs[0][0] + pairs[0][1], pairs[1][0] + pairs[1][1]};
    assert_true(sums[0] == 0 + 3 || sums[0] == 0 + 4);
    assert_int_equal(sums[1], 1 + 2);
    tour_destroy(t);
}

/* Feed the knockout results by hand: A is member 0, B member 1; game r of a
 * group has A in seat r % 2. */
static void ko_play(tour *t, int64_t id, double a_score, double b_score)
{
    tour_game g;
    assert_int_equal(tour_get_game(t, id, &g), 0);
    assert_int_equal(g.status, TOUR_PENDING);
    assert_int_equal(tour_game_started(t, id, NULL), 0);
    tour_result r;
    tour_result_init(&r);
    int sa = g.table[0] < g.table[1] ? 0 : 1; /* the higher seed is A */
    r.score[sa] = a_score;
    r.score[1 - sa] = b_score;
    char err[256];
    assert_int_equal(tour_game_finished(t, id, &r, err, sizeof err), 0);
}

static void test_knockout_tie_breaks(void **state)
{
    (void)state;
    spec_fixture f;
    tour *t;
    int a, b, w;
    const char *how;

    /* best of 2 groups = 4 games; A wins 3: decided on the lead, game 4 void */
    fixture(&f, TOUR_KNOCKOUT, "reversi", 2, 2, 2);
    f.spec.best_of = 2;
    t = make(&f);
    assert_int_equal(tour_game_count(t), 4);
    ko_play(t, 0, 40, 24);
    ko_play(t, 1, 40, 24);
    assert_int_equal(tour_knockout_tie(t, 0, &a, &b, &w, &how), 0);
    assert_int_equal(w, -1); /* 2-0 with 2 to play: not yet */
    ko_play(t, 2, 40, 24);
    assert_int_equal(tour_knockout_tie(t, 0, &a, &b, &w, &how), 0);
    assert_int_equal(w, 0);
    assert_string_equal(how, "lead");
    tour_game g;
    tour_get_game(t, 3, &g);
    assert_int_equal(g.status, TOUR_VOID);
    assert_true(tour_is_done(t));
    tour_destroy(t);

    /* level on points, B ahead on point difference */
    t = make(&f);
    ko_play(t, 0, 33, 31);
    ko_play(t, 1, 20, 44);
    ko_play(t, 2, 32, 32);
    ko_play(t, 3, 32, 32);
    assert_int_equal(tour_knockout_tie(t, 0, &a, &b, &w, &how), 0);
    assert_int_equal(w, 1);
    assert_string_equal(how, "point difference");
    tour_destroy(t);

    /* level on both: an extra group, which A wins */
    t = make(&f);
    ko_play(t, 0, 33, 31);
    ko_play(t, 1, 31, 33);
    ko_play(t, 2, 32, 32);
    ko_play(t, 3, 32, 32);
    assert_int_equal(tour_knockout_tie(t, 0, &a, &b, &w, &how), 0);
    assert_int_equal(w, -1);
    assert_int_equal(tour_game_count(t), 6);
    assert_false(tour_is_done(t));
    ko_play(t, 4, 40, 30);
    ko_play(t, 5, 35, 35);
    assert_int_equal(tour_knockout_tie(t, 0, &a, &b, &w, &how), 0);
    assert_int_equal(w, 0);
    assert_string_equal(how, "extra groups");
    assert_true(tour_is_done(t));
    tour_destroy(t);

    /* level through every extra group: the higher seed goes through */
    f.spec.best_of = 1;
    t = make(&f);
    for (int64_t id = 0; id < 2 * (1 + TOUR_KO_MAX_EXTRA); id++) {
        ko_play(t, id, 30, 30);
        if (id % 2 == 1 && id < 2 * TOUR_KO_MAX_EXTRA) /* a level group: one more */
            assert_int_equal(tour_game_count(t), id + 3);
    }
    assert_int_equal(tour_game_count(t), 2 * (1 + TOUR_KO_MAX_EXTRA));
    assert_int_equal(tour_knockout_tie(t, 0, &a, &b, &w, &how), 0);
    assert_int_equal(w, 0);
    assert_string_equal(how, "seeding");
    assert_true(tour_is_done(t));
    tour_destroy(t);
}

/* ---- the game life cycle ------------------------------------------------------------- */

static void test_life_cycle_errors(void **state)
{
    (void)state;
    spec_fixture f;
    fixture(&f, TOUR_ROUND_ROBIN, "reversi", 2, 3, 2);
    tour *t = make(&f);
    char err[256];
    tour_result r;
    tour_result_init(&r);
    r.score[0] = 40;
    r.score[1] = 24;
    assert_int_equal(tour_game_started(t, 99, NULL), ENG_EINVAL);
    assert_int_equal(tour_game_finished(t, 99, &r, err, sizeof err), ENG_EINVAL);
    assert_err_has(err, "no game 99");
    assert_int_equal(tour_game_started(t, 0, "match-1"), 0);
    assert_string_equal(tour_game_ref(t, 0), "match-1");
    assert_int_equal(tour_game_started(t, 0, NULL), ENG_EINVAL); /* already running */
    /* bad results */
    tour_result bad = r;
    bad.score[1] = NAN;
    assert_int_equal(tour_game_finished(t, 0, &bad, err, sizeof err), ENG_EINVAL);
    assert_err_has(err, "not a number");
    bad = r;
    bad.rank[0] = 2;
    bad.rank[1] = 3;
    assert_int_equal(tour_game_finished(t, 0, &bad, err, sizeof err), ENG_EINVAL);
    assert_err_has(err, "rank");
    bad = r;
    bad.rank[0] = 2;
    bad.rank[1] = 2;
    assert_int_equal(tour_game_finished(t, 0, &bad, err, sizeof err), ENG_EINVAL);
    assert_err_has(err, "first");
    bad = r;
    bad.culprit = 2;
    assert_int_equal(tour_game_finished(t, 0, &bad, err, sizeof err), ENG_EINVAL);
    bad = r;
    bad.time_ms[0] = -1;
    assert_int_equal(tour_game_finished(t, 0, &bad, err, sizeof err), ENG_EINVAL);
    char longv[TOUR_VERDICT_MAX + 2];
    memset(longv, 'x', sizeof longv - 1);
    longv[sizeof longv - 1] = 0;
    bad = r;
    bad.verdict = longv;
    assert_int_equal(tour_game_finished(t, 0, &bad, err, sizeof err), ENG_EINVAL);
    /* a good one, then the same again: not counted twice */
    r.verdict = "P2 (seat 1): resigned";
    r.end = TOUR_END_RESIGN;
    r.culprit = 1;
    assert_int_equal(tour_game_finished(t, 0, &r, err, sizeof err), 0);
    assert_int_equal(tour_game_finished(t, 0, &r, err, sizeof err), ENG_EINVAL);
    assert_err_has(err, "never counted twice");
    tour_result back;
    assert_int_equal(tour_get_result(t, 0, &back), 0);
    assert_int_equal(back.rank[0], 1); /* ranked by score */
    assert_int_equal(back.rank[1], 2);
    assert_int_equal(back.end, TOUR_END_RESIGN);
    assert_string_equal(back.verdict, "P2 (seat 1): resigned");
    assert_int_equal(tour_get_result(t, 1, &back), ENG_EINVAL);
    /* requeue */
    assert_int_equal(tour_game_started(t, 1, "m2"), 0);
    assert_int_equal(tour_game_requeue(t, 1), 0);
    assert_null(tour_game_ref(t, 1));
    assert_int_equal(tour_game_requeue(t, 1), ENG_EINVAL);
    tour_game g;
    assert_int_equal(tour_next_game(t, NULL, &g), 1);
    assert_int_equal(g.id, 1);
    /* busy participants are skipped: game 1 and 2 hold P0/P1 or similar */
    bool busy[3] = {false, false, false};
    busy[g.table[0]] = true;
    tour_game g2;
    assert_int_equal(tour_next_game(t, busy, &g2), 1);
    assert_true(g2.table[0] != g.table[0] && g2.table[1] != g.table[0]);
    /* pause and cancel */
    assert_int_equal(tour_set_paused(t, true), 0);
    assert_true(tour_is_paused(t));
    assert_int_equal(tour_next_game(t, NULL, &g), 0);
    assert_int_equal(tour_set_paused(t, false), 0);
    assert_int_equal(tour_next_game(t, NULL, &g), 1);
    assert_int_equal(tour_game_started(t, g.id, NULL), 0);
    assert_int_equal(tour_cancel(t), 0);
    assert_true(tour_is_cancelled(t));
    assert_int_equal(tour_next_game(t, NULL, &g2), 0);
    assert_false(tour_is_done(t)); /* one game still running */
    r.end = TOUR_END_NORMAL;
    r.culprit = -1;
    r.verdict = NULL;
    assert_int_equal(tour_game_finished(t, g.id, &r, err, sizeof err), 0);
    assert_true(tour_is_done(t));
    assert_int_equal(tour_game_finished(t, 5, &r, err, sizeof err), ENG_EINVAL);
    assert_err_has(err, "void");
    tour_counts c;
    tour_get_counts(t, &c);
    assert_int_equal(c.done, 2);
    assert_int_equal(c.voided, 4);
    tour_destroy(t);
}

/* ---- determinism ------------------------------------------------------------------------ */

static void test_determinism(void **state)
{
    (void)state;
    static tour_game g1[400], g2[400];
    spec_fixture f;
    int n = 6;
    fixture(&f, TOUR_SWISS, "reversi", 2, n, 4);
    f.spec.rounds = 4;
    f.spec.seed = 77;
    tour *a = make(&f), *b = make(&f);
    model m = {.strength = strength_by_index, .user = &n, .draw = 0.2, .seed = 4};
    drive(a, &m, 1, 0);
    drive(b, &m, 7, 1); /* another order of finishing */
    int64_t na, nb;
    all_games(a, g1, 400, &na);
    all_games(b, g2, 400, &nb);
    assert_int_equal(na, nb);
    for (int64_t i = 0; i < na; i++) {
        assert_true(g1[i].chance_seed == g2[i].chance_seed);
        assert_int_equal(g1[i].round, g2[i].round);
        for (int s = 0; s < 2; s++) {
            assert_int_equal(g1[i].table[s], g2[i].table[s]);
            assert_true(g1[i].seat_seed[s] == g2[i].seat_seed[s]);
        }
    }
    tour_destroy(a);
    tour_destroy(b);
    /* another seed, other tiles */
    f.spec.seed = 78;
    a = make(&f);
    tour_game x;
    tour_get_game(a, 0, &x);
    assert_true(x.chance_seed != g1[0].chance_seed);
    tour_destroy(a);
}

/* ---- the SPRT stops the schedule ---------------------------------------------------------- */

static double strength_pair(int i, void *user)
{
    return i == 0 ? *(const double *)user : 0;
}

static void test_sprt_stops(void **state)
{
    (void)state;
    double elo[2] = {120, -120};
    tour_sprt_state want[2] = {TOUR_SPRT_H1, TOUR_SPRT_H0};
    for (int c = 0; c < 2; c++) {
        spec_fixture f;
        fixture(&f, TOUR_ROUND_ROBIN, "reversi", 2, 2, 4000);
        f.spec.sprt.enabled = true;
        f.spec.sprt.elo0 = 0;
        f.spec.sprt.elo1 = 10;
        f.spec.sprt.model = TOUR_SPRT_LOGISTIC;
        tour *t = make(&f);
        model m = {.strength = strength_pair, .user = &elo[c], .draw = 0.2, .seed = 11};
        tour_sprt_status s1, s2;
        drive(t, &m, 1, 0);
        assert_true(tour_get_sprt(t, &s1));
        assert_int_equal(s1.state, want[c]);
        tour_counts cnt;
        tour_get_counts(t, &cnt);
        assert_true(cnt.done < 4000 / 4); /* stopped early */
        assert_int_equal(cnt.done + cnt.voided, 4000);
        assert_int_equal(cnt.running + cnt.pending, 0);
        assert_true(s1.decided_at > 0 && s1.decided_at * 2 == cnt.done);
        tour_destroy(t);
        /* eight at a time, finished newest first: the decision does not change */
        t = make(&f);
        drive(t, &m, 8, 1);
        assert_true(tour_get_sprt(t, &s2));
        assert_int_equal(s2.state, s1.state);
        assert_int_equal(s2.decided_at, s1.decided_at);
        assert_near(s2.llr, s1.llr, 1e-12);
        tour_get_counts(t, &cnt);
        assert_true(cnt.done >= s1.decided_at * 2); /* games already running were finished */
        tour_destroy(t);
    }
}

/* ---- bad specs ---------------------------------------------------------------------------- */

static void expect_bad(const tour_spec *s, int code, const char *needle)
{
    char err[512] = "";
    tour *t = NULL;
    int rc = tour_create(s, &t, err, sizeof err);
    if (rc != code)
        print_error("expected %d, got %d: %s\n", code, rc, err);
    assert_int_equal(rc, code);
    assert_null(t);
    assert_err_has(err, needle);
    assert_int_equal(tour_spec_check(s, err, sizeof err), code);
}

static void test_bad_specs(void **state)
{
    (void)state;
    char err[256];
    tour_format fmt;
    assert_int_equal(tour_format_parse("league", &fmt, err, sizeof err), ENG_EINVAL);
    assert_err_has(err, "unknown tournament format 'league'");
    assert_int_equal(tour_format_parse("swiss", &fmt, err, sizeof err), 0);
    assert_int_equal(fmt, TOUR_SWISS);

    spec_fixture f;
    fixture(&f, TOUR_ROUND_ROBIN, "reversi", 2, 1, 2);
    expect_bad(&f.spec, ENG_EINVAL, "at least 2 participants, got 1");
    fixture(&f, TOUR_ROUND_ROBIN, "reversi", 2, 3, 0);
    expect_bad(&f.spec, ENG_EINVAL, "games per pairing must be from 1");
    fixture(&f, TOUR_ROUND_ROBIN, "reversi", 2, 3, 2);
    f.parts[2].name = "P0";
    expect_bad(&f.spec, ENG_EINVAL, "same name 'P0'");
    f.parts[2].name = "";
    expect_bad(&f.spec, ENG_EINVAL, "is empty");
    f.parts[2].name = "tab\there";
    expect_bad(&f.spec, ENG_EINVAL, "control character");
    char longname[TOUR_NAME_MAX + 2];
    memset(longname, 'n', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    f.parts[2].name = longname;
    expect_bad(&f.spec, ENG_EINVAL, "too long");
    f.parts[2].name = "P2";
    f.parts[1].spec = NULL;
    expect_bad(&f.spec, ENG_EINVAL, "spec of participant 2");
    fixture(&f, 7, "reversi", 2, 3, 2);
    expect_bad(&f.spec, ENG_EINVAL, "unknown tournament format 7");
    fixture(&f, TOUR_ROUND_ROBIN, "reversi", 2, 3, 2);
    f.spec.cycles = 0;
    expect_bad(&f.spec, ENG_EINVAL, "cycles must be from 1");
    fixture(&f, TOUR_SWISS, "reversi", 2, 3, 2);
    f.spec.rounds = -1;
    expect_bad(&f.spec, ENG_EINVAL, "rounds must be from 1");
    fixture(&f, TOUR_KNOCKOUT, "carcassonne", 3, 6, 3);
    expect_bad(&f.spec, ENG_EINVAL, "knockout needs a two-seat game");
    fixture(&f, TOUR_ROUND_ROBIN, "carcassonne", 4, 3, 4);
    expect_bad(&f.spec, ENG_EBAD_PLAYERS, "at least 4 participants");
    fixture(&f, TOUR_ROUND_ROBIN, "carcassonne", 6, 8, 6);
    char e2[256];
    assert_true(tour_spec_check(&f.spec, e2, sizeof e2) < 0); /* the rules refuse 6 seats */
    fixture(&f, TOUR_ROUND_ROBIN, "reversi", 2, 3, 2);
    f.spec.anchor = "nobody";
    expect_bad(&f.spec, ENG_EINVAL, "anchor 'nobody'");
    fixture(&f, TOUR_ROUND_ROBIN, "reversi", 2, 64, TOUR_MAX_GAMES_PER_PAIR);
    expect_bad(&f.spec, ENG_EINVAL, "more than the limit");
    /* SPRT */
    fixture(&f, TOUR_ROUND_ROBIN, "reversi", 2, 3, 100);
    f.spec.sprt.enabled = true;
    expect_bad(&f.spec, ENG_EINVAL, "head-to-head test of 2 participants, got 3");
    fixture(&f, TOUR_ROUND_ROBIN, "carcassonne", 3, 3, 99);
    f.spec.sprt.enabled = true;
    expect_bad(&f.spec, ENG_EINVAL, "SPRT needs a two-seat game");
    fixture(&f, TOUR_SWISS, "reversi", 2, 2, 100);
    f.spec.sprt.enabled = true;
    expect_bad(&f.spec, ENG_EINVAL, "not on swiss");
    fixture(&f, TOUR_ROUND_ROBIN, "reversi", 2, 2, 100);
    f.spec.sprt.enabled = true;
    f.spec.sprt.elo0 = 5;
    f.spec.sprt.elo1 = 5;
    expect_bad(&f.spec, ENG_EINVAL, "elo0 (5) must be less than elo1 (5)");
    f.spec.sprt.elo0 = 0;
    f.spec.sprt.alpha = 0;
    expect_bad(&f.spec, ENG_EINVAL, "between 0 and 1");
    f.spec.sprt.alpha = 0.6;
    f.spec.sprt.beta = 0.5;
    expect_bad(&f.spec, ENG_EINVAL, "alpha + beta");
    /* a good spec passes, and rounding of games per pairing */
    fixture(&f, TOUR_ROUND_ROBIN, "carcassonne", 3, 4, 4);
    assert_int_equal(tour_spec_check(&f.spec, err, sizeof err), 0);
    assert_int_equal(tour_spec_games_per_pair(&f.spec), 6);
}

/* ---- spec JSON ------------------------------------------------------------------------------ */

static void test_spec_json(void **state)
{
    (void)state;
    spec_fixture f;
    fixture(&f, TOUR_SWISS, "carcassonne", 3, 5, 3);
    f.spec.rounds = 4;
    f.spec.seed = 0xfedcba9876543210ULL; /* beyond int64 */
    f.spec.label = "class of 2026";
    f.spec.anchor = "P2";
    assert_int_equal(eng_rules_set(f.spec.game, &f.spec.rules, "farms=false", NULL, 0), 0);
    struct json_t *o = tour_spec_to_json(&f.spec);
    assert_non_null(o);
    char err[256];
    tour_spec *back = tour_spec_from_json(o, err, sizeof err);
    if (!back)
        print_error("%s\n", err);
    assert_non_null(back);
    assert_int_equal(back->format, TOUR_SWISS);
    assert_ptr_equal(back->game, f.spec.game);
    assert_memory_equal(&back->rules, &f.spec.rules, sizeof back->rules);
    assert_int_equal(back->nparticipants, 5);
    assert_string_equal(back->participants[4].spec, "spec-4");
    assert_int_equal(back->rounds, 4);
    assert_true(back->seed == 0xfedcba9876543210ULL);
    assert_string_equal(back->label, "class of 2026");
    assert_string_equal(back->anchor, "P2");
    assert_false(back->sprt.enabled);
    tour_spec_free(back);
    json_decref(o);
    /* a damaged spec is refused with a reason */
    o = json_loads("{\"format\":\"swiss\",\"game\":\"carcassonne\",\"rules\":{\"players\":3},"
                   "\"participants\":[{\"name\":\"a\",\"spec\":\"x\"}],\"games_per_pair\":3}",
                   0, NULL);
    assert_null(tour_spec_from_json(o, err, sizeof err));
    assert_err_has(err, "at least 2 participants");
    json_decref(o);
    o = json_loads("{\"format\":\"swiss\",\"game\":\"chess\",\"rules\":{},"
                   "\"participants\":[],\"games_per_pair\":3}",
                   0, NULL);
    assert_null(tour_spec_from_json(o, err, sizeof err));
    assert_err_has(err, "unknown game 'chess'");
    json_decref(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_robin_two_seats),
        cmocka_unit_test(test_round_robin_three_seats),
        cmocka_unit_test(test_round_robin_balanced),
        cmocka_unit_test(test_gauntlet),
        cmocka_unit_test(test_swiss_pairing),
        cmocka_unit_test(test_swiss_byes_and_repeats),
        cmocka_unit_test(test_swiss_three_seats),
        cmocka_unit_test(test_knockout_bracket),
        cmocka_unit_test(test_knockout_byes),
        cmocka_unit_test(test_knockout_tie_breaks),
        cmocka_unit_test(test_life_cycle_errors),
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_sprt_stops),
        cmocka_unit_test(test_bad_specs),
        cmocka_unit_test(test_spec_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
