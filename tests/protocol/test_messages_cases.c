/*
 * test_messages_cases.c — client messages that proto_decode() must refuse
 * (and a few at the edge of a limit that it must accept), one directory per
 * case.
 *
 * Usage: test_messages_cases DIR. Every subdirectory DIR/<name>/ holds
 * `input` (the raw bytes of one message) and `expected`: the wire code on the
 * first line (or `ok`), then optionally `reason: TEXT` (a piece of text the
 * reason must contain) and `id: JSON` (the id handed back for the error
 * reply, `none` for none). Each case becomes one cmocka test named after its
 * directory. Beyond the expected code, every case checks the decoder's
 * contract: on failure the message is zeroed, the reason is non-empty
 * printable ASCII, and proto_error() turns it into a reply that serialises.
 * The format is described in DIR/README.md.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "protocol/messages.h"

/* Fewer cases than this means the directory is wrong, not that all passed. */
#define MIN_CASES 40

static const char *cases_dir;

/* Read a whole file into a new buffer (NUL-terminated for convenience; the
 * length counts only the file's bytes, which may include NULs). */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n < cap)
            break;
        char *nb = realloc(buf, 2 * cap + 1);
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    fclose(f);
    if (buf) {
        buf[n] = 0;
        *len = n;
    }
    return buf;
}

static void check_printable(const char *name, const char *reason)
{
    size_t n = strlen(reason);
    if (n == 0)
        fail_msg("%s: empty reason", name);
    if (n > 240)
        fail_msg("%s: reason of %zu bytes is not short", name, n);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)reason[i] < 0x20 || (unsigned char)reason[i] > 0x7e)
            fail_msg("%s: reason has byte 0x%02x at %zu", name, (unsigned char)reason[i], i);
}

static void run_case(void **state)
{
    const char *name = *state;
    char path[4096];
    size_t len, elen;

    snprintf(path, sizeof path, "%s/%s/expected", cases_dir, name);
    char *expected = slurp(path, &elen);
    if (!expected)
        fail_msg("%s: cannot read", path);
    char code[64], want_reason[512] = "", want_id[512] = "";
    if (sscanf(expected, "%63s", code) != 1)
        fail_msg("%s: the first line must be a code", path);
    for (char *line = strchr(expected, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
        const char *l = line + 1;
        size_t ll = strcspn(l, "\n");
        if (strncmp(l, "reason: ", 8) == 0)
            snprintf(want_reason, sizeof want_reason, "%.*s", (int)(ll - 8), l + 8);
        else if (strncmp(l, "id: ", 4) == 0)
            snprintf(want_id, sizeof want_id, "%.*s", (int)(ll - 4), l + 4);
        else if (ll)
            fail_msg("%s: unknown line '%.*s'", path, (int)ll, l);
    }
    int want_rc = strcmp(code, "ok") == 0 ? 0 : eng_err_from_code(code);
    if (strcmp(code, "ok") != 0 && want_rc == 0)
        fail_msg("%s: unknown error code '%s'", path, code);

    snprintf(path, sizeof path, "%s/%s/input", cases_dir, name);
    char *input = slurp(path, &len);
    if (!input)
        fail_msg("%s: cannot read", path);

    proto_msg m;
    json_t *id = (json_t *)&m; /* must be overwritten */
    char err[256];
    memset(err, 'x', sizeof err);
    int rc = proto_decode(input, len, &m, &id, err, sizeof err);
    if (rc != want_rc)
        fail_msg("%s: got %s (%s), want %s", name, rc ? eng_err_code(rc) : "ok",
                 rc ? err : "no reason", code);
    if (rc == 0) {
        assert_null(id);
        assert_non_null(m.root);
        proto_msg_free(&m);
    } else {
        check_printable(name, err);
        assert_null(m.root);
        assert_null(m.id);
        assert_int_equal(m.nseats, 0);
        if (want_reason[0] && !strstr(err, want_reason))
            fail_msg("%s: reason '%s' does not contain '%s'", name, err, want_reason);
        if (want_id[0]) {
            if (strcmp(want_id, "none") == 0) {
                if (id)
                    fail_msg("%s: an id came back, none expected", name);
            } else {
                json_error_t je;
                json_t *w = json_loads(want_id, JSON_DECODE_ANY, &je);
                if (!w)
                    fail_msg("%s: bad id line: %s", name, je.text);
                if (!id || !json_equal(w, id))
                    fail_msg("%s: the id did not come back as %s", name, want_id);
                json_decref(w);
            }
        }
        /* The reply the server would send. */
        json_t *reply = proto_error(rc, err, id);
        assert_non_null(reply);
        assert_string_equal(json_string_value(json_object_get(reply, "code")), code);
        assert_string_equal(json_string_value(json_object_get(reply, "message")), err);
        char *text = json_dumps(reply, JSON_COMPACT);
        assert_non_null(text);
        free(text);
        json_decref(reply);
        json_decref(id);
    }
    free(input);
    free(expected);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s CASES_DIR\n", argv[0]);
        return 2;
    }
    cases_dir = argv[1];
    DIR *d = opendir(cases_dir);
    if (!d) {
        perror(cases_dir);
        return 1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s/input", cases_dir, e->d_name);
        FILE *f = fopen(path, "rb");
        if (!f)
            continue; /* not a case directory (the README) */
        fclose(f);
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            char **nn = realloc(names, cap * sizeof *names);
            if (!nn)
                return 1;
            names = nn;
        }
        names[n] = strdup(e->d_name);
        if (!names[n])
            return 1;
        n++;
    }
    closedir(d);
    if (n < MIN_CASES) {
        fprintf(stderr, "%s: only %zu cases (expected at least %d)\n", cases_dir, n, MIN_CASES);
        return 1;
    }
    qsort(names, n, sizeof *names, by_name);

    struct CMUnitTest *tests = calloc(n, sizeof *tests);
    if (!tests)
        return 1;
    for (size_t i = 0; i < n; i++) {
        tests[i].name = names[i];
        tests[i].test_func = run_case;
        tests[i].initial_state = names[i];
    }
    int failed = _cmocka_run_group_tests("message_cases", tests, n, NULL, NULL);
    free(tests);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return failed;
}
