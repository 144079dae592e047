/*
 * spec.c — a tournament's spec: format names, defaults, every check with a
 * reason a user can act on, and the spec as canonical JSON (what the store
 * keeps and compares, and what a server message will carry).
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tournament/internal.h"

static const char *const format_names[] = {"round-robin", "gauntlet", "swiss", "knockout"};

const char *tour_format_name(tour_format f)
{
    return (unsigned)f < 4 ? format_names[f] : "unknown";
}

int tour_format_parse(const char *s, tour_format *out, char *err, size_t errcap)
{
    if (s) {
        for (int i = 0; i < 4; i++)
            if (strcmp(s, format_names[i]) == 0) {
                *out = (tour_format)i;
                return 0;
            }
        if (strcmp(s, "rr") == 0 || strcmp(s, "roundrobin") == 0) {
            *out = TOUR_ROUND_ROBIN;
            return 0;
        }
    }
    return eng_seterr(err, errcap, ENG_EINVAL,
                      "unknown tournament format '%s' (round-robin, gauntlet, swiss, knockout)",
                      s ? s : "");
}

void tour_spec_init(tour_spec *spec)
{
    memset(spec, 0, sizeof *spec);
    spec->format = TOUR_ROUND_ROBIN;
    spec->cycles = 1;
    spec->games_per_pair = 2;
    spec->seed = 1;
    spec->sprt.alpha = 0.05;
    spec->sprt.beta = 0.05;
    spec->sprt.elo0 = 0;
    spec->sprt.elo1 = 5;
    spec->sprt.model = TOUR_SPRT_NORMALIZED;
}

int64_t tour_spec_games_per_pair(const tour_spec *spec)
{
    int k = spec->rules.players;
    if (k < 1 || spec->games_per_pair < 1)
        return 0;
    return (spec->games_per_pair + k - 1) / k * k;
}

/* NULL when fine, else what is wrong with the text. */
static const char *bad_text(const char *s, size_t max)
{
    if (!s)
        return "is missing";
    size_t len = strlen(s);
    if (len == 0)
        return "is empty";
    if (len > max)
        return "is too long";
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return "contains a control character";
    return NULL;
}

static double binom(int n, int k)
{
    if (k < 0 || k > n)
        return 0;
    double r = 1;
    for (int i = 1; i <= k; i++)
        r = r * (n - k + i) / i;
    return floor(r + 0.5);
}

int64_t tour__tables_per_cycle(tour_format f, int n, int k, bool *balanced)
{
    if (balanced)
        *balanced = false;
    if (f == TOUR_ROUND_ROBIN) {
        double c = binom(n, k);
        if (k == 2 || c <= TOUR_MAX_SUBSET_TABLES)
            return (int64_t)c;
        if (balanced)
            *balanced = true;
        return (int64_t)((n - 1 + k - 2) / (k - 1)) * (n / k);
    }
    if (f == TOUR_GAUNTLET) {
        double c = binom(n - 1, k - 1);
        if (k == 2 || c <= TOUR_MAX_SUBSET_TABLES)
            return (int64_t)c;
        if (balanced)
            *balanced = true;
        return (n - 1 + k - 2) / (k - 1);
    }
    return 0;
}

int tour__swiss_auto_rounds(int n)
{
    int r = 0;
    while ((1 << r) < n)
        r++;
    return r < 1 ? 1 : r;
}

int tour_spec_check(const tour_spec *s, char *err, size_t errcap)
{
    if (!s)
        return eng_seterr(err, errcap, ENG_EINVAL, "no tournament spec");
    if ((unsigned)s->format > TOUR_KNOCKOUT)
        return eng_seterr(err, errcap, ENG_EINVAL,
                          "unknown tournament format %d (round-robin, gauntlet, swiss, knockout)",
                          (int)s->format);
    const char *fmt = tour_format_name(s->format);
    if (!s->game)
        return eng_seterr(err, errcap, ENG_EINVAL, "no game");
    const eng_game *g = s->game;
    int rc = eng_rules_check(g, &s->rules, err, errcap);
    if (rc)
        return rc;
    int k = s->rules.players, n = s->nparticipants;
    if (n < 2)
        return eng_seterr(err, errcap, ENG_EINVAL,
                          "a tournament needs at least 2 participants, got %d", n);
    if (n > TOUR_MAX_PARTICIPANTS)
        return eng_seterr(err, errcap, ENG_EINVAL,
                          "a tournament takes at most %d participants, got %d",
                          TOUR_MAX_PARTICIPANTS, n);
    if (!s->participants)
        return eng_seterr(err, errcap, ENG_EINVAL, "no participant list");
    if (n < k)
        return eng_seterr(err, errcap, ENG_EBAD_PLAYERS,
                          "%s at %d seats needs at least %d participants per table, got %d",
                          g->name, k, k, n);
    for (int i = 0; i < n; i++) {
        const tour_participant *p = &s->participants[i];
        const char *why = bad_text(p->name, TOUR_NAME_MAX);
        if (why)
            return eng_seterr(err, errcap, ENG_EINVAL,
                              "the name of participant %d %s (1 to %d "
                              "printable bytes)",
                              i + 1, why, TOUR_NAME_MAX);
        if ((why = bad_text(p->spec, TOUR_SPEC_MAX)))
            return eng_seterr(err, errcap, ENG_EINVAL,
                              "the spec of participant %d (%s) %s (1 to "
                              "%d bytes)",
                              i + 1, p->name, why, TOUR_SPEC_MAX);
        for (int j = 0; j < i; j++)
            if (strcmp(s->participants[j].name, p->name) == 0)
                return eng_seterr(err, errcap, ENG_EINVAL,
                                  "participants %d and %d have the same name '%s'; names must be "
                                  "unique",
                                  j + 1, i + 1, p->name);
    }
    if (s->label && bad_text(s->label, TOUR_LABEL_MAX))
        return eng_seterr(err, errcap, ENG_EINVAL, "the tournament label %s (at most %d bytes)",
                          bad_text(s->label, TOUR_LABEL_MAX), TOUR_LABEL_MAX);
    if (s->anchor) {
        int found = 0;
        for (int i = 0; i < n; i++)
            found |= strcmp(s->participants[i].name, s->anchor) == 0;
        if (!found)
            return eng_seterr(err, errcap, ENG_EINVAL,
                              "the rating anchor '%s' is not one of the participants", s->anchor);
    }
    bool ko_by_best_of = s->format == TOUR_KNOCKOUT && s->best_of > 0;
    if (!ko_by_best_of && (s->games_per_pair < 1 || s->games_per_pair > TOUR_MAX_GAMES_PER_PAIR))
        return eng_seterr(err, errcap, ENG_EINVAL,
                          "games per pairing must be from 1 to %d, got %lld",
                          TOUR_MAX_GAMES_PER_PAIR, (long long)s->games_per_pair);
    double per = (double)tour_spec_games_per_pair(s), total = 0;
    switch (s->format) {
    case TOUR_ROUND_ROBIN:
    case TOUR_GAUNTLET:
        if (s->cycles < 1 || s->cycles > TOUR_MAX_CYCLES)
            return eng_seterr(err, errcap, ENG_EINVAL, "%s: cycles must be from 1 to %d, got %d",
                              fmt, TOUR_MAX_CYCLES, s->cycles);
        total = (double)tour__tables_per_cycle(s->format, n, k, NULL) * per * s->cycles;
        break;
    case TOUR_SWISS: {
        if (s->rounds < 0 || s->rounds > TOUR_MAX_ROUNDS)
            return eng_seterr(err, errcap, ENG_EINVAL,
                              "swiss: rounds must be from 1 to %d (0: automatic), got %d",
                              TOUR_MAX_ROUNDS, s->rounds);
        int rounds = s->rounds ? s->rounds : tour__swiss_auto_rounds(n);
        total = (double)rounds * (n / k) * per;
        break;
    }
    case TOUR_KNOCKOUT: {
        if (k != 2)
            return eng_seterr(err, errcap, ENG_EINVAL,
                              "knockout needs a two-seat game: a tie is head to head between two "
                              "participants, and a %d-seat table has no such pairing (play %s "
                              "with players=2, or use round-robin or swiss for %d-seat tables)",
                              k, g->name, k);
        if (s->best_of < 0 || s->best_of > TOUR_MAX_BEST_OF)
            return eng_seterr(err, errcap, ENG_EINVAL,
                              "knockout: best-of must be from 1 to %d groups (0: from games per "
                              "pairing), got %d",
                              TOUR_MAX_BEST_OF, s->best_of);
        int K = s->best_of > 0 ? s->best_of : (int)(per / k);
        total = (double)(n - 1) * (K + TOUR_KO_MAX_EXTRA) * k;
        break;
    }
    }
    if (s->sprt.enabled) {
        if ((rc = tour_sprt_check(&s->sprt, err, errcap)))
            return rc;
        if (k != 2)
            return eng_seterr(err, errcap, ENG_EINVAL,
                              "the SPRT needs a two-seat game: it counts game pairs (both seat "
                              "orders on the same tiles), which a %d-seat table does not form",
                              k);
        if (n != 2)
            return eng_seterr(err, errcap, ENG_EINVAL,
                              "the SPRT is a head-to-head test of 2 participants, got %d", n);
        if (s->format != TOUR_ROUND_ROBIN && s->format != TOUR_GAUNTLET)
            return eng_seterr(err, errcap, ENG_EINVAL,
                              "the SPRT runs on a round-robin of its 2 participants, not on %s",
                              fmt);
    }
    if (total > TOUR_MAX_GAMES)
        return eng_seterr(err, errcap, ENG_EINVAL,
                          "this %s would schedule up to %.0f games, more than the limit of %d", fmt,
                          total, TOUR_MAX_GAMES);
    return 0;
}

/* ---- copies ------------------------------------------------------------------- */

typedef struct spec_box {
    tour_spec spec; /* first: a tour_spec * is a spec_box * */
    tour_participant *parts;
    char *anchor, *label;
} spec_box;

void tour_spec_free(tour_spec *spec)
{
    if (!spec)
        return;
    spec_box *b = (spec_box *)spec;
    for (int i = 0; b->parts && i < spec->nparticipants; i++) {
        free((char *)b->parts[i].name);
        free((char *)b->parts[i].spec);
    }
    free(b->parts);
    free(b->anchor);
    free(b->label);
    free(b);
}

/* ---- JSON ---------------------------------------------------------------------- */

static json_t *rules_json(const eng_game *g, const eng_rules *r)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    json_object_set_new(o, "players", json_integer(r->players));
    for (int i = 0; i < g->n_options; i++) {
        const eng_option *op = &g->options[i];
        json_object_set_new(o, op->name,
                            op->boolean ? json_boolean(r->opt[i]) : json_integer(r->opt[i]));
    }
    return o;
}

static int rules_parse(const eng_game *g, const json_t *o, eng_rules *r, char *err, size_t errcap)
{
    if (!json_is_object(o))
        return eng_seterr(err, errcap, ENG_EBAD_RULE, "rules must be an object");
    eng_rules_default(g, r);
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)o, key, v)
    {
        if (strcmp(key, "players") == 0) {
            if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > 64)
                return eng_seterr(err, errcap, ENG_EBAD_PLAYERS,
                                  "rules.players must be a "
                                  "small positive integer");
            r->players = (int32_t)json_integer_value(v);
            continue;
        }
        int i = eng_option_index(g, key);
        if (i < 0)
            return eng_seterr(err, errcap, ENG_EBAD_RULE, "%s has no rule '%s'", g->name, key);
        json_int_t x;
        if (json_is_boolean(v) && g->options[i].boolean)
            x = json_is_true(v);
        else if (json_is_integer(v))
            x = json_integer_value(v);
        else
            return eng_seterr(err, errcap, ENG_EBAD_RULE, "rule '%s' must be %s", key,
                              g->options[i].boolean ? "true or false" : "an integer");
        if (x < INT32_MIN || x > INT32_MAX)
            return eng_seterr(err, errcap, ENG_EBAD_RULE, "rule '%s' is out of range", key);
        int rc = eng_rules_set_value(g, r, key, (int32_t)x, err, errcap);
        if (rc)
            return rc;
    }
    return eng_rules_check(g, r, err, errcap);
}

json_t *tour_spec_to_json(const tour_spec *s)
{
    json_t *parts = json_array();
    for (int i = 0; parts && i < s->nparticipants; i++)
        json_array_append_new(parts, json_pack("{s:s, s:s}", "name", s->participants[i].name,
                                               "spec", s->participants[i].spec));
    json_t *sprt = json_null();
    if (s->sprt.enabled)
        sprt = json_pack("{s:f, s:f, s:f, s:f, s:s}", "elo0", s->sprt.elo0, "elo1", s->sprt.elo1,
                         "alpha", s->sprt.alpha, "beta", s->sprt.beta, "model",
                         tour_sprt_model_name(s->sprt.model));
    json_t *seed = s->seed <= (uint64_t)INT64_MAX ? json_integer((json_int_t)s->seed) : NULL;
    if (!seed) {
        char buf[24];
        snprintf(buf, sizeof buf, "%llu", (unsigned long long)s->seed);
        seed = json_string(buf);
    }
    json_t *o = json_pack("{s:s, s:s, s:o, s:o, s:i, s:i, s:i, s:I, s:o, s:o, s:o, s:o}", "format",
                          tour_format_name(s->format), "game", s->game->name, "rules",
                          rules_json(s->game, &s->rules), "participants", parts, "cycles",
                          s->cycles, "rounds", s->rounds, "best_of", s->best_of, "games_per_pair",
                          (json_int_t)s->games_per_pair, "seed", seed, "sprt", sprt, "anchor",
                          s->anchor ? json_string(s->anchor) : json_null(), "label",
                          s->label ? json_string(s->label) : json_null());
    return o;
}

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

tour_spec *tour_spec_from_json(const json_t *obj, char *err, size_t errcap)
{
    const char *format = NULL, *game = NULL;
    json_t *rules = NULL, *parts = NULL, *seed = NULL, *sprt = NULL, *anchor = NULL, *label = NULL;
    int cycles = 1, rounds = 0, best_of = 0;
    json_int_t gpp = 0;
    json_error_t je;
    if (!obj ||
        json_unpack_ex((json_t *)obj, &je, JSON_STRICT,
                       "{s:s, s:s, s:o, s:o, s?:i, s?:i, s?:i, s:I, s?:o, s?:o, s?:o, "
                       "s?:o}",
                       "format", &format, "game", &game, "rules", &rules, "participants", &parts,
                       "cycles", &cycles, "rounds", &rounds, "best_of", &best_of, "games_per_pair",
                       &gpp, "seed", &seed, "sprt", &sprt, "anchor", &anchor, "label", &label)) {
        eng_seterr(err, errcap, ENG_EINVAL, "tournament spec: %s", obj ? je.text : "missing");
        return NULL;
    }
    spec_box *b = calloc(1, sizeof *b);
    if (!b) {
        eng_seterr(err, errcap, ENG_ENOMEM, "out of memory");
        return NULL;
    }
    tour_spec *s = &b->spec;
    tour_spec_init(s);
    if (tour_format_parse(format, &s->format, err, errcap))
        goto fail;
    if (!(s->game = eng_find_game(game))) {
        eng_seterr(err, errcap, ENG_EUNKNOWN_GAME, "unknown game '%s'", game);
        goto fail;
    }
    if (rules_parse(s->game, rules, &s->rules, err, errcap))
        goto fail;
    if (!json_is_array(parts) || json_array_size(parts) > TOUR_MAX_PARTICIPANTS) {
        eng_seterr(err, errcap, ENG_EINVAL, "participants must be an array of at most %d",
                   TOUR_MAX_PARTICIPANTS);
        goto fail;
    }
    size_t np = json_array_size(parts);
    b->parts = calloc(np ? np : 1, sizeof *b->parts);
    if (!b->parts)
        goto nomem;
    s->participants = b->parts;
    for (size_t i = 0; i < np; i++) {
        const char *name, *pspec;
        if (json_unpack_ex(json_array_get(parts, i), &je, JSON_STRICT, "{s:s, s:s}", "name", &name,
                           "spec", &pspec)) {
            eng_seterr(err, errcap, ENG_EINVAL, "participant %zu: %s", i + 1, je.text);
            goto fail;
        }
        b->parts[i].name = strdup(name);
        b->parts[i].spec = strdup(pspec);
        s->nparticipants = (int)i + 1;
        if (!b->parts[i].name || !b->parts[i].spec)
            goto nomem;
    }
    s->cycles = cycles;
    s->rounds = rounds;
    s->best_of = best_of;
    s->games_per_pair = gpp;
    if (seed && json_is_integer(seed) && json_integer_value(seed) >= 0) {
        s->seed = (uint64_t)json_integer_value(seed);
    } else if (seed && json_is_string(seed)) {
        char *end;
        const char *txt = json_string_value(seed);
        s->seed = strtoull(txt, &end, 10);
        if (!*txt || *end || *txt == '-') {
            eng_seterr(err, errcap, ENG_EINVAL, "seed must be an unsigned 64-bit integer");
            goto fail;
        }
    } else if (seed) {
        eng_seterr(err, errcap, ENG_EINVAL, "seed must be an unsigned 64-bit integer");
        goto fail;
    }
    if (sprt && !json_is_null(sprt)) {
        const char *model = "normalized";
        if (json_unpack_ex(sprt, &je, JSON_STRICT, "{s:F, s:F, s?:F, s?:F, s?:s}", "elo0",
                           &s->sprt.elo0, "elo1", &s->sprt.elo1, "alpha", &s->sprt.alpha, "beta",
                           &s->sprt.beta, "model", &model)) {
            eng_seterr(err, errcap, ENG_EINVAL, "sprt: %s", je.text);
            goto fail;
        }
        if (tour_sprt_model_parse(model, &s->sprt.model)) {
            eng_seterr(err, errcap, ENG_EINVAL, "sprt: unknown model '%s' (normalized, logistic)",
                       model);
            goto fail;
        }
        s->sprt.enabled = true;
    }
    if (anchor && !json_is_null(anchor)) {
        if (!json_is_string(anchor) || !(b->anchor = strdup(json_string_value(anchor)))) {
            eng_seterr(err, errcap, ENG_EINVAL, "anchor must be a participant's name or null");
            goto fail;
        }
        s->anchor = b->anchor;
    }
    if (label && !json_is_null(label)) {
        if (!json_is_string(label) || !(b->label = strdup(json_string_value(label)))) {
            eng_seterr(err, errcap, ENG_EINVAL, "label must be a string or null");
            goto fail;
        }
        s->label = b->label;
    }
    if (tour_spec_check(s, err, errcap))
        goto fail;
    return s;
nomem:
    eng_seterr(err, errcap, ENG_ENOMEM, "out of memory");
fail:
    tour_spec_free(s);
    return NULL;
}

/* Copy spec into a box owned by the tournament (tour__alloc). */
tour_spec *tour__spec_copy(const tour_spec *src)
{
    spec_box *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->spec = *src;
    int n = src->nparticipants;
    b->parts = calloc(n ? (size_t)n : 1, sizeof *b->parts);
    if (!b->parts)
        goto fail;
    b->spec.participants = b->parts;
    b->spec.nparticipants = 0;
    for (int i = 0; i < n; i++) {
        b->parts[i].name = strdup(src->participants[i].name);
        b->parts[i].spec = strdup(src->participants[i].spec);
        b->spec.nparticipants = i + 1;
        if (!b->parts[i].name || !b->parts[i].spec)
            goto fail;
    }
    b->anchor = dup_or_null(src->anchor);
    b->label = dup_or_null(src->label);
    if ((src->anchor && !b->anchor) || (src->label && !b->label))
        goto fail;
    b->spec.anchor = b->anchor;
    b->spec.label = b->label;
    return &b->spec;
fail:
    tour_spec_free(&b->spec);
    return NULL;
}
