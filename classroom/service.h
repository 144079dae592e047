/*
 * service.h — the classroom as a service of a game server (docs/classroom.md):
 * what a host (server/courses.c) creates, feeds with the course_* messages
 * and is told back through. The course logic, its tables, its jobs (gates,
 * finals, the deadline's freeze) and their threads are the service's; the
 * host owns the loop, the connections, the admin token and the matches.
 *
 *     class_host h = {.user = me, .wake = ..., .reply = ..., ...};
 *     class_service_config c = {.db = db, .files_dir = "tessera.db.files"};
 *     class_service *svc;
 *     class_service_start(&c, &h, &svc, err, sizeof err);
 *     ... on a decoded course_* message (protocol/messages.h):
 *         if (!class_request_is_instructor(m) || the admin token is right)
 *             class_service_request(svc, m, conn_id, peer);
 *     ... when h.wake was called: class_service_poll(svc);
 *     ... when a connection closes: class_service_caller_gone(svc, conn_id);
 *     ... every CLASS_TICK_MS: class_service_tick(svc);
 *     class_service_stop(svc);  (close the host's handles)  class_service_free(svc);
 *
 * Threads. Every function here, and every host function but those marked
 * otherwise, runs on the host's loop thread, which alone touches the
 * database. The service's worker threads play the gates and finals (no
 * database) and hand their results to the loop: host.wake, then
 * class_service_poll stores them.
 *
 * A student's remote bot (kind "remote") is played by the host: the
 * service asks it for a tournament of server matches (host.start_tour) and
 * is told each game and the end through the hooks it gives.
 */
#ifndef TESSERA_CLASSROOM_SERVICE_H
#define TESSERA_CLASSROOM_SERVICE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/messages.h"
#include "storage/db.h"

typedef struct class_service class_service;

#define CLASS_TICK_MS                                                                              \
    1000 /* how often the host calls class_service_tick: deadlines, remote waits */
#define CLASS_CRED_MAX                                                                             \
    64 /* bytes of a registered secret's stored form (the host's salt and hash) */

/* Log levels, in the host's order. */
enum { CLASS_LOG_DEBUG, CLASS_LOG_INFO, CLASS_LOG_WARN, CLASS_LOG_ERROR };

/* A secret as the host stores it (opaque here). */
typedef struct class_cred {
    unsigned char bytes[CLASS_CRED_MAX];
} class_cred;

struct tour;
struct tour_result;

/* What the service hears of a tournament it asked the host for: each game
 * as it ends (participants by seat, the result, the game record as JSON
 * text), then the end (t: its standings; not called when it is cancelled).
 * ctx and user come back as given. */
typedef struct class_tour_hooks {
    void (*game)(void *ctx, int64_t user, int64_t tour, int64_t game, int seats, const int *table,
                 const struct tour_result *r, const char *record);
    void (*done)(void *ctx, int64_t user, int64_t tour, const struct tour *t);
    void *ctx;
    int64_t user;
} class_tour_hooks;

/* The host's side. */
typedef struct class_host {
    void *user;
    /* Any thread: a worker finished something; call class_service_poll()
     * on the loop soon. */
    void (*wake)(void *user);
    /* The reply to a request of `caller` (as given to class_service_request),
     * now or later; msg is stolen. A caller gone meanwhile: drop it. */
    void (*reply)(void *user, uint64_t caller, json_t *msg);
    /* A log line; fields (an object) is stolen. */
    void (*log)(void *user, int level, const char *event, json_t *fields);
    /* Run work(arg) on the host's thread pool, then done(arg, status) on the
     * loop (status != 0: it could not run). 0, or -1 when it cannot queue. */
    int (*queue_work)(void *user, void (*work)(void *arg), void (*done)(void *arg, int status),
                      void *arg);
    /* Remote bots. Any thread (the pool: it is slow): the stored form of a
     * new secret. false when it could not be made. */
    bool (*seal_secret)(void *user, const char *secret, class_cred *out);
    /* Reserve a registered name for the secret: 0, ENG_ETOO_MANY (no room),
     * or another negative code. */
    int (*reserve_name)(void *user, const char *name, const class_cred *cred);
    /* Is the bot registered as `name` connected now? */
    bool (*bot_connected)(void *user, const char *name);
    /* Start the tournament of a create_tournament message, with hooks: 0
     * and its id, ENG_ETOO_MANY (no room now: try again later), or another
     * negative code, with a reason in err. */
    int (*start_tour)(void *user, const proto_msg *create, const class_tour_hooks *h, int64_t *id,
                      char *err, size_t errcap);
    /* Cancel tournament id (its hooks are dropped); nothing when unknown. */
    void (*cancel_tour)(void *user, int64_t id);
    /* Its state ("created", "running", "paused", "cancelled", "done") and
     * *note (why it paused itself), or NULL when the host holds no such one. */
    const char *(*tour_state_of)(void *user, int64_t id, const char **note);
} class_host;

typedef struct class_service_config {
    db_conn *db;           /* the host's database, SQLite or PostgreSQL (loop thread only) */
    const char *files_dir; /* submissions' folders go under it (relative: to the working
                              directory); it holds students' code: the host picks it */
    int jobs;              /* submissions played at once, one worker thread each
                              (0: half the cores, at least 2; at most CLASS_MAX_JOBS);
                              a final plays a game on every core */
    int build_jobs;        /* uploads checked or built at once, on threads of the service's
                              own, not the host's pool (0: half the cores, at least 1) */
    int64_t max_upload;    /* bytes: the ceiling on a course's max_upload_bytes (0:
                              CLASS_MAX_UPLOAD_CEILING) */
    /* Several servers on one PostgreSQL database (docs/scaling.md): every
     * server's service claims submissions' ladders from the database and
     * plays them on its own workers; one, the coordinator, also answers the
     * course messages and runs uploads, builds, remote bots, deadlines and
     * finals. On SQLite the service is always the coordinator and its
     * ladders go to its workers directly. */
    bool worker_only; /* not the coordinator (class_service_promote makes it one) */
    const char *name; /* this server's name, on its claims and in its logs (NULL: "server") */
} class_service_config;

/* Create the class_ tables (or add what an older release lacks), start the
 * workers, and take up what a previous run left unplayed: gates played
 * again, a final cut short back to startable, courses past their deadline
 * frozen. host is copied. 0 and *out, or a negative code with err. */
int class_service_start(const class_service_config *cfg, const class_host *host,
                        class_service **out, char *err, size_t errcap);
/* A worker-only service becomes the coordinator (its server took the
 * role over): it answers course messages from now on and takes up what the
 * coordinator before it left (remote bots' ladders, a final cut short). */
void class_service_promote(class_service *svc);
/* Stop: running games are cut short (played again at the next start),
 * what was finished is stored, nothing starts any more. Joins the workers:
 * host.wake is not called after it returns. */
void class_service_stop(class_service *svc);
/* Free (after class_service_stop; NULL is fine). */
void class_service_free(class_service *svc);

/* A caller (connection) is gone: its uploads not submitted are removed. */
void class_service_caller_gone(class_service *svc, uint64_t caller);

/* Store what the workers finished, and move remote bots' jobs on. */
void class_service_poll(class_service *svc);
/* Every CLASS_TICK_MS: freeze the courses whose deadline passed, start the
 * gates of remote bots that connected, fail those that waited too long. */
void class_service_tick(class_service *svc);

/* Does course message m act as the instructor (course_create, _add_students,
 * _set_deadline, _start_final, _grades, _list; and course_view, _game,
 * _code without a student token)? The host checks its admin token first. */
bool class_request_is_instructor(const proto_msg *m);
/* Handle one course_* message (decoded by protocol/messages.h; the admin
 * token checked by the host when class_request_is_instructor). Its reply
 * goes to host.reply(caller), now or once an upload has been checked;
 * `peer` names the caller in logs. */
void class_service_request(class_service *svc, const proto_msg *m, uint64_t caller,
                           const char *peer);

#endif
