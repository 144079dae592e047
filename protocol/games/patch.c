/*
 * patch.c — protocol 2's change written as text (contract in patch.h). The
 * rules it follows are delta.c's diff_object and diff_array; test_delta
 * holds every codec's change to the generic diff of the two JSON states.
 */
#include "patch.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "protocol/jsontext.h"

void patch_member(patch *p, const char *key)
{
    tb_put(p->b, p->n++ ? "," : "{", 1);
    jt_str(p->b, key, strlen(key));
    tb_put(p->b, ":", 1);
}

void patch_index(patch *p, int i)
{
    char k[12];
    snprintf(k, sizeof k, "%d", i);
    patch_member(p, k);
}

void patch_end(patch *p)
{
    tb_put(p->b, p->n ? "}" : "{}", p->n ? 1 : 2);
}

static void int_text(textbuf *o, int v, const char *(*names)(int))
{
    if (names)
        jt_str(o, names(v), strlen(names(v)));
    else
        jt_int(o, v);
}

void patch_ints(patch *p, const char *key, const int *a, int na, const int *b, int nb,
                const char *(*names)(int))
{
    int changed = 0;
    for (int i = 0; i < nb; i++)
        changed += i >= na || a[i] != b[i];
    if (changed == 0 && na == nb)
        return;
    patch_member(p, key);
    textbuf *o = p->b;
    if (nb > 0 && 2 * changed > nb) {
        tb_put(o, "[", 1);
        for (int i = 0; i < nb; i++) {
            if (i)
                tb_put(o, ",", 1);
            int_text(o, b[i], names);
        }
        tb_put(o, "]", 1);
        return;
    }
    patch q = {o, 0};
    if (na != nb) {
        patch_member(&q, "$len");
        jt_int(o, nb);
    }
    for (int i = 0; i < nb; i++)
        if (i >= na || a[i] != b[i]) {
            patch_index(&q, i);
            int_text(o, b[i], names);
        }
    patch_end(&q);
}

void patch_rows(patch *p, const char *key, const char *a, const char *b, int n, int w)
{
    int changed = 0;
    for (int i = 0; i < n; i++)
        changed += memcmp(a + (size_t)i * w, b + (size_t)i * w, (size_t)w) != 0;
    if (changed == 0)
        return;
    patch_member(p, key);
    textbuf *o = p->b;
    bool whole = 2 * changed > n;
    patch q = {o, 0};
    tb_put(o, whole ? "[" : "", whole ? 1 : 0);
    for (int i = 0; i < n; i++) {
        const char *rb = b + (size_t)i * w;
        if (whole) {
            if (i)
                tb_put(o, ",", 1);
        } else if (memcmp(a + (size_t)i * w, rb, (size_t)w) != 0) {
            patch_index(&q, i);
        } else {
            continue;
        }
        jt_str(o, rb, (size_t)w);
    }
    if (whole)
        tb_put(o, "]", 1);
    else
        patch_end(&q);
}
