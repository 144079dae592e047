/*
 * match.h — `tessera match`: many games between k bots, one per seat, and
 * the summary of the papers tessera grew from: wins, losses, draws, mean
 * score, point difference, the scoring rate of Müller's thesis with its 90%
 * Wilson interval, and the league points of the SIEA-MCTS and ES-MCTS
 * papers (docs/references.md). A thin layer over the tournament: a match is
 * a round-robin of its k bots at one k-seat table, played by the runner
 * (runner.h) — so a bot may also be an external program (`cmd:...`) — and
 * summarised here. Nothing here prints: progress and per-game results go to
 * callbacks, the summary into a caller-owned struct.
 *
 * Fairness. With k bots games come in *rotation groups* of k: in game r
 * (r = 0..k-1) of a group, bot i sits in seat (i + r) mod k, so every bot
 * sits in every seat once per group, and every game of a group draws its
 * chance outcomes from the group's seed (eng_chance_draw: the k-th chance
 * event from stream k of the seed). In Carcassonne the bag evolves
 * independently of the players' moves, so the k games of a group see the
 * very same tiles in the same order: seat advantage and tile luck cancel
 * within the group. A requested game count is rounded up to a multiple of k.
 *
 * Determinism. Game `n` of a match depends only on (seed, n): its chance
 * seed on (seed, n / k), the bot in seat s on (seed, n, s) (the
 * tournament's seeds, tour.h). Each game's outcome is stored at its index
 * and the summary is computed in index order afterwards, so the results
 * (everything but the timings) are the same for any number of threads.
 */
#ifndef TESSERA_TOURNAMENT_MATCH_H
#define TESSERA_TOURNAMENT_MATCH_H

#include <stddef.h>
#include <stdint.h>

#include "engine/eng.h"
#include "tournament/runner.h"
#include "tournament/standings.h"

#define MATCH_MAX_GAMES   TOUR_MAX_GAMES_PER_PAIR /* the games one table plays */
#define MATCH_MAX_THREADS TOUR_RUN_MAX_THREADS
#define MATCH_Z90         1.645 /* z of a two-sided 90% interval: P(|N(0,1)| < z) = 0.90 */

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
    int fault_bot;                      /* the bot whose fault ended the game (forfeit), or -1 */
    const char *end;                    /* how it ended: "normal", "timeout", "illegal",
                                           "crash", "resign" (tour_end_name) */
    const char *record;                 /* the game record's JSON text (match_config.records),
                                           else NULL; borrowed, valid during the call */
    const json_t *bundle[ENG_MAX_PLAYERS]; /* match_config.bundles: the fault bundle of bot i
                                              (a program) in this game, or NULL (borrowed,
                                              valid during the call; runner.h) */
} match_game;

/* One call on a bot's player (runner.h, tour_run_turn): a turn, or the
 * game's end (turn 0). Indexed by bot, like match_game. */
typedef struct match_turn {
    int64_t index;                /* game number in the match */
    int bot;                      /* the bot (the order of match_config.specs) */
    int seat;                     /* its seat in this game */
    int turn;                     /* the record's turn number; 0: after the game's end */
    bool program;                 /* the bot is an external program */
    const player_result *result;  /* verdict, detail, debug, stderr; borrowed */
} match_turn;

/* Called each time a game finishes (on a worker thread, one call at a
 * time); `done` of `total` games are complete. */
typedef void (*match_progress_fn)(int64_t done, int64_t total, void *user);
/* Called on a worker thread for each finished game, one call at a time
 * (serialised by the match), in completion order — not index order. */
typedef void (*match_game_fn)(const match_game *game, void *user);
/* Called on the worker playing the game after each of a bot's turns and at
 * the game's end, NOT serialised: different games call at once from
 * different threads (runner.h, on_turn). */
typedef void (*match_turn_fn)(const match_turn *turn, void *user);

typedef struct match_config {
    /* public: filled by the caller */
    const eng_game *game;               /* the game to play */
    eng_rules rules;                    /* its rules; rules.players must equal nbots */
    const char *specs[ENG_MAX_PLAYERS]; /* bot specs (or cmd:... programs), one per seat
                                           (borrowed) */
    int nbots;                          /* number of bots = seats */
    int64_t games;                      /* games wanted, 1..MATCH_MAX_GAMES (rounded up) */
    uint64_t seed;                      /* everything random derives from it */
    int threads;                        /* worker threads; 0 = online CPUs */
    int64_t move_ms;                    /* time per turn (0: programs get the runner's
                                           default, bots their own budget) */
    match_progress_fn progress;         /* optional */
    void *progress_user;
    match_game_fn on_game; /* optional: every finished game, e.g. to record it */
    void *on_game_user;
    match_turn_fn on_turn; /* optional: every turn (its debug, stderr, verdict) */
    void *on_turn_user;
    bool records;          /* build each game's record for on_game (match_game.record) */
    bool bundles;          /* keep fault bundles of programs' faults (match_game.bundle) */
} match_config;

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
    tour_league league;       /* league points and their parts */
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
    int64_t faults;                          /* games ended by a bot's fault (forfeits) */
    match_bot_result bot[ENG_MAX_PLAYERS];   /* in the order of match_config.specs */
} match_result;

/* Check a configuration without playing: game, seat count against the
 * game's range and rules.players, rules, every bot spec, game count,
 * threads. Returns 0 or a negative code (engine/errors.h) with a reason in
 * err ("carcassonne takes 2 to 5 players, got 6 bots"). */
int match_check(const match_config *cfg, char *err, size_t errcap);

/* Play the match and summarise it into *out. Blocks until every game is
 * done. A bot that fails a turn (an illegal move, a program's crash or
 * time-out) forfeits that game (runner.h, TOUR_FAULT_FORFEIT); out->faults
 * counts such games. Returns 0, or a negative code with a reason in err: a
 * bad config (see match_check), out of memory or threads, an internal
 * error. */
int match_run(const match_config *cfg, match_result *out, char *err, size_t errcap);

/* `games` rounded up to a whole number of rotation groups of `seats`. */
int64_t match_round_games(int64_t games, int seats);

/* ---- the statistics, exposed for tests and for tournaments ---------------- */

/* The scoring rate of Müller's thesis (§5.2): w = (wins + draws/2) / n; 0
 * when n == 0. */
double match_scoring_rate(int64_t wins, int64_t draws, int64_t n);
/* The 90% Wilson score interval of a rate w observed over n games
 * (tour_wilson with z = MATCH_Z90):
 *   centre = (w + z²/2n) / (1 + z²/n)
 *   half   = z / (1 + z²/n) * sqrt(w(1-w)/n + z²/4n²),   z = MATCH_Z90,
 * clamped to [0, 1]. Unlike w ± z·sqrt(w(1-w)/n) (the thesis' b(w)) it is not
 * empty at w = 0 or 1: 0 wins of 10 gives [0, 0.213]. n == 0 gives [0, 1]. */
void match_wilson90(double w, int64_t n, double *low, double *high);

/* Summarise finished games: scores[n * seats + i] is the final score of
 * bot i in game n, games a multiple of seats, game n played at rotation
 * n % seats. Fills games, groups, seats, the seat figures and every bot's
 * W/L/D, mean score, PD, scoring rate, its 90% interval and league standing (timing
 * fields are left alone). League matches: for every rotation r and every
 * pair of bots, the games of rotation r (seats fixed) form one match,
 * decided head to head by comparing the pair's two scores. Returns 0 or
 * ENG_EINVAL. */
int match_summarise(int seats, int64_t games, const double *scores, match_result *out);
/* The same with the final places: ranks[n * seats + i] is bot i's place in
 * game n (1 = best, equal for a tie), which decide wins, draws and the
 * league's head to head instead of the scores (a game lost by a forfeit
 * ranks the forfeiting bot last whatever its score); NULL ranks by score. */
int match_summarise_ranked(int seats, int64_t games, const double *scores, const int *ranks,
                           match_result *out);

#endif
