/*
 * sandbox.c — untrusted programs, isolated and under limits (contract in
 * sandbox.h).
 *
 * Starting. Everything the child needs (argv, environment, limits, the
 * cgroup, bubblewrap's arguments and the seccomp filter in memory files) is
 * prepared before the fork, so that the child only makes system calls
 * between the fork and execve. The fork is a raw clone(2): the child of a
 * process with many threads is a copy of one, and it calls no glibc
 * function that takes a lock (no malloc, no stdio, the id changes as raw
 * system calls). The child waits on a pipe until we have put it into its
 * cgroup; a second pipe (close-on-exec) carries the step and errno of a
 * failure before execve back to us, or nothing when execve worked. The
 * child then becomes the pool's uid (as root), sets its rlimits and
 * no_new_privs, and executes bubblewrap, which builds the namespaces and
 * the view of the files (jail.c) and executes the program inside them, with
 * the seccomp filter loaded last. Our child stays bubblewrap's monitor
 * (outside the namespaces); the program is process 2 of its PID namespace,
 * under bubblewrap's small init, so its signals behave as anywhere
 * (abort() is SIGABRT).
 *
 * Why not our own clone(CLONE_NEW*) as before: bubblewrap is the well-kept
 * tool for exactly this (docs/stdio.md). What stays ours: the cgroup
 * (bubblewrap has none), the uid pool, the rlimits, the I/O and the
 * verdicts.
 *
 * What the machine gives is found once per process (machine.c: the cgroup
 * functions, libseccomp's filter, the uid pool as root, and whether
 * bubblewrap can build its sandbox here, by starting one through
 * sandbox__probe_jail: `bwrap --version` inside). What is missing is said in
 * one message, and no program starts, unless the operator opted out; then a
 * program runs with what there is: bubblewrap without a cgroup, or —
 * without bubblewrap — a plain child with rlimits, the uid change, the
 * seccomp filter (which also refuses internet sockets, there being no
 * network namespace) and a working directory of its own in TMPDIR.
 *
 * Exit statuses: bubblewrap reports a program killed by signal N as exit
 * status 128+N; such a status is read back as that signal (a program
 * exiting with status 139 of its own accord is read as a SIGSEGV: both
 * are a crash). When bubblewrap itself fails it prints "bwrap: ..." and
 * exits 1, which reads as the program's crash with that line — once the
 * probe has shown bubblewrap works here, only a broken program (a script
 * whose interpreter is missing) or an exhausted machine gets there.
 *
 * Ending. The exit is noticed with waitid(WNOWAIT) so that the zombie still
 * holds its pid while we kill its process group and cgroup (no pid reuse
 * can redirect the kill), then reaped with wait4.
 */
#define _GNU_SOURCE
#include "sandbox.h"

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/seccomp.h>

#include "cgroup.h"
#include "engine/errors.h"
#include "jail.h"
#include "sandbox_int.h"

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

/* ---- the working directory (without bubblewrap) ---------------------------------------- */

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
 * them, once per process: a live sandbox holds a lock on its directory, so
 * a directory nobody holds is stale. */
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

/* Descriptors above this are free in the child while it moves its own
 * (0, 1, 2 and bubblewrap's 3, 4 are being filled). */
#define CHILD_HIGH_FD 16

/* Everything the child uses, prepared before the fork. */
typedef struct child_args {
    const char *path;
    char *const *argv;
    char *const *envp;
    const char *workdir;
    int in_r, out_w, err_w; /* become 0, 1, 2 */
    int extra[2];           /* bubblewrap: its arguments and the filter, become 3 and 4 */
    int nextra;
    int sync_r;   /* one byte: go */
    int sync_w;   /* its other end: the child closes its copy */
    int status_w; /* close-on-exec: a failure report, or nothing */
    struct rlimit rl_cpu, rl_as, rl_fsize, rl_nofile, rl_nproc;
    bool set_nproc;
    bool drop; /* root: become uid/gid */
    uid_t uid;
    gid_t gid;
    const struct sock_fprog *seccomp; /* without bubblewrap: loaded here */
    bool exec;                        /* false: a probe, _exit(0) after the setup */
} child_args;

static void child_fail(int status_w, int step) __attribute__((noreturn));
static void child_fail(int status_w, int step)
{
    int msg[2] = {step, errno};
    ssize_t w = write(status_w, msg, sizeof msg);
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
    int status_w = a->status_w;
    char go;
    if (read(a->sync_r, &go, 1) != 1)
        child_fail(status_w, STEP_SYNC);
    if (setsid() < 0)
        child_fail(status_w, STEP_SETSID);

    /* every descriptor we keep above CHILD_HIGH_FD first, then into place */
    int fds[5] = {a->in_r, a->out_w, a->err_w, a->extra[0], a->extra[1]};
    int nfds = 3 + a->nextra;
    for (int i = 0; i < nfds; i++)
        if (fds[i] < CHILD_HIGH_FD &&
            (fds[i] = fcntl(fds[i], F_DUPFD_CLOEXEC, CHILD_HIGH_FD)) < 0)
            child_fail(status_w, STEP_FDS);
    if (status_w < CHILD_HIGH_FD &&
        (status_w = fcntl(status_w, F_DUPFD_CLOEXEC, CHILD_HIGH_FD)) < 0)
        child_fail(a->status_w, STEP_FDS);
    for (int i = 0; i < nfds; i++)
        if (dup2(fds[i], i) < 0) /* dup2 clears close-on-exec on the copy */
            child_fail(status_w, STEP_FDS);
    /* nothing else crosses execve (status_w is close-on-exec) */
    if (syscall(SYS_close_range, nfds, status_w - 1, 0) != 0 ||
        syscall(SYS_close_range, status_w + 1, ~0U, 0) != 0) {
        for (int fd = nfds; fd < 65536; fd++)
            if (fd != status_w)
                close(fd);
    }
    if (chdir(a->workdir) != 0)
        child_fail(status_w, STEP_CHDIR);

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
    if (setrlimit(RLIMIT_CORE, &zero) || setrlimit(RLIMIT_CPU, &a->rl_cpu) ||
        setrlimit(RLIMIT_AS, &a->rl_as) || setrlimit(RLIMIT_FSIZE, &a->rl_fsize) ||
        setrlimit(RLIMIT_NOFILE, &a->rl_nofile))
        child_fail(status_w, STEP_RLIMIT);
    if (a->set_nproc && setrlimit(RLIMIT_NPROC, &a->rl_nproc))
        child_fail(status_w, STEP_RLIMIT);
    if (a->drop) {
        /* raw system calls: glibc's wrappers would ask the parent's other
         * threads (which the child does not have) to change their ids too */
        if (syscall(SYS_setgroups, 0, NULL) || syscall(SYS_setresgid, a->gid, a->gid, a->gid) ||
            syscall(SYS_setresuid, a->uid, a->uid, a->uid))
            child_fail(status_w, STEP_UID);
    }
    /* dies with the thread that started it, even when that is killed -9
     * (set after the id change, which clears it) */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
        child_fail(status_w, STEP_PRIVS);
    if (a->seccomp && prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, a->seccomp))
        child_fail(status_w, STEP_SECCOMP);
    if (!a->exec)
        _exit(0);
    execve(a->path, a->argv, a->envp);
    child_fail(status_w, STEP_EXEC);
}

/* ---- the sandbox ------------------------------------------------------------------------ */

struct sandbox {
    sandbox_limits lim;
    pid_t pid;   /* our child: bubblewrap's monitor, or the program itself */
    int pidfd;   /* readable once it has ended (pidfd_open); -1 without */
    int lockfd;  /* the working directory (no bubblewrap), flock'ed while we live */
    unsigned prot;             /* SANDBOX_P_* in force */
    bool jailed;               /* in bubblewrap: 128+N exit statuses are signals */
    int in_fd, out_fd, err_fd; /* our ends; -1 once closed */
    cgroup *cg;                /* NULL without */
    uid_t uid;                 /* root: the pool's uid it runs as */
    int uid_lock;              /* holds that uid; -1 */
    char workdir[PATH_MAX];    /* without bubblewrap: its folder here ("" with it) */
    double start_ms;
    double cpu_limit_ms; /* SANDBOX_CPU_LIMIT at this CPU time; 0: none */
    double next_cpu_check_ms;
    bool paused;

    /* the end */
    bool reaped, signaled, killed;
    int sig, code;
    struct rusage ru;
    bool start_failed;
    char start_error[160];
    int64_t vm_peak_kb; /* sampled, without a memory cgroup */
    double next_sample_ms;
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

/* A memory file holding len bytes (close-on-exec; the child's dup2 makes
 * its copy inheritable). -1 on failure. */
static int memfile(const char *name, const void *data, size_t len)
{
    int fd = memfd_create(name, MFD_CLOEXEC);
    if (fd < 0)
        return -1;
    const char *p = data;
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w <= 0) {
            close(fd);
            return -1;
        }
        p += w;
        len -= (size_t)w;
    }
    if (lseek(fd, 0, SEEK_SET) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Start the program (cmd; NULL: bubblewrap's --version, or with exec
 * false a child that stops before execve) with the protections `use`
 * (bubblewrap when P_JAIL is among them). */
static int start(sandbox *s, const sandbox_cmd *cmd, unsigned use, bool exec, char *err,
                 size_t errcap)
{
    const sandbox_limits *l = &s->lim;
    bool root = geteuid() == 0;
    bool jail = (use & P_JAIL) == P_JAIL && jail_bwrap();
    int rc = ENG_EINTERNAL;
    int args_fd = -1, filter_fd = -1;
    textbuf args = TEXTBUF_INIT, command = TEXTBUF_INIT;
    unsigned prot = P_ALWAYS;

    /* the cgroup */
    unsigned fns = sandbox__prot_to_cg(use);
    if (fns) {
        cg_limits cl = {.cpu_pct = l->cpu_pct, .memory_mb = l->memory_mb,
                        .max_tasks = l->max_tasks + (jail ? 2 : 0)}; /* bubblewrap's two */
        s->cg = cg_create(fns, &cl, err, errcap);
        if (!s->cg)
            goto fail;
        prot |= sandbox__cg_to_prot(cg_functions(s->cg));
    }

    /* the uid (root): never root's own */
    s->uid = 65534; /* nobody, when the pool is not used (an explicit opt-out) */
    if (root && (use & SANDBOX_P_POOL_UID)) {
        if ((rc = jail_uid_take(&s->uid, &s->uid_lock, err, errcap)))
            goto fail;
        prot |= SANDBOX_P_POOL_UID;
    }
    rc = ENG_EINTERNAL;

    /* the seccomp filter */
    const struct sock_fprog *filter = NULL;
    if (use & SANDBOX_P_SECCOMP) {
        filter = jail_seccomp(err, errcap);
        if (!filter)
            goto fail;
        prot |= SANDBOX_P_SECCOMP;
    }

    /* bubblewrap's arguments, or the working directory */
    char *bw_argv[SANDBOX_MAX_ARGS + 8] = {"bwrap", "--args", "3", "--", NULL};
    char *const bw_envp[] = {"PATH=/usr/bin:/bin", NULL};
    char env_home[PATH_MAX + 8];
    char env_py[sizeof cmd->pypath + 16];
    snprintf(env_py, sizeof env_py, "PYTHONPATH=%s", cmd ? cmd->pypath : "");
    char *envp[] = {"PATH=/usr/local/bin:/usr/bin:/bin", env_home, "LANG=C.UTF-8",
                    cmd && cmd->pypath[0] ? env_py : NULL, NULL};
    if (jail) {
        if (filter &&
            (filter_fd = memfile("tessera-filter", filter->filter,
                                 (size_t)filter->len * sizeof filter->filter[0])) < 0) {
            rc = seterr(err, errcap, ENG_EINTERNAL, "memfd: %s", strerror(errno));
            goto fail;
        }
        if (!filter) {
            rc = seterr(err, errcap, ENG_EINTERNAL, "bubblewrap without the seccomp filter");
            goto fail;
        }
        if ((rc = jail_bwrap_args(cmd, l, 4, &args, &command, err, errcap)))
            goto fail;
        /* bwrap --args 3 -- COMMAND...: the words point into command */
        int nw = 0;
        for (size_t o = 0; o < command.len && nw < SANDBOX_MAX_ARGS + 1; o += strlen(command.p + o) + 1)
            bw_argv[4 + nw++] = command.p + o;
        bw_argv[4 + nw] = NULL;
        rc = ENG_EINTERNAL;
        if ((args_fd = memfile("tessera-bwrap", args.p, args.len)) < 0) {
            rc = seterr(err, errcap, ENG_EINTERNAL, "memfd: %s", strerror(errno));
            goto fail;
        }
        prot |= P_JAIL;
    } else {
        const char *tmp = getenv("TMPDIR");
        if (!tmp || tmp[0] != '/' || strlen(tmp) > 200)
            tmp = "/tmp";
        stale_tmp = tmp;
        pthread_once(&stale_once, clean_stale);
        snprintf(s->workdir, sizeof s->workdir, "%s/tessera-bot-XXXXXX", tmp);
        if (!mkdtemp(s->workdir)) {
            s->workdir[0] = 0;
            rc = seterr(err, errcap, ENG_EINTERNAL, "cannot make a working directory in %s: %s",
                        tmp, strerror(errno));
            goto fail;
        }
        /* held while the sandbox lives: a directory nobody holds is stale */
        s->lockfd = open(s->workdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (s->lockfd >= 0)
            flock(s->lockfd, LOCK_SH);
        if (root && chown(s->workdir, s->uid, s->uid) != 0) {
            rc = seterr(err, errcap, ENG_EINTERNAL, "chown of the working directory: %s",
                        strerror(errno));
            goto fail;
        }
        snprintf(env_home, sizeof env_home, "HOME=%s", s->workdir);
    }

    child_args a;
    memset(&a, 0, sizeof a);
    a.exec = exec;
    a.drop = root;
    a.uid = s->uid;
    a.gid = (gid_t)s->uid;
    if (jail) {
        a.path = jail_bwrap();
        a.argv = bw_argv;
        a.envp = bw_envp;
        a.workdir = "/";
        a.extra[0] = args_fd;
        a.extra[1] = filter_fd;
        a.nextra = 2;
    } else {
        a.path = cmd ? cmd->path : "/";
        a.argv = cmd ? cmd->argv : NULL;
        a.envp = envp;
        a.workdir = s->workdir;
        a.seccomp = filter;
    }
    rlim_t cpu = (rlim_t)l->cpu_s;
    a.rl_cpu = (struct rlimit){cpu, cpu + 1};
    rlim_t as = l->as_mb < 0 && (prot & SANDBOX_P_MEMORY) ? RLIM_INFINITY
                : (rlim_t)(l->as_mb > 0 ? l->as_mb : l->memory_mb) << 20;
    a.rl_as = (struct rlimit){as, as};
    a.rl_fsize = (struct rlimit){(rlim_t)l->file_mb << 20, (rlim_t)l->file_mb << 20};
    a.rl_nofile = (struct rlimit){(rlim_t)l->max_files, (rlim_t)l->max_files};
    /* RLIMIT_NPROC where no pids cgroup counts the tasks: exact in a user
     * namespace; per user otherwise (on top of what it runs already) */
    if (!(prot & SANDBOX_P_PIDS) && !(l->disable & SANDBOX_P_NPROC)) {
        rlim_t nproc = (rlim_t)l->max_tasks + (jail ? 2 : 0);
        if (!root && !jail)
            nproc += (rlim_t)user_tasks(getuid());
        a.set_nproc = true;
        a.rl_nproc = (struct rlimit){nproc, nproc};
        prot |= SANDBOX_P_NPROC;
    }

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
    pid_t pid = (pid_t)syscall(SYS_clone, SIGCHLD, NULL, NULL, NULL, NULL);
    if (pid == 0)
        child_main(&a);
    int clone_errno = errno;
    close(in[0]);
    close(out[1]);
    close(er[1]);
    close(sync[0]);
    close(status[1]);
    close_fd(&args_fd);
    close_fd(&filter_fd);
    if (pid < 0) {
        close(in[1]);
        close(out[0]);
        close(er[0]);
        close(sync[1]);
        close(status[0]);
        rc = seterr(err, errcap, ENG_EINTERNAL, "clone: %s", strerror(clone_errno));
        goto fail;
    }
    s->pid = pid;
    s->in_fd = in[1];
    s->out_fd = out[0];
    s->err_fd = er[0];
    s->jailed = jail;
    /* into its cgroup before it goes on: all it starts is there too */
    int jrc = s->cg ? cg_join(s->cg, pid) : 0;
    if (jrc == 0 && write(sync[1], "g", 1) != 1)
        jrc = -EPIPE;
    close(sync[1]);
    if (jrc != 0) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        s->reaped = true;
        close(status[0]);
        rc = seterr(err, errcap, ENG_EINTERNAL, "cannot put the program into its cgroup: %s",
                    strerror(-jrc));
        goto fail;
    }
    /* execve worked when the status pipe closes without a word */
    int msg[2];
    ssize_t got;
    do
        got = read(status[0], msg, sizeof msg);
    while (got < 0 && errno == EINTR);
    close(status[0]);
    s->start_ms = now_ms();
    s->prot = prot;
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
        /* a failure before the program's own execve is ours (the machine),
         * after it the program's */
        rc = seterr(err, errcap, step == STEP_EXEC && !jail ? ENG_EIO : ENG_EINTERNAL,
                    "could not start %s: %s", cmd ? cmd->argv[0] : "the probe", s->start_error);
        goto fail;
    }
    if (exec) {
        set_nonblock(s->in_fd);
        set_nonblock(s->out_fd);
        set_nonblock(s->err_fd);
#ifdef SYS_pidfd_open
        s->pidfd = (int)syscall(SYS_pidfd_open, pid, 0); /* close-on-exec by nature */
#endif
    }
    tb_free(&args);
    tb_free(&command);
    return 0;
fail:
    close_fd(&args_fd);
    close_fd(&filter_fd);
    tb_free(&args);
    tb_free(&command);
    return rc;
}

/* A sandbox's state, checked at every public transition in a debug build
 * (a release build compiles this to nothing): its buffers within bounds,
 * frozen only while alive in a cgroup, a pool uid held only with that
 * protection, the namespaces only together, the end only after a start. */
static void sandbox_check_state(const sandbox *s)
{
#ifndef NDEBUG
    assert(s && s->obuf && s->lim.max_line > 0);
    assert(s->ooff + s->olen <= (size_t)s->lim.max_line + 1);
    assert(s->consumed <= s->olen + s->ooff);
    assert(s->ring_len <= sizeof s->ring && s->ring_head < sizeof s->ring);
    assert(s->wq_off <= s->wq_len && s->wq_len <= s->wq_cap);
    assert(!s->paused || (s->cg && !s->reaped));
    assert(s->uid_lock < 0 || (s->prot & SANDBOX_P_POOL_UID));
    assert(!s->jailed || (s->prot & P_JAIL) == P_JAIL);
    assert(!(s->prot & P_CGROUP) || s->cg);
    assert(!s->reaped || s->pid > 0 || s->start_failed);
    assert(!s->killed || s->pid > 0);
#else
    (void)s;
#endif
}

static sandbox *sandbox_new(const sandbox_limits *lim)
{
    sandbox *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    sandbox__limits_fill(&s->lim, lim);
    s->in_fd = s->out_fd = s->err_fd = s->pidfd = s->lockfd = s->uid_lock = -1;
    s->obuf = malloc((size_t)s->lim.max_line + 1);
    if (!s->obuf) {
        free(s);
        return NULL;
    }
    return s;
}

static void sandbox_free(sandbox *s)
{
    cg_destroy(s->cg);
    s->cg = NULL;
    jail_uid_give(s->uid, s->uid_lock);
    s->uid_lock = -1;
    rm_workdir(s->workdir);
    close_fd(&s->pidfd);
    close_fd(&s->lockfd);
    close_fd(&s->in_fd);
    close_fd(&s->out_fd);
    close_fd(&s->err_fd);
    free(s->obuf);
    free(s->wq);
    free(s);
}

/* ---- what the machine gives: machine.c ------------------------------------------- */

int sandbox__probe_jail(unsigned use, char *said, size_t cap)
{
    sandbox *s = sandbox_new(NULL);
    if (!s)
        return seterr(said, cap, ENG_ENOMEM, "out of memory");
    int rc = start(s, NULL, use, true, said, cap);
    if (rc == 0) {
        const char *line = NULL;
        size_t len;
        double deadline = now_ms() + 10000;
        sandbox_event ev = sandbox_read_line(s, deadline, NULL, &line, &len);
        bool printed = ev == SANDBOX_LINE && strncmp(line, "bubblewrap", 10) == 0;
        bool ended = sandbox_wait_exit(s, deadline);
        sandbox_status st;
        sandbox_get_status(s, &st);
        if (!printed || !ended || st.signaled || st.code != 0) {
            char tail[PLAYER_STDERR_KEEP];
            sandbox_stderr_take(s, tail, sizeof tail, NULL);
            const char *b = strstr(tail, "bwrap:");
            snprintf(said, cap, "%.500s",
                     b         ? b
                     : tail[0] ? tail
                     : ended   ? "bwrap: it failed without a word"
                               : "bwrap: it did not end in 10 s");
            rc = ENG_EINTERNAL;
        }
    }
    sandbox_destroy(s, 0);
    return rc;
}

/* Start cmd under l (filled) with the protections use, which machine.c's
 * sandbox_start decided (sandbox_int.h). */
sandbox *sandbox__start(const sandbox_cmd *cmd, const sandbox_limits *l, unsigned use, int *code,
                        char *err, size_t errcap)
{
    sandbox *s = sandbox_new(l);
    if (!s) {
        *code = seterr(err, errcap, ENG_ENOMEM, "out of memory");
        return NULL;
    }
    int rc = start(s, cmd, use, true, err, errcap);
    if (rc) {
        *code = rc;
        if (s->pid > 0 && !s->reaped) {
            kill(s->pid, SIGKILL);
            waitpid(s->pid, NULL, 0);
        }
        sandbox_free(s);
        return NULL;
    }
    return s;
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
    return s->jailed ? SANDBOX_HOME : s->workdir;
}

void sandbox_pause(sandbox *s)
{
    if (s)
        sandbox_check_state(s);
    if (s && s->cg && !s->reaped) {
        cg_freeze(s->cg, true);
        s->paused = true;
    }
}

void sandbox_resume(sandbox *s)
{
    if (s)
        sandbox_check_state(s);
    if (s && s->cg && s->paused) {
        cg_freeze(s->cg, false);
        s->paused = false;
    }
}

void sandbox_set_cpu_limit(sandbox *s, double cpu_ms)
{
    s->cpu_limit_ms = cpu_ms > 0 ? cpu_ms : 0;
}

/* ---- the end of the process ----------------------------------------------------------- */

/* Kill whatever else the program left: its group and its cgroup. Only while
 * the program's pid is held (alive or a zombie), so the group id cannot
 * name anybody else. */
static void kill_rest(sandbox *s)
{
    kill(-s->pid, SIGKILL);
    cg_kill(s->cg);
    s->paused = false; /* cg_kill thaws */
}

static void reap(sandbox *s, int status, const struct rusage *ru)
{
    s->reaped = true;
    s->ru = *ru;
    s->signaled = WIFSIGNALED(status);
    s->sig = s->signaled ? WTERMSIG(status) : 0;
    s->code = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
    if (s->jailed && !s->signaled && s->code > 128 && s->code < 128 + NSIG) {
        /* bubblewrap's way of saying "killed by signal code-128" */
        s->signaled = true;
        s->sig = s->code - 128;
        s->code = 0;
    }
    double ms = (double)(ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) * 1e3 +
                (double)(ru->ru_utime.tv_usec + ru->ru_stime.tv_usec) / 1e3;
    if (ms > s->last_cpu_ms)
        s->last_cpu_ms = ms;
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
    sandbox_cpu_ms(s); /* the last reading with every process counted */
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
    return true;
}

/* Peak address space of the program's process (no memory cgroup, no
 * bubblewrap: our child is the program). */
static void sample_memory(sandbox *s)
{
    double t = now_ms();
    if (t < s->next_sample_ms || s->reaped || s->jailed || (s->prot & SANDBOX_P_MEMORY))
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

/* CPU time of process root and every live process below it, with what
 * each has reaped (utime + stime + cutime + cstime from /proc), ms. */
static double tree_cpu_ms(pid_t root)
{
    typedef struct {
        int pid, ppid;
        double ticks;
    } proc;
    size_t n = 0, cap = 256;
    proc *ps = malloc(cap * sizeof *ps);
    DIR *d = opendir("/proc");
    struct dirent *e;
    while (ps && d && (e = readdir(d)) != NULL) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        char path[300], buf[1024];
        snprintf(path, sizeof path, "/proc/%.256s/stat", e->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        ssize_t len = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (len <= 0)
            continue;
        buf[len] = 0;
        char *rp = strrchr(buf, ')'); /* the name may hold spaces and parentheses */
        int ppid;
        unsigned long long ut, st, cut, cst;
        if (!rp || sscanf(rp + 2, "%*c %d %*s %*s %*s %*s %*s %*s %*s %*s %*s %llu %llu %llu %llu",
                          &ppid, &ut, &st, &cut, &cst) != 5)
            continue;
        if (n == cap) {
            proc *more = realloc(ps, (cap *= 2) * sizeof *ps);
            if (!more)
                break;
            ps = more;
        }
        ps[n++] = (proc){atoi(e->d_name), ppid, (double)(ut + st + cut + cst)};
    }
    if (d)
        closedir(d);
    double ticks = 0;
    if (ps) {
        /* the tree, by marking descendants until nothing changes */
        bool *in = calloc(n ? n : 1, sizeof *in);
        for (size_t i = 0; in && i < n; i++)
            in[i] = ps[i].pid == root;
        for (bool grew = true; in && grew;) {
            grew = false;
            for (size_t i = 0; i < n; i++)
                for (size_t j = 0; !in[i] && j < n; j++)
                    if (in[j] && ps[i].ppid == ps[j].pid)
                        in[i] = grew = true;
        }
        for (size_t i = 0; in && i < n; i++)
            if (in[i])
                ticks += ps[i].ticks;
        free(in);
    }
    free(ps);
    return ticks * 1e3 / (double)sysconf(_SC_CLK_TCK);
}

double sandbox_cpu_ms(sandbox *s)
{
    if (s->cg && (s->prot & SANDBOX_P_CPUACCT)) {
        double ms = cg_cpu_ms(s->cg);
        if (ms > s->last_cpu_ms)
            s->last_cpu_ms = ms;
    } else if (!s->reaped && s->pid > 0) {
        double ms = tree_cpu_ms(s->pid);
        if (ms > s->last_cpu_ms)
            s->last_cpu_ms = ms;
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
    sandbox_check_state(s);
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

void sandbox_note(sandbox *s, const char *text)
{
    ring_push(s, SANDBOX_NOTE_PREFIX, strlen(SANDBOX_NOTE_PREFIX));
    ring_push(s, text, strlen(text));
    ring_push(s, "\n", 1);
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
    sandbox_check_state(s);
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
        if (s->cpu_limit_ms > 0 && t >= s->next_cpu_check_ms) {
            /* a cgroup's count is one read; without one, /proc is walked:
             * ten times less often */
            s->next_cpu_check_ms = t + (s->prot & SANDBOX_P_CPUACCT ? 0 : 10 * SANDBOX_TICK_MS);
            if (sandbox_cpu_ms(s) >= s->cpu_limit_ms)
                return SANDBOX_CPU_LIMIT;
        }
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

/* Bytes written to the program's stdin that it has not read yet (in the
 * pipe, and queued behind it). */
static size_t unread(sandbox *s)
{
    int n = 0;
    if (s->in_fd < 0)
        return 0;
    if (ioctl(s->in_fd, FIONREAD, &n) != 0 || n < 0)
        n = 0;
    return (size_t)n + (s->wq_len - s->wq_off);
}

sandbox_event sandbox_settle(sandbox *s, double until_ms)
{
    drop_consumed(s);
    double quiet_since = now_ms();
    for (;;) {
        int strays = s->strays;
        size_t olen = s->olen;
        uint64_t errs = s->err_total;
        for (int i = 0; i < 64; i++) {
            read_stdout(s);
            if (!drop_strays(s))
                break;
        }
        read_stderr(s);
        flush_writes(s);
        if (s->flood)
            return SANDBOX_FLOOD;
        if (check_exit(s))
            return SANDBOX_EXITED;
        double t = now_ms();
        if (unread(s) > 0 || s->strays != strays || s->olen != olen || s->err_total != errs ||
            (s->cg && cg_busy(s->cg) == 1))
            quiet_since = t; /* still reading, printing, or at work (or waiting for a CPU) */
        if (t - quiet_since >= SANDBOX_SETTLE_MS || t >= until_ms)
            return SANDBOX_TIMEOUT;
        double wait = until_ms - t;
        io_round(s, wait < 1 ? wait : 1);
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
    sandbox_check_state(s);
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
    if (s)
        sandbox_check_state(s);
    if (!s || s->reaped || s->pid <= 0)
        return;
    siginfo_t info;
    memset(&info, 0, sizeof info);
    bool running =
        waitid(P_PID, (id_t)s->pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == 0;
    if (running)
        s->killed = true;
    sandbox_cpu_ms(s); /* the last live reading */
    kill(s->pid, SIGKILL);
    kill_rest(s); /* thaws what it kills: a frozen task dies only once thawed */
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
    out->mem_peak_kb = s->cg && (s->prot & SANDBOX_P_MEMORY) ? cg_memory_peak_kb(s->cg)
                                                              : s->vm_peak_kb;
    out->oom_kills = cg_oom_kills(s->cg);
    out->wall_ms = now_ms() - s->start_ms;
}

void sandbox_destroy(sandbox *s, int grace_ms)
{
    if (s)
        sandbox_check_state(s);
    if (!s)
        return;
    if (!s->reaped && s->pid > 0) {
        close_fd(&s->in_fd); /* EOF: the program's cue to end */
        s->wq_len = s->wq_off = 0;
        if (grace_ms > 0) {
            sandbox_resume(s);
            sandbox_wait_exit(s, now_ms() + grace_ms);
        }
        sandbox_kill(s);
    }
    sandbox_free(s);
}
