/*
 * test_experiment.c — experiment/ without playing: every built-in definition
 * loads and its bot specs are accepted by the runner, with the paper's
 * figures of a few rows checked against the tables by hand; the parser's
 * errors name what is wrong; the Wilson interval against published values;
 * the verdict on rows that must agree, must differ, have no paper figure or
 * no game; the quick mode's specs. `tessera experiment` itself is tested by
 * experiment.sh.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "engine/eng.h"
#include "experiment/experiment.h"
#include "tournament/runner.h"

#define assert_near(a, b, eps) assert_true(fabs((a) - (b)) <= (eps))

static const exp_row *find_row(const exp_def *d, const char *id)
{
    for (int i = 0; i < d->nrows; i++)
        if (strcmp(d->rows[i].id, id) == 0)
            return &d->rows[i];
    fail_msg("no row %s in %s", id, d->name);
    return NULL;
}

static void test_builtins_load(void **state)
{
    (void)state;
    assert_true(exp_count() >= 15);
    player_config pc;
    player_config_default(&pc);
    for (int i = 0; i < exp_count(); i++) {
        exp_def *d;
        char err[512];
        int rc = exp_load(exp_name(i), &d, err, sizeof err);
        if (rc)
            fail_msg("%s: %s", exp_name(i), err);
        assert_string_equal(d->name, exp_name(i));
        assert_true(d->nrows >= 1);
        /* the specs are checked against the experiment's own game */
        const eng_game *g;
        eng_rules rules;
        if (exp_game_rules(d, &g, &rules, err, sizeof err))
            fail_msg("%s: %s", d->name, err);
        assert_int_equal(rules.players, 2);
        for (int r = 0; r < d->nrows; r++) {
            const exp_row *row = &d->rows[r];
            assert_true(row->games >= 2 && row->games % 2 == 0);
            assert_true(row->paper.present);
            assert_true(row->paper.n >= 1 && row->paper.rate >= 0 && row->paper.rate <= 1);
            for (int k = 0; k < 2; k++) {
                const char *sp = k ? row->b : row->a;
                if (tour_run_check_spec(sp, g, &pc, err, sizeof err))
                    fail_msg("%s row %s: %s: %s", d->name, row->id, sp, err);
                char q[TOUR_SPEC_MAX + 1];
                assert_int_equal(exp_quick_spec(sp, q, sizeof q), 0);
                if (tour_run_check_spec(q, g, &pc, err, sizeof err))
                    fail_msg("%s row %s: quick %s: %s", d->name, row->id, q, err);
            }
        }
        exp_def_free(d);
    }
}

/* A few cells read off the papers by hand, from A's side. */
static void test_paper_figures(void **state)
{
    (void)state;
    exp_def *d;
    char err[512];
    assert_int_equal(exp_load("siea-iii", &d, err, sizeof err), 0);
    /* Table III: R2 won 45 as first player and 48 as second; R1 won 4 and 2; one draw */
    const exp_row *r = find_row(d, "r2r1");
    assert_int_equal(r->paper.w, 93);
    assert_int_equal(r->paper.l, 6);
    assert_int_equal(r->paper.d, 1);
    exp_def_free(d);

    assert_int_equal(exp_load("muller-5.5", &d, err, sizeof err), 0);
    assert_int_equal(d->nrows, 11);
    r = find_row(d, "4096");
    assert_int_equal(r->paper.w, 1147);
    assert_int_equal(r->paper.l, 743);
    assert_int_equal(r->paper.d, 110);
    assert_near(r->x, 4096, 0);
    assert_non_null(d->plot_x);
    exp_def_free(d);

    assert_int_equal(exp_load("siea-x", &d, err, sizeof err), 0);
    /* Table X: SIEA first against MCTS K=√2 400 7-6, MCTS first 5-9: 16 wins, 11 losses, 3 draws */
    r = find_row(d, "siea-mcts-real-k141-400");
    assert_int_equal(r->paper.w, 16);
    assert_int_equal(r->paper.l, 11);
    assert_int_equal(r->paper.d, 3);
    assert_string_equal(r->a, "siea-mcts:fitness_tree=real");
    assert_string_equal(r->b, "mcts:sims=400");
    exp_def_free(d);

    /* the thesis' tables: its rules (tiny cities score 2) and its turn (Alg. 5) */
    assert_int_equal(exp_load("muller-5.6", &d, err, sizeof err), 0);
    assert_string_equal(d->game, "carcassonne");
    assert_int_equal(d->nrules, 1);
    assert_string_equal(d->rules[0], "tiny_city=2");
    {
        const eng_game *g;
        eng_rules rl;
        assert_int_equal(exp_game_rules(d, &g, &rl, err, sizeof err), 0);
        assert_int_equal(eng_rules_get(g, &rl, "tiny_city"), 2);
        assert_int_equal(eng_rules_get(g, &rl, "farms"), 1);
    }
    r = find_row(d, "cp0");
    assert_string_equal(r->a, "mcts:sims=1000,uct=thesis,cp=0,reward=portion,unplanned=first");
    exp_def_free(d);

    /* the EvoMCTS paper gives rates only: Table X, 4000 vs 2000 at 0.5956 of 10,000 */
    assert_int_equal(exp_load("evomcts-x", &d, err, sizeof err), 0);
    assert_string_equal(d->game, "dodgem");
    r = find_row(d, "4000-2000");
    assert_false(r->paper.wld);
    assert_near(r->paper.rate, 0.5956, 1e-12);
    assert_int_equal(r->paper.n, 10000);
    assert_string_equal(r->a, "evomcts:pbf=1,sims=4000");
    exp_def_free(d);
    /* Table XI: the mean of the six runs' scores against MCTS200, 754.3 of 1000 */
    assert_int_equal(exp_load("evomcts-xi", &d, err, sizeof err), 0);
    r = find_row(d, "evo-200");
    assert_near(r->paper.rate, (731.0 + 822 + 745 + 821 + 634 + 773) / 6000, 1e-6);
    assert_int_equal(r->paper.n, 6000);
    exp_def_free(d);
    /* a W-L-D paper figure gets its rate and n */
    assert_int_equal(exp_load("siea-iii", &d, err, sizeof err), 0);
    assert_true(d->rows[0].paper.wld);
    assert_int_equal(d->rows[0].paper.n, 100);
    assert_near(d->rows[0].paper.rate, 0.935, 1e-12);
    assert_string_equal(d->game, "carcassonne");
    assert_int_equal(d->nrules, 0);
    exp_def_free(d);

    assert_int_equal(exp_load("siea-iv", &d, err, sizeof err), 0);
    assert_int_equal(d->nrows, 15);
    /* Table IV: K=√2 first against K=0.25 22-3, K=0.25 first 8-17: √2 lost 8, won 17+22 */
    r = find_row(d, "k0.25-k1.41");
    assert_int_equal(r->paper.w, 8 + 3);
    assert_int_equal(r->paper.l, 17 + 22);
    assert_int_equal(r->paper.d, 50 - 11 - 39);
    exp_def_free(d);
}

static void test_parse_errors(void **state)
{
    (void)state;
    static const struct {
        const char *text, *want;
    } cases[] = {
        {"[1", "not JSON"},
        {"[]", "not a JSON object"},
        {"{\"name\":\"x\"}", "\"title\" must be a non-empty string"},
        {"{\"name\":\"X Y\",\"title\":\"t\",\"paper\":\"p\",\"anchor\":\"a\",\"table\":\"T\","
         "\"conclusion\":\"c\",\"setup\":\"s\",\"games\":10,\"rows\":[]}",
         "name 'X Y'"},
        {"{\"name\":\"x\",\"title\":\"t\",\"paper\":\"p\",\"anchor\":\"a\",\"table\":\"T\","
         "\"conclusion\":\"c\",\"setup\":\"s\",\"games\":1,\"rows\":[]}",
         "\"games\" must be an integer in 2.."},
        {"{\"name\":\"x\",\"title\":\"t\",\"paper\":\"p\",\"anchor\":\"a\",\"table\":\"T\","
         "\"conclusion\":\"c\",\"setup\":\"s\",\"games\":10,\"rows\":[]}",
         "\"rows\" must be an array of 1.."},
        {"{\"name\":\"x\",\"title\":\"t\",\"paper\":\"p\",\"anchor\":\"a\",\"table\":\"T\","
         "\"conclusion\":\"c\",\"setup\":\"s\",\"games\":10,\"rows\":[{\"id\":\"r\",\"label\":"
         "\"l\","
         "\"a\":\"random\",\"b\":\"random\"},{\"id\":\"r\",\"label\":\"l\",\"a\":\"random\","
         "\"b\":\"random\"}]}",
         "id 'r' is used twice"},
        {"{\"name\":\"x\",\"title\":\"t\",\"paper\":\"p\",\"anchor\":\"a\",\"table\":\"T\","
         "\"conclusion\":\"c\",\"setup\":\"s\",\"games\":10,\"rows\":[{\"id\":\"r\",\"label\":"
         "\"l\","
         "\"a\":\"random\",\"b\":\"random\",\"paper\":{\"w\":1,\"l\":-1,\"d\":0}}]}",
         "row 1: \"paper\" needs integers w, l, d"},
        {"{\"name\":\"x\",\"title\":\"t\",\"paper\":\"p\",\"anchor\":\"a\",\"table\":\"T\","
         "\"conclusion\":\"c\",\"setup\":\"s\",\"games\":10,\"plot_x\":\"n\",\"rows\":[{\"id\":"
         "\"r\",\"label\":\"l\",\"a\":\"random\",\"b\":\"random\"}]}",
         "a plotted experiment needs \"x\" > 0"},
        {"{\"name\":\"x\",\"title\":\"t\",\"paper\":\"p\",\"anchor\":\"a\",\"table\":\"T\","
         "\"conclusion\":\"c\",\"setup\":\"s\",\"game\":\"chess\",\"games\":10,\"rows\":[]}",
         "x: game 'chess' is not built in; games: carcassonne"},
        {"{\"name\":\"x\",\"title\":\"t\",\"paper\":\"p\",\"anchor\":\"a\",\"table\":\"T\","
         "\"conclusion\":\"c\",\"setup\":\"s\",\"rules\":[\"tiny_city=3\"],\"games\":10,\"rows\":[]"
         "}",
         "x: rules: rule 'tiny_city' is 4 (current rules) or 2 (old rule), not 3"},
        {"{\"name\":\"x\",\"title\":\"t\",\"paper\":\"p\",\"anchor\":\"a\",\"table\":\"T\","
         "\"conclusion\":\"c\",\"setup\":\"s\",\"rules\":[\"tiny_city=9\"],\"games\":10,\"rows\":[]"
         "}",
         "x: rule 'tiny_city=9': "},
        {"{\"name\":\"x\",\"title\":\"t\",\"paper\":\"p\",\"anchor\":\"a\",\"table\":\"T\","
         "\"conclusion\":\"c\",\"setup\":\"s\",\"game\":\"dodgem\",\"rules\":[\"tiny_city=2\"],"
         "\"games\":10,\"rows\":[]}",
         "x: rule 'tiny_city=2': "},
        {"{\"name\":\"x\",\"title\":\"t\",\"paper\":\"p\",\"anchor\":\"a\",\"table\":\"T\","
         "\"conclusion\":\"c\",\"setup\":\"s\",\"rules\":[\"players=3\"],\"games\":10,\"rows\":[]}",
         "rule 'players=3': an experiment's rows are two-seat head-to-heads"},
        {"{\"name\":\"x\",\"title\":\"t\",\"paper\":\"p\",\"anchor\":\"a\",\"table\":\"T\","
         "\"conclusion\":\"c\",\"setup\":\"s\",\"rules\":[3],\"games\":10,\"rows\":[]}",
         "rule 1 must be a \"key=value\" string"},
        {"{\"name\":\"x\",\"title\":\"t\",\"paper\":\"p\",\"anchor\":\"a\",\"table\":\"T\","
         "\"conclusion\":\"c\",\"setup\":\"s\",\"games\":10,\"rows\":[{\"id\":\"r\",\"label\":"
         "\"l\",\"a\":\"random\",\"b\":\"random\",\"paper\":{\"rate\":1.5,\"n\":10}}]}",
         "\"paper\" with a \"rate\" needs it in [0, 1]"},
        {"{\"name\":\"x\",\"title\":\"t\",\"paper\":\"p\",\"anchor\":\"a\",\"table\":\"T\","
         "\"conclusion\":\"c\",\"setup\":\"s\",\"games\":10,\"rows\":[{\"id\":\"r\",\"label\":"
         "\"l\",\"a\":\"random\",\"b\":\"random\",\"paper\":{\"rate\":0.5,\"n\":10,\"w\":5}}]}",
         "and no w, l, d"},
        {"{\"name\":\"x\",\"title\":\"t\",\"paper\":\"p\",\"anchor\":\"a\",\"table\":\"T\","
         "\"conclusion\":\"c\",\"setup\":\"s\",\"games\":10,\"rows\":[{\"id\":\"r\",\"label\":"
         "\"l\",\"a\":\"random\",\"b\":\"random\",\"paper\":{\"rate\":0.5}}]}",
         "an integer \"n\" >= 1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        exp_def *d = (exp_def *)1;
        char err[512] = "";
        assert_int_equal(exp_parse(cases[i].text, &d, err, sizeof err), ENG_EINVAL);
        assert_null(d);
        if (!strstr(err, cases[i].want))
            fail_msg("case %zu: '%s' lacks '%s'", i, err, cases[i].want);
    }
    /* a good one: odd games round up to even, a row's own count wins */
    exp_def *d;
    char err[512];
    assert_int_equal(
        exp_parse(
            "{\"name\":\"x\",\"title\":\"t\",\"paper\":\"p\",\"anchor\":\"a\",\"table\":\"T\","
            "\"conclusion\":\"c\",\"setup\":\"s\",\"games\":11,\"rows\":[{\"id\":\"r\","
            "\"label\":\"l\",\"a\":\"random\",\"b\":\"heuristic\"},{\"id\":\"s\",\"label\":"
            "\"m\",\"a\":\"random\",\"b\":\"random\",\"games\":4}]}",
            &d, err, sizeof err),
        0);
    assert_int_equal(d->rows[0].games, 12);
    assert_int_equal(d->rows[1].games, 4);
    assert_false(d->rows[0].paper.present);
    exp_def_free(d);

    assert_int_equal(exp_load("nope", &d, err, sizeof err), ENG_EINVAL);
    assert_non_null(strstr(err, "unknown experiment 'nope'; experiments: es-ix evomcts-v"));
}

/* The ranking tables: the paper's figures as read, and ours summed from the
 * rows' league matches and ranked by points, then PD. */
static void test_ranking(void **state)
{
    (void)state;
    exp_def *d;
    char err[512];
    assert_int_equal(exp_load("siea-iv", &d, err, sizeof err), 0);
    assert_string_equal(d->ranking_table, "Table V");
    assert_int_equal(d->nranked, 6);
    /* Table V, first row: K = √2, 31 points, BWP 1, BLP 2, 7-3-0, PD +40.08 */
    assert_string_equal(d->ranked[0].spec, "mcts:sims=400,k=1.41421356");
    assert_int_equal(d->ranked[0].paper_rank, 1);
    assert_int_equal(d->ranked[0].paper.points, 31);
    assert_int_equal(d->ranked[0].paper.blp, 2);
    assert_near(d->ranked[0].paper.pd, 40.08, 1e-9);
    /* every paper entry adds up: 4 per win, 2 per draw, the bonus points */
    for (int i = 0; i < d->nranked; i++) {
        const exp_league *l = &d->ranked[i].paper;
        assert_int_equal(l->points, 4 * l->won + 2 * l->drawn + l->bwp + l->blp);
    }
    /* ours: give each row's A 4+1 points (a won match with a bonus) and B 0,
     * except one row that B wins; a controller collects its rows as A and as B */
    exp_row_result res[EXP_MAX_ROWS];
    memset(res, 0, sizeof res);
    for (int r = 0; r < d->nrows; r++) {
        res[r].done = res[r].expected = 50;
        res[r].league_a = (exp_league){5, 1, 0, 1, 1, 0, 2.5};
        res[r].league_b = (exp_league){4, 0, 0, 1, 1, 0, -2.5};
    }
    exp_league ours[EXP_MAX_RANKED];
    int rank[EXP_MAX_RANKED];
    exp_ranking(d, res, ours, rank);
    /* K = 0.25 is A in its 5 rows (the first in every pairing): 25 points, PD +12.5 */
    int k025 = -1, k3 = -1;
    for (int i = 0; i < d->nranked; i++) {
        if (strcmp(d->ranked[i].spec, "mcts:sims=400,k=0.25") == 0)
            k025 = i;
        if (strcmp(d->ranked[i].spec, "mcts:sims=400,k=3") == 0)
            k3 = i;
    }
    assert_true(k025 >= 0 && k3 >= 0);
    assert_int_equal(ours[k025].points, 25);
    assert_int_equal(ours[k025].won, 5);
    assert_near(ours[k025].pd, 12.5, 1e-12);
    assert_int_equal(rank[k025], 1);
    /* K = 3 is B in all its rows (the last of every pairing): 20 points, last */
    assert_int_equal(ours[k3].points, 20);
    assert_near(ours[k3].pd, -12.5, 1e-12);
    assert_int_equal(rank[k3], 6);
    /* a tie on points is broken by PD; ranks are 1..6 once each here */
    int seen[7] = {0};
    for (int i = 0; i < d->nranked; i++)
        seen[rank[i]]++;
    for (int k = 1; k <= 6; k++)
        assert_int_equal(seen[k], 1);
    exp_def_free(d);

    /* a ranking entry must name a spec some row plays */
    static const char *const bad[][2] = {
        {"\"ranking\":{\"table\":\"T\",\"entries\":[{\"label\":\"x\",\"spec\":\"heuristic\","
         "\"rank\":1,\"points\":0,\"bwp\":0,\"blp\":0,\"w\":0,\"l\":0,\"d\":0,\"pd\":0},"
         "{\"label\":\"y\",\"spec\":\"random\",\"rank\":2,\"points\":0,\"bwp\":0,\"blp\":0,"
         "\"w\":0,\"l\":0,\"d\":0,\"pd\":0}]}",
         "ranking entry 1: no row plays 'heuristic'"},
        {"\"ranking\":{\"table\":\"T\",\"entries\":[]}", "\"ranking\" needs \"table\" and 2.."},
        {"\"ranking\":{\"table\":\"T\",\"entries\":[{\"label\":\"x\",\"spec\":\"random\","
         "\"rank\":1,\"points\":-1,\"bwp\":0,\"blp\":0,\"w\":0,\"l\":0,\"d\":0,\"pd\":0},"
         "{\"label\":\"y\",\"spec\":\"random\",\"rank\":2,\"points\":0,\"bwp\":0,\"blp\":0,"
         "\"w\":0,\"l\":0,\"d\":0,\"pd\":0}]}",
         "ranking entry 1: \"points\" must be an integer >= 0"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[2048];
        snprintf(text, sizeof text,
                 "{\"name\":\"x\",\"title\":\"t\",\"paper\":\"p\",\"anchor\":\"a\",\"table\":"
                 "\"T\",\"conclusion\":\"c\",\"setup\":\"s\",\"games\":10,\"rows\":[{\"id\":"
                 "\"r\",\"label\":\"l\",\"a\":\"random\",\"b\":\"random:seed=2\"}],%s}",
                 bad[i][0]);
        assert_int_equal(exp_parse(text, &d, err, sizeof err), ENG_EINVAL);
        if (!strstr(err, bad[i][1]))
            fail_msg("ranking case %zu: '%s' lacks '%s'", i, err, bad[i][1]);
    }
}

static void test_wilson(void **state)
{
    (void)state;
    double lo, hi;
    /* docs/match.md: 10 of 10 at 90% gives 78.7-100%, 0 of 10 gives 0-21.3% */
    exp_wilson(1, 10, 1.6448536, &lo, &hi);
    assert_near(lo, 0.787, 0.0005);
    assert_near(hi, 1, 1e-12);
    exp_wilson(0, 10, 1.6448536, &lo, &hi);
    assert_near(lo, 0, 1e-12);
    assert_near(hi, 0.213, 0.0005);
    /* Wilson (1927) at 95%: 81 of 263 -> 0.2553-0.3662 (Newcombe 1998, Table I) */
    exp_wilson(81.0 / 263, 263, EXP_Z95, &lo, &hi);
    assert_near(lo, 0.2553, 0.00005);
    assert_near(hi, 0.3662, 0.00005);
}

static void test_verdict(void **state)
{
    (void)state;
    exp_paper p = {true, true, 93, 6, 1, 0.935, 100, "x"};
    exp_row_result r = {0};
    exp_judge(&p, &r);
    assert_int_equal(r.verdict, EXP_NOT_RUN);
    assert_near(r.paper_rate, 0.935, 1e-12);
    /* 192-8-0 of 200 against 93.5% of 100: agrees */
    r.done = 200, r.w = 192, r.l = 8, r.rate = 0.96;
    exp_judge(&p, &r);
    assert_int_equal(r.verdict, EXP_AGREES);
    /* 13% of 100 against 73.3% of 30 (Table X, EA-MCTS vs MCTS-400): differs, z far below */
    exp_paper q = {true, true, 22, 8, 0, 22.0 / 30, 30, "x"};
    exp_row_result s = {.done = 100, .w = 13, .l = 87, .rate = 0.13};
    exp_judge(&q, &s);
    assert_int_equal(s.verdict, EXP_DIFFERS);
    assert_true(s.z < -5);
    /* the pooled z by hand: pool = (0.13*100 + 22/30*30)/130 */
    double pool = (13.0 + 22.0) / 130, se = sqrt(pool * (1 - pool) * (1.0 / 100 + 1.0 / 30));
    assert_near(s.z, (0.13 - 22.0 / 30) / se, 1e-12);
    /* both at 0%: agrees (no variance, no difference) */
    exp_paper z0 = {true, true, 0, 30, 0, 0, 30, "x"};
    exp_row_result t = {.done = 100, .l = 100, .rate = 0};
    exp_judge(&z0, &t);
    assert_int_equal(t.verdict, EXP_AGREES);
    /* a rate-only paper figure (the EvoMCTS paper): 0.5956 of 10,000 against 70% of 100
     * differs (z = 2.1); against 65% it agrees (z = 1.1) */
    exp_paper rt = {.present = true, .rate = 0.5956, .n = 10000, .source = "x"};
    exp_row_result u = {.done = 100, .w = 70, .l = 30, .rate = 0.70};
    exp_judge(&rt, &u);
    assert_near(u.paper_rate, 0.5956, 1e-12);
    assert_true(u.paper_lo > 0.585 && u.paper_hi < 0.606);
    assert_int_equal(u.verdict, EXP_DIFFERS);
    u.w = 65, u.l = 35, u.rate = 0.65;
    exp_judge(&rt, &u);
    assert_int_equal(u.verdict, EXP_AGREES);
    /* no paper figure */
    exp_paper none = {0};
    exp_judge(&none, &t);
    assert_int_equal(t.verdict, EXP_NO_PAPER);
    assert_string_equal(exp_verdict_name(EXP_DIFFERS), "differs");
}

static void test_quick_spec(void **state)
{
    (void)state;
    char buf[256];
    assert_int_equal(exp_quick_spec("mcts:sims=400,k=0.5", buf, sizeof buf), 0);
    assert_string_equal(buf, "mcts:sims=400,k=0.5,sims=8");
    assert_int_equal(exp_quick_spec("siea-mcts", buf, sizeof buf), 0);
    assert_string_equal(buf, "siea-mcts:sims=8,gens=1,fitness_sims=2");
    assert_int_equal(exp_quick_spec("star2.5", buf, sizeof buf), 0);
    assert_string_equal(buf, "star2.5:depth=1");
    assert_int_equal(exp_quick_spec("heuristic", buf, sizeof buf), 0);
    assert_string_equal(buf, "heuristic");
    /* a name that only starts like a known bot is not it */
    assert_int_equal(exp_quick_spec("mctsx:a=1", buf, sizeof buf), 0);
    assert_string_equal(buf, "mctsx:a=1");
    assert_int_equal(exp_quick_spec("mcts", buf, 8), ENG_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_builtins_load), cmocka_unit_test(test_paper_figures),
        cmocka_unit_test(test_parse_errors),  cmocka_unit_test(test_wilson),
        cmocka_unit_test(test_verdict),       cmocka_unit_test(test_quick_spec),
        cmocka_unit_test(test_ranking),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
