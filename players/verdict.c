/*
 * verdict.c — how a turn went, for every kind of player: the verdicts'
 * names, a turn's detail and notes (player__fail, player__note), the
 * players' default configuration, and how a program's end is read as a
 * verdict (player_classify_exit). The bottom of players/: the kinds and the
 * dispatch use it, it uses none of them.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const verdict_names[PLAYER_NVERDICTS] = {
    "ok",           "time_limit", "memory_limit", "crashed",  "bad_output",
    "illegal_move", "no_answer",  "output_flood", "resigned", "internal_error",
};
static const char *const verdict_shorts[PLAYER_NVERDICTS] = {
    "OK", "TLE", "MLE", "RE", "OUT", "ILL", "NA", "FLOOD", "RES", "INT",
};

const char *player_verdict_name(player_verdict v)
{
    return (unsigned)v < PLAYER_NVERDICTS ? verdict_names[v] : "unknown";
}

const char *player_verdict_short(player_verdict v)
{
    return (unsigned)v < PLAYER_NVERDICTS ? verdict_shorts[v] : "?";
}

void player_config_default(player_config *c)
{
    memset(c, 0, sizeof *c);
    c->seed = 1;
    sandbox_limits_default(&c->limits);
    c->bot_margin_ms = PLAYER_BOT_MARGIN_MS;
    c->exit_grace_ms = PLAYER_EXIT_GRACE_MS;
    c->startup_ms = PLAYER_DEFAULT_STARTUP_MS;
}

player_verdict player__fail(player_result *out, player_verdict v, const char *fmt, ...)
{
    out->verdict = v;
    out->nmoves = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->detail, sizeof out->detail, fmt, ap);
    va_end(ap);
    return v;
}

void player__note(player_result *out, const char *fmt, ...)
{
    size_t have = strlen(out->note);
    if (have && have + 3 < sizeof out->note) {
        strcpy(out->note + have, "; ");
        have += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->note + have, sizeof out->note - have, fmt, ap);
    va_end(ap);
}

/* ---- how a program ended ------------------------------------------------------------- */

/* What programs print when an allocation fails, in lower case: CPython,
 * C++ (libstdc++), the JVM, glibc's strerror(ENOMEM), Go, Rust, Node/V8. */
static const char *const oom_markers[] = {
    "memoryerror",
    "bad_alloc",
    "outofmemoryerror",
    "cannot allocate memory",
    "out of memory",
    "could not reserve enough space",
    "insufficient memory",
    "memory exhausted",
    "memory allocation of",
    "allocation failed",
    NULL,
};

static bool has_oom_marker(const char *tail)
{
    char low[PLAYER_STDERR_KEEP + 1];
    size_t n = 0;
    for (; tail[n] && n < sizeof low - 1; n++)
        low[n] = (char)(tail[n] >= 'A' && tail[n] <= 'Z' ? tail[n] + 32 : tail[n]);
    low[n] = 0;
    for (int i = 0; oom_markers[i]; i++)
        if (strstr(low, oom_markers[i]))
            return true;
    return false;
}

/* The last (up to 3) non-empty lines of text, printable, " | " between. */
static void last_lines(const char *tail, char *out, size_t cap)
{
    out[0] = 0;
    const char *end = tail + strlen(tail);
    const char *starts[3];
    size_t lens[3];
    int n = 0;
    while (end > tail && n < 3) {
        while (end > tail && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' '))
            end--;
        if (end == tail)
            break;
        const char *s = end;
        while (s > tail && s[-1] != '\n')
            s--;
        if (strncmp(s, SANDBOX_NOTE_PREFIX, strlen(SANDBOX_NOTE_PREFIX)) == 0) {
            end = s; /* ours, not the program's */
            continue;
        }
        starts[n] = s;
        lens[n] = (size_t)(end - s);
        n++;
        end = s;
    }
    size_t o = 0;
    for (int i = n - 1; i >= 0 && o + 1 < cap; i--) {
        if (o && o + 4 < cap) {
            memcpy(out + o, " | ", 3);
            o += 3;
        }
        size_t len = lens[i] > 160 ? 160 : lens[i];
        for (size_t j = 0; j < len && o + 1 < cap; j++) {
            unsigned char ch = (unsigned char)starts[i][j];
            out[o++] = ch >= 0x20 && ch < 0x7f ? (char)ch : ch == '\t' ? ' ' : '?';
        }
    }
    out[o] = 0;
}

player_verdict player_classify_exit(const sandbox_status *st, const sandbox_limits *lim,
                                    const char *tail, bool answered, char *detail, size_t cap)
{
    sandbox_limits def;
    if (!lim) {
        sandbox_limits_default(&def);
        lim = &def;
    }
    if (!tail)
        tail = "";
    char lines[400];
    last_lines(tail, lines, sizeof lines);
    const char *sep = lines[0] ? "; stderr: " : "";
    detail[0] = 0;
    if (st->start_failed) {
        snprintf(detail, cap, "could not start: %s", st->start_error);
        return PLAYER_CRASHED;
    }
    if (!st->exited) {
        snprintf(detail, cap, "the program is still running");
        return PLAYER_NO_ANSWER;
    }
    int64_t limit_kb = lim->memory_mb * 1024;
    /* the address space says nothing where it was not limited (as_mb < 0: a JVM) */
    bool near_limit = (lim->as_mb >= 0 && st->mem_peak_kb > 0 &&
                       st->mem_peak_kb >= limit_kb * 9 / 10) ||
                      (st->maxrss_kb > 0 && st->maxrss_kb >= limit_kb * 9 / 10) ||
                      st->oom_kills > 0;
    bool oom = has_oom_marker(tail);
    int64_t peak_kb = st->mem_peak_kb > st->maxrss_kb ? st->mem_peak_kb : st->maxrss_kb;
    if (st->signaled) {
        int sig = st->signal;
        const char *abbrev = sigabbrev_np(sig), *what = strsignal(sig);
        if (st->killed) {
            snprintf(detail, cap, "killed by tessera%s%s", sep, lines);
            return PLAYER_NO_ANSWER;
        }
        if (sig == SIGXCPU || (sig == SIGKILL && st->cpu_ms >= (double)lim->cpu_s * 1000.0 - 100)) {
            snprintf(detail, cap, "used up its CPU limit of %lld s (CPU time %.1f s)",
                     (long long)lim->cpu_s, st->cpu_ms / 1000.0);
            return PLAYER_TIME_LIMIT;
        }
        if (sig == SIGXFSZ) {
            snprintf(detail, cap, "wrote a file past the size limit of %lld MiB",
                     (long long)lim->file_mb);
            return PLAYER_OUTPUT_FLOOD;
        }
        if (st->oom_kills > 0 && sig == SIGKILL) {
            snprintf(detail, cap,
                     "killed by the kernel at its memory limit (%lld MiB for all its processes, "
                     "peak %lld MiB)%s%s",
                     (long long)lim->memory_mb, (long long)(peak_kb / 1024), sep, lines);
            return PLAYER_MEMORY_LIMIT;
        }
        if (oom || near_limit) {
            snprintf(detail, cap,
                     "ran out of memory (limit %lld MiB, peak %lld MiB): signal %d (SIG%s)%s%s",
                     (long long)lim->memory_mb, (long long)(peak_kb / 1024), sig,
                     abbrev ? abbrev : "?", sep, lines);
            return PLAYER_MEMORY_LIMIT;
        }
        snprintf(detail, cap, "killed by signal %d (SIG%s: %s)%s%s", sig, abbrev ? abbrev : "?",
                 what ? what : "?", sep, lines);
        return PLAYER_CRASHED;
    }
    if (st->code == 0) {
        if (answered)
            return PLAYER_OK;
        snprintf(detail, cap, "exited (status 0) after %.0f ms without answering%s%s", st->wall_ms,
                 sep, lines);
        return PLAYER_NO_ANSWER;
    }
    if (oom || near_limit) {
        snprintf(detail, cap, "ran out of memory (limit %lld MiB, peak %lld MiB): exit status %d%s%s",
                 (long long)lim->memory_mb, (long long)(peak_kb / 1024), st->code, sep, lines);
        return PLAYER_MEMORY_LIMIT;
    }
    snprintf(detail, cap, "exited with status %d%s%s", st->code, sep, lines);
    return PLAYER_CRASHED;
}
