/*
 * match_clock.h — a match's clocks and its timeout policies: how much time
 * a seat has, what a turn costs it, when the match's one timer must fire
 * next and what is due when it does.
 *
 * Policy over the match's clock fields only: nothing here sends, journals
 * or plays a move. The three readings are inline here (match_views.c reads
 * them too); the rest is implemented in match.c ("the clock"), which owns the
 * timer and acts on what these functions say (a random move, a forfeit, a
 * grace period, a retry); match_views.c reads the time left. Loop thread only.
 */
#ifndef TESSERA_SERVER_MATCH_CLOCK_H
#define TESSERA_SERVER_MATCH_CLOCK_H

#include "internal.h"

/* The seat's allowance for one turn before its bank is drawn on: the time
 * control's first_move_ms for its first turn, move_ms after. */
static inline int64_t match_clock_allowance(const match *m, const seat_t *t)
{
    return t->moves == 0 ? m->tc.first_move_ms : m->tc.move_ms;
}
/* The time a seat has for the turn it is asked now: allowance plus bank. */
static inline int64_t match_clock_turn_time(const match *m, const seat_t *t)
{
    return match_clock_allowance(m, t) + t->bank_ms;
}

/* A seat's clock before a turn was charged, to undo the charge when the
 * turn cannot be journaled. */
typedef struct match_clock_undo {
    int64_t bank_ms, grace_ms, used;
    bool in_grace;
} match_clock_undo;
/* Charge seat t for a turn that took `used` ms: time beyond the allowance
 * comes from the bank, then from the grace bank; the increment is added;
 * the seat's moves and used time count it. */
void match_clock_charge(const match *m, seat_t *t, int64_t used, match_clock_undo *undo);
void match_clock_uncharge(seat_t *t, const match_clock_undo *undo);

/* The time the seat to move has left at loop time now: until its deadline,
 * or, while its your_turn is held by the journal (m->clock_hold: its clock
 * has not started), the whole turn's time. */
static inline int64_t match_clock_left(const match *m, uint64_t now)
{
    if (m->clock_hold) /* not started: the whole turn's time */
        return (int64_t)(m->deadline - m->turn_started);
    return m->deadline > now ? (int64_t)(m->deadline - now) : 0;
}

/* When the match's timer must fire next (loop ms), or UINT64_MAX: the
 * seat's deadline or the storage retry, a reconnect grace's end, a draw or
 * a result the journal could not take yet. A seat whose your_turn the
 * journal holds has no deadline yet. */
uint64_t match_clock_next(const match *m, uint64_t now);

/* What is due when the timer fires at `now` (match_clock_due). */
enum match_due {
    DUE_NONE,       /* nothing (the match is over or closing) */
    DUE_WAIT,       /* nothing yet: arm the timer again */
    DUE_FINISH,     /* journal the result again (m->finish_reason) */
    DUE_TAKEOVER,   /* *seat's reconnect grace ended; the server plays for it, and it is to move */
    DUE_DISCONNECT, /* *seat's reconnect grace ended: it forfeits */
    DUE_RETRY,      /* the turn m->storage_retry names is due again for *seat */
    DUE_STOP_BOT,   /* *seat's search overran: stop it (its best move counts within a grace) */
    DUE_TIMEOUT,    /* the seat to move ran out of time: match_clock_on_timeout */
    DUE_ADVANCE,    /* no seat is asked: go on (a draw that could not be journaled) */
};
/* Decide what the timer's firing calls for. Along the way it marks seats
 * whose reconnect grace ended under the random policy as taken over, and
 * gives an overrunning search or program its grace (deadline moved). */
int match_clock_due(match *m, uint64_t now, int *seat);

/* What the timeout policy does with the seat to move, out of time. */
enum match_timeout_act {
    TIMEOUT_RANDOM,  /* the server plays a random turn for it */
    TIMEOUT_GRACE,   /* it draws on its grace bank: the deadline was moved; ask again */
    TIMEOUT_FORFEIT, /* it forfeits */
};
/* Apply the timeout policy to seat p's clock at loop time now. */
int match_clock_on_timeout(match *m, int p, uint64_t now);

#endif
