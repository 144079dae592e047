/*
 * test_delta.c — protocol 2's compact forms (docs/protocol.md, "Protocol 2"):
 *
 *   - the state change (protocol/delta.h): in random games of every game
 *     with a wire codec, the change between consecutive public states (and
 *     between the first and each later one) applied to the earlier state
 *     gives the later one exactly; for Carcassonne a turn's change is a small
 *     fraction of the state; random nested values (arrays that grow and
 *     shrink, members added and removed, objects with '$' names, type
 *     changes) round-trip too; `from` is never modified;
 *   - bad changes, one per way to be wrong, are refused with a reason naming
 *     the place and the problem, never a crash;
 *   - Carcassonne's change written from two engine states (game_codec.change)
 *     is byte for byte the generic diff of their JSON states, for every
 *     ply of random games of 2 to 5 players, with and without farms, and
 *     from the first position; positions of two games are refused (1);
 *     and its `next` (seat and tile) is what the state's to_move and tile say;
 *   - so is the change Reversi, Dodgem (every board size) and Pentago-Twist
 *     write from their engine states (protocol/games/onemove.c), every ply
 *     and from the first position; boards of two sizes are refused (1);
 *   - their legal_text writes the text of their legal array byte for byte,
 *     its number of entries and each entry's place;
 *   - Carcassonne's compact legal entries "x,y,rot[,PORT...]" say exactly
 *     what protocol 1's entries say, in the same order, and are smaller;
 *     legal_compact_text writes exactly the text of that array.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine/eng.h"
#include "engine/dodgem/dodgem.h"
#include "protocol/delta.h"
#include "protocol/jsontext.h"
#include "protocol/wire.h"

static size_t text_len(const json_t *v)
{
    char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    assert_non_null(s);
    size_t n = strlen(s);
    free(s);
    return n;
}

/* apply(from, diff(from, to)) == to, and from is left as it was. */
static void round_trip(const json_t *from, const json_t *to)
{
    json_t *copy = json_deep_copy(from);
    json_t *d = delta_diff(from, to);
    assert_non_null(d);
    char err[256] = "";
    json_t *back = delta_apply(from, d, err, sizeof err);
    if (!back || !json_equal(back, to)) {
        char *a = json_dumps(from, JSON_COMPACT | JSON_ENCODE_ANY), *b = json_dumps(to, JSON_COMPACT | JSON_ENCODE_ANY),
             *c = json_dumps(d, JSON_COMPACT | JSON_ENCODE_ANY);
        fail_msg("round trip failed (%s)\nfrom %s\nto   %s\nchange %s", err, a, b, c);
    }
    assert_true(json_equal(copy, from));
    json_decref(copy);
    json_decref(back);
    json_decref(d);
}

static void test_game_states(void **state)
{
    (void)state;
    const char *games[] = {"carcassonne", "reversi", "dodgem", "pentago-twist"};
    for (size_t gi = 0; gi < sizeof games / sizeof games[0]; gi++) {
        const eng_game *g = eng_find_game(games[gi]);
        const game_codec *w = codec_find(games[gi]);
        assert_non_null(g);
        assert_non_null(w);
        for (int game = 0; game < 5; game++) {
            eng_rules r;
            eng_rules_default(g, &r);
            unsigned char *st = malloc(g->state_size);
            char err[128];
            assert_int_equal(eng_init(g, st, &r, err, sizeof err), 0);
            eng_rng rng;
            eng_rng_seed(&rng, 100 * gi + (uint64_t)game);
            json_t *first = w->state(st), *prev = json_incref(first);
            size_t change_bytes = 0, state_bytes = 0;
            for (int ply = 0; g->current_player(st) != ENG_TERMINAL && ply < 400; ply++) {
                g->apply(st, g->current_player(st) == ENG_CHANCE ? eng_sample_chance(g, st, &rng)
                                                                 : eng_random_move(g, st, &rng));
                json_t *now = w->state(st);
                round_trip(prev, now);
                if (ply % 7 == 0)
                    round_trip(first, now);
                json_t *d = delta_diff(prev, now);
                change_bytes += text_len(d);
                state_bytes += text_len(now);
                json_decref(d);
                json_decref(prev);
                prev = now;
            }
            if (strcmp(games[gi], "carcassonne") == 0 && change_bytes * 5 > state_bytes)
                fail_msg("carcassonne: changes %zu bytes, states %zu bytes: not compact", change_bytes,
                         state_bytes);
            json_decref(prev);
            json_decref(first);
            free(st);
        }
    }
}

/* Carcassonne's change written from the engine states equals the generic
 * diff of the two JSON states, byte for byte. */
static void codec_change_equals_diff(const game_codec *w, const void *a, const void *b)
{
    json_t *ja = w->state(a), *jb = w->state(b);
    json_t *d = delta_diff(ja, jb);
    textbuf want = TEXTBUF_INIT, got = TEXTBUF_INIT;
    assert_int_equal(jt_dump(&want, d), 0);
    assert_int_equal(w->change(a, b, &got), 0);
    if (got.len != want.len || memcmp(got.p, want.p, got.len) != 0)
        fail_msg("codec change\n  %.*s\ngeneric diff\n  %.*s", (int)got.len, got.p, (int)want.len,
                 want.p);
    tb_free(&want);
    tb_free(&got);
    json_decref(d);
    json_decref(ja);
    json_decref(jb);
}

/* Carcassonne's `next` at st: what the server read back from the
 * state's JSON before. */
static void next_as_state_says(const eng_game *g, const game_codec *w, const void *st)
{
    json_t *js = w->state(st), *next = wire_next(g, st);
    int seat = eng_turn_seat(g, st);
    json_t *tm = json_object_get(js, "to_move");
    if (json_is_integer(tm)) {
        assert_int_equal(seat, json_integer_value(tm));
        assert_int_equal(json_integer_value(json_object_get(next, "seat")), seat);
        assert_true(json_equal(json_object_get(next, "tile"), json_object_get(js, "tile")));
    } else {
        assert_true(seat < 0);
        assert_true(json_is_null(next));
    }
    json_decref(next);
    json_decref(js);
}

/* A random game of g under rules r (seeded): the codec's change equals the
 * generic diff for a position to itself, every ply, and from the first
 * position every `every` plies and at the end; per_ply (optional) checks
 * each position too. Then a position of the same game under rules `other`
 * (optional: Reversi and Pentago-Twist have no rules that change the
 * state's shape) is refused (1, nothing written). */
static void changes_of_a_game(const eng_game *g, const game_codec *w, const eng_rules *r,
                              const eng_rules *other, uint64_t seed, int every,
                              void (*per_ply)(const eng_game *, const game_codec *, const void *))
{
    unsigned char *first = malloc(g->state_size), *prev = malloc(g->state_size),
                  *st = malloc(g->state_size);
    char err[128];
    assert_int_equal(eng_init(g, st, r, err, sizeof err), 0);
    memcpy(first, st, g->state_size);
    eng_rng rng;
    eng_rng_seed(&rng, seed);
    codec_change_equals_diff(w, st, st);
    for (int ply = 0; g->current_player(st) != ENG_TERMINAL; ply++) {
        memcpy(prev, st, g->state_size);
        g->apply(st, g->current_player(st) == ENG_CHANCE ? eng_sample_chance(g, st, &rng)
                                                         : eng_random_move(g, st, &rng));
        codec_change_equals_diff(w, prev, st);
        if (per_ply)
            per_ply(g, w, st);
        if (ply % every == 0)
            codec_change_equals_diff(w, first, st);
    }
    codec_change_equals_diff(w, first, st);
    if (other) {
        textbuf b = TEXTBUF_INIT;
        assert_int_equal(eng_init(g, prev, other, err, sizeof err), 0);
        assert_int_equal(w->change(st, prev, &b), 1);
        assert_int_equal(b.len, 0);
        tb_free(&b);
    }
    free(first);
    free(prev);
    free(st);
}

static void test_codec_change(void **state)
{
    (void)state;
    const eng_game *g = eng_find_game("carcassonne");
    const game_codec *w = codec_find("carcassonne");
    assert_non_null(w->change);
    for (int players = 2; players <= 5; players++)
        for (int game = 0; game < 12; game++) {
            eng_rules r;
            eng_rules_default(g, &r);
            r.players = players;
            if (game % 4 == 3)
                r.opt[1] = 0; /* no farms */
            eng_rules r2 = r; /* positions of two different games: the codec says so */
            r2.players = players == 2 ? 3 : 2;
            changes_of_a_game(g, w, &r, &r2, 7000 + 100 * (uint64_t)players + (uint64_t)game, 11,
                              next_as_state_says);
        }
}

/* The one-move games' change written from the engine states (onemove.c)
 * equals the generic diff of their JSON states too: every ply of random
 * games, and from the first position every seventh ply (a spectator who
 * missed some turns); a board of another size is not theirs to tell. */
static void test_onemove_change(void **state)
{
    (void)state;
    for (int game = 0; game < 40; game++) {
        const eng_game *g = eng_find_game("dodgem");
        eng_rules r;
        eng_rules_default(g, &r);
        r.opt[DODGEM_OPT_SIZE] = DODGEM_MIN_N + game % (DODGEM_MAX_N - DODGEM_MIN_N + 1);
        eng_rules r2 = r;
        r2.opt[DODGEM_OPT_SIZE] = r.opt[DODGEM_OPT_SIZE] == DODGEM_MAX_N ? DODGEM_MIN_N : DODGEM_MAX_N;
        changes_of_a_game(g, codec_find("dodgem"), &r, &r2, 9200 + (uint64_t)game, 7, NULL);
    }
    static const char *games[] = {"reversi", "pentago-twist"};
    for (size_t gi = 0; gi < sizeof games / sizeof *games; gi++)
        for (int game = 0; game < 40; game++) {
            const eng_game *g = eng_find_game(games[gi]);
            const game_codec *w = codec_find(games[gi]);
            assert_non_null(w->change);
            eng_rules r;
            eng_rules_default(g, &r);
            changes_of_a_game(g, w, &r, NULL, 9100 + 100 * (uint64_t)gi + (uint64_t)game, 7, NULL);
        }
}

/* A codec's legal_text writes exactly jt_dump's text of its legal array,
 * says how many entries it has and where each one is (spans, up to cap),
 * at every position of random games. */
static void test_legal_text(void **state)
{
    (void)state;
    static const char *games[] = {"reversi", "dodgem", "pentago-twist"};
    for (size_t gi = 0; gi < sizeof games / sizeof *games; gi++) {
        const eng_game *g = eng_find_game(games[gi]);
        const game_codec *w = codec_find(games[gi]);
        assert_non_null(w->legal_text);
        uint32_t(*spans)[2] = calloc((size_t)g->max_moves, sizeof *spans);
        for (int game = 0; game < 20; game++) {
            eng_rules r;
            eng_rules_default(g, &r);
            unsigned char *st = malloc(g->state_size);
            char err[128];
            assert_int_equal(eng_init(g, st, &r, err, sizeof err), 0);
            eng_rng rng;
            eng_rng_seed(&rng, 9500 + 100 * (uint64_t)gi + (uint64_t)game);
            for (int ply = 0;; ply++) {
                json_t *legal = w->legal(st);
                textbuf want = TEXTBUF_INIT, got = TEXTBUF_INIT;
                assert_int_equal(jt_dump(&want, legal), 0);
                tb_puts(&got, "x"); /* written after what the buffer holds */
                int cap = ply % 3 == 2 ? 1 : g->max_moves;
                int n = w->legal_text(st, &got, ply % 3 == 1 ? NULL : spans, cap);
                assert_int_equal(n, (int)json_array_size(legal));
                if (got.len != want.len + 1 || memcmp(got.p + 1, want.p, want.len) != 0)
                    fail_msg("legal_text\n  %.*s\ngeneric\n  %.*s", (int)got.len - 1, got.p + 1,
                             (int)want.len, want.p);
                for (int i = 0; ply % 3 != 1 && i < n && i < cap; i++) {
                    textbuf e = TEXTBUF_INIT;
                    assert_int_equal(jt_dump(&e, json_array_get(legal, (size_t)i)), 0);
                    assert_int_equal(spans[i][1], e.len);
                    assert_memory_equal(got.p + 1 + spans[i][0], e.p, e.len);
                    tb_free(&e);
                }
                tb_free(&want);
                tb_free(&got);
                json_decref(legal);
                if (g->current_player(st) == ENG_TERMINAL)
                    break;
                g->apply(st, eng_random_move(g, st, &rng));
            }
            free(st);
        }
        free(spans);
    }
}

static uint64_t rs = 0x5eed;
static uint32_t rnd(void)
{
    rs = rs * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)(rs >> 33);
}

static json_t *random_value(int depth)
{
    switch (rnd() % (depth > 3 ? 5 : 8)) {
    case 0: return json_integer(rnd() % 5);
    case 1: return json_string(rnd() % 2 ? "a" : "b");
    case 2: return json_null();
    case 3: return json_boolean(rnd() % 2);
    case 4: return json_real(0.5 * (rnd() % 4));
    case 5:
    case 6: {
        json_t *a = json_array();
        for (int i = (int)(rnd() % 6); i > 0; i--)
            json_array_append_new(a, random_value(depth + 1));
        return a;
    }
    default: {
        json_t *o = json_object();
        for (int i = (int)(rnd() % 5); i > 0; i--) {
            static const char *const keys[] = {"a", "b", "c", "$x", "d", "0", "$del"};
            json_object_set_new(o, keys[rnd() % 7], random_value(depth + 1));
        }
        return o;
    }
    }
}

/* b: a with a few random edits. */
static json_t *mutate(const json_t *a, int depth)
{
    if (rnd() % 6 == 0 || depth > 4)
        return random_value(depth);
    if (json_is_object(a)) {
        json_t *b = json_deep_copy(a);
        const char *k;
        json_t *v;
        void *tmp;
        json_object_foreach_safe(b, tmp, k, v) {
            int what = (int)(rnd() % 4);
            if (what == 0)
                json_object_del(b, k);
            else if (what == 1)
                json_object_set_new(b, k, mutate(v, depth + 1));
        }
        if (rnd() % 3 == 0)
            json_object_set_new(b, rnd() % 2 ? "new" : "$new", random_value(depth + 1));
        return b;
    }
    if (json_is_array(a)) {
        json_t *b = json_array();
        size_t n = json_array_size(a);
        size_t keep = rnd() % 3 == 0 ? n / 2 : n;
        for (size_t i = 0; i < keep; i++)
            json_array_append_new(b, rnd() % 3 == 0 ? mutate(json_array_get(a, i), depth + 1)
                                                    : json_deep_copy(json_array_get(a, i)));
        for (int i = (int)(rnd() % 3); i > 0; i--)
            json_array_append_new(b, random_value(depth + 1));
        return b;
    }
    return random_value(depth);
}

static void test_random_values(void **state)
{
    (void)state;
    for (int i = 0; i < 20000; i++) {
        json_t *a = random_value(0), *b = mutate(a, 0);
        round_trip(a, b);
        round_trip(b, a);
        round_trip(a, a);
        json_decref(a);
        json_decref(b);
    }
    /* no change is {} */
    json_t *a = json_pack("{s:[i,i], s:{s:s}}", "x", 1, 2, "y", "z", "w");
    json_t *d = delta_diff(a, a);
    assert_true(json_is_object(d) && json_object_size(d) == 0);
    json_decref(d);
    json_decref(a);
}

static void test_bad_changes(void **state)
{
    (void)state;
    static const struct {
        const char *from, *change, *error;
    } cases[] = {
        {"{\"a\":1}", "{\"$set\":1,\"b\":2}", "the state: \"$set\" must be the only member"},
        {"[1,2]", "{\"$len\":-1}", "\"$len\" must be an integer from 0 to 100000"},
        {"[1,2]", "{\"$len\":100001}", "\"$len\" must be an integer from 0 to 100000"},
        {"[1,2]", "{\"$len\":\"2\"}", "\"$len\" must be an integer"},
        {"[1,2]", "{\"$len\":1.0}", "\"$len\" must be an integer"},
        {"[1,2]", "{\"2\":5}", "decimal indices below the length"},
        {"[1,2]", "{\"$len\":3,\"3\":5}", "decimal indices below the length"},
        {"[1,2]", "{\"01\":5}", "decimal indices below the length"},
        {"[1,2]", "{\"-1\":5}", "decimal indices below the length"},
        {"[1,2]", "{\"x\":5}", "decimal indices below the length"},
        {"[1,2]", "{\"\":5}", "decimal indices below the length"},
        {"{\"a\":1}", "{\"$del\":\"a\"}", "\"$del\" must be an array of member names"},
        {"{\"a\":1}", "{\"$del\":[\"b\"]}", "\"$del\" names a member the object does not have"},
        {"{\"a\":1}", "{\"$del\":[1]}", "\"$del\" names a member"},
        {"{\"a\":1}", "{\"$x\":1}", "no member starting with '$' but \"$del\""},
        {"{\"a\":\"s\"}", "{\"a\":{\"b\":1}}", "a: a patch (an object) for a value that is neither"},
        {"{\"a\":[{\"b\":3}]}", "{\"a\":{\"0\":{\"b\":{\"c\":1}}}}", "a.0.b: a patch"},
        {"{\"a\":1}", "{\"b\":{\"c\":1}}", "b: a patch (an object) for a value"},
        {"7", "{\"a\":1}", "the state: a patch"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_error_t e;
        json_t *from = json_loads(cases[i].from, JSON_DECODE_ANY, &e);
        json_t *d = json_loads(cases[i].change, JSON_DECODE_ANY, &e);
        assert_non_null(from);
        assert_non_null(d);
        char err[256] = "";
        json_t *r = delta_apply(from, d, err, sizeof err);
        if (r || !strstr(err, cases[i].error))
            fail_msg("case %zu: %s on %s: want an error with \"%s\", got %s", i, cases[i].change,
                     cases[i].from, cases[i].error, r ? "a result" : err);
        json_decref(from);
        json_decref(d);
    }
    /* nested too deeply */
    json_t *from = json_object(), *d = json_object(), *f = from, *c = d;
    for (int i = 0; i < DELTA_MAX_DEPTH + 3; i++) {
        json_t *nf = json_object(), *nc = json_object();
        json_object_set_new(f, "a", nf);
        json_object_set_new(c, "a", nc);
        f = nf;
        c = nc;
    }
    json_object_set_new(c, "b", json_integer(1));
    char err[256] = "";
    assert_null(delta_apply(from, d, err, sizeof err));
    assert_non_null(strstr(err, "nested too deeply"));
    json_decref(from);
    json_decref(d);
    assert_null(delta_apply(NULL, NULL, err, sizeof err));
}

/* legal_compact_text writes exactly the text of legal_compact's array. */
static void same_text(const game_codec *w, const void *st, const json_t *compact)
{
    assert_non_null(w->legal_compact_text);
    textbuf want = TEXTBUF_INIT, got = TEXTBUF_INIT;
    assert_int_equal(jt_dump(&want, compact), 0);
    assert_int_equal(tb_put(&got, "x", 1), 0); /* it appends */
    assert_int_equal(w->legal_compact_text(st, &got), 0);
    assert_int_equal(got.len, want.len + 1);
    assert_memory_equal(got.p + 1, want.p, want.len);
    tb_free(&want);
    tb_free(&got);
}

static void test_compact_legal(void **state)
{
    (void)state;
    const eng_game *g = eng_find_game("carcassonne");
    const game_codec *w = codec_find("carcassonne");
    assert_non_null(w->legal_compact);
    eng_rules r;
    eng_rules_default(g, &r);
    size_t full = 0, compact = 0;
    for (int game = 0; game < 20; game++) {
        unsigned char *st = malloc(g->state_size);
        char err[128];
        assert_int_equal(eng_init(g, st, &r, err, sizeof err), 0);
        eng_rng rng;
        eng_rng_seed(&rng, 900 + (uint64_t)game);
        while (g->current_player(st) != ENG_TERMINAL) {
            if (g->current_player(st) >= 0) {
                json_t *l1 = w->legal(st), *l2 = w->legal_compact(st);
                assert_int_equal(json_array_size(l1), json_array_size(l2));
                for (size_t i = 0; i < json_array_size(l1); i++) {
                    const json_t *e1 = json_array_get(l1, i);
                    const char *e2 = json_string_value(json_array_get(l2, i));
                    assert_non_null(e2);
                    char want[96];
                    int n = snprintf(want, sizeof want, "%lld,%lld,%lld",
                                     (long long)json_integer_value(json_object_get(e1, "x")),
                                     (long long)json_integer_value(json_object_get(e1, "y")),
                                     (long long)json_integer_value(json_object_get(e1, "rot")));
                    size_t k;
                    json_t *port;
                    json_array_foreach(json_object_get(e1, "meeples"), k, port)
                        n += snprintf(want + n, sizeof want - (size_t)n, ",%s", json_string_value(port));
                    assert_string_equal(e2, want);
                }
                full += text_len(l1);
                compact += text_len(l2);
                same_text(w, st, l2);
                json_decref(l1);
                json_decref(l2);
            } else {
                json_t *l2 = w->legal_compact(st);
                assert_int_equal(json_array_size(l2), 0);
                same_text(w, st, l2);
                json_decref(l2);
            }
            g->apply(st, g->current_player(st) == ENG_CHANCE ? eng_sample_chance(g, st, &rng)
                                                             : eng_random_move(g, st, &rng));
        }
        free(st);
    }
    if (compact * 2 > full)
        fail_msg("compact legal %zu bytes against %zu: not compact", compact, full);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_game_states),
        cmocka_unit_test(test_random_values),
        cmocka_unit_test(test_bad_changes),
        cmocka_unit_test(test_compact_legal),
        cmocka_unit_test(test_codec_change),
        cmocka_unit_test(test_onemove_change),
        cmocka_unit_test(test_legal_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
