/*
 * registry.h — the admin token, and registered remote bots (registry.c):
 * their connections, capacity, the games they play; the messages that
 * register them (register.c).
 */
#ifndef TESSERA_SERVER_REGISTRY_H
#define TESSERA_SERVER_REGISTRY_H

#include "internal.h"

struct regbot {
    char name[PROTO_NAME_MAX + 1];
    conn *conn;   /* the registered connection, or NULL */
    int capacity; /* live games at once */
    int ngames;   /* 0: every game */
    char games[PROTO_MAX_REG_GAMES][PROTO_NAME_MAX + 1];
    regbot *next;
};

/* Load or make the admin token (printed once, when made); write it to
 * cfg.admin_token_file if set. Returns 0 or a negative code with err. */
int admin_init(srv *s, char *err, size_t errcap);
/* The random token (SRV_TOKEN_LEN characters) kept under `key` in the
 * database's meta table, made and stored on first use (servers sharing the
 * database agree on one) into out (SRV_TOKEN_LEN + 1 bytes); *made_here says
 * whether this call made it. 0, or a negative code with err. */
int srv_meta_token(srv *s, const char *key, char *out, bool *made_here, char *err, size_t errcap);
/* Does the message carry the admin token? Replies forbidden when not. */
bool admin_check(conn *c, const proto_msg *m);
/* true when token is the admin token (constant time). */
bool admin_token_ok(const srv *s, const char *token);
/* The register and unregister messages (register.c). */
void handle_register(conn *c, const proto_msg *m);
void handle_unregister(conn *c, const proto_msg *m);
void registry_conn_closed(conn *c);
/* The connected registered bot of that name, or NULL. */
regbot *registry_find(srv *s, const char *name);
/* Can a match of game g seat registered bot `name` now, besides `more`
 * seats of it already counted in that match? 0, or ENG_EUNKNOWN_BOT (never
 * registered), ENG_EBAD_BOT_SPEC (it does not play g), ENG_ETOO_MANY (at
 * its capacity: live seats), with a reason. */
int registry_check(srv *s, const char *name, const eng_game *g, int more, char *err, size_t errcap);
/* Live seats of registered bot `name` in matches not over. */
int registry_load(const srv *s, const char *name);
/* Is `name` registered (known to the database)? */
bool registry_known(srv *s, const char *name);
/* PBKDF2 of a secret with a salt of REGISTRY_SALT_LEN bytes into hash
 * (REGISTRY_HASH_LEN bytes); any thread. false when it failed. */
#define REGISTRY_SALT_LEN 16
#define REGISTRY_HASH_LEN 32
bool registry_hash_secret(const char *secret, const unsigned char *salt, int iterations,
                          unsigned char *hash);
/* Store a name with its secret's salt and hash, as a first registration
 * would (a name the server gives out, courses.c). 0, ENG_EINVAL (the name
 * is taken), ENG_ETOO_MANY (SRV_MAX_REGISTERED), ENG_ESTORAGE. */
int registry_reserve(srv *s, const char *name, const unsigned char *salt,
                     const unsigned char *hash, int iterations);
/* For register.c: the registered bot of that name in memory, made if new
 * (NULL: out of memory); how many names are stored (0 when unreadable);
 * store a first registration's salt and hash (false: logged). */
regbot *registry__get(srv *s, const char *name);
int64_t registry__count(srv *s);
bool registry__store(srv *s, const char *name, const unsigned char *salt,
                     const unsigned char *hash, int iterations);
/* Free the registry (shutdown). */
void registry_free(srv *s);

#endif
