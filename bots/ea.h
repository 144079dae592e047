/*
 * ea.h — private to bots/: the (1+lambda) evolution strategy that evolves
 * the MCTS selection formula once per decision, behind the bots ea-p-mcts
 * (SIEA-MCTS paper Alg. 1 / ES-p-MCTS of the ES-MCTS paper), ea-mcts
 * (SIEA-MCTS paper Alg. 2 / ES-MCTS) and siea-mcts (SIEA-MCTS paper §IV-E;
 * docs/references.md). docs/ea.md records every reading of the papers
 * taken here.
 *
 * One decision of these bots:
 *   A. normal MCTS iterations (UCT, the real tree) until every root action
 *      has been tried once;
 *   B. S more normal MCTS iterations, whose root-seat rewards are the
 *      fitness cases of the seed (the UCT formula they select with);
 *   C. the evolution: G generations; each mutates the parent into lambda
 *      offspring, evaluates each with S fitness simulations that select
 *      with the offspring's formula, and keeps the best of parent and
 *      offspring (ties: ea_select);
 *   D. normal MCTS iterations with the evolved formula until the budget ends.
 * Where the fitness simulations run is the variant: ea-mcts and siea-mcts
 * on the real tree, expanded and backed up like MCTS iterations (the
 * authors' code; the default since the measurements of docs/ea.md), or with
 * fitness_tree=copy on one copy of the tree taken at the start of C (the
 * papers' text: the real tree then receives MCTS iterations only);
 * ea-p-mcts on the real tree read-only (no expansion, no back-up).
 *
 * Budgets: sims= counts the MCTS iterations (A, B, D); the evolution
 * spends lambda*G*S simulations on top (2,400 with the defaults). With ms=
 * the evolution may run until a share lambda*G*S / (lambda*G*S + M) of the
 * budget has passed (M = sims= or 400), MCTS gets the rest; the decision
 * always ends by the deadline.
 */
#ifndef TESSERA_BOTS_EA_H
#define TESSERA_BOTS_EA_H

#include <stdbool.h>
#include <stdint.h>

#include "bot.h"
#include "gp.h"
#include "mcts.h"

#define EA_MAX_LAMBDA       16   /* most offspring per generation */
#define EA_MAX_FITNESS_SIMS 1000 /* most simulations per fitness (semantics length) */

/* Where an individual's fitness simulations run. */
enum ea_where {
    EA_ON_COPY,      /* a copy of the tree, expanded and backed up (option fitness_tree=copy) */
    EA_READ_ONLY,    /* the real tree, read-only: no expansion, no back-up (ea-p-mcts) */
    EA_ON_REAL_TREE, /* the real tree, backed up (the authors' code; ea-mcts, siea-mcts default) */
};

/* How the seed's fitness is obtained. */
enum ea_seed_eval {
    EA_SEED_MCTS,    /* the S MCTS iterations of step B (the budget stays lambda*G*S) */
    EA_SEED_FITNESS, /* S fitness simulations like an offspring (S more simulations) */
};

typedef struct ea_params {
    int lambda;       /* offspring per generation, 1..EA_MAX_LAMBDA */
    int gens;         /* generations G */
    int fitness_sims; /* S, 1..EA_MAX_FITNESS_SIMS */
    int max_depth;    /* deepest node allowed, GP_UCT_HEIGHT..GP_MAX_DEPTH */
    int nk;           /* constants a mutation draws from */
    double kset[BOT_LIST_MAX];
    double p_internal;  /* probability that a mutation picks an internal node */
    double k;           /* K of the seeded UCT formula */
    bool semantic;      /* SIEA: semantic selection among tied individuals */
    double alpha, beta; /* SIEA: SSi holds when alpha < SSD < beta */
    bool parent_ties;   /* a parent tied on the best fitness takes part in the tie (ea_select) */
    int where;          /* enum ea_where */
    int seed_eval;      /* enum ea_seed_eval */
} ea_params;

/* One individual: a formula, its fitness and its semantics. */
typedef struct ea_indiv {
    gp_expr expr;
    int nsem;                        /* fitness cases recorded (S once evaluated) */
    double sem[EA_MAX_FITNESS_SIMS]; /* the rewards, sorted ascending once evaluated */
    double fitness;                  /* mean of sem (summed in ascending order) */
    bool evaluated;                  /* all S cases are in */
} ea_indiv;

/* The evolution of one bot: the population lives here, allocated once. */
typedef struct ea_evo {
    ea_params par;
    ea_indiv *pop; /* pop[0] the parent, pop[1..lambda] the offspring */
    /* results of the last ea_evolve() */
    int gens_done;      /* complete generations */
    int64_t sims;       /* fitness simulations run */
    int evaluations;    /* individuals evaluated completely */
    int ties;           /* selections where two or more individuals shared the best fitness */
    int offspring_ties; /* ... two or more offspring (the only ties SIEA decides differently) */
    int semantic;       /* ... decided by an offspring's SSD in (alpha, beta) (SIEA) */
} ea_evo;

/* Allocate the population for `par`. Returns 0 or ENG_ENOMEM. */
int ea_evo_init(ea_evo *ev, const ea_params *par);
void ea_evo_free(ea_evo *ev);

/* Start a decision: pop[0] := the UCT seed with K = par.k, not evaluated. */
void ea_evo_seed(ea_evo *ev);

/* Record one fitness case of an individual; when S are in, sort them and
 * set the fitness. */
void ea_indiv_add(ea_indiv *in, int fitness_sims, double reward);

/* Sampling semantic distance (SIEA-MCTS paper §III-C): the mean absolute
 * difference of two semantics vectors of length n (n >= 1). */
double ea_ssd(const double *a, const double *b, int n);

/* The next parent among count individuals, index 0 being the current
 * parent (SIEA-MCTS paper Alg. 2, read as a (1+lambda)-ES):
 *   - the highest fitness wins when it is unique (the parent included);
 *   - when several share it exactly (a tie):
 *     with parent_ties (the authors' code), a tied parent is one of the tied:
 *       EA (no semantics) keeps it (their sort is stable and lists it first),
 *       otherwise a random tied offspring; with `semantic` the tied individual
 *       with the smallest SSD to the parent among those with alpha < SSD <
 *       beta wins (the lowest index on equal SSD; the parent's SSD is 0, so it
 *       wins only when alpha < 0), otherwise one of all the tied at random,
 *       the parent included;
 *     without parent_ties (the papers' "best offspring" / Alg. 2 line 30),
 *       the parent drops out of the tie (an offspring as good as its parent
 *       replaces it) and the same rules pick among the tied offspring.
 * sem[i] are the sorted semantics (length nsem) of individual i; only read
 * with `semantic`. rng is used only for a random pick. *by_semantics (may be
 * NULL) says whether the semantic rule decided. */
int ea_select(const double *fitness, const double *const *sem, int count, int nsem, bool semantic,
              double alpha, double beta, bool parent_ties, eng_rng *rng, bool *by_semantics);

/* Evaluate one individual: S simulations with ctx selecting by its formula.
 * ctx must be set for `where` (its tree and flags are left as found apart
 * from the simulations' own effect). Stops early when clk is done (then the
 * individual stays unevaluated). Adds the simulations run to clk->sims. */
bool ea_evaluate(ea_evo *ev, ea_indiv *in, mcts_ctx *ctx, int where, int seat, bot_clock *clk);

/* Run the generations from pop[0] (which must be evaluated unless
 * par.seed_eval is EA_SEED_FITNESS, in which case it is evaluated first).
 * Fitness simulations go through ctx (already pointing at the copy, or the
 * real tree) and count against clk (its max_sims and deadline bound the
 * evolution). Afterwards pop[0] is the best individual found.
 * Returns the complete generations. */
int ea_evolve(ea_evo *ev, mcts_ctx *ctx, int seat, bot_clock *clk, eng_rng *rng);

/* What the last decision of an ea-* bot did (tests and benchmarks). */
typedef struct ea_report {
    bool evolved;                 /* the evolution ran (step C) */
    int64_t mcts_sims;            /* MCTS iterations on the real tree (A, B, D) */
    int64_t evo_sims;             /* fitness simulations (C) */
    int gens;                     /* complete generations */
    double fitness;               /* fitness of the formula used in D */
    gp_expr formula;              /* the formula used in D */
    uint32_t root_visits_at_copy; /* real root visits when the copy was taken */
    uint32_t copy_root_visits;    /* the copy's root visits after the evolution */
    double evo_ms;                /* wall-clock time of the evolution */
    int ties;                     /* selections with a shared best fitness (ea_evo) */
    int offspring_ties;           /* ... shared by two or more offspring */
    int semantic;                 /* ... settled by semantic similarity (siea-mcts) */
} ea_report;

/* The report of an ea-p-mcts / ea-mcts / siea-mcts bot, NULL for others. */
const ea_report *ea_bot_report(const bot *b);
/* The real search tree of such a bot (NULL for others). */
const mcts_tree *ea_bot_tree(const bot *b);

#endif
