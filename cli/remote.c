/*
 * remote.c — what the subcommands that talk to a running server share
 * (`tessera create`, `matches`, `export`): one protocol request and its
 * reply (client/botclient.h), with every way it can fail turned into a
 * message naming the server and an exit code — the server cannot be
 * reached: 1; a bad URL, or the server refusing the arguments (an unknown
 * bot, a bad rule, an unknown match): 2; the server failing for its own
 * reasons (a limit, storage): 1.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "client/botclient.h"

/* How long a one-shot request may take: connecting, hello, the reply (a
 * whole match's record is a few KB). */
#define CLI_REQUEST_MS 15000

/* Error codes that mean "what you asked for is wrong" (exit 2), as opposed
 * to the server's own trouble (exit 1). */
static bool bad_input(const char *code)
{
    static const char *const codes[] = {
        "bad_message",         "unknown_game",  "bad_rule",     "bad_players", "unknown_bot",
        "bad_bot_spec",        "unknown_match", "no_such_seat", "bad_token",   "bad_record",
        "unsupported_version", "forbidden",
    };
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
        if (code && strcmp(code, codes[i]) == 0)
            return true;
    return false;
}

int cli_request(const char *cmd, const char *url, const char *about, json_t *msg, json_t **reply)
{
    char err[320];
    *reply = NULL;
    int rc = botclient_request(url, msg, CLI_REQUEST_MS, reply, err, sizeof err);
    if (rc == 2)
        return cli_usage_error(cmd, "--url: %s", err);
    if (rc != 0) {
        fprintf(stderr, "tessera %s: cannot reach a tessera server at %s: %s\n", cmd, url, err);
        return CLI_FAIL;
    }
    const char *type = json_string_value(json_object_get(*reply, "type"));
    if (type && strcmp(type, "error") == 0) {
        const char *code = json_string_value(json_object_get(*reply, "code"));
        const char *text = json_string_value(json_object_get(*reply, "message"));
        fprintf(stderr, "tessera %s: %s%sthe server at %s says: %s (%s)\n", cmd, about ? about : "",
                about ? ": " : "", url, text ? text : "error", code ? code : "?");
        int exit_code = bad_input(code) ? CLI_USAGE : CLI_FAIL;
        json_decref(*reply);
        *reply = NULL;
        return exit_code;
    }
    return CLI_OK;
}

const char *cli_shell_word(const char *s, char *buf, size_t cap)
{
    bool plain = *s != 0;
    for (const char *p = s; *p && plain; p++)
        plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.,:/=@+%",
                       *p) != NULL;
    if (plain) {
        snprintf(buf, cap, "%s", s);
        return buf;
    }
    size_t o = 0;
    if (o + 1 < cap)
        buf[o++] = '\'';
    for (const char *p = s; *p && o + 5 < cap; p++) {
        if (*p == '\'') { /* close, an escaped quote, reopen */
            memcpy(buf + o, "'\\''", 4);
            o += 4;
        } else {
            buf[o++] = *p;
        }
    }
    if (o + 1 < cap)
        buf[o++] = '\'';
    buf[o < cap ? o : cap - 1] = 0;
    return buf;
}

int cli_admin_token_file(const char *cmd, const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return cli_usage_error(cmd, "--admin-token-file %s: %s", path, strerror(errno));
    bool ok = fgets(buf, (int)cap, f) != NULL;
    fclose(f);
    if (ok)
        buf[strcspn(buf, "\r\n")] = 0;
    if (!ok || !buf[0])
        return cli_usage_error(cmd, "--admin-token-file %s holds no token", path);
    return 0;
}
