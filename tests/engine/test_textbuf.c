/*
 * test_textbuf.c — engine/textbuf.h, the one growing text of tessera,
 * against the obvious reference: a large fixed array written with memcpy
 * and snprintf. Random sequences of appends (short and long, formatted and
 * raw, across many growths), marks taken back with tb_cut and resets that
 * keep the memory; after every step the text, its length and its NUL are
 * the reference's. Then a failed buffer: nothing more is appended and
 * tb_take gives NULL.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine/rng.h"
#include "engine/textbuf.h"

#define REF_CAP (1u << 20)

static char ref[REF_CAP];
static size_t ref_len;

static void same(const textbuf *b)
{
    assert_false(b->failed);
    assert_int_equal(b->len, ref_len);
    if (ref_len) {
        assert_non_null(b->p);
        assert_memory_equal(b->p, ref, ref_len);
    }
    if (b->p) {
        assert_true(b->cap > b->len);
        assert_int_equal(b->p[b->len], 0);
    }
}

static void random_text(eng_rng *r, char *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = (char)(' ' + eng_rng_below(r, 95));
    out[n] = 0;
}

static void test_against_reference(void **state)
{
    (void)state;
    static char piece[70000];
    eng_rng r;
    eng_rng_seed(&r, 20261128);
    textbuf b = TEXTBUF_INIT;
    for (int round = 0; round < 40; round++) {
        ref_len = 0;
        tb_reset(&b);
        same(&b);
        size_t mark = 0;
        for (int step = 0; step < 200; step++) {
            /* mostly short pieces, now and then one longer than the buffer */
            size_t n =
                eng_rng_below(&r, 10) == 0 ? eng_rng_below(&r, 65000) : eng_rng_below(&r, 40);
            if (ref_len + n + 64 >= REF_CAP)
                break;
            random_text(&r, piece, n);
            switch (eng_rng_below(&r, 5)) {
            case 0:
                assert_int_equal(tb_put(&b, piece, n), 0);
                memcpy(ref + ref_len, piece, n);
                ref_len += n;
                break;
            case 1:
                assert_int_equal(tb_puts(&b, piece), 0);
                memcpy(ref + ref_len, piece, n);
                ref_len += n;
                break;
            case 2: {
                long long v = (long long)eng_rng_next(&r);
                assert_int_equal(tb_printf(&b, "<%s|%lld|%.3f>", piece, v, (double)n / 7.0), 0);
                ref_len += (size_t)snprintf(ref + ref_len, REF_CAP - ref_len, "<%s|%lld|%.3f>",
                                            piece, v, (double)n / 7.0);
                break;
            }
            case 3: mark = ref_len; break;
            default:
                if (mark <= ref_len) {
                    tb_cut(&b, mark);
                    ref_len = mark;
                }
                break;
            }
            same(&b);
        }
    }
    /* handed over: the same text, and the buffer is empty again */
    ref_len = 0;
    tb_reset(&b);
    tb_printf(&b, "%s-%d", "taken", 7);
    char *t = tb_take(&b);
    assert_string_equal(t, "taken-7");
    free(t);
    assert_null(b.p);
    assert_int_equal(b.len, 0);
    /* nothing written: "" rather than NULL */
    t = tb_take(&b);
    assert_non_null(t);
    assert_string_equal(t, "");
    free(t);
    tb_free(&b);
}

static void test_failed_stays_failed(void **state)
{
    (void)state;
    textbuf b = TEXTBUF_INIT;
    assert_int_equal(tb_puts(&b, "kept"), 0);
    b.failed = true; /* as after an allocation that failed */
    assert_int_equal(tb_puts(&b, "lost"), -1);
    assert_int_equal(tb_printf(&b, "%d", 5), -1);
    assert_int_equal(tb_reserve(&b, 1), -1);
    assert_int_equal(b.len, 4);
    assert_string_equal(b.p, "kept");
    assert_null(tb_take(&b)); /* an incomplete text is never handed over */
    assert_null(b.p);
    /* a reset forgets the failure and keeps the memory */
    assert_int_equal(tb_puts(&b, "again"), 0);
    b.failed = true;
    char *memory = b.p;
    tb_reset(&b);
    assert_false(b.failed);
    assert_int_equal(b.len, 0);
    assert_ptr_equal(b.p, memory);
    assert_string_equal(b.p, "");
    assert_int_equal(tb_puts(&b, "after"), 0);
    assert_string_equal(b.p, "after");
    tb_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_against_reference),
        cmocka_unit_test(test_failed_stays_failed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
