/*
 * internal.h — private to server/: the server's objects (connections,
 * matches, seats, the server itself) and what every file shares (addresses,
 * logs, statistics, metrics, the server's clock and tokens). What each part
 * exposes is in its own header:
 *
 *   net.h          libwebsockets on the libuv loop: connections, framing,
 *                  limits (net.c)
 *   handlers.h     one function per client message (handlers.c)
 *   conn.h         a connection's output queue, errors, closing (conn.c)
 *   table.h        who sits at and watches each match; the event sink (table.c)
 *   match.h        matches: turns, policies, results
 *   sink.h         the event sink's interface: what a match tells its table
 *                  (match.c; created and restored in match_create.c)
 *   match_views.h  a match as JSON and message text (match_views.c)
 *   match_clock.h  clocks and timeout policies (their code: match.c)
 *   agents.h       in-process bots on the libuv thread pool (agents.c)
 *   journal.h      the journal: writes as rows, holds, faults, the reader
 *                  (journal.c over journal/sqlite.c or journal/pg.c)
 *   base.h         logs, histograms, clocks, tokens, addresses (log.c, config.c)
 *   programs.h     external programs (cmd:) in seats, one worker thread each
 *   registry.h     registered remote bots and the admin token (registry.c);
 *                  the register messages (register.c)
 *   tournaments.h  the tournament messages, to the tournament service
 *   access.h       creation policy, quotas, expiry
 *   tokidx.h       the resume-token index
 *   courses.h      the course_* messages, to the classroom's course service
 *   config.h       the configuration, srv_config, and what fills it (config.c)
 *   metrics.c, server.c: declared here (shared by all)
 *
 * The per-move path reads down: net -> handlers -> table -> match ->
 * {journal, agents, match_clock, match_views}; a match tells its table
 * through the sink (sink.h), never by calling a connection.
 *
 * Threads: everything here runs on the loop thread except the body of an
 * agent's search (agents.c), which works on its own copies and hands its
 * result back through uv_queue_work's completion callback; a program's
 * worker thread (programs.c), which owns its player and hands results back
 * through a uv_async_t; and the pool jobs of register.c (secret hashing)
 * and of the services it hosts (tournament standings, course uploads),
 * which work on data the loop does not touch while they run.
 */
#ifndef TESSERA_SERVER_INTERNAL_H
#define TESSERA_SERVER_INTERNAL_H

#include <uv.h>
/* uv.h must come before libwebsockets.h */
#include <libwebsockets.h>

#include <jansson.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "bots/bot.h"
#include "base/base.h"
#include "config.h"
#include "engine/eng.h"
#include "journal/journal.h"
#include "limits.h"
#include "protocol/chance.h"
#include "protocol/jsontext.h"
#include "protocol/messages.h"
#include "protocol/record.h"
#include "protocol/wire.h"

typedef struct srv srv;
typedef struct conn conn;
typedef struct match match;
typedef struct seat seat_t;
typedef struct agent_job agent_job;
typedef struct journal journal;
typedef struct prog prog;
typedef struct regbot regbot;
typedef struct thinking thinking;

/* ---- connections ------------------------------------------------------------ */

typedef struct outmsg {
    struct outmsg *next;
    uint64_t hold;               /* written once journal_synced() reaches it (0: now): the
                                    journal's commit (--durable: its sync) it waits for */
    size_t len;                  /* bytes of the WebSocket frame after the LWS_PRE headroom */
    unsigned char buf[];         /* LWS_PRE + len bytes: the frame (header, text) */
} outmsg;

/* A spectated or played match, as held by a connection. */
typedef struct conn_sub {
    match *m;
    int seat;                    /* >= 0: plays this seat; -1: spectates */
    int known_at;                /* protocol 2: moves of the state it last received, -1: none */
} conn_sub;

struct conn {
    const struct conn_ops *ops;  /* its transport (conn.h): a WebSocket (net.c), or another
                                    server's client (cluster.c), whose own data follows this
                                    struct (conn_link) */
    srv *srv;
    uint64_t id;                 /* for logs */
    char peer[64];               /* remote address, for logs (the client's, from
                                    X-Forwarded-For, behind a trusted proxy) */
    srv_cidr addr;               /* peer, parsed (family 0: unknown) */
    bool hello;                  /* hello received */
    int proto;                   /* protocol version agreed in hello (1 before) */
    bool closing;                /* close after the queue drains */
    int close_status;            /* WebSocket close code to send */
    char close_reason[124];
    uint64_t rx_ns;              /* uv_hrtime() when the last message was complete */
    /* send */
    outmsg *head, *tail;
    size_t queued;               /* bytes in the queue */
    bool held;                   /* in srv->held: its queue waits for the journal */
    bool flushing;               /* in srv->flush: written at the end of this loop round */
    /* matches this connection plays or watches (table.c) */
    conn_sub subs[SRV_MAX_SPECTATING + SRV_MAX_SEATS_PER_CONN];
    int nsubs;
    regbot *reg;                          /* the registered bot this connection is, or NULL */
    double info_tokens;                   /* its thinking lines' bucket (handlers.c) ... */
    uint64_t info_at_ms;                  /* ... filled up to this loop ms */
    int info_floods;                      /* infos dropped by it */
    int64_t watching[SRV_MAX_WATCHING];   /* tournaments it watches (tournaments.c) */
    int nwatching;
    conn *prev, *next;           /* srv->conns: every connection, on any transport */
};


/* ---- matches --------------------------------------------------------------------- */

/* SEAT_PROGRAM: an external program (cmd:, cmd-stateless:) run by the
 * server (programs.c); SEAT_REMOTE: a registered bot (remote:NAME), seated
 * on its registered connection (registry.c). */
enum seat_kind { SEAT_BOT, SEAT_OPEN, SEAT_PROGRAM, SEAT_REMOTE };
enum match_status { MATCH_WAITING, MATCH_LIVE, MATCH_FINISHED };

struct seat {
    int kind;                         /* enum seat_kind */
    char name[PROTO_NAME_MAX + 1];
    char spec[PROTO_SPEC_MAX + 1];    /* bot spec (SEAT_BOT) */
    bot *bot;                         /* in-process bot (SEAT_BOT) */
    char token[SRV_TOKEN_HASH_LEN + 1];  /* join token's hash (SEAT_OPEN; access_token_hash);
                                          * spent once the seat is joined */
    char resume[SRV_TOKEN_HASH_LEN + 1]; /* resume token's hash, made at the first join */
    conn *conn;                       /* connection playing it now, or NULL (table.c) */
    bool joined;                      /* joined at least once */
    bool takeover;                    /* the server plays random moves for it */
    int64_t bank_ms;                  /* time bank left */
    int64_t grace_ms;                 /* grace bank left (grace timeout policy) */
    int moves;                        /* turns played */
    int illegal;                      /* illegal moves so far */
    uint64_t gone_since;              /* loop ms when the connection dropped (0: none) */
    bool in_grace;                    /* the current move runs on the grace bank */
    bool bot_stopping;                /* its search was told to stop at the deadline */
    int64_t used_ms;                  /* time its turns took, summed (tournament results) */
    prog *prog;                       /* SEAT_PROGRAM: its worker, or NULL */
    int prog_seq;                     /* SEAT_PROGRAM: the turn last asked of it */
    bool prog_asked;                  /* SEAT_PROGRAM: that turn's answer is awaited */
    bool resume_indexed;              /* resume is in the database's token index */
};

struct match {
    char id[SRV_MATCH_ID_LEN + 1];
    srv *srv;
    const eng_game *g;
    const game_codec *wire;
    eng_rules rules;
    uint64_t seed;                    /* secret until the end: chance event k of the game is
                                         eng_chance_draw(seed, k) (docs/records.md) */
    uint8_t nonce[CHANCE_NONCE_LEN];  /* secret until the end: hides the seed in the commitment */
    bool has_nonce;                   /* false for a match journaled before commitments */
    char commitment[CHANCE_COMMIT_HEX]; /* SHA-256 of seed and nonce, public ("" without) */
    uint64_t chance_k;                /* chance events drawn so far */
    void *st;                         /* current state */
    void *turn_start;                 /* state at the start of the current turn (before the draw) */
    int status;                       /* enum match_status */
    int nseats;
    seat_t seats[ENG_MAX_PLAYERS];
    proto_time_control tc;
    proto_policies pol;
    /* journal: every engine move applied, chance outcomes included */
    eng_move *moves;
    rec_time *times; /* times[i]: the time figures of the turn whose first
                        move is moves[i] (-1: none; docs/records.md "Time") */
    int nmoves, capmoves;
    int turn_first;                   /* index in moves[] where the current turn began */
    int turns;                        /* completed turns (record turns) */
    textbuf history;                  /* the record turns as compact JSON texts, each with a
                                         comma after it, for join/resume/spectate
                                         (match_views.c's history): a tenth of their memory as
                                         jansson objects (about 50 KB a finished match) */
    json_t *state_cache;              /* public state JSON at state_cache_at moves */
    int state_cache_at;
    json_t *ann_state;                /* protocol 2: the state the last update carried ... */
    int ann_at;                       /* ... at this many moves (-1: none); changes start there */
    void *ann_st;                     /* the same as an engine state, for a codec's change() */
    /* the decision in progress */
    int to_move;                      /* seat to move, -1 when none */
    uint64_t turn_started;            /* loop ms when the seat was asked */
    uint64_t asked_ns;                /* uv_hrtime() when the seat was asked: its your_turn
                                         first sent, its search or program started (0: not
                                         yet); a move's wait_ms counts from it */
    double turn_think_ms;             /* a program seat's CPU time over this turn's calls */
    uint64_t deadline;                /* loop ms by which the move must arrive */
    uint64_t clock_hold;              /* the seat's your_turn is held until the journal has
                                         stored this number (journal_synced): its clock starts
                                         then, deadline moved (0: it runs) */
    match *held_next, *held_prev;     /* srv.clock_held: matches whose clock may wait */
    bool in_held;                     /* on that list (its clock_hold may since be 0) */
    uv_timer_t timer;                 /* fires at the deadline / reconnect grace end */
    const char *storage_retry;        /* a turn the server owes the seat to move could not be
                                         journaled: "bot" (search again) or the policy's
                                         reason (random move again), tried at retry_at */
    uint64_t retry_at;                /* loop ms */
    agent_job *job;                   /* running (or cancelled, still returning) search */
    thinking *thinking;               /* the seats' thinking lines (thinking.c), NULL: none yet */
    int job_seat;                     /* the seat whose bot that search uses */
    /* spectators (table.c) */
    conn **spect;
    int nspect, capspect;
    /* result */
    json_t *result;                   /* {"reason":..., "winners":[...], ...} once finished */
    double final_scores[ENG_MAX_PLAYERS];
    int64_t created_ms, finished_ms;  /* wall clock, epoch ms */
    uint64_t rx_ns;                   /* a remote move being handled: when it arrived */
    bool demo;                        /* the server's own showcase match */
    bool tour_waits;                  /* its tournament waits for its result (tournaments.c) */
    int64_t tour_id;                  /* the tournament it is a game of (0: none), kept once over */
    int64_t tour_game;                /* its game id in that tournament */
    bool seat_seeds;                  /* seat_seed[] seeds the bots (tournament games) */
    uint64_t seat_seed[ENG_MAX_PLAYERS];
    char creator[48];                 /* quota key of the address that created it without
                                         the admin token ("" otherwise; access.c) */
    const char *finish_reason;        /* a result the journal could not store yet: the */
    int finish_faulty;                /* finish is tried again at retry_at with these */
    char *finish_detail;              /* (malloc'd) */
    const char *finish_verdict;
    bool paused_told;                 /* the table was told the match waits for the journal */
    int summary_turns;                /* cluster.c: turns + 1 when its lobby summary was last
                                         stored for other servers (0: never) ... */
    int summary_status;               /* ... and its status then */
    uint64_t summary_ms;              /* ... and the loop's ms then */
    int journal_status;               /* the status it last journaled + 1 (0: not known):
                                         a move's batch leaves it alone when unchanged */
    uint64_t journal_batch;           /* the commit its latest writes wait for (journal.h: the
                                         batch they are in); stored once journal_synced()
                                         reaches it */
    bool closing;                     /* being freed (timer closing) */
    bool timer_closed;                /* the timer's close callback has run */
    match *prev, *next;               /* srv->matches list */
};


/* Error codes, counted by the wire code (0 and the codes of both tables,
 * protocol/errors.h). */
enum { SRV_NERR = 1 + WIRE_ERR_COUNT };

/* Why matches ended (result.reason), counted; anything else is "other". */
#define SRV_REASONS(X)                                                                       \
    X(normal) X(timeout) X(illegal) X(disconnect) X(resignation) X(crash) X(aborted)         \
        X(expired) X(other)
#define SRV_REASON_ENUM_(r) SRV_REASON_##r,
enum { SRV_REASONS(SRV_REASON_ENUM_) SRV_NREASONS };
#undef SRV_REASON_ENUM_

typedef struct srv_counters {
    uint64_t conns_accepted;             /* WebSocket connections opened */
    uint64_t conns_refused;              /* ... refused (connection limit, shutting down) */
    uint64_t http_requests;              /* requests to the operator endpoints */
    uint64_t matches_created;
    uint64_t matches_anonymous;          /* created without the admin token */
    uint64_t finished[SRV_NREASONS];     /* matches finished, by reason */
    uint64_t errors[SRV_NERR];           /* error replies sent, by code (-code) */
    uint64_t refused_policy, refused_quota, refused_rate; /* anonymous creates refused */
    srv_phist overhead;                  /* remote move in -> next your_turn queued */
    srv_phist think;                     /* an in-process bot's search, wall time */
    srv_phist timeout_late;              /* a timeout applied after its deadline, by */
} srv_counters;

/* The exposition text of GET /metrics (malloc'd, *len bytes), or NULL. */
char *metrics_text(srv *s, size_t *len);
/* /readyz: NULL when ready, else why not (a static string or s's buffer). */
const char *metrics_not_ready(srv *s);
void metrics_init(srv *s);

/* The server's figures: connections, matches, moves, overhead, timeouts, memory. */
json_t *srv_stats_json(const srv *s);

/* ---- the server ------------------------------------------------------------------------ */

/* Test hooks in force (limits.h, "Test hooks"); all off in a normal run. */
typedef struct srv_test_hooks {
    bool seed_set;                    /* TESSERA_TEST_SEED given */
    uint64_t seed;                    /* the next match's seed */
    int readonly_after;               /* > 0: appends before the database turns read-only */
    int bot_illegal_turn;             /* > 0: the search answering this turn cheats */
    char fault_file[512];             /* names the journal fault in force (journal/sqlite.c) */
    char sync_log[512];               /* --durable: the WAL size each sync covered (journal/sqlite.c) */
    int standings_delay_ms;           /* > 0: each standings job takes this much longer */
} srv_test_hooks;

struct srv {
    srv_config cfg;
    uv_loop_t *loop;
    struct lws_context *ctx;
    uv_signal_t sigint, sigterm;
    uv_timer_t demo_timer;
    /* A demo match ended (set by server.c: the next one, after a pause); NULL
     * without --demo. */
    void (*demo_over)(srv *s);
    /* A seat a tournament may be waiting for came free: a program ended, a
     * registered bot came back (set by server.c: tournaments.c's
     * tours_poke, so that those two need not know the tournaments). */
    void (*seats_freed)(srv *s);
    /* A match finished (set by server.c: the tournaments' tours_match_finished,
     * so that match.c need not know them). */
    void (*match_over)(srv *s, match *m);
    uv_timer_t stop_timer;            /* lets goodbyes flush before lws stops */
    uv_prepare_t out_prep;            /* writes the round's output before the loop polls ... */
    uv_check_t out_check;             /* ... and after the I/O callbacks (net.c) */
    bool out_handles;                 /* those two are running */
    unsigned char *wbuf;              /* a connection's messages gathered for one write */
    size_t wbuf_cap;
    uint64_t stop_at;                 /* loop ms: stop lws then, goodbyes or not */
    bool stopping;
    conn *conns;
    int nconns;                       /* WebSocket connections (net.c) */
    conn **held;                      /* connections whose output waits for the journal */
    int nheld, held_cap;
    conn **flush;                     /* connections with output to write at the end of
                                         this loop round (net.c) */
    int nflush, flush_cap;
    uint64_t next_conn_id;
    match *matches;
    match *clock_held;                /* matches whose your_turn waited for the journal
                                         (match.c): a release walks these, not every match */
    const struct match_sink *sink;    /* who hears the matches' events (sink.h): the
                                         table's, from net_start on; NULL: no one */
    int nlive;                        /* waiting + live */
    int nfinished;                    /* finished matches held in memory */
    uint64_t finished;                /* matches finished since start */
    journal *db;                      /* the journal (journal.h), or NULL */
    char instance[JOURNAL_INSTANCE_MAX + 1]; /* this server's name among several ([cluster]) */
    int max_live_matches;             /* SRV_MAX_LIVE_MATCHES, or a test hook's */
    int max_spectators;               /* SRV_MAX_SPECTATORS, or a test hook's */
    int finished_kept;                /* SRV_MAX_FINISHED_KEPT, or a test hook's */
    int wal_reset_frames;             /* JOURNAL_WAL_RESET_FRAMES, or a test hook's */
    int idle_timeout_s;               /* keep-alive hang-up (cfg.idle_timeout_ms, rounded up) */
    lws_retry_bo_t keepalive;         /* lws' idle policy: off (net.c keeps connections alive) */
    uv_timer_t keep_timer;            /* net.c's keep-alive sweep */
    bool keep_timer_on;
    srv_test_hooks test;
    int jobs;                         /* in-process searches running */
    int bots;                         /* in-process bot instances held (live matches only) */
    uint64_t moves;                   /* turns played since start */
    uint64_t writes;                  /* socket writes of WebSocket output since start (net.c):
                                         a turn's messages to one connection leave in one */
    uint64_t started_ms;              /* epoch ms at start */
    srv_hist overhead;                /* remote move received -> next your_turn queued */
    srv_hist timeout_late;            /* timeout applied after the deadline, by */
    srv_counters cnt;                 /* what /metrics exposes (metrics.c) */
    /* the configuration, resolved at start (server.c, access.c) */
    srv_cidr quota_exempt[SRV_MAX_ADDRS], metrics_allow[SRV_MAX_ADDRS], proxies[SRV_MAX_ADDRS];
    int nquota_exempt, nmetrics_allow, nproxies;
    bool bots_anyone;                 /* [create] bots resolved: no admin token needed */
    bool open_anyone;                 /* [create] open resolved */
    bool tls;                         /* serving https:// and wss:// */
    bool listening;                   /* the vhost listens (readiness) */
    struct quota *quota;              /* per-address counts (access.c) */
    struct tokidx *tokidx;            /* resume token -> seat (tokidx.c) */
    uv_timer_t expiry_timer;          /* sweeps waiting matches past their expiry */
    /* admin, registered bots, programs, tournaments */
    char admin_hash[SRV_TOKEN_HASH_LEN + 1]; /* the admin token's (access_token_hash) */
    regbot *regbots;     /* registered bots seen since start */
    int hashing;         /* secret hashes on the thread pool */
    struct progs *progs; /* program workers (programs.c) */
    struct tours *tours; /* tournaments (tournaments.c) */
    struct courses *courses; /* the course service's host (courses.c), or NULL */
    struct cluster *cluster; /* several servers on one database (cluster.c), or NULL */
    /* web/ mount */
    /* texts of the per-move messages, written by protocol/jsontext.h into
     * buffers reused from message to message (loop thread only) */
    textbuf send_txt;                 /* conn_send: the message being queued */
    textbuf msg_txt;                  /* match.c: an update or your_turn being composed */
    textbuf msg2_txt;                 /* match.c: its protocol 2 text, when that differs */
    textbuf change_txt;               /* match.c: protocol 2's change of the turn */
    textbuf state_txt;                /* match.c: the public state of state_txt_of ... */
    const match *state_txt_of;        /* ... at state_txt_at moves (NULL: none) */
    int state_txt_at;
    /* web/ mount, after the mounts of /metrics, /healthz, /readyz */
    struct lws_http_mount endpoints[3];
    char bind_host[64];               /* cfg.host resolved to an address (net.c) */
    struct lws_http_mount mount;
    char web_root[512];
};


/* Milliseconds on the loop's monotonic clock (srv_loop_now). */
static inline uint64_t srv_now(const srv *s)
{
    return srv_loop_now(s->loop);
}
/* Set the server's limits to their defaults in limits.h (no config, no test
 * hooks): live matches, spectators, finished matches kept, idle timeout. */
void srv_limits_default(srv *s);
/* Open the journal at target for s (journal.h, with the server's
 * configuration and test hooks) into s->db: 0, or a code with err. */
int srv_journal_open(srv *s, const char *target, bool durable, char *err, size_t errcap);
/* Free the buffers of the per-move message texts (send_txt, msg_txt, ...):
 * at shutdown, after the loop has run for the last time. */
void srv_texts_free(srv *s);

#endif
