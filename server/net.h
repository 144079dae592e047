/*
 * net.h — the WebSocket and HTTP endpoint on the server's loop (net.c):
 * libwebsockets, connections, framing and limits. Messages go up to
 * handlers.h; replies come down through conn.h.
 */
#ifndef TESSERA_SERVER_NET_H
#define TESSERA_SERVER_NET_H

#include "internal.h"

/* Listen (cfg.host:cfg.port, TLS when configured) and serve web/ and the
 * operator endpoints; the matches' events go to the tables from now on.
 * 0, or a negative code with the reason in err. */
int net_start(srv *s, char *err, size_t errcap);
/* Stop serving (lws is destroyed from within the loop). */
void net_stop(srv *s);

#endif
