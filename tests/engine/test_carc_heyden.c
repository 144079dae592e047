/*
 * test_carc_heyden.c — Heyden's evaluation (Müller's thesis §4.4.4) on hand-built
 * positions, with the arithmetic worked out in each comment.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "engine/carcassonne/carcassonne.h"

static void play(carc_state *s, const char *const *steps, int n)
{
    for (int i = 0; i < n; i++) {
        eng_move m;
        if (carc_game.move_from_str(s, steps[i], &m) != 0)
            fail_msg("step %d '%s' refused", i, steps[i]);
        carc_game.apply(s, m);
    }
}

/* The initial position: equal scores, equal meeples, nothing controlled. */
static void test_initial_is_zero(void **state)
{
    (void)state;
    eng_rules r;
    eng_rules_default(&carc_game, &r);
    carc_state s;
    carc_game.init(&s, &r);
    assert_true(carc_heyden(&s, 0) == 0.0);
    assert_true(carc_heyden(&s, 1) == 0.0);
}

/* P0 extends the start tile's road west with a U and takes it (a meeple on
 * an incomplete road of 2 tiles): meeples 6 vs 7 -> 10 x (6 - 7) = -10;
 * incomplete non-city features: road worth 2 -> 10 x (2 - 0) = +20.
 * heyden(P0) = +10; for P1 everything is mirrored: -10 -> +10 x 1, -20:
 * 10 x (7 - 6) + 10 x (0 - 2) = -10. */
static void test_road_meeple(void **state)
{
    (void)state;
    eng_rules r;
    eng_rules_default(&carc_game, &r);
    carc_state s;
    carc_game.init(&s, &r);
    static const char *const steps[] = {"U", "U -1 0 0", "W"};
    play(&s, steps, 3);
    assert_true(carc_heyden(&s, 0) == 10.0);
    assert_true(carc_heyden(&s, 1) == -10.0);
}

/* P0 puts a meeple on the field north of the start road with a U west of
 * the start tile; that field touches the start tile's city, which is not
 * completed: the field is worth 0 now (< 3 cities, in fact 0 completed):
 * meeples -10, incomplete features +0, thin fields -40 => -50 for P0.
 * For P1: meeples +10, incomplete features 0 - 0 = 0 => +10. */
static void test_thin_field(void **state)
{
    (void)state;
    eng_rules r;
    eng_rules_default(&carc_game, &r);
    carc_state s;
    carc_game.init(&s, &r);
    static const char *const steps[] = {"U", "U -1 0 0", "N"};
    play(&s, steps, 3);
    assert_true(carc_heyden(&s, 0) == -50.0);
    assert_true(carc_heyden(&s, 1) == 10.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_initial_is_zero),
        cmocka_unit_test(test_road_meeple),
        cmocka_unit_test(test_thin_field),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
