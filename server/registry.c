/*
 * registry.c — the admin token, and remote bots registered under a name.
 *
 * The admin token. Acts that run code on the server's machine or spend its
 * resources for others — seating an external program (cmd:), seating a
 * registered bot, creating and steering tournaments — need it. It is made
 * from getrandom(2) on the first start and kept in the journal's meta table
 * as its SHA-256 only ("admin_token_sha256"; servers sharing one PostgreSQL
 * database share the token: the first to store one wins, the others read
 * its hash). Its text is printed once on stderr and in the log by the
 * server that made it, and written then to --admin-token-file (mode 0600)
 * for scripts; a later start keeps a file that holds the token and warns
 * about one that does not (the text cannot be made again from the hash).
 * A database of before (the text under "admin_token") is hashed at the
 * first start that sees it and its text deleted. A message without the
 * token, or with another one, is refused with `forbidden`; the comparison
 * (of hashes) takes the same time whatever the token.
 *
 * Registered bots (docs/protocol.md, "Registered bots"). A connection
 * registers under a name with a secret; the first registration of a name
 * stores a salted PBKDF2-HMAC-SHA256 hash of the secret, later ones must
 * give the same secret. Hashing takes a few milliseconds, so it runs on the
 * thread pool, never on the loop: the job holds copies of what it needs and
 * the connection's id (not a pointer: the connection may be gone when the
 * hash is done). Once registered, the connection is given the seats of
 * every match that names the bot (`remote:NAME`): the live ones at once,
 * as `resumed` (a reconnect re-attaches them), and new ones as they are
 * created, as an unsolicited `joined`. A second connection registering the
 * same name with the right secret takes over: the first one is told
 * (`registration_taken`) and stays open without the name.
 */
#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "access.h"
#include "conn.h"
#include "internal.h"
#include "registry.h"
#include "storage/db.h"
#include "store.h"
#include "table.h"

#define SALT_LEN 16
#define HASH_LEN 32

static const char tables[] =
    "CREATE TABLE IF NOT EXISTS registered_bots("
    "  name TEXT PRIMARY KEY, salt BLOB NOT NULL, hash BLOB NOT NULL,"
    "  iterations INTEGER NOT NULL, created INTEGER NOT NULL, last_seen INTEGER);";

/* ---- the admin token ------------------------------------------------------------ */

static int write_token_file(const char *path, const char *token, char *err, size_t errcap)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        snprintf(err, errcap, "--admin-token-file %s: %s", path, strerror(errno));
        return ENG_EIO;
    }
    /* an existing file keeps its mode through O_CREAT: make it private */
    char line[SRV_TOKEN_LEN + 2];
    int n = snprintf(line, sizeof line, "%s\n", token);
    bool ok = fchmod(fd, 0600) == 0 && write(fd, line, (size_t)n) == n;
    if (close(fd) != 0)
        ok = false;
    if (!ok) {
        snprintf(err, errcap, "--admin-token-file %s: could not write it", path);
        return ENG_EIO;
    }
    return 0;
}

/* The value stored under `key` in the meta table into out (len + 1 bytes):
 * 1 when there is one of len characters, 0 when there is none, or a DB_E*
 * code. */
static int read_meta_len(db_conn *db, const char *key, size_t len, char *out)
{
    db_stmt *q = NULL;
    int rc = db_prepare(db, "SELECT value FROM meta WHERE key=?", &q);
    if (rc == DB_OK)
        rc = db_bind_text(q, 1, key, -1);
    if (rc == DB_OK)
        rc = db_step(q);
    int found = rc < 0 ? rc : 0;
    if (rc == DB_ROW) {
        const char *v = db_column_text(q, 0);
        if (v && strlen(v) == len) {
            memcpy(out, v, len + 1);
            found = 1;
        }
    }
    db_finalize(q);
    return found;
}

static int read_meta_token(db_conn *db, const char *key, char *out)
{
    return read_meta_len(db, key, SRV_TOKEN_LEN, out);
}

/* Store value under key unless a value is there already: true when the
 * statement ran (read the key back to know whose value it holds). */
static bool put_meta_once(db_conn *db, const char *key, const char *value)
{
    db_stmt *q = NULL;
    bool ok = db_prepare(db, "INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO NOTHING",
                         &q) == DB_OK &&
              db_bind_text(q, 1, key, -1) == DB_OK && db_bind_text(q, 2, value, -1) == DB_OK &&
              db_step(q) == DB_DONE;
    db_finalize(q);
    return ok;
}

/* Does the file at path hold the token whose hash is `hash`? */
static bool token_file_holds(const char *path, const char *hash)
{
    char line[SRV_TOKEN_LEN + 8] = "";
    FILE *f = fopen(path, "re");
    if (!f)
        return false;
    bool got = fgets(line, sizeof line, f) != NULL;
    fclose(f);
    line[strcspn(line, "\r\n")] = 0;
    return got && access_token_ok(line, hash);
}

/* The admin token's hash into s->admin_hash, made when there is none (its
 * text then into text, and *made set) or taken over from a database of
 * before (its text into text). */
static int admin_token_load(srv *s, char *text, bool *made, char *err, size_t errcap)
{
    db_conn *db = store_db(s);
    *made = false;
    text[0] = 0;
    int found = read_meta_len(db, "admin_token_sha256", SRV_TOKEN_HASH_LEN, s->admin_hash);
    if (found == 0) {
        char mine[SRV_TOKEN_HASH_LEN + 1];
        int old = read_meta_token(db, "admin_token", text); /* before hashing */
        if (old == 0 && srv_random_token(text, SRV_TOKEN_LEN) != 0) {
            snprintf(err, errcap, "no random bytes for the admin token (getrandom failed)");
            return ENG_EINTERNAL;
        }
        if (old >= 0) {
            access_token_hash(text, mine);
            found = put_meta_once(db, "admin_token_sha256", mine)
                        ? read_meta_len(db, "admin_token_sha256", SRV_TOKEN_HASH_LEN, s->admin_hash)
                        : -1;
            if (found == 1 && old == 1)
                found = db_exec(db, "DELETE FROM meta WHERE key='admin_token'") == DB_OK ? 1 : -1;
        } else {
            found = old;
        }
        if (found == 1 && strcmp(s->admin_hash, mine) != 0)
            text[0] = 0; /* another server sharing the database stored its own first */
        *made = found == 1 && old == 0 && text[0];
    }
    if (found != 1) {
        s->admin_hash[0] = 0;
        snprintf(err, errcap, "database: the admin token: %s", db_errmsg(db));
        return ENG_ESTORAGE;
    }
    return 0;
}

int srv_meta_token(srv *s, const char *key, char *out, bool *made_here, char *err, size_t errcap)
{
    db_conn *db = store_db(s);
    *made_here = false;
    int found = read_meta_token(db, key, out);
    if (found < 0) {
        snprintf(err, errcap, "database: reading the %s: %s", key, db_errmsg(db));
        return ENG_ESTORAGE;
    }
    if (found)
        return 0;
    char made[SRV_TOKEN_LEN + 1];
    if (srv_random_token(made, SRV_TOKEN_LEN) != 0) {
        snprintf(err, errcap, "no random bytes for the %s (getrandom failed)", key);
        return ENG_EINTERNAL;
    }
    /* another server sharing the database may have stored one since: a
     * well-formed token stays (the update's WHERE) and is read back; a
     * malformed row is replaced, as a missing one is inserted */
    db_stmt *q = NULL;
    bool ok = db_prepare(db,
                         "INSERT INTO meta(key, value) VALUES(?, ?) "
                         "ON CONFLICT(key) DO UPDATE SET value=excluded.value "
                         "WHERE length(meta.value) <> ?",
                         &q) == DB_OK &&
              db_bind_text(q, 1, key, -1) == DB_OK && db_bind_text(q, 2, made, -1) == DB_OK &&
              db_bind_int(q, 3, SRV_TOKEN_LEN) == DB_OK && db_step(q) == DB_DONE;
    db_finalize(q);
    if (!ok || read_meta_token(db, key, out) != 1) {
        snprintf(err, errcap, "database: storing the %s: %s", key, db_errmsg(db));
        return ENG_ESTORAGE;
    }
    *made_here = strcmp(out, made) == 0;
    return 0;
}

int admin_init(srv *s, char *err, size_t errcap)
{
    db_conn *db = store_db(s);
    int rc = db_schema_lock(db); /* servers starting at once on PostgreSQL */
    if (rc == DB_OK)
        rc = db_exec(db, tables);
    db_schema_unlock(db);
    if (rc != DB_OK) {
        snprintf(err, errcap, "database: %s", db_errmsg(db));
        return ENG_ESTORAGE;
    }
    bool made = false;
    char text[SRV_TOKEN_LEN + 1];
    rc = admin_token_load(s, text, &made, err, errcap);
    if (rc)
        return rc;
    if (made) {
        /* shown once, by the server that made it: the operator copies it
         * now, or reads --admin-token-file; the database keeps its hash */
        fprintf(stderr,
                "tessera serve: the admin token of this server (shown once, its hash kept in %s): "
                "%s\n",
                store_describe(s), text);
        srv_log(LOG_ALWAYS, "admin_token", "{s:s, s:s}", "token", text, "note",
                "shown once; needed for cmd: and remote: seats and tournaments");
    }
    const char *file = s->cfg.admin_token_file;
    if (file && text[0])
        rc = write_token_file(file, text, err, errcap);
    else if (file && token_file_holds(file, s->admin_hash))
        chmod(file, 0600); /* it holds a secret */
    else if (file)
        srv_log(LOG_WARN, "admin_token_file", "{s:s, s:s}", "file", file, "note",
                "does not hold the admin token, and this server cannot write it: the database keeps "
                "the token's hash only. It was shown once by the server that made it (and written "
                "to that server's admin token file)");
    OPENSSL_cleanse(text, sizeof text);
    return rc;
}

bool admin_token_ok(const srv *s, const char *token)
{
    if (!token || strlen(token) != SRV_TOKEN_LEN)
        return false;
    return access_token_ok(token, s->admin_hash);
}

bool admin_check(conn *c, const proto_msg *m)
{
    char msg[128];
    if (!m->admin_token) {
        snprintf(msg, sizeof msg, "%s needs the server's admin token (\"admin_token\")",
                 proto_type_name(m->type));
        conn_error(c, ENG_EFORBIDDEN, msg, m->id);
        return false;
    }
    if (!admin_token_ok(c->srv, m->admin_token)) {
        srv_log(LOG_WARN, "admin_token_refused", "{s:I, s:s, s:s}", "conn", (json_int_t)c->id,
                "peer", c->peer, "type", proto_type_name(m->type));
        conn_error(c, ENG_EFORBIDDEN, "the admin token does not match", m->id);
        return false;
    }
    return true;
}

/* ---- the registry in memory --------------------------------------------------------- */

regbot *registry_find(srv *s, const char *name)
{
    for (regbot *r = s->regbots; r; r = r->next)
        if (strcmp(r->name, name) == 0)
            return r;
    return NULL;
}

static regbot *registry_get(srv *s, const char *name)
{
    regbot *r = registry_find(s, name);
    if (r)
        return r;
    r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    snprintf(r->name, sizeof r->name, "%s", name);
    r->capacity = 1;
    r->next = s->regbots;
    s->regbots = r;
    return r;
}

void registry_free(srv *s)
{
    while (s->regbots) {
        regbot *r = s->regbots;
        s->regbots = r->next;
        free(r);
    }
}

int registry_load(const srv *s, const char *name)
{
    int n = 0;
    for (match *m = s->matches; m; m = m->next)
        if (m->status != MATCH_FINISHED && !m->closing)
            for (int i = 0; i < m->nseats; i++)
                n += m->seats[i].kind == SEAT_REMOTE && strcmp(m->seats[i].name, name) == 0;
    return n;
}

bool registry_known(srv *s, const char *name)
{
    db_stmt *q = NULL;
    bool known =
        db_prepare(store_db(s), "SELECT 1 FROM registered_bots WHERE name=?", &q) == DB_OK &&
        db_bind_text(q, 1, name, -1) == DB_OK && db_step(q) == DB_ROW;
    db_finalize(q);
    return known;
}

/* How many names are registered (0 when the table cannot be read: the
 * insert that follows fails then, with the reason logged). */
static int64_t registered_count(srv *s)
{
    db_stmt *q = NULL;
    int64_t names = 0;
    if (db_prepare(store_db(s), "SELECT count(*) FROM registered_bots", &q) == DB_OK &&
        db_step(q) == DB_ROW)
        names = db_column_int64(q, 0);
    db_finalize(q);
    return names;
}

static bool plays(const regbot *r, const eng_game *g)
{
    if (!r || r->ngames == 0)
        return true;
    for (int i = 0; i < r->ngames; i++)
        if (strcmp(r->games[i], g->name) == 0)
            return true;
    return false;
}

int registry_check(srv *s, const char *name, const eng_game *g, int more, char *err, size_t errcap)
{
    if (!registry_known(s, name)) {
        snprintf(err, errcap, "no bot is registered as '%.64s' (it must register first)", name);
        return ENG_EUNKNOWN_BOT;
    }
    regbot *r = registry_find(s, name);
    if (!plays(r, g)) {
        snprintf(err, errcap, "'%.64s' registered for other games than %s", name, g->name);
        return ENG_EBAD_BOT_SPEC;
    }
    int cap = r ? r->capacity : 1;
    if (registry_load(s, name) + more >= cap) {
        snprintf(err, errcap, "'%.64s' already plays %d game%s at once, its capacity", name, cap,
                 cap == 1 ? "" : "s");
        return ENG_ETOO_MANY;
    }
    return 0;
}

void registry_conn_closed(conn *c)
{
    if (c->reg && c->reg->conn == c)
        c->reg->conn = NULL;
    c->reg = NULL;
}

/* ---- register ------------------------------------------------------------------------ */

typedef struct reg_job {
    uv_work_t req;
    srv *srv;
    uint64_t conn_id;
    json_t *id; /* the message's id (a copy) */
    char name[PROTO_NAME_MAX + 1];
    char secret[PROTO_SECRET_MAX + 1];
    int capacity, ngames;
    char games[PROTO_MAX_REG_GAMES][PROTO_NAME_MAX + 1];
    bool known; /* a stored hash to check against */
    unsigned char salt[SALT_LEN];
    unsigned char stored[HASH_LEN];
    int iterations;
    unsigned char hash[HASH_LEN]; /* computed */
    bool ok;                      /* PBKDF2 ran */
    struct reg_job *next;         /* in-flight list (one per name) */
} reg_job;

static reg_job *in_flight;

static void hash_work(uv_work_t *req)
{
    reg_job *j = req->data;
    j->ok = PKCS5_PBKDF2_HMAC(j->secret, (int)strlen(j->secret), j->salt, SALT_LEN, j->iterations,
                              EVP_sha256(), HASH_LEN, j->hash) == 1;
    OPENSSL_cleanse(j->secret, sizeof j->secret);
}

static bool store_secret(srv *s, const reg_job *j)
{
    db_conn *db = store_db(s);
    db_stmt *q = NULL;
    int64_t now = srv_epoch_ms();
    bool ok = db_prepare(db,
                         "INSERT INTO registered_bots(name,salt,hash,iterations,created,"
                         "last_seen) VALUES(?,?,?,?,?,?)",
                         &q) == DB_OK &&
              db_bind_text(q, 1, j->name, -1) == DB_OK &&
              db_bind_blob(q, 2, j->salt, SALT_LEN) == DB_OK &&
              db_bind_blob(q, 3, j->hash, HASH_LEN) == DB_OK &&
              db_bind_int(q, 4, j->iterations) == DB_OK && db_bind_int64(q, 5, now) == DB_OK &&
              db_bind_int64(q, 6, now) == DB_OK && db_step(q) == DB_DONE;
    if (!ok)
        srv_log(LOG_ERROR, "storage_error", "{s:s, s:s, s:s}", "what", "register", "name", j->name,
                "sqlite", db_errmsg(db));
    db_finalize(q);
    return ok;
}

/* The connection becomes the registered bot: the previous holder of the
 * name is told, the reply goes out, then every live seat of the name. */
static void registered(srv *s, conn *c, const reg_job *j)
{
    regbot *r = registry_get(s, j->name);
    if (!r) {
        conn_error(c, ENG_ENOMEM, "out of memory", j->id);
        return;
    }
    if (r->conn && r->conn != c) {
        char msg[160];
        snprintf(msg, sizeof msg, "another connection registered as %s; this one no longer is",
                 r->name);
        conn_error(r->conn, ENG_EREGISTRATION_TAKEN, msg, NULL);
        r->conn->reg = NULL;
    }
    if (c->reg && c->reg != r)
        registry_conn_closed(c);
    r->conn = c;
    c->reg = r;
    r->capacity = j->capacity;
    r->ngames = j->ngames;
    memcpy(r->games, j->games, sizeof r->games);
    json_t *reply = proto_reply("registered", j->id);
    json_object_set_new(reply, "name", json_string(r->name));
    json_object_set_new(reply, "capacity", json_integer(r->capacity));
    conn_send(c, reply);
    srv_log(LOG_INFO, "registered", "{s:s, s:I, s:i}", "name", r->name, "conn", (json_int_t)c->id,
            "capacity", r->capacity);
    /* re-attach every live seat of the name (a reconnect, a take-over) */
    for (match *m = s->matches; m; m = m->next) {
        if (m->status == MATCH_FINISHED || m->closing)
            continue;
        for (int i = 0; i < m->nseats; i++)
            if (m->seats[i].kind == SEAT_REMOTE && strcmp(m->seats[i].name, r->name) == 0 &&
                m->seats[i].conn != c)
                table_take_seat(c, m, i, "resumed", NULL, NULL);
    }
    if (s->seats_freed)
        s->seats_freed(s);
}

static void hash_done(uv_work_t *req, int status)
{
    reg_job *j = req->data;
    srv *s = j->srv;
    s->hashing--;
    for (reg_job **pp = &in_flight; *pp; pp = &(*pp)->next)
        if (*pp == j) {
            *pp = j->next;
            break;
        }
    conn *c = conn_find(s, j->conn_id);
    if (c && !s->stopping) {
        if (status != 0 || !j->ok) {
            conn_error(c, ENG_EINTERNAL, "the secret could not be hashed; try again", j->id);
        } else if (j->known) {
            if (CRYPTO_memcmp(j->hash, j->stored, HASH_LEN) != 0) {
                srv_log(LOG_WARN, "register_refused", "{s:s, s:s}", "name", j->name, "peer",
                        c->peer);
                conn_error(c, ENG_EBAD_TOKEN, "the secret does not match this name", j->id);
            } else {
                registered(s, c, j);
            }
        } else if (!store_secret(s, j)) {
            conn_error(c, ENG_ESTORAGE, "the registration could not be stored; try again", j->id);
        } else {
            registered(s, c, j);
        }
    }
    json_decref(j->id);
    OPENSSL_cleanse(j, sizeof *j);
    free(j);
}

void handle_register(conn *c, const proto_msg *m)
{
    srv *s = c->srv;
    if (c->reg && strcmp(c->reg->name, m->name) != 0) {
        char msg[160];
        snprintf(msg, sizeof msg, "this connection is registered as %s: unregister first",
                 c->reg->name);
        conn_error(c, ENG_EBAD_MESSAGE, msg, m->id);
        return;
    }
    for (int i = 0; i < m->ngames; i++)
        if (!eng_find_game(m->games[i]) || !codec_find(m->games[i])) {
            char msg[128];
            snprintf(msg, sizeof msg, "register: no game named '%.40s' (see list_games)",
                     m->games[i]);
            conn_error(c, ENG_EUNKNOWN_GAME, msg, m->id);
            return;
        }
    for (reg_job *j = in_flight; j; j = j->next)
        if (strcmp(j->name, m->name) == 0) {
            conn_error(c, ENG_ETOO_MANY, "a registration of this name is being checked; try again",
                       m->id);
            return;
        }
    if (s->hashing >= SRV_MAX_HASHING) {
        conn_error(c, ENG_ETOO_MANY, "too many registrations at once; try again", m->id);
        return;
    }
    reg_job *j = calloc(1, sizeof *j);
    if (!j) {
        conn_error(c, ENG_ENOMEM, "out of memory", m->id);
        return;
    }
    j->srv = s;
    j->conn_id = c->id;
    j->id = m->id ? json_deep_copy(m->id) : NULL;
    snprintf(j->name, sizeof j->name, "%s", m->name);
    snprintf(j->secret, sizeof j->secret, "%s", m->secret);
    j->capacity = m->capacity;
    j->ngames = m->ngames;
    for (int i = 0; i < m->ngames; i++)
        snprintf(j->games[i], sizeof j->games[i], "%s", eng_find_game(m->games[i])->name);
    j->iterations = SRV_PBKDF2_ITERATIONS;
    /* the stored hash, or a fresh salt for a first registration */
    db_stmt *q = NULL;
    int rc = db_prepare(store_db(s),
                        "SELECT salt, hash, iterations FROM registered_bots WHERE name=?", &q);
    if (rc == DB_OK && (rc = db_bind_text(q, 1, j->name, -1)) == DB_OK) {
        rc = db_step(q);
        int nsalt = 0, nhash = 0;
        /* a blob's bytes are valid until the next column read of q (PostgreSQL
         * decodes each one): copied at once */
        const void *salt = rc == DB_ROW ? db_column_blob(q, 0, &nsalt) : NULL;
        if (salt && nsalt == SALT_LEN)
            memcpy(j->salt, salt, SALT_LEN);
        const void *hash = rc == DB_ROW ? db_column_blob(q, 1, &nhash) : NULL;
        if (hash && nhash == HASH_LEN)
            memcpy(j->stored, hash, HASH_LEN);
        if (rc == DB_ROW && salt && nsalt == SALT_LEN && hash && nhash == HASH_LEN &&
            db_column_int(q, 2) > 0) {
            j->iterations = db_column_int(q, 2);
            j->known = true;
            rc = DB_OK;
        } else if (rc == DB_ROW || rc == DB_DONE) {
            rc = DB_OK;
        }
    }
    db_finalize(q);
    if (rc != DB_OK) {
        conn_error(c, ENG_ESTORAGE, "the registration could not be read; try again", m->id);
        goto drop;
    }
    if (!j->known) {
        /* a new name: the table of names is bounded */
        if (registered_count(s) >= SRV_MAX_REGISTERED) {
            conn_error(c, ENG_ETOO_MANY, "the server holds its maximum of registered names",
                       m->id);
            goto drop;
        }
        char salt[SALT_LEN + 1];
        if (srv_random_token(salt, SALT_LEN) != 0) {
            conn_error(c, ENG_EINTERNAL, "no random bytes for a salt; try again", m->id);
            goto drop;
        }
        memcpy(j->salt, salt, SALT_LEN);
    }
    j->req.data = j;
    if (uv_queue_work(s->loop, &j->req, hash_work, hash_done) != 0) {
        conn_error(c, ENG_EINTERNAL, "the secret could not be hashed; try again", m->id);
        goto drop;
    }
    s->hashing++;
    j->next = in_flight;
    in_flight = j;
    return;
drop:
    json_decref(j->id);
    OPENSSL_cleanse(j, sizeof *j);
    free(j);
}

/* ---- names given out by the server (courses.c) ------------------------------------- */

bool registry_hash_secret(const char *secret, const unsigned char *salt, int iterations,
                          unsigned char *hash)
{
    return PKCS5_PBKDF2_HMAC(secret, (int)strlen(secret), salt, SALT_LEN, iterations,
                             EVP_sha256(), HASH_LEN, hash) == 1;
}

int registry_reserve(srv *s, const char *name, const unsigned char *salt,
                     const unsigned char *hash, int iterations)
{
    if (registry_known(s, name))
        return ENG_EINVAL;
    if (registered_count(s) >= SRV_MAX_REGISTERED)
        return ENG_ETOO_MANY;
    reg_job j;
    memset(&j, 0, sizeof j);
    snprintf(j.name, sizeof j.name, "%s", name);
    memcpy(j.salt, salt, SALT_LEN);
    memcpy(j.hash, hash, HASH_LEN);
    j.iterations = iterations;
    return store_secret(s, &j) ? 0 : ENG_ESTORAGE;
}

void handle_unregister(conn *c, const proto_msg *m)
{
    if (!c->reg) {
        conn_error(c, ENG_EBAD_MESSAGE, "this connection is not registered", m->id);
        return;
    }
    srv_log(LOG_INFO, "unregistered", "{s:s, s:I}", "name", c->reg->name, "conn",
            (json_int_t)c->id);
    registry_conn_closed(c);
    conn_send(c, proto_reply("unregistered", m->id));
}
