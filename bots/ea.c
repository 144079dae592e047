/*
 * ea.c — the (1+lambda) evolution of the selection formula (see ea.h) and
 * the three bots built on it: ea-p-mcts, ea-mcts and siea-mcts.
 *
 * The bots drive the shared MCTS engine (mcts.h) through its decision
 * driver and its pluggable selection formula (mcts_ctx.score): the real
 * tree is searched with UCT until the root is expanded, the formula is
 * evolved with fitness simulations backed up into the real tree (ea-mcts,
 * siea-mcts by default), into a copy of it (fitness_tree=copy) or read-only
 * on it (ea-p-mcts), and the search then continues with the evolved formula.
 * Everything is allocated at bot creation; a decision allocates nothing.
 */
#include "ea.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- individuals ------------------------------------------------------------ */

static void indiv_reset(ea_indiv *in)
{
    in->nsem = 0;
    in->fitness = 0.0;
    in->evaluated = false;
}

static void indiv_copy(ea_indiv *dst, const ea_indiv *src)
{
    gp_copy(&dst->expr, &src->expr);
    dst->nsem = src->nsem;
    memcpy(dst->sem, src->sem, (size_t)src->nsem * sizeof src->sem[0]);
    dst->fitness = src->fitness;
    dst->evaluated = src->evaluated;
}

void ea_indiv_add(ea_indiv *in, int fitness_sims, double reward)
{
    if (in->nsem >= fitness_sims)
        return;
    /* insertion keeps the cases sorted ascending (S is small) */
    int i = in->nsem++;
    while (i > 0 && in->sem[i - 1] > reward) {
        in->sem[i] = in->sem[i - 1];
        i--;
    }
    in->sem[i] = reward;
    if (in->nsem == fitness_sims) {
        /* Summing the sorted cases makes the fitness a function of the
         * multiset of rewards, so equal semantics give exactly equal
         * fitness and ties are detected reliably. */
        double sum = 0.0;
        for (int j = 0; j < in->nsem; j++)
            sum += in->sem[j];
        in->fitness = sum / in->nsem;
        in->evaluated = true;
    }
}

double ea_ssd(const double *a, const double *b, int n)
{
    double sum = 0.0;
    for (int i = 0; i < n; i++)
        sum += fabs(a[i] - b[i]);
    return n > 0 ? sum / n : 0.0;
}

int ea_select(const double *fitness, const double *const *sem, int count, int nsem, bool semantic,
              double alpha, double beta, bool parent_ties, eng_rng *rng, bool *by_semantics)
{
    if (by_semantics)
        *by_semantics = false;
    if (count > EA_MAX_LAMBDA + 1)
        count = EA_MAX_LAMBDA + 1;
    double best = fitness[0];
    for (int i = 1; i < count; i++)
        if (fitness[i] > best)
            best = fitness[i];
    /* the tied individuals: with parent_ties the parent among them (first) */
    int tied[EA_MAX_LAMBDA + 1], nt = 0;
    for (int i = parent_ties ? 0 : 1; i < count; i++)
        if (fitness[i] == best)
            tied[nt++] = i;
    if (nt == 0)
        return 0; /* the parent alone is best: it is kept */
    if (nt == 1)
        return tied[0]; /* a unique best (without parent_ties: or the one tying with its parent) */
    if (semantic) {
        int pick = -1;
        double pick_d = INFINITY;
        for (int j = 0; j < nt; j++) {
            double d = ea_ssd(sem[tied[j]], sem[0], nsem);
            if (d > alpha && d < beta && d < pick_d) {
                pick = tied[j];
                pick_d = d;
            }
        }
        if (pick >= 0) {
            if (by_semantics)
                *by_semantics = true;
            return pick;
        }
    } else if (parent_ties && tied[0] == 0) {
        return 0; /* EA: the parent keeps its place in a tie */
    }
    return tied[eng_rng_below(rng, (uint32_t)nt)];
}

/* ---- the evolution ------------------------------------------------------------ */

int ea_evo_init(ea_evo *ev, const ea_params *par)
{
    memset(ev, 0, sizeof *ev);
    ev->par = *par;
    ev->pop = calloc((size_t)par->lambda + 1, sizeof *ev->pop);
    return ev->pop ? 0 : ENG_ENOMEM;
}

void ea_evo_free(ea_evo *ev)
{
    free(ev->pop);
    ev->pop = NULL;
}

void ea_evo_seed(ea_evo *ev)
{
    gp_seed_uct(&ev->pop[0].expr, ev->par.k);
    indiv_reset(&ev->pop[0]);
}

bool ea_evaluate(ea_evo *ev, ea_indiv *in, mcts_ctx *ctx, int where, int seat, bot_clock *clk)
{
    int S = ev->par.fitness_sims;
    mcts_score_fn score = ctx->score;
    void *ud = ctx->score_ud;
    bool backup = ctx->backup, expand = ctx->expand;
    ctx->score = gp_score;
    ctx->score_ud = &in->expr;
    ctx->backup = ctx->expand = where != EA_READ_ONLY;
    indiv_reset(in);
    while (in->nsem < S && !bot_clock_done(clk)) {
        mcts_simulate(ctx);
        clk->sims++;
        ev->sims++;
        ea_indiv_add(in, S, ctx->reward[seat]);
    }
    ctx->score = score;
    ctx->score_ud = ud;
    ctx->backup = backup;
    ctx->expand = expand;
    return in->evaluated;
}

int ea_evolve(ea_evo *ev, mcts_ctx *ctx, int seat, bot_clock *clk, eng_rng *rng)
{
    const ea_params *par = &ev->par;
    ea_indiv *pop = ev->pop;
    ev->gens_done = 0;
    ev->sims = 0;
    ev->evaluations = 0;
    ev->ties = ev->offspring_ties = ev->semantic = 0;
    if (par->seed_eval == EA_SEED_FITNESS && !pop[0].evaluated) {
        if (!ea_evaluate(ev, &pop[0], ctx, par->where, seat, clk))
            return 0;
        ev->evaluations++;
    }
    if (!pop[0].evaluated)
        return 0;
    double fit[EA_MAX_LAMBDA + 1];
    const double *sem[EA_MAX_LAMBDA + 1];
    for (int gen = 0; gen < par->gens; gen++) {
        int count = 1;
        for (int i = 1; i <= par->lambda; i++) {
            ea_indiv *o = &pop[i];
            gp_copy(&o->expr, &pop[0].expr);
            gp_mutate(&o->expr, rng, par->kset, par->nk, par->max_depth, par->p_internal);
            if (!ea_evaluate(ev, o, ctx, par->where, seat, clk))
                break; /* out of budget: the offspring evaluated so far still compete */
            ev->evaluations++;
            count++;
        }
        for (int i = 0; i < count; i++) {
            fit[i] = pop[i].fitness;
            sem[i] = pop[i].sem;
        }
        double best = fit[0];
        for (int i = 1; i < count; i++)
            best = fit[i] > best ? fit[i] : best;
        int at_best = fit[0] == best, offspring_at_best = 0;
        for (int i = 1; i < count; i++)
            offspring_at_best += fit[i] == best;
        ev->ties += at_best + offspring_at_best >= 2;
        ev->offspring_ties += offspring_at_best >= 2;
        bool by_sem;
        int w = ea_select(fit, sem, count, par->fitness_sims, par->semantic, par->alpha, par->beta,
                          par->parent_ties, rng, &by_sem);
        ev->semantic += by_sem;
        if (w != 0)
            indiv_copy(&pop[0], &pop[w]);
        if (count < par->lambda + 1)
            break;
        ev->gens_done++;
    }
    return ev->gens_done;
}

/* ---- the bots ------------------------------------------------------------------- */

enum ea_variant { EA_P_MCTS, EA_MCTS, SIEA_MCTS };

typedef struct ea_impl {
    mcts_bot mb; /* the real tree and the decision driver */
    ea_evo evo;
    bool has_copy;     /* fitness simulations run on a copy of the tree */
    mcts_tree copy;    /* the copy (has_copy) */
    mcts_ctx copy_ctx; /* a context searching the copy (has_copy) */
    ea_report rep;     /* the last decision */
} ea_impl;

extern const bot_type bot_ea_p_mcts_type, bot_ea_mcts_type, bot_siea_mcts_type;

static const char *const ea_tree_names[] = {"copy", "real", NULL};
static const char *const ea_seed_names[] = {"mcts", "fitness", NULL};
static const char *const ea_ties_names[] = {"parent", "offspring", NULL};

static bool is_ea(const bot *b)
{
    return b && (b->type == &bot_ea_p_mcts_type || b->type == &bot_ea_mcts_type ||
                 b->type == &bot_siea_mcts_type);
}

const ea_report *ea_bot_report(const bot *b)
{
    return is_ea(b) && b->impl ? &((const ea_impl *)b->impl)->rep : NULL;
}

const mcts_tree *ea_bot_tree(const bot *b)
{
    return is_ea(b) && b->impl ? &((const ea_impl *)b->impl)->mb.tree : NULL;
}

static void ea_close(bot *b)
{
    ea_impl *im = b->impl;
    if (!im)
        return;
    mcts_bot_free(&im->mb);
    if (im->has_copy) {
        mcts_ctx_free(&im->copy_ctx);
        mcts_tree_free(&im->copy);
    }
    ea_evo_free(&im->evo);
    free(im);
    b->impl = NULL;
}

static int ea_init(bot *b, char *err, size_t cap, int variant)
{
    ea_params par;
    memset(&par, 0, sizeof par);
    par.lambda = (int)bot_opt(b, "lambda");
    par.gens = (int)bot_opt(b, "gens");
    par.fitness_sims = (int)bot_opt(b, "fitness_sims");
    par.max_depth = (int)bot_opt(b, "max_depth");
    const bot_value *ks = bot_opt_value(b, "kset");
    par.nk = ks->n;
    memcpy(par.kset, ks->list, sizeof par.kset);
    par.p_internal = bot_opt(b, "p_internal");
    par.k = bot_opt(b, "k");
    par.seed_eval = (int)bot_opt(b, "seed_eval");
    par.parent_ties = bot_opt(b, "ties") == 0;
    par.semantic = variant == SIEA_MCTS;
    if (par.semantic) {
        par.alpha = bot_opt(b, "alpha");
        par.beta = bot_opt(b, "beta");
        if (!(par.alpha < par.beta)) {
            snprintf(err, cap, "%s: alpha (%g) must be below beta (%g)", b->type->name, par.alpha,
                     par.beta);
            return ENG_EBAD_BOT_SPEC;
        }
    }
    if (variant == EA_P_MCTS)
        par.where = EA_READ_ONLY;
    else
        par.where = bot_opt(b, "fitness_tree") == 0 ? EA_ON_COPY : EA_ON_REAL_TREE;

    ea_impl *im = calloc(1, sizeof *im);
    if (!im) {
        snprintf(err, cap, "%s: out of memory", b->type->name);
        return ENG_ENOMEM;
    }
    b->impl = im;
    im->has_copy = par.where == EA_ON_COPY;
    /* mem= bounds the whole search: with a copy, half for the real tree
     * (and its reuse spare), half for the copy. */
    mcts_family fam = {.default_sims = 400, .select = MCTS_S_UCT};
    if (im->has_copy)
        fam.mem_bytes = ((size_t)b->mem_mb << 20) / 2;
    int rc = mcts_bot_init(&im->mb, b, &fam, err, cap);
    if (rc) {
        free(im);
        b->impl = NULL;
        return rc;
    }
    if (im->has_copy) {
        /* same capacity as the real tree, so a copy always fits */
        if (mcts_tree_alloc(&im->copy, (size_t)im->mb.tree.cap * sizeof(mcts_node), false) ||
            mcts_ctx_init(&im->copy_ctx, b->game, &im->mb.cfg, &b->rng, &im->copy)) {
            im->has_copy = false;
            mcts_tree_free(&im->copy);
            ea_close(b);
            snprintf(err, cap, "%s: out of memory for the tree copy", b->type->name);
            return ENG_ENOMEM;
        }
    }
    if (ea_evo_init(&im->evo, &par)) {
        ea_close(b);
        snprintf(err, cap, "%s: out of memory", b->type->name);
        return ENG_ENOMEM;
    }
    return 0;
}

static int ea_p_init(bot *b, char *err, size_t cap)
{
    return ea_init(b, err, cap, EA_P_MCTS);
}
static int ea_mcts_init(bot *b, char *err, size_t cap)
{
    return ea_init(b, err, cap, EA_MCTS);
}
static int siea_init(bot *b, char *err, size_t cap)
{
    return ea_init(b, err, cap, SIEA_MCTS);
}

static bool root_expanded(const mcts_tree *t)
{
    const mcts_node *r = &t->node[MCTS_ROOT];
    return r->child != 0 && r->tried >= r->nchild;
}

static void mcts_iter(mcts_bot *mb, bot_clock *clk)
{
    mcts_simulate(&mb->ctx);
    clk->sims++;
}

static eng_move ea_choose(bot *b, const void *st, const bot_budget *budget, bot_stats *stats)
{
    ea_impl *im = b->impl;
    mcts_bot *mb = &im->mb;
    ea_evo *ev = &im->evo;
    const ea_params *par = &ev->par;
    const eng_game *g = b->game;
    ea_report *rep = &im->rep;
    memset(rep, 0, sizeof *rep);
    eng_move m;
    if (g->current_player(st) == ENG_CHANCE)
        return eng_sample_chance(g, st, &b->rng); /* not a decision; be safe */
    bot_clock clk; /* started first: reusing the tree counts against ms= too */
    bot_clock_start(&clk, b, budget, mb->default_sims);
    if (mcts_bot_begin(mb, b, st, &m)) {
        snprintf(stats->info, sizeof stats->info, "second decision of the turn, from the search");
        return m;
    }
    int seat = g->current_player(st);
    int S = par->fitness_sims;
    mcts_tree *t = &mb->tree;

    /* The evolution's own budget, and with ms= its share of the time: the
     * ratio of its simulations to the MCTS iterations (sims= or 400). */
    int64_t evo_budget = (int64_t)par->lambda * par->gens * S;
    if (par->seed_eval == EA_SEED_FITNESS)
        evo_budget += S;
    double evo_deadline = clk.end_ms;
    if (isfinite(clk.end_ms)) {
        double mcts_nominal = (double)(clk.max_sims != INT64_MAX ? clk.max_sims : mb->default_sims);
        double share = (double)evo_budget / ((double)evo_budget + mcts_nominal);
        evo_deadline = clk.start_ms + (clk.end_ms - clk.start_ms) * share;
    }

    /* A: UCT until every root action has been tried once */
    while (!root_expanded(t) && !bot_clock_done(&clk))
        mcts_iter(mb, &clk);

    /* B: the seed's fitness cases, from the next S UCT iterations */
    ea_evo_seed(ev);
    const char *skipped = NULL;
    if (par->gens == 0 || evo_budget == 0)
        skipped = "no generations";
    else if (!root_expanded(t))
        skipped = "root not expanded within the budget";
    else if (par->seed_eval == EA_SEED_MCTS) {
        if (clk.max_sims - clk.sims < (int64_t)S + 1) {
            skipped = "too few MCTS iterations left to use a formula";
        } else {
            while (!ev->pop[0].evaluated && !bot_clock_done(&clk)) {
                mcts_iter(mb, &clk);
                ea_indiv_add(&ev->pop[0], S, mb->ctx.reward[seat]);
            }
            if (!ev->pop[0].evaluated)
                skipped = "budget spent before the seed was evaluated";
        }
    } else if (clk.max_sims - clk.sims < 1) {
        skipped = "no MCTS iterations left to use a formula";
    }
    if (!skipped && bot_now_ms() >= evo_deadline)
        skipped = "evolution's share of the time already spent";

    /* C: the evolution */
    if (!skipped) {
        bot_clock ec = {.start_ms = bot_now_ms(),
                        .end_ms = evo_deadline,
                        .max_sims = evo_budget,
                        .stop = clk.stop,
                        .sims = 0};
        mcts_ctx *fc = &mb->ctx;
        if (im->has_copy) {
            mcts_tree_copy(&im->copy, t); /* Alg. 2 line 5: one copy for all generations */
            im->copy_ctx.root_state = st;
            fc = &im->copy_ctx;
        }
        rep->root_visits_at_copy = t->node[MCTS_ROOT].visits;
        ea_evolve(ev, fc, seat, &ec, &b->rng);
        rep->evo_ms = bot_now_ms() - ec.start_ms;
        rep->evo_sims = ec.sims;
        rep->gens = ev->gens_done;
        rep->ties = ev->ties;
        rep->offspring_ties = ev->offspring_ties;
        rep->semantic = ev->semantic;
        if (im->has_copy)
            rep->copy_root_visits = im->copy.node[MCTS_ROOT].visits;
        if (ev->pop[0].evaluated) {
            rep->evolved = true;
            mb->ctx.score = gp_score;
            mb->ctx.score_ud = &ev->pop[0].expr;
        } else {
            skipped = "budget spent before the seed was evaluated";
        }
    }
    rep->fitness = ev->pop[0].fitness;
    gp_copy(&rep->formula, &ev->pop[0].expr);

    /* D: MCTS with the evolved formula (UCT if the evolution did not run),
     * on threads= threads (the formula is read only; helpers search trees
     * of their own with it from the same root) */
    mcts_bot_search(mb, b, &clk);
    rep->mcts_sims = clk.sims;
    stats->sims = clk.sims + rep->evo_sims;
    m = mcts_bot_end(mb, b, st, stats);
    mb->ctx.score = NULL;
    mb->ctx.score_ud = NULL;
    if (im->has_copy)
        stats->mem_bytes += mcts_tree_bytes(&im->copy);

    /* info: the formula in infix, its fitness, the budget split, then the
     * driver's line about the move */
    char search[BOT_INFO_MAX];
    snprintf(search, sizeof search, "%s", stats->info);
    char formula[640];
    gp_to_infix(&ev->pop[0].expr, formula, sizeof formula);
    if (rep->evolved)
        snprintf(stats->info, sizeof stats->info,
                 "formula %s; fitness %.3f over %d sims; %d/%d generations (ties %d, of "
                 "offspring %d, semantic %d); sims %lld mcts + %lld evolution; %.180s",
                 formula, rep->fitness, S, rep->gens, par->gens, rep->ties, rep->offspring_ties,
                 rep->semantic, (long long)rep->mcts_sims, (long long)rep->evo_sims, search);
    else
        snprintf(stats->info, sizeof stats->info,
                 "formula %s (UCT; evolution skipped: %s); sims %lld mcts + %lld evolution; %.300s",
                 formula, skipped ? skipped : "?", (long long)rep->mcts_sims,
                 (long long)rep->evo_sims, search);
    return m;
}

static void ea_observe(bot *b, const void *st, eng_move m)
{
    ea_impl *im = b->impl;
    mcts_bot_observe(&im->mb, b, st, m);
}

static void ea_reset(bot *b)
{
    ea_impl *im = b->impl;
    mcts_bot_reset(&im->mb);
}

/* ---- options ---------------------------------------------------------------------- */

/* The option tables read best one option per entry. */
/* clang-format off */
#define EA_MCTS_PARAMS                                                                             \
    MCTS_OPT_K(1.41421356,                                                                         \
               "K of the seeded UCT formula Q+2K*sqrt(2 ln N/Nj) (also used before the evolution)"), \
        MCTS_PLAYOUT_OPTS, MCTS_OPT_FINAL, MCTS_OPT_REUSE, MCTS_OPT_JOINT, MCTS_OPT_THREADS

#define EA_EVO_PARAMS                                                                              \
    {"lambda", BOT_INT, 4, 1, EA_MAX_LAMBDA, NULL, NULL, "offspring per generation ((1+lambda)-ES)"}, \
        {"gens", BOT_INT, 20, 0, 100000, NULL, NULL, "generations per decision"},                  \
        {"fitness_sims", BOT_INT, 30, 1, EA_MAX_FITNESS_SIMS, NULL, NULL,                          \
         "simulations per fitness S (SIEA-MCTS paper: 30, ES-MCTS paper: 10)"},                    \
        {"max_depth", BOT_INT, 8, GP_UCT_HEIGHT, GP_MAX_DEPTH, NULL, NULL,                         \
         "deepest node of an evolved formula (the root has depth 0)"},                             \
        {"kset", BOT_LIST, 0, 0, 1000, NULL, "0.25/0.5/1/2/3/5/7/10",                               \
         "constants a mutation draws from"},                                                       \
        {"p_internal", BOT_REAL, 0.9, 0, 1, NULL, NULL,                                            \
         "probability that a mutation replaces an internal node (else a leaf)"},                   \
        {"seed_eval", BOT_ENUM, 0, 0, 1, ea_seed_names, NULL,                                      \
         "seed's fitness: mcts (the S UCT iterations before the evolution) or fitness (S more)"},  \
        {"ties", BOT_ENUM, 0, 0, 1, ea_ties_names, NULL,                                           \
         "a tie on the best fitness: parent (the parent takes part, the authors' code) or "        \
         "offspring (it drops out)"}

#define EA_TREE_PARAM                                                                              \
    {"fitness_tree", BOT_ENUM, 1, 0, 1, ea_tree_names, NULL,                                      \
     "where fitness simulations back up: real (the authors' code, default) or copy (papers' text)"}

static const bot_param ea_p_params[] = {EA_MCTS_PARAMS, EA_EVO_PARAMS};
static const bot_param ea_params_tab[] = {EA_MCTS_PARAMS, EA_EVO_PARAMS, EA_TREE_PARAM};
static const bot_param siea_params[] = {
    EA_MCTS_PARAMS,
    EA_EVO_PARAMS,
    EA_TREE_PARAM,
    {"alpha", BOT_REAL, 5, 0, 1e6, NULL, NULL, "semantic similarity lower bound: alpha < SSD"},
    {"beta", BOT_REAL, 10, 0, 1e6, NULL, NULL, "semantic similarity upper bound: SSD < beta"},
};

/* clang-format on */

#define NPARAMS(a) ((int)(sizeof(a) / sizeof((a)[0])))

const bot_type bot_ea_p_mcts_type = {
    .name = "ea-p-mcts",
    .summary = "EA-p-MCTS: evolves the UCT formula each decision, fitness by read-only walks "
               "of the tree (SIEA-MCTS paper, Alg. 1; 400 + 2400 sims)",
    .params = ea_p_params,
    .nparams = NPARAMS(ea_p_params),
    .init = ea_p_init,
    .choose = ea_choose,
    .observe = ea_observe,
    .reset = ea_reset,
    .close = ea_close,
};

const bot_type bot_ea_mcts_type = {
    .name = "ea-mcts",
    .summary = "EA-MCTS / ES-MCTS: evolves the UCT formula each decision, fitness simulations "
               "backed up into the tree (SIEA-MCTS paper, Alg. 2; ES-MCTS paper; 400 + 2400 sims)",
    .params = ea_params_tab,
    .nparams = NPARAMS(ea_params_tab),
    .init = ea_mcts_init,
    .choose = ea_choose,
    .observe = ea_observe,
    .reset = ea_reset,
    .close = ea_close,
};

const bot_type bot_siea_mcts_type = {
    .name = "siea-mcts",
    .summary = "SIEA-MCTS: EA-MCTS with semantic selection among tied individuals "
               "(SIEA-MCTS paper §IV-E; 400 + 2400 sims)",
    .params = siea_params,
    .nparams = NPARAMS(siea_params),
    .init = siea_init,
    .choose = ea_choose,
    .observe = ea_observe,
    .reset = ea_reset,
    .close = ea_close,
};
