/*
 * scrimmage.c — the live scrimmage ladder of a course before its deadline
 * (docs/classroom.md, "Scrimmage"; issue 25), as contests on Botzone and
 * CodinGame have: while a course is open and its `scrimmage` setting is on
 * (instructor: its table on the instructor's page; class: on every
 * student's page too), the workers play pairs of the students' latest
 * qualified submissions, CLASS_SCRIM_GAMES games a pair with the seats
 * swapped, and the page shows a ratings table over every scrimmage game.
 *
 * Scheduling (loop thread). At each tick, and after each pair's result, a
 * course open to a scrimmage that has no pair queued or playing gets one:
 * the bot with the fewest scrimmage games, against the bot whose rating is
 * nearest its own plus a random jitter of up to CLASS_SCRIM_JITTER Elo (so
 * neighbours do not play each other for ever), until every bot has
 * CLASS_SCRIM_TARGET games: then it rests until a new version qualifies. A pair waits in a queue of
 * its own that a worker takes only when no gate or final waits (jobs.c),
 * and at most all the workers but one play scrimmages at once: a gate
 * always finds a worker within one pair's games.
 *
 * Ratings are the tournament module's Bradley–Terry fit with 95% intervals
 * (tournament/rating.h), the final's too, over the course's scrimmage games
 * between the submissions now in it: a new version starts unrated.
 *
 * It stops at the deadline (the course's, not a student's extension), at
 * the freeze, when the final starts, when the course is archived or the
 * setting turned off: queued pairs are dropped at once, and a pair playing
 * finishes but its games are not kept.
 */
#define _GNU_SOURCE /* qsort_r */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "classroom/internal.h"
#include "engine/errors.h"
#include "tournament/limits.h"
#include "tournament/rating.h"

#define CLASS_SCRIM_JITTER                                                                         \
    200.0 /* Elo of randomness in a pairing: rating gaps below it are                              \
             taken about as often as each other */
#define CLASS_SCRIM_MAX                                                                            \
    TOUR_MAX_PARTICIPANTS /* bots in one scrimmage, the first in roster order: the rating fit      \
                             inverts an n*n matrix on every view (a few ms at 256) */
#define CLASS_SCRIM_BACKOFF_MS 10000 /* no pair for this long after one could not be played */
#define CLASS_SCRIM_TARGET                                                                         \
    40 /* scrimmage games of each bot, then the ladder rests until a new version qualifies: a      \
          rating to about +-110 Elo, and a course open for weeks neither holds a core for ever     \
          nor fills the database with games (each is stored with its record) */

/* Why course c plays no scrimmage now (its state on the page), or NULL
 * while it is open to one. */
static const char *closed_because(const course_t *c, int64_t now)
{
    if (c->scrimmage == CLASS_SCRIM_OFF)
        return "off";
    if (c->archived)
        return "archived";
    if (strcmp(c->final_state, "none") != 0)
        return "final";
    if (c->frozen_ms || (c->deadline_ms && now >= c->deadline_ms))
        return "deadline";
    return NULL;
}

/* splitmix64: the pairings' and the games' seeds */
static uint64_t next_rand(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* ---- the table ------------------------------------------------------------------------------ */

/* The bots of a course's scrimmage and what they did against each other. */
typedef struct table {
    int n;
    sub_t *subs;           /* roster order */
    double *score, *games; /* n*n: points i took from j, games between them */
    double *elo, *se;
    int *wins, *losses, *draws, *played;
    bool prior; /* the fit needed its weak prior (not every bot has won and lost) */
} table;

static void table_free(table *t)
{
    free(t->subs);
    free(t->score);
    free(t->games);
    free(t->elo);
    free(t->se);
    free(t->wins);
    free(t->losses);
    free(t->draws);
    free(t->played);
    memset(t, 0, sizeof *t);
}

static int index_of(const table *t, int64_t sub)
{
    for (int i = 0; i < t->n; i++)
        if (t->subs[i].id == sub)
            return i;
    return -1;
}

static void tally(int64_t sub0, int64_t sub1, double p0, void *user)
{
    table *t = user;
    int i = index_of(t, sub0), j = index_of(t, sub1);
    if (i < 0 || j < 0 || i == j)
        return; /* a version no longer in the scrimmage */
    t->score[i * t->n + j] += p0;
    t->score[j * t->n + i] += 1 - p0;
    t->games[i * t->n + j] += 1;
    t->games[j * t->n + i] += 1;
    t->played[i]++;
    t->played[j]++;
    if (p0 == 0.5) {
        t->draws[i]++;
        t->draws[j]++;
    } else {
        t->wins[p0 > 0.5 ? i : j]++;
        t->losses[p0 > 0.5 ? j : i]++;
    }
}

/* The table of a course: its bots and their ratings. The number of bots, or -1. */
static int table_load(class_service *svc, int64_t course, table *t)
{
    memset(t, 0, sizeof *t);
    int n = class__subs_scrim(svc, course, &t->subs);
    if (n < 0)
        return -1;
    if (n > CLASS_SCRIM_MAX)
        n = CLASS_SCRIM_MAX;
    t->n = n;
    if (n == 0)
        return 0;
    size_t nn = (size_t)n * (size_t)n;
    t->score = calloc(nn, sizeof *t->score);
    t->games = calloc(nn, sizeof *t->games);
    t->elo = calloc((size_t)n, sizeof *t->elo);
    t->se = calloc((size_t)n, sizeof *t->se);
    t->wins = calloc((size_t)n, sizeof *t->wins);
    t->losses = calloc((size_t)n, sizeof *t->losses);
    t->draws = calloc((size_t)n, sizeof *t->draws);
    t->played = calloc((size_t)n, sizeof *t->played);
    if (!t->score || !t->games || !t->elo || !t->se || !t->wins || !t->losses || !t->draws ||
        !t->played || !class__scrim_results(svc, course, tally, t)) {
        table_free(t);
        return -1;
    }
    bool any = false;
    for (int i = 0; i < n; i++)
        any = any || t->played[i] > 0;
    if (any) {
        tour_fit_info info;
        char err[256];
        if (tour_fit_ratings(n, t->score, t->games, -1, TOUR_PRIOR_AUTO, t->elo, t->se, NULL, &info,
                             err, sizeof err) == 0)
            t->prior = info.prior;
        else
            class__log(svc, CLASS_LOG_WARN, "course_scrimmage_fit", "{s:I, s:s}", "course",
                       (json_int_t)course, "error", err);
    }
    return n;
}

/* ---- pairs ---------------------------------------------------------------------------------- */

static int slots_used(const class_service *svc, int64_t course, bool *has)
{
    int used = 0;
    *has = false;
    for (int i = 0; i < CLASS_MAX_JOBS; i++)
        if (svc->scrim_course[i]) {
            used++;
            *has = *has || svc->scrim_course[i] == course;
        }
    return used;
}

static void slot_free(class_service *svc, int64_t course)
{
    for (int i = 0; i < CLASS_MAX_JOBS; i++)
        if (svc->scrim_course[i] == course) {
            svc->scrim_course[i] = 0;
            return;
        }
}

/* Has every bot of t its CLASS_SCRIM_TARGET games? */
static bool settled(const table *t)
{
    for (int i = 0; i < t->n; i++)
        if (t->played[i] < CLASS_SCRIM_TARGET)
            return false;
    return true;
}

/* The next pair of t: the bot with the fewest games (a tie: at random),
 * and the one nearest its rating give or take the jitter. */
static void pick(const table *t, uint64_t *rng, int *a, int *b)
{
    *a = -1;
    int ties = 0;
    for (int i = 0; i < t->n; i++) {
        if (*a >= 0 && t->played[i] > t->played[*a])
            continue;
        if (*a < 0 || t->played[i] < t->played[*a])
            ties = 0;
        if (next_rand(rng) % (uint64_t)++ties == 0) /* reservoir: each tie alike */
            *a = i;
    }
    double best = INFINITY;
    *b = -1;
    for (int j = 0; j < t->n; j++) {
        if (j == *a)
            continue;
        double jitter = (double)(next_rand(rng) >> 11) / 9007199254740992.0 * CLASS_SCRIM_JITTER;
        double d = fabs(t->elo[j] - t->elo[*a]) + jitter;
        if (d < best) {
            best = d;
            *b = j;
        }
    }
}

/* Queue course c's next pair: true when one was queued. */
static bool queue_pair(class_service *svc, const course_t *c)
{
    table t;
    if (table_load(svc, c->id, &t) < 2 || settled(&t)) {
        table_free(&t);
        return false;
    }
    int side[2];
    pick(&t, &svc->scrim_rng, &side[0], &side[1]);
    job *j = calloc(1, sizeof *j);
    bool ok = j != NULL;
    if (ok) {
        j->scrim = true;
        j->course = c->id;
        j->g = c->g;
        j->rules = c->rules;
        j->move_ms = c->move_ms;
        j->seed = next_rand(&svc->scrim_rng) ^ c->seed;
        j->specs = calloc(2, sizeof *j->specs);
        j->names = calloc(2, sizeof *j->names);
        j->students = calloc(2, sizeof *j->students);
        j->subs = calloc(2, sizeof *j->subs);
        ok = j->specs && j->names && j->students && j->subs;
    }
    for (int k = 0; ok && k < 2; k++) {
        sub_t *s = &t.subs[side[k]];
        char spec[CLASS_SPEC_MAX], name[CLASS_FIELD_MAX + 24];
        class__ensure_files(svc, s);
        class__sub_spec(s, spec, sizeof spec);
        snprintf(name, sizeof name, "%s v%lld", s->sid, (long long)s->version);
        j->subs[k] = s->id;
        j->students[k] = s->student;
        j->specs[k] = strdup(spec);
        j->names[k] = strdup(name);
        j->n = k + 1;
        ok = j->specs[k] && j->names[k];
    }
    table_free(&t);
    if (!ok) {
        class__job_free(j);
        return false;
    }
    for (int i = 0; i < CLASS_MAX_JOBS; i++)
        if (!svc->scrim_course[i]) {
            svc->scrim_course[i] = c->id;
            break;
        }
    pthread_mutex_lock(&svc->lock);
    if (svc->scrims_tail)
        svc->scrims_tail->next = j;
    else
        svc->scrims = j;
    svc->scrims_tail = j;
    pthread_cond_signal(&svc->cond);
    pthread_mutex_unlock(&svc->lock);
    return true;
}

void class__scrim_pump(class_service *svc)
{
    int64_t now = class__now_ms();
    if (svc->stopping || now < svc->scrim_pause_until)
        return;
    if (!svc->scrim_rng)
        svc->scrim_rng = (uint64_t)now ^ ((uint64_t)time(NULL) << 32);
    /* all the workers but one: a gate always finds one within a pair's games */
    int cap = svc->nthreads - 1 < 1 ? 1 : svc->nthreads - 1;
    bool has;
    int used = slots_used(svc, 0, &has);
    if (used >= cap)
        return;
    int64_t *ids = NULL;
    int n = class__course_ids(svc, &ids);
    for (int i = 0; i < n && used < cap; i++) {
        /* start at a different course each time: several courses share the workers */
        int64_t id = ids[(i + svc->scrim_turn) % n];
        slots_used(svc, id, &has);
        course_t c;
        if (has || !class__course_load(svc, id, &c))
            continue;
        if (!closed_because(&c, now) && queue_pair(svc, &c))
            used++;
        class__course_release(&c);
    }
    svc->scrim_turn++;
    free(ids);
}

void class__scrim_drop(class_service *svc, int64_t course)
{
    pthread_mutex_lock(&svc->lock);
    job **pp = &svc->scrims;
    svc->scrims_tail = NULL;
    while (*pp) {
        job *j = *pp;
        if (course == 0 || j->course == course) {
            *pp = j->next;
            slot_free(svc, j->course);
            class__job_free(j);
        } else {
            svc->scrims_tail = j;
            pp = &j->next;
        }
    }
    pthread_mutex_unlock(&svc->lock);
}

/* ---- a pair played (a worker) and kept (the loop) ------------------------------------------- */

void class__scrim_run(class_service *svc, const job *j)
{
    done *d = calloc(1, sizeof *d);
    if (d) {
        d->students = malloc(2 * sizeof *d->students);
        d->subs = malloc(2 * sizeof *d->subs);
    }
    if (!d || !d->students || !d->subs) {
        if (d)
            class__done_free(d);
        return; /* the course's slot stays taken: its scrimmage stops (out of memory) */
    }
    d->kind = DONE_SCRIM;
    d->course = j->course;
    d->n = 2;
    memcpy(d->students, j->students, 2 * sizeof *d->students);
    memcpy(d->subs, j->subs, 2 * sizeof *d->subs);
    class_play_config pc = {.game = j->g,
                            .rules = j->rules,
                            .specs = (const char *const *)j->specs,
                            .names = (const char *const *)j->names,
                            .n = 2,
                            .games_per_pair = CLASS_SCRIM_GAMES,
                            .move_ms = j->move_ms,
                            .seed = j->seed,
                            .threads = CLASS_GATE_THREADS,
                            .stop = &svc->stop,
                            .on_game = class__keep_game,
                            .source = "tessera course scrimmage",
                            .user = d};
    class_standing st[2];
    char err[512];
    int rc = class_play(&pc, st, err, sizeof err);
    if (rc == ENG_ESHUTTING_DOWN || atomic_load(&svc->stop)) {
        class__done_free(d);
        return;
    }
    if (rc)
        snprintf(d->verdict, sizeof d->verdict, "the pair could not be played: %.300s", err);
    class__post(svc, d);
}

void class__scrim_apply(class_service *svc, done *d)
{
    slot_free(svc, d->course);
    int64_t now = class__now_ms();
    course_t c;
    const char *why = "deleted";
    if (class__course_load(svc, d->course, &c)) {
        why = closed_because(&c, now);
        class__course_release(&c);
    }
    if (d->verdict[0]) {
        svc->scrim_pause_until = now + CLASS_SCRIM_BACKOFF_MS;
        class__log(svc, CLASS_LOG_WARN, "course_scrimmage_failed", "{s:I, s:s}", "course",
                   (json_int_t)d->course, "error", d->verdict);
    } else if (why) { /* its course closed to it while it played: not kept */
        class__log(svc, CLASS_LOG_DEBUG, "course_scrimmage_dropped", "{s:I, s:s}", "course",
                   (json_int_t)d->course, "why", why);
    } else {
        bool ok = class__begin(svc);
        ok = ok && class__store_scrim(svc, d);
        if (!class__commit(svc, ok))
            class__log(svc, CLASS_LOG_ERROR, "course_store_failed", "{s:I, s:s}", "course",
                       (json_int_t)d->course, "what", "scrimmage");
    }
    class__scrim_pump(svc);
}

/* ---- the page ------------------------------------------------------------------------------- */

static int by_rating(const void *pa, const void *pb, void *user)
{
    const table *t = user;
    int a = *(const int *)pa, b = *(const int *)pb;
    if (t->elo[a] != t->elo[b])
        return t->elo[a] > t->elo[b] ? -1 : 1;
    if (t->played[a] != t->played[b])
        return t->played[a] > t->played[b] ? -1 : 1;
    return a - b; /* roster order */
}

json_t *class__scrim_json(class_service *svc, const course_t *c, int64_t student)
{
    if (student && c->scrimmage != CLASS_SCRIM_CLASS)
        return NULL;
    const char *why = closed_because(c, class__now_ms());
    table t;
    int n = table_load(svc, c->id, &t);
    const char *state = why && strcmp(why, "off") == 0 ? "off"
                        : why                          ? "stopped"
                        : n < 2                        ? "waiting"
                        : settled(&t)                  ? "rested"
                                                       : "playing";
    json_t *o = json_pack("{s:s, s:s, s:s}", "setting", class_scrim_name(c->scrimmage), "state",
                          state, "why", why ? why : "");
    json_t *rows = json_array();
    int *order = n > 0 ? malloc((size_t)n * sizeof *order) : NULL;
    int total = 0;
    for (int i = 0; order && i < n; i++) {
        order[i] = i;
        total += t.played[i];
    }
    if (order)
        qsort_r(order, (size_t)n, sizeof *order, by_rating, &t);
    for (int k = 0; order && k < n; k++) {
        int i = order[k];
        const sub_t *s = &t.subs[i];
        json_t *row =
            json_pack("{s:i, s:s, s:I, s:I, s:i, s:i, s:i, s:i, s:f, s:f, s:f}", "place", k + 1,
                      "student_id", s->sid, "version", (json_int_t)s->version, "submission",
                      (json_int_t)s->id, "games", t.played[i], "wins", t.wins[i], "losses",
                      t.losses[i], "draws", t.draws[i], "rating", t.elo[i], "rating_low",
                      t.elo[i] - TOUR_Z95 * t.se[i], "rating_high", t.elo[i] + TOUR_Z95 * t.se[i]);
        if (student)
            json_object_set_new(row, "yours", json_boolean(s->student == student));
        json_array_append_new(rows, row);
    }
    free(order);
    json_object_set_new(o, "rows", rows);
    json_object_set_new(o, "games_total", json_integer(total / 2));
    json_object_set_new(o, "prior", json_boolean(t.prior));
    json_object_set_new(o, "target", json_integer(CLASS_SCRIM_TARGET));
    json_object_set_new(o, "games", class__scrim_games_json(svc, c->id));
    table_free(&t);
    return o;
}
