/*
 * limits.h — every limit of the server, each with the reason it exists.
 *
 * The server faces the network: any number a peer can make us spend memory
 * or time on is bounded here. Replies to a breach are structured errors
 * (docs/protocol.md); the limits that concern clients are announced in
 * `welcome.limits`.
 */
#ifndef TESSERA_SERVER_LIMITS_H
#define TESSERA_SERVER_LIMITS_H

#include "protocol/messages.h"

/* Largest client message (bytes). Our biggest legitimate message, a
 * create_match with five long bot specs, is under 4 KiB; 64 KiB leaves room
 * for future fields while keeping a hostile sender from making us buffer
 * megabytes per connection. */
#define SRV_MAX_MESSAGE PROTO_MAX_MESSAGE

/* Token bucket per connection: sustained messages per second and burst.
 * A bot needs about one message per move; a browser a few per second. The
 * bucket stops a flood from starving other connections of the loop thread. */
#define SRV_RATE_PER_SEC 50
#define SRV_RATE_BURST 100
/* Thinking lines (info, thinking.c) have a bucket of their own, per seat the
 * connection plays, and take no token of the one above: a bot that tells
 * what it thinks must never find its move refused for it. 20 a second is
 * twice the pace the server passes on (INFO_MIN_INTERVAL_MS); past it an info
 * is dropped, and past SRV_MAX_FLOODS drops the connection is closed. */
#define SRV_INFO_RATE_PER_SEC 20
#define SRV_INFO_BURST 40
/* Floods (messages refused by the bucket) tolerated before the connection is
 * closed: a client that keeps flooding after being told is broken or hostile. */
#define SRV_MAX_FLOODS 200

/* Concurrent WebSocket connections. Each costs a few KiB plus its queue;
 * past this we refuse new ones rather than degrade every match. Settable
 * with `tessera serve --max-conns`. */
#define SRV_MAX_CONNS_DEFAULT 8192
/* Descriptors kept for the server itself when max_conns is checked against
 * the process's limit (server.c fd_limit): the database's files on two
 * connections, listening sockets, the loop's, lws', external programs'
 * pipes while they start. */
#define SRV_FD_RESERVE 128

/* Matches held in memory (live and waiting). Each holds a game state and,
 * for bot seats, a bot whose search memory is bounded by its mem= option.
 * 10,000 matches of remote bots measured ~560 MiB of server RSS
 * (bench/README.md); a match of two remote seats also takes two
 * connections, so max_conns and the descriptor limit bound it too.
 * (Test hook TESSERA_TEST_MAX_MATCHES lowers it, see below.) */
#define SRV_MAX_LIVE_MATCHES 10000

/* Finished matches kept in memory for `list_matches` and `replay` (the
 * database keeps all); the oldest is let go when a match finishes past it.
 * (Test hook TESSERA_TEST_FINISHED_KEPT.) */
#define SRV_MAX_FINISHED_KEPT 200

/* Bytes queued for one connection that does not read. Larger than any
 * burst of legitimate traffic (a full history is ~20 KiB); a client that
 * lets its queue grow past this is disconnected so that it cannot make the
 * server buffer without bound. */
#define SRV_MAX_QUEUED_BYTES (4u << 20)

/* Spectators per match: each update is copied to every one of them.
 * (Test hook TESSERA_TEST_MAX_SPECTATORS.) */
#define SRV_MAX_SPECTATORS 1000
/* Matches one connection may spectate at once. */
#define SRV_MAX_SPECTATING 64
/* Seats one connection may hold at once in matches not yet over (a bot
 * playing several matches on one connection); seats in finished matches
 * are let go to make room. Bounds the per-connection subscription table. */
#define SRV_MAX_SEATS_PER_CONN 32

/* A connection must say hello within this time, or it is closed: a TCP
 * connection that never speaks only holds a slot. */
#define SRV_HELLO_TIMEOUT_S 10

/* WebSocket keep-alive (net.c, keep_sweep): ping a connection from which
 * nothing (a message, a pong) arrived for this long, and drop it when nothing
 * arrived for the second figure (half-open connections). `tessera serve
 * --idle-timeout-ms` sets the second (whole seconds, at least
 * SRV_MIN_IDLE_S); the ping then goes out after a third of it. */
#define SRV_PING_IDLE_S 15
#define SRV_HANGUP_IDLE_S 45
#define SRV_MIN_IDLE_S 3
#define SRV_MAX_IDLE_S 3600

/* Safety margin subtracted from an in-process bot's time so that it answers
 * before its deadline even on a loaded machine: this many milliseconds, or
 * a twentieth of the time, whichever is more. */
#define SRV_BOT_MARGIN_MS 50
/* An in-process search still running at its deadline (a starved thread) is
 * told to stop and its best move is taken if it arrives within this grace:
 * the server's own bots never lose on time because of the machine's load. */
#define SRV_BOT_STOP_GRACE_MS 1000

/* Open seats one create_match may declare is bounded by the game (<= 5). */

/* Tournaments one connection may watch at once, and watchers of one
 * tournament: each standings push is copied to every watcher. */
#define SRV_MAX_WATCHING      16
#define SRV_MAX_TOUR_WATCHERS 1000

/* The tournament service's own limits (tournaments held, games listed, the
 * cross-table's size, how often standings are computed) are in
 * tournament/limits.h (TOUR_SVC_*). */

/* External programs (cmd: seats) running at once: each is a process and a
 * worker thread of the server that lives as long as its game. */
#define SRV_MAX_PROGRAMS 64

/* After a program seat's deadline, how long the server waits for its
 * worker's verdict (the worker enforces the deadline itself and answers
 * time_limit with the program's stderr) before applying the timeout alone. */
#define SRV_PROG_VERDICT_GRACE_MS 1000

/* Bytes of a program seat's stderr kept with its game (the tail), and
 * verdicts kept (the first ones): enough for a traceback and a game's
 * faults, bounded whatever the program prints. */
#define SRV_PROG_LOG_KEEP     16384
#define SRV_PROG_MAX_VERDICTS 64

/* Registered bots: secrets are hashed with PBKDF2-HMAC-SHA256 and a 16-byte
 * random salt, on the thread pool (a few ms each, never on the loop); at
 * most SRV_MAX_HASHING hashes at once, so a flood of `register` cannot
 * starve the pool that in-process bots search on. */
#define SRV_PBKDF2_ITERATIONS 20000
#define SRV_MAX_HASHING       8
/* Registered names kept in the database. */
#define SRV_MAX_REGISTERED 100000
/* analyze (server/analyze.c): games searched again at once — each takes a
 * pool thread for seconds (a Carcassonne game ~15 s of CPU), and the pool
 * also runs the in-process bots' searches; requests one connection may
 * have waiting (one game at a time per viewer); viewers waiting for one
 * game's report. */
#define SRV_ANALYZE_JOBS 2
#define SRV_ANALYZE_PER_CONN 1
#define SRV_ANALYZE_WAITERS 64
/* A job's fenced process (players/fenced.h): its CPU seconds — the slowest
 * game measured took 23 s at the default budget (docs/analysis.md, "Cost"),
 * so a job past ten times that is a runaway; its wall seconds — a loaded
 * machine gave 4-5 times the CPU time as wall; its report's bytes — a
 * five-seat Carcassonne game's is ~45 KB. */
#define SRV_ANALYZE_CPU_S      300
#define SRV_ANALYZE_WALL_S     1800
#define SRV_ANALYZE_MAX_REPORT (4u << 20)
/* ... and its address space, MiB: the analysis's two searches reserve
 * 256 MiB each (bots' mem=, the default), the program ~25 MiB — measured
 * 536 MiB at its peak — so twice that leaves room and no more; two jobs at
 * once hold at most 2 GiB. (Not in ASan builds: fenced.h. Test hook
 * TESSERA_TEST_ANALYZE_MEM_MB lowers it.) */
#define SRV_ANALYZE_MEM_MB 1024

/* While another process holds the database's write lock (an operator's
 * sqlite3 shell, a backup tool that writes), a write of the journal waits
 * this long before it fails and the match pauses: the wait blocks the loop
 * thread, so it is short. `[journal] busy_timeout_ms` sets it. */
#define SRV_BUSY_TIMEOUT_MS 100

/* A match whose open seats are not all joined this long after its creation
 * ends as `expired`: a waiting match holds a slot of SRV_MAX_LIVE_MATCHES,
 * and a client that creates matches nobody joins would otherwise fill the
 * table for good. `[create] waiting_expiry_s` sets it (0: never). The sweep
 * that finds them runs every SRV_EXPIRY_SWEEP_MS. */
#define SRV_WAITING_EXPIRY_S 600
#define SRV_EXPIRY_SWEEP_MS  1000

/* Clients without the admin token, per address (an IPv4 address, or an IPv6
 * /64, the block one subscriber usually gets): matches not over that they
 * created, and matches created per minute. A person plays a few matches at
 * a time; one address cannot take the whole match table or write the
 * journal without bound. `[quota]` sets them (0: no limit). */
#define SRV_QUOTA_MATCHES    20
#define SRV_QUOTA_PER_MINUTE 30
/* Addresses the quota leaves alone by default: this machine's own (its
 * user is the operator, as for `[create] bots = auto`). Behind a reverse
 * proxy on this machine, list it in `[server] trusted_proxies`, or every
 * client looks local. */
#define SRV_QUOTA_EXEMPT "127.0.0.0/8 ::1"
/* Connections one address (IPv4, or IPv6 /64) may hold at once, by default
 * ([quota] connections_per_address): a classroom behind one NAT address
 * (30 students, a page and a bot each) fits; one client cannot take the
 * server's connections. Whatever the setting, one address never gets more
 * than a quarter of max_connections (SRV_CONNS_ADDRESS_SHARE). */
#define SRV_CONNS_PER_ADDRESS 100
#define SRV_CONNS_ADDRESS_SHARE 4
/* Addresses the quota keeps a count for at once (a per-minute bucket each,
 * forgotten once full again): past this, clients without the admin token
 * are refused new matches until some are forgotten. */
#define SRV_QUOTA_ADDRESSES 65536

/* Entries of one address list of the config (quota.exempt, metrics.allow,
 * server.trusted_proxies). */
#define SRV_MAX_ADDRS 64

/* Lengths of generated ids and tokens (random base32 characters). */
#define SRV_MATCH_ID_LEN 8
#define SRV_TOKEN_LEN 24
/* How a token is kept (memory, journal): the SHA-256 of its text in hex.
 * A token holds 120 random bits, so a plain hash (no salt, no stretching)
 * cannot be reversed by guessing; a stolen journal opens no seat. */
#define SRV_TOKEN_HASH_LEN 64

/* A graceful shutdown tells every connection why and closes it (1001 going
 * away), then waits for the clients to answer the close, this long at most:
 * enough for a busy client, short enough for a restart. */
#define SRV_GOODBYE_MS 3000

/* While the journal cannot be written (a full disk, a read-only database),
 * what the server must do itself (a draw, a move a policy plays, an
 * in-process bot's move) is tried again this often, never in a busy loop. */
#define SRV_STORAGE_RETRY_MS 1000
/* Servers one server keeps track of (its table of names; a connection's
 * forwards are a 64-bit mask over it). */
#define SRV_MAX_INSTANCES 64
/* A server's advertised address ([cluster] address, ws:// or wss://), handed
 * to clients as where a match is played (owner_url): bounded so that a row
 * of tessera_instances cannot make a reply of any size. */
#define SRV_ADDRESS_MAX 200
/* A message between servers: a client message and its envelope. */
#define SRV_MAX_ENVELOPE (SRV_MAX_MESSAGE + 256)
/* A connection to Redis not made within this long is given up (and tried
 * again a second later). */
#define SRV_REDIS_CONNECT_MS 5000
/* Other servers' matches a lobby list shows at most (newest first). */
#define SRV_MAX_LISTED_REMOTE 1000


/*
 * Test hooks: fault injection and lowered limits, read from the environment
 * at start-up, compiled in only when the build has tests (BUILD_TESTING,
 * server/CMakeLists.txt defines TESSERA_TEST_HOOKS). A server that uses one
 * logs `test_hooks` at start. They exist so that tests/server can reach
 * paths that a real run reaches only by bad luck or after hours:
 *   TESSERA_TEST_SEED=N          match seeds N, N+1, ... in creation order
 *                                (reproducible tile orders and bot seeds)
 *   TESSERA_TEST_READONLY_AFTER=N the database turns read-only (SQLite's
 *                                query_only) after N journal appends
 *   TESSERA_TEST_BOT_ILLEGAL_TURN=N the in-process search that answers
 *                                turn N returns an illegal move
 *   TESSERA_TEST_MAX_MATCHES=N, TESSERA_TEST_MAX_SPECTATORS=N,
 *   TESSERA_TEST_FINISHED_KEPT=N lower SRV_MAX_LIVE_MATCHES,
 *                                SRV_MAX_SPECTATORS, SRV_MAX_FINISHED_KEPT
 *   TESSERA_TEST_WAL_FRAMES=N    lowers JOURNAL_WAL_RESET_FRAMES
 *   TESSERA_TEST_SYNC_LOG=FILE   --durable: after each fsync of the WAL,
 *                                append the WAL's size it covered to FILE,
 *                                and run no checkpoints (the WAL only grows),
 *                                so that a test can cut the WAL there: what a
 *                                power cut at that instant could leave; each
 *                                sync also waits 25 ms before its fsync, so
 *                                that there are unsynced commits to cut
 *   TESSERA_TEST_STANDINGS_DELAY_MS=N a tournament's standings job sleeps N ms
 *                                in its thread: a change asked meanwhile
 *                                waits for it (tournaments.c, steer)
 *   TESSERA_TEST_ANALYZE_SIMS=N  analyze's searches spend N simulations
 *                                (a whole game in a second; analyze.c)
 *   TESSERA_TEST_ANALYZE_HOLD=FILE an analysis job waits, on its pool
 *                                thread, until FILE exists: requests made
 *                                meanwhile meet a job certainly under way
 *   TESSERA_TEST_ANALYZE_CRASH=1 an analysis job's fenced process crashes
 *                                (SIGSEGV) before it searches: the
 *                                server answers and goes on
 */

#endif
