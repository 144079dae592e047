/*
 * stdio.c — the stdio bot protocol's envelopes (contract in stdio.h,
 * description for bot authors in docs/stdio.md).
 *
 * Builders take borrowed JSON and return a new message; the game's parts
 * come from the wire and record codecs, never from here. The decoder reads
 * a bot's line in the usual three steps (cap, parse, shape) and writes its
 * reasons in our words, quoting untrusted text only through rec__quote*,
 * which keep at most a short printable excerpt.
 */
#include "stdio.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "games/common.h"

/* ---- builders ------------------------------------------------------------------- */

/* Set key to a new reference of v (borrowed) when v is not NULL. */
static void set_copy(json_t *o, const char *key, const json_t *v)
{
    if (v)
        json_object_set(o, key, (json_t *)v);
}

static void set_match(json_t *o, const char *match)
{
    if (match && match[0])
        json_object_set_new(o, "match", json_string(match));
}

json_t *stdio_start(const stdio_game *gm, const json_t *history, const json_t *state)
{
    json_t *o = json_pack("{s:s, s:i, s:s, s:O, s:i}", "type", "start", "protocol", STDIO_PROTOCOL,
                          "game", gm->game, "rules", (json_t *)gm->rules, "seat", gm->seat);
    if (!o)
        return NULL;
    set_match(o, gm->match);
    json_object_set_new(o, "history", history ? json_incref((json_t *)history) : json_array());
    set_copy(o, "state", state);
    set_copy(o, "time_control", gm->time_control);
    set_copy(o, "limits", gm->limits);
    return o;
}

json_t *stdio_your_turn(const stdio_game *gm, int turn, const json_t *state, const json_t *legal,
                        int64_t time_left_ms, int64_t deadline_epoch_ms, bool stateless,
                        const json_t *history)
{
    json_t *o = json_pack("{s:s}", "type", "your_turn");
    if (!o)
        return NULL;
    set_match(o, gm->match);
    json_object_set_new(o, "seat", json_integer(gm->seat));
    json_object_set_new(o, "turn", json_integer(turn));
    set_copy(o, "state", state);
    set_copy(o, "legal", legal);
    json_object_set_new(o, "time_left_ms", json_integer(time_left_ms > 0 ? time_left_ms : 0));
    json_object_set_new(o, "deadline", json_integer(deadline_epoch_ms));
    if (stateless) {
        json_object_set_new(o, "protocol", json_integer(STDIO_PROTOCOL));
        json_object_set_new(o, "game", json_string(gm->game));
        set_copy(o, "rules", gm->rules);
        json_object_set_new(o, "history", history ? json_incref((json_t *)history) : json_array());
        set_copy(o, "time_control", gm->time_control);
        set_copy(o, "limits", gm->limits);
    }
    return o;
}

json_t *stdio_update(const char *match, int turn, const json_t *record, const char *by,
                     const char *reason, const json_t *scores, const json_t *next,
                     const json_t *state)
{
    json_t *o = json_pack("{s:s}", "type", "update");
    if (!o)
        return NULL;
    set_match(o, match);
    json_object_set_new(o, "turn", json_integer(turn));
    set_copy(o, "record", record);
    json_object_set_new(o, "by", json_string(by ? by : "player"));
    if (reason)
        json_object_set_new(o, "reason", json_string(reason));
    set_copy(o, "scores", scores);
    json_object_set_new(o, "next", next ? json_incref((json_t *)next) : json_null());
    set_copy(o, "state", state);
    return o;
}

json_t *stdio_game_over(const char *match, const json_t *result)
{
    json_t *o = json_pack("{s:s}", "type", "game_over");
    if (!o)
        return NULL;
    set_match(o, match);
    set_copy(o, "scores", json_object_get(result, "scores"));
    set_copy(o, "ranking", json_object_get(result, "ranking"));
    set_copy(o, "result", result);
    return o;
}

json_t *stdio_error(int code, const char *message)
{
    return json_pack("{s:s, s:s, s:s}", "type", "error", "code", wire_err_code(code), "message",
                     message ? message : wire_err_message(code));
}

json_t *stdio_scores(const eng_game *g, const void *st)
{
    double sc[ENG_MAX_PLAYERS];
    g->scores(st, sc);
    json_t *a = json_array();
    for (int i = 0; a && i < eng_num_players(st); i++)
        json_array_append_new(a, json_integer((json_int_t)llround(sc[i])));
    return a;
}

json_t *stdio_result(const eng_game *g, const void *st, const char *reason, int faulty,
                     const char *detail)
{
    int n = eng_num_players(st);
    double sc[ENG_MAX_PLAYERS];
    g->scores(st, sc);
    /* ranking: by score, a faulty seat last (stable: ties keep seat order) */
    int order[ENG_MAX_PLAYERS];
    for (int i = 0; i < n; i++)
        order[i] = i;
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0; j--) {
            int a = order[j - 1], b = order[j];
            bool b_first =
                (a == faulty && b != faulty) || (a != faulty && b != faulty && sc[b] > sc[a]);
            if (!b_first)
                break;
            order[j - 1] = b;
            order[j] = a;
        }
    json_t *ranking = json_array(), *winners = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(ranking, json_integer(order[i]));
    double best = -INFINITY;
    for (int i = 0; i < n; i++)
        if (i != faulty && sc[i] > best)
            best = sc[i];
    for (int i = 0; i < n; i++)
        if (i != faulty && sc[i] == best)
            json_array_append_new(winners, json_integer(i));
    json_t *r = json_pack("{s:s, s:o, s:o, s:o}", "reason", reason ? reason : "normal", "winners",
                          winners, "ranking", ranking, "scores", stdio_scores(g, st));
    if (r && faulty >= 0)
        json_object_set_new(r, "seat", json_integer(faulty));
    if (r && detail)
        json_object_set_new(r, "detail", json_string(detail));
    return r;
}

char *stdio_line(const json_t *msg, size_t *len)
{
    char *text = json_dumps(msg, JSON_COMPACT);
    if (!text)
        return NULL;
    size_t n = strlen(text);
    char *line = realloc(text, n + 2);
    if (!line) {
        free(text);
        return NULL;
    }
    line[n] = '\n';
    line[n + 1] = 0;
    if (len)
        *len = n + 1;
    return line;
}

/* ---- the reply decoder ------------------------------------------------------------ */

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

/* Printable ASCII copy of untrusted bytes, cut to fit. */
static void sanitize(const char *in, size_t len, char *out, size_t cap)
{
    size_t o = 0;
    for (size_t i = 0; i < len && o + 1 < cap; i++) {
        unsigned char ch = (unsigned char)in[i];
        out[o++] = ch >= 0x20 && ch < 0x7f ? (char)ch : '?';
    }
    if (cap)
        out[o] = 0;
}

/* Keep debug text: control characters become '?', the rest (UTF-8 included)
 * is kept; cut at cap bytes on a character boundary. */
static void keep_debug(stdio_reply *r, const char *s, size_t len)
{
    size_t o = 0;
    r->debug_cut = len > STDIO_DEBUG_MAX;
    if (r->debug_cut) {
        len = STDIO_DEBUG_MAX;
        while (len > 0 && ((unsigned char)s[len] & 0xc0) == 0x80)
            len--; /* do not split a UTF-8 sequence */
    }
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)s[i];
        r->debug[o++] = ch < 0x20 || ch == 0x7f ? '?' : (char)ch;
    }
    r->debug[o] = 0;
}

static void note_ignored(stdio_reply *r, const char *key)
{
    r->n_ignored++;
    size_t have = strlen(r->ignored);
    char name[40];
    sanitize(key, strlen(key), name, sizeof name);
    if (have + strlen(name) + 3 < sizeof r->ignored)
        snprintf(r->ignored + have, sizeof r->ignored - have, "%s%s", have ? ", " : "", name);
}

int stdio_decode(const char *line, size_t len, size_t max_line, stdio_reply *r, char *err,
                 size_t errcap)
{
    if (err && errcap)
        err[0] = 0;
    if (!r || (!line && len))
        return fail(err, errcap, ENG_EINVAL, "stdio_decode: no reply or no line");
    memset(r, 0, sizeof *r);
    if (!max_line)
        max_line = STDIO_MAX_LINE;
    if (len > max_line)
        return fail(err, errcap, ENG_ETOO_LARGE, "a line of %zu bytes; the limit is %zu", len,
                    max_line);
    if (len && line[len - 1] == '\r')
        len--;
    char excerpt[48];
    sanitize(line, len < 40 ? len : 40, excerpt, sizeof excerpt);
    const char *more = len > 40 ? "..." : "";
    if (len == 0)
        return fail(err, errcap, ENG_EBAD_JSON, "an empty line is not a message");

    json_error_t e;
    memset(&e, 0, sizeof e);
    json_t *root = json_loadb(line, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &e);
    if (!root) {
        char text[80];
        sanitize(e.text, strlen(e.text), text, sizeof text);
        switch (json_error_code(&e)) {
        case json_error_out_of_memory:
            return fail(err, errcap, ENG_ENOMEM, "out of memory while parsing a line");
        case json_error_numeric_overflow:
            return fail(err, errcap, ENG_EBAD_MESSAGE,
                        "a number out of range at column %d (integers must fit in 64 bits)",
                        e.column);
        case json_error_stack_overflow:
            return fail(err, errcap, ENG_EBAD_JSON, "not JSON: nested deeper than %d levels",
                        JSON_PARSER_MAX_DEPTH);
        default:
            return fail(err, errcap, ENG_EBAD_JSON, "not JSON (column %d: %s): '%s%s'", e.column,
                        text, excerpt, more);
        }
    }
    int rc;
    char q[REC_QUOTE_MAX];
    if (!json_is_object(root)) {
        rc = fail(err, errcap, ENG_EBAD_JSON, "a message is one JSON object, not %s: '%s%s'",
                  rec__type_name(root), excerpt, more);
        goto out;
    }
    const json_t *jt = json_object_get(root, "type");
    if (!jt) {
        rc = fail(err, errcap, ENG_EBAD_MESSAGE, "missing field \"type\": '%s%s'", excerpt, more);
        goto out;
    }
    if (!json_is_string(jt)) {
        rc = fail(err, errcap, ENG_EBAD_MESSAGE, "type must be a string, not %s",
                  rec__type_name(jt));
        goto out;
    }
    const char *type = json_string_value(jt);
    size_t tlen = json_string_length(jt);
    if (tlen == 4 && memcmp(type, "move", 4) == 0) {
        r->type = STDIO_MOVE;
    } else if (tlen == 6 && memcmp(type, "resign", 6) == 0) {
        r->type = STDIO_RESIGN;
    } else if (tlen == 4 && memcmp(type, "info", 4) == 0) {
        r->type = STDIO_INFO; /* advice, not an answer: info_read checks the body */
        r->root = root;
        r->len = len;
        return 0;
    } else {
        rc =
            fail(err, errcap, ENG_EUNKNOWN_TYPE,
                 "unknown message type %s (a bot sends \"move\", \"resign\" or \"info\")", rec__quote(jt, q));
        goto out;
    }
    const char *what = r->type == STDIO_MOVE ? "move" : "resign";

    const char *key;
    json_t *v;
    json_object_foreach(root, key, v)
    {
        if (strcmp(key, "type") == 0) {
            continue;
        } else if (strcmp(key, "move") == 0 && r->type == STDIO_MOVE) {
            if (!json_is_object(v)) {
                rc = fail(err, errcap, ENG_EBAD_MESSAGE,
                          "move: \"move\" must be an object (an entry of legal), not %s",
                          rec__type_name(v));
                goto out;
            }
            r->move = v;
        } else if (strcmp(key, "info") == 0 && r->type == STDIO_MOVE) {
            r->info = v; /* any value: the caller checks it, and a bad one is dropped */
        } else if (strcmp(key, "turn") == 0) {
            if (!json_is_integer(v) || json_integer_value(v) < 1) {
                rc = fail(err, errcap, ENG_EBAD_MESSAGE, "%s: turn must be an integer >= 1", what);
                goto out;
            }
            r->has_turn = true;
            r->turn = json_integer_value(v);
        } else if (strcmp(key, "debug") == 0) {
            if (json_is_string(v)) {
                keep_debug(r, json_string_value(v), json_string_length(v));
            } else if (!json_is_null(v)) {
                char *text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
                if (!text) {
                    rc = fail(err, errcap, ENG_ENOMEM, "out of memory");
                    goto out;
                }
                keep_debug(r, text, strlen(text));
                free(text);
            }
        } else {
            /* match, id (WebSocket habits) and anything else: harmless here */
            note_ignored(r, key);
        }
    }
    if (r->type == STDIO_MOVE && !r->move) {
        rc = fail(err, errcap, ENG_EBAD_MESSAGE, "move: missing field \"move\"");
        goto out;
    }
    r->root = root;
    return 0;
out:
    json_decref(root);
    memset(r, 0, sizeof *r);
    return rc;
}

void stdio_reply_free(stdio_reply *r)
{
    if (!r)
        return;
    json_decref(r->root);
    memset(r, 0, sizeof *r);
}
