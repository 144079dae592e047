/*
 * record.h — game records: the JSON form of a whole game (docs/records.md).
 *
 *   {"format":"tessera-record","version":1,"game":"carcassonne",
 *    "rules":{"players":2,"tiny_city":4,"farms":true},
 *    "turns":[{"player":0,"tile":"V","x":1,"y":0,"rot":1,"meeple":"S"},
 *             {"player":1,"tile":"H","discarded":true}, ...],
 *    "result":{"scores":[...]}}
 *
 * A record is built from the exact sequence of engine moves a game applied
 * (chance outcomes included), and replayed by checking every turn against
 * the rules. What a "turn" is, and its JSON form, is game-specific and lives
 * in the game's codec (protocol/codec.h); this file is game-agnostic.
 *
 * Untrusted input: records come from files and the network. Reading never
 * trusts sizes, types or values; every failure is a negative code from
 * engine/errors.h with the 1-based turn number (0 = not inside a turn) and a
 * reason, never a crash and never a silently wrong score.
 */
#ifndef TESSERA_PROTOCOL_RECORD_H
#define TESSERA_PROTOCOL_RECORD_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/eng.h"

#define REC_FORMAT "tessera-record"
#define REC_VERSION 1

/* Largest raw record rec_replay_buffer() accepts. A finished Carcassonne
 * game is about 4 KB of compact JSON and a Reversi game about 2 KB; the
 * limit leaves room for pretty-printed records while bounding what hostile
 * input can make the JSON parser allocate. */
#define REC_MAX_BYTES (1024 * 1024)

/* Build the record of a game: `moves[0..n)` are the moves and chance
 * outcomes applied, in order, from g->init(rules). The result object holds
 * the scores of the final state (and is omitted if the game is unfinished).
 * Returns a new reference (the caller json_decref()s it), or NULL with a
 * reason in err (err may be NULL): rules that fail eng_rules_check(), a
 * game without a record codec, a move that is not legal where it stands,
 * moves after the end of the game, or moves that stop inside a turn (a
 * Carcassonne draw without its placement and meeple step). */
json_t *rec_build(const eng_game *g, const eng_rules *rules, const eng_move *moves, int n,
                  char *err, size_t errcap);

/* The record of the complete turns among moves[0..n): as rec_build(), but
 * when the moves stop inside a turn — a match that ended by resignation,
 * timeout or disconnection while a seat held its drawn tile, or a live match
 * between a draw and its placement — that last turn is left out instead of
 * refused (the record then has no result: its turns do not finish the game).
 * *used (may be NULL) receives how many of the moves the record covers, n
 * unless a turn was cut short. Moves that are not legal are refused all the
 * same (NULL, reason in err). */
json_t *rec_build_complete(const eng_game *g, const eng_rules *rules, const eng_move *moves, int n,
                           int *used, char *err, size_t errcap);

/* Time figures of a seat's turn (docs/records.md, "Time"): think_ms is the
 * player's own measure of its thinking (an external program's CPU time, an
 * in-process bot's wall time), wait_ms what the runner or server measured
 * from sending the request to receiving the move. -1: not known. */
typedef struct rec_time {
    int64_t think_ms, wait_ms;
} rec_time;

/* Largest think_ms / wait_ms a record may carry: a day, as on the wire. */
#define REC_TIME_MAX_MS 86400000LL

/* rec_build_complete() with the extras a runner knows: times[i] (NULL: no
 * times) belongs to the turn that applies moves[i], and a turn gets the sum
 * of its moves' figures that are >= 0 (a turn with none gets no key);
 * chance (NULL: none) is the record's "chance" block (protocol/chance.h;
 * borrowed, copied). */
json_t *rec_build_full(const eng_game *g, const eng_rules *rules, const eng_move *moves, int n,
                       const rec_time *times, const json_t *chance, int *used, char *err,
                       size_t errcap);

/* What a replay reports. */
typedef struct rec_replay {
    const eng_game *game;                 /* the record's game */
    eng_rules rules;                      /* its rules */
    int turns;                            /* turns checked */
    bool finished;                        /* the record reaches the end of the game */
    double scores[ENG_MAX_PLAYERS];       /* scores after the last turn */
    int bad_turn;                         /* on failure: 1-based turn, 0 = outside the turns */
    char reason[256];                     /* on failure: why */
} rec_replay;

/* Called after each turn with the state reached (g->state_size bytes).
 * `turn` counts from 1; turn_json and state are borrowed and valid only
 * during the call. */
typedef void (*rec_turn_fn)(void *ud, int turn, const json_t *turn_json, const void *state);

/* Check a record against the rules, turn by turn. Returns 0, or a negative
 * code (ENG_EBAD_RECORD, ENG_EILLEGAL_MOVE, ENG_EUNKNOWN_GAME, ENG_EBAD_RULE,
 * ...) with out->bad_turn and out->reason filled in. A record of an
 * unfinished game is valid; if it has a result, the result must match, and
 * a result on a record whose turns do not finish the game is refused.
 * `rec` is borrowed and not modified; fn may be NULL; out may be NULL when
 * only the code matters. On failure out->turns and out->scores describe the
 * last turn that passed. Allocates one game state and frees it. */
int rec_replay_json(const json_t *rec, rec_turn_fn fn, void *ud, rec_replay *out);

/* The same from raw bytes (rejects invalid JSON, duplicate keys and
 * oversized input with ENG_EBAD_JSON / ENG_ETOO_LARGE). buf need not be
 * NUL-terminated; len > REC_MAX_BYTES is refused before parsing. */
int rec_replay_buffer(const char *buf, size_t len, rec_turn_fn fn, void *ud, rec_replay *out);

/* Check one turn in record form (borrowed) against the rules in st (a state
 * of g that is not over) and apply it, as a replay does. When `moves` is not
 * NULL (it then holds ENG_MAX_TURN_MOVES), the engine moves the turn applied
 * are written to moves[0..*nmoves) — for callers that must report them, e.g.
 * to bot_observe. Returns 0, or ENG_EUNKNOWN_GAME (no record codec),
 * ENG_EBAD_RECORD / ENG_EBAD_MOVE / ENG_EILLEGAL_MOVE with a reason in err;
 * on failure st is unspecified (apply to a copy when that matters). */
int rec_apply_turn(const eng_game *g, void *st, const json_t *turn, eng_move *moves, int *nmoves,
                   char *err, size_t errcap);

/* Verify a record (borrowed): it must replay (rec_replay_json, whose
 * failures are reported as they are), carry a "chance" block with the seed
 * and nonce revealed, the commitment must be the SHA-256 of them, and every
 * chance outcome of its turns must be what eng_chance_draw() gives for that
 * seed. Returns 0 with out filled as rec_replay_json fills it; or a negative
 * code with out->bad_turn (1-based, 0 outside the turns) and out->reason:
 * ENG_EBAD_RECORD (no chance block, no reveal), ENG_EBAD_CHANCE (the
 * commitment does not match, or the turn whose chance outcome differs from
 * the seed's, naming both), or rec_replay_json's codes. */
int rec_verify_chance(const json_t *rec, rec_replay *out);

#endif
