/*
 * jail.c — the policy, the uid pool, the seccomp filter and bubblewrap's
 * command line (contract in jail.h).
 *
 * Why bubblewrap: it is Flatpak's sandbox, kept by people whose job is
 * this, packaged by Debian, and does the namespace and mount dance (user
 * namespace, pivot_root into a tmpfs, a new procfs, minimal /dev, dropping
 * every capability, no further user namespaces) that a hand-written clone()
 * gets subtly wrong. It runs as the program's own user (as root, a uid of
 * the pool: sandbox.c drops to it before execve), never as root, so it is
 * always in its unprivileged mode and needs no setuid bit.
 *
 * The view of the files: the system's folders read-only (/usr, /etc, /opt;
 * /bin, /sbin, /lib* as the machine has them: links into /usr on a merged
 * /usr), the program's folder read-only at SANDBOX_BOT_DIR, an installation
 * outside the system (a virtual environment's interpreter) read-only at its
 * own path, a fresh procfs and /dev, private tmpfs for HOME, /tmp, /var/tmp
 * and /dev/shm of tmp_mb each, and the root itself read-only. The paths of
 * the policy's hide list that fall inside a shown folder are covered: a
 * folder by an empty read-only tmpfs, a file by /dev/null.
 *
 * The seccomp filter denies what a program has no business doing and what
 * would reach across sandboxes if anything else failed: tracing and
 * reading other processes, keyrings (shared per uid), BPF, perf,
 * userfaultfd, io_uring (a way around the filter), mounts and namespaces,
 * modules, kexec, the terminal's input queue (TIOCSTI), and sockets other
 * than Unix and netlink ones. Denied calls fail with EPERM (sockets EACCES);
 * clone3, whose flags a filter cannot read, fails with ENOSYS so that libc
 * falls back to clone, whose namespace flags are denied. Calls of another
 * ABI than the native one kill the process.
 */
#define _GNU_SOURCE
#include "jail.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <seccomp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/eng.h"
#include "engine/errors.h"

/* ---- the policy ----------------------------------------------------------------------- */

static pthread_mutex_t setup_mu = PTHREAD_MUTEX_INITIALIZER;
static sandbox_setup setup;
static bool setup_set;

void sandbox_configure(const sandbox_setup *s)
{
    pthread_mutex_lock(&setup_mu);
    setup = *s;
    setup_set = true;
    pthread_mutex_unlock(&setup_mu);
}

void jail_setup(sandbox_setup *out)
{
    pthread_mutex_lock(&setup_mu);
    if (!setup_set) {
        memset(&setup, 0, sizeof setup);
        const char *env = getenv("TESSERA_SANDBOX");
        setup.partial = env && strcmp(env, "partial") == 0;
        setup_set = true;
    }
    *out = setup;
    pthread_mutex_unlock(&setup_mu);
    if (!out->uid_base)
        out->uid_base = PLAYER_UID_POOL_BASE;
    if (!out->uid_count)
        out->uid_count = PLAYER_UID_POOL_SIZE;
}

/* ---- uids ------------------------------------------------------------------------------ */

static atomic_uint uid_next;

int jail_uid_take(uid_t *uid, int *lockfd, char *err, size_t cap)
{
    sandbox_setup cfg;
    jail_setup(&cfg);
    *lockfd = -1;
    /* a descriptor of its own: OFD locks of one open file description do
     * not exclude each other, two descriptions' do, in one process too */
    int fd = open(SANDBOX_UID_LOCK, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return eng_seterr(err, cap, ENG_EINTERNAL,
                          "the uid pool's lock file %s cannot be used: %s (as root, tessera needs "
                          "a writable /run)",
                          SANDBOX_UID_LOCK, fd < 0 ? strerror(e) : "not a regular file of root");
    }
    uint32_t n = cfg.uid_count;
    uint32_t start = (atomic_fetch_add(&uid_next, 1) + (uint32_t)getpid() * 7919u) % n;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t i = (start + k) % n;
        struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = (off_t)i,
                           .l_len = 1};
        if (fcntl(fd, F_OFD_SETLK, &fl) == 0) {
            *uid = (uid_t)(cfg.uid_base + i);
            *lockfd = fd;
            return 0;
        }
        if (errno != EAGAIN && errno != EACCES) {
            int e = errno;
            close(fd);
            return eng_seterr(err, cap, ENG_EINTERNAL, "locking a uid of the pool: %s",
                              strerror(e));
        }
    }
    close(fd);
    return eng_seterr(err, cap, ENG_EINTERNAL, "all %u uids of the pool (from %u) are in use", n,
                      cfg.uid_base);
}

void jail_uid_give(uid_t uid, int lockfd)
{
    if (lockfd < 0)
        return;
    /* bubblewrap's mount point outside (empty: the mounts were in its
     * namespace), while the uid is still ours */
    char dir[64];
    snprintf(dir, sizeof dir, "/tmp/.bubblewrap-%u", (unsigned)uid);
    rmdir(dir);
    close(lockfd);
}

/* ---- seccomp ------------------------------------------------------------------------------ */

static pthread_once_t filter_once = PTHREAD_ONCE_INIT;
static struct sock_fprog filter;
static char filter_err[160];

static const char *const denied[] = {
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
    "process_madvise", "perf_event_open", "bpf", "userfaultfd", "keyctl", "add_key",
    "request_key", "io_uring_setup", "io_uring_enter", "io_uring_register", "unshare", "setns",
    "mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree", "fsopen", "fsmount",
    "fsconfig", "fspick", "mount_setattr", "init_module", "finit_module", "delete_module",
    "kexec_load", "kexec_file_load", "reboot", "swapon", "swapoff", "acct", "syslog",
    "quotactl", "quotactl_fd", "lookup_dcookie", "open_by_handle_at", "name_to_handle_at",
    "iopl", "ioperm", "vhangup", "uselib", "settimeofday", "clock_settime", "clock_adjtime",
    "adjtimex",
};

static void compile_filter(void)
{
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    int memfd = -1;
    if (!ctx) {
        snprintf(filter_err, sizeof filter_err, "libseccomp: seccomp_init failed");
        return;
    }
    int rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
    for (size_t i = 0; !rc && i < sizeof denied / sizeof denied[0]; i++) {
        int nr = seccomp_syscall_resolve_name(denied[i]);
        if (nr != __NR_SCMP_ERROR)
            rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0);
    }
    if (!rc)
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
    static const unsigned long ns_flags[] = {CLONE_NEWNS,  CLONE_NEWUTS, CLONE_NEWIPC,
                                             CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET,
                                             CLONE_NEWCGROUP};
    for (size_t i = 0; !rc && i < sizeof ns_flags / sizeof ns_flags[0]; i++)
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                              SCMP_A0(SCMP_CMP_MASKED_EQ, ns_flags[i], ns_flags[i]));
    if (!rc)
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
                              SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, TIOCSTI));
    if (!rc)
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
                              SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, TIOCLINUX));
    /* sockets: Unix and netlink only (the first argument is the family;
     * a rule compares an argument once, so the others one by one) */
    for (int fam = 0; !rc && fam <= AF_NETLINK; fam++)
        if (fam != AF_UNIX && fam != AF_NETLINK)
            rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(socket), 1,
                                  SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)fam));
    if (!rc)
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(socket), 1,
                              SCMP_A0(SCMP_CMP_GT, (scmp_datum_t)AF_NETLINK));
    if (rc) {
        snprintf(filter_err, sizeof filter_err, "libseccomp: a rule was refused: %s",
                 strerror(-rc));
        goto out;
    }
    memfd = memfd_create("tessera-seccomp", MFD_CLOEXEC);
    if (memfd < 0 || seccomp_export_bpf(ctx, memfd) != 0) {
        snprintf(filter_err, sizeof filter_err, "libseccomp: the filter could not be exported");
        goto out;
    }
    off_t len = lseek(memfd, 0, SEEK_END);
    struct sock_filter *prog = len > 0 ? malloc((size_t)len) : NULL;
    if (!prog || len % (off_t)sizeof *prog != 0 || pread(memfd, prog, (size_t)len, 0) != len) {
        free(prog);
        snprintf(filter_err, sizeof filter_err, "libseccomp: the filter could not be read back");
        goto out;
    }
    filter.len = (unsigned short)(len / (off_t)sizeof *prog);
    filter.filter = prog; /* kept for the process's life */
out:
    if (memfd >= 0)
        close(memfd);
    seccomp_release(ctx);
}

const struct sock_fprog *jail_seccomp(char *err, size_t cap)
{
    pthread_once(&filter_once, compile_filter);
    if (!filter.filter) {
        if (err && cap)
            snprintf(err, cap, "%s", filter_err);
        return NULL;
    }
    return &filter;
}

/* ---- bubblewrap -------------------------------------------------------------------------- */

static pthread_once_t bwrap_once = PTHREAD_ONCE_INIT;
static char bwrap_path[PATH_MAX];

static void find_bwrap(void)
{
    const char *env = getenv("TESSERA_BWRAP");
    if (env && env[0]) {
        if (env[0] == '/' && strlen(env) < sizeof bwrap_path && access(env, X_OK) == 0)
            strcpy(bwrap_path, env);
        return;
    }
    if (access("/usr/bin/bwrap", X_OK) == 0) {
        strcpy(bwrap_path, "/usr/bin/bwrap");
        return;
    }
    const char *path = getenv("PATH");
    for (const char *p = path ? path : ""; *p;) {
        size_t len = strcspn(p, ":");
        char cand[PATH_MAX];
        if (len && len < sizeof cand - 8) {
            snprintf(cand, sizeof cand, "%.*s/bwrap", (int)len, p);
            if (cand[0] == '/' && access(cand, X_OK) == 0) {
                strcpy(bwrap_path, cand);
                return;
            }
        }
        p += len;
        p += *p == ':';
    }
}

const char *jail_bwrap(void)
{
    pthread_once(&bwrap_once, find_bwrap);
    return bwrap_path[0] ? bwrap_path : NULL;
}

static const char *const system_dirs[] = {"/usr", "/etc", "/opt", "/bin", "/sbin",
                                          "/lib", "/lib32", "/lib64", "/libx32"};

/* Is path at or below dir? */
static bool under(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    if (n == 1 && dir[0] == '/')
        return path[0] == '/';
    return strncmp(path, dir, n) == 0 && (path[n] == 0 || path[n] == '/');
}

bool jail_is_system(const char *path)
{
    for (size_t i = 0; i < sizeof system_dirs / sizeof system_dirs[0]; i++)
        if (under(path, system_dirs[i]))
            return true;
    return false;
}

/* Append the NUL-terminated words, each with its NUL. */
static void words(textbuf *b, const char *first, ...)
{
    va_list ap;
    va_start(ap, first);
    for (const char *w = first; w; w = va_arg(ap, const char *))
        tb_put(b, w, strlen(w) + 1);
    va_end(ap);
}

/* How the program sees host path p: inside its folder, at SANDBOX_BOT_DIR;
 * elsewhere (the system, its prefix), where it is. */
static void view_of(const sandbox_cmd *cmd, const char *p, char *out, size_t cap)
{
    if (cmd && cmd->folder[0] && under(p, cmd->folder))
        snprintf(out, cap, "%s%s", SANDBOX_BOT_DIR, p + strlen(cmd->folder));
    else
        snprintf(out, cap, "%s", p);
}

typedef struct bind {
    const char *src, *dst;
    bool folder; /* the program's folder */
} shown;

int jail_bwrap_args(const sandbox_cmd *cmd, const sandbox_limits *l, int seccomp_fd, textbuf *out,
                    textbuf *command, char *err, size_t cap)
{
    sandbox_setup cfg;
    jail_setup(&cfg);
    char size[32], fd[16];
    snprintf(size, sizeof size, "%lld", (long long)l->tmp_mb << 20);
    snprintf(fd, sizeof fd, "%d", seccomp_fd);
    words(out, "--unshare-user", "--unshare-pid", "--unshare-net", "--unshare-ipc",
          "--unshare-uts", "--unshare-cgroup-try", "--disable-userns", "--die-with-parent",
          "--new-session", "--hostname", "sandbox", NULL);

    /* the files: its own first (a folder shown below /tmp lands inside
     * its private /tmp, not under it) */
    words(out, "--proc", "/proc", "--dev", "/dev", NULL);
    const char *const tmps[] = {"/dev/shm", "/tmp", "/var/tmp", SANDBOX_HOME};
    for (size_t i = 0; i < sizeof tmps / sizeof tmps[0]; i++)
        words(out, "--size", size, "--tmpfs", tmps[i], NULL);
    shown binds[16 + SANDBOX_MAX_PYPATH];
    int nb = 0;
    for (size_t i = 0; i < sizeof system_dirs / sizeof system_dirs[0]; i++) {
        const char *d = system_dirs[i];
        struct stat st;
        if (lstat(d, &st) != 0)
            continue;
        if (S_ISLNK(st.st_mode)) {
            char target[PATH_MAX];
            ssize_t n = readlink(d, target, sizeof target - 1);
            if (n <= 0)
                continue;
            target[n] = 0;
            words(out, "--symlink", target, d, NULL);
        } else if (S_ISDIR(st.st_mode)) {
            words(out, "--ro-bind", d, d, NULL);
            binds[nb++] = (shown){d, d, false};
        }
    }
    if (cmd && cmd->folder[0]) {
        words(out, "--ro-bind", cmd->folder, SANDBOX_BOT_DIR, NULL);
        binds[nb++] = (shown){cmd->folder, SANDBOX_BOT_DIR, true};
    }
    if (cmd && cmd->prefix[0]) {
        words(out, "--ro-bind", cmd->prefix, cmd->prefix, NULL);
        binds[nb++] = (shown){cmd->prefix, cmd->prefix, false};
    }
    /* the caller's PYTHONPATH: each folder not shown already, at its own
     * path; PYTHONPATH names them as the program sees them */
    char pypath[sizeof cmd->pypath], pyview[sizeof cmd->pypath + 64] = "";
    snprintf(pypath, sizeof pypath, "%s", cmd ? cmd->pypath : "");
    size_t pv = 0;
    for (char *save = NULL, *d = strtok_r(pypath, ":", &save); d && pv < sizeof pyview;
         d = strtok_r(NULL, ":", &save)) {
        char v[PATH_MAX + 16];
        view_of(cmd, d, v, sizeof v);
        if (!jail_is_system(d) && !(cmd->folder[0] && under(d, cmd->folder)) &&
            !(cmd->prefix[0] && under(d, cmd->prefix))) {
            assert(nb < (int)(sizeof binds / sizeof binds[0]));
            words(out, "--ro-bind", d, d, NULL);
            binds[nb++] = (shown){d, d, false};
        }
        pv += (size_t)snprintf(pyview + pv, sizeof pyview - pv, "%s%s", pv ? ":" : "", v);
    }
    /* what the policy hides, where it falls inside something shown */
    for (const char *const *h = cfg.hide; h && *h; h++) {
        char real[PATH_MAX];
        struct stat st;
        if (!realpath(*h, real) || stat(real, &st) != 0)
            continue; /* not there: nothing to hide */
        for (int i = 0; i < nb; i++) {
            if (!under(real, binds[i].src))
                continue;
            if (binds[i].folder && strcmp(real, binds[i].src) == 0)
                return eng_seterr(err, cap, ENG_EINVAL,
                                  "the program's folder %.200s is hidden from programs (the "
                                  "server keeps its data there)",
                                  real);
            char dst[PATH_MAX + 16];
            snprintf(dst, sizeof dst, "%s%s", binds[i].dst, real + strlen(binds[i].src));
            if (S_ISDIR(st.st_mode))
                words(out, "--size", "4096", "--tmpfs", dst, "--remount-ro",
                      dst, NULL);
            else
                words(out, "--ro-bind", "/dev/null", dst, NULL);
        }
    }
    words(out, "--remount-ro", "/", "--chdir", SANDBOX_HOME, NULL);

    /* the environment */
    char path_env[PATH_MAX + 64] = "/usr/local/bin:/usr/bin:/bin";
    char prog[PATH_MAX];
    view_of(cmd, cmd ? cmd->path : jail_bwrap(), prog, sizeof prog);
    if (cmd && cmd->prefix[0] && under(cmd->path, cmd->prefix)) {
        char dir[PATH_MAX];
        snprintf(dir, sizeof dir, "%s", prog);
        char *slash = strrchr(dir, '/');
        if (slash && slash != dir) {
            *slash = 0;
            snprintf(path_env, sizeof path_env, "%s:/usr/local/bin:/usr/bin:/bin", dir);
        }
    }
    words(out, "--clearenv", "--setenv", "PATH", path_env, "--setenv", "HOME", SANDBOX_HOME,
          "--setenv", "LANG", "C.UTF-8", "--seccomp", fd, NULL);
    if (pyview[0])
        words(out, "--setenv", "PYTHONPATH", pyview, NULL);

    /* the command, as the program sees it */
    words(command, prog, NULL);
    if (!cmd)
        words(command, "--version", NULL);
    for (int i = 1; cmd && i < cmd->argc; i++) {
        char a[PATH_MAX + 16];
        if (cmd->argv[i][0] == '/') {
            view_of(cmd, cmd->argv[i], a, sizeof a);
            words(command, a, NULL);
        } else {
            words(command, cmd->argv[i], NULL);
        }
    }
    if (out->failed || command->failed)
        return eng_seterr(err, cap, ENG_ENOMEM, "out of memory");
    return 0;
}
