/*
 * base.h — the ground floor of server/: what every part uses and which uses
 * none of them (log.c, and config.c's addresses): JSON-lines logs, the
 * latency histograms, the loop's clock and the wall clock, random tokens,
 * a job on the thread pool, address blocks, and the limits (limits.h).
 * Nothing here knows a connection, a match or the journal.
 */
#ifndef TESSERA_BASE_BASE_H
#define TESSERA_BASE_BASE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <uv.h>

/* ---- logging ------------------------------------------------------------------------- */

enum { LOG_DEBUG, LOG_INFO, LOG_WARN, LOG_ERROR, LOG_ALWAYS /* printed at any level, as info */ };
/* Log one event as a JSON line; `fields` is a jansson pack format for the
 * extra fields (may be NULL), followed by its arguments. */
void srv_log(int level, const char *event, const char *fields, ...);
/* The same with the fields as an object (stolen). */
void srv_log_json(int level, const char *event, json_t *fields);
void srv_log_set_level(int level);

/* ---- the thread pool, for the services the server hosts -------------------------------- */

/* Run work(arg) on the libuv thread pool, then done(arg, status) on the
 * loop (status != 0: it could not run); *pending (may be NULL) counts the
 * job until done has run. 0, or -1 when it cannot be queued (nothing runs). */
int srv_queue_work(uv_loop_t *loop, void (*work)(void *arg), void (*done)(void *arg, int status),
                   void *arg, int *pending);

/* ---- invariants ---------------------------------------------------------------------- */

/* What must hold, stated in code (docs/style.md). assert() is the debug
 * build's: a whole state checked, or checks on every call of a hot path.
 * SRV_ASSERT stays in every build: a cheap check whose failure means the
 * server's own state is wrong (never bad input: that is an error reply) —
 * it logs the expression and where, and aborts; everything announced is in
 * the journal, and a restart resumes from it. */
#define SRV_ASSERT(cond)                                                                     \
    ((cond) ? (void)0 : srv__assert_failed(#cond, __FILE__, __LINE__, __func__))
_Noreturn void srv__assert_failed(const char *expr, const char *file, int line, const char *func);

/* ---- statistics (docs/protocol.md: server_stats) ---------------------------------------- */

/* 1 us buckets below 10 ms, 100 us buckets from 10 ms to 1 s; slower
 * samples land in the last bucket (and max_us keeps the true maximum). */
#define STAT_FINE 10000
#define STAT_BUCKETS (STAT_FINE + 9901)

typedef struct srv_hist {
    uint64_t count;
    uint64_t max_us;
    uint64_t sum_ns; /* the samples' exact sum: their mean, finer than a bucket */
    uint32_t bucket[STAT_BUCKETS];
} srv_hist;

void hist_add(srv_hist *h, uint64_t us);
/* The same, of a sample in nanoseconds (its mean kept to the nanosecond). */
void hist_add_ns(srv_hist *h, uint64_t ns);
/* {"count":n,"mean_us":..,"p50_us":..,"p99_us":..,"max_us":..} (new reference) */
json_t *hist_json(const srv_hist *h);

/* A Prometheus histogram (docs/operations.md, "Metrics"): counts per upper
 * bound (seconds), their sum. */
#define PHIST_MAX_BOUNDS 16
typedef struct srv_phist {
    const double *le;                      /* upper bounds, ascending (seconds) */
    int nle;
    uint64_t counts[PHIST_MAX_BOUNDS + 1]; /* per bound, not cumulative; last: +Inf */
    uint64_t count;
    double sum;                            /* seconds */
} srv_phist;

/* The bounds a histogram has: microseconds to a second (a move's overhead,
 * a journal write), a bot's thinking (ms to a minute), lateness (ms to s). */
enum { PHIST_FAST, PHIST_THINK, PHIST_LATE };
void phist_init(srv_phist *h, int bounds);
/* One observation; nothing on a histogram not set up. */
void phist_add(srv_phist *h, double seconds);

/* ---- hashing ------------------------------------------------------------------------- */

/* FNV-1a of a string, seeded (a random seed where the keys come from peers). */
uint64_t srv_hash_str(uint64_t seed, const char *s);

/* ---- clocks and random tokens --------------------------------------------------------- */

/* Milliseconds on the loop's monotonic clock, refreshed (a vDSO read): the
 * loop's cached time can be stale by a whole round of I/O. */
uint64_t srv_loop_now(uv_loop_t *loop);
/* Wall clock, epoch milliseconds. */
int64_t srv_epoch_ms(void);
/* Random token of n (1..64) base32 characters into out (n + 1 bytes), from
 * getrandom(2). Returns 0, or ENG_EINTERNAL when no random bytes can be had
 * (logged; out is then ""): callers fail closed, never use a guessable token. */
int srv_random_token(char *out, int n);
/* The source of random bytes: getrandom(2). A test hook (fault injection). */
extern ssize_t (*srv__getrandom)(void *buf, size_t len, unsigned int flags);

/* ---- addresses (config.c) ------------------------------------------------------------ */

/* An address or address block: family AF_INET/AF_INET6, the address in
 * network order, the prefix length. */
typedef struct srv_cidr {
    int family;
    unsigned char addr[16];
    int bits;
} srv_cidr;

/* Parse a list of addresses/blocks separated by spaces or commas into out
 * (at most max). Returns how many, or -1 with the reason in err. */
int srv_cidr_parse_list(const char *text, srv_cidr *out, int max, char *err, size_t errcap);
/* Parse one address (not a block; "::ffff:1.2.3.4" is 1.2.3.4). */
bool srv_addr_parse(const char *text, srv_cidr *out);
/* Is address a in one of the n blocks? */
bool srv_cidr_match(const srv_cidr *list, int n, const srv_cidr *a);

#endif
