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
 * as text where it is made, once: into the spectators' message about it,
 * in the match's own buffers, which keep their memory from line to line
 * (no allocation a line). A match keeps its turn's latest line:
 *   - the spectators get {"type":"thinking","match","seat","turn","info"}
 *     through the sink's `watchers`, written once for all of them — live:
 *     paced (info_pace): a line within the pace replaces the one held and
 *     only the latest held goes, with the move; delayed: the turn's last,
 *     once it is played; never: nothing;
 *   - the record's line of a turn is fixed when the turn is played
 *     (thinking_turn_line, from play_turn): the latest line compacted once
 *     (the top 3 candidates, 4 moves of the line: ~300 bytes of text a
 *     turn; the match's in one block, info_turns), journaled with the
 *     turn's first move, so that a restarted server has it too. The worker
 *     queue is read first then, so a bot's last word, posted before its
 *     move, is in. A line that comes after
 *     its turn was played is told at once (the move is played: live and
 *     delayed alike) and not kept: the record and the journal agree.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/info.h"
#include "protocol/infotext.h"
#include "protocol/jsontext.h"
#include "sink.h"
#include "thinking.h"

#define THINK_RECORD_CANDIDATES 3 /* a record's line: the top 3 and their shares */
#define THINK_RECORD_PV         4 /* ... and the line's first 4 moves */

/* A match's lines (m->thinking), made at its first. No allocation a line:
 * a line is written once, into the spectators' message about it, in
 * buffers of the match's that keep their memory (bench/README.md, issue 27:
 * a line's mallocs and copies, among a thousand matches', cost more than
 * their instructions say). */
struct thinking {
    int turn;       /* the turn line and pace are about */
    int seat;       /* whose */
    bool held;      /* line is not told yet (live: paced out; delayed: all) */
    bool compacted; /* rec has line's compact text as turn's */
    bool compact;   /* line is its own compact text (a plain line that needs no cut) */
    info_pace pace;
    size_t line;    /* msg's bytes [line, msg.len - 1) are the latest line (0: none) */
    textbuf msg;    /* the spectators' message about it */
    textbuf next;   /* the message being written: msg once it is kept */
    info_turns rec; /* the record line of each turn */
    info_moves moves; /* move texts checked at the position to move (clients' lines); last:
                         its entries are rarely read */
};

static atomic_uint_fast64_t n_passed, n_dropped, n_in_moves;

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
static atomic_bool q_any;        /* set with q_head (under q_mu): a turn looks without locking */
static uv_async_t *q_async;      /* q_mu: NULL when closed */
static srv *q_srv;               /* loop thread */
static thinking_find_fn q_find;  /* loop thread: a match by id (thinking_init) */

static thinking *taker(match *m, int seat, int turn);
static size_t begin_msg(thinking *t, const match *m, int seat, int turn);
static void accept_line(match *m, thinking *t, int seat, int turn, size_t at, bool compact);

/* Loop thread: every line queued so far to its match. */
static void drain(void)
{
    /* a worker's line is queued before its move is posted (through a lock
     * of its own): a turn sees it here */
    if (!atomic_load_explicit(&q_any, memory_order_acquire))
        return;
    pthread_mutex_lock(&q_mu);
    tq_item *it = q_head;
    q_head = q_tail = NULL;
    atomic_store_explicit(&q_any, false, memory_order_relaxed);
    pthread_mutex_unlock(&q_mu);
    while (it) {
        tq_item *next = it->next;
        match *m = q_srv && q_find ? q_find(q_srv, it->match) : NULL;
        thinking *t = m ? taker(m, it->seat, it->turn) : NULL;
        if (t) {
            size_t at = begin_msg(t, m, it->seat, it->turn);
            tb_put(&t->next, it->text, it->len);
            accept_line(m, t, it->seat, it->turn, at, false);
        }
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
    atomic_store_explicit(&q_any, true, memory_order_release);
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

/* Is anyone to hear m's lines? */
static bool heard(const match *m)
{
    return m->srv->sink && m->srv->sink->watchers && m->nspect;
}

/* Tell the spectators a message about a line (written once for all of
 * them: told up through the server's sink, as every match event is). */
static void tell(match *m, const textbuf *msg)
{
    if (!msg->failed)
        m->srv->sink->watchers(m, msg->p, msg->len);
}

/* m's lines, when seat's line of turn is one to take (else NULL: a match
 * going away, or a line of no turn). */
static thinking *taker(match *m, int seat, int turn)
{
    thinking *t = m->closing || turn < 1 || turn > m->turns + 1 ? NULL : of(m);
    if (!t || (turn == m->turns + 1 && (m->status != MATCH_LIVE || m->to_move != seat)))
        return NULL;
    return t;
}

/* The spectators' message about seat's line of turn, begun in t->next:
 * where the line is to be written (then accept_line). */
static size_t begin_msg(thinking *t, const match *m, int seat, int turn)
{
    tb_reset(&t->next);
    info_thinking_head(&t->next, m->id, seat, turn);
    return t->next.len;
}

/* The checked line's canonical text, written in t->next from `at` (taker,
 * begin_msg), of seat at turn; compact: it is its own record line. */
static void accept_line(match *m, thinking *t, int seat, int turn, size_t at, bool compact)
{
    textbuf *b = &t->next;
    tb_put(b, "}", 1);
    if (b->failed) {
        atomic_fetch_add(&n_dropped, 1);
        return;
    }
    atomic_fetch_add(&n_passed, 1);
    int mode = m->pol.info;
    if (turn <= m->turns) { /* its move is played: told at once, its record's line is fixed */
        if (mode != PROTO_INFO_NEVER && heard(m))
            tell(m, b);
        return;
    }
    if (t->turn != turn) {
        memset(&t->pace, 0, sizeof t->pace);
        t->turn = turn;
    }
    textbuf kept = t->msg; /* the latest: the one it replaced is gone (its memory reused) */
    t->msg = *b;
    *b = kept;
    t->line = at;
    t->seat = seat;
    t->compacted = false;
    t->compact = compact;
    t->held = mode != PROTO_INFO_NEVER;
    if (mode == PROTO_INFO_LIVE && info_pace_now(&t->pace, (double)srv_now(m->srv))) {
        t->held = false;
        if (heard(m))
            tell(m, &t->msg);
    }
}

const char *thinking_turn_line(match *m)
{
    drain(); /* a worker's lines posted before its move */
    thinking *t = m->thinking;
    int turn = m->turns + 1;
    if (!t || t->turn != turn || !t->line)
        return NULL;
    if (!t->compacted) {
        /* the top candidates and the line's first moves (~300 bytes a turn) */
        const char *line = t->msg.p + t->line;
        size_t len = t->msg.len - 1 - t->line, mark = info_turns_begin(&t->rec);
        if (t->compact)
            tb_put(&t->rec.text, line, len);
        else
            info_compact(line, len, THINK_RECORD_CANDIDATES, THINK_RECORD_PV, &t->rec.text);
        if (!info_turns_end(&t->rec, turn, mark))
            return NULL;
        t->compacted = true;
    }
    return info_turns_get(&t->rec, turn);
}

void thinking_turn_played(match *m)
{
    thinking *t = m->thinking;
    if (!t || t->turn != m->turns || !t->line)
        return;
    if (t->held && (m->pol.info == PROTO_INFO_DELAYED || info_pace_final(&t->pace)) && heard(m))
        tell(m, &t->msg);
    t->line = 0;
    t->held = false;
}

void thinking_restore_line(match *m, int turn, const char *text)
{
    thinking *t = turn >= 1 && text ? of(m) : NULL;
    if (t) {
        size_t mark = info_turns_begin(&t->rec);
        tb_puts(&t->rec.text, text);
        info_turns_end(&t->rec, turn, mark);
    }
}

/* A client's line read as a tree (borrowed), the general way. */
static void from_tree(match *m, int seat, const json_t *root, size_t bytes)
{
    json_t *info = NULL;
    char why[200];
    int turn = m->turns + 1;
    thinking *t = taker(m, seat, turn);
    if (!t || !root ||
        info_read(m->g, m->wire, m->st, root, bytes, &info, why, sizeof why) != 0) {
        atomic_fetch_add(&n_dropped, 1);
        return;
    }
    json_object_del(info, "turn");
    size_t at = begin_msg(t, m, seat, turn);
    jt_dump(&t->next, info);
    json_decref(info);
    accept_line(m, t, seat, turn, at, false);
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

int thinking_legal_text(match *m, textbuf *out)
{
    bool keep = m->thinking && !m->wire->pick_entry;
    return info_legal_write(out, m->wire, m->st, m->g->max_moves, keep ? &m->thinking->moves : NULL,
                            position_key(m));
}

void thinking_from_text(match *m, int seat, const info_parsed *p)
{
    if (!for_this_turn(m, seat, p->has & INFO_HAS_TURN, p->turn))
        return;
    int turn = m->turns + 1;
    thinking *t = taker(m, seat, turn);
    if (t) {
        info_moves_at(&t->moves, position_key(m));
        size_t at = begin_msg(t, m, seat, turn);
        if (info_write(m->g, m->wire, m->st, p, &t->moves, false, &t->next) == 0) {
            /* written without turn; the record's cut leaves out the rest */
            accept_line(m, t, seat, turn, at,
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

void thinking_from_move(match *m, int seat, const proto_msg *msg, const info_parsed *plain)
{
    /* the move's turn is the line's; a line for another is dropped */
    const json_t *t = plain ? NULL : json_object_get(msg->info, "turn");
    char why[200];
    atomic_fetch_add(&n_in_moves, 1);
    if (!for_this_turn(m, seat, msg->has_turn, msg->turn))
        return;
    if (plain)
        thinking_from_text(m, seat, plain);
    else if (info_body_check(msg->info, why, sizeof why) != 0 ||
             (t && (!json_is_integer(t) || json_integer_value(t) != m->turns + 1)))
        atomic_fetch_add(&n_dropped, 1);
    else
        from_tree(m, seat, msg->info, 0);
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
    for (size_t i = 0; i < n; i++) {
        const char *line = info_turns_get(&t->rec, (int)i + 1);
        json_t *info = line ? json_loads(line, 0, NULL) : NULL; /* a restored one is the journal's */
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
    info_turns_free(&t->rec);
    tb_free(&t->msg);
    tb_free(&t->next);
    info_moves_free(&t->moves);
    free(t);
    m->thinking = NULL;
}

void thinking_dropped(void)
{
    atomic_fetch_add(&n_dropped, 1);
}

void thinking_counts(uint64_t *passed, uint64_t *dropped, uint64_t *in_moves)
{
    *passed = atomic_load(&n_passed);
    *dropped = atomic_load(&n_dropped);
    *in_moves = atomic_load(&n_in_moves);
}
