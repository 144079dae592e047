/*
 * machine.c — what the machine gives untrusted programs, and whether a
 * program may start: what full isolation needs against what this machine
 * has, found once per process
 * (machine_probe: the cgroup functions, libseccomp's filter, the uid pool
 * as root, and whether bubblewrap can build its sandbox here, by starting
 * one through sandbox.c's sandbox__probe_jail). What is missing is said in
 * one message (sandbox_check), and a program is refused unless the
 * operator opted out (sandbox_isolation: full, partial or unavailable);
 * sandbox_start is that decision, made before sandbox.c starts the program.
 *
 * Split from sandbox.c (issue 31): this file decides, sandbox.c starts,
 * talks to and ends a program, sandbox_limits.c holds the values both use;
 * the calls go one way, from here down.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cgroup.h"
#include "engine/eng.h"
#include "engine/errors.h"
#include "jail.h"
#include "sandbox.h"
#include "sandbox_int.h"

/* ---- what the machine gives ---------------------------------------------------------- */

static pthread_once_t machine_once = PTHREAD_ONCE_INIT;
static unsigned machine_avail;  /* SANDBOX_P_* this machine gives */
static char machine_why[1024];    /* what is missing and how to provide it, in short */
static char machine_detail[2048]; /* the details: folders, bubblewrap's own words */

/* One missing part: what it is and how to provide it (short, for every
 * refusal), and the details (for the logs and `tessera doctor`). */
static void why_add(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void why_add(const char *what, const char *fmt, ...)
{
    size_t o = strlen(machine_why);
    snprintf(machine_why + o, sizeof machine_why - o, "%s%s", o ? "; " : "", what);
    o = strlen(machine_detail);
    if (o && o + 2 < sizeof machine_detail) {
        strcpy(machine_detail + o, "; ");
        o += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(machine_detail + o, sizeof machine_detail - o, fmt, ap);
    va_end(ap);
}

/* The first line bubblewrap printed ("bwrap: ..."), with what it means. */
static void why_bwrap(const char *said)
{
    char line[300];
    const char *b = strstr(said, "bwrap:");
    snprintf(line, sizeof line, "%.299s", b ? b : said);
    line[strcspn(line, "\n")] = 0;
    if (!line[0])
        snprintf(line, sizeof line, "it failed without a word");
    if (strstr(line, "proc"))
        why_add("no fresh /proc can be mounted (in a container: podman --security-opt "
                "unmask=/proc/*, docker --security-opt systempaths=unconfined)",
                "bubblewrap: %s", line);
    else if (strstr(line, "namespace") || strstr(line, "uid map") || strstr(line, "uid_map") ||
             strstr(line, "setting up uid"))
        why_add("user namespaces are refused (sysctl user.max_user_namespaces=15000, and "
                "kernel.unprivileged_userns_clone=1 where it exists; in a container: "
                "docs/operations.md)",
                "bubblewrap: %s", line);
    else
        why_add("bubblewrap cannot make the sandbox here", "bubblewrap: %s", line);
}

static void machine_probe(void)
{
    unsigned avail = P_ALWAYS | SANDBOX_P_NPROC;
    machine_why[0] = machine_detail[0] = 0;
    char e[1024];
    if (jail_seccomp(e, sizeof e))
        avail |= SANDBOX_P_SECCOMP;
    else
        why_add("no seccomp filter (Debian: libseccomp2)", "%s", e);
    unsigned fns = cg_available(e, sizeof e);
    avail |= sandbox__cg_to_prot(fns);
    if (fns != CG_ALL)
        why_add("no cgroup it may write: run tessera as root, or in a cgroup delegated to it "
                "(systemd Delegate=yes; scripts/delegate-cgroup.sh)",
                "%s", e);
    if (geteuid() == 0) {
        uid_t uid;
        int fd;
        if (jail_uid_take(&uid, &fd, e, sizeof e) == 0) {
            jail_uid_give(uid, fd);
            avail |= SANDBOX_P_POOL_UID;
        } else {
            why_add("no uid of its own for each program (as root tessera needs a writable /run)",
                    "%s", e);
        }
    }
    if (!jail_bwrap()) {
        why_add("bubblewrap is not installed (Debian: apt-get install bubblewrap)",
                "no bwrap in /usr/bin, on PATH or at $TESSERA_BWRAP");
    } else if (!(avail & SANDBOX_P_SECCOMP)) {
        why_add("bubblewrap is not used without the seccomp filter", "see above");
    } else {
        int rc = sandbox__probe_jail(avail | P_JAIL, e, sizeof e);
        if (rc && (avail & P_CGROUP)) {
            /* was it the cgroup? then without it, to know about bubblewrap */
            char e2[1024];
            if (sandbox__probe_jail((avail & ~P_CGROUP) | P_JAIL, e2, sizeof e2) == 0) {
                why_add("its cgroup cannot hold a program", "%s", e);
                avail &= ~P_CGROUP;
                rc = 0;
            }
        }
        if (rc == 0)
            avail |= P_JAIL;
        else
            why_bwrap(e);
    }
    machine_avail = avail;
}

unsigned sandbox__machine(void)
{
    pthread_once(&machine_once, machine_probe);
    return machine_avail;
}

int sandbox_check(char *why, size_t cap)
{
    unsigned have = sandbox__machine();
    sandbox_setup cfg;
    jail_setup(&cfg);
    if ((have & sandbox_full()) == sandbox_full() || cfg.partial) {
        if (why && cap)
            snprintf(why, cap, "%s%s%s", machine_why, machine_why[0] ? " (details: " : "",
                     machine_detail[0] ? machine_detail : "");
        if (why && cap && machine_why[0] && strlen(why) + 1 < cap)
            strcat(why, ")");
        return 0;
    }
    /* what and how first: a refusal's message may be cut short */
    return eng_seterr(why, cap, ENG_EINTERNAL,
                  "untrusted programs are refused here: %s; or opt out of full isolation with "
                  "[sandbox] isolation = partial (TESSERA_SANDBOX=partial for the command line) "
                  "(details: %s)",
                  machine_why, machine_detail);
}

const char *sandbox_isolation(void)
{
    unsigned have = sandbox__machine();
    sandbox_setup cfg;
    jail_setup(&cfg);
    if ((have & sandbox_full()) == sandbox_full())
        return "full";
    return cfg.partial ? "partial" : "unavailable";
}

/* What a sandbox with limits l would use: what the machine gives, less
 * what l disables (the namespaces come together). */
unsigned sandbox__to_use(const sandbox_limits *l)
{
    unsigned use = sandbox__machine() & ~l->disable;
    if ((use & P_JAIL) != P_JAIL)
        use &= ~P_JAIL;
    return use;
}

unsigned sandbox_probe(const sandbox_limits *lim)
{
    sandbox_limits l;
    sandbox__limits_fill(&l, lim);
    unsigned use = sandbox__to_use(&l);
    unsigned p = use & (P_ALWAYS | P_JAIL | P_CGROUP | SANDBOX_P_SECCOMP | SANDBOX_P_POOL_UID);
    if (!(use & SANDBOX_P_PIDS) && !(l.disable & SANDBOX_P_NPROC))
        p |= SANDBOX_P_NPROC;
    return p;
}

/* Fail closed: a program starts only when the machine gives what full
 * isolation needs, less what its limits explicitly do without — or when
 * the operator opted out — and then with what the machine gives. */
sandbox *sandbox_start(const sandbox_cmd *cmd, const sandbox_limits *lim, int *code, char *err,
                       size_t errcap)
{
    int dummy;
    if (!code)
        code = &dummy;
    *code = 0;
    if (!cmd || cmd->argc < 1) {
        *code = eng_seterr(err, errcap, ENG_EINVAL, "no command");
        return NULL;
    }
    sandbox_limits l;
    sandbox__limits_fill(&l, lim);
    sandbox_setup cfg;
    jail_setup(&cfg);
    unsigned missing = sandbox_full() & ~l.disable & ~sandbox__machine();
    if (missing && !cfg.partial) {
        *code = sandbox_check(err, errcap);
        return NULL;
    }
    return sandbox__start(cmd, &l, sandbox__to_use(&l), code, err, errcap);
}
