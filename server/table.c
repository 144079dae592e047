/*
 * table.c — the people at each match's table: which connection plays which
 * seat, who watches, and what each of them is told.
 *
 * The link between a seat and a connection is held twice, as a seat's
 * `conn` and as the connection's `subs` (with what that connection knows of
 * the state: protocol 2's changes start there); spectators are a match's
 * `spect`. This file alone writes all three, so they cannot disagree.
 *
 * As the server's match sink (match.h) it turns a match's events into
 * messages: every connection at a table hears a message once, however many
 * seats of the match it plays and whether it watches too; an update or a
 * your_turn is written in the connection's protocol (protocol 2: only the
 * change since the state it has, or nothing when it has the state now).
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "tokidx.h"
#include "cluster.h"
#include "conn.h"
#include "match_views.h"
#include "registry.h"
#include "table.h"
#include "thinking.h"

/* ---- the links ----------------------------------------------------------------- */

static bool sub_add(conn *c, match *m, int seat)
{
    for (int i = 0; i < c->nsubs; i++)
        if (c->subs[i].m == m && c->subs[i].seat == seat)
            return true;
    if (c->nsubs == (int)(sizeof c->subs / sizeof c->subs[0]))
        return false;
    c->subs[c->nsubs++] = (conn_sub){m, seat, -1};
    return true;
}

static void sub_remove(conn *c, match *m, int seat)
{
    for (int i = 0; i < c->nsubs; i++)
        if (c->subs[i].m == m && c->subs[i].seat == seat) {
            c->subs[i] = c->subs[--c->nsubs];
            return;
        }
}

/* The subscription through which c follows m (its first, if several). */
static conn_sub *sub_of(conn *c, const match *m)
{
    for (int i = 0; i < c->nsubs; i++)
        if (c->subs[i].m == m)
            return &c->subs[i];
    return NULL;
}

/* Connection c was just sent the match's state now (a table view, an
 * update, a your_turn): protocol 2's next change for it starts there. */
static void state_sent(match *m, conn *c)
{
    conn_sub *s = c ? sub_of(c, m) : NULL;
    if (s)
        s->known_at = m->nmoves;
}

static int what_to_tell(const match *m, conn *c)
{
    const conn_sub *s = sub_of(c, m);
    return match_view_what_to_tell(m, s ? s->known_at : -1);
}

/* Does an earlier seat than `upto` (all seats: m->nseats) have this connection? */
static bool holds_seat(const match *m, const conn *c, int upto)
{
    for (int i = 0; i < upto; i++)
        if (m->seats[i].conn == c)
            return true;
    return false;
}

static void add_spectator(match *m, conn *c)
{
    for (int i = 0; i < m->nspect; i++)
        if (m->spect[i] == c)
            return;
    if (!sub_add(c, m, -1))
        return; /* not reached: spectate checks SRV_MAX_SPECTATING first */
    if (m->nspect == m->capspect) {
        int cap = m->capspect ? m->capspect * 2 : 4;
        conn **p = realloc(m->spect, (size_t)cap * sizeof *p);
        if (!p)
            return;
        m->spect = p;
        m->capspect = cap;
    }
    m->spect[m->nspect++] = c;
}

void table_unspectate(conn *c, match *m)
{
    for (int i = 0; i < m->nspect; i++)
        if (m->spect[i] == c) {
            m->spect[i] = m->spect[--m->nspect];
            break;
        }
    sub_remove(c, m, -1);
}

/* ---- the sink -------------------------------------------------------------------- */

/* Everyone at the table, each connection once: one that holds several seats
 * of the match, or plays and watches it, hears every message once. */
static void tell_text(match *m, const textbuf *t)
{
    if (t->failed)
        return;
    for (int i = 0; i < m->nseats; i++)
        if (m->seats[i].conn && !holds_seat(m, m->seats[i].conn, i))
            conn_send_text(m->seats[i].conn, t->p, t->len);
    for (int i = 0; i < m->nspect; i++)
        if (!holds_seat(m, m->spect[i], m->nseats))
            conn_send_text(m->spect[i], t->p, t->len);
}

/* One serialisation, many queues. */
static void sink_tell(match *m, const json_t *msg)
{
    tell_text(m, match_view_text(m, msg));
}

/* Who is connected changed: everyone at the table hears the seats
 * (`seats`, docs/protocol.md) but `skip`, which was just sent the whole view
 * (or is gone). Nothing once the match is over: game_over said it all. */
static void tell_seats(match *m, const conn *skip)
{
    if (m->status == MATCH_FINISHED)
        return;
    json_t *msg = json_pack("{s:s, s:s, s:o}", "type", "seats", "match", m->id, "seats",
                            match_seats_json(m));
    const textbuf *t = msg ? match_view_text(m, msg) : NULL;
    json_decref(msg);
    if (!t || t->failed)
        return;
    for (int i = 0; i < m->nseats; i++) {
        conn *c = m->seats[i].conn;
        if (c && c != skip && !holds_seat(m, c, i))
            conn_send_text(c, t->p, t->len);
    }
    for (int i = 0; i < m->nspect; i++)
        if (m->spect[i] != skip && !holds_seat(m, m->spect[i], m->nseats))
            conn_send_text(m->spect[i], t->p, t->len);
}

/* The spectators alone: a connection that also plays a seat hears nothing. */
static void sink_watchers(match *m, const char *text, size_t len)
{
    for (int i = 0; i < m->nspect; i++)
        if (!holds_seat(m, m->spect[i], m->nseats))
            conn_send_text(m->spect[i], text, len);
}

/* One connection at the table gets the update, in its protocol's form. */
static void send_update_to(match *m, conn *c, match_update_texts *u)
{
    const textbuf *t;
    if (c->proto < 2) {
        t = match_view_update_text(m, u, TELL_STATE);
    } else {
        t = match_view_update_text(m, u, what_to_tell(m, c));
        state_sent(m, c);
    }
    if (!t->failed)
        conn_send_text(c, t->p, t->len);
}

/* The turn's update to everyone at the table, each connection once: the
 * public state's text is written once and spliced in (the next your_turn
 * reuses it); protocol 2 connections get the change instead, written once. */
static void sink_turn(match *m, const json_t *update)
{
    match_update_texts u = {update, NULL, NULL};
    for (int i = 0; i < m->nseats; i++)
        if (m->seats[i].conn && !holds_seat(m, m->seats[i].conn, i))
            send_update_to(m, m->seats[i].conn, &u);
    for (int i = 0; i < m->nspect; i++)
        if (!holds_seat(m, m->spect[i], m->nseats))
            send_update_to(m, m->spect[i], &u);
    thinking_turn_played(m); /* a delayed line follows its move */
}

static bool sink_your_turn(match *m, int seat_no)
{
    conn *c = m->seats[seat_no].conn;
    if (!c)
        return false;
    /* Both clocks read together, before the message is built: building it
     * (the legal moves) takes time on a busy machine, and an epoch read
     * after that made the announced deadline later than the real one. */
    uint64_t now = srv_now(m->srv);
    int64_t epoch = srv_epoch_ms();
    bool v2 = c->proto >= 2;
    int tell = v2 ? what_to_tell(m, c) : TELL_STATE;
    const textbuf *txt = match_view_your_turn_text(m, seat_no, v2, tell, now, epoch);
    if (!txt->failed)
        conn_send_text(c, txt->p, txt->len);
    if (v2)
        state_sent(m, c);
    return true;
}

static void sink_reply(conn *to, json_t *msg)
{
    conn_send(to, msg);
}

static void sink_error(conn *to, int code, const char *message, const json_t *id)
{
    conn_error(to, code, message, id);
}

/* The match goes away: unlink everyone. */
static void sink_closing(match *m)
{
    for (int i = 0; i < m->nseats; i++)
        if (m->seats[i].conn) {
            sub_remove(m->seats[i].conn, m, i);
            m->seats[i].conn = NULL;
        }
    while (m->nspect > 0)
        table_unspectate(m->spect[m->nspect - 1], m);
}

const match_sink table_sink = {
    .turn = sink_turn,
    .your_turn = sink_your_turn,
    .tell = sink_tell,
    .watchers = sink_watchers,
    .reply = sink_reply,
    .error = sink_error,
    .closing = sink_closing,
};

/* ---- seating ----------------------------------------------------------------------- */

/* Room for one more seat on this connection (SRV_MAX_SEATS_PER_CONN):
 * seats in finished matches are let go first. */
static bool seat_room(conn *c, match *x, int seat)
{
    int held = 0;
    for (int i = 0; i < c->nsubs; i++) {
        if (c->subs[i].m == x && c->subs[i].seat == seat)
            return true; /* holds it already */
        held += c->subs[i].seat >= 0;
    }
    for (int i = c->nsubs - 1; i >= 0 && held >= SRV_MAX_SEATS_PER_CONN; i--) {
        conn_sub s = c->subs[i];
        if (s.seat >= 0 && s.m->status == MATCH_FINISHED) {
            s.m->seats[s.seat].conn = NULL;
            sub_remove(c, s.m, s.seat);
            held--;
        }
    }
    return held < SRV_MAX_SEATS_PER_CONN;
}

/* Take a seat for this connection: the previous holder, if any, is told
 * and loses it (resume always wins). */
void table_take_seat(conn *c, match *x, int seat, const char *type, const char *resume,
                     const json_t *id)
{
    struct seat *t = &x->seats[seat];
    if (!seat_room(c, x, seat)) {
        conn_error(c, ENG_ETOO_MANY, "this connection holds too many seats in matches not yet over",
                   id);
        return;
    }
    if (x->finish_reason) {
        conn_error(c, ENG_ESTORAGE,
                   "the match is over but its result is not journaled yet: try again later", id);
        return;
    }
    /* fail closed: no seat without a resume token from real random bytes;
     * the seat keeps its hash, the text goes to c only */
    char fresh[SRV_TOKEN_LEN + 1];
    if (!resume) {
        char h[SRV_TOKEN_HASH_LEN + 1];
        if (srv_random_token(fresh, SRV_TOKEN_LEN) != 0 || (access_token_hash(fresh, h), !h[0])) {
            conn_error(c, ENG_EINTERNAL, "the server could not make a resume token; try again", id);
            return;
        }
        if (tokidx_add(c->srv, h, x, seat) != 0) {
            conn_error(c, ENG_ENOMEM, "out of memory", id);
            return;
        }
        tokidx_remove(c->srv, t->resume); /* a token it had is replaced */
        memcpy(t->resume, h, sizeof h);
        t->resume_indexed = false;
        resume = fresh;
    }
    if (t->conn && t->conn != c) {
        /* unasked: the notice names the match and seat, since the old
         * connection may hold seats in several matches */
        json_t *told = proto_error(WIRE_ESEAT_TAKEN, "another connection resumed this seat", NULL);
        json_object_set_new(told, "match", json_string(x->id));
        json_object_set_new(told, "seat", json_integer(seat));
        conn_send(t->conn, told);
        sub_remove(t->conn, x, seat);
        t->conn = NULL;
    }
    if (!sub_add(c, x, seat)) { /* not reached: seat_room() made room */
        conn_error(c, ENG_EINTERNAL, "no room to hold the seat", id);
        return;
    }
    t->conn = c;
    bool started = match_seat_taken(x, seat);
    /* the reply first, showing the seat connected (and the match live if
     * this join starts it); then whatever play it unblocks */
    conn_send(c, cluster_owner_hint(c, match_table_view(x, type, seat, resume, id)));
    OPENSSL_cleanse(fresh, sizeof fresh);
    state_sent(x, c);
    tell_seats(x, c);
    match_seat_continue(x, seat, started);
}

void table_spectate(conn *c, match *m, const json_t *id)
{
    add_spectator(m, c);
    conn_send(c, cluster_owner_hint(c, match_table_view(m, "spectating", -1, NULL, id)));
    state_sent(m, c);
}

void table_attach_remote(match *m)
{
    for (int i = 0; i < m->nseats && m->status != MATCH_FINISHED; i++) {
        seat_t *t = &m->seats[i];
        if (t->kind != SEAT_REMOTE || t->conn)
            continue;
        regbot *r = registry_find(m->srv, t->name);
        if (r && r->conn)
            table_take_seat(r->conn, m, i, "joined", NULL, NULL);
    }
}

void table_conn_closed(conn *c)
{
    while (c->nsubs > 0) {
        conn_sub sub = c->subs[--c->nsubs];
        if (sub.seat < 0) {
            table_unspectate(c, sub.m);
        } else if (sub.m->seats[sub.seat].conn == c) {
            sub.m->seats[sub.seat].conn = NULL;
            match_seat_dropped(sub.m, sub.seat);
            tell_seats(sub.m, c);
        }
    }
}
