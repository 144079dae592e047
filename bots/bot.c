/*
 * bot.c — the bot registry, spec parsing, the shared budget clock and the
 * catalogue printed by `tessera bots`.
 *
 * Adding a bot: write bots/<name>.c exporting a `const bot_type`, and list it
 * in `registry` below. Its options are declared in its bot_param table; the
 * common options (sims, ms, seed, mem) are handled here for every bot.
 */
#include "bot.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Bot types are plain references: a bot whose object is missing from the
 * link is a link error ("undefined reference to bot_..._type"), never a bot
 * that silently disappears from the catalogue. */
#define BOT_DECL(sym) extern const bot_type sym;
BOT_DECL(bot_random_type)
BOT_DECL(bot_flatmc_type)
BOT_DECL(bot_ucb1_type)
BOT_DECL(bot_heuristic_type)
BOT_DECL(bot_mcts_type)
BOT_DECL(bot_rave_type)
BOT_DECL(bot_ea_p_mcts_type)
BOT_DECL(bot_ea_mcts_type)
BOT_DECL(bot_siea_mcts_type)
BOT_DECL(bot_star1_type)
BOT_DECL(bot_star2_type)
BOT_DECL(bot_star25_type)
BOT_DECL(bot_mcts_d2_type)
BOT_DECL(bot_evomcts_type)

/* Every bot type, in the order `tessera bots` lists them. */
static const bot_type *const candidates[] = {
    &bot_random_type,    &bot_heuristic_type, &bot_flatmc_type,    &bot_ucb1_type,
    &bot_mcts_type,      &bot_rave_type,      &bot_ea_p_mcts_type, &bot_ea_mcts_type,
    &bot_siea_mcts_type, &bot_star1_type,     &bot_star2_type,     &bot_star25_type,
    &bot_mcts_d2_type,
    &bot_evomcts_type,
};
#define NCAND (sizeof candidates / sizeof candidates[0])
static const bot_type *registry[NCAND];
static int nregistry;
static pthread_once_t registry_once = PTHREAD_ONCE_INIT;

static void registry_build(void)
{
    for (size_t i = 0; i < NCAND; i++)
        registry[nregistry++] = candidates[i];
}

const bot_type *const *bot_types(int *n)
{
    pthread_once(&registry_once, registry_build);
    *n = nregistry;
    return registry;
}

const bot_type *bot_find_type(const char *name)
{
    int n;
    const bot_type *const *all = bot_types(&n);
    for (int i = 0; i < n; i++)
        if (strcmp(all[i]->name, name) == 0)
            return all[i];
    return NULL;
}

/* The options every bot accepts. */
static const bot_param common_params[] = {
    {"sims", BOT_INT, 0, 0, 1e12, NULL, NULL, "simulations per decision (0 = use ms or the bot's default)"},
    {"ms", BOT_INT, 0, 0, 86400000, NULL, NULL, "milliseconds per decision (0 = no time limit)"},
    {"seed", BOT_INT, -1, -1, 9e18, NULL, NULL, "random seed (-1 = given by the match)"},
    {"mem", BOT_INT, 256, 1, 65536, NULL, NULL, "search memory per decision, MiB"},
};
#define NCOMMON ((int)(sizeof common_params / sizeof common_params[0]))

const bot_param *bot_common_params(int *n)
{
    *n = NCOMMON;
    return common_params;
}

static int parse_real(const char *s, double *out)
{
    if (!*s)
        return -1;
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    if (errno || *end || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

/* Parse one value of a parameter into *val. */
static int parse_value(const char *bot_name, const bot_param *p, const char *s, bot_value *val,
                       char *err, size_t cap)
{
    double v;
    switch (p->kind) {
    case BOT_BOOL:
        if (!strcmp(s, "true") || !strcmp(s, "1") || !strcmp(s, "on") || !strcmp(s, "yes"))
            val->v = 1;
        else if (!strcmp(s, "false") || !strcmp(s, "0") || !strcmp(s, "off") || !strcmp(s, "no"))
            val->v = 0;
        else
            return eng_seterr(err, cap, ENG_EBAD_BOT_SPEC, "%s: option '%s' is true or false, got '%s'",
                        bot_name, p->name, s);
        return 0;
    case BOT_ENUM:
        for (int i = 0; p->choices[i]; i++)
            if (!strcmp(s, p->choices[i])) {
                val->v = i;
                return 0;
            }
        {
            char list[256] = "";
            for (int i = 0; p->choices[i]; i++) {
                strncat(list, i ? "|" : "", sizeof list - strlen(list) - 1);
                strncat(list, p->choices[i], sizeof list - strlen(list) - 1);
            }
            return eng_seterr(err, cap, ENG_EBAD_BOT_SPEC, "%s: option '%s' is one of %s, got '%s'",
                        bot_name, p->name, list, s);
        }
    case BOT_LIST: {
        char buf[256];
        if (strlen(s) >= sizeof buf)
            return eng_seterr(err, cap, ENG_EBAD_BOT_SPEC, "%s: option '%s' is too long", bot_name,
                        p->name);
        strcpy(buf, s);
        val->n = 0;
        char *rest = NULL; /* strtok_r: bots are made on several threads at once */
        for (char *tok = strtok_r(buf, "/", &rest); tok; tok = strtok_r(NULL, "/", &rest)) {
            if (val->n == BOT_LIST_MAX)
                return eng_seterr(err, cap, ENG_EBAD_BOT_SPEC, "%s: option '%s' takes at most %d values",
                            bot_name, p->name, BOT_LIST_MAX);
            if (parse_real(tok, &v) || v < p->min || v > p->max)
                return eng_seterr(err, cap, ENG_EBAD_BOT_SPEC,
                            "%s: option '%s' needs numbers from %g to %g separated by '/', got '%s'",
                            bot_name, p->name, p->min, p->max, tok);
            val->list[val->n++] = v;
        }
        if (val->n == 0)
            return eng_seterr(err, cap, ENG_EBAD_BOT_SPEC, "%s: option '%s' needs at least one value",
                        bot_name, p->name);
        return 0;
    }
    case BOT_STR:
    case BOT_FILE: {
        /* printable ASCII without spaces; ',' and '=' cannot occur (the spec
         * splits on them) */
        size_t len = strlen(s);
        if (len == 0)
            return eng_seterr(err, cap, ENG_EBAD_BOT_SPEC, "%s: option '%s' needs a value",
                              bot_name, p->name);
        if (len >= BOT_STR_MAX)
            return eng_seterr(err, cap, ENG_EBAD_BOT_SPEC,
                              "%s: option '%s' is longer than %d characters", bot_name, p->name,
                              BOT_STR_MAX - 1);
        for (size_t i = 0; i < len; i++)
            if (s[i] <= ' ' || s[i] > '~')
                return eng_seterr(err, cap, ENG_EBAD_BOT_SPEC,
                                  "%s: option '%s' may hold only printable characters without "
                                  "spaces",
                                  bot_name, p->name);
        memcpy(val->str, s, len + 1);
        return 0;
    }
    case BOT_INT:
        if (parse_real(s, &v) || v != floor(v) || v < p->min || v > p->max)
            return eng_seterr(err, cap, ENG_EBAD_BOT_SPEC,
                        "%s: option '%s' needs an integer from %.0f to %.0f, got '%s'", bot_name,
                        p->name, p->min, p->max, s);
        val->v = v;
        return 0;
    case BOT_REAL:
        if (parse_real(s, &v) || v < p->min || v > p->max)
            return eng_seterr(err, cap, ENG_EBAD_BOT_SPEC,
                        "%s: option '%s' needs a number from %g to %g, got '%s'", bot_name, p->name,
                        p->min, p->max, s);
        val->v = v;
        return 0;
    }
    return ENG_EINTERNAL;
}

static void set_default(const bot_param *p, bot_value *val)
{
    memset(val, 0, sizeof *val);
    val->v = p->def;
    if (p->kind == BOT_LIST && p->def_list)
        parse_value("", p, p->def_list, val, NULL, 0);
    if ((p->kind == BOT_STR || p->kind == BOT_FILE) && p->def_list)
        snprintf(val->str, sizeof val->str, "%s", p->def_list);
}

/* Parse a spec into a zeroed bot (type, values, common options). */
static int parse_spec(const char *spec, const eng_game *g, bot *b, char *err, size_t cap)
{
    if (!spec || !*spec)
        return eng_seterr(err, cap, ENG_EBAD_BOT_SPEC, "empty bot spec (see `tessera bots`)");
    size_t len = strlen(spec);
    if (len >= BOT_SPEC_MAX)
        return eng_seterr(err, cap, ENG_EBAD_BOT_SPEC, "bot spec longer than %d characters",
                    BOT_SPEC_MAX - 1);
    char buf[BOT_SPEC_MAX];
    memcpy(buf, spec, len + 1);
    memcpy(b->spec, spec, len + 1);
    char *opts = strchr(buf, ':');
    if (opts)
        *opts++ = 0;
    const bot_type *t = bot_find_type(buf);
    if (!t)
        return eng_seterr(err, cap, ENG_EUNKNOWN_BOT, "unknown bot '%.64s' (see `tessera bots`)", buf);
    b->type = t;
    b->game = g;
    for (int i = 0; i < t->nparams; i++)
        set_default(&t->params[i], &b->val[i]);
    b->sims = 0;
    b->ms = 0;
    b->mem_mb = (int64_t)common_params[3].def;
    int64_t seed_opt = -1;

    if (opts && *opts) {
        char *save = NULL;
        for (char *kv = strtok_r(opts, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
            char *eq = strchr(kv, '=');
            if (!eq || eq == kv)
                return eng_seterr(err, cap, ENG_EBAD_BOT_SPEC, "%s: option '%s' is not key=value",
                            t->name, kv);
            *eq = 0;
            const char *key = kv, *val = eq + 1;
            int found = 0;
            for (int i = 0; i < NCOMMON && !found; i++) {
                if (strcmp(common_params[i].name, key))
                    continue;
                bot_value v;
                int rc = parse_value(t->name, &common_params[i], val, &v, err, cap);
                if (rc)
                    return rc;
                if (i == 0)
                    b->sims = (int64_t)v.v;
                else if (i == 1)
                    b->ms = (int64_t)v.v;
                else if (i == 2)
                    seed_opt = (int64_t)v.v;
                else
                    b->mem_mb = (int64_t)v.v;
                found = 1;
            }
            for (int i = 0; i < t->nparams && !found; i++) {
                if (strcmp(t->params[i].name, key))
                    continue;
                int rc = parse_value(t->name, &t->params[i], val, &b->val[i], err, cap);
                if (rc)
                    return rc;
                found = 1;
            }
            if (!found)
                return eng_seterr(err, cap, ENG_EBAD_BOT_SPEC,
                            "%s: unknown option '%s' (see `tessera bots`)", t->name, key);
        }
    }
    if (seed_opt >= 0)
        b->seed = (uint64_t)seed_opt;
    return 0;
}

int bot_spec_reads_file(const char *spec, char *opt, size_t cap)
{
    if (!spec)
        return 0;
    size_t len = strlen(spec);
    if (len >= BOT_SPEC_MAX)
        return 0; /* refused by parse_spec before anything is read */
    /* split as parse_spec does: NAME[:KEY=VALUE,...] */
    char buf[BOT_SPEC_MAX];
    memcpy(buf, spec, len + 1);
    char *opts = strchr(buf, ':');
    if (opts)
        *opts++ = 0;
    const bot_type *t = bot_find_type(buf);
    if (!t || !opts)
        return 0;
    char *save = NULL;
    for (char *kv = strtok_r(opts, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '=');
        if (!eq || eq == kv)
            continue;
        *eq = 0;
        for (int i = 0; i < t->nparams; i++)
            if (t->params[i].kind == BOT_FILE && strcmp(t->params[i].name, kv) == 0) {
                if (opt && cap)
                    snprintf(opt, cap, "%s", kv);
                return 1;
            }
    }
    return 0;
}

int bot_spec_threads(const char *spec)
{
    if (!spec || strlen(spec) >= BOT_SPEC_MAX)
        return 1;
    char buf[BOT_SPEC_MAX];
    strcpy(buf, spec);
    char *opts = strchr(buf, ':');
    if (opts)
        *opts++ = 0;
    const bot_type *t = bot_find_type(buf);
    if (!t || !opts)
        return 1;
    int declared = 0;
    for (int i = 0; i < t->nparams; i++)
        declared |= strcmp(t->params[i].name, "threads") == 0;
    if (!declared)
        return 1;
    int threads = 1;
    char *save = NULL;
    for (char *kv = strtok_r(opts, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '=');
        double v;
        if (eq && strncmp(kv, "threads", (size_t)(eq - kv)) == 0 && eq - kv == 7 &&
            parse_real(eq + 1, &v) == 0 && v >= 1 && v <= 1e6 && v == floor(v))
            threads = (int)v; /* the last one wins, as parse_spec's does */
    }
    return threads;
}

int bot_check_threads(const char *spec, int max, char *err, size_t errcap)
{
    assert(max >= 1);
    int threads = bot_spec_threads(spec);
    if (threads <= max)
        return 0;
    return eng_seterr(err, errcap, ENG_EBAD_BOT_SPEC,
                      "threads=%d: this server lets a bot search on at most %d thread%s (its limits.bot_threads)",
                      threads, max, max == 1 ? "" : "s");
}

bot *bot_create_code(const char *spec, const eng_game *g, uint64_t seed, int *code, char *err,
                     size_t errcap)
{
    assert(code);
    bot *b = calloc(1, sizeof *b);
    if (!b) {
        *code = eng_seterr(err, errcap, ENG_ENOMEM, "out of memory");
        return NULL;
    }
    b->seed = seed;
    if ((*code = parse_spec(spec, g, b, err, errcap)) != 0) {
        free(b);
        return NULL;
    }
    eng_rng_seed(&b->rng, b->seed);
    if (b->type->init && (*code = b->type->init(b, err, errcap)) != 0) {
        free(b);
        return NULL;
    }
    return b;
}

bot *bot_create(const char *spec, const eng_game *g, uint64_t seed, char *err, size_t errcap)
{
    int code;
    return bot_create_code(spec, g, seed, &code, err, errcap);
}

int bot_check_spec(const char *spec, const eng_game *g, char *err, size_t errcap)
{
    bot *b = calloc(1, sizeof *b);
    if (!b)
        return eng_seterr(err, errcap, ENG_ENOMEM, "out of memory");
    int rc = parse_spec(spec, g, b, err, errcap);
    if (rc == 0 && b->type->init) {
        rc = b->type->init(b, err, errcap);
        if (rc == 0 && b->type->close)
            b->type->close(b);
    }
    free(b);
    return rc;
}

void bot_destroy(bot *b)
{
    if (!b)
        return;
    if (b->type && b->type->close)
        b->type->close(b);
    free(b);
}

void bot_observe(bot *b, const void *st, eng_move m)
{
    if (b->type->observe)
        b->type->observe(b, st, m);
}

void bot_reset(bot *b)
{
    if (b->type->reset)
        b->type->reset(b);
}

eng_move bot_choose(bot *b, const void *st, const bot_budget *budget, bot_stats *stats)
{
    bot_stats local;
    if (!stats)
        stats = &local;
    memset(stats, 0, sizeof *stats);
    double t0 = bot_now_ms();
    eng_move m = b->type->choose(b, st, budget, stats);
    stats->ms = bot_now_ms() - t0;
    return m;
}

int bot_choose_turn(bot *b, void *st, double end_ms, const atomic_bool *stop, bot_turn *out)
{
    const eng_game *g = b->game;
    memset(out, 0, sizeof *out);
    int seat = g->current_player(st);
    while (seat >= 0 && out->n < g->turn_decisions && g->current_player(st) == seat) {
        double left = end_ms - bot_now_ms();
        bot_budget budget = {.ms = left > 1 ? (int64_t)left : 1, .cap_only = true, .stop = stop};
        if (out->n == 0)
            out->first_budget_ms = budget.ms;
        bot_stats st1;
        eng_move m = bot_choose(b, st, &budget, &st1);
        out->stats.sims += st1.sims;
        out->stats.nodes += st1.nodes;
        out->stats.ms += st1.ms;
        if (st1.mem_bytes > out->stats.mem_bytes)
            out->stats.mem_bytes = st1.mem_bytes;
        out->stats.mem_full |= st1.mem_full;
        out->stats.value = st1.value;
        if (st1.info[0])
            memcpy(out->stats.info, st1.info, sizeof out->stats.info);
        out->moves[out->n++] = m;
        if (!eng_is_legal(g, st, m)) {
            out->illegal = true;
            return ENG_EILLEGAL_MOVE;
        }
        g->apply(st, m);
    }
    return 0;
}

static int param_index(const bot *b, const char *name)
{
    for (int i = 0; i < b->type->nparams; i++)
        if (!strcmp(b->type->params[i].name, name))
            return i;
    return -1;
}

double bot_opt(const bot *b, const char *name)
{
    int i = param_index(b, name);
    if (i < 0) {
        /* a misspelled option name in a bot's own code: a 0.0 would play on
         * silently with a wrong parameter, so stop here in every build type */
        fprintf(stderr, "tessera: bot_opt: bot '%s' has no option '%s' (a bug in its code)\n",
                b->type->name, name ? name : "(null)");
        abort();
    }
    return b->val[i].v;
}

const bot_value *bot_opt_value(const bot *b, const char *name)
{
    int i = param_index(b, name);
    return i < 0 ? NULL : &b->val[i];
}

static int fmt_value(const bot_param *p, const bot_value *v, char *buf, size_t cap)
{
    switch (p->kind) {
    case BOT_BOOL: return snprintf(buf, cap, "%s", v->v ? "true" : "false");
    case BOT_ENUM: return snprintf(buf, cap, "%s", p->choices[(int)v->v]);
    case BOT_INT: return snprintf(buf, cap, "%.0f", v->v);
    case BOT_REAL: return snprintf(buf, cap, "%g", v->v);
    case BOT_LIST: {
        int n = 0;
        for (int i = 0; i < v->n && (size_t)n < cap; i++)
            n += snprintf(buf + n, cap - (size_t)n, "%s%g", i ? "/" : "", v->list[i]);
        return n;
    }
    case BOT_STR:
    case BOT_FILE: return snprintf(buf, cap, "%s", v->str);
    }
    return 0;
}

int bot_describe(const bot *b, char *buf, size_t cap)
{
    size_t n = 0;
#define PUT(...)                                                                                    \
    do {                                                                                            \
        int k_ = snprintf(n < cap ? buf + n : NULL, n < cap ? cap - n : 0, __VA_ARGS__);          \
        if (k_ > 0)                                                                                 \
            n += (size_t)k_;                                                                        \
    } while (0)
    PUT("%s", b->type->name);
    char sep = ':';
    for (int i = 0; i < b->type->nparams; i++) {
        char v[BOT_STR_MAX];
        bot_param_kind k = b->type->params[i].kind;
        if ((k == BOT_STR || k == BOT_FILE) && !b->val[i].str[0])
            continue; /* an unset text option is not written (empty is refused) */
        fmt_value(&b->type->params[i], &b->val[i], v, sizeof v);
        PUT("%c%s=%s", sep, b->type->params[i].name, v);
        sep = ',';
    }
    if (b->sims) {
        PUT("%csims=%lld", sep, (long long)b->sims);
        sep = ',';
    }
    if (b->ms)
        PUT("%cms=%lld", sep, (long long)b->ms);
#undef PUT
    return (int)n;
}

int bot_catalogue(char *buf, size_t cap)
{
    size_t n = 0;
#define PUT(...)                                                                                    \
    do {                                                                                            \
        int k_ = snprintf(n < cap ? buf + n : NULL, n < cap ? cap - n : 0, __VA_ARGS__);          \
        if (k_ > 0)                                                                                 \
            n += (size_t)k_;                                                                        \
    } while (0)
    int nt;
    const bot_type *const *all = bot_types(&nt);
    for (int t = 0; t < nt; t++) {
        const bot_type *ty = all[t];
        PUT("%s\n  %s\n", ty->name, ty->summary);
        for (int i = 0; i < ty->nparams; i++) {
            const bot_param *p = &ty->params[i];
            bot_value v;
            set_default(p, &v);
            char d[BOT_STR_MAX];
            fmt_value(p, &v, d, sizeof d);
            if ((p->kind == BOT_STR || p->kind == BOT_FILE) && !d[0])
                snprintf(d, sizeof d, "(unset)");
            char range[128] = "";
            if (p->kind == BOT_INT || p->kind == BOT_REAL)
                snprintf(range, sizeof range, " [%g..%g]", p->min, p->max);
            else if (p->kind == BOT_ENUM) {
                size_t k = 0;
                range[k++] = ' ';
                range[k++] = '[';
                for (int c = 0; p->choices[c]; c++)
                    k += (size_t)snprintf(range + k, sizeof range - k, "%s%s", c ? "|" : "",
                                          p->choices[c]);
                snprintf(range + k, sizeof range - k, "]");
            }
            PUT("    %s=%s%s  %s\n", p->name, d, range, p->help);
        }
    }
    PUT("common options (every bot): ");
    for (int i = 0; i < NCOMMON; i++)
        PUT("%s%s", i ? ", " : "", common_params[i].name);
    PUT("\n");
    for (int i = 0; i < NCOMMON; i++) {
        bot_value v;
        char d[sizeof v.str + 64]; /* a string's default whole, or a number or a list */
        set_default(&common_params[i], &v);
        fmt_value(&common_params[i], &v, d, sizeof d);
        PUT("    %s=%s  %s\n", common_params[i].name, d, common_params[i].help);
    }
#undef PUT
    return (int)n;
}

/* ---- the budget clock ---------------------------------------------------- */

double bot_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

void bot_clock_start(bot_clock *c, const bot *b, const bot_budget *budget, int64_t default_sims)
{
    /* A caller's budget caps the spec's: the smaller limit of each kind
     * wins, and the bot's default simulation count applies only when neither
     * the spec nor the caller limits simulations and the spec sets no time. */
    int64_t sims = b->sims, ms = b->ms;
    if (budget && budget->sims > 0)
        sims = sims > 0 && sims < budget->sims ? sims : budget->sims;
    bool own_time = ms > 0;
    if (budget && budget->ms > 0)
        ms = ms > 0 && ms < budget->ms ? ms : budget->ms;
    if (sims <= 0 && !own_time && !(budget && budget->sims > 0) &&
        !(budget && budget->ms > 0 && !budget->cap_only))
        sims = default_sims;
    c->start_ms = bot_now_ms();
    c->end_ms = ms > 0 ? c->start_ms + (double)ms : INFINITY;
    c->max_sims = sims > 0 ? sims : INT64_MAX;
    c->stop = budget ? budget->stop : NULL;
    c->sims = 0;
}

bool bot_clock_done(bot_clock *c)
{
    if (c->sims >= c->max_sims)
        return true;
    if (c->stop && atomic_load_explicit(c->stop, memory_order_relaxed))
        return true;
    /* Reading the clock costs ~20 ns (vDSO) against microseconds per
     * simulation, so it is read every time: the overshoot is one simulation. */
    return c->end_ms != INFINITY && bot_now_ms() >= c->end_ms;
}

/* ---- thinking lines -------------------------------------------------------------- */

void bot_set_think(bot *b, bot_think_fn fn, void *user, double every_ms)
{
    b->think_fn = fn;
    b->think_user = user;
    b->think_every_ms = every_ms > 0 ? every_ms : 0;
    b->think_last_ms = 0;
}

bool bot_think_due(const bot *b, double now_ms)
{
    return b->think_fn && now_ms - b->think_last_ms >= b->think_every_ms;
}

void bot_think_tell(bot *b, const bot_think *t)
{
    if (!b->think_fn)
        return;
    b->think_last_ms = bot_now_ms();
    b->think_fn(b->think_user, t);
}
