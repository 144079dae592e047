/*
 * delta.c — protocol 2's state change (delta.h): the diff the server sends
 * and the checked reader that applies it.
 */
#include "protocol/delta.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- writing -------------------------------------------------------------- */

/* A value as a change that replaces: objects are wrapped in {"$set": v}. */
static json_t *replace(const json_t *v)
{
    json_t *c = json_deep_copy(v);
    if (c && json_is_object(c))
        return json_pack("{s:o}", "$set", c);
    return c;
}

static bool dollar_keys(const json_t *o)
{
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)o, k, v)
        if (k[0] == '$')
            return true;
    return false;
}

static json_t *diff(const json_t *a, const json_t *b);

static json_t *diff_object(const json_t *a, const json_t *b)
{
    if (dollar_keys(a) || dollar_keys(b))
        return replace(b);
    json_t *d = json_object(), *del = NULL;
    if (!d)
        return NULL;
    const char *k;
    json_t *vb, *va;
    json_object_foreach((json_t *)b, k, vb) {
        va = json_object_get(a, k);
        if (va && json_equal(va, vb))
            continue;
        json_t *c = va ? diff(va, vb) : replace(vb);
        if (!c || json_object_set_new(d, k, c))
            goto fail;
    }
    json_object_foreach((json_t *)a, k, va) {
        if (json_object_get(b, k))
            continue;
        if (!del && (!(del = json_array()) || json_object_set_new(d, "$del", del)))
            goto fail;
        if (json_array_append_new(del, json_string(k)))
            goto fail;
    }
    return d;
fail:
    json_decref(d);
    return NULL;
}

static json_t *diff_array(const json_t *a, const json_t *b)
{
    size_t na = json_array_size(a), nb = json_array_size(b), changed = 0;
    for (size_t i = 0; i < nb; i++)
        if (i >= na || !json_equal(json_array_get(a, i), json_array_get(b, i)))
            changed++;
    /* most of it new: the array itself is shorter than a patch */
    if (nb > 0 && 2 * changed > nb)
        return json_deep_copy(b);
    json_t *d = json_object();
    if (!d)
        return NULL;
    if (na != nb && json_object_set_new(d, "$len", json_integer((json_int_t)nb)))
        goto fail;
    for (size_t i = 0; i < nb; i++) {
        const json_t *vb = json_array_get(b, i), *va = i < na ? json_array_get(a, i) : NULL;
        if (va && json_equal(va, vb))
            continue;
        char key[24];
        snprintf(key, sizeof key, "%zu", i);
        json_t *c = va ? diff(va, vb) : replace(vb);
        if (!c || json_object_set_new(d, key, c))
            goto fail;
    }
    return d;
fail:
    json_decref(d);
    return NULL;
}

/* a and b differ (or the caller does not know). */
static json_t *diff(const json_t *a, const json_t *b)
{
    if (json_is_object(a) && json_is_object(b))
        return diff_object(a, b);
    if (json_is_array(a) && json_is_array(b))
        return diff_array(a, b);
    return replace(b);
}

json_t *delta_diff(const json_t *from, const json_t *to)
{
    if (!from || !to)
        return NULL;
    if (json_equal(from, to))
        return json_object();
    return diff(from, to);
}

/* ---- reading -------------------------------------------------------------- */

static json_t *fail(char *err, size_t cap, const char *fmt, const char *path)
{
    snprintf(err, cap, fmt, path[0] ? path : "the state");
    return NULL;
}

/* A decimal index without sign or leading zeros, below lim. */
static bool read_index(const char *k, size_t lim, size_t *out)
{
    size_t v = 0, n = strlen(k);
    if (n == 0 || n > 9 || (n > 1 && k[0] == '0'))
        return false;
    for (size_t i = 0; i < n; i++) {
        if (k[i] < '0' || k[i] > '9')
            return false;
        v = v * 10 + (size_t)(k[i] - '0');
    }
    *out = v;
    return v < lim;
}

static json_t *apply(const json_t *a, const json_t *d, int depth, char *path, size_t pathcap,
                     char *err, size_t cap);

/* Apply d's member `key` to the element `elem` of a, as path.key. */
static json_t *apply_member(const json_t *elem, const json_t *d, const char *key, int depth,
                            char *path, size_t pathcap, char *err, size_t cap)
{
    size_t at = strlen(path);
    snprintf(path + at, pathcap - at, "%s%s", at ? "." : "", key);
    json_t *r = apply(elem, d, depth + 1, path, pathcap, err, cap);
    if (r)
        path[at] = 0;
    return r;
}

static json_t *apply_object(const json_t *a, const json_t *d, int depth, char *path, size_t pathcap,
                            char *err, size_t cap)
{
    json_t *b = json_copy((json_t *)a); /* shallow: untouched members are shared */
    if (!b)
        return fail(err, cap, "out of memory at %s", path);
    const char *k;
    json_t *dv;
    json_object_foreach((json_t *)d, k, dv) {
        if (strcmp(k, "$del") == 0) {
            if (!json_is_array(dv)) {
                json_decref(b);
                return fail(err, cap, "%s: \"$del\" must be an array of member names", path);
            }
            continue;
        }
        if (k[0] == '$') {
            json_decref(b);
            return fail(err, cap, "%s: an object patch has no member starting with '$' but \"$del\"",
                        path);
        }
        json_t *old = json_object_get(a, k);
        json_t *nv = apply_member(old ? old : json_null(), dv, k, depth, path, pathcap, err, cap);
        if (!nv || json_object_set_new(b, k, nv)) {
            json_decref(b);
            return nv ? fail(err, cap, "out of memory at %s", path) : NULL;
        }
    }
    json_t *del = json_object_get(d, "$del");
    size_t i;
    json_t *name;
    json_array_foreach(del, i, name) {
        if (!json_is_string(name) || json_object_get(b, json_string_value(name)) == NULL) {
            json_decref(b);
            return fail(err, cap, "%s: \"$del\" names a member the object does not have", path);
        }
        json_object_del(b, json_string_value(name));
    }
    return b;
}

static json_t *apply_array(const json_t *a, const json_t *d, int depth, char *path, size_t pathcap,
                           char *err, size_t cap)
{
    size_t na = json_array_size(a), nb = na;
    json_t *len = json_object_get(d, "$len");
    if (len) {
        if (!json_is_integer(len) || json_integer_value(len) < 0 ||
            json_integer_value(len) > DELTA_MAX_LEN)
            return fail(err, cap, "%s: \"$len\" must be an integer from 0 to 100000", path);
        nb = (size_t)json_integer_value(len);
    }
    json_t *b = json_array();
    if (!b)
        return fail(err, cap, "out of memory at %s", path);
    for (size_t i = 0; i < nb; i++)
        if (json_array_append(b, i < na ? json_array_get(a, i) : json_null())) {
            json_decref(b);
            return fail(err, cap, "out of memory at %s", path);
        }
    const char *k;
    json_t *dv;
    json_object_foreach((json_t *)d, k, dv) {
        if (strcmp(k, "$len") == 0)
            continue;
        size_t ix;
        if (!read_index(k, nb, &ix)) {
            json_decref(b);
            return fail(err, cap, "%s: an array patch has \"$len\" and decimal indices below the "
                                  "length, nothing else",
                        path);
        }
        json_t *nv = apply_member(json_array_get(b, ix), dv, k, depth, path, pathcap, err, cap);
        if (!nv || json_array_set_new(b, ix, nv)) {
            json_decref(b);
            return nv ? fail(err, cap, "out of memory at %s", path) : NULL;
        }
    }
    return b;
}

static json_t *apply(const json_t *a, const json_t *d, int depth, char *path, size_t pathcap,
                     char *err, size_t cap)
{
    if (depth > DELTA_MAX_DEPTH)
        return fail(err, cap, "%s: the change is nested too deeply", path);
    if (!json_is_object(d)) {
        json_t *r = json_deep_copy(d);
        return r ? r : fail(err, cap, "out of memory at %s", path);
    }
    if (json_object_size(d) == 0) { /* no change, whatever a is */
        json_t *r = json_deep_copy(a);
        return r ? r : fail(err, cap, "out of memory at %s", path);
    }
    json_t *set = json_object_get(d, "$set");
    if (set) {
        if (json_object_size(d) != 1)
            return fail(err, cap, "%s: \"$set\" must be the only member of its object", path);
        json_t *r = json_deep_copy(set);
        return r ? r : fail(err, cap, "out of memory at %s", path);
    }
    if (json_is_object(a))
        return apply_object(a, d, depth, path, pathcap, err, cap);
    if (json_is_array(a))
        return apply_array(a, d, depth, path, pathcap, err, cap);
    return fail(err, cap, "%s: a patch (an object) for a value that is neither an object nor an "
                          "array",
                path);
}

json_t *delta_apply(const json_t *from, const json_t *change, char *err, size_t errcap)
{
    char path[256] = "";
    if (!from || !change) {
        snprintf(err, errcap, "no state or no change");
        return NULL;
    }
    return apply(from, change, 0, path, sizeof path, err, errcap);
}
