/*
 * cgroup.c — a control group of its own per program (contract in cgroup.h).
 *
 * Finding the hierarchies, once per process: /proc/self/cgroup says which
 * cgroup we are in, in each hierarchy; /proc/self/mountinfo where each is
 * mounted (and which subtree a mount shows, in a container). The base of a
 * hierarchy is our own cgroup in it: programs' cgroups are made below it,
 * so that whatever limits tessera itself has (a container's, a systemd
 * unit's) bind its programs too.
 *
 * Each function is served by the v1 hierarchy of its controller when the
 * machine has one (the controller is bound there and nowhere else), else by
 * v2. Freezing and CPU accounting need no controller on v2; the test knob
 * TESSERA_CGROUP_V2_CORE=1 takes them from v2 even where v1 has them, so
 * that the v2 code runs on a hybrid machine too.
 *
 * Killing: v2's cgroup.kill where the kernel has it (5.14); else the tasks
 * of cgroup.procs get SIGKILL round after round, the cgroup frozen meanwhile
 * when it can be (nothing can fork in between), until it is empty.
 */
#define _GNU_SOURCE
#include "cgroup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NFUNCS 5
#define MAXH   8 /* hierarchies we keep */

static const char *const fn_ctrl[NFUNCS] = {"cpu", "cpuacct", "memory", "pids", "freezer"};
static const char *const fn_what[NFUNCS] = {"a CPU quota", "CPU accounting", "a memory limit",
                                            "a task limit", "freezing"};

typedef struct hier {
    bool v2;
    char dir[PATH_MAX]; /* the base: our own cgroup in this hierarchy */
    bool writable;
} hier;

static hier H[MAXH];
static int nh;
static int fn_h[NFUNCS]; /* hierarchy of each function, -1: none */
static char missing_why[1024];
static pthread_once_t once = PTHREAD_ONCE_INIT;
static atomic_uint seq;

struct cgroup {
    unsigned fns;
    int nd;
    char dir[MAXH][PATH_MAX]; /* one per hierarchy used */
    bool dir_v2[MAXH];
    int fd_cpu;    /* cpuacct.usage or cpu.stat, -1 */
    int fd_freeze; /* freezer.state or cgroup.freeze, -1 */
    bool cpu_v2, freeze_v2;
    char mem_dir[PATH_MAX]; /* "" without CG_MEMORY */
    bool mem_v2;
    bool frozen;
};

/* ---- small helpers ----------------------------------------------------------------- */

static int write_text(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    size_t n = strlen(text);
    ssize_t w = write(fd, text, n);
    int e = errno;
    close(fd);
    return w == (ssize_t)n ? 0 : -(w < 0 ? e : EIO);
}

static int writef(const char *dir, const char *file, const char *fmt, long long v)
{
    char path[PATH_MAX + 64], text[64];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    snprintf(text, sizeof text, fmt, v);
    return write_text(path, text);
}

/* Read a small file into buf (NUL-terminated); bytes read or -1. */
static ssize_t read_text(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, cap - 1);
    close(fd);
    buf[n > 0 ? n : 0] = 0;
    return n;
}

/* The number after "key " in a "key value" per line file, or -1. */
static long long keyed(const char *text, const char *key)
{
    size_t kl = strlen(key);
    for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
        if (strncmp(p, key, kl) == 0 && p[kl] == ' ')
            return strtoll(p + kl + 1, NULL, 10);
    return -1;
}

static bool in_list(const char *list, const char *word)
{
    size_t wl = strlen(word);
    for (const char *p = list; *p;) {
        size_t n = strcspn(p, ", \n");
        if (n == wl && strncmp(p, word, wl) == 0)
            return true;
        p += n;
        p += strspn(p, ", \n");
    }
    return false;
}

static void sleep_us(long us)
{
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    nanosleep(&ts, NULL);
}

/* ---- finding the hierarchies ------------------------------------------------------------- */

/* Our cgroup path in the v1 hierarchy with controller ctrl (or v2 when ctrl
 * is NULL), from /proc/self/cgroup; false when there is none. */
static bool own_path(const char *ctrl, char *out, size_t cap)
{
    FILE *f = fopen("/proc/self/cgroup", "re");
    if (!f)
        return false;
    char line[PATH_MAX + 128];
    bool found = false;
    while (!found && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2)
            continue;
        *c2 = 0;
        const char *ctrls = c1 + 1, *path = c2 + 1;
        if (ctrl ? in_list(ctrls, ctrl) : (strcmp(line, "0") == 0 && ctrls[0] == 0)) {
            snprintf(out, cap, "%s", path);
            found = true;
        }
    }
    fclose(f);
    return found;
}

/* Where the hierarchy is mounted (the first mount of it), with the subtree
 * the mount shows. v1: the cgroup mount whose options hold ctrl; v2: the
 * cgroup2 mount. */
static bool mount_of(const char *ctrl, char *mnt, char *root)
{
    FILE *f = fopen("/proc/self/mountinfo", "re");
    if (!f)
        return false;
    char buf[8192];
    bool found = false;
    while (!found && fgets(buf, sizeof buf, f)) {
        char r[PATH_MAX], m[PATH_MAX];
        if (sscanf(buf, "%*s %*s %*s %4095s %4095s", r, m) != 2)
            continue;
        char *dash = strstr(buf, " - ");
        if (!dash)
            continue;
        char fstype[64], source[256], opts[2048] = "";
        if (sscanf(dash + 3, "%63s %255s %2047s", fstype, source, opts) < 2)
            continue;
        if (ctrl ? (strcmp(fstype, "cgroup") == 0 && in_list(opts, ctrl))
                 : strcmp(fstype, "cgroup2") == 0) {
            strcpy(mnt, m);
            strcpy(root, r);
            found = true;
        }
    }
    fclose(f);
    return found;
}

/* The programs' cgroups below base whose name starts with prefix
 * ("tessera-PID-"; NULL: those of any process that is gone), each
 * handed to fn. Raw system calls and no allocation: the guardian (below)
 * runs this in a child forked from a process with threads. */
static void each_child(const char *base, const char *prefix, void (*fn)(const char *dir))
{
    int fd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return;
    char buf[8192];
    long n;
    while ((n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
        for (long off = 0; off < n;) {
            struct dirent64 *e = (struct dirent64 *)(buf + off);
            off += e->d_reclen;
            const char *name = e->d_name;
            if (strncmp(name, "tessera-", 8) != 0)
                continue;
            if (prefix) {
                if (strncmp(name, prefix, strlen(prefix)) != 0)
                    continue;
            } else {
                int pid = atoi(name + 8);
                if (pid <= 0 || pid == (int)getpid() || kill(pid, 0) == 0 || errno != ESRCH)
                    continue;
            }
            char dir[PATH_MAX];
            size_t bl = strlen(base), nl = strlen(name);
            if (bl + nl + 2 > sizeof dir)
                continue;
            memcpy(dir, base, bl);
            dir[bl] = '/';
            memcpy(dir + bl + 1, name, nl + 1);
            fn(dir);
        }
    }
    close(fd);
}

static void raw_write(const char *dir, const char *file, const char *text)
{
    char path[PATH_MAX + 32];
    size_t dl = strlen(dir), fl = strlen(file);
    if (dl + fl + 2 > sizeof path)
        return;
    memcpy(path, dir, dl);
    path[dl] = '/';
    memcpy(path + dl + 1, file, fl + 1);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t w = write(fd, text, strlen(text));
        (void)w;
        close(fd);
    }
}

static void thaw_dir(const char *dir)
{
    raw_write(dir, "freezer.state", "THAWED");
    raw_write(dir, "cgroup.freeze", "0");
}

int cg_busy(cgroup *c)
{
    if (!c->nd)
        return -1;
    char path[PATH_MAX + 32], buf[8192];
    snprintf(path, sizeof path, "%.4000s/%s", c->dir[0], c->dir_v2[0] ? "cgroup.threads" : "tasks");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int busy = 0;
    ssize_t len;
    long tid = 0;
    bool digits = false;
    while (!busy && (len = read(fd, buf, sizeof buf)) > 0)
        for (ssize_t i = 0; i < len && !busy; i++) {
            if (buf[i] >= '0' && buf[i] <= '9') {
                tid = tid * 10 + (buf[i] - '0');
                digits = true;
                continue;
            }
            if (!digits)
                continue;
            /* the state is the field after the name's closing parenthesis */
            char stat[64], text[512];
            snprintf(stat, sizeof stat, "/proc/%ld/stat", tid);
            int sfd = open(stat, O_RDONLY | O_CLOEXEC);
            ssize_t n = sfd >= 0 ? read(sfd, text, sizeof text - 1) : -1;
            if (sfd >= 0)
                close(sfd);
            if (n > 0) {
                text[n] = 0;
                const char *rp = strrchr(text, ')');
                busy = rp && rp[1] == ' ' && rp[2] == 'R';
            }
            tid = 0;
            digits = false;
        }
    close(fd);
    return busy;
}

/* SIGKILL the tasks in dir's cgroup.procs; how many there were. */
static int kill_listed(const char *dir)
{
    char path[PATH_MAX + 32], buf[8192];
    size_t dl = strlen(dir);
    if (dl + 14 > sizeof path)
        return 0;
    memcpy(path, dir, dl);
    memcpy(path + dl, "/cgroup.procs", 14);
    int fd = open(path, O_RDONLY | O_CLOEXEC), n = 0;
    if (fd < 0)
        return 0;
    ssize_t len;
    long pid = 0;
    bool digits = false;
    while ((len = read(fd, buf, sizeof buf)) > 0)
        for (ssize_t i = 0; i < len; i++) {
            if (buf[i] >= '0' && buf[i] <= '9') {
                pid = pid * 10 + (buf[i] - '0');
                digits = true;
            } else if (digits) {
                kill((pid_t)pid, SIGKILL);
                n++;
                pid = 0;
                digits = false;
            }
        }
    close(fd);
    return n;
}

static void kill_dir(const char *dir)
{
    kill_listed(dir);
}

static void rm_dir(const char *dir)
{
    for (int k = 0; k < 200 && rmdir(dir) != 0 && errno == EBUSY; k++) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
}

/* Thaw, kill and remove the cgroups named by prefix (see each_child) in
 * every hierarchy: thawed everywhere first, because a task frozen by the
 * v1 freezer does not die of SIGKILL until it is thawed. */
static void sweep(const char *prefix)
{
    for (int i = 0; i < nh; i++)
        if (H[i].writable)
            each_child(H[i].dir, prefix, thaw_dir);
    for (int i = 0; i < nh; i++)
        if (H[i].writable)
            each_child(H[i].dir, prefix, kill_dir);
    for (int i = 0; i < nh; i++)
        if (H[i].writable)
            each_child(H[i].dir, prefix, rm_dir);
}

/* The base of a hierarchy (v1 of ctrl, or v2 when ctrl is NULL) into H;
 * its index, or -1 when the machine has no such hierarchy. */
static int add_hier(const char *ctrl)
{
    char path[PATH_MAX], mnt[PATH_MAX], root[PATH_MAX];
    if (!own_path(ctrl, path, sizeof path) || !mount_of(ctrl, mnt, root))
        return -1;
    const char *rel = path;
    size_t rl = strlen(root);
    if (strcmp(root, "/") != 0 && strncmp(path, root, rl) == 0)
        rel += rl; /* the mount shows a subtree */
    char dir[PATH_MAX];
    if (snprintf(dir, sizeof dir, "%s%s", mnt, strcmp(rel, "/") == 0 ? "" : rel) >=
        (int)sizeof dir)
        return -1;
    for (int i = 0; i < nh; i++)
        if (strcmp(H[i].dir, dir) == 0)
            return i; /* co-mounted controllers (cpu,cpuacct) */
    if (nh == MAXH)
        return -1;
    hier *h = &H[nh];
    h->v2 = ctrl == NULL;
    snprintf(h->dir, sizeof h->dir, "%s", dir);
    h->writable = access(dir, W_OK) == 0;
    return nh++;
}

/* v2: can our base hand controller ctrl down to its children? Enables it
 * in subtree_control, moving this process into a leaf first when the base
 * holds processes (the "no internal processes" rule). */
static bool v2_enable(hier *h, const char *ctrl)
{
    char path[PATH_MAX + 64], text[512];
    snprintf(path, sizeof path, "%s/cgroup.subtree_control", h->dir);
    if (read_text(path, text, sizeof text) >= 0 && in_list(text, ctrl))
        return true;
    char avail[PATH_MAX + 64];
    snprintf(avail, sizeof avail, "%s/cgroup.controllers", h->dir);
    if (read_text(avail, text, sizeof text) < 0 || !in_list(text, ctrl))
        return false;
    char plus[32];
    snprintf(plus, sizeof plus, "+%s", ctrl);
    int rc = write_text(path, plus);
    if (rc == -EBUSY) {
        char leaf[PATH_MAX + 64], me[32];
        snprintf(leaf, sizeof leaf, "%s/tessera-server-%d", h->dir, (int)getpid());
        snprintf(me, sizeof me, "%d", (int)getpid());
        if (mkdir(leaf, 0755) != 0 && errno != EEXIST)
            return false;
        char procs[PATH_MAX + 96];
        snprintf(procs, sizeof procs, "%s/cgroup.procs", leaf);
        if (write_text(procs, me) != 0)
            return false;
        rc = write_text(path, plus);
    }
    return rc == 0;
}

static void find(void)
{
    for (int f = 0; f < NFUNCS; f++)
        fn_h[f] = -1;
    nh = 0;
    const char *knob = getenv("TESSERA_CGROUP_V2_CORE");
    bool core_v2 = knob && knob[0] == '1';
    int v2 = add_hier(NULL);
    char why[NFUNCS][160];
    for (int f = 0; f < NFUNCS; f++) {
        unsigned bit = 1u << f;
        why[f][0] = 0;
        int h = -1;
        bool core = bit == CG_CPUACCT || bit == CG_FREEZER; /* no controller needed on v2 */
        if (!(core && core_v2 && v2 >= 0 && H[v2].writable))
            h = add_hier(fn_ctrl[f]);
        if (h >= 0) {
            if (!H[h].writable)
                snprintf(why[f], sizeof why[f], "%.120s is not writable", H[h].dir);
        } else if (v2 >= 0) {
            h = v2;
            if (!H[h].writable)
                snprintf(why[f], sizeof why[f], "%.120s is not writable", H[h].dir);
            else if (!core && !v2_enable(&H[h], fn_ctrl[f]))
                snprintf(why[f], sizeof why[f], "the %s controller is not delegated to %.100s",
                         fn_ctrl[f], H[h].dir);
        } else {
            snprintf(why[f], sizeof why[f], "no %s cgroup is mounted", fn_ctrl[f]);
        }
        if (h >= 0 && !why[f][0])
            fn_h[f] = h;
    }
    sweep(NULL); /* what processes that died left */
    /* one sentence: what is missing, and why for each */
    size_t o = 0;
    missing_why[0] = 0;
    for (int f = 0; f < NFUNCS; f++) {
        if (fn_h[f] >= 0)
            continue;
        int n = snprintf(missing_why + o, sizeof missing_why - o, "%s%s (%s)",
                         o ? ", " : "no cgroup for ", fn_what[f], why[f]);
        if (n > 0 && (size_t)n < sizeof missing_why - o)
            o += (size_t)n;
    }
}

unsigned cg_available(char *why, size_t cap)
{
    pthread_once(&once, find);
    unsigned fns = 0;
    for (int f = 0; f < NFUNCS; f++)
        if (fn_h[f] >= 0)
            fns |= 1u << f;
    if (why && cap)
        snprintf(why, cap, "%s", missing_why);
    return fns;
}

const char *cg_describe(char *buf, size_t cap)
{
    pthread_once(&once, find);
    size_t o = 0;
    buf[0] = 0;
    for (int f = 0; f < NFUNCS && o < cap; f++) {
        int n = snprintf(buf + o, cap - o, "%s%s %s", f ? ", " : "", fn_ctrl[f],
                         fn_h[f] < 0 ? "none" : H[fn_h[f]].v2 ? "v2" : "v1");
        if (n > 0)
            o += (size_t)n;
    }
    return buf;
}

/* ---- the guardian ------------------------------------------------------------------------ */

/* A process of ours that outlives us by a moment: it waits for the end of
 * a pipe whose other end only we hold (close-on-exec), then thaws, kills
 * and removes every cgroup we made. A program frozen by the v1 freezer
 * ignores SIGKILL until it is thawed, so without it a tessera killed with
 * SIGKILL between two turns would leave its programs frozen for ever. One
 * per process (a fork of tessera gets its own), started with the first
 * cgroup; it holds no descriptor of
 * ours (the listening socket, the journal) and leaves the terminal's
 * process group (a Ctrl-C is for tessera, not for it). */
static pthread_mutex_t guard_mu = PTHREAD_MUTEX_INITIALIZER;
static pid_t guard_for; /* the process the guardian watches (a fork needs its own) */
static char guard_prefix[32];

static void guard_start(void)
{
    pthread_mutex_lock(&guard_mu);
    if (guard_for == getpid()) {
        pthread_mutex_unlock(&guard_mu);
        return;
    }
    guard_for = getpid();
    pthread_mutex_unlock(&guard_mu);
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0)
        return;
    snprintf(guard_prefix, sizeof guard_prefix, "tessera-%d-", (int)getpid());
    pid_t pid = (pid_t)syscall(SYS_clone, SIGCHLD, NULL, NULL, NULL, NULL);
    if (pid == 0) {
        int rfd = p[0];
        if (syscall(SYS_close_range, 0, rfd - 1, 0) != 0 ||
            syscall(SYS_close_range, rfd + 1, ~0U, 0) != 0)
            for (int fd = 0; fd < 4096; fd++)
                if (fd != rfd)
                    close(fd);
        setsid();
        /* named, so that it is told from the programs (ps, the tests) */
        prctl(PR_SET_NAME, "tessera-guard", 0, 0, 0);
        struct sigaction ign;
        memset(&ign, 0, sizeof ign);
        ign.sa_handler = SIG_IGN;
        const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGTSTP};
        for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
            sigaction(sigs[i], &ign, NULL);
        char b;
        while (read(rfd, &b, 1) != 0) {
            /* EINTR, or a byte nobody writes: wait on */
        }
        sweep(guard_prefix);
        _exit(0);
    }
    close(p[0]);
    if (pid < 0)
        close(p[1]);
    /* else p[1] stays open for the process's life: its end is the cue */
}

/* ---- one program's cgroup ---------------------------------------------------------------- */

/* The cgroup's folder in hierarchy h (made when missing); NULL on failure. */
static const char *dir_in(cgroup *c, int h, const char *name)
{
    for (int i = 0; i < c->nd; i++)
        if (strncmp(c->dir[i], H[h].dir, strlen(H[h].dir)) == 0 &&
            c->dir[i][strlen(H[h].dir)] == '/')
            return c->dir[i];
    char dir[PATH_MAX];
    if (snprintf(dir, sizeof dir, "%s/%s", H[h].dir, name) >= (int)sizeof dir)
        return NULL;
    if (mkdir(dir, 0755) != 0)
        return NULL;
    strcpy(c->dir[c->nd], dir);
    c->dir_v2[c->nd] = H[h].v2;
    return c->dir[c->nd++];
}

static bool setup_fn(cgroup *c, int f, const char *dir, bool v2, const cg_limits *l)
{
    char path[PATH_MAX + 64];
    switch (1u << f) {
    case CG_CPU:
        if (v2) {
            char text[64];
            snprintf(text, sizeof text, "%lld 100000", (long long)l->cpu_pct * 1000);
            snprintf(path, sizeof path, "%s/cpu.max", dir);
            return write_text(path, text) == 0;
        }
        return writef(dir, "cpu.cfs_period_us", "%lld", 100000) == 0 &&
               writef(dir, "cpu.cfs_quota_us", "%lld", l->cpu_pct * 1000) == 0;
    case CG_CPUACCT:
        snprintf(path, sizeof path, "%s/%s", dir, v2 ? "cpu.stat" : "cpuacct.usage");
        c->fd_cpu = open(path, O_RDONLY | O_CLOEXEC);
        c->cpu_v2 = v2;
        return c->fd_cpu >= 0;
    case CG_MEMORY: {
        long long bytes = (long long)l->memory_mb << 20;
        snprintf(c->mem_dir, sizeof c->mem_dir, "%s", dir);
        c->mem_v2 = v2;
        if (v2) {
            writef(dir, "memory.swap.max", "%lld", 0); /* absent without swap accounting */
            return writef(dir, "memory.max", "%lld", bytes) == 0;
        }
        if (writef(dir, "memory.limit_in_bytes", "%lld", bytes) != 0)
            return false;
        writef(dir, "memory.memsw.limit_in_bytes", "%lld", bytes); /* likewise */
        return true;
    }
    case CG_PIDS: return writef(dir, "pids.max", "%lld", l->max_tasks) == 0;
    case CG_FREEZER:
        snprintf(path, sizeof path, "%s/%s", dir, v2 ? "cgroup.freeze" : "freezer.state");
        c->fd_freeze = open(path, O_WRONLY | O_CLOEXEC);
        c->freeze_v2 = v2;
        return c->fd_freeze >= 0;
    }
    return false;
}

cgroup *cg_create(unsigned want, const cg_limits *l, char *err, size_t cap)
{
    pthread_once(&once, find);
    cgroup *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, cap, "out of memory");
        return NULL;
    }
    c->fd_cpu = c->fd_freeze = -1;
    guard_start();
    char name[64];
    snprintf(name, sizeof name, "tessera-%d-%u", (int)getpid(), atomic_fetch_add(&seq, 1));
    for (int f = 0; f < NFUNCS; f++) {
        if (!(want & (1u << f)) || fn_h[f] < 0)
            continue;
        const char *dir = dir_in(c, fn_h[f], name);
        if (dir && setup_fn(c, f, dir, H[fn_h[f]].v2, l))
            c->fns |= 1u << f;
    }
    if (!c->fns) {
        snprintf(err, cap, "no cgroup could be made: %s",
                 missing_why[0] ? missing_why : strerror(errno));
        cg_destroy(c);
        return NULL;
    }
    return c;
}

unsigned cg_functions(const cgroup *c)
{
    return c ? c->fns : 0;
}

int cg_join(cgroup *c, pid_t pid)
{
    char text[32];
    snprintf(text, sizeof text, "%d", (int)pid);
    for (int i = 0; i < c->nd; i++) {
        char path[PATH_MAX + 32];
        snprintf(path, sizeof path, "%s/cgroup.procs", c->dir[i]);
        int rc = write_text(path, text);
        if (rc)
            return rc;
    }
    return 0;
}

double cg_cpu_ms(cgroup *c)
{
    if (!c || c->fd_cpu < 0)
        return -1;
    char buf[1024];
    ssize_t n = pread(c->fd_cpu, buf, sizeof buf - 1, 0);
    if (n <= 0)
        return -1;
    buf[n] = 0;
    if (c->cpu_v2) {
        long long us = keyed(buf, "usage_usec");
        return us < 0 ? -1 : (double)us / 1e3;
    }
    return (double)strtoull(buf, NULL, 10) / 1e6;
}

int64_t cg_memory_peak_kb(cgroup *c)
{
    if (!c || !c->mem_dir[0])
        return 0;
    char path[PATH_MAX + 64], buf[64];
    snprintf(path, sizeof path, "%s/%s", c->mem_dir,
             c->mem_v2 ? "memory.peak" : "memory.max_usage_in_bytes");
    if (read_text(path, buf, sizeof buf) <= 0)
        return 0;
    return (int64_t)(strtoull(buf, NULL, 10) / 1024);
}

int cg_oom_kills(cgroup *c)
{
    if (!c || !c->mem_dir[0])
        return 0;
    char path[PATH_MAX + 64], buf[1024];
    snprintf(path, sizeof path, "%s/%s", c->mem_dir,
             c->mem_v2 ? "memory.events" : "memory.oom_control");
    if (read_text(path, buf, sizeof buf) <= 0)
        return 0;
    long long n = keyed(buf, "oom_kill");
    return n > 0 ? (int)n : 0;
}

void cg_freeze(cgroup *c, bool frozen)
{
    if (!c || c->fd_freeze < 0 || c->frozen == frozen)
        return;
    const char *text = c->freeze_v2 ? (frozen ? "1" : "0") : (frozen ? "FROZEN" : "THAWED");
    if (pwrite(c->fd_freeze, text, strlen(text), 0) == (ssize_t)strlen(text))
        c->frozen = frozen;
}

void cg_kill(cgroup *c)
{
    if (!c || c->nd == 0)
        return;
    for (int i = 0; i < c->nd; i++)
        if (c->dir_v2[i]) {
            char path[PATH_MAX + 32];
            snprintf(path, sizeof path, "%s/cgroup.kill", c->dir[i]);
            if (write_text(path, "1") == 0) {
                /* frozen tasks die as well; thawed so a later freeze is not stale */
                cg_freeze(c, false);
                return;
            }
        }
    /* the pids limit bounds what can be forked between two rounds, and a
     * frozen cgroup forks nothing */
    for (int round = 0; round < 200; round++) {
        cg_freeze(c, true);
        int n = kill_listed(c->dir[0]);
        cg_freeze(c, false); /* frozen tasks die only once thawed */
        if (n == 0)
            return;
        sleep_us(round < 10 ? 200 : 1000);
    }
}

void cg_destroy(cgroup *c)
{
    if (!c)
        return;
    cg_kill(c);
    if (c->fd_cpu >= 0)
        close(c->fd_cpu);
    if (c->fd_freeze >= 0)
        close(c->fd_freeze);
    for (int i = 0; i < c->nd; i++) {
        /* killed tasks leave the cgroup once the kernel has finished them */
        for (int k = 0; k < 400 && rmdir(c->dir[i]) != 0 && errno == EBUSY; k++) {
            if (k % 20 == 19)
                kill_listed(c->dir[i]);
            sleep_us(500);
        }
    }
    free(c);
}
