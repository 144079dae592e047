/*
 * driver.c — a tournament's games started through a host, their ends fed
 * back (contract in driver.h). The busy flags are the host's, asked once a
 * round and again for the table of each game that starts (a remote bot that
 * reaches its capacity is busy for the rest of the round).
 */
#include "tournament/driver.h"

#include <stdio.h>
#include <stdlib.h>

#include "engine/errors.h"

/* The host's busy flag of each participant of the table of g (all of them
 * when g is NULL). */
static void ask_busy(const tour_host *h, const tour *t, const tour_game *g, bool *busy)
{
    if (!h->busy)
        return;
    if (!g) {
        for (int i = 0; i < tour_participants(t); i++)
            busy[i] = h->busy(h->user, i);
        return;
    }
    for (int s = 0; s < g->seats; s++)
        busy[g->table[s]] = h->busy(h->user, g->table[s]);
}

/* Start g through the host: 1 started, 0 it waits, or a negative code with
 * why. */
static int start_one(tour *t, const tour_host *h, const tour_game *g, char *why, size_t whycap)
{
    char ref[TOUR_REF_MAX + 1] = "", err[400] = "";
    if (h->room && !h->room(h->user, g))
        return 0;
    if (h->begin && !h->begin(h->user)) {
        snprintf(why, whycap, "the database refused a write; start it again");
        return 0; /* the next pump tries again; nothing was started */
    }
    int rc = h->start(h->user, g, ref, sizeof ref, err, sizeof err);
    if (rc == TOUR_HOST_WAIT || rc < 0) {
        if (h->end)
            h->end(h->user, false);
        if (rc == TOUR_HOST_WAIT)
            return 0;
        snprintf(why, whycap, "game %lld could not start: %.200s", (long long)g->id, err);
        return rc;
    }
    int mark = tour_game_started(t, g->id, ref[0] ? ref : NULL);
    bool kept = h->end ? h->end(h->user, mark == 0) : true;
    if (mark != 0 || !kept) {
        if (h->discard)
            h->discard(h->user, g, ref); /* never announced, never stored */
        snprintf(why, whycap, "the database refused a write; start it again");
        return ENG_ESTORAGE;
    }
    h->play(h->user, g, ref);
    return 1;
}

int tour_drive(tour *t, const tour_host *h, int concurrency, char *why, size_t whycap)
{
    int n = tour_participants(t), started = 0, rc = 0;
    bool *busy = h->busy ? calloc((size_t)n, sizeof *busy) : NULL;
    if (h->busy && !busy)
        return 0; /* no memory now: the next pump tries again */
    ask_busy(h, t, NULL, busy);
    for (;;) {
        tour_counts c;
        tour_get_counts(t, &c);
        if (c.running >= concurrency)
            break;
        tour_game g;
        int next = tour_next_game(t, busy, &g);
        if (next < 0) {
            snprintf(why, whycap, "the database refused a write; start it again");
            rc = ENG_ESTORAGE;
            break;
        }
        if (next == 0)
            break;
        int one = start_one(t, h, &g, why, whycap);
        if (one <= 0) {
            rc = one;
            break;
        }
        started++;
        ask_busy(h, t, &g, busy);
    }
    free(busy);
    return rc ? rc : started;
}

int tour_drive_ended(tour *t, int64_t game, const tour_result *r, char *err, size_t errcap)
{
    return tour_game_finished(t, game, r, err, errcap);
}

int tour_drive_lost(tour *t, int64_t game)
{
    return tour_game_requeue(t, game);
}
