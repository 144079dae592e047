/*
 * test_driver.c — the driver (tournament/driver.h) against a host of its
 * own: every game of a tournament started once and no more than
 * `concurrency` at a time; a host without room, or whose participants are
 * busy, starts nothing and changes nothing; a start the host refuses comes
 * back with its reason and leaves the game pending; a start whose record
 * cannot be kept is undone by the host (discard) with the ref it gave; a
 * lost game is played again. Results come from util.h's synthetic model.
 */
#include "util.h"

#include "engine/errors.h"
#include "tournament/driver.h"

/* A host that keeps the games it started, in order. */
typedef struct fake {
    int64_t started[256], nstarted; /* every start */
    int64_t running[64], nrun;      /* played, not ended yet */
    int room_after;                 /* room() says no this many times first */
    int refuse;                     /* start() returns this (0: starts) */
    bool fail_end;                  /* end(ok) returns false */
    int begins, ends_ok, ends_bad;
    int64_t discarded; /* the game discard() was called for, or -1 */
    char discarded_ref[64];
    int busy_participant; /* busy() is true for this one (-1: none) */
    int busy_asked;
} fake;

static bool f_room(void *user, const tour_game *g)
{
    (void)g;
    fake *f = user;
    if (f->room_after > 0) {
        f->room_after--;
        return false;
    }
    return true;
}

static int f_start(void *user, const tour_game *g, char *ref, size_t refcap, char *err,
                   size_t errcap)
{
    fake *f = user;
    if (f->refuse) {
        snprintf(err, errcap, "no such program");
        return f->refuse;
    }
    f->started[f->nstarted++] = g->id;
    snprintf(ref, refcap, "m%lld", (long long)g->id);
    return 0;
}

static void f_discard(void *user, const tour_game *g, const char *ref)
{
    fake *f = user;
    f->discarded = g->id;
    snprintf(f->discarded_ref, sizeof f->discarded_ref, "%s", ref);
}

static void f_play(void *user, const tour_game *g, const char *ref)
{
    fake *f = user;
    char want[32];
    snprintf(want, sizeof want, "m%lld", (long long)g->id);
    assert_string_equal(ref, want);
    f->running[f->nrun++] = g->id;
}

static bool f_busy(void *user, int participant)
{
    fake *f = user;
    f->busy_asked++;
    return participant == f->busy_participant;
}

static bool f_begin(void *user)
{
    fake *f = user;
    f->begins++;
    return true;
}

static bool f_end(void *user, bool ok)
{
    fake *f = user;
    if (ok && !f->fail_end) {
        f->ends_ok++;
        return true;
    }
    f->ends_bad++;
    return false;
}

static tour_host host_of(fake *f)
{
    return (tour_host){.room = f_room,
                       .start = f_start,
                       .discard = f_discard,
                       .play = f_play,
                       .busy = f_busy,
                       .begin = f_begin,
                       .end = f_end,
                       .user = f};
}

static tour *make(int n, int64_t gpp)
{
    spec_fixture fx;
    fixture(&fx, TOUR_ROUND_ROBIN, "reversi", 2, n, gpp);
    tour *t = NULL;
    char err[256];
    assert_int_equal(tour_create(&fx.spec, &t, err, sizeof err), 0);
    return t;
}

static void fresh(fake *f)
{
    memset(f, 0, sizeof *f);
    f->discarded = -1;
    f->busy_participant = -1;
}

/* End the oldest running game with the model's result. */
static void end_one(tour *t, fake *f, const model *m)
{
    assert_true(f->nrun > 0);
    tour_game g;
    assert_int_equal(tour_get_game(t, f->running[0], &g), 0);
    tour_result r;
    model_result(m, &g, &r);
    char err[256];
    assert_int_equal(tour_drive_ended(t, g.id, &r, err, sizeof err), 0);
    memmove(f->running, f->running + 1, (size_t)--f->nrun * sizeof *f->running);
}

static void test_whole_tournament(void **state)
{
    (void)state;
    int n = 5;
    tour *t = make(n, 4); /* 10 pairs x 4 games */
    model m = {.strength = strength_by_index, .user = &n, .seed = 3};
    fake f;
    fresh(&f);
    tour_host h = host_of(&f);
    char why[TOUR_DRIVE_WHY_MAX];
    int rounds = 0;
    while (!tour_is_done(t)) {
        int got = tour_drive(t, &h, 3, why, sizeof why);
        assert_true(got >= 0);
        tour_counts c;
        tour_get_counts(t, &c);
        assert_true(c.running <= 3);
        assert_int_equal(c.running, f.nrun);
        end_one(t, &f, &m);
        rounds++;
    }
    assert_int_equal(f.nstarted, 40);
    assert_int_equal(rounds, 40);
    for (int64_t i = 0; i < f.nstarted; i++) /* each game once */
        for (int64_t j = 0; j < i; j++)
            assert_true(f.started[i] != f.started[j]);
    assert_int_equal(f.begins, 40);
    assert_int_equal(f.ends_ok, 40);
    assert_int_equal(f.ends_bad, 0);
    assert_true(f.busy_asked > 0);
    tour_destroy(t);
}

static void test_no_room_changes_nothing(void **state)
{
    (void)state;
    tour *t = make(3, 2);
    fake f;
    fresh(&f);
    f.room_after = 1;
    tour_host h = host_of(&f);
    char why[TOUR_DRIVE_WHY_MAX];
    assert_int_equal(tour_drive(t, &h, 2, why, sizeof why), 0);
    tour_counts c;
    tour_get_counts(t, &c);
    assert_int_equal(c.running, 0);
    assert_int_equal(f.begins, 0); /* no transaction for a game that waits */
    assert_int_equal(tour_drive(t, &h, 2, why, sizeof why), 2);
    tour_destroy(t);
}

static void test_busy_participant_waits(void **state)
{
    (void)state;
    tour *t = make(4, 2);
    fake f;
    fresh(&f);
    f.busy_participant = 0;
    tour_host h = host_of(&f);
    char why[TOUR_DRIVE_WHY_MAX];
    assert_true(tour_drive(t, &h, 6, why, sizeof why) > 0);
    for (int64_t i = 0; i < f.nstarted; i++) {
        tour_game g;
        assert_int_equal(tour_get_game(t, f.started[i], &g), 0);
        assert_true(g.table[0] != 0 && g.table[1] != 0);
    }
    tour_destroy(t);
}

static void test_refused_start(void **state)
{
    (void)state;
    tour *t = make(3, 2);
    fake f;
    fresh(&f);
    f.refuse = ENG_EBAD_BOT_SPEC;
    tour_host h = host_of(&f);
    char why[TOUR_DRIVE_WHY_MAX];
    assert_int_equal(tour_drive(t, &h, 2, why, sizeof why), ENG_EBAD_BOT_SPEC);
    assert_err_has(why, "game 0 could not start: no such program");
    tour_counts c;
    tour_get_counts(t, &c);
    assert_int_equal(c.running, 0);
    assert_int_equal(c.pending, 6);
    assert_int_equal(f.ends_bad, 1); /* the transaction rolled back */
    assert_false(tour_is_paused(t)); /* what follows is the caller's to decide */
    tour_destroy(t);
}

static void test_record_not_kept(void **state)
{
    (void)state;
    tour *t = make(3, 2);
    fake f;
    fresh(&f);
    f.fail_end = true;
    tour_host h = host_of(&f);
    char why[TOUR_DRIVE_WHY_MAX];
    assert_int_equal(tour_drive(t, &h, 2, why, sizeof why), ENG_ESTORAGE);
    assert_err_has(why, "refused a write");
    assert_int_equal(f.discarded, 0);
    assert_string_equal(f.discarded_ref, "m0");
    assert_int_equal(f.nrun, 0); /* never played */
    tour_destroy(t);
}

static void test_lost_game_played_again(void **state)
{
    (void)state;
    tour *t = make(2, 2);
    fake f;
    fresh(&f);
    tour_host h = host_of(&f);
    char why[TOUR_DRIVE_WHY_MAX];
    assert_int_equal(tour_drive(t, &h, 1, why, sizeof why), 1);
    int64_t first = f.running[0];
    assert_int_equal(tour_drive_lost(t, first), 0);
    f.nrun = 0;
    assert_int_equal(tour_drive(t, &h, 1, why, sizeof why), 1);
    assert_int_equal(f.running[0], first);
    assert_int_equal(f.nstarted, 2);
    tour_destroy(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_whole_tournament),
        cmocka_unit_test(test_no_room_changes_nothing),
        cmocka_unit_test(test_busy_participant_waits),
        cmocka_unit_test(test_refused_start),
        cmocka_unit_test(test_record_not_kept),
        cmocka_unit_test(test_lost_game_played_again),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
