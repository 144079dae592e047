/*
 * cmd_bench.c — `tessera bench GAME`: engine speed with the uniform random
 * policy on one thread.
 *
 * Each round plays the same N seeded games (so every round does identical
 * work); the median round's games per second is reported with the fastest
 * and slowest, never a single noisy figure. Means are over one round's games.
 * A "discard" is a chance outcome after which no player decides (in
 * Carcassonne: a dead tile, discarded and redrawn by the same player).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int cmd_bench(int argc, char **argv)
{
    /* --bot SPEC selects the bot benchmark (cmd_bench_bot.c) */
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "--bot") == 0 || strncmp(argv[i], "--bot=", 6) == 0)
            return cmd_bench_bot(argc, argv);
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "--positions") == 0 || strncmp(argv[i], "--positions=", 12) == 0)
            return cli_usage_error("bench", "--positions is for bot benchmarks: add --bot SPEC");
    static const struct option opts[] = {
        {"players", required_argument, NULL, 'p'}, {"games", required_argument, NULL, 'n'},
        {"seed", required_argument, NULL, 's'},    {"rule", required_argument, NULL, 'r'},
        {"repeat", required_argument, NULL, 'k'},  {"json", no_argument, NULL, 'j'},
        {NULL, 0, NULL, 0},
    };
    const char *cmd = "bench";
    cli_game_opts go = {0};
    long long games = 20000, repeat = 5;
    uint64_t seed = 1;
    bool json = false;

    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        switch (c) {
        case 'p': go.players = optarg; break;
        case 'n':
            if (cli_int(cmd, "--games", optarg, 1, 100000000, &games))
                return CLI_USAGE;
            break;
        case 'k':
            if (cli_int(cmd, "--repeat", optarg, 1, 1000, &repeat))
                return CLI_USAGE;
            break;
        case 's':
            if (cli_seed(cmd, optarg, &seed))
                return CLI_USAGE;
            break;
        case 'r':
            if (cli_game_opts_rule(cmd, &go, optarg))
                return CLI_USAGE;
            break;
        case 'j': json = true; break;
        case ':': return cli_usage_error(cmd, "%s needs a value", argv[optind - 1]);
        default: return cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
        }
    }
    eng_rules rules;
    const eng_game *g = cli_game_operand(cmd, argc, argv, optind, &go, &rules);
    if (!g)
        return CLI_USAGE;

    void *st = malloc(g->state_size);
    double *rate = calloc((size_t)repeat, sizeof *rate);
    if (!st || !rate) {
        free(st);
        free(rate);
        fprintf(stderr, "tessera bench: out of memory\n");
        return CLI_FAIL;
    }
    double sum[ENG_MAX_PLAYERS] = {0};
    long long discards = 0;
    for (long long round = 0; round < repeat; round++) {
        eng_rng rng;
        eng_rng_seed(&rng, seed);
        double t0 = cli_now();
        for (long long i = 0; i < games; i++) {
            g->init(st, &rules);
            for (int p; (p = g->current_player(st)) != ENG_TERMINAL;) {
                if (p == ENG_CHANCE) {
                    g->apply(st, eng_sample_chance(g, st, &rng));
                    if (round == 0 && g->current_player(st) < 0)
                        discards++; /* no decision followed the draw */
                } else {
                    g->apply(st, eng_random_move(g, st, &rng));
                }
            }
            if (round == 0) {
                double sc[ENG_MAX_PLAYERS];
                g->scores(st, sc);
                for (int p = 0; p < rules.players; p++)
                    sum[p] += sc[p];
            }
        }
        rate[round] = (double)games / (cli_now() - t0);
    }
    qsort(rate, (size_t)repeat, sizeof *rate, cmp_double);
    double median = repeat % 2 ? rate[repeat / 2] : (rate[repeat / 2 - 1] + rate[repeat / 2]) / 2;
    double total = 0;
    for (int p = 0; p < rules.players; p++)
        total += sum[p] / (double)games;

    printf("%s, %d players, %lld games x %lld rounds, seed %llu\n", g->title, (int)rules.players,
           games, repeat, (unsigned long long)seed);
    printf("games per second: median %.0f (min %.0f, max %.0f)\n", median, rate[0],
           rate[repeat - 1]);
    printf("mean score per player:");
    for (int p = 0; p < rules.players; p++)
        printf(" P%d=%.2f", p + 1, sum[p] / (double)games);
    printf("\nmean total score per game: %.2f\n", total);
    printf("discards per game: %.4f\n", (double)discards / (double)games);
    if (json) {
        printf("{\"games\":%lld,\"players\":%d,\"games_per_sec\":%.1f,\"games_per_sec_min\":%.1f,"
               "\"games_per_sec_max\":%.1f,\"rounds\":%lld,\"mean_score\":[",
               games, (int)rules.players, median, rate[0], rate[repeat - 1], repeat);
        for (int p = 0; p < rules.players; p++)
            printf("%s%.4f", p ? "," : "", sum[p] / (double)games);
        printf("],\"mean_total\":%.4f,\"discards_per_game\":%.4f}\n", total,
               (double)discards / (double)games);
    }
    free(st);
    free(rate);
    return CLI_OK;
}
