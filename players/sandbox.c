/*
 * sandbox.c — untrusted programs under limits (contract in sandbox.h).
 *
 * Starting. Everything the child needs (argv, environment, limits, the
 * working directory) is prepared before the fork, so that the child only
 * makes system calls between the fork and execve. The fork is a raw
 * clone(2) with the namespace flags: the child is then process 1 of its new
 * PID namespace and still our direct child, so we wait4() it for its exit
 * status and rusage, and killing it ends the whole namespace. The child
 * waits on a pipe until we have put it into its pids cgroup and written its
 * user namespace's id maps; a second pipe (close-on-exec) carries the step
 * and errno of a failure before execve back to us, or nothing when execve
 * worked. Which flags work is found by trying: the full set first, then
 * less, down to none, so the same code runs as root, as a user with user
 * namespaces, and as a user without.
 *
 * Process 1 of a PID namespace ignores the signals it sends itself when it
 * has no handler for them; glibc's abort() then ends it with SIGSEGV (its
 * fallback). Faults the CPU raises (SIGSEGV, SIGBUS, SIGFPE) and the
 * kernel's SIGKILL at the hard CPU limit behave as usual. docs/stdio.md
 * says so.
 *
 * A fork bomb. RLIMIT_NPROC does not bind root (the kernel exempts it) and
 * counts every process of a user. So: as root the program runs as nobody
 * (NPROC binds again, but shared by every program running as nobody), and
 * above all in a pids cgroup of its own when the machine has a writable
 * pids hierarchy (v1, or v2 with pids delegated), which counts exactly the
 * program's tasks whoever runs them. In a user namespace (not root) NPROC
 * is counted per namespace, so it is exact too. Without either, NPROC is
 * set to what the user already runs plus max_tasks.
 *
 * The child of a raw clone() is a copy of one thread of a process that may
 * have many: it calls no glibc function that takes a lock or talks to other
 * threads (no malloc, no stdio, and the id changes as raw system calls).
 *
 * Ending. The exit is noticed with waitid(WNOWAIT) so that the zombie still
 * holds its pid while we kill its process group and cgroup (no pid reuse
 * can redirect the kill), then reaped with wait4.
 */
#define _GNU_SOURCE
#include "sandbox.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "engine/errors.h"

/* ---- small helpers -------------------------------------------------------------- */

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int seterr(char *err, size_t cap, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int seterr(char *err, size_t cap, int code, const char *fmt, ...)
{
    if (err && cap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, cap, fmt, ap);
        va_end(ap);
    }
    return code;
}

/* Write a whole small string to a file (cgroup and /proc knobs). */
static int write_file(const char *path, const char *text)
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

void sandbox_limits_default(sandbox_limits *l)
{
    memset(l, 0, sizeof *l);
    l->cpu_s = PLAYER_DEFAULT_CPU_S;
    l->memory_mb = PLAYER_DEFAULT_MEMORY_MB;
    l->file_mb = PLAYER_DEFAULT_FILE_MB;
    l->max_files = PLAYER_DEFAULT_FILES;
    l->max_tasks = PLAYER_DEFAULT_TASKS;
    l->max_line = PLAYER_DEFAULT_LINE;
    l->max_stdout = PLAYER_DEFAULT_STDOUT;
    l->max_stderr = PLAYER_DEFAULT_STDERR;
    l->max_unread = PLAYER_DEFAULT_UNREAD;
    l->uid = PLAYER_DEFAULT_UID;
    l->gid = PLAYER_DEFAULT_GID;
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
    FILL(max_line);
    FILL(max_stdout);
    FILL(max_stderr);
    FILL(max_unread);
#undef FILL
    if (l->max_files < 4)
        l->max_files = 4; /* 0, 1, 2 and the exec-status pipe */
    /* "become root" is no drop: a zero identity means the default (to keep
     * root's identity, disable SANDBOX_P_UID) */
    if (l->uid == 0)
        l->uid = d.uid;
    if (l->gid == 0)
        l->gid = d.gid;
}

/* Zero fields take their defaults. */
static void limits_fill(sandbox_limits *l, const sandbox_limits *in)
{
    if (in)
        *l = *in;
    else
        sandbox_limits_default(l);
    sandbox_limits_normalize(l);
}

const char *sandbox_protections_text(unsigned p, char *buf, size_t cap)
{
    static const char *const names[] = {
        "rlimits",           "process group",     "pid namespace",
        "network namespace", "user namespace",    "pids cgroup",
        "RLIMIT_NPROC",      "unprivileged uid",  "seccomp: no internet sockets",
        "working directory", "clean environment", "no_new_privs",
    };
    size_t o = 0;
    if (cap)
        buf[0] = 0;
    for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++)
        if (p & (1u << i)) {
            int n = snprintf(buf + o, cap > o ? cap - o : 0, "%s%s", o ? ", " : "", names[i]);
            if (n > 0)
                o += (size_t)n;
            if (o >= cap) {
                o = cap ? cap - 1 : 0;
                break;
            }
        }
    return buf;
}

/* ---- the command ------------------------------------------------------------------ */

static bool is_exec_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* Can a user who is neither owner nor group reach path (every directory on
 * the way searchable by others) and use it (mode bits `need` of S_IROTH,
 * S_IXOTH)? What the sandbox's user `nobody` can do, as root drops to it. */
static bool others_can(const char *path, mode_t need)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    struct stat st;
    if (stat(path, &st) != 0 || (st.st_mode & need) != need)
        return false;
    for (char *slash = strrchr(dir, '/'); slash && slash != dir; slash = strrchr(dir, '/')) {
        *slash = 0;
        if (stat(dir, &st) != 0 || !(st.st_mode & S_IXOTH))
            return false;
    }
    return true;
}

int sandbox_cmd_parse(const char *cmdline, const sandbox_limits *lim, sandbox_cmd *out, char *err,
                      size_t errcap)
{
    memset(out, 0, sizeof *out);
    /* as root, the program runs as another user: it must be able to reach
     * its files */
    bool as_other = geteuid() == 0 && !(lim && (lim->disable & SANDBOX_P_UID));
    unsigned uid = lim && lim->uid ? lim->uid : PLAYER_DEFAULT_UID;
    if (!cmdline)
        return seterr(err, errcap, ENG_EINVAL, "no command");
    char words[SANDBOX_CMD_MAX];
    if (strlen(cmdline) >= sizeof words)
        return seterr(err, errcap, ENG_EINVAL, "the command is longer than %d bytes",
                      SANDBOX_CMD_MAX - 1);
    strcpy(words, cmdline);
    char *arg[SANDBOX_MAX_ARGS + 1];
    int n = 0;
    for (char *save = NULL, *w = strtok_r(words, " \t\r\n", &save); w;
         w = strtok_r(NULL, " \t\r\n", &save)) {
        if (n == SANDBOX_MAX_ARGS)
            return seterr(err, errcap, ENG_EINVAL, "more than %d arguments", SANDBOX_MAX_ARGS);
        arg[n++] = w;
    }
    if (n == 0)
        return seterr(err, errcap, ENG_EINVAL,
                      "empty command: name a program, e.g. "
                      "\"cmd:python3 bot.py\"");

    /* the program */
    char found[PATH_MAX];
    if (strchr(arg[0], '/')) {
        if (!realpath(arg[0], found))
            return seterr(err, errcap, ENG_EINVAL, "program %.200s: %s", arg[0], strerror(errno));
    } else {
        const char *path = getenv("PATH");
        if (!path || !path[0])
            path = "/usr/local/bin:/usr/bin:/bin";
        bool ok = false;
        for (const char *p = path; !ok;) {
            size_t len = strcspn(p, ":");
            char cand[PATH_MAX];
            if (len == 0)
                snprintf(cand, sizeof cand, "%s", arg[0]);
            else
                snprintf(cand, sizeof cand, "%.*s/%s", (int)len, p, arg[0]);
            if (is_exec_file(cand) && realpath(cand, found) &&
                (!as_other || others_can(found, S_IXOTH)))
                ok = true;
            if (!p[len])
                break;
            p += len + 1;
        }
        if (!ok)
            return seterr(err, errcap, ENG_EINVAL, "program %.200s not found on PATH", arg[0]);
    }
    if (!is_exec_file(found))
        return seterr(err, errcap, ENG_EINVAL, "program %.200s is not an executable file", arg[0]);
    if (as_other && !others_can(found, S_IXOTH))
        return seterr(err, errcap, ENG_EINVAL,
                      "program %.200s cannot be run by uid %u, the sandbox's user when tessera "
                      "runs as root: make it and its directories readable by all",
                      found, uid);
    snprintf(out->path, sizeof out->path, "%s", found);

    /* the arguments: relative paths to existing files become absolute */
    size_t o = 0;
    for (int i = 0; i < n; i++) {
        const char *a = arg[i];
        char abs[PATH_MAX];
        struct stat st;
        if (i > 0 && a[0] != '-' && a[0] != '/' && stat(a, &st) == 0 && realpath(a, abs))
            a = abs;
        if (i > 0 && as_other && a[0] == '/' && stat(a, &st) == 0 &&
            !others_can(a, S_ISDIR(st.st_mode) ? S_IXOTH : S_IROTH))
            return seterr(err, errcap, ENG_EINVAL,
                          "%.200s cannot be read by uid %u, the sandbox's user when tessera runs "
                          "as root: make it and its directories readable by all",
                          a, uid);
        size_t len = strlen(a);
        if (o + len + 1 > sizeof out->text)
            return seterr(err, errcap, ENG_EINVAL, "the command is longer than %d bytes",
                          SANDBOX_CMD_MAX - 1);
        memcpy(out->text + o, a, len + 1);
        out->argv[i] = out->text + o;
        o += len + 1;
    }
    out->argv[n] = NULL;
    out->argc = n;
    return 0;
}

/* ---- the pids cgroup ----------------------------------------------------------------- */

/* The directory of our own cgroup in a writable pids hierarchy, found once
 * ("" when none). */
static char cg_base[PATH_MAX];
static bool cg_v2;
static pthread_once_t cg_once = PTHREAD_ONCE_INIT;
static atomic_uint cg_seq;

static void cg_find(void)
{
    cg_base[0] = 0;
    /* our cgroup path per hierarchy */
    char v1path[PATH_MAX] = "", v2path[PATH_MAX] = "";
    bool have_v1 = false, have_v2 = false;
    FILE *f = fopen("/proc/self/cgroup", "re");
    if (!f)
        return;
    char line[PATH_MAX + 64];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2)
            continue;
        *c2 = 0;
        const char *ctrls = c1 + 1, *path = c2 + 1;
        if (strcmp(line, "0") == 0 && ctrls[0] == 0) {
            snprintf(v2path, sizeof v2path, "%s", path);
            have_v2 = true;
        } else {
            char list[256];
            snprintf(list, sizeof list, ",%s,", ctrls);
            if (strstr(list, ",pids,")) {
                snprintf(v1path, sizeof v1path, "%s", path);
                have_v1 = true;
            }
        }
    }
    fclose(f);
    /* where the hierarchies are mounted */
    f = fopen("/proc/self/mountinfo", "re");
    if (!f)
        return;
    char v1mnt[PATH_MAX] = "", v2mnt[PATH_MAX] = "", v1root[PATH_MAX] = "", v2root[PATH_MAX] = "";
    char buf[8192];
    while (fgets(buf, sizeof buf, f)) {
        /* id parent maj:min root mountpoint options... - fstype source superopts */
        char root[PATH_MAX], mnt[PATH_MAX];
        if (sscanf(buf, "%*s %*s %*s %4095s %4095s", root, mnt) != 2)
            continue;
        char *dash = strstr(buf, " - ");
        if (!dash)
            continue;
        char fstype[64], source[256], opts[1024] = "";
        if (sscanf(dash + 3, "%63s %255s %1023s", fstype, source, opts) < 2)
            continue;
        if (strcmp(fstype, "cgroup") == 0 && have_v1 && !v1mnt[0]) {
            char list[1100];
            snprintf(list, sizeof list, ",%s,", opts);
            if (strstr(list, ",pids,")) {
                snprintf(v1mnt, sizeof v1mnt, "%s", mnt);
                snprintf(v1root, sizeof v1root, "%s", root);
            }
        } else if (strcmp(fstype, "cgroup2") == 0 && have_v2 && !v2mnt[0]) {
            snprintf(v2mnt, sizeof v2mnt, "%s", mnt);
            snprintf(v2root, sizeof v2root, "%s", root);
        }
    }
    fclose(f);
    /* prefer v1's pids hierarchy (a hybrid system binds pids there), else v2
     * when our cgroup hands pids down to its children */
    const char *mnt = NULL, *root = NULL, *path = NULL;
    if (v1mnt[0]) {
        mnt = v1mnt, root = v1root, path = v1path;
    } else if (v2mnt[0]) {
        mnt = v2mnt, root = v2root, path = v2path;
        cg_v2 = true;
    } else {
        return;
    }
    size_t rl = strlen(root);
    if (strcmp(root, "/") != 0 && strncmp(path, root, rl) == 0)
        path += rl; /* the mount shows a subtree */
    char dir[PATH_MAX];
    if (snprintf(dir, sizeof dir, "%s%s", mnt, strcmp(path, "/") == 0 ? "" : path) >=
        (int)sizeof dir)
        return;
    char probe[PATH_MAX + 32];
    if (cg_v2) {
        snprintf(probe, sizeof probe, "%s/cgroup.subtree_control", dir);
        FILE *sc = fopen(probe, "re");
        char ctl[512] = "";
        if (sc) {
            if (!fgets(ctl, sizeof ctl, sc))
                ctl[0] = 0;
            fclose(sc);
        }
        if (!strstr(ctl, "pids"))
            return;
    }
    if (access(dir, W_OK) != 0)
        return;
    snprintf(cg_base, sizeof cg_base, "%s", dir);
    /* cgroups left by a process that died before it could remove them
     * (tessera-PID-N with PID gone): empty, so rmdir takes them */
    DIR *d = opendir(cg_base);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        int pid;
        if (sscanf(e->d_name, "tessera-%d-", &pid) == 1 && pid > 0 && pid != (int)getpid() &&
            kill(pid, 0) != 0 && errno == ESRCH) {
            char stale[PATH_MAX + 300];
            snprintf(stale, sizeof stale, "%s/%.255s", cg_base, e->d_name);
            rmdir(stale);
        }
    }
    if (d)
        closedir(d);
}

/* Make a pids cgroup for one program; path into out (PATH_MAX). */
static int cg_create(int64_t max_tasks, char *out)
{
    pthread_once(&cg_once, cg_find);
    out[0] = 0;
    if (!cg_base[0])
        return -1;
    unsigned seq = atomic_fetch_add(&cg_seq, 1);
    char dir[PATH_MAX], knob[PATH_MAX + 16], val[32];
    if (snprintf(dir, sizeof dir, "%s/tessera-%d-%u", cg_base, (int)getpid(), seq) >=
        (int)sizeof dir)
        return -1;
    if (mkdir(dir, 0700) != 0)
        return -1;
    snprintf(knob, sizeof knob, "%s/pids.max", dir);
    snprintf(val, sizeof val, "%lld", (long long)max_tasks);
    if (write_file(knob, val) != 0) {
        rmdir(dir);
        return -1;
    }
    strcpy(out, dir);
    return 0;
}

/* SIGKILL every task of the cgroup, until it is empty (bounded rounds: the
 * pids limit bounds what can be forked meanwhile). */
static void cg_kill(const char *dir)
{
    if (!dir[0])
        return;
    char knob[PATH_MAX + 16];
    if (cg_v2) {
        snprintf(knob, sizeof knob, "%s/cgroup.kill", dir);
        if (write_file(knob, "1") == 0)
            return;
    }
    snprintf(knob, sizeof knob, "%s/cgroup.procs", dir);
    for (int round = 0; round < 100; round++) {
        FILE *f = fopen(knob, "re");
        if (!f)
            return;
        int killed = 0;
        long pid;
        while (fscanf(f, "%ld", &pid) == 1)
            if (pid > 0 && kill((pid_t)pid, SIGKILL) == 0)
                killed++;
        fclose(f);
        if (!killed)
            return;
        struct timespec ts = {0, 200000};
        nanosleep(&ts, NULL);
    }
}

static void cg_remove(char *dir)
{
    if (!dir[0])
        return;
    for (int i = 0; i < 200 && rmdir(dir) != 0 && errno == EBUSY; i++) {
        cg_kill(dir);
        struct timespec ts = {0, 500000}; /* killed tasks leave when reaped */
        nanosleep(&ts, NULL);
    }
    dir[0] = 0;
}

/* ---- the working directory ------------------------------------------------------------- */

/* Remove everything below dirfd (which stays open), fixing permissions the
 * program may have taken away; never follows symbolic links. */
static void rm_tree_at(int dirfd, int depth)
{
    DIR *d = fdopendir(fcntl(dirfd, F_DUPFD_CLOEXEC, 0));
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (unlinkat(dirfd, e->d_name, 0) == 0)
            continue;
        if (errno != EISDIR && errno != EPERM && errno != EACCES)
            continue;
        if (depth > 64)
            continue; /* deeper trees are left for the system's /tmp cleaning */
        fchmodat(dirfd, e->d_name, 0700, 0);
        int sub = openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub >= 0) {
            rm_tree_at(sub, depth + 1);
            close(sub);
        }
        unlinkat(dirfd, e->d_name, AT_REMOVEDIR);
    }
    closedir(d);
}

static void rm_workdir(char *dir)
{
    if (!dir[0])
        return;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) {
        fchmod(fd, 0700);
        rm_tree_at(fd, 0);
        close(fd);
    }
    rmdir(dir);
    dir[0] = 0;
}

/* Working directories left by a process that died before it could remove
 * them, once per process: a live sandbox holds a lock on its directory
 * (flock, which works across PID namespaces sharing /tmp), so a directory
 * nobody holds is stale. */
static pthread_once_t stale_once = PTHREAD_ONCE_INIT;
static const char *stale_tmp;

static void clean_stale(void)
{
    DIR *d = opendir(stale_tmp);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, "tessera-bot-", 12) != 0)
            continue;
        char stale[PATH_MAX];
        snprintf(stale, sizeof stale, "%s/%.255s", stale_tmp, e->d_name);
        int fd = open(stale, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
            continue;
        if (flock(fd, LOCK_EX | LOCK_NB) == 0)
            rm_workdir(stale);
        close(fd);
    }
    if (d)
        closedir(d);
}

static void clean_stale_workdirs(const char *tmp)
{
    stale_tmp = tmp;
    pthread_once(&stale_once, clean_stale);
}

/* ---- seccomp: no internet sockets (when there is no network namespace) ---------------- */

#if defined(__x86_64__)
#define SBX_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SBX_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

#ifdef SBX_AUDIT_ARCH
static struct sock_filter net_filter[] = {
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SBX_AUDIT_ARCH, 1, 0),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS), /* another ABI: no */
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
#ifdef __x86_64__
    BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1), /* x32 calls */
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
#endif
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 0, 1), /* sockets via io_uring */
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_socket, 1, 0),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 0, 1),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EACCES),
};
#endif

/* ---- the child ------------------------------------------------------------------------- */

enum {
    STEP_SYNC,
    STEP_SETSID,
    STEP_FDS,
    STEP_CHDIR,
    STEP_RLIMIT,
    STEP_UID,
    STEP_PRIVS,
    STEP_SECCOMP,
    STEP_EXEC
};
static const char *const step_names[] = {
    "waiting to start", "setsid",       "descriptors", "chdir", "setrlimit",
    "dropping to uid",  "no_new_privs", "seccomp",     "execve"};

/* Everything the child uses, prepared before the fork. */
typedef struct child_args {
    const char *path;
    char *const *argv;
    char *const *envp;
    const char *workdir;
    int in_r, out_w, err_w; /* become 0, 1, 2 */
    int sync_r;             /* one byte: go */
    int sync_w;             /* its other end: the child closes its copy */
    int status_w;           /* close-on-exec: a failure report, or nothing */
    struct rlimit rl_cpu, rl_as, rl_fsize, rl_nofile, rl_nproc;
    bool set_nproc;
    bool drop; /* root: become uid/gid */
    uid_t uid;
    gid_t gid;
    bool seccomp;
    bool exec; /* false: a probe, _exit(0) after the setup */
} child_args;

static void child_fail(const child_args *a, int step) __attribute__((noreturn));
static void child_fail(const child_args *a, int step)
{
    int msg[2] = {step, errno};
    ssize_t w = write(a->status_w, msg, sizeof msg);
    (void)w;
    _exit(127);
}

static void child_main(const child_args *a) __attribute__((noreturn));
static void child_main(const child_args *a)
{
    /* If the parent dies before its go, the child must not wait for ever:
     * with our copy of the write end closed, its death is an end of file;
     * and from now on it takes us with it (set again after the id change,
     * which clears it). Found by killing `tessera bridge` -9 while it
     * started a program: the child, still waiting here, outlived it. */
    close(a->sync_w);
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    char go;
    if (read(a->sync_r, &go, 1) != 1)
        child_fail(a, STEP_SYNC);
    if (setsid() < 0)
        child_fail(a, STEP_SETSID);

    /* 0, 1, 2 from the pipes (moved above 2 first, in case one is there) */
    int fds[3] = {a->in_r, a->out_w, a->err_w};
    int status_w = a->status_w;
    for (int i = 0; i < 3; i++)
        if (fds[i] < 3 && (fds[i] = fcntl(fds[i], F_DUPFD_CLOEXEC, 3)) < 0)
            child_fail(a, STEP_FDS);
    if (status_w < 3 && (status_w = fcntl(status_w, F_DUPFD_CLOEXEC, 3)) < 0)
        child_fail(a, STEP_FDS);
    child_args b = *a;
    b.status_w = status_w;
    for (int i = 0; i < 3; i++)
        if (dup2(fds[i], i) < 0)
            child_fail(&b, STEP_FDS);
    /* nothing else crosses execve (status_w is close-on-exec) */
    if (syscall(SYS_close_range, 3, status_w - 1, 0) != 0 ||
        syscall(SYS_close_range, status_w + 1, ~0U, 0) != 0) {
        for (int fd = 3; fd < 65536; fd++)
            if (fd != status_w)
                close(fd);
    }
    if (chdir(b.workdir) != 0)
        child_fail(&b, STEP_CHDIR);

    /* signals as a fresh process has them (ignored ones would survive execve) */
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    for (int sig = 1; sig < NSIG; sig++)
        if (sig != SIGKILL && sig != SIGSTOP)
            sigaction(sig, &dfl, NULL);

    struct rlimit zero = {0, 0};
    if (setrlimit(RLIMIT_CORE, &zero) || setrlimit(RLIMIT_CPU, &b.rl_cpu) ||
        setrlimit(RLIMIT_AS, &b.rl_as) || setrlimit(RLIMIT_FSIZE, &b.rl_fsize) ||
        setrlimit(RLIMIT_NOFILE, &b.rl_nofile))
        child_fail(&b, STEP_RLIMIT);
    if (b.set_nproc && setrlimit(RLIMIT_NPROC, &b.rl_nproc))
        child_fail(&b, STEP_RLIMIT);
    if (b.drop) {
        /* raw system calls: glibc's wrappers would ask the parent's other
         * threads (which the child does not have) to change their ids too */
        if (syscall(SYS_setgroups, 0, NULL) || syscall(SYS_setresgid, b.gid, b.gid, b.gid) ||
            syscall(SYS_setresuid, b.uid, b.uid, b.uid))
            child_fail(&b, STEP_UID);
    }
    /* dies with the thread that started it, even when that is killed -9
     * (set after the id change, which clears it) */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
        child_fail(&b, STEP_PRIVS);
#ifdef SBX_AUDIT_ARCH
    if (b.seccomp) {
        struct sock_fprog prog = {.len = sizeof net_filter / sizeof net_filter[0],
                                  .filter = net_filter};
        if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
            child_fail(&b, STEP_SECCOMP);
    }
#endif
    if (!b.exec)
        _exit(0);
    execve(b.path, b.argv, b.envp);
    child_fail(&b, STEP_EXEC);
}

/* ---- the sandbox ------------------------------------------------------------------------ */

struct sandbox {
    sandbox_limits lim;
    pid_t pid;                 /* the program (process 1 of its namespace when PIDNS) */
    int pidfd;                 /* readable once it has ended (pidfd_open); -1 without */
    int lockfd;                /* the working directory, flock'ed while we live */
    unsigned prot;             /* SANDBOX_P_* in force */
    int in_fd, out_fd, err_fd; /* our ends; -1 once closed */
    char workdir[PATH_MAX];
    char cgroup[PATH_MAX];
    double start_ms;

    /* the end */
    bool reaped, signaled, killed;
    int sig, code;
    struct rusage ru;
    bool start_failed;
    char start_error[160];
    int64_t vm_peak_kb;
    double next_sample_ms;
    clockid_t cpu_clock;
    bool has_cpu_clock;
    double last_cpu_ms;

    /* stdout, as lines */
    char *obuf;      /* max_line + 1 bytes */
    size_t ooff;     /* where the bytes not yet handed out start in obuf */
    size_t olen;     /* bytes in obuf from ooff */
    size_t consumed; /* bytes of the line handed out last (dropped at the next call) */
    bool skipping;   /* dropping the rest of a line that was too long */
    bool flood;      /* a window's limit was passed */
    uint64_t win_out, win_err;
    int strays;
    char stray_first[64];

    /* stderr: the tail of what arrived since the last take */
    char ring[PLAYER_STDERR_KEEP];
    size_t ring_len, ring_head;
    uint64_t err_total;

    /* stdin queue */
    char *wq;
    size_t wq_len, wq_off, wq_cap;
};

static void set_nonblock(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* How many tasks (threads) user uid runs now, from /proc. */
static long user_tasks(uid_t uid)
{
    DIR *d = opendir("/proc");
    if (!d)
        return 0;
    long total = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        char path[300], line[256];
        snprintf(path, sizeof path, "/proc/%.256s/status", e->d_name);
        FILE *f = fopen(path, "re");
        if (!f)
            continue;
        long ruid = -1, threads = 0;
        while (fgets(line, sizeof line, f)) {
            if (strncmp(line, "Uid:", 4) == 0)
                ruid = strtol(line + 4, NULL, 10);
            else if (strncmp(line, "Threads:", 8) == 0)
                threads = strtol(line + 8, NULL, 10);
        }
        fclose(f);
        if (ruid == (long)uid)
            total += threads;
    }
    closedir(d);
    return total;
}

/* Write the id maps of a child in a new user namespace: itself, only. */
static int write_id_maps(pid_t pid)
{
    char path[64], map[64];
    snprintf(path, sizeof path, "/proc/%d/setgroups", (int)pid);
    int rc = write_file(path, "deny");
    if (rc && rc != -ENOENT)
        return rc;
    snprintf(path, sizeof path, "/proc/%d/uid_map", (int)pid);
    snprintf(map, sizeof map, "%u %u 1", (unsigned)geteuid(), (unsigned)geteuid());
    if ((rc = write_file(path, map)))
        return rc;
    snprintf(path, sizeof path, "/proc/%d/gid_map", (int)pid);
    snprintf(map, sizeof map, "%u %u 1", (unsigned)getegid(), (unsigned)getegid());
    return write_file(path, map);
}

/* The flag sets to try, most isolation first. */
static int flag_sets(unsigned disable, bool root, unsigned long sets[4])
{
    int n = 0;
    unsigned long pid = (disable & SANDBOX_P_PIDNS) ? 0 : CLONE_NEWPID;
    unsigned long net = (disable & SANDBOX_P_NETNS) ? 0 : CLONE_NEWNET;
    if (root) {
        if (pid | net)
            sets[n++] = pid | net;
        if (pid && net) {
            sets[n++] = pid;
            sets[n++] = net;
        }
    } else if ((pid | net) && !(disable & SANDBOX_P_USERNS)) {
        sets[n++] = CLONE_NEWUSER | pid | net;
    }
    sets[n++] = 0;
    return n;
}

/* The shared part of sandbox_start and sandbox_probe. With exec false the
 * child stops before execve (a probe) and s is only used for the result. */
static int start(sandbox *s, const sandbox_cmd *cmd, bool exec, char *err, size_t errcap)
{
    const sandbox_limits *l = &s->lim;
    bool root = geteuid() == 0;
    int rc = ENG_EINTERNAL;

    /* the working directory */
    const char *tmp = getenv("TMPDIR");
    if (!tmp || tmp[0] != '/' || strlen(tmp) > 200)
        tmp = "/tmp";
    clean_stale_workdirs(tmp);
    snprintf(s->workdir, sizeof s->workdir, "%s/tessera-bot-XXXXXX", tmp);
    if (!mkdtemp(s->workdir)) {
        s->workdir[0] = 0;
        return seterr(err, errcap, ENG_EINTERNAL, "cannot make a working directory in %s: %s", tmp,
                      strerror(errno));
    }
    /* held while the sandbox lives: a directory nobody holds is stale */
    s->lockfd = open(s->workdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (s->lockfd >= 0)
        flock(s->lockfd, LOCK_SH);
    bool drop = root && !(l->disable & SANDBOX_P_UID);
    if (drop && chown(s->workdir, l->uid, l->gid) != 0) {
        rc = seterr(err, errcap, ENG_EINTERNAL, "chown of the working directory: %s",
                    strerror(errno));
        goto fail;
    }
    unsigned prot = SANDBOX_P_RLIMITS | SANDBOX_P_PGROUP | SANDBOX_P_WORKDIR | SANDBOX_P_CLEANENV |
                    SANDBOX_P_NONEWPRIVS | (drop ? SANDBOX_P_UID : 0);

    /* the cgroup: only root can move a process into one here */
    if (root && !(l->disable & SANDBOX_P_CGROUP))
        cg_create(l->max_tasks, s->cgroup);

    /* the environment */
    char env_home[PATH_MAX + 8];
    snprintf(env_home, sizeof env_home, "HOME=%s", s->workdir);
    char *envp[] = {"PATH=/usr/local/bin:/usr/bin:/bin", env_home, "LANG=C.UTF-8", NULL};

    child_args a;
    memset(&a, 0, sizeof a);
    a.path = cmd ? cmd->path : "/";
    a.argv = cmd ? cmd->argv : NULL;
    a.envp = envp;
    a.workdir = s->workdir;
    a.exec = exec;
    a.drop = drop;
    a.uid = l->uid;
    a.gid = l->gid;
    rlim_t cpu = (rlim_t)l->cpu_s;
    a.rl_cpu = (struct rlimit){cpu, cpu + 1};
    a.rl_as = (struct rlimit){(rlim_t)l->memory_mb << 20, (rlim_t)l->memory_mb << 20};
    a.rl_fsize = (struct rlimit){(rlim_t)l->file_mb << 20, (rlim_t)l->file_mb << 20};
    a.rl_nofile = (struct rlimit){(rlim_t)l->max_files, (rlim_t)l->max_files};

    unsigned long sets[4];
    int nsets = flag_sets(l->disable, root, sets);
    for (int k = 0; k < nsets; k++) {
        unsigned long flags = sets[k];
        bool userns = flags & CLONE_NEWUSER;
        /* pipes: ours are [0] of out/err and [1] of in; all close-on-exec */
        int in[2] = {-1, -1}, out[2] = {-1, -1}, er[2] = {-1, -1}, sync[2] = {-1, -1},
            status[2] = {-1, -1};
        if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) || pipe2(er, O_CLOEXEC) ||
            pipe2(sync, O_CLOEXEC) || pipe2(status, O_CLOEXEC)) {
            rc = seterr(err, errcap, ENG_EINTERNAL, "pipe: %s", strerror(errno));
            int *all[] = {in, out, er, sync, status};
            for (int i = 0; i < 5; i++)
                for (int j = 0; j < 2; j++)
                    close_fd(&all[i][j]);
            goto fail;
        }
        a.in_r = in[0];
        a.out_w = out[1];
        a.err_w = er[1];
        a.sync_r = sync[0];
        a.sync_w = sync[1];
        a.status_w = status[1];
        /* NPROC: exact in a user namespace; for nobody as root (shared);
         * for a user without namespaces, on top of what it already runs */
        unsigned pbits = 0;
        a.set_nproc = false;
        if (!(l->disable & SANDBOX_P_NPROC)) {
            rlim_t nproc = (rlim_t)l->max_tasks;
            if (!root && !userns)
                nproc += (rlim_t)user_tasks(getuid());
            if (!(root && s->cgroup[0]) && (!root || drop)) {
                a.set_nproc = true;
                a.rl_nproc = (struct rlimit){nproc, nproc};
                pbits |= SANDBOX_P_NPROC;
            }
        }
        a.seccomp = false;
#ifdef SBX_AUDIT_ARCH
        if (!(flags & CLONE_NEWNET) && !(l->disable & SANDBOX_P_SECCOMP)) {
            a.seccomp = true;
            pbits |= SANDBOX_P_SECCOMP;
        }
#endif
        pid_t pid = (pid_t)syscall(SYS_clone, flags | SIGCHLD, NULL, NULL, NULL, NULL);
        if (pid == 0)
            child_main(&a);
        int clone_errno = errno;
        close(in[0]);
        close(out[1]);
        close(er[1]);
        close(sync[0]);
        close(status[1]);
        if (pid < 0) {
            close(in[1]);
            close(out[0]);
            close(er[0]);
            close(sync[1]);
            close(status[0]);
            if (k + 1 < nsets)
                continue; /* less isolation */
            rc = seterr(err, errcap, ENG_EINTERNAL, "clone: %s", strerror(clone_errno));
            goto fail;
        }
        /* put it in its cgroup and give it its ids before it goes on */
        bool ok = true;
        if (s->cgroup[0]) {
            char knob[PATH_MAX + 16], val[32];
            snprintf(knob, sizeof knob, "%s/cgroup.procs", s->cgroup);
            snprintf(val, sizeof val, "%d", (int)pid);
            if (write_file(knob, val) == 0) {
                pbits |= SANDBOX_P_CGROUP;
            } else {
                /* no cgroup after all: the same again, with RLIMIT_NPROC */
                cg_remove(s->cgroup);
                kill(pid, SIGKILL);
                waitpid(pid, NULL, 0);
                close(sync[1]);
                close(in[1]);
                close(out[0]);
                close(er[0]);
                close(status[0]);
                k--;
                continue;
            }
        }
        if (userns && write_id_maps(pid) != 0)
            ok = false;
        if (ok && write(sync[1], "g", 1) != 1)
            ok = false;
        close(sync[1]);
        if (!ok) {
            kill(pid, SIGKILL);
            waitpid(pid, NULL, 0);
            close(in[1]);
            close(out[0]);
            close(er[0]);
            close(status[0]);
            if (k + 1 < nsets)
                continue;
            rc = seterr(err, errcap, ENG_EINTERNAL, "cannot set up the user namespace");
            goto fail;
        }
        /* execve worked when the status pipe closes without a word */
        int msg[2];
        ssize_t got;
        do
            got = read(status[0], msg, sizeof msg);
        while (got < 0 && errno == EINTR);
        close(status[0]);
        s->pid = pid;
        s->in_fd = in[1];
        s->out_fd = out[0];
        s->err_fd = er[0];
        s->start_ms = now_ms();
        if (flags & CLONE_NEWPID)
            pbits |= SANDBOX_P_PIDNS;
        if (flags & CLONE_NEWNET)
            pbits |= SANDBOX_P_NETNS;
        if (userns)
            pbits |= SANDBOX_P_USERNS;
        s->prot = prot | pbits;
        if (got == (ssize_t)sizeof msg) {
            int step = msg[0] >= 0 && msg[0] <= STEP_EXEC ? msg[0] : STEP_EXEC;
            s->start_failed = true;
            snprintf(s->start_error, sizeof s->start_error, "%s: %s", step_names[step],
                     strerror(msg[1]));
            int st;
            struct rusage ru;
            if (wait4(pid, &st, 0, &ru) == pid) {
                s->reaped = true;
                s->ru = ru;
                s->code = WIFEXITED(st) ? WEXITSTATUS(st) : 0;
            }
            if (userns && step <= STEP_PRIVS && k + 1 < nsets) {
                /* a user namespace that lets us do less than promised */
                close_fd(&s->in_fd);
                close_fd(&s->out_fd);
                close_fd(&s->err_fd);
                s->start_failed = false;
                s->reaped = false;
                continue;
            }
            return seterr(err, errcap, ENG_EIO, "could not start %s: %s",
                          cmd ? cmd->argv[0] : "the probe", s->start_error);
        }
        if (exec) {
            set_nonblock(s->in_fd);
            set_nonblock(s->out_fd);
            set_nonblock(s->err_fd);
            s->has_cpu_clock = clock_getcpuclockid(pid, &s->cpu_clock) == 0;
#ifdef SYS_pidfd_open
            s->pidfd = (int)syscall(SYS_pidfd_open, pid, 0); /* close-on-exec by nature */
#endif
        }
        return 0;
    }
    rc = seterr(err, errcap, ENG_EINTERNAL, "no way to start the program");
fail:
    cg_remove(s->cgroup);
    rm_workdir(s->workdir);
    return rc;
}

static sandbox *sandbox_new(const sandbox_limits *lim)
{
    sandbox *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    limits_fill(&s->lim, lim);
    s->in_fd = s->out_fd = s->err_fd = s->pidfd = s->lockfd = -1;
    s->obuf = malloc((size_t)s->lim.max_line + 1);
    if (!s->obuf) {
        free(s);
        return NULL;
    }
    return s;
}

static void sandbox_free(sandbox *s)
{
    close_fd(&s->pidfd);
    close_fd(&s->lockfd);
    close_fd(&s->in_fd);
    close_fd(&s->out_fd);
    close_fd(&s->err_fd);
    free(s->obuf);
    free(s->wq);
    free(s);
}

sandbox *sandbox_start(const sandbox_cmd *cmd, const sandbox_limits *lim, int *code, char *err,
                       size_t errcap)
{
    int dummy;
    if (!code)
        code = &dummy;
    *code = 0;
    if (!cmd || cmd->argc < 1) {
        *code = seterr(err, errcap, ENG_EINVAL, "no command");
        return NULL;
    }
    sandbox *s = sandbox_new(lim);
    if (!s) {
        *code = seterr(err, errcap, ENG_ENOMEM, "out of memory");
        return NULL;
    }
    int rc = start(s, cmd, true, err, errcap);
    if (rc) {
        *code = rc;
        if (s->pid > 0 && !s->reaped) {
            kill(s->pid, SIGKILL);
            waitpid(s->pid, NULL, 0);
        }
        cg_remove(s->cgroup);
        rm_workdir(s->workdir);
        sandbox_free(s);
        return NULL;
    }
    return s;
}

unsigned sandbox_probe(const sandbox_limits *lim)
{
    sandbox *s = sandbox_new(lim);
    if (!s)
        return 0;
    char err[256];
    unsigned p = 0;
    if (start(s, NULL, false, err, sizeof err) == 0) {
        int st;
        waitpid(s->pid, &st, 0);
        p = s->prot;
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
            p = 0;
    }
    cg_remove(s->cgroup);
    rm_workdir(s->workdir);
    sandbox_free(s);
    return p;
}

unsigned sandbox_protections(const sandbox *s)
{
    return s->prot;
}

pid_t sandbox_pid(const sandbox *s)
{
    return s->pid;
}

const char *sandbox_workdir(const sandbox *s)
{
    return s->workdir;
}

/* ---- the end of the process ----------------------------------------------------------- */

/* Kill whatever else the program left: its group and its cgroup. Only while
 * the program's pid is held (alive or a zombie), so the group id cannot
 * name anybody else. */
static void kill_rest(sandbox *s)
{
    if (!(s->prot & SANDBOX_P_PIDNS))
        kill(-s->pid, SIGKILL);
    cg_kill(s->cgroup);
}

static void reap(sandbox *s, int status, const struct rusage *ru)
{
    s->reaped = true;
    s->ru = *ru;
    s->signaled = WIFSIGNALED(status);
    s->sig = s->signaled ? WTERMSIG(status) : 0;
    s->code = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
    s->last_cpu_ms = (double)(ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) * 1e3 +
                     (double)(ru->ru_utime.tv_usec + ru->ru_stime.tv_usec) / 1e3;
}

/* Has the program ended? Reaps it (and kills its leftovers) when it has. */
static bool check_exit(sandbox *s)
{
    if (s->reaped)
        return true;
    if (s->pid <= 0)
        return true;
    siginfo_t info;
    memset(&info, 0, sizeof info);
    if (waitid(P_PID, (id_t)s->pid, &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid == 0)
        return false;
    kill_rest(s);
    int st;
    struct rusage ru;
    pid_t r;
    do
        r = wait4(s->pid, &st, 0, &ru);
    while (r < 0 && errno == EINTR);
    if (r == s->pid)
        reap(s, st, &ru);
    else
        s->reaped = true;
    cg_kill(s->cgroup);
    return true;
}

static void sample_memory(sandbox *s)
{
    double t = now_ms();
    if (t < s->next_sample_ms || s->reaped)
        return;
    s->next_sample_ms = t + SANDBOX_TICK_MS;
    char path[64], line[128];
    snprintf(path, sizeof path, "/proc/%d/status", (int)s->pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "VmPeak:", 7) == 0) {
            long long kb = strtoll(line + 7, NULL, 10);
            if (kb > s->vm_peak_kb)
                s->vm_peak_kb = kb;
            break;
        }
    fclose(f);
}

double sandbox_cpu_ms(sandbox *s)
{
    if (!s->reaped && s->has_cpu_clock) {
        struct timespec ts;
        if (clock_gettime(s->cpu_clock, &ts) == 0) {
            double ms = (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
            if (ms > s->last_cpu_ms)
                s->last_cpu_ms = ms;
        }
    }
    return s->last_cpu_ms;
}

/* ---- I/O ----------------------------------------------------------------------------- */

/* write(2) without SIGPIPE: blocked for this thread around the call, and a
 * SIGPIPE the write raised is taken back. */
static ssize_t write_quiet(int fd, const void *buf, size_t len)
{
    sigset_t pipe_set, old;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    ssize_t n = write(fd, buf, len);
    int e = errno;
    if (n < 0 && e == EPIPE && !sigismember(&old, SIGPIPE)) {
        struct timespec zero = {0, 0};
        sigtimedwait(&pipe_set, NULL, &zero);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = e;
    return n;
}

static void flush_writes(sandbox *s)
{
    while (s->in_fd >= 0 && s->wq_off < s->wq_len) {
        ssize_t n = write_quiet(s->in_fd, s->wq + s->wq_off, s->wq_len - s->wq_off);
        if (n > 0) {
            s->wq_off += (size_t)n;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            return;
        } else {
            close_fd(&s->in_fd); /* EPIPE: the program closed its stdin or ended */
            s->wq_len = s->wq_off = 0;
            return;
        }
    }
    if (s->wq_off == s->wq_len)
        s->wq_len = s->wq_off = 0;
}

int sandbox_send(sandbox *s, const char *buf, size_t len)
{
    if (s->in_fd < 0)
        return ENG_EIO;
    if (s->wq_off > 0 && s->wq_off == s->wq_len)
        s->wq_len = s->wq_off = 0;
    if (s->wq_len - s->wq_off + len > (size_t)s->lim.max_unread)
        return ENG_ETOO_LARGE;
    if (s->wq_off > 0) {
        memmove(s->wq, s->wq + s->wq_off, s->wq_len - s->wq_off);
        s->wq_len -= s->wq_off;
        s->wq_off = 0;
    }
    if (s->wq_len + len > s->wq_cap) {
        size_t cap = s->wq_cap ? s->wq_cap : 4096;
        while (cap < s->wq_len + len)
            cap *= 2;
        char *nq = realloc(s->wq, cap);
        if (!nq)
            return ENG_ENOMEM;
        s->wq = nq;
        s->wq_cap = cap;
    }
    memcpy(s->wq + s->wq_len, buf, len);
    s->wq_len += len;
    flush_writes(s);
    return s->in_fd < 0 ? ENG_EIO : 0;
}

static void ring_push(sandbox *s, const char *p, size_t n)
{
    s->err_total += n;
    if (n >= sizeof s->ring) {
        memcpy(s->ring, p + n - sizeof s->ring, sizeof s->ring);
        s->ring_head = 0;
        s->ring_len = sizeof s->ring;
        return;
    }
    for (size_t i = 0; i < n; i++) {
        size_t at = (s->ring_head + s->ring_len) % sizeof s->ring;
        s->ring[at] = p[i];
        if (s->ring_len < sizeof s->ring)
            s->ring_len++;
        else
            s->ring_head = (s->ring_head + 1) % sizeof s->ring;
    }
}

size_t sandbox_stderr_take(sandbox *s, char *buf, size_t cap, uint64_t *total)
{
    size_t n = s->ring_len < (cap ? cap - 1 : 0) ? s->ring_len : (cap ? cap - 1 : 0);
    size_t skip = s->ring_len - n;
    for (size_t i = 0; i < n; i++)
        buf[i] = s->ring[(s->ring_head + skip + i) % sizeof s->ring];
    if (cap)
        buf[n] = 0;
    if (total)
        *total = s->err_total;
    s->ring_len = s->ring_head = 0;
    s->err_total = 0;
    return n;
}

static void read_stderr(sandbox *s)
{
    char buf[16384];
    while (s->err_fd >= 0) {
        ssize_t n = read(s->err_fd, buf, sizeof buf);
        if (n > 0) {
            ring_push(s, buf, (size_t)n);
            s->win_err += (uint64_t)n;
            if (s->win_err > (uint64_t)s->lim.max_stderr) {
                s->flood = true;
                return;
            }
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            return;
        } else {
            close_fd(&s->err_fd);
        }
    }
}

/* Drop the line handed out last. */
static void drop_consumed(sandbox *s)
{
    if (!s->consumed)
        return;
    /* no copy per line: a program printing a megabyte of empty lines would
     * cost a copy of the buffer each (read_stdout moves the rest, once) */
    s->ooff += s->consumed;
    s->olen -= s->consumed;
    s->consumed = 0;
    if (!s->olen)
        s->ooff = 0;
}

static void read_stdout(sandbox *s)
{
    size_t cap = (size_t)s->lim.max_line;
    if (s->ooff) {
        memmove(s->obuf, s->obuf + s->ooff, s->olen);
        s->ooff = 0;
    }
    while (s->out_fd >= 0 && s->olen < cap) {
        ssize_t n = read(s->out_fd, s->obuf + s->olen, cap - s->olen);
        if (n > 0) {
            s->win_out += (uint64_t)n;
            if (s->win_out > (uint64_t)s->lim.max_stdout)
                s->flood = true;
            if (s->skipping) {
                /* the rest of an overlong line: drop up to its newline */
                char *nl = memchr(s->obuf, '\n', (size_t)n);
                if (!nl)
                    continue;
                size_t keep = (size_t)n - (size_t)(nl + 1 - s->obuf);
                memmove(s->obuf, nl + 1, keep);
                s->olen = keep;
                s->skipping = false;
                continue;
            }
            s->olen += (size_t)n;
            if (memchr(s->obuf + s->olen - (size_t)n, '\n', (size_t)n))
                return; /* a line is complete: enough for now */
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            return;
        } else {
            close_fd(&s->out_fd);
        }
    }
}

/* One round: wait up to wait_ms for something to do, then do it. */
static void io_round(sandbox *s, double wait_ms)
{
    struct pollfd p[4];
    int n = 0, io = -1, oo = -1, eo = -1;
    if (s->pidfd >= 0 && !s->reaped)
        p[n++] = (struct pollfd){.fd = s->pidfd, .events = POLLIN}; /* the end */
    if (s->out_fd >= 0 && s->olen < (size_t)s->lim.max_line) {
        oo = n;
        p[n++] = (struct pollfd){.fd = s->out_fd, .events = POLLIN};
    }
    if (s->err_fd >= 0) {
        eo = n;
        p[n++] = (struct pollfd){.fd = s->err_fd, .events = POLLIN};
    }
    if (s->in_fd >= 0 && s->wq_len > s->wq_off) {
        io = n;
        p[n++] = (struct pollfd){.fd = s->in_fd, .events = POLLOUT};
    }
    int ms = wait_ms <= 0                ? 0
             : wait_ms > SANDBOX_TICK_MS ? SANDBOX_TICK_MS
                                         : (int)(wait_ms + 0.999);
    if (n == 0) {
        if (ms > 0) {
            struct timespec ts = {0, (long)ms * 1000000L};
            nanosleep(&ts, NULL);
        }
        return;
    }
    int r = poll(p, (nfds_t)n, ms);
    if (r <= 0)
        return;
    if (eo >= 0 && p[eo].revents)
        read_stderr(s);
    if (oo >= 0 && p[oo].revents)
        read_stdout(s);
    if (io >= 0 && p[io].revents)
        flush_writes(s);
}

/* A complete line at the start of obuf: its length (without '\n'), or -1. */
static ssize_t line_ready(sandbox *s)
{
    char *nl = memchr(s->obuf + s->ooff, '\n', s->olen);
    return nl ? nl - (s->obuf + s->ooff) : -1;
}

static void hand_out(sandbox *s, size_t n, bool had_newline, const char **line, size_t *len)
{
    char *p = s->obuf + s->ooff;
    s->consumed = n + (had_newline ? 1 : 0);
    if (n && p[n - 1] == '\r')
        n--;
    /* the newline (or the byte after the last one) becomes the NUL */
    p[n] = 0;
    *line = p;
    *len = n;
}

sandbox_event sandbox_read_line(sandbox *s, double deadline_ms, const atomic_bool *stop,
                                const char **line, size_t *len)
{
    *line = NULL;
    *len = 0;
    drop_consumed(s);
    for (;;) {
        ssize_t n = line_ready(s);
        if (n >= 0) {
            hand_out(s, (size_t)n, true, line, len);
            return SANDBOX_LINE;
        }
        if (s->flood)
            return SANDBOX_FLOOD;
        if (s->olen >= (size_t)s->lim.max_line) {
            s->olen = s->ooff = 0;
            s->skipping = true;
            return SANDBOX_LONG_LINE;
        }
        if (s->out_fd < 0) {
            if (s->olen > 0) {
                /* the last line, without its newline, before stdout closed */
                hand_out(s, s->olen, false, line, len);
                return SANDBOX_LINE;
            }
            /* stdout is closed: the program ended, or will not speak again */
            if (check_exit(s)) {
                read_stderr(s);
                return SANDBOX_EXITED;
            }
            return SANDBOX_CLOSED;
        }
        if (stop && atomic_load(stop))
            return SANDBOX_STOPPED;
        double t = now_ms();
        if (t >= deadline_ms)
            return SANDBOX_TIMEOUT;
        io_round(s, deadline_ms - t);
        sample_memory(s);
        if (s->out_fd >= 0 && !s->reaped && line_ready(s) < 0) {
            /* ended without closing stdout (a leftover child holds it)? */
            if (check_exit(s)) {
                read_stdout(s);
                read_stderr(s);
                if (line_ready(s) < 0 && s->olen == 0) {
                    close_fd(&s->out_fd);
                    return SANDBOX_EXITED;
                }
            }
        }
    }
}

/* Drop the complete lines (and an overlong one) read outside a turn.
 * Returns whether anything was dropped. */
static bool drop_strays(sandbox *s)
{
    bool any = false;
    ssize_t n;
    while ((n = line_ready(s)) >= 0) {
        if (s->strays++ == 0)
            snprintf(s->stray_first, sizeof s->stray_first, "%.*s", (int)(n < 40 ? n : 40),
                     s->obuf + s->ooff);
        s->consumed = (size_t)n + 1;
        drop_consumed(s);
        any = true;
    }
    if (s->olen >= (size_t)s->lim.max_line) {
        if (s->strays++ == 0)
            snprintf(s->stray_first, sizeof s->stray_first, "%.40s", s->obuf + s->ooff);
        s->olen = s->ooff = 0;
        s->skipping = true;
        any = true;
    }
    return any;
}

sandbox_event sandbox_pump(sandbox *s, double until_ms)
{
    drop_consumed(s);
    for (;;) {
        for (int i = 0; i < 64; i++) {
            read_stdout(s);
            if (!drop_strays(s))
                break;
        }
        read_stderr(s);
        flush_writes(s);
        if (s->flood)
            return SANDBOX_FLOOD;
        bool ended = check_exit(s);
        bool writing = s->in_fd >= 0 && s->wq_len > s->wq_off;
        double t = now_ms();
        if (!writing || t >= until_ms)
            return ended ? SANDBOX_EXITED : SANDBOX_TIMEOUT;
        io_round(s, until_ms - t);
    }
}

int sandbox_strays(sandbox *s, char *buf, size_t cap)
{
    int n = s->strays;
    if (cap) {
        size_t o = 0;
        for (size_t i = 0; s->stray_first[i] && o + 1 < cap; i++) {
            unsigned char ch = (unsigned char)s->stray_first[i];
            buf[o++] = ch >= 0x20 && ch < 0x7f ? (char)ch : '?';
        }
        buf[o] = 0;
    }
    s->strays = 0;
    s->stray_first[0] = 0;
    return n;
}

void sandbox_close_stdin(sandbox *s)
{
    close_fd(&s->in_fd);
    s->wq_len = s->wq_off = 0;
}

void sandbox_new_window(sandbox *s)
{
    s->win_out = s->win_err = 0;
    s->flood = false;
}

bool sandbox_wait_exit(sandbox *s, double deadline_ms)
{
    for (;;) {
        drop_consumed(s);
        s->olen = s->ooff = 0; /* stdout is not read any more: dropped */
        if (check_exit(s)) {
            read_stderr(s);
            return true;
        }
        double t = now_ms();
        if (t >= deadline_ms)
            return false;
        io_round(s, deadline_ms - t);
        sample_memory(s);
    }
}

void sandbox_kill(sandbox *s)
{
    if (!s || s->reaped || s->pid <= 0)
        return;
    siginfo_t info;
    memset(&info, 0, sizeof info);
    bool running =
        waitid(P_PID, (id_t)s->pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == 0;
    if (running) {
        s->killed = true;
        sandbox_cpu_ms(s); /* the last live reading */
    }
    kill(s->pid, SIGKILL);
    kill_rest(s);
    int st;
    struct rusage ru;
    pid_t r;
    do
        r = wait4(s->pid, &st, 0, &ru);
    while (r < 0 && errno == EINTR);
    if (r == s->pid)
        reap(s, st, &ru);
    else
        s->reaped = true;
    cg_kill(s->cgroup);
    /* what it wrote before it died */
    read_stdout(s);
    read_stderr(s);
}

void sandbox_get_status(sandbox *s, sandbox_status *out)
{
    memset(out, 0, sizeof *out);
    check_exit(s);
    out->running = !s->reaped;
    out->exited = s->reaped;
    out->signaled = s->signaled;
    out->signal = s->sig;
    out->code = s->code;
    out->killed = s->killed;
    out->start_failed = s->start_failed;
    snprintf(out->start_error, sizeof out->start_error, "%s", s->start_error);
    out->cpu_ms = sandbox_cpu_ms(s);
    out->maxrss_kb = s->reaped ? s->ru.ru_maxrss : 0;
    out->vm_peak_kb = s->vm_peak_kb;
    out->wall_ms = now_ms() - s->start_ms;
}

void sandbox_destroy(sandbox *s, int grace_ms)
{
    if (!s)
        return;
    if (!s->reaped && s->pid > 0) {
        close_fd(&s->in_fd); /* EOF: the program's cue to end */
        s->wq_len = s->wq_off = 0;
        if (grace_ms > 0)
            sandbox_wait_exit(s, now_ms() + grace_ms);
        sandbox_kill(s);
    }
    cg_remove(s->cgroup);
    rm_workdir(s->workdir);
    sandbox_free(s);
}
