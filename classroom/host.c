/*
 * host.c — the ground floor of the course service (internal.h): what every
 * other part says through the host — log lines, replies and error replies
 * to a caller — and the wall clock. It calls no other part.
 */
#include <stdarg.h>
#include <stdio.h>
#include <sys/time.h>
#include <time.h>

#include "classroom/internal.h"
#include "engine/errors.h"
#include "protocol/jsontext.h"

int64_t class__now_ms(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

void class__log(class_service *svc, int level, const char *event, const char *fmt, ...)
{
    if (!svc->host.log)
        return;
    va_list ap;
    va_start(ap, fmt);
    json_t *o = jt_fields(fmt, ap);
    va_end(ap);
    svc->host.log(svc->host.user, level, event, o);
}

static void vfail(class_service *svc, uint64_t caller, const json_t *id, int code,
                  const char *reason, const char *fmt, va_list ap)
{
    char msg[600];
    vsnprintf(msg, sizeof msg, fmt, ap);
    json_t *e = proto_error(code, msg, id);
    if (e && reason)
        json_object_set_new(e, "reason", json_string(reason));
    if (e)
        svc->host.reply(svc->host.user, caller, e);
}

void class__fail_to(class_service *svc, uint64_t caller, const json_t *id, int code,
                    const char *reason, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(svc, caller, id, code, reason, fmt, ap);
    va_end(ap);
}

void class__fail(const req *r, int code, const char *reason, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(r->svc, r->caller, r->id, code, reason, fmt, ap);
    va_end(ap);
}

void class__reply(const req *r, json_t *msg)
{
    if (msg)
        r->svc->host.reply(r->svc->host.user, r->caller, msg);
}

void class__utc(int64_t ms, char *out, size_t cap)
{
    time_t t = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, cap, "%Y-%m-%d %H:%M UTC", &tm);
}
