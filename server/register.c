/*
 * register.c — the `register` and `unregister` messages (docs/protocol.md,
 * "Registered bots"). A connection registers under a name with a secret;
 * the first registration of a name stores a salted PBKDF2-HMAC-SHA256 hash
 * of the secret (registry.c), later ones must give the same secret. Hashing
 * takes a few milliseconds, so it runs on the thread pool, never on the
 * loop: the job holds copies of what it needs and the connection's id (not
 * a pointer: the connection may be gone when the hash is done). Once
 * registered, the connection is given the seats of every match that names
 * the bot (`remote:NAME`): the live ones at once, as `resumed` (a reconnect
 * re-attaches them, table.c), and new ones as they are created, as an
 * unsolicited `joined`. A second connection registering the same name with
 * the right secret takes over: the first one is told (`registration_taken`)
 * and stays open without the name.
 */
#include <openssl/crypto.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conn.h"
#include "internal.h"
#include "journal/journal.h"
#include "registry.h"
#include "storage/db.h"
#include "table.h"

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
    unsigned char salt[REGISTRY_SALT_LEN];
    unsigned char stored[REGISTRY_HASH_LEN];
    int iterations;
    unsigned char hash[REGISTRY_HASH_LEN]; /* computed */
    bool ok;                      /* PBKDF2 ran */
    struct reg_job *next;         /* in-flight list (one per name) */
} reg_job;

static reg_job *in_flight;

static void hash_work(uv_work_t *req)
{
    reg_job *j = req->data;
    j->ok = registry_hash_secret(j->secret, j->salt, j->iterations, j->hash);
    OPENSSL_cleanse(j->secret, sizeof j->secret);
}


/* The connection becomes the registered bot: the previous holder of the
 * name is told, the reply goes out, then every live seat of the name. */
static void registered(srv *s, conn *c, const reg_job *j)
{
    regbot *r = registry__get(s, j->name);
    if (!r) {
        conn_error(c, ENG_ENOMEM, "out of memory", j->id);
        return;
    }
    if (r->conn && r->conn != c) {
        char msg[160];
        snprintf(msg, sizeof msg, "another connection registered as %s; this one no longer is",
                 r->name);
        conn_error(r->conn, WIRE_EREGISTRATION_TAKEN, msg, NULL);
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
            if (CRYPTO_memcmp(j->hash, j->stored, REGISTRY_HASH_LEN) != 0) {
                srv_log(LOG_WARN, "register_refused", "{s:s, s:s}", "name", j->name, "peer",
                        c->peer);
                conn_error(c, ENG_EBAD_TOKEN, "the secret does not match this name", j->id);
            } else {
                registered(s, c, j);
            }
        } else if (!registry__store(s, j->name, j->salt, j->hash, j->iterations)) {
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
    int rc = db_prepare(journal_db(s->db),
                        "SELECT salt, hash, iterations FROM registered_bots WHERE name=?", &q);
    if (rc == DB_OK && (rc = db_bind_text(q, 1, j->name, -1)) == DB_OK) {
        rc = db_step(q);
        int nsalt = 0, nhash = 0;
        /* a blob's bytes are valid until the next column read of q (PostgreSQL
         * decodes each one): copied at once */
        const void *salt = rc == DB_ROW ? db_column_blob(q, 0, &nsalt) : NULL;
        if (salt && nsalt == REGISTRY_SALT_LEN)
            memcpy(j->salt, salt, REGISTRY_SALT_LEN);
        const void *hash = rc == DB_ROW ? db_column_blob(q, 1, &nhash) : NULL;
        if (hash && nhash == REGISTRY_HASH_LEN)
            memcpy(j->stored, hash, REGISTRY_HASH_LEN);
        if (rc == DB_ROW && salt && nsalt == REGISTRY_SALT_LEN && hash && nhash == REGISTRY_HASH_LEN &&
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
        if (registry__count(s) >= SRV_MAX_REGISTERED) {
            conn_error(c, ENG_ETOO_MANY, "the server holds its maximum of registered names",
                       m->id);
            goto drop;
        }
        char salt[REGISTRY_SALT_LEN + 1];
        if (srv_random_token(salt, REGISTRY_SALT_LEN) != 0) {
            conn_error(c, ENG_EINTERNAL, "no random bytes for a salt; try again", m->id);
            goto drop;
        }
        memcpy(j->salt, salt, REGISTRY_SALT_LEN);
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
