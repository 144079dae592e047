/*
 * log.c — structured logs: one JSON object per line on stderr, e.g.
 *   {"ts":"2026-11-22T02:41:07.123Z","level":"info","event":"match_created","match":"ab12cd34"}
 * Fields are built with jansson's pack formats, so untrusted strings are
 * escaped, never interpreted.
 */
#include <stdarg.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <time.h>

#include "cluster.h"
#include "internal.h"
#include "programs.h"

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

/* ---- statistics ------------------------------------------------------------------ */

void hist_add(srv_hist *h, uint64_t us)
{
    h->count++;
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
    return json_pack("{s:I, s:I, s:I, s:I}", "count", (json_int_t)h->count, "p50_us",
                     (json_int_t)percentile(h, 0.50), "p99_us", (json_int_t)percentile(h, 0.99),
                     "max_us", (json_int_t)h->max_us);
}

json_t *srv_stats_json(const srv *s)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    json_t *o = json_pack("{s:i, s:i, s:I, s:i, s:I, s:o, s:o, s:I, s:I, s:i, s:i}", "connections",
                     s->nconns, "matches_live", s->nlive, "matches_finished",
                     (json_int_t)s->finished, "matches_kept", s->nfinished, "moves",
                     (json_int_t)s->moves, "overhead", hist_json(&s->overhead), "timeout_late",
                     hist_json(&s->timeout_late), "rss_peak_kb", (json_int_t)ru.ru_maxrss,
                     "uptime_ms", (json_int_t)(srv_epoch_ms() - (int64_t)s->started_ms), "searches",
                     s->jobs, "bots_held", s->bots);
    /* external programs running in seats now (each a process and a worker thread) */
    json_object_set_new(o, "programs", json_integer(progs_running(s)));
    if (cluster_on(s)) { /* several servers on one database (docs/scaling.md) */
        cluster_stats cs;
        cluster_get_stats(s, &cs);
        json_object_set_new(
            o, "cluster",
            json_pack("{s:s, s:i, s:b, s:I, s:I, s:I, s:I, s:I}", "instance", s->instance,
                      "instances", cs.instances, "redis", cs.redis_up, "forwarded",
                      (json_int_t)cs.forwarded, "relayed", (json_int_t)cs.relayed, "served",
                      (json_int_t)cs.served, "takeovers", (json_int_t)cs.takeovers,
                      "taken_matches", (json_int_t)cs.taken_matches));
    }
    return o;
}
