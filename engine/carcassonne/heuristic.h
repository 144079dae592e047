/*
 * heuristic.h — private to engine/carcassonne and its tests: the feature
 * summaries behind carc_rate_moves() (heuristic.c, docs/heuristic.md).
 *
 * The rating never applies a move. At the placement step it predicts, for
 * a candidate placement, the feature every element of the tile will belong
 * to once merged with its neighbours; at the meeple step it reads the same
 * summaries off the real, already merged features. Both are exposed here so
 * that tests can check the prediction against the real merge.
 */
#ifndef TESSERA_ENGINE_CARCASSONNE_HEURISTIC_H
#define TESSERA_ENGINE_CARCASSONNE_HEURISTIC_H

#include <stdint.h>

#include "carcassonne.h"

/* Most summaries one placement touches: the tile's own features (at most
 * CARC_MAX_SEGS) and up to eight neighbouring cloisters. */
#define CARC__HFEAT_MAX (CARC_MAX_SEGS + 8)

/* One feature touched by a placement, as it is (or will be) after the
 * placed tile has merged with its neighbours. */
typedef struct carc__hfeat {
    uint8_t kind;                 /* enum carc_kind */
    uint8_t segs;                 /* bit g: local feature g of the placed tile belongs to it;
                                   * 0 for a neighbouring cloister */
    uint8_t node;                 /* a neighbouring cloister: its node; else 0 */
    uint8_t tiles;                /* distinct tiles in the feature */
    uint8_t open;                 /* city/road: unmatched sides; cloister: empty neighbours;
                                   * field: 0 */
    uint8_t pen;                  /* pennants (cities) */
    uint8_t complete;             /* 1: a city, road or cloister completed by this placement */
    uint8_t cities_done;          /* field: completed cities it touches */
    uint8_t cities_open;          /* field: incomplete cities it touches */
    uint8_t mee[ENG_MAX_PLAYERS]; /* meeples per player on the feature */
} carc__hfeat;

/* Summaries of the features a placement touches, in a fixed order (the
 * tile's features by lowest local index, then neighbouring cloisters
 * in reading order from the north-west). At CARC_PLACE: predicted for placement m
 * (a legal placement move) without applying it. At CARC_MEEPLE: read from
 * the real state for the tile just placed (m is ignored). Fields are left
 * out when the rules have farms=false. Returns the number written to
 * out[0..CARC__HFEAT_MAX), or 0 in other phases. */
int carc__heur_features(const carc_state *s, eng_move m, carc__hfeat *out);

#endif
