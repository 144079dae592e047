/*
 * sink.h — the event sink: how a match tells the people at its table what
 * happened (match.c, and its thinking lines, thinking.c), and what the
 * server's table (table.c) implements. A header of its own, below both the
 * match and the table: the events go up through it, and whoever emits one
 * needs only this, not the match's whole interface.
 */
#ifndef TESSERA_SERVER_SINK_H
#define TESSERA_SERVER_SINK_H

#include "internal.h"

/* What a match says, to whoever sits at or watches its table. The match
 * decides what happens and when; the sink decides who is told and how
 * (table.c: each connection once, in its protocol's form). Every function
 * is called on the loop thread, in the order the match's events happen —
 * a mover hears `move_accepted` before the turn's update, everyone hears
 * the update before the next your_turn — and none may call back into the
 * match. With no sink set (srv.sink NULL) a match tells no one.
 *
 * This is the boundary a broadcast across instances plugs into: a sink
 * that forwards turn/tell (each carries the match and a message that
 * stands on its own) to the instances holding that match's connections,
 * and your_turn to the one holding the seat's. */
typedef struct match_sink {
    /* A turn was played: `update` (borrowed) is its update message without
     * the state or change, which each connection gets in its own form. */
    void (*turn)(match *m, const json_t *update);
    /* Seat `seat` is asked to move: the connection playing it, if any, gets
     * your_turn. Returns whether one did (its wait_ms counts from then). */
    bool (*your_turn)(match *m, int seat);
    /* A message (borrowed) for everyone at the table: game_over, a notice. */
    void (*tell)(match *m, const json_t *msg);
    /* A message (JSON text, borrowed: written once by the caller) for the
     * table's spectators only, leaving out any connection that plays a seat
     * of the match: the seats' thinking lines (thinking.c). */
    void (*watchers)(match *m, const char *text, size_t len);
    /* A reply to the connection whose request the match is handling
     * (match_remote_move): a message (stolen), or an error. */
    void (*reply)(conn *to, json_t *msg);
    void (*error)(conn *to, int code, const char *message, const json_t *id);
    /* The match is going away: everyone at its table is let go. */
    void (*closing)(match *m);
} match_sink;

#endif
