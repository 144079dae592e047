/*
 * chance.c — commitments to a game's chance seed and the record's "chance"
 * block (see chance.h; the user's view is docs/records.md, "Verifiable
 * games"). A record is verified against its revealed seed by record.c
 * (rec_verify_chance), which reads records: this file reads none.
 */
#include "chance.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "engine/eng.h"

static const char hexdig[] = "0123456789abcdef";

int chance_nonce_random(uint8_t nonce[CHANCE_NONCE_LEN])
{
    size_t got = 0;
    while (got < CHANCE_NONCE_LEN) {
        ssize_t r = getrandom(nonce + got, CHANCE_NONCE_LEN - got, 0);
        if (r <= 0)
            return ENG_EIO; /* EINTR included: a caller retries the whole game */
        got += (size_t)r;
    }
    return 0;
}

void chance_nonce_hex(const uint8_t nonce[CHANCE_NONCE_LEN], char out[CHANCE_NONCE_HEX])
{
    for (int i = 0; i < CHANCE_NONCE_LEN; i++) {
        out[2 * i] = hexdig[nonce[i] >> 4];
        out[2 * i + 1] = hexdig[nonce[i] & 15];
    }
    out[2 * CHANCE_NONCE_LEN] = 0;
}

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Exactly `len` lowercase hex digits and nothing more. */
static bool is_hex(const char *s, size_t len)
{
    if (!s || strlen(s) != len)
        return false;
    for (size_t i = 0; i < len; i++)
        if (hexval(s[i]) < 0)
            return false;
    return true;
}

int chance_nonce_parse(const char *hex, uint8_t nonce[CHANCE_NONCE_LEN])
{
    if (!is_hex(hex, 2 * CHANCE_NONCE_LEN))
        return ENG_EINVAL;
    for (int i = 0; i < CHANCE_NONCE_LEN; i++)
        nonce[i] = (uint8_t)(hexval(hex[2 * i]) << 4 | hexval(hex[2 * i + 1]));
    return 0;
}

int chance_seed_parse(const char *text, uint64_t *seed)
{
    if (!text || !*text || strlen(text) > 20 || (text[0] == '0' && text[1]))
        return ENG_EINVAL;
    uint64_t v = 0;
    for (const char *c = text; *c; c++) {
        if (*c < '0' || *c > '9')
            return ENG_EINVAL;
        unsigned d = (unsigned)(*c - '0');
        if (v > (UINT64_MAX - d) / 10)
            return ENG_EINVAL;
        v = v * 10 + d;
    }
    *seed = v;
    return 0;
}

int chance_commitment(const chance_secret *s, char out[CHANCE_COMMIT_HEX])
{
    char nonce[CHANCE_NONCE_HEX], text[96];
    chance_nonce_hex(s->nonce, nonce);
    int len = snprintf(text, sizeof text, "%s:%llu:%s", CHANCE_SCHEME, (unsigned long long)s->seed,
                       nonce);
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    out[0] = 0;
    if (len <= 0 || !EVP_Digest(text, (size_t)len, md, &mdlen, EVP_sha256(), NULL) || mdlen != 32)
        return ENG_EINTERNAL;
    for (unsigned i = 0; i < mdlen; i++) {
        out[2 * i] = hexdig[md[i] >> 4];
        out[2 * i + 1] = hexdig[md[i] & 15];
    }
    out[2 * mdlen] = 0;
    return 0;
}

json_t *chance_json(const chance_secret *s, bool reveal)
{
    char commit[CHANCE_COMMIT_HEX];
    if (chance_commitment(s, commit))
        return NULL;
    json_t *o = json_pack("{s:s, s:s}", "scheme", CHANCE_SCHEME, "commitment", commit);
    if (o && reveal) {
        char seed[CHANCE_SEED_TEXT], nonce[CHANCE_NONCE_HEX];
        snprintf(seed, sizeof seed, "%llu", (unsigned long long)s->seed);
        chance_nonce_hex(s->nonce, nonce);
        if (json_object_set_new(o, "seed", json_string(seed)) ||
            json_object_set_new(o, "nonce", json_string(nonce))) {
            json_decref(o);
            return NULL;
        }
    }
    return o;
}

/* A short printable excerpt of an untrusted string, for reasons. */
static const char *excerpt(const json_t *v, char *buf, size_t cap)
{
    if (!json_is_string(v)) {
        snprintf(buf, cap, "a value that is not a string");
        return buf;
    }
    const char *s = json_string_value(v);
    size_t n = json_string_length(v), o = 0;
    buf[o++] = '"';
    for (size_t i = 0; i < n && i < 70 && o + 5 < cap; i++)
        buf[o++] = s[i] >= 0x20 && s[i] < 0x7f && s[i] != '"' ? s[i] : '?';
    if (n > 70 && o + 5 < cap) {
        memcpy(buf + o, "...", 3);
        o += 3;
    }
    buf[o++] = '"';
    buf[o] = 0;
    return buf;
}

int chance_block_parse(const json_t *blk, chance_block *out, char *err, size_t errcap)
{
    chance_block scratch;
    if (!out)
        out = &scratch;
    memset(out, 0, sizeof *out);
    char q[96];
    if (!json_is_object(blk))
        return eng_seterr(err, errcap, ENG_EBAD_RECORD, "chance must be an object");
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)blk, key, v)
    {
        if (strcmp(key, "scheme") && strcmp(key, "commitment") && strcmp(key, "seed") &&
            strcmp(key, "nonce")) {
            json_t *k = json_string(key);
            int rc = eng_seterr(err, errcap, ENG_EBAD_RECORD, "chance: unknown key %s",
                                excerpt(k, q, sizeof q));
            json_decref(k);
            return rc;
        }
    }
    const json_t *scheme = json_object_get(blk, "scheme"),
                 *commit = json_object_get(blk, "commitment"), *seed = json_object_get(blk, "seed"),
                 *nonce = json_object_get(blk, "nonce");
    if (!scheme || !json_is_string(scheme) || strcmp(json_string_value(scheme), CHANCE_SCHEME))
        return eng_seterr(err, errcap, ENG_EBAD_RECORD, "chance: scheme must be \"%s\", not %s",
                          CHANCE_SCHEME, scheme ? excerpt(scheme, q, sizeof q) : "missing");
    if (!commit || !json_is_string(commit) || !is_hex(json_string_value(commit), 64))
        return eng_seterr(err, errcap, ENG_EBAD_RECORD,
                          "chance: commitment must be 64 lowercase hex digits, not %s",
                          commit ? excerpt(commit, q, sizeof q) : "missing");
    snprintf(out->commitment, sizeof out->commitment, "%s", json_string_value(commit));
    if (!seed && !nonce)
        return 0;
    if (!seed || !nonce)
        return eng_seterr(err, errcap, ENG_EBAD_RECORD,
                          "chance: seed and nonce are revealed together; %s is missing",
                          seed ? "nonce" : "seed");
    if (!json_is_string(seed) || chance_seed_parse(json_string_value(seed), &out->secret.seed) ||
        strlen(json_string_value(seed)) != json_string_length(seed))
        return eng_seterr(err, errcap, ENG_EBAD_RECORD,
                          "chance: seed must be a decimal string of at most 2^64-1 (no sign, no "
                          "leading zero), not %s",
                          excerpt(seed, q, sizeof q));
    if (!json_is_string(nonce) || chance_nonce_parse(json_string_value(nonce), out->secret.nonce) ||
        strlen(json_string_value(nonce)) != json_string_length(nonce))
        return eng_seterr(err, errcap, ENG_EBAD_RECORD,
                          "chance: nonce must be 32 lowercase hex digits, not %s",
                          excerpt(nonce, q, sizeof q));
    out->revealed = true;
    return 0;
}
