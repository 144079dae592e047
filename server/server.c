/*
 * server.c — start-up, recovery, the demo match and shutdown.
 *
 * Start: open the journal, restore every unfinished match (replaying its
 * moves), start libwebsockets on our libuv loop, then run. SIGINT/SIGTERM:
 * stop accepting work, tell every search to stop, close every connection
 * with "going away", destroy the lws context (and again once the loop has
 * drained, as lws requires with a foreign loop), close the journal.
 * Unfinished matches stay unfinished in the journal and resume at the next
 * start: a graceful shutdown loses nothing either.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "access.h"
#include "analyze.h"
#include "cluster.h"
#include "conn.h"
#include "courses.h"
#include "handlers.h"
#include "internal.h"
#include "match.h"
#include "net.h"
#include "programs.h"
#include "thinking.h"
#include "registry.h"
#include "server.h"
#include "storage/db.h"
#include "journal/journal.h"
#include "tournaments.h"

/* ---- the demo match ---------------------------------------------------------- */

/* Split a --demo spec into its bot specs, one per seat, and check each. The
 * spec is "BOT" (the same bot in both seats) or "BOT,BOT". A bot's own options
 * are separated by ',' too ("mcts:ms=500,k=1,rave"), so a ',' starts a new
 * bot only where a bot type's name follows it. Returns the number of seats
 * (2), or -1 with the reason in err. */
static int demo_split(const char *demo, char bots[2][PROTO_SPEC_MAX + 1], char *err, size_t errcap)
{
    const eng_game *g = eng_find_game("carcassonne");
    size_t total = strlen(demo);
    if (total == 0) {
        snprintf(err, errcap,
                 "--demo= names no bot (give one or two bot specs, e.g. "
                 "--demo=mcts:ms=1000,heuristic)");
        return -1;
    }
    char *specs = malloc(total + 1);
    if (!specs) {
        snprintf(err, errcap, "out of memory");
        return -1;
    }
    memcpy(specs, demo, total + 1);
    int n = 0, rc = 0;
    for (char *p = specs; *p && rc == 0;) {
        char *start = p, *cut = NULL;
        for (char *q = strchr(p, ','); q; q = strchr(q + 1, ',')) {
            char name[64];
            size_t k = strcspn(q + 1, ":,");
            if (k < sizeof name) {
                memcpy(name, q + 1, k);
                name[k] = 0;
                if (bot_find_type(name)) {
                    cut = q;
                    break;
                }
            }
        }
        if (cut) {
            *cut = 0;
            p = cut + 1;
        } else {
            p += strlen(p);
        }
        size_t len = strlen(start);
        char e[256];
        if (n == 2) {
            snprintf(err, errcap,
                     "--demo takes one or two bots (a 2-player match), got a third: '%.100s'",
                     start);
            rc = -1;
        } else if (len == 0) {
            snprintf(err, errcap, "--demo: bot %d is empty (an extra ',')", n + 1);
            rc = -1;
        } else if (len > PROTO_SPEC_MAX) {
            snprintf(err, errcap, "--demo: bot %d is longer than %d characters", n + 1,
                     PROTO_SPEC_MAX);
            rc = -1;
        } else if (start[len - 1] == ',') {
            snprintf(err, errcap, "--demo: bot %d is empty (an extra ',')", n + 2);
            rc = -1;
        } else if (!strchr(start, ':') && strchr(start, ',')) {
            /* "mcts,foo": no options, so what follows the ',' was meant as a bot */
            snprintf(err, errcap, "--demo: unknown bot '%.60s' (see `tessera bots`)",
                     strchr(start, ',') + 1);
            rc = -1;
        } else if (bot_check_spec(start, g, e, sizeof e) != 0) {
            snprintf(err, errcap, "--demo: bot %d: %s", n + 1, e);
            rc = -1;
        } else {
            memcpy(bots[n++], start, len + 1);
        }
    }
    free(specs);
    if (rc)
        return -1;
    if (n == 1)
        memcpy(bots[1], bots[0], sizeof bots[0]);
    return 2;
}

/* This server's instance name: [cluster] instance, or the host name made
 * valid (characters outside the set become '-'). */
static void instance_name(srv *s)
{
    if (s->cfg.instance) {
        snprintf(s->instance, sizeof s->instance, "%s", s->cfg.instance);
        return;
    }
    char host[256] = "";
    if (gethostname(host, sizeof host - 1) != 0 || !host[0])
        snprintf(host, sizeof host, "tessera");
    snprintf(s->instance, sizeof s->instance, "%.*s", JOURNAL_INSTANCE_MAX, host);
    for (char *c = s->instance; *c; c++)
        if (!strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:-", *c))
            *c = '-';
}

int srv_config_check(const srv_config *cfg, char *err, size_t errcap)
{
    char bots[2][PROTO_SPEC_MAX + 1];
    if (cfg->demo && demo_split(cfg->demo, bots, err, errcap) < 0)
        return -1;
    if (!cfg->tls_cert != !cfg->tls_key) {
        snprintf(err, errcap, "TLS needs both tls.cert and tls.key (--tls-cert, --tls-key): "
                 "only %s is set",
                 cfg->tls_cert ? "the certificate" : "the key");
        return -1;
    }
    if (cfg->instance && !srv_instance_valid(cfg->instance)) {
        snprintf(err, errcap,
                 "cluster.instance '%.80s': a name of 1 to %d characters among A-Z a-z 0-9 . _ : -",
                 cfg->instance, JOURNAL_INSTANCE_MAX);
        return -1;
    }
    const char *a = cfg->cluster_address;
    if (a && (strlen(a) > SRV_ADDRESS_MAX || strcspn(a, " \t\r\n\"\\") != strlen(a) ||
              (strncmp(a, "ws://", 5) && strncmp(a, "wss://", 6)))) {
        snprintf(err, errcap, "cluster.address '%.80s': a ws:// or wss:// URL of at most %d "
                 "characters without spaces or quotes", a, SRV_ADDRESS_MAX);
        return -1;
    }
    if (cfg->redis && !(cfg->storage && db_target_is_pg(cfg->storage))) {
        snprintf(err, errcap, "cluster.redis needs PostgreSQL storage (journal.storage): servers "
                              "that share events must share one database");
        return -1;
    }
    struct {
        const char *text, *name;
    } lists[] = {{cfg->quota_exempt, "quota.exempt"},
                 {cfg->metrics_allow, "metrics.allow"},
                 {cfg->trusted_proxies, "server.trusted_proxies"}};
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++) {
        srv_cidr tmp[SRV_MAX_ADDRS];
        char e[200];
        if (srv_cidr_parse_list(lists[i].text, tmp, SRV_MAX_ADDRS, e, sizeof e) < 0) {
            snprintf(err, errcap, "%s: %s", lists[i].name, e);
            return -1;
        }
    }
    return 0;
}

static void start_demo(srv *s)
{
    if (!s->cfg.demo || s->stopping)
        return;
    for (match *m = s->matches; m; m = m->next)
        if (m->demo && m->status != MATCH_FINISHED)
            return;
    proto_msg msg;
    memset(&msg, 0, sizeof msg);
    msg.type = PROTO_CREATE_MATCH;
    msg.game = "carcassonne";
    char err[256];
    char bots[2][PROTO_SPEC_MAX + 1];
    msg.nseats = demo_split(s->cfg.demo, bots, err, sizeof err);
    if (msg.nseats < 0) { /* srv_run() checked it: not reached */
        srv_log(LOG_ERROR, "demo_failed", "{s:s}", "reason", err);
        return;
    }
    for (int i = 0; i < msg.nseats; i++)
        memcpy(msg.seats[i].bot, bots[i], sizeof msg.seats[i].bot);
    msg.tc.move_ms = 5000;
    msg.tc.first_move_ms = 5000;
    msg.pol.timeout = PROTO_TIMEOUT_RANDOM;
    msg.pol.illegal = PROTO_ILLEGAL_RANDOM;
    msg.pol.max_illegal = 3;
    msg.pol.disconnect = PROTO_DISCONNECT_RANDOM;
    msg.pol.reconnect_grace_ms = 30000;
    int code;
    /* the operator's own bots (--demo): a file one names is the operator's to read */
    match_opts opts = {.admin = true};
    match *m = match_create_ex(s, &msg, &opts, &code, err, sizeof err);
    if (!m) {
        srv_log(LOG_ERROR, "demo_failed", "{s:s}", "reason", err);
        return;
    }
    m->demo = true;
    srv_log(LOG_INFO, "demo_started", "{s:s}", "match", m->id);
    match_advance(m);
}

static void on_demo_timer(uv_timer_t *t)
{
    start_demo(t->data);
}

/* srv.demo_over: a demo match ended; the next starts after a pause, so that
 * viewers see the final board. */
static void demo_over(srv *s)
{
    if (s->cfg.demo && !s->stopping)
        uv_timer_start(&s->demo_timer, on_demo_timer, 10000, 0);
}

/* ---- limits and test hooks -------------------------------------------------------- */

#ifdef TESSERA_TEST_HOOKS
/* A test hook's value: a whole number >= min, or `def` when unset; a bad
 * value stops the start (a test that sets a hook must get it). */
static bool hook_int(const char *name, long long min, long long def, long long *out)
{
    const char *v = getenv(name);
    *out = def;
    if (!v)
        return true;
    char *end;
    long long n = strtoll(v, &end, 10);
    if (*v == 0 || *end || n < min) {
        fprintf(stderr, "tessera serve: %s must be a whole number >= %lld, got '%s'\n", name, min,
                v);
        return false;
    }
    *out = n;
    return true;
}
#endif

void srv_limits_default(srv *s)
{
    s->max_live_matches = SRV_MAX_LIVE_MATCHES;
    s->max_spectators = SRV_MAX_SPECTATORS;
    s->finished_kept = SRV_MAX_FINISHED_KEPT;
    s->wal_reset_frames = JOURNAL_WAL_RESET_FRAMES;
    s->idle_timeout_s = SRV_HANGUP_IDLE_S;
    if (!s->cfg.rate_per_sec)
        s->cfg.rate_per_sec = SRV_RATE_PER_SEC;
    if (!s->cfg.rate_burst)
        s->cfg.rate_burst = SRV_RATE_BURST;
    if (!s->cfg.bot_threads)
        s->cfg.bot_threads = 1; /* as config.c's default: one search thread a bot */
}

/* The limits in force (the configuration's) and the test hooks (limits.h).
 * false: a bad hook value. */
static bool read_limits(srv *s)
{
    srv_limits_default(s);
    if (s->cfg.max_matches > 0)
        s->max_live_matches = s->cfg.max_matches;
    if (s->cfg.max_spectators > 0)
        s->max_spectators = s->cfg.max_spectators;
    if (s->cfg.finished_kept > 0)
        s->finished_kept = s->cfg.finished_kept;
    if (s->cfg.idle_timeout_ms > 0) {
        int secs = (s->cfg.idle_timeout_ms + 999) / 1000;
        s->idle_timeout_s = secs < SRV_MIN_IDLE_S   ? SRV_MIN_IDLE_S
                            : secs > SRV_MAX_IDLE_S ? SRV_MAX_IDLE_S
                                                    : secs;
    }
#ifdef TESSERA_TEST_HOOKS
    long long seed, ro, illegal, maxm, maxs, kept, walf, sdelay;
    if (!hook_int("TESSERA_TEST_SEED", 0, -1, &seed) ||
        !hook_int("TESSERA_TEST_READONLY_AFTER", 1, 0, &ro) ||
        !hook_int("TESSERA_TEST_BOT_ILLEGAL_TURN", 1, 0, &illegal) ||
        !hook_int("TESSERA_TEST_MAX_MATCHES", 1, s->max_live_matches, &maxm) ||
        !hook_int("TESSERA_TEST_MAX_SPECTATORS", 1, s->max_spectators, &maxs) ||
        !hook_int("TESSERA_TEST_FINISHED_KEPT", 1, s->finished_kept, &kept) ||
        !hook_int("TESSERA_TEST_WAL_FRAMES", 1, s->wal_reset_frames, &walf) ||
        !hook_int("TESSERA_TEST_STANDINGS_DELAY_MS", 1, 0, &sdelay))
        return false;
    /* lower only: a hook never lifts a limit */
    bool lowered = maxm < s->max_live_matches || maxs < s->max_spectators ||
                   kept < s->finished_kept || walf < s->wal_reset_frames;
    if (walf < s->wal_reset_frames)
        s->wal_reset_frames = (int)walf;
    if (maxm < s->max_live_matches)
        s->max_live_matches = (int)maxm;
    if (maxs < s->max_spectators)
        s->max_spectators = (int)maxs;
    if (kept < s->finished_kept)
        s->finished_kept = (int)kept;
    const char *fault_file = getenv("TESSERA_TEST_FAULT_FILE");
    if (fault_file && fault_file[0]) {
        snprintf(s->test.fault_file, sizeof s->test.fault_file, "%s", fault_file);
        journal_fault_hook_install();
    }
    const char *sync_log = getenv("TESSERA_TEST_SYNC_LOG");
    if (sync_log && sync_log[0])
        snprintf(s->test.sync_log, sizeof s->test.sync_log, "%s", sync_log);
    s->test.seed_set = seed >= 0;
    s->test.seed = seed >= 0 ? (uint64_t)seed : 0;
    s->test.readonly_after = ro > INT32_MAX ? INT32_MAX : (int)ro;
    s->test.bot_illegal_turn = illegal > INT32_MAX ? INT32_MAX : (int)illegal;
    s->test.standings_delay_ms = sdelay > 60000 ? 60000 : (int)sdelay;
    if (s->test.seed_set || ro || illegal || lowered || s->test.fault_file[0] ||
        s->test.sync_log[0] || sdelay)
        srv_log(LOG_WARN, "test_hooks", "{s:I, s:i, s:i, s:i, s:i, s:i, s:i, s:s, s:s, s:i}", "seed",
                (json_int_t)seed, "readonly_after", s->test.readonly_after, "bot_illegal_turn",
                s->test.bot_illegal_turn, "max_matches", s->max_live_matches, "max_spectators",
                s->max_spectators, "finished_kept", s->finished_kept, "wal_frames",
                s->wal_reset_frames, "fault_file", s->test.fault_file, "sync_log",
                s->test.sync_log, "standings_delay_ms", s->test.standings_delay_ms);
#endif
    return true;
}

/* ---- descriptors ---------------------------------------------------------------- */

/*
 * Every connection is a descriptor. The soft limit is raised to the hard one
 * (the loop uses epoll, so a large limit costs nothing; lws sizes its table
 * from it when the context is made, so this runs first). When max_conns and
 * the descriptors the server needs for itself do not fit even then, the
 * server says so and lowers max_conns: a connection past it is refused with
 * a clear `too_many` error instead of failing in accept() with EMFILE, where
 * no client would hear why.
 */
static void fd_limit(srv *s)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return;
    rlim_t was = rl.rlim_cur;
    if (rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
            rl.rlim_cur = was;
    }
    long long limit = rl.rlim_cur == RLIM_INFINITY ? (long long)1 << 40 : (long long)rl.rlim_cur;
    long long fit = limit - SRV_FD_RESERVE;
    if (s->cfg.max_conns <= fit) {
        if (rl.rlim_cur != was)
            srv_log(LOG_DEBUG, "fd_limit", "{s:I, s:I}", "raised_from", (json_int_t)was, "to",
                    (json_int_t)limit);
        return;
    }
    int lowered = fit > 1 ? (int)fit : 1;
    srv_log(LOG_WARN, "fd_limit", "{s:I, s:i, s:i, s:i, s:s}", "limit", (json_int_t)limit,
            "reserved", SRV_FD_RESERVE, "max_conns", s->cfg.max_conns, "lowered_to", lowered,
            "note",
            "max_conns needs more descriptors than the process may open (ulimit -Hn, systemd "
            "LimitNOFILE=): connections past lowered_to are refused; a match of two remote seats "
            "on two connections takes two");
    fprintf(stderr,
            "tessera serve: max_conns %d needs more descriptors than the limit of %lld allows "
            "(%d kept for the server itself): at most %d connections; raise the hard limit "
            "(ulimit -Hn) to serve more\n",
            s->cfg.max_conns, limit, SRV_FD_RESERVE, lowered);
    s->cfg.max_conns = lowered;
}

/* ---- shutdown ------------------------------------------------------------------- */

/* Shutdown waits for the goodbyes: until every connection has closed (the
 * client answered our close frame), or SRV_GOODBYE_MS at most. */
static void on_stop_timer(uv_timer_t *t)
{
    srv *s = t->data;
    if (s->conns && srv_now(s) < s->stop_at)
        return; /* the repeating timer looks again */
    uv_timer_stop(t);
    uv_close((uv_handle_t *)t, NULL);
    net_stop(s);
}

/* uv_hrtime() at the first signal: the stop's figures in the last log line */
static uint64_t stop_hr;

static void on_signal(uv_signal_t *h, int signum)
{
    srv *s = h->data;
    if (s->stopping) {
        /* a second signal: out now, without the goodbyes (every journaled
         * move is safe in the WAL; nothing is left to clean up for anyone) */
        srv_log(LOG_WARN, "shutdown_forced", "{s:i}", "signal", signum);
        _exit(1);
    }
    s->stopping = true;
    stop_hr = uv_hrtime();
    srv_log(LOG_INFO, "shutdown", "{s:i, s:i, s:i}", "signal", signum, "connections", s->nconns,
            "live_matches", s->nlive);
    srv_log(LOG_ALWAYS, "stats", "{s:o}", "stats", srv_stats_json(s));
    uv_timer_stop(&s->demo_timer);
    uv_close((uv_handle_t *)&s->demo_timer, NULL);
    access_stop(s);
    /* the signal handlers stay, so that a second signal forces the exit
     * (closed, they would leave SIGTERM to its default action), but they no
     * longer keep the loop running */
    uv_unref((uv_handle_t *)&s->sigint);
    uv_unref((uv_handle_t *)&s->sigterm);
    /* stop every search, program and timer; matches and tournaments stay
     * unfinished in the journal */
    tours_shutdown(s);
    courses_shutdown(s);
    analyze_shutdown(s);
    cluster_stop(s);
    while (s->matches)
        match_close(s->matches);
    progs_shutdown(s);
    thinking_shutdown(s);
    journal_stop(s->db);
    for (conn *c = s->conns; c; c = c->next) {
        conn_error(c, ENG_ESHUTTING_DOWN, "the server is shutting down; resume later", NULL);
        conn_close_after(c, LWS_CLOSE_STATUS_GOINGAWAY, "server shutting down");
    }
    /* give the goodbyes a moment to reach the wire, then stop lws */
    uv_timer_init(s->loop, &s->stop_timer);
    s->stop_timer.data = s;
    s->stop_at = srv_now(s) + SRV_GOODBYE_MS;
    uv_timer_start(&s->stop_timer, on_stop_timer, s->conns ? 20 : 0, 20);
}

int srv_journal_open(srv *s, const char *target, bool durable, char *err, size_t errcap)
{
    const srv_config *c = &s->cfg;
    journal_config jc = {
        .loop = s->loop,
        .durable = durable,
        .check = c->check == SRV_CHECK_FULL    ? JOURNAL_CHECK_FULL
                 : c->check == SRV_CHECK_QUICK ? JOURNAL_CHECK_QUICK
                                               : JOURNAL_CHECK_OFF,
        .busy_timeout_ms = c->busy_timeout_ms,
        .wal_reset_frames = s->wal_reset_frames,
        .instance = s->instance,
        .address = c->cluster_address,
        .lease_ms = c->lease_ms,
        .fault_file = s->test.fault_file,
        .sync_log = s->test.sync_log,
        .readonly_after = s->test.readonly_after,
    };
    return journal_open(target, &jc, &s->db, err, errcap);
}

void srv_texts_free(srv *s)
{
    tb_free(&s->send_txt);
    tb_free(&s->msg_txt);
    tb_free(&s->msg2_txt);
    tb_free(&s->change_txt);
    tb_free(&s->state_txt);
    s->state_txt_of = NULL;
}

/* The course service: on a cluster every server's plays the gates, that of
 * the one holding the coordinator role alone answers the course messages. */
static int start_courses(srv *s, bool coordinator)
{
    char err[512];
    if (courses_start(s, coordinator, err, sizeof err) == 0)
        return 0;
    srv_log(LOG_ERROR, "courses_unavailable", "{s:s}", "reason", err);
    return -1;
}

static int role_gained(srv *s, const char *role)
{
    return strcmp(role, CLUSTER_COORDINATOR) == 0 ? start_courses(s, true) : 0;
}

/* What the cluster hands the handlers, and tells the tournaments and the
 * courses (cluster.h). */
static const cluster_apps cluster_apps_of_server = {
    .message = handle_message,
    .conn_closed = handle_conn_closed,
    .claim = tours_claim,
    .taken_over = tours_take_over,
    .tour_owner = tours_owner,
    .tick = tours_write_summaries,
    .role_gained = role_gained,
};

int srv_run(const srv_config *cfg)
{
    static srv s; /* one server per process; too big for the stack (histograms) */
    memset(&s, 0, sizeof s);
    s.cfg = *cfg;
    if (s.cfg.max_conns <= 0)
        s.cfg.max_conns = SRV_MAX_CONNS_DEFAULT;
    srv_log_set_level(cfg->log_level);
    char err[512];
    if (srv_config_check(cfg, err, sizeof err)) {
        fprintf(stderr, "tessera serve: %s\n", err);
        return 2;
    }
    /* in-process searches share the libuv pool: one thread per core */
    if (!getenv("UV_THREADPOOL_SIZE")) {
        char n[24];
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        snprintf(n, sizeof n, "%ld", cores > 0 ? cores : 2);
        setenv("UV_THREADPOOL_SIZE", n, 0);
    }
    s.loop = uv_default_loop();
    s.started_ms = (uint64_t)srv_epoch_ms();
    if (!read_limits(&s))
        return 2;
    fd_limit(&s);
    metrics_init(&s);
    if (access_init(&s, err, sizeof err)) {
        fprintf(stderr, "tessera serve: %s\n", err);
        access_free(&s);
        return 2;
    }
    instance_name(&s);
    if (srv_journal_open(&s, srv_storage_target(cfg), cfg->durable, err, sizeof err)) {
        srv_log(LOG_ERROR, "start_failed", "{s:s}", "reason", err);
        fprintf(stderr, "tessera serve: %s\n", err);
        return 1;
    }
    int irc = admin_init(&s, err, sizeof err);
    if (irc == 0 && (irc = progs_init(&s)) != 0)
        snprintf(err, sizeof err, "the program workers could not be set up");
    if (irc == 0 && (irc = thinking_init(&s, match_find)) != 0)
        snprintf(err, sizeof err, "the thinking lines' queue could not be set up");
    s.match_over = tours_match_finished; /* a no-op until the tournaments are up */
    if (irc == 0)
        irc = tours_init(&s, err, sizeof err);
    journal_restorer restorer = match_journal_restorer(&s);
    if (irc || journal_load(s.db, &restorer, s.finished_kept, err, sizeof err)) {
        srv_log(LOG_ERROR, "start_failed", "{s:s}", "reason", err);
        fprintf(stderr, "tessera serve: %s\n", err);
        while (s.matches)
            match_close(s.matches);
        progs_shutdown(&s);
        thinking_shutdown(&s);
        access_stop(&s);
        uv_run(s.loop, UV_RUN_DEFAULT); /* the programs end, the handles close */
        tours_free(&s);
        journal_close(s.db);
        access_free(&s);
        return 1;
    }
    if (net_start(&s, err, sizeof err)) {
        srv_log(LOG_ERROR, "start_failed", "{s:s}", "reason", err);
        fprintf(stderr, "tessera serve: %s\n", err);
        while (s.matches)
            match_close(s.matches);
        progs_shutdown(&s);
        thinking_shutdown(&s);
        uv_run(s.loop, UV_RUN_NOWAIT); /* the matches' handles close */
        /* a context whose vhost failed: lws 4.1 leaves handles that must not
         * run after the destroy (they crash), so the loop does not run again */
        net_stop(&s);
        tours_free(&s);
        journal_close(s.db);
        access_free(&s);
        return 1;
    }
    uv_signal_init(s.loop, &s.sigint);
    uv_signal_init(s.loop, &s.sigterm);
    s.sigint.data = s.sigterm.data = &s;
    uv_signal_start(&s.sigint, on_signal, SIGINT);
    uv_signal_start(&s.sigterm, on_signal, SIGTERM);
    uv_timer_init(s.loop, &s.demo_timer);
    s.demo_timer.data = &s;
    s.demo_over = demo_over;
    s.seats_freed = tours_poke;
    journal_start(s.db);
    access_start(&s);

    srv_log(LOG_INFO, "listening", "{s:s, s:i, s:s, s:s, s:b, s:b, s:b}", "host",
            cfg->host ? cfg->host : "*", "port", s.cfg.port, "db",
            journal_describe(s.db), "web", cfg->web_root ? cfg->web_root : "",
            "tls", s.tls, "anonymous_bot_matches", s.bots_anyone, "anonymous_open_matches",
            s.open_anyone);
    bool v6 = cfg->host && strchr(cfg->host, ':'); /* an IPv6 address goes in brackets */
    /* the address a person types: localhost for the default loopback bind */
    const char *shown = !cfg->host || strcmp(cfg->host, "127.0.0.1") == 0 ? "localhost" : cfg->host;
    printf("tessera is serving on %s://%s%s%s:%d/ (WebSocket on the same address)%s — Ctrl-C "
           "stops it\n",
           s.tls ? "https" : "http", v6 ? "[" : "", shown,
           v6 ? "]" : "", s.cfg.port, cfg->demo ? ", with a live demo match" : "");
    fflush(stdout);
    /* resume what the journal had in flight */
    for (match *m = s.matches; m; m = m->next)
        if (m->status != MATCH_FINISHED)
            match_advance(m);
    tours_resume(&s);
    if (cluster_start(&s, &cluster_apps_of_server, err, sizeof err)) {
        srv_log(LOG_ERROR, "start_failed", "{s:s}", "reason", err);
        fprintf(stderr, "tessera serve: %s\n", err);
    }
    /* the port file says "connect now": on a cluster, once the link to the
     * other servers is up (or its first attempt failed), so that a client's
     * first message can be forwarded */
    for (uint64_t t0 = uv_now(s.loop); cluster_linking(&s) && uv_now(s.loop) - t0 < SRV_REDIS_CONNECT_MS;)
        uv_run(s.loop, UV_RUN_ONCE);
    if (cfg->port_file) {
        FILE *f = fopen(cfg->port_file, "w");
        if (f) {
            fprintf(f, "%d\n", s.cfg.port);
            fclose(f);
        }
    }
    /* the courses are one server's of a cluster (cluster.c, roles) */
    start_courses(&s, cluster_claim_role(&s, CLUSTER_COORDINATOR));
    start_demo(&s);

    uv_run(s.loop, UV_RUN_DEFAULT);
    /* lws with a foreign loop: destroy again once the loop has drained */
    net_stop(&s);
    uv_close((uv_handle_t *)&s.sigint, NULL);
    uv_close((uv_handle_t *)&s.sigterm, NULL);
    uv_run(s.loop, UV_RUN_NOWAIT);
    tours_free(&s);
    registry_free(&s);
    cluster_free(&s);
    uint64_t close_hr = uv_hrtime();
    journal_close(s.db); /* the last checkpoint: the WAL is bounded (limits.h) */
    s.db = NULL;
    uint64_t done_hr = uv_hrtime();
    access_free(&s);
    free(s.progs);
    free(s.held);
    free(s.flush);
    free(s.wbuf);
    srv_texts_free(&s);
    uv_loop_close(s.loop);
    /* how long the stop took, from the signal: the operator's guide
     * promises a bound (docs/operations.md, "Stopping"); at any log level,
     * like the stats line */
    srv_log(LOG_ALWAYS, "stopped", "{s:I, s:I}", "shutdown_ms",
            (json_int_t)(stop_hr ? (done_hr - stop_hr) / 1000000 : 0), "journal_close_ms",
            (json_int_t)((done_hr - close_hr) / 1000000));
    return 0;
}
