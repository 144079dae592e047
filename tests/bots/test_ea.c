/*
 * test_ea.c — the evolved-formula bots: GP expressions (bots/gp.c) and the
 * (1+lambda) evolution with its three bots (bots/ea.c).
 *
 * Unit level: protected operators, infix printing of known trees and the
 * print/parse round trip, the UCT seed against the closed form, mutation
 * (depth bound and well-formedness over 100,000 mutations, the 90/10 split,
 * constants from the K set), SSD and the selection rule on constructed
 * fitness and semantics. Search level: the evolution leaves the real tree
 * untouched (copy and read-only modes), the budget accounting of the bots,
 * legal moves in every registered game for every seat count from 2 to 5,
 * determinism by seed. Searches use tiny budgets; nothing reads a clock.
 *
 * `test_ea --ties [positions]` counts the selections that meet a shared best
 * fitness and the decisions where siea-mcts and ea-mcts differ (docs/ea.md). `test_ea --bench
 * [positions]` runs the benchmark instead (not a CTest test): ms per move and simulations per
 * second of ea-p-mcts, ea-mcts and siea-mcts against mcts:sims=2800 in 2-player Carcassonne, by
 * phase.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "bots/bot.h"
#include "bots/ea.h"
#include "bots/gp.h"
#include "bots/mcts.h"

/* cmocka 1.1 has no assert_double_equal: |a - b| <= eps, printing both. */
#define assert_near(a, b, eps) near_((a), (b), (eps), #a, __FILE__, __LINE__)
static void near_(double a, double b, double eps, const char *what, const char *file, int line)
{
    if (!(fabs(a - b) <= eps)) {
        print_error("%s = %.17g, expected %.17g (within %g)\n", what, a, b, eps);
        _fail(file, line);
    }
}

static const double KSET[] = {0.25, 0.5, 1, 2, 3, 5, 7, 10};
#define NKSET 8

/* Build an expression from prefix tokens: "+ Q * N Nj", numbers are constants. */
static void build(gp_expr *e, const char *prefix)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", prefix);
    e->n = 0;
    static const char *const names[GP_NOPS] = {"Q", "N", "Nj", "K",   "+",
                                               "-", "*", "/",  "log", "sqrt"};
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
        int op = -1;
        for (int i = 0; i < GP_NOPS; i++)
            if (i != GP_K && strcmp(tok, names[i]) == 0)
                op = i;
        e->op[e->n] = (uint8_t)(op >= 0 ? op : GP_K);
        e->k[e->n] = op >= 0 ? 0.0 : strtod(tok, NULL);
        e->n++;
    }
    assert_true(gp_check(e, GP_MAX_DEPTH));
}

static bool expr_equal(const gp_expr *a, const gp_expr *b)
{
    if (a->n != b->n)
        return false;
    for (int i = 0; i < a->n; i++) {
        if (a->op[i] != b->op[i])
            return false;
        if (a->op[i] == GP_K && a->k[i] != b->k[i])
            return false;
    }
    return true;
}

/* ---- protected operators ------------------------------------------------------ */

/* Append N^(2^h) as a full tree of products of height h. */
static void full_product(gp_expr *e, int h)
{
    e->op[e->n] = (uint8_t)(h ? GP_MUL : GP_N);
    e->k[e->n++] = 0;
    if (h) {
        full_product(e, h - 1);
        full_product(e, h - 1);
    }
}

static void test_protected_ops(void **state)
{
    (void)state;
    assert_near(gp_pdiv(5, 0), 1, 0);
    assert_near(gp_pdiv(5, 0.0009), 1, 0);
    assert_near(gp_pdiv(5, -0.0009), 1, 0);
    assert_near(gp_pdiv(-7, 1e-300), 1, 0);
    assert_near(gp_pdiv(5, -0.0), 1, 0);
    assert_near(gp_pdiv(5, 0.001), 5000, 1e-9); /* the threshold itself divides */
    assert_near(gp_pdiv(5, -0.001), -5000, 1e-9);
    assert_near(gp_pdiv(5, 2), 2.5, 0);
    assert_near(gp_pdiv(5, -5), -1, 0); /* negative divisors of magnitude >= 0.001 divide */

    assert_true(isfinite(gp_plog(0)));
    assert_near(gp_plog(0), log(0.001), 1e-15);
    assert_near(gp_plog(-0.0), log(0.001), 1e-15);
    assert_near(gp_plog(1e-12), log(0.001), 1e-15);
    assert_near(gp_plog(-1e-12), log(0.001), 1e-15);
    assert_near(gp_plog(-M_E), 1, 1e-15);
    assert_near(gp_plog(M_E), 1, 1e-15);
    assert_near(gp_plog(-1), 0, 0);
    assert_near(gp_plog(0.002), log(0.002), 1e-15);
    assert_true(isfinite(gp_plog(1e308)));

    assert_near(gp_psqrt(-4), 2, 0);
    assert_near(gp_psqrt(4), 2, 0);
    assert_near(gp_psqrt(0), 0, 0);
    assert_near(gp_psqrt(-0.0), 0, 0);

    /* inside expressions, and saturation instead of overflow */
    gp_expr e;
    build(&e, "log 0");
    assert_near(gp_eval(&e, 0, 1, 1), log(0.001), 1e-15);
    build(&e, "log - Q Q");
    assert_near(gp_eval(&e, 3, 1, 1), log(0.001), 1e-15);
    build(&e, "/ Q - N N");
    assert_near(gp_eval(&e, 3, 5, 1), 1, 0);
    build(&e, "sqrt - 0 N");
    assert_near(gp_eval(&e, 0, 9, 1), 3, 0);
    /* N^256 overflows a double; the tree saturates at GP_BIG */
    e.n = 0;
    full_product(&e, 8);
    assert_int_equal(e.n, 511);
    assert_int_equal(gp_height(&e), 8);
    double v = gp_eval(&e, 0, 1e300, 1);
    assert_true(isfinite(v));
    assert_near(v, GP_BIG, 0);
    assert_near(gp_eval(&e, 0, -1e300, 1), GP_BIG, 0); /* an even power */
    build(&e, "- * * N N N * * N N N");
    assert_near(gp_eval(&e, 0, 1e300, 1), 0, 0); /* BIG - BIG, not inf - inf */
    build(&e, "/ * N N * N N");
    assert_near(gp_eval(&e, 0, 1e300, 1), 1, 0);
    build(&e, "log * N N");
    assert_true(isfinite(gp_eval(&e, 0, 1e300, 1)));
    /* NaN or infinite inputs never come out */
    build(&e, "+ Q N");
    assert_true(isfinite(gp_eval(&e, NAN, 1, 1)));
    assert_true(isfinite(gp_eval(&e, INFINITY, -INFINITY, 1)));
}

/* ---- infix printing and parsing ---------------------------------------------------- */

static void check_infix(const char *prefix, const char *infix)
{
    gp_expr e, back;
    char buf[512];
    build(&e, prefix);
    int n = gp_to_infix(&e, buf, sizeof buf);
    if (strcmp(buf, infix) != 0) {
        print_error("prefix '%s' printed as '%s', expected '%s'\n", prefix, buf, infix);
        fail();
    }
    assert_int_equal(n, (int)strlen(infix));
    assert_int_equal(gp_parse(&back, buf), 0);
    assert_true(expr_equal(&e, &back));
}

static void test_infix_known_trees(void **state)
{
    (void)state;
    gp_expr e;
    char buf[256];
    gp_seed_uct(&e, 1.41421356);
    gp_to_infix(&e, buf, sizeof buf);
    assert_string_equal(buf, "Q + 2 * 1.41421356 * sqrt(2 * log(N) / Nj)");
    gp_seed_uct(&e, sqrt(2.0));
    gp_to_infix(&e, buf, sizeof buf);
    assert_string_equal(buf, "Q + 2 * 1.4142135623730951 * sqrt(2 * log(N) / Nj)");
    gp_seed_uct(&e, 0.5);
    gp_to_infix(&e, buf, sizeof buf);
    assert_string_equal(buf, "Q + 2 * 0.5 * sqrt(2 * log(N) / Nj)");

    check_infix("Nj", "Nj");
    check_infix("10", "10");
    check_infix("1000", "1000");
    check_infix("123.5", "123.5");
    check_infix("0.25", "0.25");
    check_infix("-2", "(-2)");
    check_infix("- Q -2", "Q - (-2)");
    check_infix("+ Q * N Nj", "Q + N * Nj");
    check_infix("* + Q N Nj", "(Q + N) * Nj");
    check_infix("- Q - N Nj", "Q - (N - Nj)");
    check_infix("- - Q N Nj", "Q - N - Nj");
    check_infix("+ Q + N Nj", "Q + (N + Nj)"); /* exact tree shape, not just value */
    check_infix("+ + Q N Nj", "Q + N + Nj");
    check_infix("/ Q * N Nj", "Q / (N * Nj)");
    check_infix("/ * Q N Nj", "Q * N / Nj");
    check_infix("* Q / N Nj", "Q * (N / Nj)");
    check_infix("- Q * N Nj", "Q - N * Nj");
    check_infix("/ - Q N + N Nj", "(Q - N) / (N + Nj)");
    check_infix("log + Q N", "log(Q + N)");
    check_infix("sqrt log 0.25", "sqrt(log(0.25))");
    check_infix("* log N sqrt / 7 Nj", "log(N) * sqrt(7 / Nj)");
    check_infix("- sqrt Q log log N", "sqrt(Q) - log(log(N))");

    /* truncation: "..." at the end, the full length returned */
    gp_seed_uct(&e, 2);
    char small[12];
    int need = gp_to_infix(&e, small, sizeof small);
    assert_int_equal(need, (int)strlen("Q + 2 * 2 * sqrt(2 * log(N) / Nj)"));
    assert_int_equal(strlen(small), sizeof small - 1);
    assert_string_equal(small + sizeof small - 4, "...");

    /* parser: spacing is free, errors are reported */
    gp_expr a, b;
    assert_int_equal(gp_parse(&a, "Q+2*1.41421356*sqrt(2*log(N)/Nj)"), 0);
    gp_seed_uct(&b, 1.41421356);
    assert_true(expr_equal(&a, &b));
    assert_int_equal(gp_parse(&a, "  ( Q )  "), 0);
    assert_int_equal(a.n, 1);
    assert_int_equal(gp_parse(&a, "Q +"), -1);
    assert_int_equal(gp_parse(&a, "Q N"), -1);
    assert_int_equal(gp_parse(&a, "log N"), -1);
    assert_int_equal(gp_parse(&a, "(Q"), -1);
    assert_int_equal(gp_parse(&a, "K"), -1);
    assert_int_equal(gp_parse(&a, "exp(Q)"), -1);
    assert_int_equal(gp_parse(&a, ""), -1);
    /* deeper than GP_MAX_DEPTH */
    assert_int_equal(gp_parse(&a, "log(log(log(log(log(log(log(log(log(log(log(N)))))))))))"), -1);
    assert_int_equal(gp_parse(&a, "log(log(log(log(log(log(log(log(log(log(N))))))))))"), 0);
}

/* Random trees (chains of mutations from the seed) print and parse back to
 * exactly the same tree: the parentheses are sufficient. */
static void test_infix_round_trip(void **state)
{
    (void)state;
    eng_rng rng;
    eng_rng_seed(&rng, 11);
    static char buf[1 << 15];
    gp_expr e, back;
    for (int t = 0; t < 2000; t++) {
        if (t % 25 == 0)
            gp_seed_uct(&e, 1.41421356);
        gp_mutate(&e, &rng, KSET, NKSET, GP_MAX_DEPTH, 0.9);
        int n = gp_to_infix(&e, buf, sizeof buf);
        assert_true(n < (int)sizeof buf);
        assert_int_equal(gp_parse(&back, buf), 0);
        if (!expr_equal(&e, &back)) {
            print_error("round trip failed for %s\n", buf);
            fail();
        }
    }
}

/* ---- the UCT seed ---------------------------------------------------------------------- */

static void test_seed_is_uct(void **state)
{
    (void)state;
    eng_rng rng;
    eng_rng_seed(&rng, 5);
    const double ks[] = {0.25, 0.5, 1, sqrt(2.0), 1.41421356, 2, 3, 5, 7, 10};
    gp_expr e;
    int checked = 0;
    for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++) {
        gp_seed_uct(&e, ks[ki]);
        assert_int_equal(e.n, 13);
        assert_int_equal(gp_height(&e), GP_UCT_HEIGHT);
        assert_true(gp_check(&e, GP_UCT_HEIGHT));
        for (int i = 0; i < 2000; i++) {
            double n = floor(exp(eng_rng_double(&rng) * log(1e6))) + 1; /* 1 .. 1e6 */
            double nj = 1 + floor(eng_rng_double(&rng) * n);            /* 1 .. n */
            double q = (eng_rng_double(&rng) - 0.5) * 200;              /* score differences */
            if (i % 10 == 0)
                q = (eng_rng_double(&rng) - 0.5) * 2; /* win/loss scale */
            double want = q + 2 * ks[ki] * sqrt(2 * log(n) / nj);
            double got = gp_eval(&e, q, n, nj);
            assert_near(got, want, 1e-12 * fmax(1, fabs(want)));
            /* gp_score is the same function behind the mcts_score_fn signature */
            assert_true(gp_score(&e, q, n, nj) == got);
            checked++;
        }
    }
    assert_int_equal(checked, 20000);
}

/* ---- mutation ------------------------------------------------------------------------- */

static bool in_kset(double v)
{
    for (int i = 0; i < NKSET; i++)
        if (v == KSET[i])
            return true;
    return false;
}

static void check_mutation_bound(int max_depth, int chain, uint64_t seed)
{
    eng_rng rng;
    eng_rng_seed(&rng, seed);
    gp_expr e;
    int tallest = 0;
    long nodes_max = 0;
    for (int t = 0; t < 100000; t++) {
        if (t % chain == 0)
            gp_seed_uct(&e, 1.41421356);
        gp_mutation mu = gp_mutate(&e, &rng, KSET, NKSET, max_depth, 0.9);
        assert_true(mu.height >= 1 && mu.height <= GP_SUB_MAX_HEIGHT);
        assert_true(mu.depth + mu.height <= max_depth);
        if (!gp_check(&e, max_depth)) {
            char buf[256];
            gp_to_infix(&e, buf, sizeof buf);
            print_error("mutation %d: malformed or too deep (height %d > %d): %s\n", t,
                        gp_height(&e), max_depth, buf);
            fail();
        }
        int h = gp_height(&e);
        if (h > tallest)
            tallest = h;
        if (e.n > nodes_max)
            nodes_max = e.n;
        /* every constant is the seed's 2 or K, or came from the K set */
        for (int i = 0; i < e.n; i++)
            if (e.op[i] == GP_K)
                assert_true(in_kset(e.k[i]) || e.k[i] == 1.41421356);
        if (t % 97 == 0) {
            double v = gp_eval(&e, (eng_rng_double(&rng) - 0.5) * 1e4, 1e7, 1);
            assert_true(isfinite(v));
        }
    }
    /* the bound was reached, so it was really exercised */
    assert_int_equal(tallest, max_depth);
    assert_true(nodes_max <= (1L << (max_depth + 1)) - 1);
}

static void test_mutation_depth_bound(void **state)
{
    (void)state;
    check_mutation_bound(8, 20, 1);             /* 20 generations from the seed */
    check_mutation_bound(8, 1000, 2);           /* long chains press against the bound */
    check_mutation_bound(GP_UCT_HEIGHT, 50, 3); /* the seed already at the bound */
    check_mutation_bound(GP_MAX_DEPTH, 200, 4);
}

/* Where mutations land on the seed: 90% internal, 10% leaves, uniform
 * within each kind; subtree heights uniform over what the bound allows. */
static void test_mutation_split(void **state)
{
    (void)state;
    eng_rng rng;
    eng_rng_seed(&rng, 77);
    gp_expr seed, e;
    gp_seed_uct(&seed, 1.41421356);
    const int T = 100000;
    long leaf = 0, at[13] = {0}, height[4] = {0};
    for (int t = 0; t < T; t++) {
        gp_copy(&e, &seed);
        gp_mutation mu = gp_mutate(&e, &rng, KSET, NKSET, 8, 0.9);
        assert_int_equal(mu.leaf, gp_arity(seed.op[mu.at]) == 0);
        leaf += mu.leaf;
        at[mu.at]++;
        if (mu.depth <= 5)
            height[mu.height]++;
        else
            assert_true(mu.height <= 8 - mu.depth);
    }
    double pleaf = (double)leaf / T;
    assert_true(pleaf > 0.09 && pleaf < 0.11); /* sd 0.001 */
    for (int i = 0; i < 13; i++) {
        double want = gp_arity(seed.op[i]) ? 0.9 / 7 : 0.1 / 6; /* 7 internal, 6 leaves */
        assert_near((double)at[i] / T, want, 0.01);
    }
    long hs = height[1] + height[2] + height[3];
    for (int h = 1; h <= 3; h++)
        assert_near((double)height[h] / hs, 1.0 / 3, 0.02);

    /* p_internal is honoured at the extremes; a lone leaf falls back to a leaf */
    gp_copy(&e, &seed);
    assert_false(gp_mutate(&e, &rng, KSET, NKSET, 8, 1.0).leaf);
    gp_copy(&e, &seed);
    assert_true(gp_mutate(&e, &rng, KSET, NKSET, 8, 0.0).leaf);
    gp_expr one;
    build(&one, "Q");
    gp_mutation mu = gp_mutate(&one, &rng, KSET, NKSET, 8, 1.0);
    assert_true(mu.leaf && mu.at == 0);
    assert_true(gp_height(&one) >= 1 && gp_check(&one, 8));
}

/* ---- semantics and selection ---------------------------------------------------- */

static void test_ssd(void **state)
{
    (void)state;
    double a[] = {1, 2, 3, 4}, b[] = {1, 2, 3, 4}, c[] = {0, 0, 0, 0}, d[] = {1, -1, 2, -2};
    assert_near(ea_ssd(a, b, 4), 0, 0);
    assert_near(ea_ssd(c, d, 4), 1.5, 0);
    assert_near(ea_ssd(d, c, 4), 1.5, 0);
    assert_near(ea_ssd(a, c, 4), 2.5, 0);
    assert_near(ea_ssd(a, c, 1), 1, 0);

    /* semantics are the rewards sorted ascending; the fitness their mean */
    static ea_indiv x, y;
    const double r1[] = {5, -3, 12, 0, 7}, r2[] = {7, 12, -3, 5, 0};
    x.nsem = y.nsem = 0;
    for (int i = 0; i < 5; i++) {
        assert_false(x.evaluated);
        ea_indiv_add(&x, 5, r1[i]);
        ea_indiv_add(&y, 5, r2[i]);
    }
    assert_true(x.evaluated && y.evaluated);
    const double sorted[] = {-3, 0, 5, 7, 12};
    for (int i = 0; i < 5; i++)
        assert_near(x.sem[i], sorted[i], 0);
    assert_near(x.fitness, 21.0 / 5, 1e-15);
    assert_true(x.fitness == y.fitness); /* same rewards in another order: exactly equal */
    assert_near(ea_ssd(x.sem, y.sem, 5), 0, 0);
    ea_indiv_add(&x, 5, 100); /* full: ignored */
    assert_int_equal(x.nsem, 5);

    /* SSD on sorted vectors: a shift by 6 in every case */
    ea_indiv z;
    z.nsem = 0;
    for (int i = 0; i < 5; i++)
        ea_indiv_add(&z, 5, r1[i] + 6);
    assert_near(ea_ssd(x.sem, z.sem, 5), 6, 0);
}

#define NS 4
/* A constructed population: fitness f[i], semantics = parent's + offset o[i]
 * in every case (so SSD to the parent is |o[i]|). */
static int select_ties(const double *f, const double *o, int count, bool semantic, bool parent,
                       eng_rng *rng, bool *by_sem)
{
    static double semv[EA_MAX_LAMBDA + 1][NS];
    const double *sem[EA_MAX_LAMBDA + 1];
    const double base[NS] = {-4, 0, 3, 10};
    for (int i = 0; i < count; i++) {
        for (int j = 0; j < NS; j++)
            semv[i][j] = base[j] + (i ? o[i] : 0);
        sem[i] = semv[i];
    }
    return ea_select(f, sem, count, NS, semantic, 5, 10, parent, rng, by_sem);
}

static int select_case(const double *f, const double *o, int count, bool semantic, eng_rng *rng)
{
    return select_ties(f, o, count, semantic, false, rng, NULL);
}

/* The same with the parent taking part in ties (ties=parent, the default). */
static int select_parent(const double *f, const double *o, int count, bool semantic, eng_rng *rng,
                         bool *by_sem)
{
    return select_ties(f, o, count, semantic, true, rng, by_sem);
}

static void test_select_rule(void **state)
{
    (void)state;
    eng_rng rng;
    eng_rng_seed(&rng, 3);
    const double none[5] = {0, 0, 0, 0, 0};
    const double f1_unique[] = {1, 3, 2, 2, 0}, f2_unique[] = {5, 3, 4, 1, 2};
    for (int sem = 0; sem <= 1; sem++) {
        /* a unique best offspring wins; a unique best parent is kept */
        assert_int_equal(select_case(f1_unique, none, 5, sem, &rng), 1);
        assert_int_equal(select_case(f2_unique, none, 5, sem, &rng), 0);
        /* parent tied with exactly one offspring: the offspring */
        const double f3[] = {4, 1, 4, 2, 3};
        assert_int_equal(select_case(f3, none, 5, sem, &rng), 2);
    }

    /* SIEA: tie with one offspring in range -> it (SSDs 3, -, 7) */
    const double ft[] = {1, 4, 4, 2, 4};
    const double o1b[] = {0, 3, 11, 0, 7};
    assert_int_equal(select_case(ft, o1b, 5, true, &rng), 4);
    /* several in range -> the closest to alpha (SSDs 9, 6, 7) */
    const double o2[] = {0, 9, 6, 0, 7};
    assert_int_equal(select_case(ft, o2, 5, true, &rng), 2);
    /* SSD is a distance: negative offsets count by magnitude (9, 6, 5.5) */
    const double o3[] = {0, -9, -6, 0, -5.5};
    assert_int_equal(select_case(ft, o3, 5, true, &rng), 4);
    /* the bounds are open: SSD 5 and SSD 10 are out of range; 1 and 12 too
     * -> one of the tied at random, each of them sometimes */
    const double o4[] = {0, 5, 0, 0, 10};
    const double o5[] = {0, 1, 0, 0, 12};
    int seen[5] = {0};
    for (int t = 0; t < 400; t++) {
        int w = select_case(ft, t % 2 ? o4 : o5, 5, true, &rng);
        assert_true(w == 1 || w == 2 || w == 4);
        seen[w]++;
    }
    assert_true(seen[1] > 60 && seen[2] > 60 && seen[4] > 60);
    /* the parent in the tie: it never wins a tie, in range or not */
    const double fp[] = {4, 4, 1, 4, 0};
    const double o6[] = {0, 6, 0, 20, 0};
    assert_int_equal(select_case(fp, o6, 5, true, &rng), 1);
    const double o7[] = {0, 0, 0, 0, 0}; /* identical semantics: SSD 0, out of range */
    memset(seen, 0, sizeof seen);
    for (int t = 0; t < 300; t++) {
        int w = select_case(fp, o7, 5, true, &rng);
        assert_true(w == 1 || w == 3);
        seen[w]++;
    }
    assert_true(seen[1] > 80 && seen[3] > 80);
    /* everyone tied with identical semantics: a random offspring */
    const double fall[] = {2, 2, 2, 2, 2};
    memset(seen, 0, sizeof seen);
    for (int t = 0; t < 400; t++)
        seen[select_case(fall, o7, 5, true, &rng)]++;
    assert_int_equal(seen[0], 0);
    for (int i = 1; i < 5; i++)
        assert_true(seen[i] > 50);

    /* EA-MCTS (no semantics): ties go to a random tied offspring; the
     * semantics are not read (NULL is fine) */
    double fit[] = {1, 4, 4, 2, 4};
    memset(seen, 0, sizeof seen);
    for (int t = 0; t < 300; t++)
        seen[ea_select(fit, NULL, 5, NS, false, 5, 10, false, &rng, NULL)]++;
    assert_true(seen[0] == 0 && seen[3] == 0);
    assert_true(seen[1] > 60 && seen[2] > 60 && seen[4] > 60);
    /* with semantics even an in-range offspring is ignored by EA-MCTS */
    memset(seen, 0, sizeof seen);
    for (int t = 0; t < 300; t++)
        seen[select_case(ft, o2, 5, false, &rng)]++;
    assert_true(seen[1] > 60 && seen[4] > 60);
    /* fewer individuals (an interrupted generation): only those compete */
    const double fshort[] = {1, 0, 9, 9, 9};
    assert_int_equal(select_case(fshort, none, 2, true, &rng), 0);

    /* ties=parent (the authors' code): a unique best is unchanged */
    bool by = true;
    assert_int_equal(select_parent(f2_unique, none, 5, true, &rng, &by), 0);
    assert_false(by);
    assert_int_equal(select_parent(f1_unique, none, 5, false, &rng, &by), 1);
    /* EA: a parent tied with offspring is kept, every time, with no random draw */
    eng_rng before = rng;
    for (int t = 0; t < 50; t++)
        assert_int_equal(select_parent(fp, o6, 5, false, &rng, NULL), 0);
    assert_memory_equal(&before, &rng, sizeof rng);
    /* EA: offspring tied without the parent: one of them at random, as before */
    memset(seen, 0, sizeof seen);
    for (int t = 0; t < 300; t++)
        seen[select_parent(ft, none, 5, false, &rng, NULL)]++;
    assert_true(seen[0] == 0 && seen[3] == 0 && seen[1] > 60 && seen[2] > 60 && seen[4] > 60);
    /* SIEA: the parent's tie goes to an offspring in range (SSDs 6 and 20) */
    assert_int_equal(select_parent(fp, o6, 5, true, &rng, &by), 1);
    assert_true(by);
    /* SIEA: none in range (SSD 0 for all): one of the tied at random, the
     * parent included -- where EA keeps the parent, SIEA may not */
    memset(seen, 0, sizeof seen);
    for (int t = 0; t < 300; t++) {
        seen[select_parent(fp, o7, 5, true, &rng, &by)]++;
        assert_false(by);
    }
    assert_true(seen[2] == 0 && seen[4] == 0);
    assert_true(seen[0] > 60 && seen[1] > 60 && seen[3] > 60);
}

/* ---- the evolution on real trees ---------------------------------------------------- */

typedef struct search_fixture {
    const eng_game *g;
    unsigned char st[1 << 16];
    mcts_cfg cfg;
    eng_rng rng;
    mcts_tree tree, copy;
    mcts_ctx ctx, cctx;
    int seat;
} search_fixture;

static void fixture_open(search_fixture *f, const char *game, uint64_t seed, int plies)
{
    memset(f, 0, sizeof *f);
    f->g = eng_find_game(game);
    assert_non_null(f->g);
    assert_true(f->g->state_size <= sizeof f->st);
    eng_rules r;
    eng_rules_default(f->g, &r);
    char err[128];
    assert_int_equal(eng_init(f->g, f->st, &r, err, sizeof err), 0);
    eng_rng_seed(&f->rng, seed);
    /* a few random plies, then up to the next decision */
    for (int i = 0; i < plies || f->g->current_player(f->st) < 0; i++) {
        int p = f->g->current_player(f->st);
        assert_true(p != ENG_TERMINAL);
        f->g->apply(f->st, p == ENG_CHANCE ? eng_sample_chance(f->g, f->st, &f->rng)
                                           : eng_random_move(f->g, f->st, &f->rng));
    }
    f->seat = f->g->current_player(f->st);
    mcts_cfg *c = &f->cfg;
    c->uct = MCTS_UCT_GALVAN;
    c->k = 1.41421356;
    c->cp = 0.5;
    c->select = MCTS_S_UCT;
    c->reward = MCTS_R_SCOREDIFF;
    c->norm = 282;
    c->playout = MCTS_P_RANDOM;
    c->final = MCTS_F_VALUE;
    c->heyden = -1;
    assert_int_equal(mcts_tree_alloc(&f->tree, 8 << 20, false), 0);
    assert_int_equal(mcts_tree_alloc(&f->copy, f->tree.cap * sizeof(mcts_node), false), 0);
    assert_int_equal(mcts_ctx_init(&f->ctx, f->g, &f->cfg, &f->rng, &f->tree), 0);
    assert_int_equal(mcts_ctx_init(&f->cctx, f->g, &f->cfg, &f->rng, &f->copy), 0);
    f->ctx.root_state = f->st;
    f->cctx.root_state = f->st;
    /* MCTS until the root is expanded, and some more */
    int sims = 0;
    while (!(f->tree.node[MCTS_ROOT].child &&
             f->tree.node[MCTS_ROOT].tried == f->tree.node[MCTS_ROOT].nchild)) {
        mcts_simulate(&f->ctx);
        sims++;
    }
    for (int i = 0; i < 40; i++, sims++)
        mcts_simulate(&f->ctx);
    assert_int_equal(f->tree.node[MCTS_ROOT].visits, sims);
}

static void fixture_close(search_fixture *f)
{
    mcts_ctx_free(&f->ctx);
    mcts_ctx_free(&f->cctx);
    mcts_tree_free(&f->tree);
    mcts_tree_free(&f->copy);
}

/* final=uct (the authors' MCTS-RAVE player): the move is the root child the
 * selection formula picks, its exploration term included -- the argmax of
 * Q + 2K sqrt(2 ln N / Nj) over the visited children, computed here by hand;
 * with a large K it is a least-visited child, not the best mean. */
static void test_final_by_selection(void **state)
{
    (void)state;
    static search_fixture f;
    fixture_open(&f, "carcassonne", 21, 9);
    for (int i = 0; i < 300; i++)
        mcts_simulate(&f.ctx);
    const mcts_node *root = &f.tree.node[MCTS_ROOT];
    assert_true(root->nchild >= 3);
    double ks[] = {0.25, 1.41421356, 1000};
    for (int t = 0; t < 3; t++) {
        f.cfg.k = ks[t];
        uint32_t want = 0, least = 0;
        double wv = -INFINITY, N = root->visits;
        for (uint32_t i = 0; i < root->nchild; i++) {
            const mcts_node *ch = &f.tree.node[root->child + i];
            if (!ch->visits)
                continue;
            double v = ch->value / ch->visits + 2 * f.cfg.k * sqrt(2 * log(N) / (double)ch->visits);
            if (v > wv)
                wv = v, want = root->child + i;
            if (!least || ch->visits < f.tree.node[least].visits)
                least = root->child + i;
        }
        assert_int_equal(mcts_best_by_selection(&f.ctx, MCTS_ROOT), want);
        if (t == 2) /* exploration dominates: the fewest visits */
            assert_int_equal(f.tree.node[want].visits, f.tree.node[least].visits);
    }
    /* the best mean (final=value) is another child here: the test tells them apart */
    assert_true(mcts_best_child(&f.tree, MCTS_ROOT, MCTS_F_VALUE) !=
                mcts_best_by_selection(&f.ctx, MCTS_ROOT));
    fixture_close(&f);
}

static ea_params small_params(int where, bool semantic)
{
    ea_params p;
    memset(&p, 0, sizeof p);
    p.lambda = 4;
    p.gens = 5;
    p.fitness_sims = 6;
    p.max_depth = 8;
    p.nk = NKSET;
    memcpy(p.kset, KSET, sizeof KSET);
    p.p_internal = 0.9;
    p.k = 1.41421356;
    p.semantic = semantic;
    p.alpha = 5;
    p.beta = 10;
    p.where = where;
    p.seed_eval = EA_SEED_FITNESS; /* no bot driver here: the seed is evaluated too */
    return p;
}

static bot_clock unlimited(void)
{
    bot_clock c = {
        .start_ms = 0, .end_ms = INFINITY, .max_sims = INT64_MAX, .stop = NULL, .sims = 0};
    return c;
}

/* The evolution runs all generations, the fitness simulations land in the
 * copy, and the real tree is bit-for-bit what MCTS left. */
static void run_isolation(const char *game, int where, bool semantic, uint64_t seed)
{
    static search_fixture f;
    fixture_open(&f, game, seed, 6);
    size_t bytes = f.tree.used * sizeof(mcts_node);
    mcts_node *snap = malloc(bytes);
    assert_non_null(snap);
    memcpy(snap, f.tree.node, bytes);
    uint32_t used = f.tree.used, visits = f.tree.node[MCTS_ROOT].visits;

    ea_params par = small_params(where, semantic);
    ea_evo ev;
    assert_int_equal(ea_evo_init(&ev, &par), 0);
    ea_evo_seed(&ev);
    mcts_ctx *fc = &f.ctx;
    if (where == EA_ON_COPY) {
        mcts_tree_copy(&f.copy, &f.tree);
        fc = &f.cctx;
    }
    bot_clock clk = unlimited();
    int gens = ea_evolve(&ev, fc, f.seat, &clk, &f.rng);
    int64_t want = (int64_t)(par.lambda * par.gens + 1) * par.fitness_sims;
    assert_int_equal(gens, par.gens);
    assert_int_equal(clk.sims, want);
    assert_int_equal(ev.sims, want);
    assert_int_equal(ev.evaluations, par.lambda * par.gens + 1);
    assert_true(ev.pop[0].evaluated);
    assert_true(gp_check(&ev.pop[0].expr, par.max_depth));
    /* the context is left as found */
    assert_true(fc->backup && fc->expand && fc->score == NULL);

    if (where == EA_ON_REAL_TREE) {
        assert_int_equal(f.tree.node[MCTS_ROOT].visits, visits + want);
    } else {
        assert_int_equal(f.tree.used, used);
        assert_int_equal(f.tree.node[MCTS_ROOT].visits, visits);
        assert_memory_equal(f.tree.node, snap, bytes);
    }
    if (where == EA_ON_COPY) {
        /* every fitness simulation went through the copy's root */
        assert_int_equal(f.copy.node[MCTS_ROOT].visits, visits + want);
        assert_true(f.copy.used > used); /* and expanded it */
    }
    ea_evo_free(&ev);
    free(snap);
    fixture_close(&f);
}

static void test_evolve_copy_isolation(void **state)
{
    (void)state;
    run_isolation("carcassonne", EA_ON_COPY, false, 1);
    run_isolation("carcassonne", EA_ON_COPY, true, 2);
    run_isolation("reversi", EA_ON_COPY, true, 3);
}

static void test_evolve_read_only(void **state)
{
    (void)state;
    run_isolation("carcassonne", EA_READ_ONLY, false, 4);
    run_isolation("reversi", EA_READ_ONLY, false, 5);
    /* the authors' reading, for contrast: the real tree grows */
    run_isolation("carcassonne", EA_ON_REAL_TREE, false, 6);
}

/* An evolution stopped by its clock keeps the individuals evaluated so far. */
static void test_evolve_interrupted(void **state)
{
    (void)state;
    static search_fixture f;
    fixture_open(&f, "carcassonne", 9, 4);
    ea_params par = small_params(EA_ON_COPY, true);
    ea_evo ev;
    assert_int_equal(ea_evo_init(&ev, &par), 0);
    ea_evo_seed(&ev);
    mcts_tree_copy(&f.copy, &f.tree);
    bot_clock clk = unlimited();
    clk.max_sims = 6 + 4 * 6 + 2 * 6 + 3; /* seed, one generation, two offspring and a half */
    int gens = ea_evolve(&ev, &f.cctx, f.seat, &clk, &f.rng);
    assert_int_equal(gens, 1);
    assert_int_equal(clk.sims, clk.max_sims);
    assert_int_equal(ev.evaluations, 1 + 4 + 2);
    assert_true(ev.pop[0].evaluated);
    /* a seed that cannot be evaluated: nothing evolves */
    ea_evo_seed(&ev);
    clk = unlimited();
    clk.max_sims = 3;
    assert_int_equal(ea_evolve(&ev, &f.cctx, f.seat, &clk, &f.rng), 0);
    assert_false(ev.pop[0].evaluated);
    ea_evo_free(&ev);
    fixture_close(&f);
}

/* ---- the bots --------------------------------------------------------------------------- */

static bot *make(const char *spec, const eng_game *g, uint64_t seed)
{
    char err[256] = "";
    bot *b = bot_create(spec, g, seed, err, sizeof err);
    if (!b) {
        print_error("bot_create(%s): %s\n", spec, err);
        fail();
    }
    return b;
}

/* A Carcassonne position at the first placement decision after `plies`. */
static void carc_position(unsigned char *st, int plies, uint64_t seed)
{
    const eng_game *g = eng_find_game("carcassonne");
    eng_rules r;
    eng_rules_default(g, &r);
    char err[128];
    assert_int_equal(eng_init(g, st, &r, err, sizeof err), 0);
    eng_rng rng;
    eng_rng_seed(&rng, seed);
    for (int i = 0; i < plies || g->current_player(st) < 0; i++) {
        int p = g->current_player(st);
        g->apply(st,
                 p == ENG_CHANCE ? eng_sample_chance(g, st, &rng) : eng_random_move(g, st, &rng));
    }
}

static uint32_t child_visits(const mcts_tree *t, uint32_t n)
{
    uint32_t s = 0;
    const mcts_node *nd = &t->node[n];
    for (uint32_t i = 0; i < nd->nchild; i++)
        s += t->node[nd->child + i].visits;
    return s;
}

static void check_accounting(const char *spec, int64_t mcts, int64_t evo, bool copy, bool real_tree)
{
    const eng_game *g = eng_find_game("carcassonne");
    static unsigned char st[1 << 16];
    carc_position(st, 9, 21);
    bot *b = make(spec, g, 5);
    bot_stats stats;
    eng_move m = bot_choose(b, st, NULL, &stats);
    assert_true(eng_is_legal(g, st, m));
    const ea_report *rep = ea_bot_report(b);
    const mcts_tree *t = ea_bot_tree(b);
    assert_non_null(rep);
    assert_non_null(t);
    if (!rep->evolved)
        print_error("%s: %s\n", spec, stats.info);
    assert_true(rep->evolved);
    assert_int_equal(rep->mcts_sims, mcts);
    assert_int_equal(rep->evo_sims, evo);
    assert_int_equal(stats.sims, mcts + evo);
    /* the real tree holds exactly the MCTS iterations */
    uint32_t root = t->node[MCTS_ROOT].visits;
    assert_int_equal(root, real_tree ? mcts + evo : mcts);
    assert_int_equal(child_visits(t, MCTS_ROOT), root);
    if (copy)
        assert_int_equal(rep->copy_root_visits, rep->root_visits_at_copy + evo);
    else
        assert_int_equal(rep->copy_root_visits, 0);
    assert_true(rep->root_visits_at_copy > 0 && rep->root_visits_at_copy < (uint32_t)mcts);
    assert_true(gp_check(&rep->formula, 8));
    /* info: the formula in infix, parseable, then its fitness */
    char formula[BOT_INFO_MAX];
    gp_to_infix(&rep->formula, formula, sizeof formula);
    assert_non_null(strstr(stats.info, formula));
    assert_non_null(strstr(stats.info, "fitness"));
    assert_true(strncmp(stats.info, "formula ", 8) == 0);
    bot_destroy(b);
}

static void test_bot_accounting(void **state)
{
    (void)state;
    const char *o = "sims=150,lambda=3,gens=4,fitness_sims=5";
    char spec[256];
    /* by default ea-mcts and siea-mcts back their fitness simulations up into
     * the real tree (the authors' code; docs/ea.md says why) */
    snprintf(spec, sizeof spec, "ea-mcts:%s", o);
    check_accounting(spec, 150, 60, false, true);
    snprintf(spec, sizeof spec, "siea-mcts:%s", o);
    check_accounting(spec, 150, 60, false, true);
    snprintf(spec, sizeof spec, "ea-p-mcts:%s", o);
    check_accounting(spec, 150, 60, false, false);
    snprintf(spec, sizeof spec, "siea-mcts:%s,fitness_tree=real", o);
    check_accounting(spec, 150, 60, false, true);
    /* the papers' text: a copy, the real tree holds the MCTS iterations only */
    snprintf(spec, sizeof spec, "ea-mcts:%s,fitness_tree=copy", o);
    check_accounting(spec, 150, 60, true, false);
    snprintf(spec, sizeof spec, "siea-mcts:%s,fitness_tree=copy", o);
    check_accounting(spec, 150, 60, true, false);
    snprintf(spec, sizeof spec, "ea-mcts:%s,seed_eval=fitness", o);
    check_accounting(spec, 150, 65, false, true);
    snprintf(spec, sizeof spec, "ea-mcts:%s,seed_eval=fitness,fitness_tree=copy", o);
    check_accounting(spec, 150, 65, true, false);
    snprintf(spec, sizeof spec, "siea-mcts:%s,reuse=true", o);
    check_accounting(spec, 150, 60, false, true);
    snprintf(spec, sizeof spec, "siea-mcts:%s,reuse=true,fitness_tree=copy", o);
    check_accounting(spec, 150, 60, true, false);
    /* the published defaults: 400 MCTS iterations + 20*4*30 = 2400, all in the real tree */
    check_accounting("siea-mcts", 400, 2400, false, true);
    check_accounting("ea-mcts:fitness_tree=copy", 400, 2400, true, false);
}

/* Evolution needs the root expanded and iterations left to use the result. */
static void test_bot_skips(void **state)
{
    (void)state;
    const eng_game *g = eng_find_game("carcassonne");
    static unsigned char st[1 << 16];
    carc_position(st, 9, 21);
    const char *specs[] = {"ea-mcts:sims=3", "siea-mcts:sims=40,fitness_sims=40",
                           "ea-p-mcts:sims=100,gens=0"};
    for (int i = 0; i < 3; i++) {
        bot *b = make(specs[i], g, 1);
        bot_stats stats;
        eng_move m = bot_choose(b, st, NULL, &stats);
        assert_true(eng_is_legal(g, st, m));
        const ea_report *rep = ea_bot_report(b);
        assert_false(rep->evolved);
        assert_int_equal(rep->evo_sims, 0);
        assert_int_equal(stats.sims, rep->mcts_sims);
        assert_int_equal(ea_bot_tree(b)->node[MCTS_ROOT].visits, rep->mcts_sims);
        assert_non_null(strstr(stats.info, "evolution skipped"));
        bot_destroy(b);
    }
    /* other bots have no report */
    bot *b = make("mcts:sims=10", g, 1);
    assert_null(ea_bot_report(b));
    assert_null(ea_bot_tree(b));
    bot_destroy(b);
}

static void test_bot_specs(void **state)
{
    (void)state;
    const eng_game *g = eng_find_game("carcassonne");
    char err[256];
    assert_int_equal(bot_check_spec("siea-mcts:alpha=10,beta=5", g, err, sizeof err),
                     ENG_EBAD_BOT_SPEC);
    assert_non_null(strstr(err, "alpha"));
    assert_int_equal(bot_check_spec("ea-mcts:max_depth=5", g, err, sizeof err), ENG_EBAD_BOT_SPEC);
    assert_int_equal(bot_check_spec("ea-mcts:max_depth=11", g, err, sizeof err), ENG_EBAD_BOT_SPEC);
    assert_int_equal(bot_check_spec("ea-mcts:lambda=17", g, err, sizeof err), ENG_EBAD_BOT_SPEC);
    assert_int_equal(bot_check_spec("ea-p-mcts:fitness_tree=copy", g, err, sizeof err),
                     ENG_EBAD_BOT_SPEC); /* read-only by definition */
    assert_int_equal(bot_check_spec("ea-mcts:alpha=5", g, err, sizeof err), ENG_EBAD_BOT_SPEC);
    assert_int_equal(bot_check_spec("ea-mcts:kset=1/x", g, err, sizeof err), ENG_EBAD_BOT_SPEC);
    assert_int_equal(bot_check_spec("siea-mcts:kset=0.5/4,k=2,fitness_sims=10,lambda=2,gens=3", g,
                                    err, sizeof err),
                     0);
    bot *b = make("siea-mcts", g, 1);
    char desc[BOT_SPEC_MAX * 2];
    bot_describe(b, desc, sizeof desc);
    assert_non_null(strstr(desc, "lambda=4,gens=20,fitness_sims=30,max_depth=8,"
                                 "kset=0.25/0.5/1/2/3/5/7/10,p_internal=0.9"));
    assert_non_null(strstr(desc, "alpha=5,beta=10"));
    assert_non_null(strstr(desc, "k=1.41421"));
    /* the default reading of the fitness tree (docs/ea.md, "Which reading is the default") */
    assert_non_null(strstr(desc, "fitness_tree=real"));
    bot_destroy(b);
    b = make("ea-mcts", g, 1);
    bot_describe(b, desc, sizeof desc);
    assert_non_null(strstr(desc, "fitness_tree=real"));
    bot_destroy(b);
}

/* Every bot plays only legal moves in every registered game, for every seat
 * count from 2 to 5 that the game allows, with and without joint turns and
 * tree reuse; every EA bot evolves at least once per game. */
static void test_legal_everywhere(void **state)
{
    (void)state;
    const char *specs[] = {
        "ea-p-mcts:sims=40,lambda=2,gens=2,fitness_sims=3",
        "ea-mcts:sims=40,lambda=2,gens=2,fitness_sims=3,reuse=true",
        "siea-mcts:sims=40,lambda=2,gens=2,fitness_sims=3,alpha=0,beta=50",
        "ea-mcts:sims=40,lambda=2,gens=2,fitness_sims=3,joint=false,seed_eval=fitness",
        "siea-mcts:sims=40,lambda=2,gens=2,fitness_sims=3,fitness_tree=real,reward=winloss",
    };
    int ng;
    const eng_game *const *games = eng_games(&ng);
    static unsigned char st[1 << 16];
    for (int gi = 0; gi < ng; gi++) {
        const eng_game *g = games[gi];
        assert_true(g->state_size <= sizeof st);
        for (int np = 2; np <= 5; np++) {
            if (np < g->min_players || np > g->max_players)
                continue;
            eng_rules r;
            eng_rules_default(g, &r);
            r.players = np;
            char err[128];
            assert_int_equal(eng_init(g, st, &r, err, sizeof err), 0);
            bot *bots[ENG_MAX_PLAYERS];
            /* decisions with fewer root moves than the 40 simulations: only
             * there can the root be expanded before the evolution (Pentago-
             * Twist starts with 288 moves) */
            int evolved[ENG_MAX_PLAYERS] = {0}, decisions[ENG_MAX_PLAYERS] = {0};
            eng_move *root = malloc((size_t)g->max_moves * sizeof *root);
            assert_non_null(root);
            for (int s = 0; s < np; s++)
                bots[s] = make(specs[(s + gi) % 5], g, 100 + (uint64_t)s);
            eng_rng rng;
            eng_rng_seed(&rng, 7 + (uint64_t)np);
            int plies = 0;
            for (;;) {
                int p = g->current_player(st);
                if (p == ENG_TERMINAL)
                    break;
                eng_move m;
                if (p == ENG_CHANCE) {
                    m = eng_sample_chance(g, st, &rng);
                } else {
                    bot_stats stats;
                    m = bot_choose(bots[p], st, NULL, &stats);
                    if (!eng_is_legal(g, st, m)) {
                        print_error("%s, %d players: %s played an illegal move %d at ply %d\n",
                                    g->name, np, bots[p]->spec, m, plies);
                        fail();
                    }
                    evolved[p] += ea_bot_report(bots[p])->evolved;
                    decisions[p] += g->legal_moves(st, root) < 40;
                }
                for (int s = 0; s < np; s++)
                    bot_observe(bots[s], st, m);
                g->apply(st, m);
                assert_true(++plies <= g->max_plies);
            }
            free(root);
            for (int s = 0; s < np; s++) {
                if (decisions[s] > 3 && evolved[s] == 0) {
                    print_error("%s, %d players: %s never evolved in %d decisions\n", g->name, np,
                                bots[s]->spec, decisions[s]);
                    fail();
                }
                bot_destroy(bots[s]);
            }
        }
    }
}

/* Same seed and simulation budget: the same moves and the same formulae. */
static void test_determinism(void **state)
{
    (void)state;
    const eng_game *g = eng_find_game("carcassonne");
    const char *specs[] = {"ea-p-mcts:sims=80,lambda=2,gens=3,fitness_sims=4",
                           "ea-mcts:sims=80,lambda=2,gens=3,fitness_sims=4",
                           "siea-mcts:sims=80,lambda=2,gens=3,fitness_sims=4,alpha=0.5,beta=30"};
    static unsigned char st[1 << 16];
    for (int i = 0; i < 3; i++) {
        bot *a = make(specs[i], g, 42), *b = make(specs[i], g, 42), *c = make(specs[i], g, 43);
        eng_rules r;
        eng_rules_default(g, &r);
        char err[128];
        assert_int_equal(eng_init(g, st, &r, err, sizeof err), 0);
        eng_rng rng;
        eng_rng_seed(&rng, 99);
        int decisions = 0, differ = 0;
        while (decisions < 16) {
            int p = g->current_player(st);
            assert_true(p != ENG_TERMINAL);
            eng_move m;
            if (p == ENG_CHANCE) {
                m = eng_sample_chance(g, st, &rng);
            } else {
                bot_stats sa, sb, sc;
                m = bot_choose(a, st, NULL, &sa);
                eng_move mb = bot_choose(b, st, NULL, &sb);
                bot_choose(c, st, NULL, &sc);
                assert_int_equal(m, mb);
                assert_string_equal(sa.info, sb.info);
                assert_int_equal(sa.sims, sb.sims);
                differ += strcmp(sa.info, sc.info) != 0;
                decisions++;
            }
            bot_observe(a, st, m);
            bot_observe(b, st, m);
            bot_observe(c, st, m);
            g->apply(st, m);
        }
        assert_true(differ > 0); /* another seed searches differently */
        bot_destroy(a);
        bot_destroy(b);
        bot_destroy(c);
    }
}

/* Over a few decisions the evolution does change the formula, and the
 * evolved formula is what the info line reports. */
static void test_formula_evolves(void **state)
{
    (void)state;
    const eng_game *g = eng_find_game("carcassonne");
    static unsigned char st[1 << 16];
    bot *b = make("siea-mcts:sims=100,lambda=4,gens=5,fitness_sims=5", g, 8);
    gp_expr seed;
    gp_seed_uct(&seed, 1.41421356);
    int changed = 0;
    for (int i = 0; i < 4; i++) {
        carc_position(st, 5 + 20 * i, 30 + (uint64_t)i);
        bot_reset(b);
        bot_stats stats;
        bot_choose(b, st, NULL, &stats);
        const ea_report *rep = ea_bot_report(b);
        assert_true(rep->evolved);
        assert_int_equal(rep->gens, 5);
        changed += !expr_equal(&rep->formula, &seed);
    }
    assert_true(changed > 0);
    bot_destroy(b);
}

/* ---- benchmark (not a test) ------------------------------------------------------------- */

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* CPU time of this thread in ms: unlike wall-clock time it does not grow
 * when other processes share the cores. */
static double cpu_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* ms per placement decision and sims/s by phase in 2-player Carcassonne. */
static int bench(int positions)
{
    const eng_game *g = eng_find_game("carcassonne");
    const char *specs[] = {"mcts:sims=400", "mcts:sims=2800", "ea-p-mcts",
                           "ea-mcts",       "siea-mcts",      "siea-mcts:ms=500"};
    const int nspec = (int)(sizeof specs / sizeof specs[0]);
    const int phase_turn[3] = {4, 34, 62}; /* opening, middle, end (of 71 tiles) */
    const char *phase_name[3] = {"opening", "middle", "end"};
    static unsigned char st[1 << 16];
    printf("2-player Carcassonne, %d positions per phase (placement decisions), one thread\n",
           positions);
    printf("%-18s %-8s %9s %9s %9s %9s %9s %9s %9s %6s\n", "bot", "phase", "ms med", "ms mean",
           "ms max", "cpu med", "cpu mean", "sims/dec", "sims/cpu-s", "evo %");
    double *ms = malloc((size_t)positions * sizeof *ms);
    double *cpu = malloc((size_t)positions * sizeof *cpu);
    for (int si = 0; si < nspec; si++) {
        bot *b = make(specs[si], g, 1);
        for (int ph = 0; ph < 3; ph++) {
            double tot_ms = 0, evo_ms = 0, mx = 0, tot_cpu = 0;
            int64_t sims = 0;
            for (int i = 0; i < positions; i++) {
                /* turn t of a seeded random game: ~2 plies of decisions + 1 chance per turn */
                carc_position(st, 3 * (phase_turn[ph] + i % 5), 1000 + (uint64_t)i);
                bot_reset(b);
                bot_stats stats;
                double t0 = bot_now_ms(), c0 = cpu_ms();
                bot_choose(b, st, NULL, &stats);
                cpu[i] = cpu_ms() - c0;
                tot_cpu += cpu[i];
                ms[i] = bot_now_ms() - t0;
                tot_ms += ms[i];
                mx = ms[i] > mx ? ms[i] : mx;
                sims += stats.sims;
                const ea_report *rep = ea_bot_report(b);
                if (rep)
                    evo_ms += rep->evo_ms;
            }
            qsort(ms, (size_t)positions, sizeof *ms, cmp_d);
            qsort(cpu, (size_t)positions, sizeof *cpu, cmp_d);
            printf("%-18s %-8s %9.1f %9.1f %9.1f %9.1f %9.1f %9.0f %9.0f %5.0f%%\n", specs[si],
                   phase_name[ph], ms[positions / 2], tot_ms / positions, mx, cpu[positions / 2],
                   tot_cpu / positions, (double)sims / positions, (double)sims / (tot_cpu / 1e3),
                   100 * evo_ms / tot_ms);
            fflush(stdout);
        }
        bot_destroy(b);
    }
    free(ms);
    free(cpu);
    return 0;
}

/* How often the selection meets a shared best fitness, and whether siea-mcts
 * then decides differently from ea-mcts (the same seed, the same positions):
 * placement decisions of 2-player Carcassonne in three phases, a fresh
 * search each. */
static int ties(int positions)
{
    const eng_game *g = eng_find_game("carcassonne");
    /* each siea spec is compared with the ea-mcts spec of the same options */
    const char *specs[][2] = {
        {"siea-mcts", "ea-mcts"},
        {"siea-mcts:ties=offspring", "ea-mcts:ties=offspring"},
        {"siea-mcts:fitness_tree=copy", "ea-mcts:fitness_tree=copy"},
        {"siea-mcts:fitness_sims=10", "ea-mcts:fitness_sims=10"},
        {"siea-mcts:reward=winloss", "ea-mcts:reward=winloss"},
        {"siea-mcts:reward=portion", "ea-mcts:reward=portion"},
    };
    const int nspec = (int)(sizeof specs / sizeof specs[0]);
    const int phase_turn[3] = {4, 34, 62};
    static unsigned char st[1 << 16];
    printf("2-player Carcassonne, %d placement decisions per phase (turns 4-8, 34-38, 62-66)\n",
           positions);
    printf("%-28s %9s %10s %6s %14s %9s %14s %14s\n", "bot", "decisions", "selections", "ties",
           "offspring ties", "semantic", "other formula", "other move");
    for (int si = 0; si < nspec; si++) {
        bot *b = make(specs[si][0], g, 1), *e = make(specs[si][1], g, 1);
        long dec = 0, sel = 0, tie = 0, otie = 0, sem = 0, dform = 0, dmove = 0;
        for (int ph = 0; ph < 3; ph++)
            for (int i = 0; i < positions; i++) {
                carc_position(st, 3 * (phase_turn[ph] + i % 5), 1000 + (uint64_t)i);
                bot_reset(b);
                bot_reset(e);
                bot_stats stats;
                eng_move mb = bot_choose(b, st, NULL, &stats);
                eng_move me = bot_choose(e, st, NULL, &stats);
                const ea_report *rep = ea_bot_report(b), *rep_e = ea_bot_report(e);
                char fb[640], fe[640];
                gp_to_infix(&rep->formula, fb, sizeof fb);
                gp_to_infix(&rep_e->formula, fe, sizeof fe);
                dec++;
                sel += rep->gens;
                tie += rep->ties;
                otie += rep->offspring_ties;
                sem += rep->semantic;
                dform += strcmp(fb, fe) != 0;
                dmove += mb != me;
            }
        printf("%-28s %9ld %10ld %6ld %14ld %9ld %14ld %14ld\n", specs[si][0], dec, sel, tie, otie,
               sem, dform, dmove);
        fflush(stdout);
        bot_destroy(b);
        bot_destroy(e);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "--bench") == 0)
        return bench(argc >= 3 ? atoi(argv[2]) > 0 ? atoi(argv[2]) : 10 : 10);
    if (argc >= 2 && strcmp(argv[1], "--ties") == 0)
        return ties(argc >= 3 ? atoi(argv[2]) > 0 ? atoi(argv[2]) : 10 : 10);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_protected_ops),
        cmocka_unit_test(test_infix_known_trees),
        cmocka_unit_test(test_infix_round_trip),
        cmocka_unit_test(test_seed_is_uct),
        cmocka_unit_test(test_mutation_depth_bound),
        cmocka_unit_test(test_mutation_split),
        cmocka_unit_test(test_ssd),
        cmocka_unit_test(test_select_rule),
        cmocka_unit_test(test_evolve_copy_isolation),
        cmocka_unit_test(test_evolve_read_only),
        cmocka_unit_test(test_evolve_interrupted),
        cmocka_unit_test(test_bot_accounting),
        cmocka_unit_test(test_bot_skips),
        cmocka_unit_test(test_bot_specs),
        cmocka_unit_test(test_legal_everywhere),
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_formula_evolves),
        cmocka_unit_test(test_final_by_selection),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
