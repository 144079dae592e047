/*
 * svc_views.c — a tournament of the service as JSON (svc.h): its counts,
 * a game, its participants, its summary for lists, the whole view a
 * watcher gets first, and the updates that follow (tournament_update,
 * docs/protocol.md), sent through the host to the watchers it keeps.
 */
#include <stdio.h>
#include <string.h>

#include "protocol/wire.h"
#include "tournament/svc.h"

static void counts_of(const tsvc_tour *st, tour_counts *c)
{
    memset(c, 0, sizeof *c);
    if (!ts__is_ladder(st)) {
        tour_get_counts(st->t, c);
        return;
    }
    for (int64_t i = 0; i < st->ng; i++) {
        c->scheduled++;
        if (st->games[i].status == TOUR_RUNNING)
            c->running++;
        else if (st->games[i].status == TOUR_DONE)
            c->done++;
        else
            c->voided++;
    }
    c->expected = c->scheduled;
}

json_t *ts__counts_json(const tsvc_tour *st)
{
    tour_counts c;
    counts_of(st, &c);
    return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:i, s:i}", "pending", (json_int_t)c.pending,
                     "running", (json_int_t)c.running, "done", (json_int_t)c.done, "void",
                     (json_int_t)c.voided, "scheduled", (json_int_t)c.scheduled, "expected",
                     (json_int_t)c.expected, "round", c.round, "rounds", c.rounds);
}

static const char *part_name(const tsvc_tour *st, int i)
{
    return ts__is_ladder(st) ? st->parts[i].name : tour_get_spec(st->t)->participants[i].name;
}

json_t *ts__lad_result_json(const tsvc_tour *st, const lad_game *g)
{
    json_t *sc = json_array(), *rk = json_array();
    for (int i = 0; i < st->k; i++) {
        json_array_append_new(sc, json_real(g->score[i]));
        json_array_append_new(rk, json_integer(g->rank[i]));
    }
    return json_pack("{s:o, s:o, s:s, s:i}", "score", sc, "rank", rk, "end",
                     tour_end_name((tour_end)g->end), "culprit", g->culprit);
}

json_t *ts__game_json(const tsvc_tour *st, int64_t id)
{
    json_t *table = json_array();
    json_t *o;
    if (ts__is_ladder(st)) {
        const lad_game *g = &st->games[id];
        for (int s = 0; s < st->k; s++)
            json_array_append_new(table, json_string(st->parts[g->seat[s]].name));
        o = json_pack("{s:I, s:s, s:I, s:i, s:o, s:s}", "game", (json_int_t)id, "status",
                      tour_game_status_name((tour_game_status)g->status), "group",
                      (json_int_t)g->grp, "rotation", g->rot, "table", table, "match", g->match);
        if (g->status == TOUR_DONE)
            json_object_set_new(o, "result", ts__lad_result_json(st, g));
        return o;
    }
    tour_game g;
    tour_get_game(st->t, id, &g);
    for (int s = 0; s < st->k; s++)
        json_array_append_new(table, json_string(part_name(st, g.table[s])));
    const char *ref = tour_game_ref(st->t, id);
    o = json_pack("{s:I, s:s, s:I, s:i, s:i, s:o, s:o}", "game", (json_int_t)id, "status",
                  tour_game_status_name(g.status), "group", (json_int_t)g.group, "rotation",
                  g.rotation, "round", g.round, "table", table, "match",
                  ref && ref[0] ? json_string(ref) : json_null());
    tour_result r;
    if (g.status == TOUR_DONE && tour_get_result(st->t, id, &r) == 0) {
        json_t *sc = json_array(), *rk = json_array();
        for (int s = 0; s < st->k; s++) {
            json_array_append_new(sc, json_real(r.score[s]));
            json_array_append_new(rk, json_integer(r.rank[s]));
        }
        json_t *res = json_pack("{s:o, s:o, s:s, s:i}", "score", sc, "rank", rk, "end",
                                tour_end_name(r.end), "culprit", r.culprit);
        if (r.verdict)
            json_object_set_new(res, "verdict", json_string(r.verdict));
        json_object_set_new(o, "result", res);
    }
    return o;
}

static json_t *participants_json(const tsvc_tour *st)
{
    json_t *a = json_array();
    if (ts__is_ladder(st)) {
        for (int i = 0; i < st->np; i++)
            json_array_append_new(a, json_pack("{s:s, s:s, s:b}", "name", st->parts[i].name, "spec",
                                               st->parts[i].spec, "reference",
                                               st->parts[i].reference));
        return a;
    }
    const tour_spec *spec = tour_get_spec(st->t);
    for (int i = 0; i < spec->nparticipants; i++)
        json_array_append_new(a, json_pack("{s:s, s:s}", "name", spec->participants[i].name, "spec",
                                           spec->participants[i].spec));
    return a;
}

json_t *ts__summary_json(const tsvc_tour *st)
{
    json_t *o = json_pack(
        "{s:I, s:s, s:s, s:s, s:s, s:i, s:o, s:I, s:i}", "tournament", (json_int_t)st->id, "label",
        st->label, "format", proto_tour_format_name(st->format), "game", st->g->name, "state",
        ts__state_names[st->state], "participants",
        ts__is_ladder(st) ? st->np : tour_participants(st->t), "counts", ts__counts_json(st),
        "created", (json_int_t)st->created_ms, "concurrency", st->concurrency);
    if (st->note[0])
        json_object_set_new(o, "note", json_string(st->note));
    return o;
}

static int status_of(const tsvc_tour *st, int64_t i)
{
    if (ts__is_ladder(st))
        return st->games[i].status;
    tour_game g;
    tour_get_game(st->t, i, &g);
    return g.status;
}

/* Every game that started (running, done): the most recent ones when
 * there are more than TOUR_SVC_GAMES_LISTED. */
static json_t *games_json(const tsvc_tour *st, bool *truncated)
{
    int64_t n = ts__is_ladder(st) ? st->ng : tour_game_count(st->t);
    int64_t listed = 0, from = n;
    /* walk back from the newest to find where the listing starts */
    while (from > 0 && listed < TOUR_SVC_GAMES_LISTED) {
        from--;
        int status = status_of(st, from);
        listed += status == TOUR_RUNNING || status == TOUR_DONE;
    }
    *truncated = false;
    for (int64_t i = 0; i < from && !*truncated; i++) {
        int status = ts__is_ladder(st) ? TOUR_DONE : status_of(st, i);
        *truncated = status == TOUR_RUNNING || status == TOUR_DONE;
    }
    json_t *a = json_array();
    for (int64_t i = from; i < n; i++) {
        int status = status_of(st, i);
        if (status == TOUR_RUNNING || status == TOUR_DONE)
            json_array_append_new(a, ts__game_json(st, i));
    }
    return a;
}

json_t *ts__view_json(const tsvc_tour *st, const json_t *id)
{
    json_t *r = proto_reply("tournament", id);
    json_object_update_new(r, ts__summary_json(st));
    json_object_set_new(r, "rules", wire_rules_json(st->g, &st->rules));
    json_object_update_new(
        r, json_pack("{s:{s:I, s:I, s:I, s:I}, s:{s:s, s:s, s:i, s:s, s:I, "
                     "s:I, s:s}}",
                     "time_control", "move_ms", (json_int_t)st->tc.move_ms, "first_move_ms",
                     (json_int_t)st->tc.first_move_ms, "bank_ms", (json_int_t)st->tc.bank_ms,
                     "increment_ms", (json_int_t)st->tc.increment_ms, "policies", "timeout",
                     proto_timeout_name(st->pol.timeout), "illegal",
                     proto_illegal_name(st->pol.illegal), "max_illegal", st->pol.max_illegal,
                     "disconnect", proto_disconnect_name(st->pol.disconnect), "reconnect_grace_ms",
                     (json_int_t)st->pol.reconnect_grace_ms, "grace_ms",
                     (json_int_t)st->pol.grace_ms, "info", proto_info_name(st->pol.info)));
    json_object_set_new(r, "participants_list", participants_json(st));
    json_object_set_new(r, "standings", st->standings ? json_incref(st->standings) : json_null());
    bool truncated;
    json_object_set_new(r, "games", games_json(st, &truncated));
    if (truncated)
        json_object_set_new(r, "games_truncated", json_true());
    if (ts__is_ladder(st))
        json_object_set_new(r, "placement_games", json_integer(st->placement));
    return r;
}

void ts__push_update(tsvc_tour *st, json_t *game, bool with_standings)
{
    tour_service *svc = st->svc;
    if (!svc->host.watched || !svc->host.watched(svc->host.user, st->id)) {
        json_decref(game);
        return;
    }
    json_t *u = json_pack("{s:s, s:I, s:s, s:o}", "type", "tournament_update", "tournament",
                          (json_int_t)st->id, "state", ts__state_names[st->state], "counts",
                          ts__counts_json(st));
    if (st->note[0])
        json_object_set_new(u, "note", json_string(st->note));
    if (game)
        json_object_set_new(u, "game", game);
    if (with_standings && st->standings)
        json_object_set(u, "standings", st->standings);
    svc->host.update(svc->host.user, st->id, u);
}
