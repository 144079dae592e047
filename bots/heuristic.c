/*
 * heuristic.c — the fast one-ply heuristic player ("Simple Player v3" of
 * Müller's thesis §5.1.6, docs/references.md): it plays the best-rated legal move of
 * eng_greedy_move() (ties broken at random), or with probability eps a uniformly random one, which
 * makes it the epsilon-greedy playout policy as well.
 *
 * Any game works: the rating is the game's rate_moves (Carcassonne:
 * engine/carcassonne/heuristic.c, docs/heuristic.md) or, for a game without
 * one, eng_rate_moves()'s generic apply-and-evaluate fallback. It never
 * searches, so budgets are ignored and a decision takes microseconds.
 */
#include "bot.h"

static const bot_param heuristic_params[] = {
    {"eps", BOT_REAL, 0.0, 0.0, 1.0, NULL, NULL,
     "probability of a uniformly random move instead of the best-rated one"},
};

static eng_move heuristic_choose(bot *b, const void *st, const bot_budget *budget, bot_stats *stats)
{
    (void)budget;
    double eps = b->val[0].v;
    stats->nodes = 1;
    if (eps > 0.0 && eng_rng_double(&b->rng) < eps)
        return eng_random_move(b->game, st, &b->rng);
    return eng_greedy_move(b->game, st, &b->rng);
}

const bot_type bot_heuristic_type = {
    .name = "heuristic",
    .summary = "one-ply greedy player over the game's move rating (Simple Player v3); "
               "eps > 0 makes it epsilon-greedy",
    .params = heuristic_params,
    .nparams = (int)(sizeof heuristic_params / sizeof heuristic_params[0]),
    .choose = heuristic_choose,
};
