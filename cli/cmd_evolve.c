/*
 * cmd_evolve.c — `tessera evolve GAME [options]`: the offline evolution of
 * an EvoMCTS evaluation (docs/evomcts.md). The evolution itself is
 * bots/evolve.c; this file parses arguments, resumes from or writes the
 * checkpoint after every generation, prints one progress line per
 * generation (and a bar of the generation's games on a terminal), stops
 * cleanly on SIGINT/SIGTERM and writes the best individuals as readable
 * expressions that `evomcts:eval=FILE` loads.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bots/evolve.h"
#include "cli.h"

const char cmd_evolve_usage[] =
    "usage: tessera evolve GAME [--population N] [--generations G] [--games-per-eval K]\n"
    "                      [--threads T] [--seed S] [--checkpoint FILE] [--out FILE]\n"
    "                      [--sims N] [--pbf N] [--max-depth D] [--elite E] [--pxo P]\n"
    "                      [--pm P] [--plm P] [--tournament N] [--players OPTS]\n"
    "                      [--rule K=V]... [--top K] [--quiet]\n"
    "\n"
    "Evolves a board evaluation for EvoMCTS players of GAME (two players) by strongly\n"
    "typed genetic programming, as in the EvoMCTS paper (docs/evomcts.md): coevolution\n"
    "(each individual plays K games in each seat against others of the population,\n"
    "1 point a win, 0.5 a draw), elitism, tournament selection, selective crossover,\n"
    "local and subtree mutation. Prints one line per generation with the best fitness.\n"
    "  --population N     individuals (default 120, the paper's)\n"
    "  --generations G    generations (default 100); a resumed run may be extended\n"
    "  --games-per-eval K CoPlayNum: games per individual in each seat (default 25)\n"
    "  --threads T        worker threads (default: the online CPUs); never changes results\n"
    "  --seed S           seed of the whole run (default 1)\n"
    "  --checkpoint FILE  written after every generation; if FILE exists the run resumes\n"
    "                     from it (its parameters are used; given ones must agree)\n"
    "  --out FILE         the best individual, for evomcts:eval=FILE, with the next\n"
    "                     --top K-1 as comments (default: printed to stdout)\n"
    "  --sims N           playouts per move of the evolving players (default 100)\n"
    "  --pbf N            playoutBranchingFactor (default 4)\n"
    "  --max-depth D      deepest tree (default 15)\n"
    "  --elite E          fittest kept unchanged each generation (default 2)\n"
    "  --pxo P, --pm P, --plm P  crossover, mutation and local-mutation probabilities\n"
    "                     (default 0.8, 0.2, 0.5)\n"
    "  --tournament N     tournament size of selection, one winner (default 2)\n"
    "  --players OPTS     more evomcts options for the players, e.g. cp=1,reward=scorediff\n"
    "  --rule K=V         a rule option of GAME, repeatable (see `tessera games`)\n"
    "  --top K            individuals written to --out (default 5)\n"
    "  --quiet            no progress lines\n"
    "SIGINT or SIGTERM stops after the current game; the checkpoint keeps every finished\n"
    "generation, and the same command resumes. The paper's run (120 x 100 x 25 games of\n"
    "100-playout players) takes days; see docs/evomcts.md for smaller settings.\n";

static atomic_bool stop_flag;

static void on_signal(int sig)
{
    (void)sig;
    atomic_store(&stop_flag, true);
}

typedef struct bar {
    bool on;
    double t0, last;
} bar;

static void draw_bar(void *ud, int done, int total)
{
    bar *b = ud;
    double now = cli_now();
    if (done < total && now - b->last < 0.2)
        return;
    b->last = now;
    fprintf(stderr, "\r  %d/%d games, %.0f s\033[K", done, total, now - b->t0);
    fflush(stderr);
}

static void clear_bar(bar *b)
{
    if (b->on) {
        fprintf(stderr, "\r\033[K");
        fflush(stderr);
    }
}

/* Write the top individuals; returns 0 or -1 (message printed). */
static int write_out(const evo_run *r, const char *path, int top)
{
    FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
    if (!f) {
        fprintf(stderr, "tessera evolve: cannot write '%s': %s\n", path, strerror(errno));
        return -1;
    }
    const evo_params *p = evo_get_params(r);
    const eng_rules *rules = evo_rules(r);
    const eng_game *g = evo_game(r);
    static char text[TGP_TEXT_MAX + 1];
    double fit;
    fprintf(f, "# EvoMCTS evaluation for %s, evolved by `tessera evolve` (docs/evomcts.md)\n",
            g->name);
    fprintf(f, "# rules: players=%d", (int)rules->players);
    for (int i = 0; i < g->n_options; i++)
        fprintf(f, " %s=%d", g->options[i].name, (int)rules->opt[i]);
    fprintf(f,
            "\n# run: population %d, generation %d of %d, %d games per seat, seed %llu, "
            "%d sims, pbf %d%s%s\n",
            p->population, evo_generation(r), p->generations, p->coplay,
            (unsigned long long)p->seed, p->sims, p->pbf, p->extra[0] ? ", players " : "",
            p->extra);
    for (int k = 0; k < top && k < p->population; k++) {
        const tgp_expr *e = evo_ranked(r, k, &fit);
        tgp_print(e, evo_set(r), text, sizeof text);
        if (k == 0)
            fprintf(f, "# the fittest: %g points of %d games\n%s\n", fit, 2 * p->coplay, text);
        else
            fprintf(f, "# rank %d: %g points: %s\n", k + 1, fit, text);
    }
    if (f != stdout && fclose(f) != 0) {
        fprintf(stderr, "tessera evolve: cannot write '%s': %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

int cmd_evolve(int argc, char **argv)
{
    const char *cmd = "evolve";
    enum {
        O_POP = 1000,
        O_GENS,
        O_K,
        O_THREADS,
        O_SEED,
        O_CKPT,
        O_OUT,
        O_SIMS,
        O_PBF,
        O_DEPTH,
        O_ELITE,
        O_PXO,
        O_PM,
        O_PLM,
        O_TOUR,
        O_PLAYERS,
        O_RULE,
        O_TOP,
        O_QUIET,
    };
    static const struct option longopts[] = {
        {"population", required_argument, NULL, O_POP},
        {"generations", required_argument, NULL, O_GENS},
        {"games-per-eval", required_argument, NULL, O_K},
        {"threads", required_argument, NULL, O_THREADS},
        {"seed", required_argument, NULL, O_SEED},
        {"checkpoint", required_argument, NULL, O_CKPT},
        {"out", required_argument, NULL, O_OUT},
        {"sims", required_argument, NULL, O_SIMS},
        {"pbf", required_argument, NULL, O_PBF},
        {"max-depth", required_argument, NULL, O_DEPTH},
        {"elite", required_argument, NULL, O_ELITE},
        {"pxo", required_argument, NULL, O_PXO},
        {"pm", required_argument, NULL, O_PM},
        {"plm", required_argument, NULL, O_PLM},
        {"tournament", required_argument, NULL, O_TOUR},
        {"players", required_argument, NULL, O_PLAYERS},
        {"rule", required_argument, NULL, O_RULE},
        {"top", required_argument, NULL, O_TOP},
        {"quiet", no_argument, NULL, O_QUIET},
        {NULL, 0, NULL, 0},
    };
    evo_params p;
    evo_params_default(&p);
    bool given[O_QUIET + 1 - O_POP] = {false};
    long long v, threads = sysconf(_SC_NPROCESSORS_ONLN), top = 5;
    if (threads < 1)
        threads = 1;
    const char *ckpt = NULL, *out = NULL;
    cli_game_opts go = {0}; /* its --players is evomcts options, not a count */
    bool quiet = false;
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
        if (c >= O_POP && c <= O_QUIET)
            given[c - O_POP] = true;
        char *end;
        double d;
        switch (c) {
        case O_POP:
            if (cli_int(cmd, "--population", optarg, 2, 100000, &v))
                return CLI_USAGE;
            p.population = (int)v;
            break;
        case O_GENS:
            if (cli_int(cmd, "--generations", optarg, 1, 1000000, &v))
                return CLI_USAGE;
            p.generations = (int)v;
            break;
        case O_K:
            if (cli_int(cmd, "--games-per-eval", optarg, 1, 10000, &v))
                return CLI_USAGE;
            p.coplay = (int)v;
            break;
        case O_THREADS:
            if (cli_int(cmd, "--threads", optarg, 1, 256, &threads))
                return CLI_USAGE;
            break;
        case O_SEED:
            if (cli_seed(cmd, optarg, &p.seed))
                return CLI_USAGE;
            break;
        case O_CKPT: ckpt = optarg; break;
        case O_OUT: out = optarg; break;
        case O_SIMS:
            if (cli_int(cmd, "--sims", optarg, 1, 1000000, &v))
                return CLI_USAGE;
            p.sims = (int)v;
            break;
        case O_PBF:
            if (cli_int(cmd, "--pbf", optarg, 1, 64, &v))
                return CLI_USAGE;
            p.pbf = (int)v;
            break;
        case O_DEPTH:
            if (cli_int(cmd, "--max-depth", optarg, 1, TGP_DEPTH_LIMIT, &v))
                return CLI_USAGE;
            p.max_depth = (int)v;
            if (p.init_max > p.max_depth)
                p.init_max = p.max_depth;
            if (p.init_min > p.init_max)
                p.init_min = p.init_max;
            break;
        case O_ELITE:
            if (cli_int(cmd, "--elite", optarg, 0, 99999, &v))
                return CLI_USAGE;
            p.elite = (int)v;
            break;
        case O_PXO:
        case O_PM:
        case O_PLM:
            errno = 0;
            d = strtod(optarg, &end);
            if (end == optarg || *end || errno || !(d >= 0 && d <= 1))
                return cli_usage_error(cmd, "%s needs a probability from 0 to 1, got '%s'",
                                       c == O_PXO  ? "--pxo"
                                       : c == O_PM ? "--pm"
                                                   : "--plm",
                                       optarg);
            *(c == O_PXO ? &p.pxo : c == O_PM ? &p.pm : &p.plm) = d;
            break;
        case O_TOUR:
            if (cli_int(cmd, "--tournament", optarg, 1, 100000, &v))
                return CLI_USAGE;
            p.tour_size = (int)v;
            break;
        case O_PLAYERS:
            if (strlen(optarg) >= sizeof p.extra)
                return cli_usage_error(cmd, "--players is longer than %d characters",
                                       (int)sizeof p.extra - 1);
            snprintf(p.extra, sizeof p.extra, "%s", optarg);
            break;
        case O_RULE:
            if (cli_game_opts_rule(cmd, &go, optarg))
                return CLI_USAGE;
            break;
        case O_TOP:
            if (cli_int(cmd, "--top", optarg, 1, 1000, &top))
                return CLI_USAGE;
            break;
        case O_QUIET: quiet = true; break;
        case ':': return cli_usage_error(cmd, "%s needs a value", argv[optind - 1]);
        default: return cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
        }
    }
    eng_rules rules;
    const eng_game *g = cli_game_operand(cmd, argc, argv, optind, &go, &rules);
    if (!g)
        return CLI_USAGE;

    char err[512];
    evo_run *r = NULL;
    struct stat sb;
    if (ckpt && stat(ckpt, &sb) == 0) {
        r = evo_load(ckpt, err, sizeof err);
        if (!r) {
            fprintf(stderr, "tessera evolve: %s\n", err);
            return CLI_USAGE;
        }
        /* the checkpoint's parameters rule; what was given must agree */
        const evo_params *q = evo_get_params(r);
        struct {
            int opt;
            const char *name;
            double want, have;
        } checks[] = {
            {O_POP, "--population", p.population, q->population},
            {O_K, "--games-per-eval", p.coplay, q->coplay},
            {O_SEED, "--seed", (double)p.seed, (double)q->seed},
            {O_SIMS, "--sims", p.sims, q->sims},
            {O_PBF, "--pbf", p.pbf, q->pbf},
            {O_DEPTH, "--max-depth", p.max_depth, q->max_depth},
            {O_ELITE, "--elite", p.elite, q->elite},
            {O_PXO, "--pxo", p.pxo, q->pxo},
            {O_PM, "--pm", p.pm, q->pm},
            {O_PLM, "--plm", p.plm, q->plm},
            {O_TOUR, "--tournament", p.tour_size, q->tour_size},
        };
        for (size_t i = 0; i < sizeof checks / sizeof checks[0]; i++)
            if (given[checks[i].opt - O_POP] && checks[i].want != checks[i].have) {
                evo_destroy(r);
                return cli_usage_error(cmd, "%s %g differs from the checkpoint's %g ('%s')",
                                       checks[i].name, checks[i].want, checks[i].have, ckpt);
            }
        if (evo_game(r) != g || memcmp(evo_rules(r), &rules, sizeof rules) != 0 ||
            (given[O_PLAYERS - O_POP] && strcmp(p.extra, q->extra) != 0)) {
            evo_destroy(r);
            return cli_usage_error(cmd,
                                   "the game, its rules or --players differ from the "
                                   "checkpoint '%s'",
                                   ckpt);
        }
        if (given[O_GENS - O_POP]) {
            if (p.generations < evo_generation(r)) {
                int have = evo_generation(r);
                evo_destroy(r);
                return cli_usage_error(cmd, "the checkpoint already holds %d generations", have);
            }
            evo_set_generations(r, p.generations);
        }
        if (!quiet)
            printf("resuming from %s at generation %d of %d\n", ckpt, evo_generation(r),
                   evo_get_params(r)->generations);
    } else {
        r = evo_create(g, &rules, &p, err, sizeof err);
        if (!r) {
            fprintf(stderr, "tessera evolve: %s\n", err);
            return CLI_USAGE;
        }
    }

    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    atomic_store(&stop_flag, false);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);

    const evo_params *q = evo_get_params(r);
    int rc = CLI_OK;
    static char text[TGP_TEXT_MAX + 1];
    bar b = {.on = !quiet && isatty(STDERR_FILENO)};
    while (evo_generation(r) < q->generations) {
        evo_report rep;
        b.t0 = cli_now();
        b.last = 0;
        int src = evo_step(r, (int)threads, &stop_flag, b.on ? draw_bar : NULL, &b, &rep, err,
                           sizeof err);
        clear_bar(&b);
        if (src == ENG_ESHUTTING_DOWN) {
            fprintf(stderr, "tessera evolve: stopped; %s\n",
                    ckpt ? "the checkpoint keeps every finished generation: run the same "
                           "command to resume"
                         : "no --checkpoint, nothing kept");
            rc = CLI_FAIL;
            break;
        }
        if (src) {
            fprintf(stderr, "tessera evolve: %s\n", err);
            rc = CLI_FAIL;
            break;
        }
        if (ckpt && evo_save(r, ckpt, err, sizeof err) != 0) {
            fprintf(stderr, "tessera evolve: %s\n", err);
            rc = CLI_FAIL;
            break;
        }
        if (!quiet) {
            tgp_print(evo_ranked(r, 0, NULL), evo_set(r), text, sizeof text);
            int shown = (int)strlen(text);
            printf("generation %d/%d: best %g of %d (%.0f%%), %d games, %.1f s, mean size %.1f "
                   "nodes; best (%d nodes): %.*s%s\n",
                   rep.generation, rep.generations, rep.best, rep.games_each,
                   100.0 * rep.best / rep.games_each, rep.games, rep.seconds, rep.mean_nodes,
                   evo_ranked(r, 0, NULL)->n, shown > 160 ? 160 : shown, text,
                   shown > 160 ? "..." : "");
            fflush(stdout);
        }
    }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (rc == CLI_OK && evo_generation(r) > 0 && write_out(r, out ? out : "-", (int)top) != 0)
        rc = CLI_FAIL;
    else if (rc == CLI_OK && out && !quiet)
        printf("the best individual is in %s (evomcts:eval=%s)\n", out, out);
    evo_destroy(r);
    return rc;
}
