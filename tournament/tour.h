/*
 * tour.h — the tournament engine: a spec, its schedule of game groups, the
 * results as they come in, and when it is over. Shared by the CLI runner
 * (worker threads playing games) and the server's tournament service (a
 * libuv loop starting ordinary server matches), both through the driver
 * (driver.h): neither plays games through this module, both ask it what to
 * play next and tell it what happened.
 *
 *     tour *t;  tour_create(&spec, &t, err, sizeof err);
 *     tour_game g;
 *     while (!tour_is_done(t)) {
 *         if (tour_next_game(t, busy, &g) == 1) {   // a game that can start now
 *             tour_game_started(t, g.id, "match-17");
 *             ... play it (on a thread, or as a server match) ...
 *             tour_game_finished(t, g.id, &result);
 *         } else { wait for a running game to finish }
 *     }
 *
 * Groups. A tournament is a list of game *groups*: one table of k
 * participants (k = the game's seat count) playing k games, participant
 * b of the table sitting in seat (b + r) mod k in game r, every game of the
 * group drawing its chance outcomes from the same seed (for k = 2: a game
 * pair with the seats swapped and the same tiles). Seat advantage and luck
 * cancel within a group, so every pairing plays every seat order equally
 * often by construction. Game ids are dense: game id = group * k + r.
 *
 * Formats (docs/tournaments.md): round-robin (every pairing, or every
 * k-subset, `cycles` times), gauntlet (participant 0 against every other),
 * Swiss (`rounds` rounds paired by score), knockout (a seeded bracket, ties
 * of `best_of` groups). Round-robin and gauntlet are scheduled in full at
 * creation; a Swiss or knockout round is scheduled when the previous one is
 * complete, so the schedule depends only on results, never on timing.
 *
 * Determinism: everything random (chance seeds, bot seeds, Swiss tie
 * shuffles, balanced designs) derives from spec.seed. Decisions that end
 * parts of the schedule early (a knockout tie, the SPRT) read results in
 * schedule order, so the same results give the same tournament whatever
 * order games finished in.
 *
 * Threads: a tournament is not thread-safe. The CLI runner holds one mutex
 * around every call; the server calls from its loop thread.
 *
 * Persistence (store.h): attached to a store, every call that changes the
 * tournament writes the change in one SQLite transaction before it returns.
 * If a write fails, the call returns ENG_ESTORAGE and the tournament refuses
 * every further change (the database is the truth: reload it).
 */
#ifndef TESSERA_TOURNAMENT_TOUR_H
#define TESSERA_TOURNAMENT_TOUR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/eng.h"
#include "tournament/limits.h"
#include "tournament/sprt.h"

typedef struct tour tour;

/* ---- the spec ---------------------------------------------------------------- */

typedef enum tour_format {
    TOUR_ROUND_ROBIN, /* "round-robin" */
    TOUR_GAUNTLET,    /* "gauntlet": participant 0 against the rest */
    TOUR_SWISS,       /* "swiss" */
    TOUR_KNOCKOUT,    /* "knockout" */
} tour_format;

/* "round-robin", "gauntlet", "swiss", "knockout". */
const char *tour_format_name(tour_format f);
/* Parse a format name (also "rr"); 0, or ENG_EINVAL with the known names in err. */
int tour_format_parse(const char *s, tour_format *out, char *err, size_t errcap);

/* Who sits in a seat. The spec string is never interpreted here: the driver
 * decides what "mcts:sims=400", "cmd:python3 bot.py" or "remote:alice" is. */
typedef struct tour_participant {
    const char *name; /* unique, 1..TOUR_NAME_MAX printable bytes (borrowed) */
    const char *spec; /* 1..TOUR_SPEC_MAX bytes, no control characters (borrowed) */
} tour_participant;

typedef struct tour_spec {
    tour_format format;
    const eng_game *game;                 /* the game */
    eng_rules rules;                      /* its rules; rules.players = seats per table (k) */
    const tour_participant *participants; /* [nparticipants], in seeding order (borrowed) */
    int nparticipants;                    /* 2..TOUR_MAX_PARTICIPANTS, at least k */
    int cycles;             /* round-robin, gauntlet: how many times every table plays (>= 1) */
    int rounds;             /* swiss: rounds (0 = ceil(log2(participants))) */
    int best_of;            /* knockout: groups per tie (0 = games_per_pair / k) */
    int64_t games_per_pair; /* games of a table per cycle or round, rounded up to a multiple
                               of k (like match_round_games); knockout: see best_of */
    uint64_t seed;          /* everything random derives from it */
    tour_sprt_params sprt;  /* optional: head-to-head SPRT (2 participants, k = 2) */
    const char *anchor;     /* name of the participant rated 0, or NULL: ratings average 0 */
    const char *label;      /* optional name of the tournament, for reports (borrowed) */
} tour_spec;

/* Defaults: round-robin, 1 cycle, 2 games per pair, seed 1, SPRT off
 * (normalised model, alpha = beta = 0.05 if turned on), no anchor. The
 * caller sets game, rules, participants. */
void tour_spec_init(tour_spec *spec);

/* Check a spec without scheduling anything. Returns 0 or a negative code
 * with a reason in err naming what is wrong: ENG_EINVAL (format, counts,
 * names, SPRT, limits), ENG_EBAD_PLAYERS (participants against seats),
 * ENG_EBAD_RULE (rules). Why knockout and SPRT refuse games of more than
 * two seats: a tie and a game pair are head-to-head between two
 * participants, which a k-seat table is not (docs/tournaments.md). */
int tour_spec_check(const tour_spec *spec, char *err, size_t errcap);

/* Games per table per cycle/round after rounding up to a multiple of the
 * seats; groups = that / seats. */
int64_t tour_spec_games_per_pair(const tour_spec *spec);

/* ---- the tournament ------------------------------------------------------------ */

/* Check the spec, copy it (the tournament owns its copy; the caller's
 * strings may go), and schedule the first games (round-robin and gauntlet:
 * all of them). Returns 0 and *out, or a negative code with a reason. */
int tour_create(const tour_spec *spec, tour **out, char *err, size_t errcap);
/* Free the tournament (NULL is fine). Does not detach or close a store. */
void tour_destroy(tour *t);

/* The tournament's copy of its spec (valid for its lifetime). */
const tour_spec *tour_get_spec(const tour *t);
/* Seats per table (k) and number of participants. */
int tour_seats(const tour *t);
int tour_participants(const tour *t);
/* Index of the participant named `name`, or -1. */
int tour_find_participant(const tour *t, const char *name);

typedef enum tour_game_status {
    TOUR_PENDING, /* scheduled, not started */
    TOUR_RUNNING, /* started, no result yet */
    TOUR_DONE,    /* finished: has a result */
    TOUR_VOID,    /* will never be played (a decided knockout tie, a decided SPRT, cancel) */
} tour_game_status;

/* "pending", "running", "done", "void". */
const char *tour_game_status_name(tour_game_status s);

/* One game of the schedule (a copy). */
typedef struct tour_game {
    int64_t id;                          /* 0-based, dense: group * seats + rotation */
    int64_t group;                       /* its group */
    int64_t pairing;                     /* the table it belongs to (one per table and round) */
    int round;                           /* 0-based; round-robin/gauntlet: see docs */
    int rotation;                        /* 0..seats-1 */
    int seats;                           /* k */
    int table[ENG_MAX_PLAYERS];          /* participant index in seat s */
    uint64_t chance_seed;                /* the group's chance seed: the same for its k games */
    uint64_t seat_seed[ENG_MAX_PLAYERS]; /* a seed for an in-process bot in seat s */
    tour_game_status status;
} tour_game;

/* The next game ready to start: the lowest-id pending game none of whose
 * participants is busy (busy: NULL, or one flag per participant — e.g. a
 * remote bot already at its limit of concurrent games). It is a peek: it
 * returns the same game until tour_game_started() is called for it.
 * Returns 1 and fills *out; 0 when nothing can start now (everything is
 * running, the next Swiss or knockout round waits for results, the
 * tournament is paused, over or cancelled — tour_is_done() tells which);
 * a negative code after a storage failure. */
int tour_next_game(tour *t, const bool *busy, tour_game *out);

/* The game `id` (any status) into *out; 0 or ENG_EINVAL for an unknown id. */
int tour_get_game(const tour *t, int64_t id, tour_game *out);
/* Number of games scheduled so far (every status). */
int64_t tour_game_count(const tour *t);

/* Mark a pending game running. ref (may be NULL, at most TOUR_REF_MAX bytes)
 * is the caller's name for it — a server match id, a record path — kept and
 * stored so a resumed driver can find the game again. Returns 0, or
 * ENG_EINVAL (unknown id; not pending; ref too long), ENG_ESTORAGE. */
int tour_game_started(tour *t, int64_t id, const char *ref);
/* The ref given at start, or NULL (valid until the game changes again). */
const char *tour_game_ref(const tour *t, int64_t id);
/* Put a running game back to pending (its server match was lost, its worker
 * died): it will be played again from the start. 0, ENG_EINVAL, ENG_ESTORAGE. */
int tour_game_requeue(tour *t, int64_t id);

/* How a game ended. */
typedef enum tour_end {
    TOUR_END_NORMAL,     /* played to the end */
    TOUR_END_RESIGN,     /* a seat resigned */
    TOUR_END_TIMEOUT,    /* a seat ran out of time */
    TOUR_END_FORFEIT,    /* a seat forfeited (a match policy decided) */
    TOUR_END_ILLEGAL,    /* a seat sent an illegal move */
    TOUR_END_CRASH,      /* a seat's program crashed */
    TOUR_END_DISCONNECT, /* a seat's connection was lost */
    TOUR_END_COUNT_
} tour_end;

/* "normal", "resign", "timeout", "forfeit", "illegal", "crash", "disconnect";
 * parse returns 0 or ENG_EINVAL. */
const char *tour_end_name(tour_end e);
int tour_end_parse(const char *s, tour_end *out);

/* The result of one game, by seat. */
typedef struct tour_result {
    double score[ENG_MAX_PLAYERS];   /* final game points per seat (finite) */
    int rank[ENG_MAX_PLAYERS];       /* final place per seat, 1 = best, equal for a tie
                                        (1,1,3: two tied first); 0 everywhere = rank by score */
    tour_end end;                    /* how it ended */
    int culprit;                     /* the seat that caused a non-normal end, or -1 */
    double time_ms[ENG_MAX_PLAYERS]; /* time each seat used (its thinking time), ms, >= 0 */
    int moves[ENG_MAX_PLAYERS];      /* decisions each seat made (0 if unknown) */
    bool time_loss[ENG_MAX_PLAYERS]; /* the seat lost this game on time */
    const char *verdict;             /* optional text, <= TOUR_VERDICT_MAX bytes (borrowed) */
    const char *record;              /* optional: the game's record, JSON text (borrowed; at
                                        most TOUR_RECORD_MAX bytes). With a store attached it is
                                        written with the result, in the same transaction, and
                                        read back with tour_store_record(); never kept in
                                        memory (tour_get_result gives NULL) */
} tour_result;

/* A zeroed result with culprit -1. */
void tour_result_init(tour_result *r);

/* Record the result of a running (or pending) game. Checks it (finite
 * scores, ranks in 1..k with 1 present, or all 0 to rank by score, a valid
 * end and culprit, times >= 0, verdict length), stores it, and then moves
 * the tournament on: a knockout tie or the SPRT that is now decided voids
 * its pending games; a completed Swiss or knockout round schedules the
 * next. Returns 0, or ENG_EINVAL (unknown id; a game already done — nothing
 * is counted twice —; a void game; a bad result) with a reason in err,
 * ENG_ESTORAGE, ENG_ENOMEM. */
int tour_game_finished(tour *t, int64_t id, const tour_result *r, char *err, size_t errcap);
/* The result of a done game into *out (verdict borrowed from the
 * tournament); 0 or ENG_EINVAL when the game is not done. */
int tour_get_result(const tour *t, int64_t id, tour_result *out);

/* Over: nothing pending or running and nothing left to schedule (all rounds
 * played, the bracket has a winner, the SPRT decided, or cancelled). */
bool tour_is_done(const tour *t);

/* Pause (tour_next_game returns 0; running games may finish) or resume. */
int tour_set_paused(tour *t, bool paused);
bool tour_is_paused(const tour *t);
/* Cancel: every pending game becomes void; running ones may still finish
 * and are recorded. Irreversible. */
int tour_cancel(tour *t);
bool tour_is_cancelled(const tour *t);

/* Counts for progress bars and ETAs. `expected` is the number of games the
 * tournament will play if nothing ends early: scheduled games that are not
 * void plus the games of rounds not yet scheduled (Swiss: exact; knockout:
 * the regular groups of the remaining ties; SPRT: the maximum). */
typedef struct tour_counts {
    int64_t pending, running, done, voided;
    int64_t scheduled; /* games in the schedule (every status) */
    int64_t expected;  /* see above; >= done + running + pending */
    int round;  /* rounds scheduled so far (Swiss/knockout), else the rounds of the schedule */
    int rounds; /* rounds the format will have in all (knockout: log2 of the bracket) */
} tour_counts;
void tour_get_counts(const tour *t, tour_counts *out);

/* ---- format state, for standings and reports ------------------------------------ */

/* The SPRT now: state, LLR, bounds, and the pairs it was decided on (frozen
 * at the decision; tests read complete groups in schedule order). Returns
 * false when the spec has no SPRT. */
typedef struct tour_sprt_status {
    tour_sprt_state state;
    double llr, lower, upper;
    tour_penta penta;   /* pairs the LLR is computed on */
    int64_t decided_at; /* groups read when it decided, or -1 */
} tour_sprt_status;
bool tour_get_sprt(const tour *t, tour_sprt_status *out);

/* Knockout: the round a participant reached (0-based; a bracket of 2^R
 * slots has rounds 0..R-1, reaching R means winning the final), and
 * whether it is still in. Returns false for other formats. */
bool tour_knockout_reached(const tour *t, int participant, int *round, bool *alive);
/* Knockout: the tie of pairing `p`: its two participants (seeding order),
 * and its state: -1 undecided, else the winner's index; *how says why
 * ("points", "point difference", "extra groups", "seeding", "lead"). */
int tour_knockout_tie(const tour *t, int64_t pairing, int *a, int *b, int *winner,
                      const char **how);

/* Swiss: round points (a won round 1, drawn 1/2; a bye 1), Buchholz (sum of
 * the round points of the opponents met) and byes of a participant, over
 * the complete rounds. Returns false for other formats. */
bool tour_swiss_score(const tour *t, int participant, double *points, double *buchholz, int *byes);

/* ---- spec as JSON (jansson) ------------------------------------------------------ */

struct json_t;
/* The spec as a JSON object (new reference), in one canonical form: the
 * store compares tournaments by it. NULL when out of memory. */
struct json_t *tour_spec_to_json(const tour_spec *spec);
/* A spec read from JSON (as tour_spec_to_json writes it), shape and values
 * checked (tour_spec_check). Returns a heap spec owning its strings, freed
 * with tour_spec_free(), or NULL with a reason in err. */
tour_spec *tour_spec_from_json(const struct json_t *obj, char *err, size_t errcap);
void tour_spec_free(tour_spec *spec);

#endif
