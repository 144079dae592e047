/*
 * tournaments.h — the tournament messages, handed to the tournament service
 * (tournaments.c hosts it; tournament/service.h): games as ordinary matches.
 */
#ifndef TESSERA_SERVER_TOURNAMENTS_H
#define TESSERA_SERVER_TOURNAMENTS_H

#include "internal.h"
#include "tournament/service.h"

/* The service on the server's database (before the journal is loaded). 0
 * or a negative code. */
int tours_init(srv *s, char *err, size_t errcap);
/* Resume the stored tournaments (after the matches are restored). */
void tours_resume(srv *s);
/* Close every tournament and the timer (shutdown): nothing starts any more. */
void tours_shutdown(srv *s);
/* Free the service (after the loop has drained, before the journal). */
void tours_free(srv *s);
/* A tournament message (create, start, pause, cancel, list, watch,
 * unwatch, plots). */
void handle_tournament(conn *c, const proto_msg *m);
/* A match finished (srv.match_over): its end to the tournament it is a
 * game of, and seats that were busy may be free now. */
void tours_match_finished(srv *s, match *m);
/* Something that may let a tournament start games changed (a registered
 * bot connected, a program ended). */
void tours_poke(srv *s);
void tours_conn_closed(conn *c);
/* The tournaments held, counted by state: names[i] is state i's name;
 * returns the number of states (at most cap). */
int tours_by_state(const srv *s, const char **names, int *counts, int cap);

/* A tournament another service runs (courses.c for the classroom):
 * tsvc_create_started, tsvc_cancel, tsvc_state of the server's service. */
int tours_create_started(srv *s, const proto_msg *m, const tsvc_hooks *h, int64_t *id, char *err,
                         size_t errcap);
void tours_cancel_id(srv *s, int64_t id);
const char *tours_state_of(srv *s, int64_t id, const char **note);

/* Several servers on one database (cluster.h's hooks, set by server.c):
 * tsvc_owner, tsvc_claim, tsvc_take_over, tsvc_write_summaries. */
int tours_owner(srv *s, int64_t id, char *name, size_t cap);
int tours_claim(srv *s, const char *dead);
void tours_take_over(srv *s);
void tours_write_summaries(srv *s);

#endif
