/*
 * test_carc_oracle.c — the fast Carcassonne engine checked against the slow
 * oracle (carc_oracle.c), decision by decision, over many random games.
 *
 * Each game is played by the engine with the uniform random policy
 * (eng_sample_chance / eng_random_move) and mirrored in the oracle. At every
 * step the two must agree on:
 *   - the bag (chance outcomes and their probabilities) and, for every tile
 *     type still in the bag, the number of distinct legal placements;
 *   - discards: a drawn tile with no placement is dropped and the same
 *     player draws again;
 *   - the exact set of legal placements (x, y, canonical rot) of the drawn tile;
 *   - the meeple options, as sets of features named by the ports each merged
 *     feature covers on the placed tile;
 *   - after every turn: every score, every hand of meeples, the meeples on
 *     the board (tile, feature ports, owner) and the scores the game would
 *     end with now (carc_virtual_scores);
 *   - the final scores.
 * A first test also compares the two tile tables port by port. Besides the
 * uniform random policy, a few configurations use a "dense" policy (see
 * dense_move) that packs tiles together and places meeples eagerly, to meet
 * completed cloisters and crowded shared features more often.
 *
 * Usage: test_carc_oracle [--slow] [--games N] [--seed S]
 *   default: 300 random games per player count 2..5 with the current rules,
 *   150 with tiny_city=2 farms=false, 50 each with only one of the two, and
 *   300 / 150 dense-policy games; --slow: 3,000 games per configuration;
 *   --games N: N games per configuration. The environment variable
 *   TESSERA_CARC_GAMES=N does the same as --games N; TESSERA_SANITIZED=1
 *   (the sanitizer pass) plays a quarter of the default, at least 10.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "carc_oracle.h"
#include "engine/carcassonne/carcassonne.h"

typedef struct config {
    const char *name; /* for messages */
    int players;
    int tiny_city;    /* 4 (current rules) or 2 (old rule) */
    int farms;        /* 1 or 0 */
    int games;        /* default game count */
    uint64_t seed;    /* base seed; game i uses stream i */
    int dense;        /* 0: the uniform random policy; 1: the dense policy below */
} config;

/* Totals over a configuration, printed at the end of each test. */
typedef struct stats {
    long games, draws, discards, placements, meeple_decisions, options, meeples_placed;
    long final_points;
    co_counters count; /* rare situations met, summed over the games */
} stats;

static int g_games = -1;       /* --games N: overrides every configuration */
static int g_slow = 0;         /* --slow: 3,000 games per configuration */
static uint64_t g_seed = 0;    /* --seed S: added to every base seed */

/* What is being played, for failure reports. */
static const config *cur_cfg;
static int cur_game, cur_draw;
static const carc_state *cur_state;
static char render_buf[1 << 17];

static void report(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "\n*** mismatch: %s players=%d tiny_city=%d farms=%d seed=%llu game=%d draw=%d\n",
            cur_cfg->name, cur_cfg->players, cur_cfg->tiny_city, cur_cfg->farms,
            (unsigned long long)(cur_cfg->seed + g_seed), cur_game, cur_draw);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    if (cur_state) {
        carc_game.render(cur_state, render_buf, sizeof render_buf);
        fprintf(stderr, "%s\n", render_buf);
    }
}

#define CHECK(cond, ...)                                                 \
    do {                                                                 \
        if (!(cond)) {                                                   \
            report(__VA_ARGS__);                                         \
            fail_msg("%s:%d: %s", __FILE__, __LINE__, #cond);            \
        }                                                                \
    } while (0)

/* Under the sanitizers (TESSERA_SANITIZED=1, as the test script's second
 * pass sets it) a quarter of each configuration's games, at least 10: that
 * pass is after memory errors on every path, which every configuration
 * still walks, and the first pass plays them all; in full, the oracle under
 * ASan took 756 s of a loaded machine, the pass's longest suite. */
static bool g_sanitized;

static int game_count(const config *c)
{
    if (g_games >= 0)
        return g_games;
    if (g_slow)
        return 3000;
    return g_sanitized ? (c->games / 4 > 10 ? c->games / 4 : 10) : c->games;
}

/* ---- the two tile tables agree ------------------------------------------ */

static void test_tile_tables(void **state)
{
    (void)state;
    const carc_type *et = carc_types();
    const co_type *ot = co_types();
    for (int t = 0; t < CO_NTYPES; t++) {
        assert_int_equal(et[t].letter, ot[t].letter);
        assert_int_equal(et[t].count, ot[t].count);
        int epen = 0, open_ = 0;
        for (int s = 0; s < et[t].nseg; s++)
            epen += et[t].pennant[s];
        for (int f = 0; f < ot[t].nfeat; f++)
            open_ += ot[t].pennant[f];
        assert_int_equal(epen, open_);
        assert_int_equal(et[t].nseg, ot[t].nfeat);
        for (int r = 0; r < 4; r++) {
            const carc_tile *tl = &et[t].rot[r];
            assert_int_equal(et[t].canon[r], co_canonical_rot(t, r));
            for (int d = 0; d < 4; d++)
                assert_int_equal(tl->edge[d], co_port_kind(t, r, 3 * d + 1));
            for (int p = 0; p < CARC_NPORTS; p++) {
                int es = tl->seg[p], ek = es == 0xff ? 0 : et[t].kind[es];
                int ok = co_port_kind(t, r, p);
                if (ek != ok)
                    fail_msg("tile %c rot %d port %s: engine kind %d, oracle %d", ot[t].letter, r,
                             carc_port_name(p), ek, ok);
                if (ek == 0)
                    continue;
                /* the same ports make up each feature */
                uint16_t em = 0, om = 0;
                int of = -1;
                for (int q = 0; q < CARC_NPORTS; q++)
                    if (tl->seg[q] == es)
                        em |= (uint16_t)(1u << q);
                for (int f = 0; f < ot[t].nfeat; f++)
                    if (co_feat_ports(t, r, f) & (1u << p))
                        of = f;
                assert_true(of >= 0);
                om = co_feat_ports(t, r, of);
                if (em != om)
                    fail_msg("tile %c rot %d: the feature at %s covers ports %#x (engine), %#x (oracle)",
                             ot[t].letter, r, carc_port_name(p), em, om);
                assert_int_equal(et[t].pennant[es], ot[t].pennant[of]);
                if (ek == CARC_FIELD)
                    assert_int_equal(et[t].cities[es] != 0, ot[t].touches_city[of]);
            }
        }
    }
}

/* ---- one mirrored game --------------------------------------------------- */

static int cmp_place(const void *a, const void *b)
{
    const co_place *p = a, *q = b;
    if (p->y != q->y)
        return p->y < q->y ? -1 : 1;
    if (p->x != q->x)
        return p->x < q->x ? -1 : 1;
    return p->rot - q->rot;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Ports of the placed tile covered by the merged feature of its segment seg. */
static uint16_t engine_feature_ports(const carc_state *s, const carc_placed *pl, int seg)
{
    const carc_tile *tl = &carc_types()[pl->type].rot[pl->rot];
    int root = carc_root(s, pl->node0 + seg);
    uint16_t m = 0;
    for (int p = 0; p < CARC_NPORTS; p++)
        if (tl->seg[p] != 0xff && carc_root(s, pl->node0 + tl->seg[p]) == root)
            m |= (uint16_t)(1u << p);
    return m;
}

/* Ports of a single tile segment (no merging). */
static uint16_t engine_segment_ports(const carc_placed *pl, int seg)
{
    const carc_tile *tl = &carc_types()[pl->type].rot[pl->rot];
    uint16_t m = 0;
    for (int p = 0; p < CARC_NPORTS; p++)
        if (tl->seg[p] == seg)
            m |= (uint16_t)(1u << p);
    return m;
}

/* A meeple as one comparable number: x, y, ports of its segment, owner. */
static uint32_t meeple_key(int x, int y, uint16_t ports, int player)
{
    return ((uint32_t)(x + 128) << 24) | ((uint32_t)(y + 128) << 16) | ((uint32_t)ports << 3) |
           (uint32_t)player;
}

static void compare_meeples(const carc_state *s, const co_game *o)
{
    uint32_t ek[ENG_MAX_PLAYERS * CARC_MEEPLES], ok[CO_MAX_PLAYERS * CO_MEEPLES];
    CHECK(s->nmeeples == o->nmeeples, "meeples on the board: engine %d, oracle %d", s->nmeeples,
          o->nmeeples);
    for (int i = 0; i < s->nmeeples; i++) {
        int node = s->meeple[i].node;
        const carc_placed *pl = &s->placed[s->tile[node]];
        ek[i] = meeple_key(pl->x, pl->y, engine_segment_ports(pl, node - pl->node0),
                           s->meeple[i].player);
    }
    for (int i = 0; i < o->nmeeples; i++) {
        const co_meeple *m = &o->meeples[i];
        ok[i] = meeple_key(o->tiles[m->tile].x, o->tiles[m->tile].y,
                           co_feat_ports(o->tiles[m->tile].type, o->tiles[m->tile].rot, m->feat), m->player);
    }
    qsort(ek, (size_t)s->nmeeples, sizeof ek[0], cmp_u32);
    qsort(ok, (size_t)o->nmeeples, sizeof ok[0], cmp_u32);
    for (int i = 0; i < s->nmeeples; i++)
        CHECK(ek[i] == ok[i], "meeple %d differs: engine (%d,%d) ports %#x p%u, oracle (%d,%d) ports %#x p%u",
              i, (int)(ek[i] >> 24) - 128, (int)((ek[i] >> 16) & 0xff) - 128,
              (unsigned)((ek[i] >> 3) & 0x1fff), (unsigned)(ek[i] & 7), (int)(ok[i] >> 24) - 128,
              (int)((ok[i] >> 16) & 0xff) - 128, (unsigned)((ok[i] >> 3) & 0x1fff),
              (unsigned)(ok[i] & 7));
}

/* Scores, hands and the board's meeples after a turn. */
static void compare_after_turn(const carc_state *s, const co_game *o, int players)
{
    double es[ENG_MAX_PLAYERS];
    int ev[ENG_MAX_PLAYERS], ov[CO_MAX_PLAYERS];
    bool over = carc_game.current_player(s) == ENG_TERMINAL;
    carc_game.scores(s, es);
    carc_virtual_scores(s, ev);
    co_final_scores(o, ov, NULL);
    for (int p = 0; p < players; p++) {
        CHECK(s->supply[p] == o->supply[p], "player %d meeples in hand: engine %d, oracle %d", p,
              s->supply[p], o->supply[p]);
        CHECK(ev[p] == ov[p], "player %d virtual score: engine %d, oracle %d", p, ev[p], ov[p]);
        if (over) {
            CHECK((int)es[p] == ov[p] && es[p] == (double)(int)es[p],
                  "player %d final score: engine %g, oracle %d", p, es[p], ov[p]);
        } else {
            CHECK(s->score[p] == o->score[p], "player %d score: engine %d, oracle %d", p,
                  s->score[p], o->score[p]);
            CHECK(es[p] == (double)o->score[p], "player %d scores(): engine %g, oracle %d", p,
                  es[p], o->score[p]);
        }
    }
    compare_meeples(s, o);
}

static void check_chance(const carc_state *s, const co_game *o, const int *bag, int bag_n)
{
    eng_move out[64];
    double prob[64];
    int n = carc_game.chance_outcomes(s, out, prob);
    int k = 0;
    CHECK(s->bag_n == bag_n, "bag size: engine %d, test %d", s->bag_n, bag_n);
    for (int t = 0; t < CO_NTYPES; t++) {
        CHECK(s->bag[t] == bag[t], "bag[%c]: engine %d, test %d", 'A' + t, s->bag[t], bag[t]);
        if (bag[t] == 0)
            continue;
        int j = -1;
        for (int i = 0; i < n; i++)
            if (out[i] == t)
                j = i;
        CHECK(j >= 0, "tile %c missing from the chance outcomes", 'A' + t);
        double want = (double)bag[t] / bag_n;
        CHECK(prob[j] > want - 1e-12 && prob[j] < want + 1e-12, "P(%c): engine %g, want %g",
              'A' + t, prob[j], want);
        k++;
        /* placements of every tile still in the bag */
        co_place pl[CO_MAX_PLACEMENTS];
        int np = co_legal_placements(o, t, pl);
        int ep = carc_count_placements(s, t);
        CHECK(np == ep, "placements of %c: engine counts %d, oracle %d", 'A' + t, ep, np);
    }
    CHECK(k == n, "engine lists %d outcomes, the bag has %d types", n, k);
}

static void compare_placements(const carc_state *s, const co_place *pl, int np)
{
    eng_move moves[CARC_MAX_MOVES];
    co_place ep[CARC_MAX_MOVES];
    int n = carc_game.legal_moves(s, moves);
    CHECK(n <= carc_game.max_moves, "too many moves: %d", n);
    for (int i = 0; i < n; i++) {
        int x, y, rot;
        CHECK(carc_decode_place(s, moves[i], &x, &y, &rot) == 0, "move %d does not decode",
              moves[i]);
        CHECK(co_canonical_rot(s->drawn, rot) == rot, "engine emits non-canonical %c %d %d %d",
              'A' + s->drawn, x, y, rot);
        ep[i] = (co_place){x, y, rot};
    }
    qsort(ep, (size_t)n, sizeof ep[0], cmp_place);
    for (int i = 0; i < n && i < np; i++)
        CHECK(cmp_place(&ep[i], &pl[i]) == 0,
              "tile %c: placement %d differs: engine (%d,%d,r%d), oracle (%d,%d,r%d) (engine %d, oracle %d placements)",
              'A' + s->drawn, i, ep[i].x, ep[i].y, ep[i].rot, pl[i].x, pl[i].y, pl[i].rot, n, np);
    CHECK(n == np, "tile %c: engine %d placements, oracle %d", 'A' + s->drawn, n, np);
    for (int i = 1; i < n; i++)
        CHECK(cmp_place(&ep[i - 1], &ep[i]) != 0, "duplicate placement (%d,%d,r%d)", ep[i].x,
              ep[i].y, ep[i].rot);
}

/* Returns the number of meeple options (without "none"). */
static int compare_meeple_options(const carc_state *s, const carc_placed *pl, const co_option *opt,
                                  int no)
{
    eng_move moves[CARC_MAX_MOVES];
    uint32_t em[CARC_MAX_SEGS + 1], om[CARC_MAX_SEGS];
    int n = carc_game.legal_moves(s, moves), ne = 0, none = 0;
    for (int i = 0; i < n; i++) {
        if (moves[i] == CARC_NO_MEEPLE) {
            none++;
            continue;
        }
        int seg = moves[i] - CARC_MEEPLE0;
        CHECK(seg >= 0 && seg < carc_types()[pl->type].nseg && ne < CARC_MAX_SEGS,
              "bad meeple move %d", moves[i]);
        em[ne++] = ((uint32_t)engine_feature_ports(s, pl, seg) << 3) |
                   carc_types()[pl->type].kind[seg];
    }
    CHECK(none == 1, "the no-meeple move appears %d times", none);
    for (int i = 0; i < no; i++)
        om[i] = ((uint32_t)opt[i].ports << 3) | (uint32_t)opt[i].kind;
    qsort(em, (size_t)ne, sizeof em[0], cmp_u32);
    qsort(om, (size_t)no, sizeof om[0], cmp_u32);
    for (int i = 0; i < ne && i < no; i++)
        CHECK(em[i] == om[i],
              "tile %c at (%d,%d) r%d: meeple option %d: engine ports %#x kind %u, oracle ports %#x kind %u",
              'A' + pl->type, pl->x, pl->y, pl->rot, i, (unsigned)(em[i] >> 3),
              (unsigned)(em[i] & 7), (unsigned)(om[i] >> 3), (unsigned)(om[i] & 7));
    CHECK(ne == no, "tile %c at (%d,%d) r%d: engine %d meeple options, oracle %d", 'A' + pl->type,
          pl->x, pl->y, pl->rot, ne, no);
    return ne;
}

/* The dense policy, a second source of positions: random boards sprawl, so
 * completed cloisters and crowded shared features are rare. This policy
 * places the tile where it has the most occupied cells among its 8
 * neighbours (uniform among the best) and takes a meeple, uniformly among
 * the options, three times out of four when there is one. */
static eng_move dense_move(const carc_state *s, eng_rng *rng)
{
    eng_move moves[CARC_MAX_MOVES], best[CARC_MAX_MOVES];
    int n = carc_game.legal_moves(s, moves), nb = 0, most = -1;
    if (s->phase == CARC_MEEPLE) {
        for (int i = 0; i < n; i++)
            if (moves[i] != CARC_NO_MEEPLE)
                best[nb++] = moves[i];
        if (nb == 0 || eng_rng_below(rng, 4) == 0)
            return CARC_NO_MEEPLE;
        return best[eng_rng_below(rng, (uint32_t)nb)];
    }
    for (int i = 0; i < n; i++) {
        int x, y, rot, k = 0;
        if (carc_decode_place(s, moves[i], &x, &y, &rot) != 0)
            continue;
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++)
                k += (dx || dy) && carc_tile_at(s, x + dx, y + dy) != NULL;
        if (k > most) {
            most = k;
            nb = 0;
        }
        if (k == most)
            best[nb++] = moves[i];
    }
    return best[eng_rng_below(rng, (uint32_t)nb)];
}

static eng_move policy_move(const config *c, const carc_state *s, eng_rng *rng)
{
    return c->dense ? dense_move(s, rng) : eng_random_move(&carc_game, s, rng);
}

static void mirror_game(const config *c, int gi, stats *st)
{
    static carc_state s;
    static co_game o;
    eng_rules r;
    char err[128];
    eng_rules_default(&carc_game, &r);
    r.players = c->players;
    r.opt[CARC_OPT_TINY_CITY] = c->tiny_city;
    r.opt[CARC_OPT_FARMS] = c->farms;
    memset(&s, 0, sizeof s);
    assert_int_equal(eng_init(&carc_game, &s, &r, err, sizeof err), 0);
    co_init(&o, c->players, c->tiny_city, c->farms != 0);

    cur_game = gi;
    cur_draw = 0;
    cur_state = &s;

    eng_rng rng;
    eng_rng_seed_stream(&rng, c->seed + g_seed, (uint64_t)gi);
    int bag[CO_NTYPES], bag_n = 0;
    for (int t = 0; t < CO_NTYPES; t++) {
        bag[t] = co_types()[t].count - (co_types()[t].letter == 'D');
        bag_n += bag[t];
    }
    CHECK(bag_n == 71, "bag of %d tiles", bag_n);
    const carc_placed *start = carc_tile_at(&s, 0, 0);
    CHECK(start && start->type == co_type_of_letter('D') && start->rot == 0, "start tile");
    compare_after_turn(&s, &o, c->players);

    int player = 0, draws = 0, plies = 0;
    for (;;) {
        int cp = carc_game.current_player(&s);
        if (cp == ENG_TERMINAL)
            break;
        CHECK(cp == ENG_CHANCE, "expected a draw, current player %d", cp);
        CHECK(s.player == player, "player %d draws, expected %d", s.player, player);
        CHECK(bag_n > 0, "a draw with an empty bag");
        check_chance(&s, &o, bag, bag_n);

        eng_move t = eng_sample_chance(&carc_game, &s, &rng);
        CHECK(t >= 0 && t < CO_NTYPES && bag[t] > 0, "drew %d", t);
        int discards0 = s.discards;
        carc_game.apply(&s, t);
        plies++;
        bag[t]--;
        bag_n--;
        draws++;
        cur_draw = draws;
        st->draws++;

        co_place pl[CO_MAX_PLACEMENTS];
        int np = co_legal_placements(&o, t, pl);
        if (np == 0) {
            cp = carc_game.current_player(&s);
            CHECK(s.discards == discards0 + 1, "tile %c fits nowhere but was not discarded",
                  'A' + t);
            CHECK(cp == (bag_n ? ENG_CHANCE : ENG_TERMINAL), "after a discard: player %d", cp);
            if (cp == ENG_CHANCE)
                CHECK(s.player == player, "after a discard player %d draws, not %d", s.player,
                      player);
            st->discards++;
            compare_after_turn(&s, &o, c->players);
            continue;
        }
        CHECK(s.discards == discards0, "tile %c discarded with %d placements", 'A' + t, np);
        CHECK(carc_game.current_player(&s) == player && s.phase == CARC_PLACE && s.drawn == t,
              "after drawing %c: player %d phase %d drawn %d", 'A' + t,
              carc_game.current_player(&s), s.phase, s.drawn);
        compare_placements(&s, pl, np);

        eng_move m = policy_move(c, &s, &rng);
        CHECK(eng_is_legal(&carc_game, &s, m), "placement move %d is illegal", m);
        int x, y, rot;
        CHECK(carc_decode_place(&s, m, &x, &y, &rot) == 0, "random move %d", m);
        carc_game.apply(&s, m);
        plies++;
        co_place_tile(&o, t, x, y, rot);
        st->placements++;
        const carc_placed *pt = carc_tile_at(&s, x, y);
        CHECK(pt && pt->type == t && pt->rot == rot, "tile at (%d,%d) after placing it", x, y);

        co_option opt[CO_MAX_FEATS];
        int no = co_meeple_options(&o, player, opt, &st->count);
        int port = -1;
        if (carc_game.current_player(&s) == player && s.phase == CARC_MEEPLE) {
            st->meeple_decisions++;
            st->options += compare_meeple_options(&s, pt, opt, no);
            eng_move mm = policy_move(c, &s, &rng);
            CHECK(eng_is_legal(&carc_game, &s, mm), "random meeple move %d is illegal", mm);
            port = carc_decode_meeple(&s, mm);
            CHECK((mm == CARC_NO_MEEPLE) == (port < 0), "meeple move %d decodes to port %d", mm,
                  port);
            carc_game.apply(&s, mm);
            plies++;
            st->meeples_placed += port >= 0;
        } else {
            CHECK(no == 0, "the engine skipped the meeple step, the oracle has %d options", no);
        }
        co_finish_turn(&o, player, port);
        player = (player + 1) % c->players;
        compare_after_turn(&s, &o, c->players);
    }
    CHECK(bag_n == 0 && s.bag_n == 0, "game over with %d tiles in the bag", s.bag_n);
    CHECK(draws == 71 && s.turns == 71, "draws: %d (engine %d)", draws, s.turns);
    CHECK(plies <= carc_game.max_plies, "%d plies", plies);
    int fin[CO_MAX_PLAYERS];
    co_final_scores(&o, fin, &st->count);
    for (int k = 0; k < 5; k++)
        st->count.completed[k] += o.count.completed[k];
    st->count.shared_awards += o.count.shared_awards;
    st->count.revisits += o.count.revisits;
    st->count.tiny_cities += o.count.tiny_cities;
    for (int p = 0; p < c->players; p++)
        st->final_points += fin[p];
    st->games++;
    cur_state = NULL;
}

static void run_config(void **state)
{
    const config *c = *state;
    stats st = {0};
    cur_cfg = c;
    int games = game_count(c);
    clock_t t0 = clock();
    for (int gi = 0; gi < games; gi++)
        mirror_game(c, gi, &st);
    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    print_message("%s: %ld games, %ld draws, %ld discards, %ld placements, %ld meeple decisions "
                  "(%ld options, %ld meeples placed), mean final points per player %.1f, %.2f s\n",
                  c->name, st.games, st.draws, st.discards, st.placements, st.meeple_decisions,
                  st.options, st.meeples_placed,
                  st.games ? (double)st.final_points / ((double)st.games * c->players) : 0.0, secs);
    print_message("  scored on completion (with meeples): %ld cities (%ld of two tiles), %ld roads, "
                  "%ld cloisters; shared by tied players: %ld; reaching a tile twice: %ld; "
                  "fields worth points at the end: %ld; options merging features of the tile: %ld; "
                  "occupied features not offered: %ld\n",
                  st.count.completed[CO_CITY], st.count.tiny_cities, st.count.completed[CO_ROAD],
                  st.count.completed[CO_CLOISTER], st.count.shared_awards, st.count.revisits,
                  st.count.field_awards, st.count.merged_options, st.count.occupied_skipped);
    assert_int_equal(st.games, games);
    assert_int_equal(st.draws, 71L * games);
}

static config configs[] = {
    {"current rules, 2p", 2, 4, 1, 300, 1000, 0},
    {"current rules, 3p", 3, 4, 1, 300, 2000, 0},
    {"current rules, 4p", 4, 4, 1, 300, 3000, 0},
    {"current rules, 5p", 5, 4, 1, 300, 4000, 0},
    {"thesis rules (tiny_city=2 farms=false), 2p", 2, 2, 0, 150, 5000, 0},
    {"thesis rules (tiny_city=2 farms=false), 3p", 3, 2, 0, 150, 6000, 0},
    {"thesis rules (tiny_city=2 farms=false), 4p", 4, 2, 0, 150, 7000, 0},
    {"thesis rules (tiny_city=2 farms=false), 5p", 5, 2, 0, 150, 8000, 0},
    {"tiny_city=2 farms=true, 2p", 2, 2, 1, 50, 9000, 0},
    {"tiny_city=2 farms=true, 3p", 3, 2, 1, 50, 10000, 0},
    {"tiny_city=2 farms=true, 4p", 4, 2, 1, 50, 11000, 0},
    {"tiny_city=2 farms=true, 5p", 5, 2, 1, 50, 12000, 0},
    {"tiny_city=4 farms=false, 2p", 2, 4, 0, 50, 13000, 0},
    {"tiny_city=4 farms=false, 3p", 3, 4, 0, 50, 14000, 0},
    {"tiny_city=4 farms=false, 4p", 4, 4, 0, 50, 15000, 0},
    {"tiny_city=4 farms=false, 5p", 5, 4, 0, 50, 16000, 0},
    {"dense policy, current rules, 2p", 2, 4, 1, 300, 17000, 1},
    {"dense policy, current rules, 3p", 3, 4, 1, 300, 18000, 1},
    {"dense policy, current rules, 4p", 4, 4, 1, 300, 19000, 1},
    {"dense policy, current rules, 5p", 5, 4, 1, 300, 20000, 1},
    {"dense policy, thesis rules, 2p", 2, 2, 0, 150, 21000, 1},
    {"dense policy, thesis rules, 3p", 3, 2, 0, 150, 22000, 1},
    {"dense policy, thesis rules, 4p", 4, 2, 0, 150, 23000, 1},
    {"dense policy, thesis rules, 5p", 5, 2, 0, 150, 24000, 1},
};

int main(int argc, char **argv)
{
    const char *env = getenv("TESSERA_CARC_GAMES"); /* the command line wins */
    if (env)
        g_games = atoi(env);
    g_sanitized = getenv("TESSERA_SANITIZED") != NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--slow") == 0) {
            g_slow = 1;
        } else if (strcmp(argv[i], "--games") == 0 && i + 1 < argc) {
            g_games = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            g_seed = strtoull(argv[++i], NULL, 0);
        } else {
            fprintf(stderr, "usage: %s [--slow] [--games N] [--seed S]\n", argv[0]);
            return 2;
        }
    }

#define CFG(i) cmocka_unit_test_prestate(run_config, &configs[i])
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tile_tables),
        CFG(0),  CFG(1),  CFG(2),  CFG(3),  CFG(4),  CFG(5),  CFG(6),  CFG(7),
        CFG(8),  CFG(9),  CFG(10), CFG(11), CFG(12), CFG(13), CFG(14), CFG(15),
        CFG(16), CFG(17), CFG(18), CFG(19), CFG(20), CFG(21), CFG(22), CFG(23),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
