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
/* nfit[pattern][type]: the number of bits in fit[pattern][type], as 16-bit
 * lanes so a state's per-type placement counts update with vector adds. */
extern uint16_t carc__nfit[256][CARC_NTYPES];

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
