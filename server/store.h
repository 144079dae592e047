/*
 * store.h — the journal: what the server writes of every match as it is
 * played (SQLite, store.c), and the restore of the matches it holds at
 * start-up.
 *
 * This is the storage boundary: the match writes through store_create_match
 * / store_append / store_update_seats / store_finish, and reads back only
 * at start-up, through match_restore_spec. A second storage engine would
 * implement these functions. Loop thread only.
 */
#ifndef TESSERA_SERVER_STORE_H
#define TESSERA_SERVER_STORE_H

#include "internal.h"

/* Open the journal at target: a SQLite file ("sqlite:FILE" or a file
 * name) or a PostgreSQL connection string (storage/db.h). */
int store_open(srv *s, const char *target, bool durable, char *err, size_t errcap);
void store_close(srv *s);
/* Passive WAL checkpoints on the thread pool every second (start once the
 * loop runs; stop before shutdown so the loop can drain). */
void store_start_checkpoints(srv *s);
void store_stop_checkpoints(srv *s);
/* Every commit on the journal's connection gets a number; under --durable
 * (group sync) a thread fsyncs the WAL for all the commits made so far at
 * once. store_hold_seq: the number a message queued now must wait for (0:
 * none is pending, send it now); store_synced: the last number stored
 * (--durable: known on disk). */
uint64_t store_hold_seq(const srv *s);
uint64_t store_synced(const srv *s);
/* The writes of the journal. Each returns 0, or ENG_ESTORAGE when it could
 * not be written: nothing of it is stored (a transaction), the failure is
 * logged, and the journal is in a fault (store_fault) until a write
 * succeeds; meanwhile writes fail at once except one attempt a second. */
int store_create_match(srv *s, const match *m);
/* Append moves[from..to) of the match and its clocks. 0 when accepted: they
 * go into the loop round's batch, committed at the end of the round, and
 * every message queued from now on waits (store_hold_seq) until they are
 * stored. A batch whose commit fails is kept and tried again until stored;
 * meanwhile every append is refused at once (ENG_ESTORAGE). */
int store_append(srv *s, match *m, int from, int to, const char *by, const char *reason);
int store_update_seats(srv *s, match *m);
int store_finish(srv *s, match *m);
/* PostgreSQL: the match's lobby summary (JSON text), which the lobbies of
 * the other servers show (cluster.c); nothing on SQLite. */
int store_set_summary(srv *s, const match *m, const char *summary);
/* Test hook TESSERA_TEST_FAULT_FILE: wrap SQLite's VFS (before any open). */
void store_fault_hook_install(void);
/* Status of the stored match whose seat has this resume token, or -1. */
int store_resume_status(srv *s, const char *token);
/* A stored match as the journal holds it: what `restore` rebuilds a match
 * from at start-up (its moves replayed). Strings and arrays are borrowed,
 * valid during the call. */
typedef struct match_restore_spec {
    const char *id;
    const char *game;
    const char *rules_json;  /* rules, as create_match takes them */
    const char *seats_json;  /* the seats, as store_update_seats writes them */
    const char *tc_json;     /* time control */
    const char *pol_json;    /* policies */
    uint64_t seed;           /* the secret chance seed */
    const char *nonce_hex;   /* its commitment's nonce (NULL: journaled before commitments) */
    int status;              /* enum match_status */
    const char *result_json; /* the result once finished */
    int64_t created_ms, finished_ms;
    bool demo;             /* the server's own showcase match */
    const eng_move *moves; /* every engine move, chance outcomes included */
    const rec_time *times; /* times[i]: the time figures of moves[i] (NULL: none known) */
    int nmoves;
} match_restore_spec;
/* What the journal's reader hands matches to (match.c's match_restorer): the
 * store rebuilds no match itself and looks none up. */
typedef struct store_restorer {
    /* The match of this id the server holds already, or NULL (checked before
     * a match's moves are read: a held match is skipped). */
    match *(*held)(srv *s, const char *id);
    /* Rebuild one match from its spec: the match, linked into the server, or
     * NULL with a reason in err. */
    match *(*restore)(srv *s, const match_restore_spec *spec, char *err, size_t errcap);
} store_restorer;
/* Restore every stored match through `restore` (unfinished ones become live
 * again, the latest finished ones are kept for listing); a match that cannot
 * be restored is logged (restore_failed) and left in the journal. 0, or a
 * negative code with err when the journal cannot be read at all. */
int store_load(srv *s, const store_restorer *restore, char *err, size_t errcap);
/* Restore finished match id from the journal (through restore): 0 when it
 * was read, -1 when there is no such finished match, or a negative code. */
int store_load_finished(srv *s, const char *id, const store_restorer *restore, char *err,
                        size_t errcap);
/* PostgreSQL: restore the unfinished matches this server owns that it does
 * not hold yet (those just taken over from a dead server). *count says how
 * many; 0, or a negative code with err. */
int store_load_owned(srv *s, const store_restorer *restore, int *count, char *err, size_t errcap);
/* Where the journal is, as logs show it (a PostgreSQL password hidden). */
const char *store_describe(const srv *s);
/* PostgreSQL: how long (ms) the journal has worked without a fault (0
 * during one). A server takes no other over until it has been up a whole
 * lease: after an outage of the database every lease has expired, and the
 * others must first have had the time to renew theirs. */
uint64_t store_up_ms(const srv *s);
/* Does the server store in PostgreSQL? */
bool store_is_pg(const srv *s);
/* The journal's fault in force: JF_NONE, or its kind (JF_*), with when it
 * began (epoch ms) and SQLite's message. */
int store_fault(const srv *s, int64_t *since_ms, const char **message);
/* The journal's SQLite connection (loop thread only), for the tables of
 * registry.c, programs.c and tournaments.c; the round's batch is committed
 * first, so that their transactions never hold it. */
struct sqlite3 *store_handle(srv *s);
/* The database of the tables outside the journal's per-move path
 * (registry.c, programs.c, tournaments.c, courses.c), on whichever engine
 * the server stores in (storage/db.h); loop thread only. On PostgreSQL it is
 * the journal's own connection: a statement run through it first waits for
 * the journal's writes queued before it, so the order of writes is the
 * program's. */
struct db_conn *store_db(srv *s);
/* A stored match's status and result (new reference, or NULL), for a
 * match no longer held in memory: 0, or -1 when there is no such match. */
int store_match_result(srv *s, const char *id, int *status, json_t **result);

#endif
