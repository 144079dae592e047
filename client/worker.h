/*
 * worker.h — private to client/: a thread that owns one player
 * (players/player.h) for one seat of one game, so that the loop thread
 * never waits for a bot or a program.
 *
 * Why a thread of its own rather than the libuv pool: a program's process
 * dies with the thread that started it (PR_SET_PDEATHSIG), the players
 * interface wants one thread at a time per player, and a registered bridge
 * holds up to 16 games whose turns may all run at once. The thread lives
 * exactly as long as the player: it is started with it and ends after
 * destroying it.
 *
 * The loop thread queues calls (new game, resume, observe, turn, game
 * over); the worker runs them in order, each on its own copy of the state.
 * A turn's result (and the stderr a program wrote up to the end of a game)
 * comes back through cl_worker_take, and `notify` is called from the
 * worker thread whenever there is something to take (the client makes it a
 * uv_async_send). Everything here but `notify` runs on the loop thread.
 */
#ifndef TESSERA_CLIENT_WORKER_H
#define TESSERA_CLIENT_WORKER_H

#include <stdbool.h>

#include "players/player.h"

typedef struct cl_worker cl_worker;

typedef enum cl_done_kind {
    CL_DONE_TURN,      /* a turn: res holds the verdict, the moves, the times */
    CL_DONE_GAME_OVER, /* the end of a game: res holds the stderr since the last turn */
    CL_DONE_ERROR,     /* new game / resume refused: res.detail says why */
    CL_DONE_INFO,      /* a thinking line of the turn `tag`, checked (info, owned), before its
                        * turn's result */
} cl_done_kind;

/* Something the worker finished (owned by the caller once taken). */
typedef struct cl_done {
    cl_done_kind kind;
    int tag;           /* the turn number given to cl_worker_turn (0 otherwise) */
    json_t *info;      /* CL_DONE_INFO: the line's canonical body (protocol/info.h); CL_DONE_TURN:
                        * the turn's last line, for its move, or NULL; owned */
    player_result res; /* large: allocate, never on the stack of a loop callback */
    struct cl_done *next;
} cl_done;

/* Start a thread owning p, a player for game g (taken over: the worker
 * destroys it). notify(ud)
 * is called from the worker thread when a result is ready and when the
 * thread has finished. Returns NULL (and destroys p) when no thread can be
 * started. */
cl_worker *cl_worker_start(player *p, const eng_game *g, void (*notify)(void *ud), void *ud);

/* Queue the player calls of player.h; states and moves are copied. Each
 * returns 0, or -1 when out of memory (the call is lost: the player will
 * report a desync at its next turn). */
int cl_worker_new_game(cl_worker *w, const void *st, int seat, const char *match);
int cl_worker_resume(cl_worker *w, const void *initial, const eng_move *moves, int n, int seat,
                     const char *match);
int cl_worker_observe(cl_worker *w, const void *st, eng_move m, const char *reason);
/* The seat's turn from st, to be decided by deadline_ms (bot_now_ms clock);
 * tag (the turn number) comes back with the result. */
int cl_worker_turn(cl_worker *w, const void *st, double deadline_ms, int tag);
/* Stop turn `tag` if it is queued or running: it ends at once (a bot with
 * its best move so far, a program as a time_limit "stopped"). */
void cl_worker_stop_turn(cl_worker *w, int tag);
int cl_worker_game_over(cl_worker *w, const void *st, const char *reason, int faulty,
                        const char *detail);

/* The next finished item, or NULL. The caller frees it with free(). */
cl_done *cl_worker_take(cl_worker *w);

/* Stop: pending turns are stopped, the queue runs out, the player is
 * destroyed (a program gets EOF and its grace to exit), then the thread
 * ends and calls notify. Call once; then poll cl_worker_finished. */
void cl_worker_close(cl_worker *w);

/* Has the thread ended? Then cl_worker_free joins it (at once) and frees
 * everything, results not taken included. */
bool cl_worker_finished(cl_worker *w);
void cl_worker_free(cl_worker *w);

/* The player's kind and sandbox information, as of its last call (copied
 * under the worker's lock). */
player_kind cl_worker_kind(const cl_worker *w);
void cl_worker_info(cl_worker *w, player_info *out);

#endif
