/*
 * botclient.h — the network bot client: plays one seat of a match on a
 * tessera server (docs/protocol.md) with any of our bots, as a separate
 * process (`tessera bot`, docs/botclient.md).
 *
 * The client keeps its own copy of the game: it builds the state from the
 * rules and the history it receives when it joins or resumes, applies every
 * `update.record` as it arrives, and on `your_turn` brings the state to the
 * decision point and checks it against the server's public state before the
 * bot thinks. The bot searches on a libuv worker thread, so the connection
 * keeps answering pings; a dropped connection is resumed with the resume
 * token, with exponential backoff.
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

/* Exit statuses of botclient_run (the CLI returns them as they are). */
enum {
    BOTCLIENT_OVER = 0,   /* the match ended (game_over seen): result printed */
    BOTCLIENT_FAIL = 1,   /* cannot (re)connect, or the server refused the seat */
    BOTCLIENT_BADARG = 2, /* bad configuration (URL, bot spec not valid for the game) */
};

/* Defaults. */
#define BOTCLIENT_MARGIN_MS      200   /* kept back from time_left_ms for the network */
#define BOTCLIENT_GIVE_UP_MS     60000 /* stop reconnecting after this long without a seat */
#define BOTCLIENT_BACKOFF_MIN_MS 100   /* first reconnect delay; doubles each attempt */
#define BOTCLIENT_BACKOFF_MAX_MS 5000

typedef struct botclient_config {
    const char *url;          /* ws://HOST:PORT[/PATH] */
    const char *match;        /* match id (NULL when only resume_token is given) */
    int seat;                 /* seat number (ignored without match) */
    const char *token;        /* seat token for `join` (may be NULL with resume_token) */
    const char *resume_token; /* resume instead of joining (NULL: join first) */
    const char *bot_spec;     /* e.g. "mcts:sims=400" */
    uint64_t seed;            /* seed of the bot (unless the spec has seed=) and of fallbacks */
    int64_t margin_ms;        /* subtracted from time_left_ms: the bot's budget */
    int64_t give_up_ms;       /* total reconnect time before giving up */
    const char *token_file;   /* write every resume token received here (NULL: none) */
    const char *name;         /* client name in hello (NULL: "tessera-bot") */
    bool quiet;               /* log errors only */
    FILE *out;                /* the result line (NULL: stdout) */
} botclient_config;

/* Fill cfg with the defaults (margin, give-up time, seed from the clock). */
void botclient_config_default(botclient_config *cfg);

/* Play the seat until the match ends or the client gives up. Logs go to
 * stderr (one line per own turn unless quiet); the result line goes to
 * cfg->out. Returns a BOTCLIENT_* status. */
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

#endif
