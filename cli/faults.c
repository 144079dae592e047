/*
 * faults.c — where the CLI keeps fault bundles (players/bundle.h): the file
 * of a program's fault in `tessera match` or `tessera tournament`, the line
 * that says how to make it happen again (`tessera doctor --replay`), and
 * the tournament report's section that links them.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "engine/textbuf.h"
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

/* One bundle's line of the report: its game, seat, player and verdict. */
static void bundle_line(textbuf *tb, const char *dir, const char *rel, const char *name)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    json_error_t je;
    json_t *b = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    const char *verdict = json_string_value(json_object_get(b, "verdict"));
    const char *prog = json_string_value(json_object_get(b, "player"));
    json_t *turn = json_object_get(b, "turn");
    tb_printf(tb, "- [`%s/%s`](%s/%s) — `%s`: %s at turn %lld\n", rel, name, rel, name,
              prog ? prog : "?", verdict ? verdict : "(not a bundle)",
              (long long)json_integer_value(turn));
    json_decref(b);
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

char *cli_faults_markdown(const char *dir, const char *rel)
{
    DIR *d = opendir(dir);
    if (!d)
        return NULL;
    char *names[CLI_FAULTS_LISTED];
    int n = 0, more = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strncmp(e->d_name, "game-", 5) != 0 || strcmp(e->d_name + len - 5, ".json"))
            continue;
        if (n < CLI_FAULTS_LISTED && (names[n] = strdup(e->d_name)))
            n++;
        else
            more++;
    }
    closedir(d);
    if (n == 0)
        return NULL;
    qsort(names, (size_t)n, sizeof *names, cmp_names);
    textbuf tb = TEXTBUF_INIT;
    tb_printf(&tb,
              "\n## Faults\n\nEach fault of a program, kept as a bundle that makes it happen "
              "again (docs/bundles.md): from this folder, `tessera doctor --replay %s/FILE` plays "
              "one again, `... -- PROGRAM` to a fixed program.\n\n",
              rel);
    for (int i = 0; i < n; i++) {
        bundle_line(&tb, dir, rel, names[i]);
        free(names[i]);
    }
    if (more)
        tb_printf(&tb, "- and %d more in `%s/`\n", more, rel);
    if (tb.failed) {
        tb_free(&tb);
        return NULL;
    }
    return tb_take(&tb);
}
