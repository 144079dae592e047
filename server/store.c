/*
 * store.c — the journal: every match and every move in SQLite.
 *
 * A move is written (and committed) before anyone hears of it, so a server
 * killed at any instant restarts with exactly the moves it had announced.
 * Chance outcomes (the tiles drawn) are journaled when drawn, so a restarted
 * match keeps the tile its player already saw; the secret seed stays in the
 * database and re-seeds the future draws.
 *
 * Durability: WAL mode. With synchronous=NORMAL a commit is a write to the
 * WAL without fsync — safe against a crash of the process (kill -9), which
 * is what the server must survive, and cheap enough (tens of microseconds)
 * for the loop thread. `--durable` switches to synchronous=FULL to survive
 * power loss as well, at the cost of an fsync per move.
 *
 * Checkpoints (copying the WAL into the database, with fsyncs that take
 * milliseconds) never run on the loop thread: automatic checkpoints are off,
 * and a timer hands a passive checkpoint on a second connection to the
 * thread pool every second.
 */
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"

struct store {
    sqlite3 *db;
    sqlite3 *ckpt_db;          /* used only by checkpoint work on the thread pool */
    uv_timer_t ckpt_timer;
    uv_work_t ckpt_req;
    bool ckpt_busy;            /* a checkpoint is on the pool */
    bool closing;
    int appends;               /* store_append calls that committed (test hook) */
    sqlite3_stmt *ins_match, *ins_move, *upd_seats, *upd_finish, *begin, *commit, *rollback;
};

static const char schema[] =
    "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "INSERT OR IGNORE INTO meta VALUES('schema','1');"
    "CREATE TABLE IF NOT EXISTS matches("
    "  id TEXT PRIMARY KEY, game TEXT NOT NULL, rules TEXT NOT NULL, seats TEXT NOT NULL,"
    "  time_control TEXT NOT NULL, policies TEXT NOT NULL, seed INTEGER NOT NULL,"
    "  status INTEGER NOT NULL, created INTEGER NOT NULL, finished INTEGER, result TEXT,"
    "  demo INTEGER NOT NULL DEFAULT 0);"
    "CREATE TABLE IF NOT EXISTS moves("
    "  match TEXT NOT NULL, ply INTEGER NOT NULL, move INTEGER NOT NULL, by TEXT, reason TEXT,"
    "  at INTEGER NOT NULL, PRIMARY KEY(match, ply)) WITHOUT ROWID;"
    "CREATE INDEX IF NOT EXISTS matches_status ON matches(status, created);";

static int prep(store *st, sqlite3_stmt **out, const char *sql)
{
    return sqlite3_prepare_v3(st->db, sql, -1, SQLITE_PREPARE_PERSISTENT, out, NULL);
}

int store_open(srv *s, const char *path, bool durable, char *err, size_t errcap)
{
    /* SQLite says only "unable to open database file": name the usual causes */
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        snprintf(err, errcap, "database %s: is a directory, not a database file", path);
        return ENG_ESTORAGE;
    }
    if (stat(path, &sb) != 0 && errno != ENOENT) {
        snprintf(err, errcap, "database %s: %s", path, strerror(errno));
        return ENG_ESTORAGE;
    }
    const char *slash = strrchr(path, '/');
    char dir[1024];
    if (slash && slash != path && (size_t)(slash - path) < sizeof dir) {
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
        if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
            snprintf(err, errcap, "database %s: the folder %s does not exist", path, dir);
            return ENG_ESTORAGE;
        }
    }
    store *st = calloc(1, sizeof *st);
    if (!st) {
        snprintf(err, errcap, "out of memory");
        return ENG_ENOMEM;
    }
    int rc = sqlite3_open_v2(path, &st->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
    if (rc != SQLITE_OK)
        goto fail;
    sqlite3_busy_timeout(st->db, 5000);
    char pragmas[160];
    snprintf(pragmas, sizeof pragmas,
             "PRAGMA journal_mode=WAL; PRAGMA synchronous=%s; PRAGMA foreign_keys=ON;",
             durable ? "FULL" : "NORMAL");
    if ((rc = sqlite3_exec(st->db, pragmas, NULL, NULL, NULL)) != SQLITE_OK)
        goto fail;
    if ((rc = sqlite3_exec(st->db, schema, NULL, NULL, NULL)) != SQLITE_OK)
        goto fail;
    if ((rc = sqlite3_exec(st->db, "PRAGMA wal_autocheckpoint=0;", NULL, NULL, NULL)) != SQLITE_OK)
        goto fail;
    if ((rc = sqlite3_open_v2(path, &st->ckpt_db, SQLITE_OPEN_READWRITE, NULL)) != SQLITE_OK)
        goto fail;
    sqlite3_busy_timeout(st->ckpt_db, 5000);
    if ((rc = prep(st, &st->ins_match,
                   "INSERT INTO matches(id,game,rules,seats,time_control,policies,seed,status,"
                   "created,demo) VALUES(?,?,?,?,?,?,?,?,?,?)")) ||
        (rc = prep(st, &st->ins_move,
                   "INSERT INTO moves(match,ply,move,by,reason,at) VALUES(?,?,?,?,?,?)")) ||
        (rc = prep(st, &st->upd_seats, "UPDATE matches SET seats=?, status=? WHERE id=?")) ||
        (rc = prep(st, &st->upd_finish,
                   "UPDATE matches SET status=?, finished=?, result=?, seats=? WHERE id=?")) ||
        (rc = prep(st, &st->begin, "BEGIN IMMEDIATE")) || (rc = prep(st, &st->commit, "COMMIT")) ||
        (rc = prep(st, &st->rollback, "ROLLBACK")))
        goto fail;
    s->db = st;
    return 0;
fail:
    snprintf(err, errcap, "database %s: %s", path, st->db ? sqlite3_errmsg(st->db) : "cannot open");
    if (st->ckpt_db)
        sqlite3_close_v2(st->ckpt_db);
    if (st->db)
        sqlite3_close_v2(st->db);
    free(st);
    return ENG_ESTORAGE;
}

static void ckpt_work(uv_work_t *req)
{
    store *st = req->data;
    int log = 0, done = 0;
    sqlite3_wal_checkpoint_v2(st->ckpt_db, NULL, SQLITE_CHECKPOINT_PASSIVE, &log, &done);
}

static void ckpt_done(uv_work_t *req, int status)
{
    (void)status;
    store *st = req->data;
    st->ckpt_busy = false;
}

static void ckpt_tick(uv_timer_t *t)
{
    store *st = t->data;
    if (st->ckpt_busy || st->closing)
        return;
    st->ckpt_req.data = st;
    if (uv_queue_work(t->loop, &st->ckpt_req, ckpt_work, ckpt_done) == 0)
        st->ckpt_busy = true;
}

void store_start_checkpoints(srv *s)
{
    store *st = s->db;
    uv_timer_init(s->loop, &st->ckpt_timer);
    st->ckpt_timer.data = st;
    uv_timer_start(&st->ckpt_timer, ckpt_tick, 1000, 1000);
}

void store_stop_checkpoints(srv *s)
{
    store *st = s->db;
    if (!st || st->closing)
        return;
    st->closing = true;
    uv_timer_stop(&st->ckpt_timer);
    uv_close((uv_handle_t *)&st->ckpt_timer, NULL);
}

void store_close(srv *s)
{
    store *st = s->db;
    if (!st)
        return;
    sqlite3_finalize(st->ins_match);
    sqlite3_finalize(st->ins_move);
    sqlite3_finalize(st->upd_seats);
    sqlite3_finalize(st->upd_finish);
    sqlite3_finalize(st->begin);
    sqlite3_finalize(st->commit);
    sqlite3_finalize(st->rollback);
    sqlite3_close_v2(st->ckpt_db); /* its work has drained with the loop */
    sqlite3_close_v2(st->db);      /* the last connection checkpoints the WAL */
    free(st);
    s->db = NULL;
}

/* Run a one-shot prepared statement; returns SQLITE_DONE on success. */
static int step(sqlite3_stmt *stmt)
{
    int rc = sqlite3_step(stmt);
    sqlite3_reset(stmt);
    sqlite3_clear_bindings(stmt);
    return rc;
}

static void log_db_error(const store *st, const char *what, const match *m)
{
    srv_log(LOG_ERROR, "storage_error", "{s:s, s:s, s:s}", "what", what, "match", m->id, "sqlite",
            sqlite3_errmsg(st->db));
}

/* The seats as stored: everything needed to resume them. */
static char *seats_json(const match *m)
{
    json_t *a = json_array();
    for (int i = 0; i < m->nseats; i++) {
        const seat_t *t = &m->seats[i];
        json_array_append_new(
            a, json_pack("{s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:i, s:i, s:b, s:b}", "kind",
                         t->kind == SEAT_BOT ? "bot" : "open", "name", t->name, "spec", t->spec,
                         "token", t->token, "resume", t->resume, "bank_ms", (json_int_t)t->bank_ms,
                         "grace_ms", (json_int_t)t->grace_ms, "illegal", t->illegal, "moves",
                         t->moves, "joined", t->joined, "takeover", t->takeover));
    }
    char *txt = json_dumps(a, JSON_COMPACT);
    json_decref(a);
    return txt;
}

static char *dump_obj(json_t *o)
{
    char *t = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    return t;
}

int store_create_match(srv *s, const match *m)
{
    store *st = s->db;
    char *rules = dump_obj(wire_rules_json(m->g, &m->rules));
    char *seats = seats_json(m);
    char *tc = dump_obj(json_pack("{s:I, s:I, s:I, s:I}", "move_ms", (json_int_t)m->tc.move_ms,
                                  "first_move_ms", (json_int_t)m->tc.first_move_ms, "bank_ms",
                                  (json_int_t)m->tc.bank_ms, "increment_ms",
                                  (json_int_t)m->tc.increment_ms));
    char *pol = dump_obj(json_pack(
        "{s:i, s:i, s:i, s:i, s:I, s:I}", "timeout", m->pol.timeout, "illegal", m->pol.illegal,
        "max_illegal", m->pol.max_illegal, "disconnect", m->pol.disconnect, "reconnect_grace_ms",
        (json_int_t)m->pol.reconnect_grace_ms, "grace_ms", (json_int_t)m->pol.grace_ms));
    int rc = ENG_ENOMEM;
    if (rules && seats && tc && pol) {
        sqlite3_stmt *q = st->ins_match;
        sqlite3_bind_text(q, 1, m->id, -1, SQLITE_STATIC);
        sqlite3_bind_text(q, 2, m->g->name, -1, SQLITE_STATIC);
        sqlite3_bind_text(q, 3, rules, -1, SQLITE_STATIC);
        sqlite3_bind_text(q, 4, seats, -1, SQLITE_STATIC);
        sqlite3_bind_text(q, 5, tc, -1, SQLITE_STATIC);
        sqlite3_bind_text(q, 6, pol, -1, SQLITE_STATIC);
        sqlite3_bind_int64(q, 7, (sqlite3_int64)m->seed);
        sqlite3_bind_int(q, 8, m->status);
        sqlite3_bind_int64(q, 9, m->created_ms);
        sqlite3_bind_int(q, 10, m->demo);
        rc = step(q) == SQLITE_DONE ? 0 : ENG_ESTORAGE;
        if (rc)
            log_db_error(st, "create_match", m);
    }
    free(rules);
    free(seats);
    free(tc);
    free(pol);
    return rc;
}

/* The seats row (clocks, counters, connections) and status of a match. */
static int write_seats(store *st, const match *m)
{
    char *seats = seats_json(m);
    if (!seats)
        return SQLITE_NOMEM;
    sqlite3_bind_text(st->upd_seats, 1, seats, -1, free); /* SQLite frees it */
    sqlite3_bind_int(st->upd_seats, 2, m->status);
    sqlite3_bind_text(st->upd_seats, 3, m->id, -1, SQLITE_STATIC);
    return step(st->upd_seats);
}

int store_append(srv *s, const match *m, int from, int to, const char *by, const char *reason)
{
    store *st = s->db;
    if (step(st->begin) != SQLITE_DONE) {
        log_db_error(st, "begin", m);
        return ENG_ESTORAGE;
    }
    int64_t now = srv_epoch_ms();
    for (int i = from; i < to; i++) {
        sqlite3_stmt *q = st->ins_move;
        sqlite3_bind_text(q, 1, m->id, -1, SQLITE_STATIC);
        sqlite3_bind_int(q, 2, i);
        sqlite3_bind_int(q, 3, m->moves[i]);
        if (by)
            sqlite3_bind_text(q, 4, by, -1, SQLITE_STATIC);
        if (reason)
            sqlite3_bind_text(q, 5, reason, -1, SQLITE_STATIC);
        sqlite3_bind_int64(q, 6, now);
        if (step(q) != SQLITE_DONE)
            goto fail;
    }
    /* a draw changes no seat; a seat's move changes its clock and counters */
    if ((!by || strcmp(by, "chance") != 0) && write_seats(st, m) != SQLITE_DONE)
        goto fail;
    if (step(st->commit) != SQLITE_DONE)
        goto fail;
    if (++st->appends == s->test.readonly_after) {
        /* test hook (limits.h): the database turns read-only from now on */
        sqlite3_exec(st->db, "PRAGMA query_only=1;", NULL, NULL, NULL);
        srv_log(LOG_WARN, "test_readonly", "{s:i}", "appends", st->appends);
    }
    return 0;
fail:
    log_db_error(st, "append", m);
    step(st->rollback);
    return ENG_ESTORAGE;
}

int store_update_seats(srv *s, const match *m)
{
    store *st = s->db;
    if (write_seats(st, m) != SQLITE_DONE) {
        log_db_error(st, "update_seats", m);
        return ENG_ESTORAGE;
    }
    return 0;
}

int store_finish(srv *s, const match *m)
{
    store *st = s->db;
    char *res = json_dumps(m->result, JSON_COMPACT);
    char *seats = seats_json(m);
    int rc = ENG_ENOMEM;
    if (res && seats) {
        sqlite3_stmt *q = st->upd_finish;
        sqlite3_bind_int(q, 1, m->status);
        sqlite3_bind_int64(q, 2, m->finished_ms);
        sqlite3_bind_text(q, 3, res, -1, SQLITE_STATIC);
        sqlite3_bind_text(q, 4, seats, -1, SQLITE_STATIC);
        sqlite3_bind_text(q, 5, m->id, -1, SQLITE_STATIC);
        rc = step(q) == SQLITE_DONE ? 0 : ENG_ESTORAGE;
        if (rc)
            log_db_error(st, "finish", m);
    }
    free(res);
    free(seats);
    return rc;
}

static const char *col_text(sqlite3_stmt *q, int i)
{
    const unsigned char *t = sqlite3_column_text(q, i);
    return t ? (const char *)t : "";
}

/* Restore the matches selected by `sql` (one row per match). */
static int load_rows(srv *s, const char *sql, int *count, char *err, size_t errcap)
{
    store *st = s->db;
    sqlite3_stmt *q = NULL, *mv = NULL;
    int rc = 0;
    if (prep(st, &q, sql) || prep(st, &mv, "SELECT move FROM moves WHERE match=? ORDER BY ply")) {
        snprintf(err, errcap, "database: %s", sqlite3_errmsg(st->db));
        sqlite3_finalize(q);
        sqlite3_finalize(mv);
        return ENG_ESTORAGE;
    }
    int cap = 256;
    eng_move *moves = malloc((size_t)cap * sizeof *moves);
    while (moves && sqlite3_step(q) == SQLITE_ROW) {
        const char *id = col_text(q, 0);
        int n = 0;
        sqlite3_bind_text(mv, 1, id, -1, SQLITE_TRANSIENT);
        while (sqlite3_step(mv) == SQLITE_ROW) {
            if (n == cap) {
                eng_move *bigger = realloc(moves, (size_t)cap * 2 * sizeof *moves);
                if (!bigger)
                    break;
                moves = bigger;
                cap *= 2;
            }
            moves[n++] = sqlite3_column_int(mv, 0);
        }
        sqlite3_reset(mv);
        char why[256];
        match *m = match_restore(s, id, col_text(q, 1), col_text(q, 2), col_text(q, 3),
                                 col_text(q, 4), col_text(q, 5), (uint64_t)sqlite3_column_int64(q, 6),
                                 sqlite3_column_int(q, 7), col_text(q, 8), sqlite3_column_int64(q, 9),
                                 sqlite3_column_int64(q, 10), moves, n, why, sizeof why);
        if (!m)
            srv_log(LOG_ERROR, "restore_failed", "{s:s, s:s}", "match", id, "reason", why);
        else {
            m->demo = sqlite3_column_int(q, 11) != 0;
            (*count)++;
        }
    }
    if (!moves)
        rc = ENG_ENOMEM;
    free(moves);
    sqlite3_finalize(q);
    sqlite3_finalize(mv);
    return rc;
}

int store_load(srv *s, char *err, size_t errcap)
{
    int live = 0, done = 0;
    char sql[512];
    /* the latest finished ones first, so that the list shows them */
    snprintf(sql, sizeof sql,
             "SELECT id,game,rules,seats,time_control,policies,seed,status,result,created,"
             "finished,demo FROM (SELECT * FROM matches WHERE status=%d ORDER BY created DESC "
             "LIMIT %d) ORDER BY created",
             MATCH_FINISHED, s->finished_kept);
    int rc = load_rows(s, sql, &done, err, errcap);
    if (rc)
        return rc;
    snprintf(sql, sizeof sql,
             "SELECT id,game,rules,seats,time_control,policies,seed,status,result,created,"
             "finished,demo FROM matches WHERE status<>%d ORDER BY created",
             MATCH_FINISHED);
    rc = load_rows(s, sql, &live, err, errcap);
    if (rc)
        return rc;
    srv_log(LOG_INFO, "restored", "{s:i, s:i}", "unfinished", live, "finished", done);
    return 0;
}

int store_resume_status(srv *s, const char *token)
{
    store *st = s->db;
    if (!st || !token || !*token)
        return -1;
    /* rare path (a finished match no longer held in memory): a scan is fine;
     * instr() with a bound pattern, so the token is never SQL or a LIKE pattern */
    char pat[SRV_TOKEN_LEN + 32];
    snprintf(pat, sizeof pat, "\"resume\":\"%s\"", token);
    sqlite3_stmt *q = NULL;
    int status = -1;
    if (prep(st, &q, "SELECT status FROM matches WHERE instr(seats, ?) > 0 LIMIT 1") == SQLITE_OK) {
        sqlite3_bind_text(q, 1, pat, -1, SQLITE_TRANSIENT);
        if (sqlite3_step(q) == SQLITE_ROW)
            status = sqlite3_column_int(q, 0);
    }
    sqlite3_finalize(q);
    return status;
}
