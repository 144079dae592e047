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

/* Build the tables once; safe to call from any thread, cheap after the first. */
void carc__tables_init(void);

/* Testing hook: replace the bag of a state at a draw with the given counts
 * (so a hand-built scenario can end after a few tiles). Only tests use it. */
void carc__set_bag(carc_state *s, const uint8_t counts[CARC_NTYPES]);

/* The game's rate_moves (heuristic.c, docs/heuristic.md): Simple Player v3
 * ratings of placements or meeple options, without applying them. */
void carc_rate_moves(const void *st, const eng_move *moves, int n, double *out);

#endif
