/*
 * eng.h — the game interface: one const vtable per game, registered by name.
 *
 * Every game in tessera (Carcassonne, Reversi, ...) is a `eng_game`: a const
 * table of function pointers plus the game's declared maxima. Bots, records,
 * the protocol and the server only ever hold a `const eng_game *` and an
 * opaque state buffer of `game->state_size` bytes; they never know which game
 * they play.
 *
 * The model follows OpenSpiel's State API, in C:
 *   - states are fixed-size structs with no pointers, copied with memcpy
 *     (eng_copy); a state holds its own rules, so it is self-contained;
 *   - moves are small non-negative integers written into caller buffers
 *     sized by `max_moves` / `max_chance`;
 *   - current_player() is a seat index, or ENG_CHANCE, or ENG_TERMINAL;
 *   - chance is explicit: chance_outcomes() lists outcomes with their
 *     probabilities, so expectimax can enumerate them and MCTS can sample;
 *   - scores() are the game's points, returns() the final outcome in [0,1];
 *   - evaluate() is a cheap heuristic for any state, used by search bots.
 *
 * A turn is what one seat does at once, as records and the protocol count
 * it: the chance event that starts it, if any (Carcassonne's draw), then
 * every consecutive decision of that seat (Carcassonne: tile placement, then
 * meeple). A turn ends where a chance event, the end of the game or another
 * seat comes next (eng_turn_ends), so a chance outcome that leaves its seat
 * nothing to decide (a tile that fits nowhere) is a turn of its own, without
 * a decision. Each game declares the most decisions a turn holds
 * (turn_decisions); eng_turn_play() checks and plays a whole turn,
 * eng_random_turn() plays a random one. Nothing assumes players alternate.
 *
 * Every game's state struct begins with the `eng_rules` it was created
 * with, so generic code can read the seat count and options of any state
 * (eng_state_rules).
 *
 * No function in a game's vtable allocates memory, and none keeps state
 * between calls: two threads may use the same game on different states.
 */
#ifndef TESSERA_ENGINE_ENG_H
#define TESSERA_ENGINE_ENG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "errors.h"
#include "rng.h"

#define ENG_CHANCE (-1)   /* current_player(): a chance event happens next */
#define ENG_TERMINAL (-2) /* current_player(): the game is over */

#define ENG_MAX_PLAYERS 5  /* the most seats any registered game allows */
#define ENG_MAX_OPTIONS 8  /* the most rule options a game may declare */
#define ENG_MOVE_STR_MAX 48 /* buffer size that fits any move's text form */
#define ENG_GRID_EMPTY (-1) /* grid_cell(): no piece on the cell */
#define ENG_GRID_OFF (-2)   /* grid_cell(): the cell is not on this state's board */
/* The most engine moves one turn holds in any game, chance outcomes included
 * (Carcassonne: draw, placement, meeple = 3): the size of every turn buffer
 * (a protocol move, a record turn, a bot's turn). A game's turn_decisions
 * plus its chance events per turn stay within it (test_conformance). */
#define ENG_MAX_TURN_MOVES 8

typedef int32_t eng_move; /* a move or chance outcome; >= 0; meaning is per game */

/* One rule option a game declares: an integer with a default and a range.
 * Booleans are options with min 0, max 1 (written true/false or 1/0). */
typedef struct eng_option {
    const char *name; /* "tiny_city" */
    const char *help; /* one line for `tessera --help` and `tessera games` */
    int32_t def;      /* default value */
    int32_t min, max; /* inclusive range of accepted values */
    bool boolean;     /* printed and parsed as true/false */
} eng_option;

/* The rules a game is played under: the number of seats and every option.
 * Always filled through eng_rules_default()/eng_rules_set() so every
 * option has a valid value. */
typedef struct eng_rules {
    int32_t players;                  /* number of seats */
    int32_t opt[ENG_MAX_OPTIONS];     /* opt[i] is the value of game->options[i] */
} eng_rules;

typedef struct eng_game eng_game;

struct eng_game {
    /* identity */
    const char *name;  /* registry key, lower case: "carcassonne" */
    const char *title; /* human name: "Carcassonne" */
    /* Version of what this game's move integers mean (>= 1). The server's
     * journal stores moves as these integers with this number beside them:
     * any change to the encoding (a new tile, a reordered move space) must
     * bump it, so that old journals are refused instead of misread. */
    int move_encoding;

    /* declared maxima: size every caller buffer from these */
    int min_players, max_players, default_players;
    size_t state_size; /* bytes of one state; states are memcpy-able */
    int max_moves;     /* most legal moves at any decision */
    int max_chance;    /* most outcomes at any chance node (0 = no chance) */
    int max_plies;     /* most calls to apply() in one game, chance included */
    int turn_decisions; /* most decisions of one seat in one turn (>= 1; Carcassonne 2:
                         * placement, meeple; 1 where a turn is one move) */
    int n_options;
    const eng_option *options;

    /* Optional cross-option check (NULL: every in-range combination is
     * valid). Returns 0 or ENG_EBAD_RULE with a reason in err. */
    int (*check_rules)(const eng_rules *rules, char *err, size_t errcap);

    /* Set up the initial state for `rules` (already validated). */
    void (*init)(void *st, const eng_rules *rules);

    /* Seat to move, ENG_CHANCE or ENG_TERMINAL. */
    int (*current_player)(const void *st);

    /* Legal moves of the seat to move, written to out[0..n), n <= max_moves.
     * Returns n; 0 only at chance or terminal states. Order is deterministic. */
    int (*legal_moves)(const void *st, eng_move *out);

    /* At a chance state: outcomes and their probabilities (summing to 1),
     * n <= max_chance. Returns n; 0 elsewhere. */
    int (*chance_outcomes)(const void *st, eng_move *out, double *prob);

    /* Play a legal move or chance outcome. The caller guarantees legality
     * (check with eng_is_legal() when the move comes from outside); debug
     * builds check it (ENG_CHECKS). */
    void (*apply)(void *st, eng_move m);

    /* The game's points per seat, now (final once terminal). */
    void (*scores)(const void *st, double *out);

    /* Outcome per seat once terminal, in [0,1]: a sole winner gets 1, the k
     * players tied for the best get 1/k each, everybody else 0. */
    void (*returns)(const void *st, double *out);

    /* Cheap heuristic value of the state for `player`, larger is better,
     * in the game's point units (documented per game). */
    double (*evaluate)(const void *st, int player);

    /* Text form of a move in this state (e.g. "V 1 0 1", "d3", "pass");
     * returns the length written (< cap), or a negative error. */
    int (*move_to_str)(const void *st, eng_move m, char *buf, size_t cap);

    /* Parse the text form of a move or chance outcome legal in this state.
     * Returns 0 and sets *m, or ENG_EBAD_MOVE / ENG_EILLEGAL_MOVE. */
    int (*move_from_str)(const void *st, const char *s, eng_move *m);

    /* Draw the board for humans into buf (NUL-terminated, truncated to cap).
     * Returns the length it needed (like snprintf). */
    int (*render)(const void *st, char *buf, size_t cap);

    /* Optional: the seat whose turn st belongs to, also at a chance node
     * inside or at the start of a seat's turn (Carcassonne: the seat that
     * draws, again after a tile that fit nowhere); ENG_TERMINAL at the end.
     * NULL: current_player() (a chance node then belongs to no seat).
     * Callers use eng_turn_seat(). */
    int (*turn_seat)(const void *st);

    /* Optional fast paths (NULL: the generic version in eng.c is used). */
    /* Sample a chance outcome with the probabilities of chance_outcomes(). */
    eng_move (*sample_chance)(const void *st, eng_rng *rng);
    /* A uniformly random legal move of the seat to move. */
    eng_move (*random_move)(const void *st, eng_rng *rng);
    /* eng_playout() in one call: to the end, the very moves the step by
     * step loop would play from the same generator (test_conformance
     * compares the two), without a call through this table per ply. */
    int (*playout)(void *st, eng_rng *rng);
    /* Rate legal moves of the seat to move cheaply, without applying them
     * (higher is better, roughly in the game's points). Used for move
     * ordering, greedy and epsilon-greedy playouts and the heuristic bot.
     * NULL: eng_rate_moves applies each move to a copy and calls evaluate(). */
    void (*rate_moves)(const void *st, const eng_move *moves, int n, double *out);
    /* Optional further evaluations by name (NULL-terminated list, e.g.
     * Carcassonne's "heyden"), computed by evaluate_named(st, player, index). */
    const char *const *eval_names;
    double (*evaluate_named)(const void *st, int player, int which);
    /* Optional: the board as a grid of at most grid_w x grid_h cells, for
     * generic board features (EvoMCTS's square terminals, docs/evomcts.md).
     * grid_cell(st, x, y) is the seat whose piece is on (x, y), ENG_GRID_EMPTY,
     * or ENG_GRID_OFF for a cell outside this state's board (a smaller board
     * size). grid_w == 0 and grid_cell NULL: no grid (Carcassonne). */
    int grid_w, grid_h;
    int (*grid_cell)(const void *st, int x, int y);
};

/* ---- errors -------------------------------------------------------------- */

/* Write a printf-style reason to err (when err and errcap are set) and
 * return code: `return eng_seterr(err, cap, ENG_EBAD_RULE, "...", ...);`.
 * Every layer reports errors this way. */
int eng_seterr(char *err, size_t errcap, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* ---- invariants ------------------------------------------------------------ */

/* ENG_CHECKS is 1 in debug builds (NDEBUG unset) and with -DTESSERA_CHECKS:
 * every game then checks its state's invariants (its quick *_check(), after
 * Edax's board_check) at the top of apply() and legal_moves(), and that the
 * move given to apply() is legal, and aborts naming what broke. Release
 * builds leave the calls out; the tests call the games' deep checks in
 * every build. */
#if !defined(NDEBUG) || defined(TESSERA_CHECKS)
#define ENG_CHECKS 1
#else
#define ENG_CHECKS 0
#endif

/* A state or a move failed its check: print the game, the reason and the
 * place to stderr, then abort(). For the ENG_CHECKS hooks only: a broken
 * invariant is a bug, not an input to recover from. */
_Noreturn void eng_check_failed(const char *game, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* ---- text ------------------------------------------------------------------ */

/* A text written piece by piece into a caller's buffer, as a game's
 * render() writes its board: like snprintf, what does not fit is cut (the
 * buffer always NUL-terminated when cap > 0, and a prefix of the whole
 * text), while len counts the whole text, so render() returns the length
 * it needed. Start with eng_text_start(buf, cap). */
typedef struct {
    char *buf;
    size_t cap, len;
} eng_text;

eng_text eng_text_start(char *buf, size_t cap);
/* Append printf-style text. */
void eng_textf(eng_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- registry ---------------------------------------------------------- */

/* The registered games, in a fixed order; *n receives their number. */
const eng_game *const *eng_games(int *n);
/* The game registered as `name`, or NULL. */
const eng_game *eng_find_game(const char *name);

/* ---- rules ------------------------------------------------------------- */

/* Fill `r` with the game's default seat count and option values. */
void eng_rules_default(const eng_game *g, eng_rules *r);
/* Apply one "key=value" setting ("players=3", "farms=false", "tiny_city=2").
 * Returns 0, or ENG_EBAD_RULE / ENG_EBAD_PLAYERS with a reason in err. */
int eng_rules_set(const eng_game *g, eng_rules *r, const char *kv, char *err, size_t errcap);
/* Set option `name` to `value` (range-checked). */
int eng_rules_set_value(const eng_game *g, eng_rules *r, const char *name, int32_t value,
                        char *err, size_t errcap);
/* Index of option `name` in g->options, or -1. */
int eng_option_index(const eng_game *g, const char *name);
/* Value of option `name` (the default when unknown). */
int32_t eng_rules_get(const eng_game *g, const eng_rules *r, const char *name);

/* ---- helpers over the vtable ------------------------------------------ */

static inline void eng_copy(const eng_game *g, void *dst, const void *src)
{
    __builtin_memcpy(dst, src, g->state_size);
}

/* Is m a legal move (or chance outcome) now? Uses a buffer on the stack. */
bool eng_is_legal(const eng_game *g, const void *st, eng_move m);
/* Sample a chance outcome (fast path if the game has one; inline, as
 * playouts call it every chance node). */
eng_move eng__sample_chance_listed(const eng_game *g, const void *st, eng_rng *rng);
static inline eng_move eng_sample_chance(const eng_game *g, const void *st, eng_rng *rng)
{
    return g->sample_chance ? g->sample_chance(st, rng) : eng__sample_chance_listed(g, st, rng);
}
/* The chance outcome of a game played from a seed (docs/records.md,
 * "Verifiable games"): the k-th chance event of the game (k = 0, 1, ...,
 * counting chance events only) is eng_sample_chance() with a generator
 * freshly seeded by eng_rng_seed_stream(seed, k). Every driver of a game
 * (the tournament runner, the server, `tessera replay --verify`) draws
 * through this, so a game's chance outcomes follow from its seed alone and
 * anyone holding the seed can re-derive them. In Carcassonne the bag evolves
 * independently of the moves, so two games with one seed see the same tiles
 * in the same order. st must be at a chance node. */
eng_move eng_chance_draw(const eng_game *g, const void *st, uint64_t seed, uint64_t k);
/* A uniformly random legal move (fast path if the game has one; inline, as
 * playouts call it every decision). */
eng_move eng__random_move_listed(const eng_game *g, const void *st, eng_rng *rng);
static inline eng_move eng_random_move(const eng_game *g, const void *st, eng_rng *rng)
{
    return g->random_move ? g->random_move(st, rng) : eng__random_move_listed(g, st, rng);
}
/* Index of a named evaluation of g, or -1 if the game has none by that name. */
int eng_eval_index(const eng_game *g, const char *name);
/* Rate moves[0..n) for the seat to move (game's fast path, or apply+evaluate). */
void eng_rate_moves(const eng_game *g, const void *st, const eng_move *moves, int n, double *out);
/* The best-rated legal move, ties broken uniformly at random. */
eng_move eng_greedy_move(const eng_game *g, const void *st, eng_rng *rng);
/* Play uniformly random moves and sampled chance outcomes to the end
 * (eng_sample_chance at chance nodes, eng_random_move at decisions; the
 * game's playout fast path when it has one). Returns the number of plies
 * applied. */
int eng_playout(const eng_game *g, void *st, eng_rng *rng);
/* ---- turns (see the top of this file) ------------------------------------ */

/* Does a turn end with the move just applied? `before` is current_player()
 * of the state the move was applied to, st the state after it: a turn ends
 * where a chance event, the end or another seat comes next. */
static inline bool eng_turn_ends(const eng_game *g, int before, const void *st)
{
    int after = g->current_player(st);
    return after == ENG_CHANCE || after == ENG_TERMINAL || (before >= 0 && after != before);
}
/* The seat whose turn st belongs to (g->turn_seat, else current_player()):
 * a seat, ENG_CHANCE (a chance node of no seat's turn) or ENG_TERMINAL. */
int eng_turn_seat(const eng_game *g, const void *st);
/* Check and play a whole turn of the seat to move in st: moves[0..n) must be
 * its decisions, each legal where it stands, and exactly all of them (the
 * seat is not to move after the last). Returns 0 with st after the turn, or
 * ENG_EILLEGAL_MOVE with a reason in err ("decision 2 of the turn is not a
 * legal move", "the turn stops before the seat's last decision", ...) and st
 * somewhere inside the turn: play on a copy when that matters
 * (eng_turn_check). n may be 0 (refused), moves may be NULL when n is 0. */
int eng_turn_play(const eng_game *g, void *st, const eng_move *moves, int n, char *err,
                  size_t errcap);
/* eng_turn_play() on `scratch` (g->state_size bytes, the caller's), a copy
 * of st, which is not changed. */
int eng_turn_check(const eng_game *g, const void *st, const eng_move *moves, int n, void *scratch,
                   char *err, size_t errcap);
/* Play a uniformly random turn of the seat to move in st (a random legal
 * move at each of its decisions, as eng_random_move) and write its moves to
 * out[0..n) (ENG_MAX_TURN_MOVES entries). Returns n, 0 when no seat is to
 * move (chance or the end). st is left after the turn. */
int eng_random_turn(const eng_game *g, void *st, eng_rng *rng, eng_move *out);

/* The rules a state was created with (every state begins with them). */
static inline const eng_rules *eng_state_rules(const void *st)
{
    return (const eng_rules *)st;
}
/* Number of seats in a state. */
static inline int eng_num_players(const void *st)
{
    return eng_state_rules(st)->players;
}
/* Validate a full rules struct for g (ranges, seat count, check_rules). */
int eng_rules_check(const eng_game *g, const eng_rules *r, char *err, size_t errcap);
/* Initialise `st` (g->state_size bytes) after eng_rules_check(). */
int eng_init(const eng_game *g, void *st, const eng_rules *r, char *err, size_t errcap);

#endif
