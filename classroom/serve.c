/*
 * serve.c — the course service (contract in service.h): its life (start,
 * stop, free), the loop's two entry points (poll: what the workers
 * finished; tick: the deadline and remote bots' waits), and the course_*
 * messages handed to their handlers (requests.c, submit.c), with the
 * replies and logs that go back through the host.
 *
 * Who may do what. Instructor messages carry the server's admin token,
 * which the host checks (it is the server's, not the classroom's). A
 * student's messages carry their own token, which names the student and
 * the course; it shows only that student's submissions, code, games,
 * stderr and standing — every other id is answered `forbidden`, whether it
 * exists or not.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "classroom/internal.h"
#include "classroom/pool.h"
#include "engine/errors.h"

/* ---- requests ---------------------------------------------------------------------------------
 */

void class_service_request(class_service *svc, const proto_msg *m, uint64_t caller,
                           const char *peer)
{
    req r = {.svc = svc,
             .m = m,
             .c = &m->course,
             .caller = caller,
             .peer = peer,
             .id = m->id,
             .type = proto_type_name(m->type)};
    if (svc->stopping) {
        class__fail(&r, ENG_ESHUTTING_DOWN, NULL, "the server is shutting down");
        return;
    }
    if (!svc->coordinator) { /* its cluster's coordinator answers them: none is known now */
        class__fail(&r, ENG_EINTERNAL, "unavailable",
                    "the courses are answered by one server of this cluster, and none holds them "
                    "now: try again in a few seconds");
        return;
    }
    switch (m->type) {
    case PROTO_COURSE_CREATE: class__create(&r); break;
    case PROTO_COURSE_ADD_STUDENTS: class__add_students(&r); break;
    case PROTO_COURSE_SET_DEADLINE: class__set_deadline(&r); break;
    case PROTO_COURSE_START_FINAL: class__start_final(&r); break;
    case PROTO_COURSE_GRADES: class__grades(&r); break;
    case PROTO_COURSE_LIST: class__list(&r); break;
    case PROTO_COURSE_RERUN_GATES: class__rerun_gates(&r); break;
    case PROTO_COURSE_ARCHIVE: class__archive(&r); break;
    case PROTO_COURSE_DELETE: class__delete(&r); break;
    case PROTO_COURSE_SETTINGS: class__settings(&r); break;
    case PROTO_COURSE_VIEW: class__view(&r); break;
    case PROTO_COURSE_GAME: class__game(&r); break;
    case PROTO_COURSE_CODE: class__code(&r); break;
    case PROTO_COURSE_SUBMIT: class__submit(&r); break;
    case PROTO_COURSE_UPLOAD: class__upload(&r); break;
    default: class__fail(&r, ENG_EUNKNOWN_TYPE, NULL, "unknown message type %.40s", r.type); break;
    }
}

/* ---- life -------------------------------------------------------------------------------------
 */

static void cancel_leftover(class_service *svc, int64_t tour)
{
    if (svc->host.cancel_tour)
        svc->host.cancel_tour(svc->host.user, tour);
}

/* What the coordinator alone does: the builds' threads, and what a
 * previous run (or a dead coordinator) left unplayed — nothing of it was
 * stored; on several servers the ladders of uploaded bots are claimed from
 * the database by every server, so only remote bots' are queued here. */
static int take_up(class_service *svc)
{
    if (class_pool_start(&svc->builds, svc->build_jobs, svc->host.wake, svc->host.user) != 0)
        return -1;
    int64_t *ids = NULL;
    int n = class__leftover_subs(svc, &ids, svc->claims);
    for (int i = 0; i < n; i++)
        class__queue_ladder(svc, ids[i]);
    free(ids);
    class__leftover_finals(svc, cancel_leftover);
    class__freeze_due(svc);
    class__uploads_init(svc);
    return 0;
}

int class_service_start(const class_service_config *cfg, const class_host *host,
                        class_service **out, char *err, size_t errcap)
{
    *out = NULL;
    if (!cfg || !cfg->db || !cfg->files_dir || !host || !host->wake || !host->reply ||
        !host->queue_work) {
        snprintf(err, errcap, "courses: no database, folder or host");
        return ENG_EINVAL;
    }
    class_service *svc = calloc(1, sizeof *svc);
    if (!svc) {
        snprintf(err, errcap, "out of memory");
        return ENG_ENOMEM;
    }
    svc->host = *host;
    svc->db = cfg->db;
    const char *name = cfg->files_dir;
    if (name[0] == '/') {
        snprintf(svc->dir, sizeof svc->dir, "%.2000s", name);
    } else {
        char cwd[PATH_MAX];
        if (!getcwd(cwd, sizeof cwd)) {
            free(svc);
            snprintf(err, errcap, "courses: the working directory cannot be read");
            return ENG_EIO;
        }
        snprintf(svc->dir, sizeof svc->dir, "%.1500s/%.500s", cwd, name);
    }
    int rc = class_store_init(svc->db, err, errcap);
    if (rc) {
        free(svc);
        return rc;
    }
    /* the database holds every course's stderr, records and submissions'
     * folders: the host keeps it private (a SQLite file is mode 0600) */
    pthread_mutex_init(&svc->lock, NULL);
    pthread_cond_init(&svc->cond, NULL);
    atomic_store(&svc->stop, false);
    svc->max_upload = cfg->max_upload > 0 ? cfg->max_upload : CLASS_MAX_UPLOAD_CEILING;
    svc->build_jobs = cfg->build_jobs;
    /* on PostgreSQL, servers may share the tables: ladders are claimed
     * from them, each claim under a name of this process's own (a server
     * restarted under the same name does not renew its past life's claims) */
    svc->claims = db_engine_of(cfg->db) == DB_POSTGRES;
    svc->coordinator = !cfg->worker_only;
    char tail[CLASS_TOKEN_LEN + 1] = "";
    class_token_new(tail);
    snprintf(svc->worker, sizeof svc->worker, "%.60s/%.8s", cfg->name ? cfg->name : "server",
             tail);
    rc = class__workers_start(svc, cfg->jobs, err, errcap);
    if (rc == 0 && svc->coordinator && take_up(svc) != 0) {
        class__workers_stop(svc);
        snprintf(err, errcap, "courses: the builds' threads could not be started");
        rc = ENG_EINTERNAL;
    }
    if (rc) {
        pthread_cond_destroy(&svc->cond);
        pthread_mutex_destroy(&svc->lock);
        free(svc);
        return rc;
    }
    if (svc->claims)
        class__claim_pump(svc);
    *out = svc;
    return 0;
}

void class_service_promote(class_service *svc)
{
    if (svc->coordinator || svc->stopping)
        return;
    svc->coordinator = true;
    if (take_up(svc) != 0)
        class__log(svc, CLASS_LOG_ERROR, "courses_unavailable", "{s:s}", "reason",
                   "the builds' threads could not be started");
    class__log(svc, CLASS_LOG_INFO, "courses_promoted", "{s:s}", "worker", svc->worker);
}

void class_service_poll(class_service *svc)
{
    pthread_mutex_lock(&svc->lock);
    done *list = svc->done;
    svc->done = svc->done_tail = NULL;
    pthread_mutex_unlock(&svc->lock);
    while (list) {
        done *next = list->next;
        class__apply(svc, list);
        class__done_free(list);
        list = next;
    }
    if (svc->builds)
        class_pool_poll(svc->builds); /* uploads checked or built: stored and answered */
    if (svc->claims)
        class__claim_pump(svc);
    if (svc->coordinator)
        class__remote_pump(svc);
}

void class_service_tick(class_service *svc)
{
    if (svc->claims) { /* this server's claims kept, and what is queued (or abandoned) taken */
        class__claims_renew(svc, class__now_ms(), false);
        class__claim_pump(svc);
    }
    if (!svc->coordinator)
        return;
    class__remote_pump(svc);
    class__freeze_due(svc);
    class__scrim_pump(svc);
    class__uploads_expire(svc, class__now_ms());
}

void class_service_stop(class_service *svc)
{
    if (!svc || svc->stopping)
        return;
    svc->stopping = true; /* before the last poll: no remote job starts */
    class__workers_stop(svc);
    class_pool_stop(svc->builds); /* builds running finish; those waiting are answered */
    class_service_poll(svc);      /* store what was finished */
    if (svc->claims) /* what this server was playing, given back: another takes it at once */
        class__claims_renew(svc, class__now_ms(), true);
    class__remote_free_all(svc);
    class__uploads_free_all(svc);
}

void class_service_free(class_service *svc)
{
    if (!svc)
        return;
    class_service_stop(svc);
    class_pool_free(svc->builds);
    pthread_cond_destroy(&svc->cond);
    pthread_mutex_destroy(&svc->lock);
    free(svc);
}
