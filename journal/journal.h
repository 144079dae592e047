/*
 * journal.h — the journal: what the server writes of every match as it is
 * played, and what it reads back at start-up (journal.c over one storage
 * engine: journal/sqlite.c or journal/pg.c, behind journal_int.h).
 *
 * The journal knows no match: it takes rows (journal_match, journal_moves,
 * journal_seats), copies what it keeps, and hands stored matches back
 * through a restorer. Every write but a match's creation goes into the loop
 * round's batch, written as one transaction at the end of the round; every
 * message the server queues from then on waits (journal_hold) until the
 * batch is stored (journal_synced), so nothing is told before it is stored.
 * A batch that fails puts the journal in a fault: it is kept whole and
 * written again once a second until it is stored, and meanwhile writes are
 * refused at once (ENG_ESTORAGE: the caller's match pauses).
 *
 * Loop thread only. The journal's database connection is shared with the
 * server's other tables (journal_db): a statement run through it first lets
 * the round's batch go, so the order of writes is the program's.
 */
#ifndef TESSERA_SERVER_JOURNAL_H
#define TESSERA_SERVER_JOURNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

#include "base/base.h"
#include "engine/eng.h"
#include "protocol/record.h"

typedef struct journal journal;
struct db_conn;

/* ---- opening ------------------------------------------------------------------------ */

/* The integrity check at open ([journal] check). */
enum { JOURNAL_CHECK_OFF, JOURNAL_CHECK_QUICK, JOURNAL_CHECK_FULL };

/* ---- limits ---------------------------------------------------------------------- */

/* A journal that cannot be written (a full disk, a read-only file, a lost
 * PostgreSQL) is probed again this often, never in a busy loop; the server
 * retries what it must do itself at the same pace (SRV_STORAGE_RETRY_MS). */
#define JOURNAL_RETRY_MS 1000
/* Several servers on one PostgreSQL database (docs/scaling.md): an instance
 * name is at most JOURNAL_INSTANCE_MAX characters of [A-Za-z0-9._:-] (it goes
 * into SQL and Redis channel names); a server's lease lasts JOURNAL_LEASE_MS
 * unless [cluster] lease_ms says otherwise, and is renewed at least every
 * JOURNAL_LEASE_BEAT_MS (every journal batch renews it too): a dead server's
 * matches are taken over once its lease has expired. */
#define JOURNAL_INSTANCE_MAX 64
#define JOURNAL_LEASE_MS 5000
#define JOURNAL_LEASE_BEAT_MS 1000
/* The journal's WAL is started again from its beginning once it holds
 * this many frames (a frame: a 4 KiB page and its header) and a checkpoint
 * has copied them (sqlite.c, "Checkpoints"). It bounds the WAL file (about
 * 64 MiB) and the index SQLite maps in memory for it (8 bytes a frame,
 * 128 KiB); each start again costs the loop one short checkpoint, about once
 * a second at most under the heaviest load, far less in a normal one.
 * (Test hook TESSERA_TEST_WAL_FRAMES.) */
#define JOURNAL_WAL_RESET_FRAMES 16384

typedef struct journal_config {
    uv_loop_t *loop;
    bool durable;            /* --durable: nothing is told before it is on disk */
    int check;               /* JOURNAL_CHECK_*: SQLite's check of the file at open */
    int busy_timeout_ms;     /* SQLite: how long a write waits for another's lock */
    int wal_reset_frames;    /* SQLite: the WAL's bound (checkpoints) */
    int lines_slack;         /* SQLite: rows of the thinking lines' log beyond twice the live
                                lines before long-lived matches' are written again (lines.c;
                                0: the default) */
    const char *instance;    /* this server's name (PostgreSQL: its lease and matches) */
    const char *address;     /* how the other servers reach it (PostgreSQL), or NULL */
    int lease_ms;            /* PostgreSQL: this server's lease */
    /* test hooks (server/limits.h), all off when empty or 0 */
    const char *fault_file;  /* SQLite: names the fault injected into its writes */
    const char *sync_log;    /* SQLite --durable: the WAL's size at each sync */
    int readonly_after;      /* SQLite: the file turns read-only after this many appends */
} journal_config;

/* Open the journal at target: a SQLite file ("sqlite:FILE" or a file name)
 * or a PostgreSQL connection string (storage/db.h). 0, or ENG_ESTORAGE /
 * ENG_EBAD_VERSION / ENG_ENOMEM with the reason in err. */
int journal_open(const char *target, const journal_config *cfg, journal **out, char *err,
                 size_t errcap);
/* Start the loop's handles (the round's batch, faults' retries, the
 * engine's own: checkpoints, --durable's sync thread, the lease); stop them,
 * writing what is left and waiting for it (shutdown). */
void journal_start(journal *j);
void journal_stop(journal *j);
void journal_close(journal *j);
/* The journal released held output (a batch stored; --durable: synced):
 * fn(arg) writes what waited for it. */
void journal_on_synced(journal *j, void (*fn)(void *arg), void *arg);
/* Test hook TESSERA_TEST_FAULT_FILE: wrap SQLite's VFS (before any open). */
void journal_fault_hook_install(void);

/* ---- writing ------------------------------------------------------------------------ */

/* A seat as the journal keeps it: all that is needed to resume it. Strings
 * are borrowed for the call. */
typedef struct journal_seat {
    const char *kind;         /* "bot", "open", "program" or "remote" */
    const char *name, *spec, *token, *resume;
    int64_t bank_ms, grace_ms, used_ms;
    int illegal, moves;
    bool joined, takeover;
    bool index_resume;        /* resume is new: index it (journal_resume_status) */
} journal_seat;

/* A match's status and seats as they are now. */
typedef struct journal_seats {
    const char *match;        /* its id */
    int status;               /* the match's status (match.h) */
    bool status_changed;      /* it may differ from the status last written */
    int nseats;
    const journal_seat *seat;
} journal_seats;

/* A match as it is created. */
typedef struct journal_match {
    const char *id, *game;
    int move_encoding;        /* the game's (eng_game.move_encoding) */
    const char *rules, *time_control, *policies; /* JSON texts */
    uint64_t seed;            /* the secret chance seed */
    const char *nonce_hex;    /* its commitment's nonce, or NULL */
    int64_t created_ms;
    bool demo;
    journal_seats seats;
} journal_match;

/* Plies from..from+n of a match (chance outcomes included), and its seats
 * after them (NULL: none changed, as after a draw). */
typedef struct journal_moves {
    const char *match;        /* its id */
    int from, n;
    const eng_move *move;     /* [n] */
    const rec_time *time;     /* [n]: each turn's figures on its first move (-1: none) */
    const char *info;         /* the turn's thinking line (compact JSON text, docs/records.md)
                                 kept with move[0], the turn's first; NULL: none */
    const char *by, *reason;  /* who played them, why the server did (NULL: none) */
    const journal_seats *seats;
} journal_moves;

/* The writes. Each returns 0, or ENG_ESTORAGE during a fault (refused at
 * once: nothing of it is kept) or ENG_ENOMEM. journal_create_match is
 * written now, as its own transaction (after the round's batch); the others
 * go into the round's batch, whose number (the commit its messages wait
 * for) is *batch; their new resume tokens are indexed with them. */
int journal_create_match(journal *j, const journal_match *m);
int journal_append(journal *j, const journal_moves *mv, uint64_t *batch);
int journal_update_seats(journal *j, const journal_seats *s, uint64_t *batch);
int journal_finish(journal *j, const journal_seats *s, int64_t finished_ms, const char *result,
                   uint64_t *batch);
/* The match's lobby summary (JSON text) for the other servers' lobbies: on
 * a shared database only. */
int journal_set_summary(journal *j, const char *match, const char *summary);

/* Holds. journal_hold: the number a message queued now waits for (0:
 * none, send it now); journal_synced: the last number stored (--durable:
 * known on disk). NULL j: no journal, nothing waits. */
uint64_t journal_hold(const journal *j);
uint64_t journal_synced(const journal *j);

/* ---- faults and figures --------------------------------------------------------------- */

/* Kinds of journal faults (logs, /metrics). */
enum {
    JF_NONE,
    JF_DISK_FULL,
    JF_IO_ERROR,
    JF_LOCKED,
    JF_READONLY,
    JF_CORRUPT,
    JF_OTHER,
    JF_UNREACHABLE, /* no connection to the database server */
    JF_NKINDS
};
/* A kind's name, as logs and /metrics show it. */
const char *journal_fault_name(int kind);
/* The fault in force: JF_NONE, or its kind, since when (epoch ms) and the
 * engine's message. */
int journal_fault(const journal *j, int64_t *since_ms, const char **message);
/* How long (ms) the journal has worked without a fault (0 during one). */
uint64_t journal_up_ms(const journal *j);

typedef struct journal_stats {
    uint64_t faults[JF_NKINDS]; /* writes failed, by kind */
    uint64_t refused;           /* writes refused at once during a fault */
    srv_phist write;            /* one write (a transaction; PostgreSQL: a batch sent to
                                   its commit) */
    int most_in_flight;         /* the most batches in flight at once (PostgreSQL) */
    /* SQLite's WAL checkpoints */
    uint64_t ckpt_passes;       /* passes on the pool that ran */
    uint64_t wal_resets;        /* WALs copied whole, to be started again */
    int wal_frames, wal_copied; /* the WAL at the last pass: frames, copied */
    srv_phist ckpt_stall;       /* the loop's share of a checkpoint (the tail) */
} journal_stats;
const journal_stats *journal_get_stats(const journal *j);

/* ---- reading ------------------------------------------------------------------------- */

/* A stored match as the journal holds it: what a restorer rebuilds a match
 * from (its moves replayed). Strings and arrays are borrowed, valid during
 * the call. */
typedef struct journal_stored {
    const char *id;
    const char *game;
    const char *rules_json;  /* rules, as create_match takes them */
    const char *seats_json;  /* the seats, as journal_seats were written */
    const char *tc_json;     /* time control */
    const char *pol_json;    /* policies */
    uint64_t seed;           /* the secret chance seed */
    const char *nonce_hex;   /* its commitment's nonce (NULL: journaled before commitments) */
    int status;              /* the match's status */
    const char *result_json; /* the result once finished */
    int64_t created_ms, finished_ms;
    bool demo;               /* the server's own showcase match */
    const eng_move *moves;   /* every engine move, chance outcomes included */
    const rec_time *times;   /* times[i]: the time figures of moves[i] */
    const char *const *infos; /* infos[i]: the thinking line kept with moves[i], as
                                 journal_moves.info gave it (NULL: none) */
    int nmoves;
} journal_stored;

/* What the reader hands stored matches to: the journal rebuilds no match
 * itself and looks none up. */
typedef struct journal_restorer {
    void *arg;
    /* Is a match of this id held already? (Checked before its moves are
     * read: a held match is skipped.) */
    bool (*held)(void *arg, const char *id);
    /* Rebuild one match: true, or false with a reason in err. */
    bool (*restore)(void *arg, const journal_stored *m, char *err, size_t errcap);
} journal_restorer;

/* The status a finished match has in the journal (the reader's filter). */
#define JOURNAL_FINISHED 2

/* Restore every stored match (the unfinished ones, on a shared database
 * those this server owns; the latest `finished_kept` finished ones); a
 * match that cannot be restored is logged (restore_failed) and left in the
 * journal. 0, or a negative code with err when it cannot be read at all. */
int journal_load(journal *j, const journal_restorer *r, int finished_kept, char *err,
                 size_t errcap);
/* Restore finished match id: 0, -1 when there is no such finished match,
 * or a negative code. */
int journal_load_finished(journal *j, const char *id, const journal_restorer *r, char *err,
                          size_t errcap);
/* Shared database: restore the unfinished matches this server owns (those
 * just taken over); *count says how many. */
int journal_load_owned(journal *j, const journal_restorer *r, int *count, char *err,
                       size_t errcap);
/* The status of the stored match whose seat has this resume token, or -1. */
int journal_resume_status(journal *j, const char *token);
/* A stored match's status and result (new reference, or NULL): 0, or -1
 * when there is no such match. */
int journal_match_result(journal *j, const char *id, int *status, json_t **result);

/* ---- the database --------------------------------------------------------------------- */

/* The database of the server's other tables (storage/db.h), on the
 * journal's connection; NULL j: NULL. */
struct db_conn *journal_db(const journal *j);
/* Do several servers share this database (instances, owners, roles)? */
bool journal_shared(const journal *j);
/* Where the journal is, as logs show it (a PostgreSQL password hidden). */
const char *journal_describe(const journal *j);

#endif
