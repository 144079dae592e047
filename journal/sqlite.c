/*
 * sqlite.c — the journal on SQLite (journal_int.h): a WAL-mode file
 * the loop thread writes, a batch a transaction.
 *
 * Durability: WAL mode. With synchronous=NORMAL a commit is a write to the
 * WAL without fsync — safe against a crash of the process (kill -9), which
 * is what the server must survive, and cheap enough (tens of microseconds)
 * for the loop thread. `--durable` survives power loss as well, through
 * group sync: commits stay synchronous=NORMAL, every message queued after a
 * commit waits (net.c) until a thread of ours has fdatasync'd the WAL past
 * that commit, and one fsync covers every commit made before it began — all
 * the moves of a loop iteration or more, while the loop goes on with the
 * next ones. A move costs one fsync of latency, not one fsync of
 * throughput. A failed fsync stops the server (durable_sync_failed): after
 * one, what is on disk is unknown, and nothing not known to be there has
 * been announced.
 *
 * Checkpoints (copying the WAL into the database, with fsyncs that take
 * milliseconds) run on the thread pool: automatic checkpoints are off, and a
 * timer hands a passive checkpoint on a second connection to the pool every
 * second. A passive checkpoint copies the frames the WAL holds when it
 * starts; SQLite writes the WAL from its beginning again only when a write
 * finds every frame copied, which never happens while the loop writes during
 * every checkpoint (a busy server): the WAL, and its index mapped in memory
 * (the -shm file, 8 bytes a frame, resident), would grow without bound. So
 * when a pass finds the WAL longer than JOURNAL_WAL_RESET_FRAMES and copied it
 * all, the loop thread, the only writer, copies the few frames written
 * during the pass (the tail: a short stall, measured in
 * tessera_journal_checkpoint_stall_seconds); the next write then starts the
 * WAL again, and journal_size_limit truncates the file to its bound.
 *
 * Versions. Moves are stored as the engine's move integers, whose meaning is
 * the game's (eng_game.move_encoding): every match row records the encoding
 * its moves were written in, and a match whose encoding this build does not
 * read is refused at restore (restore_failed) rather than misread. The
 * tables' layout has a version of its own (meta 'schema', STORE_SCHEMA): an
 * older database is migrated when opened (schema 1 had no move_encoding
 * column; its matches are encoding 1; schemas 1 and 2 had no chance_nonce:
 * their matches have no commitment and their records no chance block;
 * schemas 1 to 3 had no think_ms/wait_ms on moves: their turns have no time
 * figures; schemas 1 to 4 had no info: their turns have no thinking line;
 * schema 5 kept a turn's line on its move's row, where its rows keep it and
 * are read as they were), a newer one is refused with a message saying so.
 *
 * Time. A seat's turn keeps its time figures (docs/records.md, "Time") on
 * the row of its first move: think_ms, the player's own measure (what a
 * remote client reported with its move, an in-process bot's search time, a
 * program's CPU time), and wait_ms, the server's from asking the seat to
 * receiving the move; NULL where there is none (chance events, the other
 * moves of a turn, moves a policy played). Its thinking line (the last a
 * player sent before it, compact JSON text: thinking.c) is kept apart from
 * the moves, so that a move's row and the pages a commit writes are the
 * same with lines as without (lines.c: a log appended in order while the
 * match is live, a row of `infos` once it is finished); `moves.info` is
 * NULL on new rows and read where an older journal wrote it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "journal_int.h"
#include "lines.h"

struct journal_backend {
    journal *j;
    sqlite3 *db;
    sqlite3 *ckpt_db;          /* used only by checkpoint work on the thread pool */
    uv_timer_t ckpt_timer;
    uv_work_t ckpt_req;
    bool ckpt_busy;            /* a checkpoint is on the pool */
    int ckpt_rc, ckpt_log, ckpt_copied; /* the pool's pass: SQLite's code, frames, copied */
    bool started, closing;
    int appends;               /* journal_append calls that committed (test hook) */
    sqlite3_stmt *ins_move, *upd_seats, *upd_status, *upd_finish, *begin, *commit,
        *rollback, *ins_token;
    sq_lines *lines;           /* the turns' thinking lines (lines.c) */
    int err_code;              /* the failed write's SQLite (extended) code ... */
    char err_msg[200];         /* ... and message, read before the rollback */
    /* --durable: group sync (see "Durability" above). Loop thread: */
    bool durable;
    bool inline_sync;          /* no sync thread (shutdown): each commit syncs at once */
    bool syncing;              /* the sync thread runs */
    bool in_flight;            /* a sync was asked for and has not reported */
    uint64_t nsyncs, most_per_sync, sync_ns, sync_t0; /* figures for the log */
    uv_async_t sync_done;      /* the sync thread reports */
    uv_thread_t sync_thr;
    char wal_path[1100], db_path[1100], dir_path[1100];
    /* shared with the sync thread, under mu: */
    uv_mutex_t mu;
    uv_cond_t cv;
    uint64_t sync_req, sync_reached; /* asked for / reached */
    int sync_errno;                  /* a failed fsync: the server stops */
    const char *sync_what;
    bool sync_quit;
    int wal_fd;                      /* the sync thread's own */
    bool first_sync_done;            /* the database file and folder synced once */
    int64_t sync_size;               /* test hook sync_log: the WAL's size when asked */
    FILE *sync_log;                  /* test hook sync_log (TESSERA_TEST_SYNC_LOG) */
};

/* ---- faults ----------------------------------------------------------------------------- */

/*
 * Test hook TESSERA_TEST_FAULT_FILE (limits.h): a file whose first word
 * names the fault to inject into the journal's writes — `disk_full`
 * (SQLITE_FULL), `io_error` (SQLITE_IOERR_WRITE) — or `none`. It is read
 * before each write, so a test turns a fault on and off while the server
 * runs. The fault is injected where a real one happens: a VFS wrapped
 * around SQLite's default one fails xWrite, xTruncate and xSync, so SQLite
 * takes its own error paths (a statement or COMMIT failing, a rollback).
 */
static _Atomic int injected; /* SQLite code the wrapped VFS returns, 0: none */

typedef struct fault_file {
    sqlite3_file base;       /* our methods */
    sqlite3_file *real;      /* the wrapped file, right after this struct */
} fault_file;

static sqlite3_vfs fault_vfs;
static sqlite3_io_methods fault_io;
static sqlite3_vfs *real_vfs;

#define REAL(f) (((fault_file *)(f))->real)
static int f_close(sqlite3_file *f)
{
    return REAL(f)->pMethods->xClose(REAL(f));
}
static int f_read(sqlite3_file *f, void *b, int n, sqlite3_int64 o)
{
    return REAL(f)->pMethods->xRead(REAL(f), b, n, o);
}
static int f_write(sqlite3_file *f, const void *b, int n, sqlite3_int64 o)
{
    int e = atomic_load(&injected);
    return e ? e : REAL(f)->pMethods->xWrite(REAL(f), b, n, o);
}
static int f_truncate(sqlite3_file *f, sqlite3_int64 size)
{
    int e = atomic_load(&injected);
    return e ? e : REAL(f)->pMethods->xTruncate(REAL(f), size);
}
static int f_sync(sqlite3_file *f, int flags)
{
    int e = atomic_load(&injected);
    return e ? (e == SQLITE_FULL ? SQLITE_FULL : SQLITE_IOERR_FSYNC)
             : REAL(f)->pMethods->xSync(REAL(f), flags);
}
static int f_size(sqlite3_file *f, sqlite3_int64 *size)
{
    return REAL(f)->pMethods->xFileSize(REAL(f), size);
}
static int f_lock(sqlite3_file *f, int l)
{
    return REAL(f)->pMethods->xLock(REAL(f), l);
}
static int f_unlock(sqlite3_file *f, int l)
{
    return REAL(f)->pMethods->xUnlock(REAL(f), l);
}
static int f_check(sqlite3_file *f, int *out)
{
    return REAL(f)->pMethods->xCheckReservedLock(REAL(f), out);
}
static int f_fcntl(sqlite3_file *f, int op, void *arg)
{
    return REAL(f)->pMethods->xFileControl(REAL(f), op, arg);
}
static int f_sector(sqlite3_file *f)
{
    return REAL(f)->pMethods->xSectorSize(REAL(f));
}
static int f_devchar(sqlite3_file *f)
{
    return REAL(f)->pMethods->xDeviceCharacteristics(REAL(f));
}
static int f_shmmap(sqlite3_file *f, int pg, int sz, int ext, void volatile **pp)
{
    return REAL(f)->pMethods->xShmMap(REAL(f), pg, sz, ext, pp);
}
static int f_shmlock(sqlite3_file *f, int off, int n, int flags)
{
    return REAL(f)->pMethods->xShmLock(REAL(f), off, n, flags);
}
static void f_shmbarrier(sqlite3_file *f)
{
    REAL(f)->pMethods->xShmBarrier(REAL(f));
}
static int f_shmunmap(sqlite3_file *f, int del)
{
    return REAL(f)->pMethods->xShmUnmap(REAL(f), del);
}
static int f_fetch(sqlite3_file *f, sqlite3_int64 o, int n, void **pp)
{
    return REAL(f)->pMethods->xFetch(REAL(f), o, n, pp);
}
static int f_unfetch(sqlite3_file *f, sqlite3_int64 o, void *p)
{
    return REAL(f)->pMethods->xUnfetch(REAL(f), o, p);
}

static int f_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *file, int flags, int *out)
{
    (void)vfs;
    fault_file *ff = (fault_file *)file;
    ff->real = (sqlite3_file *)(ff + 1);
    int rc = real_vfs->xOpen(real_vfs, name, ff->real, flags, out);
    /* a file the real VFS did not open has no methods to wrap */
    ff->base.pMethods = rc == SQLITE_OK && ff->real->pMethods ? &fault_io : NULL;
    return rc;
}

void journal_fault_hook_install(void)
{
    if (real_vfs)
        return;
    real_vfs = sqlite3_vfs_find(NULL);
    if (!real_vfs)
        return;
    fault_vfs = *real_vfs;
    fault_vfs.zName = "tessera-fault";
    fault_vfs.szOsFile = (int)sizeof(fault_file) + real_vfs->szOsFile;
    fault_vfs.xOpen = f_open;
    fault_io = (sqlite3_io_methods){3,         f_close,    f_read,     f_write,     f_truncate,
                                    f_sync,    f_size,     f_lock,     f_unlock,    f_check,
                                    f_fcntl,   f_sector,   f_devchar,  f_shmmap,    f_shmlock,
                                    f_shmbarrier, f_shmunmap, f_fetch, f_unfetch};
    sqlite3_vfs_register(&fault_vfs, 1);
}

/* Read the test hook's fault file (when set): the fault in force from now. */
static void fault_poll(const journal *j)
{
    if (!j->cfg.fault_file[0])
        return;
    char word[32] = "";
    FILE *f = fopen(j->cfg.fault_file, "r");
    if (f) {
        if (fscanf(f, "%31s", word) != 1)
            word[0] = 0;
        fclose(f);
    }
    int e = strcmp(word, "disk_full") == 0  ? SQLITE_FULL
            : strcmp(word, "io_error") == 0 ? SQLITE_IOERR_WRITE
                                            : 0;
    if (e != atomic_load(&injected))
        srv_log(LOG_WARN, "test_fault", "{s:s}", "fault", e ? word : "none");
    atomic_store(&injected, e);
}

static int classify(int code)
{
    switch (code & 0xff) {
    case SQLITE_FULL: return JF_DISK_FULL;
    case SQLITE_IOERR: return JF_IO_ERROR;
    case SQLITE_BUSY:
    case SQLITE_LOCKED: return JF_LOCKED;
    case SQLITE_READONLY: return JF_READONLY;
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB: return JF_CORRUPT;
    default: return JF_OTHER;
    }
}

/* Keep the failed statement's code and message (before a rollback resets
 * them). */
static void write_failed(journal_backend *st)
{
    if (st->err_code != SQLITE_OK)
        return; /* the first failure is the cause */
    st->err_code = sqlite3_extended_errcode(st->db);
    if (st->err_code == SQLITE_OK)
        st->err_code = SQLITE_ERROR;
    snprintf(st->err_msg, sizeof st->err_msg, "%s", sqlite3_errmsg(st->db));
}

/* A write failed: the journal's fault, with SQLite's code and message. */
static void report(journal_backend *st, const char *what, const char *match)
{
    journal__failed(st->j, classify(st->err_code), what, match, st->err_msg, st->err_code);
}

/* Run a one-shot prepared statement; returns SQLITE_DONE on success. */
static int step(sqlite3_stmt *stmt)
{
    int rc = sqlite3_step(stmt);
    sqlite3_reset(stmt);
    sqlite3_clear_bindings(stmt);
    return rc;
}

/* step() a write: true when done, else its error is kept (write_failed). */
static bool step_or_fail(journal_backend *st, sqlite3_stmt *stmt)
{
    int rc = sqlite3_step(stmt);
    if (rc != SQLITE_DONE)
        write_failed(st);
    sqlite3_reset(stmt);
    sqlite3_clear_bindings(stmt);
    return rc == SQLITE_DONE;
}

/* ---- the tables -------------------------------------------------------------------------- */

/* The layout of the tables; bump with a migration in migrate() when it changes. */
#define STORE_SCHEMA 6

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
    "  at INTEGER NOT NULL, think_ms INTEGER, wait_ms INTEGER, info TEXT,"
    "  PRIMARY KEY(match, ply)) WITHOUT ROWID;"
    "CREATE INDEX IF NOT EXISTS matches_status ON matches(status, created);" SQ_LINES_SCHEMA;

static int prep(journal_backend *st, sqlite3_stmt **out, const char *sql)
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

/* Is the database a tessera journal — one holding meta's 'schema' row — or
 * empty? Another program's SQLite file given as --db is refused before
 * anything changes it (issue 29: one was adopted and written to). Returns
 * 0, ENG_ESTORAGE with the reason in err, or an SQLite error (not a
 * database at all: the caller names it). Only reads. */
static int foreign_check(sqlite3 *db, const char *path, int *sqlite_rc, char *err, size_t errcap)
{
    long long tables = 0, ours = 0;
    int rc = query_int(db,
                       "SELECT count(*) FROM sqlite_master WHERE type='table' AND "
                       "name NOT LIKE 'sqlite\\_%' ESCAPE '\\'",
                       0, &tables);
    if (rc == SQLITE_OK && tables > 0)
        rc = query_int(db,
                       "SELECT count(*) FROM sqlite_master WHERE type='table' AND name='meta'", 0,
                       &ours);
    if (rc == SQLITE_OK && ours > 0)
        rc = query_int(db, "SELECT count(*) FROM meta WHERE key='schema'", 0, &ours);
    if (rc != SQLITE_OK) {
        *sqlite_rc = rc;
        return rc;
    }
    if (tables == 0 || ours > 0)
        return 0;
    char names[200] = "";
    sqlite3_stmt *q = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT group_concat(name, ', ') FROM (SELECT substr(name, 1, 32) AS name "
                           "FROM sqlite_master WHERE type='table' ORDER BY name LIMIT 5)",
                           -1, &q, NULL) == SQLITE_OK &&
        sqlite3_step(q) == SQLITE_ROW && sqlite3_column_text(q, 0))
        snprintf(names, sizeof names, "%s", (const char *)sqlite3_column_text(q, 0));
    sqlite3_finalize(q);
    for (char *ch = names; *ch; ch++) /* it goes to a terminal */
        if ((unsigned char)*ch < 0x20 || (unsigned char)*ch > 0x7e)
            *ch = '?';
    snprintf(err, errcap,
             "database %s is not a tessera journal (it holds %lld table%s: %s%s, and no tessera "
             "schema): refusing to use it, and it was left as it was; give --db a new file or a "
             "tessera journal",
             path, tables, tables == 1 ? "" : "s", names, tables > 5 ? ", ..." : "");
    return ENG_ESTORAGE;
}

/* Bring the tables to STORE_SCHEMA: create them in a new database, migrate
 * an older one, refuse a newer one (or one whose version is not a number)
 * with a message in err. Returns 0, ENG_ESTORAGE (an SQLite error: err is
 * left for the caller) or ENG_EBAD_VERSION. */
static int migrate(journal_backend *st, const char *path, char *err, size_t errcap)
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
        if (version <= 2 && sqlite3_exec(db, "ALTER TABLE matches ADD COLUMN chance_nonce TEXT;",
                                         NULL, NULL, NULL) != SQLITE_OK)
            goto sqlite_fail;
        /* schemas 1 to 3: no time figures; their turns have none */
        if (version <= 3 && sqlite3_exec(db,
                                         "ALTER TABLE moves ADD COLUMN think_ms INTEGER;"
                                         "ALTER TABLE moves ADD COLUMN wait_ms INTEGER;",
                                         NULL, NULL, NULL) != SQLITE_OK)
            goto sqlite_fail;
        /* schemas 1 to 4: no thinking lines; their turns have none */
        if (version <= 4 && sqlite3_exec(db, "ALTER TABLE moves ADD COLUMN info TEXT;", NULL,
                                         NULL, NULL) != SQLITE_OK)
            goto sqlite_fail;
        /* schemas 1 to 5: the lines were kept in `moves` (its rows keep
         * them, and are read as they were); from now on apart (lines.c) */
        if (sqlite3_exec(db, SQ_LINES_SCHEMA, NULL, NULL, NULL) != SQLITE_OK)
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

/* PRAGMA quick_check (or integrity_check) at start-up: a damaged database
 * is refused with what SQLite found, rather than served until a read of a
 * damaged page fails in the middle of a match. Returns 0, or -1 with err. */
static int check_integrity(journal_backend *st, const char *path, int level, char *err, size_t errcap)
{
    sqlite3_stmt *q = NULL;
    const char *sql = level == JOURNAL_CHECK_FULL ? "PRAGMA integrity_check(5)" : "PRAGMA quick_check(5)";
    char found[400] = "";
    size_t n = 0;
    int rc = sqlite3_prepare_v2(st->db, sql, -1, &q, NULL);
    while (rc == SQLITE_OK && (rc = sqlite3_step(q)) == SQLITE_ROW) {
        const char *line = (const char *)sqlite3_column_text(q, 0);
        if (line && strcmp(line, "ok") != 0 && n < sizeof found)
            n += (size_t)snprintf(found + n, sizeof found - n, "%s%s", n ? "; " : "", line);
        rc = SQLITE_OK;
    }
    if (rc != SQLITE_DONE && !found[0])
        snprintf(found, sizeof found, "%s", sqlite3_errmsg(st->db));
    sqlite3_finalize(q);
    if (!found[0])
        return 0;
    for (char *c = found; *c; c++) /* it goes to a terminal */
        if ((unsigned char)*c < 0x20 || (unsigned char)*c > 0x7e)
            *c = '?';
    snprintf(err, errcap,
             "database %s is damaged (SQLite's %s check: %s): restore it from a backup, or move "
             "it aside to start with an empty one (docs/operations.md, \"Backups\")",
             path, level == JOURNAL_CHECK_FULL ? "integrity" : "quick", found);
    return -1;
}

/* The index of resume tokens (token -> match, seat), so that a finished
 * match no longer held in memory is found by its token without reading
 * every match. Made when missing, from the seats of the stored matches.
 * Returns an SQLite code. */
static int token_table(journal_backend *st)
{
    long long exists = 0;
    int rc = query_int(st->db,
                       "SELECT count(*) FROM sqlite_master WHERE type='table' AND "
                       "name='resume_tokens'",
                       0, &exists);
    if (rc != SQLITE_OK || exists)
        return rc;
    return sqlite3_exec(st->db,
                        "BEGIN IMMEDIATE;"
                        "CREATE TABLE resume_tokens(token TEXT PRIMARY KEY, match TEXT NOT NULL,"
                        "  seat INTEGER NOT NULL) WITHOUT ROWID;"
                        "INSERT OR IGNORE INTO resume_tokens(token, match, seat)"
                        "  SELECT json_extract(j.value, '$.resume'), m.id, CAST(j.key AS INTEGER)"
                        "  FROM matches m, json_each(m.seats) j"
                        "  WHERE json_valid(m.seats) AND json_type(m.seats) = 'array'"
                        "    AND json_type(j.value, '$.resume') = 'text'"
                        "    AND json_extract(j.value, '$.resume') <> '';"
                        "COMMIT;",
                        NULL, NULL, NULL);
}

/* ---- --durable: group sync ------------------------------------------------------ */

/*
 * Every commit on the journal's connection (the matches' writes, and the
 * tournaments', courses' and registry's on the same connection) is counted
 * by the WAL hook. A message queued while some commit is not yet known to be
 * on disk carries that commit's number (journal_hold) and net.c keeps it
 * until journal_synced() reaches it. A thread of our own (not the libuv pool,
 * where searches can hold every thread for seconds) fdatasyncs the WAL: one
 * sync for every commit made before it began, however many. While it runs,
 * the loop goes on reading moves and committing them, and their answers wait
 * for the next sync: a group commit, at the cost of one fsync of latency.
 */
static int on_wal_commit(void *arg, sqlite3 *db, const char *name, int pages)
{
    (void)db, (void)name, (void)pages;
    journal_backend *st = arg;
    journal *j = st->j;
    j->committed++;
    if (st->inline_sync) {
        /* no sync thread (it has stopped at shutdown): sync at once */
        int fd = open(st->wal_path, O_RDWR | O_CLOEXEC);
        if (fd >= 0) {
            fdatasync(fd);
            close(fd);
        }
    }
    if (!st->durable || st->inline_sync)
        j->synced = j->committed;
    return SQLITE_OK;
}

static int fsync_path(const char *path, int flags)
{
    int fd = open(path, flags | O_CLOEXEC);
    if (fd < 0)
        return errno;
    int rc = fsync(fd) ? errno : 0;
    close(fd);
    return rc;
}

/* On the sync thread: the WAL (and, the first time, the database file and
 * its folder, so that a new database's files are there after a power cut).
 * Returns 0 or an errno, with what failed in *what. */
static int sync_files(journal_backend *st, const char **what)
{
    int rc;
    if (!st->first_sync_done) {
        *what = "the database file";
        if ((rc = fsync_path(st->db_path, O_RDWR)))
            return rc;
        *what = "the database's folder";
        if ((rc = fsync_path(st->dir_path, O_RDONLY)))
            return rc;
        st->first_sync_done = true;
    }
    *what = "the write-ahead log";
    if (st->wal_fd < 0 && (st->wal_fd = open(st->wal_path, O_RDWR | O_CLOEXEC)) < 0)
        return errno;
    if (fdatasync(st->wal_fd))
        return errno;
    if (st->sync_log) {
        fprintf(st->sync_log, "%lld\n", (long long)st->sync_size);
        fflush(st->sync_log);
    }
    return 0;
}

/* Test hook sync_log: each sync waits this long before its fsync, so that
 * the moves committed meanwhile are written and not yet synced — the window
 * a power cut lands in on a slow disk, which a fast idle machine all but
 * closes (test_durable cut no unsynced bytes in 10 of 12 runs there). */
#define SYNC_LOG_HOLD_MS 25

static void sync_thread(void *arg)
{
    journal_backend *st = arg;
    uv_mutex_lock(&st->mu);
    for (;;) {
        while (!st->sync_quit && st->sync_req == st->sync_reached)
            uv_cond_wait(&st->cv, &st->mu);
        if (st->sync_quit)
            break;
        uint64_t target = st->sync_req;
        uv_mutex_unlock(&st->mu);
        if (st->sync_log)
            uv_sleep(SYNC_LOG_HOLD_MS);
        const char *what = "";
        int rc = sync_files(st, &what);
        uv_mutex_lock(&st->mu);
        st->sync_reached = target;
        if (rc && !st->sync_errno) {
            st->sync_errno = rc;
            st->sync_what = what;
        }
        uv_async_send(&st->sync_done);
    }
    uv_mutex_unlock(&st->mu);
}

/* Ask for a sync of every commit made so far, unless one is running (its
 * report asks for the next). */
static void sync_kick(journal_backend *st)
{
    journal *j = st->j;
    if (!st->syncing || st->in_flight || j->committed == j->synced)
        return;
    st->in_flight = true;
    st->sync_t0 = uv_hrtime();
    struct stat sb;
    uv_mutex_lock(&st->mu);
    if (st->sync_log) /* every commit so far is in the WAL's first bytes */
        st->sync_size = stat(st->wal_path, &sb) == 0 ? (int64_t)sb.st_size : 0;
    st->sync_req = j->committed;
    uv_cond_signal(&st->cv);
    uv_mutex_unlock(&st->mu);
}

/* The end of a loop round (before it polls, and after its I/O callbacks):
 * under --durable a sync of the round's commits is asked for. */
static void round_end(journal_backend *st)
{
    if (!st->closing)
        sync_kick(st);
}

static void on_sync_done(uv_async_t *h)
{
    journal_backend *st = h->data;
    uv_mutex_lock(&st->mu);
    uint64_t reached = st->sync_reached;
    int err = st->sync_errno;
    const char *what = st->sync_what;
    uv_mutex_unlock(&st->mu);
    if (err) {
        /* after a failed fsync the kernel may have dropped the pages: what is
         * on disk is unknown, and retrying would claim too much. Nothing held
         * is sent; the next start restores what the journal really holds. */
        srv_log(LOG_ERROR, "durable_sync_failed", "{s:s, s:s, s:s}", "what", what, "error",
                strerror(err), "note",
                "the server stops without announcing the moves not known to be on disk");
        fprintf(stderr, "tessera serve: --durable: syncing %s failed: %s; stopping\n", what,
                strerror(err));
        _exit(1);
    }
    journal *j = st->j;
    if (!st->in_flight || reached <= j->synced)
        return;
    st->in_flight = false;
    st->nsyncs++;
    st->sync_ns += uv_hrtime() - st->sync_t0;
    if (reached - j->synced > st->most_per_sync)
        st->most_per_sync = reached - j->synced;
    j->synced = reached;
    journal__synced(j); /* net.c writes what waited for this sync */
    sync_kick(st);
}

/* Start the sync thread and its loop handles (--durable). */
static int sync_start(journal_backend *st)
{
    journal *j = st->j;
    if (uv_mutex_init(&st->mu))
        return -1;
    if (uv_cond_init(&st->cv)) {
        uv_mutex_destroy(&st->mu);
        return -1;
    }
    uv_async_init(j->cfg.loop, &st->sync_done, on_sync_done);
    st->sync_done.data = st;
    uv_unref((uv_handle_t *)&st->sync_done);
    st->wal_fd = -1;
    if (j->cfg.sync_log[0] && !(st->sync_log = fopen(j->cfg.sync_log, "a")))
        srv_log(LOG_ERROR, "test_sync_log", "{s:s, s:s}", "file", j->cfg.sync_log, "error",
                strerror(errno));
    if (uv_thread_create(&st->sync_thr, sync_thread, st)) {
        srv_log(LOG_ERROR, "durable_unavailable", "{s:s}", "reason",
                "the sync thread could not be started");
        return -1;
    }
    st->syncing = true;
    return 0;
}

/* Stop the thread: sync what is left on this thread, release it, and from
 * now on each commit syncs at once (shutdown). */
static void sync_stop(journal_backend *st)
{
    journal *j = st->j;
    if (!st->syncing)
        return;
    uv_mutex_lock(&st->mu);
    st->sync_quit = true;
    uv_cond_signal(&st->cv);
    uv_mutex_unlock(&st->mu);
    uv_thread_join(&st->sync_thr);
    st->syncing = false;
    st->inline_sync = true;
    const char *what = "";
    int rc = j->committed > j->synced ? sync_files(st, &what) : 0;
    if (st->wal_fd >= 0)
        close(st->wal_fd);
    st->wal_fd = -1;
    if (rc) {
        srv_log(LOG_ERROR, "durable_sync_failed", "{s:s, s:s}", "what", what, "error",
                strerror(rc));
    } else {
        j->synced = j->committed;
        journal__synced(j);
    }
    uv_close((uv_handle_t *)&st->sync_done, NULL);
    uv_cond_destroy(&st->cv);
    uv_mutex_destroy(&st->mu);
    if (st->sync_log)
        fclose(st->sync_log);
    st->sync_log = NULL;
    srv_log(LOG_INFO, "journal_syncs", "{s:I, s:I, s:I, s:f}", "syncs", (json_int_t)st->nsyncs,
            "commits", (json_int_t)j->committed, "most_commits_per_sync",
            (json_int_t)st->most_per_sync, "mean_sync_ms",
            st->nsyncs ? (double)st->sync_ns / 1e6 / (double)st->nsyncs : 0.0);
}

static void ckpt_work(uv_work_t *req)
{
    journal_backend *st = req->data;
    st->ckpt_log = st->ckpt_copied = -1;
    st->ckpt_rc = sqlite3_wal_checkpoint_v2(st->ckpt_db, NULL, SQLITE_CHECKPOINT_PASSIVE,
                                            &st->ckpt_log, &st->ckpt_copied);
}

/* Loop thread, after the pool's pass: its figures, and when the WAL is past
 * its bound and the pass copied all it held, the tail (see "Checkpoints"). */
static void ckpt_done(uv_work_t *req, int status)
{
    journal_backend *st = req->data;
    journal_stats *js = &st->j->st;
    st->ckpt_busy = false;
    if (status != 0 || st->closing || st->ckpt_rc != SQLITE_OK)
        return;
    js->ckpt_passes++;
    js->wal_frames = st->ckpt_log;
    js->wal_copied = st->ckpt_copied;
    if (st->ckpt_log < st->j->cfg.wal_reset_frames || st->ckpt_copied != st->ckpt_log)
        return;
    uint64_t t0 = uv_hrtime();
    int log = -1, copied = -1;
    int rc = sqlite3_wal_checkpoint_v2(st->ckpt_db, NULL, SQLITE_CHECKPOINT_PASSIVE, &log, &copied);
    phist_add(&js->ckpt_stall, (double)(uv_hrtime() - t0) / 1e9);
    if (rc == SQLITE_OK && log >= 0 && copied == log) {
        js->wal_resets++; /* the next write starts the WAL again */
        js->wal_frames = log;
        js->wal_copied = copied;
    }
}

static void ckpt_tick(uv_timer_t *t)
{
    journal_backend *st = t->data;
    if (st->closing || st->ckpt_busy || st->sync_log) /* test hook sync_log: the WAL only grows */
        return;
    st->ckpt_req.data = st;
    if (uv_queue_work(t->loop, &st->ckpt_req, ckpt_work, ckpt_done) == 0)
        st->ckpt_busy = true;
}

/* ---- the engine ------------------------------------------------------------------------ */

static int sq_open(journal *j, const char *target, journal_backend **out, char *err,
                   size_t errcap)
{
    const journal_config *cfg = &j->cfg;
    snprintf(j->target, sizeof j->target, "%s", db_target_file(target));
    const char *path = db_target_file(target);
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
    journal_backend *st = calloc(1, sizeof *st);
    if (!st) {
        snprintf(err, errcap, "out of memory");
        return ENG_ENOMEM;
    }
    st->j = j;
    int rc = sqlite3_open_v2(path, &st->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
    if (rc != SQLITE_OK)
        goto fail;
    /* before anything writes to it (its mode, WAL, our tables) */
    int frc = foreign_check(st->db, path, &rc, err, errcap);
    if (frc == ENG_ESTORAGE) {
        sqlite3_close_v2(st->db);
        free(st);
        return ENG_ESTORAGE;
    }
    if (frc)
        goto fail;
    /* The one place for the database file's mode: 0600 whatever the umask
     * made it. It holds the admin token, every match's chance seed, the
     * registered bots' hashes and the courses' records, stderr and folders:
     * programs this server runs must not read it. SQLite gives the -wal and
     * -shm files it makes the database's mode; older ones are made private
     * here too. */
    static const char *const parts[] = {"", "-wal", "-shm", "-journal"};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        char file[PATH_MAX];
        snprintf(file, sizeof file, "%.4000s%s", path, parts[i]);
        if (chmod(file, 0600) != 0 && errno != ENOENT)
            srv_log(LOG_WARN, "database_mode", "{s:s, s:s}", "file", file, "error",
                    strerror(errno));
    }
    /* the start-up waits for a lock as long as it takes a person to notice;
     * the loop's writes later wait only [journal] busy_timeout_ms */
    sqlite3_busy_timeout(st->db, 5000);
    char pragmas[160];
    /* --durable syncs the WAL itself, once for many commits (group sync) */
    snprintf(pragmas, sizeof pragmas,
             "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;");
    if ((rc = sqlite3_exec(st->db, pragmas, NULL, NULL, NULL)) != SQLITE_OK)
        goto fail;
    /* before anything reads the tables: a damaged file is named as such */
    if (cfg->check != JOURNAL_CHECK_OFF && check_integrity(st, path, cfg->check, err, errcap)) {
        sqlite3_close_v2(st->db);
        free(st);
        return ENG_ESTORAGE;
    }
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
    /* a WAL started again is cut back to this size (checkpoints below) */
    char limit[80];
    snprintf(limit, sizeof limit, "PRAGMA journal_size_limit=%lld;",
             (long long)cfg->wal_reset_frames * (4096 + 24));
    if ((rc = sqlite3_exec(st->db, limit, NULL, NULL, NULL)) != SQLITE_OK)
        goto fail;
    /* commits are counted (messages wait for theirs): after the pragma
     * above, which sets the same hook */
    sqlite3_wal_hook(st->db, on_wal_commit, st);
    if (cfg->durable) {
        const char *file = sqlite3_db_filename(st->db, "main");
        const char *sl = file ? strrchr(file, '/') : NULL;
        if (!file || !sl || strlen(file) + 5 > sizeof st->wal_path) {
            snprintf(err, errcap, "database %s: --durable needs its full path (at most %zu bytes)",
                     path, sizeof st->wal_path - 5);
            sqlite3_close_v2(st->db);
            free(st);
            return ENG_ESTORAGE;
        }
        st->durable = true;
        snprintf(st->db_path, sizeof st->db_path, "%s", file);
        snprintf(st->wal_path, sizeof st->wal_path, "%s-wal", file);
        snprintf(st->dir_path, sizeof st->dir_path, "%.*s", sl == file ? 1 : (int)(sl - file),
                 file);
    }
    if ((rc = token_table(st)) != SQLITE_OK)
        goto fail;
    if ((rc = sqlite3_open_v2(path, &st->ckpt_db, SQLITE_OPEN_READWRITE, NULL)) != SQLITE_OK)
        goto fail;
    sqlite3_busy_timeout(st->ckpt_db, 5000);
    /* a connection knows the database is in WAL mode only once it has read
     * it: until then its checkpoints do nothing (and say so only by
     * reporting -1 frames) */
    if ((rc = sqlite3_exec(st->ckpt_db, "PRAGMA journal_mode=WAL;", NULL, NULL, NULL)) != SQLITE_OK)
        goto fail;
    if ((rc = prep(st, &st->ins_move,
                   "INSERT INTO moves(match,ply,move,by,reason,at,think_ms,wait_ms) "
                   "VALUES(?,?,?,?,?,?,?,?)")) ||
        (rc = prep(st, &st->upd_seats, "UPDATE matches SET seats=? WHERE id=?")) ||
        (rc = prep(st, &st->upd_status,
                   "UPDATE matches SET status=?1 WHERE id=?2 AND status<>?1")) ||
        (rc = prep(st, &st->upd_finish,
                   "UPDATE matches SET status=?, finished=?, result=?, seats=? WHERE id=?")) ||
        (rc = prep(st, &st->begin, "BEGIN IMMEDIATE")) || (rc = prep(st, &st->commit, "COMMIT")) ||
        (rc = prep(st, &st->rollback, "ROLLBACK")) ||
        (rc = prep(st, &st->ins_token,
                   "INSERT OR IGNORE INTO resume_tokens(token,match,seat) VALUES(?,?,?)")) ||
        (rc = sq_lines_open(st->db, cfg->lines_slack, &st->lines)))
        goto fail;
    sqlite3_busy_timeout(st->db, cfg->busy_timeout_ms > 0 ? cfg->busy_timeout_ms : 0);
    if (db_wrap_sqlite(st->db, &j->dbh) != DB_OK) {
        rc = SQLITE_NOMEM;
        goto fail;
    }
    *out = st;
    return 0;
fail:;
    /* the failed call's code: the handle's may have been reset since */
    int code = st->db && sqlite3_errcode(st->db) != SQLITE_OK ? sqlite3_errcode(st->db) : rc;
    const char *msg = !st->db                              ? "cannot open"
                      : sqlite3_errcode(st->db) != SQLITE_OK ? sqlite3_errmsg(st->db)
                                                             : sqlite3_errstr(rc);
    if ((code & 0xff) == SQLITE_NOTADB || (code & 0xff) == SQLITE_CORRUPT)
        snprintf(err, errcap,
                 "database %s: %s: it is damaged or not a tessera database; restore it from a "
                 "backup, or move it aside to start with an empty one (docs/operations.md, "
                 "\"Backups\")",
                 path, msg);
    else
        snprintf(err, errcap, "database %s: %s", path, msg);
    sq_lines_close(st->lines);
    if (st->ckpt_db)
        sqlite3_close_v2(st->ckpt_db);
    if (st->db)
        sqlite3_close_v2(st->db);
    free(st);
    return ENG_ESTORAGE;
}

static void sq_start(journal_backend *st)
{
    journal *j = st->j;
    uv_timer_init(j->cfg.loop, &st->ckpt_timer);
    st->ckpt_timer.data = st;
    uv_timer_start(&st->ckpt_timer, ckpt_tick, 1000, 1000);
    st->started = true;
    if (st->durable && sync_start(st)) {
        /* without the thread, every commit syncs on the loop (as at shutdown) */
        st->inline_sync = true;
        j->synced = j->committed; /* nothing was announced yet: the restore's writes */
        srv_log(LOG_WARN, "durable_inline", "{s:s}", "note",
                "each commit is synced on the loop thread");
    }
}

static void sq_stop(journal_backend *st, bool pending)
{
    (void)pending; /* a batch that failed once more at shutdown: never announced */
    st->closing = true;
    uint64_t rows, lines, relocated, pruned, plans;
    sq_lines_figures(st->lines, &rows, &lines, &relocated, &pruned, &plans);
    if (rows)
        srv_log(LOG_INFO, "journal_lines", "{s:I, s:I, s:I, s:I, s:I, s:I}", "commits",
                (json_int_t)st->j->committed, "log_rows", (json_int_t)rows, "lines",
                (json_int_t)lines, "relocated", (json_int_t)relocated, "pruned_rows",
                (json_int_t)pruned, "prune_passes", (json_int_t)plans);
    if (st->started) {
        uv_timer_stop(&st->ckpt_timer);
        uv_close((uv_handle_t *)&st->ckpt_timer, NULL);
    }
    sync_stop(st);
}

static void sq_close(journal_backend *st)
{
    sqlite3_finalize(st->ins_move);
    sqlite3_finalize(st->upd_seats);
    sqlite3_finalize(st->upd_status);
    sqlite3_finalize(st->upd_finish);
    sqlite3_finalize(st->begin);
    sqlite3_finalize(st->commit);
    sqlite3_finalize(st->rollback);
    sqlite3_finalize(st->ins_token);
    sq_lines_close(st->lines);
    db_close(st->j->dbh);          /* borrowed: leaves st->db open */
    sqlite3_close_v2(st->ckpt_db); /* its work has drained with the loop */
    sqlite3_close_v2(st->db);      /* the last connection checkpoints the WAL */
    free(st);
}

/* Before a write: the test hook's fault, a clean error (also before
 * journal.c's own: a match's creation). */
static void write_begin(journal_backend *st)
{
    fault_poll(st->j);
    st->err_code = SQLITE_OK;
}

static void bind_str(sqlite3_stmt *q, int i, const char *s)
{
    if (s)
        sqlite3_bind_text(q, i, s, -1, SQLITE_STATIC);
}

/* A step of the thinking lines (lines.c): true when it went, else its
 * error is kept as a statement's is. */
static bool lines_ok(journal_backend *st, int rc)
{
    if (rc == SQLITE_OK)
        return true;
    if (st->err_code == SQLITE_OK && rc == SQLITE_NOMEM &&
        sqlite3_errcode(st->db) == SQLITE_OK) {
        st->err_code = SQLITE_NOMEM;
        snprintf(st->err_msg, sizeof st->err_msg, "out of memory for the thinking lines");
    }
    write_failed(st);
    return false;
}

/* The batch's rows, in a transaction the caller opened. */
static bool write_rows(journal_backend *st, const journal_batch *b)
{
    for (int i = 0; i < b->n; i++) {
        const journal_row *r = &b->row[i];
        const char *id = jrow_str(b, r->match);
        sqlite3_stmt *q = NULL;
        switch (r->kind) {
        case JR_MOVE:
            q = st->ins_move;
            bind_str(q, 1, id);
            sqlite3_bind_int(q, 2, r->n);
            sqlite3_bind_int(q, 3, r->move);
            bind_str(q, 4, jrow_str(b, r->a));
            bind_str(q, 5, jrow_str(b, r->b));
            sqlite3_bind_int64(q, 6, r->at);
            if (r->think_ms >= 0)
                sqlite3_bind_int64(q, 7, r->think_ms);
            if (r->wait_ms >= 0)
                sqlite3_bind_int64(q, 8, r->wait_ms);
            if (!step_or_fail(st, q) || !lines_ok(st, r->info == JNONE
                                                          ? SQLITE_OK
                                                          : sq_lines_move(st->lines, id, r->n,
                                                                          jrow_str(b, r->info))))
                return false;
            q = NULL;
            break;
        case JR_SEATS:
            bind_str(st->upd_seats, 1, jrow_str(b, r->a));
            bind_str(st->upd_seats, 2, id);
            if (!step_or_fail(st, st->upd_seats))
                return false;
            /* the status apart, and only when it may have changed: setting
             * it rewrites the matches_status index's page too, one more WAL
             * frame every move */
            if (r->changed) {
                q = st->upd_status;
                sqlite3_bind_int(q, 1, r->n);
                bind_str(q, 2, id);
            }
            break;
        case JR_TOKEN:
            q = st->ins_token;
            bind_str(q, 1, jrow_str(b, r->a));
            bind_str(q, 2, id);
            sqlite3_bind_int(q, 3, r->n);
            break;
        case JR_FINISH:
            q = st->upd_finish;
            sqlite3_bind_int(q, 1, r->n);
            sqlite3_bind_int64(q, 2, r->at);
            bind_str(q, 3, jrow_str(b, r->b));
            bind_str(q, 4, jrow_str(b, r->a));
            bind_str(q, 5, id);
            if (!step_or_fail(st, q) || !lines_ok(st, sq_lines_finish(st->lines, id)))
                return false;
            q = NULL;
            break;
        default: break; /* JR_SUMMARY: only other servers read it; none share a file */
        }
        if (q && !step_or_fail(st, q))
            return false;
    }
    return true;
}

static int sq_write(journal_backend *st, const journal_batch *b, uint64_t *commit)
{
    journal *j = st->j;
    if (!sqlite3_get_autocommit(st->db))
        return JOURNAL_BUSY;
    write_begin(st);
    bool ok = step_or_fail(st, st->begin);
    if (ok) {
        sq_lines_begin(st->lines);
        ok = write_rows(st, b) && lines_ok(st, sq_lines_end(st->lines)) &&
             step_or_fail(st, st->commit);
        if (!ok && !sqlite3_get_autocommit(st->db))
            step(st->rollback);
        sq_lines_done(st->lines, ok);
    }
    if (!ok) {
        report(st, "append", jrow_str(b, b->row[0].match));
        return JOURNAL_FAILED;
    }
    if (j->committed < b->hold) {
        /* a batch that changed no byte (seats written as they were): SQLite
         * wrote no WAL frame and its hook counted no commit; it is stored
         * all the same, and its number taken */
        j->committed = b->hold;
        if (!st->durable || st->inline_sync)
            j->synced = j->committed;
    }
    int before = st->appends;
    st->appends += b->appends;
    int after = j->cfg.readonly_after;
    if (after > 0 && before < after && st->appends >= after) {
        /* test hook (limits.h): the database turns read-only from now on */
        sqlite3_exec(st->db, "PRAGMA query_only=1;", NULL, NULL, NULL);
        srv_log(LOG_WARN, "test_readonly", "{s:i}", "appends", st->appends);
    }
    *commit = j->committed; /* the commit just made */
    return JOURNAL_STORED;
}

/* During a fault: a row of meta, so that its end is noticed. */
static int sq_probe(journal_backend *st, char *msg, size_t msgcap)
{
    (void)msg, (void)msgcap;
    write_begin(st);
    char sql[96];
    snprintf(sql, sizeof sql, "INSERT OR REPLACE INTO meta VALUES('journal_probe', '%lld')",
             (long long)srv_epoch_ms());
    if (sqlite3_exec(st->db, sql, NULL, NULL, NULL) == SQLITE_OK)
        return 0;
    write_failed(st);
    report(st, "probe", NULL);
    return -1;
}

static bool sq_busy(const journal_backend *st)
{
    return !sqlite3_get_autocommit(st->db); /* a transaction of another module */
}

static void sq_round(journal_backend *st)
{
    round_end(st);
}

static void sq_read_lines(journal_backend *st, const char *match, char **infos, int n)
{
    sq_lines_read(st->lines, match, infos, n);
}

const journal_ops journal_sqlite = {
    .name = "sqlite",
    .shared = false,
    .depth = 1, /* a write is synchronous: stored or failed before the next */
    .open = sq_open,
    .start = sq_start,
    .stop = sq_stop,
    .close = sq_close,
    .begin = write_begin,
    .write = sq_write,
    .wait = NULL,
    .probe = sq_probe,
    .busy = sq_busy,
    .round = sq_round,
    .lines = sq_read_lines,
};
