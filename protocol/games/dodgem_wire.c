/*
 * dodgem_wire.c — Dodgem on the wire (docs/protocol.md): a move is
 * {"x":0,"y":1,"dir":"E"} (the car's cell and its direction) and `legal`
 * lists the same objects; the state is the board as n strings, the top row
 * first, B Black (seat 0), W White (seat 1), . empty, with the ply cap.
 * Moves are read and checked by the record codec's reader (games/dodgem.c),
 * so the wire and records accept exactly the same moves.
 */
#include <stdio.h>
#include <string.h>

#include "codec.h"
#include "engine/dodgem/dodgem.h"
#include "protocol/wire.h"

static const char *const dir_names[4] = {"N", "E", "S", "W"};

static json_t *move_json(const dodgem_state *s, eng_move m)
{
    int cell = m >> 2;
    return json_pack("{s:i, s:i, s:s}", "x", cell % s->n, "y", cell / s->n, "dir",
                     dir_names[m & 3]);
}

static json_t *dodgem_state_json(const void *st)
{
    const dodgem_state *s = st;
    json_t *rows = json_array();
    for (int y = 0; y < s->n; y++) {
        char line[DODGEM_MAX_N + 1];
        for (int x = 0; x < s->n; x++) {
            int b = y * s->n + x;
            line[x] = (s->car[0] >> b) & 1u ? 'B' : (s->car[1] >> b) & 1u ? 'W' : '.';
        }
        line[s->n] = 0;
        json_array_append_new(rows, json_string(line));
    }
    double sc[2];
    dodgem_game.scores(s, sc);
    json_t *o = json_pack("{s:i, s:i, s:i, s:o, s:[i,i], s:[i,i]}", "turn", s->plies, "size", s->n,
                          "max_plies", s->cap, "board", rows, "cars", __builtin_popcount(s->car[0]),
                          __builtin_popcount(s->car[1]), "scores", (int)sc[0], (int)sc[1]);
    json_object_set_new(o, "to_move",
                        s->result == DODGEM_PLAYING ? json_integer(s->to_move) : json_null());
    return o;
}

static json_t *dodgem_legal(const void *st)
{
    eng_move moves[3 * (DODGEM_MAX_N - 1)];
    int n = dodgem_game.legal_moves(st, moves);
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, move_json(st, moves[i]));
    return a;
}

static int dodgem_parse_move(const void *st, const json_t *move, eng_move *out, char *err,
                             size_t errcap)
{
    if (!json_is_object(move))
        return eng_seterr(err, errcap, ENG_EBAD_MOVE,
                          "a move is {\"x\":0,\"y\":1,\"dir\":\"E\"}, not %s",
                          rec__type_name(move));
    if (dodgem_game.current_player(st) < 0)
        return eng_seterr(err, errcap, ENG_EILLEGAL_MOVE, "the game is over");
    int rc = dodgem__read_move(st, move, false, out, err, errcap);
    if (rc == ENG_EBAD_RECORD)
        rc = ENG_EBAD_MOVE; /* on the wire a wrong shape is a move not understood */
    return rc ? rc : 1;
}

static json_t *dodgem_format_move(const void *st, const eng_move *moves, int n)
{
    return n > 0 ? move_json(st, moves[0]) : json_null();
}

const wire_game wire_dodgem = {
    .game = "dodgem",
    .info = NULL,
    .state = dodgem_state_json,
    .legal = dodgem_legal,
    .parse_move = dodgem_parse_move,
    .format_move = dodgem_format_move,
};
