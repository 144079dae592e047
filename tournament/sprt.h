/*
 * sprt.h — the sequential probability ratio test of a head-to-head A/B
 * match, over game pairs (pentanomial), as fastchess runs it.
 *
 * A game pair is one rotation group of a two-seat game: A and B play the
 * same chance outcomes twice with the seats swapped. From A's side a pair
 * scores 0, 1/2, 1, 3/2 or 2 points (LL, LD, DD or WL, WD, WW); the pair is
 * the unit of the test because its two games are correlated (same tiles).
 *
 * H0: A is elo0 stronger than B; H1: A is elo1 stronger (elo0 < elo1). The
 * log-likelihood ratio is the generalised one (the pentanomial probabilities
 * are profiled: the most likely distribution under each hypothesis given the
 * observed frequencies, after Michel Van den Bergh, "Comments on Normalized
 * Elo"), counts of zero regularised to 1e-3 as fastchess does. The test
 * stops with H1 when LLR >= log((1-beta)/alpha), with H0 when
 * LLR <= log(beta/(1-alpha)).
 *
 * Models: TOUR_SPRT_NORMALIZED (fastchess's default, `model=normalized`):
 * elo0/elo1 are normalised Elo, a bound on (mean - 1/2) / (standard deviation
 * of a pair's score), scaled so that nElo = (800/ln 10) * t / sqrt(2) per
 * pair; TOUR_SPRT_LOGISTIC (`model=logistic`): elo0/elo1 are ordinary
 * logistic Elo, a bound on the expected score 1/(1 + 10^(-elo/400)).
 * docs/tournaments.md explains the difference.
 */
#ifndef TESSERA_TOURNAMENT_SPRT_H
#define TESSERA_TOURNAMENT_SPRT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum tour_sprt_model { TOUR_SPRT_NORMALIZED, TOUR_SPRT_LOGISTIC } tour_sprt_model;

typedef struct tour_sprt_params {
    bool enabled;          /* run the test (head-to-head of 2 participants, 2 seats) */
    double elo0, elo1;     /* H0 and H1, elo0 < elo1, in the model's units */
    double alpha, beta;    /* error rates, each in (0, 1), alpha + beta < 1 */
    tour_sprt_model model; /* TOUR_SPRT_NORMALIZED by default, as fastchess */
} tour_sprt_params;

/* Game-pair outcomes from A's side. dd and wl both score one point: they are
 * kept apart for reports and merged by the test. */
typedef struct tour_penta {
    int64_t ll, ld, dd, wl, wd, ww;
} tour_penta;

typedef enum tour_sprt_state {
    TOUR_SPRT_CONTINUE, /* neither bound reached */
    TOUR_SPRT_H0,       /* accepted H0: the data favour elo0 (an A/B change fails) */
    TOUR_SPRT_H1,       /* accepted H1: the data favour elo1 (an A/B change passes) */
} tour_sprt_state;

/* Pair outcome from A's results in the two games (each 1, 0.5 or 0): adds it
 * to c. */
void tour_penta_add(tour_penta *c, double a_first, double a_second);
/* Number of pairs in c. */
int64_t tour_penta_pairs(const tour_penta *c);

/* Check elo0 < elo1, alpha and beta in (0, 1), alpha + beta < 1, a known
 * model, finite numbers. Returns 0 or ENG_EINVAL with a reason in err. */
int tour_sprt_check(const tour_sprt_params *p, char *err, size_t errcap);
/* The decision bounds: lower = log(beta/(1-alpha)), upper = log((1-beta)/alpha). */
void tour_sprt_bounds(const tour_sprt_params *p, double *lower, double *upper);
/* The log-likelihood ratio of H1 against H0 for the pairs in c (0 for none). */
double tour_sprt_llr(const tour_sprt_params *p, const tour_penta *c);
/* Where llr stands against the bounds. */
tour_sprt_state tour_sprt_decide(const tour_sprt_params *p, double llr);
/* "continue", "H0", "H1". */
const char *tour_sprt_state_name(tour_sprt_state s);
/* "normalized", "logistic"; parse returns 0 or ENG_EINVAL. */
const char *tour_sprt_model_name(tour_sprt_model m);
int tour_sprt_model_parse(const char *s, tour_sprt_model *out);

/* Estimates from the pairs (fastchess's report): A's mean score per game,
 * the logistic Elo difference with its 95% interval from the pair variance,
 * the normalised Elo with its interval, and the likelihood of superiority
 * (probability that A is stronger, normal approximation). Zero pairs: all 0
 * (los 0.5). A perfect or null score gives an infinite Elo. */
typedef struct tour_penta_est {
    int64_t pairs;
    double score; /* mean points per game, in [0, 1] */
    double elo, elo_lo, elo_hi;
    double nelo, nelo_lo, nelo_hi;
    double los; /* in [0, 1] */
} tour_penta_est;
void tour_penta_estimate(const tour_penta *c, tour_penta_est *out);

#endif
