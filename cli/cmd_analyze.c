/*
 * cmd_analyze.c — `tessera analyze RECORD [--bot SPEC] [--json] [--out DIR]`:
 * a finished game searched again position by position (analysis/analysis.h,
 * docs/analysis.md), its summary printed, its JSON, Markdown and SVG graph
 * written where asked.
 *
 * The record is read as `tessera replay` reads it (cli_read_record) and a
 * bad one fails the same way: "tessera analyze: FILE: turn N: <reason>
 * (<code>)", exit 2, and with --json one object {"valid": false, ...}.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "cli.h"

const char cmd_analyze_usage[] =
    "usage: tessera analyze RECORD [--bot SPEC] [--sims N] [--chance-sims N] [--seed S]\n"
    "                              [--json] [--out DIR] [--quiet]\n"
    "\n"
    "Searches every position of the game record RECORD ('-' reads standard input) again\n"
    "(docs/analysis.md): for the player to move, the expected final score difference and\n"
    "the win probability, the turn the search prefers and the value of the turn played.\n"
    "A turn that drops the mover's win probability by 10, 20 or 30 points or more is an\n"
    "inaccuracy, a mistake or a blunder, shown with the better turn. Where the game has\n"
    "chance (Carcassonne's draw), the value before a draw is the average over every tile\n"
    "the bag could give, and each player's result splits into luck (the tiles drawn) and\n"
    "skill (the turns played): P1's first-move value + luck + skill = the final score\n"
    "difference. Two seats, or Carcassonne's three to five (each seat's values, its lead\n"
    "over the best of the others). Prints the Markdown summary.\n"
    "  --bot SPEC       the search (default mcts; see `tessera bots`): a bot with a reward=\n"
    "                   option, which the analysis sets itself (scorediff, winloss)\n"
    "  --sims N         simulations a search of a played position (default 2000, or the\n"
    "                   spec's sims=)\n"
    "  --chance-sims N  simulations a search under each outcome of a draw (default a\n"
    "                   quarter of --sims)\n"
    "  --seed S         the searches' seed (default 1): the same seed, the same report\n"
    "  --json           print the whole analysis as one JSON object instead\n"
    "  --out DIR        also write DIR/analysis.json, DIR/analysis.md and\n"
    "                   DIR/winprob.svg (DIR is made if missing)\n"
    "  --quiet          no progress on standard error\n"
    "Exit status: 0 analysed; 2 bad arguments or a record that is malformed or illegal\n"
    "(the turn and the reason, as `tessera replay` says them); 1 a failure (I/O, memory).\n";

static void progress(void *ud, int turn, int turns)
{
    (void)ud;
    fprintf(stderr, "\ranalysed %d of %d turns", turn, turns);
    if (turn == turns)
        fprintf(stderr, "\n");
}

static int write_file(const char *cmd, const char *dir, const char *name, const char *text)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (!text) {
        fprintf(stderr, "tessera %s: cannot write %s: out of memory\n", cmd, path);
        return -1;
    }
    FILE *f = fopen(path, "w");
    bool bad = !f || fputs(text, f) < 0;
    if (f && fclose(f) != 0)
        bad = true;
    if (bad)
        fprintf(stderr, "tessera %s: cannot write %s: %s\n", cmd, path, strerror(errno));
    return bad ? -1 : 0;
}

static int write_outputs(const char *cmd, const char *dir, const ana_report *r, json_t *j)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "tessera %s: cannot make %s: %s\n", cmd, dir, strerror(errno));
        return -1;
    }
    char *js = j ? json_dumps(j, JSON_INDENT(1) | JSON_ENSURE_ASCII | ANA_JSON_FLAGS) : NULL;
    char *md = ana_markdown(r), *svg = ana_svg(r);
    int rc = write_file(cmd, dir, "analysis.json", js) || write_file(cmd, dir, "analysis.md", md) ||
             write_file(cmd, dir, "winprob.svg", svg);
    free(js);
    free(md);
    free(svg);
    return rc ? -1 : 0;
}

int cmd_analyze(int argc, char **argv)
{
    static const struct option opts[] = {
        {"bot", required_argument, NULL, 'b'},   {"sims", required_argument, NULL, 'n'},
        {"chance-sims", required_argument, NULL, 'c'}, {"seed", required_argument, NULL, 's'},
        {"json", no_argument, NULL, 'j'},        {"out", required_argument, NULL, 'o'},
        {"quiet", no_argument, NULL, 'q'},       {NULL, 0, NULL, 0},
    };
    const char *cmd = "analyze";
    ana_opts ao = {.seed = 1};
    bool as_json = false, quiet = false;
    const char *out_dir = NULL;
    long long v;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        switch (c) {
        case 'b': ao.bot = optarg; break;
        case 'n':
            if (cli_int(cmd, "--sims", optarg, 1, 100000000, &v))
                return CLI_USAGE;
            ao.sims = v;
            break;
        case 'c':
            if (cli_int(cmd, "--chance-sims", optarg, 1, 100000000, &v))
                return CLI_USAGE;
            ao.chance_sims = v;
            break;
        case 's':
            if (cli_seed(cmd, optarg, &ao.seed))
                return CLI_USAGE;
            break;
        case 'j': as_json = true; break;
        case 'o': out_dir = optarg; break;
        case 'q': quiet = true; break;
        case ':': return cli_usage_error(cmd, "%s needs a value", argv[optind - 1]);
        default: return cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
        }
    }
    const char *path = cli_record_operand(cmd, argc, argv, optind);
    if (!path)
        return CLI_USAGE;
    if (out_dir && !*out_dir)
        return cli_usage_error(cmd, "--out needs a folder");

    char *buf = NULL;
    size_t len = 0;
    const char *bad = NULL;
    int rc = cli_read_record(path, &buf, &len, &bad);
    if (rc) {
        fprintf(stderr, "tessera %s: %s: cannot read: %s\n", cmd, path, bad);
        if (as_json)
            cli_print_json(json_pack("{s:b, s:s, s:s}", "valid", 0, "code", eng_err_code(ENG_EIO),
                                 "reason", bad));
        return rc;
    }
    rec_replay why = {0};
    json_t *rec = NULL;
    if (len > REC_MAX_BYTES) {
        rc = rec_replay_buffer(buf, len, NULL, NULL, &why); /* too large, said without parsing */
    } else {
        json_error_t jerr;
        rec = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
        if (!rec)
            rc = rec_replay_buffer(buf, len, NULL, NULL, &why); /* its diagnosis of bad JSON */
    }
    free(buf);
    ana_report *r = NULL;
    if (rec) {
        if (!quiet && isatty(STDERR_FILENO))
            ao.progress = progress;
        rc = ana_run(rec, &ao, &r, &why);
        json_decref(rec);
    }
    if (rc) {
        bool spec = rc == ENG_EUNKNOWN_BOT || rc == ENG_EBAD_BOT_SPEC;
        if (spec)
            fprintf(stderr, "tessera %s: --bot: %s (%s)\n", cmd, why.reason, eng_err_code(rc));
        else if (why.bad_turn > 0)
            fprintf(stderr, "tessera %s: %s: turn %d: %s (%s)\n", cmd, path, why.bad_turn,
                    why.reason, eng_err_code(rc));
        else
            fprintf(stderr, "tessera %s: %s: %s (%s)\n", cmd, path, why.reason, eng_err_code(rc));
        if (as_json)
            cli_print_json(json_pack("{s:b, s:i, s:s, s:s}", "valid", 0, "turn", why.bad_turn, "code",
                                 eng_err_code(rc), "reason", why.reason));
        return rc == ENG_ENOMEM || rc == ENG_EINTERNAL ? CLI_FAIL : CLI_USAGE;
    }
    json_t *j = ana_json(r);
    int status = CLI_OK;
    if (out_dir && write_outputs(cmd, out_dir, r, j))
        status = CLI_FAIL;
    if (as_json) {
        char *text = j ? json_dumps(j, JSON_COMPACT | JSON_ENSURE_ASCII | ANA_JSON_FLAGS) : NULL;
        printf("%s\n", text ? text : "{\"valid\":false,\"code\":\"out_of_memory\"}");
        free(text);
    } else {
        char *md = ana_markdown(r);
        fputs(md ? md : "out of memory\n", stdout);
        free(md);
    }
    if (!j)
        status = CLI_FAIL;
    json_decref(j);
    ana_free(r);
    return status;
}
