/*
 * runner.c — the local tournament runner (contract in runner.h): the
 * tournament's games started by the driver (driver.h) — the same as a
 * server's — and played by worker threads that seat players, play, and
 * hand the result back to the driver.
 *
 * The host of the driver is the run: starting a game makes its chance
 * nonce and commitment and puts it in the ready queue; any free worker
 * takes it from there. Locking. One mutex guards the tournament, the queue
 * and the run's counters; a worker holds it only to drive, take and finish
 * a game (and for the callbacks), never while a player thinks. A worker
 * with nothing to take (a Swiss round waiting for its last games,
 * everything running) waits on the condition variable, woken at every
 * started or finished game and, to notice a raised stop flag, every 100 ms.
 *
 * A game is played on the worker's own buffers (state, moves, times, one
 * player_result); only its result and callbacks need the lock.
 */
#define _GNU_SOURCE
#include "tournament/runner.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bots/bot.h"
#include "players/bundle.h"
#include "protocol/chance.h"
#include "protocol/record.h"
#include "tournament/driver.h"

/* Random turns played for a faulty seat under TOUR_FAULT_RANDOM come from
 * their own stream family of the tournament seed. */
#define TAG_RANDOM 0x72616e646f6d0000ULL /* "random" */

/* A deadline for an in-process bot without move_ms: its own budget decides. */
#define NO_LIMIT_MS (30.0 * 24 * 3600 * 1000)

const char *tour_fault_policy_name(tour_fault_policy p)
{
    return p == TOUR_FAULT_RANDOM ? "random" : p == TOUR_FAULT_FORFEIT ? "forfeit" : "unknown";
}

int tour_fault_policy_parse(const char *s, tour_fault_policy *out)
{
    if (s && strcmp(s, "forfeit") == 0)
        *out = TOUR_FAULT_FORFEIT;
    else if (s && strcmp(s, "random") == 0)
        *out = TOUR_FAULT_RANDOM;
    else
        return ENG_EINVAL;
    return 0;
}

void tour_run_config_default(tour_run_config *c)
{
    memset(c, 0, sizeof *c);
    c->concurrency = 1;
    c->policy = TOUR_FAULT_FORFEIT;
    player_config_default(&c->players);
}

static bool is_program(const char *spec)
{
    return strncmp(spec, "cmd:", 4) == 0 || strncmp(spec, "cmd-stateless:", 14) == 0;
}

int tour_run_check_spec(const char *spec, const eng_game *g, const player_config *pc, char *err,
                        size_t errcap)
{
    if (!spec || !*spec)
        return eng_seterr(err, errcap, ENG_EINVAL, "an empty spec");
    if (strncmp(spec, "remote:", 7) == 0)
        return eng_seterr(err, errcap, ENG_EINVAL,
                          "'%s' names a bot registered with a server; a local tournament seats "
                          "in-process bots and programs (cmd:PROGRAM ARGS...) only",
                          spec);
    if (!is_program(spec)) {
        const char *b = strncmp(spec, "bot:", 4) == 0 ? spec + 4 : spec;
        return bot_check_spec(b, g, err, errcap);
    }
    player *p = player_create(spec, g, pc, err, errcap);
    if (!p)
        return ENG_EINVAL;
    player_destroy(p);
    return 0;
}

/* ---- the run ------------------------------------------------------------------------ */

/* A game the driver started, waiting for a worker. */
typedef struct ready_game {
    tour_game g;
    chance_secret sec;
    char commit[CHANCE_COMMIT_HEX];
} ready_game;

typedef struct run {
    tour *t;
    const tour_run_config *cfg;
    const tour_spec *spec;
    const eng_game *g;
    int k, n;

    pthread_mutex_t lock; /* guards t, the fields below, and every callback */
    pthread_cond_t cond;  /* a game started or finished, or the run failed */
    tour_host host;       /* the driver's host: this run */
    ready_game *ready;    /* [concurrency]: started, waiting for a worker */
    int nready;
    int running;                       /* games started and not over (ready ones too) */
    int rc;                            /* first failure */
    char err[PLAYER_DETAIL_MAX + 256]; /* its reason */
    int64_t played, abandoned;
} run;

typedef struct worker {
    run *R;
    pthread_t tid;
    player **prog;          /* [n]: this worker's programs, made on first use, kept */
    unsigned char *st;      /* the game's state */
    unsigned char *scratch; /* a state to check or play a turn on */
    eng_move *moves;        /* [max_plies] */
    rec_time *times;        /* [max_plies]: a seat turn's times on its first move */
    player_result *res;     /* one turn's result (large: stderr inline) */
    int rturns;             /* the game's record turns so far */
} worker;

/* Hand a seat's call to on_turn (turn 0: the game's end). */
static void report_turn(worker *w, const tour_game *gm, int seat, int turn, bool program)
{
    const tour_run_config *cfg = w->R->cfg;
    if (!cfg->on_turn)
        return;
    tour_run_turn t = {gm, seat, turn, program, w->res};
    cfg->on_turn(&t, cfg->user);
}

static void fail_locked(run *R, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail_locked(run *R, int rc, const char *fmt, ...)
{
    if (R->rc == 0) {
        R->rc = rc;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(R->err, sizeof R->err, fmt, ap);
        va_end(ap);
    }
    pthread_cond_broadcast(&R->cond);
}

static bool stop_raised(const run *R)
{
    return R->cfg->stop && atomic_load(R->cfg->stop);
}

static double now_ms(void)
{
    return bot_now_ms();
}

/* What one game came to. */
typedef enum outcome { PLAYED, ABANDONED, FAILED } outcome;

typedef struct game_end {
    tour_result res;
    tour_run_game info;
    json_t *record;
    char *record_text;
    char verdict[TOUR_VERDICT_MAX + 1];
    char err[PLAYER_DETAIL_MAX + 128];                       /* FAILED: why */
    char errtext[ENG_MAX_PLAYERS][TOUR_RUN_STDERR_KEEP + 1]; /* each seat's stderr (its start) */
    size_t errlen[ENG_MAX_PLAYERS];
    json_t *bundle[ENG_MAX_PLAYERS]; /* each seat's first fault (config.bundles) */
} game_end;

/* Keep the stderr a seat's turn returned (the start of the game's, up to
 * TOUR_RUN_STDERR_KEEP bytes). */
static void keep_stderr(game_end *e, int p, const player_result *r)
{
    e->info.stderr_bytes[p] += r->stderr_total;
    size_t room = TOUR_RUN_STDERR_KEEP - e->errlen[p];
    size_t n = r->stderr_len < room ? r->stderr_len : room;
    memcpy(e->errtext[p] + e->errlen[p], r->stderr_tail, n);
    e->errlen[p] += n;
    e->errtext[p][e->errlen[p]] = '\0';
}

/* The engine's reason word for a fault, as player_observe and game_over
 * take it (docs/stdio.md). */
static const char *fault_reason(player_verdict v)
{
    switch (v) {
    case PLAYER_TIME_LIMIT: return "timeout";
    case PLAYER_ILLEGAL_MOVE:
    case PLAYER_BAD_OUTPUT: return "illegal";
    default: return player_verdict_name(v);
    }
}

static tour_end fault_end(player_verdict v)
{
    switch (v) {
    case PLAYER_TIME_LIMIT: return TOUR_END_TIMEOUT;
    case PLAYER_ILLEGAL_MOVE:
    case PLAYER_BAD_OUTPUT: return TOUR_END_ILLEGAL;
    case PLAYER_RESIGNED: return TOUR_END_RESIGN;
    default: return TOUR_END_CRASH; /* crashed, memory_limit, no_answer, output_flood */
    }
}

/* Printable ASCII only, cut to fit (details are; this keeps the verdict
 * a valid, bounded string whatever a program printed). */
static void clean_into(char *dst, size_t cap, const char *src)
{
    size_t o = strlen(dst);
    for (; *src && o + 1 < cap; src++)
        dst[o++] = (*src >= 0x20 && *src < 0x7f) ? *src : '?';
    dst[o] = 0;
}

/* A turn that players/ passed but the rules do not: an illegal move. */
static player_verdict refuse(player_result *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static player_verdict refuse(player_result *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->detail, sizeof r->detail, fmt, ap);
    va_end(ap);
    r->verdict = PLAYER_ILLEGAL_MOVE;
    r->nmoves = 0;
    return PLAYER_ILLEGAL_MOVE;
}

/* Keep the fault of seat p (a program, in the turn just asked from w->st,
 * whose moves so far are w->moves[0..n)) as a bundle, unless it has one. A
 * bundle that cannot be built is no reason to stop the run: it is left out. */
static void keep_bundle(worker *w, game_end *e, player *pl, int p, player_verdict v, int n,
                        const chance_secret *sec, double allowance)
{
    const tour_run_config *cfg = w->R->cfg;
    if (!cfg->bundles || e->bundle[p] || player_get_kind(pl) != PLAYER_PROGRAM)
        return;
    bool cut = false;
    json_t *lines = player_transcript(pl, &cut);
    json_t *chance = chance_json(sec, true);
    sandbox_limits lim = cfg->players.limits;
    sandbox_limits_normalize(&lim);
    char err[256];
    bundle_fault f = {.g = w->R->g,
                      .rules = &w->R->spec->rules,
                      .seat = p,
                      .player = player_spec(pl),
                      .verdict = v,
                      .detail = w->res->detail,
                      .moves = w->moves,
                      .nmoves = n,
                      .chance = chance,
                      .move_ms = allowance,
                      .limits = &lim,
                      .stderr_text = w->res->stderr_tail,
                      .lines = lines,
                      .lines_truncated = cut,
                      .source = cfg->source ? cfg->source : "tessera"};
    e->bundle[p] = bundle_new(&f, err, sizeof err);
    json_decref(lines);
    json_decref(chance);
}

static void apply_move(worker *w, player **seat, int k, eng_move m, const char *reason, int *n)
{
    const eng_game *g = w->R->g;
    for (int s = 0; s < k; s++)
        player_observe(seat[s], w->st, m, reason);
    int before = g->current_player(w->st);
    g->apply(w->st, m);
    w->rturns += eng_turn_ends(g, before, w->st); /* the record's turns, as a program counts */
    w->times[*n].think_ms = w->times[*n].wait_ms = -1;
    w->moves[(*n)++] = m;
}

/* Play game gm from the start; fills *e. */
static outcome play_game(worker *w, const tour_game *gm, const chance_secret *sec,
                         const char *commitment, game_end *e)
{
    run *R = w->R;
    const tour_run_config *cfg = R->cfg;
    const eng_game *g = R->g;
    int k = R->k;
    player *seat[ENG_MAX_PLAYERS] = {NULL};
    bool own[ENG_MAX_PLAYERS] = {false};
    outcome oc = PLAYED;
    double t0 = now_ms();

    memset(e, 0, sizeof *e);
    tour_result_init(&e->res);
    tour_run_game *info = &e->info;
    for (int s = 0; s < ENG_MAX_PLAYERS; s++)
        info->stderr_text[s] = e->errtext[s];
    info->game = gm;
    info->commitment = commitment;

    for (int s = 0; s < k; s++) {
        const char *spec = R->spec->participants[gm->table[s]].spec;
        char perr[256];
        if (is_program(spec)) {
            player **slot = &w->prog[gm->table[s]];
            player_config pc = cfg->players;
            pc.transcript = cfg->bundles;
            if (!*slot && !(*slot = player_create(spec, g, &pc, perr, sizeof perr))) {
                snprintf(e->err, sizeof e->err, "participant %s: %s",
                         R->spec->participants[gm->table[s]].name, perr);
                oc = FAILED;
                goto out;
            }
            seat[s] = *slot;
        } else {
            player_config pc = cfg->players;
            pc.seed = gm->seat_seed[s];
            if (!(seat[s] = player_create(spec, g, &pc, perr, sizeof perr))) {
                snprintf(e->err, sizeof e->err, "participant %s: %s",
                         R->spec->participants[gm->table[s]].name, perr);
                oc = FAILED;
                goto out;
            }
            own[s] = true;
        }
    }

    char name[32];
    snprintf(name, sizeof name, "g%lld", (long long)gm->id);
    g->init(w->st, &R->spec->rules);
    w->rturns = 0;
    for (int s = 0; s < k; s++) {
        if (player_new_game(seat[s], w->st, s, name) != 0) {
            snprintf(e->err, sizeof e->err, "game %lld: a player could not start (out of memory)",
                     (long long)gm->id);
            oc = FAILED;
            goto out;
        }
        player_info pi;
        player_get_info(seat[s], &pi);
        info->startup_ms[s] = pi.startup_ms;
    }

    eng_rng rnd;
    eng_rng_seed_stream(&rnd, R->spec->seed ^ TAG_RANDOM, (uint64_t)gm->id);
    int n = 0, culprit = -1;
    uint64_t kchance = 0;
    player_verdict end_verdict = PLAYER_OK;
    char first_fault[TOUR_VERDICT_MAX] = "";
    int nfaults = 0;
    for (int p; (p = g->current_player(w->st)) != ENG_TERMINAL;) {
        if (n >= g->max_plies) {
            snprintf(e->err, sizeof e->err, "game %lld did not end within %d plies",
                     (long long)gm->id, g->max_plies);
            oc = FAILED;
            break;
        }
        if (stop_raised(R)) {
            oc = ABANDONED;
            break;
        }
        if (p == ENG_CHANCE) {
            apply_move(w, seat, k, eng_chance_draw(g, w->st, sec->seed, kchance++), NULL, &n);
            continue;
        }
        bool program = player_get_kind(seat[p]) == PLAYER_PROGRAM;
        double allowance = cfg->move_ms > 0 ? (double)cfg->move_ms
                           : program        ? (double)TOUR_RUN_PROGRAM_MOVE_MS
                                            : NO_LIMIT_MS;
        double asked = now_ms();
        player_verdict v = player_turn(seat[p], w->st, asked + allowance, cfg->stop, w->res);
        double waited = now_ms() - asked;
        if (program)
            keep_stderr(e, p, w->res);
        if (stop_raised(R)) {
            oc = ABANDONED;
            break;
        }
        /* a bot or a program is code under test: check what it says */
        char why[128];
        if (v == PLAYER_OK &&
            eng_turn_check(g, w->st, w->res->moves, w->res->nmoves, w->scratch, why, sizeof why))
            v = refuse(w->res, "%s", why);
        if (v != PLAYER_INTERNAL)
            report_turn(w, gm, p, w->rturns + 1, program);
        double think = program ? w->res->cpu_ms : w->res->wall_ms;
        info->think_ms[p] += think;
        info->wait_ms[p] += waited;
        if (v == PLAYER_OK) {
            int first = n;
            for (int i = 0; i < w->res->nmoves; i++)
                apply_move(w, seat, k, w->res->moves[i], NULL, &n);
            w->times[first].think_ms = (int64_t)llround(think);
            w->times[first].wait_ms = (int64_t)llround(waited);
            info->turns[p]++;
            info->decisions[p] += w->res->nmoves;
            info->sims[p] += w->res->sims;
            continue;
        }
        if (v == PLAYER_INTERNAL) {
            snprintf(e->err, sizeof e->err, "game %lld, seat %d: %s", (long long)gm->id, p,
                     w->res->detail);
            oc = FAILED;
            break;
        }
        info->faults[p]++;
        if (v != PLAYER_RESIGNED)
            keep_bundle(w, e, seat[p], p, v, n, sec, allowance);
        if (nfaults++ == 0) {
            snprintf(first_fault, sizeof first_fault, "P%d (seat %d): %s: ", p + 1, p,
                     player_verdict_name(v));
            clean_into(first_fault, sizeof first_fault, w->res->detail);
        }
        if (v == PLAYER_RESIGNED || cfg->policy == TOUR_FAULT_FORFEIT) {
            culprit = p;
            end_verdict = v;
            break;
        }
        eng_move turn[ENG_MAX_TURN_MOVES];
        eng_copy(g, w->scratch, w->st);
        int nturn = eng_random_turn(g, w->scratch, &rnd, turn);
        for (int i = 0; i < nturn; i++)
            apply_move(w, seat, k, turn[i], fault_reason(v), &n);
    }
    if (oc != PLAYED) {
        for (int s = 0; s < k; s++)
            player_game_over(seat[s], w->st, oc == ABANDONED ? "stopped" : "internal_error", -1,
                             NULL, NULL);
        goto out;
    }

    /* the end: tell everyone (what a program writes on stderr then is its
     * game's too), then the result */
    const char *reason = culprit >= 0 ? player_verdict_name(end_verdict) : "normal";
    for (int s = 0; s < k; s++) {
        bool program = player_get_kind(seat[s]) == PLAYER_PROGRAM;
        player_info pi; /* started again in the game: the longer start-up */
        player_get_info(seat[s], &pi);
        if (pi.startup_ms > info->startup_ms[s])
            info->startup_ms[s] = pi.startup_ms;
        player_game_over(seat[s], w->st, reason, culprit, culprit >= 0 ? first_fault : NULL,
                         w->res);
        if (program)
            keep_stderr(e, s, w->res);
        report_turn(w, gm, s, 0, program);
    }
    double sc[ENG_MAX_PLAYERS];
    g->scores(w->st, sc);
    tour_result *r = &e->res;
    for (int s = 0; s < k; s++) {
        r->score[s] = sc[s];
        r->time_ms[s] = info->think_ms[s];
        r->moves[s] = info->decisions[s];
    }
    if (culprit >= 0) {
        /* the faulty seat last; the others by score among themselves */
        r->end = fault_end(end_verdict);
        r->culprit = culprit;
        r->time_loss[culprit] = end_verdict == PLAYER_TIME_LIMIT;
        for (int s = 0; s < k; s++) {
            if (s == culprit) {
                r->rank[s] = k;
                continue;
            }
            r->rank[s] = 1;
            for (int o = 0; o < k; o++)
                if (o != culprit && o != s && sc[o] > sc[s])
                    r->rank[s]++;
        }
        snprintf(e->verdict, sizeof e->verdict, "%s", first_fault);
    } else if (nfaults) {
        snprintf(e->verdict, sizeof e->verdict, "%d fault%s, random turns played; first: ", nfaults,
                 nfaults == 1 ? "" : "s");
        clean_into(e->verdict, sizeof e->verdict, first_fault);
    }
    if (e->verdict[0])
        r->verdict = e->verdict;
    info->moves = w->moves;
    info->nmoves = n;
    for (int s = 0; s < k; s++)
        info->bundle[s] = e->bundle[s];

    if (cfg->records) {
        char rerr[256];
        json_t *chance = chance_json(sec, true);
        e->record = chance ? rec_build_full(g, &R->spec->rules, w->moves, n, w->times, chance, NULL,
                                            rerr, sizeof rerr)
                           : NULL;
        json_decref(chance);
        if (!chance)
            snprintf(rerr, sizeof rerr, "out of memory");
        if (e->record)
            e->record_text = json_dumps(e->record, JSON_COMPACT);
        if (!e->record_text) {
            snprintf(e->err, sizeof e->err, "game %lld: its record could not be built: %s",
                     (long long)gm->id, e->record ? "out of memory" : rerr);
            oc = FAILED;
            goto out;
        }
        r->record = e->record_text;
        info->record = e->record;
    }
    info->result = r;
out:
    info->seconds = (now_ms() - t0) / 1e3;
    for (int s = 0; s < k; s++)
        if (own[s])
            player_destroy(seat[s]);
    return oc;
}

static void game_end_free(game_end *e)
{
    json_decref(e->record);
    free(e->record_text);
    for (int s = 0; s < ENG_MAX_PLAYERS; s++) {
        json_decref(e->bundle[s]);
        e->bundle[s] = NULL;
    }
}

/* ---- the driver's host: the run ---------------------------------------------------- */

/* A started game's chance nonce and commitment, in the slot play() fills. */
static int host_start(void *user, const tour_game *g, char *ref, size_t refcap, char *err,
                      size_t errcap)
{
    (void)ref;
    (void)refcap;
    run *R = user;
    ready_game *x = &R->ready[R->nready];
    x->g = *g;
    memset(&x->sec, 0, sizeof x->sec);
    x->sec.seed = g->chance_seed;
    if (chance_nonce_random(x->sec.nonce) || chance_commitment(&x->sec, x->commit)) {
        fail_locked(R, ENG_EINTERNAL, "no random bytes for a game's chance nonce");
        snprintf(err, errcap, "no random bytes");
        return ENG_EINTERNAL;
    }
    return 0;
}

/* Started: to the ready queue, for the first free worker. */
static void host_play(void *user, const tour_game *g, const char *ref)
{
    (void)g;
    (void)ref;
    run *R = user;
    ready_game *x = &R->ready[R->nready++];
    R->running++;
    if (R->cfg->on_start)
        R->cfg->on_start(&x->g, x->commit, R->cfg->user);
    pthread_cond_broadcast(&R->cond);
}

/* Room for one more ready game (the driver keeps at most concurrency running). */
static bool host_room(void *user, const tour_game *g)
{
    (void)g;
    run *R = user;
    return R->nready < R->cfg->concurrency;
}

/* A game that will not be played to its end (abandoned, or the player
 * failed): back to pending; a failed write leaves it running in the store,
 * which a resume puts back to pending all the same. */
static void give_back(run *R, int64_t game, outcome oc, const char *why)
{
    tour_drive_lost(R->t, game);
    if (oc == ABANDONED)
        R->abandoned++;
    else
        fail_locked(R, ENG_EINTERNAL, "%s", why);
}

/* Under the lock: the result of a game a worker played. */
static void game_over(run *R, const ready_game *x, outcome oc, game_end *e)
{
    R->running--;
    if (oc == PLAYED) {
        char ferr[256];
        int rc = tour_drive_ended(R->t, x->g.id, &e->res, ferr, sizeof ferr);
        if (rc) {
            fail_locked(R, rc, "game %lld: %s", (long long)x->g.id, ferr);
        } else {
            R->played++;
            if (R->cfg->on_end)
                R->cfg->on_end(&e->info, R->cfg->user);
        }
    } else {
        give_back(R, x->g.id, oc, e->err);
    }
    pthread_cond_broadcast(&R->cond);
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    run *R = w->R;
    game_end *e = malloc(sizeof *e);
    pthread_mutex_lock(&R->lock);
    if (!e)
        fail_locked(R, ENG_ENOMEM, "out of memory");
    while (e && R->rc == 0 && !stop_raised(R)) {
        if (R->nready > 0) { /* the oldest started game */
            ready_game x = R->ready[0];
            memmove(R->ready, R->ready + 1, (size_t)--R->nready * sizeof *R->ready);
            pthread_mutex_unlock(&R->lock);
            outcome oc = play_game(w, &x.g, &x.sec, x.commit, e);
            pthread_mutex_lock(&R->lock);
            game_over(R, &x, oc, e);
            game_end_free(e);
            continue;
        }
        if (tour_is_done(R->t))
            break;
        char why[TOUR_DRIVE_WHY_MAX];
        int rc = tour_drive(R->t, &R->host, R->cfg->concurrency, why, sizeof why);
        if (rc < 0) {
            /* a start the run refused has failed it already, with its reason */
            fail_locked(R, rc, "the tournament's database failed; run again to resume");
            break;
        }
        if (R->nready > 0)
            continue;
        if (R->running == 0) {
            /* nothing runs and nothing can start: only a pause does this */
            fail_locked(R, ENG_EINVAL, "the tournament is paused: nothing can start");
            break;
        }
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 100 * 1000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&R->cond, &R->lock, &ts);
    }
    pthread_cond_broadcast(&R->cond);
    pthread_mutex_unlock(&R->lock);
    free(e);
    /* programs die with the thread that started them: end them here */
    for (int i = 0; i < R->n; i++)
        player_destroy(w->prog[i]);
    return NULL;
}

int tour_run(tour *t, const tour_run_config *cfg, tour_run_stats *out, char *err, size_t errcap)
{
    tour_run_stats scratch;
    if (!out)
        out = &scratch;
    memset(out, 0, sizeof *out);
    if (!t || !cfg)
        return eng_seterr(err, errcap, ENG_EINVAL, "no tournament or no configuration");
    if (cfg->concurrency < 1 || cfg->concurrency > TOUR_RUN_MAX_THREADS)
        return eng_seterr(err, errcap, ENG_EINVAL, "concurrency must be from 1 to %d, got %d",
                          TOUR_RUN_MAX_THREADS, cfg->concurrency);
    if (cfg->move_ms < 0 || cfg->move_ms > REC_TIME_MAX_MS)
        return eng_seterr(err, errcap, ENG_EINVAL, "the time per move must be from 0 to %lld ms",
                          (long long)REC_TIME_MAX_MS);
    run R;
    memset(&R, 0, sizeof R);
    R.t = t;
    R.cfg = cfg;
    R.spec = tour_get_spec(t);
    R.g = R.spec->game;
    R.k = tour_seats(t);
    R.n = tour_participants(t);
    for (int i = 0; i < R.n; i++) {
        char why[384];
        int rc =
            tour_run_check_spec(R.spec->participants[i].spec, R.g, &cfg->players, why, sizeof why);
        if (rc)
            return eng_seterr(err, errcap, rc, "participant %s: %s", R.spec->participants[i].name,
                              why);
    }
    R.ready = calloc((size_t)cfg->concurrency, sizeof *R.ready);
    if (!R.ready)
        return eng_seterr(err, errcap, ENG_ENOMEM, "out of memory");
    R.host = (tour_host){.room = host_room, .start = host_start, .play = host_play, .user = &R};
    pthread_mutex_init(&R.lock, NULL);
    pthread_cond_init(&R.cond, NULL);
    int nw = cfg->concurrency;
    worker *w = calloc((size_t)nw, sizeof *w);
    int started = 0, rc = 0;
    double t0 = now_ms();
    for (int i = 0; w && i < nw; i++) {
        w[i].R = &R;
        w[i].prog = calloc((size_t)R.n, sizeof *w[i].prog);
        w[i].st = malloc(R.g->state_size);
        w[i].scratch = malloc(R.g->state_size);
        w[i].moves = malloc((size_t)R.g->max_plies * sizeof *w[i].moves);
        w[i].times = malloc((size_t)R.g->max_plies * sizeof *w[i].times);
        w[i].res = malloc(sizeof *w[i].res);
        if (!w[i].prog || !w[i].st || !w[i].scratch || !w[i].moves || !w[i].times || !w[i].res)
            break;
        if (pthread_create(&w[i].tid, NULL, worker_main, &w[i]) != 0)
            break;
        started++;
    }
    if (started == 0)
        rc =
            eng_seterr(err, errcap, w ? ENG_EINTERNAL : ENG_ENOMEM, "cannot start a worker thread");
    for (int i = 0; i < started; i++)
        pthread_join(w[i].tid, NULL);
    /* started games no worker took (the run stopped or failed first) */
    for (int i = 0; i < R.nready; i++)
        give_back(&R, R.ready[i].g.id, ABANDONED, "");
    R.nready = 0;
    free(R.ready);
    for (int i = 0; w && i < nw; i++) {
        free(w[i].prog);
        free(w[i].st);
        free(w[i].scratch);
        free(w[i].moves);
        free(w[i].times);
        free(w[i].res);
    }
    free(w);
    out->threads = started;
    out->played = R.played;
    out->abandoned = R.abandoned;
    out->seconds = (now_ms() - t0) / 1e3;
    out->stopped = stop_raised(&R);
    if (!rc && R.rc)
        rc = eng_seterr(err, errcap, R.rc, "%s", R.err);
    pthread_cond_destroy(&R.cond);
    pthread_mutex_destroy(&R.lock);
    return rc;
}
