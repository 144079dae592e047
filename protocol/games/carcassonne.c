/*
 * carcassonne.c (protocol) — Carcassonne's JSON: records and the wire
 * (protocol/codec.h; docs/records.md, docs/protocol.md).
 *
 * One record turn is one draw: the chance outcome (the tile letter), then
 * either the placement and the meeple, or the discard of a tile that fits
 * nowhere (the same player then draws again):
 *
 *   {"player":0,"tile":"V","x":1,"y":0,"rot":1,"meeple":"S"}
 *   {"player":0,"tile":"V","x":1,"y":0,"rot":1}             (no meeple; "meeple":null too)
 *   {"player":1,"tile":"H","discarded":true}
 *
 * Writing uses the engine's canonical rotation and preferred port; reading
 * accepts any rotation that gives the same tile on the board and any port of
 * the chosen feature (carc_place_move / carc_meeple_move map them). Reading
 * checks every value before it touches the engine, and when the engine says
 * "illegal" it works out why (occupied, not adjacent, which edge clashes,
 * feature taken, no meeple left, ...) so a user can fix the record.
 *
 * On the wire a move is the whole decision of a turn, {"x","y","rot",
 * "meeple"}: the placement of the drawn tile and the meeple (a port, or
 * null/absent). A `legal` entry is a placement with the meeple ports it
 * allows ("meeples"; pick_entry picks one or none). The public state holds
 * what everyone at the table sees: the board, the meeples, scores, the tile
 * being played and how many tiles of each type are left; never the order of
 * the bag (the engine state does not know it either: the server draws with
 * its own secret generator). The tile drawn is the public chance outcome in
 * an update's `next`; a turn of a tile that fits nowhere is a "dead tile".
 */
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "patch.h"
#include "engine/carcassonne/carcassonne.h"

/* ---- records ---- */

/* Board coordinates any reachable cell can have: 71 tiles from the start
 * tile reach at most 71 cells away, and the engine stores int8 coordinates. */
#define COORD_MAX 127

static const char *const kind_names[] = {"nothing", "city", "road", "field", "cloister"};
static const char *const side_names[4] = {"N", "E", "S", "W"};

static const char *kind_name(int k)
{
    return k >= 0 && k <= CARC_CLOISTER ? kind_names[k] : "?";
}

/* ---- writing --------------------------------------------------------------- */

static json_t *carc_encode_turn(void *st, const eng_move *moves, int n, int *pos, bool *cut,
                                char *err, size_t errcap)
{
    carc_state *s = st;
    const carc_type *types = carc_types();
    int i = *pos;
    if (s->phase != CARC_DRAW)
        return eng_seterr(err, errcap, ENG_EINVAL, "move %d: not at a draw", i + 1), NULL;
    int player = s->player;
    eng_move t = moves[i];
    if (t < 0 || t >= CARC_NTYPES || s->bag[t] == 0) {
        eng_seterr(err, errcap, ENG_EINVAL, "move %d: %d is not a tile in the bag", i + 1, (int)t);
        return NULL;
    }
    char letter[2] = {types[t].letter, 0};
    bool placeable = carc_count_placements(s, t) > 0;
    carc_game.apply(s, t);
    if (!placeable) {
        *pos = i + 1;
        return json_pack("{s:i, s:s, s:b}", "player", player, "tile", letter, "discarded", 1);
    }

    /* The turn goes on: a placement, then a meeple step. Moves that stop
     * inside it are a turn cut short, reported after checking those given. */
    int x, y, rot;
    if (i + 1 >= n) {
        *cut = true;
        eng_seterr(err, errcap, ENG_EINVAL, "the moves end inside the turn that drew move %d",
                  i + 1);
        return NULL;
    }
    if (!eng_is_legal(&carc_game, s, moves[i + 1]) ||
        carc_decode_place(s, moves[i + 1], &x, &y, &rot) != 0) {
        eng_seterr(err, errcap, ENG_EINVAL, "move %d: %d is not a legal placement", i + 2,
                  (int)moves[i + 1]);
        return NULL;
    }
    rot = types[t].canon[rot];
    carc_game.apply(s, moves[i + 1]);
    if (i + 2 >= n) {
        *cut = true;
        eng_seterr(err, errcap, ENG_EINVAL, "the moves end inside the turn that drew move %d",
                   i + 1);
        return NULL;
    }
    if (!eng_is_legal(&carc_game, s, moves[i + 2])) {
        eng_seterr(err, errcap, ENG_EINVAL, "move %d: %d is not a legal meeple move", i + 3,
                  (int)moves[i + 2]);
        return NULL;
    }
    int port = carc_decode_meeple(s, moves[i + 2]);
    carc_game.apply(s, moves[i + 2]);
    *pos = i + 3;

    json_t *turn = json_pack("{s:i, s:s, s:i, s:i, s:i}", "player", player, "tile", letter, "x",
                             x, "y", y, "rot", rot);
    if (turn && port >= 0 && json_object_set_new(turn, "meeple", json_string(carc_port_name(port)))) {
        json_decref(turn);
        turn = NULL;
    }
    if (!turn)
        eng_seterr(err, errcap, ENG_ENOMEM, "out of memory");
    return turn;
}

/* ---- reading --------------------------------------------------------------- */

/* An integer member (present, checked by the caller) as a long long. */
static int get_int(const json_t *v, const char *name, long long *out, char *err, size_t errcap)
{
    if (!json_is_integer(v))
        return eng_seterr(err, errcap, ENG_EBAD_RECORD, "%s must be an integer, not %s", name,
                         rec__type_name(v));
    *out = (long long)json_integer_value(v);
    return 0;
}

/* Why placing tile t at (x, y) in rotation rot is illegal. */
static int explain_place(const carc_state *s, int t, long long x, long long y, int rot,
                         char *err, size_t errcap)
{
    const carc_type *ty = &carc_types()[t];
    if (x < -COORD_MAX || x > COORD_MAX || y < -COORD_MAX || y > COORD_MAX)
        return eng_seterr(err, errcap, ENG_EILLEGAL_MOVE,
                         "tile %c at (%lld, %lld): not next to any tile", ty->letter, x, y);
    const carc_placed *pl = carc_tile_at(s, (int)x, (int)y);
    if (pl)
        return eng_seterr(err, errcap, ENG_EILLEGAL_MOVE,
                         "tile %c at (%lld, %lld): the cell is occupied by tile %c", ty->letter, x,
                         y, carc_types()[pl->type].letter);
    const carc_open *o = carc_open_at(s, (int)x, (int)y);
    if (!o)
        return eng_seterr(err, errcap, ENG_EILLEGAL_MOVE,
                         "tile %c at (%lld, %lld): not next to any tile", ty->letter, x, y);
    const carc_tile *rt = &ty->rot[rot];
    for (int d = 0; d < 4; d++) {
        int need = (o->pattern >> (2 * d)) & 3;
        if (need && need != rt->edge[d])
            return eng_seterr(err, errcap, ENG_EILLEGAL_MOVE,
                             "tile %c rot %d at (%lld, %lld): its %s edge (%s) meets a %s",
                             ty->letter, rot, x, y, side_names[d], kind_name(rt->edge[d]),
                             kind_name(need));
    }
    /* Unreachable if the engine and this check agree; say so rather than guess. */
    return eng_seterr(err, errcap, ENG_EILLEGAL_MOVE, "tile %c rot %d does not fit at (%lld, %lld)",
                     ty->letter, rot, x, y);
}

/* Why a meeple on `port` of the tile just placed is illegal. */
static int explain_meeple(const carc_state *s, int port, char *err, size_t errcap)
{
    const carc_placed *pl = &s->placed[s->nplaced - 1];
    const carc_type *ty = &carc_types()[pl->type];
    const char *pn = carc_port_name(port);
    uint8_t seg = ty->rot[pl->rot].seg[port];
    if (seg == 0xff)
        return eng_seterr(err, errcap, ENG_EILLEGAL_MOVE, "meeple %s: tile %c has no feature there",
                         pn, ty->letter);
    if (s->supply[s->player] == 0)
        return eng_seterr(err, errcap, ENG_EILLEGAL_MOVE,
                         "meeple %s: player %d has no meeples left", pn, s->player);
    if (ty->kind[seg] == CARC_FIELD && !s->rules.opt[CARC_OPT_FARMS])
        return eng_seterr(err, errcap, ENG_EILLEGAL_MOVE,
                         "meeple %s: no meeple may stand on a field when farms is false", pn);
    if (s->mee[carc_root(s, pl->node0 + seg)] != 0)
        return eng_seterr(err, errcap, ENG_EILLEGAL_MOVE,
                         "meeple %s: the %s there already has a meeple", pn,
                         kind_name(ty->kind[seg]));
    return eng_seterr(err, errcap, ENG_EILLEGAL_MOVE, "meeple %s: not a legal meeple placement",
                     pn);
}

static int carc_apply_turn(void *st, const json_t *turn, eng_move *moves, int *nmoves,
                           char *err, size_t errcap)
{
    carc_state *s = st;
    json_t *jplayer = NULL, *jtile = NULL, *jx = NULL, *jy = NULL, *jrot = NULL;
    json_t *jmeeple = NULL, *jdiscarded = NULL;
    json_error_t jerr;
    char shape[REC_SHAPE_MAX];

    /* A turn starts at a draw; a state inside a turn (after the draw or the
     * placement) would be read as the wrong kind of move. */
    if (s->phase != CARC_DRAW)
        return eng_seterr(err, errcap, ENG_EILLEGAL_MOVE,
                         "a turn must start from a draw, not from inside a turn");

    /* Shape: exactly these keys, player and tile required. */
    if (json_unpack_ex((json_t *)turn, &jerr, JSON_STRICT, "{s:o, s:o, s?o, s?o, s?o, s?o, s?o}",
                       "player", &jplayer, "tile", &jtile, "x", &jx, "y", &jy, "rot", &jrot,
                       "meeple", &jmeeple, "discarded", &jdiscarded) != 0)
        return eng_seterr(err, errcap, ENG_EBAD_RECORD, "turn: %s",
                         rec__shape_error(&jerr, shape));

    /* Types. */
    long long player = 0, x = 0, y = 0, rot = 0;
    int rc = get_int(jplayer, "player", &player, err, errcap);
    if (rc)
        return rc;
    if (!json_is_string(jtile))
        return eng_seterr(err, errcap, ENG_EBAD_RECORD, "tile must be a string, not %s",
                         rec__type_name(jtile));
    if (jdiscarded && !json_is_boolean(jdiscarded))
        return eng_seterr(err, errcap, ENG_EBAD_RECORD, "discarded must be true or false, not %s",
                         rec__type_name(jdiscarded));
    bool discarded = jdiscarded && json_is_true(jdiscarded);
    if (discarded) {
        if (jx || jy || jrot || jmeeple)
            return eng_seterr(err, errcap, ENG_EBAD_RECORD,
                             "a discard turn has no x, y, rot or meeple");
    } else {
        if (!jx || !jy || !jrot)
            return eng_seterr(err, errcap, ENG_EBAD_RECORD,
                             "a placed tile needs x, y and rot (or \"discarded\": true)");
        if ((rc = get_int(jx, "x", &x, err, errcap)) || (rc = get_int(jy, "y", &y, err, errcap)) ||
            (rc = get_int(jrot, "rot", &rot, err, errcap)))
            return rc;
        if (jmeeple && !json_is_string(jmeeple) && !json_is_null(jmeeple))
            return eng_seterr(err, errcap, ENG_EBAD_RECORD,
                             "meeple must be a port name or null, not %s",
                             rec__type_name(jmeeple));
    }

    /* Values: the tile letter, the rotation, the port name, all canonical. */
    char q[REC_QUOTE_MAX];
    const char *ts = json_string_value(jtile);
    int t = json_string_length(jtile) == 1 && ts[0] >= 'A' && ts[0] <= 'X'
                ? carc_type_of_letter(ts[0])
                : -1;
    if (t < 0)
        return eng_seterr(err, errcap, ENG_EBAD_MOVE,
                         "tile %s is not a tile letter (upper case A to X)", rec__quote(jtile, q));
    if (!discarded && (rot < 0 || rot > 3))
        return eng_seterr(err, errcap, ENG_EBAD_MOVE, "rot must be 0, 1, 2 or 3, not %lld", rot);
    int port = -1;
    if (jmeeple && json_is_string(jmeeple)) {
        const char *ps = json_string_value(jmeeple);
        /* strlen: a string built in C (not parsed) may hold a NUL */
        port = json_string_length(jmeeple) == strlen(ps) ? carc_port_of_name(ps) : -1;
        if (port < 0 || strcmp(ps, carc_port_name(port)) != 0)
            return eng_seterr(err, errcap, ENG_EBAD_MOVE,
                             "meeple %s is not a port name (upper case: N E S W, NW NE "
                             "EN ES SE SW WS WN, C)",
                             rec__quote(jmeeple, q));
    }

    /* Rules: the draw. */
    if (player != s->player)
        return eng_seterr(err, errcap, ENG_EILLEGAL_MOVE, "player %lld is not to move (player %d is)",
                         player, s->player);
    if (s->bag[t] == 0)
        return eng_seterr(err, errcap, ENG_EILLEGAL_MOVE,
                         "no tile %c is left in the bag (the game has %d)", ts[0],
                         carc_types()[t].count);
    int fits = carc_count_placements(s, t);
    if (discarded && fits > 0)
        return eng_seterr(err, errcap, ENG_EILLEGAL_MOVE,
                         "tile %c cannot be discarded: it fits in %d place%s", ts[0], fits,
                         fits == 1 ? "" : "s");
    if (!discarded && fits == 0)
        return eng_seterr(err, errcap, ENG_EILLEGAL_MOVE,
                         "tile %c fits nowhere on the board; the turn must discard it", ts[0]);
    rec__applied(moves, nmoves, t);
    carc_game.apply(s, t);
    if (discarded)
        return 0;

    /* The placement. */
    eng_move m;
    if (x < -COORD_MAX || x > COORD_MAX || y < -COORD_MAX || y > COORD_MAX ||
        carc_place_move(s, (int)x, (int)y, (int)rot, &m) != 0)
        return explain_place(s, t, x, y, (int)rot, err, errcap);
    rec__applied(moves, nmoves, m);
    carc_game.apply(s, m);

    /* The meeple. */
    if (carc_meeple_move(s, port, &m) != 0)
        return explain_meeple(s, port, err, errcap);
    rec__applied(moves, nmoves, m);
    carc_game.apply(s, m);
    return 0;
}

/* ---- the wire ---- */

static const char *const phase_names[] = {"draw", "place", "meeple", "over"};

/* The letter naming each feature of a tile type in its port map: c/d
 * cities, r/s/t/u roads, f/g/h/i fields, k cloister, in feature order. */
static void seg_letters(const carc_type *t, char seg_letter[CARC_MAX_SEGS])
{
    static const char *const letters[] = {"", "cd", "rstu", "fghi", "k"};
    int used[5] = {0};
    for (int s = 0; s < t->nseg; s++)
        seg_letter[s] = letters[t->kind[s]][used[t->kind[s]]++];
}

/* The unrotated port map of a tile type, one letter per port naming its
 * feature ('.' none). */
static void port_map(const carc_type *t, char out[CARC_NPORTS + 1])
{
    char seg_letter[CARC_MAX_SEGS];
    seg_letters(t, seg_letter);
    for (int p = 0; p < CARC_NPORTS; p++) {
        uint8_t s = t->rot[0].seg[p];
        out[p] = s == 0xff ? '.' : seg_letter[s];
    }
    out[CARC_NPORTS] = 0;
}

/* Each field of a tile type and the cities it touches (what a field scores
 * at the end): {"f":"c","g":""} — field letter to city letters. */
static json_t *field_cities(const carc_type *t)
{
    char seg_letter[CARC_MAX_SEGS];
    seg_letters(t, seg_letter);
    json_t *o = json_object();
    for (int s = 0; s < t->nseg; s++) {
        if (t->kind[s] != CARC_FIELD)
            continue;
        char name[2] = {seg_letter[s], 0}, cities[CARC_MAX_SEGS + 1];
        int n = 0;
        for (int c = 0; c < t->nseg; c++)
            if (t->cities[s] & (1u << c))
                cities[n++] = seg_letter[c];
        cities[n] = 0;
        json_object_set_new(o, name, json_string(cities));
    }
    return o;
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
                            json_pack("{s:i, s:s, s:b, s:o}", "count", types[i].count, "ports",
                                      map, "pennant", pennant, "field_cities",
                                      field_cities(&types[i])));
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

/* ---- protocol 2: the change between two states, as delta_diff writes it -- */

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

static void letter_text(textbuf *o, int type)
{
    char s[2] = {carc_types()[type].letter, 0};
    jt_str(o, s, 1);
}

static void board_entry_text(textbuf *o, const carc_state *s, int i)
{
    const carc_placed *pl = &s->placed[i];
    int closed[CARC_MAX_SEGS];
    int n = closed_ports(s, i, closed);
    tb_put(o, "{\"x\":", 5);
    jt_int(o, pl->x);
    tb_put(o, ",\"y\":", 5);
    jt_int(o, pl->y);
    tb_put(o, ",\"tile\":", 8);
    letter_text(o, pl->type);
    tb_put(o, ",\"rot\":", 7);
    jt_int(o, pl->rot);
    tb_put(o, ",\"closed\":[", 11);
    for (int k = 0; k < n; k++) {
        if (k)
            tb_put(o, ",", 1);
        jt_str(o, carc_port_name(closed[k]), strlen(carc_port_name(closed[k])));
    }
    tb_put(o, "]}", 2);
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

static void meeple_text(textbuf *o, meeple_view v)
{
    tb_put(o, "{\"x\":", 5);
    jt_int(o, v.x);
    tb_put(o, ",\"y\":", 5);
    jt_int(o, v.y);
    tb_put(o, ",\"port\":", 8);
    jt_str(o, carc_port_name(v.port), strlen(carc_port_name(v.port)));
    tb_put(o, ",\"seat\":", 8);
    jt_int(o, v.seat);
    tb_put(o, "}", 1);
}

static int carc_change(const void *from, const void *to, textbuf *o)
{
    const carc_state *a = from, *b = to;
    size_t start = o->len;
    patch p = {o, 0};
    if (a->turns != b->turns) {
        patch_member(&p, "turn");
        jt_int(o, b->turns);
    }
    if ((a->phase & 3) != (b->phase & 3)) {
        patch_member(&p, "phase");
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
            tb_cut(o, start); /* not `to` after `from` in one game: the generic diff */
            return 1;
        }
        if (changed > 0 || na != nb) {
            patch_member(&p, "board");
            if (nb > 0 && 2 * changed > nb) {
                tb_put(o, "[", 1);
                for (int i = 0; i < nb; i++) {
                    if (i)
                        tb_put(o, ",", 1);
                    board_entry_text(o, b, i);
                }
                tb_put(o, "]", 1);
            } else {
                patch q = {o, 0};
                if (na != nb) {
                    patch_member(&q, "$len");
                    jt_int(o, nb);
                }
                for (int i = 0; i < nb; i++) {
                    if (i >= na) {
                        patch_index(&q, i);
                        tb_put(o, "{\"$set\":", 8);
                        board_entry_text(o, b, i);
                        tb_put(o, "}", 1);
                    } else if (nca[i] != ncb[i] ||
                               memcmp(ca[i], cb[i], sizeof(int) * (size_t)nca[i]) != 0) {
                        patch_index(&q, i);
                        patch r = {o, 0};
                        patch_ints(&r, "closed", ca[i], nca[i], cb[i], ncb[i], carc_port_name);
                        patch_end(&r);
                    }
                }
                patch_end(&q);
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
            patch_member(&p, "meeples");
            if (nb > 0 && 2 * changed > nb) {
                tb_put(o, "[", 1);
                for (int i = 0; i < nb; i++) {
                    if (i)
                        tb_put(o, ",", 1);
                    meeple_text(o, vb[i]);
                }
                tb_put(o, "]", 1);
            } else {
                patch q = {o, 0};
                if (na != nb) {
                    patch_member(&q, "$len");
                    jt_int(o, nb);
                }
                for (int i = 0; i < nb; i++) {
                    if (i >= na) {
                        patch_index(&q, i);
                        tb_put(o, "{\"$set\":", 8);
                        meeple_text(o, vb[i]);
                        tb_put(o, "}", 1);
                    } else if (memcmp(&va[i], &vb[i], sizeof va[i]) != 0) {
                        patch_index(&q, i);
                        patch r = {o, 0};
                        if (va[i].x != vb[i].x)
                            patch_member(&r, "x"), jt_int(o, vb[i].x);
                        if (va[i].y != vb[i].y)
                            patch_member(&r, "y"), jt_int(o, vb[i].y);
                        if (va[i].port != vb[i].port)
                            patch_member(&r, "port"), jt_str(o, carc_port_name(vb[i].port),
                                                       strlen(carc_port_name(vb[i].port)));
                        if (va[i].seat != vb[i].seat)
                            patch_member(&r, "seat"), jt_int(o, vb[i].seat);
                        patch_end(&r);
                    }
                }
                patch_end(&q);
            }
        }
    }

    int npa = a->rules.players, npb = b->rules.players;
    int sa[ENG_MAX_PLAYERS], sb[ENG_MAX_PLAYERS], la[ENG_MAX_PLAYERS], lb[ENG_MAX_PLAYERS];
    for (int i = 0; i < npa; i++)
        sa[i] = a->score[i], la[i] = a->supply[i];
    for (int i = 0; i < npb; i++)
        sb[i] = b->score[i], lb[i] = b->supply[i];
    patch_ints(&p, "scores", sa, npa, sb, npb, NULL);
    patch_ints(&p, "meeples_left", la, npa, lb, npb, NULL);

    {
        patch q = {o, 0};
        for (int t = 0; t < CARC_NTYPES; t++)
            if (a->bag[t] != b->bag[t]) {
                if (q.n == 0)
                    patch_member(&p, "bag");
                char name[2] = {carc_types()[t].letter, 0};
                patch_member(&q, name);
                jt_int(o, b->bag[t]);
            }
        if (q.n)
            patch_end(&q);
    }

    bool da = a->phase == CARC_PLACE || a->phase == CARC_MEEPLE || a->dead;
    bool db = b->phase == CARC_PLACE || b->phase == CARC_MEEPLE || b->dead;
    if (da != db || (db && a->drawn != b->drawn)) {
        patch_member(&p, "tile");
        if (db)
            letter_text(o, b->drawn);
        else
            tb_put(o, "null", 4);
    }
    if (a->bag_n != b->bag_n) {
        patch_member(&p, "bag_left");
        jt_int(o, b->bag_n);
    }
    if (a->discards != b->discards) {
        patch_member(&p, "discards");
        jt_int(o, b->discards);
    }
    bool ova = a->phase == CARC_OVER, ovb = b->phase == CARC_OVER;
    if (ova != ovb || (!ovb && a->player != b->player)) {
        patch_member(&p, "to_move");
        if (ovb)
            tb_put(o, "null", 4);
        else
            jt_int(o, b->player);
    }
    patch_end(&p);
    if (o->failed) {
        tb_cut(o, start);
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
/* The decimal text of v (|v| < 1000, a board coordinate) at p; returns its
 * length. */
static size_t put_small_int(char *p, int v)
{
    size_t n = 0;
    if (v < 0) {
        p[n++] = '-';
        v = -v;
    }
    if (v >= 100)
        p[n++] = (char)('0' + v / 100);
    if (v >= 10)
        p[n++] = (char)('0' + v / 10 % 10);
    p[n++] = (char)('0' + v % 10);
    return n;
}

/* The compact entry of placement `mv` ("x,y,rot[,PORT...]") into e (at
 * least 64 bytes): its length. Written by hand: snprintf was a tenth of a
 * relayed move's cost. ASCII digits, commas and port names only. */
static size_t compact_entry(const carc_state *s, eng_move mv, char *e, size_t cap)
{
    uint8_t segs[CARC_MAX_SEGS];
    int x, y, rot;
    carc_decode_place(s, mv, &x, &y, &rot);
    size_t len = put_small_int(e, x);
    e[len++] = ',';
    len += put_small_int(e + len, y);
    e[len++] = ',';
    e[len++] = (char)('0' + rot);
    int k = carc_meeple_options_for(s, mv, segs);
    for (int j = 0; j < k; j++) {
        const char *port = carc_port_name(carc_feature_port(s->drawn, mv & 3, segs[j]));
        size_t pl = strlen(port);
        if (len + 1 + pl > cap)
            break;
        e[len++] = ',';
        memcpy(e + len, port, pl);
        len += pl;
    }
    return len;
}

static json_t *carc_legal_compact(const void *st)
{
    const carc_state *s = st;
    json_t *out = json_array();
    if (s->phase != CARC_PLACE)
        return out;
    eng_move moves[CARC_MAX_MOVES];
    int n = carc_game.legal_moves(s, moves);
    for (int i = 0; i < n; i++) {
        char e[64];
        size_t len = compact_entry(s, moves[i], e, sizeof e);
        /* no UTF-8 to check (compact_entry) */
        json_array_append_new(out, json_stringn_nocheck(e, len));
    }
    return out;
}

/* The same array as text: no escaping is needed (compact_entry). */
static int carc_legal_compact_text(const void *st, textbuf *out)
{
    const carc_state *s = st;
    eng_move moves[CARC_MAX_MOVES];
    int n = s->phase == CARC_PLACE ? carc_game.legal_moves(s, moves) : 0;
    int rc = tb_put(out, "[", 1);
    for (int i = 0; i < n && rc == 0; i++) {
        char e[68];
        e[0] = i ? ',' : '"';
        size_t at = i ? 2 : 1;
        if (i)
            e[1] = '"';
        size_t len = at + compact_entry(s, moves[i], e + at, 64);
        e[len++] = '"';
        rc = tb_put(out, e, len);
    }
    return rc ? rc : tb_put(out, "]", 1);
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

/* A `legal` entry lists the meeple ports its placement allows: one of
 * them, or none, uniformly. */
static json_t *carc_pick_entry(const json_t *entry, eng_rng *rng)
{
    json_t *m = json_deep_copy(entry);
    json_t *opts = json_object_get(m, "meeples");
    if (json_is_array(opts)) {
        size_t k = json_array_size(opts);
        size_t j = eng_rng_below(rng, (uint32_t)k + 1);
        json_object_set_new(m, "meeple", j < k ? json_incref(json_array_get(opts, j)) : json_null());
        json_object_del(m, "meeples");
    }
    return m;
}

/* The tile in play (drawn, or drawn and dead), as an update's `next` shows
 * it: {"tile":"V"}; {"tile":null} between turns. */
static json_t *carc_next_chance(const void *st)
{
    const carc_state *s = st;
    bool deciding = s->phase == CARC_PLACE || s->phase == CARC_MEEPLE || s->dead;
    return json_pack("{s:o}", "tile", deciding ? letter_json(s->drawn) : json_null());
}

const game_codec codec_carcassonne = {
    .game = "carcassonne",
    .info = carc_info,
    .state = carc_state_json,
    .legal = carc_legal,
    .legal_compact = carc_legal_compact,
    .legal_compact_text = carc_legal_compact_text,
    .change = carc_change,
    .parse_move = carc_parse_move,
    .format_move = carc_format_move,
    .pick_entry = carc_pick_entry,
    .next_chance = carc_next_chance,
    .no_decision = "dead tile",
    .encode_turn = carc_encode_turn,
    .apply_turn = carc_apply_turn,
};
