/*
 * metrics.c — the server's numbers for an operator: GET /metrics in the
 * Prometheus text exposition format (version 0.0.4), and what /readyz says.
 *
 * Everything here is read on the loop thread from counters the loop keeps
 * (srv_counters, filled where the events happen), so a scrape costs a few
 * microseconds of formatting and takes no lock. Counters only go up
 * (`_total`); gauges are read when scraped; histograms have fixed bounds in
 * seconds, chosen for what each one measures (the per-move overhead is
 * microseconds to milliseconds; a bot's thinking, milliseconds to a
 * minute). docs/operations.md, "Metrics", lists every series.
 */
#include <malloc.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cluster.h"
#include "engine/textbuf.h"
#include "internal.h"
#include "tokidx.h"
#include "programs.h"
#include "thinking.h"
#include "journal/journal.h"
#include "match_views.h"
#include "tournaments.h"

void metrics_init(srv *s)
{
    phist_init(&s->cnt.overhead, PHIST_FAST);
    phist_init(&s->cnt.think, PHIST_THINK);
    phist_init(&s->cnt.timeout_late, PHIST_LATE);
}

/* ---- the exposition text ----------------------------------------------------------- */

static void head(textbuf *b, const char *name, const char *type, const char *help)
{
    tb_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void gauge(textbuf *b, const char *name, const char *help, double v)
{
    head(b, name, "gauge", help);
    tb_printf(b, "%s %.17g\n", name, v);
}

static void counter(textbuf *b, const char *name, const char *help, uint64_t v)
{
    head(b, name, "counter", help);
    tb_printf(b, "%s %llu\n", name, (unsigned long long)v);
}

static void histogram(textbuf *b, const char *name, const char *help, const srv_phist *h)
{
    head(b, name, "histogram", help);
    uint64_t cum = 0;
    for (int i = 0; i < h->nle; i++) {
        cum += h->counts[i];
        tb_printf(b, "%s_bucket{le=\"%g\"} %llu\n", name, h->le[i], (unsigned long long)cum);
    }
    cum += h->counts[h->nle];
    tb_printf(b, "%s_bucket{le=\"+Inf\"} %llu\n", name, (unsigned long long)cum);
    tb_printf(b, "%s_sum %.17g\n%s_count %llu\n", name, h->sum, name, (unsigned long long)h->count);
}

/* Resident memory in bytes (/proc/self/statm), or 0. */
static double rss_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long pages = 0, rss = 0;
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &rss) != 2)
            rss = 0;
        fclose(f);
    }
    return (double)rss * (double)sysconf(_SC_PAGESIZE);
}

char *metrics_text(srv *s, size_t *len)
{
    const srv_counters *c = &s->cnt;
    textbuf b = TEXTBUF_INIT;
    head(&b, "tessera_build_info", "gauge", "the server's version (always 1)");
    tb_printf(&b, "tessera_build_info{version=\"%s\"} 1\n", TESSERA_VERSION);
    gauge(&b, "tessera_start_time_seconds", "when the server started (Unix time)",
          (double)s->started_ms / 1000.0);
    gauge(&b, "tessera_connections", "WebSocket connections open", s->nconns);
    counter(&b, "tessera_connections_accepted_total", "WebSocket connections opened",
            c->conns_accepted);
    counter(&b, "tessera_connections_refused_total",
            "WebSocket connections refused (connection limit, shutting down)", c->conns_refused);

    int waiting = 0, live = 0;
    for (match *m = s->matches; m; m = m->next) {
        waiting += m->status == MATCH_WAITING && !m->closing;
        live += m->status == MATCH_LIVE && !m->closing;
    }
    head(&b, "tessera_matches", "gauge",
         "matches held by state (finished: kept in memory for listing)");
    tb_printf(&b,
              "tessera_matches{state=\"waiting\"} %d\ntessera_matches{state=\"live\"} %d\n"
              "tessera_matches{state=\"finished\"} %d\n",
              waiting, live, s->nfinished);
    counter(&b, "tessera_matches_created_total", "matches created by clients", c->matches_created);
    counter(&b, "tessera_matches_created_anonymous_total",
            "matches created without the admin token", c->matches_anonymous);
    head(&b, "tessera_matches_finished_total", "counter", "matches finished, by result reason");
    for (int i = 0; i < SRV_NREASONS; i++)
        tb_printf(&b, "tessera_matches_finished_total{reason=\"%s\"} %llu\n", match_reason_name(i),
                  (unsigned long long)c->finished[i]);
    counter(&b, "tessera_moves_total", "turns played", s->moves);
    counter(&b, "tessera_socket_writes_total", "socket writes of WebSocket output", s->writes);
    uint64_t info_passed, info_dropped, info_in_moves;
    thinking_counts(&info_passed, &info_dropped, &info_in_moves);
    head(&b, "tessera_info_lines_total", "counter",
         "thinking lines (info) from seats: passed the checks, or dropped as bad");
    tb_printf(&b, "tessera_info_lines_total{result=\"passed\"} %llu\n"
                  "tessera_info_lines_total{result=\"dropped\"} %llu\n",
              (unsigned long long)info_passed, (unsigned long long)info_dropped);
    histogram(&b, "tessera_move_overhead_seconds",
              "the server's time from a remote move's arrival to the next your_turn queued",
              &c->overhead);
    histogram(&b, "tessera_timeout_lateness_seconds",
              "how long after its deadline a timeout was applied", &c->timeout_late);
    histogram(&b, "tessera_bot_think_seconds", "an in-process bot's search, wall time", &c->think);

    static const journal_stats none;
    const journal_stats *js = s->db ? journal_get_stats(s->db) : &none;
    histogram(&b, "tessera_journal_write_seconds", "one journal write (an SQLite transaction)",
              &js->write);
    int64_t since = 0;
    const char *msg = NULL;
    int fault = journal_fault(s->db, &since, &msg);
    gauge(&b, "tessera_journal_ok", "1 while the journal takes writes, 0 during a fault",
          fault == JF_NONE);
    head(&b, "tessera_journal_faults_total", "counter", "journal writes that failed, by kind");
    for (int i = 1; i < JF_NKINDS; i++)
        tb_printf(&b, "tessera_journal_faults_total{kind=\"%s\"} %llu\n", journal_fault_name(i),
                  (unsigned long long)js->faults[i]);
    counter(&b, "tessera_journal_writes_refused_total",
            "writes refused without trying while a fault lasts (retried every second)",
            js->refused);
    counter(&b, "tessera_journal_checkpoints_total", "WAL checkpoint passes on the thread pool",
            js->ckpt_passes);
    counter(&b, "tessera_journal_wal_resets_total",
            "times the WAL was copied whole, to be written again from its beginning",
            js->wal_resets);
    gauge(&b, "tessera_journal_wal_frames", "frames (pages) in the WAL at the last checkpoint",
          js->wal_frames);
    gauge(&b, "tessera_journal_wal_frames_copied",
          "frames of the WAL copied into the database at the last checkpoint", js->wal_copied);
    histogram(&b, "tessera_journal_checkpoint_stall_seconds",
              "the loop thread's share of a checkpoint (the WAL's tail, before it starts again)",
              &js->ckpt_stall);

    head(&b, "tessera_errors_total", "counter", "error replies sent to clients, by code");
    for (int i = 1; i < SRV_NERR; i++)
        if (c->errors[i])
            tb_printf(&b, "tessera_errors_total{code=\"%s\"} %llu\n", wire_err_code(-i),
                      (unsigned long long)c->errors[i]);
    if (c->errors[0])
        tb_printf(&b, "tessera_errors_total{code=\"other\"} %llu\n",
                  (unsigned long long)c->errors[0]);
    head(&b, "tessera_creates_refused_total", "counter",
         "matches refused to clients without the admin token, by why");
    tb_printf(&b,
              "tessera_creates_refused_total{why=\"policy\"} %llu\n"
              "tessera_creates_refused_total{why=\"quota\"} %llu\n"
              "tessera_creates_refused_total{why=\"rate\"} %llu\n",
              (unsigned long long)c->refused_policy, (unsigned long long)c->refused_quota,
              (unsigned long long)c->refused_rate);

    const char *threads = getenv("UV_THREADPOOL_SIZE");
    int nthreads = threads ? atoi(threads) : 4;
    int jobs = s->jobs + s->hashing;
    gauge(&b, "tessera_worker_threads", "threads of the pool that bots search on", nthreads);
    gauge(&b, "tessera_worker_jobs",
          "jobs on the worker pool (searches and secret hashes), running or queued", jobs);
    gauge(&b, "tessera_worker_queue_length", "jobs waiting for a worker thread",
          jobs > nthreads ? jobs - nthreads : 0);
    gauge(&b, "tessera_bots_held", "in-process bot instances held by matches not over", s->bots);
    gauge(&b, "tessera_programs_running", "external programs running in seats", progs_running(s));
    const char *tnames[8];
    int tcounts[8];
    int nt = tours_by_state(s, tnames, tcounts, 8);
    head(&b, "tessera_tournaments", "gauge", "tournaments held, by state");
    for (int i = 0; i < nt; i++)
        tb_printf(&b, "tessera_tournaments{state=\"%s\"} %d\n", tnames[i], tcounts[i]);
    counter(&b, "tessera_http_requests_total", "requests to /metrics, /healthz and /readyz",
            c->http_requests);
    gauge(&b, "process_resident_memory_bytes", "resident memory of the server", rss_bytes());
    gauge(&b, "tessera_resume_tokens", "resume tokens indexed in memory (matches held)",
          (double)tokidx_count(s));
    gauge(&b, "tessera_sqlite_memory_bytes", "memory SQLite holds (its caches, statements)",
          (double)sqlite3_memory_used());
#ifdef __GLIBC__
    struct mallinfo2 mi = mallinfo2();
    gauge(&b, "tessera_heap_in_use_bytes", "malloc'd memory in use (glibc mallinfo2)",
          (double)(mi.uordblks + mi.hblkhd));
    gauge(&b, "tessera_heap_free_bytes",
          "memory malloc holds free (glibc mallinfo2: fragmentation and arenas' reserves)",
          (double)mi.fordblks);
#endif
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    head(&b, "process_cpu_seconds_total", "counter", "CPU time used (user + system)");
    tb_printf(&b, "process_cpu_seconds_total %.6f\n",
              (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
                  (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6);
    *len = b.len;
    return tb_take(&b);
}

const char *metrics_not_ready(srv *s)
{
    static char why[400];
    if (s->stopping)
        return "shutting down";
    if (!s->listening)
        return "starting";
    int64_t since = 0;
    const char *msg = NULL;
    int fault = journal_fault(s->db, &since, &msg);
    if (fault != JF_NONE) {
        snprintf(why, sizeof why, "the journal cannot be written (%s since %lld ms: %s)",
                 journal_fault_name(fault), (long long)(srv_epoch_ms() - since), msg ? msg : "");
        return why;
    }
    return NULL;
}

/* The server's figures: server_stats (docs/protocol.md) and the stats log line. */
json_t *srv_stats_json(const srv *s)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    json_t *o = json_pack("{s:i, s:i, s:I, s:i, s:I, s:o, s:o, s:I, s:I, s:i, s:i}", "connections",
                          s->nconns, "matches_live", s->nlive, "matches_finished",
                          (json_int_t)s->finished, "matches_kept", s->nfinished, "moves",
                          (json_int_t)s->moves, "overhead", hist_json(&s->overhead), "timeout_late",
                          hist_json(&s->timeout_late), "rss_peak_kb", (json_int_t)ru.ru_maxrss,
                          "uptime_ms", (json_int_t)(srv_epoch_ms() - (int64_t)s->started_ms),
                          "searches", s->jobs, "bots_held", s->bots);
    /* external programs running in seats now (each a process and a worker thread) */
    json_object_set_new(o, "programs", json_integer(progs_running(s)));
    json_object_set_new(o, "writes", json_integer((json_int_t)s->writes));
    uint64_t passed, dropped, in_moves; /* thinking lines (info) checked, dropped as bad; in moves */
    thinking_counts(&passed, &dropped, &in_moves);
    json_object_set_new(o, "info", json_pack("{s:I, s:I, s:I}", "passed", (json_int_t)passed,
                                             "dropped", (json_int_t)dropped, "in_moves",
                                             (json_int_t)in_moves));
    if (cluster_on(s)) { /* several servers on one database (docs/scaling.md) */
        cluster_stats cs;
        cluster_get_stats(s, &cs);
        json_object_set_new(o, "cluster",
                            json_pack("{s:s, s:i, s:b, s:I, s:I, s:I, s:I, s:I}", "instance",
                                      s->instance, "instances", cs.instances, "redis", cs.redis_up,
                                      "forwarded", (json_int_t)cs.forwarded, "relayed",
                                      (json_int_t)cs.relayed, "served", (json_int_t)cs.served,
                                      "takeovers", (json_int_t)cs.takeovers, "taken_matches",
                                      (json_int_t)cs.taken_matches));
    }
    return o;
}
