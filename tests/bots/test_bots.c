/*
 * test_bots.c — one generic suite over every registered bot type (bot_types())
 * and every registered game (eng_games()), so a new bot or a new game is
 * covered without editing this file.
 *
 * What it pins, for every bot type:
 *   - the registry: unique names, options that do not shadow the common
 *     ones, defaults inside their ranges, bot_describe() round-trips;
 *   - legality: short games in every game, every seat count, every rule
 *     option flipped once, all seats one type and mixed tables; every move a
 *     bot returns is checked with eng_is_legal(), every move and chance
 *     outcome is reported to every bot (bot_observe), and a decision never
 *     writes to the state it is given;
 *   - determinism: same seeds and a simulation budget give the same game;
 *     a spec's seed= overrides the creator's seed;
 *   - anytime: a raised stop flag returns a legal move at once, also when it
 *     is raised by another thread in the middle of a huge search;
 *   - time: an ms= budget is honoured, judged by the CPU time the search
 *     burns (a bot that ignores its budget or the stop flag keeps burning
 *     it; a busy machine only stretches the wall clock), with a wall-clock
 *     bound of seconds as a sanity check (the precise figures come from
 *     `tessera bench --bot`);
 *   - whole turns (bot_choose_turn, random and mcts in every game): all of
 *     the seat's decisions, a turn eng_turn_check() takes, the caller's copy
 *     left after it, also past the deadline or with the stop flag raised;
 *   - bot_opt() of an undeclared name aborts, naming bot and option (a
 *     death test in a child process);
 *   - specs: unknown bots are ENG_EUNKNOWN_BOT, bad options and values
 *     ENG_EBAD_BOT_SPEC, each with a message naming the culprit;
 *   - strength (`--strength`, its own CTest test): mcts:sims=400 wins at
 *     least 95% of 40 two-player Carcassonne games against random.
 *
 * Budgets are small and derived from the options a type declares (see
 * quick_spec), so search bots play 30-simulation games here.
 *
 * `test_bots` runs everything but the strength check; `test_bots --strength`
 * runs only that (about 20 s on a loaded 2-core machine; 10 games under
 * the sanitizers).
 * `test_bots --only PATTERN` runs the default tests matching PATTERN.
 */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "bots/bot.h"

/* Sanitized builds run slower: timing margins widen, game counts shrink. */
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

/* Timing bounds. The machine is shared with other jobs, so a search is
 * judged by the CPU time its thread burns, which a busy machine does not
 * stretch: these catch a bot that ignores its budget, not a slow machine.
 * The wall clock gets only a sanity bound of seconds. */
#define MS_BUDGET      50.0                        /* the ms= budget under test */
#define MS_MARGIN      (SANITIZED ? 500.0 : 250.0) /* CPU time allowed past a budget or stop */
#define STOP_MAX_MS    (SANITIZED ? 400.0 : 200.0) /* "at once" (CPU) for a raised stop flag */
#define STOP_AFTER_MS  30                          /* the other thread raises the flag after this */
#define WALL_SANITY_MS 30000.0                     /* no search here may take this long */

/* CPU time of a thread, in ms (CLOCK_THREAD_CPUTIME_ID for the caller). */
static double cpu_ms(clockid_t clk)
{
    struct timespec t;
    clock_gettime(clk, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static const char *const COMMON_OPTS[] = {"sims", "ms", "seed", "mem"};

/* ---- helpers --------------------------------------------------------------- */

static const bot_type *const *types(int *n)
{
    const bot_type *const *all = bot_types(n);
    assert_non_null(all);
    assert_true(*n > 0);
    return all;
}

static bool has_param(const bot_type *t, const char *name)
{
    for (int i = 0; i < t->nparams; i++)
        if (strcmp(t->params[i].name, name) == 0)
            return true;
    return false;
}

/* A quick spec for type t, derived from the options it declares so that a
 * new type needs no entry here: every bot gets sims=30 (search bots run 30
 * simulations, the others ignore it) and a small arena; a bot with an
 * evolution (gens=) gets enough MCTS iterations to expand the root of most
 * positions and a 2-generation evolution on 5-simulation fitness; a bot
 * with a search depth (depth=; its sims= counts leaf evaluations) gets 300
 * leaves, which finishes depth 1 and part of depth 2; a bot with a depth-2
 * check (d2_nodes=) a bound of 20,000 positions. `extra` is appended. */
static void quick_spec(const bot_type *t, const char *extra, char *buf, size_t cap)
{
    const char *own = "sims=30";
    if (has_param(t, "gens") && has_param(t, "fitness_sims"))
        own = "sims=120,gens=2,fitness_sims=5";
    else if (has_param(t, "depth"))
        own = "sims=300";
    else if (has_param(t, "d2_nodes")) /* a small check bound: Carcassonne gives up early */
        own = "sims=30,d2_nodes=20000";
    int n = snprintf(buf, cap, "%s:%s,mem=16%s%s", t->name, own, extra && *extra ? "," : "",
                     extra ? extra : "");
    assert_true(n > 0 && (size_t)n < cap);
}

static bot *make_bot(const char *spec, const eng_game *g, uint64_t seed)
{
    char err[512] = "";
    bot *b = bot_create(spec, g, seed, err, sizeof err);
    if (!b)
        fail_msg("bot_create(\"%s\", %s) failed: %s", spec, g->name, err);
    return b;
}

static void rules_for(const eng_game *g, int players, eng_rules *r)
{
    eng_rules_default(g, r);
    r->players = players;
    char err[256] = "";
    if (eng_rules_check(g, r, err, sizeof err) != 0)
        fail_msg("%s with %d players: %s", g->name, players, err);
}

/* One played game: every ply (chance included) and the final scores. */
typedef struct played {
    eng_move *moves;               /* g->max_plies entries */
    int n;                         /* plies played */
    int decisions;                 /* calls to bot_choose */
    double score[ENG_MAX_PLAYERS]; /* final scores by seat */
} played;

static void played_init(played *p, const eng_game *g)
{
    memset(p, 0, sizeof *p);
    p->moves = malloc((size_t)g->max_plies * sizeof(eng_move));
    assert_non_null(p->moves);
}

static void played_free(played *p)
{
    free(p->moves);
    p->moves = NULL;
}

/* Play one game of g under r, seat s played by bots[s], chance outcomes from
 * a generator seeded with chance_seed. Every move a bot returns must be
 * legal and the bot must leave the state untouched; every move and chance
 * outcome is reported to every bot before it is applied. `budget` (may be
 * NULL) is passed to every decision; `what` names the game in messages. */
static void play(const eng_game *g, const eng_rules *r, bot *const *bots, uint64_t chance_seed,
                 const bot_budget *budget, const char *what, played *out)
{
    unsigned char *st = malloc(g->state_size), *before = malloc(g->state_size);
    assert_non_null(st);
    assert_non_null(before);
    char err[256] = "";
    if (eng_init(g, st, r, err, sizeof err) != 0)
        fail_msg("%s: eng_init: %s", what, err);
    eng_rng rng;
    eng_rng_seed(&rng, chance_seed);
    out->n = 0;
    out->decisions = 0;
    for (;;) {
        int p = g->current_player(st);
        if (p == ENG_TERMINAL)
            break;
        if (out->n >= g->max_plies)
            fail_msg("%s: still running after max_plies = %d", what, g->max_plies);
        eng_move m;
        if (p == ENG_CHANCE) {
            m = eng_sample_chance(g, st, &rng);
        } else {
            assert_true(p >= 0 && p < r->players);
            memcpy(before, st, g->state_size);
            bot_stats stats;
            m = bot_choose(bots[p], st, budget, &stats);
            out->decisions++;
            if (memcmp(before, st, g->state_size) != 0)
                fail_msg("%s: ply %d: %s changed the state it was given", what, out->n,
                         bots[p]->spec);
            if (!eng_is_legal(g, st, m)) {
                char text[ENG_MOVE_STR_MAX] = "?";
                g->move_to_str(st, m, text, sizeof text);
                fail_msg("%s: ply %d, seat %d: %s returned the illegal move %d (%s)", what, out->n,
                         p, bots[p]->spec, (int)m, text);
            }
            if (!(stats.ms >= 0))
                fail_msg("%s: %s reported %g ms", what, bots[p]->spec, stats.ms);
        }
        for (int q = 0; q < r->players; q++)
            bot_observe(bots[q], st, m);
        g->apply(st, m);
        out->moves[out->n++] = m;
    }
    g->scores(st, out->score);
    free(st);
    free(before);
}

/* A uniformly random game of g (seed `seed`); its decision plies are written
 * to dec[] (capacity g->max_plies) and its plies to moves[]. Returns the
 * number of decision plies. */
static int random_line(const eng_game *g, const eng_rules *r, uint64_t seed, eng_move *moves,
                       int *nmoves, int *dec)
{
    unsigned char *st = malloc(g->state_size);
    assert_non_null(st);
    assert_int_equal(eng_init(g, st, r, NULL, 0), 0);
    eng_rng rng;
    eng_rng_seed(&rng, seed);
    int n = 0, nd = 0;
    for (int p; (p = g->current_player(st)) != ENG_TERMINAL;) {
        assert_true(n < g->max_plies);
        if (p >= 0)
            dec[nd++] = n;
        eng_move m =
            p == ENG_CHANCE ? eng_sample_chance(g, st, &rng) : eng_random_move(g, st, &rng);
        g->apply(st, m);
        moves[n++] = m;
    }
    free(st);
    *nmoves = n;
    return nd;
}

/* Test positions: decision points at the start, the middle and near the end
 * of a random game of g with the game's default seat count. */
#define NPOS 3
typedef struct positions {
    eng_rules rules;
    eng_move *moves; /* the random game */
    int at[NPOS];    /* plies before each position */
} positions;

static void positions_make(positions *ps, const eng_game *g, uint64_t seed)
{
    rules_for(g, g->default_players, &ps->rules);
    ps->moves = malloc((size_t)g->max_plies * sizeof(eng_move));
    int *dec = malloc((size_t)g->max_plies * sizeof(int));
    assert_non_null(ps->moves);
    assert_non_null(dec);
    int n, nd = random_line(g, &ps->rules, seed, ps->moves, &n, dec);
    assert_true(nd > 0);
    static const double frac[NPOS] = {0.0, 0.5, 0.9};
    for (int i = 0; i < NPOS; i++)
        ps->at[i] = dec[(int)(frac[i] * (nd - 1))];
    free(dec);
}

/* Set st to position i of ps, reporting the moves that lead there to b. */
static void positions_reach(const positions *ps, int i, const eng_game *g, void *st, bot *b)
{
    assert_int_equal(eng_init(g, st, &ps->rules, NULL, 0), 0);
    for (int k = 0; k < ps->at[i]; k++) {
        if (b)
            bot_observe(b, st, ps->moves[k]);
        g->apply(st, ps->moves[k]);
    }
    assert_true(g->current_player(st) >= 0);
}

/* ---- the registry ----------------------------------------------------------- */

/* bot_opt() with a name its type does not declare is a bug in the bot's
 * code: the process stops with a message naming the bot and the option, in
 * every build type (it used to return 0.0 and play on). A death test: the
 * call runs in a child process. */
static void test_opt_unknown_aborts(void **state)
{
    (void)state;
    const eng_game *g = eng_find_game("carcassonne");
    char err[256];
    bot *b = bot_create("star2", g, 1, err, sizeof err);
    assert_non_null(b);
    assert_true(bot_opt(b, "depth") >= 1); /* a declared option reads */
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(fds[1], 2);
        close(fds[0]);
        double v = bot_opt(b, "dpeth"); /* misspelled */
        fprintf(stderr, "returned %g\n", v);
        _exit(0);
    }
    close(fds[1]);
    char out[512] = "";
    size_t got = 0;
    ssize_t r;
    while (got + 1 < sizeof out && (r = read(fds[0], out + got, sizeof out - 1 - got)) > 0)
        got += (size_t)r;
    out[got] = 0;
    close(fds[0]);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGABRT)
        fail_msg("bot_opt on a misspelled name did not abort (status %d): %s", status, out);
    if (!strstr(out, "star2") || !strstr(out, "'dpeth'"))
        fail_msg("the message does not name the bot and the option: %s", out);
    bot_destroy(b);
}

static void test_registry(void **state)
{
    (void)state;
    int nt, ng;
    const bot_type *const *all = types(&nt);
    const eng_game *const *games = eng_games(&ng);
    assert_true(ng > 0);
    static char cat[1 << 16];
    int catlen = bot_catalogue(cat, sizeof cat);
    assert_true(catlen > 0 && (size_t)catlen < sizeof cat);
    for (int i = 0; i < nt; i++) {
        const bot_type *t = all[i];
        assert_non_null(t->name);
        assert_non_null(t->summary);
        assert_non_null(t->choose);
        assert_true(t->nparams >= 0 && t->nparams <= BOT_MAX_PARAMS);
        assert_true(t->nparams == 0 || t->params != NULL);
        assert_ptr_equal(bot_find_type(t->name), t);
        for (int j = 0; j < i; j++)
            if (strcmp(all[j]->name, t->name) == 0)
                fail_msg("bot type '%s' registered twice", t->name);
        if (!strstr(cat, t->name))
            fail_msg("`tessera bots` does not list '%s'", t->name);
        for (int p = 0; p < t->nparams; p++) {
            const bot_param *bp = &t->params[p];
            assert_non_null(bp->name);
            assert_non_null(bp->help);
            for (size_t c = 0; c < sizeof COMMON_OPTS / sizeof *COMMON_OPTS; c++)
                if (strcmp(bp->name, COMMON_OPTS[c]) == 0)
                    fail_msg("%s: option '%s' shadows a common option", t->name, bp->name);
            for (int q = 0; q < p; q++)
                if (strcmp(t->params[q].name, bp->name) == 0)
                    fail_msg("%s: option '%s' declared twice", t->name, bp->name);
            if ((bp->kind == BOT_INT || bp->kind == BOT_REAL) &&
                !(bp->min <= bp->def && bp->def <= bp->max))
                fail_msg("%s: default %g of '%s' outside [%g, %g]", t->name, bp->def, bp->name,
                         bp->min, bp->max);
            if (bp->kind == BOT_ENUM) {
                assert_non_null(bp->choices);
                int nc = 0;
                while (bp->choices[nc])
                    nc++;
                if (!(bp->def >= 0 && bp->def < nc))
                    fail_msg("%s: default index %g of '%s' has %d choices", t->name, bp->def,
                             bp->name, nc);
            }
        }
        /* The fully spelled-out spec of a default bot creates the same bot,
         * in every game where the defaults are valid. */
        for (int gi = 0; gi < ng; gi++) {
            char err[512] = "";
            bot *b = bot_create(t->name, games[gi], 1, err, sizeof err);
            if (!b)
                fail_msg("%s cannot be created with its defaults in %s: %s", t->name,
                         games[gi]->name, err);
            char d1[BOT_SPEC_MAX], d2[BOT_SPEC_MAX];
            int n1 = bot_describe(b, d1, sizeof d1);
            assert_true(n1 > 0 && (size_t)n1 < sizeof d1);
            if (strncmp(d1, t->name, strlen(t->name)) != 0)
                fail_msg("describe of %s starts '%s'", t->name, d1);
            bot_destroy(b);
            if (bot_check_spec(d1, games[gi], err, sizeof err) != 0)
                fail_msg("%s: its own description '%s' is rejected: %s", t->name, d1, err);
            b = make_bot(d1, games[gi], 1);
            bot_describe(b, d2, sizeof d2);
            assert_string_equal(d1, d2);
            bot_destroy(b);
        }
    }
}

/* ---- legal moves only: every type, every game, every seat count -------------- */

/* One game with `players` seats; seat s is played by type all[(first + s) % nt]
 * (or all seats by type `first` when `same`). */
static void legal_game(const eng_game *g, const eng_rules *r, const bot_type *const *all, int nt,
                       int first, bool same, const bot_budget *budget, uint64_t seed,
                       const char *label)
{
    bot *bots[ENG_MAX_PLAYERS];
    char spec[BOT_SPEC_MAX], what[512];
    int pos = snprintf(what, sizeof what, "%s %s players=%d seed=%llu:", g->name, label, r->players,
                       (unsigned long long)seed);
    for (int s = 0; s < r->players; s++) {
        const bot_type *t = all[same ? first : (first + s) % nt];
        quick_spec(t, NULL, spec, sizeof spec);
        bots[s] = make_bot(spec, g, seed * 31 + (uint64_t)s);
        if (pos > 0 && (size_t)pos < sizeof what)
            pos += snprintf(what + pos, sizeof what - (size_t)pos, " %s", spec);
    }
    played pl;
    played_init(&pl, g);
    play(g, r, bots, seed, budget, what, &pl);
    assert_true(pl.decisions > 0);
    played_free(&pl);
    for (int s = 0; s < r->players; s++)
        bot_destroy(bots[s]);
}

static void test_legal_every_game(void **state)
{
    (void)state;
    int nt, ng;
    const bot_type *const *all = types(&nt);
    const eng_game *const *games = eng_games(&ng);
    /* mixed tables also pass a caller budget, which caps the spec's sims= */
    const bot_budget capped = {.sims = 20};
    for (int gi = 0; gi < ng; gi++) {
        const eng_game *g = games[gi];
        for (int players = g->min_players; players <= g->max_players; players++) {
            eng_rules r;
            rules_for(g, players, &r);
            for (int t = 0; t < nt; t++)
                legal_game(g, &r, all, nt, t, true, NULL, 100 + (uint64_t)(players * nt + t),
                           "same");
            for (int t = 0; t < nt; t += players)
                legal_game(g, &r, all, nt, t, false, &capped, 200 + (uint64_t)(players * nt + t),
                           "mixed");
        }
        /* every rule option away from its default once, two-player games */
        for (int o = 0; o < g->n_options; o++) {
            const eng_option *op = &g->options[o];
            int32_t v = op->def != op->min ? op->min : op->max;
            if (v == op->def)
                continue;
            eng_rules r;
            rules_for(g, g->default_players, &r);
            char err[256];
            if (eng_rules_set_value(g, &r, op->name, v, err, sizeof err) != 0 ||
                eng_rules_check(g, &r, err, sizeof err) != 0)
                continue; /* a combination the game refuses is not ours to test */
            char label[96];
            snprintf(label, sizeof label, "%s=%d", op->name, (int)v);
            for (int t = 0; t < nt; t++)
                legal_game(g, &r, all, nt, t, false, NULL, 300 + (uint64_t)(o * nt + t), label);
        }
    }
}

/* ---- determinism ------------------------------------------------------------- */

static void det_game(const eng_game *g, const eng_rules *r, const char *spec, uint64_t seed0,
                     played *out)
{
    bot *bots[ENG_MAX_PLAYERS];
    for (int s = 0; s < r->players; s++)
        bots[s] = make_bot(spec, g, seed0 + (uint64_t)s);
    char what[BOT_SPEC_MAX + 64];
    snprintf(what, sizeof what, "%s determinism %s", g->name, spec);
    play(g, r, bots, 4242, NULL, what, out);
    for (int s = 0; s < r->players; s++)
        bot_destroy(bots[s]);
}

static bool same_game(const played *a, const played *b)
{
    return a->n == b->n && memcmp(a->moves, b->moves, (size_t)a->n * sizeof(eng_move)) == 0;
}

static void test_deterministic(void **state)
{
    (void)state;
    int nt, ng;
    const bot_type *const *all = types(&nt);
    const eng_game *const *games = eng_games(&ng);
    for (int gi = 0; gi < ng; gi++) {
        const eng_game *g = games[gi];
        int counts[2] = {g->min_players, g->max_players};
        for (int c = 0; c < (g->min_players == g->max_players ? 1 : 2); c++) {
            eng_rules r;
            rules_for(g, counts[c], &r);
            played a, b;
            played_init(&a, g);
            played_init(&b, g);
            for (int t = 0; t < nt; t++) {
                char spec[BOT_SPEC_MAX];
                quick_spec(all[t], NULL, spec, sizeof spec);
                det_game(g, &r, spec, 11, &a);
                det_game(g, &r, spec, 11, &b);
                if (!same_game(&a, &b))
                    fail_msg("%s, %d players: %s played two different games with the same seeds",
                             g->name, r.players, spec);
                if (c > 0)
                    continue;
                /* seed= in the spec wins over the creator's seed */
                quick_spec(all[t], "seed=7", spec, sizeof spec);
                det_game(g, &r, spec, 11, &a);
                det_game(g, &r, spec, 900, &b);
                if (!same_game(&a, &b))
                    fail_msg("%s, %d players: %s depends on the creator's seed despite seed=",
                             g->name, r.players, spec);
            }
            /* and the seed matters: two random players with other seeds differ */
            if (bot_find_type("random")) {
                det_game(g, &r, "random", 11, &a);
                det_game(g, &r, "random", 12, &b);
                if (same_game(&a, &b))
                    fail_msg("%s: random played the same game with seeds 11 and 12", g->name);
            }
            played_free(&a);
            played_free(&b);
        }
    }
}

/* ---- the stop flag ----------------------------------------------------------- */

typedef struct raiser {
    atomic_bool *flag;
    int after_ms;
    clockid_t searcher;     /* CPU clock of the searching thread */
    double searcher_cpu_ms; /* its CPU time when the flag went up */
} raiser;

static void *raise_later(void *arg)
{
    raiser *rs = arg;
    struct timespec ts = {.tv_sec = rs->after_ms / 1000,
                          .tv_nsec = (long)(rs->after_ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
    atomic_store(rs->flag, true);
    rs->searcher_cpu_ms = cpu_ms(rs->searcher);
    return NULL;
}

static void test_stop_flag(void **state)
{
    (void)state;
    int nt, ng;
    const bot_type *const *all = types(&nt);
    const eng_game *const *games = eng_games(&ng);
    for (int gi = 0; gi < ng; gi++) {
        const eng_game *g = games[gi];
        positions ps;
        positions_make(&ps, g, 77 + (uint64_t)gi);
        unsigned char *st = malloc(g->state_size);
        assert_non_null(st);
        for (int t = 0; t < nt; t++) {
            for (int i = 0; i < NPOS; i++) {
                /* Raised before the call: the type's default budget (seconds
                 * for the evolving and *-minimax bots) must not be spent. */
                char spec[BOT_SPEC_MAX];
                snprintf(spec, sizeof spec, "%s:mem=16", all[t]->name);
                bot *b = make_bot(spec, g, 5);
                positions_reach(&ps, i, g, st, b);
                atomic_bool raised = true;
                bot_budget bud = {.stop = &raised};
                bot_stats stats;
                double t0 = bot_now_ms(), c0 = cpu_ms(CLOCK_THREAD_CPUTIME_ID);
                eng_move m = bot_choose(b, st, &bud, &stats);
                double took = bot_now_ms() - t0, cpu = cpu_ms(CLOCK_THREAD_CPUTIME_ID) - c0;
                if (!eng_is_legal(g, st, m))
                    fail_msg("%s position %d: %s with the stop flag raised returned illegal %d",
                             g->name, i, spec, (int)m);
                if (cpu > STOP_MAX_MS || took > WALL_SANITY_MS)
                    fail_msg("%s position %d: %s took %.1f ms of CPU (%.1f ms) with the stop flag "
                             "raised",
                             g->name, i, spec, cpu, took);
                /* the flag may be read every few simulations (star: every 64 leaves) */
                if (stats.sims > 64)
                    fail_msg("%s position %d: %s ran %lld simulations with the stop flag raised",
                             g->name, i, spec, (long long)stats.sims);
                bot_destroy(b);

                /* Raised by another thread during a search with a huge budget
                 * (finite, so a bot that ignores the flag fails rather than hangs). */
                snprintf(spec, sizeof spec, "%s:sims=1000000,mem=64", all[t]->name);
                b = make_bot(spec, g, 6);
                positions_reach(&ps, i, g, st, b);
                atomic_bool flag = false;
                raiser rs = {.flag = &flag, .after_ms = STOP_AFTER_MS};
                assert_int_equal(pthread_getcpuclockid(pthread_self(), &rs.searcher), 0);
                bot_budget bud2 = {.stop = &flag};
                pthread_t th;
                t0 = bot_now_ms();
                assert_int_equal(pthread_create(&th, NULL, raise_later, &rs), 0);
                m = bot_choose(b, st, &bud2, NULL);
                double done_cpu = cpu_ms(CLOCK_THREAD_CPUTIME_ID);
                took = bot_now_ms() - t0;
                pthread_join(th, NULL);
                if (!eng_is_legal(g, st, m))
                    fail_msg("%s position %d: %s stopped by another thread returned illegal %d",
                             g->name, i, spec, (int)m);
                /* the CPU the search burnt after the flag went up */
                double after = done_cpu - rs.searcher_cpu_ms;
                if (after > MS_MARGIN || took > WALL_SANITY_MS)
                    fail_msg("%s position %d: %s searched on for %.1f ms of CPU after a stop "
                             "raised at %d ms (returned after %.1f ms)",
                             g->name, i, spec, after, STOP_AFTER_MS, took);
                bot_destroy(b);
            }
        }
        free(st);
        free(ps.moves);
    }
}

/* ---- the ms= budget ---------------------------------------------------------- */

static void test_ms_budget(void **state)
{
    (void)state;
    int nt, ng;
    const bot_type *const *all = types(&nt);
    const eng_game *const *games = eng_games(&ng);
    for (int gi = 0; gi < ng; gi++) {
        const eng_game *g = games[gi];
        positions ps;
        positions_make(&ps, g, 99 + (uint64_t)gi);
        unsigned char *st = malloc(g->state_size);
        assert_non_null(st);
        for (int t = 0; t < nt; t++) {
            for (int i = 0; i < NPOS; i++) {
                char spec[BOT_SPEC_MAX];
                snprintf(spec, sizeof spec, "%s:ms=%d,mem=64", all[t]->name, (int)MS_BUDGET);
                bot *b = make_bot(spec, g, 8);
                positions_reach(&ps, i, g, st, b);
                bot_stats stats;
                double t0 = bot_now_ms(), c0 = cpu_ms(CLOCK_THREAD_CPUTIME_ID);
                eng_move m = bot_choose(b, st, NULL, &stats);
                double took = bot_now_ms() - t0, cpu = cpu_ms(CLOCK_THREAD_CPUTIME_ID) - c0;
                if (!eng_is_legal(g, st, m))
                    fail_msg("%s position %d: %s returned illegal %d", g->name, i, spec, (int)m);
                if (cpu > MS_BUDGET + MS_MARGIN || took > WALL_SANITY_MS)
                    fail_msg("%s position %d: %s took %.1f ms of CPU, %.1f ms (budget %.0f + "
                             "margin %.0f)",
                             g->name, i, spec, cpu, took, MS_BUDGET, MS_MARGIN);
                if (stats.ms > took + 1.0)
                    fail_msg("%s: %s reported %.1f ms, measured %.1f", g->name, spec, stats.ms,
                             took);
                /* plain MCTS thinks for the whole time it is given */
                if (strcmp(all[t]->name, "mcts") == 0) {
                    if (stats.ms < MS_BUDGET || stats.sims <= 0)
                        fail_msg("%s position %d: %s stopped after %.1f ms and %lld sims", g->name,
                                 i, spec, stats.ms, (long long)stats.sims);
                }
                bot_destroy(b);
            }
        }
        /* the caller's budget: a time given by the caller is used in full by a
         * spec without limits, and only caps a spec's own sims= with cap_only */
        if (bot_find_type("mcts")) {
            bot *b = make_bot("mcts:mem=64", g, 9);
            positions_reach(&ps, 1, g, st, b);
            bot_budget whole = {.ms = (int64_t)MS_BUDGET, .cap_only = false};
            bot_stats stats;
            double c0 = cpu_ms(CLOCK_THREAD_CPUTIME_ID);
            eng_move m = bot_choose(b, st, &whole, &stats);
            double cpu = cpu_ms(CLOCK_THREAD_CPUTIME_ID) - c0;
            assert_true(eng_is_legal(g, st, m));
            if (stats.ms < MS_BUDGET || cpu > MS_BUDGET + MS_MARGIN || stats.ms > WALL_SANITY_MS)
                fail_msg("%s: mcts given %.0f ms by the caller used %.1f ms (%.1f ms of CPU)",
                         g->name, MS_BUDGET, stats.ms, cpu);
            bot_destroy(b);
            b = make_bot("mcts:sims=200,mem=64", g, 9);
            positions_reach(&ps, 1, g, st, b);
            bot_budget cap = {.ms = 60000, .cap_only = true};
            m = bot_choose(b, st, &cap, &stats);
            assert_true(eng_is_legal(g, st, m));
            assert_int_equal(stats.sims, 200);
            bot_destroy(b);
        }
        free(st);
        free(ps.moves);
    }
}

/* ---- bad specs ---------------------------------------------------------------- */

/* spec must be rejected with `code`, by bot_check_spec and bot_create alike,
 * with a message that contains `mention` (when not NULL). */
static void expect_bad(const eng_game *g, const char *spec, int code, const char *mention)
{
    char err[512] = "";
    int rc = bot_check_spec(spec, g, err, sizeof err);
    if (rc != code)
        fail_msg("%s: spec '%s' gave %d, expected %d (%s)", g->name, spec, rc, code, err);
    if (!err[0])
        fail_msg("%s: spec '%s' rejected without a message", g->name, spec);
    if (mention && !strstr(err, mention))
        fail_msg("%s: the message for '%s' does not mention '%s': %s", g->name, spec, mention, err);
    char err2[512] = "";
    bot *b = bot_create(spec, g, 1, err2, sizeof err2);
    if (b)
        fail_msg("%s: bot_create accepted '%s'", g->name, spec);
    assert_string_equal(err, err2);
    assert_null(bot_create(spec, g, 1, NULL, 0)); /* no message buffer: still refused */
    /* bot_create_code: the same code */
    int got = 0;
    assert_null(bot_create_code(spec, g, 1, &got, err2, sizeof err2));
    assert_int_equal(got, code);
}

/* Values that option p must refuse, written to bad[]; returns their number. */
static int bad_values(const bot_param *p, char bad[][64])
{
    int n = 0;
    snprintf(bad[n++], 64, "%s", ""); /* an empty value */
    switch (p->kind) {
    case BOT_INT:
        snprintf(bad[n++], 64, "abc");
        snprintf(bad[n++], 64, "%.0f.5", p->min); /* not an integer */
        snprintf(bad[n++], 64, "%.0fx", p->min);  /* trailing junk */
        if (p->max < 1e15)
            snprintf(bad[n++], 64, "%.0f", p->max + 1);
        if (p->min > -1e15)
            snprintf(bad[n++], 64, "%.0f", p->min - 1);
        break;
    case BOT_REAL:
        snprintf(bad[n++], 64, "abc");
        snprintf(bad[n++], 64, "nan");
        snprintf(bad[n++], 64, "inf");
        if (p->max < 1e15)
            snprintf(bad[n++], 64, "%.17g", p->max + fmax(1.0, fabs(p->max)));
        if (p->min > -1e15)
            snprintf(bad[n++], 64, "%.17g", p->min - fmax(1.0, fabs(p->min)));
        break;
    case BOT_ENUM:
        snprintf(bad[n++], 64, "no-such-choice");
        snprintf(bad[n++], 64, "%s!", p->choices[0]);
        break;
    case BOT_BOOL:
        snprintf(bad[n++], 64, "maybe");
        snprintf(bad[n++], 64, "2");
        break;
    case BOT_LIST:
        snprintf(bad[n++], 64, "x/1");
        snprintf(bad[n++], 64, "1/nan");
        if (p->max < 1e15)
            snprintf(bad[n++], 64, "%.17g", p->max + 1);
        snprintf(bad[n++], 64, "1/1/1/1/1/1/1/1/1/1/1/1/1/1/1/1/1"); /* 17 > BOT_LIST_MAX */
        break;
    case BOT_STR:
    case BOT_FILE:
        snprintf(bad[n++], 64, "a\tb"); /* a control character */
        break;
    }
    return n;
}

static void test_bad_specs(void **state)
{
    (void)state;
    int nt, ng;
    const bot_type *const *all = types(&nt);
    const eng_game *const *games = eng_games(&ng);
    for (int gi = 0; gi < ng; gi++) {
        const eng_game *g = games[gi];
        /* unknown bots */
        expect_bad(g, "no-such-bot", ENG_EUNKNOWN_BOT, "no-such-bot");
        expect_bad(g, "no-such-bot:sims=5", ENG_EUNKNOWN_BOT, "no-such-bot");
        expect_bad(g, "MCTS", ENG_EUNKNOWN_BOT, "MCTS"); /* names are case-sensitive */
        expect_bad(g, " random", ENG_EUNKNOWN_BOT, NULL);
        /* malformed specs */
        expect_bad(g, "", ENG_EBAD_BOT_SPEC, NULL);
        char longspec[BOT_SPEC_MAX + 8];
        memset(longspec, 'a', sizeof longspec - 1);
        longspec[sizeof longspec - 1] = 0;
        memcpy(longspec, "random:seed=1,", 14);
        expect_bad(g, longspec, ENG_EBAD_BOT_SPEC, NULL);
        assert_null(bot_create(NULL, g, 1, NULL, 0));

        for (int t = 0; t < nt; t++) {
            const bot_type *ty = all[t];
            char spec[BOT_SPEC_MAX];
            /* the bare name, and an empty option list, are valid */
            char err[512] = "";
            if (bot_check_spec(ty->name, g, err, sizeof err) != 0)
                fail_msg("%s: '%s' rejected: %s", g->name, ty->name, err);
            snprintf(spec, sizeof spec, "%s:", ty->name);
            if (bot_check_spec(spec, g, err, sizeof err) != 0)
                fail_msg("%s: '%s' rejected: %s", g->name, spec, err);

            snprintf(spec, sizeof spec, "%s:no_such_option=1", ty->name);
            expect_bad(g, spec, ENG_EBAD_BOT_SPEC, "no_such_option");
            snprintf(spec, sizeof spec, "%s:sims", ty->name);
            expect_bad(g, spec, ENG_EBAD_BOT_SPEC, "sims");
            snprintf(spec, sizeof spec, "%s:=5", ty->name);
            expect_bad(g, spec, ENG_EBAD_BOT_SPEC, NULL);
            static const char *const bad_common[] = {
                "sims=-1", "sims=1.5", "sims=abc", "sims=", "ms=-1",   "ms=fast",
                "ms=1e30", "seed=-2",  "seed=x",   "mem=0", "mem=1e9", "mem=1.5",
            };
            for (size_t k = 0; k < sizeof bad_common / sizeof *bad_common; k++) {
                snprintf(spec, sizeof spec, "%s:%s", ty->name, bad_common[k]);
                char key[16];
                snprintf(key, sizeof key, "%.*s", (int)strcspn(bad_common[k], "="), bad_common[k]);
                char quoted[24];
                snprintf(quoted, sizeof quoted, "'%s'", key);
                expect_bad(g, spec, ENG_EBAD_BOT_SPEC, quoted);
            }
            /* every own option: values of the wrong kind or out of range */
            for (int p = 0; p < ty->nparams; p++) {
                const bot_param *bp = &ty->params[p];
                char bad[8][64];
                int nb = bad_values(bp, bad);
                for (int k = 0; k < nb; k++) {
                    snprintf(spec, sizeof spec, "%.64s:%.64s=%.63s", ty->name, bp->name, bad[k]);
                    expect_bad(g, spec, ENG_EBAD_BOT_SPEC, bp->name);
                }
            }
            /* a reward the game cannot compute is refused at creation */
            if (has_param(ty, "reward") && eng_eval_index(g, "heyden") < 0) {
                for (int p = 0; p < ty->nparams; p++) {
                    const bot_param *bp = &ty->params[p];
                    if (strcmp(bp->name, "reward") || bp->kind != BOT_ENUM)
                        continue;
                    for (int c = 0; bp->choices[c]; c++)
                        if (strcmp(bp->choices[c], "heyden") == 0) {
                            snprintf(spec, sizeof spec, "%s:reward=heyden", ty->name);
                            expect_bad(g, spec, ENG_EBAD_BOT_SPEC, "heyden");
                        }
                }
            }
        }
    }
}

/* ---- strength: mcts:sims=400 against random ---------------------------------- */

/* Two-player Carcassonne games of `a` against `b`, seats alternated: games
 * 2k and 2k+1 share their tiles (one chance seed) with the seats swapped.
 * Returns a's wins (strictly higher score); *draws gets the ties. */
static int duel(const char *a, const char *b, int games, int *draws, double *a_mean, double *b_mean)
{
    const eng_game *g = eng_find_game("carcassonne");
    assert_non_null(g);
    eng_rules r;
    rules_for(g, 2, &r);
    int wins = 0;
    *draws = 0;
    *a_mean = *b_mean = 0;
    played pl;
    played_init(&pl, g);
    for (int n = 0; n < games; n++) {
        int a_seat = n % 2;
        bot *bots[2];
        bots[a_seat] = make_bot(a, g, 1000 + 2 * (uint64_t)n);
        bots[1 - a_seat] = make_bot(b, g, 1001 + 2 * (uint64_t)n);
        char what[2 * BOT_SPEC_MAX];
        snprintf(what, sizeof what, "duel game %d, %s (seat %d) vs %s", n, a, a_seat + 1, b);
        play(g, &r, bots, 5000 + (uint64_t)(n / 2), NULL, what, &pl);
        double sa = pl.score[a_seat], sb = pl.score[1 - a_seat];
        wins += sa > sb;
        *draws += sa == sb;
        *a_mean += sa / games;
        *b_mean += sb / games;
        bot_destroy(bots[0]);
        bot_destroy(bots[1]);
    }
    played_free(&pl);
    return wins;
}

static void strength(int games, int need)
{
    if (!bot_find_type("mcts") || !bot_find_type("random"))
        skip();
    int draws;
    double ma, mb;
    double t0 = bot_now_ms();
    int w = duel("mcts:sims=400", "random", games, &draws, &ma, &mb);
    print_message("mcts:sims=400 vs random: %d wins, %d draws, %d losses of %d; mean scores "
                  "%.1f vs %.1f; %.1f s\n",
                  w, draws, games - w - draws, games, ma, mb, (bot_now_ms() - t0) / 1000);
    if (w < need)
        fail_msg("mcts:sims=400 won %d of %d games against random; at least %d required", w, games,
                 need);
}

/* The required bar: at least 95% of 40 games (38). Sanitized builds, where
 * a game costs several times more, play 10 and need 9. */
static void test_strength_mcts_vs_random(void **state)
{
    (void)state;
    if (SANITIZED)
        strength(10, 9);
    else
        strength(40, 38);
}

/* Options that read files are of their own kind (BOT_FILE), and a spec
 * that sets one is found without creating the bot (nothing is read): the
 * server refuses them to anyone but its admin. */
static void test_file_options(void **state)
{
    (void)state;
    int nt;
    const bot_type *const *all = types(&nt);
    int marked = 0;
    for (int t = 0; t < nt; t++)
        for (int i = 0; i < all[t]->nparams; i++)
            if (all[t]->params[i].kind == BOT_FILE) {
                marked++;
                assert_string_equal(all[t]->name, "evomcts");
                assert_string_equal(all[t]->params[i].name, "eval");
            }
    assert_int_equal(marked, 1);
    int nc;
    const bot_param *common = bot_common_params(&nc);
    for (int i = 0; i < nc; i++)
        assert_int_not_equal(common[i].kind, BOT_FILE);

    static const struct {
        const char *spec;
        int want;
    } cases[] = {
        {"evomcts:eval=/etc/passwd", 1},
        {"evomcts:sims=20,eval=x.txt,pbf=2", 1},
        {"evomcts:pbf=2,eval=/no/such", 1},
        {"evomcts", 0},
        {"evomcts:pbf=2", 0},
        {"evomcts:", 0},
        {"mcts:sims=5", 0},
        {"random", 0},
        {"no-such-bot:eval=/etc/passwd", 0}, /* unknown: refused later, nothing read */
        {"mcts:eval=/etc/passwd", 0},        /* no such option: refused later */
        {"evomcts:evaluation=/etc/passwd", 0},
        {"", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char opt[64] = "?";
        int got = bot_spec_reads_file(cases[i].spec, opt, sizeof opt);
        if (got != cases[i].want)
            fail_msg("'%s': %d, want %d", cases[i].spec, got, cases[i].want);
        if (got)
            assert_string_equal(opt, "eval");
    }
    assert_int_equal(bot_spec_reads_file(NULL, NULL, 0), 0);
    char small[3];
    assert_int_equal(bot_spec_reads_file("evomcts:eval=f", small, sizeof small), 1);
    assert_string_equal(small, "ev");
}

/* ---- whole turns (bot_choose_turn) ------------------------------------------- */

/* Every game, whole turns chosen by random and a short MCTS: each is all of
 * the seat's decisions (eng_turn_check takes it), the copy ends after it, a
 * deadline already past or a raised stop flag still gives a legal turn. */
static void test_choose_turn(void **state)
{
    (void)state;
    int ng;
    const eng_game *const *games = eng_games(&ng);
    static const char *const specs[] = {"random", "mcts:sims=30"};
    for (int gi = 0; gi < ng; gi++) {
        const eng_game *g = games[gi];
        eng_rules r;
        rules_for(g, g->default_players, &r);
        void *st = malloc(g->state_size), *work = malloc(g->state_size),
             *chk = malloc(g->state_size);
        assert_true(st && work && chk);
        for (size_t si = 0; si < sizeof specs / sizeof specs[0]; si++) {
            char err[256];
            bot *b = bot_create(specs[si], g, 7 + gi, err, sizeof err);
            if (!b)
                fail_msg("bot_create(%s, %s): %s", specs[si], g->name, err);
            assert_int_equal(eng_init(g, st, &r, err, sizeof err), 0);
            eng_rng rng;
            eng_rng_seed(&rng, 11 + gi);
            atomic_bool stop = false;
            int turns = 0, decisions = 0;
            while (g->current_player(st) != ENG_TERMINAL) {
                if (g->current_player(st) == ENG_CHANCE) {
                    eng_move m = eng_sample_chance(g, st, &rng);
                    bot_observe(b, st, m);
                    g->apply(st, m);
                    continue;
                }
                /* every third turn: a deadline already past; every fifth: stopped */
                double end = bot_now_ms() + (turns % 3 == 2 ? -1000.0 : 5000.0);
                atomic_store(&stop, turns % 5 == 4);
                memcpy(work, st, g->state_size);
                bot_turn t;
                int rc = bot_choose_turn(b, work, end, &stop, &t);
                if (rc != 0 || t.illegal || t.n < 1 || t.n > g->turn_decisions)
                    fail_msg("%s %s turn %d: rc %d, %d decisions", g->name, specs[si], turns, rc,
                             t.n);
                if (eng_turn_check(g, st, t.moves, t.n, chk, err, sizeof err) != 0)
                    fail_msg("%s %s turn %d: not a whole legal turn: %s", g->name, specs[si], turns,
                             err);
                assert_memory_equal(chk, work, g->state_size);
                assert_true(t.first_budget_ms >= 1);
                if (si == 1) /* the spec's sims= caps each decision, summed over the turn */
                    assert_true(t.stats.sims <= 30 * (int64_t)t.n);
                for (int i = 0; i < t.n; i++) {
                    bot_observe(b, st, t.moves[i]);
                    g->apply(st, t.moves[i]);
                }
                turns++;
                decisions += t.n;
            }
            print_message("      %-14s %-13s %d turns, %d decisions\n", g->name, specs[si], turns,
                          decisions);
            bot_destroy(b);
        }
        free(st);
        free(work);
        free(chk);
    }
}

/* ---- the turn's next decision without a plan (mcts:unplanned=) --------------- */

/* Carcassonne with 2 simulations a turn: the placement played has one visit,
 * so the search has no meeple child for it. unplanned=first plays the first
 * legal meeple move (no meeple) without simulating, as Alg. 5 of Müller's
 * thesis returns the placement's best child; unplanned=search (the default)
 * searches the meeple on its own. */
static void test_unplanned(void **state)
{
    (void)state;
    const eng_game *g = eng_find_game("carcassonne");
    eng_rules r;
    rules_for(g, 2, &r);
    void *st = malloc(g->state_size), *after = malloc(g->state_size);
    eng_move *moves = malloc(sizeof(eng_move) * (size_t)g->max_moves);
    assert_true(st && after && moves);
    char err[256];
    bot *first = bot_create("mcts:sims=2,unplanned=first", g, 3, err, sizeof err);
    bot *search = bot_create("mcts:sims=2", g, 3, err, sizeof err);
    assert_non_null(first);
    assert_non_null(search);
    assert_null(bot_create("mcts:unplanned=later", g, 3, err, sizeof err));
    assert_non_null(strstr(err, "unplanned"));
    assert_int_equal(eng_init(g, st, &r, err, sizeof err), 0);
    eng_rng rng;
    eng_rng_seed(&rng, 5);
    int checked = 0;
    while (g->current_player(st) != ENG_TERMINAL && checked < 12) {
        int p = g->current_player(st);
        if (p == ENG_CHANCE) {
            g->apply(st, eng_sample_chance(g, st, &rng));
            continue;
        }
        int nplace = g->legal_moves(st, moves);
        if (nplace >= 3) {
            bot *bs[2] = {first, search};
            for (int k = 0; k < 2; k++) {
                bot_stats stats;
                eng_move m = bot_choose(bs[k], st, NULL, &stats);
                assert_int_equal(stats.sims, 2);
                memcpy(after, st, g->state_size);
                g->apply(after, m);
                if (g->current_player(after) != p || g->legal_moves(after, moves) < 2) {
                    k = 2; /* no meeple choice after this placement */
                    break;
                }
                m = bot_choose(bs[k], after, NULL, &stats);
                if (k == 0) { /* read from the tree: nothing searched, the first move */
                    assert_int_equal(stats.sims, 0);
                    assert_int_equal(m, moves[0]);
                    checked++;
                } else { /* a search of its own */
                    assert_int_equal(stats.sims, 2);
                }
            }
        }
        /* the game goes on by random moves; no plan or tree is kept */
        bot_reset(first);
        bot_reset(search);
        g->apply(st, eng_random_move(g, st, &rng));
    }
    assert_int_equal(checked, 12);
    bot_destroy(first);
    bot_destroy(search);
    free(st);
    free(after);
    free(moves);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);               /* keep the log if CTest kills a hung run */
    if (argc > 2 && strcmp(argv[1], "--only") == 0) /* e.g. --only "test_stop*" */
        cmocka_set_test_filter(argv[2]);
    if (argc > 1 && strcmp(argv[1], "--strength") == 0) {
        const struct CMUnitTest strong[] = {
            cmocka_unit_test(test_strength_mcts_vs_random),
        };
        return cmocka_run_group_tests(strong, NULL, NULL);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registry),      cmocka_unit_test(test_opt_unknown_aborts),
        cmocka_unit_test(test_bad_specs),     cmocka_unit_test(test_legal_every_game),
        cmocka_unit_test(test_deterministic), cmocka_unit_test(test_stop_flag),
        cmocka_unit_test(test_ms_budget),     cmocka_unit_test(test_file_options),
        cmocka_unit_test(test_choose_turn),   cmocka_unit_test(test_unplanned),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
