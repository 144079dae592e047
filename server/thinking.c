/*
 * thinking.c — the seats' thinking lines at a match (contract in
 * thinking.h; the message in docs/protocol.md, "Thinking lines").
 *
 * One queue for the process carries the lines from the worker threads (a
 * bot's search, a program's turn) to the loop, in the order each worker
 * made them; the loop then treats them as a client's, already checked.
 * A line is kept and told as its canonical text (protocol/info.h): a
 * client's plain line is read by protocol/infotext.h without a JSON tree,
 * its moves checked once per text and position (the turn's info_moves),
 * anything else the general way (jansson, info_read); a worker's is written
 * as text where it is made. A match keeps its turn's latest line:
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
#include "protocol/infotext.h"
#include "protocol/jsontext.h"
#include "thinking.h"

#define THINK_RECORD_CANDIDATES 3 /* a record's line: the top 3 and their shares */
#define THINK_RECORD_PV         4 /* ... and the line's first 4 moves */

/* A match's lines (m->thinking), made at its first. */
struct thinking {
    char **last;    /* last[t - 1]: compact text of turn t's line (NULL: none); owned */
    int nlast;
    int turn;       /* the turn line and pace are about */
    char *line;     /* its latest line's canonical text (owned), NULL: none */
    size_t len;
    int seat;       /* whose */
    bool held;      /* line is not told yet (live: paced out; delayed: all) */
    bool compacted; /* last[turn - 1] is line's compact text */
    bool compact;   /* line is its own compact text (a plain line that needs no cut) */
    info_moves moves; /* move texts checked at the position to move (clients' lines) */
    info_pace pace;
};

static atomic_uint_fast64_t n_passed, n_dropped;

/* ---- the queue from the workers ------------------------------------------------------ */

typedef struct tq_item {
    struct tq_item *next;
    char match[SRV_MATCH_ID_LEN + 1];
    int seat, turn;
    char *text; /* canonical (owned) */
    size_t len;
} tq_item;

static pthread_mutex_t q_mu = PTHREAD_MUTEX_INITIALIZER;
static tq_item *q_head, *q_tail; /* q_mu */
static uv_async_t *q_async;      /* q_mu: NULL when closed */
static srv *q_srv;               /* loop thread */
static thinking_find_fn q_find;  /* loop thread: a match by id (thinking_init) */

static void accept_line(match *m, int seat, int turn, char *text, size_t len, bool compact);
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
            accept_line(m, it->seat, it->turn, it->text, it->len, false);
        else
            free(it->text);
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
        free(it->text);
        free(it);
        it = next;
    }
    if (a)
        uv_close((uv_handle_t *)a, closed);
    q_srv = NULL;
    tb_free(&line_tb);
    tb_free(&msg_tb);
}

void thinking_post(const char *match_id, int seat, int turn, const json_t *info)
{
    /* written here, on the worker: the loop takes its text as it is */
    textbuf b = TEXTBUF_INIT;
    tq_item *it = info && jt_dump(&b, info) == 0 ? calloc(1, sizeof *it) : NULL;
    if (!it) {
        tb_free(&b);
        return;
    }
    snprintf(it->match, sizeof it->match, "%s", match_id);
    it->seat = seat;
    it->turn = turn;
    it->text = b.p; /* the buffer's, handed over */
    it->len = b.len;
    pthread_mutex_lock(&q_mu);
    if (!q_async) {
        pthread_mutex_unlock(&q_mu);
        free(it->text);
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
    tb_puts(b, ",\"seat\":");
    jt_int(b, seat);
    tb_puts(b, ",\"turn\":");
    jt_int(b, turn);
    tb_puts(b, ",\"info\":");
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

/* A checked line's canonical text (stolen) of seat at turn; compact: it
 * is its own record line. */
static void accept_line(match *m, int seat, int turn, char *text, size_t len, bool compact)
{
    thinking *t = m->closing || turn < 1 || turn > m->turns + 1 ? NULL : of(m);
    if (!t || (turn == m->turns + 1 && (m->status != MATCH_LIVE || m->to_move != seat))) {
        free(text); /* a match going away, or a line of no turn */
        return;
    }
    atomic_fetch_add(&n_passed, 1);
    int mode = m->pol.info;
    if (turn <= m->turns) { /* its move is played: told at once, its record's line is fixed */
        if (mode != PROTO_INFO_NEVER && heard(m))
            tell_text(m, seat, turn, text, len);
        free(text);
        return;
    }
    if (t->turn != turn) {
        memset(&t->pace, 0, sizeof t->pace);
        t->turn = turn;
    }
    free(t->line);
    t->line = text; /* the latest: the one it replaced is gone */
    t->len = len;
    t->seat = seat;
    t->compacted = false;
    t->compact = compact;
    t->held = mode != PROTO_INFO_NEVER;
    if (mode == PROTO_INFO_LIVE && info_pace_now(&t->pace, (double)srv_now(m->srv))) {
        t->held = false;
        if (heard(m))
            tell_text(m, seat, turn, text, len);
    }
}

/* The line in line_tb, to m as a copy. */
static void accept_written(match *m, int seat, bool compact)
{
    char *text = line_tb.failed ? NULL : malloc(line_tb.len + 1);
    if (!text) {
        atomic_fetch_add(&n_dropped, 1);
        return;
    }
    memcpy(text, line_tb.p, line_tb.len + 1);
    accept_line(m, seat, m->turns + 1, text, line_tb.len, compact);
}

const char *thinking_turn_line(match *m)
{
    drain(); /* a worker's lines posted before its move */
    thinking *t = m->thinking;
    int turn = m->turns + 1;
    if (!t || t->turn != turn || !t->line || !room_for(t, turn))
        return NULL;
    if (!t->compacted) {
        /* the top candidates and the line's first moves (~300 bytes a turn) */
        tb_reset(&line_tb);
        char *text = t->compact ? strndup(t->line, t->len)
                     : info_compact(t->line, t->len, THINK_RECORD_CANDIDATES, THINK_RECORD_PV,
                                    &line_tb) < 0
                         ? NULL
                         : strndup(line_tb.p, line_tb.len);
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
    if (t->held && (m->pol.info == PROTO_INFO_DELAYED || info_pace_final(&t->pace)) && heard(m))
        tell_text(m, t->seat, t->turn, t->line, t->len);
    free(t->line);
    t->line = NULL;
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

/* A client's line read as a tree (borrowed), the general way. */
static void from_tree(match *m, int seat, const json_t *root, size_t bytes)
{
    json_t *info = NULL;
    char why[200];
    if (!root || info_read(m->g, m->wire, m->st, root, bytes, &info, why, sizeof why) != 0) {
        atomic_fetch_add(&n_dropped, 1);
        return;
    }
    json_object_del(info, "turn");
    tb_reset(&line_tb);
    jt_dump(&line_tb, info);
    json_decref(info);
    accept_written(m, seat, false);
}

/* Is a client's line about the turn seat is to move in? (if not: dropped) */
static bool for_this_turn(const match *m, int seat, bool has_turn, long long turn)
{
    bool ok = m->status == MATCH_LIVE && m->to_move == seat && (!has_turn || turn == m->turns + 1);
    if (!ok)
        atomic_fetch_add(&n_dropped, 1);
    return ok;
}

void thinking_from_client(match *m, int seat, const proto_msg *msg)
{
    if (for_this_turn(m, seat, msg->has_turn, msg->turn))
        from_tree(m, seat, msg->root, msg->bytes);
}

/* The position to move, for t->moves (a refused turn is played again from it). */
static uint64_t position_key(const match *m)
{
    return ((uint64_t)m->turns << 32 | (uint32_t)m->nmoves) + 1;
}

int thinking_legal_dump(match *m, textbuf *out, const json_t *legal)
{
    bool keep = m->thinking && !m->wire->pick_entry;
    return info_legal_dump(out, legal, keep ? &m->thinking->moves : NULL, position_key(m));
}

void thinking_from_text(match *m, int seat, const info_parsed *p)
{
    if (!for_this_turn(m, seat, p->has & INFO_HAS_TURN, p->turn))
        return;
    thinking *t = of(m);
    if (t) {
        info_moves_at(&t->moves, position_key(m));
        tb_reset(&line_tb);
        if (info_write(m->g, m->wire, m->st, p, &t->moves, false, &line_tb) == 0) {
            /* written without turn; the record's cut leaves out the rest */
            accept_written(m, seat,
                           info_parsed_compact(p, THINK_RECORD_CANDIDATES, THINK_RECORD_PV));
            return;
        }
    }
    /* not plain enough for infotext, or a bad line: the general way tells */
    json_error_t e;
    json_t *root = json_loadb(p->buf, p->len, JSON_REJECT_DUPLICATES, &e);
    from_tree(m, seat, root, p->len);
    json_decref(root);
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
    free(t->line);
    info_moves_free(&t->moves);
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
