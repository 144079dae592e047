/*
 * tournaments.c — tournaments on the server (docs/protocol.md,
 * "Tournaments"; docs/tournaments.md, "On the server"), driven on the loop.
 *
 * A tournament of one of the formats of tournament/ (round-robin, gauntlet,
 * Swiss, knockout) is a `tour` attached to the server's own database
 * (tour_store_attach on store_db: SQLite or PostgreSQL, storage/db.h): the
 * driver asks it for the next game whose participants are free, starts an
 * ordinary server match for it — in-process bots, programs (cmd:) and
 * registered bots (remote:NAME) alike, with the tournament's time control
 * and policies, the group's chance seed and the bots' seeds — and, in the
 * same transaction, marks the game started with the match's id as its ref.
 * When the match ends (match.c calls tours_match_finished), its result (scores,
 * ranking, how it ended, who was at fault, time used) goes into the
 * tournament, which schedules what that unlocks; the driver then starts
 * more games, up to the tournament's concurrency.
 *
 * The ladder (format "ladder") has no schedule: its participants — the
 * reference bots it was created with, and registered bots that connect
 * for its game — are paired whenever they are free (tour_ladder_pick:
 * newcomers against references first, then the closest ratings), each table
 * playing one group (k games with the seats rotated and the same chance
 * seed), one game after the other; ratings are fitted over every ladder
 * game (tour_fit_ratings). Its participants and games are rows of its own
 * tables. Ids are the database's (srv_tournaments.id an identity, read
 * back with RETURNING), never computed here: several servers may share the
 * tables on PostgreSQL.
 *
 * Resume. Everything is in the database before anyone hears of it. At
 * start-up, after the matches are restored, each tournament not over is
 * loaded (TOUR_RESUME_KEEP): a game marked running whose match is live
 * again simply continues (the match resumes from its journal and reports
 * its result as usual); one whose match finished meanwhile (a kill between
 * the match's end and the tournament's record of it) gets that result from
 * the journal; one whose match is not there is played again. So no game is
 * lost and none is counted twice.
 *
 * Standings. tour_standings_new costs ~0.4 s at 256 participants: too long
 * for the loop. They are computed on the thread pool; while that job reads
 * the tournament, the loop does not touch it (results that arrive meanwhile
 * wait in a queue, in memory and in the journal; no game starts), and the
 * job is rerun at most every max(SRV_TOUR_STANDINGS_MIN_MS, its cost times
 * SRV_TOUR_STANDINGS_COST_FACTOR). Watchers get a `tournament_update` as
 * each game starts and ends, and another with the standings once computed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "conn.h"
#include "internal.h"
#include "match.h"
#include "players/player.h"
#include "programs.h"
#include "registry.h"
#include "storage/db.h"
#include "journal.h"
#include "table.h"
#include "tournament/ladder.h"
#include "tournament/rating.h"
#include "tournament/report.h"
#include "tournament/standings.h"
#include "tournament/store.h"
#include "tournament/tour.h"
#include "tournaments.h"

enum tstate { TS_CREATED, TS_RUNNING, TS_PAUSED, TS_CANCELLED, TS_DONE, TS_NSTATES };
static const char *const state_names[TS_NSTATES] = {"created", "running", "paused", "cancelled",
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

/* ---- objects ------------------------------------------------------------------------- */

typedef struct lad_part {
    char name[PROTO_NAME_MAX + 1];
    char spec[PROTO_SPEC_MAX + 1];
    bool reference; /* newcomers are placed against these */
    double elo;     /* last fitted rating */
    int games;      /* finished ladder games */
    int last_opp;   /* previous opponent (two seats), or -1 */
    bool busy;      /* in a group not finished */
} lad_part;

typedef struct lad_game {
    int64_t id, grp;
    int rot;
    int seat[ENG_MAX_PLAYERS]; /* participant in seat s */
    uint64_t chance_seed;
    char match[SRV_MATCH_ID_LEN + 1];
    int status; /* TOUR_RUNNING, TOUR_DONE or TOUR_VOID */
    double score[ENG_MAX_PLAYERS];
    int rank[ENG_MAX_PLAYERS];
    int end; /* tour_end */
    int culprit;
} lad_game;

/* A ladder table playing its group, one game after the other. */
typedef struct lad_group {
    int64_t grp;
    int members[ENG_MAX_PLAYERS]; /* table order: member b sits in seat (b + rot) mod k */
    uint64_t seed;                /* the group's chance seed */
    int next_rot;                 /* the rotation to start next */
    bool running;                 /* a game of it is being played */
} lad_group;

/* A result that came while the standings job was reading the tournament. */
typedef struct deferred {
    struct deferred *next;
    int64_t game;
    tour_result r;
    char verdict[TOUR_VERDICT_MAX + 1];
} deferred;

struct srv_tour {
    srv *srv;
    int64_t id; /* srv_tournaments.id: the id on the wire */
    int format; /* enum proto_tour_format */
    char label[PROTO_LABEL_MAX + 1];
    const eng_game *g;
    eng_rules rules;
    int k; /* seats per table */
    proto_time_control tc;
    proto_policies pol;
    int concurrency;
    int state;
    char note[256]; /* why it paused itself, or "" */
    int64_t created_ms;
    /* formats of tournament/ */
    tour *t;
    int64_t tour_id;
    /* the ladder */
    int placement;
    bool registered;
    lad_part *parts;
    int np, capp;
    lad_game *games;
    int64_t ng, capg;
    int64_t next_grp;
    lad_group open[PROTO_MAX_CONCURRENCY]; /* groups not finished */
    int nopen;
    /* watchers */
    conn **watch;
    int nwatch, capwatch;
    /* standings */
    json_t *standings;
    char *svg[3]; /* ratings, scores, crosstable */
    bool dirty, job, closing, timer_closed;
    uint64_t job_started;
    double job_ms;
    uv_timer_t timer;
    deferred *dhead, *dtail;
    /* a start/pause/cancel that came while the job read the tournament */
    int want;           /* its proto_type, or -1 */
    uint64_t want_conn; /* who asked (a connection id: it may be gone) */
    json_t *want_id;    /* its id (a copy), or NULL */
    tours_hooks hooks;  /* a tournament another module runs (courses.c), or zeroes */
    char *summary_written; /* PostgreSQL: the summary last stored for other servers (malloc'd) */
    srv_tour *next;
};

struct tours {
    tour_store *store;
    srv_tour *list;
    uint64_t seed_counter;
    bool pumping; /* a pump is on the stack (a match it starts may end at once) */
    bool again;   /* something asked for a pump meanwhile */
};

static void pump(srv_tour *st);
static void schedule_standings(srv_tour *st);
static void push_update(srv_tour *st, json_t *game, bool with_standings);
static void steer_now(srv_tour *st, int type, conn *c, const json_t *id);

static bool is_ladder(const srv_tour *st)
{
    return st->format == PROTO_TOUR_LADDER;
}

static db_conn *db_of(srv *s)
{
    return journal_db(s->db);
}

/* A random 63-bit number from getrandom(2), or a counter when it fails
 * (seeds are not secrets: the chance seed's secrecy is the match's). */
static uint64_t fresh_seed(srv *s)
{
    char tok[17];
    uint64_t v = 0;
    if (srv_random_token(tok, 16) == 0)
        for (int i = 0; i < 16; i++)
            v = v * 33 + (unsigned char)tok[i];
    else
        v = (uint64_t)srv_epoch_ms() * 1000003u + ++s->tours->seed_counter;
    return v & INT64_MAX;
}

static void set_state(srv_tour *st, int state, const char *note)
{
    st->state = state;
    snprintf(st->note, sizeof st->note, "%s", note ? note : "");
    db_conn *db = db_of(st->srv);
    db_stmt *q = NULL;
    bool ok =
        db_prepare(db, "UPDATE srv_tournaments SET state=?, note=? WHERE id=?", &q) == DB_OK &&
        db_bind_text(q, 1, state_names[state], -1) == DB_OK &&
        db_bind_text(q, 2, st->note, -1) == DB_OK && db_bind_int64(q, 3, st->id) == DB_OK &&
        db_step(q) == DB_DONE;
    if (!ok)
        srv_log(LOG_ERROR, "storage_error", "{s:s, s:I, s:s}", "what", "tournament_state",
                "tournament", (json_int_t)st->id, "sqlite", db_errmsg(db));
    db_finalize(q);
    srv_log(LOG_INFO, "tournament_state", "{s:I, s:s, s:s}", "tournament", (json_int_t)st->id,
            "state", state_names[state], "note", st->note);
}

/* ---- time control and policies as stored --------------------------------------------- */

static json_t *settings_json(const srv_tour *st)
{
    return json_pack("{s:s, s:s, s:s, s:o, s:{s:I, s:I, s:I, s:I}, s:{s:i, s:i, s:i, s:i, s:I, "
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
}

static int settings_parse(srv_tour *st, const char *text, char *err, size_t errcap)
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

/* ---- life of a srv_tour ------------------------------------------------------------------ */

static srv_tour *tour_new(srv *s)
{
    srv_tour *st = calloc(1, sizeof *st);
    if (!st)
        return NULL;
    st->srv = s;
    st->want = -1;
    uv_timer_init(s->loop, &st->timer);
    st->timer.data = st;
    return st;
}

static void link_tour(srv *s, srv_tour *st)
{
    /* newest first */
    st->next = s->tours->list;
    s->tours->list = st;
}

static void tour_free(srv_tour *st)
{
    if (st->t)
        tour_store_detach(st->t);
    tour_destroy(st->t);
    free(st->parts);
    free(st->games);
    free(st->watch);
    json_decref(st->standings);
    for (int i = 0; i < 3; i++)
        free(st->svg[i]);
    free(st->summary_written);
    while (st->dhead) {
        deferred *d = st->dhead;
        st->dhead = d->next;
        free(d);
    }
    json_decref(st->want_id);
    free(st);
}

static void on_timer_closed(uv_handle_t *h)
{
    srv_tour *st = h->data;
    st->timer_closed = true;
    if (!st->job)
        tour_free(st);
}

static void tour_close(srv_tour *st)
{
    if (st->closing)
        return;
    st->closing = true;
    for (int i = 0; i < st->nwatch; i++) {
        conn *c = st->watch[i];
        for (int j = 0; j < c->nwatching; j++)
            if (c->watching[j] == st) {
                c->watching[j] = c->watching[--c->nwatching];
                break;
            }
    }
    st->nwatch = 0;
    for (match *m = st->srv->matches; m; m = m->next)
        if (m->tour == st)
            m->tour = NULL;
    uv_close((uv_handle_t *)&st->timer, on_timer_closed);
}

static srv_tour *find_tour(srv *s, int64_t id)
{
    for (srv_tour *st = s->tours ? s->tours->list : NULL; st; st = st->next)
        if (st->id == id && !st->closing)
            return st;
    return NULL;
}

/* ---- results of matches ----------------------------------------------------------------- */

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

/* A tour_result from a match's result JSON (scores, reason, seat, detail)
 * and, when m is given, its seats' time and decisions. */
static void result_from_json(int k, const json_t *res, const match *m, tour_result *r,
                             char *verdict, size_t vcap)
{
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
    if (m)
        for (int i = 0; i < k && i < m->nseats; i++) {
            r->time_ms[i] = (double)m->seats[i].used_ms;
            r->moves[i] = m->seats[i].moves;
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

/* ---- starting games ------------------------------------------------------------------------ */

/* BEGIN IMMEDIATE (a plain BEGIN on PostgreSQL), COMMIT, ROLLBACK. Every
 * failure inside a transaction ends in ROLLBACK: PostgreSQL refuses all
 * else in a transaction once a statement of it failed. */
static bool tx(db_conn *db, const char *sql)
{
    return db_exec(db, sql) == DB_OK;
}

/* Create the match of one game: seats from `specs`/`names` by seat, with
 * the tournament's clocks and policies. Returns the match (linked, not yet
 * advanced), or NULL with code and err. */
static match *make_match(srv_tour *st, const char *const *specs, const char *const *names,
                         uint64_t chance_seed, const uint64_t *seat_seeds, int *code, char *err,
                         size_t errcap)
{
    proto_msg msg;
    memset(&msg, 0, sizeof msg);
    msg.type = PROTO_CREATE_MATCH;
    msg.game = st->g->name;
    json_t *rules = wire_rules_json(st->g, &st->rules);
    msg.rules = rules;
    msg.nseats = st->k;
    for (int s = 0; s < st->k; s++) {
        snprintf(msg.seats[s].bot, sizeof msg.seats[s].bot, "%s", specs[s]);
        snprintf(msg.seats[s].name, sizeof msg.seats[s].name, "%s", names[s]);
    }
    msg.tc = st->tc;
    msg.pol = st->pol;
    match_opts opts = {.admin = true, .has_seed = true, .seed = chance_seed};
    if (seat_seeds) {
        opts.has_seat_seeds = true;
        memcpy(opts.seat_seed, seat_seeds, sizeof(uint64_t) * (size_t)st->k);
    }
    match *m = match_create_ex(st->srv, &msg, &opts, code, err, errcap);
    json_decref(rules);
    return m;
}

/* The table's programs would exceed SRV_MAX_PROGRAMS, or a registered bot
 * is at its capacity: the game waits. */
static bool can_seat(srv *s, const char *const *specs, int k)
{
    int programs = 0;
    for (int i = 0; i < k; i++) {
        int kind = match_spec_kind(specs[i]);
        if (kind == SEAT_PROGRAM)
            programs++;
        else if (kind == SEAT_REMOTE) {
            regbot *r = registry_find(s, specs[i] + 7);
            if (registry_load(s, specs[i] + 7) >= (r ? r->capacity : 1))
                return false;
        }
    }
    return progs_running(s) + programs <= SRV_MAX_PROGRAMS;
}

static void tag(srv_tour *st, match *m, int64_t game)
{
    m->tour = st;
    m->tour_id = st->id;
    m->tour_game = game;
}

static json_t *game_json(const srv_tour *st, int64_t id);
static void append_remote(srv *s, json_t *a);

/* Start tour game g; false when it must wait or failed (the tournament
 * paused itself with the reason). */
static bool start_tour_game(srv_tour *st, const tour_game *g)
{
    const tour_spec *spec = tour_get_spec(st->t);
    const char *specs[ENG_MAX_PLAYERS], *names[ENG_MAX_PLAYERS];
    for (int s = 0; s < st->k; s++) {
        specs[s] = spec->participants[g->table[s]].spec;
        names[s] = spec->participants[g->table[s]].name;
    }
    if (!can_seat(st->srv, specs, st->k))
        return false;
    db_conn *db = db_of(st->srv);
    int code = 0;
    char err[400];
    if (!tx(db, "BEGIN IMMEDIATE")) {
        srv_log(LOG_ERROR, "storage_error", "{s:s, s:s}", "what", "tournament_game", "sqlite",
                db_errmsg(db));
        return false;
    }
    match *m = make_match(st, specs, names, g->chance_seed, g->seat_seed, &code, err, sizeof err);
    if (!m) {
        tx(db, "ROLLBACK");
        if (code == ENG_ETOO_MANY || code == ENG_ESHUTTING_DOWN)
            return false; /* wait for room */
        char note[256];
        snprintf(note, sizeof note, "game %lld could not start: %.200s", (long long)g->id, err);
        srv_log(LOG_ERROR, "tournament_game_failed", "{s:I, s:s}", "tournament", (json_int_t)st->id,
                "reason", err);
        tour_set_paused(st->t, true);
        set_state(st, TS_PAUSED, note);
        return false;
    }
    int rc = tour_game_started(st->t, g->id, m->id);
    if (rc != 0 || !tx(db, "COMMIT")) {
        tx(db, "ROLLBACK");
        srv_log(LOG_ERROR, "storage_error", "{s:s, s:I}", "what", "tournament_game", "tournament",
                (json_int_t)st->id);
        match_close(m); /* never announced, never stored */
        tour_set_paused(st->t, true);
        set_state(st, TS_PAUSED, "the database refused a write; start it again");
        return false;
    }
    tag(st, m, g->id);
    srv_log(LOG_INFO, "tournament_game_started", "{s:I, s:I, s:s}", "tournament",
            (json_int_t)st->id, "game", (json_int_t)g->id, "match", m->id);
    table_attach_remote(m);
    match_advance(m);
    push_update(st, game_json(st, g->id), false);
    return true;
}

/* ---- the ladder -------------------------------------------------------------------------------
 */

static int lad_add_part(srv_tour *st, const char *name, const char *spec, bool reference,
                        bool write)
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
    if (write) {
        db_stmt *q = NULL;
        bool ok = db_prepare(db_of(st->srv),
                             "INSERT INTO ladder_participants(tournament,idx,name,spec,"
                             "reference) VALUES(?,?,?,?,?)",
                             &q) == DB_OK &&
                  db_bind_int64(q, 1, st->id) == DB_OK && db_bind_int(q, 2, st->np) == DB_OK &&
                  db_bind_text(q, 3, p->name, -1) == DB_OK &&
                  db_bind_text(q, 4, p->spec, -1) == DB_OK &&
                  db_bind_int(q, 5, reference) == DB_OK && db_step(q) == DB_DONE;
        db_finalize(q);
        if (!ok)
            return ENG_ESTORAGE;
    }
    st->np++;
    return 0;
}

static lad_game *lad_push_game(srv_tour *st)
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

static char *seats_text(const int *seat, int k, char *buf, size_t cap)
{
    size_t o = 0;
    buf[0] = 0;
    for (int i = 0; i < k && o < cap; i++)
        o += (size_t)snprintf(buf + o, cap - o, "%s%d", i ? " " : "", seat[i]);
    return buf;
}

static json_t *lad_result_json(const srv_tour *st, const lad_game *g)
{
    json_t *sc = json_array(), *rk = json_array();
    for (int i = 0; i < st->k; i++) {
        json_array_append_new(sc, json_real(g->score[i]));
        json_array_append_new(rk, json_integer(g->rank[i]));
    }
    return json_pack("{s:o, s:o, s:s, s:i}", "score", sc, "rank", rk, "end",
                     tour_end_name((tour_end)g->end), "culprit", g->culprit);
}

/* Write a ladder game's row (inserted, or updated when it is there). */
static bool lad_store_game(srv_tour *st, const lad_game *g)
{
    char seats[64];
    char *res = NULL;
    if (g->status == TOUR_DONE) {
        json_t *o = lad_result_json(st, g);
        res = json_dumps(o, JSON_COMPACT);
        json_decref(o);
    }
    db_conn *db = db_of(st->srv);
    db_stmt *q = NULL;
    bool ok =
        db_prepare(db,
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
        srv_log(LOG_ERROR, "storage_error", "{s:s, s:I, s:s}", "what", "ladder_game", "tournament",
                (json_int_t)st->id, "sqlite", db_errmsg(db));
    db_finalize(q);
    free(res);
    return ok;
}

/* Start the next game of open group gr. */
static bool lad_start(srv_tour *st, lad_group *gr)
{
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
    if (!can_seat(st->srv, specs, st->k))
        return false;
    db_conn *db = db_of(st->srv);
    if (!tx(db, "BEGIN IMMEDIATE"))
        return false;
    int code = 0;
    char err[400];
    match *m = make_match(st, specs, names, gr->seed, NULL, &code, err, sizeof err);
    if (!m) {
        tx(db, "ROLLBACK");
        if (code != ENG_ETOO_MANY && code != ENG_ESHUTTING_DOWN) {
            char note[256];
            snprintf(note, sizeof note, "a game could not start: %.200s", err);
            set_state(st, TS_PAUSED, note);
        }
        return false;
    }
    lad_game *g = lad_push_game(st);
    if (!g) {
        tx(db, "ROLLBACK");
        match_close(m);
        return false;
    }
    g->grp = gr->grp;
    g->rot = rot;
    memcpy(g->seat, seat, sizeof seat);
    g->chance_seed = gr->seed;
    snprintf(g->match, sizeof g->match, "%s", m->id);
    g->status = TOUR_RUNNING;
    if (!lad_store_game(st, g) || !tx(db, "COMMIT")) {
        tx(db, "ROLLBACK");
        st->ng--;
        match_close(m);
        set_state(st, TS_PAUSED, "the database refused a write; start it again");
        return false;
    }
    gr->running = true;
    gr->next_rot++;
    tag(st, m, g->id);
    srv_log(LOG_INFO, "tournament_game_started", "{s:I, s:I, s:s}", "tournament",
            (json_int_t)st->id, "game", (json_int_t)g->id, "match", m->id);
    table_attach_remote(m);
    match_advance(m);
    push_update(st, game_json(st, g->id), false);
    return true;
}

/* The members of a game's group in table order (seat s holds member
 * (s - rot) mod k). */
static void lad_members(const srv_tour *st, const lad_game *g, int *members)
{
    for (int s = 0; s < st->k; s++)
        members[((s - g->rot) % st->k + st->k) % st->k] = g->seat[s];
}

static lad_group *lad_open(srv_tour *st, int64_t grp)
{
    for (int i = 0; i < st->nopen; i++)
        if (st->open[i].grp == grp)
            return &st->open[i];
    return NULL;
}

/* A group is over: its members are free again. */
static void lad_close_group(srv_tour *st, lad_group *gr)
{
    for (int s = 0; s < st->k; s++)
        st->parts[gr->members[s]].busy = false;
    *gr = st->open[--st->nopen];
}

/* Open a group for members (table order). */
static lad_group *lad_new_group(srv_tour *st, int64_t grp, const int *members, uint64_t seed,
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

/* Registered bots connected for this ladder's game join it. */
static void lad_enrol(srv_tour *st)
{
    if (!st->registered)
        return;
    for (regbot *r = st->srv->regbots; r; r = r->next) {
        if (!r->conn)
            continue;
        bool plays = r->ngames == 0;
        for (int i = 0; i < r->ngames; i++)
            plays = plays || strcmp(r->games[i], st->g->name) == 0;
        if (!plays)
            continue;
        char spec[PROTO_SPEC_MAX + 1];
        snprintf(spec, sizeof spec, "remote:%s", r->name);
        bool in = false;
        for (int i = 0; i < st->np && !in; i++)
            in = strcmp(st->parts[i].spec, spec) == 0;
        if (in)
            continue;
        /* a name taken by another participant gets a suffix */
        char name[PROTO_NAME_MAX + 1];
        snprintf(name, sizeof name, "%s", r->name);
        for (int i = 0; i < st->np; i++)
            if (strcmp(st->parts[i].name, name) == 0) {
                snprintf(name, sizeof name, "%.52s-%d", r->name, st->np % 1000);
                break;
            }
        if (lad_add_part(st, name, spec, false, true) == 0)
            srv_log(LOG_INFO, "ladder_joined", "{s:I, s:s}", "tournament", (json_int_t)st->id,
                    "name", name);
    }
}

static void lad_pump(srv_tour *st)
{
    lad_enrol(st);
    /* groups part-way: their next game (every member stays busy meanwhile);
     * a group with a registered bot that is no longer connected ends there
     * (its next game would only be a forfeit) */
    for (int i = 0; i < st->nopen && st->state == TS_RUNNING; i++) {
        lad_group *gr = &st->open[i];
        if (gr->running)
            continue;
        bool away = false;
        for (int s = 0; s < st->k && !away; s++) {
            const char *spec = st->parts[gr->members[s]].spec;
            regbot *r =
                match_spec_kind(spec) == SEAT_REMOTE ? registry_find(st->srv, spec + 7) : NULL;
            away = match_spec_kind(spec) == SEAT_REMOTE && (!r || !r->conn);
        }
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
        if (p->busy)
            continue;
        if (match_spec_kind(p->spec) == SEAT_REMOTE) {
            /* only connected registered bots with room play ladder games */
            regbot *r = registry_find(st->srv, p->spec + 7);
            if (!r || !r->conn || registry_load(st->srv, r->name) >= r->capacity)
                continue;
        }
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
        lad_group *gr = lad_new_group(st, st->next_grp++, members, fresh_seed(st->srv), 0);
        if (gr && !lad_start(st, gr))
            lad_close_group(st, gr); /* not started: nobody is kept busy by it */
    }
    free(free_);
    free(picked);
}

static void lad_finished(srv_tour *st, int64_t game, const tour_result *r)
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
    lad_store_game(st, g);
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

/* ---- the driver ---------------------------------------------------------------------------- */

static void apply_result(srv_tour *st, int64_t game, const tour_result *r)
{
    char err[256];
    if (is_ladder(st)) {
        lad_finished(st, game, r);
    } else if (tour_game_finished(st->t, game, r, err, sizeof err) != 0) {
        srv_log(LOG_ERROR, "tournament_result_refused", "{s:I, s:I, s:s}", "tournament",
                (json_int_t)st->id, "game", (json_int_t)game, "reason", err);
        return;
    }
    srv_log(LOG_INFO, "tournament_game_finished", "{s:I, s:I}", "tournament", (json_int_t)st->id,
            "game", (json_int_t)game);
    push_update(st, game_json(st, game), false);
}

static void check_done(srv_tour *st)
{
    if (!is_ladder(st) && tour_is_done(st->t) && st->state != TS_DONE &&
        st->state != TS_CANCELLED) {
        set_state(st, TS_DONE, NULL);
        push_update(st, NULL, false);
        if (st->hooks.done)
            st->hooks.done(st->hooks.ctx, st->hooks.user, st->id, st->t);
    }
}

static void pump_one(srv_tour *st);

/* Pumps never nest: one asked for while another runs (a match that ended
 * as it was created, a program that could not start) runs after it. */
static void pump(srv_tour *st)
{
    struct tours *ts = st->srv->tours;
    if (ts->pumping) {
        ts->again = true;
        return;
    }
    ts->pumping = true;
    pump_one(st);
    for (int rounds = 0; ts->again && rounds < 100; rounds++) {
        ts->again = false;
        for (srv_tour *x = ts->list; x; x = x->next)
            if (!x->closing && (x->state == TS_RUNNING || x->dhead))
                pump_one(x);
    }
    ts->again = false;
    ts->pumping = false;
}

static void pump_one(srv_tour *st)
{
    if (st->closing || st->job || st->srv->stopping)
        return;
    /* results that waited for the standings job */
    bool any = st->dhead != NULL;
    while (st->dhead) {
        deferred *d = st->dhead;
        st->dhead = d->next;
        if (!st->dhead)
            st->dtail = NULL;
        d->r.verdict = d->verdict[0] ? d->verdict : NULL;
        apply_result(st, d->game, &d->r);
        free(d);
    }
    if (any)
        schedule_standings(st);
    if (st->state == TS_RUNNING) {
        if (is_ladder(st)) {
            lad_pump(st);
        } else {
            bool *busy = calloc((size_t)tour_participants(st->t), sizeof *busy);
            const tour_spec *spec = tour_get_spec(st->t);
            for (int i = 0; busy && i < spec->nparticipants; i++) {
                const char *sp = spec->participants[i].spec;
                if (match_spec_kind(sp) == SEAT_REMOTE) {
                    regbot *r = registry_find(st->srv, sp + 7);
                    busy[i] = registry_load(st->srv, sp + 7) >= (r ? r->capacity : 1);
                }
            }
            for (;;) {
                tour_counts c;
                tour_get_counts(st->t, &c);
                if (c.running >= st->concurrency || st->state != TS_RUNNING)
                    break;
                tour_game g;
                int rc = tour_next_game(st->t, busy, &g);
                if (rc != 1) {
                    if (rc < 0) {
                        tour_set_paused(st->t, true);
                        set_state(st, TS_PAUSED, "the database refused a write; start it again");
                    }
                    break;
                }
                if (!start_tour_game(st, &g))
                    break;
                /* a registered bot that reached its capacity is busy now */
                for (int s = 0; busy && s < st->k; s++) {
                    const char *sp = spec->participants[g.table[s]].spec;
                    if (match_spec_kind(sp) == SEAT_REMOTE) {
                        regbot *r = registry_find(st->srv, sp + 7);
                        busy[g.table[s]] = registry_load(st->srv, sp + 7) >= (r ? r->capacity : 1);
                    }
                }
            }
            free(busy);
        }
    }
    check_done(st);
}

void tours_poke(srv *s)
{
    if (!s->tours)
        return;
    if (s->tours->pumping) {
        s->tours->again = true;
        return;
    }
    for (srv_tour *st = s->tours->list; st; st = st->next)
        if (!st->closing && (st->state == TS_RUNNING || st->dhead))
            pump(st);
}

void tours_match_finished(match *m)
{
    srv_tour *st = m->tour;
    srv *s = m->srv;
    if (st && !st->closing) {
        m->tour = NULL;
        tour_result r;
        char verdict[TOUR_VERDICT_MAX + 1];
        result_from_json(st->k, m->result, m, &r, verdict, sizeof verdict);
        tour_game tg;
        if (st->hooks.game && !is_ladder(st) && tour_get_game(st->t, m->tour_game, &tg) == 0)
            st->hooks.game(st->hooks.ctx, st->hooks.user, st->id, m->tour_game, m, tg.table, &r);
        if (st->job) {
            /* the standings job reads the tournament: the result waits */
            deferred *d = calloc(1, sizeof *d);
            if (d) {
                d->game = m->tour_game;
                d->r = r;
                snprintf(d->verdict, sizeof d->verdict, "%s", verdict);
                d->r.verdict = NULL;
                if (st->dtail)
                    st->dtail->next = d;
                else
                    st->dhead = d;
                st->dtail = d;
            } else {
                srv_log(LOG_ERROR, "tournament_result_lost", "{s:I, s:s}", "tournament",
                        (json_int_t)st->id, "match", m->id);
            }
        } else {
            apply_result(st, m->tour_game, &r);
            check_done(st); /* before the standings job that may start now */
            schedule_standings(st);
        }
    }
    tours_poke(s); /* seats that were busy in this match may be free now */
}

json_t *tours_match_tag(const match *m)
{
    if (!m->tour_id)
        return NULL;
    return json_pack("{s:I, s:I}", "tournament", (json_int_t)m->tour_id, "tournament_game",
                     (json_int_t)m->tour_game);
}

/* ---- views ---------------------------------------------------------------------------------- */

static void counts_of(const srv_tour *st, tour_counts *c)
{
    memset(c, 0, sizeof *c);
    if (!is_ladder(st)) {
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

static json_t *counts_json(const srv_tour *st)
{
    tour_counts c;
    counts_of(st, &c);
    return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:i, s:i}", "pending", (json_int_t)c.pending,
                     "running", (json_int_t)c.running, "done", (json_int_t)c.done, "void",
                     (json_int_t)c.voided, "scheduled", (json_int_t)c.scheduled, "expected",
                     (json_int_t)c.expected, "round", c.round, "rounds", c.rounds);
}

static const char *part_name(const srv_tour *st, int i)
{
    return is_ladder(st) ? st->parts[i].name : tour_get_spec(st->t)->participants[i].name;
}

static json_t *game_json(const srv_tour *st, int64_t id)
{
    json_t *table = json_array();
    json_t *o;
    if (is_ladder(st)) {
        const lad_game *g = &st->games[id];
        for (int s = 0; s < st->k; s++)
            json_array_append_new(table, json_string(st->parts[g->seat[s]].name));
        o = json_pack("{s:I, s:s, s:I, s:i, s:o, s:s}", "game", (json_int_t)id, "status",
                      tour_game_status_name((tour_game_status)g->status), "group",
                      (json_int_t)g->grp, "rotation", g->rot, "table", table, "match", g->match);
        if (g->status == TOUR_DONE)
            json_object_set_new(o, "result", lad_result_json(st, g));
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

static json_t *participants_json(const srv_tour *st)
{
    json_t *a = json_array();
    if (is_ladder(st)) {
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

static json_t *summary_json(const srv_tour *st)
{
    json_t *o =
        json_pack("{s:I, s:s, s:s, s:s, s:s, s:i, s:o, s:I, s:i}", "tournament", (json_int_t)st->id,
                  "label", st->label, "format", proto_tour_format_name(st->format), "game",
                  st->g->name, "state", state_names[st->state], "participants",
                  is_ladder(st) ? st->np : tour_participants(st->t), "counts", counts_json(st),
                  "created", (json_int_t)st->created_ms, "concurrency", st->concurrency);
    if (st->note[0])
        json_object_set_new(o, "note", json_string(st->note));
    return o;
}

/* Every game that started (running, done): the most recent ones when
 * there are more than SRV_TOUR_GAMES_LISTED. */
static json_t *games_json(const srv_tour *st, bool *truncated)
{
    int64_t n = is_ladder(st) ? st->ng : tour_game_count(st->t);
    int64_t listed = 0, from = n;
    /* walk back from the newest to find where the listing starts */
    while (from > 0 && listed < SRV_TOUR_GAMES_LISTED) {
        from--;
        int status;
        if (is_ladder(st)) {
            status = st->games[from].status;
        } else {
            tour_game g;
            tour_get_game(st->t, from, &g);
            status = g.status;
        }
        listed += status == TOUR_RUNNING || status == TOUR_DONE;
    }
    *truncated = false;
    for (int64_t i = 0; i < from && !*truncated; i++) {
        tour_game g;
        if (is_ladder(st))
            *truncated = true;
        else if (tour_get_game(st->t, i, &g) == 0 &&
                 (g.status == TOUR_RUNNING || g.status == TOUR_DONE))
            *truncated = true;
    }
    json_t *a = json_array();
    for (int64_t i = from; i < n; i++) {
        int status;
        if (is_ladder(st)) {
            status = st->games[i].status;
        } else {
            tour_game g;
            tour_get_game(st->t, i, &g);
            status = g.status;
        }
        if (status == TOUR_RUNNING || status == TOUR_DONE)
            json_array_append_new(a, game_json(st, i));
    }
    return a;
}

static json_t *view_json(const srv_tour *st, const json_t *id)
{
    json_t *r = proto_reply("tournament", id);
    json_object_update_new(r, summary_json(st));
    json_object_set_new(r, "rules", wire_rules_json(st->g, &st->rules));
    json_object_update_new(
        r, json_pack("{s:{s:I, s:I, s:I, s:I}, s:{s:s, s:s, s:i, s:s, s:I, "
                     "s:I}}",
                     "time_control", "move_ms", (json_int_t)st->tc.move_ms, "first_move_ms",
                     (json_int_t)st->tc.first_move_ms, "bank_ms", (json_int_t)st->tc.bank_ms,
                     "increment_ms", (json_int_t)st->tc.increment_ms, "policies", "timeout",
                     proto_timeout_name(st->pol.timeout), "illegal",
                     proto_illegal_name(st->pol.illegal), "max_illegal", st->pol.max_illegal,
                     "disconnect", proto_disconnect_name(st->pol.disconnect), "reconnect_grace_ms",
                     (json_int_t)st->pol.reconnect_grace_ms, "grace_ms",
                     (json_int_t)st->pol.grace_ms));
    json_object_set_new(r, "participants_list", participants_json(st));
    json_object_set_new(r, "standings", st->standings ? json_incref(st->standings) : json_null());
    bool truncated;
    json_object_set_new(r, "games", games_json(st, &truncated));
    if (truncated)
        json_object_set_new(r, "games_truncated", json_true());
    if (is_ladder(st))
        json_object_set_new(r, "placement_games", json_integer(st->placement));
    return r;
}

static void send_all(srv_tour *st, json_t *msg)
{
    char *text = json_dumps(msg, JSON_COMPACT);
    json_decref(msg);
    if (!text)
        return;
    size_t len = strlen(text);
    for (int i = 0; i < st->nwatch; i++)
        conn_send_text(st->watch[i], text, len);
    free(text);
}

/* tournament_update to the watchers: the state and counts, with a game
 * that started or ended (steals it; may be NULL), or the standings. */
static void push_update(srv_tour *st, json_t *game, bool with_standings)
{
    if (st->nwatch == 0) {
        json_decref(game);
        return;
    }
    json_t *u =
        json_pack("{s:s, s:I, s:s, s:o}", "type", "tournament_update", "tournament",
                  (json_int_t)st->id, "state", state_names[st->state], "counts", counts_json(st));
    if (st->note[0])
        json_object_set_new(u, "note", json_string(st->note));
    if (game)
        json_object_set_new(u, "game", game);
    if (with_standings && st->standings)
        json_object_set(u, "standings", st->standings);
    send_all(st, u);
}

/* ---- standings on the thread pool ---------------------------------------------------------- */

typedef struct tjob {
    uv_work_t req;
    srv_tour *st;
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
    int delay_ms; /* the test hook TESSERA_TEST_STANDINGS_DELAY_MS */
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
    if (n <= SRV_TOUR_CROSSTABLE_MAX) {
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

static void job_work(uv_work_t *req)
{
    tjob *j = req->data;
    double t0 = bot_now_ms();
    if (j->delay_ms > 0)
        uv_sleep((unsigned)j->delay_ms);
    if (j->t) {
        tour_standings *s = tour_standings_new(j->t);
        if (s) {
            j->standings = tour_report_json(j->t, s, false);
            if (j->standings && tour_participants(j->t) > SRV_TOUR_CROSSTABLE_MAX)
                json_object_del(j->standings, "crosstable");
            j->svg[0] = tour_svg_ratings(j->t, s);
            j->svg[1] = tour_svg_scores(j->t, s);
            j->svg[2] = tour_participants(j->t) <= SRV_TOUR_CROSSTABLE_MAX
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

static void job_done(uv_work_t *req, int status)
{
    (void)status;
    tjob *j = req->data;
    srv_tour *st = j->st;
    st->job = false;
    if (st->closing) {
        if (st->timer_closed)
            tour_free(st);
        job_free(j);
        return;
    }
    st->job_ms = j->ms;
    srv_log(LOG_DEBUG, "tournament_standings", "{s:I, s:f}", "tournament", (json_int_t)st->id, "ms",
            j->ms);
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
    if (j->elo && is_ladder(st))
        for (int i = 0; i < j->n && i < st->np; i++)
            st->parts[i].elo = j->elo[i];
    job_free(j);
    push_update(st, NULL, true);
    if (st->want >= 0) { /* a change that waited for the job */
        /* who asked may be a client of another server (cluster.c) */
        conn *c = st->want_conn ? conn_find(st->srv, st->want_conn) : NULL;
        int type = st->want;
        json_t *id = st->want_id;
        st->want = -1;
        st->want_id = NULL;
        steer_now(st, type, c, id);
        json_decref(id);
    }
    pump(st); /* what waited for the job */
    if (st->dirty)
        schedule_standings(st);
}

/* A copy of what the ladder's standings need (the job must not read the
 * ladder, which the loop keeps changing). */
static bool ladder_snapshot(srv_tour *st, tjob *j)
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

static void start_job(srv_tour *st)
{
    if (st->job || st->closing)
        return;
    tjob *j = calloc(1, sizeof *j);
    if (!j)
        return;
    j->st = st;
    j->delay_ms = st->srv->test.standings_delay_ms;
    if (is_ladder(st)) {
        if (!ladder_snapshot(st, j)) {
            job_free(j);
            return;
        }
    } else {
        j->t = st->t;
    }
    j->req.data = j;
    if (uv_queue_work(st->srv->loop, &j->req, job_work, job_done) != 0) {
        job_free(j);
        return;
    }
    st->job = true;
    st->dirty = false;
    st->job_started = srv_now(st->srv);
}

static void on_standings_timer(uv_timer_t *h)
{
    srv_tour *st = h->data;
    if (st->dirty)
        start_job(st);
}

static void schedule_standings(srv_tour *st)
{
    st->dirty = true;
    if (st->job || st->closing)
        return;
    double gap = st->job_ms * SRV_TOUR_STANDINGS_COST_FACTOR;
    if (gap < SRV_TOUR_STANDINGS_MIN_MS)
        gap = SRV_TOUR_STANDINGS_MIN_MS;
    uint64_t now = srv_now(st->srv);
    uint64_t due = st->job_started + (uint64_t)gap;
    if (st->job_started == 0 || now >= due)
        start_job(st);
    else if (!uv_is_active((uv_handle_t *)&st->timer))
        uv_timer_start(&st->timer, on_standings_timer, due - now, 0);
}

/* ---- create -------------------------------------------------------------------------------- */

/* Check one participant's spec against the game: an in-process bot, a
 * program, or a registered bot. */
static int check_participant(srv *s, const eng_game *g, const char *spec, char *err, size_t errcap)
{
    int kind = match_spec_kind(spec);
    if (kind == SEAT_PROGRAM) {
        player_config pc;
        player_config_default(&pc);
        player *pl = player_create(spec, g, &pc, err, errcap);
        if (!pl)
            return ENG_EBAD_BOT_SPEC;
        player_destroy(pl);
        return 0;
    }
    if (kind == SEAT_REMOTE) {
        const char *name = spec + 7;
        if (!registry_known(s, name)) {
            snprintf(err, errcap, "no bot is registered as '%.64s' (it must register first)", name);
            return ENG_EUNKNOWN_BOT;
        }
        regbot *r = registry_find(s, name);
        bool plays = !r || r->ngames == 0;
        for (int i = 0; r && i < r->ngames; i++)
            plays = plays || strcmp(r->games[i], g->name) == 0;
        if (!plays) {
            snprintf(err, errcap, "'%.64s' registered for other games than %s", name, g->name);
            return ENG_EBAD_BOT_SPEC;
        }
        return 0;
    }
    return bot_check_spec(spec, g, err, errcap);
}

static int insert_row(srv_tour *st, const char *kind, int64_t *id)
{
    json_t *set = settings_json(st);
    char *text = set ? json_dumps(set, JSON_COMPACT) : NULL;
    json_decref(set);
    db_stmt *q = NULL;
    int rc = ENG_ESTORAGE;
    /* the id is the database's (an identity on PostgreSQL), never ours */
    /* on PostgreSQL the row names its owner, this server (cluster.c) */
    bool pg = journal_shared(st->srv->db);
    if (text &&
        db_prepare(db_of(st->srv),
                   pg ? "INSERT INTO srv_tournaments(kind,tour_id,settings,state,note,created,owner) "
                        "VALUES(?,?,?,?,'',?,?) RETURNING id"
                      : "INSERT INTO srv_tournaments(kind,tour_id,settings,state,note,created) "
                        "VALUES(?,?,?,?,'',?) RETURNING id",
                   &q) == DB_OK &&
        (!pg || db_bind_text(q, 6, st->srv->instance, -1) == DB_OK) &&
        db_bind_text(q, 1, kind, -1) == DB_OK &&
        (st->t ? db_bind_int64(q, 2, st->tour_id) : db_bind_null(q, 2)) == DB_OK &&
        db_bind_text(q, 3, text, -1) == DB_OK &&
        db_bind_text(q, 4, state_names[st->state], -1) == DB_OK &&
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

/* Create the tournament of message m (checked by the protocol's decoder);
 * linked, in state created. Returns it, or NULL with code and err. */
static srv_tour *create_core(srv *s, const proto_msg *m, int *code, char *err, size_t errcap);

static void create_tournament(conn *c, const proto_msg *m)
{
    char err[512];
    int rc = 0;
    srv_tour *st = create_core(c->srv, m, &rc, err, sizeof err);
    if (!st) {
        conn_error(c, rc, err, m->id);
        return;
    }
    json_t *r = proto_reply("tournament_created", m->id);
    json_object_set_new(r, "tournament", json_integer(st->id));
    json_object_set_new(r, "state", json_string(state_names[st->state]));
    conn_send(c, r);
}

int tours_create_started(srv *s, const proto_msg *m, const tours_hooks *h, int64_t *id, char *err,
                         size_t errcap)
{
    int rc = 0;
    if (!s->tours) {
        snprintf(err, errcap, "tournaments are not available on this server");
        return ENG_EINTERNAL;
    }
    srv_tour *st = create_core(s, m, &rc, err, errcap);
    if (!st)
        return rc;
    st->hooks = *h;
    *id = st->id;
    if (st->job && st->want < 0) {
        st->want = PROTO_START_TOURNAMENT; /* after the standings job, as steer() does */
        st->want_conn = 0;
    } else {
        steer_now(st, PROTO_START_TOURNAMENT, NULL, NULL);
    }
    return 0;
}

const char *tours_state_of(srv *s, int64_t id, const char **note)
{
    srv_tour *st = s->tours ? find_tour(s, id) : NULL;
    if (!st)
        return NULL;
    if (note)
        *note = st->note;
    return state_names[st->state];
}

void tours_cancel_id(srv *s, int64_t id)
{
    srv_tour *st = s->tours ? find_tour(s, id) : NULL;
    if (!st)
        return;
    memset(&st->hooks, 0, sizeof st->hooks);
    if (st->state == TS_DONE || st->state == TS_CANCELLED)
        return;
    if (st->job) {
        st->want = PROTO_CANCEL_TOURNAMENT;
        st->want_conn = 0;
        json_decref(st->want_id);
        st->want_id = NULL;
    } else {
        steer_now(st, PROTO_CANCEL_TOURNAMENT, NULL, NULL);
    }
}

static srv_tour *create_core(srv *s, const proto_msg *m, int *code, char *errout, size_t errcap)
{
    const proto_tournament *pt = &m->tour;
    char err[512], e2[400];
    int live = 0;
    for (srv_tour *x = s->tours->list; x; x = x->next)
        live += !x->closing && x->state != TS_DONE && x->state != TS_CANCELLED;
    if (live >= SRV_MAX_TOURNAMENTS) {
        snprintf(err, sizeof err, "the server holds its maximum of %d tournaments not over",
                 SRV_MAX_TOURNAMENTS);
        snprintf(errout, errcap, "%s", err);
        *code = ENG_ETOO_MANY;
        return NULL;
    }
    const eng_game *g = eng_find_game(m->game);
    if (!g || !codec_find(g->name)) {
        snprintf(err, sizeof err, "create_tournament: no game named '%.40s' (see list_games)",
                 m->game);
        snprintf(errout, errcap, "%s", err);
        *code = ENG_EUNKNOWN_GAME;
        return NULL;
    }
    srv_tour *st = tour_new(s);
    if (!st) {
        snprintf(errout, errcap, "out of memory");
        *code = ENG_ENOMEM;
        return NULL;
    }
    st->format = pt->format;
    st->g = g;
    st->tc = m->tc;
    st->pol = m->pol;
    st->concurrency = pt->concurrency;
    st->placement = pt->placement_games;
    st->registered = pt->registered;
    st->state = TS_CREATED;
    st->created_ms = srv_epoch_ms();
    snprintf(st->label, sizeof st->label, "%s", pt->label ? pt->label : "");
    json_t *jp = m->rules ? json_object_get(m->rules, "players") : NULL;
    /* the seats per table are the rules' players (the game checks them) */
    int players =
        json_is_integer(jp) && json_integer_value(jp) >= -1000 && json_integer_value(jp) <= 1000
            ? (int)json_integer_value(jp)
            : 2;
    int rc = wire_rules_parse(g, m->rules, players, &st->rules, e2, sizeof e2);
    if (rc) {
        snprintf(err, sizeof err, "create_tournament: %s", e2);
        goto fail;
    }
    st->k = st->rules.players;
    int n = pt->nparticipants;
    tour_participant *parts = calloc((size_t)n + 1, sizeof *parts);
    if (!parts) {
        rc = ENG_ENOMEM;
        snprintf(err, sizeof err, "out of memory");
        goto fail;
    }
    for (int i = 0; i < n; i++) {
        json_t *p = json_array_get(pt->participants, (size_t)i);
        parts[i].name = json_string_value(json_object_get(p, "name"));
        parts[i].spec = json_string_value(json_object_get(p, "spec"));
        rc = check_participant(s, g, parts[i].spec, e2, sizeof e2);
        if (rc) {
            snprintf(err, sizeof err, "participants[%d] (%s): %s", i, parts[i].name, e2);
            free(parts);
            goto fail;
        }
    }
    db_conn *db = db_of(s);
    if (st->format == PROTO_TOUR_LADDER) {
        if (st->k < 2) {
            rc = ENG_EBAD_PLAYERS;
            snprintf(err, sizeof err, "a ladder needs tables of 2 to 5 seats");
            free(parts);
            goto fail;
        }
        for (int i = 0; i < n; i++)
            for (int j = 0; j < i; j++)
                if (strcmp(parts[i].name, parts[j].name) == 0) {
                    rc = ENG_EINVAL;
                    snprintf(err, sizeof err, "two participants are named '%s'", parts[i].name);
                    free(parts);
                    goto fail;
                }
        if (!tx(db, "BEGIN IMMEDIATE")) {
            rc = ENG_ESTORAGE;
            snprintf(err, sizeof err, "the tournament could not be stored");
            free(parts);
            goto fail;
        }
        rc = insert_row(st, "ladder", &st->id);
        for (int i = 0; i < n && rc == 0; i++) {
            json_t *p = json_array_get(pt->participants, (size_t)i);
            json_t *ref = json_object_get(p, "reference");
            bool reference =
                ref ? json_is_true(ref) : match_spec_kind(parts[i].spec) != SEAT_REMOTE;
            rc = lad_add_part(st, parts[i].name, parts[i].spec, reference, true);
        }
        free(parts);
        if (rc || !tx(db, "COMMIT")) {
            tx(db, "ROLLBACK");
            rc = ENG_ESTORAGE;
            snprintf(err, sizeof err, "the tournament could not be stored");
            goto fail;
        }
    } else {
        tour_spec spec;
        tour_spec_init(&spec);
        spec.format = (tour_format)pt->format;
        spec.game = g;
        spec.rules = st->rules;
        spec.participants = parts;
        spec.nparticipants = n;
        spec.cycles = pt->cycles;
        spec.rounds = pt->rounds;
        spec.best_of = pt->best_of;
        spec.games_per_pair = pt->games_per_pair;
        spec.seed = pt->has_seed ? pt->seed : fresh_seed(s);
        spec.anchor = pt->anchor;
        spec.label = pt->label;
        if (pt->has_sprt) {
            spec.sprt.enabled = true;
            spec.sprt.elo0 = pt->elo0;
            spec.sprt.elo1 = pt->elo1;
            spec.sprt.alpha = pt->alpha;
            spec.sprt.beta = pt->beta;
            tour_sprt_model_parse(pt->sprt_model, &spec.sprt.model);
        }
        rc = tour_create(&spec, &st->t, e2, sizeof e2);
        free(parts);
        if (rc) {
            snprintf(err, sizeof err, "create_tournament: %s", e2);
            goto fail;
        }
        tour_set_paused(st->t, true); /* until start_tournament */
        if (!tx(db, "BEGIN IMMEDIATE")) {
            rc = ENG_ESTORAGE;
            snprintf(err, sizeof err, "the tournament could not be stored");
            goto fail;
        }
        rc = tour_store_create(s->tours->store, st->t, &st->tour_id, e2, sizeof e2);
        if (rc == 0)
            rc = insert_row(st, "tour", &st->id);
        if (rc || !tx(db, "COMMIT")) {
            tx(db, "ROLLBACK");
            rc = ENG_ESTORAGE;
            snprintf(err, sizeof err, "the tournament could not be stored");
            goto fail;
        }
    }
    link_tour(s, st);
    srv_log(LOG_INFO, "tournament_created", "{s:I, s:s, s:s, s:i}", "tournament",
            (json_int_t)st->id, "format", proto_tour_format_name(st->format), "game", g->name,
            "participants", n);
    schedule_standings(st);
    return st;
fail:
    snprintf(errout, errcap, "%s", err);
    *code = rc;
    st->closing = true; /* not linked: freed once its timer has closed */
    uv_close((uv_handle_t *)&st->timer, on_timer_closed);
    return NULL;
}

/* ---- the other messages -----------------------------------------------------------------------
 */

static void reply_state(conn *c, const srv_tour *st, const json_t *id)
{
    json_t *r = proto_reply("tournament_state", id);
    json_object_set_new(r, "tournament", json_integer(st->id));
    json_object_set_new(r, "state", json_string(state_names[st->state]));
    json_object_set_new(r, "counts", counts_json(st));
    conn_send(c, r);
}

/* Apply a start/pause/cancel (type) and reply on c (may be NULL: gone). */
static void steer_now(srv_tour *st, int type, conn *c, const json_t *id)
{
    if (st->state == TS_DONE || st->state == TS_CANCELLED) {
        if (c)
            conn_error(c, ENG_EINVAL, "the tournament is over", id);
        return;
    }
    switch (type) {
    case PROTO_START_TOURNAMENT:
        if (st->t)
            tour_set_paused(st->t, false);
        set_state(st, TS_RUNNING, NULL);
        break;
    case PROTO_PAUSE_TOURNAMENT:
        if (st->t)
            tour_set_paused(st->t, true);
        set_state(st, TS_PAUSED, NULL);
        break;
    default: /* cancel: pending games void; running ones finish and count */
        if (st->t)
            tour_cancel(st->t);
        set_state(st, TS_CANCELLED, NULL);
        break;
    }
    if (c)
        reply_state(c, st, id);
    push_update(st, NULL, false);
    pump(st);
}

static void steer(conn *c, const proto_msg *m, srv_tour *st)
{
    if (!st->job) {
        steer_now(st, m->type, c, m->id);
        return;
    }
    /* the standings job reads the tournament: the change waits for it (ms) */
    if (st->want >= 0) {
        conn_error(c, ENG_ETOO_MANY, "another change of this tournament is waiting; try again",
                   m->id);
        return;
    }
    st->want = m->type;
    st->want_conn = c->id;
    st->want_id = m->id ? json_deep_copy(m->id) : NULL;
}

static void watch(conn *c, const proto_msg *m, srv_tour *st)
{
    bool already = false;
    for (int i = 0; i < c->nwatching; i++)
        already = already || c->watching[i] == st;
    if (!already) {
        if (c->nwatching >= SRV_MAX_WATCHING) {
            conn_error(c, ENG_ETOO_MANY, "this connection watches too many tournaments", m->id);
            return;
        }
        if (st->nwatch >= SRV_MAX_TOUR_WATCHERS) {
            conn_error(c, ENG_ETOO_MANY, "this tournament has its maximum of watchers", m->id);
            return;
        }
        if (st->nwatch == st->capwatch) {
            int cap = st->capwatch ? st->capwatch * 2 : 4;
            conn **w = realloc(st->watch, (size_t)cap * sizeof *w);
            if (!w) {
                conn_error(c, ENG_ENOMEM, "out of memory", m->id);
                return;
            }
            st->watch = w;
            st->capwatch = cap;
        }
        st->watch[st->nwatch++] = c;
        c->watching[c->nwatching++] = st;
    }
    conn_send(c, view_json(st, m->id));
}

static void unwatch_one(conn *c, srv_tour *st)
{
    for (int i = 0; i < st->nwatch; i++)
        if (st->watch[i] == c) {
            st->watch[i] = st->watch[--st->nwatch];
            break;
        }
    for (int i = 0; i < c->nwatching; i++)
        if (c->watching[i] == st) {
            c->watching[i] = c->watching[--c->nwatching];
            break;
        }
}

void tours_conn_closed(conn *c)
{
    while (c->nwatching > 0)
        unwatch_one(c, c->watching[c->nwatching - 1]);
}

void handle_tournament(conn *c, const proto_msg *m)
{
    srv *s = c->srv;
    if (!s->tours) {
        conn_error(c, ENG_EINTERNAL, "tournaments are not available on this server", m->id);
        return;
    }
    bool admin = m->type == PROTO_CREATE_TOURNAMENT || m->type == PROTO_START_TOURNAMENT ||
                 m->type == PROTO_PAUSE_TOURNAMENT || m->type == PROTO_CANCEL_TOURNAMENT;
    if (admin && !admin_check(c, m))
        return;
    if (m->type == PROTO_CREATE_TOURNAMENT) {
        create_tournament(c, m);
        return;
    }
    if (m->type == PROTO_LIST_TOURNAMENTS) {
        json_t *a = json_array();
        for (srv_tour *st = s->tours->list; st; st = st->next)
            if (!st->closing)
                json_array_append_new(a, summary_json(st));
        append_remote(s, a);
        json_t *r = proto_reply("tournaments", m->id);
        json_object_set_new(r, "tournaments", a);
        conn_send(c, r);
        return;
    }
    srv_tour *st = find_tour(s, m->tournament);
    if (!st) {
        conn_error(c, ENG_EUNKNOWN_TOURNAMENT, "no tournament with that id", m->id);
        return;
    }
    switch (m->type) {
    case PROTO_START_TOURNAMENT:
    case PROTO_PAUSE_TOURNAMENT:
    case PROTO_CANCEL_TOURNAMENT: steer(c, m, st); return;
    case PROTO_WATCH_TOURNAMENT: watch(c, m, st); return;
    case PROTO_UNWATCH_TOURNAMENT: {
        unwatch_one(c, st);
        json_t *r = proto_reply("unwatched", m->id);
        json_object_set_new(r, "tournament", json_integer(st->id));
        conn_send(c, r);
        return;
    }
    default: { /* get_tournament_plots */
        json_t *r = proto_reply("tournament_plots", m->id);
        json_object_set_new(r, "tournament", json_integer(st->id));
        static const char *const keys[] = {"ratings", "scores", "crosstable"};
        for (int i = 0; i < 3; i++)
            json_object_set_new(r, keys[i], st->svg[i] ? json_string(st->svg[i]) : json_null());
        conn_send(c, r);
        return;
    }
    }
}

/* ---- start-up and shutdown ----------------------------------------------------------------------
 */

int tours_init(srv *s, char *err, size_t errcap)
{
    struct tours *ts = calloc(1, sizeof *ts);
    if (!ts) {
        snprintf(err, errcap, "out of memory");
        return ENG_ENOMEM;
    }
    db_conn *db = db_of(s);
    /* two servers starting at once on one PostgreSQL database: schema
     * changes one at a time (nothing on SQLite) */
    int lrc = db_schema_lock(db);
    if (lrc == DB_OK)
        lrc = db_exec(db, tables);
    /* several servers on PostgreSQL: each tournament's owner, and the summary
     * the other servers' lists show (cluster.c) */
    if (lrc == DB_OK && journal_shared(s->db))
        lrc = db_exec(db, "ALTER TABLE srv_tournaments ADD COLUMN IF NOT EXISTS owner TEXT;"
                          "ALTER TABLE srv_tournaments ADD COLUMN IF NOT EXISTS summary TEXT;");
    db_schema_unlock(db);
    if (lrc != DB_OK) {
        snprintf(err, errcap, "database: %s", db_errmsg(db));
        free(ts);
        return ENG_ESTORAGE;
    }
    int rc = tour_store_attach(db, &ts->store, err, errcap);
    if (rc) {
        free(ts);
        return rc;
    }
    s->tours = ts;
    return 0;
}

/* A running game of a resumed tournament: its match is live again (it
 * continues), finished (its result counts now), or gone (played again). */
static void resume_game(srv_tour *st, int64_t game, const char *ref, bool *requeue)
{
    *requeue = false;
    match *m = ref && ref[0] ? match_find(st->srv, ref) : NULL;
    tour_result r;
    char verdict[TOUR_VERDICT_MAX + 1];
    if (m && m->status != MATCH_FINISHED) {
        tag(st, m, game);
        return;
    }
    if (m && m->result) {
        result_from_json(st->k, m->result, m, &r, verdict, sizeof verdict);
        apply_result(st, game, &r);
        return;
    }
    int status = -1;
    json_t *res = NULL;
    if (ref && ref[0] && journal_match_result(st->srv->db, ref, &status, &res) == 0 &&
        status == MATCH_FINISHED && res) {
        result_from_json(st->k, res, NULL, &r, verdict, sizeof verdict);
        apply_result(st, game, &r);
        json_decref(res);
        return;
    }
    json_decref(res);
    *requeue = true;
}

static void resume_ladder(srv_tour *st)
{
    db_conn *db = db_of(st->srv);
    db_stmt *q = NULL;
    if (db_prepare(db,
                   "SELECT name, spec, reference FROM ladder_participants WHERE "
                   "tournament=? ORDER BY idx",
                   &q) == DB_OK &&
        db_bind_int64(q, 1, st->id) == DB_OK) {
        while (db_step(q) == DB_ROW) {
            const char *name = db_column_text(q, 0), *spec = db_column_text(q, 1);
            lad_add_part(st, name ? name : "", spec ? spec : "", db_column_int(q, 2) != 0, false);
        }
    }
    db_finalize(q);
    q = NULL;
    if (db_prepare(db,
                   "SELECT id, grp, rot, seats, chance_seed, match, status, result FROM "
                   "ladder_games WHERE tournament=? ORDER BY id",
                   &q) == DB_OK &&
        db_bind_int64(q, 1, st->id) == DB_OK) {
        while (db_step(q) == DB_ROW) {
            lad_game *g = lad_push_game(st);
            if (!g)
                break;
            g->id = db_column_int64(q, 0);
            g->grp = db_column_int64(q, 1);
            g->rot = db_column_int(q, 2);
            const char *seats = db_column_text(q, 3);
            bool ok = g->id == st->ng - 1 && seats;
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
            if (!ok) {
                srv_log(LOG_ERROR, "ladder_row_damaged", "{s:I, s:I}", "tournament",
                        (json_int_t)st->id, "game", (json_int_t)g->id);
                g->status = TOUR_VOID;
            }
            if (g->status == TOUR_DONE) {
                match *m = g->match[0] ? match_find(st->srv, g->match) : NULL;
                if (m) { /* its match, if still held, keeps its tag */
                    m->tour_id = st->id;
                    m->tour_game = g->id;
                }
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
                for (int s = 0; s < st->k; s++) {
                    st->parts[g->seat[s]].games++;
                    if (st->k == 2)
                        st->parts[g->seat[s]].last_opp = g->seat[1 - s];
                }
            }
            if (g->grp >= st->next_grp)
                st->next_grp = g->grp + 1;
        }
    }
    db_finalize(q);
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
        bool again;
        resume_game(st, i, g->match, &again);
        if (again) {
            /* its match is not there: the game is void, its group goes on */
            srv_log(LOG_WARN, "ladder_game_lost", "{s:I, s:I}", "tournament", (json_int_t)st->id,
                    "game", (json_int_t)i);
            g->status = TOUR_VOID;
            lad_store_game(st, g);
            lad_group *gr = lad_open(st, g->grp);
            if (gr) {
                gr->running = false;
                if (gr->next_rot >= st->k)
                    lad_close_group(st, gr);
            }
        }
    }
}

/* Load and resume the stored tournaments: every one (SQLite), or those this
 * server owns (PostgreSQL); with only_new, those not held yet (taken over). */
static void resume_rows(srv *s, bool only_new)
{
    if (!s->tours)
        return;
    db_conn *db = db_of(s);
    db_stmt *q = NULL;
    bool pg = journal_shared(s->db);
    if (db_prepare(db,
                   pg ? "SELECT id, kind, tour_id, settings, state, note, created FROM "
                        "srv_tournaments WHERE owner=? ORDER BY id"
                      : "SELECT id, kind, tour_id, settings, state, note, created FROM "
                        "srv_tournaments ORDER BY id",
                   &q) != DB_OK)
        return;
    if (pg)
        db_bind_text(q, 1, s->instance, -1);
    int n = 0;
    /* On PostgreSQL the rows are all read at the first step; on SQLite the
     * statement stays open while each tournament is loaded and resumed on
     * the same connection (reads and writes of other tables, as before). */
    while (db_step(q) == DB_ROW) {
        if (only_new && find_tour(s, db_column_int64(q, 0)))
            continue;
        srv_tour *st = tour_new(s);
        if (!st)
            break;
        char err[256] = "";
        st->id = db_column_int64(q, 0);
        const char *kind = db_column_text(q, 1);
        st->tour_id = db_column_int64(q, 2);
        const char *state = db_column_text(q, 4);
        st->state = TS_CREATED;
        for (int i = 0; state && i < TS_NSTATES; i++)
            if (strcmp(state, state_names[i]) == 0)
                st->state = i;
        const char *note = db_column_text(q, 5);
        snprintf(st->note, sizeof st->note, "%s", note ? note : "");
        st->created_ms = db_column_int64(q, 6);
        int rc = settings_parse(st, db_column_text(q, 3), err, sizeof err);
        if (rc == 0 && kind && strcmp(kind, "tour") == 0)
            rc = tour_store_load(s->tours->store, st->tour_id, TOUR_RESUME_KEEP, &st->t, err,
                                 sizeof err);
        if (rc != 0) {
            srv_log(LOG_ERROR, "tournament_restore_failed", "{s:I, s:s}", "tournament",
                    (json_int_t)st->id, "reason", err);
            st->closing = true;
            uv_close((uv_handle_t *)&st->timer, on_timer_closed);
            continue;
        }
        link_tour(s, st);
        n++;
        if (is_ladder(st)) {
            resume_ladder(st);
        } else {
            for (int64_t id = 0; id < tour_game_count(st->t); id++) {
                tour_game g;
                if (tour_get_game(st->t, id, &g) != 0)
                    continue;
                if (g.status == TOUR_DONE) { /* its match, if still held, keeps its tag */
                    const char *ref = tour_game_ref(st->t, id);
                    match *m = ref && ref[0] ? match_find(s, ref) : NULL;
                    if (m) {
                        m->tour_id = st->id;
                        m->tour_game = id;
                    }
                }
                if (g.status != TOUR_RUNNING)
                    continue;
                bool again;
                resume_game(st, id, tour_game_ref(st->t, id), &again);
                if (again) {
                    srv_log(LOG_WARN, "tournament_game_replayed", "{s:I, s:I}", "tournament",
                            (json_int_t)st->id, "game", (json_int_t)id);
                    tour_game_requeue(st->t, id);
                }
            }
        }
        schedule_standings(st);
    }
    db_finalize(q);
    if (n)
        srv_log(LOG_INFO, "tournaments_restored", "{s:i, s:b}", "tournaments", n, "taken_over",
                only_new);
    tours_poke(s);
}

void tours_resume(srv *s)
{
    resume_rows(s, false);
}

/* ---- several servers (cluster.c) --------------------------------------------------------------- */

void tours_take_over(srv *s)
{
    resume_rows(s, true);
}

int tours_claim(srv *s, const char *dead)
{
    db_stmt *q = NULL;
    int rc = db_prepare(db_of(s),
                        "UPDATE srv_tournaments SET owner=? WHERE owner=? AND state<>'done' AND "
                        "state<>'cancelled'",
                        &q);
    if (rc == DB_OK) {
        db_bind_text(q, 1, s->instance, -1);
        db_bind_text(q, 2, dead, -1);
        rc = db_step(q) == DB_DONE ? DB_OK : DB_EFAIL;
    }
    db_finalize(q);
    return rc == DB_OK ? 0 : -1;
}

int tours_owner(srv *s, int64_t id, char *name, size_t cap)
{
    if (!s->tours || !journal_shared(s->db) || find_tour(s, id))
        return 0;
    db_stmt *q = NULL;
    int rc = db_prepare(db_of(s), "SELECT owner FROM srv_tournaments WHERE id=?", &q);
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

void tours_write_summaries(srv *s)
{
    if (!s->tours || !journal_shared(s->db))
        return;
    for (srv_tour *st = s->tours->list; st; st = st->next) {
        if (st->closing)
            continue;
        json_t *sum = summary_json(st);
        char *text = sum ? json_dumps(sum, JSON_COMPACT) : NULL;
        json_decref(sum);
        if (text && (!st->summary_written || strcmp(text, st->summary_written) != 0)) {
            db_stmt *q = NULL;
            if (db_prepare(db_of(s), "UPDATE srv_tournaments SET summary=? WHERE id=?", &q) ==
                    DB_OK &&
                db_bind_text(q, 1, text, -1) == DB_OK && db_bind_int64(q, 2, st->id) == DB_OK &&
                db_step(q) == DB_DONE) {
                free(st->summary_written);
                st->summary_written = text;
                text = NULL;
            }
            db_finalize(q);
        }
        free(text);
    }
}

static bool tour_held(srv *s, const char *id) { return find_tour(s, strtoll(id, NULL, 10)) != NULL; }

/* The other servers' tournaments, for list_tournaments (their summaries,
 * written by their owners, with "server"). */
static void append_remote(srv *s, json_t *a)
{
    if (!journal_shared(s->db))
        return;
    db_stmt *q = NULL;
    if (db_prepare(db_of(s),
                   "SELECT CAST(id AS TEXT), owner, summary FROM srv_tournaments WHERE owner<>? AND "
                   "summary IS NOT NULL ORDER BY id",
                   &q) != DB_OK)
        return;
    db_bind_text(q, 1, s->instance, -1);
    cluster_append_summaries(s, q, tour_held, a);
    db_finalize(q);
}

void tours_shutdown(srv *s)
{
    if (!s->tours)
        return;
    while (s->tours->list) {
        srv_tour *st = s->tours->list;
        s->tours->list = st->next;
        tour_close(st);
    }
}

void tours_free(srv *s)
{
    if (!s->tours)
        return;
    tour_store_close(s->tours->store);
    free(s->tours);
    s->tours = NULL;
}

int tours_by_state(const srv *s, const char **names, int *counts, int cap)
{
    int n = TS_NSTATES < cap ? TS_NSTATES : cap;
    for (int i = 0; i < n; i++) {
        names[i] = state_names[i];
        counts[i] = 0;
    }
    for (const srv_tour *st = s->tours ? s->tours->list : NULL; st; st = st->next)
        if (!st->closing && st->state >= 0 && st->state < n)
            counts[st->state]++;
    return n;
}

