/*
 * driver.h — a small game loop over the players interface for the tests
 * (the real runner is the tournament module's): chance from a seeded
 * generator, each seat's turn through player_turn with a deadline, every
 * move shown to every player, the game's end told to all. On a fault the
 * game either stops there (forfeit) or the driver plays a random legal turn
 * for the seat and goes on (random_move), as the match policies do.
 */
#ifndef TESSERA_TESTS_PLAYERS_DRIVER_H
#define TESSERA_TESTS_PLAYERS_DRIVER_H

#include "players/player.h"

#define DRV_MAX_FAULTS 64

typedef struct drv_game {
    /* filled by the caller */
    const eng_game *g;
    eng_rules rules;
    player *p[ENG_MAX_PLAYERS]; /* one per seat (borrowed) */
    uint64_t seed;              /* chance */
    int64_t move_ms;            /* each turn's allowance */
    bool random_on_fault;       /* policy: a random turn instead of ending the game */
    int max_turns;              /* stop after this many turns of the seats (0: no limit) */
    /* results */
    bool finished;              /* the game reached its end by the rules */
    int turns[ENG_MAX_PLAYERS]; /* turns each seat played (ok verdicts) */
    double cpu_ms[ENG_MAX_PLAYERS];
    double scores[ENG_MAX_PLAYERS];
    int nfaults;
    int fault_seat[DRV_MAX_FAULTS];
    player_result *fault;                    /* [DRV_MAX_FAULTS] results of the faulty turns */
    char stderr_all[ENG_MAX_PLAYERS][16384]; /* every stderr tail returned, concatenated (cut) */
    eng_move *moves;                         /* every move applied */
    int nmoves;
    unsigned char *st; /* the final state */
} drv_game;

/* Set up d for g with default rules and `players` seats. */
void drv_init(drv_game *d, const eng_game *g, int players, uint64_t seed, int64_t move_ms);
/* Play one game. Returns the number of faults. */
int drv_play(drv_game *d);
void drv_free(drv_game *d);

/* Monotonic ms. */
double drv_now_ms(void);

#endif
