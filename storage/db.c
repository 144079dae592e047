/*
 * db.c — the two engines behind db.h: SQLite through its own API, and
 * PostgreSQL through libpq (synchronous calls, each a round trip: the
 * statements that come this way are the rare ones; the journal's per-move
 * writes go asynchronously through server/store_pg.c).
 *
 * PostgreSQL statements are not prepared on the server: db_prepare keeps the
 * translated text and db_step sends it with its parameters in one round trip
 * (PQexecParams), then walks the rows of the result. Parameters go as text
 * (integers and reals are formatted here) with their types named — int8,
 * float8, bytea (binary) — or left for the server to infer (text), so a
 * statement means the same on both engines. Results come back as text; a
 * bytea column is decoded when read, a boolean reads as 0 or 1.
 */
#include "storage/db.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <libpq-fe.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/textbuf.h"

#define OID_INT8   20
#define OID_BOOL   16
#define OID_BYTEA  17
#define OID_FLOAT8 701

/* Parameters a statement may have (the most any of ours has is 16). */
#define DB_MAX_PARAMS 64

struct db_conn {
    db_engine engine;
    /* SQLite */
    sqlite3 *lite;
    bool borrowed; /* db_wrap_sqlite: not ours to close */
    /* PostgreSQL */
    PGconn *pg;
    char *conninfo;    /* as given, for reconnecting */
    int64_t changes;   /* rows the last statement changed */
    uint64_t tried_ms; /* monotonic ms of the last connection attempt */
    db_before_fn before;
    void *before_arg;
    db_before_fn on_lost;
    void *on_lost_arg;
    int schema_locked;      /* db_schema_lock depth (the lock is held while > 0) */
    /* both */
    int code; /* the last error (DB_OK: none) */
    char msg[400];
};

struct db_stmt {
    db_conn *d;
    sqlite3_stmt *lite;
    /* PostgreSQL */
    char *sql;                /* translated */
    int nparams;              /* highest parameter bound or named */
    char *val[DB_MAX_PARAMS]; /* malloc'd text or bytes, NULL for NULL */
    int len[DB_MAX_PARAMS];
    int fmt[DB_MAX_PARAMS]; /* 0 text, 1 binary */
    unsigned int type[DB_MAX_PARAMS];
    PGresult *res;
    int row, nrows;      /* row: the current one (-1 before the first) */
    unsigned char *blob; /* the last decoded bytea (freed on the next) */
    bool ran;            /* executed since the last reset */
};

static uint64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void set_err(db_conn *d, int code, const char *msg)
{
    d->code = code;
    snprintf(d->msg, sizeof d->msg, "%s", msg ? msg : "");
    /* libpq's messages end with a newline */
    size_t n = strlen(d->msg);
    while (n > 0 && (d->msg[n - 1] == '\n' || d->msg[n - 1] == ' '))
        d->msg[--n] = 0;
}

/* ---- targets ------------------------------------------------------------------------------ */

bool db_target_is_pg(const char *t)
{
    if (!t)
        return false;
    if (!strncmp(t, "postgresql://", 13) || !strncmp(t, "postgres://", 11) || !strncmp(t, "pg:", 3))
        return true;
    if (!strncmp(t, "sqlite:", 7))
        return false;
    /* libpq keywords: a word, optional spaces, '=' */
    const char *p = t;
    while (*p == ' ')
        p++;
    const char *w = p;
    while (*p && (isalnum((unsigned char)*p) || *p == '_'))
        p++;
    if (p == w)
        return false;
    while (*p == ' ')
        p++;
    return *p == '=';
}

const char *db_target_file(const char *t)
{
    return strncmp(t, "sqlite:", 7) == 0 ? t + 7 : t;
}

/* ---- errors ------------------------------------------------------------------------------- */

static int lite_code(int rc)
{
    switch (rc & 0xff) {
    case SQLITE_OK: return DB_OK;
    case SQLITE_ROW: return DB_ROW;
    case SQLITE_DONE: return DB_DONE;
    case SQLITE_CONSTRAINT: return DB_ECONSTRAINT;
    case SQLITE_BUSY:
    case SQLITE_LOCKED: return DB_EBUSY;
    case SQLITE_FULL: return DB_EFULL;
    case SQLITE_IOERR: return DB_EIO;
    case SQLITE_READONLY: return DB_EREADONLY;
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB: return DB_ECORRUPT;
    case SQLITE_NOMEM: return DB_ENOMEM;
    case SQLITE_MISUSE:
    case SQLITE_RANGE: return DB_EMISUSE;
    default: return DB_EFAIL;
    }
}

static int lite_fail(db_conn *d, int rc)
{
    int code = lite_code(rc);
    if (code < 0)
        set_err(d, code, sqlite3_errmsg(d->lite));
    return code;
}

/* A PostgreSQL failure's code from its SQLSTATE (or the connection's state). */
static int pg_code(PGconn *c, const PGresult *r)
{
    if (!c || PQstatus(c) != CONNECTION_OK)
        return DB_ELOST;
    const char *st = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
    if (!st)
        return r ? DB_EFAIL : DB_ELOST;
    if (!strcmp(st, "TS001"))
        return DB_EFENCED;
    if (!strncmp(st, "23", 2))
        return DB_ECONSTRAINT;
    if (!strncmp(st, "08", 2) || !strcmp(st, "57P01") || !strcmp(st, "57P02") ||
        !strcmp(st, "57P03"))
        return DB_ELOST;
    if (!strcmp(st, "53100"))
        return DB_EFULL;
    if (!strcmp(st, "53200"))
        return DB_ENOMEM;
    if (!strncmp(st, "58", 2))
        return DB_EIO;
    if (!strcmp(st, "25006"))
        return DB_EREADONLY;
    if (!strcmp(st, "40001") || !strcmp(st, "40P01") || !strcmp(st, "55P03"))
        return DB_EBUSY;
    if (!strncmp(st, "XX", 2))
        return DB_ECORRUPT;
    return DB_EFAIL;
}

int db_pg_set_error(db_conn *d, const void *res)
{
    const PGresult *r = res;
    int code = pg_code(d->pg, r);
    const char *m = r ? PQresultErrorMessage(r) : NULL;
    if (!m || !*m)
        m = d->pg ? PQerrorMessage(d->pg) : "no connection";
    if (code == DB_ELOST && (!m || !*m))
        m = "the connection to PostgreSQL was lost";
    set_err(d, code, m);
    return code;
}

/* ---- PostgreSQL: connecting ------------------------------------------------------------------ */

/* The connection string with our defaults for what it leaves unset: a
 * connect timeout (never wait on a dead host for long), keepalives (notice a
 * peer that vanished) and the application name (pg_stat_activity). */
static PGconn *pg_connect(const char *conninfo)
{
    const char *info = !strncmp(conninfo, "pg:", 3) ? conninfo + 3 : conninfo;
    const char *keys[] = {
        "dbname",          "connect_timeout",     "application_name", "keepalives",
        "keepalives_idle", "keepalives_interval", "keepalives_count", NULL};
    const char *vals[] = {info, "5", "tessera", "1", "10", "5", "3", NULL};
    /* expand_dbname: the first value is the whole string; later keys
     * override it, so ours come only where it sets none */
    PQconninfoOption *opts = PQconninfoParse(info, NULL);
    if (opts) {
        for (PQconninfoOption *o = opts; o->keyword; o++)
            if (o->val)
                for (int i = 1; keys[i]; i++)
                    if (!strcmp(o->keyword, keys[i]))
                        vals[i] = o->val;
    }
    PGconn *c = PQconnectdbParams(keys, vals, 1);
    PQconninfoFree(opts);
    return c;
}

/* The message of a failed connection, without anything that could hold a
 * password (libpq does not echo passwords; one line). */
static void pg_connect_error(db_conn *d, PGconn *c)
{
    const char *m = c ? PQerrorMessage(c) : "out of memory";
    set_err(d, DB_ELOST, m && *m ? m : "cannot connect");
    for (char *p = d->msg; *p; p++)
        if (*p == '\n')
            *p = ' ';
}

/* PostgreSQL's notices ("relation already exists, skipping") are not ours
 * to print on stderr. */
static void ignore_notice(void *arg, const char *message)
{
    (void)arg, (void)message;
}

int db_reconnect(db_conn *d)
{
    if (d->engine != DB_POSTGRES)
        return DB_OK;
    if (d->pg && PQstatus(d->pg) == CONNECTION_OK)
        return DB_OK;
    d->tried_ms = mono_ms();
    if (d->pg) {
        if (d->on_lost)
            d->on_lost(d->on_lost_arg);
        PQfinish(d->pg);
        d->pg = NULL;
    }
    d->pg = pg_connect(d->conninfo);
    if (!d->pg || PQstatus(d->pg) != CONNECTION_OK) {
        pg_connect_error(d, d->pg);
        return DB_ELOST;
    }
    d->schema_locked = 0; /* a new session holds no lock */
    PQsetNoticeProcessor(d->pg, ignore_notice, NULL);
    return DB_OK;
}

/* Is the connection usable? Tries again once DB_RECONNECT_MS has passed
 * since the last attempt; fails at once otherwise. */
static int pg_ready(db_conn *d)
{
    if (d->pg && PQstatus(d->pg) == CONNECTION_OK)
        return DB_OK;
    if (d->tried_ms && mono_ms() - d->tried_ms < DB_RECONNECT_MS) {
        if (d->code != DB_ELOST)
            set_err(d, DB_ELOST, "the connection to PostgreSQL was lost");
        return DB_ELOST;
    }
    return db_reconnect(d);
}

/* ---- open, close ------------------------------------------------------------------------------
 */

int db_open(const char *target, db_conn **out, char *err, size_t errcap)
{
    *out = NULL;
    db_conn *d = calloc(1, sizeof *d);
    if (!d) {
        snprintf(err, errcap, "out of memory");
        return DB_ENOMEM;
    }
    if (db_target_is_pg(target)) {
        d->engine = DB_POSTGRES;
        d->conninfo = strdup(target);
        if (!d->conninfo) {
            free(d);
            snprintf(err, errcap, "out of memory");
            return DB_ENOMEM;
        }
        int rc = db_reconnect(d);
        if (rc) {
            snprintf(err, errcap, "PostgreSQL: %s", d->msg);
            db_close(d);
            return rc;
        }
    } else {
        d->engine = DB_SQLITE;
        const char *file = db_target_file(target);
        int rc = sqlite3_open_v2(file, &d->lite, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
        if (rc != SQLITE_OK) {
            snprintf(err, errcap, "database %s: %s", file,
                     d->lite ? sqlite3_errmsg(d->lite) : "cannot open");
            int code = lite_code(rc);
            db_close(d);
            return code < 0 ? code : DB_EFAIL;
        }
    }
    *out = d;
    return DB_OK;
}

int db_wrap_sqlite(sqlite3 *h, db_conn **out)
{
    db_conn *d = calloc(1, sizeof *d);
    if (!d)
        return DB_ENOMEM;
    d->engine = DB_SQLITE;
    d->lite = h;
    d->borrowed = true;
    *out = d;
    return DB_OK;
}

void db_close(db_conn *d)
{
    if (!d)
        return;
    if (d->lite && !d->borrowed)
        sqlite3_close_v2(d->lite);
    if (d->pg)
        PQfinish(d->pg);
    free(d->conninfo);
    free(d);
}

db_engine db_engine_of(const db_conn *d)
{
    return d->engine;
}
sqlite3 *db_sqlite(db_conn *d)
{
    return d->lite;
}
struct pg_conn *db_pg(db_conn *d)
{
    return d->pg;
}
void db_pg_drop(db_conn *d)
{
    if (d->engine != DB_POSTGRES || !d->pg)
        return;
    if (d->on_lost)
        d->on_lost(d->on_lost_arg);
    PQfinish(d->pg);
    d->pg = NULL;
    set_err(d, DB_ELOST, "the connection to PostgreSQL was dropped");
}
const char *db_errmsg(db_conn *d)
{
    return d->msg;
}
int db_errcode(db_conn *d)
{
    return d->code;
}

void db_set_on_lost(db_conn *d, db_before_fn fn, void *arg)
{
    d->on_lost = fn;
    d->on_lost_arg = arg;
}

void db_set_before(db_conn *d, db_before_fn fn, void *arg)
{
    d->before = fn;
    d->before_arg = arg;
}

/* ---- translation to PostgreSQL's dialect ------------------------------------------------------
 */

static bool word_at(const char *s, const char *w)
{
    size_t n = strlen(w);
    return strncmp(s, w, n) == 0 && !isalnum((unsigned char)s[n]) && s[n] != '_';
}

/* Skip spaces; returns the first non-space. */
static const char *skip_ws(const char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    return s;
}

char *db_translate_pg(const char *sql)
{
    textbuf b = TEXTBUF_INIT;
    int next = 0; /* the number a plain '?' takes */
    const char *s = sql;
    bool prev_word = false; /* the character before s is part of a word */
    while (*s) {
        char ch = *s;
        if (ch == '\'' || ch == '"') { /* a literal or quoted name: as it is */
            const char *e = s + 1;
            while (*e && !(*e == ch && e[1] != ch))
                e += *e == ch ? 2 : 1;
            if (*e)
                e++;
            tb_put(&b, s, (size_t)(e - s));
            s = e;
            prev_word = false;
            continue;
        }
        if (ch == '?') {
            int n;
            const char *e = s + 1;
            if (isdigit((unsigned char)*e)) {
                n = 0;
                while (isdigit((unsigned char)*e))
                    n = n * 10 + (*e++ - '0');
                if (n > next)
                    next = n;
            } else {
                n = ++next;
            }
            char num[16];
            int k = snprintf(num, sizeof num, "$%d", n);
            tb_put(&b, num, (size_t)k);
            s = e;
            prev_word = false;
            continue;
        }
        if (!prev_word && isalpha((unsigned char)ch)) {
            if (word_at(s, "INTEGER")) {
                const char *a = skip_ws(s + 7);
                if (word_at(a, "PRIMARY")) {
                    const char *k = skip_ws(a + 7);
                    if (word_at(k, "KEY")) {
                        const char *e = k + 3;
                        const char *au = skip_ws(e);
                        if (word_at(au, "AUTOINCREMENT"))
                            e = au + 13;
                        static const char ident[] =
                            "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY";
                        tb_put(&b, ident, sizeof ident - 1);
                        s = e;
                        continue;
                    }
                }
                tb_put(&b, "BIGINT", 6);
                s += 7;
                continue;
            }
            if (word_at(s, "REAL")) {
                tb_put(&b, "DOUBLE PRECISION", 16);
                s += 4;
                continue;
            }
            if (word_at(s, "BLOB")) {
                tb_put(&b, "BYTEA", 5);
                s += 4;
                continue;
            }
            if (word_at(s, "WITHOUT")) {
                const char *r = skip_ws(s + 7);
                if (word_at(r, "ROWID")) {
                    s = r + 5;
                    continue;
                }
            }
            if (word_at(s, "IMMEDIATE") || word_at(s, "DEFERRED") || word_at(s, "EXCLUSIVE")) {
                /* BEGIN IMMEDIATE: the trailing word only (the BEGIN stays) */
                size_t n = 0;
                while (isalpha((unsigned char)s[n]))
                    n++;
                /* only right after BEGIN */
                size_t bl = b.len;
                while (bl > 0 && isspace((unsigned char)b.p[bl - 1]))
                    bl--;
                if (bl >= 5 && !strncmp(b.p + bl - 5, "BEGIN", 5)) {
                    s += n;
                    continue;
                }
            }
        }
        tb_put(&b, s, 1);
        prev_word = isalnum((unsigned char)ch) || ch == '_';
        s++;
    }
    return tb_take(&b);
}

char *db_translate(const db_conn *d, const char *sql)
{
    return d->engine == DB_POSTGRES ? db_translate_pg(sql) : strdup(sql);
}

/* ---- statements -------------------------------------------------------------------------------
 */

static void pg_before(db_conn *d)
{
    if (d->before)
        d->before(d->before_arg);
}

int db_exec(db_conn *d, const char *sql)
{
    if (d->engine == DB_SQLITE) {
        if (d->before)
            d->before(d->before_arg);
        char *m = NULL;
        int rc = sqlite3_exec(d->lite, sql, NULL, NULL, &m);
        if (rc != SQLITE_OK) {
            set_err(d, lite_code(rc) < 0 ? lite_code(rc) : DB_EFAIL, m ? m : sqlite3_errstr(rc));
            sqlite3_free(m);
            return d->code;
        }
        d->code = DB_OK;
        return DB_OK;
    }
    int rc = pg_ready(d);
    if (rc)
        return rc;
    pg_before(d);
    char *t = db_translate_pg(sql);
    if (!t) {
        set_err(d, DB_ENOMEM, "out of memory");
        return DB_ENOMEM;
    }
    PGresult *r = PQexec(d->pg, t);
    free(t);
    ExecStatusType st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK && st != PGRES_EMPTY_QUERY) {
        rc = db_pg_set_error(d, r);
        PQclear(r);
        return rc;
    }
    const char *n = PQcmdTuples(r);
    d->changes = n && *n ? strtoll(n, NULL, 10) : 0;
    PQclear(r);
    d->code = DB_OK;
    return DB_OK;
}

int db_prepare(db_conn *d, const char *sql, db_stmt **out)
{
    *out = NULL;
    db_stmt *q = calloc(1, sizeof *q);
    if (!q) {
        set_err(d, DB_ENOMEM, "out of memory");
        return DB_ENOMEM;
    }
    q->d = d;
    if (d->engine == DB_SQLITE) {
        int rc = sqlite3_prepare_v2(d->lite, sql, -1, &q->lite, NULL);
        if (rc != SQLITE_OK) {
            free(q);
            return lite_fail(d, rc);
        }
    } else {
        q->sql = db_translate_pg(sql);
        if (!q->sql) {
            free(q);
            set_err(d, DB_ENOMEM, "out of memory");
            return DB_ENOMEM;
        }
        q->row = -1;
    }
    *out = q;
    return DB_OK;
}

static void pg_clear_result(db_stmt *q)
{
    if (q->res)
        PQclear(q->res);
    q->res = NULL;
    q->row = -1;
    q->nrows = 0;
    free(q->blob);
    q->blob = NULL;
    q->ran = false;
}

/* PostgreSQL: set parameter i (from 1) to n bytes at p (copied; p NULL: NULL). */
static int pg_bind(db_stmt *q, int i, const void *p, int n, int fmt, unsigned int type)
{
    if (i < 1 || i > DB_MAX_PARAMS) {
        set_err(q->d, DB_EMISUSE, "parameter index out of range");
        return DB_EMISUSE;
    }
    if (q->ran)
        pg_clear_result(q); /* binding after a run: as sqlite3 after a reset */
    free(q->val[i - 1]);
    q->val[i - 1] = NULL;
    if (p) {
        char *v = malloc((size_t)n + 1);
        if (!v) {
            set_err(q->d, DB_ENOMEM, "out of memory");
            return DB_ENOMEM;
        }
        memcpy(v, p, (size_t)n);
        v[n] = 0;
        q->val[i - 1] = v;
    }
    q->len[i - 1] = n;
    q->fmt[i - 1] = fmt;
    q->type[i - 1] = type;
    if (i > q->nparams)
        q->nparams = i;
    return DB_OK;
}

int db_bind_int64(db_stmt *q, int i, int64_t v)
{
    if (q->lite)
        return lite_fail(q->d, sqlite3_bind_int64(q->lite, i, v));
    char t[24];
    int n = snprintf(t, sizeof t, "%" PRId64, v);
    return pg_bind(q, i, t, n, 0, OID_INT8);
}

int db_bind_double(db_stmt *q, int i, double v)
{
    if (q->lite)
        return lite_fail(q->d, sqlite3_bind_double(q->lite, i, v));
    char t[40];
    int n = snprintf(t, sizeof t, "%.17g", v);
    return pg_bind(q, i, t, n, 0, OID_FLOAT8);
}

int db_bind_text(db_stmt *q, int i, const char *s, int len)
{
    if (!s)
        return db_bind_null(q, i);
    if (len < 0)
        len = (int)strlen(s);
    if (q->lite)
        return lite_fail(q->d, sqlite3_bind_text(q->lite, i, s, len, SQLITE_TRANSIENT));
    return pg_bind(q, i, s, len, 0, 0);
}

int db_bind_blob(db_stmt *q, int i, const void *p, int len)
{
    if (!p)
        return db_bind_null(q, i);
    if (q->lite)
        return lite_fail(q->d, sqlite3_bind_blob(q->lite, i, p, len, SQLITE_TRANSIENT));
    return pg_bind(q, i, p, len, 1, OID_BYTEA);
}

int db_bind_null(db_stmt *q, int i)
{
    if (q->lite)
        return lite_fail(q->d, sqlite3_bind_null(q->lite, i));
    return pg_bind(q, i, NULL, 0, 0, 0);
}

int db_step(db_stmt *q)
{
    db_conn *d = q->d;
    if (q->lite) {
        if (d->before && !sqlite3_stmt_busy(q->lite)) /* its first step */
            d->before(d->before_arg);
        int rc = sqlite3_step(q->lite);
        if (rc == SQLITE_ROW)
            return DB_ROW;
        if (rc == SQLITE_DONE) {
            d->code = DB_OK;
            return DB_DONE;
        }
        return lite_fail(d, rc);
    }
    if (!q->ran) {
        int rc = pg_ready(d);
        if (rc)
            return rc;
        pg_before(d);
        const char *vals[DB_MAX_PARAMS];
        for (int i = 0; i < q->nparams; i++)
            vals[i] = q->val[i];
        /* unbound parameters below the highest bound one are NULLs */
        PGresult *r = PQexecParams(d->pg, q->sql, q->nparams, q->type, vals, q->len, q->fmt, 0);
        ExecStatusType st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
        q->ran = true;
        if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
            rc = db_pg_set_error(d, r);
            PQclear(r);
            return rc;
        }
        q->res = r;
        q->nrows = PQntuples(r);
        q->row = -1;
        const char *n = PQcmdTuples(r);
        d->changes = n && *n ? strtoll(n, NULL, 10) : 0;
        d->code = DB_OK;
    }
    free(q->blob);
    q->blob = NULL;
    if (q->row + 1 < q->nrows) {
        q->row++;
        return DB_ROW;
    }
    q->row = q->nrows;
    return DB_DONE;
}

int db_column_count(db_stmt *q)
{
    if (q->lite)
        return sqlite3_column_count(q->lite);
    return q->res ? PQnfields(q->res) : 0;
}

/* PostgreSQL: is (row, column i) a value of the current row? */
static bool pg_cell(db_stmt *q, int i)
{
    return q->res && q->row >= 0 && q->row < q->nrows && i >= 0 && i < PQnfields(q->res) &&
           !PQgetisnull(q->res, q->row, i);
}

bool db_column_null(db_stmt *q, int i)
{
    if (q->lite)
        return sqlite3_column_type(q->lite, i) == SQLITE_NULL;
    return !pg_cell(q, i);
}

int64_t db_column_int64(db_stmt *q, int i)
{
    if (q->lite)
        return sqlite3_column_int64(q->lite, i);
    if (!pg_cell(q, i))
        return 0;
    const char *v = PQgetvalue(q->res, q->row, i);
    if (PQftype(q->res, i) == OID_BOOL)
        return v[0] == 't';
    return strtoll(v, NULL, 10);
}

bool db_column_is_int(db_stmt *q, int i)
{
    if (q->lite)
        return sqlite3_column_type(q->lite, i) == SQLITE_INTEGER;
    if (!pg_cell(q, i))
        return false;
    unsigned int t = PQftype(q->res, i);
    return t == OID_INT8 || t == 21 /* int2 */ || t == 23 /* int4 */;
}

double db_column_double(db_stmt *q, int i)
{
    if (q->lite)
        return sqlite3_column_double(q->lite, i);
    if (!pg_cell(q, i))
        return 0;
    const char *v = PQgetvalue(q->res, q->row, i);
    if (PQftype(q->res, i) == OID_BOOL)
        return v[0] == 't';
    return strtod(v, NULL);
}

const char *db_column_text(db_stmt *q, int i)
{
    if (q->lite)
        return (const char *)sqlite3_column_text(q->lite, i);
    if (!pg_cell(q, i))
        return NULL;
    return PQgetvalue(q->res, q->row, i);
}

const void *db_column_blob(db_stmt *q, int i, int *len)
{
    *len = 0;
    if (q->lite) {
        const void *p = sqlite3_column_blob(q->lite, i);
        *len = sqlite3_column_bytes(q->lite, i);
        return p;
    }
    if (!pg_cell(q, i))
        return NULL;
    const char *v = PQgetvalue(q->res, q->row, i);
    if (PQftype(q->res, i) != OID_BYTEA) { /* text read as bytes */
        *len = PQgetlength(q->res, q->row, i);
        return v;
    }
    free(q->blob);
    size_t n = 0;
    q->blob = PQunescapeBytea((const unsigned char *)v, &n);
    if (!q->blob)
        return NULL;
    *len = (int)n;
    return q->blob;
}

void db_reset(db_stmt *q)
{
    if (q->lite) {
        sqlite3_reset(q->lite);
        return;
    }
    pg_clear_result(q);
}

void db_clear_bindings(db_stmt *q)
{
    if (q->lite) {
        sqlite3_clear_bindings(q->lite);
        return;
    }
    pg_clear_result(q);
    for (int i = 0; i < q->nparams; i++) {
        free(q->val[i]);
        q->val[i] = NULL;
    }
    q->nparams = 0;
}

void db_finalize(db_stmt *q)
{
    if (!q)
        return;
    if (q->lite) {
        sqlite3_finalize(q->lite);
    } else {
        db_clear_bindings(q);
        free(q->sql);
    }
    free(q);
}

int64_t db_changes(db_conn *d)
{
    return d->engine == DB_SQLITE ? sqlite3_changes(d->lite) : d->changes;
}

bool db_in_transaction(db_conn *d)
{
    if (d->engine == DB_SQLITE)
        return !sqlite3_get_autocommit(d->lite);
    if (!d->pg)
        return false;
    /* ACTIVE: a query of the connection's asynchronous owner is in flight
     * (store_pg.c's batch, its own implicit transaction), not a transaction
     * the caller opened */
    PGTransactionStatusType t = PQtransactionStatus(d->pg);
    return t == PQTRANS_INTRANS || t == PQTRANS_INERROR;
}

/* A key of our own for the advisory lock ("tessera" folded into 63 bits). */
#define SCHEMA_LOCK_KEY 7308604921398372961LL

int db_schema_lock(db_conn *d)
{
    if (d->engine == DB_SQLITE)
        return DB_OK;
    if (d->schema_locked > 0) { /* nested: the outermost holds it */
        d->schema_locked++;
        return DB_OK;
    }
    char sql[80];
    snprintf(sql, sizeof sql, "SELECT pg_advisory_lock(%lld)", SCHEMA_LOCK_KEY);
    int rc = db_exec(d, sql);
    if (rc == DB_OK)
        d->schema_locked = 1;
    return rc;
}

void db_schema_unlock(db_conn *d)
{
    if (d->engine == DB_SQLITE || d->schema_locked <= 0 || --d->schema_locked > 0)
        return;
    char sql[80];
    snprintf(sql, sizeof sql, "SELECT pg_advisory_unlock(%lld)", SCHEMA_LOCK_KEY);
    db_exec(d, sql);
}
