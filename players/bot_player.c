/*
 * bot_player.c — an in-process bot in a seat (bots/bot.h).
 *
 * A turn is the bot's whole turn (bot_choose_turn) on a private copy of the
 * state, by the deadline less a margin, with the caller's stop flag. The bot
 * observes its own moves with everyone's, through player_observe, as the
 * server's agents do. Its CPU time is the calling thread's.
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include "bots/bot.h"

/* A bot tells its search every 200 ms: two lines a second is what a viewer
 * reads, and the JSON of a line (~1 KB) costs far less than 1% of a turn. */
#define BOT_THINK_EVERY_MS 200

typedef struct bot_player {
    bot *b;
    unsigned char *work; /* the turn's private state */
    bot_turn turn;       /* the turn's decisions (its info is large for a stack) */
} bot_player;

static double thread_cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void bp_destroy(player *p)
{
    bot_player *bp = p->impl;
    bot_destroy(bp->b);
    free(bp->work);
    free(bp);
}

static int bp_new_game(player *p, const void *st, int seat, const char *match)
{
    (void)st;
    (void)seat;
    (void)match;
    bot_reset(((bot_player *)p->impl)->b);
    return 0;
}

static int bp_resume(player *p, const void *initial, const eng_move *moves, int n, int seat,
                     const char *match)
{
    (void)initial;
    (void)moves;
    (void)n;
    (void)seat;
    (void)match;
    bot_reset(((bot_player *)p->impl)->b); /* a tree is rebuilt at its next decision */
    return 0;
}

static void bp_observe(player *p, const void *st, eng_move m, const char *reason)
{
    (void)reason;
    bot_observe(((bot_player *)p->impl)->b, st, m);
}

/* Numbers for JSON: reals rounded to what a viewer reads (no 17 digits). */
static json_t *round_real(double v, double unit)
{
    return json_real(round(v / unit) * unit);
}

json_t *player_think_json(const eng_game *g, const struct bot_think *th)
{
    const game_codec *c = codec_find(g->name);
    json_t *o = json_object(), *cands = json_array(), *pv = json_array();
    unsigned char *s = malloc(g->state_size), *at = malloc(g->state_size);
    if (!c || !o || !cands || !pv || !s || !at) {
        json_decref(o);
        o = NULL;
        goto out;
    }
    const char *key = th->value_kind == BOT_VALUE_SCOREDIFF ? "score"
                      : th->value_kind == BOT_VALUE_WINLOSS ? "winprob"
                                                            : NULL;
    /* winloss means v in [-1, 1]: the probability of a win, a tie counting half */
#define VALUE(v) (th->value_kind == BOT_VALUE_WINLOSS ? round_real(((v) + 1) / 2, 1e-4) \
                                                       : round_real((v), 1e-2))
    if (key && th->has_value)
        json_object_set_new(o, key, VALUE(th->value));
    for (int i = 0; i < th->ncand; i++) {
        const bot_think_cand *cd = &th->cand[i];
        json_t *e = json_object();
        json_object_set_new(e, "move", c->format_move(th->st, cd->moves, cd->nmoves));
        json_object_set_new(e, "visits", json_integer(cd->visits));
        if (key)
            json_object_set_new(e, key, VALUE(cd->value));
        json_array_append_new(cands, e);
    }
#undef VALUE
    json_object_set(o, "candidates", cands);
    /* the line, decision by decision, grouped into the turns of the protocol */
    memcpy(s, th->st, g->state_size);
    for (int i = 0; i < th->npv;) {
        eng_move turn[ENG_MAX_TURN_MOVES];
        int n = 0, before;
        memcpy(at, s, g->state_size);
        do {
            before = g->current_player(s);
            turn[n++] = th->pv[i];
            g->apply(s, th->pv[i++]);
        } while (i < th->npv && n < ENG_MAX_TURN_MOVES && !eng_turn_ends(g, before, s));
        if (!eng_turn_ends(g, before, s))
            break; /* a turn the line leaves unfinished */
        json_array_append_new(pv, c->format_move(at, turn, n));
    }
    if (json_array_size(pv))
        json_object_set(o, "pv", pv);
    json_object_set_new(o, "iterations", json_integer(th->iterations));
    json_object_set_new(o, "nodes", json_integer(th->nodes));
    json_object_set_new(o, "depth", json_integer(th->npv));
    json_object_set_new(o, "elapsed_ms", json_integer((json_int_t)th->elapsed_ms));
out:
    json_decref(cands);
    json_decref(pv);
    free(s);
    free(at);
    return o;
}

/* The bot's search, passed on as a program's info would be (player__info
 * checks it again: one path for all). A decision inside the turn (after
 * the first: the meeple when the search left none planned) is not the
 * turn's position and is not told. */
static void bp_think(void *user, const bot_think *th)
{
    player *p = user;
    if (!p->turn_st || memcmp(th->st, p->turn_st, p->g->state_size) != 0)
        return;
    json_t *o = player_think_json(p->g, th);
    if (o)
        player__info(p, o, 0, 0);
    json_decref(o);
}

static player_verdict bp_turn(player *p, const void *st, double deadline_ms,
                              const atomic_bool *stop, player_result *out)
{
    bot_player *bp = p->impl;
    const eng_game *g = p->g;
    double t0 = bot_now_ms(), cpu0 = thread_cpu_ms();
    memcpy(bp->work, st, g->state_size);
    double left = deadline_ms - t0;
    /* 0: the caller keeps its own margin (the bridge's --margin-ms) */
    double margin = p->cfg.bot_margin_ms <= 0                  ? 0
                    : left / 20 > (double)p->cfg.bot_margin_ms ? left / 20
                                                               : (double)p->cfg.bot_margin_ms;
    bot_turn *t = &bp->turn;
    bot_set_think(bp->b, p->think_fn ? bp_think : NULL, p, BOT_THINK_EVERY_MS);
    int rc = bot_choose_turn(bp->b, bp->work, deadline_ms - margin, stop, t);
    out->sims += t->stats.sims;
    if (t->stats.info[0])
        snprintf(out->debug, sizeof out->debug, "%s", t->stats.info);
    out->cpu_ms = thread_cpu_ms() - cpu0;
    out->wall_ms = bot_now_ms() - t0;
    if (rc)
        return player__fail(out, PLAYER_ILLEGAL_MOVE, "bot %s chose the illegal move %d", p->spec,
                            (int)t->moves[t->n - 1]);
    memcpy(out->moves, t->moves, (size_t)t->n * sizeof t->moves[0]);
    out->nmoves = t->n;
    double late = bot_now_ms() - deadline_ms;
    if (late > 0)
        player__note(out, "decided %.0f ms after the deadline", late);
    out->verdict = PLAYER_OK;
    return PLAYER_OK;
}

static void bp_game_over(player *p, const void *st, const char *reason, int faulty,
                         const char *detail, player_result *out)
{
    (void)p;
    (void)st;
    (void)reason;
    (void)faulty;
    (void)detail;
    (void)out;
}

static const player_ops bot_ops = {
    .destroy = bp_destroy,
    .new_game = bp_new_game,
    .resume = bp_resume,
    .observe = bp_observe,
    .turn = bp_turn,
    .game_over = bp_game_over,
    .info = NULL,
};

int player__bot_init(player *p, const char *spec, char *err, size_t errcap)
{
    if (strncmp(spec, "bot:", 4) == 0)
        spec += 4;
    bot_player *bp = calloc(1, sizeof *bp);
    if (!bp)
        return eng_seterr(err, errcap, ENG_ENOMEM, "out of memory");
    bp->work = malloc(p->g->state_size);
    if (!bp->work) {
        free(bp);
        return eng_seterr(err, errcap, ENG_ENOMEM, "out of memory");
    }
    bp->b = bot_create(spec, p->g, p->cfg.seed, err, errcap);
    if (!bp->b) {
        free(bp->work);
        free(bp);
        return bot_check_spec(spec, p->g, NULL, 0) == ENG_EUNKNOWN_BOT ? ENG_EUNKNOWN_BOT
                                                                       : ENG_EBAD_BOT_SPEC;
    }
    p->kind = PLAYER_BOT;
    p->ops = &bot_ops;
    p->impl = bp;
    return 0;
}
