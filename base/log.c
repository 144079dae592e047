/*
 * log.c — the ground floor (base/) of the server side, what every other part
 * uses and which uses none of them: structured logs (one JSON object per line on stderr,
 * e.g.
 *   {"ts":"2026-11-22T02:41:07.123Z","level":"info","event":"match_created","match":"ab12cd34"}
 * fields built with jansson's pack formats, so untrusted strings are escaped,
 * never interpreted), the latency histograms, the loop's clock and the wall
 * clock, random tokens, and a job on the thread pool for the services the
 * server hosts (courses, tournaments).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/time.h>
#include <time.h>

#include "base.h"
#include "engine/errors.h"

static int min_level = LOG_INFO;
static const char *const level_names[] = {"debug", "info", "warn", "error", "info"};

void srv_log_set_level(int level)
{
    min_level = level;
}

void srv_log(int level, const char *event, const char *fields, ...)
{
    if (level < min_level)
        return;
    json_t *o = NULL;
    if (fields) {
        va_list ap;
        va_start(ap, fields);
        json_error_t e;
        o = json_vpack_ex(&e, 0, fields, ap);
        va_end(ap);
    }
    if (!o)
        o = json_object();
    struct timeval tv;
    gettimeofday(&tv, NULL);
    struct tm tm;
    gmtime_r(&tv.tv_sec, &tm);
    char ts[64];
    snprintf(ts, sizeof ts, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
             tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(tv.tv_usec / 1000));
    json_t *line = json_pack("{s:s, s:s, s:s}", "ts", ts, "level",
                             level_names[level >= 0 && level <= LOG_ALWAYS ? level : LOG_ERROR],
                             "event", event);
    json_object_update(line, o);
    char *text = json_dumps(line, JSON_COMPACT);
    if (text) {
        fprintf(stderr, "%s\n", text);
        free(text);
    }
    json_decref(line);
    json_decref(o);
}

_Noreturn void srv__assert_failed(const char *expr, const char *file, int line, const char *func)
{
    srv_log(LOG_ERROR, "invariant_broken", "{s:s, s:s, s:i, s:s}", "expr", expr, "file", file,
            "line", line, "function", func);
    fprintf(stderr, "tessera: invariant broken at %s:%d (%s): %s\n", file, line, func, expr);
    abort();
}

void srv_log_json(int level, const char *event, json_t *fields)
{
    srv_log(level, event, "O", fields); /* a reference of its own: a level not logged drops it */
    json_decref(fields);
}

/* ---- the thread pool, for the services the server hosts --------------------------- */

typedef struct pool_job {
    uv_work_t req;
    void (*work)(void *arg);
    void (*done)(void *arg, int status);
    void *arg;
    int *pending;
} pool_job;

static void pool_work(uv_work_t *w)
{
    pool_job *j = w->data;
    j->work(j->arg);
}

static void pool_done(uv_work_t *w, int status)
{
    pool_job *j = w->data;
    if (j->pending)
        (*j->pending)--;
    j->done(j->arg, status);
    free(j);
}

int srv_queue_work(uv_loop_t *loop, void (*work)(void *), void (*done)(void *, int), void *arg,
                   int *pending)
{
    pool_job *j = calloc(1, sizeof *j);
    if (!j)
        return -1;
    *j = (pool_job){.work = work, .done = done, .arg = arg, .pending = pending};
    j->req.data = j;
    if (uv_queue_work(loop, &j->req, pool_work, pool_done) != 0) {
        free(j);
        return -1;
    }
    if (pending)
        (*pending)++;
    return 0;
}

/* ---- hashing ------------------------------------------------------------------------ */

uint64_t srv_hash_str(uint64_t seed, const char *s)
{
    uint64_t h = 1469598103934665603ull ^ seed;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return h ^ (h >> 29);
}

/* ---- statistics ------------------------------------------------------------------ */

void hist_add(srv_hist *h, uint64_t us)
{
    hist_add_ns(h, us * 1000);
}

void hist_add_ns(srv_hist *h, uint64_t ns)
{
    uint64_t us = ns / 1000;
    h->count++;
    h->sum_ns += ns;
    if (us > h->max_us)
        h->max_us = us;
    uint64_t i = us < STAT_FINE ? us : STAT_FINE + (us - STAT_FINE) / 100;
    h->bucket[i < STAT_BUCKETS ? i : STAT_BUCKETS - 1]++;
}

/* The lower bound, in microseconds, of bucket i. */
static uint64_t bucket_us(uint64_t i)
{
    return i < STAT_FINE ? i : STAT_FINE + (i - STAT_FINE) * 100;
}

static uint64_t percentile(const srv_hist *h, double q)
{
    if (!h->count)
        return 0;
    uint64_t want = (uint64_t)(q * (double)h->count), seen = 0;
    for (uint64_t i = 0; i < STAT_BUCKETS; i++) {
        seen += h->bucket[i];
        if (seen > want)
            return i == STAT_BUCKETS - 1 ? h->max_us : bucket_us(i);
    }
    return h->max_us;
}

json_t *hist_json(const srv_hist *h)
{
    double mean = h->count ? (double)h->sum_ns / (double)h->count / 1000.0 : 0.0;
    return json_pack("{s:I, s:f, s:I, s:I, s:I}", "count", (json_int_t)h->count, "mean_us", mean,
                     "p50_us", (json_int_t)percentile(h, 0.50), "p99_us",
                     (json_int_t)percentile(h, 0.99), "max_us", (json_int_t)h->max_us);
}

static const double fast_le[] = {0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005,
                                 0.01,    0.025,  0.05,    0.1,    0.25,  1.0};
static const double think_le[] = {0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};
static const double late_le[] = {0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5};

void phist_init(srv_phist *h, int bounds)
{
    static const struct {
        const double *le;
        int n;
    } b[] = {
        [PHIST_FAST] = {fast_le, (int)(sizeof fast_le / sizeof fast_le[0])},
        [PHIST_THINK] = {think_le, (int)(sizeof think_le / sizeof think_le[0])},
        [PHIST_LATE] = {late_le, (int)(sizeof late_le / sizeof late_le[0])},
    };
    memset(h, 0, sizeof *h);
    h->le = b[bounds].le;
    h->nle = b[bounds].n;
}

/* One observation (seconds) into a histogram of fixed bounds (metrics.c
 * writes them out). */
void phist_add(srv_phist *h, double seconds)
{
    if (!h->le)
        return; /* not set up (a server library used without srv_run) */
    if (seconds < 0)
        seconds = 0;
    int i = 0;
    while (i < h->nle && seconds > h->le[i])
        i++;
    h->counts[i]++;
    h->count++;
    h->sum += seconds;
}

/* ---- the clocks and random tokens every part uses ---------------------------------- */

uint64_t srv_loop_now(uv_loop_t *loop)
{
    /* the loop's cached time can be stale by a whole batch of I/O; clocks
     * are charged from it, so refresh it (a vDSO clock read) */
    uv_update_time(loop);
    return uv_now(loop);
}

int64_t srv_epoch_ms(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

ssize_t (*srv__getrandom)(void *buf, size_t len, unsigned int flags) = getrandom;

int srv_random_token(char *out, int n)
{
    static const char alphabet[] = "abcdefghijkmnpqrstuvwxyz23456789"; /* 32, no look-alikes */
    unsigned char raw[64];
    out[0] = 0;
    if (n < 1 || n > (int)sizeof raw)
        return ENG_EINVAL;
    size_t got = 0;
    while (got < (size_t)n) {
        ssize_t r = srv__getrandom(raw + got, (size_t)n - got, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            /* fail closed: never a token from bytes that are not random */
            srv_log(LOG_ERROR, "random_failed", "{s:s}", "reason",
                    r < 0 ? strerror(errno) : "getrandom returned no bytes");
            return ENG_EINTERNAL;
        }
        got += (size_t)r;
    }
    for (int i = 0; i < n; i++)
        out[i] = alphabet[raw[i] & 31];
    out[n] = 0;
    return 0;
}
