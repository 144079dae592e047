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
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "tournament/match.h"

const char cmd_match_usage[] =
    "usage: tessera match GAME PLAYER_A PLAYER_B [PLAYER_C...] [--games N] [--seed S]\n"
    "                     [--move-ms MS] [--rule K=V]... [--players P] [--threads T] [--json]\n"
    "                     [--out DIR] [--bundles DIR | --no-bundles]\n"
    "\n"
    "Plays N games of GAME, one player per seat: the number of players is the number\n"
    "of seats. A player is a bot spec (`tessera bots`: random, mcts:sims=400, ...) or a\n"
    "program of yours speaking the stdio protocol (docs/stdio.md), run in the sandbox:\n"
    "'cmd:PROGRAM ARGS...' (long-running) or 'cmd-stateless:PROGRAM ARGS...' (started\n"
    "for every turn), e.g. 'cmd:python3 mybot.py'. Games come in rotation groups of\n"
    "one game per seat count: within a group every player sits in every seat once\n"
    "and every game sees the same chance outcomes (tile order), so seat advantage and\n"
    "luck cancel. N is rounded up to a multiple of the seat count. Results depend only\n"
    "on the seed, not on --threads.\n"
    "Prints per player: wins, losses, draws (tied for the best score), mean score,\n"
    "mean point difference to the best other score (PD), the scoring rate\n"
    "(W + D/2)/N with its 90% Wilson score interval, league points (4 per league\n"
    "match won, 2 drawn, bonus win/loss points; docs/league.md), and the time and\n"
    "simulations per turn and per decision (a Carcassonne turn is two decisions:\n"
    "the tile, then the meeple). Per seat: P1 (seat 0) moves first. See docs/match.md.\n"
    "A turn that fails (a time-out, a crash, an illegal move, bad output: the\n"
    "verdicts of docs/stdio.md) loses that game at once, the faulty player ranked\n"
    "last; each such game is listed with its verdict, the turn, the reason and the\n"
    "last lines the program wrote on stderr.\n"
    "  PLAYER         a bot spec, e.g. random or random:seed=3, or 'cmd:PROGRAM ARGS'\n"
    "  --games N      games to play (default 100), rounded up to a multiple of seats\n"
    "  --seed S       seed of the tiles and the bots (default 1)\n"
    "  --move-ms MS   time per turn: a program is stopped at it (time_limit), a bot\n"
    "                 searches until shortly before it (default: programs 10000 ms,\n"
    "                 bots their own budget)\n"
    "  --rule K=V     a rule option, repeatable (see `tessera games`)\n"
    "  --players P    optional check: must equal the number of players\n"
    "  --threads T    worker threads (default: the number of online CPUs)\n"
    "  --out DIR      keep every game: DIR/records/game-NNNNNN.json (its record, for\n"
    "                 `tessera replay` and the web UI's replay) and, for each seat a\n"
    "                 program held, game-NNNNNN.PS.log: its verdict, debug and stderr\n"
    "                 turn by turn (docs/stdio.md, \"Your program's log\")\n"
    "  --json         print one JSON object as the last line: games, bots (spec,\n"
    "                 wins, losses, draws, mean_score, pd, scoring_rate, ci90,\n"
    "                 points, league, decisions, turns, ms_per_decision, ms_per_turn,\n"
    "                 sims_per_decision, sims_per_turn), faulted_games (game, bot,\n"
    "                 seat, verdict, turn, detail, stderr_tail, log, bundle), ...\n"
    "  --bundles DIR  where a program's fault (crash, time-out, illegal move, bad\n"
    "                 output) is kept as a bundle that `tessera doctor --replay FILE`\n"
    "                 plays again (default tessera-faults; docs/bundles.md)\n"
    "  --no-bundles   keep none\n"
    "A progress bar is drawn on stderr when it is a terminal.\n";

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

/* ---- each game's faults, records and logs ------------------------------------ */

#define STDERR_TAIL_LINES 5   /* lines of a faulty turn's stderr shown */
#define STDERR_TAIL_BYTES 800 /* and at most this much of them */

/* The fault that ended a game (a forfeit): written by the game's worker,
 * read after the run. */
typedef struct fault {
    bool set;
    int bot, seat, turn;
    char verdict[24];
    char detail[512];
    char stderr_tail[STDERR_TAIL_BYTES + 1];
    char *bundle; /* its fault bundle's path (--bundles), or NULL; owned */
} fault;

typedef struct games_out {
    const match_config *cfg;
    fault *faults;      /* [games]: indexed by game */
    int64_t nfaults;    /* length */
    const char *recdir; /* --out DIR/records, or NULL */
    cli_gamelog *log;   /* the programs' logs (with --out) */
    int record_errors;  /* records that could not be written */
    const char *bundles; /* where fault bundles go (--bundles), or NULL */
    progress *prog;      /* the bar to clear before a bundle's lines */
} games_out;

/* The last STDERR_TAIL_LINES lines of text (at most STDERR_TAIL_BYTES). */
static void tail_lines(const char *text, size_t n, char *out, size_t cap)
{
    while (n > 0 && text[n - 1] == '\n')
        n--;
    size_t start = n;
    for (int lines = 0; start > 0 && n - start < STDERR_TAIL_BYTES; start--)
        if (text[start - 1] == '\n' && ++lines == STDERR_TAIL_LINES)
            break;
    if (n - start > STDERR_TAIL_BYTES)
        start = n - STDERR_TAIL_BYTES;
    snprintf(out, cap, "%.*s", (int)(n - start), text + start);
}

static void on_turn(const match_turn *t, void *user)
{
    games_out *G = user;
    const player_result *r = t->result;
    if (t->turn > 0 && r->verdict != PLAYER_OK && t->index >= 0 && t->index < G->nfaults &&
        !G->faults[t->index].set) {
        fault *f = &G->faults[t->index];
        f->set = true;
        f->bot = t->bot;
        f->seat = t->seat;
        f->turn = t->turn;
        snprintf(f->verdict, sizeof f->verdict, "%s", player_verdict_name(r->verdict));
        snprintf(f->detail, sizeof f->detail, "%s", r->detail);
        tail_lines(r->stderr_tail, r->stderr_len, f->stderr_tail, sizeof f->stderr_tail);
    }
    if (t->program && G->log)
        cli_gamelog_turn(G->log, t->index, t->seat, G->cfg->specs[t->bot], t->turn, r);
}

/* Each program fault's bundle; the path of the one that lost the game goes
 * with its fault (on_turn set it, on the same thread, before this call). */
static void keep_bundles(const games_out *G, const match_game *mg)
{
    for (int i = 0; i < mg->seats; i++)
        if (mg->bundle[i]) {
            char path[4096];
            progress_clear(G->prog);
            if (cli_keep_bundle("match", G->bundles, mg->bundle[i], (long long)mg->index,
                                mg->seat_of[i], path, sizeof path) != 0)
                continue;
            fault *f = mg->index >= 0 && mg->index < G->nfaults ? &G->faults[mg->index] : NULL;
            if (f && f->set && f->bot == i && !f->bundle)
                f->bundle = strdup(path);
        }
}

static void on_game(const match_game *mg, void *user)
{
    games_out *G = user;
    if (G->bundles)
        keep_bundles(G, mg);
    if (!G->recdir || !mg->record)
        return;
    char path[4200], tmp[4300];
    snprintf(path, sizeof path, "%s/game-%06lld.json", G->recdir, (long long)mg->index);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    bool ok = f && fputs(mg->record, f) >= 0 && fputc('\n', f) != EOF;
    if (f)
        ok = fclose(f) == 0 && ok;
    if (!ok || rename(tmp, path) != 0) {
        unlink(tmp);
        G->record_errors++;
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
               "forfeited, the faulty bot ranked last; listed below the table\n",
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

/* Every game lost by a fault: who, the verdict, the turn, why, the last
 * lines of its stderr, its log. */
static void print_faults(const games_out *G)
{
    int64_t shown = 0;
    for (int64_t i = 0; i < G->nfaults; i++) {
        const fault *f = &G->faults[i];
        if (!f->set)
            continue;
        if (shown++ == 0)
            printf("\ngames lost by a fault (verdicts: docs/stdio.md):\n");
        /* the detail's own copy of the stderr tail is shown in full below it */
        const char *cut = f->stderr_tail[0] ? strstr(f->detail, "; stderr:") : NULL;
        int dlen = cut ? (int)(cut - f->detail) : (int)strlen(f->detail);
        printf("  game %lld: %c (P%d, seat %d) %s at turn %d: %.*s\n", (long long)i, 'A' + f->bot,
               f->seat + 1, f->seat, f->verdict, f->turn, dlen ? dlen : 1, dlen ? f->detail : "-");
        if (f->stderr_tail[0]) {
            printf("    its stderr ended with:\n");
            const char *p = f->stderr_tail;
            while (*p) {
                const char *nl = strchr(p, '\n');
                int len = nl ? (int)(nl - p) : (int)strlen(p);
                printf("    | %.*s\n", len, p);
                p += len + (nl ? 1 : 0);
            }
        }
        if (G->log) {
            char path[4200];
            cli_gamelog_path(G->log, i, f->seat, path, sizeof path);
            if (access(path, F_OK) == 0)
                printf("    log: %s\n", path);
        }
        if (f->bundle)
            printf("    replay: tessera doctor --replay %s\n", f->bundle);
    }
    if (shown && !G->recdir)
        printf("  (--out DIR keeps every game's record and each program's log: debug and stderr "
               "turn by turn)\n");
}

static json_t *faults_json(const games_out *G)
{
    json_t *arr = json_array();
    for (int64_t i = 0; i < G->nfaults && arr; i++) {
        const fault *f = &G->faults[i];
        if (!f->set)
            continue;
        char label[2] = {(char)('A' + f->bot), 0};
        json_t *o = json_pack("{s:I, s:s, s:s, s:i, s:s, s:i, s:s, s:s}", "game", (json_int_t)i,
                              "bot", label, "spec", G->cfg->specs[f->bot], "seat", f->seat,
                              "verdict", f->verdict, "turn", f->turn, "detail", f->detail,
                              "stderr_tail", f->stderr_tail);
        if (o && G->log) {
            char path[4200];
            cli_gamelog_path(G->log, i, f->seat, path, sizeof path);
            if (access(path, F_OK) == 0)
                json_object_set_new(o, "log", json_string(path));
        }
        if (o && f->bundle)
            json_object_set_new(o, "bundle", json_string(f->bundle));
        json_array_append_new(arr, o);
    }
    return arr;
}

static int print_json(const eng_game *g, const match_config *cfg, const match_result *res,
                      const games_out *G)
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
    if (o) {
        json_object_set_new(o, "faulted_games", faults_json(G));
        if (G->recdir)
            json_object_set_new(o, "records", json_string(G->recdir));
    }
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

/* ---- the command ------------------------------------------------------------- */

int cmd_match(int argc, char **argv)
{
    static const struct option opts[] = {
        {"games", required_argument, NULL, 'n'},
        {"seed", required_argument, NULL, 's'},
        {"rule", required_argument, NULL, 'r'},
        {"players", required_argument, NULL, 'p'},
        {"threads", required_argument, NULL, 't'},
        {"move-ms", required_argument, NULL, 'm'},
        {"out", required_argument, NULL, 'o'},
        {"json", no_argument, NULL, 'j'},
        {"bundles", required_argument, NULL, 'b'},
        {"no-bundles", no_argument, NULL, 'B'},
        {NULL, 0, NULL, 0},
    };
    const char *cmd = "match";
    const char *bundles = CLI_BUNDLES_DIR;
    cli_game_opts go = {0};
    long long games = 100, threads = 0, move_ms = 0;
    uint64_t seed = 1;
    bool json = false;
    const char *out_dir = NULL;

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
        case 'm':
            if (cli_int(cmd, "--move-ms", optarg, 1, 86400000, &move_ms))
                return CLI_USAGE;
            break;
        case 'o': out_dir = optarg; break;
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
    cfg.move_ms = move_ms;
    char err[256];
    if (match_check(&cfg, err, sizeof err))
        return cli_usage_error(cmd, "%s", err);

    /* --out DIR/records: the records, the programs' logs */
    char recdir[4096] = "";
    if (out_dir) {
        snprintf(recdir, sizeof recdir, "%s/records", out_dir);
        if ((mkdir(out_dir, 0777) != 0 && errno != EEXIST) ||
            (mkdir(recdir, 0777) != 0 && errno != EEXIST) || access(recdir, W_OK) != 0)
            return cli_usage_error(cmd, "--out %s: cannot make or write the folder %s: %s",
                                   out_dir, recdir, strerror(errno));
    }
    games_out G = {.cfg = &cfg, .recdir = out_dir ? recdir : NULL};
    G.nfaults = match_round_games(cfg.games, cfg.nbots);
    G.faults = calloc((size_t)G.nfaults, sizeof *G.faults);
    if (out_dir)
        G.log = cli_gamelog_create(recdir);
    if (!G.faults || (out_dir && !G.log)) {
        free(G.faults);
        cli_gamelog_destroy(G.log);
        fprintf(stderr, "tessera match: out of memory\n");
        return CLI_FAIL;
    }
    cfg.on_turn = on_turn;
    cfg.on_turn_user = &G;
    cfg.on_game = on_game;
    cfg.on_game_user = &G;
    cfg.records = out_dir != NULL;

    progress prog = {cli_now(), 0, false};
    if (isatty(STDERR_FILENO)) {
        cfg.progress = progress_draw;
        cfg.progress_user = &prog;
    }
    G.bundles = bundles;
    G.prog = &prog;
    cfg.bundles = bundles != NULL;
    match_result res;
    int rc = match_run(&cfg, &res, err, sizeof err);
    progress_clear(&prog);
    if (rc) {
        fprintf(stderr, "tessera match: %s\n", err);
        rc = CLI_FAIL;
        goto out;
    }
    print_table(g, &cfg, &res);
    print_faults(&G);
    if (out_dir) {
        printf("\nrecords: %s/game-NNNNNN.json", recdir);
        if (cli_gamelog_written(G.log))
            printf("; your programs' logs (debug and stderr, turn by turn): %s/game-NNNNNN.PS.log "
                   "(%d)",
                   recdir, cli_gamelog_written(G.log));
        printf("\n");
    }
    if (G.record_errors || cli_gamelog_errors(G.log))
        fprintf(stderr, "tessera match: %d record%s and %d log%s could not be written to %s\n",
                G.record_errors, G.record_errors == 1 ? "" : "s", cli_gamelog_errors(G.log),
                cli_gamelog_errors(G.log) == 1 ? "" : "s", recdir);
    rc = json ? print_json(g, &cfg, &res, &G) : CLI_OK;
    if (rc == CLI_OK && (G.record_errors || cli_gamelog_errors(G.log)))
        rc = CLI_FAIL;
out:
    for (int64_t i = 0; G.faults && i < G.nfaults; i++)
        free(G.faults[i].bundle);
    free(G.faults);
    cli_gamelog_destroy(G.log);
    return rc;
}
