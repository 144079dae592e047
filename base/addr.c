/*
 * addr.c — addresses and address blocks ("10.0.0.0/8", "::1", "fd00::/8"),
 * parsed from the configuration's lists (trusted proxies, the admin's and
 * the quota's exempt addresses) and matched against a peer's address: the
 * one place that reads an address's text. Nothing here knows a connection.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"

/* ---- address lists ---------------------------------------------------------------- */

/* One address or CIDR block ("10.0.0.0/8", "::1", "fd00::/8"). */
static int cidr_parse(const char *text, srv_cidr *out)
{
    char buf[INET6_ADDRSTRLEN + 8];
    if (strlen(text) >= sizeof buf)
        return -1;
    strcpy(buf, text);
    char *slash = strchr(buf, '/');
    long bits = -1;
    if (slash) {
        *slash = 0;
        char *end;
        errno = 0;
        bits = strtol(slash + 1, &end, 10);
        if (!slash[1] || *end || errno)
            return -1;
    }
    memset(out, 0, sizeof *out);
    if (inet_pton(AF_INET, buf, out->addr) == 1) {
        out->family = AF_INET;
        if (bits > 32)
            return -1;
        out->bits = bits < 0 ? 32 : (int)bits;
    } else if (inet_pton(AF_INET6, buf, out->addr) == 1) {
        out->family = AF_INET6;
        if (bits > 128)
            return -1;
        out->bits = bits < 0 ? 128 : (int)bits;
    } else {
        return -1;
    }
    return 0;
}

int srv_cidr_parse_list(const char *text, srv_cidr *out, int max, char *err, size_t errcap)
{
    int n = 0;
    if (!text)
        return 0;
    const char *p = text;
    while (*p) {
        while (*p == ' ' || *p == '\t' || *p == ',')
            p++;
        if (!*p)
            break;
        size_t len = strcspn(p, " \t,");
        char one[80];
        if (len >= sizeof one) {
            snprintf(err, errcap, "'%.40s...' is not an address", p);
            return -1;
        }
        memcpy(one, p, len);
        one[len] = 0;
        srv_cidr c;
        if (cidr_parse(one, &c) != 0) {
            snprintf(err, errcap,
                     "'%s' is not an address or address block (e.g. 10.0.0.0/8, ::1, "
                     "fd00::/8)",
                     one);
            return -1;
        }
        if (n == max) {
            snprintf(err, errcap, "more than %d addresses", max);
            return -1;
        }
        out[n++] = c;
        p += len;
    }
    return n;
}

bool srv_addr_parse(const char *text, srv_cidr *out)
{
    if (!text)
        return false;
    /* lws reports IPv4 clients of a dual-stack socket as ::ffff:a.b.c.d */
    if (strncmp(text, "::ffff:", 7) == 0 && strchr(text + 7, '.'))
        text += 7;
    return cidr_parse(text, out) == 0 && !strchr(text, '/');
}

bool srv_cidr_match(const srv_cidr *list, int n, const srv_cidr *a)
{
    for (int i = 0; i < n; i++) {
        const srv_cidr *c = &list[i];
        if (c->family != a->family)
            continue;
        int full = c->bits / 8, rest = c->bits % 8;
        if (memcmp(c->addr, a->addr, (size_t)full) != 0)
            continue;
        if (rest && ((c->addr[full] ^ a->addr[full]) & (0xff << (8 - rest))))
            continue;
        return true;
    }
    return false;
}
