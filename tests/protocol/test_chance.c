/*
 * test_chance.c — verifiable games (protocol/chance.h, eng_chance_draw):
 * the commitment against SHA-256 values computed independently (coreutils'
 * sha256sum), the parsers of seeds and nonces at their edges, the chance
 * derivation (one stream per event; the same tiles whatever the moves), and
 * rec_verify_chance on an honest record and on records whose tile,
 * seed, nonce or commitment were changed, or that lack the block or the
 * reveal.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "protocol/chance.h"
#include "protocol/record.h"

static void test_commitment_known_values(void **state)
{
    (void)state;
    chance_secret s = {.seed = 1};
    for (int i = 0; i < CHANCE_NONCE_LEN; i++)
        s.nonce[i] = (uint8_t)i;
    char c[CHANCE_COMMIT_HEX];
    assert_int_equal(chance_commitment(&s, c), 0);
    /* printf 'tessera-chance-1:1:000102030405060708090a0b0c0d0e0f' | sha256sum */
    assert_string_equal(c, "ade43510e840e34d7b4fe725fb6fc7f2ec30e783685717009f6390c637d30713");
    s.seed = UINT64_MAX;
    memset(s.nonce, 0xff, sizeof s.nonce);
    assert_int_equal(chance_commitment(&s, c), 0);
    assert_string_equal(c, "70abc71e87488638890237b1bd6946302237265a85033d88fb61911aeb740a68");
}

static void test_parsers(void **state)
{
    (void)state;
    uint64_t v;
    assert_int_equal(chance_seed_parse("0", &v), 0);
    assert_true(v == 0);
    assert_int_equal(chance_seed_parse("18446744073709551615", &v), 0);
    assert_true(v == UINT64_MAX);
    assert_int_equal(chance_seed_parse("18446744073709551616", &v), ENG_EINVAL);
    assert_int_equal(chance_seed_parse("99999999999999999999", &v), ENG_EINVAL);
    assert_int_equal(chance_seed_parse("01", &v), ENG_EINVAL);
    assert_int_equal(chance_seed_parse("-1", &v), ENG_EINVAL);
    assert_int_equal(chance_seed_parse("+1", &v), ENG_EINVAL);
    assert_int_equal(chance_seed_parse(" 1", &v), ENG_EINVAL);
    assert_int_equal(chance_seed_parse("", &v), ENG_EINVAL);
    uint8_t n[CHANCE_NONCE_LEN], m[CHANCE_NONCE_LEN];
    char hex[CHANCE_NONCE_HEX];
    assert_int_equal(chance_nonce_random(n), 0);
    chance_nonce_hex(n, hex);
    assert_int_equal(strlen(hex), 32);
    assert_int_equal(chance_nonce_parse(hex, m), 0);
    assert_memory_equal(n, m, sizeof n);
    assert_int_equal(chance_nonce_parse("000102030405060708090A0B0C0D0E0F", m), ENG_EINVAL);
    assert_int_equal(chance_nonce_parse("000102030405060708090a0b0c0d0e0", m), ENG_EINVAL);
    assert_int_equal(chance_nonce_parse("000102030405060708090a0b0c0d0e0f0", m), ENG_EINVAL);
    assert_int_equal(chance_nonce_parse("000102030405060708090a0b0c0d0e0g", m), ENG_EINVAL);
    /* two nonces differ (128 random bits) */
    uint8_t n2[CHANCE_NONCE_LEN];
    assert_int_equal(chance_nonce_random(n2), 0);
    assert_memory_not_equal(n, n2, sizeof n);
}

/* Play a game from a seed: chance by eng_chance_draw (or, at chance event
 * `swap_at`, the next outcome in the engine's order instead), moves by a
 * seeded random policy. Returns the moves and their number. */
static int play(const eng_game *g, int players, uint64_t seed, uint64_t move_seed, int swap_at,
                eng_move *moves)
{
    eng_rules r;
    eng_rules_default(g, &r);
    r.players = players;
    void *st = malloc(g->state_size);
    g->init(st, &r);
    eng_rng rng;
    eng_rng_seed(&rng, move_seed);
    int n = 0, k = 0;
    for (int p; (p = g->current_player(st)) != ENG_TERMINAL;) {
        eng_move m;
        if (p == ENG_CHANCE) {
            m = eng_chance_draw(g, st, seed, (uint64_t)k);
            if (k == swap_at) {
                eng_move out[256];
                double prob[256];
                int no = g->chance_outcomes(st, out, prob);
                for (int i = 0; i < no; i++)
                    if (out[i] == m) {
                        m = out[(i + 1) % no];
                        break;
                    }
            }
            k++;
        } else {
            m = eng_random_move(g, st, &rng);
        }
        g->apply(st, m);
        moves[n++] = m;
    }
    free(st);
    return n;
}

static json_t *record(const eng_game *g, int players, const eng_move *moves, int n,
                      const chance_secret *s, bool reveal)
{
    eng_rules r;
    eng_rules_default(g, &r);
    r.players = players;
    json_t *ch = s ? chance_json(s, reveal) : NULL;
    char err[256];
    json_t *rec = rec_build_full(g, &r, moves, n, NULL, ch, NULL, err, sizeof err);
    if (!rec)
        fail_msg("%s", err);
    json_decref(ch);
    return rec;
}

static void test_draws_follow_the_seed(void **state)
{
    (void)state;
    const eng_game *g = eng_find_game("carcassonne");
    eng_move *a = malloc((size_t)g->max_plies * sizeof *a),
             *b = malloc((size_t)g->max_plies * sizeof *b);
    int na = play(g, 2, 42, 1, -1, a), nb = play(g, 3, 42, 2, -1, b);
    /* other moves, other seat count: the same tiles in the same order */
    eng_rules r;
    eng_rules_default(g, &r);
    void *sa = malloc(g->state_size), *sb = malloc(g->state_size);
    r.players = 2;
    g->init(sa, &r);
    r.players = 3;
    g->init(sb, &r);
    eng_move ta[80], tb[80];
    int ka = 0, kb = 0;
    for (int i = 0; i < na; i++) {
        if (g->current_player(sa) == ENG_CHANCE)
            ta[ka++] = a[i];
        g->apply(sa, a[i]);
    }
    for (int i = 0; i < nb; i++) {
        if (g->current_player(sb) == ENG_CHANCE)
            tb[kb++] = b[i];
        g->apply(sb, b[i]);
    }
    assert_int_equal(ka, 71);
    assert_int_equal(kb, 71);
    assert_memory_equal(ta, tb, sizeof ta[0] * 71);
    /* event k is one fresh stream per event: the first is stream 0 */
    r.players = 2;
    g->init(sa, &r);
    eng_rng rng;
    eng_rng_seed_stream(&rng, 42, 0);
    assert_int_equal(eng_sample_chance(g, sa, &rng), ta[0]);
    /* another seed, another order */
    int nc = play(g, 2, 43, 1, -1, b);
    g->init(sb, &r);
    kb = 0;
    for (int i = 0; i < nc; i++) {
        if (g->current_player(sb) == ENG_CHANCE)
            tb[kb++] = b[i];
        g->apply(sb, b[i]);
    }
    assert_memory_not_equal(ta, tb, sizeof ta[0] * 71);
    free(a);
    free(b);
    free(sa);
    free(sb);
}

static void expect(const json_t *rec, int code, int turn, const char *needle)
{
    rec_replay out;
    int rc = rec_verify_chance(rec, &out);
    if (rc != code || out.bad_turn != turn || (needle && !strstr(out.reason, needle)))
        fail_msg("verify: %d (want %d), turn %d (want %d): %s (want '%s')", rc, code, out.bad_turn,
                 turn, out.reason, needle ? needle : "");
}

static void test_verify(void **state)
{
    (void)state;
    const eng_game *g = eng_find_game("carcassonne");
    eng_move *m = malloc((size_t)g->max_plies * sizeof *m);
    chance_secret s = {.seed = 7777};
    assert_int_equal(chance_nonce_random(s.nonce), 0);
    int n = play(g, 2, s.seed, 3, -1, m);

    /* honest */
    json_t *rec = record(g, 2, m, n, &s, true);
    expect(rec, 0, 0, NULL);
    json_decref(rec);

    /* a tile changed: chance event 5 drew another tile; the record is legal
     * (a plain replay accepts it) but not the seed's */
    int n2 = play(g, 2, s.seed, 3, 5, m);
    rec = record(g, 2, m, n2, &s, true);
    assert_int_equal(rec_replay_json(rec, NULL, NULL, NULL), 0);
    expect(rec, ENG_EBAD_CHANCE, 6, "chance event 5 is");
    json_decref(rec);

    /* seed, nonce, commitment changed */
    n = play(g, 2, s.seed, 3, -1, m);
    rec = record(g, 2, m, n, &s, true);
    json_t *ch = json_object_get(rec, "chance");
    json_object_set_new(ch, "seed", json_string("7778"));
    expect(rec, ENG_EBAD_CHANCE, 0, "is not the SHA-256");
    json_decref(rec);

    rec = record(g, 2, m, n, &s, true);
    ch = json_object_get(rec, "chance");
    char hex[CHANCE_NONCE_HEX];
    chance_nonce_hex(s.nonce, hex);
    hex[0] = hex[0] == '0' ? '1' : '0';
    json_object_set_new(ch, "nonce", json_string(hex));
    expect(rec, ENG_EBAD_CHANCE, 0, "is not the SHA-256");
    json_decref(rec);

    rec = record(g, 2, m, n, &s, true);
    ch = json_object_get(rec, "chance");
    char c[CHANCE_COMMIT_HEX];
    snprintf(c, sizeof c, "%s", json_string_value(json_object_get(ch, "commitment")));
    c[63] = c[63] == 'a' ? 'b' : 'a';
    json_object_set_new(ch, "commitment", json_string(c));
    expect(rec, ENG_EBAD_CHANCE, 0, "is not the SHA-256");
    json_decref(rec);

    /* the seed and the commitment both replaced consistently: the
     * commitment checks out, the tiles do not (a different seed's tiles) */
    chance_secret other = s;
    other.seed = 7778;
    rec = record(g, 2, m, n, &other, true);
    expect(rec, ENG_EBAD_CHANCE, 1, "chance event 0 is");
    json_decref(rec);

    /* no block, no reveal */
    rec = record(g, 2, m, n, NULL, false);
    expect(rec, ENG_EBAD_RECORD, 0, "no \"chance\" block");
    json_decref(rec);
    rec = record(g, 2, m, n, &s, false);
    assert_int_equal(rec_replay_json(rec, NULL, NULL, NULL), 0); /* a valid record all the same */
    expect(rec, ENG_EBAD_RECORD, 0, "not revealed");
    json_decref(rec);

    /* a record that is not valid fails as a replay does */
    rec = record(g, 2, m, n, &s, true);
    json_object_set_new(json_array_get(json_object_get(rec, "turns"), 0), "x", json_integer(99));
    rec_replay out;
    assert_int_equal(rec_verify_chance(rec, &out), ENG_EILLEGAL_MOVE);
    assert_int_equal(out.bad_turn, 1);
    json_decref(rec);

    /* Reversi has no chance: an honest record verifies on its commitment */
    const eng_game *rv = eng_find_game("reversi");
    n = play(rv, 2, s.seed, 3, -1, m);
    rec = record(rv, 2, m, n, &s, true);
    expect(rec, 0, 0, NULL);
    json_decref(rec);
    free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_commitment_known_values),
        cmocka_unit_test(test_parsers),
        cmocka_unit_test(test_draws_follow_the_seed),
        cmocka_unit_test(test_verify),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
