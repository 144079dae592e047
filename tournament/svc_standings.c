/*
 * svc_standings.c — a tournament's standings and plots, computed on the
 * host's thread pool (svc.h). tour_standings_new costs ~0.4 s at 256
 * participants: too long for the loop. While the job reads the tournament
 * (a tour of tour.h) the loop leaves it alone (serve.c defers results and
 * changes); a ladder's job works on a snapshot instead. The cross-table
 * and its plot are left out beyond TOUR_SVC_CROSSTABLE_MAX participants.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bots/bot.h"
#include "tournament/rating.h"
#include "tournament/report.h"
#include "tournament/standings.h"
#include "tournament/svc.h"

typedef struct tjob {
    tsvc_tour *st;
    void (*done)(tsvc_tour *st);
    const tour *t; /* formats: read only while the job runs */
    /* ladder snapshot */
    int n, k;
    char (*names)[PROTO_NAME_MAX + 1];
    char (*specs)[PROTO_SPEC_MAX + 1];
    bool *ref;
    int64_t *games, *wins, *draws, *losses;
    double *points, *score, *pgames;
    int placement;
    /* out */
    json_t *standings;
    char *svg[3];
    double *elo;
    double ms;
    int delay_ms; /* the test hook of tsvc_config */
} tjob;

static json_t *num(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

static void ladder_standings(tjob *j)
{
    int n = j->n;
    double *se = calloc((size_t)n + 1, sizeof *se);
    j->elo = calloc((size_t)n + 1, sizeof *j->elo);
    int *order = malloc(((size_t)n + 1) * sizeof *order);
    if (!se || !j->elo || !order) {
        free(se);
        free(order);
        return;
    }
    tour_fit_info info;
    char err[256];
    bool fitted = n >= 2 && tour_fit_ratings(n, j->score, j->pgames, -1, TOUR_PRIOR_AUTO, j->elo,
                                             se, NULL, &info, err, sizeof err) == 0;
    if (!fitted)
        memset(j->elo, 0, (size_t)n * sizeof *j->elo);
    for (int i = 0; i < n; i++)
        order[i] = i;
    for (int i = 1; i < n; i++) /* by rating, then games */
        for (int x = i; x > 0; x--) {
            int a = order[x - 1], b = order[x];
            if (j->elo[b] > j->elo[a] || (j->elo[b] == j->elo[a] && j->games[b] > j->games[a])) {
                order[x - 1] = b;
                order[x] = a;
            } else {
                break;
            }
        }
    json_t *rows = json_array();
    for (int x = 0; x < n; x++) {
        int i = order[x];
        double rate = j->games[i] ? j->points[i] / (double)j->games[i] : 0, lo = 0, hi = 1;
        tour_wilson(rate, (double)j->games[i], TOUR_Z95, &lo, &hi);
        json_array_append_new(
            rows,
            json_pack("{s:i, s:i, s:s, s:s, s:b, s:b, s:I, s:I, s:I, s:I, s:o, s:o, s:o, "
                      "s:o, s:o, s:o, s:o, s:o}",
                      "place", x + 1, "participant", i, "name", j->names[i], "spec", j->specs[i],
                      "reference", j->ref[i], "newcomer", !j->ref[i] && j->games[i] < j->placement,
                      "games", (json_int_t)j->games[i], "wins", (json_int_t)j->wins[i], "draws",
                      (json_int_t)j->draws[i], "losses", (json_int_t)j->losses[i], "points",
                      num(j->points[i]), "rate", num(rate), "rate_lo", num(lo), "rate_hi", num(hi),
                      "elo", num(j->elo[i]), "elo_se", num(se[i]), "elo_lo",
                      num(j->elo[i] - TOUR_Z95 * se[i]), "elo_hi",
                      num(j->elo[i] + TOUR_Z95 * se[i])));
    }
    json_t *o = json_pack("{s:o, s:{s:s, s:s, s:n, s:b, s:f}}", "standings", rows, "ratings",
                          "model", "bradley-terry", "draws", "half a win", "anchor", "prior",
                          fitted && info.prior, "interval", 0.95);
    if (n <= TOUR_SVC_CROSSTABLE_MAX) {
        json_t *cp = json_array(), *cg = json_array();
        for (int a = 0; a < n; a++) {
            json_t *ra = json_array(), *ga = json_array();
            for (int b = 0; b < n; b++) {
                json_array_append_new(ra, num(j->score[a * n + b]));
                json_array_append_new(ga, num(j->pgames[a * n + b]));
            }
            json_array_append_new(cp, ra);
            json_array_append_new(cg, ga);
        }
        json_object_set_new(o, "crosstable", json_pack("{s:o, s:o}", "points", cp, "games", cg));
    }
    j->standings = o;
    free(se);
    free(order);
}

static void job_work(void *arg)
{
    tjob *j = arg;
    double t0 = bot_now_ms();
    if (j->delay_ms > 0)
        usleep((useconds_t)j->delay_ms * 1000);
    if (j->t) {
        tour_standings *s = tour_standings_new(j->t);
        if (s) {
            j->standings = tour_report_json(j->t, s, false);
            if (j->standings && tour_participants(j->t) > TOUR_SVC_CROSSTABLE_MAX)
                json_object_del(j->standings, "crosstable");
            j->svg[0] = tour_svg_ratings(j->t, s);
            j->svg[1] = tour_svg_scores(j->t, s);
            j->svg[2] = tour_participants(j->t) <= TOUR_SVC_CROSSTABLE_MAX
                            ? tour_svg_crosstable(j->t, s)
                            : NULL;
            tour_standings_free(s);
        }
    } else {
        ladder_standings(j);
    }
    j->ms = bot_now_ms() - t0;
}

static void job_free(tjob *j)
{
    free(j->names);
    free(j->specs);
    free(j->ref);
    free(j->games);
    free(j->wins);
    free(j->draws);
    free(j->losses);
    free(j->points);
    free(j->score);
    free(j->pgames);
    free(j->elo);
    json_decref(j->standings);
    for (int i = 0; i < 3; i++)
        free(j->svg[i]);
    free(j);
}

/* Back on the loop: what the job computed into st (unless it is closing),
 * then the service's continuation. */
static void job_done(void *arg, int status)
{
    (void)status; /* a job that could not run leaves the standings as they were */
    tjob *j = arg;
    tsvc_tour *st = j->st;
    st->job = false;
    if (!st->closing) {
        st->job_ms = j->ms;
        ts__log(st->svc, TSVC_LOG_DEBUG, "tournament_standings", "{s:I, s:f}", "tournament",
                (json_int_t)st->id, "ms", j->ms);
        if (j->standings) {
            json_decref(st->standings);
            st->standings = j->standings;
            j->standings = NULL;
            if (j->t)
                for (int i = 0; i < 3; i++) {
                    free(st->svg[i]);
                    st->svg[i] = j->svg[i];
                    j->svg[i] = NULL;
                }
        }
        if (j->elo && ts__is_ladder(st))
            for (int i = 0; i < j->n && i < st->np; i++)
                st->parts[i].elo = j->elo[i];
    }
    void (*done)(tsvc_tour *) = j->done;
    job_free(j);
    done(st);
}

/* A copy of what the ladder's standings need (the job must not read the
 * ladder, which the loop keeps changing). */
static bool ladder_snapshot(tsvc_tour *st, tjob *j)
{
    int n = st->np, k = st->k;
    j->n = n;
    j->k = k;
    j->placement = st->placement;
    size_t nn = (size_t)n * (size_t)n + 1;
    j->names = calloc((size_t)n + 1, sizeof *j->names);
    j->specs = calloc((size_t)n + 1, sizeof *j->specs);
    j->ref = calloc((size_t)n + 1, sizeof *j->ref);
    j->games = calloc((size_t)n + 1, sizeof *j->games);
    j->wins = calloc((size_t)n + 1, sizeof *j->wins);
    j->draws = calloc((size_t)n + 1, sizeof *j->draws);
    j->losses = calloc((size_t)n + 1, sizeof *j->losses);
    j->points = calloc((size_t)n + 1, sizeof *j->points);
    j->score = calloc(nn, sizeof *j->score);
    j->pgames = calloc(nn, sizeof *j->pgames);
    if (!j->names || !j->specs || !j->ref || !j->games || !j->wins || !j->draws || !j->losses ||
        !j->points || !j->score || !j->pgames)
        return false;
    for (int i = 0; i < n; i++) {
        memcpy(j->names[i], st->parts[i].name, sizeof j->names[i]);
        memcpy(j->specs[i], st->parts[i].spec, sizeof j->specs[i]);
        j->ref[i] = st->parts[i].reference;
    }
    double w = 1.0 / (k - 1);
    for (int64_t x = 0; x < st->ng; x++) {
        const lad_game *g = &st->games[x];
        if (g->status != TOUR_DONE)
            continue;
        int firsts = 0;
        for (int s = 0; s < k; s++)
            firsts += g->rank[s] == 1;
        for (int a = 0; a < k; a++) {
            int i = g->seat[a];
            j->games[i]++;
            if (g->rank[a] == 1 && firsts == 1)
                j->wins[i]++;
            else if (g->rank[a] == 1)
                j->draws[i]++;
            else
                j->losses[i]++;
            for (int b = 0; b < k; b++) {
                if (b == a)
                    continue;
                int jj = g->seat[b];
                double share = g->rank[a] < g->rank[b] ? 1 : g->rank[a] == g->rank[b] ? 0.5 : 0;
                j->points[i] += share * w;
                j->score[i * n + jj] += share * w;
                j->pgames[i * n + jj] += w;
            }
        }
    }
    return true;
}

bool ts__standings_start(tsvc_tour *st, void (*done)(tsvc_tour *st))
{
    tour_service *svc = st->svc;
    tjob *j = calloc(1, sizeof *j);
    if (!j)
        return false;
    j->st = st;
    j->done = done;
    j->delay_ms = svc->standings_delay_ms;
    if (ts__is_ladder(st)) {
        if (!ladder_snapshot(st, j)) {
            job_free(j);
            return false;
        }
    } else {
        j->t = st->t;
    }
    if (svc->host.queue_work(svc->host.user, job_work, job_done, j) != 0) {
        job_free(j);
        return false;
    }
    st->job = true;
    return true;
}
