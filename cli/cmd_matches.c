/*
 * cmd_matches.c — `tessera matches`: the matches a running server holds
 * (list_matches, docs/protocol.md), one line each, newest first: id, game,
 * status, turn, scores, who sits where and how it ended.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

const char cmd_matches_usage[] =
    "usage: tessera matches [--url URL] [--status live|finished|all] [--json]\n"
    "\n"
    "Lists the matches the server holds, newest first (at most 200): id, game,\n"
    "status (waiting: open seats not yet joined; live; finished), the turn, the\n"
    "scores, the players P1, P2, ... (a bot's spec, or an open seat's name) and\n"
    "the result. `tessera export ID` saves one as a game record.\n"
    "  --url URL        the server (default " CLI_DEFAULT_URL ")\n"
    "  --status S       live (waiting or being played), finished, or all (default)\n"
    "  --json           print the server's list (the `matches` array) as one JSON line\n"
    "Exit status: 0 listed (also when there is none); 1 no server answers at URL;\n"
    "2 bad arguments.\n";

/* "P2 won", "P1 and P2 drew", "P1 resigned, P2 won", ... */
static void describe_result(const json_t *res, char *buf, size_t cap)
{
    const char *reason = json_string_value(json_object_get(res, "reason"));
    const json_t *winners = json_object_get(res, "winners"), *seat = json_object_get(res, "seat");
    size_t o = 0;
    buf[0] = 0;
    if (!reason)
        return;
    if (json_is_integer(seat)) {
        int p = (int)json_integer_value(seat) + 1;
        const char *how = strcmp(reason, "resignation") == 0  ? "resigned"
                          : strcmp(reason, "timeout") == 0    ? "lost on time"
                          : strcmp(reason, "illegal") == 0    ? "lost by illegal moves"
                          : strcmp(reason, "disconnect") == 0 ? "left"
                                                              : reason;
        o += (size_t)snprintf(buf + o, cap - o, "P%d %s, ", p, how);
    } else if (strcmp(reason, "normal") != 0) {
        o += (size_t)snprintf(buf + o, cap - o, "%s, ", reason);
    }
    size_t nw = json_array_size(winners);
    for (size_t i = 0; i < nw && o < cap; i++)
        o += (size_t)snprintf(buf + o, cap - o, "%sP%lld", i ? (i + 1 == nw ? " and " : ", ") : "",
                              (long long)json_integer_value(json_array_get(winners, i)) + 1);
    if (o < cap)
        snprintf(buf + o, cap - o, nw > 1 ? " drew" : nw == 1 ? " won" : "no winner");
}

int cmd_matches(int argc, char **argv)
{
    const char *url = CLI_DEFAULT_URL, *status = "all";
    bool json_out = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0)
            json_out = true;
        else if ((strcmp(argv[i], "--url") == 0 || strcmp(argv[i], "--status") == 0) &&
                 i + 1 < argc)
            *(strcmp(argv[i], "--url") == 0 ? &url : &status) = argv[i + 1], i++;
        else if (strcmp(argv[i], "--url") == 0 || strcmp(argv[i], "--status") == 0)
            return cli_usage_error("matches", "%s needs a value", argv[i]);
        else
            return cli_usage_error("matches", "unexpected argument '%s'", argv[i]);
    }
    if (strcmp(status, "live") != 0 && strcmp(status, "finished") != 0 &&
        strcmp(status, "all") != 0)
        return cli_usage_error("matches", "--status takes live, finished or all, not '%s'", status);
    json_t *msg = json_pack("{s:s, s:s}", "type", "list_matches", "status", status);
    json_t *reply = NULL;
    int rc = cli_request("matches", url, NULL, msg, &reply);
    json_decref(msg);
    if (rc != CLI_OK)
        return rc;
    const json_t *list = json_object_get(reply, "matches");
    if (json_out) {
        char *text = json_dumps(list, JSON_COMPACT);
        printf("%s\n", text ? text : "[]");
        free(text);
        json_decref(reply);
        return CLI_OK;
    }
    if (json_array_size(list) == 0) {
        if (strcmp(status, "all") == 0)
            printf("no matches on %s\n", url);
        else
            printf("no %s matches on %s (`--status all` lists every one)\n", status, url);
        json_decref(reply);
        return CLI_OK;
    }
    printf("%-10s %-12s %-9s %5s  %-12s %s\n", "match", "game", "status", "turn", "scores",
           "players / result");
    size_t i;
    json_t *m;
    json_array_foreach(list, i, m)
    {
        char scores[64] = "", players[600] = "", result[160] = "";
        size_t o = 0, k;
        json_t *v;
        json_array_foreach(json_object_get(m, "scores"), k, v)
        {
            if (o < sizeof scores)
                o += (size_t)snprintf(scores + o, sizeof scores - o, "%s%lld", k ? "-" : "",
                                      (long long)json_integer_value(v));
        }
        o = 0;
        json_array_foreach(json_object_get(m, "seats"), k, v)
        {
            const char *kind = json_string_value(json_object_get(v, "kind"));
            const char *name = json_string_value(json_object_get(v, "name"));
            bool open = kind && strcmp(kind, "open") == 0;
            if (o < sizeof players)
                o += (size_t)snprintf(
                    players + o, sizeof players - o, "%sP%zu %s%s", k ? ", " : "", k + 1,
                    name && *name ? name
                    : open        ? "(open)"
                                  : "?",
                    open && !json_is_true(json_object_get(v, "connected")) ? " (not connected)"
                                                                           : "");
        }
        const char *st = json_string_value(json_object_get(m, "status"));
        const json_t *res = json_object_get(m, "result"), *to_move = json_object_get(m, "to_move");
        if (json_is_object(res))
            describe_result(res, result, sizeof result);
        else if (json_is_integer(to_move))
            snprintf(result, sizeof result, "P%lld to move",
                     (long long)json_integer_value(to_move) + 1);
        printf("%-10s %-12s %-9s %5lld  %-12s %s%s%s\n",
               json_string_value(json_object_get(m, "match")),
               json_string_value(json_object_get(m, "game")), st ? st : "?",
               (long long)json_integer_value(json_object_get(m, "turn")), scores, players,
               result[0] ? " — " : "", result);
    }
    json_decref(reply);
    return CLI_OK;
}
