/*
 * match_clock.h — a match's clocks and its timeout policies: how much time
 * a seat has, what a turn costs it, when the match's one timer must fire
 * next and what is due when it does.
 *
 * Pure policy over the match's fields: nothing here sends, journals or
 * plays a move. match.c owns the timer and acts on what these functions
 * say (a random move, a forfeit, a grace period, a retry). Loop thread only.
 */
#ifndef TESSERA_SERVER_MATCH_CLOCK_H
#define TESSERA_SERVER_MATCH_CLOCK_H

#include "internal.h"

/* The seat's allowance for one turn before its bank is drawn on: the time
 * control's first_move_ms for its first turn, move_ms after. */
int64_t match_clock_allowance(const match *m, const seat_t *t);

#endif
