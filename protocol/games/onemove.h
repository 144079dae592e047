/*
 * onemove.h — private to protocol/games/: the parts of a codec that are the
 * same for every game whose turn is one move (Reversi, Dodgem,
 * Pentago-Twist). Such a game describes a move by two functions, one that
 * writes a wire move ({"x":..,"y":..} without "player") and one that reads a
 * wire move or a record turn (the same object with "player" first), and
 * takes the record turn, the legal list, the wire move reader and the move
 * formatter from here, so the wire and the records of every such game are
 * built and checked the same way.
 */
#ifndef TESSERA_PROTOCOL_GAMES_ONEMOVE_H
#define TESSERA_PROTOCOL_GAMES_ONEMOVE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/eng.h"

/* A wire move of m in st: a new object, NULL when out of memory. */
typedef json_t *(*onemove_json_fn)(const void *st, eng_move m);

/* Read a wire move (with_player false) or a record turn (true) in st into
 * *m: 0, or ENG_EBAD_RECORD (shape or types), ENG_EBAD_MOVE (values) or
 * ENG_EILLEGAL_MOVE (rules) with the reason in err. */
typedef int (*onemove_read_fn)(const void *st, const json_t *turn, bool with_player, eng_move *m,
                               char *err, size_t errcap);

/* encode_turn (codec.h) for game g: the move moves[*pos], checked legal in
 * st, as {"player":P, ...the wire move's keys}; applies it to st and
 * advances *pos. NULL with err when the move is illegal or memory fails. */
json_t *onemove_encode_turn(const eng_game *g, onemove_json_fn wire_move, void *st,
                            const eng_move *moves, int *pos, char *err, size_t errcap);

/* apply_turn (codec.h) for game g: read the record turn, append the move to
 * moves/nmoves (both optional) and apply it. 0 or the reader's error. */
int onemove_apply_turn(const eng_game *g, onemove_read_fn read, void *st, const json_t *turn,
                       eng_move *moves, int *nmoves, char *err, size_t errcap);

/* legal (codec.h): the wire moves of every legal move in st, in the
 * engine's order. A new array, NULL when out of memory. */
json_t *onemove_legal(const eng_game *g, onemove_json_fn wire_move, const void *st);

/* parse_move (codec.h): a wire move read and checked. 1 with *out, or
 * ENG_EBAD_MOVE (not an object: `example` shows the shape; a wrong shape is
 * reported as a move not understood) or ENG_EILLEGAL_MOVE. */
int onemove_parse_move(const eng_game *g, onemove_read_fn read, const char *example,
                       const void *st, const json_t *move, eng_move *out, char *err,
                       size_t errcap);

/* format_move (codec.h): the turn's one move as a wire move, or null. */
json_t *onemove_format_move(onemove_json_fn wire_move, const void *st, const eng_move *moves,
                            int n);

/* A square board of two players' bitboards (bit y*n+x, n <= 8) as n strings,
 * the top row (y = 0) first: c0 where bits0 is set, c1 where bits1 is, '.'
 * elsewhere. A new array, NULL when out of memory. */
json_t *onemove_board_rows(int n, uint64_t bits0, uint64_t bits1, char c0, char c1);

#endif
