/*
 * redis_uv.c — hiredis on a libuv loop (redis_uv.h says why it is ours): one
 * uv_poll per context, started for the events hiredis asks for, closed when
 * hiredis cleans the context up. Loop thread only.
 */
#include "bus/redis_uv.h"

#include <stdlib.h>

typedef struct redis_ev {
    redisAsyncContext *ac; /* NULL once hiredis let go of it */
    uv_poll_t handle;
    int events;            /* what hiredis waits for: UV_READABLE | UV_WRITABLE */
} redis_ev;

static void ev_poll(uv_poll_t *h, int status, int events)
{
    redis_ev *e = h->data;
    if (status < 0) /* an error on the socket: let hiredis read it */
        events = e->events ? e->events : UV_READABLE;
    if (e->ac && (events & UV_READABLE))
        redisAsyncHandleRead(e->ac);
    if (e->ac && (events & UV_WRITABLE))
        redisAsyncHandleWrite(e->ac);
}

static void ev_update(redis_ev *e, int add, int del)
{
    e->events = (e->events | add) & ~del;
    if (e->events)
        uv_poll_start(&e->handle, e->events, ev_poll);
    else
        uv_poll_stop(&e->handle);
}

static void ev_add_read(void *p) { ev_update(p, UV_READABLE, 0); }
static void ev_del_read(void *p) { ev_update(p, 0, UV_READABLE); }
static void ev_add_write(void *p) { ev_update(p, UV_WRITABLE, 0); }
static void ev_del_write(void *p) { ev_update(p, 0, UV_WRITABLE); }

static void ev_closed(uv_handle_t *h) { free(h->data); }

static void ev_cleanup(void *p)
{
    redis_ev *e = p;
    e->ac = NULL;
    uv_close((uv_handle_t *)&e->handle, ev_closed);
}

int redis_uv_attach(redisAsyncContext *ac, uv_loop_t *loop)
{
    redis_ev *e = calloc(1, sizeof *e);
    if (!e)
        return -1;
    if (uv_poll_init(loop, &e->handle, ac->c.fd) != 0) {
        free(e);
        return -1;
    }
    e->ac = ac;
    e->handle.data = e;
    ac->ev.data = e;
    ac->ev.addRead = ev_add_read;
    ac->ev.delRead = ev_del_read;
    ac->ev.addWrite = ev_add_write;
    ac->ev.delWrite = ev_del_write;
    ac->ev.cleanup = ev_cleanup;
    return 0;
}
