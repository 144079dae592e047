/*
 * store_pg.c — the journal on PostgreSQL (store_pg.h says what it promises).
 *
 * Batches. A write (a turn's moves, a seat change, a result) is written as
 * SQL text into the open batch, its strings quoted here (standard-conforming
 * strings, checked at connect: a quote is doubled, nothing else is special)
 * so that a whole batch goes in one PQsendQuery: a simple query of several
 * statements is one transaction to PostgreSQL, committed (and flushed to its
 * WAL) at its end. Before the loop waits for I/O (a uv_prepare), the open
 * batch is sent if none is in flight; the answer arrives through a uv_poll
 * on the connection's socket. One batch in flight at a time: the moves of a
 * whole loop iteration, or more while one commits, share a commit.
 *
 * The fence. Each batch starts with SELECT tessera_fence(instance, token,
 * batch number, lease): it renews this server's lease and records the
 * batch's number, in the same transaction as the batch, and raises TS001
 * when the instance row no longer carries this server's token (another
 * server took the lease over: docs/scaling.md). A batch whose answer was
 * lost with the connection is settled by reading the instance row back after
 * reconnecting: its number there says whether it committed. An idle server
 * sends a batch of the fence alone every SRV_LEASE_BEAT_MS.
 *
 * Faults. A batch that fails (the server unreachable, a disk full, ...) puts
 * the journal in a fault: new writes are refused (the matches pause, as on
 * SQLite), the failed batch with whatever was queued behind it is sent again
 * every SRV_STORAGE_RETRY_MS (reconnecting first), and nothing queued after
 * it is announced until it commits. Fenced out, the server stops (exit 1)
 * without announcing anything more.
 */
#include <errno.h>
#include <inttypes.h>
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "store_pg.h"

/* The layout of the PostgreSQL tables (meta 'schema'). It starts at the
 * SQLite journal's current layout, plus matches.owner and the instances. */
#define PG_SCHEMA 1


struct pgj {
    srv *s;
    db_conn *dbh;    /* the connection (also the synchronous one: store_db) */
    PGconn *c;       /* db_pg(dbh) when the poll was set up on it */
    uv_poll_t *poll; /* on c's socket (malloc'd: closed and made anew per socket) */
    int poll_events;
    uv_prepare_t prep; /* sends the open batch before the loop waits */
    uv_timer_t tick;   /* retries in a fault, the idle heartbeat */
    bool started, stopping;
    char instance[SRV_INSTANCE_MAX + 1];
    int64_t token; /* this process's lease token */
    int lease_ms;
    /* batches */
    textbuf open;      /* statements not yet sent */
    textbuf sent;      /* the batch in flight, or the failed one to send again */
    uint64_t committed; /* writes accepted so far (the hold numbers) */
    uint64_t sent_upto; /* the writes the batch in flight holds */
    uint64_t synced;    /* writes known committed */
    int64_t batch_no;   /* the number of the last batch sent */
    bool in_flight;
    bool failed_batch; /* `sent` holds a batch that failed: send it again */
    bool unsettled;    /* ... whose answer was lost with its connection: it may
                          have committed (settle_lost_batch finds out) */
    bool busy;         /* our own synchronous statement runs (no before_sync) */
    int result_code;   /* the first error among the in-flight batch's results */
    char result_msg[300];
    uint64_t sent_ns;      /* uv_hrtime() when the batch in flight was sent */
    uint64_t last_sent_ms; /* loop ms of the last batch sent */
    uint64_t up_since;     /* loop ms since which the journal works (start, or the end
                              of its last fault) */
    /* faults */
    int fault;           /* JF_NONE or its kind */
    int64_t fault_since; /* epoch ms */
    char fault_msg[300];
    /* figures for the log */
    uint64_t nbatches, most_per_batch;
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
static int pg_schema(pgj *j, char *err, size_t errcap)
{
    db_conn *d = j->dbh;
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

/* ---- the instance -----------------------------------------------------------------------------
 */

static int register_instance(pgj *j, char *err, size_t errcap)
{
    uint64_t r = 0;
    if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r) {
        snprintf(err, errcap, "no random bytes for the lease token: %s", strerror(errno));
        return ENG_EINTERNAL;
    }
    j->token = (int64_t)(r >> 1);
    if (j->token == 0)
        j->token = 1;
    db_stmt *q = NULL;
    int rc =
        db_prepare(j->dbh,
                   "INSERT INTO tessera_instances(id, token, address, started, expires_at, batch)"
                   " VALUES(?1, ?2, ?3, ?4, clock_timestamp() + ?5 * interval '1 millisecond', 0)"
                   " ON CONFLICT(id) DO UPDATE SET token = excluded.token,"
                   " address = excluded.address, started = excluded.started,"
                   " expires_at = excluded.expires_at, batch = 0",
                   &q);
    if (rc == DB_OK) {
        db_bind_text(q, 1, j->instance, -1);
        db_bind_int64(q, 2, j->token);
        db_bind_text(q, 3, j->s->cfg.cluster_address ? j->s->cfg.cluster_address : "", -1);
        db_bind_int64(q, 4, srv_epoch_ms());
        db_bind_int64(q, 5, j->lease_ms);
        rc = db_step(q);
    }
    db_finalize(q);
    if (rc < 0) {
        snprintf(err, errcap, "PostgreSQL: registering instance '%s': %s", j->instance,
                 db_errmsg(j->dbh));
        return ENG_ESTORAGE;
    }
    srv_log(LOG_INFO, "instance_registered", "{s:s, s:i}", "instance", j->instance, "lease_ms",
            j->lease_ms);
    return 0;
}

/* Settings the batches' quoting and the server's clock rely on. */
static int check_conn(pgj *j, char *err, size_t errcap)
{
    PGconn *c = db_pg(j->dbh);
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

int pgj_open(srv *s, const char *target, pgj **out, db_conn **dbh, char *err, size_t errcap)
{
    *out = NULL;
    pgj *j = calloc(1, sizeof *j);
    if (!j) {
        snprintf(err, errcap, "out of memory");
        return ENG_ENOMEM;
    }
    j->s = s;
    j->lease_ms = s->cfg.lease_ms > 0 ? s->cfg.lease_ms : SRV_LEASE_MS;
    snprintf(j->instance, sizeof j->instance, "%s", s->instance);
    char why[400];
    if (db_open(target, &j->dbh, why, sizeof why) != DB_OK) {
        snprintf(err, errcap, "%s", why);
        free(j);
        return ENG_ESTORAGE;
    }
    int rc = check_conn(j, err, errcap);
    if (!rc)
        rc = pg_schema(j, err, errcap);
    if (!rc)
        rc = register_instance(j, err, errcap);
    if (rc) {
        db_close(j->dbh);
        free(j);
        return rc;
    }
    *dbh = j->dbh;
    *out = j;
    return 0;
}

const char *pgj_instance(const pgj *j)
{
    return j->instance;
}

/* ---- sending and receiving
 * ------------------------------------------------------------------------ */

static void poll_update(pgj *j);
static void fenced_out(pgj *j, const char *msg);
static void settle_lost_batch(pgj *j);
static void on_poll_closed(uv_handle_t *h);

static const int jf_of_db[] = {
    [-DB_EFULL] = JF_DISK_FULL,    [-DB_EIO] = JF_IO_ERROR,     [-DB_EBUSY] = JF_LOCKED,
    [-DB_EREADONLY] = JF_READONLY, [-DB_ECORRUPT] = JF_CORRUPT, [-DB_ELOST] = JF_UNREACHABLE,
};

static int jf_kind(int code)
{
    if (code < 0 && -code < (int)(sizeof jf_of_db / sizeof jf_of_db[0]) && jf_of_db[-code])
        return jf_of_db[-code];
    return JF_OTHER;
}

static void batch_failed(pgj *j, int code, const char *msg)
{
    srv *s = j->s;
    if (j->in_flight && code == DB_ELOST)
        j->unsettled = true;
    j->in_flight = false;
    j->failed_batch = true;
    if (code == DB_EFENCED) {
        fenced_out(j, msg);
        return;
    }
    int kind = jf_kind(code);
    s->cnt.journal_faults[kind]++;
    srv_log(LOG_ERROR, "storage_error", "{s:s, s:s, s:s}", "what", "batch", "postgres", msg,
            "fault", srv_fault_names[kind]);
    if (j->fault != kind) {
        srv_log(LOG_ERROR, "journal_fault", "{s:s, s:s, s:s}", "fault", srv_fault_names[kind],
                "postgres", msg, "note",
                "matches that need the journal pause; the batch is sent again every second");
        if (!j->fault)
            j->fault_since = srv_epoch_ms();
        j->fault = kind;
    }
    snprintf(j->fault_msg, sizeof j->fault_msg, "%s", msg);
}

static void batch_done(pgj *j)
{
    srv *s = j->s;
    j->in_flight = false;
    j->failed_batch = false;
    j->unsettled = false;
    phist_add(&s->cnt.journal, (double)(uv_hrtime() - j->sent_ns) / 1e9);
    j->nbatches++;
    if (j->sent_upto - j->synced > j->most_per_batch)
        j->most_per_batch = j->sent_upto - j->synced;
    j->synced = j->sent_upto;
    tb_reset(&j->sent);
    if (j->fault) {
        srv_log(LOG_WARN, "journal_recovered", "{s:s, s:I}", "fault", srv_fault_names[j->fault],
                "after_ms", (json_int_t)(srv_epoch_ms() - j->fault_since));
        j->fault = JF_NONE;
        j->up_since = srv_now(s);
    }
    if (s->on_synced) /* net.c writes what waited for this commit */
        s->on_synced(s);
}

/* Send the open batch (with a failed one before it) if the connection is
 * free. A batch of the fence alone when `beat`. */
static void send_batch(pgj *j, bool beat)
{
    if (j->in_flight || j->busy || (!beat && !j->open.len && !j->failed_batch))
        return;
    PGconn *c = db_pg(j->dbh);
    if (!c || PQstatus(c) != CONNECTION_OK) {
        /* lost under another statement of the connection (db.h): a fault of
         * ours too, with nothing in flight to settle */
        if (!j->failed_batch || !j->fault)
            batch_failed(j, DB_ELOST, c ? PQerrorMessage(c) : "no connection to PostgreSQL");
        return;
    }
    if (db_in_transaction(j->dbh))
        return;
    if (j->unsettled) {
        settle_lost_batch(j);
        if (j->unsettled)
            return; /* cannot tell yet: nothing may go before it */
        if (!j->failed_batch && !beat && !j->open.len)
            return; /* it had committed, and nothing else waits */
    }
    if (c != j->c)
        poll_update(j); /* a new connection: its socket */
    /* the batch: the fence, then what failed before (its statements after
     * its own fence), then the open statements */
    textbuf b = TEXTBUF_INIT;
    j->batch_no++;
    tb_puts(&b, "SELECT tessera_fence(");
    put_str(&b, j->instance);
    tb_printf(&b, ", %" PRId64 ", %" PRId64 ", %d);", j->token, j->batch_no, j->lease_ms);
    if (j->failed_batch && j->sent.len) {
        const char *body = strchr(j->sent.p, ';'); /* after its fence */
        if (body)
            tb_put(&b, body + 1, j->sent.len - (size_t)(body + 1 - j->sent.p));
    }
    tb_put(&b, j->open.p ? j->open.p : "", j->open.len);
    if (b.failed || j->open.failed) {
        /* out of memory: the writes cannot be sent; keep trying */
        tb_free(&b);
        batch_failed(j, DB_ENOMEM, "out of memory for the journal's batch");
        return;
    }
    tb_free(&j->sent); /* a C string, as libpq reads it */
    j->sent = b;
    tb_reset(&j->open);
    j->sent_upto = j->committed;
    j->result_code = DB_OK;
    j->result_msg[0] = 0;
    if (!PQsendQuery(c, j->sent.p)) {
        batch_failed(j, db_pg_set_error(j->dbh, NULL), PQerrorMessage(c));
        return;
    }
    j->in_flight = true;
    j->failed_batch = false;
    j->sent_ns = uv_hrtime();
    j->last_sent_ms = srv_now(j->s);
    poll_update(j);
}

/* Read what has arrived; finish the batch when its last result is in.
 * block: wait for it (a synchronous statement is about to run). */
static void receive(pgj *j, bool block)
{
    PGconn *c = j->c; /* the connection the batch went out on */
    if (!j->in_flight)
        return;
    if (!c || c != db_pg(j->dbh)) {
        batch_failed(j, DB_ELOST, "the connection to PostgreSQL was lost");
        return;
    }
    if (block) {
        PQsetnonblocking(c, 0);
        while (PQflush(c) > 0) {
        }
    } else {
        int f = PQflush(c);
        if (f < 0) {
            batch_failed(j, db_pg_set_error(j->dbh, NULL), PQerrorMessage(c));
            return;
        }
        if (!PQconsumeInput(c)) {
            batch_failed(j, db_pg_set_error(j->dbh, NULL), PQerrorMessage(c));
            return;
        }
    }
    for (;;) {
        if (!block && PQisBusy(c)) {
            poll_update(j);
            return;
        }
        PGresult *r = PQgetResult(c);
        if (!r)
            break;
        ExecStatusType st = PQresultStatus(r);
        if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK && j->result_code == DB_OK) {
            j->result_code = db_pg_set_error(j->dbh, r);
            snprintf(j->result_msg, sizeof j->result_msg, "%s", db_errmsg(j->dbh));
        }
        PQclear(r);
    }
    if (block)
        PQsetnonblocking(c, 1);
    if (PQstatus(c) != CONNECTION_OK && j->result_code == DB_OK) {
        /* the connection went with the batch's answer */
        j->result_code = DB_ELOST;
        snprintf(j->result_msg, sizeof j->result_msg, "%s", PQerrorMessage(c));
    }
    if (j->result_code == DB_OK)
        batch_done(j);
    else
        batch_failed(j, j->result_code, j->result_msg);
}

static void on_poll_closed(uv_handle_t *h)
{
    free(h);
}

static void on_poll(uv_poll_t *h, int status, int events)
{
    pgj *j = h->data;
    (void)events;
    if (status < 0) {
        batch_failed(j, DB_ELOST, uv_strerror(status));
        return;
    }
    receive(j, false);
    if (!j->in_flight)
        send_batch(j, false);
}

/* Keep the poll on the current connection's socket, watching for
 * readability while a batch is in flight and writability while libpq has
 * output buffered. */
static void poll_update(pgj *j)
{
    PGconn *c = db_pg(j->dbh);
    if (c != j->c || (j->poll && (!c || PQsocket(c) < 0))) {
        if (j->poll) {
            uv_close((uv_handle_t *)j->poll, on_poll_closed);
            j->poll = NULL;
        }
        j->c = c;
        j->poll_events = 0;
    }
    if (!c || PQsocket(c) < 0 || !j->started)
        return;
    if (!j->poll) {
        if (PQsetnonblocking(c, 1) != 0)
            return;
        j->poll = malloc(sizeof *j->poll);
        if (!j->poll || uv_poll_init(j->s->loop, j->poll, PQsocket(c)) != 0) {
            free(j->poll);
            j->poll = NULL;
            return;
        }
        j->poll->data = j;
    }
    int want = 0;
    if (j->in_flight)
        want |= UV_READABLE;
    if (j->in_flight && PQflush(c) == 1)
        want |= UV_WRITABLE;
    if (want == j->poll_events)
        return;
    j->poll_events = want;
    if (want)
        uv_poll_start(j->poll, want, on_poll);
    else
        uv_poll_stop(j->poll);
}

/* Whether the batch whose answer was lost committed: the instance row
 * says which batch number last committed (the fence wrote it). */
static void settle_lost_batch(pgj *j)
{
    db_stmt *q = NULL;
    if (db_prepare(j->dbh, "SELECT token, batch FROM tessera_instances WHERE id = ?", &q))
        return;
    db_bind_text(q, 1, j->instance, -1);
    j->busy = true;
    int rc = db_step(q);
    j->busy = false;
    if (rc < 0) { /* still cannot tell */
        db_finalize(q);
        return;
    }
    if (rc == DB_ROW && db_column_int64(q, 0) == j->token && db_column_int64(q, 1) >= j->batch_no) {
        db_finalize(q);
        srv_log(LOG_INFO, "journal_batch_settled", "{s:I, s:s}", "batch", (json_int_t)j->batch_no,
                "outcome", "committed before the connection was lost");
        batch_done(j);
        return;
    }
    bool gone = rc == DB_DONE || (rc == DB_ROW && db_column_int64(q, 0) != j->token);
    db_finalize(q);
    if (gone)
        fenced_out(j, "the instance's lease row is gone or carries another token");
    j->unsettled = false; /* it did not commit: it goes again */
}

static void on_tick(uv_timer_t *t)
{
    pgj *j = t->data;
    if (j->stopping)
        return;
    if (j->failed_batch && !j->in_flight) {
        /* a fault: reconnect if need be, settle a batch lost with the
         * connection, send again */
        PGconn *c = db_pg(j->dbh);
        if ((!c || PQstatus(c) != CONNECTION_OK) && db_reconnect(j->dbh) != DB_OK) {
            batch_failed(j, DB_ELOST, db_errmsg(j->dbh));
            return;
        }
        send_batch(j, true);
        return;
    }
    if (!j->in_flight && srv_now(j->s) - j->last_sent_ms >= SRV_LEASE_BEAT_MS)
        send_batch(j, true); /* the heartbeat: the lease must not expire while idle */
}

static void on_prep(uv_prepare_t *h)
{
    pgj *j = h->data;
    if (!j->failed_batch)
        send_batch(j, false);
}

/* db.h calls this before every synchronous statement on the connection:
 * the batches before it go first, so that the connection's order is the
 * program's. */
static void before_sync(void *arg)
{
    pgj *j = arg;
    if (j->busy)
        return;
    if (j->in_flight)
        receive(j, true);
    if (!j->failed_batch && j->open.len && !db_in_transaction(j->dbh)) {
        send_batch(j, false);
        if (j->in_flight)
            receive(j, true);
    }
}

static void fenced_out(pgj *j, const char *msg)
{
    srv_log(LOG_ERROR, "lease_lost", "{s:s, s:s, s:s}", "instance", j->instance, "reason", msg,
            "note",
            "another server holds this instance's lease (its matches are taken over, or a second "
            "server runs with the same [cluster] instance): stopping without announcing more");
    fprintf(stderr,
            "tessera serve: the lease of instance '%s' was taken over by another server (%s); "
            "stopping\n",
            j->instance, msg);
    _exit(1);
}

/* db.h: the connection is about to be closed and replaced. */
static void on_lost(void *arg)
{
    pgj *j = arg;
    if (j->in_flight)
        batch_failed(j, DB_ELOST, "the connection to PostgreSQL was lost");
    if (j->poll) {
        uv_close((uv_handle_t *)j->poll, on_poll_closed);
        j->poll = NULL;
    }
    j->c = NULL;
    j->poll_events = 0;
}

void pgj_start(pgj *j)
{
    srv *s = j->s;
    j->started = true;
    db_set_before(j->dbh, before_sync, j);
    db_set_on_lost(j->dbh, on_lost, j);
    uv_prepare_init(s->loop, &j->prep);
    j->prep.data = j;
    uv_prepare_start(&j->prep, on_prep);
    uv_unref((uv_handle_t *)&j->prep);
    uv_timer_init(s->loop, &j->tick);
    j->tick.data = j;
    uv_timer_start(&j->tick, on_tick, SRV_STORAGE_RETRY_MS / 4, SRV_STORAGE_RETRY_MS / 4);
    uv_unref((uv_handle_t *)&j->tick);
    j->last_sent_ms = j->up_since = srv_now(s);
    poll_update(j);
}

void pgj_stop(pgj *j)
{
    if (!j->started || j->stopping)
        return;
    /* what is queued goes now, and is waited for */
    before_sync(j);
    j->stopping = true;
    uv_timer_stop(&j->tick);
    uv_close((uv_handle_t *)&j->tick, NULL);
    uv_prepare_stop(&j->prep);
    uv_close((uv_handle_t *)&j->prep, NULL);
    if (j->poll) {
        uv_close((uv_handle_t *)j->poll, on_poll_closed);
        j->poll = NULL;
    }
    srv_log(LOG_INFO, "journal_batches", "{s:I, s:I, s:I}", "batches", (json_int_t)j->nbatches,
            "writes", (json_int_t)j->committed, "most_writes_per_batch",
            (json_int_t)j->most_per_batch);
    if (j->failed_batch || j->open.len) {
        srv_log(LOG_ERROR, "journal_unsent", "{s:s}", "note",
                "the journal could not store its last writes; they were never announced");
        return;
    }
    /* give the lease up: another server takes this one's matches over now
     * rather than when the lease would have expired (a restart of this
     * server under the same name, if it comes first, keeps them) */
    db_stmt *q = NULL;
    if (db_prepare(j->dbh,
                   "UPDATE tessera_instances SET expires_at = clock_timestamp() - interval '1 "
                   "second' WHERE id = ? AND token = ?",
                   &q) == DB_OK) {
        db_bind_text(q, 1, j->instance, -1);
        db_bind_int64(q, 2, j->token);
        db_step(q);
    }
    db_finalize(q);
}

void pgj_close(pgj *j)
{
    if (!j)
        return;
    if (j->poll) /* never started on a loop that ran: not closed by a callback */
        free(j->poll);
    tb_free(&j->open);
    tb_free(&j->sent);
    db_close(j->dbh);
    free(j);
}

/* ---- the writes --------------------------------------------------------------------------------
 */

/* Can a write be taken now? Not during a fault (the caller's match pauses). */
static bool writable(pgj *j)
{
    if (j->fault || j->failed_batch || j->stopping) {
        j->s->cnt.journal_refused++;
        return false;
    }
    return true;
}

static void put_tokens(textbuf *t, const match *m, const pgj_token *tokens, int n)
{
    if (n <= 0)
        return;
    tb_puts(t, "INSERT INTO resume_tokens(token, match, seat) VALUES");
    for (int i = 0; i < n; i++) {
        tb_puts(t, i ? ",(" : "(");
        put_str(t, tokens[i].token);
        tb_puts(t, ",");
        put_str(t, m->id);
        tb_printf(t, ",%d)", tokens[i].seat);
    }
    tb_puts(t, " ON CONFLICT DO NOTHING;");
}

static void put_seats(textbuf *t, const match *m, const char *seats, size_t seats_len)
{
    tb_puts(t, "UPDATE matches SET seats=");
    put_lit(t, seats, seats_len);
    tb_printf(t, ", status=%d WHERE id=", m->status);
    put_str(t, m->id);
    tb_puts(t, ";");
}

/* Accept the statements just written into `open`. */
/* The end of an append to the open batch, which held `mark` bytes before it:
 * counted, or, when a buffer could not grow, taken back whole (ENG_ENOMEM). */
static int accepted(pgj *j, size_t mark)
{
    textbuf *t = &j->open;
    if (t->failed) {
        t->failed = false;
        tb_cut(t, mark);
        return ENG_ENOMEM;
    }
    j->committed++;
    return 0;
}

int pgj_create_match(pgj *j, const match *m, const char *rules, const char *seats, const char *tc,
                     const char *pol, const char *nonce_hex)
{
    if (!writable(j))
        return ENG_ESTORAGE;
    uint64_t t0 = uv_hrtime();
    db_stmt *q = NULL;
    int rc = db_prepare(j->dbh,
                        "INSERT INTO matches(id,game,rules,seats,time_control,policies,seed,status,"
                        "created,demo,move_encoding,chance_nonce,owner) "
                        "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)",
                        &q);
    if (rc == DB_OK) {
        db_bind_text(q, 1, m->id, -1);
        db_bind_text(q, 2, m->g->name, -1);
        db_bind_text(q, 3, rules, -1);
        db_bind_text(q, 4, seats, -1);
        db_bind_text(q, 5, tc, -1);
        db_bind_text(q, 6, pol, -1);
        db_bind_int64(q, 7, (int64_t)m->seed);
        db_bind_int(q, 8, m->status);
        db_bind_int64(q, 9, m->created_ms);
        db_bind_int(q, 10, m->demo);
        db_bind_int(q, 11, m->g->move_encoding);
        if (nonce_hex)
            db_bind_text(q, 12, nonce_hex, -1);
        else
            db_bind_null(q, 12);
        db_bind_text(q, 13, j->instance, -1);
        rc = db_step(q);
    }
    db_finalize(q);
    phist_add(&j->s->cnt.journal, (double)(uv_hrtime() - t0) / 1e9);
    if (rc < 0) {
        int kind = jf_kind(rc);
        j->s->cnt.journal_faults[kind]++;
        srv_log(LOG_ERROR, "storage_error", "{s:s, s:s, s:s}", "what", "create_match", "match",
                m->id, "postgres", db_errmsg(j->dbh));
        return ENG_ESTORAGE;
    }
    return 0;
}

int pgj_append(pgj *j, const match *m, int from, int to, const char *by, const char *reason,
               const char *seats, size_t seats_len, const pgj_token *tokens, int ntokens)
{
    if (!writable(j))
        return ENG_ESTORAGE;
    textbuf *t = &j->open;
    size_t mark = t->len;
    int64_t now = srv_epoch_ms();
    if (to > from) {
        tb_puts(t, "INSERT INTO moves(match,ply,move,by,reason,at,think_ms,wait_ms) VALUES");
        for (int i = from; i < to; i++) {
            tb_puts(t, i > from ? ",(" : "(");
            put_str(t, m->id);
            tb_printf(t, ",%d,%d,", i, (int)m->moves[i]);
            put_str(t, by);
            tb_puts(t, ",");
            put_str(t, reason);
            tb_printf(t, ",%" PRId64 ",", now);
            if (m->times[i].think_ms >= 0)
                tb_printf(t, "%" PRId64 ",", (int64_t)m->times[i].think_ms);
            else
                tb_puts(t, "NULL,");
            if (m->times[i].wait_ms >= 0)
                tb_printf(t, "%" PRId64 ")", (int64_t)m->times[i].wait_ms);
            else
                tb_puts(t, "NULL)");
        }
        tb_puts(t, ";");
    }
    if (seats)
        put_seats(t, m, seats, seats_len);
    put_tokens(t, m, tokens, ntokens);
    return accepted(j, mark);
}

int pgj_update_seats(pgj *j, const match *m, const char *seats, size_t seats_len,
                     const pgj_token *tokens, int ntokens)
{
    return pgj_append(j, m, 0, 0, NULL, NULL, seats, seats_len, tokens, ntokens);
}

int pgj_finish(pgj *j, const match *m, const char *result, const char *seats,
               const pgj_token *tokens, int ntokens)
{
    if (!writable(j))
        return ENG_ESTORAGE;
    textbuf *t = &j->open;
    size_t mark = t->len;
    tb_printf(t, "UPDATE matches SET status=%d, finished=%" PRId64 ", result=", m->status,
         (int64_t)m->finished_ms);
    put_str(t, result);
    tb_puts(t, ", seats=");
    put_str(t, seats);
    tb_puts(t, " WHERE id=");
    put_str(t, m->id);
    tb_puts(t, ";");
    put_tokens(t, m, tokens, ntokens);
    return accepted(j, mark);
}

int pgj_summary(pgj *j, const match *m, const char *summary)
{
    if (!writable(j))
        return ENG_ESTORAGE;
    textbuf *t = &j->open;
    size_t mark = t->len;
    tb_puts(t, "UPDATE matches SET summary=");
    put_str(t, summary);
    tb_puts(t, " WHERE id=");
    put_str(t, m->id);
    tb_puts(t, ";");
    return accepted(j, mark);
}

uint64_t pgj_hold_seq(const pgj *j)
{
    return j->committed > j->synced ? j->committed : 0;
}

uint64_t pgj_synced(const pgj *j)
{
    return j->synced;
}

uint64_t pgj_up_ms(const pgj *j)
{
    return j->fault || j->failed_batch || !j->started ? 0 : srv_now(j->s) - j->up_since;
}

int pgj_fault(const pgj *j, int64_t *since_ms, const char **message)
{
    if (!j->fault)
        return JF_NONE;
    *since_ms = j->fault_since;
    *message = j->fault_msg;
    return j->fault;
}
