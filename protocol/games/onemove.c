/*
 * onemove.c — the codec parts shared by games whose turn is one move
 * (contract in onemove.h).
 */
#include "onemove.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "patch.h"
#include "protocol/jsontext.h"

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

void onemove_move_int(onemove_move *mv, const char *key, int v)
{
    assert(mv->n < OM_MOVE_MEMBERS);
    mv->m[mv->n].key = key;
    mv->m[mv->n].s = NULL;
    mv->m[mv->n++].v = v;
}

void onemove_move_str(onemove_move *mv, const char *key, const char *s)
{
    assert(mv->n < OM_MOVE_MEMBERS && s);
    mv->m[mv->n].key = key;
    mv->m[mv->n].s = s;
    mv->m[mv->n++].v = 0;
}

json_t *onemove_move_json(onemove_move_fn describe, const void *st, eng_move m)
{
    onemove_move mv = {0};
    describe(st, m, &mv);
    json_t *o = json_object();
    for (int i = 0; o && i < mv.n; i++)
        if (json_object_set_new(o, mv.m[i].key,
                                mv.m[i].s ? json_string(mv.m[i].s) : json_integer(mv.m[i].v))) {
            json_decref(o);
            o = NULL;
        }
    return o;
}

/* The most legal moves of these games (Pentago-Twist's 288), on the stack. */
#define OM_MAX_LEGAL 288

int onemove_legal_text(const eng_game *g, onemove_move_fn describe, const void *st, textbuf *out,
                       uint32_t (*spans)[2], int cap)
{
    assert(g->max_moves <= OM_MAX_LEGAL);
    eng_move moves[OM_MAX_LEGAL];
    int n = g->legal_moves(st, moves);
    size_t start = out->len;
    tb_put(out, "[", 1);
    for (int i = 0; i < n; i++) {
        onemove_move mv = {0};
        describe(st, moves[i], &mv);
        if (i)
            tb_put(out, ",", 1);
        size_t from = out->len;
        for (int k = 0; k < mv.n; k++) {
            tb_put(out, k ? "," : "{", 1);
            jt_str(out, mv.m[k].key, strlen(mv.m[k].key));
            tb_put(out, ":", 1);
            if (mv.m[k].s)
                jt_str(out, mv.m[k].s, strlen(mv.m[k].s));
            else
                jt_int(out, mv.m[k].v);
        }
        tb_put(out, mv.n ? "}" : "{}", mv.n ? 1 : 2);
        if (spans && i < cap) {
            spans[i][0] = (uint32_t)(from - start);
            spans[i][1] = (uint32_t)(out->len - from);
        }
    }
    tb_put(out, "]", 1);
    return out->failed ? -1 : n;
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

/* ---- the state and its change ---- */

static onemove_member *add(onemove_view *v, const char *key, int kind)
{
    assert(v->n < OM_MAX_MEMBERS);
    onemove_member *m = &v->m[v->n++];
    memset(m, 0, sizeof *m);
    m->key = key;
    m->kind = kind;
    return m;
}

void onemove_int(onemove_view *v, const char *key, int x)
{
    add(v, key, OM_INT)->v[0] = x;
}

void onemove_int_or_null(onemove_view *v, const char *key, int x, bool null)
{
    onemove_member *m = add(v, key, OM_INT_OR_NULL);
    m->v[0] = null ? 0 : x;
    m->v[1] = null;
}

void onemove_pair(onemove_view *v, const char *key, int a, int b)
{
    onemove_member *m = add(v, key, OM_PAIR);
    m->v[0] = a;
    m->v[1] = b;
}

void onemove_board(onemove_view *v, const char *key, int n, uint64_t bits0, uint64_t bits1,
                   char c0, char c1)
{
    assert(n >= 1 && n <= OM_MAX_BOARD && !(bits0 & bits1));
    onemove_member *m = add(v, key, OM_BOARD);
    m->n = n;
    m->bits[0] = bits0;
    m->bits[1] = bits1;
    m->c[0] = c0;
    m->c[1] = c1;
}

/* A board's rows, one after the other (n*n characters, no NULs). */
static void board_text(const onemove_member *m, char *out)
{
    for (int b = 0; b < m->n * m->n; b++)
        out[b] = (m->bits[0] >> b) & 1u ? m->c[0] : (m->bits[1] >> b) & 1u ? m->c[1] : '.';
}

static json_t *member_json(const onemove_member *m)
{
    switch (m->kind) {
    case OM_INT: return json_integer(m->v[0]);
    case OM_INT_OR_NULL: return m->v[1] ? json_null() : json_integer(m->v[0]);
    case OM_PAIR: return json_pack("[i,i]", m->v[0], m->v[1]);
    default: {
        char text[OM_MAX_BOARD * OM_MAX_BOARD];
        board_text(m, text);
        json_t *rows = json_array();
        for (int y = 0; rows && y < m->n; y++)
            if (json_array_append_new(rows, json_stringn(text + y * m->n, (size_t)m->n)) != 0) {
                json_decref(rows);
                rows = NULL;
            }
        return rows;
    }
    }
}

json_t *onemove_state_json(onemove_view_fn view, const void *st)
{
    onemove_view v = {0};
    view(st, &v);
    json_t *o = json_object();
    for (int i = 0; o && i < v.n; i++)
        if (json_object_set_new(o, v.m[i].key, member_json(&v.m[i])) != 0) {
            json_decref(o);
            o = NULL;
        }
    return o;
}

int onemove_change(onemove_view_fn view, const void *from, const void *to, textbuf *out)
{
    onemove_view a = {0}, b = {0};
    view(from, &a);
    view(to, &b);
    if (a.n != b.n)
        return 1;
    for (int i = 0; i < a.n; i++)
        if (a.m[i].kind != b.m[i].kind || strcmp(a.m[i].key, b.m[i].key) != 0 ||
            a.m[i].n != b.m[i].n)
            return 1;
    size_t start = out->len;
    patch p = {out, 0};
    for (int i = 0; i < b.n; i++) {
        const onemove_member *ma = &a.m[i], *mb = &b.m[i];
        switch (mb->kind) {
        case OM_INT:
            if (ma->v[0] != mb->v[0]) {
                patch_member(&p, mb->key);
                jt_int(out, mb->v[0]);
            }
            break;
        case OM_INT_OR_NULL:
            if (ma->v[1] != mb->v[1] || ma->v[0] != mb->v[0]) {
                patch_member(&p, mb->key);
                if (mb->v[1])
                    tb_put(out, "null", 4);
                else
                    jt_int(out, mb->v[0]);
            }
            break;
        case OM_PAIR: patch_ints(&p, mb->key, ma->v, 2, mb->v, 2, NULL); break;
        default: {
            char ta[OM_MAX_BOARD * OM_MAX_BOARD], tb[OM_MAX_BOARD * OM_MAX_BOARD];
            board_text(ma, ta);
            board_text(mb, tb);
            patch_rows(&p, mb->key, ta, tb, mb->n, mb->n);
        }
        }
    }
    patch_end(&p);
    if (out->failed) {
        tb_cut(out, start);
        return -1;
    }
    return 0;
}
