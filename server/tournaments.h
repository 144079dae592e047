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

#endif
