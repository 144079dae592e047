/*
 * cluster.c — several servers on one PostgreSQL database, Redis between them
 * (cluster.h says what it promises; docs/scaling.md why it is built so).
 *
 * Ownership. Every server has a row in tessera_instances carrying its lease
 * (renewed by every journal batch, journal/pg.c) and every live match row names
 * its owner. Once a second each server reads the instances: one whose lease
 * expired is taken over by whichever server first deletes its row — in the
 * same transaction as moving its matches (and tournaments) to itself — and
 * that server restores them from the journal, as after a restart: each seat
 * gets a fresh move and its reconnect grace, so the time the failover took is
 * not charged to anyone. It then says so on the cluster channel.
 *
 * Forwarding. A client may reach any server. A message about a match the
 * server does not hold is looked up in the database; if another live server
 * owns it, the message goes to that server's Redis channel with an envelope
 * (which server, which connection, the protocol version, the peer address),
 * and the owner handles it through a connection object standing for the
 * client (a connection on the transport `forwarded`, conn.h): the handlers,
 * the table, the holds of the journal are
 * the ones of any connection. What the owner queues on it is published back
 * once the journal has stored what it announces, and the edge server writes
 * it to the client unchanged. When the owner dies, the edge closes the
 * connections that talked to it (1001, going away): the clients resume — with their resume
 * tokens, on any server — at the match's new owner.
 *
 * Messages on Redis (one channel per server, tessera:ID:i:NAME, and
 * tessera:ID:cluster, where ID is the database's cluster_id, a random token
 * in its meta table: clusters on different databases can share one Redis),
 * a header line then the payload:
 *   F EDGE CONN PROTO PEER\n<client message>   to the owner
 *   C EDGE CONN\n                              to the owner: that client left
 *   O CONN\n<server message>                   to the edge: write it to CONN
 *   X CONN STATUS\n<reason>                    to the edge: close CONN after its output
 *   D DEAD TAKER\n                             to all: DEAD's matches are TAKER's
 *
 * Redis lost: forwarding stops (a message for another server's match gets
 * `unavailable`, and the edge closes the connections that were forwarding so
 * that their clients try again, through the proxy, maybe at the owner); play
 * between clients of the owner goes on, since it never needed Redis; the
 * links are made again every second.
 */
#include <hiredis/async.h>
#include <hiredis/hiredis.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus/redis_uv.h"
#include "tokidx.h"
#include "cluster.h"
#include "conn.h"
#include "match.h"
#include "match_views.h"
#include "registry.h"
#include "storage/db.h"
#include "journal/journal.h"

#define HASH_SIZE 4096 /* buckets of each connection index (a power of 2) */

/* A client of another server, standing here as a connection (its conn_link). */
typedef struct rconn {
    struct cluster *cl;
    int edge;            /* that server's index */
    uint64_t edge_conn;  /* the connection's id on that server (0: released) */
    bool close_sent;     /* its close went to that server */
    conn *hnext;         /* cl->remote's chain, or cl->reaped's */
} rconn;

/* One of our connections whose messages went to other servers (cl->local). */
typedef struct fwd {
    conn *c;
    uint64_t mask;                    /* the servers (by index) its messages went to */
    int seat_owner;                   /* where its last join or resume went (-1: none) */
    char match[SRV_MATCH_ID_LEN + 1]; /* the match its last forward was about ... */
    int owner;                        /* ... and that match's owner (no lookup per move) */
    struct fwd *hnext;
} fwd;

static rconn *rc(conn *c)
{
    return conn_link(c);
}

typedef struct inst {
    char name[JOURNAL_INSTANCE_MAX + 1];
    char channel[JOURNAL_INSTANCE_MAX + SRV_TOKEN_LEN + 16]; /* tessera:ID:i:NAME */
    bool live;                           /* its lease is current (last tick) */
    char address[SRV_ADDRESS_MAX + 1];   /* its [cluster] address ("": none), as of the last tick */
} inst;

struct cluster {
    srv *s;
    cluster_apps apps;            /* the services' hooks (server.c) */
    uv_timer_t tick;              /* the instances, takeovers, Redis reconnects */
    uv_check_t reap;              /* frees remote connections closed this iteration */
    inst insts[SRV_MAX_INSTANCES];
    int ninsts;
    int self;                     /* our index */
    /* Redis */
    bool redis_wanted;            /* [cluster] redis is set */
    char redis_host[256];
    int redis_port;
    redisAsyncContext *pub, *sub;
    bool pub_up, sub_up;          /* connected (and, sub, subscribed) */
    uint64_t redis_down_since;    /* loop ms (0: up, or never tried) */
    uint64_t connect_started;     /* loop ms of the last connection attempt */
    bool unreachable_told;        /* this outage's first failed attempt was logged */
    /* connections: ours that forwarded (by id), remote ones (by server and id) */
    fwd *local[HASH_SIZE];
    conn *remote[HASH_SIZE];
    conn *reaped;                 /* remote connections to free (chained by hnext) */
    cluster_stats st;
    bool stopping;
    char ns[SRV_TOKEN_LEN + 16];          /* the channels' prefix: tessera:ID: */
    char all_channel[SRV_TOKEN_LEN + 24]; /* tessera:ID:cluster, to every server */
};

/* ---- the table of servers -------------------------------------------------------------------- */

static int inst_index(struct cluster *cl, const char *name, size_t n)
{
    if (n == 0 || n > JOURNAL_INSTANCE_MAX)
        return -1;
    for (int i = 0; i < cl->ninsts; i++)
        if (strlen(cl->insts[i].name) == n && !memcmp(cl->insts[i].name, name, n))
            return i;
    if (cl->ninsts == SRV_MAX_INSTANCES)
        return -1;
    inst *x = &cl->insts[cl->ninsts];
    memmove(x->name, name, n);
    x->name[n] = 0;
    if (!srv_instance_valid(x->name))
        return -1;
    size_t nl = strlen(cl->ns); /* "tessera:ID:" fits: ns is sized for it */
    memcpy(x->channel, cl->ns, nl);
    memcpy(x->channel + nl, "i:", 2);
    memcpy(x->channel + nl + 2, x->name, n + 1);
    x->live = true; /* until a tick says otherwise */
    return cl->ninsts++;
}

/* ---- the connection indexes ----------------------------------------------------------------- */

static size_t hash_id(uint64_t id, int edge)
{
    uint64_t h = id * 0x9E3779B97F4A7C15ull ^ (uint64_t)edge * 0xC2B2AE3D27D4EB4Full;
    return (size_t)(h >> 40) & (HASH_SIZE - 1);
}

static fwd *local_find(struct cluster *cl, uint64_t id)
{
    for (fwd *f = cl->local[hash_id(id, -1)]; f; f = f->hnext)
        if (f->c->id == id)
            return f;
    return NULL;
}

/* c's record, made at its first forward; NULL when out of memory. */
static fwd *local_get(struct cluster *cl, conn *c)
{
    fwd *f = local_find(cl, c->id);
    if (f || !(f = calloc(1, sizeof *f)))
        return f;
    f->c = c;
    f->seat_owner = -1;
    size_t h = hash_id(c->id, -1);
    f->hnext = cl->local[h];
    cl->local[h] = f;
    return f;
}

static conn *remote_find(struct cluster *cl, int edge, uint64_t id)
{
    for (conn *c = cl->remote[hash_id(id, edge)]; c; c = rc(c)->hnext)
        if (rc(c)->edge == edge && rc(c)->edge_conn == id)
            return c;
    return NULL;
}

static void remote_unlink(struct cluster *cl, conn *c)
{
    for (conn **p = &cl->remote[hash_id(rc(c)->edge_conn, rc(c)->edge)]; *p; p = &rc(*p)->hnext)
        if (*p == c) {
            *p = rc(c)->hnext;
            rc(c)->hnext = NULL;
            return;
        }
}

/* ---- Redis ------------------------------------------------------------------------------------ */

static bool redis_up(const struct cluster *cl) { return cl->pub_up && cl->sub_up; }

static void publish(struct cluster *cl, const char *channel, const char *head, size_t hlen,
                    const char *body, size_t blen)
{
    if (!cl->pub_up)
        return;
    char *frame = malloc(hlen + blen);
    if (!frame)
        return;
    memcpy(frame, head, hlen);
    if (blen)
        memcpy(frame + hlen, body, blen);
    redisAsyncCommand(cl->pub, NULL, NULL, "PUBLISH %s %b", channel, frame, hlen + blen);
    free(frame);
}

static void on_redis_message(redisAsyncContext *ac, void *r, void *priv);
static void redis_connect(struct cluster *cl);

static void on_redis_connect(const redisAsyncContext *ac, int status)
{
    struct cluster *cl = ac->data;
    bool is_sub = ac == cl->sub;
    if (status != REDIS_OK) {
        /* once per outage at warn level; the retries every second at debug */
        srv_log(cl->unreachable_told ? LOG_DEBUG : LOG_WARN, "redis_unreachable", "{s:s, s:s}",
                "link", is_sub ? "sub" : "pub", "error", ac->errstr);
        cl->unreachable_told = true;
        /* hiredis frees the context after this callback */
        if (is_sub)
            cl->sub = NULL;
        else
            cl->pub = NULL;
        return;
    }
    if (is_sub) {
        redisAsyncCommand(cl->sub, on_redis_message, NULL, "SUBSCRIBE %s %s",
                          cl->insts[cl->self].channel, cl->all_channel);
    } else {
        cl->pub_up = true;
    }
}

static void close_forwarding(struct cluster *cl, uint64_t mask, int status, const char *why);
static void write_summaries(struct cluster *cl);
static int role_holder(struct cluster *cl, const char *role);

static void on_redis_disconnect(const redisAsyncContext *ac, int status)
{
    struct cluster *cl = ac->data;
    bool is_sub = ac == cl->sub;
    bool was_up = redis_up(cl);
    if (is_sub) {
        cl->sub = NULL;
        cl->sub_up = false;
    } else {
        cl->pub = NULL;
        cl->pub_up = false;
    }
    if (cl->stopping)
        return;
    srv_log(LOG_WARN, "redis_lost", "{s:s, s:i}", "link", is_sub ? "sub" : "pub", "status",
            status);
    if (was_up) {
        cl->redis_down_since = srv_now(cl->s);
        /* the forwarded clients cannot hear their owners any more: let them
         * come back (through the proxy, perhaps to the owner itself) */
        close_forwarding(cl, ~0ull, 1013, "the link between servers is down; try again");
    }
}

static void redis_connect(struct cluster *cl)
{
    if (!cl->redis_wanted || cl->stopping)
        return;
    for (int k = 0; k < 2; k++) {
        redisAsyncContext **pp = k ? &cl->sub : &cl->pub;
        if (*pp)
            continue;
        redisAsyncContext *ac = redisAsyncConnect(cl->redis_host, cl->redis_port);
        if (!ac)
            continue;
        if (ac->err) {
            srv_log(LOG_WARN, "redis_unreachable", "{s:s}", "error", ac->errstr);
            redisAsyncFree(ac);
            continue;
        }
        ac->data = cl;
        if (redis_uv_attach(ac, cl->s->loop) != 0) { /* bus/redis_uv.c */
            redisAsyncFree(ac);
            continue;
        }
        redisAsyncSetConnectCallback(ac, on_redis_connect);
        redisAsyncSetDisconnectCallback(ac, on_redis_disconnect);
        *pp = ac;
        cl->connect_started = srv_now(cl->s);
    }
}

/* ---- the owner's side: remote connections ----------------------------------------------------- */

static void remote_flush(conn *c);
static void remote_kill(conn *c, const char *why);
static const conn_ops forwarded_ops = {"forwarded", remote_flush, remote_flush, remote_kill};

static conn *remote_conn(struct cluster *cl, int edge, uint64_t id, int proto, const char *peer)
{
    conn *c = remote_find(cl, edge, id);
    if (c)
        return c;
    if (!(c = conn_create(cl->s, &forwarded_ops, sizeof(rconn))))
        return NULL;
    rconn *r = rc(c);
    r->cl = cl;
    r->edge = edge;
    r->edge_conn = id;
    c->hello = true;
    c->proto = proto;
    snprintf(c->peer, sizeof c->peer, "%s", peer);
    srv_addr_parse(c->peer, &c->addr);
    size_t h = hash_id(id, edge);
    r->hnext = cl->remote[h];
    cl->remote[h] = c;
    srv_log(LOG_DEBUG, "remote_conn_open", "{s:s, s:I, s:I}", "edge", cl->insts[edge].name,
            "edge_conn", (json_int_t)id, "conn", (json_int_t)c->id);
    return c;
}

/* Let a remote connection go (its client left, or we close it): its seats
 * and spectating as for any closed connection; freed after this iteration. */
static void remote_release(struct cluster *cl, conn *c)
{
    rconn *r = rc(c);
    if (c->closing && r->close_sent && !r->edge_conn)
        return; /* released already */
    cl->apps.conn_closed(c);
    conn_unhold(c);
    conn_queue_free(c);
    remote_unlink(cl, c);
    r->edge_conn = 0;
    c->closing = r->close_sent = true;
    r->hnext = cl->reaped;
    cl->reaped = c;
}

static void on_reap(uv_check_t *h)
{
    struct cluster *cl = h->data;
    while (cl->reaped) {
        conn *c = cl->reaped;
        cl->reaped = rc(c)->hnext;
        conn_destroy(c);
    }
}

/* The forwarded transport: what the owner queued goes to the client's
 * server now (what waits for the journal, once it is stored), then the
 * close. */
static void remote_flush(conn *c)
{
    rconn *r = rc(c);
    struct cluster *cl = r->cl;
    if (!r->edge_conn)
        return;
    const char *channel = cl->insts[r->edge].channel;
    char head[64];
    int hl = snprintf(head, sizeof head, "O %" PRIu64 "\n", r->edge_conn);
    size_t tl;
    const char *text;
    while ((text = conn_front(c, &tl))) {
        publish(cl, channel, head, (size_t)hl, text, tl);
        cl->st.served++;
        conn_pop(c);
    }
    if (c->head)
        return; /* held: conn_release_held comes back to it after the commit */
    conn_unhold(c); /* nothing waits: off the held and flush lists */
    if (c->closing && !r->close_sent) {
        hl = snprintf(head, sizeof head, "X %" PRIu64 " %d\n", r->edge_conn, c->close_status);
        publish(cl, channel, head, (size_t)hl, c->close_reason, strlen(c->close_reason));
        r->close_sent = true;
        remote_release(cl, c);
    }
}

/* No socket here to cut: its server closes its client. */
static void remote_kill(conn *c, const char *why)
{
    if (c->closing)
        return;
    conn_queue_free(c);
    conn_close_after(c, LWS_CLOSE_STATUS_POLICY_VIOLATION, why);
}

/* F EDGE CONN PROTO PEER\n<message> */
static void on_forward(struct cluster *cl, const char *p, size_t n)
{
    const char *nl = memchr(p, '\n', n);
    if (!nl)
        return;
    char edge[JOURNAL_INSTANCE_MAX + 1], peer[64];
    uint64_t id = 0;
    int proto = 0;
    char headbuf[JOURNAL_INSTANCE_MAX + 128];
    size_t hl = (size_t)(nl - p);
    if (hl >= sizeof headbuf)
        return;
    memcpy(headbuf, p, hl);
    headbuf[hl] = 0;
    if (sscanf(headbuf, "F %64s %" SCNu64 " %d %63s", edge, &id, &proto, peer) != 4)
        return;
    int e = inst_index(cl, edge, strlen(edge));
    if (e < 0 || e == cl->self || id == 0)
        return;
    conn *c = remote_conn(cl, e, id, proto, strcmp(peer, "-") ? peer : "");
    if (!c || c->closing)
        return;
    size_t len = n - hl - 1;
    if (len > SRV_MAX_MESSAGE)
        return;
    /* the handlers read a NUL-terminated buffer, as net.c gives it */
    char *msg = malloc(len + 1);
    if (!msg)
        return;
    memcpy(msg, nl + 1, len);
    msg[len] = 0;
    c->rx_ns = uv_hrtime();
    cl->apps.message(c, msg, len);
    free(msg);
}

/* C EDGE CONN */
static void on_left(struct cluster *cl, const char *p)
{
    char edge[JOURNAL_INSTANCE_MAX + 1];
    uint64_t id = 0;
    if (sscanf(p, "C %64s %" SCNu64, edge, &id) != 2)
        return;
    int e = inst_index(cl, edge, strlen(edge));
    conn *c = e >= 0 ? remote_find(cl, e, id) : NULL;
    if (c)
        remote_release(cl, c);
}

/* ---- the edge's side: our clients' messages to other servers ------------------------------------ */

/* O CONN\n<text> and X CONN STATUS\n<reason> */
static void on_output(struct cluster *cl, const char *p, size_t n, bool close)
{
    const char *nl = memchr(p, '\n', n);
    if (!nl)
        return;
    uint64_t id = 0;
    int status = 1000;
    if (close ? sscanf(p, "X %" SCNu64 " %d", &id, &status) != 2
              : sscanf(p, "O %" SCNu64, &id) != 1)
        return;
    fwd *f = local_find(cl, id);
    conn *c = f ? f->c : NULL;
    if (!c)
        return; /* gone meanwhile */
    size_t len = n - (size_t)(nl + 1 - p);
    if (close) {
        char reason[124];
        snprintf(reason, sizeof reason, "%.*s", (int)(len < 120 ? len : 120), nl + 1);
        conn_close_after(c, status, reason);
        return;
    }
    cl->st.relayed++;
    conn_relay_text(c, nl + 1, len);
}

static void close_forwarding(struct cluster *cl, uint64_t mask, int status, const char *why)
{
    for (int b = 0; b < HASH_SIZE; b++)
        for (fwd *f = cl->local[b]; f; f = f->hnext)
            if (f->mask & mask)
                conn_close_after(f->c, status, why);
}

static void on_redis_message(redisAsyncContext *ac, void *r, void *priv)
{
    (void)priv;
    struct cluster *cl = ac->data;
    redisReply *rep = r;
    if (!rep || rep->type != REDIS_REPLY_ARRAY || rep->elements < 3)
        return;
    const redisReply *kind = rep->element[0], *data = rep->element[2];
    if (kind->type == REDIS_REPLY_STRING && !strcmp(kind->str, "subscribe")) {
        if (rep->element[2]->type == REDIS_REPLY_INTEGER && rep->element[2]->integer >= 2) {
            cl->sub_up = true;
            cl->unreachable_told = false;
            if (cl->redis_down_since)
                srv_log(LOG_INFO, "redis_recovered", "{s:I}", "after_ms",
                        (json_int_t)(srv_now(cl->s) - cl->redis_down_since));
            cl->redis_down_since = 0;
        }
        return;
    }
    if (kind->type != REDIS_REPLY_STRING || strcmp(kind->str, "message") ||
        data->type != REDIS_REPLY_STRING || data->len < 2)
        return;
    const char *p = data->str;
    size_t n = data->len;
    switch (p[0]) {
    case 'F': on_forward(cl, p, n); break;
    case 'C': on_left(cl, p); break;
    case 'O': on_output(cl, p, n, false); break;
    case 'X': on_output(cl, p, n, true); break;
    case 'D': {
        char dead[JOURNAL_INSTANCE_MAX + 1], taker[JOURNAL_INSTANCE_MAX + 1];
        if (sscanf(p, "D %64s %64s", dead, taker) == 2) {
            int d = inst_index(cl, dead, strlen(dead));
            if (d >= 0 && d != cl->self) {
                cl->insts[d].live = false;
                close_forwarding(cl, 1ull << d, LWS_CLOSE_STATUS_GOINGAWAY, "the match moved to another server");
            }
        }
        break;
    }
    default: break;
    }
}

/* Forward c's message to server `owner` (seat: it takes a seat there);
 * true, having answered with an error when it cannot go. */
static bool forward_raw(struct cluster *cl, conn *c, int owner, const char *raw, size_t len,
                        const json_t *msg_id, bool seat)
{
    if (!redis_up(cl)) {
        conn_error(c, WIRE_EUNAVAILABLE,
                   cl->redis_wanted ? "this is on another server, and the link between servers "
                                      "is down; try again shortly"
                                    : "this is on another server of this cluster; connect to it "
                                      "there (this server has no [cluster] redis)",
                   msg_id);
        return true;
    }
    fwd *f = local_get(cl, c);
    if (!f) {
        conn_error(c, ENG_ENOMEM, "out of memory", msg_id);
        return true;
    }
    char head[JOURNAL_INSTANCE_MAX + 128];
    int hl = snprintf(head, sizeof head, "F %s %" PRIu64 " %d %s\n", cl->insts[cl->self].name,
                      c->id, c->proto, c->peer[0] ? c->peer : "-");
    f->mask |= 1ull << owner;
    if (seat)
        f->seat_owner = owner;
    publish(cl, cl->insts[owner].channel, head, (size_t)hl, raw, len);
    cl->st.forwarded++;
    return true;
}

static bool forward(struct cluster *cl, conn *c, int owner, const proto_msg *m, const char *raw,
                    size_t len)
{
    return forward_raw(cl, c, owner, raw, len, m->id,
                       m->type == PROTO_JOIN || m->type == PROTO_RESUME);
}

/* ---- takeover ----------------------------------------------------------------------------------- */

static void restore_owned(struct cluster *cl, const char *from)
{
    srv *s = cl->s;
    match *before = s->matches;
    (void)before;
    int n = 0;
    char err[300];
    /* remember which were held: the new ones are advanced */
    int held = 0;
    for (match *m = s->matches; m; m = m->next)
        held++;
    match **old = held ? malloc((size_t)held * sizeof *old) : NULL;
    int k = 0;
    for (match *m = s->matches; m && old; m = m->next)
        old[k++] = m;
    journal_restorer r = match_journal_restorer(s);
    if (journal_load_owned(s->db, &r, &n, err, sizeof err))
        srv_log(LOG_ERROR, "takeover_restore_failed", "{s:s, s:s}", "from", from, "reason", err);
    for (match *m = s->matches; m; m = m->next) {
        bool was = false;
        for (int i = 0; i < k && !was; i++)
            was = old[i] == m;
        if (!was && m->status != MATCH_FINISHED)
            match_advance(m);
    }
    free(old);
    cl->st.taken_matches += (uint64_t)n;
    if (cl->apps.taken_over)
        cl->apps.taken_over(s);
    srv_log(LOG_WARN, "takeover", "{s:s, s:i}", "from", from, "matches", n);
}

/* Try to take over dead server `name`: true when this server won it. */
static bool take_over(struct cluster *cl, const char *name)
{
    srv *s = cl->s;
    int lease = s->cfg.lease_ms > 0 ? s->cfg.lease_ms : JOURNAL_LEASE_MS;
    if (journal_up_ms(s->db) < (uint64_t)lease)
        return false; /* we may be back from an outage the others are not yet back from */
    db_conn *d = journal_db(s->db);
    char sql[256];
    if (db_exec(d, "BEGIN"))
        return false;
    db_stmt *q = NULL;
    bool won = false;
    if (db_prepare(d,
                   "DELETE FROM tessera_instances WHERE id=? AND expires_at < clock_timestamp()",
                   &q) == DB_OK) {
        db_bind_text(q, 1, name, -1);
        won = db_step(q) == DB_DONE && db_changes(d) == 1;
    }
    db_finalize(q);
    q = NULL;
    bool ok = won;
    if (ok) {
        snprintf(sql, sizeof sql, "UPDATE matches SET owner=? WHERE owner=? AND status<>%d",
                 MATCH_FINISHED);
        ok = db_prepare(d, sql, &q) == DB_OK;
        if (ok) {
            db_bind_text(q, 1, s->instance, -1);
            db_bind_text(q, 2, name, -1);
            ok = db_step(q) == DB_DONE;
        }
        db_finalize(q);
    }
    if (ok && cl->apps.claim)
        ok = cl->apps.claim(s, name) == 0;
    char roles[4][32];
    int nroles = 0;
    if (ok) { /* its roles are this server's now */
        ok = db_prepare(d, "UPDATE tessera_roles SET instance=? WHERE instance=? RETURNING role",
                        &q) == DB_OK;
        if (ok) {
            db_bind_text(q, 1, s->instance, -1);
            db_bind_text(q, 2, name, -1);
            int rc;
            while ((rc = db_step(q)) == DB_ROW)
                if (nroles < 4 && db_column_text(q, 0))
                    snprintf(roles[nroles++], sizeof roles[0], "%s", db_column_text(q, 0));
            ok = rc == DB_DONE;
        }
        db_finalize(q);
    }
    if (!ok || db_exec(d, "COMMIT")) {
        if (won)
            srv_log(LOG_ERROR, "takeover_failed", "{s:s, s:s}", "from", name, "postgres",
                    db_errmsg(d));
        db_exec(d, "ROLLBACK");
        return false;
    }
    cl->st.takeovers++;
    char head[2 * JOURNAL_INSTANCE_MAX + 8];
    int hl = snprintf(head, sizeof head, "D %s %s\n", name, s->instance);
    publish(cl, cl->all_channel, head, (size_t)hl, NULL, 0);
    restore_owned(cl, name);
    for (int i = 0; i < nroles; i++)
        if (!cl->apps.role_gained || cl->apps.role_gained(s, roles[i]) == 0)
            srv_log(LOG_WARN, "role_taken_over", "{s:s, s:s}", "role", roles[i], "from", name);
    return true;
}

/* Once a second: who is alive; take over the dead; close what our clients
 * forwarded to a server that is gone; Redis again if it was lost. */
static void on_tick(uv_timer_t *t)
{
    struct cluster *cl = t->data;
    srv *s = cl->s;
    if (cl->stopping || s->stopping)
        return;
    if (cl->redis_wanted && (!cl->pub || !cl->sub))
        redis_connect(cl);
    /* an attempt that neither connected nor failed (a host that drops the
     * packets): given up after SRV_REDIS_CONNECT_MS, tried again next tick */
    if (cl->redis_wanted && srv_now(s) - cl->connect_started > SRV_REDIS_CONNECT_MS) {
        for (int k = 0; k < 2; k++) {
            redisAsyncContext **pp = k ? &cl->sub : &cl->pub;
            if (*pp && !((*pp)->c.flags & REDIS_CONNECTED)) {
                redisAsyncContext *ac = *pp;
                *pp = NULL; /* no callback comes for one never connected */
                redisAsyncFree(ac);
            }
        }
    }
    db_stmt *q = NULL;
    db_conn *d = journal_db(s->db);
    if (journal_fault(s->db, &(int64_t){0}, &(const char *){NULL}) != JF_NONE)
        return; /* the database is out of reach: nobody can be taken over now */
    if (db_prepare(d,
                   "SELECT id, expires_at < clock_timestamp(), address FROM tessera_instances "
                   "ORDER BY id",
                   &q) != DB_OK)
        return;
    char dead[8][JOURNAL_INSTANCE_MAX + 1];
    int ndead = 0, live = 0;
    bool seen[SRV_MAX_INSTANCES] = {false};
    int rc;
    while ((rc = db_step(q)) == DB_ROW) {
        const char *name = db_column_text(q, 0);
        bool expired = db_column_int(q, 1) != 0;
        if (!name)
            continue;
        int i = inst_index(cl, name, strlen(name));
        if (i >= 0) {
            const char *a = db_column_text(q, 2); /* checked by the server that wrote it */
            seen[i] = true;
            cl->insts[i].live = !expired;
            snprintf(cl->insts[i].address, sizeof cl->insts[i].address, "%s",
                     a && strlen(a) <= SRV_ADDRESS_MAX ? a : "");
        }
        if (!expired)
            live++;
        else if (i != cl->self && ndead < 8)
            snprintf(dead[ndead++], sizeof dead[0], "%s", name);
    }
    db_finalize(q);
    if (rc != DB_DONE)
        return;
    uint64_t gone = 0;
    for (int i = 0; i < cl->ninsts; i++) {
        if (!seen[i])
            cl->insts[i].live = false;
        if (!cl->insts[i].live && i != cl->self)
            gone |= 1ull << i;
    }
    cl->st.instances = live;
    if (gone)
        close_forwarding(cl, gone, LWS_CLOSE_STATUS_GOINGAWAY, "the server of this match is gone; resume to continue");
    for (int i = 0; i < ndead; i++)
        take_over(cl, dead[i]);
    write_summaries(cl);
    if (cl->apps.tick)
        cl->apps.tick(s);
}

/* ---- the public part ------------------------------------------------------------------------------ */

bool cluster_on(const srv *s) { return s->cluster != NULL; }

bool cluster_linking(const srv *s)
{
    const struct cluster *cl = s->cluster;
    return cl && cl->redis_wanted && !redis_up(cl) && !cl->unreachable_told && !cl->stopping;
}

int cluster_start(srv *s, const cluster_apps *apps, char *err, size_t errcap)
{
    if (!journal_shared(s->db))
        return 0;
    struct cluster *cl = calloc(1, sizeof *cl);
    if (!cl) {
        snprintf(err, errcap, "out of memory");
        return -1;
    }
    SRV_ASSERT(apps && apps->message && apps->conn_closed);
    cl->s = s;
    cl->apps = *apps;
    char id[SRV_TOKEN_LEN + 1];
    bool made;
    if (srv_meta_token(s, "cluster_id", id, &made, err, errcap)) {
        free(cl);
        return -1;
    }
    snprintf(cl->ns, sizeof cl->ns, "tessera:%s:", id);
    snprintf(cl->all_channel, sizeof cl->all_channel, "%scluster", cl->ns);
    cl->self = inst_index(cl, s->instance, strlen(s->instance));
    if (s->cfg.redis) {
        const char *colon = strrchr(s->cfg.redis, ':');
        char *end = NULL;
        long port = colon ? strtol(colon + 1, &end, 10) : 6379;
        if (!colon || (size_t)(colon - s->cfg.redis) >= sizeof cl->redis_host || !colon[1] ||
            *end || port < 1 || port > 65535) {
            snprintf(err, errcap, "cluster.redis '%.100s': expected HOST:PORT", s->cfg.redis);
            free(cl);
            return -1;
        }
        snprintf(cl->redis_host, sizeof cl->redis_host, "%.*s", (int)(colon - s->cfg.redis),
                 s->cfg.redis);
        cl->redis_port = (int)port;
        cl->redis_wanted = true;
    }
    s->cluster = cl;
    uv_timer_init(s->loop, &cl->tick);
    cl->tick.data = cl;
    uv_timer_start(&cl->tick, on_tick, 0, JOURNAL_LEASE_BEAT_MS);
    uv_unref((uv_handle_t *)&cl->tick);
    uv_check_init(s->loop, &cl->reap);
    cl->reap.data = cl;
    uv_check_start(&cl->reap, on_reap);
    uv_unref((uv_handle_t *)&cl->reap);
    redis_connect(cl);
    srv_log(LOG_INFO, "cluster", "{s:s, s:s}", "instance", s->instance, "redis",
            cl->redis_wanted ? s->cfg.redis : "");
    return 0;
}

void cluster_stop(srv *s)
{
    struct cluster *cl = s->cluster;
    if (!cl || cl->stopping)
        return;
    cl->stopping = true;
    uv_timer_stop(&cl->tick);
    uv_close((uv_handle_t *)&cl->tick, NULL);
    uv_check_stop(&cl->reap);
    uv_close((uv_handle_t *)&cl->reap, NULL);
    /* the remote connections' seats go as on any disconnect */
    for (int b = 0; b < HASH_SIZE; b++)
        while (cl->remote[b])
            remote_release(cl, cl->remote[b]);
    on_reap(&cl->reap);
    if (cl->pub)
        redisAsyncDisconnect(cl->pub);
    if (cl->sub)
        redisAsyncDisconnect(cl->sub);
}

void cluster_free(srv *s)
{
    struct cluster *cl = s->cluster;
    if (!cl)
        return;
    /* after the loop's last run: cluster_stop closed the handles */
    on_reap(&cl->reap);
    for (int b = 0; b < HASH_SIZE; b++)
        while (cl->local[b]) {
            fwd *f = cl->local[b];
            cl->local[b] = f->hnext;
            free(f);
        }
    free(cl);
    s->cluster = NULL;
}

void cluster_conn_closed(conn *c)
{
    struct cluster *cl = c->srv->cluster;
    fwd *f = cl ? local_find(cl, c->id) : NULL;
    if (!f)
        return; /* it forwarded nothing (or stands for another server's client) */
    for (fwd **p = &cl->local[hash_id(c->id, -1)]; *p; p = &(*p)->hnext)
        if (*p == f) {
            *p = f->hnext;
            break;
        }
    char head[JOURNAL_INSTANCE_MAX + 40];
    int hl = snprintf(head, sizeof head, "C %s %" PRIu64 "\n", cl->insts[cl->self].name, c->id);
    for (int i = 0; i < cl->ninsts; i++)
        if (f->mask & (1ull << i))
            publish(cl, cl->insts[i].channel, head, (size_t)hl, NULL, 0);
    free(f);
}

/* The owner of match `id` in the database: its index, -1 when it is ours or
 * there is none (or it is over: read here from the journal), -2 on an error. */
static int match_owner(struct cluster *cl, const char *id, const char *resume_token)
{
    db_conn *d = journal_db(cl->s->db);
    db_stmt *q = NULL;
    const char *sql = resume_token
                          ? "SELECT m.owner, m.status FROM resume_tokens t JOIN matches m "
                            "ON m.id = t.match WHERE t.token = ?"
                          : "SELECT owner, status FROM matches WHERE id = ?";
    if (db_prepare(d, sql, &q) != DB_OK)
        return -2;
    db_bind_text(q, 1, resume_token ? resume_token : id, -1);
    int rc = db_step(q), owner = -1;
    if (rc == DB_ROW && db_column_int(q, 1) != MATCH_FINISHED) {
        const char *o = db_column_text(q, 0);
        owner = o ? inst_index(cl, o, strlen(o)) : -1;
        if (owner == cl->self)
            owner = -1;
    } else if (rc < 0) {
        owner = -2;
    }
    db_finalize(q);
    return owner;
}

bool cluster_route(conn *c, const proto_msg *m, const char *raw, size_t len)
{
    struct cluster *cl = c->srv->cluster;
    if (!cl || c->ops == &forwarded_ops)
        return false; /* a remote connection's messages were routed by its edge */
    fwd *f = local_find(cl, c->id);
    const char *id = NULL, *token = NULL;
    char token_hash[SRV_TOKEN_HASH_LEN + 1];
    switch (proto_route_of(m->type)) { /* protocol/messages.c says where each is answered */
    case PROTO_ROUTE_COORDINATOR: {
        int o = role_holder(cl, CLUSTER_COORDINATOR);
        return o >= 0 && forward_raw(cl, c, o, raw, len, m->id, false);
    }
    case PROTO_ROUTE_MATCH: id = m->match; break;
    case PROTO_ROUTE_SEAT:
        id = m->match;
        if (!id) { /* one of the connection's seats: here, or where it joined */
            for (int i = 0; i < c->nsubs; i++)
                if (c->subs[i].seat >= 0)
                    return false;
            if (f && f->seat_owner >= 0 && cl->insts[f->seat_owner].live)
                return forward(cl, c, f->seat_owner, m, raw, len);
            return false;
        }
        break;
    case PROTO_ROUTE_RESUME:
        if (!m->resume_token)
            return false;
        access_token_hash(m->resume_token, token_hash); /* tokens are kept hashed */
        if (!token_hash[0] || tokidx_find(c->srv, token_hash, &(int){0}))
            return false;
        token = token_hash;
        break;
    case PROTO_ROUTE_CREATE:
        /* registered bots live on the coordinator, and so do the matches that seat them */
        for (int i = 0; i < m->nseats; i++)
            if (!m->seats[i].open && strncmp(m->seats[i].bot, "remote:", 7) == 0) {
                int o = role_holder(cl, CLUSTER_COORDINATOR);
                return o >= 0 && forward_raw(cl, c, o, raw, len, m->id, false);
            }
        return false;
    case PROTO_ROUTE_TOURNAMENT: {
        const char *owner = NULL;
        char name[JOURNAL_INSTANCE_MAX + 1];
        if (cl->apps.tour_owner && cl->apps.tour_owner(c->srv, m->tournament, name, sizeof name) == 1)
            owner = name;
        int o = owner ? inst_index(cl, owner, strlen(owner)) : -1;
        if (o < 0 || o == cl->self)
            return false;
        if (!cl->insts[o].live)
            return false; /* being taken over: here it is unknown for now */
        return forward(cl, c, o, m, raw, len);
    }
    case PROTO_ROUTE_HERE:
    default: return false;
    }
    if (!token && (!id || match_find(c->srv, id)))
        return false;
    /* the match this connection's last message went to: its owner again,
     * without asking the database each move (the owner, once dead, is
     * noticed by the tick, which closes this connection) */
    if (!token && f && f->match[0] && strcmp(f->match, id) == 0 && cl->insts[f->owner].live)
        return forward(cl, c, f->owner, m, raw, len);
    int o = match_owner(cl, id, token);
    if (o < 0)
        return false;
    if (id && strlen(id) <= SRV_MATCH_ID_LEN && (f = local_get(cl, c))) {
        snprintf(f->match, sizeof f->match, "%s", id);
        f->owner = o;
    }
    if (!cl->insts[o].live) {
        /* its server is dead: take it over now rather than at the next tick */
        if (take_over(cl, cl->insts[o].name))
            return false;
    }
    return forward(cl, c, o, m, raw, len);
}

void cluster_append_summaries(srv *s, db_stmt *q, bool (*held)(srv *, const char *), json_t *out)
{
    while (db_step(q) == DB_ROW) {
        const char *id = db_column_text(q, 0), *owner = db_column_text(q, 1);
        const char *text = db_column_text(q, 2);
        if (!id || !text || held(s, id)) /* held here (a finished one, read back) */
            continue;
        json_t *e = json_loads(text, 0, NULL);
        if (!json_is_object(e)) {
            json_decref(e);
            continue;
        }
        json_object_set_new(e, "server", json_string(owner ? owner : ""));
        int o = owner && s->cluster ? inst_index(s->cluster, owner, strlen(owner)) : -1;
        if (o >= 0 && s->cluster->insts[o].address[0]) /* where a client plays it directly */
            json_object_set_new(e, "server_url", json_string(s->cluster->insts[o].address));
        json_array_append_new(out, e);
    }
}

json_t *cluster_owner_hint(conn *c, json_t *reply)
{
    const char *a = c->srv->cfg.cluster_address;
    if (reply && c->ops == &forwarded_ops && a && a[0])
        json_object_set_new(reply, "owner_url", json_string(a));
    return reply;
}

static bool match_held(srv *s, const char *id) { return match_find(s, id) != NULL; }

json_t *cluster_remote_matches(srv *s, int status_filter, int max)
{
    json_t *out = json_array();
    if (!s->cluster)
        return out;
    db_stmt *q = NULL;
    char sql[300];
    snprintf(sql, sizeof sql,
             "SELECT id, owner, summary FROM matches WHERE owner<>? AND summary IS NOT NULL%s "
             "ORDER BY created DESC LIMIT %d",
             status_filter == PROTO_LIST_LIVE       ? " AND status<>2"
             : status_filter == PROTO_LIST_FINISHED ? " AND status=2"
                                                    : "",
             max);
    if (db_prepare(journal_db(s->db), sql, &q) != DB_OK)
        return out;
    db_bind_text(q, 1, s->instance, -1);
    cluster_append_summaries(s, q, match_held, out);
    db_finalize(q);
    return out;
}

/* How late another server's lobby may show a match's turn and scores: a
 * summary is a new version of the match's row (a HOT update, ~120 B of WAL,
 * and a prune of the page later), which at a move a second per match was a
 * fifth of a move's WAL when it was written every tick. A new match, and a
 * change of status (started, finished), are written at the next tick. */
#define CLUSTER_SUMMARY_MS 3000

/* The lobby of the other servers: each server writes the summaries of its
 * matches that changed since they were last written (at a tick, at most one
 * a second each; CLUSTER_SUMMARY_MS apart while only turns change). */
static void write_summaries(struct cluster *cl)
{
    srv *s = cl->s;
    uint64_t now = uv_now(s->loop);
    for (match *m = s->matches; m; m = m->next) {
        if (m->summary_turns == m->turns + 1 && m->summary_status == m->status)
            continue;
        if (m->summary_turns && m->summary_status == m->status &&
            now - m->summary_ms < CLUSTER_SUMMARY_MS)
            continue; /* only its turn and scores: in a while */
        json_t *sum = match_summary(m);
        char *text = sum ? json_dumps(sum, JSON_COMPACT) : NULL;
        json_decref(sum);
        if (text && journal_set_summary(s->db, m->id, text) == 0) {
            m->summary_turns = m->turns + 1;
            m->summary_status = m->status;
            m->summary_ms = now;
        }
        free(text);
    }
}

/* ---- roles: what one server of the cluster does for all (courses) -------------------------- */

bool cluster_claim_role(srv *s, const char *role)
{
    if (!journal_shared(s->db))
        return true; /* one server: it is everything */
    db_stmt *q = NULL;
    bool held = false;
    if (db_prepare(journal_db(s->db),
                   "INSERT INTO tessera_roles(role, instance) VALUES(?1, ?2) ON CONFLICT(role) DO "
                   "UPDATE SET instance = excluded.instance WHERE tessera_roles.instance = "
                   "excluded.instance OR NOT EXISTS (SELECT 1 FROM tessera_instances i WHERE "
                   "i.id = tessera_roles.instance AND i.expires_at > clock_timestamp()) "
                   "RETURNING instance",
                   &q) == DB_OK) {
        db_bind_text(q, 1, role, -1);
        db_bind_text(q, 2, s->instance, -1);
        held = db_step(q) == DB_ROW;
    }
    db_finalize(q);
    srv_log(LOG_INFO, "role", "{s:s, s:b}", "role", role, "held", held);
    return held;
}

/* The server holding role: its index, -1 when it is this one or none. */
static int role_holder(struct cluster *cl, const char *role)
{
    db_stmt *q = NULL;
    int who = -1;
    if (db_prepare(journal_db(cl->s->db), "SELECT instance FROM tessera_roles WHERE role = ?", &q) ==
        DB_OK) {
        db_bind_text(q, 1, role, -1);
        if (db_step(q) == DB_ROW && db_column_text(q, 0))
            who = inst_index(cl, db_column_text(q, 0), strlen(db_column_text(q, 0)));
    }
    db_finalize(q);
    return who == cl->self ? -1 : who;
}

bool cluster_has_role(srv *s, const char *role)
{
    struct cluster *cl = s->cluster;
    return cl && role_holder(cl, role) >= 0;
}

void cluster_get_stats(const srv *s, cluster_stats *out)
{
    memset(out, 0, sizeof *out);
    const struct cluster *cl = s->cluster;
    if (!cl)
        return;
    *out = cl->st;
    out->redis_up = redis_up(cl);
}
