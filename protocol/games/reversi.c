/*
 * reversi.c (protocol) — the Reversi turn in game records.
 *
 * A turn is one move of the seat to play: {"player":0,"move":"d3"}, or
 * {"player":1,"move":"pass"} when that seat has no legal move (a pass is a
 * move in Reversi, so it is a turn of its own). Squares are written in lower
 * case, file a-h then rank 1-8; reading accepts exactly that spelling. When
 * a move is illegal the reader says why: the square is taken, the move flips
 * nothing, or a pass was claimed while moves exist.
 */
#include <string.h>

#include "codec.h"
#include "engine/reversi/reversi.h"

static json_t *rev_encode_turn(void *st, const eng_move *moves, int n, int *pos, bool *cut,
                               char *err, size_t errcap)
{
    rev_state *s = st;
    int i = *pos;
    (void)n;   /* one move per turn: the caller guarantees moves[*pos] exists */
    (void)cut; /* so a turn is never cut short */
    eng_move m = moves[i];
    char text[ENG_MOVE_STR_MAX];
    if (!eng_is_legal(&rev_game, s, m) || rev_game.move_to_str(s, m, text, sizeof text) < 0) {
        eng_seterr(err, errcap, ENG_EINVAL, "move %d: %d is not a legal move", i + 1, (int)m);
        return NULL;
    }
    int player = s->to_move;
    rev_game.apply(s, m);
    *pos = i + 1;
    json_t *turn = json_pack("{s:i, s:s}", "player", player, "move", text);
    if (!turn)
        eng_seterr(err, errcap, ENG_ENOMEM, "out of memory");
    return turn;
}

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

const rec_codec rec_codec_reversi = {
    .game = "reversi",
    .encode_turn = rev_encode_turn,
    .apply_turn = rev_apply_turn,
};
