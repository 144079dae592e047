/*
 * test_runner.c — the local tournament runner (tournament/runner.h) playing
 * real games: every game's record is stored with its result and verifies
 * against its revealed chance seed; the games of a group share their tiles;
 * turns carry think_ms and wait_ms; faulty programs (tests/players/bad/)
 * forfeit or get random turns per policy, with their verdicts, time losses
 * and faults in the standings; a raised stop flag puts running games back
 * to pending and a second run finishes exactly the schedule; results do not
 * depend on the concurrency.
 *
 * Usage: test_runner SRC_DIR
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "protocol/chance.h"
#include "protocol/record.h"
#include "tournament/runner.h"
#include "tournament/standings.h"
#include "tournament/store.h"

static const char *src_dir;

static tour *make(const char *game, tour_format f, const char *const *specs, int n, int64_t gpp,
                  uint64_t seed)
{
    static tour_participant parts[16];
    static char names[16][16];
    for (int i = 0; i < n; i++) {
        snprintf(names[i], sizeof names[i], "p%d", i);
        parts[i].name = names[i];
        parts[i].spec = specs[i];
    }
    tour_spec s;
    tour_spec_init(&s);
    s.format = f;
    s.game = eng_find_game(game);
    eng_rules_default(s.game, &s.rules);
    s.participants = parts;
    s.nparticipants = n;
    s.games_per_pair = gpp;
    s.seed = seed;
    tour *t = NULL;
    char err[256];
    if (tour_create(&s, &t, err, sizeof err))
        fail_msg("tour_create: %s", err);
    return t;
}

static void run_ok(tour *t, tour_run_config *c, tour_run_stats *st)
{
    char err[768];
    int rc = tour_run(t, c, st, err, sizeof err);
    if (rc)
        fail_msg("tour_run: %s", err);
}

/* ---- records, chance, times ------------------------------------------------------ */

typedef struct seen {
    int ends;    /* on_end calls */
    int bad;     /* problems found on worker threads (no cmocka there) */
    int commits; /* on_start calls */
    char commit[64][CHANCE_COMMIT_HEX];
} seen;

static void on_start(const tour_game *g, const char *commitment, void *user)
{
    seen *s = user;
    s->commits++;
    if (g->id < 0 || g->id >= 64 || strlen(commitment) != 64)
        s->bad++;
    else
        snprintf(s->commit[g->id], sizeof s->commit[g->id], "%s", commitment);
}

static void on_end(const tour_run_game *info, void *user)
{
    seen *s = user;
    s->ends++;
    if (!info->record || !info->result || !info->result->record ||
        strcmp(info->commitment, s->commit[info->game->id]) != 0)
        s->bad++;
}

/* The tiles of a Carcassonne record, as letters. */
static void tiles_of(const json_t *rec, char *out, size_t cap)
{
    size_t o = 0;
    const json_t *turns = json_object_get(rec, "turns");
    for (size_t i = 0; i < json_array_size(turns) && o + 1 < cap; i++)
        out[o++] = json_string_value(json_object_get(json_array_get(turns, i), "tile"))[0];
    out[o] = 0;
}

static void test_records_verify(void **state)
{
    (void)state;
    char db[] = "/tmp/tessera-runner-XXXXXX";
    int fd = mkstemp(db);
    assert_true(fd >= 0);
    close(fd);
    tour_store *store;
    char err[512];
    assert_int_equal(tour_store_open(db, &store, err, sizeof err), 0);
    const char *specs[] = {"random", "heuristic", "mcts:sims=10"};
    tour *t = make("carcassonne", TOUR_ROUND_ROBIN, specs, 3, 4, 9);
    int64_t tid;
    assert_int_equal(tour_store_create(store, t, &tid, err, sizeof err), 0);
    seen *sn = calloc(1, sizeof *sn);
    tour_run_config c;
    tour_run_config_default(&c);
    c.concurrency = 2;
    c.records = true;
    c.on_start = on_start;
    c.on_end = on_end;
    c.user = sn;
    tour_run_stats st;
    run_ok(t, &c, &st);
    assert_true(tour_is_done(t));
    int64_t n = tour_game_count(t);
    assert_int_equal(n, 12); /* 3 pairs x 4 games */
    assert_int_equal(st.played, 12);
    assert_int_equal(sn->ends, 12);
    assert_int_equal(sn->commits, 12);
    assert_int_equal(sn->bad, 0);
    assert_int_equal(st.threads, 2);

    char tiles[12][80];
    for (int64_t id = 0; id < n; id++) {
        char *text = NULL;
        assert_int_equal(tour_store_record(store, tid, id, &text, err, sizeof err), 1);
        json_error_t je;
        json_t *rec = json_loads(text, JSON_REJECT_DUPLICATES, &je);
        assert_non_null(rec);
        rec_replay rp;
        int rc = rec_verify_chance(rec, &rp);
        if (rc)
            fail_msg("game %lld: turn %d: %s", (long long)id, rp.bad_turn, rp.reason);
        assert_true(rp.finished);
        /* the commitment handed out before the game is the record's */
        assert_string_equal(
            json_string_value(json_object_get(json_object_get(rec, "chance"), "commitment")),
            sn->commit[id]);
        /* its result is the tournament's */
        tour_result r;
        assert_int_equal(tour_get_result(t, id, &r), 0);
        assert_true(rp.scores[0] == r.score[0] && rp.scores[1] == r.score[1]);
        /* every turn a seat played carries its times; discards none */
        const json_t *turns = json_object_get(rec, "turns");
        int timed = 0;
        for (size_t i = 0; i < json_array_size(turns); i++) {
            const json_t *tn = json_array_get(turns, i);
            bool discard = json_is_true(json_object_get(tn, "discarded"));
            const json_t *th = json_object_get(tn, "think_ms"),
                         *wt = json_object_get(tn, "wait_ms");
            assert_true(discard ? !th && !wt : json_is_integer(th) && json_is_integer(wt));
            if (!discard) {
                timed++;
                assert_true(json_integer_value(th) >= 0 && json_integer_value(wt) >= 0);
            }
        }
        assert_true(timed >= 60);
        tiles_of(rec, tiles[id], sizeof tiles[id]);
        assert_int_equal(strlen(tiles[id]), 71);
        json_decref(rec);
        free(text);
    }
    /* the two games of a group see the same tiles; groups differ */
    for (int64_t id = 0; id < n; id += 2) {
        assert_string_equal(tiles[id], tiles[id + 1]);
        if (id)
            assert_string_not_equal(tiles[id], tiles[0]);
    }
    /* the k-th draw is eng_chance_draw(seed, k): game 0's first tile */
    tour_game g0;
    tour_get_game(t, 0, &g0);
    const eng_game *g = eng_find_game("carcassonne");
    void *s0 = malloc(g->state_size);
    eng_rules rules;
    eng_rules_default(g, &rules);
    g->init(s0, &rules);
    char first[ENG_MOVE_STR_MAX];
    g->move_to_str(s0, eng_chance_draw(g, s0, g0.chance_seed, 0), first, sizeof first);
    assert_int_equal(first[0], tiles[0][0]);
    free(s0);

    /* time use reaches the standings */
    tour_standings *s = tour_standings_new(t);
    for (int i = 0; i < 3; i++) {
        assert_true(s->rows[i].moves > 0);
        assert_true(s->rows[i].time_ms >= 0);
        assert_int_equal(s->rows[i].time_losses, 0);
        assert_int_equal(s->rows[i].faults, 0);
    }
    const tour_row *mc = tour_standings_row(s, 2);
    assert_true(mc->time_ms > 0); /* mcts thinks measurably */
    tour_standings_free(s);
    tour_store_detach(t);
    tour_destroy(t);
    tour_store_close(store);
    free(sn);
    unlink(db);
    char wal[64];
    snprintf(wal, sizeof wal, "%s-wal", db);
    unlink(wal);
    snprintf(wal, sizeof wal, "%s-shm", db);
    unlink(wal);
}

/* ---- faults ------------------------------------------------------------------------- */

static void bad_spec(char *buf, size_t cap, const char *prog)
{
    snprintf(buf, cap, "cmd:python3 %s/tests/players/bad/%s", src_dir, prog);
}

/* A program that answers with an illegal move forfeits every game. */
static void test_fault_forfeit_illegal(void **state)
{
    (void)state;
    char prog[4200];
    bad_spec(prog, sizeof prog, "illegal.py");
    const char *specs[] = {"random", prog};
    tour *t = make("carcassonne", TOUR_ROUND_ROBIN, specs, 2, 2, 3);
    tour_run_config c;
    tour_run_config_default(&c);
    c.records = true;
    c.move_ms = 10000;
    tour_run_stats st;
    run_ok(t, &c, &st);
    assert_true(tour_is_done(t));
    for (int64_t id = 0; id < 2; id++) {
        tour_game gm;
        tour_result r;
        tour_get_game(t, id, &gm);
        assert_int_equal(tour_get_result(t, id, &r), 0);
        int ps = gm.table[0] == 1 ? 0 : 1; /* the program's seat */
        assert_int_equal(r.end, TOUR_END_ILLEGAL);
        assert_int_equal(r.culprit, ps);
        assert_int_equal(r.rank[ps], 2);
        assert_int_equal(r.rank[1 - ps], 1);
        assert_false(r.time_loss[ps]);
        assert_non_null(r.verdict);
        assert_non_null(strstr(r.verdict, "illegal_move"));
    }
    tour_standings *s = tour_standings_new(t);
    const tour_row *p = tour_standings_row(s, 1), *rnd = tour_standings_row(s, 0);
    assert_int_equal(p->faults, 2);
    assert_int_equal(p->losses, 2);
    assert_int_equal(rnd->wins, 2);
    assert_int_equal(rnd->faults, 0);
    tour_standings_free(s);
    tour_destroy(t);
}

/* A program that sleeps through its turn loses on time. */
static void test_fault_timeout(void **state)
{
    (void)state;
    char prog[4200];
    bad_spec(prog, sizeof prog, "sleep.py");
    const char *specs[] = {prog, "random"};
    tour *t = make("reversi", TOUR_ROUND_ROBIN, specs, 2, 2, 3);
    tour_run_config c;
    tour_run_config_default(&c);
    c.move_ms = 300;
    c.concurrency = 2;
    tour_run_stats st;
    run_ok(t, &c, &st);
    tour_standings *s = tour_standings_new(t);
    const tour_row *p = tour_standings_row(s, 0);
    assert_int_equal(p->time_losses, 2);
    assert_int_equal(p->faults, 2);
    assert_int_equal(p->losses, 2);
    for (int64_t id = 0; id < 2; id++) {
        tour_result r;
        assert_int_equal(tour_get_result(t, id, &r), 0);
        assert_int_equal(r.end, TOUR_END_TIMEOUT);
        assert_true(r.time_loss[r.culprit]);
    }
    tour_standings_free(s);
    tour_destroy(t);
}

/* With the random policy the games go on and end normally. */
static void test_fault_random_policy(void **state)
{
    (void)state;
    char prog[4200];
    bad_spec(prog, sizeof prog, "illegal.py");
    const char *specs[] = {prog, "random"};
    tour *t = make("carcassonne", TOUR_ROUND_ROBIN, specs, 2, 2, 5);
    tour_run_config c;
    tour_run_config_default(&c);
    c.policy = TOUR_FAULT_RANDOM;
    c.records = true;
    seen *sn = calloc(1, sizeof *sn);
    c.on_start = on_start;
    c.on_end = on_end;
    c.user = sn;
    tour_run_stats st;
    run_ok(t, &c, &st);
    assert_int_equal(sn->bad, 0);
    for (int64_t id = 0; id < 2; id++) {
        tour_result r;
        assert_int_equal(tour_get_result(t, id, &r), 0);
        assert_int_equal(r.end, TOUR_END_NORMAL);
        assert_int_equal(r.culprit, -1);
        assert_non_null(r.verdict);
        assert_non_null(strstr(r.verdict, "random turns played"));
    }
    tour_standings *s = tour_standings_new(t);
    assert_int_equal(tour_standings_row(s, 0)->faults, 0); /* no game ended by it */
    tour_standings_free(s);
    tour_destroy(t);
    free(sn);
}

/* ---- stop and resume ------------------------------------------------------------------ */

typedef struct stopper {
    atomic_bool flag;
    int ends, after;
} stopper;

static void stop_after(const tour_run_game *info, void *user)
{
    (void)info;
    stopper *s = user;
    if (++s->ends >= s->after)
        atomic_store(&s->flag, true);
}

static void test_stop_and_continue(void **state)
{
    (void)state;
    const char *specs[] = {"random", "mcts:sims=30"};
    tour *t = make("carcassonne", TOUR_ROUND_ROBIN, specs, 2, 16, 2);
    stopper sp = {.after = 3};
    atomic_init(&sp.flag, false);
    tour_run_config c;
    tour_run_config_default(&c);
    c.concurrency = 2;
    c.stop = &sp.flag;
    c.on_end = stop_after;
    c.user = &sp;
    tour_run_stats st;
    run_ok(t, &c, &st);
    assert_true(st.stopped);
    assert_false(tour_is_done(t));
    tour_counts k;
    tour_get_counts(t, &k);
    assert_int_equal(k.running, 0);
    assert_int_equal(k.done, st.played);
    assert_true(st.played >= 3 && st.played < 16);
    assert_int_equal(k.pending, 16 - k.done);
    int64_t first = st.played;
    /* again, without stopping: exactly the rest */
    atomic_store(&sp.flag, false);
    c.stop = NULL;
    run_ok(t, &c, &st);
    assert_false(st.stopped);
    assert_true(tour_is_done(t));
    assert_int_equal(st.played, 16 - first);
    tour_get_counts(t, &k);
    assert_int_equal(k.done, 16);
    tour_destroy(t);
}

/* ---- determinism ------------------------------------------------------------------------- */

static void test_same_results_any_concurrency(void **state)
{
    (void)state;
    const char *specs[] = {"random", "heuristic", "mcts:sims=15"};
    double sc[2][12][2];
    for (int pass = 0; pass < 2; pass++) {
        tour *t = make("carcassonne", TOUR_ROUND_ROBIN, specs, 3, 4, 77);
        tour_run_config c;
        tour_run_config_default(&c);
        c.concurrency = pass ? 3 : 1;
        tour_run_stats st;
        run_ok(t, &c, &st);
        for (int64_t id = 0; id < 12; id++) {
            tour_result r;
            assert_int_equal(tour_get_result(t, id, &r), 0);
            sc[pass][id][0] = r.score[0];
            sc[pass][id][1] = r.score[1];
        }
        tour_destroy(t);
    }
    assert_memory_equal(sc[0], sc[1], sizeof sc[0]);
}

/* ---- specs ------------------------------------------------------------------------------ */

static void test_check_spec(void **state)
{
    (void)state;
    const eng_game *g = eng_find_game("carcassonne");
    player_config pc;
    player_config_default(&pc);
    char err[512];
    assert_int_equal(tour_run_check_spec("mcts:sims=10", g, &pc, err, sizeof err), 0);
    assert_int_equal(tour_run_check_spec("nosuchbot", g, &pc, err, sizeof err), ENG_EUNKNOWN_BOT);
    assert_int_equal(tour_run_check_spec("mcts:sims=x", g, &pc, err, sizeof err),
                     ENG_EBAD_BOT_SPEC);
    assert_int_equal(tour_run_check_spec("remote:alice", g, &pc, err, sizeof err), ENG_EINVAL);
    assert_non_null(strstr(err, "registered with a server"));
    assert_int_equal(tour_run_check_spec("cmd:/no/such/program", g, &pc, err, sizeof err),
                     ENG_EINVAL);
    assert_int_equal(tour_run_check_spec("", g, &pc, err, sizeof err), ENG_EINVAL);
    /* tour_run names the participant */
    const char *specs[] = {"random", "nosuchbot"};
    tour *t = make("carcassonne", TOUR_ROUND_ROBIN, specs, 2, 2, 1);
    tour_run_config c;
    tour_run_config_default(&c);
    assert_int_equal(tour_run(t, &c, NULL, err, sizeof err), ENG_EUNKNOWN_BOT);
    assert_non_null(strstr(err, "participant p1"));
    c.concurrency = 0;
    assert_int_equal(tour_run(t, &c, NULL, err, sizeof err), ENG_EINVAL);
    tour_destroy(t);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_runner SRC_DIR\n");
        return 2;
    }
    src_dir = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_records_verify),
        cmocka_unit_test(test_fault_forfeit_illegal),
        cmocka_unit_test(test_fault_timeout),
        cmocka_unit_test(test_fault_random_policy),
        cmocka_unit_test(test_stop_and_continue),
        cmocka_unit_test(test_same_results_any_concurrency),
        cmocka_unit_test(test_check_spec),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
