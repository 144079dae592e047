/*
 * internal.h — the tournament object and how the files of tournament/ share
 * it: tour.c (the public calls, results, counts), schedule.c (the formats:
 * which tables play, when rounds are generated, knockout ties, the SPRT
 * scan), journal.c (the changes since the last commit), store.c (SQLite or
 * PostgreSQL), standings.c and report.c (read only). They stand in floors:
 * store.c above tour.c above schedule.c above journal.c; the store is
 * reached from below only through the writer it attaches (store_write).
 *
 * Layout. Pairings are table instances: one table of k participants in one
 * round (a round-robin pairing in one cycle, a Swiss table, a knockout tie).
 * Groups belong to pairings; every group has exactly k games, so game ids
 * are implicit (group * k + rotation) and per-game data are flat arrays.
 *
 * Journal. Every change since the last commit is remembered (new pairings
 * and groups from an index on, the ids of games whose status changed, the
 * tournament's flags), so store.c can write it in one transaction and the
 * public call can fail cleanly before returning.
 */
#ifndef TESSERA_TOURNAMENT_INTERNAL_H
#define TESSERA_TOURNAMENT_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "tournament/tour.h"

/* Stream tags. TAG_CHANCE and TAG_BOT are the ones bots/match.c uses, so a
 * two-participant round-robin deals the same tiles and bot seeds as
 * `tessera match` with the same seed and game count. */
#define TOUR__TAG_CHANCE 0x6368616e63650000ULL /* "chance" */
#define TOUR__TAG_BOT    0x626f747365656400ULL /* "botseed" */
#define TOUR__TAG_DESIGN 0x64657369676e0000ULL /* "design": balanced designs, shuffles */

typedef struct tour__pairing {
    int round;                       /* 0-based round of the schedule */
    int16_t member[ENG_MAX_PLAYERS]; /* base order: member b sits in seat (b + r) % k in game r */
    int regular;                     /* knockout: regular groups of the tie; else unused */
    int64_t *grp;                    /* its groups, in schedule order */
    int ngrp, capgrp;
} tour__pairing;

typedef struct tour__res {
    double score[ENG_MAX_PLAYERS];
    double time_ms[ENG_MAX_PLAYERS];
    int32_t moves[ENG_MAX_PLAYERS];
    int8_t rank[ENG_MAX_PLAYERS]; /* always filled (1 = best) */
    uint8_t time_loss;            /* bit s: seat s lost on time */
    uint8_t end;                  /* tour_end */
    int8_t culprit;               /* seat or -1 */
    char *verdict;                /* owned, NULL when none */
} tour__res;

struct tour_store;

struct tour {
    /* the spec, owned (tour__spec_copy; freed with tour_spec_free) */
    tour_spec *spec;
    int k, n;         /* seats per table, participants */
    int64_t gpp;      /* games per pairing (rounded to k) */
    int gpg;          /* groups per pairing (gpp / k); knockout: best_of */
    int rounds_total; /* Swiss rounds; knockout bracket rounds; else schedule rounds */
    int anchor;       /* rating anchor's index, or -1 (mean 0) */

    /* schedule */
    tour__pairing *pair;
    int64_t npair, cappair;
    int64_t *group_pair; /* [ngroups]: pairing of each group */
    int64_t ngroups, capgroups;
    uint8_t *status;      /* [ngroups * k]: tour_game_status */
    tour__res **res;      /* [ngroups * k]: NULL unless done */
    char **ref;           /* [ngroups * k]: NULL or the caller's ref */
    int rounds_scheduled; /* rounds with pairings (Swiss/knockout progress) */
    int64_t cursor;       /* no pending game has a lower id */
    int64_t cnt[4];       /* games per status */
    bool paused, cancelled;

    /* knockout bracket */
    int ko_size; /* slots in round 0: the next power of two >= n */

    /* SPRT, scanned over complete groups in schedule order */
    tour_sprt_status sprt;
    int64_t sprt_next; /* first group not read yet */

    /* store and journal */
    struct tour_store *store;
    int (*store_write)(tour *t); /* writes the journal to store (set by store.c with it) */
    int64_t store_id;
    bool broken;             /* a write failed: no more changes */
    int64_t j_pair, j_group; /* pairings and groups from these on are new */
    int64_t *j_games;        /* games whose status/result changed */
    int64_t nj_games, capj_games;
    bool j_flags; /* paused/cancelled/done changed */
    const char *j_record; /* the record of game j_record_game, written with the journal
                             (borrowed from the tour_result during tour_game_finished) */
    int64_t j_record_game;
};

static inline int64_t tour__ngames(const tour *t)
{
    return t->ngroups * t->k;
}

/* The pairwise outcome of seats a and b in a done game: 1, 0.5, 0 for a. */
static inline double tour__pair_points(const tour__res *r, int a, int b)
{
    return r->rank[a] < r->rank[b] ? 1.0 : r->rank[a] > r->rank[b] ? 0.0 : 0.5;
}

/* Participant in seat s of game id. */
int tour__seat_participant(const tour *t, int64_t id, int seat);

/* spec.c */
tour_spec *tour__spec_copy(const tour_spec *src); /* heap copy owning its strings, or NULL */
int64_t tour__tables_per_cycle(tour_format f, int n, int k, bool *balanced);
int tour__swiss_auto_rounds(int n);

/* journal.c */
int tour__set_status(tour *t, int64_t id, tour_game_status st); /* journals; ENG_ENOMEM */
int tour__commit(tour *t);                                      /* the journal to the store */
void tour__journal_reset(tour *t);

/* tour.c */
int tour__alloc(const tour_spec *spec, tour **out, char *err,
                size_t errcap); /* copy, no schedule */
uint64_t tour__chance_seed(const tour *t, int64_t group);
uint64_t tour__seat_seed(const tour *t, int64_t game, int seat);

/* schedule.c */
int tour__add_pairing(tour *t, int round, const int *members, int64_t *out);
int tour__add_group(tour *t, int64_t pairing, int64_t *out);
int tour__schedule_initial(tour *t);
int tour__advance(tour *t);            /* after results or a load: decisions, voids, next rounds */
bool tour__more_rounds(const tour *t); /* rounds remain to be scheduled */
int tour__void_pending_all(tour *t);
void tour__sprt_rescan(tour *t); /* recompute the SPRT from group 0 (loads) */
int64_t tour__expected_games(const tour *t);
int tour__ko_rounds(const tour *t);
/* Knockout tie state: winner (-1 none yet), how, and whether an extra group
 * is needed now. */
void tour__ko_eval(const tour *t, int64_t pairing, int *winner, const char **how, bool *need_extra);
/* Swiss figures over complete rounds; arrays of n (any may be NULL). */
int tour__swiss_state(const tour *t, double *points, double *buchholz, int *byes);
/* Knockout: the round each participant reached and whether it is alive. */
int tour__ko_progress(const tour *t, int *reached, bool *alive);


#endif
