/*
 * cmd_serve.c — `tessera serve`: run the match server (server/server.h).
 *
 * The configuration is built in three layers, each overriding the one
 * before: the defaults (srv_config_defaults), the config file (--config
 * FILE), then every other flag in the order given (--port, --set
 * SECTION.KEY=VALUE, ...). --print-config prints the result as a config
 * file and exits, which shows what a server would run with.
 *
 * The web UI's files: --web DIR, or [server] web in the file; by default
 * the installed copy (DATADIR/tessera/web, found relative to the binary,
 * so an installed tree can be moved as a whole), else the source tree's
 * web/ (a binary run from its build folder).
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "server/server.h"

#ifndef TESSERA_WEB_ROOT
#define TESSERA_WEB_ROOT "web"
#endif
#ifndef TESSERA_WEB_REL
#define TESSERA_WEB_REL "../share/tessera/web"
#endif

static bool has_index(const char *dir)
{
    char path[PATH_MAX + sizeof TESSERA_WEB_REL + 32];
    struct stat sb;
    snprintf(path, sizeof path, "%s/index.html", dir);
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

const char *cli_web_root(void)
{
    static char found[PATH_MAX];
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = 0;
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = 0;
            char cand[PATH_MAX + sizeof TESSERA_WEB_REL + 2];
            snprintf(cand, sizeof cand, "%s/%s", exe, TESSERA_WEB_REL);
            if (has_index(cand) && realpath(cand, found))
                return found;
        }
    }
    if (has_index(TESSERA_WEB_ROOT))
        return TESSERA_WEB_ROOT;
    return NULL;
}

static const struct option opts[] = {
    {"port", required_argument, NULL, 'p'},
    {"host", required_argument, NULL, 'H'},
    {"db", required_argument, NULL, 'd'},
    {"storage", required_argument, NULL, 'S'},
    {"instance", required_argument, NULL, 'I'},
    {"redis", required_argument, NULL, 'r'},
    {"advertise", required_argument, NULL, 'a'},
    {"web", required_argument, NULL, 'w'},
    {"no-web", no_argument, NULL, 'W'},
    {"durable", no_argument, NULL, 'D'},
    {"max-conns", required_argument, NULL, 'c'},
    {"log-level", required_argument, NULL, 'l'},
    {"demo", optional_argument, NULL, 'x'},
    {"port-file", required_argument, NULL, 'P'},
    {"idle-timeout-ms", required_argument, NULL, 'i'},
    {"admin-token-file", required_argument, NULL, 'A'},
    {"config", required_argument, NULL, 'f'},
    {"set", required_argument, NULL, 's'},
    {"tls-cert", required_argument, NULL, 'C'},
    {"tls-key", required_argument, NULL, 'K'},
    {"print-config", no_argument, NULL, 'R'},
    {NULL, 0, NULL, 0},
};

/* One setting from a flag, through the config's own parser (same checks,
 * same messages). */
static int set(srv_config *cfg, const char *flag, const char *name, const char *value)
{
    char err[400];
    if (srv_config_set(cfg, name, value, err, sizeof err) == 0)
        return 0;
    return cli_usage_error("serve", "%s: %s", flag, err);
}

int cmd_serve(int argc, char **argv)
{
    const char *cmd = "serve";
    srv_config cfg;
    srv_config_defaults(&cfg);
    cfg.web_root = cli_web_root();
    int rc = CLI_USAGE;
    char err[600];
    /* first pass: the config file (flags override it, wherever they are) */
    const char *config = NULL;
    bool print = false;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        if (c == 'f') {
            if (config) {
                cli_usage_error(cmd, "--config is given twice");
                goto out;
            }
            config = optarg;
        } else if (c == 'R') {
            print = true;
        } else if (c == ':') {
            cli_usage_error(cmd, "%s needs a value", argv[optind - 1]);
            goto out;
        } else if (c == '?') {
            cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
            goto out;
        }
    }
    if (optind < argc) {
        cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
        goto out;
    }
    if (config && srv_config_load(&cfg, config, err, sizeof err) != 0) {
        fprintf(stderr, "tessera serve: %s\n", err);
        goto out;
    }
    /* second pass: every other flag, in order */
    optind = 1;
    while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        int bad = 0;
        switch (c) {
        case 'p': bad = set(&cfg, "--port", "server.port", optarg); break;
        case 'H': bad = set(&cfg, "--host", "server.host", optarg); break;
        case 'd': bad = set(&cfg, "--db", "journal.path", optarg); break;
        case 'S': bad = set(&cfg, "--storage", "journal.storage", optarg); break;
        case 'I': bad = set(&cfg, "--instance", "cluster.instance", optarg); break;
        case 'r': bad = set(&cfg, "--redis", "cluster.redis", optarg); break;
        case 'a': bad = set(&cfg, "--advertise", "cluster.address", optarg); break;
        case 'w': bad = set(&cfg, "--web", "server.web", optarg); break;
        case 'W': cfg.web_root = NULL; break;
        case 'D': cfg.durable = true; break;
        case 'c': bad = set(&cfg, "--max-conns", "server.max_connections", optarg); break;
        case 'l': bad = set(&cfg, "--log-level", "server.log_level", optarg); break;
        case 'x':
            bad = set(&cfg, "--demo", "server.demo", optarg ? optarg : "mcts:ms=1000,heuristic");
            if (!bad && optarg && !*optarg) /* --demo= names no bot: srv_config_check says so */
                cfg.demo = "";
            break;
        case 'P': bad = set(&cfg, "--port-file", "server.port_file", optarg); break;
        case 'i': bad = set(&cfg, "--idle-timeout-ms", "server.idle_timeout_ms", optarg); break;
        case 'A': bad = set(&cfg, "--admin-token-file", "server.admin_token_file", optarg); break;
        case 'C': bad = set(&cfg, "--tls-cert", "tls.cert", optarg); break;
        case 'K': bad = set(&cfg, "--tls-key", "tls.key", optarg); break;
        case 's': {
            const char *eq = strchr(optarg, '=');
            if (!eq) {
                bad = cli_usage_error(cmd, "--set takes SECTION.KEY=VALUE, got '%s'", optarg);
                break;
            }
            char name[64];
            snprintf(name, sizeof name, "%.*s", (int)(eq - optarg), optarg);
            bad = set(&cfg, "--set", name, eq + 1);
            break;
        }
        default: break; /* --config, --print-config: the first pass */
        }
        if (bad)
            goto out;
    }
    if (print) {
        srv_config_print(&cfg, stdout);
        rc = CLI_OK;
        goto out;
    }
    if (srv_config_check(&cfg, err, sizeof err)) { /* before anything is opened or served */
        cli_usage_error(cmd, "%s", err);
        goto out;
    }
    rc = srv_run(&cfg);
out:
    srv_config_free(&cfg);
    return rc;
}
