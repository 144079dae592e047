/*
 * pg.c — the journal on PostgreSQL (journal_int.h): the tables, the
 * lease, a batch sent as one asynchronous transaction.
 *
 * Batches. The journal's batch (journal.c) is written as SQL text, its
 * strings quoted here (standard-conforming strings, checked at connect: a
 * quote is doubled, nothing else is special) so that a whole batch goes in
 * one PQsendQuery: a simple query of several statements is one transaction
 * to PostgreSQL, committed (and flushed to its WAL) at its end. The answer
 * arrives through a uv_poll on the connection's socket. One batch in flight
 * at a time: the moves of a whole loop round, or more while one commits,
 * share a commit. Every other statement on the connection waits for the
 * batch in flight (journal.c's hook, pg_wait), so the order is the program's.
 *
 * The fence. Each batch starts with SELECT tessera_fence(instance, token,
 * batch number, lease): it renews this server's lease and records the
 * batch's number, in the same transaction as the batch, and raises TS001
 * when the instance row no longer carries this server's token (another
 * server took the lease over: docs/scaling.md). A batch whose answer was
 * lost with the connection is settled by reading the instance row back after
 * reconnecting: its number there says whether it committed. An idle server
 * sends a batch of the fence alone every JOURNAL_LEASE_BEAT_MS.
 *
 * Faults. A batch that fails (the server unreachable, a disk full, ...) puts
 * the journal in a fault (journal.c): it is sent again every
 * JOURNAL_RETRY_MS, reconnecting first, and nothing queued after it is
 * announced until it commits. Fenced out, the server stops (exit 1) without
 * announcing anything more.
 */
#include <errno.h>
#include <inttypes.h>
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "journal_int.h"

/* The layout of the PostgreSQL tables (meta 'schema'). It starts at the
 * SQLite journal's current layout, plus matches.owner and the instances. */
#define PG_SCHEMA 1

struct journal_backend {
    journal *j;
    PGconn *c;         /* db_pg(j->dbh) when the poll was set up on it */
    uv_poll_t *poll;   /* on c's socket (malloc'd: closed and made anew per socket) */
    int poll_events;
    uv_timer_t tick;   /* the idle heartbeat */
    bool started, stopping;
    int64_t token;     /* this process's lease token */
    int lease_ms;
    textbuf sql;       /* the query in flight (a C string, as libpq reads it) */
    int64_t batch_no;  /* the number of the last batch sent (the fence records it) */
    bool in_flight;    /* a query is in flight: a batch, or ... */
    bool beat;         /* ... the heartbeat, the fence alone */
    bool unsettled;    /* the last batch's answer was lost with its connection: it may
                          have committed (settle_lost_batch finds out) */
    bool own;          /* a synchronous statement of ours runs (journal.c lets it be) */
    int result_code;   /* the first error among the in-flight query's results */
    char result_msg[300];
    uint64_t last_sent_ms; /* loop ms of the last query sent */
    int rows_in_flight;    /* rows of the batch in flight */
    uint64_t nbatches, nrows, most_per_batch; /* figures for the log: batches, rows */
};

/* ---- text ------------------------------------------------------------------------------- */

/* The batches' text is a textbuf (engine/textbuf.h): it grows, and says
 * when it could not (failed). */

/* A string literal: quotes doubled (standard_conforming_strings is on). */
static void put_lit(textbuf *t, const char *s, size_t n)
{
    tb_put(t, "'", 1);
    const char *start = s, *end = s + n;
    for (const char *q = s; q < end; q++)
        if (*q == '\'') {
            tb_put(t, start, (size_t)(q - start + 1));
            start = q; /* the quote again: doubled */
        }
    tb_put(t, start, (size_t)(end - start));
    tb_put(t, "'", 1);
}

static void put_str(textbuf *t, const char *s)
{
    if (s)
        put_lit(t, s, strlen(s));
    else
        tb_put(t, "NULL", 4);
}


/* ---- the schema --------------------------------------------------------------------------- */

static const char schema[] =
    "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS matches("
    "  id TEXT PRIMARY KEY, game TEXT NOT NULL, rules TEXT NOT NULL, seats TEXT NOT NULL,"
    "  time_control TEXT NOT NULL, policies TEXT NOT NULL, seed INTEGER NOT NULL,"
    "  status INTEGER NOT NULL, created INTEGER NOT NULL, finished INTEGER, result TEXT,"
    "  demo INTEGER NOT NULL DEFAULT 0, move_encoding INTEGER NOT NULL DEFAULT 1,"
    "  chance_nonce TEXT, owner TEXT, summary TEXT);"
    "CREATE TABLE IF NOT EXISTS moves("
    "  match TEXT NOT NULL, ply INTEGER NOT NULL, move INTEGER NOT NULL, by TEXT, reason TEXT,"
    "  at INTEGER NOT NULL, think_ms INTEGER, wait_ms INTEGER, PRIMARY KEY(match, ply));"
    "CREATE INDEX IF NOT EXISTS matches_status ON matches(status, created);"
    "CREATE INDEX IF NOT EXISTS matches_owner ON matches(owner, status);"
    "CREATE TABLE IF NOT EXISTS resume_tokens(token TEXT PRIMARY KEY, match TEXT NOT NULL,"
    "  seat INTEGER NOT NULL);"
    "CREATE TABLE IF NOT EXISTS tessera_roles(role TEXT PRIMARY KEY, instance TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS tessera_instances(id TEXT PRIMARY KEY, token INTEGER NOT NULL,"
    "  address TEXT, started INTEGER NOT NULL, expires_at TIMESTAMPTZ NOT NULL,"
    "  batch INTEGER NOT NULL DEFAULT 0);"
    /* the fence: renew the lease and count the batch, or refuse (TS001) */
    "CREATE OR REPLACE FUNCTION tessera_fence(inst TEXT, tok BIGINT, nbatch BIGINT, ttl_ms BIGINT)"
    " RETURNS BIGINT LANGUAGE plpgsql AS $f$ BEGIN"
    "  UPDATE tessera_instances SET batch = nbatch,"
    "    expires_at = clock_timestamp() + ttl_ms * interval '1 millisecond'"
    "   WHERE id = inst AND token = tok;"
    "  IF NOT FOUND THEN"
    "    RAISE EXCEPTION 'the lease of instance % was taken over by another server', inst"
    "      USING ERRCODE = 'TS001';"
    "  END IF;"
    "  RETURN nbatch;"
    " END $f$;";

/* Create the tables, or check that the ones there are a layout we read. */
static int pg_schema(journal_backend *p, char *err, size_t errcap)
{
    db_conn *d = p->j->dbh;
    if (db_schema_lock(d) || db_exec(d, schema)) {
        snprintf(err, errcap, "PostgreSQL: creating the journal's tables: %s", db_errmsg(d));
        db_schema_unlock(d);
        return ENG_ESTORAGE;
    }
    db_stmt *q = NULL;
    int rc = db_prepare(d, "SELECT value FROM meta WHERE key='schema'", &q);
    const char *v = NULL;
    char version[40] = "";
    if (rc == DB_OK && (rc = db_step(q)) == DB_ROW && (v = db_column_text(q, 0)))
        snprintf(version, sizeof version, "%.32s", v);
    db_finalize(q);
    if (rc < 0) {
        snprintf(err, errcap, "PostgreSQL: reading the schema version: %s", db_errmsg(d));
        db_schema_unlock(d);
        return ENG_ESTORAGE;
    }
    if (!version[0]) {
        char sql[120];
        snprintf(sql, sizeof sql,
                 "INSERT INTO meta VALUES('schema','%d') ON CONFLICT(key) DO NOTHING", PG_SCHEMA);
        if (db_exec(d, sql)) {
            snprintf(err, errcap, "PostgreSQL: %s", db_errmsg(d));
            db_schema_unlock(d);
            return ENG_ESTORAGE;
        }
    } else if (strtol(version, NULL, 10) != PG_SCHEMA ||
               strspn(version, "0123456789") != strlen(version)) {
        for (char *ch = version; *ch; ch++)
            if ((unsigned char)*ch < 0x20 || (unsigned char)*ch > 0x7e)
                *ch = '?';
        snprintf(
            err, errcap,
            "PostgreSQL database has journal schema version '%s'; this tessera reads version "
            "%d (was it written by a newer tessera?): refusing to use it rather than misread it",
            version, PG_SCHEMA);
        db_schema_unlock(d);
        return ENG_EBAD_VERSION;
    }
    db_schema_unlock(d);
    return 0;
}

static int register_instance(journal_backend *p, char *err, size_t errcap)
{
    uint64_t r = 0;
    if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r) {
        snprintf(err, errcap, "no random bytes for the lease token: %s", strerror(errno));
        return ENG_EINTERNAL;
    }
    p->token = (int64_t)(r >> 1);
    if (p->token == 0)
        p->token = 1;
    db_stmt *q = NULL;
    int rc =
        db_prepare(p->j->dbh,
                   "INSERT INTO tessera_instances(id, token, address, started, expires_at, batch)"
                   " VALUES(?1, ?2, ?3, ?4, clock_timestamp() + ?5 * interval '1 millisecond', 0)"
                   " ON CONFLICT(id) DO UPDATE SET token = excluded.token,"
                   " address = excluded.address, started = excluded.started,"
                   " expires_at = excluded.expires_at, batch = 0",
                   &q);
    if (rc == DB_OK) {
        db_bind_text(q, 1, p->j->instance, -1);
        db_bind_int64(q, 2, p->token);
        db_bind_text(q, 3, p->j->address, -1);
        db_bind_int64(q, 4, srv_epoch_ms());
        db_bind_int64(q, 5, p->lease_ms);
        rc = db_step(q);
    }
    db_finalize(q);
    if (rc < 0) {
        snprintf(err, errcap, "PostgreSQL: registering instance '%s': %s", p->j->instance,
                 db_errmsg(p->j->dbh));
        return ENG_ESTORAGE;
    }
    srv_log(LOG_INFO, "instance_registered", "{s:s, s:i}", "instance", p->j->instance, "lease_ms",
            p->lease_ms);
    return 0;
}

/* Settings the batches' quoting and the server's clock rely on. */
static int check_conn(journal_backend *p, char *err, size_t errcap)
{
    PGconn *c = db_pg(p->j->dbh);
    const char *scs = PQparameterStatus(c, "standard_conforming_strings");
    if (!scs || strcmp(scs, "on") != 0) {
        snprintf(
            err, errcap,
            "PostgreSQL: standard_conforming_strings is off on this server; tessera needs it on "
            "(the default since PostgreSQL 9.1)");
        return ENG_ESTORAGE;
    }
    return 0;
}


/* ---- the engine -------------------------------------------------------------------------- */

/* The target as logs show it: the connection's parts without its password. */
static void describe(const char *target, char *out, size_t cap)
{
    const char *info = strncmp(target, "pg:", 3) == 0 ? target + 3 : target;
    PQconninfoOption *opts = PQconninfoParse(info, NULL);
    size_t n = (size_t)snprintf(out, cap, "postgresql:");
    for (PQconninfoOption *o = opts; o && o->keyword && n < cap; o++)
        if (o->val && o->val[0] &&
            (!strcmp(o->keyword, "host") || !strcmp(o->keyword, "hostaddr") ||
             !strcmp(o->keyword, "port") || !strcmp(o->keyword, "dbname") ||
             !strcmp(o->keyword, "user")))
            n += (size_t)snprintf(out + n, cap - n, " %s=%s", o->keyword, o->val);
    PQconninfoFree(opts);
}

static int pg_open(journal *j, const char *target, journal_backend **out, char *err,
                   size_t errcap)
{
    journal_backend *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, errcap, "out of memory");
        return ENG_ENOMEM;
    }
    p->j = j;
    p->lease_ms = j->cfg.lease_ms > 0 ? j->cfg.lease_ms : JOURNAL_LEASE_MS;
    describe(target, j->target, sizeof j->target);
    char why[400];
    if (db_open(target, &j->dbh, why, sizeof why) != DB_OK) {
        snprintf(err, errcap, "%s", why);
        free(p);
        return ENG_ESTORAGE;
    }
    int rc = check_conn(p, err, errcap);
    if (!rc)
        rc = pg_schema(p, err, errcap);
    if (!rc)
        rc = register_instance(p, err, errcap);
    if (rc) {
        db_close(j->dbh);
        j->dbh = NULL;
        free(p);
        return rc;
    }
    if (j->cfg.durable) /* every PostgreSQL commit is flushed before it is acknowledged */
        srv_log(LOG_INFO, "durable_postgres", "{s:s}", "note",
                "--durable is the default on PostgreSQL: every batch is committed and flushed "
                "by the database before anything in it is announced");
    *out = p;
    return 0;
}

static void poll_update(journal_backend *p);
static void settle_lost_batch(journal_backend *p);
static void receive(journal_backend *p, bool block);

static void fenced_out(journal_backend *p, const char *msg)
{
    const char *inst = p->j->instance;
    srv_log(LOG_ERROR, "lease_lost", "{s:s, s:s, s:s}", "instance", inst, "reason", msg, "note",
            "another server holds this instance's lease (its matches are taken over, or a second "
            "server runs with the same [cluster] instance): stopping without announcing more");
    fprintf(stderr,
            "tessera serve: the lease of instance '%s' was taken over by another server (%s); "
            "stopping\n",
            inst, msg);
    _exit(1);
}

/* The query in flight failed (or could not go): a fault of the journal. */
static void failed(journal_backend *p, int code, const char *msg)
{
    bool batch = p->in_flight && !p->beat;
    if (p->in_flight && code == DB_ELOST && !p->beat)
        p->unsettled = true;
    p->in_flight = p->beat = false;
    if (code == DB_EFENCED)
        fenced_out(p, msg);
    journal__failed(p->j, journal__kind_of_db(code), "batch", NULL, msg, 0);
    if (batch)
        journal__batch_done(p->j, false);
}

/* The batch in flight is stored. */
static void stored(journal_backend *p)
{
    journal *j = p->j;
    p->unsettled = false;
    p->nbatches++;
    p->nrows += (uint64_t)p->rows_in_flight;
    if ((uint64_t)p->rows_in_flight > p->most_per_batch)
        p->most_per_batch = (uint64_t)p->rows_in_flight;
    j->synced = j->committed;
    journal__batch_done(j, true);
}

/* Send p->sql (the fence first) if the connection can take it. */
static int send_query(journal_backend *p, bool beat)
{
    PGconn *c = db_pg(p->j->dbh);
    if (!c || PQstatus(c) != CONNECTION_OK) {
        /* lost (here or under another statement): connect again first */
        if (db_reconnect(p->j->dbh) != DB_OK || !(c = db_pg(p->j->dbh))) {
            journal__failed(p->j, JF_UNREACHABLE, "batch", NULL, db_errmsg(p->j->dbh), 0);
            return JOURNAL_FAILED;
        }
    }
    if (c != p->c)
        poll_update(p); /* a new connection: its socket */
    if (p->sql.failed) {
        tb_reset(&p->sql);
        journal__failed(p->j, JF_OTHER, "batch", NULL, "out of memory for the journal's batch", 0);
        return JOURNAL_FAILED;
    }
    p->result_code = DB_OK;
    p->result_msg[0] = 0;
    if (!PQsendQuery(c, p->sql.p)) {
        journal__failed(p->j, journal__kind_of_db(db_pg_set_error(p->j->dbh, NULL)), "batch",
                        NULL, PQerrorMessage(c), 0);
        return JOURNAL_FAILED;
    }
    p->in_flight = true;
    p->beat = beat;
    p->last_sent_ms = journal__now(p->j);
    poll_update(p);
    return JOURNAL_SENT;
}

/* The fence that begins every query: renew the lease, count the batch. */
static void put_fence(journal_backend *p)
{
    tb_reset(&p->sql);
    p->batch_no++;
    tb_puts(&p->sql, "SELECT tessera_fence(");
    put_str(&p->sql, p->j->instance);
    tb_printf(&p->sql, ", %" PRId64 ", %" PRId64 ", %d);", p->token, p->batch_no, p->lease_ms);
}

/* A batch's rows as SQL statements: a turn's moves (and a seat's new
 * tokens) as one INSERT each. */
static void put_rows(textbuf *t, const journal_batch *b)
{
    for (int i = 0; i < b->n; i++) {
        const journal_row *r = &b->row[i];
        const char *id = jrow_str(b, r->match);
        const journal_row *next = i + 1 < b->n ? &b->row[i + 1] : NULL;
        bool more = next && next->kind == r->kind && next->match == r->match;
        bool first = i == 0 || b->row[i - 1].kind != r->kind || b->row[i - 1].match != r->match;
        switch (r->kind) {
        case JR_MOVE:
            tb_puts(t, first ? "INSERT INTO moves(match,ply,move,by,reason,at,think_ms,wait_ms) "
                               "VALUES("
                             : ",(");
            put_str(t, id);
            tb_printf(t, ",%d,%d,", r->n, (int)r->move);
            put_str(t, jrow_str(b, r->a));
            tb_puts(t, ",");
            put_str(t, jrow_str(b, r->b));
            tb_printf(t, ",%" PRId64 ",", r->at);
            if (r->think_ms >= 0)
                tb_printf(t, "%" PRId64 ",", r->think_ms);
            else
                tb_puts(t, "NULL,");
            if (r->wait_ms >= 0)
                tb_printf(t, "%" PRId64 ")", r->wait_ms);
            else
                tb_puts(t, "NULL)");
            if (!more)
                tb_puts(t, ";");
            break;
        case JR_TOKEN:
            tb_puts(t, first ? "INSERT INTO resume_tokens(token, match, seat) VALUES(" : ",(");
            put_str(t, jrow_str(b, r->a));
            tb_puts(t, ",");
            put_str(t, id);
            tb_printf(t, ",%d)", r->n);
            if (!more)
                tb_puts(t, " ON CONFLICT DO NOTHING;");
            break;
        case JR_SEATS:
            tb_puts(t, "UPDATE matches SET seats=");
            put_str(t, jrow_str(b, r->a));
            tb_printf(t, ", status=%d WHERE id=", r->n);
            put_str(t, id);
            tb_puts(t, ";");
            break;
        case JR_FINISH:
            tb_printf(t, "UPDATE matches SET status=%d, finished=%" PRId64 ", result=", r->n,
                      r->at);
            put_str(t, jrow_str(b, r->b));
            tb_puts(t, ", seats=");
            put_str(t, jrow_str(b, r->a));
            tb_puts(t, " WHERE id=");
            put_str(t, id);
            tb_puts(t, ";");
            break;
        case JR_SUMMARY:
            tb_puts(t, "UPDATE matches SET summary=");
            put_str(t, jrow_str(b, r->a));
            tb_puts(t, " WHERE id=");
            put_str(t, id);
            tb_puts(t, ";");
            break;
        }
    }
}

static int pg_write(journal_backend *p, const journal_batch *b)
{
    journal *j = p->j;
    if (p->in_flight || p->own || db_in_transaction(j->dbh))
        return JOURNAL_BUSY;
    if (p->unsettled) {
        /* the batch whose answer was lost may have committed: ask first */
        settle_lost_batch(p);
        if (p->unsettled)
            return JOURNAL_FAILED; /* cannot tell yet: nothing may go before it */
        if (j->synced == j->committed) {
            journal__ok(j);
            return JOURNAL_STORED; /* it had: not again */
        }
    }
    put_fence(p);
    put_rows(&p->sql, b);
    p->rows_in_flight = b->n;
    int rc = send_query(p, false);
    if (rc == JOURNAL_SENT)
        j->committed++;
    return rc;
}

/* Read what has arrived; finish the query when its last result is in.
 * block: wait for it (a synchronous statement is about to run). */
static void receive(journal_backend *p, bool block)
{
    PGconn *c = p->c; /* the connection the query went out on */
    if (!p->in_flight)
        return;
    if (!c || c != db_pg(p->j->dbh)) {
        failed(p, DB_ELOST, "the connection to PostgreSQL was lost");
        return;
    }
    if (block) {
        PQsetnonblocking(c, 0);
        while (PQflush(c) > 0) {
        }
    } else if (PQflush(c) < 0 || !PQconsumeInput(c)) {
        failed(p, db_pg_set_error(p->j->dbh, NULL), PQerrorMessage(c));
        return;
    }
    for (;;) {
        if (!block && PQisBusy(c)) {
            poll_update(p);
            return;
        }
        PGresult *r = PQgetResult(c);
        if (!r)
            break;
        ExecStatusType st = PQresultStatus(r);
        if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK && p->result_code == DB_OK) {
            p->result_code = db_pg_set_error(p->j->dbh, r);
            snprintf(p->result_msg, sizeof p->result_msg, "%s", db_errmsg(p->j->dbh));
        }
        PQclear(r);
    }
    if (block)
        PQsetnonblocking(c, 1);
    if (PQstatus(c) != CONNECTION_OK && p->result_code == DB_OK) {
        /* the connection went with the query's answer */
        p->result_code = DB_ELOST;
        snprintf(p->result_msg, sizeof p->result_msg, "%s", PQerrorMessage(c));
    }
    poll_update(p);
    if (p->result_code != DB_OK) {
        failed(p, p->result_code, p->result_msg);
        return;
    }
    bool beat = p->beat;
    p->in_flight = p->beat = false;
    if (beat)
        journal__ok(p->j);
    else
        stored(p);
}

static void on_poll_closed(uv_handle_t *h)
{
    free(h);
}

static void on_poll(uv_poll_t *h, int status, int events)
{
    journal_backend *p = h->data;
    (void)events;
    if (status < 0) {
        failed(p, DB_ELOST, uv_strerror(status));
        return;
    }
    receive(p, false);
}

/* Keep the poll on the current connection's socket, watching for
 * readability while a query is in flight and writability while libpq has
 * output buffered. */
static void poll_update(journal_backend *p)
{
    PGconn *c = db_pg(p->j->dbh);
    if (c != p->c || (p->poll && (!c || PQsocket(c) < 0))) {
        if (p->poll) {
            uv_close((uv_handle_t *)p->poll, on_poll_closed);
            p->poll = NULL;
        }
        p->c = c;
        p->poll_events = 0;
    }
    if (!c || PQsocket(c) < 0 || !p->started)
        return;
    if (!p->poll) {
        if (PQsetnonblocking(c, 1) != 0)
            return;
        p->poll = malloc(sizeof *p->poll);
        if (!p->poll || uv_poll_init(p->j->cfg.loop, p->poll, PQsocket(c)) != 0) {
            free(p->poll);
            p->poll = NULL;
            return;
        }
        p->poll->data = p;
    }
    int want = 0;
    if (p->in_flight)
        want |= UV_READABLE;
    if (p->in_flight && PQflush(c) == 1)
        want |= UV_WRITABLE;
    if (want == p->poll_events)
        return;
    p->poll_events = want;
    if (want)
        uv_poll_start(p->poll, want, on_poll);
    else
        uv_poll_stop(p->poll);
}

/* Whether the batch whose answer was lost committed: the instance row
 * says which batch number last committed (the fence wrote it). */
static void settle_lost_batch(journal_backend *p)
{
    journal *j = p->j;
    db_stmt *q = NULL;
    p->own = true;
    int rc = db_prepare(j->dbh, "SELECT token, batch FROM tessera_instances WHERE id = ?", &q);
    if (rc == DB_OK) {
        db_bind_text(q, 1, j->instance, -1);
        rc = db_step(q);
    }
    p->own = false;
    if (rc < 0) { /* still cannot tell */
        db_finalize(q);
        return;
    }
    if (rc == DB_ROW && db_column_int64(q, 0) == p->token && db_column_int64(q, 1) >= p->batch_no) {
        db_finalize(q);
        srv_log(LOG_INFO, "journal_batch_settled", "{s:I, s:s}", "batch", (json_int_t)p->batch_no,
                "outcome", "committed before the connection was lost");
        p->unsettled = false;
        j->synced = j->committed;
        return;
    }
    bool gone = rc == DB_DONE || (rc == DB_ROW && db_column_int64(q, 0) != p->token);
    db_finalize(q);
    if (gone)
        fenced_out(p, "the instance's lease row is gone or carries another token");
    p->unsettled = false; /* it did not commit: it goes again */
}

/* The heartbeat: an idle server's lease must not expire. */
static void on_tick(uv_timer_t *t)
{
    journal_backend *p = t->data;
    journal *j = p->j;
    if (p->stopping || p->in_flight || p->own || j->fault || j->failed || j->in_flight)
        return;
    if (journal__now(j) - p->last_sent_ms < JOURNAL_LEASE_BEAT_MS || db_in_transaction(j->dbh))
        return;
    put_fence(p);
    send_query(p, true);
}

/* db.h: the connection is about to be closed and replaced. */
static void on_lost(void *arg)
{
    journal_backend *p = arg;
    if (p->in_flight)
        failed(p, DB_ELOST, "the connection to PostgreSQL was lost");
    if (p->poll) {
        uv_close((uv_handle_t *)p->poll, on_poll_closed);
        p->poll = NULL;
    }
    p->c = NULL;
    p->poll_events = 0;
}

static void pg_start(journal_backend *p)
{
    journal *j = p->j;
    p->started = true;
    db_set_on_lost(j->dbh, on_lost, p);
    uv_timer_init(j->cfg.loop, &p->tick);
    p->tick.data = p;
    uv_timer_start(&p->tick, on_tick, JOURNAL_RETRY_MS / 4, JOURNAL_RETRY_MS / 4);
    uv_unref((uv_handle_t *)&p->tick);
    p->last_sent_ms = journal__now(j);
    poll_update(p);
}

static void pg_wait(journal_backend *p)
{
    if (p->in_flight && !p->own)
        receive(p, true);
}

/* During a fault with nothing to send again: the fence alone, now. */
static int pg_probe(journal_backend *p, char *msg, size_t msgcap)
{
    journal *j = p->j;
    PGconn *c = db_pg(j->dbh);
    if ((!c || PQstatus(c) != CONNECTION_OK) && db_reconnect(j->dbh) != DB_OK) {
        snprintf(msg, msgcap, "%s", db_errmsg(j->dbh));
        journal__failed(j, JF_UNREACHABLE, "probe", NULL, msg, 0);
        return -1;
    }
    db_stmt *q = NULL;
    p->own = true;
    int rc = db_prepare(j->dbh, "SELECT tessera_fence(?1, ?2, ?3, ?4)", &q);
    if (rc == DB_OK) {
        db_bind_text(q, 1, j->instance, -1);
        db_bind_int64(q, 2, p->token);
        db_bind_int64(q, 3, p->batch_no);
        db_bind_int64(q, 4, p->lease_ms);
        rc = db_step(q);
    }
    p->own = false;
    snprintf(msg, msgcap, "%s", db_errmsg(j->dbh));
    db_finalize(q);
    if (rc == DB_EFENCED)
        fenced_out(p, msg);
    if (rc < 0) {
        journal__failed(j, journal__kind_of_db(rc), "probe", NULL, msg, 0);
        return -1;
    }
    return 0;
}

static bool pg_busy(const journal_backend *p)
{
    return p->own;
}

static void pg_stop(journal_backend *p, bool pending)
{
    journal *j = p->j;
    if (!p->started || p->stopping)
        return;
    p->stopping = true;
    uv_timer_stop(&p->tick);
    uv_close((uv_handle_t *)&p->tick, NULL);
    if (p->poll) {
        uv_close((uv_handle_t *)p->poll, on_poll_closed);
        p->poll = NULL;
    }
    srv_log(LOG_INFO, "journal_batches", "{s:I, s:I, s:I}", "batches", (json_int_t)p->nbatches,
            "rows", (json_int_t)p->nrows, "most_rows_per_batch",
            (json_int_t)p->most_per_batch);
    if (pending) {
        srv_log(LOG_ERROR, "journal_unsent", "{s:s}", "note",
                "the journal could not store its last writes; they were never announced");
        return;
    }
    /* give the lease up: another server takes this one's matches over now
     * rather than when the lease would have expired (a restart of this
     * server under the same name, if it comes first, keeps them) */
    db_stmt *q = NULL;
    p->own = true;
    if (db_prepare(j->dbh,
                   "UPDATE tessera_instances SET expires_at = clock_timestamp() - interval '1 "
                   "second' WHERE id = ? AND token = ?",
                   &q) == DB_OK) {
        db_bind_text(q, 1, j->instance, -1);
        db_bind_int64(q, 2, p->token);
        db_step(q);
    }
    p->own = false;
    db_finalize(q);
}

static void pg_close(journal_backend *p)
{
    if (p->poll) /* never started on a loop that ran: not closed by a callback */
        free(p->poll);
    tb_free(&p->sql);
    db_close(p->j->dbh);
    free(p);
}

const journal_ops journal_pg = {
    .name = "postgres",
    .shared = true,
    .open = pg_open,
    .start = pg_start,
    .stop = pg_stop,
    .close = pg_close,
    .begin = NULL,
    .write = pg_write,
    .wait = pg_wait,
    .probe = pg_probe,
    .busy = pg_busy,
    .round = NULL,
};
