/*
 * experiment.h — the seed papers' tables, one experiment each (prefix exp_):
 * `tessera experiment NAME` plays the rows of a table on the tournament
 * runner, keeps every game in the tournament's store (SQLite or
 * PostgreSQL; so a stopped experiment continues where it was), and sets
 * our figures beside the paper's with a verdict per row.
 * docs/experiments.md is the user's guide.
 *
 * An experiment is a list of rows. A row is a head-to-head between two bot
 * specs, A and B, over paired games (each pair deals the same tiles with the
 * seats swapped), and the paper's result of the same pairing from A's side
 * (wins, losses, draws) with the cell(s) of the table it comes from. The
 * definitions, paper figures included, live in one JSON data file per
 * experiment (experiment/data/NAME.json, compiled into the program).
 *
 * A row is played as a round-robin of two participants named "A" and "B",
 * labelled "NAME-ROW", seed S, N games, two seats of the experiment's game
 * under its rules (the data file's "game", default Carcassonne, and "rules",
 * default none): the same tournament `tessera tournament round-robin --game
 * GAME [--rule K=V]... --games-per-pair N --seed S --name NAME-ROW A=SPEC_A
 * B=SPEC_B` plays, so runs made with that command in the same --db are found
 * again. Nothing here knows a particular game.
 *
 * Nothing is printed here: progress goes through a callback, reports are
 * strings the caller owns (experiment/report.c).
 */
#ifndef TESSERA_EXPERIMENT_EXPERIMENT_H
#define TESSERA_EXPERIMENT_EXPERIMENT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct json_t;
struct eng_game;
struct eng_rules;

/* Limits, with their reasons. */
#define EXP_MAX_ROWS                                                                               \
    96                       /* the largest table, the SIEA-MCTS paper's 13-controller league      \
                                (Tables X and XI), has 78 pairs: a row is a pair of cells */
#define EXP_MAX_GAMES 100000 /* per row: as tessera match's --games */
#define EXP_Z95       1.959963984540054 /* two-sided 95% normal quantile */

#define EXP_MAX_RULES 8 /* rule settings of one experiment (a game has at most a few options) */

/* The paper's figure of a row, from A's side: its W-L-D, or, for the papers
 * that print only a rate (the EvoMCTS paper: "wins out of 1000, a draw
 * counts as half"), the rate and the number of games. */
typedef struct exp_paper {
    bool present;       /* false: the paper has no such cell (the row is ours alone) */
    bool wld;           /* w, l, d are the paper's; false: only rate and n are */
    int64_t w, l, d;    /* A's wins, losses, draws (wld) */
    double rate;        /* A's scoring rate (W + D/2) / n */
    int64_t n;          /* games */
    const char *source; /* the cell(s) it sums, e.g. "A first 45-4-1, B first 48-2-0" */
} exp_paper;

typedef struct exp_row {
    const char *id;    /* unique within the experiment: [a-z0-9._-]+ */
    const char *label; /* shown in reports */
    const char *a, *b; /* bot specs */
    int64_t games;     /* default games (even) */
    double x;          /* abscissa of the plot (0: none) */
    exp_paper paper;
} exp_row;

/* League points of one controller, the papers' ranking tables (SIEA-MCTS
 * paper, Tables V, VII, IX; docs/league.md): 4 per match won, 2 drawn, bonus
 * win and loss points; PD the sum of the matches' mean score differences. */
typedef struct exp_league {
    int points, bwp, blp, won, lost, drawn;
    double pd;
} exp_league;

#define EXP_MAX_RANKED 16 /* controllers in a ranking table (Table XI ranks 13) */

/* A controller of a ranking table: every row where its spec is A or B adds
 * that row's two league matches (one per seat order) to its points. */
typedef struct exp_ranked {
    const char *label; /* as the paper names it, e.g. "K = √2" */
    const char *spec;  /* the bot spec, exactly as in the rows */
    int paper_rank;    /* 1-based */
    exp_league paper;
} exp_ranked;

typedef struct exp_def {
    const char *name;       /* e.g. "muller-5.5" */
    const char *title;      /* one line */
    const char *paper;      /* short name, e.g. "Müller's thesis" */
    const char *anchor;     /* docs/references.md anchor, e.g. "muller-thesis" */
    const char *table;      /* e.g. "Table 5.5" */
    const char *conclusion; /* the paper's conclusion the table supports */
    const char *setup;      /* how our rows translate the paper's set-up */
    const char *game;       /* the game's registered name (default "carcassonne") */
    int nrules;             /* rule settings, "key=value" (eng_rules_set), two seats always */
    const char *rules[EXP_MAX_RULES];
    const char *plot_x; /* the plot's x label, or NULL: no plot */
    bool plot_log2;     /* x on a log2 scale */
    int nrows;
    exp_row rows[EXP_MAX_ROWS];
    const char *ranking_table; /* e.g. "Table V", or NULL: no ranking */
    int nranked;
    exp_ranked ranked[EXP_MAX_RANKED];
    struct json_t *json; /* owns the strings above */
} exp_def;

/* The names of the built-in experiments, in a stable order. */
int exp_count(void);
const char *exp_name(int i);
/* Load a built-in experiment by name. Returns 0, or ENG_EINVAL (an unknown
 * name: err lists the names; a bad data file, a bug: err says where) or
 * ENG_ENOMEM. Free with exp_def_free. */
int exp_load(const char *name, exp_def **out, char *err, size_t errcap);
/* Parse a definition from JSON text (the data file format, docs/experiments.md).
 * Same returns as exp_load. */
int exp_parse(const char *text, exp_def **out, char *err, size_t errcap);
void exp_def_free(exp_def *d);
/* The game and rules d's rows are played under: d->game, two seats, then
 * d->rules in order. Returns 0 or ENG_EINVAL (err says why). */
int exp_game_rules(const exp_def *d, const struct eng_game **g, struct eng_rules *rules, char *err,
                   size_t errcap);

/* Our result of a row. */
typedef enum exp_verdict {
    EXP_NOT_RUN,  /* no finished game */
    EXP_NO_PAPER, /* ours alone */
    EXP_AGREES,   /* the two rates agree within the noise (two-proportion test, 95%) */
    EXP_DIFFERS,  /* they do not */
} exp_verdict;
const char *exp_verdict_name(exp_verdict v); /* "not run", "ours only", "agrees", "differs" */

typedef struct exp_row_result {
    int64_t expected, done;        /* games of the row, and finished */
    int64_t w, l, d;               /* A's */
    double rate, lo, hi;           /* A's scoring rate (W + D/2)/n and its Wilson 95% interval */
    double score_a, score_b;       /* mean game scores */
    double elo, elo_lo, elo_hi;    /* A's Bradley-Terry rating against B, 95% (Elo points) */
    double ms_a, ms_b;             /* thinking time per decision */
    exp_league league_a, league_b; /* the row's two league matches (one per seat order) */
    double paper_rate, paper_lo, paper_hi; /* the paper's rate and Wilson 95% interval */
    double z; /* (ours - paper) / pooled standard error (0 when not both) */
    exp_verdict verdict;
    double seconds; /* wall time this run spent on the row */
    int64_t played; /* games this run played */
    bool resumed;   /* the row was found in the store */
} exp_row_result;

/* Options of a run. */
typedef struct exp_options {
    int64_t games;           /* > 0: games of every row (rounded up to even); 0: each row's own */
    uint64_t seed;           /* default 1 */
    int jobs;                /* worker threads, default 1 */
    bool quick;              /* tiny budgets (exp_quick_spec); unless games, 2 games a row */
    bool play;               /* false: only read the store (report what is there) */
    const bool *only;        /* optional, one per row: play only the rows marked (the others
                                are read from the store, as with !play) */
    const atomic_bool *stop; /* optional: raised, the run stops after saving */
    /* Progress, optional: a game of row r ended; counts are the row's. */
    void (*on_game)(const exp_def *d, int row, int64_t done, int64_t expected, void *user);
    /* A row starts (played or found done) / ends. */
    void (*on_row)(const exp_def *d, int row, bool start, const exp_row_result *r, void *user);
    void *user;
} exp_options;
void exp_options_default(exp_options *o);

/* The spec of a bot with the quick mode's small budget appended (sims=8,
 * EA: gens=1, fitness_sims=2; star: depth=1; others unchanged), into buf.
 * Returns 0 or ENG_EINVAL when it does not fit. */
int exp_quick_spec(const char *spec, char *buf, size_t cap);

/* Run (or, with !play, read) every row of d in the tournament store at
 * db_path (tour_store_open's target: a SQLite file, created when missing,
 * or a PostgreSQL connection string). res has d->nrows entries. Returns 0 when every row
 * is done or the run was stopped (*stopped says which), or a negative code
 * with a reason: a bad spec (ENG_EINVAL, ENG_EUNKNOWN_BOT, ENG_EBAD_BOT_SPEC),
 * a storage failure (ENG_ESTORAGE), out of memory. */
int exp_run(const exp_def *d, const char *db_path, const exp_options *o, exp_row_result *res,
            bool *stopped, char *err, size_t errcap);

/* The verdict and paper interval of a row, from the figures in r (w, l, d,
 * done) and the paper; fills paper_rate/lo/hi, z, verdict. */
void exp_judge(const exp_paper *p, exp_row_result *r);

/* Our ranking table (d->ranked): league points summed over the rows each
 * controller plays, ranked by points then PD (the papers' rule). out[i] is
 * controller i's sum, rank[i] its 1-based rank. Rows not run count nothing. */
void exp_ranking(const exp_def *d, const exp_row_result *res, exp_league *out, int *rank);

/* Wilson score interval of a rate over n games at normal quantile z. */
void exp_wilson(double rate, double n, double z, double *lo, double *hi);

/* Reports of a run (malloc'd, NUL-terminated, NULL when out of memory):
 * Markdown (the paper's table and ours side by side, a verdict per row),
 * CSV (one line per row), JSON (new reference), and an SVG plot of the
 * scoring rate against the rows' x (NULL when d has no plot). */
char *exp_report_markdown(const exp_def *d, const exp_row_result *res, const exp_options *o);
char *exp_report_csv(const exp_def *d, const exp_row_result *res);
struct json_t *exp_report_json(const exp_def *d, const exp_row_result *res, const exp_options *o);
char *exp_report_svg(const exp_def *d, const exp_row_result *res);
/* The terminal table (plain text, fixed columns). */
char *exp_report_text(const exp_def *d, const exp_row_result *res);

#endif
