/*
 * messages.c — the client messages of docs/protocol.md read into C, and the
 * small builders of server replies (contract in messages.h).
 *
 * Everything a client sends is untrusted. Decoding goes in the three steps
 * used for every input in tessera:
 *   1. parse: at most PROTO_MAX_MESSAGE bytes, by jansson, duplicate keys
 *      rejected, depth capped by jansson (JSON_PARSER_MAX_DEPTH);
 *   2. shape: the exact fields of each message type (strict unpacking:
 *      unknown and missing fields are errors) and their JSON types (the
 *      course_* family from one table of its fields: a field of a sibling
 *      course message is ignored there, see proto_course);
 *   3. ranges: ids, names, tokens, numbers, enum strings.
 * Game-specific parts (`rules`, `move.move`) are only checked to be objects
 * here; the server reads them with the game's codec.
 *
 * Reasons are written in our own words, printable ASCII only: untrusted text
 * (keys, values, jansson's parse messages that quote the input) appears only
 * through rec__quote() and rec__quote_bytes(), which show at most 16 characters and turns anything
 * outside printable ASCII into '?'. A reason names the message type and the
 * field ("join: seat must be 0 to 4, not 9"), so a client can fix its code.
 *
 * Decoding never allocates from a size the input claims: jansson builds the
 * tree from at most PROTO_MAX_MESSAGE bytes, and everything else is fixed
 * fields of proto_msg or pointers borrowed from that tree.
 */
#include "messages.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "games/common.h"

/* ---- names ------------------------------------------------------------- */

static const char *const type_names[PROTO_NTYPES] = {
    [PROTO_HELLO] = "hello",
    [PROTO_PING] = "ping",
    [PROTO_LIST_GAMES] = "list_games",
    [PROTO_LIST_BOTS] = "list_bots",
    [PROTO_LIST_MATCHES] = "list_matches",
    [PROTO_CREATE_MATCH] = "create_match",
    [PROTO_JOIN] = "join",
    [PROTO_SPECTATE] = "spectate",
    [PROTO_UNSPECTATE] = "unspectate",
    [PROTO_MOVE] = "move",
    [PROTO_RESIGN] = "resign",
    [PROTO_RESUME] = "resume",
    [PROTO_REPLAY] = "replay",
    [PROTO_SERVER_STATS] = "server_stats",
    [PROTO_GET_RECORD] = "get_record",
    [PROTO_REGISTER] = "register",
    [PROTO_UNREGISTER] = "unregister",
    [PROTO_CREATE_TOURNAMENT] = "create_tournament",
    [PROTO_START_TOURNAMENT] = "start_tournament",
    [PROTO_PAUSE_TOURNAMENT] = "pause_tournament",
    [PROTO_CANCEL_TOURNAMENT] = "cancel_tournament",
    [PROTO_LIST_TOURNAMENTS] = "list_tournaments",
    [PROTO_WATCH_TOURNAMENT] = "watch_tournament",
    [PROTO_UNWATCH_TOURNAMENT] = "unwatch_tournament",
    [PROTO_GET_TOURNAMENT_PLOTS] = "get_tournament_plots",
    [PROTO_COURSE_CREATE] = "course_create",
    [PROTO_COURSE_ADD_STUDENTS] = "course_add_students",
    [PROTO_COURSE_SET_DEADLINE] = "course_set_deadline",
    [PROTO_COURSE_START_FINAL] = "course_start_final",
    [PROTO_COURSE_GRADES] = "course_grades",
    [PROTO_COURSE_LIST] = "course_list",
    [PROTO_COURSE_RERUN_GATES] = "course_rerun_gates",
    [PROTO_COURSE_ARCHIVE] = "course_archive",
    [PROTO_COURSE_DELETE] = "course_delete",
    [PROTO_COURSE_SETTINGS] = "course_settings",
    [PROTO_COURSE_VIEW] = "course_view",
    [PROTO_COURSE_GAME] = "course_game",
    [PROTO_COURSE_CODE] = "course_code",
    [PROTO_COURSE_SUBMIT] = "course_submit",
    [PROTO_COURSE_UPLOAD] = "course_upload",
    [PROTO_ANALYZE] = "analyze",
    [PROTO_INFO] = "info",
};

/* Indexed by the enums of messages.h; NULL-terminated for enum_of(). */
static const char *const timeout_names[] = {"forfeit", "random_move", "grace", NULL};
static const char *const illegal_names[] = {"reject", "forfeit", "random_move", NULL};
static const char *const disconnect_names[] = {"forfeit", "random_move", NULL};
static const char *const info_names[] = {"live", "delayed", "never", NULL};
static const char *const status_names[] = {"all", "live", "finished", NULL};
static const char *const tour_format_names[] = {"round-robin", "gauntlet", "swiss",
                                                "knockout",    "ladder",   NULL};
static const char *const sprt_model_names[] = {"normalized", "logistic", NULL};

/* "unknown" for a value outside the table, so a caller's printf never gets NULL. */
static const char *name_in(const char *const *names, int n, int v)
{
    return v >= 0 && v < n && names[v] ? names[v] : "unknown";
}

const char *proto_type_name(proto_type t)
{
    return name_in(type_names, PROTO_NTYPES, (int)t);
}

const char *proto_timeout_name(int v)
{
    return name_in(timeout_names, 3, v);
}

const char *proto_illegal_name(int v)
{
    return name_in(illegal_names, 3, v);
}

const char *proto_disconnect_name(int v)
{
    return name_in(disconnect_names, 2, v);
}

const char *proto_info_name(int v)
{
    return name_in(info_names, 3, v);
}

const char *proto_tour_format_name(int v)
{
    return name_in(tour_format_names, 5, v);
}

/* ---- replies ----------------------------------------------------------- */

json_t *proto_reply(const char *type, const json_t *id)
{
    if (!type)
        return NULL;
    json_t *r = json_object();
    if (!r || json_object_set_new(r, "type", json_string(type)))
        goto fail;
    /* A copy, not a shared reference: the reply may outlive the message and
     * be serialised on another thread. */
    if (id && json_object_set_new(r, "id", json_deep_copy(id)))
        goto fail;
    return r;
fail:
    json_decref(r);
    return NULL;
}

json_t *proto_error(int code, const char *message, const json_t *id)
{
    json_t *r = json_object();
    if (!r || json_object_set_new(r, "type", json_string("error")) ||
        json_object_set_new(r, "code", json_string(wire_err_code(code))))
        goto fail;
    /* json_string() refuses invalid UTF-8: fall back to the table's message
     * rather than send no message at all. */
    json_t *text = message && message[0] ? json_string(message) : NULL;
    if (!text)
        text = json_string(wire_err_message(code));
    if (json_object_set_new(r, "message", text))
        goto fail;
    if (id && json_object_set_new(r, "id", json_deep_copy(id)))
        goto fail;
    return r;
fail:
    json_decref(r);
    return NULL;
}

/* ---- reasons ----------------------------------------------------------- */

/* State of one decode: where the reason goes and which message it is about. */
typedef struct dctx {
    char *err;        /* reason buffer (may be NULL) */
    size_t errcap;    /* its size */
    const char *what; /* message type name for the prefix, NULL before it is known */
} dctx;

static int fail(dctx *c, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Write "<type>: <reason>" to the reason buffer and return code. */
static int fail(dctx *c, int code, const char *fmt, ...)
{
    if (!c->err || !c->errcap)
        return code;
    char text[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (c->what)
        snprintf(c->err, c->errcap, "%s: %s", c->what, text);
    else
        snprintf(c->err, c->errcap, "%s", text);
    return code;
}

/* jansson's parse message in printable ASCII, cut to fit: it quotes the
 * input near the error ("invalid token near 'tru'"). */
static void sanitize(const char *in, char *out, size_t cap)
{
    size_t o = 0;
    for (size_t i = 0; in[i] && o + 1 < cap; i++) {
        unsigned char ch = (unsigned char)in[i];
        out[o++] = ch >= 0x20 && ch < 0x7f ? (char)ch : '?';
    }
    out[o] = 0;
}

/* ---- field checks ------------------------------------------------------ */

/* The fields one object may hold: name, and whether it must be present. */
typedef struct field {
    const char *name;
    bool required;
} field;

/* Explain why strict unpacking of obj failed, in our words: the first field
 * not in fields[0..n), else the first required one missing. `where` names
 * the object inside the message ("time_control"), or NULL for the message
 * itself. */
static int shape_fail(dctx *c, json_t *obj, const char *where, const field *fields, int n,
                      const json_error_t *e)
{
    char q[REC_QUOTE_MAX];
    const char *key;
    json_t *v;
    if (json_error_code(e) == json_error_out_of_memory)
        return fail(c, ENG_ENOMEM, "out of memory while reading the message");
    json_object_foreach(obj, key, v)
    {
        int i = 0;
        while (i < n && strcmp(fields[i].name, key) != 0)
            i++;
        if (i == n)
            return where ? fail(c, ENG_EBAD_MESSAGE, "unknown field %s in %s",
                                rec__quote_bytes(key, strlen(key), q), where)
                         : fail(c, ENG_EBAD_MESSAGE, "unknown field %s", rec__quote_bytes(key, strlen(key), q));
    }
    for (int i = 0; i < n; i++)
        if (fields[i].required && !json_object_get(obj, fields[i].name))
            return where ? fail(c, ENG_EBAD_MESSAGE, "missing field \"%s\" in %s", fields[i].name,
                                where)
                         : fail(c, ENG_EBAD_MESSAGE, "missing field \"%s\"", fields[i].name);
    /* Not reached while the fields match the unpack format; stay safe. */
    char text[80];
    sanitize(e->text, text, sizeof text);
    return fail(c, ENG_EBAD_MESSAGE, "could not read the message (%s)", text);
}

/* Characters (Unicode code points) of a JSON string: jansson has checked
 * the UTF-8, so counting the bytes that start a character is enough. */
static size_t utf8_chars(const char *s, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += ((unsigned char)s[i] & 0xc0) != 0x80;
    return n;
}

/* An integer in [lo, hi] into *out. Reals (1.0, 1e300) are refused: a field
 * that counts something is written as a JSON integer. */
static int want_int(dctx *c, const json_t *v, const char *name, long long lo, long long hi,
                    long long *out)
{
    if (!json_is_integer(v))
        return fail(c, ENG_EBAD_MESSAGE, "%s must be an integer, not %s", name, rec__type_name(v));
    long long x = (long long)json_integer_value(v);
    if (x < lo || x > hi)
        return fail(c, ENG_EBAD_MESSAGE, "%s must be %lld to %lld, not %lld", name, lo, hi, x);
    *out = x;
    return 0;
}

/* A string of 1..max characters [A-Za-z0-9_-]: match ids and tokens. */
static int want_ident(dctx *c, const json_t *v, const char *name, size_t max, const char **out)
{
    char q[REC_QUOTE_MAX];
    if (!json_is_string(v))
        return fail(c, ENG_EBAD_MESSAGE, "%s must be a string, not %s", name, rec__type_name(v));
    const char *s = json_string_value(v);
    size_t len = json_string_length(v);
    if (len == 0)
        return fail(c, ENG_EBAD_MESSAGE, "%s must not be empty", name);
    if (len > max)
        return fail(c, ENG_EBAD_MESSAGE, "%s is too long (%zu bytes, at most %zu)", name, len, max);
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '_' || ch == '-'))
            return fail(c, ENG_EBAD_MESSAGE, "%s may hold only A-Z a-z 0-9 _ -, not %s", name,
                        rec__quote(v, q));
    }
    *out = s;
    return 0;
}

/* A string of 1..max printable ASCII characters (space to '~'): names,
 * client, game, bot specs. ASCII keeps names safe to print anywhere and lets
 * a name of PROTO_NAME_MAX characters fit proto_seat_spec's buffer. */
static int want_text(dctx *c, const json_t *v, const char *name, size_t max, const char **out)
{
    char q[REC_QUOTE_MAX];
    if (!json_is_string(v))
        return fail(c, ENG_EBAD_MESSAGE, "%s must be a string, not %s", name, rec__type_name(v));
    const char *s = json_string_value(v);
    size_t len = json_string_length(v);
    if (len == 0)
        return fail(c, ENG_EBAD_MESSAGE, "%s must not be empty", name);
    if (len > max)
        return fail(c, ENG_EBAD_MESSAGE, "%s is too long (%zu bytes, at most %zu)", name, len, max);
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch < 0x20 || ch > 0x7e)
            return fail(c, ENG_EBAD_MESSAGE,
                        "%s may hold only printable ASCII characters, not %s (byte %zu)", name,
                        rec__quote(v, q), i);
    }
    *out = s;
    return 0;
}

/* One of the strings names[] (NULL-terminated); its index into *out. */
static int want_enum(dctx *c, const json_t *v, const char *name, const char *const *names,
                     int *out)
{
    char q[REC_QUOTE_MAX];
    if (!json_is_string(v))
        return fail(c, ENG_EBAD_MESSAGE, "%s must be a string, not %s", name, rec__type_name(v));
    const char *s = json_string_value(v);
    for (int i = 0; names[i]; i++)
        if (strcmp(s, names[i]) == 0 && strlen(names[i]) == json_string_length(v)) {
            *out = i;
            return 0;
        }
    char choices[128] = "";
    size_t o = 0;
    for (int i = 0; names[i]; i++)
        o += (size_t)snprintf(choices + o, sizeof choices - o, "%s%s", i ? ", " : "", names[i]);
    return fail(c, ENG_EBAD_MESSAGE, "%s must be one of %s, not %s", name, choices,
                rec__quote(v, q));
}

static int want_object(dctx *c, const json_t *v, const char *name)
{
    if (!json_is_object(v))
        return fail(c, ENG_EBAD_MESSAGE, "%s must be an object, not %s", name, rec__type_name(v));
    return 0;
}

/* ---- message bodies ---------------------------------------------------- */

/* Common to every message: "type" and "id" (checked before the body). */
#define COMMON_FIELDS {"type", true}, {"id", false}
#define NFIELDS(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* ping, list_games, list_bots: nothing but type and id. */
static int dec_bare(dctx *c, proto_msg *m)
{
    static const field fields[] = {COMMON_FIELDS};
    json_error_t e;
    json_t *t, *id = NULL;
    if (json_unpack_ex(m->root, &e, JSON_STRICT, "{s:o, s?o}", "type", &t, "id", &id))
        return shape_fail(c, m->root, NULL, fields, NFIELDS(fields), &e);
    return 0;
}

static int dec_hello(dctx *c, proto_msg *m)
{
    static const field fields[] = {COMMON_FIELDS, {"protocol", true}, {"client", false}};
    json_error_t e;
    json_t *t, *id = NULL, *proto = NULL, *client = NULL;
    /* The version first: a client of another protocol version may well send
     * fields this one does not know, and deserves to hear about the version. */
    proto = json_object_get(m->root, "protocol");
    if (json_is_integer(proto) &&
        (json_integer_value(proto) < PROTO_VERSION || json_integer_value(proto) > PROTO_VERSION_MAX))
        return fail(c, ENG_EBAD_VERSION, "protocol %lld is not supported; this server speaks %d to %d",
                    (long long)json_integer_value(proto), PROTO_VERSION, PROTO_VERSION_MAX);
    if (json_unpack_ex(m->root, &e, JSON_STRICT, "{s:o, s?o, s:o, s?o}", "type", &t, "id", &id,
                       "protocol", &proto, "client", &client))
        return shape_fail(c, m->root, NULL, fields, NFIELDS(fields), &e);
    long long v = 0;
    int rc = want_int(c, proto, "protocol", PROTO_VERSION, PROTO_VERSION_MAX, &v);
    if (rc)
        return rc;
    m->protocol = v;
    if (client && (rc = want_text(c, client, "client", PROTO_NAME_MAX, &m->client)))
        return rc;
    return 0;
}

static int dec_list_matches(dctx *c, proto_msg *m)
{
    static const field fields[] = {COMMON_FIELDS, {"status", false}};
    json_error_t e;
    json_t *t, *id = NULL, *status = NULL;
    if (json_unpack_ex(m->root, &e, JSON_STRICT, "{s:o, s?o, s?o}", "type", &t, "id", &id,
                       "status", &status))
        return shape_fail(c, m->root, NULL, fields, NFIELDS(fields), &e);
    m->status = PROTO_LIST_ALL;
    if (status)
        return want_enum(c, status, "status", status_names, &m->status);
    return 0;
}

/* join: match, seat and token, all required. */
static int dec_join(dctx *c, proto_msg *m)
{
    static const field fields[] = {COMMON_FIELDS, {"match", true}, {"seat", true}, {"token", true}};
    json_error_t e;
    json_t *t, *id = NULL, *match, *seat, *token;
    if (json_unpack_ex(m->root, &e, JSON_STRICT, "{s:o, s?o, s:o, s:o, s:o}", "type", &t, "id",
                       &id, "match", &match, "seat", &seat, "token", &token))
        return shape_fail(c, m->root, NULL, fields, NFIELDS(fields), &e);
    long long v = 0;
    int rc;
    if ((rc = want_ident(c, match, "match", PROTO_MATCH_ID_MAX, &m->match)) ||
        (rc = want_int(c, seat, "seat", 0, ENG_MAX_PLAYERS - 1, &v)) ||
        (rc = want_ident(c, token, "token", PROTO_TOKEN_MAX, &m->token)))
        return rc;
    m->seat = (int)v;
    return 0;
}

/* spectate, unspectate: the match, required. */
static int dec_match_only(dctx *c, proto_msg *m)
{
    static const field fields[] = {COMMON_FIELDS, {"match", true}};
    json_error_t e;
    json_t *t, *id = NULL, *match;
    if (json_unpack_ex(m->root, &e, JSON_STRICT, "{s:o, s?o, s:o}", "type", &t, "id", &id,
                       "match", &match))
        return shape_fail(c, m->root, NULL, fields, NFIELDS(fields), &e);
    return want_ident(c, match, "match", PROTO_MATCH_ID_MAX, &m->match);
}

/* The optional "seat" of move and resign: which of the connection's seats
 * (needed only when it holds several that could be meant). */
static int opt_seat(dctx *c, const json_t *seat, proto_msg *m)
{
    if (!seat)
        return 0;
    long long v = 0;
    int rc = want_int(c, seat, "seat", 0, ENG_MAX_PLAYERS - 1, &v);
    if (rc)
        return rc;
    m->seat = (int)v;
    m->has_seat = true;
    return 0;
}

/* resign: the match and the seat are optional (the server picks the seat
 * the connection holds, see played_match() in server/handlers.c). */
static int dec_resign(dctx *c, proto_msg *m)
{
    static const field fields[] = {COMMON_FIELDS, {"match", false}, {"seat", false}};
    json_error_t e;
    json_t *t, *id = NULL, *match = NULL, *seat = NULL;
    if (json_unpack_ex(m->root, &e, JSON_STRICT, "{s:o, s?o, s?o, s?o}", "type", &t, "id", &id,
                       "match", &match, "seat", &seat))
        return shape_fail(c, m->root, NULL, fields, NFIELDS(fields), &e);
    int rc;
    if (match && (rc = want_ident(c, match, "match", PROTO_MATCH_ID_MAX, &m->match)))
        return rc;
    return opt_seat(c, seat, m);
}

/* The optional "match", "seat" and "turn" of a seat's message (move, info). */
static int opt_match_seat_turn(dctx *c, json_t *match, json_t *seat, json_t *turn, proto_msg *m)
{
    int rc;
    if (match && (rc = want_ident(c, match, "match", PROTO_MATCH_ID_MAX, &m->match)))
        return rc;
    if ((rc = opt_seat(c, seat, m)))
        return rc;
    if (turn) {
        long long v = 0;
        if ((rc = want_int(c, turn, "turn", 1, INT64_MAX, &v)))
            return rc;
        m->has_turn = true;
        m->turn = v;
    }
    return 0;
}

/* move: the match, seat and turn are optional, and so is think_ms (the
 * client's own measure of its thinking, kept with the move) and info (the
 * seat's thinking line of the turn: any JSON value here — a bad line never
 * costs the move, the server checks and drops it). */
static int dec_move(dctx *c, proto_msg *m)
{
    static const field fields[] = {COMMON_FIELDS,       {"match", false}, {"seat", false},
                                   {"turn", false},     {"think_ms", false},
                                   {"move", true},      {"info", false}};
    json_error_t e;
    json_t *t, *id = NULL, *match = NULL, *seat = NULL, *turn = NULL, *think = NULL, *move,
                *info = NULL;
    if (json_unpack_ex(m->root, &e, JSON_STRICT, "{s:o, s?o, s?o, s?o, s?o, s?o, s:o, s?o}", "type",
                       &t, "id", &id, "match", &match, "seat", &seat, "turn", &turn, "think_ms",
                       &think, "move", &move, "info", &info))
        return shape_fail(c, m->root, NULL, fields, NFIELDS(fields), &e);
    m->info = info;
    int rc;
    if ((rc = opt_match_seat_turn(c, match, seat, turn, m)))
        return rc;
    if (think) {
        long long v = 0;
        if ((rc = want_int(c, think, "think_ms", 0, PROTO_MAX_MS, &v)))
            return rc;
        m->has_think_ms = true;
        m->think_ms = v;
    }
    if ((rc = want_object(c, move, "move")))
        return rc;
    m->move = move;
    return 0;
}

static int dec_resume(dctx *c, proto_msg *m)
{
    static const field fields[] = {COMMON_FIELDS, {"resume_token", true}};
    json_error_t e;
    json_t *t, *id = NULL, *token;
    if (json_unpack_ex(m->root, &e, JSON_STRICT, "{s:o, s?o, s:o}", "type", &t, "id", &id,
                       "resume_token", &token))
        return shape_fail(c, m->root, NULL, fields, NFIELDS(fields), &e);
    return want_ident(c, token, "resume_token", PROTO_TOKEN_MAX, &m->resume_token);
}

/* A message about one game (replay, analyze): its "match" (an id), or its
 * "record" (an object, for the record reader to check) — exactly one. */
static int dec_match_or_record(dctx *c, proto_msg *m, const char *type)
{
    static const field fields[] = {COMMON_FIELDS, {"match", false}, {"record", false}};
    json_error_t e;
    json_t *t, *id = NULL, *match = NULL, *record = NULL;
    if (json_unpack_ex(m->root, &e, JSON_STRICT, "{s:o, s?o, s?o, s?o}", "type", &t, "id", &id,
                       "match", &match, "record", &record))
        return shape_fail(c, m->root, NULL, fields, NFIELDS(fields), &e);
    if (!match == !record)
        return fail(c, ENG_EBAD_MESSAGE, "%s takes exactly one of \"match\" and \"record\"",
                    type);
    if (match)
        return want_ident(c, match, "match", PROTO_MATCH_ID_MAX, &m->match);
    int rc = want_object(c, record, "record");
    if (rc)
        return rc;
    m->record = record;
    return 0;
}

/* replay: a match by id, or a record sent along (checked later, turn by
 * turn, by the record reader). Exactly one of the two. */
static int dec_replay(dctx *c, proto_msg *m) { return dec_match_or_record(c, m, "replay"); }

/* ---- create_match ------------------------------------------------------ */

/* One entry of "seats": exactly {"bot":SPEC} or {"open":true}, plus an
 * optional "name". */
static int dec_seat(dctx *c, json_t *js, int i, proto_seat_spec *s)
{
    static const field fields[] = {{"bot", false}, {"open", false}, {"name", false}};
    char where[32], name[48];
    snprintf(where, sizeof where, "seats[%d]", i);
    int rc = want_object(c, js, where);
    if (rc)
        return rc;
    json_error_t e;
    json_t *bot = NULL, *open = NULL, *jname = NULL;
    if (json_unpack_ex(js, &e, JSON_STRICT, "{s?o, s?o, s?o}", "bot", &bot, "open", &open, "name",
                       &jname))
        return shape_fail(c, js, where, fields, NFIELDS(fields), &e);
    if (bot && open)
        return fail(c, ENG_EBAD_MESSAGE, "%s has both \"bot\" and \"open\"; give one", where);
    if (!bot && !open)
        return fail(c, ENG_EBAD_MESSAGE, "%s needs \"bot\": SPEC or \"open\": true", where);
    const char *str;
    if (open) {
        if (!json_is_boolean(open))
            return fail(c, ENG_EBAD_MESSAGE, "%s.open must be true, not %s", where,
                        rec__type_name(open));
        if (!json_is_true(open))
            return fail(c, ENG_EBAD_MESSAGE,
                        "%s.open must be true (a bot seat gives \"bot\" instead)", where);
        s->open = true;
    } else {
        snprintf(name, sizeof name, "%s.bot", where);
        if ((rc = want_text(c, bot, name, PROTO_SPEC_MAX, &str)))
            return rc;
        memcpy(s->bot, str, strlen(str) + 1); /* fits: at most PROTO_SPEC_MAX bytes */
    }
    if (jname) {
        snprintf(name, sizeof name, "%s.name", where);
        if ((rc = want_text(c, jname, name, PROTO_NAME_MAX, &str)))
            return rc;
        memcpy(s->name, str, strlen(str) + 1); /* fits: at most PROTO_NAME_MAX bytes */
    }
    return 0;
}

static int dec_time_control(dctx *c, json_t *jtc, proto_time_control *tc)
{
    static const field fields[] = {
        {"move_ms", false}, {"first_move_ms", false}, {"bank_ms", false}, {"increment_ms", false}};
    tc->move_ms = 10000;
    tc->first_move_ms = -1; /* 3 x move_ms unless given */
    tc->bank_ms = 0;
    tc->increment_ms = 0;
    int rc;
    if (jtc) {
        if ((rc = want_object(c, jtc, "time_control")))
            return rc;
        json_error_t e;
        json_t *mv = NULL, *first = NULL, *bank = NULL, *inc = NULL;
        if (json_unpack_ex(jtc, &e, JSON_STRICT, "{s?o, s?o, s?o, s?o}", "move_ms", &mv,
                           "first_move_ms", &first, "bank_ms", &bank, "increment_ms", &inc))
            return shape_fail(c, jtc, "time_control", fields, NFIELDS(fields), &e);
        long long v = 0;
        if (mv) {
            if ((rc = want_int(c, mv, "time_control.move_ms", PROTO_MIN_MOVE_MS, PROTO_MAX_MS, &v)))
                return rc;
            tc->move_ms = v;
        }
        if (first) {
            if ((rc = want_int(c, first, "time_control.first_move_ms", PROTO_MIN_MOVE_MS,
                               PROTO_MAX_MS, &v)))
                return rc;
            tc->first_move_ms = v;
        }
        if (bank) {
            if ((rc = want_int(c, bank, "time_control.bank_ms", 0, PROTO_MAX_MS, &v)))
                return rc;
            tc->bank_ms = v;
        }
        if (inc) {
            if ((rc = want_int(c, inc, "time_control.increment_ms", 0, PROTO_MAX_MS, &v)))
                return rc;
            tc->increment_ms = v;
        }
    }
    if (tc->first_move_ms < 0)
        tc->first_move_ms = tc->move_ms <= PROTO_MAX_MS / 3 ? 3 * tc->move_ms : PROTO_MAX_MS;
    return 0;
}

static int dec_policies(dctx *c, json_t *jp, proto_policies *p)
{
    static const field fields[] = {{"timeout", false},    {"illegal", false},
                                   {"max_illegal", false}, {"disconnect", false},
                                   {"reconnect_grace_ms", false}, {"grace_ms", false},
                                   {"info", false}};
    p->timeout = PROTO_TIMEOUT_FORFEIT;
    p->illegal = PROTO_ILLEGAL_REJECT;
    p->max_illegal = 3;
    p->disconnect = PROTO_DISCONNECT_FORFEIT;
    p->reconnect_grace_ms = 30000;
    p->grace_ms = 10000;
    p->info = PROTO_INFO_LIVE;
    if (!jp)
        return 0;
    int rc = want_object(c, jp, "policies");
    if (rc)
        return rc;
    json_error_t e;
    json_t *timeout = NULL, *illegal = NULL, *maxill = NULL, *disc = NULL, *recon = NULL,
           *grace = NULL, *info = NULL;
    if (json_unpack_ex(jp, &e, JSON_STRICT, "{s?o, s?o, s?o, s?o, s?o, s?o, s?o}", "timeout",
                       &timeout, "illegal", &illegal, "max_illegal", &maxill, "disconnect", &disc,
                       "reconnect_grace_ms", &recon, "grace_ms", &grace, "info", &info))
        return shape_fail(c, jp, "policies", fields, NFIELDS(fields), &e);
    long long v = 0;
    if (timeout && (rc = want_enum(c, timeout, "policies.timeout", timeout_names, &p->timeout)))
        return rc;
    if (illegal && (rc = want_enum(c, illegal, "policies.illegal", illegal_names, &p->illegal)))
        return rc;
    if (maxill) {
        if ((rc = want_int(c, maxill, "policies.max_illegal", 1, PROTO_MAX_ILLEGAL, &v)))
            return rc;
        p->max_illegal = (int)v;
    }
    if (disc &&
        (rc = want_enum(c, disc, "policies.disconnect", disconnect_names, &p->disconnect)))
        return rc;
    if (recon) {
        if ((rc = want_int(c, recon, "policies.reconnect_grace_ms", 0, PROTO_MAX_MS, &v)))
            return rc;
        p->reconnect_grace_ms = v;
    }
    if (grace) {
        if ((rc = want_int(c, grace, "policies.grace_ms", 0, PROTO_MAX_MS, &v)))
            return rc;
        p->grace_ms = v;
    }
    if (info && (rc = want_enum(c, info, "policies.info", info_names, &p->info)))
        return rc;
    return 0;
}

static int dec_create_match(dctx *c, proto_msg *m)
{
    static const field fields[] = {
        COMMON_FIELDS,           {"game", true},      {"rules", false},      {"seats", true},
        {"time_control", false}, {"policies", false}, {"admin_token", false}};
    json_error_t e;
    json_t *t, *id = NULL, *game, *rules = NULL, *seats, *tc = NULL, *pol = NULL, *admin = NULL;
    if (json_unpack_ex(m->root, &e, JSON_STRICT, "{s:o, s?o, s:o, s?o, s:o, s?o, s?o, s?o}", "type",
                       &t, "id", &id, "game", &game, "rules", &rules, "seats", &seats,
                       "time_control", &tc, "policies", &pol, "admin_token", &admin))
        return shape_fail(c, m->root, NULL, fields, NFIELDS(fields), &e);
    int rc;
    if ((rc = want_text(c, game, "game", PROTO_NAME_MAX, &m->game)))
        return rc;
    if (admin && (rc = want_ident(c, admin, "admin_token", PROTO_TOKEN_MAX, &m->admin_token)))
        return rc;
    if (rules) {
        if ((rc = want_object(c, rules, "rules")))
            return rc;
        m->rules = rules;
    }
    if (!json_is_array(seats))
        return fail(c, ENG_EBAD_MESSAGE, "seats must be an array, not %s", rec__type_name(seats));
    size_t n = json_array_size(seats);
    if (n < 1 || n > ENG_MAX_PLAYERS)
        return fail(c, ENG_EBAD_MESSAGE, "seats must have 1 to %d entries, not %zu",
                    ENG_MAX_PLAYERS, n);
    for (size_t i = 0; i < n; i++)
        if ((rc = dec_seat(c, json_array_get(seats, i), (int)i, &m->seats[i])))
            return rc;
    m->nseats = (int)n;
    if ((rc = dec_time_control(c, tc, &m->tc)) || (rc = dec_policies(c, pol, &m->pol)))
        return rc;
    return 0;
}

/* ---- registered bots ---------------------------------------------------- */

/* A registered bot's name: 1..PROTO_NAME_MAX characters A-Z a-z 0-9 _ - . */
static int want_bot_name(dctx *c, const json_t *v, const char *name, const char **out)
{
    char q[REC_QUOTE_MAX];
    if (!json_is_string(v))
        return fail(c, ENG_EBAD_MESSAGE, "%s must be a string, not %s", name, rec__type_name(v));
    const char *s = json_string_value(v);
    size_t len = json_string_length(v);
    if (len == 0 || len > PROTO_NAME_MAX)
        return fail(c, ENG_EBAD_MESSAGE, "%s must have 1 to %d characters, not %zu", name,
                    PROTO_NAME_MAX, len);
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '_' || ch == '-' || ch == '.'))
            return fail(c, ENG_EBAD_MESSAGE, "%s may hold only A-Z a-z 0-9 _ - ., not %s", name,
                        rec__quote(v, q));
    }
    *out = s;
    return 0;
}

/* register: name, secret, capacity (1..16, default 1), games (default all). */
static int dec_register(dctx *c, proto_msg *m)
{
    static const field fields[] = {
        COMMON_FIELDS, {"name", true}, {"secret", true}, {"capacity", false}, {"games", false}};
    json_error_t e;
    json_t *t, *id = NULL, *name, *secret, *cap = NULL, *games = NULL;
    if (json_unpack_ex(m->root, &e, JSON_STRICT, "{s:o, s?o, s:o, s:o, s?o, s?o}", "type", &t, "id",
                       &id, "name", &name, "secret", &secret, "capacity", &cap, "games", &games))
        return shape_fail(c, m->root, NULL, fields, NFIELDS(fields), &e);
    int rc;
    if ((rc = want_bot_name(c, name, "name", &m->name)))
        return rc;
    if (!json_is_string(secret))
        return fail(c, ENG_EBAD_MESSAGE, "secret must be a string, not %s", rec__type_name(secret));
    size_t len = json_string_length(secret);
    if (len < PROTO_SECRET_MIN || len > PROTO_SECRET_MAX)
        return fail(c, ENG_EBAD_MESSAGE, "secret must have %d to %d characters, not %zu",
                    PROTO_SECRET_MIN, PROTO_SECRET_MAX, len);
    if ((rc = want_text(c, secret, "secret", PROTO_SECRET_MAX, &m->secret)))
        return rc;
    m->capacity = 1;
    if (cap) {
        long long v = 0;
        if ((rc = want_int(c, cap, "capacity", 1, PROTO_MAX_CAPACITY, &v)))
            return rc;
        m->capacity = (int)v;
    }
    if (games) {
        if (!json_is_array(games))
            return fail(c, ENG_EBAD_MESSAGE, "games must be an array, not %s",
                        rec__type_name(games));
        size_t n = json_array_size(games);
        if (n < 1 || n > PROTO_MAX_REG_GAMES)
            return fail(c, ENG_EBAD_MESSAGE, "games must have 1 to %d entries, not %zu",
                        PROTO_MAX_REG_GAMES, n);
        for (size_t i = 0; i < n; i++) {
            char what[32];
            snprintf(what, sizeof what, "games[%zu]", i);
            if ((rc = want_text(c, json_array_get(games, i), what, PROTO_NAME_MAX, &m->games[i])))
                return rc;
        }
        m->ngames = (int)n;
    }
    return 0;
}

/* ---- tournaments --------------------------------------------------------- */

static int want_tournament(dctx *c, const json_t *v, int64_t *out)
{
    long long x = 0;
    int rc = want_int(c, v, "tournament", 1, PROTO_MAX_TOUR_ID, &x);
    if (rc == 0)
        *out = x;
    return rc;
}

/* start/pause/cancel_tournament: the tournament and the admin token (its
 * absence is the server's "forbidden", not a shape error). */
static int dec_tournament_admin(dctx *c, proto_msg *m)
{
    static const field fields[] = {COMMON_FIELDS, {"tournament", true}, {"admin_token", false}};
    json_error_t e;
    json_t *t, *id = NULL, *tour, *admin = NULL;
    if (json_unpack_ex(m->root, &e, JSON_STRICT, "{s:o, s?o, s:o, s?o}", "type", &t, "id", &id,
                       "tournament", &tour, "admin_token", &admin))
        return shape_fail(c, m->root, NULL, fields, NFIELDS(fields), &e);
    int rc;
    if (admin && (rc = want_ident(c, admin, "admin_token", PROTO_TOKEN_MAX, &m->admin_token)))
        return rc;
    return want_tournament(c, tour, &m->tournament);
}

/* watch/unwatch_tournament, get_tournament_plots: the tournament. */
static int dec_tournament_only(dctx *c, proto_msg *m)
{
    static const field fields[] = {COMMON_FIELDS, {"tournament", true}};
    json_error_t e;
    json_t *t, *id = NULL, *tour;
    if (json_unpack_ex(m->root, &e, JSON_STRICT, "{s:o, s?o, s:o}", "type", &t, "id", &id,
                       "tournament", &tour))
        return shape_fail(c, m->root, NULL, fields, NFIELDS(fields), &e);
    return want_tournament(c, tour, &m->tournament);
}

/* A finite number (integer or real) into *out. */
static int want_number(dctx *c, const json_t *v, const char *name, double lo, double hi,
                       double *out)
{
    if (!json_is_number(v))
        return fail(c, ENG_EBAD_MESSAGE, "%s must be a number, not %s", name, rec__type_name(v));
    double x = json_number_value(v);
    if (!isfinite(x) || x < lo || x > hi)
        return fail(c, ENG_EBAD_MESSAGE, "%s must be %g to %g, not %g", name, lo, hi, x);
    *out = x;
    return 0;
}

/* One entry of "participants": {"name", "spec"[, "reference"]}. */
static int dec_participant(dctx *c, json_t *p, size_t i)
{
    static const field fields[] = {{"name", true}, {"spec", true}, {"reference", false}};
    char where[40], what[56];
    snprintf(where, sizeof where, "participants[%zu]", i);
    int rc = want_object(c, p, where);
    if (rc)
        return rc;
    json_error_t e;
    json_t *name, *spec, *ref = NULL;
    if (json_unpack_ex(p, &e, JSON_STRICT, "{s:o, s:o, s?o}", "name", &name, "spec", &spec,
                       "reference", &ref))
        return shape_fail(c, p, where, fields, NFIELDS(fields), &e);
    const char *str;
    snprintf(what, sizeof what, "%s.name", where);
    if ((rc = want_text(c, name, what, PROTO_NAME_MAX, &str)))
        return rc;
    snprintf(what, sizeof what, "%s.spec", where);
    if ((rc = want_text(c, spec, what, PROTO_SPEC_MAX, &str)))
        return rc;
    if (ref && !json_is_boolean(ref))
        return fail(c, ENG_EBAD_MESSAGE, "%s.reference must be true or false, not %s", where,
                    rec__type_name(ref));
    return 0;
}

static int dec_sprt(dctx *c, json_t *js, proto_tournament *t)
{
    static const field fields[] = {
        {"elo0", true}, {"elo1", true}, {"alpha", false}, {"beta", false}, {"model", false}};
    int rc = want_object(c, js, "sprt");
    if (rc)
        return rc;
    json_error_t e;
    json_t *e0, *e1, *a = NULL, *b = NULL, *model = NULL;
    if (json_unpack_ex(js, &e, JSON_STRICT, "{s:o, s:o, s?o, s?o, s?o}", "elo0", &e0, "elo1", &e1,
                       "alpha", &a, "beta", &b, "model", &model))
        return shape_fail(c, js, "sprt", fields, NFIELDS(fields), &e);
    t->alpha = t->beta = 0.05;
    if ((rc = want_number(c, e0, "sprt.elo0", -1000, 1000, &t->elo0)) ||
        (rc = want_number(c, e1, "sprt.elo1", -1000, 1000, &t->elo1)) ||
        (a && (rc = want_number(c, a, "sprt.alpha", 0, 1, &t->alpha))) ||
        (b && (rc = want_number(c, b, "sprt.beta", 0, 1, &t->beta))))
        return rc;
    int mi = 0;
    if (model && (rc = want_enum(c, model, "sprt.model", sprt_model_names, &mi)))
        return rc;
    t->sprt_model = sprt_model_names[mi];
    t->has_sprt = true;
    return 0;
}

static int dec_create_tournament(dctx *c, proto_msg *m)
{
    static const field fields[] = {COMMON_FIELDS,
                                   {"admin_token", false},
                                   {"format", true},
                                   {"game", true},
                                   {"rules", false},
                                   {"participants", true},
                                   {"games_per_pair", false},
                                   {"cycles", false},
                                   {"rounds", false},
                                   {"best_of", false},
                                   {"concurrency", false},
                                   {"time_control", false},
                                   {"policies", false},
                                   {"seed", false},
                                   {"sprt", false},
                                   {"label", false},
                                   {"anchor", false},
                                   {"placement_games", false},
                                   {"registered", false}};
    json_error_t e;
    json_t *t, *id = NULL, *admin = NULL, *format, *game, *rules = NULL, *parts, *gpp = NULL,
               *cycles = NULL, *rounds = NULL, *best_of = NULL, *conc = NULL, *tc = NULL,
               *pol = NULL, *seed = NULL, *sprt = NULL, *label = NULL, *anchor = NULL,
               *placement = NULL, *registered = NULL;
    if (json_unpack_ex(m->root, &e, JSON_STRICT,
                       "{s:o, s?o, s?o, s:o, s:o, s?o, s:o, s?o, s?o, s?o, s?o, s?o, s?o, s?o, "
                       "s?o, s?o, s?o, s?o, s?o, s?o}",
                       "type", &t, "id", &id, "admin_token", &admin, "format", &format, "game",
                       &game, "rules", &rules, "participants", &parts, "games_per_pair", &gpp,
                       "cycles", &cycles, "rounds", &rounds, "best_of", &best_of, "concurrency",
                       &conc, "time_control", &tc, "policies", &pol, "seed", &seed, "sprt", &sprt,
                       "label", &label, "anchor", &anchor, "placement_games", &placement,
                       "registered", &registered))
        return shape_fail(c, m->root, NULL, fields, NFIELDS(fields), &e);
    proto_tournament *tr = &m->tour;
    tr->games_per_pair = 2;
    tr->cycles = 1;
    tr->concurrency = 2;
    tr->placement_games = 10;
    tr->registered = true;
    tr->sprt_model = "normalized";
    int rc;
    long long v = 0;
    if (admin && (rc = want_ident(c, admin, "admin_token", PROTO_TOKEN_MAX, &m->admin_token)))
        return rc;
    if ((rc = want_enum(c, format, "format", tour_format_names, &tr->format)) ||
        (rc = want_text(c, game, "game", PROTO_NAME_MAX, &m->game)))
        return rc;
    if (rules) {
        if ((rc = want_object(c, rules, "rules")))
            return rc;
        m->rules = rules;
    }
    if (!json_is_array(parts))
        return fail(c, ENG_EBAD_MESSAGE, "participants must be an array, not %s",
                    rec__type_name(parts));
    size_t n = json_array_size(parts);
    if (n > PROTO_MAX_PARTICIPANTS)
        return fail(c, ENG_EBAD_MESSAGE, "participants must have at most %d entries, not %zu",
                    PROTO_MAX_PARTICIPANTS, n);
    for (size_t i = 0; i < n; i++)
        if ((rc = dec_participant(c, json_array_get(parts, i), i)))
            return rc;
    tr->participants = parts;
    tr->nparticipants = (int)n;
    if (gpp) {
        if ((rc = want_int(c, gpp, "games_per_pair", 1, 100000, &v)))
            return rc;
        tr->games_per_pair = v;
    }
    if (cycles) {
        if ((rc = want_int(c, cycles, "cycles", 1, 10000, &v)))
            return rc;
        tr->cycles = (int)v;
    }
    if (rounds) {
        if ((rc = want_int(c, rounds, "rounds", 0, 1000, &v)))
            return rc;
        tr->rounds = (int)v;
    }
    if (best_of) {
        if ((rc = want_int(c, best_of, "best_of", 0, 1000, &v)))
            return rc;
        tr->best_of = (int)v;
    }
    if (conc) {
        if ((rc = want_int(c, conc, "concurrency", 1, PROTO_MAX_CONCURRENCY, &v)))
            return rc;
        tr->concurrency = (int)v;
    }
    if (seed) {
        if ((rc = want_int(c, seed, "seed", 0, INT64_MAX, &v)))
            return rc;
        tr->seed = (uint64_t)v;
        tr->has_seed = true;
    }
    if (sprt && (rc = dec_sprt(c, sprt, tr)))
        return rc;
    if (label && (rc = want_text(c, label, "label", PROTO_LABEL_MAX, &tr->label)))
        return rc;
    if (anchor && (rc = want_text(c, anchor, "anchor", PROTO_NAME_MAX, &tr->anchor)))
        return rc;
    if (placement) {
        if ((rc = want_int(c, placement, "placement_games", 1, 1000, &v)))
            return rc;
        tr->placement_games = (int)v;
    }
    if (registered) {
        if (!json_is_boolean(registered))
            return fail(c, ENG_EBAD_MESSAGE, "registered must be true or false, not %s",
                        rec__type_name(registered));
        tr->registered = json_is_true(registered);
    }
    if ((rc = dec_time_control(c, tc, &m->tc)) || (rc = dec_policies(c, pol, &m->pol)))
        return rc;
    return 0;
}

/* analyze: a finished match, or a game record the client sends (docs/analysis.md):
 * exactly one of the two, as for replay. The record's contents are the
 * record reader's to check (server/analyze.c, rec_replay_json). */
static int dec_analyze(dctx *c, proto_msg *m) { return dec_match_or_record(c, m, "analyze"); }

/* info: the envelope of a seat's thinking lines (match, seat, turn as for
 * move) and the names of the body's fields; the body's values are
 * info_read()'s to check against the position (protocol/info.h), so that a
 * bad one is dropped by the server, never answered with an error. */
static int dec_info(dctx *c, proto_msg *m)
{
    static const field fields[] = {
        COMMON_FIELDS,         {"match", false},      {"seat", false},  {"turn", false},
        {"score", false},      {"winprob", false},    {"candidates", false}, {"pv", false},
        {"iterations", false}, {"nodes", false},      {"depth", false}, {"elapsed_ms", false},
        {"text", false}};
    /* A bot sends these every 100-250 ms of its thinking: the names are
     * checked by a walk over the object (json_unpack's strict mode costs
     * several times more); an unknown one is told by the unpack below,
     * whose reason every decoder gives. The body's values are info_read's. */
    const char *key;
    json_t *v, *match = NULL, *seat = NULL, *turn = NULL;
    bool known = true;
    json_object_foreach(m->root, key, v) {
        int f = 0;
        while (f < NFIELDS(fields) && strcmp(fields[f].name, key) != 0)
            f++;
        if (f == NFIELDS(fields)) {
            known = false;
            break;
        }
        if (f == 2)
            match = v;
        else if (f == 3)
            seat = v;
        else if (f == 4)
            turn = v;
    }
    if (!known) {
        json_error_t e;
        json_t *t, *id = NULL, *x[9] = {0};
        if (json_unpack_ex(m->root, &e, JSON_STRICT,
                           "{s:o, s?o, s?o, s?o, s?o, s?o, s?o, s?o, s?o, s?o, s?o, s?o, s?o, s?o}",
                           "type", &t, "id", &id, "match", &match, "seat", &seat, "turn", &turn,
                           "score", &x[0], "winprob", &x[1], "candidates", &x[2], "pv", &x[3],
                           "iterations", &x[4], "nodes", &x[5], "depth", &x[6], "elapsed_ms",
                           &x[7], "text", &x[8]))
            return shape_fail(c, m->root, NULL, fields, NFIELDS(fields), &e);
    }
    return opt_match_seat_turn(c, match, seat, turn, m);
}

/* get_record: the match, and optionally the admin token (which adds the
 * logs of the match's external programs). */
static int dec_get_record(dctx *c, proto_msg *m)
{
    static const field fields[] = {COMMON_FIELDS, {"match", true}, {"admin_token", false}};
    json_error_t e;
    json_t *t, *id = NULL, *match, *admin = NULL;
    if (json_unpack_ex(m->root, &e, JSON_STRICT, "{s:o, s?o, s:o, s?o}", "type", &t, "id", &id,
                       "match", &match, "admin_token", &admin))
        return shape_fail(c, m->root, NULL, fields, NFIELDS(fields), &e);
    int rc;
    if (admin && (rc = want_ident(c, admin, "admin_token", PROTO_TOKEN_MAX, &m->admin_token)))
        return rc;
    return want_ident(c, match, "match", PROTO_MATCH_ID_MAX, &m->match);
}

/* ---- the course_* messages --------------------------------------------- */

bool proto_is_course(proto_type t)
{
    return t >= PROTO_COURSE_CREATE && t <= PROTO_COURSE_UPLOAD;
}

#define CM(t) (1u << ((t) - PROTO_COURSE_CREATE))
#define CM_INSTRUCTOR                                                                              \
    (CM(PROTO_COURSE_CREATE) | CM(PROTO_COURSE_ADD_STUDENTS) | CM(PROTO_COURSE_SET_DEADLINE) |     \
     CM(PROTO_COURSE_START_FINAL) | CM(PROTO_COURSE_GRADES) | CM(PROTO_COURSE_LIST) | CM_UNDO |      \
     CM(PROTO_COURSE_SETTINGS))
/* what an instructor may undo or remove (issue 25) */
#define CM_UNDO (CM(PROTO_COURSE_RERUN_GATES) | CM(PROTO_COURSE_ARCHIVE) | CM(PROTO_COURSE_DELETE))
#define CM_BOTH (CM(PROTO_COURSE_VIEW) | CM(PROTO_COURSE_GAME) | CM(PROTO_COURSE_CODE))
#define CM_UP  CM(PROTO_COURSE_UPLOAD)
#define CM_ALL (CM_INSTRUCTOR | CM_BOTH | CM(PROTO_COURSE_SUBMIT) | CM_UP)

enum { CF_TOKEN, CF_STRING, CF_INT, CF_BOOL, CF_OBJECT, CF_ARRAY };

/* One field of the family: its JSON type, the messages that take it and
 * those that need it, where it goes in proto_msg. "game" is two fields: a
 * name in course_create, an id in course_game. */
typedef struct course_field {
    const char *name;
    int kind;
    unsigned takes, needs;
    size_t at; /* offsetof in proto_msg */
} course_field;

#define AT(f) offsetof(proto_msg, f)
static const course_field course_fields[] = {
    {"admin_token", CF_TOKEN, CM_INSTRUCTOR | CM_BOTH, 0, AT(admin_token)},
    {"token", CF_STRING, CM_BOTH | CM(PROTO_COURSE_SUBMIT) | CM_UP, 0, AT(course.token)},
    {"course", CF_INT,
     CM(PROTO_COURSE_ADD_STUDENTS) | CM(PROTO_COURSE_SET_DEADLINE) | CM(PROTO_COURSE_START_FINAL) |
         CM(PROTO_COURSE_GRADES) | CM(PROTO_COURSE_VIEW) | CM_UNDO | CM(PROTO_COURSE_SETTINGS),
     CM(PROTO_COURSE_ADD_STUDENTS) | CM(PROTO_COURSE_SET_DEADLINE) | CM(PROTO_COURSE_START_FINAL) |
         CM(PROTO_COURSE_GRADES) | CM_UNDO | CM(PROTO_COURSE_SETTINGS),
     AT(course.course)},
    {"name", CF_STRING, CM(PROTO_COURSE_CREATE) | CM_UP, CM(PROTO_COURSE_CREATE), AT(course.name)},
    {"game", CF_STRING, CM(PROTO_COURSE_CREATE), CM(PROTO_COURSE_CREATE), AT(course.game)},
    {"game", CF_INT, CM(PROTO_COURSE_GAME), CM(PROTO_COURSE_GAME), AT(course.game_id)},
    {"rules", CF_OBJECT, CM(PROTO_COURSE_CREATE), 0, AT(course.rules)},
    {"gates", CF_ARRAY, CM(PROTO_COURSE_CREATE) | CM(PROTO_COURSE_RERUN_GATES), 0,
     AT(course.gates)},
    {"move_ms", CF_INT, CM(PROTO_COURSE_CREATE), 0, AT(course.move_ms)},
    {"qualify", CF_INT, CM(PROTO_COURSE_CREATE) | CM(PROTO_COURSE_RERUN_GATES), 0,
     AT(course.qualify)},
    {"final_games", CF_INT, CM(PROTO_COURSE_CREATE), 0, AT(course.final_games)},
    {"deadline_ms", CF_INT, CM(PROTO_COURSE_CREATE) | CM(PROTO_COURSE_SET_DEADLINE),
     CM(PROTO_COURSE_SET_DEADLINE), AT(course.deadline_ms)},
    {"seed", CF_INT, CM(PROTO_COURSE_CREATE), 0, AT(course.seed)},
    {"remote_wait_ms", CF_INT, CM(PROTO_COURSE_CREATE), 0, AT(course.remote_wait_ms)},
    {"csv", CF_STRING, CM(PROTO_COURSE_ADD_STUDENTS), CM(PROTO_COURSE_ADD_STUDENTS),
     AT(course.csv)},
    {"games_per_pair", CF_INT, CM(PROTO_COURSE_START_FINAL), 0, AT(course.games_per_pair)},
    {"format", CF_STRING, CM(PROTO_COURSE_START_FINAL), 0, AT(course.format)},
    {"rerun", CF_BOOL, CM(PROTO_COURSE_START_FINAL), 0, AT(course.rerun)},
    {"student", CF_STRING, CM(PROTO_COURSE_SET_DEADLINE), 0, AT(course.student)},
    {"archived", CF_BOOL, CM(PROTO_COURSE_ARCHIVE), CM(PROTO_COURSE_ARCHIVE),
     AT(course.archived)},
    {"confirm", CF_STRING, CM(PROTO_COURSE_DELETE), CM(PROTO_COURSE_DELETE), AT(course.confirm)},
    {"submission", CF_INT, CM(PROTO_COURSE_CODE) | CM(PROTO_COURSE_RERUN_GATES),
     CM(PROTO_COURSE_CODE), AT(course.submission)},
    {"kind", CF_STRING, CM(PROTO_COURSE_SUBMIT), 0, AT(course.kind)},
    {"main", CF_STRING, CM(PROTO_COURSE_SUBMIT), 0, AT(course.main)},
    {"files", CF_ARRAY, CM(PROTO_COURSE_SUBMIT), 0, AT(course.files)},
    {"uploads", CF_ARRAY, CM(PROTO_COURSE_SUBMIT), 0, AT(course.uploads)},
    {"max_upload_bytes", CF_INT, CM(PROTO_COURSE_CREATE) | CM(PROTO_COURSE_SETTINGS), 0,
     AT(course.max_upload_bytes)},
    {"scrimmage", CF_STRING, CM(PROTO_COURSE_CREATE) | CM(PROTO_COURSE_SETTINGS), 0,
     AT(course.scrimmage)},
    {"op", CF_STRING, CM_UP, CM_UP, AT(course.op)},
    {"upload", CF_STRING, CM_UP, 0, AT(course.upload)},
    {"bytes", CF_INT, CM_UP, 0, AT(course.bytes)},
    {"offset", CF_INT, CM_UP, 0, AT(course.offset)},
    {"sha256", CF_STRING, CM_UP, 0, AT(course.sha256)},
    {"data", CF_STRING, CM_UP, 0, AT(course.data)},
};
#undef AT

/* One field of a course message into its place in m. */
static int course_field_read(dctx *c, const course_field *f, const json_t *v, proto_msg *m)
{
    void *at = (char *)m + f->at;
    switch (f->kind) {
    case CF_TOKEN: return want_ident(c, v, f->name, PROTO_TOKEN_MAX, (const char **)at);
    case CF_STRING:
        if (!json_is_string(v))
            return fail(c, ENG_EBAD_MESSAGE, "%s must be a string, not %s", f->name,
                        rec__type_name(v));
        *(const char **)at = json_string_value(v);
        return 0;
    case CF_INT:
        if (!json_is_integer(v))
            return fail(c, ENG_EBAD_MESSAGE, "%s must be an integer, not %s", f->name,
                        rec__type_name(v));
        ((proto_int *)at)->set = true;
        ((proto_int *)at)->v = (int64_t)json_integer_value(v);
        return 0;
    case CF_BOOL:
        if (!json_is_boolean(v))
            return fail(c, ENG_EBAD_MESSAGE, "%s must be true or false, not %s", f->name,
                        rec__type_name(v));
        ((proto_int *)at)->set = true;
        ((proto_int *)at)->v = json_is_true(v);
        return 0;
    case CF_OBJECT:
        if (want_object(c, v, f->name))
            return ENG_EBAD_MESSAGE;
        *(const json_t **)at = v;
        return 0;
    default:
        if (!json_is_array(v))
            return fail(c, ENG_EBAD_MESSAGE, "%s must be an array, not %s", f->name,
                        rec__type_name(v));
        *(const json_t **)at = v;
        return 0;
    }
}

/* Every course_* message: the fields of its type read, those it needs
 * present, those of no course message refused. */
static int dec_course(dctx *c, proto_msg *m)
{
    unsigned bit = CM(m->type);
    int nf = (int)(sizeof course_fields / sizeof course_fields[0]);
    const char *key;
    json_t *v;
    char q[REC_QUOTE_MAX];
    json_object_foreach(m->root, key, v)
    {
        if (strcmp(key, "type") == 0 || strcmp(key, "id") == 0)
            continue;
        bool known = false;
        for (int i = 0; i < nf; i++) {
            const course_field *f = &course_fields[i];
            if (strcmp(f->name, key) != 0)
                continue;
            known = true;
            int rc = (f->takes & bit) ? course_field_read(c, f, v, m) : 0;
            if (rc)
                return rc;
        }
        if (!known)
            return fail(c, ENG_EBAD_MESSAGE, "unknown field %s",
                        rec__quote_bytes(key, strlen(key), q));
    }
    for (int i = 0; i < nf; i++)
        if ((course_fields[i].needs & bit) && !json_object_get(m->root, course_fields[i].name))
            return fail(c, ENG_EBAD_MESSAGE, "missing field \"%s\"", course_fields[i].name);
    return 0;
}

/* ---- decode ------------------------------------------------------------ */

typedef int (*decoder)(dctx *c, proto_msg *m);

static const decoder decoders[PROTO_NTYPES] = {
    [PROTO_HELLO] = dec_hello,
    [PROTO_PING] = dec_bare,
    [PROTO_LIST_GAMES] = dec_bare,
    [PROTO_LIST_BOTS] = dec_bare,
    [PROTO_LIST_MATCHES] = dec_list_matches,
    [PROTO_CREATE_MATCH] = dec_create_match,
    [PROTO_JOIN] = dec_join,
    [PROTO_SPECTATE] = dec_match_only,
    [PROTO_UNSPECTATE] = dec_match_only,
    [PROTO_MOVE] = dec_move,
    [PROTO_RESIGN] = dec_resign,
    [PROTO_RESUME] = dec_resume,
    [PROTO_REPLAY] = dec_replay,
    [PROTO_SERVER_STATS] = dec_bare,
    [PROTO_GET_RECORD] = dec_get_record,
    [PROTO_REGISTER] = dec_register,
    [PROTO_UNREGISTER] = dec_bare,
    [PROTO_CREATE_TOURNAMENT] = dec_create_tournament,
    [PROTO_START_TOURNAMENT] = dec_tournament_admin,
    [PROTO_PAUSE_TOURNAMENT] = dec_tournament_admin,
    [PROTO_CANCEL_TOURNAMENT] = dec_tournament_admin,
    [PROTO_LIST_TOURNAMENTS] = dec_bare,
    [PROTO_WATCH_TOURNAMENT] = dec_tournament_only,
    [PROTO_UNWATCH_TOURNAMENT] = dec_tournament_only,
    [PROTO_GET_TOURNAMENT_PLOTS] = dec_tournament_only,
    [PROTO_COURSE_CREATE] = dec_course,
    [PROTO_COURSE_ADD_STUDENTS] = dec_course,
    [PROTO_COURSE_SET_DEADLINE] = dec_course,
    [PROTO_COURSE_START_FINAL] = dec_course,
    [PROTO_COURSE_GRADES] = dec_course,
    [PROTO_COURSE_LIST] = dec_course,
    [PROTO_COURSE_RERUN_GATES] = dec_course,
    [PROTO_COURSE_ARCHIVE] = dec_course,
    [PROTO_COURSE_DELETE] = dec_course,
    [PROTO_COURSE_SETTINGS] = dec_course,
    [PROTO_COURSE_VIEW] = dec_course,
    [PROTO_COURSE_GAME] = dec_course,
    [PROTO_COURSE_CODE] = dec_course,
    [PROTO_COURSE_SUBMIT] = dec_course,
    [PROTO_COURSE_UPLOAD] = dec_course,
    [PROTO_ANALYZE] = dec_analyze,
    [PROTO_INFO] = dec_info,
};

/* Where each message is answered on several servers (proto_route); a type
 * not named here is answered by the server the client is connected to. */
static const unsigned char routes[PROTO_NTYPES] = {
    [PROTO_CREATE_MATCH] = PROTO_ROUTE_CREATE,
    [PROTO_JOIN] = PROTO_ROUTE_MATCH,
    [PROTO_SPECTATE] = PROTO_ROUTE_MATCH,
    [PROTO_UNSPECTATE] = PROTO_ROUTE_MATCH,
    [PROTO_GET_RECORD] = PROTO_ROUTE_MATCH,
    [PROTO_REPLAY] = PROTO_ROUTE_MATCH,
    [PROTO_MOVE] = PROTO_ROUTE_SEAT,
    [PROTO_RESIGN] = PROTO_ROUTE_SEAT,
    [PROTO_INFO] = PROTO_ROUTE_SEAT,
    [PROTO_RESUME] = PROTO_ROUTE_RESUME,
    [PROTO_REGISTER] = PROTO_ROUTE_COORDINATOR,
    [PROTO_UNREGISTER] = PROTO_ROUTE_COORDINATOR,
    [PROTO_CREATE_TOURNAMENT] = PROTO_ROUTE_COORDINATOR,
    [PROTO_START_TOURNAMENT] = PROTO_ROUTE_TOURNAMENT,
    [PROTO_PAUSE_TOURNAMENT] = PROTO_ROUTE_TOURNAMENT,
    [PROTO_CANCEL_TOURNAMENT] = PROTO_ROUTE_TOURNAMENT,
    [PROTO_WATCH_TOURNAMENT] = PROTO_ROUTE_TOURNAMENT,
    [PROTO_UNWATCH_TOURNAMENT] = PROTO_ROUTE_TOURNAMENT,
    [PROTO_GET_TOURNAMENT_PLOTS] = PROTO_ROUTE_TOURNAMENT,
    /* the courses are the coordinator's: their jobs, their uploads */
    [PROTO_COURSE_CREATE] = PROTO_ROUTE_COORDINATOR,
    [PROTO_COURSE_ADD_STUDENTS] = PROTO_ROUTE_COORDINATOR,
    [PROTO_COURSE_SET_DEADLINE] = PROTO_ROUTE_COORDINATOR,
    [PROTO_COURSE_START_FINAL] = PROTO_ROUTE_COORDINATOR,
    [PROTO_COURSE_GRADES] = PROTO_ROUTE_COORDINATOR,
    [PROTO_COURSE_LIST] = PROTO_ROUTE_COORDINATOR,
    [PROTO_COURSE_RERUN_GATES] = PROTO_ROUTE_COORDINATOR,
    [PROTO_COURSE_ARCHIVE] = PROTO_ROUTE_COORDINATOR,
    [PROTO_COURSE_DELETE] = PROTO_ROUTE_COORDINATOR,
    [PROTO_COURSE_SETTINGS] = PROTO_ROUTE_COORDINATOR,
    [PROTO_COURSE_VIEW] = PROTO_ROUTE_COORDINATOR,
    [PROTO_COURSE_GAME] = PROTO_ROUTE_COORDINATOR,
    [PROTO_COURSE_CODE] = PROTO_ROUTE_COORDINATOR,
    [PROTO_COURSE_SUBMIT] = PROTO_ROUTE_COORDINATOR,
    [PROTO_COURSE_UPLOAD] = PROTO_ROUTE_COORDINATOR,
};

proto_route proto_route_of(proto_type t)
{
    return (unsigned)t < PROTO_NTYPES ? (proto_route)routes[t] : PROTO_ROUTE_HERE;
}

/* A parse failure in our words. Numbers out of range are valid JSON that we
 * cannot represent: a message error (bad_message), not bad_json. e was
 * zeroed before parsing: jansson leaves it untouched (no text, no code) when
 * an allocation fails before it could describe the problem. */
static int parse_fail(dctx *c, const json_error_t *e)
{
    char text[80];
    sanitize(e->text, text, sizeof text);
    if (!e->text[0])
        return fail(c, ENG_ENOMEM, "out of memory while parsing the message");
    switch (json_error_code(e)) {
    case json_error_numeric_overflow:
        return fail(c, ENG_EBAD_MESSAGE,
                    "number out of range at line %d, column %d (integers must fit in 64 bits)",
                    e->line, e->column);
    case json_error_stack_overflow:
        return fail(c, ENG_EBAD_JSON, "invalid JSON: nested deeper than %d levels",
                    JSON_PARSER_MAX_DEPTH);
    case json_error_out_of_memory:
        return fail(c, ENG_ENOMEM, "out of memory while parsing the message");
    default:
        return fail(c, ENG_EBAD_JSON, "invalid JSON at line %d, column %d: %s", e->line, e->column,
                    text);
    }
}

/* The "id" field: a string of at most PROTO_ID_MAX characters, or an integer. */
static int check_id(dctx *c, const json_t *id)
{
    if (json_is_integer(id))
        return 0;
    if (!json_is_string(id))
        return fail(c, ENG_EBAD_MESSAGE, "id must be a string or an integer, not %s",
                    rec__type_name(id));
    size_t n = utf8_chars(json_string_value(id), json_string_length(id));
    if (n > PROTO_ID_MAX)
        return fail(c, ENG_EBAD_MESSAGE, "id is too long (%zu characters, at most %d)", n,
                    PROTO_ID_MAX);
    return 0;
}

/* A new reference to the valid "id" of a message read with `flags`, or NULL
 * (not JSON, not an object, no id, a bad id). An integer read as a real
 * (JSON_DECODE_INT_AS_REAL) is given back as an integer when exact. */
static json_t *peek_id(const char *buf, size_t len, size_t flags)
{
    json_error_t e;
    json_t *root = json_loadb(buf, len, JSON_REJECT_DUPLICATES | flags, &e);
    json_t *id = json_is_object(root) ? json_object_get(root, "id") : NULL;
    json_t *out = NULL;
    dctx quiet = {NULL, 0, NULL};
    if (id && !json_is_real(id) && check_id(&quiet, id) == 0)
        out = json_incref(id);
    else if (id && (flags & JSON_DECODE_INT_AS_REAL) && json_is_real(id) &&
             fabs(json_real_value(id)) < 9007199254740992.0 && json_real_value(id) == floor(json_real_value(id)))
        out = json_integer((json_int_t)json_real_value(id)); /* an exact integer */
    json_decref(root);
    return out;
}

json_t *proto_peek_id(const char *buf, size_t len)
{
    if (!buf || len == 0 || len > PROTO_MAX_MESSAGE)
        return NULL;
    return peek_id(buf, len, 0);
}

int proto_decode(const char *buf, size_t len, proto_msg *m, json_t **id_out, char *err,
                 size_t errcap)
{
    dctx c = {err, errcap, NULL};
    if (id_out)
        *id_out = NULL;
    if (err && errcap)
        err[0] = 0;
    if (!m || (!buf && len))
        return fail(&c, ENG_EINVAL, "proto_decode: no message or no buffer");
    memset(m, 0, sizeof *m);

    /* 1. parse */
    if (len > PROTO_MAX_MESSAGE)
        return fail(&c, ENG_ETOO_LARGE, "the message has %zu bytes; the limit is %d", len,
                    PROTO_MAX_MESSAGE);
    if (len == 0)
        return fail(&c, ENG_EBAD_JSON, "the message is empty");
    json_error_t e;
    memset(&e, 0, sizeof e); /* see parse_fail() */
    json_t *root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &e);
    if (!root) {
        int prc = parse_fail(&c, &e);
        /* A number beyond 64 bits elsewhere in a valid message: read it once
         * more with such numbers as reals, only to echo a valid id. */
        if (prc == ENG_EBAD_MESSAGE && id_out)
            *id_out = peek_id(buf, len, JSON_DECODE_INT_AS_REAL);
        return prc;
    }
    int rc;
    if (!json_is_object(root)) {
        rc = fail(&c, ENG_EBAD_JSON, "a message must be one JSON object, not %s",
                  rec__type_name(root));
        json_decref(root);
        return rc;
    }

    /* 2. shape, starting with what every message has: id, then type */
    json_t *id = json_object_get(root, "id");
    if (id && (rc = check_id(&c, id))) {
        json_decref(root);
        return rc;
    }
    m->root = root;
    m->bytes = len;
    m->id = id;
    const json_t *jt = json_object_get(root, "type");
    char q[REC_QUOTE_MAX];
    if (!jt) {
        rc = fail(&c, ENG_EBAD_MESSAGE, "missing field \"type\"");
        goto fail;
    }
    if (!json_is_string(jt)) {
        rc = fail(&c, ENG_EBAD_MESSAGE, "type must be a string, not %s", rec__type_name(jt));
        goto fail;
    }
    int t = 0;
    while (t < PROTO_NTYPES && (strcmp(type_names[t], json_string_value(jt)) != 0 ||
                                strlen(type_names[t]) != json_string_length(jt)))
        t++;
    if (t == PROTO_NTYPES) {
        rc = fail(&c, ENG_EUNKNOWN_TYPE, "unknown message type %s", rec__quote(jt, q));
        goto fail;
    }
    m->type = (proto_type)t;
    c.what = type_names[t];

    /* 2 and 3 for the body of this type */
    if ((rc = decoders[t](&c, m)))
        goto fail;
    return 0;

fail:
    if (id_out && id)
        *id_out = json_incref(id);
    json_decref(root);
    memset(m, 0, sizeof *m);
    return rc;
}

void proto_msg_free(proto_msg *m)
{
    if (!m)
        return;
    json_decref(m->root);
    memset(m, 0, sizeof *m);
}
