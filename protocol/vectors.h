/*
 * vectors.h — conformance vectors: what the engine says about positions of
 * a game, written as the wire protocol shows them (docs/protocol.md), so
 * that a bot author's own game model — in any language — can be checked
 * against the engine without running it (docs/vectors.md).
 *
 * The vectors come from seeded games (a mix of uniformly random and greedy
 * turns, under varied seat counts and rule options), one JSON object per
 * line. The first line is a header; then each line is one vector:
 *
 *   turn       a position where a seat decides (`state`, as in your_turn),
 *              its `legal` entries, one `move` (a whole turn, as a bot sends
 *              it) and the public state `after` it (before any chance event);
 *   draw       a chance event (games with chance): the `state` before it, the
 *              public `outcome` (Carcassonne {"tile":"V"}) and the state
 *              `after` — a tile that fits nowhere discarded (the dead-tile
 *              case), the last tile, the end of the game and its scoring;
 *   fits       Carcassonne: a position between turns and, for every tile type
 *              still in the bag, its number of distinct legal placements
 *              (0: that tile would be discarded);
 *   score_now  Carcassonne: a position and every seat's score if the game
 *              ended there (incomplete features and fields scored as at the
 *              end).
 *
 * Every game's last decision, its last chance event, every
 * discarded tile and every turn with a single legal entry are always kept;
 * other positions are sampled. The same (game, count, seed) always writes
 * the same bytes: the kit's shipped vectors are checked for staleness by
 * regenerating them.
 */
#ifndef TESSERA_PROTOCOL_VECTORS_H
#define TESSERA_PROTOCOL_VECTORS_H

#include <stdint.h>
#include <stdio.h>

#include "engine/eng.h"

#define VECTORS_FORMAT 1          /* the header's "format": bumped when a field changes */
#define VECTORS_MAX_COUNT 1000000 /* more vectors than this is a typo, not a test set */

typedef struct vectors_config {
    int count;     /* vectors to write (header excluded), 1..VECTORS_MAX_COUNT */
    uint64_t seed; /* every game, move and sample derives from it */
} vectors_config;

/* The number of vectors `tessera vectors` writes for g by default: about
 * a quarter of a megabyte of them. */
int vectors_default_count(const eng_game *g);

/* Write the header and c->count vectors of game g to out. Returns 0, or a
 * negative code with a reason in err: ENG_EINVAL (a bad count, a game
 * without a codec), ENG_ENOMEM, ENG_EIO (out could not be written). */
int vectors_write(const eng_game *g, const vectors_config *c, FILE *out, char *err,
                  size_t errcap);

#endif
