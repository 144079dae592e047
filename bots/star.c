/*
 * star.c — the *-minimax family (Ballard 1983): Star1, Star2 and Star2.5,
 * expectimax with alpha-beta pruning at chance nodes, for any game.
 *
 * Every leaf value is clamped into a known window [L, U] (options lower=,
 * upper=). A chance node's value is the probability-weighted mean of its
 * children, so after some children are known the rest can only move it
 * between "all the others are L" and "all the others are U"; Star1 uses this
 * to cut a chance node as soon as its value provably falls outside the
 * (alpha, beta) window of its parent. Star2 first *probes* every outcome
 * cheaply — searching only the best-ordered `probe` moves of the player who
 * moves after it — which gives a lower bound on a maximising child (or an
 * upper bound on a minimising one); these tighter bounds replace L (or U) in
 * the Star1 arithmetic and often cut the chance node before any outcome is
 * searched in full. The probing factor f is the number of moves probed:
 * f = 0 is Star1, f = 1 Star2, f > 1 Star2.5 (the bot types star1, star2 and
 * star2.5 differ only in the default of option probe=).
 *
 * Depth is counted in turns. A turn is a maximal run of decisions by one
 * seat with no chance event between them (Carcassonne: tile placement, then
 * meeple; the two are searched jointly as one ply). depth=d searches the
 * rest of the current turn and d-1 further turns, with every chance event
 * in between enumerated, and evaluates the position where the d-th turn
 * ends (before the next draw). Carcassonne at depth 2: own placement and
 * meeple with the known tile -> every remaining tile type for the opponent,
 * weighted by its count -> the opponent's placement and meeple -> evaluate.
 * A dead tile (chance followed by chance) does not count as a turn.
 *
 * Values are always the root player's: a leaf is evaluate(state, root) (for
 * Carcassonne the virtual score difference), a terminal state the real score
 * difference (own score minus the best other), both clamped into [L, U].
 * With more than two seats the search is *paranoid*: the root seat
 * maximises, every other seat minimises the root seat's value.
 *
 * Moves at every decision are tried best first by the game's cheap rating
 * (eng_rate_moves), at the root the previous iteration's best move first.
 * The search deepens iteratively from depth 1, so a stopped search returns
 * the best move of the deepest completed iteration (or, before depth 1
 * completes, the best-rated move). The sims= budget counts leaf evaluations.
 *
 * Memory: one block per bot holds, for each ply of the current line, a
 * state and that ply's move and chance buffers (sized by the game's maxima);
 * nothing is allocated during a search. docs/star.md derives the bounds.
 */
#include "bot.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STAR_ALL         INT32_MAX /* "no limit" on the moves searched at a decision */
#define STAR_MAX_LEVELS  4096      /* most plies one line may hold (guards a huge max_plies) */
#define STAR_CLOCK_EVERY 64        /* leaves between two reads of the wall clock */

/* Buffers of one ply of the line being searched. Level k holds the state
 * reached after k moves/outcomes from the root and, if it is a decision or
 * a chance node, that node's bookkeeping. */
typedef struct star_level {
    unsigned char *st; /* the state (g->state_size bytes) */
    eng_move *raw;     /* decision: legal moves as generated */
    eng_move *moves;   /* decision: the same, best rated first */
    double *rate;      /* decision: rating of raw[i] */
    int32_t *idx;      /* decision: sort permutation */
    int32_t *tmp;      /* decision: merge-sort scratch */
    eng_move *out;     /* chance: outcomes with positive probability */
    double *prob;      /* chance: their probabilities */
    double *lo, *hi;   /* chance: known bounds on each child's value */
    double *slo, *shi; /* chance: sum over j > i of prob[j] * lo[j] (hi[j]) */
    double *tail;      /* chance: sum over j > i of prob[j] */
    uint8_t *exact;    /* chance: child i is terminal, lo[i] = hi[i] is its value */
} star_level;

/* Private part of a star bot (b->impl). */
typedef struct star_impl {
    star_level *lv; /* nlv levels */
    int nlv;        /* plies the line can hold */
    void *block;    /* every level's buffers, one allocation */
    size_t bytes;   /* size of block plus lv */
} star_impl;

/* One decision's search. */
typedef struct star_search {
    const eng_game *g;
    star_level *lv;
    int nlv;
    int root;         /* the maximising seat */
    double L, U;      /* the evaluation window */
    double eps;       /* slack that makes every cut robust to rounding */
    int probe;        /* probing factor f */
    bot_clock clk;    /* budget; clk.sims counts leaf evaluations */
    bool stop;        /* budget spent: unwind and discard this iteration */
    int64_t interior; /* decision and chance nodes expanded */
    int64_t rated;    /* moves rated for ordering */
    int64_t probes;   /* probe searches (Star2 probing phase) */
    int64_t cuts;     /* cut-offs at decision and chance nodes */
} star_search;

/* ---- leaves and move ordering -------------------------------------------- */

static double clampv(const star_search *s, double v)
{
    return v < s->L ? s->L : v > s->U ? s->U : v;
}

/* Value of a leaf for the root seat: the real score difference at the end of
 * the game, evaluate() elsewhere, clamped into [L, U]. Charges the budget. */
static double leaf(star_search *s, const void *st, bool terminal)
{
    /* the stop flag at every leaf, the clock (a system call's worth) every
     * STAR_CLOCK_EVERY leaves */
    if (s->clk.sims >= s->clk.max_sims ||
        (s->clk.stop && atomic_load_explicit(s->clk.stop, memory_order_relaxed)) ||
        (s->clk.sims % STAR_CLOCK_EVERY == 0 && bot_clock_done(&s->clk))) {
        s->stop = true;
        return 0.0;
    }
    s->clk.sims++;
    double v;
    if (terminal) {
        double sc[ENG_MAX_PLAYERS];
        int np = eng_num_players(st);
        s->g->scores(st, sc);
        double best = -INFINITY;
        for (int p = 0; p < np; p++)
            if (p != s->root && sc[p] > best)
                best = sc[p];
        v = sc[s->root] - best;
    } else {
        v = s->g->evaluate(st, s->root);
    }
    return clampv(s, v);
}

/* Stable sort of moves[0..n) by rating, best first (ties keep the game's
 * order, so the search is deterministic). Bottom-up merge sort on indices. */
static void sort_moves(star_level *l, int n)
{
    int32_t *a = l->idx, *t = l->tmp;
    for (int i = 0; i < n; i++)
        a[i] = i;
    for (int w = 1; w < n; w *= 2) {
        for (int lo = 0; lo < n; lo += 2 * w) {
            int mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            int i = lo, j = mid, o = lo;
            while (i < mid && j < hi)
                t[o++] = l->rate[a[j]] > l->rate[a[i]] ? a[j++] : a[i++];
            while (i < mid)
                t[o++] = a[i++];
            while (j < hi)
                t[o++] = a[j++];
        }
        int32_t *x = a;
        a = t;
        t = x;
    }
    for (int i = 0; i < n; i++)
        l->moves[i] = l->raw[a[i]];
}

/* Legal moves of the decision at level k into lv[k].moves, best rated first.
 * Returns their number. */
static int order_moves(star_search *s, int k)
{
    star_level *l = &s->lv[k];
    int n = s->g->legal_moves(l->st, l->raw);
    if (n <= 1) {
        if (n == 1)
            l->moves[0] = l->raw[0];
        return n;
    }
    eng_rate_moves(s->g, l->st, l->raw, n, l->rate);
    s->rated += n;
    sort_moves(l, n);
    return n;
}

/* ---- the search ----------------------------------------------------------
 *
 * Every function below returns a fail-soft value v of the node it searches
 * with window (a, b), from the root seat's point of view:
 *   a < v < b  the node's exact value (bit for bit what plain expectimax
 *              computes: chance nodes sum prob * value in outcome order);
 *   v <= a     an upper bound on the node's value;
 *   v >= b     a lower bound on it.
 * Chance nodes only cut when the bound clears the window by eps (1e-9 of
 * U - L): the rounding of the bound arithmetic can never turn a cut into a
 * wrong one, and a tie is never cut, so the root value is expectimax's to
 * the bit and every probing factor picks the same move (the first in root
 * order with the best value). Cutting ties too would save ~2% of the leaves
 * in Carcassonne middle and end games at depth 2 (more in tiny openings) but
 * would let ulp-level rounding decide among tied moves.
 * `d` is the number of turns still to search, counting the current one. */

static double search(star_search *s, int k, int d, double a, double b);

/* A bound returned by a cut must read as one (<= a, or >= b) to the parent.
 * The eps margin already guarantees it; these make it hold by construction. */
static double at_most(double v, double a)
{
    return v < a ? v : a;
}

static double at_least(double v, double b)
{
    return v > b ? v : b;
}

static double decision(star_search *s, int k, int d, double a, double b, int limit);

/* The state at level k was just reached by a move of seat `mover`: go on
 * with the same turn, end it, or stop at the horizon. `limit` caps the moves
 * tried at a same-turn decision (probing tries only the best-rated one). */
static double after_move(star_search *s, int k, int mover, int d, double a, double b, int limit)
{
    const void *st = s->lv[k].st;
    int p = s->g->current_player(st);
    if (p == ENG_TERMINAL)
        return leaf(s, st, true);
    if (p == mover)
        return decision(s, k, d, a, b, limit);
    if (d <= 1)
        return leaf(s, st, false);
    return search(s, k, d - 1, a, b);
}

/* A decision at level k; only its first `limit` moves in order are tried
 * (STAR_ALL for a full search, the probing factor when probing). The root
 * seat maximises, every other seat minimises (paranoid). */
static double decision(star_search *s, int k, int d, double a, double b, int limit)
{
    star_level *l = &s->lv[k];
    if (k + 1 >= s->nlv)
        return leaf(s, l->st, false);
    int p = s->g->current_player(l->st);
    int n = order_moves(s, k);
    if (n == 0)
        return leaf(s, l->st, false);
    if (n > limit)
        n = limit;
    s->interior++;
    int nested = limit == STAR_ALL ? STAR_ALL : 1;
    unsigned char *child = s->lv[k + 1].st;
    if (p == s->root) {
        double best = -INFINITY;
        for (int i = 0; i < n; i++) {
            eng_copy(s->g, child, l->st);
            s->g->apply(child, l->moves[i]);
            double v = after_move(s, k + 1, p, d, a > best ? a : best, b, nested);
            if (s->stop)
                return 0.0;
            if (v > best) {
                best = v;
                if (best >= b) {
                    s->cuts++;
                    break;
                }
            }
        }
        return best;
    }
    double best = INFINITY;
    for (int i = 0; i < n; i++) {
        eng_copy(s->g, child, l->st);
        s->g->apply(child, l->moves[i]);
        double v = after_move(s, k + 1, p, d, a, b < best ? b : best, nested);
        if (s->stop)
            return 0.0;
        if (v < best) {
            best = v;
            if (best <= a) {
                s->cuts++;
                break;
            }
        }
    }
    return best;
}

/* A chance node at level k: Star2/2.5 probing phase (if probe > 0), then the
 * Star1 search phase. With outcomes i = 0..n-1 of probability P_i, known
 * bounds lo_i <= V_i <= hi_i and X = sum over searched j < i of P_j V_j,
 * the node's value lies in
 *     [X + P_i V_i + sum_{j>i} P_j lo_j,  X + P_i V_i + sum_{j>i} P_j hi_j],
 * so child i is searched with the window (A_i, B_i) outside which the node
 * itself falls outside (a, b):
 *     A_i = (a - eps - X - sum_{j>i} P_j hi_j) / P_i,
 *     B_i = (b + eps - X - sum_{j>i} P_j lo_j) / P_i.
 * Star1 knows only lo_j = L and hi_j = U; the probing phase tightens them. */
static double chance(star_search *s, int k, int d, double a, double b)
{
    star_level *l = &s->lv[k];
    if (k + 1 >= s->nlv)
        return leaf(s, l->st, false);
    const eng_game *g = s->g;
    const double L = s->L, U = s->U, eps = s->eps;
    int n = g->chance_outcomes(l->st, l->out, l->prob);
    unsigned char *child = s->lv[k + 1].st;
    /* Keep the outcomes that lead somewhere (a decision or the end), and
     * renormalise: an outcome after which chance moves again (a dead tile,
     * redrawn by the same seat) is folded away, as the authors' code reads
     * the papers: "every remaining tile type that can be placed, weighted
     * by its count" (docs/star.md, docs/references.md). Without
     * this, chains of dead tiles cost no depth and the search explodes. */
    int m = 0;
    double live = 0.0;
    for (int i = 0; i < n; i++) {
        if (!(l->prob[i] > 0.0))
            continue; /* an outcome that never happens adds nothing */
        eng_copy(g, child, l->st);
        g->apply(child, l->out[i]);
        if (g->current_player(child) == ENG_CHANCE)
            continue;
        l->out[m] = l->out[i];
        l->prob[m] = l->prob[i];
        live += l->prob[i];
        m++;
    }
    n = m;
    if (n == 0)
        return leaf(s, l->st, false);
    for (int i = 0; i < n; i++)
        l->prob[i] /= live;
    s->interior++;
    double t = 0.0;
    for (int i = n - 1; i >= 0; i--) {
        l->tail[i] = t;
        t += l->prob[i];
        l->lo[i] = L;
        l->hi[i] = U;
        l->exact[i] = 0;
    }

    /* Probing phase: bounds for every child from its first `probe` moves.
     * plo/phi: sum over probed j < i of P_j lo_j (P_j hi_j). */
    if (s->probe > 0) {
        double plo = 0.0, phi = 0.0;
        for (int i = 0; i < n; i++) {
            double P = l->prob[i];
            eng_copy(g, child, l->st);
            g->apply(child, l->out[i]);
            int p = g->current_player(child);
            if (p == ENG_TERMINAL) {
                double v = leaf(s, child, true);
                if (s->stop)
                    return 0.0;
                l->lo[i] = l->hi[i] = v;
                l->exact[i] = 1;
            } else if (p == s->root) {
                /* a lower bound: the best of the probed moves */
                double B = (b + eps - plo - l->tail[i] * L) / P;
                double r = decision(s, k + 1, d, L, B, s->probe);
                if (s->stop)
                    return 0.0;
                s->probes++;
                if (r > L)
                    l->lo[i] = r;
            } else if (p >= 0) {
                /* an upper bound: the opponent's best probed reply */
                double A = (a - eps - phi - l->tail[i] * U) / P;
                double r = decision(s, k + 1, d, A, U, s->probe);
                if (s->stop)
                    return 0.0;
                s->probes++;
                if (r < U)
                    l->hi[i] = r;
            } /* a chance child (dead tile) keeps [L, U] */
            plo += P * l->lo[i];
            phi += P * l->hi[i];
            double lower = plo + l->tail[i] * L, upper = phi + l->tail[i] * U;
            if (lower >= b + 0.5 * eps) {
                s->cuts++;
                return lower;
            }
            if (upper <= a - 0.5 * eps) {
                s->cuts++;
                return upper;
            }
        }
    }

    /* Search phase (Star1, with the probed bounds in place of L and U). */
    double sl = 0.0, sh = 0.0;
    for (int i = n - 1; i >= 0; i--) {
        l->slo[i] = sl;
        l->shi[i] = sh;
        sl += l->prob[i] * l->lo[i];
        sh += l->prob[i] * l->hi[i];
    }
    double x = 0.0;
    for (int i = 0; i < n; i++) {
        double P = l->prob[i];
        double A = (a - eps - x - l->shi[i]) / P;
        double B = (b + eps - x - l->slo[i]) / P;
        if (l->lo[i] >= B) { /* the probe alone proves the cut */
            s->cuts++;
            return at_least(x + P * l->lo[i] + l->slo[i], b);
        }
        if (l->hi[i] <= A) {
            s->cuts++;
            return at_most(x + P * l->hi[i] + l->shi[i], a);
        }
        double v;
        if (l->exact[i]) {
            v = l->lo[i];
        } else {
            eng_copy(g, child, l->st);
            g->apply(child, l->out[i]);
            v = search(s, k + 1, d, A, B);
            if (s->stop)
                return 0.0;
        }
        if (v <= A) {
            s->cuts++;
            return at_most(x + P * v + l->shi[i], a);
        }
        if (v >= B) {
            s->cuts++;
            return at_least(x + P * v + l->slo[i], b);
        }
        x += P * v;
    }
    return x;
}

/* The node at level k at the start of a turn (or a chance node). */
static double search(star_search *s, int k, int d, double a, double b)
{
    const void *st = s->lv[k].st;
    int p = s->g->current_player(st);
    if (p == ENG_TERMINAL)
        return leaf(s, st, true);
    if (p == ENG_CHANCE)
        return chance(s, k, d, a, b);
    return decision(s, k, d, a, b, STAR_ALL);
}

/* One iteration at depth d from the root (level 0, already ordered in
 * lv[0].moves[0..n)). Sets *best_move to the first move with the best value
 * and returns that value, exact. */
static double search_root(star_search *s, int n, int d, eng_move *best_move)
{
    star_level *l = &s->lv[0];
    unsigned char *child = s->lv[1].st;
    double best = -INFINITY;
    for (int i = 0; i < n; i++) {
        eng_copy(s->g, child, l->st);
        s->g->apply(child, l->moves[i]);
        double a = i == 0 ? s->L - 1.0 : best;
        double v = after_move(s, 1, s->root, d, a, s->U + 1.0, STAR_ALL);
        if (s->stop)
            return 0.0;
        if (v > best) {
            best = v;
            *best_move = l->moves[i];
        }
    }
    return best;
}

/* ---- the bot ------------------------------------------------------------- */

static size_t align16(size_t n)
{
    return (n + 15) & ~(size_t)15;
}

static int star_init(bot *b, char *err, size_t errcap)
{
    const eng_game *g = b->game;
    double lower = bot_opt(b, "lower"), upper = bot_opt(b, "upper");
    if (!(lower < upper)) {
        snprintf(err, errcap, "%s: option 'lower' (%g) must be below 'upper' (%g)", b->type->name,
                 lower, upper);
        return ENG_EBAD_BOT_SPEC;
    }
    star_impl *im = calloc(1, sizeof *im);
    if (!im) {
        snprintf(err, errcap, "%s: out of memory", b->type->name);
        return ENG_ENOMEM;
    }
    /* A line never holds more plies than a whole game. */
    int nlv = g->max_plies + 2;
    if (nlv > STAR_MAX_LEVELS)
        nlv = STAR_MAX_LEVELS;
    size_t mm = (size_t)(g->max_moves > 0 ? g->max_moves : 1);
    size_t mc = (size_t)(g->max_chance > 0 ? g->max_chance : 1);
    size_t per = align16(g->state_size) + 2 * align16(mm * sizeof(eng_move)) +
                 align16(mm * sizeof(double)) + 2 * align16(mm * sizeof(int32_t)) +
                 align16(mc * sizeof(eng_move)) + 6 * align16(mc * sizeof(double)) + align16(mc);
    im->nlv = nlv;
    im->lv = calloc((size_t)nlv, sizeof *im->lv);
    im->block = aligned_alloc(16, per * (size_t)nlv);
    if (!im->lv || !im->block) {
        free(im->lv);
        free(im->block);
        free(im);
        snprintf(err, errcap, "%s: out of memory", b->type->name);
        return ENG_ENOMEM;
    }
    im->bytes = per * (size_t)nlv + (size_t)nlv * sizeof *im->lv;
    unsigned char *p = im->block;
#define CARVE(field, count, type)                                                                  \
    do {                                                                                           \
        l->field = (type *)(void *)p;                                                              \
        p += align16((count) * sizeof(type));                                                      \
    } while (0)
    for (int k = 0; k < nlv; k++) {
        star_level *l = &im->lv[k];
        CARVE(st, g->state_size, unsigned char);
        CARVE(raw, mm, eng_move);
        CARVE(moves, mm, eng_move);
        CARVE(rate, mm, double);
        CARVE(idx, mm, int32_t);
        CARVE(tmp, mm, int32_t);
        CARVE(out, mc, eng_move);
        CARVE(prob, mc, double);
        CARVE(lo, mc, double);
        CARVE(hi, mc, double);
        CARVE(slo, mc, double);
        CARVE(shi, mc, double);
        CARVE(tail, mc, double);
        CARVE(exact, mc, uint8_t);
    }
#undef CARVE
    b->impl = im;
    return 0;
}

static void star_close(bot *b)
{
    star_impl *im = b->impl;
    if (!im)
        return;
    free(im->block);
    free(im->lv);
    free(im);
    b->impl = NULL;
}

static eng_move star_choose(bot *b, const void *st, const bot_budget *budget, bot_stats *stats)
{
    star_impl *im = b->impl;
    const eng_game *g = b->game;
    star_search s = {
        .g = g,
        .lv = im->lv,
        .nlv = im->nlv,
        .root = g->current_player(st),
        .L = bot_opt(b, "lower"),
        .U = bot_opt(b, "upper"),
        .probe = (int)bot_opt(b, "probe"),
    };
    s.eps = 1e-9 * (s.U - s.L > 1.0 ? s.U - s.L : 1.0);
    int depth = (int)bot_opt(b, "depth");
    bool deepen = bot_opt(b, "deepen") != 0.0;
    bot_clock_start(&s.clk, b, budget, 0);
    eng_copy(g, s.lv[0].st, st);

    int n = order_moves(&s, 0);
    if (s.root < 0 || n == 0) { /* not a decision: nothing sensible to do */
        stats->value = 0.0;
        return n > 0 ? s.lv[0].moves[0] : 0;
    }
    eng_move best = s.lv[0].moves[0]; /* before any iteration: the best rated */
    double value = NAN;
    int done = 0;
    for (int d = deepen ? 1 : depth; d <= depth; d++) {
        if (done > 0) { /* the previous iteration's choice first */
            int j = 0;
            while (s.lv[0].moves[j] != best)
                j++;
            memmove(s.lv[0].moves + 1, s.lv[0].moves, (size_t)j * sizeof(eng_move));
            s.lv[0].moves[0] = best;
        }
        eng_move m = best;
        double v = search_root(&s, n, d, &m);
        if (s.stop)
            break;
        best = m;
        value = v;
        done = d;
        if (d < depth && bot_clock_done(&s.clk))
            break;
    }
    stats->sims = s.clk.sims;
    stats->nodes = s.clk.sims;
    stats->mem_bytes = im->bytes;
    stats->value = done > 0 ? value : 0.0;
    snprintf(stats->info, sizeof stats->info,
             "depth=%d/%d value=%g leaves=%lld interior=%lld rated=%lld probes=%lld cuts=%lld%s",
             done, depth, stats->value, (long long)s.clk.sims, (long long)s.interior,
             (long long)s.rated, (long long)s.probes, (long long)s.cuts, s.stop ? " stopped" : "");
    return best;
}

/* ---- the three types ----------------------------------------------------- */

/* clang-format off */
#define STAR_PARAMS(probe_default)                                                                 \
    {                                                                                              \
        {"depth", BOT_INT, 2, 1, 64, NULL, NULL,                                                   \
         "turns searched: the rest of this turn and depth-1 more (placement+meeple = one turn)"},  \
        {"lower", BOT_REAL, -100, -1e9, 1e9, NULL, NULL,                                           \
         "L: lowest leaf value (evaluations are clamped into [lower, upper])"},                    \
        {"upper", BOT_REAL, 100, -1e9, 1e9, NULL, NULL, "U: highest leaf value"},                  \
        {"probe", BOT_INT, probe_default, 0, 1000, NULL, NULL,                                     \
         "probing factor: moves probed per chance outcome (0 Star1, 1 Star2, >1 Star2.5)"},        \
        {"deepen", BOT_BOOL, 1, 0, 1, NULL, NULL,                                                  \
         "iterative deepening from depth 1 (anytime); false searches only `depth`"},               \
    }

/* clang-format on */

static const bot_param star1_params[] = STAR_PARAMS(0);
static const bot_param star2_params[] = STAR_PARAMS(1);
static const bot_param star25_params[] = STAR_PARAMS(4);
#define NPARAMS ((int)(sizeof star1_params / sizeof star1_params[0]))

const bot_type bot_star1_type = {
    .name = "star1",
    .summary = "Star1 *-minimax: expectimax with alpha-beta cuts at chance nodes (Ballard)",
    .params = star1_params,
    .nparams = NPARAMS,
    .init = star_init,
    .choose = star_choose,
    .close = star_close,
};

const bot_type bot_star2_type = {
    .name = "star2",
    .summary = "Star2 *-minimax: Star1 plus a probing phase of one move per chance outcome",
    .params = star2_params,
    .nparams = NPARAMS,
    .init = star_init,
    .choose = star_choose,
    .close = star_close,
};

const bot_type bot_star25_type = {
    .name = "star2.5",
    .summary = "Star2.5 *-minimax: Star2 probing `probe` moves per chance outcome",
    .params = star25_params,
    .nparams = NPARAMS,
    .init = star_init,
    .choose = star_choose,
    .close = star_close,
};
