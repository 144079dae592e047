/*
 * stdio.h — the stdio bot protocol (docs/stdio.md): what tessera writes to a
 * bot program's stdin and reads from its stdout, one JSON object per line.
 *
 * The messages have the shapes of the WebSocket protocol's (docs/protocol.md)
 * so that one bot loop serves both: `start` (like `joined`: game, rules,
 * seat, history, state), `your_turn`, `update`, `game_over` and `error`
 * towards the bot; `move` (and `resign`) back. The game's own JSON — state,
 * legal moves, a move, a turn in record form — is produced and read by the
 * per-game wire codec (wire.h) and record codec (record.h); this file only
 * builds and reads the envelopes, so there is one codec per game.
 *
 * Two kinds of helpers: builders from JSON parts (for callers that already
 * hold the server's JSON, e.g. the bridge) and builders from an engine
 * state (for callers that run the game themselves, e.g. players/). Every
 * builder returns a new reference, or NULL when jansson runs out of memory.
 *
 * The reply decoder follows the rule for untrusted input: a length cap,
 * parse (duplicate keys, invalid UTF-8 and NUL refused), check the shape,
 * and only then the game's rules (by the caller, with the codec). Unknown
 * top-level fields in a reply are tolerated and listed, so that bots written
 * for the WebSocket protocol (`match`, `id`) or adding their own
 * bookkeeping are not refused; a wrong type of a known field is an error.
 */
#ifndef TESSERA_PROTOCOL_STDIO_H
#define TESSERA_PROTOCOL_STDIO_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/errors.h"
#include "engine/eng.h"
#include "protocol/wire.h"

#define STDIO_PROTOCOL 1 /* version sent in `start` and stateless `your_turn` */
#define STDIO_MAX_LINE                                                                             \
    65536 /* bytes of one line from a bot: a move is well under 1 KB;                              \
           * the WebSocket protocol's message limit, for one rule */
#define STDIO_DEBUG_MAX                                                                            \
    4096                      /* bytes of a reply's `debug` kept: enough for a line of             \
                               * search statistics per move, small enough to keep with             \
                               * every move of a game */
#define STDIO_IGNORED_MAX 128 /* bytes of the list of ignored field names kept */

/* What a bot is told about the game it plays (start, stateless your_turn). */
typedef struct stdio_game {
    const char *match;          /* game or match id shown to the bot; NULL: none */
    const char *game;           /* registry name ("carcassonne") */
    const json_t *rules;        /* rules object (wire_rules_json), borrowed */
    int seat;                   /* the bot's seat, 0-based */
    const json_t *time_control; /* optional ({"move_ms":...}), borrowed; NULL: left out */
    const json_t *limits;       /* optional: the sandbox's limits, borrowed; NULL: left out */
} stdio_game;

/* ---- runner -> bot: builders from JSON parts (borrowed arguments) ---------- */

/* {"type":"start","protocol":1,"game","rules","seat","match"?,"history",
 *  "state","time_control"?,"limits"?}: a new game (or the game so far, for a
 * program started again mid-game). history: record turns so far (array). */
json_t *stdio_start(const stdio_game *gm, const json_t *history, const json_t *state);

/* {"type":"your_turn","match"?,"seat","turn","state","legal","time_left_ms",
 * "deadline"}. When `stateless` is true the message stands alone: it adds
 * "protocol", "game", "rules" and "history" (which must then be given). */
json_t *stdio_your_turn(const stdio_game *gm, int turn, const json_t *state, const json_t *legal,
                        int64_t time_left_ms, int64_t deadline_epoch_ms, bool stateless,
                        const json_t *history);

/* {"type":"update","match"?,"turn","record","by","reason"?,"scores","next",
 * "state"}. by is "player" or "server"; reason may be NULL; next may be NULL
 * (written as null: the game is over). */
json_t *stdio_update(const char *match, int turn, const json_t *record, const char *by,
                     const char *reason, const json_t *scores, const json_t *next,
                     const json_t *state);

/* {"type":"game_over","match"?,"scores","ranking","result"}: scores and
 * ranking are taken from result (stdio_result's form). */
json_t *stdio_game_over(const char *match, const json_t *result);

/* {"type":"error","code","message"}: code is a wire code of engine/errors.h
 * (bad_json, bad_message, unknown_type, bad_move, illegal_move, ...). */
json_t *stdio_error(int code, const char *message);

/* ---- runner -> bot: the game's parts from an engine state --------------------- */

/* Scores per seat, rounded to integers (as the server sends them). */
json_t *stdio_scores(const eng_game *g, const void *st);

/* The result of a finished (or ended) game, as the server records it:
 * {"reason","winners","ranking","scores","seat"?,"detail"?}. reason is
 * "normal", "timeout", "illegal", ...; faulty >= 0 names the seat that lost
 * by it (ranked last, never a winner); detail may be NULL. */
json_t *stdio_result(const eng_game *g, const void *st, const char *reason, int faulty,
                     const char *detail);

/* ---- writing ------------------------------------------------------------------- */

/* The message as one line: compact JSON (newlines inside strings escaped)
 * and '\n'. A new buffer the caller frees, or NULL; *len excludes the NUL. */
char *stdio_line(const json_t *msg, size_t *len);

/* ---- bot -> runner: the reply decoder ------------------------------------------- */

typedef enum stdio_reply_type {
    STDIO_MOVE,   /* {"type":"move","move":{...}} */
    STDIO_RESIGN, /* {"type":"resign"} */
    STDIO_INFO,   /* {"type":"info",...}: thinking lines, before the move (protocol/info.h) */
} stdio_reply_type;

/* A decoded reply. Owns its parsed JSON; `move` borrows from it until
 * stdio_reply_free(). */
typedef struct stdio_reply {
    stdio_reply_type type;
    json_t *root;                    /* owned */
    const json_t *move;              /* MOVE: the game's move object (borrowed) */
    const json_t *info;              /* MOVE: its thinking line, "info" (borrowed, any JSON
                                      * value: info_body_check, then info_read); NULL: none */
    size_t len;                      /* the line's length (INFO: info_read's `bytes`) */
    bool has_turn;                   /* "turn" given */
    int64_t turn;                    /* the turn the bot answers (checked by the caller) */
    char debug[STDIO_DEBUG_MAX + 1]; /* "debug": a string as is (control characters as
                                      * '?'), other JSON in compact form; "" when absent */
    bool debug_cut;                  /* debug was longer and was cut */
    int n_ignored;                   /* unknown top-level fields ignored */
    char ignored[STDIO_IGNORED_MAX]; /* their names, comma-separated (cut, printable) */
} stdio_reply;

/* Decode one line from a bot (without its '\n'; a trailing '\r' is
 * ignored). Returns 0 and fills *r (free with stdio_reply_free), or a
 * negative code with a reason in err (printable ASCII, quoting at most a
 * short sanitised excerpt of the line) and *r zeroed:
 *   ENG_ETOO_LARGE    the line is longer than max_line bytes
 *                     (0: STDIO_MAX_LINE);
 *   ENG_EBAD_JSON     not one JSON object (also: duplicate keys, invalid
 *                     UTF-8, NUL, nesting too deep);
 *   ENG_EBAD_MESSAGE  no string "type", "move" missing or not an object,
 *                     "turn" not an integer >= 1;
 *   ENG_EUNKNOWN_TYPE "type" is not "move", "resign" or "info";
 *   ENG_ENOMEM / ENG_EINVAL (r or line NULL).
 * The move itself is the game's business: check it with the wire codec's
 * parse_move (bad_move / illegal_move). An info line is returned as it is
 * (root, len): its body is info_read()'s to check, and a bad one is
 * dropped by the caller, never a fault of the turn; so is a move's "info"
 * (the line of the turn, carried by the move: docs/stdio.md). */
int stdio_decode(const char *line, size_t len, size_t max_line, stdio_reply *r, char *err,
                 size_t errcap);
void stdio_reply_free(stdio_reply *r);

#endif
