/*
 * server.h — `tessera serve`: the match server (docs/protocol.md).
 *
 * One thread runs a libuv loop with libwebsockets on it: a WebSocket
 * endpoint speaking the JSON protocol, static HTTP for the browser UI, and
 * the operator's endpoints (/metrics, /healthz, /readyz). In-process bots
 * search on the libuv thread pool. Every accepted move is journaled to
 * SQLite before it is broadcast, so a restarted server resumes its
 * unfinished matches with nothing lost.
 *
 * Configuration: srv_config holds everything an operator can set
 * (config.h).
 */
#ifndef TESSERA_SERVER_H
#define TESSERA_SERVER_H

#include "config.h" /* srv_config, and what fills and checks it */

/* Run the server until SIGINT/SIGTERM. Returns a process exit code: 0 after
 * a shutdown, 1 when it cannot start (journal, listening socket, TLS files:
 * the reason on stderr), 2 for a configuration srv_config_check() refuses. */
int srv_run(const srv_config *cfg);

#endif
