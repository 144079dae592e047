/*
 * thinking.c — the seats' thinking lines at a match (contract in
 * thinking.h; the message in docs/protocol.md, "Thinking lines").
 *
 * One queue for the process carries the lines from the worker threads (a
 * bot's search, a program's turn) to the loop, in the order each worker
 * made them; the loop then treats them as a client's, already checked:
 *   - the record keeps the last of each turn, compacted (the top 3
 *     candidates, 4 moves of the line: ~300 bytes of text a turn);
 *   - the spectators get {"type":"thinking","match","seat","turn","info"}
 *     through the sink's `watchers` — live: paced (info_pace), the latest
 *     held back told when the turn is played; delayed: the turn's last,
 *     once it is played; never: nothing. A line that comes after its turn
 *     was played (a worker's last word racing the move) is told at once
 *     (the move is played: live and delayed alike) and kept for the record.
 * A connection that plays a seat never gets them while the game is on: the
 * sink's `watchers` leaves such connections out.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "match.h"
#include "protocol/info.h"
#include "thinking.h"

#define THINK_RECORD_CANDIDATES 3 /* a record's line: the top 3 and their shares */
#define THINK_RECORD_PV         4 /* ... and the line's first 4 moves */

/* A match's lines (m->thinking), made at its first. */
struct thinking {
    char **last;    /* last[t - 1]: compact text of turn t's last line (NULL: none) */
    int nlast;
    int pace_turn;  /* the turn pace and held are about */
    info_pace pace;
    json_t *held;   /* its latest line not yet told (live: paced out; delayed: all) */
    int held_seat;
};

static atomic_uint_fast64_t n_passed, n_dropped;

/* ---- the queue from the workers ------------------------------------------------------ */

typedef struct tq_item {
    struct tq_item *next;
    char match[SRV_MATCH_ID_LEN + 1];
    int seat, turn;
    json_t *info;
} tq_item;

static pthread_mutex_t q_mu = PTHREAD_MUTEX_INITIALIZER;
static tq_item *q_head, *q_tail; /* q_mu */
static uv_async_t *q_async;      /* q_mu: NULL when closed */
static srv *q_srv;               /* loop thread */
static thinking_find_fn q_find;  /* loop thread: a match by id (thinking_init) */

static void accept_line(match *m, int seat, int turn, json_t *info);

static void on_async(uv_async_t *h)
{
    (void)h;
    pthread_mutex_lock(&q_mu);
    tq_item *it = q_head;
    q_head = q_tail = NULL;
    pthread_mutex_unlock(&q_mu);
    while (it) {
        tq_item *next = it->next;
        match *m = q_srv && q_find ? q_find(q_srv, it->match) : NULL;
        if (m)
            accept_line(m, it->seat, it->turn, it->info);
        else
            json_decref(it->info);
        free(it);
        it = next;
    }
}

int thinking_init(srv *s, thinking_find_fn find)
{
    uv_async_t *a = calloc(1, sizeof *a);
    if (!a || uv_async_init(s->loop, a, on_async) != 0) {
        free(a);
        return ENG_EINTERNAL;
    }
    q_srv = s;
    q_find = find;
    pthread_mutex_lock(&q_mu);
    q_async = a;
    pthread_mutex_unlock(&q_mu);
    return 0;
}

static void closed(uv_handle_t *h)
{
    free(h);
}

void thinking_shutdown(srv *s)
{
    (void)s;
    pthread_mutex_lock(&q_mu);
    uv_async_t *a = q_async;
    q_async = NULL;
    tq_item *it = q_head;
    q_head = q_tail = NULL;
    pthread_mutex_unlock(&q_mu);
    while (it) {
        tq_item *next = it->next;
        json_decref(it->info);
        free(it);
        it = next;
    }
    if (a)
        uv_close((uv_handle_t *)a, closed);
    q_srv = NULL;
}

void thinking_post(const char *match_id, int seat, int turn, json_t *info)
{
    tq_item *it = info ? calloc(1, sizeof *it) : NULL;
    if (!it) {
        json_decref(info);
        return;
    }
    snprintf(it->match, sizeof it->match, "%s", match_id);
    it->seat = seat;
    it->turn = turn;
    it->info = info;
    pthread_mutex_lock(&q_mu);
    if (!q_async) {
        pthread_mutex_unlock(&q_mu);
        json_decref(info);
        free(it);
        return;
    }
    if (q_tail)
        q_tail->next = it;
    else
        q_head = it;
    q_tail = it;
    uv_async_send(q_async);
    pthread_mutex_unlock(&q_mu);
}

/* ---- the loop's side ------------------------------------------------------------------- */

static thinking *of(match *m)
{
    if (!m->thinking)
        m->thinking = calloc(1, sizeof *m->thinking);
    return m->thinking;
}

/* The line as the record keeps it: compact, the first candidates and moves. */
static char *compact_text(const json_t *info)
{
    json_t *o = json_deep_copy(info);
    if (!o)
        return NULL;
    json_object_del(o, "text");
    json_object_del(o, "nodes");
    json_object_del(o, "depth");
    json_object_del(o, "turn");
    json_t *c = json_object_get(o, "candidates"), *pv = json_object_get(o, "pv");
    while (json_array_size(c) > THINK_RECORD_CANDIDATES)
        json_array_remove(c, json_array_size(c) - 1);
    while (json_array_size(pv) > THINK_RECORD_PV)
        json_array_remove(pv, json_array_size(pv) - 1);
    char *t = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    return t;
}

static void keep_for_record(thinking *t, int turn, const json_t *info)
{
    if (turn > t->nlast) {
        int cap = turn + 16;
        char **p = realloc(t->last, (size_t)cap * sizeof *p);
        if (!p)
            return;
        memset(p + t->nlast, 0, (size_t)(cap - t->nlast) * sizeof *p);
        t->last = p;
        t->nlast = cap;
    }
    char *text = compact_text(info);
    if (text) {
        free(t->last[turn - 1]);
        t->last[turn - 1] = text;
    }
}

static void tell(match *m, int seat, int turn, const json_t *info)
{
    /* told up through the server's sink, as every match event is */
    if (!m->srv->sink || !m->srv->sink->watchers || !m->nspect)
        return;
    json_t *msg = json_pack("{s:s, s:s, s:i, s:i, s:O}", "type", "thinking", "match", m->id,
                            "seat", seat, "turn", turn, "info", (json_t *)info);
    if (msg)
        m->srv->sink->watchers(m, msg);
    json_decref(msg);
}

/* A checked line (stolen) of seat at turn. */
static void accept_line(match *m, int seat, int turn, json_t *info)
{
    thinking *t = m->closing || turn < 1 || turn > m->turns + 1 ? NULL : of(m);
    if (!t || (turn == m->turns + 1 && (m->status != MATCH_LIVE || m->to_move != seat))) {
        json_decref(info); /* a match going away, or a line of no turn */
        return;
    }
    atomic_fetch_add(&n_passed, 1);
    keep_for_record(t, turn, info);
    int mode = m->pol.info;
    if (mode == PROTO_INFO_NEVER) {
        json_decref(info);
        return;
    }
    if (turn <= m->turns) { /* its move is played: told at once */
        tell(m, seat, turn, info);
        json_decref(info);
        return;
    }
    if (t->pace_turn != turn) {
        memset(&t->pace, 0, sizeof t->pace);
        t->pace_turn = turn;
        json_decref(t->held);
        t->held = NULL;
    }
    if (mode == PROTO_INFO_LIVE && info_pace_now(&t->pace, (double)srv_now(m->srv))) {
        tell(m, seat, turn, info);
        json_decref(info);
        return;
    }
    json_decref(t->held);
    t->held = info;
    t->held_seat = seat;
}

void thinking_turn_played(match *m)
{
    thinking *t = m->thinking;
    if (!t || !t->held || t->pace_turn != m->turns)
        return;
    if (m->pol.info == PROTO_INFO_DELAYED || info_pace_final(&t->pace))
        tell(m, t->held_seat, t->pace_turn, t->held);
    json_decref(t->held);
    t->held = NULL;
}

void thinking_from_client(match *m, int seat, const proto_msg *msg)
{
    json_t *info = NULL;
    char why[200];
    if (m->status != MATCH_LIVE || m->to_move != seat ||
        (msg->has_turn && msg->turn != m->turns + 1) ||
        info_read(m->g, m->wire, m->st, msg->root, 0, &info, why, sizeof why) != 0) {
        atomic_fetch_add(&n_dropped, 1);
        return;
    }
    json_object_del(info, "turn");
    accept_line(m, seat, m->turns + 1, info);
}

void thinking_add_to_record(const match *m, json_t *rec)
{
    const thinking *t = m->thinking;
    json_t *turns = json_object_get(rec, "turns");
    /* anyone may ask for a live match's record (replay, get_record): its
     * seats too, who must not read each other's lines while it is on */
    if (!t || !json_is_array(turns) || m->status != MATCH_FINISHED)
        return;
    size_t n = json_array_size(turns);
    for (size_t i = 0; i < n && (int)i < t->nlast; i++) {
        if (!t->last[i])
            continue;
        json_t *info = json_loads(t->last[i], 0, NULL);
        if (info)
            json_object_set_new(json_array_get(turns, i), "info", info);
    }
}

void thinking_free(match *m)
{
    thinking *t = m->thinking;
    if (!t)
        return;
    for (int i = 0; i < t->nlast; i++)
        free(t->last[i]);
    free(t->last);
    json_decref(t->held);
    free(t);
    m->thinking = NULL;
}

void thinking_dropped(void)
{
    atomic_fetch_add(&n_dropped, 1);
}

void thinking_counts(uint64_t *passed, uint64_t *dropped)
{
    *passed = atomic_load(&n_passed);
    *dropped = atomic_load(&n_dropped);
}
