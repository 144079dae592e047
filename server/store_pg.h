/*
 * store_pg.h — the journal on PostgreSQL (store_pg.c), behind store.h: the
 * engine store.c hands the journal's writes to when the server stores in
 * PostgreSQL. Private to server/.
 *
 * Writes of moves, seats and results are asynchronous: each call adds its
 * statements to the open batch and returns; once per loop iteration the
 * batch is sent as one transaction (group commit), and every message queued
 * after a write waits (store_hold_seq) until the batch holding it has
 * committed. A batch that fails is kept and sent again once a second until
 * it commits; meanwhile new writes are refused (the matches pause) and
 * nothing after the failed batch is announced. Creating a match, and every
 * statement other modules run on the same connection (store_db), are
 * synchronous, and first wait for the batches before them.
 *
 * Every batch begins with the instance's fence (tessera_fence): it renews
 * this server's lease and fails with SQLSTATE TS001 when another server has
 * taken the lease over (docs/scaling.md). A server fenced out stops at
 * once: its matches are someone else's now, and nothing it has not stored
 * was announced.
 */
#ifndef TESSERA_SERVER_STORE_PG_H
#define TESSERA_SERVER_STORE_PG_H

#include "internal.h"
#include "storage/db.h"

typedef struct pgj pgj;

/* Connect, create or check the tables (schema version), register this
 * server's instance row (a new lease token) and return the journal with its
 * synchronous connection in *dbh (owned by the journal). 0, or ENG_ESTORAGE /
 * ENG_EBAD_VERSION with the reason in err. */
int pgj_open(srv *s, const char *target, pgj **out, db_conn **dbh, char *err, size_t errcap);
/* Start the loop handles (batches, retries, the heartbeat); stop them,
 * sending what is left and waiting for it (shutdown). */
void pgj_start(pgj *j);
void pgj_stop(pgj *j);
void pgj_close(pgj *j);

/* The instance this server is, and its lease token. */
const char *pgj_instance(const pgj *j);

/* The journal's writes (store.h says what each is). The seats' text and
 * the tokens to index are made by store.c. 0, or ENG_ESTORAGE when the
 * journal is in a fault. */
typedef struct pgj_token {
    const char *token;
    int seat;
} pgj_token;
int pgj_create_match(pgj *j, const match *m, const char *rules, const char *seats, const char *tc,
                     const char *pol, const char *nonce_hex);
int pgj_append(pgj *j, const match *m, int from, int to, const char *by, const char *reason,
               const char *seats, size_t seats_len, const pgj_token *tokens, int ntokens);
int pgj_update_seats(pgj *j, const match *m, const char *seats, size_t seats_len,
                     const pgj_token *tokens, int ntokens);
int pgj_finish(pgj *j, const match *m, const char *result, const char *seats,
               const pgj_token *tokens, int ntokens);

/* The match's lobby summary, for the other servers' lobbies. */
int pgj_summary(pgj *j, const match *m, const char *summary);

uint64_t pgj_hold_seq(const pgj *j);
uint64_t pgj_synced(const pgj *j);
int pgj_fault(const pgj *j, int64_t *since_ms, const char **message);
/* How long (ms) the journal has worked without a fault: 0 during one. */
uint64_t pgj_up_ms(const pgj *j);

#endif
