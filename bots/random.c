/*
 * random.c — the uniform random policy as a bot: every legal move equally
 * likely (in Carcassonne: distinct placements, then {none} plus each
 * distinct unoccupied feature). The baseline every other bot must beat.
 */
#include "bot.h"

static eng_move random_choose(bot *b, const void *st, const bot_budget *budget, bot_stats *stats)
{
    (void)budget;
    stats->nodes = 1;
    return eng_random_move(b->game, st, &b->rng);
}

const bot_type bot_random_type = {
    .name = "random",
    .summary = "uniformly random legal moves (the baseline)",
    .params = NULL,
    .nparams = 0,
    .choose = random_choose,
};
