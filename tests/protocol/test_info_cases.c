/*
 * test_info_cases.c — info messages a player may send (protocol/info.h),
 * read by info_read() against a position, one directory per case: what is
 * dropped with which code, and the canonical form of what is kept — an
 * info line, or a move line carrying its line (its "info": info_body_check
 * first); then the rate rule (info_pace_*).
 *
 * Usage: test_info_cases DIR. The format of DIR/<name>/{position,input,
 * expected} is described in DIR/README.md.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "case_dirs.h"

#include "protocol/info.h"
#include "protocol/stdio.h"

/* Fewer cases than this means the directory is wrong, not that all passed. */
#define MIN_CASES 20

static const char *cases_dir;

/* The position of a case: "GAME [MOVE...]" from the game's initial state,
 * every chance event drawn with eng_chance_draw(seed 1), the moves in the
 * engine's text form. A new state; *gout the game. */
static void *position(const char *name, const char *text, const eng_game **gout)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", text);
    char *save = NULL, *tok = strtok_r(buf, " \t\r\n", &save);
    if (!tok)
        fail_msg("%s: empty position", name);
    const eng_game *g = eng_find_game(tok);
    if (!g)
        fail_msg("%s: unknown game %s", name, tok);
    eng_rules r;
    eng_rules_default(g, &r);
    void *st = malloc(g->state_size);
    assert_non_null(st);
    char err[256];
    assert_int_equal(eng_init(g, st, &r, err, sizeof err), 0);
    uint64_t k = 0;
    for (;;) {
        while (g->current_player(st) == ENG_CHANCE)
            g->apply(st, eng_chance_draw(g, st, 1, k++));
        tok = strtok_r(NULL, " \t\r\n", &save);
        if (!tok)
            break;
        eng_move m;
        if (g->move_from_str(st, tok, &m) || !eng_is_legal(g, st, m))
            fail_msg("%s: move %s does not fit the position", name, tok);
        g->apply(st, m);
    }
    *gout = g;
    return st;
}

static void check_printable(const char *name, const char *reason)
{
    size_t n = strlen(reason);
    if (n == 0 || n > 240)
        fail_msg("%s: reason of %zu bytes", name, n);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)reason[i] < 0x20 || (unsigned char)reason[i] > 0x7e)
            fail_msg("%s: reason has byte 0x%02x at %zu", name, (unsigned char)reason[i], i);
}

static void run_case(void **state)
{
    const char *name = *state;
    char path[4096];
    size_t len;
    snprintf(path, sizeof path, "%s/%s/position", cases_dir, name);
    char *pos = case_slurp(path, NULL);
    if (!pos)
        fail_msg("%s: cannot read", path);
    const eng_game *g;
    void *st = position(name, pos, &g);
    const game_codec *c = codec_find(g->name);
    assert_non_null(c);

    snprintf(path, sizeof path, "%s/%s/expected", cases_dir, name);
    char *expected = case_slurp(path, NULL);
    if (!expected)
        fail_msg("%s: cannot read", path);
    char code[64], want_reason[512] = "";
    json_t *want_out = NULL;
    if (sscanf(expected, "%63s", code) != 1)
        fail_msg("%s: the first line must be a code", path);
    for (char *line = strchr(expected, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
        const char *l = line + 1;
        int ll = (int)strcspn(l, "\n");
        if (strncmp(l, "reason: ", 8) == 0) {
            snprintf(want_reason, sizeof want_reason, "%.*s", ll - 8, l + 8);
        } else if (strncmp(l, "out: ", 5) == 0) {
            json_error_t e;
            want_out = json_loadb(l + 5, (size_t)ll - 5, 0, &e);
            if (!want_out)
                fail_msg("%s: out: %s", path, e.text);
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
    while (len && (input[len - 1] == '\n'))
        len--;

    /* as a program's line reaches it: the stdio decoder first */
    stdio_reply r;
    char err[256];
    int rc = stdio_decode(input, len, 0, &r, err, sizeof err);
    if (rc)
        fail_msg("%s: the line is refused by stdio_decode: %s", name, err);
    json_t *out = (json_t *)0x1;
    memset(err, 'x', sizeof err);
    if (r.type == STDIO_MOVE) {
        /* a move's line (its "info"): the body checked, then read as a line */
        if (!r.info)
            fail_msg("%s: a move case without \"info\"", name);
        rc = info_body_check(r.info, err, sizeof err);
        if (rc == 0)
            rc = info_read(g, c, st, r.info, 0, &out, err, sizeof err);
        else
            out = NULL;
    } else {
        assert_int_equal(r.type, STDIO_INFO);
        rc = info_read(g, c, st, r.root, r.len, &out, err, sizeof err);
    }
    if (rc != want_rc)
        fail_msg("%s: got %s (%s), want %s", name, rc ? eng_err_code(rc) : "ok",
                 rc ? err : "no reason", code);
    if (rc == 0) {
        assert_non_null(out);
        if (want_out && !json_equal(out, want_out)) {
            char *got = json_dumps(out, JSON_COMPACT);
            fail_msg("%s: out %s", name, got);
        }
        /* canonical is a fixed point: read again, the same */
        json_t *again = NULL;
        assert_int_equal(info_read(g, c, st, out, 0, &again, err, sizeof err), 0);
        assert_true(json_equal(again, out));
        json_decref(again);
        json_decref(out);
    } else {
        assert_null(out);
        check_printable(name, err);
        if (want_reason[0] && !strstr(err, want_reason))
            fail_msg("%s: reason '%s' does not contain '%s'", name, err, want_reason);
    }
    stdio_reply_free(&r);
    json_decref(want_out);
    free(input);
    free(expected);
    free(pos);
    free(st);
}

/* The rate rule: the first at once, then one per interval; the latest held
 * back goes with the move; never more than the cap in a turn. */
static void test_pace(void **state)
{
    (void)state;
    info_pace p = {0};
    assert_true(info_pace_now(&p, 1000));
    assert_false(info_pace_now(&p, 1050)); /* too soon: held */
    assert_false(info_pace_now(&p, 1099)); /* replaces the held one */
    assert_true(info_pace_now(&p, 1100));  /* an interval later */
    assert_false(info_pace_final(&p));     /* nothing held */
    assert_false(info_pace_now(&p, 1150));
    assert_true(info_pace_final(&p));      /* the held one goes with the move */
    assert_int_equal(p.passed, 3);

    memset(&p, 0, sizeof p);
    double t = 0;
    int passed = 0;
    for (int i = 0; i < 10 * INFO_MAX_PER_TURN; i++, t += INFO_MIN_INTERVAL_MS)
        passed += info_pace_now(&p, t);
    assert_int_equal(passed, INFO_MAX_PER_TURN - 1); /* one kept for the final */
    assert_true(info_pace_final(&p));
    assert_false(info_pace_final(&p));
    assert_int_equal(p.passed, INFO_MAX_PER_TURN);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s CASES_DIR\n", argv[0]);
        return 2;
    }
    cases_dir = argv[1];
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_pace)};
    int failed = cmocka_run_group_tests_name("info_pace", tests, NULL, NULL);
    return failed | case_dirs_run("info_cases", cases_dir, "input", MIN_CASES, run_case);
}
