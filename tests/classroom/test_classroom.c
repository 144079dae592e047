/*
 * test_classroom.c — classroom/ without a server: the roster CSV, tokens,
 * upload checks against the declared kind, the gate ladder and its verdict,
 * CSV quoting, the grade CSV from a hand-filled database, and one real gate
 * through the tournament runner (a broken Python bot: every game forfeited,
 * its traceback kept). argv[1]: the folder of the example bots.
 *
 * The store's cases (the tables, their upgrade, the grade CSV) run on both
 * engines of storage/db.h: SQLite in memory, and a fresh PostgreSQL
 * database of the test cluster (the CTest fixture `services`,
 * tests/storage/pgtest.h).
 */
// clang-format off
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
// clang-format on

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zip.h>

#include "../storage/pgtest.h"
#include "classroom/classroom.h"
#include "classroom/pool.h"
#include "engine/errors.h"

static const char *bots_dir = "tests/classroom/bots";

static int roster(const char *csv, class_person **ps, char *err)
{
    return class_roster_parse(csv, strlen(csv), ps, err, 300);
}

static void test_roster_good(void **state)
{
    (void)state;
    class_person *ps = NULL;
    char err[300];
    /* columns in any order, quoting, CRLF, a blank line, an extra column */
    int n = roster("Student_ID,Group,Name,E-mail\r\n"
                   "s1,A,\"Hopper, Grace\",grace@example.edu\r\n"
                   "\r\n"
                   "s2,B,\"Ada \"\"the first\"\" Lovelace\",\r\n"
                   "  s3 ,C,  Alan Turing  ,alan@example.edu",
                   &ps, err);
    assert_int_equal(n, 3);
    assert_string_equal(ps[0].sid, "s1");
    assert_string_equal(ps[0].name, "Hopper, Grace");
    assert_string_equal(ps[0].email, "grace@example.edu");
    assert_string_equal(ps[1].name, "Ada \"the first\" Lovelace");
    assert_string_equal(ps[1].email, "");
    assert_string_equal(ps[2].sid, "s3");
    assert_string_equal(ps[2].name, "Alan Turing");
    free(ps);
    /* no email column at all */
    n = roster("name,id\nBob,b\n", &ps, err);
    assert_int_equal(n, 1);
    assert_string_equal(ps[0].email, "");
    free(ps);
}

static void test_roster_bad(void **state)
{
    (void)state;
    class_person *ps = NULL;
    char err[300];
    assert_int_equal(roster("name,email\nA,a@x\n", &ps, err), ENG_EINVAL);
    assert_non_null(strstr(err, "'id'"));
    assert_int_equal(roster("name,id\nA,1\nB,\n", &ps, err), ENG_EINVAL);
    assert_non_null(strstr(err, "line 3"));
    assert_int_equal(roster("name,id\nA,1\nB,1\n", &ps, err), ENG_EINVAL);
    assert_non_null(strstr(err, "already"));
    assert_int_equal(roster("name,id\n\"A,1\n", &ps, err), ENG_EINVAL);
    assert_non_null(strstr(err, "quoted"));
    assert_int_equal(roster("name,id\n", &ps, err), ENG_EINVAL);
    assert_int_equal(roster("name,id\nA\tB\x01,1\n", &ps, err), ENG_EINVAL);
    char longline[400];
    snprintf(longline, sizeof longline, "name,id\n%0200d,1\n", 7);
    assert_int_equal(roster(longline, &ps, err), ENG_EINVAL);
    assert_non_null(strstr(err, "longer"));
    const char nul[] = "name,id\nA\0B,1\n";
    assert_int_equal(class_roster_parse(nul, sizeof nul - 1, &ps, err, sizeof err), ENG_EINVAL);
    assert_null(ps);
}

static void test_tokens(void **state)
{
    (void)state;
    char a[CLASS_TOKEN_LEN + 1], b[CLASS_TOKEN_LEN + 1], ha[65], hb[65], ha2[65];
    assert_int_equal(class_token_new(a), 0);
    assert_int_equal(class_token_new(b), 0);
    assert_int_equal(strlen(a), CLASS_TOKEN_LEN);
    assert_int_equal(strspn(a, "abcdefghijklmnopqrstuvwxyz234567"), CLASS_TOKEN_LEN);
    assert_string_not_equal(a, b);
    class_token_hash(a, ha);
    class_token_hash(a, ha2);
    class_token_hash(b, hb);
    assert_int_equal(strlen(ha), 64);
    assert_string_equal(ha, ha2);
    assert_string_not_equal(ha, hb);
    /* a known value: SHA-256("abc") */
    class_token_hash("abc", ha);
    assert_string_equal(ha, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

static bool have_python(void)
{
    return system("python3 -c '' >/dev/null 2>&1") == 0;
}

static void test_check_python(void **state)
{
    (void)state;
    char err[600];
    const char ok[] = "import sys\nprint('hi')\n";
    assert_int_equal(class_check_file(CLASS_PYTHON, "bot.py", (const unsigned char *)ok,
                                      sizeof ok - 1, err, sizeof err),
                     0);
    const unsigned char latin1[] = "x = '\xe9'\n";
    assert_int_equal(
        class_check_file(CLASS_PYTHON, "bot.py", latin1, sizeof latin1 - 1, err, sizeof err),
        ENG_EINVAL);
    assert_non_null(strstr(err, "UTF-8"));
    const unsigned char nul[] = "x = 1\0\n";
    assert_int_equal(class_check_file(CLASS_PYTHON, "bot.py", nul, sizeof nul - 1, err, sizeof err),
                     ENG_EINVAL);
    assert_int_equal(class_check_file(CLASS_PYTHON, ".bot.py", (const unsigned char *)ok,
                                      sizeof ok - 1, err, sizeof err),
                     ENG_EINVAL);
    /* a file of a package's folder is one of the submission's (issue 25), a way out is not */
    assert_int_equal(class_check_file(CLASS_PYTHON, "a/b.py", (const unsigned char *)ok,
                                      sizeof ok - 1, err, sizeof err),
                     0);
    assert_int_equal(class_check_file(CLASS_PYTHON, "a/../b.py", (const unsigned char *)ok,
                                      sizeof ok - 1, err, sizeof err),
                     ENG_EINVAL);
    assert_int_equal(
        class_check_file(CLASS_PYTHON, "bot.py", (const unsigned char *)"", 0, err, sizeof err),
        ENG_EINVAL);
    if (have_python()) {
        const char bad[] = "def f(:\n    pass\n";
        assert_int_equal(class_check_file(CLASS_PYTHON, "bot.py", (const unsigned char *)bad,
                                          sizeof bad - 1, err, sizeof err),
                         ENG_EINVAL);
        assert_non_null(strstr(err, "bot.py, line 1"));
        /* parsing does not run it */
        const char side[] = "open('/tmp/tessera-classroom-ran', 'w').write('x')\n";
        unlink("/tmp/tessera-classroom-ran");
        assert_int_equal(class_check_file(CLASS_PYTHON, "bot.py", (const unsigned char *)side,
                                          sizeof side - 1, err, sizeof err),
                         0);
        assert_int_not_equal(access("/tmp/tessera-classroom-ran", F_OK), 0);
    }
}

static void test_check_elf(void **state)
{
    (void)state;
    char err[600];
    unsigned char buf[64];
    FILE *f = fopen("/proc/self/exe", "rb");
    assert_non_null(f);
    assert_int_equal(fread(buf, 1, sizeof buf, f), sizeof buf);
    fclose(f);
    assert_int_equal(class_check_file(CLASS_ELF, "bot", buf, sizeof buf, err, sizeof err), 0);
    unsigned char rel[64];
    memcpy(rel, buf, sizeof rel);
    rel[16] = 1; /* ET_REL */
    rel[17] = 0;
    assert_int_equal(class_check_file(CLASS_ELF, "bot", rel, sizeof rel, err, sizeof err),
                     ENG_EINVAL);
    assert_non_null(strstr(err, "relocatable"));
    memcpy(rel, buf, sizeof rel);
    rel[18] ^= 0x40; /* another machine */
    assert_int_equal(class_check_file(CLASS_ELF, "bot", rel, sizeof rel, err, sizeof err),
                     ENG_EINVAL);
    const unsigned char text[] = "#!/bin/sh\necho hi\n";
    assert_int_equal(class_check_file(CLASS_ELF, "bot", text, sizeof text - 1, err, sizeof err),
                     ENG_EINVAL);
    assert_non_null(strstr(err, "not an ELF"));
    class_kind k;
    assert_int_equal(class_kind_parse("python", &k), 0);
    assert_int_equal(k, CLASS_PYTHON);
    assert_int_equal(class_kind_parse("executable", &k), 0);
    assert_int_equal(k, CLASS_ELF);
    assert_int_equal(class_kind_parse("remote", &k), 0);
    assert_int_equal(k, CLASS_REMOTE);
    assert_int_equal(
        class_check_file(CLASS_REMOTE, "bot.py", text, sizeof text - 1, err, sizeof err),
        ENG_EINVAL);
    assert_int_equal(class_kind_parse("java", &k), 0); /* built on the server (issue 25) */
    assert_int_equal(k, CLASS_JAVA);
    assert_string_equal(class_kind_name(CLASS_JS), "javascript");
    assert_int_equal(class_kind_parse("cobol", &k), ENG_EINVAL);
}

static void test_gates(void **state)
{
    (void)state;
    const eng_game *g = eng_find_game("reversi");
    assert_non_null(g);
    class_gate gates[CLASS_MAX_GATES];
    char err[300];
    json_t *j = json_loads("[{\"opponent\":\"random\",\"games\":19,\"min_rate\":0.8},"
                           "{\"opponent\":\"mcts:sims=400\",\"games\":20,\"min_rate\":0.5}]",
                           0, NULL);
    assert_int_equal(class_gates_parse(j, g, gates, err, sizeof err), 2);
    assert_int_equal(gates[0].games, 20); /* paired: rounded up to even */
    assert_string_equal(gates[1].opponent, "mcts:sims=400");
    json_t *back = class_gates_json(gates, 2);
    assert_int_equal(json_array_size(back), 2);
    json_decref(back);
    json_decref(j);
    const char *bad[] = {
        "[]",
        "{}",
        "[{\"opponent\":\"nosuch\",\"games\":2,\"min_rate\":0.5}]",
        "[{\"opponent\":\"mcts:sims=-4\",\"games\":2,\"min_rate\":0.5}]",
        "[{\"opponent\":\"random\",\"games\":1,\"min_rate\":0.5}]",
        "[{\"opponent\":\"random\",\"games\":2,\"min_rate\":1.2}]",
        "[{\"opponent\":\"random\",\"games\":2,\"min_rate\":0.5,\"x\":1}]",
        "[{\"opponent\":\"random\",\"games\":\"2\",\"min_rate\":0.5}]",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        j = json_loads(bad[i], 0, NULL);
        assert_true(class_gates_parse(j, g, gates, err, sizeof err) < 0);
        assert_true(strlen(err) > 0);
        json_decref(j);
    }
    class_gate gt = {.opponent = "random", .games = 10, .min_rate = 0.7};
    assert_true(class_gate_passed(&gt, 7.0, 10)); /* 0.7 * 10 is 7.000000000000001 */
    assert_false(class_gate_passed(&gt, 6.5, 10));
    assert_true(class_gate_passed(&gt, 10, 10));
    assert_false(class_gate_passed(&gt, 0, 0));
    gt.min_rate = 0;
    assert_true(class_gate_passed(&gt, 0, 2));
}

static void test_csv_field(void **state)
{
    (void)state;
    char *b = NULL;
    size_t l = 0, c = 0;
    assert_true(class_csv_field(&b, &l, &c, "plain"));
    assert_true(class_csv_text(&b, &l, &c, ","));
    assert_true(class_csv_field(&b, &l, &c, "Hopper, Grace"));
    assert_true(class_csv_text(&b, &l, &c, ","));
    assert_true(class_csv_field(&b, &l, &c, "say \"hi\""));
    assert_true(class_csv_text(&b, &l, &c, ","));
    assert_true(class_csv_field(&b, &l, &c, "=cmd()"));
    assert_true(class_csv_text(&b, &l, &c, ","));
    assert_true(class_csv_field(&b, &l, &c, "-12.5"));
    assert_string_equal(b, "plain,\"Hopper, Grace\",\"say \"\"hi\"\"\",'=cmd(),-12.5");
    free(b);
}

/* The store's cases run on each engine: *state points at 0 (SQLite) or 1
 * (PostgreSQL). */
static int on_sqlite = 0, on_pg = 1;

static db_conn *open_engine(void **state)
{
    int pg = *(int *)*state;
    const char *target = ":memory:";
    if (pg && !(target = pgtest_create("test_classroom")))
        fail_msg("no PostgreSQL for this test (see above)");
    char err[512] = "";
    db_conn *db = NULL;
    if (db_open(target, &db, err, sizeof err) != DB_OK)
        fail_msg("db_open(%s): %s", target, err);
    return db;
}

static void close_engine(db_conn *db, void **state)
{
    db_close(db);
    if (*(int *)*state)
        pgtest_drop();
}

static void exec_ok(db_conn *db, const char *sql)
{
    if (db_exec(db, sql) != DB_OK)
        fail_msg("%s: %s", sql, db_errmsg(db));
}

#define GRADES_HEADER                                                                              \
    "student_id,name,email,status,final_rank,decided_by,rate,league_points,score_diff,"            \
    "swiss_points,buchholz,round_reached,gates_passed,gates_total,rating,rating_low,rating_high,"  \
    "submission\n"

static void test_grades(void **state)
{
    db_conn *db = open_engine(state);
    char err[300];
    assert_int_equal(class_store_init(db, err, sizeof err), 0);
    assert_int_equal(class_store_init(db, err, sizeof err), 0); /* again: nothing changes */
    /* the ids are the database's: read back as the server does (RETURNING) */
    db_stmt *q = NULL;
    assert_int_equal(db_prepare(db,
                                "INSERT INTO class_courses(name, game, rules, move_ms, gates,"
                                " qualify, seed, final_games, deadline_ms, created_ms)"
                                " VALUES('c', 'reversi', '{}', 100, ?, 1, 1, 2, 0, 0) RETURNING id",
                                &q),
                     DB_OK);
    db_bind_text(q, 1,
                 "[{\"opponent\":\"random\",\"games\":2,\"min_rate\":0.5},"
                 "{\"opponent\":\"heuristic\",\"games\":2,\"min_rate\":0.5}]",
                 -1);
    assert_int_equal(db_step(q), DB_ROW);
    int64_t course = db_column_int64(q, 0);
    db_finalize(q);
    assert_true(course > 0);
    static const char *const people[3][4] = {{"s1", "Hopper, Grace", "g@x", "h1"},
                                             {"s2", "Bob", "", "h2"},
                                             {"s3", "Carol", "c@x", "h3"}};
    int64_t student[3];
    assert_int_equal(db_prepare(db,
                                "INSERT INTO class_students(course, row, sid, name, email,"
                                " token_hash) VALUES(?, ?, ?, ?, ?, ?) RETURNING id",
                                &q),
                     DB_OK);
    for (int i = 0; i < 3; i++) {
        db_reset(q);
        db_bind_int64(q, 1, course);
        db_bind_int(q, 2, i + 1);
        for (int k = 0; k < 4; k++)
            db_bind_text(q, 3 + k, people[i][k], -1);
        assert_int_equal(db_step(q), DB_ROW);
        student[i] = db_column_int64(q, 0);
        assert_int_equal(db_step(q), DB_DONE);
    }
    db_finalize(q);
    /* s1: v1 qualified (1 gate), v2 qualified (2 gates), frozen; s2: one
     * submission done, not qualified; s3: none */
    static const int subs[3][5] = {/* student, version, gates_passed, qualified, frozen */
                                   {0, 1, 1, 1, 0},
                                   {0, 2, 2, 1, 1},
                                   {1, 1, 0, 0, 0}};
    int64_t sub[3];
    assert_int_equal(db_prepare(db,
                                "INSERT INTO class_submissions(course, student, version, kind,"
                                " main, files, dir, bytes, sha256, created_ms, state,"
                                " gates_passed, qualified, frozen) VALUES(?, ?, ?, 'python',"
                                " 'a.py', '[]', '/x', 1, 'h', 0, 'done', ?, ?, ?) RETURNING id",
                                &q),
                     DB_OK);
    for (int i = 0; i < 3; i++) {
        db_reset(q);
        db_bind_int64(q, 1, course);
        db_bind_int64(q, 2, student[subs[i][0]]);
        for (int k = 1; k < 5; k++)
            db_bind_int(q, 2 + k, subs[i][k]);
        assert_int_equal(db_step(q), DB_ROW);
        sub[i] = db_column_int64(q, 0);
        assert_int_equal(db_step(q), DB_DONE);
    }
    db_finalize(q);
    assert_int_equal(db_prepare(db,
                                "INSERT INTO class_final(course, student, submission, place,"
                                " games, wins, losses, draws, points, rate, elo, elo_lo, elo_hi,"
                                " ms_per_move, faults, format, league_points, score_diff, roster,"
                                " decided_by) VALUES(?, ?, ?, 1, 4, 3, 1, 0, 3, 0.75, 120.26,"
                                " -30.5, 271, 12.5, 0, 'round-robin', 7, 0.25, 1, '')",
                                &q),
                     DB_OK);
    db_bind_int64(q, 1, course);
    db_bind_int64(q, 2, student[0]);
    db_bind_int64(q, 3, sub[1]);
    assert_int_equal(db_step(q), DB_DONE);
    db_finalize(q);
    char *csv = class_grades_csv(db, course);
    assert_non_null(csv);
    /* the status tells a finalist, a student whose submissions all failed
     * and a no-show apart; the final's tiebreaks are columns */
    assert_string_equal(csv, GRADES_HEADER
                        "s1,\"Hopper, Grace\",g@x,finalist,1,,0.750,7,0.250,,,,2,2,120.3,-30.5,"
                        "271.0,2\n"
                        "s2,Bob,,not_qualified,,,,,,,,,0,2,,,,\n"
                        "s3,Carol,c@x,no_show,,,,,,,,,0,2,,,,\n");
    free(csv);
    /* a course without students: the header alone; no such course: the same */
    csv = class_grades_csv(db, course + 100);
    assert_non_null(csv);
    assert_string_equal(csv, GRADES_HEADER);
    free(csv);
    close_engine(db, state);
}

typedef struct seen {
    int games, faults;
    bool traceback;
    bool record;
} seen;

static void on_game(const class_game *g, void *user)
{
    seen *s = user;
    s->games++;
    for (int i = 0; i < g->seats; i++)
        if (g->who[i] == 0) {
            if (g->culprit == i)
                s->faults++;
            if (strstr(g->stderr_text[i], "KeyError"))
                s->traceback = true;
        }
    if (strstr(g->record, "\"turns\""))
        s->record = true;
}

/* A database made before remote bots gains their columns, keeping its rows.
 * (Its old table is made with an explicit id: the only row of that table
 * in this database, so no identity sequence is left behind on PostgreSQL.) */
static void test_store_upgrade(void **state)
{
    db_conn *db = open_engine(state);
    char err[300];
    exec_ok(db, "CREATE TABLE class_courses(id INTEGER PRIMARY KEY, name TEXT NOT NULL,"
                " game TEXT NOT NULL, rules TEXT NOT NULL, move_ms INTEGER NOT NULL,"
                " gates TEXT NOT NULL, qualify INTEGER NOT NULL, seed INTEGER NOT NULL,"
                " final_games INTEGER NOT NULL, deadline_ms INTEGER NOT NULL,"
                " frozen_ms INTEGER NOT NULL DEFAULT 0, final_state TEXT NOT NULL DEFAULT 'none',"
                " final_note TEXT NOT NULL DEFAULT '', created_ms INTEGER NOT NULL);"
                "INSERT INTO class_courses(id, name, game, rules, move_ms, gates, qualify, seed,"
                " final_games, deadline_ms, created_ms) VALUES(7, 'old', 'reversi', '{}', 1000,"
                " '[]', 1, 1, 2, 0, 1)");
    assert_int_equal(class_store_init(db, err, sizeof err), 0);
    assert_int_equal(class_store_init(db, err, sizeof err), 0); /* again: nothing to add */
    db_stmt *st;
    assert_int_equal(db_prepare(db,
                                "SELECT remote_wait_ms, final_tour, name FROM class_courses"
                                " WHERE id = 7",
                                &st),
                     DB_OK);
    assert_int_equal(db_step(st), DB_ROW);
    assert_int_equal(db_column_int64(st, 0), CLASS_REMOTE_WAIT_MS);
    assert_int_equal(db_column_int64(st, 1), 0);
    assert_string_equal(db_column_text(st, 2), "old");
    db_finalize(st);
    exec_ok(db, "SELECT tour FROM class_submissions");
    close_engine(db, state);
}

static void test_play_broken(void **state)
{
    (void)state;
    if (!have_python())
        skip();
    char spec[600];
    snprintf(spec, sizeof spec, "cmd:python3 %s/broken.py", bots_dir);
    const char *specs[2] = {spec, "random"}, *names[2] = {"broken", "random"};
    class_play_config pc = {.game = eng_find_game("reversi"),
                            .specs = specs,
                            .names = names,
                            .n = 2,
                            .games_per_pair = 2,
                            .move_ms = 5000,
                            .seed = 3,
                            .threads = 1};
    char err[300];
    eng_rules_default(pc.game, &pc.rules);
    pc.rules.players = 2;
    seen s = {0};
    pc.on_game = on_game;
    pc.user = &s;
    class_standing st[2];
    memset(st, 0, sizeof st);
    int rc = class_play(&pc, st, err, sizeof err);
    if (rc)
        fail_msg("class_play: %s", err);
    assert_int_equal(s.games, 2);
    assert_int_equal(s.faults, 2);
    assert_true(s.traceback);
    assert_true(s.record);
    assert_int_equal(st[0].games, 2);
    assert_true(st[0].points == 0);
    assert_int_equal(st[0].faults, 2);
    assert_int_equal(st[1].place, 1);
    class_gate gt = {.opponent = "random", .games = 2, .min_rate = 0.5};
    assert_false(class_gate_passed(&gt, st[0].points, st[0].games));
}

/* Fair start-up (issue 25): a bot whose start-up takes longer than a move
 * (1.5 s of CPU, at 1000 ms a move: the 0.35 s at 200 ms, with
 * room for a loaded machine's moves) is started and given its start-up
 * allowance before its first game, so it loses no game for it — it lost
 * every one when its start-up counted on its first move, on the CPU limit
 * of the turn whatever the load — and the start-up measured comes with
 * each game. */
typedef struct slow_seen {
    int games, faults;
    char fault[300];
    double startup_ms; /* the largest start-up measured of participant 0 */
} slow_seen;

static void on_slow_game(const class_game *g, void *user)
{
    slow_seen *s = user;
    s->games++;
    for (int i = 0; i < g->seats; i++)
        if (g->who[i] == 0) {
            if (g->culprit == i && s->faults++ == 0)
                snprintf(s->fault, sizeof s->fault, "%s", g->verdict);
            if (g->startup_ms[i] > s->startup_ms)
                s->startup_ms = g->startup_ms[i];
        }
}

static void test_play_slow_start(void **state)
{
    (void)state;
    if (!have_python())
        skip();
    char spec[600];
    snprintf(spec, sizeof spec, "cmd:python3 %s/slow_start.py 1.5", bots_dir);
    const char *specs[2] = {spec, "random"}, *names[2] = {"slow_start", "random"};
    class_play_config pc = {.game = eng_find_game("reversi"),
                            .specs = specs,
                            .names = names,
                            .n = 2,
                            .games_per_pair = 2,
                            .move_ms = 1000,
                            /* the allowance is wall time: on a loaded machine 1.5 s of
                             * CPU took more than the default 10 s (load 31: the rest of
                             * the start-up then ran on the first turn's clock); what is
                             * tested is that the start-up is not on a turn's clock */
                            .startup_ms = 120000,
                            .seed = 5,
                            .threads = 2};
    char err[300];
    eng_rules_default(pc.game, &pc.rules);
    pc.rules.players = 2;
    slow_seen s = {0};
    pc.on_game = on_slow_game;
    pc.user = &s;
    class_standing st[2];
    memset(st, 0, sizeof st);
    int rc = class_play(&pc, st, err, sizeof err);
    if (rc)
        fail_msg("class_play: %s", err);
    assert_int_equal(s.games, 2);
    if (s.faults)
        fail_msg("%d of 2 games lost by a fault, first: %s", s.faults, s.fault);
    /* each worker started it once, and measured it: at least its 1.5 s of CPU */
    if (s.startup_ms < 1500)
        fail_msg("start-up measured %.0f ms, expected at least 1500", s.startup_ms);
}

/* Languages built on the server (issue 25): C, C++, Java (two files) and
 * JavaScript submissions are built in the sandbox, then each plays a gate
 * of two games against random without a fault; a C file that does not
 * compile and JavaScript that does not parse are refused with the
 * compiler's own words, naming the file and line. */
static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    unsigned char *buf = malloc(1 << 20);
    *len = fread(buf, 1, 1 << 20, f);
    fclose(f);
    return buf;
}

typedef struct lang_case {
    class_kind kind;
    const char *files[3]; /* paths under the bots folder (or the repository's) */
    const char *main;
} lang_case;

static int build_case(const lang_case *lc, const char *work, unsigned char **made, size_t *mlen,
                      char *err, size_t errcap, char names[][64], unsigned char **data,
                      size_t *len, int *n)
{
    *n = 0;
    for (int i = 0; i < 3 && lc->files[i]; i++) {
        char path[700];
        snprintf(path, sizeof path, "%s/%s", bots_dir, lc->files[i]);
        data[i] = slurp(path, &len[i]);
        const char *base = strrchr(lc->files[i], '/');
        snprintf(names[i], 64, "%s", base ? base + 1 : lc->files[i]);
        (*n)++;
    }
    const char *nm[3] = {names[0], names[1], names[2]};
    const unsigned char *dt[3] = {data[0], data[1], data[2]};
    return class_build(lc->kind, work, *n, nm, dt, len, lc->main, made, mlen, err, errcap);
}

static void test_build_languages(void **state)
{
    (void)state;
    if (system("command -v gcc g++ javac jar node >/dev/null 2>&1") != 0) {
        print_message("gcc, g++, javac or node is missing: scripts/deps.sh test installs them\n");
        fail();
    }
    const lang_case ok[] = {
        {CLASS_C, {"../../../docs/examples/stdio_bot.c"}, "stdio_bot.c"},
        {CLASS_CPP, {"langs/first.cpp"}, "first.cpp"},
        {CLASS_JAVA, {"langs/Bot.java", "langs/Legal.java"}, "Bot.java"},
        {CLASS_JS, {"langs/first.js"}, "first.js"},
    };
    char root[] = "/tmp/tessera-build-XXXXXX";
    assert_non_null(mkdtemp(root));
    chmod(root, 0755);
    for (size_t c = 0; c < sizeof ok / sizeof ok[0]; c++) {
        char work[300], err[CLASS_BUILD_LOG + 200], names[3][64];
        unsigned char *data[3] = {0}, *made = NULL;
        size_t len[3] = {0}, mlen = 0;
        int n;
        snprintf(work, sizeof work, "%s/build-%zu", root, c);
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        int rc = build_case(&ok[c], work, &made, &mlen, err, sizeof err, names, data, len, &n);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        if (rc)
            fail_msg("%s: %s", class_kind_name(ok[c].kind), err);
        print_message("%s: built in %.0f ms, %zu bytes made\n", class_kind_name(ok[c].kind),
                      (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6,
                      mlen);
        assert_int_equal(access(work, F_OK) == 0, 0); /* the build's folder is gone */
        const char *built = class_kind_built(ok[c].kind);
        assert_true(built ? made && mlen > 0 : !made);
        /* the submission's folder, as the upload writes it */
        char dir[300];
        snprintf(dir, sizeof dir, "%s/sub-%zu", root, c);
        assert_int_equal(mkdir(dir, 0755), 0);
        for (int i = 0; i <= n; i++) {
            const char *name = i < n ? names[i] : built;
            if (!name)
                break;
            char path[400];
            snprintf(path, sizeof path, "%s/%s", dir, name);
            FILE *f = fopen(path, "wb");
            fwrite(i < n ? data[i] : made, 1, i < n ? len[i] : mlen, f);
            fclose(f);
            chmod(path, class_file_runs(ok[c].kind, name, ok[c].main) ? 0755 : 0644);
        }
        char spec[600];
        class_kind_spec(ok[c].kind, dir, ok[c].main, spec, sizeof spec);
        const char *specs[2] = {spec, "random"}, *pnames[2] = {"student", "random"};
        class_play_config pc = {.game = eng_find_game("reversi"),
                                .specs = specs,
                                .names = pnames,
                                .n = 2,
                                .games_per_pair = 2,
                                .move_ms = 3000,
                                .seed = 9,
                                .threads = 1};
        eng_rules_default(pc.game, &pc.rules);
        pc.rules.players = 2;
        slow_seen s = {0};
        pc.on_game = on_slow_game;
        pc.user = &s;
        class_standing st[2];
        if (class_play(&pc, st, err, sizeof err))
            fail_msg("%s: class_play: %s", class_kind_name(ok[c].kind), err);
        if (s.faults)
            fail_msg("%s: %d of 2 games lost by a fault, first: %s", class_kind_name(ok[c].kind),
                     s.faults, s.fault);
        assert_int_equal(s.games, 2);
        for (int i = 0; i < n; i++)
            free(data[i]);
        free(made);
        char rm[400];
        snprintf(rm, sizeof rm, "rm -rf %s", dir);
        assert_int_equal(system(rm), 0);
    }
    /* compile errors, in the compiler's words */
    const lang_case bad[] = {
        {CLASS_C, {"langs/broken.c"}, "broken.c"},
        {CLASS_JS, {"langs/broken.js"}, "broken.js"},
    };
    const char *says[] = {"broken.c:8:5: error", "SyntaxError"};
    for (size_t c = 0; c < sizeof bad / sizeof bad[0]; c++) {
        char work[300], err[CLASS_BUILD_LOG + 200], names[3][64];
        unsigned char *data[3] = {0}, *made = NULL;
        size_t len[3] = {0}, mlen = 0;
        int n;
        snprintf(work, sizeof work, "%s/bad-%zu", root, c);
        assert_int_equal(
            build_case(&bad[c], work, &made, &mlen, err, sizeof err, names, data, len, &n),
            ENG_EINVAL);
        if (!strstr(err, says[c]))
            fail_msg("%s: expected '%s' in: %s", bad[c].main, says[c], err);
        assert_null(strstr(err, root)); /* no path of the server's */
        for (int i = 0; i < n; i++)
            free(data[i]);
    }
    /* a main file that does not fit the kind */
    char err[300];
    assert_int_equal(class_build_check_main(CLASS_JAVA, "bot.py", err, sizeof err), ENG_EINVAL);
    assert_int_equal(class_build_check_main(CLASS_JAVA, "Bot.java", err, sizeof err), 0);
    assert_int_equal(rmdir(root), 0);
}

/* ---- zips (unzip.c) and the builds' pool (pool.c) ------------------------------------------ */

/* One entry of a zip made for a test: its name, bytes, and Unix mode (0:
 * none recorded). */
typedef struct zent {
    const char *name;
    const char *data;
    size_t len; /* 0: strlen(data) */
    unsigned mode;
} zent;

static void make_zip(const char *path, const zent *e, int n)
{
    int err = 0;
    zip_t *z = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &err);
    assert_non_null(z);
    for (int i = 0; i < n; i++) {
        size_t len = e[i].len ? e[i].len : strlen(e[i].data);
        zip_source_t *src = zip_source_buffer(z, e[i].data, len, 0);
        assert_non_null(src);
        zip_int64_t idx = zip_file_add(z, e[i].name, src, ZIP_FL_ENC_UTF_8);
        assert_true(idx >= 0);
        if (e[i].mode)
            assert_int_equal(zip_file_set_external_attributes(z, (zip_uint64_t)idx, 0,
                                                              ZIP_OPSYS_UNIX, e[i].mode << 16),
                             0);
    }
    assert_int_equal(zip_close(z), 0);
}

/* Unpack path with a budget; the code, reason and error are returned. */
static int unzip_as(const char *path, size_t budget, class_unzipped *z, const char **reason,
                    char *err)
{
    *reason = NULL;
    err[0] = '\0';
    return class_unzip(path, CLASS_MAX_FILES, budget, z, reason, err, 400);
}

static void test_unzip(void **state)
{
    (void)state;
    char dir[] = "/tmp/tessera-unzip-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[300];
    snprintf(path, sizeof path, "%s/a.zip", dir);
    class_unzipped z;
    const char *reason;
    char err[400];

    /* a zipped folder: the folder taken off, macOS's extras skipped, bytes intact */
    static char weights[100000];
    for (size_t i = 0; i < sizeof weights; i++)
        weights[i] = (char)(i * 7 + 3);
    zent good[] = {{"bot/", "", 0, 040755},
                   {"bot/bot.py", "print(1)\n", 0, 0100644},
                   {"bot/weights.bin", weights, sizeof weights, 0100644},
                   {"__MACOSX/bot/._bot.py", "junk", 0, 0}};
    make_zip(path, good, 4);
    assert_int_equal(unzip_as(path, 1 << 20, &z, &reason, err), 0);
    assert_int_equal(z.n, 2);
    assert_string_equal(z.names[0], "bot.py");
    assert_string_equal(z.names[1], "weights.bin");
    assert_int_equal(z.len[1], sizeof weights);
    assert_memory_equal(z.data[1], weights, sizeof weights);
    assert_int_equal(z.total, sizeof weights + 9);
    class_unzipped_free(&z);

    /* folders kept (a Java package tree, a Python package), the zipped folder taken off */
    zent tree[] = {{"mybot/bot.py", "import pkg.logic\n", 0, 0100644},
                   {"mybot/pkg/__init__.py", "", 0, 0100644},
                   {"mybot/pkg/logic.py", "X = 1\n", 0, 0100644},
                   {"mybot/src/pkg/util/Legal.java", "package pkg.util;\n", 0, 0100644}};
    make_zip(path, tree, 4);
    assert_int_equal(unzip_as(path, 1 << 20, &z, &reason, err), 0);
    assert_int_equal(z.n, 4);
    assert_string_equal(z.names[0], "bot.py");
    assert_string_equal(z.names[1], "pkg/__init__.py");
    assert_string_equal(z.names[2], "pkg/logic.py");
    assert_string_equal(z.names[3], "src/pkg/util/Legal.java");
    class_unzipped_free(&z);
    assert_true(class_path_ok("pkg/util/Legal.java"));
    assert_false(class_path_ok("pkg//x.py"));
    assert_false(class_path_ok("pkg/"));
    assert_false(class_path_ok("/pkg/x.py"));
    assert_false(class_path_ok("pkg/../x.py"));
    assert_false(class_path_ok("a/b/c/d/e/f/g/h/i.py")); /* 9 deep */

    /* each unsafe or bad zip refused whole, naming the problem */
    struct {
        zent e[2];
        int n;
        size_t budget;
        const char *reason, *says;
    } bad[] = {
        {{{"../evil.py", "x", 0, 0}}, 1, 1 << 20, "unsafe_path", "../evil.py"},
        {{{"ok.py", "x", 0, 0}, {"a/../../b.py", "x", 0, 0}}, 2, 1 << 20, "unsafe_path", "a/../../b.py"},
        {{{"/etc/passwd", "x", 0, 0}}, 1, 1 << 20, "unsafe_path", "/etc/passwd"},
        {{{"link.py", "/etc/passwd", 0, 0120777}}, 1, 1 << 20, "unsafe_path", "symbolic link"},
        {{{"a", "x", 0, 0}, {"a/y.py", "x", 0, 0}}, 2, 1 << 20, "bad_zip", "both a file and a folder"},
        {{{"x.py", "x", 0, 0}, {"a/b/c/d/e/f/g/h/i.py", "x", 0, 0}}, 2, 1 << 20, "bad_upload",
         "a/b/c/d/e/f/g/h/i.py"},
        {{{"pkg/.git/x", "x", 0, 0}}, 1, 1 << 20, "bad_upload", "pkg/.git/x"},
        {{{"x.py", "x", 0, 0}, {"big.bin", weights, sizeof weights, 0}}, 2, 50000, "too_large",
         "big.bin"},
        {{{".hidden", "x", 0, 0}}, 1, 1 << 20, "bad_upload", ".hidden"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        make_zip(path, bad[i].e, bad[i].n);
        assert_int_not_equal(unzip_as(path, bad[i].budget, &z, &reason, err), 0);
        if (!reason || strcmp(reason, bad[i].reason) != 0 || !strstr(err, bad[i].says))
            fail_msg("case %zu: %s: %s (wanted %s, %s)", i, reason ? reason : "(null)", err,
                     bad[i].reason, bad[i].says);
        assert_int_equal(z.n, 0);
    }

    /* a zip bomb: 64 MiB of zeros deflate to some 64 KB; stopped at the budget, as inflated */
    size_t big = 64u << 20;
    char *zeros = calloc(1, big);
    assert_non_null(zeros);
    zent bomb[] = {{"zeros.bin", zeros, big, 0}};
    make_zip(path, bomb, 1);
    free(zeros);
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    assert_true(sb.st_size < 1 << 20);
    assert_int_equal(unzip_as(path, 4 << 20, &z, &reason, err), ENG_ETOO_LARGE);
    assert_string_equal(reason, "too_large");

    /* more files than a submission has */
    zent many[CLASS_MAX_FILES + 1];
    char names[CLASS_MAX_FILES + 1][16];
    for (int i = 0; i <= CLASS_MAX_FILES; i++) {
        snprintf(names[i], sizeof names[i], "f%d.py", i);
        many[i] = (zent){names[i], "x", 0, 0};
    }
    make_zip(path, many, CLASS_MAX_FILES + 1);
    assert_int_equal(unzip_as(path, 1 << 20, &z, &reason, err), ENG_ETOO_MANY);
    assert_string_equal(reason, "too_many_files");

    /* not a zip; a zip cut short */
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs("this is not a zip file at all", f);
    fclose(f);
    assert_int_equal(unzip_as(path, 1 << 20, &z, &reason, err), ENG_EINVAL);
    assert_string_equal(reason, "bad_zip");
    make_zip(path, good, 3);
    assert_int_equal(stat(path, &sb), 0);
    assert_int_equal(truncate(path, sb.st_size / 2), 0);
    assert_int_equal(unzip_as(path, 1 << 20, &z, &reason, err), ENG_EINVAL);
    assert_string_equal(reason, "bad_zip");

    unlink(path);
    rmdir(dir);
}

/* The pool: its threads run the work, its done comes on poll, a job waits
 * when every thread is busy, and a stop answers the waiting ones with -1. */
typedef struct pjob {
    atomic_int *gate; /* work spins until it is 1 */
    int status, dones, started;
} pjob;

static void pj_work(void *arg)
{
    pjob *j = arg;
    while (j->gate && atomic_load(j->gate) == 0)
        usleep(1000);
}
static void pj_started(void *arg) { ((pjob *)arg)->started++; }
static void pj_done(void *arg, int status)
{
    pjob *j = arg;
    j->status = status;
    j->dones++;
}
static void pj_wake(void *user) { (void)user; }

static void test_pool(void **state)
{
    (void)state;
    class_pool *p;
    assert_int_equal(class_pool_start(&p, 1, pj_wake, NULL), 0);
    atomic_int gate = 0;
    pjob a = {.gate = &gate}, b = {.gate = &gate}, c = {.gate = &gate};
    int ahead = -1;
    bool waits = true;
    class_pool_job ja = {pj_work, pj_started, pj_done, &a}, jb = {pj_work, pj_started, pj_done, &b},
                   jc = {pj_work, pj_started, pj_done, &c};
    assert_int_equal(class_pool_push(p, &ja, &waits, &ahead), 0);
    assert_false(waits); /* the thread is free */
    assert_int_equal(ahead, 0);
    int running = 0, waiting = 0, threads = 0;
    for (int i = 0; i < 5000 && running == 0; i++) {
        usleep(1000);
        class_pool_counts(p, &running, &waiting, &threads);
    }
    assert_int_equal(running, 1);
    assert_int_equal(threads, 1);
    assert_int_equal(class_pool_push(p, &jb, &waits, &ahead), 0);
    assert_true(waits); /* the one thread is busy */
    assert_int_equal(ahead, 0); /* first in line */
    assert_int_equal(class_pool_push(p, &jc, &waits, &ahead), 0);
    assert_true(waits);
    assert_int_equal(ahead, 1);
    class_pool_counts(p, &running, &waiting, &threads);
    assert_int_equal(waiting, 2);
    class_pool_poll(p);
    assert_int_equal(a.started, 1);
    assert_int_equal(a.dones, 0);
    atomic_store(&gate, 1);
    for (int i = 0; i < 5000 && (a.dones + b.dones + c.dones) < 3; i++) {
        usleep(1000);
        class_pool_poll(p);
    }
    assert_int_equal(a.dones + b.dones + c.dones, 3);
    assert_int_equal(a.status | b.status | c.status, 0);
    /* a stop: what waits gets -1 */
    atomic_store(&gate, 0);
    pjob d = {.gate = &gate}, e = {.gate = &gate};
    class_pool_job jd = {pj_work, NULL, pj_done, &d}, je = {pj_work, NULL, pj_done, &e};
    assert_int_equal(class_pool_push(p, &jd, &waits, &ahead), 0);
    running = 0;
    for (int i = 0; i < 5000 && running == 0; i++) {
        usleep(1000);
        class_pool_counts(p, &running, &waiting, &threads);
    }
    assert_int_equal(class_pool_push(p, &je, &waits, &ahead), 0);
    assert_int_equal(running, 1);
    class_pool_counts(p, &running, &waiting, &threads);
    assert_int_equal(waiting, 1);
    /* stopped while d runs and e waits: d finishes (0), e is answered -1 */
    atomic_store(&gate, 1);
    class_pool_stop(p);
    class_pool_free(p);
    assert_int_equal(d.dones, 1);
    assert_int_equal(d.status, 0);
    assert_int_equal(e.dones, 1);
}

int main(int argc, char **argv)
{
    if (argc > 1)
        bots_dir = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roster_good),
        cmocka_unit_test(test_roster_bad),
        cmocka_unit_test(test_tokens),
        cmocka_unit_test(test_check_python),
        cmocka_unit_test(test_check_elf),
        cmocka_unit_test(test_gates),
        cmocka_unit_test(test_csv_field),
        cmocka_unit_test(test_play_broken),
        cmocka_unit_test(test_play_slow_start),
        cmocka_unit_test(test_build_languages),
        cmocka_unit_test(test_unzip),
        cmocka_unit_test(test_pool),
        /* named by their engine (cmocka_unit_test_prestate would name both alike) */
        {"test_grades_sqlite", test_grades, NULL, NULL, &on_sqlite},
        {"test_store_upgrade_sqlite", test_store_upgrade, NULL, NULL, &on_sqlite},
        {"test_grades_postgres", test_grades, NULL, NULL, &on_pg},
        {"test_store_upgrade_postgres", test_store_upgrade, NULL, NULL, &on_pg},
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
