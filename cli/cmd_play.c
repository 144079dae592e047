/*
 * cmd_play.c — `tessera play`: one game with the uniform random policy for
 * every seat; prints the moves (--trace), the final board (--render), the
 * scores, and writes the game record (--record).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"
#include "protocol/record.h"

int cmd_play(int argc, char **argv)
{
    static const struct option opts[] = {
        {"players", required_argument, NULL, 'p'}, {"seed", required_argument, NULL, 's'},
        {"rule", required_argument, NULL, 'r'},    {"record", required_argument, NULL, 'o'},
        {"render", no_argument, NULL, 'R'},        {"trace", no_argument, NULL, 't'},
        {NULL, 0, NULL, 0},
    };
    const char *cmd = "play";
    const char *record = NULL;
    cli_game_opts go = {0};
    bool render = false, trace = false, seeded = false;
    uint64_t seed = 0;

    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        switch (c) {
        case 'p': go.players = optarg; break;
        case 's':
            if (cli_seed(cmd, optarg, &seed))
                return CLI_USAGE;
            seeded = true;
            break;
        case 'r':
            if (cli_game_opts_rule(cmd, &go, optarg))
                return CLI_USAGE;
            break;
        case 'o': record = optarg; break;
        case 'R': render = true; break;
        case 't': trace = true; break;
        case ':': return cli_usage_error(cmd, "%s needs a value", argv[optind - 1]);
        default: return cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
        }
    }
    eng_rules rules;
    const eng_game *g = cli_game_operand(cmd, argc, argv, optind, &go, &rules);
    if (!g)
        return CLI_USAGE;
    if (!seeded)
        seed = (uint64_t)time(NULL) ^ ((uint64_t)clock() << 32);
    /* --record FILE is opened before the game is played: a path that cannot
     * be written is a bad argument, found at once rather than after the game */
    FILE *out = NULL;
    bool regular = false;
    bool to_stdout = record && strcmp(record, "-") == 0;
    if (record && !to_stdout) {
        struct stat sb;
        if (stat(record, &sb) == 0 && S_ISDIR(sb.st_mode))
            return cli_usage_error(cmd, "--record: '%s' is a directory; give a file name", record);
        if (!(out = fopen(record, "w")))
            return cli_usage_error(cmd, "--record: cannot write '%s': %s", record, strerror(errno));
        /* only a regular file is removed again on failure (never /dev/...) */
        regular = fstat(fileno(out), &sb) == 0 && S_ISREG(sb.st_mode);
    }

    void *st = calloc(1, g->state_size);
    eng_move *moves = calloc((size_t)g->max_plies + 1, sizeof *moves);
    if (!st || !moves) {
        free(st);
        free(moves);
        if (out) {
            fclose(out);
            if (regular)
                remove(record);
        }
        fprintf(stderr, "tessera play: out of memory\n");
        return CLI_FAIL;
    }
    g->init(st, &rules);
    eng_rng rng;
    eng_rng_seed(&rng, seed);
    printf("%s, %d players, seed %llu\n", g->title, (int)rules.players, (unsigned long long)seed);

    int n = 0;
    for (int p; (p = g->current_player(st)) != ENG_TERMINAL && n < g->max_plies;) {
        eng_move m = p == ENG_CHANCE ? eng_sample_chance(g, st, &rng) : eng_random_move(g, st, &rng);
        if (trace) {
            char s[ENG_MOVE_STR_MAX];
            if (g->move_to_str(st, m, s, sizeof s) < 0)
                snprintf(s, sizeof s, "#%d", (int)m);
            if (p == ENG_CHANCE)
                printf("%4d chance  %s\n", n + 1, s);
            else
                printf("%4d P%d      %s\n", n + 1, p + 1, s);
        }
        g->apply(st, m);
        moves[n++] = m;
    }

    int rc = CLI_OK;
    if (render) {
        int need = g->render(st, NULL, 0);
        char *buf = malloc((size_t)need + 1);
        if (buf) {
            g->render(st, buf, (size_t)need + 1);
            fputs(buf, stdout);
            free(buf);
        }
    }
    double sc[ENG_MAX_PLAYERS];
    g->scores(st, sc);
    printf("final scores:");
    for (int p = 0; p < rules.players; p++)
        printf(" P%d=%g", p + 1, sc[p]);
    printf("\n");

    if (record) {
        char err[256];
        json_t *rec = rec_build(g, &rules, moves, n, err, sizeof err);
        if (!rec) {
            fprintf(stderr, "tessera play: cannot build the record: %s\n", err);
            rc = CLI_FAIL;
        } else {
            FILE *f = to_stdout ? stdout : out;
            int dr = json_dumpf(rec, f, JSON_COMPACT) || fputc('\n', f) == EOF || fflush(f);
            if (dr) {
                fprintf(stderr, "tessera play: cannot write the record to '%s': %s\n", record,
                        strerror(errno));
                rc = CLI_FAIL;
            } else if (!to_stdout) {
                printf("record written to %s\n", record);
            }
            json_decref(rec);
        }
        if (out && fclose(out) != 0 && rc == CLI_OK) {
            fprintf(stderr, "tessera play: cannot write the record to '%s': %s\n", record,
                    strerror(errno));
            rc = CLI_FAIL;
        }
        if (regular && rc != CLI_OK)
            remove(record); /* no half-written record left behind */
    }
    free(st);
    free(moves);
    return rc;
}
