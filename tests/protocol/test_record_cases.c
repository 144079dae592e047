/*
 * test_record_cases.c — invalid game records, one directory per case.
 *
 * Usage: test_record_cases DIR. Every subdirectory DIR/<name>/ holds
 * `input.json` (the record, usually a real `tessera play` record broken in
 * one way) and `expected`: a first line "<wire code> <turn>" (e.g.
 * "illegal_move 3"; turn 0 = outside the turns) and optionally a second
 * line, a piece of text the reason must contain. Each case becomes one
 * cmocka test named after its directory, so a failure names the case. A
 * case directory named `valid-*` must replay without error instead ("ok 0").
 * Cases found by fuzzing carry the prefix `fuzz-` and say so in a README.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "protocol/record.h"

/* Fewer cases than this means the directory is wrong, not that all passed. */
#define MIN_CASES 25

static const char *cases_dir;

/* Read a whole file into a new NUL-terminated buffer; NULL if it cannot. */
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

static void run_case(void **state)
{
    const char *name = *state;
    char path[4096];
    size_t len, elen;

    snprintf(path, sizeof path, "%s/%s/expected", cases_dir, name);
    char *expected = slurp(path, &elen);
    if (!expected)
        fail_msg("%s: cannot read", path);
    char code[64], want_text[512] = "";
    int want_turn;
    if (sscanf(expected, "%63s %d", code, &want_turn) != 2)
        fail_msg("%s: first line must be '<code> <turn>'", path);
    const char *nl = strchr(expected, '\n');
    if (nl && nl[1]) {
        snprintf(want_text, sizeof want_text, "%s", nl + 1);
        want_text[strcspn(want_text, "\n")] = 0;
    }
    int want_rc = strcmp(code, "ok") == 0 ? 0 : eng_err_from_code(code);
    if (strcmp(code, "ok") != 0 && want_rc == 0)
        fail_msg("%s: unknown error code '%s'", path, code);

    snprintf(path, sizeof path, "%s/%s/input.json", cases_dir, name);
    char *input = slurp(path, &len);
    if (!input)
        fail_msg("%s: cannot read", path);

    rec_replay out;
    int rc = rec_replay_buffer(input, len, NULL, NULL, &out);
    if (rc != want_rc || out.bad_turn != want_turn)
        fail_msg("%s: got '%s %d' (%s), want '%s %d'", name, rc ? eng_err_code(rc) : "ok",
                 out.bad_turn, out.reason, code, want_turn);
    if (rc != 0)
        assert_true(out.reason[0] != 0);
    if (want_text[0] && !strstr(out.reason, want_text))
        fail_msg("%s: reason '%s' does not contain '%s'", name, out.reason, want_text);
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
        snprintf(path, sizeof path, "%s/%s/input.json", cases_dir, e->d_name);
        FILE *f = fopen(path, "rb");
        if (!f)
            continue; /* not a case directory (a README, ...) */
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
    int failed = _cmocka_run_group_tests("record_cases", tests, n, NULL, NULL);
    free(tests);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return failed;
}
