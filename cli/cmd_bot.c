/*
 * cmd_bot.c — `tessera bot`: play one seat of a match on a tessera server
 * with one of our bots, over the network (client/botclient.h,
 * docs/botclient.md). This file only reads the arguments.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "bots/bot.h"
#include "cli.h"
#include "client/botclient.h"

/* Match ids and tokens as the protocol accepts them: 1..max characters of
 * A-Z a-z 0-9 _ - (docs/protocol.md, Conventions). */
static bool id_ok(const char *s, size_t max)
{
    size_t n = strlen(s);
    if (n == 0 || n > max)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-'))
            return false;
    }
    return true;
}

/* A spec is accepted when at least one game can run it; the match's game is
 * only known once joined, where the client checks it again. */
static int check_spec(const char *cmd, const char *spec)
{
    int n;
    const eng_game *const *games = eng_games(&n);
    char err[256] = "", first[256] = "";
    for (int i = 0; i < n; i++) {
        if (bot_check_spec(spec, games[i], err, sizeof err) == 0)
            return 0;
        if (!first[0])
            snprintf(first, sizeof first, "%s", err);
    }
    cli_usage_error(cmd, "--bot: %s", first[0] ? first : "no game to check it against");
    return -1;
}

int cmd_bot(int argc, char **argv)
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
        {NULL, 0, NULL, 0},
    };
    const char *cmd = "bot";
    botclient_config cfg;
    botclient_config_default(&cfg);
    bool have_seat = false;
    long long v;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        switch (c) {
        case 'u': cfg.url = optarg; break;
        case 'm':
            if (!id_ok(optarg, 32))
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
            if (!id_ok(optarg, 64))
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
        case ':': return cli_usage_error(cmd, "%s needs a value", argv[optind - 1]);
        default: return cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    if (!cfg.url)
        return cli_usage_error(cmd, "--url is required (e.g. ws://localhost:8080/)");
    if (!cfg.bot_spec)
        return cli_usage_error(cmd, "--bot is required (e.g. --bot mcts:sims=400; see `tessera "
                                    "bots`)");
    if (!cfg.resume_token && (!cfg.match || !have_seat || !cfg.token))
        return cli_usage_error(cmd, "--match, --seat and --token are required unless "
                                    "--resume-token is given");
    if (cfg.match && !have_seat && !cfg.resume_token)
        return cli_usage_error(cmd, "--match needs --seat");
    if (strncmp(cfg.url, "ws://", 5) != 0)
        return cli_usage_error(cmd, "--url must be a ws:// URL, got '%s'", cfg.url);
    if (check_spec(cmd, cfg.bot_spec))
        return CLI_USAGE;
    return botclient_run(&cfg);
}
