/*
 * store.c — the class_ tables (classroom.h, "store"): their schema, the
 * courses and the roster, and the grade CSV. The submissions and their
 * results are store_work.c's, the pages' reads store_views.c's: the three
 * hold every SQL statement of the classroom.
 *
 *   class_courses      a course: game, rules, time control, ladder, policies,
 *                      deadline, when it froze, the final's state
 *   class_students     the roster, each with the SHA-256 of its token
 *   class_submissions  every submission: version, kind, files' directory,
 *                      size, hash, time, its gate state and verdict, frozen
 *   class_gates        a submission's verdict at each gate it played
 *   class_games        every game played for a course (gates and final), with
 *                      the students in its seats, stderr and record
 *   class_final        the final's standings: place, rating with interval
 *   class_final_pairs  a round-robin final's pairs, claimed by the servers
 *                      of a cluster (finals.c, which holds their SQL)
 *
 * Remote bots (kind "remote") have no files: `main` holds the name the
 * server registered for them, and `tour` the server tournament playing
 * their current gate.
 *
 * The SQL is storage/db.h's common subset, so the tables live on SQLite or
 * PostgreSQL alike: ids are identity columns there (never given by the
 * caller), and what the engines do differently is done here in C (the
 * number of a ladder's gates, counted from its JSON) or asked of each
 * engine in its own words (whether a column exists).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classroom/internal.h"
#include "engine/errors.h"
#include "protocol/wire.h"

static const char schema[] =
    "CREATE TABLE IF NOT EXISTS class_courses("
    " id INTEGER PRIMARY KEY, name TEXT NOT NULL, game TEXT NOT NULL, rules TEXT NOT NULL,"
    " move_ms INTEGER NOT NULL, gates TEXT NOT NULL, qualify INTEGER NOT NULL,"
    " seed INTEGER NOT NULL, final_games INTEGER NOT NULL, deadline_ms INTEGER NOT NULL,"
    " frozen_ms INTEGER NOT NULL DEFAULT 0, final_state TEXT NOT NULL DEFAULT 'none',"
    " final_note TEXT NOT NULL DEFAULT '', created_ms INTEGER NOT NULL);"
    "CREATE TABLE IF NOT EXISTS class_students("
    " id INTEGER PRIMARY KEY, course INTEGER NOT NULL, row INTEGER NOT NULL,"
    " sid TEXT NOT NULL, name TEXT NOT NULL, email TEXT NOT NULL,"
    " token_hash TEXT NOT NULL UNIQUE, UNIQUE(course, sid));"
    "CREATE TABLE IF NOT EXISTS class_submissions("
    " id INTEGER PRIMARY KEY, course INTEGER NOT NULL, student INTEGER NOT NULL,"
    " version INTEGER NOT NULL, kind TEXT NOT NULL, main TEXT NOT NULL, files TEXT NOT NULL,"
    " dir TEXT NOT NULL, bytes INTEGER NOT NULL, sha256 TEXT NOT NULL,"
    " created_ms INTEGER NOT NULL, state TEXT NOT NULL DEFAULT 'queued',"
    " gates_passed INTEGER NOT NULL DEFAULT 0, qualified INTEGER NOT NULL DEFAULT 0,"
    " verdict TEXT NOT NULL DEFAULT '', frozen INTEGER NOT NULL DEFAULT 0,"
    " UNIQUE(student, version));"
    /* the submissions' files, also kept in the database: a server that runs
     * a submission whose folder another server wrote makes it again from
     * these (several servers on one database: docs/scaling.md) */
    "CREATE TABLE IF NOT EXISTS class_files("
    " submission INTEGER NOT NULL, name TEXT NOT NULL, data BLOB NOT NULL,"
    " PRIMARY KEY(submission, name));"
    "CREATE TABLE IF NOT EXISTS class_gates("
    " submission INTEGER NOT NULL, gate INTEGER NOT NULL, opponent TEXT NOT NULL,"
    " games INTEGER NOT NULL, wins INTEGER NOT NULL, losses INTEGER NOT NULL,"
    " draws INTEGER NOT NULL, points REAL NOT NULL, rate REAL NOT NULL, min_rate REAL NOT NULL,"
    " passed INTEGER NOT NULL, faults INTEGER NOT NULL, verdict TEXT NOT NULL,"
    " ms_per_move REAL NOT NULL DEFAULT 0,"
    " PRIMARY KEY(submission, gate));"
    "CREATE TABLE IF NOT EXISTS class_games("
    " id INTEGER PRIMARY KEY, course INTEGER NOT NULL, stage TEXT NOT NULL,"
    " submission INTEGER, gate INTEGER NOT NULL, idx INTEGER NOT NULL,"
    " s0 INTEGER, s1 INTEGER, names TEXT NOT NULL, scores TEXT NOT NULL, ranks TEXT NOT NULL,"
    " end_reason TEXT NOT NULL, culprit INTEGER NOT NULL, verdict TEXT NOT NULL,"
    " think_ms TEXT NOT NULL, moves TEXT NOT NULL, stderr TEXT NOT NULL, record TEXT NOT NULL);"
    "CREATE INDEX IF NOT EXISTS class_games_sub ON class_games(submission, gate);"
    "CREATE INDEX IF NOT EXISTS class_games_course ON class_games(course, stage);"
    "CREATE TABLE IF NOT EXISTS class_final("
    " course INTEGER NOT NULL, student INTEGER NOT NULL, submission INTEGER NOT NULL,"
    " place INTEGER NOT NULL, games INTEGER NOT NULL, wins INTEGER NOT NULL,"
    " losses INTEGER NOT NULL, draws INTEGER NOT NULL, points REAL NOT NULL, rate REAL NOT NULL,"
    " elo REAL NOT NULL, elo_lo REAL NOT NULL, elo_hi REAL NOT NULL,"
    " ms_per_move REAL NOT NULL DEFAULT 0, faults INTEGER NOT NULL DEFAULT 0,"
    " PRIMARY KEY(course, student));"
    /* a round-robin final split among the servers of a cluster (finals.c):
     * one row per pair of finalists, claimed like a ladder */
    "CREATE TABLE IF NOT EXISTS class_final_pairs("
    " id INTEGER PRIMARY KEY, course INTEGER NOT NULL, pairno INTEGER NOT NULL,"
    " a INTEGER NOT NULL, b INTEGER NOT NULL, sub_a INTEGER NOT NULL, sub_b INTEGER NOT NULL,"
    " games INTEGER NOT NULL, state TEXT NOT NULL DEFAULT 'queued',"
    " worker TEXT NOT NULL DEFAULT '', claim_ms INTEGER NOT NULL DEFAULT 0,"
    " run INTEGER NOT NULL DEFAULT 0, UNIQUE(course, pairno));";

/* Columns added after the first release, to databases made before them:
 * remote bots (a course's wait for one, the server tournament playing a
 * remote submission's gate or a final with remote bots), and what an
 * instructor may undo (issue 25). */
static const char *const added[][3] = {
    {"class_courses", "remote_wait_ms", "INTEGER NOT NULL DEFAULT 86400000"},
    {"class_courses", "final_tour", "INTEGER NOT NULL DEFAULT 0"},
    {"class_submissions", "tour", "INTEGER NOT NULL DEFAULT 0"},
    /* issue 25: a gate whose opponent faulted */
    {"class_gates", "broken", "INTEGER NOT NULL DEFAULT 0"},
    {"class_courses", "archived", "INTEGER NOT NULL DEFAULT 0"},
    {"class_students", "deadline_ms", "INTEGER NOT NULL DEFAULT 0"},
    {"class_submissions", "run", "INTEGER NOT NULL DEFAULT 0"},
    /* the final's tiebreaks, each named */
    {"class_final", "format", "TEXT NOT NULL DEFAULT 'round-robin'"},
    {"class_final", "league_points", "INTEGER NOT NULL DEFAULT 0"},
    {"class_final", "score_diff", "REAL NOT NULL DEFAULT 0"},
    /* the largest submission the instructor allows (issue 25: uploads) */
    {"class_courses", "max_upload", "INTEGER NOT NULL DEFAULT 4194304"},
    {"class_final", "swiss_points", "REAL NOT NULL DEFAULT 0"},
    {"class_final", "buchholz", "REAL NOT NULL DEFAULT 0"},
    {"class_final", "ko_reached", "INTEGER NOT NULL DEFAULT 0"},
    {"class_final", "roster", "INTEGER NOT NULL DEFAULT 0"},
    {"class_final", "decided_by", "TEXT NOT NULL DEFAULT ''"},
    /* near-identical submissions flagged to the instructor (class_shape_hash) */
    {"class_submissions", "shape", "TEXT NOT NULL DEFAULT ''"},
    /* each seat's fault bundle (docs/bundles.md): [null or the bundle, ...] */
    {"class_games", "bundles", "TEXT NOT NULL DEFAULT '[]'"},
    /* fair start-up: the submission's start-up measured in a gate (-1: none) */
    {"class_gates", "startup_ms", "REAL NOT NULL DEFAULT -1"},
    /* several servers: which server's worker plays a ladder, and when it
     * last said so (class__claim) */
    {"class_submissions", "worker", "TEXT NOT NULL DEFAULT ''"},
    {"class_submissions", "claim_ms", "INTEGER NOT NULL DEFAULT 0"},
    /* the live scrimmage ladder (issue 25): the course's setting, and each seat's
     * submission of a game (0: a gate's opponent), which its ratings are fitted on */
    {"class_courses", "scrimmage", "TEXT NOT NULL DEFAULT 'off'"},
    {"class_games", "sub0", "INTEGER NOT NULL DEFAULT 0"},
    {"class_games", "sub1", "INTEGER NOT NULL DEFAULT 0"},
    /* uploads of the student refused at their check or build (a compile error): the
     * grades tell a student who tried and never got one in from one who never tried */
    {"class_students", "refused", "INTEGER NOT NULL DEFAULT 0"},
};

/* Does `table` have `column`? SQLite: its table_info; PostgreSQL: the
 * information schema of the connection's current schema. */
static bool has_column(db_conn *db, const char *table, const char *column)
{
    const char *sql = db_engine_of(db) == DB_POSTGRES
                          ? "SELECT 1 FROM information_schema.columns WHERE table_schema ="
                            " current_schema() AND table_name = ? AND column_name = ?"
                          : "SELECT 1 FROM pragma_table_info(?) WHERE name = ?";
    db_stmt *st = NULL;
    bool found = false;
    if (db_prepare(db, sql, &st) == DB_OK) {
        db_bind_text(st, 1, table, -1);
        db_bind_text(st, 2, column, -1);
        found = db_step(st) == DB_ROW;
    }
    db_finalize(st);
    return found;
}

/* The schema and its added columns, with the schema lock held. */
static int store_init_locked(db_conn *db, char *err, size_t errcap)
{
    if (db_exec(db, schema) != DB_OK) {
        snprintf(err, errcap, "the classroom tables could not be created: %s", db_errmsg(db));
        return ENG_ESTORAGE;
    }
    for (size_t i = 0; i < sizeof added / sizeof added[0]; i++) {
        if (has_column(db, added[i][0], added[i][1]))
            continue;
        char sql[256];
        snprintf(sql, sizeof sql, "ALTER TABLE %s ADD COLUMN %s %s", added[i][0], added[i][1],
                 added[i][2]);
        if (db_exec(db, sql) != DB_OK) {
            snprintf(err, errcap, "the classroom tables could not be extended: %s", db_errmsg(db));
            return ENG_ESTORAGE;
        }
    }
    return 0;
}

int class_store_init(db_conn *db, char *err, size_t errcap)
{
    /* servers sharing one PostgreSQL database may start together: one at a
     * time creates or extends the tables */
    if (db_schema_lock(db) != DB_OK) {
        snprintf(err, errcap, "the classroom tables could not be created: %s", db_errmsg(db));
        return ENG_ESTORAGE;
    }
    int rc = store_init_locked(db, err, errcap);
    db_schema_unlock(db);
    return rc;
}

bool class_csv_field(char **buf, size_t *len, size_t *cap, const char *field)
{
    size_t n = strlen(field);
    bool quote =
        strpbrk(field, ",\"\r\n") != NULL || (n && (field[0] == ' ' || field[n - 1] == ' '));
    /* a leading = + - @ would be a formula in a spreadsheet: quote it with a ' */
    bool formula = n && strchr("=+-@", field[0]) &&
                   !(field[0] == '-' && n > 1 && (field[1] >= '0' && field[1] <= '9'));
    size_t need = *len + 2 * n + 4;
    if (need > *cap) {
        size_t nc = *cap ? *cap : 256;
        while (nc < need)
            nc *= 2;
        char *nb = realloc(*buf, nc);
        if (!nb)
            return false;
        *buf = nb;
        *cap = nc;
    }
    char *o = *buf + *len;
    if (quote)
        *o++ = '"';
    if (formula)
        *o++ = '\'';
    for (size_t i = 0; i < n; i++) {
        if (field[i] == '"')
            *o++ = '"';
        *o++ = field[i];
    }
    if (quote)
        *o++ = '"';
    *len = (size_t)(o - *buf);
    (*buf)[*len] = '\0';
    return true;
}

bool class_csv_text(char **b, size_t *l, size_t *c, const char *s)
{
    size_t n = strlen(s);
    if (*l + n + 1 > *c) {
        size_t nc = *c ? *c : 256;
        while (nc < *l + n + 1)
            nc *= 2;
        char *nb = realloc(*b, nc);
        if (!nb)
            return false;
        *b = nb;
        *c = nc;
    }
    memcpy(*b + *l, s, n + 1);
    *l += n;
    return true;
}

/* The number of gates of a course's ladder (0 when it has none or no such
 * course), or -1 when the database fails. Counted here, not in SQL: the
 * engines' JSON functions differ (SQLite's json_array_length on text,
 * PostgreSQL's on json). */
static int gates_total(db_conn *db, int64_t course)
{
    db_stmt *st = NULL;
    if (db_prepare(db, "SELECT gates FROM class_courses WHERE id = ?", &st) != DB_OK)
        return -1;
    db_bind_int64(st, 1, course);
    int n = 0, rc = db_step(st);
    if (rc == DB_ROW) {
        const char *t = db_column_text(st, 0);
        json_t *gates = t ? json_loads(t, 0, NULL) : NULL;
        n = (int)json_array_size(gates);
        json_decref(gates);
    } else if (rc != DB_DONE) {
        n = -1;
    }
    db_finalize(st);
    return n;
}

/* A student's standing in words, for the grades: in the final, or why not. */
static const char *grade_status(db_stmt *st)
{
    if (!db_column_null(st, 3))
        return "finalist";
    if (db_column_int(st, 10) > 0)
        return "qualified"; /* the final is not played yet */
    if (db_column_int(st, 11) > 0)
        return "in_gates";
    if (db_column_int(st, 12) > 0)
        return "not_judged"; /* stopped at a broken gate */
    if (db_column_int(st, 9) > 0)
        return "not_qualified";
    return db_column_int(st, 21) > 0 ? "refused" : "no_show"; /* every upload refused */
}

char *class_grades_csv(db_conn *db, int64_t course)
{
    static const char q[] =
        "SELECT s.sid, s.name, s.email, f.place, "
        " COALESCE(fs.gates_passed, (SELECT x.gates_passed FROM class_submissions x"
        "   WHERE x.student = s.id AND x.state = 'done' ORDER BY x.version DESC LIMIT 1), 0),"
        " f.elo, f.elo_lo, f.elo_hi, fs.version,"
        " (SELECT COUNT(*) FROM class_submissions x WHERE x.student = s.id),"
        " (SELECT COUNT(*) FROM class_submissions x WHERE x.student = s.id AND x.qualified = 1),"
        " (SELECT COUNT(*) FROM class_submissions x WHERE x.student = s.id AND"
        "   x.state NOT IN ('done', 'not_judged')),"
        " (SELECT COUNT(*) FROM class_submissions x WHERE x.student = s.id AND"
        "   x.state = 'not_judged'),"
        " f.rate, f.league_points, f.score_diff, f.swiss_points, f.buchholz, f.ko_reached,"
        " f.decided_by, f.format, s.refused"
        " FROM class_students s"
        " LEFT JOIN class_submissions fs ON fs.student = s.id AND fs.frozen = 1"
        " LEFT JOIN class_final f ON f.course = s.course AND f.student = s.id"
        " WHERE s.course = ? ORDER BY s.row, s.id";
    int total = gates_total(db, course);
    db_stmt *st = NULL;
    if (total < 0 || db_prepare(db, q, &st) != DB_OK)
        return NULL;
    db_bind_int64(st, 1, course);
    char *b = NULL;
    size_t l = 0, c = 0;
    bool ok = class_csv_text(&b, &l, &c,
                             "student_id,name,email,status,final_rank,decided_by,rate,"
                             "league_points,score_diff,swiss_points,buchholz,round_reached,"
                             "gates_passed,gates_total,rating,rating_low,rating_high,submission\n");
    int rc = DB_DONE;
    while (ok && (rc = db_step(st)) == DB_ROW) {
        char num[160];
        for (int i = 0; i < 3 && ok; i++) {
            const char *t = db_column_text(st, i);
            ok = class_csv_field(&b, &l, &c, t ? t : "") && class_csv_text(&b, &l, &c, ",");
        }
        bool final = !db_column_null(st, 3);
        snprintf(num, sizeof num, "%s,", grade_status(st));
        ok = ok && class_csv_text(&b, &l, &c, num);
        if (final) {
            /* every tiebreak of the final's order, named: those of its format */
            const char *fmt = db_column_text(st, 20);
            bool rr = !fmt || strcmp(fmt, "round-robin") == 0, sw = fmt && !strcmp(fmt, "swiss"),
                 ko = fmt && !strcmp(fmt, "knockout");
            const char *by = db_column_text(st, 19);
            snprintf(num, sizeof num, "%d,", db_column_int(st, 3));
            ok = ok && class_csv_text(&b, &l, &c, num) &&
                 class_csv_field(&b, &l, &c, by ? by : "") && class_csv_text(&b, &l, &c, ",");
            char lp[24] = "", sd[24] = "", spt[24] = "", bu[24] = "", rr_[24] = "";
            if (rr) {
                snprintf(lp, sizeof lp, "%d", db_column_int(st, 14));
                snprintf(sd, sizeof sd, "%.3f", db_column_double(st, 15));
            }
            if (sw) {
                snprintf(spt, sizeof spt, "%.1f", db_column_double(st, 16));
                snprintf(bu, sizeof bu, "%.1f", db_column_double(st, 17));
            }
            if (ko)
                snprintf(rr_, sizeof rr_, "%d", db_column_int(st, 18));
            snprintf(num, sizeof num, "%.3f,%s,%s,%s,%s,%s,", db_column_double(st, 13), lp, sd, spt,
                     bu, rr_);
        } else {
            snprintf(num, sizeof num, ",,,,,,,,");
        }
        ok = ok && class_csv_text(&b, &l, &c, num);
        snprintf(num, sizeof num, "%d,%d,", db_column_int(st, 4), total);
        ok = ok && class_csv_text(&b, &l, &c, num);
        if (final)
            snprintf(num, sizeof num, "%.1f,%.1f,%.1f,", db_column_double(st, 5),
                     db_column_double(st, 6), db_column_double(st, 7));
        else
            snprintf(num, sizeof num, ",,,");
        ok = ok && class_csv_text(&b, &l, &c, num);
        if (!db_column_null(st, 8))
            snprintf(num, sizeof num, "%d\n", db_column_int(st, 8));
        else
            snprintf(num, sizeof num, "\n");
        ok = ok && class_csv_text(&b, &l, &c, num);
    }
    if (ok && rc != DB_DONE)
        ok = false;
    db_finalize(st);
    if (!ok) {
        free(b);
        return NULL;
    }
    return b;
}

/* ---- helpers (the service's loop, its database) ------------------------------------------------
 */

/* The host's database (SQLite or PostgreSQL, storage/db.h): the SQL here
 * is the subset both engines accept. Several servers may share one
 * PostgreSQL database, so ids and version numbers are the database's, never
 * computed here, and a failure inside a transaction is rolled back (on
 * PostgreSQL it has aborted the transaction). */
bool class__exec(class_service *svc, const char *sql)
{
    if (db_exec(svc->db, sql) == DB_OK)
        return true;
    class__log(svc, CLASS_LOG_ERROR, "courses_sql", "{s:s, s:s}", "sql", sql, "error",
               db_errmsg(svc->db));
    return false;
}

db_stmt *class__prep(class_service *svc, const char *sql)
{
    db_stmt *st = NULL;
    if (db_prepare(svc->db, sql, &st) != DB_OK) {
        class__log(svc, CLASS_LOG_ERROR, "courses_sql", "{s:s, s:s}", "sql", sql, "error",
                   db_errmsg(svc->db));
        return NULL;
    }
    return st;
}

/* db_step, a failure logged (PostgreSQL reports a statement's errors when
 * it runs, not when it is prepared). A refused key is the caller's to
 * report: it may be expected (a student id already on the roster). */
int class__step(class_service *svc, db_stmt *st)
{
    int rc = db_step(st);
    if (rc < 0 && rc != DB_ECONSTRAINT)
        class__log(svc, CLASS_LOG_ERROR, "courses_sql", "{s:s, s:i}", "error", db_errmsg(svc->db),
                   "code", rc);
    return rc;
}

bool class__begin(class_service *svc)
{
    return class__exec(svc, "BEGIN IMMEDIATE");
}

static void rollback(class_service *svc)
{
    if (db_in_transaction(svc->db))
        class__exec(svc, "ROLLBACK");
}

/* On PostgreSQL a COMMIT after a failed statement rolls back without an
 * error: ok says whether every statement succeeded. */
bool class__commit(class_service *svc, bool ok)
{
    if (ok && class__exec(svc, "COMMIT"))
        return true;
    rollback(svc);
    return false;
}

const char *class__col(db_stmt *st, int i)
{
    const char *t = db_column_text(st, i);
    return t ? t : "";
}

bool class__run(class_service *svc, db_stmt *st)
{
    bool ok = st && class__step(svc, st) == DB_DONE;
    db_finalize(st);
    return ok;
}

/* ---- courses ------------------------------------------------------------------------------ */

bool class__course_load(class_service *svc, int64_t id, course_t *c)
{
    memset(c, 0, sizeof *c);
    db_stmt *st =
        class__prep(svc, "SELECT name, game, rules, move_ms, gates, qualify, seed,"
                         " final_games, deadline_ms, frozen_ms, final_state, final_note,"
                         " created_ms, remote_wait_ms, final_tour, archived, max_upload,"
                         " (SELECT COALESCE(MAX(x.deadline_ms), 0) FROM class_students x"
                         " WHERE x.course = class_courses.id), scrimmage FROM class_courses"
                         " WHERE id = ?");
    if (!st)
        return false;
    db_bind_int64(st, 1, id);
    bool ok = false;
    if (class__step(svc, st) == DB_ROW) {
        c->id = id;
        snprintf(c->name, sizeof c->name, "%s", class__col(st, 0));
        c->g = eng_find_game(class__col(st, 1));
        c->rules_json = json_loads(class__col(st, 2), 0, NULL);
        c->move_ms = db_column_int64(st, 3);
        json_t *gj = json_loads(class__col(st, 4), 0, NULL);
        char err[256];
        c->ngates = c->g ? class_gates_parse(gj, c->g, c->gates, err, sizeof err) : -1;
        json_decref(gj);
        c->qualify = db_column_int(st, 5);
        c->seed = (uint64_t)db_column_int64(st, 6);
        c->final_games = db_column_int64(st, 7);
        c->deadline_ms = db_column_int64(st, 8);
        c->frozen_ms = db_column_int64(st, 9);
        snprintf(c->final_state, sizeof c->final_state, "%s", class__col(st, 10));
        snprintf(c->final_note, sizeof c->final_note, "%s", class__col(st, 11));
        c->created_ms = db_column_int64(st, 12);
        c->remote_wait_ms = db_column_int64(st, 13);
        c->final_tour = db_column_int64(st, 14);
        c->archived = db_column_int(st, 15) != 0;
        c->max_upload = db_column_int64(st, 16);
        c->last_extension_ms = db_column_int64(st, 17);
        if (!class_scrim_parse(class__col(st, 18), &c->scrimmage))
            c->scrimmage = CLASS_SCRIM_OFF;
        ok = c->g && c->ngates > 0 &&
             wire_rules_parse(c->g, c->rules_json, 2, &c->rules, err, sizeof err) == 0;
    }
    db_finalize(st);
    if (!ok) {
        json_decref(c->rules_json);
        c->rules_json = NULL;
    }
    return ok;
}

void class__course_release(course_t *c)
{
    json_decref(c->rules_json);
    c->rules_json = NULL;
}

int64_t class__course_insert(class_service *svc, const course_new *n)
{
    db_stmt *st =
        class__prep(svc, "INSERT INTO class_courses(name, game, rules, move_ms, gates, qualify,"
                         " seed, final_games, deadline_ms, created_ms, remote_wait_ms, max_upload,"
                         " scrimmage) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?) RETURNING id");
    if (!st)
        return 0;
    db_bind_text(st, 1, n->name, -1);
    db_bind_text(st, 2, n->g->name, -1);
    db_bind_text(st, 3, n->rules_text, -1);
    db_bind_int64(st, 4, n->move_ms);
    db_bind_text(st, 5, n->gates_text, -1);
    db_bind_int64(st, 6, n->qualify);
    db_bind_int64(st, 7, n->seed);
    db_bind_int64(st, 8, n->final_games);
    db_bind_int64(st, 9, n->deadline_ms);
    db_bind_int64(st, 10, n->created_ms);
    db_bind_int64(st, 11, n->remote_wait_ms);
    db_bind_int64(st, 12, n->max_upload);
    db_bind_text(st, 13, class_scrim_name(n->scrimmage), -1);
    int64_t id = 0;
    int rc = class__step(svc, st);
    if (rc == DB_ROW) {
        id = db_column_int64(st, 0);
        rc = class__step(svc, st); /* to its end: SQLite finishes the statement */
    }
    db_finalize(st);
    return rc == DB_DONE ? id : 0;
}

int class__ids(class_service *svc, db_stmt *st, int64_t **ids)
{
    *ids = NULL;
    if (!st)
        return -1;
    int n = 0, cap = 0;
    while (class__step(svc, st) == DB_ROW) {
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            int64_t *a = realloc(*ids, (size_t)cap * sizeof *a);
            if (!a)
                break;
            *ids = a;
        }
        (*ids)[n++] = db_column_int64(st, 0);
    }
    db_finalize(st);
    return n;
}

int class__course_ids(class_service *svc, int64_t **ids)
{
    return class__ids(svc, class__prep(svc, "SELECT id FROM class_courses ORDER BY id"), ids);
}

bool class__course_set_deadline(class_service *svc, int64_t course, int64_t deadline_ms)
{
    db_stmt *st = class__prep(svc, "UPDATE class_courses SET deadline_ms = ? WHERE id = ?");
    if (st) {
        db_bind_int64(st, 1, deadline_ms);
        db_bind_int64(st, 2, course);
    }
    return class__run(svc, st);
}

bool class__final_state(class_service *svc, int64_t course, const char *state, const char *note)
{
    db_stmt *st =
        class__prep(svc, "UPDATE class_courses SET final_state = ?, final_note = ? WHERE id = ?");
    if (st) {
        db_bind_text(st, 1, state, -1);
        db_bind_text(st, 2, note, -1);
        db_bind_int64(st, 3, course);
    }
    return class__run(svc, st);
}

bool class__final_tour(class_service *svc, int64_t course, int64_t tour)
{
    db_stmt *st = class__prep(svc, "UPDATE class_courses SET final_tour = ? WHERE id = ?");
    if (st) {
        db_bind_int64(st, 1, tour);
        db_bind_int64(st, 2, course);
    }
    return class__run(svc, st);
}

/* ---- students ---------------------------------------------------------------------------- */

bool class__student_by_token(class_service *svc, const char *hash, student_t *out)
{
    db_stmt *st = class__prep(svc, "SELECT id, course, sid, name, deadline_ms FROM class_students"
                                   " WHERE token_hash = ?");
    bool ok = false;
    if (st) {
        db_bind_text(st, 1, hash, -1);
        if (class__step(svc, st) == DB_ROW) {
            out->id = db_column_int64(st, 0);
            out->course = db_column_int64(st, 1);
            snprintf(out->sid, sizeof out->sid, "%s", class__col(st, 2));
            snprintf(out->name, sizeof out->name, "%s", class__col(st, 3));
            out->deadline_ms = db_column_int64(st, 4);
            ok = true;
        }
        db_finalize(st);
    }
    return ok;
}

/* The handout's line of one student: name,email,id,token,course. */
static bool handout_line(char **b, size_t *l, size_t *c, const class_person *p, const char *tok,
                         int64_t course)
{
    char cid[32];
    snprintf(cid, sizeof cid, ",%lld\n", (long long)course);
    return class_csv_field(b, l, c, p->name) && class_csv_text(b, l, c, ",") &&
           class_csv_field(b, l, c, p->email) && class_csv_text(b, l, c, ",") &&
           class_csv_field(b, l, c, p->sid) && class_csv_text(b, l, c, ",") &&
           class_csv_text(b, l, c, tok) && class_csv_text(b, l, c, cid);
}

int class__roster_add(class_service *svc, int64_t course, const class_person *ps, int n,
                      json_t **students, char **handout, int *have, const char **dup)
{
    *students = NULL;
    *handout = NULL;
    *have = 0;
    *dup = NULL;
    /* counted in the transaction that adds them (with servers sharing a
     * PostgreSQL database, two rosters added at once may still pass it) */
    bool ok = class__begin(svc);
    db_stmt *cnt =
        ok ? class__prep(svc, "SELECT COUNT(*) FROM class_students WHERE course = ?") : NULL;
    ok = ok && cnt;
    if (ok) {
        db_bind_int64(cnt, 1, course);
        ok = class__step(svc, cnt) == DB_ROW;
        *have = db_column_int(cnt, 0);
    }
    db_finalize(cnt);
    if (ok && *have + n > CLASS_MAX_STUDENTS) {
        rollback(svc);
        return ENG_ETOO_MANY;
    }
    json_t *out = json_array();
    char *b = NULL;
    size_t hl = 0, hc = 0;
    ok = ok && out && class_csv_text(&b, &hl, &hc, "name,email,id,token,course\n");
    /* each after the last of the roster, numbered by the database */
    db_stmt *ins = ok ? class__prep(svc, "INSERT INTO class_students(course, row, sid, name,"
                                         " email, token_hash) SELECT ?1, COALESCE(MAX(row), 0)"
                                         " + 1, ?2, ?3, ?4, ?5 FROM class_students"
                                         " WHERE course = ?1")
                      : NULL;
    ok = ok && ins;
    int rc = ok ? 0 : ENG_ESTORAGE;
    for (int i = 0; ok && i < n; i++) {
        char tok[CLASS_TOKEN_LEN + 1], h[65];
        if (class_token_new(tok) != 0) {
            ok = false;
            break;
        }
        class_token_hash(tok, h);
        db_reset(ins);
        db_bind_int64(ins, 1, course);
        db_bind_text(ins, 2, ps[i].sid, -1);
        db_bind_text(ins, 3, ps[i].name, -1);
        db_bind_text(ins, 4, ps[i].email, -1);
        db_bind_text(ins, 5, h, -1);
        int src = class__step(svc, ins);
        if (src == DB_ECONSTRAINT) {
            *dup = ps[i].sid;
            rc = ENG_EINVAL;
            ok = false;
            break;
        }
        ok = src == DB_DONE && handout_line(&b, &hl, &hc, &ps[i], tok, course) &&
             json_array_append_new(out, json_pack("{s:s, s:s, s:s, s:s}", "student_id", ps[i].sid,
                                                  "name", ps[i].name, "email", ps[i].email, "token",
                                                  tok)) == 0;
    }
    db_finalize(ins);
    if (!class__commit(svc, ok)) {
        json_decref(out);
        free(b);
        return rc ? rc : ENG_ESTORAGE;
    }
    *students = out;
    *handout = b;
    return 0;
}
