/*
 * worker.c — the thread that owns one player (worker.h): a FIFO of player
 * calls under a mutex, a condition variable to wake the thread, a list of
 * results for the loop thread, and a stop flag per turn.
 */
#include "worker.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum job_kind { J_NEW_GAME, J_RESUME, J_OBSERVE, J_TURN, J_GAME_OVER } job_kind;

typedef struct job {
    job_kind kind;
    struct job *next;
    unsigned char *st;  /* the state (owned) */
    eng_move *moves;    /* J_RESUME: the moves from st (owned) */
    int n;              /* J_RESUME: their number */
    int seat;           /* J_NEW_GAME, J_RESUME */
    eng_move m;         /* J_OBSERVE */
    double deadline_ms; /* J_TURN */
    int tag;            /* J_TURN */
    int faulty;         /* J_GAME_OVER */
    atomic_bool stop;   /* J_TURN */
    char match[64];     /* J_NEW_GAME, J_RESUME */
    char reason[64];    /* J_OBSERVE (empty: the seat's own move), J_GAME_OVER */
    char detail[256];   /* J_GAME_OVER */
    bool has_reason;
} job;

struct cl_worker {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    player *p;         /* the worker thread's alone */
    const eng_game *g; /* its game (states are g->state_size bytes) */
    player_kind kind;
    void (*notify)(void *ud);
    void *ud;

    /* under mu */
    job *head, *tail;       /* calls waiting */
    job *running;           /* the call being run (its stop flag may be raised) */
    cl_done *dhead, *dtail; /* results waiting for the loop thread */
    bool closing;           /* no more calls: destroy the player and end */
    bool finished;          /* the thread has ended */
    player_info info;       /* after the last call */
    int turn_tag;           /* the worker's: the tag of the turn being played (its infos') */
};

static void free_job(job *j)
{
    if (!j)
        return;
    free(j->st);
    free(j->moves);
    free(j);
}

static void push_done(cl_worker *w, cl_done *d)
{
    pthread_mutex_lock(&w->mu);
    d->next = NULL;
    if (w->dtail)
        w->dtail->next = d;
    else
        w->dhead = d;
    w->dtail = d;
    pthread_mutex_unlock(&w->mu);
    w->notify(w->ud);
}

static cl_done *new_done(cl_done_kind kind, int tag)
{
    cl_done *d = calloc(1, sizeof *d);
    if (d) {
        d->kind = kind;
        d->tag = tag;
    }
    return d;
}

/* The player's thinking lines (players/ checked and paced them): to the
 * loop, in order with the turn's result that follows. */
static void think(void *ud, int seat, const json_t *info)
{
    (void)seat;
    cl_worker *w = ud;
    cl_done *d = new_done(CL_DONE_INFO, w->turn_tag);
    if (!d)
        return;
    d->info = json_deep_copy(info);
    push_done(w, d);
}

static void run_job(cl_worker *w, job *j)
{
    cl_done *d = NULL;
    int rc = 0;
    switch (j->kind) {
    case J_NEW_GAME:
        rc = player_new_game(w->p, j->st, j->seat, j->match[0] ? j->match : NULL);
        break;
    case J_RESUME:
        rc = player_resume(w->p, j->st, j->moves, j->n, j->seat, j->match[0] ? j->match : NULL);
        break;
    case J_OBSERVE: player_observe(w->p, j->st, j->m, j->has_reason ? j->reason : NULL); break;
    case J_TURN:
        d = new_done(CL_DONE_TURN, j->tag);
        if (d && atomic_load(&j->stop)) {
            /* given up before it began: the program is not even asked */
            d->res.verdict = PLAYER_TIME_LIMIT;
            snprintf(d->res.detail, sizeof d->res.detail, "stopped before it began");
        } else if (d) {
            w->turn_tag = j->tag;
            player_turn(w->p, j->st, j->deadline_ms, &j->stop, &d->res);
            d->info = d->res.line; /* the turn's last line, for its move */
            d->res.line = NULL;
        }
        break;
    case J_GAME_OVER:
        d = new_done(CL_DONE_GAME_OVER, 0);
        player_game_over(w->p, j->st, j->reason, j->faulty, j->detail[0] ? j->detail : NULL,
                         d ? &d->res : NULL);
        break;
    }
    if (rc && (d = new_done(CL_DONE_ERROR, 0)) != NULL)
        snprintf(d->res.detail, sizeof d->res.detail, "%s refused: %s",
                 j->kind == J_RESUME ? "catching up with the game" : "a new game",
                 wire_err_message(rc));
    player_info info;
    player_get_info(w->p, &info);
    pthread_mutex_lock(&w->mu);
    w->info = info;
    pthread_mutex_unlock(&w->mu);
    if (d)
        push_done(w, d);
}

static void *worker_main(void *arg)
{
    cl_worker *w = arg;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (!w->head && !w->closing)
            pthread_cond_wait(&w->cv, &w->mu);
        job *j = w->head;
        if (!j)
            break; /* closing, and nothing left to run */
        w->head = j->next;
        if (!w->head)
            w->tail = NULL;
        w->running = j;
        pthread_mutex_unlock(&w->mu);
        run_job(w, j);
        pthread_mutex_lock(&w->mu);
        w->running = NULL;
        free_job(j);
    }
    pthread_mutex_unlock(&w->mu);
    player_destroy(w->p); /* on this thread: its programs die with it anyway */
    w->p = NULL;
    /* notified under the lock: once the loop thread sees `finished`, this
     * thread touches nothing of the loop's again (it may close its handles) */
    pthread_mutex_lock(&w->mu);
    w->finished = true;
    w->notify(w->ud);
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

cl_worker *cl_worker_start(player *p, const eng_game *g, void (*notify)(void *ud), void *ud)
{
    cl_worker *w = calloc(1, sizeof *w);
    if (!w) {
        player_destroy(p);
        return NULL;
    }
    w->p = p;
    w->g = g;
    player_set_thinking(p, think, w); /* set before the thread runs: its only user */
    player_set_line_with_move(p, true);
    w->kind = player_get_kind(p);
    w->notify = notify;
    w->ud = ud;
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    if (pthread_create(&w->thread, NULL, worker_main, w) != 0) {
        pthread_mutex_destroy(&w->mu);
        pthread_cond_destroy(&w->cv);
        player_destroy(p);
        free(w);
        return NULL;
    }
    return w;
}

/* A job with a copy of st (size bytes), or NULL. */
static job *new_job(job_kind kind, const void *st, size_t size)
{
    job *j = calloc(1, sizeof *j);
    if (!j)
        return NULL;
    j->kind = kind;
    atomic_init(&j->stop, false);
    if (st) {
        j->st = malloc(size);
        if (!j->st) {
            free(j);
            return NULL;
        }
        memcpy(j->st, st, size);
    }
    return j;
}

static int push_job(cl_worker *w, job *j)
{
    if (!j)
        return -1;
    pthread_mutex_lock(&w->mu);
    if (w->closing) {
        pthread_mutex_unlock(&w->mu);
        free_job(j);
        return -1;
    }
    if (w->tail)
        w->tail->next = j;
    else
        w->head = j;
    w->tail = j;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
    return 0;
}

int cl_worker_new_game(cl_worker *w, const void *st, int seat, const char *match)
{
    job *j = new_job(J_NEW_GAME, st, w->g->state_size);
    if (j) {
        j->seat = seat;
        snprintf(j->match, sizeof j->match, "%s", match ? match : "");
    }
    return push_job(w, j);
}

int cl_worker_resume(cl_worker *w, const void *initial, const eng_move *moves, int n, int seat,
                     const char *match)
{
    job *j = new_job(J_RESUME, initial, w->g->state_size);
    if (j && n > 0) {
        j->moves = malloc((size_t)n * sizeof *moves);
        if (!j->moves) {
            free_job(j);
            return -1;
        }
        memcpy(j->moves, moves, (size_t)n * sizeof *moves);
    }
    if (j) {
        j->n = n;
        j->seat = seat;
        snprintf(j->match, sizeof j->match, "%s", match ? match : "");
    }
    return push_job(w, j);
}

int cl_worker_observe(cl_worker *w, const void *st, eng_move m, const char *reason)
{
    job *j = new_job(J_OBSERVE, st, w->g->state_size);
    if (j) {
        j->m = m;
        j->has_reason = reason != NULL;
        snprintf(j->reason, sizeof j->reason, "%s", reason ? reason : "");
    }
    return push_job(w, j);
}

int cl_worker_turn(cl_worker *w, const void *st, double deadline_ms, int tag)
{
    job *j = new_job(J_TURN, st, w->g->state_size);
    if (j) {
        j->deadline_ms = deadline_ms;
        j->tag = tag;
    }
    return push_job(w, j);
}

void cl_worker_stop_turn(cl_worker *w, int tag)
{
    pthread_mutex_lock(&w->mu);
    if (w->running && w->running->kind == J_TURN && w->running->tag == tag)
        atomic_store(&w->running->stop, true);
    for (job *j = w->head; j; j = j->next)
        if (j->kind == J_TURN && j->tag == tag)
            atomic_store(&j->stop, true);
    pthread_mutex_unlock(&w->mu);
}

int cl_worker_game_over(cl_worker *w, const void *st, const char *reason, int faulty,
                        const char *detail)
{
    job *j = new_job(J_GAME_OVER, st, w->g->state_size);
    if (j) {
        j->faulty = faulty;
        snprintf(j->reason, sizeof j->reason, "%s", reason ? reason : "normal");
        snprintf(j->detail, sizeof j->detail, "%s", detail ? detail : "");
    }
    return push_job(w, j);
}

cl_done *cl_worker_take(cl_worker *w)
{
    pthread_mutex_lock(&w->mu);
    cl_done *d = w->dhead;
    if (d) {
        w->dhead = d->next;
        if (!w->dhead)
            w->dtail = NULL;
        d->next = NULL;
    }
    pthread_mutex_unlock(&w->mu);
    return d;
}

void cl_worker_close(cl_worker *w)
{
    pthread_mutex_lock(&w->mu);
    w->closing = true;
    if (w->running && w->running->kind == J_TURN)
        atomic_store(&w->running->stop, true);
    for (job *j = w->head; j; j = j->next)
        atomic_store(&j->stop, true);
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

bool cl_worker_finished(cl_worker *w)
{
    pthread_mutex_lock(&w->mu);
    bool f = w->finished;
    pthread_mutex_unlock(&w->mu);
    return f;
}

void cl_worker_free(cl_worker *w)
{
    if (!w)
        return;
    pthread_join(w->thread, NULL);
    while (w->head) {
        job *j = w->head;
        w->head = j->next;
        free_job(j);
    }
    while (w->dhead) {
        cl_done *d = w->dhead;
        w->dhead = d->next;
        json_decref(d->info);
        free(d);
    }
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->cv);
    free(w);
}

player_kind cl_worker_kind(const cl_worker *w)
{
    return w->kind;
}

void cl_worker_info(cl_worker *w, player_info *out)
{
    pthread_mutex_lock(&w->mu);
    *out = w->info;
    pthread_mutex_unlock(&w->mu);
}
