/*
 * internal.h — private to engine/carcassonne: the derived tables built by
 * tiles.c and used by the rules (rules.c, board.c, scoring.c, check.c).
 */
#ifndef TESSERA_ENGINE_CARCASSONNE_INTERNAL_H
#define TESSERA_ENGINE_CARCASSONNE_INTERNAL_H

#include <stdint.h>

#include "carcassonne.h"

/* fit[pattern][type]: distinct rotations of the type that fit an open cell
 * whose constrained sides are given by pattern (2 bits per side). */
extern uint8_t carc__fit[256][CARC_NTYPES];
/* nfit8[pattern][k]: the number of bits in fit[pattern][type] for the
 * types 8k .. 8k+7, 16-bit lanes in one SSE register's worth, so a state's
 * per-type placement counts update with vector adds (a pattern's three
 * registers side by side: one row address for all three); the row of pattern 0
 * (no side constrained: no open cell has it) is all zero and stands for a
 * cell that is not open. */
typedef uint16_t carc__lanes8 __attribute__((vector_size(16)));
extern carc__lanes8 carc__nfit8[256][CARC_NTYPES / 8];

/* cnt[type][pattern]: the number of bits in fit[pattern][type], a row per
 * tile type so that the random placement's walk over the open cells reads
 * one byte per cell from one 256-byte row. */
extern uint8_t carc__cnt[CARC_NTYPES][256];

/* nbrxy[cell][d]: the torus cell next to `cell` on side d (N E S W), bits
 * 0-15, so a placement reads its neighbours without wrapping indices; and
 * the step from x, y to that side's as bytes: x's in bits 16-23, y's in
 * 24-31 (0, 1 or 0xff = -1). */
extern uint32_t carc__nbrxy[CARC_CELLS][4];

/* needs[type * 4 + rot][d]: the pattern bits that the tile's side d puts
 * on the cell beyond it (its edge kind at that cell's side d ^ 2). */
extern uint8_t carc__needs[CARC_NTYPES * 4][4];

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
/* cr[type]: bit g set when feature g of the type is a city or a road. */
extern uint8_t carc__cr[CARC_NTYPES];
/* fcity[type][g]: the cities field g of the type touches (at most two),
 * local feature indices: the first in bits 0-2, the second in bits 8-10;
 * bit 7 (15) set when there is no first (second) one. */
extern uint16_t carc__fcity[CARC_NTYPES][CARC_MAX_SEGS];
/* cfield[type][c]: bit g set when field g of the type touches feature c
 * (a city) on the tile: fcity the other way round, so that the final
 * scoring can walk the completed cities instead of the fields. */
extern uint8_t carc__cfield[CARC_NTYPES][CARC_MAX_SEGS];
/* rotk[type][pattern]: the rotations that fit (fit[pattern][type]) in
 * increasing order, 2 bits each from bit 0: the k-th is rotk >> 2k & 3, so
 * the random placement finds its rotation with one read. */
extern uint8_t carc__rotk[CARC_NTYPES][256];

/* Bits set in a 4-bit rotation mask. A table, because without -mpopcnt
 * __builtin_popcount becomes a library call that dominated playouts. */
static inline int carc__nrot(unsigned mask)
{
    static const uint8_t n[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};
    return n[mask & 15];
}

/* ---- shared by the files of the rules ------------------------------------ */

/* The torus cell of (0, 0). */
#define CARC_ORIGIN ((CARC_GH / 2) * CARC_GW + CARC_GW / 2)
/* The step from a cell to its neighbour on each side (N E S W), and to the
 * eight around it, row by row from the north-west. */
static const int carc__dcell[4] = {-CARC_GW, 1, CARC_GW, -1};
static const int carc__dcell8[8] = {-CARC_GW - 1, -CARC_GW, -CARC_GW + 1, -1,
                                    1,            CARC_GW - 1, CARC_GW,   CARC_GW + 1};

/* A cell index one step off the torus, wrapped back onto it. */
static inline int carc__wrap(int c)
{
    if (c < 0)
        c += CARC_CELLS;
    else if (c >= CARC_CELLS)
        c -= CARC_CELLS;
    return c;
}

/* v, hidden from the optimiser: a mask built from a comparison stays a
 * mask (and the select a cmov) instead of becoming a branch again, where the
 * comparison is a coin toss that a branch would mispredict half the time. */
static inline int carc__opaque(int v)
{
    __asm__("" : "+r"(v));
    return v;
}

/* The root of a segment's feature: one read, every segment's par is its
 * root (board.c keeps the forest of depth one). */
static inline int carc__find(const carc_state *s, int n)
{
    return s->par[n];
}

/* Bits set in a word, without a popcount instruction (the default target
 * has none, and the libgcc fallback is a call). */
static inline int carc__pop64(uint64_t x)
{
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
    return (int)((x * 0x0101010101010101ULL) >> 56);
}

/* board.c: put a tile of `type` in rotation rot on `cell` (an open cell, or
 * the start tile's on an empty board), merge its features, update the open
 * cells and list in s->complete the features it completed. */
void carc__place(carc_state *s, int type, int rot, int cell);

/* scoring.c: score the completed feature at root r (its majority holders
 * gain its value) and return its meeples; the final scoring, which ends the
 * game. Out of line: the turn's hot path keeps few registers. */
void carc__score_completed(carc_state *s, int r);
void carc__end_game(carc_state *s);

/* board.c: the meeple options of the tile just placed, local feature
 * indices, one per distinct unoccupied feature (the lowest index naming
 * it); none without a meeple in hand. Returns their number. */
int carc__meeple_options(const carc_state *s, uint8_t *segs);

#if ENG_CHECKS
/* check.c: the debug builds' check at the top of apply (m >= 0: the move
 * must be legal too) and legal_moves (m < 0); aborts with what broke. */
void carc__debug_check(const carc_state *s, eng_move m, const char *where);
#endif

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
