/*
 * test_codecs.c — the contract of protocol/codec.h, checked generically over
 * every registered game, every seat count and every value of each
 * small-ranged option.
 *
 * Nothing here knows which games exist: the suite walks eng_games() and
 * codec_all(), and plays seeded random games turn by turn (chance outcomes
 * sampled, each seat's turn eng_random_turn()), checking:
 *   - the registries match: every engine game has exactly one codec, every
 *     codec names an engine game;
 *   - at every turn: the public state is a JSON object that serialises;
 *     wire_next() names eng_turn_seat() (null at the end) and the codec's
 *     next_chance fields;
 *   - at every seat's turn: `legal` is a non-empty array; each entry (made
 *     a move by pick_entry where the game has one) is read by parse_move
 *     into 1..turn_decisions engine moves that eng_turn_check() takes whole,
 *     and format_move writes those moves as a move that reads back to the
 *     same moves; the first moves of the entries are exactly the engine's
 *     legal moves; the turn actually played, written by format_move, reads
 *     back to itself; garbage (null, a number, a string, {}, an array) is
 *     bad_move or illegal_move with a reason, never a crash;
 *   - records: each turn written by wire_record_turn() and applied by
 *     rec_apply_turn() to the turn's start reaches the same state and
 *     reports the same engine moves; the whole game's rec_build() record
 *     replays (rec_replay_json) to the same final scores;
 *   - at the end, the last move played is illegal_move.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "protocol/codec.h"
#include "protocol/record.h"
#include "protocol/wire.h"

typedef struct run {
    const eng_game *g;
    const game_codec *c;
    const eng_rules *rules;
    char label[128];
    uint64_t seed;
    int turn;
} run;

#define FAIL(r, ...)                                                                               \
    do {                                                                                           \
        char m_[512];                                                                              \
        snprintf(m_, sizeof m_, __VA_ARGS__);                                                      \
        fail_msg("%s seed %llu turn %d: %s", (r)->label, (unsigned long long)(r)->seed, (r)->turn, \
                 m_);                                                                              \
    } while (0)

static int cmp_move(const void *a, const void *b)
{
    eng_move x = *(const eng_move *)a, y = *(const eng_move *)b;
    return (x > y) - (x < y);
}

/* Read a protocol move; it must be a whole legal turn from st. */
static int read_turn(run *r, const void *st, const json_t *move, eng_move *out, void *scratch)
{
    char err[256] = "";
    int n = r->c->parse_move(st, move, out, err, sizeof err);
    char *text = json_dumps(move, JSON_COMPACT | JSON_ENCODE_ANY);
    if (n < 1 || n > r->g->turn_decisions)
        FAIL(r, "%s read as %d moves: %s", text, n, err);
    if (eng_turn_check(r->g, st, out, n, scratch, err, sizeof err) != 0)
        FAIL(r, "%s is not a whole legal turn: %s", text, err);
    free(text);
    return n;
}

/* format_move(moves) reads back to moves. */
static void round_trip(run *r, const void *st, const eng_move *moves, int n, void *scratch)
{
    json_t *again = r->c->format_move(st, moves, n);
    if (!json_is_object(again))
        FAIL(r, "format_move of a %d-move turn is not an object", n);
    eng_move back[ENG_MAX_TURN_MOVES];
    int k = read_turn(r, st, again, back, scratch);
    if (k != n || memcmp(back, moves, (size_t)n * sizeof *moves) != 0) {
        char *text = json_dumps(again, JSON_COMPACT);
        FAIL(r, "format_move wrote %s, which reads back to other moves", text);
    }
    json_decref(again);
}

static void check_garbage(run *r, const void *st)
{
    static const char *const junk[] = {"null", "42", "\"x\"", "{}", "[]", "{\"x\":\"a\"}", "true"};
    for (size_t i = 0; i < sizeof junk / sizeof junk[0]; i++) {
        json_t *j = json_loads(junk[i], JSON_DECODE_ANY, NULL);
        eng_move out[ENG_MAX_TURN_MOVES];
        char err[256] = "";
        int rc = r->c->parse_move(st, j, out, err, sizeof err);
        if ((rc != ENG_EBAD_MOVE && rc != ENG_EILLEGAL_MOVE) || !err[0])
            FAIL(r, "the move %s gave %d '%s'", junk[i], rc, err);
        json_decref(j);
    }
}

static void check_seat_turn(run *r, const void *st, eng_rng *rng, void *scratch)
{
    const eng_game *g = r->g;
    json_t *legal = r->c->legal(st);
    if (!json_is_array(legal) || json_array_size(legal) == 0)
        FAIL(r, "legal is not a non-empty array");
    eng_move *want = malloc((size_t)g->max_moves * sizeof *want);
    eng_move *got = malloc(json_array_size(legal) * sizeof *got);
    assert_true(want && got);
    int nwant = g->legal_moves(st, want);
    size_t i;
    json_t *entry;
    json_array_foreach(legal, i, entry)
    {
        json_t *move = r->c->pick_entry ? r->c->pick_entry(entry, rng) : json_incref(entry);
        eng_move mv[ENG_MAX_TURN_MOVES];
        int n = read_turn(r, st, move, mv, scratch);
        got[i] = mv[0];
        round_trip(r, st, mv, n, scratch);
        json_decref(move);
    }
    /* the entries' first decisions are the engine's legal moves */
    int ngot = (int)json_array_size(legal);
    qsort(want, (size_t)nwant, sizeof *want, cmp_move);
    qsort(got, (size_t)ngot, sizeof *got, cmp_move);
    int k = 0;
    for (int j = 0; j < ngot; j++)
        if (j == 0 || got[j] != got[j - 1])
            got[k++] = got[j];
    if (k != nwant || memcmp(want, got, (size_t)k * sizeof *got) != 0)
        FAIL(r, "legal lists %d distinct first moves, the engine has %d legal moves", k, nwant);
    free(want);
    free(got);
    json_decref(legal);
    check_garbage(r, st);
}

static void play_one(run *r, void *st, void *start, void *scratch, eng_move *all)
{
    const eng_game *g = r->g;
    eng_rng rng;
    eng_rng_seed(&rng, r->seed);
    char err[256];
    assert_int_equal(eng_init(g, st, r->rules, err, sizeof err), 0);
    int nall = 0;
    json_t *last = NULL; /* the last turn played, as a protocol move */
    r->turn = 1;
    for (;;) {
        json_t *js = r->c->state(st);
        char *text = json_is_object(js) ? json_dumps(js, JSON_COMPACT) : NULL;
        if (!text)
            FAIL(r, "the state is not a JSON object that serialises");
        free(text);
        json_decref(js);
        json_t *next = wire_next(g, st);
        int seat = eng_turn_seat(g, st);
        if (seat < 0 ? !json_is_null(next)
                     : json_integer_value(json_object_get(next, "seat")) != seat)
            FAIL(r, "wire_next does not name seat %d", seat);
        if (seat >= 0 && r->c->next_chance) {
            json_t *ch = r->c->next_chance(st);
            const char *key;
            json_t *v;
            json_object_foreach(ch, key, v) if (!json_equal(json_object_get(next, key), v))
                FAIL(r, "wire_next lacks the next_chance field %s", key);
            json_decref(ch);
        }
        json_decref(next);
        if (g->current_player(st) == ENG_TERMINAL)
            break;

        /* one turn: chance outcomes, then the seat's decisions */
        memcpy(start, st, g->state_size);
        int first = nall;
        for (;;) {
            int p = g->current_player(st);
            if (p == ENG_CHANCE) {
                all[nall] = eng_sample_chance(g, st, &rng);
                g->apply(st, all[nall++]);
                if (eng_turn_ends(g, p, st))
                    break;
                continue;
            }
            check_seat_turn(r, st, &rng, scratch);
            int n = eng_random_turn(g, st, &rng, all + nall);
            /* st is after the turn: write it from where it began */
            memcpy(scratch, start, g->state_size);
            for (int i = first; i < nall; i++)
                g->apply(scratch, all[i]);
            void *at = malloc(g->state_size);
            assert_non_null(at);
            memcpy(at, scratch, g->state_size);
            round_trip(r, at, all + nall, n, scratch);
            json_decref(last);
            last = r->c->format_move(at, all + nall, n);
            free(at);
            nall += n;
            break;
        }
        /* the turn as a record turn, and back */
        json_t *turn = wire_record_turn(g, start, all + first, nall - first, err, sizeof err);
        if (!turn)
            FAIL(r, "wire_record_turn: %s", err);
        memcpy(scratch, start, g->state_size);
        eng_move back[ENG_MAX_TURN_MOVES];
        int nback = 0;
        if (rec_apply_turn(g, scratch, turn, back, &nback, err, sizeof err) != 0)
            FAIL(r, "rec_apply_turn refuses the turn it wrote: %s", err);
        if (nback != nall - first || memcmp(back, all + first, (size_t)nback * sizeof *back) != 0 ||
            memcmp(scratch, st, g->state_size) != 0)
            FAIL(r, "the record turn applies other moves or reaches another state");
        json_decref(turn);
        r->turn++;
    }
    /* the finished game takes no move, not even the last one again */
    eng_move out[ENG_MAX_TURN_MOVES];
    char why[256] = "";
    if (last && r->c->parse_move(st, last, out, why, sizeof why) != ENG_EILLEGAL_MOVE)
        FAIL(r, "a finished game takes a move");
    json_decref(last);
    /* the whole record replays to the same scores */
    json_t *rec = rec_build(g, r->rules, all, nall, err, sizeof err);
    if (!rec)
        FAIL(r, "rec_build: %s", err);
    rec_replay rp;
    if (rec_replay_json(rec, NULL, NULL, &rp) != 0 || !rp.finished)
        FAIL(r, "the record does not replay: turn %d %s", rp.bad_turn, rp.reason);
    double sc[ENG_MAX_PLAYERS];
    g->scores(st, sc);
    for (int i = 0; i < r->rules->players; i++)
        if (sc[i] != rp.scores[i])
            FAIL(r, "the replay ends with other scores");
    json_decref(rec);
}

static void play_games(const eng_game *g, const eng_rules *rules, int games, uint64_t seed0,
                       long *turns)
{
    run r = {.g = g, .c = codec_find(g->name), .rules = rules};
    assert_non_null(r.c);
    int len = snprintf(r.label, sizeof r.label, "%s players=%d", g->name, rules->players);
    for (int o = 0; o < g->n_options && len < (int)sizeof r.label; o++)
        len += snprintf(r.label + len, sizeof r.label - (size_t)len, " %s=%d", g->options[o].name,
                        (int)rules->opt[o]);
    void *st = malloc(g->state_size), *start = malloc(g->state_size),
         *scratch = malloc(g->state_size);
    eng_move *all = malloc((size_t)g->max_plies * sizeof *all);
    assert_true(st && start && scratch && all);
    for (int i = 0; i < games; i++) {
        r.seed = seed0 + (uint64_t)i;
        play_one(&r, st, start, scratch, all);
        *turns += r.turn - 1;
    }
    free(st);
    free(start);
    free(scratch);
    free(all);
}

static void test_registries(void **unused)
{
    (void)unused;
    int ng, nc;
    const eng_game *const *games = eng_games(&ng);
    const game_codec *const *codecs = codec_all(&nc);
    assert_int_equal(nc, ng);
    for (int i = 0; i < ng; i++) {
        const game_codec *c = codec_find(games[i]->name);
        if (!c)
            fail_msg("game %s has no codec", games[i]->name);
        assert_string_equal(c->game, games[i]->name);
        assert_true(c->state && c->legal && c->parse_move && c->format_move && c->encode_turn &&
                    c->apply_turn);
        assert_true(codec_no_decision(c)[0]);
    }
    for (int i = 0; i < nc; i++) {
        assert_non_null(eng_find_game(codecs[i]->game));
        for (int j = 0; j < i; j++)
            assert_string_not_equal(codecs[j]->game, codecs[i]->game);
    }
    assert_null(codec_find("no_such_game"));
    assert_null(codec_find(NULL));
    assert_string_equal(codec_no_decision(NULL), "no decision");
}

static void test_random_games(void **unused)
{
    (void)unused;
    int ng;
    const eng_game *const *games = eng_games(&ng);
    for (int gi = 0; gi < ng; gi++) {
        const eng_game *g = games[gi];
        long turns = 0;
        int games_played = 0;
        /* about the same number of plies per game, whatever its length */
        int n = 3000 / g->max_plies;
        n = n < 4 ? 4 : n > 40 ? 40 : n;
        char err[256];
        for (int p = g->min_players; p <= g->max_players; p++) {
            eng_rules r;
            eng_rules_default(g, &r);
            char kv[32];
            snprintf(kv, sizeof kv, "players=%d", p);
            assert_int_equal(eng_rules_set(g, &r, kv, err, sizeof err), 0);
            play_games(g, &r, n, 1000 + (uint64_t)p * 97, &turns);
            games_played += n;
        }
        for (int o = 0; o < g->n_options; o++) {
            const eng_option *op = &g->options[o];
            if ((int64_t)op->max - op->min > 16)
                continue;
            for (int32_t v = op->min; v <= op->max; v++) {
                eng_rules r;
                eng_rules_default(g, &r);
                r.opt[o] = v;
                if (v == op->def || eng_rules_check(g, &r, err, sizeof err) != 0)
                    continue;
                play_games(g, &r, n / 2 + 1, 5000 + (uint64_t)o * 31 + (uint64_t)v, &turns);
                games_played += n / 2 + 1;
            }
        }
        print_message("      %-14s %d games, %ld turns\n", g->name, games_played, turns);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registries),
        cmocka_unit_test(test_random_games),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
