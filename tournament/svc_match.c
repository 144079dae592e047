/*
 * svc_match.c — a tournament game's server match, through the host
 * (svc.h): the match made with the tournament's clocks, policies and the
 * group's seeds; a match's result read as a tour_result; and after a
 * restart, a running game's match found again. The ground floor of the
 * service, with its log and its seeds.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/time.h>

#include "engine/errors.h"
#include "protocol/jsontext.h"
#include "tournament/svc.h"

void ts__log(tour_service *svc, int level, const char *event, const char *fmt, ...)
{
    if (!svc->host.log)
        return;
    va_list ap;
    va_start(ap, fmt);
    json_t *o = jt_fields(fmt, ap);
    va_end(ap);
    svc->host.log(svc->host.user, level, event, o);
}

int64_t ts__epoch_ms(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

/* Seeds are not secrets (the chance seed's secrecy is the match's). */
uint64_t ts__fresh_seed(tour_service *svc)
{
    uint64_t v = 0;
    if (getrandom(&v, sizeof v, 0) != (ssize_t)sizeof v)
        v = (svc->host.clock_ms ? svc->host.clock_ms(svc->host.user) : 0) * 1000003u +
            ++svc->seed_counter;
    return v & INT64_MAX;
}

bool ts__tx(tour_service *svc, const char *sql)
{
    return db_exec(svc->db, sql) == DB_OK;
}

/* ---- results -----------------------------------------------------------------------------------
 */

static tour_end end_of(const char *reason)
{
    if (!reason || strcmp(reason, "normal") == 0)
        return TOUR_END_NORMAL;
    if (strcmp(reason, "timeout") == 0)
        return TOUR_END_TIMEOUT;
    if (strcmp(reason, "illegal") == 0)
        return TOUR_END_ILLEGAL;
    if (strcmp(reason, "disconnect") == 0)
        return TOUR_END_DISCONNECT;
    if (strcmp(reason, "resignation") == 0)
        return TOUR_END_RESIGN;
    if (strcmp(reason, "crash") == 0)
        return TOUR_END_CRASH;
    return TOUR_END_FORFEIT; /* aborted, and anything newer */
}

/* Places from scores with the faulty seat last: 1 + the seats (not at
 * fault) that scored more; ties share a place. */
static void ranks_of(int k, const double *score, int faulty, int *rank)
{
    for (int i = 0; i < k; i++) {
        if (i == faulty) {
            rank[i] = k;
            continue;
        }
        rank[i] = 1;
        for (int j = 0; j < k; j++)
            if (j != i && j != faulty && score[j] > score[i])
                rank[i]++;
    }
}

void ts__result_of(int k, const tsvc_outcome *o, tour_result *r, char *verdict, size_t vcap)
{
    const json_t *res = o->result;
    tour_result_init(r);
    json_t *scores = json_object_get(res, "scores");
    for (int i = 0; i < k; i++) {
        json_t *v = json_array_get(scores, (size_t)i);
        r->score[i] = json_is_number(v) ? json_number_value(v) : 0;
    }
    json_t *seat = json_object_get(res, "seat");
    r->culprit =
        json_is_integer(seat) && json_integer_value(seat) >= 0 && json_integer_value(seat) < k
            ? (int)json_integer_value(seat)
            : -1;
    r->end = end_of(json_string_value(json_object_get(res, "reason")));
    if (r->end == TOUR_END_NORMAL)
        r->culprit = -1;
    ranks_of(k, r->score, r->culprit, r->rank);
    if (o->have_times)
        for (int i = 0; i < k && i < o->seats; i++) {
            r->time_ms[i] = o->used_ms[i];
            r->moves[i] = o->moves[i];
        }
    if (r->end == TOUR_END_TIMEOUT && r->culprit >= 0)
        r->time_loss[r->culprit] = true;
    const char *detail = json_string_value(json_object_get(res, "detail"));
    verdict[0] = 0;
    if (detail && r->end != TOUR_END_NORMAL) {
        snprintf(verdict, vcap, "%s", detail);
        r->verdict = verdict;
    }
}

/* ---- matches ----------------------------------------------------------------------------------
 */

int ts__match_create(tsvc_tour *st, const char *const *specs, const char *const *names,
                     uint64_t chance_seed, const uint64_t *seat_seeds, int64_t game, char *ref,
                     size_t refcap, char *err, size_t errcap)
{
    tour_service *svc = st->svc;
    tsvc_match m = {.game = st->g,
                    .rules = &st->rules,
                    .seats = st->k,
                    .specs = specs,
                    .names = names,
                    .tc = &st->tc,
                    .pol = &st->pol,
                    .chance_seed = chance_seed,
                    .seat_seeds = seat_seeds,
                    .tour_id = st->id,
                    .game_id = game};
    return svc->host.new_match(svc->host.user, &m, ref, refcap, err, errcap);
}

int ts__match_again(tsvc_tour *st, int64_t game, const char *ref, tour_result *r, char *verdict,
                    size_t vcap)
{
    tour_service *svc = st->svc;
    if (!ref || !ref[0])
        return -1;
    tsvc_outcome o;
    memset(&o, 0, sizeof o);
    int found = svc->host.find_match(svc->host.user, ref, st->id, game, true, &o);
    if (found == TSVC_MATCH_LIVE)
        return 1;
    if (found == TSVC_MATCH_DONE && o.result) {
        ts__result_of(st->k, &o, r, verdict, vcap);
        json_decref((json_t *)o.result);
        return 0;
    }
    json_decref((json_t *)o.result);
    return -1;
}
