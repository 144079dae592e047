/*
 * gp.h — private to bots/: the GP expressions that EA-p-MCTS, EA-MCTS and
 * SIEA-MCTS evolve to replace the UCT selection formula (SIEA-MCTS paper
 * §V-A, ES-MCTS paper §IV-A; docs/references.md).
 *
 * An expression is a tree over the terminals {Q(s,a), N(s), N(s,a), K} and
 * the functions {+, -, *, /, log, sqrt}, stored in one fixed-size struct in
 * prefix order (a node is followed by its operands' subtrees), without
 * pointers or heap memory: copying an expression is a memcpy and a
 * population is an array. Constants are K nodes carrying their own value, so
 * the UCT seed's 2 and its K are both K nodes.
 *
 * Height: a lone terminal has height 0, an operator one more than its
 * tallest operand; a node's depth is its distance from the root. "Maximum
 * depth 8" means no node deeper than 8, i.e. height <= 8.
 *
 * Protected arithmetic (the papers' rules, plus what they leave open):
 *   a / b     = 1 when |b| < 0.001, else a / b          (as published)
 *   log(x)    = ln(max(|x|, 0.001))                      (|x| as published; the
 *               floor is ours: log(0) = ln 0.001 = -6.9, never -inf)
 *   sqrt(x)   = sqrt(|x|)                                (as published)
 * and every node's result saturates at +-GP_BIG, so products of large
 * visit counts cannot overflow: no evaluation ever yields inf or NaN.
 *
 * Text form (gp_to_infix, gp_parse): ordinary infix with the fewest
 * parentheses that keep the tree exact under the usual precedence
 * (* and / bind tighter than + and -, all left-associative): the right
 * operand is parenthesised when its precedence is not higher than the
 * operator's, the left one when it is lower. Terminals print as Q, N, Nj;
 * constants with the fewest digits that read back to the same double.
 * The seed prints as "Q + 2 * 1.41421356 * sqrt(2 * log(N) / Nj)".
 */
#ifndef TESSERA_BOTS_GP_H
#define TESSERA_BOTS_GP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/rng.h"

#define GP_MAX_DEPTH      10                              /* largest max_depth accepted */
#define GP_MAX_NODES      ((1 << (GP_MAX_DEPTH + 1)) - 1) /* a full binary tree of that height */
#define GP_SUB_MAX_HEIGHT 3                               /* subtree mutation inserts height 1..3 */
#define GP_PROTECT        0.001 /* |divisor| below this gives 1; log's floor on |x| */
#define GP_BIG            1e150 /* saturation bound: GP_BIG^2 is still a finite double */
#define GP_UCT_HEIGHT     6     /* height of the seeded UCT tree */

enum gp_op {
    GP_Q,   /* terminal Q(s,a): the child's mean reward */
    GP_N,   /* terminal N(s): the parent's visits */
    GP_NJ,  /* terminal N(s,a): the child's visits */
    GP_K,   /* terminal constant (value in gp_expr.k) */
    GP_ADD, /* binary */
    GP_SUB,
    GP_MUL,
    GP_DIV,  /* protected */
    GP_LOG,  /* unary, protected */
    GP_SQRT, /* unary, protected */
    GP_NOPS,
};
#define GP_NTERMINALS 4 /* GP_Q..GP_K */
#define GP_NFUNCTIONS 6 /* GP_ADD..GP_SQRT */

typedef struct gp_expr {
    uint16_t n;               /* nodes in use, 1..GP_MAX_NODES */
    uint8_t op[GP_MAX_NODES]; /* enum gp_op, prefix order; op[0] is the root */
    double k[GP_MAX_NODES];   /* value of GP_K nodes (unused elsewhere) */
} gp_expr;

/* What one mutation did (for tests and statistics). */
typedef struct gp_mutation {
    int at;     /* index of the replaced node (before mutation) */
    int depth;  /* its depth */
    bool leaf;  /* it was a terminal */
    int height; /* height of the inserted subtree, 1..GP_SUB_MAX_HEIGHT */
} gp_mutation;

/* Arity of an operator: 0, 1 or 2. */
int gp_arity(int op);

/* The protected operators, exactly as gp_eval applies them (before
 * saturation). Finite for finite input. */
double gp_pdiv(double a, double b);
double gp_plog(double x);
double gp_psqrt(double x);

/* Value of e for a child with mean reward q, parent visits n and child
 * visits nj. Always finite, in [-GP_BIG, GP_BIG]. */
double gp_eval(const gp_expr *e, double q, double n, double nj);
/* gp_eval with the mcts_score_fn signature (ud is a const gp_expr *). */
double gp_score(void *ud, double q, double n, double nj);

/* e := the UCT formula of the SIEA-MCTS paper, Eq. 1, Q + 2K sqrt(2 ln N / Nj), with
 * K = k (height GP_UCT_HEIGHT, 13 nodes). */
void gp_seed_uct(gp_expr *e, double k);

/* dst := src (copies only the nodes in use). */
void gp_copy(gp_expr *dst, const gp_expr *src);

/* Height of the tree (a terminal alone: 0); -1 if malformed. */
int gp_height(const gp_expr *e);
/* Is e one well-formed tree of e->n nodes with known operators, finite
 * constants and height <= max_depth? */
bool gp_check(const gp_expr *e, int max_depth);

/* Subtree mutation (SIEA-MCTS paper, Table I): pick an internal node with
 * probability p_internal, else a leaf, uniformly among those of depth
 * <= max_depth - 1 (taking the other kind when none qualifies), and
 * replace it by a random full tree of height h, uniform in
 * 1..min(GP_SUB_MAX_HEIGHT, max_depth - depth): operators uniform over the
 * six functions, terminals uniform over the four, a new constant's value
 * uniform over kset[0..nk). The result never exceeds max_depth if e did not.
 * Requires 1 <= max_depth <= GP_MAX_DEPTH, nk >= 1, gp_height(e) <= max_depth. */
gp_mutation gp_mutate(gp_expr *e, eng_rng *rng, const double *kset, int nk, int max_depth,
                      double p_internal);

/* Write e in infix (see above) into buf, NUL-terminated and truncated to
 * cap (a truncated text ends in "..."). Returns the full length it needed,
 * like snprintf. */
int gp_to_infix(const gp_expr *e, char *buf, size_t cap);

/* Parse the infix form (numbers, Q, N, Nj, + - * /, log(), sqrt(),
 * parentheses; spaces anywhere) into e. Returns 0, or -1 on a syntax error
 * or a tree larger than GP_MAX_NODES / deeper than GP_MAX_DEPTH. */
int gp_parse(gp_expr *e, const char *s);

#endif
