/*
 * store.c — tournaments in SQLite (see store.h). Three tables:
 *
 *   tour_tournaments(id, label, spec, status, paused, cancelled, created, updated)
 *   tour_pairings(tournament, id, round, members, regular)
 *   tour_games(tournament, id, grp, pairing, round, seats, chance_seed, status, ref, result)
 *   tour_records(tournament, game, record)
 *
 * spec and result are JSON text (the spec in its canonical form, which
 * tour_store_find compares); members and seats are participant indices
 * separated by commas, readable from the sqlite3 shell. A tournament's
 * journal (internal.h) becomes one transaction: the new pairings and games,
 * the games whose status changed, and the tournament row.
 */
#include <jansson.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tournament/internal.h"
#include "tournament/store.h"

struct tour_store {
    sqlite3 *db;
    bool owned; /* opened by tour_store_open */
    sqlite3_stmt *ins_pair, *ins_game, *upd_game, *upd_tour, *ins_record;
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
                      st && st->db ? sqlite3_errmsg(st->db) : "cannot open");
}

static int prepare(tour_store *st, char *err, size_t errcap)
{
    if (sqlite3_exec(st->db, schema, NULL, NULL, NULL) != SQLITE_OK)
        return fail(st, err, errcap, "creating the tables");
    if (sqlite3_prepare_v3(st->db,
                           "INSERT INTO tour_pairings(tournament,id,round,members,regular) "
                           "VALUES(?,?,?,?,?)",
                           -1, SQLITE_PREPARE_PERSISTENT, &st->ins_pair, NULL) ||
        sqlite3_prepare_v3(st->db,
                           "INSERT INTO tour_games(tournament,id,grp,pairing,round,seats,"
                           "chance_seed,status,ref,result) VALUES(?,?,?,?,?,?,?,?,?,?)",
                           -1, SQLITE_PREPARE_PERSISTENT, &st->ins_game, NULL) ||
        sqlite3_prepare_v3(st->db,
                           "UPDATE tour_games SET status=?, ref=?, result=? "
                           "WHERE tournament=? AND id=?",
                           -1, SQLITE_PREPARE_PERSISTENT, &st->upd_game, NULL) ||
        sqlite3_prepare_v3(st->db,
                           "UPDATE tour_tournaments SET status=?, paused=?, cancelled=?, "
                           "updated=? WHERE id=?",
                           -1, SQLITE_PREPARE_PERSISTENT, &st->upd_tour, NULL) ||
        sqlite3_prepare_v3(st->db,
                           "INSERT OR REPLACE INTO tour_records(tournament,game,record) "
                           "VALUES(?,?,?)",
                           -1, SQLITE_PREPARE_PERSISTENT, &st->ins_record, NULL))
        return fail(st, err, errcap, "preparing statements");
    return 0;
}

static int store_new(sqlite3 *db, bool owned, tour_store **out, char *err, size_t errcap)
{
    tour_store *st = calloc(1, sizeof *st);
    if (!st) {
        if (owned)
            sqlite3_close_v2(db);
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

int tour_store_open(const char *path, tour_store **out, char *err, size_t errcap)
{
    *out = NULL;
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
        int rc = eng_seterr(err, errcap, ENG_ESTORAGE, "cannot open the database %s: %s", path,
                            db ? sqlite3_errmsg(db) : "out of memory");
        sqlite3_close_v2(db);
        return rc;
    }
    sqlite3_busy_timeout(db, 5000);
    if (sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;", NULL, NULL, NULL) !=
        SQLITE_OK) {
        int rc = eng_seterr(err, errcap, ENG_ESTORAGE, "database %s: %s", path, sqlite3_errmsg(db));
        sqlite3_close_v2(db);
        return rc;
    }
    return store_new(db, true, out, err, errcap);
}

int tour_store_attach(sqlite3 *db, tour_store **out, char *err, size_t errcap)
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
    sqlite3_finalize(st->ins_pair);
    sqlite3_finalize(st->ins_game);
    sqlite3_finalize(st->upd_game);
    sqlite3_finalize(st->upd_tour);
    sqlite3_finalize(st->ins_record);
    if (st->owned)
        sqlite3_close_v2(st->db);
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

static int bind_game_state(sqlite3_stmt *s, int col, const tour *t, int64_t id)
{
    int rc = sqlite3_bind_text(s, col, tour_game_status_name((tour_game_status)t->status[id]), -1,
                               SQLITE_STATIC);
    if (!rc)
        rc = t->ref[id] ? sqlite3_bind_text(s, col + 1, t->ref[id], -1, SQLITE_TRANSIENT)
                        : sqlite3_bind_null(s, col + 1);
    if (!rc) {
        if (t->res[id]) {
            char *text = result_text(t, t->res[id]);
            if (!text)
                return SQLITE_NOMEM;
            rc = sqlite3_bind_text(s, col + 2, text, -1, free);
        } else {
            rc = sqlite3_bind_null(s, col + 2);
        }
    }
    return rc;
}

static int step_reset(sqlite3_stmt *s)
{
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* The journal's rows, inside the caller's transaction; an SQLite code. */
static int write_journal(tour *t)
{
    tour_store *st = t->store;
    int rc = SQLITE_OK, k = t->k;
    for (int64_t p = t->j_pair; p < t->npair && rc == SQLITE_OK; p++) {
        const tour__pairing *pr = &t->pair[p];
        int mem[ENG_MAX_PLAYERS];
        char buf[64];
        for (int b = 0; b < k; b++)
            mem[b] = pr->member[b];
        ints_text(mem, k, buf, sizeof buf);
        sqlite3_stmt *s = st->ins_pair;
        if (!(rc = sqlite3_bind_int64(s, 1, t->store_id)) && !(rc = sqlite3_bind_int64(s, 2, p)) &&
            !(rc = sqlite3_bind_int(s, 3, pr->round)) &&
            !(rc = sqlite3_bind_text(s, 4, buf, -1, SQLITE_TRANSIENT)) &&
            !(rc = sqlite3_bind_int(s, 5, pr->regular)))
            rc = step_reset(s);
        else
            sqlite3_reset(s);
    }
    for (int64_t id = t->j_group * k; id < tour__ngames(t) && rc == SQLITE_OK; id++) {
        int64_t g = id / k, p = t->group_pair[g];
        int seats[ENG_MAX_PLAYERS];
        char buf[64];
        for (int s = 0; s < k; s++)
            seats[s] = tour__seat_participant(t, id, s);
        ints_text(seats, k, buf, sizeof buf);
        sqlite3_stmt *s = st->ins_game;
        if (!(rc = sqlite3_bind_int64(s, 1, t->store_id)) && !(rc = sqlite3_bind_int64(s, 2, id)) &&
            !(rc = sqlite3_bind_int64(s, 3, g)) && !(rc = sqlite3_bind_int64(s, 4, p)) &&
            !(rc = sqlite3_bind_int(s, 5, t->pair[p].round)) &&
            !(rc = sqlite3_bind_text(s, 6, buf, -1, SQLITE_TRANSIENT)) &&
            !(rc = sqlite3_bind_int64(s, 7, (sqlite3_int64)tour__chance_seed(t, g))) &&
            !(rc = bind_game_state(s, 8, t, id)))
            rc = step_reset(s);
        else
            sqlite3_reset(s);
    }
    for (int64_t i = 0; i < t->nj_games && rc == SQLITE_OK; i++) {
        int64_t id = t->j_games[i];
        sqlite3_stmt *s = st->upd_game;
        if (!(rc = bind_game_state(s, 1, t, id)) && !(rc = sqlite3_bind_int64(s, 4, t->store_id)) &&
            !(rc = sqlite3_bind_int64(s, 5, id)))
            rc = step_reset(s);
        else
            sqlite3_reset(s);
    }
    if (rc == SQLITE_OK && t->j_record) {
        sqlite3_stmt *s = st->ins_record;
        if (!(rc = sqlite3_bind_int64(s, 1, t->store_id)) &&
            !(rc = sqlite3_bind_int64(s, 2, t->j_record_game)) &&
            !(rc = sqlite3_bind_text(s, 3, t->j_record, -1, SQLITE_STATIC)))
            rc = step_reset(s);
        else
            sqlite3_reset(s);
    }
    if (rc == SQLITE_OK) {
        sqlite3_stmt *s = st->upd_tour;
        if (!(rc = sqlite3_bind_text(s, 1, tour_status_text(t), -1, SQLITE_STATIC)) &&
            !(rc = sqlite3_bind_int(s, 2, t->paused)) &&
            !(rc = sqlite3_bind_int(s, 3, t->cancelled)) &&
            !(rc = sqlite3_bind_int64(s, 4, (sqlite3_int64)time(NULL))) &&
            !(rc = sqlite3_bind_int64(s, 5, t->store_id)))
            rc = step_reset(s);
        else
            sqlite3_reset(s);
    }
    return rc;
}

/* One transaction (a savepoint when the caller's connection is already in
 * one): BEGIN IMMEDIATE takes the write lock up front, so a busy database
 * waits in the busy handler instead of failing half-way. */
static bool tx_begin(sqlite3 *db, bool *outer)
{
    *outer = sqlite3_get_autocommit(db) != 0;
    return sqlite3_exec(db, *outer ? "BEGIN IMMEDIATE" : "SAVEPOINT tour_write", NULL, NULL,
                        NULL) == SQLITE_OK;
}

static int tx_end(sqlite3 *db, bool outer, int rc)
{
    if (rc == SQLITE_OK &&
        sqlite3_exec(db, outer ? "COMMIT" : "RELEASE tour_write", NULL, NULL, NULL) == SQLITE_OK)
        return 0;
    if (outer)
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    else
        sqlite3_exec(db, "ROLLBACK TO tour_write; RELEASE tour_write", NULL, NULL, NULL);
    return ENG_ESTORAGE;
}

int tour__store_write(tour *t)
{
    bool outer;
    if (!tx_begin(t->store->db, &outer))
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
    if (!tx_begin(st->db, &outer)) {
        free(text);
        return fail(st, err, errcap, "saving the tournament");
    }
    /* the tournament row and its whole schedule in one transaction: a kill
     * leaves either both or neither */
    sqlite3_stmt *s = NULL;
    int64_t now = (int64_t)time(NULL);
    int rc = sqlite3_prepare_v2(st->db,
                                "INSERT INTO tour_tournaments(label,spec,status,paused,cancelled,"
                                "created,updated) VALUES(?,?,'running',0,0,?,?)",
                                -1, &s, NULL);
    if (rc == SQLITE_OK) {
        if (t->spec->label)
            sqlite3_bind_text(s, 1, t->spec->label, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(s, 2, text, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(s, 3, now);
        sqlite3_bind_int64(s, 4, now);
        rc = sqlite3_step(s) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
    }
    sqlite3_finalize(s);
    free(text);
    if (rc == SQLITE_OK) {
        t->store = st;
        t->store_id = sqlite3_last_insert_rowid(st->db);
        /* everything scheduled so far is new to the database */
        t->j_pair = 0;
        t->j_group = 0;
        t->nj_games = 0;
        t->j_flags = true;
        rc = write_journal(t);
    }
    char why[200];
    snprintf(why, sizeof why, "%s", sqlite3_errmsg(st->db));
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
    sqlite3_stmt *s = NULL;
    int found = 0;
    if (sqlite3_prepare_v2(st->db,
                           "SELECT id FROM tour_tournaments WHERE spec=? ORDER BY id DESC LIMIT 1",
                           -1, &s, NULL) != SQLITE_OK) {
        free(text);
        return fail(st, err, errcap, "looking up the tournament");
    }
    sqlite3_bind_text(s, 1, text, -1, SQLITE_TRANSIENT);
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        *id = sqlite3_column_int64(s, 0);
        found = 1;
    } else if (rc != SQLITE_DONE) {
        found = fail(st, err, errcap, "looking up the tournament");
    }
    sqlite3_finalize(s);
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

int tour_store_load(tour_store *st, int64_t id, tour_resume_mode mode, tour **out, char *err,
                    size_t errcap)
{
    *out = NULL;
    sqlite3_stmt *s = NULL;
    tour *t = NULL;
    tour_spec *spec = NULL;
    int rc = 0;
    if (sqlite3_prepare_v2(st->db,
                           "SELECT spec, paused, cancelled FROM tour_tournaments WHERE id=?", -1,
                           &s, NULL) != SQLITE_OK)
        return fail(st, err, errcap, "reading the tournament");
    sqlite3_bind_int64(s, 1, id);
    int step = sqlite3_step(s);
    if (step != SQLITE_ROW) {
        sqlite3_finalize(s);
        if (step == SQLITE_DONE)
            return eng_seterr(err, errcap, ENG_EINVAL, "no tournament %lld in the database",
                              (long long)id);
        return fail(st, err, errcap, "reading the tournament");
    }
    const char *text = (const char *)sqlite3_column_text(s, 0);
    bool paused = sqlite3_column_int(s, 1) != 0, cancelled = sqlite3_column_int(s, 2) != 0;
    json_error_t je;
    json_t *o = text ? json_loads(text, JSON_REJECT_DUPLICATES, &je) : NULL;
    sqlite3_finalize(s);
    s = NULL;
    char why[256];
    spec = o ? tour_spec_from_json(o, why, sizeof why) : NULL;
    json_decref(o);
    if (!spec)
        return eng_seterr(err, errcap, ENG_ESTORAGE,
                          "tournament %lld in the database has an unreadable spec: %s",
                          (long long)id, text ? why : "missing");
    rc = tour__alloc(spec, &t, err, errcap);
    tour_spec_free(spec);
    if (rc)
        return rc;
    int k = t->k, n = t->n;

    /* pairings */
    if (sqlite3_prepare_v2(st->db,
                           "SELECT id, round, members, regular FROM tour_pairings "
                           "WHERE tournament=? ORDER BY id",
                           -1, &s, NULL) != SQLITE_OK) {
        rc = fail(st, err, errcap, "reading the pairings");
        goto out;
    }
    sqlite3_bind_int64(s, 1, id);
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        int64_t pid = sqlite3_column_int64(s, 0);
        int round = sqlite3_column_int(s, 1), mem[ENG_MAX_PLAYERS];
        int regular = sqlite3_column_int(s, 3);
        if (pid != t->npair || round < 0 || round >= TOUR_MAX_ROUNDS * TOUR_MAX_CYCLES ||
            text_ints((const char *)sqlite3_column_text(s, 2), k, n, mem) || regular < 0) {
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
    if (step != SQLITE_DONE) {
        rc = fail(st, err, errcap, "reading the pairings");
        goto out;
    }
    sqlite3_finalize(s);
    s = NULL;

    /* games */
    if (sqlite3_prepare_v2(st->db,
                           "SELECT id, grp, pairing, status, ref, result FROM tour_games "
                           "WHERE tournament=? ORDER BY id",
                           -1, &s, NULL) != SQLITE_OK) {
        rc = fail(st, err, errcap, "reading the games");
        goto out;
    }
    sqlite3_bind_int64(s, 1, id);
    int64_t expect = 0;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        int64_t gid = sqlite3_column_int64(s, 0), grp = sqlite3_column_int64(s, 1);
        int64_t pairing = sqlite3_column_int64(s, 2);
        const char *status = (const char *)sqlite3_column_text(s, 3);
        const char *ref = (const char *)sqlite3_column_text(s, 4);
        const char *result = (const char *)sqlite3_column_text(s, 5);
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
    if (step != SQLITE_DONE) {
        rc = fail(st, err, errcap, "reading the games");
        goto out;
    }
    sqlite3_finalize(s);
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
    if (tour__store_write(t)) {
        rc = fail(st, err, errcap, "updating the tournament");
        goto out;
    }
    tour__journal_reset(t);
    *out = t;
    return 0;
out:
    sqlite3_finalize(s);
    if (t)
        t->store = NULL;
    tour_destroy(t);
    return rc;
}

int tour_store_list(tour_store *st, tour_store_entry *out, int cap, int *n, char *err,
                    size_t errcap)
{
    *n = 0;
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(st->db,
                           "SELECT id, label, json_extract(spec,'$.format'), status, created, "
                           "updated FROM tour_tournaments ORDER BY id DESC",
                           -1, &s, NULL) != SQLITE_OK)
        return fail(st, err, errcap, "listing tournaments");
    int step;
    while (*n < cap && (step = sqlite3_step(s)) == SQLITE_ROW) {
        tour_store_entry *e = &out[(*n)++];
        memset(e, 0, sizeof *e);
        e->id = sqlite3_column_int64(s, 0);
        const char *label = (const char *)sqlite3_column_text(s, 1);
        const char *fmt = (const char *)sqlite3_column_text(s, 2);
        const char *status = (const char *)sqlite3_column_text(s, 3);
        snprintf(e->label, sizeof e->label, "%s", label ? label : "");
        snprintf(e->format, sizeof e->format, "%s", fmt ? fmt : "");
        snprintf(e->status, sizeof e->status, "%s", status ? status : "");
        e->created = sqlite3_column_int64(s, 4);
        e->updated = sqlite3_column_int64(s, 5);
    }
    sqlite3_finalize(s);
    return 0;
}

/* ---- records ------------------------------------------------------------------------------ */

int tour_store_record(tour_store *st, int64_t tournament, int64_t game, char **out, char *err,
                      size_t errcap)
{
    *out = NULL;
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(st->db, "SELECT record FROM tour_records WHERE tournament=? AND game=?",
                           -1, &s, NULL) != SQLITE_OK)
        return fail(st, err, errcap, "reading a record");
    sqlite3_bind_int64(s, 1, tournament);
    sqlite3_bind_int64(s, 2, game);
    int rc = sqlite3_step(s), found = 0;
    if (rc == SQLITE_ROW) {
        const unsigned char *text = sqlite3_column_text(s, 0);
        if (text && !(*out = strdup((const char *)text))) {
            sqlite3_finalize(s);
            return eng_seterr(err, errcap, ENG_ENOMEM, "out of memory");
        }
        found = text != NULL;
    } else if (rc != SQLITE_DONE) {
        rc = fail(st, err, errcap, "reading a record");
        sqlite3_finalize(s);
        return rc;
    }
    sqlite3_finalize(s);
    return found;
}
