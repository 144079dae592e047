/*
 * store_views.c — the class_ tables read for the pages (internal.h,
 * "views"): a course, its roster, submissions with their gates and games,
 * the final's standings and games, one game in full. What a student sees
 * is filtered here, in the query or on the row: their own submissions and
 * final row, games their submission played (and, when the instructor shows
 * the class the scrimmage, its games), their seat's stderr only, and
 * another seat's fault without the detail that quotes its stderr.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classroom/internal.h"
#include "engine/errors.h"

json_t *class__course_json(const course_t *c)
{
    return json_pack("{s:I, s:s, s:s, s:O, s:I, s:o, s:i, s:I, s:I, s:I, s:s, s:s, s:I, s:I, s:b,"
                     " s:I, s:I, s:s}",
                     "course", (json_int_t)c->id, "name", c->name, "game", c->g->name, "rules",
                     c->rules_json, "move_ms", (json_int_t)c->move_ms, "gates",
                     class_gates_json(c->gates, c->ngates), "qualify", c->qualify, "final_games",
                     (json_int_t)c->final_games, "deadline_ms", (json_int_t)c->deadline_ms,
                     "frozen_ms", (json_int_t)c->frozen_ms, "final_state", c->final_state,
                     "final_note", c->final_note, "created_ms", (json_int_t)c->created_ms,
                     "remote_wait_ms", (json_int_t)c->remote_wait_ms, "archived", c->archived,
                     "last_extension_ms", (json_int_t)c->last_extension_ms, "max_upload_bytes",
                     (json_int_t)c->max_upload, "scrimmage", class_scrim_name(c->scrimmage));
}

json_t *class__roster_json(class_service *svc, int64_t course)
{
    json_t *a = json_array();
    db_stmt *st = class__prep(svc, "SELECT s.sid, s.name, s.email,"
                                   " (SELECT COUNT(*) FROM class_submissions x WHERE x.student ="
                                   " s.id), s.deadline_ms FROM class_students s WHERE s.course = ?"
                                   " ORDER BY s.row, s.id");
    if (!st)
        return a;
    db_bind_int64(st, 1, course);
    while (class__step(svc, st) == DB_ROW)
        json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:i, s:I}", "student_id",
                                           class__col(st, 0), "name", class__col(st, 1), "email",
                                           class__col(st, 2), "submissions", db_column_int(st, 3),
                                           "deadline_ms", (json_int_t)db_column_int64(st, 4)));
    db_finalize(st);
    return a;
}

/* A submission's gates, each with its games' ids. */
static json_t *gates_json(class_service *svc, db_stmt *gq, db_stmt *gg, int64_t sub)
{
    json_t *gates = json_array();
    db_reset(gq);
    db_bind_int64(gq, 1, sub);
    while (class__step(svc, gq) == DB_ROW) {
        json_t *games = json_array(), *faulty = json_array();
        db_reset(gg);
        db_bind_int64(gg, 1, sub);
        db_bind_int(gg, 2, db_column_int(gq, 0));
        while (class__step(svc, gg) == DB_ROW) {
            json_array_append_new(games, json_integer(db_column_int64(gg, 0)));
            if (db_column_int(gg, 1))
                json_array_append_new(faulty, json_integer(db_column_int64(gg, 0)));
        }
        json_array_append_new(
            gates,
            json_pack(
                "{s:i, s:s, s:I, s:I, s:I, s:I, s:f, s:f, s:f, s:b, s:I, s:s, s:o, s:f}", "gate",
                db_column_int(gq, 0), "opponent", class__col(gq, 1), "games",
                (json_int_t)db_column_int64(gq, 2), "wins", (json_int_t)db_column_int64(gq, 3),
                "losses", (json_int_t)db_column_int64(gq, 4), "draws",
                (json_int_t)db_column_int64(gq, 5), "points", db_column_double(gq, 6), "rate",
                db_column_double(gq, 7), "min_rate", db_column_double(gq, 8), "passed",
                db_column_int(gq, 9) != 0, "faults", (json_int_t)db_column_int64(gq, 10), "verdict",
                class__col(gq, 11), "game_ids", games, "ms_per_move", db_column_double(gq, 12)));
        json_t *gate = json_array_get(gates, json_array_size(gates) - 1);
        json_object_set_new(gate, "broken", json_boolean(db_column_int(gq, 13) != 0));
        /* the submission's start-up in the gate (fair start-up, docs/stdio.md) */
        double startup = db_column_double(gq, 14);
        json_object_set_new(gate, "startup_ms", startup >= 0 ? json_real(startup) : json_null());
        /* the games that kept a fault bundle (course_game gives it) */
        json_object_set_new(gate, "bundle_game_ids", faulty);
    }
    return gates;
}

/* ---- similar submissions (the instructor's view) -------------------------------------- */

#define SIMILAR_SHOWN                                                                              \
    8 /* others named per submission (a class sending the example bot                              \
         would list everyone) */

typedef struct simrow {
    int i; /* its place in the view */
    int64_t student;
    char sid[CLASS_FIELD_MAX + 1];
    int64_t version;
    char sha[65], shape[65];
} simrow;

static int by_sha(const void *a, const void *b)
{
    return strcmp(((const simrow *)a)->sha, ((const simrow *)b)->sha);
}

static int by_shape(const void *a, const void *b)
{
    return strcmp(((const simrow *)a)->shape, ((const simrow *)b)->shape);
}

/* Each run of rows equal by cmp (sorted so) names, in each of its members'
 * "similar", the other students' members: `how`. same_sha: skip pairs of
 * identical files (named already). */
static void mark_runs(json_t *subs, simrow *r, int n, int (*cmp)(const void *, const void *),
                      const char *how, bool same_sha)
{
    for (int a = 0; a < n;) {
        int b = a + 1;
        while (b < n && cmp(&r[a], &r[b]) == 0)
            b++;
        for (int x = a; b - a > 1 && x < b; x++) {
            json_t *sub = json_array_get(subs, (size_t)r[x].i);
            json_t *sim = json_object_get(sub, "similar");
            for (int y = a; y < b; y++) {
                if (r[y].student == r[x].student || (same_sha && !strcmp(r[x].sha, r[y].sha)))
                    continue;
                json_int_t seen = json_integer_value(json_object_get(sub, "similar_count"));
                json_object_set_new(sub, "similar_count", json_integer(seen + 1));
                if (json_array_size(sim) < SIMILAR_SHOWN)
                    json_array_append_new(sim, json_pack("{s:s, s:I, s:s}", "student_id", r[y].sid,
                                                         "version", (json_int_t)r[y].version, "how",
                                                         how));
            }
        }
        a = b;
    }
}

/* Flag, on each submission of subs (the course's, in id order), the other
 * students' submissions with the same files or the same shape. */
static void similar_json(class_service *svc, int64_t course, json_t *subs)
{
    size_t n = json_array_size(subs);
    simrow *r = n ? calloc(n, sizeof *r) : NULL;
    db_stmt *st = r ? class__prep(svc, "SELECT s.student, st.sid, s.version, s.sha256, s.shape,"
                                       " s.kind FROM class_submissions s JOIN class_students st"
                                       " ON st.id = s.student WHERE s.course = ? ORDER BY s.id")
                    : NULL;
    int k = 0;
    if (st) {
        db_bind_int64(st, 1, course);
        for (int i = 0; (size_t)i < n && class__step(svc, st) == DB_ROW; i++) {
            json_object_set_new(json_array_get(subs, (size_t)i), "similar", json_array());
            if (!strcmp(class__col(st, 5), "remote") || !*class__col(st, 3))
                continue; /* a remote bot has no files */
            simrow *x = &r[k++];
            x->i = i;
            x->student = db_column_int64(st, 0);
            snprintf(x->sid, sizeof x->sid, "%s", class__col(st, 1));
            x->version = db_column_int64(st, 2);
            snprintf(x->sha, sizeof x->sha, "%s", class__col(st, 3));
            snprintf(x->shape, sizeof x->shape, "%s", class__col(st, 4));
            if (!x->shape[0]) /* stored before shapes were: its own */
                snprintf(x->shape, sizeof x->shape, "sha:%.60s", x->sha);
        }
        db_finalize(st);
    }
    if (k > 1) {
        qsort(r, (size_t)k, sizeof *r, by_sha);
        mark_runs(subs, r, k, by_sha, "identical", false);
        qsort(r, (size_t)k, sizeof *r, by_shape);
        mark_runs(subs, r, k, by_shape, "the same but for comments and spacing", true);
    }
    free(r);
}

json_t *class__subs_json(class_service *svc, int64_t course, int64_t student)
{
    json_t *a = json_array();
    db_stmt *st = class__prep(
        svc, "SELECT s.id, s.student, st.sid, s.version, s.kind, s.main, s.files, s.bytes,"
             " s.sha256, s.created_ms, s.state, s.gates_passed, s.qualified, s.verdict, s.frozen"
             " FROM class_submissions s JOIN class_students st ON st.id = s.student"
             " WHERE s.course = ? AND (? = 0 OR s.student = ?) ORDER BY s.id");
    db_stmt *gq = class__prep(svc, "SELECT gate, opponent, games, wins, losses, draws, points,"
                                   " rate, min_rate, passed, faults, verdict, ms_per_move,"
                                   " broken, startup_ms FROM"
                                   " class_gates WHERE submission = ? ORDER BY gate");
    db_stmt *gg = class__prep(svc, "SELECT id, CASE WHEN bundles LIKE '%tessera-fault%' THEN 1"
                                   " ELSE 0 END FROM class_games WHERE submission = ? AND gate = ?"
                                   " AND stage = 'gate' ORDER BY idx");
    if (!st || !gq || !gg)
        goto out;
    db_bind_int64(st, 1, course);
    db_bind_int64(st, 2, student);
    db_bind_int64(st, 3, student);
    while (class__step(svc, st) == DB_ROW) {
        int64_t id = db_column_int64(st, 0);
        json_t *gates = gates_json(svc, gq, gg, id);
        json_t *files = json_loads(class__col(st, 6), 0, NULL);
        json_array_append_new(
            a, json_pack("{s:I, s:s, s:I, s:s, s:s, s:o, s:I, s:s, s:I, s:s, s:i, s:b, s:s, s:b, "
                         "s:o}",
                         "submission", (json_int_t)id, "student_id", class__col(st, 2), "version",
                         (json_int_t)db_column_int64(st, 3), "kind", class__col(st, 4), "main",
                         class__col(st, 5), "files", files ? files : json_array(), "bytes",
                         (json_int_t)db_column_int64(st, 7), "sha256", class__col(st, 8),
                         "created_ms", (json_int_t)db_column_int64(st, 9), "state",
                         class__col(st, 10), "gates_passed", db_column_int(st, 11), "qualified",
                         db_column_int(st, 12) != 0, "verdict", class__col(st, 13), "frozen",
                         db_column_int(st, 14) != 0, "gates", gates));
    }
out:
    db_finalize(st);
    db_finalize(gq);
    db_finalize(gg);
    if (student == 0)
        similar_json(svc, course, a); /* the instructor's view only */
    return a;
}

json_t *class__final_json(class_service *svc, int64_t course, int64_t student)
{
    json_t *a = json_array();
    db_stmt *st = class__prep(
        svc, "SELECT st.sid, st.name, f.place, f.games, f.wins, f.losses, f.draws, f.points,"
             " f.rate, f.elo, f.elo_lo, f.elo_hi, s.version, f.ms_per_move, f.faults, f.format,"
             " f.league_points, f.score_diff, f.swiss_points, f.buchholz, f.ko_reached,"
             " f.roster, f.decided_by FROM"
             " class_final f JOIN class_students st ON st.id = f.student JOIN class_submissions s"
             " ON s.id = f.submission WHERE f.course = ? AND (? = 0 OR f.student = ?)"
             " ORDER BY f.place, st.row, st.id");
    if (!st)
        return a;
    db_bind_int64(st, 1, course);
    db_bind_int64(st, 2, student);
    db_bind_int64(st, 3, student);
    while (class__step(svc, st) == DB_ROW) {
        json_t *row =
            json_pack("{s:s, s:i, s:f, s:f, s:f, s:i, s:i, s:s}", "format", class__col(st, 15),
                      "league_points", db_column_int(st, 16), "score_diff",
                      db_column_double(st, 17), "swiss_points", db_column_double(st, 18),
                      "buchholz", db_column_double(st, 19), "round_reached", db_column_int(st, 20),
                      "roster", db_column_int(st, 21), "decided_by", class__col(st, 22));
        json_object_update_new(
            row,
            json_pack("{s:s, s:s, s:i, s:I, s:I, s:I, s:I, s:f, s:f, s:f, s:f, s:f, s:I, s:f, s:I}",
                      "student_id", class__col(st, 0), "name", class__col(st, 1), "place",
                      db_column_int(st, 2), "games", (json_int_t)db_column_int64(st, 3), "wins",
                      (json_int_t)db_column_int64(st, 4), "losses",
                      (json_int_t)db_column_int64(st, 5), "draws",
                      (json_int_t)db_column_int64(st, 6), "points", db_column_double(st, 7), "rate",
                      db_column_double(st, 8), "rating", db_column_double(st, 9), "rating_low",
                      db_column_double(st, 10), "rating_high", db_column_double(st, 11), "version",
                      (json_int_t)db_column_int64(st, 12), "ms_per_move", db_column_double(st, 13),
                      "faults", (json_int_t)db_column_int64(st, 14)));
        json_array_append_new(a, row);
    }
    db_finalize(st);
    return a;
}

/* A game's verdict as a student may see it: a fault of another seat keeps
 * only "P2 (seat 1): crashed" — its detail quotes that program's stderr. */
static void verdict_for(const char *v, int culprit, int mine, char *out, size_t cap)
{
    snprintf(out, cap, "%s", v);
    if (mine < 0 || culprit < 0 || culprit == mine)
        return;
    char *p = strstr(out, "): ");
    char *q = p ? strstr(p + 3, ": ") : NULL;
    if (q)
        *q = '\0';
}

/* The student's seat in a game row whose s0, s1 are at columns i, i+1. */
static int seat_of(db_stmt *st, int i, int64_t student)
{
    for (int s = 0; s < 2; s++)
        if (!db_column_null(st, i + s) && db_column_int64(st, i + s) == student)
            return s;
    return -1;
}

json_t *class__final_games_json(class_service *svc, int64_t course, int64_t student)
{
    json_t *a = json_array();
    db_stmt *st = class__prep(svc, "SELECT g.id, g.names, g.scores, g.end_reason, g.verdict,"
                                   " g.s0, g.s1, g.culprit, CASE WHEN g.bundles LIKE"
                                   " '%tessera-fault%' THEN 1 ELSE 0 END FROM class_games g"
                                   " WHERE g.course = ?"
                                   " AND g.stage = 'final' AND (? = 0 OR g.s0 = ? OR g.s1 = ?)"
                                   " ORDER BY g.idx");
    if (!st)
        return a;
    db_bind_int64(st, 1, course);
    for (int i = 2; i <= 4; i++)
        db_bind_int64(st, i, student);
    while (class__step(svc, st) == DB_ROW) {
        char v[CLASS_VERDICT_MAX + 1];
        int mine = student ? seat_of(st, 5, student) : -1, culprit = db_column_int(st, 7);
        verdict_for(class__col(st, 4), culprit, mine, v, sizeof v);
        /* a fault bundle kept of the game: the culprit's (a fault ends a
         * final's game), the student's own only */
        bool bundle = db_column_int(st, 8) != 0 && (!student || (culprit >= 0 && culprit == mine));
        json_array_append_new(a, json_pack("{s:I, s:o, s:o, s:s, s:s, s:b}", "game",
                                           (json_int_t)db_column_int64(st, 0), "names",
                                           json_loads(class__col(st, 1), 0, NULL), "scores",
                                           json_loads(class__col(st, 2), 0, NULL), "end",
                                           class__col(st, 3), "verdict", v, "bundle", bundle));
    }
    db_finalize(st);
    return a;
}

json_t *class__scrim_games_json(class_service *svc, int64_t course)
{
    json_t *a = json_array();
    db_stmt *st = class__prep(svc, "SELECT id, names, scores, end_reason FROM class_games"
                                   " WHERE course = ? AND stage = 'scrimmage' ORDER BY id DESC"
                                   " LIMIT ?");
    if (!st)
        return a;
    db_bind_int64(st, 1, course);
    db_bind_int(st, 2, CLASS_SCRIM_SHOWN);
    while (class__step(svc, st) == DB_ROW)
        json_array_append_new(
            a, json_pack("{s:I, s:o, s:o, s:s}", "game", (json_int_t)db_column_int64(st, 0),
                         "names", json_loads(class__col(st, 1), 0, NULL), "scores",
                         json_loads(class__col(st, 2), 0, NULL), "end", class__col(st, 3)));
    db_finalize(st);
    return a;
}

int class__game_json(class_service *svc, int64_t gid, const student_t *student, json_t *rep)
{
    bool scrim_class = false;
    course_t c;
    if (student && class__course_load(svc, student->course, &c)) {
        scrim_class = c.scrimmage == CLASS_SCRIM_CLASS;
        class__course_release(&c);
    }
    db_stmt *st = class__prep(svc, "SELECT g.course, g.stage, g.submission, g.gate, g.idx, g.s0,"
                                   " g.s1, g.names, g.scores, g.ranks, g.end_reason, g.culprit,"
                                   " g.verdict, g.think_ms, g.moves, g.stderr, g.record,"
                                   " g.bundles FROM class_games g WHERE g.id = ?");
    if (!st)
        return ENG_ESTORAGE;
    db_bind_int64(st, 1, gid);
    bool found = class__step(svc, st) == DB_ROW;
    int mine = found && student ? seat_of(st, 5, student->id) : -1; /* the student's seat */
    /* a scrimmage the instructor shows the class: every student of the course
     * may replay its games (not the seats' stderr and bundles: their authors') */
    bool allowed = found && (!student || mine >= 0 ||
                             (scrim_class && strcmp(class__col(st, 1), "scrimmage") == 0 &&
                              db_column_int64(st, 0) == student->course));
    if (!allowed) {
        db_finalize(st);
        return student ? ENG_EFORBIDDEN : ENG_EINVAL;
    }
    json_t *errs = json_loads(class__col(st, 15), 0, NULL);
    if (!json_is_array(errs)) {
        json_decref(errs);
        errs = json_array();
    }
    json_object_set_new(rep, "game", json_integer(gid));
    json_object_set_new(rep, "course", json_integer(db_column_int64(st, 0)));
    json_object_set_new(rep, "stage", json_string(class__col(st, 1)));
    if (!db_column_null(st, 2))
        json_object_set_new(rep, "submission", json_integer(db_column_int64(st, 2)));
    json_object_set_new(rep, "gate", json_integer(db_column_int(st, 3)));
    json_object_set_new(rep, "index", json_integer(db_column_int64(st, 4)));
    json_object_set_new(rep, "names", json_loads(class__col(st, 7), 0, NULL));
    json_object_set_new(rep, "scores", json_loads(class__col(st, 8), 0, NULL));
    json_object_set_new(rep, "ranks", json_loads(class__col(st, 9), 0, NULL));
    json_object_set_new(rep, "end", json_string(class__col(st, 10)));
    json_object_set_new(rep, "culprit", json_integer(db_column_int(st, 11)));
    char v[CLASS_VERDICT_MAX + 1];
    verdict_for(class__col(st, 12), db_column_int(st, 11), student ? mine : -1, v, sizeof v);
    json_object_set_new(rep, "verdict", json_string(v));
    json_object_set_new(rep, "think_ms", json_loads(class__col(st, 13), 0, NULL));
    json_object_set_new(rep, "moves", json_loads(class__col(st, 14), 0, NULL));
    bool none = false; /* a server match (remote bots): no stderr was kept */
    for (size_t k = 0; k < json_array_size(errs); k++)
        none = none || json_is_null(json_array_get(errs, k));
    if (none)
        json_object_set_new(rep, "stderr_note",
                            json_string("no stderr: a game with a remote bot is a server match; "
                                        "a remote bot's output stays on its author's machine"));
    if (!student) {
        json_object_set_new(rep, "stderr", errs);
    } else {
        json_t *one = json_array();
        for (int s = 0; s < 2; s++)
            json_array_append_new(one, s == mine ? json_incref(json_array_get(errs, (size_t)s))
                                                 : json_null());
        json_decref(errs);
        json_object_set_new(rep, "stderr", one);
        json_object_set_new(rep, "your_seat", json_integer(mine));
    }
    json_object_set_new(rep, "record", json_loads(class__col(st, 16), 0, NULL));
    /* each program seat's fault bundle (docs/bundles.md): a student's own only */
    json_t *bundles = json_loads(class__col(st, 17), 0, NULL), *shown = json_array();
    for (int s = 0; s < 2; s++) {
        json_t *b = json_array_get(bundles, (size_t)s);
        json_array_append_new(shown, json_is_object(b) && (!student || s == mine) ? json_incref(b)
                                                                                  : json_null());
    }
    json_decref(bundles);
    json_object_set_new(rep, "bundles", shown);
    db_finalize(st);
    return 0;
}

int class__sub_code(class_service *svc, int64_t sub, sub_t *s, json_t **files, int64_t *version)
{
    *files = NULL;
    db_stmt *st = class__prep(svc, "SELECT files, version FROM class_submissions WHERE id = ?");
    if (!st)
        return ENG_ESTORAGE;
    db_bind_int64(st, 1, sub);
    int rc = class__step(svc, st) == DB_ROW ? 0 : ENG_EINVAL;
    if (rc == 0) {
        *files = json_loads(class__col(st, 0), 0, NULL);
        *version = db_column_int64(st, 1);
    }
    db_finalize(st);
    return rc == 0 && !class__sub_load(svc, sub, s) ? ENG_ESTORAGE : rc;
}

/* ---- no server paths in what the pages show ---------------------------------------------- */

/* text with every path under the submissions' folder cut to its last part
 * (".../files/course-1/student-3/v1-x/bot.py" -> "bot.py"): a traceback
 * names the file it ran; heap, or NULL when there is none in it. */
static char *redact_text(const char *dir, size_t dl, const char *text)
{
    const char *hit = strstr(text, dir);
    if (!hit)
        return NULL;
    size_t n = strlen(text);
    char *out = malloc(n + 1), *o = out;
    if (!out)
        return NULL;
    const char *p = text;
    while ((hit = strstr(p, dir)) != NULL) {
        memcpy(o, p, (size_t)(hit - p));
        o += hit - p;
        const char *e = hit + dl, *last = NULL;
        while (*e && (isalnum((unsigned char)*e) || strchr("/_.-", *e))) {
            if (*e == '/')
                last = e;
            e++;
        }
        p = last ? last + 1 : hit + dl; /* the file's own name stays */
    }
    strcpy(o, p);
    return out;
}

void class__redact(const class_service *svc, json_t *v)
{
    size_t dl = strlen(svc->dir);
    if (dl < 2)
        return;
    if (json_is_string(v)) {
        char *t = redact_text(svc->dir, dl, json_string_value(v));
        if (t)
            json_string_set(v, t);
        free(t);
    } else if (json_is_array(v)) {
        size_t i;
        json_t *x;
        json_array_foreach(v, i, x) class__redact(svc, x);
    } else if (json_is_object(v)) {
        const char *k;
        json_t *x;
        json_object_foreach(v, k, x) class__redact(svc, x);
    }
}
