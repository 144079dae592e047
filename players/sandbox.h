/*
 * sandbox.h — run an untrusted program (Linux): its stdin, stdout and
 * stderr through pipes, under limits, isolated as far as the kernel allows,
 * and gone without a trace at the end.
 *
 * What a sandboxed program gets (docs/stdio.md, "The sandbox"):
 *   - fork+exec without a shell: the command line is split on spaces, the
 *     program is resolved on PATH (or as a path) before anything else, and
 *     arguments naming existing files become absolute paths;
 *   - rlimits: CPU seconds, address space, file size, open files, core 0;
 *   - its own session and process group, and where the kernel allows its
 *     own PID namespace (the program is process 1 there: when it ends, or
 *     when it is killed, every process it started ends too, even one that
 *     called setsid) and network namespace (no interface but a loopback
 *     that is down: no network at all). As root these need nothing more; as
 *     another user they are made inside a new user namespace. When neither
 *     works the program runs without them, and a seccomp filter refuses
 *     internet sockets instead;
 *   - at most max_tasks processes and threads: a pids cgroup of its own
 *     when one can be made (the only limit that binds root and counts
 *     exactly this program), else RLIMIT_NPROC (counted per user: as
 *     root the program runs as `nobody`, which NPROC binds);
 *   - as root, the identity uid/gid (nobody by default), no supplementary
 *     groups; always no_new_privs (setuid binaries gain nothing);
 *   - a fresh working directory (mode 0700) removed at the end, whatever the
 *     program left in it; a clean environment: PATH, HOME (= the working
 *     directory), LANG, nothing else; no descriptors but 0, 1, 2.
 * sandbox_protections() says which of these are in force.
 *
 * Reading: non-blocking pipes and poll() against an absolute deadline.
 * stdout is read as lines of at most max_line bytes; stderr is collected
 * into a ring that keeps its tail; both are counted so that a flood is
 * noticed and stopped. Writing to stdin is queued and done while waiting,
 * so a program that does not read never blocks the caller.
 *
 * Ending: the whole program — PID namespace, pids cgroup, process group —
 * is killed with SIGKILL and reaped; no zombie and no descriptor is left
 * (every descriptor is O_CLOEXEC). The caller's signals are not touched:
 * SIGPIPE from a closed stdin is blocked around each write.
 *
 * If tessera dies, even by SIGKILL, its programs die too: each is bound to
 * the thread that started it (PR_SET_PDEATHSIG), so that thread must live
 * as long as the sandbox — start programs from threads that outlive them
 * (a worker pool's threads, the loop thread), never from a short-lived one.
 *
 * Threads: a sandbox is used by one thread at a time. Times are on the
 * CLOCK_MONOTONIC clock in milliseconds (bot_now_ms()). Errors are negative
 * codes of engine/errors.h with a reason in err.
 */
#ifndef TESSERA_PLAYERS_SANDBOX_H
#define TESSERA_PLAYERS_SANDBOX_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "players/limits.h"

/* What a sandbox may be given; sandbox_limits_default() fills the defaults
 * of players/limits.h. Zero in any field means its default, so a struct
 * zeroed and partly filled is complete. */
typedef struct sandbox_limits {
    int64_t cpu_s;      /* RLIMIT_CPU, seconds (SIGKILL one second after) */
    int64_t memory_mb;  /* RLIMIT_AS, MiB */
    int64_t file_mb;    /* RLIMIT_FSIZE, MiB */
    int64_t max_files;  /* RLIMIT_NOFILE */
    int64_t max_tasks;  /* processes + threads (pids cgroup / RLIMIT_NPROC) */
    int64_t max_line;   /* bytes of one stdout line */
    int64_t max_stdout; /* stdout bytes per window (sandbox_new_window) before a flood */
    int64_t max_stderr; /* stderr bytes per window before a flood */
    int64_t max_unread; /* bytes queued for stdin that the program has not read (beyond the pipe) */
    uint32_t uid, gid;  /* identity when started by root (0: the default, nobody) */
    unsigned disable;   /* SANDBOX_P_* bits never to use (tests, diagnosis) */
} sandbox_limits;

void sandbox_limits_default(sandbox_limits *l);
/* Fields left at zero (or below) take their defaults. */
void sandbox_limits_normalize(sandbox_limits *l);

/* Protections, as bits (sandbox_protections). */
enum {
    SANDBOX_P_RLIMITS = 1u << 0,   /* CPU, AS, FSIZE, NOFILE, CORE */
    SANDBOX_P_PGROUP = 1u << 1,    /* own session and process group */
    SANDBOX_P_PIDNS = 1u << 2,     /* own PID namespace */
    SANDBOX_P_NETNS = 1u << 3,     /* own network namespace: no network */
    SANDBOX_P_USERNS = 1u << 4,    /* namespaces made inside a user namespace (not root) */
    SANDBOX_P_CGROUP = 1u << 5,    /* pids cgroup of its own: max_tasks exactly */
    SANDBOX_P_NPROC = 1u << 6,     /* RLIMIT_NPROC for max_tasks */
    SANDBOX_P_UID = 1u << 7,       /* runs as uid/gid instead of root */
    SANDBOX_P_SECCOMP = 1u << 8,   /* seccomp filter: no internet sockets (no netns) */
    SANDBOX_P_WORKDIR = 1u << 9,   /* fresh working directory, removed at the end */
    SANDBOX_P_CLEANENV = 1u << 10, /* PATH, HOME, LANG only */
    SANDBOX_P_NONEWPRIVS = 1u << 11,
};

/* Names of the bits set in p, comma-separated ("rlimits, pgroup, pidns,
 * ..."), into buf; returns buf. */
const char *sandbox_protections_text(unsigned p, char *buf, size_t cap);

/* ---- the command -------------------------------------------------------------- */

typedef struct sandbox_cmd {
    int argc;
    char *argv[SANDBOX_MAX_ARGS + 1]; /* into text; argv[0] is the program as written */
    char path[4096];                  /* the program, absolute */
    char text[SANDBOX_CMD_MAX];       /* the arguments, NUL-separated */
} sandbox_cmd;

/* Split "PROGRAM ARGS..." on spaces and tabs (no quoting: an argument
 * cannot hold a space), resolve PROGRAM on the caller's PATH (or relative
 * to the current directory when it holds a '/'), and make absolute every
 * argument that is a relative path to an existing file or directory (the
 * program will run elsewhere). As root (unless lim disables SANDBOX_P_UID)
 * the program runs as lim->uid: PATH entries it could not run are skipped,
 * and a program or file argument it could not read is an error now rather
 * than a crash later. lim may be NULL (defaults). Returns 0, or ENG_EINVAL
 * with a reason: empty command, too many or too long arguments, program not
 * found, not executable, or not readable by the sandbox's user. */
int sandbox_cmd_parse(const char *cmdline, const sandbox_limits *lim, sandbox_cmd *out, char *err,
                      size_t errcap);

/* ---- life ---------------------------------------------------------------------- */

typedef struct sandbox sandbox;

/* Start the program. Returns the sandbox, or NULL with a reason in err
 * (and *code, when not NULL, set): ENG_EIO when the program could not be
 * started (execve failed: the reason names the step and errno — the
 * program's fault, e.g. not readable by the sandbox's user), ENG_ENOMEM /
 * ENG_EINTERNAL for our side (pipes, fork, temporary directory). */
sandbox *sandbox_start(const sandbox_cmd *cmd, const sandbox_limits *lim, int *code, char *err,
                       size_t errcap);

/* Kill everything the program started (namespace, cgroup, group), reap
 * it, remove its working directory and cgroup, close every descriptor.
 * Closes stdin first and gives the program grace_ms to exit by itself (0:
 * kill at once). NULL is ignored. */
void sandbox_destroy(sandbox *s, int grace_ms);

/* Kill the program now (SIGKILL to all of it) and reap it; its output so
 * far stays readable through sandbox_stderr_take(). Idempotent. */
void sandbox_kill(sandbox *s);

unsigned sandbox_protections(const sandbox *s);
pid_t sandbox_pid(const sandbox *s);
const char *sandbox_workdir(const sandbox *s);

/* ---- input and output ------------------------------------------------------------ */

/* Queue bytes for the program's stdin; they are written while the caller
 * waits in sandbox_read_line, sandbox_pump or sandbox_wait_exit. Returns 0,
 * ENG_EIO when stdin is closed (the program exited or closed it) or
 * ENG_ETOO_LARGE when the program left more than max_unread unread. */
int sandbox_send(sandbox *s, const char *buf, size_t len);

/* Close the program's stdin now (queued input is dropped): its cue that
 * nothing more is coming. */
void sandbox_close_stdin(sandbox *s);

/* Start a new counting window for the flood limits (a new turn). */
void sandbox_new_window(sandbox *s);

typedef enum sandbox_event {
    SANDBOX_LINE,      /* a line: *line (NUL-terminated, no '\n') until the next call */
    SANDBOX_TIMEOUT,   /* the deadline passed */
    SANDBOX_STOPPED,   /* the stop flag was raised */
    SANDBOX_EXITED,    /* the program ended (reaped) without a further line */
    SANDBOX_CLOSED,    /* stdout closed, the program still runs */
    SANDBOX_LONG_LINE, /* a line longer than max_line (its rest is skipped) */
    SANDBOX_FLOOD,     /* more than max_stdout / max_stderr in this window */
} sandbox_event;

/* Wait for the next line on stdout until deadline_ms (monotonic ms), while
 * writing queued input and collecting stderr. stop may be NULL. */
sandbox_event sandbox_read_line(sandbox *s, double deadline_ms, const atomic_bool *stop,
                                const char **line, size_t *len);

/* Do the pending I/O without waiting for a line, until until_ms or sooner
 * when there is nothing to write. Complete lines read meanwhile are
 * dropped and counted (sandbox_strays). Returns SANDBOX_TIMEOUT normally,
 * SANDBOX_EXITED / SANDBOX_FLOOD when that happened. */
sandbox_event sandbox_pump(sandbox *s, double until_ms);

/* Lines dropped by sandbox_pump since the last call (printed outside a
 * turn); the first one's start, sanitised, into buf. Resets the count. */
int sandbox_strays(sandbox *s, char *buf, size_t cap);

/* Wait until the program ends or deadline_ms, doing the pending I/O
 * (stdout is read and dropped). Returns true when it has ended (reaped). */
bool sandbox_wait_exit(sandbox *s, double deadline_ms);

/* The tail of stderr collected since the last call: at most cap-1 bytes
 * (the last ones) into buf, NUL-terminated; returns the bytes written.
 * *total (may be NULL) receives how many bytes arrived in all. */
size_t sandbox_stderr_take(sandbox *s, char *buf, size_t cap, uint64_t *total);

/* ---- what happened ---------------------------------------------------------------- */

typedef struct sandbox_status {
    bool running;      /* not ended yet */
    bool exited;       /* ended and reaped */
    bool signaled;     /* ended by a signal ... */
    int signal;        /* ... this one */
    int code;          /* exit status when !signaled */
    bool killed;       /* we killed it (deadline, flood, end) */
    bool start_failed; /* execve or a step before it failed (see start_error) */
    char start_error[160];
    double cpu_ms;      /* user + system CPU of the program's process so far */
    int64_t maxrss_kb;  /* its peak resident memory (when reaped) */
    int64_t vm_peak_kb; /* its peak address space, sampled while it ran */
    double wall_ms;     /* since it started */
} sandbox_status;

/* Check for an exit without waiting, then describe the program. */
void sandbox_get_status(sandbox *s, sandbox_status *out);

/* CPU time of the program's process (user + system, its threads; children
 * are counted once it has reaped them), ms: live while it runs. */
double sandbox_cpu_ms(sandbox *s);

/* Which protections a sandbox started now with lim would get: the same
 * probing, without a program (for reports and `tessera doctor`). */
unsigned sandbox_probe(const sandbox_limits *lim);

#endif
