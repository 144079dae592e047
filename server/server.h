/*
 * server.h — `tessera serve`: the match server (docs/protocol.md).
 *
 * One thread runs a libuv loop with libwebsockets on it: a WebSocket
 * endpoint speaking the JSON protocol, and static HTTP for the browser UI.
 * In-process bots search on the libuv thread pool. Every accepted move is
 * journaled to SQLite before it is broadcast, so a restarted server resumes
 * its unfinished matches with nothing lost.
 */
#ifndef TESSERA_SERVER_H
#define TESSERA_SERVER_H

#include <stdbool.h>
#include <stddef.h>

typedef struct srv_config {
    int port;                 /* TCP port (default 8080; 0 = any free port) */
    const char *host;         /* interface/address to bind, NULL = all */
    const char *db_path;      /* SQLite file (default "tessera.db") */
    const char *web_root;     /* directory served over HTTP (NULL = none) */
    bool durable;             /* fsync every commit (survives power loss, slower) */
    int max_conns;            /* concurrent connections */
    int log_level;            /* 0 debug, 1 info, 2 warn, 3 error */
    const char *demo;         /* keep a live bot match of these specs going, e.g.
                                 "mcts:ms=1000,heuristic"; NULL = none */
    const char *port_file;    /* write the bound port here once listening (tests) */
    int idle_timeout_ms;      /* drop a connection silent this long (0: limits.h's
                                 SRV_HANGUP_IDLE_S); whole seconds, rounded up */
    const char *admin_token_file; /* write the admin token here (mode 0600) at start */
} srv_config;

/* Check a configuration before serving: the demo spec is one or two valid
 * bot specs ("BOT" plays both seats; "BOT,BOT" one each). Returns 0, or -1
 * with the reason in err (`tessera serve` exits 2 with it). */
int srv_config_check(const srv_config *cfg, char *err, size_t errcap);

/* Run the server until SIGINT/SIGTERM. Returns a process exit code: 0 after
 * a shutdown, 1 when it cannot start (journal, listening socket: the reason
 * on stderr), 2 for a configuration srv_config_check() refuses. */
int srv_run(const srv_config *cfg);

#endif
