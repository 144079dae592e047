/*
 * tournaments.h — tournaments and the ladder, driven on the loop
 * (tournaments.c): their games are ordinary matches.
 */
#ifndef TESSERA_SERVER_TOURNAMENTS_H
#define TESSERA_SERVER_TOURNAMENTS_H

#include "internal.h"

int tours_init(srv *s, char *err, size_t errcap);
/* Resume the stored tournaments (after the matches are restored). */
void tours_resume(srv *s);
void tours_shutdown(srv *s);
/* Close the tournaments' store (after the loop has drained, before the journal). */
void tours_free(srv *s);
void handle_tournament(conn *c, const proto_msg *m);
/* A match of a tournament finished (called from the match's finish). */
void tours_match_finished(match *m);
/* Something that may let a tournament start games changed (a registered
 * bot connected, a program ended). */
void tours_poke(srv *s);
void tours_conn_closed(conn *c);
/* The tournaments held, counted by state: names[i] is state i's name;
 * returns the number of states (at most cap). */
int tours_by_state(const srv *s, const char **names, int *counts, int cap);
/* {"tournament": id, "game": n} for a match's summary (new ref), or NULL. */
json_t *tours_match_tag(const match *m);

/* A tournament another module runs (courses.c): `game` is called as each
 * of its games ends, with the match still held (its record can be read)
 * and the participant in each seat; `done` once it is over (not when
 * cancelled). Hooks live in
 * memory only: after a restart the tournament resumes without them. */
struct tour_result;
struct tour;
typedef struct tours_hooks {
    void (*game)(void *ctx, int64_t user, int64_t tour, int64_t game, match *m, const int *table,
                 const struct tour_result *r);
    void (*done)(void *ctx, int64_t user, int64_t tour, const struct tour *t); /* t: standings */
    void *ctx;
    int64_t user;
} tours_hooks;
/* Create the tournament of a create_tournament message m (as the admin)
 * and start it, with hooks h. 0 with its id, or a negative code with err. */
int tours_create_started(srv *s, const proto_msg *m, const tours_hooks *h, int64_t *id,
                         char *err, size_t errcap);
/* Cancel tournament id (its hooks are dropped first): pending games void,
 * running ones finish. Nothing when it is unknown or over. */
void tours_cancel_id(srv *s, int64_t id);
/* Tournament id's state ("created", "running", "paused", "cancelled",
 * "done") and *note (why it paused itself, or ""), or NULL when the server
 * holds no such tournament. */
const char *tours_state_of(srv *s, int64_t id, const char **note);

/* Several servers on one database (cluster.c). The owner of tournament id,
 * into name: 1, 0 when there is none, -1 on an error. */
int tours_owner(srv *s, int64_t id, char *name, size_t cap);
/* Within the caller's transaction: the unfinished tournaments of dead
 * server `dead` become this server's. 0, or -1. */
int tours_claim(srv *s, const char *dead);
/* Load and resume the tournaments this server owns that it does not hold
 * (after tours_claim and the matches' restore). */
void tours_take_over(srv *s);
/* Store the summaries of the tournaments held that changed, for the other
 * servers' lists (PostgreSQL; the cluster's tick). */
void tours_write_summaries(srv *s);

#endif
