/*
 * cmd_create.c — `tessera create`: make a match on a running server
 * (create_match, docs/protocol.md) from the command line, with in-process
 * bots, programs the server runs (cmd:, with the admin token), registered
 * bots (remote:) and open seats, and print what a person needs next: the
 * match id, each open seat's token, and per open seat a `tessera bot` line
 * and a `tessera bridge ... -- PROGRAM` line (a program of the author's).
 *
 * Everything that can be checked here is checked before connecting (the
 * game, its rules, bot specs, time control and policy values: exit 2 naming
 * the option); the server checks it all again and its refusals are
 * reported the same way.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bots/bot.h"
#include "cli.h"
#include "protocol/messages.h"
#include "protocol/wire.h"

const char cmd_create_usage[] =
    "usage: tessera create GAME [--url URL] [--players N] [--seat SEAT]... [--rule K=V]...\n"
    "                           [--time [K=]MS]... [--policy K=V]... [--bot SPEC]\n"
    "                           [--admin-token-file F | --admin-token T] [--json]\n"
    "\n"
    "Creates a match of GAME on a running server and prints its id and, for every open\n"
    "seat, the seat's token, a `tessera bot` command line that plays it with one of our\n"
    "bots and a `tessera bridge` line that plays it with a program of yours (docs/\n"
    "stdio.md). Give a token to a person (the web UI's join page) or to any client\n"
    "(docs/protocol.md).\n"
    "  --url URL        the server (default " CLI_DEFAULT_URL ")\n"
    "  --seat SEAT      the next seat, in order: a bot spec for a bot the server runs\n"
    "                   (see `tessera bots`); 'cmd:PROGRAM ARGS' for a program the server\n"
    "                   runs in its sandbox, found on the server's machine, or\n"
    "                   remote:NAME for a bot registered there (both need the admin\n"
    "                   token); or `open` for a seat a client joins (`open:NAME` gives\n"
    "                   it a name); repeatable\n"
    "  --players N      number of seats (default: the game's default, or as many as\n"
    "                   --seat if more); seats not given with --seat are open\n"
    "  --rule K=V       a rule option, repeatable (see `tessera games`)\n"
    "  --time [K=]MS    time control, repeatable: move_ms (a bare MS), first_move_ms,\n"
    "                   bank_ms, increment_ms (defaults: 10000, 3 x move_ms, 0, 0)\n"
    "  --policy K=V     what faults cost, repeatable: timeout=forfeit|random_move|grace,\n"
    "                   illegal=reject|forfeit|random_move, max_illegal=N,\n"
    "                   disconnect=forfeit|random_move, reconnect_grace_ms=MS, grace_ms=MS\n"
    "  --bot SPEC       the bot in the printed `tessera bot` lines (default mcts:sims=400)\n"
    "  --admin-token-file F  the server's admin token, from the file `tessera serve\n"
    "                   --admin-token-file F` wrote (--admin-token T: given here)\n"
    "  --json           print the server's match_created reply (one JSON line) instead\n"
    "Seats are numbered from 0 (`--seat` order); people see them as P1, P2, ...\n"
    "Exit status: 0 created; 1 no server answers at URL (or it failed on its side);\n"
    "2 bad arguments, also when the server refuses them.\n";

#define MAX_ARGS 64

static const char *const time_keys[] = {"move_ms", "first_move_ms", "bank_ms", "increment_ms"};

/* --time [K=]MS into the time_control object. */
static int add_time(json_t *tc, const char *arg)
{
    const char *eq = strchr(arg, '=');
    char key[32];
    const char *val = arg;
    if (eq) {
        snprintf(key, sizeof key, "%.*s", (int)(eq - arg), arg);
        val = eq + 1;
    } else {
        snprintf(key, sizeof key, "move_ms");
    }
    size_t k = 0;
    while (k < 4 && strcmp(key, time_keys[k]) != 0)
        k++;
    if (k == 4)
        return cli_usage_error("create",
                               "--time: unknown '%s' (move_ms, first_move_ms, bank_ms, "
                               "increment_ms)",
                               key),
               -1;
    long long v;
    char opt[48];
    snprintf(opt, sizeof opt, "--time %s", key);
    if (cli_int("create", opt, val, k < 2 ? PROTO_MIN_MOVE_MS : 0, PROTO_MAX_MS, &v))
        return -1;
    json_object_set_new(tc, key, json_integer(v));
    return 0;
}

/* --policy K=V into the policies object. */
static int add_policy(json_t *pol, const char *arg)
{
    static const struct {
        const char *key;
        const char *choices; /* NULL: an integer */
        long long lo, hi;
    } keys[] = {
        {"timeout", "forfeit random_move grace", 0, 0},
        {"illegal", "reject forfeit random_move", 0, 0},
        {"max_illegal", NULL, 1, PROTO_MAX_ILLEGAL},
        {"disconnect", "forfeit random_move", 0, 0},
        {"reconnect_grace_ms", NULL, 0, PROTO_MAX_MS},
        {"grace_ms", NULL, 0, PROTO_MAX_MS},
    };
    const char *eq = strchr(arg, '=');
    if (!eq)
        return cli_usage_error("create", "--policy needs K=V, got '%s'", arg), -1;
    char key[32];
    snprintf(key, sizeof key, "%.*s", (int)(eq - arg), arg);
    const char *val = eq + 1;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        if (strcmp(key, keys[i].key) != 0)
            continue;
        if (!keys[i].choices) {
            long long v;
            char opt[48];
            snprintf(opt, sizeof opt, "--policy %s", key);
            if (cli_int("create", opt, val, keys[i].lo, keys[i].hi, &v))
                return -1;
            json_object_set_new(pol, key, json_integer(v));
            return 0;
        }
        /* one of the words, whole */
        const char *c = keys[i].choices;
        size_t n = strlen(val);
        for (const char *p = strstr(c, val); n && p; p = strstr(p + 1, val))
            if ((p == c || p[-1] == ' ') && (p[n] == ' ' || p[n] == 0)) {
                json_object_set_new(pol, key, json_string(val));
                return 0;
            }
        return cli_usage_error("create", "--policy %s takes one of: %s; got '%s'", key,
                               keys[i].choices, val),
               -1;
    }
    return cli_usage_error("create",
                           "--policy: unknown '%s' (timeout, illegal, max_illegal, disconnect, "
                           "reconnect_grace_ms, grace_ms)",
                           key),
           -1;
}

/* Seats the server runs on its machine or finds registered there: it
 * checks them (and needs the admin token). */
static bool server_side(const char *spec)
{
    return strncmp(spec, "cmd:", 4) == 0 || strncmp(spec, "cmd-stateless:", 14) == 0 ||
           strncmp(spec, "remote:", 7) == 0;
}

/* One --seat: `open`, `open:NAME`, a program or registered bot (checked by
 * the server) or a bot spec checked against the game. */
static json_t *seat_json(const eng_game *g, int i, const char *arg)
{
    if (server_side(arg)) {
        if (strlen(arg) > PROTO_SPEC_MAX) {
            cli_usage_error("create", "--seat (P%d, seat %d): the spec is longer than %d bytes",
                            i + 1, i, PROTO_SPEC_MAX);
            return NULL;
        }
        return json_pack("{s:s}", "bot", arg);
    }
    if (strcmp(arg, "open") == 0)
        return json_pack("{s:b}", "open", 1);
    if (strncmp(arg, "open:", 5) == 0) {
        const char *name = arg + 5;
        size_t n = strlen(name);
        bool ok = n >= 1 && n <= PROTO_NAME_MAX;
        for (size_t k = 0; ok && k < n; k++)
            ok = (unsigned char)name[k] >= 0x20 && (unsigned char)name[k] <= 0x7e;
        if (!ok) {
            cli_usage_error("create",
                            "--seat %s: a seat name is 1 to %d printable ASCII characters", arg,
                            PROTO_NAME_MAX);
            return NULL;
        }
        return json_pack("{s:b, s:s}", "open", 1, "name", name);
    }
    char err[256];
    if (strlen(arg) > PROTO_SPEC_MAX || bot_check_spec(arg, g, err, sizeof err) != 0) {
        cli_usage_error("create", "--seat %s (P%d, seat %d): %s", arg, i + 1, i,
                        strlen(arg) > PROTO_SPEC_MAX ? "the bot spec is too long" : err);
        return NULL;
    }
    return json_pack("{s:s}", "bot", arg);
}

static void print_created(const json_t *reply, const json_t *seats, const char *url,
                          const char *game, const char *bot_spec)
{
    const char *id = json_string_value(json_object_get(reply, "match"));
    const json_t *tokens = json_object_get(reply, "seats");
    size_t nseats = json_array_size(seats), nopen = json_array_size(tokens);
    printf("match %s created on %s: %s, %zu players", id, url, game, nseats);
    if (nopen)
        printf(", waiting for %zu open seat%s to be joined\n", nopen, nopen == 1 ? "" : "s");
    else
        printf(", being played now\n");
    for (size_t i = 0; i < nseats; i++) {
        const json_t *s = json_array_get(seats, i);
        const char *spec = json_string_value(json_object_get(s, "bot"));
        const char *name = json_string_value(json_object_get(s, "name"));
        printf("  P%zu (seat %zu)  ", i + 1, i);
        if (spec) {
            printf("%-5s %s\n",
                   strncmp(spec, "remote:", 7) == 0 ? "remote"
                   : server_side(spec)              ? "program"
                                                    : "bot",
                   spec);
            continue;
        }
        const char *token = "?";
        for (size_t k = 0; k < nopen; k++) {
            const json_t *t = json_array_get(tokens, k);
            if (json_integer_value(json_object_get(t, "seat")) == (json_int_t)i)
                token = json_string_value(json_object_get(t, "token"));
        }
        printf("open  token %s%s%s\n", token, name ? "  name " : "", name ? name : "");
    }
    if (!nopen) {
        printf("Watch it in a browser at the server's address, or: tessera matches --url %s\n",
               url);
        return;
    }
    char q_url[600], q_bot[1100];
    cli_shell_word(url, q_url, sizeof q_url);
    cli_shell_word(bot_spec, q_bot, sizeof q_bot);
    printf("Play %s with one of our bots, or with a program of yours (the stdio protocol, "
           "docs/stdio.md), or give %s to any client (docs/protocol.md):\n",
           nopen == 1 ? "the open seat" : "each open seat", nopen == 1 ? "its token" : "a token");
    for (size_t k = 0; k < nopen; k++) {
        const json_t *t = json_array_get(tokens, k);
        long long seat = (long long)json_integer_value(json_object_get(t, "seat"));
        const char *token = json_string_value(json_object_get(t, "token"));
        printf("  tessera bot --url %s --match %s --seat %lld --token %s --bot %s\n", q_url, id,
               seat, token, q_bot);
        printf("  tessera bridge --url %s --match %s --seat %lld --token %s -- PROGRAM ARGS...\n",
               q_url, id, seat, token);
    }
    printf("(PROGRAM ARGS: your bot as you run it, e.g. python3 mybot.py)\n");
}

int cmd_create(int argc, char **argv)
{
    const char *url = CLI_DEFAULT_URL, *players = NULL, *game = NULL, *bot_spec = "mcts:sims=400",
               *admin = NULL;
    char token[CLI_TOKEN_MAX];
    const char *seats_arg[ENG_MAX_PLAYERS], *rules_kv[MAX_ARGS], *times[MAX_ARGS],
        *policies[MAX_ARGS];
    int nseats = 0, nrules = 0, ntimes = 0, npol = 0;
    bool json_out = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool has_val = i + 1 < argc;
        if (strcmp(a, "--json") == 0) {
            json_out = true;
        } else if (a[0] == '-' && a[1] == '-' &&
                   (strcmp(a, "--url") == 0 || strcmp(a, "--players") == 0 ||
                    strcmp(a, "--seat") == 0 || strcmp(a, "--rule") == 0 ||
                    strcmp(a, "--time") == 0 || strcmp(a, "--policy") == 0 ||
                    strcmp(a, "--bot") == 0 || strcmp(a, "--admin-token") == 0 ||
                    strcmp(a, "--admin-token-file") == 0)) {
            if (!has_val)
                return cli_usage_error("create", "%s needs a value", a);
            const char *v = argv[++i];
            if (strcmp(a, "--url") == 0)
                url = v;
            else if (strcmp(a, "--admin-token") == 0)
                admin = v;
            else if (strcmp(a, "--admin-token-file") == 0) {
                if (cli_admin_token_file("create", v, token, sizeof token))
                    return CLI_USAGE;
                admin = token;
            }
            else if (strcmp(a, "--players") == 0)
                players = v;
            else if (strcmp(a, "--bot") == 0)
                bot_spec = v;
            else if (strcmp(a, "--seat") == 0) {
                if (nseats == ENG_MAX_PLAYERS)
                    return cli_usage_error("create", "at most %d --seat", ENG_MAX_PLAYERS);
                seats_arg[nseats++] = v;
            } else if (nrules == MAX_ARGS || ntimes == MAX_ARGS || npol == MAX_ARGS) {
                return cli_usage_error("create", "too many %s", a);
            } else if (strcmp(a, "--rule") == 0) {
                rules_kv[nrules++] = v;
            } else if (strcmp(a, "--time") == 0) {
                times[ntimes++] = v;
            } else {
                policies[npol++] = v;
            }
        } else if (a[0] == '-' && a[1]) {
            return cli_usage_error("create", "unknown option '%s'", a);
        } else if (!game) {
            game = a;
        } else {
            return cli_usage_error("create", "one GAME only (got '%s' and '%s')", game, a);
        }
    }
    if (!game)
        return cli_usage_error("create", "which game? (see `tessera games`)");

    /* the game and its rules; --players defaults to the number of --seat, at
     * least the game's default (the seats not given are open) */
    char nbuf[16];
    const eng_game *named = eng_find_game(game);
    if (!players && named && nseats > named->default_players) {
        snprintf(nbuf, sizeof nbuf, "%d", nseats);
        players = nbuf;
    }
    eng_rules rules;
    const eng_game *g = cli_game_rules("create", game, players, rules_kv, nrules, &rules);
    if (!g)
        return CLI_USAGE;
    if (nseats > rules.players)
        return cli_usage_error("create", "%d --seat for %d players", nseats, (int)rules.players);
    char err[256];
    if (bot_check_spec(bot_spec, g, err, sizeof err) != 0)
        return cli_usage_error("create", "--bot %s: %s", bot_spec, err);

    json_t *msg = json_pack("{s:s, s:s, s:o, s:[]}", "type", "create_match", "game", g->name,
                            "rules", wire_rules_json(g, &rules), "seats");
    json_t *seats = json_object_get(msg, "seats");
    json_t *tc = json_object(), *pol = json_object();
    int rc = CLI_USAGE;
    for (int i = 0; i < rules.players; i++) {
        const char *arg = i < nseats ? seats_arg[i] : "open";
        if (server_side(arg) && !admin) {
            cli_usage_error("create",
                            "--seat %s (P%d, seat %d): a program or registered bot seat needs the "
                            "server's admin token: --admin-token-file F (the file `tessera serve "
                            "--admin-token-file F` writes)",
                            arg, i + 1, i);
            goto out;
        }
        json_t *s = seat_json(g, i, arg);
        if (!s)
            goto out;
        json_array_append_new(seats, s);
    }
    if (admin)
        json_object_set_new(msg, "admin_token", json_string(admin));
    for (int i = 0; i < ntimes; i++)
        if (add_time(tc, times[i]))
            goto out;
    for (int i = 0; i < npol; i++)
        if (add_policy(pol, policies[i]))
            goto out;
    if (json_object_size(tc))
        json_object_set(msg, "time_control", tc);
    if (json_object_size(pol))
        json_object_set(msg, "policies", pol);

    json_t *reply = NULL;
    rc = cli_request("create", url, NULL, msg, &reply);
    if (rc == CLI_OK) {
        if (json_out) {
            json_object_del(reply, "id"); /* ours, not the user's */
            char *text = json_dumps(reply, JSON_COMPACT);
            printf("%s\n", text ? text : "{}");
            free(text);
        } else {
            print_created(reply, seats, url, g->name, bot_spec);
        }
        json_decref(reply);
    }
out:
    json_decref(tc);
    json_decref(pol);
    json_decref(msg);
    return rc;
}
