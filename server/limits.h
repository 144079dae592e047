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
/* Floods (messages refused by the bucket) tolerated before the connection is
 * closed: a client that keeps flooding after being told is broken or hostile. */
#define SRV_MAX_FLOODS 200

/* Concurrent WebSocket connections. Each costs a few KiB plus its queue;
 * past this we refuse new ones rather than degrade every match. Settable
 * with `tessera serve --max-conns`. */
#define SRV_MAX_CONNS_DEFAULT 8192

/* Matches held in memory (live and waiting). Each holds a game state and,
 * for bot seats, a bot whose search memory is bounded by its mem= option.
 * (Test hook TESSERA_TEST_MAX_MATCHES lowers it, see below.) */
#define SRV_MAX_LIVE_MATCHES 5000

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

/* WebSocket keep-alive: ping a connection idle this long, and drop it when
 * nothing valid arrived for the second figure (half-open connections).
 * `tessera serve --idle-timeout-ms` sets the second (whole seconds, at
 * least SRV_MIN_IDLE_S: libwebsockets counts in seconds); the ping then goes
 * out after a third of it. */
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

/* Lengths of generated ids and tokens (random base32 characters). */
#define SRV_MATCH_ID_LEN 8
#define SRV_TOKEN_LEN 24

/* A graceful shutdown tells every connection why and closes it (1001 going
 * away), then waits for the clients to answer the close, this long at most:
 * enough for a busy client, short enough for a restart. */
#define SRV_GOODBYE_MS 3000

/* While the journal cannot be written (a full disk, a read-only database),
 * what the server must do itself (a draw, a move a policy plays, an
 * in-process bot's move) is tried again this often, never in a busy loop. */
#define SRV_STORAGE_RETRY_MS 1000

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
 */

#endif
