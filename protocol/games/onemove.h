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
#include "engine/textbuf.h"

/* A wire move of m in st: a new object, NULL when out of memory. */
typedef json_t *(*onemove_json_fn)(const void *st, eng_move m);

/* A wire move described member by member (integers or short strings, in
 * order), so that its JSON (legal, records, format_move) and its text
 * (your_turn's legal, written without JSON: legal_text) are written from
 * one description. */
#define OM_MOVE_MEMBERS 4
typedef struct onemove_move {
    int n;
    struct {
        const char *key; /* static text */
        const char *s;   /* a string's value (static, or buf), NULL: the integer v */
        int v;
    } m[OM_MOVE_MEMBERS];
    char buf[16]; /* room for one string made for the move */
} onemove_move;
/* Fills out (out->n = 0 first) with m's members at st. */
typedef void (*onemove_move_fn)(const void *st, eng_move m, onemove_move *out);
void onemove_move_int(onemove_move *mv, const char *key, int v);
void onemove_move_str(onemove_move *mv, const char *key, const char *s);
/* The move as a JSON object (a new one, NULL when out of memory). */
json_t *onemove_move_json(onemove_move_fn describe, const void *st, eng_move m);

/* legal_text (codec.h) for game g: its legal moves written as the text of
 * onemove_legal's array, each entry's span in spans (when not NULL; cap
 * entries). The number of entries, or -1 when out ran out of memory. */
int onemove_legal_text(const eng_game *g, onemove_move_fn describe, const void *st, textbuf *out,
                       uint32_t (*spans)[2], int cap);

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

/* A game's public state (its codec's `state`) described member by member,
 * in order. The JSON state and protocol 2's change between two states are
 * both written from it (onemove_state_json, onemove_change), so the two
 * cannot disagree. A member is an integer, an integer or null, a pair of
 * integers, or a square board of two players' bitboards (bit y*n+x, n <= 8)
 * as n strings, the top row (y = 0) first: c[0] where bits[0] is set, c[1]
 * where bits[1] is, '.' elsewhere. */
enum { OM_INT, OM_INT_OR_NULL, OM_PAIR, OM_BOARD };
#define OM_MAX_MEMBERS 8 /* Dodgem's state has the most: 7 */
#define OM_MAX_BOARD 8   /* a board's side: one bit a square in a uint64_t */
typedef struct onemove_member {
    const char *key; /* static text */
    int kind;
    int v[2];         /* OM_INT: v[0]; OM_INT_OR_NULL: v[0], null when v[1]; OM_PAIR: both */
    int n;            /* OM_BOARD: its side */
    uint64_t bits[2]; /* OM_BOARD: the two players' squares */
    char c[2];        /* OM_BOARD: their letters */
} onemove_member;
typedef struct onemove_view {
    int n;
    onemove_member m[OM_MAX_MEMBERS];
} onemove_view;

/* Fills v (v->n = 0 first) with st's members, with the functions below. */
typedef void (*onemove_view_fn)(const void *st, onemove_view *v);
void onemove_int(onemove_view *v, const char *key, int x);
void onemove_int_or_null(onemove_view *v, const char *key, int x, bool null);
void onemove_pair(onemove_view *v, const char *key, int a, int b);
void onemove_board(onemove_view *v, const char *key, int n, uint64_t bits0, uint64_t bits1,
                   char c0, char c1);

/* state (codec.h): the members of view(st) as a JSON object. A new
 * object, NULL when out of memory. */
json_t *onemove_state_json(onemove_view_fn view, const void *st);

/* change (codec.h): protocol 2's change from the state of `from` to that of
 * `to`, as text (patch.h): 0; 1 when their members differ in kind or
 * board size (nothing written); -1 when out ran out of memory. */
int onemove_change(onemove_view_fn view, const void *from, const void *to, textbuf *out);

#endif
