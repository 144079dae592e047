/*
 * journal.c — a tournament's changes since its last commit (internal.h,
 * "Journal"): every game status change goes through tour__set_status, which
 * remembers it; tour__commit hands the whole to the store attached to the
 * tournament (through the writer store.c set when it attached it, so that
 * nothing here knows the database) and starts a new journal. The lowest
 * floor of tournament/'s own files: tour.c, schedule.c and store.c use it,
 * it uses none of them.
 */
#include <stdlib.h>

#include "tournament/internal.h"

void tour__journal_reset(tour *t)
{
    t->j_pair = t->npair;
    t->j_group = t->ngroups;
    t->nj_games = 0;
    t->j_flags = false;
    t->j_record = NULL;
}

int tour__commit(tour *t)
{
    int rc = 0;
    if (t->store && (rc = t->store_write(t)))
        t->broken = true;
    tour__journal_reset(t);
    return rc;
}

int tour__set_status(tour *t, int64_t id, tour_game_status st)
{
    tour_game_status old = (tour_game_status)t->status[id];
    if (old == st)
        return 0;
    if (id / t->k < t->j_group) { /* an existing row: remember it */
        if (t->nj_games == t->capj_games) {
            int64_t cap = t->capj_games ? 2 * t->capj_games : 64;
            int64_t *p = realloc(t->j_games, (size_t)cap * sizeof *p);
            if (!p)
                return ENG_ENOMEM;
            t->j_games = p;
            t->capj_games = cap;
        }
        t->j_games[t->nj_games++] = id;
    }
    t->cnt[old]--;
    t->cnt[st]++;
    t->status[id] = (uint8_t)st;
    if (st == TOUR_PENDING && id < t->cursor)
        t->cursor = id;
    return 0;
}
