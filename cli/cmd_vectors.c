/*
 * cmd_vectors.c — `tessera vectors GAME`: conformance vectors for a bot
 * author's own game model (protocol/vectors.h, docs/vectors.md): positions
 * with their legal moves, the result of a move, chance events (dead and last
 * tiles), scores at the end — as the wire protocol shows them, one JSON
 * object per line. The kit's shipped vectors (kit/vectors/) are this
 * command's output with the default count and seed.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "protocol/vectors.h"

const char cmd_vectors_usage[] =
    "usage: tessera vectors GAME [--count N] [--seed S] [--out FILE]\n"
    "\n"
    "Writes conformance vectors for GAME: what the engine says about positions of\n"
    "seeded games, in the wire protocol's JSON (docs/protocol.md), one object per\n"
    "line after a header line, to check a game model of your own (docs/vectors.md):\n"
    "  turn       a position, its legal entries, a move and the state after it\n"
    "  draw       a chance event (Carcassonne: a tile drawn, dead tiles discarded,\n"
    "             the last tile and the final scoring)\n"
    "  fits       Carcassonne: distinct placements of every tile type in the bag\n"
    "  score_now  Carcassonne: every seat's score if the game ended there\n"
    "Games vary their seat count and rule options. The same arguments always write\n"
    "the same vectors; the kit ships the defaults (kit/vectors/GAME.jsonl).\n"
    "  --count N   vectors to write (default: about 250 KB of them; 80 for\n"
    "             Carcassonne, 200 for Reversi and Dodgem, 40 for Pentago-Twist)\n"
    "  --seed S    seed of the games (default 1)\n"
    "  --out FILE  write to FILE (replaced only once complete; default stdout)\n"
    "Exit status: 0 written; 1 the file could not be written; 2 bad arguments.\n";

int cmd_vectors(int argc, char **argv)
{
    static const struct option opts[] = {
        {"count", required_argument, NULL, 'n'},
        {"seed", required_argument, NULL, 's'},
        {"out", required_argument, NULL, 'o'},
        {NULL, 0, NULL, 0},
    };
    const char *cmd = "vectors", *path = NULL;
    vectors_config vc = {0, 1};
    optind = 1;
    opterr = 0;
    int c;
    long long v;
    while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        switch (c) {
        case 'n':
            if (cli_int(cmd, "--count", optarg, 1, VECTORS_MAX_COUNT, &v))
                return CLI_USAGE;
            vc.count = (int)v;
            break;
        case 's':
            if (cli_seed(cmd, optarg, &vc.seed))
                return CLI_USAGE;
            break;
        case 'o': path = optarg; break;
        case ':': return cli_usage_error(cmd, "%s needs a value", argv[optind - 1]);
        default: return cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc)
        return cli_usage_error(cmd, "which game? (see `tessera games`)");
    if (optind + 1 < argc)
        return cli_usage_error(cmd, "one game only, got '%s' too", argv[optind + 1]);
    const eng_game *g = cli_game(cmd, argv[optind]);
    if (!g)
        return CLI_USAGE;
    if (vc.count == 0)
        vc.count = vectors_default_count(g);

    /* a file is written beside its final name and renamed once complete, so a
     * failure never leaves half a file where the vectors were */
    char tmp[4096];
    FILE *out = stdout;
    if (path) {
        if (snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid()) >= (int)sizeof tmp)
            return cli_usage_error(cmd, "--out: the path is too long");
        if (!(out = fopen(tmp, "w"))) {
            fprintf(stderr, "tessera vectors: cannot write '%s': %s\n", tmp, strerror(errno));
            return CLI_FAIL;
        }
    }
    char err[256] = "";
    int rc = vectors_write(g, &vc, out, err, sizeof err);
    if (path) {
        if (fclose(out) != 0 && rc == 0)
            rc = eng_seterr(err, sizeof err, ENG_EIO, "cannot write '%s': %s", tmp, strerror(errno));
        if (rc == 0 && rename(tmp, path) != 0)
            rc = eng_seterr(err, sizeof err, ENG_EIO, "cannot rename '%s' to '%s': %s", tmp, path,
                            strerror(errno));
        if (rc != 0)
            remove(tmp);
    }
    if (rc != 0) {
        fprintf(stderr, "tessera vectors: %s\n", err);
        return rc == ENG_EINVAL ? CLI_USAGE : CLI_FAIL;
    }
    return CLI_OK;
}
