/*
 * fenced.c — a computation in a fenced process (contract in fenced.h).
 *
 * The caller starts the program with posix_spawn (a vfork-like clone: safe
 * from a thread of a threaded process, nothing of the caller's runs in the
 * child), with only the few variables of the caller's environment that a
 * program of ours needs to start (fenced.h). Its standard input is one end
 * of a socket pair (the caller sends with MSG_NOSIGNAL: a program that died
 * early costs no SIGPIPE), its standard output a pipe, standard error the
 * caller's; every other descriptor is closed (closefrom), every signal at
 * its default and none blocked (a crash ends it whatever handler the caller
 * has). RLIMIT_CPU and RLIMIT_AS are set on it (prlimit) before a byte of
 * input goes, so its work is limited from the input's first byte. The
 * caller reads the answer as it comes (an answer longer than a pipe's
 * buffer never blocks the program), watching the wall limit and the stop
 * flag every FENCED_POLL_MS, then reaps the program and says what ended it
 * when it did not answer.
 *
 * The program, once it has read its input, fences itself:
 * PR_SET_PDEATHSIG (it dies with its caller), then the filter — an allow
 * list, everything else kills the process (SIGSYS):
 *   - memory: brk, mmap, munmap, mremap, madvise, and mprotect, never with
 *     PROT_EXEC (no code of its own making runs);
 *   - write only to standard output, the answer (and standard error in
 *     sanitizer builds, for their reports), close;
 *   - time, futex, sched_yield, getrandom, and what abort and exit use.
 * No open, no socket, no fork or exec, no read: what it could reach, it
 * reached before it read its input. When the filter cannot be loaded it
 * says so and stops (fails closed).
 *
 * The answer on the pipe: the code as 4 bytes (int32, host order), then the
 * answer's text (code 0) or the reason.
 */
#define _GNU_SOURCE
#include "fenced.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <seccomp.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "engine/eng.h"
#include "engine/errors.h"
#include "engine/textbuf.h"

#if defined(__SANITIZE_ADDRESS__)
#define FENCED_STDERR 1 /* ASan's and UBSan's reports */
#define FENCED_MEM    0 /* its shadow memory is terabytes of address space: no RLIMIT_AS */
#else
#define FENCED_STDERR 0
#define FENCED_MEM    1
#endif

#define FENCED_POLL_MS 100 /* how soon a raised stop or the wall limit is seen */
#define FENCED_HEAD    4   /* the code before the answer */

extern char **environ;

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1000.0 + (double)t.tv_nsec / 1e6;
}

/* ---- the program ------------------------------------------------------------------------ */

int fenced_read_input(size_t max, char **in, size_t *len)
{
    textbuf b = TEXTBUF_INIT;
    char buf[16384];
    *in = NULL;
    *len = 0;
    for (;;) {
        ssize_t k = read(STDIN_FILENO, buf, sizeof buf);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0 || b.len + (size_t)k > max) {
            tb_free(&b);
            return -1;
        }
        if (k == 0)
            break;
        tb_put(&b, buf, (size_t)k);
    }
    if (b.failed || tb_reserve(&b, 0) != 0) {
        tb_free(&b);
        return -1;
    }
    *in = b.p;
    *len = b.len;
    return 0;
}

int fenced_enter(char *why, size_t cap)
{
    static const int plain[] = {
        SCMP_SYS(brk),
        SCMP_SYS(munmap),
        SCMP_SYS(mremap),
        SCMP_SYS(madvise),
        SCMP_SYS(close),
        SCMP_SYS(futex),
        SCMP_SYS(sched_yield),
        SCMP_SYS(getrandom),
        SCMP_SYS(clock_gettime),
        SCMP_SYS(clock_getres),
        SCMP_SYS(gettimeofday),
        SCMP_SYS(nanosleep),
        SCMP_SYS(clock_nanosleep),
        SCMP_SYS(exit),
        SCMP_SYS(exit_group),
        SCMP_SYS(rt_sigreturn),
        SCMP_SYS(rt_sigprocmask),
        SCMP_SYS(rt_sigaction),
        SCMP_SYS(getpid),
        SCMP_SYS(gettid),
        SCMP_SYS(tgkill),
        SCMP_SYS(tkill),
        SCMP_SYS(sigaltstack),
    };
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0)
        return eng_seterr(why, cap, -1, "prctl: %s", strerror(errno));
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_KILL_PROCESS);
    if (!ctx)
        return eng_seterr(why, cap, -1, "the fence could not be set up (libseccomp: seccomp_init)");
    int rc = 0;
    for (size_t i = 0; i < sizeof plain / sizeof plain[0] && rc == 0; i++)
        rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, plain[i], 0);
    if (rc == 0)
        rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mmap), 1,
                              SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
    if (rc == 0)
        rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mprotect), 1,
                              SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
    if (rc == 0)
        rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(write), 1,
                              SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)STDOUT_FILENO));
    if (rc == 0 && FENCED_STDERR)
        rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(write), 1,
                              SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)STDERR_FILENO));
    if (rc == 0)
        rc = seccomp_load(ctx);
    seccomp_release(ctx);
    if (rc != 0)
        return eng_seterr(why, cap, -1, "the fence could not be set up (libseccomp: %s)",
                          strerror(-rc));
    return 0;
}

static void write_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n) {
        ssize_t k = write(fd, c, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return; /* the caller is gone or killed us: nobody to tell */
        c += k;
        n -= (size_t)k;
    }
}

_Noreturn void fenced_answer(int code, const char *text, size_t len)
{
    int32_t c = code;
    write_all(STDOUT_FILENO, &c, sizeof c);
    if (text)
        write_all(STDOUT_FILENO, text, len);
    _exit(0);
}

/* ---- the caller ------------------------------------------------------------------------- */

const char *fenced_self(char *path, size_t cap)
{
    assert(path && cap);
    static const char self[] = "/proc/self/exe", gone[] = " (deleted)";
    ssize_t n = readlink(self, path, cap - 1);
    size_t g = sizeof gone - 1;
    if (n <= 0 || (size_t)n >= cap - 1 || path[0] != '/' ||
        ((size_t)n >= g && memcmp(path + n - g, gone, g) == 0)) {
        snprintf(path, cap, "%s", self);
        return path;
    }
    path[n] = 0;
    return path;
}

/* What ended a program that did not answer, from its status. */
static int ended(int status, const fenced_limits *lim, char *why, size_t cap)
{
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        if (sig == SIGSYS)
            return eng_seterr(why, cap, ENG_EINTERNAL,
                              "the fenced process made a system call its fence does not allow");
        if (sig == SIGXCPU)
            return eng_seterr(why, cap, ENG_EINTERNAL,
                              "the fenced process spent its %u CPU seconds", lim->cpu_s);
        return eng_seterr(why, cap, ENG_EINTERNAL, "the fenced process was ended by signal %d (%s)",
                          sig, strsignal(sig));
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
        return eng_seterr(why, cap, ENG_EINTERNAL, "the fenced process exited with status %d",
                          WEXITSTATUS(status));
    return eng_seterr(why, cap, ENG_EINTERNAL, "the fenced process ended without an answer");
}

/* Does the caller's variable kv (NAME=VALUE) go to the program? */
static bool kept_var(const char *kv, const char *prefix)
{
    static const char *const every[] = {
        "LD_LIBRARY_PATH=", "ASAN_OPTIONS=", "UBSAN_OPTIONS=", "LSAN_OPTIONS="};
    for (size_t i = 0; i < sizeof every / sizeof every[0]; i++)
        if (strncmp(kv, every[i], strlen(every[i])) == 0)
            return true;
    return prefix && *prefix && strncmp(kv, prefix, strlen(prefix)) == 0;
}

/* Start argv: *pid, *to (its input, ours to send on) and *from (its answer). */
static int start(const char *const argv[], const char *env_prefix, pid_t *pid, int *to, int *from,
                 char *why, size_t cap)
{
    size_t n = 0, k = 0;
    while (environ && environ[n])
        n++;
    char **envp = calloc(n + 1, sizeof *envp); /* the caller's strings, borrowed */
    if (!envp)
        return eng_seterr(why, cap, ENG_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++)
        if (kept_var(environ[i], env_prefix))
            envp[k++] = environ[i];
    int sv[2], p[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        free(envp);
        return eng_seterr(why, cap, ENG_EINTERNAL, "socketpair: %s", strerror(errno));
    }
    if (pipe2(p, O_CLOEXEC) != 0) {
        int e = errno;
        close(sv[0]);
        close(sv[1]);
        free(envp);
        return eng_seterr(why, cap, ENG_EINTERNAL, "pipe: %s", strerror(e));
    }
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    sigset_t all, none;
    sigfillset(&all);
    sigemptyset(&none);
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&at);
    /* dup2 clears close-on-exec on 0 and 1; the rest goes */
    posix_spawn_file_actions_adddup2(&fa, sv[1], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&fa, p[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclosefrom_np(&fa, STDERR_FILENO + 1);
    posix_spawnattr_setsigdefault(&at, &all);
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    int rc = posix_spawn(pid, argv[0], &fa, &at, (char *const *)argv, envp);
    free(envp);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    close(sv[1]);
    close(p[1]);
    if (rc != 0) {
        close(sv[0]);
        close(p[0]);
        return eng_seterr(why, cap, ENG_EINTERNAL, "%s could not be started: %s", argv[0],
                          strerror(rc));
    }
    *to = sv[0];
    *from = p[0];
    return 0;
}

int fenced_run(const char *const argv[], const char *in, size_t inlen, const fenced_limits *lim,
               char **out, size_t *len, char *why, size_t cap)
{
    assert(argv && argv[0] && (in || !inlen) && lim && out && why && cap);
    *out = NULL;
    if (len)
        *len = 0;
    why[0] = 0;
    pid_t pid = 0;
    int to = -1, from = -1;
    int rc = start(argv, lim->env_prefix, &pid, &to, &from, why, cap);
    if (rc)
        return rc;
    if (lim->cpu_s) {
        struct rlimit r = {lim->cpu_s, lim->cpu_s + 1};
        if (prlimit(pid, RLIMIT_CPU, &r, NULL) != 0)
            rc = eng_seterr(why, cap, ENG_EINTERNAL, "prlimit (CPU): %s", strerror(errno));
    }
    if (lim->mem_mb && FENCED_MEM && !rc) {
        rlim_t b = (rlim_t)lim->mem_mb << 20;
        struct rlimit r = {b, b};
        if (prlimit(pid, RLIMIT_AS, &r, NULL) != 0)
            rc = eng_seterr(why, cap, ENG_EINTERNAL, "prlimit (memory): %s", strerror(errno));
    }
    if (rc)
        kill(pid, SIGKILL); /* not run without its limits */

    textbuf got = TEXTBUF_INIT;
    enum { READING, STOPPED, WALL, TOO_LONG, BROKEN } how = rc ? BROKEN : READING;
    size_t sent = 0;
    int poll_errno = 0;
    if (inlen == 0) {
        close(to);
        to = -1;
    }
    double begun = now_ms();
    char buf[16384];
    while (how == READING) {
        if (lim->stop && atomic_load(lim->stop)) {
            how = STOPPED;
            break;
        }
        if (lim->wall_s && now_ms() - begun > lim->wall_s * 1000.0) {
            how = WALL;
            break;
        }
        struct pollfd pf[2] = {{.fd = from, .events = POLLIN}, {.fd = to, .events = POLLOUT}};
        int n = poll(pf, to >= 0 ? 2 : 1, FENCED_POLL_MS);
        if (n < 0 && errno != EINTR) {
            poll_errno = errno;
            how = BROKEN;
        }
        if (n <= 0)
            continue;
        if (to >= 0 && (pf[1].revents & (POLLOUT | POLLERR | POLLHUP))) {
            ssize_t k = send(to, in + sent, inlen - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
            if (k > 0)
                sent += (size_t)k;
            if ((k < 0 && errno != EAGAIN && errno != EINTR) || sent == inlen) {
                close(to); /* all of it, or the program stopped reading: it answers or ends */
                to = -1;
            }
        }
        if (!(pf[0].revents & (POLLIN | POLLERR | POLLHUP)))
            continue;
        ssize_t k = read(from, buf, sizeof buf);
        if (k < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (k <= 0)
            break; /* the end of the answer (or of the program) */
        if (got.len + (size_t)k > lim->max_out + FENCED_HEAD)
            how = TOO_LONG;
        else
            tb_put(&got, buf, (size_t)k);
    }
    if (to >= 0)
        close(to);
    close(from);
    if (how != READING)
        kill(pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }

    if (how == STOPPED)
        rc = eng_seterr(why, cap, ENG_ESHUTTING_DOWN, "stopped");
    else if (how == WALL)
        rc = eng_seterr(why, cap, ENG_EINTERNAL, "the fenced process ran past its %u s",
                        lim->wall_s);
    else if (how == TOO_LONG)
        rc = eng_seterr(why, cap, ENG_EINTERNAL, "the fenced process's answer passed %zu bytes",
                        lim->max_out);
    else if (how == BROKEN)
        rc = rc ? rc : eng_seterr(why, cap, ENG_EINTERNAL, "poll: %s", strerror(poll_errno));
    else if (got.failed)
        rc = eng_seterr(why, cap, ENG_ENOMEM, "out of memory for the answer");
    else if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0) || got.len < FENCED_HEAD)
        rc = ended(status, lim, why, cap);
    else {
        int32_t code;
        memcpy(&code, got.p, sizeof code);
        size_t n = got.len - FENCED_HEAD;
        if (code != 0) {
            snprintf(why, cap, "%.*s", (int)n, got.p + FENCED_HEAD);
            tb_free(&got);
            return code;
        }
        memmove(got.p, got.p + FENCED_HEAD, n);
        got.p[n] = 0;
        *out = got.p;
        if (len)
            *len = n;
        return 0;
    }
    tb_free(&got);
    return rc;
}
