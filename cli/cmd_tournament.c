/*
 * cmd_tournament.c — `tessera tournament FORMAT [options] PARTICIPANT...`:
 * a round-robin, gauntlet, Swiss or knockout tournament of in-process bots
 * and external programs, played here on worker threads (tournament/runner.h),
 * with live progress, resumable from a database (--db: a SQLite file, or
 * PostgreSQL by its connection string), and reports
 * (--out, --json). docs/tournaments.md is the user's guide.
 *
 * This file parses arguments, sets up the tournament (new, or found again
 * in --db with the same spec), draws the progress (a bar with an ETA on a
 * terminal, one plain line per game otherwise, on stderr), writes records
 * and reports, and prints the standings. SIGINT and SIGTERM stop the run
 * cleanly: games in progress go back to pending (with --db, the same command
 * continues them).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "engine/textbuf.h"
#include "protocol/wire.h"
#include "tournament/report.h"
#include "tournament/runner.h"
#include "tournament/standings.h"
#include "tournament/store.h"

static const char *const cmd = "tournament";

const char cmd_tournament_usage[] =
    "usage: tessera tournament FORMAT [options] PARTICIPANT...\n"
    "       tessera tournament FORMAT --url URL --admin-token-file F [options] PARTICIPANT...\n"
    "       tessera tournament --url URL --watch ID\n"
    "\n"
    "Plays a tournament here, on worker threads, and prints its standings. FORMAT is\n"
    "round-robin (rr), gauntlet (the first participant against each other), swiss or\n"
    "knockout. A PARTICIPANT is SPEC or NAME=SPEC (named by its spec by default), SPEC\n"
    "being a bot spec (`tessera bots`: mcts:sims=400, rave, heuristic, ...) or an\n"
    "external program: 'cmd:PROGRAM ARGS...' (long-running) or 'cmd-stateless:PROGRAM\n"
    "ARGS...' (started for every turn), run in a sandbox (docs/stdio.md). Every table\n"
    "plays its games in groups of one game per seat order with the same tiles\n"
    "(paired games). Each game's tiles follow from its seed, committed to before the\n"
    "game and revealed in its record (`tessera replay --verify`). See\n"
    "docs/tournaments.md.\n"
    "  --game G            the game (default carcassonne; `tessera games`)\n"
    "  --players P         seats per table (default: the game's, 2)\n"
    "  --rule K=V          a rule option, repeatable\n"
    "  --games-per-pair N  games each table plays per cycle or round, rounded up to a\n"
    "                      multiple of the seats (default 2; with --sprt 2000, the most\n"
    "                      the test may play)\n"
    "  --cycles N          round-robin, gauntlet: times every table plays (default 1)\n"
    "  --rounds N          swiss: rounds (default ceil(log2 participants))\n"
    "  --best-of N         knockout: game groups per tie (default games-per-pair / seats);\n"
    "                      a tie goes to the lead, then points, point difference, up to\n"
    "                      3 extra groups, then the higher seed\n"
    "  --seed S            everything random derives from it (default 1)\n"
    "  --concurrency N     games played at once, one worker thread each (default 1)\n"
    "  --move-ms MS        time per turn; a program is stopped at it (default: programs\n"
    "                      10000 ms, in-process bots their own budget, no limit)\n"
    "  --on-fault POLICY   a turn that fails (time limit, crash, illegal move, bad\n"
    "                      output): forfeit (default: the game is lost at once, the\n"
    "                      seat ranked last) or random (a random legal turn is played\n"
    "                      for it and the game goes on); a resignation always loses\n"
    "  --sprt elo0=A,elo1=B[,alpha=X,beta=Y,model=normalized|logistic]\n"
    "                      a head-to-head SPRT (2 participants, 2 seats) that stops the\n"
    "                      tournament as soon as it decides (alpha, beta default 0.05)\n"
    "  --anchor NAME       rate NAME 0 (default: ratings average 0)\n"
    "  --name LABEL        a label for the tournament and its reports\n"
    "  --db FILE|URL       keep the tournament in a database (a SQLite file, or a\n"
    "                      PostgreSQL connection string): every result and game record\n"
    "                      as it finishes; the same command again resumes it (after a\n"
    "                      stop or kill -9) without replaying a finished game\n"
    "  --out DIR           write standings.md, standings.csv, result.json, ratings.svg,\n"
    "                      scores.svg, crosstable.svg and records/game-NNNNNN.json, with\n"
    "                      game-NNNNNN.PS.log beside it for each seat a program held: its\n"
    "                      verdict, debug and stderr turn by turn (docs/stdio.md)\n"
    "  --json              print the result as one JSON object (last line): spec, counts,\n"
    "                      standings, cross-table, ratings, SPRT, run\n"
    "  --quiet             no progress on stderr (a bar on a terminal, else a line per game)\n"
    "  --bundles DIR       where a program's fault is kept as a bundle that `tessera\n"
    "                      doctor --replay FILE` plays again (default: --out DIR/faults,\n"
    "                      else tessera-faults; docs/bundles.md); --no-bundles: none\n"
    "On a server (the server plays it: its journal, clocks and web page):\n"
    "  --url URL           create it on the server at ws://HOST:PORT/ (programs, cmd:, are\n"
    "                      then found and run on the server's machine; remote:NAME seats a\n"
    "                      bot registered there), start it, print its page's address and\n"
    "                      follow it here to its standings; --db and --out do not\n"
    "                      apply; each program's fault is fetched as a bundle into\n"
    "                      --bundles DIR (default tessera-faults; --no-bundles: none)\n"
    "  --admin-token-file F  the server's admin token (`tessera serve --admin-token-file F`\n"
    "                      writes it; --admin-token T gives it here)\n"
    "  --detach            leave it running once started\n"
    "                      (--seed: default random there; --concurrency: default 2)\n"
    "  --watch ID          follow tournament ID on the server at --url (no format, no\n"
    "                      participants; with the admin token, its fault bundles too)\n"
    "SIGINT/SIGTERM stop cleanly: games in progress go back to pending.\n"
    "Exit status: 0 the tournament is done; 1 it did not finish (stopped, a storage\n"
    "failure, a report that could not be written); 2 bad arguments (unknown format,\n"
    "game or bot, a program that cannot be found, fewer than 2 participants, a bad\n"
    "count), with the reason.\n";

/* ---- stopping on a signal ------------------------------------------------------------ */

static atomic_bool stop_flag;

static void on_signal(int sig)
{
    (void)sig;
    atomic_store(&stop_flag, true);
}

/* ---- progress ------------------------------------------------------------------------- */

/* The bar is redrawn when a game starts or ends (the runner's callbacks,
 * which may read the tournament) and twice a second by a ticker thread
 * (which may not: it draws from the counts the callbacks left in `c`). */
typedef struct progress {
    tour *t;
    bool tty;             /* draw a bar (stderr is a terminal) rather than lines */
    bool quiet;           /* neither */
    double t0;            /* when this run started */
    int64_t done0;        /* games done before this run (a resume) */
    const char *recdir;   /* --out DIR/records, or NULL */
    cli_gamelog *log;     /* the programs' logs, with --out */
    const char *bundles;  /* where fault bundles go, or NULL */
    int write_errors;     /* records that could not be written */
    pthread_mutex_t lock; /* guards the fields below and stderr's bar */
    tour_counts c;        /* the counts at the last callback */
    bool drawn;           /* the bar is on the line */
    bool ticking;         /* the ticker runs */
} progress;

static void fmt_duration(double s, char *buf, size_t cap)
{
    if (s < 0)
        s = 0;
    long long t = llround(s);
    if (t >= 3600)
        snprintf(buf, cap, "%lldh%02lldm", t / 3600, t / 60 % 60);
    else if (t >= 60)
        snprintf(buf, cap, "%lldm%02llds", t / 60, t % 60);
    else
        snprintf(buf, cap, "%llds", t);
}

/* "12/56 games, 2 running, 1m20s, ~3m10s left" from the cached counts. */
static void progress_text(progress *p, char *buf, size_t cap)
{
    tour_counts c = p->c;
    double spent = cli_now() - p->t0;
    char a[32], eta[32] = "";
    fmt_duration(spent, a, sizeof a);
    int64_t here = c.done - p->done0, left = c.expected - c.done;
    if (here > 0 && left > 0)
        fmt_duration(spent / (double)here * (double)left, eta, sizeof eta);
    snprintf(buf, cap, "%lld/%lld games, %lld running, %s%s%s%s", (long long)c.done,
             (long long)c.expected, (long long)c.running, a, eta[0] ? ", ~" : "", eta,
             eta[0] ? " left" : "");
}

/* Draw the bar (p->lock held). */
static void bar_draw(progress *p)
{
    tour_counts c = p->c;
    enum { WIDTH = 30 };
    int fill = c.expected ? (int)(WIDTH * c.done / c.expected) : WIDTH;
    char bar[WIDTH + 1], text[160];
    for (int i = 0; i < WIDTH; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[WIDTH] = 0;
    progress_text(p, text, sizeof text);
    fprintf(stderr, "\r[%s] %s\033[K", bar, text);
    fflush(stderr);
    p->drawn = true;
}

static void bar_clear(progress *p)
{
    pthread_mutex_lock(&p->lock);
    if (p->drawn) {
        fprintf(stderr, "\r\033[K");
        fflush(stderr);
        p->drawn = false;
    }
    pthread_mutex_unlock(&p->lock);
}

/* The counts now (from a runner callback, which may read the tournament). */
static void refresh(progress *p)
{
    tour_counts c;
    tour_get_counts(p->t, &c);
    pthread_mutex_lock(&p->lock);
    p->c = c;
    if (p->tty && !p->quiet)
        bar_draw(p);
    pthread_mutex_unlock(&p->lock);
}

static void *ticker(void *arg)
{
    progress *p = arg;
    for (;;) {
        struct timespec ts = {0, 500 * 1000000L};
        nanosleep(&ts, NULL);
        pthread_mutex_lock(&p->lock);
        bool go = p->ticking;
        if (go)
            bar_draw(p);
        pthread_mutex_unlock(&p->lock);
        if (!go)
            return NULL;
    }
}

static void on_start(const tour_game *g, const char *commitment, void *user)
{
    (void)g;
    (void)commitment;
    refresh(user);
}

/* Write text to path through a temporary file and a rename. 0 or -1. */
static int write_file(const char *path, const char *text)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f)
        return -1;
    bool ok = fputs(text, f) >= 0 && fputc('\n', f) != EOF;
    ok = fclose(f) == 0 && ok;
    if (!ok || rename(tmp, path) != 0) {
        unlink(tmp);
        return -1;
    }
    return 0;
}

/* standings.md again with a section that links the fault bundles in
 * DIR/faults (of this run and earlier ones). Returns true on a failure. */
static bool link_faults(const char *dir)
{
    char faults[4096], path[4200];
    snprintf(faults, sizeof faults, "%s/faults", dir);
    char *section = cli_faults_markdown(faults, "faults");
    if (!section)
        return false;
    snprintf(path, sizeof path, "%s/standings.md", dir);
    FILE *f = fopen(path, "r");
    textbuf tb = TEXTBUF_INIT;
    char buf[8192];
    size_t n;
    while (f && (n = fread(buf, 1, sizeof buf, f)) > 0)
        tb_put(&tb, buf, n);
    bool bad = !f || ferror(f);
    if (f)
        fclose(f);
    while (tb.len > 0 && tb.p[tb.len - 1] == '\n')
        tb_cut(&tb, tb.len - 1);
    tb_puts(&tb, "\n");
    tb_puts(&tb, section);
    while (tb.len > 0 && tb.p[tb.len - 1] == '\n')
        tb_cut(&tb, tb.len - 1);
    bad = bad || tb.failed || write_file(path, tb.p ? tb.p : "") != 0;
    if (bad)
        fprintf(stderr, "tessera %s: %s: cannot add the faults to it\n", cmd, path);
    tb_free(&tb);
    free(section);
    return bad;
}

static void record_path(const char *dir, int64_t id, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s/game-%06lld.json", dir, (long long)id);
}

/* A program's turn or game over: into its game's log (on the game's
 * worker, not under the runner's lock). */
static void on_turn(const tour_run_turn *t, void *user)
{
    progress *p = user;
    if (!t->program || !p->log)
        return;
    const tour_spec *sp = tour_get_spec(p->t);
    cli_gamelog_turn(p->log, t->game->id, t->seat, sp->participants[t->game->table[t->seat]].spec,
                     t->turn, t->result);
}

static void on_end(const tour_run_game *info, void *user)
{
    progress *p = user;
    if (p->recdir && info->result->record) {
        char path[4096];
        record_path(p->recdir, info->game->id, path, sizeof path);
        if (write_file(path, info->result->record))
            p->write_errors++;
    }
    for (int s = 0; p->bundles && s < info->game->seats; s++)
        if (info->bundle[s]) {
            bar_clear(p);
            cli_keep_bundle("tournament", p->bundles, info->bundle[s], (long long)info->game->id,
                            s, NULL, 0);
        }
    refresh(p);
    if (p->quiet || p->tty)
        return;
    const tour_spec *sp = tour_get_spec(p->t);
    const tour_result *r = info->result;
    char text[160], line[8192];
    size_t o = 0;
    o += (size_t)snprintf(line + o, sizeof line - o, "game %lld:", (long long)info->game->id);
    for (int s = 0; s < info->game->seats && o < sizeof line; s++)
        o += (size_t)snprintf(line + o, sizeof line - o, "%s P%d %s %g", s ? "," : "", s + 1,
                              sp->participants[info->game->table[s]].name, r->score[s]);
    if (r->end != TOUR_END_NORMAL && o < sizeof line)
        o += (size_t)snprintf(line + o, sizeof line - o, " (%s by P%d%s%s)", tour_end_name(r->end),
                              r->culprit + 1, r->verdict ? ": " : "", r->verdict ? r->verdict : "");
    if (r->end != TOUR_END_NORMAL && p->log && r->culprit >= 0 && o < sizeof line) {
        char path[4200];
        cli_gamelog_path(p->log, info->game->id, r->culprit, path, sizeof path);
        if (access(path, F_OK) == 0)
            o += (size_t)snprintf(line + o, sizeof line - o, "; log %s", path);
    }
    pthread_mutex_lock(&p->lock);
    progress_text(p, text, sizeof text);
    pthread_mutex_unlock(&p->lock);
    fprintf(stderr, "tessera tournament: %s  [%s]\n", line, text);
}

/* ---- arguments ------------------------------------------------------------------------- */

/* NAME=SPEC when the text before the first '=' is a name (no ':'), else a
 * bare SPEC (bot specs have their '=' after a ':'). */
static bool split_named(const char *arg, char *name, size_t cap, const char **spec)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg || memchr(arg, ':', (size_t)(eq - arg)) || (size_t)(eq - arg) >= cap)
        return false;
    memcpy(name, arg, (size_t)(eq - arg));
    name[eq - arg] = 0;
    *spec = eq + 1;
    return true;
}

/* --sprt elo0=A,elo1=B[,alpha=X][,beta=Y][,model=normalized|logistic] */
static int parse_sprt(const char *text, tour_sprt_params *p)
{
    char buf[256];
    if (strlen(text) >= sizeof buf)
        return cli_usage_error(cmd, "--sprt is too long");
    snprintf(buf, sizeof buf, "%s", text);
    bool has0 = false, has1 = false;
    p->enabled = true;
    for (char *save = NULL, *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '=');
        if (!eq)
            return cli_usage_error(cmd, "--sprt: '%s' is not KEY=VALUE", kv);
        *eq = 0;
        const char *key = kv, *val = eq + 1;
        if (strcmp(key, "model") == 0) {
            if (tour_sprt_model_parse(val, &p->model))
                return cli_usage_error(cmd, "--sprt: model is normalized or logistic, not '%s'",
                                       val);
            continue;
        }
        char *end;
        errno = 0;
        double v = strtod(val, &end);
        if (!*val || *end || errno || !isfinite(v))
            return cli_usage_error(cmd, "--sprt: %s needs a number, got '%s'", key, val);
        if (strcmp(key, "elo0") == 0)
            p->elo0 = v, has0 = true;
        else if (strcmp(key, "elo1") == 0)
            p->elo1 = v, has1 = true;
        else if (strcmp(key, "alpha") == 0)
            p->alpha = v;
        else if (strcmp(key, "beta") == 0)
            p->beta = v;
        else
            return cli_usage_error(cmd, "--sprt: unknown key '%s' (elo0, elo1, alpha, beta, model)",
                                   key);
    }
    if (!has0 || !has1)
        return cli_usage_error(cmd, "--sprt needs elo0 and elo1 (e.g. elo0=0,elo1=5)");
    char err[200];
    if (tour_sprt_check(p, err, sizeof err))
        return cli_usage_error(cmd, "--sprt: %s", err);
    return 0;
}

static int make_dir(const char *path)
{
    if (mkdir(path, 0777) == 0 || errno == EEXIST) {
        struct stat sb;
        if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
            return 0;
        errno = ENOTDIR;
    }
    return -1;
}

/* ---- output -------------------------------------------------------------------------- */

static void print_standings(const tour *t, const tour_standings *s, const tour_run_stats *st,
                            int64_t done_before)
{
    const tour_spec *sp = tour_get_spec(t);
    char dur[32];
    fmt_duration(st->seconds, dur, sizeof dur);
    printf("%s of %s, %d participants, %d seats, seed %llu: %s\n", tour_format_name(sp->format),
           sp->game->title, sp->nparticipants, tour_seats(t), (unsigned long long)sp->seed,
           s->done ? "done" : "not finished");
    printf("%lld games done of %lld expected", (long long)s->counts.done,
           (long long)s->counts.expected);
    if (s->counts.voided)
        printf(" (%lld void)", (long long)s->counts.voided);
    printf("; this run played %lld in %s on %d thread%s", (long long)st->played, dur, st->threads,
           st->threads == 1 ? "" : "s");
    if (done_before)
        printf(" (%lld were done before: resumed)", (long long)done_before);
    printf("\n\n");
    json_t *o = tour_report_json(t, s, false);
    cli_standings_print(json_object_get(o, "standings"));
    json_decref(o);
    if (s->has_sprt) {
        const tour_sprt_status *q = &s->sprt;
        printf("\nSPRT [%g, %g] (%s): LLR %.2f (bounds %.2f, %.2f) after %lld pairs: %s\n",
               sp->sprt.elo0, sp->sprt.elo1, tour_sprt_model_name(sp->sprt.model), q->llr, q->lower,
               q->upper, (long long)tour_penta_pairs(&q->penta),
               q->state == TOUR_SPRT_H1   ? "H1 accepted"
               : q->state == TOUR_SPRT_H0 ? "H0 accepted"
                                          : "undecided");
    }
    cli_standings_legend();
}

/* ---- the command ------------------------------------------------------------------------ */

int cmd_tournament(int argc, char **argv)
{
    static const struct option opts[] = {
        {"game", required_argument, NULL, 'g'},
        {"players", required_argument, NULL, 'p'},
        {"rule", required_argument, NULL, 'r'},
        {"games-per-pair", required_argument, NULL, 'n'},
        {"cycles", required_argument, NULL, 'c'},
        {"rounds", required_argument, NULL, 'R'},
        {"best-of", required_argument, NULL, 'b'},
        {"seed", required_argument, NULL, 's'},
        {"concurrency", required_argument, NULL, 'C'},
        {"move-ms", required_argument, NULL, 'm'},
        {"on-fault", required_argument, NULL, 'f'},
        {"sprt", required_argument, NULL, 'S'},
        {"anchor", required_argument, NULL, 'a'},
        {"name", required_argument, NULL, 'N'},
        {"db", required_argument, NULL, 'd'},
        {"out", required_argument, NULL, 'o'},
        {"json", no_argument, NULL, 'j'},
        {"quiet", no_argument, NULL, 'q'},
        {"url", required_argument, NULL, 'u'},
        {"admin-token", required_argument, NULL, 'T'},
        {"admin-token-file", required_argument, NULL, 'F'},
        {"detach", no_argument, NULL, 'D'},
        {"watch", required_argument, NULL, 'W'},
        {"bundles", required_argument, NULL, 'B'},
        {"no-bundles", no_argument, NULL, 'X'},
        {NULL, 0, NULL, 0},
    };
    /* on a server (--url): what was given, to send only that */
    const char *url = NULL, *admin = NULL;
    char token[CLI_TOKEN_MAX];
    bool detach = false, conc_set = false, seed_set = false, policy_set = false;
    long long watch_id = 0;
    const char *game_name = "carcassonne", *db_path = NULL, *out_dir = NULL;
    const char *bundles = NULL;
    bool no_bundles = false;
    cli_game_opts go = {0};
    long long gpp = 0, cycles = 1, rounds = 0, best_of = 0, conc = 1, move_ms = 0;
    uint64_t seed = 1;
    bool json = false, quiet = false;
    tour_fault_policy policy = TOUR_FAULT_FORFEIT;
    tour_spec spec;
    tour_spec_init(&spec);

    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        switch (c) {
        case 'g': game_name = optarg; break;
        case 'p': go.players = optarg; break;
        case 'r':
            if (cli_game_opts_rule(cmd, &go, optarg))
                return CLI_USAGE;
            break;
        case 'n':
            if (cli_int(cmd, "--games-per-pair", optarg, 1, TOUR_MAX_GAMES_PER_PAIR, &gpp))
                return CLI_USAGE;
            break;
        case 'c':
            if (cli_int(cmd, "--cycles", optarg, 1, TOUR_MAX_CYCLES, &cycles))
                return CLI_USAGE;
            break;
        case 'R':
            if (cli_int(cmd, "--rounds", optarg, 1, TOUR_MAX_ROUNDS, &rounds))
                return CLI_USAGE;
            break;
        case 'b':
            if (cli_int(cmd, "--best-of", optarg, 1, TOUR_MAX_BEST_OF, &best_of))
                return CLI_USAGE;
            break;
        case 's':
            if (cli_seed(cmd, optarg, &seed))
                return CLI_USAGE;
            seed_set = true;
            break;
        case 'C':
            if (cli_int(cmd, "--concurrency", optarg, 1, TOUR_RUN_MAX_THREADS, &conc))
                return CLI_USAGE;
            conc_set = true;
            break;
        case 'u':
            if (strncmp(optarg, "ws://", 5) != 0 && strncmp(optarg, "wss://", 6) != 0)
                return cli_usage_error(cmd, "--url must be a ws:// or wss:// URL, got '%s'",
                                       optarg);
            url = optarg;
            break;
        case 'T': admin = optarg; break;
        case 'F':
            if (cli_admin_token_file(cmd, optarg, token, sizeof token))
                return CLI_USAGE;
            admin = token;
            break;
        case 'D': detach = true; break;
        case 'W':
            if (cli_int(cmd, "--watch", optarg, 1, INT64_MAX, &watch_id))
                return CLI_USAGE;
            break;
        case 'm':
            if (cli_int(cmd, "--move-ms", optarg, 1, 86400000, &move_ms))
                return CLI_USAGE;
            break;
        case 'f':
            if (tour_fault_policy_parse(optarg, &policy))
                return cli_usage_error(cmd, "--on-fault is forfeit or random, not '%s'", optarg);
            policy_set = true;
            break;
        case 'S':
            if (parse_sprt(optarg, &spec.sprt))
                return CLI_USAGE;
            break;
        case 'a': spec.anchor = optarg; break;
        case 'N': spec.label = optarg; break;
        case 'd': db_path = optarg; break;
        case 'o': out_dir = optarg; break;
        case 'j': json = true; break;
        case 'q': quiet = true; break;
        case 'B': bundles = optarg; break;
        case 'X': no_bundles = true; break;
        case ':': return cli_usage_error(cmd, "%s needs a value", argv[optind - 1]);
        default: return cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (!url && (detach || watch_id || admin))
        return cli_usage_error(cmd, "%s is for a tournament on a server: give --url too",
                               detach ? "--detach" : watch_id ? "--watch" : "the admin token");
    if (url && (db_path || out_dir))
        return cli_usage_error(cmd, "--%s is for a tournament played here; on a server (--url) "
                                    "the server keeps it (its page has the records)",
                               db_path ? "db" : "out");
    /* on a server, the programs' fault bundles are fetched into --bundles DIR */
    const char *server_bundles = no_bundles ? NULL : bundles ? bundles : CLI_BUNDLES_DIR;
    if (url && watch_id) {
        if (optind < argc)
            return cli_usage_error(cmd, "--watch follows a tournament: no format or participants");
        return cli_tournament_on_server(url, admin, NULL, watch_id, false, json, quiet,
                                        server_bundles);
    }
    if (url && !admin)
        return cli_usage_error(cmd, "a tournament on a server needs its admin token: "
                                    "--admin-token-file F (the file `tessera serve "
                                    "--admin-token-file F` writes)");
    if (optind >= argc)
        return cli_usage_error(cmd, "which format? round-robin, gauntlet, swiss or knockout");
    char err[1024];
    if (tour_format_parse(argv[optind], &spec.format, err, sizeof err))
        return cli_usage_error(cmd, "%s", err);
    int np = argc - optind - 1;
    if (np < 2)
        return cli_usage_error(cmd, "a tournament needs at least 2 participants, got %d", np);
    if (np > TOUR_MAX_PARTICIPANTS)
        return cli_usage_error(cmd, "at most %d participants, got %d", TOUR_MAX_PARTICIPANTS, np);

    eng_rules rules;
    const eng_game *g = cli_game_rules(cmd, game_name, go.players, go.rules_kv, go.nrules, &rules);
    if (!g)
        return CLI_USAGE;

    /* participants: NAME=SPEC or SPEC (named by the spec; repeats get #2, #3 ...) */
    tour_participant *parts = calloc((size_t)np, sizeof *parts);
    char(*names)[TOUR_NAME_MAX + 1] = calloc((size_t)np, sizeof *names);
    int rc = CLI_USAGE;
    tour *t = NULL;
    tour_store *store = NULL;
    cli_gamelog *prog_log = NULL;
    player_config pc;
    player_config_default(&pc);
    if (!parts || !names) {
        fprintf(stderr, "tessera %s: out of memory\n", cmd);
        rc = CLI_FAIL;
        goto out;
    }
    for (int i = 0; i < np; i++) {
        const char *arg = argv[optind + 1 + i], *sp = arg;
        char name[TOUR_NAME_MAX + 2];
        if (split_named(arg, name, sizeof name, &sp)) {
            if (strlen(name) > TOUR_NAME_MAX) {
                cli_usage_error(cmd, "participant %d: the name '%s' is longer than %d bytes", i + 1,
                                name, TOUR_NAME_MAX);
                goto out;
            }
            memcpy(names[i], name, strlen(name) + 1); /* <= TOUR_NAME_MAX bytes: fits */
        } else {
            /* the spec itself, cut to fit, unique */
            snprintf(names[i], sizeof names[i], "%.*s", TOUR_NAME_MAX - 3, arg);
            for (int rep = 2;; rep++) {
                bool taken = false;
                for (int j = 0; j < i; j++)
                    taken |= strcmp(names[j], names[i]) == 0;
                if (!taken)
                    break;
                char suffix[16];
                int sl = snprintf(suffix, sizeof suffix, "#%d", rep);
                snprintf(names[i], sizeof names[i], "%.*s%s", TOUR_NAME_MAX - sl, arg, suffix);
            }
        }
        if (!*sp) {
            cli_usage_error(cmd, "participant %d (%s) has an empty spec", i + 1, names[i]);
            goto out;
        }
        /* on a server, programs and registered bots are the server's to check */
        bool server_side = url && (strncmp(sp, "cmd:", 4) == 0 ||
                                   strncmp(sp, "cmd-stateless:", 14) == 0 ||
                                   strncmp(sp, "remote:", 7) == 0);
        int crc = server_side ? 0 : tour_run_check_spec(sp, g, &pc, err, sizeof err);
        if (crc) {
            cli_usage_error(cmd, "participant %d (%s): %s", i + 1, names[i], err);
            goto out;
        }
        parts[i].name = names[i];
        parts[i].spec = sp;
    }

    spec.game = g;
    spec.rules = rules;
    spec.participants = parts;
    spec.nparticipants = np;
    spec.cycles = (int)cycles;
    spec.rounds = (int)rounds;
    spec.best_of = (int)best_of;
    /* an SPRT stops when it decides: its default maximum is large */
    spec.games_per_pair = gpp ? gpp : spec.sprt.enabled ? 2000 : 2;
    spec.seed = seed;
    if (tour_spec_check(&spec, err, sizeof err)) {
        cli_usage_error(cmd, "%s", err);
        goto out;
    }

    if (url) {
        /* create_tournament (docs/protocol.md): what was given, the server's
         * defaults for the rest */
        json_t *msg = json_pack("{s:s, s:s, s:s, s:o, s:[], s:I}", "type", "create_tournament",
                                "format", tour_format_name(spec.format), "game", g->name, "rules",
                                wire_rules_json(g, &rules), "participants", "games_per_pair",
                                (json_int_t)spec.games_per_pair);
        json_t *pl = json_object_get(msg, "participants");
        for (int i = 0; i < np; i++)
            json_array_append_new(pl, json_pack("{s:s, s:s}", "name", parts[i].name, "spec",
                                                parts[i].spec));
        if (cycles != 1)
            json_object_set_new(msg, "cycles", json_integer(cycles));
        if (rounds)
            json_object_set_new(msg, "rounds", json_integer(rounds));
        if (best_of)
            json_object_set_new(msg, "best_of", json_integer(best_of));
        if (seed_set)
            json_object_set_new(msg, "seed", seed <= (uint64_t)INT64_MAX
                                                 ? json_integer((json_int_t)seed)
                                                 : json_real((double)seed));
        if (conc_set)
            json_object_set_new(msg, "concurrency", json_integer(conc));
        if (move_ms)
            json_object_set_new(msg, "time_control", json_pack("{s:I}", "move_ms", move_ms));
        if (policy_set) {
            const char *p = policy == TOUR_FAULT_RANDOM ? "random_move" : "forfeit";
            json_object_set_new(msg, "policies", json_pack("{s:s, s:s, s:s}", "timeout", p,
                                                           "illegal", p, "disconnect", p));
        }
        if (spec.sprt.enabled)
            json_object_set_new(msg, "sprt",
                                json_pack("{s:f, s:f, s:f, s:f, s:s}", "elo0", spec.sprt.elo0,
                                          "elo1", spec.sprt.elo1, "alpha", spec.sprt.alpha, "beta",
                                          spec.sprt.beta, "model",
                                          tour_sprt_model_name(spec.sprt.model)));
        if (spec.anchor)
            json_object_set_new(msg, "anchor", json_string(spec.anchor));
        if (spec.label)
            json_object_set_new(msg, "label", json_string(spec.label));
        rc = msg ? cli_tournament_on_server(url, admin, msg, 0, detach, json, quiet,
                                            server_bundles)
                 : CLI_FAIL;
        json_decref(msg);
        goto out;
    }

    /* the tournament: found again in --db (same spec), or new */
    int64_t done_before = 0;
    bool resumed = false;
    /* how --db is named in messages: a PostgreSQL connection string may hold
     * a password, so it is never echoed */
    const char *db_name = !db_path                   ? ""
                          : db_target_is_pg(db_path) ? "the PostgreSQL database"
                                                     : db_target_file(db_path);
    if (db_path) {
        if (tour_store_open(db_path, &store, err, sizeof err)) {
            fprintf(stderr, "tessera %s: %s\n", cmd, err);
            rc = CLI_FAIL;
            goto out;
        }
        int64_t id;
        int f = tour_store_find(store, &spec, &id, err, sizeof err);
        if (f < 0 ||
            (f == 1 && tour_store_load(store, id, TOUR_RESUME_REPLAY, &t, err, sizeof err))) {
            fprintf(stderr, "tessera %s: %s: %s\n", cmd, db_name, err);
            rc = CLI_FAIL;
            goto out;
        }
        resumed = f == 1;
    }
    if (!t) {
        if (tour_create(&spec, &t, err, sizeof err)) {
            cli_usage_error(cmd, "%s", err);
            goto out;
        }
        int64_t id;
        if (store && tour_store_create(store, t, &id, err, sizeof err)) {
            fprintf(stderr, "tessera %s: %s: %s\n", cmd, db_name, err);
            rc = CLI_FAIL;
            goto out;
        }
    }
    tour_counts cnt;
    tour_get_counts(t, &cnt);
    done_before = cnt.done;
    if (resumed && !quiet)
        fprintf(stderr,
                "tessera %s: resuming tournament %lld of %s: %lld of %lld games done already\n",
                cmd, (long long)tour_store_id(t), db_name, (long long)cnt.done,
                (long long)cnt.expected);

    /* --out DIR and its records/ */
    char recdir[4096] = "";
    if (out_dir) {
        snprintf(recdir, sizeof recdir, "%s/records", out_dir);
        if (make_dir(out_dir) || make_dir(recdir)) {
            fprintf(stderr, "tessera %s: --out %s: cannot make the folder: %s\n", cmd, out_dir,
                    strerror(errno));
            rc = CLI_USAGE;
            goto out;
        }
    }

    /* fault bundles: --bundles DIR, else --out DIR/faults, else the default */
    char faultdir[4096];
    snprintf(faultdir, sizeof faultdir, "%s/faults", out_dir ? out_dir : ".");
    if (!bundles)
        bundles = out_dir ? faultdir : CLI_BUNDLES_DIR;
    progress prog = {.t = t,
                     .tty = isatty(STDERR_FILENO) != 0,
                     .quiet = quiet,
                     .t0 = cli_now(),
                     .done0 = done_before,
                     .recdir = out_dir ? recdir : NULL,
                     .log = prog_log = out_dir ? cli_gamelog_create(recdir) : NULL,
                     .bundles = no_bundles ? NULL : bundles};
    tour_run_config rcfg;
    tour_run_config_default(&rcfg);
    rcfg.concurrency = (int)conc;
    rcfg.move_ms = move_ms;
    rcfg.policy = policy;
    rcfg.records = true;
    rcfg.players = pc;
    rcfg.bundles = !no_bundles;
    rcfg.source = "tessera tournament";
    rcfg.stop = &stop_flag;
    rcfg.on_start = on_start;
    rcfg.on_end = on_end;
    rcfg.on_turn = on_turn;
    rcfg.user = &prog;

    atomic_store(&stop_flag, false);
    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    pthread_mutex_init(&prog.lock, NULL);
    tour_get_counts(t, &prog.c);
    pthread_t tick;
    if (prog.tty && !quiet) {
        bar_draw(&prog);
        prog.ticking = pthread_create(&tick, NULL, ticker, &prog) == 0;
    }
    tour_run_stats st;
    int runrc = tour_run(t, &rcfg, &st, err, sizeof err);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (prog.ticking) {
        pthread_mutex_lock(&prog.lock);
        prog.ticking = false;
        pthread_mutex_unlock(&prog.lock);
        pthread_join(tick, NULL);
    }
    bar_clear(&prog);
    pthread_mutex_destroy(&prog.lock);
    if (runrc) {
        fprintf(stderr, "tessera %s: %s\n", cmd, err);
        rc = runrc == ENG_EINVAL || runrc == ENG_EUNKNOWN_BOT || runrc == ENG_EBAD_BOT_SPEC
                 ? CLI_USAGE
                 : CLI_FAIL;
    }
    prog.write_errors += cli_gamelog_errors(prog.log);
    if (prog.write_errors)
        fprintf(stderr, "tessera %s: %d record%s or log%s could not be written to %s\n", cmd,
                prog.write_errors, prog.write_errors == 1 ? "" : "s",
                prog.write_errors == 1 ? "" : "s", recdir);

    /* records of games finished in an earlier run, from the database */
    if (out_dir && store) {
        int64_t ng = tour_game_count(t);
        for (int64_t id = 0; id < ng; id++) {
            tour_game gm;
            char path[4200];
            record_path(recdir, id, path, sizeof path);
            if (tour_get_game(t, id, &gm) || gm.status != TOUR_DONE || access(path, F_OK) == 0)
                continue;
            char *text = NULL;
            if (tour_store_record(store, tour_store_id(t), id, &text, err, sizeof err) == 1 &&
                write_file(path, text))
                fprintf(stderr, "tessera %s: %s: cannot write: %s\n", cmd, path, strerror(errno));
            free(text);
        }
    }

    tour_standings *s = tour_standings_new(t);
    if (!s) {
        fprintf(stderr, "tessera %s: out of memory for the standings\n", cmd);
        rc = CLI_FAIL;
        goto out;
    }
    bool report_failed = out_dir && tour_report_write(t, out_dir, err, sizeof err);
    if (report_failed)
        fprintf(stderr, "tessera %s: %s\n", cmd, err);
    if (out_dir && !report_failed && !no_bundles && strcmp(bundles, faultdir) == 0)
        report_failed = link_faults(out_dir);
    print_standings(t, s, &st, done_before);
    if (out_dir)
        printf("\nreports: %s/; records: %s/game-NNNNNN.json%s%s%s\n", out_dir, recdir,
               cli_gamelog_written(prog.log) ? "; programs' logs (debug and stderr, turn by turn): "
                                             : "",
               cli_gamelog_written(prog.log) ? recdir : "",
               cli_gamelog_written(prog.log) ? "/game-NNNNNN.PS.log" : "");
    if (st.stopped && !s->done)
        fprintf(stderr, "tessera %s: stopped: %lld of %lld games done%s\n", cmd,
                (long long)s->counts.done, (long long)s->counts.expected,
                store ? "; run the same command again to continue" : "");
    if (json) {
        json_t *o = tour_report_json(t, s, false);
        if (o) {
            json_object_set_new(
                o, "run",
                json_pack("{s:I, s:I, s:f, s:i, s:b, s:b, s:s, s:I}", "played",
                          (json_int_t)st.played, "done_before", (json_int_t)done_before, "seconds",
                          round(st.seconds * 1e3) / 1e3, "concurrency", (int)conc, "resumed",
                          resumed, "stopped", st.stopped, "on_fault",
                          tour_fault_policy_name(policy), "move_ms", (json_int_t)move_ms));
            if (store)
                json_object_set_new(o, "tournament", json_integer(tour_store_id(t)));
        }
        char *text =
            o ? json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII | JSON_REAL_PRECISION(10)) : NULL;
        json_decref(o);
        if (text)
            printf("%s\n", text);
        else
            fprintf(stderr, "tessera %s: cannot format the JSON result\n", cmd);
        free(text);
    }
    tour_standings_free(s);
    if (!runrc)
        rc = (st.stopped && !tour_is_done(t)) || report_failed || prog.write_errors ? CLI_FAIL
                                                                                    : CLI_OK;
out:
    cli_gamelog_destroy(prog_log);
    if (t)
        tour_store_detach(t);
    tour_destroy(t);
    tour_store_close(store);
    free(parts);
    free(names);
    return rc;
}
