/*
 * common.h — private to protocol/: helpers the per-game codecs
 * (protocol/games/<game>.c, the contract in protocol/codec.h) share with
 * record.c and wire.c: JSON type names and quoted excerpts for messages,
 * rules to and from JSON, and jansson's shape errors in our words.
 */
#ifndef TESSERA_PROTOCOL_GAMES_COMMON_H
#define TESSERA_PROTOCOL_GAMES_COMMON_H

#include <jansson.h>
#include <stddef.h>

#include "engine/eng.h"
#include "protocol/codec.h"
#include "protocol/record.h"

/* Shared by the codecs: append m to the optional out-array of apply_turn. */
static inline void rec__applied(eng_move *moves, int *nmoves, eng_move m)
{
    if (moves && nmoves && *nmoves < ENG_MAX_TURN_MOVES)
        moves[(*nmoves)++] = m;
}

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
 * ("unknown key(s): meeple2", "missing key: tile"), printable ASCII (a key
 * sent with other bytes shows them as '?'). Writes to buf, returns buf. */
#define REC_SHAPE_MAX 200
const char *rec__shape_error(const json_error_t *e, char buf[REC_SHAPE_MAX]);

#endif
