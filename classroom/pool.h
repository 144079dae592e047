/*
 * pool.h — the builds' own threads (docs/classroom.md, "Builds"): a small
 * bounded pool that checks and builds uploads (python3's parse, node
 * --check, gcc, g++, javac in the sandbox), apart from the server's thread
 * pool, whose threads the in-process bots of live matches need. A class
 * uploading Java in the same minute queues here and holds none of them.
 *
 * A job's work runs on one of the pool's threads; its done runs on the
 * loop thread, in class_pool_poll, after the owner's wake was called (any
 * thread). started, when given, is also called on the loop (in poll) when
 * a thread takes the job, so that its submitter can be told "building".
 * The pool owns nothing of a job's arg.
 */
#ifndef TESSERA_CLASSROOM_POOL_H
#define TESSERA_CLASSROOM_POOL_H

#include <stdbool.h>

typedef struct class_pool class_pool;

#define CLASS_POOL_MAX_THREADS 16 /* a build is a compiler: one a core at most is useful */
#define CLASS_POOL_MAX_WAITING                                                                     \
    64 /* jobs waiting for a thread: a class of 60 uploading at once waits; beyond, "too_many"     \
          (each waiting job holds its upload's bytes in memory) */

typedef struct class_pool_job {
    void (*work)(void *arg);             /* a pool thread */
    void (*started)(void *arg);          /* the loop, when a thread took it (may be NULL) */
    void (*done)(void *arg, int status); /* the loop: status 0, or -1 (stopped before it ran) */
    void *arg;
} class_pool_job;

/* threads 0: half the cores, at least 1. wake(user) is called from any
 * thread when poll has something to do. 0, or -1 (no memory, no thread). */
int class_pool_start(class_pool **out, int threads, void (*wake)(void *user), void *user);
/* Queue a job: 0, *waits (no thread is free for it now) and *ahead (the
 * jobs queued before it), or -1 when CLASS_POOL_MAX_WAITING wait already
 * or the pool stopped. */
int class_pool_push(class_pool *p, const class_pool_job *j, bool *waits, int *ahead);
/* On the loop: the started and done callbacks of what the threads did. */
void class_pool_poll(class_pool *p);
/* Jobs running now, waiting, and the threads. */
void class_pool_counts(const class_pool *p, int *running, int *waiting, int *threads);
/* Stop: the jobs not started are dropped (their done gets -1 at the next
 * poll, or at free), running ones finish; joins the threads. */
void class_pool_stop(class_pool *p);
/* Free after stop: the done callbacks still owed are called first. NULL is fine. */
void class_pool_free(class_pool *p);

#endif
