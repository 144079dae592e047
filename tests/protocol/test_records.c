/*
 * test_records.c — game records round-trip: every game the uniform random
 * policy plays, written with rec_build() and read back with
 * rec_replay_json(), must replay to the very scores seen while playing,
 * after every turn and at the end.
 *
 * Usage: test_records [GAMES]   (random games per Carcassonne seat count,
 * default 10000; the `slow` suite passes a larger number). Besides the big
 * round trip this file checks the reader's documented leniencies (any
 * equivalent rotation, any port of a feature, meeple null), unfinished
 * records, the text path (dump + rec_replay_buffer), the size limit and
 * rec_build()'s refusals, and rec_build_complete() on matches that stopped
 * inside a turn.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine/carcassonne/carcassonne.h"
#include "engine/reversi/reversi.h"
#include "protocol/record.h"

static int n_games = 10000;

/* ---- playing and remembering ----------------------------------------------- */

#define MAX_TURNS 256

/* One game played with the uniform random policy, and what a replay must
 * reproduce: the scores (and, when kept, the state) after every turn. */
typedef struct played {
    const eng_game *g;
    eng_rules rules;
    eng_move moves[512];
    int nmoves;
    int nturns;
    int turn_end[MAX_TURNS];                     /* moves applied when turn k+1 ended */
    double scores[MAX_TURNS][ENG_MAX_PLAYERS];   /* scores after turn k+1 */
    unsigned char *states;                       /* nturns states, or NULL */
    bool finished;
} played;

/* A turn ends when the game is back at a draw or over (Carcassonne), or
 * after every move (games without chance). */
static bool turn_boundary(const eng_game *g, const void *st)
{
    int p = g->current_player(st);
    return g->max_chance == 0 || p == ENG_CHANCE || p == ENG_TERMINAL;
}

/* Play seed `seed` to the end, or for at most max_turns turns. */
static void play(played *pg, const eng_game *g, const eng_rules *rules, uint64_t seed,
                 int max_turns, bool keep_states)
{
    void *st = malloc(g->state_size);
    assert_non_null(st);
    pg->g = g;
    pg->rules = *rules;
    pg->nmoves = pg->nturns = 0;
    g->init(st, rules);
    eng_rng rng;
    eng_rng_seed(&rng, seed);
    int p;
    while ((p = g->current_player(st)) != ENG_TERMINAL && pg->nturns < max_turns) {
        eng_move m = p == ENG_CHANCE ? eng_sample_chance(g, st, &rng) : eng_random_move(g, st, &rng);
        g->apply(st, m);
        assert_true(pg->nmoves < (int)(sizeof pg->moves / sizeof pg->moves[0]));
        pg->moves[pg->nmoves++] = m;
        if (turn_boundary(g, st)) {
            assert_true(pg->nturns < MAX_TURNS);
            pg->turn_end[pg->nturns] = pg->nmoves;
            g->scores(st, pg->scores[pg->nturns]);
            if (keep_states && pg->states)
                memcpy(pg->states + (size_t)pg->nturns * g->state_size, st, g->state_size);
            pg->nturns++;
        }
    }
    pg->finished = g->current_player(st) == ENG_TERMINAL;
    free(st);
}

/* The replay callback: turns come in order, each with the scores (and the
 * state, when kept) seen while playing. */
typedef struct check_ctx {
    const played *pg;
    int next;      /* turn number expected next */
    bool states;   /* compare whole states too */
} check_ctx;

static void check_turn(void *ud, int turn, const json_t *turn_json, const void *state)
{
    check_ctx *c = ud;
    const played *pg = c->pg;
    assert_int_equal(turn, c->next);
    c->next++;
    assert_true(turn >= 1 && turn <= pg->nturns);
    assert_true(json_is_object(turn_json));
    double sc[ENG_MAX_PLAYERS];
    pg->g->scores(state, sc);
    for (int p = 0; p < pg->rules.players; p++)
        assert_true(sc[p] == pg->scores[turn - 1][p]);
    if (c->states)
        assert_memory_equal(state, pg->states + (size_t)(turn - 1) * pg->g->state_size,
                            pg->g->state_size);
}

/* Build the record of pg, replay it (object, and text when `text`), and
 * check everything the replay reports. */
static void round_trip(const played *pg, bool states, bool text)
{
    char err[256] = "";
    json_t *rec = rec_build(pg->g, &pg->rules, pg->moves, pg->nmoves, err, sizeof err);
    if (!rec)
        fail_msg("rec_build: %s", err);
    json_t *turns = json_object_get(rec, "turns");
    assert_int_equal(json_array_size(turns), pg->nturns);
    assert_int_equal(json_object_get(rec, "result") != NULL, pg->finished);

    for (int pass = 0; pass < (text ? 2 : 1); pass++) {
        check_ctx c = {pg, 1, states};
        rec_replay out;
        int rc;
        if (pass == 0) {
            rc = rec_replay_json(rec, check_turn, &c, &out);
        } else {
            char *s = json_dumps(rec, JSON_COMPACT);
            assert_non_null(s);
            rc = rec_replay_buffer(s, strlen(s), check_turn, &c, &out);
            free(s);
        }
        if (rc != 0)
            fail_msg("replay failed (%s) at turn %d: %s", eng_err_code(rc), out.bad_turn,
                     out.reason);
        assert_int_equal(c.next, pg->nturns + 1);
        assert_ptr_equal(out.game, pg->g);
        assert_int_equal(out.rules.players, pg->rules.players);
        assert_memory_equal(out.rules.opt, pg->rules.opt, sizeof out.rules.opt);
        assert_int_equal(out.turns, pg->nturns);
        assert_int_equal(out.finished, pg->finished);
        assert_int_equal(out.bad_turn, 0);
        double want[ENG_MAX_PLAYERS];
        if (pg->nturns) {
            memcpy(want, pg->scores[pg->nturns - 1], sizeof want);
        } else { /* no turn: the scores of the initial state (Reversi: 2-2) */
            void *st = malloc(pg->g->state_size);
            assert_non_null(st);
            pg->g->init(st, &pg->rules);
            pg->g->scores(st, want);
            free(st);
        }
        for (int p = 0; p < pg->rules.players; p++)
            assert_true(out.scores[p] == want[p]);
    }
    if (pg->finished) {
        const json_t *sc = json_object_get(json_object_get(rec, "result"), "scores");
        assert_int_equal(json_array_size(sc), pg->rules.players);
        for (int p = 0; p < pg->rules.players; p++)
            assert_true(json_number_value(json_array_get(sc, (size_t)p)) ==
                        pg->scores[pg->nturns - 1][p]);
    }
    json_decref(rec);
}

static void carc_rules(eng_rules *r, int players, int tiny_city, bool farms)
{
    eng_rules_default(&carc_game, r);
    r->players = players;
    r->opt[CARC_OPT_TINY_CITY] = tiny_city;
    r->opt[CARC_OPT_FARMS] = farms;
}

/* n_games random Carcassonne games with `players` seats: every turn's
 * scores; whole states for the first 100 games; text path for 1 in 16. */
static void carc_many(int players, int tiny_city, bool farms, int games, uint64_t seed0)
{
    played *pg = calloc(1, sizeof *pg);
    assert_non_null(pg);
    pg->states = malloc((size_t)MAX_TURNS * carc_game.state_size);
    assert_non_null(pg->states);
    eng_rules r;
    carc_rules(&r, players, tiny_city, farms);
    int discards = 0;
    for (int i = 0; i < games; i++) {
        bool states = i < 100;
        play(pg, &carc_game, &r, seed0 + (uint64_t)i, MAX_TURNS, states);
        assert_true(pg->finished);
        /* 71 draws after the start tile: every draw is one turn */
        assert_int_equal(pg->nturns, CARC_NTILES - 1);
        discards += pg->nmoves != 3 * pg->nturns;
        round_trip(pg, states, i % 16 == 0);
    }
    /* Dead tiles do happen in random play; the discard path must have run. */
    if (games >= 2000)
        assert_true(discards > 0);
    free(pg->states);
    free(pg);
}

static void test_carc_2p(void **state)
{
    (void)state;
    carc_many(2, 4, true, n_games, 1000000);
}

static void test_carc_3p(void **state)
{
    (void)state;
    carc_many(3, 4, true, n_games, 2000000);
}

static void test_carc_4p(void **state)
{
    (void)state;
    carc_many(4, 4, true, n_games, 3000000);
}

static void test_carc_5p(void **state)
{
    (void)state;
    carc_many(5, 4, true, n_games, 4000000);
}

static void test_carc_variants(void **state)
{
    (void)state;
    for (int players = 2; players <= 5; players++) {
        carc_many(players, 2, false, 100, 5000000 + 1000 * (uint64_t)players);
        carc_many(players, 2, true, 50, 6000000 + 1000 * (uint64_t)players);
        carc_many(players, 4, false, 50, 7000000 + 1000 * (uint64_t)players);
    }
}

static void test_reversi(void **state)
{
    (void)state;
    played *pg = calloc(1, sizeof *pg);
    assert_non_null(pg);
    pg->states = malloc((size_t)MAX_TURNS * rev_game.state_size);
    assert_non_null(pg->states);
    eng_rules r;
    eng_rules_default(&rev_game, &r);
    int passes = 0;
    for (int i = 0; i < 2000; i++) {
        play(pg, &rev_game, &r, 9000000 + (uint64_t)i, MAX_TURNS, true);
        assert_true(pg->finished);
        assert_int_equal(pg->nturns, pg->nmoves);
        for (int k = 0; k < pg->nmoves; k++)
            passes += pg->moves[k] == REV_PASS;
        round_trip(pg, true, i % 4 == 0);
    }
    assert_true(passes > 0); /* the "pass" turn was exercised */
    free(pg->states);
    free(pg);
}

/* Dodgem (every size; the default cap, and short caps that end in draws)
 * and Pentago-Twist: every random game round-trips, state by state. */
static void test_dodgem_pentago(void **state)
{
    (void)state;
    played *pg = calloc(1, sizeof *pg);
    assert_non_null(pg);
    const eng_game *dodgem = eng_find_game("dodgem"), *pentago = eng_find_game("pentago-twist");
    assert_non_null(dodgem);
    assert_non_null(pentago);
    size_t big = dodgem->state_size > pentago->state_size ? dodgem->state_size
                                                         : pentago->state_size;
    pg->states = malloc((size_t)MAX_TURNS * big);
    assert_non_null(pg->states);
    static const char *const variants[] = {"size=3", "size=4", "size=5", "max_plies=7",
                                           "max_plies=60"};
    int draws = 0;
    for (size_t v = 0; v < sizeof variants / sizeof *variants; v++) {
        eng_rules r;
        eng_rules_default(dodgem, &r);
        assert_int_equal(eng_rules_set(dodgem, &r, variants[v], NULL, 0), 0);
        for (int i = 0; i < 300; i++) {
            play(pg, dodgem, &r, 13000000 + 1000 * (uint64_t)v + (uint64_t)i, MAX_TURNS, true);
            assert_true(pg->finished);
            double sc[ENG_MAX_PLAYERS];
            memcpy(sc, pg->scores[pg->nturns - 1], sizeof sc);
            draws += sc[0] == sc[1];
            round_trip(pg, true, i % 4 == 0);
        }
    }
    assert_true(draws > 0); /* the ply cap's draws were recorded too */
    eng_rules r;
    eng_rules_default(pentago, &r);
    for (int i = 0; i < 1000; i++) {
        play(pg, pentago, &r, 14000000 + (uint64_t)i, MAX_TURNS, true);
        assert_true(pg->finished);
        round_trip(pg, true, i % 4 == 0);
    }
    /* unfinished games too */
    for (int i = 0; i < 30; i++) {
        play(pg, pentago, &r, 15000000 + (uint64_t)i, i % 9, false);
        round_trip(pg, false, true);
    }
    free(pg->states);
    free(pg);
}

/* Unfinished games (cut at a turn boundary) are valid records without a
 * result, and replay to the scores of their last turn. */
static void test_unfinished(void **state)
{
    (void)state;
    played *pg = calloc(1, sizeof *pg);
    assert_non_null(pg);
    eng_rules r;
    carc_rules(&r, 3, 4, true);
    for (int i = 0; i < 200; i++) {
        play(pg, &carc_game, &r, 11000 + (uint64_t)i, i % 71, false);
        assert_int_equal(pg->nturns, i % 71);
        assert_false(pg->finished);
        round_trip(pg, false, true);
    }
    eng_rules_default(&rev_game, &r);
    for (int i = 0; i < 50; i++) {
        play(pg, &rev_game, &r, 12000 + (uint64_t)i, i, false);
        assert_false(pg->finished);
        round_trip(pg, false, true);
    }
    free(pg);
}

/* ---- the reader's leniencies ------------------------------------------------- */

/* Rewrite every placed turn with a random equivalent rotation and a random
 * other port of the same feature of the tile (or "meeple": null for none):
 * the replay must reach the same scores after every turn. */
static void test_equivalent_spellings(void **state)
{
    (void)state;
    const carc_type *types = carc_types();
    played *pg = calloc(1, sizeof *pg);
    assert_non_null(pg);
    eng_rules r;
    carc_rules(&r, 4, 4, true);
    eng_rng rng;
    eng_rng_seed(&rng, 77);
    int changed_rot = 0, changed_port = 0;
    for (int i = 0; i < 300; i++) {
        play(pg, &carc_game, &r, 13000 + (uint64_t)i, MAX_TURNS, false);
        char err[256];
        json_t *rec = rec_build(pg->g, &pg->rules, pg->moves, pg->nmoves, err, sizeof err);
        assert_non_null(rec);
        size_t k;
        json_t *turn;
        json_array_foreach(json_object_get(rec, "turns"), k, turn)
        {
            json_t *jrot = json_object_get(turn, "rot");
            if (!jrot)
                continue;
            int t = carc_type_of_letter(json_string_value(json_object_get(turn, "tile"))[0]);
            int rot = (int)json_integer_value(jrot);
            assert_int_equal(types[t].canon[rot], rot); /* records write the canonical one */
            int alt[4], nalt = 0;
            for (int q = 0; q < 4; q++)
                if (types[t].canon[q] == rot)
                    alt[nalt++] = q;
            int nrot = alt[eng_rng_below(&rng, (uint32_t)nalt)];
            changed_rot += nrot != rot;
            json_object_set_new(turn, "rot", json_integer(nrot));

            json_t *jm = json_object_get(turn, "meeple");
            if (!jm) {
                if (eng_rng_below(&rng, 2))
                    json_object_set_new(turn, "meeple", json_null());
                continue;
            }
            int port = carc_port_of_name(json_string_value(jm));
            uint8_t seg = types[t].rot[rot].seg[port];
            int ports[CARC_NPORTS], np = 0;
            for (int q = 0; q < CARC_NPORTS; q++)
                if (types[t].rot[rot].seg[q] == seg)
                    ports[np++] = q;
            assert_true(np >= 1);
            int npick = ports[eng_rng_below(&rng, (uint32_t)np)];
            changed_port += npick != port;
            json_object_set_new(turn, "meeple", json_string(carc_port_name(npick)));
        }
        check_ctx c = {pg, 1, false};
        rec_replay out;
        int rc = rec_replay_json(rec, check_turn, &c, &out);
        if (rc)
            fail_msg("turn %d: %s", out.bad_turn, out.reason);
        assert_int_equal(out.turns, pg->nturns);
        json_decref(rec);
    }
    assert_true(changed_rot > 100);
    assert_true(changed_port > 100);
    free(pg);
}

/* ---- limits and refusals ------------------------------------------------------ */

static void test_size_limit(void **state)
{
    (void)state;
    played pg0 = {0};
    played *pg = &pg0;
    eng_rules r;
    carc_rules(&r, 2, 4, true);
    play(pg, &carc_game, &r, 5, MAX_TURNS, false);
    json_t *rec = rec_build(pg->g, &pg->rules, pg->moves, pg->nmoves, NULL, 0);
    assert_non_null(rec);
    char *s = json_dumps(rec, JSON_COMPACT);
    assert_non_null(s);
    size_t len = strlen(s);
    assert_true(len < REC_MAX_BYTES);
    json_decref(rec);

    /* Exactly at the limit (padded with white space): accepted. */
    char *big = malloc((size_t)REC_MAX_BYTES + 1);
    assert_non_null(big);
    memset(big, ' ', (size_t)REC_MAX_BYTES + 1);
    memcpy(big, s, len);
    rec_replay out;
    assert_int_equal(rec_replay_buffer(big, REC_MAX_BYTES, NULL, NULL, &out), 0);
    assert_int_equal(out.turns, CARC_NTILES - 1);
    /* One byte more: refused before parsing. */
    assert_int_equal(rec_replay_buffer(big, (size_t)REC_MAX_BYTES + 1, NULL, NULL, &out),
                     ENG_ETOO_LARGE);
    assert_int_equal(out.bad_turn, 0);
    assert_non_null(strstr(out.reason, "limit"));
    free(big);
    free(s);

    /* No input, NULL object, NULL out. */
    assert_int_equal(rec_replay_buffer("", 0, NULL, NULL, &out), ENG_EBAD_JSON);
    assert_int_equal(rec_replay_json(NULL, NULL, NULL, &out), ENG_EBAD_RECORD);
    assert_int_equal(rec_replay_buffer("[]", 2, NULL, NULL, NULL), ENG_EBAD_RECORD);
}

static void test_build_refuses(void **state)
{
    (void)state;
    played *pg = calloc(1, sizeof *pg);
    assert_non_null(pg);
    eng_rules r;
    carc_rules(&r, 2, 4, true);
    play(pg, &carc_game, &r, 6, MAX_TURNS, false);
    char err[256];

    /* A turn cut short: the draw (and the placement) of a placed tile
     * without its meeple step. */
    int k = 1;
    while (pg->turn_end[k] - pg->turn_end[k - 1] != 3)
        k++;
    for (int extra = 1; extra <= 2; extra++) {
        err[0] = 0;
        assert_null(
            rec_build(&carc_game, &r, pg->moves, pg->turn_end[k - 1] + extra, err, sizeof err));
        assert_non_null(strstr(err, "inside the turn"));
    }

    /* An illegal placement. */
    eng_move saved = pg->moves[1];
    pg->moves[1] = carc_cell(40, 40) * 4;
    err[0] = 0;
    assert_null(rec_build(&carc_game, &r, pg->moves, pg->nmoves, err, sizeof err));
    assert_non_null(strstr(err, "not a legal placement"));
    pg->moves[1] = saved;

    /* A chance outcome that is no tile. */
    saved = pg->moves[0];
    pg->moves[0] = 99;
    assert_null(rec_build(&carc_game, &r, pg->moves, pg->nmoves, err, sizeof err));
    pg->moves[0] = saved;

    /* Moves after the end of the game. */
    pg->moves[pg->nmoves] = 0;
    err[0] = 0;
    assert_null(rec_build(&carc_game, &r, pg->moves, pg->nmoves + 1, err, sizeof err));
    assert_non_null(strstr(err, "after the end"));

    /* Bad rules, bad arguments. */
    eng_rules bad = r;
    bad.opt[CARC_OPT_TINY_CITY] = 3;
    assert_null(rec_build(&carc_game, &bad, pg->moves, pg->nmoves, err, sizeof err));
    assert_null(rec_build(&carc_game, &r, NULL, 5, err, sizeof err));
    assert_null(rec_build(NULL, &r, pg->moves, 0, err, sizeof err));

    /* The empty game is a valid, unfinished record. */
    json_t *rec = rec_build(&carc_game, &r, NULL, 0, err, sizeof err);
    assert_non_null(rec);
    rec_replay out;
    assert_int_equal(rec_replay_json(rec, NULL, NULL, &out), 0);
    assert_int_equal(out.turns, 0);
    assert_false(out.finished);
    json_decref(rec);
    free(pg);
}

/* A match that ended inside a turn (a resignation or a timeout while a seat
 * held its drawn tile; issue 15, item 5): rec_build_complete() leaves the
 * cut turn out and says how many moves the record covers, at every length
 * of a Carcassonne game (draw only, draw + placement) and for Reversi; the
 * record replays to the scores after the last complete turn. */
static void test_build_complete(void **state)
{
    (void)state;
    played *pg = calloc(1, sizeof *pg);
    assert_non_null(pg);
    eng_rules r;
    carc_rules(&r, 2, 4, true);
    play(pg, &carc_game, &r, 24, MAX_TURNS, false); /* seed 24 has a discard */
    assert_true(pg->finished);
    char err[256];
    int checked_cut = 0;
    for (int n = 0; n <= pg->nmoves; n++) {
        int k = 0; /* complete turns within the first n moves */
        while (k < pg->nturns && pg->turn_end[k] <= n)
            k++;
        int want_used = k ? pg->turn_end[k - 1] : 0;
        int used = -1;
        err[0] = 0;
        json_t *rec = rec_build_complete(&carc_game, &r, pg->moves, n, &used, err, sizeof err);
        if (!rec)
            fail_msg("%d moves: %s", n, err);
        assert_int_equal(used, want_used);
        assert_int_equal(json_array_size(json_object_get(rec, "turns")), k);
        assert_int_equal(json_object_get(rec, "result") != NULL, k == pg->nturns);
        rec_replay out;
        if (rec_replay_json(rec, NULL, NULL, &out) != 0)
            fail_msg("%d moves: the record does not replay: turn %d: %s", n, out.bad_turn,
                     out.reason);
        assert_int_equal(out.turns, k);
        assert_int_equal(out.finished, k == pg->nturns);
        for (int p = 0; p < r.players; p++)
            assert_true(out.scores[p] == (k ? pg->scores[k - 1][p] : 0));
        json_decref(rec);
        /* rec_build() still refuses a turn cut short */
        if (n != want_used) {
            checked_cut++;
            json_t *strict = rec_build(&carc_game, &r, pg->moves, n, err, sizeof err);
            assert_null(strict);
            assert_non_null(strstr(err, "inside the turn"));
        }
    }
    assert_true(checked_cut > 100); /* most turns are draw, placement, meeple */

    /* Illegal moves are refused all the same, cut turn or not. */
    eng_move saved = pg->moves[1];
    pg->moves[1] = carc_cell(40, 40) * 4;
    assert_null(rec_build_complete(&carc_game, &r, pg->moves, 2, NULL, err, sizeof err));
    assert_non_null(strstr(err, "not a legal placement"));
    pg->moves[1] = saved;

    /* Reversi: every move is a turn, nothing is ever cut. */
    eng_rules rr;
    eng_rules_default(&rev_game, &rr);
    play(pg, &rev_game, &rr, 3, MAX_TURNS, false);
    for (int n = 0; n <= pg->nmoves; n += 7) {
        int used = -1;
        json_t *rec = rec_build_complete(&rev_game, &rr, pg->moves, n, &used, err, sizeof err);
        assert_non_null(rec);
        assert_int_equal(used, n);
        assert_int_equal(json_array_size(json_object_get(rec, "turns")), n);
        json_decref(rec);
    }
    free(pg);
}

/* The rules object: options default when missing, unknown ones are refused. */
static void test_rules_defaults(void **state)
{
    (void)state;
    static const struct {
        const char *rules;
        int rc;
    } cases[] = {
        {"{\"players\":3}", 0},
        {"{\"players\":3,\"farms\":false}", 0},
        {"{\"players\":3,\"tiny_city\":2}", 0},
        {"{\"players\":3,\"farms\":0}", ENG_EBAD_RULE},
        {"{\"players\":3,\"tiny_city\":true}", ENG_EBAD_RULE},
        {"{\"players\":3,\"tiny_city\":3}", ENG_EBAD_RULE},
        {"{\"players\":3,\"tiny_city\":4294967298}", ENG_EBAD_RULE},
        {"{\"players\":3,\"river\":true}", ENG_EBAD_RULE},
        {"{}", ENG_EBAD_PLAYERS},
        {"{\"players\":1}", ENG_EBAD_PLAYERS},
        {"{\"players\":4294967298}", ENG_EBAD_PLAYERS},
        {"{\"players\":\"3\"}", ENG_EBAD_PLAYERS},
        {"[]", ENG_EBAD_RECORD},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[512];
        snprintf(buf, sizeof buf,
                 "{\"format\":\"tessera-record\",\"version\":1,\"game\":\"carcassonne\","
                 "\"rules\":%s,\"turns\":[]}",
                 cases[i].rules);
        rec_replay out;
        int rc = rec_replay_buffer(buf, strlen(buf), NULL, NULL, &out);
        if (rc != cases[i].rc)
            fail_msg("rules %s: got %s (%s), want %s", cases[i].rules, eng_err_code(rc),
                     out.reason, eng_err_code(cases[i].rc));
        if (rc == 0) {
            assert_int_equal(out.rules.players, 3);
            bool farms_false = strstr(cases[i].rules, "false") != NULL;
            assert_int_equal(out.rules.opt[CARC_OPT_FARMS], farms_false ? 0 : 1);
            assert_int_equal(out.rules.opt[CARC_OPT_TINY_CITY],
                             strstr(cases[i].rules, "tiny_city") ? 2 : 4);
        }
    }
}

/* A turn applied to a state inside a turn (after the draw, or after the
 * placement) is refused, never read as the wrong kind of move. */
static void test_turn_inside_turn(void **state)
{
    (void)state;
    eng_rules r;
    carc_rules(&r, 2, 4, true);
    carc_state st;
    eng_rng rng;
    eng_rng_seed(&rng, 5);
    eng_move moves[ENG_MAX_TURN_MOVES], legal[CARC_MAX_MOVES];
    json_t *turn = json_pack("{s:i, s:s, s:i, s:i, s:i}", "player", 0, "tile", "V", "x", 1, "y", 0,
                             "rot", 0);
    for (int step = 0; step < 2; step++) {
        carc_game.init(&st, &r);
        carc_game.apply(&st, eng_sample_chance(&carc_game, &st, &rng)); /* the draw */
        if (step == 1) { /* and the placement: at the meeple step */
            assert_true(carc_game.legal_moves(&st, legal) > 0);
            carc_game.apply(&st, legal[0]);
        }
        char err[256] = "";
        int n = -1;
        int rc = rec_apply_turn(&carc_game, &st, turn, moves, &n, err, sizeof err);
        assert_int_equal(rc, ENG_EILLEGAL_MOVE);
        assert_non_null(strstr(err, "draw"));
        assert_int_equal(n, 0);
    }
    json_decref(turn);
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        n_games = atoi(argv[1]);
        if (n_games < 1) {
            fprintf(stderr, "usage: %s [GAMES]\n", argv[0]);
            return 2;
        }
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_carc_2p),          cmocka_unit_test(test_carc_3p),
        cmocka_unit_test(test_carc_4p),          cmocka_unit_test(test_carc_5p),
        cmocka_unit_test(test_carc_variants),    cmocka_unit_test(test_reversi), cmocka_unit_test(test_dodgem_pentago),
        cmocka_unit_test(test_unfinished),       cmocka_unit_test(test_equivalent_spellings),
        cmocka_unit_test(test_size_limit),       cmocka_unit_test(test_build_refuses),
        cmocka_unit_test(test_build_complete),   cmocka_unit_test(test_rules_defaults),
        cmocka_unit_test(test_turn_inside_turn),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
