/*
 * bench_star.c — time per decision of the *-minimax bots in real
 * Carcassonne positions (a program, not a test: it prints and never fails).
 *
 *   bench_star [--seeds N] [--depth D] [--players P] [--json]
 *
 * For each seed it plays a 2-player game with uniformly random moves and
 * stops at the placement decision of turns 1 (opening), 24 (middle) and 60
 * (end); there star1, star2 and star2.5 each choose once at the given depth
 * (default 2, no budget: the full search). It prints the milliseconds, the
 * leaves evaluated, the moves rated for ordering and the value per decision,
 * and the mean per phase.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bots/bot.h"
#include "engine/carcassonne/carcassonne.h"

static const char *const specs[] = {"star1", "star2", "star2.5"};
#define NSPECS 3

/* Random play from the start to the placement of turn `turn` (1-based). */
static int position(carc_state *st, int players, int turn, uint64_t seed)
{
    const eng_game *g = &carc_game;
    eng_rules r;
    eng_rules_default(g, &r);
    r.players = players;
    g->init(st, &r);
    eng_rng rng;
    eng_rng_seed(&rng, seed);
    for (;;) {
        int p = g->current_player(st);
        if (p == ENG_TERMINAL)
            return -1;
        if (st->phase == CARC_PLACE && st->turns - st->discards >= turn)
            return 0;
        g->apply(st, p == ENG_CHANCE ? eng_sample_chance(g, st, &rng)
                                     : eng_random_move(g, st, &rng));
    }
}

int main(int argc, char **argv)
{
    int seeds = 3, depth = 2, players = 2;
    bool json = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seeds") && i + 1 < argc)
            seeds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--depth") && i + 1 < argc)
            depth = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--players") && i + 1 < argc)
            players = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--json"))
            json = true;
        else {
            fprintf(stderr, "usage: bench_star [--seeds N] [--depth D] [--players P] [--json]\n");
            return 2;
        }
    }
    const int turns[] = {1, 24, 60};
    const char *phase[] = {"opening", "middle", "end"};
    carc_state *st = malloc(sizeof *st);
    if (!st)
        return 1;
    bot *bots[NSPECS];
    for (int s = 0; s < NSPECS; s++) {
        char spec[64], err[256];
        snprintf(spec, sizeof spec, "%s:depth=%d", specs[s], depth);
        bots[s] = bot_create(spec, &carc_game, 1, err, sizeof err);
        if (!bots[s]) {
            fprintf(stderr, "%s\n", err);
            return 1;
        }
    }
    if (json)
        printf("[\n");
    bool first = true;
    for (int ph = 0; ph < 3; ph++) {
        double sum_ms[NSPECS] = {0}, sum_leaves[NSPECS] = {0};
        int count = 0;
        for (int sd = 0; sd < seeds; sd++) {
            if (position(st, players, turns[ph], 1000 + (uint64_t)sd) != 0)
                continue;
            eng_move mv[CARC_MAX_MOVES];
            int nplace = carc_game.legal_moves(st, mv);
            count++;
            for (int s = 0; s < NSPECS; s++) {
                bot_stats stats;
                bot_choose(bots[s], st, NULL, &stats);
                sum_ms[s] += stats.ms;
                sum_leaves[s] += (double)stats.nodes;
                if (json)
                    printf("%s  {\"phase\":\"%s\",\"seed\":%d,\"bot\":\"%s\",\"depth\":%d,"
                           "\"placements\":%d,\"ms\":%.1f,\"leaves\":%lld,\"value\":%g}",
                           first ? "" : ",\n", phase[ph], 1000 + sd, specs[s], depth, nplace,
                           stats.ms, (long long)stats.nodes, stats.value);
                else
                    printf("%-8s seed %d tile %c placements %3d bag %2d  %-8s %9.1f ms  %s\n",
                           phase[ph], 1000 + sd, carc_types()[st->drawn].letter, nplace,
                           st->bag_n, specs[s], stats.ms, stats.info);
                first = false;
                fflush(stdout);
            }
        }
        if (!json && count)
            for (int s = 0; s < NSPECS; s++)
                printf("%-8s mean over %d positions: %-8s %9.1f ms  %12.0f leaves\n", phase[ph],
                       count, specs[s], sum_ms[s] / count, sum_leaves[s] / count);
    }
    if (json)
        printf("\n]\n");
    for (int s = 0; s < NSPECS; s++)
        bot_destroy(bots[s]);
    free(st);
    return 0;
}
