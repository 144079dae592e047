/*
 * store.h — a tournament's state in a database (storage/db.h: a SQLite
 * file, or PostgreSQL), so that a tournament survives kill -9: the spec,
 * every scheduled game and every result, each change in one transaction
 * before the call that made it returns (tour.h).
 *
 * The tables are prefixed tour_ and created with CREATE TABLE IF NOT
 * EXISTS, so they can live in the server's own database next to its match
 * journal — hand tour_store_attach() the server's connection — or in a
 * database of their own (tour_store_open(): on SQLite in WAL mode with
 * synchronous=NORMAL, safe against a crash of the process, which is what
 * resume is for). A tournament's id is the database's own (an identity on
 * PostgreSQL), so several processes may share the tables.
 *
 * Loading rebuilds the tournament from the rows: finished games are never
 * played again, the Swiss and knockout rounds already scheduled are read
 * back as they were (later rounds are generated from the results, as in an
 * uninterrupted run), and games that were running when the process died
 * are either put back to pending (TOUR_RESUME_REPLAY: the CLI, whose games
 * died with it) or left running with their ref (TOUR_RESUME_KEEP: the
 * server, whose journaled matches resume and will report their results).
 *
 * A store is used by one thread at a time (the tournament's caller holds
 * the lock that serialises its calls).
 */
#ifndef TESSERA_TOURNAMENT_STORE_H
#define TESSERA_TOURNAMENT_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "storage/db.h"
#include "tournament/tour.h"

typedef struct tour_store tour_store;

/* Open (or create) the database `target` (db_open's: a SQLite file name,
 * "sqlite:FILE", or a PostgreSQL connection string) with the tour_ tables;
 * a SQLite file is put in WAL mode with a 5 s busy timeout. Returns 0 and
 * *out, or ENG_ESTORAGE with a reason (never a password). */
int tour_store_open(const char *target, tour_store **out, char *err, size_t errcap);
/* Use the caller's connection, on either engine (borrowed: it must outlive
 * the store; its pragmas are left alone). Creates the tour_ tables if
 * needed, under db_schema_lock (which it releases: a caller holding that
 * lock attaches before taking it or after releasing it). A change made
 * while the connection is in a transaction is a savepoint of it. */
int tour_store_attach(db_conn *db, tour_store **out, char *err, size_t errcap);
/* Close the store (the connection too if tour_store_open opened it).
 * Tournaments attached to it must be destroyed or detached first. */
void tour_store_close(tour_store *st);

/* Save a new tournament (its spec and everything scheduled so far) and
 * attach it: from now on each change is written as it happens. Returns 0
 * and its id, or ENG_ESTORAGE / ENG_EINVAL (already attached). */
int tour_store_create(tour_store *st, tour *t, int64_t *id, char *err, size_t errcap);

/* The newest stored tournament whose spec is the same as `spec` (same
 * canonical JSON: format, game, rules, participants and their specs,
 * counts, seed, SPRT, anchor, label). Returns 1 and *id, 0 when there is
 * none, or ENG_ESTORAGE. This is how "run the same command again" resumes. */
int tour_store_find(tour_store *st, const tour_spec *spec, int64_t *id, char *err, size_t errcap);

typedef enum tour_resume_mode {
    TOUR_RESUME_REPLAY, /* running games go back to pending and are played again */
    TOUR_RESUME_KEEP,   /* running games stay running; the caller resumes them by ref */
} tour_resume_mode;

/* Load tournament `id` and attach it. Checks every row (a damaged database
 * is an error, never a crash). Returns 0 and *out, or ENG_EINVAL (no such
 * tournament), ENG_ESTORAGE (unreadable or inconsistent rows), ENG_ENOMEM. */
int tour_store_load(tour_store *st, int64_t id, tour_resume_mode mode, tour **out, char *err,
                    size_t errcap);

/* The record stored with the result of game `game` of tournament
 * `tournament` (tour_result.record). Returns 1 and *out (malloc'd JSON
 * text, the caller frees it), 0 when the game has no stored record (not
 * finished, or finished without one), or ENG_ESTORAGE / ENG_ENOMEM. */
int tour_store_record(tour_store *st, int64_t tournament, int64_t game, char **out, char *err,
                      size_t errcap);

/* Stop writing t's changes (t stays usable in memory). */
void tour_store_detach(tour *t);
/* The id t is stored under, or -1. */
int64_t tour_store_id(const tour *t);

/* Stored tournaments, newest first. */
typedef struct tour_store_entry {
    int64_t id;
    char label[TOUR_LABEL_MAX + 1]; /* "" when none */
    char format[16];
    char status[16];          /* "running", "done", "cancelled" */
    int64_t created, updated; /* unix seconds */
} tour_store_entry;
/* Fill out[0..cap) and *n (how many were written); 0 or ENG_ESTORAGE. */
int tour_store_list(tour_store *st, tour_store_entry *out, int cap, int *n, char *err,
                    size_t errcap);

#endif
