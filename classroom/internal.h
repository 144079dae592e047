/*
 * internal.h — the course service's own parts, shared by the files of
 * classroom/ behind service.h and no one else:
 *
 * from the top floor down (each calls only those below it):
 *
 *   serve.c        the object: start, stop, poll, tick, requests dispatched
 *   submit.c       a submission: its files gathered (uploads, a zip
 *                  unpacked), checked or built on the builds' pool (pool.h),
 *                  stored with their folder; a stored submission to its ladder
 *   uploads.c      course_upload: files in chunks, staged on disk per
 *                  connection until a submission takes them
 *   requests.c     who asks (instructor, student; a course open to them); the instructor's messages
 *                  and the views (create, roster, deadline, final, grades,
 *                  list, view, a game, a code)
 *   remote.c       remote bots' gates and finals, played by the host
 *   scrimmage.c    the live scrimmage ladder before the deadline: pairs of
 *                  qualified submissions queued behind the gates, their
 *                  games stored, the ratings table
 *   jobs.c         the workers: a submission's gate ladder, a final; their
 *                  results stored on the loop; the deadline's freeze
 *   files.c        the submissions' folders: made, made again, run as
 *   store_views.c, store_work.c, store.c
 *                  every SQL statement on the class_ tables
 *   host.c         logs, replies and the clock, through the host
 *   pool.c, unzip.c (beside the floors: they call none of the service's)
 *                  the builds' threads; a zip unpacked safely
 *
 * Ownership: the service owns every job, result and remote job until it
 * frees them; rows read from the database are copied into the structs below.
 */
#ifndef TESSERA_CLASSROOM_INTERNAL_H
#define TESSERA_CLASSROOM_INTERNAL_H

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>

#include "classroom/classroom.h"
#include "classroom/service.h"

#define CLASS_MIN_JOBS                                                                             \
    2                     /* submissions played at once at least (the default sizes it to the      \
                             machine: half its cores, each job two games: a game a core) */
#define CLASS_MAX_JOBS 16 /* worker threads at most (config courses.gate_jobs) */
#define CLASS_GATE_THREADS                                                                         \
    2 /* runner workers of one gate (its games are paired: two at a time)                          \
       */
#define CLASS_MAX_FINAL_THREADS                                                                    \
    64 /* runner workers of a final at most: one a core (a final is one job, its games many) */
#define CLASS_MAX_CHECKS 8 /* gate opponents being checked at once (each plays games) */
#define CLASS_CHUNK_BYTES                                                                          \
    45000 /* bytes of one course_upload chunk: its base64 (60,000 characters) and the message     \
             around it fit one 64 KiB protocol message */
#define CLASS_CODE_SHOWN                                                                           \
    (256 * 1024) /* bytes of one file course_code sends (a source; a book or weights file is      \
                    listed with its size only) */
#define CLASS_CODE_SHOWN_TOTAL (1024 * 1024) /* ... and of all its files together */
#define CLASS_UPLOADS_PER_STUDENT                                                                  \
    8 /* uploads of one student begun and not yet submitted (on any connection: an upload outlives \
         its connection, to be resumed from another) */
#define CLASS_MAX_STAGED                                                                           \
    256 /* uploads staged on the server at once, all connections: each is a file on disk up to    \
           the course's max_upload_bytes */
#define CLASS_UPLOAD_IDLE_MS                                                                       \
    600000 /* an upload untouched this long is removed (a client gone without closing) */
/* A remote bot's seat in a server match: after a dropped connection (or
 * when it is not connected as the game starts) it has the longer of this
 * and 3 moves' time to come back (the bridge reconnects within 5 s) before
 * the game is lost by "disconnect". */
#define CLASS_REMOTE_GRACE_MS 10000
#define CLASS_SPEC_MAX        (PATH_MAX + 32) /* a submission's spec: cmd:python3 DIR/MAIN */
/* Servers sharing one PostgreSQL database (docs/scaling.md) claim
 * submissions' ladders from it (class__claim_pump): a claim is renewed every
 * tick (CLASS_TICK_MS) and taken for abandoned — its server dead, or
 * stopped without giving it back — once it is this old; its ladder is then
 * played again from its first gate by whichever server claims it next.
 * Fifteen ticks: a loop stalled that long on a loaded machine must not lose
 * its ladders; a dead server's are played again within this. The servers'
 * clocks are compared (NTP-synchronised machines). */
#define CLASS_CLAIM_MS 15000

/* ---- rows ------------------------------------------------------------------------------ */

/* A course as loaded for scheduling and views. */
typedef struct course_t {
    int64_t id;
    char name[CLASS_NAME_MAX + 1];
    const eng_game *g;
    eng_rules rules;
    json_t *rules_json; /* owned: course_release() */
    int64_t move_ms;
    class_gate gates[CLASS_MAX_GATES];
    int ngates;
    int qualify;
    uint64_t seed;
    int64_t final_games, deadline_ms, frozen_ms, created_ms;
    int64_t remote_wait_ms; /* how long a remote submission waits for its bot */
    int64_t max_upload;     /* bytes of a submission at most (its files, a zip unpacked) */
    int64_t final_tour;     /* the host's tournament of a final with remote bots, or 0 */
    char final_state[16];
    char final_note[CLASS_VERDICT_MAX];
    bool archived;             /* submissions closed, listed apart; everything kept */
    int64_t last_extension_ms; /* the latest student's extension, or 0 */
    int scrimmage;             /* CLASS_SCRIM_*: the live ladder before the deadline */
} course_t;

/* A student, as their token names them. */
typedef struct student_t {
    int64_t id, course;
    char sid[CLASS_FIELD_MAX + 1], name[CLASS_FIELD_MAX + 1];
    int64_t deadline_ms; /* their extension, or 0: the course's */
} student_t;

/* A submission's place on disk and how it runs. */
typedef struct sub_t {
    int64_t id, course, student, created_ms, tour;
    int64_t run; /* its ladder's run: played again after a change, results of an older run
                    are dropped */
    char sid[CLASS_FIELD_MAX + 1];       /* its student's id */
    char kind[16];                       /* class_kind_name */
    char dir[PATH_MAX];                  /* its folder ("" for a remote bot) */
    char main[CLASS_PATH_MAX + 64]; /* the file to run; a remote bot: its registered name */
    int64_t version;                     /* its student's version number */
} sub_t;

/* A new course's settings, checked. */
typedef struct course_new {
    const char *name;
    const eng_game *g;
    char *rules_text, *gates_text; /* owned */
    class_gate gates[CLASS_MAX_GATES];
    int ngates;
    int64_t move_ms, qualify, final_games, deadline_ms, seed, remote_wait_ms, created_ms;
    int64_t max_upload;
    int scrimmage; /* CLASS_SCRIM_* */
} course_new;

/* ---- jobs between the loop and the workers ------------------------------------------------ */

/* A game as a worker (or the host, for a remote bot) hands it over, its
 * strings owned. */
typedef struct cgame {
    class_game g;
    char *record;
    char *err[ENG_MAX_PLAYERS];
    char *bundle[ENG_MAX_PLAYERS]; /* each seat's fault bundle as JSON text, or NULL */
    char end[24];
    char verdict[CLASS_VERDICT_MAX];
    bool no_stderr; /* a server match: no seat's stderr was kept */
} cgame;

/* What a worker plays: a submission's ladder, or a course's final. */
typedef struct job {
    struct job *next;
    bool final;
    bool scrim; /* a scrimmage pair: subs, students, specs, names of two (scrimmage.c) */
    int64_t course, submission;
    int64_t run; /* the submission's run (sub_t) */
    const eng_game *g;
    eng_rules rules;
    int64_t move_ms;
    uint64_t seed;
    int qualify;
    /* ladder */
    char spec[CLASS_SPEC_MAX];
    class_gate gates[CLASS_MAX_GATES];
    int ngates;
    /* final */
    int n;
    char **specs, **names;
    int64_t *students, *subs;
    int64_t final_games;
    int format; /* the final's tour_format */
    /* a pair of a round-robin final split among servers (finals.c): its
     * row, and its place in the final (games numbered pairno * final_games + k) */
    int64_t pair;
    int pairno;
} job;

/* What the loop stores: one transaction each (class__apply). */
enum { DONE_GATE, DONE_SUB, DONE_FINAL, DONE_FAILED, DONE_START, DONE_PAIR, DONE_SCRIM };
typedef struct done {
    struct done *next;
    int kind; /* DONE_*: a gate, a ladder's end, a final, a failure, a ladder begins */
    int64_t course, submission; /* submission 0: a final's */
    int64_t run;                /* the submission's run it belongs to */
    int gate;
    class_gate gatedef;
    class_standing st[2]; /* gate: [0] the student, [1] the opponent */
    bool passed;
    bool broken; /* gate: its opponent faulted: the submission is not judged */
    char verdict[CLASS_VERDICT_MAX];
    int gates_passed;
    bool qualified;
    cgame *games;
    int ngames, capgames;
    /* final */
    int n;
    int format; /* its tour_format */
    int64_t *students, *subs;
    class_standing *fst;
    int64_t pair; /* DONE_PAIR: its row (finals.c) */
} done;

/* An upload staged on disk (uploads.c): its connection's until a
 * submission takes it. */
typedef struct staged {
    char id[CLASS_TOKEN_LEN + 1]; /* random: given out at begin */
    uint64_t caller;              /* the connection that began it */
    int64_t student, course;
    char name[CLASS_FILE_NAME_MAX + 1];
    int64_t bytes, received;
    char want[65];      /* the SHA-256 declared, lower-case hex */
    struct evp_md_ctx_st *sha; /* over the bytes received */
    int fd;             /* open while chunks come; -1 once committed */
    char path[PATH_MAX];
    bool committed;
    int64_t touched_ms;
    struct staged *next;
} staged;

struct rjob;
struct class_pool;

struct class_service {
    class_host host;
    db_conn *db;
    char dir[PATH_MAX / 2]; /* the submissions' folders, absolute */
    /* the workers */
    pthread_t thread[CLASS_MAX_JOBS];
    int nthreads;
    int final_threads;    /* runner workers of a final: the machine's cores */
    pthread_mutex_t lock; /* guards the two queues */
    pthread_cond_t cond;
    job *jobs, *jobs_tail;  /* waiting for a worker */
    int busy;               /* ladders and finals taken by a worker, not yet over */
    job *scrims, *scrims_tail; /* scrimmage pairs waiting: a worker takes one only when no
                                  gate or final waits (jobs first) */
    int64_t scrim_course[CLASS_MAX_JOBS]; /* (loop) the course of each scrimmage pair queued or
                                             playing, 0: a free slot */
    uint64_t scrim_rng;                   /* (loop) the pairings' randomness */
    int64_t scrim_pause_until;            /* (loop) no pair before: one could not be played */
    int scrim_turn;                       /* (loop) the course the next pump starts at */
    done *done, *done_tail; /* finished, for the loop */
    atomic_bool stop;
    bool stopping;      /* class_service_stop began: nothing new starts */
    struct rjob *rjobs; /* remote bots' jobs (loop) */
    int checking;       /* gate opponents being checked */
    struct class_pool *builds; /* uploads' checks and builds (pool.h) */
    int64_t max_upload;        /* the server's ceiling on a course's max_upload_bytes */
    staged *staged;            /* uploads not yet submitted (loop) */
    int nstaged;
    /* several servers on one database: every server claims ladders from
     * the database (claims), the one holding the cluster's coordinator role
     * answers the course messages, uploads, builds, remote bots and finals
     * (coordinator; the others only play what they claim) */
    bool claims;
    bool coordinator;
    int build_jobs; /* the builds' threads asked for (class_pool_start), started by the coordinator */
    char worker[96]; /* this process's name on its claims: the server's and a random tail */
    struct {
        bool pair; /* a final's pair (class_final_pairs), else a ladder (class_submissions) */
        int64_t id;
    } held[2 * CLASS_MAX_JOBS]; /* the claims this server's workers play (loop) */
    int nheld;
};

/* A request being answered. */
typedef struct req {
    class_service *svc;
    const proto_msg *m;
    const proto_course *c;
    uint64_t caller;
    const char *peer;
    const json_t *id;
    const char *type;
} req;

/* A request answered later, after a check on the host's pool: who asked,
 * and what it asked for. */
typedef struct later {
    uint64_t caller;
    json_t *id; /* owned */
    char type[40];
    char name[CLASS_NAME_MAX + 1];
    course_new n;        /* course_create: the settings (their texts owned) */
    int64_t course, sub; /* course_rerun_gates: the course, and one submission or 0 */
    int qualify;         /* course_rerun_gates: the new qualify */
} later;

/* ---- uploads.c: files sent in chunks ------------------------------------------------------ */

void class__upload(const req *r);
/* The committed uploads of student's connection caller named in ids (a
 * JSON array of strings), taken off the list into *out (a chain by next),
 * all or none: 0, or ENG_EINVAL with err. */
int class__uploads_take(class_service *svc, uint64_t caller, int64_t student, const json_t *ids,
                        staged **out, char *err, size_t errcap);
/* Its file removed, freed (NULL is fine). */
void class__staged_free(staged *s);
/* At start: the folder, emptied of a previous run's; at the tick: the idle
 * ones removed; at free: all removed. */
void class__uploads_init(class_service *svc);
void class__uploads_expire(class_service *svc, int64_t now);
void class__uploads_free_all(class_service *svc);

/* ---- host.c ------------------------------------------------------------------------------- */

void class__log(class_service *svc, int level, const char *event, const char *fmt, ...);
/* An error reply {code, message, reason (may be NULL)} to caller. */
void class__fail_to(class_service *svc, uint64_t caller, const json_t *id, int code,
                    const char *reason, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
void class__fail(const req *r, int code, const char *reason, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void class__reply(const req *r, json_t *msg);
int64_t class__now_ms(void);
/* Epoch milliseconds as "2026-11-26 18:00 UTC". */
void class__utc(int64_t ms, char *out, size_t cap);

/* ---- store.c, store_work.c, store_views.c: the SQL ---------------------------------------- */

/* Helpers: a failure is logged (courses_sql) with the statement. */
db_stmt *class__prep(class_service *svc, const char *sql);
int class__step(class_service *svc, db_stmt *st);
/* A statement with its parameters bound, run to DB_DONE and finalized (st
 * may be NULL: false). */
bool class__run(class_service *svc, db_stmt *st);
bool class__exec(class_service *svc, const char *sql);
bool class__begin(class_service *svc);
/* Commit when ok (else, or when the commit fails, roll back). Whether committed. */
bool class__commit(class_service *svc, bool ok);
const char *class__col(db_stmt *st, int i);
/* Column 0 of every row of st (finalized) into a heap array (free()); the
 * count, or -1 when st is NULL. */
int class__ids(class_service *svc, db_stmt *st, int64_t **ids);

/* courses and students (store.c) */
bool class__course_load(class_service *svc, int64_t id, course_t *c);
void class__course_release(course_t *c);
int64_t class__course_insert(class_service *svc, const course_new *n);
/* Every course's id, ascending, into a heap array (free()); its count, -1 on failure. */
int class__course_ids(class_service *svc, int64_t **ids);
bool class__course_set_deadline(class_service *svc, int64_t course, int64_t deadline_ms);
/* The final's state and note: "running" (from "none" or "failed"), "none"
 * (its start undone), "done", "failed"; and the host's tournament of it. */
bool class__final_state(class_service *svc, int64_t course, const char *state, const char *note);
bool class__final_tour(class_service *svc, int64_t course, int64_t tour);
bool class__student_by_token(class_service *svc, const char *hash, student_t *out);
/* Add a roster in one transaction: the handout CSV and the students with
 * their tokens. 0; ENG_ETOO_MANY (*have: already on it); ENG_EINVAL (*dup:
 * an id already there); ENG_ESTORAGE, ENG_ENOMEM. */
int class__roster_add(class_service *svc, int64_t course, const class_person *ps, int n,
                      json_t **students, char **handout, int *have, const char **dup);

/* submissions and results (store_work.c) */
bool class__sub_load(class_service *svc, int64_t sub, sub_t *out);
/* The frozen submissions of a course, in roster order (heap, free()); the count or -1. */
int class__subs_frozen(class_service *svc, int64_t course, sub_t **out);
/* Each student's latest qualified submission that is not a remote bot: the scrimmage's. */
int class__subs_scrim(class_service *svc, int64_t course, sub_t **out);
/* Insert an upload's row in the transaction open, the student's next
 * version counted by the database. Its id and *version, or 0 with *rc
 * (DB_ECONSTRAINT: another server's upload took the version: again). */
int64_t class__sub_insert(class_service *svc, const student_t *who, const char *kind,
                          const char *main, int64_t bytes, const char *sha256, int64_t now,
                          int64_t *version, int *rc);
bool class__sub_set_main(class_service *svc, int64_t sub, const char *main);
/* Its shape (class_shape_hash): near-identical submissions share it. */
bool class__sub_set_shape(class_service *svc, int64_t sub, const char *shape);
bool class__sub_add_file(class_service *svc, int64_t sub, const char *name, const void *data,
                         size_t len);
bool class__sub_set_files(class_service *svc, int64_t sub, const char *files_json, const char *dir);
/* The files of a submission as kept in the database: each(name, data, len,
 * user) until it returns false. Their count, or -1. */
int class__sub_files(class_service *svc, int64_t sub,
                     bool (*each)(const char *name, const void *data, int len, void *user),
                     void *user);
/* A remote bot's state and verdict while it waits or plays, and its tournament. */
bool class__sub_show(class_service *svc, int64_t sub, const char *state, const char *verdict,
                     int64_t tour);
bool class__sub_tour(class_service *svc, int64_t sub, int64_t tour);
/* A ladder began: queued -> running with the verdict. */
bool class__sub_started(class_service *svc, int64_t sub, const char *verdict);
/* One more of the student's uploads refused at its check or build (the grades' `refused`). */
bool class__student_refused(class_service *svc, int64_t student);
/* One result into the tables, in the transaction open (class__apply). */
bool class__store_gate(class_service *svc, const done *d);
bool class__store_sub(class_service *svc, const done *d);
bool class__store_final(class_service *svc, const done *d);
/* A final's standings rows (d->fst by participant) and its state done. */
bool class__store_final_rows(class_service *svc, const done *d);
/* A pair's games of a final split among servers (d: DONE_PAIR), stage "final". */
bool class__store_pair_games(class_service *svc, const done *d);
bool class__store_final_failed(class_service *svc, int64_t course, const char *note);
bool class__store_scrim(class_service *svc, const done *d);
/* Every scrimmage game of a course: each(sub0, sub1, points of sub0 (1, 0.5, 0), user).
 * false when it could not be read. */
bool class__scrim_results(class_service *svc, int64_t course,
                          void (*each)(int64_t sub0, int64_t sub1, double p0, void *user),
                          void *user);
/* The latest CLASS_SCRIM_SHOWN scrimmage games of a course, newest first. */
json_t *class__scrim_games_json(class_service *svc, int64_t course);
/* A course's scrimmage setting stored; its largest submission (0: unchanged). */
bool class__course_set_settings(class_service *svc, int64_t course, int scrimmage,
                                int64_t max_upload);
/* Courses due to freeze: ids (at most cap) of those past their deadline
 * with every submission done. */
int class__freeze_candidates(class_service *svc, int64_t now, int64_t *ids, int cap);
/* Freeze one (the latest qualifying submission of each student): 1 when
 * this server froze it, 0 when another did, -1 on failure. */
int class__freeze(class_service *svc, int64_t course, int64_t now);
/* What a previous run left: the ids of unfinished submissions (their games
 * and gates deleted; remote_only: of remote bots only — the others are
 * claimed from the database, class__claim), heap, the count or -1; the
 * tournaments of finals cut short (each(tour)), then those finals back to
 * "none". */
int class__leftover_subs(class_service *svc, int64_t **ids, bool remote_only);
/* Several servers (PostgreSQL): claim the oldest ladder that is queued, or
 * whose claim is older than CLASS_CLAIM_MS, for svc->worker — its run
 * counted up (results of an earlier claim are dropped) and its games and
 * gates of earlier claims deleted, in one transaction. 1 and *out, 0 when
 * there is none, -1 on failure. */
int class__claim(class_service *svc, int64_t now, sub_t *out);
/* The claims this server's workers hold (svc->held) renewed (every tick),
 * or given back (release: at a stop, so that another server takes them at
 * once). */
bool class__claims_renew(class_service *svc, int64_t now, bool release);
/* In the transaction of a result: is the submission still at that run?
 * (its claim renewed); false when it was played again or claimed by
 * another server since — the result is then dropped. */
bool class__still_run(class_service *svc, int64_t sub, int64_t run, int64_t now);
void class__leftover_finals(class_service *svc, void (*each)(class_service *svc, int64_t tour));

/* what an instructor may undo or remove (store_manage.c) */
/* The course and its submissions no longer frozen. */
bool class__unfreeze(class_service *svc, int64_t course);
/* A student's extension (0: none): 1, 0 when no such student id, -1. */
int class__student_set_deadline(class_service *svc, int64_t course, const char *sid,
                                int64_t deadline_ms);
bool class__course_set_gates(class_service *svc, int64_t course, const char *gates_text,
                             int qualify);
/* The ids of a course's submissions (or of sub only, when not 0): heap, the count or -1. */
int class__subs_of(class_service *svc, int64_t course, int64_t sub, int64_t **ids);
/* A submission back to queued, its gates and games gone, its run counted up. */
bool class__sub_reset(class_service *svc, int64_t sub);
/* A submission's run, or -1 when there is no such submission. */
int64_t class__sub_run(class_service *svc, int64_t sub);
/* The final's standings and games gone, its state back to none. */
bool class__final_clear(class_service *svc, int64_t course);
bool class__course_archive(class_service *svc, int64_t course, bool archived);
/* Every row of a course, in one transaction. */
bool class__course_delete(class_service *svc, int64_t course);

/* views (store_views.c): new JSON */
json_t *class__course_json(const course_t *c);
json_t *class__roster_json(class_service *svc, int64_t course);
json_t *class__subs_json(class_service *svc, int64_t course, int64_t student);
json_t *class__final_json(class_service *svc, int64_t course, int64_t student);
json_t *class__final_games_json(class_service *svc, int64_t course, int64_t student);
/* A course game's reply for the instructor (student NULL) or a student:
 * 0 and out filled, or ENG_EINVAL (no such game) / ENG_EFORBIDDEN (not
 * theirs) / ENG_ESTORAGE. */
int class__game_json(class_service *svc, int64_t game, const student_t *student, json_t *out);
/* Every string of v with the submissions' folder cut out of its paths (a
 * traceback's "File .../course-1/student-3/v1-x/bot.py" keeps "bot.py"):
 * no server path reaches a page. */
void class__redact(const class_service *svc, json_t *v);
/* A submission's row (0), its files' list and version; ENG_EINVAL when
 * there is none, ENG_ESTORAGE. */
int class__sub_code(class_service *svc, int64_t sub, sub_t *s, json_t **files, int64_t *version);

/* ---- files.c ------------------------------------------------------------------------------- */

/* The spec a submission runs as. */
void class__sub_spec(const sub_t *s, char *out, size_t cap);
/* Make the directories of path (under svc->dir: 0711, the last 0755). 0 or -1. */
int class__mkdirs(const class_service *svc, const char *path);
/* Make sure a submission's folder is on this machine (another server of the
 * cluster may have written it): made again from class_files. 0 or -1. */
int class__ensure_files(class_service *svc, const sub_t *s);

/* ---- gatecheck.c ------------------------------------------------------------------------- */

/* What a check of gates found: rc 0, or ENG_EINVAL (or ENG_EINTERNAL) with why. */
typedef void (*class_checked_fn)(class_service *svc, void *arg, int rc, const char *why);
/* Is the gate's opponent an instructor's program (a cmd: spec)? */
bool class__gate_is_program(const class_gate *gate);
/* Check the program opponents of gates[n] as doctor would (first_move and
 * full_game of g at move_ms) on the host's pool, then then(svc, arg, rc,
 * why) on the loop — at once when no opponent is a program. false (then
 * not called) when the check cannot be queued. */
bool class__check_gates(class_service *svc, const eng_game *g, const class_gate *gates, int n,
                        int64_t move_ms, uint64_t seed, class_checked_fn then, void *arg);

/* ---- work.c: a worker's job and its result ------------------------------------------------ */

void class__job_free(job *j);
void class__done_free(done *d);
/* Copy a game into d's list (on_game of class_play, and the host's games). */
void class__keep_game(const class_game *g, void *d);
/* Hand a worker's result to the loop (host.wake; class_service_poll). */
void class__post(class_service *svc, done *d);

/* ---- jobs.c -------------------------------------------------------------------------------- */

/* A submission's ladder as a worker plays it (NULL when out of memory or
 * its course cannot be read); its folder made again here if another server
 * wrote it. */
job *class__ladder_job(class_service *svc, const sub_t *s);
/* Several servers: claim queued (or abandoned) ladders from the database
 * while this server has a worker free, and hand them to the workers. */
void class__claim_pump(class_service *svc);

int class__workers_start(class_service *svc, int want, char *err, size_t errcap);
void class__workers_stop(class_service *svc);
void class__push_job(class_service *svc, job *j);
/* Drop the queued ladders of a course's submissions (or of sub only). */
void class__drop_jobs(class_service *svc, int64_t course, int64_t sub);
/* A gate's pass/fail and verdict from its standing d->st[0]; broken (and
 * not passed) when its opponent lost a game by a fault of its own. */
void class__gate_verdict(done *d, const class_gate *gate);
/* The verdict of a ladder that ended at a broken gate (d: a DONE_SUB). */
void class__not_judged(done *d, int gate, const char *gate_verdict);
/* Store one result (one transaction), then freeze what that allows. */
void class__apply(class_service *svc, done *d);
/* A final that could not be played: stored as failed with why. */
void class__final_failed(class_service *svc, int64_t course, const char *why);
/* Freeze every course whose deadline passed and whose submissions are done. */
void class__freeze_due(class_service *svc);

/* ---- finals.c: a round-robin final split into pairs among servers ------------------------ */

/* Several servers: store the pairs of the round-robin final j (finalists a
 * < b, j->final_games games each) for every server to claim, in one
 * transaction. false on failure (nothing stored). */
bool class__final_split(class_service *svc, const job *j);
/* Claim the oldest queued (or abandoned) pair of a final for this server:
 * its job, or NULL when there is none (or on failure). */
job *class__claim_pair(class_service *svc, int64_t now);
/* In the transaction open: a pair's games stored and its row done — only
 * while the pair is still at the run of its claim (*stale otherwise:
 * nothing stored) — and, when it was its final's last, the final's
 * standings from all its games (*finished). false on failure. */
bool class__store_pair(class_service *svc, const done *d, bool *stale, bool *finished);
/* The pairs of a course's final, deleted (a final played again, a course deleted). */
bool class__pairs_clear(class_service *svc, int64_t course);

/* ---- scrimmage.c: the live ladder before the deadline -------------------------------------- */

#define CLASS_SCRIM_GAMES 2 /* games of one scrimmage pair, the seats swapped */
#define CLASS_SCRIM_SHOWN 20 /* the latest scrimmage games listed on the page */

/* Queue the next pairs of every course whose scrimmage is on and open (the tick, and
 * after a pair's result). */
void class__scrim_pump(class_service *svc);
/* Drop a course's queued pairs (0: every course's); pairs playing finish and are dropped
 * when their course is no longer open to them. */
void class__scrim_drop(class_service *svc, int64_t course);
/* A worker plays one pair (j->scrim) and posts a DONE_SCRIM. */
void class__scrim_run(class_service *svc, const job *j);
/* A pair's games, stored while its course is still open to them (class__apply). */
void class__scrim_apply(class_service *svc, done *d);
/* The course view's "scrimmage": the setting, its state, the table, the latest games; NULL
 * when student (not 0) may not see it (the setting is not "class"). */
json_t *class__scrim_json(class_service *svc, const course_t *c, int64_t student);

/* ---- remote.c ----------------------------------------------------------------------------- */

/* A remote submission's ladder, from its first gate. */
void class__remote_queue(class_service *svc, const sub_t *s);
/* A final with remote bots: the host's tournament of every finalist. false
 * after replying. */
bool class__remote_final(const req *rq, const course_t *c, job *j, int format, int64_t gpp);
void class__remote_pump(class_service *svc);
/* Stop a course's remote jobs (sub 0: all, a final's too; else that
 * submission's ladder), their host tournaments cancelled. */
void class__remote_forget(class_service *svc, int64_t course, int64_t sub);
void class__remote_free_all(class_service *svc);

/* ---- requests.c ---------------------------------------------------------------------------- */

/* The student a request's token names, or a bad_token reply (false). */
bool class__need_student(const req *r, student_t *out);
/* The course a request's "course" names, or a reply (false). */
bool class__need_course(const req *r, course_t *c);
void class__create(const req *r);
/* A later request (NULL when out of memory), the request it answers, its end. */
later *class__later_new(const req *r);
req class__later_req(class_service *svc, const later *l);
void class__later_free(later *l);
/* The course's reply of type `type` (course_created, course_deadline, ...). */
void class__reply_course(const req *r, const char *type, int64_t id);
/* Why a deadline in the past is refused, into err. */
void class__deadline_past(int64_t ms, char *err, size_t cap);
/* Has the course's final started (running or done)? Refused with
 * final_started (false) when it has. */
bool class__before_final(const req *r, const course_t *c, const char *what);
void class__add_students(const req *r);
void class__start_final(const req *r);
void class__grades(const req *r);
void class__list(const req *r);
void class__view(const req *r);
void class__game(const req *r);
void class__code(const req *r);

/* ---- manage.c: what an instructor may undo or remove ------------------------------------ */

void class__set_deadline(const req *r);
void class__rerun_gates(const req *r);
void class__archive(const req *r);
void class__delete(const req *r);
void class__settings(const req *r);

/* ---- submit.c ----------------------------------------------------------------------------- */

void class__submit(const req *r);
/* Why submissions are closed to a student (the reason, with a message in
 * msg), or NULL while they are open. */
const char *class__closed_to(const course_t *c, const student_t *who, int64_t now, char *msg,
                            size_t cap);
/* The bytes a submission of course c may have: its max_upload_bytes, never
 * above the server's ceiling. */
int64_t class__upload_limit(const class_service *svc, const course_t *c);
/* Queue a stored submission's ladder: the workers', or a remote bot's job. */
void class__queue_ladder(class_service *svc, int64_t sub);

#endif
