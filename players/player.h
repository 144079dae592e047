/*
 * player.h — what can sit in a seat, behind one interface: an in-process
 * bot (bots/bot.h) or an external program speaking the stdio protocol
 * (docs/stdio.md) in a sandbox (sandbox.h). The CLI's runner and the
 * server's thread pool drive every kind the same way, synchronously, from a
 * worker thread.
 *
 * Specs, wherever a user picks a player:
 *   "mcts:sims=400"            an in-process bot (any bot spec, `tessera bots`)
 *   "cmd:PROGRAM ARGS..."      an external program, long-running: started once,
 *                              keeps its state between turns (and games)
 *   "cmd-stateless:PROGRAM ARGS..."  an external program started afresh for
 *                              every turn, which gets the whole visible game in
 *                              one `your_turn` and answers with one `move`
 * PROGRAM and its arguments are separated by spaces and run without a shell.
 *
 * A game, seen from a player:
 *   player_new_game(p, st, seat, ...)     st: the position the game starts from
 *   player_observe(p, st, m, reason)      every move applied, by anyone, in
 *                                         order (chance outcomes included, and
 *                                         the moves of this player's own turns)
 *   player_turn(p, st, deadline, ...)     the seat's whole turn: every
 *                                         consecutive decision of the seat
 *                                         (Carcassonne: placement and meeple)
 *   player_game_over(p, st, ...)          the end (any reason)
 * and again from player_new_game for the next game. Only player_turn waits
 * (until the deadline at most); the others do a bounded amount of I/O.
 *
 * Faults are reported, never acted on: player_turn returns a verdict with a
 * detail, and the caller applies its match policy (forfeit, random move,
 * retry). After an illegal move or unreadable output the same turn may be
 * asked again (the program is then told why, with an `error` line, first).
 * A program that ended or was killed is started again at its next turn,
 * and told the game so far (`start` with the history) — up to
 * PLAYER_MAX_FAILURES faults a game. Nothing a program does can crash the
 * caller, block it past the deadline, or leave a process or a descriptor
 * behind.
 *
 * Start-up. A long-running program is started by player_new_game (or
 * player_resume, or a turn after a fault) and, with cfg.startup_ms, let run
 * at once until it waits for its input — it has read `start` and has been
 * quiet (sandbox_settle) — or the allowance has passed: its interpreter,
 * imports and weights load on no one's clock, before its first turn, as
 * Botzone and CodinGame do (docs/stdio.md, "Time"). A turn that had to
 * start the program (again) moves its deadline by the time that took. What
 * it took is measured (player_info: startup_ms); a program still busy at
 * the end of the allowance is frozen, and the rest of its start-up runs on
 * its first turn's clock (that turn's note says so).
 *
 * Threads: a player is used by one thread at a time; different players may
 * be used on different threads at once. A program's process is started by
 * player_new_game or player_turn and dies with the thread that started it
 * (so that no program outlives a crashed tessera): call them from threads
 * that live as long as the player, as a worker pool's do.
 */
#ifndef TESSERA_PLAYERS_PLAYER_H
#define TESSERA_PLAYERS_PLAYER_H

#include <jansson.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/eng.h"
#include "players/limits.h"
#include "players/sandbox.h"
#include "protocol/stdio.h"
#include "protocol/wire.h"

#define PLAYER_SPEC_MAX   4096 /* longest spec accepted */
#define PLAYER_DETAIL_MAX 512  /* bytes of a verdict's detail */
#define PLAYER_NOTE_MAX   256  /* bytes of a turn's notes */

typedef enum player_kind {
    PLAYER_BOT,     /* in-process bot */
    PLAYER_PROGRAM, /* external program (cmd: / cmd-stateless:) */
} player_kind;

/* How a turn went. The names are the strings kept in records and shown to
 * people; the short forms are for tables (as judges print them). */
typedef enum player_verdict {
    PLAYER_OK,           /* "ok" (OK): a legal turn */
    PLAYER_TIME_LIMIT,   /* "time_limit" (TLE): no move by the deadline, or the CPU limit */
    PLAYER_MEMORY_LIMIT, /* "memory_limit" (MLE): ended for lack of memory */
    PLAYER_CRASHED,      /* "crashed" (RE): a signal, or a non-zero exit status */
    PLAYER_BAD_OUTPUT,   /* "bad_output" (OUT): not JSON, not a move message, line too long */
    PLAYER_ILLEGAL_MOVE, /* "illegal_move" (ILL): unreadable or against the rules */
    PLAYER_NO_ANSWER,    /* "no_answer" (NA): ended or closed stdout without a move */
    PLAYER_OUTPUT_FLOOD, /* "output_flood" (FLOOD): stdout/stderr/file output over the limit */
    PLAYER_RESIGNED,     /* "resigned" (RES) */
    PLAYER_INTERNAL,     /* "internal_error" (INT): our side failed, not the player */
    PLAYER_NVERDICTS
} player_verdict;

const char *player_verdict_name(player_verdict v);  /* "time_limit"; "unknown" out of range */
const char *player_verdict_short(player_verdict v); /* "TLE" */

/* What one turn did. Large (stderr is inline): keep one per worker. */
typedef struct player_result {
    player_verdict verdict;
    char detail[PLAYER_DETAIL_MAX];      /* why, for people (printable ASCII); "" when ok */
    eng_move moves[ENG_MAX_TURN_MOVES]; /* the turn (verdict ok): every decision of the seat */
    int nmoves;                          /* 0 unless ok */
    double cpu_ms;                       /* the player's own CPU time in the turn */
    double wall_ms;                      /* from the call to the answer */
    int64_t sims;                        /* bots: simulations */
    char debug[STDIO_DEBUG_MAX + 1];     /* a program's `debug`; a bot's bot_stats.info */
    char stderr_tail[PLAYER_STDERR_KEEP + 1]; /* programs: the tail of stderr since the
                                               * previous call that returned one */
    size_t stderr_len;                        /* bytes in stderr_tail */
    uint64_t stderr_total;                    /* bytes written to stderr in that span */
    bool started;                             /* programs: a process was started for this turn */
    char note[PLAYER_NOTE_MAX];               /* harmless oddities: lines printed outside the
                                               * turn, unknown fields ignored, a restart,
                                               * infos dropped */
    int info_passed;                          /* thinking lines passed to the sink in the turn */
    int info_dropped;                         /* bad ones dropped (the first's reason in note) */
    json_t *line; /* player_set_line_with_move: the turn's last line, canonical, for the move
                   * (owned: the caller takes it or json_decref's it before the next turn) */
} player_result;

/* How players are made. player_config_default() fills every field. */
typedef struct player_config {
    uint64_t seed;              /* bots: RNG seed, unless the spec has seed= */
    sandbox_limits limits;      /* programs: the sandbox's limits */
    int64_t bot_margin_ms;      /* bots stop this long (or 1/20 of the time, if more) before the
                                   deadline; 0: no margin at all (the caller keeps its own) */
    int exit_grace_ms;          /* programs: time to exit after stdin closes at the end */
    int64_t startup_ms;         /* long-running programs: the start-up allowance (see
                                 * "Start-up" above; default PLAYER_DEFAULT_STARTUP_MS);
                                 * 0: none, the start-up runs on the first turn's clock
                                 * (a server's match, whose clock already runs) */
    const json_t *time_control; /* programs: shown in `start` (borrowed, copied); NULL: none */
    const json_t *extra_fields; /* programs: an object whose fields are added to every message
                                 * (borrowed, copied): a checker's unknown fields; NULL: none */
    /* programs, optional: what the program wrote on stderr after the last
     * call that returned its stderr (after game_over, as it exits), handed
     * over by player_destroy on the destroying thread; NULL: dropped */
    void (*stderr_at_exit)(const char *text, size_t len, uint64_t total, void *user);
    void *stderr_at_exit_user;
    bool transcript;            /* programs: keep the lines of the game (player_transcript) */
    size_t transcript_max;      /* ... at most this many bytes of them (0: PLAYER_TRANSCRIPT_MAX;
                                   each line counts PLAYER_TRANSCRIPT_LINE_COST more) */
} player_config;

void player_config_default(player_config *c);

typedef struct player player;

/* Make a player for game g from a spec (see above). No process is started
 * yet. Returns NULL with a reason in err: unknown bot or bad option
 * (bot_create's message), empty or unresolvable command (sandbox_cmd_parse),
 * a game without a wire codec (programs), out of memory. */
player *player_create(const char *spec, const eng_game *g, const player_config *cfg, char *err,
                      size_t errcap);

/* End the player: a program gets EOF on stdin, exit_grace_ms to leave, and
 * is then killed with everything it started; its directory is removed.
 * NULL is ignored. */
void player_destroy(player *p);

player_kind player_get_kind(const player *p);
const char *player_spec(const player *p);

/* A new game from position st (normally the initial state, possibly at a
 * chance node) in seat `seat`; match names the game to a program (NULL:
 * none; at most 32 characters of A-Z a-z 0-9 _ - are kept). A long-running
 * program is started now if it is not running, gets `start` and its
 * start-up allowance (above: this call then takes up to cfg.startup_ms). Returns 0, or ENG_EINVAL (seat
 * out of range, st of another game's size) / ENG_ENOMEM. A program that
 * cannot start is not an error here: its first turn reports it. */
int player_new_game(player *p, const void *st, int seat, const char *match);

/* A game already under way: moves[0..n) were applied from `initial` (the
 * position player_new_game would have been given), chance outcomes
 * included. The player catches up without being asked anything or told
 * each past turn: a bot starts afresh; a long-running program gets one
 * `start` with the whole history and the state now (started if it is not
 * running). For a server resuming a match after a restart, or a checker
 * starting a program mid-game. Returns 0, or ENG_EINVAL (seat out of
 * range, a move not legal where it stands) / ENG_ENOMEM. */
int player_resume(player *p, const void *initial, const eng_move *moves, int n, int seat,
                  const char *match);

/* Move m is about to be applied to st (a chance outcome or anybody's
 * decision, this player's own included), in the order of the game. reason
 * is NULL for a seat's own choice, or why the runner chose the move for
 * the seat ("timeout", "illegal", ...): a program's `update` then says
 * "by":"server" with that reason. */
void player_observe(player *p, const void *st, eng_move m, const char *reason);

/* Play the seat's turn from st (this seat to move, not chance; every move
 * before it observed), deciding by deadline_ms (bot_now_ms() clock). stop
 * may be NULL; raised, the turn ends at once (bots return their best so
 * far; a program's turn ends as a time_limit with detail "stopped").
 * Fills *out (cleared first) and returns its verdict. The moves are not
 * applied: the caller applies them (and reports them with player_observe). */
player_verdict player_turn(player *p, const void *st, double deadline_ms, const atomic_bool *stop,
                           player_result *out);

/* The game has ended in st: reason "normal" (the rules ended it) or the
 * fault that ended it ("timeout", "illegal", "crashed", ...) with the
 * faulty seat (-1: none) and a detail (may be NULL). A program gets
 * `game_over` (and, long-running, stays for the next game). out (may be
 * NULL) receives the stderr written since the last turn; its verdict is
 * PLAYER_OK. */
void player_game_over(player *p, const void *st, const char *reason, int faulty, const char *detail,
                      player_result *out);

/* Thinking lines (protocol/info.h, docs/stdio.md "Thinking lines"): while
 * player_turn runs, fn(user, seat, info) is called on its thread with every
 * info the player gives about this turn — a program's `info` lines, our
 * bots' search (the MCTS family, every INFO_MIN_INTERVAL_MS and with the
 * final choice) — checked against the position, in canonical form
 * (borrowed for the call), paced by info_pace (the latest held back is
 * passed just before player_turn returns with a move). A bad one is
 * dropped and counted in the result (info_dropped, the reason in note),
 * never a fault. fn NULL (the default): infos are not read at all, and
 * bots do not build them. */
typedef void (*player_thinking_fn)(void *user, int seat, const json_t *info);
void player_set_thinking(player *p, player_thinking_fn fn, void *user);
/* on: the turn's last line — the one held back by the pace, or the one a
 * program's move line carries — is not passed to the sink but left in the
 * result (player_result.line) for the caller to send inside the move
 * (tessera bridge, docs/protocol.md "A move that carries its line"). Off
 * (the default): passed to the sink just before player_turn returns. */
void player_set_line_with_move(player *p, bool on);

/* An in-process bot's search (bots/bot.h's bot_think, told through
 * bot_set_think) as an info body of game g (new reference; NULL: out of
 * memory): values as score or winprob by the bot's reward, moves in the
 * codec's form, the line grouped into turns. Not checked: info_read() it
 * against th->st, as players/ and the server do. */
struct bot_think;
json_t *player_think_json(const eng_game *g, const struct bot_think *th);

/* About a program's sandbox (zeros for a bot). */
typedef struct player_info {
    unsigned protections; /* sandbox_protections() of the last process started */
    int starts;           /* processes started so far */
    int failures;         /* faults that ended a process in this game */
    pid_t pid;            /* the running process, 0 if none */
    double startup_ms;     /* the start-up of the latest process started (long-running, with an
                              allowance): wall ms from its start until it waited for input; -1
                              none measured */
    double startup_cpu_ms; /* its CPU time in that span */
    bool startup_over;     /* it was still busy when the allowance ended (startup_ms is then
                              the allowance) */
} player_info;

void player_get_info(const player *p, player_info *out);

/* A program made with cfg.transcript: the lines its process exchanged in
 * this game, in order, since the game began or the process was started
 * (whichever came last: what the process now running, or the one that has
 * just ended, has seen) — [{"in": LINE}, {"out": LINE}, ...], "in" what it
 * was sent on stdin, "out" what it printed on stdout, each without its
 * newline; *truncated (may be NULL) says whether lines past
 * PLAYER_TRANSCRIPT_MAX bytes were dropped. A new reference; NULL for a
 * bot, without cfg.transcript, or out of memory. What a fault bundle
 * keeps (players/bundle.h). */
json_t *player_transcript(const player *p, bool *truncated);

/* Classify how a program ended (an exit, a signal, a kill) into a verdict
 * and a detail naming the cause and the last lines of stderr. For callers
 * that run programs themselves (the bridge): `answered` says whether it
 * had answered the turn (then a clean exit is no fault: PLAYER_OK); tail
 * is the stderr tail (may be empty). */
player_verdict player_classify_exit(const sandbox_status *st, const sandbox_limits *lim,
                                    const char *tail, bool answered, char *detail, size_t cap);

#endif
