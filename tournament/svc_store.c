/*
 * svc_store.c — the service's own tables (svc.h), beside the tour_ tables
 * of store.h, on the server's database (SQLite or PostgreSQL, storage/db.h):
 *
 *   srv_tournaments      one row per tournament or ladder: its settings
 *                        (format, game, rules, time control, policies, ...),
 *                        state and note; its tour_ tournament (tour_id); on
 *                        a shared database its owner and the summary the
 *                        other servers' lists show
 *   ladder_participants  a ladder's participants, in order
 *   ladder_games         a ladder's games: group, rotation, seats, chance
 *                        seed, match, status, result
 *
 * Ids are the database's (srv_tournaments.id an identity, read back with
 * RETURNING), never computed here: several servers may share the tables.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/errors.h"
#include "protocol/wire.h"
#include "tournament/svc.h"

const char *const ts__state_names[TS_NSTATES] = {"created", "running", "paused", "cancelled",
                                                 "done"};

static const char tables[] =
    "CREATE TABLE IF NOT EXISTS srv_tournaments("
    "  id INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL, tour_id INTEGER,"
    "  settings TEXT NOT NULL, state TEXT NOT NULL, note TEXT, created INTEGER NOT NULL);"
    "CREATE TABLE IF NOT EXISTS ladder_participants("
    "  tournament INTEGER NOT NULL, idx INTEGER NOT NULL, name TEXT NOT NULL, spec TEXT NOT NULL,"
    "  reference INTEGER NOT NULL, PRIMARY KEY(tournament, idx)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS ladder_games("
    "  tournament INTEGER NOT NULL, id INTEGER NOT NULL, grp INTEGER NOT NULL,"
    "  rot INTEGER NOT NULL, seats TEXT NOT NULL, chance_seed INTEGER NOT NULL, match TEXT,"
    "  status TEXT NOT NULL, result TEXT, PRIMARY KEY(tournament, id)) WITHOUT ROWID;";

int ts__tables(tour_service *svc, char *err, size_t errcap)
{
    db_conn *db = svc->db;
    /* two servers starting at once on one PostgreSQL database: schema
     * changes one at a time (nothing on SQLite) */
    int lrc = db_schema_lock(db);
    if (lrc == DB_OK)
        lrc = db_exec(db, tables);
    /* several servers on PostgreSQL: each tournament's owner, and the summary
     * the other servers' lists show */
    if (lrc == DB_OK && svc->shared)
        lrc = db_exec(db, "ALTER TABLE srv_tournaments ADD COLUMN IF NOT EXISTS owner TEXT;"
                          "ALTER TABLE srv_tournaments ADD COLUMN IF NOT EXISTS summary TEXT;");
    db_schema_unlock(db);
    if (lrc != DB_OK) {
        snprintf(err, errcap, "database: %s", db_errmsg(db));
        return ENG_ESTORAGE;
    }
    return 0;
}

void ts__set_state(tsvc_tour *st, int state, const char *note)
{
    tour_service *svc = st->svc;
    st->state = state;
    snprintf(st->note, sizeof st->note, "%s", note ? note : "");
    db_stmt *q = NULL;
    bool ok =
        db_prepare(svc->db, "UPDATE srv_tournaments SET state=?, note=? WHERE id=?", &q) == DB_OK &&
        db_bind_text(q, 1, ts__state_names[state], -1) == DB_OK &&
        db_bind_text(q, 2, st->note, -1) == DB_OK && db_bind_int64(q, 3, st->id) == DB_OK &&
        db_step(q) == DB_DONE;
    if (!ok)
        ts__log(svc, TSVC_LOG_ERROR, "storage_error", "{s:s, s:I, s:s}", "what", "tournament_state",
                "tournament", (json_int_t)st->id, "sqlite", db_errmsg(svc->db));
    db_finalize(q);
    ts__log(svc, TSVC_LOG_INFO, "tournament_state", "{s:I, s:s, s:s}", "tournament",
            (json_int_t)st->id, "state", ts__state_names[state], "note", st->note);
}

/* ---- settings as stored --------------------------------------------------------------------- */

static json_t *settings_json(const tsvc_tour *st)
{
    json_t *o = json_pack("{s:s, s:s, s:s, s:o, s:{s:I, s:I, s:I, s:I}, s:{s:i, s:i, s:i, s:i, s:I, "
                     "s:I}, s:i, s:i, s:b}",
                     "format", proto_tour_format_name(st->format), "label", st->label, "game",
                     st->g->name, "rules", wire_rules_json(st->g, &st->rules), "time_control",
                     "move_ms", (json_int_t)st->tc.move_ms, "first_move_ms",
                     (json_int_t)st->tc.first_move_ms, "bank_ms", (json_int_t)st->tc.bank_ms,
                     "increment_ms", (json_int_t)st->tc.increment_ms, "policies", "timeout",
                     st->pol.timeout, "illegal", st->pol.illegal, "max_illegal",
                     st->pol.max_illegal, "disconnect", st->pol.disconnect, "reconnect_grace_ms",
                     (json_int_t)st->pol.reconnect_grace_ms, "grace_ms",
                     (json_int_t)st->pol.grace_ms, "concurrency", st->concurrency,
                     "placement_games", st->placement, "registered", st->registered);
    if (o) /* the games' thinking lines (issue 27): kept apart, for settings stored before */
        json_object_set_new(json_object_get(o, "policies"), "info", json_integer(st->pol.info));
    return o;
}

int ts__settings_parse(tsvc_tour *st, const char *text, char *err, size_t errcap)
{
    json_error_t je;
    json_t *o = json_loads(text, 0, &je);
    const char *format = "", *label = "", *game = "";
    json_t *rules = NULL;
    json_int_t mv = 0, first = 0, bank = 0, inc = 0, recon = 0, grace = 0;
    int reg = 1;
    if (!o || json_unpack(o,
                          "{s:s, s:s, s:s, s:o, s:{s:I, s:I, s:I, s:I}, s:{s:i, s:i, s:i, s:i, "
                          "s:I, s:I}, s:i, s:i, s:b}",
                          "format", &format, "label", &label, "game", &game, "rules", &rules,
                          "time_control", "move_ms", &mv, "first_move_ms", &first, "bank_ms", &bank,
                          "increment_ms", &inc, "policies", "timeout", &st->pol.timeout, "illegal",
                          &st->pol.illegal, "max_illegal", &st->pol.max_illegal, "disconnect",
                          &st->pol.disconnect, "reconnect_grace_ms", &recon, "grace_ms", &grace,
                          "concurrency", &st->concurrency, "placement_games", &st->placement,
                          "registered", &reg) != 0) {
        snprintf(err, errcap, "its settings are unreadable");
        json_decref(o);
        return -1;
    }
    if (json_unpack(o, "{s:{s:i}}", "policies", "info", &st->pol.info) != 0 ||
        st->pol.info < PROTO_INFO_LIVE || st->pol.info > PROTO_INFO_NEVER)
        st->pol.info = PROTO_INFO_LIVE; /* stored before the setting: its default */
    st->format = -1;
    for (int f = 0; f <= PROTO_TOUR_LADDER; f++)
        if (strcmp(proto_tour_format_name(f), format) == 0)
            st->format = f;
    st->g = eng_find_game(game);
    int players = json_is_integer(json_object_get(rules, "players"))
                      ? (int)json_integer_value(json_object_get(rules, "players"))
                      : 2;
    int rc = st->format < 0 || !st->g
                 ? -1
                 : wire_rules_parse(st->g, rules, players, &st->rules, err, errcap);
    if (rc == -1 && (st->format < 0 || !st->g))
        snprintf(err, errcap, "unknown format '%s' or game '%s'", format, game);
    snprintf(st->label, sizeof st->label, "%s", label);
    st->k = st->rules.players;
    st->tc.move_ms = mv;
    st->tc.first_move_ms = first;
    st->tc.bank_ms = bank;
    st->tc.increment_ms = inc;
    st->pol.reconnect_grace_ms = recon;
    st->pol.grace_ms = grace;
    st->registered = reg;
    json_decref(o);
    return rc ? -1 : 0;
}

int ts__insert_row(tsvc_tour *st, const char *kind, int64_t *id)
{
    tour_service *svc = st->svc;
    json_t *set = settings_json(st);
    char *text = set ? json_dumps(set, JSON_COMPACT) : NULL;
    json_decref(set);
    db_stmt *q = NULL;
    int rc = ENG_ESTORAGE;
    /* the id is the database's (an identity on PostgreSQL), never ours; on a
     * shared database the row names its owner, this server */
    bool pg = svc->shared;
    if (text &&
        db_prepare(
            svc->db,
            pg ? "INSERT INTO srv_tournaments(kind,tour_id,settings,state,note,created,owner) "
                 "VALUES(?,?,?,?,'',?,?) RETURNING id"
               : "INSERT INTO srv_tournaments(kind,tour_id,settings,state,note,created) "
                 "VALUES(?,?,?,?,'',?) RETURNING id",
            &q) == DB_OK &&
        (!pg || db_bind_text(q, 6, svc->instance, -1) == DB_OK) &&
        db_bind_text(q, 1, kind, -1) == DB_OK &&
        (st->t ? db_bind_int64(q, 2, st->tour_id) : db_bind_null(q, 2)) == DB_OK &&
        db_bind_text(q, 3, text, -1) == DB_OK &&
        db_bind_text(q, 4, ts__state_names[st->state], -1) == DB_OK &&
        db_bind_int64(q, 5, st->created_ms) == DB_OK && db_step(q) == DB_ROW) {
        int64_t new_id = db_column_int64(q, 0);
        if (db_step(q) == DB_DONE) {
            *id = new_id;
            rc = 0;
        }
    }
    db_finalize(q);
    free(text);
    return rc;
}

/* ---- the ladder's rows ------------------------------------------------------------------------
 */

bool ts__lad_store_part(tsvc_tour *st, int idx, const lad_part *p)
{
    db_stmt *q = NULL;
    bool ok = db_prepare(st->svc->db,
                         "INSERT INTO ladder_participants(tournament,idx,name,spec,"
                         "reference) VALUES(?,?,?,?,?)",
                         &q) == DB_OK &&
              db_bind_int64(q, 1, st->id) == DB_OK && db_bind_int(q, 2, idx) == DB_OK &&
              db_bind_text(q, 3, p->name, -1) == DB_OK &&
              db_bind_text(q, 4, p->spec, -1) == DB_OK &&
              db_bind_int(q, 5, p->reference) == DB_OK && db_step(q) == DB_DONE;
    db_finalize(q);
    return ok;
}

static char *seats_text(const int *seat, int k, char *buf, size_t cap)
{
    size_t o = 0;
    buf[0] = 0;
    for (int i = 0; i < k && o < cap; i++)
        o += (size_t)snprintf(buf + o, cap - o, "%s%d", i ? " " : "", seat[i]);
    return buf;
}

/* A ladder game's row (inserted, or updated when it is there). */
bool ts__lad_store_game(tsvc_tour *st, const lad_game *g)
{
    tour_service *svc = st->svc;
    char seats[64];
    char *res = NULL;
    if (g->status == TOUR_DONE) {
        json_t *o = ts__lad_result_json(st, g);
        res = json_dumps(o, JSON_COMPACT);
        json_decref(o);
    }
    db_stmt *q = NULL;
    bool ok =
        db_prepare(svc->db,
                   "INSERT INTO ladder_games(tournament,id,grp,rot,seats,chance_seed,match,status,"
                   "result) VALUES(?,?,?,?,?,?,?,?,?) ON CONFLICT(tournament,id) DO UPDATE SET "
                   "grp=excluded.grp, rot=excluded.rot, seats=excluded.seats, "
                   "chance_seed=excluded.chance_seed, match=excluded.match, "
                   "status=excluded.status, result=excluded.result",
                   &q) == DB_OK &&
        db_bind_int64(q, 1, st->id) == DB_OK && db_bind_int64(q, 2, g->id) == DB_OK &&
        db_bind_int64(q, 3, g->grp) == DB_OK && db_bind_int(q, 4, g->rot) == DB_OK &&
        db_bind_text(q, 5, seats_text(g->seat, st->k, seats, sizeof seats), -1) == DB_OK &&
        db_bind_int64(q, 6, (int64_t)g->chance_seed) == DB_OK &&
        db_bind_text(q, 7, g->match, -1) == DB_OK &&
        db_bind_text(q, 8, tour_game_status_name((tour_game_status)g->status), -1) == DB_OK &&
        db_bind_text(q, 9, res, -1) == DB_OK && /* NULL until it is done */
        db_step(q) == DB_DONE;
    if (!ok)
        ts__log(svc, TSVC_LOG_ERROR, "storage_error", "{s:s, s:I, s:s}", "what", "ladder_game",
                "tournament", (json_int_t)st->id, "sqlite", db_errmsg(svc->db));
    db_finalize(q);
    free(res);
    return ok;
}

/* A ladder_games row into g; false when its seats are damaged. */
static bool lad_game_row(const tsvc_tour *st, db_stmt *q, lad_game *g)
{
    memset(g, 0, sizeof *g);
    g->culprit = -1;
    g->id = db_column_int64(q, 0);
    g->grp = db_column_int64(q, 1);
    g->rot = db_column_int(q, 2);
    const char *seats = db_column_text(q, 3);
    bool ok = seats != NULL;
    for (int s = 0; ok && s < st->k; s++) {
        char *end;
        long v = strtol(seats, &end, 10);
        ok = end != seats && v >= 0 && v < st->np;
        g->seat[s] = (int)v;
        seats = end;
    }
    g->chance_seed = (uint64_t)db_column_int64(q, 4);
    const char *mid = db_column_text(q, 5);
    snprintf(g->match, sizeof g->match, "%s", mid ? mid : "");
    const char *status = db_column_text(q, 6);
    g->status = status && strcmp(status, "done") == 0      ? TOUR_DONE
                : status && strcmp(status, "running") == 0 ? TOUR_RUNNING
                                                           : TOUR_VOID;
    if (ok && g->status == TOUR_DONE) {
        const char *rtext = db_column_text(q, 7);
        json_t *res = rtext ? json_loads(rtext, 0, NULL) : NULL;
        for (int s = 0; s < st->k; s++) {
            json_t *v = json_array_get(json_object_get(res, "score"), (size_t)s);
            g->score[s] = json_is_number(v) ? json_number_value(v) : 0;
            v = json_array_get(json_object_get(res, "rank"), (size_t)s);
            g->rank[s] = json_is_integer(v) ? (int)json_integer_value(v) : 1;
        }
        tour_end e = TOUR_END_NORMAL;
        tour_end_parse(json_string_value(json_object_get(res, "end")), &e);
        g->end = e;
        json_t *cu = json_object_get(res, "culprit");
        g->culprit = json_is_integer(cu) ? (int)json_integer_value(cu) : -1;
        json_decref(res);
    }
    return ok;
}

void ts__lad_rows(tsvc_tour *st,
                  void (*part)(tsvc_tour *st, const char *name, const char *spec, bool reference),
                  bool (*game)(tsvc_tour *st, const lad_game *row, bool ok))
{
    db_conn *db = st->svc->db;
    db_stmt *q = NULL;
    if (db_prepare(db,
                   "SELECT name, spec, reference FROM ladder_participants WHERE "
                   "tournament=? ORDER BY idx",
                   &q) == DB_OK &&
        db_bind_int64(q, 1, st->id) == DB_OK) {
        while (db_step(q) == DB_ROW) {
            const char *name = db_column_text(q, 0), *spec = db_column_text(q, 1);
            part(st, name ? name : "", spec ? spec : "", db_column_int(q, 2) != 0);
        }
    }
    db_finalize(q);
    q = NULL;
    if (db_prepare(db,
                   "SELECT id, grp, rot, seats, chance_seed, match, status, result FROM "
                   "ladder_games WHERE tournament=? ORDER BY id",
                   &q) == DB_OK &&
        db_bind_int64(q, 1, st->id) == DB_OK) {
        lad_game g;
        while (db_step(q) == DB_ROW) {
            bool ok = lad_game_row(st, q, &g);
            if (!game(st, &g, ok))
                break;
        }
    }
    db_finalize(q);
}

/* ---- the rows of a resume ---------------------------------------------------------------------
 */

int ts__rows(tour_service *svc, void (*each)(tour_service *svc, const ts_row *row, void *ctx),
             void *ctx)
{
    db_stmt *q = NULL;
    bool pg = svc->shared;
    if (db_prepare(svc->db,
                   pg ? "SELECT id, kind, tour_id, settings, state, note, created FROM "
                        "srv_tournaments WHERE owner=? ORDER BY id"
                      : "SELECT id, kind, tour_id, settings, state, note, created FROM "
                        "srv_tournaments ORDER BY id",
                   &q) != DB_OK)
        return -1;
    if (pg)
        db_bind_text(q, 1, svc->instance, -1);
    /* On PostgreSQL the rows are all read at the first step; on SQLite the
     * statement stays open while each tournament is loaded and resumed on
     * the same connection (reads and writes of other tables, as before). */
    while (db_step(q) == DB_ROW) {
        const char *kind = db_column_text(q, 1), *set = db_column_text(q, 3),
                   *state = db_column_text(q, 4), *note = db_column_text(q, 5);
        ts_row row = {.id = db_column_int64(q, 0),
                      .tour_id = db_column_int64(q, 2),
                      .created = db_column_int64(q, 6),
                      .kind = kind ? kind : "",
                      .settings = set ? set : "",
                      .state = state ? state : "",
                      .note = note ? note : ""};
        each(svc, &row, ctx);
    }
    db_finalize(q);
    return 0;
}

/* ---- several servers ---------------------------------------------------------------------------
 */

int ts__claim(tour_service *svc, const char *dead)
{
    db_stmt *q = NULL;
    int rc = db_prepare(svc->db,
                        "UPDATE srv_tournaments SET owner=? WHERE owner=? AND state<>'done' AND "
                        "state<>'cancelled'",
                        &q);
    if (rc == DB_OK) {
        db_bind_text(q, 1, svc->instance, -1);
        db_bind_text(q, 2, dead, -1);
        rc = db_step(q) == DB_DONE ? DB_OK : DB_EFAIL;
    }
    db_finalize(q);
    return rc == DB_OK ? 0 : -1;
}

int ts__owner(tour_service *svc, int64_t id, char *name, size_t cap)
{
    db_stmt *q = NULL;
    int rc = db_prepare(svc->db, "SELECT owner FROM srv_tournaments WHERE id=?", &q);
    int found = rc == DB_OK ? 0 : -1;
    if (rc == DB_OK) {
        db_bind_int64(q, 1, id);
        rc = db_step(q);
        const char *o = rc == DB_ROW ? db_column_text(q, 0) : NULL;
        if (o) {
            snprintf(name, cap, "%s", o);
            found = 1;
        } else if (rc < 0) {
            found = -1;
        }
    }
    db_finalize(q);
    return found;
}

bool ts__write_summary(tour_service *svc, int64_t id, const char *text)
{
    db_stmt *q = NULL;
    bool ok = db_prepare(svc->db, "UPDATE srv_tournaments SET summary=? WHERE id=?", &q) == DB_OK &&
              db_bind_text(q, 1, text, -1) == DB_OK && db_bind_int64(q, 2, id) == DB_OK &&
              db_step(q) == DB_DONE;
    db_finalize(q);
    return ok;
}

void ts__others(tour_service *svc, json_t *out)
{
    if (!svc->shared || !svc->host.others)
        return;
    db_stmt *q = NULL;
    if (db_prepare(
            svc->db,
            "SELECT CAST(id AS TEXT), owner, summary FROM srv_tournaments WHERE owner<>? AND "
            "summary IS NOT NULL ORDER BY id",
            &q) != DB_OK)
        return;
    db_bind_text(q, 1, svc->instance, -1);
    svc->host.others(svc->host.user, q, out);
    db_finalize(q);
}
