/*
 * jobs.c — the course service's work (internal.h): worker threads that
 * play each new submission's gate ladder and the finals, the results they
 * hand back, stored on the loop, and the deadline's freeze.
 *
 * Threads. The workers ([courses] gate_jobs of them; by default half the
 * cores this process may use, at least 2: that many submissions' ladders at
 * once, two games each; a final plays a game on every core) take a job (a submission's ladder, or a
 * course's final) with every string it needs copied, play it with
 * class_play (no database), and hand each gate's games and verdict, or the
 * final's, back to the loop (host.wake; class_service_poll), which stores
 * them, one transaction each. A job cut short by a stop is simply played
 * again at the next start: its state in the database is still queued or
 * running, and nothing of it was stored.
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <assert.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "classroom/internal.h"
#include "engine/errors.h"

/* The verdict names the first fault of the submission, if any. */
void class__gate_verdict(done *d, const class_gate *gate)
{
    d->passed = class_gate_passed(gate, d->st[0].points, d->st[0].games);
    const char *fault = "", *theirs = "";
    int64_t nfault = 0, ntheirs = 0;
    for (int k = 0; k < d->ngames; k++) {
        const class_game *g = &d->games[k].g;
        if (g->culprit >= 0 && g->who[g->culprit] == 0) {
            if (!nfault++)
                fault = g->verdict;
        } else if (g->culprit >= 0) {
            if (!ntheirs++)
                theirs = g->verdict;
        }
    }
    if (ntheirs) {
        /* a win over a reference that crashed or timed out proves nothing:
         * the gate is broken, and the submission is not judged by it */
        d->passed = false;
        d->broken = true;
        snprintf(d->verdict, sizeof d->verdict,
                 "broken: the opponent %.150s lost %lld of %lld games by a fault of its own, "
                 "first: %.150s",
                 gate->opponent, (long long)ntheirs, (long long)d->st[0].games, theirs);
        return;
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

/* ---- ladders: queued here, or claimed from the database ---------------------------------------
 */

job *class__ladder_job(class_service *svc, const sub_t *s)
{
    job *j = calloc(1, sizeof *j);
    course_t c;
    if (!j || !class__course_load(svc, s->course, &c)) {
        free(j);
        return NULL;
    }
    j->course = c.id;
    j->submission = s->id;
    j->run = s->run;
    j->g = c.g;
    j->rules = c.rules;
    j->move_ms = c.move_ms;
    j->seed = c.seed;
    j->qualify = c.qualify;
    memcpy(j->gates, c.gates, sizeof j->gates);
    j->ngates = c.ngates;
    class__ensure_files(svc, s);
    class__sub_spec(s, j->spec, sizeof j->spec);
    class__course_release(&c);
    return j;
}

static void hold(class_service *svc, bool pair, int64_t id)
{
    if (svc->nheld < (int)(sizeof svc->held / sizeof svc->held[0])) {
        svc->held[svc->nheld].pair = pair;
        svc->held[svc->nheld++].id = id;
    }
}

static void unhold(class_service *svc, bool pair, int64_t id)
{
    for (int i = 0; i < svc->nheld; i++)
        if (svc->held[i].pair == pair && svc->held[i].id == id) {
            svc->held[i] = svc->held[--svc->nheld];
            return;
        }
}

void class__claim_pump(class_service *svc)
{
    assert(svc->claims);
    while (!svc->stopping) {
        pthread_mutex_lock(&svc->lock);
        int queued = 0;
        for (job *q = svc->jobs; q; q = q->next)
            queued++;
        bool free_worker = svc->busy + queued < svc->nthreads;
        pthread_mutex_unlock(&svc->lock);
        if (!free_worker)
            return;
        /* ladders first (students wait for their verdicts), then the pairs
         * of a final */
        sub_t s;
        int rc = class__claim(svc, class__now_ms(), &s);
        job *j = NULL;
        if (rc > 0) {
            class__log(svc, CLASS_LOG_INFO, "course_claim", "{s:I, s:I, s:I, s:s}", "course",
                       (json_int_t)s.course, "submission", (json_int_t)s.id, "run",
                       (json_int_t)s.run, "worker", svc->worker);
            /* NULL: the claim lapses, another server (or this one, later) plays it */
            if ((j = class__ladder_job(svc, &s)) != NULL)
                hold(svc, false, s.id);
        } else if (rc == 0 && (j = class__claim_pair(svc, class__now_ms())) != NULL) {
            class__log(svc, CLASS_LOG_INFO, "course_claim_pair", "{s:I, s:I, s:i, s:I, s:s}",
                       "course", (json_int_t)j->course, "pair", (json_int_t)j->pair, "pairno",
                       j->pairno, "run", (json_int_t)j->run, "worker", svc->worker);
            hold(svc, true, j->pair);
        }
        if (!j)
            return;
        class__push_job(svc, j);
    }
}

/* ---- the workers ----------------------------------------------------------------------------- */

static void run_ladder(class_service *svc, job *j)
{
    int passed = 0, broken = -1;
    char last[CLASS_VERDICT_MAX] = "";
    for (int i = 0; i < j->ngates; i++) {
        done *d = calloc(1, sizeof *d);
        if (!d)
            break;
        d->kind = DONE_GATE;
        d->course = j->course;
        d->submission = j->submission;
        d->run = j->run;
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
                                .threads = CLASS_GATE_THREADS,
                                .stop = &svc->stop,
                                .on_game = class__keep_game,
                                .source = "tessera course gate",
                                .user = d};
        char err[512];
        int rc = class_play(&pc, d->st, err, sizeof err);
        if (rc == ENG_ESHUTTING_DOWN || atomic_load(&svc->stop)) {
            class__done_free(d);
            return; /* played again at the next start */
        }
        if (rc) {
            d->kind = DONE_FAILED;
            snprintf(d->verdict, sizeof d->verdict, "gate %d could not be played: %.300s", i + 1,
                     err);
            class__post(svc, d);
            return;
        }
        class__gate_verdict(d, &j->gates[i]);
        snprintf(last, sizeof last, "gate %d %.380s", i + 1, d->verdict);
        bool ok = d->passed;
        if (d->broken)
            broken = i;
        class__post(svc, d);
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
    d->run = j->run;
    d->gates_passed = passed;
    if (broken >= 0) {
        class__not_judged(d, broken, last);
    } else {
        d->qualified = passed >= j->qualify;
        snprintf(d->verdict, sizeof d->verdict, "%s %d of %d gates; %.360s",
                 d->qualified ? "qualified:" : "not qualified:", passed, j->ngates, last);
    }
    class__post(svc, d);
}

void class__not_judged(done *d, int gate, const char *gate_verdict)
{
    d->qualified = false;
    d->broken = true;
    snprintf(d->verdict, sizeof d->verdict,
             "not judged: gate %d is broken, not your bot (%.250s); the instructor is told, and "
             "your submission is played again once the gate is fixed",
             gate + 1, gate_verdict);
}

static void run_final(class_service *svc, job *j)
{
    done *d = calloc(1, sizeof *d);
    if (!d)
        return;
    d->kind = DONE_FINAL;
    d->course = j->course;
    d->n = j->n;
    d->format = j->format;
    d->students = malloc((size_t)j->n * sizeof *d->students);
    d->subs = malloc((size_t)j->n * sizeof *d->subs);
    d->fst = calloc((size_t)j->n, sizeof *d->fst);
    if (!d->students || !d->subs || !d->fst) {
        d->kind = DONE_FAILED;
        snprintf(d->verdict, sizeof d->verdict, "out of memory");
        class__post(svc, d);
        return;
    }
    memcpy(d->students, j->students, (size_t)j->n * sizeof *d->students);
    memcpy(d->subs, j->subs, (size_t)j->n * sizeof *d->subs);
    if (j->pair) { /* a pair of a final split among servers (finals.c) */
        d->kind = DONE_PAIR;
        d->pair = j->pair;
        d->run = j->run;
        d->gate = j->pairno;
    }
    class_play_config pc = {.game = j->g,
                            .rules = j->rules,
                            .specs = (const char *const *)j->specs,
                            .names = (const char *const *)j->names,
                            .n = j->n,
                            .format = j->format,
                            .games_per_pair = j->final_games,
                            .move_ms = j->move_ms,
                            .seed = j->seed ^ 0xf1a1ULL,
                            .threads = j->pair ? CLASS_GATE_THREADS : svc->final_threads,
                            .stop = &svc->stop,
                            .on_game = class__keep_game,
                            .source = "tessera course final",
                            .user = d};
    char err[512];
    int rc = class_play(&pc, d->fst, err, sizeof err);
    if (rc == ENG_ESHUTTING_DOWN || atomic_load(&svc->stop)) {
        class__done_free(d);
        return;
    }
    if (rc) {
        d->kind = DONE_FAILED;
        snprintf(d->verdict, sizeof d->verdict, "the final could not be played: %.300s", err);
    }
    /* a pair's games numbered within the final: pair by pair */
    for (int k = 0; j->pair && k < d->ngames; k++)
        d->games[k].g.index += (int64_t)j->pairno * j->final_games;
    class__post(svc, d);
}

static void *worker_main(void *arg)
{
    class_service *svc = arg;
    pthread_mutex_lock(&svc->lock);
    while (!atomic_load(&svc->stop)) {
        job *j = svc->jobs;
        job **head = &svc->jobs, **tail = &svc->jobs_tail;
        if (!j) { /* gates and finals first: a scrimmage pair only when none waits */
            j = svc->scrims;
            head = &svc->scrims;
            tail = &svc->scrims_tail;
        }
        if (!j) {
            pthread_cond_wait(&svc->cond, &svc->lock);
            continue;
        }
        *head = j->next;
        if (!*head)
            *tail = NULL;
        if (!j->scrim) /* a scrimmage pair leaves its worker free to the claims: gates first */
            svc->busy++;
        pthread_mutex_unlock(&svc->lock);
        if (j->final) {
            run_final(svc, j);
        } else if (j->scrim) {
            class__scrim_run(svc, j);
        } else {
            done *d = calloc(1, sizeof *d);
            if (d) { /* the page shows it in its gates, not waiting in the queue */
                d->kind = DONE_START;
                d->course = j->course;
                d->submission = j->submission;
                d->run = j->run;
                snprintf(d->verdict, sizeof d->verdict, "gate 1: playing against %.300s",
                         j->gates[0].opponent);
                class__post(svc, d);
            }
            run_ladder(svc, j);
        }
        bool scrim = j->scrim;
        class__job_free(j);
        pthread_mutex_lock(&svc->lock);
        if (!scrim)
            svc->busy--;
        if (svc->claims) { /* a worker is free: the loop claims the next ladder */
            pthread_mutex_unlock(&svc->lock);
            svc->host.wake(svc->host.user);
            pthread_mutex_lock(&svc->lock);
        }
    }
    pthread_mutex_unlock(&svc->lock);
    return NULL;
}

/* The cores this process may run on (its affinity: a container's or
 * taskset's share, not the machine's count). */
static int cores(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

int class__workers_start(class_service *svc, int want, char *err, size_t errcap)
{
    /* a pool sized to the machine: a game a core — half the cores
     * submissions at once (two games each), a final on every core */
    int n = cores();
    if (want <= 0)
        want = n / CLASS_GATE_THREADS;
    if (want < CLASS_MIN_JOBS)
        want = CLASS_MIN_JOBS;
    if (want > CLASS_MAX_JOBS)
        want = CLASS_MAX_JOBS;
    svc->final_threads = n < CLASS_GATE_THREADS        ? CLASS_GATE_THREADS
                         : n > CLASS_MAX_FINAL_THREADS ? CLASS_MAX_FINAL_THREADS
                                                       : n;
    for (int i = 0; i < want; i++) {
        if (pthread_create(&svc->thread[i], NULL, worker_main, svc) != 0) {
            if (i == 0) {
                snprintf(err, errcap, "courses: the worker thread could not start");
                return ENG_EINTERNAL;
            }
            break;
        }
        svc->nthreads = i + 1;
    }
    class__log(svc, CLASS_LOG_INFO, "course_pool", "{s:i, s:i, s:i, s:i}", "cores", n, "gate_jobs",
               svc->nthreads, "games_per_job", CLASS_GATE_THREADS, "final_games_at_once",
               svc->final_threads);
    return 0;
}

void class__workers_stop(class_service *svc)
{
    atomic_store(&svc->stop, true);
    pthread_mutex_lock(&svc->lock);
    pthread_cond_broadcast(&svc->cond);
    pthread_mutex_unlock(&svc->lock);
    for (int i = 0; i < svc->nthreads; i++)
        pthread_join(svc->thread[i], NULL); /* the runner stops its games at once */
    svc->nthreads = 0;
    while (svc->jobs) {
        job *j = svc->jobs;
        svc->jobs = j->next;
        class__job_free(j);
    }
    svc->jobs_tail = NULL;
    class__scrim_drop(svc, 0);
}

void class__drop_jobs(class_service *svc, int64_t course, int64_t sub)
{
    pthread_mutex_lock(&svc->lock);
    job **pp = &svc->jobs;
    svc->jobs_tail = NULL;
    while (*pp) {
        job *j = *pp;
        if (j->course == course && !j->final && (sub == 0 || j->submission == sub)) {
            *pp = j->next;
            if (svc->claims) /* its claim given up (the reset cleared it) */
                unhold(svc, false, j->submission);
            class__job_free(j);
        } else {
            svc->jobs_tail = j;
            pp = &j->next;
        }
    }
    pthread_mutex_unlock(&svc->lock);
}

void class__push_job(class_service *svc, job *j)
{
    pthread_mutex_lock(&svc->lock);
    if (svc->jobs_tail)
        svc->jobs_tail->next = j;
    else
        svc->jobs = j;
    svc->jobs_tail = j;
    pthread_cond_signal(&svc->cond);
    pthread_mutex_unlock(&svc->lock);
}

/* ---- results, on the loop ----------------------------------------------------------------------
 */

void class__apply(class_service *svc, done *d)
{
    if (d->kind == DONE_SCRIM) {
        class__scrim_apply(svc, d);
        return;
    }
    /* a submission played again (or deleted) since: this result is stale */
    if (d->submission && class__sub_run(svc, d->submission) != d->run) {
        class__log(svc, CLASS_LOG_DEBUG, "course_result_dropped", "{s:I, s:I}", "course",
                   (json_int_t)d->course, "submission", (json_int_t)d->submission);
        return;
    }
    class_utf8_fix(d->verdict); /* cut at a byte count, it may end inside a character */
    if (d->kind == DONE_START) {
        class__sub_started(svc, d->submission, d->verdict);
        return;
    }
    if (d->kind == DONE_PAIR || (d->kind == DONE_FAILED && d->pair))
        unhold(svc, true, d->pair);
    else if (d->kind == DONE_SUB || (d->kind == DONE_FAILED && d->submission))
        unhold(svc, false, d->submission);
    bool ok = class__begin(svc);
    bool stale = false, finished = false;
    if (ok && d->kind == DONE_PAIR && (!class__store_pair(svc, d, &stale, &finished) || stale)) {
        class__commit(svc, false);
        class__log(svc, stale ? CLASS_LOG_INFO : CLASS_LOG_ERROR,
                   stale ? "course_result_dropped" : "course_store_failed", "{s:I, s:I, s:I}",
                   "course", (json_int_t)d->course, "pair", (json_int_t)d->pair, "run",
                   (json_int_t)d->run);
        return;
    }
    /* several servers: stored only while the ladder is still this run's
     * (not claimed again by another server, not reset) — checked in the
     * result's own transaction */
    if (ok && d->submission && !class__still_run(svc, d->submission, d->run, class__now_ms())) {
        class__commit(svc, false);
        class__log(svc, CLASS_LOG_INFO, "course_result_dropped", "{s:I, s:I, s:I}", "course",
                   (json_int_t)d->course, "submission", (json_int_t)d->submission, "run",
                   (json_int_t)d->run);
        return;
    }
    if (d->kind == DONE_GATE)
        ok = ok && class__store_gate(svc, d);
    else if (d->kind == DONE_SUB || (d->kind == DONE_FAILED && d->submission))
        ok = ok && class__store_sub(svc, d);
    else if (d->kind == DONE_FINAL)
        ok = ok && class__store_final(svc, d);
    else if (d->kind == DONE_FAILED) /* a final that failed (and its pairs, if split) */
        ok = ok && class__store_final_failed(svc, d->course, d->verdict) &&
             (!d->pair || class__pairs_clear(svc, d->course));
    if (!class__commit(svc, ok)) {
        class__log(svc, CLASS_LOG_ERROR, "course_store_failed", "{s:I, s:I}", "course",
                   (json_int_t)d->course, "submission", (json_int_t)d->submission);
        return;
    }
    class__log(svc, CLASS_LOG_INFO, "course_result", "{s:s, s:I, s:I, s:i, s:i, s:s, s:s}",
               "kind",
               d->kind == DONE_GATE    ? "gate"
               : d->kind == DONE_SUB   ? "submission"
               : d->kind == DONE_FINAL ? "final"
               : d->kind == DONE_PAIR  ? (finished ? "final" : "pair")
                                       : "failed",
               "course", (json_int_t)d->course, "submission", (json_int_t)d->submission, "gate",
               d->gate, "games", d->ngames, "worker", svc->worker, "verdict", d->verdict);
    if (d->kind != DONE_GATE)
        class__freeze_due(svc);
}

void class__final_failed(class_service *svc, int64_t course, const char *why)
{
    done *d = calloc(1, sizeof *d);
    if (!d)
        return;
    d->kind = DONE_FAILED;
    d->course = course;
    snprintf(d->verdict, sizeof d->verdict, "the final could not be played: %.300s", why);
    class__apply(svc, d);
    class__done_free(d);
}

/* ---- the deadline ---------------------------------------------------------------------------- */

/* Freeze every course whose deadline has passed and whose submissions made
 * before it have all been through their gates: each student's latest
 * qualifying submission is marked frozen. */
void class__freeze_due(class_service *svc)
{
    int64_t now = class__now_ms(), ids[64];
    int n = class__freeze_candidates(svc, now, ids, 64);
    for (int i = 0; i < n; i++) {
        int rc = class__freeze(svc, ids[i], now);
        if (rc < 0)
            class__log(svc, CLASS_LOG_ERROR, "course_freeze_failed", "{s:I}", "course",
                       (json_int_t)ids[i]);
        else if (rc > 0)
            class__log(svc, CLASS_LOG_INFO, "course_frozen", "{s:I}", "course", (json_int_t)ids[i]);
    }
}
