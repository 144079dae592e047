/*
 * ladder.h — which tables the server's continuous ladder should start now.
 *
 * A ladder has no schedule: registered bots play whenever they are free,
 * and ratings (tour_fit_ratings over all ladder games) update as games
 * finish. This pure function answers one question, given the bots that are
 * free right now: which tables to start. Rules, in order:
 *
 *  1. Newcomers first (fewer than placement_games rated games, not a
 *     reference): each is seated with the free reference bots whose ratings
 *     are closest to its own, so its first games are against known
 *     strengths and its rating settles quickly. Newcomers with the fewest
 *     games go first. A newcomer without enough free references waits in
 *     the general pool.
 *  2. Everybody else free: sorted by rating, repeatedly the k consecutive
 *     bots with the smallest rating spread form a table (closest ratings
 *     play each other), avoiding for k = 2 a pair that has just played each
 *     other while another table is possible.
 *
 * Each table should be played as one rotation group (k games, seats
 * rotated, the same chance seed), like every tournament group.
 */
#ifndef TESSERA_TOURNAMENT_LADDER_H
#define TESSERA_TOURNAMENT_LADDER_H

#include <stdbool.h>

typedef struct tour_ladder_player {
    int id;            /* the caller's id (unique) */
    double rating;     /* current rating, Elo */
    int games;         /* rated games played so far */
    bool reference;    /* a reference bot: newcomers are placed against these */
    int last_opponent; /* id of the previous opponent (two-seat games), or -1 */
} tour_ladder_player;

typedef struct tour_ladder_opts {
    int seats;           /* k: players per table, 2..5 */
    int placement_games; /* fewer rated games than this makes a newcomer (e.g. 10) */
    int max_tables;      /* start at most this many tables; 0 = as many as possible */
} tour_ladder_opts;

/* Tables to start among the n free players: table x is
 * tables[x * seats .. x * seats + seats - 1] (player ids, the newcomer
 * first). Writes at most cap tables. Returns the number of tables, or
 * ENG_EINVAL (bad options, duplicate ids) / ENG_ENOMEM. */
int tour_ladder_pick(const tour_ladder_player *players, int n, const tour_ladder_opts *opts,
                     int *tables, int cap);

#endif
