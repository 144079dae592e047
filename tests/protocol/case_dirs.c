/*
 * case_dirs.c — see case_dirs.h.
 */
#include "case_dirs.h"

#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

char *case_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
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
        if (len)
            *len = n;
    }
    return buf;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

int case_dirs_run(const char *group, const char *dir, const char *input, size_t min_cases,
                  void (*run)(void **state))
{
    DIR *d = opendir(dir);
    if (!d) {
        perror(dir);
        return 1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s/%s", dir, e->d_name, input);
        FILE *f = fopen(path, "rb");
        if (!f)
            continue; /* not a case directory (a README, ...) */
        fclose(f);
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            char **nn = realloc(names, cap * sizeof *names);
            if (!nn)
                break;
            names = nn;
        }
        if (!(names[n] = strdup(e->d_name)))
            break;
        n++;
    }
    closedir(d);
    if (e) { /* stopped early: out of memory */
        fprintf(stderr, "%s: out of memory listing the cases\n", dir);
        free_names(names, n);
        return 1;
    }
    if (n < min_cases) {
        fprintf(stderr, "%s: only %zu cases (expected at least %zu)\n", dir, n, min_cases);
        free_names(names, n);
        return 1;
    }
    qsort(names, n, sizeof *names, by_name);
    struct CMUnitTest *tests = calloc(n, sizeof *tests);
    if (!tests) {
        free_names(names, n);
        return 1;
    }
    for (size_t i = 0; i < n; i++) {
        tests[i].name = names[i];
        tests[i].test_func = run;
        tests[i].initial_state = names[i];
    }
    int failed = _cmocka_run_group_tests(group, tests, n, NULL, NULL);
    free(tests);
    free_names(names, n);
    return failed;
}
