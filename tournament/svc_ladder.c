/*
 * svc_ladder.c — the ladder (format "ladder"; svc.h), and a finished
 * game's result applied to a tournament of either kind. The ladder has no
 * schedule. Its
 * participants — the reference bots it was created with, and registered
 * bots that connect for its game — are paired whenever they are free
 * (tour_ladder_pick: newcomers against references first, then the closest
 * ratings), each table playing one group (k games with the seats rotated
 * and the same chance seed), one game after the other, each an ordinary
 * server match made through the host. Ratings are fitted over every ladder
 * game (svc_standings.c). Its participants and games are rows of its own
 * tables (svc_store.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/errors.h"
#include "tournament/driver.h"
#include "tournament/ladder.h"
#include "tournament/svc.h"

int ts__lad_add_part(tsvc_tour *st, const char *name, const char *spec, bool reference, bool write)
{
    if (st->np >= TOUR_MAX_PARTICIPANTS)
        return ENG_ETOO_MANY;
    if (st->np == st->capp) {
        int cap = st->capp ? st->capp * 2 : 16;
        lad_part *p = realloc(st->parts, (size_t)cap * sizeof *p);
        if (!p)
            return ENG_ENOMEM;
        st->parts = p;
        st->capp = cap;
    }
    lad_part *p = &st->parts[st->np];
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", name);
    snprintf(p->spec, sizeof p->spec, "%s", spec);
    p->reference = reference;
    p->last_opp = -1;
    if (write && !ts__lad_store_part(st, st->np, p))
        return ENG_ESTORAGE;
    st->np++;
    return 0;
}

static lad_game *lad_push_game(tsvc_tour *st)
{
    if (st->ng == st->capg) {
        int64_t cap = st->capg ? st->capg * 2 : 64;
        lad_game *g = realloc(st->games, (size_t)cap * sizeof *g);
        if (!g)
            return NULL;
        st->games = g;
        st->capg = cap;
    }
    lad_game *g = &st->games[st->ng];
    memset(g, 0, sizeof *g);
    g->id = st->ng;
    g->culprit = -1;
    st->ng++;
    return g;
}

/* Start the next game of open group gr. */
static bool lad_start(tsvc_tour *st, lad_group *gr)
{
    tour_service *svc = st->svc;
    const char *specs[ENG_MAX_PLAYERS], *names[ENG_MAX_PLAYERS];
    int seat[ENG_MAX_PLAYERS];
    int rot = gr->next_rot;
    for (int s = 0; s < st->k; s++) {
        /* member b sits in seat (b + rot) mod k, as in every tournament group */
        int b = ((s - rot) % st->k + st->k) % st->k;
        seat[s] = gr->members[b];
        specs[s] = st->parts[seat[s]].spec;
        names[s] = st->parts[seat[s]].name;
    }
    if (svc->host.room && !svc->host.room(svc->host.user, specs, st->k))
        return false;
    if (!ts__tx(svc, "BEGIN IMMEDIATE"))
        return false;
    char ref[TOUR_REF_MAX + 1] = "", err[400];
    int rc = ts__match_create(st, specs, names, gr->seed, NULL, st->ng, ref, sizeof ref, err,
                              sizeof err);
    if (rc != 0) {
        ts__tx(svc, "ROLLBACK");
        if (rc != TOUR_HOST_WAIT) {
            char note[256];
            snprintf(note, sizeof note, "a game could not start: %.200s", err);
            ts__set_state(st, TS_PAUSED, note);
        }
        return false;
    }
    lad_game *g = lad_push_game(st);
    if (!g) {
        ts__tx(svc, "ROLLBACK");
        svc->host.drop_match(svc->host.user, ref);
        return false;
    }
    g->grp = gr->grp;
    g->rot = rot;
    memcpy(g->seat, seat, sizeof seat);
    g->chance_seed = gr->seed;
    snprintf(g->match, sizeof g->match, "%s", ref);
    g->status = TOUR_RUNNING;
    if (!ts__lad_store_game(st, g) || !ts__tx(svc, "COMMIT")) {
        ts__tx(svc, "ROLLBACK");
        st->ng--;
        svc->host.drop_match(svc->host.user, ref);
        ts__set_state(st, TS_PAUSED, "the database refused a write; start it again");
        return false;
    }
    gr->running = true;
    gr->next_rot++;
    ts__log(svc, TSVC_LOG_INFO, "tournament_game_started", "{s:I, s:I, s:s}", "tournament",
            (json_int_t)st->id, "game", (json_int_t)g->id, "match", ref);
    svc->host.play_match(svc->host.user, ref);
    ts__push_update(st, ts__game_json(st, g->id), false);
    return true;
}

/* The members of a game's group in table order (seat s holds member
 * (s - rot) mod k). */
static void lad_members(const tsvc_tour *st, const lad_game *g, int *members)
{
    for (int s = 0; s < st->k; s++)
        members[((s - g->rot) % st->k + st->k) % st->k] = g->seat[s];
}

static lad_group *lad_open(tsvc_tour *st, int64_t grp)
{
    for (int i = 0; i < st->nopen; i++)
        if (st->open[i].grp == grp)
            return &st->open[i];
    return NULL;
}

/* A group is over: its members are free again. */
static void lad_close_group(tsvc_tour *st, lad_group *gr)
{
    for (int s = 0; s < st->k; s++)
        st->parts[gr->members[s]].busy = false;
    *gr = st->open[--st->nopen];
}

/* Open a group for members (table order). */
static lad_group *lad_new_group(tsvc_tour *st, int64_t grp, const int *members, uint64_t seed,
                                int next_rot)
{
    if (st->nopen >= PROTO_MAX_CONCURRENCY)
        return NULL;
    lad_group *gr = &st->open[st->nopen++];
    memset(gr, 0, sizeof *gr);
    gr->grp = grp;
    memcpy(gr->members, members, (size_t)st->k * sizeof *members); /* k of them */
    gr->seed = seed;
    gr->next_rot = next_rot;
    for (int s = 0; s < st->k; s++)
        st->parts[members[s]].busy = true;
    return gr;
}

/* A registered bot connected for this ladder's game joins it. */
static void lad_enrol_one(void *ctx, const char *rname)
{
    tsvc_tour *st = ctx;
    char spec[PROTO_SPEC_MAX + 1];
    snprintf(spec, sizeof spec, "remote:%s", rname);
    for (int i = 0; i < st->np; i++)
        if (strcmp(st->parts[i].spec, spec) == 0)
            return;
    /* a name taken by another participant gets a suffix */
    char name[PROTO_NAME_MAX + 1];
    snprintf(name, sizeof name, "%s", rname);
    for (int i = 0; i < st->np; i++)
        if (strcmp(st->parts[i].name, name) == 0) {
            snprintf(name, sizeof name, "%.52s-%d", rname, st->np % 1000);
            break;
        }
    if (ts__lad_add_part(st, name, spec, false, true) == 0)
        ts__log(st->svc, TSVC_LOG_INFO, "ladder_joined", "{s:I, s:s}", "tournament",
                (json_int_t)st->id, "name", name);
}

/* A remote participant connected, and (free) below its capacity? */
static bool present(const tsvc_tour *st, const char *spec, bool free)
{
    const tsvc_host *h = &st->svc->host;
    if (!ts__is_remote(spec))
        return true;
    bool here = h->present && h->present(h->user, spec);
    return here && (!free || !h->busy || !h->busy(h->user, spec));
}

void ts__lad_pump(tsvc_tour *st)
{
    tour_service *svc = st->svc;
    if (st->registered && svc->host.enrol)
        svc->host.enrol(svc->host.user, st->g, lad_enrol_one, st);
    /* groups part-way: their next game (every member stays busy meanwhile);
     * a group with a registered bot that is no longer connected ends there
     * (its next game would only be a forfeit) */
    for (int i = 0; i < st->nopen && st->state == TS_RUNNING; i++) {
        lad_group *gr = &st->open[i];
        if (gr->running)
            continue;
        bool away = false;
        for (int s = 0; s < st->k && !away; s++)
            away = !present(st, st->parts[gr->members[s]].spec, false);
        if (away) {
            lad_close_group(st, gr);
            i--; /* the last group moved into slot i */
            continue;
        }
        lad_start(st, gr);
    }
    if (st->state != TS_RUNNING)
        return;
    int room = st->concurrency - st->nopen;
    if (room <= 0 || st->np < st->k)
        return;
    tour_ladder_player *free_ = malloc((size_t)st->np * sizeof *free_);
    int *picked = malloc((size_t)st->np * sizeof *picked);
    int nf = 0;
    for (int i = 0; free_ && picked && i < st->np; i++) {
        lad_part *p = &st->parts[i];
        /* only connected registered bots with room play ladder games */
        if (p->busy || !present(st, p->spec, true))
            continue;
        free_[nf++] = (tour_ladder_player){.id = i,
                                           .rating = p->elo,
                                           .games = p->games,
                                           .reference = p->reference,
                                           .last_opponent = p->last_opp};
    }
    tour_ladder_opts o = {.seats = st->k, .placement_games = st->placement, .max_tables = room};
    /* references only meet the others: a table of references alone takes
     * the reference that has played most out of the pool, and the pick is
     * made again (each round removes one bot: it ends) */
    int n = 0;
    for (;;) {
        n = nf >= st->k ? tour_ladder_pick(free_, nf, &o, picked, st->np / st->k) : 0;
        if (n < 0)
            n = 0;
        int all_ref = -1;
        for (int x = 0; x < n && all_ref < 0; x++) {
            bool someone = false;
            for (int s = 0; s < st->k; s++)
                someone = someone || !st->parts[picked[x * st->k + s]].reference;
            if (!someone)
                all_ref = x;
        }
        if (all_ref < 0)
            break;
        int drop = -1;
        for (int s = 0; s < st->k; s++) {
            int id = picked[all_ref * st->k + s];
            if (drop < 0 || st->parts[id].games > st->parts[drop].games)
                drop = id;
        }
        for (int i = 0; i < nf; i++)
            if (free_[i].id == drop) {
                free_[i] = free_[--nf];
                break;
            }
    }
    for (int x = 0; x < n && st->state == TS_RUNNING; x++) {
        const int *members = picked + x * st->k;
        lad_group *gr = lad_new_group(st, st->next_grp++, members, ts__fresh_seed(svc), 0);
        if (gr && !lad_start(st, gr))
            lad_close_group(st, gr); /* not started: nobody is kept busy by it */
    }
    free(free_);
    free(picked);
}

void ts__lad_finished(tsvc_tour *st, int64_t game, const tour_result *r)
{
    if (game < 0 || game >= st->ng || st->games[game].status != TOUR_RUNNING)
        return;
    lad_game *g = &st->games[game];
    g->status = TOUR_DONE;
    for (int s = 0; s < st->k; s++) {
        g->score[s] = r->score[s];
        g->rank[s] = r->rank[s];
    }
    g->end = r->end;
    g->culprit = r->culprit;
    ts__lad_store_game(st, g);
    for (int s = 0; s < st->k; s++) {
        lad_part *p = &st->parts[g->seat[s]];
        p->games++;
        if (st->k == 2)
            p->last_opp = g->seat[1 - s];
    }
    lad_group *gr = lad_open(st, g->grp);
    if (gr) {
        gr->running = false;
        if (gr->next_rot >= st->k || st->state == TS_CANCELLED)
            lad_close_group(st, gr);
    }
}

/* ---- results of either kind --------------------------------------------------------------- */

void ts__apply_result(tsvc_tour *st, int64_t game, const tour_result *r)
{
    char err[256];
    if (ts__is_ladder(st)) {
        ts__lad_finished(st, game, r);
    } else if (tour_drive_ended(st->t, game, r, err, sizeof err) != 0) {
        ts__log(st->svc, TSVC_LOG_ERROR, "tournament_result_refused", "{s:I, s:I, s:s}",
                "tournament", (json_int_t)st->id, "game", (json_int_t)game, "reason", err);
        return;
    }
    ts__log(st->svc, TSVC_LOG_INFO, "tournament_game_finished", "{s:I, s:I}", "tournament",
            (json_int_t)st->id, "game", (json_int_t)game);
    ts__push_update(st, ts__game_json(st, game), false);
}

/* ---- resume -------------------------------------------------------------------------------- */

static void resume_part(tsvc_tour *st, const char *name, const char *spec, bool reference)
{
    ts__lad_add_part(st, name, spec, reference, false);
}

static bool resume_game_row(tsvc_tour *st, const lad_game *row, bool ok)
{
    tour_service *svc = st->svc;
    lad_game *g = lad_push_game(st);
    if (!g)
        return false;
    int64_t at = g->id;
    *g = *row;
    ok = ok && g->id == at;
    if (!ok) {
        ts__log(svc, TSVC_LOG_ERROR, "ladder_row_damaged", "{s:I, s:I}", "tournament",
                (json_int_t)st->id, "game", (json_int_t)g->id);
        g->status = TOUR_VOID;
    }
    if (g->status == TOUR_DONE) {
        /* its match, if still held, keeps its tag */
        if (g->match[0] && svc->host.find_match) {
            tsvc_outcome o;
            memset(&o, 0, sizeof o);
            svc->host.find_match(svc->host.user, g->match, st->id, g->id, false, &o);
            json_decref((json_t *)o.result);
        }
        for (int s = 0; s < st->k; s++) {
            st->parts[g->seat[s]].games++;
            if (st->k == 2)
                st->parts[g->seat[s]].last_opp = g->seat[1 - s];
        }
    }
    if (g->grp >= st->next_grp)
        st->next_grp = g->grp + 1;
    return true;
}

void ts__lad_resume(tsvc_tour *st)
{
    tour_service *svc = st->svc;
    ts__lad_rows(st, resume_part, resume_game_row);
    /* the groups not finished: each one's last game is running, or done
     * with rotations to go (games of a group are stored in order) */
    int64_t *last = st->next_grp > 0 ? malloc((size_t)st->next_grp * sizeof *last) : NULL;
    for (int64_t x = 0; last && x < st->next_grp; x++)
        last[x] = -1;
    for (int64_t i = 0; last && i < st->ng; i++)
        if (st->games[i].grp >= 0 && st->games[i].grp < st->next_grp)
            last[st->games[i].grp] = i;
    for (int64_t x = 0; last && x < st->next_grp; x++) {
        if (last[x] < 0)
            continue;
        lad_game *g = &st->games[last[x]];
        bool open = g->status == TOUR_RUNNING || (g->status == TOUR_DONE && g->rot + 1 < st->k);
        if (!open || st->state == TS_CANCELLED || st->state == TS_DONE)
            continue;
        int members[ENG_MAX_PLAYERS];
        lad_members(st, g, members);
        lad_group *gr = lad_new_group(st, g->grp, members, g->chance_seed, g->rot + 1);
        if (gr)
            gr->running = g->status == TOUR_RUNNING;
    }
    free(last);
    for (int64_t i = 0; i < st->ng; i++) {
        lad_game *g = &st->games[i];
        if (g->status != TOUR_RUNNING)
            continue;
        tour_result r;
        char verdict[TOUR_VERDICT_MAX + 1];
        int again = ts__match_again(st, i, g->match, &r, verdict, sizeof verdict);
        if (again == 1)
            continue; /* live: its end comes as usual */
        if (again == 0) {
            ts__apply_result(st, i, &r);
            continue;
        }
        /* its match is not there: the game is void, its group goes on */
        ts__log(svc, TSVC_LOG_WARN, "ladder_game_lost", "{s:I, s:I}", "tournament",
                (json_int_t)st->id, "game", (json_int_t)i);
        g->status = TOUR_VOID;
        ts__lad_store_game(st, g);
        lad_group *gr = lad_open(st, g->grp);
        if (gr) {
            gr->running = false;
            if (gr->next_rot >= st->k)
                lad_close_group(st, gr);
        }
    }
}
