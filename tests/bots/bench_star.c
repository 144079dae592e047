/*
 * bench_star.c — time per decision of the *-minimax bots in real
 * Carcassonne positions (a program, not a test: it prints and never fails).
 *
 *   bench_star [--seeds N] [--depth D] [--players P] [--random] [--json]
 *   bench_star --games N [--bot SPEC] [--players P]
 *
 * For each seed it plays a game (2 players by default) with mostly greedy
 * moves (see position()) and stops at the placement decision of turns 1 (opening), 24 (middle) and
 * 60 (end); there star1, star2 and star2.5 each choose once at the given depth (default 2, no
 * budget: the full search). It prints the milliseconds, the leaves evaluated, the moves rated for
 * ordering and the value per decision, and the mean per phase. With --games it plays N whole games
 * between copies of one bot and prints the time per placement decision by thirds of the game.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bots/bot.h"
#include "engine/carcassonne/carcassonne.h"

/* CPU milliseconds of this process: steadier than wall time on a busy machine. */
static double cpu_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static const char *const specs[] = {"star1", "star2", "star2.5"};
#define NSPECS 3

/* Play from the start to the placement of turn `turn` (1-based): greedy
 * moves by the game's cheap rating with 10% uniformly random ones (realistic
 * boards: a uniformly random player scatters its meeples and sprawls), or
 * uniformly random moves when `random` is set. */
static int position(carc_state *st, int players, int turn, uint64_t seed, bool random)
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
        eng_move m;
        if (p == ENG_CHANCE)
            m = eng_sample_chance(g, st, &rng);
        else if (random || eng_rng_below(&rng, 10) == 0)
            m = eng_random_move(g, st, &rng);
        else
            m = eng_greedy_move(g, st, &rng);
        g->apply(st, m);
    }
}

/* Memory the bot's search uses, from one cheap decision's stats. */
static size_t bot_memory(bot *b)
{
    carc_state *st = malloc(sizeof *st);
    eng_rules r;
    eng_rules_default(&carc_game, &r);
    carc_game.init(st, &r);
    carc_game.apply(st, 0); /* draw an A */
    bot_stats stats;
    bot_budget bud = {.sims = 1};
    bot_choose(b, st, &bud, &stats);
    free(st);
    return stats.mem_bytes;
}

/* Whole games between two copies of `spec`: milliseconds per placement
 * decision (the meeple decision that follows is cheap) by thirds of the game. */
static void play_games(const char *spec, int games, int players)
{
    const eng_game *g = &carc_game;
    carc_state *st = malloc(sizeof *st);
    bot *b[ENG_MAX_PLAYERS];
    char err[256];
    for (int p = 0; p < players; p++)
        b[p] = bot_create(spec, g, 1, err, sizeof err);
    double sum[3] = {0}, max[3] = {0};
    int cnt[3] = {0}, maxplace[3] = {0};
    for (int gi = 0; gi < games; gi++) {
        eng_rules r;
        eng_rules_default(g, &r);
        r.players = players;
        g->init(st, &r);
        eng_rng rng;
        eng_rng_seed(&rng, 77 + (uint64_t)gi);
        for (;;) {
            int p = g->current_player(st);
            if (p == ENG_TERMINAL)
                break;
            if (p == ENG_CHANCE) {
                g->apply(st, eng_sample_chance(g, st, &rng));
                continue;
            }
            bot_stats stats;
            int third = st->turns * 3 / (CARC_NTILES - 1);
            third = third > 2 ? 2 : third;
            int place = st->phase == CARC_PLACE ? carc_count_placements(st, st->drawn) : 0;
            double c0 = cpu_ms();
            eng_move m = bot_choose(b[p], st, NULL, &stats);
            double cpu = cpu_ms() - c0;
            if (place) {
                sum[third] += cpu;
                max[third] = cpu > max[third] ? cpu : max[third];
                maxplace[third] = place > maxplace[third] ? place : maxplace[third];
                cnt[third]++;
            }
            g->apply(st, m);
        }
        double sc[ENG_MAX_PLAYERS];
        g->scores(st, sc);
        printf("game %d (%s x%d): scores", gi, spec, players);
        for (int p = 0; p < players; p++)
            printf(" %g", sc[p]);
        printf("\n");
        fflush(stdout);
    }
    const char *name[] = {"turns 1-23", "turns 24-47", "turns 48-71"};
    for (int t = 0; t < 3; t++)
        if (cnt[t])
            printf("%-12s %-24s %4d placement decisions: mean %7.1f, max %7.1f cpu ms, "
                   "most placements %d\n",
                   name[t], spec, cnt[t], sum[t] / cnt[t], max[t], maxplace[t]);
    for (int p = 0; p < players; p++)
        bot_destroy(b[p]);
    free(st);
}

int main(int argc, char **argv)
{
    int seeds = 3, depth = 2, players = 2;
    bool json = false, random = false;
    int games = 0;
    const char *game_spec = "star2";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seeds") && i + 1 < argc)
            seeds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--depth") && i + 1 < argc)
            depth = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--players") && i + 1 < argc)
            players = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--json"))
            json = true;
        else if (!strcmp(argv[i], "--random"))
            random = true;
        else if (!strcmp(argv[i], "--games") && i + 1 < argc)
            games = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--bot") && i + 1 < argc)
            game_spec = argv[++i];
        else {
            fprintf(stderr,
                    "usage: bench_star [--seeds N] [--depth D] [--players P] [--random] [--json]\n"
                    "       bench_star --games N [--bot SPEC] [--players P]\n");
            return 2;
        }
    }
    if (games > 0) {
        play_games(game_spec, games, players);
        return 0;
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
    if (!json)
        printf("search memory per bot: %.1f MiB (one state and the move buffers per ply)\n",
               (double)bot_memory(bots[0]) / (1024.0 * 1024.0));
    if (json)
        printf("[\n");
    bool first = true;
    for (int ph = 0; ph < 3; ph++) {
        double sum_ms[NSPECS] = {0}, sum_cpu[NSPECS] = {0}, sum_leaves[NSPECS] = {0};
        int count = 0;
        for (int sd = 0; sd < seeds; sd++) {
            if (position(st, players, turns[ph], 1000 + (uint64_t)sd, random) != 0)
                continue;
            eng_move mv[CARC_MAX_MOVES];
            int nplace = carc_game.legal_moves(st, mv);
            count++;
            for (int s = 0; s < NSPECS; s++) {
                bot_stats stats;
                double c0 = cpu_ms();
                bot_choose(bots[s], st, NULL, &stats);
                double cpu = cpu_ms() - c0;
                sum_ms[s] += stats.ms;
                sum_cpu[s] += cpu;
                sum_leaves[s] += (double)stats.nodes;
                if (json)
                    printf("%s  {\"phase\":\"%s\",\"seed\":%d,\"bot\":\"%s\",\"depth\":%d,"
                           "\"placements\":%d,\"ms\":%.1f,\"cpu_ms\":%.1f,\"leaves\":%lld,"
                           "\"value\":%g}",
                           first ? "" : ",\n", phase[ph], 1000 + sd, specs[s], depth, nplace,
                           stats.ms, cpu, (long long)stats.nodes, stats.value);
                else
                    printf("%-8s seed %d tile %c placements %3d bag %2d  %-8s %8.1f ms (cpu %8.1f)"
                           "  %s\n",
                           phase[ph], 1000 + sd, carc_types()[st->drawn].letter, nplace, st->bag_n,
                           specs[s], stats.ms, cpu, stats.info);
                first = false;
                fflush(stdout);
            }
        }
        if (!json && count)
            for (int s = 0; s < NSPECS; s++)
                printf("%-8s mean over %d positions: %-8s %8.1f ms (cpu %8.1f) %10.0f leaves\n",
                       phase[ph], count, specs[s], sum_ms[s] / count, sum_cpu[s] / count,
                       sum_leaves[s] / count);
    }
    if (json)
        printf("\n]\n");
    for (int s = 0; s < NSPECS; s++)
        bot_destroy(bots[s]);
    free(st);
    return 0;
}
