/*
 * test_final_pairs.c — a round-robin final played by several servers
 * (classroom/finals.c) finishes when its last pairs are stored at the same
 * moment by two of them. White-box: two class_services on two connections
 * to one fresh PostgreSQL database (the CTest fixture `services`,
 * tests/storage/pgtest.h), each storing one of the course's two pairs in
 * its own transaction, the second while the first is not yet committed.
 * Under READ COMMITTED each would count the other's pair as not done, and
 * neither would finish the final (the final then stays 'running' for
 * ever); exactly one of them must see the final finished.
 */
// clang-format off
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
// clang-format on

#include <pthread.h>
#include <string.h>
#include <time.h>

#include "../storage/pgtest.h"
#include "classroom/internal.h"

static int64_t insert_id(db_conn *db, const char *sql)
{
    db_stmt *q = NULL;
    if (db_prepare(db, sql, &q) != DB_OK)
        fail_msg("%s: %s", sql, db_errmsg(db));
    assert_int_equal(db_step(q), DB_ROW);
    int64_t id = db_column_int64(q, 0);
    db_finalize(q);
    assert_true(id > 0);
    return id;
}

typedef struct storer {
    class_service svc;
    done d;
    bool ok, stale, finished;
} storer;

static void *second(void *arg)
{
    storer *s = arg;
    assert_true(class__begin(&s->svc));
    s->ok = class__store_pair(&s->svc, &s->d, &s->stale, &s->finished);
    class__commit(&s->svc, s->ok);
    return NULL;
}

static void test_last_pairs_at_once(void **state)
{
    (void)state;
    const char *target = pgtest_create("test_final_pairs");
    if (!target)
        fail_msg("no PostgreSQL for this test (see above)");
    char err[512] = "";
    db_conn *db[2] = {NULL, NULL};
    for (int i = 0; i < 2; i++)
        if (db_open(target, &db[i], err, sizeof err) != DB_OK)
            fail_msg("db_open(%s): %s", target, err);
    assert_int_equal(class_store_init(db[0], err, sizeof err), 0);
    /* a course of two students, a final of two pairs (its rounds: two games
     * between the same two submissions), both claimed and being played */
    int64_t course = insert_id(db[0], "INSERT INTO class_courses(name, game, rules, move_ms, gates,"
                                      " qualify, seed, final_games, deadline_ms, created_ms,"
                                      " final_state) VALUES('c', 'reversi', '{}', 100, '[]', 1, 1,"
                                      " 2, 0, 0, 'running') RETURNING id");
    char sql[400];
    int64_t student[2], sub[2], pair[2];
    for (int i = 0; i < 2; i++) {
        snprintf(sql, sizeof sql,
                 "INSERT INTO class_students(course, row, sid, name, email, token_hash)"
                 " VALUES(%lld, %d, 's%d', 'S%d', '', 'h%d') RETURNING id",
                 (long long)course, i + 1, i, i, i);
        student[i] = insert_id(db[0], sql);
        snprintf(sql, sizeof sql,
                 "INSERT INTO class_submissions(course, student, version, kind, main, files,"
                 " dir, bytes, sha256, created_ms, state, gates_passed, qualified, frozen)"
                 " VALUES(%lld, %lld, 1, 'python', 'a.py', '[]', '/x', 1, 'h', 0, 'done', 0,"
                 " 1, 1) RETURNING id",
                 (long long)course, (long long)student[i]);
        sub[i] = insert_id(db[0], sql);
    }
    for (int p = 0; p < 2; p++) {
        snprintf(sql, sizeof sql,
                 "INSERT INTO class_final_pairs(course, pairno, a, b, sub_a, sub_b, games, state,"
                 " worker, claim_ms, run) VALUES(%lld, %d, 0, 1, %lld, %lld, 1, 'queued',"
                 " 'server%d', 1, 1) RETURNING id",
                 (long long)course, p, (long long)sub[0], (long long)sub[1], p);
        pair[p] = insert_id(db[0], sql);
    }
    storer s[2];
    memset(s, 0, sizeof s);
    for (int i = 0; i < 2; i++) {
        s[i].svc.db = db[i];
        s[i].svc.claims = true;
        s[i].d.kind = DONE_PAIR;
        s[i].d.course = course;
        s[i].d.pair = pair[i];
        s[i].d.run = 1;
        s[i].d.n = 2;
        s[i].d.students = student;
        s[i].d.subs = sub;
    }
    /* the first server stores its pair and has not committed yet ... */
    assert_true(class__begin(&s[0].svc));
    s[0].ok = class__store_pair(&s[0].svc, &s[0].d, &s[0].stale, &s[0].finished);
    assert_true(s[0].ok);
    assert_false(s[0].stale);
    assert_false(s[0].finished); /* the other pair is not stored */
    /* ... when the second stores the last one */
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, second, &s[1]), 0);
    nanosleep(&(struct timespec){.tv_sec = 0, .tv_nsec = 300 * 1000000L}, NULL);
    assert_true(class__commit(&s[0].svc, true));
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_false(s[1].stale);
    /* the final is finished by one of them: the second, having waited for the
     * first (its standings cannot be made from this hand-made course: the
     * store's answer is not asked here, only who saw the final finished) */
    assert_true(s[1].finished);
    for (int i = 0; i < 2; i++)
        db_close(db[i]);
    pgtest_drop();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_last_pairs_at_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
