/*
 * runner.h — plays a tournament's games on worker threads: the local host
 * of the driver (driver.h), behind `tessera tournament` and `tessera match`
 * (a server's tournament service hosts the same driver with its own
 * matches instead, service.h).
 *
 *     tour_run_config c;  tour_run_config_default(&c);
 *     c.concurrency = 2;  c.on_end = show;  c.records = true;
 *     tour_run(t, &c, &stats, err, sizeof err);
 *
 * The driver (driver.h, the one a server's tournaments use too) starts the
 * games the tournament offers, up to `concurrency` at once; each worker
 * thread takes a started game, seats its participants through players/
 * (an in-process bot spec, or an external program `cmd:...` /
 * `cmd-stateless:...` in a sandbox), plays it, and hands the result back
 * to the tournament (and so to its store) as soon as it ends. Then the
 * next.
 *
 * Chance. The k-th chance event of a game is eng_chance_draw(g, st,
 * game.chance_seed, k) (contract of docs/records.md, "Verifiable games"): the
 * games of a group share their seed, so they see the same tiles. Each game
 * gets a fresh 128-bit nonce; its commitment is handed to on_start before
 * the first move, and its record carries the commitment, the seed and the
 * nonce (the reveal) — `tessera replay --verify` checks them.
 *
 * Seats. An in-process bot is created for each game with the game's seat
 * seed (tour_game.seat_seed), so a game depends only on (tournament seed,
 * game id) whatever thread plays it. A program is started once per worker
 * and participant and kept between games (a long-running `cmd:` bot keeps
 * its process; players/ restarts it after a fault); it dies with its
 * worker, which is why workers live as long as the run.
 *
 * Time. A long-running program is given its start-up allowance when it is
 * started (players/player.h, "Start-up": before its first game, on no one's
 * clock; config.players.startup_ms), and what it took is handed to on_end.
 * Then every turn gets a deadline: move_ms after the request (programs
 * without move_ms: TOUR_RUN_PROGRAM_MOVE_MS; in-process bots without
 * move_ms: none, their own budget decides). think_ms — an external
 * program's CPU time, an in-process bot's wall time — and wait_ms — the
 * runner's clock from the request to the move — go into every turn of the
 * record; each seat's think time, decisions and time loss go into the
 * result (standings: ms/move, time losses).
 *
 * Faults. A turn that is not ok (players/ verdicts: time_limit, crashed,
 * illegal_move, bad_output, no_answer, memory_limit, output_flood) follows
 * the policy: TOUR_FAULT_FORFEIT ends the game at once, the faulty seat
 * ranked last and the others by score (a time_limit counts as a loss on
 * time); TOUR_FAULT_RANDOM plays a uniformly random legal turn for the seat
 * and goes on (the result's verdict counts the faults). A resignation ends
 * the game whatever the policy. internal_error is tessera's own failure,
 * never charged to a player: the run stops and the game goes back to
 * pending.
 *
 * Fault bundles. With config.bundles, the first fault of each program seat
 * in a game (not a resignation, not an internal error) is kept as a fault
 * bundle (players/bundle.h): the game's record up to that turn with its
 * chance seed, the lines the program read and printed in the game, its
 * verdict, stderr and limits — handed to on_end for the caller to keep
 * (`tessera doctor --replay` plays it again).
 *
 * Stopping. Raising *stop ends the run early: no game is started any more,
 * running turns are cut short, and the games they belonged to go back to
 * pending (with a store, a later run plays them). A kill -9 leaves them
 * running in the store; tour_store_load(TOUR_RESUME_REPLAY) puts them back.
 *
 * Nothing is printed: callbacks report, serialised by the runner's lock (the
 * tournament's own lock: call no tour_* function that changes it from them;
 * reading it — tour_get_counts, tour_standings_new — is fine).
 */
#ifndef TESSERA_TOURNAMENT_RUNNER_H
#define TESSERA_TOURNAMENT_RUNNER_H

#include <jansson.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "players/player.h"
#include "tournament/tour.h"

#define TOUR_RUN_MAX_THREADS     256   /* more workers than this only cost memory */
#define TOUR_RUN_PROGRAM_MOVE_MS 10000 /* a program's turn when move_ms is 0 */
#define TOUR_RUN_STDERR_KEEP     16384 /* stderr kept per seat and game: a crash's traceback and
                                          a bot's debug lines, not a flood (players/ caps that) */

typedef enum tour_fault_policy {
    TOUR_FAULT_FORFEIT, /* "forfeit": the faulty seat loses the game at once */
    TOUR_FAULT_RANDOM,  /* "random": a random legal turn is played for it */
} tour_fault_policy;

/* "forfeit", "random"; parse returns 0 or ENG_EINVAL. */
const char *tour_fault_policy_name(tour_fault_policy p);
int tour_fault_policy_parse(const char *s, tour_fault_policy *out);

/* A game that ended, handed to on_end. Per-seat figures are by seat. */
typedef struct tour_run_game {
    const tour_game *game;     /* the schedule's entry: table, seeds */
    const tour_result *result; /* the result recorded (its record field: the JSON text) */
    const json_t *record;      /* the game record (NULL unless config.records) */
    const eng_move *moves;     /* every move applied from init(rules), chance included */
    int nmoves;
    const char *commitment;         /* the chance commitment (64 hex digits) */
    int turns[ENG_MAX_PLAYERS];     /* turns each seat played itself (ok verdicts) */
    int decisions[ENG_MAX_PLAYERS]; /* decisions in them */
    int64_t sims[ENG_MAX_PLAYERS];  /* simulations in-process bots reported */
    double think_ms[ENG_MAX_PLAYERS], wait_ms[ENG_MAX_PLAYERS]; /* summed over turns */
    int faults[ENG_MAX_PLAYERS];                                /* turns that were not ok */
    double seconds;                                             /* wall time of the game */
    const char *stderr_text[ENG_MAX_PLAYERS]; /* programs: the first TOUR_RUN_STDERR_KEEP bytes
                                                 each seat wrote on stderr in the game ("" for
                                                 bots; valid during on_end) */
    uint64_t stderr_bytes[ENG_MAX_PLAYERS];   /* bytes it wrote in all */
    double startup_ms[ENG_MAX_PLAYERS];       /* programs: the start-up measured of the process
                                                 that played the seat (the longest, when it was
                                                 started again; player_info), -1: none (a bot,
                                                 a stateless program) */
    const json_t *bundle[ENG_MAX_PLAYERS];    /* config.bundles: the fault bundle of the seat's
                                                 first fault in the game, or NULL (borrowed,
                                                 valid during on_end) */
} tour_run_game;

/* One call on a seat's player, handed to on_turn: a turn it was asked to
 * play (its verdict, detail, debug, stderr since the last call, times), or
 * the game's end (turn 0: the stderr written after game_over). */
typedef struct tour_run_turn {
    const tour_game *game;        /* the schedule's entry */
    int seat;                     /* the seat asked */
    int turn;                     /* the record's turn number (from 1, as the stdio protocol's
                                     your_turn counts); 0: the game is over */
    bool program;                 /* the seat holds an external program */
    const player_result *result;  /* borrowed, valid during the call; for a turn refused by
                                     the rules, its verdict is illegal_move */
} tour_run_turn;

typedef struct tour_run_config {
    int concurrency;          /* worker threads, 1..TOUR_RUN_MAX_THREADS (default 1) */
    int64_t move_ms;          /* each turn's allowance; 0: see "Time" above (default 0) */
    tour_fault_policy policy; /* default TOUR_FAULT_FORFEIT */
    bool records;             /* build each game's record: stored with the result, handed to
                                 on_end (default false) */
    player_config players;    /* how players are made (sandbox limits ...); the seed is
                                 replaced per game and seat */
    bool bundles;             /* keep a fault bundle of programs' faults (see above) */
    const char *source;       /* what a bundle says ran the game ("tessera match"); NULL:
                                 "tessera" */
    const atomic_bool *stop;  /* optional: raised, the run stops (see above) */
    /* Callbacks, all optional, serialised by the runner's lock, on worker threads. */
    void (*on_start)(const tour_game *g, const char *commitment, void *user);
    void (*on_end)(const tour_run_game *info, void *user);
    /* Optional, NOT under the lock: on the worker playing the game, in the
     * game's order, after every turn of a seat and, for every seat, once
     * more after the game's end (before on_end). Calls for different games
     * come from different threads at once. */
    void (*on_turn)(const tour_run_turn *turn, void *user);
    void *user;
} tour_run_config;

void tour_run_config_default(tour_run_config *c);

typedef struct tour_run_stats {
    int threads;       /* workers started */
    int64_t played;    /* games played to a result in this run */
    int64_t abandoned; /* games cut short by stop, back to pending */
    double seconds;    /* wall time of the run */
    bool stopped;      /* *stop was raised */
} tour_run_stats;

/* Can `spec` sit in a seat of game g here? In-process bot specs and
 * `cmd:` / `cmd-stateless:` programs can (the program is resolved, not
 * started); `remote:NAME` cannot (it names a bot registered with a server).
 * Returns 0, or ENG_EUNKNOWN_BOT / ENG_EBAD_BOT_SPEC / ENG_EINVAL with a
 * reason in err. */
int tour_run_check_spec(const char *spec, const eng_game *g, const player_config *pc, char *err,
                        size_t errcap);

/* Play the tournament's games until it is done (or stopped). Checks every
 * participant's spec first (tour_run_check_spec, naming the participant).
 * Returns 0 (stats in *out, may be NULL) when the tournament is done or
 * the run was stopped; or a negative code with a reason: a bad spec or
 * config (ENG_EINVAL, ENG_EUNKNOWN_BOT, ENG_EBAD_BOT_SPEC), a storage
 * failure (ENG_ESTORAGE: the database stays the truth, run again), no
 * threads or memory, or an internal error of a player (the run stops after
 * the running games end; unfinished ones go back to pending). */
int tour_run(tour *t, const tour_run_config *cfg, tour_run_stats *out, char *err, size_t errcap);

#endif
