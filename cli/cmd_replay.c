/*
 * cmd_replay.c — `tessera replay FILE [--trace] [--json]`: check a game
 * record (docs/records.md) against the rules, turn by turn, and print the
 * scores it reaches.
 *
 * The record is untrusted: it is read whole but never past REC_MAX_BYTES
 * (one byte more is read only to tell "too large" apart), and every check is
 * rec_replay_buffer()'s. Exit codes follow cli.h: 0 for a valid record, 2
 * for a malformed or illegal one (the reason on stderr as
 * "tessera replay: FILE: turn N: <reason>") and for a FILE argument that
 * names no readable file (missing, a directory, no permission: a bad
 * argument), 1 when reading an opened file fails (an I/O error).
 * With --json the last line of stdout is one JSON object describing the
 * outcome, for scripts and the web UI. --verify also checks the record's
 * chance outcomes against its revealed seed and commitment
 * (protocol/chance.h): a record without them, or whose tiles, seed, nonce
 * or commitment were changed, fails with exit 2.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "protocol/chance.h"
#include "protocol/record.h"

static void print_scores(const double *sc, int n)
{
    for (int p = 0; p < n; p++)
        printf(" P%d=%g", p + 1, sc[p]);
    printf("\n");
}

/* --trace: one line per turn with the turn as JSON and the scores after it.
 * The callback gets a bare state, so it is told the game up front. */
typedef struct trace_ctx {
    const eng_game *game; /* the record's game; NULL prints nothing */
} trace_ctx;

static void trace_turn(void *ud, int turn, const json_t *turn_json, const void *state)
{
    const trace_ctx *t = ud;
    double sc[ENG_MAX_PLAYERS];
    if (!t->game)
        return;
    t->game->scores(state, sc);
    char *text = json_dumps(turn_json, JSON_COMPACT | JSON_ENSURE_ASCII);
    /* people count players from 1, the record's "player" is the 0-based seat */
    const json_t *pl = json_object_get(turn_json, "player");
    char who[32] = "";
    if (json_is_integer(pl))
        snprintf(who, sizeof who, "P%lld (seat %lld)", (long long)json_integer_value(pl) + 1,
                 (long long)json_integer_value(pl));
    printf("turn %3d  %-12s %-56s scores:", turn, who, text ? text : "?");
    free(text);
    print_scores(sc, eng_num_players(state));
}

int cmd_replay(int argc, char **argv)
{
    static const struct option opts[] = {
        {"trace", no_argument, NULL, 't'},
        {"json", no_argument, NULL, 'j'},
        {"verify", no_argument, NULL, 'v'},
        {NULL, 0, NULL, 0},
    };
    const char *cmd = "replay";
    bool trace = false, as_json = false, verify = false;

    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        switch (c) {
        case 't': trace = true; break;
        case 'j': as_json = true; break;
        case 'v': verify = true; break;
        case ':': return cli_usage_error(cmd, "%s needs a value", argv[optind - 1]);
        default: return cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
        }
    }
    const char *path = cli_record_operand(cmd, argc, argv, optind);
    if (!path)
        return CLI_USAGE;

    /* Read: a FILE that is missing, a directory or forbidden is a bad argument. */
    size_t len = 0;
    char *buf = NULL;
    const char *bad = NULL;
    int read_rc = cli_read_record(path, &buf, &len, &bad);
    if (read_rc) {
        fprintf(stderr, "tessera %s: %s: cannot read: %s\n", cmd, path, bad);
        if (read_rc == CLI_USAGE)
            fprintf(stderr, "(see `tessera %s --help`)\n", cmd);
        if (as_json)
            cli_print_json(json_pack("{s:b, s:s, s:s}", "valid", 0, "code", eng_err_code(ENG_EIO),
                                 "reason", bad));
        return read_rc;
    }

    /* Check. --trace needs the game before the replay returns: parse here
     * (same flags and limit as rec_replay_buffer) and look at "game"; the
     * callback only runs once the replay has checked the envelope. Input
     * that does not parse goes to rec_replay_buffer for its diagnosis. */
    trace_ctx tc = {NULL};
    rec_replay r;
    int rc;
    json_t *rec = NULL;
    if ((trace || verify) && len <= REC_MAX_BYTES) {
        json_error_t jerr;
        rec = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
        if (rec && trace && json_is_string(json_object_get(rec, "game")))
            tc.game = eng_find_game(json_string_value(json_object_get(rec, "game")));
    }
    if (rec)
        rc = rec_replay_json(rec, trace_turn, &tc, &r);
    else
        rc = rec_replay_buffer(buf, len, NULL, NULL, &r);
    if (rc == 0 && verify)
        rc = rec_verify_chance(rec, &r);
    free(buf);

    if (rc) {
        json_decref(rec);
        if (r.bad_turn > 0)
            fprintf(stderr, "tessera %s: %s: turn %d: %s (%s)\n", cmd, path, r.bad_turn, r.reason,
                    eng_err_code(rc));
        else
            fprintf(stderr, "tessera %s: %s: %s (%s)\n", cmd, path, r.reason, eng_err_code(rc));
        if (as_json)
            cli_print_json(json_pack("{s:b, s:i, s:s, s:s}", "valid", 0, "turn", r.bad_turn, "code",
                                 eng_err_code(rc), "reason", r.reason));
        return rc == ENG_ENOMEM ? CLI_FAIL : CLI_USAGE;
    }

    /* Report (rec is NULL unless --trace or --verify). */
    int np = r.rules.players;
    printf("%s, %d players: %d turns, %s\n", r.game->title, np, r.turns,
           r.finished ? "finished" : "unfinished");
    if (verify) {
        chance_block b;
        chance_block_parse(json_object_get(rec, "chance"), &b, NULL, 0);
        printf("verified: every chance outcome follows from seed %llu, and SHA-256 of the seed and "
               "nonce is the commitment %s\n",
               (unsigned long long)b.secret.seed, b.commitment);
    }
    if (r.finished)
        printf("final scores:");
    else
        printf("scores after turn %d:", r.turns);
    print_scores(r.scores, np);
    if (as_json) {
        json_t *sc = json_array();
        for (int p = 0; sc && p < np; p++)
            json_array_append_new(sc, r.scores[p] == (double)(long long)r.scores[p]
                                          ? json_integer((json_int_t)r.scores[p])
                                          : json_real(r.scores[p]));
        json_t *o =
            json_pack("{s:b, s:s, s:i, s:i, s:b, s:o}", "valid", 1, "game", r.game->name, "players",
                      np, "turns", r.turns, "finished", r.finished, "scores", sc);
        if (o && verify)
            json_object_set_new(o, "verified", json_true());
        cli_print_json(o);
    }
    json_decref(rec);
    return CLI_OK;
}
