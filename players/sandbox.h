/*
 * sandbox.h — run an untrusted program (Linux): its stdin, stdout and
 * stderr through pipes, fully isolated from the machine and from every
 * other program, under limits, and gone without a trace at the end.
 *
 * What a sandboxed program gets (docs/stdio.md, "The sandbox"; who needs
 * what from the machine: docs/operations.md, "Security model"):
 *   - bubblewrap (Debian's `bwrap`) puts it in namespaces of its own: a
 *     user namespace (as root, first a uid of its own from a pool, held by
 *     no other program while it runs), a mount namespace (the system's
 *     folders read-only, its own folder read-only at /bot, a fresh empty
 *     HOME and private /tmp, /var/tmp, /dev/shm of limited size — all in
 *     memory, gone with it — and nothing else: no data of the server, no
 *     other program's files), a PID namespace with a procfs of its own (it
 *     sees its own processes only), a network namespace (a loopback of its
 *     own, nothing else), IPC and UTS namespaces; no_new_privs, no
 *     capabilities, no further user namespaces;
 *   - a seccomp filter (libseccomp): no ptrace, process_vm_readv/writev,
 *     kcmp, pidfd_getfd, keyrings, BPF, perf, userfaultfd, io_uring, mounts,
 *     namespaces, module or kexec calls;
 *   - a cgroup of its own (cgroup.h): a CPU quota, a memory limit and a
 *     task limit over all its processes; its CPU time counted over all of
 *     them; frozen on request (between its turns);
 *   - rlimits per process (CPU seconds, address space, file size, open
 *     files, no core), its own session, a clean environment (PATH, HOME,
 *     LANG), no descriptors but 0, 1, 2.
 *
 * Failing closed: every start checks what the machine gives (once per
 * process: sandbox_check). When a part of the isolation is missing, no
 * program starts — sandbox_start() fails with a message naming what is
 * missing and how to provide it — unless the operator opted out
 * (sandbox_setup.partial, the server's `[sandbox] isolation = partial`,
 * or TESSERA_SANDBOX=partial in the environment); programs then run with
 * what the machine has (at worst: rlimits, the uid change as root, the
 * seccomp filter, no namespaces), and sandbox_isolation() says so.
 *
 * Reading: non-blocking pipes and poll() against an absolute deadline.
 * stdout is read as lines of at most max_line bytes; stderr is collected
 * into a ring that keeps its tail; both are counted so that a flood is
 * noticed and stopped. Writing to stdin is queued and done while waiting,
 * so a program that does not read never blocks the caller.
 *
 * Ending: the whole program — cgroup, PID namespace, process group — is
 * killed with SIGKILL and reaped; no zombie and no descriptor is left
 * (every descriptor is O_CLOEXEC). The caller's signals are not touched:
 * SIGPIPE from a closed stdin is blocked around each write.
 *
 * If tessera dies, even by SIGKILL, its programs die too: each is bound to
 * the thread that started it (PR_SET_PDEATHSIG, and bwrap's
 * --die-with-parent inside), so that thread must live as long as the
 * sandbox — start programs from threads that outlive them (a worker pool's
 * threads, the loop thread), never from a short-lived one.
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
#include "players/sandbox_limits.h" /* the limits and protections, as values */

/* ---- the machine: what the operator decides, once per process ---------------------- */

typedef struct sandbox_setup {
    bool partial;       /* opt-out: run programs with the isolation the machine has */
    uint32_t uid_base;  /* as root: the first uid of the pool (0: PLAYER_UID_POOL_BASE) */
    uint32_t uid_count; /* as root: how many uids (0: PLAYER_UID_POOL_SIZE) */
    const char *const *hide; /* paths no program may see (the server's journal, its folder,
                              * the token and config files), NULL-terminated; borrowed: they
                              * must live as long as the process. NULL: none */
} sandbox_setup;

/* Set the policy (before the first program starts; later calls replace
 * it). Without a call: full isolation required, the default pool, nothing
 * hidden beyond what the sandbox never shows — unless TESSERA_SANDBOX=
 * partial is in the environment. s is copied (not the hide list). */
void sandbox_configure(const sandbox_setup *s);

/* "full" when every program runs fully isolated, "partial" when the
 * operator opted out and the machine lacks a part (programs then run with
 * less), "unavailable" when programs are refused. For a server to tell
 * everyone. */
const char *sandbox_isolation(void);

/* Can programs be started here? 0 when they run fully isolated, or when
 * the operator opted out; else ENG_EINTERNAL with, in why, what is missing
 * and how to provide it. The first call probes the machine (starts one
 * sandbox, ~10 ms); later calls answer from that. why may be NULL. */
int sandbox_check(char *why, size_t cap);

/* ---- the command -------------------------------------------------------------------- */

/* A command as the caller wrote it, resolved on this machine, and how the
 * program will see its files. The program's folder is the folder of its
 * first argument that names a file (or the folder named), else the folder
 * of the program itself when that is not a system program: it is shown
 * read-only at SANDBOX_BOT_DIR, and the arguments inside it are rewritten
 * so. A program outside the system's folders that is not in its folder (an
 * interpreter of a virtual environment, say) is shown read-only at its own
 * path with its installation (`prefix`). The folders of the caller's
 * PYTHONPATH (a library such as the kit, kept outside the program's folder)
 * are shown read-only at their own paths, and PYTHONPATH names them. Nothing
 * else of the machine is shown but the system's folders. */
typedef struct sandbox_cmd {
    int argc;
    char *argv[SANDBOX_MAX_ARGS + 1]; /* into text: absolute paths on this machine */
    char path[4096];                  /* the program as found on PATH: absolute, with its
                                       * last link not followed (a venv's python3) */
    char real[4096];                  /* the file that runs (every link followed) */
    char folder[4096];                /* the program's folder ("" none) */
    char prefix[4096];                /* an installation shown at its own path ("" none) */
    char pypath[4096];                /* the caller's PYTHONPATH: its folders resolved,
                                       * ':'-separated, each shown read-only ("" none) */
    char text[SANDBOX_CMD_MAX];       /* the arguments, NUL-separated */
} sandbox_cmd;

/* Split "PROGRAM ARGS..." on spaces and tabs (no quoting: an argument
 * cannot hold a space), resolve PROGRAM on the caller's PATH (or relative
 * to the current directory when it holds a '/'), make absolute every
 * argument that is a relative path to an existing file or directory, and
 * find the program's folder (above). As root the program runs as a uid of
 * the pool: a program or file it could not read is an error now rather
 * than a crash later. lim may be NULL (defaults). Returns 0, or ENG_EINVAL
 * with a reason: empty command, too many or too long arguments, program
 * not found, not executable, not readable by the sandbox's user, a file
 * argument outside the program's folder, a folder that is "/", a
 * PYTHONPATH folder that is "/", hidden, unreadable, or one too many. */
int sandbox_cmd_parse(const char *cmdline, const sandbox_limits *lim, sandbox_cmd *out, char *err,
                      size_t errcap);

/* One line for the program's log: which file runs, as what
 * ("/home/me/venv/bin/python3 (/usr/bin/python3.11) /bot/mybot.py"). */
const char *sandbox_cmd_describe(const sandbox_cmd *cmd, char *buf, size_t cap);

/* ---- life ---------------------------------------------------------------------- */

typedef struct sandbox sandbox;

/* Start the program. Returns the sandbox, or NULL with a reason in err
 * (and *code, when not NULL, set): ENG_EIO when the program could not be
 * started (execve failed: the reason names the step and errno — the
 * program's fault), ENG_EINTERNAL when the machine cannot isolate it (the
 * reason says what is missing, sandbox_check) or for our side (pipes,
 * fork, cgroup), ENG_ENOMEM. The program runs at once; sandbox_pause()
 * freezes it. */
sandbox *sandbox_start(const sandbox_cmd *cmd, const sandbox_limits *lim, int *code, char *err,
                       size_t errcap);

/* Kill everything the program started, reap it, remove its cgroup, close
 * every descriptor; its namespaces and tmpfs go with it. Closes stdin
 * first and gives the program grace_ms to exit by itself (0: kill at
 * once), thawed. NULL is ignored. */
void sandbox_destroy(sandbox *s, int grace_ms);

/* Kill the program now (SIGKILL to all of it) and reap it; its output so
 * far stays readable through sandbox_stderr_take(). Idempotent. */
void sandbox_kill(sandbox *s);

/* Freeze every process of the program (between its turns: it uses no CPU
 * and cannot think on another's time), or let it run again. No effect
 * without SANDBOX_P_FREEZER. */
void sandbox_pause(sandbox *s);
void sandbox_resume(sandbox *s);

unsigned sandbox_protections(const sandbox *s);
pid_t sandbox_pid(const sandbox *s);
/* Its working directory and HOME, as the program sees it. */
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

/* sandbox_read_line ends with SANDBOX_CPU_LIMIT once the program's CPU
 * time (sandbox_cpu_ms) reaches cpu_ms; 0: no such limit. */
void sandbox_set_cpu_limit(sandbox *s, double cpu_ms);

typedef enum sandbox_event {
    SANDBOX_LINE,      /* a line: *line (NUL-terminated, no '\n') until the next call */
    SANDBOX_TIMEOUT,   /* the deadline passed */
    SANDBOX_STOPPED,   /* the stop flag was raised */
    SANDBOX_EXITED,    /* the program ended (reaped) without a further line */
    SANDBOX_CLOSED,    /* stdout closed, the program still runs */
    SANDBOX_LONG_LINE, /* a line longer than max_line (its rest is skipped) */
    SANDBOX_FLOOD,     /* more than max_stdout / max_stderr in this window */
    SANDBOX_CPU_LIMIT, /* its CPU time reached the limit of sandbox_set_cpu_limit */
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

/* Let a program that was paused catch up before its turn: resumed, it
 * reads what was written to it meanwhile (start, updates, game_over); we
 * wait until it has read all of it, printed nothing and had no thread
 * running or ready to run (with a cgroup: cg_busy — on a loaded machine a
 * program that is not done may wait for a CPU) for SANDBOX_SETTLE_MS, or
 * until until_ms. Lines it prints meanwhile answer
 * nothing yet: dropped and counted as sandbox_pump's (sandbox_strays).
 * Returns SANDBOX_TIMEOUT normally, SANDBOX_EXITED / SANDBOX_FLOOD. */
sandbox_event sandbox_settle(sandbox *s, double until_ms);

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

/* A line of ours in the program's stderr log (SANDBOX_NOTE_PREFIX, text, a
 * newline): it comes out with the stderr tail (and its bytes in the
 * total), before what the program writes next; the flood limits do not
 * count it. */
#define SANDBOX_NOTE_PREFIX "[tessera] "
void sandbox_note(sandbox *s, const char *text);

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
    double cpu_ms;       /* CPU time of all its processes so far */
    int64_t maxrss_kb;   /* peak resident memory of its largest process (when reaped) */
    int64_t mem_peak_kb; /* peak memory of all its processes (the cgroup's; else its
                            largest process's address space, sampled) */
    int oom_kills;       /* processes the kernel killed for the memory limit */
    double wall_ms;      /* since it started */
} sandbox_status;

/* Check for an exit without waiting, then describe the program. */
void sandbox_get_status(sandbox *s, sandbox_status *out);

/* CPU time of the program, ms: of all its processes and threads, ended
 * ones included (the cgroup's), live. Without a cgroup, the sum over its
 * live processes and those they reaped. */
double sandbox_cpu_ms(sandbox *s);

/* Which protections a sandbox started now with lim would get: the same
 * probing, without a program (for reports and `tessera doctor`). */
unsigned sandbox_probe(const sandbox_limits *lim);

#endif
