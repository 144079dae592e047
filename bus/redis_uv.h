/*
 * redis_uv.h — a hiredis asynchronous context driven by a libuv loop: our
 * own glue, in place of the adapter hiredis ships (hiredis 0.14's libuv
 * adapter drops the error a poll reports — a refused connection — and its
 * context then waits forever). Used by server/cluster.c for the Redis links
 * between servers; it knows nothing of them.
 */
#ifndef TESSERA_BUS_REDIS_UV_H
#define TESSERA_BUS_REDIS_UV_H

#include <hiredis/async.h>
#include <uv.h>

/* Drive ac from loop: its reads and writes run when its socket is ready,
 * and an error on the socket is handed to hiredis as the events the context
 * waits for, so that it reads the error and fails the connection (its
 * disconnect or connect callback says so). The glue is freed when hiredis
 * lets go of the context. 0, or -1 (out of memory, or the loop refused the
 * socket): the caller frees ac. */
int redis_uv_attach(redisAsyncContext *ac, uv_loop_t *loop);

#endif
