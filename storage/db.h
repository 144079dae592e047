/*
 * db.h — one SQL interface over two engines: SQLite (an embedded file, the
 * default for one machine) and PostgreSQL (libpq, for several servers that
 * share one database). Everything tessera stores outside the journal's
 * per-move path — tournaments, courses, registered bots, program logs, the
 * journal's reads and its creation of matches — goes through it, so the same
 * code runs on either engine.
 *
 * The interface is SQLite's shape (prepare, bind, step, column, finalize),
 * because that is what the callers were written against. SQL is written once,
 * in the subset both engines accept, with `?` (or `?N`) parameters; on
 * PostgreSQL the text is translated before it is sent (db_translate_pg):
 * `?` becomes `$n`, the column types INTEGER, REAL and BLOB become BIGINT,
 * DOUBLE PRECISION and BYTEA, a column `INTEGER PRIMARY KEY [AUTOINCREMENT]`
 * becomes an identity column, `WITHOUT ROWID` is dropped and `BEGIN
 * IMMEDIATE` is a plain BEGIN. What is not in the common subset is refused by
 * the engine that does not know it, not guessed at: callers write
 * `INSERT ... ON CONFLICT(key) DO UPDATE` rather than `INSERT OR REPLACE`,
 * and `RETURNING id` rather than asking for the last row id.
 *
 * Errors are values: db_step and db_exec return DB_ROW/DB_DONE/DB_OK or a
 * negative DB_E* code, and db_errmsg() says what the engine said. A
 * PostgreSQL connection that is lost fails every call at once with
 * DB_ELOST (never blocks on a dead server); the next call after
 * DB_RECONNECT_MS tries to connect again.
 *
 * Threads: a db and its statements are used by one thread at a time.
 */
#ifndef TESSERA_STORAGE_DB_H
#define TESSERA_STORAGE_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct db_conn db_conn;
typedef struct db_stmt db_stmt;
typedef struct sqlite3 sqlite3;
typedef struct pg_conn pg_conn;

typedef enum db_engine { DB_SQLITE, DB_POSTGRES } db_engine;

/* Results. */
enum {
    DB_OK = 0,
    DB_ROW = 1,          /* db_step: a row is ready */
    DB_DONE = 2,         /* db_step: the statement has run to its end */
    DB_EFAIL = -1,       /* the statement failed (a syntax error, a type, ...) */
    DB_ECONSTRAINT = -2, /* a key, NOT NULL or CHECK refused the row */
    DB_EBUSY = -3,       /* another connection holds a lock; try again */
    DB_EFULL = -4,       /* the disk is full */
    DB_EIO = -5,         /* an I/O error */
    DB_EREADONLY = -6,   /* the database refuses writes */
    DB_ECORRUPT = -7,    /* the database is damaged */
    DB_ELOST = -8,       /* PostgreSQL: no connection to the server */
    DB_ENOMEM = -9,      /* out of memory */
    DB_EFENCED = -10,    /* PostgreSQL: this server's lease was taken (SQLSTATE TS001) */
    DB_EMISUSE = -11,    /* a wrong call: bad parameter index, step after an error */
};

/* A lost PostgreSQL connection is tried again at most this often (ms). */
#define DB_RECONNECT_MS 1000

/* Is `target` a PostgreSQL connection string (postgresql://..., postgres://...,
 * pg:KEYWORDS, or libpq keywords "host=... dbname=...")? Anything else is a
 * SQLite file name, with or without a "sqlite:" prefix. */
bool db_target_is_pg(const char *target);
/* The file name of a SQLite target (after any "sqlite:" prefix). */
const char *db_target_file(const char *target);

/* Open a database: a SQLite file (created if missing; no pragmas are set:
 * that is the caller's) or a PostgreSQL server (connect_timeout 5 s unless
 * the string sets one). Returns 0 and *out, or a DB_E* code with the reason
 * in err (a PostgreSQL password is never shown). */
int db_open(const char *target, db_conn **out, char *err, size_t errcap);
/* A db over the caller's SQLite connection (borrowed: it must outlive the
 * db, and db_close leaves it open). */
int db_wrap_sqlite(sqlite3 *h, db_conn **out);
void db_close(db_conn *d);

db_engine db_engine_of(const db_conn *d);
/* The engine's connection, for what only one engine has (NULL for the other). */
sqlite3 *db_sqlite(db_conn *d);
struct pg_conn *db_pg(db_conn *d); /* a PGconn * */
/* PostgreSQL: close the connection now, its state no longer known to the
 * one that used it asynchronously (answers lost or out of step): the
 * server rolls back what it had not committed; the next statement
 * connects again. The on_lost hook runs first. */
void db_pg_drop(db_conn *d);

/* Run one or more statements without parameters. DB_OK or DB_E*. */
int db_exec(db_conn *d, const char *sql);
/* Prepare a statement with `?`/`?N` parameters. DB_OK and *out, or DB_E*. */
int db_prepare(db_conn *d, const char *sql, db_stmt **out);
/* Bind parameter i (from 1). Text and blobs are copied. */
int db_bind_int64(db_stmt *q, int i, int64_t v);
int db_bind_double(db_stmt *q, int i, double v);
int db_bind_text(db_stmt *q, int i, const char *s, int len); /* len < 0: up to the NUL */
int db_bind_blob(db_stmt *q, int i, const void *p, int len);
int db_bind_null(db_stmt *q, int i);
static inline int db_bind_int(db_stmt *q, int i, int v)
{
    return db_bind_int64(q, i, v);
}
/* Run the statement, or move to its next row: DB_ROW, DB_DONE or DB_E*. */
int db_step(db_stmt *q);
/* Columns of the result: after the first db_step (PostgreSQL knows them
 * only once the statement has run). */
int db_column_count(db_stmt *q);
bool db_column_null(db_stmt *q, int i);
int64_t db_column_int64(db_stmt *q, int i); /* 0 for NULL; a boolean is 0 or 1 */
/* Is column i an integer (SQLite: stored as one; PostgreSQL: of an integer
 * type)? For readers that refuse what they did not write. */
bool db_column_is_int(db_stmt *q, int i);
static inline int db_column_int(db_stmt *q, int i)
{
    return (int)db_column_int64(q, i);
}
double db_column_double(db_stmt *q, int i);
/* The text of column i, or NULL for NULL. Valid until the next step, reset
 * or finalize of q. */
const char *db_column_text(db_stmt *q, int i);
/* The bytes of a blob column (*len set), or NULL for NULL. Same lifetime. */
const void *db_column_blob(db_stmt *q, int i, int *len);
/* Ready to run again; the bindings are kept (db_clear_bindings drops them). */
void db_reset(db_stmt *q);
void db_clear_bindings(db_stmt *q);
void db_finalize(db_stmt *q);

/* Rows the last INSERT, UPDATE or DELETE changed. */
int64_t db_changes(db_conn *d);
/* Is a transaction open on d? */
bool db_in_transaction(db_conn *d);
/* The last error's message ("" when none) and code (DB_OK when none). */
const char *db_errmsg(db_conn *d);
int db_errcode(db_conn *d);

/* Hold a lock that serialises schema changes between servers sharing one
 * PostgreSQL database (a session advisory lock); nothing on SQLite, whose
 * writers are serialised anyway. Calls nest: the lock goes with the last
 * unlock. */
int db_schema_lock(db_conn *d);
void db_schema_unlock(db_conn *d);

/* Called before every statement d runs for a caller (db_exec, the first
 * db_step of a statement), so that an owner of the same connection that
 * gathers writes of its own on it (the journal's batches: server/store.c on
 * SQLite, store_pg.c on PostgreSQL) can commit them first and keep the
 * connection's order the program's order. NULL: none. */
typedef void (*db_before_fn)(void *arg);
void db_set_before(db_conn *d, db_before_fn fn, void *arg);
/* PostgreSQL: called when the connection is about to be closed and
 * replaced (a reconnect), before its socket is closed: an owner of
 * asynchronous work on it lets go of the socket and of what was in flight.
 * NULL: none. */
void db_set_on_lost(db_conn *d, db_before_fn fn, void *arg);
/* PostgreSQL: try to connect again now if the connection is lost (whatever
 * DB_RECONNECT_MS says). DB_OK when connected. */
int db_reconnect(db_conn *d);
/* PostgreSQL: set the last error from a result of the caller's own
 * asynchronous use of the connection (a PGresult *, or NULL: the
 * connection's message). Returns its DB_E* code. */
int db_pg_set_error(db_conn *d, const void *pgresult);

/* The SQL text d's engine runs for `sql` (malloc'd; the caller frees it), or
 * NULL when out of memory. SQLite: a copy. PostgreSQL: translated as the
 * file comment says. */
char *db_translate(const db_conn *d, const char *sql);
char *db_translate_pg(const char *sql);

#endif
