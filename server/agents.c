/*
 * agents.c — in-process bots: one search at a time per match, on the libuv
 * thread pool, never on the loop thread.
 *
 * The worker gets its own copy of the state and the seat's bot (no one else
 * touches that bot while the search runs) and plays every consecutive
 * decision of the seat (Carcassonne: placement, then meeple). It stops at
 * its budget — the bot's own sims=/ms=, capped by the time the seat has
 * left minus a safety margin — or when the loop raises its stop flag
 * (timeout policy, resignation, shutdown). Its result comes back on the loop
 * thread through uv_queue_work's completion callback; a cancelled search's
 * result is dropped there.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct agent_job {
    uv_work_t req;
    match *m;                         /* owner (loop thread only) */
    int seat;
    bot *bot;                         /* used only by the worker while running */
    const eng_game *g;
    void *st;                         /* private copy of the state */
    int64_t ms;                       /* time budget */
    atomic_bool stop;
    bool cancelled;                   /* loop thread: drop the result */
    eng_move moves[WIRE_MAX_TURN_MOVES];
    int n;
    bot_stats stats;
    double started_ms;                /* when queued: waiting for a worker counts */
};

static void work(uv_work_t *req)
{
    agent_job *j = req->data;
    j->n = 0;
    memset(&j->stats, 0, sizeof j->stats);
    while (j->n < WIRE_MAX_TURN_MOVES && j->g->current_player(j->st) == j->seat) {
        double left = (double)j->ms - (bot_now_ms() - j->started_ms);
        bot_budget b = {.ms = left > 1 ? (int64_t)left : 1, .cap_only = true, .stop = &j->stop};
        bot_stats st;
        eng_move mv = bot_choose(j->bot, j->st, &b, &st);
        j->stats.sims += st.sims;
        j->stats.nodes += st.nodes;
        j->stats.ms += st.ms;
        /* the bot observes its own moves on the loop thread, with everyone's */
        j->moves[j->n++] = mv;
        if (!eng_is_legal(j->g, j->st, mv))
            break; /* the loop thread rejects the turn and plays a random one */
        j->g->apply(j->st, mv);
    }
}

static void done(uv_work_t *req, int status)
{
    (void)status;
    agent_job *j = req->data;
    match *m = j->m;
    m->srv->jobs--;
    m->job = NULL;
    if (m->closing) {
        match_free_after_job(m);
    } else if (m->status == MATCH_FINISHED) {
        match_release_bots(m); /* the search was the last user of its bot */
    } else if (j->cancelled || status == UV_ECANCELED) {
        match_advance(m); /* whatever waited for this bot to be free */
    } else {
        match_agent_done(m, j->seat, j->moves, j->n, &j->stats);
    }
    free(j->st);
    free(j);
}

int agent_start(match *m, int seat, int64_t time_ms)
{
    agent_job *j = calloc(1, sizeof *j);
    if (!j)
        return ENG_ENOMEM;
    j->st = malloc(m->g->state_size);
    if (!j->st) {
        free(j);
        return ENG_ENOMEM;
    }
    memcpy(j->st, m->st, m->g->state_size);
    j->m = m;
    j->seat = seat;
    j->bot = m->seats[seat].bot;
    j->g = m->g;
    j->ms = time_ms;
    j->started_ms = bot_now_ms(); /* the seat's clock runs while the search waits for a worker */
    atomic_init(&j->stop, false);
    j->req.data = j;
    int rc = uv_queue_work(m->srv->loop, &j->req, work, done);
    if (rc) {
        free(j->st);
        free(j);
        return ENG_EINTERNAL;
    }
    m->job = j;
    m->job_seat = seat;
    m->srv->jobs++;
    return 0;
}

void agent_stop(match *m)
{
    if (m->job && !m->job->cancelled)
        atomic_store(&m->job->stop, true); /* its best move so far still counts */
}

void agent_cancel(match *m)
{
    agent_job *j = m->job;
    if (!j || j->cancelled)
        return;
    j->cancelled = true;
    atomic_store(&j->stop, true);
    /* a search still queued (not started) can be taken back at once */
    uv_cancel((uv_req_t *)&j->req);
}
