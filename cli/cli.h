/*
 * cli.h — shared pieces of the `tessera` command-line program: the
 * subcommand table and the argument helpers every subcommand uses, so that
 * every bad argument gets the same kind of message ("tessera play: --players
 * needs an integer from 2 to 5, got 'x'") and exit code.
 */
#ifndef TESSERA_CLI_H
#define TESSERA_CLI_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "engine/eng.h"

/* Exit codes of every subcommand. */
enum {
    CLI_OK = 0,      /* success */
    CLI_FAIL = 1,    /* the work failed (I/O, resources) */
    CLI_USAGE = 2,   /* bad arguments or invalid input (e.g. an illegal record) */
};

typedef struct cli_command {
    const char *name;    /* "play" */
    const char *summary; /* one line for `tessera --help` */
    const char *usage;   /* full text for `tessera play --help` */
    int (*run)(int argc, char **argv); /* argv[0] is the subcommand name */
} cli_command;

/* The subcommands, NULL-name terminated. */
extern const cli_command cli_commands[];

/* Print "tessera CMD: <message>" and a hint to stderr; returns CLI_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Print the usage text of a command to stdout. */
void cli_print_usage(const char *cmd);

/* Parse an integer option value in [min, max]; on failure print an error
 * naming the option and return -1. */
int cli_int(const char *cmd, const char *opt, const char *val, long long min, long long max,
            long long *out);
/* Parse a 64-bit seed (decimal, any value of uint64). */
int cli_seed(const char *cmd, const char *val, uint64_t *out);
/* Look up a game by name or print the list of games; NULL on failure. */
const eng_game *cli_game(const char *cmd, const char *name);
/* Apply one --rule K=V (or players=) to rules; prints the reason on failure. */
int cli_rule(const char *cmd, const eng_game *g, eng_rules *r, const char *kv);
/* Resolve GAME and build its rules from --players (may be NULL) and the
 * --rule K=V options, printing what is wrong. Returns the game, or NULL
 * (the caller exits with CLI_USAGE). */
const eng_game *cli_game_rules(const char *cmd, const char *name, const char *players,
                               const char *const *rules_kv, int nrules, eng_rules *rules);
/* The --players N and --rule K=V options that the commands taking a GAME
 * share: collected while parsing, applied once the game is known. */
#define CLI_MAX_RULES 64
typedef struct cli_game_opts {
    const char *players; /* the --players value, or NULL */
    const char *rules_kv[CLI_MAX_RULES];
    int nrules;
} cli_game_opts;
/* Keep one --rule K=V; prints and returns -1 past CLI_MAX_RULES. */
int cli_game_opts_rule(const char *cmd, cli_game_opts *o, const char *kv);
/* The one GAME operand left after the options (argv[first..argc)): names
 * what is missing or extra, then resolves it with o as cli_game_rules does.
 * NULL on any error, already printed (the caller exits with CLI_USAGE). */
const eng_game *cli_game_operand(const char *cmd, int argc, char **argv, int first,
                                 const cli_game_opts *o, eng_rules *rules);
/* Final check of the rules (cross-option rules). */
int cli_rules_check(const char *cmd, const eng_game *g, const eng_rules *r);

/* The spec of a program from its command words (those after `--`): "cmd:"
 * or "cmd-stateless:" and the words joined by spaces — there is no shell,
 * so a word may not be empty nor hold a space. Writes out[cap]; returns 0,
 * or CLI_USAGE with the reason printed. */
int cli_program_spec(const char *cmd, char **words, int n, bool stateless, char *out, size_t cap);

/* Write fault bundle b (players/bundle.h) of game `game`, seat `seat` into
 * folder dir as game-NNNNNN-PK.json and tell, on stderr, how to replay it;
 * its path into path (pathcap bytes) unless path is NULL.
 * Returns 0, or -1 with the reason printed. */
int cli_keep_bundle(const char *cmd, const char *dir, const json_t *b, long long game, int seat,
                    char *path, size_t pathcap);
#define CLI_BUNDLES_DIR "tessera-faults" /* where match and tournament keep them by default */
/* The Markdown section "Faults" listing the bundles in folder dir (linked
 * as rel/NAME), with the replay command of each; NULL when there are none
 * (or out of memory). malloc'd. At most CLI_FAULTS_LISTED are listed. */
char *cli_faults_markdown(const char *dir, const char *rel);
#define CLI_FAULTS_LISTED 200 /* a report lists this many bundles, then counts the rest */

/* Read a game record whole from path ('-': standard input), never past
 * REC_MAX_BYTES + 1 bytes. Returns CLI_OK with *buf (malloc'd, *len bytes);
 * CLI_USAGE when path names no readable file (missing, a directory, no
 * permission), CLI_FAIL when reading it fails; *why then says why. */
int cli_read_record(const char *path, char **buf, size_t *len, const char **why);

/* The one RECORD operand left after the options (argv[first..argc)), or
 * NULL with what is missing or extra printed (the caller exits CLI_USAGE). */
const char *cli_record_operand(const char *cmd, int argc, char **argv, int first);
/* Print o as one compact JSON line (an out-of-memory object when o is NULL
 * or cannot be written) and drop the reference. */
void cli_print_json(json_t *o);

/* Seconds on a monotonic clock. */
double cli_now(void);

/* The web UI's files `tessera serve` serves by default: the installed copy
 * (DATADIR/tessera/web relative to this binary), else the source tree's
 * web/; NULL when neither has an index.html. */
const char *cli_web_root(void);

int cmd_play(int argc, char **argv);
int cmd_bench(int argc, char **argv);
extern const char cmd_games_usage[], cmd_match_usage[], cmd_tournament_usage[];
int cmd_games(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_match(int argc, char **argv);
/* `tessera tournament`: a local tournament (cmd_tournament.c, tournament/runner.h). */
int cmd_tournament(int argc, char **argv);
/* `tessera experiment`: a seed paper's table played again (cmd_experiment.c, experiment/). */
extern const char cmd_experiment_usage[];
int cmd_experiment(int argc, char **argv);
int cmd_bots(int argc, char **argv);
/* `tessera bot`: play a seat of a remote match (cmd_bot.c, client/botclient.h). */
int cmd_bot(int argc, char **argv);
/* `tessera bridge`: the same for a program given after -- (cmd_bot.c). */
int cmd_bridge(int argc, char **argv);
/* `tessera doctor`: check a bot before it plays (cmd_doctor.c, doctor/doctor.h). */
int cmd_doctor(int argc, char **argv);
/* `tessera bench GAME --bot SPEC`: the bot benchmark (cmd_bench_bot.c). */
int cmd_bench_bot(int argc, char **argv);
/* `tessera evolve`: EvoMCTS's offline evolution (cmd_evolve.c) and its help. */
int cmd_evolve(int argc, char **argv);
extern const char cmd_evolve_usage[];

/* ---- `tessera tournament --url`: a tournament on a server (tour_server.c) ---- */

/* Create (create: a create_tournament message without id and token, to
 * which they are added) and start it with the admin token, print its page's address,
 * then follow it to its end and print the server's standings (detach: leave
 * it running); or, create NULL, follow tournament watch_id. With the admin
 * token and bundles (a folder), each game lost by a program's fault has its
 * fault bundle fetched (get_record) and kept there. Returns a CLI_* exit
 * code, the reason printed. */
int cli_tournament_on_server(const char *url, const char *admin, json_t *create, int64_t watch_id,
                             bool detach, bool json, bool quiet, const char *bundles);
/* The standings table from the rows of a standings JSON (tournament/
 * report.h's), and the legend under it: both halves of `tessera tournament`. */
void cli_standings_print(const json_t *rows);
void cli_standings_legend(void);

/* ---- each program's game log, beside the records (gamelog.c) ---- */

struct player_result;
typedef struct cli_gamelog cli_gamelog;
/* Logs written into recdir (DIR/records) as game-NNNNNN.PS.log. NULL: out
 * of memory. */
cli_gamelog *cli_gamelog_create(const char *recdir);
/* A program's turn (turn > 0: its verdict, debug, stderr) or, turn 0, its
 * game's end (the stderr after game_over), after which the log is written.
 * From the runner's on_turn: any thread, a game's calls in order. */
void cli_gamelog_turn(cli_gamelog *L, int64_t game, int seat, const char *spec, int turn,
                      const struct player_result *r);
/* The path of a (game, seat)'s log. */
void cli_gamelog_path(const cli_gamelog *L, int64_t game, int seat, char *buf, size_t cap);
/* Logs written, and logs that could not be (at the end of the run). */
int cli_gamelog_written(const cli_gamelog *L);
int cli_gamelog_errors(const cli_gamelog *L);
void cli_gamelog_destroy(cli_gamelog *L);

/* ---- subcommands that talk to a running server (remote.c) ---- */

/* The server the remote subcommands talk to unless --url says otherwise:
 * `tessera serve`'s default port on this machine. */
#define CLI_DEFAULT_URL "ws://127.0.0.1:8080/"
/* Send one protocol message (msg, borrowed) to the server at url; on
 * success *reply is its reply (a new reference, never an `error`). On
 * failure prints "tessera CMD: [ABOUT: ]..." naming the URL and returns
 * CLI_FAIL (no server answers, or it failed on its side) or CLI_USAGE (a bad
 * URL, or the server refused what was asked: an unknown match or bot, a bad
 * rule). */
int cli_request(const char *cmd, const char *url, const char *about, json_t *msg, json_t **reply);
/* Read the admin token from the first line of path (`tessera serve
 * --admin-token-file` writes it) into buf. 0, or CLI_USAGE with the reason
 * printed (no such file, an empty one). */
#define CLI_TOKEN_MAX 128
int cli_admin_token_file(const char *cmd, const char *path, char *buf, size_t cap);
/* s as one shell word (quoted when it needs it), for command lines printed
 * to be pasted. Writes to buf, returns buf. */
const char *cli_shell_word(const char *s, char *buf, size_t cap);
/* Usage texts and entry points (cmd_create.c, cmd_matches.c, cmd_export.c). */
extern const char cmd_create_usage[], cmd_matches_usage[], cmd_export_usage[];
int cmd_create(int argc, char **argv);
int cmd_matches(int argc, char **argv);
int cmd_export(int argc, char **argv);
/* `tessera analyze`: a finished game searched again (cmd_analyze.c, analysis/). */
extern const char cmd_analyze_usage[];
int cmd_analyze(int argc, char **argv);
/* `tessera rate`: a rating on the reference ladder (cmd_rate.c, tournament/rate.h). */
extern const char cmd_rate_usage[];
int cmd_rate(int argc, char **argv);
/* `tessera vectors`: conformance vectors (cmd_vectors.c, protocol/vectors.h). */
extern const char cmd_vectors_usage[];
int cmd_vectors(int argc, char **argv);

#endif
