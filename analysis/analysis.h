/*
 * analysis.h — the analysis of a finished game (docs/analysis.md): every
 * position of a record searched again by a strong bot, the mover's expected
 * final score difference and win probability, the turn the search prefers,
 * the value of the turn played, the turns that lost the most marked
 * inaccuracy / mistake / blunder, and, where the game has chance
 * (Carcassonne's draw), the value before the draw taken as the expectation
 * over every tile the bag could give, so that each player's result splits
 * into luck (the tiles drawn) and skill (the turns played).
 *
 * The module prints nothing and knows no sockets: `tessera analyze`
 * (cli/cmd_analyze.c) and the server's `analyze` message run it and write
 * its outputs (JSON, Markdown, SVG) where they belong. It reads records with
 * protocol/record.h, so a bad record gets the same code, turn and reason as
 * `tessera replay`, and uses the bots only through bots/bot.h.
 *
 * Two to five seats: with more than two, each seat's values are its own
 * (own score minus the best of the others'; first or not).
 *
 * Deterministic: the same record, options and seed give the same report
 * (times aside) when the search's budget is in simulations.
 */
#ifndef TESSERA_ANALYSIS_ANALYSIS_H
#define TESSERA_ANALYSIS_ANALYSIS_H

#include <jansson.h>
#include <stdatomic.h>
#include <stdint.h>

#include "protocol/record.h"

/* The search when none is given: the MCTS of `tessera bots` at the default
 * simulations below. The analysis sets the reward itself (two searches a
 * position, one with reward=scorediff for the score, one with
 * reward=winloss for the win probability), so a spec may not set it. */
#define ANA_DEFAULT_BOT "mcts"
/* Simulations of each search of a played position when the spec sets
 * neither sims= nor ms=: about 30 ms a search on one core in Carcassonne
 * and Reversi (docs/analysis.md has the measured wall time per game). */
#define ANA_DEFAULT_SIMS 2000
/* Simulations of each search under a chance expectation (one per tile type
 * the bag could give, ~20 in Carcassonne): a quarter of the main budget by
 * default, as their average is what counts. */
#define ANA_DEFAULT_CHANCE_DIV 4

/* Thresholds on the drop of the mover's win probability, the search's
 * preferred turn against the turn played: half the chess sites' 10, 20 and
 * 30 points, as win rates of random playouts pull every position toward
 * even (a corner given away in the middle of a Reversi game reads as 15 to
 * 25 points; docs/analysis.md). */
#define ANA_DROP_INACCURACY 0.05
#define ANA_DROP_MISTAKE 0.10
#define ANA_DROP_BLUNDER 0.15
/* A turn whose drop reaches a threshold is searched again with this many
 * times the budget (both positions, after the best and the played turn)
 * before it is marked: the noise of one search is a few points. */
#define ANA_CHECK_FACTOR 4

/* How the search runs. Zeroed fields take the defaults. */
typedef struct ana_opts {
    const char *bot;          /* search spec without reward= (NULL: ANA_DEFAULT_BOT) */
    uint64_t seed;            /* the searches' seed unless the spec sets seed= */
    int64_t sims;             /* per search of a played position (0: the spec's, else default) */
    int64_t chance_sims;      /* per search under a chance expectation (0: sims / 4) */
    const atomic_bool *stop;  /* raised by another thread: stop with ENG_EINVAL soon; may be NULL */
    /* Called after each turn is analysed (may be NULL): progress for a user. */
    void (*progress)(void *ud, int turn, int turns);
    void *progress_ud;
} ana_opts;

typedef struct ana_report ana_report;

/* Analyse record `rec` (borrowed). Returns 0 and *out (ana_free), or a
 * negative code with why->bad_turn and why->reason filled (why may be NULL):
 * the record's own faults as rec_replay_json reports them; ENG_EUNKNOWN_BOT /
 * ENG_EBAD_BOT_SPEC for a search spec that cannot be made, sets reward=,
 * or (three or more seats) tells no value per seat (bot_stats.values);
 * ENG_EINVAL when stopped; ENG_ENOMEM. */
int ana_run(const json_t *rec, const ana_opts *o, ana_report **out, rec_replay *why);
void ana_free(ana_report *r);

/* The report as JSON (new reference; NULL on no memory): per turn and per
 * player, the layout docs/analysis.md describes ("format":
 * "tessera-analysis"). Write it with ANA_JSON_FLAGS among json_dumps'
 * flags: its reals have no more digits than a search can tell (0.05, not
 * 0.050000000000000003). */
#define ANA_JSON_FLAGS JSON_REAL_PRECISION(7)
json_t *ana_json(const ana_report *r);
/* The Markdown summary (malloc'd; NULL on no memory). */
char *ana_markdown(const ana_report *r);
/* The SVG win-probability graph (malloc'd; NULL on no memory). */
char *ana_svg(const ana_report *r);

/* The sums docs/analysis.md defines. For every seat p, in p's own points
 * (p's final score minus the best of the others'; with two seats, the
 * score difference):
 *   seat_luck[p] + seat_skill[p] = seat_final[p]
 * where seat_luck[p] is the first position's value for p plus every draw's
 * change of p's value (p's own draws and the others'), seat_skill[p] every
 * turn's change of p's value after its draw (p's turns and the others').
 * seat_final[p] is the value of the last position when the record stops
 * before the end. luck[p] and skill[p] are the parts of p's own turns. The
 * unsuffixed totals are seat 0's, as the two-seat reports give them. */
typedef struct ana_sums {
    int players;
    double start;             /* value of the first position for seat 0 (who moves first) */
    double luck[ENG_MAX_PLAYERS], skill[ENG_MAX_PLAYERS]; /* each seat's own turns, its points */
    double luck_total;        /* seat_luck[0] (two seats: start + luck[0] - luck[1]) */
    double skill_total;       /* seat_skill[0] (two seats: skill[0] - skill[1]) */
    double final;             /* seat_final[0] */
    double seat_start[ENG_MAX_PLAYERS], seat_luck[ENG_MAX_PLAYERS];
    double seat_skill[ENG_MAX_PLAYERS], seat_final[ENG_MAX_PLAYERS];
    int marks[ENG_MAX_PLAYERS][3]; /* per seat: inaccuracies, mistakes, blunders */
} ana_sums;
void ana_get_sums(const ana_report *r, ana_sums *out);

#endif
