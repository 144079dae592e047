/*
 * faults.c — where the CLI keeps fault bundles (players/bundle.h): the file
 * of a program's fault in `tessera match` or `tessera tournament`, and the
 * line that says how to make it happen again (`tessera doctor --replay`).
 */
#include <stdio.h>

#include "cli.h"
#include "players/bundle.h"

int cli_keep_bundle(const char *cmd, const char *dir, const json_t *b, long long game, int seat,
                    char *kept, size_t keptcap)
{
    char name[64], path[4096], err[512];
    snprintf(name, sizeof name, "game-%06lld-P%d", game, seat + 1);
    if (bundle_write(b, dir, name, path, sizeof path, err, sizeof err) != 0) {
        fprintf(stderr, "tessera %s: the fault's bundle: %s\n", cmd, err);
        return -1;
    }
    const char *prog = json_string_value(json_object_get(b, "player"));
    const char *verdict = json_string_value(json_object_get(b, "verdict"));
    fprintf(stderr,
            "tessera %s: game %lld, P%d (%s): %s; to make it happen again:\n"
            "  tessera doctor --replay %s        (or: ... --replay %s -- PROGRAM, a fixed one)\n",
            cmd, game, seat + 1, prog ? prog : "?", verdict ? verdict : "fault", path, path);
    if (kept && keptcap)
        snprintf(kept, keptcap, "%s", path);
    return 0;
}
