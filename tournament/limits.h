/*
 * limits.h — every limit of the tournament module, each with the reason it
 * exists. A spec beyond one of these is refused by tour_spec_check() with a
 * message that names the limit, never truncated or clamped silently.
 */
#ifndef TESSERA_TOURNAMENT_LIMITS_H
#define TESSERA_TOURNAMENT_LIMITS_H

/* Participants: the cross-table is n*n and the rating fit inverts an n*n
 * matrix (n^3 ~ 17 M operations at 256, a few ms), on every standings
 * request of a live server. Classroom leagues and bot ladders are far below. */
#define TOUR_MAX_PARTICIPANTS 256

/* A participant's name, in bytes without the NUL: it is a column of text
 * reports and a label on plots, and it comes from untrusted specs. */
#define TOUR_NAME_MAX 64

/* A participant's opaque spec ("mcts:sims=400", "cmd:python3 bot.py"), in
 * bytes without the NUL: long enough for a command line with arguments. */
#define TOUR_SPEC_MAX 1024

/* The tournament's own label (reports, the database), bytes without NUL. */
#define TOUR_LABEL_MAX 128

/* Games scheduled in one tournament: every game has a slot in memory (about
 * 150 bytes with its result) and a row written in one transaction when it is
 * scheduled, so a million games is ~150 MB and a second or two of SQLite at
 * creation. */
#define TOUR_MAX_GAMES 1000000

/* Per-format counts; they only bound arithmetic before TOUR_MAX_GAMES does. */
#define TOUR_MAX_GAMES_PER_PAIR 100000
#define TOUR_MAX_CYCLES         10000
#define TOUR_MAX_ROUNDS         1000
#define TOUR_MAX_BEST_OF        1000

/* Knockout: extra groups played one at a time when a tie is level on points
 * and on point difference after its regular groups; after this many the
 * higher seed goes through (docs/tournaments.md, "Tie-breaks"). Bounded so a
 * pair of bots that always draw cannot stall a bracket. */
#define TOUR_KO_MAX_EXTRA 3

/* Round-robin and gauntlet of multi-player games (k = 3..5 seats): every
 * k-subset is a table while there are at most this many tables per cycle;
 * beyond, a greedy balanced design is used (C(20,5) = 15504 tables would be
 * 77520 games per cycle at one group each). */
#define TOUR_MAX_SUBSET_TABLES 1000

/* Swiss pairing: nodes of the backtracking search for a round without
 * repeat meetings. Bounded so a hopeless case (more rounds than opponents)
 * falls back to the fewest-repeats greedy pairing in milliseconds. */
#define TOUR_SWISS_SEARCH_BUDGET 200000

/* Text carried with a result: a verdict ("P2 (seat 1): time limit
 * exceeded") and the caller's reference of a game (a server match id or a
 * record file). Longer ones are refused, not cut. */
#define TOUR_VERDICT_MAX 256
#define TOUR_REF_MAX     256

/* A game record stored with a result (tour_result.record): the record
 * reader's own limit (REC_MAX_BYTES), so every stored record can be read
 * back by `tessera replay`. A finished Carcassonne game with times is about
 * 6 KB. */
#define TOUR_RECORD_MAX (1024 * 1024)

/* Ratings: when the maximum-likelihood fit does not exist (someone won or
 * lost every game, or the field has not all met yet), this many virtual
 * draws per participant, spread evenly over the others, keep every rating
 * finite (BayesElo's default prior is of the same size). */
#define TOUR_RATING_PRIOR_GAMES 2.0

/* ---- the tournament service of a server (service.h) ---- */

/* Tournaments (and ladders) not over held by the service: each may hold a
 * schedule of up to a million games in memory (TOUR_MAX_GAMES). */
#define TOUR_SVC_MAX_TOURNAMENTS 64

/* Games a `tournament` message lists: the running ones and the most recent
 * finished ones up to this many (a 256-bot round-robin has 65,280 games,
 * megabytes of JSON: more than a watcher's queue may hold). The counts
 * always cover every game. */
#define TOUR_SVC_GAMES_LISTED 2000

/* The cross-table goes into standings pushes up to this many participants:
 * beyond, its n*n cells (65,536 at 256) would be most of every push. */
#define TOUR_SVC_CROSSTABLE_MAX 64

/* Standings are recomputed (on the host's thread pool) at most this often,
 * and at most once per this many times their own cost: at 256 participants
 * one computation takes ~0.4 s, so a busy tournament is recomputed every
 * ~2 s, a small one up to 5 times a second. */
#define TOUR_SVC_STANDINGS_MIN_MS      200
#define TOUR_SVC_STANDINGS_COST_FACTOR 5

#endif
