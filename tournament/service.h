/*
 * service.h — a server's tournaments (docs/protocol.md, "Tournaments";
 * docs/tournaments.md, "On the server"): the tournament service a game
 * server hosts. The service owns the tournaments — their tables, their
 * schedules (through the driver, driver.h, as `tessera tournament` does),
 * the ladder, the standings jobs, resume after a kill — and asks its host
 * for what only a server has: a match for each game ("start a match with
 * these seats, tell me when it ends"), the seats' availability (programs,
 * registered bots), a thread pool, a timer, and the way to its watchers.
 *
 *     tsvc_host h = {.user = me, .new_match = ..., ...};
 *     tsvc_config c = {.db = db};
 *     tour_service *svc;  tsvc_start(&c, &h, &svc, err, sizeof err);
 *     ... after the matches are restored:  tsvc_resume(svc);
 *     ... a tournament message (admin token checked): tsvc_request(svc, m, conn_id);
 *     ... a game's match ended:             tsvc_game_over(svc, tour, game, &outcome);
 *     ... a seat came free:                 tsvc_poke(svc);
 *     ... host.arm's timer fired:           tsvc_timer(svc);
 *     tsvc_stop(svc);  (the loop drains)  tsvc_free(svc);
 *
 * Threads: every function here, and every host function, runs on the
 * host's loop thread; only the standings computation runs on the host's
 * pool (host.queue_work), on data the loop leaves alone meanwhile.
 */
#ifndef TESSERA_TOURNAMENT_SERVICE_H
#define TESSERA_TOURNAMENT_SERVICE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/messages.h"
#include "storage/db.h"
#include "tournament/driver.h"
#include "tournament/tour.h"

typedef struct tour_service tour_service;

/* Log levels, in the host's order. */
enum { TSVC_LOG_DEBUG, TSVC_LOG_INFO, TSVC_LOG_WARN, TSVC_LOG_ERROR };

/* The match of one game, as the service asks for it. */
typedef struct tsvc_match {
    const eng_game *game;
    const eng_rules *rules;
    int seats;
    const char *const *specs; /* [seats]: a bot spec, cmd: program or remote:NAME */
    const char *const *names; /* [seats] */
    const proto_time_control *tc;
    const proto_policies *pol;
    uint64_t chance_seed;       /* the group's: its games see the same chance outcomes */
    const uint64_t *seat_seeds; /* [seats] in-process bots' seeds, or NULL */
    int64_t tour_id, game_id;   /* what the match's end reports (tsvc_game_over) */
} tsvc_match;

/* How a game's match ended. */
typedef struct tsvc_outcome {
    const json_t *result; /* the match's result: scores, reason, seat, detail */
    int seats;
    bool have_times; /* the match was held: its seats' figures below */
    double used_ms[ENG_MAX_PLAYERS];
    int moves[ENG_MAX_PLAYERS];
    /* Its game record as JSON text (heap; free()), made when asked (only a
     * tournament with hooks asks); NULL: none. */
    char *(*record)(void *ctx);
    void *ctx;
} tsvc_outcome;

/* tsvc_host.find_match: what became of a game's match. */
enum { TSVC_MATCH_LIVE, TSVC_MATCH_DONE, TSVC_MATCH_GONE };

typedef struct tsvc_host {
    void *user;
    void (*log)(void *user, int level, const char *event, json_t *fields); /* fields stolen */
    uint64_t (*clock_ms)(void *user);                                      /* a monotonic clock */
    /* Run work(arg) on a thread pool, then done(arg, status) on the loop
     * (status != 0: it could not run). 0 or -1. */
    int (*queue_work)(void *user, void (*work)(void *arg), void (*done)(void *arg, int status),
                      void *arg);
    /* Call tsvc_timer after delay_ms (replacing any earlier request). */
    void (*arm)(void *user, uint64_t delay_ms);
    /* A reply to caller (as given to tsvc_request), now or later; stolen.
     * An error reply to caller. */
    void (*reply)(void *user, uint64_t caller, json_t *msg);
    void (*fail)(void *user, uint64_t caller, int code, const char *message, const json_t *id);
    /* Does tournament id have watchers? A message for them (stolen). */
    bool (*watched)(void *user, int64_t tour);
    void (*update)(void *user, int64_t tour, json_t *msg);
    /* Create the match of a game, not yet playing: 0 and its id in ref,
     * TOUR_HOST_WAIT (no room: later), or another negative code with err. */
    int (*new_match)(void *user, const tsvc_match *m, char *ref, size_t refcap, char *err,
                     size_t errcap);
    void (*drop_match)(void *user, const char *ref); /* never announced, never stored */
    void (*play_match)(void *user, const char *ref); /* its end: tsvc_game_over */
    /* After a restart: what became of game's match ref, tagged with tour and
     * game when held. waits: its end is to be reported; TSVC_MATCH_LIVE,
     * TSVC_MATCH_DONE with *out (out->result a new reference) or
     * TSVC_MATCH_GONE. Without waits (a game done already) only the tag. */
    int (*find_match)(void *user, const char *ref, int64_t tour, int64_t game, bool waits,
                      tsvc_outcome *out);
    /* Seats. Room for a table of these seats now (the server's programs, a
     * registered bot's capacity)? */
    bool (*room)(void *user, const char *const *specs, int seats);
    /* A registered bot (remote:NAME) at its capacity? Connected? */
    bool (*busy)(void *user, const char *spec);
    bool (*present)(void *user, const char *spec);
    /* Can remote:NAME play game g? 0, or a code with err. */
    int (*check_remote)(void *user, const eng_game *g, const char *name, char *err, size_t errcap);
    /* Each registered bot connected now that plays game g. */
    void (*enrol)(void *user, const eng_game *g, void (*each)(void *ctx, const char *name),
                  void *ctx);
    /* Several servers: the other servers' summaries q reads (id as text,
     * owner, summary), appended to out. */
    void (*others)(void *user, db_stmt *q, json_t *out);
} tsvc_host;

typedef struct tsvc_config {
    db_conn *db;            /* the server's database (loop thread only) */
    bool shared;            /* PostgreSQL shared by several servers: owners, summaries */
    const char *instance;   /* this server's name among them */
    int bot_threads;        /* search threads one in-process participant may ask for (threads=);
                               0: no limit */
    int standings_delay_ms; /* test hook: each standings job takes this much longer */
} tsvc_config;

/* The tables (created or extended), the store attached. 0 or a code with err. */
int tsvc_start(const tsvc_config *cfg, const tsvc_host *host, tour_service **out, char *err,
               size_t errcap);
/* Load and resume the stored tournaments (after the matches are restored):
 * every one, or on a shared database those this server owns. */
void tsvc_resume(tour_service *svc);
/* Close every tournament (shutdown): nothing starts any more. */
void tsvc_stop(tour_service *svc);
/* Free (after tsvc_stop, once the pool's jobs are back; NULL is fine). */
void tsvc_free(tour_service *svc);

/* A create_, start_, pause_, cancel_, list_tournaments or
 * get_tournament_plots message (the admin token checked by the host). */
void tsvc_request(tour_service *svc, const proto_msg *m, uint64_t caller);
/* The view of tournament id (the reply to watch_tournament; new), or NULL. */
json_t *tsvc_view(tour_service *svc, int64_t id, const json_t *msg_id);
bool tsvc_holds(tour_service *svc, int64_t id);
/* A game's match ended. */
void tsvc_game_over(tour_service *svc, int64_t tour, int64_t game, const tsvc_outcome *o);
/* A seat may have come free: start what waits. */
void tsvc_poke(tour_service *svc);
/* host.arm's timer fired. */
void tsvc_timer(tour_service *svc);
/* The tournaments held, counted by state: names[i] is state i's name; the
 * number of states (at most cap). */
int tsvc_by_state(const tour_service *svc, const char **names, int *counts, int cap);

/* A tournament another service runs (the classroom's remote bots): `game`
 * is called as each of its games ends (the participant in each seat, the
 * result, its record), `done` once it is over (not when cancelled). In
 * memory only: after a restart it resumes without them. */
typedef struct tsvc_hooks {
    void (*game)(void *ctx, int64_t user, int64_t tour_id, int64_t game, int seats,
                 const int *table, const tour_result *r, const char *record);
    void (*done)(void *ctx, int64_t user, int64_t tour_id, const tour *t);
    void *ctx;
    int64_t user;
} tsvc_hooks;
/* Create the tournament of a create_tournament message (as the admin) and
 * start it, with hooks h: 0 with its id, or a negative code with err. */
int tsvc_create_started(tour_service *svc, const proto_msg *m, const tsvc_hooks *h, int64_t *id,
                        char *err, size_t errcap);
/* Cancel tournament id (its hooks dropped first): pending games void,
 * running ones finish. Nothing when it is unknown or over. */
void tsvc_cancel(tour_service *svc, int64_t id);
/* Its state ("created", "running", "paused", "cancelled", "done") and *note
 * (why it paused itself, or ""), or NULL when none is held. */
const char *tsvc_state(tour_service *svc, int64_t id, const char **note);

/* Several servers on one database. The owner of tournament id into name:
 * 1, 0 when none (or this server holds it), -1 on an error. */
int tsvc_owner(tour_service *svc, int64_t id, char *name, size_t cap);
/* Within the caller's transaction: dead server `dead`'s unfinished
 * tournaments become this server's. 0 or -1. */
int tsvc_claim(tour_service *svc, const char *dead);
/* Load and resume the tournaments this server owns and does not hold. */
void tsvc_take_over(tour_service *svc);
/* Store the summaries that changed, for the other servers' lists. */
void tsvc_write_summaries(tour_service *svc);

#endif
