/*
 * journal_int.h — private to the journal's files: the journal object, and
 * what a storage engine implements (journal_ops) for journal.c, which holds
 * everything the engines share — the round's batch of rows, its numbers
 * and the holds on messages, faults and their retries, the reader.
 *
 * An engine writes a batch of rows as one transaction, synchronously
 * (SQLite: JOURNAL_STORED or JOURNAL_FAILED at once) or asynchronously
 * (PostgreSQL: JOURNAL_SENT, then journal__batch_done on the loop). It
 * keeps the journal's two counters: `committed`, the commits it made on the
 * connection (SQLite: every commit, the other tables' too, as its WAL hook
 * counts them; PostgreSQL: the batches sent), and `synced`, those known
 * stored (SQLite: committed, or under --durable fsync'd; PostgreSQL: the
 * batches whose commit came back). A message waits for the number of the
 * batch it was queued after; journal.c derives the rest from the two.
 */
#ifndef TESSERA_SERVER_JOURNAL_OPS_H
#define TESSERA_SERVER_JOURNAL_OPS_H

#include "engine/textbuf.h"
#include "journal.h"
#include "storage/db.h"

/* A row of a batch, its values copied: strings are offsets into the
 * batch's text (each ends with a NUL), JNONE for SQL NULL. */
#define JNONE UINT32_MAX
enum { JR_MOVE, JR_SEATS, JR_TOKEN, JR_FINISH, JR_SUMMARY };
typedef struct journal_row {
    int kind;                      /* JR_* */
    uint32_t match;                /* the match's id */
    uint32_t a;                    /* MOVE: by; SEATS, FINISH: the seats; TOKEN: the token;
                                      SUMMARY: the summary */
    uint32_t b;                    /* MOVE: reason; FINISH: the result */
    int n;                         /* MOVE: ply; SEATS, FINISH: status; TOKEN: seat */
    bool changed;                  /* SEATS: the status may have changed */
    eng_move move;                 /* MOVE */
    int64_t at;                    /* MOVE: epoch ms; FINISH: when it finished */
    int64_t think_ms, wait_ms;     /* MOVE: ms, -1 for none */
    uint32_t info;                 /* MOVE: the turn's thinking line (JNONE: none) */
} journal_row;

typedef struct journal_batch {
    journal_row *row;
    int n, cap;
    char *text;                    /* the rows' strings */
    size_t text_len, text_cap;
    int appends;                   /* journal_append calls in it */
    uint64_t hold;                 /* the number its messages wait for (0: empty) */
    uint64_t t0;                   /* journal.c: uv_hrtime() when it was last written */
} journal_batch;

/* The most batches any engine may have in flight (journal_ops.depth). */
#define JOURNAL_DEPTH_MAX 4

static inline const char *jrow_str(const journal_batch *b, uint32_t at)
{
    return at == JNONE ? NULL : b->text + at;
}

/* What an engine's write of a batch came to. */
enum { JOURNAL_STORED, JOURNAL_SENT, JOURNAL_FAILED, JOURNAL_BUSY };

typedef struct journal_backend journal_backend;

typedef struct journal_ops {
    const char *name; /* the engine, and its messages' field in the log: "sqlite", "postgres" */
    bool shared;      /* several servers may share the database (instances, owners) */
    int depth;        /* batches it may have in flight at once, 1..JOURNAL_DEPTH_MAX */
    /* Open the database at target: the engine's state in *out and the
     * connection the other tables use in j->dbh; j->target set for logs. */
    int (*open)(journal *j, const char *target, journal_backend **out, char *err, size_t errcap);
    void (*start)(journal_backend *b);
    /* Shutdown, the batches written or given up (pending: rows were left). */
    void (*stop)(journal_backend *b, bool pending);
    void (*close)(journal_backend *b);
    /* Before a write of journal.c's own on the connection (optional). */
    void (*begin)(journal_backend *b);
    /* Write the batch as one transaction: JOURNAL_STORED (*commit: the
     * number of the commit that stored it) / JOURNAL_FAILED (with the
     * fault's kind and message through journal__failed: every batch in
     * flight failed with it), or JOURNAL_SENT (behind those in flight, if
     * any: at most `depth`), or JOURNAL_BUSY (not now: another transaction
     * is open on the connection, or a query of the engine's own is in
     * flight). Batches are written in the order of their holds; after a
     * failure, again from the oldest not stored. */
    int (*write)(journal_backend *b, const journal_batch *batch, uint64_t *commit);
    /* Block until every batch in flight (JOURNAL_SENT) is done (a
     * statement of another module is about to run on the connection). */
    void (*wait)(journal_backend *b);
    /* During a fault with no batch to write again: a write of the engine's
     * own, to notice the end of the fault (0 or a DB_E* code, message in msg). */
    int (*probe)(journal_backend *b, char *msg, size_t msgcap);
    /* Is the connection unable to take a batch now (see write)? Also: a
     * statement of the engine's own runs (the journal lets it be). */
    bool (*busy)(const journal_backend *b);
    /* The end of each loop round, after the batch (optional). */
    void (*round)(journal_backend *b);
    /* The thinking lines of match `match` the engine keeps apart from its
     * moves' rows (optional): into infos[ply], ply < n, where it is NULL,
     * as malloc'd copies (the reader frees them). */
    void (*lines)(journal_backend *b, const char *match, char **infos, int n);
} journal_ops;

extern const journal_ops journal_sqlite, journal_pg;

struct journal {
    const journal_ops *ops;
    journal_backend *be;
    db_conn *dbh;                  /* the connection of the other tables and the reader */
    journal_config cfg;            /* with its strings copied below */
    char instance[JOURNAL_INSTANCE_MAX + 1], address[256], fault_file[512], sync_log[512];
    char target[512];              /* where it stores, for logs */
    journal_stats st;
    void (*on_synced)(void *arg);  /* net.c: write what waited for a commit or sync */
    void *on_synced_arg;
    /* the batches: `open` takes the round's rows; sent[0..nsent) are those
     * written and not yet stored, oldest first: the first `nflight` in
     * flight (JOURNAL_SENT, answers awaited in order), the rest to be
     * written (again, after a failure; or the engine was busy) */
    journal_batch open, sent[JOURNAL_DEPTH_MAX];
    int nsent, nflight;
    bool failed;                   /* the oldest failed: written again at the next probe */
    uint64_t barrier_hold, barrier_commit; /* a batch stored by a later commit than its
                                              number: its messages wait for that one */
    uint64_t committed, synced;    /* kept by the engine (above) */
    /* faults */
    int fault;                     /* JF_NONE, or the kind of the last failure */
    int64_t fault_since;           /* epoch ms */
    char fault_msg[300];           /* the engine's message */
    uint64_t probe_at;             /* loop ms: the next write may try */
    uint64_t up_since;             /* loop ms since which it works without a fault */
    /* the loop */
    uv_prepare_t round_prep;       /* the batch is written before the loop polls ... */
    uv_check_t round_check;        /* ... and after the I/O callbacks */
    uv_timer_t probe_timer;        /* faults: the next try */
    bool started, closing;
    textbuf seats_txt;             /* the seats' text, reused write after write */
};

/* For the engines. */
/* A write failed: the fault of this kind begins or goes on (logged:
 * storage_error naming `what` and the match, if any; journal_fault when it
 * begins or changes kind, with the engine's code when not 0). */
void journal__failed(journal *j, int kind, const char *what, const char *match, const char *msg,
                     int code);
/* A write succeeded: a fault in force ends (journal_recovered). */
void journal__ok(journal *j);
/* The oldest asynchronous write in flight (JOURNAL_SENT) is done: stored
 * by commit number `commit` (`synced` already moved past it), or failed
 * (its fault reported through journal__failed first) — and with it every
 * batch in flight after it. */
void journal__batch_done(journal *j, bool stored, uint64_t commit);
/* Under --durable: `synced` moved; write what waited. */
void journal__synced(journal *j);
/* The kind of fault a DB_E* code of storage/db.h is. */
int journal__kind_of_db(int code);
/* Loop ms now. */
uint64_t journal__now(const journal *j);

#endif
