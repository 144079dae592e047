/*
 * cmd_doctor.c — `tessera doctor`: check a bot before it plays (doctor/
 * doctor.h): `tessera doctor [OPTIONS] -- PROGRAM ARGS...` for a program of
 * the stdio protocol, `tessera doctor --bot SPEC` for any player spec,
 * `tessera doctor --url URL --remote NAME --admin-token-file F` for a bot
 * registered on a server (whole games only, doctor/remote.c). One
 * line per check as it finishes, a summary that says what to fix first,
 * --json for tools; exit 0 only when every check passed.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "doctor/doctor.h"

typedef struct out {
    bool json;
    json_t *checks;          /* --json: every check */
    doctor_check first_fail; /* the first failure, for the summary */
    bool have_fail;
    char hint[512];
} out;

static void on_check(const doctor_check *c, void *ud)
{
    out *o = ud;
    if (c->status == DOCTOR_FAIL && !o->have_fail) {
        o->first_fail = *c;
        snprintf(o->hint, sizeof o->hint, "%s", c->hint ? c->hint : "");
        o->have_fail = true;
    }
    if (o->json) {
        json_t *j = json_pack("{s:s, s:s, s:s, s:s, s:s, s:i, s:f, s:f}", "game", c->game, "check",
                              c->name, "about", c->about, "status",
                              c->status == DOCTOR_PASS   ? "pass"
                              : c->status == DOCTOR_FAIL ? "fail"
                                                         : "skip",
                              "detail", c->detail, "moves", c->moves, "slowest_ms", c->slowest_ms,
                              "allowed_ms", c->allowed_ms);
        if (j && c->status == DOCTOR_FAIL) {
            json_object_set_new(j, "verdict", json_string(player_verdict_name(c->verdict)));
            json_object_set_new(j, "turn", json_integer(c->turn));
            json_object_set_new(j, "stderr", json_string(c->stderr_tail));
            if (c->hint)
                json_object_set_new(j, "hint", json_string(c->hint));
        }
        json_array_append_new(o->checks, j);
        return;
    }
    printf("%-4s  %-12s %-15s %s\n", doctor_status_name(c->status), c->game, c->name, c->detail);
    if (c->status == DOCTOR_FAIL) {
        if (c->stderr_tail[0])
            printf("      its stderr: %s\n", c->stderr_tail);
        if (c->hint)
            printf("      what to do: %s\n", c->hint);
    }
    fflush(stdout);
}

/* `--replay BUNDLE [-- PROGRAM]`: exit 0 when the faulty turn now passes,
 * 1 when it fails again (or earlier), 2 for a bundle that cannot be read. */
static int replay(const char *cmd, const char *path, const char *spec, int64_t move_ms, bool json)
{
    doctor_replay_result r;
    char err[PLAYER_DETAIL_MAX];
    int rc = doctor_replay(path, spec, move_ms, &r, err, sizeof err);
    if (rc) {
        cli_usage_error(cmd, "--replay %s: %s", path, err);
        return CLI_USAGE;
    }
    bool ok = r.verdict == PLAYER_OK;
    if (json) {
        json_t *j = json_pack("{s:s, s:s, s:i, s:i, s:s, s:b, s:s, s:s, s:b, s:i, s:i, s:i, s:i, "
                              "s:i, s:s, s:s}",
                              "bundle", path, "game", r.game, "seat", r.seat, "turn", r.turn,
                              "was", r.was, "failed", !ok, "verdict", player_verdict_name(r.verdict),
                              "detail", r.detail, "earlier", r.earlier, "asked", r.asked,
                              "differed", r.differed, "first_differed", r.first_differed, "lines",
                              r.lines, "lines_differ", r.lines_differ, "lines_note", r.lines_note,
                              "stderr", r.stderr_tail);
        char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;
        if (text)
            printf("%s\n", text);
        free(text);
        json_decref(j);
        return ok ? CLI_OK : CLI_FAIL;
    }
    printf("tessera doctor --replay %s\n", path);
    printf("the fault: %s, seat %d (P%d), turn %d: %s\n", r.game, r.seat, r.seat + 1, r.turn,
           r.was);
    printf("replayed to %s: %d earlier turn%s asked", spec ? spec : "the bundle's program",
           r.asked, r.asked == 1 ? "" : "s");
    if (r.differed)
        printf(", %d answered otherwise than in the game (first: turn %d; the game's move was "
               "played)",
               r.differed, r.first_differed);
    printf("\n%s\n", r.lines_note);
    if (ok) {
        printf("no fault now: turn %d answered %s\n", r.turn, r.detail);
        return CLI_OK;
    }
    printf("%s at turn %d: %s: %s\n", r.earlier ? "FAILED EARLIER" : "FAULT AGAIN", r.turn,
           player_verdict_name(r.verdict), r.detail);
    if (r.stderr_tail[0])
        printf("  its stderr: %s\n", r.stderr_tail);
    return CLI_FAIL;
}

int cmd_doctor(int argc, char **argv)
{
    static const struct option opts[] = {
        {"bot", required_argument, NULL, 'b'},
        {"stateless", no_argument, NULL, 'l'},
        {"game", required_argument, NULL, 'G'},
        {"check", required_argument, NULL, 'C'},
        {"move-ms", required_argument, NULL, 'm'},
        {"first-move-ms", required_argument, NULL, 'f'},
        {"startup-ms", required_argument, NULL, 'T'},
        {"low-ms", required_argument, NULL, 'L'},
        {"seed", required_argument, NULL, 'S'},
        {"json", no_argument, NULL, 'j'},
        {"memory-mb", required_argument, NULL, 'y'},
        {"cpu-s", required_argument, NULL, 'z'},
        {"url", required_argument, NULL, 'u'},
        {"remote", required_argument, NULL, 'R'},
        {"admin-token", required_argument, NULL, 'A'},
        {"admin-token-file", required_argument, NULL, 'F'},
        {"replay", required_argument, NULL, 'P'},
        {NULL, 0, NULL, 0},
    };
    const char *replay_path = NULL;
    bool have_move = false;
    const char *cmd = "doctor";
    doctor_config cfg;
    doctor_config_default(&cfg);
    bool stateless = false, have_first = false;
    static char token[256];
    out o = {0};
    long long v;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "+:", opts, NULL)) != -1) {
        switch (c) {
        case 'b': cfg.spec = optarg; break;
        case 'l': stateless = true; break;
        case 'G':
            if (!cli_game(cmd, optarg))
                return CLI_USAGE;
            if (cfg.ngames == DOCTOR_MAX_GAMES)
                return cli_usage_error(cmd, "at most %d --game options", DOCTOR_MAX_GAMES);
            cfg.games[cfg.ngames++] = optarg;
            break;
        case 'C':
            if (cfg.nchecks == DOCTOR_MAX_CHECKS)
                return cli_usage_error(cmd, "at most %d --check options", DOCTOR_MAX_CHECKS);
            cfg.checks[cfg.nchecks++] = optarg;
            break;
        case 'm':
            if (cli_int(cmd, "--move-ms", optarg, 10, 600000, &v))
                return CLI_USAGE;
            cfg.move_ms = v;
            have_move = true;
            break;
        case 'f':
            if (cli_int(cmd, "--first-move-ms", optarg, 10, 600000, &v))
                return CLI_USAGE;
            cfg.first_move_ms = v;
            have_first = true;
            break;
        case 'T':
            if (cli_int(cmd, "--startup-ms", optarg, 0, 600000, &v))
                return CLI_USAGE;
            cfg.startup_ms = v;
            break;
        case 'L':
            if (cli_int(cmd, "--low-ms", optarg, 1, 600000, &v))
                return CLI_USAGE;
            cfg.low_ms = v;
            break;
        case 'S':
            if (cli_seed(cmd, optarg, &cfg.seed))
                return CLI_USAGE;
            break;
        case 'j': o.json = true; break;
        case 'y':
            if (cli_int(cmd, "--memory-mb", optarg, 16, 1048576, &v))
                return CLI_USAGE;
            cfg.limits.memory_mb = v;
            break;
        case 'z':
            if (cli_int(cmd, "--cpu-s", optarg, 1, 86400, &v))
                return CLI_USAGE;
            cfg.limits.cpu_s = v;
            break;
        case 'u':
            if (strncmp(optarg, "ws://", 5) != 0)
                return cli_usage_error(cmd, "--url must be a ws:// URL, got '%s'", optarg);
            cfg.url = optarg;
            break;
        case 'R': cfg.remote = optarg; break;
        case 'P': replay_path = optarg; break;
        case 'A': cfg.admin_token = optarg; break;
        case 'F':
            if (cli_admin_token_file(cmd, optarg, token, sizeof token))
                return CLI_USAGE;
            cfg.admin_token = token;
            break;
        case ':': return cli_usage_error(cmd, "%s needs a value", argv[optind - 1]);
        default: return cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (cfg.url || cfg.remote) {
        if (!cfg.url || !cfg.remote)
            return cli_usage_error(cmd, "a bot on a server is named with --url URL and --remote "
                                        "NAME (the name it registered under)");
        if (!cfg.admin_token)
            return cli_usage_error(cmd, "--remote needs the server's admin token (--admin-token "
                                        "or --admin-token-file): seating a registered bot needs "
                                        "it");
        if (optind < argc || cfg.spec || stateless)
            return cli_usage_error(cmd, "--remote checks a bot on a server: no program and no "
                                        "--bot");
        cfg.spec = cfg.remote;
    }
    static char spec[PLAYER_SPEC_MAX];
    if (!cfg.url && optind < argc) {
        if (cfg.spec)
            return cli_usage_error(cmd, "give the program after -- or --bot, not both");
        if (cli_program_spec(cmd, argv + optind, argc - optind, stateless, spec, sizeof spec))
            return CLI_USAGE;
        cfg.spec = spec;
    } else if (stateless) {
        return cli_usage_error(cmd, "--stateless needs the program after --");
    }
    if (replay_path) {
        if (cfg.url)
            return cli_usage_error(cmd, "--replay plays a bundle here: no --url");
        return replay(cmd, replay_path, cfg.spec, have_move ? cfg.move_ms : 0, o.json);
    }
    if (!cfg.spec)
        return cli_usage_error(cmd, "what to check: tessera doctor -- PROGRAM ARGS... (a program "
                                    "of docs/stdio.md), or --bot SPEC");
    /* a gate's, a tournament's first move is a move (the start-up has its
     * own allowance); a server's match gives a remote bot 3 x */
    if (!have_first)
        cfg.first_move_ms = cfg.url ? 3 * cfg.move_ms : cfg.move_ms;
    if (cfg.first_move_ms < cfg.move_ms)
        return cli_usage_error(cmd, "--first-move-ms (%lld) cannot be less than --move-ms (%lld)",
                               (long long)cfg.first_move_ms, (long long)cfg.move_ms);
    if (cfg.low_ms > cfg.move_ms)
        return cli_usage_error(cmd, "--low-ms (%lld) cannot be more than --move-ms (%lld)",
                               (long long)cfg.low_ms, (long long)cfg.move_ms);

    o.checks = json_array();
    cfg.on_check = on_check;
    cfg.ud = &o;
    if (!o.json && cfg.url) {
        printf("tessera doctor: %s, registered on %s\n", cfg.remote, cfg.url);
        printf("moves allowed %lld ms (a game's first %lld ms); a time-out or an illegal move "
               "forfeits\n",
               (long long)cfg.move_ms, (long long)cfg.first_move_ms);
        fflush(stdout);
    } else if (!o.json) {
        printf("tessera doctor: %s\n", cfg.spec);
        printf("moves allowed %lld ms (a game's first %lld ms, low clock %lld ms), start-up %lld "
               "ms before the game, seed %llu\n",
               (long long)cfg.move_ms, (long long)cfg.first_move_ms, (long long)cfg.low_ms,
               (long long)cfg.startup_ms, (unsigned long long)cfg.seed);
        if (strncmp(cfg.spec, "cmd:", 4) == 0 || strncmp(cfg.spec, "cmd-stateless:", 14) == 0) {
            char prot[256];
            printf("in the sandbox, as on a server: %s\n",
                   sandbox_protections_text(sandbox_probe(&cfg.limits), prot, sizeof prot));
            /* exactly which file will run (issue 30: a venv's python3) */
            sandbox_cmd *sc = malloc(sizeof *sc);
            char e[512], what[SANDBOX_CMD_MAX + 256];
            if (sc && sandbox_cmd_parse(strchr(cfg.spec, ':') + 1, &cfg.limits, sc, e, sizeof e) == 0)
                printf("runs: %s\n", sandbox_cmd_describe(sc, what, sizeof what));
            free(sc);
        }
        fflush(stdout);
    }
    doctor_summary sum;
    char err[PLAYER_DETAIL_MAX];
    int rc = cfg.url ? doctor_run_remote(&cfg, &sum, err, sizeof err)
                     : doctor_run(&cfg, &sum, err, sizeof err);
    if (rc) {
        json_decref(o.checks);
        if (rc == ENG_EIO) { /* the server: unreachable, gone */
            fprintf(stderr, "tessera doctor: %s\n", err);
            return CLI_FAIL;
        }
        cli_usage_error(cmd, "%s", err);
        return CLI_USAGE;
    }
    bool ok = sum.failed == 0;
    if (o.json) {
        char prot[256] = "";
        if (sum.program)
            sandbox_protections_text(sum.protections, prot, sizeof prot);
        json_t *j = json_pack("{s:s, s:s, s:b, s:i, s:i, s:i, s:o}", "spec", cfg.spec, "kind",
                              cfg.url         ? "remote"
                              : !sum.program  ? "bot"
                              : sum.stateless ? "stateless"
                                              : "long-running",
                              "passed", ok, "pass", sum.passed, "fail", sum.failed, "skip",
                              sum.skipped, "checks", o.checks);
        if (j && sum.program)
            json_object_set_new(j, "sandbox", json_string(prot));
        char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;
        if (text)
            printf("%s\n", text);
        free(text);
        json_decref(j);
        return ok ? CLI_OK : CLI_FAIL;
    }
    json_decref(o.checks);
    printf(
        "\n%d check%s: %d passed, %d failed, %d skipped.\n", sum.passed + sum.failed + sum.skipped,
        sum.passed + sum.failed + sum.skipped == 1 ? "" : "s", sum.passed, sum.failed, sum.skipped);
    if (ok && cfg.url) {
        printf("Every check passed.\n");
        return CLI_OK;
    }
    if (ok) {
        printf("Every check passed. To play on a server:\n");
        if (strncmp(cfg.spec, "cmd:", 4) == 0)
            printf("  tessera bridge --url ws://SERVER:8080/ --register NAME --secret SECRET -- "
                   "%s\n",
                   cfg.spec + 4);
        else if (strncmp(cfg.spec, "cmd-stateless:", 14) == 0)
            printf("  tessera bridge --url ws://SERVER:8080/ --register NAME --secret SECRET "
                   "--stateless -- %s\n",
                   cfg.spec + 14);
        else
            printf("  tessera bot --url ws://SERVER:8080/ --register NAME --secret SECRET --bot "
                   "%s\n",
                   cfg.spec);
        return CLI_OK;
    }
    printf("Fix the first failure first (later checks often fail for the same reason):\n"
           "  %s %s: %s\n",
           o.first_fail.game, o.first_fail.name, o.first_fail.detail);
    if (o.hint[0])
        printf("  what to do: %s\n", o.hint);
    return CLI_FAIL;
}
