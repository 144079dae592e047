/*
 * bundle.h — a fault bundle: the one file that makes a program's fault
 * happen again (docs/bundles.md).
 *
 * When a program in a seat fails a turn (time_limit, crashed,
 * illegal_move, bad_output, no_answer, memory_limit, output_flood), the
 * caller that ran the game (the tournament runner behind `tessera match`
 * and `tessera tournament`) keeps what the fault needs to happen again:
 * the game and its rules, the seat, the moves up to the faulty turn as a
 * game record with its chance seed revealed (so the very same tiles come
 * again), the verdict and its detail, the turn's allowance and the
 * sandbox's limits, the program's stderr, and the exact lines it read and
 * printed in the game (player_transcript). `tessera doctor --replay BUNDLE
 * -- PROGRAM` (doctor/replay.c) plays the game to the program again from
 * it.
 *
 *   {"format":"tessera-fault","version":1,"game":...,"rules":{...},
 *    "seat":1,"player":"cmd:python3 bot.py","verdict":"crashed",
 *    "detail":"...","turn":12,"move_ms":1000,"limits":{...},
 *    "record":{...the complete turns before the fault, "chance" revealed...},
 *    "stderr":"...","lines":[{"in":"..."},{"out":"..."}],
 *    "lines_truncated":false,"source":"tessera match"}
 *
 * A bundle is read back with bundle_load, which trusts nothing in it: the
 * shape is checked and the record replayed against the rules.
 */
#ifndef TESSERA_PLAYERS_BUNDLE_H
#define TESSERA_PLAYERS_BUNDLE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/eng.h"
#include "players/player.h"

#define BUNDLE_FORMAT  "tessera-fault"
#define BUNDLE_VERSION 1
/* Largest bundle file read: the transcript's limit, with room for the
 * escaping of its JSON lines inside JSON strings and for the record. */
#define BUNDLE_MAX_BYTES (4 * PLAYER_TRANSCRIPT_MAX)

/* What a fault was, as the caller that ran the game saw it (all borrowed). */
typedef struct bundle_fault {
    const eng_game *g;
    const eng_rules *rules;
    int seat;                     /* the faulty seat */
    const char *player;           /* its spec: "cmd:..." or "cmd-stateless:..." */
    player_verdict verdict;       /* not PLAYER_OK */
    const char *detail;           /* the verdict's detail (may be NULL) */
    int turn;                     /* the turn it was asked, as your_turn's "turn" (0: unknown) */
    const eng_move *moves;        /* every move applied from init(rules) up to the faulty
                                     turn, chance outcomes included */
    int nmoves;
    const json_t *chance;         /* the record's "chance" block with the seed revealed (chance
                                     outcome k of the game is eng_chance_draw(g, st, seed, k));
                                     NULL for a game without chance */
    double move_ms;               /* the turn's allowance */
    const sandbox_limits *limits; /* the sandbox's limits */
    const char *stderr_text;      /* what it wrote on stderr in the game (may be NULL) */
    const json_t *lines;          /* player_transcript() (may be NULL) */
    bool lines_truncated;
    const char *source;           /* who ran the game: "tessera match", ... */
} bundle_fault;

/* The bundle of a fault (new reference), or NULL with a reason in err. */
json_t *bundle_new(const bundle_fault *f, char *err, size_t errcap);

/* Bundle b with its lines cut to the first ones that fit in max_bytes
 * written as JSON, lines_truncated then true (a new reference: b itself when
 * nothing is cut; NULL when out of memory). For a bundle sent whole in a
 * reply (BUNDLE_SERVED_LINES_MAX). */
json_t *bundle_capped(const json_t *b, size_t max_bytes);

/* Write bundle b as DIR/NAME.json (DIR is created if missing; the file
 * appears whole or not at all). path (may be NULL) receives the file's
 * path. Returns 0, or ENG_EIO with a reason in err. */
int bundle_write(const json_t *b, const char *dir, const char *name, char *path, size_t pathcap,
                 char *err, size_t errcap);

/* A bundle read back: the game, its position at the fault, what happened. */
typedef struct bundle {
    json_t *root;           /* the whole file (owned) */
    const eng_game *g;
    eng_rules rules;
    int seat;
    const char *player;     /* borrowed from root */
    const char *verdict;    /* "crashed", ... (borrowed) */
    const char *detail;     /* (borrowed, "" when none) */
    int turn;               /* 0 when unknown */
    int64_t move_ms;
    sandbox_limits limits;  /* the bundle's, else the defaults */
    eng_move *moves;        /* [nmoves]: the game up to the faulty turn, chance included (owned) */
    int nmoves;
    const json_t *lines;    /* borrowed from root; NULL when absent */
    bool lines_truncated;
} bundle;

/* Read and check a bundle file: its shape, its game and rules, its record
 * replayed against the rules and its chance outcomes against the revealed
 * seed, the chance events after the record drawn from that seed. Returns 0
 * (release with bundle_free), or a negative code with a reason in err. */
int bundle_load(const char *path, bundle *out, char *err, size_t errcap);
void bundle_free(bundle *b);

#endif
