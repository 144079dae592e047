/*
 * test_match.c — the match layer (tournament/match.h): the statistics on
 * constructed results, seat rotation and shared chance outcomes on real
 * games, determinism across thread counts, and configuration checks.
 *
 * Games are played by `random` bots only (the one bot that always exists),
 * a few dozen at most, so the suite runs in well under a second and never
 * looks at a clock.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tournament/match.h"

#define EPS 1e-9

/* cmocka 1.1 has no assert_double_equal: |a - b| <= eps, printing both. */
#define assert_double_equal(a, b, eps) near_((a), (b), (eps), #a, __FILE__, __LINE__)
static void near_(double a, double b, double eps, const char *what, const char *file, int line)
{
    if (!(fabs(a - b) <= eps)) {
        print_error("%s = %.12g, expected %.12g (within %g)\n", what, a, b, eps);
        _fail(file, line);
    }
}

/* ---- scoring rate and confidence bound ------------------------------------ */

static void test_scoring_rate(void **state)
{
    (void)state;
    assert_double_equal(match_scoring_rate(55, 4, 100), 0.57, EPS);
    assert_double_equal(match_scoring_rate(0, 0, 10), 0.0, EPS);
    assert_double_equal(match_scoring_rate(10, 0, 10), 1.0, EPS);
    assert_double_equal(match_scoring_rate(0, 10, 10), 0.5, EPS); /* all draws */
    assert_double_equal(match_scoring_rate(3, 1, 8), 3.5 / 8, EPS);
    assert_double_equal(match_scoring_rate(0, 0, 0), 0.0, EPS); /* no games: no division */
    /* Müller's thesis, Table 5.1: 41132 wins, 1886 draws of 100000 -> 42.08% */
    assert_double_equal(round(match_scoring_rate(41132, 1886, 100000) * 1e4), 4208, EPS);
}

/* The 90% Wilson score interval against values worked out by hand with
 * z = 1.645, z² = 2.706025:
 *  - w = 0: the interval is [0, z²/(n + z²)]; n = 10: 2.706025 / 12.706025 = 0.212972;
 *    n = 2: 2.706025 / 4.706025 = 0.575013. w = 1 mirrors it: [n/(n + z²), 1].
 *  - w = 0.5, n = 100: centre 0.5; half = z / (1 + z²/100) * sqrt(0.25/100 + z²/40000)
 *    = 1.645 / 1.02706025 * sqrt(0.0025676506) = 1.6016589 * 0.0506720 = 0.0811591.
 *  - w = 0.57, n = 100: centre = (0.57 + 0.01353013) / 1.02706025 = 0.5681561;
 *    half = 1.6016589 * sqrt(0.002451 + 0.0000676506) = 1.6016589 * 0.0501861 = 0.0803810.
 * The thesis' b(w) = z·sqrt(w(1-w)/n) is 0 at w = 0 or 1; this is not. */
static void test_wilson90(void **state)
{
    (void)state;
    double lo, hi;
    match_wilson90(0.0, 10, &lo, &hi);
    assert_double_equal(lo, 0.0, EPS);
    assert_double_equal(hi, 2.706025 / 12.706025, EPS);
    assert_double_equal(hi, 0.212972, 1e-6);
    match_wilson90(0.0, 2, &lo, &hi);
    assert_double_equal(hi, 0.575013, 1e-6);
    match_wilson90(1.0, 10, &lo, &hi);
    assert_double_equal(lo, 10 / 12.706025, EPS);
    assert_double_equal(hi, 1.0, EPS);
    match_wilson90(0.5, 100, &lo, &hi);
    assert_double_equal(lo, 0.5 - 0.0811591, 1e-6);
    assert_double_equal(hi, 0.5 + 0.0811591, 1e-6);
    match_wilson90(0.57, 100, &lo, &hi);
    assert_double_equal(lo, 0.5681561 - 0.0803810, 2e-6);
    assert_double_equal(hi, 0.5681561 + 0.0803810, 2e-6);
    assert_true(lo < 0.57 && 0.57 < hi); /* not centred on w, but holds it */
    /* large n: close to w ± z·sqrt(w(1-w)/n) (Müller's thesis, Table 5.1: 0.26% at 42.08% of 100000) */
    match_wilson90(0.4208, 100000, &lo, &hi);
    assert_double_equal(round((hi - lo) / 2 * 1e4), 26, EPS);
    /* no games: nothing is known */
    match_wilson90(0.0, 0, &lo, &hi);
    assert_double_equal(lo, 0.0, EPS);
    assert_double_equal(hi, 1.0, EPS);
}

/* ---- league points --------------------------------------------------------- */

/* One match between fresh standings; returns a's and b's points. */
static void league1(int64_t aw, int64_t bw, int64_t d, tour_league *a, tour_league *b)
{
    memset(a, 0, sizeof *a);
    memset(b, 0, sizeof *b);
    tour_league_add(a, b, aw, bw, d, 0.0);
}

static void test_league_bonus_edges(void **state)
{
    (void)state;
    tour_league a, b;

    league1(3, 1, 0, &a, &b); /* exactly 75:25: bonus win point */
    assert_int_equal(a.points, 5);
    assert_int_equal(a.won, 1);
    assert_int_equal(a.bwp, 1);
    assert_int_equal(b.points, 0);
    assert_int_equal(b.lost, 1);

    league1(18, 6, 1, &a, &b); /* 75% of the 24 decisive games; the draw does not count */
    assert_int_equal(a.bwp, 1);
    assert_int_equal(a.points, 5);

    league1(17, 6, 2, &a, &b); /* 73.9%: no bonus win; 73.9% > 55%: no bonus loss */
    assert_int_equal(a.points, 4);
    assert_int_equal(a.bwp, 0);
    assert_int_equal(b.points, 0);
    assert_int_equal(b.blp, 0);

    league1(11, 9, 0, &a, &b); /* exactly 55:45 (a loss ratio of 45:55): bonus loss point */
    assert_int_equal(a.points, 4);
    assert_int_equal(b.points, 1);
    assert_int_equal(b.blp, 1);
    assert_int_equal(a.blp, 0);

    league1(9, 11, 5, &a, &b); /* the same from the other side, with draws */
    assert_int_equal(b.points, 4);
    assert_int_equal(a.points, 1);
    assert_int_equal(a.blp, 1);

    league1(14, 11, 0, &a, &b); /* 56%: just outside the loss bonus */
    assert_int_equal(a.points, 4);
    assert_int_equal(b.points, 0);

    league1(6, 5, 0, &a, &b); /* 54.5%: inside */
    assert_int_equal(b.blp, 1);

    league1(0, 0, 25, &a, &b); /* all draws: a drawn match, 2 each, no bonus */
    assert_int_equal(a.points, 2);
    assert_int_equal(b.points, 2);
    assert_int_equal(a.drawn, 1);
    assert_int_equal(b.drawn, 1);
    assert_int_equal(a.bwp + a.blp + b.bwp + b.blp, 0);

    league1(12, 12, 1, &a, &b); /* equal wins: drawn match, no bonus for anyone */
    assert_int_equal(a.points, 2);
    assert_int_equal(b.points, 2);
    assert_int_equal(a.bwp + a.blp + b.bwp + b.blp, 0);

    league1(1, 0, 24, &a, &b); /* one decisive game: 100% of the decisive games */
    assert_int_equal(a.points, 5);
    assert_int_equal(b.points, 0);

    league1(0, 25, 0, &a, &b); /* a clean sweep */
    assert_int_equal(b.points, 5);
    assert_int_equal(a.points, 0);
    assert_int_equal(a.matches, 1);
    assert_int_equal(b.matches, 1);
}

static void test_league_season(void **state)
{
    (void)state;
    /* SIEA-MCTS paper §VI-B: MCTS K=sqrt(2) wins 7 matches (3 of them by at least
     * 75%), loses 3, draws none: 4*7 + 3 = 31 points. Losses by a wide margin
     * bring no bonus loss point. */
    tour_league me = {0}, opp[10];
    memset(opp, 0, sizeof opp);
    const int64_t w[10][2] = {{20, 5}, {19, 6},  {18, 6}, {15, 10}, {14, 11},
                              {16, 9}, {13, 12}, {5, 20}, {6, 18},  {4, 21}};
    for (int i = 0; i < 10; i++)
        tour_league_add(&me, &opp[i], w[i][0], w[i][1], 25 - w[i][0] - w[i][1], 1.5);
    assert_int_equal(me.matches, 10);
    assert_int_equal(me.won, 7);
    assert_int_equal(me.lost, 3);
    assert_int_equal(me.drawn, 0);
    assert_int_equal(me.bwp, 3); /* 20-5, 19-6 (76%), 18-6 (75%) */
    assert_int_equal(me.blp, 0);
    assert_int_equal(me.points, 31);
    assert_double_equal(me.pd, 15.0, EPS);
    assert_int_equal(opp[6].blp, 1);    /* 13-12 = 52%: the loser's bonus */
    assert_int_equal(opp[3].points, 0); /* 15-10 = 60%: nothing */
    assert_double_equal(opp[0].pd, -1.5, EPS);
}

/* ---- summaries of constructed games ---------------------------------------- */

static void test_summarise_two_seats(void **state)
{
    (void)state;
    /* 2 groups; games 0 and 2 have A in seat 1 (rotation 0), 1 and 3 B. */
    const double sc[] = {
        30, 20, /* game 0, rotation 0: A wins by 10 */
        25, 25, /* game 1, rotation 1: draw */
        10, 40, /* game 2, rotation 0: B wins by 30 */
        50, 20, /* game 3, rotation 1: A wins by 30 */
    };
    match_result r;
    memset(&r, 0, sizeof r);
    assert_int_equal(match_summarise(2, 4, sc, &r), 0);
    assert_int_equal(r.games, 4);
    assert_int_equal(r.groups, 2);
    const match_bot_result *a = &r.bot[0], *b = &r.bot[1];
    assert_int_equal(a->wins, 2);
    assert_int_equal(a->losses, 1);
    assert_int_equal(a->draws, 1);
    assert_int_equal(b->wins, 1);
    assert_int_equal(b->losses, 2);
    assert_int_equal(b->draws, 1);
    assert_double_equal(a->mean_score, 115.0 / 4, EPS);
    assert_double_equal(a->pd, (10 + 0 - 30 + 30) / 4.0, EPS);
    assert_double_equal(b->pd, -a->pd, EPS);
    assert_double_equal(a->scoring_rate, 2.5 / 4, EPS);
    assert_double_equal(a->scoring_rate + b->scoring_rate, 1.0, EPS);
    double lo, hi;
    match_wilson90(0.625, 4, &lo, &hi);
    assert_double_equal(a->ci90_low, lo, EPS);
    assert_double_equal(a->ci90_high, hi, EPS);
    assert_double_equal(lo, 0.262920, 1e-6); /* (0.625 + 0.338253) / 1.676506 - 0.311640 */
    /* match 1 (rotation 0): 1-1, drawn; match 2 (rotation 1): A 1-0 with a
     * draw, 100% of the decisive games: 4 + 1 */
    assert_int_equal(a->league.matches, 2);
    assert_int_equal(a->league.drawn, 1);
    assert_int_equal(a->league.won, 1);
    assert_int_equal(a->league.bwp, 1);
    assert_int_equal(a->league.points, 2 + 5);
    assert_int_equal(b->league.points, 2);
    /* league PD: mean difference per match, summed: (10-30)/2 + (0+30)/2 */
    assert_double_equal(a->league.pd, -10 + 15, EPS);
    /* seat 1 held A, B, A, B (bot i sits in seat (i + rotation) mod 2) */
    assert_double_equal(r.seat_mean_score[0], (30 + 25 + 10 + 20) / 4.0, EPS);
    assert_double_equal(r.seat_mean_score[1], (20 + 25 + 40 + 50) / 4.0, EPS);
    assert_int_equal(r.seat_wins[0], 1); /* game 0 (A) */
    assert_int_equal(r.seat_wins[1], 2); /* game 2 (B) and game 3 (A) */
}

static void test_summarise_three_seats(void **state)
{
    (void)state;
    const double sc[] = {
        30, 30, 10, /* A and B tie for the best: both draw, C loses */
        5,  20, 15, /* B wins alone */
        40, 10, 40, /* A and C tie */
    };
    match_result r;
    memset(&r, 0, sizeof r);
    assert_int_equal(match_summarise(3, 3, sc, &r), 0);
    const match_bot_result *a = &r.bot[0], *b = &r.bot[1], *c = &r.bot[2];
    assert_int_equal(a->wins, 0);
    assert_int_equal(a->draws, 2);
    assert_int_equal(a->losses, 1);
    assert_int_equal(b->wins, 1);
    assert_int_equal(b->draws, 1);
    assert_int_equal(b->losses, 1);
    assert_int_equal(c->wins, 0);
    assert_int_equal(c->draws, 1);
    assert_int_equal(c->losses, 2);
    /* PD against the best other score: tied best gives 0, a sole win the margin */
    assert_double_equal(a->pd, (0 + (5 - 20) + 0) / 3.0, EPS);
    assert_double_equal(b->pd, (0 + (20 - 15) + (10 - 40)) / 3.0, EPS);
    assert_double_equal(c->pd, ((10 - 30) + (15 - 20) + 0) / 3.0, EPS);
    assert_double_equal(a->scoring_rate, 1.0 / 3, EPS);
    /* one league match per rotation per pair: 3 rotations x 2 opponents */
    assert_int_equal(a->league.matches, 6);
    assert_int_equal(b->league.matches, 6);
    /* head to head, one game each: A-B: draw, B>A, A>B; A-C: A>C, C>A, draw;
     * B-C: B>C, B>C, C>B */
    assert_int_equal(a->league.won, 2);
    assert_int_equal(a->league.lost, 2);
    assert_int_equal(a->league.drawn, 2);
    assert_int_equal(a->league.points, 2 * 5 + 2 * 2);
    assert_int_equal(b->league.won, 3);
    assert_int_equal(b->league.lost, 2);
    assert_int_equal(b->league.drawn, 1);
    assert_int_equal(b->league.points, 3 * 5 + 2);
    assert_int_equal(c->league.points, 2 * 5 + 2);
    assert_int_equal(r.seat_wins[0] + r.seat_wins[1] + r.seat_wins[2], 1);
    assert_int_equal(r.seat_wins[(1 + 1) % 3], 1); /* B won game 1 from seat (1+1)%3 */
}

static void test_summarise_rejects(void **state)
{
    (void)state;
    const double sc[6] = {0};
    match_result r;
    assert_int_equal(match_summarise(2, 3, sc, &r), ENG_EINVAL); /* not whole groups */
    assert_int_equal(match_summarise(0, 0, sc, &r), ENG_EINVAL);
    assert_int_equal(match_summarise(ENG_MAX_PLAYERS + 1, 6, sc, &r), ENG_EINVAL);
    assert_int_equal(match_round_games(5, 2), 6);
    assert_int_equal(match_round_games(6, 3), 6);
    assert_int_equal(match_round_games(1, 5), 5);
    assert_int_equal(match_round_games(100, 3), 102);
}

/* ---- real matches ------------------------------------------------------------- */

#define MAXG 64

/* What the on_game callback saw, by game index. */
typedef struct seen {
    const eng_game *g;
    int calls; /* on_game calls (serialised by the match) */
    int bad;   /* problems found inside the callback */
    match_game game[MAXG];
    eng_move chance[MAXG][256]; /* chance outcomes, in order */
    int nchance[MAXG];
    eng_move moves[MAXG][512];                  /* every move */
    double replay_score[MAXG][ENG_MAX_PLAYERS]; /* scores by seat, replayed here */
    int placed[MAXG][ENG_MAX_PLAYERS];          /* tiles placed by seat: its turns */
} seen;

/* Runs on worker threads: no cmocka asserts here (they would longjmp
 * across threads); problems are counted and checked by the test. */
static void record_game(const match_game *mg, void *user)
{
    seen *s = user;
    s->calls++;
    if (mg->index < 0 || mg->index >= MAXG || mg->nmoves > 512) {
        s->bad++;
        return;
    }
    int i = (int)mg->index;
    s->game[i] = *mg;
    s->game[i].moves = NULL;
    memcpy(s->moves[i], mg->moves, (size_t)mg->nmoves * sizeof *mg->moves);
    /* replay to find which moves were chance outcomes */
    void *st = malloc(s->g->state_size);
    if (!st) {
        s->bad++;
        return;
    }
    eng_rules rules;
    eng_rules_default(s->g, &rules);
    rules.players = mg->seats;
    s->g->init(st, &rules);
    bool after_chance = false;
    for (int k = 0; k < mg->nmoves; k++) {
        if (!eng_is_legal(s->g, st, mg->moves[k]))
            s->bad++;
        int p = s->g->current_player(st);
        if (p == ENG_CHANCE && s->nchance[i] < 256)
            s->chance[i][s->nchance[i]++] = mg->moves[k];
        /* a Carcassonne turn: the decision right after a draw places the tile */
        if (p >= 0 && after_chance)
            s->placed[i][p]++;
        after_chance = p == ENG_CHANCE;
        s->g->apply(st, mg->moves[k]);
    }
    if (s->g->current_player(st) != ENG_TERMINAL)
        s->bad++;
    s->g->scores(st, s->replay_score[i]);
    free(st);
}

static void config(match_config *c, const char *game, int nbots, int64_t games, uint64_t seed,
                   int threads)
{
    static const char *const specs[ENG_MAX_PLAYERS] = {"random", "random", "random", "random",
                                                       "random"};
    memset(c, 0, sizeof *c);
    c->game = eng_find_game(game);
    assert_non_null(c->game);
    eng_rules_default(c->game, &c->rules);
    c->rules.players = nbots;
    c->nbots = nbots;
    for (int i = 0; i < nbots; i++)
        c->specs[i] = specs[i];
    c->games = games;
    c->seed = seed;
    c->threads = threads;
}

static void check_rotation_and_tiles(int seats, int groups, int threads)
{
    seen *s = calloc(1, sizeof *s);
    assert_non_null(s);
    match_config c;
    config(&c, "carcassonne", seats, (int64_t)seats * groups, 42, threads);
    s->g = c.game;
    c.on_game = record_game;
    c.on_game_user = s;
    match_result r;
    char err[256] = "";
    assert_int_equal(match_run(&c, &r, err, sizeof err), 0);
    int n = seats * groups;
    assert_int_equal(s->calls, n);
    assert_int_equal(s->bad, 0);
    assert_int_equal(r.games, n);
    for (int i = 0; i < n; i++) {
        const match_game *mg = &s->game[i];
        assert_int_equal(mg->index, i);
        assert_int_equal(mg->group, i / seats);
        assert_int_equal(mg->rotation, i % seats);
        assert_int_equal(mg->seats, seats);
        /* bot b sits in seat (b + r) mod k */
        for (int b = 0; b < seats; b++) {
            assert_int_equal(mg->seat_of[b], (b + mg->rotation) % seats);
            assert_double_equal(mg->score[b], s->replay_score[i][mg->seat_of[b]], EPS);
            assert_true(mg->decisions[b] > 0);
            /* turns counted generically (runs of one seat's decisions) are
             * the Carcassonne turns: tiles placed; each is 2 decisions */
            assert_int_equal(mg->turns[b], s->placed[i][mg->seat_of[b]]);
            assert_int_equal(mg->decisions[b], 2 * mg->turns[b]);
        }
        /* 71 draws after the start tile, discards included */
        assert_int_equal(s->nchance[i], 71);
        /* every game of a group saw the tiles of the group's first game */
        int first = i - i % seats;
        assert_memory_equal(s->chance[i], s->chance[first], 71 * sizeof(eng_move));
        if (i != first) /* ... while the players' moves differed */
            assert_true(s->game[i].nmoves != s->game[first].nmoves ||
                        memcmp(s->moves[i], s->moves[first],
                               (size_t)s->game[i].nmoves * sizeof(eng_move)) != 0);
    }
    /* different groups draw different tile orders */
    for (int gr = 1; gr < groups; gr++)
        assert_true(memcmp(s->chance[gr * seats], s->chance[0], 71 * sizeof(eng_move)) != 0);
    free(s);
}

static void test_rotation_shared_tiles_2(void **state)
{
    (void)state;
    check_rotation_and_tiles(2, 4, 2);
}

static void test_rotation_shared_tiles_3(void **state)
{
    (void)state;
    check_rotation_and_tiles(3, 3, 1);
}

static void test_rotation_shared_tiles_5(void **state)
{
    (void)state;
    check_rotation_and_tiles(5, 2, 3);
}

/* The deterministic part of two results must agree exactly. */
static void assert_same_results(const match_result *x, const match_result *y)
{
    assert_int_equal(x->games, y->games);
    assert_int_equal(x->seats, y->seats);
    for (int s = 0; s < x->seats; s++) {
        assert_double_equal(x->seat_mean_score[s], y->seat_mean_score[s], 0);
        assert_int_equal(x->seat_wins[s], y->seat_wins[s]);
    }
    for (int i = 0; i < x->seats; i++) {
        const match_bot_result *a = &x->bot[i], *b = &y->bot[i];
        assert_int_equal(a->wins, b->wins);
        assert_int_equal(a->losses, b->losses);
        assert_int_equal(a->draws, b->draws);
        assert_true(a->mean_score == b->mean_score);
        assert_true(a->pd == b->pd);
        assert_true(a->scoring_rate == b->scoring_rate);
        assert_true(a->ci90_low == b->ci90_low && a->ci90_high == b->ci90_high);
        assert_memory_equal(&a->league, &b->league, sizeof a->league);
        assert_int_equal(a->decisions, b->decisions);
        assert_int_equal(a->turns, b->turns);
        assert_int_equal(a->sims, b->sims);
    }
}

static void test_determinism_across_threads(void **state)
{
    (void)state;
    const int seats[] = {2, 3};
    for (int t = 0; t < 2; t++) {
        match_config c;
        match_result r1, r2, r3, other;
        char err[256] = "";
        config(&c, "carcassonne", seats[t], 18, 7, 1);
        assert_int_equal(match_run(&c, &r1, err, sizeof err), 0);
        assert_int_equal(r1.threads, 1);
        c.threads = 2;
        assert_int_equal(match_run(&c, &r2, err, sizeof err), 0);
        assert_int_equal(r2.threads, 2);
        c.threads = 5;
        assert_int_equal(match_run(&c, &r3, err, sizeof err), 0);
        assert_same_results(&r1, &r2);
        assert_same_results(&r1, &r3);
        /* another seed plays other games */
        c.seed = 8;
        assert_int_equal(match_run(&c, &other, err, sizeof err), 0);
        bool differ = false;
        for (int i = 0; i < seats[t]; i++)
            differ |= other.bot[i].mean_score != r1.bot[i].mean_score;
        assert_true(differ);
    }
}

static void test_results_consistent(void **state)
{
    (void)state;
    match_config c;
    match_result r;
    char err[256] = "";
    config(&c, "carcassonne", 2, 5, 3, 0); /* rounded up to 6; threads = CPUs */
    assert_int_equal(match_run(&c, &r, err, sizeof err), 0);
    assert_int_equal(r.games_requested, 5);
    assert_int_equal(r.games, 6);
    assert_int_equal(r.groups, 3);
    assert_true(r.threads >= 1);
    const match_bot_result *a = &r.bot[0], *b = &r.bot[1];
    assert_string_equal(a->spec, "random");
    assert_int_equal(a->wins + a->losses + a->draws, 6);
    assert_int_equal(a->wins, b->losses);
    assert_int_equal(a->draws, b->draws);
    assert_double_equal(a->pd, -b->pd, 1e-9);
    assert_double_equal(a->scoring_rate + b->scoring_rate, 1.0, 1e-12);
    assert_int_equal(a->league.matches, 2);
    assert_true(a->decisions > 6 * 60); /* two decisions per turn, ~35 turns each */
    assert_int_equal(a->sims, 0);       /* random runs no simulations */
    assert_true(a->league.points + b->league.points >= 8);

    /* Reversi: no chance at all, the same machinery */
    config(&c, "reversi", 2, 4, 3, 2);
    assert_int_equal(match_run(&c, &r, err, sizeof err), 0);
    assert_int_equal(r.bot[0].wins + r.bot[0].losses + r.bot[0].draws, 4);
    assert_int_equal(r.bot[0].wins, r.bot[1].losses);
}

static void test_check_rejects(void **state)
{
    (void)state;
    match_config c;
    match_result r;
    char err[256];

    config(&c, "reversi", 2, 4, 1, 1);
    c.nbots = 3;
    c.specs[2] = "random";
    c.rules.players = 3;
    err[0] = 0;
    assert_int_equal(match_run(&c, &r, err, sizeof err), ENG_EBAD_PLAYERS);
    assert_non_null(strstr(err, "reversi takes 2 players, got 3 bots"));

    config(&c, "carcassonne", 2, 4, 1, 1);
    c.rules.players = 3;
    assert_int_equal(match_check(&c, err, sizeof err), ENG_EBAD_PLAYERS);
    assert_non_null(strstr(err, "one bot per seat"));

    config(&c, "carcassonne", 2, 4, 1, 1);
    c.specs[1] = "nosuchbot";
    assert_int_equal(match_check(&c, err, sizeof err), ENG_EUNKNOWN_BOT);
    assert_non_null(strstr(err, "nosuchbot"));

    c.specs[1] = "random:sims=lots";
    assert_int_equal(match_check(&c, err, sizeof err), ENG_EBAD_BOT_SPEC);

    config(&c, "carcassonne", 2, 0, 1, 1);
    assert_int_equal(match_check(&c, err, sizeof err), ENG_EINVAL);
    c.games = MATCH_MAX_GAMES + 1;
    assert_int_equal(match_check(&c, err, sizeof err), ENG_EINVAL);

    config(&c, "carcassonne", 2, 2, 1, -1);
    assert_int_equal(match_check(&c, err, sizeof err), ENG_EINVAL);

    config(&c, "carcassonne", 2, 2, 1, 1);
    c.nbots = 1;
    c.rules.players = 1;
    assert_int_equal(match_check(&c, err, sizeof err), ENG_EBAD_PLAYERS);
    assert_non_null(strstr(err, "at least 2 bots"));

    config(&c, "carcassonne", 5, 5, 1, 1);
    assert_int_equal(match_check(&c, err, sizeof err), 0);
}

static int progress_calls;
static int64_t progress_last;

static void on_progress(int64_t done, int64_t total, void *user)
{
    assert_ptr_equal(user, &progress_calls);
    assert_int_equal(total, 8);
    assert_true(done >= progress_last); /* never goes back */
    progress_last = done;
    progress_calls++;
}

static void test_progress(void **state)
{
    (void)state;
    match_config c;
    match_result r;
    char err[256];
    config(&c, "carcassonne", 2, 8, 1, 2);
    c.progress = on_progress;
    c.progress_user = &progress_calls;
    assert_int_equal(match_run(&c, &r, err, sizeof err), 0);
    assert_true(progress_calls >= 1);
    assert_int_equal(progress_last, 8); /* the last report is the end */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scoring_rate),
        cmocka_unit_test(test_wilson90),
        cmocka_unit_test(test_league_bonus_edges),
        cmocka_unit_test(test_league_season),
        cmocka_unit_test(test_summarise_two_seats),
        cmocka_unit_test(test_summarise_three_seats),
        cmocka_unit_test(test_summarise_rejects),
        cmocka_unit_test(test_rotation_shared_tiles_2),
        cmocka_unit_test(test_rotation_shared_tiles_3),
        cmocka_unit_test(test_rotation_shared_tiles_5),
        cmocka_unit_test(test_determinism_across_threads),
        cmocka_unit_test(test_results_consistent),
        cmocka_unit_test(test_check_rejects),
        cmocka_unit_test(test_progress),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
