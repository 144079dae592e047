/*
 * store.c — tournaments in a database of storage/db.h, SQLite or
 * PostgreSQL (see store.h). Four tables:
 *
 *   tour_tournaments(id, label, spec, status, paused, cancelled, created, updated)
 *   tour_pairings(tournament, id, round, members, regular)
 *   tour_games(tournament, id, grp, pairing, round, seats, chance_seed, status, ref, result)
 *   tour_records(tournament, game, record)
 *
 * spec and result are JSON text (the spec in its canonical form, which
 * tour_store_find compares); members and seats are participant indices
 * separated by commas, readable from the sqlite3 shell or psql. A
 * tournament's id is the database's (an identity column on PostgreSQL,
 * read back with RETURNING), never computed here: several servers may
 * share the tables. A tournament's journal (internal.h) becomes one
 * transaction: the new pairings and games, the games whose status changed,
 * and the tournament row.
 *
 * The SQL is the subset both engines accept (db.h): upserts are ON
 * CONFLICT ... DO UPDATE, and nothing of SQLite's own is used (the list
 * reads each spec's format with jansson, not json_extract).
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tournament/internal.h"
#include "tournament/store.h"

struct tour_store {
    db_conn *db;
    bool owned; /* opened by tour_store_open */
    db_stmt *ins_pair, *ins_game, *upd_game, *upd_tour, *ins_record;
};

static const char schema[] =
    "CREATE TABLE IF NOT EXISTS tour_tournaments("
    "  id INTEGER PRIMARY KEY, label TEXT, spec TEXT NOT NULL, status TEXT NOT NULL,"
    "  paused INTEGER NOT NULL DEFAULT 0, cancelled INTEGER NOT NULL DEFAULT 0,"
    "  created INTEGER NOT NULL, updated INTEGER NOT NULL);"
    "CREATE TABLE IF NOT EXISTS tour_pairings("
    "  tournament INTEGER NOT NULL, id INTEGER NOT NULL, round INTEGER NOT NULL,"
    "  members TEXT NOT NULL, regular INTEGER NOT NULL, PRIMARY KEY(tournament, id)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS tour_games("
    "  tournament INTEGER NOT NULL, id INTEGER NOT NULL, grp INTEGER NOT NULL,"
    "  pairing INTEGER NOT NULL, round INTEGER NOT NULL, seats TEXT NOT NULL,"
    "  chance_seed INTEGER NOT NULL, status TEXT NOT NULL, ref TEXT, result TEXT,"
    "  PRIMARY KEY(tournament, id)) WITHOUT ROWID;"
    /* a finished game's record, written with its result (tour_result.record) */
    "CREATE TABLE IF NOT EXISTS tour_records("
    "  tournament INTEGER NOT NULL, game INTEGER NOT NULL, record TEXT NOT NULL,"
    "  PRIMARY KEY(tournament, game)) WITHOUT ROWID;";

static int fail(tour_store *st, char *err, size_t errcap, const char *what)
{
    return eng_seterr(err, errcap, ENG_ESTORAGE, "tournament database: %s: %s", what,
                      st && st->db ? db_errmsg(st->db) : "cannot open");
}

static int prepare(tour_store *st, char *err, size_t errcap)
{
    /* CREATE TABLE IF NOT EXISTS from two servers at once can collide on
     * PostgreSQL: schema changes are serialised (nothing on SQLite) */
    if (db_schema_lock(st->db) != DB_OK)
        return fail(st, err, errcap, "locking the schema");
    int rc = db_exec(st->db, schema);
    db_schema_unlock(st->db);
    if (rc != DB_OK)
        return fail(st, err, errcap, "creating the tables");
    if (db_prepare(st->db,
                   "INSERT INTO tour_pairings(tournament,id,round,members,regular) "
                   "VALUES(?,?,?,?,?)",
                   &st->ins_pair) ||
        db_prepare(st->db,
                   "INSERT INTO tour_games(tournament,id,grp,pairing,round,seats,"
                   "chance_seed,status,ref,result) VALUES(?,?,?,?,?,?,?,?,?,?)",
                   &st->ins_game) ||
        db_prepare(st->db,
                   "UPDATE tour_games SET status=?, ref=?, result=? "
                   "WHERE tournament=? AND id=?",
                   &st->upd_game) ||
        db_prepare(st->db,
                   "UPDATE tour_tournaments SET status=?, paused=?, cancelled=?, "
                   "updated=? WHERE id=?",
                   &st->upd_tour) ||
        db_prepare(st->db,
                   "INSERT INTO tour_records(tournament,game,record) VALUES(?,?,?) "
                   "ON CONFLICT(tournament,game) DO UPDATE SET record=excluded.record",
                   &st->ins_record))
        return fail(st, err, errcap, "preparing statements");
    return 0;
}

static int store_new(db_conn *db, bool owned, tour_store **out, char *err, size_t errcap)
{
    tour_store *st = calloc(1, sizeof *st);
    if (!st) {
        if (owned)
            db_close(db);
        return eng_seterr(err, errcap, ENG_ENOMEM, "out of memory");
    }
    st->db = db;
    st->owned = owned;
    int rc = prepare(st, err, errcap);
    if (rc) {
        tour_store_close(st);
        return rc;
    }
    *out = st;
    return 0;
}

int tour_store_open(const char *target, tour_store **out, char *err, size_t errcap)
{
    *out = NULL;
    db_conn *db = NULL;
    char why[512];
    if (db_open(target, &db, why, sizeof why) != DB_OK)
        return eng_seterr(err, errcap, ENG_ESTORAGE, "cannot open the tournament database: %s",
                          why);
    /* SQLite: wait for another writer rather than fail; WAL with
     * synchronous=NORMAL is safe against a crash of the process, which is
     * what resume is for. PostgreSQL: the server's own settings, but not
     * its NOTICEs (libpq prints them on stderr: "relation ... already
     * exists, skipping" at every CREATE TABLE IF NOT EXISTS). */
    bool lite = db_engine_of(db) == DB_SQLITE;
    if (db_exec(db, lite ? "PRAGMA busy_timeout=5000; PRAGMA journal_mode=WAL; "
                           "PRAGMA synchronous=NORMAL;"
                         : "SET client_min_messages = warning") != DB_OK) {
        int rc = eng_seterr(err, errcap, ENG_ESTORAGE, "tournament database: %s", db_errmsg(db));
        db_close(db);
        return rc;
    }
    return store_new(db, true, out, err, errcap);
}

int tour_store_attach(db_conn *db, tour_store **out, char *err, size_t errcap)
{
    *out = NULL;
    if (!db)
        return eng_seterr(err, errcap, ENG_EINVAL, "no database connection");
    return store_new(db, false, out, err, errcap);
}

void tour_store_close(tour_store *st)
{
    if (!st)
        return;
    db_finalize(st->ins_pair);
    db_finalize(st->ins_game);
    db_finalize(st->upd_game);
    db_finalize(st->upd_tour);
    db_finalize(st->ins_record);
    if (st->owned)
        db_close(st->db);
    free(st);
}

/* ---- encoding --------------------------------------------------------------------- */

static void ints_text(const int *v, int n, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = 0;
    for (int i = 0; i < n && len < cap; i++)
        len += (size_t)snprintf(buf + len, cap - len, i ? ",%d" : "%d", v[i]);
}

/* Parse "a,b,c" of exactly n integers in [0, max). */
static int text_ints(const char *s, int n, int max, int *out)
{
    if (!s)
        return -1;
    for (int i = 0; i < n; i++) {
        char *end;
        long x = strtol(s, &end, 10);
        if (end == s || x < 0 || x >= max)
            return -1;
        out[i] = (int)x;
        if (i + 1 < n) {
            if (*end != ',')
                return -1;
            s = end + 1;
        } else if (*end) {
            return -1;
        }
    }
    return 0;
}

static char *result_text(const tour *t, const tour__res *r)
{
    json_t *score = json_array(), *rank = json_array(), *tm = json_array(), *mv = json_array(),
           *tl = json_array();
    for (int s = 0; s < t->k; s++) {
        json_array_append_new(score, json_real(r->score[s]));
        json_array_append_new(rank, json_integer(r->rank[s]));
        json_array_append_new(tm, json_real(r->time_ms[s]));
        json_array_append_new(mv, json_integer(r->moves[s]));
        json_array_append_new(tl, json_boolean((r->time_loss >> s) & 1));
    }
    json_t *o = json_pack("{s:o, s:o, s:s, s:i, s:o, s:o, s:o}", "score", score, "rank", rank,
                          "end", tour_end_name((tour_end)r->end), "culprit", r->culprit, "time_ms",
                          tm, "moves", mv, "time_loss", tl);
    if (o && r->verdict)
        json_object_set_new(o, "verdict", json_string(r->verdict));
    char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    return text;
}

static int result_parse(const tour *t, const char *text, tour__res *out)
{
    json_error_t je;
    json_t *o = json_loads(text, JSON_REJECT_DUPLICATES, &je);
    json_t *score, *rank, *tm, *mv, *tl;
    const char *end, *verdict = NULL;
    int culprit, rc = -1;
    if (!o || json_unpack_ex(o, &je, JSON_STRICT, "{s:o, s:o, s:s, s:i, s:o, s:o, s:o, s?:s}",
                             "score", &score, "rank", &rank, "end", &end, "culprit", &culprit,
                             "time_ms", &tm, "moves", &mv, "time_loss", &tl, "verdict", &verdict))
        goto out;
    int k = t->k;
    if (json_array_size(score) != (size_t)k || json_array_size(rank) != (size_t)k ||
        json_array_size(tm) != (size_t)k || json_array_size(mv) != (size_t)k ||
        json_array_size(tl) != (size_t)k)
        goto out;
    tour_end e;
    if (tour_end_parse(end, &e) || culprit < -1 || culprit >= k)
        goto out;
    memset(out, 0, sizeof *out);
    for (int s = 0; s < k; s++) {
        json_t *x = json_array_get(rank, s);
        if (!json_is_number(json_array_get(score, s)) || !json_is_integer(x) ||
            json_integer_value(x) < 1 || json_integer_value(x) > k ||
            !json_is_number(json_array_get(tm, s)) || !json_is_integer(json_array_get(mv, s)) ||
            !json_is_boolean(json_array_get(tl, s)))
            goto out;
        out->score[s] = json_number_value(json_array_get(score, s));
        out->rank[s] = (int8_t)json_integer_value(x);
        out->time_ms[s] = json_number_value(json_array_get(tm, s));
        out->moves[s] = (int32_t)json_integer_value(json_array_get(mv, s));
        if (json_is_true(json_array_get(tl, s)))
            out->time_loss |= (uint8_t)(1u << s);
    }
    out->end = (uint8_t)e;
    out->culprit = (int8_t)culprit;
    if (verdict && !(out->verdict = strdup(verdict)))
        goto out;
    rc = 0;
out:
    json_decref(o);
    return rc;
}

static const char *tour_status_text(const tour *t)
{
    return t->cancelled ? "cancelled" : tour_is_done(t) ? "done" : "running";
}

/* ---- writing the journal ------------------------------------------------------------- */

static int bind_game_state(db_stmt *s, int col, const tour *t, int64_t id)
{
    int rc = db_bind_text(s, col, tour_game_status_name((tour_game_status)t->status[id]), -1);
    if (!rc)
        rc = db_bind_text(s, col + 1, t->ref[id], -1); /* NULL: none */
    if (!rc) {
        if (t->res[id]) {
            char *text = result_text(t, t->res[id]);
            if (!text)
                return DB_ENOMEM;
            rc = db_bind_text(s, col + 2, text, -1); /* copied */
            free(text);
        } else {
            rc = db_bind_null(s, col + 2);
        }
    }
    return rc;
}

/* Run a statement that returns no rows and make it ready for the next
 * bindings: DB_OK or a DB_E* code. */
static int step_reset(db_stmt *s)
{
    int rc = db_step(s);
    db_reset(s);
    db_clear_bindings(s);
    return rc == DB_DONE ? DB_OK : rc < 0 ? rc : DB_EMISUSE;
}

/* A statement whose binding failed: ready for the next ones, unrun. */
static void abandon(db_stmt *s)
{
    db_reset(s);
    db_clear_bindings(s);
}

/* The journal's rows, inside the caller's transaction: DB_OK or a DB_E*
 * code (the caller rolls back). */
static int write_journal(tour *t)
{
    tour_store *st = t->store;
    int rc = DB_OK, k = t->k;
    for (int64_t p = t->j_pair; p < t->npair && rc == DB_OK; p++) {
        const tour__pairing *pr = &t->pair[p];
        int mem[ENG_MAX_PLAYERS];
        char buf[64];
        for (int b = 0; b < k; b++)
            mem[b] = pr->member[b];
        ints_text(mem, k, buf, sizeof buf);
        db_stmt *s = st->ins_pair;
        if (!(rc = db_bind_int64(s, 1, t->store_id)) && !(rc = db_bind_int64(s, 2, p)) &&
            !(rc = db_bind_int(s, 3, pr->round)) && !(rc = db_bind_text(s, 4, buf, -1)) &&
            !(rc = db_bind_int(s, 5, pr->regular)))
            rc = step_reset(s);
        else
            abandon(s);
    }
    for (int64_t id = t->j_group * k; id < tour__ngames(t) && rc == DB_OK; id++) {
        int64_t g = id / k, p = t->group_pair[g];
        int seats[ENG_MAX_PLAYERS];
        char buf[64];
        for (int s = 0; s < k; s++)
            seats[s] = tour__seat_participant(t, id, s);
        ints_text(seats, k, buf, sizeof buf);
        db_stmt *s = st->ins_game;
        /* the 64-bit chance seed is stored as the signed integer of the
         * same bits (both engines' integers are signed) */
        if (!(rc = db_bind_int64(s, 1, t->store_id)) && !(rc = db_bind_int64(s, 2, id)) &&
            !(rc = db_bind_int64(s, 3, g)) && !(rc = db_bind_int64(s, 4, p)) &&
            !(rc = db_bind_int(s, 5, t->pair[p].round)) && !(rc = db_bind_text(s, 6, buf, -1)) &&
            !(rc = db_bind_int64(s, 7, (int64_t)tour__chance_seed(t, g))) &&
            !(rc = bind_game_state(s, 8, t, id)))
            rc = step_reset(s);
        else
            abandon(s);
    }
    for (int64_t i = 0; i < t->nj_games && rc == DB_OK; i++) {
        int64_t id = t->j_games[i];
        db_stmt *s = st->upd_game;
        if (!(rc = bind_game_state(s, 1, t, id)) && !(rc = db_bind_int64(s, 4, t->store_id)) &&
            !(rc = db_bind_int64(s, 5, id)))
            rc = step_reset(s);
        else
            abandon(s);
    }
    if (rc == DB_OK && t->j_record) {
        db_stmt *s = st->ins_record;
        if (!(rc = db_bind_int64(s, 1, t->store_id)) &&
            !(rc = db_bind_int64(s, 2, t->j_record_game)) &&
            !(rc = db_bind_text(s, 3, t->j_record, -1)))
            rc = step_reset(s);
        else
            abandon(s);
    }
    if (rc == DB_OK) {
        db_stmt *s = st->upd_tour;
        if (!(rc = db_bind_text(s, 1, tour_status_text(t), -1)) &&
            !(rc = db_bind_int(s, 2, t->paused)) && !(rc = db_bind_int(s, 3, t->cancelled)) &&
            !(rc = db_bind_int64(s, 4, (int64_t)time(NULL))) &&
            !(rc = db_bind_int64(s, 5, t->store_id)))
            rc = step_reset(s);
        else
            abandon(s);
    }
    return rc;
}

/* One transaction (a savepoint when the caller's connection is already in
 * one): on SQLite, BEGIN IMMEDIATE takes the write lock up front, so a busy
 * database waits in the busy handler instead of failing half-way (on
 * PostgreSQL it is a plain BEGIN: row locks are taken as rows are written).
 * DB_OK, or a DB_E* code and nothing begun. */
static int tx_begin(db_conn *db, bool *outer)
{
    *outer = !db_in_transaction(db);
    return db_exec(db, *outer ? "BEGIN IMMEDIATE" : "SAVEPOINT tour_write");
}

/* Commit when rc is DB_OK, else (or when the commit fails) roll back —
 * also what PostgreSQL needs after any failed statement, which aborts the
 * whole transaction. 0, or ENG_ESTORAGE and nothing written. */
static int tx_end(db_conn *db, bool outer, int rc)
{
    if (rc == DB_OK && db_exec(db, outer ? "COMMIT" : "RELEASE tour_write") == DB_OK)
        return 0;
    if (outer)
        db_exec(db, "ROLLBACK");
    else
        db_exec(db, "ROLLBACK TO tour_write; RELEASE tour_write");
    return ENG_ESTORAGE;
}

/* The writer store.c attaches to a tournament (tour.store_write). */
static int store_write(tour *t)
{
    bool outer;
    if (tx_begin(t->store->db, &outer) != DB_OK)
        return ENG_ESTORAGE;
    return tx_end(t->store->db, outer, write_journal(t));
}

/* ---- create, find, load ---------------------------------------------------------------- */

static char *spec_text(const tour_spec *spec)
{
    json_t *o = tour_spec_to_json(spec);
    char *text = o ? json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    json_decref(o);
    return text;
}

int tour_store_create(tour_store *st, tour *t, int64_t *id, char *err, size_t errcap)
{
    if (t->store)
        return eng_seterr(err, errcap, ENG_EINVAL, "the tournament is already stored");
    char *text = spec_text(t->spec);
    if (!text)
        return eng_seterr(err, errcap, ENG_ENOMEM, "out of memory");
    bool outer;
    if (tx_begin(st->db, &outer) != DB_OK) {
        free(text);
        return fail(st, err, errcap, "saving the tournament");
    }
    /* the tournament row and its whole schedule in one transaction: a kill
     * leaves either both or neither. Its id is the database's. */
    db_stmt *s = NULL;
    int64_t now = (int64_t)time(NULL), new_id = -1;
    int rc = db_prepare(st->db,
                        "INSERT INTO tour_tournaments(label,spec,status,paused,cancelled,"
                        "created,updated) VALUES(?,?,'running',0,0,?,?) RETURNING id",
                        &s);
    if (rc == DB_OK && !(rc = db_bind_text(s, 1, t->spec->label, -1)) &&
        !(rc = db_bind_text(s, 2, text, -1)) && !(rc = db_bind_int64(s, 3, now)) &&
        !(rc = db_bind_int64(s, 4, now))) {
        rc = db_step(s);
        if (rc == DB_ROW) {
            new_id = db_column_int64(s, 0);
            rc = db_step(s);
        }
        rc = rc == DB_DONE && new_id >= 0 ? DB_OK : rc < 0 ? rc : DB_EFAIL;
    }
    db_finalize(s);
    free(text);
    if (rc == DB_OK) {
        t->store = st;
        t->store_write = store_write;
        t->store_id = new_id;
        /* everything scheduled so far is new to the database */
        t->j_pair = 0;
        t->j_group = 0;
        t->nj_games = 0;
        t->j_flags = true;
        rc = write_journal(t);
    }
    char why[200];
    snprintf(why, sizeof why, "%s", db_errmsg(st->db));
    if (tx_end(st->db, outer, rc)) {
        t->store = NULL;
        t->store_id = -1;
        tour__journal_reset(t);
        return eng_seterr(err, errcap, ENG_ESTORAGE,
                          "tournament database: saving the tournament: %s", why);
    }
    tour__journal_reset(t);
    *id = t->store_id;
    return 0;
}

int tour_store_find(tour_store *st, const tour_spec *spec, int64_t *id, char *err, size_t errcap)
{
    char *text = spec_text(spec);
    if (!text)
        return eng_seterr(err, errcap, ENG_ENOMEM, "out of memory");
    db_stmt *s = NULL;
    int found = 0;
    if (db_prepare(st->db, "SELECT id FROM tour_tournaments WHERE spec=? ORDER BY id DESC LIMIT 1",
                   &s) != DB_OK) {
        free(text);
        return fail(st, err, errcap, "looking up the tournament");
    }
    int rc = db_bind_text(s, 1, text, -1);
    if (rc == DB_OK)
        rc = db_step(s);
    if (rc == DB_ROW) {
        *id = db_column_int64(s, 0);
        found = 1;
    } else if (rc != DB_DONE) {
        found = fail(st, err, errcap, "looking up the tournament");
    }
    db_finalize(s);
    free(text);
    return found;
}

void tour_store_detach(tour *t)
{
    t->store = NULL;
    t->store_id = -1;
}

int64_t tour_store_id(const tour *t)
{
    return t->store ? t->store_id : -1;
}

static int damaged(char *err, size_t errcap, int64_t id, const char *what, int64_t row)
{
    return eng_seterr(err, errcap, ENG_ESTORAGE,
                      "tournament %lld in the database is damaged: %s (row %lld)", (long long)id,
                      what, (long long)row);
}

/* Prepare sql with the tournament id as its one parameter: DB_OK or DB_E*. */
static int prepare_for(tour_store *st, const char *sql, int64_t id, db_stmt **out)
{
    int rc = db_prepare(st->db, sql, out);
    if (rc == DB_OK && (rc = db_bind_int64(*out, 1, id)) != DB_OK) {
        db_finalize(*out);
        *out = NULL;
    }
    return rc;
}

int tour_store_load(tour_store *st, int64_t id, tour_resume_mode mode, tour **out, char *err,
                    size_t errcap)
{
    *out = NULL;
    db_stmt *s = NULL;
    tour *t = NULL;
    tour_spec *spec = NULL;
    int rc = 0;
    if (prepare_for(st, "SELECT spec, paused, cancelled FROM tour_tournaments WHERE id=?", id,
                    &s) != DB_OK)
        return fail(st, err, errcap, "reading the tournament");
    int step = db_step(s);
    if (step != DB_ROW) {
        db_finalize(s);
        if (step == DB_DONE)
            return eng_seterr(err, errcap, ENG_EINVAL, "no tournament %lld in the database",
                              (long long)id);
        return fail(st, err, errcap, "reading the tournament");
    }
    const char *text = db_column_text(s, 0);
    bool has_text = text != NULL;
    bool paused = db_column_int(s, 1) != 0, cancelled = db_column_int(s, 2) != 0;
    json_error_t je;
    json_t *o = text ? json_loads(text, JSON_REJECT_DUPLICATES, &je) : NULL;
    db_finalize(s);
    s = NULL;
    char why[256] = "not JSON";
    spec = o ? tour_spec_from_json(o, why, sizeof why) : NULL;
    json_decref(o);
    if (!spec)
        return eng_seterr(err, errcap, ENG_ESTORAGE,
                          "tournament %lld in the database has an unreadable spec: %s",
                          (long long)id, has_text ? why : "missing");
    rc = tour__alloc(spec, &t, err, errcap);
    tour_spec_free(spec);
    if (rc)
        return rc;
    int k = t->k, n = t->n;

    /* pairings */
    if (prepare_for(st,
                    "SELECT id, round, members, regular FROM tour_pairings "
                    "WHERE tournament=? ORDER BY id",
                    id, &s) != DB_OK) {
        rc = fail(st, err, errcap, "reading the pairings");
        goto out;
    }
    while ((step = db_step(s)) == DB_ROW) {
        int64_t pid = db_column_int64(s, 0);
        int round = db_column_int(s, 1), mem[ENG_MAX_PLAYERS];
        int regular = db_column_int(s, 3);
        if (pid != t->npair || round < 0 || round >= TOUR_MAX_ROUNDS * TOUR_MAX_CYCLES ||
            text_ints(db_column_text(s, 2), k, n, mem) || regular < 0) {
            rc = damaged(err, errcap, id, "a pairing is out of order or malformed", pid);
            goto out;
        }
        for (int a = 0; a < k; a++)
            for (int b = 0; b < a; b++)
                if (mem[a] == mem[b]) {
                    rc = damaged(err, errcap, id, "a participant sits twice at a table", pid);
                    goto out;
                }
        if ((rc = tour__add_pairing(t, round, mem, NULL))) {
            rc = eng_seterr(err, errcap, rc, "out of memory");
            goto out;
        }
        t->pair[pid].regular = regular;
    }
    if (step != DB_DONE) {
        rc = fail(st, err, errcap, "reading the pairings");
        goto out;
    }
    db_finalize(s);
    s = NULL;

    /* games */
    if (prepare_for(st,
                    "SELECT id, grp, pairing, status, ref, result FROM tour_games "
                    "WHERE tournament=? ORDER BY id",
                    id, &s) != DB_OK) {
        rc = fail(st, err, errcap, "reading the games");
        goto out;
    }
    int64_t expect = 0;
    while ((step = db_step(s)) == DB_ROW) {
        int64_t gid = db_column_int64(s, 0), grp = db_column_int64(s, 1);
        int64_t pairing = db_column_int64(s, 2);
        const char *status = db_column_text(s, 3);
        const char *ref = db_column_text(s, 4);
        const char *result = db_column_text(s, 5);
        bool first = gid % k == 0;
        if (gid != expect || grp != gid / k || pairing < 0 || pairing >= t->npair ||
            (!first && t->group_pair[grp] != pairing)) {
            rc = damaged(err, errcap, id, "a game is missing, out of order or in no pairing", gid);
            goto out;
        }
        expect++;
        if (first && (rc = tour__add_group(t, pairing, NULL))) {
            rc = eng_seterr(err, errcap, rc, "too many games or out of memory");
            goto out;
        }
        tour_game_status gs = TOUR_PENDING;
        for (int i = 0; i < 4; i++)
            if (status && strcmp(status, tour_game_status_name((tour_game_status)i)) == 0)
                gs = (tour_game_status)i;
        if (!status || strcmp(status, tour_game_status_name(gs)) != 0 ||
            (gs == TOUR_DONE) != (result != NULL) || (ref && strlen(ref) > TOUR_REF_MAX)) {
            rc = damaged(err, errcap, id, "a game has a bad status or result", gid);
            goto out;
        }
        if (gs == TOUR_DONE) {
            tour__res *res = malloc(sizeof *res);
            if (!res || result_parse(t, result, res)) {
                free(res);
                rc = damaged(err, errcap, id, "a result cannot be read", gid);
                goto out;
            }
            t->res[gid] = res;
        }
        if (ref && !(t->ref[gid] = strdup(ref))) {
            rc = eng_seterr(err, errcap, ENG_ENOMEM, "out of memory");
            goto out;
        }
        tour__set_status(t, gid, gs); /* not journaled: every row is new until the reset */
    }
    if (step != DB_DONE) {
        rc = fail(st, err, errcap, "reading the games");
        goto out;
    }
    db_finalize(s);
    s = NULL;
    if (tour__ngames(t) % k) {
        rc = damaged(err, errcap, id, "the last group is incomplete", tour__ngames(t));
        goto out;
    }
    if (t->npair == 0) { /* every format schedules its first games at creation */
        rc = damaged(err, errcap, id, "nothing is scheduled", 0);
        goto out;
    }
    for (int64_t p = 0; p < t->npair; p++)
        if (t->pair[p].ngrp == 0) {
            rc = damaged(err, errcap, id, "a pairing has no games", p);
            goto out;
        }
    t->paused = paused;
    t->cancelled = cancelled;
    t->cursor = 0;

    /* from here on, every change is an update of existing rows */
    tour__journal_reset(t);
    t->store = st;
    t->store_write = store_write;
    t->store_id = id;
    if (mode == TOUR_RESUME_REPLAY)
        for (int64_t g = 0; g < tour__ngames(t); g++)
            if (t->status[g] == TOUR_RUNNING) {
                if ((rc = tour__set_status(t, g, cancelled ? TOUR_VOID : TOUR_PENDING)))
                    goto out;
                free(t->ref[g]);
                t->ref[g] = NULL;
            }
    tour__sprt_rescan(t);
    if ((rc = tour__advance(t))) {
        rc = eng_seterr(err, errcap, rc, "cannot schedule further games");
        goto out;
    }
    t->j_flags = true;
    if (store_write(t)) {
        rc = fail(st, err, errcap, "updating the tournament");
        goto out;
    }
    tour__journal_reset(t);
    *out = t;
    return 0;
out:
    db_finalize(s);
    if (t)
        t->store = NULL;
    tour_destroy(t);
    return rc;
}

/* The format named in a stored spec (canonical JSON), into out ("" when
 * it cannot be read: the list shows what it can). */
static void spec_format(const char *spec, char *out, size_t cap)
{
    json_t *o = spec ? json_loads(spec, 0, NULL) : NULL;
    const char *f = json_string_value(json_object_get(o, "format"));
    snprintf(out, cap, "%s", f ? f : "");
    json_decref(o);
}

int tour_store_list(tour_store *st, tour_store_entry *out, int cap, int *n, char *err,
                    size_t errcap)
{
    *n = 0;
    db_stmt *s = NULL;
    if (cap <= 0)
        return 0;
    if (db_prepare(st->db,
                   "SELECT id, label, spec, status, created, updated FROM tour_tournaments "
                   "ORDER BY id DESC LIMIT ?",
                   &s) != DB_OK ||
        db_bind_int(s, 1, cap) != DB_OK) {
        db_finalize(s);
        return fail(st, err, errcap, "listing tournaments");
    }
    int step = DB_DONE;
    while (*n < cap && (step = db_step(s)) == DB_ROW) {
        tour_store_entry *e = &out[(*n)++];
        memset(e, 0, sizeof *e);
        e->id = db_column_int64(s, 0);
        const char *label = db_column_text(s, 1);
        const char *status = db_column_text(s, 3);
        snprintf(e->label, sizeof e->label, "%s", label ? label : "");
        spec_format(db_column_text(s, 2), e->format, sizeof e->format);
        snprintf(e->status, sizeof e->status, "%s", status ? status : "");
        e->created = db_column_int64(s, 4);
        e->updated = db_column_int64(s, 5);
    }
    if (*n < cap && step != DB_DONE) {
        int rc = fail(st, err, errcap, "listing tournaments");
        db_finalize(s);
        *n = 0;
        return rc;
    }
    db_finalize(s);
    return 0;
}

/* ---- records ------------------------------------------------------------------------------ */

int tour_store_record(tour_store *st, int64_t tournament, int64_t game, char **out, char *err,
                      size_t errcap)
{
    *out = NULL;
    db_stmt *s = NULL;
    if (db_prepare(st->db, "SELECT record FROM tour_records WHERE tournament=? AND game=?", &s) !=
            DB_OK ||
        db_bind_int64(s, 1, tournament) != DB_OK || db_bind_int64(s, 2, game) != DB_OK) {
        db_finalize(s);
        return fail(st, err, errcap, "reading a record");
    }
    int rc = db_step(s), found = 0;
    if (rc == DB_ROW) {
        const char *text = db_column_text(s, 0);
        if (text && !(*out = strdup(text))) {
            db_finalize(s);
            return eng_seterr(err, errcap, ENG_ENOMEM, "out of memory");
        }
        found = text != NULL;
    } else if (rc != DB_DONE) {
        rc = fail(st, err, errcap, "reading a record");
        db_finalize(s);
        return rc;
    }
    db_finalize(s);
    return found;
}
