/*
 * test_heuristic.c — Carcassonne's rate_moves (engine/carcassonne/
 * heuristic.c) and the `heuristic` bot (bots/heuristic.c).
 *
 *   - preferences on hand-built boards: completing an own city beats every
 *     other placement; joining an opponent's city rates below a neutral
 *     placement; a cloister with eight neighbours is the best spot; the
 *     meeple step prefers the feature that completes now; as meeples run
 *     out, meeple options stop being preferred, and with none left a
 *     placement's rating carries no meeple value;
 *   - the no-apply prediction of every merged feature (tiles, open sides,
 *     pennants, meeples per player, completion, cities a field touches,
 *     neighbouring cloisters) equals the real merge after applying the
 *     placement on a copy — checked for every placement of many positions
 *     against an independent reading of the state written here, and against
 *     the engine's own carc_feature_value();
 *   - the placement rating equals the best meeple-step rating after the
 *     placement (the two steps value alike);
 *   - the bot: only legal moves, eps= parsed and used, works on a game
 *     without rate_moves (Reversi, generic fallback), and beats random in at
 *     least 95% of 200 two-player Carcassonne games with a far higher mean.
 *
 * Usage: test_heuristic            the CTest suite
 *        test_heuristic --bench [scale]
 *                                  speed figures (not run by CTest): rate_moves
 *                                  cost per placement, generic fallback for
 *                                  comparison, heuristic-vs-heuristic games/s;
 *                                  scale (default 1) shrinks the run, e.g.
 *                                  0.05 under valgrind
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
#include "engine/carcassonne/carcassonne.h"
#include "engine/carcassonne/heuristic.h"
#include "engine/carcassonne/internal.h"

static const eng_game *G = &carc_game;

/* ---- building boards -------------------------------------------------------- */

static void new_game_rules(carc_state *s, int players, int farms, int tiny)
{
    eng_rules r;
    eng_rules_default(G, &r);
    r.players = players;
    r.opt[CARC_OPT_FARMS] = farms;
    r.opt[CARC_OPT_TINY_CITY] = tiny;
    char err[128];
    assert_int_equal(eng_init(G, s, &r, err, sizeof err), 0);
}

static void new_game(carc_state *s, int players, int farms)
{
    new_game_rules(s, players, farms, 4);
}

static int letter(char c)
{
    int t = carc_type_of_letter(c);
    assert_true(t >= 0);
    return t;
}

static void draw(carc_state *s, char c)
{
    assert_int_equal(G->current_player(s), ENG_CHANCE);
    assert_true(s->bag[letter(c)] > 0);
    G->apply(s, letter(c));
    assert_int_equal(s->phase, CARC_PLACE);
}

static eng_move place_mv(const carc_state *s, int x, int y, int rot)
{
    eng_move m;
    assert_int_equal(carc_place_move(s, x, y, rot, &m), 0);
    return m;
}

static eng_move meeple_mv(const carc_state *s, int port)
{
    eng_move m;
    assert_int_equal(carc_meeple_move(s, port, &m), 0);
    return m;
}

/* One whole turn: draw tile `c`, place it at (x, y, rot), meeple on `port`
 * (-1: none). */
static void turn(carc_state *s, char c, int x, int y, int rot, int port)
{
    draw(s, c);
    G->apply(s, place_mv(s, x, y, rot));
    G->apply(s, meeple_mv(s, port));
}

/* Rate every legal move; returns their number. */
static int rate_all(const carc_state *s, eng_move *mv, double *rate)
{
    int n = G->legal_moves(s, mv);
    assert_non_null(G->rate_moves);
    G->rate_moves(s, mv, n, rate);
    for (int i = 0; i < n; i++)
        assert_true(isfinite(rate[i]));
    return n;
}

static double rate_one(const carc_state *s, eng_move m)
{
    double r;
    G->rate_moves(s, &m, 1, &r);
    return r;
}

/* The rating of m must be strictly above every other legal move's. */
static void assert_unique_best(const carc_state *s, eng_move m)
{
    eng_move mv[CARC_MAX_MOVES];
    double rate[CARC_MAX_MOVES];
    int n = rate_all(s, mv, rate);
    double rm = rate_one(s, m);
    int seen = 0;
    for (int i = 0; i < n; i++) {
        if (mv[i] == m) {
            seen = 1;
            assert_true(rate[i] == rm); /* batch and single calls agree */
            continue;
        }
        if (!(rate[i] < rm)) {
            char a[ENG_MOVE_STR_MAX], b[ENG_MOVE_STR_MAX];
            G->move_to_str(s, mv[i], a, sizeof a);
            G->move_to_str(s, m, b, sizeof b);
            fail_msg("%s rated %g, not below %s rated %g", a, rate[i], b, rm);
        }
    }
    assert_true(seen);
}

/* ---- preferences on hand-built boards -------------------------------------- */

/* P0 owns the start city extended by an N tile: D(0,0) city N + N(0,-1)
 * city S,E, one side open. An E at (1,-1) turned west closes it. */
static void test_complete_own_city_is_best(void **state)
{
    (void)state;
    carc_state s;
    new_game(&s, 2, 1);
    turn(&s, 'N', 0, -1, 2, CARC_S); /* P0: city D+N, meeple on it, open east */
    turn(&s, 'V', 0, 1, 0, -1);      /* P1: a field tile below, no meeple */
    draw(&s, 'E');
    eng_move close = place_mv(&s, 1, -1, 3);
    assert_unique_best(&s, close);
    /* 3-tile city worth 6 now, owned: clearly positive */
    assert_true(rate_one(&s, close) >= 6.0);

    /* same with the old tiny-city rule and no farms: still the best */
    new_game_rules(&s, 2, 0, 2);
    turn(&s, 'N', 0, -1, 2, CARC_S);
    turn(&s, 'V', 0, 1, 0, -1);
    draw(&s, 'E');
    assert_unique_best(&s, place_mv(&s, 1, -1, 3));
}

static void test_opponent_city_below_neutral(void **state)
{
    (void)state;
    carc_state s;
    new_game(&s, 2, 1);
    turn(&s, 'V', 0, 1, 0, -1);      /* P0: neutral */
    turn(&s, 'N', 0, -1, 2, CARC_S); /* P1: owns city D+N, open east */
    draw(&s, 'E');                   /* P0 */
    double close_opp = rate_one(&s, place_mv(&s, 1, -1, 3));
    double neutral = rate_one(&s, place_mv(&s, 0, -2, 0)); /* own new city north */
    assert_true(close_opp < neutral);
    assert_true(close_opp < 0.0);
    /* the best placement is not the one that completes P1's city */
    eng_move mv[CARC_MAX_MOVES];
    double rate[CARC_MAX_MOVES];
    int n = rate_all(&s, mv, rate);
    double best = -1e300;
    for (int i = 0; i < n; i++)
        if (rate[i] > best)
            best = rate[i];
    assert_true(best > close_opp);

    /* extending (not completing) the opponent's city: P1's city with two
     * open sides, P0 draws an R that would join it */
    new_game(&s, 2, 0);
    turn(&s, 'V', 0, 1, 0, -1);
    turn(&s, 'R', 0, -1, 2, CARC_S); /* P1: R turned: city S,W,E; open W and E */
    draw(&s, 'E');
    double extend_opp = rate_one(&s, place_mv(&s, 1, -1, 3));
    double own_new = rate_one(&s, place_mv(&s, 0, -2, 0));
    assert_true(extend_opp < own_new);
}

/* A hole at (0,1) surrounded by eight tiles whose sides facing it are
 * fields: a cloister there completes at once. */
static void build_ring(carc_state *s)
{
    new_game(s, 2, 1);
    turn(s, 'U', 1, 0, 0, -1);
    turn(s, 'U', -1, 0, 0, -1);
    turn(s, 'E', -1, 1, 3, -1);
    turn(s, 'E', 1, 1, 1, -1);
    turn(s, 'E', -1, 2, 3, -1);
    turn(s, 'E', 1, 2, 1, -1);
    turn(s, 'E', 0, 2, 2, -1);
    turn(s, 'V', 2, 0, 1, -1); /* P1's turn: now P0 draws */
}

static void test_cloister_with_eight_neighbours(void **state)
{
    (void)state;
    carc_state s;
    build_ring(&s);
    draw(&s, 'B');
    eng_move hole = place_mv(&s, 0, 1, 0);
    assert_unique_best(&s, hole);
    double with = rate_one(&s, hole);
    assert_true(with >= 9.0);

    carc__hfeat f[CARC__HFEAT_MAX];
    int n = carc__heur_features(&s, hole, f);
    int found = 0;
    for (int i = 0; i < n; i++)
        if (f[i].kind == CARC_CLOISTER && f[i].segs) {
            found = 1;
            assert_int_equal(f[i].open, 0);
            assert_int_equal(f[i].complete, 1);
        }
    assert_true(found);

    /* no meeple in hand: the cloister's value cannot be collected */
    carc_state s0 = s;
    s0.supply[s0.player] = 0;
    double without = rate_one(&s0, hole);
    assert_true(without <= with - 9.0);
    eng_move mv[CARC_MAX_MOVES];
    double r7[CARC_MAX_MOVES], r0[CARC_MAX_MOVES];
    int k = rate_all(&s, mv, r7);
    G->rate_moves(&s0, mv, k, r0);
    for (int i = 0; i < k; i++)
        assert_true(r0[i] <= r7[i]);
}

static void test_meeple_step_prefers_completion(void **state)
{
    (void)state;
    carc_state s;
    new_game(&s, 2, 1);
    draw(&s, 'J');
    eng_move jm = place_mv(&s, 0, -1, 2); /* city S closes the start city; road W-N */
    G->apply(&s, jm);
    eng_move city = meeple_mv(&s, CARC_S), road = meeple_mv(&s, CARC_N), none = CARC_NO_MEEPLE;
    double rc = rate_one(&s, city), rr = rate_one(&s, road), rn = rate_one(&s, none);
    assert_unique_best(&s, city);
    assert_true(rc > rn && rc > rr);
    assert_true(rc - rn >= 4.0); /* the 2-tile city scores 4 now */

    /* the road alone: with a full hand a meeple on a fresh road is worth it,
     * with one meeple left it is not */
    new_game(&s, 2, 1);
    draw(&s, 'V');
    G->apply(&s, place_mv(&s, 0, 1, 0)); /* road S-W, two open ends */
    road = meeple_mv(&s, CARC_S);
    assert_true(rate_one(&s, road) > rate_one(&s, none));
    s.supply[s.player] = 1;
    assert_true(rate_one(&s, road) < rate_one(&s, none));
    /* no meeple in hand: only "none" is legal. The state is made by hand (its
     * meeples are nowhere), so it goes to the calls that do not check the
     * state's invariants, not to legal_moves, which debug builds check */
    s.supply[s.player] = 0;
    eng_move m;
    for (int port = 0; port < CARC_NPORTS; port++)
        assert_int_equal(carc_meeple_move(&s, port, &m), ENG_EILLEGAL_MOVE);
    assert_int_equal(carc_meeple_move(&s, -1, &m), 0);
    assert_int_equal(m, CARC_NO_MEEPLE);
}

/* ---- prediction against the real merge --------------------------------------- */

static int tiles_of(const carc_state *s, int r)
{
    int seen[CARC_NTILES] = {0}, n = r, k = 0;
    do {
        if (!seen[s->tile[n]]++)
            k++;
        n = s->nxt[n];
    } while (n != r);
    return k;
}

/* The features of the tile just placed, read off the state without the
 * heuristic's code (same order as carc__heur_features). */
static int real_features(const carc_state *s, carc__hfeat *out)
{
    const carc_type *types = carc_types();
    const carc_placed *pl = &s->placed[s->nplaced - 1];
    const carc_type *ty = &types[pl->type];
    int farms = s->rules.opt[CARC_OPT_FARMS];
    int n = 0, roots[CARC_MAX_SEGS];
    for (int g = 0; g < ty->nseg; g++) {
        if (ty->kind[g] == CARC_FIELD && !farms)
            continue;
        int r = carc_root(s, pl->node0 + g), i;
        for (i = 0; i < n && roots[i] != r; i++)
            ;
        if (i < n) {
            out[i].segs |= (uint8_t)(1u << g);
            continue;
        }
        roots[n] = r;
        carc__hfeat *f = &out[n++];
        memset(f, 0, sizeof *f);
        f->kind = ty->kind[g];
        f->segs = (uint8_t)(1u << g);
        f->tiles = (uint8_t)tiles_of(s, r);
        for (int m = 0; m < s->nmeeples; m++)
            if (carc_root(s, s->meeple[m].node) == r)
                f->mee[s->meeple[m].player]++;
        if (f->kind == CARC_FIELD) {
            int croot[64], cn = 0, x = r;
            do {
                const carc_placed *q = &s->placed[s->tile[x]];
                for (int c = 0; c < CARC_MAX_SEGS; c++) {
                    if (!(types[q->type].cities[x - q->node0] & (1u << c)))
                        continue;
                    int cr = carc_root(s, q->node0 + c), j;
                    for (j = 0; j < cn && croot[j] != cr; j++)
                        ;
                    if (j == cn) {
                        croot[cn++] = cr;
                        if (s->open[cr] == 0)
                            f->cities_done++;
                        else
                            f->cities_open++;
                    }
                }
                x = s->nxt[x];
            } while (x != r);
            assert_int_equal(3 * f->cities_done, carc_feature_value(s, r));
        } else {
            f->open = s->open[r];
            f->pen = f->kind == CARC_CITY ? s->pen[r] : 0;
            f->complete = carc_feature_complete(s, r);
        }
    }
    static const int ox[8] = {-1, 0, 1, -1, 1, -1, 0, 1};
    static const int oy[8] = {-1, -1, -1, 0, 0, 1, 1, 1};
    for (int i = 0; i < 8; i++) {
        const carc_placed *q = carc_tile_at(s, pl->x + ox[i], pl->y + oy[i]);
        if (!q || types[q->type].rot[0].seg[CARC_C] == 0xff)
            continue;
        int node = q->node0 + types[q->type].rot[0].seg[CARC_C];
        carc__hfeat *f = &out[n++];
        memset(f, 0, sizeof *f);
        f->kind = CARC_CLOISTER;
        f->node = (uint8_t)node;
        f->tiles = 1;
        f->open = s->open[node];
        f->complete = f->open == 0;
        for (int m = 0; m < s->nmeeples; m++)
            if (s->meeple[m].node == node)
                f->mee[s->meeple[m].player]++;
    }
    return n;
}

static void check_same(const carc__hfeat *a, int na, const carc__hfeat *b, int nb, const char *what,
                       const char *move)
{
    if (na != nb)
        fail_msg("%s, placement %s: %d features predicted, %d real", what, move, na, nb);
    for (int i = 0; i < na; i++) {
        const carc__hfeat *p = &a[i], *q = &b[i];
        int same = p->kind == q->kind && p->segs == q->segs && p->node == q->node &&
                   p->tiles == q->tiles && p->open == q->open && p->pen == q->pen &&
                   p->complete == q->complete && p->cities_done == q->cities_done &&
                   p->cities_open == q->cities_open && memcmp(p->mee, q->mee, sizeof p->mee) == 0;
        if (!same)
            fail_msg("%s, placement %s, feature %d: predicted kind %d segs %#x tiles %d open %d "
                     "pen %d complete %d cities %d/%d mee %d,%d,%d; real kind %d segs %#x "
                     "tiles %d open %d pen %d complete %d cities %d/%d mee %d,%d,%d",
                     what, move, i, p->kind, p->segs, p->tiles, p->open, p->pen, p->complete,
                     p->cities_done, p->cities_open, p->mee[0], p->mee[1], p->mee[2], q->kind,
                     q->segs, q->tiles, q->open, q->pen, q->complete, q->cities_done,
                     q->cities_open, q->mee[0], q->mee[1], q->mee[2]);
    }
}

typedef struct cons_stats {
    long placements, features, merges, fields;
} cons_stats;

/* Check every placement of the current PLACE state. */
static void check_position(const carc_state *s, cons_stats *st)
{
    eng_move mv[CARC_MAX_MOVES];
    double rate[CARC_MAX_MOVES];
    int n = rate_all(s, mv, rate);
    carc_state *c = malloc(sizeof *c);
    assert_non_null(c);
    for (int i = 0; i < n; i++) {
        char ms[ENG_MOVE_STR_MAX];
        G->move_to_str(s, mv[i], ms, sizeof ms);
        carc__hfeat pred[CARC__HFEAT_MAX], real[CARC__HFEAT_MAX], after[CARC__HFEAT_MAX];
        int np = carc__heur_features(s, mv[i], pred);
        memcpy(c, s, sizeof *c);
        G->apply(c, mv[i]);
        int nr = real_features(c, real);
        int na = carc__heur_features(c, 0, after);
        check_same(pred, np, real, nr, "prediction vs real merge", ms);
        check_same(after, na, real, nr, "meeple-step reading vs real merge", ms);
        st->placements++;
        st->features += np;
        for (int k = 0; k < np; k++) {
            st->merges += pred[k].tiles > 1 && pred[k].segs;
            st->fields += pred[k].kind == CARC_FIELD && pred[k].cities_done + pred[k].cities_open;
        }
        /* the placement's rating is the best of the meeple step's */
        eng_move mm[CARC_MAX_MOVES];
        double mr[CARC_MAX_MOVES];
        int k = rate_all(c, mm, mr);
        double best = -1e300;
        for (int j = 0; j < k; j++)
            if (mr[j] > best)
                best = mr[j];
        if (fabs(best - rate[i]) > 1e-9)
            fail_msg("placement %s rated %.12g, best meeple option after it %.12g", ms, rate[i],
                     best);
    }
    free(c);
}

static void consistency_run(int players, int farms, int tiny, int games, uint64_t seed,
                            cons_stats *st)
{
    carc_state *s = malloc(sizeof *s);
    assert_non_null(s);
    eng_rng rng;
    eng_rng_seed(&rng, seed);
    for (int gi = 0; gi < games; gi++) {
        eng_rules r;
        eng_rules_default(G, &r);
        r.players = players;
        r.opt[CARC_OPT_FARMS] = farms;
        r.opt[CARC_OPT_TINY_CITY] = tiny;
        G->init(s, &r);
        for (;;) {
            int p = G->current_player(s);
            if (p == ENG_TERMINAL)
                break;
            eng_move m;
            if (p == ENG_CHANCE) {
                m = eng_sample_chance(G, s, &rng);
            } else {
                if (s->phase == CARC_PLACE)
                    check_position(s, st);
                /* mix greedy and random moves: varied, contested boards */
                m = eng_rng_below(&rng, 2) ? eng_greedy_move(G, s, &rng)
                                           : eng_random_move(G, s, &rng);
            }
            G->apply(s, m);
        }
    }
    free(s);
}

static void test_prediction_matches_merge(void **state)
{
    (void)state;
    cons_stats st = {0};
    consistency_run(2, 1, 4, 12, 11, &st);
    consistency_run(3, 1, 2, 6, 12, &st);
    consistency_run(5, 1, 4, 4, 13, &st);
    consistency_run(2, 0, 4, 6, 14, &st);
    print_message("prediction checked on %ld placements (%ld features, %ld merged, "
                  "%ld fields touching cities)\n",
                  st.placements, st.features, st.merges, st.fields);
    assert_true(st.placements > 10000);
    assert_true(st.merges > 1000);
    assert_true(st.fields > 1000);
}

/* ---- the bot -------------------------------------------------------------------- */

typedef struct match_result {
    int wins[2], draws;
    double points[2];
} match_result;

/* Play `games` two-seat games between bot specs a and b, alternating
 * seats; every decision is checked for legality. */
static void play_match(const eng_game *g, const char *rule, const char *spec_a, const char *spec_b,
                       int games, uint64_t seed, match_result *res)
{
    char err[256];
    bot *bots[2];
    bots[0] = bot_create(spec_a, g, seed, err, sizeof err);
    bots[1] = bot_create(spec_b, g, seed + 1, err, sizeof err);
    assert_non_null(bots[0]);
    assert_non_null(bots[1]);
    unsigned char *st = malloc(g->state_size);
    assert_non_null(st);
    eng_rng rng;
    eng_rng_seed(&rng, seed ^ 0xabcdef);
    memset(res, 0, sizeof *res);
    for (int gi = 0; gi < games; gi++) {
        eng_rules r;
        eng_rules_default(g, &r);
        r.players = 2;
        if (rule)
            for (const char *p = rule; *p;) { /* "k=v,k=v" */
                char kv[64];
                size_t n = strcspn(p, ",");
                assert_true(n < sizeof kv);
                memcpy(kv, p, n);
                kv[n] = 0;
                assert_int_equal(eng_rules_set(g, &r, kv, err, sizeof err), 0);
                p += n + (p[n] == ',');
            }
        g->init(st, &r);
        int a_seat = gi & 1; /* bot a plays seat a_seat */
        for (int plies = 0;; plies++) {
            assert_true(plies <= g->max_plies);
            int p = g->current_player(st);
            if (p == ENG_TERMINAL)
                break;
            eng_move m;
            if (p == ENG_CHANCE) {
                m = eng_sample_chance(g, st, &rng);
            } else {
                bot *b = bots[p == a_seat ? 0 : 1];
                m = bot_choose(b, st, NULL, NULL);
                if (!eng_is_legal(g, st, m))
                    fail_msg("%s played illegal move %d in game %d", b->spec, (int)m, gi);
            }
            g->apply(st, m);
        }
        double sc[ENG_MAX_PLAYERS];
        g->scores(st, sc);
        double sa = sc[a_seat], sb = sc[!a_seat];
        res->points[0] += sa;
        res->points[1] += sb;
        if (sa > sb)
            res->wins[0]++;
        else if (sb > sa)
            res->wins[1]++;
        else
            res->draws++;
    }
    free(st);
    bot_destroy(bots[0]);
    bot_destroy(bots[1]);
}

static void test_bot_beats_random(void **state)
{
    (void)state;
    match_result r;
    const int games = 200;
    play_match(G, NULL, "heuristic", "random", games, 2024, &r);
    print_message("heuristic vs random, %d Carcassonne games: %d wins, %d draws, %d losses; "
                  "mean score %.1f vs %.1f\n",
                  games, r.wins[0], r.draws, r.wins[1], r.points[0] / games, r.points[1] / games);
    assert_true(r.wins[0] * 100 >= 95 * games);
    assert_true(r.points[0] >= 2.0 * r.points[1]);

    /* the thesis's rules: no farms, a completed 2-tile city scores 2 */
    const int g2 = 100;
    play_match(G, "farms=false,tiny_city=2", "heuristic", "random", g2, 4048, &r);
    print_message("heuristic vs random, %d games, farms=false tiny_city=2: %d wins, %d draws, "
                  "%d losses; mean score %.1f vs %.1f\n",
                  g2, r.wins[0], r.draws, r.wins[1], r.points[0] / g2, r.points[1] / g2);
    assert_true(r.wins[0] * 100 >= 95 * g2);
    assert_true(r.points[0] >= 2.0 * r.points[1]);
}

static void test_bot_options_and_generic_fallback(void **state)
{
    (void)state;
    char err[256];
    assert_int_equal(bot_check_spec("heuristic:eps=0.1", G, err, sizeof err), 0);
    assert_int_not_equal(bot_check_spec("heuristic:eps=1.5", G, err, sizeof err), 0);
    assert_int_not_equal(bot_check_spec("heuristic:depth=2", G, err, sizeof err), 0);

    /* eps=1 is the random player: it loses to the greedy one */
    match_result r;
    play_match(G, NULL, "heuristic:eps=0.05", "heuristic:eps=1", 20, 7, &r);
    assert_true(r.wins[0] > r.wins[1]);

    /* a game without rate_moves: greedy over apply + evaluate */
    const eng_game *rev = eng_find_game("reversi");
    assert_non_null(rev);
    assert_null(rev->rate_moves);
    play_match(rev, NULL, "heuristic", "random", 40, 99, &r);
    print_message("heuristic vs random, 40 Reversi games: %d wins, %d draws, %d losses\n",
                  r.wins[0], r.draws, r.wins[1]);
    assert_true(r.wins[0] > r.wins[1]);
}

/* rate_moves outside the decision steps, and on moves that are not this
 * state's, answers without touching anything it should not. */
static void test_rate_moves_edge_cases(void **state)
{
    (void)state;
    carc_state s, before;
    new_game(&s, 2, 1);
    eng_move m = 0;
    double r = 1.0;
    G->rate_moves(&s, &m, 1, &r); /* chance node */
    assert_true(r == 0.0);
    draw(&s, 'V');
    before = s;
    eng_move mv[CARC_MAX_MOVES];
    double rate[CARC_MAX_MOVES];
    rate_all(&s, mv, rate);
    assert_memory_equal(&s, &before, sizeof s); /* nothing applied, nothing written */
    eng_move bogus = carc_cell(20, 20) * 4;
    assert_true(rate_one(&s, bogus) < -1e8);
    G->rate_moves(&s, mv, 0, rate); /* n = 0 is fine */
}

/* ---- benchmark (--bench, not run by CTest) ------------------------------------ */

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int bench(double scale)
{
    enum { NPOS_MAX = 4000 };
    if (!(scale > 0.0 && scale <= 1.0))
        scale = 1.0;
    const int NPOS = (int)(NPOS_MAX * scale) < 1 ? 1 : (int)(NPOS_MAX * scale);
    carc_state *pos = malloc((size_t)NPOS * sizeof *pos);
    carc_state *s = malloc(sizeof *s);
    if (!pos || !s)
        return 1;
    eng_rng rng;
    eng_rng_seed(&rng, 42);
    int npos = 0;
    long nplace = 0;
    /* positions: PLACE states of heuristic-vs-heuristic games with eps 0.2 */
    while (npos < NPOS) {
        eng_rules r;
        eng_rules_default(G, &r);
        G->init(s, &r);
        while (G->current_player(s) != ENG_TERMINAL && npos < NPOS) {
            int p = G->current_player(s);
            eng_move m;
            if (p == ENG_CHANCE) {
                m = eng_sample_chance(G, s, &rng);
            } else {
                if (s->phase == CARC_PLACE && eng_rng_below(&rng, 2) == 0) {
                    pos[npos++] = *s;
                    nplace += carc_count_placements(s, s->drawn);
                }
                m = eng_rng_double(&rng) < 0.2 ? eng_random_move(G, s, &rng)
                                               : eng_greedy_move(G, s, &rng);
            }
            G->apply(s, m);
        }
    }
    static eng_move mv[NPOS_MAX][CARC_MAX_MOVES / 4];
    static int nmv[NPOS_MAX];
    double *rate = malloc(CARC_MAX_MOVES * sizeof *rate);
    eng_move *tmp = malloc(CARC_MAX_MOVES * sizeof *tmp);
    long total = 0;
    for (int i = 0; i < npos; i++) {
        int n = G->legal_moves(&pos[i], tmp);
        if (n > CARC_MAX_MOVES / 4)
            n = CARC_MAX_MOVES / 4;
        memcpy(mv[i], tmp, (size_t)n * sizeof *tmp);
        nmv[i] = n;
        total += n;
    }
    /* Each call rates a position copied into one working buffer first, as
     * in a game or playout where the state is hot in cache; the copy loop
     * alone is timed too and subtracted. */
    volatile double sink = 0;
    carc_state *work = malloc(sizeof *work);
    const int reps = 10;
    double t_copy = 0, t_all = 0, t_one = 0, t_gen = 0;
    long single = 0;
    eng_game generic = carc_game; /* the generic fallback: copy, apply, evaluate */
    generic.rate_moves = NULL;
    for (int k = 0; k < reps; k++) {
        double t0 = now_s();
        for (int i = 0; i < npos; i++) {
            memcpy(work, &pos[i], sizeof *work);
            sink += work->bag_n;
        }
        double t1 = now_s();
        for (int i = 0; i < npos; i++) {
            memcpy(work, &pos[i], sizeof *work);
            G->rate_moves(work, mv[i], nmv[i], rate);
            sink += rate[0];
        }
        double t2 = now_s();
        for (int i = 0; i < npos; i++) {
            memcpy(work, &pos[i], sizeof *work);
            for (int j = 0; j < nmv[i]; j++) {
                G->rate_moves(work, &mv[i][j], 1, rate);
                sink += rate[0];
            }
        }
        double t3 = now_s();
        for (int i = 0; i < npos; i++) {
            memcpy(work, &pos[i], sizeof *work);
            eng_rate_moves(&generic, work, mv[i], nmv[i], rate);
            sink += rate[0];
        }
        double t4 = now_s();
        t_copy += t1 - t0;
        t_all += t2 - t1;
        t_one += t3 - t2;
        t_gen += t4 - t3;
    }
    single = total * reps;
    printf("positions %d, placements %ld (%.1f per position)\n", npos, total, (double)total / npos);
    printf("rate_moves, all placements per call: %.0f ns per placement, %.2f us per call\n",
           (t_all - t_copy) * 1e9 / (double)single, (t_all - t_copy) * 1e6 / ((double)npos * reps));
    printf("rate_moves, one placement per call:  %.0f ns per placement\n",
           (t_one - t_copy) * 1e9 / (double)single);
    printf("generic fallback (copy+apply+evaluate): %.0f ns per placement\n",
           (t_gen - t_copy) * 1e9 / (double)single);
    free(work);

    /* full games, heuristic vs heuristic, through the bot interface */
    char err[256];
    bot *a = bot_create("heuristic", G, 1, err, sizeof err);
    bot *b = bot_create("heuristic", G, 2, err, sizeof err);
    int games = (int)(2000 * scale) < 1 ? 1 : (int)(2000 * scale);
    double pts = 0;
    double t0 = now_s();
    for (int gi = 0; gi < games; gi++) {
        eng_rules r;
        eng_rules_default(G, &r);
        G->init(s, &r);
        for (;;) {
            int p = G->current_player(s);
            if (p == ENG_TERMINAL)
                break;
            eng_move m = p == ENG_CHANCE ? eng_sample_chance(G, s, &rng)
                                         : bot_choose(p == 0 ? a : b, s, NULL, NULL);
            G->apply(s, m);
        }
        pts += s->score[0] + s->score[1];
    }
    double t_games = now_s() - t0;
    printf("heuristic vs heuristic: %.0f games/s (%.1f ms per game), mean score %.1f\n",
           games / t_games, t_games * 1e3 / games, pts / (2.0 * games));
    /* greedy playouts straight through the engine (no bot layer) */
    t0 = now_s();
    for (int gi = 0; gi < games; gi++) {
        eng_rules r;
        eng_rules_default(G, &r);
        G->init(s, &r);
        for (;;) {
            int p = G->current_player(s);
            if (p == ENG_TERMINAL)
                break;
            G->apply(s,
                     p == ENG_CHANCE ? eng_sample_chance(G, s, &rng) : eng_greedy_move(G, s, &rng));
        }
    }
    double t_play = now_s() - t0;
    printf("greedy playouts (eng_greedy_move): %.0f games/s\n", games / t_play);
    t0 = now_s();
    for (int gi = 0; gi < games; gi++) {
        eng_rules r;
        eng_rules_default(G, &r);
        G->init(s, &r);
        eng_playout(G, s, &rng);
    }
    printf("random playouts (eng_playout), for comparison: %.0f games/s\n", games / (now_s() - t0));
    (void)sink;
    bot_destroy(a);
    bot_destroy(b);
    free(rate);
    free(tmp);
    free(pos);
    free(s);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--bench") == 0)
        return bench(argc > 2 ? atof(argv[2]) : 1.0);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_complete_own_city_is_best),
        cmocka_unit_test(test_opponent_city_below_neutral),
        cmocka_unit_test(test_cloister_with_eight_neighbours),
        cmocka_unit_test(test_meeple_step_prefers_completion),
        cmocka_unit_test(test_rate_moves_edge_cases),
        cmocka_unit_test(test_prediction_matches_merge),
        cmocka_unit_test(test_bot_options_and_generic_fallback),
        cmocka_unit_test(test_bot_beats_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
