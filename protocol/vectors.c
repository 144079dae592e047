/*
 * vectors.c — conformance vectors (vectors.h): seeded games of any
 * registered game, played through its codec, and the positions worth
 * checking written as wire JSON, one vector per line.
 *
 * A game is played twice: once to learn its moves and which of its turns
 * and chance events to keep (the last decision, the last chance
 * event, the first position (its first chance event, or else its first
 * turn), every chance outcome that leaves its seat nothing to decide, every
 * turn with a single legal entry, the first turns the game's table calls
 * notable, and a sample of the rest), then again to write them. Decisions are chosen among the codec's legal entries sorted
 * by their text, so the vectors depend on the rules alone, not on the order
 * in which the engine happens to list moves; chance outcomes come from the
 * game's seed (eng_chance_draw) as in every tournament game.
 *
 * What is not generic lives in the table of per-game extras at the end
 * (Carcassonne: placements per tile type, scores if the game ended now, the
 * turns that score a two-tile city).
 */
#include "protocol/vectors.h"

#include <stdlib.h>
#include <string.h>

#include "engine/carcassonne/carcassonne.h"
#include "protocol/codec.h"
#include "protocol/wire.h"

/* Sampling: a turn or chance event beyond those always kept is written
 * with probability SAMPLE_PER_GAME / (its kind's count in the game), so a
 * game gives about SAMPLE_PER_GAME of each kind whatever its length. */
#define SAMPLE_PER_GAME 2.0
/* Per-game extras (Carcassonne's fits and score_now) at about this many
 * chance events per game, and at most this many "a tile would be dead"
 * positions per game beyond them. */
#define EXTRAS_PER_GAME 1.0
#define DEAD_FITS_PER_GAME 2
/* Chance outcomes that leave their seat nothing to decide, beyond those the
 * seed drew, written per game (see play()). */
#define DEAD_DRAWS_PER_GAME 2
/* Turns a game's table calls notable (Carcassonne: a two-tile city scored,
 * where the tiny_city rule shows), kept beyond the sample, per game. */
#define NOTABLE_PER_GAME 2

/* ---- writing ---------------------------------------------------- */

typedef struct vec_writer vec_writer;
/* Write the game's extra vectors for st (a state before a chance event). */
typedef int (*extras_fn)(vec_writer *w, const eng_game *g, const void *st, bool dead_only);
/* Is the turn of `moves` from `before` one a model often gets wrong, to be
 * kept whatever the sampling says (up to NOTABLE_PER_GAME a game)? scratch
 * is a state-sized buffer it may use. */
typedef bool (*notable_fn)(const eng_game *g, const void *before, const eng_move *moves, int n,
                           void *scratch);

typedef struct vec_writer {
    FILE *out;
    const eng_game *g;
    const game_codec *codec;
    json_t *rules; /* the current game's rules (wire form) */
    int written;   /* vectors written so far */
    int count;     /* vectors wanted */
    char *err;
    size_t errcap;
} vec_writer;

/* Write one vector: {"id", "kind", "game", "rules", ...fields} (fields
 * stolen). Returns 0, 1 when the count is reached (nothing written), or a
 * negative code. */
static int emit(vec_writer *w, const char *kind, json_t *fields)
{
    if (!fields)
        return eng_seterr(w->err, w->errcap, ENG_ENOMEM, "out of memory");
    if (w->written >= w->count) {
        json_decref(fields);
        return 1;
    }
    json_t *v = json_pack("{s:i, s:s, s:s, s:O}", "id", w->written + 1, "kind", kind, "game",
                          w->g->name, "rules", w->rules);
    if (!v || json_object_update(v, fields) != 0) {
        json_decref(v);
        json_decref(fields);
        return eng_seterr(w->err, w->errcap, ENG_ENOMEM, "out of memory");
    }
    json_decref(fields);
    int rc = json_dumpf(v, w->out, JSON_COMPACT | JSON_ENSURE_ASCII);
    json_decref(v);
    if (rc != 0 || fputc('\n', w->out) == EOF)
        return eng_seterr(w->err, w->errcap, ENG_EIO, "cannot write the vectors");
    w->written++;
    return 0;
}

/* A chance event: the state before it, the public outcome (read from the
 * state after it) and the state after it. */
static int emit_draw(vec_writer *w, const void *before, const void *after)
{
    const game_codec *c = w->codec;
    json_t *outcome = c->next_chance ? c->next_chance(after) : NULL;
    return emit(w, "draw", json_pack("{s:o, s:o, s:o}", "state", c->state(before), "outcome",
                                     outcome ? outcome : json_object(), "after", c->state(after)));
}

/* ---- per-game extras ---------------------------------------------------- */

/* Carcassonne: how many distinct placements every tile type still in the
 * bag has, and the scores if the game ended now. dead_only: only when a
 * tile in the bag would be dead, and then only `fits`. */
static int carc_extras(vec_writer *w, const eng_game *g, const void *st, bool dead_only)
{
    (void)g;
    const carc_state *s = st;
    const carc_type *types = carc_types();
    json_t *fits = json_object();
    bool dead = false;
    for (int t = 0; t < CARC_NTYPES; t++)
        if (s->bag[t] > 0) {
            char name[2] = {types[t].letter, 0};
            int n = carc_count_placements(s, t);
            dead |= n == 0;
            json_object_set_new(fits, name, json_integer(n));
        }
    if (dead_only && !dead) {
        json_decref(fits);
        return 0;
    }
    const game_codec *c = w->codec;
    int rc = emit(w, "fits", json_pack("{s:o, s:o}", "state", c->state(st), "placements", fits));
    if (rc != 0 || dead_only)
        return rc;
    int v[ENG_MAX_PLAYERS];
    carc_virtual_scores(s, v);
    json_t *scores = json_array();
    for (int p = 0; p < s->rules.players; p++)
        json_array_append_new(scores, json_integer(v[p]));
    return emit(w, "score_now", json_pack("{s:o, s:o}", "state", c->state(st), "scores", scores));
}

/* Carcassonne: the turn completes a city of exactly two tiles and someone
 * scores on it — the one place the tiny_city rule changes a score (2 or 4
 * points), and a completion rare enough that sampling alone misses it. */
static bool carc_notable(const eng_game *g, const void *before, const eng_move *moves, int n,
                         void *scratch)
{
    const carc_state *b = before;
    carc_state *s = scratch;
    memcpy(s, before, g->state_size);
    g->apply(s, moves[0]); /* the placement: s->complete holds what it completed */
    bool two_tile_city = false;
    for (int i = 0; i < s->ncomplete && !two_tile_city; i++) {
        int r = carc_root(s, s->complete[i]);
        if (s->kind[r] != CARC_CITY)
            continue;
        int seen[3], tiles = 0, node = r;
        do { /* its distinct tiles, counted up to three */
            int t = s->tile[node], k = 0;
            while (k < tiles && seen[k] != t)
                k++;
            if (k == tiles && tiles < 3)
                seen[tiles++] = t;
            node = s->nxt[node];
        } while (node != r && tiles < 3);
        two_tile_city = tiles == 2;
    }
    if (!two_tile_city)
        return false;
    for (int i = 1; i < n; i++)
        g->apply(s, moves[i]);
    int gained = 0;
    for (int p = 0; p < b->rules.players; p++)
        gained += s->score[p] - b->score[p];
    return gained > 0;
}

static const struct {
    const char *game;
    extras_fn extras;
    notable_fn notable;
} EXTRAS[] = {
    {"carcassonne", carc_extras, carc_notable},
};

static extras_fn extras_of(const eng_game *g)
{
    for (size_t i = 0; i < sizeof EXTRAS / sizeof EXTRAS[0]; i++)
        if (strcmp(EXTRAS[i].game, g->name) == 0)
            return EXTRAS[i].extras;
    return NULL;
}

static notable_fn notable_of(const eng_game *g)
{
    for (size_t i = 0; i < sizeof EXTRAS / sizeof EXTRAS[0]; i++)
        if (strcmp(EXTRAS[i].game, g->name) == 0)
            return EXTRAS[i].notable;
    return NULL;
}

/* ---- one game ----------------------------------------------------------- */

int vectors_default_count(const eng_game *g)
{
    /* about 250 KB each: Carcassonne's states are large, a game whose
     * legal lists run to hundreds of entries (Pentago-Twist: 288) has large
     * turns, the other small-board games small ones */
    return g->max_chance > 0 ? 80 : g->max_moves > 100 ? 40 : 200;
}

/* Rules of a game: the default seat count half of the time, else any;
 * each option its default two times in three, else any value its range
 * allows (drawn again when the game refuses the mix, and the defaults after
 * eight refusals). */
static void game_rules(const eng_game *g, eng_rng *rng, eng_rules *r)
{
    eng_rules_default(g, r);
    if (g->max_players > g->min_players && eng_rng_below(rng, 2))
        r->players = g->min_players + (int)eng_rng_below(rng, (uint32_t)(g->max_players - g->min_players + 1));
    int players = r->players;
    for (int attempt = 0; attempt < 8; attempt++) {
        eng_rules_default(g, r);
        r->players = players;
        for (int i = 0; i < g->n_options; i++)
            if (eng_rng_below(rng, 3) == 0) {
                const eng_option *o = &g->options[i];
                r->opt[i] = o->min + (int32_t)eng_rng_below(rng, (uint32_t)(o->max - o->min + 1));
            }
        if (eng_rules_check(g, r, NULL, 0) == 0)
            return;
    }
    eng_rules_default(g, r);
    r->players = players;
}

static int cmp_text(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A move for the seat to move in st: a legal entry chosen uniformly among
 * the entries sorted by their text (pick_entry then picks among what the
 * entry stands for). New reference, or NULL when out of memory. *nlegal
 * gets the number of entries. */
static json_t *choose_move(const game_codec *c, const void *st, eng_rng *rng, json_t *legal,
                           int *nlegal)
{
    size_t n = json_array_size(legal);
    *nlegal = (int)n;
    if (n == 0)
        return NULL;
    char **text = calloc(n, sizeof *text);
    if (!text)
        return NULL;
    for (size_t i = 0; i < n; i++)
        text[i] = json_dumps(json_array_get(legal, i), JSON_COMPACT | JSON_SORT_KEYS);
    json_t *move = NULL;
    bool ok = true;
    for (size_t i = 0; i < n; i++)
        ok &= text[i] != NULL;
    if (ok) {
        qsort(text, n, sizeof *text, cmp_text);
        json_t *entry = json_loads(text[eng_rng_below(rng, (uint32_t)n)], 0, NULL);
        if (entry && c->pick_entry) {
            move = c->pick_entry(entry, rng);
            json_decref(entry);
        } else {
            move = entry;
        }
    }
    for (size_t i = 0; i < n; i++)
        free(text[i]);
    free(text);
    (void)st;
    return move;
}

/* The buffers of play(), sized by the game. */
typedef struct scratch_states {
    void *st, *before, *scratch;
    eng_move *outcomes; /* max_chance */
    double *prob;       /* max_chance */
} scratch_states;

/* What the first pass learns about a game. */
typedef struct game_plan {
    int turns, draws;       /* decisions (turns) and chance events */
    int last_turn, last_draw; /* their indices, -1 if none */
} game_plan;

/* Play game number k of the seed, the first time (plan != NULL: count) or
 * the second (w != NULL: write what plan says to keep). The two passes see
 * the same game: every random choice comes from rng in the same order. */
static int play(const eng_game *g, const game_codec *c, uint64_t seed, uint64_t k, game_plan *plan,
                vec_writer *w, scratch_states *ss, char *err, size_t errcap)
{
    void *st = ss->st, *before = ss->before, *scratch = ss->scratch;
    eng_move *outcomes = ss->outcomes;
    double *prob = ss->prob;
    eng_rng rng, pick;
    eng_rng_seed_stream(&rng, seed, 2 * k);
    eng_rng_seed_stream(&pick, seed, 2 * k + 1); /* second pass only: what to keep */
    eng_rules rules;
    game_rules(g, &rng, &rules);
    if (eng_init(g, st, &rules, err, errcap) != 0)
        return ENG_EINVAL;
    uint64_t chance_seed = eng_rng_next(&rng);
    extras_fn extras = extras_of(g);
    notable_fn notable = notable_of(g);
    if (w) {
        json_decref(w->rules);
        w->rules = wire_rules_json(g, &rules);
        if (!w->rules)
            return eng_seterr(w->err, w->errcap, ENG_ENOMEM, "out of memory");
    } else {
        memset(plan, 0, sizeof *plan);
        plan->last_turn = plan->last_draw = -1;
    }
    double p_turn = plan->turns > 0 ? SAMPLE_PER_GAME / plan->turns : 1.0;
    double p_draw = plan->draws > 0 ? SAMPLE_PER_GAME / plan->draws : 1.0;
    double p_extra = plan->draws > 0 ? EXTRAS_PER_GAME / plan->draws : 1.0;
    int turn = 0, draw = 0, dead_fits = 0, dead_draws = 0, notables = 0, plies = 0;
    int rc = 0;
    while (rc == 0 && g->current_player(st) != ENG_TERMINAL) {
        if (++plies > g->max_plies)
            return eng_seterr(err, errcap, ENG_EINVAL,
                              "%s: a game ran past its %d plies", g->name, g->max_plies);
        memcpy(before, st, g->state_size);
        if (g->current_player(st) == ENG_CHANCE) {
            eng_move m = eng_chance_draw(g, st, chance_seed, (uint64_t)draw);
            g->apply(st, m);
            if (!w) {
                plan->last_draw = draw++;
                plan->draws++;
                continue;
            }
            if (extras) {
                if (eng_rng_double(&pick) < p_extra)
                    rc = extras(w, g, before, false);
                else if (dead_fits < DEAD_FITS_PER_GAME)
                    dead_fits += (rc = extras(w, g, before, true)) == 0;
                if (rc)
                    break;
            }
            bool nothing_to_decide = g->current_player(st) < 0;
            bool keep = draw == 0 || draw == plan->last_draw || nothing_to_decide ||
                        eng_rng_double(&pick) < p_draw;
            draw++;
            if (keep)
                rc = emit_draw(w, before, st);
            /* an outcome the seed did not draw here but might have, after
             * which its seat has nothing to decide (a tile that fits
             * nowhere): rare in play, so looked for at every chance event */
            if (rc == 0 && dead_draws < DEAD_DRAWS_PER_GAME) {
                int n = g->chance_outcomes(before, outcomes, prob);
                for (int i = 0; i < n && rc == 0 && dead_draws < DEAD_DRAWS_PER_GAME; i++) {
                    if (outcomes[i] == m)
                        continue;
                    memcpy(scratch, before, g->state_size);
                    g->apply(scratch, outcomes[i]);
                    if (g->current_player(scratch) < 0) {
                        rc = emit_draw(w, before, scratch);
                        dead_draws++;
                    }
                }
            }
            continue;
        }
        json_t *legal = c->legal(st);
        int nlegal = 0;
        json_t *move = legal ? choose_move(c, st, &rng, legal, &nlegal) : NULL;
        if (!move) {
            json_decref(legal);
            return eng_seterr(err, errcap, ENG_ENOMEM,
                              "out of memory (or a seat without a legal move)");
        }
        eng_move moves[ENG_MAX_TURN_MOVES];
        char why[256];
        int n = c->parse_move(st, move, moves, why, sizeof why);
        if (n <= 0) {
            json_decref(legal);
            json_decref(move);
            return eng_seterr(err, errcap, ENG_EINVAL,
                              "%s: the codec refused its own legal entry: %s", g->name, why);
        }
        bool is_notable = w && notable && notables < NOTABLE_PER_GAME &&
                          notable(g, st, moves, n, ss->scratch);
        notables += is_notable;
        for (int i = 0; i < n; i++)
            g->apply(st, moves[i]);
        if (!w) {
            plan->last_turn = turn++;
            plan->turns++;
            json_decref(legal);
            json_decref(move);
            continue;
        }
        bool keep = (turn == 0 && draw == 0) || turn == plan->last_turn || nlegal == 1 ||
                    is_notable || eng_rng_double(&pick) < p_turn;
        turn++;
        if (keep)
            rc = emit(w, "turn",
                      json_pack("{s:o, s:o, s:o, s:o}", "state", c->state(before), "legal", legal,
                                "move", move, "after", c->state(st)));
        else {
            json_decref(legal);
            json_decref(move);
        }
    }
    return rc < 0 ? rc : 0;
}

int vectors_write(const eng_game *g, const vectors_config *cfg, FILE *out, char *err,
                  size_t errcap)
{
    const game_codec *c = g ? codec_find(g->name) : NULL;
    if (!c)
        return eng_seterr(err, errcap, ENG_EINVAL, "no codec for this game");
    if (cfg->count < 1 || cfg->count > VECTORS_MAX_COUNT)
        return eng_seterr(err, errcap, ENG_EINVAL, "the count must be from 1 to %d",
                          VECTORS_MAX_COUNT);
    json_t *head = json_pack("{s:s, s:i, s:s, s:i, s:I, s:s}", "kind", "header", "format",
                             VECTORS_FORMAT, "game", g->name, "count", cfg->count, "seed",
                             (json_int_t)cfg->seed, "generator", "tessera vectors");
    if (!head)
        return eng_seterr(err, errcap, ENG_ENOMEM, "out of memory");
    /* seeds above 2^63 do not fit a JSON integer of jansson: write them as text */
    if (cfg->seed > INT64_MAX) {
        char s[24];
        snprintf(s, sizeof s, "%llu", (unsigned long long)cfg->seed);
        json_object_set_new(head, "seed", json_string(s));
    }
    int rc = json_dumpf(head, out, JSON_COMPACT | JSON_ENSURE_ASCII);
    json_decref(head);
    if (rc != 0 || fputc('\n', out) == EOF)
        return eng_seterr(err, errcap, ENG_EIO, "cannot write the vectors");

    size_t nch = g->max_chance > 0 ? (size_t)g->max_chance : 1;
    scratch_states ss = {malloc(g->state_size), malloc(g->state_size), malloc(g->state_size),
                         malloc(nch * sizeof(eng_move)), malloc(nch * sizeof(double))};
    vec_writer w = {out, g, c, NULL, 0, cfg->count, err, errcap};
    rc = ss.st && ss.before && ss.scratch && ss.outcomes && ss.prob
             ? 0
             : eng_seterr(err, errcap, ENG_ENOMEM, "out of memory");
    for (uint64_t k = 0; rc == 0 && w.written < w.count; k++) {
        game_plan plan;
        rc = play(g, c, cfg->seed, k, &plan, NULL, &ss, err, errcap);
        if (rc == 0)
            rc = play(g, c, cfg->seed, k, &plan, &w, &ss, err, errcap);
    }
    json_decref(w.rules);
    free(ss.st);
    free(ss.before);
    free(ss.scratch);
    free(ss.outcomes);
    free(ss.prob);
    if (rc == 0 && fflush(out) != 0)
        rc = eng_seterr(err, errcap, ENG_EIO, "cannot write the vectors");
    return rc;
}
