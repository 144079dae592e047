/*
 * util.h — what the tournament suites share: building specs, a synthetic
 * game model (results drawn from known strengths with a fixed generator,
 * the same result for the same game id whatever order games are played
 * in), and a driver loop that plays a whole tournament through the public
 * API like the CLI runner or the server would.
 */
#ifndef TESSERA_TESTS_TOURNAMENT_UTIL_H
#define TESSERA_TESTS_TOURNAMENT_UTIL_H

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine/eng.h"
#include "tournament/tour.h"

/* cmocka 1.1 has no assert_double_equal: |a - b| <= eps, printing both. */
#define assert_near(a, b, eps) near_((a), (b), (eps), #a, __FILE__, __LINE__)
static inline void near_(double a, double b, double eps, const char *what, const char *file,
                         int line)
{
    if (!(fabs(a - b) <= eps)) {
        print_error("%s = %.12g, expected %.12g (within %g)\n", what, a, b, eps);
        _fail(file, line);
    }
}

/* err must contain `needle` (printing err when it does not). */
#define assert_err_has(err, needle) has_((err), (needle), __FILE__, __LINE__)
static inline void has_(const char *err, const char *needle, const char *file, int line)
{
    if (!strstr(err, needle)) {
        print_error("error \"%s\" does not mention \"%s\"\n", err, needle);
        _fail(file, line);
    }
}

#define MAXP 64

/* A spec with n participants named P0.. ("spec-i"), game `game` at `seats`. */
typedef struct spec_fixture {
    tour_spec spec;
    tour_participant parts[MAXP];
    char names[MAXP][16], specs[MAXP][16];
} spec_fixture;

static inline void fixture(spec_fixture *f, tour_format fmt, const char *game, int seats, int n,
                           int64_t gpp)
{
    memset(f, 0, sizeof *f);
    tour_spec_init(&f->spec);
    f->spec.format = fmt;
    f->spec.game = eng_find_game(game);
    assert_non_null(f->spec.game);
    eng_rules_default(f->spec.game, &f->spec.rules);
    f->spec.rules.players = seats;
    for (int i = 0; i < n && i < MAXP; i++) {
        snprintf(f->names[i], sizeof f->names[i], "P%d", i);
        snprintf(f->specs[i], sizeof f->specs[i], "spec-%d", i);
        f->parts[i].name = f->names[i];
        f->parts[i].spec = f->specs[i];
    }
    f->spec.participants = f->parts;
    f->spec.nparticipants = n;
    f->spec.games_per_pair = gpp;
}

/* ---- the synthetic game model ------------------------------------------------------ */

/* Strength of participant i in Elo, for the model. */
typedef double (*strength_fn)(int participant, void *user);

typedef struct model {
    strength_fn strength;
    void *user;
    double draw; /* two seats: probability of a draw when equally strong */
    uint64_t seed;
} model;

/* The result of game g drawn from the model: two seats by the Elo formula
 * (a draw with probability `draw`, the rest split by expected score);
 * more seats by sorting strength + logistic noise. Scores are 10 + points
 * so PD and mean scores are non-trivial. Deterministic in (seed, g.id). */
static inline void model_result(const model *m, const tour_game *g, tour_result *r)
{
    eng_rng rng;
    eng_rng_seed_stream(&rng, m->seed, (uint64_t)g->id);
    tour_result_init(r);
    int k = g->seats;
    if (k == 2) {
        double d = m->strength(g->table[0], m->user) - m->strength(g->table[1], m->user);
        double e = 1.0 / (1.0 + pow(10.0, -d / 400.0));
        double pdraw = m->draw, pwin = e - pdraw / 2;
        if (pwin < 0) {
            pwin = 0;
            pdraw = 2 * e;
        }
        if (pwin + pdraw > 1)
            pdraw = 1 - pwin;
        double u = eng_rng_double(&rng);
        double a = u < pwin ? 1 : u < pwin + pdraw ? 0.5 : 0;
        r->score[0] = 20 + 10 * a + (double)eng_rng_below(&rng, 5);
        r->score[1] = 30 - 10 * a + (double)eng_rng_below(&rng, 5);
        r->rank[0] = a == 1 ? 1 : a == 0 ? 2 : 1;
        r->rank[1] = a == 0 ? 1 : a == 1 ? 2 : 1;
    } else {
        double v[ENG_MAX_PLAYERS];
        for (int s = 0; s < k; s++) {
            double u = eng_rng_double(&rng);
            u = u < 1e-12 ? 1e-12 : u > 1 - 1e-12 ? 1 - 1e-12 : u;
            v[s] = m->strength(g->table[s], m->user) / 173.7 + log(u / (1 - u));
            r->score[s] = floor(50 + 10 * v[s]);
        }
        /* rank 0 = by score */
    }
    for (int s = 0; s < k; s++) {
        r->time_ms[s] = 10.0 * (g->table[s] + 1);
        r->moves[s] = 10;
    }
}

/* Strength: participant index i is 100 * (n - 1 - i) Elo: P0 strongest. */
static inline double strength_by_index(int i, void *user)
{
    int n = *(const int *)user;
    return 100.0 * (n - 1 - i);
}

/* Play a whole tournament with the model: start up to `concurrency` games,
 * finish the oldest (or, with reverse, the newest) first. Returns games
 * finished. Every call's return value is checked. */
static inline int64_t drive(tour *t, const model *m, int concurrency, int reverse)
{
    int64_t running[64], nrun = 0, finished = 0;
    char err[256];
    if (concurrency > 64)
        concurrency = 64;
    for (;;) {
        tour_game g;
        int got = 0;
        while (nrun < concurrency && (got = tour_next_game(t, NULL, &g)) == 1) {
            assert_int_equal(tour_game_started(t, g.id, NULL), 0);
            running[nrun++] = g.id;
        }
        assert_true(got >= 0);
        if (nrun == 0)
            break;
        int64_t pick = reverse ? nrun - 1 : 0;
        tour_game gg;
        assert_int_equal(tour_get_game(t, running[pick], &gg), 0);
        tour_result r;
        model_result(m, &gg, &r);
        int rc = tour_game_finished(t, gg.id, &r, err, sizeof err);
        if (rc)
            print_error("finish %lld: %s\n", (long long)gg.id, err);
        assert_int_equal(rc, 0);
        finished++;
        memmove(running + pick, running + pick + 1, (size_t)(nrun - pick - 1) * sizeof *running);
        nrun--;
    }
    assert_true(tour_is_done(t));
    return finished;
}

#endif
