/*
 * sync.c — the session's copy of the game (session.h), kept in step with
 * the server's for `tessera bot` and `tessera bridge`.
 *
 * Keeping the game in sync (the server never sends engine moves, and must
 * not: the bag order is secret):
 *   - `joined`/`resumed` give the rules and the history (record form); the
 *     session builds the state from the initial position with the record
 *     codec (rec_apply_turn), which checks every turn and returns the engine
 *     moves it applied. A new game is a player_new_game and then each move
 *     observed; a game joined midway, or a history that does not extend the
 *     one the session had, is a player_resume with every move so far (a
 *     program then gets `start` with the history);
 *   - each `update.record` is one more turn, applied and observed the same
 *     way (`by: server` passes the server's reason on);
 *   - on `your_turn` the turn's chance event (Carcassonne: the tile just
 *     drawn) is not in the history yet. The session tries every chance
 *     outcome of its state and keeps the one whose public state, as the
 *     wire codec writes it, equals `your_turn.state` — generic, no per-game
 *     code. When nothing matches it says so and plays a uniformly random
 *     entry of `legal` instead of trusting its player on a wrong state;
 *   - a record that does not apply makes the client drop the connection and
 *     resume, which sends the whole history again; if even that does not
 *     apply, the session plays random legal moves to the end.
 *
 */
#include <stdlib.h>
#include <string.h>

#include "protocol/record.h"
#include "session.h"

static bool same_rules(const eng_game *g, const eng_rules *a, const eng_rules *b)
{
    if (a->players != b->players)
        return false;
    for (int i = 0; i < g->n_options; i++)
        if (a->opt[i] != b->opt[i])
            return false;
    return true;
}

/* Set up the game of the match (first join), or check it is the same one.
 * Returns 0, or -1 after saying why (the caller ends the session, or the
 * client when it plays one seat, and frees what was set up). */
int cl__setup_game(session *s, const json_t *msg)
{
    botclient *bc = s->bc;
    const char *name = cl__str_of(msg, "game");
    const eng_game *g = eng_find_game(name);
    const game_codec *w = g ? codec_find(g->name) : NULL;
    char err[PLAYER_DETAIL_MAX];
    if (!g || !w) {
        cl__say(bc, true, "%sthe match plays '%.40s', a game this client does not know", cl__who(s),
                name);
        goto fail;
    }
    eng_rules r;
    if (wire_rules_parse(g, json_object_get(msg, "rules"), 0, &r, err, sizeof err) != 0) {
        cl__say(bc, true, "%scannot read the match's rules: %s", cl__who(s), err);
        goto fail;
    }
    if (s->g) {
        if (s->g == g && same_rules(g, &s->rules, &r))
            return 0;
        cl__say(bc, true, "%sthe match's game or rules changed between connections", cl__who(s));
        goto fail;
    }
    s->g = g;
    s->w = w;
    s->rules = r;
    s->initial = malloc(g->state_size);
    s->st = malloc(g->state_size);
    s->tmp = malloc(g->state_size);
    s->dec = malloc(g->state_size);
    s->tdec = malloc(g->state_size);
    int nc = g->max_chance > 0 ? g->max_chance : 1;
    s->outcomes = malloc((size_t)nc * sizeof *s->outcomes);
    s->probs = malloc((size_t)nc * sizeof *s->probs);
    s->cap_moves = g->max_plies > 0 ? g->max_plies : 1024;
    s->moves = malloc((size_t)s->cap_moves * sizeof *s->moves);
    s->history = json_array();
    if (!s->initial || !s->st || !s->tmp || !s->dec || !s->tdec || !s->outcomes || !s->probs ||
        !s->moves || !s->history) {
        cl__say(bc, true, "out of memory");
        goto fail;
    }
    const json_t *tc = json_object_get(msg, "time_control");
    s->time_control = json_is_object(tc) ? json_deep_copy(tc) : NULL;

    eng_init(g, s->initial, &r, NULL, 0);
    memcpy(s->st, s->initial, g->state_size);
    s->turns = 0;
    s->nmoves = 0;
    s->synced = false; /* cl__rebuild() starts the game of the player */
    return 0;
fail:
    return -1;
}

/* Apply one record turn to the local state; with `tell`, the player
 * observes every engine move (except those of the turn it already saw at
 * your_turn). reason: the server's, when it chose the move. */
int cl__apply_record(session *s, const json_t *rec, bool tell, const char *reason, char *err,
                     size_t errcap)
{
    const eng_game *g = s->g;
    eng_move mv[ENG_MAX_TURN_MOVES];
    int n = 0;
    memcpy(s->tmp, s->st, g->state_size);
    int rc = rec_apply_turn(g, s->tmp, rec, mv, &n, err, errcap);
    if (rc)
        return rc;
    if (s->nmoves + n > s->cap_moves)
        return eng_seterr(err, errcap, ENG_EBAD_RECORD, "longer than the game's %d plies",
                          s->cap_moves);
    int turn = s->turns + 1;
    bool resync = false;
    for (int i = 0; i < n; i++) {
        bool seen = s->pre_turn == turn && i < s->pre_n;
        if (seen && s->pre[i] != mv[i])
            resync = true; /* the player saw another draw (a restarted server redrew) */
        if (tell && !seen && !resync) {
            bool chance = g->current_player(s->st) == ENG_CHANCE;
            cl_worker_observe(s->wk, s->st, mv[i], chance ? NULL : reason);
        }
        g->apply(s->st, mv[i]);
        s->moves[s->nmoves++] = mv[i];
    }
    if (memcmp(s->st, s->tmp, g->state_size) != 0) {
        /* the codec and the moves it reported disagree (a codec bug) */
        cl__say(s->bc, true, "internal: turn %d: the record codec's moves do not give its state",
                turn);
        memcpy(s->st, s->tmp, g->state_size);
        resync = true;
    }
    if (s->pre_turn == turn)
        s->pre_turn = s->pre_n = 0;
    json_array_append(s->history, (json_t *)rec);
    s->turns = turn;
    if (resync && tell)
        cl_worker_resume(s->wk, s->initial, s->moves, s->nmoves, s->seat, s->match);
    return 0;
}

/* Bring the local state in line with a history (joined/resumed): keep what
 * we have when it is a prefix of it (the player observes the rest), else
 * start again from the beginning (the player catches up with
 * player_resume, or starts a new game when nothing was played). */
void cl__rebuild(session *s, const json_t *history)
{
    botclient *bc = s->bc;
    size_t n = json_array_size(history);
    bool prefix = s->synced && (size_t)s->turns <= n;
    for (int i = 0; prefix && i < s->turns; i++)
        prefix =
            json_equal(json_array_get(s->history, (size_t)i), json_array_get(history, (size_t)i));
    if (!prefix) {
        memcpy(s->st, s->initial, s->g->state_size);
        json_array_clear(s->history);
        s->turns = 0;
        s->nmoves = 0;
        s->synced = true;
        s->pre_turn = s->pre_n = 0;
        s->cache_turn = 0;
    }
    for (size_t i = (size_t)s->turns; i < n; i++) {
        const json_t *rec = json_array_get(history, i);
        char err[256];
        if (s->synced && cl__apply_record(s, rec, prefix, NULL, err, sizeof err) != 0) {
            cl__say(bc, true,
                    "%scannot follow the match: history turn %zu: %s; playing random legal "
                    "moves from now on",
                    cl__who(s), i + 1, err);
            s->synced = false;
        }
        if (!s->synced) {
            json_array_append(s->history, (json_t *)rec);
            s->turns = (int)i + 1;
        }
    }
    if (!prefix && s->synced) {
        if (s->nmoves == 0)
            cl_worker_new_game(s->wk, s->initial, s->seat, s->match);
        else
            cl_worker_resume(s->wk, s->initial, s->moves, s->nmoves, s->seat, s->match);
    }
}

/* Name the first top-level field where two public states differ. */
static const char *first_difference(const json_t *mine, const json_t *theirs)
{
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)theirs, key, v)
    {
        if (!json_equal(json_object_get(mine, key), v))
            return key;
    }
    json_object_foreach((json_t *)mine, key, v)
    {
        if (!json_object_get(theirs, key))
            return key;
    }
    return "?";
}

/* Put the decision state of this turn in s->dec: the local state plus the
 * chance outcome whose public state is the server's `state`. Returns the
 * number of chance moves applied (0 or 1), or -1 with a reason. */
int cl__to_decision(session *s, const json_t *target, eng_move *chance, char *why, size_t whycap)
{
    const eng_game *g = s->g;
    if (g->current_player(s->st) != ENG_CHANCE) {
        json_t *mine = s->w->state(s->st);
        bool eq = json_equal(mine, target);
        if (!eq)
            snprintf(why, whycap, "field '%s' differs", first_difference(mine, target));
        json_decref(mine);
        if (!eq)
            return -1;
        memcpy(s->dec, s->st, g->state_size);
        return 0;
    }
    int n = g->chance_outcomes(s->st, s->outcomes, s->probs);
    for (int i = 0; i < n; i++) {
        memcpy(s->tmp, s->st, g->state_size);
        g->apply(s->tmp, s->outcomes[i]);
        json_t *mine = s->w->state(s->tmp);
        bool eq = json_equal(mine, target);
        if (!eq && i == 0)
            snprintf(why, whycap,
                     "no chance outcome gives the server's state (field '%s' "
                     "differs after the first)",
                     first_difference(mine, target));
        json_decref(mine);
        if (eq) {
            memcpy(s->dec, s->tmp, g->state_size);
            chance[0] = s->outcomes[i];
            return 1;
        }
    }
    if (n == 0)
        snprintf(why, whycap, "the local state has no chance outcome");
    return -1;
}
