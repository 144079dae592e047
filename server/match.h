/*
 * match.h — a match from creation to result (match.c): what the rest of the
 * server may ask of a match. The event sink through which a match tells
 * the people at its table what happened is sink.h's.
 *
 * The per-move path reads down: net.c -> handlers.c -> table.c -> match.c
 * -> {journal.c, agents.c, match_views.c}. A match never calls
 * a connection: it emits its events to the server's sink (srv.sink), and the
 * sink (table.c's) decides who hears them and in which form.
 */
#ifndef TESSERA_SERVER_MATCH_H
#define TESSERA_SERVER_MATCH_H

#include "internal.h"
#include "journal/journal.h"
#include "players/player.h"
#include "sink.h"

/* the event sink, srv.sink: sink.h */

/* ---- creation, restore, lookup ------------------------------------------------------ */

/* Create a match from a decoded create_match (validated here). On success
 * returns the match (already journaled and started), else NULL with an
 * error code and reason. */
match *match_create(srv *s, const proto_msg *msg, int *code, char *err, size_t errcap);
/* What a match may be created with besides a create_match. */
typedef struct match_opts {
    bool admin;    /* the creator gave the admin token (or is the server's
                      operator): cmd: and remote: seats and file-reading bot
                      options are allowed (forbidden otherwise) */
    bool has_seed; /* seed the chance draws with `seed` */
    uint64_t seed;
    bool has_seat_seeds; /* seed each in-process bot with seat_seed[seat] */
    uint64_t seat_seed[ENG_MAX_PLAYERS];
    /* out (may be NULL): the join tokens of the open seats, as text (the
     * match keeps their hashes only) — for the reply that hands them out */
    char (*join_tokens)[SRV_TOKEN_LEN + 1];
} match_opts;
/* match_create with options (opts may be NULL: none). */
match *match_create_ex(srv *s, const proto_msg *msg, const match_opts *opts, int *code, char *err,
                       size_t errcap);
/* Rebuild a stored match at start-up (journal.h): its moves replayed, its
 * history rebuilt, its bots and programs started again. */
match *match_restore(srv *s, const journal_stored *spec, char *err, size_t errcap);
/* match_find and match_restore, for the journal's reader (journal.h). */
journal_restorer match_journal_restorer(srv *s);
/* The kind a seat spec makes: SEAT_PROGRAM for cmd:/cmd-stateless:,
 * SEAT_REMOTE for remote:NAME, else SEAT_BOT. */
int match_spec_kind(const char *spec);
match *match_find(srv *s, const char *id);
/* match_find, or a finished match read back from the journal (one no longer
 * held, or another server's): held from now on, as the latest finished. */
match *match_find_stored(srv *s, const char *id);
/* Close the oldest finished match held (not keep) when more than the
 * server keeps are held. */
void match_trim_finished(srv *s, const match *keep);
/* The match as a game record (docs/records.md): its complete turns, each
 * with the time figures the server has of it (think_ms, wait_ms), and its
 * "chance" block — the commitment, with the seed and nonce once the match
 * is finished. New reference, or NULL with a reason in err. */
json_t *match_record_json(const match *m, char *err, size_t errcap);

/* ---- play ----------------------------------------------------------------------------- */

/* Start or continue play: draws, asks the seat to move, or finishes. */
void match_advance(match *m);
/* The journal stored (--durable: synced) what held output: the seats whose
 * your_turn it held start their clocks now (match.c, hold_clock). */
void match_clocks_released(srv *s);
/* A connection now plays `seat` (table.c has linked it): the seat is
 * joined, and the match goes live if that was its last open seat. Returns
 * whether this join started it. The caller then replies with the table
 * view and calls match_seat_continue. */
bool match_seat_taken(match *m, int seat);
/* After match_seat_taken and the reply: start play (started), or ask the
 * seat again if it is to move. */
void match_seat_continue(match *m, int seat, bool started);
/* The connection playing `seat` dropped (table.c has unlinked it): the
 * reconnect grace starts. */
void match_seat_dropped(match *m, int seat);
/* A move from the connection c playing seat (msg borrowed), received at
 * rx_ns (uv_hrtime()). Replies on c through the sink. Returns whether it
 * was played as the seat's turn. */
bool match_remote_move(match *m, int seat, conn *c, const proto_msg *msg, uint64_t rx_ns);
void match_resign(match *m, int seat);
/* A waiting match past [create] waiting_expiry_s ends as `expired`. */
void match_expire(match *m);
/* Stop every timer and search, let everyone at the table go (the sink's
 * closing); free once the timer and the search have returned. */
void match_close(match *m);

/* ---- for match_create.c: what making a match needs of match.c ------------------- */

/* Append a played move (ENG_ENOMEM when the list cannot grow). */
int match__push_move(match *m, eng_move mv);
/* Append a turn in record form to the history (borrowed; NULL: a turn the
 * codec could not write, kept as {} so that the turns keep their numbers). */
void match__history_add(match *m, const json_t *rec);
/* The match's seats as the journal keeps them, into rows (ENG_MAX_PLAYERS). */
journal_seats match__seats_row(const match *m, journal_seat *rows, bool status_changed);
/* End the match (journaled, then announced); faulty: the seat at fault or -1. */
void match__finish(match *m, const char *reason, int faulty, const char *detail);
/* A program seat's turn or end came back (prog_start's callback). */
void match__program_done(match *m, int seat_no, int seq, const player_result *r);
/* A match never linked (its creation failed): freed once its timer closes. */
void match__discard(match *m);

#endif
