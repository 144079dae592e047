/*
 * table.h — who is at each match's table (table.c): the one owner of the
 * link between a match's seats and the connections that play them
 * (seat.conn, conn.subs) and of its spectators (match.spect), and the
 * server's match event sink (match.h), which tells them what happens.
 *
 * Handlers, the registry and tournaments seat and unseat connections only
 * through these functions; a match reads seat.conn (is the seat connected?)
 * but never writes it. Loop thread only.
 */
#ifndef TESSERA_SERVER_TABLE_H
#define TESSERA_SERVER_TABLE_H

#include "internal.h"
#include "match.h"

/* The sink that tells each match's table (set as srv.sink by net_start). */
extern const match_sink table_sink;

/* Take seat `seat` of m for c: the previous holder, if any, is told
 * seat_taken and loses it (resume always wins); c is replied `type`
 * (joined/resumed) with the table view, echoing id (may be NULL:
 * unsolicited); then play starts or goes on. Seats of finished matches are
 * let go to make room (SRV_MAX_SEATS_PER_CONN); on any failure c gets an
 * error and nothing changes. resume: the resume token c presented (its
 * text, echoed in the reply), or NULL: a new one is made (the seat keeps
 * its hash only), replacing the seat's, and handed to c in the reply. */
void table_take_seat(conn *c, match *m, int seat, const char *type, const char *resume,
                     const json_t *id);
/* c watches m (the caller checked the limits), and is sent the table view
 * as `spectating`, echoing id; again: only the view again. */
void table_spectate(conn *c, match *m, const json_t *id);
/* c no longer watches m. */
void table_unspectate(conn *c, match *m);
/* The seats of kind SEAT_REMOTE whose registered bot is connected take
 * their seats (unsolicited `joined`); call once a new match is announced. */
void table_attach_remote(match *m);
/* c closed: its seats drop (their reconnect grace starts), what it watched
 * lets it go. */
void table_conn_closed(conn *c);

#endif
