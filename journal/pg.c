/*
 * pg.c — the journal on PostgreSQL (journal_int.h): the tables, the
 * lease, a batch sent as one asynchronous transaction.
 *
 * Batches. The journal's batch (journal.c) goes as one statement, SELECT
 * tessera_batch(...) (the schema: a PL/pgSQL function, its plans kept per
 * connection), its rows as arrays in the statement's parameters, one per
 * column (put_batch): PostgreSQL runs one INSERT of the moves, one of the
 * new resume tokens and one UPDATE of the matches' rows, each match's
 * seats, status, finish and lobby summary merged into one new version of
 * its row, the row on a page left half free for it (fillfactor 50: a HOT
 * update). A statement is one transaction, committed (and flushed to the
 * WAL) at its end. Sent with PQsendQueryParams, it needs no quoting of
 * ours beyond the arrays' text. The answer arrives through a uv_poll on
 * the connection's socket. The moves of a whole loop round, or more while
 * the batches before them commit, share a commit. Every other statement on
 * the connection waits for the batches in flight (journal.c's hook,
 * pg_wait), so the order is the program's.
 *
 * Batches in flight. Up to PG_DEPTH batches go out on the one connection
 * before the first one's answer is in (libpq's pipeline mode, each batch
 * followed by a sync: its own implicit transaction). The backend runs them
 * one after the other; what this saves is the round trip and the loop's
 * turn between a commit and the next batch's start, no more. They commit
 * in the order they were sent or not at all: the fence of each (below)
 * refuses to run unless the batch before it committed, so a batch that
 * fails takes those after it down with it (their answers are read and
 * dropped: `draining`), and journal.c sends them all again, in order. The
 * answers are read in order (receive), and pipeline mode is left as soon as
 * none is awaited: another module's statement, a heartbeat, the settling
 * of a lost batch run outside it.
 *
 * The fence. Each batch starts with tessera_fence(instance, token, batch
 * number, lease, previous batch): it renews this server's lease and
 * records the batch's number, in the same transaction as the batch, and
 * raises TS001 when the instance row no longer carries this server's token
 * (another server took the lease over: docs/scaling.md), TS002 when the
 * previous batch's number is given and the row does not hold it (that
 * batch did not commit). Batches whose answers were lost with the
 * connection are settled by reading the instance row back after
 * reconnecting: the number there is the last one committed, and the
 * batches commit in order, so every lost batch up to it committed and
 * none after it. An idle server sends a batch of the fence alone every
 * JOURNAL_LEASE_BEAT_MS.
 *
 * Faults. A batch that fails (the server unreachable, a disk full, ...) puts
 * the journal in a fault (journal.c): it is sent again every
 * JOURNAL_RETRY_MS, reconnecting first, and nothing queued after it is
 * announced until it commits. Fenced out, the server stops (exit 1) without
 * announcing anything more.
 */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "journal_int.h"

/* The layout of the PostgreSQL tables (meta 'schema'). 1: the SQLite
 * journal's layout, plus matches.owner and the instances. 2: the plies in
 * runs (move_runs, below), `moves` a view of them; a database of layout 1
 * is converted when it is opened. */
#define PG_SCHEMA 2

/* How many batches may be in flight at once (journal_ops.depth). One
 * backend runs them one after the other, so a second batch sent while the
 * first runs saves the round trip and the loop's turn between them, and a
 * third would only wait behind the second; each batch sent early is a
 * smaller one (the next round's rows, where they would have joined it: more
 * commits a move), and one more to send again after a failure. */
#define PG_DEPTH 2

/* The parameters of tessera_batch (put_batch). */
enum {
    BA_INST, BA_TOKEN, BA_BATCH, BA_TTL, BA_PREV,
    BA_R_MATCH, BA_R_PLY, BA_R_AT, BA_R_PLIES, BA_R_INFO,
    BA_T_TOKEN, BA_T_MATCH, BA_T_SEAT,
    BA_U_ID, BA_U_WHAT, BA_U_SEATS, BA_U_STATUS, BA_U_FINISHED, BA_U_RESULT, BA_U_SUMMARY,
    BA_N
};
static const char batch_call[] =
    "SELECT tessera_batch($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20)";

/* What a merged update of a match's row sets (u_what, a bit mask). */
enum { UW_SEATS = 1, UW_FINISH = 2, UW_SUMMARY = 4 };

/* A match's row as the batch leaves it (strings: offsets into the batch's text). */
typedef struct pg_update {
    uint32_t id;      /* the match */
    int what;         /* UW_* */
    uint32_t seats;   /* UW_SEATS */
    int status;
    int64_t finished; /* UW_FINISH */
    uint32_t result;
    uint32_t summary; /* UW_SUMMARY */
    int run_last;     /* the row of the last ply of the match's open run, or -1 */
} pg_update;

/* A batch sent, its answer awaited (or lost with the connection). */
typedef struct pg_flight {
    int64_t fence;   /* its fence's number: the instance row's `batch` once it committed */
    uint64_t commit; /* its commit's number among the journal's (j->committed) */
    int rows;        /* its rows, for the log's figures */
} pg_flight;

struct journal_backend {
    journal *j;
    PGconn *c;         /* db_pg(j->dbh) when the poll was set up on it */
    uv_poll_t *poll;   /* on c's socket (malloc'd: closed and made anew per socket) */
    int poll_events;
    uv_timer_t tick;   /* the idle heartbeat */
    bool started, stopping;
    int64_t token;     /* this process's lease token */
    int lease_ms;
    textbuf sql;       /* the heartbeat's query (the fence alone) */
    int64_t batch_no;  /* the number of the last fence sent (the row records it) */
    /* the batches in the pipeline, oldest first: journal.c's sent[0..nfl)
     * (draining: all of them failed with an earlier one, their answers
     * still to be read and dropped) */
    pg_flight fl[PG_DEPTH];
    int nfl;
    bool draining;
    bool beat;         /* the heartbeat, the fence alone, is in flight (outside the pipeline) */
    /* the batches whose answers were lost with the connection, oldest first:
     * journal.c's sent[0..nlost), sent again in order; settled: the
     * instance row's number was read back (settled_fence) */
    pg_flight lost[PG_DEPTH];
    int nlost;
    bool settled;
    int64_t settled_fence;
    bool own;          /* a synchronous statement of ours runs (journal.c lets it be) */
    int result_code;   /* the first error among the oldest query's results */
    char result_msg[300];
    uint64_t last_sent_ms; /* loop ms of the last query sent */
    uint64_t nbatches, nrows, most_per_batch; /* figures for the log: batches, rows */
    /* the batch in flight as tessera_batch's parameters (put_batch), and
     * the merged updates of its matches' rows with their hash slots */
    textbuf arg[BA_N];
    pg_update *upd;
    int nupd, upd_cap;
    int *slot;
    int slots_cap;
    /* the runs of plies (put_runs): each run's first row, and per row the
     * next ply's row of its run (-1: the last); the text of one run */
    int *run_first, *run_next;
    int nruns, runs_cap;
    textbuf plies;
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
    /* The plies in runs: a run is the plies of one match in one batch (a
     * turn's draw, placement and meeple; more when a match moves faster
     * than a batch commits), one row and one index entry where a ply each
     * cost a row and an entry — the WAL of a move was mostly the records'
     * own headers. `plies` is each ply's "move,by,reason,at,think_ms,
     * wait_ms" joined by ';' (put_runs): `at` less the run's, an empty field
     * NULL, and in by and reason '%', ',' and ';' as %25, %2C and %3B;
     * `info` the plies' thinking lines (a turn's on its first ply, from
     * thinking.c), NULL when none of them has one. The view `moves` gives
     * the plies back a row each, as the journal's reader (journal.c), tools
     * and layout 1 know them. */
    "CREATE TABLE IF NOT EXISTS move_runs("
    "  match TEXT NOT NULL, ply INTEGER NOT NULL, at INTEGER NOT NULL, plies TEXT NOT NULL,"
    "  info TEXT[], PRIMARY KEY(match, ply));"
    "CREATE OR REPLACE FUNCTION tessera_unesc(t TEXT) RETURNS TEXT LANGUAGE sql IMMUTABLE AS"
    "  $f$ SELECT NULLIF(replace(replace(replace(t, '%2C', ','), '%3B', ';'), '%25', '%'), '') $f$;"
    "CREATE OR REPLACE FUNCTION tessera_esc(t TEXT) RETURNS TEXT LANGUAGE sql IMMUTABLE AS"
    "  $f$ SELECT coalesce(replace(replace(replace(t, '%', '%25'), ',', '%2C'), ';', '%3B'), '') $f$;"
    /* layout 1's table of plies, converted: a run of one ply each (its
     * thinking lines, where it had the column) */
    "DO $d$ BEGIN"
    "  IF EXISTS (SELECT 1 FROM pg_class WHERE oid = to_regclass('moves') AND relkind = 'r') THEN"
    "    ALTER TABLE moves ADD COLUMN IF NOT EXISTS info TEXT;"
    "    INSERT INTO move_runs(match, ply, at, plies, info)"
    "     SELECT match, ply, at, move || ',' || tessera_esc(by) || ',' || tessera_esc(reason)"
    "       || ',0,' || coalesce(think_ms::text, '') || ',' || coalesce(wait_ms::text, ''),"
    "       CASE WHEN info IS NULL THEN NULL ELSE ARRAY[info] END"
    "      FROM moves;"
    "    DROP TABLE moves;"
    "  END IF;"
    "  DROP FUNCTION IF EXISTS tessera_batch(TEXT, BIGINT, BIGINT, BIGINT, TEXT[], BIGINT[],"
    "    BIGINT[], TEXT[], TEXT[], BIGINT[], BIGINT[], BIGINT[], TEXT[], TEXT[], BIGINT[], TEXT[],"
    "    BIGINT[], TEXT[], BIGINT[], BIGINT[], TEXT[], TEXT[]);"
    "  DROP FUNCTION IF EXISTS tessera_batch(TEXT, BIGINT, BIGINT, BIGINT, TEXT[], BIGINT[],"
    "    BIGINT[], TEXT[], TEXT[], BIGINT[], BIGINT[], BIGINT[], TEXT[], TEXT[], TEXT[], BIGINT[],"
    "    TEXT[], BIGINT[], TEXT[], BIGINT[], BIGINT[], TEXT[], TEXT[]);"
    " END $d$;"
    "CREATE OR REPLACE VIEW moves AS"
    " SELECT r.match, (r.ply + p.i - 1)::INTEGER AS ply, split_part(p.x, ',', 1)::INTEGER AS move,"
    "  tessera_unesc(split_part(p.x, ',', 2)) AS by,"
    "  tessera_unesc(split_part(p.x, ',', 3)) AS reason,"
    "  r.at + split_part(p.x, ',', 4)::INTEGER AS at,"
    "  NULLIF(split_part(p.x, ',', 5), '')::INTEGER AS think_ms,"
    "  NULLIF(split_part(p.x, ',', 6), '')::INTEGER AS wait_ms, r.info[p.i] AS info"
    " FROM move_runs r, unnest(string_to_array(r.plies, ';')) WITH ORDINALITY AS p(x, i);"
    /* a match's row gets a new version each batch it is in (its seats,
     * its lobby summary): half of each page is left free for them, so that
     * the new version goes on the old one's page (a HOT update: no index
     * entries, the WAL record only the bytes that changed). Set on an
     * existing database at its first open by this tessera; the pages
     * filled before keep their rows, new matches go to new pages. */
    "DO $d$ BEGIN"
    "  IF NOT EXISTS (SELECT 1 FROM pg_class WHERE oid = 'matches'::regclass"
    "                 AND reloptions @> ARRAY['fillfactor=50']) THEN"
    "    ALTER TABLE matches SET (fillfactor = 50);"
    "  END IF;"
    " END $d$;"
    "CREATE INDEX IF NOT EXISTS matches_status ON matches(status, created);"
    "CREATE INDEX IF NOT EXISTS matches_owner ON matches(owner, status);"
    "CREATE TABLE IF NOT EXISTS resume_tokens(token TEXT PRIMARY KEY, match TEXT NOT NULL,"
    "  seat INTEGER NOT NULL);"
    "CREATE TABLE IF NOT EXISTS tessera_roles(role TEXT PRIMARY KEY, instance TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS tessera_instances(id TEXT PRIMARY KEY, token INTEGER NOT NULL,"
    "  address TEXT, started INTEGER NOT NULL, expires_at TIMESTAMPTZ NOT NULL,"
    "  batch INTEGER NOT NULL DEFAULT 0);"
    /* the fence: renew the lease and count the batch, or refuse: TS001,
     * the lease is another server's; TS002, prev_batch (NULL: none to
     * follow) is not the last batch committed. The functions are made (and
     * remade) at every open: a database of an earlier tessera gets these at
     * its first open by this one; it keeps its own (four parameters for the
     * fence, nineteen for the batch), which an earlier tessera still
     * running on it calls. */
    "CREATE OR REPLACE FUNCTION tessera_fence(inst TEXT, tok BIGINT, nbatch BIGINT, ttl_ms BIGINT,"
    "  prev_batch BIGINT)"
    " RETURNS BIGINT LANGUAGE plpgsql AS $f$ BEGIN"
    "  UPDATE tessera_instances SET batch = nbatch,"
    "    expires_at = clock_timestamp() + ttl_ms * interval '1 millisecond'"
    "   WHERE id = inst AND token = tok AND (prev_batch IS NULL OR batch = prev_batch);"
    "  IF NOT FOUND THEN"
    "    IF prev_batch IS NOT NULL AND EXISTS"
    "       (SELECT 1 FROM tessera_instances WHERE id = inst AND token = tok) THEN"
    "      RAISE EXCEPTION 'batch % of instance % follows batch %, which did not commit',"
    "        nbatch, inst, prev_batch USING ERRCODE = 'TS002';"
    "    END IF;"
    "    RAISE EXCEPTION 'the lease of instance % was taken over by another server', inst"
    "      USING ERRCODE = 'TS001';"
    "  END IF;"
    "  RETURN nbatch;"
    " END $f$;"
    /* a batch (put_batch): the fence, then its rows, each table's as arrays */
    "CREATE OR REPLACE FUNCTION tessera_batch(inst TEXT, tok BIGINT, nbatch BIGINT, ttl_ms BIGINT,"
    "  prev_batch BIGINT,"
    "  r_match TEXT[], r_ply BIGINT[], r_at BIGINT[], r_plies TEXT[], r_info TEXT[],"
    "  t_token TEXT[], t_match TEXT[], t_seat BIGINT[],"
    "  u_id TEXT[], u_what BIGINT[], u_seats TEXT[], u_status BIGINT[], u_finished BIGINT[],"
    "  u_result TEXT[], u_summary TEXT[])"
    " RETURNS BIGINT LANGUAGE plpgsql AS $f$ BEGIN"
    "  PERFORM tessera_fence(inst, tok, nbatch, ttl_ms, prev_batch);"
    "  INSERT INTO move_runs(match, ply, at, plies, info)"
    "   SELECT u.m, u.p, u.a, u.x, u.i::TEXT[]"
    "    FROM unnest(r_match, r_ply, r_at, r_plies, r_info) AS u(m, p, a, x, i);"
    "  INSERT INTO resume_tokens(token, match, seat)"
    "   SELECT * FROM unnest(t_token, t_match, t_seat) ON CONFLICT DO NOTHING;"
    "  UPDATE matches m SET"
    "    seats = CASE WHEN u.what & 1 <> 0 THEN u.seats ELSE m.seats END,"
    "    status = CASE WHEN u.what & 1 <> 0 THEN u.status ELSE m.status END,"
    "    finished = CASE WHEN u.what & 2 <> 0 THEN u.finished ELSE m.finished END,"
    "    result = CASE WHEN u.what & 2 <> 0 THEN u.result ELSE m.result END,"
    "    summary = CASE WHEN u.what & 4 <> 0 THEN u.summary ELSE m.summary END"
    "   FROM unnest(u_id, u_what, u_seats, u_status, u_finished, u_result, u_summary)"
    "    AS u(id, what, seats, status, finished, result, summary)"
    "   WHERE m.id = u.id;"
    "  RETURN nbatch;"
    " END $f$;";

/* The layout a database says it has (meta 'schema'): "" when it has none
 * yet (a new database), else its text; < 0 when it cannot be read. */
static int read_layout(db_conn *d, char *version, size_t cap)
{
    version[0] = 0;
    db_stmt *q = NULL;
    int rc = db_prepare(d, "SELECT value FROM meta WHERE key='schema'", &q);
    const char *v = NULL;
    if (rc == DB_OK && (rc = db_step(q)) == DB_ROW && (v = db_column_text(q, 0)))
        snprintf(version, cap, "%.32s", v);
    db_finalize(q);
    return rc < 0 ? rc : 0;
}

/* Create the tables, or check that the ones there are a layout we read
 * (this one, or layout 1, which the schema converts), before anything of
 * them is touched. */
static int pg_schema(journal_backend *p, char *err, size_t errcap)
{
    db_conn *d = p->j->dbh;
    char version[40] = "";
    if (db_schema_lock(d) ||
        db_exec(d, "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)") ||
        read_layout(d, version, sizeof version) < 0) {
        snprintf(err, errcap, "PostgreSQL: reading the journal's layout: %s", db_errmsg(d));
        db_schema_unlock(d);
        return ENG_ESTORAGE;
    }
    long layout = strtol(version, NULL, 10);
    if (version[0] && ((layout != PG_SCHEMA && layout != 1) ||
                       strspn(version, "0123456789") != strlen(version))) {
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
    char sql[160];
    snprintf(sql, sizeof sql,
             "INSERT INTO meta VALUES('schema','%d') ON CONFLICT(key) DO UPDATE SET value = "
             "excluded.value",
             PG_SCHEMA);
    if (db_exec(d, "BEGIN") || db_exec(d, schema) || db_exec(d, sql) || db_exec(d, "COMMIT")) {
        snprintf(err, errcap, "PostgreSQL: creating the journal's tables: %s", db_errmsg(d));
        db_exec(d, "ROLLBACK");
        db_schema_unlock(d);
        return ENG_ESTORAGE;
    }
    if (version[0] && layout != PG_SCHEMA)
        srv_log(LOG_INFO, "journal_upgraded", "{s:i, s:i}", "from", (int)layout, "to", PG_SCHEMA);
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
static void receive(journal_backend *p, bool block);

/* The engine's numbers: the batches in the pipeline and those lost with a
 * connection are each oldest first, their fences and commits rising; none
 * is in the pipeline while lost ones wait to be settled, nor beside the
 * heartbeat; the last in the pipeline carries the last fence sent. */
static void pg_check(const journal_backend *p)
{
    assert(p->nfl >= 0 && p->nfl <= PG_DEPTH && p->nlost >= 0 && p->nlost <= PG_DEPTH);
    assert(!(p->nfl && (p->beat || p->nlost)));
    assert(!p->draining || p->nfl > 0);
    assert(!p->settled || p->nlost > 0);
    for (int i = 1; i < p->nfl; i++)
        assert(p->fl[i - 1].fence < p->fl[i].fence && p->fl[i - 1].commit < p->fl[i].commit);
    for (int i = 1; i < p->nlost; i++)
        assert(p->lost[i - 1].fence < p->lost[i].fence &&
               p->lost[i - 1].commit < p->lost[i].commit);
    assert(!p->nfl || p->fl[p->nfl - 1].fence == p->batch_no);
}

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

/* Drop the connection if libpq still holds it open: its state in the
 * pipeline is no longer known (answers lost or out of step). The server
 * rolls back what had no sync after it; db.c connects again at the next
 * statement. Nothing may be in flight (on_lost runs). */
static void conn_drop(journal_backend *p)
{
    assert(!p->nfl && !p->beat);
    PGconn *c = db_pg(p->j->dbh);
    if (c && PQstatus(c) == CONNECTION_OK)
        db_pg_drop(p->j->dbh);
}

/* The connection went with the answers of what was in flight: the
 * heartbeat, or batches, which may have committed (they are settled when
 * sent again: pg_write) — unless they were failing anyway (draining). A
 * fault of the journal; report: tell journal.c that the batches in flight
 * failed (not when the write that noticed it returns JOURNAL_FAILED). */
static void conn_lost(journal_backend *p, const char *msg, bool report)
{
    pg_check(p);
    int n = p->draining ? 0 : p->nfl;
    for (int i = 0; i < n; i++)
        p->lost[p->nlost++] = p->fl[i];
    p->nfl = 0;
    p->draining = p->beat = false;
    p->settled = false;
    p->result_code = DB_OK;
    journal__failed(p->j, JF_UNREACHABLE, "batch", NULL, msg, 0); /* msg may be libpq's: first */
    if (p->c && p->c == db_pg(p->j->dbh))
        conn_drop(p);
    if (report && n > 0)
        journal__batch_done(p->j, false, 0);
}

/* The oldest batch in the pipeline has all its answers: stored, or failed
 * — and with it every one after it (their fences refuse them). */
static void batch_answered(journal_backend *p)
{
    journal *j = p->j;
    pg_check(p);
    assert(p->nfl > 0);
    pg_flight f = p->fl[0];
    memmove(&p->fl[0], &p->fl[1], (size_t)(p->nfl - 1) * sizeof p->fl[0]);
    p->nfl--;
    int code = p->result_code;
    p->result_code = DB_OK;
    if (p->draining) { /* failed with an earlier one: journal.c knows */
        p->draining = p->nfl > 0;
        return;
    }
    if (code != DB_OK) {
        if (code == DB_EFENCED)
            fenced_out(p, p->result_msg);
        p->draining = p->nfl > 0;
        journal__failed(j, journal__kind_of_db(code), "batch", NULL, p->result_msg, 0);
        journal__batch_done(j, false, 0);
        return;
    }
    p->nbatches++;
    p->nrows += (uint64_t)f.rows;
    if ((uint64_t)f.rows > p->most_per_batch)
        p->most_per_batch = (uint64_t)f.rows;
    SRV_ASSERT(f.commit > j->synced && f.commit <= j->committed);
    j->synced = f.commit;
    journal__batch_done(j, true, f.commit);
}

/* The connection for a query, connected again if it was lost (only with
 * nothing in flight on it): NULL, the fault reported, when it cannot be. */
static PGconn *conn_ready(journal_backend *p)
{
    assert(!p->nfl && !p->beat);
    PGconn *c = db_pg(p->j->dbh);
    if (!c || PQstatus(c) != CONNECTION_OK) {
        /* lost (here or under another statement): connect again first */
        if (db_reconnect(p->j->dbh) != DB_OK || !(c = db_pg(p->j->dbh))) {
            journal__failed(p->j, JF_UNREACHABLE, "batch", NULL, db_errmsg(p->j->dbh), 0);
            return NULL;
        }
    }
    if (c != p->c)
        poll_update(p); /* a new connection: its socket */
    return c;
}

/* Leave pipeline mode once no answer is awaited (another module's
 * statements, the heartbeat and ours run outside it). */
static void pipeline_off(journal_backend *p, PGconn *c)
{
    if (p->nfl || !c || PQpipelineStatus(c) == PQ_PIPELINE_OFF || PQexitPipelineMode(c))
        return;
    /* still busy with answers no batch awaits: out of step, dropped */
    srv_log(LOG_ERROR, "storage_error", "{s:s, s:s}", "what", "pipeline", "postgres",
            PQerrorMessage(c));
    conn_drop(p);
}

/* The heartbeat, the fence alone (p->sql), if the connection can take it. */
static void send_beat(journal_backend *p)
{
    PGconn *c = conn_ready(p);
    if (!c)
        return;
    if (p->sql.failed) {
        tb_reset(&p->sql);
        journal__failed(p->j, JF_OTHER, "batch", NULL, "out of memory for the journal's batch", 0);
        return;
    }
    pipeline_off(p, c);
    if (c != db_pg(p->j->dbh))
        return; /* dropped: the next beat connects again */
    p->result_code = DB_OK;
    p->result_msg[0] = 0;
    if (!PQsendQuery(c, p->sql.p)) {
        journal__failed(p->j, journal__kind_of_db(db_pg_set_error(p->j->dbh, NULL)), "batch",
                        NULL, PQerrorMessage(c), 0);
        return;
    }
    p->beat = true;
    p->last_sent_ms = journal__now(p->j);
    poll_update(p);
}

/* A batch could not go out whole. What of it reached the server may be
 * half a pipeline's message: the connection is dropped (conn_lost: the
 * server rolls back what had no sync after it) and connected again at the
 * next write; the batches in flight before it — and this one, if its sync
 * was queued (in `fl`) — may have committed: settled then. */
static int send_failed(journal_backend *p, PGconn *c)
{
    char msg[300];
    snprintf(msg, sizeof msg, "%s", PQerrorMessage(c));
    conn_lost(p, msg[0] ? msg : "the connection to PostgreSQL was lost", false);
    return JOURNAL_FAILED;
}

/* The fence that begins every query: renew the lease, count the batch. */
static void put_fence(journal_backend *p)
{
    tb_reset(&p->sql);
    p->batch_no++;
    tb_puts(&p->sql, "SELECT tessera_fence(");
    put_str(&p->sql, p->j->instance);
    tb_printf(&p->sql, ", %" PRId64 ", %" PRId64 ", %d, NULL);", p->token, p->batch_no,
              p->lease_ms);
}

/* ---- a batch as arrays ------------------------------------------------------------------ */

/* A batch goes as one call of tessera_batch (the schema): the fence, then
 * each table's rows as arrays, one per column, in PostgreSQL's array text
 * ('{"a","b",NULL}'), passed as the call's parameters — one statement, its
 * plans kept by PL/pgSQL, however many rows: a turn used to be three
 * statements parsed, planned and run, and its seats a row version of its
 * own, its lobby summary another. The matches' rows are merged per match
 * (BA_U_*): the last seats, status, finish and summary written in the
 * batch, each field as the statements one after the other would have left
 * it, so that a match's row gets one new version per batch. */

/* Before an element of an array's text (which begins with its '{'): a
 * comma before all but the first. */
static void arr_sep(textbuf *t)
{
    tb_put(t, t->len > 1 ? "," : "", t->len > 1);
}

/* A string element: in double quotes, a quote and a backslash escaped by a
 * backslash (nothing else is special inside quotes); NULL unquoted. The
 * seats and summaries are JSON, a quote every few characters: written in
 * one pass into room reserved once. */
static void arr_str(textbuf *t, const char *s)
{
    arr_sep(t);
    if (!s) {
        tb_put(t, "NULL", 4);
        return;
    }
    size_t n = 0;
    for (const char *q = s; *q; q++)
        n += 1 + (*q == '"' || *q == '\\');
    if (tb_reserve(t, n + 2))
        return; /* failed: put_batch sees it */
    char *o = t->p + t->len;
    *o++ = '"';
    for (const char *q = s; *q; q++) {
        if (*q == '"' || *q == '\\')
            *o++ = '\\';
        *o++ = *q;
    }
    *o++ = '"';
    *o = 0;
    t->len = (size_t)(o - t->p);
}

/* An integer element; a negative `none` (-1) is NULL when nullable. */
static void arr_int(textbuf *t, int64_t v, bool nullable)
{
    arr_sep(t);
    if (nullable && v < 0)
        tb_put(t, "NULL", 4);
    else
        tb_printf(t, "%" PRId64, v);
}

static uint32_t hash_str(const char *s)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* The merged update of match `id`: found, or made (updates_reserve made
 * room for every row of the batch). */
static pg_update *update_of(journal_backend *p, const journal_batch *b, uint32_t id)
{
    const char *key = jrow_str(b, id);
    uint32_t mask = (uint32_t)p->slots_cap - 1;
    for (uint32_t i = hash_str(key) & mask;; i = (i + 1) & mask) {
        int k = p->slot[i];
        if (k < 0) {
            assert(p->nupd < p->upd_cap);
            p->slot[i] = p->nupd;
            pg_update *u = &p->upd[p->nupd++];
            *u = (pg_update){
                .id = id, .seats = JNONE, .result = JNONE, .summary = JNONE, .run_last = -1};
            return u;
        }
        if (!strcmp(jrow_str(b, p->upd[k].id), key))
            return &p->upd[k];
    }
}

/* Room for n merged updates, and a table of slots at most half full. */
static bool updates_reserve(journal_backend *p, int n)
{
    if (n > p->upd_cap) {
        pg_update *u = realloc(p->upd, (size_t)n * sizeof *u);
        if (!u)
            return false;
        p->upd = u;
        p->upd_cap = n;
    }
    int cap = 16;
    while (cap < 2 * n)
        cap *= 2;
    if (cap > p->slots_cap) {
        int *s = realloc(p->slot, (size_t)cap * sizeof *s);
        if (!s)
            return false;
        p->slot = s;
        p->slots_cap = cap;
    }
    for (int i = 0; i < p->slots_cap; i++)
        p->slot[i] = -1;
    p->nupd = 0;
    return true;
}

/* Room for the runs of a batch of n rows. */
static bool runs_reserve(journal_backend *p, int n)
{
    if (n > p->runs_cap) {
        int *f = realloc(p->run_first, (size_t)n * sizeof *f);
        if (!f)
            return false;
        p->run_first = f;
        int *x = realloc(p->run_next, (size_t)n * sizeof *x);
        if (!x)
            return false;
        p->run_next = x;
        p->runs_cap = n;
    }
    p->nruns = 0;
    return true;
}

/* A ply's by or reason in a run's text (move_runs): '%', ',' and ';' as
 * %25, %2C and %3B; NULL (and "", which the journal is never given) as
 * nothing. */
static void put_esc(textbuf *t, const char *s)
{
    for (; s && *s; s++)
        if (*s == '%' || *s == ',' || *s == ';')
            tb_printf(t, "%%%02X", (unsigned)*s);
        else
            tb_put(t, s, 1);
}

/* Ply row i of the batch into the run of its match: the next ply of the
 * match's open run joins it, any other starts a run. */
static void add_ply(journal_backend *p, const journal_batch *b, int i)
{
    const journal_row *r = &b->row[i];
    pg_update *u = update_of(p, b, r->match);
    p->run_next[i] = -1;
    if (u->run_last >= 0 && b->row[u->run_last].n + 1 == r->n)
        p->run_next[u->run_last] = i;
    else
        p->run_first[p->nruns++] = i;
    u->run_last = i;
}

/* The runs as tessera_batch's r_* arrays: the match, the first ply and its
 * time, the plies' text ("move,by,reason,at,think_ms,wait_ms" each, joined
 * by ';') and their thinking lines. */
static void put_runs(journal_backend *p, const journal_batch *b)
{
    textbuf *a = p->arg, *t = &p->plies;
    for (int k = 0; k < p->nruns; k++) {
        const journal_row *r0 = &b->row[p->run_first[k]];
        arr_str(&a[BA_R_MATCH], jrow_str(b, r0->match));
        arr_int(&a[BA_R_PLY], r0->n, false);
        arr_int(&a[BA_R_AT], r0->at, false);
        tb_reset(t);
        for (int i = p->run_first[k]; i >= 0; i = p->run_next[i]) {
            const journal_row *r = &b->row[i];
            tb_printf(t, "%s%" PRId64 ",", i == p->run_first[k] ? "" : ";", (int64_t)r->move);
            put_esc(t, jrow_str(b, r->a));
            tb_put(t, ",", 1);
            put_esc(t, jrow_str(b, r->b));
            tb_printf(t, ",%" PRId64 ",", r->at - r0->at);
            if (r->think_ms >= 0)
                tb_printf(t, "%" PRId64, (int64_t)r->think_ms);
            tb_put(t, ",", 1);
            if (r->wait_ms >= 0)
                tb_printf(t, "%" PRId64, (int64_t)r->wait_ms);
        }
        if (t->failed)
            a[BA_R_PLIES].failed = true;
        else
            arr_str(&a[BA_R_PLIES], t->p);
        /* the plies' thinking lines: the text of a TEXT[] (each line quoted
         * in it, the whole quoted again as an element of r_info), or NULL
         * when none of them has one, as most runs */
        bool any = false;
        for (int i = p->run_first[k]; i >= 0; i = p->run_next[i])
            any = any || jrow_str(b, b->row[i].info) != NULL;
        if (!any) {
            arr_str(&a[BA_R_INFO], NULL);
            continue;
        }
        tb_reset(t);
        tb_put(t, "{", 1);
        for (int i = p->run_first[k]; i >= 0; i = p->run_next[i])
            arr_str(t, jrow_str(b, b->row[i].info));
        tb_put(t, "}", 1);
        if (t->failed)
            a[BA_R_INFO].failed = true;
        else
            arr_str(&a[BA_R_INFO], t->p);
    }
}

/* The batch's rows as the parameters of tessera_batch (p->arg), its fence
 * numbered `fence` and following batch `prev` (< 0: none); false when
 * out of memory. */
static bool put_batch(journal_backend *p, const journal_batch *b, int64_t fence, int64_t prev)
{
    journal *j = p->j;
    textbuf *a = p->arg;
    for (int i = 0; i < BA_N; i++)
        tb_reset(&a[i]);
    tb_puts(&a[BA_INST], j->instance);
    tb_printf(&a[BA_TOKEN], "%" PRId64, p->token);
    tb_printf(&a[BA_BATCH], "%" PRId64, fence);
    tb_printf(&a[BA_TTL], "%d", p->lease_ms);
    tb_printf(&a[BA_PREV], "%" PRId64, prev); /* sent as NULL when < 0 (pg_write) */
    for (int i = BA_R_MATCH; i < BA_N; i++)
        tb_put(&a[i], "{", 1);
    int nmatch = 0; /* the rows that may name a match of their own: at most that many */
    for (int i = 0; i < b->n; i++)
        nmatch += b->row[i].kind != JR_TOKEN;
    if (!updates_reserve(p, nmatch) || !runs_reserve(p, b->n))
        return false;
    for (int i = 0; i < b->n; i++) {
        const journal_row *r = &b->row[i];
        const char *id = jrow_str(b, r->match);
        pg_update *u = NULL;
        switch (r->kind) {
        case JR_MOVE:
            add_ply(p, b, i);
            break;
        case JR_TOKEN:
            arr_str(&a[BA_T_TOKEN], jrow_str(b, r->a));
            arr_str(&a[BA_T_MATCH], id);
            arr_int(&a[BA_T_SEAT], r->n, false);
            break;
        case JR_SEATS:
            u = update_of(p, b, r->match);
            u->what |= UW_SEATS;
            u->seats = r->a;
            u->status = r->n;
            break;
        case JR_FINISH:
            u = update_of(p, b, r->match);
            u->what |= UW_SEATS | UW_FINISH;
            u->seats = r->a;
            u->status = r->n;
            u->finished = r->at;
            u->result = r->b;
            break;
        case JR_SUMMARY:
            u = update_of(p, b, r->match);
            u->what |= UW_SUMMARY;
            u->summary = r->a;
            break;
        }
    }
    put_runs(p, b);
    for (int i = 0; i < p->nupd; i++) {
        const pg_update *u = &p->upd[i];
        if (!u->what)
            continue; /* plies alone: the match's row stays as it is */
        arr_str(&a[BA_U_ID], jrow_str(b, u->id));
        arr_int(&a[BA_U_WHAT], u->what, false);
        arr_str(&a[BA_U_SEATS], jrow_str(b, u->seats));
        arr_int(&a[BA_U_STATUS], u->status, false);
        arr_int(&a[BA_U_FINISHED], u->finished, false);
        arr_str(&a[BA_U_RESULT], jrow_str(b, u->result));
        arr_str(&a[BA_U_SUMMARY], jrow_str(b, u->summary));
    }
    bool ok = true;
    for (int i = 0; i < BA_N; i++) {
        if (i >= BA_R_MATCH)
            tb_put(&a[i], "}", 1);
        ok = ok && !a[i].failed;
    }
    return ok;
}

/* Whether the batches whose answers were lost committed: the instance row
 * holds the number of the last batch committed (the fence wrote it). */
static void settle_lost(journal_backend *p)
{
    journal *j = p->j;
    assert(p->nlost > 0 && !p->settled && !p->nfl);
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
    bool gone = rc == DB_DONE || db_column_int64(q, 0) != p->token;
    int64_t fence = gone ? 0 : db_column_int64(q, 1);
    db_finalize(q);
    if (gone)
        fenced_out(p, "the instance's lease row is gone or carries another token");
    p->settled = true;
    p->settled_fence = fence;
}

/* Write a batch: behind those in the pipeline (its fence chained to the
 * last of them), or, after the connection was lost, first settle the
 * batches lost with it, oldest first — journal.c sends them again in that
 * order: each one that committed is stored now, and the first that did not
 * goes again (none after it committed). */
static int pg_write(journal_backend *p, const journal_batch *b, uint64_t *commit)
{
    journal *j = p->j;
    pg_check(p);
    assert(b->n > 0);
    if (p->beat || p->draining || p->own || db_in_transaction(j->dbh))
        return JOURNAL_BUSY;
    SRV_ASSERT(p->nfl < PG_DEPTH); /* journal.c keeps to the depth */
    if (p->nlost) {
        if (!p->settled)
            settle_lost(p);
        if (!p->settled) {
            journal__failed(j, JF_UNREACHABLE, "batch", NULL, db_errmsg(j->dbh), 0);
            return JOURNAL_FAILED; /* cannot tell yet: nothing may go before it */
        }
        pg_flight f = p->lost[0];
        memmove(&p->lost[0], &p->lost[1], (size_t)(p->nlost - 1) * sizeof p->lost[0]);
        p->nlost--;
        if (f.fence <= p->settled_fence) {
            srv_log(LOG_INFO, "journal_batch_settled", "{s:I, s:s}", "batch", (json_int_t)f.fence,
                    "outcome", "committed before the connection was lost");
            p->settled = p->nlost > 0;
            p->nbatches++;
            p->nrows += (uint64_t)f.rows;
            SRV_ASSERT(f.commit >= j->synced && f.commit <= j->committed);
            j->synced = f.commit;
            *commit = f.commit;
            return JOURNAL_STORED; /* it had: not again */
        }
        /* it did not commit, nor any after it (their fences follow it): all again */
        p->nlost = 0;
        p->settled = false;
    }
    PGconn *c = p->nfl ? p->c : conn_ready(p);
    if (!c)
        return JOURNAL_FAILED;
    assert(c == db_pg(j->dbh));
    /* the batch before it in the pipeline, if any: it commits only after it */
    int64_t fence = p->batch_no + 1, prev = p->nfl ? p->fl[p->nfl - 1].fence : -1;
    if (!put_batch(p, b, fence, prev)) {
        if (p->nfl)
            return JOURNAL_BUSY; /* those in flight go on; it waits for them */
        journal__failed(j, JF_OTHER, "batch", NULL, "out of memory for the journal's batch", 0);
        return JOURNAL_FAILED;
    }
    if (!p->nfl && PQpipelineStatus(c) == PQ_PIPELINE_OFF && !PQenterPipelineMode(c)) {
        journal__failed(j, JF_OTHER, "batch", NULL, PQerrorMessage(c), 0);
        return JOURNAL_FAILED;
    }
    p->result_msg[0] = 0;
    const char *values[BA_N];
    for (int i = 0; i < BA_N; i++)
        values[i] = p->arg[i].p ? p->arg[i].p : ""; /* never grown: empty, not NULL */
    if (prev < 0)
        values[BA_PREV] = NULL; /* none to follow */
    if (!PQsendQueryParams(c, batch_call, BA_N, NULL, values, NULL, NULL, 0))
        return send_failed(p, c);
    p->batch_no = fence;
    p->fl[p->nfl++] = (pg_flight){.fence = fence, .commit = ++j->committed, .rows = b->n};
    if (!PQpipelineSync(c))
        return send_failed(p, c);
    p->last_sent_ms = journal__now(j);
    poll_update(p);
    return JOURNAL_SENT;
}

/* The heartbeat's answer, read whole (block) or as far as it has come. */
static void receive_beat(journal_backend *p, PGconn *c, bool block)
{
    for (;;) {
        if (!block && PQisBusy(c))
            return;
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
    if (PQstatus(c) != CONNECTION_OK && p->result_code == DB_OK) {
        /* the connection went with the query's answer */
        p->result_code = DB_ELOST;
        snprintf(p->result_msg, sizeof p->result_msg, "%s", PQerrorMessage(c));
    }
    p->beat = false;
    int code = p->result_code;
    p->result_code = DB_OK;
    if (code == DB_EFENCED)
        fenced_out(p, p->result_msg);
    if (code != DB_OK)
        journal__failed(p->j, journal__kind_of_db(code), "batch", NULL, p->result_msg, 0);
    else
        journal__ok(p->j);
}

/* The batches' answers in order, read all (block) or as far as they have
 * come: per batch its results, a NULL, and its sync. */
static void receive_batches(journal_backend *p, PGconn *c, bool block)
{
    bool after_null = false;
    while (p->nfl > 0) {
        if (!block && PQisBusy(c))
            return;
        PGresult *r = PQgetResult(c);
        if (!r) {
            /* the end of a query's results; never twice in a row while a
             * sync is awaited, unless the connection is gone */
            if (PQstatus(c) != CONNECTION_OK || after_null) {
                conn_lost(p, PQerrorMessage(c), true);
                return;
            }
            after_null = true;
            continue;
        }
        after_null = false;
        ExecStatusType st = PQresultStatus(r);
        if (st == PGRES_PIPELINE_SYNC) {
            PQclear(r);
            batch_answered(p);
            if (p->c != c) /* journal.c's callbacks let the connection go */
                return;
            continue;
        }
        if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK && p->result_code == DB_OK) {
            p->result_code = db_pg_set_error(p->j->dbh, r);
            snprintf(p->result_msg, sizeof p->result_msg, "%s", db_errmsg(p->j->dbh));
        }
        PQclear(r);
        if (PQstatus(c) != CONNECTION_OK) {
            conn_lost(p, PQerrorMessage(c), true);
            return;
        }
    }
    pipeline_off(p, c);
}

/* Read what has arrived; finish each query whose answer is in.
 * block: wait for all of them (a synchronous statement is about to run). */
static void receive(journal_backend *p, bool block)
{
    PGconn *c = p->c; /* the connection the queries went out on */
    if (!p->nfl && !p->beat)
        return;
    if (!c || c != db_pg(p->j->dbh)) {
        conn_lost(p, "the connection to PostgreSQL was lost", true);
        return;
    }
    if (block) {
        PQsetnonblocking(c, 0);
        while (PQflush(c) > 0) {
        }
    } else if (PQflush(c) < 0 || !PQconsumeInput(c)) {
        conn_lost(p, PQerrorMessage(c), true);
        return;
    }
    if (p->beat)
        receive_beat(p, c, block);
    else
        receive_batches(p, c, block);
    if (p->c != c)
        return; /* lost: on_lost closed its poll */
    if (block)
        PQsetnonblocking(c, 1);
    poll_update(p);
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
        if (p->nfl || p->beat)
            conn_lost(p, uv_strerror(status), true);
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
    bool awaited = p->nfl || p->beat;
    if (awaited)
        want |= UV_READABLE;
    if (awaited && PQflush(c) == 1)
        want |= UV_WRITABLE;
    if (want == p->poll_events)
        return;
    p->poll_events = want;
    if (want)
        uv_poll_start(p->poll, want, on_poll);
    else
        uv_poll_stop(p->poll);
}

/* The heartbeat: an idle server's lease must not expire. */
static void on_tick(uv_timer_t *t)
{
    journal_backend *p = t->data;
    journal *j = p->j;
    if (p->stopping || p->nfl || p->beat || p->nlost || p->own || j->fault || j->failed ||
        j->nflight)
        return;
    if (journal__now(j) - p->last_sent_ms < JOURNAL_LEASE_BEAT_MS || db_in_transaction(j->dbh))
        return;
    put_fence(p);
    send_beat(p);
}

/* db.h: the connection is about to be closed and replaced. */
static void on_lost(void *arg)
{
    journal_backend *p = arg;
    if (p->nfl || p->beat)
        conn_lost(p, "the connection to PostgreSQL was lost", true);
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

/* Every answer awaited, and out of pipeline mode: another module's
 * statement is about to run on the connection. */
static void pg_wait(journal_backend *p)
{
    if (p->own)
        return;
    if (p->nfl || p->beat)
        receive(p, true);
    if (p->c && p->c == db_pg(p->j->dbh))
        pipeline_off(p, p->c);
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
    int rc = db_prepare(j->dbh, "SELECT tessera_fence(?1, ?2, ?3, ?4, NULL)", &q);
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
    srv_log(LOG_INFO, "journal_batches", "{s:I, s:I, s:I, s:i}", "batches",
            (json_int_t)p->nbatches, "rows", (json_int_t)p->nrows, "most_rows_per_batch",
            (json_int_t)p->most_per_batch, "most_in_flight", j->st.most_in_flight);
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
    for (int i = 0; i < BA_N; i++)
        tb_free(&p->arg[i]);
    free(p->upd);
    free(p->slot);
    free(p->run_first);
    free(p->run_next);
    tb_free(&p->plies);
    db_close(p->j->dbh);
    free(p);
}

const journal_ops journal_pg = {
    .name = "postgres",
    .shared = true,
    .depth = PG_DEPTH,
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
