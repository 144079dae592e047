/*
 * test_stdio_cases.c — lines a bot may print, read by stdio_decode()
 * (protocol/stdio.h), one directory per case: what must be refused with
 * which code, and what must be accepted with which fields.
 *
 * Usage: test_stdio_cases DIR. The format of DIR/<name>/{input,expected} is
 * described in DIR/README.md.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "case_dirs.h"

#include "protocol/stdio.h"

/* Fewer cases than this means the directory is wrong, not that all passed. */
#define MIN_CASES 30

static const char *cases_dir;

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
    char *expected = case_slurp(path, &elen);
    if (!expected)
        fail_msg("%s: cannot read", path);
    char code[64];
    char want_reason[512] = "", want_type[32] = "", want_debug[STDIO_DEBUG_MAX + 1] = "",
         want_ignored[STDIO_IGNORED_MAX] = "";
    bool has_debug = false, has_ignored = false, want_info = false;
    long long want_turn = 0;
    if (sscanf(expected, "%63s", code) != 1)
        fail_msg("%s: the first line must be a code", path);
    for (char *line = strchr(expected, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
        const char *l = line + 1;
        int ll = (int)strcspn(l, "\n");
        if (strncmp(l, "reason: ", 8) == 0) {
            snprintf(want_reason, sizeof want_reason, "%.*s", ll - 8, l + 8);
        } else if (strncmp(l, "type: ", 6) == 0) {
            snprintf(want_type, sizeof want_type, "%.*s", ll - 6, l + 6);
        } else if (strncmp(l, "turn: ", 6) == 0) {
            want_turn = atoll(l + 6);
        } else if (strncmp(l, "debug:", 6) == 0) {
            has_debug = true;
            int skip = ll > 6 && l[6] == ' ' ? 7 : 6;
            snprintf(want_debug, sizeof want_debug, "%.*s", ll - skip, l + skip);
        } else if (strncmp(l, "info: yes", 9) == 0) {
            want_info = true;
        } else if (strncmp(l, "ignored: ", 9) == 0) {
            has_ignored = true;
            snprintf(want_ignored, sizeof want_ignored, "%.*s", ll - 9, l + 9);
        } else if (ll) {
            fail_msg("%s: unknown line '%.*s'", path, ll, l);
        }
    }
    int want_rc = strcmp(code, "ok") == 0 ? 0 : eng_err_from_code(code);
    if (strcmp(code, "ok") != 0 && want_rc == 0)
        fail_msg("%s: unknown error code '%s'", path, code);

    snprintf(path, sizeof path, "%s/%s/input", cases_dir, name);
    char *input = case_slurp(path, &len);
    if (!input)
        fail_msg("%s: cannot read", path);

    stdio_reply r;
    memset(&r, 0x5a, sizeof r); /* must be overwritten */
    char err[256];
    memset(err, 'x', sizeof err);
    int rc = stdio_decode(input, len, 0, &r, err, sizeof err);
    if (rc != want_rc)
        fail_msg("%s: got %s (%s), want %s", name, rc ? eng_err_code(rc) : "ok",
                 rc ? err : "no reason", code);
    if (rc == 0) {
        assert_non_null(r.root);
        const char *type = r.type == STDIO_MOVE     ? "move"
                           : r.type == STDIO_RESIGN ? "resign"
                                                    : "info";
        if (want_type[0] && strcmp(type, want_type) != 0)
            fail_msg("%s: type %s, want %s", name, type, want_type);
        if (r.type == STDIO_MOVE)
            assert_true(json_is_object(r.move));
        if (want_info != (r.info != NULL))
            fail_msg("%s: the move's info %s", name, r.info ? "read, not expected" : "not read");
        if (r.type == STDIO_INFO)
            assert_int_equal(r.len, len - (len && input[len - 1] == '\r'));
        if (want_turn) {
            assert_true(r.has_turn);
            assert_int_equal(r.turn, want_turn);
        } else {
            assert_false(r.has_turn);
        }
        if (has_debug)
            assert_string_equal(r.debug, want_debug);
        else
            assert_string_equal(r.debug, "");
        if (has_ignored)
            assert_string_equal(r.ignored, want_ignored);
        else
            assert_int_equal(r.n_ignored, 0);
        stdio_reply_free(&r);
        assert_null(r.root);
    } else {
        check_printable(name, err);
        assert_null(r.root);
        assert_null(r.move);
        assert_int_equal(r.n_ignored, 0);
        if (want_reason[0] && !strstr(err, want_reason))
            fail_msg("%s: reason '%s' does not contain '%s'", name, err, want_reason);
        /* the error line the runner would send back before a retry */
        json_t *e = stdio_error(rc, err);
        assert_non_null(e);
        assert_string_equal(json_string_value(json_object_get(e, "code")), code);
        size_t n;
        char *text = stdio_line(e, &n);
        assert_non_null(text);
        assert_int_equal(text[n - 1], '\n');
        assert_null(memchr(text, '\n', n - 1));
        free(text);
        json_decref(e);
    }
    free(input);
    free(expected);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s CASES_DIR\n", argv[0]);
        return 2;
    }
    cases_dir = argv[1];
    return case_dirs_run("stdio_cases", cases_dir, "input", MIN_CASES, run_case);
}
