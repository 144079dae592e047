/*
 * carcassonne_wire.c — Carcassonne on the wire (docs/protocol.md): the tile
 * model for clients, the public state, the legal moves of the seat to move
 * and a move read back into engine moves.
 *
 * A protocol move is the whole decision of a turn: {"x","y","rot","meeple"}
 * — the placement of the drawn tile and the meeple (a port, or null/absent).
 * The public state holds what everyone at the table sees: the board, the
 * meeples, scores, the tile being played and how many tiles of each type are
 * left. It never holds the order of the bag (the engine state does not know
 * it either: the server draws with its own secret generator).
 */
#include <stdio.h>
#include <string.h>

#include "codec.h"
#include "engine/carcassonne/carcassonne.h"
#include "protocol/wire.h"

static const char *const phase_names[] = {"draw", "place", "meeple", "over"};

/* The unrotated port map of a tile type, one letter per port naming its
 * feature: c/d cities, r/s/t/u roads, f/g/h/i fields, k cloister, '.' none. */
static void port_map(const carc_type *t, char out[CARC_NPORTS + 1])
{
    static const char *const letters[] = {"", "cd", "rstu", "fghi", "k"};
    int used[5] = {0};
    char seg_letter[CARC_MAX_SEGS];
    for (int s = 0; s < t->nseg; s++)
        seg_letter[s] = letters[t->kind[s]][used[t->kind[s]]++];
    for (int p = 0; p < CARC_NPORTS; p++) {
        uint8_t s = t->rot[0].seg[p];
        out[p] = s == 0xff ? '.' : seg_letter[s];
    }
    out[CARC_NPORTS] = 0;
}

static json_t *carc_info(void)
{
    const carc_type *types = carc_types();
    json_t *tiles = json_object();
    for (int i = 0; i < CARC_NTYPES; i++) {
        char map[CARC_NPORTS + 1], name[2] = {types[i].letter, 0};
        port_map(&types[i], map);
        bool pennant = false;
        for (int s = 0; s < types[i].nseg; s++)
            pennant |= types[i].pennant[s] != 0;
        json_object_set_new(tiles, name,
                            json_pack("{s:i, s:s, s:b}", "count", types[i].count, "ports", map,
                                      "pennant", pennant));
    }
    return json_pack("{s:o, s:s}", "tiles", tiles, "port_order",
                     "NW N NE EN E ES SE S SW WS W WN C");
}

static json_t *letter_json(int type)
{
    char s[2] = {carc_types()[type].letter, 0};
    return json_string(s);
}

static json_t *carc_state_json(const void *st)
{
    const carc_state *s = st;
    const carc_type *types = carc_types();
    int np = s->rules.players;
    json_t *board = json_array();
    for (int i = 0; i < s->nplaced; i++) {
        const carc_placed *pl = &s->placed[i];
        json_t *closed = json_array();
        const carc_type *ty = &types[pl->type];
        for (int g = 0; g < ty->nseg; g++)
            if (ty->kind[g] != CARC_FIELD && carc_feature_complete(s, pl->node0 + g))
                json_array_append_new(
                    closed, json_string(carc_port_name(carc_feature_port(pl->type, pl->rot, g))));
        json_array_append_new(board, json_pack("{s:i, s:i, s:o, s:i, s:o}", "x", pl->x, "y", pl->y,
                                               "tile", letter_json(pl->type), "rot", pl->rot,
                                               "closed", closed));
    }
    json_t *meeples = json_array();
    for (int i = 0; i < s->nmeeples; i++) {
        int node = s->meeple[i].node;
        const carc_placed *pl = &s->placed[s->tile[node]];
        int port = carc_feature_port(pl->type, pl->rot, node - pl->node0);
        json_array_append_new(meeples, json_pack("{s:i, s:i, s:s, s:i}", "x", pl->x, "y", pl->y,
                                                 "port", carc_port_name(port), "seat",
                                                 s->meeple[i].player));
    }
    json_t *scores = json_array(), *left = json_array();
    for (int p = 0; p < np; p++) {
        json_array_append_new(scores, json_integer(s->score[p]));
        json_array_append_new(left, json_integer(s->supply[p]));
    }
    json_t *bag = json_object();
    for (int t = 0; t < CARC_NTYPES; t++) {
        char name[2] = {types[t].letter, 0};
        json_object_set_new(bag, name, json_integer(s->bag[t]));
    }
    /* the tile in play: being placed, or just drawn and discarded as dead */
    bool deciding = s->phase == CARC_PLACE || s->phase == CARC_MEEPLE || s->dead;
    json_t *o = json_pack("{s:i, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:i, s:i}", "turn", s->turns,
                          "phase", phase_names[s->phase & 3], "board", board, "meeples", meeples,
                          "scores", scores, "meeples_left", left, "bag", bag, "tile",
                          deciding ? letter_json(s->drawn) : json_null(), "bag_left", s->bag_n,
                          "discards", s->discards);
    json_object_set_new(o, "to_move",
                        s->phase == CARC_OVER ? json_null() : json_integer(s->player));
    return o;
}

/* The seat to move and its tile: the one drawn, or a dead tile just
 * discarded (its seat draws again), as the state's to_move and tile say. */
static int carc_next(const void *st, json_t **next)
{
    const carc_state *s = st;
    int p = carc_game.current_player(s);
    if (p == ENG_TERMINAL) {
        *next = json_null();
        return -1;
    }
    int seat = p >= 0 ? p : s->player;
    bool deciding = s->phase == CARC_PLACE || s->phase == CARC_MEEPLE || s->dead;
    *next = json_pack("{s:i, s:o}", "seat", seat, "tile", deciding ? letter_json(s->drawn) : json_null());
    return seat;
}

/* ---- protocol 2: the change between two states, as delta_diff writes it -- */

/* Members of a patch object: "{" before the first, "," before the others. */
typedef struct patch {
    jt_buf *b;
    int n;
} patch;

static void member(patch *p, const char *key)
{
    jt_raw(p->b, p->n++ ? "," : "{", 1);
    jt_str(p->b, key, strlen(key));
    jt_raw(p->b, ":", 1);
}

static void end_patch(patch *p)
{
    jt_raw(p->b, p->n ? "}" : "{}", p->n ? 1 : 2);
}

static void index_member(patch *p, int i)
{
    char k[12];
    snprintf(k, sizeof k, "%d", i);
    member(p, k);
}

/* A member of a patch for an array of na -> nb integers (or port names when
 * names is set), as delta.c's diff_array writes it: the whole array when
 * most of it changed, else "$len" and the changed indices. */
static void int_array_change(patch *p, const char *key, const int *a, int na, const int *b, int nb,
                             const char *(*names)(int))
{
    int changed = 0;
    for (int i = 0; i < nb; i++)
        changed += i >= na || a[i] != b[i];
    if (changed == 0 && na == nb)
        return;
    member(p, key);
    jt_buf *o = p->b;
    if (nb > 0 && 2 * changed > nb) {
        jt_raw(o, "[", 1);
        for (int i = 0; i < nb; i++) {
            if (i)
                jt_raw(o, ",", 1);
            if (names)
                jt_str(o, names(b[i]), strlen(names(b[i])));
            else
                jt_int(o, b[i]);
        }
        jt_raw(o, "]", 1);
        return;
    }
    patch q = {o, 0};
    if (na != nb) {
        member(&q, "$len");
        jt_int(o, nb);
    }
    for (int i = 0; i < nb; i++)
        if (i >= na || a[i] != b[i]) {
            index_member(&q, i);
            if (names)
                jt_str(o, names(b[i]), strlen(names(b[i])));
            else
                jt_int(o, b[i]);
        }
    end_patch(&q);
}

/* The ports of the completed features of placed tile i, as carc_state_json
 * lists them in "closed". Returns their number. */
static int closed_ports(const carc_state *s, int i, int *out)
{
    const carc_placed *pl = &s->placed[i];
    const carc_type *ty = &carc_types()[pl->type];
    int n = 0;
    for (int g = 0; g < ty->nseg; g++)
        if (ty->kind[g] != CARC_FIELD && carc_feature_complete(s, pl->node0 + g))
            out[n++] = carc_feature_port(pl->type, pl->rot, g);
    return n;
}

static void letter_text(jt_buf *o, int type)
{
    char s[2] = {carc_types()[type].letter, 0};
    jt_str(o, s, 1);
}

static void board_entry_text(jt_buf *o, const carc_state *s, int i)
{
    const carc_placed *pl = &s->placed[i];
    int closed[CARC_MAX_SEGS];
    int n = closed_ports(s, i, closed);
    jt_raw(o, "{\"x\":", 5);
    jt_int(o, pl->x);
    jt_raw(o, ",\"y\":", 5);
    jt_int(o, pl->y);
    jt_raw(o, ",\"tile\":", 8);
    letter_text(o, pl->type);
    jt_raw(o, ",\"rot\":", 7);
    jt_int(o, pl->rot);
    jt_raw(o, ",\"closed\":[", 11);
    for (int k = 0; k < n; k++) {
        if (k)
            jt_raw(o, ",", 1);
        jt_str(o, carc_port_name(closed[k]), strlen(carc_port_name(closed[k])));
    }
    jt_raw(o, "]}", 2);
}

/* A meeple as carc_state_json lists it: x, y, port, seat. */
typedef struct meeple_view {
    int x, y, port, seat;
} meeple_view;

static meeple_view meeple_of(const carc_state *s, int i)
{
    int node = s->meeple[i].node;
    const carc_placed *pl = &s->placed[s->tile[node]];
    meeple_view v = {pl->x, pl->y, carc_feature_port(pl->type, pl->rot, node - pl->node0),
                     s->meeple[i].player};
    return v;
}

static void meeple_text(jt_buf *o, meeple_view v)
{
    jt_raw(o, "{\"x\":", 5);
    jt_int(o, v.x);
    jt_raw(o, ",\"y\":", 5);
    jt_int(o, v.y);
    jt_raw(o, ",\"port\":", 8);
    jt_str(o, carc_port_name(v.port), strlen(carc_port_name(v.port)));
    jt_raw(o, ",\"seat\":", 8);
    jt_int(o, v.seat);
    jt_raw(o, "}", 1);
}

static int carc_change(const void *from, const void *to, jt_buf *o)
{
    const carc_state *a = from, *b = to;
    size_t start = o->len;
    patch p = {o, 0};
    if (a->turns != b->turns) {
        member(&p, "turn");
        jt_int(o, b->turns);
    }
    if ((a->phase & 3) != (b->phase & 3)) {
        member(&p, "phase");
        jt_str(o, phase_names[b->phase & 3], strlen(phase_names[b->phase & 3]));
    }

    /* board: tiles never move; "closed" only grows; new tiles at the end */
    {
        int na = a->nplaced, nb = b->nplaced, changed = nb > na ? nb - na : 0;
        int ca[CARC_NTILES][CARC_MAX_SEGS], cb[CARC_NTILES][CARC_MAX_SEGS];
        int nca[CARC_NTILES], ncb[CARC_NTILES];
        bool same_tiles = nb >= na;
        for (int i = 0; i < na && i < nb; i++) {
            same_tiles &= a->placed[i].type == b->placed[i].type && a->placed[i].rot == b->placed[i].rot &&
                          a->placed[i].x == b->placed[i].x && a->placed[i].y == b->placed[i].y;
            nca[i] = closed_ports(a, i, ca[i]);
            ncb[i] = closed_ports(b, i, cb[i]);
            bool differ = nca[i] != ncb[i] || memcmp(ca[i], cb[i], sizeof(int) * (size_t)nca[i]) != 0;
            changed += differ;
        }
        if (!same_tiles || a->rules.players != b->rules.players) {
            o->len = start; /* not `to` after `from` in one game: the generic diff */
            return 1;
        }
        if (changed > 0 || na != nb) {
            member(&p, "board");
            if (nb > 0 && 2 * changed > nb) {
                jt_raw(o, "[", 1);
                for (int i = 0; i < nb; i++) {
                    if (i)
                        jt_raw(o, ",", 1);
                    board_entry_text(o, b, i);
                }
                jt_raw(o, "]", 1);
            } else {
                patch q = {o, 0};
                if (na != nb) {
                    member(&q, "$len");
                    jt_int(o, nb);
                }
                for (int i = 0; i < nb; i++) {
                    if (i >= na) {
                        index_member(&q, i);
                        jt_raw(o, "{\"$set\":", 8);
                        board_entry_text(o, b, i);
                        jt_raw(o, "}", 1);
                    } else if (nca[i] != ncb[i] ||
                               memcmp(ca[i], cb[i], sizeof(int) * (size_t)nca[i]) != 0) {
                        index_member(&q, i);
                        patch r = {o, 0};
                        int_array_change(&r, "closed", ca[i], nca[i], cb[i], ncb[i], carc_port_name);
                        end_patch(&r);
                    }
                }
                end_patch(&q);
            }
        }
    }

    /* meeples: compared index by index, as the generic diff does */
    {
        int na = a->nmeeples, nb = b->nmeeples, changed = 0;
        meeple_view va[ENG_MAX_PLAYERS * CARC_MEEPLES], vb[ENG_MAX_PLAYERS * CARC_MEEPLES];
        for (int i = 0; i < na; i++)
            va[i] = meeple_of(a, i);
        for (int i = 0; i < nb; i++) {
            vb[i] = meeple_of(b, i);
            changed += i >= na || memcmp(&va[i], &vb[i], sizeof va[i]) != 0;
        }
        if (changed > 0 || na != nb) {
            member(&p, "meeples");
            if (nb > 0 && 2 * changed > nb) {
                jt_raw(o, "[", 1);
                for (int i = 0; i < nb; i++) {
                    if (i)
                        jt_raw(o, ",", 1);
                    meeple_text(o, vb[i]);
                }
                jt_raw(o, "]", 1);
            } else {
                patch q = {o, 0};
                if (na != nb) {
                    member(&q, "$len");
                    jt_int(o, nb);
                }
                for (int i = 0; i < nb; i++) {
                    if (i >= na) {
                        index_member(&q, i);
                        jt_raw(o, "{\"$set\":", 8);
                        meeple_text(o, vb[i]);
                        jt_raw(o, "}", 1);
                    } else if (memcmp(&va[i], &vb[i], sizeof va[i]) != 0) {
                        index_member(&q, i);
                        patch r = {o, 0};
                        if (va[i].x != vb[i].x)
                            member(&r, "x"), jt_int(o, vb[i].x);
                        if (va[i].y != vb[i].y)
                            member(&r, "y"), jt_int(o, vb[i].y);
                        if (va[i].port != vb[i].port)
                            member(&r, "port"), jt_str(o, carc_port_name(vb[i].port),
                                                       strlen(carc_port_name(vb[i].port)));
                        if (va[i].seat != vb[i].seat)
                            member(&r, "seat"), jt_int(o, vb[i].seat);
                        end_patch(&r);
                    }
                }
                end_patch(&q);
            }
        }
    }

    int npa = a->rules.players, npb = b->rules.players;
    int sa[ENG_MAX_PLAYERS], sb[ENG_MAX_PLAYERS], la[ENG_MAX_PLAYERS], lb[ENG_MAX_PLAYERS];
    for (int i = 0; i < npa; i++)
        sa[i] = a->score[i], la[i] = a->supply[i];
    for (int i = 0; i < npb; i++)
        sb[i] = b->score[i], lb[i] = b->supply[i];
    int_array_change(&p, "scores", sa, npa, sb, npb, NULL);
    int_array_change(&p, "meeples_left", la, npa, lb, npb, NULL);

    {
        patch q = {o, 0};
        for (int t = 0; t < CARC_NTYPES; t++)
            if (a->bag[t] != b->bag[t]) {
                if (q.n == 0)
                    member(&p, "bag");
                char name[2] = {carc_types()[t].letter, 0};
                member(&q, name);
                jt_int(o, b->bag[t]);
            }
        if (q.n)
            end_patch(&q);
    }

    bool da = a->phase == CARC_PLACE || a->phase == CARC_MEEPLE || a->dead;
    bool db = b->phase == CARC_PLACE || b->phase == CARC_MEEPLE || b->dead;
    if (da != db || (db && a->drawn != b->drawn)) {
        member(&p, "tile");
        if (db)
            letter_text(o, b->drawn);
        else
            jt_raw(o, "null", 4);
    }
    if (a->bag_n != b->bag_n) {
        member(&p, "bag_left");
        jt_int(o, b->bag_n);
    }
    if (a->discards != b->discards) {
        member(&p, "discards");
        jt_int(o, b->discards);
    }
    bool ova = a->phase == CARC_OVER, ovb = b->phase == CARC_OVER;
    if (ova != ovb || (!ovb && a->player != b->player)) {
        member(&p, "to_move");
        if (ovb)
            jt_raw(o, "null", 4);
        else
            jt_int(o, b->player);
    }
    end_patch(&p);
    if (o->failed) {
        o->len = start;
        return -1;
    }
    return 0;
}

static json_t *carc_legal(const void *st)
{
    const carc_state *s = st;
    json_t *out = json_array();
    if (s->phase != CARC_PLACE)
        return out;
    eng_move moves[CARC_MAX_MOVES];
    uint8_t segs[CARC_MAX_SEGS];
    int n = carc_game.legal_moves(s, moves);
    for (int i = 0; i < n; i++) {
        int x, y, rot;
        carc_decode_place(s, moves[i], &x, &y, &rot);
        /* the meeple ports without applying the placement to a copy */
        json_t *ports = json_array();
        int k = carc_meeple_options_for(s, moves[i], segs);
        for (int j = 0; j < k; j++)
            json_array_append_new(
                ports, json_string(carc_port_name(carc_feature_port(s->drawn, moves[i] & 3, segs[j]))));
        json_array_append_new(out, json_pack("{s:i, s:i, s:i, s:o}", "x", x, "y", y, "rot", rot,
                                             "meeples", ports));
    }
    return out;
}

/* Protocol 2: each legal placement as one string "x,y,rot" followed by
 * ",PORT" for each meeple port it allows: "3,-2,1,N,C" is {"x":3,"y":-2,
 * "rot":1,"meeples":["N","C"]} of protocol 1, in a third of the bytes. */
static json_t *carc_legal_compact(const void *st)
{
    const carc_state *s = st;
    json_t *out = json_array();
    if (s->phase != CARC_PLACE)
        return out;
    eng_move moves[CARC_MAX_MOVES];
    uint8_t segs[CARC_MAX_SEGS];
    int n = carc_game.legal_moves(s, moves);
    for (int i = 0; i < n; i++) {
        int x, y, rot;
        carc_decode_place(s, moves[i], &x, &y, &rot);
        char e[64];
        int len = snprintf(e, sizeof e, "%d,%d,%d", x, y, rot);
        int k = carc_meeple_options_for(s, moves[i], segs);
        for (int j = 0; j < k && len < (int)sizeof e - 4; j++)
            len += snprintf(e + len, sizeof e - (size_t)len, ",%s",
                            carc_port_name(carc_feature_port(s->drawn, moves[i] & 3, segs[j])));
        json_array_append_new(out, json_string(e));
    }
    return out;
}

static int carc_parse_move(const void *st, const json_t *move, eng_move *out, char *err,
                           size_t errcap)
{
    const carc_state *s = st;
    if (s->phase != CARC_PLACE)
        return eng_seterr(err, errcap, ENG_EILLEGAL_MOVE, "no tile is waiting to be placed");
    json_t *jx, *jy, *jrot, *jm = NULL, *jopts = NULL;
    json_error_t e;
    /* "meeples" is tolerated (and ignored) so that a `legal` entry echoed
     * back unchanged is a valid move: that placement, no meeple */
    if (!json_is_object(move) ||
        json_unpack_ex((json_t *)move, &e, JSON_STRICT, "{s:o, s:o, s:o, s?o, s?o}", "x", &jx, "y",
                       &jy, "rot", &jrot, "meeple", &jm, "meeples", &jopts) != 0) {
        char why[REC_SHAPE_MAX];
        return eng_seterr(err, errcap, ENG_EBAD_MOVE, "a move is {\"x\",\"y\",\"rot\",\"meeple\"}: %s",
                         json_is_object(move) ? rec__shape_error(&e, why) : "not an object");
    }
    (void)jopts;
    if (!json_is_integer(jx) || !json_is_integer(jy) || !json_is_integer(jrot))
        return eng_seterr(err, errcap, ENG_EBAD_MOVE, "x, y and rot must be integers");
    json_int_t x = json_integer_value(jx), y = json_integer_value(jy), rot = json_integer_value(jrot);
    if (rot < 0 || rot > 3)
        return eng_seterr(err, errcap, ENG_EBAD_MOVE, "rot is 0, 1, 2 or 3, not %lld", (long long)rot);
    if (x < -127 || x > 127 || y < -127 || y > 127)
        return eng_seterr(err, errcap, ENG_EILLEGAL_MOVE, "(%lld,%lld) is off any reachable board",
                         (long long)x, (long long)y);
    int port = -1;
    if (jm && !json_is_null(jm)) {
        char q[REC_QUOTE_MAX];
        if (!json_is_string(jm))
            return eng_seterr(err, errcap, ENG_EBAD_MOVE, "meeple must be a port name or null, not %s",
                             rec__type_name(jm));
        port = carc_port_of_name(json_string_value(jm));
        if (port < 0)
            return eng_seterr(err, errcap, ENG_EBAD_MOVE, "meeple %s is not a port name",
                             rec__quote(jm, q));
    }
    char letter = carc_types()[s->drawn].letter;
    if (carc_place_move(s, (int)x, (int)y, (int)rot, &out[0]) != 0)
        return eng_seterr(err, errcap, ENG_EILLEGAL_MOVE,
                         "tile %c cannot be placed at (%lld,%lld) with rot %lld: %s", letter,
                         (long long)x, (long long)y, (long long)rot,
                         carc_tile_at(s, (int)x, (int)y) ? "the cell is taken"
                                                         : "it must touch a tile and every "
                                                           "touching edge must match");
    carc_state tmp;
    memcpy(&tmp, s, sizeof tmp);
    carc_game.apply(&tmp, out[0]);
    if (carc_meeple_move(&tmp, port, &out[1]) != 0)
        return eng_seterr(err, errcap, ENG_EILLEGAL_MOVE,
                         tmp.supply[tmp.player] == 0
                             ? "no meeple left to place on %s"
                             : "no meeple may go on %s: no free feature of the placed tile there",
                         carc_port_name(port));
    return 2;
}

static json_t *carc_format_move(const void *st, const eng_move *moves, int n)
{
    const carc_state *s = st;
    int x, y, rot;
    if (n < 1 || carc_decode_place(s, moves[0], &x, &y, &rot) != 0)
        return json_null();
    json_t *o = json_pack("{s:i, s:i, s:i}", "x", x, "y", y, "rot", rot);
    if (n > 1 && moves[1] != CARC_NO_MEEPLE) {
        carc_state tmp;
        memcpy(&tmp, s, sizeof tmp);
        carc_game.apply(&tmp, moves[0]);
        json_object_set_new(o, "meeple", json_string(carc_port_name(carc_decode_meeple(&tmp, moves[1]))));
    } else {
        json_object_set_new(o, "meeple", json_null());
    }
    return o;
}

const wire_game wire_carcassonne = {
    .game = "carcassonne",
    .info = carc_info,
    .state = carc_state_json,
    .legal = carc_legal,
    .legal_compact = carc_legal_compact,
    .change = carc_change,
    .next = carc_next,
    .parse_move = carc_parse_move,
    .format_move = carc_format_move,
};
