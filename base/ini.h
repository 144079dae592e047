/*
 * ini.h — a strict reader of INI-like files (the server's config file,
 * docs/operations.md "Configuration"), and the edit distance its users
 * need for "did you mean".
 *
 *     # a comment (or ';')
 *     [section]
 *     key = value             # an inline comment follows whitespace
 *     key = "a # kept"        # quotes keep spaces and '#'; \" and \\ inside
 *
 * The reader knows the syntax only; what sections and keys exist, and what
 * a value means, is the caller's, told through two callbacks. Every error —
 * the reader's or a callback's — is given as "PATH:LINE: what", the first
 * one stops the reading, and nothing is guessed: a NUL byte or a control
 * character, a line or a file over its limit, a section without ']' or with
 * text after it, a line that is not `key = value`, a key of other than
 * letters, digits and '_', a bad quote. Standing on libc only.
 */
#ifndef TESSERA_BASE_INI_H
#define TESSERA_BASE_INI_H

#include <stddef.h>

/* A section header [NAME] was read (NAME trimmed). 0 to go on; -1 with err
 * written to refuse it. */
typedef int (*ini_section_fn)(void *ud, const char *name, char *err, size_t errcap);
/* `key = value` was read under `section` ("" before any section header),
 * the value unquoted and its comment dropped. 0 to go on; -1 with err
 * written to refuse it. */
typedef int (*ini_pair_fn)(void *ud, const char *section, const char *key, const char *value,
                           char *err, size_t errcap);

/* Read the file at path, at most max_bytes long with lines of at most
 * max_line characters, calling on_section and on_pair in the file's order.
 * 0, or -1 with err ("PATH:LINE: …", or why the file could not be read). */
int ini_read(const char *path, size_t max_bytes, size_t max_line, ini_section_fn on_section,
             ini_pair_fn on_pair, void *ud, char *err, size_t errcap);

/* The edit distance of two names, letters compared without case; names
 * longer than 40 characters are 99 apart (names are short). */
int ini_distance(const char *a, const char *b);

#endif
