/*
 * match_clock.c — the time control and the timeout policies of a match
 * (docs/protocol.md, "Time control" and "Policies"): allowances, banks,
 * increments and the grace bank, the timer's next deadline, and what the
 * timeout and disconnect policies call for when it fires.
 *
 * Decisions only: match.c acts on them (match_clock.h).
 */
#include "match_clock.h"

int64_t match_clock_allowance(const match *m, const seat_t *t)
{
    return t->moves == 0 ? m->tc.first_move_ms : m->tc.move_ms;
}

int64_t match_clock_turn_time(const match *m, const seat_t *t)
{
    return match_clock_allowance(m, t) + t->bank_ms;
}

void match_clock_charge(const match *m, seat_t *t, int64_t used, match_clock_undo *undo)
{
    *undo = (match_clock_undo){t->bank_ms, t->grace_ms, used, t->in_grace};
    int64_t over = used - match_clock_allowance(m, t);
    if (over > 0) {
        int64_t from_bank = over < t->bank_ms ? over : t->bank_ms;
        t->bank_ms -= from_bank;
        over -= from_bank;
        if (over > 0)
            t->grace_ms = over < t->grace_ms ? t->grace_ms - over : 0;
    }
    t->in_grace = false;
    t->bank_ms += m->tc.increment_ms;
    t->moves++;
    t->used_ms += used;
}

void match_clock_uncharge(seat_t *t, const match_clock_undo *undo)
{
    t->moves--;
    t->used_ms -= undo->used;
    t->bank_ms = undo->bank_ms;
    t->grace_ms = undo->grace_ms;
    t->in_grace = undo->in_grace;
}

int64_t match_clock_left(const match *m, uint64_t now)
{
    if (m->clock_hold) /* not started: the whole turn's time */
        return (int64_t)(m->deadline - m->turn_started);
    return m->deadline > now ? (int64_t)(m->deadline - now) : 0;
}

uint64_t match_clock_next(const match *m, uint64_t now)
{
    uint64_t next = UINT64_MAX;
    if (m->finish_reason) /* only the result's journaling is left to do */
        return m->retry_at;
    if (m->to_move >= 0)
        next = m->storage_retry ? m->retry_at : m->clock_hold ? UINT64_MAX : m->deadline;
    for (int i = 0; i < m->nseats; i++) {
        const seat_t *t = &m->seats[i];
        if (t->gone_since && !t->takeover && m->status == MATCH_LIVE) {
            uint64_t end = t->gone_since + (uint64_t)m->pol.reconnect_grace_ms;
            if (end < next)
                next = end;
        }
    }
    if (m->to_move < 0 && m->status == MATCH_LIVE && m->g->current_player(m->st) == ENG_CHANCE &&
        now + SRV_STORAGE_RETRY_MS < next)
        next = now + SRV_STORAGE_RETRY_MS; /* a draw that could not be journaled: retry */
    return next;
}

int match_clock_due(match *m, uint64_t now, int *seat)
{
    if (m->closing || m->status == MATCH_FINISHED)
        return DUE_NONE;
    if (m->finish_reason)
        return now < m->retry_at ? DUE_WAIT : DUE_FINISH;
    if (m->status != MATCH_LIVE)
        return DUE_NONE;
    for (int i = 0; i < m->nseats; i++) {
        seat_t *t = &m->seats[i];
        if (!t->gone_since || t->takeover ||
            now < t->gone_since + (uint64_t)m->pol.reconnect_grace_ms)
            continue;
        srv_log(LOG_INFO, "reconnect_grace_over", "{s:s, s:i, s:s}", "match", m->id, "seat", i,
                "policy", proto_disconnect_name(m->pol.disconnect));
        *seat = i;
        if (m->pol.disconnect != PROTO_DISCONNECT_RANDOM)
            return DUE_DISCONNECT;
        t->takeover = true;
        if (m->to_move == i)
            return DUE_TAKEOVER;
    }
    if (m->to_move >= 0 && m->storage_retry) {
        *seat = m->to_move;
        return now < m->retry_at ? DUE_WAIT : DUE_RETRY;
    }
    if (m->to_move >= 0 && !m->clock_hold && now >= m->deadline) {
        seat_t *t = &m->seats[m->to_move];
        *seat = m->to_move;
        if (m->job && t->kind == SEAT_BOT && !t->bot_stopping) {
            /* our own search overran (a starved thread): stop it and take
             * its best move if it comes within the grace */
            t->bot_stopping = true;
            srv_log(LOG_WARN, "bot_overran", "{s:s, s:i}", "match", m->id, "seat", m->to_move);
            m->deadline = now + SRV_BOT_STOP_GRACE_MS;
            return DUE_STOP_BOT;
        }
        if (t->kind == SEAT_PROGRAM && t->prog_asked && !t->bot_stopping) {
            /* the worker enforces the deadline itself and answers
             * time_limit with the program's stderr: wait a moment for it */
            t->bot_stopping = true;
            m->deadline = now + SRV_PROG_VERDICT_GRACE_MS;
            return DUE_WAIT;
        }
        return DUE_TIMEOUT;
    }
    return m->to_move < 0 ? DUE_ADVANCE : DUE_WAIT;
}

int match_clock_on_timeout(match *m, int p, uint64_t now)
{
    seat_t *t = &m->seats[p];
    switch (m->pol.timeout) {
    case PROTO_TIMEOUT_RANDOM: return TIMEOUT_RANDOM;
    case PROTO_TIMEOUT_GRACE:
        if (t->grace_ms > 0 && !t->in_grace) {
            /* draw on the one-off grace bank; what is used is charged when
             * the move comes, and when it runs out too the seat forfeits */
            m->deadline += (uint64_t)t->grace_ms;
            t->in_grace = true;
            if (t->kind == SEAT_PROGRAM) {
                /* its verdict came after the deadline: the grace counts from now */
                m->deadline = now + (uint64_t)t->grace_ms;
                t->bot_stopping = false;
            }
            return TIMEOUT_GRACE;
        }
        t->grace_ms = 0;
        return TIMEOUT_FORFEIT; /* grace spent */
    default: return TIMEOUT_FORFEIT;
    }
}
