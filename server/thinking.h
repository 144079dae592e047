/*
 * thinking.h — the seats' thinking lines at a match (issue 27; docs/protocol.md
 * "Thinking lines"): what a seat's player says while it is to move — an
 * in-process bot's search (agents.c), a program's info lines (programs.c),
 * a client's info messages (handlers.c) — told to the match's spectators as
 * its policies.info says (live, delayed, never), never to a connection that
 * plays a seat of the match while the game is on, and the last one of each
 * turn kept for the match's record and journaled with the turn's move.
 *
 * Infos from worker threads are already checked against the position they
 * are about (players/ and agents.c do it there, with their own copy) and
 * reach the loop through one queue (thinking_post); a client's is checked
 * here against the match's state. The spectators hear them through the
 * match sink's `watchers` (table.c), so this file calls no connection.
 */
#ifndef TESSERA_SERVER_THINKING_H
#define TESSERA_SERVER_THINKING_H

#include "internal.h"
#include "protocol/infotext.h"

/* The queue from the worker threads to the loop: one for the process,
 * opened on s's loop. 0, or ENG_EINTERNAL. find is how the queue's lines
 * find their match on the loop (server.c passes match_find): thinking.c
 * sits below match.c and never calls up into it. */
typedef match *(*thinking_find_fn)(srv *s, const char *id);
int thinking_init(srv *s, thinking_find_fn find);
/* Close it (shutdown): later posts are dropped. */
void thinking_shutdown(srv *s);

/* Any thread: seat's info about turn `turn` (records' numbering) of the
 * match `match_id`, canonical (protocol/info.h) and checked against that
 * turn's position; borrowed: its text is written here, on the caller's
 * thread. Dropped when the queue is closed. */
void thinking_post(const char *match_id, int seat, int turn, const json_t *info);

/* Loop thread: an info message a connection sent for `seat` of m, which it
 * plays (msg borrowed; the body is checked here, a bad one dropped and
 * counted). No reply in any case. */
void thinking_from_client(match *m, int seat, const proto_msg *msg);
/* The same for a message protocol/infotext.h read (p borrowed, and the text
 * it borrows): its moves checked once per text at the turn's position. */
void thinking_from_text(match *m, int seat, const info_parsed *p);
/* The line a move of seat carries (docs/protocol.md, "A move that carries
 * its line"), taken as an info message just before the move: plain, the
 * body infotext.h read off the move's text (borrowed), else msg->info read
 * the general way; a bad one is dropped and counted, never the move's
 * fault. */
void thinking_from_move(match *m, int seat, const proto_msg *msg, const info_parsed *plain);
/* Loop thread, as a your_turn is written: the codec's `legal` of the
 * position to move (borrowed) appended to out as jt_dump writes it (0, or
 * -1 when out ran out of memory), its entries' texts kept for the seat's
 * lines, whose candidates are found by their text (info_legal_dump; not
 * for a codec whose entries are not moves, nor a match without lines yet). */
int thinking_legal_dump(match *m, textbuf *out, const json_t *legal);
/* The same for a codec that writes its legal moves as text (legal_text):
 * no JSON array built. */
int thinking_legal_text(match *m, textbuf *out);

/* Loop thread, from play_turn before the turn is journaled: the record's
 * line of the turn being played (m->turns + 1) — its latest, compacted
 * once — as JSON text (owned by m, valid until its next line), or NULL when
 * it has none. The lines the workers queued until now are taken in first
 * (a bot's last word is posted before its move). Called again when the
 * journal refused the turn and it is played again. */
const char *thinking_turn_line(match *m);

/* Loop thread, from the sink's turn: the turn m->turns was played (its
 * update sent): the line held back goes to the spectators (delayed: the
 * turn's last; live: the latest the pace kept back). */
void thinking_turn_played(match *m);

/* A restore: turn's record line, as thinking_turn_line gave it to the
 * journal (text borrowed; copied). */
void thinking_restore_line(match *m, int turn, const char *text);

/* The line of each turn added to the record's turns as "info", once the
 * match is finished (turns without one have none). */
void thinking_add_to_record(const match *m, json_t *rec);

/* Free what m keeps (m->thinking). */
void thinking_free(match *m);

/* A client's line dropped before it was read (its connection's bucket). */
void thinking_dropped(void);

/* Counters for server_stats: lines passed on, dropped as bad; lines that
 * came inside a move (either way). */
void thinking_counts(uint64_t *passed, uint64_t *dropped, uint64_t *in_moves);

#endif
