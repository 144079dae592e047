/*
 * config.c — the server's configuration: defaults, the config file, one
 * setting at a time (flags), printing it back, address lists.
 *
 * The file (docs/operations.md, "Configuration") is INI-like:
 *
 *     # a comment
 *     [server]
 *     host = 0.0.0.0          # an inline comment follows whitespace
 *     demo = "mcts:ms=500"    # quotes keep spaces and '#'; \" and \\ inside
 *
 * Every setting is a row of one table (section, key, kind, where it lives
 * in srv_config, range or choices): the parser, `--set SECTION.KEY=VALUE`,
 * srv_config_print() and the docs all follow that table, so that a setting
 * cannot exist in one and not the others. The parser is strict: an unknown
 * section or key (with the nearest known key suggested), a key given twice,
 * a value of the wrong kind or out of range, a line that is not `key =
 * value` — each is an error naming the file and the line, and nothing is
 * guessed. Strings read from a file are owned by the srv_config (a list
 * freed by srv_config_free()).
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "base/ini.h"
#include "bots/mcts.h"
#include "config.h"
#include "journal/journal.h"
#include "limits.h"

struct srv_cfg_str {
    struct srv_cfg_str *next;
    char text[];
};

/* Largest config file, and longest line: a config is a page of settings;
 * anything much larger is the wrong file. */
#define CFG_MAX_FILE (1 << 20)
#define CFG_MAX_LINE 4096

enum cfg_kind {
    K_INT,   /* int in [min, max] */
    K_BOOL,  /* true/false, yes/no, on/off, 1/0 */
    K_STR,   /* a string; "" means none (NULL) */
    K_PATH,  /* a string that may not be empty */
    K_HOST,  /* a string; "*" means every interface (NULL) */
    K_WEB,   /* a string; "none" means no web UI (NULL) */
    K_ENUM,  /* one of choices, stored as its index */
    K_ADDRS, /* a list of addresses or CIDR blocks, checked when set */
};

typedef struct cfg_key {
    const char *section, *key;
    int kind;
    size_t off;                 /* offset of the field in srv_config */
    long long min, max;         /* K_INT */
    const char *const *choices; /* K_ENUM, NULL-terminated */
    const char *help;           /* one line, for --print-config */
} cfg_key;

static const char *const log_levels[] = {"debug", "info", "warn", "error", NULL};
static const char *const whos[] = {"auto", "anyone", "admin", NULL};
static const char *const checks[] = {"off", "quick", "full", NULL};
static const char *const isolations[] = {"full", "partial", NULL};

#define F(field) offsetof(srv_config, field)

static const cfg_key keys[] = {
    {"server", "host", K_HOST, F(host), 0, 0, NULL,
     "address or interface to listen on; * = every interface"},
    {"server", "port", K_INT, F(port), 0, 65535, NULL, "TCP port; 0 = any free port"},
    {"server", "web", K_WEB, F(web_root), 0, 0, NULL,
     "folder of the web UI served over HTTP; none = no web UI"},
    {"server", "log_level", K_ENUM, F(log_level), 0, 0, log_levels,
     "least severe log lines written: debug, info, warn, error"},
    {"server", "max_connections", K_INT, F(max_conns), 1, 1000000, NULL, "concurrent connections"},
    {"server", "idle_timeout_ms", K_INT, F(idle_timeout_ms), 3000, 3600000, NULL,
     "drop a connection silent this long (whole seconds)"},
    {"server", "demo", K_STR, F(demo), 0, 0, NULL,
     "keep a bot-vs-bot demo match going: one or two bot specs; empty = none"},
    {"server", "admin_token_file", K_STR, F(admin_token_file), 0, 0, NULL,
     "write the admin token to this file (mode 0600) at start"},
    {"server", "port_file", K_STR, F(port_file), 0, 0, NULL,
     "write the port to this file once listening"},
    {"server", "trusted_proxies", K_ADDRS, F(trusted_proxies), 0, 0, NULL,
     "reverse proxies (addresses, CIDR) whose X-Forwarded-For names the client"},
    {"server", "allowed_origins", K_STR, F(allowed_origins), 0, 0, NULL,
     "web pages (origins: https://host[:port]) besides the server's own that may open a "
     "WebSocket to it; * = any; clients that send no Origin always may"},
    {"journal", "path", K_PATH, F(db_path), 0, 0, NULL, "the SQLite database file"},
    {"journal", "storage", K_STR, F(storage), 0, 0, NULL,
     "sqlite:FILE, or a PostgreSQL connection string (postgresql://...); empty = path"},
    {"journal", "durable", K_BOOL, F(durable), 0, 0, NULL,
     "fsync every move (survives power loss, not only crashes)"},
    {"journal", "busy_timeout_ms", K_INT, F(busy_timeout_ms), 0, 5000, NULL,
     "wait this long for a lock held by another process before a write fails"},
    {"journal", "check", K_ENUM, F(check), 0, 0, checks,
     "integrity check of the database at start-up: off, quick, full"},
    {"cluster", "instance", K_STR, F(instance), 0, 0, NULL,
     "this server's name among servers sharing one PostgreSQL database; empty = the host name"},
    {"cluster", "lease_ms", K_INT, F(lease_ms), 1000, 600000, NULL,
     "a server silent this long is taken for dead and its matches are taken over"},
    {"cluster", "address", K_STR, F(cluster_address), 0, 0, NULL,
     "where clients reach this server (ws://HOST:PORT/): told to the clients of its matches "
     "that reach it through another server (owner_url), shown to operators"},
    {"cluster", "redis", K_STR, F(redis), 0, 0, NULL,
     "HOST:PORT of Redis, for spectators and moves across servers; empty = none"},
    {"tls", "cert", K_STR, F(tls_cert), 0, 0, NULL,
     "PEM certificate (chain): serve https:// and wss:// only"},
    {"tls", "key", K_STR, F(tls_key), 0, 0, NULL, "PEM private key of the certificate"},
    {"limits", "max_matches", K_INT, F(max_matches), 1, 100000, NULL,
     "matches not over held at once"},
    {"limits", "max_spectators", K_INT, F(max_spectators), 1, 100000, NULL,
     "spectators of one match"},
    {"limits", "finished_kept", K_INT, F(finished_kept), 1, 100000, NULL,
     "finished matches kept in memory for listing (the database keeps all)"},
    {"limits", "bot_threads", K_INT, F(bot_threads), 1, MCTS_MAX_THREADS, NULL,
     "search threads one of the server's bots may use (a spec's threads=); 1 = one each"},
    {"limits", "messages_per_second", K_INT, F(rate_per_sec), 1, 100000, NULL,
     "messages per second one connection may send, sustained"},
    {"limits", "burst", K_INT, F(rate_burst), 1, 100000, NULL,
     "messages one connection may send at once"},
    {"create", "bots", K_ENUM, F(create_bots), 0, 0, whos,
     "who may create matches with the server's bots: auto (anyone on loopback), anyone, admin"},
    {"create", "open", K_ENUM, F(create_open), 0, 0, whos,
     "who may create matches of open seats only: auto, anyone, admin"},
    {"create", "waiting_expiry_s", K_INT, F(waiting_expiry_s), 0, 31536000, NULL,
     "a match whose open seats are not all joined after this long expires; 0 = never"},
    {"quota", "matches_per_address", K_INT, F(quota_matches), 0, 1000000, NULL,
     "matches not over one address may have created without the admin token; 0 = no limit"},
    {"quota", "creates_per_minute", K_INT, F(quota_per_minute), 0, 1000000, NULL,
     "matches one address may create per minute without the admin token; 0 = no limit"},
    {"quota", "exempt", K_ADDRS, F(quota_exempt), 0, 0, NULL,
     "addresses (CIDR) the quota does not apply to"},
    {"quota", "connections_per_address", K_INT, F(quota_conns), 0, 1000000, NULL,
     "connections one address may hold at once (at most a quarter of max_connections); 0 = that "
     "quarter"},
    {"courses", "gate_jobs", K_INT, F(course_jobs), 0, 16, NULL,
     "course submissions whose gates are played at once, two games each; 0 = half the cores "
     "(at least 2)"},
    {"courses", "build_jobs", K_INT, F(course_build_jobs), 0, 16, NULL,
     "uploads checked or built at once (javac, gcc, python3's parse), on threads of their own; "
     "0 = half the cores (at least 1)"},
    {"courses", "max_upload_mb", K_INT, F(course_max_upload_mb), 0, 1024, NULL,
     "the largest submission (MiB, a zip counted unpacked) any course may allow; 0 = 64"},
    {"courses", "files", K_STR, F(course_files), 0, 0, NULL,
     "folder of the submissions' files; empty = DB.files beside the SQLite file "
     "(on PostgreSQL: ./tessera-files)"},
    {"sandbox", "isolation", K_ENUM, F(sandbox_partial), 0, 0, isolations,
     "programs (cmd:) run fully isolated or not at all (full), or with what the machine has "
     "(partial: an explicit opt-out, shown to every client)"},
    {"sandbox", "uid_base", K_INT, F(sandbox_uid_base), 0, 2147418112, NULL,
     "as root: the first uid of the pool programs run as, one each; 0 = 1879048192"},
    {"sandbox", "uids", K_INT, F(sandbox_uids), 0, 1048576, NULL,
     "as root: how many uids the pool has; 0 = 65536"},
    {"sandbox", "cpu_percent", K_INT, F(sandbox_cpu_pct), 0, 6400, NULL,
     "each program's CPU quota, percent of one CPU (all its processes); 0 = 100"},
    {"metrics", "enabled", K_BOOL, F(metrics), 0, 0, NULL, "serve GET /metrics (Prometheus)"},
    {"metrics", "allow", K_ADDRS, F(metrics_allow), 0, 0, NULL,
     "addresses (CIDR) that may read /metrics; empty = anyone"},
};

#define NKEYS (sizeof keys / sizeof keys[0])

void srv_config_defaults(srv_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->port = 8080;
    cfg->host = "127.0.0.1";
    cfg->max_conns = SRV_MAX_CONNS_DEFAULT;
    cfg->log_level = 1;
    cfg->idle_timeout_ms = SRV_HANGUP_IDLE_S * 1000;
    cfg->db_path = "tessera.db";
    cfg->lease_ms = JOURNAL_LEASE_MS;
    cfg->busy_timeout_ms = SRV_BUSY_TIMEOUT_MS;
    cfg->check = SRV_CHECK_QUICK;
    cfg->max_matches = SRV_MAX_LIVE_MATCHES;
    cfg->max_spectators = SRV_MAX_SPECTATORS;
    cfg->finished_kept = SRV_MAX_FINISHED_KEPT;
    cfg->course_jobs = 0;
    cfg->course_build_jobs = 0;
    cfg->course_max_upload_mb = 0;
    cfg->bot_threads = 1;
    cfg->rate_per_sec = SRV_RATE_PER_SEC;
    cfg->rate_burst = SRV_RATE_BURST;
    cfg->create_bots = SRV_WHO_AUTO;
    cfg->create_open = SRV_WHO_ANYONE;
    cfg->waiting_expiry_s = SRV_WAITING_EXPIRY_S;
    cfg->quota_matches = SRV_QUOTA_MATCHES;
    cfg->quota_per_minute = SRV_QUOTA_PER_MINUTE;
    cfg->quota_conns = SRV_CONNS_PER_ADDRESS;
    cfg->quota_exempt = SRV_QUOTA_EXEMPT;
    cfg->metrics = true;
}

void srv_config_free(srv_config *cfg)
{
    struct srv_cfg_str *s = cfg->owned;
    while (s) {
        struct srv_cfg_str *n = s->next;
        free(s);
        s = n;
    }
    cfg->owned = NULL;
}

static const char *keep(srv_config *cfg, const char *text)
{
    size_t n = strlen(text);
    struct srv_cfg_str *s = malloc(sizeof *s + n + 1);
    if (!s)
        return NULL;
    memcpy(s->text, text, n + 1);
    s->next = cfg->owned;
    cfg->owned = s;
    return s->text;
}

bool srv_config_loopback(const srv_config *cfg)
{
    const char *h = cfg->host;
    if (!h)
        return false;
    if (strcmp(h, "localhost") == 0)
        return true;
    srv_cidr a;
    if (!srv_addr_parse(h, &a))
        return false; /* an interface name: not known to be loopback */
    if (a.family == AF_INET)
        return a.addr[0] == 127;
    static const unsigned char one[16] = {[15] = 1};
    return memcmp(a.addr, one, 16) == 0;
}

/* ---- one setting ------------------------------------------------------------------- */

static bool parse_bool(const char *v, bool *out)
{
    static const char *const yes[] = {"true", "yes", "on", "1"}, *const no[] = {"false", "no",
                                                                                "off", "0"};
    for (int i = 0; i < 4; i++) {
        if (strcasecmp(v, yes[i]) == 0)
            return *out = true, true;
        if (strcasecmp(v, no[i]) == 0)
            return *out = false, true;
    }
    return false;
}

static const cfg_key *find_key(const char *section, const char *key)
{
    for (size_t i = 0; i < NKEYS; i++)
        if (strcmp(keys[i].section, section) == 0 && strcmp(keys[i].key, key) == 0)
            return &keys[i];
    return NULL;
}

static bool known_section(const char *section)
{
    for (size_t i = 0; i < NKEYS; i++)
        if (strcmp(keys[i].section, section) == 0)
            return true;
    return false;
}

/* "unknown key 'prot' in [server] (did you mean 'port'?)" */
static void unknown_key(const char *section, const char *key, char *err, size_t errcap)
{
    const cfg_key *best = NULL;
    int bd = 3;
    for (size_t i = 0; i < NKEYS; i++) {
        int d = ini_distance(key, keys[i].key);
        bool here = strcmp(keys[i].section, section) == 0;
        if (d < bd || (d == bd && best && here && strcmp(best->section, section) != 0)) {
            bd = d;
            best = &keys[i];
        }
    }
    /* the same key in another section is the likeliest slip */
    for (size_t i = 0; i < NKEYS; i++)
        if (strcmp(keys[i].key, key) == 0) {
            best = &keys[i];
            break;
        }
    if (best && strcmp(best->section, section) == 0)
        snprintf(err, errcap, "unknown key '%s' in [%s] (did you mean '%s'?)", key, section,
                 best->key);
    else if (best)
        snprintf(err, errcap, "unknown key '%s' in [%s] (did you mean '%s' in [%s]?)", key, section,
                 best->key, best->section);
    else
        snprintf(err, errcap, "unknown key '%s' in [%s]", key, section);
}

static void choices_text(const char *const *choices, char *out, size_t cap)
{
    size_t n = 0;
    out[0] = 0;
    for (int i = 0; choices[i]; i++)
        n += (size_t)snprintf(out + n, n < cap ? cap - n : 0, "%s%s",
                              i == 0           ? ""
                              : choices[i + 1] ? ", "
                                               : " or ",
                              choices[i]);
}

/* Set key k from value v (already unquoted). */
static int set_value(srv_config *cfg, const cfg_key *k, const char *v, char *err, size_t errcap)
{
    void *field = (char *)cfg + k->off;
    switch (k->kind) {
    case K_INT: {
        char *end;
        errno = 0;
        long long n = strtoll(v, &end, 10);
        if (!*v || *end || errno || isspace((unsigned char)*v)) {
            snprintf(err, errcap, "%s.%s must be a whole number, got '%.60s'", k->section, k->key,
                     v);
            return -1;
        }
        if (n < k->min || n > k->max) {
            snprintf(err, errcap, "%s.%s must be from %lld to %lld, got %lld", k->section, k->key,
                     k->min, k->max, n);
            return -1;
        }
        *(int *)field = (int)n;
        return 0;
    }
    case K_BOOL:
        if (!parse_bool(v, (bool *)field)) {
            snprintf(err, errcap, "%s.%s must be true or false, got '%.60s'", k->section, k->key,
                     v);
            return -1;
        }
        return 0;
    case K_ENUM:
        for (int i = 0; k->choices[i]; i++)
            if (strcmp(v, k->choices[i]) == 0) {
                *(int *)field = i;
                return 0;
            }
        char list[160];
        choices_text(k->choices, list, sizeof list);
        snprintf(err, errcap, "%s.%s must be %s, got '%.60s'", k->section, k->key, list, v);
        return -1;
    case K_ADDRS: {
        srv_cidr tmp[SRV_MAX_ADDRS];
        char e[160];
        if (srv_cidr_parse_list(v, tmp, SRV_MAX_ADDRS, e, sizeof e) < 0) {
            snprintf(err, errcap, "%s.%s: %s", k->section, k->key, e);
            return -1;
        }
        break;
    }
    default: break;
    }
    /* strings: one line of printable text */
    for (const char *q = v; *q; q++)
        if ((unsigned char)*q < 0x20 || *q == 0x7f) {
            snprintf(err, errcap, "%s.%s: a control character (byte 0x%02x) in the value",
                     k->section, k->key, (unsigned char)*q);
            return -1;
        }
    if (k->kind == K_PATH && !*v) {
        snprintf(err, errcap, "%s.%s may not be empty", k->section, k->key);
        return -1;
    }
    const char *s = v;
    if ((k->kind == K_STR || k->kind == K_ADDRS) && !*v)
        s = NULL;
    else if (k->kind == K_HOST && (strcmp(v, "*") == 0 || !*v))
        s = NULL;
    else if (k->kind == K_WEB && (strcmp(v, "none") == 0 || !*v))
        s = NULL;
    if (s && !(s = keep(cfg, s))) {
        snprintf(err, errcap, "out of memory");
        return -1;
    }
    *(const char **)field = s;
    return 0;
}

int srv_config_set(srv_config *cfg, const char *name, const char *value, char *err, size_t errcap)
{
    const char *dot = strchr(name, '.');
    char section[32];
    if (!dot || (size_t)(dot - name) >= sizeof section) {
        snprintf(err, errcap, "'%.60s' is not SECTION.KEY (e.g. quota.matches_per_address)", name);
        return -1;
    }
    memcpy(section, name, (size_t)(dot - name));
    section[dot - name] = 0;
    if (!known_section(section)) {
        snprintf(err, errcap,
                 "unknown section [%s] (sections: server, journal, tls, limits, create, quota, "
                 "metrics)",
                 section);
        return -1;
    }
    const cfg_key *k = find_key(section, dot + 1);
    if (!k) {
        unknown_key(section, dot + 1, err, errcap);
        return -1;
    }
    return set_value(cfg, k, value, err, errcap);
}

/* ---- the file ------------------------------------------------------------------------ */

/* A config's reading: the keys seen (a key given twice is an error). */
typedef struct cfg_reading {
    srv_config *cfg;
    bool seen[NKEYS];
} cfg_reading;

static int on_section(void *ud, const char *name, char *err, size_t errcap)
{
    (void)ud;
    if (known_section(name))
        return 0;
    snprintf(err, errcap,
             "unknown section [%.40s] (sections: server, journal, tls, limits, create, quota, "
             "metrics)",
             name);
    return -1;
}

static int on_pair(void *ud, const char *section, const char *key, const char *value, char *err,
                   size_t errcap)
{
    cfg_reading *r = ud;
    if (!section[0]) {
        snprintf(err, errcap,
                 "'%s' is outside any section: put it under [server], [journal], ... "
                 "(docs/operations.md)",
                 key);
        return -1;
    }
    const cfg_key *k = find_key(section, key);
    if (!k) {
        unknown_key(section, key, err, errcap);
        return -1;
    }
    if (r->seen[k - keys]) {
        snprintf(err, errcap, "%s.%s is set twice (the first on an earlier line)", section, key);
        return -1;
    }
    r->seen[k - keys] = true;
    return set_value(r->cfg, k, value, err, errcap);
}

int srv_config_load(srv_config *cfg, const char *path, char *err, size_t errcap)
{
    cfg_reading r = {.cfg = cfg};
    return ini_read(path, CFG_MAX_FILE, CFG_MAX_LINE, on_section, on_pair, &r, err, errcap);
}

/* ---- printing ------------------------------------------------------------------------ */

static void print_string(FILE *out, const char *s)
{
    /* quoted only when a plain value would read differently: a '#' that
     * would start a comment, a quote first, spaces at either end */
    bool quote = !*s || s[0] == '#' || s[0] == '"' || strstr(s, " #") || strstr(s, "\t#") ||
                 s[0] == ' ' || s[0] == '\t' || s[strlen(s) - 1] == ' ' || s[strlen(s) - 1] == '\t';
    if (!quote) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

void srv_config_print(const srv_config *cfg, FILE *out)
{
    const char *section = "";
    for (size_t i = 0; i < NKEYS; i++) {
        const cfg_key *k = &keys[i];
        if (strcmp(section, k->section) != 0) {
            fprintf(out, "%s[%s]\n", i ? "\n" : "", k->section);
            section = k->section;
        }
        fprintf(out, "# %s\n%s =", k->help, k->key);
        const void *field = (const char *)cfg + k->off;
        switch (k->kind) {
        case K_INT: fprintf(out, " %d", *(const int *)field); break;
        case K_BOOL: fputs(*(const bool *)field ? " true" : " false", out); break;
        case K_ENUM: fprintf(out, " %s", k->choices[*(const int *)field]); break;
        default: {
            const char *s = *(const char *const *)field;
            if (!s && k->kind == K_HOST)
                fputs(" *", out);
            else if (!s && k->kind == K_WEB)
                fputs(" none", out);
            else if (s && *s) {
                fputc(' ', out);
                print_string(out, s);
            }
        }
        }
        fputc('\n', out);
    }
}

bool srv_instance_valid(const char *name)
{
    size_t n = strlen(name);
    return n >= 1 && n <= JOURNAL_INSTANCE_MAX &&
           strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:-") == n;
}

const char *srv_storage_target(const srv_config *cfg)
{
    return cfg->storage ? cfg->storage : cfg->db_path ? cfg->db_path : "tessera.db";
}
