/*
 * match_views.c — a match as JSON and as message text: the lobby's
 * summary, the table view, seats and clocks, and the per-move messages
 * (update, your_turn) in both protocols.
 *
 * The per-move texts are written by protocol/jsontext.h into the server's
 * reusable buffers: the public state's text once per position (the turn's
 * update and the next your_turn splice the same), protocol 2's change once
 * per turn, each message's text once however many connections get it.
 * Nothing here sends: match.c and the table decide who hears what.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "match_clock.h"
#include "match_views.h"
#include "protocol/delta.h"
#include "thinking.h"

/* The text of msg (borrowed, an object) with `"key":raw` added as its last
 * member, in buffer b (the server's: valid until the next message). */
static const textbuf *text_into(textbuf *b, const json_t *msg, const char *key, const textbuf *raw)
{
    tb_reset(b);
    if (!msg || raw->failed || jt_dump(b, msg)) {
        b->failed = true;
        return b;
    }
    b->len--; /* the closing brace */
    if (b->len > 1)
        tb_put(b, ",", 1);
    jt_str(b, key, strlen(key));
    tb_put(b, ":", 1);
    tb_put(b, raw->p, raw->len);
    tb_put(b, "}", 1);
    return b;
}

static const textbuf *text_with(srv *s, const json_t *msg, const char *key, const textbuf *raw)
{
    return text_into(&s->msg_txt, msg, key, raw);
}

/* The public state, built once per position: the update and the next
 * your_turn of a turn carry the same one (a new reference). */
json_t *match_view_state(match *m)
{
    if (!m->state_cache || m->state_cache_at != m->nmoves) {
        json_decref(m->state_cache);
        m->state_cache = m->wire->state(m->st);
        m->state_cache_at = m->nmoves;
    }
    return json_incref(m->state_cache);
}

/* The public state now (borrowed: the match's cache). */
static json_t *state_json_borrow(match *m)
{
    json_t *s = match_view_state(m);
    json_decref(s);
    return m->state_cache;
}

/* The text of protocol 2's change from the announced state to the state
 * now, written into the server's change buffer: by the game's codec from
 * the two engine states when it has one (no JSON state is built), else as
 * the diff of the two JSON states. */
static const textbuf *change_text(match *m)
{
    textbuf *b = &m->srv->change_txt;
    tb_reset(b);
    if (m->wire->change) {
        if (!m->ann_st || m->wire->change(m->ann_st, m->st, b) != 0)
            b->failed = true;
        return b;
    }
    json_t *d = m->ann_state ? delta_diff(m->ann_state, state_json_borrow(m)) : NULL;
    if (!d || jt_dump(b, d))
        b->failed = true;
    json_decref(d);
    return b;
}

/* The public state's text, written once per position: the update and the
 * next your_turn of a turn splice the same text (the server holds one, of
 * the match that last asked). */
static const textbuf *state_text(match *m)
{
    srv *s = m->srv;
    if (s->state_txt_of != m || s->state_txt_at != m->nmoves || s->state_txt.failed) {
        json_t *st = match_view_state(m);
        tb_reset(&s->state_txt);
        if (!st || jt_dump(&s->state_txt, st))
            s->state_txt.failed = true;
        json_decref(st);
        s->state_txt_of = m;
        s->state_txt_at = m->nmoves;
    }
    return &s->state_txt;
}

json_t *match_view_scores(const match *m)
{
    double sc[ENG_MAX_PLAYERS];
    m->g->scores(m->st, sc);
    json_t *a = json_array();
    for (int i = 0; i < m->nseats; i++)
        json_array_append_new(a, json_integer((json_int_t)llround(sc[i])));
    return a;
}

const char *match_status_name(int s)
{
    return s == MATCH_WAITING ? "waiting" : s == MATCH_LIVE ? "live" : "finished";
}

/* The clocks. `next` >= 0 names the seat about to be asked (an update goes
 * out just before its deadline is armed): its time left is its full
 * allowance, so spectators can count down too. */
/* The clocks read at loop time now and epoch time epoch (read together: the
 * epoch deadline is the loop deadline). */
json_t *match_view_clocks_at(const match *m, int next, uint64_t now, int64_t epoch)
{
    json_t *a = json_array();
    for (int i = 0; i < m->nseats; i++) {
        const seat_t *t = &m->seats[i];
        json_t *o = json_pack("{s:i, s:I}", "seat", i, "bank_ms", (json_int_t)t->bank_ms);
        if (m->pol.timeout == PROTO_TIMEOUT_GRACE)
            json_object_set_new(o, "grace_ms", json_integer(t->grace_ms));
        if (m->status == MATCH_LIVE && (m->to_move == i || (m->to_move < 0 && next == i))) {
            json_int_t left = m->to_move == i
                                  ? (json_int_t)match_clock_left(m, now)
                                  : (json_int_t)(match_clock_allowance(m, t) + t->bank_ms);
            json_object_set_new(o, "time_left_ms", json_integer(left));
            json_object_set_new(o, "deadline", json_integer(epoch + left));
        }
        json_array_append_new(a, o);
    }
    return a;
}

json_t *match_view_clocks(const match *m, int next)
{
    return match_view_clocks_at(m, next, srv_now(m->srv), srv_epoch_ms());
}

json_t *match_clocks(const match *m)
{
    return match_view_clocks(m, -1);
}

/* The time control and policies, as create_match takes them. */
static json_t *rules_of_play(const match *m)
{
    return json_pack(
        "{s:{s:I, s:I, s:I, s:I}, s:{s:s, s:s, s:i, s:s, s:I, s:I, s:s}}", "time_control", "move_ms",
        (json_int_t)m->tc.move_ms, "first_move_ms", (json_int_t)m->tc.first_move_ms, "bank_ms",
        (json_int_t)m->tc.bank_ms, "increment_ms", (json_int_t)m->tc.increment_ms, "policies",
        "timeout", proto_timeout_name(m->pol.timeout), "illegal",
        proto_illegal_name(m->pol.illegal), "max_illegal", m->pol.max_illegal, "disconnect",
        proto_disconnect_name(m->pol.disconnect), "reconnect_grace_ms",
        (json_int_t)m->pol.reconnect_grace_ms, "grace_ms", (json_int_t)m->pol.grace_ms, "info",
        proto_info_name(m->pol.info));
}

static const char *kind_name(int kind)
{
    switch (kind) {
    case SEAT_BOT: return "bot";
    case SEAT_PROGRAM: return "program";
    case SEAT_REMOTE: return "remote";
    default: return "open";
    }
}

json_t *match_seats_json(const match *m)
{
    json_t *a = json_array();
    for (int i = 0; i < m->nseats; i++) {
        const seat_t *t = &m->seats[i];
        const char *name = t->kind == SEAT_BOT                      ? t->spec
                           : t->kind == SEAT_PROGRAM && !t->name[0] ? t->spec
                                                                    : t->name;
        bool local = t->kind == SEAT_BOT || t->kind == SEAT_PROGRAM;
        json_t *o = json_pack("{s:i, s:s, s:s, s:b}", "seat", i, "kind", kind_name(t->kind), "name",
                              name, "connected", local || t->conn != NULL);
        if (t->takeover)
            json_object_set_new(o, "takeover", json_true());
        json_array_append_new(a, o);
    }
    return a;
}

/* The turns played so far in record form (docs/records.md), as the views
 * show them: a new array, or NULL when memory ran out. */
static json_t *match_history_json(const match *m)
{
    const textbuf *h = &m->history;
    if (h->failed || h->len == 0)
        return json_array(); /* out of memory while it was written: none shown */
    char *t = malloc(h->len + 1);
    if (!t)
        return NULL;
    t[0] = '[';
    memcpy(t + 1, h->p, h->len - 1); /* without the last comma */
    t[h->len] = ']';
    json_t *a = json_loadb(t, h->len + 1, 0, NULL);
    free(t);
    return a;
}

/* ---- finish reasons --------------------------------------------------------------- */

static const char *const reason_names[] = {
#define SRV_REASON_NAME_(r) #r,
    SRV_REASONS(SRV_REASON_NAME_)
#undef SRV_REASON_NAME_
};

const char *match_reason_name(int i)
{
    return i >= 0 && i < SRV_NREASONS ? reason_names[i] : "other";
}

int match_reason_index(const char *reason)
{
    int i = 0;
    while (i < SRV_NREASONS - 1 && strcmp(reason, reason_names[i]) != 0)
        i++;
    return i;
}

json_t *match_summary(const match *m)
{
    /* what is set at the match's creation first, what a move changes last
     * (turn, scores, to_move): on a shared database the summary is the last
     * column of the match's row, rewritten about once a second while it is
     * played, and PostgreSQL logs a row's new version as the bytes between
     * what it shares with the old one at its start and at its end */
    json_t *o = json_pack("{s:s, s:s, s:o, s:I}", "match", m->id, "game", m->g->name, "rules",
                          wire_rules_json(m->g, &m->rules), "created", (json_int_t)m->created_ms);
    if (m->demo)
        json_object_set_new(o, "demo", json_true());
    if (m->tour_id) /* a tournament's game: which, and which game of it */
        json_object_update_new(o, json_pack("{s:I, s:I}", "tournament", (json_int_t)m->tour_id,
                                            "tournament_game", (json_int_t)m->tour_game));
    json_object_update_new(o, rules_of_play(m));
    if (m->has_nonce)
        json_object_set_new(o, "chance_commitment", json_string(m->commitment));
    json_object_set_new(o, "seats", match_seats_json(m));
    json_object_set_new(o, "status", json_string(match_status_name(m->status)));
    json_object_set_new(o, "result", m->result ? json_incref(m->result) : json_null());
    json_object_set_new(o, "scores", match_view_scores(m));
    json_object_set_new(o, "turn", json_integer(m->turns));
    int p = m->g->current_player(m->st);
    json_object_set_new(o, "to_move",
                        m->status == MATCH_LIVE && p >= 0 ? json_integer(p) : json_null());
    return o;
}

json_t *match_table_view(const match *m, const char *type, int seat, const char *resume,
                         const json_t *id)
{
    json_t *r = proto_reply(type, id);
    json_object_set_new(r, "match", json_string(m->id));
    if (seat >= 0) {
        json_object_set_new(r, "seat", json_integer(seat));
        json_object_set_new(r, "resume_token", json_string(resume ? resume : ""));
    }
    json_object_set_new(r, "game", json_string(m->g->name));
    json_object_set_new(r, "rules", wire_rules_json(m->g, &m->rules));
    json_object_set_new(r, "status", json_string(match_status_name(m->status)));
    json_object_set_new(r, "seats", match_seats_json(m));
    json_object_set_new(r, "history", match_history_json(m));
    json_object_set_new(r, "state", m->wire->state(m->st));
    json_object_set_new(r, "clocks", match_clocks(m));
    json_object_set_new(r, "result", m->result ? json_incref(m->result) : json_null());
    json_object_update_new(r, rules_of_play(m));
    if (m->has_nonce)
        json_object_set_new(r, "chance_commitment", json_string(m->commitment));
    return r;
}

/* ---- the per-move messages ------------------------------------------------------- */

int match_view_what_to_tell(const match *m, int known)
{
    if (known == m->nmoves)
        return TELL_NOTHING;
    if (known >= 0 && known == m->ann_at && (m->ann_state || m->ann_st))
        return TELL_CHANGE;
    return TELL_STATE;
}

const textbuf *match_view_text(match *m, const json_t *msg)
{
    textbuf *b = &m->srv->msg_txt;
    tb_reset(b);
    if (!msg || jt_dump(b, msg))
        b->failed = true;
    return b;
}

static const textbuf *update_v1(match *m, match_update_texts *u)
{
    if (!u->v1)
        u->v1 = text_with(m->srv, u->msg, "state", state_text(m));
    return u->v1;
}

const textbuf *match_view_update_text(match *m, match_update_texts *u, int tell)
{
    if (tell != TELL_STATE && !u->v2) {
        static const textbuf empty = {(char *)"{}", 2, 2, false};
        const textbuf *ch = tell == TELL_NOTHING ? &empty : change_text(m);
        u->v2 = text_into(&m->srv->msg2_txt, u->msg, "change", ch);
    }
    return tell == TELL_STATE || u->v2->failed ? update_v1(m, u) : u->v2;
}

void match_view_announced(match *m)
{
    /* the next changes start from this state: the engine state when the
     * codec writes changes from it, else the JSON state */
    m->ann_at = m->nmoves;
    if (m->wire->change) {
        if (!m->ann_st)
            m->ann_st = malloc(m->g->state_size);
        if (m->ann_st)
            memcpy(m->ann_st, m->st, m->g->state_size);
        else
            m->ann_at = -1;
    } else {
        json_decref(m->ann_state);
        m->ann_state = match_view_state(m);
    }
}

/* A literal string appended as it is. */
#define LIT(b, s) tb_put((b), (s), sizeof(s) - 1)

/* The clocks as match_view_clocks_at writes them (next: -1), as text. */
static void clocks_text(textbuf *b, const match *m, uint64_t now, int64_t epoch)
{
    LIT(b, "[");
    for (int i = 0; i < m->nseats; i++) {
        const seat_t *t = &m->seats[i];
        if (i)
            LIT(b, ",");
        LIT(b, "{\"seat\":");
        jt_int(b, i);
        LIT(b, ",\"bank_ms\":");
        jt_int(b, t->bank_ms);
        if (m->pol.timeout == PROTO_TIMEOUT_GRACE) {
            LIT(b, ",\"grace_ms\":");
            jt_int(b, t->grace_ms);
        }
        if (m->status == MATCH_LIVE && m->to_move == i) {
            int64_t left = match_clock_left(m, now);
            LIT(b, ",\"time_left_ms\":");
            jt_int(b, left);
            LIT(b, ",\"deadline\":");
            jt_int(b, epoch + left);
        }
        LIT(b, "}");
    }
    LIT(b, "]");
}

const textbuf *match_view_your_turn_text(match *m, int seat_no, bool v2, int tell, uint64_t now,
                                        int64_t epoch)
{
    int64_t left = match_clock_left(m, now);
    /* the change or the state first: they are written into buffers of
     * their own, and the message is written around them in one */
    const textbuf *tail = tell == TELL_CHANGE ? change_text(m)
                         : tell == TELL_STATE ? state_text(m)
                                              : NULL;
    /* written as text, member by member (what jt_dump of the message built
     * with jansson wrote, without its hundred allocations for `legal`) */
    textbuf *b = &m->srv->msg_txt;
    tb_reset(b);
    LIT(b, "{\"type\":\"your_turn\",\"match\":");
    jt_str(b, m->id, strlen(m->id));
    LIT(b, ",\"seat\":");
    jt_int(b, seat_no);
    LIT(b, ",\"turn\":");
    jt_int(b, m->turns + 1);
    LIT(b, ",\"legal\":");
    /* protocol 2: the compact legal moves, and the state only if the
     * connection does not have it (the turn's update brought it) */
    if (v2 && m->wire->legal_compact_text) {
        if (m->wire->legal_compact_text(m->st, b))
            b->failed = true;
    } else if (m->wire->legal_text && !(v2 && m->wire->legal_compact)) {
        /* the same text as legal's array, written without it; the seat's
         * info lines name these, found by their text (thinking.c) */
        if (thinking_legal_text(m, b))
            b->failed = true;
    } else {
        bool full = !(v2 && m->wire->legal_compact);
        json_t *legal = full ? m->wire->legal(m->st) : m->wire->legal_compact(m->st);
        /* full: the seat's info lines name these, found by their text (thinking.c) */
        if (!legal || (full ? thinking_legal_dump(m, b, legal) : jt_dump(b, legal)))
            b->failed = true;
        json_decref(legal);
    }
    LIT(b, ",\"time_left_ms\":");
    jt_int(b, left);
    LIT(b, ",\"deadline\":");
    jt_int(b, epoch + left);
    LIT(b, ",\"clocks\":");
    clocks_text(b, m, now, epoch); /* the same reading: time_left_ms agrees */
    if (tail) {
        if (tell == TELL_CHANGE)
            LIT(b, ",\"change\":");
        else
            LIT(b, ",\"state\":");
        if (tail->failed)
            b->failed = true;
        else
            tb_put(b, tail->p, tail->len);
    }
    LIT(b, "}");
    return b;
}

void match_view_forget(match *m)
{
    free(m->ann_st);
    m->ann_st = NULL;
    json_decref(m->ann_state);
    m->ann_state = NULL;
    m->ann_at = -1;
    if (m->srv->state_txt_of == m)
        m->srv->state_txt_of = NULL;
    json_decref(m->state_cache);
    m->state_cache = NULL;
}
