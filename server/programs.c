/*
 * programs.c — external programs in seats (`cmd:` and `cmd-stateless:`
 * specs): each program seat of a live match has a worker thread of its own
 * that lives as long as the game, owns the seat's player (players/player.h)
 * and does every call on it; the loop thread never waits for a program.
 *
 * Why a thread per seat and not the libuv pool: a program's process is
 * bound to the thread that started it (PR_SET_PDEATHSIG, players/sandbox.h)
 * so that no program outlives a crashed server, and a player is used by one
 * thread at a time; the pool runs each job on whichever of its few threads
 * is free, and a program waiting out its deadline would hold one of them
 * for seconds, starving the in-process searches that share it. A worker
 * thread per program seat is bounded by SRV_MAX_PROGRAMS, sleeps on a
 * condition variable between turns, and ends (taking its program with it)
 * when the game ends or the match is closed.
 *
 * The loop talks to a worker through a command queue (new game or resume,
 * observe a move, play a turn, game over, quit), each command carrying a
 * copy of the state it concerns; the worker answers through one uv_async_t
 * shared by all workers, with a queue of results guarded by a mutex. A
 * result names the turn (seq) it answers: the loop drops answers to turns
 * it no longer waits for (a timeout already applied).
 *
 * In-process bots do not come through here (nor through players/'s bot
 * player): agents.c runs their searches on the pool with nothing to start
 * or stop, one job per turn and no thread per seat — thousands of bot
 * matches at once cost threads only while they think. One mechanism would
 * cost a thread per bot seat or bring a program's thread rules to the pool.
 *
 * Each program's log — the tail of its stderr over the game, its verdicts,
 * how many times it was started — is kept on the loop side and stored in
 * the journal (program_logs) at every fault and at the end, for the
 * match's owner (get_record with the admin token).
 *
 * A program's first fault in a game is also kept as a fault bundle
 * (players/bundle.h, docs/bundles.md): the worker keeps the lines of the
 * game (player_transcript) and hands them over with a faulty turn's answer;
 * the loop adds the match's moves so far, its chance seed and the turn's
 * allowance, and stores the bundle (program_bundles). It holds the seed, so
 * get_record gives it to the admin only once the match is over.
 */
#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"
#include "players/bundle.h"
#include "players/player.h"
#include "programs.h"
#include "protocol/chance.h"
#include "thinking.h"
#include "storage/db.h"
#include "journal/journal.h"

static const char tables[] =
    "CREATE TABLE IF NOT EXISTS program_logs("
    "  match TEXT NOT NULL, seat INTEGER NOT NULL, spec TEXT NOT NULL, log TEXT NOT NULL,"
    "  PRIMARY KEY(match, seat)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS program_bundles("
    "  match TEXT NOT NULL, seat INTEGER NOT NULL, bundle TEXT NOT NULL,"
    "  PRIMARY KEY(match, seat)) WITHOUT ROWID;";

typedef enum { PC_START, PC_OBSERVE, PC_TURN, PC_GAME_OVER, PC_QUIT } pcmd_kind;

typedef struct pcmd {
    struct pcmd *next;
    pcmd_kind kind;
    eng_move mv;        /* observe */
    char reason[32];    /* observe: why the server chose it ("" none); game over: reason */
    int seq;            /* turn */
    int turn;           /* turn: the match's turn asked (records' numbering), for its infos */
    double deadline_ms; /* turn */
    int faulty;         /* game over */
    char detail[PLAYER_DETAIL_MAX]; /* game over */
    eng_move *moves;                /* start (resume): moves applied from st */
    int nmoves;
    /* the state (start: the initial one); aligned as malloc aligns, for
     * states with 8-byte members (Reversi's bitboards) */
    _Alignas(max_align_t) unsigned char st[];
} pcmd;

typedef enum { PR_TURN, PR_GAME_OVER, PR_EXIT } pres_kind;

typedef struct pres {
    struct pres *next;
    prog *p;
    pres_kind kind;
    int seq;
    int starts; /* the player's process starts so far */
    json_t *lines;   /* a faulty turn's: the lines of the game so far (a bundle's), or NULL */
    bool lines_cut;  /* some were left out (PLAYER_TRANSCRIPT_MAX) */
    player_result r;
} pres;

struct prog {
    /* loop side */
    srv *srv;
    match *m; /* NULL once detached or finished */
    int seat;
    prog_done_fn on_done; /* the match's: a turn's answer, on the loop */
    char match_id[SRV_MATCH_ID_LEN + 1];
    char spec[PROTO_SPEC_MAX + 1];
    const eng_game *g;
    char log[SRV_PROG_LOG_KEEP]; /* stderr tail over the game (a ring, flattened on output) */
    size_t log_len;
    uint64_t stderr_total;
    json_t *verdicts; /* [{turn, verdict, detail}] */
    int starts;
    bool exited;    /* the worker has ended */
    bool finishing; /* game over / quit queued */
    bool complete;  /* the program has had its game over: its log is whole */
    bool bundled;   /* its fault bundle of the game is kept */
    prog *next;
    /* shared with the worker (mu) */
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pcmd *head, *tail;
    /* the worker's own */
    atomic_bool stop;
    atomic_int stop_seq; /* turns up to this seq are to stop */
    int think_turn;      /* the turn player_turn plays now (its infos' turn) */
    json_t *tc;          /* time control shown to the program (the worker's copy) */
    pcmd *quit;          /* made at the start, so that ending never needs memory */
    pres *goodbye;       /* the worker's last result, likewise */
};

struct progs {
    uv_async_t async;
    pthread_mutex_t mu;
    pres *head, *tail; /* results (mu) */
    prog *list;        /* loop side: every worker not yet joined */
    int running;
    bool shutting;
    bool closed;
};

/* ---- the worker ------------------------------------------------------------------ */

#ifdef TESSERA_TEST_HOOKS
/* TESSERA_TEST_PROG_ANSWER_DELAY_MS: every turn's answer is held back this
 * long before it is posted, as a starved worker's is (tests/server
 * test_programs.js). Read once by progs_init. */
static int answer_delay_ms;
#endif

static void post(prog *p, pres *r)
{
    struct progs *ps = p->srv->progs;
    r->p = p;
    pthread_mutex_lock(&ps->mu);
    if (ps->tail)
        ps->tail->next = r;
    else
        ps->head = r;
    ps->tail = r;
    pthread_mutex_unlock(&ps->mu);
    uv_async_send(&ps->async);
}

static pcmd *take(prog *p)
{
    pthread_mutex_lock(&p->mu);
    while (!p->head)
        pthread_cond_wait(&p->cv, &p->mu);
    pcmd *c = p->head;
    p->head = c->next;
    if (!p->head)
        p->tail = NULL;
    pthread_mutex_unlock(&p->mu);
    return c;
}

/* The program's thinking lines, checked by players/ against the turn's
 * position: to the match through thinking.c's queue. */
static void prog_think(void *user, int seat, const json_t *info)
{
    prog *p = user;
    thinking_post(p->match_id, seat, p->think_turn, info);
}

static void *worker(void *arg)
{
    prog *p = arg;
    char err[256];
    player_config cfg;
    player_config_default(&cfg);
    cfg.time_control = p->tc;
    /* the match's clock runs from its start: the program's start-up is on
     * its first move's (first_move_ms), not an allowance of its own that
     * would hold this thread from the loop's commands */
    cfg.startup_ms = 0;
    cfg.limits.cpu_pct = p->srv->cfg.sandbox_cpu_pct; /* 0: the default */
    cfg.transcript = true; /* a fault's bundle holds the lines of the game, as many as */
    cfg.transcript_max = BUNDLE_SERVED_LINES_MAX; /* one reply may carry */
    player *pl = player_create(p->spec, p->g, &cfg, err, sizeof err);
    if (pl)
        player_set_thinking(pl, prog_think, p);
    int seat = p->seat;
    for (;;) {
        pcmd *c = take(p);
        pres *r = NULL;
        player_info info = {0};
        switch (c->kind) {
        case PC_START:
            if (pl && c->nmoves > 0)
                player_resume(pl, c->st, c->moves, c->nmoves, seat, p->match_id);
            else if (pl)
                player_new_game(pl, c->st, seat, p->match_id);
            break;
        case PC_OBSERVE:
            if (pl)
                player_observe(pl, c->st, c->mv, c->reason[0] ? c->reason : NULL);
            break;
        case PC_TURN:
            r = calloc(1, sizeof *r);
            if (!r)
                break;
            r->kind = PR_TURN;
            r->seq = c->seq;
            if (atomic_load(&p->stop_seq) < c->seq)
                atomic_store(&p->stop, false);
            if (pl) {
                p->think_turn = c->turn;
                player_turn(pl, c->st, c->deadline_ms, &p->stop, &r->r);
                if (r->r.verdict != PLAYER_OK && r->r.verdict != PLAYER_RESIGNED)
                    r->lines = player_transcript(pl, &r->lines_cut);
            } else {
                r->r.verdict = PLAYER_CRASHED;
                snprintf(r->r.detail, sizeof r->r.detail, "could not start: %s", err);
            }
            break;
        case PC_GAME_OVER:
            r = calloc(1, sizeof *r);
            if (!r)
                break;
            r->kind = PR_GAME_OVER;
            if (pl)
                player_game_over(pl, c->st, c->reason, c->faulty, c->detail[0] ? c->detail : NULL,
                                 &r->r);
            break;
        case PC_QUIT: break;
        }
        if (r) {
#ifdef TESSERA_TEST_HOOKS
            if (r->kind == PR_TURN && answer_delay_ms > 0) {
                struct timespec ts = {answer_delay_ms / 1000, (answer_delay_ms % 1000) * 1000000L};
                nanosleep(&ts, NULL);
            }
#endif
            if (pl)
                player_get_info(pl, &info);
            r->starts = info.starts;
            post(p, r);
        }
        pcmd_kind kind = c->kind;
        free(c->moves);
        free(c);
        if (kind == PC_QUIT)
            break;
    }
    player_destroy(pl); /* the program ends with everything it started */
    pres *bye = p->goodbye;
    bye->kind = PR_EXIT;
    post(p, bye);
    return NULL;
}

static int queue(prog *p, pcmd *c)
{
    pthread_mutex_lock(&p->mu);
    c->next = NULL;
    if (p->tail)
        p->tail->next = c;
    else
        p->head = c;
    p->tail = c;
    pthread_cond_signal(&p->cv);
    pthread_mutex_unlock(&p->mu);
    return 0;
}

static pcmd *cmd_new(prog *p, pcmd_kind kind, const void *st)
{
    size_t size = st ? p->g->state_size : 0;
    pcmd *c = calloc(1, sizeof *c + size);
    if (!c)
        return NULL;
    c->kind = kind;
    if (st)
        memcpy(c->st, st, size);
    return c;
}

/* ---- the log ----------------------------------------------------------------------- */

static void log_stderr(prog *p, const player_result *r)
{
    p->stderr_total += r->stderr_total;
    size_t n = r->stderr_len;
    if (n == 0)
        return;
    const char *src = r->stderr_tail;
    if (n >= sizeof p->log) {
        src += n - sizeof p->log;
        n = sizeof p->log;
    }
    if (p->log_len + n > sizeof p->log) {
        size_t drop = p->log_len + n - sizeof p->log;
        memmove(p->log, p->log + drop, p->log_len - drop);
        p->log_len -= drop;
    }
    memcpy(p->log + p->log_len, src, n);
    p->log_len += n;
}

json_t *prog_log_json(const prog *p)
{
    /* stderr is the program's bytes: printable ASCII, newlines and tabs kept */
    char *text = malloc(p->log_len + 1);
    if (text) {
        for (size_t i = 0; i < p->log_len; i++) {
            unsigned char ch = (unsigned char)p->log[i];
            text[i] = (ch >= 0x20 && ch < 0x7f) || ch == '\n' || ch == '\t' ? (char)ch : '?';
        }
        text[p->log_len] = 0;
    }
    json_t *o = json_pack("{s:i, s:s, s:s, s:I, s:i, s:O, s:b}", "seat", p->seat, "spec", p->spec,
                          "stderr", text ? text : "", "stderr_bytes", (json_int_t)p->stderr_total,
                          "starts", p->starts, "verdicts", p->verdicts, "complete", p->complete);
    free(text);
    return o;
}

static void store_log(prog *p)
{
    db_conn *db = p->srv->db ? journal_db(p->srv->db) : NULL;
    if (!db)
        return;
    json_t *o = prog_log_json(p);
    char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    db_stmt *q = NULL;
    if (text && db_prepare(db,
                           "INSERT INTO program_logs(match,seat,spec,log) VALUES(?,?,?,?) "
                           "ON CONFLICT(match,seat) DO UPDATE SET spec=excluded.spec, "
                           "log=excluded.log",
                           &q) == DB_OK) {
        if (db_bind_text(q, 1, p->match_id, -1) != DB_OK || db_bind_int(q, 2, p->seat) != DB_OK ||
            db_bind_text(q, 3, p->spec, -1) != DB_OK || db_bind_text(q, 4, text, -1) != DB_OK ||
            db_step(q) != DB_DONE)
            srv_log(LOG_ERROR, "storage_error", "{s:s, s:s, s:s}", "what", "program_log", "match",
                    p->match_id, "sqlite", db_errmsg(db));
    }
    db_finalize(q);
    free(text);
}

void prog_verdict(prog *p, const char *verdict, const char *detail)
{
    if (!p || !p->m)
        return;
    if (json_array_size(p->verdicts) < SRV_PROG_MAX_VERDICTS)
        json_array_append_new(p->verdicts, json_pack("{s:i, s:s, s:s}", "turn", p->m->turns + 1,
                                                     "verdict", verdict, "detail", detail));
    store_log(p);
}

/* ---- fault bundles --------------------------------------------------------------------- */

/* Keep program p's fault in the turn its match waits for (the answer r) as
 * a bundle, unless it has one of this game: the complete turns before it,
 * the seed that draws its tile again, the lines, the allowance and limits.
 * A bundle that cannot be made or stored is logged and left out: no reason
 * to hold up the match. */
static void keep_bundle(prog *p, const pres *r)
{
    match *m = p->m;
    const seat_t *t = &m->seats[p->seat];
    db_conn *db = p->srv->db ? journal_db(p->srv->db) : NULL;
    if (p->bundled || !db || m->status != MATCH_LIVE || m->to_move != p->seat ||
        !t->prog_asked || r->seq != t->prog_seq)
        return;
    p->bundled = true;
    chance_secret sec = {.seed = m->seed};
    memcpy(sec.nonce, m->nonce, sizeof sec.nonce);
    json_t *chance = m->commitment[0] && m->has_nonce ? chance_json(&sec, true) : NULL;
    player_config pc;
    player_config_default(&pc);
    pc.limits.cpu_pct = p->srv->cfg.sandbox_cpu_pct;
    sandbox_limits_normalize(&pc.limits);
    char source[96], err[256];
    if (m->tour_id)
        snprintf(source, sizeof source, "tessera serve: tournament %lld, game %lld",
                 (long long)m->tour_id, (long long)m->tour_game);
    else
        snprintf(source, sizeof source, "tessera serve: match %s", m->id);
    double allowance = m->deadline > m->turn_started ? (double)(m->deadline - m->turn_started)
                                                     : (double)m->tc.move_ms;
    bundle_fault f = {.g = m->g,
                      .rules = &m->rules,
                      .seat = p->seat,
                      .player = p->spec,
                      .verdict = r->r.verdict,
                      .detail = r->r.detail,
                      .turn = m->turns + 1,
                      .moves = m->moves,
                      .nmoves = m->nmoves,
                      .chance = chance,
                      .move_ms = allowance,
                      .limits = &pc.limits,
                      .stderr_text = r->r.stderr_tail,
                      .lines = r->lines,
                      .lines_truncated = r->lines_cut,
                      .source = source};
    json_t *whole = bundle_new(&f, err, sizeof err);
    json_t *b = whole ? bundle_capped(whole, BUNDLE_SERVED_LINES_MAX) : NULL; /* one reply */
    json_decref(whole);
    json_decref(chance);
    char *text = b ? json_dumps(b, JSON_COMPACT) : NULL;
    json_decref(b);
    db_stmt *q = NULL;
    if (!text || db_prepare(db,
                            "INSERT INTO program_bundles(match,seat,bundle) VALUES(?,?,?) "
                            "ON CONFLICT(match,seat) DO NOTHING",
                            &q) != DB_OK ||
        db_bind_text(q, 1, p->match_id, -1) != DB_OK || db_bind_int(q, 2, p->seat) != DB_OK ||
        db_bind_text(q, 3, text, -1) != DB_OK || db_step(q) != DB_DONE)
        srv_log(LOG_ERROR, "fault_bundle_lost", "{s:s, s:i, s:s}", "match", p->match_id, "seat",
                p->seat, "why", text ? db_errmsg(db) : b ? "out of memory" : err);
    db_finalize(q);
    free(text);
}

/* ---- results on the loop ------------------------------------------------------------- */

static void reap(prog *p)
{
    struct progs *ps = p->srv->progs;
    pthread_join(p->thread, NULL);
    for (prog **pp = &ps->list; *pp; pp = &(*pp)->next)
        if (*pp == p) {
            *pp = p->next;
            break;
        }
    ps->running--;
    /* commands never taken (the worker quit first) */
    while (p->head) {
        pcmd *c = p->head;
        p->head = c->next;
        free(c->moves);
        free(c);
    }
    free(p->quit);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
    json_decref(p->verdicts);
    json_decref(p->tc);
    free(p);
}

static void on_async(uv_async_t *h)
{
    srv *s = h->data;
    struct progs *ps = s->progs;
    pthread_mutex_lock(&ps->mu);
    pres *r = ps->head;
    ps->head = ps->tail = NULL;
    pthread_mutex_unlock(&ps->mu);
    bool ended = false;
    while (r) {
        pres *next = r->next;
        prog *p = r->p;
        if (r->starts > p->starts)
            p->starts = r->starts;
        if (r->kind == PR_EXIT) {
            reap(p);
            ended = true;
        } else {
            log_stderr(p, &r->r);
            if (r->kind == PR_GAME_OVER) {
                p->complete = true;
                store_log(p);
            } else if (p->m && p->m->seats[p->seat].prog == p) {
                if (r->r.verdict != PLAYER_OK)
                    prog_verdict(p, player_verdict_name(r->r.verdict), r->r.detail);
                if (r->lines)
                    keep_bundle(p, r);
                p->on_done(p->m, p->seat, r->seq, &r->r);
            }
        }
        if (r->kind != PR_EXIT)
            json_decref(r->lines);
        free(r);
        r = next;
    }
    if (ended && s->seats_freed)
        s->seats_freed(s);
    if (ps->shutting && ps->running == 0 && !ps->closed) {
        ps->closed = true;
        uv_close((uv_handle_t *)&ps->async, NULL);
    }
}

/* ---- the loop's interface ------------------------------------------------------------- */

/* The sandbox's policy from the config, and what it hides from every
 * program: the journal (its files, its folder), the courses' files, the
 * admin token file, /etc/tessera. Kept for the process's life (one server
 * per process). */
static char hidden[8][PATH_MAX]; /* the journal's 6, the course files, the token */
static const char *hide_list[10];

static void sandbox_policy(srv *s)
{
    int n = 0;
    const char *target = srv_storage_target(&s->cfg);
    if (!db_target_is_pg(target)) {
        const char *db = db_target_file(target);
        static const char *const sfx[] = {"", "-wal", "-shm", "-journal"};
        for (int i = 0; i < 4; i++)
            snprintf(hidden[n++], PATH_MAX, "%.3000s%s", db, sfx[i]);
        snprintf(hidden[n], PATH_MAX, "%.3000s", db);
        char *slash = strrchr(hidden[n], '/');
        if (slash && slash != hidden[n])
            *slash = 0;
        else
            snprintf(hidden[n], PATH_MAX, ".");
        n++;
        snprintf(hidden[n++], PATH_MAX, "%.3000s.files", db);
    }
    if (s->cfg.course_files)
        snprintf(hidden[n++], PATH_MAX, "%.3000s", s->cfg.course_files);
    if (s->cfg.admin_token_file)
        snprintf(hidden[n++], PATH_MAX, "%.3000s", s->cfg.admin_token_file);
    int k = 0;
    for (int i = 0; i < n; i++)
        hide_list[k++] = hidden[i];
    hide_list[k++] = "/etc/tessera";
    hide_list[k] = NULL;
    sandbox_setup setup = {.partial = s->cfg.sandbox_partial == 1,
                           .uid_base = (uint32_t)s->cfg.sandbox_uid_base,
                           .uid_count = (uint32_t)s->cfg.sandbox_uids,
                           .hide = hide_list};
    sandbox_configure(&setup);
    char why[2048];
    int rc = sandbox_check(why, sizeof why);
    srv_log(rc ? LOG_WARN : LOG_INFO, "sandbox", "{s:s, s:s}", "isolation", sandbox_isolation(),
            "missing", why);
}

int progs_init(srv *s)
{
    sandbox_policy(s);
    struct progs *ps = calloc(1, sizeof *ps);
    if (!ps)
        return ENG_ENOMEM;
    if (pthread_mutex_init(&ps->mu, NULL) != 0) {
        free(ps);
        return ENG_EINTERNAL;
    }
    uv_async_init(s->loop, &ps->async, on_async);
    ps->async.data = s;
    s->progs = ps;
#ifdef TESSERA_TEST_HOOKS
    const char *delay = getenv("TESSERA_TEST_PROG_ANSWER_DELAY_MS");
    answer_delay_ms = delay ? atoi(delay) : 0;
    if (answer_delay_ms < 0 || answer_delay_ms > 60000)
        answer_delay_ms = 0;
#endif
    if (s->db) {
        db_conn *db = journal_db(s->db);
        int rc = db_schema_lock(db); /* servers starting at once on PostgreSQL */
        if (rc == DB_OK)
            rc = db_exec(db, tables);
        db_schema_unlock(db);
        if (rc != DB_OK)
            return ENG_ESTORAGE;
    }
    return 0;
}

void progs_shutdown(srv *s)
{
    struct progs *ps = s->progs;
    if (!ps || ps->shutting)
        return;
    ps->shutting = true;
    if (ps->running == 0) {
        ps->closed = true;
        uv_close((uv_handle_t *)&ps->async, NULL);
    }
}

int progs_running(const srv *s)
{
    return s->progs ? s->progs->running : 0;
}

int prog_start(match *m, int seat, const void *initial, const eng_move *moves, int n,
               prog_done_fn on_done, char *err, size_t errcap)
{
    srv *s = m->srv;
    struct progs *ps = s->progs;
    if (!ps || ps->shutting) {
        snprintf(err, errcap, "the server is shutting down");
        return ENG_ESHUTTING_DOWN;
    }
    if (ps->running >= SRV_MAX_PROGRAMS) {
        snprintf(err, errcap, "the server runs its maximum of %d programs", SRV_MAX_PROGRAMS);
        return ENG_ETOO_MANY;
    }
    prog *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, errcap, "out of memory");
        return ENG_ENOMEM;
    }
    p->srv = s;
    p->m = m;
    p->seat = seat;
    p->on_done = on_done;
    p->g = m->g;
    snprintf(p->match_id, sizeof p->match_id, "%s", m->id);
    snprintf(p->spec, sizeof p->spec, "%s", m->seats[seat].spec);
    p->verdicts = json_array();
    p->tc = json_pack("{s:I, s:I, s:I, s:I}", "move_ms", (json_int_t)m->tc.move_ms, "first_move_ms",
                      (json_int_t)m->tc.first_move_ms, "bank_ms", (json_int_t)m->tc.bank_ms,
                      "increment_ms", (json_int_t)m->tc.increment_ms);
    atomic_init(&p->stop, false);
    atomic_init(&p->stop_seq, 0);
    pcmd *c = cmd_new(p, PC_START, initial);
    if (c && n > 0) {
        c->moves = malloc((size_t)n * sizeof *moves);
        if (c->moves) {
            memcpy(c->moves, moves, (size_t)n * sizeof *moves);
            c->nmoves = n;
        }
    }
    p->quit = cmd_new(p, PC_QUIT, NULL);
    p->goodbye = calloc(1, sizeof *p->goodbye);
    if (!p->verdicts || !p->tc || !c || (n > 0 && !c->moves) || !p->quit || !p->goodbye ||
        pthread_mutex_init(&p->mu, NULL) != 0) {
        if (c)
            free(c->moves);
        free(c);
        free(p->quit);
        free(p->goodbye);
        json_decref(p->verdicts);
        json_decref(p->tc);
        free(p);
        snprintf(err, errcap, "out of memory");
        return ENG_ENOMEM;
    }
    pthread_cond_init(&p->cv, NULL);
    queue(p, c);
    if (pthread_create(&p->thread, NULL, worker, p) != 0) {
        free(c->moves);
        free(c);
        free(p->quit);
        free(p->goodbye);
        pthread_mutex_destroy(&p->mu);
        pthread_cond_destroy(&p->cv);
        json_decref(p->verdicts);
        json_decref(p->tc);
        free(p);
        snprintf(err, errcap, "no thread for the program");
        return ENG_EINTERNAL;
    }
    p->next = ps->list;
    ps->list = p;
    ps->running++;
    m->seats[seat].prog = p;
    srv_log(LOG_INFO, "program_started", "{s:s, s:i, s:s}", "match", m->id, "seat", seat, "spec",
            p->spec);
    return 0;
}

void prog_observe(prog *p, const void *st, eng_move mv, const char *reason)
{
    if (!p || p->finishing)
        return;
    pcmd *c = cmd_new(p, PC_OBSERVE, st);
    if (!c)
        return; /* the program's view then drifts; its next turn says so (desync) */
    c->mv = mv;
    if (reason)
        snprintf(c->reason, sizeof c->reason, "%s", reason);
    queue(p, c);
}

int prog_turn(prog *p, const void *st, int seq, double deadline_ms)
{
    if (!p || p->finishing)
        return ENG_EINTERNAL;
    pcmd *c = cmd_new(p, PC_TURN, st);
    if (!c)
        return ENG_ENOMEM;
    c->seq = seq;
    c->turn = p->m ? p->m->turns + 1 : 0;
    c->deadline_ms = deadline_ms;
    queue(p, c);
    return 0;
}

void prog_stop(prog *p, int seq)
{
    if (!p)
        return;
    if (atomic_load(&p->stop_seq) < seq)
        atomic_store(&p->stop_seq, seq);
    atomic_store(&p->stop, true);
}

static void let_go(prog *p)
{
    if (p->m && p->m->seats[p->seat].prog == p)
        p->m->seats[p->seat].prog = NULL;
    p->m = NULL;
    p->finishing = true;
}

void prog_finish(prog *p, const void *st, const char *reason, int faulty, const char *detail)
{
    if (!p || p->finishing)
        return;
    /* a turn still running ends now; game over and quit follow it */
    prog_stop(p, INT32_MAX);
    pcmd *c = cmd_new(p, PC_GAME_OVER, st);
    if (c) {
        snprintf(c->reason, sizeof c->reason, "%s", reason ? reason : "normal");
        c->faulty = faulty;
        if (detail)
            snprintf(c->detail, sizeof c->detail, "%s", detail);
        queue(p, c);
    } else {
        store_log(p);
    }
    queue(p, p->quit);
    p->quit = NULL;
    let_go(p);
}

void prog_detach(prog *p)
{
    if (!p || p->finishing)
        return;
    prog_stop(p, INT32_MAX);
    store_log(p);
    queue(p, p->quit);
    p->quit = NULL;
    let_go(p);
}
