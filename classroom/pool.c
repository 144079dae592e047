/*
 * pool.c — the builds' own threads (contract in pool.h): a queue under one
 * mutex, N threads taking jobs from it, and a list of events (started,
 * done) the loop drains in class_pool_poll.
 *
 * Ownership: the pool owns its queue nodes; a job's arg is its owner's,
 * handed back through done exactly once.
 */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "classroom/pool.h"

struct node;

/* An event for the loop: a job taken (started) or finished; two live in
 * each node, so that posting one cannot fail. */
typedef struct event {
    struct node *n;
    bool done;
    struct event *next;
} event;

typedef struct node {
    class_pool_job j;
    int status;
    event started_ev, done_ev;
    struct node *next;
} node;

struct class_pool {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    pthread_t thread[CLASS_POOL_MAX_THREADS];
    int nthreads;
    node *head, *tail; /* waiting */
    int waiting, running;
    event *ev, *ev_tail;
    bool stop;
    void (*wake)(void *user);
    void *user;
};

static void post(class_pool *p, node *n, bool done)
{
    event *e = done ? &n->done_ev : &n->started_ev;
    *e = (event){.n = n, .done = done};
    if (p->ev_tail)
        p->ev_tail->next = e;
    else
        p->ev = e;
    p->ev_tail = e;
}

static void *thread_main(void *arg)
{
    class_pool *p = arg;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->stop && !p->head)
            pthread_cond_wait(&p->cond, &p->lock);
        if (p->stop)
            break;
        node *n = p->head;
        p->head = n->next;
        if (!p->head)
            p->tail = NULL;
        p->waiting--;
        p->running++;
        if (n->j.started)
            post(p, n, false);
        pthread_mutex_unlock(&p->lock);
        if (n->j.started)
            p->wake(p->user);
        n->j.work(n->j.arg);
        pthread_mutex_lock(&p->lock);
        p->running--;
        n->status = 0;
        post(p, n, true);
        pthread_mutex_unlock(&p->lock);
        p->wake(p->user);
        pthread_mutex_lock(&p->lock);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

int class_pool_start(class_pool **out, int threads, void (*wake)(void *user), void *user)
{
    *out = NULL;
    if (threads <= 0) {
        long c = sysconf(_SC_NPROCESSORS_ONLN);
        threads = c > 1 ? (int)(c / 2) : 1;
    }
    if (threads > CLASS_POOL_MAX_THREADS)
        threads = CLASS_POOL_MAX_THREADS;
    class_pool *p = calloc(1, sizeof *p);
    if (!p)
        return -1;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->cond, NULL);
    p->wake = wake;
    p->user = user;
    for (int i = 0; i < threads; i++) {
        if (pthread_create(&p->thread[i], NULL, thread_main, p) != 0)
            break;
        p->nthreads++;
    }
    if (p->nthreads == 0) {
        pthread_cond_destroy(&p->cond);
        pthread_mutex_destroy(&p->lock);
        free(p);
        return -1;
    }
    *out = p;
    return 0;
}

int class_pool_push(class_pool *p, const class_pool_job *j, bool *waits, int *ahead)
{
    node *n = calloc(1, sizeof *n);
    if (!n)
        return -1;
    n->j = *j;
    pthread_mutex_lock(&p->lock);
    if (p->stop || p->waiting >= CLASS_POOL_MAX_WAITING) {
        pthread_mutex_unlock(&p->lock);
        free(n);
        return -1;
    }
    /* the jobs before it in the queue; it waits unless a thread is free for it */
    *ahead = p->waiting;
    *waits = p->waiting >= p->nthreads - p->running;
    if (p->tail)
        p->tail->next = n;
    else
        p->head = n;
    p->tail = n;
    p->waiting++;
    pthread_cond_signal(&p->cond);
    pthread_mutex_unlock(&p->lock);
    return 0;
}

void class_pool_poll(class_pool *p)
{
    pthread_mutex_lock(&p->lock);
    event *e = p->ev;
    p->ev = p->ev_tail = NULL;
    pthread_mutex_unlock(&p->lock);
    while (e) {
        event *next = e->next;
        node *n = e->n;
        if (e->done) {
            n->j.done(n->j.arg, n->status);
            free(n);
        } else {
            n->j.started(n->j.arg);
        }
        e = next;
    }
}

void class_pool_counts(const class_pool *p, int *running, int *waiting, int *threads)
{
    class_pool *q = (class_pool *)p; /* the lock only */
    pthread_mutex_lock(&q->lock);
    *running = q->running;
    *waiting = q->waiting;
    *threads = q->nthreads;
    pthread_mutex_unlock(&q->lock);
}

void class_pool_stop(class_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    p->stop = true;
    /* the jobs not started: done with -1 */
    for (node *n = p->head; n; n = n->next)
        n->status = -1;
    for (node *n = p->head, *next; n; n = next) {
        next = n->next;
        n->next = NULL;
        post(p, n, true);
    }
    p->head = p->tail = NULL;
    p->waiting = 0;
    pthread_cond_broadcast(&p->cond);
    pthread_mutex_unlock(&p->lock);
    for (int i = 0; i < p->nthreads; i++)
        pthread_join(p->thread[i], NULL);
    p->nthreads = 0;
}

void class_pool_free(class_pool *p)
{
    if (!p)
        return;
    class_pool_poll(p); /* the done callbacks still owed */
    pthread_cond_destroy(&p->cond);
    pthread_mutex_destroy(&p->lock);
    free(p);
}
