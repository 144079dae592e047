/*
 * thinking.c — the seats' thinking lines at a match (contract in
 * thinking.h; the message in docs/protocol.md, "Thinking lines").
 *
 * One queue for the process carries the lines from the worker threads (a
 * bot's search, a program's turn) to the loop, in the order each worker
 * made them; the loop then treats them as a client's, already checked.
 * A match keeps its turn's latest line by reference (no copy, no text):
 *   - the spectators get {"type":"thinking","match","seat","turn","info"}
 *     through the sink's `watchers`, written once for all of them — live:
 *     paced (info_pace): a line within the pace replaces the one held and
 *     only the latest held goes, with the move; delayed: the turn's last,
 *     once it is played; never: nothing;
 *   - the record's line of a turn is fixed when the turn is played
 *     (thinking_turn_line, from play_turn): the latest line compacted once
 *     (the top 3 candidates, 4 moves of the line: ~300 bytes of text a
 *     turn), journaled with the turn's first move, so that a restarted
 *     server has it too. The worker queue is read first then, so a bot's
 *     last word, posted before its move, is in. A line that comes after
 *     its turn was played is told at once (the move is played: live and
 *     delayed alike) and not kept: the record and the journal agree.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "match.h"
#include "protocol/info.h"
#include "protocol/jsontext.h"
#include "thinking.h"

#define THINK_RECORD_CANDIDATES 3 /* a record's line: the top 3 and their shares */
#define THINK_RECORD_PV         4 /* ... and the line's first 4 moves */

/* A match's lines (m->thinking), made at its first. */
struct thinking {
    char **last;    /* last[t - 1]: compact text of turn t's line (NULL: none); owned */
    int nlast;
    int turn;       /* the turn line and pace are about */
    json_t *line;   /* its latest line (owned), NULL: none */
    int seat;       /* whose */
    bool held;      /* line is not told yet (live: paced out; delayed: all) */
    bool compacted; /* last[turn - 1] is line's compact text */
    char *text;     /* line's text when it was told and is its own compact form
                       (owned): the record's, without writing it again */
    info_pace pace;
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
/* Loop thread, reused line after line: a line's text, the message told */
static textbuf line_tb, msg_tb;

/* Loop thread: every line queued so far to its match. */
static void drain(void)
{
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

static void on_async(uv_async_t *h)
{
    (void)h;
    drain();
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
    tb_free(&line_tb);
    tb_free(&msg_tb);
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

/* Is the line its own compact form (nothing for compact_text to leave out)? */
static bool is_compact(const json_t *info)
{
    return !json_object_get(info, "text") && !json_object_get(info, "nodes") &&
           !json_object_get(info, "depth") && !json_object_get(info, "turn") &&
           json_array_size(json_object_get(info, "candidates")) <= THINK_RECORD_CANDIDATES &&
           json_array_size(json_object_get(info, "pv")) <= THINK_RECORD_PV;
}

/* The line as the record keeps it: compact, the first candidates and moves
 * (a new object of the same values, by reference: nothing is copied),
 * written by jt_dump (json_dumps' bytes at a third of its cost: its reals
 * go through snprintf's search for the shortest form). */
static char *compact_text(const json_t *info)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    const char *key;
    json_t *v;
    bool ok = true;
    json_object_foreach((json_t *)info, key, v) {
        if (!strcmp(key, "text") || !strcmp(key, "nodes") || !strcmp(key, "depth") ||
            !strcmp(key, "turn"))
            continue;
        size_t keep = !strcmp(key, "candidates") ? THINK_RECORD_CANDIDATES
                      : !strcmp(key, "pv")       ? THINK_RECORD_PV
                                                 : 0;
        if (keep && json_array_size(v) > keep) {
            json_t *a = json_array();
            for (size_t i = 0; a && i < keep; i++)
                ok = ok && json_array_append(a, json_array_get(v, i)) == 0;
            ok = ok && json_object_set_new(o, key, a) == 0;
        } else {
            ok = ok && json_object_set(o, key, v) == 0;
        }
    }
    tb_reset(&line_tb);
    char *t = ok && jt_dump(&line_tb, o) == 0 ? strndup(line_tb.p, line_tb.len) : NULL;
    json_decref(o);
    return t;
}

/* Room in t->last for turn `turn`. */
static bool room_for(thinking *t, int turn)
{
    if (turn <= t->nlast)
        return true;
    int cap = turn + 16;
    char **p = realloc(t->last, (size_t)cap * sizeof *p);
    if (!p)
        return false;
    memset(p + t->nlast, 0, (size_t)(cap - t->nlast) * sizeof *p);
    t->last = p;
    t->nlast = cap;
    return true;
}

/* Tell the spectators seat's line of turn, its text written already. */
static void tell_text(match *m, int seat, int turn, const char *info, size_t len)
{
    /* told up through the server's sink, as every match event is: the
     * message written once, for all the spectators */
    textbuf *b = &msg_tb;
    tb_reset(b);
    tb_puts(b, "{\"type\":\"thinking\",\"match\":");
    jt_str(b, m->id, strlen(m->id));
    tb_printf(b, ",\"seat\":%d,\"turn\":%d,\"info\":", seat, turn);
    tb_put(b, info, len);
    tb_put(b, "}", 1);
    if (!b->failed)
        m->srv->sink->watchers(m, b->p, b->len);
}

/* Is anyone to hear m's lines? */
static bool heard(const match *m)
{
    return m->srv->sink && m->srv->sink->watchers && m->nspect;
}

/* Tell a line: its text into line_tb (0), or -1. */
static int tell(match *m, int seat, int turn, const json_t *info)
{
    tb_reset(&line_tb);
    if (jt_dump(&line_tb, info))
        return -1;
    tell_text(m, seat, turn, line_tb.p, line_tb.len);
    return 0;
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
    int mode = m->pol.info;
    if (turn <= m->turns) { /* its move is played: told at once, its record's line is fixed */
        if (mode != PROTO_INFO_NEVER && heard(m))
            tell(m, seat, turn, info);
        json_decref(info);
        return;
    }
    if (t->turn != turn) {
        memset(&t->pace, 0, sizeof t->pace);
        t->turn = turn;
    }
    json_decref(t->line);
    t->line = info; /* the latest, by reference: the one that replaced is gone */
    t->seat = seat;
    t->compacted = false;
    free(t->text);
    t->text = NULL;
    t->held = mode != PROTO_INFO_NEVER;
    if (mode == PROTO_INFO_LIVE && info_pace_now(&t->pace, (double)srv_now(m->srv))) {
        t->held = false;
        /* its text, when it is also the record's, is kept for the move */
        if (heard(m) && tell(m, seat, turn, info) == 0 && is_compact(info))
            t->text = strndup(line_tb.p, line_tb.len);
    }
}

const char *thinking_turn_line(match *m)
{
    drain(); /* a worker's lines posted before its move */
    thinking *t = m->thinking;
    int turn = m->turns + 1;
    if (!t || t->turn != turn || !t->line || !room_for(t, turn))
        return NULL;
    if (!t->compacted) {
        char *text = t->text;
        if (text)
            t->text = NULL; /* told, and its own compact form: written once */
        else if (!is_compact(t->line))
            text = compact_text(t->line);
        else {
            tb_reset(&line_tb);
            if (jt_dump(&line_tb, t->line) == 0)
                text = strndup(line_tb.p, line_tb.len);
        }
        if (!text)
            return NULL;
        free(t->last[turn - 1]);
        t->last[turn - 1] = text;
        t->compacted = true;
    }
    return t->last[turn - 1];
}

void thinking_turn_played(match *m)
{
    thinking *t = m->thinking;
    if (!t || t->turn != m->turns || !t->line)
        return;
    if (t->held && (m->pol.info == PROTO_INFO_DELAYED || info_pace_final(&t->pace)) && heard(m)) {
        const char *kept = t->compacted ? t->last[t->turn - 1] : NULL;
        if (kept && is_compact(t->line)) /* the record's text is the line's: written once */
            tell_text(m, t->seat, t->turn, kept, strlen(kept));
        else
            tell(m, t->seat, t->turn, t->line);
    }
    json_decref(t->line);
    t->line = NULL;
    free(t->text);
    t->text = NULL;
    t->held = false;
}

void thinking_restore_line(match *m, int turn, const char *text)
{
    thinking *t = turn >= 1 && text ? of(m) : NULL;
    if (!t || !room_for(t, turn))
        return;
    char *copy = strdup(text);
    if (copy) {
        free(t->last[turn - 1]);
        t->last[turn - 1] = copy;
    }
}

void thinking_from_client(match *m, int seat, const proto_msg *msg)
{
    json_t *info = NULL;
    char why[200];
    if (m->status != MATCH_LIVE || m->to_move != seat ||
        (msg->has_turn && msg->turn != m->turns + 1) ||
        info_read(m->g, m->wire, m->st, msg->root, msg->bytes, &info, why, sizeof why) != 0) {
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
        json_t *info = json_loads(t->last[i], 0, NULL); /* a restored one is the journal's */
        if (json_is_object(info))
            json_object_set_new(json_array_get(turns, i), "info", info);
        else
            json_decref(info);
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
    json_decref(t->line);
    free(t->text);
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
