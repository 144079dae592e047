/*
 * http_policy.c — security headers and the WebSocket Origin check
 * (contract in http_policy.h; docs/operations.md, "Security model").
 *
 * The headers go through libwebsockets' own hook for them (the vhost's
 * canned `headers`, added to every response it writes: the web UI's files,
 * 404s and our /metrics, /healthz, /readyz). The Content-Security-Policy
 * allows what the web UI uses and nothing else: its own scripts (modules,
 * no inline script, no eval), its own style sheets and the style
 * attributes its views set (they run no code), images of its own and data:
 * URLs, WebSocket and fetch to its own origin; no plugins, no <base>, no
 * framing by another site (frame-ancestors, and X-Frame-Options for older
 * browsers).
 *
 * The Origin check is what keeps a page on another site from using a
 * visitor's browser to talk to the server as that visitor (cross-site
 * WebSocket hijacking): browsers always send Origin on a WebSocket
 * handshake and pages cannot forge it; programs send none or what they
 * like, and are not what this guards against.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "http_policy.h"

static const struct lws_protocol_vhost_options hdr[] = {
    {&hdr[1], NULL, "content-security-policy:",
     "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
     "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
     "frame-ancestors 'none'"},
    {&hdr[2], NULL, "x-content-type-options:", "nosniff"},
    {&hdr[3], NULL, "x-frame-options:", "DENY"},
    {NULL, NULL, "referrer-policy:", "no-referrer"},
};

const struct lws_protocol_vhost_options *http_security_headers(void)
{
    return hdr;
}

/* Is `origin` (scheme://host[:port]) one of the space- or comma-separated
 * entries of list? */
static bool listed(const char *list, const char *origin)
{
    size_t n = strlen(origin);
    for (const char *p = list; *p;) {
        p += strspn(p, " ,");
        size_t len = strcspn(p, " ,");
        if (len == 1 && p[0] == '*')
            return true;
        if (len && len == n && strncasecmp(p, origin, n) == 0)
            return true;
        p += len;
    }
    return false;
}

bool http_origin_ok(const srv *s, struct lws *wsi, char *why, size_t cap)
{
    char origin[256], host[256];
    int olen = lws_hdr_copy(wsi, origin, sizeof origin, WSI_TOKEN_ORIGIN);
    if (olen <= 0 && lws_hdr_total_length(wsi, WSI_TOKEN_ORIGIN) == 0)
        return true; /* not a browser */
    if (olen <= 0) {
        snprintf(why, cap, "an Origin header too long");
        return false;
    }
    if (s->cfg.allowed_origins && listed(s->cfg.allowed_origins, origin))
        return true;
    /* the server's own: http(s)://HOST where HOST is the request's Host */
    const char *sep = strstr(origin, "://");
    int hlen = lws_hdr_copy(wsi, host, sizeof host, WSI_TOKEN_HOST);
    if (sep && hlen > 0 && strcasecmp(sep + 3, host) == 0 &&
        ((size_t)(sep - origin) == 4 ? strncasecmp(origin, "http", 4) == 0
                                     : (size_t)(sep - origin) == 5 &&
                                           strncasecmp(origin, "https", 5) == 0))
        return true;
    char shown[64];
    snprintf(shown, sizeof shown, "%.60s", origin);
    for (char *ch = shown; *ch; ch++) /* it goes to the log */
        if ((unsigned char)*ch < 0x20 || (unsigned char)*ch > 0x7e)
            *ch = '?';
    snprintf(why, cap, "a page of %s, not of this server nor in [server] allowed_origins", shown);
    return false;
}
