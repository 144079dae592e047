/*
 * programs.h — external programs (cmd:) in seats (programs.c): one worker
 * thread per seat for the game's life, answers back to the match on the loop.
 */
#ifndef TESSERA_SERVER_PROGRAMS_H
#define TESSERA_SERVER_PROGRAMS_H

#include "internal.h"

struct player_result;
/* The answer of a program seat's worker to turn `seq`, handed to the match
 * on the loop thread (the verdict and, when it is ok, the turn). */
typedef void (*prog_done_fn)(match *m, int seat, int seq, const struct player_result *r);
/* Start the worker thread of program seat `seat` of m, for a game starting
 * from m's initial state, or (n > 0) resumed after moves[0..n) from
 * `initial`; its answers go to on_done. Returns 0, ENG_ETOO_MANY
 * (SRV_MAX_PROGRAMS running) or ENG_ENOMEM / ENG_EINTERNAL with a reason. */
int prog_start(match *m, int seat, const void *initial, const eng_move *moves, int n,
               prog_done_fn on_done, char *err, size_t errcap);
/* Tell the program a move is about to be applied to st. */
void prog_observe(prog *p, const void *st, eng_move mv, const char *reason);
/* Ask for the seat's turn from st by deadline (bot_now_ms clock); the
 * answer comes to on_done with this seq. */
int prog_turn(prog *p, const void *st, int seq, double deadline_ms);
/* Stop turn `seq` now if it is still running (its answer: time_limit). */
void prog_stop(prog *p, int seq);
/* Keep a verdict of the turn being played in the program's log (and store
 * it): the worker's own, or the match's when the worker did not answer in
 * time. */
void prog_verdict(prog *p, const char *verdict, const char *detail);
/* The game ended: the program is told (game_over) and ended; its log is
 * stored. The seat lets go of p (it frees itself). */
void prog_finish(prog *p, const void *st, const char *reason, int faulty, const char *detail);
/* The match is going away unfinished (shutdown): end the program without
 * game_over (the match resumes at the next start). */
void prog_detach(prog *p);
/* A seat's program log so far: {"seat","spec","stderr","stderr_bytes",
 * "starts","verdicts"} (new reference). */
json_t *prog_log_json(const prog *p);
/* Programs running now (workers alive). */
int progs_running(const srv *s);
int progs_init(srv *s);
/* Stop accepting programs; the loop may end once every worker is gone. */
void progs_shutdown(srv *s);

#endif
