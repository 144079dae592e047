/*
 * match.h — play many games between bots, fairly, on all cores, and
 * summarise them: wins, losses, draws, mean score, point difference, the
 * scoring rate of Müller's thesis with its 90% Wilson interval, and the
 * league points of the SIEA-MCTS and ES-MCTS papers (docs/references.md). Used by `tessera match`;
 * the server's tournaments will reuse it. Nothing here prints: progress and per-game results go to
 * callbacks, the summary into a caller-owned struct.
 *
 * Fairness. With k bots (one per seat) games come in *rotation groups* of k:
 * in game r (r = 0..k-1) of a group, bot i sits in seat (i + r) mod k, so
 * every bot sits in every seat once per group. Every game of a group draws
 * its chance outcomes (the Carcassonne tile sequence) from one generator
 * seeded for the group, one sample per chance node. In Carcassonne the bag
 * evolves independently of the players' moves (a dead tile is discarded and
 * the next one drawn, one sample per draw), so the k games of a group see
 * the very same tiles in the same order: seat advantage and tile luck cancel
 * within the group. A requested game count is rounded up to a multiple of k.
 *
 * Determinism. Game `n` of a match depends only on (seed, n): its chance
 * generator on (seed, n / k), the bot in seat s on (seed, n, s). Each game's
 * outcome is stored at its index and the summary is computed in index
 * order afterwards, so the results (everything but the timings) are the
 * same for any number of threads.
 *
 * Threads: match_run() starts its worker threads and waits for them; each
 * worker creates the bots of the game it plays (bots are single-threaded)
 * and destroys them at the end of the game, so no state leaks from one
 * game into the next whichever worker plays it.
 */
#ifndef TESSERA_BOTS_MATCH_H
#define TESSERA_BOTS_MATCH_H

#include <stddef.h>
#include <stdint.h>

#include "bots/bot.h"
#include "engine/eng.h"

#define MATCH_MAX_GAMES   10000000 /* bounds the per-game scores (400 MB at 5 seats) */
#define MATCH_MAX_THREADS 256      /* more workers than this only cost memory */
#define MATCH_Z90         1.645    /* z of a two-sided 90% interval: P(|N(0,1)| < z) = 0.90 */

/* One finished game, handed to match_config.on_game. Everything is indexed
 * by bot (the order of match_config.specs), not by seat, except moves. */
typedef struct match_game {
    int64_t index;                      /* game number in the match, 0-based */
    int64_t group;                      /* rotation group: index / seats */
    int rotation;                       /* index % seats */
    int seats;                          /* number of seats = number of bots */
    int seat_of[ENG_MAX_PLAYERS];       /* seat of bot i: (i + rotation) % seats */
    double score[ENG_MAX_PLAYERS];      /* final score of bot i (game points) */
    int64_t decisions[ENG_MAX_PLAYERS]; /* decisions bot i made */
    int64_t turns[ENG_MAX_PLAYERS];     /* turns bot i played: maximal runs of decisions by
                                           its seat (a Carcassonne turn is 2 decisions:
                                           placement, meeple; chance events do not split) */
    int64_t sims[ENG_MAX_PLAYERS];      /* simulations bot i reported in total */
    double ms[ENG_MAX_PLAYERS];         /* wall-clock milliseconds bot i spent deciding */
    const eng_move *moves;              /* every move and chance outcome applied, in order,
                                           from init(rules); borrowed, valid during the call */
    int nmoves;                         /* length of moves */
} match_game;

/* Called on the thread that runs match_run() each time games finish;
 * `done` of `total` games are complete. */
typedef void (*match_progress_fn)(int64_t done, int64_t total, void *user);
/* Called on a worker thread for each finished game, one call at a time
 * (serialised by the match), in completion order — not index order. */
typedef void (*match_game_fn)(const match_game *game, void *user);

typedef struct match_config {
    /* public: filled by the caller */
    const eng_game *game;               /* the game to play */
    eng_rules rules;                    /* its rules; rules.players must equal nbots */
    const char *specs[ENG_MAX_PLAYERS]; /* bot specs, one per seat (borrowed) */
    int nbots;                          /* number of bots = seats */
    int64_t games;                      /* games wanted, 1..MATCH_MAX_GAMES (rounded up) */
    uint64_t seed;                      /* everything random derives from it */
    int threads;                        /* worker threads; 0 = online CPUs */
    match_progress_fn progress;         /* optional */
    void *progress_user;
    match_game_fn on_game; /* optional: every finished game, e.g. to record it */
    void *on_game_user;
} match_config;

/* The league standing of one bot (docs/league.md). A
 * "match" in the league sense is the set of games in which a pair of bots
 * sat in fixed seats; see match_summarise(). */
typedef struct match_league {
    int matches;          /* league matches played */
    int won, lost, drawn; /* league matches won, lost, drawn */
    int bwp;              /* bonus win points: matches won with >= 75% of the decisive games */
    int blp;              /* bonus loss points: matches lost with the winner at <= 55% */
    int points;           /* 4*won + 2*drawn + bwp + blp */
    double pd;            /* sum over its matches of the match's mean score difference */
} match_league;

/* The summary for one bot. */
typedef struct match_bot_result {
    const char *spec;         /* the spec as given (borrowed from the config) */
    int64_t games;            /* games played (every bot plays every game) */
    int64_t wins;             /* games with the sole best score */
    int64_t losses;           /* games with someone else strictly better */
    int64_t draws;            /* games tied for the best score */
    double mean_score;        /* mean final score */
    double pd;                /* mean of (own score - best score of the others) */
    double scoring_rate;      /* (wins + draws/2) / games */
    double ci90_low;          /* 90% Wilson score interval of the scoring rate */
    double ci90_high;         /*   (match_wilson90()) */
    match_league league;      /* league points and their parts */
    int64_t decisions;        /* decisions made (bot_choose calls) */
    int64_t turns;            /* turns played (match_game.turns) */
    int64_t sims;             /* simulations reported by bot_choose */
    double ms;                /* milliseconds spent in bot_choose */
    double ms_per_decision;   /* ms / decisions (not deterministic: wall clock) */
    double ms_per_turn;       /* ms / turns (likewise) */
    double sims_per_decision; /* sims / decisions */
    double sims_per_turn;     /* sims / turns: an MCTS bot reading its meeple from the
                                 placement's search runs sims=N once per turn */
} match_bot_result;

typedef struct match_result {
    int64_t games_requested;                 /* match_config.games */
    int64_t games;                           /* games played: requested, rounded up to seats */
    int64_t groups;                          /* games / seats */
    int seats;                               /* = number of bots */
    int threads;                             /* worker threads used */
    double seconds;                          /* wall-clock time of the whole match */
    double seat_mean_score[ENG_MAX_PLAYERS]; /* mean score of whoever sat in seat s */
    int64_t seat_wins[ENG_MAX_PLAYERS];      /* games won (sole best) from seat s */
    match_bot_result bot[ENG_MAX_PLAYERS];   /* in the order of match_config.specs */
} match_result;

/* Check a configuration without playing: game, seat count against the
 * game's range and rules.players, rules, every bot spec, game count,
 * threads. Returns 0 or a negative code (engine/errors.h) with a reason in
 * err ("carcassonne takes 2 to 5 players, got 6 bots"). */
int match_check(const match_config *cfg, char *err, size_t errcap);

/* Play the match and summarise it into *out. Blocks until every game is
 * done. Returns 0, or a negative code with a reason in err: a bad config
 * (see match_check), out of memory or threads, or a bot that returned an
 * illegal move (the match stops; *out is then incomplete). */
int match_run(const match_config *cfg, match_result *out, char *err, size_t errcap);

/* `games` rounded up to a whole number of rotation groups of `seats`. */
int64_t match_round_games(int64_t games, int seats);

/* ---- the statistics, exposed for tests and for tournaments ---------------- */

/* The scoring rate of Müller's thesis (§5.2): w = (wins + draws/2) / n; 0
 * when n == 0. */
double match_scoring_rate(int64_t wins, int64_t draws, int64_t n);
/* The 90% Wilson score interval of a rate w observed over n games:
 *   centre = (w + z²/2n) / (1 + z²/n)
 *   half   = z / (1 + z²/n) * sqrt(w(1-w)/n + z²/4n²),   z = MATCH_Z90,
 * clamped to [0, 1]. Unlike w ± z·sqrt(w(1-w)/n) (the thesis' b(w)) it is not
 * empty at w = 0 or 1: 0 wins of 10 gives [0, 0.213]. n == 0 gives [0, 1]. */
void match_wilson90(double w, int64_t n, double *low, double *high);

/* Score one league match between bots a and b and add it to their
 * standings: a won a_wins games, b won b_wins, `draws` were drawn, and
 * a_mean_diff is the mean over the match's games of (a's score - b's).
 * The bots with more wins wins the match (4 points; equal wins: 2 each);
 * the winner gets a bonus point if it won at least 75% of the decisive
 * games, else the loser gets one if the winner won at most 55% of them.
 * Exact integer comparisons (4w >= 3d, 20w <= 11d); see docs/league.md. */
void match_league_add(match_league *a, match_league *b, int64_t a_wins, int64_t b_wins,
                      int64_t draws, double a_mean_diff);

/* Summarise finished games: scores[n * seats + i] is the final score of
 * bot i in game n, games a multiple of seats, game n played at rotation
 * n % seats. Fills games, groups, seats, the seat figures and every bot's
 * W/L/D, mean score, PD, scoring rate, its 90% interval and league standing (timing
 * fields are left alone). League matches: for every rotation r and every
 * pair of bots, the games of rotation r (seats fixed) form one match,
 * decided head to head by comparing the pair's two scores. Returns 0 or
 * ENG_EINVAL. */
int match_summarise(int seats, int64_t games, const double *scores, match_result *out);

#endif
