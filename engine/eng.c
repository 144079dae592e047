/*
 * eng.c — the game registry, rule parsing, the error table and the generic
 * helpers over the game vtable (legality check, sampling, playouts).
 *
 * Adding a game: write its folder under engine/, export its `const eng_game`
 * and add one line to ENG_REGISTRY below (and its sources to CMakeLists.txt).
 * Everything else (CLI, bots, records, server) finds it by name; the whole
 * list of files a game touches is in docs/ARCHITECTURE.md.
 */
#include "eng.h"

#include <errno.h>
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The registry: one line per game, in the order `tessera games` lists them.
 * The engine's own; the codecs have theirs (protocol/games/registry.c), the
 * web views theirs (web/js/table.js): one line per game each. */
#define ENG_REGISTRY(X)                                                                                   \
    X(carc_game)                                                                                   \
    X(rev_game)                                                                                    \
    X(dodgem_game)                                                                                 \
    X(pt_game)

#define DECLARE_(v) extern const eng_game v;
#define ENTRY_(v) &v,
ENG_REGISTRY(DECLARE_)
static const eng_game *const registry[] = {ENG_REGISTRY(ENTRY_)};
#undef DECLARE_
#undef ENTRY_

const eng_game *const *eng_games(int *n)
{
    *n = (int)(sizeof registry / sizeof registry[0]);
    return registry;
}

const eng_game *eng_find_game(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++)
        if (strcmp(registry[i]->name, name) == 0)
            return registry[i];
    return NULL;
}

/* ---- errors ------------------------------------------------------------ */

static const struct {
    const char *wire;
    const char *msg;
} err_table[] = {
    {"ok", "success"},
#define ENG_ERR_ROW_(name, wire, msg) {wire, msg},
    ENG_ERR_MAP(ENG_ERR_ROW_)
#undef ENG_ERR_ROW_
};

#define ERR_COUNT ((int)(sizeof err_table / sizeof err_table[0]))

/* Range-check before negating: -INT_MIN overflows (found by
 * tests/engine/test_conformance.c under UBSan). */
const char *eng_err_code(int err)
{
    if (err > 0 || err <= -ERR_COUNT)
        return "unknown_error";
    return err_table[-err].wire;
}

const char *eng_err_message(int err)
{
    if (err > 0 || err <= -ERR_COUNT)
        return "unknown error";
    return err_table[-err].msg;
}

int eng_err_from_code(const char *wire)
{
    for (int i = 1; i < ERR_COUNT; i++)
        if (strcmp(err_table[i].wire, wire) == 0)
            return -i;
    return 0;
}

void eng_check_failed(const char *game, const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s:%d: %s: invariant broken: ", file, line, game);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}

int eng_seterr(char *err, size_t errcap, int code, const char *fmt, ...)
{
    if (err && errcap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errcap, fmt, ap);
        va_end(ap);
    }
    return code;
}

/* ---- text ------------------------------------------------------------- */

eng_text eng_text_start(char *buf, size_t cap)
{
    if (buf && cap)
        buf[0] = 0;
    return (eng_text){buf, buf ? cap : 0, 0};
}

void eng_textf(eng_text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *dst = t->len < t->cap ? t->buf + t->len : NULL;
    size_t room = t->len < t->cap ? t->cap - t->len : 0;
    int n = vsnprintf(dst, room, fmt, ap);
    va_end(ap);
    if (n > 0)
        t->len += (size_t)n;
}

/* ---- rules ------------------------------------------------------------- */

void eng_rules_default(const eng_game *g, eng_rules *r)
{
    memset(r, 0, sizeof *r);
    r->players = g->default_players;
    for (int i = 0; i < g->n_options && i < ENG_MAX_OPTIONS; i++)
        r->opt[i] = g->options[i].def;
}

int eng_option_index(const eng_game *g, const char *name)
{
    for (int i = 0; i < g->n_options; i++)
        if (strcmp(g->options[i].name, name) == 0)
            return i;
    return -1;
}

int32_t eng_rules_get(const eng_game *g, const eng_rules *r, const char *name)
{
    int i = eng_option_index(g, name);
    return i < 0 ? 0 : r->opt[i];
}

/* Parse a decimal integer that must fill the whole string. */
static int parse_int(const char *s, long *out)
{
    if (!*s)
        return -1;
    errno = 0;
    char *end;
    long v = strtol(s, &end, 10);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

int eng_rules_set_value(const eng_game *g, eng_rules *r, const char *name, int32_t value,
                        char *err, size_t errcap)
{
    if (strcmp(name, "players") == 0) {
        if (value < g->min_players || value > g->max_players)
            return eng_seterr(err, errcap, ENG_EBAD_PLAYERS, "%s takes %d to %d players", g->name,
                        g->min_players, g->max_players);
        r->players = value;
        return 0;
    }
    int i = eng_option_index(g, name);
    if (i < 0)
        return eng_seterr(err, errcap, ENG_EBAD_RULE, "unknown rule '%s' (see `tessera games`)", name);
    const eng_option *o = &g->options[i];
    if (value < o->min || value > o->max)
        return eng_seterr(err, errcap, ENG_EBAD_RULE, "rule '%s' takes a value from %d to %d", name,
                    (int)o->min, (int)o->max);
    r->opt[i] = value;
    return 0;
}

int eng_rules_set(const eng_game *g, eng_rules *r, const char *kv, char *err, size_t errcap)
{
    const char *eq = kv ? strchr(kv, '=') : NULL;
    if (!eq || eq == kv)
        return eng_seterr(err, errcap, ENG_EBAD_RULE, "rule '%s' is not of the form key=value",
                    kv ? kv : "");
    char key[64];
    size_t klen = (size_t)(eq - kv);
    if (klen >= sizeof key)
        return eng_seterr(err, errcap, ENG_EBAD_RULE, "rule name too long: '%.60s'", kv);
    memcpy(key, kv, klen);
    key[klen] = 0;
    const char *val = eq + 1;

    int i = eng_option_index(g, key);
    bool boolean = i >= 0 && g->options[i].boolean;
    long v;
    if (boolean && (strcmp(val, "true") == 0 || strcmp(val, "on") == 0 || strcmp(val, "yes") == 0))
        v = 1;
    else if (boolean &&
             (strcmp(val, "false") == 0 || strcmp(val, "off") == 0 || strcmp(val, "no") == 0))
        v = 0;
    else if (parse_int(val, &v) != 0 || v < INT32_MIN || v > INT32_MAX) {
        /* "players=two" is a bad seat count, like "players=9" (test_conformance) */
        if (strcmp(key, "players") == 0)
            return eng_seterr(err, errcap, ENG_EBAD_PLAYERS, "%s takes %d to %d players, got '%.40s'",
                        g->name, g->min_players, g->max_players, val);
        if (i < 0)
            return eng_seterr(err, errcap, ENG_EBAD_RULE, "unknown rule '%s' (see `tessera games`)", key);
        return eng_seterr(err, errcap, ENG_EBAD_RULE, "rule '%s' needs %s value, got '%.40s'", key,
                    boolean ? "a true/false" : "an integer", val);
    }
    return eng_rules_set_value(g, r, key, (int32_t)v, err, errcap);
}

int eng_rules_check(const eng_game *g, const eng_rules *r, char *err, size_t errcap)
{
    if (r->players < g->min_players || r->players > g->max_players)
        return eng_seterr(err, errcap, ENG_EBAD_PLAYERS, "%s takes %d to %d players", g->name,
                    g->min_players, g->max_players);
    for (int i = 0; i < g->n_options; i++) {
        const eng_option *o = &g->options[i];
        if (r->opt[i] < o->min || r->opt[i] > o->max)
            return eng_seterr(err, errcap, ENG_EBAD_RULE, "rule '%s' takes a value from %d to %d",
                        o->name, (int)o->min, (int)o->max);
    }
    if (g->check_rules)
        return g->check_rules(r, err, errcap);
    return 0;
}

int eng_init(const eng_game *g, void *st, const eng_rules *r, char *err, size_t errcap)
{
    int rc = eng_rules_check(g, r, err, errcap);
    if (rc)
        return rc;
    g->init(st, r);
    return 0;
}

/* ---- generic helpers --------------------------------------------------- */

bool eng_is_legal(const eng_game *g, const void *st, eng_move m)
{
    int cap = g->max_moves > g->max_chance ? g->max_moves : g->max_chance;
    eng_move buf[cap > 0 ? cap : 1];
    int n;
    if (g->current_player(st) == ENG_CHANCE) {
        double prob[g->max_chance > 0 ? g->max_chance : 1];
        n = g->chance_outcomes(st, buf, prob);
    } else {
        n = g->legal_moves(st, buf);
    }
    for (int i = 0; i < n; i++)
        if (buf[i] == m)
            return true;
    return false;
}

eng_move eng__sample_chance_listed(const eng_game *g, const void *st, eng_rng *rng)
{
    eng_move out[g->max_chance > 0 ? g->max_chance : 1];
    double prob[g->max_chance > 0 ? g->max_chance : 1];
    int n = g->chance_outcomes(st, out, prob);
    double u = eng_rng_double(rng);
    for (int i = 0; i < n - 1; i++) {
        if (u < prob[i])
            return out[i];
        u -= prob[i];
    }
    return out[n - 1];
}

eng_move eng_chance_draw(const eng_game *g, const void *st, uint64_t seed, uint64_t k)
{
    eng_rng rng;
    eng_rng_seed_stream(&rng, seed, k);
    return eng_sample_chance(g, st, &rng);
}

eng_move eng__random_move_listed(const eng_game *g, const void *st, eng_rng *rng)
{
    eng_move buf[g->max_moves];
    int n = g->legal_moves(st, buf);
    return buf[eng_rng_below(rng, (uint32_t)n)];
}

int eng_eval_index(const eng_game *g, const char *name)
{
    if (!g->eval_names || !g->evaluate_named)
        return -1;
    for (int i = 0; g->eval_names[i]; i++)
        if (strcmp(g->eval_names[i], name) == 0)
            return i;
    return -1;
}

void eng_rate_moves(const eng_game *g, const void *st, const eng_move *moves, int n, double *out)
{
    if (g->rate_moves) {
        g->rate_moves(st, moves, n, out);
        return;
    }
    int me = g->current_player(st);
    unsigned char *tmp = __builtin_alloca(g->state_size);
    for (int i = 0; i < n; i++) {
        eng_copy(g, tmp, st);
        g->apply(tmp, moves[i]);
        out[i] = g->evaluate(tmp, me);
    }
}

eng_move eng_greedy_move(const eng_game *g, const void *st, eng_rng *rng)
{
    eng_move moves[g->max_moves];
    double rate[g->max_moves];
    int n = g->legal_moves(st, moves);
    eng_rate_moves(g, st, moves, n, rate);
    int best = 0, ties = 1;
    for (int i = 1; i < n; i++) {
        if (rate[i] > rate[best]) {
            best = i;
            ties = 1;
        } else if (rate[i] == rate[best] && eng_rng_below(rng, (uint32_t)++ties) == 0) {
            best = i; /* reservoir sampling among the tied */
        }
    }
    return moves[best];
}

int eng_playout(const eng_game *g, void *st, eng_rng *rng)
{
    if (g->playout)
        return g->playout(st, rng);
    int plies = 0;
    for (;;) {
        int p = g->current_player(st);
        if (p == ENG_TERMINAL)
            return plies;
        eng_move m = p == ENG_CHANCE ? eng_sample_chance(g, st, rng) : eng_random_move(g, st, rng);
        g->apply(st, m);
        plies++;
    }
}

/* ---- turns --------------------------------------------------------------- */

int eng_turn_seat(const eng_game *g, const void *st)
{
    return g->turn_seat ? g->turn_seat(st) : g->current_player(st);
}

int eng_turn_play(const eng_game *g, void *st, const eng_move *moves, int n, char *err,
                  size_t errcap)
{
    int seat = g->current_player(st);
    if (seat < 0)
        return eng_seterr(err, errcap, ENG_EILLEGAL_MOVE,
                          seat == ENG_TERMINAL ? "the game is over" : "no seat is to move");
    if (n <= 0)
        return eng_seterr(err, errcap, ENG_EILLEGAL_MOVE, "the turn holds no decision");
    for (int i = 0; i < n; i++) {
        if (i >= g->turn_decisions || g->current_player(st) != seat)
            return eng_seterr(err, errcap, ENG_EILLEGAL_MOVE,
                              "decision %d of the turn comes after seat %d's turn ended", i + 1,
                              seat);
        if (!eng_is_legal(g, st, moves[i]))
            return eng_seterr(err, errcap, ENG_EILLEGAL_MOVE,
                              "decision %d of the turn is not a legal move", i + 1);
        g->apply(st, moves[i]);
    }
    if (g->current_player(st) == seat)
        return eng_seterr(err, errcap, ENG_EILLEGAL_MOVE,
                          "the turn stops before the seat's last decision");
    return 0;
}

int eng_turn_check(const eng_game *g, const void *st, const eng_move *moves, int n, void *scratch,
                   char *err, size_t errcap)
{
    eng_copy(g, scratch, st);
    return eng_turn_play(g, scratch, moves, n, err, errcap);
}

int eng_random_turn(const eng_game *g, void *st, eng_rng *rng, eng_move *out)
{
    int seat = g->current_player(st), n = 0;
    while (seat >= 0 && n < g->turn_decisions && g->current_player(st) == seat) {
        out[n] = eng_random_move(g, st, rng);
        g->apply(st, out[n++]);
    }
    return n;
}
