/*
 * cluster.h — several tessera servers on one PostgreSQL database, with
 * Redis between them (cluster.c; docs/scaling.md).
 *
 * Every live match is owned by one server: the one that created it, or the
 * one that took it over when its owner's lease expired. Any server accepts
 * any client: a message about a match (or a tournament) another server owns
 * is forwarded to it over Redis, and what the owner says to that client comes
 * back the same way — the client never knows. The owner answers through a
 * connection object of its own that stands for the client (the transport
 * `forwarded` of conn.h), so
 * the handlers, the table and the journal's holds work unchanged.
 *
 * Without [cluster] redis a server on PostgreSQL still takes over the
 * matches of a dead server; it just cannot forward (a client must reach the
 * owner, and is told so). On SQLite none of this runs. Loop thread only.
 */
#ifndef TESSERA_SERVER_CLUSTER_H
#define TESSERA_SERVER_CLUSTER_H

#include "internal.h"

/* What the layers above the cluster do with what it brings — the handlers
 * take a forwarded client's messages, the services on the server
 * (tournaments, courses) follow the cluster's changes — set by server.c so
 * that cluster.c calls none of them. message and conn_closed are required,
 * the others may be NULL. */
typedef struct cluster_apps {
    /* A message of another server's client, on the connection standing for
     * it (a NUL-terminated buffer of len bytes, as net.c hands one): the
     * handlers' handle_message. */
    bool (*message)(conn *c, const char *buf, size_t len);
    /* That connection goes (its client left, or it is closed): the
     * handlers' handle_conn_closed. */
    void (*conn_closed)(conn *c);
    /* Within the takeover's transaction: the dead server's unfinished work
     * (its tournaments) becomes this server's. 0, or -1 (rolled back). */
    int (*claim)(srv *s, const char *dead);
    /* After the dead server's matches were restored here: resume what
     * claim took. */
    void (*taken_over)(srv *s);
    /* The server owning tournament id, into name: 1, 0 when none (or this
     * one), -1 on an error. */
    int (*tour_owner)(srv *s, int64_t id, char *name, size_t cap);
    /* Every tick: what the other servers' lists show (summaries). */
    void (*tick)(srv *s);
    /* A dead server's role is this server's now: 0 when its work runs here
     * (role_taken_over is logged), -1 when it could not start (logged). */
    int (*role_gained)(srv *s, const char *role);
} cluster_apps;

/* Start (after the journal is open and the matches restored): the takeover
 * tick and, with [cluster] redis, the Redis links; apps is copied. 0, or -1
 * with err. */
int cluster_start(srv *s, const cluster_apps *apps, char *err, size_t errcap);
/* Stop the timers and the Redis links (shutdown). */
void cluster_stop(srv *s);
void cluster_free(srv *s);
/* Does this server share a database with others (PostgreSQL)? */
bool cluster_on(const srv *s);
/* Is its link to the other servers (Redis) being made for the first time
 * (neither up yet nor failed once)? */
bool cluster_linking(const srv *s);

/* Route a decoded client message: true when another server owns what it is
 * about and it was forwarded there (or refused with an error because it
 * cannot be); false: handle it here. raw/len: the message as received. */
bool cluster_route(conn *c, const proto_msg *m, const char *raw, size_t len);
/* A reply about a match (match_created, joined, resumed, spectating) that
 * reaches its client through another server (c is forwarded here) names
 * where this server is reached, [cluster] address, as "owner_url": a
 * client that connects there plays without the hop. Returns reply. */
json_t *cluster_owner_hint(conn *c, json_t *reply);
/* A connection of ours closed: the owners it talked to let it go. */
void cluster_conn_closed(conn *c);

/* The live matches other servers own, for the lobby (a JSON array of
 * summaries, new reference), at most `max`. */
json_t *cluster_remote_matches(srv *s, int status_filter, int max);

/* The coordinator: the role of the one server of a cluster that holds what
 * must be in one place — the registered bots, the tournaments (they seat
 * them), the courses (their jobs, deadlines and uploads). */
#define CLUSTER_COORDINATOR "coordinator"
/* Roles: what one server of a cluster does for all of them. Claim role for this server: true when
 * it holds it now (no other live server does; always on SQLite). A dead
 * holder's roles go to whoever takes it over. */
bool cluster_claim_role(srv *s, const char *role);
/* Does another live server hold role (so its messages go there)? */
bool cluster_has_role(srv *s, const char *role);

/* Append to out the other servers' summaries that q reads — its rows: an
 * id (as text), the owner, the summary (JSON text) — but those this server
 * holds (held), each with "server": its owner. For the lists of matches
 * and tournaments. */
struct db_stmt;
void cluster_append_summaries(srv *s, struct db_stmt *q, bool (*held)(srv *, const char *),
                              json_t *out);

/* Figures for server_stats and /metrics. */
typedef struct cluster_stats {
    uint64_t forwarded;    /* messages sent to other servers' matches */
    uint64_t relayed;      /* messages from owners to our clients */
    uint64_t served;       /* messages other servers forwarded to us */
    uint64_t takeovers;    /* dead servers whose matches this one took */
    uint64_t taken_matches; /* matches taken over */
    bool redis_up;
    int instances;         /* servers alive, this one included */
} cluster_stats;
void cluster_get_stats(const srv *s, cluster_stats *out);

#endif
