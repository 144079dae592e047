/*
 * test_wire_games.c — the wire JSON of Dodgem and Pentago-Twist in detail
 * (protocol/games/dodgem.c, pentago.c; docs/protocol.md); test_codecs.c
 * checks every game's codec generically.
 *
 *   - in random games of every Dodgem size and of Pentago-Twist, at every
 *     position: `legal` lists exactly the engine's legal moves, in order,
 *     each entry read back by parse_move to its move and written again by
 *     format_move to the same object; the state's board, to_move and scores
 *     are the engine's;
 *   - bad moves, one per way to be wrong, get the right code (bad_move for
 *     what cannot be understood, illegal_move for what the rules forbid) and
 *     a reason naming the problem;
 *   - the `games` entry lists each game's rule options.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine/dodgem/dodgem.h"
#include "engine/pentago/pentago.h"
#include "protocol/wire.h"

/* The board rows of the state JSON against the engine's grid. */
static void check_state(const eng_game *g, const void *st, const json_t *js, const char *pieces)
{
    const json_t *board = json_object_get(js, "board");
    assert_true(json_is_array(board));
    int rows = (int)json_array_size(board);
    for (int y = 0; y < rows; y++) {
        const char *row = json_string_value(json_array_get(board, (size_t)y));
        assert_non_null(row);
        for (int x = 0; row[x]; x++) {
            int c = g->grid_cell(st, x, y);
            char want = c == ENG_GRID_EMPTY ? '.' : pieces[c];
            if (row[x] != want)
                fail_msg("%s: board row %d is '%s', cell %d should be '%c'", g->name, y, row, x,
                         want);
        }
        assert_int_equal(g->grid_cell(st, (int)strlen(row), y), ENG_GRID_OFF);
    }
    assert_int_equal(g->grid_cell(st, 0, rows), ENG_GRID_OFF);
    const json_t *tm = json_object_get(js, "to_move");
    int cp = g->current_player(st);
    if (cp == ENG_TERMINAL)
        assert_true(json_is_null(tm));
    else
        assert_int_equal(json_integer_value(tm), cp);
    double sc[2];
    g->scores(st, sc);
    const json_t *jsc = json_object_get(js, "scores");
    assert_int_equal(json_array_size(jsc), 2);
    for (int p = 0; p < 2; p++)
        assert_true(json_number_value(json_array_get(jsc, (size_t)p)) == sc[p]);
}

static void random_games(const eng_game *g, const eng_rules *r, int games, uint64_t seed0,
                         const char *pieces)
{
    const game_codec *w = codec_find(g->name);
    assert_non_null(w);
    void *st = malloc(g->state_size);
    eng_move *mv = malloc((size_t)g->max_moves * sizeof *mv);
    assert_true(st && mv);
    long positions = 0;
    for (int i = 0; i < games; i++) {
        g->init(st, r);
        eng_rng rng;
        eng_rng_seed(&rng, seed0 + (uint64_t)i);
        for (;;) {
            json_t *js = w->state(st);
            check_state(g, st, js, pieces);
            json_decref(js);
            json_t *legal = w->legal(st);
            int n = g->legal_moves(st, mv);
            assert_int_equal((int)json_array_size(legal), n);
            for (int k = 0; k < n; k++) {
                json_t *entry = json_array_get(legal, (size_t)k);
                eng_move out[ENG_MAX_TURN_MOVES];
                char err[256] = "";
                int rc = w->parse_move(st, entry, out, err, sizeof err);
                if (rc != 1 || out[0] != mv[k])
                    fail_msg("%s: legal entry %d read back as rc %d move %d (want %d): %s", g->name,
                             k, rc, (int)out[0], (int)mv[k], err);
                json_t *again = w->format_move(st, &mv[k], 1);
                assert_true(json_equal(again, entry));
                json_decref(again);
            }
            json_decref(legal);
            positions++;
            if (n == 0)
                break;
            g->apply(st, mv[eng_rng_below(&rng, (uint32_t)n)]);
        }
        /* a finished game takes no move */
        json_t *any = json_pack("{s:i, s:i}", "x", 0, "y", 0);
        eng_move out[ENG_MAX_TURN_MOVES];
        char err[256] = "";
        assert_int_equal(w->parse_move(st, any, out, err, sizeof err), ENG_EILLEGAL_MOVE);
        assert_non_null(strstr(err, "over"));
        json_decref(any);
    }
    print_message("      %s: %d games, %ld positions\n", g->name, games, positions);
    free(st);
    free(mv);
}

static void test_dodgem_round_trip(void **unused)
{
    (void)unused;
    for (int n = 3; n <= 5; n++) {
        eng_rules r;
        eng_rules_default(&dodgem_game, &r);
        r.opt[DODGEM_OPT_SIZE] = n;
        random_games(&dodgem_game, &r, 60, 100 * (uint64_t)n, "BW");
    }
}

static void test_pentago_round_trip(void **unused)
{
    (void)unused;
    eng_rules r;
    eng_rules_default(&pt_game, &r);
    random_games(&pt_game, &r, 60, 777, "WB");
}

/* One bad move: parse_move must return `code` with `piece` in the reason. */
static void expect_bad(const eng_game *g, const void *st, const char *text, int code,
                       const char *piece)
{
    const game_codec *w = codec_find(g->name);
    json_error_t e;
    json_t *mv = json_loads(text, JSON_DECODE_ANY, &e);
    if (!mv)
        fail_msg("bad test input %s: %s", text, e.text);
    eng_move out[ENG_MAX_TURN_MOVES] = {-1};
    char err[256] = "";
    int rc = w->parse_move(st, mv, out, err, sizeof err);
    json_decref(mv);
    if (rc != code || !strstr(err, piece))
        fail_msg("%s move %s: rc %d (%s) reason '%s'; want %d (%s) with '%s'", g->name, text, rc,
                 eng_err_code(rc), err, code, eng_err_code(code), piece);
}

static void test_dodgem_bad_moves(void **unused)
{
    (void)unused;
    dodgem_state s;
    eng_rules r;
    eng_rules_default(&dodgem_game, &r);
    dodgem_game.init(&s, &r);
    const eng_game *g = &dodgem_game;
    expect_bad(g, &s, "\"0 1 E\"", ENG_EBAD_MOVE, "not a string");
    expect_bad(g, &s, "[0,1,\"E\"]", ENG_EBAD_MOVE, "not an array");
    expect_bad(g, &s, "{}", ENG_EBAD_MOVE, "missing");
    expect_bad(g, &s, "{\"x\":0,\"y\":1}", ENG_EBAD_MOVE, "dir");
    expect_bad(g, &s, "{\"x\":0,\"y\":1,\"dir\":\"E\",\"player\":0}", ENG_EBAD_MOVE, "player");
    expect_bad(g, &s, "{\"car\":[0,1],\"dir\":\"E\"}", ENG_EBAD_MOVE, "missing key: x");
    expect_bad(g, &s, "{\"x\":\"0\",\"y\":1,\"dir\":\"E\"}", ENG_EBAD_MOVE, "x must be an integer");
    expect_bad(g, &s, "{\"x\":0,\"y\":1.5,\"dir\":\"E\"}", ENG_EBAD_MOVE, "y must be an integer");
    expect_bad(g, &s, "{\"x\":0,\"y\":1,\"dir\":null}", ENG_EBAD_MOVE, "dir must be a string");
    expect_bad(g, &s, "{\"x\":5,\"y\":1,\"dir\":\"E\"}", ENG_EBAD_MOVE, "not a cell");
    expect_bad(g, &s, "{\"x\":0,\"y\":-1,\"dir\":\"E\"}", ENG_EBAD_MOVE, "not a cell");
    expect_bad(g, &s, "{\"x\":9223372036854775807,\"y\":1,\"dir\":\"E\"}", ENG_EBAD_MOVE,
               "not a cell");
    expect_bad(g, &s, "{\"x\":0,\"y\":1,\"dir\":\"east\"}", ENG_EBAD_MOVE, "\"east\"");
    expect_bad(g, &s, "{\"x\":0,\"y\":1,\"dir\":\"e\"}", ENG_EBAD_MOVE, "\"e\"");
    expect_bad(g, &s, "{\"x\":0,\"y\":1,\"dir\":\"W\"}", ENG_EILLEGAL_MOVE, "backwards");
    expect_bad(g, &s, "{\"x\":0,\"y\":1,\"dir\":\"S\"}", ENG_EILLEGAL_MOVE, "(0,2) is taken");
    expect_bad(g, &s, "{\"x\":0,\"y\":4,\"dir\":\"S\"}", ENG_EILLEGAL_MOVE, "forward");
    expect_bad(g, &s, "{\"x\":1,\"y\":0,\"dir\":\"S\"}", ENG_EILLEGAL_MOVE, "other player");
    expect_bad(g, &s, "{\"x\":2,\"y\":2,\"dir\":\"E\"}", ENG_EILLEGAL_MOVE, "no car");
    /* White to move: its cars never drive north */
    eng_move m;
    assert_int_equal(dodgem_game.move_from_str(&s, "0 1 E", &m), 0);
    dodgem_game.apply(&s, m);
    expect_bad(g, &s, "{\"x\":2,\"y\":0,\"dir\":\"N\"}", ENG_EILLEGAL_MOVE, "White's cars never");
    expect_bad(g, &s, "{\"x\":1,\"y\":1,\"dir\":\"E\"}", ENG_EILLEGAL_MOVE, "other player");
}

static void test_pentago_bad_moves(void **unused)
{
    (void)unused;
    pt_state s;
    eng_rules r;
    eng_rules_default(&pt_game, &r);
    pt_game.init(&s, &r);
    const eng_game *g = &pt_game;
    expect_bad(g, &s, "\"2 3 1 R\"", ENG_EBAD_MOVE, "not a string");
    expect_bad(g, &s, "{\"x\":2,\"y\":3,\"quadrant\":1}", ENG_EBAD_MOVE, "twist");
    expect_bad(g, &s, "{\"x\":2,\"y\":3,\"quadrant\":1,\"twist\":\"rotate\",\"player\":0}",
               ENG_EBAD_MOVE, "player");
    expect_bad(g, &s, "{\"x\":2,\"y\":3,\"quadrant\":\"1\",\"twist\":\"rotate\"}", ENG_EBAD_MOVE,
               "quadrant must be an integer");
    expect_bad(g, &s, "{\"x\":2,\"y\":3,\"quadrant\":1,\"twist\":0}", ENG_EBAD_MOVE,
               "twist must be a string");
    expect_bad(g, &s, "{\"x\":6,\"y\":3,\"quadrant\":1,\"twist\":\"rotate\"}", ENG_EBAD_MOVE,
               "not a cell");
    expect_bad(g, &s, "{\"x\":2,\"y\":3,\"quadrant\":4,\"twist\":\"rotate\"}", ENG_EBAD_MOVE,
               "quadrant is 0, 1, 2 or 3");
    expect_bad(g, &s, "{\"x\":2,\"y\":3,\"quadrant\":-1,\"twist\":\"flip\"}", ENG_EBAD_MOVE,
               "quadrant");
    expect_bad(g, &s, "{\"x\":2,\"y\":3,\"quadrant\":1,\"twist\":\"spin\"}", ENG_EBAD_MOVE,
               "\"spin\"");
    expect_bad(g, &s, "{\"x\":2,\"y\":3,\"quadrant\":1,\"twist\":\"R\"}", ENG_EBAD_MOVE, "\"R\"");
    eng_move m;
    assert_int_equal(pt_game.move_from_str(&s, "2 3 1 R", &m), 0);
    pt_game.apply(&s, m);
    expect_bad(g, &s, "{\"x\":2,\"y\":3,\"quadrant\":0,\"twist\":\"flip\"}", ENG_EILLEGAL_MOVE,
               "(2,3) is taken");
}

static void test_game_entries(void **unused)
{
    (void)unused;
    json_t *e = wire_game_entry(&dodgem_game);
    const json_t *rules = json_object_get(e, "rules");
    assert_int_equal(json_array_size(rules), 2);
    assert_string_equal(json_string_value(json_object_get(json_array_get(rules, 0), "name")),
                        "size");
    assert_int_equal(json_integer_value(json_object_get(json_array_get(rules, 1), "default")), 100);
    assert_false(json_is_true(json_object_get(e, "chance")));
    json_decref(e);
    e = wire_game_entry(&pt_game);
    assert_string_equal(json_string_value(json_object_get(e, "name")), "pentago-twist");
    assert_int_equal(json_array_size(json_object_get(e, "rules")), 0);
    json_decref(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dodgem_round_trip), cmocka_unit_test(test_pentago_round_trip),
        cmocka_unit_test(test_dodgem_bad_moves),  cmocka_unit_test(test_pentago_bad_moves),
        cmocka_unit_test(test_game_entries),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
