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
 * Registered bots (docs/protocol.md, "Registered bots"): the names in
 * memory (their connection, capacity, games) and in the database (a salted
 * PBKDF2-HMAC-SHA256 hash of each name's secret), whether a match can seat
 * one now. The `register` and `unregister` messages that make them are
 * register.c's.
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
#include "tokidx.h"
#include "registry.h"
#include "storage/db.h"
#include "journal/journal.h"

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
    db_conn *db = journal_db(s->db);
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
    db_conn *db = journal_db(s->db);
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
    db_conn *db = journal_db(s->db);
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
                journal_describe(s->db), text);
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

regbot *registry__get(srv *s, const char *name)
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
        db_prepare(journal_db(s->db), "SELECT 1 FROM registered_bots WHERE name=?", &q) == DB_OK &&
        db_bind_text(q, 1, name, -1) == DB_OK && db_step(q) == DB_ROW;
    db_finalize(q);
    return known;
}

/* How many names are registered (0 when the table cannot be read: the
 * insert that follows fails then, with the reason logged). */
int64_t registry__count(srv *s)
{
    db_stmt *q = NULL;
    int64_t names = 0;
    if (db_prepare(journal_db(s->db), "SELECT count(*) FROM registered_bots", &q) == DB_OK &&
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

/* ---- secrets ------------------------------------------------------------------------ */

bool registry__store(srv *s, const char *name, const unsigned char *salt,
                     const unsigned char *hash, int iterations)
{
    db_conn *db = journal_db(s->db);
    db_stmt *q = NULL;
    int64_t now = srv_epoch_ms();
    bool ok = db_prepare(db,
                         "INSERT INTO registered_bots(name,salt,hash,iterations,created,"
                         "last_seen) VALUES(?,?,?,?,?,?)",
                         &q) == DB_OK &&
              db_bind_text(q, 1, name, -1) == DB_OK &&
              db_bind_blob(q, 2, salt, REGISTRY_SALT_LEN) == DB_OK &&
              db_bind_blob(q, 3, hash, REGISTRY_HASH_LEN) == DB_OK &&
              db_bind_int(q, 4, iterations) == DB_OK && db_bind_int64(q, 5, now) == DB_OK &&
              db_bind_int64(q, 6, now) == DB_OK && db_step(q) == DB_DONE;
    if (!ok)
        srv_log(LOG_ERROR, "storage_error", "{s:s, s:s, s:s}", "what", "register", "name", name,
                "sqlite", db_errmsg(db));
    db_finalize(q);
    return ok;
}


bool registry_hash_secret(const char *secret, const unsigned char *salt, int iterations,
                          unsigned char *hash)
{
    return PKCS5_PBKDF2_HMAC(secret, (int)strlen(secret), salt, REGISTRY_SALT_LEN, iterations,
                             EVP_sha256(), REGISTRY_HASH_LEN, hash) == 1;
}

int registry_reserve(srv *s, const char *name, const unsigned char *salt,
                     const unsigned char *hash, int iterations)
{
    if (registry_known(s, name))
        return ENG_EINVAL;
    if (registry__count(s) >= SRV_MAX_REGISTERED)
        return ENG_ETOO_MANY;
    return registry__store(s, name, salt, hash, iterations) ? 0 : ENG_ESTORAGE;
}
