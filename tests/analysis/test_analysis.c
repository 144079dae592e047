/*
 * test_analysis.c — analysis/ (docs/analysis.md) on games played here by
 * our bots, and on bad input:
 *   - a Reversi game in which one seat gives a corner away (the scripted bad
 *     move) is marked a blunder there, and the better move the analysis
 *     gives leaves the opponent no corner;
 *   - a game of two identical strong bots has no blunder and few marks;
 *   - Carcassonne: first-move value + luck + skill = the final score
 *     difference, exactly; luck is not zero; the same seed gives the same
 *     report;
 *   - every game analysed (the four of the registry);
 *   - four seats of Carcassonne: a turn that completes a city but leaves
 *     its points unclaimed (the scripted bad move) is marked a mistake or
 *     blunder, the better turn scores them (the record cut two turns after:
 *     a record that stops early); every seat's luck + skill = its
 *     final lead; five seats analyse at a small budget;
 *   - bad records fail as rec_replay_json fails (code, turn, reason), specs
 *     that cannot analyse (reward=, no value per seat), the stop flag;
 *   - with mcts-d2 (its check plays a winning move without a search), a
 *     turn that can win the game at once is valued as the win it is, and a
 *     turn with one move that does not lose at once gets that move's value;
 *   - cases/: records that broke the analysis once (the folder is the
 *     test's argument), analysed whole.
 * Budgets are in simulations, so every figure is the same on any machine.
 */
#include <setjmp.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/analysis.h"
#include "bots/bot.h"
#include "protocol/record.h"

/* A hook that may replace the move a game's bot chose at ply `ply`. */
typedef eng_move (*pick_fn)(void *ud, const eng_game *g, const void *st, int ply, eng_move chosen);

/* Play a game of g (default rules, np seats) between bots specs[0..np),
 * chance by seed; returns its record (new reference). */
static json_t *play_n(const char *game, int np, const char *const *specs, uint64_t seed,
                      pick_fn pick, void *ud)
{
    const eng_game *g = eng_find_game(game);
    assert_non_null(g);
    eng_rules rules;
    eng_rules_default(g, &rules);
    rules.players = np;
    char err[256] = "";
    bot *b[ENG_MAX_PLAYERS];
    for (int p = 0; p < np; p++) {
        b[p] = bot_create(specs[p], g, seed + (uint64_t)p, err, sizeof err);
        assert_non_null(b[p]);
    }
    void *st = malloc(g->state_size);
    assert_int_equal(eng_init(g, st, &rules, err, sizeof err), 0);
    eng_move *moves = malloc((size_t)g->max_plies * sizeof *moves);
    int n = 0, chance = 0, ply = 0;
    for (int cp; (cp = g->current_player(st)) != ENG_TERMINAL;) {
        eng_move m;
        if (cp == ENG_CHANCE) {
            m = eng_chance_draw(g, st, seed, (uint64_t)chance++);
        } else {
            m = bot_choose(b[cp], st, NULL, NULL);
            if (pick)
                m = pick(ud, g, st, ply, m);
            ply++;
        }
        assert_true(eng_is_legal(g, st, m));
        for (int p = 0; p < np; p++)
            bot_observe(b[p], st, m);
        g->apply(st, m);
        moves[n++] = m;
    }
    json_t *rec = rec_build(g, &rules, moves, n, err, sizeof err);
    assert_non_null(rec);
    free(moves);
    free(st);
    for (int p = 0; p < np; p++)
        bot_destroy(b[p]);
    return rec;
}

/* A game of two seats: spec0 against spec1. */
static json_t *play(const char *game, const char *spec0, const char *spec1, uint64_t seed,
                    pick_fn pick, void *ud)
{
    const char *specs[2] = {spec0, spec1};
    return play_n(game, 2, specs, seed, pick, ud);
}

static void expect_fail(const json_t *rec, const char *spec, int code, const char *reason_part);

static ana_report *analyse(const json_t *rec, const char *spec, int64_t sims, int64_t chance_sims)
{
    ana_opts o = {.bot = spec, .seed = 1, .sims = sims, .chance_sims = chance_sims};
    ana_report *r = NULL;
    rec_replay why;
    int rc = ana_run(rec, &o, &r, &why);
    if (rc)
        fail_msg("ana_run: %s (turn %d: %s)", eng_err_code(rc), why.bad_turn, why.reason);
    return r;
}

/* ---- Reversi: a corner given away ------------------------------------------------- */

static bool is_corner(const eng_game *g, const void *st, eng_move m)
{
    char s[ENG_MOVE_STR_MAX];
    g->move_to_str(st, m, s, sizeof s);
    return !strcmp(s, "a1") || !strcmp(s, "h1") || !strcmp(s, "a8") || !strcmp(s, "h8");
}

/* What m gives the opponent: 0 when it leaves no corner to take, else 1 +
 * the discs the opponent's best corner capture then gains on the mover. */
static double corners_after(const eng_game *g, const void *st, eng_move m)
{
    unsigned char after[4096], taken[4096];
    assert_true(g->state_size <= sizeof after);
    memcpy(after, st, g->state_size);
    int me = g->current_player(st);
    g->apply(after, m);
    eng_move legal[64];
    int n = g->legal_moves(after, legal);
    double best = 0;
    for (int i = 0; i < n; i++) {
        if (!is_corner(g, after, legal[i]))
            continue;
        double sc[ENG_MAX_PLAYERS];
        memcpy(taken, after, g->state_size);
        g->apply(taken, legal[i]);
        g->scores(taken, sc);
        double gain = 1 + sc[1 - me] - sc[me] + 64;
        best = gain > best ? gain : best;
    }
    return best;
}

typedef struct giveaway {
    int from;         /* the earliest ply at which to give a corner away */
    int ply;          /* the ply at which it was given (-1 before) */
    char played[8];   /* the move that gave it */
} giveaway;

/* From ply gv->from on, at the first position where the mover has no corner
 * to take and has moves that let the opponent take one as well as moves that
 * do not, the mover plays the one that gives the most away (the corner
 * capture that gains the opponent the most discs); at the
 * next ply the opponent takes it. */
static eng_move give_corner(void *ud, const eng_game *g, const void *st, int ply, eng_move chosen)
{
    giveaway *gv = ud;
    eng_move legal[64];
    int n = g->legal_moves(st, legal);
    if (gv->ply < 0 && ply >= gv->from) {
        int giving = -1, keeping = 0, own = 0;
        double most = 0;
        for (int i = 0; i < n; i++) {
            own += is_corner(g, st, legal[i]);
            double gift = corners_after(g, st, legal[i]);
            if (gift > most) {
                most = gift;
                giving = i;
            } else if (gift == 0) {
                keeping++;
            }
        }
        if (giving >= 0 && keeping > 0 && !own) {
            gv->ply = ply;
            g->move_to_str(st, legal[giving], gv->played, sizeof gv->played);
            return legal[giving];
        }
    }
    if (gv->ply >= 0 && ply == gv->ply + 1)
        for (int i = 0; i < n; i++)
            if (is_corner(g, st, legal[i]))
                return legal[i];
    return chosen;
}

static void test_reversi_corner_blunder(void **state)
{
    (void)state;
    giveaway gv = {.from = 12, .ply = -1};
    json_t *rec = play("reversi", "mcts:sims=1500", "mcts:sims=1500", 11, give_corner, &gv);
    assert_true(gv.ply >= gv.from);
    ana_report *r = analyse(rec, NULL, 0, 0); /* the default search */
    json_t *j = ana_json(r);
    json_t *t = json_array_get(json_object_get(j, "turns"), (size_t)gv.ply);
    assert_int_equal(json_integer_value(json_object_get(t, "turn")), gv.ply + 1);
    assert_string_equal(json_string_value(json_object_get(t, "played")), gv.played);
    const char *mark = json_string_value(json_object_get(t, "mark"));
    const char *best = json_string_value(json_object_get(t, "best"));
    double loss = json_real_value(json_object_get(json_object_get(t, "loss"), "win"));
    print_message("turn %d: %s played (win %.3f), %s better (win %.3f), loss %.3f, %s\n",
                  gv.ply + 1, gv.played,
                  json_real_value(json_object_get(json_object_get(t, "played_value"), "win")), best,
                  json_real_value(json_object_get(json_object_get(t, "best_value"), "win")), loss,
                  mark ? mark : "unmarked");
    assert_non_null(mark);
    assert_string_equal(mark, "blunder");
    assert_string_not_equal(best, gv.played);
    /* the better move leaves the opponent no corner */
    const eng_game *g = eng_find_game("reversi");
    unsigned char st[4096];
    eng_rules rules;
    eng_rules_default(g, &rules);
    assert_int_equal(eng_init(g, st, &rules, NULL, 0), 0);
    json_t *turns = json_object_get(rec, "turns");
    for (int k = 0; k < gv.ply; k++)
        assert_int_equal(rec_apply_turn(g, st, json_array_get(turns, (size_t)k), NULL, NULL, NULL, 0),
                         0);
    eng_move bm;
    assert_int_equal(g->move_from_str(st, best, &bm), 0);
    assert_true(corners_after(g, st, bm) == 0);
    json_decref(j);
    ana_free(r);
    json_decref(rec);
}

/* ---- two identical strong bots ------------------------------------------------------ */

static void test_identical_bots_few_marks(void **state)
{
    (void)state;
    json_t *rec = play("reversi", "mcts:sims=2000", "mcts:sims=2000", 5, NULL, NULL);
    ana_report *r = analyse(rec, NULL, 0, 0);
    ana_sums s;
    ana_get_sums(r, &s);
    int marks = 0;
    for (int p = 0; p < 2; p++) {
        print_message("P%d: %d inaccuracies, %d mistakes, %d blunders\n", p + 1, s.marks[p][0],
                      s.marks[p][1], s.marks[p][2]);
        assert_int_equal(s.marks[p][2], 0);
        marks += s.marks[p][0] + s.marks[p][1];
    }
    /* 60 moves: an inaccuracy or two is the search's noise, not a pattern */
    assert_true(marks <= 4);
    ana_free(r);
    json_decref(rec);
}

/* ---- Carcassonne: luck + skill ------------------------------------------------------ */

static void test_carcassonne_luck_skill(void **state)
{
    (void)state;
    json_t *rec = play("carcassonne", "mcts:sims=300", "heuristic", 3, NULL, NULL);
    rec_replay rr;
    assert_int_equal(rec_replay_json(rec, NULL, NULL, &rr), 0);
    ana_report *r = analyse(rec, NULL, 120, 20);
    ana_sums s;
    ana_get_sums(r, &s);
    print_message("final %+.2f = start %+.2f + luck %+.2f %+.2f + skill %+.2f %+.2f\n", s.final,
                  s.start, s.luck[0], -s.luck[1], s.skill[0], -s.skill[1]);
    assert_true(fabs(s.final - (rr.scores[0] - rr.scores[1])) < 1e-9);
    assert_true(fabs(s.luck_total + s.skill_total - s.final) < 1e-6);
    assert_true(fabs(s.luck[0]) + fabs(s.luck[1]) > 1);
    /* the JSON says the same */
    json_t *j = ana_json(r);
    json_t *d = json_object_get(j, "decomposition");
    assert_true(fabs(json_real_value(json_object_get(d, "luck")) +
                     json_real_value(json_object_get(d, "skill")) -
                     json_real_value(json_object_get(d, "final"))) < 1e-3);
    /* every turn with a draw says what was drawn and what it was worth */
    json_t *t0 = json_array_get(json_object_get(j, "turns"), 0);
    assert_true(json_is_string(json_object_get(t0, "draw")));
    assert_true(json_is_object(json_object_get(t0, "luck")));
    /* the same seed, the same report (but for its time) */
    ana_report *r2 = analyse(rec, NULL, 120, 20);
    json_t *j2 = ana_json(r2);
    json_object_del(json_object_get(j, "search"), "ms");
    json_object_del(json_object_get(j2, "search"), "ms");
    assert_true(json_equal(j, j2));
    char *md = ana_markdown(r), *svg = ana_svg(r);
    assert_non_null(strstr(md, "luck share"));
    assert_non_null(strstr(svg, "<polyline"));
    free(md);
    free(svg);
    json_decref(j);
    json_decref(j2);
    ana_free(r);
    ana_free(r2);
    json_decref(rec);
}

/* ---- three to five seats ------------------------------------------------------------ */

/* The mover's points gained by the turn m[0..n) from st (scored at once). */
static double gain_of(const eng_game *g, const void *st, const eng_move *m, int n)
{
    unsigned char *t = malloc(g->state_size);
    assert_non_null(t);
    memcpy(t, st, g->state_size);
    int me = g->current_player(st);
    double before[ENG_MAX_PLAYERS], after[ENG_MAX_PLAYERS];
    g->scores(t, before);
    for (int i = 0; i < n; i++)
        g->apply(t, m[i]);
    g->scores(t, after);
    free(t);
    return after[me] - before[me];
}

typedef struct thrown {
    int from;                /* the earliest ply at which to throw points away */
    double least;            /* the least points to throw away */
    int ply;                 /* the ply of the placement that did (-1 before) */
    double gain;             /* what the best meeple after that placement scored at once */
    eng_move bad;            /* the meeple decision played instead (scores nothing) */
    unsigned char st[65536]; /* the position of the placement (after the draw) */
    unsigned char after[65536]; /* the position after the turn thrown away */
    int turn;                /* its record turn, 1-based (found_turn) */
    char played[96];         /* the turn played, as the analysis writes it */
} thrown;

/* From ply tw->from on, at the first placement after which one meeple
 * decision scores the mover tw->least points or more at once (a city
 * completed and claimed with the placement's meeple) and another scores
 * nothing: that placement, then the decision that scores nothing. */
static eng_move throw_city(void *ud, const eng_game *g, const void *st, int ply, eng_move chosen)
{
    thrown *tw = ud;
    if (tw->ply >= 0) {
        if (ply == tw->ply + 1) {
            char b[ENG_MOVE_STR_MAX];
            g->move_to_str(st, tw->bad, b, sizeof b);
            size_t len = strlen(tw->played);
            snprintf(tw->played + len, sizeof tw->played - len, " %s", b);
            memcpy(tw->after, st, g->state_size);
            g->apply(tw->after, tw->bad);
            return tw->bad;
        }
        return chosen;
    }
    if (ply < tw->from || g->turn_decisions < 2)
        return chosen;
    assert_true(g->state_size <= sizeof tw->st);
    eng_move *place = malloc((size_t)g->max_moves * sizeof *place);
    eng_move *meeple = malloc((size_t)g->max_moves * sizeof *meeple);
    unsigned char *after = malloc(g->state_size);
    assert_non_null(place);
    assert_non_null(meeple);
    assert_non_null(after);
    int np = g->legal_moves(st, place);
    for (int i = 0; i < np && tw->ply < 0; i++) {
        memcpy(after, st, g->state_size);
        g->apply(after, place[i]);
        if (g->current_player(after) != g->current_player(st))
            continue;
        int nm = g->legal_moves(after, meeple);
        double most = 0;
        int nothing = -1;
        for (int j = 0; j < nm; j++) {
            eng_move turn[2] = {place[i], meeple[j]};
            double gn = gain_of(g, st, turn, 2);
            most = gn > most ? gn : most;
            if (gn == 0 && nothing < 0)
                nothing = j;
        }
        if (most >= tw->least && nothing >= 0) {
            tw->ply = ply;
            tw->gain = most;
            tw->bad = meeple[nothing];
            memcpy(tw->st, st, g->state_size);
            g->move_to_str(st, place[i], tw->played, sizeof tw->played);
            chosen = place[i];
        }
    }
    free(after);
    free(place);
    free(meeple);
    return chosen;
}

/* The points the turn written `text` (placement, then meeple) scores the
 * mover at once from st: every turn of st tried until one reads the same. */
static double gain_of_text(const eng_game *g, const void *st, const char *text)
{
    eng_move *place = malloc((size_t)g->max_moves * sizeof *place);
    eng_move *meeple = malloc((size_t)g->max_moves * sizeof *meeple);
    unsigned char *after = malloc(g->state_size);
    assert_true(place && meeple && after);
    double found = -1e300;
    int np = g->legal_moves(st, place);
    for (int i = 0; i < np && found == -1e300; i++) {
        memcpy(after, st, g->state_size);
        g->apply(after, place[i]);
        char a[ENG_MOVE_STR_MAX], b[ENG_MOVE_STR_MAX], both[2 * ENG_MOVE_STR_MAX + 2];
        g->move_to_str(st, place[i], a, sizeof a);
        int nm = g->legal_moves(after, meeple);
        for (int j = 0; j < nm; j++) {
            g->move_to_str(after, meeple[j], b, sizeof b);
            snprintf(both, sizeof both, "%s %s", a, b);
            if (!strcmp(both, text)) {
                eng_move turn[2] = {place[i], meeple[j]};
                found = gain_of(g, st, turn, 2);
                break;
            }
        }
    }
    free(place);
    free(meeple);
    free(after);
    assert_true(found > -1e300); /* the better turn is a turn of st */
    return found;
}

/* rec_replay_json's callback: the record turn after which the state is the
 * one the turn thrown away reached. */
static void found_turn(void *ud, int turn, const json_t *turn_json, const void *state)
{
    thrown *tw = ud;
    (void)turn_json;
    if (!tw->turn && !memcmp(state, tw->after, eng_find_game("carcassonne")->state_size))
        tw->turn = turn;
}

/* Each seat's sums: luck + skill = its final lead, exactly; seat 0's are
 * the totals of the two-seat layout; the JSON says the same. */
static void check_sums(const ana_report *r, const json_t *rec, int np, bool finished)
{
    rec_replay rr;
    assert_int_equal(rec_replay_json(rec, NULL, NULL, &rr), 0);
    ana_sums s;
    ana_get_sums(r, &s);
    assert_int_equal(s.players, np);
    json_t *j = ana_json(r);
    json_t *players = json_object_get(j, "players");
    assert_int_equal(json_array_size(players), (size_t)np);
    for (int p = 0; p < np; p++) {
        double best = -1e300;
        for (int q = 0; q < np; q++)
            if (q != p && rr.scores[q] > best)
                best = rr.scores[q];
        print_message("P%d: final %+.2f = luck %+.2f (start %+.2f, own %+.2f) + skill %+.2f "
                      "(own %+.2f)\n", p + 1, s.seat_final[p], s.seat_luck[p], s.seat_start[p],
                      s.luck[p], s.seat_skill[p], s.skill[p]);
        if (finished) /* else the searched value of the last position */
            assert_true(fabs(s.seat_final[p] - (rr.scores[p] - best)) < 1e-9);
        assert_true(fabs(s.seat_luck[p] + s.seat_skill[p] - s.seat_final[p]) < 1e-6);
        json_t *d = json_object_get(json_array_get(players, (size_t)p), "decomposition");
        assert_true(fabs(json_real_value(json_object_get(d, "luck")) +
                         json_real_value(json_object_get(d, "skill")) -
                         json_real_value(json_object_get(d, "final"))) < 1e-3);
    }
    assert_true(fabs(s.final - s.seat_final[0]) < 1e-12);
    /* every turn has every seat's value after it, win probabilities in [0, 1] */
    json_t *turns = json_object_get(j, "turns");
    for (size_t k = 0; k < json_array_size(turns); k++) {
        json_t *a = json_object_get(json_array_get(turns, k), "after_by_seat");
        assert_int_equal(json_array_size(a), (size_t)np);
        for (int p = 0; p < np; p++) {
            double w = json_real_value(json_object_get(json_array_get(a, (size_t)p), "win"));
            assert_true(w >= 0 && w <= 1);
        }
    }
    assert_int_equal(json_array_size(json_object_get(j, "start_by_seat")), (size_t)np);
    json_decref(j);
    char *md = ana_markdown(r), *svg = ana_svg(r);
    char want[40];
    snprintf(want, sizeof want, "| P%d |", np);
    assert_non_null(strstr(md, want));        /* a column per seat */
    snprintf(want, sizeof want, "data-seat=\"%d\"", np - 1);
    assert_non_null(strstr(svg, want));       /* a line per seat */
    free(md);
    free(svg);
}

static void test_carcassonne_four_seats_thrown_city(void **state)
{
    (void)state;
    static thrown tw;
    memset(&tw, 0, sizeof tw);
    tw.from = 40; /* turn 20 or later */
    tw.least = 8; /* a city of four tiles or more (random players leave such cities unclaimed) */
    tw.ply = -1;
    const char *specs[4] = {"random", "random", "random", "random"};
    json_t *rec = play_n("carcassonne", 4, specs, 2, throw_city, &tw);
    assert_true(tw.ply >= 0);
    /* the record cut two turns after the one thrown away (the analysis of a
     * record that stops early: its last position searched), which halves
     * the test's time */
    assert_int_equal(rec_replay_json(rec, found_turn, &tw, NULL), 0);
    assert_true(tw.turn > 0);
    json_t *turns_rec = json_object_get(rec, "turns");
    while (json_array_size(turns_rec) > (size_t)tw.turn + 2)
        json_array_remove(turns_rec, json_array_size(turns_rec) - 1);
    json_object_del(rec, "result");
    ana_report *r = analyse(rec, NULL, 600, 25);
    check_sums(r, rec, 4, false);
    json_t *j = ana_json(r);
    json_t *turns = json_object_get(j, "turns"), *t = NULL;
    const eng_game *g = eng_find_game("carcassonne");
    int seat = g->current_player(tw.st);
    for (size_t k = 0; k < json_array_size(turns); k++) {
        json_t *u = json_array_get(turns, k);
        const char *pl = json_string_value(json_object_get(u, "played"));
        if (pl && !strcmp(pl, tw.played) && json_integer_value(json_object_get(u, "seat")) == seat)
            t = u;
    }
    assert_non_null(t);
    const char *mark = json_string_value(json_object_get(t, "mark"));
    const char *best = json_string_value(json_object_get(t, "best"));
    print_message("turn %lld, P%d: %s played (win %.3f, %+.1f), %s better (win %.3f, %+.1f), "
                  "%g points thrown away, %s\n",
                  json_integer_value(json_object_get(t, "turn")), seat + 1, tw.played,
                  json_real_value(json_object_get(json_object_get(t, "played_value"), "win")),
                  json_real_value(json_object_get(json_object_get(t, "played_value"), "diff")),
                  best, json_real_value(json_object_get(json_object_get(t, "best_value"), "win")),
                  json_real_value(json_object_get(json_object_get(t, "best_value"), "diff")),
                  tw.gain, mark ? mark : "unmarked");
    assert_non_null(mark);
    assert_true(!strcmp(mark, "mistake") || !strcmp(mark, "blunder"));
    assert_string_not_equal(best, tw.played);
    /* the better turn scores the city the played one threw away */
    assert_true(gain_of_text(g, tw.st, best) >= tw.gain);
    json_decref(j);
    ana_free(r);
    json_decref(rec);
}

static void test_carcassonne_five_seats(void **state)
{
    (void)state;
    const char *specs[5] = {"random", "heuristic", "random", "heuristic", "random"};
    json_t *rec = play_n("carcassonne", 5, specs, 8, NULL, NULL);
    ana_report *r = analyse(rec, NULL, 24, 4);
    check_sums(r, rec, 5, true);
    ana_free(r);
    json_decref(rec);
}

/* ---- every game -------------------------------------------------------------------- */

static void test_every_game(void **state)
{
    (void)state;
    int n;
    const eng_game *const *games = eng_games(&n);
    for (int i = 0; i < n; i++) {
        json_t *rec = play(games[i]->name, "random", "random", 9, NULL, NULL);
        ana_report *r = analyse(rec, NULL, 60, 10);
        json_t *j = ana_json(r);
        json_t *turns = json_object_get(j, "turns");
        assert_int_equal(json_array_size(turns), json_array_size(json_object_get(rec, "turns")));
        ana_sums s;
        ana_get_sums(r, &s);
        assert_true(fabs(s.luck_total + s.skill_total - s.final) < 1e-6);
        for (size_t k = 0; k < json_array_size(turns); k++) {
            json_t *t = json_array_get(turns, k);
            if (!json_object_get(t, "played"))
                continue;
            double w = json_real_value(json_object_get(json_object_get(t, "value"), "win"));
            assert_true(w >= 0 && w <= 1);
            assert_true(json_is_object(json_object_get(t, "best_move")) ||
                        json_is_array(json_object_get(t, "best_move")));
        }
        json_decref(j);
        ana_free(r);
        json_decref(rec);
    }
}

/* ---- bad input -------------------------------------------------------------------- */

static json_t *load(const char *text)
{
    json_error_t e;
    json_t *j = json_loads(text, JSON_REJECT_DUPLICATES, &e);
    assert_non_null(j);
    return j;
}

static void expect_fail(const json_t *rec, const char *spec, int code, const char *reason_part)
{
    ana_opts o = {.bot = spec, .seed = 1, .sims = 20};
    ana_report *r = (ana_report *)1;
    rec_replay why;
    int rc = ana_run(rec, &o, &r, &why);
    assert_int_equal(rc, code);
    assert_null(r);
    if (reason_part && !strstr(why.reason, reason_part))
        fail_msg("reason '%s' lacks '%s'", why.reason, reason_part);
}

static void test_bad_input(void **state)
{
    (void)state;
    /* a record the replay refuses: the same code, turn and reason */
    json_t *bad = load("{\"format\":\"tessera-record\",\"version\":1,\"game\":\"reversi\","
                       "\"rules\":{\"players\":2},\"turns\":[{\"player\":0,\"move\":\"d3\"},"
                       "{\"player\":1,\"move\":\"a1\"}]}");
    rec_replay want, got;
    int code = rec_replay_json(bad, NULL, NULL, &want);
    assert_true(code < 0);
    ana_opts o = {.sims = 20};
    ana_report *r = NULL;
    assert_int_equal(ana_run(bad, &o, &r, &got), code);
    assert_int_equal(got.bad_turn, want.bad_turn);
    assert_int_equal(got.bad_turn, 2);
    assert_string_equal(got.reason, want.reason);
    json_decref(bad);
    /* not a record */
    json_t *junk = load("{\"format\":\"something\"}");
    expect_fail(junk, NULL, ENG_EBAD_RECORD, NULL);
    json_decref(junk);
    /* three seats, a move of the record illegal there: the replay's fault */
    json_t *three = play("carcassonne", "random", "random", 2, NULL, NULL);
    json_object_set_new(json_object_get(three, "rules"), "players", json_integer(3));
    json_object_del(three, "result");
    rec_replay want3;
    int code3 = rec_replay_json(three, NULL, NULL, &want3);
    assert_true(code3 < 0);
    expect_fail(three, NULL, code3, want3.reason);
    json_decref(three);
    /* searches that cannot analyse */
    json_t *ok = play("dodgem", "random", "random", 4, NULL, NULL);
    expect_fail(ok, "mcts:reward=winloss", ENG_EBAD_BOT_SPEC, "reward");
    expect_fail(ok, "heuristic", ENG_EBAD_BOT_SPEC, "reward");
    expect_fail(ok, "nosuchbot", ENG_EUNKNOWN_BOT, "nosuchbot");
    expect_fail(ok, "mcts:k=banana", ENG_EBAD_BOT_SPEC, "k");
    /* stopped */
    atomic_bool stop = true;
    ana_opts so = {.sims = 20, .stop = &stop};
    r = NULL;
    assert_int_equal(ana_run(ok, &so, &r, &got), ENG_EINVAL);
    assert_null(r);
    assert_non_null(strstr(got.reason, "stopped"));
    json_decref(ok);
}

/* ---- mcts-d2: a win its check finds ---------------------------------------------------- */

typedef struct winnable {
    bool at[256]; /* at[t]: the mover of turn t can win the game with one move */
    int n;        /* such turns */
} winnable;

/* After each turn: can the next mover end the game as its sole winner at once? */
static void mark_winnable(void *ud, int turn, const json_t *turn_json, const void *state)
{
    winnable *w = ud;
    (void)turn_json;
    const eng_game *g = eng_find_game("reversi");
    int me = g->current_player(state);
    if (me < 0 || turn + 1 >= 256)
        return;
    eng_move mv[64];
    int n = g->legal_moves(state, mv);
    unsigned char after[4096];
    assert_true(g->state_size <= sizeof after);
    for (int i = 0; i < n && !w->at[turn + 1]; i++) {
        double ret[ENG_MAX_PLAYERS];
        memcpy(after, state, g->state_size);
        g->apply(after, mv[i]);
        if (g->current_player(after) == ENG_TERMINAL && (g->returns(after, ret), ret[me] == 1.0)) {
            w->at[turn + 1] = true;
            w->n++;
        }
    }
}

/* mcts-d2 plays a move that wins the game at once, without a search: it gave
 * the analysis no value there (read as a difference of 0 and a win
 * probability of 1/2 for a won position), and then the opponent's win its
 * check had seen. Every turn whose mover can win at once is valued as won. */
static void test_d2_values_a_win(void **state)
{
    (void)state;
    for (uint64_t seed = 1;; seed++) {
        assert_true(seed < 50);
        json_t *rec = play("reversi", "random", "random", seed, NULL, NULL);
        static winnable w;
        memset(&w, 0, sizeof w);
        assert_int_equal(rec_replay_json(rec, mark_winnable, &w, NULL), 0);
        if (w.n < 1) { /* a game whose last move wins it */
            json_decref(rec);
            continue;
        }
        ana_report *r = analyse(rec, "mcts-d2", 50, 0);
        json_t *j = ana_json(r), *turns = json_object_get(j, "turns");
        int seen = 0;
        for (size_t k = 0; k < json_array_size(turns); k++) {
            json_t *at = json_array_get(turns, k);
            int turn = (int)json_integer_value(json_object_get(at, "turn"));
            if (turn < 1 || turn >= 256 || !w.at[turn])
                continue;
            json_t *v = json_object_get(at, "value");
            double win = json_real_value(json_object_get(v, "win"));
            double diff = json_real_value(json_object_get(v, "diff"));
            print_message("seed %llu, turn %d: can win at once; value diff %g, win %g\n",
                          (unsigned long long)seed, turn, diff, win);
            assert_true(win == 1.0);
            assert_true(diff > 0);
            seen++;
        }
        assert_int_equal(seen, w.n);
        json_decref(j);
        ana_free(r);
        json_decref(rec);
        return;
    }
}

static const char *cases_dir; /* tests/analysis/cases: the test's argument */

/* A record of cases/ (new reference). */
static json_t *load_case(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", cases_dir, name);
    json_error_t e;
    json_t *rec = json_load_file(path, 0, &e);
    if (!rec)
        fail_msg("%s: %s", path, e.text);
    return rec;
}

/* cases/reversi-d2-one-safe-move.json (`tessera play reversi --seed 5`): at
 * turn 59 every move but f8 lets the opponent win at once, so mcts-d2's
 * check plays f8 without a search — and the analysis was given the value of
 * the opponent's win its check had seen last (diff -5, win 0), while f8
 * wins by 6. Now the only safe move is searched as the root's only move. */
static void test_d2_values_its_only_move(void **state)
{
    (void)state;
    json_t *rec = load_case("reversi-d2-one-safe-move.json");
    ana_report *r = analyse(rec, "mcts-d2", 200, 0);
    json_t *j = ana_json(r);
    json_t *at = json_array_get(json_object_get(j, "turns"), 58);
    assert_int_equal(json_integer_value(json_object_get(at, "turn")), 59);
    assert_string_equal(json_string_value(json_object_get(at, "best")), "f8");
    json_t *v = json_object_get(at, "value");
    print_message("turn 59: value diff %g, win %g\n", json_real_value(json_object_get(v, "diff")),
                  json_real_value(json_object_get(v, "win")));
    assert_true(json_real_value(json_object_get(v, "diff")) > 0);
    assert_true(json_real_value(json_object_get(v, "win")) > 0.5);
    json_decref(j);
    ana_free(r);
    json_decref(rec);
}

/* ---- cases: records that broke it --------------------------------------------------------- */

/* cases/carcassonne-3p-dead-draws.json (`tessera play carcassonne --players 3
 * --seed 277`): three tiles in a row that fit nowhere, among the outcomes the
 * expectations look over late in the game — the draws below the second
 * depth went a depth further than the scratch states and outcome lists are
 * for, and wrote past them (a server's analyze of such a game crashed it). */
static void test_case_dead_draws(void **state)
{
    (void)state;
    json_t *rec = load_case("carcassonne-3p-dead-draws.json");
    ana_report *r = analyse(rec, NULL, 20, 5);
    check_sums(r, rec, 3, true);
    /* the same seed, the same report (the draws below are the seeded generator's) */
    ana_report *again = analyse(rec, NULL, 20, 5);
    json_t *a = ana_json(r), *b = ana_json(again);
    json_object_del(json_object_get(a, "search"), "ms");
    json_object_del(json_object_get(b, "search"), "ms");
    assert_true(json_equal(a, b));
    json_decref(a);
    json_decref(b);
    ana_free(again);
    ana_free(r);
    json_decref(rec);
}

/* A spec's sims=0 (or ms=0) is the bot's "unset": the analysis then spends
 * its own default budget, as when the spec leaves the budget out — it spent
 * the bot's default (2,800) on every search, the ones under a draw too,
 * which are to have a quarter of it. The record: the first turn of a game
 * (the budget is what is asserted, not the values). */
static void test_spec_unset_budget(void **state)
{
    (void)state;
    /* one Reversi turn: the budget is the spec's whatever the game (a
     * Carcassonne turn, searched under every draw at this budget, took
     * three minutes under ASan) */
    json_t *rec = load_case("reversi-d2-one-safe-move.json");
    json_t *turns = json_object_get(rec, "turns");
    while (json_array_size(turns) > 1)
        json_array_remove(turns, json_array_size(turns) - 1);
    json_object_del(rec, "result");
    const char *specs[] = {"mcts", "mcts:sims=0", "mcts:ms=0", "mcts:sims=0,ms=0"};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        ana_report *r = analyse(rec, specs[i], 0, 0);
        json_t *j = ana_json(r);
        json_t *search = json_object_get(j, "search");
        print_message("%s: sims %lld, chance_sims %lld\n", specs[i],
                      (long long)json_integer_value(json_object_get(search, "sims")),
                      (long long)json_integer_value(json_object_get(search, "chance_sims")));
        assert_int_equal(json_integer_value(json_object_get(search, "sims")), ANA_DEFAULT_SIMS);
        assert_int_equal(json_integer_value(json_object_get(search, "chance_sims")),
                         ANA_DEFAULT_SIMS / ANA_DEFAULT_CHANCE_DIV);
        json_decref(j);
        ana_free(r);
    }
    json_decref(rec);
}

/* The budget is the analysis's, however it is given: `mcts:sims=200` and
 * `mcts` with --sims 200 are the same analysis, the turns checked again
 * with four times it alike. A spec's sims= capped every search, the
 * rechecks' too: they were searched again with the same 200, not 800. */
static void test_budget_either_way(void **state)
{
    (void)state;
    json_t *rec = load_case("reversi-d2-one-safe-move.json");
    ana_report *a = analyse(rec, "mcts:sims=200", 0, 0), *b = analyse(rec, "mcts", 200, 0);
    json_t *ja = ana_json(a), *jb = ana_json(b);
    json_t *ta = json_object_get(ja, "turns"), *tb = json_object_get(jb, "turns");
    int checked = 0;
    for (size_t i = 0; i < json_array_size(ta); i++)
        checked += json_is_true(json_object_get(json_array_get(ta, i), "checked"));
    print_message("%d turns checked again\n", checked);
    assert_true(checked > 0);
    assert_true(json_equal(ta, tb));
    assert_string_equal(json_string_value(json_object_get(json_object_get(ja, "search"), "score")),
                        "mcts:reward=scorediff,sims=200");
    /* a budget that is no whole number: refused, saying which */
    expect_fail(rec, "mcts:sims=lots", ENG_EBAD_BOT_SPEC, "sims=lots: the budget takes a whole number");
    expect_fail(rec, "mcts:c=1.4,ms=-5", ENG_EBAD_BOT_SPEC, "ms=-5: the budget takes a whole number");
    json_decref(ja);
    json_decref(jb);
    ana_free(a);
    ana_free(b);
    json_decref(rec);
}

int main(int argc, char **argv)
{
    cases_dir = argc > 1 ? argv[1] : "tests/analysis/cases";
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_case_dead_draws),
        cmocka_unit_test(test_spec_unset_budget),
        cmocka_unit_test(test_budget_either_way),
        cmocka_unit_test(test_d2_values_a_win),
        cmocka_unit_test(test_d2_values_its_only_move),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_every_game),
        cmocka_unit_test(test_carcassonne_luck_skill),
        cmocka_unit_test(test_carcassonne_four_seats_thrown_city),
        cmocka_unit_test(test_carcassonne_five_seats),
        cmocka_unit_test(test_reversi_corner_blunder),
        cmocka_unit_test(test_identical_bots_few_marks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
