/*
 * doctor.h — `tessera doctor`: a conformance check for a player (players/
 * player.h), in the spirit of fastchess's UCI compliance check: it plays
 * the bot through the cases that break bots, in every game, and says for
 * each whether the bot answered in time with a legal move — and, when not,
 * why and what to do (docs/stdio.md, "Checking your bot").
 *
 * The checks, per game (every game with a wire codec, or those asked for):
 *   first_move      the program's start-up (its allowance, before the game:
 *                   players/player.h, "Start-up"), then the first move of
 *                   a game (first_move_ms)
 *   full_game       the rest of that game, every move in time and legal
 *   new_game        game_over, then a new game in the same process, in
 *                   another seat
 *   more_players    a game with the most seats the game allows, last seat
 *   low_clock       a turn with a clock close to zero
 *   unknown_fields  every message carries fields the bot cannot know
 *   resync          a fresh process started mid-game with `start` and the
 *                   history (what happens after a crash or a reconnect)
 *   last_move       the last turn of a game
 *   only_move       a turn with a single legal move (Reversi: a pass)
 *   dead_tile       a chance outcome that leaves nothing to decide (a
 *                   Carcassonne tile that fits nowhere is discarded) just
 *                   before the bot's turn
 *   and per-game scenarios (scenarios.c), e.g. Carcassonne's no_meeples.
 * Special positions are found with the engine (seeded random games:
 * the same seed, the same positions) and the bot joins them with
 * player_resume, as a program restarted mid-game would.
 *
 * A turn fails on any verdict but ok, on an in-process bot past its
 * allowance, and on lines printed on stdout outside the turn. A check
 * that cannot be built (no such position found) is skipped, never failed.
 * Everything runs on the calling thread (a program's process dies with
 * it). With a server's URL, a bot registered there is checked from a
 * distance instead (remote.c: whole games only).
 */
#ifndef TESSERA_DOCTOR_DOCTOR_H
#define TESSERA_DOCTOR_DOCTOR_H

#include <stdbool.h>
#include <stdint.h>

#include "players/player.h"

#define DOCTOR_MAX_GAMES  16   /* games named in one run */
#define DOCTOR_MAX_CHECKS 32   /* checks named in one run */
#define DOCTOR_MOVE_MS    2000 /* default allowance of a move */
#define DOCTOR_FIRST_MOVE_MS                                                                       \
    2000                       /* default allowance of a game's first move: a move's, as in a      \
                                * course's gates and `tessera tournament` (the start-up has an      \
                                * allowance of its own before the game) */
#define DOCTOR_LOW_MS      200 /* default clock of low_clock */
#define DOCTOR_TURNS_AFTER 3   /* own turns played after a special position */
#define DOCTOR_DETAIL_MAX  600
#define DOCTOR_TAIL_MAX    600 /* bytes of stderr shown with a failure */

typedef enum doctor_status { DOCTOR_PASS, DOCTOR_FAIL, DOCTOR_SKIP } doctor_status;

const char *doctor_status_name(doctor_status s); /* "pass", "FAIL", "skip" */

/* One check's outcome, handed to on_check as soon as it is known. */
typedef struct doctor_check {
    const char *game;  /* registry name */
    const char *name;  /* "full_game" */
    const char *about; /* what it checks, one line */
    doctor_status status;
    char detail[DOCTOR_DETAIL_MAX];    /* what happened, one line (printable ASCII) */
    player_verdict verdict;            /* of the failing turn (PLAYER_OK otherwise) */
    int turn;                          /* the record turn of the failure (0: none) */
    char stderr_tail[DOCTOR_TAIL_MAX]; /* the program's last stderr lines at a failure,
                                        * " | " between lines */
    const char *hint;                  /* what to do about a failure (NULL when passed) */
    int moves;                         /* own turns played */
    double slowest_ms;                 /* the longest own turn */
    double allowed_ms;                 /* its allowance */
} doctor_check;

typedef struct doctor_config {
    const char *spec;                    /* the player: "cmd:python3 bot.py", "mcts:sims=50", ... */
    const char *games[DOCTOR_MAX_GAMES]; /* the games to check (none: every one with a codec) */
    int ngames;
    const char *checks[DOCTOR_MAX_CHECKS]; /* the checks to run, by name (none: all) */
    int nchecks;
    int64_t move_ms;       /* allowance of a move */
    int64_t first_move_ms; /* allowance of a game's first move */
    int64_t startup_ms;    /* a long-running program's start-up allowance (player_config) */
    int64_t low_ms;        /* the clock of low_clock */
    uint64_t seed;         /* positions, opponents, draws and the bot's seed */
    sandbox_limits limits; /* programs (zeros: defaults) */
    /* a registered bot on a server instead of spec (doctor_run_remote) */
    const char *url;         /* ws://HOST:PORT/ */
    const char *remote;      /* the name it registered under */
    const char *admin_token; /* the server's: seating a registered bot needs it */
    void (*on_check)(const doctor_check *c, void *ud); /* after each check (may be NULL) */
    void *ud;
} doctor_config;

void doctor_config_default(doctor_config *c);

typedef struct doctor_summary {
    int passed, failed, skipped;
    unsigned protections; /* the sandbox's, for a program (0 for a bot) */
    bool program;         /* an external program (not an in-process bot) */
    bool stateless;
} doctor_summary;

/* Run every check (or those named) of every game (or those named).
 * Returns 0 with the counts in *sum, or a negative code with a reason in
 * err (the spec cannot be made into a player for any game asked, an
 * unknown game or check, out of memory). */
int doctor_run(const doctor_config *cfg, doctor_summary *sum, char *err, size_t errcap);

/* Check a bot registered on a server (cfg->url, cfg->remote, cfg->
 * admin_token): for every game the server lists (or those named), the
 * server is asked to seat the bot in matches against its random bot —
 * full_game (seat 0), new_game (the last seat), more_players (the most
 * seats) — under strict policies (a time-out or an illegal move forfeits),
 * and the doctor watches each to its end. A check fails when the bot's
 * seat lost by a fault or the server had to play for it. Special positions
 * cannot be set up on a server: they are checked locally (doctor_run).
 * Returns 0 with the counts, or a negative code with a reason: the server
 * cannot be reached, refuses the admin token, or never saw the name. */
int doctor_run_remote(const doctor_config *cfg, doctor_summary *sum, char *err, size_t errcap);

/* ---- replaying a fault (replay.c) ---------------------------------------------- */

/* What a replay found. */
typedef struct doctor_replay_result {
    const char *game;          /* the bundle's game (static) */
    int seat;                  /* the faulty seat */
    int turn;                  /* the faulty turn (your_turn's "turn") */
    char was[DOCTOR_DETAIL_MAX]; /* the fault the bundle holds: "crashed: exited ..." */
    int asked;                 /* own turns asked before the faulty one */
    int differed;              /* ... answered otherwise than in the game */
    int first_differed;        /* the first of them (0: none) */
    player_verdict verdict;    /* of the faulty turn now */
    char detail[DOCTOR_DETAIL_MAX]; /* its detail, or the move it played */
    bool earlier;              /* it failed at an earlier turn (turn, verdict, detail say) */
    char stderr_tail[DOCTOR_TAIL_MAX]; /* its last stderr lines at a failure */
    int lines;                 /* lines it was sent, compared with the bundle's */
    int lines_differ;          /* the first line (1-based) that differs beyond the clocks, 0 none */
    char lines_note[DOCTOR_DETAIL_MAX]; /* how, or why they were not compared */
} doctor_replay_result;

/* Play the game of fault bundle `path` (players/bundle.h) to a player —
 * spec, or the bundle's own program when spec is NULL — as it was played:
 * the same rules, seat, tiles and moves, the same lines, the bundle's
 * allowance per turn (move_ms > 0 overrides it) and sandbox limits. Each of
 * the seat's turns before the faulty one is asked (an answer that differs
 * from the game's is noted; the game's move is played all the same, as the
 * game went on with it), then the faulty turn. Fills *r. Returns 0 (r->verdict
 * says whether the turn failed again), or a negative code with a reason in
 * err: the bundle cannot be read or does not replay, the spec cannot play. */
int doctor_replay(const char *path, const char *spec, int64_t move_ms, doctor_replay_result *r,
                  char *err, size_t errcap);

#endif
