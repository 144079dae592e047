/*
 * schema_check.c — see schema_check.h.
 */
#include "schema_check.h"

#include <regex.h>
#include <stdio.h>
#include <string.h>

typedef struct ctx {
    const json_t *root;
    char *why;
    size_t cap;
} ctx;

static bool fail(ctx *c, const char *path, const char *msg, const char *arg)
{
    if (c->why && c->cap)
        snprintf(c->why, c->cap, "%s: %s%s", path[0] ? path : "/", msg, arg ? arg : "");
    return false;
}

static bool is_type(const json_t *v, const char *t)
{
    if (!strcmp(t, "object"))
        return json_is_object(v);
    if (!strcmp(t, "array"))
        return json_is_array(v);
    if (!strcmp(t, "string"))
        return json_is_string(v);
    if (!strcmp(t, "integer"))
        return json_is_integer(v);
    if (!strcmp(t, "number"))
        return json_is_number(v);
    if (!strcmp(t, "boolean"))
        return json_is_boolean(v);
    if (!strcmp(t, "null"))
        return json_is_null(v);
    return false;
}

static bool check(ctx *c, const json_t *s, const json_t *v, const char *path);

static bool check(ctx *c, const json_t *s, const json_t *v, const char *path)
{
    if (json_is_true(s))
        return true;
    const json_t *ref = json_object_get(s, "$ref");
    if (ref) {
        const char *r = json_string_value(ref);
        if (!r || strncmp(r, "#/$defs/", 8) != 0)
            return fail(c, path, "unsupported $ref ", r);
        const json_t *d = json_object_get(json_object_get(c->root, "$defs"), r + 8);
        if (!d)
            return fail(c, path, "unknown $ref ", r);
        return check(c, d, v, path);
    }
    const json_t *t = json_object_get(s, "type");
    if (json_is_string(t) && !is_type(v, json_string_value(t)))
        return fail(c, path, "not of type ", json_string_value(t));
    if (json_is_array(t)) {
        bool any = false;
        size_t i;
        const json_t *e;
        json_array_foreach(t, i, e) any |= is_type(v, json_string_value(e));
        if (!any)
            return fail(c, path, "not of any listed type", NULL);
    }
    const json_t *k = json_object_get(s, "const");
    if (k && !json_equal((json_t *)k, (json_t *)v))
        return fail(c, path, "not the const value", NULL);
    const json_t *en = json_object_get(s, "enum");
    if (en) {
        bool any = false;
        size_t i;
        const json_t *e;
        json_array_foreach(en, i, e) any |= json_equal((json_t *)e, (json_t *)v);
        if (!any)
            return fail(c, path, "not one of the enum", NULL);
    }
    const json_t *mn = json_object_get(s, "minimum"), *mx = json_object_get(s, "maximum");
    if (mn && json_is_number(v) && json_number_value(v) < json_number_value(mn))
        return fail(c, path, "below the minimum", NULL);
    if (mx && json_is_number(v) && json_number_value(v) > json_number_value(mx))
        return fail(c, path, "above the maximum", NULL);
    const json_t *pat = json_object_get(s, "pattern");
    if (pat && json_is_string(v)) {
        regex_t re;
        if (regcomp(&re, json_string_value(pat), REG_EXTENDED | REG_NOSUB) != 0)
            return fail(c, path, "bad pattern ", json_string_value(pat));
        int m = regexec(&re, json_string_value(v), 0, NULL, 0);
        regfree(&re);
        if (m != 0)
            return fail(c, path, "does not match ", json_string_value(pat));
    }
    const json_t *one = json_object_get(s, "oneOf");
    if (one) {
        int n = 0;
        size_t i;
        const json_t *e;
        json_array_foreach(one, i, e)
        {
            ctx quiet = {c->root, NULL, 0};
            n += check(&quiet, e, v, path);
        }
        if (n != 1)
            return fail(c, path, n ? "matches several of oneOf" : "matches none of oneOf", NULL);
    }
    if (json_is_object(v)) {
        const json_t *props = json_object_get(s, "properties");
        const json_t *req = json_object_get(s, "required");
        size_t i;
        const json_t *e;
        json_array_foreach(req, i, e)
        {
            if (!json_object_get(v, json_string_value(e)))
                return fail(c, path, "missing required ", json_string_value(e));
        }
        const char *key;
        const json_t *val;
        json_object_foreach((json_t *)v, key, val)
        {
            char sub[512];
            snprintf(sub, sizeof sub, "%s/%s", path, key);
            const json_t *ps = json_object_get(props, key);
            if (ps) {
                if (!check(c, ps, val, sub))
                    return false;
            } else if (json_is_false(json_object_get(s, "additionalProperties"))) {
                return fail(c, sub, "not allowed", NULL);
            }
        }
    }
    if (json_is_array(v)) {
        const json_t *items = json_object_get(s, "items");
        const json_t *mi = json_object_get(s, "minItems");
        if (mi && json_array_size(v) < (size_t)json_integer_value(mi))
            return fail(c, path, "too few items", NULL);
        size_t i;
        const json_t *e;
        json_array_foreach(v, i, e)
        {
            char sub[512];
            snprintf(sub, sizeof sub, "%s/%zu", path, i);
            if (items && !check(c, items, e, sub))
                return false;
        }
    }
    return true;
}

bool schema_check(const json_t *root, const json_t *value, char *why, size_t cap)
{
    ctx c = {root, why, cap};
    if (why && cap)
        why[0] = 0;
    return check(&c, root, value, "");
}

json_t *schema_load(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.json", dir, name);
    json_error_t e;
    json_t *s = json_load_file(path, JSON_REJECT_DUPLICATES, &e);
    if (!s)
        fprintf(stderr, "%s: %s (line %d)\n", path, e.text, e.line);
    return s;
}
