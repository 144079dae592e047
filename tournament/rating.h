/*
 * rating.h — the statistics behind standings: Bradley–Terry ratings on the
 * Elo scale with 95% intervals, and the Wilson interval of a scoring rate.
 * Pure functions over caller buffers; no tournament needed, so the server's
 * ladder can rate its own games with them.
 *
 * The model (docs/tournaments.md, "Ratings"): participant i has strength
 * theta_i and beats j with probability p_ij = 1 / (1 + 10^((r_j - r_i)/400)),
 * r = theta * 400 / ln 10 being the rating in Elo. A draw counts as half a
 * win and half a loss (the likelihood of a result s in [0,1] is
 * p^s (1-p)^(1-s)), which gives exactly Elo's expected-score equations at the
 * optimum. The ratings maximise the likelihood of all results (Newton's
 * method with a line search; the log-likelihood is concave); their
 * covariance is the inverse of the observed Fisher information (minus the
 * Hessian) under the anchoring constraint, and the interval is +-1.96
 * standard errors.
 *
 * Anchoring: ratings are only defined up to a common shift. With
 * anchor < 0 they are shifted to mean 0 (covariance: the pseudo-inverse of
 * the information); with anchor = a, participant a is fixed at 0 and has no
 * error (covariance: the inverse with a's row and column removed).
 *
 * Existence: the maximum-likelihood ratings are finite only when the
 * "scored against" graph is strongly connected (every split of the field
 * into two parts has each part scoring against the other). When it is not
 * and prior mode is TOUR_PRIOR_AUTO, TOUR_RATING_PRIOR_GAMES virtual draws
 * per participant, spread evenly over all the others, are added to the data
 * (a weak prior pulling towards the mean), and info->prior says so.
 */
#ifndef TESSERA_TOURNAMENT_RATING_H
#define TESSERA_TOURNAMENT_RATING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TOUR_Z95         1.959963984540054  /* upper 2.5% point of N(0,1) */
#define TOUR_ELO_PER_NAT 173.71779276130073 /* 400 / ln 10 */

typedef enum tour_prior_mode {
    TOUR_PRIOR_AUTO,   /* virtual draws only when the maximum-likelihood fit does not exist */
    TOUR_PRIOR_NONE,   /* never: the fit fails (ENG_EINVAL) when it does not exist */
    TOUR_PRIOR_ALWAYS, /* always add the virtual draws */
} tour_prior_mode;

typedef struct tour_fit_info {
    bool prior;     /* virtual draws were added */
    int iterations; /* Newton steps taken */
    double loglik;  /* log-likelihood at the optimum (natural log; with the prior's terms) */
    int rated;      /* participants with at least one game (others get 0 and se 0) */
} tour_fit_info;

/* Fit Bradley–Terry ratings. n participants; score[i*n + j] is the
 * (possibly weighted, fractional) points i took from j, games[i*n + j] the
 * games between them (symmetric, score[i][j] + score[j][i] == games[i][j],
 * diagonal 0). Writes elo[n] (Elo, anchored as above), se[n] (standard
 * errors in Elo; 0 for the anchor) and, when cov is not NULL, cov[n*n] (the
 * covariance in Elo^2). Participants without games are left out of the fit
 * and get elo 0, se 0. anchor: -1 for mean 0, else the index of a participant
 * with games. Returns 0, or ENG_EINVAL with a reason in err (bad arguments,
 * inconsistent matrices, no maximum-likelihood solution under
 * TOUR_PRIOR_NONE), or ENG_ENOMEM. */
int tour_fit_ratings(int n, const double *score, const double *games, int anchor,
                     tour_prior_mode prior, double *elo, double *se, double *cov,
                     tour_fit_info *info, char *err, size_t errcap);

/* Probability that a rating difference d (Elo) wins: 1 / (1 + 10^(-d/400)). */
double tour_elo_to_score(double d);
/* The Elo difference whose expected score is s (0 < s < 1): -400 log10(1/s - 1);
 * +-INFINITY at 1 and 0. */
double tour_score_to_elo(double s);

/* The Wilson score interval of a proportion: `rate` observed over n trials
 * (draws counted as half a success), z standard normal quantile (TOUR_Z95 for
 * 95%). Writes [lo, hi], within [0, 1]; n <= 0 gives [0, 1]. */
void tour_wilson(double rate, double n, double z, double *lo, double *hi);

#endif
