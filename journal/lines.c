/*
 * lines.c — the turns' thinking lines on the SQLite journal, apart from
 * the moves (lines.h says where they go and why).
 *
 * Why apart. `moves` is keyed by match and ply: the rows of a thousand
 * live matches interleave, and each commit writes a page of it per match
 * that moved. A turn's line made its move's row three times as long, so
 * the table three times as many pages — twice the pages a commit wrote to
 * the WAL and more than SQLite's cache holds (bench/README.md, issue 27).
 * Appended in rowid order, the lines of a commit go to the log's last page
 * (and its overflow pages when they are many), whatever matches they are
 * of, and `moves` stays as it is without lines.
 *
 * Memory. Each live match that has sent a line has an entry here: its
 * lines in ply order (copies in one block of the match's, what its finish
 * writes as it is and a restore reads) and the oldest log row that holds any of them. Entries are
 * changed as a batch is written, by ply — a batch that failed is written
 * again whole, and sets the same lines again — and their rows, and their
 * removal when finished, are settled only once its COMMIT has succeeded
 * (sq_lines_done). The memory is the live lines' size (a line is at most a
 * few hundred bytes: thinking.c compacts it), freed as matches finish.
 *
 * The log's size. Every PRUNE_EVERY writes, the rows before the oldest a
 * live match needs are deleted, from the table's beginning (pages freed
 * whole). A match that stays live while thousands of rows pass would keep
 * them all: when the log holds more rows than twice the live lines and the
 * slack, the matches whose lines begin in its older half have them
 * written again in this write's row, and that half is deleted — each line
 * written again at most about once for every line the deletion frees.
 */
#include <assert.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/textbuf.h"
#include "journal_int.h"
#include "lines.h"

/* Pruning: how often (writes of a batch), and the log's default slack
 * (rows beyond twice the live lines before matches are relocated). */
#define PRUNE_EVERY 64
#define DEFAULT_SLACK 4096

enum { M_PEND = 1, M_DONE = 2 }; /* an entry in the write in progress: its first row is
                                    this write's; its match finished */

typedef struct line {
    int ply;
    uint32_t off, len;  /* its entry in the match's buf: "<ply> <len>:<line>\n", as the rows
                           hold it, written once */
    uint32_t at, n;     /* the line's text in its entry */
} line;

typedef struct live {
    struct live *next;  /* its hash chain */
    int64_t first;      /* the oldest log row holding its lines; 0: none stored yet */
    line *e;            /* by ply, ascending */
    int n, cap;
    textbuf buf;        /* the entries, one after the other: one block a match, not a
                           block a line (the heap stays as it is without lines) */
    bool messy;         /* buf is not e's entries in order (a line replaced or put before
                           another): the finish writes them one by one */
    unsigned mark;      /* M_*: in `touched` while not 0 */
    uint32_t hash;      /* of id */
    char id[];          /* the match's (in the entry: one cache line to look it up) */
} live;

struct sq_lines {
    sqlite3 *db;
    sqlite3_stmt *ins_log, *del_log, *ins_done, *get_done;
    live **bucket;
    size_t nbucket, nlive;
    int64_t nlines;     /* lines held */
    int64_t low, last;  /* the log's first and last rows (0, 0: empty) */
    int slack;
    int writes;         /* since the last pruning */
    /* the write in progress */
    textbuf log, fin;   /* its log row's text; a finished match's */
    live **touched;
    int ntouched, touched_cap;
    int64_t row, cut;   /* its log row (0: none); rows before cut deleted (0: none) */
    bool damaged;       /* the log held text we could not read (logged once) */
    /* figures for the log (sq_lines_figures) */
    uint64_t nrows, nlogged, nrelocated, npruned, nplans;
    int nlogged_now, nrelocated_now; /* the write in progress */
    bool planned;       /* the write in progress looked over the live matches (prune_plan) */
};

static uint32_t hash_id(const char *s)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static live **slot_of(sq_lines *l, const char *id, uint32_t h)
{
    live **p = &l->bucket[h & (l->nbucket - 1)];
    while (*p && ((*p)->hash != h || strcmp((*p)->id, id) != 0))
        p = &(*p)->next;
    return p;
}

static live *find(sq_lines *l, const char *id)
{
    return *slot_of(l, id, hash_id(id));
}

/* Twice the buckets when the chains grow long (a failed growth keeps the
 * old table: longer chains, still right). */
static void grow(sq_lines *l)
{
    size_t n = l->nbucket * 2;
    live **b = calloc(n, sizeof *b);
    if (!b)
        return;
    for (size_t i = 0; i < l->nbucket; i++)
        for (live *e = l->bucket[i], *next; e; e = next) {
            next = e->next;
            live **p = &b[e->hash & (n - 1)];
            e->next = *p;
            *p = e;
        }
    free(l->bucket);
    l->bucket = b;
    l->nbucket = n;
}

static live *find_or_add(sq_lines *l, const char *id)
{
    uint32_t h = hash_id(id);
    live **p = slot_of(l, id, h);
    if (*p)
        return *p;
    size_t n = strlen(id);
    live *e = calloc(1, sizeof *e + n + 1);
    if (!e)
        return NULL;
    e->hash = h;
    memcpy(e->id, id, n + 1);
    *p = e;
    if (++l->nlive > 2 * l->nbucket)
        grow(l);
    return e;
}

static void live_free(sq_lines *l, live *e)
{
    tb_free(&e->buf);
    l->nlines -= e->n;
    free(e->e);
    free(e);
}

static void remove_live(sq_lines *l, live *e)
{
    live **p = slot_of(l, e->id, e->hash);
    assert(*p == e);
    *p = e->next;
    l->nlive--;
    live_free(l, e);
}

/* A number in decimal at p: the characters written (at most 20). */
static size_t put_dec(char *p, uint64_t v)
{
    char tmp[20];
    size_t n = 0;
    do
        tmp[n++] = (char)('0' + v % 10);
    while ((v /= 10) > 0);
    for (size_t i = 0; i < n; i++)
        p[i] = tmp[n - 1 - i];
    return n;
}

/* The entry of a line, "<ply> <len>:<line>\n", at the end of the match's
 * buf. 0, or -1 out of memory. The block grows four times over, not two:
 * each growth copies it, and the copies of a thousand matches' blocks,
 * cold, were a tenth of the cache misses a line cost (callgrind's cache
 * simulation, bench/README.md). */
static int make_entry(live *e, line *x, int ply, const char *text, size_t len)
{
    size_t room = e->buf.cap - e->buf.len > len + 44 ? 0 : 3 * e->buf.cap;
    if (len > UINT32_MAX / 2 || e->buf.len > UINT32_MAX / 2 ||
        tb_reserve(&e->buf, len + 44 + room))
        return -1;
    char *p = e->buf.p + e->buf.len;
    size_t k = put_dec(p, (uint64_t)ply);
    p[k++] = ' ';
    k += put_dec(p + k, len);
    p[k++] = ':';
    memcpy(p + k, text, len);
    p[k + len] = '\n';
    *x = (line){.ply = ply, .off = (uint32_t)e->buf.len, .len = (uint32_t)(k + len + 1),
                .at = (uint32_t)k, .n = (uint32_t)len};
    e->buf.len += k + len + 1;
    e->buf.p[e->buf.len] = 0;
    return 0;
}

static const char *entry_of(const live *e, const line *x)
{
    return e->buf.p + x->off;
}

/* The match's line of `ply`, set (a later one of the same ply replaces
 * it: a batch written again, or a relocated copy read back). Its entry,
 * or NULL out of memory. */
static const line *set_line(sq_lines *l, live *e, int ply, const char *text, size_t len)
{
    int at = e->n;
    while (at > 0 && e->e[at - 1].ply >= ply)
        at--;
    line x;
    if (at < e->n && e->e[at].ply == ply) {
        line *old = &e->e[at];
        if (old->n == len && memcmp(entry_of(e, old) + old->at, text, len) == 0)
            return old;
        if (make_entry(e, &x, ply, text, len))
            return NULL;
        *old = x;
        e->messy = true;
        return old;
    }
    if (e->n == e->cap) {
        int cap = e->cap ? 2 * e->cap : 16;
        line *p = realloc(e->e, (size_t)cap * sizeof *p);
        if (!p)
            return NULL;
        e->e = p;
        e->cap = cap;
    }
    if (make_entry(e, &x, ply, text, len))
        return NULL;
    e->messy = e->messy || at < e->n;
    memmove(e->e + at + 1, e->e + at, (size_t)(e->n - at) * sizeof *e->e);
    e->e[at] = x;
    e->n++;
    l->nlines++;
    return &e->e[at];
}

static int touch(sq_lines *l, live *e, unsigned mark)
{
    if (!e->mark) {
        if (l->ntouched == l->touched_cap) {
            int cap = l->touched_cap ? 2 * l->touched_cap : 64;
            live **p = realloc(l->touched, (size_t)cap * sizeof *p);
            if (!p)
                return -1;
            l->touched = p;
            l->touched_cap = cap;
        }
        l->touched[l->ntouched++] = e;
    }
    e->mark |= mark;
    return 0;
}

/* ---- the rows' text ---------------------------------------------------------------------- */

/* A log entry: the line's entry after "<idlen>:<id>". */
static void put_entry(textbuf *t, const char *id, size_t idlen, const live *e, const line *x)
{
    if (tb_reserve(t, idlen + 21 + x->len))
        return; /* failed: the caller sees it */
    char *p = t->p + t->len;
    size_t k = put_dec(p, idlen);
    p[k++] = ':';
    memcpy(p + k, id, idlen);
    memcpy(p + k + idlen, entry_of(e, x), x->len);
    t->len += k + idlen + x->len;
    t->p[t->len] = 0;
}

/* A decimal number at *p, up to `stop`: its value, *p past it and the
 * character after it; -1 when there is none or it is too long. */
static long long number(const char **p, const char *end, char stop)
{
    const char *s = *p;
    long long v = 0;
    int digits = 0;
    while (s < end && *s >= '0' && *s <= '9' && digits < 12) {
        v = v * 10 + (*s++ - '0');
        digits++;
    }
    if (!digits || s >= end || *s != stop)
        return -1;
    *p = s + 1;
    return v;
}

/* The next entry of a row's text at *p (with its match's id when `log`):
 * 1 and its parts, 0 at the end, -1 when the text is not entries. */
static int next_entry(const char **p, const char *end, bool log, const char **id, size_t *idlen,
                      int *ply, const char **text, size_t *len)
{
    if (*p >= end)
        return 0;
    const char *s = *p;
    if (log) {
        long long n = number(&s, end, ':');
        if (n <= 0 || n > end - s)
            return -1;
        *id = s;
        *idlen = (size_t)n;
        s += n;
    }
    long long pl = number(&s, end, ' ');
    long long n = pl < 0 || pl > INT32_MAX ? -1 : number(&s, end, ':');
    if (n < 0 || n >= end - s || s[n] != '\n')
        return -1;
    *ply = (int)pl;
    *text = s;
    *len = (size_t)n;
    *p = s + n + 1;
    return 1;
}

static void damaged(sq_lines *l, const char *where)
{
    if (l->damaged)
        return;
    l->damaged = true;
    srv_log(LOG_WARN, "journal_lines_damaged", "{s:s, s:s}", "table", where, "note",
            "thinking lines the journal could not read were left out (the moves are intact)");
}

/* ---- opening ---------------------------------------------------------------------------- */

/* The log read back: every live match's lines, and the rows they begin in. */
static int read_log(sq_lines *l)
{
    sqlite3_stmt *q = NULL;
    int rc = sqlite3_prepare_v2(l->db, "SELECT seq, lines FROM info_log ORDER BY seq", -1, &q, NULL);
    while (rc == SQLITE_OK && (rc = sqlite3_step(q)) == SQLITE_ROW) {
        rc = SQLITE_OK;
        int64_t seq = sqlite3_column_int64(q, 0);
        const char *p = (const char *)sqlite3_column_text(q, 1);
        const char *end = p ? p + sqlite3_column_bytes(q, 1) : NULL;
        if (!l->low)
            l->low = seq;
        l->last = seq;
        const char *id, *text;
        size_t idlen, len;
        int ply, got = 0;
        while (p && (got = next_entry(&p, end, true, &id, &idlen, &ply, &text, &len)) == 1) {
            char key[256];
            if (idlen >= sizeof key) {
                got = -1;
                break;
            }
            memcpy(key, id, idlen);
            key[idlen] = 0;
            live *e = find_or_add(l, key);
            if (!e || !set_line(l, e, ply, text, len)) {
                rc = SQLITE_NOMEM;
                break;
            }
            if (!e->first)
                e->first = seq;
        }
        if (p && got < 0)
            damaged(l, "info_log");
    }
    sqlite3_finalize(q);
    if (rc != SQLITE_DONE && rc != SQLITE_OK)
        return rc;
    /* a finished match's lines are in `infos` (its finish wrote them in
     * its transaction): the log's copies are only waiting to be pruned */
    rc = sqlite3_prepare_v2(l->db, "SELECT status FROM matches WHERE id=?", -1, &q, NULL);
    for (size_t i = 0; rc == SQLITE_OK && i < l->nbucket; i++)
        for (live *e = l->bucket[i], *next; e; e = next) {
            next = e->next;
            sqlite3_bind_text(q, 1, e->id, -1, SQLITE_STATIC);
            int st = sqlite3_step(q);
            if (st != SQLITE_ROW || sqlite3_column_int(q, 0) == JOURNAL_FINISHED)
                remove_live(l, e);
            sqlite3_reset(q);
        }
    sqlite3_finalize(q);
    return rc;
}

int sq_lines_open(sqlite3 *db, int slack, sq_lines **out)
{
    *out = NULL;
    sq_lines *l = calloc(1, sizeof *l);
    if (!l || !(l->bucket = calloc(l->nbucket = 256, sizeof *l->bucket))) {
        free(l);
        return SQLITE_NOMEM;
    }
    l->db = db;
    l->slack = slack > 0 ? slack : DEFAULT_SLACK;
    int rc;
    if ((rc = sqlite3_prepare_v3(db, "INSERT INTO info_log(lines) VALUES(?)", -1,
                                 SQLITE_PREPARE_PERSISTENT, &l->ins_log, NULL)) ||
        (rc = sqlite3_prepare_v3(db, "DELETE FROM info_log WHERE seq < ?", -1,
                                 SQLITE_PREPARE_PERSISTENT, &l->del_log, NULL)) ||
        (rc = sqlite3_prepare_v3(db, "INSERT OR REPLACE INTO infos(match, lines) VALUES(?,?)", -1,
                                 SQLITE_PREPARE_PERSISTENT, &l->ins_done, NULL)) ||
        (rc = sqlite3_prepare_v3(db, "SELECT lines FROM infos WHERE match=?", -1,
                                 SQLITE_PREPARE_PERSISTENT, &l->get_done, NULL)) ||
        (rc = read_log(l))) {
        sq_lines_close(l);
        return rc;
    }
    *out = l;
    return SQLITE_OK;
}

void sq_lines_close(sq_lines *l)
{
    if (!l)
        return;
    sqlite3_finalize(l->ins_log);
    sqlite3_finalize(l->del_log);
    sqlite3_finalize(l->ins_done);
    sqlite3_finalize(l->get_done);
    for (size_t i = 0; i < l->nbucket; i++)
        for (live *e = l->bucket[i], *next; e; e = next) {
            next = e->next;
            live_free(l, e);
        }
    free(l->bucket);
    free(l->touched);
    tb_free(&l->log);
    tb_free(&l->fin);
    free(l);
}

/* ---- writing ------------------------------------------------------------------------------ */

void sq_lines_begin(sq_lines *l)
{
    assert(l->ntouched == 0);
    tb_reset(&l->log);
    l->row = l->cut = 0;
    l->nlogged_now = l->nrelocated_now = 0;
    l->planned = false;
}

int sq_lines_move(sq_lines *l, const char *match, int ply, const char *text)
{
    assert(match && text && ply >= 0);
    live *e = find_or_add(l, match);
    const line *x = e ? set_line(l, e, ply, text, strlen(text)) : NULL;
    if (!x || (!e->first && touch(l, e, M_PEND)))
        return SQLITE_NOMEM;
    put_entry(&l->log, match, strlen(match), e, x);
    l->nlogged_now++;
    return l->log.failed ? SQLITE_NOMEM : SQLITE_OK;
}

static int step_done(sqlite3_stmt *q)
{
    int rc = sqlite3_step(q);
    sqlite3_reset(q);
    sqlite3_clear_bindings(q);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

int sq_lines_finish(sq_lines *l, const char *match)
{
    live *e = find(l, match);
    if (!e)
        return SQLITE_OK; /* it sent no line (or they are all in `moves`: an older journal) */
    if (touch(l, e, M_DONE))
        return SQLITE_NOMEM;
    if (!e->n)
        return SQLITE_OK;
    const textbuf *t = &e->buf; /* the entries in order, as they came */
    if (e->messy) {
        tb_reset(&l->fin);
        for (int i = 0; i < e->n; i++)
            tb_put(&l->fin, entry_of(e, &e->e[i]), e->e[i].len);
        if (l->fin.failed)
            return SQLITE_NOMEM;
        t = &l->fin;
    }
    sqlite3_bind_text(l->ins_done, 1, match, -1, SQLITE_STATIC);
    sqlite3_bind_text(l->ins_done, 2, t->p, (int)t->len, SQLITE_STATIC);
    return step_done(l->ins_done);
}

/* Every PRUNE_EVERY writes: the rows no live match needs, from the log's
 * beginning, to be deleted in this write (l->cut); when the log is long
 * for the lines it holds, the matches that begin in its older half are
 * written again in this write's row first. */
static int prune_plan(sq_lines *l)
{
    if (++l->writes < PRUNE_EVERY || !l->last)
        return 0;
    l->planned = true;
    int64_t rows = l->last - l->low + 1;
    int64_t reloc = rows > 2 * l->nlines + l->slack ? l->low + rows / 2 : 0;
    int64_t keep = INT64_MAX;
    for (size_t i = 0; i < l->nbucket; i++)
        for (live *e = l->bucket[i]; e; e = e->next) {
            if ((e->mark & M_DONE) || !e->first || (e->mark & M_PEND))
                continue; /* nothing of it stays, or all of it is in this write's row */
            if (e->first < reloc) {
                for (int k = 0; k < e->n; k++)
                    put_entry(&l->log, e->id, strlen(e->id), e, &e->e[k]);
                l->nrelocated_now += e->n;
                if (touch(l, e, M_PEND))
                    return -1;
                continue;
            }
            if (e->first < keep)
                keep = e->first;
        }
    l->cut = keep == INT64_MAX ? l->last + 1 : keep;
    if (l->cut <= l->low)
        l->cut = 0;
    return l->log.failed ? -1 : 0;
}

int sq_lines_end(sq_lines *l)
{
    if (prune_plan(l))
        return SQLITE_NOMEM;
    int rc;
    if (l->log.len) {
        sqlite3_bind_text(l->ins_log, 1, l->log.p, (int)l->log.len, SQLITE_STATIC);
        if ((rc = step_done(l->ins_log)) != SQLITE_OK)
            return rc;
        l->row = sqlite3_last_insert_rowid(l->db);
    }
    if (l->cut) {
        sqlite3_bind_int64(l->del_log, 1, l->cut);
        if ((rc = step_done(l->del_log)) != SQLITE_OK)
            return rc;
    }
    return SQLITE_OK;
}

void sq_lines_done(sq_lines *l, int committed)
{
    for (int i = 0; i < l->ntouched; i++) {
        live *e = l->touched[i];
        unsigned mark = e->mark;
        e->mark = 0;
        if (!committed)
            continue; /* the batch is written again whole: the same lines */
        if (mark & M_DONE)
            remove_live(l, e);
        else if ((mark & M_PEND) && l->row)
            e->first = l->row;
    }
    l->ntouched = 0;
    if (!committed)
        return;
    if (l->planned) { /* the next plan is PRUNE_EVERY writes on, whether it cut or not */
        l->nplans++;
        l->writes = 0;
    }
    l->nlogged += (uint64_t)l->nlogged_now;
    l->nrelocated += (uint64_t)l->nrelocated_now;
    if (l->cut && l->last)
        l->npruned += (uint64_t)((l->cut <= l->last + 1 ? l->cut : l->last + 1) - l->low);
    if (l->row) {
        l->nrows++;
        l->last = l->row;
        if (!l->low)
            l->low = l->row;
    }
    if (l->cut && l->cut > l->low)
        l->low = l->cut;
    if (l->low > l->last)
        l->low = l->last = 0; /* empty */
}

void sq_lines_figures(const sq_lines *l, uint64_t *rows, uint64_t *lines, uint64_t *relocated,
                      uint64_t *pruned, uint64_t *plans)
{
    *rows = l->nrows;
    *lines = l->nlogged;
    *relocated = l->nrelocated;
    *pruned = l->npruned;
    *plans = l->nplans;
}

/* ---- reading ------------------------------------------------------------------------------ */

void sq_lines_read(sq_lines *l, const char *match, char **infos, int n)
{
    sqlite3_bind_text(l->get_done, 1, match, -1, SQLITE_STATIC);
    if (sqlite3_step(l->get_done) == SQLITE_ROW) {
        const char *p = (const char *)sqlite3_column_text(l->get_done, 0);
        const char *end = p ? p + sqlite3_column_bytes(l->get_done, 0) : NULL;
        const char *text;
        size_t len;
        int ply, got = 0;
        while (p && (got = next_entry(&p, end, false, NULL, NULL, &ply, &text, &len)) == 1)
            if (ply < n && !infos[ply])
                infos[ply] = strndup(text, len);
        if (p && got < 0)
            damaged(l, "infos");
    }
    sqlite3_reset(l->get_done);
    sqlite3_clear_bindings(l->get_done);
    live *e = find(l, match);
    for (int i = 0; e && i < e->n; i++)
        if (e->e[i].ply < n && !infos[e->e[i].ply])
            infos[e->e[i].ply] = strndup(entry_of(e, &e->e[i]) + e->e[i].at, e->e[i].n);
}
