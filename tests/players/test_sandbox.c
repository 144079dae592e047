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
#define _GNU_SOURCE
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
#include <grp.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

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
    /* the kernel's RLIMIT_CPU samples at its ticks, and on a loaded machine
     * fires some way before the cgroup's exact count reaches the second
     * (870 ms seen at a load of 50 on 2 cores) */
    if (b.r.cpu_ms < 700)
        fail_msg("charged %.0f ms: %s", b.r.cpu_ms, b.r.detail);
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
        int64_t mem_peak_kb, maxrss_kb;
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
         "peak 99 MiB): signal 11 (SIGSEGV)"},
        {false, true, false, false, SIGKILL, 0, 1, 100 * 1024, 0, "", PLAYER_MEMORY_LIMIT,
         "killed by the kernel at its memory limit (100 MiB for all its processes, peak 100 MiB)"},
        {false, true, false, false, SIGSEGV, 0, 1, 0, 0, "[tessera] /usr/bin/x\nboom\n",
         PLAYER_CRASHED, "stderr: boom"},
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
        st.mem_peak_kb = cases[i].mem_peak_kb;
        st.oom_kills = cases[i].mem_peak_kb == 100 * 1024; /* the kernel's kill at the limit */
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

/* Children that outlive their parent, even in a new session, die with it
 * (its PID namespace ends). */
static void test_fork_children_die(void **state)
{
    (void)state;
    fork_children(0);
}

/* Without bubblewrap (an explicit opt-out of this sandbox), its cgroup
 * still ends them all. */
static void test_fork_children_die_without_pidns(void **state)
{
    (void)state;
    fork_children(SANDBOX_P_MOUNTNS);
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

/* A TCP port the test listens on must never see the program: the filter
 * refuses internet sockets, with or without bubblewrap. */
static void no_network(unsigned disable)
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
    if (!strstr(b.d.stderr_all[1], "net: 127.0.0.1: Permission denied") ||
        !strstr(b.d.stderr_all[1], "net: 1.1.1.1: Permission denied"))
        fail_msg("stderr: %.400s", b.d.stderr_all[1]);
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
    no_network(0);
}

static void test_no_network_without_bwrap(void **state)
{
    (void)state;
    no_network(SANDBOX_P_MOUNTNS);
}

/* The machine gives every part: the probe says so, and a program started
 * now has all of it. */
static void test_protections(void **state)
{
    (void)state;
    char why[2048];
    if (sandbox_check(why, sizeof why) != 0)
        fail_msg("%s", why);
    unsigned p = sandbox_probe(NULL);
    char text[512], want[512];
    sandbox_protections_text(p, text, sizeof text);
    sandbox_protections_text(sandbox_full(), want, sizeof want);
    print_message("protections as uid %d: %s\n", (int)geteuid(), text);
    if ((p & sandbox_full()) != sandbox_full())
        fail_msg("have %s; full isolation is %s", text, want);
    assert_string_equal(sandbox_isolation(), "full");
    char spec[4300];
    snprintf(spec, sizeof spec, "cmd:%s", c_bot);
    const eng_game *g = eng_find_game("reversi");
    player *pl = make(spec, g, NULL);
    eng_rules r;
    eng_rules_default(g, &r);
    unsigned char *st = malloc(g->state_size);
    g->init(st, &r);
    player_new_game(pl, st, 0, "prot");
    player_result *res = malloc(sizeof *res);
    assert_int_equal(player_turn(pl, st, drv_now_ms() + 10000 * slow, NULL, res), PLAYER_OK);
    player_info info;
    player_get_info(pl, &info);
    assert_int_equal(info.protections & sandbox_full(), sandbox_full());
    /* the program's log says which file ran */
    assert_non_null(strstr(res->stderr_tail, SANDBOX_NOTE_PREFIX));
    assert_non_null(strstr(res->stderr_tail, "stdio_bot"));
    player_destroy(pl);
    free(res);
    free(st);
}

/* ---- hostile programs ---------------------------------------------------------------------- */

/* A folder of its own for hostile.py in this mode, with its hostile.json
 * ({"mode","marker"} and the extra fields, a JSON object's inside). */
static void hostile_dir(char *dir, size_t cap, const char *mode, const char *marker,
                        const char *extra)
{
    snprintf(dir, cap, "/tmp/tessera-hostile-XXXXXX");
    assert_non_null(mkdtemp(dir));
    assert_int_equal(chmod(dir, 0755), 0); /* the sandbox's users read it */
    char src[4200], dst[4200];
    snprintf(src, sizeof src, "%s/hostile.py", bad);
    snprintf(dst, sizeof dst, "%s/hostile.py", dir);
    FILE *in = fopen(src, "rb"), *out = fopen(dst, "wb");
    assert_non_null(in);
    assert_non_null(out);
    char buf[8192];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        assert_int_equal(fwrite(buf, 1, n, out), n);
    fclose(in);
    fclose(out);
    snprintf(dst, sizeof dst, "%s/hostile.json", dir);
    out = fopen(dst, "w");
    assert_non_null(out);
    fprintf(out, "{\"mode\": \"%s\", \"marker\": \"%s\"%s%s}\n", mode, marker,
            extra && extra[0] ? ", " : "", extra ? extra : "");
    fclose(out);
}

static void rm_hostile_dir(const char *dir)
{
    char path[4300];
    const char *names[] = {"hostile.py", "hostile.json"};
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    if (rmdir(dir) != 0)
        fail_msg("%s holds more than the test put there (%s)", dir, strerror(errno));
}

/* The spy's report, from its stderr. */
static json_t *findings(const char *text)
{
    const char *f = strstr(text, "FINDINGS ");
    if (!f)
        fail_msg("no FINDINGS in the spy's stderr: %.600s", text);
    json_error_t e;
    json_t *j = json_loadb(f + 9, strcspn(f + 9, "\n"), 0, &e);
    if (!j)
        fail_msg("FINDINGS: %s", e.text);
    return j;
}

/* Every value of object o is one of the words in `allowed` ("A|B|C"). */
static void all_in(json_t *o, const char *what, const char *allowed)
{
    const char *k;
    json_t *v;
    json_object_foreach(o, k, v)
    {
        const char *s = json_string_value(v);
        char bar[64];
        snprintf(bar, sizeof bar, "|%s|", s ? s : "?");
        char list[256];
        snprintf(list, sizeof list, "|%s|", allowed);
        if (!s || !strstr(list, bar))
            fail_msg("%s %s: %s (want %s)", what, k, s ? s : "?", allowed);
    }
}

/* Files named `name` in the machine's shared temporary folders. */
static int shared_tmp_files(const char *name)
{
    const char *dirs[] = {"/tmp", "/var/tmp", "/dev/shm"};
    int n = 0;
    for (int i = 0; i < 3; i++) {
        char path[4300];
        struct stat sb;
        snprintf(path, sizeof path, "%s/%s", dirs[i], name);
        n += lstat(path, &sb) == 0;
    }
    return n;
}

/* Host pids whose command line holds marker, into out (at most cap). */
static int marked_pids(const char *marker, int *out, int cap)
{
    DIR *d = opendir("/proc");
    int n = 0;
    struct dirent *e;
    size_t ml = strlen(marker);
    while (d && (e = readdir(d)) != NULL && n < cap) {
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
                out[n++] = atoi(e->d_name);
                break;
            }
    }
    if (d)
        closedir(d);
    return n;
}

/* CPU time of the processes marked so, now, ms (from /proc: utime+stime). */
static double marked_cpu_ms(const char *marker)
{
    int pids[256];
    int n = marked_pids(marker, pids, 256);
    double ticks = 0;
    for (int i = 0; i < n; i++) {
        char path[64], buf[1024];
        snprintf(path, sizeof path, "/proc/%d/stat", pids[i]);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        ssize_t len = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (len <= 0)
            continue;
        buf[len] = 0;
        char *rp = strrchr(buf, ')');
        unsigned long long ut, st;
        if (rp && sscanf(rp + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut,
                         &st) == 2)
            ticks += (double)(ut + st);
    }
    return ticks * 1000.0 / (double)sysconf(_SC_CLK_TCK);
}

/* Two programs in one game, a spy and a victim, both long-running (both
 * alive all game, as two students' bots in a tournament's game): the spy
 * sees nothing of the victim or the machine, changes nothing outside its
 * own private folders, reaches no socket, and what it wrote is gone after;
 * the victim's memory and files are intact at every turn. */
static void test_two_programs(void **state)
{
    (void)state;
    char spy_marker[96], victim_marker[96], spy_dir[64], victim_dir[64];
    marker_for(spy_marker, sizeof spy_marker, "spy");
    marker_for(victim_marker, sizeof victim_marker, "victim");
    /* what lies outside both folders: a file as secret as a journal */
    char secret_dir[] = "/tmp/tessera-secret-XXXXXX", secret[128];
    assert_non_null(mkdtemp(secret_dir));
    assert_int_equal(chmod(secret_dir, 0755), 0);
    snprintf(secret, sizeof secret, "%s/tessera.db", secret_dir);
    FILE *f = fopen(secret, "w");
    assert_non_null(f);
    fputs("the journal", f);
    fclose(f);
    assert_int_equal(chmod(secret, 0644), 0); /* readable by all: only the sandbox hides it */
    /* a TCP port and an abstract Unix socket of the machine */
    int tcp = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    assert_int_equal(bind(tcp, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(tcp, 8), 0);
    socklen_t al = sizeof a;
    getsockname(tcp, (struct sockaddr *)&a, &al);
    int ab = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    struct sockaddr_un ua = {.sun_family = AF_UNIX};
    snprintf(ua.sun_path + 1, sizeof ua.sun_path - 1, "%s", spy_marker);
    assert_int_equal(bind(ab, (struct sockaddr *)&ua,
                          (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
                                      strlen(spy_marker))),
                     0);
    assert_int_equal(listen(ab, 8), 0);

    hostile_dir(victim_dir, sizeof victim_dir, "victim", victim_marker, NULL);
    const eng_game *g = eng_find_game("reversi");
    drv_game d;
    drv_init(&d, g, 2, 5, (int64_t)(10000 * slow));
    char vspec[4300], sspec[4300];
    snprintf(vspec, sizeof vspec, "cmd:python3 %s/hostile.py victim %s", victim_dir,
             victim_marker);
    d.p[0] = make(vspec, g, NULL);
    /* the victim plays a turn before the spy is made: its processes (and
     * its secrets) exist, and their pids are the spy's targets */
    eng_rules r;
    eng_rules_default(g, &r);
    unsigned char *st0 = malloc(g->state_size);
    g->init(st0, &r);
    assert_int_equal(player_new_game(d.p[0], st0, 0, "warm"), 0);
    player_result *warm = malloc(sizeof *warm);
    assert_int_equal(player_turn(d.p[0], st0, drv_now_ms() + 10000 * slow, NULL, warm), PLAYER_OK);
    const char *vu = strstr(warm->stderr_tail, "VICTIM uid ");
    if (!vu)
        fail_msg("the victim did not say its uid: %.300s", warm->stderr_tail);
    long long victim_uid = atoll(vu + 11);
    free(warm);
    int vpids[16];
    int nv = marked_pids(victim_marker, vpids, 16);
    assert_true(nv >= 2); /* bubblewrap's monitor and init, python */
    char extra[8192];
    int o = snprintf(extra, sizeof extra,
                     "\"read\": [\"%s\", \"%s\", \"%s/hostile.json\", \"%s/secret-%s\", "
                     "\"/tmp/tessera-secret-does-not-matter\"], "
                     "\"write\": [\"%s\", \"%s\", \"/tmp/..\"], \"port\": %d, "
                     "\"abstract\": \"%s\", \"pids\": [%d",
                     secret, victim_dir, victim_dir, SANDBOX_HOME, victim_marker, secret_dir,
                     victim_dir, ntohs(a.sin_port), spy_marker, (int)getpid());
    for (int i = 0; i < nv; i++)
        o += snprintf(extra + o, sizeof extra - (size_t)o, ", %d", vpids[i]);
    snprintf(extra + o, sizeof extra - (size_t)o, "]");
    hostile_dir(spy_dir, sizeof spy_dir, "spy", spy_marker, extra);
    snprintf(sspec, sizeof sspec, "cmd:python3 %s/hostile.py spy %s", spy_dir, spy_marker);
    d.p[1] = make(sspec, g, NULL);
    drv_play(&d);
    if (d.nfaults)
        fail_msg("seat %d: %s: %s; stderr: %.600s", d.fault_seat[0],
                 player_verdict_name(d.fault[0].verdict), d.fault[0].detail,
                 d.fault[0].stderr_tail);
    assert_true(d.finished);

    json_t *fd = findings(d.stderr_all[1]);
    char *dump = json_dumps(fd, JSON_COMPACT);
    print_message("spy: %.1500s\n", dump);
    free(dump);
    /* its own processes only: bubblewrap's init and itself */
    json_t *procs = json_object_get(fd, "procs");
    assert_true(json_object_size(procs) >= 1 && json_object_size(procs) <= 3);
    const char *k;
    json_t *v;
    char self[32];
    snprintf(self, sizeof self, "%lld", (long long)json_integer_value(json_object_get(fd, "self")));
    json_object_foreach(procs, k, v)
    {
        /* itself, and bubblewrap's init (pid 1) that started it */
        const char *cl = json_string_value(v);
        if (!cl || (strcmp(k, "1") != 0 && strcmp(k, self) != 0) || !strstr(cl, spy_marker) ||
            strstr(cl, victim_marker))
            fail_msg("the spy sees process %s: %s", k, cl ? cl : "?");
        if (strstr(cl, spy_dir))
            fail_msg("the machine's path of its folder is in its argv: %s", cl);
    }
    /* the pids it can name are those processes */
    json_t *sig = json_object_get(fd, "signalable");
    size_t i;
    json_array_foreach(sig, i, v)
    {
        char pid[32];
        snprintf(pid, sizeof pid, "%lld", (long long)json_integer_value(v));
        if (!json_object_get(procs, pid))
            fail_msg("the spy can signal pid %s, not one of its own", pid);
    }
    /* the journal-like file, the other's folder, its files: not there */
    all_in(json_object_get(fd, "read"), "read", "ENOENT");
    /* nothing of the machine is writable; its folder is read-only */
    all_in(json_object_get(fd, "write"), "write", "ENOENT|EROFS|EACCES|EPERM");
    all_in(json_object_get(fd, "tmp"), "tmp", "written");
    /* the others' processes: not there, not traceable, not readable */
    all_in(json_object_get(fd, "ptrace"), "ptrace", "EPERM");
    all_in(json_object_get(fd, "vm_read"), "process_vm_readv", "EPERM");
    json_t *mem = json_object_get(fd, "mem");
    json_t *kills = json_object_get(fd, "kill");
    assert_int_equal(json_object_size(kills), (size_t)nv + 1);
    json_object_foreach(kills, k, v)
    {
        assert_string_equal(json_string_value(v), "ESRCH");
        const char *m = json_string_value(json_object_get(mem, k));
        if (!m || (strcmp(m, "ENOENT") != 0 && strcmp(m, "EACCES") != 0 && strcmp(m, "EPERM") != 0))
            fail_msg("/proc/%s/mem: %s", k, m ? m : "?");
    }
    json_t *net = json_object_get(fd, "net");
    assert_string_equal(json_string_value(json_object_get(net, "tcp")), "EACCES");
    assert_string_equal(json_string_value(json_object_get(net, "abstract")), "ECONNREFUSED");
    all_in(json_object_get(fd, "syscalls"), "syscall", "EPERM");
    /* who it is, where, with what */
    json_int_t uid = json_integer_value(json_object_get(fd, "uid"));
    if (is_root()) {
        assert_true(uid >= PLAYER_UID_POOL_BASE && uid < PLAYER_UID_POOL_BASE + PLAYER_UID_POOL_SIZE);
        /* a uid of its own: not the victim's */
        if (victim_uid == (long long)uid)
            fail_msg("the spy and the victim share uid %lld", (long long)uid);
    }
    else
        assert_int_equal(uid, (json_int_t)getuid());
    assert_string_equal(json_string_value(json_object_get(fd, "cwd")), SANDBOX_HOME);
    json_array_foreach(json_object_get(fd, "env"), i, v)
    {
        const char *e = json_string_value(v);
        if (strcmp(e, "PATH") && strcmp(e, "HOME") && strcmp(e, "LANG") && strcmp(e, "PWD"))
            fail_msg("environment variable %s", e);
    }
    json_array_foreach(json_object_get(fd, "fds"), i, v)
    {
        int fdn = atoi(json_string_value(v));
        if (fdn > 3) /* 0, 1, 2, and the one listing them */
            fail_msg("descriptor %d", fdn);
    }
    json_decref(fd);
    /* the victim: intact at every turn, after the spy's */
    assert_null(strstr(d.stderr_all[0], "TAMPERED"));
    assert_non_null(strstr(d.stderr_all[0], "VICTIM intact turn 3"));
    /* nobody reached the sockets */
    struct pollfd pf[2] = {{.fd = tcp, .events = POLLIN}, {.fd = ab, .events = POLLIN}};
    assert_int_equal(poll(pf, 2, 100), 0);
    close(tcp);
    close(ab);

    player_destroy(d.p[0]);
    player_destroy(d.p[1]);
    drv_free(&d);
    free(st0);
    /* the spy's 1 MiB files in its /tmp, /var/tmp, /dev/shm, HOME are gone
     * with it; nothing landed in the machine's */
    char name[160];
    snprintf(name, sizeof name, "hostile-%s", spy_marker);
    assert_int_equal(shared_tmp_files(name), 0);
    snprintf(name, sizeof name, "secret-%s", victim_marker);
    assert_int_equal(shared_tmp_files(name), 0);
    rm_hostile_dir(victim_dir); /* nothing written into it */
    rm_hostile_dir(spy_dir);
    assert_int_equal(unlink(secret), 0);
    assert_int_equal(rmdir(secret_dir), 0);
    assert_all_dead(spy_marker);
    assert_all_dead(victim_marker);
}

/* A program whose busy children do the thinking: their CPU is its think
 * time, and it loses on time. */
static void test_children_charged(void **state)
{
    (void)state;
    char marker[96], dir[64], spec[4300];
    marker_for(marker, sizeof marker, "burner");
    hostile_dir(dir, sizeof dir, "burner", marker, "\"children\": 3, \"hold\": \"sleep\"");
    snprintf(spec, sizeof spec, "cmd:python3 %s/hostile.py burner %s", dir, marker);
    bad_run b;
    int64_t ms = (int64_t)(2000 * slow);
    run(&b, spec, NULL, ms, 0);
    expect(&b, PLAYER_TIME_LIMIT, NULL);
    /* the parent sleeps: what is charged is the children's. Each said how
     * much CPU it had used (the last it said is a floor of what it used:
     * the machine's load decides how much that is; before cgroups, the
     * charge was ~0 whatever they used) */
    double said[16] = {0};
    int pids[16], np = 0;
    for (const char *c = strstr(b.d.stderr_all[1], "CHILD "); c; c = strstr(c + 1, "CHILD ")) {
        int pid;
        double cpu;
        if (sscanf(c, "CHILD %d %lf", &pid, &cpu) != 2)
            continue;
        int k = 0;
        while (k < np && pids[k] != pid)
            k++;
        if (k == np && np < 16)
            pids[np++] = pid;
        if (k < 16 && cpu > said[k])
            said[k] = cpu;
    }
    double sum = 0;
    for (int k = 0; k < np; k++)
        sum += said[k];
    print_message("3 busy children, %lld ms: %s; charged %.0f ms of CPU, the children said "
                  "%.0f ms\n",
                  (long long)ms, b.r.detail, b.r.cpu_ms, sum);
    assert_true(np >= 1 && sum >= 10);
    if (b.r.cpu_ms < sum - 10)
        fail_msg("charged %.0f ms of CPU; its children alone used %.0f ms", b.r.cpu_ms, sum);
    end(&b);
    assert_all_dead(marker);
    rm_hostile_dir(dir);
}

/* Between its turns a program is frozen: its children burn nothing while
 * the others think. With the freezer disabled they would. */
static void frozen(unsigned disable, bool want_frozen)
{
    char marker[96], dir[64], spec[4300];
    marker_for(marker, sizeof marker, "frozen");
    hostile_dir(dir, sizeof dir, "burner", marker, "\"children\": 2");
    snprintf(spec, sizeof spec, "cmd:python3 %s/hostile.py burner %s", dir, marker);
    sandbox_limits lim;
    sandbox_limits_default(&lim);
    lim.disable = disable;
    const eng_game *g = eng_find_game("reversi");
    player *p = make(spec, g, &lim);
    eng_rules r;
    eng_rules_default(g, &r);
    unsigned char *st = malloc(g->state_size);
    g->init(st, &r);
    assert_int_equal(player_new_game(p, st, 0, "frozen"), 0);
    player_result *res = malloc(sizeof *res);
    assert_int_equal(player_turn(p, st, drv_now_ms() + 10000 * slow, NULL, res), PLAYER_OK);
    assert_non_null(strstr(res->stderr_tail, "BURNER "));
    usleep(50 * 1000); /* the freeze is asynchronous */
    double c0 = marked_cpu_ms(marker);
    usleep(1000 * 1000); /* another seat's turn */
    double burnt = marked_cpu_ms(marker) - c0;
    print_message("%s: %.0f ms of CPU in 1000 ms between turns\n",
                  want_frozen ? "frozen" : "not frozen", burnt);
    /* frozen: nothing (the clock ticks are 10 ms); not frozen: two busy
     * children under one CPU's quota, however loaded the machine */
    if (want_frozen)
        assert_true(burnt <= 20);
    else
        assert_true(burnt >= 50);
    player_destroy(p);
    assert_all_dead(marker);
    rm_hostile_dir(dir);
    free(res);
    free(st);
}

static void test_frozen_between_turns(void **state)
{
    (void)state;
    frozen(0, true);
}

static void test_not_frozen_without_freezer(void **state)
{
    (void)state;
    frozen(SANDBOX_P_FREEZER, false);
}

/* The CPU time of all its processes ends a read at its limit, however
 * long the clock still runs. */
static void test_cpu_time_limit(void **state)
{
    (void)state;
    char marker[96], dir[64], line[4300];
    marker_for(marker, sizeof marker, "cpulimit");
    hostile_dir(dir, sizeof dir, "burner", marker, "\"children\": 2, \"hold\": true");
    snprintf(line, sizeof line, "python3 %s/hostile.py burner %s", dir, marker);
    sandbox_cmd cmd;
    char err[512];
    if (sandbox_cmd_parse(line, NULL, &cmd, err, sizeof err))
        fail_msg("%s", err);
    sandbox *s = sandbox_start(&cmd, NULL, NULL, err, sizeof err);
    if (!s)
        fail_msg("%s", err);
    const char *msg = "{\"type\":\"your_turn\",\"turn\":1,\"legal\":[0]}\n";
    assert_int_equal(sandbox_send(s, msg, strlen(msg)), 0);
    double cpu0 = sandbox_cpu_ms(s), t0 = drv_now_ms();
    sandbox_set_cpu_limit(s, cpu0 + 400);
    const char *got;
    size_t len;
    sandbox_event ev = sandbox_read_line(s, t0 + 60000 * slow, NULL, &got, &len);
    double cpu = sandbox_cpu_ms(s) - cpu0;
    print_message("CPU limit 400 ms: after %.0f ms, %.0f ms of CPU\n", drv_now_ms() - t0, cpu);
    assert_int_equal(ev, SANDBOX_CPU_LIMIT);
    assert_true(cpu >= 400);
    sandbox_destroy(s, 0);
    assert_all_dead(marker);
    rm_hostile_dir(dir);
}

/* All its processes' memory, /tmp files included, has one limit: past it
 * the kernel kills, and the verdict says so. */
static void test_memory_cgroup(void **state)
{
    (void)state;
    char spec[4300];
    snprintf(spec, sizeof spec, "cmd:python3 %s/hog.py 60 80", bad);
    sandbox_limits lim;
    sandbox_limits_default(&lim);
    lim.memory_mb = 160;
    bad_run b;
    run(&b, spec, &lim, (int64_t)(20000 * slow), 0);
    expect(&b, PLAYER_MEMORY_LIMIT, "killed by the kernel at its memory limit (160 MiB");
    end(&b);
}

/* A tessera killed with SIGKILL takes its programs along, even one that
 * ignores the end of its stdin, and one frozen between its turns. */
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
    for (int i = 0; i < 200 && count_marked(marker) < 2; i++)
        usleep(5000); /* bubblewrap's monitor, and the program's execve */
    assert_true(count_marked(marker) >= 1);
    kill(helper, SIGKILL);
    waitpid(helper, NULL, 0);
    assert_all_dead(marker);
}

/* ---- failing closed ------------------------------------------------------------------------ */

static char self_argv0[4096];

/* Run this program again with `mode` (the machine's probe is made once per
 * process, so a fresh one), as nobody or not; the test fails with what the
 * child says when it fails. */
static void in_child(const char *mode, bool as_nobody, const char *what)
{
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(p[0]);
        dup2(p[1], 1);
        dup2(p[1], 2);
        if (as_nobody &&
            (setgroups(0, NULL) || setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534)))
            _exit(3);
        execl("/proc/self/exe", self_argv0, src_dir, segv_bin, c_bot, mode, (char *)NULL);
        _exit(4);
    }
    close(p[1]);
    char msg[4096] = "";
    ssize_t n = 0, got;
    while ((got = read(p[0], msg + n, sizeof msg - 1 - (size_t)n)) > 0)
        n += got;
    msg[n > 0 ? n : 0] = 0;
    close(p[0]);
    int st;
    waitpid(pid, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        fail_msg("%s: %s", what, msg);
    print_message("%s: %s\n", what, msg);
}

static void child_fail(int out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void child_fail(int out, const char *fmt, ...)
{
    char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    ssize_t w = write(out, buf, strlen(buf));
    (void)w;
    _exit(1);
}

/* As a user with no cgroup of its own: refused, the message naming what is
 * missing and how to provide it; with the operator's opt-out, run with the
 * rest, and said so. */
static void no_cgroup(int out)
{
    char why[2048];
    if (sandbox_check(why, sizeof why) == 0)
        child_fail(out, "sandbox_check passed without a cgroup: %s", why);
    if (!strstr(why, "no cgroup it may write") || !strstr(why, "Delegate=yes") ||
        !strstr(why, "isolation = partial"))
        child_fail(out, "the message does not say what is missing and how: %s", why);
    if (strcmp(sandbox_isolation(), "unavailable") != 0)
        child_fail(out, "isolation %s", sandbox_isolation());
    char spec[4300], err[2048];
    snprintf(spec, sizeof spec, "cmd:%s", c_bot);
    const eng_game *g = eng_find_game("reversi");
    if (player_create(spec, g, NULL, err, sizeof err))
        child_fail(out, "a program seat was accepted");
    if (!strstr(err, "no cgroup it may write"))
        child_fail(out, "player_create says: %s", err);
    /* opted out */
    sandbox_setup cfg = {.partial = true};
    sandbox_configure(&cfg);
    if (sandbox_check(why, sizeof why) != 0 || strcmp(sandbox_isolation(), "partial") != 0)
        child_fail(out, "the opt-out was not taken: %s", why);
    player *p = player_create(spec, g, NULL, err, sizeof err);
    if (!p)
        child_fail(out, "opted out, still refused: %s", err);
    eng_rules r;
    eng_rules_default(g, &r);
    unsigned char st[1024];
    g->init(st, &r);
    player_new_game(p, st, 0, NULL);
    player_result *res = malloc(sizeof *res);
    if (player_turn(p, st, drv_now_ms() + 10000 * slow, NULL, res) != PLAYER_OK)
        child_fail(out, "opted out: %s", res->detail);
    player_info info;
    player_get_info(p, &info);
    if (info.protections & (SANDBOX_P_MEMORY | SANDBOX_P_FREEZER))
        child_fail(out, "a cgroup after all");
    if (!(info.protections & SANDBOX_P_MOUNTNS))
        child_fail(out, "opted out: no bubblewrap either");
    player_destroy(p);
    free(res);
    ssize_t w = write(out, why, strlen(why));
    (void)w;
}

static void test_fails_closed_without_cgroup(void **state)
{
    (void)state;
    in_child("no-cgroup", true, "as nobody without a cgroup");
}

/* Without bubblewrap (TESSERA_BWRAP names a missing file): refused, saying
 * which package to install. */
static void no_bwrap(int out)
{
    char why[2048];
    if (sandbox_check(why, sizeof why) == 0)
        child_fail(out, "sandbox_check passed without bubblewrap");
    if (!strstr(why, "bubblewrap is not installed") || !strstr(why, "apt-get install bubblewrap"))
        child_fail(out, "%s", why);
    char spec[4300], err[2048];
    snprintf(spec, sizeof spec, "cmd:%s", c_bot);
    if (player_create(spec, eng_find_game("reversi"), NULL, err, sizeof err))
        child_fail(out, "a program seat was accepted");
    ssize_t w = write(out, why, strlen(why));
    (void)w;
}

static void test_fails_closed_without_bwrap(void **state)
{
    (void)state;
    setenv("TESSERA_BWRAP", "/nonexistent/bwrap", 1);
    in_child("no-bwrap", false, "without bubblewrap");
    unsetenv("TESSERA_BWRAP");
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

/* Suites that need the machine's isolation fail, naming what is missing,
 * unless TESSERA_SKIP_MISSING=1 (then 77: skipped). */
static int require_isolation(void **state)
{
    (void)state;
    char why[2048];
    if (sandbox_check(why, sizeof why) == 0 && strcmp(sandbox_isolation(), "full") == 0)
        return 0;
    const char *skip = getenv("TESSERA_SKIP_MISSING");
    fprintf(stderr, "%s: %s\n", skip && skip[0] == '1' ? "SKIPPED" : "MISSING", why);
    if (skip && skip[0] == '1')
        exit(77);
    return -1;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s SRC_DIR SEGV_BIN C_BOT [nonroot|no-cgroup|no-bwrap]\n", argv[0]);
        return 2;
    }
    src_dir = argv[1];
    segv_bin = argv[2];
    c_bot = argv[3];
    snprintf(self_argv0, sizeof self_argv0, "%s", argv[0]);
    snprintf(bad, sizeof bad, "%s/tests/players/bad", src_dir);
    const char *san = getenv("TESSERA_SANITIZED");
    if (san && san[0] == '1')
        slow = 4;
    /* TESSERA_TEST_FILTER=test_two_programs: one test (a pattern, cmocka's) */
    const char *filter = getenv("TESSERA_TEST_FILTER");
    if (filter && filter[0])
        cmocka_set_test_filter(filter);
    if (argc > 4 && strcmp(argv[4], "no-cgroup") == 0) {
        no_cgroup(1);
        return 0;
    }
    if (argc > 4 && strcmp(argv[4], "no-bwrap") == 0) {
        no_bwrap(1);
        return 0;
    }
    if (argc > 4 && strcmp(argv[4], "nonroot") == 0) {
        if (is_root()) {
            fprintf(stderr, "nonroot: run me as another user\n");
            return 2;
        }
        /* the same isolation as root's, asserted the same way */
        const struct CMUnitTest nonroot[] = {
            cmocka_unit_test(test_protections),
            cmocka_unit_test(test_two_programs),
            cmocka_unit_test(test_children_charged),
            cmocka_unit_test(test_frozen_between_turns),
            cmocka_unit_test(test_cpu_time_limit),
            cmocka_unit_test(test_memory_cgroup),
            cmocka_unit_test(test_time_limit),
            cmocka_unit_test(test_crash),
            cmocka_unit_test(test_fork_children_die),
            cmocka_unit_test(test_fork_bomb_bounded),
            cmocka_unit_test(test_no_network),
            cmocka_unit_test(test_dies_with_its_caller),
        };
        return cmocka_run_group_tests_name("sandbox_nonroot", nonroot, require_isolation, NULL);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_classify_exit),
        cmocka_unit_test(test_protections),
        cmocka_unit_test(test_two_programs),
        cmocka_unit_test(test_children_charged),
        cmocka_unit_test(test_frozen_between_turns),
        cmocka_unit_test(test_not_frozen_without_freezer),
        cmocka_unit_test(test_cpu_time_limit),
        cmocka_unit_test(test_memory_cgroup),
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
        cmocka_unit_test(test_no_network_without_bwrap),
        cmocka_unit_test(test_dies_with_its_caller),
        cmocka_unit_test(test_fails_closed_without_cgroup),
        cmocka_unit_test(test_fails_closed_without_bwrap),
        cmocka_unit_test(test_no_leaks),
    };
    return cmocka_run_group_tests_name("sandbox", tests, require_isolation, NULL);
}
