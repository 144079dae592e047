/*
 * match_clock.c — the time control and the timeout policies of a match
 * (docs/protocol.md, "Time control" and "Policies"): allowances, banks,
 * increments and the grace bank, the timer's next deadline, and what the
 * timeout and disconnect policies call for when it fires.
 *
 * Decisions only: match.c acts on them.
 */
#include "match_clock.h"

int64_t match_clock_allowance(const match *m, const seat_t *t)
{
    return t->moves == 0 ? m->tc.first_move_ms : m->tc.move_ms;
}
