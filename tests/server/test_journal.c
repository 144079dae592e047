/*
 * test_journal.c — contracts of the server's journal and tokens, in one
 * process against the server library (issue 15, item 18):
 *
 *   - srv_random_token() fails closed: with no random bytes (a fault
 *     injected through srv__getrandom) it returns an error and an empty
 *     token, and create_match / join refuse with internal_error rather than
 *     hand out a guessable token;
 *   - the journal records the move encoding of every match: a database of
 *     schema 1 (no such column) is migrated and its matches restored as
 *     encoding 1; a match of an unknown encoding is not restored
 *     (restore_failed, saying why) while the others are; a database of an
 *     unknown schema version is refused when opened, with a message naming
 *     the version — and `tessera serve` on it exits non-zero saying so;
 *   - a journal that cannot be read whole (more moves than the game can
 *     have, a gap in the plies, a move that is not an integer) fails that
 *     match's restore loudly instead of restoring it cut short;
 *   - every new match stores the nonce of its chance commitment, and a
 *     restored match has the same commitment and goes on from the chance
 *     event it had reached; a match of schema 1 or 2 (no nonce) has no
 *     commitment and its record no chance block;
 *   - the time figures of a turn (think_ms, wait_ms) are journaled on its
 *     first move and come back in the match's record after a restore; a
 *     database of schema 3 (no such columns) is migrated and its turns have
 *     none; a figure that is not a number of milliseconds fails the
 *     restore of its match; schemas before 5 get the thinking lines'
 *     column (server_thinking restarts a server and reads them back);
 *   - the thinking lines are kept apart from the moves (journal/lines.c):
 *     a new move's row has none, a live match's lines come back from the
 *     log after the journal is closed mid-match (nothing else keeps them),
 *     a finished match's from its row of `infos`; a database of schema 5
 *     (the lines on the moves' rows) is migrated, its lines read as they
 *     were and its live match's new lines added apart; the log is pruned
 *     as matches finish, and a long-lived match's lines are written again
 *     at its end, so that the log stays bounded and loses none of them.
 *
 * Usage: test_journal PATH/TO/tessera (for the end-to-end check).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "server/tokidx.h"
#include "server/handlers.h"
#include "server/internal.h"
#include "server/match.h"
#include "server/match_views.h"
#include "journal/journal.h"

static const char *tessera_bin;
static char tmpdir[256];

/* ---- a server without a network: the loop, the journal, the matches ------ */

static srv S; /* too big for the stack (histograms) */
static uv_loop_t loop;

static int srv_open(const char *db, char *err, size_t errcap)
{
    memset(&S, 0, sizeof S);
    srv_limits_default(&S);
    assert_int_equal(uv_loop_init(&loop), 0);
    S.loop = &loop;
    return srv_journal_open(&S, db, false, err, errcap);
}

static void srv_close(void)
{
    while (S.matches)
        match_close(S.matches);
    uv_run(&loop, UV_RUN_DEFAULT); /* the matches' timers close, they are freed */
    journal_close(S.db);
    S.db = NULL;
    srv_texts_free(&S);
    assert_int_equal(uv_loop_close(&loop), 0);
}

/* stderr (the JSON log lines) into a file of tmpdir until log_end, which
 * reads what was written into log[] and puts stderr back. */
typedef struct log_capture {
    FILE *f;
    int saved;
} log_capture;

static log_capture log_begin(const char *name)
{
    char path[300];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    fflush(stderr);
    log_capture c = {fopen(path, "w+"), dup(2)};
    assert_non_null(c.f);
    dup2(fileno(c.f), 2);
    return c;
}

static void log_end(log_capture c, char *log, size_t cap)
{
    fflush(stderr);
    dup2(c.saved, 2);
    close(c.saved);
    rewind(c.f);
    size_t n = fread(log, 1, cap - 1, c.f);
    log[n] = 0;
    fclose(c.f);
}

/* journal_load() with stderr (the JSON log lines) captured into log[]. */
static int load_logged(char *log, size_t cap)
{
    log_capture lc = log_begin("log.txt");
    char err[512] = "";
    journal_restorer r = match_journal_restorer(&S);
    int rc = journal_load(S.db, &r, S.finished_kept, err, sizeof err);
    log_end(lc, log, cap);
    if (rc)
        fprintf(stderr, "journal_load: %s\n", err);
    return rc;
}

static proto_msg decode(const char *text)
{
    proto_msg m;
    char err[256];
    if (proto_decode(text, strlen(text), &m, NULL, err, sizeof err) != 0)
        fail_msg("%s: %s", text, err);
    return m;
}

/* ---- random tokens ------------------------------------------------------------ */

static int calls;
static ssize_t rnd_fail(void *buf, size_t len, unsigned int flags)
{
    (void)buf, (void)len, (void)flags;
    calls++;
    errno = ENOSYS;
    return -1;
}
static ssize_t rnd_zero(void *buf, size_t len, unsigned int flags)
{
    (void)buf, (void)len, (void)flags;
    calls++;
    return 0;
}
/* one byte at a time, after an EINTR: slow but real */
static ssize_t rnd_trickle(void *buf, size_t len, unsigned int flags)
{
    if (calls++ == 0) {
        errno = EINTR;
        return -1;
    }
    return getrandom(buf, len < 1 ? len : 1, flags);
}
/* the first `budget` calls work, then it fails */
static int budget;
static ssize_t rnd_budget(void *buf, size_t len, unsigned int flags)
{
    if (budget-- <= 0) {
        errno = EIO;
        return -1;
    }
    return getrandom(buf, len, flags);
}

static ssize_t (*const real_getrandom)(void *, size_t, unsigned int) = getrandom;

static void test_random_token(void **state)
{
    (void)state;
    char a[SRV_TOKEN_LEN + 1], b[SRV_TOKEN_LEN + 1];
    srv__getrandom = real_getrandom;
    assert_int_equal(srv_random_token(a, SRV_TOKEN_LEN), 0);
    assert_int_equal(srv_random_token(b, SRV_TOKEN_LEN), 0);
    assert_int_equal(strlen(a), SRV_TOKEN_LEN);
    assert_string_not_equal(a, b);
    assert_int_equal(strspn(a, "abcdefghijkmnpqrstuvwxyz23456789"), SRV_TOKEN_LEN);

    calls = 0;
    srv__getrandom = rnd_trickle;
    assert_int_equal(srv_random_token(a, SRV_TOKEN_LEN), 0);
    assert_int_equal(strlen(a), SRV_TOKEN_LEN);
    assert_int_equal(calls, SRV_TOKEN_LEN + 1);

    ssize_t (*const broken[])(void *, size_t, unsigned int) = {rnd_fail, rnd_zero};
    for (size_t i = 0; i < 2; i++) {
        memset(a, 'x', sizeof a);
        srv__getrandom = broken[i];
        assert_int_equal(srv_random_token(a, SRV_TOKEN_LEN), ENG_EINTERNAL);
        assert_string_equal(a, ""); /* never a token from bytes that are not random */
    }
    srv__getrandom = real_getrandom;
    assert_int_equal(srv_random_token(a, 0), ENG_EINVAL);
    assert_int_equal(srv_random_token(a, 65), ENG_EINVAL);
}

/* create_match and join refuse (internal_error) when no random bytes come. */
static void test_fail_closed(void **state)
{
    (void)state;
    char db[300], err[512];
    snprintf(db, sizeof db, "%s/closed.db", tmpdir);
    assert_int_equal(srv_open(db, err, sizeof err), 0);
    proto_msg create = decode("{\"type\":\"create_match\",\"game\":\"reversi\","
                              "\"seats\":[{\"open\":true},{\"bot\":\"random\"}]}");
    /* no random bytes at all, or none left for the seat token */
    for (int b = 0; b < 3; b++) {
        budget = b;
        srv__getrandom = b == 0 ? rnd_fail : rnd_budget;
        int code = 0;
        err[0] = 0;
        assert_null(match_create(&S, &create, &code, err, sizeof err));
        assert_int_equal(code, ENG_EINTERNAL);
        assert_non_null(strstr(err, "random"));
        assert_null(S.matches);
        assert_int_equal(S.nlive, 0);
    }
    srv__getrandom = real_getrandom;
    int code = 0;
    char joins[ENG_MAX_PLAYERS][SRV_TOKEN_LEN + 1];
    match_opts opts = {.join_tokens = joins};
    match *m = match_create_ex(&S, &create, &opts, &code, err, sizeof err);
    assert_non_null(m);
    /* the seat keeps the token's hash; its text went to the creator */
    assert_int_equal(strlen(joins[0]), SRV_TOKEN_LEN);
    assert_int_equal(strlen(m->seats[0].token), SRV_TOKEN_HASH_LEN);
    assert_true(access_token_ok(joins[0], m->seats[0].token));
    proto_msg_free(&create);

    /* join: the seat's resume token is made at the first join */
    conn c;
    memset(&c, 0, sizeof c); /* no transport: replies are dropped, the state tells */
    c.srv = &S;
    c.hello = true;
    c.closing = true;
    char join[256];
    snprintf(join, sizeof join, "{\"type\":\"join\",\"match\":\"%s\",\"seat\":0,\"token\":\"%s\"}",
             m->id, joins[0]);
    srv__getrandom = rnd_fail;
    handle_message(&c, join, strlen(join));
    assert_null(m->seats[0].conn);
    assert_string_equal(m->seats[0].resume, "");
    assert_int_equal(c.nsubs, 0);
    assert_int_equal(m->status, MATCH_WAITING);
    srv__getrandom = real_getrandom;
    handle_message(&c, join, strlen(join));
    assert_ptr_equal(m->seats[0].conn, &c);
    assert_int_equal(strlen(m->seats[0].resume), SRV_TOKEN_HASH_LEN);
    assert_int_equal(m->status, MATCH_LIVE);
    srv_close();
}

/* ---- the journal's versions ------------------------------------------------------ */

/* The tables as schema 1 made them (before move_encoding). */
static const char schema1[] =
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "INSERT INTO meta VALUES('schema','1');"
    "CREATE TABLE matches("
    "  id TEXT PRIMARY KEY, game TEXT NOT NULL, rules TEXT NOT NULL, seats TEXT NOT NULL,"
    "  time_control TEXT NOT NULL, policies TEXT NOT NULL, seed INTEGER NOT NULL,"
    "  status INTEGER NOT NULL, created INTEGER NOT NULL, finished INTEGER, result TEXT,"
    "  demo INTEGER NOT NULL DEFAULT 0);"
    "CREATE TABLE moves("
    "  match TEXT NOT NULL, ply INTEGER NOT NULL, move INTEGER NOT NULL, by TEXT, reason TEXT,"
    "  at INTEGER NOT NULL, PRIMARY KEY(match, ply)) WITHOUT ROWID;"
    "CREATE INDEX matches_status ON matches(status, created);";

static void exec(sqlite3 *db, const char *sql)
{
    char *e = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &e) != SQLITE_OK)
        fail_msg("%s: %s", sql, e);
}

/* A finished Reversi match `id` between two random bots, with the first n
 * moves of a real game (the first legal move each time) journaled. */
static void insert_reversi(sqlite3 *db, const char *id, int n)
{
    char sql[1024];
    snprintf(sql, sizeof sql,
             "INSERT INTO matches(id,game,rules,seats,time_control,policies,seed,status,created,"
             "finished,result) VALUES('%s','reversi','{\"players\":2}',"
             "'[{\"kind\":\"bot\",\"name\":\"\",\"spec\":\"random\"},"
             "{\"kind\":\"bot\",\"name\":\"\",\"spec\":\"random\"}]',"
             "'{\"move_ms\":1000}','{}',7,%d,1,2,'{\"reason\":\"resignation\",\"seat\":1}')",
             id, MATCH_FINISHED);
    exec(db, sql);
    const eng_game *g = eng_find_game("reversi");
    unsigned char st[4096];
    assert_true(g->state_size <= sizeof st);
    eng_rules r;
    eng_rules_default(g, &r);
    g->init(st, &r);
    eng_move legal[64];
    for (int i = 0; i < n; i++) {
        assert_true(g->legal_moves(st, legal) > 0);
        snprintf(
            sql, sizeof sql,
            "INSERT INTO moves(match,ply,move,by,reason,at) VALUES('%s',%d,%d,'player',NULL,3)", id,
            i, (int)legal[0]);
        exec(db, sql);
        g->apply(st, legal[0]);
    }
}

static sqlite3 *raw_open(const char *path)
{
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    return db;
}

static long long raw_int(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *q = NULL;
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &q, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(q), SQLITE_ROW);
    long long v = sqlite3_column_int64(q, 0);
    sqlite3_finalize(q);
    return v;
}

static void test_new_db(void **state)
{
    (void)state;
    char db[300], err[512];
    snprintf(db, sizeof db, "%s/new.db", tmpdir);
    assert_int_equal(srv_open(db, err, sizeof err), 0);
    proto_msg create = decode("{\"type\":\"create_match\",\"game\":\"carcassonne\","
                              "\"seats\":[{\"open\":true},{\"open\":true}]}");
    int code;
    match *m = match_create(&S, &create, &code, err, sizeof err);
    assert_non_null(m);
    proto_msg_free(&create);
    srv_close();
    sqlite3 *raw = raw_open(db);
    assert_int_equal(raw_int(raw, "SELECT value FROM meta WHERE key='schema'"), 6);
    assert_int_equal(raw_int(raw, "SELECT move_encoding FROM matches"),
                     eng_find_game("carcassonne")->move_encoding);
    sqlite3_close(raw);
}

static void test_migrate_and_encodings(void **state)
{
    (void)state;
    char db[300], err[512], log[8192];
    snprintf(db, sizeof db, "%s/v1.db", tmpdir);
    sqlite3 *raw = raw_open(db);
    exec(raw, schema1);
    insert_reversi(raw, "old", 6);
    sqlite3_close(raw);

    /* schema 1: migrated, its match restored as encoding 1 */
    assert_int_equal(srv_open(db, err, sizeof err), 0);
    assert_int_equal(load_logged(log, sizeof log), 0);
    match *m = match_find(&S, "old");
    if (!m)
        fail_msg("the schema-1 match was not restored: %s", log);
    assert_int_equal(m->nmoves, 6);
    assert_int_equal(m->turns, 6);
    assert_int_equal(m->status, MATCH_FINISHED);
    srv_close();
    raw = raw_open(db);
    assert_int_equal(raw_int(raw, "SELECT value FROM meta WHERE key='schema'"), 6);
    assert_int_equal(raw_int(raw, "SELECT move_encoding FROM matches WHERE id='old'"), 1);

    /* matches whose journal cannot be read as it is: each refused, loudly,
     * and the others restored */
    insert_reversi(raw, "future", 4);
    exec(raw, "UPDATE matches SET move_encoding=99 WHERE id='future'");
    insert_reversi(raw, "toolong", 10);
    for (int i = 10; i <= eng_find_game("reversi")->max_plies; i++) {
        char sql[160];
        snprintf(
            sql, sizeof sql,
            "INSERT INTO moves(match,ply,move,by,reason,at) VALUES('toolong',%d,19,NULL,NULL,3)",
            i);
        exec(raw, sql);
    }
    insert_reversi(raw, "gap", 5);
    exec(raw, "DELETE FROM moves WHERE match='gap' AND ply=2");
    insert_reversi(raw, "text", 5);
    exec(raw, "UPDATE moves SET move='d3' WHERE match='text' AND ply=3");
    insert_reversi(raw, "ok2", 3);
    sqlite3_close(raw);

    assert_int_equal(srv_open(db, err, sizeof err), 0);
    assert_int_equal(load_logged(log, sizeof log), 0);
    assert_non_null(match_find(&S, "old"));
    assert_non_null(match_find(&S, "ok2"));
    static const struct {
        const char *id, *why;
    } refused[] = {
        {"future", "reversi move encoding 99; this tessera reads encoding 1"},
        {"toolong", "more than 120 moves"},
        {"gap", "move 2 is missing"},
        {"text", "move 3 is not a move integer"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        if (match_find(&S, refused[i].id))
            fail_msg("match %s was restored", refused[i].id);
        /* its log line: {"...","event":"restore_failed","match":ID,"reason":WHY} */
        char want[200];
        snprintf(want, sizeof want, "\"match\":\"%s\"", refused[i].id);
        bool found = false;
        for (const char *line = log; *line && !found;) {
            const char *eol = strchr(line, '\n');
            size_t len = eol ? (size_t)(eol - line) : strlen(line);
            char one[1024];
            snprintf(one, sizeof one, "%.*s", (int)len, line);
            found = strstr(one, want) && strstr(one, "\"event\":\"restore_failed\"") &&
                    strstr(one, refused[i].why);
            line += len + (eol != NULL);
        }
        if (!found)
            fail_msg("no restore_failed for %s saying '%s' in:\n%s", refused[i].id, refused[i].why,
                     log);
    }
    srv_close();
}

/* The commitment of a new match, its nonce in the journal, the same after a
 * restore; a match from before commitments has none. */
static void test_chance_nonce(void **state)
{
    (void)state;
    char db[300], err[512], log[8192];
    snprintf(db, sizeof db, "%s/chance.db", tmpdir);
    assert_int_equal(srv_open(db, err, sizeof err), 0);
    proto_msg create = decode("{\"type\":\"create_match\",\"game\":\"carcassonne\","
                              "\"seats\":[{\"open\":true},{\"open\":true}]}");
    int code;
    match *m = match_create(&S, &create, &code, err, sizeof err);
    assert_non_null(m);
    proto_msg_free(&create);
    assert_true(m->has_nonce);
    chance_secret sec = {.seed = m->seed};
    memcpy(sec.nonce, m->nonce, sizeof sec.nonce);
    char want[CHANCE_COMMIT_HEX], id[SRV_MATCH_ID_LEN + 1];
    assert_int_equal(chance_commitment(&sec, want), 0);
    assert_string_equal(m->commitment, want);
    snprintf(id, sizeof id, "%s", m->id);
    json_t *sum = match_summary(m);
    assert_string_equal(json_string_value(json_object_get(sum, "chance_commitment")), want);
    json_decref(sum);
    /* not finished: the record commits, it does not reveal */
    json_t *rec = match_record_json(m, err, sizeof err);
    json_t *ch = json_object_get(rec, "chance");
    assert_string_equal(json_string_value(json_object_get(ch, "commitment")), want);
    assert_null(json_object_get(ch, "seed"));
    assert_null(json_object_get(ch, "nonce"));
    json_decref(rec);
    srv_close();

    /* in the journal; the same after a restore */
    sqlite3 *raw = raw_open(db);
    char hex[CHANCE_NONCE_HEX];
    chance_nonce_hex(sec.nonce, hex);
    char sql[200];
    snprintf(sql, sizeof sql, "SELECT chance_nonce = '%s' FROM matches WHERE id='%s'", hex, id);
    assert_int_equal(raw_int(raw, sql), 1);
    sqlite3_close(raw);
    assert_int_equal(srv_open(db, err, sizeof err), 0);
    assert_int_equal(load_logged(log, sizeof log), 0);
    m = match_find(&S, id);
    assert_non_null(m);
    assert_true(m->has_nonce);
    assert_string_equal(m->commitment, want);
    assert_int_equal(m->chance_k, 0);
    srv_close();

    /* schema 1, migrated: no nonce, no commitment, no chance block */
    snprintf(db, sizeof db, "%s/chance-v1.db", tmpdir);
    raw = raw_open(db);
    exec(raw, schema1);
    insert_reversi(raw, "old", 4);
    sqlite3_close(raw);
    assert_int_equal(srv_open(db, err, sizeof err), 0);
    assert_int_equal(load_logged(log, sizeof log), 0);
    m = match_find(&S, "old");
    assert_non_null(m);
    assert_false(m->has_nonce);
    sum = match_summary(m);
    assert_null(json_object_get(sum, "chance_commitment"));
    json_decref(sum);
    rec = match_record_json(m, err, sizeof err);
    assert_non_null(rec);
    assert_null(json_object_get(rec, "chance"));
    json_decref(rec);
    srv_close();
}

/* A live Carcassonne match journaled part-way: restored, it counts the
 * chance events it has drawn, so its next draw is the seed's next event. */
static void test_chance_restore_count(void **state)
{
    (void)state;
    char db[300], err[512], log[8192];
    snprintf(db, sizeof db, "%s/chance-live.db", tmpdir);
    assert_int_equal(srv_open(db, err, sizeof err), 0); /* tables at the current schema */
    srv_close();
    const eng_game *g = eng_find_game("carcassonne");
    unsigned char st[sizeof(unsigned char) * 65536];
    assert_true(g->state_size <= sizeof st);
    eng_rules r;
    eng_rules_default(g, &r);
    g->init(st, &r);
    sqlite3 *raw = raw_open(db);
    exec(raw, "INSERT INTO matches(id,game,rules,seats,time_control,policies,seed,status,created,"
              "move_encoding,chance_nonce) VALUES('live','carcassonne',"
              "'{\"players\":2,\"tiny_city\":4,\"farms\":true}',"
              "'[{\"kind\":\"open\",\"name\":\"\",\"spec\":\"\",\"token\":\"t0\"},"
              "{\"kind\":\"open\",\"name\":\"\",\"spec\":\"\",\"token\":\"t1\"}]',"
              "'{\"move_ms\":1000}','{}',4242,1,1,1,'000102030405060708090a0b0c0d0e0f')");
    eng_rng rng;
    eng_rng_seed(&rng, 1);
    int ply = 0, k = 0;
    /* 10 turns, stopping right after a draw: the tile is in a seat's hand */
    while (k < 10 || g->current_player(st) == ENG_CHANCE) {
        eng_move mv = g->current_player(st) == ENG_CHANCE
                          ? eng_chance_draw(g, st, 4242, (uint64_t)k++)
                          : eng_random_move(g, st, &rng);
        char sql[160];
        snprintf(sql, sizeof sql,
                 "INSERT INTO moves(match,ply,move,by,reason,at) VALUES('live',%d,%d,NULL,NULL,3)",
                 ply++, (int)mv);
        exec(raw, sql);
        g->apply(st, mv);
    }
    sqlite3_close(raw);
    assert_int_equal(srv_open(db, err, sizeof err), 0);
    assert_int_equal(load_logged(log, sizeof log), 0);
    match *m = match_find(&S, "live");
    if (!m)
        fail_msg("not restored: %s", log);
    assert_int_equal(m->chance_k, k);
    assert_true(m->has_nonce);
    chance_secret sec = {.seed = 4242};
    for (int i = 0; i < CHANCE_NONCE_LEN; i++)
        sec.nonce[i] = (uint8_t)i;
    char want[CHANCE_COMMIT_HEX];
    chance_commitment(&sec, want);
    assert_string_equal(m->commitment, want);
    srv_close();
}

static void test_unknown_schema(void **state)
{
    (void)state;
    static const char *const versions[] = {"7", "99", "abc", "\x01x"};
    for (size_t i = 0; i < sizeof versions / sizeof versions[0]; i++) {
        char db[300], err[512] = "", sql[200];
        snprintf(db, sizeof db, "%s/future%zu.db", tmpdir, i);
        sqlite3 *raw = raw_open(db);
        exec(raw, schema1);
        snprintf(sql, sizeof sql, "UPDATE meta SET value='%s' WHERE key='schema'", versions[i]);
        exec(raw, sql);
        insert_reversi(raw, "m", 2);
        sqlite3_close(raw);
        memset(&S, 0, sizeof S);
        assert_int_equal(srv_journal_open(&S, db, false, err, sizeof err), ENG_EBAD_VERSION);
        assert_null(S.db);
        char want[64];
        snprintf(want, sizeof want, "schema version '%s'", i == 3 ? "?x" : versions[i]);
        if (!strstr(err, want) || !strstr(err, db) || !strstr(err, "reads versions 1 to 6"))
            fail_msg("srv_journal_open's message: %s", err);
        /* nothing was changed in it */
        raw = raw_open(db);
        assert_int_equal(raw_int(raw, "SELECT count(*) FROM pragma_table_info('matches') WHERE "
                                      "name='move_encoding'"),
                         0);
        sqlite3_close(raw);
    }
    /* `tessera serve` on such a database: a clear error, a non-zero exit */
    char cmd[1200], out[300];
    snprintf(out, sizeof out, "%s/serve.txt", tmpdir);
    snprintf(cmd, sizeof cmd, "'%s' serve --port 0 --no-web --db '%s/future1.db' >'%s' 2>&1",
             tessera_bin, tmpdir, out);
    int status = system(cmd);
    assert_true(WIFEXITED(status));
    assert_int_not_equal(WEXITSTATUS(status), 0);
    FILE *f = fopen(out, "r");
    assert_non_null(f);
    char text[4096];
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = 0;
    fclose(f);
    if (!strstr(text, "schema version '99'") || !strstr(text, "tessera serve:"))
        fail_msg("tessera serve said:\n%s", text);
    if (strstr(text, "serving"))
        fail_msg("tessera serve claims to serve:\n%s", text);
}

/* The tables as schema 3 made them (before the time figures of moves). */
static const char schema3[] =
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "INSERT INTO meta VALUES('schema','3');"
    "CREATE TABLE matches("
    "  id TEXT PRIMARY KEY, game TEXT NOT NULL, rules TEXT NOT NULL, seats TEXT NOT NULL,"
    "  time_control TEXT NOT NULL, policies TEXT NOT NULL, seed INTEGER NOT NULL,"
    "  status INTEGER NOT NULL, created INTEGER NOT NULL, finished INTEGER, result TEXT,"
    "  demo INTEGER NOT NULL DEFAULT 0, move_encoding INTEGER NOT NULL DEFAULT 1,"
    "  chance_nonce TEXT);"
    "CREATE TABLE moves("
    "  match TEXT NOT NULL, ply INTEGER NOT NULL, move INTEGER NOT NULL, by TEXT, reason TEXT,"
    "  at INTEGER NOT NULL, PRIMARY KEY(match, ply)) WITHOUT ROWID;"
    "CREATE INDEX matches_status ON matches(status, created);";

/* The turns of match id's record (a new reference). */
static json_t *record_turns(const char *id)
{
    match *m = match_find(&S, id);
    if (!m)
        fail_msg("match %s was not restored", id);
    char err[256];
    json_t *rec = match_record_json(m, err, sizeof err);
    if (!rec)
        fail_msg("record of %s: %s", id, err);
    json_t *turns = json_incref(json_object_get(rec, "turns"));
    json_decref(rec);
    return turns;
}

static void test_times(void **state)
{
    (void)state;
    char db[300], err[512], log[8192];

    /* schema 3: migrated; its turns have no time figures */
    snprintf(db, sizeof db, "%s/times-v3.db", tmpdir);
    sqlite3 *raw = raw_open(db);
    exec(raw, schema3);
    insert_reversi(raw, "old", 6);
    sqlite3_close(raw);
    assert_int_equal(srv_open(db, err, sizeof err), 0);
    assert_int_equal(load_logged(log, sizeof log), 0);
    json_t *turns = record_turns("old");
    assert_int_equal(json_array_size(turns), 6);
    for (size_t i = 0; i < 6; i++) {
        assert_null(json_object_get(json_array_get(turns, i), "think_ms"));
        assert_null(json_object_get(json_array_get(turns, i), "wait_ms"));
    }
    json_decref(turns);
    srv_close();
    raw = raw_open(db);
    assert_int_equal(raw_int(raw, "SELECT value FROM meta WHERE key='schema'"), 6);
    assert_int_equal(raw_int(raw, "SELECT count(*) FROM pragma_table_info('moves') WHERE "
                                  "name IN ('think_ms','wait_ms','info')"),
                     3);

    /* figures journaled with moves come back in the record, turn by turn;
     * a move without them (a policy's) has none */
    insert_reversi(raw, "timed", 4);
    exec(raw, "UPDATE moves SET think_ms=ply*10, wait_ms=ply*10+5 WHERE match='timed' AND ply<>2");
    insert_reversi(raw, "badtime", 3);
    exec(raw, "UPDATE moves SET think_ms='soon' WHERE match='badtime' AND ply=1");
    insert_reversi(raw, "negtime", 3);
    exec(raw, "UPDATE moves SET wait_ms=-4 WHERE match='negtime' AND ply=2");
    sqlite3_close(raw);
    assert_int_equal(srv_open(db, err, sizeof err), 0);
    assert_int_equal(load_logged(log, sizeof log), 0);
    turns = record_turns("timed");
    assert_int_equal(json_array_size(turns), 4);
    for (int i = 0; i < 4; i++) {
        json_t *t = json_array_get(turns, (size_t)i);
        if (i == 2) {
            assert_null(json_object_get(t, "think_ms"));
            assert_null(json_object_get(t, "wait_ms"));
            continue;
        }
        assert_int_equal(json_integer_value(json_object_get(t, "think_ms")), i * 10);
        assert_int_equal(json_integer_value(json_object_get(t, "wait_ms")), i * 10 + 5);
    }
    json_decref(turns);
    for (int i = 0; i < 2; i++) {
        const char *id = i ? "negtime" : "badtime";
        if (match_find(&S, id))
            fail_msg("match %s was restored with a bad time figure", id);
        char want[64];
        snprintf(want, sizeof want, "\"match\":\"%s\"", id);
        const char *at = strstr(log, want);
        if (!at || !strstr(at, "time figure"))
            fail_msg("no restore_failed naming the time figure of %s in:\n%s", id, log);
    }
    srv_close();

    /* a live match: a turn's figures go to the journal with its first move */
    snprintf(db, sizeof db, "%s/times-live.db", tmpdir);
    assert_int_equal(srv_open(db, err, sizeof err), 0);
    proto_msg create = decode("{\"type\":\"create_match\",\"game\":\"carcassonne\","
                              "\"seats\":[{\"open\":true},{\"open\":true}]}");
    int code;
    match *m = match_create(&S, &create, &code, err, sizeof err);
    assert_non_null(m);
    proto_msg_free(&create);
    m->status = MATCH_LIVE;
    match_advance(m); /* the first draw; seat 0 is asked (no connection) */
    assert_int_equal(m->to_move, 0);
    conn c;
    memset(&c, 0, sizeof c);
    c.srv = &S;
    c.hello = true;
    m->seats[0].conn = &c; /* no sink: the server tells no one */
    m->asked_ns = uv_hrtime() - 250 * 1000000ull; /* asked 250 ms ago */
    c.rx_ns = uv_hrtime();
    json_t *legal = m->wire->legal(m->st);
    json_t *first = json_array_get(legal, 0);
    char msg[512];
    snprintf(msg, sizeof msg,
             "{\"type\":\"move\",\"match\":\"%s\",\"think_ms\":77,\"move\":{\"x\":%d,"
             "\"y\":%d,\"rot\":%d}}",
             m->id, (int)json_integer_value(json_object_get(first, "x")),
             (int)json_integer_value(json_object_get(first, "y")),
             (int)json_integer_value(json_object_get(first, "rot")));
    json_decref(legal);
    proto_msg mv = decode(msg);
    assert_true(match_remote_move(m, 0, &c, &mv, c.rx_ns));
    proto_msg_free(&mv);
    assert_int_equal(m->turns, 1);
    char id[SRV_MATCH_ID_LEN + 1];
    snprintf(id, sizeof id, "%s", m->id);
    m->seats[0].conn = NULL;
    srv_close();
    raw = raw_open(db);
    char sql[300];
    snprintf(sql, sizeof sql,
             "SELECT think_ms FROM moves WHERE match='%s' AND think_ms IS NOT NULL", id);
    assert_int_equal(raw_int(raw, sql), 77);
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM moves WHERE match='%s' AND wait_ms BETWEEN 250 AND 86400000",
             id);
    assert_int_equal(raw_int(raw, sql), 1);
    snprintf(sql, sizeof sql, "SELECT ply FROM moves WHERE match='%s' AND think_ms IS NOT NULL",
             id);
    assert_int_equal(raw_int(raw, sql), 1); /* the placement: ply 0 is the draw */
    sqlite3_close(raw);
    assert_int_equal(srv_open(db, err, sizeof err), 0);
    assert_int_equal(load_logged(log, sizeof log), 0);
    turns = record_turns(id);
    assert_int_equal(json_array_size(turns), 1);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(turns, 0), "think_ms")), 77);
    assert_true(json_integer_value(json_object_get(json_array_get(turns, 0), "wait_ms")) >= 250);
    json_decref(turns);
    srv_close();
}


/* ---- the thinking lines, apart from the moves (journal/lines.c) ----------- */

/* The tables as schema 5 made them (a turn's line on its move's row). */
static const char schema5[] =
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "INSERT INTO meta VALUES('schema','5');"
    "CREATE TABLE matches("
    "  id TEXT PRIMARY KEY, game TEXT NOT NULL, rules TEXT NOT NULL, seats TEXT NOT NULL,"
    "  time_control TEXT NOT NULL, policies TEXT NOT NULL, seed INTEGER NOT NULL,"
    "  status INTEGER NOT NULL, created INTEGER NOT NULL, finished INTEGER, result TEXT,"
    "  demo INTEGER NOT NULL DEFAULT 0, move_encoding INTEGER NOT NULL DEFAULT 1,"
    "  chance_nonce TEXT);"
    "CREATE TABLE moves("
    "  match TEXT NOT NULL, ply INTEGER NOT NULL, move INTEGER NOT NULL, by TEXT, reason TEXT,"
    "  at INTEGER NOT NULL, think_ms INTEGER, wait_ms INTEGER, info TEXT,"
    "  PRIMARY KEY(match, ply)) WITHOUT ROWID;"
    "CREATE INDEX matches_status ON matches(status, created);";

/* What a restore was handed: each match's lines, by ply ("" for none). */
#define LINES_MAX 64
static struct restored {
    char id[32];
    int n, status;
    char line[LINES_MAX][96];
} got[400];
static int ngot;

static bool lines_held(void *arg, const char *id)
{
    (void)arg, (void)id;
    return false;
}

static bool lines_restore(void *arg, const journal_stored *m, char *err, size_t errcap)
{
    (void)arg, (void)err, (void)errcap;
    assert_true(ngot < (int)(sizeof got / sizeof got[0]));
    struct restored *r = &got[ngot++];
    snprintf(r->id, sizeof r->id, "%s", m->id);
    r->n = m->nmoves;
    r->status = m->status;
    assert_true(m->nmoves <= LINES_MAX);
    for (int i = 0; i < m->nmoves; i++)
        snprintf(r->line[i], sizeof r->line[i], "%s", m->infos[i] ? m->infos[i] : "");
    return true;
}

static const struct restored *restored(const char *id)
{
    for (int i = 0; i < ngot; i++)
        if (!strcmp(got[i].id, id))
            return &got[i];
    fail_msg("match %s was not restored", id);
    return NULL;
}

/* A journal on its own (no server): the lines are its business. With a
 * fault file, its writes fail as the file says (journal_fault_hook_install). */
static const char *lines_fault_file;
static journal *lines_open(const char *db, int slack)
{
    journal_config cfg = {.loop = &loop, .busy_timeout_ms = 1000,
                          .wal_reset_frames = JOURNAL_WAL_RESET_FRAMES, .lines_slack = slack,
                          .fault_file = lines_fault_file};
    journal *j = NULL;
    char err[512] = "";
    if (journal_open(db, &cfg, &j, err, sizeof err) != 0)
        fail_msg("journal_open: %s", err);
    journal_start(j);
    return j;
}

static void lines_load(journal *j)
{
    ngot = 0;
    char err[512] = "";
    journal_restorer r = {.held = lines_held, .restore = lines_restore};
    if (journal_load(j, &r, 1000, err, sizeof err) != 0)
        fail_msg("journal_load: %s", err);
}

static void lines_close(journal *j)
{
    journal_stop(j);
    uv_run(&loop, UV_RUN_DEFAULT);
    journal_close(j);
}

static void lines_create(journal *j, const char *id)
{
    journal_match m = {.id = id, .game = "reversi", .move_encoding = 1, .rules = "{}",
                       .time_control = "{}", .policies = "{}", .seed = 7, .created_ms = 1,
                       .seats = {.match = id, .status = MATCH_LIVE}};
    assert_int_equal(journal_create_match(j, &m), 0);
}

/* Ply `ply` of match id (a move integer the reader takes), with a line
 * naming it, or none; stored at the end of the loop round. */
static void lines_move(journal *j, const char *id, int ply, bool with_line)
{
    char text[96];
    snprintf(text, sizeof text, "{\"winprob\":0.5,\"text\":\"%s ply %d\"}", id, ply);
    eng_move mv = 19;
    rec_time t = {-1, -1};
    journal_moves m = {.match = id, .from = ply, .n = 1, .move = &mv, .time = &t,
                       .info = with_line ? text : NULL};
    uint64_t batch;
    assert_int_equal(journal_append(j, &m, &batch), 0);
}

static void lines_round(void)
{
    uv_run(&loop, UV_RUN_NOWAIT); /* the round's batch is written */
}

static void lines_finish(journal *j, const char *id)
{
    journal_seats s = {.match = id, .status = MATCH_FINISHED, .status_changed = true};
    uint64_t batch;
    assert_int_equal(journal_finish(j, &s, 2, "{\"reason\":\"normal\"}", &batch), 0);
}

/* lines_close() with stderr (the JSON log lines) captured into log[]. */
static void lines_close_logged(journal *j, char *log, size_t cap)
{
    log_capture lc = log_begin("close-log.txt");
    lines_close(j);
    log_end(lc, log, cap);
}

static void expect_line(const struct restored *r, int ply, bool with_line)
{
    char want[96] = "";
    if (with_line)
        snprintf(want, sizeof want, "{\"winprob\":0.5,\"text\":\"%s ply %d\"}", r->id, ply);
    if (strcmp(r->line[ply], want) != 0)
        fail_msg("%s ply %d: the line '%s', not '%s'", r->id, ply, r->line[ply], want);
}

static void test_lines(void **state)
{
    (void)state;
    char db[300];
    assert_int_equal(uv_loop_init(&loop), 0);

    /* schema 5: a live match and a finished one, their lines on the moves' rows */
    snprintf(db, sizeof db, "%s/lines-v5.db", tmpdir);
    sqlite3 *raw = raw_open(db);
    exec(raw, schema5);
    insert_reversi(raw, "old5", 4);
    insert_reversi(raw, "live5", 4);
    exec(raw, "UPDATE matches SET status=1 WHERE id='live5'");
    exec(raw, "UPDATE moves SET info='{\"winprob\":0.5,\"text\":\"' || match || ' ply ' || ply || "
              "'\"}' WHERE ply IN (1, 3)");
    sqlite3_close(raw);

    journal *j = lines_open(db, 8);
    lines_load(j);
    for (int p = 0; p < 4; p++) {
        expect_line(restored("old5"), p, p % 2);
        expect_line(restored("live5"), p, p % 2);
    }
    /* the schema-5 match goes on, with lines; a new match; one that finishes */
    lines_move(j, "live5", 4, false);
    lines_move(j, "live5", 5, true);
    lines_create(j, "fresh");
    lines_create(j, "done");
    for (int p = 0; p < 6; p++) {
        lines_move(j, "fresh", p, p != 2);
        lines_move(j, "done", p, p != 4);
        lines_round();
    }
    lines_finish(j, "done");
    lines_round();
    raw = raw_open(db);
    assert_int_equal(raw_int(raw, "SELECT value FROM meta WHERE key='schema'"), 6);
    /* a new move's row carries no line; the live ones are in the log, the
     * finished match's in its row of infos */
    assert_int_equal(raw_int(raw, "SELECT count(*) FROM moves WHERE info IS NOT NULL"), 4);
    assert_int_equal(raw_int(raw, "SELECT count(*) FROM infos"), 1);
    assert_int_equal(raw_int(raw, "SELECT count(*) FROM infos WHERE match='done'"), 1);
    assert_true(raw_int(raw, "SELECT count(*) FROM info_log") >= 1);
    sqlite3_close(raw);
    /* closed with two matches live (nothing but the log keeps their lines) */
    lines_close(j);

    j = lines_open(db, 8);
    lines_load(j);
    const struct restored *r = restored("live5");
    assert_int_equal(r->n, 6);
    for (int p = 0; p < 6; p++)
        expect_line(r, p, p == 1 || p == 3 || p == 5);
    r = restored("fresh");
    assert_int_equal(r->n, 6);
    for (int p = 0; p < 6; p++)
        expect_line(r, p, p != 2);
    r = restored("done");
    assert_int_equal(r->status, MATCH_FINISHED);
    for (int p = 0; p < 6; p++)
        expect_line(r, p, p != 4);
    for (int p = 0; p < 4; p++)
        expect_line(restored("old5"), p, p % 2);

    /* a long-lived match ("fresh") while 300 short ones come and go, a
     * commit a move: the log is pruned and "fresh"'s lines written again
     * at its end, so it stays within twice the live lines and its slack */
    long long most = 0;
    for (int k = 0; k < 300; k++) {
        char id[32];
        snprintf(id, sizeof id, "short%d", k);
        lines_create(j, id);
        for (int p = 0; p < 3; p++) {
            lines_move(j, id, p, true);
            lines_round();
        }
        lines_finish(j, id);
        lines_round();
        raw = raw_open(db);
        long long rows = raw_int(raw, "SELECT count(*) FROM info_log");
        sqlite3_close(raw);
        if (rows > most)
            most = rows;
    }
    /* live lines: live5's 1 (its others are in moves), fresh's 5; slack 8;
     * pruned every 64 writes */
    if (most > 2 * 6 + 8 + 64 + 4)
        fail_msg("the log grew to %lld rows", most);
    raw = raw_open(db);
    assert_int_equal(raw_int(raw, "SELECT count(*) FROM infos"), 301);
    sqlite3_close(raw);
    lines_close(j);

    j = lines_open(db, 8);
    lines_load(j);
    r = restored("fresh");
    for (int p = 0; p < 6; p++)
        expect_line(r, p, p != 2);
    r = restored("live5");
    for (int p = 0; p < 6; p++)
        expect_line(r, p, p == 1 || p == 3 || p == 5);
    for (int k = 0; k < 300; k += 37) {
        char id[32];
        snprintf(id, sizeof id, "short%d", k);
        r = restored(id);
        for (int p = 0; p < 3; p++)
            expect_line(r, p, true);
    }
    lines_close(j);

    /* a batch that fails (a full disk) is kept whole and written again
     * once the fault is gone: none of its lines is lost or doubled, and a
     * match that finishes after it has them all */
    char fault[300];
    snprintf(fault, sizeof fault, "%s/lines-fault", tmpdir);
    FILE *f = fopen(fault, "w");
    assert_non_null(f);
    fputs("none", f);
    fclose(f);
    journal_fault_hook_install();
    lines_fault_file = fault;
    j = lines_open(db, 8);
    lines_load(j);
    lines_create(j, "faulty");
    lines_move(j, "faulty", 0, true);
    lines_round();
    f = fopen(fault, "w");
    fputs("disk_full", f);
    fclose(f);
    lines_move(j, "faulty", 1, true);
    lines_move(j, "faulty", 2, false);
    lines_move(j, "fresh", 6, true);
    lines_round();
    int64_t since;
    const char *msg;
    assert_int_equal(journal_fault(j, &since, &msg), JF_DISK_FULL);
    f = fopen(fault, "w");
    fputs("none", f);
    fclose(f);
    for (int i = 0; i < 500 && journal_fault(j, &since, &msg) != JF_NONE; i++)
        uv_run(&loop, UV_RUN_ONCE); /* the retry, within a second (JOURNAL_RETRY_MS) */
    assert_int_equal(journal_fault(j, &since, &msg), JF_NONE);
    lines_move(j, "faulty", 3, true);
    lines_round();
    lines_finish(j, "faulty");
    lines_round();
    lines_close(j);
    lines_fault_file = NULL;
    j = lines_open(db, 8);
    lines_load(j);
    r = restored("faulty");
    assert_int_equal(r->n, 4);
    for (int p = 0; p < 4; p++)
        expect_line(r, p, p != 2);
    r = restored("fresh");
    assert_int_equal(r->n, 7);
    for (int p = 0; p < 7; p++)
        expect_line(r, p, p != 2);
    raw = raw_open(db);
    assert_int_equal(raw_int(raw, "SELECT length(lines) - length(replace(lines, char(10), '')) "
                                  "FROM infos WHERE match='faulty'"),
                     3); /* three entries, one a line */
    sqlite3_close(raw);
    lines_close(j);
    assert_int_equal(uv_loop_close(&loop), 0);
}

/* The log's pruning looks over the live matches once every 64 writes, not
 * at every write once the oldest live match holds the log's first row (a
 * walk of every live match a commit: at a thousand live matches and a
 * commit a move, most of a move's journal time). */
static void test_lines_prune_pace(void **state)
{
    (void)state;
    char db[300];
    assert_int_equal(uv_loop_init(&loop), 0);
    snprintf(db, sizeof db, "%s/prune-pace.db", tmpdir);
    journal *j = lines_open(db, 8);
    lines_load(j);
    const char *busy[4] = {"busy0", "busy1", "busy2", "busy3"};
    lines_create(j, "old");
    for (int b = 0; b < 4; b++)
        lines_create(j, busy[b]);
    lines_move(j, "old", 0, true); /* the log's first row: nothing before it to prune */
    lines_round();
    for (int p = 0; p < 50; p++)
        for (int b = 0; b < 4; b++) {
            lines_move(j, busy[b], p, true);
            lines_round();
        }
    char log[8192];
    lines_close_logged(j, log, sizeof log);
    const char *at = strstr(log, "\"prune_passes\":");
    if (!at)
        fail_msg("no prune_passes in the journal's log at its stop: %s", log);
    long passes = strtol(at + strlen("\"prune_passes\":"), NULL, 10);
    /* 201 writes: the plan every 64th */
    if (passes < 1 || passes > 201 / 64 + 1)
        fail_msg("the log's pruning looked over the live matches %ld times in 201 writes", passes);
    /* and nothing was lost: both matches' lines come back */
    j = lines_open(db, 8);
    lines_load(j);
    expect_line(restored("old"), 0, true);
    for (int b = 0; b < 4; b++) {
        const struct restored *r = restored(busy[b]);
        assert_int_equal(r->n, 50);
        for (int p = 0; p < 50; p++)
            expect_line(r, p, true);
    }
    lines_close(j);
    assert_int_equal(uv_loop_close(&loop), 0);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s PATH/TO/tessera\n", argv[0]);
        return 2;
    }
    tessera_bin = argv[1];
    snprintf(tmpdir, sizeof tmpdir, "%s/tessera-journal-XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_token),
        cmocka_unit_test(test_fail_closed),
        cmocka_unit_test(test_new_db),
        cmocka_unit_test(test_migrate_and_encodings),
        cmocka_unit_test(test_unknown_schema),
        cmocka_unit_test(test_chance_nonce),
        cmocka_unit_test(test_chance_restore_count),
        cmocka_unit_test(test_times),
        cmocka_unit_test(test_lines),
        cmocka_unit_test(test_lines_prune_pace),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
    return rc;
}
