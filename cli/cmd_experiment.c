/*
 * cmd_experiment.c — `tessera experiment NAME [options]` and `tessera
 * experiment --list`: one of the seed papers' tables played again here
 * (experiment/experiment.h), the paper's figures and ours side by side with
 * a verdict per row, on stdout and as Markdown, CSV, JSON and an SVG plot in
 * --out DIR. Every game is kept in DIR/experiments.db (or --db), so the same
 * command continues a stopped experiment. docs/experiments.md is the guide.
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "experiment/experiment.h"
#include "tournament/runner.h"

static const char *const cmd = "experiment";

const char cmd_experiment_usage[] =
    "usage: tessera experiment NAME [options]\n"
    "       tessera experiment --list\n"
    "\n"
    "Plays one of the seed papers' tables again (Müller's thesis, the SIEA-MCTS and\n"
    "ES-MCTS papers) and prints the paper's figures and ours side by side: for every\n"
    "row the paper's W-L-D and scoring rate, ours with its 95% Wilson interval, and\n"
    "whether the two agree within the noise. Rows are paired games (the same tiles\n"
    "with the seats swapped) on the tournament runner; every game is stored as it\n"
    "ends, so the same command continues a stopped experiment. See\n"
    "docs/experiments.md.\n"
    "  --list         the experiments: name, paper and table, rows, games\n"
    "  --games N      games of every row (default: each row's own, from the paper's\n"
    "                 counts scaled to what these machines allow), rounded up to even\n"
    "  --quick        tiny budgets and (unless --games) 2 games a row: checks that\n"
    "                 everything runs; its figures mean nothing\n"
    "  --seed S       seed of the tiles and the bots (default 1)\n"
    "  --jobs J       games played at once (default: the number of online CPUs)\n"
    "  --out DIR      where NAME.md, NAME.csv, NAME.json, NAME.svg (plots) and the\n"
    "                 store go (default: experiments)\n"
    "  --db FILE|URL  the store: a SQLite file (default: DIR/experiments.db) or a\n"
    "                 PostgreSQL connection string\n"
    "  --rows ID,...  play only these rows (ids as in NAME.csv); the others are\n"
    "                 reported from the store\n"
    "  --report       play nothing: report what the store holds\n"
    "  --json         print the result as one JSON object (last line)\n"
    "  --quiet        no progress on stderr\n"
    "SIGINT/SIGTERM stop cleanly; the same command continues.\n"
    "Exit status: 0 every row is done (or --report); 1 it did not finish (stopped, a\n"
    "storage failure, a file that could not be written); 2 bad arguments.\n";

static atomic_bool stop_flag;

static void on_signal(int sig)
{
    (void)sig;
    atomic_store(&stop_flag, true);
}

typedef struct progress {
    bool quiet, tty;
    double t0;
    int64_t last_done;
} progress;

static void on_game(const exp_def *d, int row, int64_t done, int64_t expected, void *user)
{
    progress *p = user;
    if (p->quiet)
        return;
    double spent = cli_now() - p->t0;
    fprintf(stderr, "%stessera experiment: %s row %d/%d (%s): %lld/%lld games, %.0f s%s",
            p->tty ? "\r" : "", d->name, row + 1, d->nrows, d->rows[row].label, (long long)done,
            (long long)expected, spent, p->tty ? "\033[K" : "\n");
    fflush(stderr);
}

static void on_row(const exp_def *d, int row, bool start, const exp_row_result *r, void *user)
{
    progress *p = user;
    if (p->quiet)
        return;
    if (start) {
        p->t0 = cli_now();
        fprintf(stderr, "tessera experiment: %s row %d/%d (%s): %s%lld of %lld games done\n",
                d->name, row + 1, d->nrows, d->rows[row].label, r->resumed ? "resumed, " : "",
                (long long)r->done, (long long)r->expected);
        return;
    }
    if (p->tty)
        fprintf(stderr, "\r\033[K");
    if (r->done)
        fprintf(stderr,
                "tessera experiment: %s row %d/%d (%s): %lld games, A %lld-%lld-%lld, rate %.1f%% "
                "(%.1f-%.1f), %s; %lld played in %.0f s\n",
                d->name, row + 1, d->nrows, d->rows[row].label, (long long)r->done, (long long)r->w,
                (long long)r->l, (long long)r->d, 100 * r->rate, 100 * r->lo, 100 * r->hi,
                exp_verdict_name(r->verdict), (long long)r->played, r->seconds);
    else
        fprintf(stderr, "tessera experiment: %s row %d/%d (%s): not run\n", d->name, row + 1,
                d->nrows, d->rows[row].label);
}

static int list(void)
{
    printf("%-12s %5s %6s  %s\n", "experiment", "rows", "games", "paper, table: title");
    for (int i = 0; i < exp_count(); i++) {
        exp_def *d;
        char err[512];
        if (exp_load(exp_name(i), &d, err, sizeof err)) {
            fprintf(stderr, "tessera %s: %s\n", cmd, err);
            return CLI_FAIL;
        }
        int64_t games = 0;
        for (int r = 0; r < d->nrows; r++)
            games += d->rows[r].games;
        printf("%-12s %5d %6lld  %s, %s: %s\n", d->name, d->nrows, (long long)games, d->paper,
               d->table, d->title);
        exp_def_free(d);
    }
    return CLI_OK;
}

/* --rows ID,ID,...: mark the rows to play; an unknown or empty id is an error
 * that lists the experiment's ids. */
static int select_rows(const exp_def *d, const char *list, bool *only)
{
    const char *p = list;
    for (;;) {
        size_t n = strcspn(p, ",");
        int found = -1;
        for (int i = 0; i < d->nrows && n > 0; i++)
            if (strlen(d->rows[i].id) == n && strncmp(d->rows[i].id, p, n) == 0)
                found = i;
        if (found < 0) {
            fprintf(stderr, "tessera %s: --rows: %s '%.*s'; the rows of %s:", cmd,
                    n ? "unknown row" : "an empty row id in", n ? (int)n : (int)strlen(list),
                    n ? p : list, d->name);
            for (int i = 0; i < d->nrows; i++)
                fprintf(stderr, " %s", d->rows[i].id);
            fprintf(stderr, "\n");
            return -1;
        }
        only[found] = true;
        if (!p[n])
            return 0;
        p += n + 1;
    }
}

static int write_text(const char *dir, const char *name, const char *ext, const char *text)
{
    char path[4096], tmp[4200];
    snprintf(path, sizeof path, "%s/%s.%s", dir, name, ext);
    snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    bool ok = f && text && fputs(text, f) >= 0;
    ok = f && fclose(f) == 0 && ok;
    if (!ok || rename(tmp, path) != 0) {
        fprintf(stderr, "tessera %s: cannot write %s: %s\n", cmd, path,
                text ? strerror(errno) : "out of memory");
        unlink(tmp);
        return -1;
    }
    return 0;
}

int cmd_experiment(int argc, char **argv)
{
    static const struct option opts[] = {
        {"list", no_argument, NULL, 'l'},       {"games", required_argument, NULL, 'n'},
        {"quick", no_argument, NULL, 'Q'},      {"seed", required_argument, NULL, 's'},
        {"jobs", required_argument, NULL, 'j'}, {"out", required_argument, NULL, 'o'},
        {"db", required_argument, NULL, 'd'},   {"report", no_argument, NULL, 'r'},
        {"rows", required_argument, NULL, 'R'}, {"json", no_argument, NULL, 'J'},
        {"quiet", no_argument, NULL, 'q'},      {NULL, 0, NULL, 0},
    };
    exp_options o;
    exp_options_default(&o);
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    o.jobs = ncpu > 0 ? (int)(ncpu > TOUR_RUN_MAX_THREADS ? TOUR_RUN_MAX_THREADS : ncpu) : 1;
    const char *out_dir = "experiments", *db = NULL, *rows = NULL;
    bool do_list = false, json = false, quiet = false;
    long long v;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        switch (c) {
        case 'l': do_list = true; break;
        case 'n':
            if (cli_int(cmd, "--games", optarg, 1, EXP_MAX_GAMES, &v))
                return CLI_USAGE;
            o.games = v;
            break;
        case 'Q': o.quick = true; break;
        case 's':
            if (cli_seed(cmd, optarg, &o.seed))
                return CLI_USAGE;
            break;
        case 'j':
            if (cli_int(cmd, "--jobs", optarg, 1, TOUR_RUN_MAX_THREADS, &v))
                return CLI_USAGE;
            o.jobs = (int)v;
            break;
        case 'o': out_dir = optarg; break;
        case 'd': db = optarg; break;
        case 'r': o.play = false; break;
        case 'R': rows = optarg; break;
        case 'J': json = true; break;
        case 'q': quiet = true; break;
        case ':': return cli_usage_error(cmd, "%s needs a value", argv[optind - 1]);
        default: return cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (do_list) {
        if (optind < argc)
            return cli_usage_error(cmd, "--list takes no experiment name");
        return list();
    }
    if (optind >= argc)
        return cli_usage_error(cmd, "which experiment? (`tessera experiment --list`)");
    if (argc - optind > 1)
        return cli_usage_error(cmd, "one experiment at a time; unexpected '%s'", argv[optind + 1]);
    if (!*out_dir)
        return cli_usage_error(cmd, "--out needs a folder");
    char err[1024];
    exp_def *d = NULL;
    int rc = exp_load(argv[optind], &d, err, sizeof err);
    if (rc) {
        fprintf(stderr, "tessera %s: %s\n", cmd, err);
        return rc == ENG_EINVAL ? CLI_USAGE : CLI_FAIL;
    }
    bool only[EXP_MAX_ROWS] = {false};
    if (rows && select_rows(d, rows, only)) {
        exp_def_free(d);
        return CLI_USAGE;
    }
    if (rows)
        o.only = only;
    if (mkdir(out_dir, 0777) && errno != EEXIST) {
        fprintf(stderr, "tessera %s: --out %s: cannot make the folder: %s\n", cmd, out_dir,
                strerror(errno));
        exp_def_free(d);
        return CLI_USAGE;
    }
    struct stat sb;
    if (stat(out_dir, &sb) || !S_ISDIR(sb.st_mode)) {
        fprintf(stderr, "tessera %s: --out %s is not a folder\n", cmd, out_dir);
        exp_def_free(d);
        return CLI_USAGE;
    }
    char dbpath[4096];
    snprintf(dbpath, sizeof dbpath, "%s/experiments.db", out_dir);
    if (db)
        snprintf(dbpath, sizeof dbpath, "%s", db);

    progress p = {.quiet = quiet, .tty = isatty(STDERR_FILENO) != 0, .t0 = cli_now()};
    o.stop = &stop_flag;
    o.on_game = on_game;
    o.on_row = on_row;
    o.user = &p;
    exp_row_result *res = calloc((size_t)d->nrows, sizeof *res);
    if (!res) {
        fprintf(stderr, "tessera %s: out of memory\n", cmd);
        exp_def_free(d);
        return CLI_FAIL;
    }
    atomic_store(&stop_flag, false);
    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    bool stopped = false;
    rc = exp_run(d, dbpath, &o, res, &stopped, err, sizeof err);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (rc) {
        fprintf(stderr, "tessera %s: %s\n", cmd, err);
        rc = rc == ENG_EINVAL || rc == ENG_EUNKNOWN_BOT || rc == ENG_EBAD_BOT_SPEC ? CLI_USAGE
                                                                                   : CLI_FAIL;
        free(res);
        exp_def_free(d);
        return rc;
    }
    /* the reports */
    char *text = exp_report_text(d, res);
    if (text)
        fputs(text, stdout);
    free(text);
    int bad = 0;
    char *md = exp_report_markdown(d, res, &o);
    bad |= write_text(out_dir, d->name, "md", md);
    free(md);
    char *csv = exp_report_csv(d, res);
    bad |= write_text(out_dir, d->name, "csv", csv);
    free(csv);
    json_t *jo = exp_report_json(d, res, &o);
    char *jt = jo ? json_dumps(jo, JSON_INDENT(1) | JSON_REAL_PRECISION(6)) : NULL;
    bad |= write_text(out_dir, d->name, "json", jt);
    free(jt);
    if (d->plot_x) {
        char *svg = exp_report_svg(d, res);
        bad |= write_text(out_dir, d->name, "svg", svg);
        free(svg);
    }
    if (json) {
        char *line = jo ? json_dumps(jo, JSON_COMPACT | JSON_REAL_PRECISION(6)) : NULL;
        if (line)
            printf("%s\n", line);
        else
            fprintf(stderr, "tessera %s: cannot format the JSON result\n", cmd);
        free(line);
    }
    json_decref(jo);
    bool all_done = true; /* of the rows this run was asked to play */
    for (int i = 0; i < d->nrows; i++)
        if (!o.only || o.only[i])
            all_done &= res[i].done >= res[i].expected && res[i].expected > 0;
    if (stopped)
        fprintf(stderr, "tessera %s: stopped; run the same command again to continue\n", cmd);
    rc = bad ? CLI_FAIL : (o.play && !all_done) ? CLI_FAIL : CLI_OK;
    free(res);
    exp_def_free(d);
    return rc;
}
