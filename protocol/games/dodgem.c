/*
 * dodgem.c (protocol) — Dodgem's JSON: records and the wire
 * (protocol/codec.h; docs/records.md, docs/protocol.md).
 *
 * A record turn is one move of the seat to play: the car's cell and its
 * direction, {"player":0,"x":0,"y":1,"dir":"E"} — x east and y south from
 * the top-left cell (0,0), dir one of "N", "E", "S", "W" (upper case). A
 * forward move from the far edge takes the car off the board. A wire move is
 * the same object without "player", and `legal` lists such objects; the
 * state is the board as n strings, the top row first, B Black (seat 0),
 * W White (seat 1), . empty, with the ply cap. One reader (read_move)
 * checks both, so the wire and records accept exactly the same moves.
 *
 * Errors: a wrong shape or type is bad_record; a cell outside the board or
 * an unknown direction is bad_move; the wrong player, a cell without that
 * player's car, a backward move, a taken cell or a sideways move off the
 * board is illegal_move, with the reason.
 */
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "onemove.h"
#include "engine/dodgem/dodgem.h"

/* ---- records ---- */

static const char *const dir_names[4] = {"N", "E", "S", "W"};


static int read_move(const void *st, const json_t *turn, bool with_player, eng_move *m, char *err,
                     size_t errcap)
{
    const dodgem_state *s = st;
    json_t *jplayer = NULL, *jx = NULL, *jy = NULL, *jdir = NULL;
    json_error_t jerr;
    char shape[REC_SHAPE_MAX], q[REC_QUOTE_MAX];
    int rc = with_player
                 ? json_unpack_ex((json_t *)turn, &jerr, JSON_STRICT, "{s:o, s:o, s:o, s:o}",
                                  "player", &jplayer, "x", &jx, "y", &jy, "dir", &jdir)
                 : json_unpack_ex((json_t *)turn, &jerr, JSON_STRICT, "{s:o, s:o, s:o}", "x", &jx,
                                  "y", &jy, "dir", &jdir);
    if (rc != 0)
        return eng_seterr(err, errcap, ENG_EBAD_RECORD, "%s: %s", with_player ? "turn" : "move",
                          rec__shape_error(&jerr, shape));
    if (jplayer && !json_is_integer(jplayer))
        return eng_seterr(err, errcap, ENG_EBAD_RECORD, "player must be an integer, not %s",
                          rec__type_name(jplayer));
    if (!json_is_integer(jx))
        return eng_seterr(err, errcap, ENG_EBAD_RECORD, "x must be an integer, not %s",
                          rec__type_name(jx));
    if (!json_is_integer(jy))
        return eng_seterr(err, errcap, ENG_EBAD_RECORD, "y must be an integer, not %s",
                          rec__type_name(jy));
    if (!json_is_string(jdir))
        return eng_seterr(err, errcap, ENG_EBAD_RECORD, "dir must be a string, not %s",
                          rec__type_name(jdir));

    /* the values */
    long long x = (long long)json_integer_value(jx), y = (long long)json_integer_value(jy);
    int n = s->n;
    if (x < 0 || y < 0 || x >= n || y >= n)
        return eng_seterr(err, errcap, ENG_EBAD_MOVE,
                          "(%lld,%lld) is not a cell of the %dx%d board", x, y, n, n);
    int dir = -1;
    for (int d = 0; d < 4; d++)
        if (json_string_length(jdir) == 1 && strcmp(json_string_value(jdir), dir_names[d]) == 0)
            dir = d;
    if (dir < 0)
        return eng_seterr(err, errcap, ENG_EBAD_MOVE, "dir %s is not \"N\", \"E\", \"S\" or \"W\"",
                          rec__quote(jdir, q));

    /* the rules */
    int me = s->to_move;
    if (jplayer && json_integer_value(jplayer) != me)
        return eng_seterr(err, errcap, ENG_EILLEGAL_MOVE,
                          "player %lld is not to move (player %d is)",
                          (long long)json_integer_value(jplayer), me);
    int cell = (int)(y * n + x);
    if (!((s->car[me] >> cell) & 1u))
        return eng_seterr(err, errcap, ENG_EILLEGAL_MOVE, "(%lld,%lld) holds %s", x, y,
                          (s->car[!me] >> cell) & 1u ? "the other player's car" : "no car");
    static const int forward[2] = {DODGEM_E, DODGEM_S}, backward[2] = {DODGEM_W, DODGEM_N};
    if (dir == backward[me])
        return eng_seterr(err, errcap, ENG_EILLEGAL_MOVE, "%s's cars never drive %s (backwards)",
                          me == DODGEM_BLACK ? "Black" : "White", dir_names[dir]);
    int tx = (int)x + (dir == DODGEM_E) - (dir == DODGEM_W);
    int ty = (int)y + (dir == DODGEM_S) - (dir == DODGEM_N);
    if (tx < 0 || ty < 0 || tx >= n || ty >= n) {
        if (dir != forward[me])
            return eng_seterr(err, errcap, ENG_EILLEGAL_MOVE,
                              "a car leaves the board only by a forward move (%s)",
                              dir_names[forward[me]]);
    } else if (((s->car[0] | s->car[1]) >> (ty * n + tx)) & 1u) {
        return eng_seterr(err, errcap, ENG_EILLEGAL_MOVE, "(%d,%d) is taken", tx, ty);
    }
    *m = dodgem_move(n, (int)x, (int)y, dir);
    return 0;
}

static int dodgem_apply_turn(void *st, const json_t *turn, eng_move *moves, int *nmoves, char *err,
                             size_t errcap)
{
    return onemove_apply_turn(&dodgem_game, read_move, st, turn, moves, nmoves, err, errcap);
}

/* ---- the wire ---- */

static void describe_move(const void *st, eng_move m, onemove_move *mv)
{
    const dodgem_state *s = st;
    int cell = m >> 2;
    onemove_move_int(mv, "x", cell % s->n);
    onemove_move_int(mv, "y", cell / s->n);
    onemove_move_str(mv, "dir", dir_names[m & 3]);
}

static json_t *move_json(const void *st, eng_move m)
{
    return onemove_move_json(describe_move, st, m);
}

static int dodgem_legal_text(const void *st, textbuf *out, uint32_t (*spans)[2], int cap)
{
    return onemove_legal_text(&dodgem_game, describe_move, st, out, spans, cap);
}

static void dodgem_view(const void *st, onemove_view *v)
{
    const dodgem_state *s = st;
    double sc[2];
    dodgem_game.scores(s, sc);
    onemove_int(v, "turn", s->plies);
    onemove_int(v, "size", s->n);
    onemove_int(v, "max_plies", s->cap);
    onemove_board(v, "board", s->n, s->car[0], s->car[1], 'B', 'W');
    onemove_pair(v, "cars", __builtin_popcount(s->car[0]), __builtin_popcount(s->car[1]));
    onemove_pair(v, "scores", (int)sc[0], (int)sc[1]);
    onemove_int_or_null(v, "to_move", s->to_move, s->result != DODGEM_PLAYING);
}

static json_t *dodgem_state_json(const void *st)
{
    return onemove_state_json(dodgem_view, st);
}

static int dodgem_change(const void *from, const void *to, textbuf *out)
{
    return onemove_change(dodgem_view, from, to, out);
}

static json_t *dodgem_legal(const void *st)
{
    return onemove_legal(&dodgem_game, move_json, st);
}

static int dodgem_parse_move(const void *st, const json_t *move, eng_move *out, char *err,
                             size_t errcap)
{
    return onemove_parse_move(&dodgem_game, read_move, "{\"x\":0,\"y\":1,\"dir\":\"E\"}", st,
                              move, out, err, errcap);
}

static json_t *dodgem_format_move(const void *st, const eng_move *moves, int n)
{
    return onemove_format_move(move_json, st, moves, n);
}

static json_t *dodgem_encode_turn(void *st, const eng_move *moves, int n, int *pos, bool *cut,
                                  char *err, size_t errcap)
{
    (void)n;   /* one move per turn: the caller guarantees moves[*pos] exists */
    (void)cut; /* so a turn is never cut short */
    return onemove_encode_turn(&dodgem_game, move_json, st, moves, pos, err, errcap);
}

const game_codec codec_dodgem = {
    .game = "dodgem",
    .state = dodgem_state_json,
    .legal = dodgem_legal,
    .parse_move = dodgem_parse_move,
    .format_move = dodgem_format_move,
    .encode_turn = dodgem_encode_turn,
    .apply_turn = dodgem_apply_turn,
    .change = dodgem_change,
    .legal_text = dodgem_legal_text,
};
