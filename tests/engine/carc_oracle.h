/*
 * carc_oracle.h — a slow, obviously-correct Carcassonne used to check the
 * fast engine (engine/carcassonne) in tests.
 *
 * The oracle is written from the rules in docs/rules.md only. It shares nothing
 * with the engine but the public notation (ports numbered as in enum
 * carc_port: NW N NE EN E ES SE S SW WS W WN, then C; x east, y south;
 * rotations clockwise). It keeps its own typed copy of the 24 tile types,
 * stores the board as a plain list of placed tiles with a coordinate map,
 * and recomputes every feature from scratch by flood fill whenever it needs
 * one. Nothing is cached, nothing is incremental: slow on purpose.
 *
 * A turn is mirrored in three calls, as the engine plays it:
 *   co_legal_placements()  what the drawn tile may do (none: discard it);
 *   co_place_tile()        put it down;
 *   co_meeple_options()    the features of that tile a meeple may take;
 *   co_finish_turn()       put the meeple (or none), score what the tile
 *                          completed and return those meeples.
 * co_final_scores() gives the scores if the game ended now.
 *
 * All functions abort() with a message if an internal invariant fails
 * (a broken oracle must never pass silently, even in NDEBUG builds).
 */
#ifndef TESSERA_TESTS_CARC_ORACLE_H
#define TESSERA_TESTS_CARC_ORACLE_H

#include <stdbool.h>
#include <stdint.h>

#define CO_NTYPES 24      /* tile types A..X */
#define CO_NTILES 72      /* tiles in the game, start tile included */
#define CO_MEEPLES 7      /* meeples per player */
#define CO_MAX_PLAYERS 5
#define CO_MAX_FEATS 8    /* most features on one tile type */
#define CO_NPORTS 13      /* 12 edge ports, then the cloister */
#define CO_PORT_C 12      /* the cloister port */
#define CO_OFF 73         /* map offset: coordinates -73..73 */
#define CO_DIM (2 * CO_OFF + 1)
#define CO_MAX_PLACEMENTS 1024 /* (x, y, rot) triples; open cells <= 146, x4 */

enum co_kind { CO_CITY = 1, CO_ROAD = 2, CO_FIELD = 3, CO_CLOISTER = 4 };

/* One tile type in its printed orientation (rot 0), typed from docs/rules.md. */
typedef struct co_type {
    char letter;                     /* 'A'..'X' */
    int count;                       /* copies in the game (D: start tile included) */
    int nfeat;                       /* features on the tile */
    int kind[CO_MAX_FEATS];          /* enum co_kind of each feature */
    int pennant[CO_MAX_FEATS];       /* 1 on a city carrying a pennant */
    int touches_city[CO_MAX_FEATS];  /* field: 1 if it borders the tile's cities */
    uint16_t ports[CO_MAX_FEATS];    /* bit p: the feature covers port p (rot 0) */
    int edge[4];                     /* kind of side N E S W */
} co_type;

typedef struct co_tile {
    int type, rot; /* tile type and rotation */
    int x, y;      /* board coordinates */
} co_tile;

typedef struct co_meeple {
    int tile;   /* index into co_game.tiles */
    int feat;   /* local feature of that tile (rot-0 numbering) */
    int player; /* owner */
} co_meeple;

/* Counters of rare situations met in a game, so tests can show what their
 * games covered (co_game.count, and co_final_scores for the end). */
typedef struct co_counters {
    long completed[5];      /* features scored when completed, by enum co_kind */
    long shared_awards;     /* features scored for two or more tied players */
    long revisits;          /* scored cities/roads reaching some tile twice */
    long tiny_cities;       /* completed two-tile cities scored */
    long field_awards;      /* fields worth points at the end */
    long merged_options;    /* meeple options merging two features of the placed tile */
    long occupied_skipped;  /* features of the placed tile not offered: already occupied */
} co_counters;

typedef struct co_game {
    int players;                       /* seats, 2..5 */
    int tiny_city;                     /* points of a completed two-tile city: 4 or 2 */
    bool farms;                        /* meeples on fields, fields score at the end */
    int ntiles;                        /* tiles placed, start tile included */
    co_tile tiles[CO_NTILES];          /* in the order they were placed */
    int8_t map[CO_DIM][CO_DIM];        /* map[y+OFF][x+OFF]: tile index + 1, 0 = empty */
    int nmeeples;                      /* meeples on the board */
    co_meeple meeples[CO_MAX_PLAYERS * CO_MEEPLES];
    int score[CO_MAX_PLAYERS];         /* points so far */
    int supply[CO_MAX_PLAYERS];        /* meeples in hand */
    co_counters count;                 /* what co_finish_turn met */
} co_game;

/* One legal placement: (x, y, rot) with rot the lowest of equivalent rotations. */
typedef struct co_place {
    int x, y, rot;
} co_place;

/* One meeple option on the tile just placed: a distinct feature after merging. */
typedef struct co_option {
    int kind;       /* enum co_kind */
    uint16_t ports; /* board ports of the placed tile the merged feature covers */
    int feat;       /* a local feature index of the placed tile in that feature */
} co_option;


/* The oracle's tile table (24 entries, A..X). */
const co_type *co_types(void);
/* Type index of a letter 'A'..'X', or -1. */
int co_type_of_letter(char c);
/* Does rotation rot of type t give the same tile as a lower rotation? */
int co_canonical_rot(int type, int rot);
/* Board ports (bit p = port p) of local feature f of type t in rotation rot. */
uint16_t co_feat_ports(int type, int rot, int feat);
/* The kind at board port p of type t in rotation rot (0 if nothing there). */
int co_port_kind(int type, int rot, int port);

/* Start a game: D at (0,0), rot 0, nobody scored, 7 meeples each. */
void co_init(co_game *g, int players, int tiny_city, bool farms);
/* The tile at (x, y), or -1. */
int co_tile_at(const co_game *g, int x, int y);
/* Every distinct legal placement of type t, sorted by (y, x, rot); returns n. */
int co_legal_placements(const co_game *g, int type, co_place *out);
/* Put down a tile (the caller checked legality with co_legal_placements). */
void co_place_tile(co_game *g, int type, int x, int y, int rot);
/* Meeple options for `player` on the last placed tile, sorted by ports;
 * returns n (0 when the player has no meeple in hand). If count is not NULL,
 * merged and occupied features are counted in it. */
int co_meeple_options(const co_game *g, int player, co_option *out, co_counters *count);
/* End the turn of `player`: a meeple on the feature of the last placed tile
 * at board port `port` (-1: none), then score every city, road and cloister
 * this tile completed and return their meeples. */
void co_finish_turn(co_game *g, int player, int port);
/* Scores if the game ended now (incomplete features and fields counted).
 * If count is not NULL, the end-game scoring's situations are added to it. */
void co_final_scores(const co_game *g, int *out, co_counters *count);

#endif
