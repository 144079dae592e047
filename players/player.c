/*
 * player.c — the players interface (player.h): the dispatch of every call
 * to the kind's vtable (internal.h), and the part of a player every kind
 * shares (player__alloc). Which kinds there are is kinds.c's business: this
 * file knows none of them.
 */
#define _GNU_SOURCE
#include "internal.h"

#include "bots/bot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

player *player__alloc(const char *spec, const eng_game *g, const player_config *cfg, char *err,
                      size_t errcap)
{
    if (!spec || !g) {
        eng_seterr(err, errcap, ENG_EINVAL, "no spec or no game");
        return NULL;
    }
    if (strlen(spec) >= PLAYER_SPEC_MAX) {
        eng_seterr(err, errcap, ENG_EINVAL, "the spec is longer than %d bytes",
                   PLAYER_SPEC_MAX - 1);
        return NULL;
    }
    player *p = calloc(1, sizeof *p);
    if (!p) {
        eng_seterr(err, errcap, ENG_ENOMEM, "out of memory");
        return NULL;
    }
    if (cfg)
        p->cfg = *cfg;
    else
        player_config_default(&p->cfg);
    sandbox_limits_normalize(&p->cfg.limits);
    if (p->cfg.time_control)
        p->cfg.time_control = json_deep_copy(p->cfg.time_control);
    if (p->cfg.extra_fields)
        p->cfg.extra_fields = json_deep_copy(p->cfg.extra_fields);
    p->g = g;
    p->seat = -1;
    snprintf(p->spec, sizeof p->spec, "%s", spec);
    return p;
}

void player__free(player *p)
{
    json_decref(p->held);
    json_decref((json_t *)p->cfg.time_control);
    json_decref((json_t *)p->cfg.extra_fields);
    free(p);
}

void player_destroy(player *p)
{
    if (!p)
        return;
    p->ops->destroy(p);
    player__free(p);
}

player_kind player_get_kind(const player *p)
{
    return p->kind;
}

const char *player_spec(const player *p)
{
    return p->spec;
}

int player_new_game(player *p, const void *st, int seat, const char *match)
{
    if (!st || seat < 0 || seat >= eng_num_players(st) || eng_num_players(st) > p->g->max_players)
        return ENG_EINVAL;
    p->seat = seat;
    return p->ops->new_game(p, st, seat, match);
}

int player_resume(player *p, const void *initial, const eng_move *moves, int n, int seat,
                  const char *match)
{
    if (!initial || seat < 0 || seat >= eng_num_players(initial) || n < 0 || (n && !moves))
        return ENG_EINVAL;
    p->seat = seat;
    return p->ops->resume(p, initial, moves, n, seat, match);
}

void player_observe(player *p, const void *st, eng_move m, const char *reason)
{
    p->ops->observe(p, st, m, reason);
}

player_verdict player_turn(player *p, const void *st, double deadline_ms, const atomic_bool *stop,
                           player_result *out)
{
    memset(out, 0, sizeof *out);
    if (p->seat < 0)
        return player__fail(out, PLAYER_INTERNAL, "player_turn before player_new_game");
    if (p->g->current_player(st) != p->seat)
        return player__fail(out, PLAYER_INTERNAL, "player_turn: seat %d is not to move", p->seat);
    if (!p->think_fn)
        return p->ops->turn(p, st, deadline_ms, stop, out);
    memset(&p->pace, 0, sizeof p->pace);
    p->turn_st = st;
    p->turn_out = out;
    player_verdict v = p->ops->turn(p, st, deadline_ms, stop, out);
    if (p->held && v == PLAYER_OK && info_pace_final(&p->pace)) {
        if (p->line_with_move) { /* the last word, with the move (the caller's) */
            out->line = p->held;
            p->held = NULL;
        } else {
            p->think_fn(p->think_user, p->seat, p->held); /* the last word, before the move */
        }
        out->info_passed++;
    }
    json_decref(p->held);
    p->held = NULL;
    p->turn_st = NULL;
    p->turn_out = NULL;
    return v;
}

void player_set_thinking(player *p, player_thinking_fn fn, void *user)
{
    p->think_fn = fn;
    p->think_user = user;
    p->codec = fn ? codec_find(p->g->name) : NULL;
}

/* msg (borrowed) checked as a line of the turn: canonical (new reference),
 * or NULL when there is no sink or it is dropped (counted). */
static json_t *checked(player *p, const json_t *msg, size_t bytes, int64_t turn)
{
    player_result *out = p->turn_out;
    if (!p->think_fn || !p->turn_st || !out)
        return NULL;
    char why[200] = "";
    json_t *info = NULL;
    if (!p->codec) {
        snprintf(why, sizeof why, "the game has no codec");
    } else if (info_read(p->g, p->codec, p->turn_st, msg, bytes, &info, why, sizeof why) == 0) {
        const json_t *t = json_object_get(info, "turn");
        if (t && turn > 0 && json_integer_value(t) != turn) {
            snprintf(why, sizeof why, "info: for turn %lld; this is turn %lld",
                     (long long)json_integer_value(t), (long long)turn);
            json_decref(info);
            info = NULL;
        }
    }
    if (!info && out->info_dropped++ == 0)
        player__note(out, "info dropped: %s", why);
    return info;
}

void player__info(player *p, const json_t *msg, size_t bytes, int64_t turn)
{
    json_t *info = checked(p, msg, bytes, turn);
    if (!info)
        return;
    if (info_pace_now(&p->pace, bot_now_ms())) {
        p->think_fn(p->think_user, p->seat, info);
        p->turn_out->info_passed++;
        json_decref(info);
    } else {
        json_decref(p->held);
        p->held = info;
    }
}

void player__last_info(player *p, const json_t *body, int64_t turn)
{
    char why[200];
    json_t *info = NULL;
    if (p->turn_out && info_body_check(body, why, sizeof why) != 0) {
        if (p->turn_out->info_dropped++ == 0)
            player__note(p->turn_out, "info dropped: %s", why);
    } else if ((info = checked(p, body, 0, turn)) != NULL) {
        json_decref(p->held); /* the last word: passed with the move (player_turn) */
        p->held = info;
        p->pace.held = 1;
    }
}

void player_set_line_with_move(player *p, bool on)
{
    p->line_with_move = on;
}

void player_game_over(player *p, const void *st, const char *reason, int faulty, const char *detail,
                      player_result *out)
{
    if (out)
        memset(out, 0, sizeof *out);
    p->ops->game_over(p, st, reason ? reason : "normal", faulty, detail, out);
}

void player_get_info(const player *p, player_info *out)
{
    memset(out, 0, sizeof *out);
    out->startup_ms = -1;
    if (p->ops->info)
        p->ops->info(p, out);
}

json_t *player_transcript(const player *p, bool *truncated)
{
    if (truncated)
        *truncated = false;
    return p->ops->transcript ? p->ops->transcript(p, truncated) : NULL;
}
