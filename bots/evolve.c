/*
 * evolve.c — the offline evolution of EvoMCTS evaluations (see evolve.h):
 * the population, coevolution games on worker threads, elitism, tournament
 * selection, selective crossover, mutation, and checkpoints as text files.
 *
 * A checkpoint is written after each evaluated generation and holds
 * everything the next generation depends on: the parameters, the game and
 * its rules, the generation count, the breeding generator's state, the
 * fitness history and the population with its fitness, one individual per
 * line in tgp_print's form (numbers are written so they read back exactly).
 * Loading it and calling evo_step() continues exactly as the uninterrupted
 * run would have.
 */
#include "evolve.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evomcts.h"

#define CKPT_MAGIC     "tessera-evolve 1"
#define CKPT_LINE_MAX  (TGP_TEXT_MAX + 256)
#define EVO_POP_MAX    100000
#define EVO_BOT_MEM_MB 16 /* tree memory of each evolving player */

struct evo_run {
    const eng_game *g;
    eng_rules rules;
    evo_params p;
    tgp_set set;
    int gen;       /* generations evaluated */
    eng_rng rng;   /* pairings and breeding */
    tgp_expr *pop; /* p.population individuals */
    double *fit;   /* their fitness (valid when gen > 0) */
    int *rank;     /* indices by fitness, best first (valid when gen > 0) */
    double *hist;  /* best fitness and mean size of generations 1..gen (2 each) */
    int hist_cap;  /* generations the history has room for */
};

void evo_params_default(evo_params *p)
{
    memset(p, 0, sizeof *p);
    p->population = 120;
    p->generations = 100;
    p->coplay = 25;
    p->seed = 1;
    p->sims = 100;
    p->pbf = 4;
    p->max_depth = TGP_DEFAULT_DEPTH;
    p->init_min = 2;
    p->init_max = 6;
    p->pxo = 0.8;
    p->pm = 0.2;
    p->plm = 0.5;
    p->tour_size = 2;
    p->tour_winners = 1;
    p->elite = 2;
}

static void expr_copy(tgp_expr *dst, const tgp_expr *src)
{
    dst->n = src->n;
    memcpy(dst->node, src->node, (size_t)src->n * sizeof src->node[0]);
}

/* The spec of the evolving players. */
static int evo_player_spec(const evo_params *p, char *buf, size_t cap)
{
    return snprintf(buf, cap, "evomcts:sims=%d,pbf=%d,mem=%d%s%s", p->sims, p->pbf, EVO_BOT_MEM_MB,
                    p->extra[0] ? "," : "", p->extra);
}

static int check_params(const eng_game *g, const eng_rules *rules, const evo_params *p, char *err,
                        size_t cap)
{
#define RANGE(field, lo, hi)                                                                       \
    if (!(p->field >= (lo) && p->field <= (hi)))                                                   \
        return eng_seterr(err, cap, ENG_EINVAL, #field " must be from %g to %g", (double)(lo),     \
                          (double)(hi));
    RANGE(population, 2, EVO_POP_MAX)
    RANGE(generations, 1, 1000000)
    RANGE(coplay, 1, 10000)
    RANGE(sims, 1, 1000000)
    RANGE(pbf, 1, 64)
    RANGE(max_depth, 1, TGP_DEPTH_LIMIT)
    RANGE(init_min, 0, p->max_depth)
    RANGE(init_max, p->init_min, p->max_depth)
    RANGE(pxo, 0, 1)
    RANGE(pm, 0, 1)
    RANGE(plm, 0, 1)
    RANGE(tour_size, 1, p->population)
    RANGE(tour_winners, 1, p->tour_size)
    RANGE(elite, 0, p->population - 1)
#undef RANGE
    if (rules->players != 2)
        return eng_seterr(err, cap, ENG_EBAD_PLAYERS,
                          "coevolution plays two-player games; %s has %d players", g->name,
                          (int)rules->players);
    if (strstr(p->extra, "eval=") || strstr(p->extra, "sims=") || strstr(p->extra, "pbf="))
        return eng_seterr(err, cap, ENG_EINVAL,
                          "the players' options may not set eval, sims or pbf (they are "
                          "parameters of the run)");
    char spec[BOT_SPEC_MAX + 64], why[256];
    int n = evo_player_spec(p, spec, sizeof spec);
    if (n < 0 || n >= BOT_SPEC_MAX)
        return eng_seterr(err, cap, ENG_EINVAL, "the players' options are too long");
    if (bot_check_spec(spec, g, why, sizeof why) != 0)
        return eng_seterr(err, cap, ENG_EINVAL, "the players' options: %s", why);
    return 0;
}

static evo_run *run_alloc(const eng_game *g, const eng_rules *rules, const evo_params *p)
{
    evo_run *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->g = g;
    r->rules = *rules;
    r->p = *p;
    tgp_set_init(&r->set, g);
    size_t n = (size_t)p->population;
    r->pop = malloc(n * sizeof *r->pop);
    r->fit = calloc(n, sizeof *r->fit);
    r->rank = calloc(n, sizeof *r->rank);
    r->hist_cap = p->generations;
    r->hist = calloc((size_t)r->hist_cap * 2, sizeof *r->hist);
    if (!r->pop || !r->fit || !r->rank || !r->hist) {
        evo_destroy(r);
        return NULL;
    }
    return r;
}

void evo_destroy(evo_run *r)
{
    if (!r)
        return;
    free(r->pop);
    free(r->fit);
    free(r->rank);
    free(r->hist);
    free(r);
}

evo_run *evo_create(const eng_game *g, const eng_rules *rules, const evo_params *p, char *err,
                    size_t errcap)
{
    if (check_params(g, rules, p, err, errcap) != 0)
        return NULL;
    evo_run *r = run_alloc(g, rules, p);
    if (!r) {
        eng_seterr(err, errcap, ENG_ENOMEM, "out of memory for a population of %d", p->population);
        return NULL;
    }
    eng_rng_seed(&r->rng, p->seed);
    /* ramped half-and-half over depths init_min..init_max */
    int span = p->init_max - p->init_min + 1;
    for (int i = 0; i < p->population; i++)
        tgp_random(&r->pop[i], &r->set, &r->rng, p->init_min + i % span, (i / span) % 2 == 0);
    return r;
}

const eng_game *evo_game(const evo_run *r)
{
    return r->g;
}
const eng_rules *evo_rules(const evo_run *r)
{
    return &r->rules;
}
const evo_params *evo_get_params(const evo_run *r)
{
    return &r->p;
}
const tgp_set *evo_set(const evo_run *r)
{
    return &r->set;
}
int evo_generation(const evo_run *r)
{
    return r->gen;
}

void evo_set_generations(evo_run *r, int generations)
{
    if (generations > r->hist_cap) {
        double *h = realloc(r->hist, (size_t)generations * 2 * sizeof *h);
        if (!h)
            return;
        memset(h + 2 * r->hist_cap, 0, (size_t)(generations - r->hist_cap) * 2 * sizeof *h);
        r->hist = h;
        r->hist_cap = generations;
    }
    if (generations >= r->gen)
        r->p.generations = generations;
}

void evo_history(const evo_run *r, int g, double *best, double *mean_nodes)
{
    *best = *mean_nodes = 0;
    if (g >= 1 && g <= r->gen && g <= r->hist_cap) {
        *best = r->hist[2 * (g - 1)];
        *mean_nodes = r->hist[2 * (g - 1) + 1];
    }
}

const tgp_expr *evo_ranked(const evo_run *r, int rank, double *fitness)
{
    if (r->gen == 0 || rank < 0 || rank >= r->p.population)
        return NULL;
    if (fitness)
        *fitness = r->fit[r->rank[rank]];
    return &r->pop[r->rank[rank]];
}

/* rank[] := indices by fitness, best first, ties by index. */
static void rank_population(evo_run *r)
{
    int n = r->p.population;
    for (int i = 0; i < n; i++)
        r->rank[i] = i;
    /* insertion sort: stable and plenty fast for a population */
    for (int i = 1; i < n; i++) {
        int x = r->rank[i], j = i - 1;
        while (j >= 0 && r->fit[r->rank[j]] < r->fit[x]) {
            r->rank[j + 1] = r->rank[j];
            j--;
        }
        r->rank[j + 1] = x;
    }
}

/* ---- breeding ------------------------------------------------------------------------ */

static int breed(evo_run *r)
{
    const evo_params *p = &r->p;
    int n = p->population, e = p->elite, m = n - e;
    tgp_expr *next = malloc((size_t)n * sizeof *next);
    int *src = malloc((size_t)(m > 0 ? m : 1) * sizeof *src);
    int *pick = malloc((size_t)n * sizeof *pick);
    bool *used = calloc((size_t)(m > 0 ? m : 1), sizeof *used);
    if (!next || !src || !pick || !used) {
        free(next);
        free(src);
        free(pick);
        free(used);
        return ENG_ENOMEM;
    }
    for (int i = 0; i < e; i++)
        expr_copy(&next[i], &r->pop[r->rank[i]]);
    /* Algorithm 3: tournaments of tour_size, tour_winners copies each */
    for (int k = 0; k < m;) {
        for (int i = 0; i < n; i++)
            pick[i] = i;
        for (int i = 0; i < p->tour_size; i++) { /* partial shuffle: the contestants */
            int j = i + (int)eng_rng_below(&r->rng, (uint32_t)(n - i));
            int t = pick[i];
            pick[i] = pick[j];
            pick[j] = t;
        }
        for (int i = 1; i < p->tour_size; i++) { /* best first, ties in drawing order */
            int x = pick[i], j = i - 1;
            while (j >= 0 && r->fit[pick[j]] < r->fit[x]) {
                pick[j + 1] = pick[j];
                j--;
            }
            pick[j + 1] = x;
        }
        for (int w = 0; w < p->tour_winners && k < m; w++)
            src[k++] = pick[w];
    }
    for (int i = 0; i < m; i++)
        expr_copy(&next[e + i], &r->pop[src[i]]);
    /* Algorithm 1: selective crossover between parents not yet chosen */
    for (int i = 0; i < m; i++) {
        if (used[i] || eng_rng_double(&r->rng) >= p->pxo)
            continue;
        int free_others = 0;
        for (int j = 0; j < m; j++)
            free_others += !used[j] && j != i;
        if (!free_others)
            continue;
        int k = (int)eng_rng_below(&r->rng, (uint32_t)free_others), j = 0;
        for (;; j++)
            if (!used[j] && j != i && k-- == 0)
                break;
        used[i] = used[j] = true;
        if (r->fit[src[i]] >= r->fit[src[j]])
            tgp_cross_one_way(&next[e + i], &next[e + j], &r->rng, p->max_depth);
        else
            tgp_cross_two_way(&next[e + i], &next[e + j], &r->rng, p->max_depth);
    }
    for (int i = 0; i < m; i++)
        if (eng_rng_double(&r->rng) < p->pm)
            tgp_mutate(&next[e + i], &r->set, &r->rng, p->max_depth, p->plm);
    for (int i = 0; i < n; i++)
        expr_copy(&r->pop[i], &next[i]);
    free(next);
    free(src);
    free(pick);
    free(used);
    return 0;
}

/* ---- coevolution games ------------------------------------------------------------------ */

typedef struct job {
    evo_run *r;
    int ngames;
    int *first, *second; /* individuals in seats 0 and 1 */
    double *result;      /* returns of seat 0 */
    atomic_int next;
    int done;
    pthread_mutex_t lock;
    evo_game_fn fn;
    void *ud;
    const atomic_bool *stop;
    atomic_int failed; /* an error code, 0 */
    char why[256];
} job;

static uint64_t game_seed(const evo_run *r, int game)
{
    uint64_t x = r->p.seed ^ (0x9e3779b97f4a7c15ULL * (uint64_t)(r->gen + 1));
    x ^= 0xd1b54a32d192ed03ULL * (uint64_t)(game + 1);
    return eng_splitmix64(&x);
}

/* Play game i of the job; false when stopped. */
static bool play_one(job *jb, int i, bot *const *bots, void *st)
{
    evo_run *r = jb->r;
    const eng_game *g = r->g;
    uint64_t seed = game_seed(r, i);
    evomcts_set_eval(bots[0], &r->pop[jb->first[i]]);
    evomcts_set_eval(bots[1], &r->pop[jb->second[i]]);
    for (int s = 0; s < 2; s++) {
        eng_rng_seed_stream(&bots[s]->rng, seed, (uint64_t)s);
        bot_reset(bots[s]);
    }
    eng_rng chance;
    eng_rng_seed_stream(&chance, seed, 2);
    g->init(st, &r->rules);
    bot_budget budget = {.stop = jb->stop};
    for (;;) {
        int p = g->current_player(st);
        if (p == ENG_TERMINAL)
            break;
        eng_move m = p == ENG_CHANCE ? eng_sample_chance(g, st, &chance)
                                     : bot_choose(bots[p], st, &budget, NULL);
        if (jb->stop && atomic_load(jb->stop))
            return false;
        for (int s = 0; s < 2; s++)
            bot_observe(bots[s], st, m);
        g->apply(st, m);
    }
    double ret[ENG_MAX_PLAYERS];
    g->returns(st, ret);
    jb->result[i] = ret[0];
    return true;
}

static void *worker(void *arg)
{
    job *jb = arg;
    evo_run *r = jb->r;
    char spec[BOT_SPEC_MAX], why[256] = "";
    evo_player_spec(&r->p, spec, sizeof spec);
    bot *bots[2] = {NULL, NULL};
    void *st = malloc(r->g->state_size);
    for (int s = 0; s < 2; s++)
        bots[s] = bot_create(spec, r->g, 1, why, sizeof why);
    if (!bots[0] || !bots[1] || !st) {
        int expected = 0;
        if (atomic_compare_exchange_strong(&jb->failed, &expected, ENG_ENOMEM))
            snprintf(jb->why, sizeof jb->why, "cannot make the players: %.200s",
                     why[0] ? why : "out of memory");
    } else {
        for (;;) {
            if (atomic_load(&jb->failed) || (jb->stop && atomic_load(jb->stop)))
                break;
            int i = atomic_fetch_add(&jb->next, 1);
            if (i >= jb->ngames)
                break;
            if (!play_one(jb, i, bots, st))
                break;
            pthread_mutex_lock(&jb->lock);
            jb->done++;
            if (jb->fn)
                jb->fn(jb->ud, jb->done, jb->ngames);
            pthread_mutex_unlock(&jb->lock);
        }
    }
    bot_destroy(bots[0]);
    bot_destroy(bots[1]);
    free(st);
    return NULL;
}

/* A permutation of 0..n-1 without fixed points (n >= 2). */
static void derangement(eng_rng *rng, int *perm, int n)
{
    for (int i = 0; i < n; i++)
        perm[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)eng_rng_below(rng, (uint32_t)i + 1);
        int t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (int i = 0; i < n; i++)
        if (perm[i] == i) { /* swap with the next: both stay permuted, this one moves */
            int j = (i + 1) % n, t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
}

int evo_step(evo_run *r, int threads, const atomic_bool *stop, evo_game_fn fn, void *ud,
             evo_report *rep, char *err, size_t errcap)
{
    const evo_params *p = &r->p;
    if (r->gen >= p->generations)
        return eng_seterr(err, errcap, ENG_EINVAL, "the run's %d generations are done",
                          p->generations);
    double t0 = bot_now_ms();
    if (r->gen > 0) {
        int rc = breed(r);
        if (rc)
            return eng_seterr(err, errcap, rc, "out of memory while breeding");
    }
    /* Algorithm 2: coplay rounds, each a derangement of the population */
    int n = p->population, ngames = n * p->coplay;
    job jb;
    memset(&jb, 0, sizeof jb);
    jb.r = r;
    jb.ngames = ngames;
    jb.first = malloc((size_t)ngames * sizeof(int));
    jb.second = malloc((size_t)ngames * sizeof(int));
    jb.result = calloc((size_t)ngames, sizeof(double));
    int *perm = malloc((size_t)n * sizeof(int));
    if (!jb.first || !jb.second || !jb.result || !perm) {
        free(jb.first);
        free(jb.second);
        free(jb.result);
        free(perm);
        return eng_seterr(err, errcap, ENG_ENOMEM, "out of memory");
    }
    for (int k = 0; k < p->coplay; k++) {
        derangement(&r->rng, perm, n);
        for (int i = 0; i < n; i++) {
            jb.first[k * n + i] = i;
            jb.second[k * n + i] = perm[i];
        }
    }
    jb.fn = fn;
    jb.ud = ud;
    jb.stop = stop;
    pthread_mutex_init(&jb.lock, NULL);
    if (threads < 1)
        threads = 1;
    if (threads > ngames)
        threads = ngames;
    pthread_t *tid = calloc((size_t)threads, sizeof *tid);
    int started = 0;
    for (int t = 1; tid && t < threads; t++)
        if (pthread_create(&tid[t], NULL, worker, &jb) == 0)
            started = t;
        else
            break;
    worker(&jb);
    for (int t = 1; t <= started; t++)
        pthread_join(tid[t], NULL);
    free(tid);
    pthread_mutex_destroy(&jb.lock);
    int rc = 0;
    if (atomic_load(&jb.failed))
        rc = eng_seterr(err, errcap, atomic_load(&jb.failed), "%s", jb.why);
    else if (stop && atomic_load(stop))
        rc =
            eng_seterr(err, errcap, ENG_ESHUTTING_DOWN, "stopped during generation %d", r->gen + 1);
    if (rc == 0) {
        for (int i = 0; i < n; i++)
            r->fit[i] = 0;
        for (int i = 0; i < ngames; i++) {
            r->fit[jb.first[i]] += jb.result[i];
            r->fit[jb.second[i]] += 1.0 - jb.result[i];
        }
        rank_population(r);
        double nodes = 0;
        for (int i = 0; i < n; i++)
            nodes += r->pop[i].n;
        r->gen++;
        if (r->gen > r->hist_cap)
            evo_set_generations(r, r->gen);
        r->hist[2 * (r->gen - 1)] = r->fit[r->rank[0]];
        r->hist[2 * (r->gen - 1) + 1] = nodes / n;
        if (rep) {
            rep->generation = r->gen;
            rep->generations = p->generations;
            rep->games = ngames;
            rep->games_each = 2 * p->coplay;
            rep->best = r->fit[r->rank[0]];
            rep->mean_nodes = nodes / n;
            rep->best_index = r->rank[0];
            rep->seconds = (bot_now_ms() - t0) / 1000.0;
        }
    }
    free(jb.first);
    free(jb.second);
    free(jb.result);
    free(perm);
    return rc;
}

/* ---- checkpoints ------------------------------------------------------------------------- */

int evo_save(const evo_run *r, const char *path, char *err, size_t errcap)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp)
        return eng_seterr(err, errcap, ENG_EIO, "checkpoint path too long");
    FILE *f = fopen(tmp, "w");
    if (!f)
        return eng_seterr(err, errcap, ENG_EIO, "cannot write '%s': %s", tmp, strerror(errno));
    const evo_params *p = &r->p;
    fprintf(f,
            "%s\n# a checkpoint of `tessera evolve` (docs/evomcts.md); resume with --checkpoint\n",
            CKPT_MAGIC);
    fprintf(f, "game %s\nrules players=%d", r->g->name, (int)r->rules.players);
    for (int i = 0; i < r->g->n_options; i++)
        fprintf(f, " %s=%d", r->g->options[i].name, (int)r->rules.opt[i]);
    fprintf(f,
            "\nparams population=%d generations=%d coplay=%d seed=%" PRIu64
            " sims=%d pbf=%d max_depth=%d init_min=%d init_max=%d pxo=%.17g pm=%.17g plm=%.17g"
            " tour_size=%d tour_winners=%d elite=%d\n",
            p->population, p->generations, p->coplay, p->seed, p->sims, p->pbf, p->max_depth,
            p->init_min, p->init_max, p->pxo, p->pm, p->plm, p->tour_size, p->tour_winners,
            p->elite);
    fprintf(f, "extra %s\ngeneration %d\nrng", p->extra[0] ? p->extra : "-", r->gen);
    for (int i = 0; i < 4; i++)
        fprintf(f, " %016" PRIx64, r->rng.s[i]);
    fprintf(f, "\n");
    for (int g = 1; g <= r->gen; g++)
        fprintf(f, "history %d %.17g %.17g\n", g, r->hist[2 * (g - 1)], r->hist[2 * (g - 1) + 1]);
    static _Thread_local char text[TGP_TEXT_MAX + 1];
    for (int i = 0; i < p->population; i++) {
        tgp_print(&r->pop[i], &r->set, text, sizeof text);
        fprintf(f, "individual %.17g %s\n", r->fit[i], text);
    }
    fprintf(f, "end\n");
    bool ok = fflush(f) == 0 && !ferror(f);
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        int e = errno;
        remove(tmp);
        return eng_seterr(err, errcap, ENG_EIO, "cannot write '%s': %s", path, strerror(e));
    }
    return 0;
}

/* Read one line into buf (without the newline); false at the end or for a
 * line longer than cap. */
static bool read_line(FILE *f, char *buf, size_t cap, bool *too_long)
{
    *too_long = false;
    if (!fgets(buf, (int)cap, f))
        return false;
    size_t n = strlen(buf);
    if (n && buf[n - 1] == '\n')
        buf[--n] = 0;
    else if (!feof(f)) {
        *too_long = true;
        return false;
    }
    return true;
}

/* key=value tokens of a params line into p; 0 or -1 with a reason. */
static int parse_params(char *s, evo_params *p, char *why, size_t cap)
{
    char *save = NULL;
    int seen = 0;
    for (char *tok = strtok_r(s, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq) {
            snprintf(why, cap, "'%.40s' is not key=value", tok);
            return -1;
        }
        *eq = 0;
        const char *k = tok, *v = eq + 1;
        char *end;
        errno = 0;
        double d = strtod(v, &end);
        if (end == v || *end || errno) {
            snprintf(why, cap, "%.40s needs a number", k);
            return -1;
        }
#define INT_KEY(name)                                                                              \
    if (!strcmp(k, #name)) {                                                                       \
        p->name = (int)d;                                                                          \
        seen++;                                                                                    \
        continue;                                                                                  \
    }
#define REAL_KEY(name)                                                                             \
    if (!strcmp(k, #name)) {                                                                       \
        p->name = d;                                                                               \
        seen++;                                                                                    \
        continue;                                                                                  \
    }
        INT_KEY(population)
        INT_KEY(generations)
        INT_KEY(coplay)
        INT_KEY(sims)
        INT_KEY(pbf)
        INT_KEY(max_depth)
        INT_KEY(init_min)
        INT_KEY(init_max)
        INT_KEY(tour_size)
        INT_KEY(tour_winners)
        INT_KEY(elite)
        REAL_KEY(pxo)
        REAL_KEY(pm)
        REAL_KEY(plm)
#undef INT_KEY
#undef REAL_KEY
        if (!strcmp(k, "seed")) {
            p->seed = strtoull(v, NULL, 10);
            seen++;
            continue;
        }
        snprintf(why, cap, "unknown parameter '%.40s'", k);
        return -1;
    }
    if (seen != 15) {
        snprintf(why, cap, "%d of the 15 parameters", seen);
        return -1;
    }
    return 0;
}

evo_run *evo_load(const char *path, char *err, size_t errcap)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        eng_seterr(err, errcap, ENG_EIO, "cannot read '%s': %s", path, strerror(errno));
        return NULL;
    }
    char *line = malloc(CKPT_LINE_MAX);
    evo_run *r = NULL;
    const eng_game *g = NULL;
    eng_rules rules;
    evo_params p;
    evo_params_default(&p);
    int lineno = 0, gen = -1, nind = 0, nhist = 0, stage = 0;
    bool too_long, have_rng = false, ended = false;
    eng_rng rng;
    char why[512] = "";
    double *hist = NULL;
    if (!line) {
        fclose(f);
        eng_seterr(err, errcap, ENG_ENOMEM, "out of memory");
        return NULL;
    }
    while (!ended && read_line(f, line, CKPT_LINE_MAX, &too_long)) {
        lineno++;
        if (line[0] == '#' || line[0] == 0)
            continue;
        char *sp = strchr(line, ' ');
        char *rest = sp ? sp + 1 : line + strlen(line);
        if (sp)
            *sp = 0;
        const char *key = line;
        if (stage == 0) {
            if (strcmp(key, "tessera-evolve") || strcmp(rest, "1")) {
                snprintf(why, sizeof why, "not a tessera-evolve checkpoint of version 1");
                goto bad;
            }
            stage = 1;
        } else if (!strcmp(key, "game") && !g) {
            g = eng_find_game(rest);
            if (!g) {
                snprintf(why, sizeof why, "unknown game");
                goto bad;
            }
            eng_rules_default(g, &rules);
        } else if (!strcmp(key, "rules") && g) {
            char *save = NULL;
            for (char *tok = strtok_r(rest, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
                if (eng_rules_set(g, &rules, tok, why, sizeof why) != 0)
                    goto bad;
            if (eng_rules_check(g, &rules, why, sizeof why) != 0)
                goto bad;
        } else if (!strcmp(key, "params") && g && !r) {
            if (parse_params(rest, &p, why, sizeof why) != 0)
                goto bad;
        } else if (!strcmp(key, "extra") && g && !r) {
            if (strcmp(rest, "-") != 0) {
                if (strlen(rest) >= sizeof p.extra) {
                    snprintf(why, sizeof why, "extra options too long");
                    goto bad;
                }
                snprintf(p.extra, sizeof p.extra, "%s", rest);
            }
            if (check_params(g, &rules, &p, why, sizeof why) != 0)
                goto bad;
            r = run_alloc(g, &rules, &p);
            hist = calloc((size_t)p.generations * 2 + 2, sizeof *hist);
            if (!r || !hist) {
                snprintf(why, sizeof why, "out of memory");
                goto bad;
            }
        } else if (!strcmp(key, "generation") && r) {
            char *end;
            long v = strtol(rest, &end, 10);
            if (*end || v < 0 || v > p.generations) {
                snprintf(why, sizeof why, "bad generation");
                goto bad;
            }
            gen = (int)v;
        } else if (!strcmp(key, "rng") && r) {
            if (sscanf(rest, "%" SCNx64 " %" SCNx64 " %" SCNx64 " %" SCNx64, &rng.s[0], &rng.s[1],
                       &rng.s[2], &rng.s[3]) != 4 ||
                !(rng.s[0] | rng.s[1] | rng.s[2] | rng.s[3])) {
                snprintf(why, sizeof why, "bad generator state");
                goto bad;
            }
            have_rng = true;
        } else if (!strcmp(key, "history") && r && gen >= 0) {
            int k;
            double b, m;
            if (sscanf(rest, "%d %lf %lf", &k, &b, &m) != 3 || k != nhist + 1 || k > gen) {
                snprintf(why, sizeof why, "bad history line");
                goto bad;
            }
            hist[2 * nhist] = b;
            hist[2 * nhist + 1] = m;
            nhist++;
        } else if (!strcmp(key, "individual") && r && gen >= 0) {
            if (nind >= p.population) {
                snprintf(why, sizeof why, "more individuals than the population");
                goto bad;
            }
            char *end;
            double fit = strtod(rest, &end);
            if (end == rest || *end != ' ') {
                snprintf(why, sizeof why, "an individual needs its fitness");
                goto bad;
            }
            char pw[256];
            if (tgp_parse(&r->pop[nind], &r->set, end + 1, pw, sizeof pw) != 0) {
                snprintf(why, sizeof why, "individual %d: %s", nind + 1, pw);
                goto bad;
            }
            if (!tgp_check(&r->pop[nind], &r->set, p.max_depth)) {
                snprintf(why, sizeof why, "individual %d is deeper than %d", nind + 1, p.max_depth);
                goto bad;
            }
            r->fit[nind++] = fit;
        } else if (!strcmp(key, "end") && r) {
            ended = true;
        } else {
            snprintf(why, sizeof why, "unexpected line");
            goto bad;
        }
    }
    if (too_long) {
        lineno++;
        snprintf(why, sizeof why, "line too long");
        goto bad;
    }
    if (!ended || !r || gen < 0 || !have_rng || nind != p.population || nhist != gen) {
        snprintf(why, sizeof why, "incomplete checkpoint");
        goto bad;
    }
    free(line);
    fclose(f);
    r->gen = gen;
    r->rng = rng;
    memcpy(r->hist, hist, (size_t)gen * 2 * sizeof *hist);
    free(hist);
    if (gen > 0)
        rank_population(r);
    return r;
bad:
    eng_seterr(err, errcap, ENG_EINVAL, "%s, line %d: %s", path, lineno, why);
    free(line);
    free(hist);
    fclose(f);
    evo_destroy(r);
    return NULL;
}
