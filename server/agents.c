/*
 * agents.c — in-process bots: one search at a time per match, on the libuv
 * thread pool, never on the loop thread.
 *
 * The worker gets its own copy of the state and the seat's bot (no one else
 * touches that bot while the search runs) and chooses the seat's whole turn
 * (bot_choose_turn: Carcassonne's placement, then meeple). It stops at
 * its budget — the bot's own sims=/ms=, capped by the time the seat has
 * left minus a safety margin — or when the loop raises its stop flag
 * (timeout policy, resignation, shutdown). Its result comes back on the loop
 * thread through uv_queue_work's completion callback, handed to the
 * function the match gave (agents.c knows nothing of what the match does
 * with it; a cancelled search says so). At log level debug every search is logged
 * (`bot_search`): the seat's allowance, the time it waited for a worker,
 * the budget its first decision got, and what it took.
 */
#include <stdlib.h>
#include <string.h>

#include "agents.h"
#include "internal.h"
#include "players/player.h"
#include "protocol/info.h"
#include "thinking.h"

/* A search tells what it considers every 200 ms (bots/bot.h, bot_set_think):
 * what a viewer reads; a line's JSON costs well under 1% of a search. */
#define AGENT_THINK_EVERY_MS 200

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
    bot_turn t;                       /* the turn chosen */
    double started_ms;                /* when queued: waiting for a worker counts */
    /* what the debug log reports (worker writes, loop reads after done) */
    int turn;                         /* the turn it answers */
    int64_t allow_ms;                 /* the seat's time when asked */
    double waited_ms;                 /* from queued to running on a worker */
    bool cheat;                       /* test hook: answer with an illegal move */
    double finished_ms;               /* when the worker was done (bot_now_ms) */
    agent_done_fn on_done;            /* the match's: called on the loop thread */
    /* thinking lines (worker): the match they are about, and the turn's
     * position (st changes as the turn's decisions are applied) */
    char match_id[SRV_MATCH_ID_LEN + 1];
    const game_codec *codec;
    void *turn_st;
};

/* The bot's search as a checked info, to the match (thinking.c). A later
 * decision of the same turn (its position is not the turn's) is not told. */
static void agent_think(void *user, const bot_think *th)
{
    agent_job *j = user;
    if (!j->codec || memcmp(th->st, j->turn_st, j->g->state_size) != 0)
        return;
    json_t *raw = player_think_json(j->g, th), *info = NULL;
    char why[200];
    if (raw && info_read(j->g, j->codec, j->turn_st, raw, 0, &info, why, sizeof why) == 0)
        thinking_post(j->match_id, j->seat, j->turn, info);
    json_decref(info);
    json_decref(raw);
}

/* The first well-formed move the rules refuse here (test hook). */
static eng_move illegal_move(const eng_game *g, const void *st)
{
    eng_move m = 0;
    while (eng_is_legal(g, st, m))
        m++;
    return m;
}

static void work(uv_work_t *req)
{
    agent_job *j = req->data;
    j->waited_ms = bot_now_ms() - j->started_ms;
    /* the bot observes its own moves on the loop thread, with everyone's; an
     * illegal move ends the turn there: the loop thread rejects the turn and
     * plays a random one */
    if (j->cheat) {
        memset(&j->t, 0, sizeof j->t);
        j->t.moves[j->t.n++] = illegal_move(j->g, j->st);
        j->t.illegal = true;
    } else {
        bot_choose_turn(j->bot, j->st, j->started_ms + (double)j->ms, &j->stop, &j->t);
    }
    j->finished_ms = bot_now_ms();
}

static void done(uv_work_t *req, int status)
{
    (void)status;
    agent_job *j = req->data;
    match *m = j->m;
    m->srv->jobs--;
    m->job = NULL;
    /* bot_now_ms() and the loop's clock are both CLOCK_MONOTONIC in ms */
    uint64_t finished_at = (uint64_t)j->finished_ms;
    bool cancelled = j->cancelled || status == UV_ECANCELED;
    if (!cancelled && !m->closing && m->status != MATCH_FINISHED)
        srv_log(LOG_DEBUG, "bot_search", "{s:s, s:i, s:i, s:I, s:I, s:i, s:I, s:i, s:I, s:I}",
                "match", m->id, "seat", j->seat, "turn", j->turn, "allowance_ms",
                (json_int_t)j->allow_ms, "budget_ms", (json_int_t)j->ms, "waited_ms",
                (int)(j->waited_ms + 0.5), "first_budget_ms", (json_int_t)j->t.first_budget_ms,
                "search_ms", (int)(j->t.stats.ms + 0.5), "sims", (json_int_t)j->t.stats.sims,
                "noticed_after_ms", (json_int_t)(srv_now(m->srv) - finished_at));
    agent_result r = {j->seat, j->t.moves, j->t.n, &j->t.stats, finished_at, cancelled};
    bot_set_think(j->bot, NULL, NULL, 0);
    j->on_done(m, &r); /* may free m */
    free(j->st);
    free(j->turn_st);
    free(j);
}

int agent_start(match *m, int seat, int64_t time_ms, agent_done_fn on_done)
{
    agent_job *j = calloc(1, sizeof *j);
    if (!j)
        return ENG_ENOMEM;
    j->st = malloc(m->g->state_size);
    j->turn_st = malloc(m->g->state_size);
    if (!j->st || !j->turn_st) {
        free(j->st);
        free(j->turn_st);
        free(j);
        return ENG_ENOMEM;
    }
    memcpy(j->st, m->st, m->g->state_size);
    memcpy(j->turn_st, m->st, m->g->state_size);
    snprintf(j->match_id, sizeof j->match_id, "%s", m->id);
    j->codec = m->wire;
    j->m = m;
    j->seat = seat;
    j->bot = m->seats[seat].bot;
    j->g = m->g;
    j->ms = time_ms;
    j->on_done = on_done;
    j->started_ms = bot_now_ms(); /* the seat's clock runs while the search waits for a worker */
    j->turn = m->turns + 1;
    j->allow_ms = (int64_t)(m->deadline - m->turn_started);
    j->cheat = m->srv->test.bot_illegal_turn == j->turn;
    atomic_init(&j->stop, false);
    j->req.data = j;
    bot_set_think(j->bot, agent_think, j, AGENT_THINK_EVERY_MS);
    int rc = uv_queue_work(m->srv->loop, &j->req, work, done);
    if (rc) {
        bot_set_think(j->bot, NULL, NULL, 0);
        free(j->st);
        free(j->turn_st);
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
