/*
 * standings.h — the table of a tournament, computed from its finished
 * games on demand (live during the tournament, final at the end).
 *
 * Per participant: W/L/D, points and scoring rate with its Wilson 95%
 * interval, mean game score and PD, the league points of docs/league.md
 * (tour_league_add), the Bradley–Terry rating with its 95% interval, time
 * used and time losses, the distribution of its game scores; plus the
 * cross-table and, for a head-to-head with SPRT, the test and the
 * pentanomial estimates.
 *
 * Multi-player games (k seats) decompose into pairwise outcomes by the
 * final ranking: in a game, i beat j if i's rank is better, drew if equal.
 * "Points" of a game are the participant's share of those pairwise
 * outcomes, (beaten + tied/2) / (k-1), in [0, 1] (for k = 2: 1, 1/2, 0).
 * W/L/D keep tessera match's meaning (docs/match.md): a win is the sole
 * first place, a draw a shared first place.
 */
#ifndef TESSERA_TOURNAMENT_STANDINGS_H
#define TESSERA_TOURNAMENT_STANDINGS_H

#include <stdbool.h>
#include <stdint.h>

#include "tournament/tour.h"

/* The league standing of one participant: the league points of the
 * SIEA-MCTS and ES-MCTS papers (docs/league.md). A league "match" is the
 * set of games in which a pair of participants sat in fixed seats (one
 * rotation of one table), decided head to head. */
typedef struct tour_league {
    int matches;          /* league matches played */
    int won, lost, drawn; /* league matches won, lost, drawn */
    int bwp;              /* bonus win points: matches won with >= 75% of the decisive games */
    int blp;              /* bonus loss points: matches lost with the winner at <= 55% */
    int points;           /* 4*won + 2*drawn + bwp + blp */
    double pd;            /* sum over its matches of the match's mean score difference */
} tour_league;

/* Score one league match between a and b and add it to their standings:
 * a won a_wins games, b won b_wins, `draws` were drawn, and a_mean_diff is
 * the mean over the match's games of (a's score - b's). The side with more
 * wins wins the match (4 points; equal wins: 2 each); the winner gets a
 * bonus point if it won at least 75% of the decisive games, else the loser
 * gets one if the winner won at most 55% of them. Exact integer comparisons
 * (4w >= 3d, 20w <= 11d); see docs/league.md. */
void tour_league_add(tour_league *a, tour_league *b, int64_t a_wins, int64_t b_wins, int64_t draws,
                     double a_mean_diff);

typedef struct tour_row {
    int participant;             /* index in the spec */
    int place;                   /* 1-based; knockout: equal for those out in the same round */
    int64_t games;               /* finished games played */
    int64_t wins, losses, draws; /* sole first / not first / shared first */
    double points;               /* sum over games of the pairwise share (see above) */
    double rate;                 /* points / games */
    double rate_lo, rate_hi;     /* Wilson 95% interval of rate over `games` */
    double mean_score;           /* mean final game score */
    double pd;                   /* mean of own score - best score of the others */
    tour_league league;          /* league points (docs/league.md) */
    double elo, elo_se;          /* Bradley–Terry rating and its standard error (Elo) */
    double elo_lo, elo_hi;       /* 95% interval: elo -+ 1.96 se */
    double time_ms;              /* thinking time reported, summed */
    int64_t moves;               /* decisions reported, summed */
    double ms_per_move;          /* time_ms / moves (0 when no moves reported) */
    int64_t time_losses;         /* games lost on time */
    int64_t faults;              /* games ended by this participant: resign, timeout,
                                    forfeit, illegal, crash, disconnect */
    double score_min, score_q1, score_median, score_q3, score_max; /* game scores */
    /* format figures */
    double swiss_points, buchholz; /* Swiss: round points and Buchholz */
    int byes;                      /* Swiss byes */
    int ko_reached;                /* knockout: round reached (bracket rounds = won) */
    bool ko_alive;                 /* knockout: still in */
} tour_row;

typedef struct tour_standings {
    int n, seats;
    tour_format format;
    tour_row *rows;       /* [n], in place order */
    double *cross_points; /* [n*n]: points i took from j, one per game they shared */
    double *cross_games;  /* [n*n]: games i and j shared */
    double *elo_cov;      /* [n*n]: covariance of the ratings (Elo^2) */
    bool rating_prior;    /* the fit needed the virtual draws (see rating.h) */
    int anchor;           /* participant rated 0, or -1 (mean 0) */
    tour_counts counts;
    bool done;
    bool has_sprt;
    tour_sprt_status sprt;
    tour_penta penta;   /* every complete pair (head-to-head with 2 seats) */
    tour_penta_est est; /* estimates from `penta` */
} tour_standings;

/* Compute the standings now. Returns a heap object (free with
 * tour_standings_free) or NULL when out of memory. */
tour_standings *tour_standings_new(const tour *t);
void tour_standings_free(tour_standings *s);

/* The row of participant i (NULL if out of range). */
const tour_row *tour_standings_row(const tour_standings *s, int participant);

#endif
