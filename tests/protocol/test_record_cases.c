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
 *
 * Every registered game must have cases of its own (its `game` in
 * input.json): at least one valid-* record and MIN_GAME_CASES records
 * refused inside their turns, so a new game cannot pass without them.
 *
 * Every case that is JSON also goes through wire_replay() (the server's
 * `replay` of a record sent along): the same code and, inside the turns, a
 * message that starts "turn N:". The server once looked up the record's
 * game before checking that it was a record at all, so `{}` was
 * unknown_game there and bad_record here (issue 15, item 6).
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "case_dirs.h"

#include "protocol/record.h"
#include "protocol/wire.h"

/* Fewer cases than this means the directory is wrong, not that all passed. */
#define MIN_CASES 25

/* Refused-inside-the-turns cases every registered game needs. */
#define MIN_GAME_CASES 5

static const char *cases_dir;

/* Count each registered game's cases: valid ones and ones refused inside
 * the turns ("<code> N", N > 0). */
static void test_every_game_has_cases(void **unused)
{
    (void)unused;
    int ng;
    const eng_game *const *games = eng_games(&ng);
    int valid[64] = {0}, bad[64] = {0};
    assert_true(ng <= 64);
    DIR *d = opendir(cases_dir);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s/input.json", cases_dir, e->d_name);
        json_t *rec = json_load_file(path, 0, NULL);
        snprintf(path, sizeof path, "%s/%s/expected", cases_dir, e->d_name);
        char *expected = case_slurp(path, NULL);
        char code[64];
        int turn = 0;
        const char *game = json_string_value(json_object_get(rec, "game"));
        if (game && expected && sscanf(expected, "%63s %d", code, &turn) == 2)
            for (int i = 0; i < ng; i++)
                if (strcmp(games[i]->name, game) == 0) {
                    valid[i] += strncmp(e->d_name, "valid-", 6) == 0 && strcmp(code, "ok") == 0;
                    bad[i] += strcmp(code, "ok") != 0 && turn > 0;
                }
        free(expected);
        json_decref(rec);
    }
    closedir(d);
    for (int i = 0; i < ng; i++) {
        print_message("      %-14s %d valid, %d refused in a turn\n", games[i]->name, valid[i],
                      bad[i]);
        if (valid[i] < 1 || bad[i] < MIN_GAME_CASES)
            fail_msg("game %s needs a valid-* case and %d cases refused inside the turns in %s "
                     "(has %d and %d)",
                     games[i]->name, MIN_GAME_CASES, cases_dir, valid[i], bad[i]);
    }
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
    char *input = case_slurp(path, &len);
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

    json_t *rec =
        len <= REC_MAX_BYTES ? json_loadb(input, len, JSON_REJECT_DUPLICATES, NULL) : NULL;
    if (rec) {
        int wcode = 0;
        char msg[320] = "";
        json_t *body = wire_replay(rec, NULL, &wcode, msg, sizeof msg);
        if (want_rc == 0) {
            if (!body)
                fail_msg("%s: wire_replay: %s (%s)", name, eng_err_code(wcode), msg);
            assert_int_equal(json_array_size(json_object_get(body, "turns")), out.turns);
            assert_true(json_is_object(json_object_get(body, "initial")));
        } else {
            if (body || wcode != want_rc)
                fail_msg("%s: wire_replay gave %s (%s), the record reader %s", name,
                         body ? "ok" : eng_err_code(wcode), msg, code);
            char prefix[32];
            snprintf(prefix, sizeof prefix, "turn %d: ", want_turn);
            if (want_turn > 0 ? strncmp(msg, prefix, strlen(prefix)) != 0
                              : strncmp(msg, "turn ", 5) == 0)
                fail_msg("%s: wire_replay's message '%s' (want the turn %d)", name, msg, want_turn);
            if (want_text[0] && !strstr(msg, want_text))
                fail_msg("%s: wire_replay's message '%s' lacks '%s'", name, msg, want_text);
        }
        json_decref(body);
        json_decref(rec);
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
    const struct CMUnitTest per_game[] = {cmocka_unit_test(test_every_game_has_cases)};
    int failed = cmocka_run_group_tests_name("record_cases_per_game", per_game, NULL, NULL);
    return case_dirs_run("record_cases", cases_dir, "input.json", MIN_CASES, run_case) + failed;
}
