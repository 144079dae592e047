/*
 * tokidx.c — finding a seat by its resume token: a hash table (token ->
 * match, seat), kept as tokens are made or restored and as matches are
 * freed, so `resume` costs the same with five matches or five thousand.
 * The tokens come from peers: the hash is seeded at start-up.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "internal.h"
#include "tokidx.h"

/* ---- tokens at rest ------------------------------------------------------------------ */

void access_token_hash(const char *token, char out[SRV_TOKEN_HASH_LEN + 1])
{
    static const char hex[] = "0123456789abcdef";
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    out[0] = 0;
    if (!EVP_Digest(token, strlen(token), md, &n, EVP_sha256(), NULL) || n * 2 != SRV_TOKEN_HASH_LEN)
        return; /* an empty hash matches nothing (access_token_ok): fail closed */
    for (unsigned i = 0; i < n; i++) {
        out[2 * i] = hex[md[i] >> 4];
        out[2 * i + 1] = hex[md[i] & 15];
    }
    out[SRV_TOKEN_HASH_LEN] = 0;
}

bool access_token_ok(const char *token, const char *hash)
{
    if (!token || strlen(hash) != SRV_TOKEN_HASH_LEN)
        return false;
    char h[SRV_TOKEN_HASH_LEN + 1];
    access_token_hash(token, h);
    return h[0] && CRYPTO_memcmp(h, hash, SRV_TOKEN_HASH_LEN) == 0;
}

bool access_token_upgrade(char field[SRV_TOKEN_HASH_LEN + 1])
{
    if (strlen(field) != SRV_TOKEN_LEN)
        return false;
    char h[SRV_TOKEN_HASH_LEN + 1];
    access_token_hash(field, h);
    memcpy(field, h, sizeof h);
    return true;
}


static uint64_t hash_seed;

static uint64_t hash_token(const char *s)
{
    return srv_hash_str(hash_seed, s);
}

typedef struct tok_node {
    struct tok_node *next;
    match *m;
    int seat;
    char token[SRV_TOKEN_HASH_LEN + 1]; /* the hash (access_token_hash) */
} tok_node;

struct tokidx {
    tok_node **b;
    size_t nb, n;
};

static int tokidx_grow(struct tokidx *t)
{
    size_t nb = t->nb ? t->nb * 2 : 1024;
    tok_node **b = calloc(nb, sizeof *b);
    if (!b)
        return ENG_ENOMEM;
    for (size_t i = 0; i < t->nb; i++)
        for (tok_node *x = t->b[i], *next; x; x = next) {
            next = x->next;
            size_t j = hash_token(x->token) & (nb - 1);
            x->next = b[j];
            b[j] = x;
        }
    free(t->b);
    t->b = b;
    t->nb = nb;
    return 0;
}

int tokidx_add(srv *s, const char *token, match *m, int seat)
{
    struct tokidx *t = s->tokidx;
    if (!t || !token[0])
        return 0;
    if (t->n >= t->nb && tokidx_grow(t) != 0)
        return ENG_ENOMEM;
    size_t j = hash_token(token) & (t->nb - 1);
    for (tok_node *x = t->b[j]; x; x = x->next)
        if (strcmp(x->token, token) == 0) {
            x->m = m;
            x->seat = seat;
            return 0;
        }
    tok_node *x = malloc(sizeof *x);
    if (!x)
        return ENG_ENOMEM;
    snprintf(x->token, sizeof x->token, "%s", token);
    x->m = m;
    x->seat = seat;
    x->next = t->b[j];
    t->b[j] = x;
    t->n++;
    return 0;
}

match *tokidx_find(srv *s, const char *token, int *seat)
{
    struct tokidx *t = s->tokidx;
    if (!t || !t->nb || !token || !token[0])
        return NULL;
    for (tok_node *x = t->b[hash_token(token) & (t->nb - 1)]; x; x = x->next)
        if (strcmp(x->token, token) == 0) {
            *seat = x->seat;
            return x->m;
        }
    return NULL;
}

void tokidx_remove_match(srv *s, const match *m)
{
    struct tokidx *t = s->tokidx;
    if (!t || !t->nb)
        return;
    for (int i = 0; i < m->nseats; i++) {
        const char *token = m->seats[i].resume;
        if (!token[0])
            continue;
        tok_node **pp = &t->b[hash_token(token) & (t->nb - 1)];
        for (; *pp; pp = &(*pp)->next)
            if ((*pp)->m == m && strcmp((*pp)->token, token) == 0) {
                tok_node *x = *pp;
                *pp = x->next;
                free(x);
                t->n--;
                break;
            }
    }
}

void tokidx_remove(srv *s, const char *token)
{
    struct tokidx *t = s->tokidx;
    if (!t || !t->nb || !token[0])
        return;
    for (tok_node **pp = &t->b[hash_token(token) & (t->nb - 1)]; *pp; pp = &(*pp)->next)
        if (strcmp((*pp)->token, token) == 0) {
            tok_node *x = *pp;
            *pp = x->next;
            free(x);
            t->n--;
            return;
        }
}

size_t tokidx_count(const srv *s)
{
    return s->tokidx ? s->tokidx->n : 0;
}

void tokidx_free(srv *s)
{
    struct tokidx *t = s->tokidx;
    s->tokidx = NULL;
    if (!t)
        return;
    for (size_t i = 0; i < t->nb; i++)
        for (tok_node *x = t->b[i], *next; x; x = next) {
            next = x->next;
            free(x);
        }
    free(t->b);
    free(t);
}

int tokidx_init(srv *s)
{
    char tok[17];
    hash_seed = 0;
    if (srv_random_token(tok, 16) == 0)
        for (int i = 0; i < 16; i++)
            hash_seed = hash_seed * 33 + (unsigned char)tok[i];
    s->tokidx = calloc(1, sizeof *s->tokidx);
    return s->tokidx ? tokidx_grow(s->tokidx) : ENG_ENOMEM;
}
