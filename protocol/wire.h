/*
 * wire.h — the per-game JSON of the wire protocol (docs/protocol.md):
 * what a game looks like to clients (tile model), the public state, the
 * legal moves of the seat to move, and a seat's move read back into engine
 * moves. Game records (record.h) supply the turn form used in `history` and
 * `update.record`.
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
#include "protocol/jsontext.h"
#include "protocol/record.h"

#define WIRE_MAX_TURN_MOVES 8 /* engine decisions in one protocol move (Carcassonne: 2) */

typedef struct wire_game {
    const char *game; /* eng_game name */
    /* Static description of the game for `games` (e.g. the tile model);
     * new reference, NULL if nothing beyond the generic fields. */
    json_t *(*info)(void);
    /* Public state (new reference). */
    json_t *(*state)(const void *st);
    /* Legal protocol moves of the seat to move (new reference, an array). */
    json_t *(*legal)(const void *st);
    /* The same in protocol 2's compact form (docs/protocol.md), or NULL when
     * the game's `legal` is compact already (new reference, an array). */
    json_t *(*legal_compact)(const void *st);
    /* The update's `next` for the state after a turn: sets *next to a new
     * reference ({"seat", and what that seat must play, e.g. Carcassonne's
     * "tile"}, or null when the game is over) and returns that seat, or -1.
     * NULL: {"seat": the player to move} (games without chance). The server
     * used to read this back from the public state's JSON. */
    int (*next)(const void *st, json_t **next);
    /* Protocol 2's change (protocol/delta.h) from the public state of `from`
     * to that of `to`, written as text into out: exactly the text of
     * delta_diff(state(from), state(to)), computed from the engine states
     * without building either JSON state (NULL: the server diffs the JSON).
     * `to` is a later position of `from`'s game. Returns 0; 1 when it cannot
     * tell (not two positions of one game: nothing written, diff the JSON);
     * -1 when out ran out of memory. */
    int (*change)(const void *from, const void *to, jt_buf *out);
    /* Read a protocol move (borrowed) for the seat to move in st into the
     * engine moves it stands for (at most WIRE_MAX_TURN_MOVES), checking it
     * against the rules on a copy. Returns the number of moves, or
     * ENG_EBAD_MOVE (unreadable) / ENG_EILLEGAL_MOVE with a reason in err. */
    int (*parse_move)(const void *st, const json_t *move, eng_move *out, char *err, size_t errcap);
    /* The protocol move standing for engine moves[0..n) from st (new reference). */
    json_t *(*format_move)(const void *st, const eng_move *moves, int n);
} wire_game;

/* The wire codec of a game, or NULL. */
const wire_game *wire_find(const char *game);

/* Generic helpers every codec shares. */
/* The game entry of `games`: name, title, players, rules, and info(). */
json_t *wire_game_entry(const eng_game *g);
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
