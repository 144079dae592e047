/*
 * requests.c — the course_* messages but uploads (internal.h): the
 * instructor's (a course's settings checked and stored, the roster and its
 * tokens, the deadline, the final, the grades, the list) and the views both
 * roles read (a course, a game, a submission's code). Each answers through
 * class__reply / class__fail, at once.
 */
#include <limits.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "classroom/internal.h"
#include "classroom/pool.h"
#include "engine/errors.h"
#include "protocol/codec.h"
#include "protocol/wire.h"
#include "tournament/limits.h"
#include "tournament/tour.h"

void class__reply_course(const req *r, const char *type, int64_t id)
{
    course_t c;
    json_t *rep = proto_reply(type, r->id);
    if (class__course_load(r->svc, id, &c)) {
        json_object_update_new(rep, class__course_json(&c));
        class__course_release(&c);
    }
    class__reply(r, rep);
}

/* The builds' pool now (the server's, all courses): building, waiting, threads. */
static json_t *builds_json(class_service *svc)
{
    int running = 0, waiting = 0, threads = 0;
    if (svc->builds)
        class_pool_counts(svc->builds, &running, &waiting, &threads);
    return json_pack("{s:i, s:i, s:i}", "building", running, "waiting", waiting, "threads",
                     threads);
}

/* ---- who asks ----------------------------------------------------------------------------- */

bool class_request_is_instructor(const proto_msg *m)
{
    switch (m->type) {
    case PROTO_COURSE_VIEW:
    case PROTO_COURSE_GAME:
    case PROTO_COURSE_CODE: return m->admin_token || !m->course.token;
    case PROTO_COURSE_SUBMIT:
    case PROTO_COURSE_UPLOAD: return false;
    default: return proto_is_course(m->type);
    }
}

bool class__need_student(const req *r, student_t *out)
{
    const char *t = r->c->token;
    if (!t || strlen(t) != CLASS_TOKEN_LEN) {
        class__fail(r, ENG_EBAD_TOKEN, "bad_token",
                    "%s needs your student token (\"token\", %d characters)", r->type,
                    CLASS_TOKEN_LEN);
        return false;
    }
    char h[65];
    class_token_hash(t, h);
    if (class__student_by_token(r->svc, h, out))
        return true;
    class__log(r->svc, CLASS_LOG_WARN, "student_token_refused", "{s:I, s:s, s:s}", "conn",
               (json_int_t)r->caller, "peer", r->peer ? r->peer : "", "type", r->type);
    class__fail(r, ENG_EBAD_TOKEN, "bad_token", "no student has that token");
    return false;
}

/* Why submissions are closed to a student (the reason, with a message in
 * msg), or NULL while they are open: the course archived, or frozen, or
 * past its deadline and the student's extension. */
const char *class__closed_to(const course_t *c, const student_t *who, int64_t now, char *msg,
                             size_t cap)
{
    int64_t until = c->deadline_ms;
    if (until && who->deadline_ms > until)
        until = who->deadline_ms;
    if (c->archived) {
        snprintf(msg, cap, "the course is archived: submissions are closed");
        return "archived";
    }
    if (c->frozen_ms || (until && now >= until)) {
        snprintf(msg, cap, "the deadline has passed: submissions are closed");
        return "deadline_passed";
    }
    return NULL;
}

int64_t class__upload_limit(const class_service *svc, const course_t *c)
{
    int64_t ceiling = svc->max_upload > 0 ? svc->max_upload : CLASS_MAX_UPLOAD_CEILING;
    return c->max_upload < ceiling ? c->max_upload : ceiling;
}

bool class__need_course(const req *r, course_t *c)
{
    if (!r->c->course.set) {
        class__fail(r, ENG_EBAD_MESSAGE, NULL, "%s needs \"course\" (an integer id)", r->type);
        return false;
    }
    if (!class__course_load(r->svc, r->c->course.v, c)) {
        class__fail(r, ENG_EINVAL, "unknown_course", "no course with id %lld",
                    (long long)r->c->course.v);
        return false;
    }
    return true;
}

void class__deadline_past(int64_t ms, char *err, size_t cap)
{
    char when[40], now[40];
    class__utc(ms, when, sizeof when);
    class__utc(class__now_ms(), now, sizeof now);
    snprintf(err, cap,
             "deadline_ms: %s is in the past (it is %s now): a deadline past would close the "
             "course at once; give a time to come, or deadline_ms 0 with course_set_deadline "
             "to close submissions now",
             when, now);
}

/* ---- course_create --------------------------------------------------------------------------- */

/* The new course's settings from the message: 0 and n filled (its texts
 * owned), or a reply sent. */
static int settings_of(const req *r, course_new *n)
{
    const proto_course *m = r->c;
    memset(n, 0, sizeof *n);
    if (!*m->name || strlen(m->name) > CLASS_NAME_MAX) {
        class__fail(r, ENG_EBAD_MESSAGE, NULL,
                    "course_create needs \"name\" (1 to %d characters) and \"game\"",
                    CLASS_NAME_MAX);
        return -1;
    }
    n->name = m->name;
    n->g = eng_find_game(m->game);
    if (!n->g || !codec_find(n->g->name)) {
        class__fail(r, ENG_EUNKNOWN_GAME, NULL, "no game named '%.40s' (see list_games)", m->game);
        return -1;
    }
    json_t *rj = m->rules ? json_deep_copy(m->rules) : json_object();
    json_object_set_new(rj, "players", json_integer(2));
    eng_rules er;
    char err[512];
    int rc = wire_rules_parse(n->g, rj, 2, &er, err, sizeof err);
    if (rc) {
        json_decref(rj);
        class__fail(r, rc, NULL, "rules: %s", err);
        return -1;
    }
    n->remote_wait_ms = m->remote_wait_ms.set ? m->remote_wait_ms.v : CLASS_REMOTE_WAIT_MS;
    int64_t ceiling = r->svc->max_upload;
    n->max_upload = m->max_upload_bytes.set
                        ? m->max_upload_bytes.v
                        : (CLASS_DEFAULT_UPLOAD < ceiling ? CLASS_DEFAULT_UPLOAD : ceiling);
    n->move_ms = m->move_ms.set ? m->move_ms.v : 1000;
    n->qualify = m->qualify.set ? m->qualify.v : 1;
    n->final_games = m->final_games.set ? m->final_games.v : 2;
    n->deadline_ms = m->deadline_ms.set ? m->deadline_ms.v : 0;
    n->scrimmage = CLASS_SCRIM_OFF;
    class_gate gates[CLASS_MAX_GATES];
    int ng = -1;
    const char *bad = NULL, *reason = NULL;
    if (m->scrimmage && !class_scrim_parse(m->scrimmage, &n->scrimmage)) {
        rc = ENG_EINVAL;
        reason = "bad_setting";
        snprintf(err, sizeof err, "scrimmage: off, instructor or class, not \"%.40s\"",
                 m->scrimmage);
    } else if (n->max_upload < CLASS_MAX_UPLOAD || n->max_upload > ceiling) {
        rc = ENG_EINVAL;
        reason = "too_large";
        snprintf(err, sizeof err,
                 "max_upload_bytes: the largest submission, %d to %lld bytes (the server's "
                 "[courses] max_upload_mb)",
                 CLASS_MAX_UPLOAD, (long long)ceiling);
    } else if (n->remote_wait_ms < 1000 || n->remote_wait_ms > CLASS_MAX_REMOTE_WAIT_MS) {
        rc = ENG_EINVAL;
        snprintf(err, sizeof err,
                 "remote_wait_ms: how long a remote bot's gates wait for it, 1000 to %lld ms",
                 (long long)CLASS_MAX_REMOTE_WAIT_MS);
    } else if (n->move_ms < PROTO_MIN_MOVE_MS || n->move_ms > 600000) {
        rc = ENG_EINVAL;
        snprintf(err, sizeof err, "move_ms: 1 to 600000 milliseconds per move");
    } else if ((ng = class_gates_parse(m->gates, n->g, gates, err, sizeof err)) < 0) {
        rc = ng;
    } else if (n->qualify < 0 || n->qualify > ng) {
        rc = ENG_EINVAL;
        snprintf(err, sizeof err, "qualify: the gates a submission must pass to qualify, 0 to %d",
                 ng);
    } else if (n->final_games < 2 || n->final_games > CLASS_MAX_FINAL_GAMES) {
        rc = ENG_EINVAL;
        snprintf(err, sizeof err, "final_games: 2 to %d games per pair", CLASS_MAX_FINAL_GAMES);
    } else if (n->deadline_ms < 0) {
        rc = ENG_EINVAL;
        bad = "deadline_ms: epoch milliseconds (0: none yet)";
    } else if (n->deadline_ms > 0 && n->deadline_ms <= class__now_ms()) {
        rc = ENG_EINVAL;
        reason = "past_deadline";
        class__deadline_past(n->deadline_ms, err, sizeof err);
    }
    if (rc) {
        json_decref(rj);
        class__fail(r, rc, reason, "%s", bad ? bad : err);
        return -1;
    }
    n->created_ms = class__now_ms();
    n->seed = m->seed.set ? m->seed.v
                          : (int64_t)(((uint64_t)n->created_ms * 0x9e3779b97f4a7c15ULL) >> 12);
    n->final_games += n->final_games & 1;
    n->rules_text = json_dumps(rj, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(rj);
    json_t *gj = class_gates_json(gates, ng);
    n->gates_text = json_dumps(gj, JSON_COMPACT);
    json_decref(gj);
    memcpy(n->gates, gates, (size_t)ng * sizeof *gates);
    n->ngates = ng;
    return 0;
}

later *class__later_new(const req *r)
{
    later *l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    l->caller = r->caller;
    l->id = r->id ? json_deep_copy(r->id) : NULL;
    snprintf(l->type, sizeof l->type, "%s", r->type);
    return l;
}

req class__later_req(class_service *svc, const later *l)
{
    req r = {.svc = svc, .caller = l->caller, .id = l->id, .type = l->type};
    return r;
}

void class__later_free(later *l)
{
    free(l->n.rules_text);
    free(l->n.gates_text);
    json_decref(l->id);
    free(l);
}

/* The new course's gates were checked: stored, or refused with why. */
static void create_checked(class_service *svc, void *arg, int rc, const char *why)
{
    later *l = arg;
    req r = class__later_req(svc, l);
    const course_new *n = &l->n;
    int64_t id = 0;
    if (rc)
        class__fail(&r, rc, rc == ENG_EINVAL ? "bad_gate" : NULL, "%s", why);
    else if (svc->stopping)
        class__fail(&r, ENG_ESHUTTING_DOWN, NULL, "the server is shutting down");
    else if (!(id = class__course_insert(svc, n)))
        class__fail(&r, ENG_ESTORAGE, NULL, "the course could not be stored");
    if (id) {
        class__log(svc, CLASS_LOG_INFO, "course_created", "{s:I, s:s, s:s, s:i}", "course",
                   (json_int_t)id, "name", n->name, "game", n->g->name, "gates", n->ngates);
        class__reply_course(&r, "course_created", id);
    }
    class__later_free(l);
}

void class__create(const req *r)
{
    later *l = class__later_new(r);
    if (!l) {
        class__fail(r, ENG_ENOMEM, NULL, "out of memory");
        return;
    }
    if (settings_of(r, &l->n)) {
        class__later_free(l);
        return;
    }
    snprintf(l->name, sizeof l->name, "%s", l->n.name);
    l->n.name = l->name;
    if (!l->n.rules_text || !l->n.gates_text) {
        class__fail(r, ENG_ENOMEM, NULL, "out of memory");
        class__later_free(l);
        return;
    }
    /* the instructor's programs among the opponents are played first, as
     * doctor would: a course never judges against a broken reference */
    if (r->svc->checking >= CLASS_MAX_CHECKS) {
        class__fail(r, ENG_ETOO_MANY, NULL, "%d checks are running; send it again in a moment",
                    r->svc->checking);
        class__later_free(l);
        return;
    }
    if (!class__check_gates(r->svc, l->n.g, l->n.gates, l->n.ngates, l->n.move_ms,
                            (uint64_t)l->n.seed, create_checked, l)) {
        class__fail(r, ENG_EINTERNAL, NULL, "the gates could not be checked; send it again");
        class__later_free(l);
    }
}

/* ---- the roster --------------------------------------------------------------- */

void class__add_students(const req *r)
{
    course_t c;
    if (!class__need_course(r, &c))
        return;
    const char *csv = r->c->csv;
    class_person *ps = NULL;
    char err[300];
    int n = class_roster_parse(csv, strlen(csv), &ps, err, sizeof err);
    if (n < 0) {
        class__course_release(&c);
        class__fail(r, n, "bad_roster", "roster: %s", err);
        return;
    }
    json_t *students;
    char *handout;
    int have;
    const char *dup;
    int rc = class__roster_add(r->svc, c.id, ps, n, &students, &handout, &have, &dup);
    if (rc == ENG_ETOO_MANY)
        class__fail(r, ENG_ETOO_MANY, NULL, "a course takes at most %d students (%d already)",
                    CLASS_MAX_STUDENTS, have);
    else if (rc == ENG_EINVAL)
        class__fail(r, ENG_EINVAL, "bad_roster",
                    "roster: the id '%s' is already on this course's roster", dup);
    else if (rc)
        class__fail(r, ENG_ESTORAGE, NULL, "the roster could not be stored");
    if (rc) {
        free(ps);
        class__course_release(&c);
        return;
    }
    class__log(r->svc, CLASS_LOG_INFO, "course_students_added", "{s:I, s:i}", "course",
               (json_int_t)c.id, "added", n);
    json_t *rep = proto_reply("course_students_added", r->id);
    json_object_set_new(rep, "course", json_integer(c.id));
    json_object_set_new(rep, "students", students);
    json_object_set_new(rep, "handout_csv", json_string(handout));
    class__reply(r, rep);
    free(handout);
    free(ps);
    class__course_release(&c);
}

/* ---- the final ------------------------------------------------------------------------------- */

/* The final's job: every frozen submission, in roster order; NULL after a
 * reply. *remote: one of them is a remote bot. */
static job *final_job(const req *r, const course_t *c, bool *remote)
{
    sub_t *subs = NULL;
    int n = class__subs_frozen(r->svc, c->id, &subs);
    job *j = n >= 0 ? calloc(1, sizeof *j) : NULL;
    bool ok = j != NULL;
    if (ok && n > 0) {
        j->specs = calloc((size_t)n, sizeof *j->specs);
        j->names = calloc((size_t)n, sizeof *j->names);
        j->students = calloc((size_t)n, sizeof *j->students);
        j->subs = calloc((size_t)n, sizeof *j->subs);
        ok = j->specs && j->names && j->students && j->subs;
    }
    *remote = false;
    for (int i = 0; ok && i < n; i++) {
        char spec[CLASS_SPEC_MAX];
        class__ensure_files(r->svc, &subs[i]);
        class__sub_spec(&subs[i], spec, sizeof spec);
        j->subs[i] = subs[i].id;
        j->students[i] = subs[i].student;
        j->names[i] = strdup(subs[i].sid);
        j->specs[i] = strdup(spec);
        j->n = i + 1;
        ok = j->names[i] && j->specs[i];
        *remote = *remote || strcmp(subs[i].kind, "remote") == 0;
    }
    free(subs);
    if (!ok) {
        class__job_free(j);
        class__fail(r, ENG_ENOMEM, NULL, "out of memory");
        return NULL;
    }
    if (j->n < 2 || j->n > TOUR_MAX_PARTICIPANTS) {
        int k = j->n;
        class__job_free(j);
        if (k < 2)
            class__fail(r, ENG_EINVAL, "too_few",
                        "the final needs at least two frozen submissions; %d student%s qualified",
                        k, k == 1 ? "" : "s");
        else
            class__fail(r, ENG_ETOO_MANY, "too_many",
                        "a round-robin takes at most %d participants; %d submissions are frozen",
                        TOUR_MAX_PARTICIPANTS, k);
        return NULL;
    }
    return j;
}

void class__start_final(const req *r)
{
    course_t c;
    if (!class__need_course(r, &c))
        return;
    int64_t gpp = r->c->games_per_pair.set ? r->c->games_per_pair.v : c.final_games;
    tour_format format = TOUR_ROUND_ROBIN;
    char ferr[200];
    job *j = NULL;
    bool remote = false;
    bool again = strcmp(c.final_state, "done") == 0 && r->c->rerun.set && r->c->rerun.v;
    if (!c.frozen_ms)
        class__fail(r, ENG_EINVAL, "not_frozen",
                    "the final starts from the frozen set: set the deadline first "
                    "(course_set_deadline)");
    else if (strcmp(c.final_state, "running") == 0)
        class__fail(r, ENG_EINVAL, "final_started", "the final is already running");
    else if (strcmp(c.final_state, "done") == 0 && !again)
        class__fail(r, ENG_EINVAL, "final_started",
                    "the final has been played: send \"rerun\": true to play it again (its "
                    "standings and games are replaced)");
    else if (gpp < 2 || gpp > CLASS_MAX_FINAL_GAMES)
        class__fail(r, ENG_EINVAL, NULL, "games_per_pair: 2 to %d", CLASS_MAX_FINAL_GAMES);
    else if (r->c->format && (tour_format_parse(r->c->format, &format, ferr, sizeof ferr) != 0 ||
                              format == TOUR_GAUNTLET))
        class__fail(r, ENG_EINVAL, NULL,
                    "format: \"round-robin\", \"swiss\" or \"knockout\" (a gauntlet needs a "
                    "reference participant: use a gate)");
    else
        j = final_job(r, &c, &remote);
    if (!j) {
        class__course_release(&c);
        return;
    }
    gpp += gpp & 1;
    j->final = true;
    j->course = c.id;
    j->g = c.g;
    j->rules = c.rules;
    j->move_ms = c.move_ms;
    j->seed = c.seed;
    j->final_games = gpp;
    j->format = (int)format;
    char note[120];
    snprintf(note, sizeof note, "%s of %d finalists, %lld games per pair", tour_format_name(format),
             j->n, (long long)gpp);
    int n = j->n;
    /* a final played again: its standings and games go first */
    if ((again && !class__final_clear(r->svc, c.id)) ||
        !class__final_state(r->svc, c.id, "running", note)) {
        class__job_free(j);
        class__course_release(&c);
        class__fail(r, ENG_ESTORAGE, NULL, "the final could not be stored");
        return;
    }
    if (remote) {
        bool started = class__remote_final(r, &c, j, (int)format, gpp);
        class__job_free(j);
        if (!started) {
            class__course_release(&c);
            return;
        }
    } else if (r->svc->claims && format == TOUR_ROUND_ROBIN) {
        /* several servers: its pairs, for every server to claim (finals.c) */
        bool split = class__final_split(r->svc, j);
        class__job_free(j);
        if (!split) {
            class__final_failed(r->svc, c.id, "its pairs could not be stored");
            class__course_release(&c);
            class__fail(r, ENG_ESTORAGE, NULL, "the final could not be stored");
            return;
        }
        class__claim_pump(r->svc);
    } else {
        class__push_job(r->svc, j);
    }
    class__scrim_drop(r->svc, c.id); /* the scrimmage ends where the final begins */
    class__log(r->svc, CLASS_LOG_INFO, "course_final_started", "{s:I, s:i}", "course",
               (json_int_t)c.id, "finalists", n);
    json_t *rep = proto_reply("course_final_started", r->id);
    json_object_set_new(rep, "course", json_integer(c.id));
    json_object_set_new(rep, "finalists", json_integer(n));
    json_object_set_new(rep, "games_per_pair", json_integer(gpp));
    json_object_set_new(rep, "format", json_string(tour_format_name(format)));
    class__reply(r, rep);
    class__course_release(&c);
}

/* ---- grades, list, views ------------------------------------------------------------------ */

void class__grades(const req *r)
{
    course_t c;
    if (!class__need_course(r, &c))
        return;
    char *csv = class_grades_csv(r->svc->db, c.id);
    if (!csv) {
        class__course_release(&c);
        class__fail(r, ENG_ESTORAGE, NULL, "the grades could not be read");
        return;
    }
    json_t *rep = proto_reply("course_grades", r->id);
    json_object_set_new(rep, "course", json_integer(c.id));
    json_object_set_new(rep, "final_state", json_string(c.final_state));
    json_object_set_new(rep, "csv", json_string(csv));
    class__reply(r, rep);
    free(csv);
    class__course_release(&c);
}

void class__list(const req *r)
{
    json_t *a = json_array();
    int64_t *ids = NULL;
    int n = class__course_ids(r->svc, &ids);
    for (int i = 0; i < n; i++) {
        course_t c;
        if (class__course_load(r->svc, ids[i], &c)) {
            json_array_append_new(a, class__course_json(&c));
            class__course_release(&c);
        }
    }
    free(ids);
    json_t *rep = proto_reply("course_list", r->id);
    json_object_set_new(rep, "courses", a);
    class__reply(r, rep);
}

/* course_view: the instructor's (the course) or a student's (their token) */
void class__view(const req *r)
{
    course_t c;
    if (class_request_is_instructor(r->m)) {
        if (!class__need_course(r, &c))
            return;
        json_t *rep = proto_reply("course_view", r->id);
        json_object_set_new(rep, "role", json_string("instructor"));
        json_object_set_new(rep, "builds", builds_json(r->svc));
        json_object_set_new(rep, "course", class__course_json(&c));
        json_object_set_new(rep, "roster", class__roster_json(r->svc, c.id));
        json_object_set_new(rep, "submissions", class__subs_json(r->svc, c.id, 0));
        json_object_set_new(rep, "final", class__final_json(r->svc, c.id, 0));
        json_object_set_new(rep, "final_games", class__final_games_json(r->svc, c.id, 0));
        json_object_set_new(rep, "scrimmage", class__scrim_json(r->svc, &c, 0));
        class__redact(r->svc, rep);
        class__reply(r, rep);
        class__course_release(&c);
        return;
    }
    student_t who;
    if (!class__need_student(r, &who))
        return;
    if (!class__course_load(r->svc, who.course, &c)) {
        class__fail(r, ENG_EINTERNAL, NULL, "your course could not be read");
        return;
    }
    json_t *rep = proto_reply("course_view", r->id);
    json_object_set_new(rep, "role", json_string("student"));
    json_object_set_new(rep, "builds", builds_json(r->svc));
    json_object_set_new(rep, "student",
                        json_pack("{s:s, s:s, s:I}", "student_id", who.sid, "name", who.name,
                                  "deadline_ms", (json_int_t)who.deadline_ms));
    json_object_set_new(rep, "course", class__course_json(&c));
    json_object_set_new(rep, "submissions", class__subs_json(r->svc, c.id, who.id));
    json_object_set_new(rep, "final", class__final_json(r->svc, c.id, who.id));
    json_object_set_new(rep, "final_games", class__final_games_json(r->svc, c.id, who.id));
    json_t *scrim = class__scrim_json(r->svc, &c, who.id); /* when the class may see it */
    if (scrim)
        json_object_set_new(rep, "scrimmage", scrim);
    class__redact(r->svc, rep);
    class__reply(r, rep);
    class__course_release(&c);
}

/* course_game: a game's record, verdict, times and stderr. A student gets
 * only games with their submission in a seat, and only their seat's
 * stderr. */
void class__game(const req *r)
{
    bool admin = class_request_is_instructor(r->m);
    student_t who = {0};
    if (!admin && !class__need_student(r, &who))
        return;
    int64_t gid = r->c->game_id.v;
    json_t *rep = proto_reply("course_game", r->id);
    int rc = class__game_json(r->svc, gid, admin ? NULL : &who, rep);
    if (rc == 0) {
        class__redact(r->svc, rep);
        class__reply(r, rep);
        return;
    }
    json_decref(rep);
    if (rc == ENG_EFORBIDDEN)
        class__fail(r, ENG_EFORBIDDEN, "not_yours", "game %lld is not one of your games",
                    (long long)gid);
    else if (rc == ENG_EINVAL)
        class__fail(r, ENG_EINVAL, "unknown_game", "no course game %lld", (long long)gid);
    else
        class__fail(r, ENG_ESTORAGE, NULL, "the game could not be read");
}

/* course_code: a submission's files (base64), for its student or the
 * instructor. */
void class__code(const req *r)
{
    bool admin = class_request_is_instructor(r->m);
    student_t who = {0};
    if (!admin && !class__need_student(r, &who))
        return;
    int64_t sid = r->c->submission.v;
    sub_t s;
    json_t *files = NULL;
    int64_t version = 0;
    int rc = class__sub_code(r->svc, sid, &s, &files, &version);
    if (rc == ENG_ESTORAGE) {
        class__fail(r, ENG_ESTORAGE, NULL, "the submission could not be read");
        return;
    }
    if (rc || (!admin && s.student != who.id)) {
        json_decref(files);
        if (admin)
            class__fail(r, ENG_EINVAL, "unknown_submission", "no submission %lld", (long long)sid);
        else
            class__fail(r, ENG_EFORBIDDEN, "not_yours", "submission %lld is not one of yours",
                        (long long)sid);
        return;
    }
    class__ensure_files(r->svc, &s); /* another server's */
    json_t *out = json_array();
    size_t i;
    json_t *f;
    size_t shown = 0;
    json_array_foreach(files, i, f)
    {
        const char *name = json_string_value(json_object_get(f, "name"));
        char path[PATH_MAX + 80];
        snprintf(path, sizeof path, "%s/%s", s.dir, name ? name : "");
        FILE *fp = name ? fopen(path, "rb") : NULL;
        struct stat sb;
        size_t size = fp && fstat(fileno(fp), &sb) == 0 ? (size_t)sb.st_size : 0;
        /* a book or weights file of megabytes is listed, not sent: the
         * reply stays a message a page can take */
        if (size > CLASS_CODE_SHOWN || shown + size > CLASS_CODE_SHOWN_TOTAL) {
            if (fp)
                fclose(fp);
            json_array_append_new(out, json_pack("{s:s, s:n, s:I, s:s}", "name", name ? name : "",
                                                 "data", "bytes", (json_int_t)size, "omitted",
                                                 "too large to show"));
            continue;
        }
        unsigned char *buf = malloc(size + 1);
        size_t n = fp && buf ? fread(buf, 1, size, fp) : 0;
        if (fp)
            fclose(fp);
        shown += n;
        char *b64 = malloc(4 * ((n + 2) / 3) + 1);
        if (b64 && buf)
            EVP_EncodeBlock((unsigned char *)b64, buf, (int)n);
        else if (b64)
            b64[0] = '\0';
        free(buf);
        json_array_append_new(out, json_pack("{s:s, s:s, s:I}", "name", name ? name : "", "data",
                                             b64 ? b64 : "", "bytes", (json_int_t)n));
        free(b64);
    }
    json_decref(files);
    json_t *rep = proto_reply("course_code", r->id);
    json_object_set_new(rep, "submission", json_integer(sid));
    json_object_set_new(rep, "version", json_integer(version));
    json_object_set_new(rep, "kind", json_string(s.kind));
    json_object_set_new(rep, "main", json_string(s.main));
    json_object_set_new(rep, "files", out);
    class__reply(r, rep);
}
