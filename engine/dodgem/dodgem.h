/*
 * dodgem.h — Dodgem n x n for tessera (registered as "dodgem").
 *
 * Seat 0 is Black (moves first): its n-1 cars start on the left column,
 * rows 1..n-1, and drive east (forward), north or south. Seat 1 is White: its
 * cars start on the top row, columns 1..n-1, and drive south (forward), west
 * or east. The top-left cell starts empty. Coordinates: x grows to the east,
 * y to the south, (0,0) is the top-left cell.
 *
 * A move is the car's cell and a direction: move = (y * n + x) * 4 + dir,
 * dir in DODGEM_N/E/S/W. Text form "x y D", e.g. "0 1 E". A car on its far
 * edge leaves the board by a forward move.
 */
#ifndef TESSERA_ENGINE_DODGEM_H
#define TESSERA_ENGINE_DODGEM_H

#include <stddef.h>
#include <stdint.h>

#include "../eng.h"

extern const eng_game dodgem_game;

#define DODGEM_MIN_N       3
#define DODGEM_MAX_N       5
#define DODGEM_MAX_PLY_CAP 1000 /* largest accepted `max_plies` rule value */

enum { DODGEM_BLACK = 0, DODGEM_WHITE = 1 };
enum { DODGEM_N = 0, DODGEM_E = 1, DODGEM_S = 2, DODGEM_W = 3 };
enum { DODGEM_OPT_SIZE = 0, DODGEM_OPT_MAX_PLIES = 1 };

/* The result once over: a seat that won, or DODGEM_DRAW (the ply cap). */
#define DODGEM_PLAYING (-1)
#define DODGEM_DRAW    2

typedef struct dodgem_state {
    eng_rules rules; /* must come first (eng_state_rules) */
    uint32_t car[2]; /* cars of Black and White, bit y*n+x */
    uint16_t plies;  /* moves played */
    uint16_t cap;    /* the ply cap (rule max_plies) */
    uint8_t n;       /* board size (rule size) */
    uint8_t to_move; /* DODGEM_BLACK or DODGEM_WHITE */
    int8_t result;   /* DODGEM_PLAYING, a winning seat, or DODGEM_DRAW */
    uint8_t pad;
} dodgem_state;

/* The move of the car on (x, y) in direction dir, on an n x n board. */
static inline int32_t dodgem_move(int n, int x, int y, int dir)
{
    return (y * n + x) * 4 + dir;
}

/* Legal moves of `player` in s (whoever is to move), written to out (room
 * for 12); returns their number. The game's legal_moves() is this for the
 * seat to move, and 0 once the game is over. */
int dodgem_moves_of(const dodgem_state *s, int player, int32_t *out);

/* Forward steps the cars of `player` still need to leave the board (0 when
 * all are gone): the "distance from win" of the EvoMCTS paper's PosCount. */
int dodgem_distance(const dodgem_state *s, int player);

/* The invariants of a state (Edax's board_check): 0, or ENG_EINTERNAL with
 * the first one broken named in why. Debug builds run it at the top of
 * apply and legal_moves (ENG_CHECKS). */
int dodgem_check(const dodgem_state *s, char *why, size_t cap);

#endif
