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
extern const wire_game wire_dodgem;
extern const wire_game wire_pentago;

static const wire_game *const codecs[] = {
    &wire_carcassonne,
    &wire_reversi,
    &wire_dodgem,
    &wire_pentago,
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
