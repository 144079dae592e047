/*
 * match_views.h — what a match looks like from outside: the JSON and the
 * message texts built from a match's state, for everyone who reads them
 * (the lobby's list, a table's joined/resumed/spectating view, the turn's
 * update, a seat's your_turn, a record's seats).
 *
 * Views read the match; the only thing they change is the match's caches
 * of the public state (built once per position: the update and the next
 * your_turn of a turn share them) and the server's reusable text buffers.
 * Which connection gets which text is the table's business (table.h); when
 * anything is sent is the match's (match.c). Loop thread only.
 */
#ifndef TESSERA_SERVER_MATCH_VIEWS_H
#define TESSERA_SERVER_MATCH_VIEWS_H

#include "internal.h"

/* "waiting", "live" or "finished". */
const char *match_status_name(int status);

/* Summary for list_matches (new reference). */
json_t *match_summary(const match *m);
/* The whole table view sent as joined/resumed/spectating (`type`), with the
 * seat's resume token when seat >= 0, echoing id (new reference). */
json_t *match_table_view(const match *m, const char *type, int seat, const char *resume,
                         const json_t *id);
/* Seats view: kind, name, connected (new reference). */
json_t *match_seats_json(const match *m);
/* Clock view per seat (new reference). */
json_t *match_clocks(const match *m);
/* The clocks read at loop time now and epoch time epoch (read together: the
 * epoch deadline is the loop deadline); `next` >= 0 names the seat about to
 * be asked, shown with its whole allowance (new reference). */
json_t *match_view_clocks_at(const match *m, int next, uint64_t now, int64_t epoch);
/* The same, read now. */
json_t *match_view_clocks(const match *m, int next);
/* The scores now, rounded, one per seat (new reference). */
json_t *match_view_scores(const match *m);

/* The public state, built once per position (new reference). */
json_t *match_view_state(match *m);

/* What a protocol 2 connection is told of the state in an update or a
 * your_turn: nothing when it has the state now, the change when it has the
 * announced state, else the whole state (protocol 1: always the state). */
enum { TELL_NOTHING, TELL_CHANGE, TELL_STATE };
/* Which of those a connection that knows the state at `known_at` moves
 * (-1: none) is told now. */
int match_view_what_to_tell(const match *m, int known_at);

/* The texts of a turn's update, each written when first needed. */
typedef struct match_update_texts {
    const json_t *msg; /* the update without state or change (borrowed) */
    const textbuf *v1;  /* with "state" (protocol 1, or protocol 2 whose state is unknown) */
    const textbuf *v2;  /* with "change" */
} match_update_texts;
/* The update's text for a connection told `tell` (a server buffer, valid
 * until the next message is composed; check ->failed). */
const textbuf *match_view_update_text(match *m, match_update_texts *u, int tell);
/* The update just sent is the state protocol 2's next changes start from. */
void match_view_announced(match *m);
/* The text of seat's your_turn (a server buffer, as above): its legal moves
 * (compact for protocol 2 when the codec has them), its time left and
 * deadline from the clocks read at now/epoch, and the state as `tell` says. */
const textbuf *match_view_your_turn_text(match *m, int seat, bool v2, int tell, uint64_t now,
                                        int64_t epoch);
/* Write msg (borrowed; NULL fails) into the server's message buffer. */
const textbuf *match_view_text(match *m, const json_t *msg);
/* The name of finish reason i (SRV_REASONS, /metrics), and the index of a
 * reason's name (the last, "other", for one not listed). */
const char *match_reason_name(int i);
int match_reason_index(const char *reason);
/* Forget the state caches of m (it finished or goes away). */
void match_view_forget(match *m);

#endif
