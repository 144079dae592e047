/*
 * pentago.h — Pentago-Twist 6x6 for tessera (registered as "pentago-twist").
 *
 * Seat 0 is White and moves first, seat 1 Black. Cells are (x, y), x to the
 * east and y to the south, (0,0) top-left; bit y*6+x of a bitboard. The four
 * 3x3 quadrants are 0 top-left, 1 top-right, 2 bottom-left, 3 bottom-right.
 *
 * A move places a piece on an empty cell and then transforms one quadrant:
 * PT_ROTATE (90 degrees clockwise) or PT_FLIP (mirror left <-> right).
 * move = cell * 8 + quadrant * 2 + twist, so 8 moves per empty cell.
 * Text form "x y Q T", T one of R (rotate) or F (flip): "2 3 1 R".
 */
#ifndef TESSERA_ENGINE_PENTAGO_H
#define TESSERA_ENGINE_PENTAGO_H

#include <stddef.h>
#include <stdint.h>

#include "../eng.h"

extern const eng_game pt_game;

#define PT_SIZE  6
#define PT_CELLS 36
#define PT_BOARD 0xfffffffffULL /* the 36 cells */

enum { PT_WHITE = 0, PT_BLACK = 1 };
enum { PT_ROTATE = 0, PT_FLIP = 1 };

#define PT_PLAYING (-1) /* result while the game goes on */
#define PT_DRAW    2    /* result: both made five, or the board filled up */

typedef struct pt_state {
    eng_rules rules;   /* must come first (eng_state_rules) */
    uint64_t stone[2]; /* pieces of White and Black, bit y*6+x */
    uint8_t to_move;   /* PT_WHITE or PT_BLACK */
    int8_t result;     /* PT_PLAYING, the winning seat, or PT_DRAW */
    uint8_t plies;     /* moves played (pieces on the board) */
    uint8_t pad;
} pt_state;

static inline int32_t pt_move(int x, int y, int quadrant, int twist)
{
    return (y * PT_SIZE + x) * 8 + quadrant * 2 + twist;
}

/* The 36-bit board b with quadrant q rotated clockwise (PT_ROTATE) or
 * flipped left <-> right (PT_FLIP); cells outside q are unchanged. */
uint64_t pt_twist(uint64_t b, int q, int twist);
/* Does b hold five in a row (any of the 32 windows)? */
bool pt_has_five(uint64_t b);
/* The invariants of a state (Edax's board_check): 0, or ENG_EINTERNAL with
 * the first one broken named in why. Debug builds run it at the top of
 * apply and legal_moves (ENG_CHECKS). */
int pt_check(const pt_state *s, char *why, size_t cap);

#endif
