/*
 * tgp.h — private to bots/: strongly typed GP expressions, the evolved board
 * evaluations of EvoMCTS ([EvoMCTS paper](../docs/references.md#evomcts),
 * §V; docs/evomcts.md).
 *
 * An expression returns a number (how good a state is for one player, the
 * "friendly" one) and is built from two types, floating point (F) and
 * boolean (B), as in Montana's strongly typed GP:
 *   terminals  ERC (a constant drawn from [-5, 5] when created), Zero, One
 *              (F); True, False (B); the game's features (F, below); the
 *              square predicates IsEmptySquare, IsFriendlyPiece,
 *              IsManPiece (B), each with its square (x, y) fixed when the
 *              node is created — only for games with a board grid;
 *   functions  AND, NAND, NOR, OR (B,B -> B); NOTG (B,B -> B: not of the
 *              first, the second an explicit intron); LowerEqual (F,F -> B);
 *              IfTrue (B,F,F -> F); Plus, Minus (F,F -> F); MultERC (F -> F,
 *              times a constant drawn from [-5, 5] when created); NullJ
 *              (F,F -> F: the first, the second an explicit intron).
 * Introns (the second operand of NOTG and NullJ) and the branch IfTrue does
 * not take are never evaluated.
 *
 * Features come from the game's named evaluations (eng.h eval_names /
 * evaluate_named): a name ending in "Count" gives three terminals,
 * Friendly<Name>, Enemy<Name> and <Name> (the difference); "Mobility" gives
 * Mobility (the friendly value); other names are not used. With more than
 * two players "enemy" is the best value among the other seats.
 *
 * Every F node carries a factor (1 when created) multiplying its value: the
 * paper's local mutation changes a factor a little.
 *
 * Storage: prefix order in one fixed array, without pointers; each node
 * knows where its subtree ends. Depth: the root is at depth 0 and a tree's
 * depth is its deepest node's (the paper's maximum is 15).
 *
 * Text form (tgp_print, tgp_parse): Name(child, ...) with bracketed
 * parameters, numbers for ERCs and a factor as a "*f" suffix, e.g.
 *   Plus(Minus(FriendlyManCount(), EnemyManCount())*1.05,
 *        IfTrue(IsFriendlyPiece[0,0](), MultERC[2.5](Mobility()), -0.75))
 * Whitespace is free; a parse error names the line and column but never
 * echoes the text (an evaluation file may come from a remote bot spec).
 */
#ifndef TESSERA_BOTS_TGP_H
#define TESSERA_BOTS_TGP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/eng.h"

#define TGP_MAX_NODES     512   /* nodes of one expression (bounds bloat and memory) */
#define TGP_DEPTH_LIMIT   24    /* deepest tree accepted anywhere (parser recursion) */
#define TGP_DEFAULT_DEPTH 15    /* the paper's maximum depth */
#define TGP_MAX_TERMS     36    /* feature terminals of one game (12 names x 3) */
#define TGP_ERC_RANGE     5.0   /* ERC and MultERC constants are drawn from [-5, 5] */
#define TGP_LOCAL_STEP    0.1   /* local mutation: factor += U(-0.1, 0.1) */
#define TGP_MUT_DEPTH     4     /* subtree mutation grows at most this deep */
#define TGP_TEXT_MAX      65536 /* the longest expression text read or written */

enum tgp_type { TGP_F = 0, TGP_B = 1 };

enum tgp_op {
    /* terminals */
    TGP_ERC,
    TGP_ZERO,
    TGP_ONE,
    TGP_FEATURE, /* a = index into tgp_set.term */
    TGP_TRUE,
    TGP_FALSE,
    TGP_EMPTY_SQ, /* a, b = x, y */
    TGP_FRIENDLY_SQ,
    TGP_MAN_SQ,
    /* functions */
    TGP_AND,
    TGP_LE,
    TGP_NAND,
    TGP_NOR,
    TGP_NOTG,
    TGP_OR,
    TGP_IF,
    TGP_MINUS,
    TGP_MULTERC,
    TGP_NULLJ,
    TGP_PLUS,
    TGP_NOPS,
};

typedef struct tgp_node {
    uint8_t op;   /* enum tgp_op */
    uint8_t a, b; /* FEATURE: term index; squares: x, y */
    uint8_t pad;
    uint16_t end; /* one past the last node of this subtree */
    uint16_t pad2;
    double k;      /* ERC value, MultERC constant */
    double factor; /* F nodes: multiplies the value (1 when created) */
} tgp_node;

typedef struct tgp_expr {
    uint16_t n;                   /* nodes in use, >= 1 */
    tgp_node node[TGP_MAX_NODES]; /* prefix order; node[0] is the root */
} tgp_expr;

/* A feature terminal: the game's named evaluation `eval`, for the friendly
 * seat (who 0), the enemy (1) or their difference (2). */
typedef struct tgp_term {
    char name[48]; /* "FriendlyManCount" */
    int eval;      /* index into the game's eval_names */
    int who;
} tgp_term;

/* The terminal set of one game. */
typedef struct tgp_set {
    const eng_game *g;
    int nterm;
    tgp_term term[TGP_MAX_TERMS];
    int grid_w, grid_h; /* 0: no square predicates */
} tgp_set;

/* The game's terminal set (see above). */
void tgp_set_init(tgp_set *s, const eng_game *g);

/* Value of e for `me` in state st. Never NaN for a checked expression. */
double tgp_eval(const tgp_expr *e, const tgp_set *s, const void *st, int me);

/* Recompute every node's `end` after building e by hand; returns the
 * tree's depth, or -1 when the nodes are not exactly one well-typed tree
 * of type F. */
int tgp_fix(tgp_expr *e);
/* Is e one well-formed, well-typed F tree of at most max_depth with
 * parameters valid for s and finite constants? */
bool tgp_check(const tgp_expr *e, const tgp_set *s, int max_depth);
int tgp_depth(const tgp_expr *e);

/* e := a random F tree of depth at most `depth` (exactly `depth` on every
 * branch when full: Koza's full method; else grow). */
void tgp_random(tgp_expr *e, const tgp_set *s, eng_rng *rng, int depth, bool full);
/* e := the constant Zero(). */
void tgp_zero(tgp_expr *e);

/* Mutation of a node chosen uniformly: an F node is, with probability
 * p_local, given a local mutation of its factor; otherwise its subtree is
 * replaced by a random grown one of the same type (at most TGP_MUT_DEPTH
 * deep, the tree staying within max_depth and TGP_MAX_NODES). Returns true
 * for a local mutation. */
bool tgp_mutate(tgp_expr *e, const tgp_set *s, eng_rng *rng, int max_depth, double p_local);
/* One-way crossover: a copy of a random subtree of donor replaces a random
 * subtree of the same type in recv (limits kept). False when no pair fits
 * (recv unchanged). */
bool tgp_cross_one_way(const tgp_expr *donor, tgp_expr *recv, eng_rng *rng, int max_depth);
/* Two-way crossover: a and b swap random subtrees of the same type. */
bool tgp_cross_two_way(tgp_expr *a, tgp_expr *b, eng_rng *rng, int max_depth);

/* Text form into buf (NUL-terminated, truncated to cap); returns the
 * length it needed, like snprintf. */
int tgp_print(const tgp_expr *e, const tgp_set *s, char *buf, size_t cap);
/* Parse the text form for s (names, parameters and types checked). Returns
 * 0, or ENG_EINVAL with "line L, column C: what is wrong" in err. */
int tgp_parse(tgp_expr *e, const tgp_set *s, const char *text, char *err, size_t errcap);

#endif
