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
 *   - a database as an earlier tessera left it (no tessera_batch, the
 *     matches' table without its fillfactor) is brought up to date when
 *     opened, and its match goes on: the moves written before and after
 *     are restored in one run 0, 1, 2, ...
 *
 * Needs the CTest fixture `services` (PostgreSQL: tests/storage/pgtest.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
           "DROP FUNCTION tessera_batch; ALTER TABLE matches RESET (fillfactor);"
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

int main(void)
{
    uv_loop_init(&loop);
    uv_timer_init(&loop, &keep);
    srv_log_set_level(LOG_WARN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_as_sqlite),
        cmocka_unit_test(test_upgrade),
        cmocka_unit_test(test_newer_layout),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    uv_close((uv_handle_t *)&keep, NULL);
    uv_run(&loop, UV_RUN_DEFAULT);
    uv_loop_close(&loop);
    return rc;
}
