/*
 * loadgen.c — a load generator for `tessera serve` that costs the machine as
 * little as possible per move, so that the server's throughput can be
 * measured on the same two cores (bench/load.js's Node clients need 60–115 µs
 * of CPU per move themselves; this needs a few).
 *
 *   tessera-loadgen --port P [--host A] [--matches N] [--seed S]
 *                   [--server-pid PID] [--move-ms MS] [--timeout-s T] [--think-ms MS]
 *                   [--ports P1,P2,... [--route owner|cross|spread|follow]] [--marks]
 *                   [--go-delay-ms MS]
 *
 * It creates N two-seat Carcassonne matches with open seats (create_match
 * over a few control connections), opens one connection per seat, asks for
 * protocol 2 (compact legal moves) in hello, joins every seat at once and
 * plays a uniformly random legal move (placement, then one of its meeple
 * ports or none) as soon as a seat is asked, or --think-ms after it (the
 * offered load then fixed by the matches and their bots' pace, the same
 * for two servers compared). It prints one JSON object:
 * the turns played, the play's wall time, moves/s, its own CPU per move,
 * and with --server-pid the server's CPU per move over the same interval
 * (from /proc/PID/stat).
 *
 * Several servers of one cluster (--ports, docs/scaling.md): match i is
 * created on server i mod K, and its seats connect, with --route owner (the
 * default), to that server — as clients routed to their match's owner (the
 * lobby's server_url, a join's owner_url, a proxy routing by ?server=NAME)
 * do —, or with --route cross to the other servers (seat s of a match of
 * server k on server k+1+(s mod K-1) mod K): every move then crosses Redis to the
 * owner and back. --route spread puts seat s of match i on server (2i+s) mod
 * K, whoever owns it, as a proxy balancing connections does: a K-th of the
 * seats on their owner. --route follow arrives as spread and follows the
 * hint: a seat whose `joined` carries owner_url (ws://HOST:PORT/: the owner
 * must advertise its own port, --advertise) leaves that connection unread,
 * connects to PORT and resumes there with its resume token, as `tessera bot`
 * and the web page do; "followed" in the result counts them.
 * --marks prints {"mark":"go"} when the play starts and {"mark":"end"} when
 * the last match is over, each on its own line before the result, so that
 * a caller can read other processes' CPU over the play alone; --go-delay-ms
 * waits that long between the last seat's welcome and the joins, so that
 * what the setup set going (the creates' commits, their statistics) has
 * settled by then.
 *
 * Exit status: 0 every match ended by the game's
 * end with no error message; 1 otherwise (the first errors are on stderr);
 * 2 bad arguments.
 *
 * The WebSocket side is the least RFC 6455 a client needs against our
 * server: an HTTP upgrade, masked frames out, unmasked frames in (text,
 * continuation, ping answered with pong, close). One thread, epoll,
 * non-blocking sockets; nothing here is shared with the server or client/,
 * which speak through libwebsockets.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { CREATES_PER_CONTROL = 80 };   /* under the server's burst of 100 messages a connection */
enum { MAX_MESSAGE = 1 << 20 };      /* a message larger than this is a broken server */
enum { ID_CAP = 48, TOKEN_CAP = 80 };
enum { MAX_PORTS = 16 };             /* servers of one cluster */

typedef struct buf {
    char *p;
    size_t len, cap;
} buf;

enum conn_state { C_UPGRADING, C_HELLO, C_OPEN, C_CLOSED };
enum { R_OWNER, R_CROSS, R_SPREAD, R_FOLLOW };

typedef struct conn {
    int fd;
    enum conn_state state;
    int control;      /* a control connection (creates), else a seat's */
    int match, seat;  /* the seat's, or for a control connection its first create */
    int ncreates;     /* control: how many creates it sends: match, match + stride, ... */
    int stride;       /* control: the step between its matches (the number of servers) */
    int port;         /* the server's */
    buf in;           /* bytes read, not yet parsed */
    buf msg;          /* a fragmented message being put together */
    buf out;          /* bytes not yet written */
    size_t out_off;
    int want_out;     /* EPOLLOUT is on */
    int follower;     /* --route follow: made to resume at the owner (resume below) */
    int leaving;      /* --route follow: told owner_url; read no more, closed after this read */
    char resume[TOKEN_CAP];
} conn;

enum { THINK_MSG = 512 };           /* a move message */

/* A move a bot sends once its --think-ms have passed. */
typedef struct thinking {
    struct conn *c;
    double due;
    size_t len;
    char text[THINK_MSG];
} thinking;

typedef struct lg_match {
    char id[ID_CAP];
    char token[2][TOKEN_CAP];
    int created, turns, over;
} lg_match;

static struct {
    const char *host;
    int port, nmatches, move_ms, timeout_s, server_pid, think_ms;
    int ports[MAX_PORTS], nports; /* the servers (--port P is --ports P) */
    int route;                    /* --route: R_OWNER, R_CROSS, R_SPREAD, R_FOLLOW */
    int followed;                 /* --route follow: seats that moved to their owner */
    int marks;                    /* --marks */
    int go_delay_ms;              /* --go-delay-ms */
    double go_at;                 /* when the joins go (0: not yet known, or gone) */
    thinking *think;  /* --think-ms: the moves waiting, a ring in the order they are due */
    int think_head, nthink, think_cap;
    unsigned long long rng;
    int ep;
    conn *conns;
    int nconns;
    lg_match *matches;
    int created, welcomed, over, errors, bad_ends;
    int nseats_conn;
    double t_go, t_end;
    double cpu_go, cpu_end, srv_go, srv_end;
    long long turns, moves_sent, bytes_in, messages_in;
} G;

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("tessera-loadgen: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double self_cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* The server's user + system CPU, from /proc/PID/stat (fields 14 and 15, in
 * clock ticks); -1 when it cannot be read. */
static double proc_cpu_s(int pid)
{
    char path[64], text[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    const char *p = strrchr(text, ')'); /* the command name may hold spaces */
    if (!p)
        return -1;
    unsigned long long ut = 0, st = 0;
    /* after ")": state(3) ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime(14) stime(15) */
    if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
        return -1;
    return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

static unsigned rnd(unsigned n)
{
    G.rng ^= G.rng << 13;
    G.rng ^= G.rng >> 7;
    G.rng ^= G.rng << 17;
    return n ? (unsigned)(G.rng % n) : 0;
}

static void buf_add(buf *b, const void *p, size_t n)
{
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n)
            cap *= 2;
        char *q = realloc(b->p, cap);
        if (!q)
            die("out of memory");
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->len, p, n);
    b->len += n;
}

static void set_out(conn *c, int on)
{
    if (c->want_out == on)
        return;
    struct epoll_event ev = {.events = EPOLLIN | (on ? EPOLLOUT : 0), .data.ptr = c};
    if (epoll_ctl(G.ep, EPOLL_CTL_MOD, c->fd, &ev) < 0)
        die("epoll_ctl: %s", strerror(errno));
    c->want_out = on;
}

static void flush_out(conn *c)
{
    while (c->out_off < c->out.len) {
        ssize_t n = send(c->fd, c->out.p + c->out_off, c->out.len - c->out_off, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                set_out(c, 1);
                return;
            }
            if (errno == EINTR)
                continue;
            die("send: %s", strerror(errno));
        }
        c->out_off += (size_t)n;
    }
    c->out.len = c->out_off = 0;
    set_out(c, 0);
}

/* One masked frame (FIN set) of `opcode` with the payload. */
static void send_frame(conn *c, int opcode, const char *p, size_t n)
{
    unsigned char h[14];
    size_t hl = 0;
    h[hl++] = (unsigned char)(0x80 | opcode);
    if (n < 126) {
        h[hl++] = (unsigned char)(0x80 | n);
    } else if (n < 65536) {
        h[hl++] = 0x80 | 126;
        h[hl++] = (unsigned char)(n >> 8);
        h[hl++] = (unsigned char)n;
    } else {
        h[hl++] = 0x80 | 127;
        for (int i = 7; i >= 0; i--)
            h[hl++] = (unsigned char)((uint64_t)n >> (8 * i));
    }
    unsigned char key[4];
    uint32_t k = (uint32_t)G.rng;
    memcpy(key, &k, 4);
    memcpy(h + hl, key, 4);
    hl += 4;
    buf_add(&c->out, h, hl);
    size_t at = c->out.len;
    buf_add(&c->out, p, n);
    for (size_t i = 0; i < n; i++)
        c->out.p[at + i] ^= (char)key[i & 3];
}

static void send_text(conn *c, const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof text)
        die("a message too long to send");
    send_frame(c, 1, text, (size_t)n);
}

static conn *open_conn(int control, int match, int seat, int port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        die("socket: %s (raise ulimit -n?)", strerror(errno));
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    if (inet_pton(AF_INET, G.host, &sa.sin_addr) != 1)
        die("--host %s is not an IPv4 address", G.host);
    /* blocking: on loopback the connection is made as soon as the listen
     * queue has room; no handshake is half-done when it returns */
    while (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
        if (errno != EINTR)
            die("connect to %s:%d: %s", G.host, port, strerror(errno));
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    conn *c = &G.conns[G.nconns++];
    memset(c, 0, sizeof *c);
    c->fd = fd;
    c->control = control;
    c->match = match;
    c->seat = seat;
    c->port = port;
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
    if (epoll_ctl(G.ep, EPOLL_CTL_ADD, fd, &ev) < 0)
        die("epoll_ctl: %s", strerror(errno));
    char req[512];
    int n = snprintf(req, sizeof req,
                     "GET / HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                     "Sec-WebSocket-Key: dGVzc2VyYS1sb2FkZ2VuLQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
                     G.host, port);
    buf_add(&c->out, req, (size_t)n);
    flush_out(c);
    return c;
}

/* The string value of "key" in a JSON text, copied to `out` (cap bytes); 0 if absent. */
static int json_str(const char *s, size_t n, const char *key, char *out, size_t cap, const char **after)
{
    char pat[40];
    int pl = snprintf(pat, sizeof pat, "\"%s\":\"", key);
    const char *p = memmem(s, n, pat, (size_t)pl);
    if (!p)
        return 0;
    p += pl;
    const char *e = memchr(p, '"', n - (size_t)(p - s));
    if (!e || (size_t)(e - p) >= cap)
        return 0;
    memcpy(out, p, (size_t)(e - p));
    out[e - p] = 0;
    if (after)
        *after = e + 1;
    return 1;
}

static long json_int(const char *s, size_t n, const char *key)
{
    char pat[40];
    int pl = snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *p = memmem(s, n, pat, (size_t)pl);
    return p ? strtol(p + pl, NULL, 10) : -1;
}

static void report_error(conn *c, const char *m, size_t n)
{
    if (G.errors++ < 5)
        fprintf(stderr, "tessera-loadgen: %s %d: %.*s\n", c->control ? "control" : "seat of match",
                c->match, (int)(n > 300 ? 300 : n), m);
}

/* your_turn in protocol 2: "legal":["x,y,rot[,PORT...]", ...]; play one at random. */
static void play(conn *c, const char *m, size_t n)
{
    lg_match *mt = &G.matches[c->match];
    long turn = json_int(m, n, "turn");
    const char *p = memmem(m, n, "\"legal\":[", 9);
    if (!p || turn < 0) {
        report_error(c, m, n);
        return;
    }
    p += 9;
    const char *end = m + n;
    /* count the entries, then walk to the chosen one */
    int count = 0;
    for (const char *q = p; q < end && *q != ']'; q++) {
        if (*q == '"') {
            count++;
            q = memchr(q + 1, '"', (size_t)(end - q - 1));
            if (!q) break;
        }
    }
    if (count == 0) {
        report_error(c, m, n);
        return;
    }
    int k = (int)rnd((unsigned)count);
    const char *q = p;
    for (int i = 0;; i++) {
        q = memchr(q, '"', (size_t)(end - q));
        if (!q) {
            report_error(c, m, n);
            return;
        }
        if (i == k) break;
        q = memchr(q + 1, '"', (size_t)(end - q - 1)) + 1;
    }
    q++;
    const char *qe = memchr(q, '"', (size_t)(end - q));
    char entry[128];
    size_t el = (size_t)(qe - q);
    if (el >= sizeof entry) {
        report_error(c, m, n);
        return;
    }
    memcpy(entry, q, el);
    entry[el] = 0;
    /* x,y,rot then the meeple ports */
    char *f[24];
    int nf = 0;
    for (char *t = strtok(entry, ","); t && nf < 24; t = strtok(NULL, ","))
        f[nf++] = t;
    if (nf < 3) {
        report_error(c, m, n);
        return;
    }
    int meeple = (int)rnd((unsigned)(nf - 3 + 1)); /* nf - 3 ports, or none */
    char text[THINK_MSG];
    int tn;
    if (meeple < nf - 3)
        tn = snprintf(text, sizeof text, "{\"type\":\"move\",\"match\":\"%s\",\"turn\":%ld,\"move\":{\"x\":%s,\"y\":%s,\"rot\":%s,\"meeple\":\"%s\"}}",
                      mt->id, turn, f[0], f[1], f[2], f[3 + meeple]);
    else
        tn = snprintf(text, sizeof text, "{\"type\":\"move\",\"match\":\"%s\",\"turn\":%ld,\"move\":{\"x\":%s,\"y\":%s,\"rot\":%s}}",
                      mt->id, turn, f[0], f[1], f[2]);
    if (tn < 0 || (size_t)tn >= sizeof text)
        die("a message too long to send");
    G.moves_sent++;
    if (!G.think_ms) {
        send_frame(c, 1, text, (size_t)tn);
        return;
    }
    /* --think-ms: sent once the bot has "thought"; every wait is the same,
     * so the queue is in the order of its due times */
    if (G.nthink == G.think_cap)
        die("more moves waiting than seats");
    thinking *t = &G.think[(G.think_head + G.nthink++) % G.think_cap];
    t->c = c;
    t->due = now_s() + G.think_ms / 1000.0;
    t->len = (size_t)tn;
    memcpy(t->text, text, (size_t)tn);
}

/* --think-ms: send the moves whose time has come; the ms until the next (-1: none). */
static int send_due(void)
{
    double now = now_s();
    while (G.nthink) {
        thinking *t = &G.think[G.think_head];
        if (t->due > now)
            return (int)((t->due - now) * 1000) + 1;
        send_frame(t->c, 1, t->text, t->len);
        if (t->c->out.len)
            flush_out(t->c);
        G.think_head = (G.think_head + 1) % G.think_cap;
        G.nthink--;
    }
    return -1;
}

static void start_play(void);

static void on_control(conn *c, const char *m, size_t n)
{
    if (memmem(m, n < 40 ? n : 40, "\"welcome\"", 9)) {
        for (int i = 0; i < c->ncreates; i++)
            send_text(c, "{\"type\":\"create_match\",\"id\":%d,\"game\":\"carcassonne\","
                         "\"seats\":[{\"open\":true,\"name\":\"loadgen-a\"},{\"open\":true,\"name\":\"loadgen-b\"}],"
                         "\"time_control\":{\"move_ms\":%d}}",
                      c->match + i * c->stride, G.move_ms);
        return;
    }
    long id = json_int(m, n, "id");
    if (!memmem(m, n < 40 ? n : 40, "\"match_created\"", 15) || id < 0 || id >= G.nmatches) {
        report_error(c, m, n);
        return;
    }
    lg_match *mt = &G.matches[id];
    const char *after = NULL;
    if (!json_str(m, n, "match", mt->id, ID_CAP, NULL) ||
        !json_str(m, n, "token", mt->token[0], TOKEN_CAP, &after) ||
        !json_str(after, n - (size_t)(after - m), "token", mt->token[1], TOKEN_CAP, NULL)) {
        report_error(c, m, n);
        return;
    }
    mt->created = 1;
    if (++G.created == G.nmatches) {
        for (int i = 0; i < G.nmatches; i++)
            for (int s = 0; s < 2; s++) {
                int owner = i % G.nports; /* where it was created */
                int at = G.route == R_CROSS && G.nports > 1 ? (owner + 1 + s % (G.nports - 1)) % G.nports
                         : G.route >= R_SPREAD ? (2 * i + s) % G.nports : owner;
                open_conn(0, i, s, G.ports[at]);
            }
    }
}

static void on_seat(conn *c, const char *m, size_t n)
{
    const char *type = n > 9 ? m + 9 : ""; /* {"type":"... */
    size_t tl = n > 9 ? n - 9 : 0;
    lg_match *mt = &G.matches[c->match];
#define IS(t) (tl > sizeof(t) - 1 && memcmp(type, t "\"", sizeof(t)) == 0)
    if (IS("your_turn")) {
        play(c, m, n);
    } else if (IS("joined") && G.route == R_FOLLOW) {
        /* "owner_url":"ws://HOST:PORT/...": move there, resume, read this one no more */
        char url[256], tok[TOKEN_CAP];
        const char *colon;
        if (json_str(m, n, "owner_url", url, sizeof url, NULL) &&
            json_str(m, n, "resume_token", tok, sizeof tok, NULL) &&
            (colon = strrchr(url + 5, ':')) != NULL) {
            int port = atoi(colon + 1);
            if (port <= 0 || port > 65535)
                die("owner_url %s names no port", url);
            c->leaving = 1;
            conn *f = open_conn(0, c->match, c->seat, port);
            f->follower = 1;
            memcpy(f->resume, tok, sizeof tok);
            G.followed++;
        }
    } else if (IS("update")) {
        /* by the update's turn number: a seat that followed owner_url may
         * have missed one while it moved */
        long t = json_int(m, n, "turn");
        if (c->seat == 0 && t > mt->turns) {
            G.turns += t - mt->turns;
            mt->turns = (int)t;
        }
    } else if (IS("game_over")) {
        if (c->seat == 0 && !mt->over) {
            mt->over = 1;
            if (!memmem(m, n, "\"reason\":\"normal\"", 17)) {
                if (G.bad_ends++ < 5)
                    fprintf(stderr, "tessera-loadgen: match %s did not end by the game: %.*s\n", mt->id,
                            (int)(n > 300 ? 300 : n), m);
            }
            if (++G.over == G.nmatches) {
                G.t_end = now_s();
                if (G.marks) {
                    printf("{\"mark\":\"end\"}\n");
                    fflush(stdout);
                }
            }
        }
    } else if (IS("welcome") && c->follower) {
        send_text(c, "{\"type\":\"resume\",\"resume_token\":\"%s\"}", c->resume);
        flush_out(c);
    } else if (IS("welcome")) {
        if (++G.welcomed == 2 * G.nmatches) {
            if (G.go_delay_ms)
                G.go_at = now_s() + G.go_delay_ms / 1000.0;
            else
                start_play();
        }
    } else if (IS("error")) {
        report_error(c, m, n);
    }
#undef IS
}

static void start_play(void)
{
    if (G.marks) {
        printf("{\"mark\":\"go\"}\n");
        fflush(stdout);
    }
    G.t_go = now_s();
    G.cpu_go = self_cpu_s();
    G.srv_go = G.server_pid ? proc_cpu_s(G.server_pid) : -1;
    for (int i = G.nconns - 2 * G.nmatches; i < G.nconns; i++) {
        conn *c = &G.conns[i];
        lg_match *mt = &G.matches[c->match];
        send_text(c, "{\"type\":\"join\",\"match\":\"%s\",\"seat\":%d,\"token\":\"%s\"}", mt->id, c->seat,
                  mt->token[c->seat]);
        flush_out(c);
    }
}

static void on_message(conn *c, const char *m, size_t n)
{
    if (c->leaving)
        return;
    G.messages_in++;
    if (c->control)
        on_control(c, m, n);
    else
        on_seat(c, m, n);
}

/* Parse what `c->in` holds: the HTTP answer, then frames. */
static void parse(conn *c)
{
    size_t at = 0;
    if (c->state == C_UPGRADING) {
        char *e = memmem(c->in.p, c->in.len, "\r\n\r\n", 4);
        if (!e)
            return;
        if (c->in.len < 12 || memcmp(c->in.p + 9, "101", 3) != 0)
            die("the server refused the WebSocket upgrade: %.*s", (int)(e - c->in.p), c->in.p);
        at = (size_t)(e - c->in.p) + 4;
        c->state = C_OPEN;
        send_text(c, "{\"type\":\"hello\",\"protocol\":2,\"client\":\"bench/loadgen\"}");
    }
    for (;;) {
        const unsigned char *p = (const unsigned char *)c->in.p + at;
        size_t avail = c->in.len - at;
        if (avail < 2)
            break;
        int fin = p[0] & 0x80, op = p[0] & 0x0f;
        if (p[1] & 0x80)
            die("a masked frame from the server");
        uint64_t len = p[1] & 0x7f;
        size_t hl = 2;
        if (len == 126) {
            if (avail < 4) break;
            len = ((uint64_t)p[2] << 8) | p[3];
            hl = 4;
        } else if (len == 127) {
            if (avail < 10) break;
            len = 0;
            for (int i = 0; i < 8; i++)
                len = (len << 8) | p[2 + i];
            hl = 10;
        }
        if (len > MAX_MESSAGE)
            die("a frame of %llu bytes", (unsigned long long)len);
        if (avail < hl + len)
            break;
        const char *pl = (const char *)p + hl;
        if (op == 9) {
            send_frame(c, 10, pl, (size_t)len);
        } else if (op == 8) {
            c->state = C_CLOSED;
        } else if (op == 1 || op == 0) {
            if (!fin || c->msg.len) {
                buf_add(&c->msg, pl, (size_t)len);
                if (fin) {
                    on_message(c, c->msg.p, c->msg.len);
                    c->msg.len = 0;
                }
            } else {
                on_message(c, pl, (size_t)len);
            }
        }
        at += hl + (size_t)len;
    }
    memmove(c->in.p, c->in.p + at, c->in.len - at);
    c->in.len -= at;
}

static void on_readable(conn *c)
{
    for (;;) {
        if (c->in.cap - c->in.len < 16384) {
            size_t cap = c->in.cap ? c->in.cap * 2 : 65536;
            char *q = realloc(c->in.p, cap);
            if (!q)
                die("out of memory");
            c->in.p = q;
            c->in.cap = cap;
        }
        ssize_t n = recv(c->fd, c->in.p + c->in.len, c->in.cap - c->in.len, 0);
        if (n < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                break;
            if (errno == EINTR)
                continue;
            die("recv: %s", strerror(errno));
        }
        if (n == 0) {
            if (G.over < G.nmatches)
                die("the server closed a %s connection (match %d) before the end",
                    c->control ? "control" : "seat", c->match);
            c->state = C_CLOSED;
            epoll_ctl(G.ep, EPOLL_CTL_DEL, c->fd, NULL);
            return;
        }
        G.bytes_in += n;
        c->in.len += (size_t)n;
        if ((size_t)n < 16384)
            break;
    }
    parse(c);
    if (c->leaving && c->state != C_CLOSED) { /* it followed owner_url: a close frame, then gone */
        send_frame(c, 8, "\x03\xe8", 2);
        flush_out(c);
        epoll_ctl(G.ep, EPOLL_CTL_DEL, c->fd, NULL);
        close(c->fd);
        c->fd = -1;
        c->state = C_CLOSED;
        return;
    }
    if (c->out.len)
        flush_out(c);
}

static int arg_int(const char *name, const char *v, int lo, int hi)
{
    char *e;
    long x = strtol(v ? v : "", &e, 10);
    if (!v || *e || x < lo || x > hi) {
        fprintf(stderr, "tessera-loadgen: %s wants a whole number from %d to %d\n", name, lo, hi);
        exit(2);
    }
    return (int)x;
}

int main(int argc, char **argv)
{
    G.host = "127.0.0.1";
    G.nmatches = 100;
    G.move_ms = 300000;
    G.timeout_s = 600;
    G.rng = 0x9e3779b97f4a7c15ULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--port")) G.port = arg_int(a, v, 1, 65535), i++;
        else if (!strcmp(a, "--host")) G.host = v ? v : "", i++;
        else if (!strcmp(a, "--matches")) G.nmatches = arg_int(a, v, 1, 100000), i++;
        else if (!strcmp(a, "--seed")) G.rng ^= (unsigned long long)arg_int(a, v, 0, 1 << 30) * 0x2545f4914f6cdd1dULL, i++;
        else if (!strcmp(a, "--server-pid")) G.server_pid = arg_int(a, v, 1, 1 << 30), i++;
        else if (!strcmp(a, "--move-ms")) G.move_ms = arg_int(a, v, 1000, 1 << 30), i++;
        else if (!strcmp(a, "--timeout-s")) G.timeout_s = arg_int(a, v, 1, 86400), i++;
        else if (!strcmp(a, "--think-ms")) G.think_ms = arg_int(a, v, 0, 60000), i++;
        else if (!strcmp(a, "--marks")) G.marks = 1;
        else if (!strcmp(a, "--go-delay-ms")) G.go_delay_ms = arg_int(a, v, 0, 60000), i++;
        else if (!strcmp(a, "--route") && v && !strcmp(v, "owner")) G.route = R_OWNER, i++;
        else if (!strcmp(a, "--route") && v && !strcmp(v, "cross")) G.route = R_CROSS, i++;
        else if (!strcmp(a, "--route") && v && !strcmp(v, "spread")) G.route = R_SPREAD, i++;
        else if (!strcmp(a, "--route") && v && !strcmp(v, "follow")) G.route = R_FOLLOW, i++;
        else if (!strcmp(a, "--ports") && v) {
            char list[512], *save = NULL;
            snprintf(list, sizeof list, "%s", v);
            for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                if (G.nports == MAX_PORTS) {
                    fprintf(stderr, "tessera-loadgen: at most %d --ports\n", MAX_PORTS);
                    return 2;
                }
                G.ports[G.nports++] = arg_int("--ports", t, 1, 65535);
            }
            i++;
        } else {
            fprintf(stderr, "usage: tessera-loadgen --port P [--host A] [--matches N] [--seed S]\n"
                            "       [--server-pid PID] [--move-ms MS] [--timeout-s T] [--think-ms MS]\n"
                            "       [--ports P1,P2,... [--route owner|cross|spread|follow]] [--marks]\n"
                            "       [--go-delay-ms MS]\n");
            return 2;
        }
    }
    if (G.port && !G.nports)
        G.ports[G.nports++] = G.port;
    if (!G.nports) {
        fprintf(stderr, "tessera-loadgen: --port or --ports is required\n");
        return 2;
    }
    /* each server's matches (i mod K) over control connections of their own */
    int nctl = 0;
    for (int k = 0; k < G.nports; k++) {
        int mine = G.nmatches / G.nports + (k < G.nmatches % G.nports);
        nctl += (mine + CREATES_PER_CONTROL - 1) / CREATES_PER_CONTROL;
    }
    int nseats = (G.route == R_FOLLOW ? 4 : 2) * G.nmatches; /* a follower may make a second */
    int need = nseats + nctl + 16;
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < (rlim_t)need) {
        rl.rlim_cur = rl.rlim_max < (rlim_t)need ? rl.rlim_max : (rlim_t)need;
        setrlimit(RLIMIT_NOFILE, &rl);
        if (rl.rlim_cur < (rlim_t)need)
            die("%d matches need %d descriptors; the limit is %llu", G.nmatches, need,
                (unsigned long long)rl.rlim_cur);
    }
    G.ep = epoll_create1(EPOLL_CLOEXEC);
    G.conns = calloc((size_t)(nseats + nctl), sizeof *G.conns);
    G.matches = calloc((size_t)G.nmatches, sizeof *G.matches);
    G.think_cap = 4 * G.nmatches;
    G.think = G.think_ms ? calloc((size_t)G.think_cap, sizeof *G.think) : NULL;
    if (G.ep < 0 || !G.conns || !G.matches || (G.think_ms && !G.think))
        die("setting up: %s", strerror(errno));
    for (int k = 0; k < G.nports; k++) {
        int mine = G.nmatches / G.nports + (k < G.nmatches % G.nports);
        for (int done = 0; done < mine; done += CREATES_PER_CONTROL) {
            conn *c = open_conn(1, k + done * G.nports, 0, G.ports[k]);
            c->stride = G.nports;
            c->ncreates = mine - done < CREATES_PER_CONTROL ? mine - done : CREATES_PER_CONTROL;
        }
    }
    double t0 = now_s();
    struct epoll_event evs[256];
    while (G.over < G.nmatches) {
        if (now_s() - t0 > G.timeout_s)
            die("not done after %d s: %d of %d matches created, %d over", G.timeout_s, G.created,
                G.nmatches, G.over);
        int wait = send_due();
        if (G.go_at) {
            double left = G.go_at - now_s();
            if (left <= 0) {
                G.go_at = 0;
                start_play();
                wait = 0;
            } else if (wait < 0 || left * 1000 < wait) {
                wait = (int)(left * 1000) + 1;
            }
        }
        int n = epoll_wait(G.ep, evs, 256, wait >= 0 && wait < 1000 ? wait : 1000);
        if (n < 0 && errno != EINTR)
            die("epoll_wait: %s", strerror(errno));
        for (int i = 0; i < n; i++) {
            conn *c = evs[i].data.ptr;
            if (evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR))
                on_readable(c);
            if ((evs[i].events & EPOLLOUT) && c->out.len)
                flush_out(c);
        }
    }
    G.cpu_end = self_cpu_s();
    G.srv_end = G.server_pid ? proc_cpu_s(G.server_pid) : -1;
    double wall = G.t_end - G.t_go;
    double srv_us = G.srv_go >= 0 && G.srv_end >= 0 && G.turns ? (G.srv_end - G.srv_go) * 1e6 / (double)G.turns : -1;
    printf("{\"matches\":%d,\"turns\":%lld,\"moves_sent\":%lld,\"play_s\":%.3f,\"moves_per_s\":%.1f,"
           "\"client_cpu_us_per_move\":%.2f,\"server_cpu_us_per_move\":%.2f,\"bytes_per_turn\":%.1f,"
           "\"errors\":%d,\"bad_ends\":%d,\"followed\":%d}\n",
           G.nmatches, G.turns, G.moves_sent, wall, G.turns / wall,
           (G.cpu_end - G.cpu_go) * 1e6 / (double)(G.turns ? G.turns : 1), srv_us,
           (double)G.bytes_in / (double)(G.turns ? G.turns : 1), G.errors, G.bad_ends, G.followed);
    for (int i = 0; i < G.nconns; i++) {
        if (G.conns[i].fd >= 0)
            close(G.conns[i].fd);
        free(G.conns[i].in.p);
        free(G.conns[i].msg.p);
        free(G.conns[i].out.p);
    }
    free(G.conns);
    free(G.matches);
    free(G.think);
    close(G.ep);
    return G.errors || G.bad_ends ? 1 : 0;
}
