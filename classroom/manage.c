/*
 * manage.c — what an instructor may undo or remove (internal.h; issue 25:
 * nothing an instructor does is irreversible). Until the final starts, the
 * deadline can be moved (a frozen course unfreezes when it moves to a time
 * to come) and extended for one student; the gates can be played again,
 * every submission's or one's, with a new ladder (checked as at creation)
 * or after a reference was fixed — the course unfreezes and freezes again
 * once they are through. A course can be archived (submissions closed,
 * everything kept) and deleted (every row and file of it). The final's
 * re-run is course_start_final's (requests.c). Settings that touch nothing
 * played (the scrimmage, the largest submission) change at any time
 * (course_settings).
 *
 * A ladder being played when its submission is reset goes on, but its
 * results are dropped (the submission's run counted up, class__apply);
 * queued ladders and remote bots' jobs are dropped at once.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "classroom/internal.h"
#include "engine/errors.h"

bool class__before_final(const req *r, const course_t *c, const char *what)
{
    if (strcmp(c->final_state, "running") != 0 && strcmp(c->final_state, "done") != 0)
        return true;
    class__fail(r, ENG_EINVAL, "final_started",
                "the final has %s: %s only before it starts (the final can be played again: "
                "course_start_final with \"rerun\": true)",
                strcmp(c->final_state, "running") == 0 ? "started" : "been played", what);
    return false;
}

/* ---- the deadline -------------------------------------------------------------------------- */

void class__set_deadline(const req *r)
{
    course_t c;
    if (!class__need_course(r, &c))
        return;
    class_service *svc = r->svc;
    int64_t d = r->c->deadline_ms.v, now = class__now_ms();
    const char *sid = r->c->student;
    char err[400];
    bool ok = true;
    if (d < 0) {
        class__fail(r, ENG_EBAD_MESSAGE, NULL,
                    "course_set_deadline needs \"deadline_ms\" (epoch milliseconds; 0: now)");
        ok = false;
    } else if (!class__before_final(r, &c, "deadlines can be moved")) {
        ok = false;
    } else if (d > 0 && d <= now) {
        class__deadline_past(d, err, sizeof err);
        class__fail(r, ENG_EINVAL, "past_deadline", "%s", err);
        ok = false;
    }
    if (ok && sid) {
        /* one student's extension; 0 removes it */
        int rc = class__student_set_deadline(svc, c.id, sid, d);
        if (rc == 0)
            class__fail(r, ENG_EINVAL, "unknown_student", "no student '%.60s' on the roster", sid);
        else if (rc < 0)
            class__fail(r, ENG_ESTORAGE, NULL, "the extension could not be stored");
        ok = rc == 1;
    } else if (ok) {
        if (d == 0)
            d = now;
        ok = class__course_set_deadline(svc, c.id, d);
        if (!ok)
            class__fail(r, ENG_ESTORAGE, NULL, "the deadline could not be stored");
    }
    /* a deadline (or an extension) moved to a time to come reopens a frozen course */
    if (ok && c.frozen_ms && d > now && !class__unfreeze(svc, c.id)) {
        class__fail(r, ENG_ESTORAGE, NULL, "the course could not be unfrozen");
        ok = false;
    }
    if (ok) {
        class__log(svc, CLASS_LOG_INFO, "course_deadline", "{s:I, s:I, s:s}", "course",
                   (json_int_t)c.id, "deadline_ms", (json_int_t)d, "student", sid ? sid : "");
        class__freeze_due(svc);
        class__reply_course(r, "course_deadline", c.id);
    }
    class__course_release(&c);
}

/* ---- the gates played again ------------------------------------------------------------------ */

/* Every submission of l's course (or l->sub) reset and queued again, the
 * new ladder (l->n.gates_text, if any) stored first; answered. */
static void rerun_now(class_service *svc, later *l)
{
    req r = class__later_req(svc, l);
    course_t c;
    if (!class__course_load(svc, l->course, &c)) {
        class__fail(&r, ENG_EINVAL, "unknown_course", "no course with id %lld",
                    (long long)l->course);
        return;
    }
    if (!class__before_final(&r, &c, "gates can be played again")) {
        class__course_release(&c);
        return;
    }
    int64_t *ids = NULL;
    bool ok = class__begin(svc);
    ok =
        ok && (!l->n.gates_text || class__course_set_gates(svc, c.id, l->n.gates_text, l->qualify));
    ok = ok && class__unfreeze(svc, c.id);
    int n = ok ? class__subs_of(svc, c.id, l->sub, &ids) : -1;
    ok = ok && n >= 0;
    for (int i = 0; ok && i < n; i++)
        ok = class__sub_reset(svc, ids[i]);
    if (!class__commit(svc, ok)) {
        free(ids);
        class__course_release(&c);
        class__fail(&r, ENG_ESTORAGE, NULL, "the gates could not be reset");
        return;
    }
    /* what is queued or waiting for these submissions goes; what is being
     * played finishes, and is dropped (their run moved on) */
    class__drop_jobs(svc, c.id, l->sub);
    class__remote_forget(svc, c.id, l->sub);
    for (int i = 0; i < n; i++)
        class__queue_ladder(svc, ids[i]);
    free(ids);
    class__log(svc, CLASS_LOG_INFO, "course_gates_rerun", "{s:I, s:i, s:b}", "course",
               (json_int_t)c.id, "submissions", n, "new_gates", l->n.gates_text != NULL);
    json_t *rep = proto_reply("course_gates_rerun", r.id);
    json_t *cj = NULL;
    course_t now;
    if (class__course_load(svc, c.id, &now)) {
        cj = class__course_json(&now);
        class__course_release(&now);
    }
    json_object_set_new(rep, "course", cj ? cj : json_integer(c.id));
    json_object_set_new(rep, "submissions", json_integer(n));
    class__reply(&r, rep);
    class__course_release(&c);
}

static void rerun_checked(class_service *svc, void *arg, int rc, const char *why)
{
    later *l = arg;
    req r = class__later_req(svc, l);
    if (rc)
        class__fail(&r, rc, rc == ENG_EINVAL ? "bad_gate" : NULL, "%s", why);
    else if (svc->stopping)
        class__fail(&r, ENG_ESHUTTING_DOWN, NULL, "the server is shutting down");
    else
        rerun_now(svc, l);
    class__later_free(l);
}

void class__rerun_gates(const req *r)
{
    course_t c;
    if (!class__need_course(r, &c))
        return;
    later *l = NULL;
    class_gate gates[CLASS_MAX_GATES];
    int ng = c.ngates;
    char err[512];
    sub_t s;
    const proto_course *m = r->c;
    int64_t sub = m->submission.set ? m->submission.v : 0;
    if (!class__before_final(r, &c, "gates can be played again"))
        goto out;
    if (sub && (!class__sub_load(r->svc, sub, &s) || s.course != c.id)) {
        class__fail(r, ENG_EINVAL, "unknown_submission", "no submission %lld in this course",
                    (long long)sub);
        goto out;
    }
    if (m->gates && (ng = class_gates_parse(m->gates, c.g, gates, err, sizeof err)) < 0) {
        class__fail(r, ng, NULL, "%s", err);
        goto out;
    }
    int qualify = m->qualify.set ? (int)m->qualify.v : c.qualify < ng ? c.qualify : ng;
    if (qualify < 0 || qualify > ng) {
        class__fail(r, ENG_EINVAL, NULL,
                    "qualify: the gates a submission must pass to qualify, 0 to %d", ng);
        goto out;
    }
    if (!(l = class__later_new(r))) {
        class__fail(r, ENG_ENOMEM, NULL, "out of memory");
        goto out;
    }
    l->course = c.id;
    l->sub = sub;
    l->qualify = qualify;
    if (m->gates || m->qualify.set) {
        json_t *gj = class_gates_json(m->gates ? gates : c.gates, ng);
        l->n.gates_text = json_dumps(gj, JSON_COMPACT);
        json_decref(gj);
    }
    if (!m->gates) {
        rerun_now(r->svc, l); /* the same ladder: its programs were checked when it was set */
        class__later_free(l);
    } else if (r->svc->checking >= CLASS_MAX_CHECKS) {
        class__fail(r, ENG_ETOO_MANY, NULL, "%d checks are running; send it again in a moment",
                    r->svc->checking);
        class__later_free(l);
    } else if (!class__check_gates(r->svc, c.g, gates, ng, c.move_ms, c.seed, rerun_checked, l)) {
        class__fail(r, ENG_EINTERNAL, NULL, "the gates could not be checked; send it again");
        class__later_free(l);
    }
out:
    class__course_release(&c);
}

/* ---- archive, delete ------------------------------------------------------------------------- */

void class__archive(const req *r)
{
    course_t c;
    if (!class__need_course(r, &c))
        return;
    bool on = r->c->archived.v != 0;
    if (on)
        class__scrim_drop(r->svc, c.id);
    if (!class__course_archive(r->svc, c.id, on))
        class__fail(r, ENG_ESTORAGE, NULL, "the course could not be changed");
    else
        class__reply_course(r, "course_archived", c.id);
    class__course_release(&c);
}

/* course_settings: each field given checked, then all stored, or nothing. */
void class__settings(const req *r)
{
    course_t c;
    if (!class__need_course(r, &c))
        return;
    const proto_course *m = r->c;
    int scrim = c.scrimmage;
    int64_t ceiling = r->svc->max_upload, max = m->max_upload_bytes.set ? m->max_upload_bytes.v : 0;
    if (m->scrimmage && !class_scrim_parse(m->scrimmage, &scrim)) {
        class__fail(r, ENG_EINVAL, "bad_setting",
                    "scrimmage: off, instructor (its table on your page only) or class (on "
                    "every student's page too), not \"%.40s\"",
                    m->scrimmage);
    } else if (m->max_upload_bytes.set && (max < CLASS_MAX_UPLOAD || max > ceiling)) {
        class__fail(r, ENG_EINVAL, "too_large",
                    "max_upload_bytes: the largest submission, %d to %lld bytes (the server's "
                    "[courses] max_upload_mb)",
                    CLASS_MAX_UPLOAD, (long long)ceiling);
    } else if (!class__course_set_settings(r->svc, c.id, scrim, max)) {
        class__fail(r, ENG_ESTORAGE, NULL, "the course could not be changed");
    } else {
        class__log(r->svc, CLASS_LOG_INFO, "course_settings", "{s:I, s:s, s:I}", "course",
                   (json_int_t)c.id, "scrimmage", class_scrim_name(scrim), "max_upload_bytes",
                   (json_int_t)(max ? max : c.max_upload));
        if (scrim == CLASS_SCRIM_OFF)
            class__scrim_drop(r->svc, c.id);
        class__reply_course(r, "course_settings", c.id);
        class__scrim_pump(r->svc);
    }
    class__course_release(&c);
}

void class__delete(const req *r)
{
    course_t c;
    if (!class__need_course(r, &c))
        return;
    class_service *svc = r->svc;
    if (strcmp(r->c->confirm, c.name) != 0) {
        class__fail(r, ENG_EINVAL, "confirm",
                    "course_delete deletes the roster, every submission, game and grade of the "
                    "course: give its name, \"%s\", in \"confirm\"",
                    c.name);
    } else if (strcmp(c.final_state, "running") == 0) {
        class__fail(r, ENG_EINVAL, "final_started",
                    "the final is running: a course is deleted before or after its final");
    } else {
        class__drop_jobs(svc, c.id, 0);
        class__remote_forget(svc, c.id, 0);
        class__scrim_drop(svc, c.id);
        if (!class__course_delete(svc, c.id)) {
            class__fail(r, ENG_ESTORAGE, NULL, "the course could not be deleted");
        } else {
            char dir[PATH_MAX];
            snprintf(dir, sizeof dir, "%s/course-%lld", svc->dir, (long long)c.id);
            class_rmtree(dir); /* what cannot be removed stays: no row points at it any more */
            class__log(svc, CLASS_LOG_INFO, "course_deleted", "{s:I, s:s}", "course",
                       (json_int_t)c.id, "name", c.name);
            json_t *rep = proto_reply("course_deleted", r->id);
            json_object_set_new(rep, "course", json_integer(c.id));
            class__reply(r, rep);
        }
    }
    class__course_release(&c);
}
