/*
 * handlers.c — one function per client message (docs/protocol.md).
 *
 * Every message is decoded and shape-checked by protocol/messages.c first;
 * handlers check what only the server knows (does the match exist, does the
 * token match, is it this seat's turn) and reply with a structured error on
 * any problem. A protocol violation (bad JSON, no hello) closes the
 * connection after the reply; everything else keeps it open.
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "access.h"
#include "analyze.h"
#include "cluster.h"
#include "conn.h"
#include "courses.h"
#include "handlers.h"
#include "internal.h"
#include "tokidx.h"
#include "match.h"
#include "match_views.h"
#include "players/sandbox.h"
#include "programs.h"
#include "thinking.h"
#include "protocol/record.h"
#include "registry.h"
#include "storage/db.h"
#include "journal/journal.h"
#include "table.h"
#include "tournaments.h"

static void reply_welcome(conn *c, const proto_msg *m)
{
    json_t *r = proto_reply("welcome", m->id);
    const srv *s = c->srv;
    json_object_set_new(r, "protocol", json_integer(c->proto));
    json_object_set_new(r, "server", json_string("tessera " TESSERA_VERSION));
    /* move_info: a move may carry its thinking line (a server before it refuses the field) */
    json_t *caps = json_pack("[s,s,s,s,s,s,s,s,s,s]", "play", "spectate", "create", "resume", "list",
                             "replay", "record", "register", "tournaments", "move_info");
    if (courses_available(s) || cluster_has_role(c->srv, CLUSTER_COORDINATOR))
        json_array_append_new(caps, json_string("courses"));
    json_object_set_new(r, "capabilities", caps);
    /* how programs run here (players/sandbox.h): "partial" is the
     * operator's opt-out, told to everyone */
    json_object_set_new(r, "sandbox", json_string(sandbox_isolation()));
    json_object_set_new(r, "limits",
                        json_pack("{s:i, s:i, s:i, s:i}", "max_message_bytes", SRV_MAX_MESSAGE,
                                  "messages_per_second", s->cfg.rate_per_sec, "burst",
                                  s->cfg.rate_burst, "idle_timeout_ms", s->idle_timeout_s * 1000));
    /* what this client may create without the admin token (access.c) */
    json_object_set_new(
        r, "create",
        json_pack("{s:s, s:s, s:i, s:i, s:i}", "bots", s->bots_anyone ? "anyone" : "admin", "open",
                  s->open_anyone ? "anyone" : "admin", "matches_per_address", s->cfg.quota_matches,
                  "creates_per_minute", s->cfg.quota_per_minute, "waiting_expiry_s",
                  s->cfg.waiting_expiry_s));
    conn_send(c, r);
}

static void reply_games(conn *c, const proto_msg *m)
{
    json_t *r = proto_reply("games", m->id);
    json_object_set_new(r, "games", wire_games_json());
    conn_send(c, r);
}

static const char *kind_name(bot_param_kind k)
{
    switch (k) {
    case BOT_INT: return "int";
    case BOT_REAL: return "real";
    case BOT_ENUM: return "enum";
    case BOT_BOOL: return "bool";
    case BOT_LIST: return "list";
    case BOT_STR:
    case BOT_FILE: return "string"; /* a file name is a text; reads_file marks it */
    }
    return "?";
}

static json_t *param_json(const bot_param *p);

static void reply_bots(conn *c, const proto_msg *m)
{
    int n, ncommon;
    const bot_type *const *all = bot_types(&n);
    const bot_param *common = bot_common_params(&ncommon);
    json_t *arr = json_array();
    for (int i = 0; i < n; i++) {
        json_t *opts = json_array();
        for (int k = 0; k < all[i]->nparams; k++)
            json_array_append_new(opts, param_json(&all[i]->params[k]));
        json_array_append_new(arr, json_pack("{s:s, s:s, s:o}", "name", all[i]->name, "summary",
                                             all[i]->summary, "options", opts));
    }
    json_t *copts = json_array();
    for (int k = 0; k < ncommon; k++)
        json_array_append_new(copts, param_json(&common[k]));
    json_t *r = proto_reply("bots", m->id);
    json_object_set_new(r, "bots", arr);
    json_object_set_new(r, "common_options", copts); /* every bot takes these too */
    conn_send(c, r);
}

/* One bot option as `bots` lists it: name, kind, help, default, range/choices. */
static json_t *param_json(const bot_param *p)
{
    json_t *o =
        json_pack("{s:s, s:s, s:s}", "name", p->name, "kind", kind_name(p->kind), "help", p->help);
    if (p->kind == BOT_ENUM) {
        json_t *ch = json_array();
        for (int j = 0; p->choices[j]; j++)
            json_array_append_new(ch, json_string(p->choices[j]));
        json_object_set_new(o, "choices", ch);
        json_object_set_new(o, "default", json_string(p->choices[(int)p->def]));
    } else if (p->kind == BOT_BOOL) {
        json_object_set_new(o, "default", json_boolean(p->def != 0));
    } else if (p->kind == BOT_LIST || p->kind == BOT_STR || p->kind == BOT_FILE) {
        json_object_set_new(o, "default", json_string(p->def_list ? p->def_list : ""));
        if (p->kind == BOT_FILE) /* only the admin may set it (create_match) */
            json_object_set_new(o, "reads_file", json_true());
    } else {
        json_object_set_new(o, "default", json_real(p->def));
        json_object_set_new(o, "min", json_real(p->min));
        json_object_set_new(o, "max", json_real(p->max));
    }
    return o;
}

static void reply_matches(conn *c, const proto_msg *m)
{
    json_t *arr = json_array();
    /* newest first */
    for (match *x = c->srv->matches; x; x = x->next) {
        bool finished = x->status == MATCH_FINISHED;
        if ((m->status == PROTO_LIST_LIVE && finished) ||
            (m->status == PROTO_LIST_FINISHED && !finished))
            continue;
        json_array_append_new(arr, match_summary(x));
    }
    /* the other servers' matches (several servers on one database) */
    json_t *more = cluster_remote_matches(c->srv, m->status, SRV_MAX_LISTED_REMOTE);
    json_array_extend(arr, more);
    json_decref(more);
    json_t *r = proto_reply("matches", m->id);
    json_object_set_new(r, "matches", arr);
    conn_send(c, r);
}

static void create(conn *c, const proto_msg *m)
{
    int code = 0;
    char err[400];
    /* an admin token that is given must be the right one */
    if (m->admin_token && !admin_check(c, m))
        return;
    /* without it: what the configuration allows, under the address's quota */
    char key[48];
    if (access_create_check(c, m, m->admin_token != NULL, key, sizeof key))
        return;
    char joins[ENG_MAX_PLAYERS][SRV_TOKEN_LEN + 1];
    match_opts opts = {.admin = m->admin_token != NULL, .join_tokens = joins};
    match *x = match_create_ex(c->srv, m, &opts, &code, err, sizeof err);
    if (!x) {
        conn_error(c, code, err, m->id);
        return;
    }
    access_created(c->srv, x, key);
    json_t *r = proto_reply("match_created", m->id);
    json_object_set_new(r, "match", json_string(x->id));
    json_t *seats = json_array();
    for (int i = 0; i < x->nseats; i++)
        if (x->seats[i].kind == SEAT_OPEN)
            json_array_append_new(seats, json_pack("{s:i, s:s}", "seat", i, "token", joins[i]));
    json_object_set_new(r, "seats", seats);
    conn_send(c, cluster_owner_hint(c, r));
    OPENSSL_cleanse(joins, sizeof joins); /* the match keeps their hashes only */
    table_attach_remote(x);
    match_advance(x);
}

/* Look up a match or reply unknown_match. */
static match *need_match(conn *c, const char *id, const json_t *msg_id)
{
    /* a finished match no longer held (or another server's) is read back */
    match *x = id ? match_find_stored(c->srv, id) : NULL;
    if (!x)
        conn_error(c, WIRE_EUNKNOWN_MATCH, "no match with that id", msg_id);
    return x;
}

static void join(conn *c, const proto_msg *m)
{
    match *x = need_match(c, m->match, m->id);
    if (!x)
        return;
    if (m->seat < 0 || m->seat >= x->nseats || x->seats[m->seat].kind != SEAT_OPEN) {
        conn_error(c, WIRE_ENO_SUCH_SEAT, "no open seat with that number in this match", m->id);
        return;
    }
    struct seat *t = &x->seats[m->seat];
    if (!access_token_ok(m->token, t->token)) {
        conn_error(c, ENG_EBAD_TOKEN, "the token does not match this seat", m->id);
        return;
    }
    if (x->status == MATCH_FINISHED) {
        conn_error(c, WIRE_EMATCH_OVER, "the match has already ended", m->id);
        return;
    }
    if (t->conn) {
        conn_error(c, WIRE_ESEAT_TAKEN,
                   "a connection holds this seat; use resume with the resume token", m->id);
        return;
    }
    /* a join token is spent once its seat is taken: from then on the seat
     * is the resume token's (its holder's), and the join token hands out
     * nothing */
    if (t->joined) {
        conn_error(c, ENG_EBAD_TOKEN,
                   "this seat was joined already and its join token is spent: reconnect with "
                   "resume and the resume token the join gave",
                   m->id);
        return;
    }
    table_take_seat(c, x, m->seat, "joined", NULL, m->id);
}

static void resume(conn *c, const proto_msg *m)
{
    /* through the token index (access.c), not a scan of every seat */
    int i;
    char h[SRV_TOKEN_HASH_LEN + 1];
    access_token_hash(m->resume_token ? m->resume_token : "", h);
    match *x = h[0] ? tokidx_find(c->srv, h, &i) : NULL;
    if (x && !x->closing && i < x->nseats &&
        (x->seats[i].kind == SEAT_OPEN || x->seats[i].kind == SEAT_REMOTE) &&
        access_token_ok(m->resume_token, x->seats[i].resume)) {
        if (x->status == MATCH_FINISHED) {
            conn_error(c, WIRE_EMATCH_OVER, "the match has already ended", m->id);
            return;
        }
        table_take_seat(c, x, i, "resumed", m->resume_token, m->id);
        return;
    }
    /* a finished match may no longer be held in memory: ask the journal (a
     * journal of before hashed tokens indexed their text) */
    if (journal_resume_status(c->srv->db, h) == MATCH_FINISHED ||
        journal_resume_status(c->srv->db, m->resume_token) == MATCH_FINISHED)
        conn_error(c, WIRE_EMATCH_OVER, "the match has already ended", m->id);
    else
        conn_error(c, ENG_EBAD_TOKEN, "no seat has that resume token", m->id);
}

static void spectate(conn *c, const proto_msg *m)
{
    match *x = need_match(c, m->match, m->id);
    if (!x)
        return;
    int watching = 0;
    bool already = false; /* spectating again only sends the view again */
    for (int i = 0; i < c->nsubs; i++) {
        watching += c->subs[i].seat < 0;
        already |= c->subs[i].seat < 0 && c->subs[i].m == x;
    }
    if (!already) {
        /* finished matches send nothing more: let them go to make room, as
         * seats in finished matches are (SRV_MAX_SEATS_PER_CONN) */
        for (int i = c->nsubs - 1; i >= 0 && watching >= SRV_MAX_SPECTATING; i--)
            if (c->subs[i].seat < 0 && c->subs[i].m->status == MATCH_FINISHED) {
                table_unspectate(c, c->subs[i].m);
                watching--;
            }
        if (watching >= SRV_MAX_SPECTATING) {
            conn_error(c, ENG_ETOO_MANY, "this connection spectates too many matches", m->id);
            return;
        }
        if (x->nspect >= c->srv->max_spectators) {
            conn_error(c, ENG_ETOO_MANY, "this match has its maximum of spectators", m->id);
            return;
        }
    }
    table_spectate(c, x, m->id);
}

static void unspectate(conn *c, const proto_msg *m)
{
    match *x = need_match(c, m->match, m->id);
    if (!x)
        return;
    table_unspectate(c, x);
    conn_send(c, proto_reply("unspectated", m->id));
}

/* The seat a move or resign is for (docs/protocol.md, "Several seats on one
 * connection"): among the seats this connection holds — in the match named,
 * if one is, and the seat named, if one is — the only one; or, when several
 * remain, the one seat among them that is to move. Replies with an error
 * and returns NULL if that does not single out a seat. */
static match *played_match(conn *c, const proto_msg *m, int *seat)
{
    match *x = NULL, *moving = NULL;
    int count = 0, nmoving = 0, moving_seat = -1, held = 0, over = 0;
    for (int i = 0; i < c->nsubs; i++) {
        if (c->subs[i].seat < 0)
            continue;
        if (m->match && strcmp(c->subs[i].m->id, m->match) != 0)
            continue;
        held++;
        if (m->has_seat && c->subs[i].seat != m->seat)
            continue;
        x = c->subs[i].m;
        *seat = c->subs[i].seat;
        count++;
        over += x->status == MATCH_FINISHED;
        if (x->to_move == c->subs[i].seat) {
            moving = x;
            moving_seat = c->subs[i].seat;
            nmoving++;
        }
    }
    if (count == 1)
        return x;
    if (count > 1 && nmoving == 1) {
        *seat = moving_seat;
        return moving;
    }
    if (count > 1 && over == count) {
        conn_error(c, WIRE_EMATCH_OVER, "the match has already ended", m->id);
        return NULL;
    }
    if (count > 1 && nmoving == 0) {
        conn_error(c, WIRE_ENOT_YOUR_TURN,
                   "none of the seats this connection holds is to move: name the seat", m->id);
        return NULL;
    }
    if (count > 1) {
        conn_error(c, ENG_EBAD_MESSAGE,
                   "this connection holds seats to move in several matches: name the match", m->id);
        return NULL;
    }
    char e[96];
    if (m->match && !match_find(c->srv, m->match))
        conn_error(c, WIRE_EUNKNOWN_MATCH, "no match with that id", m->id);
    else if (m->has_seat && held > 0) {
        snprintf(e, sizeof e, "this connection does not hold seat %d%s", m->seat,
                 m->match ? " in that match" : "");
        conn_error(c, WIRE_EWRONG_SEAT, e, m->id);
    } else if (m->match)
        conn_error(c, WIRE_EWRONG_SEAT, "this connection holds no seat in that match", m->id);
    else
        conn_error(c, WIRE_ENOT_JOINED, "join a seat before sending moves", m->id);
    return NULL;
}

/* Whether the move was played as the seat's turn (it was asked for). A
 * line it carries (plain: read off its text) is the seat's before the move,
 * outside the info bucket: one a move cannot flood (docs/protocol.md). */
static bool move(conn *c, const proto_msg *m, const info_parsed *plain)
{
    int seat;
    match *x = played_match(c, m, &seat);
    if (x && (plain || m->info))
        thinking_from_move(x, seat, m, plain);
    return x && match_remote_move(x, seat, c, m, c->rx_ns);
}

/* A seat's thinking lines: no reply (thinking.c drops a bad one). They
 * have a bucket of their own (limits.h, SRV_INFO_RATE_PER_SEC) and return
 * the general one's token: a line never leaves a move without room. */
static bool info(conn *c, const proto_msg *m, const info_parsed *plain)
{
    int seats = 0;
    for (int i = 0; i < c->nsubs; i++)
        seats += c->subs[i].seat >= 0;
    seats = seats ? seats : 1;
    uint64_t now = srv_now(c->srv);
    c->info_tokens += (double)(now - c->info_at_ms) * SRV_INFO_RATE_PER_SEC * seats / 1000.0;
    c->info_at_ms = now;
    if (c->info_tokens > (double)SRV_INFO_BURST * seats)
        c->info_tokens = (double)SRV_INFO_BURST * seats;
    if (c->info_tokens < 1.0) {
        thinking_dropped();
        if (++c->info_floods > SRV_MAX_FLOODS) {
            conn_error(c, WIRE_ERATE, "too many info messages; closing", NULL);
            conn_close_after(c, LWS_CLOSE_STATUS_POLICY_VIOLATION, "rate limit");
        }
        return true;
    }
    c->info_tokens -= 1.0;
    int seat;
    match *x = played_match(c, m, &seat);
    if (x && plain)
        thinking_from_text(x, seat, plain);
    else if (x)
        thinking_from_client(x, seat, m);
    return true;
}

/* An info message infotext.h read from its text, no tree (a bot sends one
 * every 100-250 ms of its thinking): its envelope as proto_decode's. */
static bool info_plain(conn *c, const info_parsed *p, const char *buf, size_t len)
{
    proto_msg m;
    info_envelope(p, &m);
    return cluster_route(c, &m, buf, len) ? false : info(c, &m, p);
}

static void resign(conn *c, const proto_msg *m)
{
    int seat;
    match *x = played_match(c, m, &seat);
    if (!x)
        return;
    if (x->status == MATCH_FINISHED) {
        conn_error(c, WIRE_EMATCH_OVER, "the match has already ended", m->id);
        return;
    }
    conn_send(c, proto_reply("resigned", m->id));
    match_resign(x, seat);
}

/* ---- replays and records ---------------------------------------------------------- */

/* The record of a match the server holds, up to its last complete turn: a
 * match that ended while a seat held its drawn tile (a resignation, a
 * timeout) or a live match inside a turn stops before that turn. New
 * reference, or NULL after replying internal_error. */
static json_t *match_record(conn *c, const match *x, const json_t *id)
{
    char err[256];
    json_t *rec = match_record_json(x, err, sizeof err);
    if (!rec) {
        srv_log(LOG_ERROR, "record_failed", "{s:s, s:s}", "match", x->id, "reason", err);
        conn_error(c, ENG_EINTERNAL, err, id);
    }
    return rec;
}

static void replay(conn *c, const proto_msg *m)
{
    json_t *rec = NULL;
    match *x = NULL;
    if (m->match) {
        x = need_match(c, m->match, m->id);
        if (!x || !(rec = match_record(c, x, m->id)))
            return;
    } else {
        rec = json_incref((json_t *)m->record);
    }
    rec_replay out;
    int code = 0;
    char msg[320];
    json_t *body = wire_replay(rec, &out, &code, msg, sizeof msg);
    if (!body) {
        conn_error(c, code, msg, m->id);
        json_decref(rec);
        return;
    }
    json_t *r = proto_reply("replayed", m->id);
    json_object_update_new(r, body);
    if (x) {
        json_object_set_new(r, "match", json_string(x->id));
        json_object_set_new(r, "seats", match_seats_json(x));
    }
    /* a match's own result says why it ended; a record has at most scores */
    json_t *res = x ? x->result : json_object_get(rec, "result");
    json_object_set_new(r, "result", res ? json_incref(res) : json_null());
    conn_send(c, r);
    json_decref(rec);
}

/* get_record: a match as a game record (docs/records.md), ready for
 * `tessera replay` or a file; its status and result beside it. */
/* A program seat's fault bundle (programs.c), or JSON null: none, or the
 * match is not over (the bundle reveals its chance seed). New reference. */
static json_t *program_bundle(srv *s, const match *x, int seat)
{
    json_t *b = NULL;
    db_stmt *q = NULL;
    if (x->status == MATCH_FINISHED && s->db &&
        db_prepare(journal_db(s->db), "SELECT bundle FROM program_bundles WHERE match=? AND seat=?",
                   &q) == DB_OK &&
        db_bind_text(q, 1, x->id, -1) == DB_OK && db_bind_int(q, 2, seat) == DB_OK &&
        db_step(q) == DB_ROW && db_column_text(q, 0))
        b = json_loads(db_column_text(q, 0), 0, NULL);
    db_finalize(q);
    return b ? b : json_null();
}

/* The logs of a match's program seats (docs/protocol.md, get_record): a
 * live program's from memory, an ended one's from the journal; each with
 * its fault bundle once the match is over. */
static json_t *program_logs(srv *s, const match *x)
{
    json_t *a = json_array();
    for (int i = 0; i < x->nseats; i++) {
        const seat_t *t = &x->seats[i];
        if (t->kind != SEAT_PROGRAM)
            continue;
        json_t *log = t->prog ? prog_log_json(t->prog) : NULL;
        db_stmt *q = NULL;
        if (!log && s->db &&
            db_prepare(journal_db(s->db), "SELECT log FROM program_logs WHERE match=? AND seat=?", &q) ==
                DB_OK &&
            db_bind_text(q, 1, x->id, -1) == DB_OK && db_bind_int(q, 2, i) == DB_OK &&
            db_step(q) == DB_ROW && db_column_text(q, 0))
            log = json_loads(db_column_text(q, 0), 0, NULL);
        db_finalize(q);
        if (!log)
            log = json_pack("{s:i, s:s, s:s, s:i, s:i, s:[]}", "seat", i, "spec", t->spec, "stderr",
                            "", "stderr_bytes", 0, "starts", 0, "verdicts");
        json_object_set_new(log, "bundle", program_bundle(s, x, i));
        json_array_append_new(a, log);
    }
    return a;
}

static void get_record(conn *c, const proto_msg *m)
{
    if (m->admin_token && !admin_check(c, m))
        return;
    match *x = need_match(c, m->match, m->id);
    json_t *rec = x ? match_record(c, x, m->id) : NULL;
    if (!rec)
        return;
    json_t *r = proto_reply("record", m->id);
    json_object_set_new(r, "match", json_string(x->id));
    json_object_set_new(r, "status",
                        json_string(x->status == MATCH_FINISHED ? "finished"
                                    : x->status == MATCH_LIVE   ? "live"
                                                                : "waiting"));
    json_object_set_new(r, "record", rec);
    json_object_set_new(r, "result", x->result ? json_incref(x->result) : json_null());
    if (m->admin_token)
        json_object_set_new(r, "programs", program_logs(c->srv, x));
    conn_send(c, r);
}

bool handle_message(conn *c, const char *buf, size_t len)
{
    bool asked = false;
    proto_msg m;
    json_t *id = NULL;
    char err[256];
    info_parsed ip;
    char rest[1024]; /* a move without its line (~100 bytes; longer: the general way) */
    size_t rlen = 0;
    bool plain = c->hello && !c->srv->stopping, split = false;
    if (plain && info_parse(buf, len, &ip) == 0)
        return info_plain(c, &ip, buf, len);
    split = plain && info_move_split(buf, len, rest, sizeof rest, &rlen, &ip) == 0;
    int rc = split ? proto_decode(rest, rlen, &m, &id, err, sizeof err)
                   : proto_decode(buf, len, &m, &id, err, sizeof err);
    if (rc) {
        conn_error(c, rc, err, id);
        json_decref(id);
        if (rc == ENG_EBAD_JSON || rc == ENG_EBAD_VERSION || rc == ENG_ETOO_LARGE || !c->hello)
            conn_close_after(c, LWS_CLOSE_STATUS_POLICY_VIOLATION, wire_err_code(rc));
        return false;
    }
    if (!c->hello && m.type != PROTO_HELLO) {
        conn_error(c, ENG_EBAD_MESSAGE, "the first message must be hello", m.id);
        conn_close_after(c, LWS_CLOSE_STATUS_POLICY_VIOLATION, "hello first");
        proto_msg_free(&m);
        return false;
    }
    if (c->srv->stopping && m.type != PROTO_PING) {
        conn_error(c, ENG_ESHUTTING_DOWN, "the server is shutting down", m.id);
        proto_msg_free(&m);
        return false;
    }
    /* another server's match or tournament: forwarded there (cluster.c) */
    if (cluster_route(c, &m, buf, len)) {
        proto_msg_free(&m);
        return false;
    }
    switch (m.type) {
    case PROTO_HELLO:
        if (c->hello) {
            conn_error(c, ENG_EBAD_MESSAGE, "hello was already received", m.id);
            break;
        }
        c->hello = true;
        c->proto = (int)m.protocol;
        reply_welcome(c, &m);
        break;
    case PROTO_PING: conn_send(c, proto_reply("pong", m.id)); break;
    case PROTO_LIST_GAMES: reply_games(c, &m); break;
    case PROTO_LIST_BOTS: reply_bots(c, &m); break;
    case PROTO_LIST_MATCHES: reply_matches(c, &m); break;
    case PROTO_CREATE_MATCH: create(c, &m); break;
    case PROTO_JOIN: join(c, &m); break;
    case PROTO_SPECTATE: spectate(c, &m); break;
    case PROTO_UNSPECTATE: unspectate(c, &m); break;
    case PROTO_MOVE: asked = move(c, &m, split ? &ip : NULL); break;
    case PROTO_RESIGN: resign(c, &m); break;
    case PROTO_RESUME: resume(c, &m); break;
    case PROTO_REPLAY: replay(c, &m); break;
    case PROTO_GET_RECORD: get_record(c, &m); break;
    case PROTO_ANALYZE: analyze_handle(c, &m); break;
    case PROTO_INFO: asked = info(c, &m, NULL); break;
    case PROTO_REGISTER: handle_register(c, &m); break;
    case PROTO_UNREGISTER: handle_unregister(c, &m); break;
    case PROTO_CREATE_TOURNAMENT:
    case PROTO_START_TOURNAMENT:
    case PROTO_PAUSE_TOURNAMENT:
    case PROTO_CANCEL_TOURNAMENT:
    case PROTO_LIST_TOURNAMENTS:
    case PROTO_WATCH_TOURNAMENT:
    case PROTO_UNWATCH_TOURNAMENT:
    case PROTO_GET_TOURNAMENT_PLOTS: handle_tournament(c, &m); break;
    case PROTO_COURSE_CREATE:
    case PROTO_COURSE_ADD_STUDENTS:
    case PROTO_COURSE_SET_DEADLINE:
    case PROTO_COURSE_START_FINAL:
    case PROTO_COURSE_GRADES:
    case PROTO_COURSE_LIST:
    case PROTO_COURSE_RERUN_GATES:
    case PROTO_COURSE_ARCHIVE:
    case PROTO_COURSE_DELETE:
    case PROTO_COURSE_SETTINGS:
    case PROTO_COURSE_VIEW:
    case PROTO_COURSE_GAME:
    case PROTO_COURSE_CODE:
    case PROTO_COURSE_SUBMIT:
    case PROTO_COURSE_UPLOAD: courses_handle(c, &m); break;
    case PROTO_SERVER_STATS: {
        json_t *r = proto_reply("stats", m.id);
        json_object_update_new(r, srv_stats_json(c->srv));
        conn_send(c, r);
        break;
    }
    default: conn_error(c, ENG_EUNKNOWN_TYPE, "unknown message type", m.id); break;
    }
    proto_msg_free(&m);
    return asked;
}

void handle_conn_closed(conn *c)
{
    cluster_conn_closed(c);
    registry_conn_closed(c);
    tours_conn_closed(c);
    courses_conn_closed(c);
    table_conn_closed(c);
}
