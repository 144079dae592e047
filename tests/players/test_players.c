/*
 * test_players.c — the players interface (players/player.h) in whole
 * games: the example bots of docs/examples/ (Python, C) as external
 * programs against in-process bots, long-running and stateless, in
 * Carcassonne and Reversi; what tessera writes to a program, checked line by
 * line against docs/schema/stdio/; retries after an illegal move, restarts
 * of a program that quits, specs that are refused.
 *
 * Usage: test_players SRC_DIR C_BOT   (C_BOT: the compiled docs/examples/stdio_bot.c)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pthread.h>

#include <cmocka.h>

#include "driver.h"
#include "protocol/case_dirs.h"
#include "protocol/record.h"
#include "protocol/schema_check.h"

static const char *src_dir, *c_bot;
static char py_bot[4096], schema_dir[4096];
static int64_t move_ms = 10000; /* a loaded machine must not turn a test into a timeout */

static player *make(const char *spec, const eng_game *g)
{
    char err[512];
    player_config cfg;
    player_config_default(&cfg);
    player *p = player_create(spec, g, &cfg, err, sizeof err);
    if (!p)
        fail_msg("%s: %s", spec, err);
    return p;
}

/* Every move of the finished game makes a valid record. */
static void assert_record(const drv_game *d)
{
    char err[256];
    json_t *rec = rec_build(d->g, &d->rules, d->moves, d->nmoves, err, sizeof err);
    if (!rec)
        fail_msg("record: %s", err);
    rec_replay rp;
    assert_int_equal(rec_replay_json(rec, NULL, NULL, &rp), 0);
    assert_true(rp.finished);
    json_decref(rec);
}

static void assert_clean_game(const drv_game *d)
{
    if (d->nfaults)
        fail_msg("seat %d: %s: %s (stderr: %.300s)", d->fault_seat[0],
                 player_verdict_name(d->fault[0].verdict), d->fault[0].detail,
                 d->fault[0].stderr_tail);
    assert_true(d->finished);
    assert_record(d);
}

/* The recorder writes what it is told into a file of the test's: only
 * without the sandbox's mount namespace can it (an explicit opt-out of
 * this one sandbox; what the messages say does not depend on it). */
static player *make_recorder(const char *spec, const eng_game *g, player_config *cfg)
{
    char err[512];
    cfg->limits.disable = SANDBOX_P_MOUNTNS;
    player *p = player_create(spec, g, cfg, err, sizeof err);
    if (!p)
        fail_msg("%s: %s", spec, err);
    return p;
}

static void play_two(const char *spec0, const char *spec1, const char *game, uint64_t seed,
                     drv_game *d)
{
    const eng_game *g = eng_find_game(game);
    drv_init(d, g, 2, seed, move_ms);
    d->p[0] = make(spec0, g);
    d->p[1] = make(spec1, g);
    drv_play(d);
}

static void end_two(drv_game *d)
{
    player_destroy(d->p[0]);
    player_destroy(d->p[1]);
    drv_free(d);
}

/* The bar of issue 10: the Python example plays a full Carcassonne game as
 * an external program against an in-process bot, in either seat. */
static void test_python_example_carcassonne(void **state)
{
    (void)state;
    char spec[4200];
    snprintf(spec, sizeof spec, "cmd:python3 %s", py_bot);
    for (int seat = 0; seat < 2; seat++) {
        drv_game d;
        play_two(seat ? "heuristic" : spec, seat ? spec : "heuristic", "carcassonne", 11 + seat,
                 &d);
        assert_clean_game(&d);
        /* 71 draws, dead tiles aside: 35 or 36 turns each */
        assert_true(d.turns[seat] >= 30 && d.turns[1 - seat] >= 30);
        assert_true(d.cpu_ms[seat] > 0);
        assert_non_null(strstr(d.stderr_all[seat], "of a carcassonne game"));
        player_info info;
        player_get_info(d.p[seat], &info);
        assert_int_equal(info.starts, 1); /* long-running: one process for the game */
        assert_int_equal(info.failures, 0);
        /* fully isolated, root or not (sandbox_full: the pool's uid as root) */
        assert_int_equal(info.protections & sandbox_full(), sandbox_full());
        end_two(&d);
    }
}

static void test_c_example_carcassonne(void **state)
{
    (void)state;
    char spec[4200];
    snprintf(spec, sizeof spec, "cmd:%s", c_bot);
    drv_game d;
    play_two(spec, "mcts:sims=30", "carcassonne", 5, &d);
    assert_clean_game(&d);
    assert_non_null(strstr(d.stderr_all[0], "played entry"));
    end_two(&d);
}

/* Program against program, in a game the bots know nothing of. */
static void test_examples_reversi(void **state)
{
    (void)state;
    char s0[4200], s1[4200];
    snprintf(s0, sizeof s0, "cmd:%s", c_bot);
    snprintf(s1, sizeof s1, "cmd:python3 %s", py_bot);
    drv_game d;
    play_two(s0, s1, "reversi", 3, &d);
    assert_clean_game(&d);
    assert_true(d.turns[0] + d.turns[1] >= 20);
    end_two(&d);
}

/* Players are used from worker threads, several at once, in a process
 * with other threads (as the runner's and the server's pools do). */
typedef struct thread_game {
    char spec[4200];
    uint64_t seed;
    drv_game d;
    int faults;
} thread_game;

static void *thread_main(void *arg)
{
    thread_game *t = arg;
    const eng_game *g = eng_find_game("carcassonne");
    drv_init(&t->d, g, 2, t->seed, move_ms);
    char err[512];
    t->d.p[0] = player_create(t->spec, g, NULL, err, sizeof err);
    t->d.p[1] = player_create("random", g, NULL, err, sizeof err);
    t->faults = t->d.p[0] && t->d.p[1] ? drv_play(&t->d) : -1;
    return NULL;
}

static void test_games_on_threads(void **state)
{
    (void)state;
    thread_game t[4];
    pthread_t th[4];
    for (int i = 0; i < 4; i++) {
        memset(&t[i], 0, sizeof t[i]);
        if (i % 2)
            snprintf(t[i].spec, sizeof t[i].spec, "cmd:%s", c_bot);
        else
            snprintf(t[i].spec, sizeof t[i].spec, "cmd-stateless:%s", c_bot);
        t[i].seed = 40 + (uint64_t)i;
        assert_int_equal(pthread_create(&th[i], NULL, thread_main, &t[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        assert_int_equal(t[i].faults, 0);
        assert_true(t[i].d.finished);
        player_destroy(t[i].d.p[0]);
        player_destroy(t[i].d.p[1]);
        drv_free(&t[i].d);
    }
}

/* Stateless: a fresh process per turn, each with one self-contained line. */
static void test_stateless(void **state)
{
    (void)state;
    char spec[4200];
    snprintf(spec, sizeof spec, "cmd-stateless:python3 %s", py_bot);
    drv_game d;
    play_two("random", spec, "carcassonne", 8, &d);
    assert_clean_game(&d);
    player_info info;
    player_get_info(d.p[1], &info);
    assert_int_equal(info.starts, d.turns[1]);
    assert_int_equal(info.pid, 0); /* nothing left running between turns */
    end_two(&d);
}

/* Three seats: the C and Python examples and a bot. */
static void test_three_players(void **state)
{
    (void)state;
    const eng_game *g = eng_find_game("carcassonne");
    char s0[4200], s2[4200];
    snprintf(s0, sizeof s0, "cmd:%s", c_bot);
    snprintf(s2, sizeof s2, "cmd-stateless:%s", c_bot);
    drv_game d;
    drv_init(&d, g, 3, 21, move_ms);
    d.p[0] = make(s0, g);
    d.p[1] = make("heuristic", g);
    d.p[2] = make(s2, g);
    drv_play(&d);
    assert_clean_game(&d);
    for (int i = 0; i < 3; i++)
        player_destroy(d.p[i]);
    drv_free(&d);
}

/* What tessera writes to a long-running program over a whole game:
 * start, then your_turn and update lines, then game_over; each valid by its
 * schema; the updates' records are the game's turns in order; each update
 * names the seat and tile that come next, as the following your_turn has
 * them. */
static void test_messages_to_program(void **state)
{
    (void)state;
    char dir[] = "/tmp/tessera-test-XXXXXX";
    assert_non_null(mkdtemp(dir));
    chmod(dir, 0777); /* the program may run as nobody */
    char log[4200], spec[8400];
    snprintf(log, sizeof log, "%s/lines", dir);
    snprintf(spec, sizeof spec, "cmd:python3 %s/tests/players/progs/recorder.py %s", src_dir, log);
    drv_game d;
    const eng_game *cg = eng_find_game("carcassonne");
    drv_init(&d, cg, 2, 4, move_ms);
    d.p[0] = make("random", cg);
    player_config rcfg;
    player_config_default(&rcfg);
    d.p[1] = make_recorder(spec, cg, &rcfg);
    drv_play(&d);
    assert_clean_game(&d);
    /* the program reads game_over after we returned: give it a moment */
    player_destroy(d.p[1]);
    d.p[1] = make("random", d.g);
    char *text = case_slurp(log, NULL);
    assert_non_null(text);
    char err[256];
    json_t *rec = rec_build(d.g, &d.rules, d.moves, d.nmoves, err, sizeof err);
    json_t *turns = json_object_get(rec, "turns");
    int n = 0, updates = 0, asks = 0, starts = 0, overs = 0;
    json_t *last_next = NULL;
    for (char *line = text, *nl; line && *line; line = nl) {
        nl = strchr(line, '\n');
        if (nl)
            *nl++ = 0;
        json_t *msg = json_loads(line, 0, NULL);
        assert_non_null(msg);
        const char *type = json_string_value(json_object_get(msg, "type"));
        json_t *schema = schema_load(schema_dir, type);
        if (!schema || !schema_check(schema, msg, err, sizeof err))
            fail_msg("line %d (%s): %s", n + 1, type, err);
        json_decref(schema);
        if (n == 0) {
            assert_string_equal(type, "start");
            assert_int_equal(json_integer_value(json_object_get(msg, "seat")), 1);
            assert_int_equal(json_array_size(json_object_get(msg, "history")), 0);
            assert_string_equal(json_string_value(json_object_get(msg, "match")), "g1");
        }
        if (!strcmp(type, "start"))
            starts++;
        if (!strcmp(type, "update")) {
            json_t *want = json_array_get(turns, (size_t)updates);
            if (!json_equal(json_object_get(msg, "record"), want))
                fail_msg("update %d: record differs from the game's turn", updates + 1);
            updates++;
            assert_int_equal(json_integer_value(json_object_get(msg, "turn")), updates);
            json_decref(last_next);
            last_next = json_incref(json_object_get(msg, "next"));
        }
        if (!strcmp(type, "your_turn")) {
            asks++;
            json_t *st = json_object_get(msg, "state");
            assert_int_equal(json_integer_value(json_object_get(msg, "turn")), updates + 1);
            /* the last update announced this seat and this tile */
            if (last_next) {
                assert_int_equal(json_integer_value(json_object_get(last_next, "seat")), 1);
                assert_true(
                    json_equal(json_object_get(last_next, "tile"), json_object_get(st, "tile")));
            }
            assert_true(json_object_get(msg, "time_left_ms") != NULL);
            assert_null(json_object_get(msg, "history")); /* long-running: no history */
        }
        if (!strcmp(type, "game_over")) {
            overs++;
            assert_null(nl && *nl ? nl : NULL); /* the last line */
            assert_string_equal(
                json_string_value(json_object_get(json_object_get(msg, "result"), "reason")),
                "normal");
        }
        json_decref(msg);
        n++;
    }
    assert_int_equal(starts, 1);
    assert_int_equal(overs, 1);
    assert_int_equal(asks, d.turns[1]);
    assert_int_equal((size_t)updates, json_array_size(turns));
    json_decref(last_next);
    json_decref(rec);
    free(text);
    unlink(log);
    rmdir(dir);
    end_two(&d);
}

/* A program started mid-game (a server resuming a match): one `start` with
 * the history so far and the state now, no update per past turn; then its
 * turn. Every message also carries the fields of extra_fields, and the
 * example bots play on regardless. */
static void test_resume_and_extra_fields(void **state)
{
    (void)state;
    const eng_game *g = eng_find_game("carcassonne");
    const game_codec *w = codec_find(g->name);
    char dir[] = "/tmp/tessera-test-XXXXXX";
    assert_non_null(mkdtemp(dir));
    chmod(dir, 0777);
    char log[4200], spec[8400];
    snprintf(log, sizeof log, "%s/lines", dir);
    snprintf(spec, sizeof spec, "cmd:python3 %s/tests/players/progs/recorder.py %s", src_dir, log);
    player_config cfg;
    player_config_default(&cfg);
    json_t *extra = json_pack("{s:{s:s}}", "x_checker", "note", "an unknown field");
    cfg.extra_fields = extra;
    char err[512];
    player *p = make_recorder(spec, g, &cfg);
    cfg.limits.disable = 0;
    /* 30 plies or more of a random game, up to seat 1's decision */
    eng_rules r;
    eng_rules_default(g, &r);
    unsigned char *initial = malloc(g->state_size), *st = malloc(g->state_size);
    g->init(initial, &r);
    memcpy(st, initial, g->state_size);
    eng_move moves[256];
    int n = 0;
    eng_rng rng;
    eng_rng_seed(&rng, 77);
    while (n < 30 || g->current_player(st) != 1) {
        int q = g->current_player(st);
        moves[n] = q == ENG_CHANCE ? eng_sample_chance(g, st, &rng) : eng_random_move(g, st, &rng);
        g->apply(st, moves[n++]);
    }
    assert_int_equal(player_resume(p, initial, moves, n, 1, "r1"), 0);
    player_result *res = malloc(sizeof *res);
    assert_int_equal(player_turn(p, st, drv_now_ms() + (double)move_ms, NULL, res), PLAYER_OK);
    unsigned char *after = malloc(g->state_size);
    memcpy(after, st, g->state_size);
    assert_int_equal(res->nmoves, 2);
    for (int i = 0; i < res->nmoves; i++) {
        assert_true(eng_is_legal(g, after, res->moves[i]));
        g->apply(after, res->moves[i]);
    }
    free(after);
    player_destroy(p);
    /* what it was told */
    char *text = case_slurp(log, NULL);
    assert_non_null(text);
    char *second = strchr(text, '\n');
    assert_non_null(second);
    *second++ = 0;
    json_t *start = json_loads(text, 0, NULL),
           *yt = json_loads(second, JSON_DISABLE_EOF_CHECK, NULL);
    assert_string_equal(json_string_value(json_object_get(start, "type")), "start");
    assert_string_equal(json_string_value(json_object_get(yt, "type")), "your_turn");
    assert_true(
        json_equal(json_object_get(start, "x_checker"), json_object_get(extra, "x_checker")));
    assert_true(json_equal(json_object_get(yt, "x_checker"), json_object_get(extra, "x_checker")));
    json_t *mine = w->state(st);
    assert_true(json_equal(json_object_get(start, "state"), mine));
    /* the history replays to the position before this turn's draw */
    json_t *hist = json_object_get(start, "history");
    unsigned char *re = malloc(g->state_size);
    memcpy(re, initial, g->state_size);
    for (size_t i = 0; i < json_array_size(hist); i++)
        assert_int_equal(
            rec_apply_turn(g, re, json_array_get(hist, i), NULL, NULL, err, sizeof err), 0);
    g->apply(re, moves[n - 1]); /* the draw of the turn being played */
    assert_memory_equal(re, st, g->state_size);
    assert_int_equal(json_integer_value(json_object_get(yt, "turn")),
                     (json_int_t)json_array_size(hist) + 1);
    json_decref(mine);
    json_decref(start);
    json_decref(yt);
    free(text);
    free(re);
    unlink(log);
    rmdir(dir);

    /* the example bots ignore what they do not know */
    char s0[4200], s1[4200];
    snprintf(s0, sizeof s0, "cmd:%s", c_bot);
    snprintf(s1, sizeof s1, "cmd:python3 %s", py_bot);
    drv_game d;
    drv_init(&d, g, 2, 12, move_ms);
    d.p[0] = player_create(s0, g, &cfg, err, sizeof err);
    d.p[1] = player_create(s1, g, &cfg, err, sizeof err);
    drv_play(&d);
    assert_clean_game(&d);
    end_two(&d);
    json_decref(extra);
    free(res);
    free(st);
    free(initial);
}

/* A program that quits after each move is started again for the next,
 * with `start` and the history so far. */
static void test_restart_each_turn(void **state)
{
    (void)state;
    char spec[4200];
    snprintf(spec, sizeof spec, "cmd:python3 %s/tests/players/progs/oneshot.py", src_dir);
    const eng_game *g = eng_find_game("reversi");
    drv_game d;
    drv_init(&d, g, 2, 1, move_ms);
    d.p[0] = make(spec, g);
    d.p[1] = make("random", g);
    d.max_turns = 12;
    drv_play(&d);
    if (d.nfaults)
        fail_msg("%s: %s; %s", player_verdict_name(d.fault[0].verdict), d.fault[0].detail,
                 d.fault[0].stderr_tail);
    assert_int_equal(d.turns[0], 6);
    player_info info;
    player_get_info(d.p[0], &info);
    assert_int_equal(info.starts, 6);
    assert_int_equal(info.failures, 0);
    end_two(&d);
}

/* The same turn asked again after an illegal move: the program is told
 * why first. Lines printed outside the turn and unknown fields are noted,
 * not faults; debug comes back. */
static void test_retry_after_illegal(void **state)
{
    (void)state;
    char spec[4200];
    snprintf(spec, sizeof spec, "cmd:python3 %s/tests/players/progs/retry.py", src_dir);
    const eng_game *g = eng_find_game("carcassonne");
    player *p = make(spec, g);
    eng_rules r;
    eng_rules_default(g, &r);
    unsigned char *st = malloc(g->state_size);
    g->init(st, &r);
    assert_int_equal(player_new_game(p, st, 0, NULL), 0);
    eng_rng rng;
    eng_rng_seed(&rng, 9);
    eng_move m = eng_sample_chance(g, st, &rng);
    player_observe(p, st, m, NULL);
    g->apply(st, m);
    usleep(1500 * 1000); /* let it print its stray line */
    player_result *res = malloc(sizeof *res);
    assert_int_equal(player_turn(p, st, drv_now_ms() + (double)move_ms, NULL, res),
                     PLAYER_ILLEGAL_MOVE);
    assert_non_null(strstr(res->detail, "the cell is taken"));
    assert_non_null(strstr(res->note, "1 line printed outside its turn ignored"));
    assert_int_equal(player_turn(p, st, drv_now_ms() + (double)move_ms, NULL, res), PLAYER_OK);
    assert_int_equal(res->nmoves, 2);
    assert_string_equal(res->debug, "{\"tried\":2}");
    assert_non_null(strstr(res->note, "ignored fields: comment, id"));
    player_destroy(p);
    free(res);
    free(st);
}

/* What a thinking sink receives, in order. */
typedef struct seen_infos {
    json_t *list; /* array of copies */
    int seat;
} seen_infos;

static void keep_info(void *user, int seat, const json_t *info)
{
    seen_infos *s = user;
    s->seat = seat;
    json_array_append_new(s->list, json_deep_copy(info));
}

/* A program's info lines: the good ones passed on in canonical form, the
 * bad ones dropped and counted (the turn goes on), a burst paced (the first
 * at once, the latest held back) and the last before the move passed on. */
static void test_program_thinking(void **state)
{
    (void)state;
    char spec[4200];
    snprintf(spec, sizeof spec, "cmd:python3 %s/tests/players/progs/thinker.py", src_dir);
    const eng_game *g = eng_find_game("reversi");
    player *p = make(spec, g);
    seen_infos seen = {json_array(), -1};
    player_set_thinking(p, keep_info, &seen);
    eng_rules r;
    eng_rules_default(g, &r);
    unsigned char *st = malloc(g->state_size);
    g->init(st, &r);
    assert_int_equal(player_new_game(p, st, 0, NULL), 0);
    player_result *res = malloc(sizeof *res);
    assert_int_equal(player_turn(p, st, drv_now_ms() + (double)move_ms, NULL, res), PLAYER_OK);
    assert_int_equal(res->info_dropped, 3);
    assert_non_null(strstr(res->note, "info dropped: info: candidates[0].move"));
    /* "first", then at least one of the burst or the final at once (the
     * burst may straddle 100 ms on a loaded machine), and the final last */
    size_t n = json_array_size(seen.list);
    assert_int_equal((size_t)res->info_passed, n);
    assert_true(n >= 2 && n <= 4);
    assert_int_equal(seen.seat, 0);
    json_t *first = json_array_get(seen.list, 0), *last = json_array_get(seen.list, n - 1);
    assert_string_equal(json_string_value(json_object_get(first, "text")), "first");
    assert_int_equal(json_integer_value(json_object_get(first, "turn")), 1);
    assert_string_equal(json_string_value(json_object_get(last, "text")), "final");
    json_t *c0 = json_array_get(json_object_get(last, "candidates"), 0);
    assert_true(json_object_get(last, "type") == NULL); /* the body alone */
    /* the move is the one the last info named */
    char ms[ENG_MOVE_STR_MAX];
    g->move_to_str(st, res->moves[0], ms, sizeof ms);
    assert_string_equal(json_string_value(json_object_get(json_object_get(c0, "move"), "move")), ms);
    json_decref(seen.list);
    player_destroy(p);
    free(res);
    free(st);
}

/* An in-process MCTS bot tells its search while it thinks (about every
 * 200 ms) and once with its choice: candidates legal where it stands (the
 * sink gets them checked), most visited first, values in range; the last
 * names the move played first, in both games' forms. */
static void bot_thinking(const char *game, const char *spec, const char *value_key)
{
    const eng_game *g = eng_find_game(game);
    player *p = make(spec, g);
    seen_infos seen = {json_array(), -1};
    player_set_thinking(p, keep_info, &seen);
    eng_rules r;
    eng_rules_default(g, &r);
    unsigned char *st = malloc(g->state_size);
    g->init(st, &r);
    player_new_game(p, st, 0, NULL);
    eng_rng rng;
    eng_rng_seed(&rng, 5);
    while (g->current_player(st) == ENG_CHANCE) {
        eng_move m = eng_sample_chance(g, st, &rng);
        player_observe(p, st, m, NULL);
        g->apply(st, m);
    }
    player_result *res = malloc(sizeof *res);
    assert_int_equal(player_turn(p, st, drv_now_ms() + 30000, NULL, res), PLAYER_OK);
    size_t n = json_array_size(seen.list);
    assert_int_equal(res->info_dropped, 0);
    assert_int_equal((size_t)res->info_passed, n);
    assert_true(n >= 2); /* 700 ms of search: at its start, and the choice at least */
    size_t i;
    json_t *info;
    json_array_foreach(seen.list, i, info)
    {
        json_t *cands = json_object_get(info, "candidates");
        assert_true(json_array_size(cands) >= 1 && json_array_size(cands) <= 8);
        assert_true(json_integer_value(json_object_get(info, "iterations")) > 0);
        assert_non_null(json_object_get(info, value_key));
        for (size_t k = 2; k < json_array_size(cands); k++)
            assert_true(json_integer_value(json_object_get(json_array_get(cands, k - 1), "visits")) >=
                        json_integer_value(json_object_get(json_array_get(cands, k), "visits")));
    }
    /* iterations grow during the turn */
    assert_true(json_integer_value(json_object_get(json_array_get(seen.list, n - 1), "iterations")) >
                json_integer_value(json_object_get(json_array_get(seen.list, 0), "iterations")));
    json_t *last = json_array_get(seen.list, n - 1);
    json_t *played = codec_find(g->name)->format_move(st, res->moves, res->nmoves);
    json_t *c0 = json_object_get(json_array_get(json_object_get(last, "candidates"), 0), "move");
    if (!json_equal(played, c0)) {
        char *a = json_dumps(played, JSON_COMPACT), *b = json_dumps(c0, JSON_COMPACT);
        fail_msg("played %s, the last info's first candidate %s", a, b);
    }
    assert_true(json_equal(played, json_array_get(json_object_get(last, "pv"), 0)));
    json_decref(played);
    json_decref(seen.list);
    player_destroy(p);
    free(res);
    free(st);
}

static void test_bot_thinking(void **state)
{
    (void)state;
    bot_thinking("reversi", "mcts:ms=700,reward=winloss", "winprob");
    bot_thinking("carcassonne", "mcts:ms=700", "score"); /* placement and meeple in one */
    /* the rest of the family: at least the line of the choice, none dropped */
    static const char *const specs[] = {"flatmc:sims=300", "ucb1:sims=300",   "rave:sims=300",
                                        "ea-mcts:sims=600", "siea-mcts:sims=600",
                                        "ea-p-mcts:sims=600", "mcts-d2:sims=300",
                                        "evomcts:sims=300", "mcts:sims=300,threads=2"};
    const eng_game *g = eng_find_game("dodgem");
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        player *p = make(specs[i], g);
        seen_infos seen = {json_array(), -1};
        player_set_thinking(p, keep_info, &seen);
        eng_rules r;
        eng_rules_default(g, &r);
        unsigned char *st = malloc(g->state_size);
        g->init(st, &r);
        player_new_game(p, st, 0, NULL);
        player_result *res = malloc(sizeof *res);
        assert_int_equal(player_turn(p, st, drv_now_ms() + 30000, NULL, res), PLAYER_OK);
        if (res->info_dropped || json_array_size(seen.list) < 1)
            fail_msg("%s: %d infos passed, %d dropped (%s)", specs[i], res->info_passed,
                     res->info_dropped, res->note);
        json_decref(seen.list);
        player_destroy(p);
        free(res);
        free(st);
    }
}

static void test_in_process_bot(void **state)
{
    (void)state;
    const eng_game *g = eng_find_game("carcassonne");
    player *p = make("mcts:sims=200", g);
    assert_int_equal(player_get_kind(p), PLAYER_BOT);
    eng_rules r;
    eng_rules_default(g, &r);
    unsigned char *st = malloc(g->state_size);
    g->init(st, &r);
    player_new_game(p, st, 0, NULL);
    eng_rng rng;
    eng_rng_seed(&rng, 2);
    eng_move m = eng_sample_chance(g, st, &rng);
    player_observe(p, st, m, NULL);
    g->apply(st, m);
    player_result *res = malloc(sizeof *res);
    assert_int_equal(player_turn(p, st, drv_now_ms() + 5000, NULL, res), PLAYER_OK);
    assert_int_equal(res->nmoves, 2); /* placement and meeple: one turn */
    assert_true(res->sims >= 200);
    assert_true(res->cpu_ms > 0);
    /* a seat that is not to move */
    g->apply(st, res->moves[0]);
    g->apply(st, res->moves[1]);
    player_new_game(p, st, 1, NULL);
    assert_int_equal(player_turn(p, st, drv_now_ms() + 5000, NULL, res), PLAYER_INTERNAL);
    player_destroy(p);
    free(res);
    free(st);
}

static void test_bad_specs(void **state)
{
    (void)state;
    const eng_game *g = eng_find_game("carcassonne");
    static const struct {
        const char *spec, *want;
    } cases[] = {
        {"cmd:", "empty command"},
        {"cmd:   ", "empty command"},
        {"cmd:no-such-program-xyz --fast", "not found on PATH"},
        {"cmd:./no/such/file.py", "No such file"},
        {"nosuchbot", "nosuchbot"},
        {"mcts:k=x", "k"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char err[512] = "";
        player *p = player_create(cases[i].spec, g, NULL, err, sizeof err);
        if (p)
            fail_msg("%s: accepted", cases[i].spec);
        if (!strstr(err, cases[i].want))
            fail_msg("%s: '%s' does not say '%s'", cases[i].spec, err, cases[i].want);
    }
    char spec[4200], err0[512] = "";
    snprintf(spec, sizeof spec, "cmd-stateless:%s/README.md", src_dir);
    assert_null(player_create(spec, g, NULL, err0, sizeof err0));
    assert_non_null(strstr(err0, "not an executable file"));
    /* relative file arguments become absolute (the program runs elsewhere) */
    char cwd[4096];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(src_dir), 0);
    sandbox_cmd cmd;
    char err[256];
    assert_int_equal(sandbox_cmd_parse("python3  docs/examples/stdio_bot.py  --fast", NULL, &cmd,
                                       err, sizeof err),
                     0);
    assert_int_equal(cmd.argc, 3);
    /* the program runs as the path it was found at (a venv's python3
     * finds its venv so), and that path is absolute */
    assert_string_equal(cmd.argv[0], cmd.path);
    assert_non_null(strstr(cmd.path, "/python3"));
    assert_true(cmd.argv[1][0] == '/');
    assert_non_null(strstr(cmd.argv[1], "/docs/examples/stdio_bot.py"));
    assert_string_equal(cmd.argv[2], "--fast");
    assert_true(cmd.path[0] == '/');
    assert_int_equal(chdir(cwd), 0);
}

/* The program is the first on the caller's PATH, and runs as that path:
 * a virtual environment's python3 (a link to the system's) keeps its
 * environment, its packages import, and the program's log says which file
 * ran. Found by a student whose packages vanished: the sandbox ran
 * /usr/bin/python3 although the venv's came first on their PATH (issue
 * 30). */
static void test_interpreter_from_path(void **state)
{
    (void)state;
    char venv[] = "/tmp/tessera-venv-XXXXXX", path[4400], real[4096];
    assert_non_null(mkdtemp(venv));
    assert_int_equal(chmod(venv, 0755), 0);
    assert_non_null(realpath("/usr/bin/python3", real)); /* /usr/bin/python3.11 */
    const char *ver = strrchr(real, '/') + 1;
    char dirs[3][4300];
    snprintf(dirs[0], sizeof dirs[0], "%s/bin", venv);
    snprintf(dirs[1], sizeof dirs[1], "%s/lib/%s", venv, ver);
    snprintf(dirs[2], sizeof dirs[2], "%s/lib/%s/site-packages", venv, ver);
    snprintf(path, sizeof path, "%s/lib", venv);
    assert_int_equal(mkdir(path, 0755), 0);
    for (int i = 0; i < 3; i++)
        assert_int_equal(mkdir(dirs[i], 0755), 0);
    snprintf(path, sizeof path, "%s/bin/python3", venv);
    assert_int_equal(symlink("/usr/bin/python3", path), 0);
    snprintf(path, sizeof path, "%s/pyvenv.cfg", venv);
    FILE *f = fopen(path, "w");
    fprintf(f, "home = /usr/bin\ninclude-system-site-packages = false\n");
    fclose(f);
    snprintf(path, sizeof path, "%s/venvmark.py", dirs[2]);
    f = fopen(path, "w");
    fprintf(f, "MARK = 1\n");
    fclose(f);
    chmod(path, 0644);

    char *old_path = strdup(getenv("PATH"));
    char new_path[8400];
    snprintf(new_path, sizeof new_path, "%s/bin:%s", venv, old_path);
    setenv("PATH", new_path, 1);
    char spec[4300];
    snprintf(spec, sizeof spec, "cmd:python3 %s/tests/players/progs/venv_probe.py", src_dir);
    const eng_game *g = eng_find_game("reversi");
    player *p = make(spec, g);
    setenv("PATH", old_path, 1);
    free(old_path);
    eng_rules r;
    eng_rules_default(g, &r);
    unsigned char *st = malloc(g->state_size);
    g->init(st, &r);
    assert_int_equal(player_new_game(p, st, 0, NULL), 0);
    player_result *res = malloc(sizeof *res);
    if (player_turn(p, st, drv_now_ms() + (double)move_ms, NULL, res) != PLAYER_OK)
        fail_msg("%s: %s; %s", player_verdict_name(res->verdict), res->detail, res->stderr_tail);
    print_message("%s", res->stderr_tail);
    char want[4400];
    snprintf(want, sizeof want, "prefix=%s ", venv);
    assert_non_null(strstr(res->stderr_tail, want));
    assert_non_null(strstr(res->stderr_tail, "venvmark imported"));
    /* the log names the file that ran, and what it is a link to */
    snprintf(want, sizeof want, "[tessera] %s/bin/python3 (a link to %s) /bot/venv_probe.py", venv,
             real);
    assert_non_null(strstr(res->stderr_tail, want));
    player_destroy(p);
    free(res);
    free(st);
    unlink(path);
    snprintf(path, sizeof path, "%s/bin/python3", venv);
    unlink(path);
    snprintf(path, sizeof path, "%s/pyvenv.cfg", venv);
    unlink(path);
    for (int i = 2; i >= 0; i--)
        rmdir(dirs[i]);
    snprintf(path, sizeof path, "%s/lib", venv);
    rmdir(path);
    assert_int_equal(rmdir(venv), 0);
}

/* The caller's PYTHONPATH is the program's: a library kept outside the
 * program's folder (the kit of a checkout, PYTHONPATH=kit/python) is shown
 * read-only at its own path and imports in the sandbox (kit_doctor and
 * kit_server failed without it: ModuleNotFoundError); the log says so; a
 * folder that does not exist is left out; "/" and a folder the pool's uids
 * cannot read are refused, named. */
static void test_pythonpath_kept(void **state)
{
    (void)state;
    char lib[] = "/tmp/tessera-pylib-XXXXXX", path[4400];
    assert_non_null(mkdtemp(lib));
    assert_int_equal(chmod(lib, 0755), 0);
    snprintf(path, sizeof path, "%s/venvmark.py", lib);
    FILE *f = fopen(path, "w");
    fprintf(f, "MARK = 1\n");
    fclose(f);
    chmod(path, 0644);
    char *old = getenv("PYTHONPATH") ? strdup(getenv("PYTHONPATH")) : NULL;
    char pp[4400];
    snprintf(pp, sizeof pp, "/nonexistent/lib:%s", lib);
    setenv("PYTHONPATH", pp, 1);
    char spec[4300];
    snprintf(spec, sizeof spec, "cmd:python3 %s/tests/players/progs/venv_probe.py", src_dir);
    const eng_game *g = eng_find_game("reversi");
    player *p = make(spec, g);
    eng_rules r;
    eng_rules_default(g, &r);
    unsigned char *st = malloc(g->state_size);
    g->init(st, &r);
    assert_int_equal(player_new_game(p, st, 0, NULL), 0);
    player_result *res = malloc(sizeof *res);
    if (player_turn(p, st, drv_now_ms() + (double)move_ms, NULL, res) != PLAYER_OK)
        fail_msg("%s: %s; %s", player_verdict_name(res->verdict), res->detail, res->stderr_tail);
    print_message("%s", res->stderr_tail);
    char want[4400];
    snprintf(want, sizeof want, "venvmark imported from %s/venvmark.py", lib);
    assert_non_null(strstr(res->stderr_tail, want));
    snprintf(want, sizeof want, "/bot/venv_probe.py (PYTHONPATH=%s)", lib);
    assert_non_null(strstr(res->stderr_tail, want));
    player_destroy(p);

    /* refused, named */
    char err[512] = "";
    setenv("PYTHONPATH", "/", 1);
    assert_null(player_create(spec, g, NULL, err, sizeof err));
    if (!strstr(err, "PYTHONPATH names /"))
        fail_msg("'/': %s", err);
    if (geteuid() == 0) {
        assert_int_equal(chmod(lib, 0700), 0);
        setenv("PYTHONPATH", lib, 1);
        err[0] = 0;
        assert_null(player_create(spec, g, NULL, err, sizeof err));
        if (!strstr(err, "cannot read"))
            fail_msg("a folder of mode 0700: %s", err);
    }
    if (old)
        setenv("PYTHONPATH", old, 1);
    else
        unsetenv("PYTHONPATH");
    free(old);
    free(res);
    free(st);
    unlink(path);
    assert_int_equal(rmdir(lib), 0);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s SRC_DIR C_BOT\n", argv[0]);
        return 2;
    }
    src_dir = argv[1];
    c_bot = argv[2];
    snprintf(py_bot, sizeof py_bot, "%s/docs/examples/stdio_bot.py", src_dir);
    snprintf(schema_dir, sizeof schema_dir, "%s/docs/schema/stdio", src_dir);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_python_example_carcassonne),
        cmocka_unit_test(test_c_example_carcassonne),
        cmocka_unit_test(test_examples_reversi),
        cmocka_unit_test(test_stateless),
        cmocka_unit_test(test_games_on_threads),
        cmocka_unit_test(test_three_players),
        cmocka_unit_test(test_messages_to_program),
        cmocka_unit_test(test_restart_each_turn),
        cmocka_unit_test(test_resume_and_extra_fields),
        cmocka_unit_test(test_retry_after_illegal),
        cmocka_unit_test(test_program_thinking),
        cmocka_unit_test(test_bot_thinking),
        cmocka_unit_test(test_in_process_bot),
        cmocka_unit_test(test_bad_specs),
        cmocka_unit_test(test_interpreter_from_path),
        cmocka_unit_test(test_pythonpath_kept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
