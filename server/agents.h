/*
 * agents.h — in-process bots' searches on the libuv thread pool (agents.c):
 * at most one per match, on its own copy of the state; the result comes
 * back on the loop thread to the function the match gave.
 */
#ifndef TESSERA_SERVER_AGENTS_H
#define TESSERA_SERVER_AGENTS_H

#include "internal.h"

/* What a search came back with. */
typedef struct agent_result {
    int seat;              /* the seat whose bot searched */
    const eng_move *moves; /* the turn it chose (valid during the call) */
    int n;
    const bot_stats *stats;
    uint64_t finished_at; /* when the search ended, loop ms (uv_hrtime's clock): maybe
                             well before a busy loop got to it */
    bool cancelled;       /* it was cancelled (or never ran): no turn */
} agent_result;
/* Called on the loop thread when a search returns, cancelled or not (m->job
 * is NULL again); it may free m. */
typedef void (*agent_done_fn)(match *m, const agent_result *r);

/* Start a search for seat `seat` of m with a budget of time_ms; its result
 * goes to on_done. 0, or ENG_ENOMEM / ENG_EINTERNAL (nothing started). */
int agent_start(match *m, int seat, int64_t time_ms, agent_done_fn on_done);
/* Ask a running search to stop now and deliver its best move so far. */
void agent_stop(match *m);
/* Ask a running search to stop; its result comes back cancelled. */
void agent_cancel(match *m);

#endif
