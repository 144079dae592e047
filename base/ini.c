/*
 * ini.c — ini.h's reader: the file read whole (it is a page of settings: a
 * bigger one is the wrong file), then line by line, each line trimmed,
 * checked and handed to the caller's callbacks; values unquoted in place.
 * The text is the reader's, freed before it returns: a callback copies what
 * it keeps.
 */
#include "base/ini.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ini_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 40 || lb > 40)
        return 99;
    int row[41];
    for (size_t j = 0; j <= lb; j++)
        row[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        int prev = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int cur = row[j];
            int sub = prev + (tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]));
            int best = row[j] + 1 < row[j - 1] + 1 ? row[j] + 1 : row[j - 1] + 1;
            row[j] = sub < best ? sub : best;
            prev = cur;
        }
    }
    return row[lb];
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        s[--n] = 0;
    return s;
}

/* The value part of a line, unquoted, its comment dropped, in place.
 * NULL with err on a bad quote. */
static char *parse_value(char *v, char *err, size_t errcap)
{
    v = trim(v);
    if (*v != '"') {
        /* an inline comment starts with '#' after whitespace (a '#' inside a
         * word, e.g. a path, is kept) */
        for (char *p = v; *p; p++)
            if (*p == '#' && (p == v || p[-1] == ' ' || p[-1] == '\t')) {
                *p = 0;
                break;
            }
        return trim(v);
    }
    char *out = v, *p = v + 1;
    for (;; p++) {
        if (!*p) {
            snprintf(err, errcap, "unterminated quoted value (a '\"' is missing at the end)");
            return NULL;
        }
        if (*p == '"')
            break;
        if (*p == '\\') {
            if (p[1] != '"' && p[1] != '\\') {
                snprintf(err, errcap, "in a quoted value only \\\" and \\\\ are escapes");
                return NULL;
            }
            p++;
        }
        *out++ = *p;
    }
    *out = 0;
    char *rest = trim(p + 1);
    if (*rest && *rest != '#') {
        snprintf(err, errcap, "text after the closing quote: '%.40s'", rest);
        return NULL;
    }
    return v;
}

static bool key_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* One line (NUL-terminated, within max_line); e[0] stays 0 when it is good. */
static void read_line(char *p, char *section, size_t seccap, ini_section_fn on_section,
                      ini_pair_fn on_pair, void *ud, char *e, size_t ecap)
{
    char *line = trim(p);
    for (char *q = line; *q; q++)
        if ((unsigned char)*q < 0x20 && *q != '\t') {
            snprintf(e, ecap, "a control character (byte 0x%02x)", (unsigned char)*q);
            return;
        }
    if (!*line || *line == '#' || *line == ';')
        return; /* a blank line or a comment */
    if (*line == '[') {
        char *close = strchr(line, ']');
        char *rest = close ? trim(close + 1) : NULL;
        if (!close) {
            snprintf(e, ecap, "'[' without ']': a section is [NAME]");
        } else if (*rest && *rest != '#') {
            snprintf(e, ecap, "text after the section's ']': '%.40s'", rest);
        } else {
            *close = 0;
            char *name = trim(line + 1);
            if (on_section(ud, name, e, ecap) == 0)
                snprintf(section, seccap, "%s", name);
            else if (!e[0])
                snprintf(e, ecap, "section [%.40s] refused", name);
        }
        return;
    }
    char *eq = strchr(line, '=');
    if (!eq) {
        snprintf(e, ecap, "expected 'key = value', got '%.60s'", line);
        return;
    }
    *eq = 0;
    char *key = trim(line);
    bool ok = *key != 0;
    for (char *q = key; *q && ok; q++)
        ok = key_char(*q);
    if (!ok) {
        snprintf(e, ecap, "'%.60s' is not a key (letters, digits and '_'; 'key = value')", key);
        return;
    }
    char *v = parse_value(eq + 1, e, ecap);
    if (v && on_pair(ud, section, key, v, e, ecap) != 0 && !e[0])
        snprintf(e, ecap, "'%.60s' refused", key);
}

int ini_read(const char *path, size_t max_bytes, size_t max_line, ini_section_fn on_section,
             ini_pair_fn on_pair, void *ud, char *err, size_t errcap)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errcap, "cannot read config file %s: %s", path, strerror(errno));
        return -1;
    }
    char *text = malloc(max_bytes + 1);
    if (!text) {
        fclose(f);
        snprintf(err, errcap, "out of memory");
        return -1;
    }
    size_t len = fread(text, 1, max_bytes + 1, f);
    bool rerr = ferror(f);
    fclose(f);
    if (rerr || len > max_bytes) {
        if (rerr)
            snprintf(err, errcap, "cannot read config file %s", path);
        else
            snprintf(err, errcap, "config file %s is larger than %zu bytes: is it the right file?",
                     path, max_bytes);
        free(text);
        return -1;
    }
    text[len] = 0;
    char section[64] = "";
    int rc = 0, lineno = 0;
    char e[320];
    for (char *p = text; rc == 0 && p < text + len;) {
        lineno++;
        char *eol = memchr(p, '\n', (size_t)(text + len - p));
        char *next = eol ? eol + 1 : text + len;
        size_t n = (size_t)((eol ? eol : text + len) - p);
        e[0] = 0;
        if (memchr(p, 0, n)) {
            snprintf(e, sizeof e, "a NUL byte: this is not a text file");
        } else if (n > max_line) {
            snprintf(e, sizeof e, "the line is longer than %zu characters", max_line);
        } else {
            p[n] = 0;
            read_line(p, section, sizeof section, on_section, on_pair, ud, e, sizeof e);
        }
        if (e[0]) {
            snprintf(err, errcap, "%s:%d: %s", path, lineno, e);
            rc = -1;
        }
        p = next;
    }
    free(text);
    return rc;
}
