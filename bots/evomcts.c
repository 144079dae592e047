/*
 * evomcts.c — `evomcts`: MCTS whose playouts are guided by an evaluation
 * ([EvoMCTS paper](../docs/references.md#evomcts), §V-I, Algorithm 4;
 * docs/evomcts.md).
 *
 * The tree part is the `mcts` engine (bots/mcts.c). At each step of a
 * playout the bot draws `pbf` (playoutBranchingFactor, 4) legal moves
 * uniformly at random — with replacement, so the same move may be drawn
 * twice and even the worst-rated one keeps a chance — applies each to a
 * copy of the state and plays the one whose resulting state the evaluation
 * rates best for the player who moves. The evaluation is a strongly typed GP
 * expression (bots/tgp.h) read from `eval=FILE`, as `tessera evolve` writes
 * it; without eval= it is the game's own heuristic, evaluate(). pbf=1 is a
 * plain random playout: the paper's MCTS baseline with the same search.
 *
 * Defaults follow the paper's players: 100 simulations, UCT with C = 0.7
 * on rewards in [0, 1] — here cp = 1.4 on win/loss rewards in [-1, 1], the
 * same formula — and the tree kept between moves (reuse).
 */
#include "evomcts.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mcts.h"

#define EVAL_FILE_MAX (1 << 20) /* bytes of an evaluation file (comments included) */

typedef struct evo_impl {
    mcts_bot mb;
    const eng_game *g;
    tgp_set set;
    tgp_expr expr;
    bool has_expr; /* false: the game's evaluate() */
    int pbf;
    unsigned char *tmp; /* a state to try candidate moves on */
} evo_impl;

extern const bot_type bot_evomcts_type;

static double rate(evo_impl *im, const void *st, int me)
{
    return im->has_expr ? tgp_eval(&im->expr, &im->set, st, me) : im->g->evaluate(st, me);
}

/* Algorithm 4: the best of pbf random legal moves by the evaluation. */
static eng_move evo_policy(void *ud, const void *st, eng_rng *rng)
{
    evo_impl *im = ud;
    const eng_game *g = im->g;
    eng_move best = eng_random_move(g, st, rng);
    if (im->pbf <= 1)
        return best;
    int me = g->current_player(st);
    memcpy(im->tmp, st, g->state_size);
    g->apply(im->tmp, best);
    double bv = rate(im, im->tmp, me);
    for (int k = 1; k < im->pbf; k++) {
        eng_move m = eng_random_move(g, st, rng);
        memcpy(im->tmp, st, g->state_size);
        g->apply(im->tmp, m);
        double v = rate(im, im->tmp, me);
        if (v > bv) {
            bv = v;
            best = m;
        }
    }
    return best;
}

int evomcts_read_eval(const char *path, const tgp_set *s, tgp_expr *e, char *err, size_t errcap)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return eng_seterr(err, errcap, ENG_EIO, "cannot read '%s': %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode)) {
        fclose(f);
        return eng_seterr(err, errcap, ENG_EIO, "'%s' is not a regular file", path);
    }
    if (sb.st_size > EVAL_FILE_MAX) {
        fclose(f);
        return eng_seterr(err, errcap, ENG_EIO, "'%s' is larger than %d bytes", path,
                          EVAL_FILE_MAX);
    }
    char *text = malloc((size_t)sb.st_size + 1);
    if (!text) {
        fclose(f);
        return eng_seterr(err, errcap, ENG_ENOMEM, "out of memory");
    }
    size_t n = fread(text, 1, (size_t)sb.st_size, f);
    fclose(f);
    text[n] = 0;
    if (strlen(text) != n) {
        free(text);
        return eng_seterr(err, errcap, ENG_EINVAL, "'%s' holds a NUL byte: not an expression",
                          path);
    }
    /* blank out comments, keeping line numbers and columns */
    for (char *p = text; *p;) {
        char *line = p;
        while (*line == ' ' || *line == '\t')
            line++;
        char *eol = strchr(p, '\n');
        if (*line == '#')
            for (char *q = line; q < (eol ? eol : text + n); q++)
                *q = ' ';
        p = eol ? eol + 1 : text + n;
    }
    char why[256];
    int rc = tgp_parse(e, s, text, why, sizeof why);
    free(text);
    if (rc)
        return eng_seterr(err, errcap, ENG_EINVAL, "'%s', %s", path, why);
    if (!tgp_check(e, s, TGP_DEPTH_LIMIT))
        return eng_seterr(err, errcap, ENG_EINVAL, "'%s' is not a valid expression for %s", path,
                          s->g->name);
    return 0;
}

int evomcts_set_eval(bot *b, const tgp_expr *e)
{
    if (b->type != &bot_evomcts_type)
        return ENG_EINVAL;
    evo_impl *im = b->impl;
    if (!tgp_check(e, &im->set, TGP_DEPTH_LIMIT))
        return ENG_EINVAL;
    im->expr.n = e->n;
    memcpy(im->expr.node, e->node, (size_t)e->n * sizeof e->node[0]);
    im->has_expr = true;
    return 0;
}

static void evo_close(bot *b)
{
    evo_impl *im = b->impl;
    if (!im)
        return;
    mcts_bot_free(&im->mb);
    free(im->tmp);
    free(im);
    b->impl = NULL;
}

static int evo_init(bot *b, char *err, size_t cap)
{
    evo_impl *im = calloc(1, sizeof *im);
    if (!im)
        return eng_seterr(err, cap, ENG_ENOMEM, "%s: out of memory", b->type->name);
    b->impl = im;
    im->g = b->game;
    im->pbf = (int)bot_opt(b, "pbf");
    tgp_set_init(&im->set, b->game);
    const bot_value *file = bot_opt_value(b, "eval");
    if (file && file->str[0]) {
        char why[512];
        if (evomcts_read_eval(file->str, &im->set, &im->expr, why, sizeof why) != 0) {
            evo_close(b);
            return eng_seterr(err, cap, ENG_EBAD_BOT_SPEC, "%s: option 'eval': %s", b->type->name,
                              why);
        }
        im->has_expr = true;
    }
    mcts_family fam = {.default_sims = 100, .select = MCTS_S_UCT};
    int rc = mcts_bot_init(&im->mb, b, &fam, err, cap);
    if (rc) {
        free(im->tmp);
        free(im);
        b->impl = NULL;
        return rc;
    }
    im->tmp = malloc(b->game->state_size);
    if (!im->tmp) {
        evo_close(b);
        return eng_seterr(err, cap, ENG_ENOMEM, "%s: out of memory", b->type->name);
    }
    im->mb.ctx.policy = evo_policy;
    im->mb.ctx.policy_ud = im;
    return 0;
}

static eng_move evo_choose(bot *b, const void *st, const bot_budget *budget, bot_stats *stats)
{
    evo_impl *im = b->impl;
    eng_move m;
    if (b->game->current_player(st) == ENG_CHANCE)
        return eng_sample_chance(b->game, st, &b->rng); /* not a decision; be safe */
    bot_clock clk;
    bot_clock_start(&clk, b, budget, im->mb.default_sims);
    if (mcts_bot_begin(&im->mb, b, st, &m)) {
        snprintf(stats->info, sizeof stats->info, "second decision of the turn, from the search");
        return m;
    }
    while (!bot_clock_done(&clk)) {
        mcts_simulate(&im->mb.ctx);
        clk.sims++;
        mcts_bot_think_tick(&im->mb, b, clk.sims);
    }
    stats->sims = clk.sims;
    return mcts_bot_end(&im->mb, b, st, stats);
}

static void evo_observe(bot *b, const void *st, eng_move m)
{
    evo_impl *im = b->impl;
    mcts_bot_observe(&im->mb, b, st, m);
}

static void evo_reset(bot *b)
{
    evo_impl *im = b->impl;
    mcts_bot_reset(&im->mb);
}

static const bot_param evo_params[] = {
    MCTS_OPT_UCT(1),
    MCTS_OPT_K(1.41421356, "K of the galvan formula"),
    {"cp", BOT_REAL, 1.4, 0, 1000, NULL, NULL,
     "Cp of the thesis formula (1.4 on rewards in [-1,1] is the paper's C = 0.7 on [0,1])"},
    {"reward", BOT_ENUM, 0, 0, 4, mcts_reward_names, NULL,
     "reward of a simulation: winloss (the paper's), scorediff, portion, scorediff-norm, heyden"},
    MCTS_OPT_NORM,
    MCTS_OPT_FINAL,
    {"reuse", BOT_BOOL, 1, 0, 1, NULL, NULL, "keep the subtree between decisions (the paper's)"},
    MCTS_OPT_JOINT,
    {"pbf", BOT_INT, 4, 1, 64, NULL, NULL,
     "playoutBranchingFactor: random moves rated per playout step (1: random playouts)"},
    {"eval", BOT_FILE, 0, 0, 0, NULL, NULL,
     "file with an evolved evaluation (tessera evolve --out); unset: the game's heuristic"},
};

const bot_type bot_evomcts_type = {
    .name = "evomcts",
    .summary = "MCTS with playouts guided by a GP-evolved evaluation, best of pbf random moves "
               "(EvoMCTS paper; default 100 sims)",
    .params = evo_params,
    .nparams = (int)(sizeof evo_params / sizeof evo_params[0]),
    .init = evo_init,
    .choose = evo_choose,
    .observe = evo_observe,
    .reset = evo_reset,
    .close = evo_close,
};
