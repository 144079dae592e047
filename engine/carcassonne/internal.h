/*
 * internal.h — private to engine/carcassonne: the derived tables built by
 * tiles.c and used by the rules in carcassonne.c.
 */
#ifndef TESSERA_ENGINE_CARCASSONNE_INTERNAL_H
#define TESSERA_ENGINE_CARCASSONNE_INTERNAL_H

#include <stdint.h>

#include "carcassonne.h"

/* fit[pattern][type]: distinct rotations of the type that fit an open cell
 * whose constrained sides are given by pattern (2 bits per side). */
extern uint8_t carc__fit[256][CARC_NTYPES];
/* nfit8[k][pattern]: the number of bits in fit[pattern][type] for the
 * types 8k .. 8k+7, 16-bit lanes in one SSE register's worth, so a state's
 * per-type placement counts update with vector adds; the row
 * CARC_NO_PATTERN, all zero, stands for a cell that is not open. */
#define CARC_NO_PATTERN 256
typedef uint16_t carc__lanes8 __attribute__((vector_size(16)));
extern carc__lanes8 carc__nfit8[CARC_NTYPES / 8][257];

/* cnt[type][pattern]: the number of bits in fit[pattern][type], a row per
 * tile type so that the random placement's walk over the open cells reads
 * one byte per cell from one 256-byte row. */
extern uint8_t carc__cnt[CARC_NTYPES][256];

/* nbrxy[cell][d]: the torus cell next to `cell` on side d (N E S W), bits
 * 0-15, so a placement reads its neighbours without wrapping indices; and
 * the step from x, y to that side's as bytes: x's in bits 16-23, y's in
 * 24-31 (0, 1 or 0xff = -1). */
extern uint32_t carc__nbrxy[CARC_CELLS][4];

/* needs[type * 4 + rot]: byte d is the pattern bits that the tile's side d
 * puts on the cell beyond it (its edge kind at that cell's side d ^ 2). */
extern uint32_t carc__needs[CARC_NTYPES * 4];

/* side[type * 4 + rot][d]: side d of the tile in that rotation, packed:
 * its edge kind (bits 0-7), then the local features at its ports 3d+1
 * (the centre), 3d and 3d+2 (the halves, clockwise), a byte each. */
extern uint32_t carc__side[CARC_NTYPES * 4][4];

/* sides[pattern]: bit d set when the pattern constrains side d (a tile
 * is there). */
extern uint8_t carc__sides[256];
/* cand[type][farms]: bit g set when a meeple may stand on feature g of
 * the type (fields only with farms). */
extern uint8_t carc__cand[CARC_NTYPES][2];
/* sel[mask][k]: the k-th lowest set bit of a 4-bit rotation mask. */
extern uint8_t carc__sel[16][4];

/* Bits set in a 4-bit rotation mask. A table, because without -mpopcnt
 * __builtin_popcount becomes a library call that dominated playouts. */
static inline int carc__nrot(unsigned mask)
{
    static const uint8_t n[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};
    return n[mask & 15];
}

/* Build the tables once; safe to call from any thread, cheap after the first. */
void carc__tables_init(void);

/* The tile types, valid once carc__tables_init() has run (every state is
 * made by carc_init, which runs it): hot paths read them without the
 * pthread_once of carc_types(). */
extern carc_type carc__types[CARC_NTYPES];

/* Testing hook: replace the bag of a state at a draw with the given counts
 * (so a hand-built scenario can end after a few tiles). Only tests use it. */
void carc__set_bag(carc_state *s, const uint8_t counts[CARC_NTYPES]);

/* The game's rate_moves (heuristic.c, docs/heuristic.md): Simple Player v3
 * ratings of placements or meeple options, without applying them. */
void carc_rate_moves(const void *st, const eng_move *moves, int n, double *out);

#endif
