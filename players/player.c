/*
 * player.c — the players interface (player.h) over the kinds' vtable: the
 * calls every kind shares (a game, a turn, its end), verdict names, the
 * results' details and notes, and how a program's end is read as a verdict.
 * A player is made from its spec in create.c, the one file that knows the
 * kinds; they and it stand on this one.
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

void player_destroy(player *p)
{
    if (!p)
        return;
    p->ops->destroy(p);
    json_decref((json_t *)p->cfg.time_control);
    json_decref((json_t *)p->cfg.extra_fields);
    free(p);
}

player_kind player_get_kind(const player *p)
{
    return p->kind;
}

const char *player_spec(const player *p)
{
    return p->spec;
}

int player_new_game(player *p, const void *st, int seat, const char *match)
{
    if (!st || seat < 0 || seat >= eng_num_players(st) || eng_num_players(st) > p->g->max_players)
        return ENG_EINVAL;
    p->seat = seat;
    return p->ops->new_game(p, st, seat, match);
}

int player_resume(player *p, const void *initial, const eng_move *moves, int n, int seat,
                  const char *match)
{
    if (!initial || seat < 0 || seat >= eng_num_players(initial) || n < 0 || (n && !moves))
        return ENG_EINVAL;
    p->seat = seat;
    return p->ops->resume(p, initial, moves, n, seat, match);
}

void player_observe(player *p, const void *st, eng_move m, const char *reason)
{
    p->ops->observe(p, st, m, reason);
}

player_verdict player_turn(player *p, const void *st, double deadline_ms, const atomic_bool *stop,
                           player_result *out)
{
    memset(out, 0, sizeof *out);
    if (p->seat < 0)
        return player__fail(out, PLAYER_INTERNAL, "player_turn before player_new_game");
    if (p->g->current_player(st) != p->seat)
        return player__fail(out, PLAYER_INTERNAL, "player_turn: seat %d is not to move", p->seat);
    return p->ops->turn(p, st, deadline_ms, stop, out);
}

void player_game_over(player *p, const void *st, const char *reason, int faulty, const char *detail,
                      player_result *out)
{
    if (out)
        memset(out, 0, sizeof *out);
    p->ops->game_over(p, st, reason ? reason : "normal", faulty, detail, out);
}

void player_get_info(const player *p, player_info *out)
{
    memset(out, 0, sizeof *out);
    if (p->ops->info)
        p->ops->info(p, out);
}

json_t *player_transcript(const player *p, bool *truncated)
{
    if (truncated)
        *truncated = false;
    return p->ops->transcript ? p->ops->transcript(p, truncated) : NULL;
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
    bool near_limit = (st->vm_peak_kb > 0 && st->vm_peak_kb >= limit_kb * 9 / 10) ||
                      (st->maxrss_kb > 0 && st->maxrss_kb >= limit_kb * 9 / 10);
    bool oom = has_oom_marker(tail);
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
        if (oom || near_limit) {
            snprintf(detail, cap,
                     "ran out of memory (limit %lld MiB, peak address space %lld MiB): signal "
                     "%d (SIG%s)%s%s",
                     (long long)lim->memory_mb, (long long)(st->vm_peak_kb / 1024), sig,
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
        snprintf(detail, cap,
                 "ran out of memory (limit %lld MiB, peak address space %lld MiB): exit status "
                 "%d%s%s",
                 (long long)lim->memory_mb, (long long)(st->vm_peak_kb / 1024), st->code, sep,
                 lines);
        return PLAYER_MEMORY_LIMIT;
    }
    snprintf(detail, cap, "exited with status %d%s%s", st->code, sep, lines);
    return PLAYER_CRASHED;
}
