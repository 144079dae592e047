/*
 * test_fenced.c — players/fenced.h: a computation in a fenced process. This
 * program is both sides: run plainly it is the caller (in a process with a
 * second thread allocating all the time, as a server's loop is), and
 * fenced_run starts it again as `test_fenced child WORK [ARG]`, the fenced
 * program. Each way the program can end is asserted from the caller:
 *   - an answer comes back whole (1 MiB, longer than a pipe's buffer),
 *     made from an input of 1 MiB; a refusal with its code and reason;
 *   - a crash (SIGSEGV), an abort, an exit of its own, a program that does
 *     not exist, each a reason, and the caller goes on;
 *   - the fence: a file opened, a socket made, a descriptor it opened
 *     before the fence written, a process forked, memory made executable —
 *     each kills the program, and none of it happened (the file it would
 *     have made is not there, the one it would have written is empty);
 *   - the CPU limit ends a spinning program, the wall limit a sleeping one,
 *     a raised stop one that would spin for its 30 s; an answer past
 *     max_out is refused;
 *   - 100 runs leave the caller's descriptors and children as they were.
 *
 * Usage: test_fenced
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "engine/errors.h"
#include "engine/textbuf.h"
#include "players/fenced.h"

static const fenced_limits plain = {.cpu_s = 30, .wall_s = 120, .max_out = 4 << 20};

/* ---- the program's side ------------------------------------------------------------------ */

static int child(const char *work, const char *arg)
{
    char *in = NULL, why[256];
    size_t inlen = 0;
    if (fenced_read_input(8 << 20, &in, &inlen) != 0)
        fenced_answer(ENG_EIO, "no input", 8);
    int fd = -1;
    if (strcmp(work, "write-own") == 0)
        fd = open(arg, O_WRONLY); /* before the fence: as a descriptor it had from the start */
    char gone[4096] = "";
    if (strcmp(work, "self-gone") == 0) { /* its file removed under it, then where is it? */
        char was[4096];
        if (unlink(fenced_self(was, sizeof was)) == 0)
            fenced_self(gone, sizeof gone);
    }
    if (fenced_enter(why, sizeof why) != 0)
        fenced_answer(ENG_EINTERNAL, why, strlen(why));
    textbuf out = TEXTBUF_INIT;
    if (strcmp(work, "echo") == 0) { /* the input reversed */
        for (size_t i = inlen; i-- > 0;)
            tb_put(&out, &in[i], 1);
    } else if (strcmp(work, "refuse") == 0) {
        fenced_answer(ENG_EILLEGAL_MOVE, "turn 3: no such move", 20);
    } else if (strcmp(work, "segv") == 0) {
        volatile int *nowhere = NULL;
        *nowhere = 1;
    } else if (strcmp(work, "abort") == 0) {
        abort();
    } else if (strcmp(work, "exit") == 0) {
        _exit(3);
    } else if (strcmp(work, "open") == 0) {
        tb_puts(&out, open(arg, O_CREAT | O_WRONLY, 0600) >= 0 ? "opened" : "refused");
    } else if (strcmp(work, "socket") == 0) {
        tb_puts(&out, socket(AF_INET, SOCK_STREAM, 0) >= 0 ? "socket" : "refused");
    } else if (strcmp(work, "write-own") == 0) {
        tb_puts(&out, fd >= 0 && write(fd, "x", 1) == 1 ? "written" : "refused");
    } else if (strcmp(work, "fork") == 0) {
        pid_t p = fork();
        if (p == 0)
            _exit(0);
        tb_puts(&out, p > 0 ? "forked" : "refused");
    } else if (strcmp(work, "exec-mem") == 0) {
        void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
                       -1, 0);
        tb_puts(&out, p != MAP_FAILED ? "mapped" : "refused");
    } else if (strcmp(work, "spin") == 0) {
        for (volatile unsigned long n = 0;; n++) {
        }
    } else if (strcmp(work, "sleep") == 0) {
        for (;;) {
            struct timespec t = {1, 0};
            nanosleep(&t, NULL);
        }
    } else if (strcmp(work, "malloc") == 0) { /* the allocator, fenced: 64 MiB in pieces */
        for (int i = 0; i < 4096; i++) {
            char *p = malloc(16384);
            if (p)
                memset(p, i, 16384);
            free(i % 2 ? p : NULL);
        }
        tb_puts(&out, "allocated");
    } else if (strcmp(work, "env") == 0) { /* its environment, a variable a line */
        extern char **environ;
        for (char **e = environ; e && *e; e++) {
            tb_puts(&out, *e);
            tb_put(&out, "\n", 1);
        }
    } else if (strcmp(work, "self-gone") == 0) {
        tb_puts(&out, gone);
    } else if (strcmp(work, "hog") == 0) { /* up to 1 GiB, every page touched, kept */
        int mb = 0;
        for (; mb < 1024; mb += 16) {
            char *p = malloc(16 << 20);
            if (!p) {
                char t[64];
                int n = snprintf(t, sizeof t, "no memory after %d MiB", mb);
                fenced_answer(ENG_ENOMEM, t, (size_t)n);
            }
            memset(p, 1, 16 << 20);
        }
        tb_puts(&out, "allocated 1 GiB");
    }
    fenced_answer(out.failed ? ENG_ENOMEM : 0, out.p ? out.p : "", out.len);
}

/* ---- the caller's side ------------------------------------------------------------------- */

static char self[4096]; /* fenced_self: this test's binary, under valgrind too */
static bool sanitized; /* TESSERA_SANITIZED=1: an ASan build */

/* fenced_run of `self child WORK [ARG]` with in; the code, its answer in
 * *out (owned) or its reason in why. */
static int run(const char *work, const char *arg, const char *in, size_t inlen,
               const fenced_limits *lim, char **out, size_t *len, char *why, size_t cap)
{
    const char *argv[] = {self, "child", work, arg, NULL};
    char *o = NULL;
    int rc = fenced_run(argv, in, inlen, lim, &o, len, why, cap);
    if (rc != 0)
        assert_null(o);
    if (out)
        *out = o;
    else
        free(o);
    return rc;
}

static int run_why(const char *work, const char *arg, const fenced_limits *lim, char *why,
                   size_t cap)
{
    return run(work, arg, NULL, 0, lim, NULL, NULL, why, cap);
}

static atomic_bool busy_stop;
static void *busy(void *arg)
{
    (void)arg;
    while (!atomic_load(&busy_stop)) {
        void *p = malloc(1000); /* the allocator's locks taken and given all the time */
        free(p);
    }
    return NULL;
}

static void test_answers(void **state)
{
    (void)state;
    char why[512];
    size_t n = 1 << 20, len = 0;
    char *in = malloc(n), *out = NULL;
    assert_non_null(in);
    for (size_t i = 0; i < n; i++)
        in[i] = "0123456789abcdef"[(i * 7 + i / 13) % 16];
    assert_int_equal(run("echo", NULL, in, n, &plain, &out, &len, why, sizeof why), 0);
    assert_int_equal(len, n);
    assert_int_equal(strlen(out), n);
    for (size_t i = 0; i < n; i++)
        if (out[i] != in[n - 1 - i])
            fail_msg("byte %zu", i);
    free(out);
    free(in);
    assert_int_equal(run_why("refuse", NULL, &plain, why, sizeof why), ENG_EILLEGAL_MOVE);
    assert_string_equal(why, "turn 3: no such move");
    assert_int_equal(run("malloc", NULL, NULL, 0, &plain, &out, NULL, why, sizeof why), 0);
    assert_string_equal(out, "allocated");
    free(out);
}

static void test_crashes(void **state)
{
    (void)state;
    char why[512];
    assert_int_equal(run_why("segv", NULL, &plain, why, sizeof why), ENG_EINTERNAL);
    /* the signal; under ASan its SEGV handler reads /proc/self/exe first,
     * which the fence refuses */
    if (sanitized)
        assert_true(strstr(why, "signal 11") || strstr(why, "system call"));
    else
        assert_string_equal(why, "the fenced process was ended by signal 11 (Segmentation fault)");
    assert_int_equal(run_why("abort", NULL, &plain, why, sizeof why), ENG_EINTERNAL);
    assert_string_equal(why, "the fenced process was ended by signal 6 (Aborted)");
    assert_int_equal(run_why("exit", NULL, &plain, why, sizeof why), ENG_EINTERNAL);
    assert_string_equal(why, "the fenced process exited with status 3");
    const char *none[] = {"/nonexistent/tessera", NULL};
    char *out = NULL;
    assert_int_equal(fenced_run(none, NULL, 0, &plain, &out, NULL, why, sizeof why), ENG_EINTERNAL);
    /* (under valgrind the spawn succeeds and its child exits 127) */
    assert_true(strstr(why, "/nonexistent/tessera could not be started") ||
                strstr(why, "exited with status 127"));
    /* the caller goes on */
    assert_int_equal(run("echo", NULL, "ereh llits", 10, &plain, &out, NULL, why, sizeof why), 0);
    assert_string_equal(out, "still here");
    free(out);
}

static void test_fence(void **state)
{
    (void)state;
    char why[512], path[256];
    snprintf(path, sizeof path, "/tmp/tessera-fenced-%d", (int)getpid());
    unlink(path);
    assert_int_equal(run_why("open", path, &plain, why, sizeof why), ENG_EINTERNAL);
    assert_string_equal(why, "the fenced process made a system call its fence does not allow");
    struct stat sb;
    assert_int_equal(stat(path, &sb), -1); /* not made */
    const char *refused[] = {"socket", "fork", "exec-mem"};
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(run_why(refused[i], NULL, &plain, why, sizeof why), ENG_EINTERNAL);
        assert_string_equal(why, "the fenced process made a system call its fence does not allow");
    }
    /* a descriptor it held before the fence: not written */
    int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(run_why("write-own", path, &plain, why, sizeof why), ENG_EINTERNAL);
    assert_non_null(strstr(why, "system call"));
    assert_int_equal(stat(path, &sb), 0);
    assert_int_equal(sb.st_size, 0);
    unlink(path);
}

static void test_limits(void **state)
{
    (void)state;
    char why[512];
    fenced_limits cpu = plain;
    cpu.cpu_s = 1;
    assert_int_equal(run_why("spin", NULL, &cpu, why, sizeof why), ENG_EINTERNAL);
    assert_string_equal(why, "the fenced process spent its 1 CPU seconds");
    fenced_limits wall = plain;
    wall.wall_s = 1;
    assert_int_equal(run_why("sleep", NULL, &wall, why, sizeof why), ENG_EINTERNAL);
    assert_string_equal(why, "the fenced process ran past its 1 s");
    atomic_bool stop = true;
    fenced_limits stopped = plain;
    stopped.stop = &stop;
    assert_int_equal(run_why("spin", NULL, &stopped, why, sizeof why), ENG_ESHUTTING_DOWN);
    fenced_limits small = plain;
    small.max_out = 1000;
    char in[4000];
    memset(in, 'a', sizeof in);
    assert_int_equal(run("echo", NULL, in, sizeof in, &small, NULL, NULL, why, sizeof why),
                     ENG_EINTERNAL);
    assert_string_equal(why, "the fenced process's answer passed 1000 bytes");
    /* its address space: an allocation past it fails, and the program says so */
    if (sanitized) {
        print_message("no memory limit in an ASan build (fenced.h): not tried\n");
        return;
    }
    fenced_limits mem = plain;
    mem.mem_mb = 256;
    assert_int_equal(run_why("hog", NULL, &mem, why, sizeof why), ENG_ENOMEM);
    int got = -1;
    assert_int_equal(sscanf(why, "no memory after %d MiB", &got), 1);
    assert_true(got >= 64 && got < 256); /* what the program itself takes comes first */
}

/* The program's environment: the caller's few that every program gets
 * (the sanitizers' options, LD_LIBRARY_PATH) and those of the prefix asked
 * for; nothing else (a server's PGPASSWORD, its PATH, HOME). */
static void test_environment(void **state)
{
    (void)state;
    char why[512], *out = NULL;
    setenv("PGPASSWORD", "s3cret", 1);
    setenv("TESSERA_TEST_FENCED_KEPT", "yes", 1);
    setenv("ASAN_OPTIONS", getenv("ASAN_OPTIONS") ? getenv("ASAN_OPTIONS") : "", 1);
    fenced_limits lim = plain;
    lim.env_prefix = "TESSERA_TEST_";
    assert_int_equal(run("env", NULL, NULL, 0, &lim, &out, NULL, why, sizeof why), 0);
    print_message("the program's environment:\n%s", out);
    assert_non_null(strstr(out, "TESSERA_TEST_FENCED_KEPT=yes\n"));
    assert_non_null(strstr(out, "ASAN_OPTIONS="));
    assert_null(strstr(out, "PGPASSWORD"));
    assert_null(strstr(out, "s3cret"));
    assert_false(strncmp(out, "PATH=", 5) == 0 || strstr(out, "\nPATH="));
    assert_false(strncmp(out, "HOME=", 5) == 0 || strstr(out, "\nHOME="));
    free(out);
    /* without a prefix: the few alone */
    assert_int_equal(run("env", NULL, NULL, 0, &plain, &out, NULL, why, sizeof why), 0);
    assert_null(strstr(out, "TESSERA_TEST_FENCED_KEPT"));
    assert_null(strstr(out, "PGPASSWORD"));
    free(out);
    unsetenv("PGPASSWORD");
    unsetenv("TESSERA_TEST_FENCED_KEPT");
}

/* fenced_self: the binary's own path (valgrind's /proc/self/exe would be
 * its tool); /proc/self/exe once that file is gone (still this binary). */
static void test_self(void **state)
{
    (void)state;
    struct stat a, b;
    assert_true(self[0] == '/');
    assert_string_not_equal(self, "/proc/self/exe");
    assert_int_equal(stat(self, &a), 0);
    char argv0[4096]; /* what started this test: under valgrind /proc/self/exe is its tool */
    assert_non_null(realpath(program_invocation_name, argv0));
    assert_int_equal(stat(argv0, &b), 0);
    assert_true(a.st_dev == b.st_dev && a.st_ino == b.st_ino);
    /* a copy of this binary that removes its own file, then asks */
    char copy[256], why[512], *out = NULL;
    snprintf(copy, sizeof copy, "/tmp/tessera-fenced-self-%d", (int)getpid());
    int in = open(self, O_RDONLY), to = open(copy, O_CREAT | O_WRONLY | O_TRUNC, 0700);
    assert_true(in >= 0 && to >= 0);
    char buf[65536];
    ssize_t n;
    while ((n = read(in, buf, sizeof buf)) > 0)
        assert_int_equal(write(to, buf, (size_t)n), n);
    close(in);
    close(to);
    const char *argv[] = {copy, "child", "self-gone", NULL};
    assert_int_equal(fenced_run(argv, NULL, 0, &plain, &out, NULL, why, sizeof why), 0);
    assert_string_equal(out, "/proc/self/exe");
    free(out);
    assert_int_equal(access(copy, F_OK), -1); /* it was removed, by itself */
    unlink(copy);
}

static int count_fds(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

static void test_nothing_left(void **state)
{
    (void)state;
    char why[512];
    int fds = count_fds();
    for (int i = 0; i < 100; i++) {
        char *out = NULL;
        int rc = run(i % 2 ? "echo" : "segv", NULL, "x", 1, &plain, &out, NULL, why, sizeof why);
        assert_int_equal(rc, i % 2 ? 0 : ENG_EINTERNAL);
        free(out);
    }
    assert_int_equal(count_fds(), fds);
    assert_int_equal(waitpid(-1, NULL, WNOHANG), -1); /* no child left, reaped or not */
    assert_int_equal(errno, ECHILD);
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "child") == 0)
        return child(argv[2], argc > 3 ? argv[3] : NULL);
    fenced_self(self, sizeof self);
    const char *san = getenv("TESSERA_SANITIZED");
    sanitized = san && san[0] == '1';
    pthread_t th;
    atomic_init(&busy_stop, false);
    if (pthread_create(&th, NULL, busy, NULL) != 0)
        return 2;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_answers),      cmocka_unit_test(test_crashes),
        cmocka_unit_test(test_fence),        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_nothing_left), cmocka_unit_test(test_self),
        cmocka_unit_test(test_environment),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    atomic_store(&busy_stop, true);
    pthread_join(th, NULL);
    return rc;
}
