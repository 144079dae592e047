/*
 * bot.h — one interface for every bot: created from a spec string, asked
 * for a move under a budget, game-agnostic.
 *
 * A spec names a bot and its options: "mcts:k=0.5,sims=400,reward=scorediff".
 * Every bot accepts the common options below plus its own (see `tessera
 * bots`). A bot is created for one game and plays any seat of it; it keeps
 * whatever it learns between decisions (e.g. a reusable tree) inside its
 * private part.
 *
 * Budgets: a decision stops when its simulation budget is spent, when its
 * wall-clock budget runs out, or when the external stop flag is raised —
 * whichever comes first — and returns the best move found so far. With a
 * simulation budget and a seed a bot is deterministic: the same states give
 * the same moves. Every bot is anytime: even a decision stopped at once
 * returns a legal move.
 *
 * Threads: a bot is used by one thread at a time; different bots may run on
 * different threads at once. Bots never touch sockets or JSON.
 */
#ifndef TESSERA_BOTS_BOT_H
#define TESSERA_BOTS_BOT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/eng.h"

#define BOT_MAX_PARAMS 24     /* most options one bot type declares */
#define BOT_SPEC_MAX 512      /* longest accepted spec string */
#define BOT_INFO_MAX 1024     /* bytes of bot-specific text in bot_stats.info */

typedef enum bot_param_kind {
    BOT_INT,  /* an integer in [min, max] */
    BOT_REAL, /* a real number in [min, max] */
    BOT_ENUM, /* one of `choices`; the value is the index */
    BOT_BOOL, /* true/false (also 1/0, on/off) */
    BOT_LIST, /* a '/'-separated list of reals, e.g. "0.25/0.5/1" (K set) */
    BOT_STR,  /* a text; default empty = unset */
    BOT_FILE, /* a text naming a file the bot reads when it is made (evomcts:eval=FILE):
               * whoever sets it reads that machine's files, so a server lets its admin alone
               * set it (bot_spec_reads_file); parsed as BOT_STR */
} bot_param_kind;

#define BOT_LIST_MAX 16 /* most values in a BOT_LIST option */
#define BOT_STR_MAX  256 /* bytes of a BOT_STR or BOT_FILE value, NUL included */

/* One option a bot type declares. */
typedef struct bot_param {
    const char *name;            /* "k" */
    bot_param_kind kind;
    double def, min, max;        /* default and range (INT, REAL; ENUM/BOOL: def index) */
    const char *const *choices;  /* ENUM: NULL-terminated names */
    const char *def_list;        /* LIST: default text, e.g. "0.25/0.5/1/2/3/5/7/10" */
    const char *help;            /* one line for `tessera bots` */
} bot_param;

/* The value of one option after parsing. */
typedef struct bot_value {
    double v;                    /* INT, REAL, BOOL (0/1), ENUM (index) */
    int n;                       /* LIST: number of values */
    double list[BOT_LIST_MAX];   /* LIST: the values */
    char str[BOT_STR_MAX];       /* STR, FILE: the text ("" = unset) */
} bot_value;

/* What one decision may spend, on top of the spec's own sims=/ms=. Each
 * limit set here caps the spec's limit of the same kind (the smaller wins);
 * zero means "no limit of this kind from the caller". When neither the spec
 * nor the caller limits simulations and the spec sets no time, the bot's
 * default simulation budget applies — unless `cap_only` is false and the
 * caller gives a time, in which case the bot thinks for that whole time. */
typedef struct bot_budget {
    int64_t sims;                /* simulations (playouts) */
    int64_t ms;                  /* wall-clock milliseconds */
    bool cap_only;               /* ms only caps the spec's budget (server deadlines) */
    const atomic_bool *stop;     /* raised by another thread to stop now; may be NULL */
} bot_budget;

/* What one decision did. */
typedef struct bot_stats {
    int64_t sims;                /* simulations run */
    double ms;                   /* wall-clock time used */
    int64_t nodes;               /* tree nodes / positions searched */
    size_t mem_bytes;            /* search memory used (arena) */
    bool mem_full;               /* the arena filled up (search kept simulating) */
    double value;                /* estimated value of the chosen move (bot's reward units) */
    /* Every seat's mean reward over the search's simulations, values[0..nvalues)
     * (the MCTS family: nvalues = the game's seats; 0 for a bot that tells
     * none). What the analysis of games of three or more seats reads
     * (docs/analysis.md): the mover's `value` alone says nothing of the others. */
    int nvalues;
    double values[ENG_MAX_PLAYERS];
    char info[BOT_INFO_MAX];     /* bot-specific text, e.g. the evolved formula in infix */
} bot_stats;

typedef struct bot bot;

/* ---- thinking lines: what a search considers, for people watching ---------
 * A bot given a sink (bot_set_think) tells it, while it searches and once
 * with its final choice, its best candidates and line (the MCTS family
 * does; a bot that tells nothing is fine). The sink turns them into the
 * protocol's info (players/, protocol/info.h): bots never touch JSON. */
#define BOT_THINK_CANDS 8  /* candidates told: the protocol's INFO_MAX_CANDIDATES */
#define BOT_THINK_PV    16 /* decisions of the principal variation told */

enum bot_value_kind {
    BOT_VALUE_NONE,      /* the values are in a unit of the bot's own (no score, no probability) */
    BOT_VALUE_SCOREDIFF, /* the mover's expected final score difference */
    BOT_VALUE_WINLOSS,   /* the mover's mean of +1 win, 0 tie, -1 loss */
};

typedef struct bot_think_cand {
    eng_move moves[ENG_MAX_TURN_MOVES]; /* the decision, then the same seat's next ones the
                                         * search prefers in the same turn (Carcassonne: the
                                         * meeple after the placement) */
    int nmoves;
    int64_t visits;
    double value; /* mean reward of the mover (value_kind) */
} bot_think_cand;

typedef struct bot_think {
    const void *st;      /* the position searched (the decision's), borrowed */
    int value_kind;      /* enum bot_value_kind */
    bool has_value;      /* value: the best candidate's, as candidates' */
    double value;
    bot_think_cand cand[BOT_THINK_CANDS]; /* most visited first */
    int ncand;
    eng_move pv[BOT_THINK_PV]; /* the most visited line from st, decision by decision, up to
                                * the first chance event */
    int npv;
    int64_t iterations; /* simulations so far */
    int64_t nodes;      /* tree nodes */
    double elapsed_ms;  /* since the decision began */
    bool final;         /* the choice made: the last of the decision */
} bot_think;

typedef void (*bot_think_fn)(void *user, const bot_think *t);

/* A bot type: the vtable every bot file exports. */
typedef struct bot_type {
    const char *name;            /* spec name: "mcts" */
    const char *summary;         /* one line for `tessera bots` */
    const bot_param *params;     /* its own options (the common ones are added by bot.c) */
    int nparams;

    /* Allocate private state after the options are parsed (b->impl).
     * Returns 0 or a negative error with a reason in err. */
    int (*init)(bot *b, char *err, size_t errcap);
    /* Choose a move for the seat to move in `st` (never chance/terminal).
     * Must return a legal move, whatever the budget. Fills *stats. */
    eng_move (*choose)(bot *b, const void *st, const bot_budget *budget, bot_stats *stats);
    /* A move (or chance outcome) m is about to be applied to `st` in the game
     * this bot plays, by anyone. Lets a bot keep its tree between turns.
     * Optional; callers report every move of the game, in order. */
    void (*observe)(bot *b, const void *st, eng_move m);
    /* Forget everything learned during a game (tree reuse), keep options. Optional. */
    void (*reset)(bot *b);
    /* Free private state. Optional. */
    void (*close)(bot *b);
} bot_type;

/* A bot instance. Fields are read-only outside bots/. */
struct bot {
    const bot_type *type;
    const eng_game *game;
    char spec[BOT_SPEC_MAX];         /* the spec as given */
    bot_value val[BOT_MAX_PARAMS];   /* own options, in type->params order */
    int64_t sims;                    /* common option sims= (0 = unset) */
    int64_t ms;                      /* common option ms= (0 = unset) */
    int64_t mem_mb;                  /* common option mem=: arena size per search, MiB */
    uint64_t seed;                   /* seed of rng (option seed= or the creator's) */
    eng_rng rng;                     /* the bot's own random stream */
    void *impl;                      /* private to the bot type */
    bot_think_fn think_fn;           /* thinking lines' sink (bot_set_think); NULL: none */
    void *think_user;
    double think_every_ms;           /* between two while it searches */
    double think_last_ms;            /* when the last was told (bot_now_ms) */
};

/* The options every bot takes besides its own (sims, ms, seed, mem). */
const bot_param *bot_common_params(int *n);
/* The registered bot types; *n receives their number. */
const bot_type *const *bot_types(int *n);
const bot_type *bot_find_type(const char *name);

/* Create a bot for game g from a spec. `seed` seeds its RNG unless the spec
 * has seed=. Returns NULL with a reason in err (unknown bot, unknown option,
 * bad value: "mcts: option 'k' needs a number from 0 to 100, got 'x'"). */
bot *bot_create(const char *spec, const eng_game *g, uint64_t seed, char *err, size_t errcap);
/* The same, with the reason's code in *code when it fails: ENG_EUNKNOWN_BOT,
 * ENG_EBAD_BOT_SPEC, or ENG_ENOMEM (the search's memory could not be had). */
bot *bot_create_code(const char *spec, const eng_game *g, uint64_t seed, int *code, char *err,
                     size_t errcap);
/* Check a spec without keeping the bot. Returns 0 or ENG_EUNKNOWN_BOT /
 * ENG_EBAD_BOT_SPEC with the reason in err. Making the bot reads the files
 * its BOT_FILE options name: see bot_spec_reads_file first
 * when the spec comes from someone who may not read them. */
int bot_check_spec(const char *spec, const eng_game *g, char *err, size_t errcap);
/* Does the spec set an option of kind BOT_FILE? 1, with the
 * first such option's name copied into opt (cap bytes, truncated; opt may
 * be NULL), else 0 — also for a spec that is unreadable or names no known
 * bot or option (making such a bot fails before any file is read). Reads
 * nothing but the text: safe on any input, spec may be NULL. */
int bot_spec_reads_file(const char *spec, char *opt, size_t cap);
/* The search threads a spec asks for (option threads= of the MCTS family):
 * its value, or 1 when the spec sets none, names no bot with the option, or
 * does not parse (making such a bot fails anyway). Reads nothing but the
 * text: a server checks it against what its operator allows before it
 * makes an in-process bot. spec may be NULL. */
int bot_spec_threads(const char *spec);
/* 0 when the spec asks for at most max search threads, else
 * ENG_EBAD_BOT_SPEC with "threads=N: ..." in err: what a server allows a
 * client's bot (its limits.bot_threads), so that one seat cannot take every
 * core. */
int bot_check_threads(const char *spec, int max, char *err, size_t errcap);
void bot_destroy(bot *b);

/* Decide. `budget` may be NULL (use the spec's sims=/ms=, or the type's
 * default); fields set in it override the spec. stats may be NULL. */
eng_move bot_choose(bot *b, const void *st, const bot_budget *budget, bot_stats *stats);
/* A whole turn a bot chose (bot_choose_turn). */
typedef struct bot_turn {
    eng_move moves[ENG_MAX_TURN_MOVES]; /* the seat's decisions, in order */
    int n;                              /* how many */
    bool illegal;           /* moves[n-1] is a move the rules refuse (a bug in the bot) */
    int64_t first_budget_ms; /* the time cap of the first decision */
    bot_stats stats;        /* sims, nodes and ms summed over the decisions; info of the
                             * last decision that gave one; mem_bytes the largest */
} bot_turn;

/* Choose a whole turn for the seat to move in st: every consecutive
 * decision of that seat (Carcassonne: the placement, then the meeple), each
 * a bot_choose() whose time is capped by what is left until end_ms
 * (bot_now_ms() clock; never less than 1 ms) and which `stop` (may be NULL)
 * ends early. st is the caller's private copy: each decision is applied to
 * it, so it ends after the turn. Returns 0, or ENG_EILLEGAL_MOVE when the
 * bot chose a move the rules refuse: that move is the last of out->moves
 * (out->illegal) and is not applied. The bot does not observe its own
 * moves here: its caller reports every move of the game (bot_observe). */
int bot_choose_turn(bot *b, void *st, double end_ms, const atomic_bool *stop, bot_turn *out);
/* Tell fn(user, ...) what the bot considers while it decides: about every
 * every_ms of a search (at most) and once with each decision's choice.
 * Called on the deciding thread, inside bot_choose. fn NULL: nothing (the
 * default; a search then costs nothing more). */
void bot_set_think(bot *b, bot_think_fn fn, void *user, double every_ms);
/* For bots/: is a thinking line due at now_ms (a sink, and every_ms since
 * the last)? */
bool bot_think_due(const bot *b, double now_ms);
/* For bots/: tell the sink (when there is one) and note the time. */
void bot_think_tell(bot *b, const bot_think *t);
/* Report a move about to be applied to st in the game (every move, in order,
 * chance outcomes included). Cheap; bots without tree reuse ignore it. */
void bot_observe(bot *b, const void *st, eng_move m);
/* Start a new game (drops reusable trees). */
void bot_reset(bot *b);

/* Value of one of the bot's own options by name. The name must be one of
 * its type's params: anything else is a bug in the bot's code, and the
 * process aborts with a message naming the bot and the option (in every
 * build type, never a silent 0.0). */
double bot_opt(const bot *b, const char *name);
/* The same as a bot_value (for lists), or NULL when the type has no option
 * of that name — for options a type may or may not declare. */
const bot_value *bot_opt_value(const bot *b, const char *name);

/* Write the spec of a bot with every option spelled out (defaults included)
 * into buf; returns the length. */
int bot_describe(const bot *b, char *buf, size_t cap);
/* Print the catalogue (every type, its options and defaults) — `tessera bots`. */
int bot_catalogue(char *buf, size_t cap);

/* ---- the budget clock, shared by all bots -------------------------------- */

/* Monotonic milliseconds. */
double bot_now_ms(void);

typedef struct bot_clock {
    double start_ms;     /* when the decision started */
    double end_ms;       /* deadline (infinite when no ms budget) */
    int64_t max_sims;    /* simulation budget (INT64_MAX when none) */
    const atomic_bool *stop;
    int64_t sims;        /* simulations done so far */
} bot_clock;

/* Start a clock for a budget, applying the bot's spec defaults and
 * `default_sims` when neither the budget nor the spec sets a limit. */
void bot_clock_start(bot_clock *c, const bot *b, const bot_budget *budget, int64_t default_sims);
/* Should the search stop now (budget spent, deadline passed, or stop raised)? */
bool bot_clock_done(bot_clock *c);

#endif
