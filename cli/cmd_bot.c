/*
 * cmd_bot.c — `tessera bot` and `tessera bridge`: a player on a seat of a
 * tessera server over the network (client/botclient.h, docs/botclient.md,
 * docs/stdio.md). One code path: `tessera bot --bot SPEC` takes any player
 * spec (an in-process bot, `cmd:...`, `cmd-stateless:...`), and `tessera
 * bridge [--stateless] ... -- CMD ARGS...` is its form for a program, the
 * spec made from the command. This file only reads the arguments.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "bots/bot.h"
#include "cli.h"
#include "client/botclient.h"
#include "players/player.h"

/* Match ids and tokens as the protocol accepts them: 1..max characters of
 * A-Z a-z 0-9 _ - (docs/protocol.md, Conventions); names of registered
 * bots also take '.'. */
static bool id_ok(const char *s, size_t max, bool dot)
{
    size_t n = strlen(s);
    if (n == 0 || n > max)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-' || (dot && c == '.')))
            return false;
    }
    return true;
}

/* A spec is accepted when at least one game can run it; the match's game is
 * only known once joined, where the client checks it again. A program's
 * command is resolved now (program found, readable), so that a typo is
 * reported before connecting. */
static int check_spec(const char *cmd, const char *spec)
{
    int n;
    const eng_game *const *games = eng_games(&n);
    char err[PLAYER_DETAIL_MAX] = "", first[PLAYER_DETAIL_MAX] = "";
    bool program = strncmp(spec, "cmd:", 4) == 0 || strncmp(spec, "cmd-stateless:", 14) == 0;
    for (int i = 0; i < n; i++) {
        if (program) {
            if (!codec_find(games[i]->name))
                continue;
            player *p = player_create(spec, games[i], NULL, err, sizeof err);
            if (p) {
                player_destroy(p);
                return 0;
            }
        } else if (bot_check_spec(spec, games[i], err, sizeof err) == 0) {
            return 0;
        }
        if (!first[0])
            snprintf(first, sizeof first, "%s", err);
    }
    cli_usage_error(cmd, "%s: %s", program ? "the program" : "--bot",
                    first[0] ? first : "no game to check it against");
    return -1;
}

/* Both commands: bridge = the friendly form for programs. */
static int run(int argc, char **argv, bool bridge)
{
    static const struct option opts[] = {
        {"url", required_argument, NULL, 'u'},
        {"match", required_argument, NULL, 'm'},
        {"seat", required_argument, NULL, 's'},
        {"token", required_argument, NULL, 't'},
        {"bot", required_argument, NULL, 'b'},
        {"resume-token", required_argument, NULL, 'r'},
        {"margin-ms", required_argument, NULL, 'M'},
        {"give-up-ms", required_argument, NULL, 'g'},
        {"token-file", required_argument, NULL, 'f'},
        {"seed", required_argument, NULL, 'S'},
        {"name", required_argument, NULL, 'n'},
        {"quiet", no_argument, NULL, 'q'},
        {"register", required_argument, NULL, 'R'},
        {"secret", required_argument, NULL, 'K'},
        {"capacity", required_argument, NULL, 'c'},
        {"game", required_argument, NULL, 'G'},
        {"max-games", required_argument, NULL, 'x'},
        {"stateless", no_argument, NULL, 'l'},
        {"memory-mb", required_argument, NULL, 'y'},
        {"cpu-s", required_argument, NULL, 'z'},
        {NULL, 0, NULL, 0},
    };
    const char *cmd = bridge ? "bridge" : "bot";
    botclient_config cfg;
    botclient_config_default(&cfg);
    cfg.log_name = bridge ? "tessera bridge" : "tessera bot";
    bool have_seat = false, have_give_up = false, stateless = false, have_capacity = false;
    long long v;
    optind = 1;
    opterr = 0;
    int c;
    /* '+': stop at the first word that is not an option, the program's
     * command (with or without `--` before it) */
    while ((c = getopt_long(argc, argv, "+:", opts, NULL)) != -1) {
        switch (c) {
        case 'u': cfg.url = optarg; break;
        case 'm':
            if (!id_ok(optarg, 32, false))
                return cli_usage_error(cmd,
                                       "--match needs a match id (1-32 characters A-Z a-z "
                                       "0-9 _ -), got '%s'",
                                       optarg);
            cfg.match = optarg;
            break;
        case 's':
            if (cli_int(cmd, "--seat", optarg, 0, ENG_MAX_PLAYERS - 1, &v))
                return CLI_USAGE;
            cfg.seat = (int)v;
            have_seat = true;
            break;
        case 't':
        case 'r':
            if (!id_ok(optarg, 64, false))
                return cli_usage_error(cmd,
                                       "--%s needs a token (1-64 characters A-Z a-z 0-9 _ "
                                       "-), got '%s'",
                                       c == 't' ? "token" : "resume-token", optarg);
            if (c == 't')
                cfg.token = optarg;
            else
                cfg.resume_token = optarg;
            break;
        case 'b': cfg.bot_spec = optarg; break;
        case 'M':
            if (cli_int(cmd, "--margin-ms", optarg, 0, 86400000, &v))
                return CLI_USAGE;
            cfg.margin_ms = v;
            break;
        case 'g':
            if (cli_int(cmd, "--give-up-ms", optarg, 0, 86400000, &v))
                return CLI_USAGE;
            cfg.give_up_ms = v;
            have_give_up = true;
            break;
        case 'f': cfg.token_file = optarg; break;
        case 'S':
            if (cli_seed(cmd, optarg, &cfg.seed))
                return CLI_USAGE;
            break;
        case 'n':
            if (strlen(optarg) < 1 || strlen(optarg) > 64)
                return cli_usage_error(cmd, "--name needs 1 to 64 characters");
            for (const char *p = optarg; *p; p++)
                if (*p < 0x20 || *p > 0x7e)
                    return cli_usage_error(cmd, "--name must be printable ASCII");
            cfg.name = optarg;
            break;
        case 'q': cfg.quiet = true; break;
        case 'R':
            if (!id_ok(optarg, 64, true))
                return cli_usage_error(cmd,
                                       "--register needs a name (1-64 characters A-Z a-z 0-9 _ "
                                       "- .), got '%s'",
                                       optarg);
            cfg.register_name = optarg;
            break;
        case 'K': {
            size_t n = strlen(optarg);
            bool printable = true;
            for (const char *p = optarg; *p; p++)
                printable &= *p > 0x20 && *p < 0x7f;
            if (n < 8 || n > 64 || !printable)
                return cli_usage_error(cmd,
                                       "--secret needs 8 to 64 printable characters without "
                                       "spaces (got %zu)",
                                       n);
            cfg.secret = optarg;
            break;
        }
        case 'c':
            if (cli_int(cmd, "--capacity", optarg, 1, BOTCLIENT_MAX_CAPACITY, &v))
                return CLI_USAGE;
            cfg.capacity = (int)v;
            have_capacity = true;
            break;
        case 'G':
            if (!cli_game(cmd, optarg)) /* names the games */
                return CLI_USAGE;
            if (cfg.ngames == BOTCLIENT_MAX_GAMES)
                return cli_usage_error(cmd, "at most %d --game options", BOTCLIENT_MAX_GAMES);
            cfg.games[cfg.ngames++] = optarg;
            break;
        case 'x':
            if (cli_int(cmd, "--max-games", optarg, 0, 1000000000, &v))
                return CLI_USAGE;
            cfg.max_games = (int)v;
            break;
        case 'l': stateless = true; break;
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
        case ':': return cli_usage_error(cmd, "%s needs a value", argv[optind - 1]);
        default: return cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
        }
    }
    static char spec[PLAYER_SPEC_MAX];
    if (optind < argc) {
        if (!bridge)
            return cli_usage_error(cmd,
                                   "unexpected argument '%s' (a program is run with "
                                   "--bot \"cmd:PROGRAM ARGS\" or tessera bridge)",
                                   argv[optind]);
        if (cfg.bot_spec)
            return cli_usage_error(cmd, "give the program after -- or --bot, not both");
        if (cli_program_spec(cmd, argv + optind, argc - optind, stateless, spec, sizeof spec))
            return CLI_USAGE;
        cfg.bot_spec = spec;
    } else if (stateless) {
        return cli_usage_error(cmd, "--stateless needs the program after -- (or use --bot "
                                    "cmd-stateless:...)");
    }
    if (!cfg.url)
        return cli_usage_error(cmd, "--url is required (e.g. ws://localhost:8080/)");
    if (!cfg.bot_spec)
        return cli_usage_error(cmd, bridge ? "the program to run is required: tessera bridge "
                                             "--url URL ... -- PROGRAM ARGS..."
                                           : "--bot is required (e.g. --bot mcts:sims=400, or "
                                             "--bot \"cmd:python3 mybot.py\"; see `tessera "
                                             "bots`)");
    if (cfg.register_name) {
        if (!cfg.secret)
            return cli_usage_error(cmd, "--register needs --secret (8 to 64 characters: the "
                                        "name's password on the server)");
        if (cfg.match || have_seat || cfg.token || cfg.resume_token)
            return cli_usage_error(cmd, "--register takes no --match, --seat, --token or "
                                        "--resume-token: the server chooses the games");
        if (cfg.token_file)
            return cli_usage_error(cmd, "--token-file is for one seat, not with --register");
        if (!have_give_up)
            cfg.give_up_ms = BOTCLIENT_GIVE_UP_REG_MS;
    } else {
        if (cfg.secret || have_capacity || cfg.ngames || cfg.max_games)
            return cli_usage_error(cmd, "--secret, --capacity, --game and --max-games go with "
                                        "--register");
        if (!cfg.resume_token && (!cfg.match || !have_seat || !cfg.token))
            return cli_usage_error(cmd, "--match, --seat and --token are required unless "
                                        "--resume-token or --register is given");
        if (cfg.match && !have_seat && !cfg.resume_token)
            return cli_usage_error(cmd, "--match needs --seat");
    }
    if (strncmp(cfg.url, "ws://", 5) != 0)
        return cli_usage_error(cmd, "--url must be a ws:// URL, got '%s'", cfg.url);
    if (check_spec(cmd, cfg.bot_spec))
        return CLI_USAGE;
    return botclient_run(&cfg);
}

int cmd_bot(int argc, char **argv)
{
    return run(argc, argv, false);
}

int cmd_bridge(int argc, char **argv)
{
    return run(argc, argv, true);
}
