/*
 * analyze.c — the `analyze` message (docs/protocol.md, docs/analysis.md).
 *
 * A finished match's record is analysed by analysis/ (ana_run: two searches
 * a position, Carcassonne's bag as expectations) on the libuv thread pool,
 * never on the loop, in a fenced process of its own (players/fenced.h: the
 * server's binary started again as `tessera fenced-analysis`, which reads
 * the record, fences itself — it can compute and answer and do nothing
 * else — and answers, under CPU, wall and size limits, server/limits.h):
 * a record may be a client's, and a crash or a runaway search in the
 * analysis ends that process, not the server with its matches and
 * connections; the job's viewers get `internal_error` saying what ended
 * it. The report goes to everyone who asked while it ran (one
 * job per match: a second viewer joins the first's job) and into the
 * journal's database (table match_analyses, keyed by the match and the
 * search), from where any later request — on this server or on another
 * sharing the database — is answered at once. Limits (server/limits.h):
 * SRV_ANALYZE_JOBS jobs at once on the server, SRV_ANALYZE_PER_CONN
 * requests waiting per connection; past them the reply is too_many.
 *
 * The search is the server's, not the client's: the default of analysis.h
 * (the cache's key names it), so that a client cannot make the server spend
 * an unbounded budget.
 *
 * A client may send a game record instead of naming a match (a record file
 * opened in the web replay): it is checked on the loop by the record reader
 * of `replay` (rec_replay_json: a malformed record or an illegal move is
 * refused at once with replay's code and "turn N: reason", no pool slot
 * taken), then analysed as a match is, under the same limits (it counts
 * against the connection's one waiting analysis and the server's jobs). Its
 * size is bounded by the message limit (PROTO_MAX_MESSAGE: 64 KiB, a
 * Carcassonne game of five seats with its thinking lines stripped fits);
 * its report is not stored — nothing names it for a second viewer, and a
 * file's owner keeps the report in the page — and no one joins its job.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "analyze.h"
#include "conn.h"
#include "journal/journal.h"
#include "match.h"
#include "analyze_main.h"
#include "players/fenced.h"
#include "storage/db.h"

/* The search the server runs and its key in the cache: a change of the
 * search or of the report's layout takes a new key. */
#define ANALYZE_KEY "mcts,sims=2000,seed=1,v2" /* v2: rechecks at 4x the budget (they were capped at 1x) */

static const char table_sql[] =
    "CREATE TABLE IF NOT EXISTS match_analyses("
    "  match TEXT NOT NULL, search TEXT NOT NULL, analysis TEXT NOT NULL,"
    "  PRIMARY KEY(match, search)) WITHOUT ROWID;";

typedef struct waiter {
    uint64_t conn; /* conn_find's id: the connection may be gone when the job ends */
    json_t *id;    /* the request's id (owned; NULL: none) */
} waiter;

typedef struct job {
    struct job *next;
    srv *s;
    atomic_bool stop; /* raised by analyze_shutdown: the worker kills its fenced process */
    char match[PROTO_MATCH_ID_MAX + 1]; /* "" for a record a client sent (never joined, never stored) */
    json_t *rec;    /* the record analysed (owned; read by the worker only while it runs) */
    char *text;     /* the worker's report, JSON text (NULL: failed) */
    int rc;         /* the worker's code */
    char reason[256];
    waiter w[SRV_ANALYZE_WAITERS];
    int nw;
} job;

static job *running; /* the jobs on the pool, of every server of the process */
static int njobs;

#ifdef TESSERA_TEST_HOOKS
/* TESSERA_TEST_ANALYZE_SIMS=N: the searches' budget (tests analyse a whole
 * game in a second); the cache's key says it. */
static int64_t test_sims(void)
{
    const char *v = getenv("TESSERA_TEST_ANALYZE_SIMS");
    long long n = v ? atoll(v) : 0;
    return n > 0 && n <= 1000000 ? n : 0;
}
/* TESSERA_TEST_ANALYZE_HOLD=FILE: the job waits on its thread until FILE
 * exists, so that a test's requests meet a job under way on any machine. */
static void test_hold(const atomic_bool *stop)
{
    const char *f = getenv("TESSERA_TEST_ANALYZE_HOLD");
    for (int i = 0; f && *f && access(f, F_OK) != 0 && !atomic_load(stop) && i < 6000; i++)
        usleep(10000); /* at most a minute */
}
/* TESSERA_TEST_ANALYZE_CRASH=1: the fenced process crashes (SIGSEGV). The
 * server's environment is the fenced process's. */
static void test_crash(void)
{
    const char *v = getenv("TESSERA_TEST_ANALYZE_CRASH");
    if (v && v[0] == '1') {
        volatile int *nowhere = NULL;
        *nowhere = 1;
    }
}
/* TESSERA_TEST_ANALYZE_MEM_MB=N: the fenced process's memory, lower. */
static unsigned test_mem_mb(void)
{
    const char *v = getenv("TESSERA_TEST_ANALYZE_MEM_MB");
    long n = v ? atol(v) : 0;
    return n > 0 && n < SRV_ANALYZE_MEM_MB ? (unsigned)n : SRV_ANALYZE_MEM_MB;
}
#else
static int64_t test_sims(void)
{
    return 0;
}
static unsigned test_mem_mb(void)
{
    return SRV_ANALYZE_MEM_MB;
}
static void test_hold(const atomic_bool *stop)
{
    (void)stop;
}
static void test_crash(void)
{
}
#endif

static void cache_key(char *out, size_t cap)
{
    int64_t sims = test_sims();
    if (sims)
        snprintf(out, cap, "%s,test_sims=%lld", ANALYZE_KEY, (long long)sims);
    else
        snprintf(out, cap, "%s", ANALYZE_KEY);
}

static db_conn *cache_db(srv *s)
{
    static db_conn *made; /* the database whose table was made last (IF NOT EXISTS) */
    db_conn *db = s->db ? journal_db(s->db) : NULL;
    if (!db || db == made)
        return db;
    int rc = db_schema_lock(db); /* servers starting at once on PostgreSQL */
    if (rc == DB_OK)
        rc = db_exec(db, table_sql);
    db_schema_unlock(db);
    if (rc != DB_OK) {
        srv_log(LOG_ERROR, "storage_error", "{s:s, s:s}", "what", "match_analyses", "error",
                db_errmsg(db));
        return NULL;
    }
    made = db;
    return db;
}

/* The cached report of a match, as text (malloc'd), or NULL. */
static char *cache_get(srv *s, const char *mid)
{
    db_conn *db = cache_db(s);
    db_stmt *q = NULL;
    char key[96];
    cache_key(key, sizeof key);
    char *text = NULL;
    if (db &&
        db_prepare(db, "SELECT analysis FROM match_analyses WHERE match=? AND search=?", &q) ==
            DB_OK &&
        db_bind_text(q, 1, mid, -1) == DB_OK && db_bind_text(q, 2, key, -1) == DB_OK &&
        db_step(q) == DB_ROW && db_column_text(q, 0))
        text = strdup(db_column_text(q, 0));
    db_finalize(q);
    return text;
}

static void cache_put(srv *s, const char *mid, const char *text)
{
    db_conn *db = cache_db(s);
    db_stmt *q = NULL;
    char key[96];
    cache_key(key, sizeof key);
    if (!db)
        return;
    if (db_prepare(db,
                   "INSERT INTO match_analyses(match,search,analysis) VALUES(?,?,?) "
                   "ON CONFLICT(match,search) DO UPDATE SET analysis=excluded.analysis",
                   &q) != DB_OK ||
        db_bind_text(q, 1, mid, -1) != DB_OK || db_bind_text(q, 2, key, -1) != DB_OK ||
        db_bind_text(q, 3, text, -1) != DB_OK || db_step(q) != DB_DONE)
        srv_log(LOG_ERROR, "storage_error", "{s:s, s:s, s:s}", "what", "match_analysis", "match",
                mid, "error", db_errmsg(db));
    db_finalize(q);
}

/* The reply: {"type":"analysis","match":..,"cached":..,"analysis":{...}}
 * (no match for a record the client sent: mid ""). */
static void send_report(conn *c, const json_t *id, const char *mid, const char *text,
                        bool cached)
{
    json_t *a = json_loads(text, 0, NULL);
    if (!a) {
        conn_error(c, ENG_EINTERNAL, "the stored analysis could not be read", id);
        return;
    }
    json_t *r = proto_reply("analysis", id);
    if (mid[0])
        json_object_set_new(r, "match", json_string(mid));
    json_object_set_new(r, "cached", json_boolean(cached));
    json_object_set_new(r, "analysis", a);
    conn_send(c, r);
}

/* A record's text (a finished match's, lines and all) the fenced process
 * reads at most. */
#define ANALYZE_MAX_RECORD (16u << 20)

/* The analysis, in the fenced process: `tessera fenced-analysis SIMS`, the
 * record on its standard input (checked by the server already: its text is
 * the server's dump of it), the report as JSON text its answer. */
int srv_fenced_analysis_main(int argc, char **argv)
{
    char *in = NULL, why[256];
    size_t n = 0;
    long long sims = argc > 1 ? atoll(argv[1]) : 0;
    if (fenced_read_input(ANALYZE_MAX_RECORD, &in, &n) != 0)
        fenced_answer(ENG_EIO, "the record could not be read", 28);
    json_object_seed(0); /* jansson's seed reads /dev/urandom: before the fence */
    if (fenced_enter(why, sizeof why) != 0)
        fenced_answer(ENG_EINTERNAL, why, strlen(why));
    test_crash();
    json_error_t e;
    json_t *rec = json_loadb(in, n, 0, &e);
    free(in);
    if (!rec)
        fenced_answer(ENG_EBAD_RECORD, e.text, strlen(e.text));
    ana_opts o = {.seed = 1, .sims = sims > 0 ? sims : 0};
    ana_report *r = NULL;
    rec_replay rr;
    int rc = ana_run(rec, &o, &r, &rr);
    if (rc)
        fenced_answer(rc, rr.reason, strlen(rr.reason));
    json_t *a = ana_json(r);
    char *text = a ? json_dumps(a, JSON_COMPACT | ANA_JSON_FLAGS) : NULL;
    if (!text)
        fenced_answer(ENG_ENOMEM, "out of memory", 13);
    fenced_answer(0, text, strlen(text)); /* it exits: its memory is the system's again */
}

static void work(void *arg)
{
    job *j = arg;
    test_hold(&j->stop);
    char *rec = json_dumps(j->rec, JSON_COMPACT);
    if (!rec) {
        j->rc = ENG_ENOMEM;
        return;
    }
    char sims[24];
    snprintf(sims, sizeof sims, "%lld", (long long)test_sims());
    char self[4096];
    const char *argv[] = {fenced_self(self, sizeof self), SRV_FENCED_ANALYSIS, sims, NULL};
    fenced_limits lim = {.cpu_s = SRV_ANALYZE_CPU_S,
                         .wall_s = SRV_ANALYZE_WALL_S,
                         .mem_mb = test_mem_mb(),
                         .max_out = SRV_ANALYZE_MAX_REPORT,
                         .env_prefix = "TESSERA_TEST_", /* its test hooks (limits.h) */
                         .stop = &j->stop};
    char why[sizeof j->reason - 48]; /* room for the words before it */
    j->rc = fenced_run(argv, rec, strlen(rec), &lim, &j->text, NULL, why, sizeof why);
    free(rec);
    if (j->rc == ENG_EINTERNAL) /* what ended it */
        snprintf(j->reason, sizeof j->reason, "the analysis failed: %s", why);
    else if (j->rc == ENG_ENOMEM)
        snprintf(j->reason, sizeof j->reason, "the analysis ran out of its %u MiB: %s", lim.mem_mb,
                 why);
    else if (j->rc)
        snprintf(j->reason, sizeof j->reason, "%s", why);
}

static void done(void *arg, int status)
{
    job *j = arg;
    for (job **p = &running; *p; p = &(*p)->next)
        if (*p == j) {
            *p = j->next;
            break;
        }
    njobs--;
    if (status != 0 && !j->rc)
        j->rc = ENG_EINTERNAL;
    if (j->s->stopping && !j->rc)
        j->rc = ENG_EINVAL; /* done after the journal stopped: not stored */
    if ((j->rc == ENG_EINVAL || j->rc == ENG_ESHUTTING_DOWN) && j->s->stopping) {
        j->rc = ENG_ESHUTTING_DOWN;
        snprintf(j->reason, sizeof j->reason, "the server is shutting down; ask again later");
    }
    if (!j->rc && j->match[0])
        cache_put(j->s, j->match, j->text);
    if (j->rc)
        srv_log(LOG_WARN, "analysed", "{s:s, s:s, s:s, s:i}", "match",
                j->match[0] ? j->match : "(record)", "code", wire_err_code(j->rc), "reason",
                j->reason[0] ? j->reason : wire_err_message(j->rc), "waiters", j->nw);
    else
        srv_log(LOG_INFO, "analysed", "{s:s, s:s, s:i}", "match",
                j->match[0] ? j->match : "(record)", "code", "ok", "waiters", j->nw);
    for (int i = 0; i < j->nw; i++) {
        conn *c = conn_find(j->s, j->w[i].conn);
        if (c && j->rc)
            conn_error(c, j->rc, j->reason[0] ? j->reason : wire_err_message(j->rc), j->w[i].id);
        else if (c)
            send_report(c, j->w[i].id, j->match, j->text, false);
        json_decref(j->w[i].id);
    }
    json_decref(j->rec);
    free(j->text);
    free(j);
}

void analyze_shutdown(srv *s)
{
    for (job *j = running; j; j = j->next)
        if (j->s == s)
            atomic_store(&j->stop, true);
}

static int waiting_of(uint64_t conn_id)
{
    int n = 0;
    for (job *j = running; j; j = j->next)
        for (int i = 0; i < j->nw; i++)
            n += j->w[i].conn == conn_id;
    return n;
}

/* Start a job analysing rec (taken) for c; mid names the match ("" for a
 * record the client sent). Errors are replied; rec is released then. */
static void start_job(conn *c, const proto_msg *m, json_t *rec, const char *mid)
{
    srv *s = c->srv;
    job *j = calloc(1, sizeof *j);
    if (!j) {
        conn_error(c, ENG_ENOMEM, "out of memory", m->id);
        json_decref(rec);
        return;
    }
    j->s = s;
    atomic_init(&j->stop, false);
    j->rec = rec;
    snprintf(j->match, sizeof j->match, "%s", mid);
    j->w[j->nw++] = (waiter){.conn = c->id, .id = json_incref((json_t *)m->id)};
    if (srv_queue_work(s->loop, work, done, j, NULL) != 0) {
        conn_error(c, ENG_EINTERNAL, "the analysis could not be started; try again", m->id);
        json_decref(j->w[0].id);
        json_decref(rec);
        free(j);
        return;
    }
    j->next = running;
    running = j;
    njobs++;
}

/* The limits every new job meets: one waiting analysis per connection, so
 * many jobs on the server. Replies and returns false past them. */
static bool may_start(conn *c, const proto_msg *m)
{
    if (waiting_of(c->id) >= SRV_ANALYZE_PER_CONN) {
        conn_error(c, ENG_ETOO_MANY, "this connection already waits for an analysis", m->id);
        return false;
    }
    if (njobs >= SRV_ANALYZE_JOBS) {
        conn_error(c, ENG_ETOO_MANY, "the server is analysing as many games as it may; try again",
                   m->id);
        return false;
    }
    return true;
}

/* A record the client sent: checked here as replay checks it, then a job. */
static void analyze_record(conn *c, const proto_msg *m)
{
    rec_replay why;
    int rc = rec_replay_json(m->record, NULL, NULL, &why);
    if (rc) {
        char msg[320];
        if (why.bad_turn > 0)
            snprintf(msg, sizeof msg, "turn %d: %s", why.bad_turn, why.reason);
        else
            snprintf(msg, sizeof msg, "%s", why.reason);
        conn_error(c, rc, msg, m->id);
        return;
    }
    if (!may_start(c, m))
        return;
    start_job(c, m, json_incref((json_t *)m->record), "");
}

void analyze_handle(conn *c, const proto_msg *m)
{
    srv *s = c->srv;
    if (m->record) {
        analyze_record(c, m);
        return;
    }
    match *x = m->match ? match_find_stored(s, m->match) : NULL;
    if (!x) {
        conn_error(c, WIRE_EUNKNOWN_MATCH, "no match with that id", m->id);
        return;
    }
    if (x->status != MATCH_FINISHED) {
        conn_error(c, ENG_EBAD_MESSAGE, "only a finished match is analysed", m->id);
        return;
    }
    char *text = cache_get(s, x->id);
    if (text) {
        send_report(c, m->id, x->id, text, true);
        free(text);
        return;
    }
    if (waiting_of(c->id) >= SRV_ANALYZE_PER_CONN) {
        conn_error(c, ENG_ETOO_MANY, "this connection already waits for an analysis", m->id);
        return;
    }
    job *j = running;
    while (j && (j->s != s || strcmp(j->match, x->id) != 0))
        j = j->next;
    if (j) { /* a second viewer joins the job under way */
        if (j->nw >= SRV_ANALYZE_WAITERS) {
            conn_error(c, ENG_ETOO_MANY, "too many viewers wait for this analysis", m->id);
            return;
        }
        j->w[j->nw++] = (waiter){.conn = c->id, .id = json_incref((json_t *)m->id)};
        return;
    }
    if (!may_start(c, m))
        return;
    char err[256] = "";
    json_t *rec = match_record_json(x, err, sizeof err);
    if (!rec) {
        conn_error(c, ENG_EINTERNAL, err[0] ? err : "out of memory", m->id);
        return;
    }
    start_job(c, m, rec, x->id);
}
