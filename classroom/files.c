/*
 * files.c — the submissions' folders (internal.h): where a submission's
 * files live (DIR/course-C/student-S/vN-RANDOM: the bots of every student
 * run as the same user and the directories above are not listable, so no
 * bot can find another's), the spec it runs as, and a folder made again
 * from the database on a server of the cluster that did not write it.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "classroom/internal.h"
#include "engine/errors.h"

void class__sub_spec(const sub_t *s, char *out, size_t cap)
{
    class_kind k = CLASS_ELF;
    class_kind_parse(s->kind, &k); /* the kinds stored are the parser's */
    class_kind_spec(k, s->dir, s->main, out, cap);
}

/* Make the directories of path: those under the data directory 0711 (no
 * one else can list them), the last one 0755 (its name is unguessable). */
int class__mkdirs(const class_service *svc, const char *path)
{
    char tmp[PATH_MAX];
    size_t root = strlen(svc->dir);
    snprintf(tmp, sizeof tmp, "%s", path);
    for (char *p = tmp + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            bool ours = strlen(tmp) >= root;
            if (mkdir(tmp, ours ? 0711 : 0755) != 0 && errno != EEXIST)
                return -1;
            if (ours)
                chmod(tmp, 0711);
            *p = '/';
        }
    if (mkdir(tmp, 0755) != 0)
        return -1;
    return chmod(tmp, 0755);
}

/* ---- a folder another server wrote ---------------------------------------------------------- */

typedef struct remake {
    const sub_t *s;
    int rc;
} remake;

static bool remake_file(const char *name, const void *data, int len, void *user)
{
    remake *m = user;
    char path[PATH_MAX + 80];
    snprintf(path, sizeof path, "%s/%s", m->s->dir, name ? name : "");
    FILE *f = name && class_path_ok(name) && class_path_mkdirs(m->s->dir, name) == 0
                  ? fopen(path, "wbx")
                  : NULL;
    bool ok = f && (len == 0 || fwrite(data, 1, (size_t)len, f) == (size_t)len);
    if (f && fclose(f) != 0)
        ok = false;
    class_kind k = CLASS_PYTHON;
    class_kind_parse(m->s->kind, &k);
    bool exe = name && class_file_runs(k, name, m->s->main);
    if (!ok || chmod(path, exe ? 0755 : 0644) != 0)
        m->rc = -1;
    return m->rc == 0;
}

/* The folder is made again where the row says, from the files the row's
 * upload also stored in the database; the main file of a native bot
 * executable. */
int class__ensure_files(class_service *svc, const sub_t *s)
{
    struct stat sb;
    if (!s->dir[0] || strcmp(s->kind, "remote") == 0 || stat(s->dir, &sb) == 0)
        return 0;
    remake m = {.s = s, .rc = class__mkdirs(svc, s->dir)};
    int n = m.rc == 0 ? class__sub_files(svc, s->id, remake_file, &m) : 0;
    if (n < 0)
        m.rc = -1;
    if (m.rc == 0 && n == 0)
        m.rc = -1; /* nothing to make it from */
    class__log(svc, m.rc ? CLASS_LOG_ERROR : CLASS_LOG_INFO, "submission_files",
               "{s:I, s:s, s:i, s:s}", "submission", (json_int_t)s->id, "dir", s->dir, "files",
               n < 0 ? 0 : n, "outcome",
               m.rc ? "could not be made again on this server" : "made again from the database");
    return m.rc;
}
