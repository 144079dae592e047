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
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "case_dirs.h"

#include "protocol/messages.h"

/* Fewer cases than this means the directory is wrong, not that all passed. */
#define MIN_CASES 40

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
    char *input = case_slurp(path, &len);
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

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s CASES_DIR\n", argv[0]);
        return 2;
    }
    cases_dir = argv[1];
    return case_dirs_run("message_cases", cases_dir, "input", MIN_CASES, run_case);
}
