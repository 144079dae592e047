/*
 * test_mcts_d2.c — the `mcts-d2` bot (bots/mcts_d2.c) on hand-built
 * positions, and the strength bar of plain `mcts` on the new games.
 *
 *   - Pentago-Twist: with a five available, mcts-d2 plays a winning move
 *     even with one simulation; facing an open four it plays a move after
 *     which no reply wins (checked by brute force over every reply), where
 *     such a move exists; when every move loses it still returns a legal one;
 *   - Dodgem: it never hands the opponent the win by leaving it without a
 *     move, when another move exists;
 *   - with d2_nodes=0 it plays exactly the games `mcts` plays (same seeds);
 *   - `--strength` (its own CTest test): mcts:sims=1000 wins at least 95% of
 *     60 games against random in Dodgem 5x5 and in Pentago-Twist.
 * The generic suite (tests/bots/test_bots.c) covers legality, determinism,
 * budgets and specs of mcts-d2 in every game.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bots/bot.h"
#include "engine/dodgem/dodgem.h"
#include "engine/pentago/pentago.h"

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

static bot *make(const char *spec, const eng_game *g, uint64_t seed)
{
    char err[256] = "";
    bot *b = bot_create(spec, g, seed, err, sizeof err);
    if (!b)
        fail_msg("bot_create(%s): %s", spec, err);
    return b;
}

static void pt_from(pt_state *s, const char *const rows[6], int to_move)
{
    eng_rules r;
    eng_rules_default(&pt_game, &r);
    pt_game.init(s, &r);
    for (int y = 0; y < 6; y++)
        for (int x = 0; x < 6; x++) {
            if (rows[y][x] == 'W')
                s->stone[0] |= 1ULL << (y * 6 + x);
            else if (rows[y][x] == 'B')
                s->stone[1] |= 1ULL << (y * 6 + x);
        }
    s->plies = (uint8_t)__builtin_popcountll(s->stone[0] | s->stone[1]);
    s->to_move = (uint8_t)to_move;
}

/* Can the seat to move in s win with one move? */
static bool can_win_now(const pt_state *s)
{
    eng_move mv[288];
    int n = pt_game.legal_moves(s, mv), me = s->to_move;
    for (int i = 0; i < n; i++) {
        pt_state c = *s;
        pt_game.apply(&c, mv[i]);
        if (c.result == me)
            return true;
    }
    return false;
}

static void test_pentago_takes_the_win(void **unused)
{
    (void)unused;
    /* White (to move) has four in row 0; Black has four in row 5 too */
    static const char *const rows[6] = {
        "WWWW..", "......", "..B...", "......", "......", "BBBB..",
    };
    pt_state s;
    pt_from(&s, rows, PT_WHITE);
    for (int seed = 1; seed <= 5; seed++) {
        bot *b = make("mcts-d2:sims=1", &pt_game, (uint64_t)seed);
        bot_stats st;
        eng_move m = bot_choose(b, &s, NULL, &st);
        pt_state c = s;
        assert_true(eng_is_legal(&pt_game, &s, m));
        pt_game.apply(&c, m);
        if (c.result != PT_WHITE)
            fail_msg("seed %d: mcts-d2 missed the win (%s)", seed, st.info);
        assert_non_null(strstr(st.info, "winning move"));
        /* played at once, and valued as the win it is (the analysis reads
         * these: a value of 0 there called a won position even) */
        int me = pt_game.current_player(&s);
        assert_int_equal(st.nvalues, 2);
        assert_true(st.value > 0);
        assert_true(st.value == st.values[me]);
        assert_true(st.values[1 - me] < 0);
        bot_destroy(b);
    }
}

static void test_pentago_blocks(void **unused)
{
    (void)unused;
    /* Black has four in row 5 (x 0..3), White cannot win now: most White
     * moves let Black complete five; mcts-d2 must pick one that does not. */
    static const char *const rows[6] = {
        "W.....", "...W..", "......", ".W....", "....W.", "BBBB..",
    };
    pt_state s;
    pt_from(&s, rows, PT_WHITE);
    assert_false(can_win_now(&s));
    eng_move mv[288];
    int n = pt_game.legal_moves(&s, mv), safe = 0;
    for (int i = 0; i < n; i++) {
        pt_state c = s;
        pt_game.apply(&c, mv[i]);
        safe += c.result == PT_PLAYING && !can_win_now(&c);
    }
    print_message("      %d of %d White moves leave Black no immediate win\n", safe, n);
    assert_true(safe > 0 && safe < n);
    for (int seed = 1; seed <= 5; seed++) {
        bot *b = make("mcts-d2:sims=50", &pt_game, (uint64_t)seed);
        bot_stats st;
        eng_move m = bot_choose(b, &s, NULL, &st);
        pt_state c = s;
        pt_game.apply(&c, m);
        if (can_win_now(&c))
            fail_msg("seed %d: mcts-d2 let Black win (%s)", seed, st.info);
        bot_destroy(b);
    }
    /* plain MCTS with the same tiny budget misses the threat at least once */
    int missed = 0;
    for (int seed = 1; seed <= 5; seed++) {
        bot *b = make("mcts:sims=50", &pt_game, (uint64_t)seed);
        eng_move m = bot_choose(b, &s, NULL, NULL);
        pt_state c = s;
        pt_game.apply(&c, m);
        missed += can_win_now(&c);
        bot_destroy(b);
    }
    print_message("      mcts:sims=50 let Black win in %d of 5 tries\n", missed);
    assert_true(missed > 0);
}

static void test_pentago_all_lose(void **unused)
{
    (void)unused;
    /* A position from a random game (seed 116, 20 plies) where Black wins
     * after every White move: mcts-d2 says so and still plays a legal move. */
    static const char *const rows[6] = {
        "WW...W", "...BWB", "BBWW.B", "BB.BBB", "...W.W", "WW....",
    };
    pt_state s;
    pt_from(&s, rows, PT_WHITE);
    assert_false(can_win_now(&s));
    eng_move mv[288];
    int n = pt_game.legal_moves(&s, mv);
    for (int i = 0; i < n; i++) {
        pt_state c = s;
        pt_game.apply(&c, mv[i]);
        assert_true(c.result == PT_BLACK || (c.result == PT_PLAYING && can_win_now(&c)));
    }
    bot *b = make("mcts-d2:sims=20", &pt_game, 3);
    bot_stats st;
    eng_move m = bot_choose(b, &s, NULL, &st);
    assert_true(eng_is_legal(&pt_game, &s, m));
    assert_non_null(strstr(st.info, "every move loses at once"));
    bot_destroy(b);
}

static void test_dodgem_avoids_the_losing_move(void **unused)
{
    (void)unused;
    /* White's car on (1,0) is boxed in by Black; Black to move. The three
     * moves of the car on (3,3) keep White boxed, which makes White win;
     * every other Black move frees White. */
    static const char *const rows[5] = {
        "BWB..", ".B...", ".....", "...B.", ".....",
    };
    dodgem_state s;
    eng_rules r;
    eng_rules_default(&dodgem_game, &r);
    dodgem_game.init(&s, &r);
    s.car[0] = s.car[1] = 0;
    for (int y = 0; y < 5; y++)
        for (int x = 0; x < 5; x++) {
            if (rows[y][x] == 'B')
                s.car[0] |= 1u << (y * 5 + x);
            else if (rows[y][x] == 'W')
                s.car[1] |= 1u << (y * 5 + x);
        }
    for (int seed = 1; seed <= 8; seed++) {
        bot *b = make("mcts-d2:sims=3", &dodgem_game, (uint64_t)seed);
        bot_stats st;
        eng_move m = bot_choose(b, &s, NULL, &st);
        dodgem_state c = s;
        dodgem_game.apply(&c, m);
        if (c.result == DODGEM_WHITE)
            fail_msg("seed %d: mcts-d2 left White without a move (%s)", seed, st.info);
        assert_non_null(strstr(st.info, "avoided"));
        bot_destroy(b);
    }
}

/* With the check off, mcts-d2 is mcts: the same games for the same seeds. */
static void test_off_is_mcts(void **unused)
{
    (void)unused;
    const eng_game *games[2] = {&pt_game, &dodgem_game};
    for (int k = 0; k < 2; k++) {
        const eng_game *g = games[k];
        eng_move line[2][1000];
        int len[2];
        for (int v = 0; v < 2; v++) {
            bot *b = make(v ? "mcts-d2:sims=30,d2_nodes=0" : "mcts:sims=30", g, 77);
            unsigned char st[256];
            assert_true(g->state_size <= sizeof st);
            eng_rules r;
            eng_rules_default(g, &r);
            g->init(st, &r);
            len[v] = 0;
            while (g->current_player(st) >= 0) {
                eng_move m = bot_choose(b, st, NULL, NULL);
                bot_observe(b, st, m);
                g->apply(st, m);
                line[v][len[v]++] = m;
            }
            bot_destroy(b);
        }
        assert_int_equal(len[0], len[1]);
        assert_memory_equal(line[0], line[1], (size_t)len[0] * sizeof(eng_move));
    }
}

/* ---- strength: mcts against random on the new games -------------------------------- */

static void duel(const eng_game *g, const char *a, const char *b, int games, int *wins, int *draws)
{
    *wins = *draws = 0;
    for (int n = 0; n < games; n++) {
        int a_seat = n % 2;
        bot *bots[2];
        bots[a_seat] = make(a, g, 1000 + 2 * (uint64_t)n);
        bots[1 - a_seat] = make(b, g, 1001 + 2 * (uint64_t)n);
        unsigned char st[256];
        eng_rules r;
        eng_rules_default(g, &r);
        g->init(st, &r);
        while (g->current_player(st) >= 0) {
            eng_move m = bot_choose(bots[g->current_player(st)], st, NULL, NULL);
            for (int s = 0; s < 2; s++)
                bot_observe(bots[s], st, m);
            g->apply(st, m);
        }
        double ret[2];
        g->returns(st, ret);
        *wins += ret[a_seat] == 1.0;
        *draws += ret[a_seat] == 0.5;
        bot_destroy(bots[0]);
        bot_destroy(bots[1]);
    }
}

static void test_strength(void **unused)
{
    (void)unused;
    int games = SANITIZED ? 10 : 60, need = SANITIZED ? 9 : 57;
    const eng_game *list[2] = {&dodgem_game, &pt_game};
    for (int k = 0; k < 2; k++) {
        int w, d;
        double t0 = bot_now_ms();
        duel(list[k], "mcts:sims=1000", "random", games, &w, &d);
        print_message("      %s: mcts:sims=1000 vs random: %d wins, %d draws, %d losses of %d "
                      "(%.1f s)\n",
                      list[k]->name, w, d, games - w - d, games, (bot_now_ms() - t0) / 1000);
        if (w < need)
            fail_msg("%s: mcts won %d of %d against random; %d required", list[k]->name, w, games,
                     need);
    }
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc > 1 && strcmp(argv[1], "--strength") == 0) {
        const struct CMUnitTest strength[] = {cmocka_unit_test(test_strength)};
        return cmocka_run_group_tests(strength, NULL, NULL);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pentago_takes_the_win),
        cmocka_unit_test(test_pentago_blocks),
        cmocka_unit_test(test_pentago_all_lose),
        cmocka_unit_test(test_dodgem_avoids_the_losing_move),
        cmocka_unit_test(test_off_is_mcts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
