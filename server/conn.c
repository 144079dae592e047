/*
 * conn.c — what the server says to a connection: its bounded output queue
 * (written out by its transport at the end of the loop round), error
 * replies, and closing after the queue drains. Everything above the
 * transports (handlers, the table, registry, tournaments, courses) talks to
 * a client through these, whichever transport it is on (conn_ops: net.c's
 * WebSocket, cluster.c's forwarded client); none of them calls a transport.
 *
 * A message is queued as the WebSocket frame that carries it (RFC 6455: a
 * final text frame, unmasked as a server's are), so that net.c writes every
 * message a connection has waiting in one send(2). A message queued after a
 * journal write that is not yet committed (under --durable: not yet synced)
 * waits for it (journal_hold): the connection is held (srv->held) until the
 * journal releases it (conn_release_held). Otherwise the connection goes on
 * srv->flush, written when the loop round's callbacks are done.
 *
 * A peer that lets its queue grow past SRV_MAX_QUEUED_BYTES without reading
 * is cut off at once (we cannot even send it a close frame). Loop thread
 * only.
 */
#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conn.h"
#include "journal/journal.h"

conn *conn_create(srv *s, const conn_ops *ops, size_t link_size)
{
    assert(s && ops && ops->wake && ops->flush && ops->kill);
    conn *c = calloc(1, sizeof *c + link_size);
    if (!c)
        return NULL;
    c->ops = ops;
    c->srv = s;
    c->id = ++s->next_conn_id;
    c->next = s->conns;
    if (s->conns)
        s->conns->prev = c;
    s->conns = c;
    return c;
}

void *conn_link(conn *c)
{
    return c + 1;
}

void conn_destroy(conn *c)
{
    srv *s = c->srv;
    conn_unhold(c);
    conn_queue_free(c);
    if (c->prev)
        c->prev->next = c->next;
    else
        s->conns = c->next;
    if (c->next)
        c->next->prev = c->prev;
    free(c);
}

void conn_queue_free(conn *c)
{
    outmsg *o = c->head;
    while (o) {
        outmsg *n = o->next;
        free(o);
        o = n;
    }
    c->head = c->tail = NULL;
    c->queued = 0;
}

void conn_hold(conn *c)
{
    srv *s = c->srv;
    if (c->held)
        return;
    if (s->nheld == s->held_cap) {
        int cap = s->held_cap ? 2 * s->held_cap : 256;
        conn **p = realloc(s->held, (size_t)cap * sizeof *p);
        if (!p) {
            c->ops->kill(c, "out of memory");
            return;
        }
        s->held = p;
        s->held_cap = cap;
    }
    s->held[s->nheld++] = c;
    c->held = true;
}

void conn_unhold(conn *c)
{
    srv *s = c->srv;
    if (c->held) {
        for (int i = 0; i < s->nheld; i++)
            if (s->held[i] == c) {
                s->held[i] = s->held[--s->nheld];
                break;
            }
        c->held = false;
    }
    if (c->flushing) {
        for (int i = 0; i < s->nflush; i++)
            if (s->flush[i] == c) {
                s->flush[i] = s->flush[--s->nflush];
                break;
            }
        c->flushing = false;
    }
}

void conn_flush_later(conn *c)
{
    srv *s = c->srv;
    if (c->flushing)
        return;
    if (s->nflush == s->flush_cap) {
        int cap = s->flush_cap ? 2 * s->flush_cap : 256;
        conn **p = realloc(s->flush, (size_t)cap * sizeof *p);
        if (!p) {
            c->ops->kill(c, "out of memory");
            return;
        }
        s->flush = p;
        s->flush_cap = cap;
    }
    s->flush[s->nflush++] = c;
    c->flushing = true;
}

/* The header of a final text frame of len bytes (RFC 6455, 5.2; a server's
 * frames are not masked) into h: its length, 2 to 10 bytes. */
static size_t frame_header(unsigned char *h, size_t len)
{
    h[0] = 0x81; /* FIN, text */
    if (len < 126) {
        h[1] = (unsigned char)len;
        return 2;
    }
    if (len < 65536) {
        h[1] = 126;
        h[2] = (unsigned char)(len >> 8);
        h[3] = (unsigned char)len;
        return 4;
    }
    h[1] = 127;
    for (int i = 0; i < 8; i++)
        h[2 + i] = (unsigned char)((uint64_t)len >> (56 - 8 * i));
    return 10;
}

const char *conn_msg_text(const outmsg *o, size_t *len)
{
    const unsigned char *f = o->buf + LWS_PRE;
    size_t hn = (f[1] & 0x7f) < 126 ? 2 : (f[1] & 0x7f) == 126 ? 4 : 10;
    *len = o->len - hn;
    return (const char *)f + hn;
}

/* Queue text on c, to leave once the journal's write number `hold` is
 * committed (0: at once). */
static void queue_text(conn *c, const char *text, size_t len, uint64_t hold)
{
    assert(c->ops && (text || !len));
    if (c->closing)
        return;
    if (c->queued + len > SRV_MAX_QUEUED_BYTES) {
        c->ops->kill(c, "output queue full: the client does not read");
        return;
    }
    unsigned char h[10];
    size_t hn = frame_header(h, len);
    outmsg *o = malloc(sizeof *o + LWS_PRE + hn + len);
    if (!o) {
        c->ops->kill(c, "out of memory");
        return;
    }
    o->next = NULL;
    o->len = hn + len;
    o->hold = hold;
    memcpy(o->buf + LWS_PRE, h, hn);
    memcpy(o->buf + LWS_PRE + hn, text, len);
    if (c->tail)
        c->tail->next = o;
    else
        c->head = o;
    c->tail = o;
    c->queued += o->len;
    if (o->hold)
        conn_hold(c);
    else
        c->ops->wake(c);
}

void conn_send_text(conn *c, const char *text, size_t len)
{
    /* nothing leaves before the journal's writes made so far are committed
     * (--durable: on disk; PostgreSQL: the batch); net_release_held lets it go */
    uint64_t hold = journal_hold(c->srv->db);
    if (c->srv->db) {
        /* a table whose match has moves in a batch not yet stored (its commit
         * failed: journal_hold no longer holds everything) hears nothing
         * more until they are */
        uint64_t synced = journal_synced(c->srv->db);
        for (int i = 0; i < c->nsubs; i++) {
            uint64_t b = c->subs[i].m->journal_batch;
            if (b > synced && b > hold)
                hold = b;
        }
    }
    queue_text(c, text, len, hold);
}

void conn_relay_text(conn *c, const char *text, size_t len)
{
    queue_text(c, text, len, 0);
}

void conn_send(conn *c, json_t *msg)
{
    if (!msg)
        return;
    if (c && !c->closing) {
        /* written into the server's reusable buffer, then copied to the queue */
        textbuf *b = &c->srv->send_txt;
        tb_reset(b);
        if (jt_dump(b, msg) == 0)
            conn_send_text(c, b->p, b->len);
    }
    json_decref(msg);
}

void conn_error(conn *c, int code, const char *message, const json_t *id)
{
    c->srv->cnt.errors[code < 0 && -code < SRV_NERR ? -code : 0]++;
    conn_send(c, proto_error(code, message, id));
}

void conn_close_after(conn *c, int status, const char *reason)
{
    if (c->closing)
        return;
    c->closing = true;
    c->close_status = status;
    snprintf(c->close_reason, sizeof c->close_reason, "%s", reason);
    c->ops->wake(c); /* the transport sends the close once the queue is out */
}

conn *conn_find(srv *s, uint64_t id)
{
    for (conn *c = s->conns; c; c = c->next)
        if (c->id == id)
            return c;
    return NULL;
}

const char *conn_front(conn *c, size_t *len)
{
    outmsg *o = c->head;
    if (!o)
        return NULL;
    if (o->hold && o->hold > journal_synced(c->srv->db)) {
        conn_hold(c); /* conn_release_held comes back to it after the commit */
        return NULL;
    }
    return conn_msg_text(o, len);
}

void conn_pop(conn *c)
{
    outmsg *o = c->head;
    SRV_ASSERT(o && c->queued >= o->len);
    c->head = o->next;
    if (!c->head)
        c->tail = NULL;
    c->queued -= o->len;
    free(o);
}

void conn_flush_all(srv *s)
{
    while (s->nflush > 0) {
        conn *c = s->flush[--s->nflush];
        assert(c->flushing);
        c->flushing = false;
        c->ops->flush(c);
    }
}

void conn_release_held(srv *s)
{
    uint64_t synced = journal_synced(s->db);
    int kept = 0;
    for (int i = 0; i < s->nheld; i++) {
        conn *c = s->held[i];
        if (c->head && c->head->hold > synced) {
            s->held[kept++] = c; /* waits for a later commit or sync */
            continue;
        }
        c->held = false; /* its transport holds it again at a later message's number */
        conn_flush_later(c);
    }
    s->nheld = kept;
    conn_flush_all(s);
}
