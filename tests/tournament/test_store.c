/*
 * test_store.c — tournaments in a database (tournament/store.c), on SQLite
 * (`test_store`) and on PostgreSQL (`test_store pg`: a fresh database of
 * the test cluster, the CTest fixture `services`), the same cases on both:
 * create, finish some games, close, reopen, continue — no game lost or
 * played twice, the same schedule and the same final state as an
 * uninterrupted run, for round-robin, Swiss (rounds generated after the
 * reload), knockout (early decisions and voids) and SPRT; running games
 * replayed or kept; a child process killed with SIGKILL at chosen points and
 * at an arbitrary moment; damaged rows refused with a reason; a failing
 * write stops the tournament; the tables beside another application's on
 * the caller's connection; two connections sharing the tables.
 *
 * A test names its databases ("rr.db"): on SQLite each is a file of a
 * fresh folder, on PostgreSQL a schema of the test's fresh database (the
 * connection string sets its search_path).
 */
#include "util.h"

#include <ctype.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "storage/db.h"
#include "tests/storage/pgtest.h"
#include "tournament/standings.h"
#include "tournament/store.h"

static bool on_pg;        /* this run's engine (main's argument) */
static char dir[64];      /* SQLite: the test's folder */
static char pg_base[600]; /* PostgreSQL: the test's database */

static int setup(void **state)
{
    (void)state;
    if (on_pg) {
        const char *c = pgtest_create("tour_store");
        if (!c)
            return -1; /* a failure, never a skip (pgtest.h) */
        snprintf(pg_base, sizeof pg_base, "%s", c);
        return 0;
    }
    snprintf(dir, sizeof dir, "/tmp/tour-store-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    if (on_pg) {
        pgtest_drop();
        return 0;
    }
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* The target of database `name`: a file of the folder, or a schema of the
 * PostgreSQL database (made if missing). Commits there are not waited on
 * to reach the disk (synchronous_commit=off: a session setting for speed
 * on a loaded machine; a killed client loses nothing either way). */
static void db_target(char *buf, size_t cap, const char *name)
{
    if (!on_pg) {
        snprintf(buf, cap, "%s/%s", dir, name);
        return;
    }
    char schema[64];
    size_t n = 0;
    for (const char *p = name; *p && n + 1 < sizeof schema; p++)
        schema[n++] = isalnum((unsigned char)*p) ? (char)*p : '_';
    schema[n] = 0;
    db_conn *d = NULL;
    char err[512], sql[128];
    if (db_open(pg_base, &d, err, sizeof err))
        fail_msg("db_open: %s", err);
    snprintf(sql, sizeof sql, "SET client_min_messages = warning; CREATE SCHEMA IF NOT EXISTS %s",
             schema);
    if (db_exec(d, sql))
        fail_msg("%s: %s", sql, db_errmsg(d));
    db_close(d);
    snprintf(buf, cap, "%s options='-c search_path=%s -c synchronous_commit=off'", pg_base, schema);
}

static tour_store *open_store(const char *name)
{
    char target[1024], err[512];
    db_target(target, sizeof target, name);
    tour_store *st = NULL;
    int rc = tour_store_open(target, &st, err, sizeof err);
    if (rc)
        print_error("%s\n", err);
    assert_int_equal(rc, 0);
    return st;
}

/* A connection of the test's own to database `name`. */
static db_conn *raw_open(const char *name)
{
    char target[1024], err[512];
    db_target(target, sizeof target, name);
    db_conn *d = NULL;
    if (db_open(target, &d, err, sizeof err))
        fail_msg("db_open: %s", err);
    assert_int_equal(db_engine_of(d), on_pg ? DB_POSTGRES : DB_SQLITE);
    return d;
}

static void exec_ok(db_conn *d, const char *sql)
{
    int rc = db_exec(d, sql);
    if (rc)
        fail_msg("%s: %d %s", sql, rc, db_errmsg(d));
}

static tour *make(spec_fixture *f)
{
    tour *t = NULL;
    char err[256] = "";
    int rc = tour_create(&f->spec, &t, err, sizeof err);
    if (rc)
        print_error("tour_create: %s\n", err);
    assert_int_equal(rc, 0);
    return t;
}

/* Finish `nfinish` games (oldest first, `conc` at a time), then start
 * `extra` more and leave them running. */
static void partial(tour *t, const model *m, int nfinish, int conc, int extra)
{
    int64_t running[64];
    int nrun = 0, done = 0;
    char err[256];
    while (done < nfinish) {
        tour_game g;
        while (nrun < conc && tour_next_game(t, NULL, &g) == 1) {
            assert_int_equal(tour_game_started(t, g.id, "run-1"), 0);
            running[nrun++] = g.id;
        }
        if (nrun == 0)
            break;
        tour_get_game(t, running[0], &g);
        tour_result r;
        model_result(m, &g, &r);
        assert_int_equal(tour_game_finished(t, g.id, &r, err, sizeof err), 0);
        memmove(running, running + 1, (size_t)--nrun * sizeof *running);
        done++;
    }
    for (int i = 0; i < extra; i++) {
        tour_game g;
        if (tour_next_game(t, NULL, &g) != 1)
            break;
        assert_int_equal(tour_game_started(t, g.id, "run-1"), 0);
    }
}

/* Same schedule, statuses and results. */
static void assert_same(tour *a, tour *b)
{
    assert_int_equal(tour_game_count(a), tour_game_count(b));
    for (int64_t id = 0; id < tour_game_count(a); id++) {
        tour_game x, y;
        tour_get_game(a, id, &x);
        tour_get_game(b, id, &y);
        assert_int_equal(x.status, y.status);
        assert_int_equal(x.round, y.round);
        assert_int_equal(x.pairing, y.pairing);
        assert_true(x.chance_seed == y.chance_seed);
        for (int s = 0; s < x.seats; s++)
            assert_int_equal(x.table[s], y.table[s]);
        tour_result rx, ry;
        if (x.status == TOUR_DONE) {
            assert_int_equal(tour_get_result(a, id, &rx), 0);
            assert_int_equal(tour_get_result(b, id, &ry), 0);
            for (int s = 0; s < x.seats; s++) {
                assert_near(rx.score[s], ry.score[s], 0);
                assert_int_equal(rx.rank[s], ry.rank[s]);
                assert_near(rx.time_ms[s], ry.time_ms[s], 0);
            }
        }
    }
    tour_standings *sa = tour_standings_new(a), *sb = tour_standings_new(b);
    for (int i = 0; i < sa->n; i++) {
        assert_int_equal(sa->rows[i].participant, sb->rows[i].participant);
        assert_int_equal(sa->rows[i].league.points, sb->rows[i].league.points);
        assert_near(sa->rows[i].elo, sb->rows[i].elo, 1e-9);
    }
    tour_standings_free(sa);
    tour_standings_free(sb);
}

/* The same tournament run twice: uninterrupted, and stored, stopped after
 * `stop` results with `extra` games running, reloaded in `mode`, finished. */
static void resume_case(spec_fixture *f, const model *m, int stop, int conc, int extra,
                        tour_resume_mode mode, const char *db)
{
    char err[256];
    tour *ref = make(f);
    drive(ref, m, 1, 0);

    tour_store *st = open_store(db);
    tour *t = make(f);
    int64_t id;
    assert_int_equal(tour_store_create(st, t, &id, err, sizeof err), 0);
    assert_int_equal(tour_store_id(t), id);
    partial(t, m, stop, conc, extra);
    tour_counts before;
    tour_get_counts(t, &before);
    tour_destroy(t); /* every change is already committed: as good as a kill */
    tour_store_close(st);

    st = open_store(db);
    int64_t found = -1;
    assert_int_equal(tour_store_find(st, &f->spec, &found, err, sizeof err), 1);
    assert_int_equal(found, id);
    assert_int_equal(tour_store_load(st, id, mode, &t, err, sizeof err), 0);
    tour_counts after;
    tour_get_counts(t, &after);
    assert_int_equal(after.done, before.done); /* nothing lost */
    assert_int_equal(after.scheduled, before.scheduled);
    if (mode == TOUR_RESUME_REPLAY) {
        assert_int_equal(after.running, 0);
        assert_int_equal(after.pending, before.pending + before.running);
    } else {
        assert_int_equal(after.running, before.running);
        for (int64_t g = 0; g < tour_game_count(t); g++) {
            tour_game x;
            tour_get_game(t, g, &x);
            if (x.status == TOUR_RUNNING) {
                assert_string_equal(tour_game_ref(t, g), "run-1");
                tour_result r; /* the caller resumes its match and reports it */
                model_result(m, &x, &r);
                assert_int_equal(tour_game_finished(t, g, &r, err, sizeof err), 0);
            }
        }
    }
    drive(t, m, 1, 0);
    assert_same(ref, t);
    tour_destroy(t);
    /* and once more from the database: the finished state */
    assert_int_equal(tour_store_load(st, id, mode, &t, err, sizeof err), 0);
    assert_true(tour_is_done(t));
    assert_same(ref, t);
    tour_destroy(t);
    tour_store_close(st);
    tour_destroy(ref);
}

static void test_resume_round_robin(void **state)
{
    (void)state;
    int n = 5;
    spec_fixture f;
    fixture(&f, TOUR_ROUND_ROBIN, "reversi", 2, n, 4);
    model m = {.strength = strength_by_index, .user = &n, .draw = 0.2, .seed = 21};
    resume_case(&f, &m, 13, 3, 3, TOUR_RESUME_REPLAY, "rr.db");
    resume_case(&f, &m, 13, 3, 3, TOUR_RESUME_KEEP, "rr-keep.db");
    fixture(&f, TOUR_ROUND_ROBIN, "carcassonne", 3, 5, 3);
    resume_case(&f, &m, 7, 3, 2, TOUR_RESUME_REPLAY, "rr3.db");
}

/* Knockout and SPRT decisions void the games still pending: stopped with
 * one game at a time (as the sequential reference) so that the same games
 * are void in both runs. */
static void test_resume_swiss_knockout_sprt(void **state)
{
    (void)state;
    int n = 7;
    spec_fixture f;
    model m = {.strength = strength_by_index, .user = &n, .draw = 0.2, .seed = 22};
    fixture(&f, TOUR_SWISS, "reversi", 2, n, 2);
    f.spec.rounds = 4;
    resume_case(&f, &m, 9, 3, 2, TOUR_RESUME_REPLAY, "swiss.db");  /* stopped in round 2 */
    resume_case(&f, &m, 6, 3, 0, TOUR_RESUME_REPLAY, "swiss2.db"); /* at a round's end */
    fixture(&f, TOUR_KNOCKOUT, "reversi", 2, n, 2);
    f.spec.best_of = 2;
    resume_case(&f, &m, 5, 1, 2, TOUR_RESUME_REPLAY, "ko.db");
    resume_case(&f, &m, 11, 1, 1, TOUR_RESUME_KEEP, "ko-keep.db");
    int n2 = 2; /* P0 100 Elo above P1 */
    model m2 = {.strength = strength_by_index, .user = &n2, .draw = 0.2, .seed = 23};
    fixture(&f, TOUR_ROUND_ROBIN, "reversi", 2, 2, 1000);
    f.spec.sprt.enabled = true;
    f.spec.sprt.elo1 = 10;
    resume_case(&f, &m2, 20, 1, 2, TOUR_RESUME_REPLAY, "sprt.db");
    tour_store *st = open_store("sprt.db");
    int64_t id;
    char err[256];
    tour *t;
    assert_int_equal(tour_store_find(st, &f.spec, &id, err, sizeof err), 1);
    assert_int_equal(tour_store_load(st, id, TOUR_RESUME_REPLAY, &t, err, sizeof err), 0);
    tour_sprt_status sp;
    assert_true(tour_get_sprt(t, &sp));
    assert_int_equal(sp.state, TOUR_SPRT_H1); /* the decision is read back */
    tour_counts c;
    tour_get_counts(t, &c);
    assert_true(c.voided > 0 && c.done < 1000);
    tour_destroy(t);
    tour_store_close(st);
}

/* ---- kill -9 ------------------------------------------------------------------------------- */

/* The child: open the store, create or load the tournament, play results
 * from the model; with kill_after >= 0 it kills itself with SIGKILL after
 * that many results, right after starting one more game; with -1 it plays
 * on until it is killed or done. */
static void child(const spec_fixture *f, const model *m, const char *target, int kill_after,
                  int ready_fd)
{
    char err[512];
    tour_store *st;
    if (tour_store_open(target, &st, err, sizeof err))
        _exit(3);
    tour *t;
    int64_t id;
    int found = tour_store_find(st, &f->spec, &id, err, sizeof err);
    if (found == 1) {
        if (tour_store_load(st, id, TOUR_RESUME_REPLAY, &t, err, sizeof err))
            _exit(4);
    } else if (tour_create(&f->spec, &t, err, sizeof err) ||
               tour_store_create(st, t, &id, err, sizeof err)) {
        _exit(5);
    }
    if (write(ready_fd, "r", 1) != 1) /* the tournament is stored: play */
        _exit(9);
    close(ready_fd);
    int done = 0;
    tour_game g;
    while (tour_next_game(t, NULL, &g) == 1) {
        if (tour_game_started(t, g.id, NULL))
            _exit(6);
        if (kill_after >= 0 && done == kill_after)
            raise(SIGKILL);
        tour_result r;
        model_result(m, &g, &r);
        if (tour_game_finished(t, g.id, &r, err, sizeof err))
            _exit(7);
        done++;
    }
    _exit(tour_is_done(t) ? 0 : 8);
}

/* Run the child on database db; with kill_ms > 0, kill it that long after
 * the fork (it may be opening or creating), or with after_ready that long
 * after it has its tournament (it is playing). Returns its wait status. */
static int run_child(const spec_fixture *f, const model *m, const char *db, int kill_after,
                     int kill_ms, bool after_ready)
{
    char target[1024];
    db_target(target, sizeof target, db);
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        child(f, m, target, kill_after, fds[1]);
    }
    close(fds[1]);
    if (kill_ms > 0) {
        char c;
        if (after_ready && read(fds[0], &c, 1) != 1)
            print_message("the child ended before it had its tournament\n");
        struct timespec ts = {kill_ms / 1000, (long)(kill_ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
        kill(pid, SIGKILL);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    close(fds[0]); /* only now: the child's write must not meet a closed pipe */
    return status;
}

static void check_complete(const spec_fixture *f, const model *m, const char *db)
{
    char err[256];
    tour_store *st = open_store(db);
    int64_t id;
    assert_int_equal(tour_store_find(st, &f->spec, &id, err, sizeof err), 1);
    tour *t;
    assert_int_equal(tour_store_load(st, id, TOUR_RESUME_REPLAY, &t, err, sizeof err), 0);
    assert_true(tour_is_done(t));
    tour *ref = make((spec_fixture *)f);
    drive(ref, m, 1, 0);
    assert_same(ref, t);
    /* exactly one row per game, none left unfinished */
    db_conn *d = raw_open(db);
    db_stmt *s;
    assert_int_equal(db_prepare(d,
                                "SELECT count(*), count(DISTINCT id), "
                                "sum(CASE WHEN status='done' THEN 1 ELSE 0 END) "
                                "FROM tour_games WHERE tournament=?",
                                &s),
                     DB_OK);
    db_bind_int64(s, 1, id);
    assert_int_equal(db_step(s), DB_ROW);
    assert_int_equal(db_column_int64(s, 0), tour_game_count(ref));
    assert_int_equal(db_column_int64(s, 1), tour_game_count(ref));
    tour_counts c;
    tour_get_counts(ref, &c);
    assert_int_equal(db_column_int64(s, 2), c.done);
    db_finalize(s);
    db_close(d);
    tour_destroy(ref);
    tour_destroy(t);
    tour_store_close(st);
}

static void test_kill_9(void **state)
{
    (void)state;
    int n = 6;
    spec_fixture f;
    model m = {.strength = strength_by_index, .user = &n, .draw = 0.2, .seed = 31};
    /* Swiss, killed at chosen points, resumed each time by the same "command" */
    fixture(&f, TOUR_SWISS, "reversi", 2, n, 2);
    f.spec.rounds = 3;
    int points[] = {0, 1, 5, 4, 3}; /* results per run: 13 of 18 in all */
    for (size_t i = 0; i < sizeof points / sizeof *points; i++) {
        int status = run_child(&f, &m, "kill.db", points[i], 0, false);
        assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    }
    int status = run_child(&f, &m, "kill.db", -1, 0, false);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    check_complete(&f, &m, "kill.db");

    /* a round-robin killed at an arbitrary moment (possibly inside a
     * transaction), several times, then finished */
    fixture(&f, TOUR_ROUND_ROBIN, "reversi", 2, n, 200);
    for (int i = 0; i < 3; i++) {
        /* the first time 40 ms after the start (it may be opening the
         * database or creating the tournament: on PostgreSQL, connecting
         * alone may take that long), then while it plays */
        run_child(&f, &m, "kill-async.db", -1, 40 + 15 * i, i > 0);
        /* how far it got (depends on the machine: reported, not asserted) */
        char err[256];
        tour_store *st = open_store("kill-async.db");
        int64_t id;
        tour *t;
        if (tour_store_find(st, &f.spec, &id, err, sizeof err) == 1) {
            assert_int_equal(tour_store_load(st, id, TOUR_RESUME_KEEP, &t, err, sizeof err), 0);
            tour_counts c;
            tour_get_counts(t, &c);
            print_message("killed: %lld of %lld games done, %lld running\n", (long long)c.done,
                          (long long)c.scheduled, (long long)c.running);
            assert_true(c.running <= 1); /* the child plays one game at a time */
            tour_destroy(t);
        }
        tour_store_close(st);
    }
    status = run_child(&f, &m, "kill-async.db", -1, 0, false);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    check_complete(&f, &m, "kill-async.db");
}

/* ---- damage and failures ------------------------------------------------------------------- */

/* Run sql on database `name` from a connection of its own (the damage a
 * person or another program could do). */
static void exec_sql(const char *name, const char *sql)
{
    db_conn *d = raw_open(name);
    exec_ok(d, sql);
    db_close(d);
}

static void test_damaged(void **state)
{
    (void)state;
    int n = 4;
    spec_fixture f;
    model m = {.strength = strength_by_index, .user = &n, .draw = 0.2, .seed = 41};
    fixture(&f, TOUR_ROUND_ROBIN, "reversi", 2, n, 2);
    char err[256];
    struct {
        const char *sql, *needle;
    } cases[] = {
        {"UPDATE tour_games SET result='{\"x\":1}' WHERE id=1", "a result cannot be read"},
        {"UPDATE tour_games SET status='finished' WHERE id=2", "bad status"},
        {"UPDATE tour_games SET status='pending' WHERE id=0", "bad status"}, /* a result, pending */
        {"DELETE FROM tour_games WHERE id=3", "missing"},
        {"UPDATE tour_pairings SET members='0,0' WHERE id=1", "sits twice"},
        {"UPDATE tour_pairings SET members='0,9' WHERE id=1", "malformed"},
        {"UPDATE tour_tournaments SET spec='{\"format\":\"swiss\"}'", "unreadable spec"},
        {"UPDATE tour_tournaments SET spec='not json'", "unreadable spec"},
        /* a tournament row without its schedule: what tour_store_create left
         * when killed between its two transactions (found by the
         * asynchronous kill test; now one transaction) */
        {"DELETE FROM tour_games; DELETE FROM tour_pairings", "nothing is scheduled"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char name[32];
        snprintf(name, sizeof name, "damaged-%zu.db", i);
        tour_store *st = open_store(name);
        tour *t = make(&f);
        int64_t id;
        assert_int_equal(tour_store_create(st, t, &id, err, sizeof err), 0);
        partial(t, &m, 4, 1, 0);
        tour_destroy(t);
        tour_store_close(st);
        exec_sql(name, cases[i].sql);
        st = open_store(name);
        t = NULL;
        assert_int_equal(tour_store_load(st, id, TOUR_RESUME_REPLAY, &t, err, sizeof err),
                         ENG_ESTORAGE);
        assert_null(t);
        assert_err_has(err, cases[i].needle);
        tour_store_close(st);
    }
    tour_store *st = open_store("damaged-0.db");
    tour *t = NULL;
    assert_int_equal(tour_store_load(st, 99, TOUR_RESUME_REPLAY, &t, err, sizeof err), ENG_EINVAL);
    assert_err_has(err, "no tournament 99");
    tour_store_close(st);
}

static void test_write_failure(void **state)
{
    (void)state;
    spec_fixture f;
    fixture(&f, TOUR_ROUND_ROBIN, "reversi", 2, 3, 2);
    char err[256];
    /* creation is all or nothing: its schedule cannot be written, so no
     * tournament row is left behind (regression: it used to be) */
    tour_store *st = open_store("fail-create.db");
    exec_sql("fail-create.db", "DROP TABLE tour_games");
    tour *t = make(&f);
    int64_t id;
    assert_int_equal(tour_store_create(st, t, &id, err, sizeof err), ENG_ESTORAGE);
    assert_int_equal(tour_store_id(t), -1);
    tour_store_entry e[2];
    int ne;
    assert_int_equal(tour_store_list(st, e, 2, &ne, err, sizeof err), 0);
    assert_int_equal(ne, 0);
    tour_destroy(t);
    tour_store_close(st);

    st = open_store("fail.db");
    t = make(&f);
    assert_int_equal(tour_store_create(st, t, &id, err, sizeof err), 0);
    assert_int_equal(tour_store_create(st, t, &id, err, sizeof err), ENG_EINVAL);
    exec_sql("fail.db", "DROP TABLE tour_games");
    tour_game g;
    assert_int_equal(tour_next_game(t, NULL, &g), 1);
    assert_int_equal(tour_game_started(t, g.id, NULL), ENG_ESTORAGE);
    /* from now on the tournament refuses changes: the database is the truth */
    assert_int_equal(tour_next_game(t, NULL, &g), ENG_ESTORAGE);
    tour_result r;
    tour_result_init(&r);
    r.score[0] = 1;
    assert_int_equal(tour_game_finished(t, g.id, &r, err, sizeof err), ENG_ESTORAGE);
    assert_err_has(err, "reload");
    tour_destroy(t);
    tour_store_close(st);
}

/* The tables live next to another application's tables (the server's
 * journal) on the caller's connection; list shows what is stored. */
static void test_attach_and_list(void **state)
{
    (void)state;
    char err[256];
    db_conn *db = raw_open("shared.db");
    if (!on_pg) /* SQLite only: the server's journal is in WAL mode */
        exec_ok(db, "PRAGMA journal_mode=WAL");
    exec_ok(db, "CREATE TABLE matches(id TEXT PRIMARY KEY); INSERT INTO matches VALUES('m1');");
    tour_store *st;
    assert_int_equal(tour_store_attach(db, &st, err, sizeof err), 0);
    int n = 3;
    spec_fixture f;
    fixture(&f, TOUR_GAUNTLET, "reversi", 2, n, 2);
    f.spec.label = "gauntlet one";
    tour *a = make(&f);
    int64_t ida, idb;
    assert_int_equal(tour_store_create(st, a, &ida, err, sizeof err), 0);
    /* inside the caller's own transaction, too (a savepoint) */
    exec_ok(db, "BEGIN");
    tour_game g;
    assert_int_equal(tour_next_game(a, NULL, &g), 1);
    assert_int_equal(tour_game_started(a, g.id, "m1"), 0);
    assert_true(db_in_transaction(db));
    exec_ok(db, "COMMIT");
    f.spec.seed = 2;
    f.spec.label = NULL;
    tour *b = make(&f);
    assert_int_equal(tour_store_create(st, b, &idb, err, sizeof err), 0);
    int64_t found;
    assert_int_equal(tour_store_find(st, &f.spec, &found, err, sizeof err), 1);
    assert_int_equal(found, idb);
    f.spec.seed = 3;
    assert_int_equal(tour_store_find(st, &f.spec, &found, err, sizeof err), 0);
    tour_store_entry e[4];
    int ne;
    assert_int_equal(tour_store_list(st, e, 4, &ne, err, sizeof err), 0);
    assert_int_equal(ne, 2);
    assert_int_equal(e[0].id, idb);
    assert_string_equal(e[1].label, "gauntlet one");
    assert_string_equal(e[1].format, "gauntlet");
    assert_string_equal(e[1].status, "running");
    tour_destroy(a);
    tour_destroy(b);
    tour_store_close(st);
    /* the other application's data is untouched; the started game is there */
    db_stmt *s;
    assert_int_equal(db_prepare(db,
                                "SELECT (SELECT count(*) FROM matches), (SELECT ref FROM "
                                "tour_games WHERE status='running')",
                                &s),
                     DB_OK);
    assert_int_equal(db_step(s), DB_ROW);
    assert_int_equal(db_column_int(s, 0), 1);
    assert_string_equal(db_column_text(s, 1), "m1");
    db_finalize(s);
    db_close(db);
}

/* Two connections to the same tables (two servers sharing one database):
 * the ids are the database's, so tournaments created turn about through
 * either never collide, and each reads back through the other. */
static void test_two_connections(void **state)
{
    (void)state;
    char err[256];
    tour_store *a = open_store("two.db"), *b = open_store("two.db");
    int n = 3;
    spec_fixture f;
    model m = {.strength = strength_by_index, .user = &n, .draw = 0.2, .seed = 51};
    fixture(&f, TOUR_ROUND_ROBIN, "reversi", 2, n, 2);
    int64_t ids[6];
    for (int i = 0; i < 6; i++) {
        f.spec.seed = (uint64_t)(100 + i);
        tour *t = make(&f);
        assert_int_equal(tour_store_create(i % 2 ? b : a, t, &ids[i], err, sizeof err), 0);
        partial(t, &m, 2, 1, 0);
        tour_destroy(t);
        for (int j = 0; j < i; j++)
            assert_true(ids[j] != ids[i]);
    }
    for (int i = 0; i < 6; i++) {
        tour *t = NULL;
        assert_int_equal(
            tour_store_load(i % 2 ? a : b, ids[i], TOUR_RESUME_KEEP, &t, err, sizeof err), 0);
        tour_counts c;
        tour_get_counts(t, &c);
        assert_int_equal(c.done, 2);
        tour_destroy(t);
    }
    tour_store_entry e[8];
    int ne;
    assert_int_equal(tour_store_list(b, e, 8, &ne, err, sizeof err), 0);
    assert_int_equal(ne, 6);
    assert_string_equal(e[0].format, "round-robin");
    assert_int_equal(tour_store_list(b, e, 2, &ne, err, sizeof err), 0);
    assert_int_equal(ne, 2);
    tour_store_close(a);
    tour_store_close(b);
}

/* A target that cannot be opened is an error with a reason (and a
 * PostgreSQL password is never in it). */
static void test_open_failure(void **state)
{
    (void)state;
    char err[512] = "";
    tour_store *st = NULL;
    const char *target = on_pg ? "host=127.0.0.1 port=1 user=x password=sekrit dbname=x "
                                 "connect_timeout=2"
                               : "/nonexistent-folder/x/tour.db";
    assert_int_equal(tour_store_open(target, &st, err, sizeof err), ENG_ESTORAGE);
    assert_null(st);
    assert_err_has(err, "cannot open the tournament database");
    assert_null(strstr(err, "sekrit"));
}

/* test_store: on SQLite; test_store pg: on PostgreSQL. */
int main(int argc, char **argv)
{
    on_pg = argc > 1 && strcmp(argv[1], "pg") == 0;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_resume_round_robin, setup, teardown),
        cmocka_unit_test_setup_teardown(test_resume_swiss_knockout_sprt, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kill_9, setup, teardown),
        cmocka_unit_test_setup_teardown(test_damaged, setup, teardown),
        cmocka_unit_test_setup_teardown(test_write_failure, setup, teardown),
        cmocka_unit_test_setup_teardown(test_attach_and_list, setup, teardown),
        cmocka_unit_test_setup_teardown(test_two_connections, setup, teardown),
        cmocka_unit_test_setup_teardown(test_open_failure, setup, teardown),
    };
    return cmocka_run_group_tests_name(on_pg ? "tour_store on PostgreSQL" : "tour_store on SQLite",
                                       tests, NULL, NULL);
}
