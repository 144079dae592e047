/*
 * rate.h — a rating against a fixed reference ladder, in as few games as
 * the precision asked for needs (`tessera rate`, docs/rate.md).
 *
 * The ladder's bots have published ratings (Elo, measured once by a
 * round-robin among them: kit/ladder.json); they are constants here. One
 * player is rated against them: its rating r is the maximum-likelihood
 * estimate of the Bradley–Terry model of rating.h with the opponents' ratings
 * fixed — it scores p_i = 1 / (1 + 10^((r_i - r)/400)) against rung i, a draw
 * counting as half a win — and its 95% interval is r +- 1.96 / sqrt(I), I the
 * observed information sum_i g_i p_i (1 - p_i) (ln 10 / 400)^2. Until the
 * results hold a win and a loss the estimate would be infinite, so one virtual
 * draw against the ladder's middle rung is always added (a weak prior: after
 * a hundred games it moves the estimate by a few Elo; the report says so).
 *
 * The schedule is adaptive: the next game pairs go to the rungs whose
 * ratings are nearest the current estimate (where a game says most), and the
 * run stops once the interval's half-width is at most the target, after a
 * minimum number of games, or at a maximum. Pure functions over caller
 * buffers; the CLI plays the games (tournament/runner.h).
 */
#ifndef TESSERA_TOURNAMENT_RATE_H
#define TESSERA_TOURNAMENT_RATE_H

#include <stdbool.h>

#define TOUR_RATE_MAX_RUNGS 32 /* a reference ladder is a handful of bots, not a league */

/* What the player did against one rung. */
typedef struct tour_rate_tally {
    double elo;   /* the rung's published rating */
    double games; /* games the player played against it */
    double score; /* points it took: 1 a win, 0.5 a draw */
} tour_rate_tally;

typedef struct tour_rate_estimate {
    double elo;       /* the estimate */
    double half95;    /* half-width of its 95% interval (1.96 standard errors) */
    double games;     /* real games in it */
    int iterations;   /* Newton steps */
} tour_rate_estimate;

/* The estimate from the tallies of n rungs (1..TOUR_RATE_MAX_RUNGS; rungs
 * without games count only through the prior). Returns 0, or ENG_EINVAL for
 * bad input (n out of range, negative games, a score outside 0..games, a
 * rating that is not finite). */
int tour_rate_fit(const tour_rate_tally *t, int n, tour_rate_estimate *out);

/* The k rungs (k <= n) nearest the estimate `elo`, nearest first (a tie to
 * the lower rung), written to pick[0..k). Returns k, or ENG_EINVAL. */
int tour_rate_nearest(const tour_rate_tally *t, int n, double elo, int k, int *pick);

typedef struct tour_rate_stop {
    double target;   /* stop when half95 <= target (Elo, > 0) */
    int min_games;   /* ... and at least this many games were played */
    int max_games;   /* stop anyway at this many (0: never) */
} tour_rate_stop;

/* Is the run over? */
bool tour_rate_done(const tour_rate_estimate *e, const tour_rate_stop *s);

#endif
