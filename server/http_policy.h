/*
 * http_policy.h — what every HTTP response says about how a browser may use
 * it (security headers), and which web pages may open a WebSocket to the
 * server (the Origin allow-list). net.c hands both to libwebsockets.
 */
#ifndef TESSERA_SERVER_HTTP_POLICY_H
#define TESSERA_SERVER_HTTP_POLICY_H

#include <stdbool.h>
#include <stddef.h>

#include <uv.h>
#include <libwebsockets.h>

#include "internal.h"

/* The headers added to every HTTP response (lws' vhost `headers`): a
 * Content-Security-Policy the web UI works under, nosniff, no framing, no
 * referrer. Static: lives as long as the process. */
const struct lws_protocol_vhost_options *http_security_headers(void);

/* May the WebSocket handshake on wsi go on? A client that sends no Origin
 * (not a browser: bots, tools) may; a browser page may when its origin is
 * the server's own (the Origin's host:port is the request's Host) or is in
 * `[server] allowed_origins` ("*": any). false with the reason in why. */
bool http_origin_ok(const srv *s, struct lws *wsi, char *why, size_t cap);

#endif
