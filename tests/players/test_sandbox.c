/*
 * test_sandbox.c — external programs that misbehave (tests/players/bad/),
 * each in a real Carcassonne game through the players interface, each
 * with the verdict and detail it must get; what the sandbox protects (no
 * network, no process left, a fork bomb bounded) checked from outside, in
 * /proc and on a TCP port; and 1,000 program starts that leave the
 * process's descriptors, threads, memory and children as they were.
 *
 * Usage: test_sandbox SRC_DIR SEGV_BIN C_BOT [nonroot]
 *   nonroot: the subset that runs as an unprivileged user (CTest runs it
 *   under setpriv as nobody when the suite runs as root), where the
 *   namespaces come from a user namespace.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "driver.h"

static const char *src_dir, *segv_bin, *c_bot;
static double slow = 1; /* wall-clock bounds scale under sanitizers */
static char bad[4096];  /* SRC_DIR/tests/players/bad */

/* ---- helpers ---------------------------------------------------------------------- */

static player *make(const char *spec, const eng_game *g, const sandbox_limits *lim)
{
    char err[512];
    player_config cfg;
    player_config_default(&cfg);
    if (lim)
        cfg.limits = *lim;
    player *p = player_create(spec, g, &cfg, err, sizeof err);
    if (!p)
        fail_msg("%s: %s", spec, err);
    return p;
}

typedef struct bad_run {
    drv_game d;
    player_result r; /* the first fault (verdict PLAYER_OK if none) */
    double wall_ms;  /* of the whole game */
} bad_run;

/* A Carcassonne game: "random" in seat 0, the program in seat 1; stops at
 * its first fault (forfeit) or after max_turns turns. */
static void run(bad_run *b, const char *spec, const sandbox_limits *lim, int64_t move_ms,
                int max_turns)
{
    const eng_game *g = eng_find_game("carcassonne");
    memset(b, 0, sizeof *b);
    drv_init(&b->d, g, 2, 7, move_ms);
    b->d.p[0] = make("random", g, NULL);
    b->d.p[1] = make(spec, g, lim);
    b->d.max_turns = max_turns;
    double t0 = drv_now_ms();
    drv_play(&b->d);
    b->wall_ms = drv_now_ms() - t0;
    if (b->d.nfaults) {
        b->r = b->d.fault[0];
        assert_int_equal(b->d.fault_seat[0], 1);
    }
}

static void end(bad_run *b)
{
    player_destroy(b->d.p[0]);
    player_destroy(b->d.p[1]);
    drv_free(&b->d);
}

static void expect(const bad_run *b, player_verdict v, const char *in_detail)
{
    if (b->r.verdict != v)
        fail_msg("verdict %s (%s), want %s; stderr: %.300s", player_verdict_name(b->r.verdict),
                 b->r.detail, player_verdict_name(v), b->r.stderr_tail);
    if (in_detail && !strstr(b->r.detail, in_detail))
        fail_msg("detail '%s' does not say '%s'", b->r.detail, in_detail);
    for (const char *c = b->r.detail; *c; c++)
        if ((unsigned char)*c < 0x20 || (unsigned char)*c > 0x7e)
            fail_msg("detail has byte 0x%02x", (unsigned char)*c);
}

/* Processes whose command line holds marker, now. */
static int count_marked(const char *marker)
{
    DIR *d = opendir("/proc");
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    size_t ml = strlen(marker);
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        char path[300], buf[8192];
        snprintf(path, sizeof path, "/proc/%.256s/cmdline", e->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        ssize_t len = read(fd, buf, sizeof buf);
        close(fd);
        for (ssize_t i = 0; len > 0 && i + (ssize_t)ml <= len; i++)
            if (memcmp(buf + i, marker, ml) == 0) {
                n++;
                break;
            }
    }
    closedir(d);
    return n;
}

/* No process holds marker any more (SIGKILL is delivered at once; allow a
 * moment for the exits to finish). */
static void assert_all_dead(const char *marker)
{
    int n = 0;
    for (int i = 0; i < 200 && (n = count_marked(marker)) > 0; i++)
        usleep(5000);
    if (n)
        fail_msg("%d process(es) marked %s are still alive", n, marker);
}

static void marker_for(char *buf, size_t cap, const char *what)
{
    static int seq;
    snprintf(buf, cap, "tessera-test-%s-%d-%d", what, (int)getpid(), ++seq);
}

static bool is_root(void)
{
    return geteuid() == 0;
}

/* ---- verdicts ------------------------------------------------------------------------ */

static void test_time_limit(void **state)
{
    (void)state;
    char spec[4200];
    snprintf(spec, sizeof spec, "cmd:python3 %s/sleep.py", bad);
    bad_run b;
    int64_t ms = (int64_t)(1000 * slow);
    double t0 = drv_now_ms();
    run(&b, spec, NULL, ms, 0);
    expect(&b, PLAYER_TIME_LIMIT, "no move within");
    assert_non_null(strstr(b.r.detail, "hardly ran")); /* asleep, not computing */
    /* the turn ended at its deadline, not at the program's leisure */
    assert_true(b.r.wall_ms >= (double)ms - 5);
    assert_true(drv_now_ms() - t0 < (double)ms + 5000 * slow);
    player_info info;
    player_get_info(b.d.p[1], &info);
    assert_int_equal(info.pid, 0); /* killed, not kept for a late answer */
    assert_int_equal(info.failures, 1);
    end(&b);
}

static void test_cpu_limit(void **state)
{
    (void)state;
    char spec[4200];
    snprintf(spec, sizeof spec, "cmd:python3 %s/spin.py", bad);
    sandbox_limits lim;
    sandbox_limits_default(&lim);
    lim.cpu_s = 1;
    bad_run b;
    run(&b, spec, &lim, (int64_t)(60000 * slow), 0);
    expect(&b, PLAYER_TIME_LIMIT, "CPU limit of 1 s");
    assert_true(b.r.cpu_ms >= 900);
    end(&b);
}

static void test_memory_limit(void **state)
{
    (void)state;
    char spec[4200];
    snprintf(spec, sizeof spec, "cmd:python3 %s/alloc.py", bad);
    sandbox_limits lim;
    sandbox_limits_default(&lim);
    lim.memory_mb = 256;
    bad_run b;
    run(&b, spec, &lim, (int64_t)(20000 * slow), 0);
    expect(&b, PLAYER_MEMORY_LIMIT, "ran out of memory (limit 256 MiB");
    assert_non_null(strstr(b.r.detail, "MemoryError"));
    assert_non_null(strstr(b.r.stderr_tail, "MemoryError"));
    end(&b);
}

static void test_crash(void **state)
{
    (void)state;
    char spec[4200];
    snprintf(spec, sizeof spec, "cmd:%s", segv_bin);
    bad_run b;
    run(&b, spec, NULL, (int64_t)(10000 * slow), 0);
    expect(&b, PLAYER_CRASHED, "killed by signal 11 (SIGSEGV");
    assert_non_null(strstr(b.r.detail, "about to crash")); /* the last line of stderr */
    end(&b);
}

static void test_exits_at_once(void **state)
{
    (void)state;
    char spec[4200];
    snprintf(spec, sizeof spec, "cmd:python3 %s/exit.py", bad);
    bad_run b;
    run(&b, spec, NULL, (int64_t)(10000 * slow), 0);
    expect(&b, PLAYER_NO_ANSWER, "exited (status 0)");
    assert_non_null(strstr(b.r.detail, "without answering"));
    end(&b);
}

static void test_not_json(void **state)
{
    (void)state;
    char spec[4200];
    snprintf(spec, sizeof spec, "cmd:python3 %s/garbage.py", bad);
    bad_run b;
    run(&b, spec, NULL, (int64_t)(10000 * slow), 0);
    expect(&b, PLAYER_BAD_OUTPUT, "bad_json: not JSON");
    assert_non_null(strstr(b.r.detail, "I think I will play"));
    player_info info;
    player_get_info(b.d.p[1], &info);
    assert_int_equal(info.failures, 0); /* kept: it may be asked again */
    end(&b);
}

static void test_long_line(void **state)
{
    (void)state;
    char spec[4200];
    snprintf(spec, sizeof spec, "cmd:python3 %s/longline.py", bad);
    bad_run b;
    run(&b, spec, NULL, (int64_t)(10000 * slow), 0);
    expect(&b, PLAYER_BAD_OUTPUT, "a line longer than 65536 bytes");
    end(&b);
}

static void test_illegal_move(void **state)
{
    (void)state;
    char spec[4200];
    snprintf(spec, sizeof spec, "cmd:python3 %s/illegal.py", bad);
    bad_run b;
    run(&b, spec, NULL, (int64_t)(10000 * slow), 0);
    expect(&b, PLAYER_ILLEGAL_MOVE, "illegal_move: tile ");
    assert_non_null(strstr(b.r.detail, "at (0,0) with rot 0: the cell is taken"));
    end(&b);
}

/* A long-running program that stops reading its stdin (here: one that never
 * reads it) while the game goes on is stopped once the unread messages
 * pass the limit (beyond what the pipe holds), and its next turn says so. */
static void test_stops_reading(void **state)
{
    (void)state;
    sandbox_limits lim;
    sandbox_limits_default(&lim);
    lim.max_unread = 16 * 1024;
    const eng_game *g = eng_find_game("carcassonne");
    player *p = make("cmd:sleep 600", g, &lim);
    eng_rules r;
    eng_rules_default(g, &r);
    unsigned char *st = malloc(g->state_size);
    g->init(st, &r);
    assert_int_equal(player_new_game(p, st, 1, NULL), 0);
    /* the whole game goes by (the driver's random moves for both seats),
     * each turn an update the program never reads: ~5 KB each */
    eng_rng rng;
    eng_rng_seed(&rng, 4);
    int plies = 0;
    while (plies < 120 || g->current_player(st) != 1) {
        int q = g->current_player(st);
        assert_true(q != ENG_TERMINAL);
        eng_move m =
            q == ENG_CHANCE ? eng_sample_chance(g, st, &rng) : eng_random_move(g, st, &rng);
        player_observe(p, st, m, q >= 0 ? "timeout" : NULL);
        g->apply(st, m);
        plies++;
    }
    player_info info;
    player_get_info(p, &info);
    assert_int_equal(info.pid, 0); /* stopped already */
    player_result *res = malloc(sizeof *res);
    assert_int_equal(player_turn(p, st, drv_now_ms() + 5000 * slow, NULL, res), PLAYER_NO_ANSWER);
    assert_non_null(strstr(res->detail, "stopped reading its input: more than 16384 bytes"));
    player_destroy(p);
    free(res);
    free(st);
}

/* Under the random_move policy the game goes on past every fault: the
 * illegal program keeps its process, the sleeper is restarted each turn
 * until the player gives up on it. */
static void test_faults_under_random_policy(void **state)
{
    (void)state;
    char spec[4200];
    snprintf(spec, sizeof spec, "cmd:python3 %s/exit.py", bad);
    bad_run b;
    const eng_game *g = eng_find_game("carcassonne");
    memset(&b, 0, sizeof b);
    drv_init(&b.d, g, 2, 3, (int64_t)(5000 * slow));
    b.d.p[0] = make("random", g, NULL);
    b.d.p[1] = make(spec, g, NULL);
    b.d.random_on_fault = true;
    drv_play(&b.d);
    assert_true(b.d.finished);
    assert_true(b.d.nfaults >= 30); /* every turn of seat 1 */
    for (int i = 0; i < PLAYER_MAX_FAILURES; i++)
        assert_int_equal(b.d.fault[i].verdict, PLAYER_NO_ANSWER);
    /* then no more starts: the seat answers at once */
    assert_non_null(strstr(b.d.fault[PLAYER_MAX_FAILURES].detail, "not started again"));
    player_info info;
    player_get_info(b.d.p[1], &info);
    assert_int_equal(info.starts, PLAYER_MAX_FAILURES);
    end(&b);
}

static void flood(const char *what, const char *in_detail)
{
    char spec[4200];
    snprintf(spec, sizeof spec, "cmd:python3 %s/flood.py %s", bad, what);
    bad_run b;
    run(&b, spec, NULL, (int64_t)(20000 * slow), 0);
    expect(&b, PLAYER_OUTPUT_FLOOD, in_detail);
    assert_true(b.r.stderr_len <= PLAYER_STDERR_KEEP);
    if (strcmp(what, "out") != 0) {
        assert_true(b.r.stderr_total > 1024 * 1024);
        assert_int_equal(b.r.stderr_tail[b.r.stderr_len - 1] == 'x' ||
                             b.r.stderr_tail[b.r.stderr_len - 1] == '\n',
                         1);
    }
    player_info info;
    player_get_info(b.d.p[1], &info);
    assert_int_equal(info.pid, 0);
    end(&b);
}

static void test_flood_stdout(void **state)
{
    (void)state;
    flood("out", "printed more than 1048576 bytes on stdout");
}

static void test_flood_stderr(void **state)
{
    (void)state;
    flood("err", "16777216 on stderr");
}

static void test_flood_both(void **state)
{
    (void)state;
    flood("both", "in one turn");
}

/* How an ended program reads as a verdict, branch by branch (the rules
 * the bridge shares with the players). */
static void test_classify_exit(void **state)
{
    (void)state;
    sandbox_limits lim;
    sandbox_limits_default(&lim);
    lim.memory_mb = 100;
    lim.cpu_s = 5;
    static const struct {
        bool start_failed, signaled, killed, answered;
        int signal, code;
        double cpu_ms;
        int64_t vm_peak_kb, maxrss_kb;
        const char *tail;
        player_verdict want;
        const char *detail;
    } cases[] = {
        {true, false, false, false, 0, 127, 0, 0, 0, "", PLAYER_CRASHED, "could not start: "},
        {false, true, true, false, SIGKILL, 0, 10, 0, 0, "", PLAYER_NO_ANSWER, "killed by tessera"},
        {false, true, false, false, SIGXCPU, 0, 5000, 0, 0, "", PLAYER_TIME_LIMIT,
         "CPU limit of 5 s (CPU time 5.0 s)"},
        {false, true, false, false, SIGKILL, 0, 6000, 0, 0, "", PLAYER_TIME_LIMIT, "CPU limit"},
        {false, true, false, false, SIGXFSZ, 0, 1, 0, 0, "", PLAYER_OUTPUT_FLOOD,
         "size limit of 16 MiB"},
        {false, true, false, false, SIGABRT, 0, 1, 0, 0,
         "terminate called after throwing an instance of 'std::bad_alloc'\n", PLAYER_MEMORY_LIMIT,
         "ran out of memory (limit 100 MiB"},
        {false, true, false, false, SIGSEGV, 0, 1, 99 * 1024, 0, "", PLAYER_MEMORY_LIMIT,
         "peak address space 99 MiB): signal 11 (SIGSEGV)"},
        {false, true, false, false, SIGSEGV, 0, 1, 0, 95 * 1024, "", PLAYER_MEMORY_LIMIT,
         "ran out of memory"},
        {false, true, false, false, SIGSEGV, 0, 1, 20 * 1024, 10 * 1024, "a\nb\n\nc\nlast\n",
         PLAYER_CRASHED, "killed by signal 11 (SIGSEGV: Segmentation fault); stderr: b | c | last"},
        {false, true, false, false, SIGKILL, 0, 100, 0, 0, "", PLAYER_CRASHED, "signal 9 (SIGKILL"},
        {false, false, false, false, 0, 0, 1, 0, 0, "", PLAYER_NO_ANSWER, "exited (status 0)"},
        {false, false, false, true, 0, 0, 1, 0, 0, "", PLAYER_OK, ""},
        {false, false, false, true, 0, 3, 1, 0, 0, "Traceback\nKeyError: 'x'\n", PLAYER_CRASHED,
         "exited with status 3; stderr: Traceback | KeyError: 'x'"},
        {false, false, false, false, 0, 1, 1, 0, 0, "MemoryError\n", PLAYER_MEMORY_LIMIT,
         "exit status 1; stderr: MemoryError"},
        {false, false, false, false, 0, 1, 1, 0, 0, "java.lang.OutOfMemoryError: Java heap space",
         PLAYER_MEMORY_LIMIT, "ran out of memory"},
        {false, false, false, false, 0, 2, 1, 0, 0, "\x1b[31mred\x01\n", PLAYER_CRASHED,
         "stderr: ?[31mred?"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sandbox_status st;
        memset(&st, 0, sizeof st);
        st.exited = true;
        st.start_failed = cases[i].start_failed;
        snprintf(st.start_error, sizeof st.start_error, "execve: Permission denied");
        st.signaled = cases[i].signaled;
        st.signal = cases[i].signal;
        st.code = cases[i].code;
        st.killed = cases[i].killed;
        st.cpu_ms = cases[i].cpu_ms;
        st.vm_peak_kb = cases[i].vm_peak_kb;
        st.maxrss_kb = cases[i].maxrss_kb;
        char detail[PLAYER_DETAIL_MAX];
        player_verdict v = player_classify_exit(&st, &lim, cases[i].tail, cases[i].answered, detail,
                                                sizeof detail);
        if (v != cases[i].want || !strstr(detail, cases[i].detail))
            fail_msg("case %zu: %s '%s', want %s '%s'", i, player_verdict_name(v), detail,
                     player_verdict_name(cases[i].want), cases[i].detail);
        for (const char *c = detail; *c; c++)
            assert_true((unsigned char)*c >= 0x20 && (unsigned char)*c < 0x7f);
    }
    /* a program still running has not answered */
    sandbox_status running;
    memset(&running, 0, sizeof running);
    running.running = true;
    char detail[PLAYER_DETAIL_MAX];
    assert_int_equal(player_classify_exit(&running, NULL, NULL, false, detail, sizeof detail),
                     PLAYER_NO_ANSWER);
    /* every verdict has a name and a short form */
    for (int v = 0; v < PLAYER_NVERDICTS; v++) {
        assert_string_not_equal(player_verdict_name((player_verdict)v), "unknown");
        assert_string_not_equal(player_verdict_short((player_verdict)v), "?");
    }
    assert_string_equal(player_verdict_short(PLAYER_TIME_LIMIT), "TLE");
    assert_string_equal(player_verdict_name(PLAYER_NVERDICTS), "unknown");
}

/* ---- what the sandbox keeps in ---------------------------------------------------------- */

static void fork_children(unsigned disable)
{
    char marker[96], spec[4300];
    marker_for(marker, sizeof marker, "fork");
    snprintf(spec, sizeof spec, "cmd:python3 %s/fork.py %s", bad, marker);
    sandbox_limits lim;
    sandbox_limits_default(&lim);
    lim.disable = disable;
    bad_run b;
    run(&b, spec, &lim, (int64_t)(10000 * slow), 0);
    expect(&b, PLAYER_NO_ANSWER, "exited (status 0)");
    assert_non_null(strstr(b.r.stderr_tail, "child setsid"));
    assert_non_null(strstr(b.r.stderr_tail, "child daemon"));
    assert_all_dead(marker);
    end(&b);
}

/* Children that outlive their parent, even in a new session, die with it. */
static void test_fork_children_die(void **state)
{
    (void)state;
    fork_children(0);
}

/* Without a PID namespace, the pids cgroup (root) still ends them all. */
static void test_fork_children_die_without_pidns(void **state)
{
    (void)state;
    if (!is_root() || !(sandbox_probe(NULL) & SANDBOX_P_CGROUP))
        skip();
    fork_children(SANDBOX_P_PIDNS);
}

static void test_fork_bomb_bounded(void **state)
{
    (void)state;
    char marker[96], spec[4300];
    marker_for(marker, sizeof marker, "bomb");
    snprintf(spec, sizeof spec, "cmd:python3 %s/bomb.py %s", bad, marker);
    sandbox_limits lim;
    sandbox_limits_default(&lim);
    lim.max_tasks = 24;
    bad_run b;
    run(&b, spec, &lim, (int64_t)(20000 * slow), 2);
    expect(&b, PLAYER_OK, NULL);
    const char *m = strstr(b.d.stderr_all[1], "fork failed after ");
    if (!m)
        fail_msg("the bomb was not stopped: %.300s", b.d.stderr_all[1]);
    int made = atoi(m + 18);
    assert_true(made > 0 && made < 24);
    assert_true(count_marked(marker) > 0); /* alive while the program runs */
    player_destroy(b.d.p[1]);
    b.d.p[1] = make("random", eng_find_game("carcassonne"), NULL);
    assert_all_dead(marker);
    end(&b);
}

/* A TCP port the test listens on must never see the program. */
static void no_network(unsigned disable, const char *want)
{
    int ls = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    assert_true(ls >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    assert_int_equal(bind(ls, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(ls, 8), 0);
    socklen_t al = sizeof a;
    getsockname(ls, (struct sockaddr *)&a, &al);
    char spec[4300];
    snprintf(spec, sizeof spec, "cmd:python3 %s/net.py %d", bad, ntohs(a.sin_port));
    sandbox_limits lim;
    sandbox_limits_default(&lim);
    lim.disable = disable;
    bad_run b;
    run(&b, spec, &lim, (int64_t)(10000 * slow), 4);
    expect(&b, PLAYER_OK, NULL); /* no fault: it plays on */
    assert_true(b.d.turns[1] == 2);
    if (!strstr(b.d.stderr_all[1], want))
        fail_msg("stderr does not say '%s': %.400s", want, b.d.stderr_all[1]);
    assert_null(strstr(b.d.stderr_all[1], "connected"));
    struct pollfd p = {.fd = ls, .events = POLLIN};
    assert_int_equal(poll(&p, 1, 200), 0);
    assert_true(accept(ls, NULL, NULL) < 0 && (errno == EAGAIN || errno == EWOULDBLOCK));
    close(ls);
    end(&b);
}

static void test_no_network(void **state)
{
    (void)state;
    if (!(sandbox_probe(NULL) & SANDBOX_P_NETNS))
        skip();
    no_network(0, "net: 127.0.0.1: Network is unreachable");
}

/* Without a network namespace, the seccomp filter refuses internet sockets. */
static void test_no_network_seccomp(void **state)
{
    (void)state;
    sandbox_limits lim;
    sandbox_limits_default(&lim);
    lim.disable = SANDBOX_P_NETNS;
    if (!(sandbox_probe(&lim) & SANDBOX_P_SECCOMP))
        skip();
    no_network(SANDBOX_P_NETNS, "net: 127.0.0.1: Permission denied");
}

/* What a probe reports is what a program gets; as root, all of it. */
static void test_protections(void **state)
{
    (void)state;
    unsigned p = sandbox_probe(NULL);
    char text[512];
    sandbox_protections_text(p, text, sizeof text);
    print_message("protections as uid %d: %s\n", (int)geteuid(), text);
    unsigned always = SANDBOX_P_RLIMITS | SANDBOX_P_PGROUP | SANDBOX_P_WORKDIR |
                      SANDBOX_P_CLEANENV | SANDBOX_P_NONEWPRIVS;
    assert_int_equal(p & always, always);
    if (is_root()) {
        unsigned root = SANDBOX_P_PIDNS | SANDBOX_P_NETNS | SANDBOX_P_UID;
        assert_int_equal(p & root, root);
        assert_true(p & (SANDBOX_P_CGROUP | SANDBOX_P_NPROC));
    } else {
        /* a process count always binds: exactly (userns, cgroup) or per user */
        assert_true(p & (SANDBOX_P_CGROUP | SANDBOX_P_NPROC));
    }
    /* the same from a running program, which also sees what it is given */
    char marker[96], spec[4300];
    marker_for(marker, sizeof marker, "env");
    const eng_game *g = eng_find_game("reversi");
    snprintf(spec, sizeof spec, "cmd:%s", c_bot);
    player *pl = make(spec, g, NULL);
    eng_rules r;
    eng_rules_default(g, &r);
    unsigned char *st = malloc(g->state_size);
    g->init(st, &r);
    player_new_game(pl, st, 0, marker);
    player_result *res = malloc(sizeof *res);
    assert_int_equal(player_turn(pl, st, drv_now_ms() + 10000 * slow, NULL, res), PLAYER_OK);
    player_info info;
    player_get_info(pl, &info);
    assert_int_equal(info.protections, p);
    /* its environment and descriptors, from /proc */
    char path[64], buf[4096];
    snprintf(path, sizeof path, "/proc/%d/environ", (int)info.pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    assert_true(fd >= 0);
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    assert_true(n > 0);
    int vars = 0;
    for (ssize_t i = 0; i < n; i += (ssize_t)strlen(buf + i) + 1) {
        if (strncmp(buf + i, "PATH=", 5) && strncmp(buf + i, "HOME=/", 6) &&
            strncmp(buf + i, "LANG=", 5))
            fail_msg("unexpected variable %s", buf + i);
        vars++;
    }
    assert_int_equal(vars, 3);
    snprintf(path, sizeof path, "/proc/%d/fd", (int)info.pid);
    DIR *d = opendir(path);
    assert_non_null(d);
    int fds = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.') {
            fds++;
            assert_true(atoi(e->d_name) <= 2);
        }
    closedir(d);
    assert_int_equal(fds, 3);
    /* its working directory: fresh, its own, removed at the end */
    snprintf(path, sizeof path, "/proc/%d/cwd", (int)info.pid);
    char cwd[4096];
    ssize_t cl = readlink(path, cwd, sizeof cwd - 1);
    assert_true(cl > 0);
    cwd[cl] = 0;
    assert_non_null(strstr(cwd, "/tessera-bot-"));
    struct stat sb;
    assert_int_equal(stat(cwd, &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0700);
    player_destroy(pl);
    assert_true(stat(cwd, &sb) != 0 && errno == ENOENT);
    free(res);
    free(st);
}

/* A tessera killed with SIGKILL takes its programs along, even one that
 * ignores the end of its stdin. */
static void test_dies_with_its_caller(void **state)
{
    (void)state;
    char marker[64], spec[128];
    snprintf(marker, sizeof marker, "600.%d", (int)getpid()); /* sleep's seconds, unique */
    snprintf(spec, sizeof spec, "cmd:sleep %s", marker);
    int ready[2];
    assert_int_equal(pipe(ready), 0);
    pid_t helper = fork();
    assert_true(helper >= 0);
    if (helper == 0) {
        const eng_game *g = eng_find_game("reversi");
        char err[256];
        player *p = player_create(spec, g, NULL, err, sizeof err);
        eng_rules r;
        eng_rules_default(g, &r);
        unsigned char st[1024];
        g->init(st, &r);
        if (!p || player_new_game(p, st, 0, NULL) != 0)
            _exit(1);
        if (write(ready[1], "r", 1) != 1)
            _exit(1);
        for (;;)
            pause();
    }
    close(ready[1]);
    char c;
    assert_int_equal(read(ready[0], &c, 1), 1);
    close(ready[0]);
    for (int i = 0; i < 200 && count_marked(marker) == 0; i++)
        usleep(5000); /* the program's execve */
    assert_int_equal(count_marked(marker), 1);
    kill(helper, SIGKILL);
    waitpid(helper, NULL, 0);
    assert_all_dead(marker);
}

/* ---- nothing leaks -------------------------------------------------------------------- */

static int count_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        n += e->d_name[0] != '.';
    closedir(d);
    return n - 1; /* the one opendir holds */
}

static long status_field(const char *name)
{
    FILE *f = fopen("/proc/self/status", "re");
    char line[256];
    long v = -1;
    size_t nl = strlen(name);
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, name, nl) == 0 && line[nl] == ':')
            v = strtol(line + nl + 1, NULL, 10);
    if (f)
        fclose(f);
    return v;
}

/* Our children that are zombies (or any child at all still there). */
static int count_children(void)
{
    DIR *d = opendir("/proc");
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        char path[300], line[256];
        snprintf(path, sizeof path, "/proc/%.256s/status", e->d_name);
        FILE *f = fopen(path, "re");
        if (!f)
            continue;
        while (fgets(line, sizeof line, f))
            if (strncmp(line, "PPid:", 5) == 0) {
                n += atoi(line + 5) == (int)getpid();
                break;
            }
        fclose(f);
    }
    closedir(d);
    return n;
}

static int count_workdirs(void)
{
    const char *tmp = getenv("TMPDIR");
    DIR *d = opendir(tmp && tmp[0] == '/' ? tmp : "/tmp");
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL)
        n += strncmp(e->d_name, "tessera-bot-", 12) == 0;
    if (d)
        closedir(d);
    return n;
}

/* One short game: a Reversi turn of a stateless program (a process per
 * turn), or a few turns of a long-running one. */
static void one_round(const eng_game *g, const char *stateless, const char *running, int i,
                      player_result *res, unsigned char *st)
{
    eng_rules r;
    eng_rules_default(g, &r);
    g->init(st, &r);
    player *p = make(i % 10 == 9 ? running : stateless, g, NULL);
    assert_int_equal(player_new_game(p, st, 0, "leak"), 0);
    int turns = i % 10 == 9 ? 3 : 1;
    for (int t = 0; t < turns; t++) {
        if (player_turn(p, st, drv_now_ms() + 10000 * slow, NULL, res) != PLAYER_OK)
            fail_msg("round %d: %s: %s", i, player_verdict_name(res->verdict), res->detail);
        for (int k = 0; k < res->nmoves; k++) {
            player_observe(p, st, res->moves[k], NULL);
            g->apply(st, res->moves[k]);
        }
        /* the other seat: a random move */
        eng_rng rng;
        eng_rng_seed(&rng, (uint64_t)i);
        eng_move m = eng_random_move(g, st, &rng);
        player_observe(p, st, m, NULL);
        g->apply(st, m);
    }
    player_game_over(p, st, "normal", -1, NULL, res);
    player_destroy(p);
}

static void test_no_leaks(void **state)
{
    (void)state;
    const eng_game *g = eng_find_game("reversi");
    /* the programs' working directories go to a folder of this test's own,
     * so that programs run by other tests at the same time (CTest -j) are
     * not counted; sticky and open to all, as /tmp, for the sandbox's user */
    const char *old_tmp = getenv("TMPDIR");
    char saved_tmp[512] = "", mine[] = "/tmp/tessera-leaks-XXXXXX";
    if (old_tmp)
        snprintf(saved_tmp, sizeof saved_tmp, "%s", old_tmp);
    assert_non_null(mkdtemp(mine));
    assert_int_equal(chmod(mine, 01777), 0);
    setenv("TMPDIR", mine, 1);
    char stateless[4200], running[4200];
    snprintf(stateless, sizeof stateless, "cmd-stateless:%s", c_bot);
    snprintf(running, sizeof running, "cmd:%s", c_bot);
    player_result *res = malloc(sizeof *res);
    unsigned char *st = malloc(g->state_size);
    for (int i = 0; i < 50; i++) /* warm up: allocator pools, jansson, caches */
        one_round(g, stateless, running, i, res, st);
    int fds0 = count_fds(), dirs0 = count_workdirs(), children0 = count_children();
    long threads0 = status_field("Threads"), rss0 = status_field("VmRSS");
    double t0 = drv_now_ms();
    int n = 1000;
    for (int i = 0; i < n; i++)
        one_round(g, stateless, running, i, res, st);
    double ms = drv_now_ms() - t0;
    long rss1 = status_field("VmRSS");
    print_message("%d games, each a program start (9 in 10 stateless, one turn; 1 in 10 "
                  "long-running, 3 turns) in %.0f ms (%.1f ms each); RSS %ld -> %ld kB\n",
                  n, ms, ms / n, rss0, rss1);
    assert_int_equal(count_fds(), fds0);
    assert_int_equal(status_field("Threads"), threads0);
    assert_int_equal(count_children(), children0);
    assert_int_equal(count_workdirs(), dirs0);
    if (slow == 1)
        assert_true(rss1 - rss0 < 2048); /* kB; sanitizers keep freed memory in quarantine */
    free(res);
    free(st);
    assert_int_equal(rmdir(mine), 0); /* every working directory is gone */
    if (saved_tmp[0])
        setenv("TMPDIR", saved_tmp, 1);
    else
        unsetenv("TMPDIR");
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s SRC_DIR SEGV_BIN C_BOT [nonroot]\n", argv[0]);
        return 2;
    }
    src_dir = argv[1];
    segv_bin = argv[2];
    c_bot = argv[3];
    snprintf(bad, sizeof bad, "%s/tests/players/bad", src_dir);
    const char *san = getenv("TESSERA_SANITIZED");
    if (san && san[0] == '1')
        slow = 4;
    if (argc > 4 && strcmp(argv[4], "nonroot") == 0) {
        if (is_root()) {
            fprintf(stderr, "nonroot: run me as another user\n");
            return 2;
        }
        const struct CMUnitTest nonroot[] = {
            cmocka_unit_test(test_protections),
            cmocka_unit_test(test_time_limit),
            cmocka_unit_test(test_crash),
            cmocka_unit_test(test_fork_children_die),
            cmocka_unit_test(test_fork_bomb_bounded),
            cmocka_unit_test(test_no_network),
            cmocka_unit_test(test_no_network_seccomp),
        };
        return cmocka_run_group_tests_name("sandbox_nonroot", nonroot, NULL, NULL);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_classify_exit),
        cmocka_unit_test(test_protections),
        cmocka_unit_test(test_time_limit),
        cmocka_unit_test(test_cpu_limit),
        cmocka_unit_test(test_memory_limit),
        cmocka_unit_test(test_crash),
        cmocka_unit_test(test_exits_at_once),
        cmocka_unit_test(test_not_json),
        cmocka_unit_test(test_long_line),
        cmocka_unit_test(test_illegal_move),
        cmocka_unit_test(test_faults_under_random_policy),
        cmocka_unit_test(test_stops_reading),
        cmocka_unit_test(test_flood_stdout),
        cmocka_unit_test(test_flood_stderr),
        cmocka_unit_test(test_flood_both),
        cmocka_unit_test(test_fork_children_die),
        cmocka_unit_test(test_fork_children_die_without_pidns),
        cmocka_unit_test(test_fork_bomb_bounded),
        cmocka_unit_test(test_no_network),
        cmocka_unit_test(test_no_network_seccomp),
        cmocka_unit_test(test_dies_with_its_caller),
        cmocka_unit_test(test_no_leaks),
    };
    return cmocka_run_group_tests_name("sandbox", tests, NULL, NULL);
}
