/*
 * reversi_wire.c — Reversi on the wire (docs/protocol.md): moves are
 * {"move":"d3"} or {"move":"pass"}; the state is the board as eight strings,
 * rank 8 first, X Black (seat 0), O White.
 */
#include <stdio.h>
#include <string.h>

#include "codec.h"
#include "engine/reversi/reversi.h"
#include "protocol/wire.h"

static json_t *move_json(const void *st, eng_move m)
{
    char s[ENG_MOVE_STR_MAX];
    rev_game.move_to_str(st, m, s, sizeof s);
    return json_pack("{s:s}", "move", s);
}

static json_t *rev_state_json(const void *st)
{
    const rev_state *s = st;
    json_t *rows = json_array();
    for (int r = 7; r >= 0; r--) {
        char line[9];
        for (int f = 0; f < 8; f++) {
            uint64_t b = 1ULL << (f + 8 * r);
            line[f] = (s->disc[REV_BLACK] & b) ? 'X' : (s->disc[REV_WHITE] & b) ? 'O' : '.';
        }
        line[8] = 0;
        json_array_append_new(rows, json_string(line));
    }
    json_t *o = json_pack("{s:i, s:o, s:[i,i]}", "turn", s->plies, "board", rows, "scores",
                          __builtin_popcountll(s->disc[0]), __builtin_popcountll(s->disc[1]));
    json_object_set_new(o, "to_move", s->over ? json_null() : json_integer(s->to_move));
    return o;
}

static json_t *rev_legal(const void *st)
{
    eng_move moves[64];
    int n = rev_game.legal_moves(st, moves);
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, move_json(st, moves[i]));
    return a;
}

static int rev_parse_move(const void *st, const json_t *move, eng_move *out, char *err,
                          size_t errcap)
{
    const char *text;
    json_error_t e;
    if (!json_is_object(move) ||
        json_unpack_ex((json_t *)move, &e, JSON_STRICT, "{s:s}", "move", &text) != 0)
        return eng_seterr(err, errcap, ENG_EBAD_MOVE,
                         "a move is {\"move\":\"d3\"} or {\"move\":\"pass\"}");
    int rc = rev_game.move_from_str(st, text, out);
    if (rc == ENG_EBAD_MOVE) {
        char q[REC_QUOTE_MAX];
        return eng_seterr(err, errcap, ENG_EBAD_MOVE, "%s is not a square or pass",
                         rec__quote(json_object_get(move, "move"), q));
    }
    if (rc)
        return eng_seterr(err, errcap, ENG_EILLEGAL_MOVE, "%s is not a legal move now", text);
    return 1;
}

static json_t *rev_format_move(const void *st, const eng_move *moves, int n)
{
    return n > 0 ? move_json(st, moves[0]) : json_null();
}

const wire_game wire_reversi = {
    .game = "reversi",
    .info = NULL,
    .state = rev_state_json,
    .legal = rev_legal,
    .parse_move = rev_parse_move,
    .format_move = rev_format_move,
};
