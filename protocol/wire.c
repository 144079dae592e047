/*
 * wire.c — the game-agnostic half of the wire protocol's game JSON: the
 * `games` entry of a game, rules to/from JSON, one turn in record form for
 * `update.record`, the `next` of an update, and the replay of a whole
 * record with the public state after every turn. The per-game half is the
 * game's codec (protocol/codec.h).
 */
#include "wire.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "games/common.h"

json_t *wire_rules_json(const eng_game *g, const eng_rules *r)
{
    return rec__rules_json(g, r);
}

int wire_rules_parse(const eng_game *g, const json_t *obj, int nseats, eng_rules *out, char *err,
                     size_t errcap)
{
    return rec__rules_parse(g, obj, false, nseats, out, err, errcap);
}

json_t *wire_game_entry(const eng_game *g)
{
    json_t *rules = json_array();
    for (int i = 0; i < g->n_options; i++) {
        const eng_option *o = &g->options[i];
        json_t *e = json_pack("{s:s, s:b, s:s}", "name", o->name, "boolean", o->boolean, "help",
                              o->help);
        if (o->boolean) {
            json_object_set_new(e, "default", json_boolean(o->def));
        } else {
            json_object_set_new(e, "default", json_integer(o->def));
            json_object_set_new(e, "min", json_integer(o->min));
            json_object_set_new(e, "max", json_integer(o->max));
        }
        json_array_append_new(rules, e);
    }
    json_t *o = json_pack("{s:s, s:s, s:i, s:i, s:i, s:b, s:o}", "name", g->name, "title", g->title,
                          "min_players", g->min_players, "max_players", g->max_players,
                          "default_players", g->default_players, "chance", g->max_chance > 0,
                          "rules", rules);
    const game_codec *w = codec_find(g->name);
    json_t *info = w && w->info ? w->info() : NULL;
    if (info) {
        json_object_update(o, info);
        json_decref(info);
    }
    return o;
}

json_t *wire_games_json(void)
{
    int n;
    const eng_game *const *all = eng_games(&n);
    json_t *arr = json_array();
    for (int i = 0; arr && i < n; i++)
        if (codec_find(all[i]->name))
            json_array_append_new(arr, wire_game_entry(all[i]));
    return arr;
}

json_t *wire_record_turn(const eng_game *g, const void *turn_start, const eng_move *moves, int n,
                         char *err, size_t errcap)
{
    const game_codec *c = codec_find(g->name);
    if (!c) {
        snprintf(err, errcap, "%s has no record codec", g->name);
        return NULL;
    }
    unsigned char *st = malloc(g->state_size);
    if (!st) {
        snprintf(err, errcap, "out of memory");
        return NULL;
    }
    memcpy(st, turn_start, g->state_size);
    int pos = 0;
    bool cut = false;
    json_t *t = c->encode_turn(st, moves, n, &pos, &cut, err, errcap);
    free(st);
    if (t && pos != n) {
        snprintf(err, errcap, "the moves hold more than one turn");
        json_decref(t);
        return NULL;
    }
    return t;
}

json_t *wire_next(const eng_game *g, const void *st)
{
    int p = eng_turn_seat(g, st);
    if (p < 0)
        return json_null();
    json_t *next = json_pack("{s:i}", "seat", p);
    const game_codec *c = codec_find(g->name);
    json_t *chance = c && c->next_chance ? c->next_chance(st) : NULL;
    if (next && chance)
        json_object_update(next, chance);
    json_decref(chance);
    return next ? next : json_null();
}

/* ---- replay: every turn's public state, computed by the engine ------------- */

typedef struct replay_acc {
    const rec_replay *out; /* its game is known before the first turn */
    const game_codec *wire;
    json_t *turns;
    bool failed; /* no wire codec, or out of memory */
} replay_acc;

static void replay_turn(void *ud, int turn, const json_t *turn_json, const void *state)
{
    (void)turn;
    replay_acc *a = ud;
    const eng_game *g = a->out->game;
    if (!a->wire)
        a->wire = codec_find(g->name);
    if (!a->wire || a->failed) {
        a->failed = true;
        return;
    }
    double sc[ENG_MAX_PLAYERS];
    g->scores(state, sc);
    json_t *scores = json_array();
    for (int p = 0; p < eng_num_players(state); p++)
        json_array_append_new(scores, json_integer((json_int_t)llround(sc[p])));
    json_t *entry = json_pack("{s:O, s:o, s:o}", "record", turn_json, "state",
                              a->wire->state(state), "scores", scores);
    if (!entry || json_array_append_new(a->turns, entry))
        a->failed = true;
}

json_t *wire_replay(const json_t *rec, rec_replay *out, int *code, char *msg, size_t msgcap)
{
    rec_replay scratch;
    if (!out)
        out = &scratch;
    replay_acc acc = {out, NULL, json_array(), false};
    if (!acc.turns) {
        *code = ENG_ENOMEM;
        snprintf(msg, msgcap, "out of memory");
        return NULL;
    }
    int rc = rec_replay_json(rec, replay_turn, &acc, out);
    if (rc) {
        *code = rc;
        if (out->bad_turn > 0)
            snprintf(msg, msgcap, "turn %d: %s", out->bad_turn, out->reason);
        else
            snprintf(msg, msgcap, "%s", out->reason);
        json_decref(acc.turns);
        return NULL;
    }
    const eng_game *g = out->game;
    const game_codec *w = acc.wire ? acc.wire : codec_find(g->name);
    if (!w) {
        *code = ENG_EUNKNOWN_GAME;
        snprintf(msg, msgcap, "the server cannot show %s states", g->name);
        json_decref(acc.turns);
        return NULL;
    }
    unsigned char *st = malloc(g->state_size);
    json_t *initial = NULL;
    if (st) {
        g->init(st, &out->rules);
        initial = w->state(st);
        free(st);
    }
    json_t *r = json_object();
    bool ok = !acc.failed && initial && r &&
              !json_object_set_new(r, "game", json_string(g->name)) &&
              !json_object_set_new(r, "rules", rec__rules_json(g, &out->rules)) &&
              !json_object_set(r, "initial", initial) && !json_object_set(r, "turns", acc.turns) &&
              !json_object_set_new(r, "finished", json_boolean(out->finished));
    json_decref(initial);
    json_decref(acc.turns);
    if (!ok) {
        json_decref(r);
        *code = ENG_ENOMEM;
        snprintf(msg, msgcap, "out of memory");
        return NULL;
    }
    return r;
}
