/*
 * sandbox_limits.h — a sandbox's limits and protections as values: what a
 * program may be given (sandbox_limits, zero fields meaning the defaults
 * of players/limits.h) and the protections it runs under (SANDBOX_P_*
 * bits, their names, what "fully isolated" means). No machine is asked
 * here: machine.c decides what this machine gives, sandbox.c starts a
 * program under it. Public through sandbox.h.
 */
#ifndef TESSERA_PLAYERS_SANDBOX_LIMITS_H
#define TESSERA_PLAYERS_SANDBOX_LIMITS_H

#include <stddef.h>
#include <stdint.h>

/* ---- limits -------------------------------------------------------------------------- */

/* What a sandbox may be given; sandbox_limits_default() fills the defaults
 * of players/limits.h. Zero in any field means its default, so a struct
 * zeroed and partly filled is complete. */
typedef struct sandbox_limits {
    int64_t cpu_s;      /* RLIMIT_CPU per process, seconds (SIGKILL one second after) */
    int64_t memory_mb;  /* the cgroup's memory (all processes, their /tmp files), and
                           RLIMIT_AS per process, MiB */
    int64_t file_mb;    /* RLIMIT_FSIZE, MiB */
    int64_t max_files;  /* RLIMIT_NOFILE */
    int64_t max_tasks;  /* processes + threads (pids cgroup / RLIMIT_NPROC) */
    int64_t cpu_pct;    /* CPU quota of the cgroup, percent of one CPU */
    int64_t tmp_mb;     /* size of each private tmpfs: HOME, /tmp, /var/tmp, /dev/shm */
    int64_t max_line;   /* bytes of one stdout line */
    int64_t max_stdout; /* stdout bytes per window (sandbox_new_window) before a flood */
    int64_t max_stderr; /* stderr bytes per window before a flood */
    int64_t max_unread; /* bytes queued for stdin that the program has not read (beyond the pipe) */
    int64_t as_mb;      /* RLIMIT_AS per process, MiB: 0 memory_mb; < 0 none where the cgroup
                           holds the memory (a JVM reserves far more address space than it
                           uses, and does not start under 1 GiB) */
    unsigned disable;   /* SANDBOX_P_* bits never to use (tests, diagnosis): an explicit
                           opt-out for this sandbox, as sandbox_setup.partial is for all */
} sandbox_limits;

void sandbox_limits_default(sandbox_limits *l);
/* Fields left at zero (or below) take their defaults. */
void sandbox_limits_normalize(sandbox_limits *l);

/* Protections, as bits (sandbox_protections). */
enum {
    SANDBOX_P_RLIMITS = 1u << 0,    /* CPU, AS, FSIZE, NOFILE, CORE per process */
    SANDBOX_P_PGROUP = 1u << 1,     /* own session and process group */
    SANDBOX_P_USERNS = 1u << 2,     /* own user namespace (bubblewrap) */
    SANDBOX_P_POOL_UID = 1u << 3,   /* root: a uid of its own from the pool */
    SANDBOX_P_MOUNTNS = 1u << 4,    /* own mount namespace: its files only, private tmpfs */
    SANDBOX_P_PIDNS = 1u << 5,      /* own PID namespace and procfs */
    SANDBOX_P_NETNS = 1u << 6,      /* own network namespace: no network */
    SANDBOX_P_IPCNS = 1u << 7,      /* own IPC (and UTS) namespace */
    SANDBOX_P_SECCOMP = 1u << 8,    /* the seccomp filter */
    SANDBOX_P_CPU = 1u << 9,        /* cgroup: CPU quota */
    SANDBOX_P_CPUACCT = 1u << 10,   /* cgroup: CPU time of all its processes */
    SANDBOX_P_MEMORY = 1u << 11,    /* cgroup: memory limit of all its processes */
    SANDBOX_P_PIDS = 1u << 12,      /* cgroup: task limit */
    SANDBOX_P_FREEZER = 1u << 13,   /* cgroup: frozen between turns */
    SANDBOX_P_NPROC = 1u << 14,     /* RLIMIT_NPROC (no pids cgroup) */
    SANDBOX_P_CLEANENV = 1u << 15,  /* PATH, HOME, LANG only */
    SANDBOX_P_NONEWPRIVS = 1u << 16,
};

/* The protections "fully isolated" means, for this process (root adds
 * SANDBOX_P_POOL_UID). */
unsigned sandbox_full(void);

/* Names of the bits set in p, comma-separated ("rlimits, process group,
 * ..."), into buf; returns buf. */
const char *sandbox_protections_text(unsigned p, char *buf, size_t cap);

#endif
