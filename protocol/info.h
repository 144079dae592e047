/*
 * info.h — a player's thinking lines: the `info` message (docs/stdio.md,
 * docs/protocol.md, "Thinking lines"), one shape for a program on stdio, a
 * client on the WebSocket protocol and our in-process bots.
 *
 *   {"type":"info","turn":12,"score":3.5,"winprob":0.62,
 *    "candidates":[{"move":{...},"visits":812,"score":3.5,"winprob":0.62}, ...],
 *    "pv":[{...},{...}],"iterations":4000,"nodes":9120,"depth":7,
 *    "elapsed_ms":230,"text":"..."}
 *
 * Every field but "type" is optional. Values are the mover's: `score` the
 * expected final score difference (own minus the best other's), `winprob`
 * the probability of winning (a tie counting half), from 0 to 1. A
 * candidate has a move of `legal`'s form and a `visits` count or a
 * `weight` (any non-negative number: a probability, a rating), or both.
 *
 * An info message comes from a player and is untrusted; it is advice for
 * people watching and never part of the game: a bad one is dropped (and
 * counted) by its caller, never an error that costs a seat anything.
 * info_read() checks one against the position it is about and returns its
 * canonical form — the known fields only, every move rewritten by the
 * game's codec (so that what is relayed and recorded is legal and in one
 * form), the principal variation cut where the game meets chance — or an
 * error with a reason. The canonical form is the body alone, without
 * "type": what the server relays to spectators (inside its `thinking`
 * message) and keeps with the move in the record. info_pace() is the rate
 * rule every relay uses.
 */
#ifndef TESSERA_PROTOCOL_INFO_H
#define TESSERA_PROTOCOL_INFO_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/eng.h"
#include "protocol/codec.h"

#define INFO_MAX_BYTES                                                                             \
    8192 /* bytes of one info message: 8 Carcassonne candidates and a                          \
          * 16-move line take under 2 KB; more is a bot printing its tree */
#define INFO_MAX_CANDIDATES 8 /* the top moves a board can show without hiding itself */
#define INFO_MAX_PV         16 /* moves of a principal variation kept */
#define INFO_TEXT_MAX       256 /* bytes of `text` kept (cut, control characters as '?') */
#define INFO_MAX_SCORE      1e6 /* |score| accepted: far past any game's points */
#define INFO_MIN_INTERVAL_MS                                                                       \
    100 /* an info is passed on at most every 100 ms of a turn: what a                         \
         * viewer can follow; the latest one held back goes with the move */
#define INFO_MAX_PER_TURN                                                                          \
    64 /* infos passed on in one turn, the one with the move included:                         \
        * 6 s of thinking at the interval; past it only the last one goes */

/* Check an info message (borrowed, a JSON object with "type":"info") from
 * the seat to move in st (not chance, not over), which was `bytes` long as
 * it came (0: measure its compact text). Returns 0 and *out, a new reference to the
 * canonical message, or a negative code with a reason in err (printable
 * ASCII, at most a short quote of the message) and *out NULL:
 *   ENG_ETOO_LARGE    over INFO_MAX_BYTES;
 *   ENG_EBAD_MESSAGE  a field of the wrong type or out of range (a number
 *                     that is not finite, winprob outside [0,1], more than
 *                     INFO_MAX_CANDIDATES candidates, a candidate without
 *                     a move, ...);
 *   ENG_EBAD_MOVE / ENG_EILLEGAL_MOVE  a candidate's move or a move of the
 *                     pv that cannot be read or is not legal where it
 *                     stands (the codec's reason);
 *   ENG_ENOMEM.
 * "type", unknown fields, and "match", "id", "seat", are left out of *out. A pv
 * longer than INFO_MAX_PV, or that goes past a chance event (Carcassonne's
 * next draw) or the end of the game, is cut there. "turn", when given, is
 * kept: the caller compares it with the turn it is at. */
int info_read(const eng_game *g, const game_codec *c, const void *st, const json_t *msg,
              size_t bytes, json_t **out, char *err, size_t errcap);

/* The body a move carries in "info" (docs/protocol.md, "A move that
 * carries its line"), before info_read() reads it: an object whose fields
 * are the info message's but its envelope — "type", "id", "match" and
 * "seat" are the move's, and a body naming them is refused, as is any
 * field the info message does not have (the info message refuses them
 * too). 0, or ENG_EBAD_MESSAGE with a reason in err. */
int info_body_check(const json_t *body, char *err, size_t errcap);

/* The rate rule of a turn. Zero it when the turn starts. */
typedef struct info_pace {
    double last_ms;    /* when the last one was passed on (bot_now_ms clock) */
    int passed;        /* passed on in this turn */
    int held;          /* 1 when a later one waits for the move (the caller keeps it) */
} info_pace;

/* May an info read at now_ms be passed on at once? true: do it (counted);
 * false: keep it as the latest held back (it replaces the one held before)
 * and pass it on with the move (info_pace_final). */
bool info_pace_now(info_pace *p, double now_ms);
/* The move is played: may the held one be passed on? (true counts it) */
bool info_pace_final(info_pace *p);

#endif
