/*
 * test_threads.c — root-parallel search (threads=N) of the MCTS family:
 * mcts, rave, flatmc, ucb1, mcts-d2 and the EA bots' MCTS after their
 * evolution (bots/mcts.c, mcts_bot_search).
 *
 *   - with a simulation budget the result depends on the seed alone: two
 *     bots made alike play the same moves, whatever the threads' timing,
 *     and spend exactly the budget (the shares add up);
 *   - the trees' statistics are summed: the root of the merged tree has as
 *     many visits as simulations were run (read from the decision's info);
 *   - every move is legal, in every game, at two and three threads;
 *   - a time budget is kept and the stop flag ends every thread;
 *   - a helper whose thread does not run (a hook stalls it, as a loaded
 *     machine's scheduler may) does not hold the decision past its budget:
 *     the decision goes on without it (with its last snapshot of the root
 *     when it had run), so does the next one, and the bot's end waits for it;
 *   - threads=1 is the search as it always was: the same moves as a spec
 *     without the option; threads above MCTS_MAX_THREADS or below 1 are
 *     refused; bot_spec_threads() reads the count from a spec's text.
 * Strength at equal time and at equal simulations is measured by benchmarks
 * (bench/README.md), not asserted here.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "bots/bot.h"
#include "bots/mcts.h"

/* the first five spend exactly sims= per decision; the EA bots add their
 * evolution's simulations */
static const char *const threaded[] = {"mcts",    "rave",      "flatmc",  "ucb1",
                                       "mcts-d2", "ea-p-mcts", "ea-mcts", "siea-mcts"};
#define NPLAIN    5
#define NTHREADED ((int)(sizeof threaded / sizeof threaded[0]))

/* Spec of bot type t with sims= and threads= (the EA bots with a small
 * evolution: 2 generations of fitness 5). */
static void spec_of(int t, int sims, int threads, char *out, size_t cap)
{
    snprintf(out, cap, "%s:sims=%d,threads=%d%s", threaded[t], sims, threads,
             t < NPLAIN ? "" : ",gens=2,fitness_sims=5");
}

static bot *make(const char *spec, const eng_game *g, uint64_t seed)
{
    char err[256] = "";
    bot *b = bot_create(spec, g, seed, err, sizeof err);
    if (!b)
        fail_msg("bot_create(%s): %s", spec, err);
    return b;
}

/* Play a game of g between two bots of `spec` (seats take turns), chance
 * by a fixed generator; write every move to moves[0..), return how many. */
static int play(const eng_game *g, const char *spec, uint64_t seed, eng_move *moves, int cap,
                int64_t *sims_out, int max_decisions)
{
    eng_rules r;
    eng_rules_default(g, &r);
    unsigned char *st = malloc(g->state_size);
    assert_non_null(st);
    g->init(st, &r);
    bot *b[ENG_MAX_PLAYERS];
    for (int p = 0; p < r.players; p++)
        b[p] = make(spec, g, seed + (uint64_t)p);
    eng_rng chance;
    eng_rng_seed(&chance, seed ^ 0xc4a5e);
    int n = 0, decisions = 0;
    int64_t sims = 0;
    for (int p;
         (p = g->current_player(st)) != ENG_TERMINAL && n < cap && decisions < max_decisions;) {
        eng_move m;
        if (p == ENG_CHANCE) {
            m = eng_sample_chance(g, st, &chance);
        } else {
            bot_stats stats;
            m = bot_choose(b[p], st, NULL, &stats);
            sims += stats.sims;
            decisions++;
            if (!eng_is_legal(g, st, m))
                fail_msg("%s in %s: illegal move %d at ply %d", spec, g->name, (int)m, n);
        }
        for (int q = 0; q < r.players; q++)
            bot_observe(b[q], st, m);
        g->apply(st, m);
        moves[n++] = m;
    }
    for (int p = 0; p < r.players; p++)
        bot_destroy(b[p]);
    free(st);
    if (sims_out)
        *sims_out = sims;
    return n;
}

static void test_same_seed_same_moves(void **state)
{
    (void)state;
    const char *names[] = {"carcassonne", "reversi", "pentago-twist"};
    eng_move a[512], b[512];
    for (int gi = 0; gi < 3; gi++) {
        const eng_game *g = eng_find_game(names[gi]);
        assert_non_null(g);
        for (int t = 0; t < NTHREADED; t++) {
            char spec[128];
            spec_of(t, 60, 3, spec, sizeof spec);
            int64_t sa, sb;
            int na = play(g, spec, 5, a, 512, &sa, 16);
            int nb = play(g, spec, 5, b, 512, &sb, 16);
            if (na != nb || memcmp(a, b, (size_t)na * sizeof *a) != 0)
                fail_msg("%s in %s: two runs with the same seeds differ", spec, g->name);
            /* every decision not answered by a joint plan spends exactly 60 */
            if (t < NPLAIN && (sa % 60 != 0 || sa == 0))
                fail_msg("%s in %s: %lld simulations, not a multiple of the budget", spec, g->name,
                         (long long)sa);
        }
    }
}

static void test_threads_one_is_the_old_search(void **state)
{
    (void)state;
    const eng_game *g = eng_find_game("carcassonne");
    eng_move a[512], b[512];
    for (int t = 0; t < NTHREADED; t++) {
        char s1[160], s2[128];
        spec_of(t, 80, 1, s2, sizeof s2);
        /* the same spec without threads= */
        snprintf(s1, sizeof s1, "%s:sims=80%s", threaded[t],
                 t < NPLAIN ? "" : ",gens=2,fitness_sims=5");
        int na = play(g, s1, 9, a, 512, NULL, 20);
        int nb = play(g, s2, 9, b, 512, NULL, 20);
        if (na != nb || memcmp(a, b, (size_t)na * sizeof *a) != 0)
            fail_msg("%s and %s play differently", s1, s2);
    }
}

/* The merged root holds every simulation: mcts_bot_end writes "visits X of
 * Y" with Y the root's visits. */
static void test_merged_root_counts_every_simulation(void **state)
{
    (void)state;
    const eng_game *g = eng_find_game("carcassonne");
    eng_rules r;
    eng_rules_default(g, &r);
    unsigned char *st = malloc(g->state_size);
    assert_non_null(st);
    g->init(st, &r);
    eng_rng rng;
    eng_rng_seed(&rng, 3);
    g->apply(st, eng_sample_chance(g, st, &rng));
    int sims[] = {1, 2, 7, 300, 301};
    for (int i = 0; i < (int)(sizeof sims / sizeof sims[0]); i++) {
        char spec[96];
        snprintf(spec, sizeof spec, "mcts:sims=%d,threads=3", sims[i]);
        bot *b = make(spec, g, 4);
        bot_stats stats;
        eng_move m = bot_choose(b, st, NULL, &stats);
        assert_true(eng_is_legal(g, st, m));
        assert_int_equal(stats.sims, sims[i]);
        const char *of = strstr(stats.info, " of ");
        assert_non_null(of);
        assert_int_equal(atoi(of + 4), sims[i]);
        bot_destroy(b);
    }
    free(st);
}

static void test_legal_in_every_game(void **state)
{
    (void)state;
    int ng;
    const eng_game *const *games = eng_games(&ng);
    eng_move moves[1024];
    for (int gi = 0; gi < ng; gi++)
        for (int t = 0; t < NTHREADED; t++)
            for (int th = 2; th <= 3; th++) {
                char spec[128];
                spec_of(t, 24, th, spec, sizeof spec);
                play(games[gi], spec, 21 + (uint64_t)th, moves, 1024, NULL, 1 << 30);
            }
}

typedef struct raiser {
    atomic_bool *flag;
    int after_ms;
} raiser;

static void *raise_later(void *arg)
{
    raiser *rs = arg;
    struct timespec ts = {.tv_sec = 0, .tv_nsec = (long)rs->after_ms * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
    atomic_store(rs->flag, true);
    return NULL;
}

static void test_time_and_stop(void **state)
{
    (void)state;
    const eng_game *g = eng_find_game("carcassonne");
    eng_rules r;
    eng_rules_default(g, &r);
    unsigned char *st = malloc(g->state_size);
    assert_non_null(st);
    g->init(st, &r);
    eng_rng rng;
    eng_rng_seed(&rng, 8);
    g->apply(st, eng_sample_chance(g, st, &rng));

    /* ms= is kept by every thread: loose bounds, the machine may be busy */
    bot *b = make("mcts:ms=60,threads=2", g, 1);
    bot_stats stats;
    double t0 = bot_now_ms();
    eng_move m = bot_choose(b, st, NULL, &stats);
    double took = bot_now_ms() - t0;
    assert_true(eng_is_legal(g, st, m));
    assert_true(stats.sims > 0);
    if (took > 5000)
        fail_msg("ms=60 with two threads took %.0f ms", took);
    bot_destroy(b);

    /* an unbounded search ends when the flag goes up, helpers too */
    atomic_bool flag = false;
    raiser rs = {.flag = &flag, .after_ms = 50};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, raise_later, &rs), 0);
    b = make("mcts:sims=1000000000,threads=3", g, 2);
    bot_budget budget = {.stop = &flag};
    t0 = bot_now_ms();
    m = bot_choose(b, st, &budget, &stats);
    took = bot_now_ms() - t0;
    pthread_join(th, NULL);
    assert_true(eng_is_legal(g, st, m));
    if (took > 10000)
        fail_msg("the stop flag did not end a three-thread search (%.0f ms)", took);
    bot_destroy(b);
    free(st);
}

/* The helper stall (mcts__helper_stall): the first helper to start sleeps
 * `stall_ms`, the others run at once. */
static atomic_int stalls;
static double stall_ms = 1500;

static int64_t stall_at = 0; /* the simulation before which it sleeps */

static void stall_once(int64_t done)
{
    if (done != stall_at || atomic_fetch_add(&stalls, 1) != 0)
        return;
    struct timespec ts = {.tv_sec = (time_t)(stall_ms / 1000),
                          .tv_nsec = (long)((stall_ms - 1000 * (time_t)(stall_ms / 1000)) * 1e6)};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

static void test_stalled_helper(void **state)
{
    (void)state;
    const eng_game *g = eng_find_game("carcassonne");
    eng_rng rng;
    eng_rng_seed(&rng, 9);
    unsigned char *st = malloc(g->state_size);
    assert_non_null(st);
    eng_rules r;
    eng_rules_default(g, &r);
    g->init(st, &r);
    g->apply(st, eng_sample_chance(g, st, &rng));

    atomic_store(&stalls, 0);
    mcts__helper_stall = stall_once;
    bot *b = make("mcts:ms=40,threads=2", g, 3);
    /* decision 1: the helper sleeps 1.5 s; the decision takes its 40 ms
     * and a grace (loose bound: the machine may be busy), not 1.5 s */
    bot_stats stats;
    double t0 = bot_now_ms();
    eng_move m = bot_choose(b, st, NULL, &stats);
    double took = bot_now_ms() - t0;
    assert_true(eng_is_legal(g, st, m));
    assert_true(stats.sims > 0);
    if (took > 1000)
        fail_msg("a stalled helper held a 40 ms decision for %.0f ms", took);
    /* decision 2, the helper still asleep: on without it */
    g->apply(st, m);
    t0 = bot_now_ms();
    m = bot_choose(b, st, NULL, &stats);
    took = bot_now_ms() - t0;
    assert_true(eng_is_legal(g, st, m));
    if (took > 1000)
        fail_msg("the second decision waited %.0f ms for the stalled helper", took);
    mcts__helper_stall = NULL;
    /* the end waits for the helper (ASan and valgrind see no thread or
     * memory left) */
    bot_destroy(b);

    /* a helper stopped after 64 simulations (8 snapshots): its last
     * snapshot joins the decision. sims=200 over two threads: the main
     * thread runs its 100 well before the deadline (300 ms, loose: the
     * machine may be busy), waits for the helper, and at the deadline
     * leaves it behind with its 64 */
    atomic_store(&stalls, 0);
    stall_ms = 2500;
    stall_at = 64;
    mcts__helper_stall = stall_once;
    b = make("mcts:ms=300,sims=200,threads=2", g, 5);
    t0 = bot_now_ms();
    m = bot_choose(b, st, NULL, &stats);
    took = bot_now_ms() - t0;
    assert_true(eng_is_legal(g, st, m));
    if (took > 2000)
        fail_msg("a helper stalled after 64 simulations held the decision %.0f ms", took);
    assert_int_equal(stats.sims, 100 + 64);
    mcts__helper_stall = NULL;
    bot_destroy(b);

    /* a simulation budget waits for every helper, stalled or not: the
     * result depends on the seed alone */
    stall_at = 0;
    atomic_store(&stalls, 0);
    stall_ms = 100;
    mcts__helper_stall = stall_once;
    b = make("mcts:sims=400,threads=2", g, 4);
    m = bot_choose(b, st, NULL, &stats);
    mcts__helper_stall = NULL;
    assert_true(eng_is_legal(g, st, m));
    assert_int_equal(stats.sims, 400);
    bot_destroy(b);
    free(st);
}

static void test_bad_thread_counts(void **state)
{
    (void)state;
    const eng_game *g = eng_find_game("carcassonne");
    char err[256], spec[64];
    assert_int_equal(bot_check_spec("mcts:threads=0", g, err, sizeof err), ENG_EBAD_BOT_SPEC);
    snprintf(spec, sizeof spec, "mcts:threads=%d", MCTS_MAX_THREADS + 1);
    assert_int_equal(bot_check_spec(spec, g, err, sizeof err), ENG_EBAD_BOT_SPEC);
    snprintf(spec, sizeof spec, "rave:threads=%d", MCTS_MAX_THREADS);
    assert_int_equal(bot_check_spec(spec, g, err, sizeof err), 0);
}

static void test_spec_threads(void **state)
{
    (void)state;
    assert_int_equal(bot_spec_threads(NULL), 1);
    assert_int_equal(bot_spec_threads("mcts"), 1);
    assert_int_equal(bot_spec_threads("mcts:sims=5"), 1);
    assert_int_equal(bot_spec_threads("mcts:threads=4"), 4);
    assert_int_equal(bot_spec_threads("siea-mcts:sims=5,threads=3,k=1"), 3);
    assert_int_equal(bot_spec_threads("rave:threads=2,threads=5"), 5);
    assert_int_equal(bot_spec_threads("mcts:threads=x"), 1);
    assert_int_equal(bot_spec_threads("mcts:xthreads=9"), 1);
    assert_int_equal(bot_spec_threads("random:threads=4"), 1); /* no such option */
    assert_int_equal(bot_spec_threads("nosuchbot:threads=4"), 1);
    /* a server's cap (limits.bot_threads) */
    char err[200] = "";
    assert_int_equal(bot_check_threads("mcts:threads=4", 4, err, sizeof err), 0);
    assert_int_equal(bot_check_threads("mcts", 1, err, sizeof err), 0);
    assert_int_equal(bot_check_threads("mcts:threads=2", 1, err, sizeof err), ENG_EBAD_BOT_SPEC);
    assert_string_equal(err, "threads=2: this server lets a bot search on at most 1 thread (its limits.bot_threads)");
    assert_int_equal(bot_check_threads("rave:threads=9", 4, err, sizeof err), ENG_EBAD_BOT_SPEC);
    assert_non_null(strstr(err, "at most 4 threads"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_seed_same_moves),
        cmocka_unit_test(test_threads_one_is_the_old_search),
        cmocka_unit_test(test_merged_root_counts_every_simulation),
        cmocka_unit_test(test_legal_in_every_game),
        cmocka_unit_test(test_time_and_stop),
        cmocka_unit_test(test_stalled_helper),
        cmocka_unit_test(test_bad_thread_counts),
        cmocka_unit_test(test_spec_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
