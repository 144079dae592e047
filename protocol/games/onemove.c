/*
 * onemove.c — the codec parts shared by games whose turn is one move
 * (contract in onemove.h).
 */
#include "onemove.h"

#include <stdlib.h>

#include "common.h"

json_t *onemove_encode_turn(const eng_game *g, onemove_json_fn wire_move, void *st,
                            const eng_move *moves, int *pos, char *err, size_t errcap)
{
    int i = *pos;
    eng_move m = moves[i];
    if (!eng_is_legal(g, st, m)) {
        eng_seterr(err, errcap, ENG_EINVAL, "move %d: %d is not a legal move", i + 1, (int)m);
        return NULL;
    }
    json_t *turn = json_pack("{s:i}", "player", g->current_player(st));
    json_t *move = wire_move(st, m);
    if (!turn || !move || json_object_update(turn, move) != 0) {
        json_decref(turn);
        json_decref(move);
        eng_seterr(err, errcap, ENG_ENOMEM, "out of memory");
        return NULL;
    }
    json_decref(move);
    g->apply(st, m);
    *pos = i + 1;
    return turn;
}

int onemove_apply_turn(const eng_game *g, onemove_read_fn read, void *st, const json_t *turn,
                       eng_move *moves, int *nmoves, char *err, size_t errcap)
{
    eng_move m;
    int rc = read(st, turn, true, &m, err, errcap);
    if (rc)
        return rc;
    rec__applied(moves, nmoves, m);
    g->apply(st, m);
    return 0;
}

json_t *onemove_legal(const eng_game *g, onemove_json_fn wire_move, const void *st)
{
    eng_move *moves = malloc((size_t)g->max_moves * sizeof *moves);
    json_t *a = json_array();
    if (!moves || !a) {
        free(moves);
        json_decref(a);
        return NULL;
    }
    int n = g->legal_moves(st, moves);
    for (int i = 0; i < n; i++)
        if (json_array_append_new(a, wire_move(st, moves[i])) != 0) {
            json_decref(a);
            a = NULL;
            break;
        }
    free(moves);
    return a;
}

int onemove_parse_move(const eng_game *g, onemove_read_fn read, const char *example,
                       const void *st, const json_t *move, eng_move *out, char *err,
                       size_t errcap)
{
    if (!json_is_object(move))
        return eng_seterr(err, errcap, ENG_EBAD_MOVE, "a move is %s, not %s", example,
                          rec__type_name(move));
    if (g->current_player(st) < 0)
        return eng_seterr(err, errcap, ENG_EILLEGAL_MOVE, "the game is over");
    int rc = read(st, move, false, out, err, errcap);
    if (rc == ENG_EBAD_RECORD)
        rc = ENG_EBAD_MOVE; /* on the wire a wrong shape is a move not understood */
    return rc ? rc : 1;
}

json_t *onemove_format_move(onemove_json_fn wire_move, const void *st, const eng_move *moves,
                            int n)
{
    return n > 0 ? wire_move(st, moves[0]) : json_null();
}

json_t *onemove_board_rows(int n, uint64_t bits0, uint64_t bits1, char c0, char c1)
{
    json_t *rows = json_array();
    for (int y = 0; rows && y < n; y++) {
        char line[9];
        for (int x = 0; x < n; x++) {
            int b = y * n + x;
            line[x] = (bits0 >> b) & 1u ? c0 : (bits1 >> b) & 1u ? c1 : '.';
        }
        line[n] = 0;
        if (json_array_append_new(rows, json_string(line)) != 0) {
            json_decref(rows);
            rows = NULL;
        }
    }
    return rows;
}
