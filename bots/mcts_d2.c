/*
 * mcts_d2.c — `mcts-d2`: MCTS after a depth-2 search for critical moves
 * ([COMP 424 report](../docs/references.md#comp424-report), §2).
 *
 * Before searching, the bot looks at every legal move of the seat to move
 * as a whole turn (every later decision of the same seat in the same turn
 * enumerated too, Carcassonne's meeple after its placement):
 *   1. a move with which the turn can end the game as its sole winner is
 *      played at once (valued as that end, in the bot's reward);
 *   2. otherwise each move is checked against the opponent's reply: after
 *      the turn (over every chance outcome that may come next), can the next
 *      seat end the game as its sole winner in its own turn? A move after
 *      which it can — or after which the game is already lost — is avoided.
 *      If exactly one move is safe it is played (after a search whose root
 *      holds it alone, for its value); if several are, the MCTS
 *      search that follows chooses among them only; if none is (every move
 *      loses), or all are, MCTS chooses among all moves.
 * The check uses only terminal states and returns(), so it works for every
 * game. Its work is bounded by d2_nodes positions (a game like Carcassonne,
 * where a turn is hundreds of moves and a chance draw, would otherwise
 * spend seconds on it); past the bound the check gives up and MCTS decides
 * alone. It also stops when the decision's time or stop flag runs out.
 *
 * The search after the check is the `mcts` bot's (bots/mcts.c) with the
 * same options; `sims=` counts its simulations only, not the positions the
 * check visits (so "equal simulations" comparisons give the check for free,
 * as the report's equal-time comparison gave it its share of the second).
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcts.h"

#define D2_TURN_MAX    8 /* decisions of one seat in one turn the check follows */
#define D2_LEVELS      (2 * D2_TURN_MAX + 2) /* my turn, a chance event, the reply */
#define D2_CLOCK_EVERY 4096                  /* positions between two looks at the clock */

typedef struct d2_impl {
    mcts_bot mb;
    const eng_game *g;
    unsigned char *states; /* D2_LEVELS scratch states */
    eng_move *moves;       /* D2_LEVELS buffers of max(max_moves, max_chance) */
    double *prob;          /* max_chance probabilities */
    eng_move *safe;        /* the root moves that do not lose at once */
    int cap;               /* entries per move buffer */
    int64_t nodes, max_nodes;
    bool aborted;             /* node budget, time or stop flag ran out */
    const unsigned char *won; /* with critical()'s D2_PLAY (a win, step 1's alone): the position
                                 it ends in (a level's state) */
    bot_clock *clk;
} d2_impl;

static unsigned char *state_at(d2_impl *d, int lvl)
{
    return d->states + (size_t)lvl * d->g->state_size;
}

static eng_move *moves_at(d2_impl *d, int lvl)
{
    return d->moves + (size_t)lvl * (size_t)d->cap;
}

/* Count a position; false when the check must stop. */
static bool visit(d2_impl *d)
{
    if (d->aborted)
        return false;
    if (++d->nodes > d->max_nodes || (d->nodes % D2_CLOCK_EVERY == 0 && bot_clock_done(d->clk))) {
        d->aborted = true;
        return false;
    }
    return true;
}

/* Is st over with `seat` as its sole winner? */
static bool won_by(const eng_game *g, const void *st, int seat)
{
    double r[ENG_MAX_PLAYERS];
    g->returns(st, r);
    return r[seat] == 1.0;
}

/* Can `seat`, to move in st, finish the game as its sole winner within its
 * turn? (levels lvl.. are free) */
static bool can_win_turn(d2_impl *d, const void *st, int seat, int lvl)
{
    const eng_game *g = d->g;
    if (lvl >= D2_LEVELS)
        return false;
    eng_move *mv = moves_at(d, lvl);
    unsigned char *child = state_at(d, lvl);
    int n = g->legal_moves(st, mv);
    for (int i = 0; i < n; i++) {
        if (!visit(d))
            return false;
        memcpy(child, st, g->state_size);
        g->apply(child, mv[i]);
        int p = g->current_player(child);
        if (p == ENG_TERMINAL) {
            if (won_by(g, child, seat)) {
                d->won = child; /* its level is not written again: the callers return */
                return true;
            }
        } else if (p == seat && lvl + 1 < D2_LEVELS && can_win_turn(d, child, seat, lvl + 1)) {
            return true;
        }
    }
    return false;
}

/* After `me` finished its turn in st: does the game end lost for `me`
 * now, or can the next seat (after any chance outcome) win in its turn? */
static bool loses_after(d2_impl *d, const void *st, int me, int lvl)
{
    const eng_game *g = d->g;
    int p = g->current_player(st);
    if (p == ENG_TERMINAL) {
        double r[ENG_MAX_PLAYERS];
        g->returns(st, r);
        return r[me] == 0.0; /* someone else won */
    }
    if (p == me || lvl >= D2_LEVELS)
        return false;
    if (p >= 0)
        return can_win_turn(d, st, p, lvl);
    eng_move *out = moves_at(d, lvl);
    unsigned char *child = state_at(d, lvl);
    int n = g->chance_outcomes(st, out, d->prob);
    for (int i = 0; i < n; i++) {
        if (d->prob[i] <= 0)
            continue;
        if (!visit(d))
            return false;
        memcpy(child, st, g->state_size);
        g->apply(child, out[i]);
        /* a later level: this one's buffers hold the outcomes being walked */
        if (loses_after(d, child, me, lvl + 1))
            return true;
    }
    return false;
}

/* `me` is to move in st, in the middle of its turn: can it finish the turn
 * without losing at once? */
static bool turn_safe(d2_impl *d, const void *st, int me, int lvl)
{
    const eng_game *g = d->g;
    if (lvl >= D2_TURN_MAX)
        return true; /* too long a turn to follow: assume the best */
    eng_move *mv = moves_at(d, lvl);
    unsigned char *child = state_at(d, lvl);
    int n = g->legal_moves(st, mv);
    for (int i = 0; i < n; i++) {
        if (!visit(d))
            return true;
        memcpy(child, st, g->state_size);
        g->apply(child, mv[i]);
        bool safe = g->current_player(child) == me ? turn_safe(d, child, me, lvl + 1)
                                                   : !loses_after(d, child, me, lvl + 1);
        if (safe)
            return true;
    }
    return false;
}

enum { D2_NONE, D2_PLAY, D2_FILTER };

/* The check at the root. D2_PLAY: a win, *m and d->won set; D2_FILTER
 * leaves the safe moves (one or more) in d->safe[0..*nsafe). */
static int critical(d2_impl *d, const void *st, eng_move *m, int *nsafe, char *why, size_t cap)
{
    const eng_game *g = d->g;
    int me = g->current_player(st);
    eng_move *root = moves_at(d, 0);
    unsigned char *child = state_at(d, 0);
    int n = g->legal_moves(st, root);
    d->nodes = 0;
    d->aborted = false;
    d->won = NULL;
    /* 1. a move that wins within this turn */
    for (int i = 0; i < n; i++) {
        if (!visit(d))
            break;
        memcpy(child, st, g->state_size);
        g->apply(child, root[i]);
        int p = g->current_player(child);
        bool wins =
            p == ENG_TERMINAL ? won_by(g, child, me) : p == me && can_win_turn(d, child, me, 1);
        if (wins) {
            if (p == ENG_TERMINAL)
                d->won = child;
            assert(d->won); /* can_win_turn set it deeper */
            *m = root[i];
            snprintf(why, cap, "depth 2: a winning move");
            return D2_PLAY;
        }
    }
    if (d->aborted) {
        snprintf(why, cap, "depth 2 gave up after %lld positions", (long long)d->nodes);
        return D2_NONE;
    }
    /* 2. the moves after which the opponent cannot win at once (the
     * opponent's wins found here set won too: it is read only with D2_PLAY,
     * step 1's verdict) */
    int k = 0;
    for (int i = 0; i < n && !d->aborted; i++) {
        memcpy(child, st, g->state_size);
        g->apply(child, root[i]);
        bool safe = g->current_player(child) == me ? turn_safe(d, child, me, 1)
                                                   : !loses_after(d, child, me, 1);
        if (safe)
            d->safe[k++] = root[i];
    }
    if (d->aborted) {
        snprintf(why, cap, "depth 2 gave up after %lld positions", (long long)d->nodes);
        return D2_NONE;
    }
    *nsafe = k;
    if (k == 1) {
        /* searched as the root's only move: the same move, and the search's
         * value for it (the check has none) */
        snprintf(why, cap, "depth 2: the only move of %d that does not lose at once", n);
        return D2_FILTER;
    }
    if (k == 0 || k == n) {
        snprintf(why, cap, k ? "depth 2: no critical move" : "depth 2: every move loses at once");
        return D2_NONE;
    }
    snprintf(why, cap, "depth 2: %d of %d moves avoided", n - k, n);
    return D2_FILTER;
}

static int d2_init(bot *b, char *err, size_t cap)
{
    d2_impl *d = calloc(1, sizeof *d);
    if (!d)
        return eng_seterr(err, cap, ENG_ENOMEM, "%s: out of memory", b->type->name);
    mcts_family fam = {.default_sims = 2800, .select = MCTS_S_UCT};
    int rc = mcts_bot_init(&d->mb, b, &fam, err, cap);
    if (rc) {
        free(d);
        return rc;
    }
    const eng_game *g = b->game;
    d->g = g;
    d->cap = g->max_moves > g->max_chance ? g->max_moves : g->max_chance;
    d->states = malloc((size_t)D2_LEVELS * g->state_size);
    d->moves = malloc((size_t)D2_LEVELS * (size_t)d->cap * sizeof(eng_move));
    d->prob = malloc((size_t)(g->max_chance > 0 ? g->max_chance : 1) * sizeof(double));
    d->safe = malloc((size_t)g->max_moves * sizeof(eng_move));
    d->max_nodes = (int64_t)bot_opt(b, "d2_nodes");
    b->impl = d;
    if (!d->states || !d->moves || !d->prob || !d->safe) {
        b->type->close(b);
        return eng_seterr(err, cap, ENG_ENOMEM, "%s: out of memory", b->type->name);
    }
    return 0;
}

static eng_move d2_choose(bot *b, const void *st, const bot_budget *budget, bot_stats *stats)
{
    d2_impl *d = b->impl;
    if (b->game->current_player(st) == ENG_CHANCE)
        return eng_sample_chance(b->game, st, &b->rng); /* not a decision; be safe */
    bot_clock clk;
    bot_clock_start(&clk, b, budget, d->mb.default_sims);
    d->clk = &clk;
    eng_move m = -1;
    int nsafe = 0, verdict = D2_NONE;
    char why[160] = "depth 2 off";
    if (d->max_nodes > 0)
        verdict = critical(d, st, &m, &nsafe, why, sizeof why);
    stats->nodes = d->nodes;
    if (verdict == D2_PLAY) {
        assert(d->won);
        /* a win: played at once, valued as the search values an end (the
         * analysis reads these: docs/analysis.md) */
        d->mb.has_plan = false;
        d->mb.tree_valid = false;
        snprintf(stats->info, sizeof stats->info, "%s", why);
        int me = b->game->current_player(st);
        stats->nvalues = eng_num_players(st);
        mcts_rewards(&d->mb.ctx, d->won, true, stats->values);
        stats->value = stats->values[me];
        return m;
    }
    eng_move plan;
    if (mcts_bot_begin(&d->mb, b, st, &plan)) {
        bool ok = verdict != D2_FILTER;
        for (int i = 0; i < nsafe && !ok; i++)
            ok = d->safe[i] == plan;
        if (ok) {
            snprintf(stats->info, sizeof stats->info, "%s; second decision of the turn", why);
            return plan;
        }
        mcts_bot_begin(&d->mb, b, st, &plan); /* the plan is spent: prepare a search */
    }
    if (verdict == D2_FILTER) {
        mcts_tree_clear(&d->mb.tree); /* a reused root would hold the avoided moves */
        d->mb.ctx.root_moves = d->safe;
        d->mb.ctx.nroot_moves = nsafe;
    }
    mcts_bot_search(&d->mb, b, &clk);
    d->mb.ctx.root_moves = NULL;
    stats->sims = clk.sims;
    int64_t checked = d->nodes;
    m = mcts_bot_end(&d->mb, b, st, stats);
    if (verdict == D2_FILTER && !eng_is_legal(b->game, st, m))
        m = d->safe[0]; /* cannot happen: the root only holds safe moves */
    stats->nodes += checked;
    size_t len = strlen(stats->info);
    snprintf(stats->info + len, sizeof stats->info - len, "; %s", why);
    return m;
}

static void d2_observe(bot *b, const void *st, eng_move m)
{
    d2_impl *d = b->impl;
    mcts_bot_observe(&d->mb, b, st, m);
}

static void d2_reset(bot *b)
{
    d2_impl *d = b->impl;
    mcts_bot_reset(&d->mb);
}

static void d2_close(bot *b)
{
    d2_impl *d = b->impl;
    if (!d)
        return;
    mcts_bot_free(&d->mb);
    free(d->states);
    free(d->moves);
    free(d->prob);
    free(d->safe);
    free(d);
    b->impl = NULL;
}

static const bot_param d2_params[] = {
    MCTS_OPT_UCT(0),
    MCTS_OPT_K(1.41421356, "K of the galvan formula"),
    MCTS_OPT_CP,
    MCTS_PLAYOUT_OPTS,
    MCTS_OPT_FINAL,
    MCTS_OPT_REUSE,
    MCTS_OPT_JOINT,
    {"d2_nodes", BOT_INT, 2000000, 0, 1e9, NULL, NULL,
     "positions the depth-2 check may visit before it gives up (0: no check, plain MCTS)"},
    MCTS_OPT_THREADS,
};

const bot_type bot_mcts_d2_type = {
    .name = "mcts-d2",
    .summary = "MCTS after a depth-2 check: play a winning move, avoid moves the opponent answers "
               "with a win (COMP 424 report)",
    .params = d2_params,
    .nparams = (int)(sizeof d2_params / sizeof d2_params[0]),
    .init = d2_init,
    .choose = d2_choose,
    .observe = d2_observe,
    .reset = d2_reset,
    .close = d2_close,
};
