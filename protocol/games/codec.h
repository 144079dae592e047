/*
 * codec.h — private to protocol/: the per-game half of game records.
 *
 * record.c knows the envelope of a record (format, version, game, rules,
 * turns, result) but not what one turn is: for Carcassonne a turn is a draw,
 * a placement and a meeple (or a discard), for Reversi a single move. Each
 * game that can be recorded provides a rec_codec that turns the engine moves
 * of one turn into one JSON turn object, and applies one JSON turn to a
 * state with full checking. Codecs are found by the game's registry name;
 * a registered game without a codec cannot be recorded (unknown_game).
 *
 * Error convention (docs/records.md): a turn whose JSON shape is wrong
 * (unknown key, wrong type, missing key) is ENG_EBAD_RECORD; a value of the
 * right type that names nothing (tile "Z", port "Q", rot 7, square "z9") is
 * ENG_EBAD_MOVE; a well-formed turn that breaks the rules is
 * ENG_EILLEGAL_MOVE. The reason is written to err without the "turn N: "
 * prefix, which record.c adds.
 */
#ifndef TESSERA_PROTOCOL_GAMES_CODEC_H
#define TESSERA_PROTOCOL_GAMES_CODEC_H

#include <jansson.h>
#include <stddef.h>

#include "engine/eng.h"
#include "protocol/record.h"

typedef struct rec_codec {
    const char *game; /* eng_game name this codec handles */

    /* Encode the turn that starts at moves[*pos] in state st (the game is
     * not over). Applies the turn's moves to st, advances *pos past them
     * and returns a new reference to the turn object. The moves come from
     * the caller's game and are checked for legality all the same: on an
     * illegal move or a turn cut short by the end of moves[0..n), returns
     * NULL with a reason in err (st is then unspecified). A turn cut short
     * also sets *cut to true (it is left alone otherwise), so that a caller
     * can tell a match that stopped inside a turn (a resignation while a
     * seat held its drawn tile) from moves that are wrong. */
    json_t *(*encode_turn)(void *st, const eng_move *moves, int n, int *pos, bool *cut, char *err,
                           size_t errcap);

    /* Check one turn object (borrowed) against the rules in state st, which
     * is not over, and apply it. Returns 0, or ENG_EBAD_RECORD /
     * ENG_EBAD_MOVE / ENG_EILLEGAL_MOVE with a reason in err (st is then
     * unspecified). Never trusts anything in the turn. When `moves` is not
     * NULL, the engine moves the turn applied (chance outcomes included) are
     * written to moves[0..*nmoves), at most ENG_MAX_TURN_MOVES (record.h);
     * the network bot client reports them to its bot (bot_observe). */
    int (*apply_turn)(void *st, const json_t *turn, eng_move *moves, int *nmoves, char *err,
                      size_t errcap);
} rec_codec;

/* Shared by the codecs: append m to the optional out-array of apply_turn. */
static inline void rec__applied(eng_move *moves, int *nmoves, eng_move m)
{
    if (moves && nmoves && *nmoves < ENG_MAX_TURN_MOVES)
        moves[(*nmoves)++] = m;
}

extern const rec_codec rec_codec_carcassonne;
extern const rec_codec rec_codec_reversi;
extern const rec_codec rec_codec_dodgem;
extern const rec_codec rec_codec_pentago;

/* Read and check one Dodgem / Pentago-Twist move object against state st
 * (the game is not over): a record turn with "player" (with_player), or a
 * protocol move without it. Sets *m, or returns ENG_EBAD_RECORD (shape) /
 * ENG_EBAD_MOVE / ENG_EILLEGAL_MOVE with a reason. Shared by each game's
 * record and wire codecs (games/dodgem.c, games/pentago.c). */
int dodgem__read_move(const void *st, const json_t *obj, bool with_player, eng_move *m, char *err,
                      size_t errcap);
int pt__read_move(const void *st, const json_t *obj, bool with_player, eng_move *m, char *err,
                  size_t errcap);

/* The codec of the game registered as `name`, or NULL. */
const rec_codec *rec_codec_find(const char *name);

/* Shared by the codecs: the JSON type name of v ("string", "integer", ...)
 * for messages such as "x must be an integer, not a string". */
const char *rec__type_name(const json_t *v);

/* Shared by the codecs: a short, printable excerpt of a JSON string for a
 * message, in double quotes: at most 16 characters, anything outside
 * printable ASCII shown as '?', "..." when cut. Untrusted text never
 * reaches a terminal or a log unfiltered. Writes to buf, returns buf. */
#define REC_QUOTE_MAX 24
const char *rec__quote(const json_t *str, char buf[REC_QUOTE_MAX]);
/* Rules as JSON ({"players":2,"tiny_city":4,"farms":true}: every option
 * in the game's order, booleans as true/false). New reference or NULL. */
json_t *rec__rules_json(const eng_game *g, const eng_rules *r);

/* Read a rules object (borrowed; defaults first) into *r, checking names,
 * types and ranges. As a record holds it (in_record): players required,
 * reasons start with "rules: ", a non-object is ENG_EBAD_RECORD. Else (a
 * create_match or a server message): players optional, the object may be
 * NULL, and nseats > 0 fixes the number of players. */
int rec__rules_parse(const eng_game *g, const json_t *jr, bool in_record, int nseats, eng_rules *r,
                     char *err, size_t errcap);

/* The same for untrusted bytes (an object key, say). */
const char *rec__quote_bytes(const char *s, size_t len, char buf[REC_QUOTE_MAX]);

/* Shared by the codecs: jansson's strict-unpack message in our words
 * ("unknown key(s): meeple2", "missing key: tile"). Writes to buf, returns
 * buf. */
#define REC_SHAPE_MAX 200
const char *rec__shape_error(const json_error_t *e, char buf[REC_SHAPE_MAX]);

#endif
