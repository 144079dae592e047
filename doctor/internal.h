/*
 * internal.h — private to doctor/: special positions and the scenarios
 * that find them (scenarios.c), for the checks of doctor.c.
 */
#ifndef TESSERA_DOCTOR_INTERNAL_H
#define TESSERA_DOCTOR_INTERNAL_H

#include "doctor/doctor.h"

/* A position to put the bot in: the moves from the initial state of
 * `rules` (chance outcomes included) up to the start of the bot's turn.
 * The bot joins it with player_resume at the last decision before it, and
 * sees the chance outcomes that follow (the draw, a discarded tile) live,
 * as updates. */
typedef struct doctor_pos {
    eng_rules rules;
    eng_move *moves; /* g->max_plies entries (owned) */
    int n;
    int seat;       /* to move after moves[0..n) */
    char what[320]; /* the position, for the report ("turn 37 of a random game") */
} doctor_pos;

/* Find a position. 0: found (out filled); 1: none in the search budget
 * (the check is skipped, with out->what saying why); negative: an error. */
typedef int (*doctor_finder)(const eng_game *g, uint64_t seed, doctor_pos *out);

typedef struct doctor_scenario {
    const char *name;  /* the check's name: "last_move" */
    const char *about; /* what it checks, one line */
    doctor_finder find;
} doctor_scenario;

/* The position checks for g: the generic ones that apply to it (a game
 * without chance has no dead_tile), then g's own from the per-game table.
 * Writes at most cap entries to out; returns their number. */
int doctor__scenarios(const eng_game *g, doctor_scenario *out, int cap);

/* out->moves allocated for g (n = 0). 0 or ENG_ENOMEM. */
int doctor__pos_init(doctor_pos *p, const eng_game *g);
void doctor__pos_free(doctor_pos *p);

#endif
