/*
 * analysis.c — a record searched again, position by position
 * (docs/analysis.md).
 *
 * The record is checked whole first (rec_replay_json: a bad record fails
 * as `tessera replay` fails), then replayed to keep every turn's first
 * position X[k], its position after the chance outcome Y[k] (the tile drawn)
 * and its moves. The values are computed backwards, from the end:
 *
 *   before[n]  = the final scores (or a search of the last position);
 *   drawn[k]   = a search of Y[k] (its preferred turn, its value) when the
 *                seat decides something there, else before[k+1] (a dead
 *                tile's turn: Y[k] is X[k+1]);
 *   before[k]  = drawn[k] without chance, else the expectation over every
 *                outcome the chance event could give, each weighed by its
 *                probability, the outcome drawn counting with drawn[k] and
 *                every other with a smaller search of its own;
 *   after[k]   = before[k+1].
 *
 * Each turn's luck is drawn - before and its skill after - drawn, so that
 * the sums telescope: before[0] + every luck + every skill = before[n], the
 * final score difference (ana_get_sums). A value is two searches by the same
 * spec, one with reward=scorediff (the expected score difference of the
 * mover; its preferred turn is the one shown) and one with reward=winloss
 * (the mover's win probability, a tie half). With two seats the mover's
 * value is the whole story (the other's is its mirror); with three to five
 * a search tells every seat's mean reward (bot_stats.values: own score
 * minus the best of the others', first or not), every value is kept per
 * seat, and the sums telescope for each seat in its own points.
 */
#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "protocol/codec.h"

#define ANA_CHANCE_DEPTH 2 /* chance under chance (a dead tile, then a redraw): one sampled outcome below */

typedef struct evaluator {
    const eng_game *g;
    int np;                     /* seats */
    char *err;                  /* why a search failed (the caller's why->reason) */
    size_t errcap;
    bot *score, *win;           /* the two searches (reward=scorediff, reward=winloss) */
    bot_budget main, chance;    /* budgets of a played position's search, of an expectation's */
    int64_t ms;                 /* the spec's ms= (0: none): a recheck scales it */
    eng_rng rng;                /* outcomes sampled below ANA_CHANCE_DEPTH */
    unsigned char *scratch[ANA_CHANCE_DEPTH + 2]; /* a state per depth */
    unsigned char *turn;        /* the preferred turn played out */
    eng_move *outcomes;         /* g->max_chance per depth */
    double *probs;
    int64_t searches;
} evaluator;

/* Does the spec set option `key` (NAME:k=v,...)? */
static bool spec_sets(const char *spec, const char *key)
{
    const char *opts = strchr(spec, ':');
    size_t kl = strlen(key);
    for (const char *p = opts; p && *p; p = strchr(p + 1, ',')) {
        const char *k = p + 1;
        if (!strncmp(k, key, kl) && k[kl] == '=')
            return true;
    }
    return false;
}

/* The spec without its budget (sims=, ms=) into out, the budget's values in
 * *sims and *ms (0: not set, or set to 0, the bots' "unset"). The analysis
 * spends the budget itself, through bot_budget: a budget in the spec would
 * cap every search, the rechecks' ANA_CHECK_FACTOR times it too. 0, or an
 * engine code with a reason for a value that is not a whole number. */
static int take_budget(const char *spec, char *out, size_t cap, int64_t *sims, int64_t *ms,
                       char *err, size_t errcap)
{
    *sims = *ms = 0;
    const char *opts = strchr(spec, ':');
    size_t at = (size_t)(opts ? opts - spec : (ptrdiff_t)strlen(spec));
    snprintf(out, cap, "%.*s", (int)at, spec);
    bool first = true;
    for (const char *p = opts; p && *p;) {
        const char *k = p + 1, *end = strchr(k, ',');
        size_t n = end ? (size_t)(end - k) : strlen(k);
        int64_t *v = !strncmp(k, "sims=", 5) ? sims : !strncmp(k, "ms=", 3) ? ms : NULL;
        if (v) {
            const char *num = strchr(k, '=') + 1;
            char *stop;
            errno = 0;
            long long x = strtoll(num, &stop, 10);
            if (stop == num || stop != k + n || x < 0 || errno)
                return eng_seterr(err, errcap, ENG_EBAD_BOT_SPEC,
                                  "%.*s: the budget takes a whole number, 0 or more", (int)n, k);
            *v = x;
        } else {
            size_t len = strlen(out);
            snprintf(out + len, cap - len, "%c%.*s", first ? ':' : ',', (int)n, k);
            first = false;
        }
        p = end;
    }
    return 0;
}

static int make_bots(evaluator *ev, ana_report *r, const ana_opts *o, char *err, size_t cap)
{
    const char *spec = o->bot && *o->bot ? o->bot : ANA_DEFAULT_BOT;
    if (strlen(spec) >= BOT_SPEC_MAX - 40)
        return eng_seterr(err, cap, ENG_EBAD_BOT_SPEC, "the search spec is longer than %d characters",
                          BOT_SPEC_MAX - 41);
    char name[64];
    size_t nl = strcspn(spec, ":");
    snprintf(name, sizeof name, "%.*s", (int)(nl < sizeof name ? nl : sizeof name - 1), spec);
    const bot_type *t = bot_find_type(name);
    if (!t)
        return eng_seterr(err, cap, ENG_EUNKNOWN_BOT, "unknown bot '%s' (see `tessera bots`)", name);
    bool has_reward = false;
    for (int i = 0; i < t->nparams; i++)
        has_reward |= !strcmp(t->params[i].name, "reward");
    if (!has_reward)
        return eng_seterr(err, cap, ENG_EBAD_BOT_SPEC,
                          "%s gives no value to analyse with: the search needs a reward= option "
                          "(the MCTS family: mcts, rave, mcts-d2, ...)",
                          name);
    if (spec_sets(spec, "reward"))
        return eng_seterr(err, cap, ENG_EBAD_BOT_SPEC,
                          "the analysis sets the reward itself (scorediff and winloss): leave "
                          "reward= out of the spec");
    /* the budget: --sims caps the spec's (the smaller wins); neither, nor
     * the spec's ms=: the analysis's default */
    char bare[BOT_SPEC_MAX - 40]; /* spec is shorter (above) */
    int64_t s_sims, s_ms;
    int rc = take_budget(spec, bare, sizeof bare, &s_sims, &s_ms, err, cap);
    if (rc)
        return rc;
    int64_t sims = o->sims && s_sims ? (o->sims < s_sims ? o->sims : s_sims)
                   : o->sims         ? o->sims
                   : s_sims          ? s_sims
                   : s_ms            ? 0
                                     : ANA_DEFAULT_SIMS;
    const char *sep = strchr(bare, ':') ? "," : ":";
    char made[BOT_SPEC_MAX + 32], budget[40] = "";
    if (sims)
        snprintf(budget, sizeof budget, ",sims=%lld", (long long)sims);
    else
        snprintf(budget, sizeof budget, ",ms=%lld", (long long)s_ms);
    /* the reports' specs say the budget; the bots are made without it */
    snprintf(r->score_spec, sizeof r->score_spec, "%s%sreward=scorediff%s", bare, sep, budget);
    snprintf(r->win_spec, sizeof r->win_spec, "%s%sreward=winloss%s", bare, sep, budget);
    /* a bad spec, or no memory for the search: rc says which */
    snprintf(made, sizeof made, "%s%sreward=scorediff", bare, sep);
    ev->score = bot_create_code(made, ev->g, o->seed, &rc, err, cap);
    if (!ev->score)
        return rc;
    snprintf(made, sizeof made, "%s%sreward=winloss", bare, sep);
    ev->win = bot_create_code(made, ev->g, o->seed, &rc, err, cap);
    if (!ev->win)
        return rc;
    ev->ms = s_ms;
    ev->main = (bot_budget){.sims = sims, .ms = s_ms, .stop = o->stop};
    ev->chance = (bot_budget){.stop = o->stop};
    if (o->chance_sims)
        ev->chance.sims = o->chance_sims;
    else if (sims)
        ev->chance.sims = sims / ANA_DEFAULT_CHANCE_DIV > 0 ? sims / ANA_DEFAULT_CHANCE_DIV : 1;
    if (!sims && s_ms)
        ev->chance.ms = s_ms / ANA_DEFAULT_CHANCE_DIV > 0 ? s_ms / ANA_DEFAULT_CHANCE_DIV : 1;
    r->sims = sims;
    r->chance_sims = ev->chance.sims;
    r->seed = ev->score->seed;
    return 0;
}

static void evaluator_free(evaluator *ev)
{
    bot_destroy(ev->score);
    bot_destroy(ev->win);
    for (int i = 0; i < ANA_CHANCE_DEPTH + 2; i++)
        free(ev->scratch[i]);
    free(ev->turn);
    free(ev->outcomes);
    free(ev->probs);
}

static int evaluator_alloc(evaluator *ev)
{
    const eng_game *g = ev->g;
    for (int i = 0; i < ANA_CHANCE_DEPTH + 2; i++)
        if (!(ev->scratch[i] = malloc(g->state_size)))
            return ENG_ENOMEM;
    size_t nc = (size_t)(g->max_chance > 0 ? g->max_chance : 1) * (ANA_CHANCE_DEPTH + 1);
    ev->turn = malloc(g->state_size);
    ev->outcomes = malloc(nc * sizeof *ev->outcomes);
    ev->probs = malloc(nc * sizeof *ev->probs);
    return ev->turn && ev->outcomes && ev->probs ? 0 : ENG_ENOMEM;
}

static double clamp01(double p)
{
    return p < 0 ? 0 : p > 1 ? 1 : p;
}

static bool stopped(const evaluator *ev)
{
    return ev->main.stop && atomic_load(ev->main.stop);
}

/* A decision position searched: its value, and (best may be NULL) the turn
 * the score search prefers, its moves into best[0..*nbest). */
static int search(evaluator *ev, const void *st, const bot_budget *budget, ana_val *v,
                  eng_move *best, int *nbest)
{
    const eng_game *g = ev->g;
    int seat = g->current_player(st);
    assert(seat >= 0 && seat < ev->np);
    if (stopped(ev))
        return ENG_EINVAL;
    bot_stats s;
    bot_reset(ev->score);
    memcpy(ev->turn, st, g->state_size);
    int n = 0;
    double score = 0, scores[ENG_MAX_PLAYERS] = {0};
    int nscores = 0;
    do {
        eng_move m = bot_choose(ev->score, ev->turn, budget, &s);
        if (n == 0) {
            score = s.value;
            nscores = s.nvalues;
            memcpy(scores, s.values, sizeof scores);
        }
        if (!eng_is_legal(g, ev->turn, m))
            return ENG_EINTERNAL; /* a bot that breaks its contract */
        if (best)
            best[n] = m;
        n++;
        g->apply(ev->turn, m);
    } while (best && n < g->turn_decisions && g->current_player(ev->turn) == seat);
    if (nbest)
        *nbest = n;
    bot_reset(ev->win);
    bot_choose(ev->win, st, budget, &s);
    ev->searches += 2;
    if (ev->np == 2) { /* the mover's value; the other's is its mirror */
        double p = clamp01((s.value + 1) / 2);
        v->diff[seat] = score;
        v->diff[1 - seat] = -score;
        v->win[seat] = p;
        v->win[1 - seat] = 1 - p;
        return 0;
    }
    if (nscores != ev->np || s.nvalues != ev->np)
        return eng_seterr(ev->err, ev->errcap, ENG_EBAD_BOT_SPEC,
                          "the search tells no value for every seat, which a game of %d seats "
                          "needs: use the MCTS family (mcts, rave, mcts-d2, evomcts, the EA bots)",
                          ev->np);
    for (int p = 0; p < ev->np; p++) {
        v->diff[p] = scores[p];
        v->win[p] = clamp01((s.values[p] + 1) / 2);
    }
    return 0;
}

/* The end: each seat's score minus the best of the others', and 1 for a
 * seat ahead of all, 1/2 for a tie for first, 0 behind — the rewards
 * scorediff and winloss give a simulation (bots/mcts.c, mcts_rewards), so
 * that the searches and the end speak of the same thing. Two seats: the
 * game's own returns, as before. */
static void terminal_value(const eng_game *g, int np, const void *st, ana_val *v)
{
    double sc[ENG_MAX_PLAYERS], ret[ENG_MAX_PLAYERS];
    g->scores(st, sc);
    if (np == 2) {
        g->returns(st, ret);
        v->diff[0] = sc[0] - sc[1];
        v->diff[1] = -v->diff[0];
        v->win[0] = ret[0];
        v->win[1] = 1 - ret[0];
        return;
    }
    for (int p = 0; p < np; p++) {
        double best = -1e300;
        for (int q = 0; q < np; q++)
            if (q != p && sc[q] > best)
                best = sc[q];
        v->diff[p] = sc[p] - best;
        v->win[p] = v->diff[p] > 0 ? 1 : v->diff[p] < 0 ? 0 : 0.5;
    }
}

static int value_at(evaluator *ev, const void *st, int depth, const bot_budget *b, ana_val *v);

/* The expectation over the chance outcomes of st. known >= 0: that outcome's
 * value is known_v (the one drawn, searched with the full budget). */
static int expectation(evaluator *ev, const void *st, int depth, eng_move known,
                       const ana_val *known_v, ana_val *v)
{
    const eng_game *g = ev->g;
    assert(depth >= 0 && depth <= ANA_CHANCE_DEPTH);
    unsigned char *child = ev->scratch[depth + 1];
    if (depth == ANA_CHANCE_DEPTH) {
        /* deep under chance (rare: dead tiles in a row): one outcome drawn by
         * the seeded generator stands for them all — drawn again while the
         * draw is dead, in this depth's state, so the depths (and their
         * scratch states and outcome lists) end here. Each dead draw takes
         * a tile from the bag, and the game ends when it is empty. */
        memcpy(child, st, g->state_size);
        do
            g->apply(child, eng_sample_chance(g, child, &ev->rng));
        while (g->current_player(child) == ENG_CHANCE);
        return value_at(ev, child, depth + 1, &ev->chance, v);
    }
    size_t off = (size_t)(g->max_chance > 0 ? g->max_chance : 1) * (size_t)depth;
    eng_move *out = ev->outcomes + off;
    double *prob = ev->probs + off;
    int n = g->chance_outcomes(st, out, prob);
    assert(n > 0);
    ana_val sum;
    memset(&sum, 0, sizeof sum);
    for (int i = 0; i < n; i++) {
        ana_val c;
        if (out[i] == known && known_v) {
            c = *known_v;
        } else {
            memcpy(child, st, g->state_size);
            g->apply(child, out[i]);
            int rc = value_at(ev, child, depth + 1, &ev->chance, &c);
            if (rc)
                return rc;
        }
        for (int p = 0; p < ev->np; p++) {
            sum.diff[p] += prob[i] * c.diff[p];
            sum.win[p] += prob[i] * c.win[p];
        }
    }
    *v = sum;
    return 0;
}

/* The value of any position: exact at the end, a search at a decision, an
 * expectation at chance. */
static int value_at(evaluator *ev, const void *st, int depth, const bot_budget *b, ana_val *v)
{
    int cp = ev->g->current_player(st);
    if (cp == ENG_TERMINAL) {
        terminal_value(ev->g, ev->np, st, v);
        return 0;
    }
    if (cp == ENG_CHANCE)
        return expectation(ev, st, depth, -1, NULL, v);
    return search(ev, st, b, v, NULL, NULL);
}

/* ---- the record ------------------------------------------------------------------ */

/* The moves m[0..n) played from st, as text separated by spaces. */
static void moves_text(const eng_game *g, const void *st, const eng_move *m, int n, void *scratch,
                       char *out, size_t cap)
{
    memcpy(scratch, st, g->state_size);
    size_t len = 0;
    out[0] = 0;
    for (int i = 0; i < n && len < cap; i++) {
        char s[ENG_MOVE_STR_MAX] = "?";
        g->move_to_str(scratch, m[i], s, sizeof s);
        int w = snprintf(out + len, cap - len, "%s%s", i ? " " : "", s);
        if (w < 0)
            break;
        len += (size_t)w;
        g->apply(scratch, m[i]);
    }
}

static void judge(ana_turn *t)
{
    t->loss_win = t->loss_diff = 0;
    t->mark = ANA_NONE;
    if (!t->decision || t->same)
        return;
    double dw = t->best_after.win[t->seat] - t->played_after.win[t->seat];
    double dd = t->best_after.diff[t->seat] - t->played_after.diff[t->seat];
    t->loss_win = dw > 0 ? dw : 0;
    t->loss_diff = dd > 0 ? dd : 0;
    t->mark = t->loss_win >= ANA_DROP_BLUNDER ? ANA_BLUNDER
            : t->loss_win >= ANA_DROP_MISTAKE ? ANA_MISTAKE
            : t->loss_win >= ANA_DROP_INACCURACY ? ANA_INACC
                                              : ANA_NONE;
}

static void scale(bot_budget *b, int64_t sims, int64_t ms, int f)
{
    b->sims = sims * f;
    b->ms = sims ? 0 : ms * f;
}

/* The positions after a turn (moves[0..n) from y) valued again. */
static int value_after(evaluator *ev, const void *y, const eng_move *m, int n, ana_val *v)
{
    unsigned char *b = ev->scratch[0];
    memcpy(b, y, ev->g->state_size);
    for (int i = 0; i < n; i++)
        ev->g->apply(b, m[i]);
    return value_at(ev, b, 0, &ev->main, v);
}

/* A turn that looks like a mark is checked again: both positions, after the
 * turn preferred and after the turn played, searched with ANA_CHECK_FACTOR
 * times the budget, and the loss judged on these (the turn's `after` stays
 * what the sums telescope with). */
static int recheck(evaluator *ev, const ana_report *r, const void *y, const eng_move *best, int nbest,
                   const eng_move *dec, int ndec, ana_turn *t)
{
    bot_budget main = ev->main, chance = ev->chance;
    int64_t ms = ev->ms;
    scale(&ev->main, r->sims, ms, ANA_CHECK_FACTOR);
    scale(&ev->chance, r->chance_sims, ms / ANA_DEFAULT_CHANCE_DIV, ANA_CHECK_FACTOR);
    int rc = value_after(ev, y, best, nbest, &t->best_after);
    if (!rc)
        rc = value_after(ev, y, dec, ndec, &t->played_after);
    ev->main = main;
    ev->chance = chance;
    t->checked = true;
    return rc;
}

typedef struct played {
    eng_move moves[ENG_MAX_TURN_MOVES];
    int n, nchance; /* moves, of which the first nchance are chance outcomes */
} played;

static int analyse(evaluator *ev, ana_report *r, unsigned char *xs, unsigned char *ys,
                   const played *pl, const ana_opts *o)
{
    const eng_game *g = ev->g;
    const game_codec *codec = codec_find(g->name);
    size_t sz = g->state_size;
    int n = r->nturns;
    ana_val next;
    const void *last = xs + (size_t)n * sz;
    int rc = value_at(ev, last, 0, &ev->main, &next);
    if (rc)
        return rc;
    r->end = next;
    for (int k = n - 1; k >= 0; k--) {
        ana_turn *t = &r->turns[k];
        const void *x = xs + (size_t)k * sz, *y = ys + (size_t)k * sz;
        t->seat = eng_turn_seat(g, x);
        t->chance = pl[k].nchance > 0;
        t->decision = pl[k].n > pl[k].nchance;
        t->after = next;
        const eng_move *dec = pl[k].moves + pl[k].nchance;
        int ndec = pl[k].n - pl[k].nchance;
        if (t->decision) {
            eng_move best[ENG_MAX_TURN_MOVES];
            int nbest = 0;
            rc = search(ev, y, &ev->main, &t->drawn, best, &nbest);
            if (rc)
                return rc;
            t->same = nbest == ndec && !memcmp(best, dec, (size_t)ndec * sizeof *dec);
            moves_text(g, y, dec, ndec, ev->scratch[0], t->played, sizeof t->played);
            moves_text(g, y, best, nbest, ev->scratch[0], t->best, sizeof t->best);
            t->played_after = next;
            t->best_after = next;
            if (!t->same) /* the best turn valued as the played one is: after it, by the same searches */
                rc = value_after(ev, y, best, nbest, &t->best_after);
            judge(t);
            if (!rc && t->mark)
                rc = recheck(ev, r, y, best, nbest, dec, ndec, t);
            if (rc)
                return rc;
            judge(t);
            t->played_move = codec->format_move(y, dec, ndec);
            t->best_move = codec->format_move(y, best, nbest);
            if (!t->played_move || !t->best_move)
                return ENG_ENOMEM;
        } else {
            t->drawn = next; /* a dead tile: Y[k] is X[k+1] */
        }
        if (t->chance) {
            g->move_to_str(x, pl[k].moves[0], t->draw, sizeof t->draw);
            if (pl[k].nchance == 1) {
                rc = expectation(ev, x, 0, pl[k].moves[0], &t->drawn, &t->before);
            } else { /* several outcomes in a row at a turn's start: no game has them */
                rc = expectation(ev, x, 0, -1, NULL, &t->before);
            }
            if (rc)
                return rc;
        } else {
            t->before = t->drawn;
        }
        next = t->before;
        if (o->progress)
            o->progress(o->progress_ud, n - k, n);
    }
    r->start = next;
    return 0;
}

int ana_run(const json_t *rec, const ana_opts *o, ana_report **out, rec_replay *why)
{
    static const ana_opts none;
    rec_replay local;
    if (!why)
        why = &local;
    if (!o)
        o = &none;
    *out = NULL;
    int rc = rec_replay_json(rec, NULL, NULL, why);
    if (rc)
        return rc;
    why->bad_turn = 0;
    why->reason[0] = 0;
    const eng_game *g = why->game;
    if (why->rules.players < 2 || why->rules.players > ENG_MAX_PLAYERS)
        return eng_seterr(why->reason, sizeof why->reason, ENG_EBAD_PLAYERS,
                          "the analysis handles games of 2 to %d seats; this record has %d",
                          ENG_MAX_PLAYERS, why->rules.players);
    double t0 = bot_now_ms();
    ana_report *r = calloc(1, sizeof *r);
    evaluator ev = {.g = g, .np = why->rules.players, .err = why->reason,
                    .errcap = sizeof why->reason};
    const json_t *turns = json_object_get(rec, "turns");
    int n = (int)json_array_size(turns);
    size_t sz = g->state_size;
    unsigned char *xs = NULL, *ys = NULL;
    played *pl = NULL;
    if (!r)
        return ENG_ENOMEM;
    r->game = g;
    r->rules = why->rules;
    r->finished = why->finished;
    r->players = why->rules.players;
    memcpy(r->scores, why->scores, sizeof r->scores);
    r->nturns = n;
    r->turns = calloc((size_t)(n > 0 ? n : 1), sizeof *r->turns);
    xs = malloc((size_t)(n + 1) * sz);
    ys = malloc((size_t)(n > 0 ? n : 1) * sz);
    pl = calloc((size_t)(n > 0 ? n : 1), sizeof *pl);
    rc = !r->turns || !xs || !ys || !pl ? ENG_ENOMEM : evaluator_alloc(&ev);
    if (rc)
        goto fail;
    rc = make_bots(&ev, r, o, why->reason, sizeof why->reason);
    if (rc)
        goto fail;
    eng_rng_seed(&ev.rng, r->seed ^ 0x616e616c79736973ull); /* "analysis" */
    rc = eng_init(g, xs, &r->rules, why->reason, sizeof why->reason);
    for (int k = 0; !rc && k < n; k++) {
        unsigned char *x = xs + (size_t)k * sz, *nx = x + sz, *y = ys + (size_t)k * sz;
        memcpy(nx, x, sz);
        rc = rec_apply_turn(g, nx, json_array_get(turns, (size_t)k), pl[k].moves, &pl[k].n,
                            why->reason, sizeof why->reason);
        if (rc) {
            why->bad_turn = k + 1; /* checked by the replay above: cannot happen */
            break;
        }
        memcpy(y, x, sz);
        while (pl[k].nchance < pl[k].n && g->current_player(y) == ENG_CHANCE)
            g->apply(y, pl[k].moves[pl[k].nchance++]);
    }
    if (!rc)
        rc = analyse(&ev, r, xs, ys, pl, o);
    if (rc == ENG_EINVAL && !why->reason[0])
        snprintf(why->reason, sizeof why->reason, "the analysis was stopped");
    if (rc == ENG_EINTERNAL && !why->reason[0])
        snprintf(why->reason, sizeof why->reason, "the search chose an illegal move");
fail:
    r->searches = ev.searches;
    r->ms = bot_now_ms() - t0;
    evaluator_free(&ev);
    free(xs);
    free(ys);
    free(pl);
    if (rc) {
        if (!why->reason[0])
            snprintf(why->reason, sizeof why->reason, "%s", eng_err_message(rc));
        ana_free(r);
        return rc;
    }
    *out = r;
    return 0;
}

void ana_free(ana_report *r)
{
    if (!r)
        return;
    for (int k = 0; r->turns && k < r->nturns; k++) {
        json_decref(r->turns[k].played_move);
        json_decref(r->turns[k].best_move);
    }
    free(r->turns);
    free(r);
}

void ana_get_sums(const ana_report *r, ana_sums *s)
{
    memset(s, 0, sizeof *s);
    s->players = r->players;
    for (int p = 0; p < r->players; p++)
        s->seat_luck[p] = s->seat_start[p] = r->start.diff[p];
    for (int k = 0; k < r->nturns; k++) {
        const ana_turn *t = &r->turns[k];
        for (int p = 0; p < r->players; p++) {
            double luck = t->drawn.diff[p] - t->before.diff[p];
            double skill = t->after.diff[p] - t->drawn.diff[p];
            s->seat_luck[p] += luck;
            s->seat_skill[p] += skill;
            if (p == t->seat) {
                s->luck[p] += luck;
                s->skill[p] += skill;
            }
        }
        if (t->mark)
            s->marks[t->seat][t->mark - 1]++;
    }
    for (int p = 0; p < r->players; p++)
        s->seat_final[p] = r->end.diff[p];
    s->start = s->seat_start[0];
    s->luck_total = s->seat_luck[0];
    s->skill_total = s->seat_skill[0];
    s->final = s->seat_final[0];
}
