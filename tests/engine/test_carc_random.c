/*
 * test_carc_random.c — invariants of the Carcassonne engine over many seeded
 * random games (10,000 for each of 2, 3, 4 and 5 players by default).
 *
 * Every game is played with the uniform random policy (eng_sample_chance,
 * eng_random_move) and checked at every ply:
 *   - the move or chance outcome the policy picks is legal (eng_is_legal);
 *   - meeples are conserved: in hand + on the board == 7 for every player;
 *   - no score ever decreases;
 *   - the game ends within max_plies;
 *   - carc_check(): the quick check, and in one game in 16 the deep one;
 * and at the end:
 *   - the bag is empty and there were exactly 71 draws, discards included;
 *   - the final scores are at least the running scores;
 *   - determinism and copies: the game is replayed from the same seed, and
 *     every few plies (at a different offset in each game) the replay moves
 *     to a fresh eng_copy() of its state and continues there; the replay
 *     starts from a buffer filled with garbage, must pick the identical
 *     moves and end in a state byte-identical (memcmp) to the original;
 *   - once over, the scores equal carc_virtual_scores() and the returns
 *     give 1 to the winners, split evenly.
 * Most games use the current rules; some use tiny_city=2 and/or farms=false.
 * Every ply also checks the move list itself (within max_moves, no
 * duplicates; at a draw, outcomes from the bag with probabilities summing
 * to 1; in one game in 8, each placement's meeple options from
 * carc_meeple_options_for() equal those after applying it), and a first
 * test checks that the policy's fast paths are uniform.
 *
 * Seeded random games are also fixed: a digest of every legal-move list,
 * every move, every meeple list after each turn and the final scores of
 * 900 seeded games (2, 4, 5 players; 3 with the old rules) must equal the
 * one recorded from the engine as it was before its speed-up of 2026-12
 * (issue 26), so a faster engine plays the same games, move for move, as
 * records, benchmarks and bots have always seen them.
 *
 * Usage: test_carc_random [--games N] [--seed S]
 *   --games N: games per player count (default 10,000); the environment
 *   variable TESSERA_CARC_GAMES=N does the same (e.g. for a quick ASan run);
 *   under TESSERA_SANITIZED=1 the default is SANITIZED_GAMES.
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

#include "engine/carcassonne/carcassonne.h"

#define COPY_EVERY 7  /* the replay moves to a copy of its state every this many plies */
#define DEEP_EVERY 16 /* one game in this many checks carc_check(deep) at every ply */
/* games per player count under the sanitizers (TESSERA_SANITIZED=1, as the
 * test script's second pass sets it): the checks made every ply cost ASan
 * about 2.7x the old run's CPU at 10,000 (248 s against 90 s), past what its
 * 600 s timeout allows on a loaded machine; a quarter still walks every code
 * path many times over, and the release pass plays the full count */
#define SANITIZED_GAMES 2500

static int g_games = 10000;
static uint64_t g_seed = 0x7e55e7a;

static void check_fail(int players, int game, int ply, const char *what)
{
    fail_msg("players=%d game=%d ply=%d seed=%llu: %s", players, game, ply,
             (unsigned long long)g_seed, what);
}

#define CHECK(cond, what)                           \
    do {                                            \
        if (!(cond))                                \
            check_fail(players, gi, plies, what);   \
    } while (0)

static void rules_for(int players, int gi, eng_rules *r)
{
    eng_rules_default(&carc_game, r);
    r->players = players;
    if (gi % 5 == 3)
        r->opt[CARC_OPT_TINY_CITY] = 2;
    if (gi % 7 == 5)
        r->opt[CARC_OPT_FARMS] = 0;
}

/* The seat-to-move's policy: a sampled draw or a uniform legal move. */
static eng_move policy(const carc_state *s, eng_rng *rng)
{
    if (carc_game.current_player(s) == ENG_CHANCE)
        return eng_sample_chance(&carc_game, s, rng);
    return eng_random_move(&carc_game, s, rng);
}

/* The moves (or outcomes) now: within the declared maximum, no duplicates,
 * none at a chance node and probabilities summing to 1 there. */
static void check_move_list(const carc_state *s, int players, int gi, int plies)
{
    static uint32_t stamp[CARC_NO_MEEPLE + 1], now;
    eng_move buf[CARC_MAX_MOVES];
    double prob[CARC_NTYPES];
    now++;
    if (carc_game.current_player(s) == ENG_CHANCE) {
        int n = carc_game.chance_outcomes(s, buf, prob);
        double sum = 0;
        CHECK(n >= 1 && n <= carc_game.max_chance, "chance outcomes out of range");
        CHECK(carc_game.legal_moves(s, buf + n) == 0, "legal moves at a chance node");
        for (int i = 0; i < n; i++) {
            CHECK(buf[i] >= 0 && buf[i] < CARC_NTYPES && s->bag[buf[i]] > 0, "bad outcome");
            CHECK(stamp[buf[i]] != now, "duplicate outcome");
            stamp[buf[i]] = now;
            sum += prob[i];
        }
        CHECK(sum > 1 - 1e-9 && sum < 1 + 1e-9, "outcome probabilities do not sum to 1");
        return;
    }
    int n = carc_game.legal_moves(s, buf);
    CHECK(n >= 1 && n <= carc_game.max_moves, "legal move count out of range");
    for (int i = 0; i < n; i++) {
        CHECK(buf[i] >= 0 && buf[i] <= CARC_NO_MEEPLE, "move out of range");
        CHECK(stamp[buf[i]] != now, "duplicate legal move");
        stamp[buf[i]] = now;
    }
    /* one game in 8: the meeple options of each placement, computed without
     * applying it (what the wire's `legal` uses), equal those after applying it */
    if (s->phase == CARC_PLACE && gi % 8 == 0) {
        static carc_state t;
        for (int i = 0; i < n; i++) {
            uint8_t fast[CARC_MAX_SEGS];
            eng_move after[CARC_MAX_SEGS + 1];
            int k = carc_meeple_options_for(s, buf[i], fast);
            memcpy(&t, s, sizeof t);
            carc_game.apply(&t, buf[i]);
            int m = carc_game.legal_moves(&t, after);
            CHECK(m == k + 1, "meeple options without applying: a different count");
            for (int j = 0; j < k; j++)
                CHECK(after[j + 1] == CARC_MEEPLE0 + fast[j],
                      "meeple options without applying: a different feature");
        }
    }
}

typedef struct totals {
    long games, plies, discards, points;
} totals;

static void play_and_check(int players, int gi, totals *tot)
{
    static carc_state s, a, b;
    static eng_move moves[1024];
    eng_rules r;
    char err[128];
    int plies = 0;
    rules_for(players, gi, &r);
    memset(&s, 0, sizeof s);
    CHECK(eng_init(&carc_game, &s, &r, err, sizeof err) == 0, "eng_init");
    CHECK(carc_game.max_plies <= (int)(sizeof moves / sizeof moves[0]), "max_plies too big");

    eng_rng rng;
    eng_rng_seed_stream(&rng, g_seed + (uint64_t)players, (uint64_t)gi);
    int16_t last[ENG_MAX_PLAYERS] = {0};
    int draws = 0;
    while (carc_game.current_player(&s) != ENG_TERMINAL) {
        CHECK(plies < carc_game.max_plies, "the game runs past max_plies");
        bool chance = carc_game.current_player(&s) == ENG_CHANCE;
        check_move_list(&s, players, gi, plies);
        eng_move m = policy(&s, &rng);
        CHECK(eng_is_legal(&carc_game, &s, m), "the policy picked an illegal move");
        carc_game.apply(&s, m);
        moves[plies++] = m;
        draws += chance;
        /* the state's invariants: the quick check always, the deep one at
         * every ply of one game in DEEP_EVERY */
        if (carc_check(&s, gi % DEEP_EVERY == 0, err, sizeof err) != 0)
            check_fail(players, gi, plies, err);

        int on_board[ENG_MAX_PLAYERS] = {0};
        for (int i = 0; i < s.nmeeples; i++) {
            CHECK(s.meeple[i].player < players, "meeple of a bad player");
            on_board[s.meeple[i].player]++;
        }
        for (int p = 0; p < players; p++) {
            CHECK(s.supply[p] + on_board[p] == CARC_MEEPLES, "meeples not conserved");
            CHECK(s.score[p] >= last[p], "a score decreased");
            last[p] = s.score[p];
        }
    }
    CHECK(s.bag_n == 0, "the game ended with tiles in the bag");
    CHECK(draws == 71 && s.turns == 71, "not 71 draws");
    CHECK(s.phase == CARC_OVER, "terminal but not over");
    double fin[ENG_MAX_PLAYERS], ret[ENG_MAX_PLAYERS], best = 0, sum = 0;
    int virt[ENG_MAX_PLAYERS], winners = 0;
    carc_game.scores(&s, fin);
    carc_game.returns(&s, ret);
    carc_virtual_scores(&s, virt);
    for (int p = 0; p < players; p++) {
        CHECK(fin[p] >= last[p], "final score below the running score");
        CHECK(fin[p] == virt[p], "final score differs from the virtual score");
        best = fin[p] > best ? fin[p] : best;
        tot->points += (long)fin[p];
    }
    for (int p = 0; p < players; p++)
        winners += fin[p] == best;
    for (int p = 0; p < players; p++) {
        double want = fin[p] == best ? 1.0 / winners : 0.0;
        CHECK(ret[p] > want - 1e-9 && ret[p] < want + 1e-9, "returns do not match the scores");
        sum += ret[p];
    }
    CHECK(sum > 1 - 1e-9 && sum < 1 + 1e-9, "returns do not sum to 1");

    /* replay, hopping to a fresh copy every few plies */
    carc_state *cur = &a, *other = &b;
    memset(cur, 0xa5, sizeof *cur); /* init must not depend on what the buffer held */
    CHECK(eng_init(&carc_game, cur, &r, err, sizeof err) == 0, "eng_init (replay)");
    eng_rng_seed_stream(&rng, g_seed + (uint64_t)players, (uint64_t)gi);
    int n = plies;
    for (plies = 0; carc_game.current_player(cur) != ENG_TERMINAL; plies++) {
        CHECK(plies < n, "the replay runs longer");
        if ((plies + gi) % COPY_EVERY == 0) {
            eng_copy(&carc_game, other, cur);
            carc_state *t = cur;
            cur = other;
            other = t;
            memset(other, 0xa5, sizeof *other); /* the old state is gone */
        }
        eng_move m = policy(cur, &rng);
        CHECK(m == moves[plies], "the replay picked another move");
        carc_game.apply(cur, m);
    }
    CHECK(plies == n, "the replay ended early");
    CHECK(memcmp(cur, &s, sizeof s) == 0, "the replay ended in another state");

    tot->games++;
    tot->plies += n;
    tot->discards += s.discards;
}

/* The fast paths of the policy are uniform: eng_random_move over the legal
 * moves, eng_sample_chance in proportion to the bag. Checked with a
 * chi-square statistic at the decisions of a few games (fixed seeds, so the
 * outcome is deterministic; the bound is about 6 standard deviations). */
static void test_policy_uniform(void **state)
{
    (void)state;
    static carc_state s;
    static long count[CARC_NO_MEEPLE + 1];
    eng_move buf[CARC_MAX_MOVES];
    double prob[CARC_NTYPES];
    eng_rules r;
    char err[128];
    eng_rng play, sample;
    eng_rng_seed(&sample, 12345);
    int tested = 0;
    for (int gi = 0; gi < 3; gi++) {
        eng_rules_default(&carc_game, &r);
        r.players = 2 + gi;
        assert_int_equal(eng_init(&carc_game, &s, &r, err, sizeof err), 0);
        eng_rng_seed(&play, 777 + (uint64_t)gi);
        for (int ply = 0; carc_game.current_player(&s) != ENG_TERMINAL; ply++) {
            bool chance = carc_game.current_player(&s) == ENG_CHANCE;
            int n = chance ? carc_game.chance_outcomes(&s, buf, prob)
                           : carc_game.legal_moves(&s, buf);
            if (ply % 7 == 0 && n > 1) {
                long samples = 200L * n;
                for (int i = 0; i < n; i++)
                    count[buf[i]] = 0;
                for (long k = 0; k < samples; k++) {
                    eng_move m = chance ? eng_sample_chance(&carc_game, &s, &sample)
                                        : eng_random_move(&carc_game, &s, &sample);
                    assert_true(m >= 0 && m <= CARC_NO_MEEPLE);
                    count[m]++;
                }
                double chi2 = 0;
                long seen = 0;
                for (int i = 0; i < n; i++) {
                    double want = chance ? prob[i] * (double)samples : (double)samples / n;
                    chi2 += ((double)count[buf[i]] - want) * ((double)count[buf[i]] - want) / want;
                    seen += count[buf[i]];
                }
                assert_int_equal(seen, samples); /* never a move outside the list */
                double bound = (n - 1) + 6.0 * sqrt(2.0 * (n - 1)) + 10.0;
                if (chi2 > bound)
                    fail_msg("ply %d (%s, %d choices): chi2 %.1f > %.1f", ply,
                             chance ? "draw" : "move", n, chi2, bound);
                tested++;
            }
            eng_move m = chance ? eng_sample_chance(&carc_game, &s, &play)
                                : eng_random_move(&carc_game, &s, &play);
            carc_game.apply(&s, m);
        }
    }
    print_message("uniformity checked at %d decisions\n", tested);
    assert_true(tested > 60);
}

/* carc_check() finds each kind of damage to a mid-game state: a good
 * state passes, and each single change fails it (deep; the quick check
 * where it reads that part). */
static void test_check_catches_damage(void **state)
{
    (void)state;
    static carc_state good, s;
    eng_rules r;
    eng_rules_default(&carc_game, &r);
    carc_game.init(&good, &r);
    eng_rng rng;
    eng_rng_seed(&rng, 77);
    /* 40 turns in, at a draw, with meeples, fields and cloisters about */
    while (good.turns < 40 || good.phase != CARC_DRAW)
        carc_game.apply(&good, good.phase == CARC_DRAW ? eng_sample_chance(&carc_game, &good, &rng)
                                                        : eng_random_move(&carc_game, &good, &rng));
    char why[256];
    assert_int_equal(carc_check(&good, true, why, sizeof why), 0);
    assert_true(good.nmeeples > 0 && good.nopen > 2 && good.nnodes > 40);
    int root = -1, member = -1; /* a road or city of two segments or more */
    for (int n = 0; n < good.nnodes && member < 0; n++)
        if (good.par[n] != n && (good.kind[n] == CARC_CITY || good.kind[n] == CARC_ROAD)) {
            member = n;
            root = good.par[n];
        }
    assert_true(member >= 0);
    struct {
        const char *what;
        bool quick; /* the quick check sees it too */
    } cases[] = {
        {"a tile in the bag more", true},
        {"a meeple lost", true},
        {"a segment pointing at a non-root", false},
        {"an open cell's grid byte", false},
        {"a placement count", false},
        {"a root's open sides", false},
        {"a root's meeple count", false},
        {"a feature's size", false},
        {"a tile's grid byte", false},
        {"a cloister lane left behind", true},
    };
    for (int c = 0; c < (int)(sizeof cases / sizeof cases[0]); c++) {
        s = good;
        switch (c) {
        case 0: s.bag[3]++; break;
        case 1: s.supply[0]--; break;
        case 2: s.par[member] = (uint8_t)member; break;
        case 3: s.grid[s.opens[1].cell] = (uint8_t)(CARC_CELL_OPEN0 + 0); break;
        case 4: s.nfit[5]++; break;
        case 5: s.open[root]++; break;
        case 6: s.mee[s.par[s.meeple[0].node]]++; break;
        case 7: s.size[root]++; break;
        case 8: s.grid[s.placed[3].cell] = 0; break;
        case 9: s.cloister_x[CARC_CLOISTER_LANES - 1] = 0; break;
        }
        if (carc_check(&s, true, why, sizeof why) == 0)
            fail_msg("the deep check missed %s", cases[c].what);
        if (cases[c].quick && carc_check(&s, false, why, sizeof why) == 0)
            fail_msg("the quick check missed %s", cases[c].what);
    }
}

/* FNV-1a over everything a seeded random game shows. */
typedef struct fnv {
    uint64_t h;
} fnv;

static void fnv_add(fnv *f, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        f->h ^= b[i];
        f->h *= 1099511628211ULL;
    }
}

static void fnv_int(fnv *f, long v)
{
    int32_t x = (int32_t)v;
    fnv_add(f, &x, sizeof x);
}

static uint64_t seeded_games_digest(int players, int tiny, int farms, int games)
{
    eng_rules r;
    eng_rules_default(&carc_game, &r);
    r.players = players;
    r.opt[CARC_OPT_TINY_CITY] = tiny;
    r.opt[CARC_OPT_FARMS] = farms;
    fnv f = {1469598103934665603ULL};
    carc_state s;
    eng_move mv[CARC_MAX_MOVES];
    for (int gi = 0; gi < games; gi++) {
        eng_rng rng;
        eng_rng_seed_stream(&rng, 0x5eed, (uint64_t)gi);
        carc_game.init(&s, &r);
        for (int p; (p = carc_game.current_player(&s)) != ENG_TERMINAL;) {
            eng_move m;
            if (p == ENG_CHANCE) {
                m = eng_sample_chance(&carc_game, &s, &rng);
            } else {
                int n = carc_game.legal_moves(&s, mv);
                fnv_int(&f, n);
                for (int i = 0; i < n; i++)
                    fnv_int(&f, mv[i]);
                m = eng_random_move(&carc_game, &s, &rng);
            }
            fnv_int(&f, m);
            carc_game.apply(&s, m);
            if (s.phase == CARC_DRAW || s.phase == CARC_OVER)
                for (int i = 0; i < s.nmeeples; i++) {
                    fnv_int(&f, s.meeple[i].node);
                    fnv_int(&f, s.meeple[i].player);
                }
        }
        for (int i = 0; i < players; i++)
            fnv_int(&f, s.score[i]);
    }
    return f.h;
}

static void test_seeded_games_fixed(void **state)
{
    (void)state;
    /* recorded from the engine before the speed-up (issue 26) */
    assert_int_equal(seeded_games_digest(2, 4, 1, 300), 0x18212f620ca7915eULL);
    assert_int_equal(seeded_games_digest(4, 4, 1, 300), 0x20703b7cb5fc100aULL);
    assert_int_equal(seeded_games_digest(5, 4, 1, 100), 0x82f8604c67e25240ULL);
    assert_int_equal(seeded_games_digest(3, 2, 0, 200), 0xfbfdcf6c2fa24fccULL);
}

static void run_players(void **state)
{
    int players = (int)(intptr_t)*state;
    totals tot = {0};
    clock_t t0 = clock();
    for (int gi = 0; gi < g_games; gi++)
        play_and_check(players, gi, &tot);
    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    print_message("%d players: %ld games, %ld plies, %ld discards, mean %.1f points per player, "
                  "%.2f s\n",
                  players, tot.games, tot.plies, tot.discards,
                  tot.games ? (double)tot.points / ((double)tot.games * players) : 0.0, secs);
    assert_int_equal(tot.games, g_games);
}

int main(int argc, char **argv)
{
    const char *env = getenv("TESSERA_CARC_GAMES"); /* the command line wins */
    if (env)
        g_games = atoi(env);
    else if (getenv("TESSERA_SANITIZED"))
        g_games = SANITIZED_GAMES;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--games") == 0 && i + 1 < argc) {
            g_games = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            g_seed = strtoull(argv[++i], NULL, 0);
        } else {
            fprintf(stderr, "usage: %s [--games N] [--seed S]\n", argv[0]);
            return 2;
        }
    }
    if (sizeof(carc_state) != carc_game.state_size) {
        fprintf(stderr, "carc_state is %zu bytes, the game declares %zu\n", sizeof(carc_state),
                carc_game.state_size);
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_policy_uniform),
        cmocka_unit_test(test_seeded_games_fixed),
        cmocka_unit_test(test_check_catches_damage),
        cmocka_unit_test_prestate(run_players, (void *)(intptr_t)2),
        cmocka_unit_test_prestate(run_players, (void *)(intptr_t)3),
        cmocka_unit_test_prestate(run_players, (void *)(intptr_t)4),
        cmocka_unit_test_prestate(run_players, (void *)(intptr_t)5),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
