/*
 * chance.h — verifiable games: a game's chance outcomes (Carcassonne's tile
 * order) follow from a secret seed, the seed is committed to when the game
 * starts and revealed when it ends, and anyone holding the record can check
 * both (docs/records.md, "Verifiable games").
 *
 *   - The k-th chance event of a game is eng_chance_draw(g, st, seed, k)
 *     (engine/eng.h): the same derivation in the tournament runner, the
 *     server and the verifier.
 *   - A game's secret is its seed (uint64) and a nonce (128 random bits, one
 *     per game, so that a commitment to a small or shared seed — the two
 *     games of a pair share one — reveals nothing before the end).
 *   - Commitment = lowercase hex SHA-256 of the ASCII text
 *     "tessera-chance-1:<seed in decimal>:<nonce as 32 lowercase hex>".
 *   - A record carries {"scheme":"tessera-chance-1","commitment":"<64 hex>",
 *     "seed":"<decimal>","nonce":"<32 hex>"} as its top-level "chance";
 *     seed and nonce only once the game is over (the reveal).
 *
 * SHA-256 is OpenSSL's libcrypto (EVP_Digest). Nothing here allocates
 * except chance_json() and what jansson does for it.
 */
#ifndef TESSERA_PROTOCOL_CHANCE_H
#define TESSERA_PROTOCOL_CHANCE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CHANCE_SCHEME     "tessera-chance-1"
#define CHANCE_NONCE_LEN  16                         /* bytes of a nonce */
#define CHANCE_NONCE_HEX  (2 * CHANCE_NONCE_LEN + 1) /* its hex text with the NUL */
#define CHANCE_COMMIT_HEX 65                         /* a SHA-256 in hex with the NUL */
#define CHANCE_SEED_TEXT  21                         /* a uint64 in decimal with the NUL */

/* A game's chance secret, and what its record says about it. */
typedef struct chance_secret {
    uint64_t seed;
    uint8_t nonce[CHANCE_NONCE_LEN];
} chance_secret;

/* A fresh nonce from getrandom(2). Returns 0, or ENG_EIO when the kernel
 * gives no random bytes (a caller then refuses to start the game rather
 * than commit to a guessable nonce). */
int chance_nonce_random(uint8_t nonce[CHANCE_NONCE_LEN]);
/* The nonce as 32 lowercase hex digits. */
void chance_nonce_hex(const uint8_t nonce[CHANCE_NONCE_LEN], char out[CHANCE_NONCE_HEX]);
/* Parse exactly 32 lowercase hex digits; 0 or ENG_EINVAL. */
int chance_nonce_parse(const char *hex, uint8_t nonce[CHANCE_NONCE_LEN]);
/* Parse a seed written as a decimal string: digits only, no sign, no
 * leading zero (but "0"), at most 2^64-1; 0 or ENG_EINVAL. */
int chance_seed_parse(const char *text, uint64_t *seed);

/* The commitment to (seed, nonce): 64 lowercase hex digits. Returns 0, or
 * ENG_EINTERNAL if libcrypto fails (out is then ""). */
int chance_commitment(const chance_secret *s, char out[CHANCE_COMMIT_HEX]);

/* The record's "chance" block for s (new reference, NULL when out of
 * memory): scheme and commitment, plus seed and nonce when reveal. */
json_t *chance_json(const chance_secret *s, bool reveal);

/* A record's "chance" block as read. */
typedef struct chance_block {
    char commitment[CHANCE_COMMIT_HEX];
    bool revealed; /* seed and nonce are present */
    chance_secret secret;
} chance_block;

/* Check the shape of a "chance" block (borrowed): an object with exactly
 * scheme ("tessera-chance-1"), commitment (64 lowercase hex), and either
 * both or neither of seed (decimal string) and nonce (32 lowercase hex).
 * Returns 0 and fills *out (may be NULL), or ENG_EBAD_RECORD with a reason
 * (printable ASCII) in err. Whether the commitment matches is not checked
 * here: see rec_verify_chance() (record.h). */
int chance_block_parse(const json_t *blk, chance_block *out, char *err, size_t errcap);

#endif
