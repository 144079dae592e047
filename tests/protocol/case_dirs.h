/*
 * case_dirs.h — what the protocol tests share: reading a file whole, and
 * running one cmocka test per case directory (DIR/<name>/ holding an input
 * file), so that a failure names its case.
 */
#ifndef TESSERA_TESTS_CASE_DIRS_H
#define TESSERA_TESTS_CASE_DIRS_H

#include <stddef.h>

/* A whole file in a new buffer, NUL-terminated for convenience; *len (if
 * len is not NULL) counts only the file's bytes, which may include NULs.
 * NULL if it cannot be read. */
char *case_slurp(const char *path, size_t *len);

/* Runs `run` once per subdirectory of dir holding a file named `input`,
 * in name order, as the cmocka group `group`; the test's state is the
 * directory's name. Fails (returns non-zero) with fewer than min_cases
 * cases: a wrong directory must not pass as "all passed". */
int case_dirs_run(const char *group, const char *dir, const char *input, size_t min_cases,
                  void (*run)(void **state));

#endif
