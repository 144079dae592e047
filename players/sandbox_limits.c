/*
 * sandbox_limits.c — a sandbox's limits and protections as values
 * (sandbox_limits.h): the defaults of sandbox_limits, the names of the
 * protections, what full isolation means for this process, and the cgroup
 * functions as protections. Pure: no machine is asked here, so sandbox.c
 * (which starts programs) and machine.c (which decides what this machine
 * gives) both stand on it, and neither on the other's way back.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cgroup.h"
#include "sandbox_int.h"
#include "sandbox_limits.h"

void sandbox_limits_default(sandbox_limits *l)
{
    memset(l, 0, sizeof *l);
    l->cpu_s = PLAYER_DEFAULT_CPU_S;
    l->memory_mb = PLAYER_DEFAULT_MEMORY_MB;
    l->file_mb = PLAYER_DEFAULT_FILE_MB;
    l->max_files = PLAYER_DEFAULT_FILES;
    l->max_tasks = PLAYER_DEFAULT_TASKS;
    l->cpu_pct = PLAYER_DEFAULT_CPU_PCT;
    l->tmp_mb = PLAYER_DEFAULT_TMP_MB;
    l->max_line = PLAYER_DEFAULT_LINE;
    l->max_stdout = PLAYER_DEFAULT_STDOUT;
    l->max_stderr = PLAYER_DEFAULT_STDERR;
    l->max_unread = PLAYER_DEFAULT_UNREAD;
}

void sandbox_limits_normalize(sandbox_limits *l)
{
    sandbox_limits d;
    sandbox_limits_default(&d);
#define FILL(f)                                                                                    \
    if (l->f <= 0)                                                                                 \
    l->f = d.f
    FILL(cpu_s);
    FILL(memory_mb);
    FILL(file_mb);
    FILL(max_files);
    FILL(max_tasks);
    FILL(cpu_pct);
    FILL(tmp_mb);
    FILL(max_line);
    FILL(max_stdout);
    FILL(max_stderr);
    FILL(max_unread);
#undef FILL
    if (l->max_files < 8)
        l->max_files = 8; /* 0, 1, 2, bubblewrap's own, the exec-status pipe */
}

/* Zero fields take their defaults. */
void sandbox__limits_fill(sandbox_limits *l, const sandbox_limits *in)
{
    if (in)
        *l = *in;
    else
        sandbox_limits_default(l);
    sandbox_limits_normalize(l);
}

static const char *const prot_names[] = {
    "rlimits",         "process group",        "user namespace",    "uid of its own",
    "mount namespace", "pid namespace",        "network namespace", "ipc namespace",
    "seccomp",         "cgroup cpu quota",     "cgroup cpu time",   "cgroup memory",
    "cgroup pids",     "cgroup freezer",       "RLIMIT_NPROC",      "clean environment",
    "no_new_privs",
};

const char *sandbox_protections_text(unsigned p, char *buf, size_t cap)
{
    size_t o = 0;
    if (cap)
        buf[0] = 0;
    for (unsigned i = 0; i < sizeof prot_names / sizeof prot_names[0]; i++)
        if (p & (1u << i)) {
            int n = snprintf(buf + o, cap > o ? cap - o : 0, "%s%s", o ? ", " : "", prot_names[i]);
            if (n > 0)
                o += (size_t)n;
            if (o >= cap) {
                o = cap ? cap - 1 : 0;
                break;
            }
        }
    return buf;
}

unsigned sandbox_full(void)
{
    return P_ALWAYS | P_JAIL | P_CGROUP | SANDBOX_P_SECCOMP |
           (geteuid() == 0 ? SANDBOX_P_POOL_UID : 0);
}

unsigned sandbox__cg_to_prot(unsigned fns)
{
    return (fns & CG_CPU ? SANDBOX_P_CPU : 0) | (fns & CG_CPUACCT ? SANDBOX_P_CPUACCT : 0) |
           (fns & CG_MEMORY ? SANDBOX_P_MEMORY : 0) | (fns & CG_PIDS ? SANDBOX_P_PIDS : 0) |
           (fns & CG_FREEZER ? SANDBOX_P_FREEZER : 0);
}

unsigned sandbox__prot_to_cg(unsigned p)
{
    return (p & SANDBOX_P_CPU ? CG_CPU : 0) | (p & SANDBOX_P_CPUACCT ? CG_CPUACCT : 0) |
           (p & SANDBOX_P_MEMORY ? CG_MEMORY : 0) | (p & SANDBOX_P_PIDS ? CG_PIDS : 0) |
           (p & SANDBOX_P_FREEZER ? CG_FREEZER : 0);
}
