/*
 * test_stdio.c — the stdio bot protocol's messages (protocol/stdio.h):
 * what tessera writes matches the JSON Schemas of docs/schema/stdio/ over
 * whole random games of every game with a wire codec, lines are single
 * lines, results rank like the server's, and every JSON example in
 * docs/stdio.md is a valid message of its type (bot lines decode).
 *
 * Usage: test_stdio DOCS_DIR
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "case_dirs.h"
#include "schema_check.h"

#include "protocol/record.h"
#include "protocol/stdio.h"
#include "protocol/wire.h"

static const char *docs_dir;
static char schema_dir[4096];

static const char *const tessera_types[] = {"start", "your_turn", "update", "game_over", "error"};
static const char *const bot_types[] = {"move", "resign", "info"};

static void assert_valid(const char *type, const json_t *msg)
{
    json_t *s = schema_load(schema_dir, type);
    assert_non_null(s);
    char why[512];
    if (!schema_check(s, msg, why, sizeof why)) {
        char *text = json_dumps(msg, JSON_COMPACT);
        fail_msg("%s: %s\n%.600s", type, why, text);
    }
    json_decref(s);
}

/* One line each, ending in '\n', and it reads back as the same JSON. */
static void assert_line(const json_t *msg)
{
    size_t len;
    char *line = stdio_line(msg, &len);
    assert_non_null(line);
    assert_true(len > 1);
    assert_int_equal(line[len - 1], '\n');
    assert_null(memchr(line, '\n', len - 1));
    json_t *back = json_loadb(line, len - 1, 0, NULL);
    assert_true(json_equal(back, (json_t *)msg));
    json_decref(back);
    free(line);
}

static void test_schema_files(void **state)
{
    (void)state;
    for (size_t i = 0; i < 5 + 3; i++) {
        const char *t = i < 5 ? tessera_types[i] : bot_types[i - 5];
        json_t *s = schema_load(schema_dir, t);
        assert_non_null(s);
        assert_string_equal(json_string_value(json_object_get(s, "$schema")),
                            "https://json-schema.org/draft/2020-12/schema");
        json_t *type = json_object_get(json_object_get(s, "properties"), "type");
        assert_string_equal(json_string_value(json_object_get(type, "const")), t);
        /* open schemas: tessera may add fields, bots' extra fields are ignored */
        assert_null(json_object_get(s, "additionalProperties"));
        json_decref(s);
    }
}

/* A whole game of g: every message tessera would write along the way is
 * valid, and every legal entry echoed back as a bot's line decodes and
 * parses into the move it stands for. */
static void play_checked(const eng_game *g, int players, uint64_t seed)
{
    const game_codec *w = codec_find(g->name);
    assert_non_null(w);
    eng_rules r;
    eng_rules_default(g, &r);
    r.players = players;
    unsigned char *st = malloc(g->state_size), *turn_start = malloc(g->state_size);
    g->init(st, &r);
    eng_rng rng;
    eng_rng_seed(&rng, seed);
    json_t *rules = wire_rules_json(g, &r), *history = json_array();
    eng_move mv[ENG_MAX_TURN_MOVES];
    int n = 0, turns = 0, updates = 0, asks = 0;
    memcpy(turn_start, st, g->state_size);
    json_t *pending = NULL;
    for (int p; (p = g->current_player(st)) != ENG_TERMINAL;) {
        if (p >= 0) {
            stdio_game gm = {.match = "g1", .game = g->name, .rules = rules, .seat = p};
            json_t *state = w->state(st), *legal = w->legal(st);
            json_t *start = stdio_start(&gm, history, state);
            assert_valid("start", start);
            assert_line(start);
            for (int stateless = 0; stateless < 2; stateless++) {
                json_t *yt = stdio_your_turn(&gm, turns + 1, state, legal, 5000, 1795312399999LL,
                                             stateless, history);
                assert_valid("your_turn", yt);
                assert_line(yt);
                assert_int_equal(json_object_get(yt, "history") != NULL, stateless);
                json_decref(yt);
            }
            asks++;
            /* a bot that echoes a random entry of legal */
            json_t *entry = json_array_get(legal, eng_rng_below(&rng, json_array_size(legal)));
            json_t *reply = json_pack("{s:s, s:O}", "type", "move", "move", entry);
            assert_valid("move", reply);
            size_t len;
            char *line = stdio_line(reply, &len), err[256];
            stdio_reply rp;
            assert_int_equal(stdio_decode(line, len - 1, 0, &rp, err, sizeof err), 0);
            eng_move out[ENG_MAX_TURN_MOVES];
            int k = w->parse_move(st, rp.move, out, err, sizeof err);
            if (k <= 0)
                fail_msg("%s: an entry of legal did not parse: %s", g->name, err);
            for (int i = 0; i < k; i++) {
                assert_true(eng_is_legal(g, st, out[i]));
                g->apply(st, out[i]);
                mv[n++] = out[i];
            }
            stdio_reply_free(&rp);
            free(line);
            json_decref(reply);
            json_decref(start);
            json_decref(state);
            json_decref(legal);
        } else {
            eng_move m = eng_sample_chance(g, st, &rng);
            g->apply(st, m);
            mv[n++] = m;
            if (pending) {
                /* the last turn's update waited for this draw */
                json_t *state = w->state(st), *next = wire_next(g, st);
                json_t *scores = stdio_scores(g, st);
                json_t *u = stdio_update("g1", turns, pending, "player", NULL, scores, next, state);
                assert_valid("update", u);
                assert_line(u);
                assert_true(json_is_object(next)); /* someone draws next */
                updates++;
                json_decref(u);
                json_decref(state);
                json_decref(next);
                json_decref(scores);
                json_decref(pending);
                pending = NULL;
            }
        }
        int q = g->current_player(st);
        if (q == ENG_CHANCE || q == ENG_TERMINAL || (p >= 0 && q != p)) {
            char err[256];
            json_t *rec = wire_record_turn(g, turn_start, mv, n, err, sizeof err);
            if (!rec)
                fail_msg("%s: %s", g->name, err);
            json_array_append(history, rec);
            turns++;
            if (q == ENG_CHANCE) {
                pending = rec;
            } else {
                json_t *state = w->state(st), *next = wire_next(g, st);
                json_t *scores = stdio_scores(g, st);
                json_t *u = stdio_update(NULL, turns, rec, "player", NULL, scores, next, state);
                assert_valid("update", u);
                assert_int_equal(json_is_null(next), q == ENG_TERMINAL);
                updates++;
                json_decref(u);
                json_decref(state);
                json_decref(next);
                json_decref(scores);
                json_decref(rec);
            }
            n = 0;
            memcpy(turn_start, st, g->state_size);
        }
    }
    assert_null(pending);
    assert_int_equal(updates, turns);
    assert_true(asks > 0);
    json_t *result = stdio_result(g, st, "normal", -1, NULL);
    json_t *over = stdio_game_over("g1", result);
    assert_valid("game_over", over);
    assert_line(over);
    json_decref(over);
    json_decref(result);
    json_decref(history);
    json_decref(rules);
    free(st);
    free(turn_start);
}

static void test_games_carcassonne(void **state)
{
    (void)state;
    const eng_game *g = eng_find_game("carcassonne");
    for (int players = 2; players <= 5; players++)
        play_checked(g, players, 100 + (uint64_t)players);
}

/* Every registered game, at its default seat count. */
static void test_games_all(void **state)
{
    (void)state;
    int n;
    const eng_game *const *games = eng_games(&n);
    for (int i = 0; i < n; i++)
        play_checked(games[i], games[i]->default_players, 7 + (uint64_t)i);
}

/* The result ranks as the server's: by score, the faulty seat last, never
 * a winner; ties keep seat order and share the win. */
static void test_result(void **state)
{
    (void)state;
    const eng_game *g = eng_find_game("reversi");
    eng_rules r;
    eng_rules_default(g, &r);
    unsigned char *st = malloc(g->state_size);
    g->init(st, &r); /* 2 discs each: a tie */
    json_t *res = stdio_result(g, st, "normal", -1, NULL);
    char *rk = json_dumps(json_object_get(res, "winners"), JSON_COMPACT);
    assert_string_equal(rk, "[0,1]");
    free(rk);
    rk = json_dumps(json_object_get(res, "ranking"), JSON_COMPACT);
    assert_string_equal(rk, "[0,1]");
    free(rk);
    json_decref(res);
    res = stdio_result(g, st, "timeout", 0, "seat 0 did not move in time");
    rk = json_dumps(json_object_get(res, "ranking"), JSON_COMPACT);
    assert_string_equal(rk, "[1,0]");
    free(rk);
    rk = json_dumps(json_object_get(res, "winners"), JSON_COMPACT);
    assert_string_equal(rk, "[1]");
    free(rk);
    assert_int_equal(json_integer_value(json_object_get(res, "seat")), 0);
    assert_string_equal(json_string_value(json_object_get(res, "detail")),
                        "seat 0 did not move in time");
    json_t *over = stdio_game_over(NULL, res);
    assert_valid("game_over", over);
    assert_null(json_object_get(over, "match"));
    json_decref(over);
    json_decref(res);
    json_t *e = stdio_error(ENG_EILLEGAL_MOVE, "no");
    assert_valid("error", e);
    assert_string_equal(json_string_value(json_object_get(e, "code")), "illegal_move");
    json_decref(e);
    free(st);
}

/* Every ```json block of docs/stdio.md: each line with a "type" is a
 * message; tessera's must match their schema, the bot's must decode. */
static void test_doc_examples(void **state)
{
    (void)state;
    char path[4096];
    snprintf(path, sizeof path, "%s/stdio.md", docs_dir);
    char *doc = case_slurp(path, NULL);
    assert_non_null(doc);
    int checked = 0;
    bool in_json = false;
    for (char *line = doc, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = 0;
        if (strncmp(line, "```", 3) == 0) {
            in_json = !in_json && strncmp(line, "```json", 7) == 0;
            continue;
        }
        if (!in_json || line[0] != '{')
            continue;
        json_error_t e;
        json_t *msg = json_loads(line, 0, &e);
        if (!msg)
            fail_msg("docs/stdio.md: not JSON (%s): %.80s", e.text, line);
        const char *type = json_string_value(json_object_get(msg, "type"));
        if (!type)
            fail_msg("docs/stdio.md: a line without a type: %.80s", line);
        if (!strcmp(type, "move") || !strcmp(type, "resign") || !strcmp(type, "info")) {
            stdio_reply r;
            char err[256];
            int rc = stdio_decode(line, strlen(line), 0, &r, err, sizeof err);
            if (rc)
                fail_msg("docs/stdio.md: %s: %.80s", err, line);
            stdio_reply_free(&r);
        }
        assert_valid(type, msg);
        json_decref(msg);
        checked++;
    }
    free(doc);
    if (checked < 8)
        fail_msg("docs/stdio.md: only %d example lines found", checked);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s DOCS_DIR\n", argv[0]);
        return 2;
    }
    docs_dir = argv[1];
    snprintf(schema_dir, sizeof schema_dir, "%s/schema/stdio", docs_dir);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_schema_files),  cmocka_unit_test(test_games_carcassonne),
        cmocka_unit_test(test_games_all), cmocka_unit_test(test_result),
        cmocka_unit_test(test_doc_examples),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
