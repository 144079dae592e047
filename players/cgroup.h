/*
 * cgroup.h — a control group of its own for each sandboxed program
 * (private to players/; sandbox.c is its only user).
 *
 * A program's cgroup gives it a CPU quota, a memory limit and a task
 * limit, counts the CPU time of all its processes and threads, freezes it
 * between its turns and kills all of it at the end. Five functions, each
 * served by the hierarchy that has it on this machine: cgroup v1 (a
 * hierarchy per controller: cpu, cpuacct, memory, pids, freezer) or v2 (one
 * hierarchy: cpu, memory and pids controllers; freezing, killing and CPU
 * accounting are part of every v2 cgroup), or a mix of both (a "hybrid"
 * machine binds each controller to one of them).
 *
 * Where the cgroups are made: below tessera's own cgroup in each
 * hierarchy (/proc/self/cgroup). As root that is always possible on a
 * writable mount; as another user only when that cgroup was delegated to it
 * (systemd's Delegate=yes, or a folder root made and gave it on v1:
 * docs/operations.md, "Security model"). On v2 a cgroup that holds
 * processes cannot hand controllers down; tessera then moves itself into a
 * leaf of its own (tessera-server-PID) first, as container runtimes do.
 *
 * Threads: cg_available() and cg_create() may be called from any thread;
 * a cgroup is used by one thread at a time.
 */
#ifndef TESSERA_PLAYERS_CGROUP_H
#define TESSERA_PLAYERS_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The functions, as bits. */
enum {
    CG_CPU = 1u << 0,     /* a CPU quota (cpu.cfs_quota_us / cpu.max) */
    CG_CPUACCT = 1u << 1, /* CPU time of all its tasks (cpuacct.usage / cpu.stat) */
    CG_MEMORY = 1u << 2,  /* a memory limit, its peak, OOM kills */
    CG_PIDS = 1u << 3,    /* a task limit (pids.max) */
    CG_FREEZER = 1u << 4, /* frozen between turns (freezer.state / cgroup.freeze) */
    CG_ALL = (1u << 5) - 1,
};

typedef struct cg_limits {
    int64_t cpu_pct;   /* quota, percent of one CPU */
    int64_t memory_mb; /* memory + swap */
    int64_t max_tasks; /* processes and threads */
} cg_limits;

typedef struct cgroup cgroup;

/* Which functions this process can give its programs (found once). When
 * some are missing, why receives (may be NULL) what is missing and how to
 * provide it, one sentence. */
unsigned cg_available(char *why, size_t cap);

/* Which hierarchy serves each function, for reports: "v1" / "v2" / "none"
 * per function into buf ("cpu v1, cpuacct v1, ..."); returns buf. */
const char *cg_describe(char *buf, size_t cap);

/* Make a cgroup with the functions `want` (those available among them),
 * under these limits. Returns NULL with a reason in err when none of them
 * could be made (or out of memory). */
cgroup *cg_create(unsigned want, const cg_limits *l, char *err, size_t cap);

/* The functions the cgroup has. */
unsigned cg_functions(const cgroup *c);

/* Put process pid into the cgroup (every hierarchy). 0 or -errno. Its
 * children inherit it. */
int cg_join(cgroup *c, pid_t pid);

/* CPU time of every task that ever ran in it, ms (-1 without CG_CPUACCT). */
double cg_cpu_ms(cgroup *c);

/* Peak memory use, KiB (0 unknown), and how many times the kernel killed
 * one of its tasks for the memory limit. */
int64_t cg_memory_peak_kb(cgroup *c);
int cg_oom_kills(cgroup *c);

/* Freeze or thaw all its tasks (no effect without CG_FREEZER). Freezing
 * is asynchronous: it is requested, not waited for. */
void cg_freeze(cgroup *c, bool frozen);

/* Is a thread of the cgroup running or ready to run (state R)? 1 yes, 0
 * all of them wait (for input, a timer ...), -1 cannot tell. For knowing
 * when a program has done with what it was sent: under load a program
 * that is not done may print nothing for a while, but it is runnable. */
int cg_busy(cgroup *c);

/* SIGKILL every task in it, until it is empty (thawed as needed). */
void cg_kill(cgroup *c);

/* Kill, remove the cgroup and free c. NULL is ignored. */
void cg_destroy(cgroup *c);

#endif
