/*
 * pentago.c (protocol) — Pentago-Twist's JSON: records and the wire
 * (protocol/codec.h; docs/records.md, docs/protocol.md).
 *
 * A record turn is one move of the seat to play: the cell of the new piece
 * and the twist that follows, {"player":0,"x":2,"y":3,"quadrant":1,
 * "twist":"rotate"} — x east and y south from the top-left cell (0,0),
 * quadrant 0 top-left, 1 top-right, 2 bottom-left, 3 bottom-right, twist
 * "rotate" (90 degrees clockwise) or "flip" (mirror left <-> right). A wire
 * move is the same object without "player"; `legal` lists such objects,
 * 8 per empty cell; the state is the board as six strings, the top row
 * first, W White (seat 0), B Black (seat 1), . empty. One reader
 * (read_move) checks both.
 *
 * Errors: a wrong shape or type is bad_record; a cell off the board, a
 * quadrant other than 0-3 or an unknown twist is bad_move; the wrong player
 * or a taken cell is illegal_move.
 */
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "onemove.h"
#include "engine/pentago/pentago.h"

/* ---- records ---- */

static const char *const twist_names[2] = {"rotate", "flip"};


static int read_move(const void *st, const json_t *turn, bool with_player, eng_move *m, char *err,
                     size_t errcap)
{
    const pt_state *s = st;
    json_t *jplayer = NULL, *jx = NULL, *jy = NULL, *jq = NULL, *jt = NULL;
    json_error_t jerr;
    char shape[REC_SHAPE_MAX], q[REC_QUOTE_MAX];
    int rc =
        with_player
            ? json_unpack_ex((json_t *)turn, &jerr, JSON_STRICT, "{s:o, s:o, s:o, s:o, s:o}",
                             "player", &jplayer, "x", &jx, "y", &jy, "quadrant", &jq, "twist", &jt)
            : json_unpack_ex((json_t *)turn, &jerr, JSON_STRICT, "{s:o, s:o, s:o, s:o}", "x", &jx,
                             "y", &jy, "quadrant", &jq, "twist", &jt);
    if (rc != 0)
        return eng_seterr(err, errcap, ENG_EBAD_RECORD, "%s: %s", with_player ? "turn" : "move",
                          rec__shape_error(&jerr, shape));
    if (jplayer && !json_is_integer(jplayer))
        return eng_seterr(err, errcap, ENG_EBAD_RECORD, "player must be an integer, not %s",
                          rec__type_name(jplayer));
    const char *names[3] = {"x", "y", "quadrant"};
    json_t *ints[3] = {jx, jy, jq};
    for (int i = 0; i < 3; i++)
        if (!json_is_integer(ints[i]))
            return eng_seterr(err, errcap, ENG_EBAD_RECORD, "%s must be an integer, not %s",
                              names[i], rec__type_name(ints[i]));
    if (!json_is_string(jt))
        return eng_seterr(err, errcap, ENG_EBAD_RECORD, "twist must be a string, not %s",
                          rec__type_name(jt));

    /* the values */
    long long x = (long long)json_integer_value(jx), y = (long long)json_integer_value(jy);
    long long quad = (long long)json_integer_value(jq);
    if (x < 0 || y < 0 || x >= PT_SIZE || y >= PT_SIZE)
        return eng_seterr(err, errcap, ENG_EBAD_MOVE, "(%lld,%lld) is not a cell of the 6x6 board",
                          x, y);
    if (quad < 0 || quad > 3)
        return eng_seterr(err, errcap, ENG_EBAD_MOVE, "quadrant is 0, 1, 2 or 3, not %lld", quad);
    int twist = -1;
    for (int t = 0; t < 2; t++)
        if (json_string_length(jt) == strlen(twist_names[t]) &&
            strcmp(json_string_value(jt), twist_names[t]) == 0)
            twist = t;
    if (twist < 0)
        return eng_seterr(err, errcap, ENG_EBAD_MOVE, "twist %s is not \"rotate\" or \"flip\"",
                          rec__quote(jt, q));

    /* the rules */
    if (jplayer && json_integer_value(jplayer) != s->to_move)
        return eng_seterr(err, errcap, ENG_EILLEGAL_MOVE,
                          "player %lld is not to move (player %d is)",
                          (long long)json_integer_value(jplayer), s->to_move);
    int cell = (int)(y * PT_SIZE + x);
    if (((s->stone[0] | s->stone[1]) >> cell) & 1)
        return eng_seterr(err, errcap, ENG_EILLEGAL_MOVE, "(%lld,%lld) is taken", x, y);
    *m = pt_move((int)x, (int)y, (int)quad, twist);
    return 0;
}

static int pt_apply_turn(void *st, const json_t *turn, eng_move *moves, int *nmoves, char *err,
                         size_t errcap)
{
    return onemove_apply_turn(&pt_game, read_move, st, turn, moves, nmoves, err, errcap);
}

/* ---- the wire ---- */

static void describe_move(const void *st, eng_move m, onemove_move *mv)
{
    (void)st;
    int cell = m >> 3;
    onemove_move_int(mv, "x", cell % PT_SIZE);
    onemove_move_int(mv, "y", cell / PT_SIZE);
    onemove_move_int(mv, "quadrant", (m >> 1) & 3);
    onemove_move_str(mv, "twist", twist_names[m & 1]);
}

static json_t *move_json(const void *st, eng_move m)
{
    return onemove_move_json(describe_move, st, m);
}

static int pt_legal_text(const void *st, textbuf *out, uint32_t (*spans)[2], int cap)
{
    return onemove_legal_text(&pt_game, describe_move, st, out, spans, cap);
}

static void pt_view(const void *st, onemove_view *v)
{
    const pt_state *s = st;
    double sc[2];
    pt_game.scores(s, sc);
    onemove_int(v, "turn", s->plies);
    onemove_board(v, "board", PT_SIZE, s->stone[0], s->stone[1], 'W', 'B');
    onemove_pair(v, "scores", (int)sc[0], (int)sc[1]);
    onemove_int_or_null(v, "to_move", s->to_move, s->result != PT_PLAYING);
}

static json_t *pt_state_json(const void *st)
{
    return onemove_state_json(pt_view, st);
}

static int pt_change(const void *from, const void *to, textbuf *out)
{
    return onemove_change(pt_view, from, to, out);
}

static json_t *pt_legal(const void *st)
{
    return onemove_legal(&pt_game, move_json, st);
}

static int pt_parse_move(const void *st, const json_t *move, eng_move *out, char *err,
                         size_t errcap)
{
    return onemove_parse_move(&pt_game, read_move,
                              "{\"x\":2,\"y\":3,\"quadrant\":1,\"twist\":\"rotate\"}", st,
                              move, out, err, errcap);
}

static json_t *pt_format_move(const void *st, const eng_move *moves, int n)
{
    return onemove_format_move(move_json, st, moves, n);
}

static json_t *pt_encode_turn(void *st, const eng_move *moves, int n, int *pos, bool *cut,
                              char *err, size_t errcap)
{
    (void)n;   /* one move per turn: the caller guarantees moves[*pos] exists */
    (void)cut; /* so a turn is never cut short */
    return onemove_encode_turn(&pt_game, move_json, st, moves, pos, err, errcap);
}

const game_codec codec_pentago = {
    .game = "pentago-twist",
    .state = pt_state_json,
    .legal = pt_legal,
    .parse_move = pt_parse_move,
    .format_move = pt_format_move,
    .encode_turn = pt_encode_turn,
    .apply_turn = pt_apply_turn,
    .change = pt_change,
    .legal_text = pt_legal_text,
};
