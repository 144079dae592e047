/*
 * access.c — who may create what, and per-address quotas.
 *
 * Creating matches (docs/operations.md, "Security defaults"). With the
 * admin token a client may create anything, without any quota. Without it:
 * a match that seats the server's own bots (they spend its CPU) needs
 * `[create] bots` to allow it — `auto`, the default, allows it while the
 * server listens on loopback only (the person at the machine is its
 * operator) and asks for the admin token once it listens on a public
 * address; a match of open seats only follows `[create] open` (default:
 * anyone). Program and registered-bot seats always need the token
 * (match.c). Every match created without the token counts against its
 * creator's address: `[quota] matches_per_address` matches not over at
 * once, and `creates_per_minute` (a token bucket per address); addresses in
 * `[quota] exempt` are not counted. An address is an IPv4 address or an
 * IPv6 /64 (what one subscriber usually holds); behind a reverse proxy
 * listed in `[server] trusted_proxies` it is the client's, from the last
 * hop of X-Forwarded-For.
 *
 * The live count is recomputed from the matches held (each remembers the
 * address that created it, without the token) rather than kept as a
 * counter that could drift; the per-minute buckets live in a hash table of
 * bounded size whose full (idle) buckets are forgotten.
 */
#include <stdlib.h>
#include <string.h>

#include "access.h"
#include "conn.h"
#include "internal.h"
#include "match.h"
#include "tokidx.h"

/* ---- a seeded string hash ----------------------------------------------------------- */

static uint64_t hash_seed;

static uint64_t hash_str(const char *s)
{
    return srv_hash_str(hash_seed, s);
}

/* ---- per-address buckets --------------------------------------------------------------- */

typedef struct q_node {
    struct q_node *next;
    double tokens;  /* creates left in the bucket */
    uint64_t at_ms; /* when tokens was computed */
    char key[48];
} q_node;

struct quota {
    q_node **b;
    size_t nb, n;
    uint64_t pruned_at;
};

/* The bucket's tokens now (refilled at creates_per_minute per minute). */
static double q_tokens(const srv *s, const q_node *x, uint64_t now)
{
    double per_ms = s->cfg.quota_per_minute / 60000.0;
    double t = x->tokens + (double)(now - x->at_ms) * per_ms;
    return t > s->cfg.quota_per_minute ? s->cfg.quota_per_minute : t;
}

/* Forget the buckets that are full again (their address is idle). */
static void q_prune(srv *s, uint64_t now)
{
    struct quota *q = s->quota;
    for (size_t i = 0; i < q->nb; i++)
        for (q_node **pp = &q->b[i]; *pp;) {
            q_node *x = *pp;
            if (q_tokens(s, x, now) >= s->cfg.quota_per_minute) {
                *pp = x->next;
                free(x);
                q->n--;
            } else {
                pp = &x->next;
            }
        }
    q->pruned_at = now;
}

/* The bucket of key, made full when new; NULL when the table is full or
 * memory is short. */
static q_node *q_find(srv *s, const char *key, uint64_t now)
{
    struct quota *q = s->quota;
    size_t j = hash_str(key) & (q->nb - 1);
    for (q_node *x = q->b[j]; x; x = x->next)
        if (strcmp(x->key, key) == 0)
            return x;
    if (q->n >= SRV_QUOTA_ADDRESSES || now - q->pruned_at > 60000)
        q_prune(s, now);
    if (q->n >= SRV_QUOTA_ADDRESSES)
        return NULL;
    q_node *x = calloc(1, sizeof *x);
    if (!x)
        return NULL;
    snprintf(x->key, sizeof x->key, "%s", key);
    x->tokens = s->cfg.quota_per_minute;
    x->at_ms = now;
    x->next = q->b[j];
    q->b[j] = x;
    q->n++;
    return x;
}

static void quota_free(struct quota *q)
{
    if (!q)
        return;
    for (size_t i = 0; i < q->nb; i++)
        for (q_node *x = q->b[i], *next; x; x = next) {
            next = x->next;
            free(x);
        }
    free(q->b);
    free(q);
}

/* The quota key of an address: IPv4 as is, IPv6 by its /64. */
static void quota_key(const srv_cidr *a, const char *peer, char *out, size_t cap)
{
    if (a->family == AF_INET6) {
        const unsigned char *p = a->addr;
        snprintf(out, cap, "%02x%02x:%02x%02x:%02x%02x:%02x%02x::/64", p[0], p[1], p[2], p[3], p[4],
                 p[5], p[6], p[7]);
    } else {
        snprintf(out, cap, "%s", peer);
    }
}

/* ---- the client's address ------------------------------------------------------------- */

void access_conn_address(conn *c, struct lws *wsi)
{
    srv *s = c->srv;
    lws_get_peer_simple(wsi, c->peer, sizeof c->peer);
    if (strncmp(c->peer, "::ffff:", 7) == 0 && strchr(c->peer + 7, '.'))
        memmove(c->peer, c->peer + 7, strlen(c->peer + 7) + 1);
    if (!srv_addr_parse(c->peer, &c->addr))
        memset(&c->addr, 0, sizeof c->addr);
    if (!s->nproxies || !c->addr.family || !srv_cidr_match(s->proxies, s->nproxies, &c->addr))
        return;
    /* a trusted proxy: the client is the last address it appended */
    char xff[512];
    int n = lws_hdr_copy(wsi, xff, sizeof xff, WSI_TOKEN_X_FORWARDED_FOR);
    if (n <= 0)
        return;
    char *last = strrchr(xff, ',');
    last = last ? last + 1 : xff;
    while (*last == ' ')
        last++;
    size_t len = strcspn(last, " ");
    srv_cidr a;
    if (len < sizeof c->peer) {
        last[len] = 0;
        if (srv_addr_parse(last, &a)) {
            memcpy(c->peer, last, len + 1);
            c->addr = a;
        }
    }
}

/* ---- connections per address ----------------------------------------------------------- */

/* Are a and b one client's: the same IPv4 address, the same IPv6 /64? */
static bool same_client(const srv_cidr *a, const srv_cidr *b)
{
    if (!a->family || a->family != b->family)
        return false;
    return memcmp(a->addr, b->addr, a->family == AF_INET6 ? 8 : 4) == 0;
}

bool access_conn_allowed(const conn *c, char *msg, size_t cap)
{
    const srv *s = c->srv;
    if (!c->addr.family ||
        (s->nquota_exempt && srv_cidr_match(s->quota_exempt, s->nquota_exempt, &c->addr)))
        return true;
    int share = s->cfg.max_conns / SRV_CONNS_ADDRESS_SHARE;
    int limit = s->cfg.quota_conns > 0 && s->cfg.quota_conns < share ? s->cfg.quota_conns : share;
    if (limit < 1)
        limit = 1;
    int held = 0;
    for (const conn *o = s->conns; o; o = o->next)
        held += o != c && !o->closing && same_client(&o->addr, &c->addr);
    if (held < limit)
        return true;
    char key[64];
    quota_key(&c->addr, c->peer, key, sizeof key);
    snprintf(msg, cap, "your address (%s) holds its maximum of %d connections to this server", key,
             limit);
    return false;
}

/* ---- creating ---------------------------------------------------------------------------- */

int access_create_check(conn *c, const proto_msg *m, bool admin, char *key, size_t keycap)
{
    srv *s = c->srv;
    key[0] = 0;
    if (admin)
        return 0;
    bool bots = false;
    for (int i = 0; i < m->nseats; i++)
        if (!m->seats[i].open && match_spec_kind(m->seats[i].bot) == SEAT_BOT)
            bots = true;
    if (bots ? !s->bots_anyone : !s->open_anyone) {
        s->cnt.refused_policy++;
        conn_error(c, ENG_EFORBIDDEN,
                   bots ? "on this server, matches with the server's bots need the admin token "
                          "(\"admin_token\"); open seats only may be created without it"
                        : "on this server, creating matches needs the admin token "
                          "(\"admin_token\")",
                   m->id);
        return -1;
    }
    if (c->addr.family && s->nquota_exempt &&
        srv_cidr_match(s->quota_exempt, s->nquota_exempt, &c->addr))
        return 0;
    quota_key(&c->addr, c->peer, key, keycap);
    char msg[200];
    if (s->cfg.quota_matches > 0) {
        int live = 0;
        for (match *x = s->matches; x; x = x->next)
            live += x->status != MATCH_FINISHED && !x->closing && strcmp(x->creator, key) == 0;
        if (live >= s->cfg.quota_matches) {
            s->cnt.refused_quota++;
            snprintf(msg, sizeof msg,
                     "your address has %d matches not over, its quota without the admin token: "
                     "finish some first",
                     live);
            conn_error(c, ENG_ETOO_MANY, msg, m->id);
            srv_log(LOG_INFO, "quota_refused", "{s:s, s:s, s:i}", "address", key, "why", "matches",
                    "live", live);
            return -1;
        }
    }
    if (s->cfg.quota_per_minute > 0) {
        uint64_t now = srv_now(s);
        q_node *b = q_find(s, key, now);
        double t = b ? q_tokens(s, b, now) : 0;
        if (t < 1.0) {
            s->cnt.refused_rate++;
            if (b)
                snprintf(msg, sizeof msg,
                         "your address may create %d matches a minute without the admin token; "
                         "try again in %d s",
                         s->cfg.quota_per_minute,
                         (int)((1.0 - t) * 60.0 / s->cfg.quota_per_minute) + 1);
            else
                snprintf(msg, sizeof msg,
                         "the server counts creations for too many addresses now; try again "
                         "later");
            conn_error(c, ENG_ETOO_MANY, msg, m->id);
            srv_log(LOG_INFO, "quota_refused", "{s:s, s:s}", "address", key, "why", "rate");
            return -1;
        }
    }
    return 0;
}

void access_created(srv *s, match *x, const char *key)
{
    s->cnt.matches_created++;
    if (!key || !key[0])
        return;
    s->cnt.matches_anonymous++;
    snprintf(x->creator, sizeof x->creator, "%s", key);
    if (s->cfg.quota_per_minute > 0) {
        uint64_t now = srv_now(s);
        q_node *b = q_find(s, key, now);
        if (b) {
            b->tokens = q_tokens(s, b, now) - 1.0;
            b->at_ms = now;
        }
    }
}

/* ---- set-up ---------------------------------------------------------------------------- */

static void on_expiry_timer(uv_timer_t *t)
{
    srv *s = t->data;
    if (s->stopping || s->cfg.waiting_expiry_s <= 0)
        return;
    int64_t now = srv_epoch_ms(), limit = (int64_t)s->cfg.waiting_expiry_s * 1000;
    match *x = s->matches;
    while (x) {
        match *next = x->next; /* an expired match may be let go of (finished_kept) */
        if (x->status == MATCH_WAITING && !x->closing && !x->tour_id &&
            now - x->created_ms >= limit)
            match_expire(x);
        x = next;
    }
}

int access_init(srv *s, char *err, size_t errcap)
{
    char e[200];
    uint64_t seed = 0;
    char tok[17];
    if (srv_random_token(tok, 16) == 0)
        for (int i = 0; i < 16; i++)
            seed = seed * 33 + (unsigned char)tok[i];
    hash_seed = seed;
    struct {
        const char *text, *name;
        srv_cidr *out;
        int *n;
    } lists[] = {
        {s->cfg.quota_exempt, "quota.exempt", s->quota_exempt, &s->nquota_exempt},
        {s->cfg.metrics_allow, "metrics.allow", s->metrics_allow, &s->nmetrics_allow},
        {s->cfg.trusted_proxies, "server.trusted_proxies", s->proxies, &s->nproxies},
    };
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++) {
        int n = srv_cidr_parse_list(lists[i].text, lists[i].out, SRV_MAX_ADDRS, e, sizeof e);
        if (n < 0) {
            snprintf(err, errcap, "%s: %s", lists[i].name, e);
            return ENG_EINVAL;
        }
        *lists[i].n = n;
    }
    bool loop = srv_config_loopback(&s->cfg);
    s->bots_anyone =
        s->cfg.create_bots == SRV_WHO_ANYONE || (s->cfg.create_bots == SRV_WHO_AUTO && loop);
    s->open_anyone =
        s->cfg.create_open == SRV_WHO_ANYONE || (s->cfg.create_open == SRV_WHO_AUTO && loop);
    s->quota = calloc(1, sizeof *s->quota);
    if (!s->quota || tokidx_init(s) != 0 || !(s->quota->b = calloc(8192, sizeof *s->quota->b))) {
        snprintf(err, errcap, "out of memory");
        return ENG_ENOMEM;
    }
    s->quota->nb = 8192;
    uv_timer_init(s->loop, &s->expiry_timer);
    s->expiry_timer.data = s;
    return 0;
}

void access_start(srv *s)
{
    if (s->cfg.waiting_expiry_s > 0)
        uv_timer_start(&s->expiry_timer, on_expiry_timer, SRV_EXPIRY_SWEEP_MS, SRV_EXPIRY_SWEEP_MS);
}

void access_stop(srv *s)
{
    if (!uv_is_closing((uv_handle_t *)&s->expiry_timer) && s->expiry_timer.loop) {
        uv_timer_stop(&s->expiry_timer);
        uv_close((uv_handle_t *)&s->expiry_timer, NULL);
    }
}

void access_free(srv *s)
{
    tokidx_free(s);
    quota_free(s->quota);
    s->quota = NULL;
}
