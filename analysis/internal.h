/*
 * internal.h — private to analysis/: the report that analysis.c fills and
 * report.c writes out (JSON, Markdown, SVG). Values are kept in seat 0's
 * view (score difference seat 0 minus seat 1, seat 0's win probability);
 * report.c turns them to the mover's view where a reader wants that.
 */
#ifndef TESSERA_ANALYSIS_INTERNAL_H
#define TESSERA_ANALYSIS_INTERNAL_H

#include <stdbool.h>

#include "analysis.h"
#include "bots/bot.h"

#define ANA_TEXT_MAX 160 /* a turn's moves as text: at most ENG_MAX_TURN_MOVES moves */

/* A position's value for seat 0. */
typedef struct ana_val {
    double diff; /* expected final score difference, seat 0 minus seat 1 */
    double win;  /* seat 0's win probability, a tie counting half */
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
    double scores[2];       /* scores after the last turn */
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
