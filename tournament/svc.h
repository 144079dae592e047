/*
 * svc.h — the tournament service's own parts (service.h), shared by its
 * files and no one else, from the top floor down (each calls only those
 * below it):
 *
 *   serve.c        the service: start, resume, stop; create, steer, the
 *                  messages; each game started (the driver, the ladder) and
 *                  its result fed back; the standings jobs scheduled; the
 *                  servers sharing a database
 *   svc_ladder.c   the ladder: participants, groups, games, enrolment; a
 *                  game's result applied (either kind)
 *   svc_standings.c  standings and plots, computed on the host's pool
 *   svc_store.c    the srv_tournaments and ladder_ tables
 *   svc_match.c    a game's server match through the host: made, its
 *                  result read, found again after a restart; logs, seeds
 *   svc_views.c    a tournament as JSON, and the watchers' updates
 */
#ifndef TESSERA_TOURNAMENT_SVC_H
#define TESSERA_TOURNAMENT_SVC_H

#include <string.h>

#include "tournament/limits.h"
#include "tournament/service.h"
#include "tournament/store.h"

enum tstate { TS_CREATED, TS_RUNNING, TS_PAUSED, TS_CANCELLED, TS_DONE, TS_NSTATES };
extern const char *const ts__state_names[TS_NSTATES];

/* ---- the ladder's pieces ------------------------------------------------------------------ */

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
    char match[TOUR_REF_MAX + 1];
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

/* One tournament (or ladder) the service holds. */
typedef struct tsvc_tour {
    tour_service *svc;
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
    /* formats of tour.h */
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
    /* standings */
    json_t *standings;
    char *svg[3]; /* ratings, scores, crosstable */
    bool dirty, job, closing;
    uint64_t job_started; /* host clock when the last job started (0: never) */
    uint64_t due;         /* a job is due then (0: none waiting) */
    double job_ms;
    deferred *dhead, *dtail;
    /* a start/pause/cancel that came while the job read the tournament */
    int want;              /* its proto_type, or -1 */
    uint64_t want_caller;  /* who asked (0: no one to answer) */
    json_t *want_id;       /* its id (a copy), or NULL */
    tsvc_hooks hooks;      /* a tournament another service runs, or zeroes */
    char *summary_written; /* shared database: the summary last stored (malloc'd) */
    struct tsvc_tour *next;
} tsvc_tour;

struct tour_service {
    tsvc_host host;
    db_conn *db;
    bool shared;
    char instance[PROTO_NAME_MAX + 1];
    int bot_threads; /* tsvc_config's: the search threads a participant may ask for (0: any) */
    int standings_delay_ms;
    tour_store *store;
    tsvc_tour *list; /* newest first */
    uint64_t seed_counter;
    bool pumping; /* a pump is on the stack (a match it starts may end at once) */
    bool again;   /* something asked for a pump meanwhile */
    bool stopping;
    uint64_t armed; /* host clock the host's timer is set for (0: not set) */
};

static inline bool ts__is_ladder(const tsvc_tour *st)
{
    return st->format == PROTO_TOUR_LADDER;
}

static inline bool ts__is_remote(const char *spec)
{
    return strncmp(spec, "remote:", 7) == 0;
}

static inline bool ts__is_program(const char *spec)
{
    return strncmp(spec, "cmd:", 4) == 0 || strncmp(spec, "cmd-stateless:", 14) == 0;
}

/* ---- svc_match.c -------------------------------------------------------------------------- */

void ts__log(tour_service *svc, int level, const char *event, const char *fmt, ...);
/* The wall clock, epoch milliseconds. */
int64_t ts__epoch_ms(void);
/* A random 63-bit seed (getrandom), or a counter when that fails. */
uint64_t ts__fresh_seed(tour_service *svc);
/* A tour_result from a match's result JSON (scores, reason, seat, detail)
 * and, when o has them, its seats' time and decisions. */
void ts__result_of(int k, const tsvc_outcome *o, tour_result *r, char *verdict, size_t vcap);
/* Create the match of one game (seats by seat): 0 and its ref,
 * TOUR_HOST_WAIT, or a negative code with err. */
int ts__match_create(tsvc_tour *st, const char *const *specs, const char *const *names,
                     uint64_t chance_seed, const uint64_t *seat_seeds, int64_t game, char *ref,
                     size_t refcap, char *err, size_t errcap);
/* A game running at a restart: its match live again (1), finished (0: *r
 * its result), or gone (-1: played again). */
int ts__match_again(tsvc_tour *st, int64_t game, const char *ref, tour_result *r, char *verdict,
                    size_t vcap);
/* BEGIN IMMEDIATE (a plain BEGIN on PostgreSQL), COMMIT, ROLLBACK. */
bool ts__tx(tour_service *svc, const char *sql);

/* ---- svc_store.c -------------------------------------------------------------------------- */

int ts__tables(tour_service *svc, char *err, size_t errcap);
/* The tournament's state and note, in memory and in its row; logged. */
void ts__set_state(tsvc_tour *st, int state, const char *note);
/* Its row (settings, state), the database's id into *id. 0 or ENG_ESTORAGE. */
int ts__insert_row(tsvc_tour *st, const char *kind, int64_t *id);
/* Settings text (its row) into st. 0, or -1 with err. */
int ts__settings_parse(tsvc_tour *st, const char *text, char *err, size_t errcap);
bool ts__lad_store_part(tsvc_tour *st, int idx, const lad_part *p);
bool ts__lad_store_game(tsvc_tour *st, const lad_game *g);
/* The rows of the tournaments to resume: each(row) with id, kind, tour_id,
 * settings, state, note, created; with only_new, those not held. */
typedef struct ts_row {
    int64_t id, tour_id, created;
    const char *kind, *settings, *state, *note;
} ts_row;
int ts__rows(tour_service *svc, void (*each)(tour_service *svc, const ts_row *row, void *ctx),
             void *ctx);
/* The ladder's participants and games as stored: part(name, spec,
 * reference) in order, then game(row, ok) for each game in id order (ok:
 * its seats were readable) until it returns false. */
void ts__lad_rows(tsvc_tour *st,
                  void (*part)(tsvc_tour *st, const char *name, const char *spec, bool reference),
                  bool (*game)(tsvc_tour *st, const lad_game *row, bool ok));
int ts__owner(tour_service *svc, int64_t id, char *name, size_t cap);
int ts__claim(tour_service *svc, const char *dead);
bool ts__write_summary(tour_service *svc, int64_t id, const char *text);
/* The other servers' summaries (shared database), to the host's others. */
void ts__others(tour_service *svc, json_t *out);

/* ---- svc_views.c -------------------------------------------------------------------------- */

json_t *ts__counts_json(const tsvc_tour *st);
json_t *ts__game_json(const tsvc_tour *st, int64_t id);
json_t *ts__summary_json(const tsvc_tour *st);
json_t *ts__view_json(const tsvc_tour *st, const json_t *id);
json_t *ts__lad_result_json(const tsvc_tour *st, const lad_game *g);
/* tournament_update to the watchers: the state and counts, with a game
 * that started or ended (steals it; may be NULL), or the standings. */
void ts__push_update(tsvc_tour *st, json_t *game, bool with_standings);

/* ---- svc_ladder.c ------------------------------------------------------------------------- */

int ts__lad_add_part(tsvc_tour *st, const char *name, const char *spec, bool reference, bool write);
/* Start what the ladder can: groups part-way, then new tables. */
void ts__lad_pump(tsvc_tour *st);
void ts__lad_finished(tsvc_tour *st, int64_t game, const tour_result *r);
/* A finished game's result into the tournament (either kind), logged, to
 * the watchers. */
void ts__apply_result(tsvc_tour *st, int64_t game, const tour_result *r);
/* Load the ladder's rows and resume its running games. */
void ts__lad_resume(tsvc_tour *st);

/* ---- svc_standings.c ---------------------------------------------------------------------- */

/* Start the standings job of st on the host's pool, done(st) on the loop
 * after it has been taken in. false when it could not start. */
bool ts__standings_start(tsvc_tour *st, void (*done)(tsvc_tour *st));

#endif
