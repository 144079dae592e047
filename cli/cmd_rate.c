/*
 * cmd_rate.c — `tessera rate`: a bot's or a program's rating on a game's
 * reference ladder (kit/ladder.json, docs/rate.md), in as few games as the
 * precision asked for needs.
 *
 * The ladder's bots have ratings measured once by a round-robin among them;
 * here they are fixed. The player plays pairs of games (the same tiles,
 * seats swapped: one gauntlet group of the tournament engine, played by its
 * runner through players/) against the rungs nearest its current estimate,
 * and after each batch the estimate and its 95% interval are fitted again
 * (tournament/rate.h); the run stops when the interval's half-width is at
 * most --target. A turn that fails (time limit, crash, illegal move, bad
 * output) loses the game, as in a tournament.
 *
 * The ladder is built into the program (the CMake step of cli/ embeds
 * kit/ladder.json); --ladder FILE reads another of the same form.
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tournament/rate.h"
#include "tournament/runner.h"

static const char *const cmd = "rate";
extern const char cmd_rate_ladder[]; /* kit/ladder.json, embedded by cli/CMakeLists.txt */

const char cmd_rate_usage[] =
    "usage: tessera rate [OPTIONS] [--stateless] -- PROGRAM [ARGS...]\n"
    "       tessera rate [OPTIONS] --bot SPEC\n"
    "\n"
    "Rates a bot on the game's reference ladder (docs/rate.md): random, heuristic,\n"
    "flat Monte Carlo and MCTS at several budgets, whose ratings were measured once\n"
    "by a round-robin among them (random = 0). It plays pairs of games (the same\n"
    "tiles, seats swapped) against the rungs nearest its current estimate and stops\n"
    "when the rating's 95% interval is at most +-TARGET: about 200 games for +-50.\n"
    "PROGRAM runs in the sandbox as in a tournament (docs/stdio.md); --bot takes any\n"
    "player spec (mcts:sims=400, \"cmd:python3 bot.py\"). A turn that fails (time\n"
    "limit, crash, illegal move, bad output) loses that game.\n"
    "  --game G         the game (default carcassonne; the ladder has every game)\n"
    "  --move-ms MS     time per turn for the player (default 1000; the ladder's bots\n"
    "                   play by simulation budgets, whatever the clock)\n"
    "  --target E       stop at +-E Elo (95%%; default 50)\n"
    "  --min-games N    play at least N games (default 20)\n"
    "  --max-games N    and at most N (default 1000)\n"
    "  --concurrency N  games at once, each against another of the nearest rungs\n"
    "                   (default 1)\n"
    "  --seed S         seed of the tiles and of the ladder's bots (default 1)\n"
    "  --ladder FILE    another ladder of the same form as kit/ladder.json\n"
    "  --json           print the result as one JSON object (last line)\n"
    "  --quiet          no line per game pair on stderr\n"
    "  --bundles DIR    where a fault of the program is kept as a bundle that `tessera\n"
    "                   doctor --replay FILE` plays again (default tessera-faults;\n"
    "                   docs/bundles.md); --no-bundles: none\n"
    "Prints the rating, its interval, the games and the time it took.\n"
    "Exit status: 0 rated (the target reached, or --max-games played); 1 stopped\n"
    "(SIGINT) or a failure; 2 bad arguments.\n";

static atomic_bool stop_flag;

static void on_signal(int sig)
{
    (void)sig;
    atomic_store(&stop_flag, true);
}

typedef struct rung {
    const char *name, *spec; /* borrowed from the ladder's JSON */
    double elo, ci95;
} rung;

/* The results of one batch, gathered by on_end. */
typedef struct batch {
    tour_rate_tally *tally; /* per rung */
    const int *rung_of;     /* participant index -> rung (participant 0: the player) */
    const char **names;     /* participant index -> name */
    int games, faults;
    double points;
    bool quiet;
    const char *bundles; /* where faults' bundles go, or NULL */
    int64_t base;        /* games played in the batches before this one */
} batch;

static void on_end(const tour_run_game *info, void *user)
{
    batch *b = user;
    const tour_game *g = info->game;
    int me = g->table[0] == 0 ? 0 : 1, other = 1 - me;
    const tour_result *r = info->result;
    double s = r->rank[me] < r->rank[other] ? 1.0 : r->rank[me] == r->rank[other] ? 0.5 : 0.0;
    if (r->rank[me] == 0 && r->rank[other] == 0) /* ranked by score */
        s = r->score[me] > r->score[other] ? 1.0 : r->score[me] == r->score[other] ? 0.5 : 0.0;
    int k = b->rung_of[g->table[other]];
    b->tally[k].games += 1;
    b->tally[k].score += s;
    b->games++;
    b->points += s;
    if (b->bundles && info->bundle[me])
        cli_keep_bundle("rate", b->bundles, info->bundle[me], (long long)(b->base + g->id), me,
                        NULL, 0);
    if (info->faults[me] > 0 || (r->culprit == me && r->end != TOUR_END_NORMAL)) {
        b->faults++;
        if (!b->quiet)
            fprintf(stderr, "tessera rate: a fault against %s: %s\n",
                    b->names[g->table[other]], r->verdict ? r->verdict : tour_end_name(r->end));
    }
}

/* The rungs of `game` in the ladder (a new reference to the parsed JSON in
 * *root). Returns the number of rungs, or -1 with the reason printed. */
static int load_ladder(const char *path, const char *game, json_t **root, rung *out, int cap,
                       const char **about)
{
    json_error_t je;
    *root = path ? json_load_file(path, JSON_REJECT_DUPLICATES, &je)
                 : json_loads(cmd_rate_ladder, JSON_REJECT_DUPLICATES, &je);
    if (!*root) {
        fprintf(stderr, "tessera rate: %s: %s (line %d)\n", path ? path : "the built-in ladder",
                je.text, je.line);
        return -1;
    }
    json_t *games = json_object_get(*root, "games");
    json_t *entry = json_object_get(games, game);
    json_t *rungs = json_object_get(entry, "rungs");
    if (!json_is_array(rungs) || json_array_size(rungs) < 2) {
        fprintf(stderr, "tessera rate: %s has no ladder for %s\n",
                path ? path : "the built-in ladder", game);
        return -1;
    }
    if (json_array_size(rungs) > (size_t)cap) {
        fprintf(stderr, "tessera rate: the ladder of %s has more than %d rungs\n", game, cap);
        return -1;
    }
    int n = 0;
    size_t i;
    json_t *r;
    json_array_foreach(rungs, i, r)
    {
        json_t *name = json_object_get(r, "name"), *spec = json_object_get(r, "spec"),
               *elo = json_object_get(r, "elo"), *ci = json_object_get(r, "ci95");
        if (!json_is_string(name) || !json_is_string(spec) || !json_is_number(elo)) {
            fprintf(stderr, "tessera rate: rung %zu of %s: needs name, spec and elo\n", i + 1, game);
            return -1;
        }
        out[n++] = (rung){json_string_value(name), json_string_value(spec), json_number_value(elo),
                          json_is_number(ci) ? json_number_value(ci) : 0};
    }
    *about = json_string_value(json_object_get(entry, "date"));
    return n;
}

int cmd_rate(int argc, char **argv)
{
    static const struct option opts[] = {
        {"game", required_argument, NULL, 'g'},      {"move-ms", required_argument, NULL, 'm'},
        {"target", required_argument, NULL, 't'},    {"min-games", required_argument, NULL, 'n'},
        {"max-games", required_argument, NULL, 'x'}, {"concurrency", required_argument, NULL, 'c'},
        {"seed", required_argument, NULL, 's'},      {"ladder", required_argument, NULL, 'L'},
        {"bot", required_argument, NULL, 'b'},       {"stateless", no_argument, NULL, 'l'},
        {"json", no_argument, NULL, 'j'},            {"quiet", no_argument, NULL, 'q'},
        {"bundles", required_argument, NULL, 'B'},   {"no-bundles", no_argument, NULL, 'X'},
        {NULL, 0, NULL, 0},
    };
    const char *game_name = "carcassonne", *ladder_path = NULL, *bot = NULL;
    const char *bundles = CLI_BUNDLES_DIR;
    long long move_ms = 1000, target = 50, min_games = 20, max_games = 1000, conc = 1;
    uint64_t seed = 1;
    bool stateless = false, json_out = false, quiet = false;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        switch (c) {
        case 'g': game_name = optarg; break;
        case 'm':
            if (cli_int(cmd, "--move-ms", optarg, 10, 600000, &move_ms))
                return CLI_USAGE;
            break;
        case 't':
            if (cli_int(cmd, "--target", optarg, 5, 1000, &target))
                return CLI_USAGE;
            break;
        case 'n':
            if (cli_int(cmd, "--min-games", optarg, 2, 100000, &min_games))
                return CLI_USAGE;
            break;
        case 'x':
            if (cli_int(cmd, "--max-games", optarg, 2, 100000, &max_games))
                return CLI_USAGE;
            break;
        case 'c':
            if (cli_int(cmd, "--concurrency", optarg, 1, TOUR_RATE_MAX_RUNGS, &conc))
                return CLI_USAGE;
            break;
        case 's':
            if (cli_seed(cmd, optarg, &seed))
                return CLI_USAGE;
            break;
        case 'L': ladder_path = optarg; break;
        case 'b': bot = optarg; break;
        case 'l': stateless = true; break;
        case 'j': json_out = true; break;
        case 'q': quiet = true; break;
        case 'B': bundles = optarg; break;
        case 'X': bundles = NULL; break;
        case ':': return cli_usage_error(cmd, "%s needs a value", argv[optind - 1]);
        default: return cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (min_games > max_games)
        return cli_usage_error(cmd, "--min-games (%lld) is more than --max-games (%lld)", min_games,
                               max_games);
    /* the player: --bot SPEC, or the program after -- */
    static char spec[PLAYER_SPEC_MAX];
    if (optind < argc) {
        if (bot)
            return cli_usage_error(cmd, "give the program after -- or --bot, not both");
        if (cli_program_spec(cmd, argv + optind, argc - optind, stateless, spec, sizeof spec))
            return CLI_USAGE;
        bot = spec;
    } else if (stateless) {
        return cli_usage_error(cmd, "--stateless needs the program after --");
    }
    if (!bot)
        return cli_usage_error(cmd, "what should be rated? a program after -- (a bot of "
                                    "docs/stdio.md), or --bot SPEC");
    const eng_game *g = cli_game(cmd, game_name);
    if (!g)
        return CLI_USAGE;
    eng_rules rules;
    eng_rules_default(g, &rules);
    rules.players = 2;
    if (g->min_players > 2 || g->max_players < 2)
        return cli_usage_error(cmd, "%s is not a two-seat game", g->name);

    json_t *ladder = NULL;
    rung rungs[TOUR_RATE_MAX_RUNGS];
    const char *measured = NULL;
    int nr = load_ladder(ladder_path, g->name, &ladder, rungs, TOUR_RATE_MAX_RUNGS, &measured);
    if (nr < 0) {
        json_decref(ladder);
        return CLI_USAGE;
    }
    player_config pc;
    player_config_default(&pc);
    char err[512];
    int rc = CLI_USAGE;
    if (tour_run_check_spec(bot, g, &pc, err, sizeof err)) {
        cli_usage_error(cmd, "%s", err);
        goto out;
    }
    for (int i = 0; i < nr; i++)
        if (tour_run_check_spec(rungs[i].spec, g, &pc, err, sizeof err)) {
            fprintf(stderr, "tessera rate: the ladder's %s: %s\n", rungs[i].name, err);
            goto out;
        }
    if (conc > nr)
        conc = nr;

    tour_rate_tally tally[TOUR_RATE_MAX_RUNGS];
    for (int i = 0; i < nr; i++)
        tally[i] = (tour_rate_tally){rungs[i].elo, 0, 0};
    tour_rate_stop stop = {(double)target, (int)min_games, (int)max_games};
    tour_rate_estimate est;
    tour_rate_fit(tally, nr, &est);
    if (!quiet)
        fprintf(stderr, "tessera rate: %s on the %s ladder (%d rungs%s%s), +-%lld Elo at 95%%, "
                        "%lld ms a move\n",
                bot, g->name, nr, measured ? ", measured " : "", measured ? measured : "", target,
                move_ms);

    atomic_store(&stop_flag, false);
    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);

    double t0 = cli_now();
    int faults = 0, batches = 0;
    int64_t played = 0; /* games of the batches so far: names the bundles */
    rc = CLI_OK;
    while (!tour_rate_done(&est, &stop) && !atomic_load(&stop_flag)) {
        int pick[TOUR_RATE_MAX_RUNGS];
        int k = tour_rate_nearest(tally, nr, est.elo, (int)conc, pick);
        tour_participant parts[TOUR_RATE_MAX_RUNGS + 1];
        int rung_of[TOUR_RATE_MAX_RUNGS + 1];
        const char *names[TOUR_RATE_MAX_RUNGS + 1];
        parts[0] = (tour_participant){"player", bot};
        names[0] = "player";
        rung_of[0] = -1;
        for (int i = 0; i < k; i++) {
            parts[i + 1] = (tour_participant){rungs[pick[i]].name, rungs[pick[i]].spec};
            names[i + 1] = rungs[pick[i]].name;
            rung_of[i + 1] = pick[i];
        }
        tour_spec ts;
        tour_spec_init(&ts);
        ts.format = TOUR_GAUNTLET;
        ts.game = g;
        ts.rules = rules;
        ts.participants = parts;
        ts.nparticipants = k + 1;
        ts.games_per_pair = 2;
        /* a fresh stream of tiles and bot seeds for every batch */
        uint64_t x = seed + 0x9e3779b97f4a7c15ULL * (uint64_t)(batches + 1);
        ts.seed = eng_splitmix64(&x);
        tour *t = NULL;
        if (tour_create(&ts, &t, err, sizeof err)) {
            fprintf(stderr, "tessera rate: %s\n", err);
            rc = CLI_FAIL;
            break;
        }
        batch b = {tally, rung_of, names, 0, 0, 0, quiet, bundles, played};
        tour_run_config rcfg;
        tour_run_config_default(&rcfg);
        rcfg.concurrency = k;
        rcfg.move_ms = move_ms;
        rcfg.policy = TOUR_FAULT_FORFEIT;
        rcfg.players = pc;
        rcfg.stop = &stop_flag;
        rcfg.on_end = on_end;
        rcfg.user = &b;
        rcfg.bundles = bundles != NULL;
        rcfg.source = "tessera rate";
        tour_run_stats st;
        int runrc = tour_run(t, &rcfg, &st, err, sizeof err);
        tour_destroy(t);
        if (runrc) {
            fprintf(stderr, "tessera rate: %s\n", err);
            rc = CLI_FAIL;
            break;
        }
        faults += b.faults;
        played += b.games;
        batches++;
        tour_rate_fit(tally, nr, &est);
        if (!quiet && b.games > 0) {
            fprintf(stderr, "  round %3d:", batches);
            for (int i = 0; i < k; i++)
                fprintf(stderr, "%s %s", i ? "," : "", rungs[pick[i]].name);
            fprintf(stderr, " %.1f/%d; rating %.0f +- %.0f after %.0f games\n", b.points, b.games,
                    est.elo, est.half95, est.games);
        }
    }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    double secs = cli_now() - t0;
    bool stopped = atomic_load(&stop_flag);
    if (stopped && rc == CLI_OK)
        rc = CLI_FAIL;

    printf("%s: %.0f +- %.0f (95%%) on the %s reference ladder (random = 0), after %.0f games "
           "in %.0f s%s%s\n",
           bot, est.elo, est.half95, g->name, est.games, secs,
           stopped ? " (stopped early)" : "",
           est.half95 > (double)target ? " (--max-games reached first)" : "");
    for (int i = 0; i < nr; i++)
        if (tally[i].games > 0)
            printf("  %-16s %7.0f  %4.0f games, scored %5.1f%%\n", rungs[i].name, rungs[i].elo,
                   tally[i].games, 100.0 * tally[i].score / tally[i].games);
    if (faults)
        printf("  %d game%s lost by a fault of the player\n", faults, faults == 1 ? "" : "s");
    if (json_out) {
        json_t *against = json_array();
        for (int i = 0; i < nr; i++)
            json_array_append_new(against, json_pack("{s:s, s:s, s:f, s:f, s:f}", "name",
                                                     rungs[i].name, "spec", rungs[i].spec, "elo",
                                                     rungs[i].elo, "games", tally[i].games, "score",
                                                     tally[i].score));
        json_t *o = json_pack("{s:s, s:s, s:f, s:f, s:f, s:f, s:I, s:i, s:b, s:o}", "player", bot,
                              "game", g->name, "elo", est.elo, "ci95", est.half95, "games",
                              est.games, "seconds", secs, "move_ms", (json_int_t)move_ms, "faults",
                              faults, "stopped", stopped, "against", against);
        char *text = json_dumps(o, JSON_COMPACT);
        if (text)
            printf("%s\n", text);
        free(text);
        json_decref(o);
    }
out:
    json_decref(ladder);
    return rc;
}
