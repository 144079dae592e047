/*
 * store.c — the journal: every match and every move in SQLite.
 *
 * A move is written (and committed) before anyone hears of it, so a server
 * killed at any instant restarts with exactly the moves it had announced.
 * Chance outcomes (the tiles drawn) are journaled when drawn, so a restarted
 * match keeps the tile its player already saw; the secret seed and the
 * commitment's nonce stay in the database, and chance event k is drawn from
 * the seed and k alone (eng_chance_draw), so the draws after a restart are
 * the ones the committed seed gives.
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
 *
 * Versions. Moves are stored as the engine's move integers, whose meaning is
 * the game's (eng_game.move_encoding): every match row records the encoding
 * its moves were written in, and a match whose encoding this build does not
 * read is refused at restore (restore_failed) rather than misread. The
 * tables' layout has a version of its own (meta 'schema', STORE_SCHEMA): an
 * older database is migrated when opened (schema 1 had no move_encoding
 * column; its matches are encoding 1; schemas 1 and 2 had no chance_nonce:
 * their matches have no commitment and their records no chance block), a
 * newer one is refused with a message saying so. Restoring never truncates
 * silently: a journal that cannot be read whole (more moves than the game
 * can have, a gap in the plies, a move that is not an integer, an SQLite
 * error) fails that match's restore, loudly.
 */
#include <errno.h>
#include <sqlite3.h>
#include <stdint.h>
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
    jt_buf seats_txt;          /* write_seats: the seats' text, reused move after move */
};

/* The layout of the tables; bump with a migration in migrate() when it changes. */
#define STORE_SCHEMA 3

/* The tables at STORE_SCHEMA, for a new database. */
static const char schema[] =
    "CREATE TABLE IF NOT EXISTS matches("
    "  id TEXT PRIMARY KEY, game TEXT NOT NULL, rules TEXT NOT NULL, seats TEXT NOT NULL,"
    "  time_control TEXT NOT NULL, policies TEXT NOT NULL, seed INTEGER NOT NULL,"
    "  status INTEGER NOT NULL, created INTEGER NOT NULL, finished INTEGER, result TEXT,"
    "  demo INTEGER NOT NULL DEFAULT 0, move_encoding INTEGER NOT NULL DEFAULT 1,"
    "  chance_nonce TEXT);"
    "CREATE TABLE IF NOT EXISTS moves("
    "  match TEXT NOT NULL, ply INTEGER NOT NULL, move INTEGER NOT NULL, by TEXT, reason TEXT,"
    "  at INTEGER NOT NULL, PRIMARY KEY(match, ply)) WITHOUT ROWID;"
    "CREATE INDEX IF NOT EXISTS matches_status ON matches(status, created);";

static int prep(store *st, sqlite3_stmt **out, const char *sql)
{
    return sqlite3_prepare_v3(st->db, sql, -1, SQLITE_PREPARE_PERSISTENT, out, NULL);
}

/* One integer from a query (the first column of its first row), or `def`
 * when there is no row. Returns an SQLite code. */
static int query_int(sqlite3 *db, const char *sql, long long def, long long *out)
{
    sqlite3_stmt *q = NULL;
    int rc = sqlite3_prepare_v2(db, sql, -1, &q, NULL);
    if (rc != SQLITE_OK)
        return rc;
    *out = def;
    rc = sqlite3_step(q);
    if (rc == SQLITE_ROW) {
        *out = sqlite3_column_int64(q, 0);
        rc = SQLITE_OK;
    } else if (rc == SQLITE_DONE) {
        rc = SQLITE_OK;
    }
    sqlite3_finalize(q);
    return rc;
}

/* Bring the tables to STORE_SCHEMA: create them in a new database, migrate
 * an older one, refuse a newer one (or one whose version is not a number)
 * with a message in err. Returns 0, ENG_ESTORAGE (an SQLite error: err is
 * left for the caller) or ENG_EBAD_VERSION. */
static int migrate(store *st, const char *path, char *err, size_t errcap)
{
    sqlite3 *db = st->db;
    if (sqlite3_exec(db,
                     "BEGIN IMMEDIATE;"
                     "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);",
                     NULL, NULL, NULL) != SQLITE_OK)
        return ENG_ESTORAGE;
    long long version = 0, has_matches = 0, numeric = 1;
    int rc = query_int(db, "SELECT value FROM meta WHERE key='schema'", 0, &version);
    if (rc == SQLITE_OK)
        rc = query_int(db,
                       "SELECT value GLOB '[1-9]*' AND value NOT GLOB '*[^0-9]*' FROM meta "
                       "WHERE key='schema'",
                       1, &numeric);
    if (rc == SQLITE_OK)
        rc = query_int(db,
                       "SELECT count(*) FROM sqlite_master WHERE type='table' AND "
                       "name='matches'",
                       0, &has_matches);
    if (rc != SQLITE_OK)
        goto sqlite_fail;
    if (!numeric || version > STORE_SCHEMA || (version < 1 && has_matches)) {
        /* a newer layout, or a meta row that is not a version at all */
        char shown[40] = "?";
        sqlite3_stmt *q = NULL;
        if (sqlite3_prepare_v2(db, "SELECT substr(value,1,32) FROM meta WHERE key='schema'", -1, &q,
                               NULL) == SQLITE_OK &&
            sqlite3_step(q) == SQLITE_ROW)
            snprintf(shown, sizeof shown, "'%s'", (const char *)sqlite3_column_text(q, 0));
        sqlite3_finalize(q);
        for (char *ch = shown; *ch; ch++) /* it goes to a terminal */
            if ((unsigned char)*ch < 0x20 || (unsigned char)*ch > 0x7e)
                *ch = '?';
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
        snprintf(err, errcap,
                 "database %s has journal schema version %s; this tessera reads versions 1 to %d "
                 "(was it written by a newer tessera?): refusing to open it rather than misread it",
                 path, shown, STORE_SCHEMA);
        return ENG_EBAD_VERSION;
    }
    if (version == 0) { /* a new database */
        if (sqlite3_exec(db, schema, NULL, NULL, NULL) != SQLITE_OK)
            goto sqlite_fail;
    } else if (version < STORE_SCHEMA) {
        /* schema 1: no move_encoding column; every match it holds is encoding 1 */
        if (version == 1 &&
            sqlite3_exec(db,
                         "ALTER TABLE matches ADD COLUMN move_encoding INTEGER NOT NULL DEFAULT 1;",
                         NULL, NULL, NULL) != SQLITE_OK)
            goto sqlite_fail;
        /* schemas 1 and 2: no chance_nonce; their matches have no commitment */
        if (sqlite3_exec(db, "ALTER TABLE matches ADD COLUMN chance_nonce TEXT;", NULL, NULL,
                         NULL) != SQLITE_OK)
            goto sqlite_fail;
        srv_log(LOG_INFO, "journal_migrated", "{s:s, s:i, s:i}", "db", path, "from", (int)version,
                "to", STORE_SCHEMA);
    }
    char sql[96];
    snprintf(sql, sizeof sql, "INSERT OR REPLACE INTO meta VALUES('schema','%d'); COMMIT;",
             STORE_SCHEMA);
    if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
        goto sqlite_fail;
    return 0;
sqlite_fail:
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    return ENG_ESTORAGE;
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
    int vrc = migrate(st, path, err, errcap);
    if (vrc == ENG_EBAD_VERSION) {
        sqlite3_close_v2(st->db);
        free(st);
        return vrc;
    }
    if (vrc) {
        rc = SQLITE_ERROR;
        goto fail;
    }
    if ((rc = sqlite3_exec(st->db, "PRAGMA wal_autocheckpoint=0;", NULL, NULL, NULL)) != SQLITE_OK)
        goto fail;
    if ((rc = sqlite3_open_v2(path, &st->ckpt_db, SQLITE_OPEN_READWRITE, NULL)) != SQLITE_OK)
        goto fail;
    sqlite3_busy_timeout(st->ckpt_db, 5000);
    if ((rc = prep(st, &st->ins_match,
                   "INSERT INTO matches(id,game,rules,seats,time_control,policies,seed,status,"
                   "created,demo,move_encoding,chance_nonce) VALUES(?,?,?,?,?,?,?,?,?,?,?,?)")) ||
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
    jt_free(&st->seats_txt);
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
static char *dump_obj(json_t *o)
{
    char *t = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    return t;
}

/* The text seats_json() writes, without building it as a tree first (every
 * move rewrites the seats: clocks and counters), in st's reusable buffer. */
static const jt_buf *seats_text(store *st, const match *m)
{
    static const char *const kinds[] = {[SEAT_BOT] = "bot", [SEAT_OPEN] = "open",
                                        [SEAT_PROGRAM] = "program", [SEAT_REMOTE] = "remote"};
    jt_buf *b = &st->seats_txt;
    jt_reset(b);
#define KEY(k) jt_raw(b, "\"" k "\":", sizeof(k) + 2)
#define STR(s) jt_str(b, (s), strlen(s))
    jt_raw(b, "[", 1);
    for (int i = 0; i < m->nseats; i++) {
        const seat_t *t = &m->seats[i];
        jt_raw(b, i ? ",{" : "{", i ? 2 : 1);
        KEY("kind"), STR(kinds[t->kind]), jt_raw(b, ",", 1);
        KEY("name"), STR(t->name), jt_raw(b, ",", 1);
        KEY("spec"), STR(t->spec), jt_raw(b, ",", 1);
        KEY("token"), STR(t->token), jt_raw(b, ",", 1);
        KEY("resume"), STR(t->resume), jt_raw(b, ",", 1);
        KEY("bank_ms"), jt_int(b, t->bank_ms), jt_raw(b, ",", 1);
        KEY("grace_ms"), jt_int(b, t->grace_ms), jt_raw(b, ",", 1);
        KEY("illegal"), jt_int(b, t->illegal), jt_raw(b, ",", 1);
        KEY("moves"), jt_int(b, t->moves), jt_raw(b, ",", 1);
        KEY("joined"), jt_raw(b, t->joined ? "true," : "false,", t->joined ? 5 : 6);
        KEY("takeover"), jt_raw(b, t->takeover ? "true," : "false,", t->takeover ? 5 : 6);
        KEY("used_ms"), jt_int(b, t->used_ms), jt_raw(b, "}", 1);
    }
    jt_raw(b, "]", 1);
#undef KEY
#undef STR
    return b;
}

/* The same text, allocated (the caller frees it), or NULL. */
static char *seats_json(store *st, const match *m)
{
    const jt_buf *b = seats_text(st, m);
    char *t = b->failed ? NULL : malloc(b->len + 1);
    if (t) {
        memcpy(t, b->p, b->len);
        t[b->len] = 0;
    }
    return t;
}

int store_create_match(srv *s, const match *m)
{
    store *st = s->db;
    char *rules = dump_obj(wire_rules_json(m->g, &m->rules));
    char *seats = seats_json(st, m);
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
        sqlite3_bind_int(q, 11, m->g->move_encoding);
        char nonce[CHANCE_NONCE_HEX];
        chance_nonce_hex(m->nonce, nonce);
        if (m->has_nonce)
            sqlite3_bind_text(q, 12, nonce, -1, SQLITE_TRANSIENT);
        else
            sqlite3_bind_null(q, 12);
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
    const jt_buf *seats = seats_text(st, m);
    if (seats->failed)
        return SQLITE_NOMEM;
    sqlite3_bind_text(st->upd_seats, 1, seats->p, (int)seats->len, SQLITE_TRANSIENT);
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
    char *seats = seats_json(st, m);
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

/* The most moves any registered game can have: the size of the one buffer
 * a restore reads a match's moves into (no growing, so no journal is ever
 * cut short by a failed allocation). */
static int max_plies_of_all_games(void)
{
    int n, most = 1;
    const eng_game *const *all = eng_games(&n);
    for (int i = 0; i < n; i++)
        if (all[i]->max_plies > most)
            most = all[i]->max_plies;
    return most;
}

/* Read the moves of match `id` into moves[0..*n): every ply from 0 in order,
 * each an integer, at most `most`. Returns 0, or -1 with the reason in why
 * (the restore of that match fails: nothing is ever silently cut short). */
static int read_moves(store *st, sqlite3_stmt *mv, const char *id, eng_move *moves, int most,
                      int *n, char *why, size_t whycap)
{
    *n = 0;
    sqlite3_bind_text(mv, 1, id, -1, SQLITE_TRANSIENT);
    int rc;
    while ((rc = sqlite3_step(mv)) == SQLITE_ROW) {
        if (*n == most) {
            snprintf(why, whycap,
                     "the journal holds more than %d moves, more than the game can have", most);
            goto fail;
        }
        if (sqlite3_column_type(mv, 0) != SQLITE_INTEGER || sqlite3_column_int64(mv, 0) != *n) {
            snprintf(why, whycap, "the journal's move %d is missing (plies must run 0, 1, 2, ...)",
                     *n);
            goto fail;
        }
        sqlite3_int64 v = sqlite3_column_int64(mv, 1);
        if (sqlite3_column_type(mv, 1) != SQLITE_INTEGER || v < INT32_MIN || v > INT32_MAX) {
            snprintf(why, whycap, "the journal's move %d is not a move integer", *n);
            goto fail;
        }
        moves[(*n)++] = (eng_move)v;
    }
    if (rc != SQLITE_DONE) {
        snprintf(why, whycap, "reading its moves: %s", sqlite3_errmsg(st->db));
        goto fail;
    }
    sqlite3_reset(mv);
    return 0;
fail:
    sqlite3_reset(mv);
    return -1;
}

/* Restore the matches selected by `sql` (one row per match). A match that
 * cannot be restored is logged (restore_failed, with the reason) and left
 * in the journal; the others are restored. Returns 0, or a negative code
 * with err when the journal cannot be read at all. */
static int load_rows(srv *s, const char *sql, int *count, char *err, size_t errcap)
{
    store *st = s->db;
    sqlite3_stmt *q = NULL, *mv = NULL;
    if (prep(st, &q, sql) ||
        prep(st, &mv, "SELECT ply, move FROM moves WHERE match=? ORDER BY ply")) {
        snprintf(err, errcap, "database: %s", sqlite3_errmsg(st->db));
        sqlite3_finalize(q);
        sqlite3_finalize(mv);
        return ENG_ESTORAGE;
    }
    int most = max_plies_of_all_games();
    eng_move *moves = malloc((size_t)most * sizeof *moves);
    if (!moves) {
        snprintf(err, errcap, "out of memory for the journal's moves");
        sqlite3_finalize(q);
        sqlite3_finalize(mv);
        return ENG_ENOMEM;
    }
    int rc = 0, step;
    while ((step = sqlite3_step(q)) == SQLITE_ROW) {
        const char *id = col_text(q, 0), *game = col_text(q, 1);
        const eng_game *g = eng_find_game(game);
        long long encoding = sqlite3_column_int64(q, 12);
        char why[256];
        int n = 0;
        match *m = NULL;
        if (g && encoding != g->move_encoding)
            snprintf(why, sizeof why,
                     "its moves were journaled in %s move encoding %lld; this tessera reads "
                     "encoding %d, and will not misread them",
                     g->name, encoding, g->move_encoding);
        else if (read_moves(st, mv, id, moves, g ? g->max_plies : most, &n, why, sizeof why) == 0)
            m = match_restore(s, id, game, col_text(q, 2), col_text(q, 3), col_text(q, 4),
                              col_text(q, 5), (uint64_t)sqlite3_column_int64(q, 6),
                              (const char *)sqlite3_column_text(q, 13), sqlite3_column_int(q, 7),
                              col_text(q, 8), sqlite3_column_int64(q, 9),
                              sqlite3_column_int64(q, 10), moves, n, why, sizeof why);
        if (!m) {
            srv_log(LOG_ERROR, "restore_failed", "{s:s, s:s}", "match", id, "reason", why);
        } else {
            m->demo = sqlite3_column_int(q, 11) != 0;
            (*count)++;
        }
    }
    if (step != SQLITE_DONE) {
        snprintf(err, errcap, "database: reading the matches: %s", sqlite3_errmsg(st->db));
        rc = ENG_ESTORAGE;
    }
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
             "finished,demo,move_encoding,chance_nonce FROM (SELECT * FROM matches "
             "WHERE status=%d ORDER BY created DESC LIMIT %d) ORDER BY created",
             MATCH_FINISHED, s->finished_kept);
    int rc = load_rows(s, sql, &done, err, errcap);
    if (rc)
        return rc;
    snprintf(sql, sizeof sql,
             "SELECT id,game,rules,seats,time_control,policies,seed,status,result,created,"
             "finished,demo,move_encoding,chance_nonce FROM matches WHERE status<>%d "
             "ORDER BY created",
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

struct sqlite3 *store_handle(srv *s)
{
    return s->db ? s->db->db : NULL;
}

int store_match_result(srv *s, const char *id, int *status, json_t **result)
{
    store *st = s->db;
    *result = NULL;
    if (!st)
        return -1;
    sqlite3_stmt *q = NULL;
    int rc = -1;
    if (prep(st, &q, "SELECT status, result FROM matches WHERE id=?") == SQLITE_OK) {
        sqlite3_bind_text(q, 1, id, -1, SQLITE_TRANSIENT);
        if (sqlite3_step(q) == SQLITE_ROW) {
            *status = sqlite3_column_int(q, 0);
            const char *res = col_text(q, 1);
            if (res[0])
                *result = json_loads(res, 0, NULL);
            rc = 0;
        }
    }
    sqlite3_finalize(q);
    return rc;
}
