/*
 * mcts.h — private to bots/: the UCT engine shared by flatmc, ucb1, mcts,
 * rave and the evolved-formula bots (ea-p-mcts, ea-mcts, siea-mcts).
 *
 * The tree follows Algorithm 5 of Müller's thesis (docs/references.md):
 * decision nodes for every choice of a seat (a Carcassonne turn is a
 * placement node followed by a meeple node of the same seat) and explicit
 * chance nodes whose child is picked by sampling the remaining bag, never
 * the real tile order.
 *
 * Memory: nodes live in one preallocated array (the arena of a search), a
 * node's children in one contiguous block, linked by indices rather than
 * pointers — so a whole tree is copied with one memcpy (EA-MCTS evaluates
 * fitness on a copy). When the array is full the search stops expanding and
 * keeps simulating from the deepest node it reached; it never fails.
 *
 * Rewards are vectors, one value per seat; each node stores the sum of the
 * rewards of the seat that chose the move leading to it, so selection at a
 * node of seat p maximises p's own mean reward (max^n for more players).
 */
#ifndef TESSERA_BOTS_MCTS_H
#define TESSERA_BOTS_MCTS_H

#include <stdbool.h>
#include <stdint.h>

#include "bot.h"

enum mcts_uct { MCTS_UCT_GALVAN, MCTS_UCT_THESIS };
enum mcts_reward {
    MCTS_R_WINLOSS,       /* +1 sole best, 0 tied best, -1 otherwise */
    MCTS_R_SCOREDIFF,     /* own score - best other score */
    MCTS_R_PORTION,       /* own score / sum of scores */
    MCTS_R_SCOREDIFF_NORM,/* score difference / norm, clamped to [-1, 1] */
    MCTS_R_HEYDEN,        /* the game's "heyden" evaluation (Carcassonne) */
};
enum mcts_playout { MCTS_P_RANDOM, MCTS_P_EGREEDY };
enum mcts_final { MCTS_F_VALUE, MCTS_F_VISITS, MCTS_F_UCT };
enum mcts_unplanned { MCTS_U_SEARCH, MCTS_U_FIRST };
enum mcts_select { MCTS_S_UCT, MCTS_S_UNIFORM, MCTS_S_UCB1 };

enum mcts_kind { MCTS_LEAF = 0, MCTS_DECISION, MCTS_CHANCE, MCTS_TERMINAL };

#define MCTS_ROOT 1u
#define MCTS_MAX_THREADS 64 /* threads= of one search: well past any machine it runs on */

typedef struct mcts_node {
    uint32_t child;   /* index of the first child (0: not expanded) */
    uint16_t nchild;  /* children in the block */
    uint16_t tried;   /* children visited at least once; they are child..child+tried-1 */
    eng_move move;    /* move or chance outcome leading here */
    uint32_t visits;  /* simulations through this node */
    int8_t mover;     /* seat that chose `move`; -1 for a chance outcome */
    uint8_t kind;     /* enum mcts_kind, known once expanded */
    uint16_t pad;
    double value;     /* sum of rewards of `mover` */
} mcts_node;

/* RAVE statistics, parallel to the node array (only for rave). */
typedef struct mcts_amaf {
    uint32_t n;       /* simulations in which the move was played later by its mover */
    float v;          /* mean reward of those simulations for the mover */
} mcts_amaf;

typedef struct mcts_tree {
    mcts_node *node;  /* node[0] unused, node[1] is the root */
    mcts_amaf *amaf;  /* NULL unless RAVE */
    uint32_t used;    /* nodes in use, including node[0] */
    uint32_t cap;     /* capacity in nodes */
    bool full;        /* an expansion did not fit */
} mcts_tree;

/* Everything a search is configured with (parsed from the bot's options). */
typedef struct mcts_cfg {
    int uct;          /* enum mcts_uct */
    double k;         /* Galvan: Q + 2K sqrt(2 ln n / nj) */
    double cp;        /* thesis: Q + Cp sqrt(ln n / nj) */
    int select;       /* enum mcts_select (flatmc: uniform, ucb1: UCB1) */
    int reward;       /* enum mcts_reward */
    double norm;      /* bound for scorediff-norm */
    int playout;      /* enum mcts_playout */
    double eps;       /* epsilon of the epsilon-greedy playout */
    int cutoff;       /* stop a playout after this many decisions (0: to the end) */
    int final;        /* enum mcts_final */
    bool flat;        /* expand only the root seat's current turn (flat MC, 1-ply UCB) */
    bool rave;        /* blend AMAF statistics (MCTS-RAVE) */
    double rave_b;    /* RAVE equivalence parameter b~ */
    int heyden;       /* index of the game's "heyden" evaluation, or -1 */
} mcts_cfg;

/* A selection formula replacing UCT: the value of a child with mean reward
 * q, parent visits n and child visits nj (all visited children, nj >= 1). */
typedef double (*mcts_score_fn)(void *ud, double q, double n, double nj);

/* One search over one tree. */
typedef struct mcts_ctx {
    const eng_game *g;
    const mcts_cfg *cfg;
    eng_rng *rng;
    mcts_tree *tree;
    const void *root_state;   /* state at the root (borrowed) */
    unsigned char *scratch;   /* g->state_size bytes for the simulated state */
    eng_move *moves;          /* g->max_moves buffer */
    double *rates;            /* g->max_moves buffer (egreedy) */
    uint32_t *path;           /* g->max_plies + 2 node indices */
    mcts_score_fn score;      /* NULL: the configured UCT */
    void *score_ud;
    bool backup;              /* write results into the tree (false: read-only) */
    bool expand;              /* allow expansion */
    /* Optional: the moves the root may choose among, in place of all legal
     * moves (NULL: all). Read when the root is expanded (mcts-d2 leaves out
     * the moves after which the opponent wins at once). */
    const eng_move *root_moves;
    int nroot_moves;
    /* Optional playout policy for decisions, in place of cfg->playout
     * (NULL: cfg->playout). Must return a legal move of st (EvoMCTS). */
    eng_move (*policy)(void *ud, const void *st, eng_rng *rng);
    void *policy_ud;
    double reward[ENG_MAX_PLAYERS]; /* rewards of the last simulation */
    /* Every seat's rewards summed over the simulations backed up since the
     * search began (mcts_bot_begin zeroes them; the helpers' are added in):
     * bot_stats.values. */
    double root_sum[ENG_MAX_PLAYERS];
    int64_t root_n;
    /* RAVE bookkeeping: the (seat, move) pairs of the last simulation */
    int nplayed;
    int32_t *played_key;      /* g->max_plies entries: (seat << 24) ^ move */
    uint32_t *seen;           /* hash set of keys, generation-stamped */
    uint32_t *seen_gen;
    uint32_t gen;
} mcts_ctx;

/* Allocate a tree of `bytes` (rave: with AMAF arrays). Returns 0 or ENG_ENOMEM. */
int mcts_tree_alloc(mcts_tree *t, size_t bytes, bool rave);
void mcts_tree_free(mcts_tree *t);
/* Empty the tree, leaving an unexpanded root. */
void mcts_tree_clear(mcts_tree *t);
/* dst := src (dst must have at least src->used capacity). */
void mcts_tree_copy(mcts_tree *dst, const mcts_tree *src);
/* Bytes used by the nodes in use. */
size_t mcts_tree_bytes(const mcts_tree *t);

/* Allocate the per-search buffers of a context for game g. */
int mcts_ctx_init(mcts_ctx *c, const eng_game *g, const mcts_cfg *cfg, eng_rng *rng,
                  mcts_tree *tree);
void mcts_ctx_free(mcts_ctx *c);

/* Run one simulation from c->root_state: select (with c->score or UCT),
 * expand one node, play out, back up. Rewards land in c->reward. */
void mcts_simulate(mcts_ctx *c);

/* The child of `node` to play by the final-move rule (NULL-safe: 0 if no
 * visited child). */
uint32_t mcts_best_child(const mcts_tree *t, uint32_t node, int final);
/* final=uct: the visited child of `node` the selection step would pick (the
 * formula with its exploration term, RAVE-blended for rave), as the authors'
 * MCTS-RAVE player picks its move; 0 if no visited child. */
uint32_t mcts_best_by_selection(const mcts_ctx *c, uint32_t node);

/* Rewards of a (terminal or cut-off) state for every seat. */
void mcts_rewards(const mcts_ctx *c, const void *st, bool terminal, double *out);

/* Parse the shared MCTS options of a bot into cfg. */
void mcts_cfg_from_bot(mcts_cfg *cfg, const bot *b);

/* The MCTS family's options, one entry each, so that every bot's table
 * (mcts, rave, flatmc, ucb1, the EA bots) is composed from the same lines. */
/* clang-format off */
#define MCTS_OPT_UCT(def) {"uct", BOT_ENUM, def, 0, 1, mcts_uct_names, NULL, \
    "selection formula: galvan Q+2K*sqrt(2ln n/nj), thesis Q+Cp*sqrt(ln n/nj)"}
#define MCTS_OPT_K(def, help) {"k", BOT_REAL, def, 0, 1000, NULL, NULL, help}
#define MCTS_OPT_CP {"cp", BOT_REAL, 0.5, 0, 1000, NULL, NULL, "Cp of the thesis formula"}
#define MCTS_OPT_REWARD {"reward", BOT_ENUM, 1, 0, 4, mcts_reward_names, NULL, \
    "reward of a simulation (EA bots: also the fitness): winloss, scorediff, portion, scorediff-norm, heyden"}
#define MCTS_OPT_NORM {"norm", BOT_REAL, 282, 1, 100000, NULL, NULL, "bound dividing scorediff-norm"}
#define MCTS_OPT_PLAYOUT {"playout", BOT_ENUM, 0, 0, 1, mcts_playout_names, NULL, \
    "playout policy: random, egreedy (heuristic player with prob. 1-eps)"}
#define MCTS_OPT_EPS {"eps", BOT_REAL, 0.1, 0, 1, NULL, NULL, "random-move probability of egreedy playouts"}
#define MCTS_OPT_CUTOFF {"cutoff", BOT_INT, 0, 0, 100000, NULL, NULL, \
    "end playouts after this many decisions, value by evaluation (0: play to the end)"}
#define MCTS_OPT_FINAL {"final", BOT_ENUM, 0, 0, 2, mcts_final_names, NULL, \
    "move played: value (best mean), visits (most visited) or uct (the selection formula, exploration included)"}
#define MCTS_OPT_REUSE {"reuse", BOT_BOOL, 0, 0, 1, NULL, NULL, "keep the subtree between decisions"}
#define MCTS_OPT_JOINT {"joint", BOT_BOOL, 1, 0, 1, NULL, NULL, \
    "one search per turn: the seat's next decision in the same turn is read from the tree"}
#define MCTS_OPT_THREADS {"threads", BOT_INT, 1, 1, MCTS_MAX_THREADS, NULL, NULL, \
    "search threads: 1 searches alone; N > 1 runs N independent trees at once (root-parallel), " \
    "the simulations split among them and their root statistics summed (mem= is shared out)"}
#define MCTS_OPT_UNPLANNED {"unplanned", BOT_ENUM, 0, 0, 1, mcts_unplanned_names, NULL, \
    "joint: the next decision of the turn when the search left it no visited child: search (its own search) or first (the first legal move, Carcassonne: no meeple)"}
/* rewards and playouts: every bot of the family takes these */
#define MCTS_PLAYOUT_OPTS MCTS_OPT_REWARD, MCTS_OPT_NORM, MCTS_OPT_PLAYOUT, MCTS_OPT_EPS, MCTS_OPT_CUTOFF
/* clang-format on */

extern const char *const mcts_uct_names[];
extern const char *const mcts_reward_names[];
extern const char *const mcts_playout_names[];
extern const char *const mcts_final_names[];
extern const char *const mcts_unplanned_names[];

/* One more searcher of a root-parallel search (threads=N): its own tree,
 * context, generator and copy of the root, on a thread of its own for the
 * length of a decision; its statistics join the main tree's at the end
 * (mcts_bot_search); one still running a grace after the deadline gives
 * its last snapshot of the root's instead. */
typedef struct mcts_helper mcts_helper;

/* Testing hook (tests/bots/test_threads.c): when set, every helper's
 * thread calls it before each simulation with the number it has run, so
 * that a test can stand for a thread the scheduler stops. NULL in every
 * program. */
extern void (*mcts__helper_stall)(int64_t done);

/* A reusable MCTS decision driver: the bots' choose() shares it. */
typedef struct mcts_bot {
    mcts_cfg cfg;
    mcts_tree tree;
    mcts_ctx ctx;
    /* joint turns: the planned next decision of the same seat */
    bool has_plan;
    eng_move plan;
    unsigned char *plan_state;  /* the state in which `plan` is to be played */
    /* tree reuse: the state the current tree's root stands for */
    bool tree_valid;
    unsigned char *tree_state;
    uint32_t tree_root;         /* node standing for tree_state */
    mcts_tree spare;            /* compaction target for reuse */
    int64_t default_sims;
    /* root-parallel search: threads - 1 helpers beside this tree (none when
     * threads=1, the search then being the one it always was) */
    int threads;
    mcts_helper *helpers;
    double think_t0; /* when the decision began (thinking lines' elapsed_ms) */
} mcts_bot;

/* How a bot of the family uses the engine. */
typedef struct mcts_family {
    int64_t default_sims; /* budget when neither the spec nor the caller sets one */
    bool rave;            /* MCTS-RAVE statistics */
    bool flat;            /* expand only the root seat's current turn */
    int select;           /* enum mcts_select */
    size_t mem_bytes;     /* tree memory to use instead of mem= (0: mem=); ea-mcts
                             keeps the other part of mem= for its tree copy */
} mcts_family;

/* Parse the bot's options and allocate the tree (mem= MiB) and buffers.
 * Returns 0, or an error with the reason in err (bad option combination,
 * out of memory). */
int mcts_bot_init(mcts_bot *mb, bot *b, const mcts_family *fam, char *err, size_t errcap);
void mcts_bot_free(mcts_bot *mb);
/* Prepare the tree for a decision at st (reusing it when possible);
 * returns true when a joint-turn plan answers st (then *m is set). */
bool mcts_bot_begin(mcts_bot *mb, bot *b, const void *st, eng_move *m);
/* Run simulations from mb->ctx's root until clk says done, on mb->threads
 * threads: with helpers, each searches a tree of its own from the same root
 * (its share of a simulation budget, or until the deadline or the stop
 * flag), and their statistics for the root's children and grandchildren
 * are added to mb->tree's, which mcts_bot_end then reads. With a
 * simulation budget the result depends on the seed alone, whatever the
 * threads' timing: each helper draws from a generator seeded from b->rng.
 * With a deadline the decision keeps it as one thread does: a helper not
 * done a short grace after the deadline (0.1-1 ms: its thread was not
 * running) is left behind, its root's statistics as of its last snapshot
 * (every 8 simulations) joining the decision, and sits out later decisions
 * until it has ended. clk->sims counts every simulation that joined. */
void mcts_bot_search(mcts_bot *mb, bot *b, bot_clock *clk);

/* Finish a decision: pick the root move, remember a joint plan, fill stats. */
eng_move mcts_bot_end(mcts_bot *mb, bot *b, const void *st, bot_stats *stats);
/* Thinking lines (bot_set_think): tell the sink the root's most visited
 * moves, their values and the most visited line, now; `chosen` (a child of
 * the root, 0: none) is the choice made, told first as the final line. mcts_bot_search and mcts_bot_end call it (the search about every
 * b->think_every_ms, the end once); a bot with a search loop of its own
 * calls mcts_bot_think_tick after its simulations. */
void mcts_bot_think(mcts_bot *mb, bot *b, int64_t iterations, uint32_t chosen);
static inline void mcts_bot_think_tick(mcts_bot *mb, bot *b, int64_t sims)
{
    if (b->think_fn && (sims & 63) == 0 && bot_think_due(b, bot_now_ms()))
        mcts_bot_think(mb, b, sims, 0);
}
void mcts_bot_observe(mcts_bot *mb, bot *b, const void *st, eng_move m);
void mcts_bot_reset(mcts_bot *mb);

#endif
