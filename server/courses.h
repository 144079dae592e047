/*
 * courses.h — the course_* messages, handed to the classroom's course
 * service (courses.c hosts it; classroom/service.h; docs/classroom.md).
 */
#ifndef TESSERA_SERVER_COURSES_H
#define TESSERA_SERVER_COURSES_H

#include "internal.h"

/* Start the course service on this server (after the journal is loaded):
 * its tables, workers, and what a previous run left unplayed; not the
 * coordinator of a cluster: it only plays gates it claims, and becomes the
 * coordinator when called again with it. 0 or a negative code. */
int courses_start(srv *s, bool coordinator, char *err, size_t errcap);
/* Stop it (its running games are cut short and played again at the next
 * start); it is freed once its handles have closed. */
void courses_shutdown(srv *s);
/* A decoded course_* message (forwarded to the coordinator first when it
 * is another server: cluster_route). */
void courses_handle(conn *c, const proto_msg *m);
/* A connection closed: its uploads not submitted are removed. */
void courses_conn_closed(conn *c);
/* Does this server take course_* messages (courses_start succeeded)? */
bool courses_available(const srv *s);

#endif
