/*
 * wire.c — the game-agnostic half of the wire protocol's game JSON: the
 * registry of per-game wire codecs, the `games` entry of a game, rules
 * to/from JSON, and one turn in record form for `update.record`.
 */
#include "wire.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "games/codec.h"

extern const wire_game wire_carcassonne;
extern const wire_game wire_reversi;

static const wire_game *const codecs[] = {
    &wire_carcassonne,
    &wire_reversi,
};

const wire_game *wire_find(const char *game)
{
    if (!game)
        return NULL;
    for (size_t i = 0; i < sizeof codecs / sizeof codecs[0]; i++)
        if (strcmp(codecs[i]->game, game) == 0)
            return codecs[i];
    return NULL;
}

json_t *wire_rules_json(const eng_game *g, const eng_rules *r)
{
    json_t *o = json_pack("{s:i}", "players", (int)r->players);
    for (int i = 0; i < g->n_options; i++)
        json_object_set_new(o, g->options[i].name,
                            g->options[i].boolean ? json_boolean(r->opt[i] != 0)
                                                  : json_integer(r->opt[i]));
    return o;
}

int wire_rules_parse(const eng_game *g, const json_t *obj, int nseats, eng_rules *out, char *err,
                     size_t errcap)
{
    eng_rules_default(g, out);
    if (nseats > 0)
        out->players = nseats;
    if (obj && !json_is_object(obj))
        return eng_seterr(err, errcap, ENG_EBAD_RULE, "rules must be an object, not %s",
                         rec__type_name(obj));
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)obj, key, v)
    {
        char kq[REC_QUOTE_MAX];
        json_t *ks = json_string(key);
        rec__quote(ks, kq);
        json_decref(ks);
        if (strcmp(key, "players") == 0) {
            if (!json_is_integer(v))
                return eng_seterr(err, errcap, ENG_EBAD_PLAYERS, "players must be an integer, not %s",
                                 rec__type_name(v));
            json_int_t p = json_integer_value(v);
            if (nseats > 0 && p != nseats)
                return eng_seterr(err, errcap, ENG_EBAD_PLAYERS,
                                 "players is %lld but %d seats were given", (long long)p, nseats);
            if (p < g->min_players || p > g->max_players)
                return eng_seterr(err, errcap, ENG_EBAD_PLAYERS, "%s takes %d to %d players, not %lld",
                                 g->name, g->min_players, g->max_players, (long long)p);
            out->players = (int32_t)p;
            continue;
        }
        int i = eng_option_index(g, key);
        if (i < 0)
            return eng_seterr(err, errcap, ENG_EBAD_RULE, "%s has no rule %s", g->name, kq);
        const eng_option *o = &g->options[i];
        json_int_t val;
        if (o->boolean) {
            if (!json_is_boolean(v))
                return eng_seterr(err, errcap, ENG_EBAD_RULE, "%s must be true or false, not %s",
                                 o->name, rec__type_name(v));
            val = json_is_true(v);
        } else {
            if (!json_is_integer(v))
                return eng_seterr(err, errcap, ENG_EBAD_RULE, "%s must be an integer, not %s",
                                 o->name, rec__type_name(v));
            val = json_integer_value(v);
            if (val < o->min || val > o->max)
                return eng_seterr(err, errcap, ENG_EBAD_RULE, "%s takes %d to %d, not %lld", o->name,
                                 (int)o->min, (int)o->max, (long long)val);
        }
        out->opt[i] = (int32_t)val;
    }
    if (out->players < g->min_players || out->players > g->max_players)
        return eng_seterr(err, errcap, ENG_EBAD_PLAYERS, "%s takes %d to %d players, not %d", g->name,
                         g->min_players, g->max_players, (int)out->players);
    char why[200];
    int rc = eng_rules_check(g, out, why, sizeof why);
    if (rc)
        return eng_seterr(err, errcap, rc, "%s", why);
    return 0;
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
    const wire_game *w = wire_find(g->name);
    json_t *info = w && w->info ? w->info() : NULL;
    if (info) {
        json_object_update(o, info);
        json_decref(info);
    }
    return o;
}

json_t *wire_record_turn(const eng_game *g, const void *turn_start, const eng_move *moves, int n,
                         char *err, size_t errcap)
{
    const rec_codec *c = rec_codec_find(g->name);
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
    json_t *t = c->encode_turn(st, moves, n, &pos, err, errcap);
    free(st);
    if (t && pos != n) {
        snprintf(err, errcap, "the moves hold more than one turn");
        json_decref(t);
        return NULL;
    }
    return t;
}
