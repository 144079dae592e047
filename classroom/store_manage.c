/*
 * store_manage.c — the class_ tables' side of what an instructor may undo
 * or remove (internal.h, "store"; issue 25): a course unfrozen, a student's
 * extension, a new ladder, a submission reset to be played again (its run
 * counted up, so that results of the older run are dropped), the final's
 * results cleared to be played again, a course archived, a course deleted
 * with everything of it; its settings changed (the scrimmage, the largest
 * submission).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classroom/internal.h"
#include "engine/errors.h"

/* A statement of one or two integer parameters, run. */
static bool run_ii(class_service *svc, const char *sql, int64_t a, int64_t b, int n)
{
    db_stmt *st = class__prep(svc, sql);
    if (st) {
        db_bind_int64(st, 1, a);
        if (n > 1)
            db_bind_int64(st, 2, b);
    }
    return class__run(svc, st);
}

bool class__unfreeze(class_service *svc, int64_t course)
{
    return run_ii(svc, "UPDATE class_courses SET frozen_ms = 0 WHERE id = ?", course, 0, 1) &&
           run_ii(svc, "UPDATE class_submissions SET frozen = 0 WHERE course = ?", course, 0, 1);
}

int class__student_set_deadline(class_service *svc, int64_t course, const char *sid,
                                int64_t deadline_ms)
{
    db_stmt *st =
        class__prep(svc, "UPDATE class_students SET deadline_ms = ? WHERE course = ? AND sid = ?");
    if (!st)
        return -1;
    db_bind_int64(st, 1, deadline_ms);
    db_bind_int64(st, 2, course);
    db_bind_text(st, 3, sid, -1);
    int rc = class__step(svc, st);
    db_finalize(st);
    if (rc != DB_DONE)
        return -1;
    return db_changes(svc->db) == 1 ? 1 : 0;
}

bool class__course_set_settings(class_service *svc, int64_t course, int scrimmage,
                                int64_t max_upload)
{
    db_stmt *st = class__prep(svc, "UPDATE class_courses SET scrimmage = ?,"
                                   " max_upload = CASE WHEN ? > 0 THEN ? ELSE max_upload END"
                                   " WHERE id = ?");
    if (st) {
        db_bind_text(st, 1, class_scrim_name(scrimmage), -1);
        db_bind_int64(st, 2, max_upload);
        db_bind_int64(st, 3, max_upload);
        db_bind_int64(st, 4, course);
    }
    return class__run(svc, st);
}

bool class__course_set_gates(class_service *svc, int64_t course, const char *gates_text,
                             int qualify)
{
    db_stmt *st = class__prep(svc, "UPDATE class_courses SET gates = ?, qualify = ? WHERE id = ?");
    if (st) {
        db_bind_text(st, 1, gates_text, -1);
        db_bind_int(st, 2, qualify);
        db_bind_int64(st, 3, course);
    }
    return class__run(svc, st);
}

int class__subs_of(class_service *svc, int64_t course, int64_t sub, int64_t **ids)
{
    db_stmt *st = class__prep(svc, "SELECT id FROM class_submissions WHERE course = ? AND"
                                   " (? = 0 OR id = ?) ORDER BY id");
    if (st) {
        db_bind_int64(st, 1, course);
        db_bind_int64(st, 2, sub);
        db_bind_int64(st, 3, sub);
    }
    return class__ids(svc, st, ids);
}

bool class__sub_reset(class_service *svc, int64_t sub)
{
    return run_ii(svc, "DELETE FROM class_games WHERE submission = ?", sub, 0, 1) &&
           run_ii(svc, "DELETE FROM class_gates WHERE submission = ?", sub, 0, 1) &&
           run_ii(svc,
                  "UPDATE class_submissions SET run = run + 1, state = 'queued', gates_passed = 0,"
                  " qualified = 0, frozen = 0, tour = 0, verdict = 'queued to be played again',"
                  " worker = '', claim_ms = 0"
                  " WHERE id = ?",
                  sub, 0, 1);
}

int64_t class__sub_run(class_service *svc, int64_t sub)
{
    db_stmt *st = class__prep(svc, "SELECT run FROM class_submissions WHERE id = ?");
    if (!st)
        return -1;
    db_bind_int64(st, 1, sub);
    int64_t run = class__step(svc, st) == DB_ROW ? db_column_int64(st, 0) : -1;
    db_finalize(st);
    return run;
}

bool class__final_clear(class_service *svc, int64_t course)
{
    return run_ii(svc, "DELETE FROM class_final WHERE course = ?", course, 0, 1) &&
           run_ii(svc, "DELETE FROM class_final_pairs WHERE course = ?", course, 0, 1) &&
           run_ii(svc, "DELETE FROM class_games WHERE course = ? AND stage = 'final'", course, 0,
                  1) &&
           run_ii(svc,
                  "UPDATE class_courses SET final_state = 'none', final_note = '', final_tour = 0"
                  " WHERE id = ?",
                  course, 0, 1);
}

bool class__course_archive(class_service *svc, int64_t course, bool archived)
{
    return run_ii(svc, "UPDATE class_courses SET archived = ? WHERE id = ?", archived, course, 2);
}

bool class__course_delete(class_service *svc, int64_t course)
{
    static const char *const sql[] = {
        "DELETE FROM class_files WHERE submission IN (SELECT id FROM class_submissions WHERE"
        " course = ?)",
        "DELETE FROM class_gates WHERE submission IN (SELECT id FROM class_submissions WHERE"
        " course = ?)",
        "DELETE FROM class_games WHERE course = ?",
        "DELETE FROM class_final WHERE course = ?",
        "DELETE FROM class_final_pairs WHERE course = ?",
        "DELETE FROM class_submissions WHERE course = ?",
        "DELETE FROM class_students WHERE course = ?",
        "DELETE FROM class_courses WHERE id = ?",
    };
    bool ok = class__begin(svc);
    for (size_t i = 0; ok && i < sizeof sql / sizeof sql[0]; i++)
        ok = run_ii(svc, sql[i], course, 0, 1);
    return class__commit(svc, ok);
}
