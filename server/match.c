/*
 * match.c — a match from its first turn to its result: seats, turns, the
 * journal, the policies' moves, and the events everyone at the table is
 * told of; freeing it.
 *
 * How a match comes into being (created or restored) is match_create.c's;
 * what a match looks like (JSON, message texts) is match_views.c's; who
 * hears an event, and in which form, is the sink's (match.h; table.c). How
 * much time a seat has and what its timer calls for is decided by the
 * clock's functions below (match_clock.h), and acted on by the rest.
 *
 * The flow of one turn:
 *   1. a chance event (Carcassonne's draw) is drawn from the match's secret
 *      seed (event k: eng_chance_draw(seed, k), so a restarted server draws
 *      the same), applied, and journaled; the seed's commitment is public
 *      from the start and the seed and nonce are revealed in game_over
 *      (docs/records.md, "Verifiable games");
 *   2. the seat to move is asked: a remote seat gets `your_turn`, an
 *      in-process bot gets a search on a worker thread; a one-shot timer is
 *      armed for the seat's absolute deadline;
 *   3. the seat's move (or the one a policy plays for it) is checked,
 *      journaled, applied; the clocks are charged;
 *   4. the turn is written in record form to the history and announced as
 *      `update` (the sink's turn), after the next draw so that everyone sees
 *      what comes next.
 * Journal first, announce second: a restarted server never un-says a move.
 */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents.h"
#include "internal.h"
#include "tokidx.h"
#include "match.h"
#include "match_clock.h"
#include "match_views.h"
#include "programs.h"
#include "thinking.h"
#include "journal/journal.h"
#include "players/player.h"
#include "protocol/record.h"

/* ---- the clock (match_clock.h) ----------------------------------------------------- */

/*
 * The time control and the timeout policies (docs/protocol.md, "Time
 * control" and "Policies"): allowances, banks, increments and the grace
 * bank, the timer's next deadline, and what the timeout and disconnect
 * policies call for when it fires. Decisions only, over the clock fields:
 * the state machine above acts on them. (Its own file until issue 31: a
 * move's path through server/ is the shorter for it being here.)
 */

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

/* ---- the turn's state machine ---------------------------------------------------- */

/*
 * A match is waiting (open seats not all joined), live, or finished, and
 * never goes back. While live, at most one seat is asked to move at a time
 * (to_move), and at most one search runs (job): a turn is asked (ask), its
 * moves journaled and applied (play_turn), announced (end_turn), and only
 * then is the next seat asked. A result not yet journaled (finish_reason)
 * leaves the match live, no seat asked, until the journal takes it.
 */
static void match_check(const match *m)
{
#ifndef NDEBUG
    assert(m->srv && m->g && m->wire && m->st && m->turn_start);
    assert(m->status >= MATCH_WAITING && m->status <= MATCH_FINISHED);
    assert(m->nseats >= m->g->min_players && m->nseats <= m->g->max_players);
    assert(m->to_move >= -1 && m->to_move < m->nseats);
    assert(m->to_move < 0 || m->status == MATCH_LIVE);
    assert(m->status != MATCH_FINISHED || (m->to_move < 0 && !m->finish_reason));
    assert(!m->finish_reason || m->to_move < 0);
    assert(!m->storage_retry || m->to_move >= 0);
    assert(!m->job || (m->job_seat >= 0 && m->job_seat < m->nseats));
    assert(m->nmoves >= 0 && (m->nmoves <= m->capmoves || !m->moves));
    assert(m->turn_first >= 0 && m->turn_first <= m->nmoves && m->turns <= m->nmoves);
    assert(m->chance_k <= (uint64_t)m->nmoves);
#else
    (void)m;
#endif
}

/* ---- helpers ------------------------------------------------------------------ */

match *match_find(srv *s, const char *id)
{
    for (match *m = s->matches; m; m = m->next)
        if (strcmp(m->id, id) == 0)
            return m;
    return NULL;
}

/* With no sink set, a match tells no one. */
static void quiet_turn(match *m, const json_t *update)
{
    (void)m, (void)update;
}
static bool quiet_your_turn(match *m, int seat)
{
    (void)m, (void)seat;
    return false;
}
static void quiet_reply(conn *to, json_t *msg)
{
    (void)to;
    json_decref(msg);
}
static void quiet_error(conn *to, int code, const char *message, const json_t *id)
{
    (void)to, (void)code, (void)message, (void)id;
}
static void quiet_match(match *m)
{
    (void)m;
}
static void quiet_text(match *m, const char *text, size_t len)
{
    (void)m, (void)text, (void)len;
}
static const match_sink quiet_sink = {quiet_turn,  quiet_your_turn, quiet_turn, quiet_text,
                                      quiet_reply, quiet_error,     quiet_match};

/* The sink that hears this match's events (match.h). */
static const match_sink *sink_of(const match *m)
{
    return m->srv->sink ? m->srv->sink : &quiet_sink;
}

/* Everyone at the table is told msg (steals the reference). */
static void tell_all(match *m, json_t *msg)
{
    if (msg)
        sink_of(m)->tell(m, msg);
    json_decref(msg);
}

/* Something the server must do itself in the match (draw, play a bot's or
 * a policy's move, record the result) could not be journaled: the match
 * waits until it can. Everyone at the table is told once, as an error
 * without id naming the match (docs/protocol.md, storage_error). */
static void storage_paused(match *m, const char *what)
{
    if (m->paused_told)
        return;
    m->paused_told = true;
    srv_log(LOG_WARN, "match_paused", "{s:s, s:s}", "match", m->id, "waits_to", what);
    json_t *e = proto_error(ENG_ESTORAGE,
                            "the server cannot write its journal now: this match is paused and "
                            "goes on by itself once it can",
                            NULL);
    json_object_set_new(e, "match", json_string(m->id));
    tell_all(m, e);
}

int match_spec_kind(const char *spec)
{
    if (strncmp(spec, "cmd:", 4) == 0 || strncmp(spec, "cmd-stateless:", 14) == 0)
        return SEAT_PROGRAM;
    if (strncmp(spec, "remote:", 7) == 0)
        return SEAT_REMOTE;
    return SEAT_BOT;
}

/* ---- the history: the record turns ------------------------------------------------ */

/* Append a turn in record form (borrowed; NULL: a turn the codec could not
 * write, kept as {} so that the turns keep their numbers). */
void match__history_add(match *m, const json_t *rec)
{
    if (rec)
        jt_dump(&m->history, rec);
    else
        tb_put(&m->history, "{}", 2);
    tb_put(&m->history, ",", 1);
}

/* ---- the journal of engine moves ----------------------------------------------- */

_Static_assert(MATCH_FINISHED == JOURNAL_FINISHED, "the journal reads finished matches");

/* The match's seats as the journal keeps them, into rows (ENG_MAX_PLAYERS):
 * status_changed when the status may differ from the one last written. */
journal_seats match__seats_row(const match *m, journal_seat *rows, bool status_changed)
{
    static const char *const kinds[] = {[SEAT_BOT] = "bot", [SEAT_OPEN] = "open",
                                        [SEAT_PROGRAM] = "program", [SEAT_REMOTE] = "remote"};
    for (int i = 0; i < m->nseats; i++) {
        const seat_t *t = &m->seats[i];
        rows[i] = (journal_seat){kinds[t->kind], t->name,     t->spec,     t->token,
                                 t->resume,      t->bank_ms,  t->grace_ms, t->used_ms,
                                 t->illegal,     t->moves,    t->joined,   t->takeover,
                                 t->resume[0] && !t->resume_indexed};
    }
    return (journal_seats){m->id, m->status, status_changed, m->nseats, rows};
}

/* The journal took the match's seats (and their new resume tokens) into
 * batch `batch` (seats: false for moves alone). */
static void journaled(match *m, uint64_t batch, bool seats)
{
    m->journal_batch = batch;
    if (!seats)
        return;
    m->journal_status = m->status + 1;
    for (int i = 0; i < m->nseats; i++)
        if (m->seats[i].resume[0])
            m->seats[i].resume_indexed = true;
}

/* Journal the seats' state (a join, an illegal move counted). */
static void journal_seats_now(match *m)
{
    journal_seat rows[ENG_MAX_PLAYERS];
    journal_seats js = match__seats_row(m, rows, true);
    uint64_t batch;
    if (m->srv->db && journal_update_seats(m->srv->db, &js, &batch) == 0)
        journaled(m, batch, true);
}

int match__push_move(match *m, eng_move mv)
{
    if (m->nmoves == m->capmoves) {
        int cap = m->capmoves ? m->capmoves * 2 : 64;
        eng_move *p = realloc(m->moves, (size_t)cap * sizeof *p);
        if (!p)
            return ENG_ENOMEM;
        m->moves = p;
        rec_time *t = realloc(m->times, (size_t)cap * sizeof *t);
        if (!t)
            return ENG_ENOMEM; /* moves grew: capmoves stays, the next call grows both */
        m->times = t;
        m->capmoves = cap;
    }
    m->times[m->nmoves] = (rec_time){-1, -1};
    m->moves[m->nmoves++] = mv;
    return 0;
}

/* Whole milliseconds from `since` to `now` (uv_hrtime() ns) for a turn's
 * wait_ms, capped at a day as records want; -1 when `since` is unknown. */
static int64_t wait_ms_since(uint64_t since, uint64_t now)
{
    if (!since || now < since)
        return -1;
    int64_t ms = (int64_t)((now - since + 500000) / 1000000);
    return ms > REC_TIME_MAX_MS ? REC_TIME_MAX_MS : ms;
}

/* Let every idle in-process bot of the match, and every program, see a
 * move before it is applied (reason: why the server chose it, or NULL). */
static void observe(match *m, eng_move mv, const char *reason)
{
    for (int i = 0; i < m->nseats; i++) {
        seat_t *t = &m->seats[i];
        if (t->bot && !(m->job && i == m->job_seat))
            bot_observe(t->bot, m->st, mv);
        if (t->prog)
            prog_observe(t->prog, m->st, mv, reason);
    }
}

/* Journal moves[from..nmoves) (with the turn's thinking line `info`, or
 * NULL), then apply them. On a storage failure the moves are dropped and the
 * state is untouched. */
static int commit_moves(match *m, int from, const char *by, const char *reason, const char *info)
{
    SRV_ASSERT(from >= 0 && from <= m->nmoves);
    int rc = 0;
    if (m->srv->db) {
        bool seats = !by || strcmp(by, "chance") != 0; /* a draw changes no seat */
        journal_seat rows[ENG_MAX_PLAYERS];
        journal_seats js = match__seats_row(m, rows, m->journal_status != m->status + 1);
        journal_moves mv = {m->id,           from, m->nmoves - from, m->moves + from,
                            m->times + from, info, by,               reason,
                            seats ? &js : NULL};
        uint64_t batch;
        if (!(rc = journal_append(m->srv->db, &mv, &batch)))
            journaled(m, batch, seats);
    }
    if (rc) {
        m->nmoves = from;
        return rc;
    }
    if (m->paused_told) {
        m->paused_told = false;
        srv_log(LOG_INFO, "match_resumed", "{s:s}", "match", m->id);
    }
    const char *why = by && strcmp(by, "server") == 0 ? (reason ? reason : "server") : NULL;
    for (int i = from; i < m->nmoves; i++) {
        observe(m, m->moves[i], why);
        m->g->apply(m->st, m->moves[i]);
    }
    return 0;
}

/* ---- result --------------------------------------------------------------------- */

/* Destroy the in-process bots of a finished match (none while a search
 * still runs one: then the search's completion calls this again). */
static void match_release_bots(match *m)
{
    if (m->job)
        return; /* a search still uses one: agents.c calls again when it returns */
    for (int i = 0; i < m->nseats; i++)
        if (m->seats[i].bot) {
            bot_destroy(m->seats[i].bot);
            m->seats[i].bot = NULL;
            m->srv->bots--;
        }
}

/* End the match. verdict (may be NULL) names a program's fault that ended
 * it (players/player.h verdict names); it goes into the result. */
static void arm_timer(match *m);

static void finish_ex(match *m, const char *reason, int faulty, const char *detail,
                      const char *verdict)
{
    assert(reason && faulty >= -1 && faulty < m->nseats);
    match_check(m);
    if (m->status == MATCH_FINISHED)
        return;
    agent_cancel(m);
    uv_timer_stop(&m->timer);
    const int status0 = m->status;
    m->status = MATCH_FINISHED;
    m->to_move = -1;
    m->finished_ms = srv_epoch_ms();
    double sc[ENG_MAX_PLAYERS];
    m->g->scores(m->st, sc);
    for (int i = 0; i < m->nseats; i++)
        m->final_scores[i] = sc[i];

    /* ranking: by score, a faulty seat last */
    int order[ENG_MAX_PLAYERS];
    for (int i = 0; i < m->nseats; i++)
        order[i] = i;
    for (int i = 1; i < m->nseats; i++)
        for (int j = i; j > 0; j--) {
            int a = order[j - 1], b = order[j];
            bool b_first =
                (a == faulty && b != faulty) || (a != faulty && b != faulty && sc[b] > sc[a]);
            if (!b_first)
                break;
            order[j - 1] = b;
            order[j] = a;
        }
    json_t *ranking = json_array(), *winners = json_array();
    for (int i = 0; i < m->nseats; i++)
        json_array_append_new(ranking, json_integer(order[i]));
    double best = -INFINITY;
    for (int i = 0; i < m->nseats; i++)
        if (i != faulty && sc[i] > best)
            best = sc[i];
    for (int i = 0; i < m->nseats && strcmp(reason, "expired") != 0; i++)
        if (i != faulty && sc[i] == best)
            json_array_append_new(winners, json_integer(i));
    json_decref(m->result);
    m->result = json_pack("{s:s, s:o, s:o, s:o}", "reason", reason, "winners", winners, "ranking",
                          ranking, "scores", match_view_scores(m));
    if (faulty >= 0)
        json_object_set_new(m->result, "seat", json_integer(faulty));
    if (detail)
        json_object_set_new(m->result, "detail", json_string(detail));
    if (verdict)
        json_object_set_new(m->result, "verdict", json_string(verdict));
    int jrc = 0;
    if (m->srv->db) {
        journal_seat rows[ENG_MAX_PLAYERS];
        journal_seats js = match__seats_row(m, rows, true);
        char *res = json_dumps(m->result, JSON_COMPACT);
        uint64_t batch;
        jrc = res ? journal_finish(m->srv->db, &js, m->finished_ms, res, &batch) : ENG_ENOMEM;
        if (!jrc)
            journaled(m, batch, true);
        free(res);
    }
    if (jrc) {
        /* nothing is announced that the journal does not hold: the match
         * waits, finished but unannounced, and the finish is tried again */
        m->status = status0;
        m->to_move = -1;
        m->finished_ms = 0;
        if (m->finish_reason != reason) {
            char *copy = detail ? strdup(detail) : NULL;
            free(m->finish_detail);
            m->finish_detail = copy;
        }
        m->finish_reason = reason;
        m->finish_faulty = faulty;
        m->finish_verdict = verdict;
        m->retry_at = srv_now(m->srv) + SRV_STORAGE_RETRY_MS;
        storage_paused(m, "finish");
        arm_timer(m);
        return;
    }
    m->finish_reason = NULL;
    free(m->finish_detail);
    m->finish_detail = NULL;
    if (m->paused_told) {
        m->paused_told = false;
        srv_log(LOG_INFO, "match_resumed", "{s:s}", "match", m->id);
    }
    m->srv->cnt.finished[match_reason_index(reason)]++; /* /metrics, by reason */
    for (int i = 0; i < m->nseats; i++)
        if (m->seats[i].prog) /* told game_over, then ended; its log is stored */
            prog_finish(m->seats[i].prog, m->st, reason, faulty, detail);
    m->srv->nlive--;
    m->srv->nfinished++;
    m->srv->finished++;
    srv_log(LOG_INFO, "match_finished", "{s:s, s:s, s:O}", "match", m->id, "reason", reason,
            "scores", json_object_get(m->result, "scores"));

    json_t *msg = json_pack("{s:s, s:s, s:O, s:O, s:O}", "type", "game_over", "match", m->id,
                            "scores", json_object_get(m->result, "scores"), "ranking",
                            json_object_get(m->result, "ranking"), "result", m->result);
    /* the reveal: anyone can now check the commitment and every draw */
    if (msg && m->has_nonce) {
        char seed[CHANCE_SEED_TEXT], nonce[CHANCE_NONCE_HEX];
        snprintf(seed, sizeof seed, "%llu", (unsigned long long)m->seed);
        chance_nonce_hex(m->nonce, nonce);
        json_object_set_new(msg, "chance_seed", json_string(seed));
        json_object_set_new(msg, "chance_nonce", json_string(nonce));
    }
    tell_all(m, msg);
    /* a finished match needs no bot: its search memory (arena pages) goes now,
     * not when the match is evicted from memory much later */
    match_release_bots(m);
    /* nor the states kept for the next turn's messages */
    match_view_forget(m);
    if (m->srv->match_over) /* its result, if it is a tournament game; seats freed */
        m->srv->match_over(m->srv, m);

    match_trim_finished(m->srv, m);
    if (m->demo && m->srv->demo_over)
        m->srv->demo_over(m->srv);
}

void match_trim_finished(srv *s, const match *keep)
{
    /* keep a bounded number of finished matches in memory */
    if (s->nfinished <= s->finished_kept)
        return;
    match *oldest = NULL;
    for (match *x = s->matches; x; x = x->next)
        if (x->status == MATCH_FINISHED && x != keep && !x->closing)
            oldest = x; /* the list is newest first */
    if (oldest)
        match_close(oldest);
}

void match__finish(match *m, const char *reason, int faulty, const char *detail)
{
    finish_ex(m, reason, faulty, detail, NULL);
}

/* ---- turns ---------------------------------------------------------------------- */

/* The turn's update to everyone at the table (the sink writes each
 * connection's form); the next protocol 2 changes start from this state. */
static void broadcast_update(match *m, const json_t *msg)
{
    if (msg)
        sink_of(m)->turn(m, msg);
    match_view_announced(m);
}

static void advance(match *m);
static void agent_returned(match *m, const agent_result *r);

/* Announce what comes next: the next draw happens first (journaled), so
 * the update can tell everyone the chance outcome the next seat faces. */
static void end_turn(match *m, const char *by, const char *reason)
{
    SRV_ASSERT(m->to_move < 0 && m->turn_first < m->nmoves);
    /* the turn in record form */
    char err[256];
    json_t *record = wire_record_turn(m->g, m->turn_start, m->moves + m->turn_first,
                                      m->nmoves - m->turn_first, err, sizeof err);
    if (!record) {
        srv_log(LOG_ERROR, "record_failed", "{s:s, s:s}", "match", m->id, "reason", err);
        record = json_object();
    }
    match__history_add(m, record);
    m->turns++;
    m->turn_first = m->nmoves;
    memcpy(m->turn_start, m->st, m->g->state_size);

    /* draw for the next turn now, so `next` can name its outcome */
    bool discard = false;
    if (m->g->current_player(m->st) == ENG_CHANCE && m->status == MATCH_LIVE) {
        int from = m->nmoves;
        if (match__push_move(m, eng_chance_draw(m->g, m->st, m->seed, m->chance_k++)) == 0 &&
            commit_moves(m, from, "chance", NULL, NULL) == 0)
            discard = m->g->current_player(m->st) < 0; /* the outcome left nothing to decide */
    }

    /* the seat whose turn comes (also one whose draw left it nothing to
     * decide: it draws again), with the chance outcome it faces: from the
     * game, not read back from the public state's JSON (which a protocol 2
     * table never builds) */
    json_t *next = wire_next(m->g, m->st);
    int p = eng_turn_seat(m->g, m->st);
    json_t *msg =
        json_pack("{s:s, s:s, s:i, s:o, s:s, s:o, s:o, s:o}", "type", "update", "match", m->id,
                  "turn", m->turns, "record", record, "by", by ? by : "player", "scores",
                  match_view_scores(m), "next", next, "clocks", match_view_clocks(m, p));
    if (msg && reason)
        json_object_set_new(msg, "reason", json_string(reason));
    broadcast_update(m, msg);
    json_decref(msg);
    if (discard)
        end_turn(m, "server", codec_no_decision(m->wire));
}

/* A turn the server owes the seat to move (a policy's random move, an
 * in-process bot's move) could not be journaled: try again after
 * SRV_STORAGE_RETRY_MS, whatever the seat's deadline (the fault is ours). */
static void retry_later(match *m, const char *what)
{
    m->storage_retry = what;
    m->retry_at = srv_now(m->srv) + SRV_STORAGE_RETRY_MS;
    storage_paused(m, strcmp(what, "bot") == 0 ? "bot_move" : "policy_move");
    arm_timer(m);
}

/* Apply a seat's whole turn (checked moves), charge its clock, announce it.
 * `tm` (may be NULL: none) holds the turn's time figures, journaled with
 * its first move. `ack` (may be NULL) is sent once the turn is journaled,
 * before the turn's update — a mover hears "accepted" first (steals the
 * reference; dropped on failure). */
static int play_turn(match *m, int seat_no, const eng_move *mv, int n, const rec_time *tm,
                     const char *by, const char *reason, conn *ack_to, json_t *ack)
{
    /* only the seat asked plays a turn, and only in a live match */
    SRV_ASSERT(m->status == MATCH_LIVE && seat_no == m->to_move && !m->finish_reason);
    assert(n > 0 && n <= ENG_MAX_TURN_MOVES);
    match_check(m);
    seat_t *t = &m->seats[seat_no];
    uint64_t now = srv_now(m->srv);
    int from = m->nmoves;
    for (int i = 0; i < n; i++)
        if (match__push_move(m, mv[i])) {
            m->nmoves = from;
            json_decref(ack);
            return ENG_ENOMEM;
        }
    if (tm && n > 0) {
        m->times[from] = *tm;
        if (m->times[from].think_ms > REC_TIME_MAX_MS)
            m->times[from].think_ms = REC_TIME_MAX_MS;
    }
    /* the clock: time beyond the per-move allowance comes from the bank,
     * then from the grace bank (a takeover move costs nothing: it is instant);
     * all of it is undone when the turn cannot be journaled */
    match_clock_undo undo;
    match_clock_charge(m, t, (int64_t)(now - m->turn_started), &undo);
    m->srv->moves++;
    /* the record's thinking line of the turn, fixed now, journaled with it */
    int rc = commit_moves(m, from, by, reason, thinking_turn_line(m));
    if (rc) {
        match_clock_uncharge(t, &undo);
        m->srv->moves--;
        json_decref(ack);
        return rc;
    }
    if (ack)
        sink_of(m)->reply(ack_to, ack);
    m->to_move = -1;
    m->storage_retry = NULL;
    uv_timer_stop(&m->timer);
    end_turn(m, by, reason);
    return 0;
}

/* A program seat's outstanding turn is no longer wanted. */
static void prog_cancel(match *m, int seat_no)
{
    seat_t *t = &m->seats[seat_no];
    if (t->prog_asked)
        prog_stop(t->prog, t->prog_seq);
    t->prog_asked = false;
}

/* The server plays a uniformly random legal turn for a seat (policies). */
static void play_random(match *m, int seat_no, const char *reason)
{
    agent_cancel(m);
    prog_cancel(m, seat_no);
    eng_move mv[ENG_MAX_TURN_MOVES];
    unsigned char *tmp = malloc(m->g->state_size);
    if (!tmp)
        return;
    memcpy(tmp, m->st, m->g->state_size);
    eng_rng rng;
    eng_rng_seed_stream(&rng, m->seed ^ 0x5eed, (uint64_t)m->nmoves);
    int n = eng_random_turn(m->g, tmp, &rng, mv);
    free(tmp);
    srv_log(LOG_INFO, "random_move", "{s:s, s:i, s:s}", "match", m->id, "seat", seat_no, "reason",
            reason);
    if (play_turn(m, seat_no, mv, n, NULL, "server", reason, NULL, NULL) == 0)
        advance(m);
    else
        retry_later(m, reason);
}

/* The server's overhead for a remote move: its arrival to the next seat's
 * your_turn, ready to go. */
static void count_overhead(match *m)
{
    if (m->rx_ns) {
        uint64_t ns = uv_hrtime() - m->rx_ns;
        hist_add_ns(&m->srv->overhead, ns);
        phist_add(&m->srv->cnt.overhead, (double)ns / 1e9);
        m->rx_ns = 0;
    }
}

/* Tell the seat to move; false when no connection plays it now. */
static bool send_your_turn(match *m, int seat_no)
{
    if (!sink_of(m)->your_turn(m, seat_no))
        return false; /* no connection plays it now */
    if (!m->asked_ns)
        m->asked_ns = uv_hrtime(); /* a move's wait_ms counts from the first your_turn */
    count_overhead(m);
    return true;
}

/* What a message to the match's table queued now would wait for in the
 * journal (conn_send_text: the round's batch, or the match's own batch not
 * stored yet, under a fault); 0: nothing, it goes now. */
static uint64_t journal_holds(const match *m)
{
    journal *j = m->srv->db;
    if (!j)
        return 0;
    uint64_t hold = journal_hold(j), synced = journal_synced(j);
    if (m->journal_batch > synced && m->journal_batch > hold)
        hold = m->journal_batch;
    return hold > synced ? hold : 0;
}

/* Tell seat p, a connection's, that it is to move, and start its clock.
 * The clock starts when the your_turn is sent, not when the seat is asked
 * (issue 29): while the journal has not stored what the message follows
 * (the loop round's batch, a few ms; --durable: its sync; under a journal
 * fault, until the fault clears) the your_turn waits unwritten and the
 * clock with it (m->clock_hold), and match_clocks_released starts both:
 * no one loses on time because the server could not write, and the
 * deadline the message announces is the one the server keeps. */
static void held_add(match *m)
{
    srv *s = m->srv;
    m->in_held = true;
    m->held_prev = NULL;
    m->held_next = s->clock_held;
    if (s->clock_held)
        s->clock_held->held_prev = m;
    s->clock_held = m;
}

static void held_remove(match *m)
{
    if (!m->in_held)
        return;
    if (m->held_prev)
        m->held_prev->held_next = m->held_next;
    else
        m->srv->clock_held = m->held_next;
    if (m->held_next)
        m->held_next->held_prev = m->held_prev;
    m->in_held = false;
}

static void tell_turn(match *m, int p)
{
    uint64_t hold = journal_holds(m);
    if (hold) {
        m->clock_hold = hold;
        if (!m->in_held)
            held_add(m);
        count_overhead(m);
        arm_timer(m); /* reconnect graces still run */
        return;
    }
    uint64_t now = srv_now(m->srv);
    m->clock_hold = 0;
    m->turn_started = now;
    m->deadline = now + (uint64_t)match_clock_turn_time(m, &m->seats[p]);
    m->seats[p].in_grace = false;
    arm_timer(m);
    send_your_turn(m, p);
}

void match_clocks_released(srv *s)
{
    uint64_t synced = journal_synced(s->db);
    /* a match told again here goes back on the list's head, behind the walk */
    for (match *m = s->clock_held, *next; m; m = next) {
        next = m->held_next;
        if (m->clock_hold > synced)
            continue;
        held_remove(m);
        bool due = m->clock_hold != 0; /* 0: asked again since, its clock runs */
        m->clock_hold = 0;
        if (due && m->status == MATCH_LIVE && m->to_move >= 0 && !m->closing && !m->finish_reason)
            tell_turn(m, m->to_move);
    }
}

/* Ask a program seat's worker for the turn, by the match's deadline. */
static void ask_program(match *m, int p)
{
    seat_t *t = &m->seats[p];
    uint64_t now = srv_now(m->srv);
    double left = m->deadline > now ? (double)(m->deadline - now) : 0;
    t->prog_seq++;
    if (!m->asked_ns)
        m->asked_ns = uv_hrtime(); /* a retry of the same turn keeps counting from the first */
    if (!t->prog || prog_turn(t->prog, m->st, t->prog_seq, bot_now_ms() + left) != 0) {
        srv_log(LOG_ERROR, "program_unavailable", "{s:s, s:i}", "match", m->id, "seat", p);
        play_random(m, p, "internal");
        return;
    }
    t->prog_asked = true;
    arm_timer(m);
}

/* Ask the seat to move: arm its deadline, start its search or tell it. */
static void ask(match *m, int p)
{
    /* one seat asked at a time, no search running */
    SRV_ASSERT(m->status == MATCH_LIVE && m->to_move < 0 && !m->job && p >= 0 && p < m->nseats);
    match_check(m);
    seat_t *t = &m->seats[p];
    uint64_t now = srv_now(m->srv);
    m->to_move = p;
    m->storage_retry = NULL;
    m->turn_started = now;
    m->clock_hold = 0;
    m->asked_ns = 0; /* set as the seat is asked: its search, program or your_turn */
    m->turn_think_ms = 0;
    int64_t allow = match_clock_turn_time(m, t);
    m->deadline = now + (uint64_t)allow;
    t->in_grace = false;
    if (t->takeover) {
        play_random(m, p, "disconnect");
        return;
    }
    t->bot_stopping = false;
    if (t->kind == SEAT_BOT) {
        int64_t margin = allow / 20 > SRV_BOT_MARGIN_MS ? allow / 20 : SRV_BOT_MARGIN_MS;
        int64_t budget = allow - margin;
        m->asked_ns = uv_hrtime();
        if (agent_start(m, p, budget > 1 ? budget : 1, agent_returned) != 0) {
            play_random(m, p, "internal");
            return;
        }
        arm_timer(m);
        return;
    }
    if (t->kind == SEAT_PROGRAM) {
        ask_program(m, p);
        return;
    }
    tell_turn(m, p);
}

static void advance(match *m)
{
    match_check(m);
    while (m->status == MATCH_LIVE && !m->job && m->to_move < 0 && !m->finish_reason) {
        int p = m->g->current_player(m->st);
        if (p == ENG_TERMINAL) {
            match__finish(m, "normal", -1, NULL);
            return;
        }
        if (p == ENG_CHANCE) {
            /* only at the very start (or after a restore at a draw) */
            memcpy(m->turn_start, m->st, m->g->state_size);
            m->turn_first = m->nmoves;
            int from = m->nmoves;
            if (match__push_move(m, eng_chance_draw(m->g, m->st, m->seed, m->chance_k++)) ||
                commit_moves(m, from, "chance", NULL, NULL)) {
                storage_paused(m, "draw");
                arm_timer(m);
                return;
            }
            if (m->g->current_player(m->st) < 0)
                end_turn(m, "server", codec_no_decision(m->wire));
            continue;
        }
        ask(m, p);
        return;
    }
}

void match_advance(match *m)
{
    advance(m);
}

/* ---- the timer: deadlines and reconnect grace ------------------------------------ */

static void on_timer(uv_timer_t *h);

static void arm_timer(match *m)
{
    if (m->closing || m->status == MATCH_FINISHED)
        return;
    uint64_t now = srv_now(m->srv), next = match_clock_next(m, now);
    if (next == UINT64_MAX) {
        uv_timer_stop(&m->timer);
        return;
    }
    uv_timer_start(&m->timer, on_timer, next > now ? next - now : 0, 0);
}

/* The seat to move ran out of time: the timeout policy. why (may be NULL)
 * is a program's own account of it, verdict its name. */
static void timeout_v(match *m, const char *why, const char *verdict)
{
    int p = m->to_move;
    /* how late the loop noticed the deadline (deadline is in loop ms) */
    uint64_t now_us = uv_hrtime() / 1000, due_us = m->deadline * 1000;
    hist_add(&m->srv->timeout_late, now_us > due_us ? now_us - due_us : 0);
    phist_add(&m->srv->cnt.timeout_late, now_us > due_us ? (double)(now_us - due_us) / 1e6 : 0);
    seat_t *t = &m->seats[p];
    prog_cancel(m, p);
    char detail[400];
    if (why && why[0])
        snprintf(detail, sizeof detail, "seat %d did not move in time: %s", p, why);
    else
        snprintf(detail, sizeof detail, "seat %d did not move in time", p);
    srv_log(LOG_INFO, "timeout", "{s:s, s:i, s:s}", "match", m->id, "seat", p, "policy",
            proto_timeout_name(m->pol.timeout));
    switch (match_clock_on_timeout(m, p, srv_now(m->srv))) {
    case TIMEOUT_RANDOM: play_random(m, p, "timeout"); return;
    case TIMEOUT_GRACE:
        if (t->kind == SEAT_PROGRAM) {
            ask_program(m, p);
            return;
        }
        arm_timer(m);
        if (t->kind == SEAT_OPEN || t->kind == SEAT_REMOTE)
            send_your_turn(m, p);
        return;
    default: finish_ex(m, "timeout", p, detail, verdict); return;
    }
}

static void seat_out_of_time(match *m)
{
    /* A program seat whose worker has not answered by the deadline and the
     * grace after it (a starved thread, or the loop running this timer
     * before the answer's wake-up): the server judges the turn itself. Its
     * verdict is time_limit whatever the worker says later (that answer is
     * dropped); it was lost before (issue 30). */
    seat_t *t = &m->seats[m->to_move];
    if (t->kind == SEAT_PROGRAM && t->prog_asked) {
        const char *why = "no answer by the deadline (the server's clock)";
        prog_verdict(t->prog, player_verdict_name(PLAYER_TIME_LIMIT), why);
        timeout_v(m, why, player_verdict_name(PLAYER_TIME_LIMIT));
        return;
    }
    timeout_v(m, NULL, NULL);
}

static void on_timer(uv_timer_t *h)
{
    match *m = h->data;
    int p = -1;
    switch (match_clock_due(m, srv_now(m->srv), &p)) {
    case DUE_NONE: return;
    case DUE_WAIT: arm_timer(m); return;
    case DUE_FINISH: {
        /* the same finish again: its detail is ours now */
        char *detail = m->finish_detail;
        m->finish_detail = NULL;
        finish_ex(m, m->finish_reason, m->finish_faulty, detail, m->finish_verdict);
        if (m->finish_reason && !m->finish_detail)
            m->finish_detail = detail; /* still held: keep it for the next try */
        else
            free(detail);
        return;
    }
    case DUE_TAKEOVER: play_random(m, p, "disconnect"); return;
    case DUE_DISCONNECT: {
        char detail[128];
        snprintf(detail, sizeof detail, "seat %d left and did not come back in time", p);
        match__finish(m, "disconnect", p, detail);
        return;
    }
    case DUE_RETRY: {
        const char *what = m->storage_retry;
        m->storage_retry = NULL;
        if (strcmp(what, "bot") == 0) {
            m->to_move = -1;
            ask(m, p); /* a fresh search with a fresh clock */
        } else {
            play_random(m, p, what);
        }
        return;
    }
    case DUE_STOP_BOT:
        agent_stop(m);
        arm_timer(m);
        return;
    case DUE_TIMEOUT: seat_out_of_time(m); return;
    case DUE_ADVANCE:
        advance(m); /* a draw that could not be journaled */
        arm_timer(m);
        return;
    }
}

/* ---- events from connections and agents ------------------------------------------- */

bool match_seat_taken(match *m, int seat_no)
{
    assert(seat_no >= 0 && seat_no < m->nseats && m->status != MATCH_FINISHED);
    seat_t *t = &m->seats[seat_no];
    t->joined = true;
    t->gone_since = 0;
    t->takeover = false;
    bool start = false;
    if (m->status == MATCH_WAITING) {
        start = true;
        for (int i = 0; i < m->nseats; i++)
            if (m->seats[i].kind == SEAT_OPEN && !m->seats[i].joined)
                start = false;
        if (start) {
            m->status = MATCH_LIVE;
            /* a registered bot not connected now is away from the start */
            for (int i = 0; i < m->nseats; i++)
                if (m->seats[i].kind == SEAT_REMOTE && !m->seats[i].conn)
                    m->seats[i].gone_since = srv_now(m->srv);
        }
    }
    journal_seats_now(m);
    return start;
}

void match_seat_continue(match *m, int seat_no, bool start)
{
    if (start) {
        srv_log(LOG_INFO, "match_started", "{s:s}", "match", m->id);
        advance(m);
        return;
    }
    /* a your_turn held for the journal (clock_hold) goes to the seat's
     * connection when the batch is stored (match_clocks_released): told now
     * as well, the seat heard it twice */
    if (m->status == MATCH_LIVE && m->to_move == seat_no && !m->clock_hold)
        send_your_turn(m, seat_no);
    arm_timer(m);
}

void match_seat_dropped(match *m, int seat_no)
{
    seat_t *t = &m->seats[seat_no];
    if (m->status != MATCH_LIVE)
        return;
    t->gone_since = srv_now(m->srv);
    srv_log(LOG_INFO, "seat_dropped", "{s:s, s:i}", "match", m->id, "seat", seat_no);
    arm_timer(m);
}

bool match_remote_move(match *m, int seat_no, conn *c, const proto_msg *msg, uint64_t rx_ns)
{
    assert(c && msg && seat_no >= 0 && seat_no < m->nseats);
    match_check(m);
    seat_t *t = &m->seats[seat_no];
    const match_sink *out = sink_of(m);
    if (m->status == MATCH_FINISHED) {
        out->error(c, WIRE_EMATCH_OVER, "the match has already ended", msg->id);
        return false;
    }
    if (m->status == MATCH_WAITING) {
        out->error(c, WIRE_ENOT_YOUR_TURN, "the match waits for its open seats to be joined",
                   msg->id);
        return false;
    }
    if (m->finish_reason) {
        out->error(c, ENG_ESTORAGE,
                   "the match is over but its result is not journaled yet: wait for game_over",
                   msg->id);
        return false;
    }
    if (m->to_move != seat_no) {
        out->error(c, WIRE_ENOT_YOUR_TURN, "it is not this seat's turn", msg->id);
        return false;
    }
    if (m->storage_retry) {
        out->error(c, WIRE_ENOT_YOUR_TURN,
                   "the server plays this turn for the seat (its policy); wait for the update",
                   msg->id);
        return false;
    }
    /* A move that arrived after the deadline is late even if the deadline's
     * timer has not run yet (a busy loop runs timers after I/O). */
    uint64_t arrived = srv_now(m->srv);
    if (!m->clock_hold && arrived > m->deadline) {
        char e[96];
        snprintf(e, sizeof e, "the move arrived %llu ms after the deadline",
                 (unsigned long long)(arrived - m->deadline));
        out->error(c, WIRE_ENOT_YOUR_TURN, e, msg->id);
        seat_out_of_time(m);
        return false;
    }
    if (msg->has_turn && msg->turn != m->turns + 1) {
        char e[96];
        snprintf(e, sizeof e, "this is turn %d, not turn %lld", m->turns + 1, (long long)msg->turn);
        out->error(c, WIRE_ENOT_YOUR_TURN, e, msg->id);
        return false;
    }
    eng_move mv[ENG_MAX_TURN_MOVES];
    char err[256];
    int n = m->wire->parse_move(m->st, msg->move, mv, err, sizeof err);
    if (n == ENG_EBAD_MOVE) {
        out->error(c, ENG_EBAD_MOVE, err, msg->id);
        return false;
    }
    if (n < 0) {
        t->illegal++;
        out->error(c, ENG_EILLEGAL_MOVE, err, msg->id);
        srv_log(LOG_INFO, "illegal_move", "{s:s, s:i, s:s}", "match", m->id, "seat", seat_no,
                "reason", err);
        char detail[300];
        snprintf(detail, sizeof detail, "illegal move: %s", err);
        if (m->pol.illegal == PROTO_ILLEGAL_FORFEIT ||
            (m->pol.illegal == PROTO_ILLEGAL_REJECT && t->illegal >= m->pol.max_illegal))
            match__finish(m, "illegal", seat_no, detail);
        else if (m->pol.illegal == PROTO_ILLEGAL_RANDOM)
            play_random(m, seat_no, "illegal");
        else
            journal_seats_now(m);
        return false;
    }
    json_t *ok = proto_reply("move_accepted", msg->id);
    json_object_set_new(ok, "match", json_string(m->id));
    json_object_set_new(ok, "turn", json_integer(m->turns + 1));
    m->rx_ns = rx_ns;
    /* what the client says it thought, and what the server saw: its
     * your_turn to the move's arrival */
    rec_time tm = {msg->has_think_ms ? msg->think_ms : -1, wait_ms_since(m->asked_ns, rx_ns)};
    if (play_turn(m, seat_no, mv, n, &tm, "player", NULL, c, ok) != 0) {
        /* nothing of the move happened, and the seat does not pay for the
         * server's trouble: its clock restarts with the whole allowance, and
         * a fresh your_turn says so (docs/protocol.md, storage_error) */
        m->rx_ns = 0;
        m->asked_ns = 0; /* the fresh your_turn below */
        out->error(c, ENG_ESTORAGE,
                   "the server could not journal the move: nothing of it was played and the "
                   "seat's clock restarts; send a move again",
                   msg->id);
        tell_turn(m, seat_no);
        return false;
    }
    advance(m);
    m->rx_ns = 0; /* the next seat is not a remote one waiting now */
    return true;
}

/* Are mv[0..n) one whole legal turn of seat_no, the seat to move? */
static bool whole_turn(const match *m, int seat_no, const eng_move *mv, int n)
{
    unsigned char *tmp = malloc(m->g->state_size);
    bool ok = tmp && m->g->current_player(m->st) == seat_no &&
              eng_turn_check(m->g, m->st, mv, n, tmp, NULL, 0) == 0;
    free(tmp);
    return ok;
}

/* The result of an in-process search; finished_at: when the search ended,
 * in loop ms (uv_hrtime's clock), which may be well before this busy loop
 * got to it. */
static void agent_done(match *m, int seat_no, const eng_move *mv, int n, const bot_stats *st,
                       uint64_t finished_at)
{
    if (m->status != MATCH_LIVE || m->to_move != seat_no)
        return;
    /* Judged by when the search ended, not by when this loop (perhaps busy
     * or starved of CPU) got to its result; and a search that ended past
     * its deadline before the deadline's timer could stop it still has the
     * stop grace it would have had (already added once it was stopped). */
    uint64_t limit = m->deadline + (m->seats[seat_no].bot_stopping ? 0 : SRV_BOT_STOP_GRACE_MS);
    if (finished_at > limit) {
        seat_out_of_time(m); /* starved past even the stop grace */
        return;
    }
    srv_log(LOG_DEBUG, "bot_move", "{s:s, s:i, s:I, s:f}", "match", m->id, "seat", seat_no, "sims",
            (json_int_t)st->sims, "ms", st->ms);
    phist_add(&m->srv->cnt.think, st->ms / 1000.0);
    /* trust nothing, not even our own bots: the moves must form a legal turn */
    if (!whole_turn(m, seat_no, mv, n)) {
        srv_log(LOG_ERROR, "bot_bad_move", "{s:s, s:i}", "match", m->id, "seat", seat_no);
        play_random(m, seat_no, "illegal");
        return;
    }
    /* an in-process bot's own measure is its search's wall time */
    rec_time tm = {llround(st->ms), wait_ms_since(m->asked_ns, uv_hrtime())};
    if (play_turn(m, seat_no, mv, n, &tm, "player", NULL, NULL, NULL) != 0) {
        retry_later(m, "bot");
        return;
    }
    advance(m);
}

static void free_after_job(match *m);

/* A search came back (agents.h): its turn is played, or, cancelled, what
 * waited for the bot to be free goes on; a finished match lets its bots go
 * (the search was the last user), a closing one is freed. */
static void agent_returned(match *m, const agent_result *r)
{
    if (m->closing)
        free_after_job(m);
    else if (m->status == MATCH_FINISHED)
        match_release_bots(m);
    else if (r->cancelled)
        advance(m);
    else
        agent_done(m, r->seat, r->moves, r->n, r->stats, r->finished_at);
}

/* The part of a program's verdict detail everyone may read: its stderr
 * lines stay in the program's log, for the match's owner. */
static void public_detail(int seat_no, const char *verdict, const char *detail, char *out,
                          size_t cap)
{
    const char *cut = strstr(detail, "; stderr:");
    int n = cut ? (int)(cut - detail) : (int)strlen(detail);
    snprintf(out, cap, "seat %d: %s%s%.*s", seat_no, verdict, n ? ": " : "", n, detail);
}

/* The answer of a program seat's worker to turn `seq` (programs.h). */
void match__program_done(match *m, int seat_no, int seq, const player_result *r)
{
    seat_t *t = &m->seats[seat_no];
    if (m->status != MATCH_LIVE || m->to_move != seat_no || !t->prog_asked || seq != t->prog_seq)
        return; /* a turn no longer waited for */
    t->prog_asked = false;
    t->bot_stopping = false;
    m->turn_think_ms += r->cpu_ms; /* every call of the turn, retries included */
    const char *vname = player_verdict_name(r->verdict);
    char detail[400];
    public_detail(seat_no, vname, r->detail, detail, sizeof detail);
    if (r->verdict != PLAYER_OK)
        srv_log(LOG_INFO, "program_verdict", "{s:s, s:i, s:s, s:s}", "match", m->id, "seat",
                seat_no, "verdict", vname, "detail", r->detail);
    switch (r->verdict) {
    case PLAYER_OK: {
        /* the worker checked the turn against its own copy; check it again */
        if (!whole_turn(m, seat_no, r->moves, r->nmoves)) {
            srv_log(LOG_ERROR, "program_bad_turn", "{s:s, s:i}", "match", m->id, "seat", seat_no);
            play_random(m, seat_no, "illegal");
            return;
        }
        /* a program's own measure is its CPU time (docs/records.md, "Time") */
        rec_time tm = {llround(m->turn_think_ms), wait_ms_since(m->asked_ns, uv_hrtime())};
        if (play_turn(m, seat_no, r->moves, r->nmoves, &tm, "player", NULL, NULL, NULL) != 0) {
            arm_timer(m);
            return;
        }
        advance(m);
        return;
    }
    case PLAYER_TIME_LIMIT: timeout_v(m, r->detail, vname); return;
    case PLAYER_ILLEGAL_MOVE:
    case PLAYER_BAD_OUTPUT:
        t->illegal++;
        if (m->pol.illegal == PROTO_ILLEGAL_FORFEIT ||
            (m->pol.illegal == PROTO_ILLEGAL_REJECT && t->illegal >= m->pol.max_illegal))
            finish_ex(m, "illegal", seat_no, detail, vname);
        else if (m->pol.illegal == PROTO_ILLEGAL_RANDOM)
            play_random(m, seat_no, vname);
        else
            ask_program(m, seat_no); /* reject: the same turn again, told why */
        return;
    case PLAYER_RESIGNED: finish_ex(m, "resignation", seat_no, detail, vname); return;
    default:
        /* crashed, memory_limit, no_answer, output_flood, internal_error: the
         * program is gone for this turn, as a dropped connection is; it is
         * started again at its next turn (up to PLAYER_MAX_FAILURES a game) */
        if (m->pol.disconnect == PROTO_DISCONNECT_RANDOM)
            play_random(m, seat_no, vname);
        else
            finish_ex(m, "crash", seat_no, detail, vname);
        return;
    }
}

void match_expire(match *m)
{
    if (m->status != MATCH_WAITING || m->finish_reason)
        return;
    char detail[160];
    snprintf(detail, sizeof detail,
             "its open seats were not all joined within %d s of its creation",
             m->srv->cfg.waiting_expiry_s);
    srv_log(LOG_INFO, "match_expired", "{s:s, s:i}", "match", m->id, "after_s",
            m->srv->cfg.waiting_expiry_s);
    match__finish(m, "expired", -1, detail);
}

void match_resign(match *m, int seat_no)
{
    if (m->finish_reason)
        return; /* it is over already, waiting for the journal */
    char detail[64];
    snprintf(detail, sizeof detail, "seat %d resigned", seat_no);
    match__finish(m, "resignation", seat_no, detail);
}

/* ---- freeing --------------------------------------------------- */

static void free_match(match *m)
{
    thinking_free(m);
    tokidx_remove_match(m->srv, m);
    free(m->finish_detail);
    match_release_bots(m);
    free(m->st);
    free(m->turn_start);
    free(m->moves);
    free(m->times);
    free(m->spect);
    tb_free(&m->history);
    json_decref(m->result);
    json_decref(m->state_cache);
    json_decref(m->ann_state);
    free(m->ann_st);
    free(m);
}

/* A closing match is freed by whichever comes last: its timer's close
 * callback or the return of its search. (uv_is_closing() is true from
 * uv_close() on, before libuv is done with the handle: not the test.) */
static void on_timer_closed(uv_handle_t *h)
{
    match *m = h->data;
    m->timer_closed = true;
    if (m->job)
        return; /* the search's completion frees the match */
    free_match(m);
}

void match_close(match *m)
{
    if (m->closing)
        return;
    m->closing = true;
    srv *s = m->srv;
    if (s->state_txt_of == m)
        s->state_txt_of = NULL;
    held_remove(m);
    /* unlink, detach everyone */
    if (m->prev)
        m->prev->next = m->next;
    else
        s->matches = m->next;
    if (m->next)
        m->next->prev = m->prev;
    if (m->status == MATCH_FINISHED)
        s->nfinished--;
    else
        s->nlive--;
    sink_of(m)->closing(m);
    for (int i = 0; i < m->nseats; i++)
        if (m->seats[i].prog)
            prog_detach(m->seats[i].prog); /* unfinished: it resumes at the next start */
    agent_cancel(m);
    uv_close((uv_handle_t *)&m->timer, on_timer_closed);
}

void match__discard(match *m)
{
    m->closing = true;
    uv_close((uv_handle_t *)&m->timer, on_timer_closed); /* frees m */
}

/* The search of a closing match returned: the match is freed once both
 * that and its timer's close have happened. */
static void free_after_job(match *m)
{
    if (m->closing && m->timer_closed)
        free_match(m);
}

/* ---- the record ---------------------------------------------------------------- */

json_t *match_record_json(const match *m, char *err, size_t errcap)
{
    json_t *chance = NULL;
    if (m->has_nonce) {
        chance_secret secret = {.seed = m->seed};
        memcpy(secret.nonce, m->nonce, sizeof m->nonce);
        if (!(chance = chance_json(&secret, m->status == MATCH_FINISHED))) {
            snprintf(err, errcap, "out of memory");
            return NULL;
        }
    }
    json_t *rec =
        rec_build_full(m->g, &m->rules, m->moves, m->nmoves, m->times, chance, NULL, err, errcap);
    json_decref(chance);
    if (rec)
        thinking_add_to_record(m, rec); /* each turn's last thinking line */
    return rec;
}
