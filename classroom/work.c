/*
 * work.c — what a course worker is given and what it hands back
 * (internal.h, "work.c"): a job and a result freed, a game kept in a
 * result (copied: a worker's game outlives nothing of class_play's), and a
 * result handed to the loop (host.wake; class_service_poll stores it).
 * Below the ladders (jobs.c), the finals' pairs (finals.c) and the
 * scrimmage (scrimmage.c), which all make jobs and post results: none of
 * them calls another for these.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classroom/internal.h"
#include "players/bundle.h"

void class__job_free(job *j)
{
    if (!j)
        return;
    for (int i = 0; i < j->n; i++) {
        if (j->specs)
            free(j->specs[i]);
        if (j->names)
            free(j->names[i]);
    }
    free(j->specs);
    free(j->names);
    free(j->students);
    free(j->subs);
    free(j);
}

void class__done_free(done *d)
{
    for (int i = 0; i < d->ngames; i++) {
        free(d->games[i].record);
        for (int s = 0; s < ENG_MAX_PLAYERS; s++) {
            free(d->games[i].err[s]);
            free(d->games[i].bundle[s]);
        }
    }
    free(d->games);
    free(d->students);
    free(d->subs);
    free(d->fst);
    free(d);
}

void class__post(class_service *svc, done *d)
{
    pthread_mutex_lock(&svc->lock);
    if (svc->done_tail)
        svc->done_tail->next = d;
    else
        svc->done = d;
    svc->done_tail = d;
    pthread_mutex_unlock(&svc->lock);
    svc->host.wake(svc->host.user);
}

void class__keep_game(const class_game *g, void *user)
{
    done *d = user;
    if (d->ngames == d->capgames) {
        int nc = d->capgames ? d->capgames * 2 : 16;
        cgame *ng = realloc(d->games, (size_t)nc * sizeof *ng);
        if (!ng)
            return; /* the verdict still counts it; the game's details are lost */
        d->games = ng;
        d->capgames = nc;
        /* a game's end and verdict point into its own element: moved with it
         * (a gate of more than 16 games read freed memory for its first 16) */
        for (int k = 0; k < d->ngames; k++) {
            ng[k].g.end = ng[k].end;
            ng[k].g.verdict = ng[k].verdict;
        }
    }
    cgame *c = &d->games[d->ngames++];
    memset(c, 0, sizeof *c);
    c->g = *g;
    snprintf(c->end, sizeof c->end, "%s", g->end);
    snprintf(c->verdict, sizeof c->verdict, "%s", g->verdict);
    c->record = strdup(g->record);
    for (int s = 0; s < g->seats; s++) {
        c->err[s] = strdup(g->stderr_text[s]);
        /* as text: the loop thread stores it, and a json_t is not for two threads */
        json_t *b = g->bundle[s] ? bundle_capped(g->bundle[s], BUNDLE_SERVED_LINES_MAX) : NULL;
        c->bundle[s] = b ? json_dumps(b, JSON_COMPACT) : NULL; /* course_game sends it whole */
        json_decref(b);
        c->g.bundle[s] = NULL;
    }
    class_utf8_fix(c->verdict);
    c->g.end = c->end;
    c->g.verdict = c->verdict;
    c->g.record = c->record ? c->record : "";
    for (int s = 0; s < g->seats; s++) {
        if (c->err[s])
            class_utf8_fix(c->err[s]);
        c->g.stderr_text[s] = c->err[s] ? c->err[s] : "";
    }
}
