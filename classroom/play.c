/*
 * play.c — a gate or the final of a course, played by the tournament runner
 * (classroom.h, "play"): a round-robin of the participants with the seats
 * of each pair swapped within every group, faults forfeiting the game, each
 * game's record, stderr, time and fault bundles handed to the caller, and the standings
 * (with Bradley–Terry ratings) at the end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classroom/classroom.h"
#include "engine/errors.h"
#include "tournament/runner.h"
#include "tournament/standings.h"
#include "tournament/tour.h"

typedef struct play_ctx {
    const class_play_config *cfg;
} play_ctx;

static void on_end(const tour_run_game *info, void *user)
{
    play_ctx *ctx = user;
    if (!ctx->cfg->on_game)
        return;
    const tour_game *gm = info->game;
    const tour_result *r = info->result;
    class_game cg;
    memset(&cg, 0, sizeof cg);
    cg.index = gm->id;
    cg.seats = gm->seats;
    for (int s = 0; s < gm->seats; s++) {
        cg.who[s] = gm->table[s];
        cg.score[s] = r->score[s];
        cg.rank[s] = r->rank[s];
        cg.think_ms[s] = info->think_ms[s];
        cg.moves[s] = info->decisions[s];
        cg.stderr_text[s] = info->stderr_text[s] ? info->stderr_text[s] : "";
        cg.bundle[s] = info->bundle[s];
        cg.startup_ms[s] = info->startup_ms[s];
    }
    if (r->rank[0] == 0) { /* ranked by score */
        for (int s = 0; s < gm->seats; s++) {
            cg.rank[s] = 1;
            for (int o = 0; o < gm->seats; o++)
                if (r->score[o] > r->score[s])
                    cg.rank[s]++;
        }
    }
    cg.end = tour_end_name(r->end);
    cg.culprit = r->culprit;
    cg.verdict = r->verdict ? r->verdict : "";
    cg.record = r->record ? r->record : "";
    ctx->cfg->on_game(&cg, ctx->cfg->user);
}

const char *class_format_name(int format)
{
    return tour_format_name((tour_format)format);
}

/* The first criterion of the format's order (tournament/standings.c) on
 * which `up` (placed just above) and `row` differ: what placed row lower. */
static const char *decided_by(tour_format f, const tour_row *up, const tour_row *row)
{
    if (!up || up->place == row->place)
        return "";
    switch (f) {
    case TOUR_SWISS:
        if (up->swiss_points != row->swiss_points)
            return "Swiss points";
        if (up->buchholz != row->buchholz)
            return "Buchholz";
        if (up->points != row->points)
            return "points";
        break;
    case TOUR_KNOCKOUT:
        if (up->ko_reached != row->ko_reached)
            return "round reached";
        break;
    default:
        if (up->rate != row->rate)
            return "rate";
        if (up->league.points != row->league.points)
            return "league points";
        if (up->pd != row->pd)
            return "score difference";
        break;
    }
    return "roster order";
}

int class_standings_fill(const tour *t, class_standing *out)
{
    tour_standings *s = tour_standings_new(t);
    if (!s)
        return ENG_ENOMEM;
    for (int i = 0; i < s->n; i++) {
        const tour_row *row = &s->rows[i];
        class_standing *o = &out[row->participant];
        o->league_points = row->league.points;
        o->score_diff = row->pd;
        o->swiss_points = row->swiss_points;
        o->buchholz = row->buchholz;
        o->ko_reached = row->ko_reached;
        o->roster = row->participant + 1;
        o->decided_by = decided_by(s->format, i ? &s->rows[i - 1] : NULL, row);
        o->place = row->place;
        o->games = row->games;
        o->wins = row->wins;
        o->losses = row->losses;
        o->draws = row->draws;
        o->points = row->points;
        o->rate = row->rate;
        o->elo = row->elo;
        o->elo_lo = row->elo_lo;
        o->elo_hi = row->elo_hi;
        o->ms_per_move = row->ms_per_move;
        o->faults = row->faults;
    }
    tour_standings_free(s);
    return 0;
}

int class_play(const class_play_config *cfg, class_standing *out, char *err, size_t errcap)
{
    if (!cfg->game || cfg->n < 2 || !cfg->specs || !cfg->names) {
        snprintf(err, errcap, "a run needs a game and at least two participants");
        return ENG_EINVAL;
    }
    tour_participant *parts = calloc((size_t)cfg->n, sizeof *parts);
    if (!parts) {
        snprintf(err, errcap, "out of memory");
        return ENG_ENOMEM;
    }
    for (int i = 0; i < cfg->n; i++) {
        parts[i].name = cfg->names[i];
        parts[i].spec = cfg->specs[i];
    }
    tour_spec spec;
    tour_spec_init(&spec);
    spec.format = (tour_format)cfg->format;
    spec.game = cfg->game;
    spec.rules = cfg->rules;
    spec.participants = parts;
    spec.nparticipants = cfg->n;
    spec.cycles = 1;
    spec.games_per_pair = cfg->games_per_pair;
    spec.seed = cfg->seed;
    tour *t = NULL;
    int rc = tour_create(&spec, &t, err, errcap);
    free(parts);
    if (rc)
        return rc;
    play_ctx ctx = {.cfg = cfg};
    tour_run_config rc_cfg;
    tour_run_config_default(&rc_cfg);
    rc_cfg.concurrency = cfg->threads > 0 ? cfg->threads : 1;
    rc_cfg.move_ms = cfg->move_ms;
    if (cfg->startup_ms > 0)
        rc_cfg.players.startup_ms = cfg->startup_ms;
    rc_cfg.policy = TOUR_FAULT_FORFEIT;
    rc_cfg.records = true;
    rc_cfg.bundles = true; /* each program's fault kept, for its student (docs/bundles.md) */
    rc_cfg.source = cfg->source ? cfg->source : "tessera course";
    rc_cfg.stop = cfg->stop;
    rc_cfg.on_end = on_end;
    rc_cfg.user = &ctx;
    tour_run_stats st;
    rc = tour_run(t, &rc_cfg, &st, err, errcap);
    if (rc == 0 && st.stopped) {
        snprintf(err, errcap, "stopped");
        rc = ENG_ESHUTTING_DOWN;
    }
    if (rc == 0 && class_standings_fill(t, out) != 0) {
        snprintf(err, errcap, "out of memory");
        rc = ENG_ENOMEM;
    }
    tour_destroy(t);
    return rc;
}
