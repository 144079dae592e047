/*
 * test_journal_pg.c — the journal on PostgreSQL (journal/pg.c) stores what
 * the one on SQLite stores, and opens a database of an earlier tessera
 * (issue 26):
 *
 *   - the same writes (matches created, moves with and without time
 *     figures, seats with new resume tokens, seat changes, lobby summaries,
 *     a finish), several of one match in one batch, strings carrying
 *     quotes, backslashes, braces, commas, "NULL" and non-ASCII text, go to
 *     a SQLite journal and to a PostgreSQL one: what each hands back to a
 *     restorer is the same, field for field; on PostgreSQL each match's row
 *     holds the last summary written, every ply is stored once and each
 *     new resume token is indexed;
 *   - a database as an earlier tessera left it (no tessera_batch nor the
 *     chained tessera_fence, the matches' table without its fillfactor) is brought up to date when
 *     opened, and its match goes on: the moves written before and after
 *     are restored in one run 0, 1, 2, ...;
 *   - two batches in flight at once (journal/pg.c's pipeline): when the
 *     first fails, the second does not commit before it, and both are
 *     stored once, in order, when the fault ends; when the connection is
 *     killed under them, both are settled and stored once, in order; when
 *     another server takes the lease over under them, the server stops
 *     (exit 1) and neither commits.
 *
 * Needs the CTest fixture `services` (PostgreSQL: tests/storage/pgtest.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>
#include <libpq-fe.h>

#include "journal/journal.h"
#include "tests/storage/pgtest.h"

static uv_loop_t loop;
static uv_timer_t keep; /* keeps the loop alive while a batch is awaited */

static void noop(uv_timer_t *t)
{
    (void)t;
}

/* Run the loop until every batch up to `batch` is stored (at most 60 s:
 * a batch that fails is tried again every second, and never succeeds). */
static void wait_stored(journal *j, uint64_t batch)
{
    uv_timer_start(&keep, noop, 1, 1);
    uv_update_time(&loop);
    uint64_t until = uv_now(&loop) + 60000;
    while (journal_synced(j) < batch && uv_now(&loop) < until)
        uv_run(&loop, UV_RUN_ONCE);
    uv_timer_stop(&keep);
    assert_true(journal_synced(j) >= batch);
}

static journal *open_journal(const char *target)
{
    journal_config cfg = {.loop = &loop, .instance = "t1", .lease_ms = 5000};
    journal *j = NULL;
    char err[512] = "";
    int rc = journal_open(target, &cfg, &j, err, sizeof err);
    if (rc)
        fail_msg("journal_open(%s): %s", target, err);
    journal_start(j);
    return j;
}

static void close_journal(journal *j)
{
    journal_stop(j);
    uv_timer_start(&keep, noop, 1, 0);
    uv_run(&loop, UV_RUN_DEFAULT); /* the journal's handles close */
    journal_close(j);
}

/* ---- what a restorer is handed, as one JSON text per match ------------------------------- */

static bool never_held(void *arg, const char *id)
{
    (void)arg, (void)id;
    return false;
}

static bool dump_one(void *arg, const journal_stored *m, char *err, size_t errcap)
{
    (void)err, (void)errcap;
    json_t *moves = json_array();
    for (int i = 0; i < m->nmoves; i++)
        json_array_append_new(moves, json_pack("[i, I, I]", (int)m->moves[i],
                                               (json_int_t)m->times[i].think_ms,
                                               (json_int_t)m->times[i].wait_ms));
    json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:s?, s:i, s:s, s:I, s:I, s:b, s:o}",
                          "id", m->id, "game", m->game, "rules", m->rules_json, "seats",
                          m->seats_json, "tc", m->tc_json, "pol", m->pol_json, "seed",
                          (json_int_t)m->seed, "nonce", m->nonce_hex, "status", m->status,
                          "result", m->result_json, "created", (json_int_t)m->created_ms,
                          "finished", (json_int_t)m->finished_ms, "demo", m->demo, "moves", moves);
    json_object_set_new(arg, m->id, o);
    return true;
}

/* Every stored match (finished or not), as a restorer is handed them. */
static char *dump(journal *j)
{
    json_t *all = json_object();
    journal_restorer r = {.arg = all, .held = never_held, .restore = dump_one};
    char err[256];
    assert_int_equal(journal_load(j, &r, 100, err, sizeof err), 0);
    char *text = json_dumps(all, JSON_SORT_KEYS | JSON_INDENT(1));
    json_decref(all);
    return text;
}

/* ---- the same writes on both engines ------------------------------------------------------ */

static const char tricky[] = "a \"quoted\" \\back\\slash\\\" 'single' {braces}, commas; NULL é ☃";

static journal_seat seat_of(const char *name, const char *resume, bool index, int moves)
{
    return (journal_seat){.kind = "remote", .name = name, .spec = "", .token = "tok",
                          .resume = resume, .bank_ms = 1000 + moves, .grace_ms = 5,
                          .used_ms = 10 * moves, .illegal = moves % 2, .moves = moves,
                          .joined = true, .index_resume = index};
}

static void create(journal *j, const char *id, const journal_seat *seats)
{
    journal_match m = {.id = id, .game = "reversi", .move_encoding = 1,
                       .rules = "{}", .time_control = "{\"move_ms\":1000}", .policies = "{}",
                       .seed = 42, .nonce_hex = "00ff", .created_ms = 1000 + id[1],
                       .seats = {.match = id, .status = 1, .nseats = 2, .seat = seats}};
    const eng_game *g = eng_find_game("reversi");
    assert_non_null(g);
    m.move_encoding = g->move_encoding;
    assert_int_equal(journal_create_match(j, &m), 0);
}

static uint64_t append(journal *j, const char *id, int from, int n, const char *by,
                       const char *reason, const journal_seats *s)
{
    eng_move mv[8];
    rec_time t[8];
    for (int i = 0; i < n; i++) {
        mv[i] = (eng_move)(100 * from + i);
        t[i] = (rec_time){i == 0 ? 40 + from : -1, i == 0 ? from : -1};
    }
    journal_moves m = {.match = id, .from = from, .n = n, .move = mv, .time = t, .by = by,
                       .reason = reason, .seats = s};
    uint64_t batch = 0;
    assert_int_equal(journal_append(j, &m, &batch), 0);
    return batch;
}

/* Two matches: batches of one write, then batches where one match has its
 * moves, seat changes, summaries and finish together. */
static void play(journal *j)
{
    journal_seat a[2] = {seat_of(tricky, "", false, 0), seat_of("b", "", false, 0)};
    journal_seat b2[2] = {seat_of("c", "", false, 0), seat_of(tricky, "", false, 0)};
    create(j, "m1", a);
    create(j, "m2", b2);
    /* batch: m1's first turn with a new resume token, m2's, a summary */
    a[0] = seat_of(tricky, "r1-a", true, 1);
    journal_seats s = {.match = "m1", .status = 1, .nseats = 2, .seat = a};
    append(j, "m1", 0, 2, "player", NULL, &s);
    b2[0] = seat_of("c", "", false, 1);
    journal_seats s2 = {.match = "m2", .status = 1, .nseats = 2, .seat = b2};
    append(j, "m2", 0, 1, "player", NULL, &s2);
    assert_int_equal(journal_set_summary(j, "m1", "{\"turn\":1}"), 0);
    uint64_t b = append(j, "m1", 2, 1, "chance", NULL, NULL);
    wait_stored(j, b);
    /* one batch: m1 moves twice, changes a seat, gets two summaries and
     * finishes; m2 moves around it */
    a[0] = seat_of(tricky, "r1-a", false, 2);
    append(j, "m1", 3, 2, "player", NULL, &s);
    a[1] = seat_of("b\\\"", "r1-b", true, 2);
    s.status_changed = true;
    assert_int_equal(journal_update_seats(j, &s, &b), 0);
    assert_int_equal(journal_set_summary(j, "m1", tricky), 0);
    append(j, "m2", 1, 3, "server", "timeout", &s2);
    a[1] = seat_of("b\\\"", "r1-b", false, 3);
    append(j, "m1", 5, 1, "server", tricky, &s);
    s.status = JOURNAL_FINISHED;
    assert_int_equal(journal_finish(j, &s, 98765, "{\"winner\":\"a\\\"b\",\"note\":\"{x,y}\"}", &b),
                     0);
    assert_int_equal(journal_set_summary(j, "m1", "{\"turn\":\"last\",\"q\":\"'\\\"\"}"), 0);
    wait_stored(j, b);
    /* a batch of m2 alone after it */
    b2[1] = seat_of(tricky, "", false, 4);
    b = append(j, "m2", 4, 2, "player", NULL, &s2);
    wait_stored(j, b);
}

static PGconn *pg_connect(const char *conninfo)
{
    PGconn *c = PQconnectdb(conninfo);
    assert_int_equal(PQstatus(c), CONNECTION_OK);
    return c;
}

/* The single value of a query, as text (copied into out). */
static void pg_value(PGconn *c, const char *sql, char *out, size_t cap)
{
    PGresult *r = PQexec(c, sql);
    if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1)
        fail_msg("%s: %s", sql, PQerrorMessage(c));
    snprintf(out, cap, "%s", PQgetisnull(r, 0, 0) ? "(null)" : PQgetvalue(r, 0, 0));
    PQclear(r);
}

static void test_same_as_sqlite(void **state)
{
    (void)state;
    char file[] = "/tmp/tessera-journal-pg-XXXXXX";
    int fd = mkstemp(file);
    assert_true(fd >= 0);
    close(fd);
    unlink(file);
    journal *lite = open_journal(file);
    play(lite);
    char *want = dump(lite);
    close_journal(lite);
    unlink(file);
    char wal[300];
    snprintf(wal, sizeof wal, "%s-wal", file);
    unlink(wal);
    snprintf(wal, sizeof wal, "%s-shm", file);
    unlink(wal);

    const char *pg = pgtest_create("journal_pg");
    assert_non_null(pg);
    journal *j = open_journal(pg);
    play(j);
    char *got = dump(j);
    close_journal(j);
    if (strcmp(want, got))
        fail_msg("PostgreSQL restores\n%s\nSQLite restores\n%s", got, want);
    /* what only PostgreSQL keeps: the last summary, each ply once, the tokens */
    PGconn *c = pg_connect(pg);
    char v[400];
    pg_value(c, "SELECT summary FROM matches WHERE id = 'm1'", v, sizeof v);
    assert_string_equal(v, "{\"turn\":\"last\",\"q\":\"'\\\"\"}");
    pg_value(c, "SELECT count(*) || ' ' || count(DISTINCT (match, ply)) FROM moves", v, sizeof v);
    assert_string_equal(v, "12 12");
    pg_value(c, "SELECT string_agg(token || ':' || match || ':' || seat, ' ' ORDER BY token) "
                "FROM resume_tokens", v, sizeof v);
    assert_string_equal(v, "r1-a:m1:0 r1-b:m1:1");
    PQfinish(c);
    pgtest_drop();
    free(want);
    free(got);
}

static void test_upgrade(void **state)
{
    (void)state;
    const char *pg = pgtest_create("journal_pg_up");
    assert_non_null(pg);
    journal *j = open_journal(pg);
    journal_seat a[2] = {seat_of("a", "", false, 0), seat_of("b", "", false, 0)};
    create(j, "m1", a);
    journal_seats s = {.match = "m1", .status = 1, .nseats = 2, .seat = a};
    wait_stored(j, append(j, "m1", 0, 3, "player", NULL, &s));
    close_journal(j);
    /* the database as a tessera of layout 1 left it: a row a ply in a
     * table of plies, the batches statements, the matches' pages full */
    PGconn *c = pg_connect(pg);
    PGresult *r = PQexec(
        c, "CREATE TABLE plies AS SELECT * FROM moves; DROP VIEW moves; DROP TABLE move_runs;"
           "ALTER TABLE plies RENAME TO moves; ALTER TABLE moves ADD PRIMARY KEY(match, ply);"
           "DROP FUNCTION tessera_batch; DROP FUNCTION tessera_fence;"
           "ALTER TABLE matches RESET (fillfactor);"
           "UPDATE meta SET value = '1' WHERE key = 'schema';"
           "INSERT INTO moves(match, ply, move, by, reason, at, think_ms, info)"
           " VALUES('m1', 3, 7, 'player', 'a,b;c%2Cd', 1, 250, '{\"pv\":[\"a,b\"]}')");
    assert_int_equal(PQresultStatus(r), PGRES_COMMAND_OK);
    PQclear(r);
    char v[200];
    pg_value(c, "SELECT coalesce(reloptions::text, '-') FROM pg_class WHERE relname = 'matches'", v,
             sizeof v);
    assert_string_equal(v, "-");
    j = open_journal(pg);
    pg_value(c, "SELECT reloptions::text FROM pg_class WHERE relname = 'matches'", v, sizeof v);
    assert_string_equal(v, "{fillfactor=50}");
    /* the plies converted to runs, given back by the view as they were */
    pg_value(c, "SELECT value || ' ' || (SELECT relkind::text FROM pg_class WHERE relname = 'moves') || ' '"
                " || (SELECT count(*) FROM move_runs) FROM meta WHERE key = 'schema'", v, sizeof v);
    assert_string_equal(v, "2 v 4");
    pg_value(c, "SELECT move || ' ' || by || ' ' || reason || ' ' || at || ' ' || think_ms || ' ' ||"
                " coalesce(wait_ms::text, '-') FROM moves WHERE match = 'm1' AND ply = 3", v, sizeof v);
    assert_string_equal(v, "7 player a,b;c%2Cd 1 250 -");
    pg_value(c, "SELECT info FROM moves WHERE match = 'm1' AND ply = 3", v, sizeof v);
    assert_string_equal(v, "{\"pv\":[\"a,b\"]}");
    a[0] = seat_of("a", "", false, 2);
    wait_stored(j, append(j, "m1", 4, 2, "player", NULL, &s));
    char *got = dump(j);
    close_journal(j);
    json_t *all = json_loads(got, 0, NULL);
    json_t *moves = json_object_get(json_object_get(all, "m1"), "moves");
    assert_int_equal(json_array_size(moves), 6);
    assert_int_equal(json_integer_value(json_array_get(json_array_get(moves, 3), 0)), 7);
    assert_int_equal(json_integer_value(json_array_get(json_array_get(moves, 4), 0)), 400);
    json_decref(all);
    free(got);
    /* the two new plies: one run */
    pg_value(c, "SELECT count(*) || ' ' || max(ply) FROM move_runs WHERE match = 'm1'", v, sizeof v);
    assert_string_equal(v, "5 4");
    PQfinish(c);
    pgtest_drop();
}

/* A layout this tessera does not know is refused before anything of it is
 * touched. */
static void test_newer_layout(void **state)
{
    (void)state;
    const char *pg = pgtest_create("journal_pg_new");
    assert_non_null(pg);
    close_journal(open_journal(pg));
    PGconn *c = pg_connect(pg);
    PGresult *r = PQexec(c, "UPDATE meta SET value = '3' WHERE key = 'schema'; DROP VIEW moves;"
                            "CREATE TABLE moves(x INTEGER)");
    assert_int_equal(PQresultStatus(r), PGRES_COMMAND_OK);
    PQclear(r);
    journal_config cfg = {.loop = &loop, .instance = "t1", .lease_ms = 5000};
    journal *j = NULL;
    char err[512] = "";
    int rc = journal_open(pg, &cfg, &j, err, sizeof err);
    assert_int_equal(rc, ENG_EBAD_VERSION);
    assert_null(j);
    assert_non_null(strstr(err, "'3'"));
    char v[100];
    pg_value(c, "SELECT relkind::text || ' ' || (SELECT count(*) FROM pg_proc WHERE proname = "
                "'tessera_unesc') FROM pg_class WHERE relname = 'moves'", v, sizeof v);
    assert_string_equal(v, "r 1"); /* the table of layout 3 is as it was */
    PQfinish(c);
    pgtest_drop();
}

/* ---- batches in flight together --------------------------------------------------------- */

/* A statement of the test's own that must succeed. */
static void pg_ok(PGconn *c, const char *sql)
{
    PGresult *r = PQexec(c, sql);
    ExecStatusType st = PQresultStatus(r);
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
        fail_msg("%s: %s", sql, PQerrorMessage(c));
    PQclear(r);
}

/* One loop round without waiting: the journal writes what was added (its
 * handles keep no loop alive: the timer does, so that the round runs). */
static void one_round(void)
{
    uv_timer_start(&keep, noop, 1000, 0);
    uv_run(&loop, UV_RUN_NOWAIT);
    uv_timer_stop(&keep);
}

/* Run the loop until the journal is in a fault (at most 20 s). */
static void wait_fault(journal *j)
{
    uv_timer_start(&keep, noop, 1, 1);
    uv_update_time(&loop);
    uint64_t until = uv_now(&loop) + 20000;
    int64_t since;
    const char *msg;
    while (journal_fault(j, &since, &msg) == JF_NONE && uv_now(&loop) < until)
        uv_run(&loop, UV_RUN_ONCE);
    uv_timer_stop(&keep);
    assert_int_not_equal(journal_fault(j, &since, &msg), JF_NONE);
}

/* The moves of each match as "match:move,move,..." in ply order, and
 * whether every ply is there once. */
static void check_moves(PGconn *c, const char *want)
{
    char v[400];
    pg_value(c,
             "SELECT string_agg(m, ' ' ORDER BY match) FROM (SELECT match, match || ':' || "
             "string_agg(move::text, ',' ORDER BY ply) AS m FROM moves GROUP BY match) AS x",
             v, sizeof v);
    assert_string_equal(v, want);
    pg_value(c,
             "SELECT bool_and(n = top + 1 AND n = d) FROM (SELECT count(*) AS n, "
             "count(DISTINCT ply) AS d, max(ply) AS top FROM moves GROUP BY match) AS x",
             v, sizeof v);
    assert_string_equal(v, "t");
}

/* Two matches, m1 with plies 0-2 stored. */
static journal *two_matches(const char *pg, journal_seat *a, journal_seat *b2)
{
    journal *j = open_journal(pg);
    a[0] = seat_of("a", "", false, 0), a[1] = seat_of("b", "", false, 0);
    b2[0] = seat_of("c", "", false, 0), b2[1] = seat_of("d", "", false, 0);
    create(j, "m1", a);
    create(j, "m2", b2);
    journal_seats s = {.match = "m1", .status = 1, .nseats = 2, .seat = a};
    wait_stored(j, append(j, "m1", 0, 3, "player", NULL, &s));
    return j;
}

/* The first of two batches in flight fails (its ply is taken): the second,
 * behind it in the pipeline, must not commit before it — m2 would have
 * plies while m1's before them are missing, and a crash then a restore
 * of m1 short. Both are stored once, in order, when the fault ends. */
static void test_in_flight_failure(void **state)
{
    (void)state;
    const char *pg = pgtest_create("journal_pg_fl");
    assert_non_null(pg);
    journal_seat a[2], b2[2];
    journal *j = two_matches(pg, a, b2);
    journal_seats s = {.match = "m1", .status = 1, .nseats = 2, .seat = a};
    journal_seats s2 = {.match = "m2", .status = 1, .nseats = 2, .seat = b2};
    PGconn *c = pg_connect(pg);
    /* m1's ply 3 taken, and the instance row held: the next batch waits at its fence */
    pg_ok(c, "BEGIN");
    pg_ok(c, "INSERT INTO move_runs(match, ply, at, plies) VALUES('m1', 3, 0, '7,x,,0,,')");
    pg_ok(c, "SELECT 1 FROM tessera_instances WHERE id = 't1' FOR UPDATE");
    uint64_t ha = append(j, "m1", 3, 3, "player", NULL, &s);
    one_round();
    uint64_t hb = append(j, "m2", 0, 3, "player", NULL, &s2);
    one_round();
    assert_true(ha < hb);
    assert_int_equal(journal_get_stats(j)->most_in_flight, 2);
    pg_ok(c, "COMMIT");
    wait_fault(j);
    assert_true(journal_synced(j) < ha);
    char v[100];
    pg_value(c, "SELECT count(*) FROM move_runs WHERE match = 'm2'", v, sizeof v);
    assert_string_equal(v, "0"); /* the second did not commit */
    /* the fault ends: both go again, in order */
    pg_ok(c, "DELETE FROM move_runs WHERE match = 'm1' AND ply = 3");
    wait_stored(j, hb);
    check_moves(c, "m1:0,1,2,300,301,302 m2:0,1,2");
    pg_value(c,
             "SELECT (SELECT xmin::text::bigint FROM move_runs WHERE match = 'm1' AND ply = 3) < "
             "(SELECT xmin::text::bigint FROM move_runs WHERE match = 'm2' AND ply = 0)",
             v, sizeof v);
    assert_string_equal(v, "t"); /* the first committed first */
    close_journal(j);
    PQfinish(c);
    pgtest_drop();
}

/* The connection is killed under two batches in flight: the journal
 * connects again, finds from the instance row which of them committed
 * (neither: they waited at the fence) and stores each once, in order. */
static void test_in_flight_lost(void **state)
{
    (void)state;
    const char *pg = pgtest_create("journal_pg_lost");
    assert_non_null(pg);
    journal_seat a[2], b2[2];
    journal *j = two_matches(pg, a, b2);
    journal_seats s = {.match = "m1", .status = 1, .nseats = 2, .seat = a};
    journal_seats s2 = {.match = "m2", .status = 1, .nseats = 2, .seat = b2};
    PGconn *c = pg_connect(pg), *k = pg_connect(pg);
    pg_ok(c, "BEGIN");
    pg_ok(c, "SELECT 1 FROM tessera_instances WHERE id = 't1' FOR UPDATE");
    uint64_t ha = append(j, "m1", 3, 3, "player", NULL, &s);
    one_round();
    uint64_t hb = append(j, "m2", 0, 3, "player", NULL, &s2);
    one_round();
    assert_true(ha < hb);
    assert_int_equal(journal_get_stats(j)->most_in_flight, 2);
    pg_ok(k, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
             "WHERE datname = current_database() AND application_name = 'tessera'");
    pg_ok(c, "ROLLBACK");
    wait_stored(j, hb);
    /* and the journal goes on on its new connection */
    a[0] = seat_of("a", "", false, 1);
    wait_stored(j, append(j, "m1", 6, 1, "player", NULL, &s));
    check_moves(c, "m1:0,1,2,300,301,302,600 m2:0,1,2");
    close_journal(j);
    PQfinish(c);
    PQfinish(k);
    pgtest_drop();
}

/* In a child process (the fence stops the server with exit 1): a journal
 * of instance t2 with match m3, which sends two batches once told to
 * (`go`) and says so (`ready`), then waits. Its exit status: 1 fenced
 * out, else the step that went wrong. */
static void takeover_child(const char *pg, int ready, int go)
{
    uv_loop_t l;
    uv_loop_init(&l);
    journal_config cfg = {.loop = &l, .instance = "t2", .lease_ms = 5000};
    journal *j = NULL;
    char err[512], ch;
    if (journal_open(pg, &cfg, &j, err, sizeof err))
        _exit(10);
    journal_start(j);
    journal_seat a[2] = {seat_of("a", "", false, 0), seat_of("b", "", false, 0)};
    journal_match m = {.id = "m3", .game = "reversi", .rules = "{}", .time_control = "{}",
                       .policies = "{}", .seed = 1, .created_ms = 1,
                       .seats = {.match = "m3", .status = 1, .nseats = 2, .seat = a}};
    m.move_encoding = eng_find_game("reversi")->move_encoding;
    if (journal_create_match(j, &m))
        _exit(11);
    if (write(ready, "r", 1) != 1 || read(go, &ch, 1) != 1)
        _exit(12);
    journal_seats s = {.match = "m3", .status = 1, .nseats = 2, .seat = a};
    uv_timer_t tick; /* keeps the loop alive: each uv_run below is a round */
    uv_timer_init(&l, &tick);
    uv_timer_start(&tick, noop, 10, 10);
    eng_move mv[2] = {1, 2};
    rec_time t[2] = {{-1, -1}, {-1, -1}};
    for (int i = 0; i < 2; i++) {
        journal_moves jm = {.match = "m3", .from = i, .n = 1, .move = &mv[i], .time = &t[i],
                            .by = "player", .seats = &s};
        if (journal_append(j, &jm, NULL))
            _exit(13);
        uv_run(&l, UV_RUN_NOWAIT);
    }
    if (journal_get_stats(j)->most_in_flight != 2)
        _exit(14);
    if (write(ready, "s", 1) != 1)
        _exit(12);
    uint64_t until = uv_now(&l) + 20000;
    while (uv_now(&l) < until)
        uv_run(&l, UV_RUN_ONCE);
    _exit(15); /* still running: not fenced out */
}

/* Another server takes the lease over while two batches are in flight:
 * the first's fence refuses it, the server stops, and neither commits. */
static void test_in_flight_takeover(void **state)
{
    (void)state;
    const char *pg = pgtest_create("journal_pg_to");
    assert_non_null(pg);
    int ready[2], go[2];
    assert_int_equal(pipe(ready), 0);
    assert_int_equal(pipe(go), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        takeover_child(pg, ready[1], go[0]);
    close(ready[1]); /* the child's ends: a child gone early ends the reads */
    close(go[0]);
    char ch = 0;
    assert_int_equal(read(ready[0], &ch, 1), 1);
    assert_int_equal(ch, 'r');
    PGconn *c = pg_connect(pg);
    pg_ok(c, "BEGIN");
    pg_ok(c, "SELECT 1 FROM tessera_instances WHERE id = 't2' FOR UPDATE");
    assert_int_equal(write(go[1], "g", 1), 1);
    assert_int_equal(read(ready[0], &ch, 1), 1);
    assert_int_equal(ch, 's');
    pg_ok(c, "UPDATE tessera_instances SET token = token + 1 WHERE id = 't2'");
    pg_ok(c, "COMMIT");
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 1);
    char v[100];
    pg_value(c, "SELECT count(*) FROM move_runs WHERE match = 'm3'", v, sizeof v);
    assert_string_equal(v, "0");
    close(ready[0]);
    close(go[1]);
    PQfinish(c);
    pgtest_drop();
}

int main(void)
{
    uv_loop_init(&loop);
    uv_timer_init(&loop, &keep);
    srv_log_set_level(LOG_WARN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_as_sqlite),
        cmocka_unit_test(test_upgrade),
        cmocka_unit_test(test_newer_layout),
        cmocka_unit_test(test_in_flight_failure),
        cmocka_unit_test(test_in_flight_lost),
        cmocka_unit_test(test_in_flight_takeover),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    uv_close((uv_handle_t *)&keep, NULL);
    uv_run(&loop, UV_RUN_DEFAULT);
    uv_loop_close(&loop);
    return rc;
}
