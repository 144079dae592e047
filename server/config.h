/*
 * config.h — the server's configuration: srv_config, everything an operator
 * can set, and the functions that fill, check and print it (config.c).
 *
 * Its defaults come from srv_config_defaults(); a config file
 * (docs/operations.md, "Configuration") is read by srv_config_load(), and
 * one setting at a time by srv_config_set() (what `tessera serve --set
 * SECTION.KEY=VALUE` and the other flags do, after the file: flags win).
 * A header of its own, below the server's top (server.h includes it for
 * `tessera serve`): the server's inner files read the configuration they
 * were started with (internal.h), and have no business with srv_run.
 */
#ifndef TESSERA_SERVER_CONFIG_H
#define TESSERA_SERVER_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Who may create a kind of match (the [create] section). */
enum srv_who {
    SRV_WHO_AUTO,   /* anyone while the server listens on loopback only, else admin */
    SRV_WHO_ANYONE, /* any client, under the per-address quota */
    SRV_WHO_ADMIN,  /* only with the admin token */
};

/* The journal's integrity check at start-up ([journal] check). */
enum srv_check { SRV_CHECK_OFF, SRV_CHECK_QUICK, SRV_CHECK_FULL };

struct srv_cfg_str;

typedef struct srv_config {
    /* [server] */
    int port;                 /* TCP port (default 8080; 0 = any free port) */
    const char *host;         /* address or interface to bind (default 127.0.0.1);
                                 NULL = every interface ("*" in a file or flag) */
    const char *web_root;     /* directory served over HTTP (NULL = none) */
    int max_conns;            /* concurrent connections */
    int log_level;            /* 0 debug, 1 info, 2 warn, 3 error */
    const char *demo;         /* keep a live bot match of these specs going, e.g.
                                 "mcts:ms=1000,heuristic"; NULL = none */
    const char *port_file;    /* write the bound port here once listening (tests) */
    int idle_timeout_ms;      /* drop a connection silent this long (0: limits.h's
                                 SRV_HANGUP_IDLE_S); whole seconds, rounded up */
    const char *admin_token_file; /* write the admin token here (mode 0600) at start */
    const char *trusted_proxies;  /* addresses (CIDR) whose X-Forwarded-For is believed */
    const char *allowed_origins;  /* other origins whose pages may connect ("*": any) */
    /* [journal] */
    const char *db_path;      /* SQLite file (default "tessera.db") */
    const char *storage;      /* where to store: "sqlite:FILE", or a PostgreSQL connection
                                 string (docs/scaling.md); NULL: db_path */
    bool durable;             /* fsync every commit (survives power loss, slower) */
    int busy_timeout_ms;      /* wait this long for a lock another process holds */
    int check;                /* enum srv_check: integrity check at start-up */
    /* [cluster] (several servers on one PostgreSQL database: docs/scaling.md) */
    const char *instance;     /* this server's name, unique among them (NULL: the host name) */
    int lease_ms;             /* a dead server's matches are taken over after this long */
    const char *cluster_address; /* where this server is reached (shown to operators) */
    const char *redis;        /* HOST:PORT of Redis, for events between servers (NULL: none) */
    /* [tls] */
    const char *tls_cert;     /* PEM certificate (chain): serve https:// and wss:// */
    const char *tls_key;      /* its PEM private key */
    /* [limits] */
    int max_matches;          /* matches not over held at once */
    int max_spectators;       /* spectators per match */
    int finished_kept;        /* finished matches kept in memory for listing */
    int bot_threads;          /* search threads one in-process bot may ask for (threads=) */
    int course_jobs;          /* courses: submissions (or finals) played at once; 0 = default */
    int course_build_jobs;    /* courses: uploads checked or built at once; 0 = default */
    int course_max_upload_mb; /* courses: a course's largest submission at most; 0 = default */
    const char *course_files; /* courses: the submissions' folder (NULL: DB.files beside the
                                 SQLite file, or ./tessera-files on PostgreSQL) */
    int rate_per_sec;         /* messages per second per connection (sustained) */
    int rate_burst;           /* ... and its burst */
    /* [create] */
    int create_bots;          /* enum srv_who: matches seating in-process bots */
    int create_open;          /* enum srv_who: matches of open seats only */
    int waiting_expiry_s;     /* a match whose open seats are not all joined after
                                 this long ends as `expired` (0: never) */
    /* [quota] (clients without the admin token, per address: IPv4, or IPv6 /64) */
    int quota_matches;        /* matches not over it created (0: no limit) */
    int quota_per_minute;     /* matches it may create per minute (0: no limit) */
    int quota_conns;          /* connections it may hold at once (0: a quarter of max_conns) */
    const char *quota_exempt; /* addresses (CIDR) the quota does not apply to */
    /* [sandbox] (untrusted programs: players/sandbox.h) */
    int sandbox_partial;      /* 1: run programs with the isolation the machine has (opt-out) */
    int sandbox_uid_base;     /* as root: the first uid of the programs' pool (0: default) */
    int sandbox_uids;         /* as root: how many (0: default) */
    int sandbox_cpu_pct;      /* each program's CPU quota, percent of one CPU (0: default) */
    /* [metrics] */
    bool metrics;             /* serve GET /metrics */
    const char *metrics_allow; /* addresses (CIDR) that may read it ("" = anyone) */

    struct srv_cfg_str *owned; /* strings read from a file (srv_config_free) */
} srv_config;

/* Every setting at its default (docs/operations.md lists them). web_root is
 * left NULL: the caller knows where its web assets are installed. */
void srv_config_defaults(srv_config *cfg);

/* Read a config file into cfg (settings it does not name keep their value).
 * Returns 0, or -1 with "FILE:LINE: what is wrong" in err; cfg may then hold
 * the settings of the lines before the bad one. */
int srv_config_load(srv_config *cfg, const char *path, char *err, size_t errcap);

/* Set one setting, "SECTION.KEY" = value, as a config file line would.
 * The value is copied. Returns 0, or -1 with the reason in err. */
int srv_config_set(srv_config *cfg, const char *name, const char *value, char *err,
                   size_t errcap);

/* Write the configuration as a config file (every setting, with its value)
 * that srv_config_load() reads back to the same settings. */
void srv_config_print(const srv_config *cfg, FILE *out);

/* Free the strings srv_config_load()/srv_config_set() copied. */
void srv_config_free(srv_config *cfg);

/* Check a configuration before serving: the demo spec is one or two valid
 * bot specs ("BOT" plays both seats; "BOT,BOT" one each), address lists
 * parse, TLS has both a certificate and a key. Returns 0, or -1 with the
 * reason in err (`tessera serve` exits 2 with it). */
int srv_config_check(const srv_config *cfg, char *err, size_t errcap);

/* Does the configuration listen on loopback addresses only? */
bool srv_config_loopback(const srv_config *cfg);

/* Is name a valid [cluster] instance name? */
bool srv_instance_valid(const char *name);

/* Where the configuration says to store: journal.storage, or journal.path. */
const char *srv_storage_target(const srv_config *cfg);

#endif
