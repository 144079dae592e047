/*
 * pentago_wire.c — Pentago-Twist on the wire (docs/protocol.md): a move is
 * {"x":2,"y":3,"quadrant":1,"twist":"rotate"} (the new piece, then the
 * quadrant turned clockwise or flipped left <-> right) and `legal` lists the
 * same objects, 8 per empty cell; the state is the board as six strings,
 * the top row first, W White (seat 0), B Black (seat 1), . empty. Moves are
 * read and checked by the record codec's reader (games/pentago.c).
 */
#include <stdio.h>
#include <string.h>

#include "codec.h"
#include "engine/pentago/pentago.h"
#include "protocol/wire.h"

static const char *const twist_names[2] = {"rotate", "flip"};

static json_t *move_json(eng_move m)
{
    int cell = m >> 3;
    return json_pack("{s:i, s:i, s:i, s:s}", "x", cell % PT_SIZE, "y", cell / PT_SIZE, "quadrant",
                     (m >> 1) & 3, "twist", twist_names[m & 1]);
}

static json_t *pt_state_json(const void *st)
{
    const pt_state *s = st;
    json_t *rows = json_array();
    for (int y = 0; y < PT_SIZE; y++) {
        char line[PT_SIZE + 1];
        for (int x = 0; x < PT_SIZE; x++) {
            int b = y * PT_SIZE + x;
            line[x] = (s->stone[0] >> b) & 1 ? 'W' : (s->stone[1] >> b) & 1 ? 'B' : '.';
        }
        line[PT_SIZE] = 0;
        json_array_append_new(rows, json_string(line));
    }
    double sc[2];
    pt_game.scores(s, sc);
    json_t *o = json_pack("{s:i, s:o, s:[i,i]}", "turn", s->plies, "board", rows, "scores",
                          (int)sc[0], (int)sc[1]);
    json_object_set_new(o, "to_move",
                        s->result == PT_PLAYING ? json_integer(s->to_move) : json_null());
    return o;
}

static json_t *pt_legal(const void *st)
{
    eng_move moves[8 * PT_CELLS];
    int n = pt_game.legal_moves(st, moves);
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, move_json(moves[i]));
    return a;
}

static int pt_parse_move(const void *st, const json_t *move, eng_move *out, char *err,
                         size_t errcap)
{
    if (!json_is_object(move))
        return eng_seterr(err, errcap, ENG_EBAD_MOVE,
                          "a move is {\"x\":2,\"y\":3,\"quadrant\":1,\"twist\":\"rotate\"}, not %s",
                          rec__type_name(move));
    if (pt_game.current_player(st) < 0)
        return eng_seterr(err, errcap, ENG_EILLEGAL_MOVE, "the game is over");
    int rc = pt__read_move(st, move, false, out, err, errcap);
    if (rc == ENG_EBAD_RECORD)
        rc = ENG_EBAD_MOVE; /* on the wire a wrong shape is a move not understood */
    return rc ? rc : 1;
}

static json_t *pt_format_move(const void *st, const eng_move *moves, int n)
{
    (void)st;
    return n > 0 ? move_json(moves[0]) : json_null();
}

const wire_game wire_pentago = {
    .game = "pentago-twist",
    .info = NULL,
    .state = pt_state_json,
    .legal = pt_legal,
    .parse_move = pt_parse_move,
    .format_move = pt_format_move,
};
