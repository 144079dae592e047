/*
 * mcts.c — the UCT engine (see mcts.h) and the bots built directly on it:
 * `mcts` (UCT with chance nodes, Müller's thesis Alg. 5 / the SIEA-MCTS
 * paper), `rave` (MCTS-RAVE, SIEA-MCTS paper §IV-B), `flatmc` (flat Monte
 * Carlo) and `ucb1`
 * (1-ply UCB), the last two as the engine restricted to the current turn.
 *
 * One simulation: copy the root state, walk down the tree (chance nodes by
 * sampling the bag; decision nodes by trying every child once in a random
 * order, then by the selection formula), expand the first node visited for
 * the second time, play out (random or epsilon-greedy over the heuristic,
 * optionally cut off early), and add the reward vector along the path.
 */
#include "mcts.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

const char *const mcts_uct_names[] = {"galvan", "thesis", NULL};
const char *const mcts_reward_names[] = {"winloss", "scorediff", "portion", "scorediff-norm",
                                         "heyden", NULL};
const char *const mcts_playout_names[] = {"random", "egreedy", NULL};
const char *const mcts_final_names[] = {"value", "visits", "uct", NULL};
const char *const mcts_unplanned_names[] = {"search", "first", NULL};

#define SEEN_SIZE 1024u /* RAVE hash set; > 4 x the longest game (Carcassonne: 213 plies) */

/* ---- the tree ------------------------------------------------------------- */

int mcts_tree_alloc(mcts_tree *t, size_t bytes, bool rave)
{
    memset(t, 0, sizeof *t);
    size_t per = sizeof(mcts_node) + (rave ? sizeof(mcts_amaf) : 0);
    size_t cap = bytes / per;
    if (cap < 64)
        cap = 64;
    if (cap > UINT32_MAX - 1)
        cap = UINT32_MAX - 1;
    /* Pages are touched only as nodes are used, so a large arena costs
     * address space, not memory, until a search fills it. */
    t->node = malloc(cap * sizeof(mcts_node));
    if (rave)
        t->amaf = malloc(cap * sizeof(mcts_amaf));
    if (!t->node || (rave && !t->amaf)) {
        mcts_tree_free(t);
        return ENG_ENOMEM;
    }
    t->cap = (uint32_t)cap;
    mcts_tree_clear(t);
    return 0;
}

void mcts_tree_free(mcts_tree *t)
{
    free(t->node);
    free(t->amaf);
    memset(t, 0, sizeof *t);
}

void mcts_tree_clear(mcts_tree *t)
{
    memset(&t->node[0], 0, 2 * sizeof(mcts_node));
    t->node[MCTS_ROOT].mover = -1;
    if (t->amaf)
        memset(&t->amaf[0], 0, 2 * sizeof(mcts_amaf));
    t->used = 2;
    t->full = false;
}

void mcts_tree_copy(mcts_tree *dst, const mcts_tree *src)
{
    memcpy(dst->node, src->node, src->used * sizeof(mcts_node));
    if (dst->amaf && src->amaf)
        memcpy(dst->amaf, src->amaf, src->used * sizeof(mcts_amaf));
    dst->used = src->used;
    dst->full = src->full;
}

size_t mcts_tree_bytes(const mcts_tree *t)
{
    return (size_t)t->used * (sizeof(mcts_node) + (t->amaf ? sizeof(mcts_amaf) : 0));
}

/* Copy the subtree of src rooted at `from` into dst with `from` as root.
 * Breadth-first, so every child block stays contiguous. Nodes that do not
 * fit are left unexpanded. */
static void tree_extract(mcts_tree *dst, const mcts_tree *src, uint32_t from)
{
    mcts_tree_clear(dst);
    dst->node[MCTS_ROOT] = src->node[from];
    dst->node[MCTS_ROOT].child = 0;
    dst->node[MCTS_ROOT].nchild = 0;
    dst->node[MCTS_ROOT].tried = 0;
    dst->node[MCTS_ROOT].kind = MCTS_LEAF;
    if (dst->amaf && src->amaf)
        dst->amaf[MCTS_ROOT] = src->amaf[from];
    /* queue of (dst index, src index): dst nodes are appended in order, so
     * the queue is the dst array itself plus a parallel source map. */
    uint32_t *srcof = malloc((size_t)dst->cap * sizeof(uint32_t));
    if (!srcof)
        return;
    srcof[MCTS_ROOT] = from;
    for (uint32_t d = MCTS_ROOT; d < dst->used; d++) {
        const mcts_node *sn = &src->node[srcof[d]];
        if (!sn->child)
            continue;
        if ((uint64_t)dst->used + sn->nchild > dst->cap) {
            dst->full = true;
            continue;
        }
        uint32_t first = dst->used;
        memcpy(&dst->node[first], &src->node[sn->child], sn->nchild * sizeof(mcts_node));
        if (dst->amaf && src->amaf)
            memcpy(&dst->amaf[first], &src->amaf[sn->child], sn->nchild * sizeof(mcts_amaf));
        for (uint32_t i = 0; i < sn->nchild; i++) {
            srcof[first + i] = sn->child + i;
            dst->node[first + i].child = 0; /* fixed when the child is dequeued */
        }
        dst->used += sn->nchild;
        dst->node[d].child = first;
        dst->node[d].nchild = sn->nchild;
        dst->node[d].tried = sn->tried;
        dst->node[d].kind = sn->kind;
    }
    free(srcof);
}

/* ---- context ---------------------------------------------------------------- */

int mcts_ctx_init(mcts_ctx *c, const eng_game *g, const mcts_cfg *cfg, eng_rng *rng,
                  mcts_tree *tree)
{
    memset(c, 0, sizeof *c);
    c->g = g;
    c->cfg = cfg;
    c->rng = rng;
    c->tree = tree;
    c->backup = true;
    c->expand = true;
    int cap = g->max_moves > g->max_chance ? g->max_moves : g->max_chance;
    c->scratch = malloc(g->state_size);
    c->moves = malloc((size_t)cap * sizeof(eng_move));
    c->rates = malloc((size_t)cap * sizeof(double));
    c->path = malloc(((size_t)g->max_plies + 2) * sizeof(uint32_t));
    c->played_key = malloc(((size_t)g->max_plies + 2) * sizeof(int32_t));
    c->seen = malloc(SEEN_SIZE * sizeof(uint32_t));
    c->seen_gen = calloc(SEEN_SIZE, sizeof(uint32_t));
    if (!c->scratch || !c->moves || !c->rates || !c->path || !c->played_key || !c->seen ||
        !c->seen_gen) {
        mcts_ctx_free(c);
        return ENG_ENOMEM;
    }
    return 0;
}

void mcts_ctx_free(mcts_ctx *c)
{
    free(c->scratch);
    free(c->moves);
    free(c->rates);
    free(c->path);
    free(c->played_key);
    free(c->seen);
    free(c->seen_gen);
    c->scratch = NULL;
    c->moves = NULL;
    c->rates = NULL;
    c->path = NULL;
    c->played_key = NULL;
    c->seen = NULL;
    c->seen_gen = NULL;
}

/* ---- rewards ------------------------------------------------------------------ */

void mcts_rewards(const mcts_ctx *c, const void *st, bool terminal, double *out)
{
    const eng_game *g = c->g;
    const mcts_cfg *cfg = c->cfg;
    int np = eng_num_players(st);
    if (cfg->reward == MCTS_R_HEYDEN && cfg->heyden >= 0) {
        for (int p = 0; p < np; p++)
            out[p] = g->evaluate_named(st, p, cfg->heyden);
        return;
    }
    double sc[ENG_MAX_PLAYERS], sum = 0;
    g->scores(st, sc);
    for (int p = 0; p < np; p++)
        sum += sc[p];
    for (int p = 0; p < np; p++) {
        double d;
        if (terminal) {
            double best = -INFINITY;
            for (int q = 0; q < np; q++)
                if (q != p && sc[q] > best)
                    best = sc[q];
            d = sc[p] - best;
        } else {
            d = g->evaluate(st, p); /* the game's estimate of p's lead */
        }
        switch (cfg->reward) {
        case MCTS_R_WINLOSS: out[p] = d > 0 ? 1.0 : d < 0 ? -1.0 : 0.0; break;
        case MCTS_R_PORTION: out[p] = sum > 0 ? sc[p] / sum : 1.0 / np; break;
        case MCTS_R_SCOREDIFF_NORM: {
            double v = d / cfg->norm;
            out[p] = v > 1 ? 1 : v < -1 ? -1 : v;
            break;
        }
        default: out[p] = d; break;
        }
    }
}

/* ---- one simulation ---------------------------------------------------------- */

static inline int32_t amaf_key(int seat, eng_move m)
{
    return (int32_t)(((uint32_t)seat << 24) ^ (uint32_t)m);
}

static bool expand(mcts_ctx *c, uint32_t n, const void *s, int p)
{
    mcts_tree *t = c->tree;
    int cnt;
    if (p == ENG_CHANCE) {
        double prob[c->g->max_chance > 0 ? c->g->max_chance : 1];
        cnt = c->g->chance_outcomes(s, c->moves, prob);
    } else if (n == MCTS_ROOT && c->root_moves) {
        cnt = c->nroot_moves;
        memcpy(c->moves, c->root_moves, (size_t)cnt * sizeof(eng_move));
    } else {
        cnt = c->g->legal_moves(s, c->moves);
    }
    if (cnt <= 0 || (uint64_t)t->used + (uint64_t)cnt > t->cap || cnt > UINT16_MAX) {
        t->full = true;
        return false;
    }
    /* a random order of first visits removes any bias of move order (after
     * the capacity test: a full tree must not shuffle for nothing) */
    for (int i = p == ENG_CHANCE ? 0 : cnt - 1; i > 0; i--) {
        int j = (int)eng_rng_below(c->rng, (uint32_t)i + 1);
        eng_move tmp = c->moves[i];
        c->moves[i] = c->moves[j];
        c->moves[j] = tmp;
    }
    uint32_t first = t->used;
    t->used += (uint32_t)cnt;
    int8_t mover = (int8_t)(p == ENG_CHANCE ? -1 : p);
    for (int i = 0; i < cnt; i++) {
        mcts_node *ch = &t->node[first + (uint32_t)i];
        memset(ch, 0, sizeof *ch);
        ch->move = c->moves[i];
        ch->mover = mover;
    }
    if (t->amaf)
        memset(&t->amaf[first], 0, (size_t)cnt * sizeof(mcts_amaf));
    mcts_node *nd = &t->node[n];
    nd->child = first;
    nd->nchild = (uint16_t)cnt;
    nd->tried = 0;
    nd->kind = p == ENG_CHANCE ? MCTS_CHANCE : MCTS_DECISION;
    return true;
}

static uint32_t chance_child(mcts_ctx *c, const mcts_node *nd, const void *s)
{
    eng_move o = eng_sample_chance(c->g, s, c->rng);
    const mcts_node *ch = &c->tree->node[nd->child];
    for (uint32_t i = 0; i < nd->nchild; i++)
        if (ch[i].move == o)
            return nd->child + i;
    return 0; /* cannot happen: the outcomes were listed from this state */
}

/* The selection value of child i (visited) of nd: the bot's formula (c->score)
 * or the configured UCT, on the RAVE-blended mean when the tree has AMAF. */
static double child_score(const mcts_ctx *c, const mcts_node *nd, uint32_t i, double N,
                          double logn)
{
    const mcts_tree *t = c->tree;
    const mcts_cfg *cfg = c->cfg;
    const mcts_node *ch = &t->node[nd->child + i];
    double nj = (double)ch->visits;
    double q = ch->value / nj;
    if (c->score)
        return c->score(c->score_ud, q, N, nj);
    if (t->amaf) {
        const mcts_amaf *a = &t->amaf[nd->child + i];
        if (a->n) {
            double na = (double)a->n, b = cfg->rave_b;
            double beta = na / (nj + na + 4.0 * nj * na * b * b);
            q = (1 - beta) * q + beta * a->v;
        }
    }
    if (cfg->uct == MCTS_UCT_GALVAN)
        return q + 2.0 * cfg->k * sqrt(2.0 * logn / nj);
    return q + cfg->cp * sqrt(logn / nj);
}

/* The first of the n (visited) children with the largest
 * value / visits + a * sqrt(b / visits): child_score's plain UCT, the
 * same IEEE operations in the same order (so the same choice), two children
 * at a time where SSE2 is there. Selection runs once per tree level of
 * every simulation over all of a node's children (a Carcassonne placement
 * has dozens): the divisions and square roots were most of the tree's time. */
static uint32_t uct_argmax(const mcts_node *ch, uint32_t n, double a, double b)
{
    uint32_t best = 0, i = 0;
    double best_v = -INFINITY;
#ifdef __SSE2__
    const __m128d va = _mm_set1_pd(a), vb = _mm_set1_pd(b);
    for (; i + 2 <= n; i += 2) {
        __m128d nj = _mm_set_pd((double)ch[i + 1].visits, (double)ch[i].visits);
        __m128d q = _mm_div_pd(_mm_set_pd(ch[i + 1].value, ch[i].value), nj);
        double v[2];
        _mm_storeu_pd(v, _mm_add_pd(q, _mm_mul_pd(va, _mm_sqrt_pd(_mm_div_pd(vb, nj)))));
        if (v[0] > best_v) {
            best_v = v[0];
            best = i;
        }
        if (v[1] > best_v) {
            best_v = v[1];
            best = i + 1;
        }
    }
#endif
    for (; i < n; i++) {
        double nj = (double)ch[i].visits;
        double v = ch[i].value / nj + a * sqrt(b / nj);
        if (v > best_v) {
            best_v = v;
            best = i;
        }
    }
    return best;
}

static uint32_t select_child(mcts_ctx *c, uint32_t n)
{
    mcts_tree *t = c->tree;
    mcts_node *nd = &t->node[n];
    const mcts_cfg *cfg = c->cfg;
    if (nd->tried < nd->nchild) {
        /* an untried child: the next one in the (shuffled) block */
        uint32_t ch = nd->child + nd->tried;
        if (c->backup)
            nd->tried++;
        return ch;
    }
    const mcts_node *ch = &t->node[nd->child];
    uint32_t best = 0;
    double best_v = -INFINITY;
    if (cfg->select == MCTS_S_UNIFORM) {
        /* flat Monte Carlo: the least visited child (round robin) */
        uint32_t least = UINT32_MAX;
        for (uint32_t i = 0; i < nd->nchild; i++)
            if (ch[i].visits < least) {
                least = ch[i].visits;
                best = i;
            }
        return nd->child + best;
    }
    double N = (double)nd->visits;
    double logn = log(N > 1 ? N : 1);
    if (!c->score && !t->amaf) {
        /* the plain UCT formulas as q + a sqrt(b / nj), with the constant
         * products formed as child_score forms them: the same values */
        bool galvan = cfg->uct == MCTS_UCT_GALVAN;
        return nd->child + uct_argmax(ch, nd->nchild, galvan ? 2.0 * cfg->k : cfg->cp,
                                      galvan ? 2.0 * logn : logn);
    }
    for (uint32_t i = 0; i < nd->nchild; i++) {
        double v = child_score(c, nd, i, N, logn);
        if (v > best_v) {
            best_v = v;
            best = i;
        }
    }
    return nd->child + best;
}

uint32_t mcts_best_by_selection(const mcts_ctx *c, uint32_t node)
{
    const mcts_node *nd = &c->tree->node[node];
    double N = (double)nd->visits;
    double logn = log(N > 1 ? N : 1);
    uint32_t best = 0;
    double best_v = -INFINITY;
    for (uint32_t i = 0; i < nd->nchild; i++) {
        if (!c->tree->node[nd->child + i].visits)
            continue;
        double v = child_score(c, nd, i, N, logn);
        if (!best || v > best_v) {
            best_v = v;
            best = nd->child + i;
        }
    }
    return best;
}

/* Mark a (seat, move) pair as played in this simulation's RAVE set. */
static void seen_add(mcts_ctx *c, int32_t key)
{
    uint32_t h = ((uint32_t)key * 2654435761u) & (SEEN_SIZE - 1);
    while (c->seen_gen[h] == c->gen) {
        if (c->seen[h] == (uint32_t)key)
            return;
        h = (h + 1) & (SEEN_SIZE - 1);
    }
    c->seen_gen[h] = c->gen;
    c->seen[h] = (uint32_t)key;
}

static bool seen_has(const mcts_ctx *c, int32_t key)
{
    uint32_t h = ((uint32_t)key * 2654435761u) & (SEEN_SIZE - 1);
    while (c->seen_gen[h] == c->gen) {
        if (c->seen[h] == (uint32_t)key)
            return true;
        h = (h + 1) & (SEEN_SIZE - 1);
    }
    return false;
}

static void rave_backup(mcts_ctx *c, int depth)
{
    mcts_tree *t = c->tree;
    if (++c->gen == 0) { /* wrapped: reset the stamps */
        memset(c->seen_gen, 0, SEEN_SIZE * sizeof(uint32_t));
        c->gen = 1;
    }
    for (int i = 0; i < c->nplayed; i++)
        seen_add(c, c->played_key[i]);
    for (int i = depth - 2; i >= 0; i--) {
        const mcts_node *below = &t->node[c->path[i + 1]];
        if (below->mover >= 0)
            seen_add(c, amaf_key(below->mover, below->move));
        const mcts_node *nd = &t->node[c->path[i]];
        if (nd->kind != MCTS_DECISION)
            continue;
        for (uint32_t k = 0; k < nd->nchild; k++) {
            const mcts_node *ch = &t->node[nd->child + k];
            if (!seen_has(c, amaf_key(ch->mover, ch->move)))
                continue;
            mcts_amaf *a = &t->amaf[nd->child + k];
            a->n++;
            a->v += (float)((c->reward[ch->mover] - a->v) / a->n);
        }
    }
}

void mcts_simulate(mcts_ctx *c)
{
    const eng_game *g = c->g;
    const mcts_cfg *cfg = c->cfg;
    mcts_tree *t = c->tree;
    unsigned char *s = c->scratch;
    memcpy(s, c->root_state, g->state_size);
    int root_player = g->current_player(s);
    bool in_root_turn = true;

    int depth = 0;
    uint32_t n = MCTS_ROOT;
    c->path[depth++] = n;
    int p;
    for (;;) {
        p = g->current_player(s);
        if (p == ENG_TERMINAL) {
            t->node[n].kind = MCTS_TERMINAL;
            break;
        }
        mcts_node *nd = &t->node[n];
        if (!nd->child) {
            bool fresh = nd->visits == 0 && n != MCTS_ROOT;
            if (fresh || !c->expand || (cfg->flat && !in_root_turn))
                break;
            if (!expand(c, n, s, p))
                break;
            nd = &t->node[n];
        }
        uint32_t ch = p == ENG_CHANCE ? chance_child(c, nd, s) : select_child(c, n);
        if (!ch)
            break;
        g->apply(s, t->node[ch].move);
        c->path[depth++] = ch;
        n = ch;
        if (in_root_turn && g->current_player(s) != root_player)
            in_root_turn = false;
        if (!c->backup && t->node[n].visits == 0)
            break; /* read-only walk: an untried child ends the tree part */
    }

    /* playout: the game's own playout when the policy is the uniform one
     * played to the end (the same moves from the same generator as the loop
     * below, without a call per ply; nothing to record without RAVE) */
    c->nplayed = 0;
    int decisions = 0;
    bool terminal = false;
    if (!c->policy && cfg->playout == MCTS_P_RANDOM && !cfg->cutoff && !cfg->rave) {
        eng_playout(g, s, c->rng);
        terminal = true;
    }
    while (!terminal) {
        p = g->current_player(s);
        if (p == ENG_TERMINAL) {
            terminal = true;
            break;
        }
        if (p == ENG_CHANCE) {
            g->apply(s, eng_sample_chance(g, s, c->rng));
            continue;
        }
        if (cfg->cutoff && decisions >= cfg->cutoff)
            break;
        eng_move m;
        if (c->policy)
            m = c->policy(c->policy_ud, s, c->rng);
        else if (cfg->playout == MCTS_P_EGREEDY && eng_rng_double(c->rng) >= cfg->eps)
            m = eng_greedy_move(g, s, c->rng);
        else
            m = eng_random_move(g, s, c->rng);
        if (cfg->rave)
            c->played_key[c->nplayed++] = amaf_key(p, m);
        g->apply(s, m);
        decisions++;
    }
    mcts_rewards(c, s, terminal, c->reward);

    if (!c->backup)
        return;
    for (int q = 0, nq = eng_num_players(s); q < nq; q++)
        c->root_sum[q] += c->reward[q];
    c->root_n++;
    for (int i = 0; i < depth; i++) {
        mcts_node *nd = &t->node[c->path[i]];
        nd->visits++;
        if (nd->mover >= 0)
            nd->value += c->reward[nd->mover];
    }
    if (cfg->rave && t->amaf)
        rave_backup(c, depth);
}

uint32_t mcts_best_child(const mcts_tree *t, uint32_t node, int final)
{
    const mcts_node *nd = &t->node[node];
    uint32_t best = 0;
    double bq = -INFINITY;
    uint32_t bv = 0;
    for (uint32_t i = 0; i < nd->nchild; i++) {
        const mcts_node *ch = &t->node[nd->child + i];
        if (!ch->visits)
            continue;
        double q = ch->value / ch->visits;
        bool better = final == MCTS_F_VISITS
                          ? (ch->visits > bv || (ch->visits == bv && q > bq))
                          : (q > bq || (q == bq && ch->visits > bv));
        if (better) {
            best = nd->child + i;
            bq = q;
            bv = ch->visits;
        }
    }
    return best;
}

/* ---- configuration ---------------------------------------------------------------- */

static double opt_or(const bot *b, const char *name, double def)
{
    const bot_value *v = bot_opt_value(b, name);
    return v ? v->v : def;
}

void mcts_cfg_from_bot(mcts_cfg *cfg, const bot *b)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->uct = (int)opt_or(b, "uct", MCTS_UCT_GALVAN);
    cfg->k = opt_or(b, "k", 1.41421356);
    cfg->cp = opt_or(b, "cp", 0.5);
    cfg->select = MCTS_S_UCT;
    cfg->reward = (int)opt_or(b, "reward", MCTS_R_SCOREDIFF);
    cfg->norm = opt_or(b, "norm", 282);
    cfg->playout = (int)opt_or(b, "playout", MCTS_P_RANDOM);
    cfg->eps = opt_or(b, "eps", 0.1);
    cfg->cutoff = (int)opt_or(b, "cutoff", 0);
    cfg->final = (int)opt_or(b, "final", MCTS_F_VALUE);
    cfg->rave_b = opt_or(b, "b", 10);
    cfg->heyden = eng_eval_index(b->game, "heyden");
}

/* ---- root-parallel search --------------------------------------------------------------- */

/* A helper searches on a thread of its own, from its own copy of the root
 * (state and root moves), until its quota, its copy of the deadline or its
 * halt flag. The decision does not wait for a helper past a short grace:
 * on a loaded machine a helper's thread may not run again for milliseconds
 * after the deadline (the scheduler's, not ours), and a decision that waits
 * for it overruns its budget. Such a helper gives the decision its root's
 * statistics as of its last snapshot (visits and values: a RAVE helper's
 * AMAF statistics and its grandchildren join only when it ends in time;
 * the simulations since are not counted) and stays `busy` until its
 * thread is joined: at a later
 * decision once it has finished (until then the search runs without it),
 * or at mcts_bot_free. It may be left only because it
 * reads nothing the decision's caller owns: its root is a copy, and a
 * search with a custom score or policy (the EA bots, EvoMCTS, whose data
 * change between decisions) always waits for its helpers. */
void (*mcts__helper_stall)(int64_t done);

/* A helper publishes its root's statistics every SNAP_EVERY simulations
 * when it may be left behind: a few hundred stores against tens of
 * thousands of instructions a simulation. */
#define SNAP_EVERY 8

typedef struct helper_snap {
    _Atomic uint64_t gen;     /* odd while it is written */
    _Atomic uint32_t nchild;  /* the root's children */
    _Atomic uint64_t sims, visits, root_n;
    _Atomic uint64_t root_sum[ENG_MAX_PLAYERS]; /* doubles' bits */
    _Atomic uint64_t *stat;   /* per child: move << 32 | visits, then its value's bits */
} helper_snap;

typedef struct mcts_helper_stat {
    uint64_t key, value;
} mcts_helper_stat;

static inline uint64_t dbits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}
static inline double bitsd(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

static uint32_t child_by_move(const mcts_tree *t, uint32_t n, eng_move m);

struct mcts_helper {
    mcts_tree tree;
    mcts_ctx ctx;
    eng_rng rng;          /* reseeded from the bot's generator every decision */
    unsigned char *root;  /* the root state, copied at the decision's start */
    eng_move *root_moves; /* the root's moves when the search restricts them */
    int64_t quota;        /* simulations to run (INT64_MAX: until halted or the deadline) */
    int64_t done;         /* simulations run */
    double end_ms;        /* the decision's deadline (INFINITY: none) */
    atomic_bool halt;     /* raised by the decision: stop after this simulation */
    atomic_bool finished; /* raised by the helper as its thread ends */
    bool busy;            /* its thread was started and not joined yet */
    bool snapshots;       /* this decision may leave it behind: it publishes snapshots */
    pthread_t thread;
    /* what a helper left behind still gives: its root's statistics as of
     * its last snapshot (every SNAP_EVERY simulations), in two slots that
     * it fills in turn; `cur` names the last complete one (-1: none yet) */
    helper_snap snap[2];
    atomic_int cur;
    mcts_helper_stat *read_buf; /* the decision's copy of a snapshot */
    uint32_t snap_cap;          /* children a snapshot holds at most */
};

/* The helper's side of a snapshot: its root's children (moves, visits,
 * values), the root's visits and its seats' summed rewards, written under
 * a sequence count (odd while written) so that the decision's thread reads
 * a whole one or none, without a lock and without waiting for a helper
 * that the scheduler has stopped half-way. */
static void snap_publish(mcts_helper *h)
{
    const mcts_node *r = &h->tree.node[MCTS_ROOT];
    uint32_t n = r->nchild;
    if (!n)
        return;
    int slot = atomic_load_explicit(&h->cur, memory_order_relaxed) == 0 ? 1 : 0;
    helper_snap *sn = &h->snap[slot];
    uint64_t g = atomic_load_explicit(&sn->gen, memory_order_relaxed);
    atomic_store_explicit(&sn->gen, g + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&sn->nchild, n, memory_order_relaxed);
    atomic_store_explicit(&sn->sims, (uint64_t)h->done, memory_order_relaxed);
    atomic_store_explicit(&sn->visits, r->visits, memory_order_relaxed);
    atomic_store_explicit(&sn->root_n, (uint64_t)h->ctx.root_n, memory_order_relaxed);
    for (int p = 0; p < ENG_MAX_PLAYERS; p++)
        atomic_store_explicit(&sn->root_sum[p], dbits(h->ctx.root_sum[p]), memory_order_relaxed);
    for (uint32_t i = 0; i < n; i++) {
        const mcts_node *c = &h->tree.node[r->child + i];
        atomic_store_explicit(&sn->stat[2 * i], (uint64_t)(uint32_t)c->move << 32 | c->visits,
                              memory_order_relaxed);
        atomic_store_explicit(&sn->stat[2 * i + 1], dbits(c->value), memory_order_relaxed);
    }
    atomic_store_explicit(&sn->gen, g + 2, memory_order_release);
    atomic_store_explicit(&h->cur, slot, memory_order_release);
}

/* The decision's side: add helper h's last whole snapshot to mb's root
 * (its children matched by move) and its simulations to *sims. Returns
 * false when there is none to read (none made yet, or the helper rewrote
 * it while it was read, twice). */
static bool snap_merge(mcts_bot *mb, mcts_helper *h, int64_t *sims)
{
    for (int tries = 0; tries < 2; tries++) {
        int slot = atomic_load_explicit(&h->cur, memory_order_acquire);
        if (slot < 0)
            return false;
        helper_snap *sn = &h->snap[slot];
        uint64_t g = atomic_load_explicit(&sn->gen, memory_order_acquire);
        if (g & 1)
            continue;
        uint32_t n = atomic_load_explicit(&sn->nchild, memory_order_relaxed);
        mcts_helper_stat *st = h->read_buf;
        for (uint32_t i = 0; i < n && i < h->snap_cap; i++) {
            st[i].key = atomic_load_explicit(&sn->stat[2 * i], memory_order_relaxed);
            st[i].value = atomic_load_explicit(&sn->stat[2 * i + 1], memory_order_relaxed);
        }
        uint64_t done = atomic_load_explicit(&sn->sims, memory_order_relaxed);
        uint64_t visits = atomic_load_explicit(&sn->visits, memory_order_relaxed);
        uint64_t rn = atomic_load_explicit(&sn->root_n, memory_order_relaxed);
        double rs[ENG_MAX_PLAYERS];
        for (int p = 0; p < ENG_MAX_PLAYERS; p++)
            rs[p] = bitsd(atomic_load_explicit(&sn->root_sum[p], memory_order_relaxed));
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&sn->gen, memory_order_relaxed) != g)
            continue;
        if (n > h->snap_cap)
            return false;
        mcts_tree *t = &mb->tree;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t dc = child_by_move(t, MCTS_ROOT, (eng_move)(int32_t)(uint32_t)(st[i].key >> 32));
            if (!dc)
                continue;
            t->node[dc].visits += (uint32_t)st[i].key;
            t->node[dc].value += bitsd(st[i].value);
        }
        t->node[MCTS_ROOT].visits += (uint32_t)visits;
        for (int p = 0; p < ENG_MAX_PLAYERS; p++)
            mb->ctx.root_sum[p] += rs[p];
        mb->ctx.root_n += (int64_t)rn;
        *sims += (int64_t)done;
        return true;
    }
    return false;
}

static void *helper_run(void *arg)
{
    mcts_helper *h = arg;
    while (h->done < h->quota && !atomic_load_explicit(&h->halt, memory_order_relaxed) &&
           !(h->end_ms != INFINITY && bot_now_ms() >= h->end_ms)) {
        if (mcts__helper_stall)
            mcts__helper_stall(h->done);
        mcts_simulate(&h->ctx);
        h->done++;
        if (h->snapshots && h->done % SNAP_EVERY == 0)
            snap_publish(h);
    }
    atomic_store_explicit(&h->finished, true, memory_order_release);
    return NULL;
}

/* Has the deadline passed or the stop flag gone up? (bot_clock_done
 * without the count, which is each searcher's own.) */
static bool clock_expired(const bot_clock *c)
{
    if (c->stop && atomic_load_explicit(c->stop, memory_order_relaxed))
        return true;
    return c->end_ms != INFINITY && bot_now_ms() >= c->end_ms;
}

/* Sleep about `ms` milliseconds (the wait for helpers before a deadline or
 * the stop flag: polling, not spinning, so that they can have the core). */
static void nap_ms(double ms)
{
    struct timespec ts = {.tv_sec = 0, .tv_nsec = (long)(ms * 1e6)};
    nanosleep(&ts, NULL);
}

/* The child of node `n` of t whose move is m, or 0. */
static uint32_t child_by_move(const mcts_tree *t, uint32_t n, eng_move m)
{
    const mcts_node *nd = &t->node[n];
    for (uint32_t i = 0; i < nd->nchild; i++)
        if (t->node[nd->child + i].move == m)
            return nd->child + i;
    return 0;
}

static void amaf_add(mcts_amaf *d, const mcts_amaf *a)
{
    uint32_t n = d->n + a->n;
    if (n)
        d->v = (float)(((double)d->v * d->n + (double)a->v * a->n) / n);
    d->n = n;
}

/* Add the statistics of src's children of node sn (and, while depth > 0,
 * of their children) to dst's children of node dn, matched by move. A
 * block dst lacks is adopted (its nodes unexpanded below), as far as dst's
 * arena allows. Both trees list the same moves at a node: they were made
 * from the same state. */
static void merge_children(mcts_tree *dst, uint32_t dn, const mcts_tree *src, uint32_t sn,
                           int depth)
{
    const mcts_node *s = &src->node[sn];
    if (!s->child)
        return;
    if (!dst->node[dn].child) {
        if ((uint64_t)dst->used + s->nchild > dst->cap) {
            dst->full = true;
            return;
        }
        uint32_t first = dst->used;
        dst->used += s->nchild;
        memcpy(&dst->node[first], &src->node[s->child], s->nchild * sizeof(mcts_node));
        if (dst->amaf && src->amaf)
            memcpy(&dst->amaf[first], &src->amaf[s->child], s->nchild * sizeof(mcts_amaf));
        else if (dst->amaf)
            memset(&dst->amaf[first], 0, s->nchild * sizeof(mcts_amaf));
        for (uint32_t i = 0; i < s->nchild; i++) {
            mcts_node *c = &dst->node[first + i];
            c->child = 0;
            c->nchild = 0;
            c->tried = 0;
            c->kind = MCTS_LEAF;
        }
        mcts_node *d = &dst->node[dn];
        d->child = first;
        d->nchild = s->nchild;
        d->tried = s->tried;
        d->kind = s->kind;
        if (depth > 0)
            for (uint32_t i = 0; i < s->nchild; i++)
                merge_children(dst, first + i, src, s->child + i, depth - 1);
        return;
    }
    for (uint32_t i = 0; i < s->nchild; i++) {
        const mcts_node *sc = &src->node[s->child + i];
        if (!sc->visits)
            continue;
        uint32_t dc = child_by_move(dst, dn, sc->move);
        if (!dc)
            continue;
        dst->node[dc].visits += sc->visits;
        dst->node[dc].value += sc->value;
        if (dst->amaf && src->amaf)
            amaf_add(&dst->amaf[dc], &src->amaf[s->child + i]);
        if (depth > 0)
            merge_children(dst, dc, src, s->child + i, depth - 1);
    }
}

/* Join helper h's thread if it has ended (or, with wait, once it ends). */
static bool helper_reap(mcts_helper *h, bool wait)
{
    if (!h->busy)
        return true;
    if (!wait && !atomic_load_explicit(&h->finished, memory_order_acquire))
        return false;
    pthread_join(h->thread, NULL);
    h->busy = false;
    return true;
}

void mcts_bot_search(mcts_bot *mb, bot *b, bot_clock *clk)
{
    int nh = mb->threads - 1;
    if (nh <= 0) {
        while (!bot_clock_done(clk)) {
            mcts_simulate(&mb->ctx);
            clk->sims++;
            mcts_bot_think_tick(mb, b, clk->sims);
        }
        return;
    }
    const eng_game *g = b->game;
    mcts_ctx *mc = &mb->ctx;
    bool deadline = clk->end_ms != INFINITY;
    /* a helper may be left behind only when it reads nothing but its own
     * copies (see struct mcts_helper) and only a deadline asks for it */
    bool may_leave = deadline && !mc->score && !mc->policy;
    /* the helpers at hand: those left behind by an earlier decision that
     * have finished since (without a deadline every one is waited for, so
     * that a simulation budget's result depends on the seed alone) */
    mcts_helper *use[MCTS_MAX_THREADS];
    int nuse = 0;
    for (int i = 0; i < nh; i++)
        if (helper_reap(&mb->helpers[i], !deadline))
            use[nuse++] = &mb->helpers[i];
    /* shares of a simulation budget: the main thread takes what does not
     * divide evenly */
    int64_t left = clk->max_sims == INT64_MAX ? INT64_MAX : clk->max_sims - clk->sims;
    int64_t share = left == INT64_MAX ? INT64_MAX : left / (nuse + 1);
    for (int i = 0; i < nuse; i++) {
        mcts_helper *h = use[i];
        mcts_ctx *hc = &h->ctx;
        mcts_tree_clear(&h->tree);
        eng_rng_seed(&h->rng, eng_rng_next(&b->rng));
        memcpy(h->root, mc->root_state, g->state_size);
        hc->root_state = h->root;
        hc->score = mc->score;
        hc->score_ud = mc->score_ud;
        hc->backup = mc->backup;
        hc->expand = mc->expand;
        hc->root_moves = NULL;
        hc->nroot_moves = mc->nroot_moves;
        if (mc->root_moves) {
            memcpy(h->root_moves, mc->root_moves, (size_t)mc->nroot_moves * sizeof(eng_move));
            hc->root_moves = h->root_moves;
        }
        hc->policy = mc->policy;
        hc->policy_ud = mc->policy_ud;
        memset(hc->root_sum, 0, sizeof hc->root_sum);
        hc->root_n = 0;
        h->quota = share;
        h->done = 0;
        h->end_ms = clk->end_ms;
        h->snapshots = may_leave;
        atomic_store_explicit(&h->cur, -1, memory_order_relaxed);
        atomic_store_explicit(&h->halt, false, memory_order_relaxed);
        atomic_store_explicit(&h->finished, false, memory_order_relaxed);
    }
    int started = 0;
    for (; started < nuse; started++) {
        if (pthread_create(&use[started]->thread, NULL, helper_run, use[started]))
            break; /* no thread: the helpers left run here, after the main share */
        use[started]->busy = true;
    }
    int64_t mine = left == INT64_MAX ? INT64_MAX : left - share * nuse;
    double t0 = bot_now_ms();
    int64_t done = 0;
    for (; done < mine && !clock_expired(clk); done++) {
        mcts_simulate(mc);
        clk->sims++;
        mcts_bot_think_tick(mb, b, clk->sims); /* this thread's tree: a part of the search */
    }
    for (int i = started; i < nuse; i++)
        helper_run(use[i]);
    /* The wait for the helpers: at the deadline (or the stop flag) they are
     * told to halt, and a helper still running a grace later (two of this
     * thread's simulations, between 0.1 and 1 ms) is left behind; without
     * a deadline, until they finish their shares. */
    double grace = done > 0 ? 2 * (bot_now_ms() - t0) / (double)done : 1.0;
    grace = grace < 0.1 ? 0.1 : grace > 1.0 ? 1.0 : grace;
    double cap = INFINITY;
    bool halted = false;
    for (int i = 0; i < started; i++) {
        mcts_helper *h = use[i];
        while (!atomic_load_explicit(&h->finished, memory_order_acquire)) {
            if (!halted && clock_expired(clk)) {
                for (int k = 0; k < started; k++)
                    atomic_store_explicit(&use[k]->halt, true, memory_order_relaxed);
                halted = true;
                cap = bot_now_ms() + grace;
            }
            if (!deadline && !clk->stop) {
                pthread_join(h->thread, NULL); /* nothing to watch but the helper */
                h->busy = false;
                break;
            }
            if (halted && may_leave && bot_now_ms() >= cap)
                break;
            /* halted, with a grace to keep: spin, as a thread that sleeps on
             * a loaded machine may not run again for milliseconds; else
             * poll, leaving the core to the helpers */
            if (!halted || !may_leave)
                nap_ms(halted ? 0.02 : 0.2);
        }
    }
    for (int i = 0; i < nuse; i++) {
        mcts_helper *h = use[i];
        if (i < started && !helper_reap(h, !may_leave)) {
            /* left behind: its root as of its last snapshot */
            snap_merge(mb, h, &clk->sims);
            continue;
        }
        clk->sims += h->done;
        mb->tree.node[MCTS_ROOT].visits += h->tree.node[MCTS_ROOT].visits;
        merge_children(&mb->tree, MCTS_ROOT, &h->tree, MCTS_ROOT, 1);
        mb->tree.full |= h->tree.full;
        for (int p = 0; p < ENG_MAX_PLAYERS; p++)
            mb->ctx.root_sum[p] += h->ctx.root_sum[p];
        mb->ctx.root_n += h->ctx.root_n;
    }
}

/* ---- the decision driver ------------------------------------------------------------ */

int mcts_bot_init(mcts_bot *mb, bot *b, const mcts_family *fam, char *err, size_t errcap)
{
    memset(mb, 0, sizeof *mb);
    mcts_cfg_from_bot(&mb->cfg, b);
    mb->cfg.rave = fam->rave;
    mb->cfg.flat = fam->flat;
    mb->cfg.select = fam->select;
    if (mb->cfg.reward == MCTS_R_HEYDEN && mb->cfg.heyden < 0) {
        snprintf(err, errcap, "%s: reward=heyden needs a game with Heyden's evaluation; %s has none",
                 b->type->name, b->game->name);
        return ENG_EBAD_BOT_SPEC;
    }
    mb->default_sims = fam->default_sims;
    size_t bytes = fam->mem_bytes ? fam->mem_bytes : (size_t)b->mem_mb << 20;
    bool reuse = opt_or(b, "reuse", 0) != 0;
    /* threads=N: N trees share mem= */
    mb->threads = (int)opt_or(b, "threads", 1);
    if (mb->threads > 1) {
        bytes /= (size_t)mb->threads;
        mb->helpers = calloc((size_t)mb->threads - 1, sizeof *mb->helpers);
        bool ok = mb->helpers != NULL;
        for (int i = 0; ok && i < mb->threads - 1; i++) {
            mcts_helper *h = &mb->helpers[i];
            h->root = malloc(b->game->state_size);
            h->root_moves = malloc((size_t)b->game->max_moves * sizeof *h->root_moves);
            h->snap_cap = (uint32_t)(b->game->max_moves > b->game->max_chance ? b->game->max_moves
                                                                              : b->game->max_chance);
            h->snap[0].stat = calloc(2 * (size_t)h->snap_cap, sizeof *h->snap[0].stat);
            h->snap[1].stat = calloc(2 * (size_t)h->snap_cap, sizeof *h->snap[1].stat);
            h->read_buf = malloc(h->snap_cap * sizeof *h->read_buf);
            atomic_init(&h->cur, -1);
            ok = h->root && h->root_moves && h->snap[0].stat && h->snap[1].stat && h->read_buf &&
                 mcts_tree_alloc(&h->tree, bytes, mb->cfg.rave) == 0 &&
                 mcts_ctx_init(&h->ctx, b->game, &mb->cfg, &h->rng, &h->tree) == 0;
        }
        if (!ok) {
            mcts_bot_free(mb);
            snprintf(err, errcap, "%s: out of memory for %d search threads", b->type->name,
                     mb->threads);
            return ENG_ENOMEM;
        }
    }
    if (mcts_tree_alloc(&mb->tree, reuse ? bytes / 2 : bytes, mb->cfg.rave) ||
        (reuse && mcts_tree_alloc(&mb->spare, bytes / 2, mb->cfg.rave)) ||
        mcts_ctx_init(&mb->ctx, b->game, &mb->cfg, &b->rng, &mb->tree)) {
        mcts_bot_free(mb);
        snprintf(err, errcap, "%s: out of memory for a %lld MiB search", b->type->name,
                 (long long)b->mem_mb);
        return ENG_ENOMEM;
    }
    mb->plan_state = malloc(b->game->state_size);
    mb->tree_state = malloc(b->game->state_size);
    if (!mb->plan_state || !mb->tree_state) {
        mcts_bot_free(mb);
        snprintf(err, errcap, "%s: out of memory", b->type->name);
        return ENG_ENOMEM;
    }
    return 0;
}

void mcts_bot_free(mcts_bot *mb)
{
    for (int i = 0; mb->helpers && i < mb->threads - 1; i++) {
        mcts_helper *h = &mb->helpers[i];
        helper_reap(h, true); /* one left behind by the last decision ends its simulation */
        mcts_ctx_free(&h->ctx);
        mcts_tree_free(&h->tree);
        free(h->root);
        free(h->root_moves);
        free((void *)h->snap[0].stat);
        free((void *)h->snap[1].stat);
        free(h->read_buf);
    }
    free(mb->helpers);
    mb->helpers = NULL;
    mcts_ctx_free(&mb->ctx);
    mcts_tree_free(&mb->tree);
    mcts_tree_free(&mb->spare);
    free(mb->plan_state);
    free(mb->tree_state);
    mb->plan_state = mb->tree_state = NULL;
}

void mcts_bot_reset(mcts_bot *mb)
{
    mb->has_plan = false;
    mb->tree_valid = false;
    mcts_tree_clear(&mb->tree);
}

bool mcts_bot_begin(mcts_bot *mb, bot *b, const void *st, eng_move *m)
{
    size_t sz = b->game->state_size;
    if (mb->has_plan && memcmp(st, mb->plan_state, sz) == 0) {
        mb->has_plan = false;
        *m = mb->plan;
        return true;
    }
    mb->has_plan = false;
    bool reuse = opt_or(b, "reuse", 0) != 0;
    if (reuse && mb->tree_valid && memcmp(st, mb->tree_state, sz) == 0 &&
        mb->tree_root != MCTS_ROOT) {
        tree_extract(&mb->spare, &mb->tree, mb->tree_root);
        mcts_tree tmp = mb->tree;
        mb->tree = mb->spare;
        mb->spare = tmp;
        mb->ctx.tree = &mb->tree;
    } else if (!(reuse && mb->tree_valid && memcmp(st, mb->tree_state, sz) == 0)) {
        mcts_tree_clear(&mb->tree);
    }
    mb->tree_valid = false;
    mb->think_t0 = bot_now_ms();
    mb->ctx.root_state = st;
    mb->ctx.score = NULL;
    mb->ctx.backup = true;
    mb->ctx.expand = true;
    memset(mb->ctx.root_sum, 0, sizeof mb->ctx.root_sum);
    mb->ctx.root_n = 0;
    return false;
}

eng_move mcts_bot_end(mcts_bot *mb, bot *b, const void *st, bot_stats *stats)
{
    const eng_game *g = b->game;
    mcts_tree *t = &mb->tree;
    bool by_sel = mb->cfg.final == MCTS_F_UCT;
    uint32_t best = by_sel ? mcts_best_by_selection(&mb->ctx, MCTS_ROOT)
                           : mcts_best_child(t, MCTS_ROOT, mb->cfg.final);
    eng_move m;
    if (best) {
        m = t->node[best].move;
        stats->value = t->node[best].value / t->node[best].visits;
    } else {
        m = eng_random_move(g, st, &b->rng); /* stopped before any simulation */
    }
    if (mb->ctx.root_n > 0) {
        stats->nvalues = eng_num_players(st);
        for (int p = 0; p < stats->nvalues; p++)
            stats->values[p] = mb->ctx.root_sum[p] / (double)mb->ctx.root_n;
    }
    if (b->think_fn)
        mcts_bot_think(mb, b, stats->sims, best);
    stats->nodes = t->used - 1;
    stats->mem_bytes = mcts_tree_bytes(t);
    stats->mem_full = t->full;

    bool joint = opt_or(b, "joint", 1) != 0;
    if (joint && best) {
        /* Müller's thesis, Alg. 5: the seat's next decision in the same turn (the
         * meeple after the placement) is read from the same search. */
        memcpy(mb->plan_state, st, g->state_size);
        g->apply(mb->plan_state, m);
        if (g->current_player(mb->plan_state) == g->current_player(st)) {
            uint32_t next = by_sel ? mcts_best_by_selection(&mb->ctx, best)
                                   : mcts_best_child(t, best, mb->cfg.final);
            if (next) {
                mb->plan = t->node[next].move;
                mb->has_plan = true;
            } else if (opt_or(b, "unplanned", MCTS_U_SEARCH) == MCTS_U_FIRST &&
                       g->legal_moves(mb->plan_state, mb->ctx.moves) > 0) {
                /* Alg. 5 returns BESTCHILD0 of a placement node that has no visited
                 * child: the turn's next decision gets no search of its own, and
                 * the game's first legal move (Carcassonne: no meeple) is played */
                mb->plan = mb->ctx.moves[0];
                mb->has_plan = true;
            }
        }
    }
    if (opt_or(b, "reuse", 0) != 0) {
        memcpy(mb->tree_state, st, g->state_size);
        mb->tree_root = MCTS_ROOT;
        mb->tree_valid = true;
    }
    char ms[ENG_MOVE_STR_MAX] = "?";
    g->move_to_str(st, m, ms, sizeof ms);
    snprintf(stats->info, sizeof stats->info, "move %s, value %.3f, visits %u of %u, tree %u nodes%s",
             ms, stats->value, best ? t->node[best].visits : 0, t->node[MCTS_ROOT].visits,
             t->used - 1, t->full ? " (memory full)" : "");
    return m;
}

/* The most visited child of node n, or 0. */
static uint32_t most_visited(const mcts_tree *t, uint32_t n)
{
    const mcts_node *nd = &t->node[n];
    uint32_t best = 0;
    for (uint32_t i = 0; i < nd->tried; i++)
        if (t->node[nd->child + i].visits && (!best || t->node[nd->child + i].visits >
                                                           t->node[best].visits))
            best = nd->child + i;
    return best;
}

void mcts_bot_think(mcts_bot *mb, bot *b, int64_t iterations, uint32_t chosen)
{
    const mcts_tree *t = &mb->tree;
    const mcts_node *root = &t->node[MCTS_ROOT];
    bot_think th;
    memset(&th, 0, sizeof th);
    th.st = mb->ctx.root_state;
    th.final = chosen != 0;
    th.iterations = iterations;
    th.nodes = t->used - 1;
    th.elapsed_ms = bot_now_ms() - mb->think_t0;
    th.value_kind = mb->cfg.reward == MCTS_R_SCOREDIFF ? BOT_VALUE_SCOREDIFF
                    : mb->cfg.reward == MCTS_R_WINLOSS ? BOT_VALUE_WINLOSS
                                                       : BOT_VALUE_NONE;
    /* the most visited children, most first (insertion into a short list) */
    uint32_t top[BOT_THINK_CANDS];
    int n = 0;
    if (chosen)
        top[n++] = chosen; /* the choice first, whatever its visits (final=value) */
    for (uint32_t i = 0; i < root->tried; i++) {
        uint32_t c = root->child + i;
        if (!t->node[c].visits || c == chosen)
            continue;
        int at = n < BOT_THINK_CANDS ? n++ : BOT_THINK_CANDS;
        while (at > (chosen ? 1 : 0) && t->node[top[at - 1]].visits < t->node[c].visits) {
            if (at < BOT_THINK_CANDS)
                top[at] = top[at - 1];
            at--;
        }
        if (at < BOT_THINK_CANDS)
            top[at] = c;
    }
    for (int k = 0; k < n; k++) {
        bot_think_cand *cd = &th.cand[k];
        const mcts_node *nd = &t->node[top[k]];
        cd->moves[cd->nmoves++] = nd->move;
        cd->visits = nd->visits;
        cd->value = nd->value / nd->visits;
        /* the same seat's next decisions of the turn, as the search prefers them */
        for (uint32_t at = top[k], next; cd->nmoves < ENG_MAX_TURN_MOVES &&
                                         (next = most_visited(t, at)) &&
                                         t->node[next].mover == nd->mover;
             at = next)
            cd->moves[cd->nmoves++] = t->node[next].move;
    }
    th.ncand = n;
    th.has_value = n > 0;
    if (n)
        th.value = th.cand[0].value;
    uint32_t at = MCTS_ROOT, next;
    if (chosen) { /* the line of the choice */
        th.pv[th.npv++] = t->node[chosen].move;
        at = chosen;
    }
    for (; th.npv < BOT_THINK_PV && (next = most_visited(t, at)) && t->node[next].mover >= 0;
         at = next)
        th.pv[th.npv++] = t->node[next].move;
    bot_think_tell(b, &th);
}

void mcts_bot_observe(mcts_bot *mb, bot *b, const void *st, eng_move m)
{
    if (!mb->tree_valid)
        return;
    const eng_game *g = b->game;
    if (memcmp(st, mb->tree_state, g->state_size) != 0) {
        mb->tree_valid = false;
        return;
    }
    const mcts_node *nd = &mb->tree.node[mb->tree_root];
    uint32_t found = 0;
    for (uint32_t i = 0; i < nd->nchild; i++)
        if (mb->tree.node[nd->child + i].move == m) {
            found = nd->child + i;
            break;
        }
    if (!found) {
        mb->tree_valid = false;
        return;
    }
    mb->tree_root = found;
    g->apply(mb->tree_state, m);
}

/* ---- the bots ------------------------------------------------------------------------ */

typedef struct mcts_impl {
    mcts_bot mb;
} mcts_impl;

static int family_init(bot *b, char *err, size_t cap, int64_t default_sims, bool rave, bool flat,
                       int select)
{
    mcts_impl *im = calloc(1, sizeof *im);
    if (!im) {
        snprintf(err, cap, "%s: out of memory", b->type->name);
        return ENG_ENOMEM;
    }
    mcts_family fam = {.default_sims = default_sims, .rave = rave, .flat = flat, .select = select};
    int rc = mcts_bot_init(&im->mb, b, &fam, err, cap);
    if (rc) {
        free(im);
        return rc;
    }
    b->impl = im;
    return 0;
}

static eng_move family_choose(bot *b, const void *st, const bot_budget *budget, bot_stats *stats)
{
    mcts_impl *im = b->impl;
    eng_move m;
    if (b->game->current_player(st) == ENG_CHANCE)
        return eng_sample_chance(b->game, st, &b->rng); /* not a decision; be safe */
    bot_clock clk; /* started first: reusing the tree counts against ms= too */
    bot_clock_start(&clk, b, budget, im->mb.default_sims);
    if (mcts_bot_begin(&im->mb, b, st, &m)) {
        snprintf(stats->info, sizeof stats->info, "second decision of the turn, from the search");
        return m;
    }
    mcts_bot_search(&im->mb, b, &clk);
    stats->sims = clk.sims;
    return mcts_bot_end(&im->mb, b, st, stats);
}

static void family_observe(bot *b, const void *st, eng_move m)
{
    mcts_impl *im = b->impl;
    mcts_bot_observe(&im->mb, b, st, m);
}

static void family_reset(bot *b)
{
    mcts_impl *im = b->impl;
    mcts_bot_reset(&im->mb);
}

static void family_close(bot *b)
{
    mcts_impl *im = b->impl;
    if (!im)
        return;
    mcts_bot_free(&im->mb);
    free(im);
    b->impl = NULL;
}

static int mcts_init(bot *b, char *err, size_t cap)
{
    return family_init(b, err, cap, 2800, false, false, MCTS_S_UCT);
}
static int rave_init(bot *b, char *err, size_t cap)
{
    return family_init(b, err, cap, 2800, true, false, MCTS_S_UCT);
}
static int flatmc_init(bot *b, char *err, size_t cap)
{
    return family_init(b, err, cap, 2800, false, true, MCTS_S_UNIFORM);
}
static int ucb1_init(bot *b, char *err, size_t cap)
{
    return family_init(b, err, cap, 2800, false, true, MCTS_S_UCT);
}

static const bot_param mcts_params[] = {
    MCTS_OPT_UCT(0), MCTS_OPT_K(1.41421356, "K of the galvan formula"), MCTS_OPT_CP,
    MCTS_PLAYOUT_OPTS, MCTS_OPT_FINAL, MCTS_OPT_REUSE, MCTS_OPT_JOINT, MCTS_OPT_UNPLANNED,
    MCTS_OPT_THREADS,
};

static const bot_param rave_params[] = {
    MCTS_OPT_UCT(0), MCTS_OPT_K(0.5, "K of the galvan formula"), MCTS_OPT_CP,
    {"b", BOT_REAL, 10, 0, 1e6, NULL, NULL,
     "RAVE equivalence parameter b~: beta = N~/(N + N~ + 4 N N~ b~^2)"},
    MCTS_PLAYOUT_OPTS, MCTS_OPT_FINAL, MCTS_OPT_REUSE, MCTS_OPT_JOINT, MCTS_OPT_THREADS,
};

static const bot_param flat_params[] = {MCTS_PLAYOUT_OPTS, MCTS_OPT_JOINT, MCTS_OPT_THREADS};

static const bot_param ucb1_params[] = {
    MCTS_OPT_UCT(1), MCTS_OPT_K(1.41421356, "K of the galvan formula"), MCTS_OPT_CP,
    MCTS_PLAYOUT_OPTS, MCTS_OPT_FINAL, MCTS_OPT_JOINT, MCTS_OPT_THREADS,
};

#define NPARAMS(a) ((int)(sizeof(a) / sizeof((a)[0])))

const bot_type bot_mcts_type = {
    .name = "mcts",
    .summary = "UCT with chance nodes and the decomposed turn (Müller's thesis, Alg. 5; default "
               "2800 sims)",
    .params = mcts_params,
    .nparams = NPARAMS(mcts_params),
    .init = mcts_init,
    .choose = family_choose,
    .observe = family_observe,
    .reset = family_reset,
    .close = family_close,
};

const bot_type bot_rave_type = {
    .name = "rave",
    .summary = "MCTS-RAVE: UCT blended with all-moves-as-first statistics (SIEA-MCTS paper §IV-B)",
    .params = rave_params,
    .nparams = NPARAMS(rave_params),
    .init = rave_init,
    .choose = family_choose,
    .observe = family_observe,
    .reset = family_reset,
    .close = family_close,
};

const bot_type bot_flatmc_type = {
    .name = "flatmc",
    .summary = "flat Monte Carlo: playouts spread evenly over the moves of this turn (Müller's "
               "thesis §5.1)",
    .params = flat_params,
    .nparams = NPARAMS(flat_params),
    .init = flatmc_init,
    .choose = family_choose,
    .observe = family_observe,
    .reset = family_reset,
    .close = family_close,
};

const bot_type bot_ucb1_type = {
    .name = "ucb1",
    .summary = "1-ply search choosing playouts by UCB over the moves of this turn (Müller's "
               "thesis §5.1.4)",
    .params = ucb1_params,
    .nparams = NPARAMS(ucb1_params),
    .init = ucb1_init,
    .choose = family_choose,
    .observe = family_observe,
    .reset = family_reset,
    .close = family_close,
};
