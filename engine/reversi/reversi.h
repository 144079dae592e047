/*
 * reversi.h — Reversi 8x8 for tessera (registered as "reversi").
 *
 * Moves are square indices 0..63 (a1 = 0, h1 = 7, a8 = 56) or REV_PASS.
 * Seat 0 is Black (moves first), seat 1 White.
 */
#ifndef TESSERA_ENGINE_REVERSI_H
#define TESSERA_ENGINE_REVERSI_H

#include <stddef.h>
#include <stdint.h>

#include "../eng.h"

extern const eng_game rev_game;

#define REV_PASS 64
enum { REV_BLACK = 0, REV_WHITE = 1 };

typedef struct rev_state {
    eng_rules rules;  /* must come first (eng_state_rules) */
    uint64_t disc[2]; /* discs of Black and White, bit = square */
    uint8_t to_move;  /* REV_BLACK or REV_WHITE */
    uint8_t over;     /* 1 once neither side can move */
    uint16_t plies;   /* moves played, passes included */
} rev_state;

/* Squares where `me` may play against `opp`. */
uint64_t rev_moves_mask(uint64_t me, uint64_t opp);
/* Discs of `opp` flipped when `me` plays square sq. */
uint64_t rev_flips(uint64_t me, uint64_t opp, int sq);
/* Square index of "d3" (either case), or -1. */
int rev_square_of(const char *s);
/* The invariants of a state (Edax's board_check): 0, or ENG_EINTERNAL with
 * the first one broken named in why. Debug builds run it at the top of
 * apply and legal_moves (ENG_CHECKS). */
int rev_check(const rev_state *s, char *why, size_t cap);

#endif
