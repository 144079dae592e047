/*
 * tour.c — the tournament object: creation from a spec, the game life cycle
 * (pending -> running -> done, or void), results and their checks, pause and
 * cancel, counts. What the formats schedule lives in schedule.c; every
 * change goes through the journal (journal.c) to the store before a call
 * returns (see tour.h and internal.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tournament/internal.h"

/* ---- names ------------------------------------------------------------------ */

const char *tour_game_status_name(tour_game_status s)
{
    static const char *const names[] = {"pending", "running", "done", "void"};
    return (unsigned)s < 4 ? names[s] : "unknown";
}

static const char *const end_names[TOUR_END_COUNT_] = {"normal",  "resign", "timeout",   "forfeit",
                                                       "illegal", "crash",  "disconnect"};

const char *tour_end_name(tour_end e)
{
    return (unsigned)e < TOUR_END_COUNT_ ? end_names[e] : "unknown";
}

int tour_end_parse(const char *s, tour_end *out)
{
    for (int i = 0; s && i < TOUR_END_COUNT_; i++)
        if (strcmp(s, end_names[i]) == 0) {
            *out = (tour_end)i;
            return 0;
        }
    return ENG_EINVAL;
}

/* ---- seeds -------------------------------------------------------------------- */

uint64_t tour__chance_seed(const tour *t, int64_t group)
{
    eng_rng r;
    eng_rng_seed_stream(&r, t->spec->seed ^ TOUR__TAG_CHANCE, (uint64_t)group);
    return eng_rng_next(&r);
}

uint64_t tour__seat_seed(const tour *t, int64_t game, int seat)
{
    eng_rng r;
    eng_rng_seed_stream(&r, t->spec->seed ^ TOUR__TAG_BOT,
                        (uint64_t)game * ENG_MAX_PLAYERS + (uint64_t)seat);
    return eng_rng_next(&r);
}

/* ---- creation ------------------------------------------------------------------ */

static int next_pow2(int n)
{
    int p = 1;
    while (p < n)
        p <<= 1;
    return p;
}

int tour__alloc(const tour_spec *spec, tour **out, char *err, size_t errcap)
{
    *out = NULL;
    int rc = tour_spec_check(spec, err, errcap);
    if (rc)
        return rc;
    tour *t = calloc(1, sizeof *t);
    if (!t || !(t->spec = tour__spec_copy(spec))) {
        free(t);
        return eng_seterr(err, errcap, ENG_ENOMEM, "out of memory");
    }
    const tour_spec *s = t->spec;
    t->k = s->rules.players;
    t->n = s->nparticipants;
    t->gpp = tour_spec_games_per_pair(s);
    t->gpg = (int)(t->gpp / t->k);
    t->anchor = s->anchor ? tour_find_participant(t, s->anchor) : -1;
    t->ko_size = next_pow2(t->n);
    switch (s->format) {
    case TOUR_ROUND_ROBIN: {
        bool balanced;
        tour__tables_per_cycle(s->format, t->n, t->k, &balanced);
        if (t->k == 2)
            t->rounds_total = (t->n % 2 ? t->n : t->n - 1) * s->cycles;
        else if (balanced)
            t->rounds_total = (t->n - 1 + t->k - 2) / (t->k - 1) * s->cycles;
        else
            t->rounds_total = s->cycles;
        break;
    }
    case TOUR_GAUNTLET: t->rounds_total = s->cycles; break;
    case TOUR_SWISS: t->rounds_total = s->rounds ? s->rounds : tour__swiss_auto_rounds(t->n); break;
    case TOUR_KNOCKOUT:
        t->gpg = s->best_of > 0 ? s->best_of : (t->gpg > 0 ? t->gpg : 1);
        t->rounds_total = tour__ko_rounds(t);
        break;
    }
    t->sprt.state = TOUR_SPRT_CONTINUE;
    t->sprt.decided_at = -1;
    if (s->sprt.enabled)
        tour_sprt_bounds(&s->sprt, &t->sprt.lower, &t->sprt.upper);
    *out = t;
    return 0;
}

int tour_create(const tour_spec *spec, tour **out, char *err, size_t errcap)
{
    tour *t;
    int rc = tour__alloc(spec, &t, err, errcap);
    if (rc)
        return rc;
    if ((rc = tour__schedule_initial(t)) || (rc = tour__advance(t))) {
        tour_destroy(t);
        return eng_seterr(err, errcap, rc, "cannot schedule the tournament: %s",
                          eng_err_message(rc));
    }
    tour__commit(t); /* no store yet: just empties the journal */
    *out = t;
    return 0;
}

void tour_destroy(tour *t)
{
    if (!t)
        return;
    int64_t ng = tour__ngames(t);
    for (int64_t i = 0; i < ng; i++) {
        if (t->res[i]) {
            free(t->res[i]->verdict);
            free(t->res[i]);
        }
        free(t->ref[i]);
    }
    for (int64_t p = 0; p < t->npair; p++)
        free(t->pair[p].grp);
    free(t->pair);
    free(t->group_pair);
    free(t->status);
    free(t->res);
    free(t->ref);
    free(t->j_games);
    tour_spec_free(t->spec);
    free(t);
}

/* ---- accessors ------------------------------------------------------------------- */

const tour_spec *tour_get_spec(const tour *t)
{
    return t->spec;
}

int tour_seats(const tour *t)
{
    return t->k;
}

int tour_participants(const tour *t)
{
    return t->n;
}

int tour_find_participant(const tour *t, const char *name)
{
    for (int i = 0; name && i < t->n; i++)
        if (strcmp(t->spec->participants[i].name, name) == 0)
            return i;
    return -1;
}

int tour__seat_participant(const tour *t, int64_t id, int seat)
{
    int64_t g = id / t->k;
    int r = (int)(id % t->k);
    const tour__pairing *p = &t->pair[t->group_pair[g]];
    return p->member[((seat - r) % t->k + t->k) % t->k];
}

int64_t tour_game_count(const tour *t)
{
    return tour__ngames(t);
}

int tour_get_game(const tour *t, int64_t id, tour_game *out)
{
    if (id < 0 || id >= tour__ngames(t))
        return ENG_EINVAL;
    memset(out, 0, sizeof *out);
    out->id = id;
    out->group = id / t->k;
    out->rotation = (int)(id % t->k);
    out->pairing = t->group_pair[out->group];
    out->round = t->pair[out->pairing].round;
    out->seats = t->k;
    for (int s = 0; s < t->k; s++) {
        out->table[s] = tour__seat_participant(t, id, s);
        out->seat_seed[s] = tour__seat_seed(t, id, s);
    }
    out->chance_seed = tour__chance_seed(t, out->group);
    out->status = (tour_game_status)t->status[id];
    return 0;
}

const char *tour_game_ref(const tour *t, int64_t id)
{
    return id >= 0 && id < tour__ngames(t) ? t->ref[id] : NULL;
}

/* ---- the game life cycle ----------------------------------------------------------- */

int tour_next_game(tour *t, const bool *busy, tour_game *out)
{
    if (t->broken)
        return ENG_ESTORAGE;
    if (t->paused || t->cancelled)
        return 0;
    int64_t ng = tour__ngames(t);
    while (t->cursor < ng && t->status[t->cursor] != TOUR_PENDING)
        t->cursor++;
    for (int64_t id = t->cursor; id < ng; id++) {
        if (t->status[id] != TOUR_PENDING)
            continue;
        bool ok = true;
        for (int s = 0; busy && ok && s < t->k; s++)
            ok = !busy[tour__seat_participant(t, id, s)];
        if (ok)
            return tour_get_game(t, id, out) == 0 ? 1 : ENG_EINTERNAL;
    }
    return 0;
}

static int check_id(const tour *t, int64_t id)
{
    return id >= 0 && id < tour__ngames(t) ? 0 : ENG_EINVAL;
}

int tour_game_started(tour *t, int64_t id, const char *ref)
{
    if (t->broken)
        return ENG_ESTORAGE;
    if (check_id(t, id) || t->status[id] != TOUR_PENDING)
        return ENG_EINVAL;
    if (ref && strlen(ref) > TOUR_REF_MAX)
        return ENG_EINVAL;
    char *copy = NULL;
    if (ref && !(copy = strdup(ref)))
        return ENG_ENOMEM;
    int rc = tour__set_status(t, id, TOUR_RUNNING);
    if (rc) {
        free(copy);
        return rc;
    }
    free(t->ref[id]);
    t->ref[id] = copy;
    return tour__commit(t);
}

int tour_game_requeue(tour *t, int64_t id)
{
    if (t->broken)
        return ENG_ESTORAGE;
    if (check_id(t, id) || t->status[id] != TOUR_RUNNING)
        return ENG_EINVAL;
    int rc = tour__set_status(t, id, t->cancelled ? TOUR_VOID : TOUR_PENDING);
    if (rc)
        return rc;
    free(t->ref[id]);
    t->ref[id] = NULL;
    return tour__commit(t);
}

void tour_result_init(tour_result *r)
{
    memset(r, 0, sizeof *r);
    r->end = TOUR_END_NORMAL;
    r->culprit = -1;
}

/* Check r for a game of k seats; fill *out (verdict not copied). */
static int check_result(int k, const tour_result *r, tour__res *out, char *err, size_t errcap)
{
    memset(out, 0, sizeof *out);
    bool all_zero = true, has_first = false;
    for (int s = 0; s < k; s++) {
        if (!isfinite(r->score[s]))
            return eng_seterr(err, errcap, ENG_EINVAL, "the score of seat %d is not a number", s);
        if (!isfinite(r->time_ms[s]) || r->time_ms[s] < 0)
            return eng_seterr(err, errcap, ENG_EINVAL, "the time of seat %d must be >= 0 ms", s);
        if (r->moves[s] < 0)
            return eng_seterr(err, errcap, ENG_EINVAL, "the move count of seat %d is negative", s);
        if (r->rank[s] != 0)
            all_zero = false;
        if (r->rank[s] == 1)
            has_first = true;
    }
    for (int s = 0; s < k; s++) {
        if (all_zero) {
            int above = 0;
            for (int o = 0; o < k; o++)
                above += r->score[o] > r->score[s];
            out->rank[s] = (int8_t)(1 + above);
        } else if (r->rank[s] < 1 || r->rank[s] > k) {
            return eng_seterr(err, errcap, ENG_EINVAL,
                              "the rank of seat %d must be from 1 to %d, got %d", s, k, r->rank[s]);
        } else {
            out->rank[s] = (int8_t)r->rank[s];
        }
        out->score[s] = r->score[s];
        out->time_ms[s] = r->time_ms[s];
        out->moves[s] = r->moves[s];
        if (r->time_loss[s])
            out->time_loss |= (uint8_t)(1u << s);
    }
    if (!all_zero && !has_first)
        return eng_seterr(err, errcap, ENG_EINVAL, "no seat is ranked first");
    if ((unsigned)r->end >= TOUR_END_COUNT_)
        return eng_seterr(err, errcap, ENG_EINVAL, "unknown end reason %d", (int)r->end);
    if (r->culprit < -1 || r->culprit >= k)
        return eng_seterr(err, errcap, ENG_EINVAL, "the culprit must be a seat from 0 to %d or -1",
                          k - 1);
    if (r->verdict && strlen(r->verdict) > TOUR_VERDICT_MAX)
        return eng_seterr(err, errcap, ENG_EINVAL, "the verdict is longer than %d bytes",
                          TOUR_VERDICT_MAX);
    out->end = (uint8_t)r->end;
    out->culprit = (int8_t)r->culprit;
    return 0;
}

int tour_game_finished(tour *t, int64_t id, const tour_result *r, char *err, size_t errcap)
{
    if (t->broken)
        return eng_seterr(err, errcap, ENG_ESTORAGE,
                          "an earlier write to the database failed; reload the tournament");
    if (check_id(t, id))
        return eng_seterr(err, errcap, ENG_EINVAL, "no game %lld in this tournament",
                          (long long)id);
    if (t->status[id] == TOUR_DONE)
        return eng_seterr(err, errcap, ENG_EINVAL,
                          "game %lld already has a result; a result is never counted twice",
                          (long long)id);
    if (t->status[id] == TOUR_VOID)
        return eng_seterr(err, errcap, ENG_EINVAL,
                          "game %lld is void (its tie or test was decided, or the tournament was "
                          "cancelled); the result is not counted",
                          (long long)id);
    if (!r)
        return eng_seterr(err, errcap, ENG_EINVAL, "no result");
    if (r->record && strlen(r->record) > TOUR_RECORD_MAX)
        return eng_seterr(err, errcap, ENG_EINVAL, "the game record is longer than %d bytes",
                          TOUR_RECORD_MAX);
    tour__res tmp;
    int rc = check_result(t->k, r, &tmp, err, errcap);
    if (rc)
        return rc;
    tour__res *res = malloc(sizeof *res);
    if (!res || (r->verdict && *r->verdict && !(tmp.verdict = strdup(r->verdict)))) {
        free(res);
        return eng_seterr(err, errcap, ENG_ENOMEM, "out of memory");
    }
    *res = tmp;
    if ((rc = tour__set_status(t, id, TOUR_DONE))) {
        free(res->verdict);
        free(res);
        return eng_seterr(err, errcap, rc, "out of memory");
    }
    t->res[id] = res;
    if ((rc = tour__advance(t))) {
        t->broken = true; /* the schedule may be half extended: refuse more */
        return eng_seterr(err, errcap, rc, "cannot schedule further games: %s",
                          eng_err_message(rc));
    }
    t->j_record = r->record;
    t->j_record_game = id;
    if ((rc = tour__commit(t)))
        return eng_seterr(err, errcap, rc, "the result could not be stored");
    return 0;
}

int tour_get_result(const tour *t, int64_t id, tour_result *out)
{
    if (check_id(t, id) || !t->res[id])
        return ENG_EINVAL;
    const tour__res *r = t->res[id];
    tour_result_init(out);
    for (int s = 0; s < t->k; s++) {
        out->score[s] = r->score[s];
        out->rank[s] = r->rank[s];
        out->time_ms[s] = r->time_ms[s];
        out->moves[s] = r->moves[s];
        out->time_loss[s] = (r->time_loss >> s) & 1;
    }
    out->end = (tour_end)r->end;
    out->culprit = r->culprit;
    out->verdict = r->verdict;
    return 0;
}

/* ---- state of the whole -------------------------------------------------------------- */

bool tour_is_done(const tour *t)
{
    return t->cnt[TOUR_PENDING] == 0 && t->cnt[TOUR_RUNNING] == 0 && !tour__more_rounds(t);
}

int tour_set_paused(tour *t, bool paused)
{
    if (t->broken)
        return ENG_ESTORAGE;
    if (t->paused != paused) {
        t->paused = paused;
        t->j_flags = true;
    }
    return tour__commit(t);
}

bool tour_is_paused(const tour *t)
{
    return t->paused;
}

int tour_cancel(tour *t)
{
    if (t->broken)
        return ENG_ESTORAGE;
    if (!t->cancelled) {
        t->cancelled = true;
        t->j_flags = true;
        int rc = tour__void_pending_all(t);
        if (rc)
            return rc;
    }
    return tour__commit(t);
}

bool tour_is_cancelled(const tour *t)
{
    return t->cancelled;
}

void tour_get_counts(const tour *t, tour_counts *out)
{
    memset(out, 0, sizeof *out);
    out->pending = t->cnt[TOUR_PENDING];
    out->running = t->cnt[TOUR_RUNNING];
    out->done = t->cnt[TOUR_DONE];
    out->voided = t->cnt[TOUR_VOID];
    out->scheduled = tour__ngames(t);
    out->expected = tour__expected_games(t);
    out->round = t->rounds_scheduled;
    out->rounds = t->rounds_total;
}

bool tour_get_sprt(const tour *t, tour_sprt_status *out)
{
    if (!t->spec->sprt.enabled)
        return false;
    *out = t->sprt;
    return true;
}

bool tour_knockout_reached(const tour *t, int participant, int *round, bool *alive)
{
    if (t->spec->format != TOUR_KNOCKOUT || participant < 0 || participant >= t->n)
        return false;
    int reached[TOUR_MAX_PARTICIPANTS];
    bool al[TOUR_MAX_PARTICIPANTS];
    if (tour__ko_progress(t, reached, al))
        return false;
    *round = reached[participant];
    *alive = al[participant];
    return true;
}

int tour_knockout_tie(const tour *t, int64_t pairing, int *a, int *b, int *winner, const char **how)
{
    if (t->spec->format != TOUR_KNOCKOUT || pairing < 0 || pairing >= t->npair)
        return ENG_EINVAL;
    *a = t->pair[pairing].member[0];
    *b = t->pair[pairing].member[1];
    bool extra;
    tour__ko_eval(t, pairing, winner, how, &extra);
    return 0;
}

bool tour_swiss_score(const tour *t, int participant, double *points, double *buchholz, int *byes)
{
    if (t->spec->format != TOUR_SWISS || participant < 0 || participant >= t->n)
        return false;
    double p[TOUR_MAX_PARTICIPANTS], bh[TOUR_MAX_PARTICIPANTS];
    int by[TOUR_MAX_PARTICIPANTS];
    if (tour__swiss_state(t, p, bh, by))
        return false;
    *points = p[participant];
    *buchholz = bh[participant];
    *byes = by[participant];
    return true;
}
