/*
 * store_work.c — the class_ tables' submissions and what is played for them
 * (internal.h, "store"): an upload's row, files and version; its state while
 * its gates are played; each gate's verdict, every game, the final's
 * standings; the deadline's freeze; what a previous run left unfinished.
 *
 * Several servers may share the tables (PostgreSQL): a submission's version
 * is counted by the INSERT itself, a course is frozen by whichever UPDATE
 * changes it first, and every result goes in inside one transaction
 * (class__apply opens it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classroom/internal.h"
#include "engine/errors.h"

static void sub_row(db_stmt *st, int i, sub_t *out)
{
    /* columns from i: id, course, student, sid, kind, dir, main, created_ms, tour, run,
     * version */
    memset(out, 0, sizeof *out);
    out->id = db_column_int64(st, i);
    out->course = db_column_int64(st, i + 1);
    out->student = db_column_int64(st, i + 2);
    snprintf(out->sid, sizeof out->sid, "%s", class__col(st, i + 3));
    snprintf(out->kind, sizeof out->kind, "%s", class__col(st, i + 4));
    snprintf(out->dir, sizeof out->dir, "%s", class__col(st, i + 5));
    snprintf(out->main, sizeof out->main, "%s", class__col(st, i + 6));
    out->created_ms = db_column_int64(st, i + 7);
    out->tour = db_column_int64(st, i + 8);
    out->run = db_column_int64(st, i + 9);
    out->version = db_column_int64(st, i + 10);
}

#define SUB_COLUMNS                                                                                \
    "s.id, s.course, s.student, st.sid, s.kind, s.dir, s.main, s.created_ms, s.tour, s.run,"       \
    " s.version FROM class_submissions s JOIN class_students st ON st.id = s.student"

bool class__sub_load(class_service *svc, int64_t sub, sub_t *out)
{
    db_stmt *st = class__prep(svc, "SELECT " SUB_COLUMNS " WHERE s.id = ?");
    if (!st)
        return false;
    db_bind_int64(st, 1, sub);
    bool ok = class__step(svc, st) == DB_ROW;
    if (ok)
        sub_row(st, 0, out);
    db_finalize(st);
    return ok;
}

/* The submissions of a course that `where` (after "s.course = ? AND") selects, in roster
 * order (heap, free()); the count or -1. */
static int subs_where(class_service *svc, int64_t course, const char *sql, sub_t **out)
{
    *out = NULL;
    db_stmt *st = class__prep(svc, sql);
    if (!st)
        return -1;
    db_bind_int64(st, 1, course);
    int n = 0, cap = 0, rc;
    while ((rc = class__step(svc, st)) == DB_ROW) {
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            sub_t *a = realloc(*out, (size_t)cap * sizeof *a);
            if (!a) {
                rc = DB_ENOMEM;
                break;
            }
            *out = a;
        }
        sub_row(st, 0, &(*out)[n++]);
    }
    db_finalize(st);
    if (rc != DB_DONE) {
        free(*out);
        *out = NULL;
        return -1;
    }
    return n;
}

int class__subs_frozen(class_service *svc, int64_t course, sub_t **out)
{
    return subs_where(svc, course,
                      "SELECT " SUB_COLUMNS " WHERE s.course = ? AND s.frozen = 1"
                      " ORDER BY st.row, st.id",
                      out);
}

int class__subs_scrim(class_service *svc, int64_t course, sub_t **out)
{
    /* each student's latest qualified submission, as the freeze picks it;
     * a remote bot's is played by the host, not here: left out */
    return subs_where(svc, course,
                      "SELECT " SUB_COLUMNS " WHERE s.course = ? AND s.kind <> 'remote' AND"
                      " s.id = (SELECT x.id FROM class_submissions x WHERE x.student = s.student"
                      " AND x.qualified = 1 AND x.state = 'done' ORDER BY x.version DESC LIMIT 1)"
                      " ORDER BY st.row, st.id",
                      out);
}

int64_t class__sub_insert(class_service *svc, const student_t *who, const char *kind,
                          const char *main, int64_t bytes, const char *sha256, int64_t now,
                          int64_t *version, int *rc)
{
    db_stmt *ins = class__prep(
        svc, "INSERT INTO class_submissions(course, student, version, kind, main, files, dir,"
             " bytes, sha256, created_ms) SELECT ?1, ?2, COALESCE(MAX(version), 0) + 1, ?3, ?4,"
             " '[]', '', ?5, ?6, ?7 FROM class_submissions WHERE student = ?2"
             " RETURNING id, version");
    *rc = DB_EFAIL;
    if (!ins)
        return 0;
    db_bind_int64(ins, 1, who->course);
    db_bind_int64(ins, 2, who->id);
    db_bind_text(ins, 3, kind, -1);
    db_bind_text(ins, 4, main, -1);
    db_bind_int64(ins, 5, bytes);
    db_bind_text(ins, 6, sha256, -1);
    db_bind_int64(ins, 7, now);
    int64_t id = 0;
    *rc = class__step(svc, ins);
    if (*rc == DB_ROW) {
        id = db_column_int64(ins, 0);
        *version = db_column_int64(ins, 1);
        *rc = class__step(svc, ins);
    }
    db_finalize(ins);
    return *rc == DB_DONE ? id : 0;
}

/* One text column of a submission's row (sql: "UPDATE ... SET col = ? WHERE id = ?"). */
static bool sub_set_text(class_service *svc, const char *sql, int64_t sub, const char *text)
{
    db_stmt *st = class__prep(svc, sql);
    if (st) {
        db_bind_text(st, 1, text, -1);
        db_bind_int64(st, 2, sub);
    }
    return class__run(svc, st);
}

bool class__sub_set_shape(class_service *svc, int64_t sub, const char *shape)
{
    return sub_set_text(svc, "UPDATE class_submissions SET shape = ? WHERE id = ?", sub, shape);
}

bool class__sub_set_main(class_service *svc, int64_t sub, const char *main)
{
    return sub_set_text(svc, "UPDATE class_submissions SET main = ? WHERE id = ?", sub, main);
}

bool class__sub_add_file(class_service *svc, int64_t sub, const char *name, const void *data,
                         size_t len)
{
    db_stmt *f =
        class__prep(svc, "INSERT INTO class_files(submission, name, data) VALUES(?, ?, ?)");
    bool ok = f && db_bind_int64(f, 1, sub) == DB_OK && db_bind_text(f, 2, name, -1) == DB_OK &&
              db_bind_blob(f, 3, data, (int)len) == DB_OK && class__step(svc, f) == DB_DONE;
    db_finalize(f);
    return ok;
}

bool class__sub_set_files(class_service *svc, int64_t sub, const char *files_json, const char *dir)
{
    db_stmt *st = class__prep(svc, "UPDATE class_submissions SET files = ?, dir = ? WHERE id = ?");
    if (st) {
        db_bind_text(st, 1, files_json, -1);
        db_bind_text(st, 2, dir, -1);
        db_bind_int64(st, 3, sub);
    }
    return class__run(svc, st);
}

int class__sub_files(class_service *svc, int64_t sub,
                     bool (*each)(const char *name, const void *data, int len, void *user),
                     void *user)
{
    db_stmt *st =
        class__prep(svc, "SELECT name, data FROM class_files WHERE submission = ? ORDER BY name");
    if (!st)
        return -1;
    db_bind_int64(st, 1, sub);
    int n = 0;
    bool ok = true;
    while (ok && class__step(svc, st) == DB_ROW) {
        int len = 0;
        const void *data = db_column_blob(st, 1, &len);
        ok = each(db_column_text(st, 0), data, len, user);
        n++;
    }
    db_finalize(st);
    return ok ? n : -1;
}

bool class__sub_show(class_service *svc, int64_t sub, const char *state, const char *verdict,
                     int64_t tour)
{
    db_stmt *st = class__prep(svc, "UPDATE class_submissions SET state = ?, verdict = ?, tour = ?"
                                   " WHERE id = ?");
    if (st) {
        db_bind_text(st, 1, state, -1);
        db_bind_text(st, 2, verdict, -1);
        db_bind_int64(st, 3, tour);
        db_bind_int64(st, 4, sub);
    }
    return class__run(svc, st);
}

bool class__sub_tour(class_service *svc, int64_t sub, int64_t tour)
{
    db_stmt *st = class__prep(svc, "UPDATE class_submissions SET tour = ? WHERE id = ?");
    if (st) {
        db_bind_int64(st, 1, tour);
        db_bind_int64(st, 2, sub);
    }
    return class__run(svc, st);
}

bool class__sub_started(class_service *svc, int64_t sub, const char *verdict)
{
    db_stmt *st = class__prep(svc, "UPDATE class_submissions SET state = 'running', verdict = ?"
                                   " WHERE id = ? AND state = 'queued'");
    if (st) {
        db_bind_text(st, 1, verdict, -1);
        db_bind_int64(st, 2, sub);
    }
    return class__run(svc, st);
}

bool class__student_refused(class_service *svc, int64_t student)
{
    db_stmt *st = class__prep(svc, "UPDATE class_students SET refused = refused + 1 WHERE id = ?");
    if (st)
        db_bind_int64(st, 1, student);
    return class__run(svc, st);
}

/* ---- results --------------------------------------------------------------------------------- */

static json_t *arr_d(const double *v, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_real(v[i]));
    return a;
}

static json_t *arr_i(const int *v, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_integer(v[i]));
    return a;
}

/* A JSON value as compact text (heap), freeing the value. */
static char *text_of(json_t *v)
{
    char *t = v ? json_dumps(v, JSON_COMPACT) : NULL;
    json_decref(v);
    return t;
}

/* A game's fault bundles as a JSON array's text, seat by seat (null where
 * none): "[null,{...}]" (heap; NULL when out of memory). The bundles are
 * texts already: joined, not parsed again. */
static char *bundles_text(const cgame *c)
{
    size_t n = 3;
    for (int s = 0; s < c->g.seats; s++)
        n += (c->bundle[s] ? strlen(c->bundle[s]) : 4) + 1;
    char *t = malloc(n), *o = t;
    if (!t)
        return NULL;
    *o++ = '[';
    for (int s = 0; s < c->g.seats; s++) {
        const char *b = c->bundle[s] ? c->bundle[s] : "null";
        size_t l = strlen(b);
        if (s)
            *o++ = ',';
        memcpy(o, b, l);
        o += l;
    }
    *o++ = ']';
    *o = 0;
    return t;
}

/* The games of a result: a participant's student (0: none, a gate's
 * opponent) and name by participant index. */
static bool store_games(class_service *svc, const done *d, const char *stage,
                        const int64_t *student_of, const char *const *name_of)
{
    db_stmt *ins = class__prep(
        svc, "INSERT INTO class_games(course, stage, submission, gate, idx, s0, s1, names,"
             " scores, ranks, end_reason, culprit, verdict, think_ms, moves, stderr, record,"
             " bundles, sub0, sub1) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    if (!ins)
        return false;
    bool ok = true;
    for (int k = 0; ok && k < d->ngames; k++) {
        const class_game *g = &d->games[k].g;
        db_reset(ins);
        db_bind_int64(ins, 1, d->course);
        db_bind_text(ins, 2, stage, -1);
        if (d->kind == DONE_GATE)
            db_bind_int64(ins, 3, d->submission);
        else
            db_bind_null(ins, 3);
        db_bind_int(ins, 4, d->gate);
        db_bind_int64(ins, 5, g->index);
        json_t *names = json_array(), *errs = json_array();
        for (int s = 0; s < 2; s++) {
            int64_t st = student_of[g->who[s]];
            if (st > 0)
                db_bind_int64(ins, 6 + s, st);
            else
                db_bind_null(ins, 6 + s);
            json_array_append_new(names, json_string(name_of[g->who[s]]));
            /* each seat's submission (0: a gate's opponent): the scrimmage's ratings */
            int64_t sub = d->subs ? d->subs[g->who[s]] : g->who[s] == 0 ? d->submission : 0;
            db_bind_int64(ins, 19 + s, sub);
            json_array_append_new(errs, d->games[k].no_stderr ? json_null()
                                                              : json_string(g->stderr_text[s]));
        }
        char *tn = text_of(names), *te = text_of(errs);
        char *ts = text_of(arr_d(g->score, g->seats)), *tr = text_of(arr_i(g->rank, g->seats)),
             *tt = text_of(arr_d(g->think_ms, g->seats)), *tm = text_of(arr_i(g->moves, g->seats));
        db_bind_text(ins, 8, tn ? tn : "[]", -1);
        db_bind_text(ins, 9, ts ? ts : "[]", -1);
        db_bind_text(ins, 10, tr ? tr : "[]", -1);
        db_bind_text(ins, 11, g->end, -1);
        db_bind_int(ins, 12, g->culprit);
        db_bind_text(ins, 13, g->verdict, -1);
        db_bind_text(ins, 14, tt ? tt : "[]", -1);
        db_bind_text(ins, 15, tm ? tm : "[]", -1);
        db_bind_text(ins, 16, te ? te : "[]", -1);
        db_bind_text(ins, 17, g->record, -1);
        char *tb = bundles_text(&d->games[k]);
        db_bind_text(ins, 18, tb ? tb : "[]", -1);
        ok = class__step(svc, ins) == DB_DONE;
        free(tb);
        free(tn);
        free(te);
        free(ts);
        free(tr);
        free(tt);
        free(tm);
    }
    db_finalize(ins);
    return ok;
}

/* The student of a submission and their student id, or 0 (no such
 * submission, or the database failed). */
static int64_t student_of_sub(class_service *svc, int64_t sub, char *sid, size_t cap)
{
    sub_t s;
    if (!class__sub_load(svc, sub, &s))
        return 0;
    snprintf(sid, cap, "%s", s.sid);
    return s.student;
}

bool class__store_gate(class_service *svc, const done *d)
{
    char sid[CLASS_FIELD_MAX + 1] = "";
    int64_t stu = student_of_sub(svc, d->submission, sid, sizeof sid);
    int64_t students[2] = {stu, 0};
    const char *names[2] = {sid, d->gatedef.opponent};
    db_stmt *st =
        stu > 0 ? class__prep(svc, "INSERT INTO class_gates(submission, gate, opponent, games,"
                                   " wins, losses, draws, points, rate, min_rate, passed, faults,"
                                   " verdict, ms_per_move, broken, startup_ms)"
                                   " VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
                                   " ON CONFLICT(submission, gate) DO UPDATE SET"
                                   " opponent = excluded.opponent, games = excluded.games,"
                                   " wins = excluded.wins, losses = excluded.losses,"
                                   " draws = excluded.draws, points = excluded.points,"
                                   " rate = excluded.rate, min_rate = excluded.min_rate,"
                                   " passed = excluded.passed, faults = excluded.faults,"
                                   " verdict = excluded.verdict,"
                                   " ms_per_move = excluded.ms_per_move,"
                                   " broken = excluded.broken,"
                                   " startup_ms = excluded.startup_ms")
                : NULL;
    if (st) {
        const class_standing *x = &d->st[0];
        db_bind_int64(st, 1, d->submission);
        db_bind_int(st, 2, d->gate);
        db_bind_text(st, 3, d->gatedef.opponent, -1);
        db_bind_int64(st, 4, x->games);
        db_bind_int64(st, 5, x->wins);
        db_bind_int64(st, 6, x->losses);
        db_bind_int64(st, 7, x->draws);
        db_bind_double(st, 8, x->points);
        db_bind_double(st, 9, x->rate);
        db_bind_double(st, 10, d->gatedef.min_rate);
        db_bind_int(st, 11, d->passed);
        db_bind_int64(st, 12, x->faults);
        db_bind_text(st, 13, d->verdict, -1);
        db_bind_double(st, 14, x->ms_per_move);
        db_bind_int(st, 15, d->broken);
        /* the submission's start-up: the longest its games measured */
        double startup = -1;
        for (int k = 0; k < d->ngames; k++)
            for (int s = 0; s < d->games[k].g.seats; s++)
                if (d->games[k].g.who[s] == 0 && d->games[k].g.startup_ms[s] > startup)
                    startup = d->games[k].g.startup_ms[s];
        db_bind_double(st, 16, startup);
    }
    if (!class__run(svc, st) || !store_games(svc, d, "gate", students, names))
        return false;
    char v[CLASS_VERDICT_MAX + 20];
    snprintf(v, sizeof v, "gate %d %s", d->gate + 1, d->verdict);
    db_stmt *up = class__prep(
        svc, "UPDATE class_submissions SET state = 'running', verdict = ? WHERE id = ?");
    if (up) {
        db_bind_text(up, 1, v, -1);
        db_bind_int64(up, 2, d->submission);
    }
    return class__run(svc, up);
}

bool class__store_sub(class_service *svc, const done *d)
{
    /* a ladder that ended at a broken gate is not judged: not done either,
     * so that the deadline's freeze waits for the gate to be fixed */
    db_stmt *up = class__prep(svc, "UPDATE class_submissions SET state = ?, gates_passed = ?,"
                                   " qualified = ?, verdict = ? WHERE id = ?");
    if (up) {
        db_bind_text(up, 1, d->broken ? "not_judged" : "done", -1);
        db_bind_int(up, 2, d->gates_passed);
        db_bind_int(up, 3, d->qualified);
        db_bind_text(up, 4, d->verdict, -1);
        db_bind_int64(up, 5, d->submission);
    }
    return class__run(svc, up);
}

bool class__store_scrim(class_service *svc, const done *d)
{
    /* the players by student id and version: the replay's names */
    char names[2][CLASS_FIELD_MAX + 24];
    const char *np[2];
    for (int i = 0; i < 2; i++) {
        sub_t s;
        if (!class__sub_load(svc, d->subs[i], &s))
            return false;
        snprintf(names[i], sizeof names[i], "%s v%lld", s.sid, (long long)s.version);
        np[i] = names[i];
    }
    return store_games(svc, d, "scrimmage", d->students, np);
}

bool class__scrim_results(class_service *svc, int64_t course,
                          void (*each)(int64_t sub0, int64_t sub1, double p0, void *user),
                          void *user)
{
    db_stmt *st = class__prep(svc, "SELECT sub0, sub1, ranks FROM class_games WHERE course = ?"
                                   " AND stage = 'scrimmage'");
    if (!st)
        return false;
    db_bind_int64(st, 1, course);
    int rc;
    while ((rc = class__step(svc, st)) == DB_ROW) {
        json_t *r = json_loads(class__col(st, 2), 0, NULL);
        json_int_t r0 = json_integer_value(json_array_get(r, 0)),
                   r1 = json_integer_value(json_array_get(r, 1));
        json_decref(r);
        if (r0 > 0 && r1 > 0) /* rank 1 is the winner: a draw when both are */
            each(db_column_int64(st, 0), db_column_int64(st, 1),
                 r0 < r1   ? 1
                 : r0 > r1 ? 0
                           : 0.5,
                 user);
    }
    db_finalize(st);
    return rc == DB_DONE;
}

bool class__store_final(class_service *svc, const done *d)
{
    char **names = calloc((size_t)d->n, sizeof *names);
    bool ok = names != NULL;
    for (int i = 0; ok && i < d->n; i++) {
        char sid[CLASS_FIELD_MAX + 1] = "";
        ok = student_of_sub(svc, d->subs[i], sid, sizeof sid) > 0;
        names[i] = strdup(sid);
        ok = ok && names[i] != NULL;
    }
    ok = ok && store_games(svc, d, "final", d->students, (const char *const *)names);
    for (int i = 0; names && i < d->n; i++)
        free(names[i]);
    free(names);
    return ok && class__store_final_rows(svc, d);
}

bool class__store_pair_games(class_service *svc, const done *d)
{
    char sids[2][CLASS_FIELD_MAX + 1] = {"", ""};
    bool ok = student_of_sub(svc, d->subs[0], sids[0], sizeof sids[0]) > 0 &&
              student_of_sub(svc, d->subs[1], sids[1], sizeof sids[1]) > 0;
    const char *names[2] = {sids[0], sids[1]};
    return ok && store_games(svc, d, "final", d->students, names);
}

bool class__store_final_rows(class_service *svc, const done *d)
{
    bool ok = true;
    db_stmt *ins =
        ok ? class__prep(svc, "INSERT INTO class_final(course, student, submission, place,"
                              " games, wins, losses, draws, points, rate, elo, elo_lo, elo_hi,"
                              " ms_per_move, faults, format, league_points, score_diff,"
                              " swiss_points, buchholz, ko_reached, roster, decided_by)"
                              " VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
                              " ON CONFLICT(course, student) DO UPDATE SET"
                              " submission = excluded.submission, place = excluded.place,"
                              " games = excluded.games, wins = excluded.wins,"
                              " losses = excluded.losses, draws = excluded.draws,"
                              " points = excluded.points, rate = excluded.rate,"
                              " elo = excluded.elo, elo_lo = excluded.elo_lo,"
                              " elo_hi = excluded.elo_hi, ms_per_move = excluded.ms_per_move,"
                              " faults = excluded.faults, format = excluded.format,"
                              " league_points = excluded.league_points,"
                              " score_diff = excluded.score_diff,"
                              " swiss_points = excluded.swiss_points,"
                              " buchholz = excluded.buchholz, ko_reached = excluded.ko_reached,"
                              " roster = excluded.roster, decided_by = excluded.decided_by")
           : NULL;
    ok = ok && ins;
    for (int i = 0; ok && i < d->n; i++) {
        const class_standing *x = &d->fst[i];
        db_reset(ins);
        db_bind_int64(ins, 1, d->course);
        db_bind_int64(ins, 2, d->students[i]);
        db_bind_int64(ins, 3, d->subs[i]);
        db_bind_int(ins, 4, x->place);
        db_bind_int64(ins, 5, x->games);
        db_bind_int64(ins, 6, x->wins);
        db_bind_int64(ins, 7, x->losses);
        db_bind_int64(ins, 8, x->draws);
        db_bind_double(ins, 9, x->points);
        db_bind_double(ins, 10, x->rate);
        db_bind_double(ins, 11, x->elo);
        db_bind_double(ins, 12, x->elo_lo);
        db_bind_double(ins, 13, x->elo_hi);
        db_bind_double(ins, 14, x->ms_per_move);
        db_bind_int64(ins, 15, x->faults);
        db_bind_text(ins, 16, class_format_name(d->format), -1);
        db_bind_int(ins, 17, x->league_points);
        db_bind_double(ins, 18, x->score_diff);
        db_bind_double(ins, 19, x->swiss_points);
        db_bind_double(ins, 20, x->buchholz);
        db_bind_int(ins, 21, x->ko_reached);
        db_bind_int(ins, 22, x->roster);
        db_bind_text(ins, 23, x->decided_by ? x->decided_by : "", -1);
        ok = class__step(svc, ins) == DB_DONE;
    }
    db_finalize(ins);
    db_stmt *up =
        ok ? class__prep(svc, "UPDATE class_courses SET final_state = 'done' WHERE id = ?") : NULL;
    if (up)
        db_bind_int64(up, 1, d->course);
    return ok && class__run(svc, up);
}

bool class__store_final_failed(class_service *svc, int64_t course, const char *note)
{
    return class__final_state(svc, course, "failed", note);
}

/* ---- the deadline ------------------------------------------------------------------------------
 */

int class__freeze_candidates(class_service *svc, int64_t now, int64_t *ids, int cap)
{
    db_stmt *st = class__prep(
        svc, "SELECT c.id FROM class_courses c WHERE c.frozen_ms = 0 AND c.deadline_ms > 0 AND"
             " c.deadline_ms <= ?1 AND NOT EXISTS (SELECT 1 FROM class_submissions s WHERE"
             " s.course = c.id AND s.state <> 'done') AND NOT EXISTS (SELECT 1 FROM"
             " class_students x WHERE x.course = c.id AND x.deadline_ms > ?1)");
    if (!st)
        return 0;
    db_bind_int64(st, 1, now);
    int n = 0;
    while (n < cap && class__step(svc, st) == DB_ROW)
        ids[n++] = db_column_int64(st, 0);
    db_finalize(st);
    return n;
}

int class__freeze(class_service *svc, int64_t course, int64_t now)
{
    /* the course first: of servers sharing the database, the one whose
     * UPDATE changes it freezes it; the others find it frozen */
    bool ok = class__begin(svc), mine = false;
    db_stmt *up =
        class__prep(svc, "UPDATE class_courses SET frozen_ms = ? WHERE id = ? AND frozen_ms = 0");
    db_stmt *fz = class__prep(
        svc, "UPDATE class_submissions SET frozen = 1 WHERE id IN (SELECT (SELECT x.id FROM"
             " class_submissions x WHERE x.student = st.id AND x.qualified = 1 AND"
             " x.state = 'done' ORDER BY x.version DESC LIMIT 1) FROM class_students st"
             " WHERE st.course = ?)");
    ok = ok && fz && up;
    if (ok) {
        db_bind_int64(up, 1, now);
        db_bind_int64(up, 2, course);
        ok = class__step(svc, up) == DB_DONE;
        mine = ok && db_changes(svc->db) == 1;
    }
    if (ok && mine) {
        db_bind_int64(fz, 1, course);
        ok = class__step(svc, fz) == DB_DONE;
    }
    db_finalize(fz);
    db_finalize(up);
    if (!class__commit(svc, ok && mine))
        return ok ? 0 : -1;
    return 1;
}

/* ---- what a previous run left ------------------------------------------------------------------
 */

/* A submission whose ladder was cut short (not done, and not stopped at a
 * broken gate: that one waits for the instructor). */
#define UNFINISHED "state NOT IN ('done', 'not_judged')"

int class__leftover_subs(class_service *svc, int64_t **ids, bool remote_only)
{
    *ids = NULL;
    /* nothing of an unfinished submission's gates was stored as final: its
     * games and gates go, and it is played again (on several servers, the
     * ladders other servers play are theirs: only remote bots' are this
     * coordinator's) */
#define LEFTOVER "(SELECT id FROM class_submissions WHERE " UNFINISHED " AND (? = 0 OR kind = 'remote'))"
    const char *sql[3] = {"DELETE FROM class_games WHERE submission IN " LEFTOVER,
                          "DELETE FROM class_gates WHERE submission IN " LEFTOVER,
                          "SELECT id FROM class_submissions WHERE " UNFINISHED
                          " AND (? = 0 OR kind = 'remote') ORDER BY id"};
#undef LEFTOVER
    for (int i = 0; i < 2; i++) {
        db_stmt *st = class__prep(svc, sql[i]);
        if (st)
            db_bind_int(st, 1, remote_only);
        class__run(svc, st);
    }
    db_stmt *st = class__prep(svc, sql[2]);
    if (st)
        db_bind_int(st, 1, remote_only);
    return class__ids(svc, st, ids);
}

/* ---- several servers: ladders claimed from the database ----------------------------------------
 */

int class__claim(class_service *svc, int64_t now, sub_t *out)
{
    /* SKIP LOCKED: servers claiming at once each take another row, none
     * waits for another's transaction (PostgreSQL only: on SQLite one
     * server has the database to itself and its workers' queue in memory) */
    if (!class__begin(svc))
        return -1;
    db_stmt *st = class__prep(
        svc, "UPDATE class_submissions SET worker = ?1, claim_ms = ?2, run = run + 1 WHERE id ="
             " (SELECT id FROM class_submissions WHERE kind <> 'remote' AND state IN ('queued',"
             " 'running') AND (worker = '' OR claim_ms < ?3) ORDER BY id LIMIT 1 FOR UPDATE SKIP"
             " LOCKED) RETURNING id");
    int64_t id = 0;
    int rc = DB_EFAIL;
    if (st) {
        db_bind_text(st, 1, svc->worker, -1);
        db_bind_int64(st, 2, now);
        db_bind_int64(st, 3, now - CLASS_CLAIM_MS);
        rc = class__step(svc, st);
        if (rc == DB_ROW) {
            id = db_column_int64(st, 0);
            rc = class__step(svc, st);
        }
        db_finalize(st);
    }
    bool ok = rc == DB_DONE;
    /* what an earlier claim of it stored goes: it is played again whole */
    for (int i = 0; ok && id && i < 2; i++) {
        db_stmt *del = class__prep(svc, i ? "DELETE FROM class_gates WHERE submission = ?"
                                          : "DELETE FROM class_games WHERE submission = ?");
        if (del)
            db_bind_int64(del, 1, id);
        ok = class__run(svc, del);
    }
    ok = ok && (!id || class__sub_load(svc, id, out));
    if (!class__commit(svc, ok))
        return -1;
    return id ? 1 : 0;
}

bool class__claims_renew(class_service *svc, int64_t now, bool release)
{
    /* only the rows this server's workers hold: one whose result could not
     * be stored lapses, and is played again */
    bool ok = true;
    for (int i = 0; i < svc->nheld; i++) {
        const char *sql[2][2] = {
            {"UPDATE class_submissions SET claim_ms = ? WHERE id = ? AND worker = ?",
             "UPDATE class_submissions SET claim_ms = ?, worker = '' WHERE id = ? AND worker = ?"},
            {"UPDATE class_final_pairs SET claim_ms = ? WHERE id = ? AND worker = ?",
             "UPDATE class_final_pairs SET claim_ms = ?, worker = '' WHERE id = ? AND worker = ?"}};
        db_stmt *st = class__prep(svc, sql[svc->held[i].pair][release]);
        if (st) {
            db_bind_int64(st, 1, release ? 0 : now);
            db_bind_int64(st, 2, svc->held[i].id);
            db_bind_text(st, 3, svc->worker, -1);
        }
        ok = class__run(svc, st) && ok;
    }
    return ok;
}

bool class__still_run(class_service *svc, int64_t sub, int64_t run, int64_t now)
{
    /* the row is locked until the result's transaction ends: a claim by
     * another server (which counts the run up) comes before or after it,
     * never in between */
    db_stmt *st =
        class__prep(svc, "UPDATE class_submissions SET claim_ms = ? WHERE id = ? AND run = ?");
    if (!st)
        return false;
    db_bind_int64(st, 1, now);
    db_bind_int64(st, 2, sub);
    db_bind_int64(st, 3, run);
    bool ok = class__step(svc, st) == DB_DONE && db_changes(svc->db) == 1;
    db_finalize(st);
    return ok;
}

void class__leftover_finals(class_service *svc, void (*each)(class_service *svc, int64_t tour))
{
    /* a final cut short: back to startable (the host's tournament it was
     * played by is cancelled) */
    db_stmt *ft = class__prep(svc, "SELECT final_tour FROM class_courses WHERE final_state ="
                                   " 'running' AND final_tour <> 0");
    while (ft && class__step(svc, ft) == DB_ROW)
        each(svc, db_column_int64(ft, 0));
    db_finalize(ft);
    /* (a final split among servers goes on: its pairs are claimed by them) */
    class__exec(svc, "UPDATE class_courses SET final_state = 'none', final_tour = 0 WHERE"
                     " final_state = 'running' AND NOT EXISTS (SELECT 1 FROM class_final_pairs p"
                     " WHERE p.course = class_courses.id)");
    class__exec(svc, "DELETE FROM class_games WHERE stage = 'final' AND course IN (SELECT id"
                     " FROM class_courses WHERE final_state = 'none')");
}
