/*
 * cmd_serve.c — `tessera serve`: run the match server (server/server.h).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "server/server.h"

#ifndef TESSERA_WEB_ROOT
#define TESSERA_WEB_ROOT "web"
#endif

int cmd_serve(int argc, char **argv)
{
    static const struct option opts[] = {
        {"port", required_argument, NULL, 'p'},      {"host", required_argument, NULL, 'H'},
        {"db", required_argument, NULL, 'd'},        {"web", required_argument, NULL, 'w'},
        {"no-web", no_argument, NULL, 'W'},          {"durable", no_argument, NULL, 'D'},
        {"max-conns", required_argument, NULL, 'c'}, {"log-level", required_argument, NULL, 'l'},
        {"demo", optional_argument, NULL, 'x'},      {"port-file", required_argument, NULL, 'P'},
        {"idle-timeout-ms", required_argument, NULL, 'i'},
        {"admin-token-file", required_argument, NULL, 'A'},
        {NULL, 0, NULL, 0},
    };
    const char *cmd = "serve";
    srv_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.port = 8080;
    cfg.db_path = "tessera.db";
    cfg.web_root = TESSERA_WEB_ROOT;
    cfg.log_level = 1;
    long long v;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        switch (c) {
        case 'p':
            if (cli_int(cmd, "--port", optarg, 0, 65535, &v))
                return CLI_USAGE;
            cfg.port = (int)v;
            break;
        case 'H': cfg.host = optarg; break;
        case 'd': cfg.db_path = optarg; break;
        case 'w': cfg.web_root = optarg; break;
        case 'W': cfg.web_root = NULL; break;
        case 'D': cfg.durable = true; break;
        case 'c':
            if (cli_int(cmd, "--max-conns", optarg, 1, 1000000, &v))
                return CLI_USAGE;
            cfg.max_conns = (int)v;
            break;
        case 'l':
            if (!strcmp(optarg, "debug"))
                cfg.log_level = 0;
            else if (!strcmp(optarg, "info"))
                cfg.log_level = 1;
            else if (!strcmp(optarg, "warn"))
                cfg.log_level = 2;
            else if (!strcmp(optarg, "error"))
                cfg.log_level = 3;
            else
                return cli_usage_error(cmd, "--log-level is debug, info, warn or error, got '%s'",
                                       optarg);
            break;
        case 'x': cfg.demo = optarg ? optarg : "mcts:ms=1000,heuristic"; break;
        case 'P': cfg.port_file = optarg; break;
        case 'i':
            if (cli_int(cmd, "--idle-timeout-ms", optarg, 3000, 3600000, &v))
                return CLI_USAGE;
            cfg.idle_timeout_ms = (int)v;
            break;
        case 'A': cfg.admin_token_file = optarg; break;
        case ':': return cli_usage_error(cmd, "%s needs a value", argv[optind - 1]);
        default: return cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    char err[512];
    if (srv_config_check(&cfg, err, sizeof err)) /* before anything is opened or served */
        return cli_usage_error(cmd, "%s", err);
    return srv_run(&cfg);
}
