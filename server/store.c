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
 * Batches. store_append does not write: it adds the rows of its moves (and
 * the seats' clocks) to the loop round's batch, with copies of their
 * values, and the batch is committed as one transaction at the end of the
 * round (a prepare and a check handle: before the loop polls, and after its
 * I/O callbacks), so that a busy round's moves share one transaction's
 * locks, WAL frames and system calls. Every message queued while the batch
 * is open waits for its commit (store_hold_seq, net.c): nothing is told
 * before it is stored. The other writes (a match created, seats, a result)
 * and anyone else's use of the connection (store_handle) commit the batch
 * first, then go on as their own transactions, their failures known at
 * once. A batch whose commit fails stays whole — its moves were played in
 * memory and cannot be taken back (bots and programs have seen them) — and
 * is tried again once a second (fault_probe) until it is stored; meanwhile
 * every append is refused at once (the match's own refusal: storage_error to
 * the mover, a pause for the server's moves), and the tables of its matches
 * are told nothing more (conn.c, match.journal_batch) until it is stored.
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
 * when a pass finds the WAL longer than SRV_WAL_RESET_FRAMES and copied it
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
 * figures), a newer one is refused with a message saying so.
 *
 * Time. A seat's turn keeps its time figures (docs/records.md, "Time") on
 * the row of its first move: think_ms, the player's own measure (what a
 * remote client reported with its move, an in-process bot's search time, a
 * program's CPU time), and wait_ms, the server's from asking the seat to
 * receiving the move; NULL where there is none (chance events, the other
 * moves of a turn, moves a policy played). Restoring never truncates
 * silently: a journal that cannot be read whole (more moves than the game
 * can have, a gap in the plies, a move that is not an integer, an SQLite
 * error) fails that match's restore, loudly.
 */
#include <errno.h>
#include <libpq-fe.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "storage/db.h"
#include "store.h"
#include "store_pg.h"
#include "match.h"

struct store {
    pgj *pg;                   /* the journal on PostgreSQL (store_pg.c), or NULL: SQLite */
    char target[512];          /* where it stores, for logs (a PostgreSQL password hidden) */
    sqlite3 *db;
    db_conn *dbh;              /* the database for the other modules (store_db) and the
                                  journal's reads: over db (SQLite), or pg's connection */
    sqlite3 *ckpt_db;          /* used only by checkpoint work on the thread pool */
    uv_timer_t ckpt_timer;
    srv *owner;                /* for the timer: the fault's probe */
    uv_work_t ckpt_req;
    bool ckpt_busy;            /* a checkpoint is on the pool */
    int ckpt_rc, ckpt_log, ckpt_copied; /* the pool's pass: SQLite's code, frames, copied */
    bool closing;
    int appends;               /* store_append calls that committed (test hook) */
    /* the round's batch (see "Batches"): what store_append was given since
     * the last commit, as the rows it makes, with copies of their values */
    struct bop *bops;
    int nbops, capbops;
    char *btext;               /* the rows' strings (match ids, seats, tokens), NUL-ended */
    size_t btext_len, btext_cap;
    int batch_appends;         /* store_append calls in it */
    uint64_t batch_hold;       /* the commit its messages wait for (0: no batch) */
    bool batch_failed;         /* its commit failed: it is tried again, nothing is added */
    uint64_t barrier_hold, barrier_commit; /* a batch stored by a later commit than its
                                              messages' number: they wait for that one */
    uv_prepare_t round_prep;   /* the batch is committed (and a sync asked for) before */
    uv_check_t round_check;    /* the loop polls, and after the I/O callbacks */
    bool round_handles;        /* those two run */
    sqlite3_stmt *ins_match, *ins_move, *upd_seats, *upd_status, *upd_finish, *begin, *commit,
        *rollback, *ins_token;
    textbuf seats_txt;         /* write_seats: the seats' text, reused move after move */
    /* faults: a write that fails puts the journal in a fault; until a write
     * succeeds again, writes are refused at once except one attempt (the
     * probe) every SRV_STORAGE_RETRY_MS */
    int fault;                 /* JF_NONE, or the kind of the last failure */
    int64_t fault_since;       /* epoch ms */
    char fault_msg[200];       /* SQLite's message */
    uint64_t probe_at;         /* loop ms: the next write may try */
    uv_timer_t probe_timer;    /* fires at probe_at: the journal tried again (fault_probe) */
    uint64_t write_t0;         /* uv_hrtime() at the write's start */
    int err_code;              /* the failed write's SQLite (extended) code ... */
    char err_msg[200];         /* ... and message, read before the rollback */
    /* --durable: group sync (see "Durability" above). Loop thread: */
    bool durable;
    bool inline_sync;          /* no sync thread (shutdown): each commit syncs at once */
    bool syncing;              /* the sync thread runs */
    bool in_flight;            /* a sync was asked for and has not reported */
    uint64_t committed;        /* commits on db so far (the WAL hook counts them) */
    uint64_t synced;           /* commits known to be on disk */
    uint64_t nsyncs, most_per_sync, sync_ns; /* figures for the log */
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

static bool batch_commit(srv *s, bool now);
static void batch_first(srv *s);
static void batch_first_hook(void *arg);
static void on_probe_timer(uv_timer_t *t);

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

void store_fault_hook_install(void)
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
static void fault_poll(const srv *s)
{
    if (!s->test.fault_file[0])
        return;
    char word[32] = "";
    FILE *f = fopen(s->test.fault_file, "r");
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

const char *const srv_fault_names[JF_NKINDS] = {
    "none", "disk_full", "io_error", "locked", "readonly", "corrupt", "other", "unreachable"};

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

int store_fault(const srv *s, int64_t *since_ms, const char **message)
{
    const store *st = s->db;
    if (st && st->pg)
        return pgj_fault(st->pg, since_ms, message);
    if (!st || !st->fault)
        return JF_NONE;
    *since_ms = st->fault_since;
    *message = st->fault_msg;
    return st->fault;
}

/* Before a write: false when the journal is in a fault and this is not the
 * time to try again (the caller fails the write at once: ENG_ESTORAGE). */
static bool write_begin(srv *s)
{
    store *st = s->db;
    fault_poll(s);
    if (st->fault && srv_now(s) < st->probe_at) {
        s->cnt.journal_refused++;
        return false;
    }
    st->err_code = SQLITE_OK;
    st->write_t0 = uv_hrtime();
    return true;
}

/* Keep the failed statement's code and message (before a rollback resets
 * them). */
static void write_failed(store *st)
{
    if (st->err_code != SQLITE_OK)
        return; /* the first failure is the cause */
    st->err_code = sqlite3_extended_errcode(st->db);
    if (st->err_code == SQLITE_OK)
        st->err_code = SQLITE_ERROR;
    snprintf(st->err_msg, sizeof st->err_msg, "%s", sqlite3_errmsg(st->db));
}

/* After a write: its time, and the fault state (a clear log line when a
 * fault begins, changes kind, or ends). */
static void write_end(srv *s, bool ok, const char *what, const char *match_id)
{
    store *st = s->db;
    phist_add(&s->cnt.journal, (double)(uv_hrtime() - st->write_t0) / 1e9);
    int64_t now = srv_epoch_ms();
    if (ok) {
        if (st->fault) {
            srv_log(LOG_WARN, "journal_recovered", "{s:s, s:I}", "fault", srv_fault_names[st->fault],
                    "after_ms", (json_int_t)(now - st->fault_since));
            st->fault = JF_NONE;
        }
        return;
    }
    int kind = classify(st->err_code);
    s->cnt.journal_faults[kind]++;
    srv_log(LOG_ERROR, "storage_error", "{s:s, s:s, s:s, s:s}", "what", what, "match",
            match_id ? match_id : "", "sqlite", st->err_msg, "fault", srv_fault_names[kind]);
    if (st->fault != kind) {
        srv_log(LOG_ERROR, "journal_fault", "{s:s, s:s, s:i, s:s}", "fault", srv_fault_names[kind],
                "sqlite", st->err_msg, "code", st->err_code, "note",
                "matches that need the journal pause; writes are tried again every second");
        if (!st->fault)
            st->fault_since = now;
        st->fault = kind;
    }
    snprintf(st->fault_msg, sizeof st->fault_msg, "%s", st->err_msg);
    st->probe_at = srv_now(s) + SRV_STORAGE_RETRY_MS;
    if (st->round_handles) /* the loop runs: try again then, busy or idle */
        uv_timer_start(&st->probe_timer, on_probe_timer, SRV_STORAGE_RETRY_MS, 0);
}

/* The layout of the tables; bump with a migration in migrate() when it changes. */
#define STORE_SCHEMA 4

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
    "  at INTEGER NOT NULL, think_ms INTEGER, wait_ms INTEGER,"
    "  PRIMARY KEY(match, ply)) WITHOUT ROWID;"
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
        if (version <= 2 && sqlite3_exec(db, "ALTER TABLE matches ADD COLUMN chance_nonce TEXT;",
                                         NULL, NULL, NULL) != SQLITE_OK)
            goto sqlite_fail;
        /* schemas 1 to 3: no time figures; their turns have none */
        if (sqlite3_exec(db,
                         "ALTER TABLE moves ADD COLUMN think_ms INTEGER;"
                         "ALTER TABLE moves ADD COLUMN wait_ms INTEGER;",
                         NULL, NULL, NULL) != SQLITE_OK)
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

static int check_integrity(store *st, const char *path, int level, char *err, size_t errcap);
static int token_table(store *st);
static int on_wal_commit(void *arg, sqlite3 *db, const char *name, int pages);

const char *srv_storage_target(const srv_config *cfg)
{
    return cfg->storage ? cfg->storage : cfg->db_path ? cfg->db_path : "tessera.db";
}

/* The target as logs show it: a file name, or the PostgreSQL connection's
 * parts without its password. */
static void describe(const char *target, char *out, size_t cap)
{
    if (!db_target_is_pg(target)) {
        snprintf(out, cap, "%s", db_target_file(target));
        return;
    }
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

const char *store_describe(const srv *s)
{
    return s->db ? s->db->target : "";
}

uint64_t store_up_ms(const srv *s)
{
    return s->db && s->db->pg ? pgj_up_ms(s->db->pg) : UINT64_MAX;
}

bool store_is_pg(const srv *s)
{
    return s->db && s->db->pg;
}

/* PostgreSQL: the journal of store_pg.c, the other modules on its connection. */
static int open_pg(srv *s, const char *target, bool durable, char *err, size_t errcap)
{
    store *st = calloc(1, sizeof *st);
    if (!st) {
        snprintf(err, errcap, "out of memory");
        return ENG_ENOMEM;
    }
    describe(target, st->target, sizeof st->target);
    int rc = pgj_open(s, target, &st->pg, &st->dbh, err, errcap);
    if (rc) {
        free(st);
        return rc;
    }
    if (durable) /* every PostgreSQL commit is flushed before it is acknowledged */
        srv_log(LOG_INFO, "durable_postgres", "{s:s}", "note",
                "--durable is the default on PostgreSQL: every batch is committed and flushed "
                "by the database before anything in it is announced");
    s->db = st;
    return 0;
}

int store_open(srv *s, const char *target, bool durable, char *err, size_t errcap)
{
    if (db_target_is_pg(target))
        return open_pg(s, target, durable, err, errcap);
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
    store *st = calloc(1, sizeof *st);
    if (!st) {
        snprintf(err, errcap, "out of memory");
        return ENG_ENOMEM;
    }
    describe(target, st->target, sizeof st->target);
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
    if (s->cfg.check != SRV_CHECK_OFF && check_integrity(st, path, s->cfg.check, err, errcap)) {
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
             (long long)s->wal_reset_frames * (4096 + 24));
    if ((rc = sqlite3_exec(st->db, limit, NULL, NULL, NULL)) != SQLITE_OK)
        goto fail;
    /* commits are counted (messages wait for theirs): after the pragma
     * above, which sets the same hook */
    sqlite3_wal_hook(st->db, on_wal_commit, st);
    if (durable) {
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
    if ((rc = prep(st, &st->ins_match,
                   "INSERT INTO matches(id,game,rules,seats,time_control,policies,seed,status,"
                   "created,demo,move_encoding,chance_nonce) VALUES(?,?,?,?,?,?,?,?,?,?,?,?)")) ||
        (rc = prep(st, &st->ins_move,
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
                   "INSERT OR IGNORE INTO resume_tokens(token,match,seat) VALUES(?,?,?)")))
        goto fail;
    sqlite3_busy_timeout(st->db, s->cfg.busy_timeout_ms > 0 ? s->cfg.busy_timeout_ms : 0);
    if (db_wrap_sqlite(st->db, &st->dbh) != DB_OK) {
        rc = SQLITE_NOMEM;
        goto fail;
    }
    /* the other modules' statements on this connection (store_db) come after
     * the round's batch: it is committed first */
    db_set_before(st->dbh, batch_first_hook, s);
    s->db = st;
    return 0;
fail:
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
    if (st->ckpt_db)
        sqlite3_close_v2(st->ckpt_db);
    if (st->db)
        sqlite3_close_v2(st->db);
    free(st);
    return ENG_ESTORAGE;
}

/* PRAGMA quick_check (or integrity_check) at start-up: a damaged database
 * is refused with what SQLite found, rather than served until a read of a
 * damaged page fails in the middle of a match. Returns 0, or -1 with err. */
static int check_integrity(store *st, const char *path, int level, char *err, size_t errcap)
{
    sqlite3_stmt *q = NULL;
    const char *sql = level == SRV_CHECK_FULL ? "PRAGMA integrity_check(5)" : "PRAGMA quick_check(5)";
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
             path, level == SRV_CHECK_FULL ? "integrity" : "quick", found);
    return -1;
}

/* The index of resume tokens (token -> match, seat), so that a finished
 * match no longer held in memory is found by its token without reading
 * every match. Made when missing, from the seats of the stored matches.
 * Returns an SQLite code. */
static int token_table(store *st)
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
 * on disk carries that commit's number (store_hold_seq) and net.c keeps it
 * until store_synced() reaches it. A thread of our own (not the libuv pool,
 * where searches can hold every thread for seconds) fdatasyncs the WAL: one
 * sync for every commit made before it began, however many. While it runs,
 * the loop goes on reading moves and committing them, and their answers wait
 * for the next sync: a group commit, at the cost of one fsync of latency.
 */
static int on_wal_commit(void *arg, sqlite3 *db, const char *name, int pages)
{
    (void)db, (void)name, (void)pages;
    store *st = arg;
    st->committed++;
    if (st->inline_sync) {
        /* no sync thread (it has stopped at shutdown): sync at once */
        int fd = open(st->wal_path, O_RDWR | O_CLOEXEC);
        if (fd >= 0) {
            fdatasync(fd);
            close(fd);
        }
        st->synced = st->committed;
    }
    return SQLITE_OK;
}

uint64_t store_hold_seq(const srv *s)
{
    const store *st = s->db;
    if (st && st->pg)
        return pgj_hold_seq(st->pg);
    if (!st)
        return 0;
    /* the round's batch: its commit (a batch whose commit failed holds only
     * what its matches' tables are told: conn.c, match.journal_batch) */
    if (st->batch_hold && !st->batch_failed)
        return st->batch_hold;
    return st->durable && st->committed > st->synced ? st->committed : 0;
}

uint64_t store_synced(const srv *s)
{
    const store *st = s->db;
    if (st && st->pg)
        return pgj_synced(st->pg);
    if (!st)
        return 0;
    uint64_t at = st->durable ? st->synced : st->committed;
    /* nothing of a batch not yet stored, nor after it */
    if (st->batch_hold && at >= st->batch_hold)
        at = st->batch_hold - 1;
    /* a batch stored late (after others' commits): its messages wait for its
     * commit's sync */
    if (st->barrier_commit > at && at >= st->barrier_hold)
        at = st->barrier_hold - 1;
    return at;
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
static int sync_files(store *st, const char **what)
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

static void sync_thread(void *arg)
{
    store *st = arg;
    uv_mutex_lock(&st->mu);
    for (;;) {
        while (!st->sync_quit && st->sync_req == st->sync_reached)
            uv_cond_wait(&st->cv, &st->mu);
        if (st->sync_quit)
            break;
        uint64_t target = st->sync_req;
        uv_mutex_unlock(&st->mu);
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
static void sync_kick(store *st)
{
    if (!st->syncing || st->in_flight || st->committed == st->synced)
        return;
    st->in_flight = true;
    st->write_t0 = uv_hrtime();
    struct stat sb;
    uv_mutex_lock(&st->mu);
    if (st->sync_log) /* every commit so far is in the WAL's first bytes */
        st->sync_size = stat(st->wal_path, &sb) == 0 ? (int64_t)sb.st_size : 0;
    st->sync_req = st->committed;
    uv_cond_signal(&st->cv);
    uv_mutex_unlock(&st->mu);
}

/* The end of a loop round (before it polls, and after its I/O callbacks):
 * the round's batch is committed, and under --durable a sync asked for. */
static void round_end(store *st)
{
    if (st->closing)
        return;
    batch_commit(st->owner, false);
    sync_kick(st);
}

static void on_round_prep(uv_prepare_t *h)
{
    round_end(h->data);
}

static void on_round_check(uv_check_t *h)
{
    round_end(h->data);
}

static void on_sync_done(uv_async_t *h)
{
    store *st = h->data;
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
    if (!st->in_flight || reached <= st->synced)
        return;
    st->in_flight = false;
    st->nsyncs++;
    st->sync_ns += uv_hrtime() - st->write_t0;
    if (reached - st->synced > st->most_per_sync)
        st->most_per_sync = reached - st->synced;
    st->synced = reached;
    if (st->owner->on_synced) /* net.c writes what waited for this sync */
        st->owner->on_synced(st->owner);
    sync_kick(st);
}

/* Start the sync thread and its loop handles (--durable). */
static int sync_start(srv *s)
{
    store *st = s->db;
    if (uv_mutex_init(&st->mu))
        return -1;
    if (uv_cond_init(&st->cv)) {
        uv_mutex_destroy(&st->mu);
        return -1;
    }
    uv_async_init(s->loop, &st->sync_done, on_sync_done);
    st->sync_done.data = st;
    uv_unref((uv_handle_t *)&st->sync_done);
    st->wal_fd = -1;
    if (s->test.sync_log[0] && !(st->sync_log = fopen(s->test.sync_log, "a")))
        srv_log(LOG_ERROR, "test_sync_log", "{s:s, s:s}", "file", s->test.sync_log, "error",
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
static void sync_stop(srv *s)
{
    store *st = s->db;
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
    int rc = st->committed > st->synced ? sync_files(st, &what) : 0;
    if (st->wal_fd >= 0)
        close(st->wal_fd);
    st->wal_fd = -1;
    if (rc) {
        srv_log(LOG_ERROR, "durable_sync_failed", "{s:s, s:s}", "what", what, "error",
                strerror(rc));
    } else {
        st->synced = st->committed;
        if (s->on_synced)
            s->on_synced(s);
    }
    uv_close((uv_handle_t *)&st->sync_done, NULL);
    uv_cond_destroy(&st->cv);
    uv_mutex_destroy(&st->mu);
    if (st->sync_log)
        fclose(st->sync_log);
    st->sync_log = NULL;
    srv_log(LOG_INFO, "journal_syncs", "{s:I, s:I, s:I, s:f}", "syncs", (json_int_t)st->nsyncs,
            "commits", (json_int_t)st->committed, "most_commits_per_sync",
            (json_int_t)st->most_per_sync, "mean_sync_ms",
            st->nsyncs ? (double)st->sync_ns / 1e6 / (double)st->nsyncs : 0.0);
}

static void ckpt_work(uv_work_t *req)
{
    store *st = req->data;
    st->ckpt_log = st->ckpt_copied = -1;
    st->ckpt_rc = sqlite3_wal_checkpoint_v2(st->ckpt_db, NULL, SQLITE_CHECKPOINT_PASSIVE,
                                            &st->ckpt_log, &st->ckpt_copied);
}

/* Loop thread, after the pool's pass: its figures, and when the WAL is past
 * its bound and the pass copied all it held, the tail (see "Checkpoints"). */
static void ckpt_done(uv_work_t *req, int status)
{
    store *st = req->data;
    srv *s = st->owner;
    st->ckpt_busy = false;
    if (status != 0 || st->closing || st->ckpt_rc != SQLITE_OK)
        return;
    s->cnt.ckpt_passes++;
    s->cnt.wal_frames = st->ckpt_log;
    s->cnt.wal_copied = st->ckpt_copied;
    if (st->ckpt_log < s->wal_reset_frames || st->ckpt_copied != st->ckpt_log)
        return;
    uint64_t t0 = uv_hrtime();
    int log = -1, copied = -1;
    int rc = sqlite3_wal_checkpoint_v2(st->ckpt_db, NULL, SQLITE_CHECKPOINT_PASSIVE, &log, &copied);
    phist_add(&s->cnt.ckpt_stall, (double)(uv_hrtime() - t0) / 1e9);
    if (rc == SQLITE_OK && log >= 0 && copied == log) {
        s->cnt.wal_resets++; /* the next write starts the WAL again */
        s->cnt.wal_frames = log;
        s->cnt.wal_copied = copied;
    }
}

/* During a fault, a write of its own once a second (a row of meta), so
 * that the end of the fault is noticed — and /readyz, /metrics say so —
 * also when no match writes. */
static void fault_probe(srv *s)
{
    store *st = s->db;
    if (!st->fault || srv_now(s) < st->probe_at)
        return;
    if (st->nbops) { /* a batch that failed: it is the probe */
        batch_commit(s, false);
        return;
    }
    if (!write_begin(s))
        return;
    char sql[96];
    snprintf(sql, sizeof sql, "INSERT OR REPLACE INTO meta VALUES('journal_probe', '%lld')",
             (long long)srv_epoch_ms());
    bool ok = sqlite3_exec(st->db, sql, NULL, NULL, NULL) == SQLITE_OK;
    if (!ok)
        write_failed(st);
    write_end(s, ok, "probe", NULL);
}

static void on_probe_timer(uv_timer_t *t)
{
    store *st = t->data;
    if (!st->closing)
        fault_probe(st->owner);
}

static void ckpt_tick(uv_timer_t *t)
{
    store *st = t->data;
    if (st->closing)
        return;
    fault_probe(st->owner);
    if (st->ckpt_busy || st->sync_log) /* test hook sync_log: the WAL only grows */
        return;
    st->ckpt_req.data = st;
    if (uv_queue_work(t->loop, &st->ckpt_req, ckpt_work, ckpt_done) == 0)
        st->ckpt_busy = true;
}

void store_start_checkpoints(srv *s)
{
    store *st = s->db;
    if (st->pg) { /* no checkpoints: the batches, their retries and the lease */
        pgj_start(st->pg);
        return;
    }
    uv_timer_init(s->loop, &st->ckpt_timer);
    st->ckpt_timer.data = st;
    st->owner = s;
    uv_timer_start(&st->ckpt_timer, ckpt_tick, 1000, 1000);
    uv_timer_init(s->loop, &st->probe_timer);
    st->probe_timer.data = st;
    uv_prepare_init(s->loop, &st->round_prep);
    uv_check_init(s->loop, &st->round_check);
    st->round_prep.data = st->round_check.data = st;
    uv_prepare_start(&st->round_prep, on_round_prep);
    uv_check_start(&st->round_check, on_round_check);
    uv_unref((uv_handle_t *)&st->round_prep);
    uv_unref((uv_handle_t *)&st->round_check);
    st->round_handles = true;
    if (st->durable && sync_start(s)) {
        /* without the thread, every commit syncs on the loop (as at shutdown) */
        st->inline_sync = true;
        st->synced = st->committed; /* nothing was announced yet: the restore's writes */
        srv_log(LOG_WARN, "durable_inline", "{s:s}", "note",
                "each commit is synced on the loop thread");
    }
}

void store_stop_checkpoints(srv *s)
{
    store *st = s->db;
    if (!st || st->closing)
        return;
    if (st->pg) {
        st->closing = true;
        pgj_stop(st->pg);
        return;
    }
    /* what the last round left (a failed batch once more, if any) */
    batch_commit(s, true);
    st->closing = true;
    uv_timer_stop(&st->ckpt_timer);
    uv_close((uv_handle_t *)&st->ckpt_timer, NULL);
    if (st->round_handles) {
        uv_close((uv_handle_t *)&st->probe_timer, NULL);
        uv_close((uv_handle_t *)&st->round_prep, NULL);
        uv_close((uv_handle_t *)&st->round_check, NULL);
        st->round_handles = false;
    }
    sync_stop(s);
}

void store_close(srv *s)
{
    store *st = s->db;
    if (!st)
        return;
    if (st->pg) {
        pgj_close(st->pg); /* closes dbh: its connection */
        tb_free(&st->seats_txt);
        free(st);
        s->db = NULL;
        return;
    }
    if (st->nbops && !st->closing)
        batch_commit(s, true); /* never started: nothing was announced, nothing is lost */
    tb_free(&st->seats_txt);
    free(st->bops);
    free(st->btext);
    sqlite3_finalize(st->ins_match);
    sqlite3_finalize(st->ins_move);
    sqlite3_finalize(st->upd_seats);
    sqlite3_finalize(st->upd_status);
    sqlite3_finalize(st->upd_finish);
    sqlite3_finalize(st->begin);
    sqlite3_finalize(st->commit);
    sqlite3_finalize(st->rollback);
    sqlite3_finalize(st->ins_token);
    db_close(st->dbh);             /* borrowed: leaves st->db open */
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

/* step() a write: true when done, else its error is kept (write_failed). */
static bool step_or_fail(store *st, sqlite3_stmt *stmt)
{
    int rc = sqlite3_step(stmt);
    if (rc != SQLITE_DONE)
        write_failed(st);
    sqlite3_reset(stmt);
    sqlite3_clear_bindings(stmt);
    return rc == SQLITE_DONE;
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
static const textbuf *seats_text(store *st, const match *m)
{
    static const char *const kinds[] = {[SEAT_BOT] = "bot", [SEAT_OPEN] = "open",
                                        [SEAT_PROGRAM] = "program", [SEAT_REMOTE] = "remote"};
    textbuf *b = &st->seats_txt;
    tb_reset(b);
#define KEY(k) tb_put(b, "\"" k "\":", sizeof(k) + 2)
#define STR(s) jt_str(b, (s), strlen(s))
    tb_put(b, "[", 1);
    for (int i = 0; i < m->nseats; i++) {
        const seat_t *t = &m->seats[i];
        tb_put(b, i ? ",{" : "{", i ? 2 : 1);
        KEY("kind"), STR(kinds[t->kind]), tb_put(b, ",", 1);
        KEY("name"), STR(t->name), tb_put(b, ",", 1);
        KEY("spec"), STR(t->spec), tb_put(b, ",", 1);
        KEY("token"), STR(t->token), tb_put(b, ",", 1);
        KEY("resume"), STR(t->resume), tb_put(b, ",", 1);
        KEY("bank_ms"), jt_int(b, t->bank_ms), tb_put(b, ",", 1);
        KEY("grace_ms"), jt_int(b, t->grace_ms), tb_put(b, ",", 1);
        KEY("illegal"), jt_int(b, t->illegal), tb_put(b, ",", 1);
        KEY("moves"), jt_int(b, t->moves), tb_put(b, ",", 1);
        KEY("joined"), tb_put(b, t->joined ? "true," : "false,", t->joined ? 5 : 6);
        KEY("takeover"), tb_put(b, t->takeover ? "true," : "false,", t->takeover ? 5 : 6);
        KEY("used_ms"), jt_int(b, t->used_ms), tb_put(b, "}", 1);
    }
    tb_put(b, "]", 1);
#undef KEY
#undef STR
    return b;
}

/* The same text, allocated (the caller frees it), or NULL. */
static char *seats_json(store *st, const match *m)
{
    const textbuf *b = seats_text(st, m);
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
    if (!st->pg)
        batch_first(s);
    if (!st->pg && !write_begin(s))
        return ENG_ESTORAGE;
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
    if (st->pg && rules && seats && tc && pol) {
        char nonce[CHANCE_NONCE_HEX];
        chance_nonce_hex(m->nonce, nonce);
        rc = pgj_create_match(st->pg, m, rules, seats, tc, pol, m->has_nonce ? nonce : NULL);
    } else if (rules && seats && tc && pol) {
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
        rc = step_or_fail(st, q) ? 0 : ENG_ESTORAGE;
        write_end(s, rc == 0, "create_match", m->id);
    }
    free(rules);
    free(seats);
    free(tc);
    free(pol);
    return rc;
}

/* The seats row (clocks, counters, connections) and status of a match, and
 * the resume tokens not yet indexed (indexed[i] is set for each, for the
 * caller to mark once committed). Returns SQLITE_DONE on success. */
static int write_seats(store *st, const match *m, bool indexed[ENG_MAX_PLAYERS])
{
    const textbuf *seats = seats_text(st, m);
    if (seats->failed) {
        st->err_code = SQLITE_NOMEM;
        snprintf(st->err_msg, sizeof st->err_msg, "out of memory");
        return SQLITE_NOMEM;
    }
    sqlite3_bind_text(st->upd_seats, 1, seats->p, (int)seats->len, SQLITE_TRANSIENT);
    sqlite3_bind_text(st->upd_seats, 2, m->id, -1, SQLITE_STATIC);
    if (!step_or_fail(st, st->upd_seats))
        return SQLITE_ERROR;
    /* the status apart, and only when it changed: setting it rewrites the
     * matches_status index's page too, one more WAL frame every move */
    sqlite3_bind_int(st->upd_status, 1, m->status);
    sqlite3_bind_text(st->upd_status, 2, m->id, -1, SQLITE_STATIC);
    if (!step_or_fail(st, st->upd_status))
        return SQLITE_ERROR;
    for (int i = 0; i < m->nseats; i++) {
        const seat_t *t = &m->seats[i];
        indexed[i] = false;
        if (!t->resume[0] || t->resume_indexed)
            continue;
        sqlite3_bind_text(st->ins_token, 1, t->resume, -1, SQLITE_STATIC);
        sqlite3_bind_text(st->ins_token, 2, m->id, -1, SQLITE_STATIC);
        sqlite3_bind_int(st->ins_token, 3, i);
        if (!step_or_fail(st, st->ins_token))
            return SQLITE_ERROR;
        indexed[i] = true;
    }
    return SQLITE_DONE;
}

static void mark_indexed(match *m, const bool indexed[ENG_MAX_PLAYERS])
{
    for (int i = 0; i < m->nseats; i++)
        if (indexed[i])
            m->seats[i].resume_indexed = true;
}

/* PostgreSQL: the resume tokens not yet indexed, for the batch (marked
 * indexed once it has taken them). */
static int pg_tokens(const match *m, pgj_token *out)
{
    int n = 0;
    for (int i = 0; i < m->nseats; i++)
        if (m->seats[i].resume[0] && !m->seats[i].resume_indexed)
            out[n++] = (pgj_token){m->seats[i].resume, i};
    return n;
}

static void pg_mark_tokens(match *m)
{
    for (int i = 0; i < m->nseats; i++)
        if (m->seats[i].resume[0])
            m->seats[i].resume_indexed = true;
}

/* PostgreSQL: a turn's moves, seats and tokens into the open batch. */
static int pg_append(srv *s, match *m, int from, int to, const char *by, const char *reason,
                     bool seats_too)
{
    store *st = s->db;
    pgj_token tokens[ENG_MAX_PLAYERS] = {{0}};
    int nt = seats_too ? pg_tokens(m, tokens) : 0;
    const textbuf *seats = seats_too ? seats_text(st, m) : NULL;
    if (seats && seats->failed)
        return ENG_ENOMEM;
    int rc = pgj_append(st->pg, m, from, to, by, reason, seats ? seats->p : NULL,
                        seats ? seats->len : 0, tokens, nt);
    if (rc == 0 && nt)
        pg_mark_tokens(m);
    return rc ? ENG_ESTORAGE : 0;
}

/* ---- the round's batch ------------------------------------------------------------ */

/* One row of a batch, its values copied (strings in st->btext). */
enum { BOP_MOVE, BOP_SEATS, BOP_TOKEN };
#define BNONE UINT32_MAX /* no string (SQL NULL) */
typedef struct bop {
    int kind;           /* BOP_* */
    uint32_t id;        /* the match's id */
    uint32_t a;         /* BOP_MOVE: by; BOP_SEATS: the seats' text; BOP_TOKEN: the token */
    uint32_t b;         /* BOP_MOVE: reason; BOP_SEATS: the text's length */
    int n;              /* BOP_MOVE: ply; BOP_SEATS: status; BOP_TOKEN: seat */
    eng_move move;      /* BOP_MOVE */
    int64_t at, think_ms, wait_ms; /* BOP_MOVE: epoch ms; ms (-1: none) */
} bop;

/* Copy n bytes (and a NUL) into the batch's strings: their offset, or
 * BNONE when out of memory. */
static uint32_t btext_add(store *st, const char *p, size_t n)
{
    if (st->btext_len + n + 1 > st->btext_cap) {
        size_t cap = st->btext_cap ? st->btext_cap : 4096;
        while (cap < st->btext_len + n + 1)
            cap *= 2;
        char *t = cap < BNONE ? realloc(st->btext, cap) : NULL;
        if (!t)
            return BNONE;
        st->btext = t;
        st->btext_cap = cap;
    }
    uint32_t at = (uint32_t)st->btext_len;
    memcpy(st->btext + at, p, n);
    st->btext[at + n] = 0;
    st->btext_len += n + 1;
    return at;
}

static bop *bop_add(store *st, int kind, uint32_t id)
{
    if (st->nbops == st->capbops) {
        int cap = st->capbops ? 2 * st->capbops : 256;
        bop *p = realloc(st->bops, (size_t)cap * sizeof *p);
        if (!p)
            return NULL;
        st->bops = p;
        st->capbops = cap;
    }
    bop *o = &st->bops[st->nbops++];
    *o = (bop){.kind = kind, .id = id, .a = BNONE, .b = BNONE, .think_ms = -1, .wait_ms = -1};
    return o;
}

static uint32_t btext_str(store *st, const char *p)
{
    return p ? btext_add(st, p, strlen(p)) : BNONE;
}

int store_append(srv *s, match *m, int from, int to, const char *by, const char *reason)
{
    store *st = s->db;
    if (st->pg) /* a draw changes no seat; a seat's move changes its clock and counters */
        return pg_append(s, m, from, to, by, reason, !by || strcmp(by, "chance") != 0);
    /* during a fault every append is refused at once: the journal is tried
     * again by itself (fault_probe), a batch that failed first of all */
    if (st->fault || st->batch_failed) {
        s->cnt.journal_refused++;
        return ENG_ESTORAGE;
    }
    const int nbops0 = st->nbops;
    const size_t btext0 = st->btext_len;
    bool tokens[ENG_MAX_PLAYERS] = {false};
    int64_t now = srv_epoch_ms();
    uint32_t id = btext_str(st, m->id);
    uint32_t by_at = btext_str(st, by), reason_at = btext_str(st, reason);
    bool ok = id != BNONE && (!by || by_at != BNONE) && (!reason || reason_at != BNONE);
    for (int i = from; ok && i < to; i++) {
        bop *o = bop_add(st, BOP_MOVE, id);
        if (!(ok = o != NULL))
            break;
        o->a = by_at;
        o->b = reason_at;
        o->n = i;
        o->move = m->moves[i];
        o->at = now;
        o->think_ms = m->times[i].think_ms;
        o->wait_ms = m->times[i].wait_ms;
    }
    /* a draw changes no seat; a seat's move changes its clock and counters */
    if (ok && (!by || strcmp(by, "chance") != 0)) {
        const textbuf *seats = seats_text(st, m);
        bop *o = seats->failed ? NULL : bop_add(st, BOP_SEATS, id);
        if ((ok = o != NULL)) {
            o->a = btext_add(st, seats->p, seats->len);
            o->b = (uint32_t)seats->len;
            /* the status only when it may have changed (-1: not written) */
            o->n = m->journal_status == m->status + 1 ? -1 : m->status;
            ok = o->a != BNONE;
        }
        for (int i = 0; ok && i < m->nseats; i++) {
            const seat_t *t = &m->seats[i];
            if (!t->resume[0] || t->resume_indexed)
                continue;
            bop *k = bop_add(st, BOP_TOKEN, id);
            ok = k && (k->a = btext_str(st, t->resume)) != BNONE;
            if (ok) {
                k->n = i;
                tokens[i] = true;
            }
        }
    }
    if (!ok) { /* out of memory: none of it */
        st->nbops = nbops0;
        st->btext_len = btext0;
        srv_log(LOG_ERROR, "storage_error", "{s:s, s:s, s:s}", "what", "append", "match", m->id,
                "sqlite", "out of memory");
        return ENG_ENOMEM;
    }
    /* the token goes in with the batch (a batch that fails is tried again
     * whole): not again with a later one */
    mark_indexed(m, tokens);
    if (!by || strcmp(by, "chance") != 0)
        m->journal_status = m->status + 1; /* the batch writes it (a failed one is tried again) */
    if (!st->batch_hold)
        st->batch_hold = st->committed + 1; /* its commit: the next one on the connection */
    m->journal_batch = st->batch_hold;
    st->batch_appends++;
    return 0;
}

/* Write the batch's rows (in a transaction the caller opened). */
static bool batch_rows(store *st)
{
    const char *t = st->btext;
    for (int i = 0; i < st->nbops; i++) {
        const bop *o = &st->bops[i];
        const char *id = t + o->id;
        sqlite3_stmt *q;
        switch (o->kind) {
        case BOP_MOVE:
            q = st->ins_move;
            sqlite3_bind_text(q, 1, id, -1, SQLITE_STATIC);
            sqlite3_bind_int(q, 2, o->n);
            sqlite3_bind_int(q, 3, o->move);
            if (o->a != BNONE)
                sqlite3_bind_text(q, 4, t + o->a, -1, SQLITE_STATIC);
            if (o->b != BNONE)
                sqlite3_bind_text(q, 5, t + o->b, -1, SQLITE_STATIC);
            sqlite3_bind_int64(q, 6, o->at);
            if (o->think_ms >= 0)
                sqlite3_bind_int64(q, 7, o->think_ms);
            if (o->wait_ms >= 0)
                sqlite3_bind_int64(q, 8, o->wait_ms);
            if (!step_or_fail(st, q))
                return false;
            break;
        case BOP_SEATS:
            sqlite3_bind_text(st->upd_seats, 1, t + o->a, (int)o->b, SQLITE_STATIC);
            sqlite3_bind_text(st->upd_seats, 2, id, -1, SQLITE_STATIC);
            if (!step_or_fail(st, st->upd_seats))
                return false;
            /* the status apart, and only when it changed (see write_seats) */
            if (o->n < 0)
                break;
            sqlite3_bind_int(st->upd_status, 1, o->n);
            sqlite3_bind_text(st->upd_status, 2, id, -1, SQLITE_STATIC);
            if (!step_or_fail(st, st->upd_status))
                return false;
            break;
        default:
            sqlite3_bind_text(st->ins_token, 1, t + o->a, -1, SQLITE_STATIC);
            sqlite3_bind_text(st->ins_token, 2, id, -1, SQLITE_STATIC);
            sqlite3_bind_int(st->ins_token, 3, o->n);
            if (!step_or_fail(st, st->ins_token))
                return false;
            break;
        }
    }
    return true;
}

/* Commit the round's batch: one transaction. true when there is no batch
 * left. A batch that fails stays whole (batch_failed), its messages held,
 * and is tried again at the fault's next probe (fault_probe), every append
 * refused meanwhile. Nothing is tried while another transaction is open on
 * the connection (a tournament's, started through store_handle: the batch
 * waits for the end of the round), or, after a failure, before probe_at
 * unless `now` (shutdown). */
static bool batch_commit(srv *s, bool now)
{
    store *st = s->db;
    if (!st->nbops)
        return true;
    if (!sqlite3_get_autocommit(st->db))
        return false;
    if (st->fault && !now && srv_now(s) < st->probe_at)
        return false;
    fault_poll(s);
    st->err_code = SQLITE_OK;
    st->write_t0 = uv_hrtime();
    bool ok = step_or_fail(st, st->begin) && batch_rows(st) && step_or_fail(st, st->commit);
    if (!ok && !sqlite3_get_autocommit(st->db))
        step(st->rollback);
    write_end(s, ok, "append", st->btext + st->bops[0].id);
    if (!ok) {
        st->batch_failed = true;
        return false;
    }
    /* stored by commit number `committed`: normally its messages' number;
     * after a failure, others may have committed in between (a tournament's
     * writes): its messages then wait for this commit's sync too */
    if (st->committed != st->batch_hold) {
        if (!st->barrier_commit || st->batch_hold < st->barrier_hold)
            st->barrier_hold = st->batch_hold;
        if (st->committed > st->barrier_commit)
            st->barrier_commit = st->committed;
    }
    st->nbops = 0;
    st->btext_len = 0;
    st->batch_hold = 0;
    st->batch_failed = false;
    int before = st->appends;
    st->appends += st->batch_appends;
    st->batch_appends = 0;
    if (s->test.readonly_after > 0 && before < s->test.readonly_after &&
        st->appends >= s->test.readonly_after) {
        /* test hook (limits.h): the database turns read-only from now on */
        sqlite3_exec(st->db, "PRAGMA query_only=1;", NULL, NULL, NULL);
        srv_log(LOG_WARN, "test_readonly", "{s:i}", "appends", st->appends);
    }
    /* net.c writes what waited for this commit (under --durable, for its
     * sync: on_sync_done; without the sync thread, each commit is synced) */
    if ((!st->durable || st->inline_sync) && s->on_synced)
        s->on_synced(s);
    return true;
}

/* The writes below are not batched: the round's batch goes first (their
 * rows come after its moves), then each is its own transaction, its
 * failure known at once. */
static void batch_first(srv *s)
{
    batch_commit(s, false);
}

/* db.h's hook before a statement of another module on the connection: not
 * inside a transaction it opened (the batch went before its BEGIN). */
static void batch_first_hook(void *arg)
{
    srv *s = arg;
    if (s->db && sqlite3_get_autocommit(s->db->db))
        batch_first(s);
}

int store_set_summary(srv *s, const match *m, const char *summary)
{
    store *st = s->db;
    return st && st->pg ? pgj_summary(st->pg, m, summary) : 0;
}

int store_update_seats(srv *s, match *m)
{
    store *st = s->db;
    if (st->pg)
        return pg_append(s, m, 0, 0, NULL, NULL, true);
    bool indexed[ENG_MAX_PLAYERS] = {false};
    batch_first(s);
    if (!write_begin(s))
        return ENG_ESTORAGE;
    /* one transaction: the seats row and the tokens together */
    bool ok = step_or_fail(st, st->begin) && write_seats(st, m, indexed) == SQLITE_DONE &&
              step_or_fail(st, st->commit);
    if (!ok && !sqlite3_get_autocommit(st->db))
        step(st->rollback);
    if (ok) {
        mark_indexed(m, indexed);
        m->journal_status = m->status + 1;
    }
    write_end(s, ok, "update_seats", m->id);
    return ok ? 0 : ENG_ESTORAGE;
}

int store_finish(srv *s, match *m)
{
    store *st = s->db;
    bool indexed[ENG_MAX_PLAYERS] = {false};
    if (!st->pg)
        batch_first(s);
    if (!st->pg && !write_begin(s))
        return ENG_ESTORAGE;
    char *res = json_dumps(m->result, JSON_COMPACT);
    char *seats = seats_json(st, m);
    int rc = ENG_ENOMEM;
    if (st->pg && res && seats) {
        pgj_token tokens[ENG_MAX_PLAYERS];
        int nt = pg_tokens(m, tokens);
        rc = pgj_finish(st->pg, m, res, seats, tokens, nt) ? ENG_ESTORAGE : 0;
        if (rc == 0)
            pg_mark_tokens(m);
        free(res);
        free(seats);
        return rc;
    }
    if (res && seats) {
        sqlite3_stmt *q = st->upd_finish;
        sqlite3_bind_int(q, 1, m->status);
        sqlite3_bind_int64(q, 2, m->finished_ms);
        sqlite3_bind_text(q, 3, res, -1, SQLITE_STATIC);
        sqlite3_bind_text(q, 4, seats, -1, SQLITE_STATIC);
        sqlite3_bind_text(q, 5, m->id, -1, SQLITE_STATIC);
        /* the result and any token not yet indexed, in one transaction */
        bool ok = step_or_fail(st, st->begin) && step_or_fail(st, q) &&
                  write_seats(st, m, indexed) == SQLITE_DONE && step_or_fail(st, st->commit);
        if (!ok && !sqlite3_get_autocommit(st->db))
            step(st->rollback);
        if (ok) {
            mark_indexed(m, indexed);
            m->journal_status = m->status + 1;
        }
        rc = ok ? 0 : ENG_ESTORAGE;
    } else {
        st->err_code = SQLITE_NOMEM;
        snprintf(st->err_msg, sizeof st->err_msg, "out of memory");
    }
    write_end(s, rc == 0, "finish", m->id);
    free(res);
    free(seats);
    return rc;
}

static const char *col_text(db_stmt *q, int i)
{
    const char *t = db_column_text(q, i);
    return t ? t : "";
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

/* A move's time figure from its column: -1 for NULL (none). Anything else
 * than an integer from 0 to a day is no figure the server wrote: refused. */
static int read_time(db_stmt *mv, int col, int64_t *out)
{
    if (db_column_null(mv, col)) {
        *out = -1;
        return 0;
    }
    int64_t v = db_column_int64(mv, col);
    if (!db_column_is_int(mv, col) || v < 0 || v > REC_TIME_MAX_MS)
        return -1;
    *out = v;
    return 0;
}

/* Read the moves of match `id` into moves[0..*n) and their time figures
 * into times[0..*n): every ply from 0 in order, each an integer, at most
 * `most`. Returns 0, or -1 with the reason in why (the restore of that
 * match fails: nothing is ever silently cut short). */
static int read_moves(store *st, db_stmt *mv, const char *id, eng_move *moves, rec_time *times,
                      int most, int *n, char *why, size_t whycap)
{
    *n = 0;
    db_reset(mv);
    db_bind_text(mv, 1, id, -1);
    int rc;
    while ((rc = db_step(mv)) == DB_ROW) {
        if (*n == most) {
            snprintf(why, whycap,
                     "the journal holds more than %d moves, more than the game can have", most);
            goto fail;
        }
        if (!db_column_is_int(mv, 0) || db_column_int64(mv, 0) != *n) {
            snprintf(why, whycap, "the journal's move %d is missing (plies must run 0, 1, 2, ...)",
                     *n);
            goto fail;
        }
        int64_t v = db_column_int64(mv, 1);
        if (!db_column_is_int(mv, 1) || v < INT32_MIN || v > INT32_MAX) {
            snprintf(why, whycap, "the journal's move %d is not a move integer", *n);
            goto fail;
        }
        if (read_time(mv, 2, &times[*n].think_ms) || read_time(mv, 3, &times[*n].wait_ms)) {
            snprintf(why, whycap,
                     "the journal's move %d has a time figure that is not a number "
                     "of milliseconds from 0 to a day",
                     *n);
            goto fail;
        }
        moves[(*n)++] = (eng_move)v;
    }
    if (rc != DB_DONE) {
        snprintf(why, whycap, "reading its moves: %s", db_errmsg(st->dbh));
        goto fail;
    }
    db_reset(mv);
    return 0;
fail:
    db_reset(mv);
    return -1;
}

/* The columns load_rows reads, in its order. */
#define MATCH_COLUMNS                                                                            \
    "id,game,rules,seats,time_control,policies,seed,status,result,created,finished,demo,"        \
    "move_encoding,chance_nonce"

/* Restore the matches selected by `sql` (one row per match, MATCH_COLUMNS;
 * its one parameter, if any, is bound to `param`). A match already held
 * (restored before) is skipped. A match that cannot be restored is logged
 * (restore_failed, with the reason) and left in the journal; the others are
 * restored. Returns 0, or a negative code with err when the journal cannot
 * be read at all. */
static int load_rows(srv *s, const store_restorer *restore, const char *sql, const char *param,
                     int *count, char *err, size_t errcap)
{
    store *st = s->db;
    db_stmt *q = NULL, *mv = NULL;
    if (db_prepare(st->dbh, sql, &q) ||
        db_prepare(st->dbh, "SELECT ply, move, think_ms, wait_ms FROM moves WHERE match=? ORDER BY ply",
                   &mv)) {
        snprintf(err, errcap, "database: %s", db_errmsg(st->dbh));
        db_finalize(q);
        db_finalize(mv);
        return ENG_ESTORAGE;
    }
    if (param)
        db_bind_text(q, 1, param, -1);
    int most = max_plies_of_all_games();
    eng_move *moves = malloc((size_t)most * sizeof *moves);
    rec_time *times = malloc((size_t)most * sizeof *times);
    if (!moves || !times) {
        free(moves);
        free(times);
        snprintf(err, errcap, "out of memory for the journal's moves");
        db_finalize(q);
        db_finalize(mv);
        return ENG_ENOMEM;
    }
    int rc = 0, step;
    while ((step = db_step(q)) == DB_ROW) {
        const char *id = col_text(q, 0), *game = col_text(q, 1);
        if (restore->held(s, id))
            continue;
        const eng_game *g = eng_find_game(game);
        long long encoding = db_column_int64(q, 12);
        char why[256];
        int n = 0;
        match *m = NULL;
        if (g && encoding != g->move_encoding)
            snprintf(why, sizeof why,
                     "its moves were journaled in %s move encoding %lld; this tessera reads "
                     "encoding %d, and will not misread them",
                     g->name, encoding, g->move_encoding);
        else if (read_moves(st, mv, id, moves, times, g ? g->max_plies : most, &n, why,
                            sizeof why) == 0)
            m = restore->restore(s,
                        &(match_restore_spec){
                            .id = id,
                            .game = game,
                            .rules_json = col_text(q, 2),
                            .seats_json = col_text(q, 3),
                            .tc_json = col_text(q, 4),
                            .pol_json = col_text(q, 5),
                            .seed = (uint64_t)db_column_int64(q, 6),
                            .nonce_hex = db_column_text(q, 13),
                            .status = db_column_int(q, 7),
                            .result_json = col_text(q, 8),
                            .created_ms = db_column_int64(q, 9),
                            .finished_ms = db_column_int64(q, 10),
                            .demo = db_column_int(q, 11) != 0,
                            .moves = moves,
                            .times = times,
                            .nmoves = n,
                        },
                        why, sizeof why);
        if (!m)
            srv_log(LOG_ERROR, "restore_failed", "{s:s, s:s}", "match", id, "reason", why);
        else
            (*count)++;
    }
    if (step != DB_DONE) {
        snprintf(err, errcap, "database: reading the matches: %s", db_errmsg(st->dbh));
        rc = ENG_ESTORAGE;
    }
    free(moves);
    free(times);
    db_finalize(q);
    db_finalize(mv);
    return rc;
}

int store_load(srv *s, const store_restorer *restore, char *err, size_t errcap)
{
    int live = 0, done = 0;
    char sql[512];
    /* the latest finished ones first, so that the list shows them */
    snprintf(sql, sizeof sql,
             "SELECT " MATCH_COLUMNS " FROM (SELECT * FROM matches "
             "WHERE status=%d ORDER BY created DESC LIMIT %d) AS latest ORDER BY created",
             MATCH_FINISHED, s->finished_kept);
    int rc = load_rows(s, restore, sql, NULL, &done, err, errcap);
    if (rc)
        return rc;
    /* the unfinished ones: on PostgreSQL those this server owns (the others
     * are other servers', or taken over from a dead one: store_take_over) */
    snprintf(sql, sizeof sql,
             "SELECT " MATCH_COLUMNS " FROM matches WHERE status<>%d%s ORDER BY created",
             MATCH_FINISHED, s->db->pg ? " AND owner=?" : "");
    rc = load_rows(s, restore, sql, s->db->pg ? s->instance : NULL, &live, err, errcap);
    if (rc)
        return rc;
    srv_log(LOG_INFO, "restored", "{s:i, s:i}", "unfinished", live, "finished", done);
    return 0;
}

int store_load_finished(srv *s, const char *id, const store_restorer *restore, char *err,
                        size_t errcap)
{
    char sql[200];
    snprintf(sql, sizeof sql, "SELECT " MATCH_COLUMNS " FROM matches WHERE id=? AND status=%d",
             MATCH_FINISHED);
    int count = 0;
    int rc = load_rows(s, restore, sql, id, &count, err, errcap);
    return rc ? rc : count == 1 ? 0 : -1;
}

int store_load_owned(srv *s, const store_restorer *restore, int *count, char *err, size_t errcap)
{
    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT " MATCH_COLUMNS " FROM matches WHERE status<>%d AND owner=? ORDER BY created",
             MATCH_FINISHED);
    *count = 0;
    return load_rows(s, restore, sql, s->instance, count, err, errcap);
}

int store_resume_status(srv *s, const char *token)
{
    store *st = s->db;
    if (!st || !token || !*token)
        return -1;
    /* a finished match no longer held in memory: through the token index */
    db_stmt *q = NULL;
    int status = -1;
    if (db_prepare(st->dbh,
                   "SELECT m.status FROM resume_tokens t JOIN matches m ON m.id = t.match "
                   "WHERE t.token = ?",
                   &q) == DB_OK) {
        db_bind_text(q, 1, token, -1);
        if (db_step(q) == DB_ROW)
            status = db_column_int(q, 0);
    }
    db_finalize(q);
    return status;
}

db_conn *store_db(srv *s)
{
    return s->db ? s->db->dbh : NULL;
}

struct sqlite3 *store_handle(srv *s)
{
    if (!s->db || s->db->pg)
        return NULL;
    batch_first(s); /* the caller's transactions never mix with the batch */
    return s->db->db;
}

int store_match_result(srv *s, const char *id, int *status, json_t **result)
{
    store *st = s->db;
    *result = NULL;
    if (!st)
        return -1;
    db_stmt *q = NULL;
    int rc = -1;
    if (db_prepare(st->dbh, "SELECT status, result FROM matches WHERE id=?", &q) == DB_OK) {
        db_bind_text(q, 1, id, -1);
        if (db_step(q) == DB_ROW) {
            *status = db_column_int(q, 0);
            const char *res = col_text(q, 1);
            if (res[0])
                *result = json_loads(res, 0, NULL);
            rc = 0;
        }
    }
    db_finalize(q);
    return rc;
}
