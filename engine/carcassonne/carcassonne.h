/*
 * carcassonne.h — Carcassonne (base game, 2-5 players, fields) for tessera.
 *
 * The game is registered as "carcassonne" (carc_game). This header exposes
 * what records, the protocol, the UI and tests need beyond the generic
 * interface: the tile model, the notation (coordinates, rotations, ports),
 * move encoding and read-only access to the board.
 *
 * Notation (docs/rules.md): the start tile D sits at (0,0) with its city
 * north; x grows east, y grows south; `rot` counts clockwise quarter turns;
 * a feature on a placed tile is named by a port it touches, in board
 * orientation: N E S W (edge centres), NW NE EN ES SE SW WS WN (edge halves,
 * clockwise from the north-west), C (cloister).
 *
 * A turn is three steps: a chance step (the draw), the placement (a move
 * carc_place_move()), then the meeple step (carc_meeple_move() or
 * CARC_NO_MEEPLE). A drawn tile that fits nowhere is discarded inside the
 * chance step: the state stays at ENG_CHANCE with the same player to draw.
 *
 * Board storage: a torus of CARC_GW x CARC_GH cells indexed linearly,
 * cell(x, y) = (origin + y*CARC_GW + x) mod CARC_CELLS. 72 connected tiles
 * plus their open neighbours span at most 74 columns and 74 rows, and with
 * CARC_GW = CARC_GH = 75 no two cells of such a span share an index (see
 * docs/engine.md), so the torus never aliases while staying small enough
 * that a whole state is about 9 KB and copies in a few hundred nanoseconds.
 */
#ifndef TESSERA_ENGINE_CARCASSONNE_H
#define TESSERA_ENGINE_CARCASSONNE_H

#include <stdbool.h>
#include <stdint.h>

#include "../eng.h"

extern const eng_game carc_game;

#define CARC_NTYPES 24      /* tile types A..X */
#define CARC_NTILES 72      /* tiles in the game, start tile included */
#define CARC_MEEPLES 7      /* meeples per player */
#define CARC_MAX_SEGS 8     /* most features on one tile (X: 4 roads, 4 fields) */
#define CARC_MAX_NODES 256  /* feature segments over all 72 tiles (243) fit in a byte */
#define CARC_GW 75          /* torus width (> 73, see above) */
#define CARC_GH 75          /* torus height */
#define CARC_CELLS (CARC_GW * CARC_GH)
/* Open cells: at most 2*72+2 = 146 (an n-cell polyomino has at most 2n+2
 * empty neighbours), and room for the 3 past the last one that the random
 * placement's walk (4 cells at a step) may read. */
#define CARC_MAX_OPEN 150
#define CARC_CELL_OPEN0 73  /* grid byte >= this: open cell, slot = byte - 73 */
/* Features one placement can complete: its own roads and cities (at most 4,
 * one per side: X) and the cloisters around it and its own (the game has 6:
 * at most 6 with X's 4 roads, 5 + its own with A's one road), so 10. */
#define CARC_MAX_COMPLETE 12
#define CARC_NCLOISTERS 6     /* cloister tiles in the game: A x2, B x4 */
#define CARC_CLOISTER_LANES 8 /* the incomplete cloisters' table: one 8-byte word a column */
#define CARC_NOWHERE (-128)   /* a coordinate no tile has (they stay within -73..73) */

/* Move encoding. Placement: cell * 4 + rot. Meeple: CARC_MEEPLE0 + local
 * feature index of the placed tile, or CARC_NO_MEEPLE. Chance: tile type. */
#define CARC_MEEPLE0 (CARC_CELLS * 4)
#define CARC_NO_MEEPLE (CARC_MEEPLE0 + 15)
#define CARC_MAX_MOVES (CARC_MAX_OPEN * 4)

/* Ports, clockwise around the tile, then the cloister. Edge d (N=0, E=1,
 * S=2, W=3) owns ports 3d (left half seen from outside... clockwise first),
 * 3d+1 (centre) and 3d+2 (second half). */
enum carc_port {
    CARC_NW, CARC_N, CARC_NE,
    CARC_EN, CARC_E, CARC_ES,
    CARC_SE, CARC_S, CARC_SW,
    CARC_WS, CARC_W, CARC_WN,
    CARC_C,
    CARC_NPORTS
};

enum carc_kind { CARC_NONE = 0, CARC_CITY = 1, CARC_ROAD = 2, CARC_FIELD = 3, CARC_CLOISTER = 4 };
enum carc_phase { CARC_DRAW = 0, CARC_PLACE = 1, CARC_MEEPLE = 2, CARC_OVER = 3 };

/* Rule option indices in eng_rules.opt (order of carc_game.options). */
enum { CARC_OPT_TINY_CITY = 0, CARC_OPT_FARMS = 1 };

/* One tile type in one rotation: everything the rules need, precomputed. */
typedef struct carc_tile {
    uint8_t seg[CARC_NPORTS];    /* local feature index at each board port, 0xff = none */
    uint8_t edge[4];             /* kind of each side N E S W: CITY, ROAD or FIELD */
    uint8_t sig;                 /* edge kinds packed 2 bits per side (side d at bits 2d) */
} carc_tile;

/* A tile type, rotation-independent facts. */
typedef struct carc_type {
    char letter;                      /* 'A'..'X' */
    uint8_t count;                    /* copies in the game (D: start tile included) */
    uint8_t nseg;                     /* features on the tile */
    uint8_t kind[CARC_MAX_SEGS];      /* kind of each feature */
    uint8_t edges[CARC_MAX_SEGS];     /* sides a city/road feature reaches */
    uint8_t pennant[CARC_MAX_SEGS];   /* 1 on the city feature that carries a pennant */
    uint8_t cities[CARC_MAX_SEGS];    /* for a field: bit mask of the cities it touches */
    uint8_t rots;                     /* bit r set: rotation r is distinct from rotations < r */
    uint8_t canon[4];                 /* lowest rotation giving the same tile as rotation r */
    carc_tile rot[4];                 /* the tile in each rotation */
} carc_type;

/* The tile model, built once (thread-safe) on first use. */
const carc_type *carc_types(void);
/* Type index of a tile letter ('A'..'X', either case), or -1. */
int carc_type_of_letter(char c);
/* Port index of a port name ("N", "nw", "C"), or -1. */
int carc_port_of_name(const char *s);
/* Upper-case name of a port. */
const char *carc_port_name(int port);

/* A tile on the board. */
typedef struct carc_placed {
    uint8_t type, rot;  /* tile type and rotation */
    int8_t x, y;        /* board coordinates */
    uint16_t cell;      /* torus cell */
    uint8_t node0;      /* global index of its feature 0; feature s is node0 + s */
    uint8_t pad;
} carc_placed;

/* An open cell: empty, next to at least one tile. Its board coordinates
 * follow from a neighbouring tile's (carc_open_xy). */
typedef struct carc_open {
    uint16_t cell;   /* torus cell */
    uint8_t pattern; /* required edge kind per side, 2 bits per side, 0 = free */
    uint8_t pad;
} carc_open;

typedef struct carc_meeple {
    uint8_t node;   /* feature segment it stands on */
    uint8_t player; /* owner */
} carc_meeple;

/* The whole game state: fixed size, no pointers, copied with memcpy.
 * Read it through the accessors below; only the rules (rules.c, board.c, scoring.c) write it. */
typedef struct carc_state {
    eng_rules rules;             /* must come first (eng_state_rules) */
    uint8_t phase;               /* enum carc_phase */
    uint8_t player;              /* seat drawing / placing / placing a meeple */
    uint8_t drawn;               /* tile type drawn this turn (PLACE, MEEPLE; DRAW if dead) */
    uint8_t dead;                /* the last draw was a dead tile (discarded): drawn names it */
    uint8_t nplaced;             /* tiles on the board, start tile included */
    uint8_t nopen;               /* open cells */
    uint8_t nnodes;              /* feature segments allocated */
    uint8_t nmeeples;            /* meeples on the board */
    uint8_t bag_n;               /* tiles left in the bag */
    uint8_t discards;            /* dead tiles discarded so far */
    uint8_t ncomplete;           /* features completed by the last placement */
    uint8_t complete[CARC_MAX_COMPLETE]; /* their nodes (roots, or cloister nodes) */
    /* the cloisters on the board not yet complete, in no particular order:
     * node, x and y; unused lanes hold x = y = CARC_NOWHERE (a placement
     * tests all lanes at once for a cloister around it) */
    uint8_t ncloisters;
    uint8_t cloister[CARC_CLOISTER_LANES];
    int8_t cloister_x[CARC_CLOISTER_LANES];
    int8_t cloister_y[CARC_CLOISTER_LANES];
    uint8_t bag[CARC_NTYPES];    /* tiles of each type left in the bag */
    uint8_t bag_upto[CARC_NTYPES]; /* bag[0] + ... + bag[t]: a draw finds its type at once */
    uint16_t nfit[CARC_NTYPES];  /* distinct legal placements of each tile type now */
    uint8_t supply[ENG_MAX_PLAYERS]; /* meeples in hand */
    int16_t score[ENG_MAX_PLAYERS];  /* points so far */
    uint16_t turns;              /* draws so far (a discard is a draw) */
    carc_meeple meeple[ENG_MAX_PLAYERS * CARC_MEEPLES];
    /* features: a forest of depth one over segments (every segment's par is
     * its feature's root: a merge relabels the smaller feature), per-root
     * aggregates */
    uint8_t par[CARC_MAX_NODES];   /* root of the segment's feature (itself for a root) */
    uint8_t nxt[CARC_MAX_NODES];   /* circular list of the segments of a feature */
    uint8_t size[CARC_MAX_NODES];  /* root: segments in the feature */
    uint8_t kind[CARC_MAX_NODES];  /* enum carc_kind */
    uint8_t tile[CARC_MAX_NODES];  /* index into placed[] */
    uint8_t open[CARC_MAX_NODES];  /* root: unmatched sides (city/road); cloister: empty neighbours */
    uint8_t pen[CARC_MAX_NODES];   /* root: pennants (city) */
    uint8_t mee[CARC_MAX_NODES];   /* root: meeples on the feature */
    carc_placed placed[CARC_NTILES];
    carc_open opens[CARC_MAX_OPEN];
    uint8_t grid[CARC_CELLS];      /* 0 empty, 1..72 placed index + 1, >= 73 open slot + 73 */
} carc_state;

/* ---- moves --------------------------------------------------------------- */

/* Torus cell of board coordinates. */
int carc_cell(int x, int y);
/* The placement move for (x, y, rot) of the drawn tile, if legal: returns 0
 * and sets *m (the rotation is mapped to its canonical equivalent), or
 * ENG_EILLEGAL_MOVE. */
int carc_place_move(const carc_state *s, int x, int y, int rot, eng_move *m);
/* The meeple move for a port of the placed tile (or port < 0 for none), if
 * legal: returns 0 and sets *m, or ENG_EILLEGAL_MOVE. */
int carc_meeple_move(const carc_state *s, int port, eng_move *m);
/* Decode a placement move of this state. Returns 0 or ENG_EINVAL. */
int carc_decode_place(const carc_state *s, eng_move m, int *x, int *y, int *rot);
/* The preferred port naming a meeple move's feature on the placed tile
 * (centre ports first), or -1 for CARC_NO_MEEPLE. */
int carc_decode_meeple(const carc_state *s, eng_move m);
/* The preferred port naming local feature `seg` of a tile type in rotation rot. */
int carc_feature_port(int type, int rot, int seg);

/* The meeple options the legal placement `place` (a move of this PLACE
 * state) would offer, without applying it: writes the local feature indices
 * to segs (at most CARC_MAX_SEGS) exactly as the MEEPLE state after the
 * placement lists them (one per distinct unoccupied feature, lowest index
 * first; none when the player has no meeple left) and returns their number.
 * What the wire's `legal` list costs is this, not a copy of the state per
 * placement (tests/engine/test_carc_random.c checks it against apply). */
int carc_meeple_options_for(const carc_state *s, eng_move place, uint8_t *segs);

/* ---- reading the board ---------------------------------------------------- */

/* The board coordinates of open cell o of this state. */
void carc_open_xy(const carc_state *s, const carc_open *o, int *x, int *y);
/* The open cell at (x, y), or NULL. */
const carc_open *carc_open_at(const carc_state *s, int x, int y);
/* The placed tile at (x, y), or NULL. */
const carc_placed *carc_tile_at(const carc_state *s, int x, int y);
/* Root of a feature segment. */
int carc_root(const carc_state *s, int node);
/* Points the feature of `node` is worth now, whoever owns it: its completed
 * value if complete, else its end-game value (fields: 3 per completed city). */
int carc_feature_value(const carc_state *s, int node);
/* Is the feature of `node` completed (cities, roads, cloisters)? */
bool carc_feature_complete(const carc_state *s, int node);
/* Each player's score if the game ended now (incomplete features and
 * fields scored as at the end). */
void carc_virtual_scores(const carc_state *s, int *out);
/* Heyden's evaluation for `player` (Müller's thesis §4.4.4; see scoring.c). */
double carc_heyden(const carc_state *s, int player);
/* Number of distinct legal placements of tile type t on this board. */
int carc_count_placements(const carc_state *s, int type);

/* The invariants of a state (after Edax's board_check): 0, or ENG_EINTERNAL
 * with the first one broken named in why. The quick check (deep false)
 * reads the counts, the bag, the meeples, the cloister table and the drawn
 * tile: debug builds run it at the top of apply and legal_moves. The deep
 * one also walks every tile, open cell and feature against the grid, the
 * per-type placement counts, each feature's segments, sides, pennants and
 * meeples and each cloister's neighbours: the tests run it. */
int carc_check(const carc_state *s, bool deep, char *why, size_t cap);

#endif
