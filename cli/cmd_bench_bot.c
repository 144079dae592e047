/*
 * cmd_bench_bot.c — `tessera bench GAME --bot SPEC`: how fast one bot
 * decides, on one thread, over positions from all phases of the game.
 *
 * Positions: position i comes from a random game seeded with stream i of the
 * seed (uniform random policy for every seat, chance sampled as usual); one
 * of that game's decision points is picked uniformly, so openings, middle
 * games and endings are represented as often as they occur. The bot sees
 * the position as if it had played the game: it is reset and observes every
 * move from the start before it decides. Only bot_choose() is timed.
 *
 * Figures: per decision the wall-clock ms and the simulations the bot
 * reports (bot_stats). Medians across positions, and the mean rate
 * total sims / total seconds; the same per phase (first, middle and last
 * third of a game's decision points). With ms= in the spec, the overshoot
 * (time used minus the ms budget) shows how precisely the bot keeps time.
 * A bot that runs no simulations (random, heuristic, star*) reports 0 sims
 * and still gets its ms per decision.
 */
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bots/bot.h"
#include "cli.h"

#define BENCH_MAX_POSITIONS 1000000

enum { PH_OPENING, PH_MIDDLE, PH_END, NPHASE };
static const char *const phase_name[NPHASE] = {"opening", "middle", "end"};

typedef struct sample {
    double ms;    /* wall-clock time of the decision */
    int64_t sims; /* simulations reported */
    int phase;    /* PH_* */
} sample;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of v[0..n) (sorted in place); 0 when n == 0. */
static double median(double *v, size_t n)
{
    if (n == 0)
        return 0.0;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Figures over the samples of one phase (phase < 0: all of them). */
typedef struct figures {
    size_t n;           /* positions */
    double ms_median;   /* median ms per decision */
    double ms_mean;     /* mean ms per decision */
    double ms_max;      /* slowest decision */
    double sims_median; /* median sims per decision */
    double sps_median;  /* median over positions of sims / seconds */
    double sps_mean;    /* total sims / total seconds */
    int64_t sims;       /* total sims */
    double seconds;     /* total seconds */
} figures;

static figures compute(const sample *s, size_t n, int phase, double *scratch)
{
    figures f;
    memset(&f, 0, sizeof f);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (phase < 0 || s[i].phase == phase) {
            scratch[k++] = s[i].ms;
            f.sims += s[i].sims;
            f.seconds += s[i].ms / 1e3;
            if (s[i].ms > f.ms_max)
                f.ms_max = s[i].ms;
        }
    f.n = k;
    if (k == 0)
        return f;
    f.ms_mean = f.seconds * 1e3 / (double)k;
    f.ms_median = median(scratch, k);
    k = 0;
    for (size_t i = 0; i < n; i++)
        if (phase < 0 || s[i].phase == phase)
            scratch[k++] = (double)s[i].sims;
    f.sims_median = median(scratch, k);
    k = 0;
    for (size_t i = 0; i < n; i++)
        if ((phase < 0 || s[i].phase == phase) && s[i].ms > 0)
            scratch[k++] = (double)s[i].sims / (s[i].ms / 1e3);
    f.sps_median = median(scratch, k);
    f.sps_mean = f.seconds > 0 ? (double)f.sims / f.seconds : 0.0;
    return f;
}

static double r6(double x)
{
    return round(x * 1e6) / 1e6;
}

/* Play random game `index` into moves[] and pick one of its decision
 * points uniformly; returns the number of plies leading to it (the
 * position is init + moves[0..ret)), and its phase in *phase. */
static int pick_position(const eng_game *g, const eng_rules *rules, uint64_t seed, int64_t index,
                         void *st, eng_move *moves, int *decision_ply, int *phase)
{
    eng_rng rng;
    eng_rng_seed_stream(&rng, seed, (uint64_t)index);
    g->init(st, rules);
    int n = 0, d = 0;
    for (int p; (p = g->current_player(st)) != ENG_TERMINAL && n < g->max_plies;) {
        eng_move m;
        if (p == ENG_CHANCE) {
            m = eng_sample_chance(g, st, &rng);
        } else {
            decision_ply[d++] = n;
            m = eng_random_move(g, st, &rng);
        }
        g->apply(st, m);
        moves[n++] = m;
    }
    if (d == 0)
        return -1;
    int j = (int)eng_rng_below(&rng, (uint32_t)d);
    *phase = 3 * j / d;
    return decision_ply[j];
}

static json_t *figures_json(const figures *f)
{
    return json_pack("{s:I, s:f, s:f, s:f, s:f, s:f, s:f}", "positions", (json_int_t)f->n,
                     "ms_per_move", r6(f->ms_median), "ms_per_move_mean", r6(f->ms_mean),
                     "ms_per_move_max", r6(f->ms_max), "sims_per_move", r6(f->sims_median),
                     "sims_per_sec", r6(f->sps_mean), "sims_per_sec_median", r6(f->sps_median));
}

int cmd_bench_bot(int argc, char **argv)
{
    static const struct option opts[] = {
        {"bot", required_argument, NULL, 'b'},
        {"positions", required_argument, NULL, 'n'},
        {"players", required_argument, NULL, 'p'},
        {"seed", required_argument, NULL, 's'},
        {"rule", required_argument, NULL, 'r'},
        {"json", no_argument, NULL, 'j'},
        {NULL, 0, NULL, 0},
    };
    const char *cmd = "bench";
    const char *spec = NULL;
    cli_game_opts go = {0};
    long long npos = 100;
    uint64_t seed = 1;
    bool json = false;

    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        switch (c) {
        case 'b': spec = optarg; break;
        case 'n':
            if (cli_int(cmd, "--positions", optarg, 1, BENCH_MAX_POSITIONS, &npos))
                return CLI_USAGE;
            break;
        case 'p': go.players = optarg; break;
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
        default:
            return cli_usage_error(cmd,
                                   "unknown option '%s' (with --bot: --positions, "
                                   "--players, --seed, --rule, --json)",
                                   argv[optind - 1]);
        }
    }
    if (!spec)
        return cli_usage_error(cmd, "--bot needs a bot spec (see `tessera bots`)");
    eng_rules rules;
    const eng_game *g = cli_game_operand(cmd, argc, argv, optind, &go, &rules);
    if (!g)
        return CLI_USAGE;

    char err[256];
    eng_rng seeder;
    eng_rng_seed_stream(&seeder, seed, UINT64_MAX); /* not a position's stream */
    bot *b = bot_create(spec, g, eng_rng_next(&seeder), err, sizeof err);
    if (!b)
        return cli_usage_error(cmd, "%s", err);

    int rc = CLI_OK;
    void *st = malloc(g->state_size);
    void *replay = malloc(g->state_size);
    eng_move *moves = malloc((size_t)g->max_plies * sizeof *moves);
    int *dply = malloc((size_t)g->max_plies * sizeof *dply);
    sample *smp = calloc((size_t)npos, sizeof *smp);
    double *scratch = malloc((size_t)npos * sizeof *scratch);
    double *over = malloc((size_t)npos * sizeof *over);
    json_t *o = NULL;
    if (!st || !replay || !moves || !dply || !smp || !scratch || !over) {
        fprintf(stderr, "tessera bench: out of memory\n");
        rc = CLI_FAIL;
        goto out;
    }

    size_t nover = 0;
    for (long long i = 0; i < npos; i++) {
        int phase = 0;
        int plies = pick_position(g, &rules, seed, i, st, moves, dply, &phase);
        if (plies < 0) {
            fprintf(stderr, "tessera bench: random game %lld has no decision\n", i);
            rc = CLI_FAIL;
            goto out;
        }
        bot_reset(b);
        g->init(replay, &rules);
        for (int k = 0; k < plies; k++) {
            bot_observe(b, replay, moves[k]);
            g->apply(replay, moves[k]);
        }
        bot_stats stats;
        eng_move m = bot_choose(b, replay, NULL, &stats);
        if (!eng_is_legal(g, replay, m)) {
            fprintf(stderr, "tessera bench: %s chose the illegal move %d at position %lld\n", spec,
                    (int)m, i);
            rc = CLI_FAIL;
            goto out;
        }
        smp[i].ms = stats.ms;
        smp[i].sims = stats.sims;
        smp[i].phase = phase;
        if (b->ms > 0)
            over[nover++] = stats.ms - (double)b->ms;
    }

    figures all = compute(smp, (size_t)npos, -1, scratch);
    figures ph[NPHASE];
    for (int p = 0; p < NPHASE; p++)
        ph[p] = compute(smp, (size_t)npos, p, scratch);
    double over_median = median(over, nover), over_max = nover ? over[nover - 1] : 0.0;
    /* the tail (over[] is sorted): the nearest-rank 90th and 99th percentiles */
    double over_p90 = nover ? over[(size_t)ceil(0.90 * (double)nover) - 1] : 0.0;
    double over_p99 = nover ? over[(size_t)ceil(0.99 * (double)nover) - 1] : 0.0;

    char full[BOT_SPEC_MAX * 2];
    bot_describe(b, full, sizeof full);
    printf("%s, %d players, bot %s (%s), %lld positions from seeded random games, seed %llu, "
           "1 thread\n",
           g->title, (int)rules.players, spec, full, npos, (unsigned long long)seed);
    printf("ms per decision:    median %.4f, mean %.4f, max %.4f\n", all.ms_median, all.ms_mean,
           all.ms_max);
    printf("sims per decision:  median %.0f (total %lld)\n", all.sims_median, (long long)all.sims);
    printf("sims per second:    %.0f (total sims / total time), median over positions %.0f\n",
           all.sps_mean, all.sps_median);
    printf("\n%-8s %9s %14s %14s %12s %12s\n", "phase", "positions", "ms/move(med)", "ms/move(max)",
           "sims/s", "sims/s(med)");
    for (int p = 0; p < NPHASE; p++)
        printf("%-8s %9zu %14.4f %14.4f %12.0f %12.0f\n", phase_name[p], ph[p].n, ph[p].ms_median,
               ph[p].ms_max, ph[p].sps_mean, ph[p].sps_median);
    if (nover)
        printf("\nms budget %lld: overshoot (time used - budget) median %+.4f ms, 90th percentile "
               "%+.4f ms, 99th %+.4f ms, max %+.4f ms\n",
               (long long)b->ms, over_median, over_p90, over_p99, over_max);

    if (json) {
        json_t *phases = json_object();
        for (int p = 0; p < NPHASE; p++)
            json_object_set_new(phases, phase_name[p], figures_json(&ph[p]));
        json_t *overshoot =
            nover ? json_pack("{s:I, s:f, s:f, s:f, s:f}", "budget_ms", (json_int_t)b->ms, "median",
                              r6(over_median), "p90", r6(over_p90), "p99", r6(over_p99), "max",
                              r6(over_max))
                  : json_null();
        o = json_pack("{s:s, s:s, s:s, s:i, s:I, s:f, s:f, s:f, s:f, s:f, s:f, s:I, s:f, s:o, "
                      "s:o}",
                      "game", g->name, "bot", spec, "bot_full", full, "players", (int)rules.players,
                      "positions", (json_int_t)npos, "sims_per_sec", r6(all.sps_mean),
                      "sims_per_sec_median", r6(all.sps_median), "ms_per_move", r6(all.ms_median),
                      "ms_per_move_mean", r6(all.ms_mean), "ms_per_move_max", r6(all.ms_max),
                      "sims_per_move", r6(all.sims_median), "sims_total", (json_int_t)all.sims,
                      "seconds_total", r6(all.seconds), "phases", phases, "budget_overshoot_ms",
                      overshoot);
        char *text =
            o ? json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII | JSON_REAL_PRECISION(12)) : NULL;
        if (!text) {
            fprintf(stderr, "tessera bench: cannot format the JSON result\n");
            rc = CLI_FAIL;
            goto out;
        }
        printf("%s\n", text);
        free(text);
    }
out:
    json_decref(o);
    bot_destroy(b);
    free(st);
    free(replay);
    free(moves);
    free(dply);
    free(smp);
    free(scratch);
    free(over);
    return rc;
}
