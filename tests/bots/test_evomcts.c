/*
 * test_evomcts.c — EvoMCTS: the typed GP expressions (bots/tgp.c), the
 * `evomcts` bot's evaluation files (bots/evomcts.c) and the offline
 * evolution (bots/evolve.c).
 *
 *   - terminal sets: each game's names as the paper writes them (Reversi:
 *     the man, mobility and corner terminals; Dodgem: the PosCount trio; the
 *     ones we define for Pentago-Twist and Carcassonne), squares only with a
 *     grid;
 *   - evaluation of hand-written expressions on hand-built states: features,
 *     every function, introns, factors, square predicates;
 *   - printing and parsing: thousands of random trees of every game read
 *     back to the same tree and the same values; errors give line and column
 *     and never echo an unknown name; limits (depth, nodes, text) hold;
 *   - genetic operators keep every tree valid, typed and within the depth
 *     limit; one-way crossover leaves the donor alone; two-way keeps the
 *     node count; a local mutation changes one factor only;
 *   - the bot: eval=FILE loads with comments; missing, non-regular, NUL and
 *     malformed files are refused with the option named; an expression
 *     changes the playouts (pbf=1 ignores it);
 *   - the evolution: a run is the same with 1 or 2 threads and when stopped
 *     after generation 2 and resumed from its checkpoint; the stop flag
 *     stops it; broken checkpoints are refused with their line number;
 *   - the evolved evaluations in docs/examples/ (the argument) still load.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "bots/evolve.h"
#include "bots/evomcts.h"
#include "bots/tgp.h"
#include "engine/dodgem/dodgem.h"
#include "engine/pentago/pentago.h"

static char tmpdir[256];

static const char *tmp_path(const char *name)
{
    static char buf[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", tmpdir, name);
    return buf[k];
}

static void write_file(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    fclose(f);
}

static void parse_ok(tgp_expr *e, const tgp_set *s, const char *text)
{
    char err[256] = "";
    if (tgp_parse(e, s, text, err, sizeof err) != 0)
        fail_msg("'%s' refused: %s", text, err);
    assert_true(tgp_check(e, s, TGP_DEPTH_LIMIT));
}

/* ---- terminal sets ---------------------------------------------------------------- */

static bool has_term(const tgp_set *s, const char *name)
{
    for (int i = 0; i < s->nterm; i++)
        if (strcmp(s->term[i].name, name) == 0)
            return true;
    return false;
}

static void test_sets(void **unused)
{
    (void)unused;
    tgp_set s;
    tgp_set_init(&s, eng_find_game("reversi"));
    const char *rev[] = {"FriendlyManCount",    "EnemyManCount",    "ManCount",   "Mobility",
                         "FriendlyCornerCount", "EnemyCornerCount", "CornerCount"};
    assert_int_equal(s.nterm, 7);
    for (size_t i = 0; i < sizeof rev / sizeof *rev; i++)
        assert_true(has_term(&s, rev[i]));
    assert_int_equal(s.grid_w, 8);
    tgp_set_init(&s, &dodgem_game);
    const char *dod[] = {"FriendlyManCount", "EnemyManCount", "ManCount", "Mobility",
                         "FriendlyPosCount", "EnemyPosCount", "PosCount"};
    assert_int_equal(s.nterm, 7);
    for (size_t i = 0; i < sizeof dod / sizeof *dod; i++)
        assert_true(has_term(&s, dod[i]));
    assert_int_equal(s.grid_w, 5);
    tgp_set_init(&s, &pt_game);
    assert_int_equal(s.nterm, 10);
    assert_true(has_term(&s, "CenterCount") && has_term(&s, "FriendlyPosCount") &&
                has_term(&s, "Mobility"));
    assert_int_equal(s.grid_w, 6);
    tgp_set_init(&s, eng_find_game("carcassonne"));
    assert_int_equal(s.nterm, 6); /* ScoreCount, ManCount trios; "heyden" is not a terminal */
    assert_true(has_term(&s, "EnemyScoreCount") && has_term(&s, "FriendlyManCount"));
    assert_false(has_term(&s, "heyden"));
    assert_int_equal(s.grid_w, 0); /* no board grid: no square terminals */
    tgp_expr e;
    char err[256];
    assert_int_equal(
        tgp_parse(&e, &s, "IfTrue(IsEmptySquare[0,0](), One(), Zero())", err, sizeof err),
        ENG_EINVAL);
    assert_non_null(strstr(err, "grid"));
}

/* ---- evaluation ------------------------------------------------------------------------ */

static void test_eval(void **unused)
{
    (void)unused;
    tgp_set s;
    tgp_set_init(&s, &dodgem_game);
    dodgem_state st;
    eng_rules r;
    eng_rules_default(&dodgem_game, &r);
    dodgem_game.init(&st, &r);
    eng_move m;
    assert_int_equal(dodgem_game.move_from_str(&st, "0 1 E", &m), 0);
    dodgem_game.apply(&st, m); /* Black's distance 19, White's 20; White to move */
    tgp_expr e;
    struct {
        const char *text;
        int me;
        double want;
    } cases[] = {
        {"FriendlyPosCount()", 0, 19},
        {"EnemyPosCount()", 0, 20},
        {"PosCount()", 1, 1},
        {"Mobility()", 0, -1}, /* set below, from the engine */
        {"ManCount()", 0, 0},
        {"Plus(One(), 2.5)", 0, 3.5},
        {"Minus(One(), 2.5)*2", 0, -3},
        {"MultERC[-2](Plus(One(), One()))", 0, -4},
        {"NullJ(One(), MultERC[3](EnemyPosCount()))", 0, 1},
        {"IfTrue(True(), One(), Zero())", 0, 1},
        {"IfTrue(False(), One(), Zero())", 0, 0},
        {"IfTrue(LowerEqual(FriendlyPosCount(), EnemyPosCount()), 7, 8)", 0, 7},
        {"IfTrue(LowerEqual(FriendlyPosCount(), EnemyPosCount()), 7, 8)", 1, 8},
        {"IfTrue(AND(True(), False()), 1, 0)", 0, 0},
        {"IfTrue(NAND(True(), False()), 1, 0)", 0, 1},
        {"IfTrue(OR(False(), True()), 1, 0)", 0, 1},
        {"IfTrue(NOR(False(), False()), 1, 0)", 0, 1},
        {"IfTrue(NOTG(True(), False()), 1, 0)", 0, 0},
        {"IfTrue(NOTG(False(), False()), 1, 0)", 0, 1},
        {"IfTrue(IsFriendlyPiece[1,1](), 1, 0)", 0, 1},
        {"IfTrue(IsFriendlyPiece[1,1](), 1, 0)", 1, 0},
        {"IfTrue(IsManPiece[2,0](), 1, 0)", 1, 1},
        {"IfTrue(IsEmptySquare[0,1](), 1, 0)", 0, 1},
        {"IfTrue(IsEmptySquare[0,0](), 1, 0)", 0, 1},
        {"Zero*3", 0, 0},
        {"One()*0.5", 0, 0.5},
    };
    int32_t buf[16];
    cases[3].want = dodgem_moves_of(&st, 0, buf);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        parse_ok(&e, &s, cases[i].text);
        double v = tgp_eval(&e, &s, &st, cases[i].me);
        if (v != cases[i].want)
            fail_msg("%s for seat %d: %g, want %g", cases[i].text, cases[i].me, v, cases[i].want);
    }
}

/* ---- printing and parsing ------------------------------------------------------------------ */

static void test_round_trip(void **unused)
{
    (void)unused;
    int ng;
    const eng_game *const *games = eng_games(&ng);
    eng_rng rng;
    eng_rng_seed(&rng, 5);
    static char text[TGP_TEXT_MAX + 1], again[TGP_TEXT_MAX + 1];
    static tgp_expr e, back;
    for (int gi = 0; gi < ng; gi++) {
        const eng_game *g = games[gi];
        tgp_set s;
        tgp_set_init(&s, g);
        /* a few states of a random game to evaluate on */
        unsigned char *st = malloc(g->state_size * 4);
        eng_rules r;
        eng_rules_default(g, &r);
        for (int k = 0; k < 4; k++) {
            unsigned char *x = st + k * g->state_size;
            g->init(x, &r);
            for (int ply = 0; ply < 6 * k; ply++) {
                int p = g->current_player(x);
                if (p == ENG_TERMINAL)
                    break;
                g->apply(x, p == ENG_CHANCE ? eng_sample_chance(g, x, &rng)
                                            : eng_random_move(g, x, &rng));
            }
        }
        for (int i = 0; i < 400; i++) {
            tgp_random(&e, &s, &rng, i % 8, i % 3 == 0);
            for (int k = 0; k < i % 5; k++)
                tgp_mutate(&e, &s, &rng, TGP_DEFAULT_DEPTH, 0.5);
            assert_true(tgp_check(&e, &s, TGP_DEFAULT_DEPTH));
            int len = tgp_print(&e, &s, text, sizeof text);
            assert_true(len > 0 && (size_t)len < sizeof text);
            char err[256] = "";
            if (tgp_parse(&back, &s, text, err, sizeof err) != 0)
                fail_msg("%s: '%.200s' does not read back: %s", g->name, text, err);
            assert_int_equal(back.n, e.n);
            tgp_print(&back, &s, again, sizeof again);
            assert_string_equal(text, again);
            for (int k = 0; k < 4; k++) {
                const unsigned char *x = st + k * g->state_size;
                int me = g->current_player(x) >= 0 ? g->current_player(x) : 0;
                double a = tgp_eval(&e, &s, x, me), b = tgp_eval(&back, &s, x, me);
                assert_true(a == b && a == a);
            }
        }
        free(st);
    }
    /* a truncated print ends inside the buffer */
    tgp_set s;
    tgp_set_init(&s, &pt_game);
    tgp_random(&e, &s, &rng, 6, true);
    char small[16];
    int need = tgp_print(&e, &s, small, sizeof small);
    assert_true(need > 15 && strlen(small) == 15);
}

static void test_parse_errors(void **unused)
{
    (void)unused;
    tgp_set s;
    tgp_set_init(&s, &pt_game);
    tgp_expr e;
    char err[256];
    struct {
        const char *text;
        const char *piece;
    } bad[] = {
        {"", "line 1, column 1: an expression is expected"},
        {"SecretPassword(One())", "not a name"},
        {"Plus(One())", "','"},
        {"Plus(One(), One(), One())", "')'"},
        {"AND(True(), True())", "gives a boolean where a number"},
        {"IfTrue(One(), One(), One())", "gives a number where a boolean"},
        {"IfTrue(True()*2, One(), One())", "factor"},
        {"IfTrue(IsEmptySquare[6,0](), One(), Zero())", "square"},
        {"IfTrue(IsEmptySquare[1.5,0](), One(), Zero())", "square"},
        {"MultERC(One())", "'['"},
        {"One() One()", "after the end"},
        {"Plus(One(), nan)", "not a name"},
        {"1e999", "finite"},
        {"Plus(One(),\n  Bogus())", "line 2, column 3"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = 0;
        int rc = tgp_parse(&e, &s, bad[i].text, err, sizeof err);
        if (rc != ENG_EINVAL || !strstr(err, bad[i].piece))
            fail_msg("'%s': rc %d, '%s'; want '%s'", bad[i].text, rc, err, bad[i].piece);
        assert_null(strstr(err, "Secret")); /* unknown text is never echoed */
        assert_null(strstr(err, "Bogus"));
        assert_true(tgp_check(&e, &s, TGP_DEPTH_LIMIT)); /* left as Zero() */
    }
    /* nesting beyond the limit */
    static char deep[4096];
    size_t k = 0;
    for (int i = 0; i < TGP_DEPTH_LIMIT + 2; i++)
        k += (size_t)snprintf(deep + k, sizeof deep - k, "MultERC[1](");
    k += (size_t)snprintf(deep + k, sizeof deep - k, "One()");
    for (int i = 0; i < TGP_DEPTH_LIMIT + 2; i++)
        deep[k++] = ')';
    deep[k] = 0;
    assert_int_equal(tgp_parse(&e, &s, deep, err, sizeof err), ENG_EINVAL);
    assert_non_null(strstr(err, "deeper"));
    /* more nodes than fit */
    static char wide[TGP_TEXT_MAX];
    k = 0;
    for (int i = 0; i < 300; i++)
        k += (size_t)snprintf(wide + k, sizeof wide - k, "Plus(One(), ");
    k += (size_t)snprintf(wide + k, sizeof wide - k, "One()");
    for (int i = 0; i < 300; i++)
        wide[k++] = ')';
    wide[k] = 0;
    assert_int_equal(tgp_parse(&e, &s, wide, err, sizeof err), ENG_EINVAL);
}

/* ---- genetic operators ------------------------------------------------------------------------
 */

static void test_operators(void **unused)
{
    (void)unused;
    tgp_set s;
    tgp_set_init(&s, eng_find_game("reversi"));
    eng_rng rng;
    eng_rng_seed(&rng, 9);
    static tgp_expr a, b, a0, b0;
    int local = 0, one_way = 0, two_way = 0;
    for (int i = 0; i < 3000; i++) {
        int maxd = 4 + i % 12;
        tgp_random(&a, &s, &rng, 1 + i % 5, i % 2);
        tgp_random(&b, &s, &rng, 1 + (i / 2) % 5, !(i % 2));
        if (tgp_depth(&a) > maxd || tgp_depth(&b) > maxd)
            continue;
        a0 = a;
        b0 = b;
        if (tgp_cross_one_way(&a, &b, &rng, maxd)) {
            one_way++;
            assert_int_equal(a.n, a0.n);
            assert_memory_equal(a.node, a0.node, a.n * sizeof a.node[0]);
        }
        assert_true(tgp_check(&b, &s, maxd));
        b0 = b;
        if (tgp_cross_two_way(&a, &b, &rng, maxd)) {
            two_way++;
            assert_int_equal(a.n + b.n, a0.n + b0.n);
        }
        assert_true(tgp_check(&a, &s, maxd) && tgp_check(&b, &s, maxd));
        a0 = a;
        if (tgp_mutate(&a, &s, &rng, maxd, 0.5)) {
            local++;
            assert_int_equal(a.n, a0.n);
            int diff = 0;
            for (int k = 0; k < a.n; k++) {
                assert_int_equal(a.node[k].op, a0.node[k].op);
                diff += a.node[k].factor != a0.node[k].factor;
                assert_true(a.node[k].k == a0.node[k].k);
            }
            assert_true(diff <= 1);
        }
        assert_true(tgp_check(&a, &s, maxd));
    }
    print_message("      %d one-way and %d two-way crossovers, %d local mutations\n", one_way,
                  two_way, local);
    assert_true(one_way > 1000 && two_way > 1000 && local > 300);
}

/* ---- the bot ----------------------------------------------------------------------------------
 */

static void test_eval_files(void **unused)
{
    (void)unused;
    char spec[600], err[512];
    const char *good = tmp_path("good.txt");
    const char *text = "# a comment\n  # indented comment\nMinus(EnemyPosCount(),\n"
                       "      FriendlyPosCount())*1.5\n";
    write_file(good, text, strlen(text));
    snprintf(spec, sizeof spec, "evomcts:sims=20,eval=%s", good);
    bot *b = bot_create(spec, &dodgem_game, 1, err, sizeof err);
    if (!b)
        fail_msg("%s: %s", spec, err);
    char desc[BOT_SPEC_MAX];
    bot_describe(b, desc, sizeof desc);
    assert_non_null(strstr(desc, "eval="));
    bot_destroy(b);

    struct {
        const char *name, *content, *piece;
    } bad[] = {
        {"syntax.txt", "# fine\nPlus(One(),\n  Nonsense())\n", "line 3, column 3"},
        {"types.txt", "AND(True(), True())", "boolean"},
        {"trailing.txt", "One() # comment after code", "after the end"},
        {"empty.txt", "# nothing but comments\n", "an expression is expected"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        const char *p = tmp_path(bad[i].name);
        write_file(p, bad[i].content, strlen(bad[i].content));
        snprintf(spec, sizeof spec, "evomcts:eval=%s", p);
        assert_int_equal(bot_check_spec(spec, &dodgem_game, err, sizeof err), ENG_EBAD_BOT_SPEC);
        if (!strstr(err, "'eval'") || !strstr(err, bad[i].piece))
            fail_msg("%s: '%s'", bad[i].name, err);
    }
    const char *nul = tmp_path("nul.txt");
    write_file(nul, "One()\0Zero()", 12);
    snprintf(spec, sizeof spec, "evomcts:eval=%s", nul);
    assert_int_equal(bot_check_spec(spec, &dodgem_game, err, sizeof err), ENG_EBAD_BOT_SPEC);
    assert_non_null(strstr(err, "NUL"));
    snprintf(spec, sizeof spec, "evomcts:eval=%s/no-such-file", tmpdir);
    assert_int_equal(bot_check_spec(spec, &dodgem_game, err, sizeof err), ENG_EBAD_BOT_SPEC);
    assert_non_null(strstr(err, "cannot read"));
    snprintf(spec, sizeof spec, "evomcts:eval=%s", tmpdir);
    assert_int_equal(bot_check_spec(spec, &dodgem_game, err, sizeof err), ENG_EBAD_BOT_SPEC);
    assert_non_null(strstr(err, "not a regular file"));
    /* a Dodgem expression does not fit Reversi's terminal set */
    snprintf(spec, sizeof spec, "evomcts:eval=%s", good);
    assert_int_equal(bot_check_spec(spec, eng_find_game("reversi"), err, sizeof err),
                     ENG_EBAD_BOT_SPEC);
}

/* The evaluation steers the playouts: with one the games differ from pbf=1,
 * and pbf=1 ignores it (the same game as without). */
static void test_eval_changes_play(void **unused)
{
    (void)unused;
    const char *path = tmp_path("steer.txt");
    const char *text = "Minus(EnemyPosCount(), FriendlyPosCount())";
    write_file(path, text, strlen(text));
    char specs[3][300];
    snprintf(specs[0], sizeof specs[0], "evomcts:sims=40,pbf=1");
    snprintf(specs[1], sizeof specs[1], "evomcts:sims=40,pbf=1,eval=%s", path);
    snprintf(specs[2], sizeof specs[2], "evomcts:sims=40,eval=%s", path);
    eng_move line[3][200];
    int len[3];
    for (int v = 0; v < 3; v++) {
        bot *b = bot_create(specs[v], &dodgem_game, 5, NULL, 0);
        assert_non_null(b);
        dodgem_state st;
        eng_rules r;
        eng_rules_default(&dodgem_game, &r);
        dodgem_game.init(&st, &r);
        len[v] = 0;
        while (dodgem_game.current_player(&st) >= 0 && len[v] < 20) {
            eng_move m = bot_choose(b, &st, NULL, NULL);
            bot_observe(b, &st, m);
            dodgem_game.apply(&st, m);
            line[v][len[v]++] = m;
        }
        bot_destroy(b);
    }
    assert_true(len[0] == len[1] &&
                memcmp(line[0], line[1], (size_t)len[0] * sizeof(eng_move)) == 0);
    assert_false(len[0] == len[2] &&
                 memcmp(line[0], line[2], (size_t)len[0] * sizeof(eng_move)) == 0);
}

/* ---- the evolution ------------------------------------------------------------------------------
 */

static evo_params small_params(void)
{
    evo_params p;
    evo_params_default(&p);
    p.population = 6;
    p.generations = 4;
    p.coplay = 1;
    p.sims = 8;
    p.seed = 42;
    p.init_max = 4;
    return p;
}

/* Print the whole population and history into buf. */
static void summary(const evo_run *r, char *buf, size_t cap)
{
    size_t k = 0;
    for (int g = 1; g <= evo_generation(r); g++) {
        double best, nodes;
        evo_history(r, g, &best, &nodes);
        k += (size_t)snprintf(buf + k, cap - k, "%d %g %g\n", g, best, nodes);
    }
    for (int i = 0; i < evo_get_params(r)->population && k < cap; i++) {
        double fit;
        const tgp_expr *e = evo_ranked(r, i, &fit);
        k += (size_t)snprintf(buf + k, cap - k, "%g ", fit);
        k += (size_t)tgp_print(e, evo_set(r), buf + k, cap - k);
        k += (size_t)snprintf(buf + k, cap - k, "\n");
    }
}

static int game_calls;
static void count_games(void *ud, int done, int total)
{
    (void)ud;
    assert_true(done >= 1 && done <= total);
    game_calls++;
}

static void test_evolution_resumes(void **unused)
{
    (void)unused;
    const eng_game *g = eng_find_game("reversi");
    eng_rules r;
    eng_rules_default(g, &r);
    evo_params p = small_params();
    char err[512];
    static char whole[1 << 16], split[1 << 16], threaded[1 << 16];
    /* uninterrupted, one thread */
    evo_run *a = evo_create(g, &r, &p, err, sizeof err);
    assert_non_null(a);
    for (int k = 0; k < 4; k++) {
        evo_report rep;
        game_calls = 0;
        assert_int_equal(evo_step(a, 1, NULL, count_games, NULL, &rep, err, sizeof err), 0);
        assert_int_equal(rep.generation, k + 1);
        assert_int_equal(rep.games, p.population * p.coplay);
        assert_int_equal(game_calls, rep.games);
        assert_true(rep.best >= 1 && rep.best <= rep.games_each); /* someone wins a game */
    }
    assert_int_equal(evo_step(a, 1, NULL, NULL, NULL, NULL, err, sizeof err), ENG_EINVAL);
    summary(a, whole, sizeof whole);
    evo_destroy(a);
    /* two generations, a checkpoint, a new process reading it, two more */
    const char *ck = tmp_path("run.ckpt");
    evo_run *b = evo_create(g, &r, &p, err, sizeof err);
    for (int k = 0; k < 2; k++) {
        assert_int_equal(evo_step(b, 2, NULL, NULL, NULL, NULL, err, sizeof err), 0);
        assert_int_equal(evo_save(b, ck, err, sizeof err), 0);
    }
    evo_destroy(b);
    evo_run *c = evo_load(ck, err, sizeof err);
    if (!c)
        fail_msg("evo_load: %s", err);
    assert_int_equal(evo_generation(c), 2);
    for (int k = 0; k < 2; k++)
        assert_int_equal(evo_step(c, 2, NULL, NULL, NULL, NULL, err, sizeof err), 0);
    summary(c, split, sizeof split);
    assert_string_equal(whole, split);
    /* saved again and read again: the same bytes */
    const char *ck2 = tmp_path("run2.ckpt");
    assert_int_equal(evo_save(c, ck2, err, sizeof err), 0);
    evo_destroy(c);
    evo_run *d = evo_load(ck2, err, sizeof err);
    assert_non_null(d);
    summary(d, threaded, sizeof threaded);
    assert_string_equal(whole, threaded);
    /* extending a finished run goes on */
    evo_set_generations(d, 5);
    assert_int_equal(evo_step(d, 1, NULL, NULL, NULL, NULL, err, sizeof err), 0);
    assert_int_equal(evo_generation(d), 5);
    evo_destroy(d);
    print_message("      4 generations: the same population whole, resumed, and reloaded\n");
}

static void test_evolution_stop_and_errors(void **unused)
{
    (void)unused;
    const eng_game *g = &pt_game;
    eng_rules r;
    eng_rules_default(g, &r);
    evo_params p = small_params();
    char err[512];
    atomic_bool stop = true;
    evo_run *a = evo_create(g, &r, &p, err, sizeof err);
    assert_non_null(a);
    assert_int_equal(evo_step(a, 2, &stop, NULL, NULL, NULL, err, sizeof err), ENG_ESHUTTING_DOWN);
    assert_int_equal(evo_generation(a), 0);
    evo_destroy(a);

    /* bad parameters */
    evo_params q = p;
    q.population = 1;
    assert_null(evo_create(g, &r, &q, err, sizeof err));
    assert_non_null(strstr(err, "population"));
    q = p;
    q.elite = q.population;
    assert_null(evo_create(g, &r, &q, err, sizeof err));
    q = p;
    snprintf(q.extra, sizeof q.extra, "eval=/etc/passwd");
    assert_null(evo_create(g, &r, &q, err, sizeof err));
    q = p;
    snprintf(q.extra, sizeof q.extra, "no_such_option=1");
    assert_null(evo_create(g, &r, &q, err, sizeof err));
    assert_non_null(strstr(err, "no_such_option"));
    const eng_game *carc = eng_find_game("carcassonne");
    eng_rules cr;
    eng_rules_default(carc, &cr);
    cr.players = 3;
    assert_null(evo_create(carc, &cr, &p, err, sizeof err));
    assert_non_null(strstr(err, "two-player"));

    /* broken checkpoints: each refused with its line */
    a = evo_create(g, &r, &p, err, sizeof err);
    assert_int_equal(evo_step(a, 1, NULL, NULL, NULL, NULL, err, sizeof err), 0);
    const char *ck = tmp_path("good.ckpt");
    assert_int_equal(evo_save(a, ck, err, sizeof err), 0);
    evo_destroy(a);
    FILE *f = fopen(ck, "r");
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    struct {
        const char *from, *to, *piece;
    } edits[] = {
        {"tessera-evolve 1", "tessera-evolve 2", "line 1"},
        {"game pentago-twist", "game chess", "unknown game"},
        {"population=6", "population=1", "population"},
        {"individual 0 ", "individual x ", "fitness"},
        {"Plus(", "Pluss(", "individual"},
        {"generation 1", "generation 9", "generation"},
        {"\nend\n", "\n", "incomplete"},
        {"rng ", "rng zz", "generator"},
    };
    for (size_t i = 0; i < sizeof edits / sizeof *edits; i++) {
        static char broken[1 << 16];
        const char *at = strstr(text, edits[i].from);
        if (!at)
            continue; /* e.g. no Plus in this population */
        size_t pre = (size_t)(at - text);
        snprintf(broken, sizeof broken, "%.*s%s%s", (int)pre, text, edits[i].to,
                 at + strlen(edits[i].from));
        const char *bp = tmp_path("broken.ckpt");
        write_file(bp, broken, strlen(broken));
        evo_run *x = evo_load(bp, err, sizeof err);
        if (x || !strstr(err, edits[i].piece))
            fail_msg("edit '%s' -> '%s': %s", edits[i].from, edits[i].to, x ? "loaded" : err);
    }
    assert_null(evo_load(tmp_path("no-such.ckpt"), err, sizeof err));
    assert_non_null(strstr(err, "cannot read"));
}

/* The evolved evaluations shipped in docs/examples/ load for their games. */
static const char *examples_dir;

static void test_shipped_examples(void **unused)
{
    (void)unused;
    if (!examples_dir)
        skip();
    static const char *const games[] = {"dodgem", "reversi"};
    for (int i = 0; i < 2; i++) {
        char spec[700], err[512];
        snprintf(spec, sizeof spec, "evomcts:sims=10,eval=%s/evomcts-%s.txt", examples_dir,
                 games[i]);
        if (bot_check_spec(spec, eng_find_game(games[i]), err, sizeof err) != 0)
            fail_msg("%s: %s", spec, err);
    }
}

static int setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "%s/tessera-evomcts-XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
    examples_dir = argc > 1 ? argv[1] : NULL;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sets),
        cmocka_unit_test(test_eval),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_operators),
        cmocka_unit_test(test_eval_files),
        cmocka_unit_test(test_eval_changes_play),
        cmocka_unit_test(test_evolution_resumes),
        cmocka_unit_test(test_evolution_stop_and_errors),
        cmocka_unit_test(test_shipped_examples),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
