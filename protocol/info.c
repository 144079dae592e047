/*
 * info.c — the info message's check and canonical form, and its rate rule
 * (contract in info.h). Untrusted input in the usual steps: size, shape,
 * then the game's rules through the codec; reasons in our words, quoting
 * untrusted text only through rec__quote*.
 */
#include "info.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "games/common.h"

static int fail(char *err, size_t errcap, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail(char *err, size_t errcap, int code, const char *fmt, ...)
{
    if (err && errcap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errcap, fmt, ap);
        va_end(ap);
    }
    return code;
}

/* A finite number within [lo, hi] (integers count). */
static bool number_in(const json_t *v, double lo, double hi, double *out)
{
    if (!json_is_number(v))
        return false;
    double x = json_number_value(v);
    if (!isfinite(x) || x < lo || x > hi)
        return false;
    *out = x;
    return true;
}

/* Copy an optional number field of `in` into `out` when it is one within
 * [lo, hi]; integer fields stay integers. */
static int take_number(const json_t *in, json_t *out, const char *key, double lo, double hi,
                       bool integer, const char *where, char *err, size_t errcap)
{
    const json_t *v = json_object_get(in, key);
    if (!v)
        return 0;
    double x;
    if (integer ? !json_is_integer(v) || json_integer_value(v) < (json_int_t)lo ||
                      json_integer_value(v) > (json_int_t)hi
                : !number_in(v, lo, hi, &x)) {
        return fail(err, errcap, ENG_EBAD_MESSAGE, "info: %s%s must be %s from %g to %g, not %s",
                    where, key, integer ? "an integer" : "a number", lo, hi, rec__type_name(v));
    }
    json_t *copy = integer ? json_integer(json_integer_value(v)) : json_real(x);
    if (!copy || json_object_set_new(out, key, copy))
        return fail(err, errcap, ENG_ENOMEM, "out of memory");
    return 0;
}

/* The mover's values, where they may be. */
static int take_values(const json_t *in, json_t *out, const char *where, char *err, size_t errcap)
{
    int rc;
    if ((rc = take_number(in, out, "score", -INFO_MAX_SCORE, INFO_MAX_SCORE, false, where, err,
                          errcap)) ||
        (rc = take_number(in, out, "winprob", 0, 1, false, where, err, errcap)))
        return rc;
    return 0;
}

/* A move of the seat to move in st, read by the codec and written back in
 * its one form; the engine moves land in mv[0..*n). */
static json_t *canonical_move(const game_codec *c, const void *st, const json_t *move,
                              eng_move *mv, int *n, int *code, char *why, size_t whycap)
{
    if (!json_is_object(move)) {
        *code = ENG_EBAD_MESSAGE;
        snprintf(why, whycap, "a move is an object (an entry of legal), not %s",
                 rec__type_name(move));
        return NULL;
    }
    int k = c->parse_move(st, move, mv, why, whycap);
    if (k < 0) {
        *code = k;
        return NULL;
    }
    *n = k;
    json_t *canon = c->format_move(st, mv, k);
    if (!canon) {
        *code = ENG_ENOMEM;
        snprintf(why, whycap, "out of memory");
    }
    return canon;
}

static int read_candidates(const game_codec *c, const void *st, const json_t *list, json_t *out,
                           char *err, size_t errcap)
{
    if (!json_is_array(list))
        return fail(err, errcap, ENG_EBAD_MESSAGE, "info: candidates must be an array, not %s",
                    rec__type_name(list));
    size_t n = json_array_size(list);
    if (n > INFO_MAX_CANDIDATES)
        return fail(err, errcap, ENG_EBAD_MESSAGE,
                    "info: %zu candidates; at most %d are shown", n, INFO_MAX_CANDIDATES);
    json_t *arr = json_array();
    if (!arr || json_object_set_new(out, "candidates", arr))
        return fail(err, errcap, ENG_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        const json_t *cand = json_array_get(list, i);
        char where[48];
        snprintf(where, sizeof where, "candidates[%zu].", i);
        if (!json_is_object(cand))
            return fail(err, errcap, ENG_EBAD_MESSAGE, "info: candidates[%zu] must be an object, not %s",
                        i, rec__type_name(cand));
        const json_t *move = json_object_get(cand, "move");
        if (!move)
            return fail(err, errcap, ENG_EBAD_MESSAGE, "info: candidates[%zu] has no \"move\"", i);
        eng_move mv[ENG_MAX_TURN_MOVES];
        int k, code = 0;
        char why[200];
        json_t *canon = canonical_move(c, st, move, mv, &k, &code, why, sizeof why);
        if (!canon)
            return fail(err, errcap, code, "info: candidates[%zu].move: %s", i, why);
        json_t *o = json_object();
        if (!o || json_array_append_new(arr, o) || json_object_set_new(o, "move", canon))
            return fail(err, errcap, ENG_ENOMEM, "out of memory");
        int rc;
        if ((rc = take_number(cand, o, "visits", 0, 1e15, true, where, err, errcap)) ||
            (rc = take_number(cand, o, "weight", 0, 1e15, false, where, err, errcap)) ||
            (rc = take_values(cand, o, where, err, errcap)))
            return rc;
    }
    return 0;
}

/* The principal variation from st: each move legal where it stands; cut
 * where chance or the end comes, and past INFO_MAX_PV moves. */
static int read_pv(const eng_game *g, const game_codec *c, const void *st, const json_t *list,
                   json_t *out, char *err, size_t errcap)
{
    if (!json_is_array(list))
        return fail(err, errcap, ENG_EBAD_MESSAGE, "info: pv must be an array, not %s",
                    rec__type_name(list));
    unsigned char *s = malloc(g->state_size);
    json_t *arr = json_array();
    if (!s || !arr || json_object_set(out, "pv", arr)) {
        free(s);
        json_decref(arr);
        return fail(err, errcap, ENG_ENOMEM, "out of memory");
    }
    json_decref(arr); /* out holds it */
    memcpy(s, st, g->state_size);
    int rc = 0;
    size_t n = json_array_size(list);
    for (size_t i = 0; i < n && i < INFO_MAX_PV; i++) {
        int p = g->current_player(s);
        if (p < 0)
            break; /* chance or the end: what follows is not this line's to say */
        eng_move mv[ENG_MAX_TURN_MOVES];
        int k, code = 0;
        char why[200];
        json_t *canon = canonical_move(c, s, json_array_get(list, i), mv, &k, &code, why,
                                       sizeof why);
        if (!canon) {
            rc = fail(err, errcap, code, "info: pv[%zu]: %s", i, why);
            break;
        }
        if (json_array_append_new(arr, canon)) {
            rc = fail(err, errcap, ENG_ENOMEM, "out of memory");
            break;
        }
        for (int j = 0; j < k; j++)
            g->apply(s, mv[j]);
    }
    free(s);
    return rc;
}

/* Text for people: control characters as '?', cut on a character boundary. */
static int read_text(const json_t *v, json_t *out, char *err, size_t errcap)
{
    if (!json_is_string(v))
        return fail(err, errcap, ENG_EBAD_MESSAGE, "info: text must be a string, not %s",
                    rec__type_name(v));
    const char *s = json_string_value(v);
    size_t len = json_string_length(v);
    if (len > INFO_TEXT_MAX) {
        len = INFO_TEXT_MAX;
        while (len > 0 && ((unsigned char)s[len] & 0xc0) == 0x80)
            len--;
    }
    char buf[INFO_TEXT_MAX + 1];
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)s[i];
        buf[i] = ch < 0x20 || ch == 0x7f ? '?' : (char)ch;
    }
    json_t *t = json_stringn(buf, len);
    if (!t || json_object_set_new(out, "text", t))
        return fail(err, errcap, ENG_ENOMEM, "out of memory");
    return 0;
}

int info_read(const eng_game *g, const game_codec *c, const void *st, const json_t *msg,
              size_t bytes, json_t **out, char *err, size_t errcap)
{
    if (err && errcap)
        err[0] = 0;
    if (out)
        *out = NULL;
    if (!g || !c || !st || !msg || !out)
        return fail(err, errcap, ENG_EINVAL, "info_read: missing argument");
    if (!json_is_object(msg))
        return fail(err, errcap, ENG_EBAD_MESSAGE, "info: a message is an object, not %s",
                    rec__type_name(msg));
    if (!bytes) {
        bytes = json_dumpb(msg, NULL, 0, JSON_COMPACT);
        if (!bytes)
            return fail(err, errcap, ENG_ENOMEM, "out of memory");
    }
    if (bytes > INFO_MAX_BYTES)
        return fail(err, errcap, ENG_ETOO_LARGE, "info: %zu bytes; the limit is %d", bytes,
                    INFO_MAX_BYTES);
    int p = g->current_player(st);
    if (p < 0)
        return fail(err, errcap, ENG_EBAD_MESSAGE, "info: no seat is to move");

    json_t *o = json_object();
    if (!o)
        return fail(err, errcap, ENG_ENOMEM, "out of memory");
    int rc = 0;
    const json_t *v;
    if ((v = json_object_get(msg, "turn")) &&
        (!json_is_integer(v) || json_integer_value(v) < 1)) {
        rc = fail(err, errcap, ENG_EBAD_MESSAGE, "info: turn must be an integer >= 1");
        goto out;
    }
    if (v && json_object_set(o, "turn", (json_t *)v)) {
        rc = fail(err, errcap, ENG_ENOMEM, "out of memory");
        goto out;
    }
    if ((rc = take_values(msg, o, "", err, errcap)))
        goto out;
    if ((v = json_object_get(msg, "candidates")) &&
        (rc = read_candidates(c, st, v, o, err, errcap)))
        goto out;
    if ((v = json_object_get(msg, "pv")) && (rc = read_pv(g, c, st, v, o, err, errcap)))
        goto out;
    if ((rc = take_number(msg, o, "iterations", 0, 1e15, true, "", err, errcap)) ||
        (rc = take_number(msg, o, "nodes", 0, 1e15, true, "", err, errcap)) ||
        (rc = take_number(msg, o, "depth", 0, 100000, true, "", err, errcap)) ||
        (rc = take_number(msg, o, "elapsed_ms", 0, 86400000, true, "", err, errcap)))
        goto out;
    if ((v = json_object_get(msg, "text")) && (rc = read_text(v, o, err, errcap)))
        goto out;
    *out = o;
    return 0;
out:
    json_decref(o);
    return rc;
}

int info_body_check(const json_t *body, char *err, size_t errcap)
{
    static const char *const known[] = {"turn",  "score", "winprob", "candidates", "pv",
                                        "iterations", "nodes", "depth", "elapsed_ms", "text"};
    char q[REC_QUOTE_MAX];
    if (!json_is_object(body))
        return fail(err, errcap, ENG_EBAD_MESSAGE, "info: a move's info is an object, not %s",
                    rec__type_name(body));
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)body, key, v)
    {
        size_t i = 0;
        while (i < sizeof known / sizeof known[0] && strcmp(known[i], key) != 0)
            i++;
        if (i == sizeof known / sizeof known[0])
            return fail(err, errcap, ENG_EBAD_MESSAGE, "info: %s is not a field of a move's info",
                        rec__quote_bytes(key, strlen(key), q));
    }
    return 0;
}

bool info_pace_now(info_pace *p, double now_ms)
{
    if (p->passed < INFO_MAX_PER_TURN - 1 &&
        (p->passed == 0 || now_ms - p->last_ms >= INFO_MIN_INTERVAL_MS)) {
        p->passed++;
        p->last_ms = now_ms;
        p->held = 0;
        return true;
    }
    p->held = 1;
    return false;
}

bool info_pace_final(info_pace *p)
{
    if (!p->held || p->passed >= INFO_MAX_PER_TURN)
        return false;
    p->held = 0;
    p->passed++;
    return true;
}
