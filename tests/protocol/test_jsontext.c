/*
 * test_jsontext.c — protocol/jsontext.h writes what json_dumps(JSON_COMPACT)
 * writes, byte for byte: hand-picked edge cases (every control character,
 * quotes, backslashes, UTF-8, NUL inside a string, integer extremes, reals
 * that print as integers or with exponents, empty containers), thousands of
 * random nested values, and the public states of random games of every game
 * with a wire codec (what the server sends every turn). Also: a buffer is
 * reused after tb_reset, tb_put/jt_str/jt_int append, and nesting beyond
 * JT_MAX_DEPTH is refused without writing anything.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine/eng.h"
#include "protocol/jsontext.h"
#include "protocol/wire.h"

static void same_as_jansson(const json_t *v)
{
    char *want = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    assert_non_null(want);
    textbuf b = TEXTBUF_INIT;
    assert_int_equal(jt_dump(&b, v), 0);
    if (b.len != strlen(want) || memcmp(b.p, want, b.len) != 0)
        fail_msg("jt_dump wrote\n  %.*s\njansson writes\n  %s", (int)b.len, b.p, want);
    free(want);
    tb_free(&b);
}

static void test_edge_cases(void **state)
{
    (void)state;
    char all[40];
    for (int i = 0; i < 31; i++)
        all[i] = (char)(i + 1);
    json_t *v = json_pack("{s:s#, s:s, s:s, s:s#, s:[I, I, I, i, i], s:[f, f, f, f, f, f, f, f], "
                          "s:{}, s:[], s:b, s:b, s:n, s:s}",
                          "controls", all, (int)31, "quotes", "a\"b\\c/d", "utf8", "\xc3\xa9\xe2\x80\xa8\xf0\x9f\x8e\xb2",
                          "nul", "a\0b", (int)3, "ints", (json_int_t)INT64_MAX, (json_int_t)INT64_MIN,
                          (json_int_t)-1, 0, 10, "reals", 1.5, 100.0, 1e20, 1e300, -1e-300, 0.1, -0.0,
                          3e5, "empty_object", "empty_array", "t", 1, "f", 0, "null", "", "");
    assert_non_null(v);
    same_as_jansson(v);
    json_decref(v);
    json_t *s = json_string("top-level string");
    same_as_jansson(s);
    json_decref(s);
}

static uint64_t rng_state = 0x1234567;
static uint32_t rnd(void)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)(rng_state >> 33);
}

static json_t *random_value(int depth)
{
    int k = (int)(rnd() % (depth > 4 ? 6 : 8));
    switch (k) {
    case 0: return json_integer((json_int_t)(((uint64_t)rnd() << 32 | rnd())) >> (rnd() % 64));
    case 1: return json_real((double)(int32_t)rnd() / (double)(1 + rnd() % 1000) * (rnd() % 2 ? 1e-10 : 1e10));
    case 2: {
        char buf[16];
        int n = (int)(rnd() % sizeof buf);
        for (int i = 0; i < n; i++)
            buf[i] = (char)(rnd() % 127 + 1); /* ASCII, controls included */
        return json_stringn(buf, (size_t)n);
    }
    case 3: return json_boolean(rnd() % 2);
    case 4: return json_null();
    case 5: return json_string("\xc3\xa9t\xc3\xa9");
    case 6: {
        json_t *a = json_array();
        for (int i = (int)(rnd() % 5); i > 0; i--)
            json_array_append_new(a, random_value(depth + 1));
        return a;
    }
    default: {
        json_t *o = json_object();
        for (int i = (int)(rnd() % 5); i > 0; i--) {
            char key[8];
            snprintf(key, sizeof key, "k%u", rnd() % 50);
            json_object_set_new(o, key, random_value(depth + 1));
        }
        return o;
    }
    }
}

static void test_random_values(void **state)
{
    (void)state;
    for (int i = 0; i < 5000; i++) {
        json_t *v = random_value(0);
        same_as_jansson(v);
        json_decref(v);
    }
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
        eng_rules r;
        eng_rules_default(g, &r);
        unsigned char *st = malloc(g->state_size);
        char err[128];
        assert_int_equal(eng_init(g, st, &r, err, sizeof err), 0);
        eng_rng rng;
        eng_rng_seed(&rng, 7 + gi);
        for (int ply = 0; g->current_player(st) != ENG_TERMINAL && ply < 400; ply++) {
            json_t *js = w->state(st);
            same_as_jansson(js);
            json_decref(js);
            if (g->current_player(st) >= 0) {
                json_t *legal = w->legal(st);
                same_as_jansson(legal);
                json_decref(legal);
            }
            g->apply(st, g->current_player(st) == ENG_CHANCE ? eng_sample_chance(g, st, &rng)
                                                             : eng_random_move(g, st, &rng));
        }
        free(st);
    }
}

static void test_buffer(void **state)
{
    (void)state;
    textbuf b = TEXTBUF_INIT;
    assert_int_equal(tb_put(&b, "{", 1), 0);
    assert_int_equal(jt_str(&b, "k\n", 2), 0);
    assert_int_equal(tb_put(&b, ":", 1), 0);
    assert_int_equal(jt_int(&b, -42), 0);
    assert_int_equal(tb_put(&b, "}", 1), 0);
    assert_int_equal(b.len, strlen("{\"k\\n\":-42}"));
    assert_memory_equal(b.p, "{\"k\\n\":-42}", b.len);
    char *p = b.p;
    tb_reset(&b);
    assert_int_equal(b.len, 0);
    assert_int_equal(jt_int(&b, 7), 0);
    assert_ptr_equal(b.p, p); /* the memory is kept */
    /* too deep: refused, nothing written */
    json_t *deep = json_array(), *cur = deep;
    for (int i = 0; i < JT_MAX_DEPTH + 5; i++) {
        json_t *n = json_array();
        json_array_append_new(cur, n);
        cur = n;
    }
    size_t len = b.len;
    assert_int_equal(jt_dump(&b, deep), -1);
    assert_int_equal(b.len, len);
    json_decref(deep);
    tb_free(&b);
    assert_null(b.p);
}

/* jt_real writes its common reals (1e-6 <= |d| < 2^52) in integers, not
 * by snprintf: the same bytes as json_dumps for a million of them — random
 * bits, short decimals as a bot prints them (0.62, 3.5), the edges of the
 * range and of each power of ten, values next to a tie. */
static double real_at(uint64_t i)
{
    uint64_t x = ((uint64_t)rnd() << 32) | rnd();
    double d;
    switch (i % 8) {
    case 0: memcpy(&d, &x, sizeof d); return d; /* any bits */
    case 1: return (double)(x >> 11) / 9007199254740992.0; /* [0, 1) */
    case 2: { /* a short decimal: N / 10^k */
        static const double p[] = {1, 10, 100, 1e3, 1e4, 1e5, 1e6};
        return (double)(x % 2000000) / p[(x >> 40) % 7] * ((x >> 50) & 1 ? -1 : 1);
    }
    case 3: { /* near a power of ten */
        double t = 1e-6;
        for (int k = (int)(x % 23); k > 0; k--)
            t *= 10;
        return nextafter(t, (x >> 20) & 1 ? 0 : 1e300);
    }
    case 4: return ldexp((double)((x >> 11) | 1), -(int)(x % 120)); /* odd mantissas: ties */
    case 5: return (double)(int64_t)(x >> 12) * ((x & 1) ? 1 : -1); /* integers up to 2^52 */
    case 6: return (double)(x % 100000) / 1000.0 + 1e-6 * (double)((x >> 32) % 10);
    default: return ldexp(1.0, (int)(x % 140) - 70); /* powers of two */
    }
}

static void test_reals(void **state)
{
    (void)state;
    textbuf b = TEXTBUF_INIT;
    for (uint64_t i = 0; i < 1000000; i++) {
        double d = real_at(i);
        if (!isfinite(d))
            continue;
        tb_reset(&b);
        assert_int_equal(jt_real(&b, d), 0);
        char want[48];
        snprintf(want, sizeof want, "%.17g", d);
        /* jt_real's ".0" and exponent are jansson's: compare the digits
         * where no exponent is written, jansson's own text every 64th */
        if (!strpbrk(want, "eE")) {
            if (!strpbrk(want, "."))
                strcat(want, ".0");
            if (strcmp(b.p, want) != 0)
                fail_msg("jt_real(%a): %s, printf %s", d, b.p, want);
        }
        if (i % 64 == 0 || strpbrk(want, "eE")) {
            json_t *r = json_real(d);
            char *j = json_dumps(r, JSON_ENCODE_ANY | JSON_COMPACT);
            if (strcmp(b.p, j) != 0)
                fail_msg("jt_real(%a): %s, jansson %s", d, b.p, j);
            free(j);
            json_decref(r);
        }
    }
    tb_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_edge_cases),
        cmocka_unit_test(test_random_values),
        cmocka_unit_test(test_game_states),
        cmocka_unit_test(test_buffer),
        cmocka_unit_test(test_reals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
