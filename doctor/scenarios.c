/*
 * scenarios.c — the special positions of `tessera doctor`, found with the
 * engine in seeded random games: generic finders over the game interface
 * (eng.h) where the case is generic, and the per-game hooks in one table
 * at the end of this file where it is not.
 *
 * Generic: a position in the middle of a game (resync), the last turn of a
 * game (last_move), a turn with one legal move (only_move), and a chance
 * outcome after which the same seat draws again — nothing to decide, as a
 * Carcassonne tile that fits nowhere is discarded (dead_tile). Per game:
 * Carcassonne's seat with no meeple left, reached by a playout that puts a
 * meeple down whenever it may.
 */
#include "doctor/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/carcassonne/carcassonne.h"

#define FIND_GAMES 400 /* random games tried before a search gives up */

int doctor__pos_init(doctor_pos *p, const eng_game *g)
{
    memset(p, 0, sizeof *p);
    p->moves = malloc((size_t)(g->max_plies > 0 ? g->max_plies : 1) * sizeof *p->moves);
    return p->moves ? 0 : ENG_ENOMEM;
}

void doctor__pos_free(doctor_pos *p)
{
    free(p->moves);
    p->moves = NULL;
}

/* How a playout chooses decisions (chance is sampled). */
typedef eng_move (*policy_fn)(const eng_game *g, const void *st, eng_rng *rng);

static eng_move random_policy(const eng_game *g, const void *st, eng_rng *rng)
{
    return eng_random_move(g, st, rng);
}

/* Game number `game` of the seed: from the default rules, with `policy`
 * for the decisions, recorded in p (p->n moves); st ends as its last
 * state. Returns 0 when the game ended, -1 when it ran past max_plies. */
static int playout(const eng_game *g, uint64_t seed, uint64_t game, policy_fn policy, void *st,
                   doctor_pos *p)
{
    eng_rng rng;
    eng_rng_seed_stream(&rng, seed, 0xd0c7 + game);
    eng_rules_default(g, &p->rules);
    eng_init(g, st, &p->rules, NULL, 0);
    p->n = 0;
    while (g->current_player(st) != ENG_TERMINAL && p->n < g->max_plies) {
        eng_move m = g->current_player(st) == ENG_CHANCE ? eng_sample_chance(g, st, &rng)
                                                         : policy(g, st, &rng);
        p->moves[p->n++] = m;
        g->apply(st, m);
    }
    return g->current_player(st) == ENG_TERMINAL ? 0 : -1;
}

/* Is the state after moves[0..k) (st) the start of a seat's turn: a seat
 * to move after a chance outcome, another seat, or nothing? */
static bool turn_start(const eng_game *g, const void *before, const void *st, int k)
{
    int now = g->current_player(st);
    if (now < 0)
        return false;
    if (k == 0)
        return true;
    return g->current_player(before) != now;
}

/* Replay p->moves[0..k) from the initial state into st. */
static void replay(const eng_game *g, const doctor_pos *p, int k, void *st)
{
    eng_init(g, st, &p->rules, NULL, 0);
    for (int i = 0; i < k; i++)
        g->apply(st, p->moves[i]);
}

/* The turn number (as records count them: every draw is a turn) of the
 * position after moves[0..k): turns completed + 1 (eng_turn_ends). */
static int turn_number(const eng_game *g, const doctor_pos *p, int k, void *st, void *prev)
{
    int turns = 0;
    eng_init(g, st, &p->rules, NULL, 0);
    for (int i = 0; i < k; i++) {
        memcpy(prev, st, g->state_size);
        int before = g->current_player(st);
        g->apply(st, p->moves[i]);
        turns += eng_turn_ends(g, before, st);
    }
    return turns + 1;
}

typedef struct scratch {
    unsigned char *a, *b, *c;
} scratch;

static int scratch_init(scratch *s, const eng_game *g)
{
    s->a = malloc(g->state_size);
    s->b = malloc(g->state_size);
    s->c = malloc(g->state_size);
    if (!s->a || !s->b || !s->c) {
        free(s->a);
        free(s->b);
        free(s->c);
        return ENG_ENOMEM;
    }
    return 0;
}

static void scratch_free(scratch *s)
{
    free(s->a);
    free(s->b);
    free(s->c);
}

/* Cut p at position k (a turn start) and describe it. */
static void cut(const eng_game *g, doctor_pos *p, int k, scratch *s, const char *what)
{
    int turn = turn_number(g, p, k, s->a, s->b);
    replay(g, p, k, s->a);
    p->n = k;
    p->seat = g->current_player(s->a);
    snprintf(p->what, sizeof p->what, "turn %d of a random game, seat %d: %s", turn, p->seat, what);
}

/* ---- generic finders -------------------------------------------------------------- */

/* A turn start about half-way through a random game. */
static int find_midgame(const eng_game *g, uint64_t seed, doctor_pos *p)
{
    scratch s;
    if (scratch_init(&s, g))
        return ENG_ENOMEM;
    int rc = 1;
    for (uint64_t game = 0; game < FIND_GAMES && rc == 1; game++) {
        if (playout(g, seed, game, random_policy, s.a, p) != 0)
            continue;
        int total = p->n, best = -1;
        eng_init(g, s.a, &p->rules, NULL, 0);
        for (int k = 0; k < total; k++) {
            memcpy(s.b, s.a, g->state_size);
            if (k > 0)
                g->apply(s.a, p->moves[k - 1]);
            if (k > 0 && turn_start(g, s.b, s.a, k) && k >= total / 2) {
                best = k;
                break;
            }
        }
        if (best > 0) {
            cut(g, p, best, &s, "half-way");
            rc = 0;
        }
    }
    scratch_free(&s);
    if (rc == 1)
        snprintf(p->what, sizeof p->what, "no game reached half-way");
    return rc;
}

/* The last turn start of a random game: after it, the game is over. */
static int find_last_move(const eng_game *g, uint64_t seed, doctor_pos *p)
{
    scratch s;
    if (scratch_init(&s, g))
        return ENG_ENOMEM;
    int rc = 1;
    for (uint64_t game = 0; game < FIND_GAMES && rc == 1; game++) {
        if (playout(g, seed, game, random_policy, s.a, p) != 0)
            continue;
        int total = p->n, last = -1;
        eng_init(g, s.a, &p->rules, NULL, 0);
        for (int k = 1; k < total; k++) {
            memcpy(s.b, s.a, g->state_size);
            g->apply(s.a, p->moves[k - 1]);
            if (turn_start(g, s.b, s.a, k))
                last = k;
        }
        if (last > 0) {
            cut(g, p, last, &s, "the last turn of the game");
            rc = 0;
        }
    }
    scratch_free(&s);
    if (rc == 1)
        snprintf(p->what, sizeof p->what, "no random game ended");
    return rc;
}

/* A turn start with exactly one legal move (after the first turn). */
static int find_only_move(const eng_game *g, uint64_t seed, doctor_pos *p)
{
    scratch s;
    eng_move *legal = malloc((size_t)g->max_moves * sizeof *legal);
    if (!legal || scratch_init(&s, g)) {
        free(legal);
        return ENG_ENOMEM;
    }
    int rc = 1;
    for (uint64_t game = 0; game < FIND_GAMES && rc == 1; game++) {
        if (playout(g, seed, game, random_policy, s.a, p) != 0)
            continue;
        int total = p->n;
        eng_init(g, s.a, &p->rules, NULL, 0);
        for (int k = 1; k < total && rc == 1; k++) {
            memcpy(s.b, s.a, g->state_size);
            g->apply(s.a, p->moves[k - 1]);
            if (turn_start(g, s.b, s.a, k) && g->legal_moves(s.a, legal) == 1) {
                char text[ENG_MOVE_STR_MAX] = "?";
                g->move_to_str(s.a, legal[0], text, sizeof text);
                char what[80];
                snprintf(what, sizeof what, "a single legal move (%s)", text);
                cut(g, p, k, &s, what);
                rc = 0;
            }
        }
    }
    scratch_free(&s);
    free(legal);
    if (rc == 1)
        snprintf(p->what, sizeof p->what, "no turn with a single legal move in %d random games",
                 FIND_GAMES);
    return rc;
}

/* A chance node where some outcome leaves nothing to decide (the state is
 * at chance again, not over): the bot's turn comes after that outcome and
 * a normal one. */
static int find_dead_chance(const eng_game *g, uint64_t seed, doctor_pos *p)
{
    scratch s;
    int nc = g->max_chance > 0 ? g->max_chance : 1;
    eng_move *out = malloc((size_t)nc * sizeof *out), *out2 = malloc((size_t)nc * sizeof *out2);
    double *prob = malloc((size_t)nc * sizeof *prob);
    if (!out || !out2 || !prob || scratch_init(&s, g)) {
        free(out);
        free(out2);
        free(prob);
        return ENG_ENOMEM;
    }
    int rc = 1;
    for (uint64_t game = 0; game < FIND_GAMES && rc == 1; game++) {
        if (playout(g, seed, game, random_policy, s.a, p) != 0)
            continue;
        int total = p->n;
        eng_init(g, s.a, &p->rules, NULL, 0);
        for (int k = 0; k < total && rc == 1; k++) {
            if (k > 0)
                g->apply(s.a, p->moves[k - 1]);
            if (k == 0 || g->current_player(s.a) != ENG_CHANCE)
                continue;
            int n = g->chance_outcomes(s.a, out, prob);
            for (int i = 0; i < n && rc == 1; i++) {
                memcpy(s.b, s.a, g->state_size);
                g->apply(s.b, out[i]);
                if (g->current_player(s.b) != ENG_CHANCE)
                    continue;
                /* a dead outcome: then the first outcome that gives a decision */
                int n2 = g->chance_outcomes(s.b, out2, prob);
                for (int j = 0; j < n2; j++) {
                    memcpy(s.c, s.b, g->state_size);
                    g->apply(s.c, out2[j]);
                    if (g->current_player(s.c) < 0 || k + 2 > g->max_plies)
                        continue;
                    char dead[ENG_MOVE_STR_MAX] = "?", next[ENG_MOVE_STR_MAX] = "?";
                    g->move_to_str(s.a, out[i], dead, sizeof dead);
                    g->move_to_str(s.b, out2[j], next, sizeof next);
                    int turn = turn_number(g, p, k, s.c, s.b);
                    p->moves[k] = out[i];
                    p->moves[k + 1] = out2[j];
                    p->n = k + 2;
                    replay(g, p, p->n, s.c);
                    p->seat = g->current_player(s.c);
                    snprintf(p->what, sizeof p->what,
                             "turn %d of a random game: draw '%s' fits nowhere and is discarded "
                             "(an update by the server, reason \"dead tile\"), then seat %d "
                             "draws '%s' and plays",
                             turn, dead, p->seat, next);
                    rc = 0;
                    break;
                }
            }
        }
    }
    scratch_free(&s);
    free(out);
    free(out2);
    free(prob);
    if (rc == 1)
        snprintf(p->what, sizeof p->what, "no chance outcome without a decision in %d random games",
                 FIND_GAMES);
    return rc;
}

/* ---- Carcassonne ------------------------------------------------------------------- */

/* Put a meeple down whenever one may go somewhere, else play at random. */
static eng_move carc_meeple_policy(const eng_game *g, const void *st, eng_rng *rng)
{
    const carc_state *s = st;
    if (s->phase == CARC_MEEPLE) {
        eng_move legal[CARC_MAX_MOVES];
        int n = g->legal_moves(st, legal), k = 0;
        for (int i = 0; i < n; i++)
            if (legal[i] != CARC_NO_MEEPLE)
                legal[k++] = legal[i];
        if (k > 0)
            return legal[eng_rng_below(rng, (uint32_t)k)];
    }
    return eng_random_move(g, st, rng);
}

/* The placement of a seat with no meeple in hand. */
static int find_carc_no_meeples(const eng_game *g, uint64_t seed, doctor_pos *p)
{
    scratch s;
    if (scratch_init(&s, g))
        return ENG_ENOMEM;
    int rc = 1;
    for (uint64_t game = 0; game < FIND_GAMES && rc == 1; game++) {
        if (playout(g, seed, game, carc_meeple_policy, s.a, p) != 0)
            continue;
        int total = p->n;
        eng_init(g, s.a, &p->rules, NULL, 0);
        for (int k = 1; k < total && rc == 1; k++) {
            memcpy(s.b, s.a, g->state_size);
            g->apply(s.a, p->moves[k - 1]);
            const carc_state *cs = (const carc_state *)s.a;
            if (turn_start(g, s.b, s.a, k) && cs->phase == CARC_PLACE &&
                cs->supply[cs->player] == 0) {
                cut(g, p, k, &s, "no meeple left in hand (every legal entry has \"meeples\":[])");
                rc = 0;
            }
        }
    }
    scratch_free(&s);
    if (rc == 1)
        snprintf(p->what, sizeof p->what, "no seat ran out of meeples in %d games", FIND_GAMES);
    return rc;
}

/* ---- the table ---------------------------------------------------------------------- */

static const doctor_scenario generic[] = {
    {"resync",
     "a fresh process joins mid-game with `start` and the history (after a crash or "
     "a reconnect)",
     find_midgame},
    {"last_move", "the last turn of a game, then game_over", find_last_move},
    {"only_move", "a turn with a single legal move", find_only_move},
};

static const doctor_scenario dead_chance = {
    "dead_tile",
    "a draw that fits nowhere is discarded (update by the server) and the seat draws again",
    find_dead_chance};

/* Per-game scenarios: the one place that knows particular games. */
static const struct {
    const char *game;
    doctor_scenario sc;
} per_game[] = {
    {"carcassonne", {"no_meeples", "a turn with no meeple left in hand", find_carc_no_meeples}},
};

int doctor__scenarios(const eng_game *g, doctor_scenario *out, int cap)
{
    int n = 0;
    for (size_t i = 0; i < sizeof generic / sizeof generic[0] && n < cap; i++)
        out[n++] = generic[i];
    if (g->max_chance > 0 && n < cap)
        out[n++] = dead_chance;
    for (size_t i = 0; i < sizeof per_game / sizeof per_game[0] && n < cap; i++)
        if (strcmp(per_game[i].game, g->name) == 0)
            out[n++] = per_game[i].sc;
    return n;
}
