/*
 * courses.c — classroom competitions on the server (docs/classroom.md):
 * the course_* messages, the background worker that runs each new
 * submission through its course's gate ladder and plays the finals, and
 * the deadline timer that freezes each student's latest qualifying
 * submission.
 *
 * The logic without sockets is classroom/ (roster, tokens, upload checks,
 * verdicts, play through the tournament runner, the class_ tables, grades);
 * this file speaks the protocol, keeps the files under the server's data
 * directory (<db>.files/course-C/student-S/vN/), and schedules.
 *
 * Who may do what. Instructor messages carry the server's admin token
 * (forbidden otherwise). A student's messages carry their own token, which
 * names the student and the course; it shows only that student's
 * submissions, code, games, stderr and standing — every other id is
 * answered `forbidden`, whether it exists or not.
 *
 * Threads. Everything here runs on the loop, which alone touches the
 * database, except the worker threads that play ([courses] gate_jobs of
 * them, default 2: that many submissions' ladders at once): each takes a
 * job (a submission's ladder, or a course's final) with every string it
 * needs copied, plays it with class_play (no database), and hands each
 * gate's games and verdict, or the final's, back through a uv_async_t; the
 * loop stores them, one transaction each. A job cut short by shutdown is
 * simply played again at the next start (its state in the database is
 * still queued or running, and nothing of it was stored).
 *
 * Remote bots (kind "remote"). The student runs the bot; the server gives
 * out a registered name and secret (registry.c stores the hash). Its gates
 * are not the workers' jobs: each is a server tournament (tournaments.c,
 * tours_create_started) of the registered bot against the gate's opponent,
 * started on the loop once the bot is connected, its games handed back by
 * hooks as they end (record, time) and its standings when it is over. A
 * final with a remote bot in it is one such tournament of every finalist.
 * A bot not connected is waited for (state "waiting") up to the course's
 * remote_wait_ms from the submission and never past the deadline.
 */
#include <errno.h>
#include <limits.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "classroom/classroom.h"
#include "cluster.h"
#include "conn.h"
#include "courses.h"
#include "internal.h"
#include "match.h"
#include "registry.h"
#include "journal.h"
#include "tournaments.h"
#include "tournament/limits.h"
#include "tournament/tour.h"

#define COURSES_TICK_MS           1000 /* deadline checks, remote bots' waits */
#define COURSES_GATE_THREADS      2    /* runner workers of a gate or final */
#define COURSES_MAX_JOBS          16   /* worker threads at most (config courses.gate_jobs) */
#define COURSES_GATE_JOBS_DEFAULT 2    /* submissions played at once: 2 x 2 games on 2+ cores */
/* A remote bot's seat in a server match: after a dropped connection (or
 * when it is not connected as the game starts) it has the longer of this
 * and 3 moves' time to come back (the bridge reconnects within 5 s) before
 * the game is lost by "disconnect". */
#define COURSES_REMOTE_GRACE_MS 10000

/* ---- jobs between the loop and the worker ------------------------------------------------ */

typedef struct cgame {
    class_game g; /* strings below are owned copies */
    char *record;
    char *err[ENG_MAX_PLAYERS];
    char end[24];
    char verdict[CLASS_VERDICT_MAX];
    bool no_stderr; /* a server match: no seat's stderr was kept */
} cgame;

typedef struct job {
    struct job *next;
    bool final; /* a final, else a submission's ladder */
    int64_t course, submission;
    const eng_game *g;
    eng_rules rules;
    int64_t move_ms;
    uint64_t seed;
    int qualify;
    /* ladder */
    char spec[PATH_MAX + 32];
    class_gate gates[CLASS_MAX_GATES];
    int ngates;
    /* final */
    int n;
    char **specs, **names;
    int64_t *students, *subs;
    int64_t final_games;
    int format; /* the final's tour_format */
} job;

typedef struct done {
    struct done *next;
    int kind; /* DONE_GATE, DONE_SUB, DONE_FINAL, DONE_FAILED, DONE_START (a ladder begins) */
    int64_t course, submission;
    int gate;
    class_gate gatedef;
    class_standing st[2]; /* gate: [0] the student, [1] the opponent */
    bool passed;
    char verdict[CLASS_VERDICT_MAX];
    int gates_passed;
    bool qualified;
    cgame *games;
    int ngames, capgames;
    /* final */
    int n;
    int64_t *students, *subs;
    class_standing *fst;
} done;

enum { DONE_GATE, DONE_SUB, DONE_FINAL, DONE_FAILED, DONE_START };

static struct courses {
    srv *s;
    char dir[PATH_MAX / 2]; /* the data directory, absolute */
    pthread_t thread[COURSES_MAX_JOBS];
    int nthreads;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    job *jobs, *jobs_tail;
    done *done, *done_tail;
    atomic_bool stop;
    uv_async_t async;
    uv_timer_t timer;
    bool handles;       /* async and timer initialised */
    struct rjob *rjobs; /* remote submissions' gates and finals with remote bots (loop) */
} C;

static void job_free(job *j)
{
    if (!j)
        return;
    for (int i = 0; i < j->n; i++) {
        if (j->specs)
            free(j->specs[i]);
        if (j->names)
            free(j->names[i]);
    }
    free(j->specs);
    free(j->names);
    free(j->students);
    free(j->subs);
    free(j);
}

static void done_free(done *d)
{
    for (int i = 0; i < d->ngames; i++) {
        free(d->games[i].record);
        for (int s = 0; s < ENG_MAX_PLAYERS; s++)
            free(d->games[i].err[s]);
    }
    free(d->games);
    free(d->students);
    free(d->subs);
    free(d->fst);
    free(d);
}

static void post(done *d)
{
    pthread_mutex_lock(&C.lock);
    if (C.done_tail)
        C.done_tail->next = d;
    else
        C.done = d;
    C.done_tail = d;
    pthread_mutex_unlock(&C.lock);
    uv_async_send(&C.async);
}

/* on_game of class_play: copy the game into the done item being filled */
static void keep_game(const class_game *g, void *user)
{
    done *d = user;
    if (d->ngames == d->capgames) {
        int nc = d->capgames ? d->capgames * 2 : 16;
        cgame *ng = realloc(d->games, (size_t)nc * sizeof *ng);
        if (!ng)
            return; /* the verdict still counts it; the game's details are lost */
        d->games = ng;
        d->capgames = nc;
    }
    cgame *c = &d->games[d->ngames++];
    memset(c, 0, sizeof *c);
    c->g = *g;
    snprintf(c->end, sizeof c->end, "%s", g->end);
    snprintf(c->verdict, sizeof c->verdict, "%s", g->verdict);
    c->record = strdup(g->record);
    for (int s = 0; s < g->seats; s++)
        c->err[s] = strdup(g->stderr_text[s]);
    c->g.end = c->end;
    c->g.verdict = c->verdict;
    c->g.record = c->record ? c->record : "";
    for (int s = 0; s < g->seats; s++)
        c->g.stderr_text[s] = c->err[s] ? c->err[s] : "";
}

/* A gate's pass/fail and verdict from its standing d->st[0]; the verdict
 * names the first fault of the submission, if any. */
static void gate_verdict(done *d, const class_gate *gate)
{
    d->passed = class_gate_passed(gate, d->st[0].points, d->st[0].games);
    const char *fault = "";
    int64_t nfault = 0;
    for (int k = 0; k < d->ngames; k++) {
        const class_game *g = &d->games[k].g;
        if (g->culprit >= 0 && g->who[g->culprit] == 0) {
            if (!nfault++)
                fault = g->verdict;
        }
    }
    int n = snprintf(d->verdict, sizeof d->verdict,
                     "%s: scored %.1f of %lld (%.0f%%, needs %.0f%%) against %.200s",
                     d->passed ? "passed" : "failed", d->st[0].points, (long long)d->st[0].games,
                     100 * d->st[0].rate, 100 * gate->min_rate, gate->opponent);
    if (n < 0 || (size_t)n >= sizeof d->verdict)
        return;
    if (nfault)
        snprintf(d->verdict + n, sizeof d->verdict - (size_t)n,
                 "; %lld game%s lost by a fault, first: %.300s", (long long)nfault,
                 nfault == 1 ? "" : "s", fault);
}

static void run_ladder(job *j)
{
    int passed = 0;
    char last[CLASS_VERDICT_MAX] = "";
    for (int i = 0; i < j->ngates; i++) {
        done *d = calloc(1, sizeof *d);
        if (!d)
            break;
        d->kind = DONE_GATE;
        d->course = j->course;
        d->submission = j->submission;
        d->gate = i;
        d->gatedef = j->gates[i];
        const char *specs[2] = {j->spec, j->gates[i].opponent};
        const char *names[2] = {"submission", "opponent"};
        class_play_config pc = {.game = j->g,
                                .rules = j->rules,
                                .specs = specs,
                                .names = names,
                                .n = 2,
                                .games_per_pair = j->gates[i].games,
                                .move_ms = j->move_ms,
                                .seed = j->seed ^ (0x9e3779b97f4a7c15ULL * (uint64_t)(i + 1)),
                                .threads = COURSES_GATE_THREADS,
                                .stop = &C.stop,
                                .on_game = keep_game,
                                .user = d};
        char err[512];
        int rc = class_play(&pc, d->st, err, sizeof err);
        if (rc == ENG_ESHUTTING_DOWN || atomic_load(&C.stop)) {
            done_free(d);
            return; /* played again at the next start */
        }
        if (rc) {
            d->kind = DONE_FAILED;
            snprintf(d->verdict, sizeof d->verdict, "gate %d could not be played: %.300s", i + 1,
                     err);
            post(d);
            return;
        }
        gate_verdict(d, &j->gates[i]);
        snprintf(last, sizeof last, "gate %d %.380s", i + 1, d->verdict);
        bool ok = d->passed;
        post(d);
        if (!ok)
            break;
        passed++;
    }
    done *d = calloc(1, sizeof *d);
    if (!d)
        return;
    d->kind = DONE_SUB;
    d->course = j->course;
    d->submission = j->submission;
    d->gates_passed = passed;
    d->qualified = passed >= j->qualify;
    snprintf(d->verdict, sizeof d->verdict, "%s %d of %d gates; %.360s",
             d->qualified ? "qualified:" : "not qualified:", passed, j->ngates, last);
    post(d);
}

static void run_final(job *j)
{
    done *d = calloc(1, sizeof *d);
    if (!d)
        return;
    d->kind = DONE_FINAL;
    d->course = j->course;
    d->n = j->n;
    d->students = malloc((size_t)j->n * sizeof *d->students);
    d->subs = malloc((size_t)j->n * sizeof *d->subs);
    d->fst = calloc((size_t)j->n, sizeof *d->fst);
    if (!d->students || !d->subs || !d->fst) {
        d->kind = DONE_FAILED;
        snprintf(d->verdict, sizeof d->verdict, "out of memory");
        post(d);
        return;
    }
    memcpy(d->students, j->students, (size_t)j->n * sizeof *d->students);
    memcpy(d->subs, j->subs, (size_t)j->n * sizeof *d->subs);
    class_play_config pc = {.game = j->g,
                            .rules = j->rules,
                            .specs = (const char *const *)j->specs,
                            .names = (const char *const *)j->names,
                            .n = j->n,
                            .format = j->format,
                            .games_per_pair = j->final_games,
                            .move_ms = j->move_ms,
                            .seed = j->seed ^ 0xf1a1ULL,
                            .threads = COURSES_GATE_THREADS,
                            .stop = &C.stop,
                            .on_game = keep_game,
                            .user = d};
    char err[512];
    int rc = class_play(&pc, d->fst, err, sizeof err);
    if (rc == ENG_ESHUTTING_DOWN || atomic_load(&C.stop)) {
        done_free(d);
        return;
    }
    if (rc) {
        d->kind = DONE_FAILED;
        snprintf(d->verdict, sizeof d->verdict, "the final could not be played: %.300s", err);
    }
    post(d);
}

static void *worker_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&C.lock);
    while (!atomic_load(&C.stop)) {
        job *j = C.jobs;
        if (!j) {
            pthread_cond_wait(&C.cond, &C.lock);
            continue;
        }
        C.jobs = j->next;
        if (!C.jobs)
            C.jobs_tail = NULL;
        pthread_mutex_unlock(&C.lock);
        if (j->final) {
            run_final(j);
        } else {
            done *d = calloc(1, sizeof *d);
            if (d) { /* the page shows it in its gates, not waiting in the queue */
                d->kind = DONE_START;
                d->course = j->course;
                d->submission = j->submission;
                snprintf(d->verdict, sizeof d->verdict, "gate 1: playing against %.300s",
                         j->gates[0].opponent);
                post(d);
            }
            run_ladder(j);
        }
        job_free(j);
        pthread_mutex_lock(&C.lock);
    }
    pthread_mutex_unlock(&C.lock);
    return NULL;
}

static void push_job(job *j)
{
    pthread_mutex_lock(&C.lock);
    if (C.jobs_tail)
        C.jobs_tail->next = j;
    else
        C.jobs = j;
    C.jobs_tail = j;
    pthread_cond_signal(&C.cond);
    pthread_mutex_unlock(&C.lock);
}

/* ---- database helpers --------------------------------------------------------------------- */

/* The server's database (SQLite or PostgreSQL, storage/db.h): the SQL here
 * is the subset both engines accept. Several servers may share one
 * PostgreSQL database, so ids and version numbers are the database's, never
 * computed here, and a failure inside a transaction is rolled back (on
 * PostgreSQL it has aborted the transaction). */
static db_conn *db(void)
{
    return journal_db(C.s->db);
}

static bool exec(const char *sql)
{
    if (db_exec(db(), sql) == DB_OK)
        return true;
    srv_log(LOG_ERROR, "courses_sql", "{s:s, s:s}", "sql", sql, "error", db_errmsg(db()));
    return false;
}

static db_stmt *prep(const char *sql)
{
    db_stmt *st = NULL;
    if (db_prepare(db(), sql, &st) != DB_OK) {
        srv_log(LOG_ERROR, "courses_sql", "{s:s, s:s}", "sql", sql, "error", db_errmsg(db()));
        return NULL;
    }
    return st;
}

/* db_step, a failure logged (PostgreSQL reports a statement's errors when
 * it runs, not when it is prepared). A refused key is the caller's to
 * report: it may be expected (a student id already on the roster). */
static int step(db_stmt *st)
{
    int rc = db_step(st);
    if (rc < 0 && rc != DB_ECONSTRAINT)
        srv_log(LOG_ERROR, "courses_sql", "{s:s, s:i}", "error", db_errmsg(db()), "code", rc);
    return rc;
}

/* Run an INSERT ... RETURNING id: the new row's id, or 0 when it failed
 * (*rc: its DB_E* code). */
static int64_t insert_id(db_stmt *st, int *rc)
{
    int64_t id = 0;
    *rc = step(st);
    if (*rc == DB_ROW) {
        id = db_column_int64(st, 0);
        *rc = step(st); /* to its end: SQLite finishes the statement */
    }
    if (*rc != DB_DONE)
        id = 0;
    return id;
}

/* Roll back the transaction open on the database, if any. */
static void rollback(void)
{
    if (db_in_transaction(db()))
        exec("ROLLBACK");
}

/* End the transaction open since BEGIN: committed when ok (every statement
 * in it succeeded: on PostgreSQL a COMMIT after a failed one rolls back
 * without an error), else rolled back. Whether it was committed. */
static bool commit(bool ok)
{
    if (ok && exec("COMMIT"))
        return true;
    rollback();
    return false;
}

static const char *col_text(db_stmt *st, int i)
{
    const char *t = db_column_text(st, i);
    return t ? t : "";
}

/* A course row as loaded for scheduling. */
typedef struct course {
    int64_t id;
    char name[CLASS_NAME_MAX + 1];
    const eng_game *g;
    eng_rules rules;
    json_t *rules_json; /* owned */
    int64_t move_ms;
    class_gate gates[CLASS_MAX_GATES];
    int ngates;
    int qualify;
    uint64_t seed;
    int64_t final_games, deadline_ms, frozen_ms, created_ms;
    int64_t remote_wait_ms; /* how long a remote submission waits for its bot */
    int64_t final_tour;     /* the server tournament of a final with remote bots, or 0 */
    char final_state[16];
    char final_note[CLASS_VERDICT_MAX];
} course_t;

static bool load_course(int64_t id, course_t *c)
{
    memset(c, 0, sizeof *c);
    db_stmt *st = prep("SELECT name, game, rules, move_ms, gates, qualify, seed, final_games,"
                       " deadline_ms, frozen_ms, final_state, final_note, created_ms,"
                       " remote_wait_ms, final_tour FROM class_courses WHERE id = ?");
    if (!st)
        return false;
    db_bind_int64(st, 1, id);
    bool ok = false;
    if (step(st) == DB_ROW) {
        c->id = id;
        snprintf(c->name, sizeof c->name, "%s", col_text(st, 0));
        c->g = eng_find_game(col_text(st, 1));
        c->rules_json = json_loads(col_text(st, 2), 0, NULL);
        c->move_ms = db_column_int64(st, 3);
        json_t *gj = json_loads(col_text(st, 4), 0, NULL);
        char err[256];
        c->ngates = c->g ? class_gates_parse(gj, c->g, c->gates, err, sizeof err) : -1;
        json_decref(gj);
        c->qualify = db_column_int(st, 5);
        c->seed = (uint64_t)db_column_int64(st, 6);
        c->final_games = db_column_int64(st, 7);
        c->deadline_ms = db_column_int64(st, 8);
        c->frozen_ms = db_column_int64(st, 9);
        snprintf(c->final_state, sizeof c->final_state, "%s", col_text(st, 10));
        snprintf(c->final_note, sizeof c->final_note, "%s", col_text(st, 11));
        c->created_ms = db_column_int64(st, 12);
        c->remote_wait_ms = db_column_int64(st, 13);
        c->final_tour = db_column_int64(st, 14);
        ok = c->g && c->ngates > 0 &&
             wire_rules_parse(c->g, c->rules_json, 2, &c->rules, err, sizeof err) == 0;
    }
    db_finalize(st);
    if (!ok)
        json_decref(c->rules_json);
    return ok;
}

static void course_release(course_t *c)
{
    json_decref(c->rules_json);
    c->rules_json = NULL;
}

static int mkdirs(const char *path);

/* Make sure submission sub's folder is on this machine: another server of
 * the cluster may have written it (its files are in class_files too). The
 * folder is made again where the row says, the main file of a native bot
 * executable. 0, or -1 when it cannot be made (logged). */
static int ensure_files(int64_t sub, const char *dir, const char *kind, const char *main)
{
    struct stat sb;
    if (!dir[0] || strcmp(kind, "remote") == 0 || stat(dir, &sb) == 0)
        return 0;
    db_stmt *st = prep("SELECT name, data FROM class_files WHERE submission = ? ORDER BY name");
    if (!st)
        return -1;
    db_bind_int64(st, 1, sub);
    int n = 0, rc = mkdirs(dir);
    while (rc == 0 && step(st) == DB_ROW) {
        const char *name = db_column_text(st, 0);
        int len = 0;
        const void *data = db_column_blob(st, 1, &len);
        char path[PATH_MAX + 80];
        snprintf(path, sizeof path, "%s/%s", dir, name ? name : "");
        FILE *f = name && strchr(name, '/') == NULL ? fopen(path, "wbx") : NULL;
        bool ok = f && (len == 0 || fwrite(data, 1, (size_t)len, f) == (size_t)len);
        if (f && fclose(f) != 0)
            ok = false;
        bool exe = strcmp(kind, class_kind_name(CLASS_ELF)) == 0 && name && strcmp(name, main) == 0;
        if (!ok || chmod(path, exe ? 0755 : 0644) != 0)
            rc = -1;
        n++;
    }
    db_finalize(st);
    if (rc == 0 && n == 0)
        rc = -1; /* nothing to make it from */
    srv_log(rc ? LOG_ERROR : LOG_INFO, "submission_files", "{s:I, s:s, s:i, s:s}", "submission",
            (json_int_t)sub, "dir", dir, "files", n, "outcome",
            rc ? "could not be made again on this server" : "made again from the database");
    return rc;
}

/* The spec a submission runs as. */
static void sub_spec(const char *kind, const char *dir, const char *main, char *out, size_t cap)
{
    if (strcmp(kind, "python") == 0)
        snprintf(out, cap, "cmd:python3 %s/%s", dir, main);
    else if (strcmp(kind, "remote") == 0) /* main: the name registered for it */
        snprintf(out, cap, "remote:%s", main);
    else
        snprintf(out, cap, "cmd:%s/%s", dir, main);
}

static void queue_remote(int64_t sub, int64_t course, const char *name, int64_t created_ms);

/* Queue a submission's ladder (state becomes running when the worker
 * reports; queued until then). */
static void queue_ladder(int64_t sub)
{
    db_stmt *st = prep("SELECT course, kind, dir, main, created_ms, tour FROM"
                       " class_submissions WHERE id = ?");
    if (!st)
        return;
    db_bind_int64(st, 1, sub);
    if (step(st) != DB_ROW) {
        db_finalize(st);
        return;
    }
    if (strcmp(col_text(st, 1), "remote") == 0) {
        /* a server tournament a previous run left: its games start again */
        if (db_column_int64(st, 5))
            tours_cancel_id(C.s, db_column_int64(st, 5));
        queue_remote(sub, db_column_int64(st, 0), col_text(st, 3), db_column_int64(st, 4));
        db_finalize(st);
        return;
    }
    job *j = calloc(1, sizeof *j);
    course_t c;
    if (!j || !load_course(db_column_int64(st, 0), &c)) {
        free(j);
        db_finalize(st);
        return;
    }
    j->course = c.id;
    j->submission = sub;
    j->g = c.g;
    j->rules = c.rules;
    j->move_ms = c.move_ms;
    j->seed = c.seed;
    j->qualify = c.qualify;
    memcpy(j->gates, c.gates, sizeof j->gates);
    j->ngates = c.ngates;
    ensure_files(sub, col_text(st, 2), col_text(st, 1), col_text(st, 3));
    sub_spec(col_text(st, 1), col_text(st, 2), col_text(st, 3), j->spec, sizeof j->spec);
    db_finalize(st);
    course_release(&c);
    push_job(j);
}

/* ---- replies ------------------------------------------------------------------------------ */

static void fail(conn *c, int code, const char *reason, const json_t *id, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void fail(conn *c, int code, const char *reason, const json_t *id, const char *fmt, ...)
{
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    json_t *e = proto_error(code, msg, id);
    if (reason)
        json_object_set_new(e, "reason", json_string(reason));
    conn_send(c, e);
}

typedef struct req {
    conn *c;
    json_t *root;
    const json_t *id;
    const char *type;
} req;

static const char *str_of(const req *r, const char *key)
{
    return json_string_value(json_object_get(r->root, key));
}

static bool int_of(const req *r, const char *key, int64_t *out)
{
    json_t *v = json_object_get(r->root, key);
    if (!json_is_integer(v))
        return false;
    *out = json_integer_value(v);
    return true;
}

/* The instructor's messages: the admin token, or a forbidden reply. */
static bool need_admin(const req *r)
{
    const char *t = str_of(r, "admin_token");
    if (!t) {
        fail(r->c, ENG_EFORBIDDEN, "admin_only", r->id,
             "%s needs the server's admin token (\"admin_token\")", r->type);
        return false;
    }
    if (!admin_token_ok(r->c->srv, t)) {
        srv_log(LOG_WARN, "admin_token_refused", "{s:I, s:s, s:s}", "conn", (json_int_t)r->c->id,
                "peer", r->c->peer, "type", r->type);
        fail(r->c, ENG_EFORBIDDEN, "admin_only", r->id, "the admin token does not match");
        return false;
    }
    return true;
}

typedef struct student {
    int64_t id, course;
    char sid[CLASS_FIELD_MAX + 1], name[CLASS_FIELD_MAX + 1];
} student_t;

/* A student's message: their token names them, or a bad_token reply. */
static bool need_student(const req *r, student_t *out)
{
    const char *t = str_of(r, "token");
    if (!t || strlen(t) != CLASS_TOKEN_LEN) {
        fail(r->c, ENG_EBAD_TOKEN, "bad_token", r->id,
             "%s needs your student token (\"token\", %d characters)", r->type, CLASS_TOKEN_LEN);
        return false;
    }
    char h[65];
    class_token_hash(t, h);
    db_stmt *st = prep("SELECT id, course, sid, name FROM class_students WHERE token_hash = ?");
    bool ok = false;
    if (st) {
        db_bind_text(st, 1, h, -1);
        if (step(st) == DB_ROW) {
            out->id = db_column_int64(st, 0);
            out->course = db_column_int64(st, 1);
            snprintf(out->sid, sizeof out->sid, "%s", col_text(st, 2));
            snprintf(out->name, sizeof out->name, "%s", col_text(st, 3));
            ok = true;
        }
        db_finalize(st);
    }
    if (!ok) {
        srv_log(LOG_WARN, "student_token_refused", "{s:I, s:s, s:s}", "conn", (json_int_t)r->c->id,
                "peer", r->c->peer, "type", r->type);
        fail(r->c, ENG_EBAD_TOKEN, "bad_token", r->id, "no student has that token");
    }
    return ok;
}

static bool need_course(const req *r, course_t *c)
{
    int64_t id;
    if (!int_of(r, "course", &id)) {
        fail(r->c, ENG_EBAD_MESSAGE, NULL, r->id, "%s needs \"course\" (an integer id)", r->type);
        return false;
    }
    if (!load_course(id, c)) {
        fail(r->c, ENG_EINVAL, "unknown_course", r->id, "no course with id %lld", (long long)id);
        return false;
    }
    return true;
}

/* ---- views ---------------------------------------------------------------------------------- */

static json_t *course_json(const course_t *c)
{
    return json_pack("{s:I, s:s, s:s, s:O, s:I, s:o, s:i, s:I, s:I, s:I, s:s, s:s, s:I, s:I}",
                     "course", (json_int_t)c->id, "name", c->name, "game", c->g->name, "rules",
                     c->rules_json, "move_ms", (json_int_t)c->move_ms, "gates",
                     class_gates_json(c->gates, c->ngates), "qualify", c->qualify, "final_games",
                     (json_int_t)c->final_games, "deadline_ms", (json_int_t)c->deadline_ms,
                     "frozen_ms", (json_int_t)c->frozen_ms, "final_state", c->final_state,
                     "final_note", c->final_note, "created_ms", (json_int_t)c->created_ms,
                     "remote_wait_ms", (json_int_t)c->remote_wait_ms);
}

/* A submission with its gates (student 0: any). */
static json_t *subs_json(int64_t course, int64_t student)
{
    json_t *a = json_array();
    db_stmt *st = prep(
        "SELECT s.id, s.student, st.sid, s.version, s.kind, s.main, s.files, s.bytes, s.sha256,"
        " s.created_ms, s.state, s.gates_passed, s.qualified, s.verdict, s.frozen"
        " FROM class_submissions s JOIN class_students st ON st.id = s.student"
        " WHERE s.course = ? AND (? = 0 OR s.student = ?) ORDER BY s.id");
    db_stmt *gq = prep("SELECT gate, opponent, games, wins, losses, draws, points, rate,"
                       " min_rate, passed, faults, verdict, ms_per_move FROM class_gates"
                       " WHERE submission = ? ORDER BY gate");
    db_stmt *gg = prep("SELECT id FROM class_games WHERE submission = ? AND gate = ?"
                       " AND stage = 'gate' ORDER BY idx");
    if (!st || !gq || !gg)
        goto out;
    db_bind_int64(st, 1, course);
    db_bind_int64(st, 2, student);
    db_bind_int64(st, 3, student);
    while (step(st) == DB_ROW) {
        int64_t id = db_column_int64(st, 0);
        json_t *gates = json_array();
        db_reset(gq);
        db_bind_int64(gq, 1, id);
        while (step(gq) == DB_ROW) {
            json_t *games = json_array();
            db_reset(gg);
            db_bind_int64(gg, 1, id);
            db_bind_int(gg, 2, db_column_int(gq, 0));
            while (step(gg) == DB_ROW)
                json_array_append_new(games, json_integer(db_column_int64(gg, 0)));
            json_array_append_new(
                gates,
                json_pack("{s:i, s:s, s:I, s:I, s:I, s:I, s:f, s:f, s:f, s:b, s:I, s:s, s:o, s:f}",
                          "gate", db_column_int(gq, 0), "opponent", col_text(gq, 1), "games",
                          (json_int_t)db_column_int64(gq, 2), "wins",
                          (json_int_t)db_column_int64(gq, 3), "losses",
                          (json_int_t)db_column_int64(gq, 4), "draws",
                          (json_int_t)db_column_int64(gq, 5), "points", db_column_double(gq, 6),
                          "rate", db_column_double(gq, 7), "min_rate", db_column_double(gq, 8),
                          "passed", db_column_int(gq, 9) != 0, "faults",
                          (json_int_t)db_column_int64(gq, 10), "verdict", col_text(gq, 11),
                          "game_ids", games, "ms_per_move", db_column_double(gq, 12)));
        }
        json_t *files = json_loads(col_text(st, 6), 0, NULL);
        json_array_append_new(
            a,
            json_pack("{s:I, s:s, s:I, s:s, s:s, s:o, s:I, s:s, s:I, s:s, s:i, s:b, s:s, s:b, "
                      "s:o}",
                      "submission", (json_int_t)id, "student_id", col_text(st, 2), "version",
                      (json_int_t)db_column_int64(st, 3), "kind", col_text(st, 4), "main",
                      col_text(st, 5), "files", files ? files : json_array(), "bytes",
                      (json_int_t)db_column_int64(st, 7), "sha256", col_text(st, 8), "created_ms",
                      (json_int_t)db_column_int64(st, 9), "state", col_text(st, 10), "gates_passed",
                      db_column_int(st, 11), "qualified", db_column_int(st, 12) != 0, "verdict",
                      col_text(st, 13), "frozen", db_column_int(st, 14) != 0, "gates", gates));
    }
out:
    db_finalize(st);
    db_finalize(gq);
    db_finalize(gg);
    return a;
}

/* The final's standings (student 0: all rows). */
static json_t *final_json(int64_t course, int64_t student)
{
    json_t *a = json_array();
    db_stmt *st = prep(
        "SELECT st.sid, st.name, f.place, f.games, f.wins, f.losses, f.draws, f.points, f.rate,"
        " f.elo, f.elo_lo, f.elo_hi, s.version, f.ms_per_move, f.faults FROM class_final f"
        " JOIN class_students st ON st.id = f.student JOIN class_submissions s ON s.id ="
        " f.submission WHERE f.course = ? AND (? = 0 OR f.student = ?)"
        " ORDER BY f.place, st.row, st.id");
    if (!st)
        return a;
    db_bind_int64(st, 1, course);
    db_bind_int64(st, 2, student);
    db_bind_int64(st, 3, student);
    while (step(st) == DB_ROW)
        json_array_append_new(
            a, json_pack(
                   "{s:s, s:s, s:i, s:I, s:I, s:I, s:I, s:f, s:f, s:f, s:f, s:f, s:I, s:f, s:I}",
                   "student_id", col_text(st, 0), "name", col_text(st, 1), "place",
                   db_column_int(st, 2), "games", (json_int_t)db_column_int64(st, 3), "wins",
                   (json_int_t)db_column_int64(st, 4), "losses", (json_int_t)db_column_int64(st, 5),
                   "draws", (json_int_t)db_column_int64(st, 6), "points", db_column_double(st, 7),
                   "rate", db_column_double(st, 8), "rating", db_column_double(st, 9), "rating_low",
                   db_column_double(st, 10), "rating_high", db_column_double(st, 11), "version",
                   (json_int_t)db_column_int64(st, 12), "ms_per_move", db_column_double(st, 13),
                   "faults", (json_int_t)db_column_int64(st, 14)));
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

/* Game summaries: of a course's final (student 0: all), for the pages. */
static json_t *final_games_json(int64_t course, int64_t student)
{
    json_t *a = json_array();
    db_stmt *st = prep("SELECT g.id, g.names, g.scores, g.end_reason, g.verdict, g.s0, g.s1,"
                       " g.culprit FROM class_games g WHERE g.course = ? AND"
                       " g.stage = 'final' AND (? = 0 OR g.s0 = ? OR g.s1 = ?) ORDER BY g.idx");
    if (!st)
        return a;
    db_bind_int64(st, 1, course);
    for (int i = 2; i <= 4; i++)
        db_bind_int64(st, i, student);
    while (step(st) == DB_ROW) {
        char v[CLASS_VERDICT_MAX + 1];
        verdict_for(col_text(st, 4), db_column_int(st, 7), student ? seat_of(st, 5, student) : -1,
                    v, sizeof v);
        json_array_append_new(a, json_pack("{s:I, s:o, s:o, s:s, s:s}", "game",
                                           (json_int_t)db_column_int64(st, 0), "names",
                                           json_loads(col_text(st, 1), 0, NULL), "scores",
                                           json_loads(col_text(st, 2), 0, NULL), "end",
                                           col_text(st, 3), "verdict", v));
    }
    db_finalize(st);
    return a;
}

static json_t *roster_json(int64_t course)
{
    json_t *a = json_array();
    db_stmt *st = prep("SELECT s.sid, s.name, s.email,"
                       " (SELECT COUNT(*) FROM class_submissions x WHERE x.student = s.id)"
                       " FROM class_students s WHERE s.course = ? ORDER BY s.row, s.id");
    if (!st)
        return a;
    db_bind_int64(st, 1, course);
    while (step(st) == DB_ROW)
        json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:i}", "student_id", col_text(st, 0),
                                           "name", col_text(st, 1), "email", col_text(st, 2),
                                           "submissions", db_column_int(st, 3)));
    db_finalize(st);
    return a;
}

/* ---- instructor messages -------------------------------------------------------------------- */

static void create_course(const req *r)
{
    const char *name = str_of(r, "name"), *game = str_of(r, "game");
    if (!name || !*name || strlen(name) > CLASS_NAME_MAX || !game) {
        fail(r->c, ENG_EBAD_MESSAGE, NULL, r->id,
             "course_create needs \"name\" (1 to %d characters) and \"game\"", CLASS_NAME_MAX);
        return;
    }
    const eng_game *g = eng_find_game(game);
    if (!g || !codec_find(g->name)) {
        fail(r->c, ENG_EUNKNOWN_GAME, NULL, r->id, "no game named '%.40s' (see list_games)", game);
        return;
    }
    json_t *rules = json_object_get(r->root, "rules");
    if (rules && !json_is_object(rules)) {
        fail(r->c, ENG_EBAD_MESSAGE, NULL, r->id, "\"rules\" is an object");
        return;
    }
    json_t *rj = rules ? json_deep_copy(rules) : json_object();
    json_object_set_new(rj, "players", json_integer(2));
    eng_rules er;
    char err[512];
    int rc = wire_rules_parse(g, rj, 2, &er, err, sizeof err);
    if (rc) {
        json_decref(rj);
        fail(r->c, rc, NULL, r->id, "rules: %s", err);
        return;
    }
    int64_t move_ms = 1000, qualify = 1, final_games = 2, deadline = 0, seed = 0;
    int64_t remote_wait = CLASS_REMOTE_WAIT_MS;
    if ((json_object_get(r->root, "remote_wait_ms") &&
         !int_of(r, "remote_wait_ms", &remote_wait)) ||
        remote_wait < 1000 || remote_wait > CLASS_MAX_REMOTE_WAIT_MS) {
        json_decref(rj);
        fail(r->c, ENG_EINVAL, NULL, r->id,
             "remote_wait_ms: how long a remote bot's gates wait for it, 1000 to %lld ms",
             (long long)CLASS_MAX_REMOTE_WAIT_MS);
        return;
    }
    if (json_object_get(r->root, "move_ms") && !int_of(r, "move_ms", &move_ms))
        move_ms = -1;
    if (move_ms < PROTO_MIN_MOVE_MS || move_ms > 600000) {
        json_decref(rj);
        fail(r->c, ENG_EINVAL, NULL, r->id, "move_ms: 1 to 600000 milliseconds per move");
        return;
    }
    class_gate gates[CLASS_MAX_GATES];
    int ng = class_gates_parse(json_object_get(r->root, "gates"), g, gates, err, sizeof err);
    if (ng < 0) {
        json_decref(rj);
        fail(r->c, ng, NULL, r->id, "%s", err);
        return;
    }
    if ((json_object_get(r->root, "qualify") && !int_of(r, "qualify", &qualify)) || qualify < 0 ||
        qualify > ng) {
        json_decref(rj);
        fail(r->c, ENG_EINVAL, NULL, r->id,
             "qualify: the gates a submission must pass to qualify, 0 to %d", ng);
        return;
    }
    if ((json_object_get(r->root, "final_games") && !int_of(r, "final_games", &final_games)) ||
        final_games < 2 || final_games > CLASS_MAX_FINAL_GAMES) {
        json_decref(rj);
        fail(r->c, ENG_EINVAL, NULL, r->id, "final_games: 2 to %d games per pair",
             CLASS_MAX_FINAL_GAMES);
        return;
    }
    if ((json_object_get(r->root, "deadline_ms") && !int_of(r, "deadline_ms", &deadline)) ||
        deadline < 0) {
        json_decref(rj);
        fail(r->c, ENG_EINVAL, NULL, r->id, "deadline_ms: epoch milliseconds (0: none yet)");
        return;
    }
    if (json_object_get(r->root, "seed") && !int_of(r, "seed", &seed)) {
        json_decref(rj);
        fail(r->c, ENG_EINVAL, NULL, r->id, "seed: an integer");
        return;
    }
    if (!json_object_get(r->root, "seed"))
        seed = (int64_t)(((uint64_t)srv_epoch_ms() * 0x9e3779b97f4a7c15ULL) >> 12);
    final_games += final_games & 1;
    char *rtext = json_dumps(rj, JSON_COMPACT | JSON_SORT_KEYS);
    json_t *gj = class_gates_json(gates, ng);
    char *gtext = json_dumps(gj, JSON_COMPACT);
    json_decref(gj);
    json_decref(rj);
    db_stmt *st = prep("INSERT INTO class_courses(name, game, rules, move_ms, gates, qualify,"
                       " seed, final_games, deadline_ms, created_ms, remote_wait_ms)"
                       " VALUES(?,?,?,?,?,?,?,?,?,?,?) RETURNING id");
    bool ok = st && rtext && gtext;
    int64_t id = 0;
    if (ok) {
        db_bind_text(st, 1, name, -1);
        db_bind_text(st, 2, g->name, -1);
        db_bind_text(st, 3, rtext, -1);
        db_bind_int64(st, 4, move_ms);
        db_bind_text(st, 5, gtext, -1);
        db_bind_int64(st, 6, qualify);
        db_bind_int64(st, 7, seed);
        db_bind_int64(st, 8, final_games);
        db_bind_int64(st, 9, deadline);
        db_bind_int64(st, 10, srv_epoch_ms());
        db_bind_int64(st, 11, remote_wait);
        int src;
        id = insert_id(st, &src);
        ok = id > 0;
    }
    db_finalize(st);
    free(rtext);
    free(gtext);
    if (!ok) {
        fail(r->c, ENG_ESTORAGE, NULL, r->id, "the course could not be stored");
        return;
    }
    srv_log(LOG_INFO, "course_created", "{s:I, s:s, s:s, s:i}", "course", (json_int_t)id, "name",
            name, "game", g->name, "gates", ng);
    course_t c;
    json_t *rep = proto_reply("course_created", r->id);
    if (load_course(id, &c)) {
        json_object_update_new(rep, course_json(&c));
        course_release(&c);
    }
    conn_send(r->c, rep);
}

static void add_students(const req *r)
{
    course_t c;
    if (!need_course(r, &c))
        return;
    const char *csv = str_of(r, "csv");
    if (!csv) {
        course_release(&c);
        fail(r->c, ENG_EBAD_MESSAGE, NULL, r->id,
             "course_add_students needs \"csv\": the roster (name,email,id)");
        return;
    }
    class_person *ps = NULL;
    char err[300];
    int n = class_roster_parse(csv, strlen(csv), &ps, err, sizeof err);
    if (n < 0) {
        course_release(&c);
        fail(r->c, n, "bad_roster", r->id, "roster: %s", err);
        return;
    }
    /* counted in the transaction that adds them (with servers sharing a
     * PostgreSQL database, two rosters added at once may still pass it) */
    bool ok = exec("BEGIN IMMEDIATE");
    db_stmt *cnt = ok ? prep("SELECT COUNT(*) FROM class_students WHERE course = ?") : NULL;
    int have = 0;
    ok = ok && cnt;
    if (ok) {
        db_bind_int64(cnt, 1, c.id);
        ok = step(cnt) == DB_ROW;
        have = db_column_int(cnt, 0);
    }
    db_finalize(cnt);
    if (ok && have + n > CLASS_MAX_STUDENTS) {
        rollback();
        free(ps);
        course_release(&c);
        fail(r->c, ENG_ETOO_MANY, NULL, r->id, "a course takes at most %d students (%d already)",
             CLASS_MAX_STUDENTS, have);
        return;
    }
    json_t *out = json_array();
    char *handout = NULL;
    size_t hl = 0, hc = 0;
    ok = ok && class_csv_text(&handout, &hl, &hc, "name,email,id,token,course\n");
    /* each after the last of the roster, numbered by the database */
    db_stmt *ins = ok ? prep("INSERT INTO class_students(course, row, sid, name, email, token_hash)"
                             " SELECT ?1, COALESCE(MAX(row), 0) + 1, ?2, ?3, ?4, ?5"
                             " FROM class_students WHERE course = ?1")
                      : NULL;
    ok = ok && ins;
    for (int i = 0; ok && i < n; i++) {
        char tok[CLASS_TOKEN_LEN + 1], h[65];
        if (class_token_new(tok) != 0) {
            ok = false;
            break;
        }
        class_token_hash(tok, h);
        db_reset(ins);
        db_bind_int64(ins, 1, c.id);
        db_bind_text(ins, 2, ps[i].sid, -1);
        db_bind_text(ins, 3, ps[i].name, -1);
        db_bind_text(ins, 4, ps[i].email, -1);
        db_bind_text(ins, 5, h, -1);
        int src = step(ins);
        if (src == DB_ECONSTRAINT) {
            rollback();
            db_finalize(ins);
            json_decref(out);
            free(handout);
            fail(r->c, ENG_EINVAL, "bad_roster", r->id,
                 "roster: the id '%s' is already on this course's roster", ps[i].sid);
            free(ps);
            course_release(&c);
            return;
        }
        ok = src == DB_DONE;
        char cid[32];
        snprintf(cid, sizeof cid, ",%lld\n", (long long)c.id);
        ok = ok && class_csv_field(&handout, &hl, &hc, ps[i].name) &&
             class_csv_text(&handout, &hl, &hc, ",") &&
             class_csv_field(&handout, &hl, &hc, ps[i].email) &&
             class_csv_text(&handout, &hl, &hc, ",") &&
             class_csv_field(&handout, &hl, &hc, ps[i].sid) &&
             class_csv_text(&handout, &hl, &hc, ",") && class_csv_text(&handout, &hl, &hc, tok) &&
             class_csv_text(&handout, &hl, &hc, cid);
        json_array_append_new(out,
                              json_pack("{s:s, s:s, s:s, s:s}", "student_id", ps[i].sid, "name",
                                        ps[i].name, "email", ps[i].email, "token", tok));
    }
    db_finalize(ins);
    if (!commit(ok)) {
        json_decref(out);
        free(handout);
        free(ps);
        course_release(&c);
        fail(r->c, ENG_ESTORAGE, NULL, r->id, "the roster could not be stored");
        return;
    }
    srv_log(LOG_INFO, "course_students_added", "{s:I, s:i}", "course", (json_int_t)c.id, "added",
            n);
    json_t *rep = proto_reply("course_students_added", r->id);
    json_object_set_new(rep, "course", json_integer(c.id));
    json_object_set_new(rep, "students", out);
    json_object_set_new(rep, "handout_csv", json_string(handout));
    conn_send(r->c, rep);
    free(handout);
    free(ps);
    course_release(&c);
}

static void freeze_check(void);

static void set_deadline(const req *r)
{
    course_t c;
    if (!need_course(r, &c))
        return;
    int64_t d;
    if (!int_of(r, "deadline_ms", &d) || d < 0) {
        course_release(&c);
        fail(r->c, ENG_EBAD_MESSAGE, NULL, r->id,
             "course_set_deadline needs \"deadline_ms\" (epoch milliseconds; 0: now)");
        return;
    }
    if (c.frozen_ms) {
        course_release(&c);
        fail(r->c, ENG_EINVAL, "frozen", r->id, "the course is frozen since its deadline");
        return;
    }
    if (d == 0)
        d = srv_epoch_ms();
    db_stmt *st = prep("UPDATE class_courses SET deadline_ms = ? WHERE id = ?");
    bool ok = st != NULL;
    if (ok) {
        db_bind_int64(st, 1, d);
        db_bind_int64(st, 2, c.id);
        ok = step(st) == DB_DONE;
    }
    db_finalize(st);
    course_release(&c);
    if (!ok) {
        fail(r->c, ENG_ESTORAGE, NULL, r->id, "the deadline could not be stored");
        return;
    }
    freeze_check();
    json_t *rep = proto_reply("course_deadline", r->id);
    if (load_course(c.id, &c)) {
        json_object_update_new(rep, course_json(&c));
        course_release(&c);
    }
    conn_send(r->c, rep);
}

static bool final_remote(const req *rq, const course_t *c, job *j, tour_format format, int64_t gpp);

static void start_final(const req *r)
{
    course_t c;
    if (!need_course(r, &c))
        return;
    if (!c.frozen_ms) {
        course_release(&c);
        fail(r->c, ENG_EINVAL, "not_frozen", r->id,
             "the final starts from the frozen set: set the deadline first (course_set_deadline)");
        return;
    }
    if (strcmp(c.final_state, "running") == 0 || strcmp(c.final_state, "done") == 0) {
        course_release(&c);
        fail(r->c, ENG_EINVAL, "final_started", r->id, "the final is already %s", c.final_state);
        return;
    }
    int64_t gpp = c.final_games;
    if (json_object_get(r->root, "games_per_pair") &&
        (!int_of(r, "games_per_pair", &gpp) || gpp < 2 || gpp > CLASS_MAX_FINAL_GAMES)) {
        course_release(&c);
        fail(r->c, ENG_EINVAL, NULL, r->id, "games_per_pair: 2 to %d", CLASS_MAX_FINAL_GAMES);
        return;
    }
    gpp += gpp & 1;
    tour_format format = TOUR_ROUND_ROBIN;
    const char *fs = str_of(r, "format");
    char ferr[200];
    if (json_object_get(r->root, "format") &&
        (!fs || tour_format_parse(fs, &format, ferr, sizeof ferr) != 0 ||
         format == TOUR_GAUNTLET)) {
        course_release(&c);
        fail(r->c, ENG_EINVAL, NULL, r->id,
             "format: \"round-robin\", \"swiss\" or \"knockout\" (a gauntlet needs a reference "
             "participant: use a gate)");
        return;
    }
    job *j = calloc(1, sizeof *j);
    db_stmt *st = prep("SELECT s.id, s.student, st.sid, s.kind, s.dir, s.main"
                       " FROM class_submissions s JOIN class_students st ON st.id = s.student"
                       " WHERE s.course = ? AND s.frozen = 1 ORDER BY st.row, st.id");
    int cap = 0;
    bool ok = j && st, any_remote = false;
    if (ok) {
        db_bind_int64(st, 1, c.id);
        while (ok && step(st) == DB_ROW) {
            if (j->n == cap) {
                cap = cap ? cap * 2 : 16;
                char **ns = realloc(j->specs, (size_t)cap * sizeof *ns);
                if (ns)
                    j->specs = ns;
                char **nn = realloc(j->names, (size_t)cap * sizeof *nn);
                if (nn)
                    j->names = nn;
                int64_t *a = realloc(j->students, (size_t)cap * sizeof *a);
                if (a)
                    j->students = a;
                int64_t *b = realloc(j->subs, (size_t)cap * sizeof *b);
                if (b)
                    j->subs = b;
                if (!ns || !nn || !a || !b) {
                    ok = false;
                    break;
                }
            }
            char spec[PATH_MAX + 32];
            ensure_files(db_column_int64(st, 0), col_text(st, 4), col_text(st, 3), col_text(st, 5));
            sub_spec(col_text(st, 3), col_text(st, 4), col_text(st, 5), spec, sizeof spec);
            j->subs[j->n] = db_column_int64(st, 0);
            j->students[j->n] = db_column_int64(st, 1);
            j->names[j->n] = strdup(col_text(st, 2));
            j->specs[j->n] = strdup(spec);
            j->n++;
            if (!j->names[j->n - 1] || !j->specs[j->n - 1])
                ok = false;
            if (strcmp(col_text(st, 3), "remote") == 0)
                any_remote = true;
        }
    }
    db_finalize(st);
    if (!ok) {
        job_free(j);
        course_release(&c);
        fail(r->c, ENG_ENOMEM, NULL, r->id, "out of memory");
        return;
    }
    if (j->n < 2) {
        int n = j->n;
        job_free(j);
        course_release(&c);
        fail(r->c, ENG_EINVAL, "too_few", r->id,
             "the final needs at least two frozen submissions; %d student%s qualified", n,
             n == 1 ? "" : "s");
        return;
    }
    if (j->n > TOUR_MAX_PARTICIPANTS) {
        int n = j->n;
        job_free(j);
        course_release(&c);
        fail(r->c, ENG_ETOO_MANY, "too_many", r->id,
             "a round-robin takes at most %d participants; %d submissions are frozen",
             TOUR_MAX_PARTICIPANTS, n);
        return;
    }
    j->final = true;
    j->course = c.id;
    j->g = c.g;
    j->rules = c.rules;
    j->move_ms = c.move_ms;
    j->seed = c.seed;
    j->final_games = gpp;
    j->format = (int)format;
    db_stmt *up = prep("UPDATE class_courses SET final_state = 'running', final_note = ?"
                       " WHERE id = ?");
    char note[120];
    snprintf(note, sizeof note, "%s of %d finalists, %lld games per pair", tour_format_name(format),
             j->n, (long long)gpp);
    ok = up != NULL;
    if (ok) {
        db_bind_text(up, 1, note, -1);
        db_bind_int64(up, 2, c.id);
        ok = step(up) == DB_DONE;
    }
    db_finalize(up);
    if (!ok) {
        job_free(j);
        course_release(&c);
        fail(r->c, ENG_ESTORAGE, NULL, r->id, "the final could not be stored");
        return;
    }
    int n = j->n;
    if (any_remote && !final_remote(r, &c, j, format, gpp)) {
        job_free(j);
        course_release(&c);
        return;
    }
    if (any_remote)
        job_free(j);
    else
        push_job(j);
    srv_log(LOG_INFO, "course_final_started", "{s:I, s:i}", "course", (json_int_t)c.id, "finalists",
            n);
    json_t *rep = proto_reply("course_final_started", r->id);
    json_object_set_new(rep, "course", json_integer(c.id));
    json_object_set_new(rep, "finalists", json_integer(n));
    json_object_set_new(rep, "games_per_pair", json_integer(gpp));
    json_object_set_new(rep, "format", json_string(tour_format_name(format)));
    conn_send(r->c, rep);
    course_release(&c);
}

static void grades(const req *r)
{
    course_t c;
    if (!need_course(r, &c))
        return;
    char *csv = class_grades_csv(db(), c.id);
    if (!csv) {
        course_release(&c);
        fail(r->c, ENG_ESTORAGE, NULL, r->id, "the grades could not be read");
        return;
    }
    json_t *rep = proto_reply("course_grades", r->id);
    json_object_set_new(rep, "course", json_integer(c.id));
    json_object_set_new(rep, "final_state", json_string(c.final_state));
    json_object_set_new(rep, "csv", json_string(csv));
    conn_send(r->c, rep);
    free(csv);
    course_release(&c);
}

static void list_courses(const req *r)
{
    json_t *a = json_array();
    db_stmt *st = prep("SELECT id FROM class_courses ORDER BY id");
    while (st && step(st) == DB_ROW) {
        course_t c;
        if (load_course(db_column_int64(st, 0), &c)) {
            json_array_append_new(a, course_json(&c));
            course_release(&c);
        }
    }
    db_finalize(st);
    json_t *rep = proto_reply("course_list", r->id);
    json_object_set_new(rep, "courses", a);
    conn_send(r->c, rep);
}

/* course_view: the instructor's (admin token and course) or a student's (token) */
static void view(const req *r)
{
    if (str_of(r, "admin_token") || !str_of(r, "token")) {
        course_t c;
        if (!need_admin(r) || !need_course(r, &c))
            return;
        json_t *rep = proto_reply("course_view", r->id);
        json_object_set_new(rep, "role", json_string("instructor"));
        json_object_set_new(rep, "course", course_json(&c));
        json_object_set_new(rep, "roster", roster_json(c.id));
        json_object_set_new(rep, "submissions", subs_json(c.id, 0));
        json_object_set_new(rep, "final", final_json(c.id, 0));
        json_object_set_new(rep, "final_games", final_games_json(c.id, 0));
        conn_send(r->c, rep);
        course_release(&c);
        return;
    }
    student_t who;
    course_t c;
    if (!need_student(r, &who))
        return;
    if (!load_course(who.course, &c)) {
        fail(r->c, ENG_EINTERNAL, NULL, r->id, "your course could not be read");
        return;
    }
    json_t *rep = proto_reply("course_view", r->id);
    json_object_set_new(rep, "role", json_string("student"));
    json_object_set_new(rep, "student",
                        json_pack("{s:s, s:s}", "student_id", who.sid, "name", who.name));
    json_object_set_new(rep, "course", course_json(&c));
    json_object_set_new(rep, "submissions", subs_json(c.id, who.id));
    json_object_set_new(rep, "final", final_json(c.id, who.id));
    json_object_set_new(rep, "final_games", final_games_json(c.id, who.id));
    conn_send(r->c, rep);
    course_release(&c);
}

/* course_game: a game's record, verdict, times and stderr. A student gets
 * only games with their submission in a seat, and only their seat's
 * stderr. */
static void get_game(const req *r)
{
    bool admin = str_of(r, "admin_token") || !str_of(r, "token");
    student_t who = {0};
    if (admin ? !need_admin(r) : !need_student(r, &who))
        return;
    int64_t gid;
    if (!int_of(r, "game", &gid)) {
        fail(r->c, ENG_EBAD_MESSAGE, NULL, r->id, "course_game needs \"game\" (an id)");
        return;
    }
    db_stmt *st = prep("SELECT g.course, g.stage, g.submission, g.gate, g.idx, g.s0, g.s1,"
                       " g.names, g.scores, g.ranks, g.end_reason, g.culprit, g.verdict,"
                       " g.think_ms, g.moves, g.stderr, g.record FROM class_games g"
                       " WHERE g.id = ?");
    if (!st) {
        fail(r->c, ENG_ESTORAGE, NULL, r->id, "the game could not be read");
        return;
    }
    db_bind_int64(st, 1, gid);
    bool found = step(st) == DB_ROW;
    int mine = found && !admin ? seat_of(st, 5, who.id) : -1; /* the student's seat */
    if (!found || (!admin && mine < 0)) {
        db_finalize(st);
        if (!admin)
            fail(r->c, ENG_EFORBIDDEN, "not_yours", r->id, "game %lld is not one of your games",
                 (long long)gid);
        else
            fail(r->c, ENG_EINVAL, "unknown_game", r->id, "no course game %lld", (long long)gid);
        return;
    }
    json_t *errs = json_loads(col_text(st, 15), 0, NULL);
    if (!json_is_array(errs)) {
        json_decref(errs);
        errs = json_array();
    }
    json_t *rep = proto_reply("course_game", r->id);
    json_object_set_new(rep, "game", json_integer(gid));
    json_object_set_new(rep, "course", json_integer(db_column_int64(st, 0)));
    json_object_set_new(rep, "stage", json_string(col_text(st, 1)));
    if (!db_column_null(st, 2))
        json_object_set_new(rep, "submission", json_integer(db_column_int64(st, 2)));
    json_object_set_new(rep, "gate", json_integer(db_column_int(st, 3)));
    json_object_set_new(rep, "index", json_integer(db_column_int64(st, 4)));
    json_object_set_new(rep, "names", json_loads(col_text(st, 7), 0, NULL));
    json_object_set_new(rep, "scores", json_loads(col_text(st, 8), 0, NULL));
    json_object_set_new(rep, "ranks", json_loads(col_text(st, 9), 0, NULL));
    json_object_set_new(rep, "end", json_string(col_text(st, 10)));
    json_object_set_new(rep, "culprit", json_integer(db_column_int(st, 11)));
    char v[CLASS_VERDICT_MAX + 1];
    verdict_for(col_text(st, 12), db_column_int(st, 11), admin ? -1 : mine, v, sizeof v);
    json_object_set_new(rep, "verdict", json_string(v));
    json_object_set_new(rep, "think_ms", json_loads(col_text(st, 13), 0, NULL));
    json_object_set_new(rep, "moves", json_loads(col_text(st, 14), 0, NULL));
    bool none = false; /* a server match (remote bots): no stderr was kept */
    for (size_t k = 0; k < json_array_size(errs); k++)
        none = none || json_is_null(json_array_get(errs, k));
    if (none)
        json_object_set_new(rep, "stderr_note",
                            json_string("no stderr: a game with a remote bot is a server match; "
                                        "a remote bot's output stays on its author's machine"));
    if (admin) {
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
    json_object_set_new(rep, "record", json_loads(col_text(st, 16), 0, NULL));
    db_finalize(st);
    conn_send(r->c, rep);
}

/* ---- submissions ------------------------------------------------------------------------------
 */

static bool b64_decode(const char *in, unsigned char **out, size_t *outlen)
{
    size_t n = strlen(in);
    if (n % 4 != 0)
        return false;
    unsigned char *buf = malloc(n / 4 * 3 + 1);
    if (!buf)
        return false;
    int k = n ? EVP_DecodeBlock(buf, (const unsigned char *)in, (int)n) : 0;
    if (k < 0) {
        free(buf);
        return false;
    }
    size_t pad = (n >= 1 && in[n - 1] == '=') + (n >= 2 && in[n - 2] == '=');
    *out = buf;
    *outlen = (size_t)k - pad;
    return true;
}

/* Make the directories of path: those under the data directory 0711 (no
 * one else can list them), the last one 0755 (its name is unguessable). */
static int mkdirs(const char *path)
{
    char tmp[PATH_MAX];
    size_t root = strlen(C.dir);
    snprintf(tmp, sizeof tmp, "%s", path);
    for (char *p = tmp + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            bool ours = strlen(tmp) >= root;
            if (mkdir(tmp, ours ? 0711 : 0755) != 0 && errno != EEXIST)
                return -1;
            if (ours)
                chmod(tmp, 0711);
            *p = '/';
        }
    if (mkdir(tmp, 0755) != 0)
        return -1;
    return chmod(tmp, 0755);
}

/* An upload between its three steps: checked here on the loop (token,
 * deadline, shape, names, sizes), its files checked against the declared
 * kind on the thread pool (python3's parse takes tens of milliseconds, far
 * more on a loaded machine: not on the loop), then stored back here. */
typedef struct upload {
    uv_work_t req;
    uint64_t conn_id; /* the connection to answer, if still there */
    json_t *id;       /* the request's id (owned) */
    student_t who;
    class_kind kind;
    char main[CLASS_FILE_NAME_MAX + 1];
    int nf;
    char names[CLASS_MAX_FILES][CLASS_FILE_NAME_MAX + 1];
    unsigned char *data[CLASS_MAX_FILES];
    size_t len[CLASS_MAX_FILES], total;
    /* a remote bot: the secret given out once, its salt and PBKDF2 hash
     * (made on the thread pool, as registry.c does), the name registered */
    char secret[CLASS_TOKEN_LEN + 1];
    unsigned char salt[REGISTRY_SALT_LEN], hash[REGISTRY_HASH_LEN];
    bool hashed;
    char rname[PROTO_NAME_MAX + 1];
    int rc; /* the check's verdict */
    char err[600];
} upload;

#define COURSES_MAX_CHECKS 8 /* uploads being checked at once (each may run a python3) */
static int checking;

static void upload_free(upload *u)
{
    for (int i = 0; i < u->nf; i++)
        free(u->data[i]);
    json_decref(u->id);
    OPENSSL_cleanse(u->secret, sizeof u->secret); /* given out once, kept only as its hash */
    free(u);
}

static void upload_work(uv_work_t *w)
{
    upload *u = w->data;
    if (u->kind == CLASS_REMOTE)
        u->hashed = registry_hash_secret(u->secret, u->salt, SRV_PBKDF2_ITERATIONS, u->hash);
    for (int i = 0; i < u->nf && u->rc == 0; i++)
        /* every file of a Python submission is Python; an executable's other
         * files are data it may read */
        if (u->kind == CLASS_PYTHON || strcmp(u->names[i], u->main) == 0)
            u->rc = class_check_file(u->kind, u->names[i], u->data[i], u->len[i], u->err,
                                     sizeof u->err);
}

/* Insert a submission's row in the transaction open, with the student's
 * next version counted by the database: servers sharing one may store two
 * uploads of a student at once, and the second's (student, version) is then
 * refused (*rc DB_ECONSTRAINT: try again). Its id and *version, or 0 with
 * *rc. Its folder and files, or a remote bot's name, are the caller's to
 * fill in, in the same transaction. */
static int64_t insert_submission(const upload *u, int64_t now, const char *hex, int64_t *version,
                                 int *rc)
{
    db_stmt *ins = prep("INSERT INTO class_submissions(course, student, version, kind, main,"
                        " files, dir, bytes, sha256, created_ms)"
                        " SELECT ?1, ?2, COALESCE(MAX(version), 0) + 1, ?3, ?4, '[]', '', ?5, ?6,"
                        " ?7 FROM class_submissions WHERE student = ?2 RETURNING id, version");
    *rc = DB_EFAIL;
    if (!ins)
        return 0;
    db_bind_int64(ins, 1, u->who.course);
    db_bind_int64(ins, 2, u->who.id);
    db_bind_text(ins, 3, class_kind_name(u->kind), -1);
    db_bind_text(ins, 4, u->main, -1);
    db_bind_int64(ins, 5, (int64_t)u->total);
    db_bind_text(ins, 6, hex, -1);
    db_bind_int64(ins, 7, now);
    int64_t id = 0;
    *rc = step(ins);
    if (*rc == DB_ROW) {
        id = db_column_int64(ins, 0);
        *version = db_column_int64(ins, 1);
        *rc = step(ins);
    }
    db_finalize(ins);
    return *rc == DB_DONE ? id : 0;
}

/* A remote submission's registered name, given out with its secret (course
 * C, student S, version N and a random tail no one can guess before it is
 * given out), reserved and written to its row. false with rc/err. */
static bool remote_name(upload *u, int64_t sub, int64_t version)
{
    if (!u->hashed) {
        u->rc = ENG_EINTERNAL;
        snprintf(u->err, sizeof u->err, "the bot's secret could not be hashed; submit again");
        return false;
    }
    int rc = ENG_EINVAL;
    for (int tries = 0; tries < 3 && rc == ENG_EINVAL; tries++) {
        char rnd[CLASS_TOKEN_LEN + 1];
        if (class_token_new(rnd) != 0) {
            rc = ENG_EINTERNAL;
            break;
        }
        for (char *p = rnd; *p; p++)
            if (*p >= 'A' && *p <= 'Z')
                *p = (char)(*p - 'A' + 'a');
        snprintf(u->rname, sizeof u->rname, "course%lld-s%lld-v%lld-%.6s", (long long)u->who.course,
                 (long long)u->who.id, (long long)version, rnd);
        rc = registry_reserve(C.s, u->rname, u->salt, u->hash, SRV_PBKDF2_ITERATIONS);
    }
    if (rc) {
        u->rc = rc == ENG_ETOO_MANY ? ENG_ETOO_MANY : ENG_ESTORAGE;
        snprintf(u->err, sizeof u->err, "%s",
                 rc == ENG_ETOO_MANY ? "the server holds its maximum of registered names"
                                     : "the bot's registration could not be stored");
        return false;
    }
    db_stmt *up = prep("UPDATE class_submissions SET main = ? WHERE id = ?");
    bool ok = up != NULL;
    if (ok) {
        db_bind_text(up, 1, u->rname, -1);
        db_bind_int64(up, 2, sub);
        ok = step(up) == DB_DONE;
    }
    db_finalize(up);
    if (!ok) {
        u->rc = ENG_ESTORAGE;
        snprintf(u->err, sizeof u->err, "the submission could not be stored");
    }
    return ok;
}

/* Remove what write_files wrote of u under dir (the transaction that
 * would have named them was rolled back). */
static void remove_files(const upload *u, const char *dir)
{
    for (int i = 0; i < u->nf; i++) {
        char path[PATH_MAX + 80];
        snprintf(path, sizeof path, "%s/%s", dir, u->names[i]);
        unlink(path);
    }
    rmdir(dir);
}

/* A checked upload's folder (vN-RANDOM: the bots of every student run as
 * the same user, and the directories above are not listable, so no bot can
 * find another's) and files, written to its row. false with rc/err (and
 * *dir the folder if it was made: the caller removes it). */
static bool write_files(upload *u, int64_t sub, int64_t version, char *dir, size_t dircap)
{
    char rnd[CLASS_TOKEN_LEN + 1];
    dir[0] = '\0';
    if (class_token_new(rnd) != 0) {
        u->rc = ENG_EINTERNAL;
        snprintf(u->err, sizeof u->err, "no random bytes for the submission's directory");
        return false;
    }
    char path0[PATH_MAX];
    snprintf(path0, sizeof path0, "%.3900s/course-%lld/student-%lld/v%lld-%.16s", C.dir,
             (long long)u->who.course, (long long)u->who.id, (long long)version, rnd);
    if (mkdirs(path0) != 0) {
        u->rc = ENG_EIO;
        snprintf(u->err, sizeof u->err, "the submission's directory could not be made");
        return false;
    }
    snprintf(dir, dircap, "%s", path0);
    json_t *fl = json_array();
    for (int i = 0; u->rc == 0 && i < u->nf; i++) {
        char path[PATH_MAX + 80];
        snprintf(path, sizeof path, "%s/%s", dir, u->names[i]);
        bool exe = u->kind == CLASS_ELF && strcmp(u->names[i], u->main) == 0;
        FILE *f = fopen(path, "wbx");
        bool ok = f && fwrite(u->data[i], 1, u->len[i], f) == u->len[i];
        if (f && fclose(f) != 0)
            ok = false;
        if (ok && chmod(path, exe ? 0755 : 0644) != 0)
            ok = false;
        if (!ok) {
            u->rc = ENG_EIO;
            snprintf(u->err, sizeof u->err, "the submission's files could not be written");
        }
        json_array_append_new(
            fl, json_pack("{s:s, s:I}", "name", u->names[i], "bytes", (json_int_t)u->len[i]));
    }
    char *ftext = u->rc ? NULL : json_dumps(fl, JSON_COMPACT);
    json_decref(fl);
    if (u->rc)
        return false;
    /* the bytes too, in the same transaction (ensure_files) */
    bool ok = true;
    for (int i = 0; ok && i < u->nf; i++) {
        db_stmt *f = prep("INSERT INTO class_files(submission, name, data) VALUES(?, ?, ?)");
        ok = f && db_bind_int64(f, 1, sub) == DB_OK && db_bind_text(f, 2, u->names[i], -1) == DB_OK &&
             db_bind_blob(f, 3, u->data[i], (int)u->len[i]) == DB_OK && step(f) == DB_DONE;
        db_finalize(f);
    }
    db_stmt *up = ok ? prep("UPDATE class_submissions SET files = ?, dir = ? WHERE id = ?") : NULL;
    ok = ok && up && ftext;
    if (ok) {
        db_bind_text(up, 1, ftext, -1);
        db_bind_text(up, 2, dir, -1);
        db_bind_int64(up, 3, sub);
        ok = step(up) == DB_DONE;
    }
    db_finalize(up);
    free(ftext);
    if (!ok) {
        u->rc = ENG_ESTORAGE;
        snprintf(u->err, sizeof u->err, "the submission could not be stored");
    }
    return ok;
}

/* Store a checked upload in one transaction: its row, then its folder and
 * files or a remote bot's registered name. Returns the submission's id, or
 * 0 with rc/err set (*again: its version was taken by another server's
 * upload meanwhile; nothing was kept, try again). */
static int64_t store_once(upload *u, int64_t now, const char *hex, int64_t *version, bool *again)
{
    *again = false;
    int rc = DB_EFAIL;
    int64_t sub = exec("BEGIN IMMEDIATE") ? insert_submission(u, now, hex, version, &rc) : 0;
    if (!sub) {
        rollback();
        *again = rc == DB_ECONSTRAINT;
        u->rc = ENG_ESTORAGE;
        snprintf(u->err, sizeof u->err, "the submission could not be stored");
        return 0;
    }
    if (*version > CLASS_MAX_VERSIONS) {
        rollback();
        u->rc = ENG_ETOO_MANY;
        snprintf(u->err, sizeof u->err, "at most %d submissions per student", CLASS_MAX_VERSIONS);
        return 0;
    }
    char dir[PATH_MAX] = "";
    bool ok = u->kind == CLASS_REMOTE ? remote_name(u, sub, *version)
                                      : write_files(u, sub, *version, dir, sizeof dir);
    if (!commit(ok)) {
        if (dir[0])
            remove_files(u, dir);
        if (!u->rc) {
            u->rc = ENG_ESTORAGE;
            snprintf(u->err, sizeof u->err, "the submission could not be stored");
        }
        return 0;
    }
    return sub;
}

/* Store a checked upload: its folder, files and row (a remote bot: its
 * registered name and row). Returns the submission's id, or 0 with
 * rc/err/reason set. */
static int64_t upload_store(upload *u, int64_t now, int64_t *version_out, char *hex,
                            const char **reason)
{
    unsigned char hash[SHA256_DIGEST_LENGTH];
    EVP_MD_CTX *h = EVP_MD_CTX_new();
    bool hok = h && EVP_DigestInit_ex(h, EVP_sha256(), NULL) == 1;
    for (int i = 0; hok && i < u->nf; i++)
        hok = EVP_DigestUpdate(h, u->names[i], strlen(u->names[i]) + 1) == 1 &&
              EVP_DigestUpdate(h, u->data[i], u->len[i]) == 1;
    hok = hok && EVP_DigestFinal_ex(h, hash, NULL) == 1;
    EVP_MD_CTX_free(h);
    if (!hok)
        memset(hash, 0, sizeof hash);
    for (int i = 0; i < SHA256_DIGEST_LENGTH; i++)
        sprintf(hex + 2 * i, "%02x", hash[i]);
    *reason = NULL;
    int64_t sub = 0;
    bool again = true;
    for (int tries = 0; !sub && again && tries < 3; tries++) {
        u->rc = 0;
        sub = store_once(u, now, u->kind == CLASS_REMOTE ? "" : hex, version_out, &again);
    }
    return sub;
}

static void upload_done(uv_work_t *w, int status)
{
    upload *u = w->data;
    checking--;
    srv *s = C.s;
    conn *c = conn_find(s, u->conn_id);
    const char *reason = "not_declared_kind";
    if (status != 0 && u->rc == 0) {
        u->rc = ENG_EINTERNAL;
        snprintf(u->err, sizeof u->err, "the upload could not be checked; send it again");
        reason = NULL;
    }
    int64_t now = srv_epoch_ms(), sub = 0, version = 0;
    char hex[65] = "";
    course_t crs;
    if (u->rc == 0 && s->stopping) {
        u->rc = ENG_ESHUTTING_DOWN;
        snprintf(u->err, sizeof u->err, "the server is shutting down; send it again later");
        reason = NULL;
    } else if (u->rc == 0 && load_course(u->who.course, &crs)) {
        /* the deadline may have passed while the files were checked */
        bool late = crs.frozen_ms || (crs.deadline_ms && now >= crs.deadline_ms);
        course_release(&crs);
        if (late) {
            u->rc = ENG_EFORBIDDEN;
            reason = "deadline_passed";
            snprintf(u->err, sizeof u->err, "the deadline has passed: submissions are closed");
        }
    }
    if (u->rc == 0)
        sub = upload_store(u, now, &version, hex, &reason);
    if (sub) {
        srv_log(LOG_INFO, "course_submission", "{s:I, s:I, s:s, s:I, s:s, s:I}", "course",
                (json_int_t)u->who.course, "submission", (json_int_t)sub, "student", u->who.sid,
                "version", (json_int_t)version, "kind", class_kind_name(u->kind), "bytes",
                (json_int_t)u->total);
        queue_ladder(sub);
    }
    if (c) {
        if (!sub) {
            fail(c, u->rc, reason, u->id, "%s", u->err);
        } else {
            json_t *rep = proto_reply("course_submitted", u->id);
            json_object_set_new(rep, "submission", json_integer(sub));
            json_object_set_new(rep, "version", json_integer(version));
            json_object_set_new(rep, "created_ms", json_integer(now));
            json_object_set_new(rep, "sha256", json_string(hex));
            json_object_set_new(rep, "bytes", json_integer((json_int_t)u->total));
            json_object_set_new(rep, "kind", json_string(class_kind_name(u->kind)));
            if (u->kind == CLASS_REMOTE) {
                course_t cc;
                const char *game = "";
                bool have = load_course(u->who.course, &cc);
                if (have)
                    game = cc.g->name;
                json_object_set_new(rep, "remote",
                                    json_pack("{s:s, s:s, s:s}", "name", u->rname, "secret",
                                              u->secret, "game", game));
                if (have)
                    course_release(&cc);
            }
            conn_send(c, rep);
        }
    }
    upload_free(u);
}

static void upload_work(uv_work_t *w);
static void upload_done(uv_work_t *w, int status);

/* course_submit of kind "remote": no files; the server gives out a name
 * and a secret (its hash made on the thread pool) for the student's bot. */
static void submit_remote(const req *r, const student_t *who)
{
    json_t *files = json_object_get(r->root, "files");
    if ((files && !(json_is_array(files) && json_array_size(files) == 0)) ||
        json_object_get(r->root, "main")) {
        fail(r->c, ENG_EINVAL, "bad_upload", r->id,
             "a remote bot is submitted without files or main: it runs on your machine");
        return;
    }
    if (checking >= COURSES_MAX_CHECKS) {
        fail(r->c, ENG_ETOO_MANY, NULL, r->id,
             "%d uploads are being checked; send yours again in a moment", checking);
        return;
    }
    upload *u = calloc(1, sizeof *u);
    char salt[REGISTRY_SALT_LEN + 1];
    if (!u || class_token_new(u->secret) != 0 || srv_random_token(salt, REGISTRY_SALT_LEN) != 0) {
        free(u);
        fail(r->c, ENG_EINTERNAL, NULL, r->id, "no random bytes for the bot's secret");
        return;
    }
    memcpy(u->salt, salt, REGISTRY_SALT_LEN);
    u->who = *who;
    u->kind = CLASS_REMOTE;
    u->conn_id = r->c->id;
    u->id = r->id ? json_incref((json_t *)r->id) : NULL;
    u->req.data = u;
    if (uv_queue_work(C.s->loop, &u->req, upload_work, upload_done) != 0) {
        fail(r->c, ENG_EINTERNAL, NULL, r->id, "the submission could not be made; send it again");
        upload_free(u);
        return;
    }
    checking++;
}

static void submit(const req *r)
{
    student_t who;
    if (!need_student(r, &who))
        return;
    course_t c;
    if (!load_course(who.course, &c)) {
        fail(r->c, ENG_EINTERNAL, NULL, r->id, "your course could not be read");
        return;
    }
    int64_t now = srv_epoch_ms();
    if (c.frozen_ms || (c.deadline_ms && now >= c.deadline_ms)) {
        course_release(&c);
        fail(r->c, ENG_EFORBIDDEN, "deadline_passed", r->id,
             "the deadline has passed: submissions are closed");
        return;
    }
    course_release(&c);
    class_kind kind;
    const char *ks = str_of(r, "kind"), *main = str_of(r, "main");
    json_t *files = json_object_get(r->root, "files");
    if (!ks || class_kind_parse(ks, &kind) != 0) {
        fail(r->c, ENG_EINVAL, "bad_upload", r->id,
             "kind: \"python\" (Python 3 source), \"executable\" (a native ELF program) or "
             "\"remote\" (a bot you run yourself, registered on this server)");
        return;
    }
    if (kind == CLASS_REMOTE) {
        submit_remote(r, &who);
        return;
    }
    if (!json_is_array(files) || json_array_size(files) < 1 ||
        json_array_size(files) > CLASS_MAX_FILES) {
        fail(r->c, ENG_EBAD_MESSAGE, "bad_upload", r->id,
             "files: an array of 1 to %d {name, data (base64)}", CLASS_MAX_FILES);
        return;
    }
    if (checking >= COURSES_MAX_CHECKS) {
        fail(r->c, ENG_ETOO_MANY, NULL, r->id,
             "%d uploads are being checked; send yours again in a moment", checking);
        return;
    }
    upload *u = calloc(1, sizeof *u);
    if (!u) {
        fail(r->c, ENG_ENOMEM, NULL, r->id, "out of memory");
        return;
    }
    u->who = who;
    u->kind = kind;
    u->conn_id = r->c->id;
    u->id = r->id ? json_incref((json_t *)r->id) : NULL;
    size_t nf = json_array_size(files);
    if (!main && nf == 1)
        main = json_string_value(json_object_get(json_array_get(files, 0), "name"));
    bool main_found = false;
    int rc = 0;
    const char *reason = "bad_upload";
    char *err = u->err;
    size_t errcap = sizeof u->err;
    for (size_t i = 0; i < nf && rc == 0; i++) {
        json_t *f = json_array_get(files, i);
        const char *name = json_string_value(json_object_get(f, "name"));
        const char *d = json_string_value(json_object_get(f, "data"));
        if (!name || !d) {
            rc = ENG_EBAD_MESSAGE;
            snprintf(err, errcap, "files[%zu]: {name, data (base64)}", i);
            break;
        }
        if (strlen(d) / 4 * 3 > CLASS_MAX_UPLOAD + 3) {
            rc = ENG_ETOO_LARGE;
            reason = "too_large";
            snprintf(err, errcap, "a submission is at most %d bytes", CLASS_MAX_UPLOAD);
            break;
        }
        if (!class_file_name_ok(name)) {
            rc = ENG_EINVAL;
            snprintf(err, errcap,
                     "files[%zu]: '%.70s' is not an accepted file name (1 to %d of A-Z a-z 0-9 _ "
                     ". -, not starting with a dot)",
                     i, name, CLASS_FILE_NAME_MAX);
            break;
        }
        snprintf(u->names[i], sizeof u->names[i], "%s", name);
        u->nf = (int)i + 1;
        if (!b64_decode(d, &u->data[i], &u->len[i])) {
            rc = ENG_EINVAL;
            snprintf(err, errcap, "files[%zu].data is not base64", i);
            break;
        }
        u->total += u->len[i];
        if (u->total > CLASS_MAX_UPLOAD) {
            rc = ENG_ETOO_LARGE;
            reason = "too_large";
            snprintf(err, errcap, "a submission is at most %d bytes; this one has %zu+",
                     CLASS_MAX_UPLOAD, u->total);
            break;
        }
        for (size_t k = 0; k < i; k++)
            if (strcmp(u->names[k], name) == 0) {
                rc = ENG_EINVAL;
                snprintf(err, errcap, "two files are named %s", name);
            }
        if (main && strcmp(name, main) == 0)
            main_found = true;
    }
    if (rc == 0 && (!main || !main_found)) {
        rc = ENG_EINVAL;
        snprintf(err, errcap, "main: the name of the file to run, one of files[]");
    }
    if (rc) {
        fail(r->c, rc, reason, r->id, "%s", err);
        upload_free(u);
        return;
    }
    snprintf(u->main, sizeof u->main, "%s", main);
    u->req.data = u;
    if (uv_queue_work(C.s->loop, &u->req, upload_work, upload_done) != 0) {
        fail(r->c, ENG_EINTERNAL, NULL, r->id, "the upload could not be checked; send it again");
        upload_free(u);
        return;
    }
    checking++;
}

/* course_code: a submission's files (base64), for its student or the
 * instructor. */
static void get_code(const req *r)
{
    bool admin = str_of(r, "admin_token") || !str_of(r, "token");
    student_t who = {0};
    if (admin ? !need_admin(r) : !need_student(r, &who))
        return;
    int64_t sid;
    if (!int_of(r, "submission", &sid)) {
        fail(r->c, ENG_EBAD_MESSAGE, NULL, r->id, "course_code needs \"submission\" (an id)");
        return;
    }
    db_stmt *st = prep("SELECT student, dir, files, version, kind, main FROM"
                       " class_submissions WHERE id = ?");
    if (!st) {
        fail(r->c, ENG_ESTORAGE, NULL, r->id, "the submission could not be read");
        return;
    }
    db_bind_int64(st, 1, sid);
    bool found = step(st) == DB_ROW;
    if (!found || (!admin && db_column_int64(st, 0) != who.id)) {
        db_finalize(st);
        if (admin)
            fail(r->c, ENG_EINVAL, "unknown_submission", r->id, "no submission %lld",
                 (long long)sid);
        else
            fail(r->c, ENG_EFORBIDDEN, "not_yours", r->id, "submission %lld is not one of yours",
                 (long long)sid);
        return;
    }
    ensure_files(sid, col_text(st, 1), col_text(st, 4), col_text(st, 5)); /* another server's */
    json_t *files = json_loads(col_text(st, 2), 0, NULL), *out = json_array();
    size_t i;
    json_t *f;
    json_array_foreach(files, i, f)
    {
        const char *name = json_string_value(json_object_get(f, "name"));
        char path[PATH_MAX + 80];
        snprintf(path, sizeof path, "%s/%s", col_text(st, 1), name ? name : "");
        FILE *fp = name ? fopen(path, "rb") : NULL;
        unsigned char buf[CLASS_MAX_UPLOAD + 1];
        size_t n = fp ? fread(buf, 1, sizeof buf, fp) : 0;
        if (fp)
            fclose(fp);
        char *b64 = malloc(4 * ((n + 2) / 3) + 1);
        if (b64)
            EVP_EncodeBlock((unsigned char *)b64, buf, (int)n);
        json_array_append_new(
            out, json_pack("{s:s, s:s}", "name", name ? name : "", "data", b64 ? b64 : ""));
        free(b64);
    }
    json_decref(files);
    json_t *rep = proto_reply("course_code", r->id);
    json_object_set_new(rep, "submission", json_integer(sid));
    json_object_set_new(rep, "version", json_integer(db_column_int64(st, 3)));
    json_object_set_new(rep, "kind", json_string(col_text(st, 4)));
    json_object_set_new(rep, "main", json_string(col_text(st, 5)));
    json_object_set_new(rep, "files", out);
    db_finalize(st);
    conn_send(r->c, rep);
}

/* ---- results from the worker -------------------------------------------------------------- */

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

static bool store_games(const done *d, const char *stage, const int64_t *student_of,
                        const char *const *name_of)
{
    db_stmt *ins = prep("INSERT INTO class_games(course, stage, submission, gate, idx, s0, s1,"
                        " names, scores, ranks, end_reason, culprit, verdict, think_ms, moves,"
                        " stderr, record) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
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
            json_array_append_new(errs, d->games[k].no_stderr ? json_null()
                                                              : json_string(g->stderr_text[s]));
        }
        char *tn = json_dumps(names, JSON_COMPACT), *te = json_dumps(errs, JSON_COMPACT);
        json_t *sc = arr_d(g->score, g->seats), *rk = arr_i(g->rank, g->seats),
               *th = arr_d(g->think_ms, g->seats), *mv = arr_i(g->moves, g->seats);
        char *ts = json_dumps(sc, JSON_COMPACT), *tr = json_dumps(rk, JSON_COMPACT),
             *tt = json_dumps(th, JSON_COMPACT), *tm = json_dumps(mv, JSON_COMPACT);
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
        ok = step(ins) == DB_DONE;
        free(tn);
        free(te);
        free(ts);
        free(tr);
        free(tt);
        free(tm);
        json_decref(names);
        json_decref(errs);
        json_decref(sc);
        json_decref(rk);
        json_decref(th);
        json_decref(mv);
    }
    db_finalize(ins);
    return ok;
}

/* The student of a submission and their student id, or 0 (no such
 * submission, or the database failed). */
static int64_t student_of_sub(int64_t sub, char *sid, size_t cap)
{
    db_stmt *st = prep("SELECT s.student, st.sid FROM class_submissions s JOIN"
                       " class_students st ON st.id = s.student WHERE s.id = ?");
    int64_t id = 0;
    if (st) {
        db_bind_int64(st, 1, sub);
        if (step(st) == DB_ROW) {
            id = db_column_int64(st, 0);
            snprintf(sid, cap, "%s", col_text(st, 1));
        }
        db_finalize(st);
    }
    return id;
}

static void apply_done(done *d)
{
    if (d->kind == DONE_START) {
        db_stmt *up = prep("UPDATE class_submissions SET state = 'running', verdict = ?"
                           " WHERE id = ? AND state = 'queued'");
        if (up) {
            db_bind_text(up, 1, d->verdict, -1);
            db_bind_int64(up, 2, d->submission);
            step(up);
            db_finalize(up);
        }
        return;
    }
    bool ok = exec("BEGIN IMMEDIATE");
    if (d->kind == DONE_GATE) {
        char sid[CLASS_FIELD_MAX + 1] = "";
        int64_t stu = student_of_sub(d->submission, sid, sizeof sid);
        ok = ok && stu > 0;
        int64_t students[2] = {stu, 0};
        char opp[600];
        snprintf(opp, sizeof opp, "%s", d->gatedef.opponent);
        const char *names[2] = {sid, opp};
        db_stmt *st =
            prep("INSERT INTO class_gates(submission, gate, opponent, games, wins, losses, draws,"
                 " points, rate, min_rate, passed, faults, verdict, ms_per_move)"
                 " VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT(submission, gate) DO UPDATE SET"
                 " opponent = excluded.opponent, games = excluded.games, wins = excluded.wins,"
                 " losses = excluded.losses, draws = excluded.draws, points = excluded.points,"
                 " rate = excluded.rate, min_rate = excluded.min_rate, passed = excluded.passed,"
                 " faults = excluded.faults, verdict = excluded.verdict,"
                 " ms_per_move = excluded.ms_per_move");
        ok = ok && st;
        if (ok) {
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
            ok = step(st) == DB_DONE;
        }
        db_finalize(st);
        ok = ok && store_games(d, "gate", students, names);
        db_stmt *up = prep("UPDATE class_submissions SET state = 'running', verdict = ?"
                           " WHERE id = ?");
        if (ok && up) {
            char v[CLASS_VERDICT_MAX + 20];
            snprintf(v, sizeof v, "gate %d %s", d->gate + 1, d->verdict);
            db_bind_text(up, 1, v, -1);
            db_bind_int64(up, 2, d->submission);
            ok = step(up) == DB_DONE;
        }
        db_finalize(up);
    } else if (d->kind == DONE_SUB || (d->kind == DONE_FAILED && d->submission)) {
        db_stmt *up = prep("UPDATE class_submissions SET state = 'done', gates_passed = ?,"
                           " qualified = ?, verdict = ? WHERE id = ?");
        ok = ok && up;
        if (ok) {
            db_bind_int(up, 1, d->gates_passed);
            db_bind_int(up, 2, d->qualified);
            db_bind_text(up, 3, d->verdict, -1);
            db_bind_int64(up, 4, d->submission);
            ok = step(up) == DB_DONE;
        }
        db_finalize(up);
    } else if (d->kind == DONE_FINAL) {
        char **names = calloc((size_t)d->n, sizeof *names);
        ok = ok && names;
        for (int i = 0; ok && i < d->n; i++) {
            char sid[CLASS_FIELD_MAX + 1] = "";
            ok = student_of_sub(d->subs[i], sid, sizeof sid) > 0;
            names[i] = strdup(sid);
            ok = ok && names[i] != NULL;
        }
        ok = ok && store_games(d, "final", d->students, (const char *const *)names);
        if (names)
            for (int i = 0; i < d->n; i++)
                free(names[i]);
        free(names);
        db_stmt *ins =
            prep("INSERT INTO class_final(course, student, submission, place, games, wins,"
                 " losses, draws, points, rate, elo, elo_lo, elo_hi, ms_per_move, faults)"
                 " VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT(course, student) DO UPDATE"
                 " SET submission = excluded.submission, place = excluded.place,"
                 " games = excluded.games, wins = excluded.wins, losses = excluded.losses,"
                 " draws = excluded.draws, points = excluded.points, rate = excluded.rate,"
                 " elo = excluded.elo, elo_lo = excluded.elo_lo, elo_hi = excluded.elo_hi,"
                 " ms_per_move = excluded.ms_per_move, faults = excluded.faults");
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
            ok = step(ins) == DB_DONE;
        }
        db_finalize(ins);
        db_stmt *up = prep("UPDATE class_courses SET final_state = 'done' WHERE id = ?");
        ok = ok && up;
        if (ok) {
            db_bind_int64(up, 1, d->course);
            ok = step(up) == DB_DONE;
        }
        db_finalize(up);
    } else { /* a final that failed */
        db_stmt *up = prep("UPDATE class_courses SET final_state = 'failed', final_note = ?"
                           " WHERE id = ?");
        ok = ok && up;
        if (ok) {
            db_bind_text(up, 1, d->verdict, -1);
            db_bind_int64(up, 2, d->course);
            ok = step(up) == DB_DONE;
        }
        db_finalize(up);
    }
    if (!commit(ok)) {
        srv_log(LOG_ERROR, "course_store_failed", "{s:I, s:I}", "course", (json_int_t)d->course,
                "submission", (json_int_t)d->submission);
        return;
    }
    srv_log(LOG_INFO, "course_result", "{s:s, s:I, s:I, s:i, s:s}", "kind",
            d->kind == DONE_GATE    ? "gate"
            : d->kind == DONE_SUB   ? "submission"
            : d->kind == DONE_FINAL ? "final"
                                    : "failed",
            "course", (json_int_t)d->course, "submission", (json_int_t)d->submission, "gate",
            d->gate, "verdict", d->verdict);
    if (d->kind != DONE_GATE)
        freeze_check();
}

static void rjobs_pump(void);

static void on_async(uv_async_t *h)
{
    (void)h;
    pthread_mutex_lock(&C.lock);
    done *list = C.done;
    C.done = C.done_tail = NULL;
    pthread_mutex_unlock(&C.lock);
    while (list) {
        done *next = list->next;
        apply_done(list);
        done_free(list);
        list = next;
    }
    rjobs_pump();
}

/* ---- remote bots: gates and finals played as server tournaments ------------------------------ */

/* A remote submission's ladder, or a final with remote bots in it, played
 * by the server's tournaments (tournaments.c) as server matches that seat
 * the registered bot (`remote:NAME`), one gate after the other. Loop only. */
typedef struct rjob {
    struct rjob *next;
    bool final;
    int64_t course, submission;    /* submission: 0 for a final */
    char name[PROTO_NAME_MAX + 1]; /* the registered bot (a ladder) */
    int gate, passed;              /* the gate being played (or next); gates passed */
    char last[CLASS_VERDICT_MAX];  /* the last gate's verdict */
    char shown[CLASS_VERDICT_MAX]; /* the verdict last written while waiting */
    int64_t created_ms;            /* the submission's time: the wait counts from it */
    int64_t tour;                  /* the server tournament playing, or 0 */
    bool over;                     /* that tournament is over: stored at the next async */
    done *d;                       /* its games, and its standings once over */
    /* a final */
    int n;
    int64_t *students, *subs;
    char **specs;
    int format;
    int64_t gpp;
} rjob;

static void rjob_free(rjob *r)
{
    if (r->d)
        done_free(r->d);
    for (int i = 0; r->specs && i < r->n; i++)
        free(r->specs[i]);
    free(r->specs);
    free(r->students);
    free(r->subs);
    free(r);
}

static void rjob_unlink(rjob *r)
{
    for (rjob **pp = &C.rjobs; *pp; pp = &(*pp)->next)
        if (*pp == r) {
            *pp = r->next;
            break;
        }
    rjob_free(r);
}

/* hooks' user: a submission's id, or minus the course's id for a final */
static rjob *rjob_of(int64_t user)
{
    for (rjob *r = C.rjobs; r; r = r->next)
        if ((user > 0 && !r->final && r->submission == user) ||
            (user < 0 && r->final && r->course == -user))
            return r;
    return NULL;
}

static void on_tour_game(int64_t user, int64_t tid, int64_t game, match *m, const int *table,
                         const struct tour_result *res)
{
    rjob *r = rjob_of(user);
    if (!r || r->tour != tid || !r->d)
        return;
    const tour_result *x = res;
    class_game g;
    memset(&g, 0, sizeof g);
    g.index = game;
    g.seats = m->nseats < ENG_MAX_PLAYERS ? m->nseats : ENG_MAX_PLAYERS;
    for (int s = 0; s < g.seats; s++) {
        g.who[s] = table[s];
        g.score[s] = x->score[s];
        g.rank[s] = x->rank[s];
        g.think_ms[s] = x->time_ms[s];
        g.moves[s] = x->moves[s];
        g.stderr_text[s] = "";
    }
    g.end = tour_end_name(x->end);
    g.culprit = x->culprit;
    char verdict[CLASS_VERDICT_MAX];
    verdict[0] = 0;
    if (x->culprit >= 0)
        snprintf(verdict, sizeof verdict, "P%d (seat %d): %s: %.300s", x->culprit + 1, x->culprit,
                 tour_end_name(x->end), x->verdict ? x->verdict : "");
    g.verdict = verdict;
    char err[200];
    json_t *rec = match_record_json(m, err, sizeof err);
    char *text = rec ? json_dumps(rec, JSON_COMPACT) : NULL;
    json_decref(rec);
    g.record = text ? text : "";
    int before = r->d->ngames;
    keep_game(&g, r->d);
    if (r->d->ngames > before)
        r->d->games[before].no_stderr = true;
    free(text);
}

static void on_tour_done(int64_t user, int64_t tid, const struct tour *t)
{
    rjob *r = rjob_of(user);
    if (!r || r->tour != tid || !r->d)
        return;
    class_standing *out = r->final ? r->d->fst : r->d->st;
    if (class_standings_fill(t, out) != 0) {
        r->d->kind = DONE_FAILED;
        snprintf(r->d->verdict, sizeof r->d->verdict, "out of memory");
    }
    r->over = true;
    uv_async_send(&C.async); /* stored there, not inside the tournament's own call */
}

/* Write a remote submission's state and verdict (while it waits or plays). */
static void rjob_show(rjob *r, const char *state, const char *verdict)
{
    if (strcmp(r->shown, verdict) == 0)
        return;
    snprintf(r->shown, sizeof r->shown, "%s", verdict);
    db_stmt *up = prep("UPDATE class_submissions SET state = ?, verdict = ?, tour = ?"
                       " WHERE id = ?");
    if (!up)
        return;
    db_bind_text(up, 1, state, -1);
    db_bind_text(up, 2, verdict, -1);
    db_bind_int64(up, 3, r->tour);
    db_bind_int64(up, 4, r->submission);
    step(up);
    db_finalize(up);
}

/* The ladder of r is over: its verdict, stored as a worker's would be. */
static void rjob_finish(rjob *r, int ngates, int qualify, const char *why)
{
    done *d = calloc(1, sizeof *d);
    if (d) {
        d->kind = DONE_SUB;
        d->course = r->course;
        d->submission = r->submission;
        d->gates_passed = r->passed;
        d->qualified = r->passed >= qualify;
        snprintf(d->verdict, sizeof d->verdict, "%s %d of %d gates; %.360s",
                 d->qualified ? "qualified:" : "not qualified:", r->passed, ngates,
                 why ? why : r->last);
        apply_done(d);
        done_free(d);
    }
    db_stmt *up = prep("UPDATE class_submissions SET tour = 0 WHERE id = ?");
    if (up) {
        db_bind_int64(up, 1, r->submission);
        step(up);
        db_finalize(up);
    }
    rjob_unlink(r);
}

static void fmt_time(int64_t ms, char *out, size_t cap)
{
    time_t t = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, cap, "%Y-%m-%d %H:%M UTC", &tm);
}

/* Start tournament of the participants (specs, names) for r with the
 * course's game, rules and time; 0 or a negative code with err. */
static int rjob_start_tour(rjob *r, const course_t *c, const char *const *specs,
                           const char *const *names, int n, int format, int64_t gpp, uint64_t seed,
                           const char *label, char *err, size_t errcap)
{
    json_t *parts = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(parts, json_pack("{s:s, s:s}", "name", names[i], "spec", specs[i]));
    proto_msg m;
    memset(&m, 0, sizeof m);
    m.type = PROTO_CREATE_TOURNAMENT;
    m.game = c->g->name;
    m.rules = c->rules_json;
    m.tc.move_ms = c->move_ms;
    m.tc.first_move_ms = 3 * c->move_ms;
    m.pol.timeout = PROTO_TIMEOUT_FORFEIT;
    m.pol.illegal = PROTO_ILLEGAL_FORFEIT;
    m.pol.max_illegal = 0;
    m.pol.disconnect = PROTO_DISCONNECT_FORFEIT;
    m.pol.reconnect_grace_ms =
        3 * c->move_ms > COURSES_REMOTE_GRACE_MS ? 3 * c->move_ms : COURSES_REMOTE_GRACE_MS;
    m.pol.grace_ms = 0;
    m.tour.format = format;
    m.tour.participants = parts;
    m.tour.nparticipants = n;
    m.tour.games_per_pair = gpp;
    m.tour.cycles = 1;
    m.tour.concurrency = COURSES_GATE_THREADS;
    m.tour.has_seed = true;
    m.tour.seed = seed & INT64_MAX;
    m.tour.label = label;
    tours_hooks h = {
        .game = on_tour_game, .done = on_tour_done, .user = r->final ? -r->course : r->submission};
    int64_t id = 0;
    done *d = calloc(1, sizeof *d);
    if (d && r->final) {
        d->fst = calloc((size_t)n, sizeof *d->fst);
        if (!d->fst) {
            free(d);
            d = NULL;
        }
    }
    if (!d) {
        json_decref(parts);
        snprintf(err, errcap, "out of memory");
        return ENG_ENOMEM;
    }
    if (r->d)
        done_free(r->d);
    r->d = d;
    int rc = tours_create_started(C.s, &m, &h, &id, err, errcap);
    json_decref(parts);
    if (rc == 0)
        r->tour = id;
    return rc;
}

/* A remote ladder between its gates: start the next one when the bot is
 * connected; else wait, until the course's remote_wait_ms after the
 * submission or the deadline, whichever comes first; then it fails. */
static void rjob_step(rjob *r)
{
    if (r->tour || r->final)
        return;
    course_t c;
    if (!load_course(r->course, &c)) {
        rjob_unlink(r);
        return;
    }
    int64_t now = srv_epoch_ms();
    if (r->gate >= c.ngates) {
        rjob_finish(r, c.ngates, c.qualify, NULL);
        course_release(&c);
        return;
    }
    regbot *rb = registry_find(C.s, r->name);
    char why[CLASS_VERDICT_MAX];
    if (rb && rb->conn) {
        const class_gate *gt = &c.gates[r->gate];
        /* the opponent's seat shows its spec (an instructor's program: not its path) */
        char oname[PROTO_NAME_MAX + 1];
        snprintf(oname, sizeof oname, "%.64s",
                 match_spec_kind(gt->opponent) == SEAT_PROGRAM ? "reference program"
                                                               : gt->opponent);
        const char *specs[2], *names[2] = {r->name, oname};
        char spec[PROTO_SPEC_MAX + 1], label[96];
        snprintf(spec, sizeof spec, "remote:%s", r->name);
        specs[0] = spec;
        specs[1] = gt->opponent;
        snprintf(label, sizeof label, "course %lld: submission %lld, gate %d", (long long)r->course,
                 (long long)r->submission, r->gate + 1);
        char err[400];
        int rc = rjob_start_tour(r, &c, specs, names, 2, PROTO_TOUR_ROUND_ROBIN, gt->games,
                                 c.seed ^ (0x9e3779b97f4a7c15ULL * (uint64_t)(r->gate + 1)), label,
                                 err, sizeof err);
        if (rc == 0) {
            snprintf(why, sizeof why, "gate %d: playing against %.300s", r->gate + 1, gt->opponent);
            rjob_show(r, "running", why);
            srv_log(LOG_INFO, "course_remote_gate", "{s:I, s:I, s:i, s:I}", "course",
                    (json_int_t)r->course, "submission", (json_int_t)r->submission, "gate",
                    r->gate + 1, "tournament", (json_int_t)r->tour);
        } else if (rc == ENG_ETOO_MANY) {
            snprintf(why, sizeof why, "gate %d: waiting for room on the server: %.300s",
                     r->gate + 1, err);
            rjob_show(r, "waiting", why);
        } else {
            snprintf(why, sizeof why, "gate %d could not be played: %.300s", r->gate + 1, err);
            rjob_finish(r, c.ngates, c.qualify, why);
        }
        course_release(&c);
        return;
    }
    int64_t limit = r->created_ms + c.remote_wait_ms;
    bool by_deadline = c.deadline_ms && c.deadline_ms < limit;
    if (by_deadline)
        limit = c.deadline_ms;
    char when[40];
    fmt_time(limit, when, sizeof when);
    if (now >= limit) {
        snprintf(why, sizeof why, "gate %d not played: your bot (%s) was not connected by %s (%s)",
                 r->gate + 1, r->name, when,
                 by_deadline ? "the deadline" : "the course's wait for a remote bot");
        rjob_finish(r, c.ngates, c.qualify, why);
    } else {
        snprintf(why, sizeof why,
                 "gate %d: waiting for your bot: %s is not connected; it fails if it has not "
                 "connected by %s",
                 r->gate + 1, r->name, when);
        rjob_show(r, "waiting", why);
    }
    course_release(&c);
}

/* A tournament of r is over: store the gate (then go on) or the final. */
static void rjob_over(rjob *r)
{
    done *d = r->d;
    r->d = NULL;
    r->over = false;
    r->tour = 0;
    if (r->final) {
        d->course = r->course;
        if (d->kind != DONE_FAILED) {
            d->kind = DONE_FINAL;
            d->n = r->n;
            d->students = malloc((size_t)r->n * sizeof *d->students);
            d->subs = malloc((size_t)r->n * sizeof *d->subs);
            if (d->students && d->subs) {
                memcpy(d->students, r->students, (size_t)r->n * sizeof *d->students);
                memcpy(d->subs, r->subs, (size_t)r->n * sizeof *d->subs);
            } else {
                d->kind = DONE_FAILED;
                snprintf(d->verdict, sizeof d->verdict, "out of memory");
            }
        }
        apply_done(d);
        done_free(d);
        db_stmt *up = prep("UPDATE class_courses SET final_tour = 0 WHERE id = ?");
        if (up) {
            db_bind_int64(up, 1, r->course);
            step(up);
            db_finalize(up);
        }
        rjob_unlink(r);
        return;
    }
    course_t c;
    if (!load_course(r->course, &c)) {
        done_free(d);
        rjob_unlink(r);
        return;
    }
    d->course = r->course;
    d->submission = r->submission;
    if (d->kind == DONE_FAILED) {
        char why[CLASS_VERDICT_MAX];
        snprintf(why, sizeof why, "gate %d could not be scored: %.300s", r->gate + 1, d->verdict);
        done_free(d);
        rjob_finish(r, c.ngates, c.qualify, why);
        course_release(&c);
        return;
    }
    d->kind = DONE_GATE;
    d->gate = r->gate;
    d->gatedef = c.gates[r->gate];
    gate_verdict(d, &c.gates[r->gate]);
    bool passed = d->passed;
    snprintf(r->last, sizeof r->last, "gate %d %.380s", r->gate + 1, d->verdict);
    apply_done(d);
    done_free(d);
    r->shown[0] = 0;
    r->gate++;
    if (passed)
        r->passed++;
    if (!passed || r->gate >= c.ngates)
        rjob_finish(r, c.ngates, c.qualify, NULL);
    else
        rjob_step(r);
    course_release(&c);
}

/* A tournament of r that stopped short: cancelled or paused by the admin,
 * paused by itself (a game could not start), or gone. The gate (or the
 * final) fails with the reason rather than waiting for ever. */
static void rjob_check(rjob *r)
{
    const char *note = "";
    const char *state = tours_state_of(C.s, r->tour, &note);
    if (state && (strcmp(state, "running") == 0 || strcmp(state, "created") == 0 ||
                  strcmp(state, "done") == 0))
        return;
    char why[CLASS_VERDICT_MAX];
    snprintf(why, sizeof why, "its server tournament %lld %s%s%.200s", (long long)r->tour,
             state ? (strcmp(state, "paused") == 0 ? "was paused" : "was cancelled") : "was lost",
             note && note[0] ? ": " : "", note ? note : "");
    srv_log(LOG_WARN, "course_tournament_stopped", "{s:I, s:I, s:I, s:s}", "course",
            (json_int_t)r->course, "submission", (json_int_t)r->submission, "tournament",
            (json_int_t)r->tour, "state", state ? state : "gone");
    tours_cancel_id(C.s, r->tour);
    if (r->final) {
        done *d = calloc(1, sizeof *d);
        if (d) {
            d->kind = DONE_FAILED;
            d->course = r->course;
            snprintf(d->verdict, sizeof d->verdict, "the final could not be played: %.300s", why);
            apply_done(d);
            done_free(d);
        }
        db_stmt *up = prep("UPDATE class_courses SET final_tour = 0 WHERE id = ?");
        if (up) {
            db_bind_int64(up, 1, r->course);
            step(up);
            db_finalize(up);
        }
        rjob_unlink(r);
        return;
    }
    course_t c;
    if (!load_course(r->course, &c)) {
        rjob_unlink(r);
        return;
    }
    char v[CLASS_VERDICT_MAX];
    snprintf(v, sizeof v, "gate %d could not be played: %.300s", r->gate + 1, why);
    rjob_finish(r, c.ngates, c.qualify, v);
    course_release(&c);
}

/* Every remote job: tournaments that ended, bots that connected, waits
 * that ran out. */
static void rjobs_pump(void)
{
    if (C.s->stopping)
        return;
    rjob *r = C.rjobs;
    while (r) {
        rjob *next = r->next;
        if (r->over)
            rjob_over(r);
        else if (!r->tour)
            rjob_step(r);
        else
            rjob_check(r);
        r = next;
    }
}

/* A remote submission's ladder, from its first gate. */
static void queue_remote(int64_t sub, int64_t course, const char *name, int64_t created_ms)
{
    rjob *r = calloc(1, sizeof *r);
    if (!r)
        return;
    r->course = course;
    r->submission = sub;
    r->created_ms = created_ms;
    snprintf(r->name, sizeof r->name, "%s", name);
    r->next = C.rjobs;
    C.rjobs = r;
    rjob_step(r);
}

/* A final with remote bots: a server tournament of every finalist (the
 * programs seated by the server, in its sandbox), each remote bot seated
 * on its registered connection; one that is not connected loses each of
 * its games once the reconnect grace is over. false after replying. */
static bool final_remote(const req *rq, const course_t *c, job *j, tour_format format, int64_t gpp)
{
    rjob *r = calloc(1, sizeof *r);
    if (!r) {
        fail(rq->c, ENG_ENOMEM, NULL, rq->id, "out of memory");
        return false;
    }
    r->final = true;
    r->course = c->id;
    r->n = j->n;
    r->format = (int)format;
    r->gpp = gpp;
    r->students = j->students;
    r->subs = j->subs;
    j->students = NULL;
    j->subs = NULL;
    char label[64], err[400];
    snprintf(label, sizeof label, "course %lld: the final", (long long)c->id);
    r->next = C.rjobs;
    C.rjobs = r;
    int rc = rjob_start_tour(r, c, (const char *const *)j->specs, (const char *const *)j->names,
                             j->n, (int)format, gpp, c->seed ^ 0xf1a1ULL, label, err, sizeof err);
    if (rc) {
        rjob_unlink(r);
        db_stmt *up = prep("UPDATE class_courses SET final_state = 'none', final_note = ''"
                           " WHERE id = ?");
        if (up) {
            db_bind_int64(up, 1, c->id);
            step(up);
            db_finalize(up);
        }
        fail(rq->c, rc, NULL, rq->id, "the final could not start: %s", err);
        return false;
    }
    db_stmt *up = prep("UPDATE class_courses SET final_tour = ? WHERE id = ?");
    if (up) {
        db_bind_int64(up, 1, r->tour);
        db_bind_int64(up, 2, c->id);
        step(up);
        db_finalize(up);
    }
    return true;
}

/* ---- the deadline ---------------------------------------------------------------------------- */

/* Freeze every course whose deadline has passed and whose submissions made
 * before it have all been through their gates: each student's latest
 * qualifying submission is marked frozen. */
static void freeze_check(void)
{
    int64_t now = srv_epoch_ms();
    db_stmt *st =
        prep("SELECT c.id FROM class_courses c WHERE c.frozen_ms = 0 AND c.deadline_ms > 0 AND"
             " c.deadline_ms <= ? AND NOT EXISTS (SELECT 1 FROM class_submissions s WHERE"
             " s.course = c.id AND s.state <> 'done')");
    if (!st)
        return;
    db_bind_int64(st, 1, now);
    int64_t ids[64];
    int n = 0;
    while (n < 64 && step(st) == DB_ROW)
        ids[n++] = db_column_int64(st, 0);
    db_finalize(st);
    for (int i = 0; i < n; i++) {
        /* the course first: of servers sharing the database, the one whose
         * UPDATE changes it freezes it; the others find it frozen */
        bool ok = exec("BEGIN IMMEDIATE"), mine = false;
        db_stmt *up = prep("UPDATE class_courses SET frozen_ms = ? WHERE id = ? AND frozen_ms = 0");
        db_stmt *fz =
            prep("UPDATE class_submissions SET frozen = 1 WHERE id IN (SELECT (SELECT x.id FROM"
                 " class_submissions x WHERE x.student = st.id AND x.qualified = 1 AND"
                 " x.state = 'done' ORDER BY x.version DESC LIMIT 1) FROM class_students st"
                 " WHERE st.course = ?)");
        ok = ok && fz && up;
        if (ok) {
            db_bind_int64(up, 1, now);
            db_bind_int64(up, 2, ids[i]);
            ok = step(up) == DB_DONE;
            mine = ok && db_changes(db()) == 1;
        }
        if (ok && mine) {
            db_bind_int64(fz, 1, ids[i]);
            ok = step(fz) == DB_DONE;
        }
        db_finalize(fz);
        db_finalize(up);
        if (!commit(ok && mine)) {
            if (!ok)
                srv_log(LOG_ERROR, "course_freeze_failed", "{s:I}", "course", (json_int_t)ids[i]);
            continue;
        }
        srv_log(LOG_INFO, "course_frozen", "{s:I}", "course", (json_int_t)ids[i]);
    }
}

static void on_tick(uv_timer_t *t)
{
    (void)t;
    rjobs_pump();
    freeze_check();
}

/* ---- entry points ------------------------------------------------------------------------------
 */

bool courses_handle(conn *c, const char *buf, size_t len)
{
    json_error_t je;
    json_t *root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
    const char *type = json_string_value(json_object_get(root, "type"));
    if (!type || strncmp(type, "course_", 7) != 0) {
        json_decref(root);
        return false;
    }
    req r = {.c = c, .root = root, .id = json_object_get(root, "id"), .type = type};
    /* several servers: the courses are one server's (cluster.c, roles) */
    if (cluster_route_role(c, CLUSTER_COORDINATOR, buf, len, r.id)) {
        json_decref(root);
        return true;
    }
    if (c->srv->stopping) {
        fail(c, ENG_ESHUTTING_DOWN, NULL, r.id, "the server is shutting down");
    } else if (!C.s || !C.handles) {
        fail(c, ENG_EINTERNAL, NULL, r.id, "courses are not available on this server");
    } else if (strcmp(type, "course_submit") == 0) {
        submit(&r);
    } else if (strcmp(type, "course_view") == 0) {
        view(&r);
    } else if (strcmp(type, "course_game") == 0) {
        get_game(&r);
    } else if (strcmp(type, "course_code") == 0) {
        get_code(&r);
    } else if (strcmp(type, "course_create") == 0 || strcmp(type, "course_add_students") == 0 ||
               strcmp(type, "course_set_deadline") == 0 ||
               strcmp(type, "course_start_final") == 0 || strcmp(type, "course_grades") == 0 ||
               strcmp(type, "course_list") == 0) {
        if (need_admin(&r)) {
            if (strcmp(type, "course_create") == 0)
                create_course(&r);
            else if (strcmp(type, "course_add_students") == 0)
                add_students(&r);
            else if (strcmp(type, "course_set_deadline") == 0)
                set_deadline(&r);
            else if (strcmp(type, "course_start_final") == 0)
                start_final(&r);
            else if (strcmp(type, "course_grades") == 0)
                grades(&r);
            else
                list_courses(&r);
        }
    } else {
        fail(c, ENG_EUNKNOWN_TYPE, NULL, r.id, "unknown message type %.40s", type);
    }
    json_decref(root);
    return true;
}

bool courses_available(const srv *s)
{
    return C.s == s && C.handles;
}

int courses_start(srv *s, char *err, size_t errcap)
{
    memset(&C, 0, sizeof C);
    C.s = s;
    /* [courses] files, or DB.files beside the SQLite file (on PostgreSQL,
     * where there is no such file: ./tessera-files) */
    const char *dbp = s->cfg.db_path ? s->cfg.db_path : "tessera.db";
    char name[PATH_MAX];
    if (s->cfg.course_files)
        snprintf(name, sizeof name, "%.2000s", s->cfg.course_files);
    else if (journal_shared(s->db))
        snprintf(name, sizeof name, "tessera-files");
    else
        snprintf(name, sizeof name, "%.2000s.files", dbp);
    char base[PATH_MAX];
    if (name[0] == '/') {
        snprintf(base, sizeof base, "%.2000s", name);
    } else {
        char cwd[PATH_MAX];
        if (!getcwd(cwd, sizeof cwd)) {
            snprintf(err, errcap, "courses: the working directory cannot be read");
            return ENG_EIO;
        }
        snprintf(base, sizeof base, "%.1500s/%.500s", cwd, name);
    }
    snprintf(C.dir, sizeof C.dir, "%.2000s", base);
    int rc = class_store_init(db(), err, errcap);
    if (rc)
        return rc;
    /* the database file is mode 0600 (store_open): it holds every course's
     * stderr, records and submission folders */
    pthread_mutex_init(&C.lock, NULL);
    pthread_cond_init(&C.cond, NULL);
    atomic_store(&C.stop, false);
    uv_async_init(s->loop, &C.async, on_async);
    uv_timer_init(s->loop, &C.timer);
    uv_timer_start(&C.timer, on_tick, COURSES_TICK_MS, COURSES_TICK_MS);
    C.handles = true;
    int want = s->cfg.course_jobs > 0 ? s->cfg.course_jobs : COURSES_GATE_JOBS_DEFAULT;
    if (want > COURSES_MAX_JOBS)
        want = COURSES_MAX_JOBS;
    for (int i = 0; i < want; i++) {
        if (pthread_create(&C.thread[i], NULL, worker_main, NULL) != 0) {
            if (i == 0) {
                snprintf(err, errcap, "courses: the worker thread could not start");
                return ENG_EINTERNAL;
            }
            break;
        }
        C.nthreads = i + 1;
    }
    /* what a previous run left unplayed: nothing of it was stored */
    db_stmt *st = prep("SELECT id FROM class_submissions WHERE state <> 'done' ORDER BY id");
    exec("DELETE FROM class_games WHERE submission IN (SELECT id FROM class_submissions"
         " WHERE state <> 'done')");
    exec("DELETE FROM class_gates WHERE submission IN (SELECT id FROM class_submissions"
         " WHERE state <> 'done')");
    while (st && step(st) == DB_ROW)
        queue_ladder(db_column_int64(st, 0));
    db_finalize(st);
    /* a final cut short: back to startable (a server tournament it was
     * played by is cancelled) */
    db_stmt *ft = prep("SELECT final_tour FROM class_courses WHERE final_state = 'running'"
                       " AND final_tour <> 0");
    while (ft && step(ft) == DB_ROW)
        tours_cancel_id(s, db_column_int64(ft, 0));
    db_finalize(ft);
    exec("UPDATE class_courses SET final_state = 'none', final_tour = 0 WHERE final_state ="
         " 'running'");
    exec("DELETE FROM class_games WHERE stage = 'final' AND course IN (SELECT id FROM"
         " class_courses WHERE final_state = 'none')");
    freeze_check();
    return 0;
}

void courses_shutdown(srv *s)
{
    (void)s;
    if (!C.handles)
        return;
    atomic_store(&C.stop, true);
    pthread_mutex_lock(&C.lock);
    pthread_cond_broadcast(&C.cond);
    pthread_mutex_unlock(&C.lock);
    for (int i = 0; i < C.nthreads; i++)
        pthread_join(C.thread[i], NULL); /* the runner stops its games at once */
    C.nthreads = 0;
    on_async(&C.async); /* store what was finished */
    uv_timer_stop(&C.timer);
    uv_close((uv_handle_t *)&C.timer, NULL);
    uv_close((uv_handle_t *)&C.async, NULL);
    C.handles = false;
    while (C.jobs) {
        job *j = C.jobs;
        C.jobs = j->next;
        job_free(j);
    }
    C.jobs_tail = NULL;
    while (C.rjobs) {
        rjob *r = C.rjobs;
        C.rjobs = r->next;
        rjob_free(r);
    }
}
