/*
 * evolve.h — the offline evolution of EvoMCTS evaluations
 * ([EvoMCTS paper](../docs/references.md#evomcts), §V; docs/evomcts.md),
 * driven by `tessera evolve` (cli/cmd_evolve.c).
 *
 * A population of typed GP expressions (bots/tgp.h) evolves by generations:
 *   - fitness by coevolution (Algorithm 2): every individual plays CoPlayNum
 *     games in the first seat against CoPlayNum opponents drawn from the
 *     population, paired so that it also plays exactly CoPlayNum games in the
 *     second seat; 1 point per win, 0.5 per draw. A game is two `evomcts`
 *     bots (sims playouts per move, pbf moves rated per playout step), each
 *     with its individual as evaluation;
 *   - elitism: the `elite` fittest pass on unchanged;
 *   - tournament selection (Algorithm 3) of the parents of the others;
 *   - selective crossover (Algorithm 1): a parent is picked for crossover
 *     with probability pxo and paired with a parent not yet picked; if the
 *     first is at least as fit as the second it donates a subtree to it
 *     (one-way), else the two swap subtrees (two-way);
 *   - mutation with probability pm, a local (factor) mutation with
 *     probability plm when the chosen node is numeric (§V-E).
 *
 * Determinism: the whole run depends only on the parameters and the seed —
 * not on the number of threads (each game's seeds come from the seed, the
 * generation and the game's index) nor on being stopped and resumed from a
 * checkpoint. Nothing here prints: progress goes to callbacks.
 */
#ifndef TESSERA_BOTS_EVOLVE_H
#define TESSERA_BOTS_EVOLVE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "tgp.h"

#define EVO_EXTRA_MAX 200 /* bytes of extra evomcts options (e.g. "cp=1,reward=scorediff") */

typedef struct evo_params {
    int population;  /* 120 in the paper */
    int generations; /* 100 */
    int coplay;      /* CoPlayNum: games per individual in each seat (25) */
    uint64_t seed;
    int sims;      /* playouts per move of the evolving players (100) */
    int pbf;       /* playoutBranchingFactor (4) */
    int max_depth; /* deepest tree (15) */
    int init_min;  /* initial trees: ramped half-and-half, depths init_min..init_max */
    int init_max;
    double pxo;                /* crossover probability (0.8) */
    double pm;                 /* mutation probability (0.2) */
    double plm;                /* local mutation ratio (0.5) */
    int tour_size;             /* tournament size (2) */
    int tour_winners;          /* winners per tournament (1) */
    int elite;                 /* fittest kept unchanged (ours: 2; the paper is silent) */
    char extra[EVO_EXTRA_MAX]; /* more evomcts options for the players ("" = none) */
} evo_params;

/* The published parameters (§V-J), and 2 elites. */
void evo_params_default(evo_params *p);

/* What one generation did (for the progress line). */
typedef struct evo_report {
    int generation;    /* 1-based number of the generation just evaluated */
    int generations;   /* of the run */
    int games;         /* games played in it */
    int games_each;    /* games per individual (2 x coplay): the best fitness possible */
    double best;       /* the best fitness (the mean is always games_each / 2) */
    double mean_nodes; /* mean tree size of the population (bloat shows here) */
    int best_index;    /* into the population */
    double seconds;    /* wall time of the generation */
} evo_report;

typedef struct evo_run evo_run;

/* A new run with a random population (draws from the seed). NULL with a
 * reason in err on bad parameters (ranges, a game without a record of
 * moves the bot can play, a bad extra option) or out of memory. */
evo_run *evo_create(const eng_game *g, const eng_rules *rules, const evo_params *p, char *err,
                    size_t errcap);
/* A run from a checkpoint written by evo_save(); NULL with a reason (the
 * file, its line and what is wrong) in err. */
evo_run *evo_load(const char *path, char *err, size_t errcap);
/* Write the run to path (atomically: a temporary file renamed). 0 or
 * ENG_EIO with a reason. */
int evo_save(const evo_run *r, const char *path, char *err, size_t errcap);
void evo_destroy(evo_run *r);

/* The run's game, rules, parameters and terminal set. */
const eng_game *evo_game(const evo_run *r);
const eng_rules *evo_rules(const evo_run *r);
const evo_params *evo_get_params(const evo_run *r);
const tgp_set *evo_set(const evo_run *r);
/* Generations evaluated so far. */
int evo_generation(const evo_run *r);
/* Change the number of generations (to extend a resumed run). */
void evo_set_generations(evo_run *r, int generations);
/* The best fitness and the mean tree size of generation g (1-based,
 * <= evo_generation). */
void evo_history(const evo_run *r, int g, double *best, double *mean_nodes);

/* Called after each game of a generation, from the thread that played it,
 * one call at a time: games done and games in the generation. */
typedef void (*evo_game_fn)(void *ud, int done, int total);

/* One generation: breed the next population from the last evaluated one
 * (unless none was evaluated yet), then evaluate it on `threads` threads.
 * Fills *rep. Returns 0, ENG_EINVAL when the run is complete, ENG_ENOMEM, or
 * ENG_ESHUTTING_DOWN when *stop was raised (the generation is then lost;
 * the run must be reloaded from its last checkpoint to go on). */
int evo_step(evo_run *r, int threads, const atomic_bool *stop, evo_game_fn fn, void *ud,
             evo_report *rep, char *err, size_t errcap);

/* Individual `rank` (0 = the fittest) of the last evaluated generation, its
 * fitness in *fitness. NULL before the first evaluation. */
const tgp_expr *evo_ranked(const evo_run *r, int rank, double *fitness);

#endif
