/*
 * cmd_export.c — `tessera export`: a match the server holds, saved as a game
 * record (get_record, docs/protocol.md; the format of docs/records.md) that
 * `tessera replay` checks and the web UI's replay opens.
 *
 * The output file is made before the server is asked (a path that cannot
 * be written is a bad argument, found at once) and written whole: the
 * record goes to a temporary file next to it, renamed over it at the end.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

const char cmd_export_usage[] =
    "usage: tessera export MATCH [--url URL] [-o FILE]\n"
    "\n"
    "Writes match MATCH (an id from `tessera matches`) as a game record (JSON,\n"
    "docs/records.md) to FILE, or to standard output. The record holds every\n"
    "complete turn: all of a finished game; a match that ended early (resignation,\n"
    "timeout) or is still live stops at its last complete turn. `tessera replay FILE`\n"
    "checks it against the rules.\n"
    "  --url URL        the server (default " CLI_DEFAULT_URL ")\n"
    "  -o FILE          write to FILE ('-' = standard output, the default)\n"
    "Exit status: 0 written; 1 no server answers at URL, or FILE cannot be written\n"
    "whole; 2 bad arguments (an unknown match, a FILE that cannot be created).\n";

int cmd_export(int argc, char **argv)
{
    const char *url = CLI_DEFAULT_URL, *out_path = NULL, *id = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if ((strcmp(a, "--url") == 0 || strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0)) {
            if (i + 1 >= argc)
                return cli_usage_error("export", "%s needs a value", a);
            if (strcmp(a, "--url") == 0)
                url = argv[++i];
            else
                out_path = argv[++i];
        } else if (a[0] == '-' && a[1]) {
            return cli_usage_error("export", "unknown option '%s'", a);
        } else if (!id) {
            id = a;
        } else {
            return cli_usage_error("export", "one MATCH only (got '%s' and '%s')", id, a);
        }
    }
    if (!id)
        return cli_usage_error("export", "which match? (`tessera matches` lists them)");
    size_t idlen = strlen(id);
    if (idlen > 32 ||
        strspn(id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != idlen)
        return cli_usage_error("export", "'%s' is not a match id (1-32 of A-Z a-z 0-9 _ -)", id);
    if (out_path && strcmp(out_path, "-") == 0)
        out_path = NULL;

    /* the file first: a path that cannot be written is found before any work */
    char tmp[4200] = "";
    FILE *f = stdout;
    if (out_path) {
        if (strlen(out_path) > 4000)
            return cli_usage_error("export", "-o: the path is too long");
        snprintf(tmp, sizeof tmp, "%s.tmp%ld", out_path, (long)getpid());
        f = fopen(tmp, "w");
        if (!f)
            return cli_usage_error("export", "-o %s: cannot create the file (%s)", out_path,
                                   strerror(errno));
    }

    json_t *msg = json_pack("{s:s, s:s}", "type", "get_record", "match", id);
    json_t *reply = NULL;
    char about[64];
    snprintf(about, sizeof about, "match %s", id);
    int rc = cli_request("export", url, about, msg, &reply);
    json_decref(msg);
    const json_t *rec = json_object_get(reply, "record");
    if (rc == CLI_OK && !json_is_object(rec)) {
        fprintf(stderr, "tessera export: the server at %s sent no record\n", url);
        rc = CLI_FAIL;
    }
    if (rc == CLI_OK) {
        char *text = json_dumps(rec, JSON_COMPACT);
        bool ok = text && fprintf(f, "%s\n", text) >= 0;
        free(text);
        ok = (out_path ? fclose(f) == 0 : fflush(f) == 0) && ok;
        f = NULL;
        int werr = ok ? 0 : errno;
        if (ok && out_path && rename(tmp, out_path) != 0) {
            werr = errno;
            ok = false;
        }
        if (!ok) {
            fprintf(stderr, "tessera export: could not write %s (%s)\n",
                    out_path ? out_path : "the record", strerror(werr ? werr : EIO));
            rc = CLI_FAIL;
        } else {
            const char *status = json_string_value(json_object_get(reply, "status"));
            size_t turns = json_array_size(json_object_get(rec, "turns"));
            fprintf(stderr, "tessera export: match %s (%s, %zu turn%s%s) written to %s\n", id,
                    status ? status : "?", turns, turns == 1 ? "" : "s",
                    json_object_get(rec, "result")              ? ", the whole game"
                    : status && strcmp(status, "finished") == 0 ? ", ended before the game did"
                                                                : " so far",
                    out_path ? out_path : "standard output");
        }
    }
    if (f && out_path)
        fclose(f);
    if (rc != CLI_OK && out_path)
        unlink(tmp);
    json_decref(reply);
    return rc;
}
