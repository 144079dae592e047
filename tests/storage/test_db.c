/*
 * test_db.c — storage/db.h on both engines: the same cases run on a SQLite
 * file and on a fresh PostgreSQL database of the test cluster (the CTest
 * fixture `services`): types (64-bit integers, reals, text with quotes and
 * non-ASCII, blobs with NUL bytes, NULL), identity ids through RETURNING,
 * upserts, numbered parameters, transactions and savepoints with rollback,
 * errors mapped to codes (a key refused, a syntax error), the number of
 * rows changed; and on PostgreSQL alone the dialect translation, a lost
 * connection (its backend terminated) failing fast with DB_ELOST and then
 * reconnecting, and the fence error TS001 read as DB_EFENCED.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "pgtest.h"
#include "storage/db.h"

static char sqlite_path[64];

static db_conn *open_engine(int pg)
{
    char err[512] = "";
    db_conn *d = NULL;
    const char *target;
    if (pg) {
        target = pgtest_create("test_db");
        if (!target)
            fail_msg("no PostgreSQL for this test (see above)");
    } else {
        snprintf(sqlite_path, sizeof sqlite_path, "/tmp/test-db-%d.sqlite", (int)getpid());
        unlink(sqlite_path);
        target = sqlite_path;
    }
    int rc = db_open(target, &d, err, sizeof err);
    if (rc)
        fail_msg("db_open(%s): %s", target, err);
    assert_int_equal(db_engine_of(d), pg ? DB_POSTGRES : DB_SQLITE);
    return d;
}

static void close_engine(db_conn *d, int pg)
{
    db_close(d);
    if (pg)
        pgtest_drop();
    else
        unlink(sqlite_path);
}

static void exec_ok(db_conn *d, const char *sql)
{
    int rc = db_exec(d, sql);
    if (rc)
        fail_msg("%s: %d %s", sql, rc, db_errmsg(d));
}

static void types_roundtrip(void **state)
{
    int pg = *(int *)*state;
    db_conn *d = open_engine(pg);
    exec_ok(d, "CREATE TABLE t(id INTEGER PRIMARY KEY AUTOINCREMENT, big INTEGER NOT NULL,"
               " r REAL, s TEXT, b BLOB)");
    db_stmt *q = NULL;
    assert_int_equal(db_prepare(d, "INSERT INTO t(big, r, s, b) VALUES(?,?,?,?) RETURNING id", &q),
                     DB_OK);
    const unsigned char bytes[] = {0, 1, 2, 0xff, 0, 'x', '\\', '\''};
    int64_t ids[2];
    for (int k = 0; k < 2; k++) {
        db_bind_int64(q, 1, k ? INT64_MIN : INT64_MAX);
        db_bind_double(q, 2, k ? -0.125 : 3.5e300);
        db_bind_text(q, 3, k ? "l'été \"quoted\" \\ back" : "plain", -1);
        if (k)
            db_bind_null(q, 4);
        else
            db_bind_blob(q, 4, bytes, (int)sizeof bytes);
        assert_int_equal(db_step(q), DB_ROW);
        ids[k] = db_column_int64(q, 0);
        assert_int_equal(db_step(q), DB_DONE);
        db_reset(q);
        db_clear_bindings(q);
    }
    db_finalize(q);
    assert_true(ids[0] >= 1);
    assert_true(ids[1] > ids[0]);

    assert_int_equal(db_prepare(d, "SELECT id, big, r, s, b FROM t ORDER BY id", &q), DB_OK);
    assert_int_equal(db_step(q), DB_ROW);
    assert_int_equal(db_column_count(q), 5);
    assert_true(db_column_int64(q, 1) == INT64_MAX);
    assert_true(db_column_double(q, 2) == 3.5e300);
    assert_string_equal(db_column_text(q, 3), "plain");
    int len = 0;
    const void *p = db_column_blob(q, 4, &len);
    assert_int_equal(len, (int)sizeof bytes);
    assert_memory_equal(p, bytes, sizeof bytes);
    assert_false(db_column_null(q, 4));
    assert_int_equal(db_step(q), DB_ROW);
    assert_true(db_column_int64(q, 1) == INT64_MIN);
    assert_true(db_column_double(q, 2) == -0.125);
    assert_string_equal(db_column_text(q, 3), "l'été \"quoted\" \\ back");
    assert_true(db_column_null(q, 4));
    assert_null(db_column_text(q, 4));
    assert_null(db_column_blob(q, 4, &len));
    assert_int_equal(db_step(q), DB_DONE);
    db_finalize(q);
    close_engine(d, pg);
}

static void upsert_and_numbered(void **state)
{
    int pg = *(int *)*state;
    db_conn *d = open_engine(pg);
    exec_ok(d,
            "CREATE TABLE kv(k TEXT PRIMARY KEY, v INTEGER NOT NULL, n INTEGER NOT NULL DEFAULT 0)"
            " WITHOUT ROWID");
    db_stmt *q = NULL;
    assert_int_equal(db_prepare(d,
                                "INSERT INTO kv(k, v) VALUES(?1, ?2) ON CONFLICT(k) DO UPDATE SET "
                                "v = excluded.v + ?2, n = kv.n + 1",
                                &q),
                     DB_OK);
    for (int i = 1; i <= 3; i++) {
        db_bind_text(q, 1, "a", -1);
        db_bind_int(q, 2, i);
        assert_int_equal(db_step(q), DB_DONE);
        assert_int_equal(db_changes(d), 1);
        db_reset(q);
    }
    db_finalize(q);
    /* ON CONFLICT DO NOTHING: nothing changed */
    exec_ok(d, "INSERT INTO kv(k, v) VALUES('a', 99) ON CONFLICT DO NOTHING");
    assert_int_equal(db_changes(d), 0);
    assert_int_equal(db_prepare(d, "SELECT v, n, v > ? FROM kv WHERE k = ?", &q), DB_OK);
    db_bind_int(q, 1, 5);
    db_bind_text(q, 2, "a", 1);
    assert_int_equal(db_step(q), DB_ROW);
    assert_int_equal(db_column_int(q, 0), 6); /* 3 + 3 */
    assert_int_equal(db_column_int(q, 1), 2);
    assert_int_equal(db_column_int(q, 2), 1); /* a boolean reads as 1 */
    db_finalize(q);
    close_engine(d, pg);
}

static void transactions(void **state)
{
    int pg = *(int *)*state;
    db_conn *d = open_engine(pg);
    exec_ok(d, "CREATE TABLE t(a INTEGER PRIMARY KEY, s TEXT NOT NULL)");
    assert_false(db_in_transaction(d));
    exec_ok(d, "BEGIN IMMEDIATE");
    assert_true(db_in_transaction(d));
    exec_ok(d, "INSERT INTO t VALUES(1, 'one')");
    exec_ok(d, "SAVEPOINT sp");
    exec_ok(d, "INSERT INTO t VALUES(2, 'two')");
    exec_ok(d, "ROLLBACK TO sp; RELEASE sp");
    exec_ok(d, "COMMIT");
    assert_false(db_in_transaction(d));
    exec_ok(d, "BEGIN");
    exec_ok(d, "INSERT INTO t VALUES(3, 'three')");
    exec_ok(d, "ROLLBACK");
    db_stmt *q = NULL;
    assert_int_equal(db_prepare(d, "SELECT count(*), sum(a) FROM t", &q), DB_OK);
    assert_int_equal(db_step(q), DB_ROW);
    assert_int_equal(db_column_int(q, 0), 1);
    assert_int_equal(db_column_int(q, 1), 1);
    db_finalize(q);

    /* a key refused is DB_ECONSTRAINT, with the engine's words */
    assert_int_equal(db_exec(d, "INSERT INTO t VALUES(1, 'again')"), DB_ECONSTRAINT);
    assert_true(strlen(db_errmsg(d)) > 0);
    assert_int_equal(db_errcode(d), DB_ECONSTRAINT);
    assert_int_equal(db_prepare(d, "INSERT INTO t VALUES(?, NULL)", &q), DB_OK);
    db_bind_int(q, 1, 7);
    assert_int_equal(db_step(q), DB_ECONSTRAINT);
    db_finalize(q);
    /* a statement that is not SQL fails (SQLite at prepare, PostgreSQL at step) */
    int rc = db_prepare(d, "SELEKT nothing", &q);
    if (rc == DB_OK) {
        assert_int_equal(db_step(q), DB_EFAIL);
        db_finalize(q);
    } else {
        assert_int_equal(rc, DB_EFAIL);
    }
    assert_true(strlen(db_errmsg(d)) > 0);
    /* a parameter index out of range */
    assert_int_equal(db_prepare(d, "SELECT ?", &q), DB_OK);
    assert_int_equal(db_bind_int(q, 0, 1), DB_EMISUSE);
    db_finalize(q);
    close_engine(d, pg);
}

static void translation(void **state)
{
    (void)state;
    struct {
        const char *in, *out;
    } cases[] = {
        {"SELECT ? , ?", "SELECT $1 , $2"},
        {"UPDATE m SET s=?1 WHERE id=?2 AND s<>?1", "UPDATE m SET s=$1 WHERE id=$2 AND s<>$1"},
        {"SELECT '?', \"a?\" , ?", "SELECT '?', \"a?\" , $1"},
        {"SELECT 'it''s ?', ?", "SELECT 'it''s ?', $1"},
        {"CREATE TABLE t(id INTEGER PRIMARY KEY AUTOINCREMENT, x INTEGER, y REAL, z BLOB)",
         "CREATE TABLE t(id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, x BIGINT, y "
         "DOUBLE PRECISION, z BYTEA)"},
        {"CREATE TABLE t(id INTEGER PRIMARY KEY, a INTEGER NOT NULL, PRIMARY KEY(a)) WITHOUT "
         "ROWID;",
         "CREATE TABLE t(id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, a BIGINT NOT "
         "NULL, PRIMARY KEY(a)) ;"},
        {"BEGIN IMMEDIATE", "BEGIN "},
        {"SELECT CAST(x AS INTEGER), realm, BLOBS, 'INTEGER'", "SELECT CAST(x AS BIGINT), realm, "
                                                               "BLOBS, 'INTEGER'"},
        {"SELECT immediate FROM t", "SELECT immediate FROM t"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *t = db_translate_pg(cases[i].in);
        assert_non_null(t);
        assert_string_equal(t, cases[i].out);
        free(t);
    }
    assert_true(db_target_is_pg("postgresql://u@h/db"));
    assert_true(db_target_is_pg("postgres://h"));
    assert_true(db_target_is_pg("pg:dbname=x"));
    assert_true(db_target_is_pg("host=/tmp dbname=x"));
    assert_true(db_target_is_pg(" dbname = x"));
    assert_false(db_target_is_pg("tessera.db"));
    assert_false(db_target_is_pg("sqlite:host=x"));
    assert_false(db_target_is_pg("/var/lib/tessera/tessera.db"));
    assert_false(db_target_is_pg("./a=b.db"));
    assert_string_equal(db_target_file("sqlite:host=x"), "host=x");
    assert_string_equal(db_target_file("a.db"), "a.db");
}

/* PostgreSQL: a backend killed under us fails the next call with DB_ELOST
 * at once; a call after DB_RECONNECT_MS connects again. */
static void pg_lost_connection(void **state)
{
    (void)state;
    db_conn *d = open_engine(1);
    exec_ok(d, "CREATE TABLE t(a INTEGER)");
    db_stmt *q = NULL;
    assert_int_equal(db_prepare(d, "SELECT pg_backend_pid()", &q), DB_OK);
    assert_int_equal(db_step(q), DB_ROW);
    int64_t pid = db_column_int64(q, 0);
    db_finalize(q);
    PGconn *killer = PQconnectdb(pgtest_conninfo);
    assert_int_equal(PQstatus(killer), CONNECTION_OK);
    char sql[80];
    snprintf(sql, sizeof sql, "SELECT pg_terminate_backend(%lld)", (long long)pid);
    PQclear(PQexec(killer, sql));
    PQfinish(killer);
    usleep(200 * 1000);
    assert_int_equal(db_exec(d, "INSERT INTO t VALUES(1)"), DB_ELOST);
    /* within DB_RECONNECT_MS of the attempt: refused at once, no new attempt */
    assert_int_equal(db_exec(d, "INSERT INTO t VALUES(2)"), DB_ELOST);
    assert_true(strlen(db_errmsg(d)) > 0);
    usleep((DB_RECONNECT_MS + 200) * 1000);
    exec_ok(d, "INSERT INTO t VALUES(3)");
    assert_int_equal(db_prepare(d, "SELECT count(*) FROM t", &q), DB_OK);
    assert_int_equal(db_step(q), DB_ROW);
    assert_int_equal(db_column_int(q, 0), 1);
    db_finalize(q);
    /* a fence error (SQLSTATE TS001, raised by the journal's lease check) */
    int rc = db_exec(d, "DO $$ BEGIN RAISE EXCEPTION 'lease lost' USING ERRCODE = 'TS001'; END $$");
    assert_int_equal(rc, DB_EFENCED);
    close_engine(d, 1);
}

static void before_hook_counts(void *arg)
{
    (*(int *)arg)++;
}

static void pg_before_hook(void **state)
{
    (void)state;
    db_conn *d = open_engine(1);
    int calls = 0;
    db_set_before(d, before_hook_counts, &calls);
    exec_ok(d, "CREATE TABLE t(a INTEGER)");
    db_stmt *q = NULL;
    assert_int_equal(db_prepare(d, "SELECT 1 UNION ALL SELECT 2", &q), DB_OK);
    assert_int_equal(db_step(q), DB_ROW);
    assert_int_equal(db_step(q), DB_ROW);
    assert_int_equal(db_step(q), DB_DONE);
    db_finalize(q);
    /* one call per statement run, not per row */
    assert_int_equal(calls, 2);
    assert_int_equal(db_schema_lock(d), DB_OK);
    db_schema_unlock(d);
    close_engine(d, 1);
}

static int on_sqlite = 0, on_pg = 1;

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(translation),
        cmocka_unit_test_prestate(types_roundtrip, &on_sqlite),
        cmocka_unit_test_prestate(upsert_and_numbered, &on_sqlite),
        cmocka_unit_test_prestate(transactions, &on_sqlite),
        cmocka_unit_test_prestate(types_roundtrip, &on_pg),
        cmocka_unit_test_prestate(upsert_and_numbered, &on_pg),
        cmocka_unit_test_prestate(transactions, &on_pg),
        cmocka_unit_test(pg_lost_connection),
        cmocka_unit_test(pg_before_hook),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
