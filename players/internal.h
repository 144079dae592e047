/*
 * internal.h — private to players/: the player object and the vtable each
 * kind (bot_player.c, program.c) fills in. The layers of the folder, top
 * down: kinds.c (which kinds there are: player_create) -> bot_player.c,
 * program.c (the kinds) -> player.c (the dispatch, the shared part) ->
 * verdict.c (verdicts, results) -> sandbox.c (programs' processes).
 */
#ifndef TESSERA_PLAYERS_INTERNAL_H
#define TESSERA_PLAYERS_INTERNAL_H

#include "players/player.h"
#include "protocol/info.h"

typedef struct player_ops {
    void (*destroy)(player *p);
    int (*new_game)(player *p, const void *st, int seat, const char *match);
    int (*resume)(player *p, const void *initial, const eng_move *moves, int n, int seat,
                  const char *match);
    void (*observe)(player *p, const void *st, eng_move m, const char *reason);
    player_verdict (*turn)(player *p, const void *st, double deadline_ms, const atomic_bool *stop,
                           player_result *out);
    void (*game_over)(player *p, const void *st, const char *reason, int faulty, const char *detail,
                      player_result *out);
    void (*info)(const player *p, player_info *out);
    json_t *(*transcript)(const player *p, bool *truncated); /* optional */
} player_ops;

struct player {
    const player_ops *ops;
    player_kind kind;
    const eng_game *g;
    char spec[PLAYER_SPEC_MAX];
    player_config cfg; /* cfg.time_control and cfg.extra_fields are our own references */
    int seat;          /* of the current game (-1 before the first) */
    void *impl;        /* the kind's own state */
    /* thinking lines (player_set_thinking): the sink, and the turn's state
     * while player_turn runs (turn_st borrowed; held: the latest info held
     * back by the pace, owned) */
    player_thinking_fn think_fn;
    void *think_user;
    const game_codec *codec;
    const void *turn_st;
    player_result *turn_out;
    info_pace pace;
    json_t *held;
    bool line_with_move; /* player_set_line_with_move: the held line goes in the result */
};

/* The shared part of a player (player.c): spec and config copied, no kind
 * yet; NULL with a reason. player__free undoes it (the kind's part must be
 * gone). */
player *player__alloc(const char *spec, const eng_game *g, const player_config *cfg, char *err,
                      size_t errcap);
void player__free(player *p);

/* Make the kind's part (p->impl, p->ops) from the part of the spec after
 * the kind's prefix (kinds.c calls them). 0 or a negative code with a
 * reason in err. */
int player__bot_init(player *p, const char *spec, char *err, size_t errcap);
int player__program_init(player *p, const char *cmdline, bool stateless, char *err, size_t errcap);

/* Printf into out->detail; returns the verdict, set in out too. */
player_verdict player__fail(player_result *out, player_verdict v, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Append a note ("; " between notes), cut to fit. */
void player__note(player_result *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* An info (borrowed, the whole message) the player gave during its turn,
 * `bytes` long (0: measure), about turn `turn` (0: not checked): read
 * against the turn's state, paced, passed to the sink or held back;
 * a bad one dropped and counted. Nothing without a sink or outside a turn. */
void player__info(player *p, const json_t *msg, size_t bytes, int64_t turn);
/* The line a move carries (a program's move line's "info", borrowed; the
 * body, docs/stdio.md): checked as player__info does (info_body_check
 * first), then held as the turn's last word, passed with the move
 * (player_turn) whatever the pace; a bad one dropped and counted. */
void player__last_info(player *p, const json_t *body, int64_t turn);

#endif
