/*
 * reversi.c (protocol) — Reversi's JSON: records and the wire
 * (protocol/codec.h; docs/records.md, docs/protocol.md).
 *
 * A record turn is one move of the seat to play: {"player":0,"move":"d3"},
 * or {"player":1,"move":"pass"} when that seat has no legal move (a pass is
 * a move in Reversi, so it is a turn of its own). Squares are written in
 * lower case, file a-h then rank 1-8; reading accepts exactly that spelling.
 * When a move is illegal the reader says why: the square is taken, the move
 * flips nothing, or a pass was claimed while moves exist.
 *
 * On the wire moves are {"move":"d3"} or {"move":"pass"}; the state is the
 * board as eight strings, rank 8 first, X Black (seat 0), O White.
 */
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "onemove.h"
#include "engine/reversi/reversi.h"

/* ---- records ---- */


static int rev_apply_turn(void *st, const json_t *turn, eng_move *moves, int *nmoves,
                          char *err, size_t errcap)
{
    rev_state *s = st;
    json_t *jplayer = NULL, *jmove = NULL;
    json_error_t jerr;
    char shape[REC_SHAPE_MAX];
    char q[REC_QUOTE_MAX];

    if (json_unpack_ex((json_t *)turn, &jerr, JSON_STRICT, "{s:o, s:o}", "player", &jplayer,
                       "move", &jmove) != 0)
        return eng_seterr(err, errcap, ENG_EBAD_RECORD, "turn: %s",
                         rec__shape_error(&jerr, shape));
    if (!json_is_integer(jplayer))
        return eng_seterr(err, errcap, ENG_EBAD_RECORD, "player must be an integer, not %s",
                         rec__type_name(jplayer));
    if (!json_is_string(jmove))
        return eng_seterr(err, errcap, ENG_EBAD_RECORD, "move must be a string, not %s",
                         rec__type_name(jmove));

    /* The value: "pass" or a lower-case square. */
    const char *ms = json_string_value(jmove);
    eng_move m;
    if (strcmp(ms, "pass") == 0 && json_string_length(jmove) == 4)
        m = REV_PASS;
    else if (json_string_length(jmove) == 2 && ms[0] >= 'a' && ms[0] <= 'h')
        m = rev_square_of(ms);
    else
        m = -1;
    if (m < 0)
        return eng_seterr(err, errcap, ENG_EBAD_MOVE,
                         "move %s is neither a square (a1 to h8) nor \"pass\"",
                         rec__quote(jmove, q));

    /* The rules. */
    long long player = (long long)json_integer_value(jplayer);
    if (player != s->to_move)
        return eng_seterr(err, errcap, ENG_EILLEGAL_MOVE, "player %lld is not to move (player %d is)",
                         player, s->to_move);
    uint64_t me = s->disc[s->to_move], opp = s->disc[!s->to_move];
    uint64_t legal = rev_moves_mask(me, opp);
    if (m == REV_PASS) {
        if (legal)
            return eng_seterr(err, errcap, ENG_EILLEGAL_MOVE,
                             "player %d cannot pass: %d legal move%s", s->to_move,
                             __builtin_popcountll(legal), __builtin_popcountll(legal) == 1 ? "" : "s");
    } else if ((me | opp) & (1ULL << m)) {
        return eng_seterr(err, errcap, ENG_EILLEGAL_MOVE, "%s is already occupied", ms);
    } else if (!(legal & (1ULL << m))) {
        return eng_seterr(err, errcap, ENG_EILLEGAL_MOVE, "%s flips no disc%s", ms,
                         legal ? "" : " (the player has no move and must pass)");
    }
    rec__applied(moves, nmoves, m);
    rev_game.apply(s, m);
    return 0;
}

/* ---- the wire ---- */

static void describe_move(const void *st, eng_move m, onemove_move *mv)
{
    rev_game.move_to_str(st, m, mv->buf, sizeof mv->buf); /* "d3" or "pass" */
    onemove_move_str(mv, "move", mv->buf);
}

static json_t *move_json(const void *st, eng_move m)
{
    return onemove_move_json(describe_move, st, m);
}

static int rev_legal_text(const void *st, textbuf *out, uint32_t (*spans)[2], int cap)
{
    return onemove_legal_text(&rev_game, describe_move, st, out, spans, cap);
}

/* The public state: rows from the top (rank 8) down, so the engine's
 * bitboards (bit f + 8*r, rank 1 first) are turned over by bytes. */
static void rev_view(const void *st, onemove_view *v)
{
    const rev_state *s = st;
    onemove_int(v, "turn", s->plies);
    onemove_board(v, "board", 8, __builtin_bswap64(s->disc[REV_BLACK]),
                  __builtin_bswap64(s->disc[REV_WHITE]), 'X', 'O');
    onemove_pair(v, "scores", __builtin_popcountll(s->disc[0]), __builtin_popcountll(s->disc[1]));
    onemove_int_or_null(v, "to_move", s->to_move, s->over);
}

static json_t *rev_state_json(const void *st)
{
    return onemove_state_json(rev_view, st);
}

static int rev_change(const void *from, const void *to, textbuf *out)
{
    return onemove_change(rev_view, from, to, out);
}

static json_t *rev_legal(const void *st)
{
    return onemove_legal(&rev_game, move_json, st);
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
    return onemove_format_move(move_json, st, moves, n);
}

static json_t *rev_encode_turn(void *st, const eng_move *moves, int n, int *pos, bool *cut,
                               char *err, size_t errcap)
{
    (void)n;   /* one move per turn: the caller guarantees moves[*pos] exists */
    (void)cut; /* so a turn is never cut short */
    return onemove_encode_turn(&rev_game, move_json, st, moves, pos, err, errcap);
}

const game_codec codec_reversi = {
    .game = "reversi",
    .state = rev_state_json,
    .legal = rev_legal,
    .parse_move = rev_parse_move,
    .format_move = rev_format_move,
    .encode_turn = rev_encode_turn,
    .apply_turn = rev_apply_turn,
    .change = rev_change,
    .legal_text = rev_legal_text,
};
