/*
 * session.h — private to `tessera bot` / `tessera bridge` (botclient.c,
 * sync.c): the client and its sessions (one seat of one match each), and
 * what the two files share — the log, a session's end, a resync. Nothing
 * outside client/ includes it; botclient.h is the public face.
 */
#ifndef TESSERA_CLIENT_SESSION_H
#define TESSERA_CLIENT_SESSION_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

#include "botclient.h"
#include "engine/eng.h"
#include "link.h"
#include "players/player.h"
#include "protocol/wire.h"
#include "worker.h"

#define CLIENT_NAME      "tessera-bot/0.1.0"
#define MAX_MOVE_RETRIES 3        /* random moves sent after the server refused ours, per turn */
#define REATTACH_MS      1000     /* after registering again: resume the seats not yet given back */
#define THINK_MS_MAX     86400000 /* the protocol's cap on a move's think_ms */

typedef struct botclient botclient;

/* One seat of one match. */
typedef struct session {
    botclient *bc;
    struct session *next;
    char match[64];   /* match id ("" until known) */
    int seat;         /* -1 until known */
    char resume[128]; /* resume token ("" until known) */
    bool tried_join;  /* fell back from a refused resume to join once */

    /* the game, once known */
    const eng_game *g;
    const game_codec *w;
    eng_rules rules;
    unsigned char *initial; /* the position the game started from */
    unsigned char *st;      /* after the last known turn */
    unsigned char *tmp;     /* scratch */
    unsigned char *dec;     /* the decision state of the turn asked */
    unsigned char *tdec;    /* the decision state of the turn being thought */
    eng_move *outcomes;     /* scratch: g->max_chance chance outcomes */
    double *probs;
    eng_move *moves; /* every engine move from initial to st */
    int nmoves, cap_moves;
    json_t *history; /* the records of the turns known so far */
    int turns;       /* number of turns known (applied, or counted when not synced) */
    bool synced;     /* st follows the match */
    json_t *time_control;

    /* the player */
    cl_worker *wk;   /* NULL until the game is known, and after it closed */
    bool closing;    /* the worker was asked to close */
    bool over;       /* game_over seen (or the seat lost for good) */
    bool reattached; /* registered again: the server gave this seat back */

    /* the decision */
    int asked_turn;        /* the turn the server waits for from us (0: none) */
    json_t *legal;         /* `legal` of the last your_turn */
    json_t *asked_state;   /* `state` of the last your_turn */
    double asked_deadline; /* the player's deadline for it (bot_now_ms clock) */
    int64_t think_budget;  /* ms the player was given for the turn it thinks on */
    int think_turn;        /* the turn the player is deciding (0: none) */
    json_t *think_state;   /* the server's state for it */
    int tries;             /* the player's answers refused in this turn */
    int cache_turn;        /* the last turn decided, its move and the server's state then: */
    json_t *cache_move;    /* sent again when the same turn is asked in the same state */
    json_t *cache_state;   /* (after a resume; a restarted server may have redrawn) */
    int64_t cache_think;   /* its think_ms (-1: none) */
    int pre_turn, pre_n;   /* moves of turn pre_turn the player already observed */
    eng_move pre[ENG_MAX_TURN_MOVES];
    int refusals; /* moves refused by the server this turn */
    json_t *line;  /* a thinking line of turn line_turn held for the move right behind it */
    int line_turn; /* (the same drain of the worker: then it rides the move, else alone) */
} session;

struct botclient {
    botclient_config cfg;
    const char *logname;
    uv_loop_t loop;
    cl_link *link;
    uv_timer_t retry;    /* reconnect backoff */
    uv_timer_t reattach; /* registered again: resume what did not come back */
    uv_async_t wake;     /* a worker has a result, or ended */
    uv_signal_t sigint, sigterm;
    bool handles; /* the timers, async and signals are initialised */
    eng_rng rng;  /* random fallbacks */
    session *sessions;
    bool registering; /* register mode */
    bool registered;  /* the registration stands on this connection */
    bool draining;    /* stop signal: no new games, finish the live ones */
    int games_ended;  /* games whose game_over was seen */
    bool no_think_ms; /* the server refused `think_ms` in moves: leave it out */
    bool no_info;     /* the server refused `info`: send no thinking lines */
    bool move_info;   /* the server's welcome lists move_info: a move may carry its line */

    /* the connection */
    int follows;      /* owner_url hints followed (docs/scaling.md): at most BOTCLIENT_MAX_FOLLOWS */
    int following;    /* 1: leaving for an owner_url (the old connection closing), 2: its
                       * connection not up yet; 0: neither */
    uint64_t lost_at; /* when the connection was lost (0: we hold it) */
    int64_t backoff_ms;
    bool done;
    bool closed; /* the handles are being closed */
    int status;
};

/* ---- say.c: what the client prints ---- */

/* Text from the server or a program made harmless for a terminal: control
 * characters become '?'. In place; returns s. */
char *cl__printable(char *s);

/* A line on stderr (error: always; otherwise unless quiet), control
 * characters made harmless. */
void cl__say(const botclient *bc, bool error, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The prefix naming a session in logs ("" for a single seat). */
const char *cl__who(const session *s);
/* o[key] as a string, "" when absent or not a string. */
const char *cl__str_of(const json_t *o, const char *key);

/* ---- sync.c: the session's copy of the game ---- */

/* Set up the game of the match (first join), or check it is the same one.
 * 0, or -1 after saying why (the caller ends the session, and frees what
 * was set up with its game). */
int cl__setup_game(session *s, const json_t *msg);
/* Apply one turn's record to the session's state (tell: the player observes
 * it). 0, or -1 with why in err. */
int cl__apply_record(session *s, const json_t *rec, bool tell, const char *reason, char *err,
                     size_t errcap);
/* Rebuild the state from a whole history (joined/resumed). */
void cl__rebuild(session *s, const json_t *history);
/* The decision state of a your_turn: the chance outcome whose public state
 * is target. The number of chance moves (0 or 1) into *chance, or -1 with
 * why. */
int cl__to_decision(session *s, const json_t *target, eng_move *chance, char *why, size_t whycap);

#endif
