/*
 * internal.h — private to analysis/: the report that analysis.c fills and
 * report.c writes out (JSON, Markdown, SVG). A value is kept for every
 * seat in its own view (ana_val); with two seats the second is the mirror
 * of the first, so seat 0's figures are those of the two-seat reports.
 */
#ifndef TESSERA_ANALYSIS_INTERNAL_H
#define TESSERA_ANALYSIS_INTERNAL_H

#include <stdbool.h>

#include "analysis.h"
#include "bots/bot.h"

#define ANA_TEXT_MAX 160 /* a turn's moves as text: at most ENG_MAX_TURN_MOVES moves */

/* A position's value for every seat, each in its own view: with two seats
 * diff[1] = -diff[0] and win[1] = 1 - win[0]; with more, each seat's own
 * figures (docs/analysis.md, "Three to five seats"). */
typedef struct ana_val {
    double diff[ENG_MAX_PLAYERS]; /* expected final score minus the best of the others' */
    double win[ENG_MAX_PLAYERS];  /* probability of finishing first, a tie for first half */
} ana_val;

enum ana_mark { ANA_NONE = 0, ANA_INACC, ANA_MISTAKE, ANA_BLUNDER };

typedef struct ana_turn {
    int seat;               /* whose turn (eng_turn_seat of its first position) */
    bool chance;            /* it starts with a chance outcome (a draw) */
    bool decision;          /* the seat decided something (not a dead tile) */
    ana_val before;         /* at the turn's start: before the draw, the bag's expectation */
    ana_val drawn;          /* after the draw, with the search's best turn (= before without chance) */
    ana_val after;          /* after the turn played (= the next turn's before) */
    ana_val best_after;     /* after the turn preferred, valued as `after` is (= after when same) */
    ana_val played_after;   /* after the turn played: `after`, or its value checked again */
    bool checked;           /* a candidate mark: best_after and played_after searched again */
    char draw[ENG_MOVE_STR_MAX];  /* the chance outcome's text ("" without) */
    char played[ANA_TEXT_MAX];    /* the decisions played, as text */
    char best[ANA_TEXT_MAX];      /* the search's preferred decisions, as text */
    json_t *played_move;    /* the protocol move played (NULL: no decision) */
    json_t *best_move;      /* the protocol move preferred (NULL: no decision) */
    bool same;              /* the turn played is the one preferred */
    double loss_win;        /* the mover's drop in win probability, best_after to played_after (>= 0) */
    double loss_diff;       /* the same in points */
    int mark;               /* enum ana_mark */
} ana_turn;

struct ana_report {
    const eng_game *game;
    eng_rules rules;
    bool finished;          /* the record reaches the end of the game */
    int players;            /* seats (rules.players) */
    double scores[ENG_MAX_PLAYERS]; /* scores after the last turn */
    int nturns;
    ana_turn *turns;        /* nturns entries */
    ana_val start;          /* the first position's value */
    ana_val end;            /* the last position's (exact when finished) */
    char score_spec[BOT_SPEC_MAX + 32]; /* the searches run, as specs */
    char win_spec[BOT_SPEC_MAX + 32];
    int64_t sims, chance_sims;          /* per search (played positions; expectations) */
    uint64_t seed;
    int64_t searches;       /* searches run in all */
    double ms;              /* wall time of the analysis */
};

#endif
