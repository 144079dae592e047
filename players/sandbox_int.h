/*
 * sandbox_int.h — what sandbox.c, machine.c and sandbox_limits.c share, and
 * no other file: the protections that come together, the limits filled in
 * (sandbox_limits.c), what the machine gives (machine.c) and how a sandbox
 * is started (sandbox.c). machine.c calls down into sandbox.c, never back.
 */
#ifndef TESSERA_PLAYERS_SANDBOX_INT_H
#define TESSERA_PLAYERS_SANDBOX_INT_H

#include "sandbox.h"

/* The namespaces bubblewrap makes: they come together. */
#define P_JAIL                                                                                     \
    (SANDBOX_P_USERNS | SANDBOX_P_MOUNTNS | SANDBOX_P_PIDNS | SANDBOX_P_NETNS | SANDBOX_P_IPCNS)
#define P_CGROUP                                                                                   \
    (SANDBOX_P_CPU | SANDBOX_P_CPUACCT | SANDBOX_P_MEMORY | SANDBOX_P_PIDS | SANDBOX_P_FREEZER)
#define P_ALWAYS                                                                                   \
    (SANDBOX_P_RLIMITS | SANDBOX_P_PGROUP | SANDBOX_P_CLEANENV | SANDBOX_P_NONEWPRIVS)

/* l from in (NULL: the defaults), its zero fields given their defaults
 * (sandbox_limits.c). */
void sandbox__limits_fill(sandbox_limits *l, const sandbox_limits *in);

/* cgroup.h's CG_* functions as SANDBOX_P_* protections, and back. */
unsigned sandbox__cg_to_prot(unsigned fns);
unsigned sandbox__prot_to_cg(unsigned p);

/* SANDBOX_P_* this machine gives (found once per process, machine.c). */
unsigned sandbox__machine(void);
/* What a sandbox with limits l would use: what the machine gives, less
 * what l disables (the namespaces come together). */
unsigned sandbox__to_use(const sandbox_limits *l);

/* Start one sandbox with the protections `use`: bubblewrap runs itself
 * (--version) inside. 0 when it printed its version and exited 0, else
 * why, in said (sandbox.c). */
int sandbox__probe_jail(unsigned use, char *said, size_t cap);

/* Start cmd under l (filled) with the protections use: sandbox_start
 * (machine.c) once it decided the program may start (sandbox.c). */
sandbox *sandbox__start(const sandbox_cmd *cmd, const sandbox_limits *l, unsigned use, int *code,
                        char *err, size_t errcap);

#endif
