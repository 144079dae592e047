/*
 * courses.h — the course_* messages and the courses' worker (courses.c;
 * docs/classroom.md).
 */
#ifndef TESSERA_SERVER_COURSES_H
#define TESSERA_SERVER_COURSES_H

#include "internal.h"

/* Create the class_ tables, start the worker, queue what a previous run
 * left unplayed (after the journal is loaded). 0 or a negative code. */
int courses_start(srv *s, char *err, size_t errcap);
/* Stop the worker (its running games are cut short and played again at the
 * next start) and close the handles. */
void courses_shutdown(srv *s);
/* A course_* message (docs/classroom.md): handled (true), or not a course
 * message (false). */
bool courses_handle(conn *c, const char *buf, size_t len);
/* Does this server take course_* messages (courses_start succeeded)? */
bool courses_available(const srv *s);

#endif
