/*
 * cmd_match.c — `tessera match GAME BOT_A BOT_B [BOT_C...]`: many games
 * between bots, one bot per seat, with seats rotated and tiles shared within
 * each rotation group, on all cores; prints per-bot results, the scoring rate
 * with its 90% Wilson interval, league points and the search effort per
 * decision and per turn (docs/match.md, docs/league.md).
 *
 * The work and the statistics are tournament/match.c (a round-robin of the
 * bots at one table, played by the tournament runner, the code behind
 * `tessera tournament`); this file parses arguments, draws the progress bar
 * (stderr, only on a terminal) and prints the table and the JSON line.
 */
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "tournament/match.h"

/* ---- progress bar ------------------------------------------------------------ */

typedef struct progress {
    double t0;   /* seconds when the match started */
    double last; /* seconds of the last redraw */
    bool drawn;  /* something is on the line and must be cleared */
} progress;

static void progress_draw(int64_t done, int64_t total, void *user)
{
    progress *p = user;
    double now = cli_now();
    if (done < total && now - p->last < 0.1)
        return; /* at most ten redraws a second */
    p->last = now;
    enum { WIDTH = 30 };
    int fill = total ? (int)(WIDTH * done / total) : WIDTH;
    char bar[WIDTH + 1];
    for (int i = 0; i < WIDTH; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[WIDTH] = 0;
    double spent = now - p->t0;
    fprintf(stderr, "\r[%s] %lld/%lld games  %.1f s", bar, (long long)done, (long long)total,
            spent);
    if (done > 0 && done < total)
        fprintf(stderr, "  ~%.0f s left", spent / (double)done * (double)(total - done));
    fprintf(stderr, "\033[K");
    fflush(stderr);
    p->drawn = true;
}

static void progress_clear(progress *p)
{
    if (p->drawn) {
        fprintf(stderr, "\r\033[K");
        fflush(stderr);
    }
}

/* ---- output -------------------------------------------------------------------- */

/* Round for JSON so that 0.49 does not print as 0.48999999999999999. */
static double r6(double x)
{
    return round(x * 1e6) / 1e6;
}

static void print_table(const eng_game *g, const match_config *cfg, const match_result *res)
{
    printf("%s, %d seats, %lld games in %lld rotation groups of %d, seed %llu, %d thread%s, "
           "%.2f s\n",
           g->title, res->seats, (long long)res->games, (long long)res->groups, res->seats,
           (unsigned long long)cfg->seed, res->threads, res->threads == 1 ? "" : "s", res->seconds);
    if (res->games != res->games_requested)
        printf("note: %lld games requested, %lld played (rounded up to a multiple of %d seats so "
               "that every bot sits in every seat equally often)\n",
               (long long)res->games_requested, (long long)res->games, res->seats);
    if (res->faults)
        printf("note: %lld game%s ended by a bot's fault (an illegal move, a crash, a time-out): "
               "forfeited, the faulty bot ranked last\n",
               (long long)res->faults, res->faults == 1 ? "" : "s");
    printf("\n%-3s %6s %6s %6s %8s %8s %7s %12s %4s %8s %3s %3s %10s %10s %10s  %s\n", "bot", "W",
           "L", "D", "score", "PD", "rate", "90% Wilson", "pts", "m:W-D-L", "BWP", "BLP", "ms/turn",
           "sims/dec", "sims/turn", "spec");
    for (int i = 0; i < res->seats; i++) {
        const match_bot_result *b = &res->bot[i];
        char wdl[32], ci[32];
        snprintf(wdl, sizeof wdl, "%d-%d-%d", b->league.won, b->league.drawn, b->league.lost);
        snprintf(ci, sizeof ci, "%.1f-%.1f%%", 100 * b->ci90_low, 100 * b->ci90_high);
        printf("%-3c %6lld %6lld %6lld %8.2f %+8.2f %6.1f%% %12s %4d %8s %3d %3d %10.4f %10.0f "
               "%10.0f  %s\n",
               'A' + i, (long long)b->wins, (long long)b->losses, (long long)b->draws,
               b->mean_score, b->pd, 100 * b->scoring_rate, ci, b->league.points, wdl,
               b->league.bwp, b->league.blp, b->ms_per_turn, b->sims_per_decision, b->sims_per_turn,
               b->spec);
    }
    /* people count players from 1; the seat number (0-based) is the protocol's */
    printf("\n%-12s %10s  %s\n", "player", "mean score", "wins (sole best)");
    for (int s = 0; s < res->seats; s++) {
        char who[32];
        snprintf(who, sizeof who, "P%d (seat %d)", s + 1, s);
        printf("%-12s %10.2f  %lld\n", who, res->seat_mean_score[s], (long long)res->seat_wins[s]);
    }
    printf(
        "\nW/L/D: games won (sole best score), lost, drawn (tied for the best score).\n"
        "score: mean final score. PD: mean of (own score - best score of the others).\n"
        "rate: (W + D/2) / games, the scoring rate of Müller's thesis (5.2). 90%% Wilson: the\n"
        "Wilson score interval, holding the true rate with 90%% confidence (docs/match.md).\n"
        "pts: league points of the SIEA-MCTS and ES-MCTS papers (docs/league.md) over %d league\n"
        "matches per bot (m:W-D-L = matches won-drawn-lost): 4 per match won, 2 per match drawn,\n"
        "BWP/BLP bonus. ms/turn, sims/dec, sims/turn: time and simulations per turn and per\n"
        "decision; a turn is a player's consecutive decisions (in Carcassonne the tile and the\n"
        "meeple: two decisions). P1 (seat 0) moves first. Papers: docs/references.md.\n",
        res->seats > 0 ? res->bot[0].league.matches : 0);
}

static int print_json(const eng_game *g, const match_config *cfg, const match_result *res)
{
    json_t *bots = json_array();
    json_t *seat_mean = json_array(), *seat_wins = json_array();
    for (int i = 0; i < res->seats; i++) {
        const match_bot_result *b = &res->bot[i];
        char label[2] = {(char)('A' + i), 0};
        json_array_append_new(
            bots,
            json_pack("{s:s, s:s, s:I, s:I, s:I, s:f, s:f, s:f, s:[f, f], s:i, s:{s:i, s:i, s:i, "
                      "s:i, s:i, s:i, s:f}, s:I, s:I, s:f, s:f, s:f, s:f}",
                      "label", label, "spec", b->spec, "wins", (json_int_t)b->wins, "losses",
                      (json_int_t)b->losses, "draws", (json_int_t)b->draws, "mean_score",
                      r6(b->mean_score), "pd", r6(b->pd), "scoring_rate", r6(b->scoring_rate),
                      "ci90", r6(b->ci90_low), r6(b->ci90_high), "points", b->league.points,
                      "league", "matches", b->league.matches, "won", b->league.won, "drawn",
                      b->league.drawn, "lost", b->league.lost, "bwp", b->league.bwp, "blp",
                      b->league.blp, "pd", r6(b->league.pd), "decisions", (json_int_t)b->decisions,
                      "turns", (json_int_t)b->turns, "ms_per_decision", r6(b->ms_per_decision),
                      "ms_per_turn", r6(b->ms_per_turn), "sims_per_decision",
                      r6(b->sims_per_decision), "sims_per_turn", r6(b->sims_per_turn)));
        json_array_append_new(seat_mean, json_real(r6(res->seat_mean_score[i])));
        json_array_append_new(seat_wins, json_integer(res->seat_wins[i]));
    }
    /* the seed is a JSON integer when it fits in int64, else its decimal string */
    char seedtext[24];
    snprintf(seedtext, sizeof seedtext, "%llu", (unsigned long long)cfg->seed);
    json_t *seed = cfg->seed <= (uint64_t)INT64_MAX ? json_integer((json_int_t)cfg->seed)
                                                    : json_string(seedtext);
    json_t *o =
        json_pack("{s:s, s:i, s:I, s:I, s:I, s:o, s:i, s:f, s:s, s:I, s:o, s:o, s:o}", "game",
                  g->name, "seats", res->seats, "games", (json_int_t)res->games, "games_requested",
                  (json_int_t)res->games_requested, "groups", (json_int_t)res->groups, "seed", seed,
                  "threads", res->threads, "seconds", r6(res->seconds), "interval", "wilson90",
                  "faults", (json_int_t)res->faults, "seat_mean_score", seat_mean, "seat_wins",
                  seat_wins, "bots", bots);
    char *text =
        o ? json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII | JSON_REAL_PRECISION(12)) : NULL;
    json_decref(o);
    if (!text) {
        fprintf(stderr, "tessera match: cannot format the JSON result\n");
        return CLI_FAIL;
    }
    printf("%s\n", text);
    free(text);
    return CLI_OK;
}

/* ---- fault bundles ------------------------------------------------------------ */

typedef struct keeper {
    const char *dir; /* where bundles go */
    progress *prog;  /* the bar to clear first */
} keeper;

static void keep_bundles(const match_game *mg, void *user)
{
    keeper *k = user;
    for (int i = 0; i < mg->seats; i++)
        if (mg->bundle[i]) {
            progress_clear(k->prog);
            cli_keep_bundle("match", k->dir, mg->bundle[i], (long long)mg->index,
                            mg->seat_of[i]);
        }
}

/* ---- the command ------------------------------------------------------------- */

int cmd_match(int argc, char **argv)
{
    static const struct option opts[] = {
        {"games", required_argument, NULL, 'n'},
        {"seed", required_argument, NULL, 's'},
        {"rule", required_argument, NULL, 'r'},
        {"players", required_argument, NULL, 'p'},
        {"threads", required_argument, NULL, 't'},
        {"json", no_argument, NULL, 'j'},
        {"bundles", required_argument, NULL, 'b'},
        {"no-bundles", no_argument, NULL, 'B'},
        {NULL, 0, NULL, 0},
    };
    const char *cmd = "match";
    const char *bundles = CLI_BUNDLES_DIR;
    cli_game_opts go = {0};
    long long games = 100, threads = 0;
    uint64_t seed = 1;
    bool json = false;

    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        switch (c) {
        case 'n':
            if (cli_int(cmd, "--games", optarg, 1, MATCH_MAX_GAMES, &games))
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
        case 'p': go.players = optarg; break;
        case 't':
            if (cli_int(cmd, "--threads", optarg, 1, MATCH_MAX_THREADS, &threads))
                return CLI_USAGE;
            break;
        case 'j': json = true; break;
        case 'b': bundles = optarg; break;
        case 'B': bundles = NULL; break;
        case ':': return cli_usage_error(cmd, "%s needs a value", argv[optind - 1]);
        default: return cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc)
        return cli_usage_error(cmd, "which game? (see `tessera games`)");
    const eng_game *g = cli_game(cmd, argv[optind]);
    if (!g)
        return CLI_USAGE;
    int nbots = argc - optind - 1;
    if (nbots < 2)
        return cli_usage_error(cmd, "a match needs at least two bots, one per seat, got %d", nbots);
    if (nbots < g->min_players || nbots > g->max_players) {
        if (g->min_players == g->max_players)
            return cli_usage_error(cmd, "%s takes %d players, got %d bots (one bot per seat)",
                                   g->name, g->min_players, nbots);
        return cli_usage_error(cmd, "%s takes %d to %d players, got %d bots (one bot per seat)",
                               g->name, g->min_players, g->max_players, nbots);
    }

    eng_rules rules;
    eng_rules_default(g, &rules);
    for (int i = 0; i < go.nrules; i++) {
        if (cli_rule(cmd, g, &rules, go.rules_kv[i]))
            return CLI_USAGE;
        if (strncmp(go.rules_kv[i], "players=", 8) == 0 && rules.players != nbots)
            return cli_usage_error(cmd, "%s, but %d bots were given (one bot per seat)",
                                   go.rules_kv[i], nbots);
    }
    if (go.players) {
        long long v;
        if (cli_int(cmd, "--players", go.players, g->min_players, g->max_players, &v))
            return CLI_USAGE;
        if (v != nbots)
            return cli_usage_error(cmd, "--players %lld, but %d bots were given (one bot per seat)",
                                   v, nbots);
    }
    rules.players = nbots;
    if (cli_rules_check(cmd, g, &rules))
        return CLI_USAGE;

    match_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.game = g;
    cfg.rules = rules;
    cfg.nbots = nbots;
    for (int i = 0; i < nbots; i++)
        cfg.specs[i] = argv[optind + 1 + i];
    cfg.games = games;
    cfg.seed = seed;
    cfg.threads = (int)threads;
    char err[256];
    if (match_check(&cfg, err, sizeof err))
        return cli_usage_error(cmd, "%s", err);

    progress prog = {cli_now(), 0, false};
    if (isatty(STDERR_FILENO)) {
        cfg.progress = progress_draw;
        cfg.progress_user = &prog;
    }
    keeper keep = {bundles, &prog};
    if (bundles) {
        cfg.bundles = true;
        cfg.on_game = keep_bundles;
        cfg.on_game_user = &keep;
    }
    match_result res;
    int rc = match_run(&cfg, &res, err, sizeof err);
    progress_clear(&prog);
    if (rc) {
        fprintf(stderr, "tessera match: %s\n", err);
        return CLI_FAIL;
    }
    print_table(g, &cfg, &res);
    return json ? print_json(g, &cfg, &res) : CLI_OK;
}
