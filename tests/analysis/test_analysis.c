/*
 * test_analysis.c — analysis/ (docs/analysis.md) on games played here by
 * our bots, and on bad input:
 *   - a Reversi game in which one seat gives a corner away (the scripted bad
 *     move) is marked a blunder there, and the better move the analysis
 *     gives leaves the opponent no corner;
 *   - a game of two identical strong bots has no blunder and few marks;
 *   - Carcassonne: first-move value + luck + skill = the final score
 *     difference, exactly; luck is not zero; the same seed gives the same
 *     report;
 *   - every game analysed (the four of the registry);
 *   - bad records fail as rec_replay_json fails (code, turn, reason), more
 *     than two seats, specs that cannot analyse, the stop flag.
 * Budgets are in simulations, so every figure is the same on any machine.
 */
#include <setjmp.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/analysis.h"
#include "bots/bot.h"
#include "protocol/record.h"

/* A hook that may replace the move a game's bot chose at ply `ply`. */
typedef eng_move (*pick_fn)(void *ud, const eng_game *g, const void *st, int ply, eng_move chosen);

/* Play a game of g (default rules, 2 seats) between bots spec0 and spec1,
 * chance by seed; returns its record (new reference). */
static json_t *play(const char *game, const char *spec0, const char *spec1, uint64_t seed,
                    pick_fn pick, void *ud)
{
    const eng_game *g = eng_find_game(game);
    assert_non_null(g);
    eng_rules rules;
    eng_rules_default(g, &rules);
    rules.players = 2;
    char err[256] = "";
    bot *b[2] = {bot_create(spec0, g, seed, err, sizeof err),
                 bot_create(spec1, g, seed + 1, err, sizeof err)};
    assert_non_null(b[0]);
    assert_non_null(b[1]);
    void *st = malloc(g->state_size);
    assert_int_equal(eng_init(g, st, &rules, err, sizeof err), 0);
    eng_move *moves = malloc((size_t)g->max_plies * sizeof *moves);
    int n = 0, chance = 0, ply = 0;
    for (int cp; (cp = g->current_player(st)) != ENG_TERMINAL;) {
        eng_move m;
        if (cp == ENG_CHANCE) {
            m = eng_chance_draw(g, st, seed, (uint64_t)chance++);
        } else {
            m = bot_choose(b[cp], st, NULL, NULL);
            if (pick)
                m = pick(ud, g, st, ply, m);
            ply++;
        }
        assert_true(eng_is_legal(g, st, m));
        bot_observe(b[0], st, m);
        bot_observe(b[1], st, m);
        g->apply(st, m);
        moves[n++] = m;
    }
    json_t *rec = rec_build(g, &rules, moves, n, err, sizeof err);
    assert_non_null(rec);
    free(moves);
    free(st);
    bot_destroy(b[0]);
    bot_destroy(b[1]);
    return rec;
}

static ana_report *analyse(const json_t *rec, const char *spec, int64_t sims, int64_t chance_sims)
{
    ana_opts o = {.bot = spec, .seed = 1, .sims = sims, .chance_sims = chance_sims};
    ana_report *r = NULL;
    rec_replay why;
    int rc = ana_run(rec, &o, &r, &why);
    if (rc)
        fail_msg("ana_run: %s (turn %d: %s)", eng_err_code(rc), why.bad_turn, why.reason);
    return r;
}

/* ---- Reversi: a corner given away ------------------------------------------------- */

static bool is_corner(const eng_game *g, const void *st, eng_move m)
{
    char s[ENG_MOVE_STR_MAX];
    g->move_to_str(st, m, s, sizeof s);
    return !strcmp(s, "a1") || !strcmp(s, "h1") || !strcmp(s, "a8") || !strcmp(s, "h8");
}

/* What m gives the opponent: 0 when it leaves no corner to take, else 1 +
 * the discs the opponent's best corner capture then gains on the mover. */
static double corners_after(const eng_game *g, const void *st, eng_move m)
{
    unsigned char after[4096], taken[4096];
    assert_true(g->state_size <= sizeof after);
    memcpy(after, st, g->state_size);
    int me = g->current_player(st);
    g->apply(after, m);
    eng_move legal[64];
    int n = g->legal_moves(after, legal);
    double best = 0;
    for (int i = 0; i < n; i++) {
        if (!is_corner(g, after, legal[i]))
            continue;
        double sc[ENG_MAX_PLAYERS];
        memcpy(taken, after, g->state_size);
        g->apply(taken, legal[i]);
        g->scores(taken, sc);
        double gain = 1 + sc[1 - me] - sc[me] + 64;
        best = gain > best ? gain : best;
    }
    return best;
}

typedef struct giveaway {
    int from;         /* the earliest ply at which to give a corner away */
    int ply;          /* the ply at which it was given (-1 before) */
    char played[8];   /* the move that gave it */
} giveaway;

/* From ply gv->from on, at the first position where the mover has no corner
 * to take and has moves that let the opponent take one as well as moves that
 * do not, the mover plays the one that gives the most away (the corner
 * capture that gains the opponent the most discs); at the
 * next ply the opponent takes it. */
static eng_move give_corner(void *ud, const eng_game *g, const void *st, int ply, eng_move chosen)
{
    giveaway *gv = ud;
    eng_move legal[64];
    int n = g->legal_moves(st, legal);
    if (gv->ply < 0 && ply >= gv->from) {
        int giving = -1, keeping = 0, own = 0;
        double most = 0;
        for (int i = 0; i < n; i++) {
            own += is_corner(g, st, legal[i]);
            double gift = corners_after(g, st, legal[i]);
            if (gift > most) {
                most = gift;
                giving = i;
            } else if (gift == 0) {
                keeping++;
            }
        }
        if (giving >= 0 && keeping > 0 && !own) {
            gv->ply = ply;
            g->move_to_str(st, legal[giving], gv->played, sizeof gv->played);
            return legal[giving];
        }
    }
    if (gv->ply >= 0 && ply == gv->ply + 1)
        for (int i = 0; i < n; i++)
            if (is_corner(g, st, legal[i]))
                return legal[i];
    return chosen;
}

static void test_reversi_corner_blunder(void **state)
{
    (void)state;
    giveaway gv = {.from = 12, .ply = -1};
    json_t *rec = play("reversi", "mcts:sims=1500", "mcts:sims=1500", 11, give_corner, &gv);
    assert_true(gv.ply >= gv.from);
    ana_report *r = analyse(rec, NULL, 0, 0); /* the default search */
    json_t *j = ana_json(r);
    json_t *t = json_array_get(json_object_get(j, "turns"), (size_t)gv.ply);
    assert_int_equal(json_integer_value(json_object_get(t, "turn")), gv.ply + 1);
    assert_string_equal(json_string_value(json_object_get(t, "played")), gv.played);
    const char *mark = json_string_value(json_object_get(t, "mark"));
    const char *best = json_string_value(json_object_get(t, "best"));
    double loss = json_real_value(json_object_get(json_object_get(t, "loss"), "win"));
    print_message("turn %d: %s played (win %.3f), %s better (win %.3f), loss %.3f, %s\n",
                  gv.ply + 1, gv.played,
                  json_real_value(json_object_get(json_object_get(t, "played_value"), "win")), best,
                  json_real_value(json_object_get(json_object_get(t, "best_value"), "win")), loss,
                  mark ? mark : "unmarked");
    assert_non_null(mark);
    assert_string_equal(mark, "blunder");
    assert_string_not_equal(best, gv.played);
    /* the better move leaves the opponent no corner */
    const eng_game *g = eng_find_game("reversi");
    unsigned char st[4096];
    eng_rules rules;
    eng_rules_default(g, &rules);
    assert_int_equal(eng_init(g, st, &rules, NULL, 0), 0);
    json_t *turns = json_object_get(rec, "turns");
    for (int k = 0; k < gv.ply; k++)
        assert_int_equal(rec_apply_turn(g, st, json_array_get(turns, (size_t)k), NULL, NULL, NULL, 0),
                         0);
    eng_move bm;
    assert_int_equal(g->move_from_str(st, best, &bm), 0);
    assert_true(corners_after(g, st, bm) == 0);
    json_decref(j);
    ana_free(r);
    json_decref(rec);
}

/* ---- two identical strong bots ------------------------------------------------------ */

static void test_identical_bots_few_marks(void **state)
{
    (void)state;
    json_t *rec = play("reversi", "mcts:sims=2000", "mcts:sims=2000", 5, NULL, NULL);
    ana_report *r = analyse(rec, NULL, 0, 0);
    ana_sums s;
    ana_get_sums(r, &s);
    int marks = 0;
    for (int p = 0; p < 2; p++) {
        print_message("P%d: %d inaccuracies, %d mistakes, %d blunders\n", p + 1, s.marks[p][0],
                      s.marks[p][1], s.marks[p][2]);
        assert_int_equal(s.marks[p][2], 0);
        marks += s.marks[p][0] + s.marks[p][1];
    }
    /* 60 moves: an inaccuracy or two is the search's noise, not a pattern */
    assert_true(marks <= 4);
    ana_free(r);
    json_decref(rec);
}

/* ---- Carcassonne: luck + skill ------------------------------------------------------ */

static void test_carcassonne_luck_skill(void **state)
{
    (void)state;
    json_t *rec = play("carcassonne", "mcts:sims=300", "heuristic", 3, NULL, NULL);
    rec_replay rr;
    assert_int_equal(rec_replay_json(rec, NULL, NULL, &rr), 0);
    ana_report *r = analyse(rec, NULL, 120, 20);
    ana_sums s;
    ana_get_sums(r, &s);
    print_message("final %+.2f = start %+.2f + luck %+.2f %+.2f + skill %+.2f %+.2f\n", s.final,
                  s.start, s.luck[0], -s.luck[1], s.skill[0], -s.skill[1]);
    assert_true(fabs(s.final - (rr.scores[0] - rr.scores[1])) < 1e-9);
    assert_true(fabs(s.luck_total + s.skill_total - s.final) < 1e-6);
    assert_true(fabs(s.luck[0]) + fabs(s.luck[1]) > 1);
    /* the JSON says the same */
    json_t *j = ana_json(r);
    json_t *d = json_object_get(j, "decomposition");
    assert_true(fabs(json_real_value(json_object_get(d, "luck")) +
                     json_real_value(json_object_get(d, "skill")) -
                     json_real_value(json_object_get(d, "final"))) < 1e-3);
    /* every turn with a draw says what was drawn and what it was worth */
    json_t *t0 = json_array_get(json_object_get(j, "turns"), 0);
    assert_true(json_is_string(json_object_get(t0, "draw")));
    assert_true(json_is_object(json_object_get(t0, "luck")));
    /* the same seed, the same report (but for its time) */
    ana_report *r2 = analyse(rec, NULL, 120, 20);
    json_t *j2 = ana_json(r2);
    json_object_del(json_object_get(j, "search"), "ms");
    json_object_del(json_object_get(j2, "search"), "ms");
    assert_true(json_equal(j, j2));
    char *md = ana_markdown(r), *svg = ana_svg(r);
    assert_non_null(strstr(md, "luck share"));
    assert_non_null(strstr(svg, "<polyline"));
    free(md);
    free(svg);
    json_decref(j);
    json_decref(j2);
    ana_free(r);
    ana_free(r2);
    json_decref(rec);
}

/* ---- every game -------------------------------------------------------------------- */

static void test_every_game(void **state)
{
    (void)state;
    int n;
    const eng_game *const *games = eng_games(&n);
    for (int i = 0; i < n; i++) {
        json_t *rec = play(games[i]->name, "random", "random", 9, NULL, NULL);
        ana_report *r = analyse(rec, NULL, 60, 10);
        json_t *j = ana_json(r);
        json_t *turns = json_object_get(j, "turns");
        assert_int_equal(json_array_size(turns), json_array_size(json_object_get(rec, "turns")));
        ana_sums s;
        ana_get_sums(r, &s);
        assert_true(fabs(s.luck_total + s.skill_total - s.final) < 1e-6);
        for (size_t k = 0; k < json_array_size(turns); k++) {
            json_t *t = json_array_get(turns, k);
            if (!json_object_get(t, "played"))
                continue;
            double w = json_real_value(json_object_get(json_object_get(t, "value"), "win"));
            assert_true(w >= 0 && w <= 1);
            assert_true(json_is_object(json_object_get(t, "best_move")) ||
                        json_is_array(json_object_get(t, "best_move")));
        }
        json_decref(j);
        ana_free(r);
        json_decref(rec);
    }
}

/* ---- bad input -------------------------------------------------------------------- */

static json_t *load(const char *text)
{
    json_error_t e;
    json_t *j = json_loads(text, JSON_REJECT_DUPLICATES, &e);
    assert_non_null(j);
    return j;
}

static void expect_fail(const json_t *rec, const char *spec, int code, const char *reason_part)
{
    ana_opts o = {.bot = spec, .seed = 1, .sims = 20};
    ana_report *r = (ana_report *)1;
    rec_replay why;
    int rc = ana_run(rec, &o, &r, &why);
    assert_int_equal(rc, code);
    assert_null(r);
    if (reason_part && !strstr(why.reason, reason_part))
        fail_msg("reason '%s' lacks '%s'", why.reason, reason_part);
}

static void test_bad_input(void **state)
{
    (void)state;
    /* a record the replay refuses: the same code, turn and reason */
    json_t *bad = load("{\"format\":\"tessera-record\",\"version\":1,\"game\":\"reversi\","
                       "\"rules\":{\"players\":2},\"turns\":[{\"player\":0,\"move\":\"d3\"},"
                       "{\"player\":1,\"move\":\"a1\"}]}");
    rec_replay want, got;
    int code = rec_replay_json(bad, NULL, NULL, &want);
    assert_true(code < 0);
    ana_opts o = {.sims = 20};
    ana_report *r = NULL;
    assert_int_equal(ana_run(bad, &o, &r, &got), code);
    assert_int_equal(got.bad_turn, want.bad_turn);
    assert_int_equal(got.bad_turn, 2);
    assert_string_equal(got.reason, want.reason);
    json_decref(bad);
    /* not a record */
    json_t *junk = load("{\"format\":\"something\"}");
    expect_fail(junk, NULL, ENG_EBAD_RECORD, NULL);
    json_decref(junk);
    /* three seats */
    json_t *three = play("carcassonne", "random", "random", 2, NULL, NULL);
    json_object_set_new(json_object_get(three, "rules"), "players", json_integer(3));
    json_object_del(three, "result");
    json_object_set_new(three, "turns", json_array());
    expect_fail(three, NULL, ENG_EBAD_PLAYERS, "two seats");
    json_decref(three);
    /* searches that cannot analyse */
    json_t *ok = play("dodgem", "random", "random", 4, NULL, NULL);
    expect_fail(ok, "mcts:reward=winloss", ENG_EBAD_BOT_SPEC, "reward");
    expect_fail(ok, "heuristic", ENG_EBAD_BOT_SPEC, "reward");
    expect_fail(ok, "nosuchbot", ENG_EUNKNOWN_BOT, "nosuchbot");
    expect_fail(ok, "mcts:k=banana", ENG_EBAD_BOT_SPEC, "k");
    /* stopped */
    atomic_bool stop = true;
    ana_opts so = {.sims = 20, .stop = &stop};
    r = NULL;
    assert_int_equal(ana_run(ok, &so, &r, &got), ENG_EINVAL);
    assert_null(r);
    assert_non_null(strstr(got.reason, "stopped"));
    json_decref(ok);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_every_game),
        cmocka_unit_test(test_carcassonne_luck_skill),
        cmocka_unit_test(test_reversi_corner_blunder),
        cmocka_unit_test(test_identical_bots_few_marks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
