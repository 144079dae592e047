/*
 * driver.h — one tournament's games, started through a host and their ends
 * fed back: the driver under `tessera tournament`'s local runner (runner.c:
 * the host is a pool of worker threads that play each game through
 * players/) and under a server's tournaments (service.h: the host starts
 * an ordinary server match and tells when it ends).
 *
 *     tour_host h = {.start = ..., .play = ..., .user = me};
 *     tour_drive(t, &h, concurrency, why, sizeof why);   // start what can start
 *     ... a game ends:  tour_drive_ended(t, id, &result, err, sizeof err);
 *                       tour_drive(t, &h, ...);          // what that unlocked
 *     ... a game is lost (its match gone, a worker stopped): tour_drive_lost(t, id);
 *
 * Starting a game is three steps, the middle one the tournament's: the host
 * starts it (a match created, a worker's slot taken) without playing yet;
 * the tournament marks it running with the host's name for it (its ref,
 * kept in the store so that a resumed host finds it again); then the host
 * plays it. When the mark cannot be written, the host undoes its start.
 * begin and end, when given, make the first two one transaction (a server
 * writes the match and the mark in one).
 *
 * Threads: a tournament is not thread-safe; every call here, and every
 * host function it makes, is under whatever lock the host holds around the
 * tournament (the runner's mutex, a server's loop).
 */
#ifndef TESSERA_TOURNAMENT_DRIVER_H
#define TESSERA_TOURNAMENT_DRIVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tournament/tour.h"

/* host.start: no room now (a registered bot at its capacity, the server's
 * programs at their limit): the game waits for the next tour_drive. */
#define TOUR_HOST_WAIT 1

typedef struct tour_host {
    /* Optional: is there room for game g now (its table's programs, remote
     * bots at their capacity)? false: it waits for the next tour_drive. */
    bool (*room)(void *user, const tour_game *g);
    /* Start game g, not yet playing: 0 and its name in ref (may stay ""),
     * TOUR_HOST_WAIT, or a negative code with a reason in err (tour_drive
     * stops and returns it). */
    int (*start)(void *user, const tour_game *g, char *ref, size_t refcap, char *err,
                 size_t errcap);
    /* The start of ref could not be recorded: undo it (optional). */
    void (*discard)(void *user, const tour_game *g, const char *ref);
    /* The start is recorded: play it; its end comes back through
     * tour_drive_ended or tour_drive_lost. */
    void (*play)(void *user, const tour_game *g, const char *ref);
    /* Optional: can participant i take no more games now (a remote bot at
     * its capacity)? Asked before each round of starts and again, for a
     * started game's table, after it. */
    bool (*busy)(void *user, int participant);
    /* Optional: begin before start, end after the mark (ok: both went
     * well; false back from end: it could not be kept). */
    bool (*begin)(void *user);
    bool (*end)(void *user, bool ok);
    void *user;
} tour_host;

/* Room for tour_drive's reason. */
#define TOUR_DRIVE_WHY_MAX 256

/* Start games while fewer than `concurrency` run, the tournament offers one
 * whose participants are free and the host has room. Returns how many
 * started, or a negative code: the host's, when it could not start a game
 * (*why: "game N could not start: REASON"), or ENG_ESTORAGE when the
 * tournament's store refused a write (a game started by the host is undone
 * then). The caller decides what follows (a server pauses the tournament
 * with *why; the local runner stops). */
int tour_drive(tour *t, const tour_host *h, int concurrency, char *why, size_t whycap);
/* A running game ended with result r: recorded (and what it decides: the
 * next round, a tie, the SPRT). 0, or the code of tour_game_finished with
 * its reason in err: the result is refused (a game already done is never
 * counted twice). */
int tour_drive_ended(tour *t, int64_t game, const tour_result *r, char *err, size_t errcap);
/* A running game that will not end (its match lost, stopped before its
 * end): back to pending, played again from the start. 0 or a code. */
int tour_drive_lost(tour *t, int64_t game);

#endif
