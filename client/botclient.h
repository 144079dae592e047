/*
 * botclient.h — the network bot client: plays for a player (players/
 * player.h: one of our bots, or an external program in the sandbox) on a
 * tessera server (docs/protocol.md), as a separate process: `tessera bot
 * --bot SPEC` and its friendly form for programs, `tessera bridge -- CMD
 * ARGS...` (docs/botclient.md, docs/stdio.md).
 *
 * Two ways to get seats:
 *   - one seat of one match (`--match --seat --token`, or `--resume-token`):
 *     the client plays it to the end and exits;
 *   - registered under a name (`--register NAME --secret S`): the server
 *     seats the client in games of its own choosing (tournaments), up to
 *     `capacity` at once, each with a player of its own; the client plays
 *     until stopped (SIGINT/SIGTERM: no new games, the live ones finish;
 *     again: at once) or until `max_games` games have ended.
 *
 * The client keeps its own copy of each game: it builds the state from
 * the rules and the history it receives when it joins or resumes, applies
 * every `update.record` as it arrives, and on `your_turn` brings the state
 * to the decision point and checks it against the server's public state
 * before the player is asked. Each player lives on a thread of its own
 * (worker.h), so the connection keeps answering pings while it thinks; a
 * dropped connection is resumed (or the name registered again) with
 * exponential backoff.
 *
 * botclient_request and botclient_watch are one-shot conversations for the
 * CLI (`tessera create`, `matches`, `export`, `doctor --url`).
 *
 * Only this module and server/ include uv.h and libwebsockets.h; this header
 * includes neither.
 */
#ifndef TESSERA_CLIENT_BOTCLIENT_H
#define TESSERA_CLIENT_BOTCLIENT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "players/sandbox.h"

/* Exit statuses of botclient_run (the CLI returns them as they are). */
enum {
    BOTCLIENT_OVER = 0,   /* the match ended (game_over seen): result printed; registered:
                           * max_games ended, or stopped by a signal after its games */
    BOTCLIENT_FAIL = 1,   /* cannot (re)connect, the server refused the seat or the
                           * registration, or another connection took it over */
    BOTCLIENT_BADARG = 2, /* bad configuration (URL, bot spec not valid for the game) */
};

/* Defaults. */
#define BOTCLIENT_MARGIN_MS      200   /* kept back from time_left_ms for the network */
#define BOTCLIENT_GIVE_UP_MS     60000 /* stop reconnecting after this long without a seat */
#define BOTCLIENT_GIVE_UP_REG_MS 86400000 /* the same, registered: a day (a server may be
                                           * down for maintenance; the bot waits) */
#define BOTCLIENT_MAX_CAPACITY   16    /* games at once when registered (the protocol's cap) */
#define BOTCLIENT_MAX_GAMES      16    /* game names in a registration */
#define BOTCLIENT_RETRIES        3     /* a program's unreadable or illegal answers asked
                                        * again in one turn, as the server's reject policy */
#define BOTCLIENT_BACKOFF_MIN_MS 100   /* first reconnect delay; doubles each attempt */
/* A seat told that its match is played on another server (owner_url: its
 * server of a cluster reached through another) reconnects there and
 * resumes, at most this many times a run (a takeover may move it again; a
 * proxy that does not route by the hint would otherwise bounce it for ever). */
#define BOTCLIENT_MAX_FOLLOWS 3
#define BOTCLIENT_BACKOFF_MAX_MS 5000

typedef struct botclient_config {
    const char *url;          /* ws://HOST:PORT[/PATH] */
    const char *match;        /* match id (NULL when only resume_token is given) */
    int seat;                 /* seat number (ignored without match) */
    const char *token;        /* seat token for `join` (may be NULL with resume_token) */
    const char *resume_token; /* resume instead of joining (NULL: join first) */
    const char *bot_spec;     /* a player spec: "mcts:sims=400", "cmd:python3 bot.py",
                               * "cmd-stateless:./bot" (players/player.h) */
    const char *register_name; /* register under this name instead of joining a seat */
    const char *secret;        /* the registration's secret (8..64 characters) */
    int capacity;              /* registered: games at once (1..BOTCLIENT_MAX_CAPACITY) */
    const char *games[BOTCLIENT_MAX_GAMES]; /* registered: games accepted (none: all) */
    int ngames;
    int max_games;             /* registered: exit after this many games ended (0: never) */
    sandbox_limits limits;     /* programs: the sandbox's limits (zeros: defaults) */
    const char *log_name;      /* prefix of log lines (NULL: "tessera bot") */
    uint64_t seed;            /* seed of the bot (unless the spec has seed=) and of fallbacks */
    int64_t margin_ms;        /* subtracted from time_left_ms: the bot's budget */
    int64_t give_up_ms;       /* total reconnect time before giving up */
    const char *token_file;   /* write every resume token received here (NULL: none) */
    const char *name;         /* client name in hello (NULL: "tessera-bot") */
    bool quiet;               /* log errors only */
    FILE *out;                /* the result line (NULL: stdout) */
} botclient_config;

/* Fill cfg with the defaults (margin, give-up time, seed from the clock,
 * capacity 1). */
void botclient_config_default(botclient_config *cfg);

/* Play the seat until the match ends or the client gives up (or, when
 * registering, until max_games games ended or a signal). Logs go to stderr
 * (one line per own turn unless quiet, and what a program wrote on its
 * stderr); one result line per game goes to cfg->out. Returns a
 * BOTCLIENT_* status. */
int botclient_run(const botclient_config *cfg);

/* Control mode, for scripts and tests (tests/cli/wsctl.c): connect to url,
 * say hello, send msgs[0..n) (each one JSON object in text form) once the
 * server welcomed us, and print every message received after `welcome`,
 * one per line, to out. Stops at the first message whose type is `until`
 * (NULL: once n messages have been received after `welcome`). Returns 0
 * when it stopped that way; 1 on a connection failure or after timeout_ms;
 * 2 on a bad URL. */
int botclient_exchange(const char *url, const char *const *msgs, int n, const char *until,
                       int64_t timeout_ms, FILE *out);

/* One request and its reply, for the CLI's one-shot commands (`tessera
 * create`, `matches`, `export`): connect to url, say hello, send `msg` (a
 * JSON object, borrowed; an "id" is added to a copy) once welcomed, and wait
 * for the reply that echoes that id — other messages are skipped. Returns 0
 * with *reply a new reference to it (an `error` reply included, for the
 * caller to read; also an error the server sends instead of `welcome`), or
 * 1 with a reason in err when the server cannot be reached, closes the
 * connection or does not answer within timeout_ms, or 2 on a bad URL. */
int botclient_request(const char *url, const json_t *msg, int64_t timeout_ms, json_t **reply,
                      char *err, size_t errcap);

/* Create a match and watch it to its end, on one connection (so that a
 * match that ends at once is not missed): send `create` (a create_match,
 * borrowed) as botclient_request does; when the reply is match_created,
 * spectate that match and collect every message that follows — the
 * `spectating`, each `update` — until `game_over` (or a `spectating` that
 * already holds the result). Returns 0 with *reply (the reply: an error
 * reply included, then *seen is empty) and *seen (a JSON array), both new
 * references; 1 with a reason when the connection fails or timeout_ms
 * pass; 2 on a bad URL. */
int botclient_watch(const char *url, const json_t *create, int64_t timeout_ms, json_t **reply,
                    json_t **seen, char *err, size_t errcap);

/* A longer conversation, for the CLI's commands that follow something on a
 * server (`tessera tournament --url`): connect to url, say hello, send
 * `first` (borrowed; NULL: nothing) once welcomed, then hand every message
 * that arrives to fn (borrowed, on this thread) — and NULL after tick_ms
 * without one (0: never) —, which may send more with botclient_conv_send
 * and returns 0 to go on, or S + 1 to end the conversation with status S
 * (S >= 0). An `error` instead of welcome goes to fn too. Returns fn's
 * status; -1 with a reason in err when the connection fails or closes
 * first (or no welcome within 15 s); -2 on a bad URL. */
typedef struct botclient_conv botclient_conv;
typedef int (*botclient_conv_fn)(botclient_conv *cv, const json_t *msg, void *user);
int botclient_converse(const char *url, const json_t *first, botclient_conv_fn fn, void *user,
                       int64_t tick_ms, char *err, size_t errcap);
/* Send one message (borrowed) on the conversation. 0, or -1 (out of memory). */
int botclient_conv_send(botclient_conv *cv, const json_t *msg);

#endif
