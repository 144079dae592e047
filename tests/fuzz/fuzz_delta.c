/*
 * fuzz_delta.c — libFuzzer target for protocol 2's state change reader
 * (protocol/delta.h), which a client runs on what a server sends.
 *
 * The input is two JSON texts separated by the first newline: a base value
 * and a change. delta_apply() must never crash, leak or trip a sanitizer,
 * whatever they hold; when it refuses, the reason is non-empty; when it
 * accepts, the base is unchanged, and the change the writer computes from
 * the base to the result (delta_diff) rebuilds the same result. Seeds in
 * corpus/delta/.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/delta.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok)
{
    if (!ok)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nl = memchr(data, '\n', size);
    if (!nl)
        return 0;
    json_error_t e;
    json_t *base = json_loadb((const char *)data, (size_t)(nl - data), JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &e);
    json_t *change = json_loadb((const char *)nl + 1, size - (size_t)(nl - data) - 1,
                                JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &e);
    if (base && change) {
        json_t *copy = json_deep_copy(base);
        char err[256] = "";
        json_t *r = delta_apply(base, change, err, sizeof err);
        check(json_equal(copy, base));
        if (!r) {
            check(err[0] != 0);
        } else {
            json_t *d = delta_diff(base, r);
            check(d != NULL);
            json_t *again = delta_apply(base, d, err, sizeof err);
            check(again != NULL && json_equal(again, r));
            json_decref(again);
            json_decref(d);
            json_decref(r);
        }
        json_decref(copy);
    }
    json_decref(base);
    json_decref(change);
    return 0;
}
