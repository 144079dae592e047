/*
 * wire.h — the game-agnostic helpers of the wire protocol's game JSON
 * (docs/protocol.md). Each game's own JSON (what it looks like to clients,
 * the public state, the legal moves of the seat to move, a seat's move read
 * back into engine moves, its record turns) is its codec: protocol/codec.h,
 * found with codec_find(). Game records (record.h) supply the turn form
 * used in `history` and `update.record`.
 *
 * A protocol move is a whole turn of one seat: every consecutive decision of
 * that seat (Carcassonne: placement then meeple) in one JSON object. The
 * public state never contains hidden information: Carcassonne's bag is sent
 * as counts per tile type (public), never in order.
 */
#ifndef TESSERA_PROTOCOL_WIRE_H
#define TESSERA_PROTOCOL_WIRE_H

#include <jansson.h>
#include <stddef.h>

#include "engine/eng.h"
#include "protocol/codec.h"
#include "protocol/record.h"

/* Generic helpers every codec shares. */
/* The game entry of `games`: name, title, players, rules, and info(). */
json_t *wire_game_entry(const eng_game *g);
/* The `games` list of list_games (and `tessera games --json`): the entry of
 * every registered game that has a codec, in registry order (new reference). */
json_t *wire_games_json(void);
/* Rules as a JSON object with the game's option names (booleans as true/false). */
json_t *wire_rules_json(const eng_game *g, const eng_rules *r);
/* Parse a rules object: players (must equal nseats when nseats > 0) and the
 * game's options; unknown names, wrong types and out-of-range values are
 * errors (ENG_EBAD_RULE / ENG_EBAD_PLAYERS) with a reason in err. */
int wire_rules_parse(const eng_game *g, const json_t *obj, int nseats, eng_rules *out, char *err,
                     size_t errcap);
/* One turn in record form (records.md): the engine moves moves[0..n) played
 * from turn_start (which is not changed) make exactly one turn. New
 * reference, or NULL with a reason in err. */
json_t *wire_record_turn(const eng_game *g, const void *turn_start, const eng_move *moves, int n,
                         char *err, size_t errcap);

/* The `next` of an update and of the stdio protocol's messages, for st (a
 * state after a turn, and after the draw that starts the next one):
 * {"seat": the seat whose turn it is (eng_turn_seat), and the public chance
 * outcome it faces (the codec's next_chance, e.g. "tile")}, or JSON null at
 * the end. A new reference. */
json_t *wire_next(const eng_game *g, const void *st);

/* A game record (borrowed; docs/records.md) replayed for a client that knows
 * no rules — the body of the `replayed` message: {"game", "rules",
 * "initial": the public state before turn 1, "turns": [{"record", "state",
 * "scores"}, ...] with the public state and scores after each turn,
 * "finished"}. The record is checked as rec_replay_json() checks it, shape
 * first: a record that is not one (no or a wrong `format`, `{}`) is
 * bad_record whatever its `game` says. Returns a new reference, or NULL
 * with *code set (ENG_EBAD_RECORD, ENG_EUNKNOWN_GAME, ENG_EILLEGAL_MOVE,
 * ...) and a message in msg ("turn N: reason" for a problem inside a turn).
 * out (may be NULL) receives the replay's summary. */
json_t *wire_replay(const json_t *rec, rec_replay *out, int *code, char *msg, size_t msgcap);

#endif
