/*
 * journal.c — the journal (journal.h) over one storage engine (journal_int.h):
 * what the engines share, written once.
 *
 * A move is written before anyone hears of it, so a server killed at any
 * instant restarts with exactly the moves it had announced. Chance outcomes
 * (the tiles drawn) are journaled when drawn, so a restarted match keeps the
 * tile its player already saw; the secret seed and the commitment's nonce
 * stay in the database, and chance event k is drawn from the seed and k
 * alone (eng_chance_draw), so the draws after a restart are the ones the
 * committed seed gives.
 *
 * Batches. The writes (a turn's moves and seats, a seat change, a result, a
 * lobby summary) do not write: they add their rows, with copies of their
 * values, to the loop round's batch, and the batch is written as one
 * transaction at the end of the round (a prepare and a check handle: before
 * the loop polls, and after its I/O callbacks), so that a busy round's moves
 * share one transaction's locks, log records and system calls. The batch
 * has a number — the commit it will be, the next one on the connection — and
 * every message queued while it is open waits for it (journal_hold, net.c):
 * nothing is told before it is stored. A match's creation, and anyone
 * else's use of the connection (journal_db), let the batch go first, then
 * run as their own transactions, their failures known at once.
 *
 * Batches in flight. An engine that answers later (PostgreSQL) may have up
 * to its `depth` batches in flight at once (journal_int.h), kept in order
 * in `sent`: they commit in that order or not at all, and their messages
 * are released as each is stored, oldest first (journal_synced).
 *
 * Faults. A batch whose write fails stays whole — its moves were played in
 * memory and cannot be taken back (bots and programs have seen them) — and
 * is written again once a second until it is stored (what the round had
 * added after it, while it was in flight, follows); meanwhile every write is refused at once (the match's
 * own refusal: storage_error to the mover, a pause for the server's moves),
 * and the tables of its matches are told nothing more (conn.c,
 * match.journal_batch) until it is stored. A fault of any write is logged
 * once as it begins (journal_fault) and as it ends (journal_recovered); an
 * engine's own probe notices its end when nothing else writes.
 *
 * Reading. At start-up every stored match is handed to a restorer with its
 * moves, which must run 0, 1, 2, ... and be move integers the game can
 * have: a journal that cannot be read whole fails that match's restore,
 * loudly, rather than restoring it cut short.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "journal_int.h"
#include "protocol/jsontext.h"

static void commit_round(journal *j, bool now);
static void on_probe_timer(uv_timer_t *t);

/* The numbers (journal_int.h): a commit is stored only once made; the
 * batches in flight are the oldest of `sent`, within the engine's depth,
 * and a failure leaves something to write again; each batch waits for a
 * number, higher than the one of every batch before it (the order in which
 * they are written and their messages released). */
static void journal_check(const journal *j)
{
    SRV_ASSERT(j->synced <= j->committed);
    assert(j->ops->depth >= 1 && j->ops->depth <= JOURNAL_DEPTH_MAX);
    assert(0 <= j->nflight && j->nflight <= j->nsent && j->nsent <= j->ops->depth);
    assert(!j->failed || j->nsent > 0);
    assert(!j->open.n || j->open.hold > 0);
    for (int i = 0; i < j->nsent; i++) {
        assert(j->sent[i].n > 0 && j->sent[i].hold > 0);
        assert(i == 0 || j->sent[i - 1].hold < j->sent[i].hold);
    }
    assert(!j->nsent || !j->open.n || j->sent[j->nsent - 1].hold < j->open.hold);
}

uint64_t journal__now(const journal *j)
{
    return srv_loop_now(j->cfg.loop);
}

/* ---- faults --------------------------------------------------------------------------- */

static const char *const fault_names[JF_NKINDS] = {
    "none", "disk_full", "io_error", "locked", "readonly", "corrupt", "other", "unreachable"};

const char *journal_fault_name(int kind)
{
    return kind >= 0 && kind < JF_NKINDS ? fault_names[kind] : "other";
}

int journal__kind_of_db(int code)
{
    switch (code) {
    case DB_EFULL: return JF_DISK_FULL;
    case DB_EIO: return JF_IO_ERROR;
    case DB_EBUSY: return JF_LOCKED;
    case DB_EREADONLY: return JF_READONLY;
    case DB_ECORRUPT: return JF_CORRUPT;
    case DB_ELOST: return JF_UNREACHABLE;
    default: return JF_OTHER;
    }
}

void journal__failed(journal *j, int kind, const char *what, const char *match, const char *msg,
                     int code)
{
    const char *engine = j->ops->name;
    j->st.faults[kind]++;
    json_t *f = json_pack("{s:s, s:s, s:s}", "what", what, engine, msg, "fault",
                          journal_fault_name(kind));
    if (f && match)
        json_object_set_new(f, "match", json_string(match));
    srv_log(LOG_ERROR, "storage_error", "O", f);
    json_decref(f);
    if (j->fault != kind) {
        json_t *g = json_pack("{s:s, s:s, s:s}", "fault", journal_fault_name(kind), engine, msg,
                              "note",
                              "matches that need the journal pause; writes are tried again "
                              "every second");
        if (g && code)
            json_object_set_new(g, "code", json_integer(code));
        srv_log(LOG_ERROR, "journal_fault", "O", g);
        json_decref(g);
        if (!j->fault)
            j->fault_since = srv_epoch_ms();
        j->fault = kind;
    }
    snprintf(j->fault_msg, sizeof j->fault_msg, "%s", msg);
    j->probe_at = journal__now(j) + JOURNAL_RETRY_MS;
    if (j->started && !j->closing) /* the loop runs: try again then, busy or idle */
        uv_timer_start(&j->probe_timer, on_probe_timer, JOURNAL_RETRY_MS, 0);
}

void journal__ok(journal *j)
{
    if (!j->fault)
        return;
    srv_log(LOG_WARN, "journal_recovered", "{s:s, s:I}", "fault", journal_fault_name(j->fault),
            "after_ms", (json_int_t)(srv_epoch_ms() - j->fault_since));
    j->fault = JF_NONE;
    j->up_since = journal__now(j);
}

int journal_fault(const journal *j, int64_t *since_ms, const char **message)
{
    if (!j || !j->fault)
        return JF_NONE;
    *since_ms = j->fault_since;
    *message = j->fault_msg;
    return j->fault;
}

uint64_t journal_up_ms(const journal *j)
{
    return j->fault || j->failed || !j->started ? 0 : journal__now(j) - j->up_since;
}

const journal_stats *journal_get_stats(const journal *j)
{
    return &j->st;
}

/* Refused at once: during a fault (tried again by itself), or at shutdown. */
static bool refused(journal *j)
{
    if (j->fault || j->failed || j->closing) {
        j->st.refused++;
        return true;
    }
    return false;
}

/* ---- the batches ------------------------------------------------------------------------- */

/* Copy n bytes (and a NUL) into the batch's text: their offset, or JNONE
 * when out of memory. */
static uint32_t text_add(journal_batch *b, const char *p, size_t n)
{
    if (b->text_len + n + 1 > b->text_cap) {
        size_t cap = b->text_cap ? b->text_cap : 4096;
        while (cap < b->text_len + n + 1)
            cap *= 2;
        char *t = cap < JNONE ? realloc(b->text, cap) : NULL;
        if (!t)
            return JNONE;
        b->text = t;
        b->text_cap = cap;
    }
    uint32_t at = (uint32_t)b->text_len;
    memcpy(b->text + at, p, n);
    b->text[at + n] = 0;
    b->text_len += n + 1;
    return at;
}

/* A string, or NULL (JNONE); *ok false when it could not be copied. */
static uint32_t text_str(journal_batch *b, const char *p, bool *ok)
{
    if (!p)
        return JNONE;
    uint32_t at = text_add(b, p, strlen(p));
    if (at == JNONE)
        *ok = false;
    return at;
}

static journal_row *row_add(journal_batch *b, int kind, uint32_t match)
{
    if (b->n == b->cap) {
        int cap = b->cap ? 2 * b->cap : 256;
        journal_row *p = realloc(b->row, (size_t)cap * sizeof *p);
        if (!p)
            return NULL;
        b->row = p;
        b->cap = cap;
    }
    journal_row *r = &b->row[b->n++];
    *r = (journal_row){.kind = kind, .match = match, .a = JNONE, .b = JNONE, .think_ms = -1,
                       .wait_ms = -1, .info = JNONE};
    return r;
}

static void batch_clear(journal_batch *b)
{
    b->n = 0;
    b->text_len = 0;
    b->appends = 0;
    b->hold = 0;
}

static void batch_free(journal_batch *b)
{
    free(b->row);
    free(b->text);
    memset(b, 0, sizeof *b);
}

/* The seats' text, as the reader hands it back (journal_stored.seats_json),
 * written without building it as a tree first (every move rewrites the
 * seats: clocks and counters), into j's reusable buffer. */
static const textbuf *seats_text(journal *j, const journal_seats *s)
{
    textbuf *b = &j->seats_txt;
    tb_reset(b);
#define KEY(k) tb_put(b, "\"" k "\":", sizeof(k) + 2)
#define STR(s) jt_str(b, (s), strlen(s))
    tb_put(b, "[", 1);
    for (int i = 0; i < s->nseats; i++) {
        const journal_seat *t = &s->seat[i];
        tb_put(b, i ? ",{" : "{", i ? 2 : 1);
        KEY("kind"), STR(t->kind), tb_put(b, ",", 1);
        KEY("name"), STR(t->name), tb_put(b, ",", 1);
        KEY("spec"), STR(t->spec), tb_put(b, ",", 1);
        KEY("token"), STR(t->token), tb_put(b, ",", 1);
        KEY("resume"), STR(t->resume), tb_put(b, ",", 1);
        KEY("joined"), tb_put(b, t->joined ? "true," : "false,", t->joined ? 5 : 6);
        KEY("takeover"), tb_put(b, t->takeover ? "true," : "false,", t->takeover ? 5 : 6);
        KEY("grace_ms"), jt_int(b, t->grace_ms), tb_put(b, ",", 1);
        KEY("illegal"), jt_int(b, t->illegal), tb_put(b, ",", 1);
        /* what a move changes, last and together: a row's new version is
         * logged as the bytes between what it shares with the old one at
         * its start and at its end (PostgreSQL's HOT update), so these few
         * bytes are all of a move's seats in the WAL */
        KEY("bank_ms"), jt_int(b, t->bank_ms), tb_put(b, ",", 1);
        KEY("used_ms"), jt_int(b, t->used_ms), tb_put(b, ",", 1);
        KEY("moves"), jt_int(b, t->moves), tb_put(b, "}", 1);
    }
    tb_put(b, "]", 1);
#undef KEY
#undef STR
    return b;
}

/* Rows of a seats' change into the open batch: the seats (SEATS, or FINISH
 * with the result), then a TOKEN per new resume token. */
static void add_seats(journal *j, int kind, uint32_t id, const journal_seats *s, bool *ok)
{
    journal_batch *b = &j->open;
    const textbuf *t = seats_text(j, s);
    journal_row *r = t->failed ? NULL : row_add(b, kind, id);
    if (!r) {
        *ok = false;
        return;
    }
    r->a = text_add(b, t->p, t->len);
    r->n = s->status;
    r->changed = s->status_changed;
    *ok = *ok && r->a != JNONE;
    for (int i = 0; *ok && i < s->nseats; i++) {
        if (!s->seat[i].index_resume || !s->seat[i].resume[0])
            continue;
        journal_row *k = row_add(b, JR_TOKEN, id);
        if (!(*ok = k != NULL))
            return;
        k->a = text_str(b, s->seat[i].resume, ok);
        k->n = i;
    }
}

/* One write into the open batch, whole or not at all: the moves of mv (if
 * any), then the seats s as `kind` (JR_SEATS, or JR_FINISH with the result
 * `text` at `at`), or the summary `text` (JR_SUMMARY); *batch: the batch's
 * number. 0, ENG_ESTORAGE (refused) or ENG_ENOMEM (nothing of it kept). */
static int add(journal *j, const char *what, const char *match, const journal_moves *mv, int kind,
               const journal_seats *s, int64_t at, const char *text, uint64_t *batch)
{
    assert(match && (!mv || (mv->n >= 0 && mv->from >= 0 && (!mv->n || (mv->move && mv->time)))));
    journal_check(j);
    if (refused(j))
        return ENG_ESTORAGE;
    journal_batch *b = &j->open;
    const int n0 = b->n;
    const size_t text0 = b->text_len;
    bool ok = true;
    uint32_t id = text_str(b, match, &ok);
    if (mv) {
        uint32_t by = text_str(b, mv->by, &ok), why = text_str(b, mv->reason, &ok);
        int64_t now = srv_epoch_ms();
        for (int i = 0; ok && i < mv->n; i++) {
            journal_row *r = row_add(b, JR_MOVE, id);
            if (!(ok = r != NULL))
                break;
            r->a = by;
            r->b = why;
            r->n = mv->from + i;
            r->move = mv->move[i];
            r->at = now;
            r->think_ms = mv->time[i].think_ms;
            r->wait_ms = mv->time[i].wait_ms;
            if (i == 0 && mv->info)
                r->info = text_str(b, mv->info, &ok);
        }
    }
    int first = b->n;
    if (ok && s)
        add_seats(j, kind, id, s, &ok);
    if (ok && kind == JR_FINISH) {
        b->row[first].at = at;
        b->row[first].b = text_str(b, text, &ok);
    } else if (ok && kind == JR_SUMMARY) {
        journal_row *r = row_add(b, JR_SUMMARY, id);
        if ((ok = r != NULL))
            r->a = text_str(b, text, &ok);
    }
    if (!ok) {
        b->n = n0;
        b->text_len = text0;
        srv_log(LOG_ERROR, "storage_error", "{s:s, s:s, s:s}", "what", what, "match", match,
                j->ops->name, "out of memory");
        return ENG_ENOMEM;
    }
    if (!b->hold)
        b->hold = j->committed + 1; /* its commit: the next one on the connection */
    if (batch)
        *batch = b->hold;
    b->appends += mv != NULL;
    return 0;
}

int journal_append(journal *j, const journal_moves *mv, uint64_t *batch)
{
    return add(j, "append", mv->match, mv, JR_SEATS, mv->seats, 0, NULL, batch);
}

int journal_update_seats(journal *j, const journal_seats *s, uint64_t *batch)
{
    return add(j, "update_seats", s->match, NULL, JR_SEATS, s, 0, NULL, batch);
}

int journal_finish(journal *j, const journal_seats *s, int64_t finished_ms, const char *result,
                   uint64_t *batch)
{
    return add(j, "finish", s->match, NULL, JR_FINISH, s, finished_ms, result, batch);
}

int journal_set_summary(journal *j, const char *match, const char *summary)
{
    if (!j || !j->ops->shared)
        return 0; /* only other servers read it */
    return add(j, "summary", match, NULL, JR_SUMMARY, NULL, 0, summary, NULL);
}

/* The oldest batch of `sent` is stored, by commit number `commit`. */
static void batch_stored(journal *j, uint64_t commit)
{
    journal_batch *b = &j->sent[0];
    /* stored: its commit was made (the engine counted it), and it was
     * written (in flight, or stored by its write at once) */
    SRV_ASSERT(j->nsent > 0 && b->n > 0 && commit >= b->hold && commit <= j->committed);
    phist_add(&j->st.write, (double)(uv_hrtime() - b->t0) / 1e9);
    /* stored by commit number `commit`: normally its messages' number;
     * after a failure, others may have committed in between (a tournament's
     * writes, the batch's own earlier tries): its messages then wait for
     * that commit's sync too */
    if (commit != b->hold) {
        if (!j->barrier_commit || b->hold < j->barrier_hold)
            j->barrier_hold = b->hold;
        if (commit > j->barrier_commit)
            j->barrier_commit = commit;
    }
    bool released = j->synced >= b->hold;
    /* out of the queue: the others move up, its buffers go last for reuse */
    journal_batch done = *b;
    batch_clear(&done);
    memmove(&j->sent[0], &j->sent[1], (size_t)(j->nsent - 1) * sizeof j->sent[0]);
    j->sent[--j->nsent] = done;
    if (j->nflight > 0)
        j->nflight--;
    j->failed = false;
    journal__ok(j);
    /* net.c writes what waited for this commit (--durable: for its sync,
     * journal__synced) */
    if (released && j->on_synced)
        j->on_synced(j->on_synced_arg);
}

/* The oldest batch of `sent` failed, and every one in flight after it
 * with it (they commit in order or not at all): all written again, in
 * order, from the next probe. */
static void batch_failed(journal *j)
{
    SRV_ASSERT(j->nsent > 0);
    phist_add(&j->st.write, (double)(uv_hrtime() - j->sent[0].t0) / 1e9);
    j->nflight = 0;
    j->failed = true;
}

void journal__batch_done(journal *j, bool stored, uint64_t commit)
{
    assert(j->nflight > 0 && j->nflight <= j->nsent);
    if (stored)
        batch_stored(j, commit);
    else
        batch_failed(j);
}

void journal__synced(journal *j)
{
    if (j->on_synced)
        j->on_synced(j->on_synced_arg);
}

/* Write sent[nflight]: false when it did not go out (failed, or the
 * engine is busy), so that nothing after it goes either. */
static bool write_one(journal *j)
{
    journal_batch *b = &j->sent[j->nflight];
    uint64_t commit = 0;
    b->t0 = uv_hrtime();
    switch (j->ops->write(j->be, b, &commit)) {
    case JOURNAL_STORED:
        SRV_ASSERT(j->nflight == 0); /* stored at once only when none is before it */
        batch_stored(j, commit);
        return true;
    case JOURNAL_SENT:
        if (++j->nflight > j->st.most_in_flight)
            j->st.most_in_flight = j->nflight;
        return true;
    case JOURNAL_FAILED: batch_failed(j); return false;
    default: return false; /* busy: the next round */
    }
}

/* Write the batches: those of `sent` not in flight (again, after a
 * failure), in order, then — with no failure to clear first — the open
 * one, while the engine's depth allows. Not while the connection cannot
 * take them (a transaction of another module: they wait for the end of
 * the round), nor during a fault before its next try unless `now`
 * (shutdown). */
static void commit_round(journal *j, bool now)
{
    journal_check(j);
    if (j->nflight == j->nsent && !j->open.n)
        return;
    if ((j->failed || j->fault) && !now && journal__now(j) < j->probe_at)
        return;
    if (j->ops->busy && j->ops->busy(j->be))
        return;
    while (j->nflight < j->nsent)
        if (!write_one(j))
            return;
    if (j->failed || !j->open.n || j->nsent == j->ops->depth)
        return;
    journal_batch t = j->sent[j->nsent];
    j->sent[j->nsent++] = j->open;
    j->open = t;
    write_one(j);
}

/* The end of a loop round (before it polls, and after its I/O callbacks). */
static void round_end(journal *j)
{
    if (j->closing)
        return;
    commit_round(j, false);
    if (j->ops->round)
        j->ops->round(j->be);
}

static void on_round_prep(uv_prepare_t *h)
{
    round_end(h->data);
}

static void on_round_check(uv_check_t *h)
{
    round_end(h->data);
}

/* During a fault, once a second: the batch that failed is written again,
 * or, with none, the engine writes something of its own — so that the end
 * of the fault is noticed (and /readyz, /metrics say so) also when no match
 * writes. */
static void on_probe_timer(uv_timer_t *t)
{
    journal *j = t->data;
    if (j->closing || (!j->fault && !j->failed))
        return;
    if (journal__now(j) < j->probe_at) {
        uv_timer_start(t, on_probe_timer, j->probe_at - journal__now(j), 0);
        return;
    }
    if (j->nsent || j->open.n) {
        commit_round(j, false);
    } else if (!(j->ops->busy && j->ops->busy(j->be))) {
        char msg[300];
        if (j->ops->probe(j->be, msg, sizeof msg) == 0)
            journal__ok(j);
    }
    /* not tried (the connection was busy) or failed again: keep trying */
    if ((j->fault || j->failed) && !j->nflight && !uv_is_active((uv_handle_t *)t))
        uv_timer_start(t, on_probe_timer, JOURNAL_RETRY_MS, 0);
}

/* db.h calls this before every statement of another module on the
 * connection: the batches before it go first, so that the connection's
 * order of writes is the program's (a batch that failed waits for its
 * probe). Not inside a transaction that module opened (the batch went
 * before its BEGIN), nor under a statement of the engine's own. */
static void before_other(void *arg)
{
    journal *j = arg;
    if (j->ops->busy && j->ops->busy(j->be))
        return;
    if (j->ops->wait)
        j->ops->wait(j->be);
    if (!j->failed && j->open.n && !db_in_transaction(j->dbh)) {
        commit_round(j, false);
        if (j->nflight && j->ops->wait)
            j->ops->wait(j->be);
    }
}

/* ---- the holds ----------------------------------------------------------------------------- */

uint64_t journal_hold(const journal *j)
{
    if (!j)
        return 0;
    SRV_ASSERT(j->synced <= j->committed);
    /* the round's batch: its commit (a batch whose write failed holds only
     * what its matches' tables are told: conn.c, match.journal_batch) */
    if (j->open.n && !j->failed)
        return j->open.hold;
    return j->committed > j->synced ? j->committed : 0;
}

uint64_t journal_synced(const journal *j)
{
    if (!j)
        return 0;
    uint64_t at = j->synced;
    /* nothing of a batch not yet stored, nor after it */
    uint64_t pending = j->nsent ? j->sent[0].hold : j->open.hold;
    if (pending && at >= pending)
        at = pending - 1;
    /* a batch stored late (after others' commits): its messages wait for its
     * commit's sync */
    if (j->barrier_commit > at && at >= j->barrier_hold)
        at = j->barrier_hold - 1;
    return at;
}

/* ---- creating ------------------------------------------------------------------------------ */

int journal_create_match(journal *j, const journal_match *m)
{
    commit_round(j, false); /* the round's batch first: its rows come before */
    if (j->closing || (j->fault && journal__now(j) < j->probe_at)) {
        j->st.refused++;
        return ENG_ESTORAGE;
    }
    const textbuf *seats = seats_text(j, &m->seats);
    if (seats->failed)
        return ENG_ENOMEM;
    if (j->ops->begin)
        j->ops->begin(j->be);
    uint64_t t0 = uv_hrtime();
    db_stmt *q = NULL;
    int rc = db_prepare(j->dbh,
                        j->ops->shared
                            ? "INSERT INTO matches(id,game,rules,seats,time_control,policies,seed,"
                              "status,created,demo,move_encoding,chance_nonce,owner) "
                              "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)"
                            : "INSERT INTO matches(id,game,rules,seats,time_control,policies,seed,"
                              "status,created,demo,move_encoding,chance_nonce) "
                              "VALUES(?,?,?,?,?,?,?,?,?,?,?,?)",
                        &q);
    if (rc == DB_OK) {
        db_bind_text(q, 1, m->id, -1);
        db_bind_text(q, 2, m->game, -1);
        db_bind_text(q, 3, m->rules, -1);
        db_bind_text(q, 4, seats->p, (int)seats->len);
        db_bind_text(q, 5, m->time_control, -1);
        db_bind_text(q, 6, m->policies, -1);
        db_bind_int64(q, 7, (int64_t)m->seed);
        db_bind_int(q, 8, m->seats.status);
        db_bind_int64(q, 9, m->created_ms);
        db_bind_int(q, 10, m->demo);
        db_bind_int(q, 11, m->move_encoding);
        if (m->nonce_hex)
            db_bind_text(q, 12, m->nonce_hex, -1);
        else
            db_bind_null(q, 12);
        if (j->ops->shared) /* the server that owns it (cluster.c) */
            db_bind_text(q, 13, j->instance, -1);
        rc = db_step(q);
    }
    db_finalize(q);
    phist_add(&j->st.write, (double)(uv_hrtime() - t0) / 1e9);
    if (rc < 0) {
        journal__failed(j, journal__kind_of_db(rc), "create_match", m->id, db_errmsg(j->dbh), 0);
        return ENG_ESTORAGE;
    }
    journal__ok(j);
    return 0;
}

/* ---- opening and closing --------------------------------------------------------------------- */

static void copy_str(char *dst, size_t cap, const char **field)
{
    snprintf(dst, cap, "%s", *field ? *field : "");
    *field = dst;
}

int journal_open(const char *target, const journal_config *cfg, journal **out, char *err,
                 size_t errcap)
{
    *out = NULL;
    journal *j = calloc(1, sizeof *j);
    if (!j) {
        snprintf(err, errcap, "out of memory");
        return ENG_ENOMEM;
    }
    j->cfg = *cfg;
    copy_str(j->instance, sizeof j->instance, &j->cfg.instance);
    copy_str(j->address, sizeof j->address, &j->cfg.address);
    copy_str(j->fault_file, sizeof j->fault_file, &j->cfg.fault_file);
    copy_str(j->sync_log, sizeof j->sync_log, &j->cfg.sync_log);
    phist_init(&j->st.write, PHIST_FAST);
    phist_init(&j->st.ckpt_stall, PHIST_FAST);
    j->ops = db_target_is_pg(target) ? &journal_pg : &journal_sqlite;
    int rc = j->ops->open(j, target, &j->be, err, errcap);
    if (rc) {
        free(j);
        return rc;
    }
    /* the other modules' statements on this connection come after the
     * round's batch: it is written first */
    db_set_before(j->dbh, before_other, j);
    *out = j;
    return 0;
}

void journal_on_synced(journal *j, void (*fn)(void *arg), void *arg)
{
    j->on_synced = fn;
    j->on_synced_arg = arg;
}

void journal_start(journal *j)
{
    uv_loop_t *loop = j->cfg.loop;
    uv_prepare_init(loop, &j->round_prep);
    uv_check_init(loop, &j->round_check);
    j->round_prep.data = j->round_check.data = j;
    uv_prepare_start(&j->round_prep, on_round_prep);
    uv_check_start(&j->round_check, on_round_check);
    uv_unref((uv_handle_t *)&j->round_prep);
    uv_unref((uv_handle_t *)&j->round_check);
    uv_timer_init(loop, &j->probe_timer);
    j->probe_timer.data = j;
    uv_unref((uv_handle_t *)&j->probe_timer);
    j->started = true;
    j->up_since = journal__now(j);
    j->ops->start(j->be);
}

void journal_stop(journal *j)
{
    if (!j || j->closing)
        return;
    /* what the last rounds left (batches that failed once more, if any):
     * written and awaited until none is left, or a write fails again (one
     * more pass than the depth: the open batch may wait for room) */
    for (int pass = 0; pass <= j->ops->depth && (j->nsent || j->open.n); pass++) {
        commit_round(j, true);
        if (j->nflight && j->ops->wait)
            j->ops->wait(j->be);
        if (j->failed)
            break;
    }
    j->closing = true;
    if (j->started) {
        uv_close((uv_handle_t *)&j->round_prep, NULL);
        uv_close((uv_handle_t *)&j->round_check, NULL);
        uv_close((uv_handle_t *)&j->probe_timer, NULL);
    }
    j->ops->stop(j->be, j->nsent || j->open.n);
}

void journal_close(journal *j)
{
    if (!j)
        return;
    if (!j->started && (j->open.n || j->nsent))
        commit_round(j, true); /* never started: nothing was announced, nothing is lost */
    j->ops->close(j->be);
    batch_free(&j->open);
    for (int i = 0; i < JOURNAL_DEPTH_MAX; i++)
        batch_free(&j->sent[i]);
    tb_free(&j->seats_txt);
    free(j);
}

struct db_conn *journal_db(const journal *j)
{
    return j ? j->dbh : NULL;
}

bool journal_shared(const journal *j)
{
    return j && j->ops->shared;
}

const char *journal_describe(const journal *j)
{
    return j ? j->target : "";
}

/* ---- reading ---------------------------------------------------------------------------------- */

static const char *col_text(db_stmt *q, int i)
{
    const char *t = db_column_text(q, i);
    return t ? t : "";
}

/* The most moves any registered game can have: the size of the one buffer
 * a restore reads a match's moves into (no growing, so no journal is ever
 * cut short by a failed allocation). */
static int max_plies_of_all_games(void)
{
    int n, most = 1;
    const eng_game *const *all = eng_games(&n);
    for (int i = 0; i < n; i++)
        if (all[i]->max_plies > most)
            most = all[i]->max_plies;
    return most;
}

/* A move's time figure from its column: -1 for NULL (none). Anything else
 * than an integer from 0 to a day is no figure the server wrote: refused. */
static int read_time(db_stmt *mv, int col, int64_t *out)
{
    if (db_column_null(mv, col)) {
        *out = -1;
        return 0;
    }
    int64_t v = db_column_int64(mv, col);
    if (!db_column_is_int(mv, col) || v < 0 || v > REC_TIME_MAX_MS)
        return -1;
    *out = v;
    return 0;
}

/* Free the thinking lines read_moves copied, infos[0..n). */
static void infos_clear(char **infos, int n)
{
    for (int i = 0; i < n; i++) {
        free(infos[i]);
        infos[i] = NULL;
    }
}

/* Read the moves of match `id` into moves[0..*n), their time figures into
 * times[0..*n) and their thinking lines into infos[0..*n) (copies, NULL for
 * none; infos_clear frees them): every ply from 0 in order, each an
 * integer, at most `most`. Returns 0, or -1 with the reason in why (the
 * restore of that match fails: nothing is ever silently cut short). A
 * thinking line is advice, not the game: one the server cannot copy is
 * left out, and restore checks what it reads. */
static int read_moves(journal *j, db_stmt *mv, const char *id, eng_move *moves, rec_time *times,
                      char **infos, int most, int *n, char *why, size_t whycap)
{
    *n = 0;
    db_reset(mv);
    db_bind_text(mv, 1, id, -1);
    int rc;
    while ((rc = db_step(mv)) == DB_ROW) {
        if (*n == most) {
            snprintf(why, whycap,
                     "the journal holds more than %d moves, more than the game can have", most);
            goto fail;
        }
        if (!db_column_is_int(mv, 0) || db_column_int64(mv, 0) != *n) {
            snprintf(why, whycap, "the journal's move %d is missing (plies must run 0, 1, 2, ...)",
                     *n);
            goto fail;
        }
        int64_t v = db_column_int64(mv, 1);
        if (!db_column_is_int(mv, 1) || v < INT32_MIN || v > INT32_MAX) {
            snprintf(why, whycap, "the journal's move %d is not a move integer", *n);
            goto fail;
        }
        if (read_time(mv, 2, &times[*n].think_ms) || read_time(mv, 3, &times[*n].wait_ms)) {
            snprintf(why, whycap,
                     "the journal's move %d has a time figure that is not a number "
                     "of milliseconds from 0 to a day",
                     *n);
            goto fail;
        }
        const char *info = db_column_null(mv, 4) ? NULL : db_column_text(mv, 4);
        infos[*n] = info ? strdup(info) : NULL;
        moves[(*n)++] = (eng_move)v;
    }
    if (rc != DB_DONE) {
        snprintf(why, whycap, "reading its moves: %s", db_errmsg(j->dbh));
        goto fail;
    }
    db_reset(mv);
    return 0;
fail:
    db_reset(mv);
    return -1;
}

/* The columns load_rows reads, in its order. */
#define MATCH_COLUMNS                                                                            \
    "id,game,rules,seats,time_control,policies,seed,status,result,created,finished,demo,"        \
    "move_encoding,chance_nonce"

/* Restore the matches selected by `sql` (one row per match, MATCH_COLUMNS;
 * its one parameter, if any, is bound to `param`). A match already held
 * (restored before) is skipped. A match that cannot be restored is logged
 * (restore_failed, with the reason) and left in the journal; the others are
 * restored. Returns 0, or a negative code with err when the journal cannot
 * be read at all. */
static int load_rows(journal *j, const journal_restorer *r, const char *sql, const char *param,
                     int *count, char *err, size_t errcap)
{
    db_stmt *q = NULL, *mv = NULL;
    if (db_prepare(j->dbh, sql, &q) ||
        db_prepare(j->dbh,
                   "SELECT ply, move, think_ms, wait_ms, info FROM moves WHERE match=? "
                   "ORDER BY ply",
                   &mv)) {
        snprintf(err, errcap, "database: %s", db_errmsg(j->dbh));
        db_finalize(q);
        db_finalize(mv);
        return ENG_ESTORAGE;
    }
    if (param)
        db_bind_text(q, 1, param, -1);
    int most = max_plies_of_all_games();
    eng_move *moves = malloc((size_t)most * sizeof *moves);
    rec_time *times = malloc((size_t)most * sizeof *times);
    char **infos = calloc((size_t)most, sizeof *infos);
    if (!moves || !times || !infos) {
        free(moves);
        free(times);
        free(infos);
        snprintf(err, errcap, "out of memory for the journal's moves");
        db_finalize(q);
        db_finalize(mv);
        return ENG_ENOMEM;
    }
    int rc = 0, step;
    while ((step = db_step(q)) == DB_ROW) {
        const char *id = col_text(q, 0), *game = col_text(q, 1);
        if (r->held(r->arg, id))
            continue;
        const eng_game *g = eng_find_game(game);
        long long encoding = db_column_int64(q, 12);
        char why[256];
        int n = 0;
        bool ok = false;
        if (g && encoding != g->move_encoding)
            snprintf(why, sizeof why,
                     "its moves were journaled in %s move encoding %lld; this tessera reads "
                     "encoding %d, and will not misread them",
                     g->name, encoding, g->move_encoding);
        else if (read_moves(j, mv, id, moves, times, infos, g ? g->max_plies : most, &n, why,
                            sizeof why) == 0 &&
                 (!j->ops->lines || (j->ops->lines(j->be, id, infos, n), true)))
            ok = r->restore(r->arg,
                            &(journal_stored){
                                .id = id,
                                .game = game,
                                .rules_json = col_text(q, 2),
                                .seats_json = col_text(q, 3),
                                .tc_json = col_text(q, 4),
                                .pol_json = col_text(q, 5),
                                .seed = (uint64_t)db_column_int64(q, 6),
                                .nonce_hex = db_column_text(q, 13),
                                .status = db_column_int(q, 7),
                                .result_json = col_text(q, 8),
                                .created_ms = db_column_int64(q, 9),
                                .finished_ms = db_column_int64(q, 10),
                                .demo = db_column_int(q, 11) != 0,
                                .moves = moves,
                                .times = times,
                                .infos = (const char *const *)infos,
                                .nmoves = n,
                            },
                            why, sizeof why);
        infos_clear(infos, n);
        if (!ok)
            srv_log(LOG_ERROR, "restore_failed", "{s:s, s:s}", "match", id, "reason", why);
        else
            (*count)++;
    }
    if (step != DB_DONE) {
        snprintf(err, errcap, "database: reading the matches: %s", db_errmsg(j->dbh));
        rc = ENG_ESTORAGE;
    }
    free(moves);
    free(times);
    free(infos);
    db_finalize(q);
    db_finalize(mv);
    return rc;
}

int journal_load(journal *j, const journal_restorer *r, int finished_kept, char *err,
                 size_t errcap)
{
    int live = 0, done = 0;
    char sql[512];
    /* the latest finished ones first, so that the list shows them */
    snprintf(sql, sizeof sql,
             "SELECT " MATCH_COLUMNS " FROM (SELECT * FROM matches "
             "WHERE status=%d ORDER BY created DESC LIMIT %d) AS latest ORDER BY created",
             JOURNAL_FINISHED, finished_kept);
    int rc = load_rows(j, r, sql, NULL, &done, err, errcap);
    if (rc)
        return rc;
    /* the unfinished ones: on a shared database those this server owns (the
     * others are other servers', or taken over from a dead one) */
    snprintf(sql, sizeof sql,
             "SELECT " MATCH_COLUMNS " FROM matches WHERE status<>%d%s ORDER BY created",
             JOURNAL_FINISHED, j->ops->shared ? " AND owner=?" : "");
    rc = load_rows(j, r, sql, j->ops->shared ? j->instance : NULL, &live, err, errcap);
    if (rc)
        return rc;
    srv_log(LOG_INFO, "restored", "{s:i, s:i}", "unfinished", live, "finished", done);
    return 0;
}

int journal_load_finished(journal *j, const char *id, const journal_restorer *r, char *err,
                          size_t errcap)
{
    char sql[200];
    snprintf(sql, sizeof sql, "SELECT " MATCH_COLUMNS " FROM matches WHERE id=? AND status=%d",
             JOURNAL_FINISHED);
    int count = 0;
    int rc = load_rows(j, r, sql, id, &count, err, errcap);
    return rc ? rc : count == 1 ? 0 : -1;
}

int journal_load_owned(journal *j, const journal_restorer *r, int *count, char *err,
                       size_t errcap)
{
    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT " MATCH_COLUMNS " FROM matches WHERE status<>%d AND owner=? ORDER BY created",
             JOURNAL_FINISHED);
    *count = 0;
    return load_rows(j, r, sql, j->instance, count, err, errcap);
}

int journal_resume_status(journal *j, const char *token)
{
    if (!j || !token || !*token)
        return -1;
    /* a finished match no longer held in memory: through the token index */
    db_stmt *q = NULL;
    int status = -1;
    if (db_prepare(j->dbh,
                   "SELECT m.status FROM resume_tokens t JOIN matches m ON m.id = t.match "
                   "WHERE t.token = ?",
                   &q) == DB_OK) {
        db_bind_text(q, 1, token, -1);
        if (db_step(q) == DB_ROW)
            status = db_column_int(q, 0);
    }
    db_finalize(q);
    return status;
}

int journal_match_result(journal *j, const char *id, int *status, json_t **result)
{
    *result = NULL;
    if (!j)
        return -1;
    db_stmt *q = NULL;
    int rc = -1;
    if (db_prepare(j->dbh, "SELECT status, result FROM matches WHERE id=?", &q) == DB_OK) {
        db_bind_text(q, 1, id, -1);
        if (db_step(q) == DB_ROW) {
            *status = db_column_int(q, 0);
            const char *res = col_text(q, 1);
            if (res[0])
                *result = json_loads(res, 0, NULL);
            rc = 0;
        }
    }
    db_finalize(q);
    return rc;
}
