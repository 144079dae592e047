/*
 * test_carc_scenarios.c — hand-built Carcassonne games with exact scores.
 *
 * Each scenario builds a small board through the public API only: rules
 * from eng_rules_default()/eng_rules_set(), then per turn a chance outcome
 * (the tile type wanted), a placement from carc_place_move() and a meeple
 * move from carc_meeple_move(). When a scenario must reach the real end of
 * the game it first shrinks the bag with carc__set_bag() to exactly the tiles
 * it will draw. Expected scores were worked out by hand from the rules in
 * docs/rules.md; the comment on each scenario draws the board and
 * gives the arithmetic.
 *
 * Board drawings: one cell per tile, written as the tile letter and its
 * rotation (E2 = tile E turned twice clockwise), x growing east and y south;
 * the start tile D0 is at (0,0) with its city north and its road W-E.
 * Turns are listed as  Tn Pp: tile (x,y) rot, meeple port  with P0 first.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "engine/carcassonne/carcassonne.h"
#include "engine/carcassonne/internal.h"

/* ---- helpers: every check reports the scenario's line ------------------- */

static void check_eq_(long got, long want, const char *what, const char *file, int line)
{
    if (got != want) {
        print_error("%s: got %ld, expected %ld\n", what, got, want);
        _fail(file, line);
    }
}

static void start_(carc_state *s, int players, int tiny, bool farms, const char *file, int line)
{
    eng_rules r;
    char kv[32], err[128];
    eng_rules_default(&carc_game, &r);
    snprintf(kv, sizeof kv, "players=%d", players);
    check_eq_(eng_rules_set(&carc_game, &r, kv, err, sizeof err), 0, kv, file, line);
    snprintf(kv, sizeof kv, "tiny_city=%d", tiny);
    check_eq_(eng_rules_set(&carc_game, &r, kv, err, sizeof err), 0, kv, file, line);
    const char *f = farms ? "farms=true" : "farms=false";
    check_eq_(eng_rules_set(&carc_game, &r, f, err, sizeof err), 0, f, file, line);
    check_eq_(eng_init(&carc_game, s, &r, err, sizeof err), 0, "eng_init", file, line);
    check_eq_(carc_game.current_player(s), ENG_CHANCE, "first step is a draw", file, line);
    check_eq_(s->player, 0, "player 0 draws first", file, line);
    for (int p = 0; p < players; p++) {
        check_eq_(s->supply[p], CARC_MEEPLES, "meeples at the start", file, line);
        check_eq_(s->score[p], 0, "score at the start", file, line);
    }
}

/* Replace the bag with exactly the given tiles, e.g. "EEU". */
static void bag_(carc_state *s, const char *tiles, const char *file, int line)
{
    uint8_t counts[CARC_NTYPES] = {0};
    check_eq_(carc_game.current_player(s), ENG_CHANCE, "bag set at a draw", file, line);
    for (const char *c = tiles; *c; c++) {
        int t = carc_type_of_letter(*c);
        check_eq_(t >= 0, 1, "tile letter", file, line);
        counts[t]++;
    }
    carc__set_bag(s, counts);
    check_eq_(s->bag_n, (long)strlen(tiles), "bag size", file, line);
}

static void draw_(carc_state *s, char letter, const char *file, int line)
{
    check_eq_(carc_game.current_player(s), ENG_CHANCE, "a draw is due", file, line);
    int t = carc_type_of_letter(letter);
    check_eq_(eng_is_legal(&carc_game, s, t), 1, "tile is in the bag", file, line);
    carc_game.apply(s, t);
}

/* Draw `letter` and place it at (x, y) with rotation rot; `player` must be
 * the one placing it. Leaves the state at the meeple step. */
static void place_(carc_state *s, int player, char letter, int x, int y, int rot, const char *file,
                   int line)
{
    draw_(s, letter, file, line);
    check_eq_(carc_game.current_player(s), player, "player placing", file, line);
    eng_move m = -1;
    check_eq_(carc_place_move(s, x, y, rot, &m), 0, "carc_place_move", file, line);
    check_eq_(eng_is_legal(&carc_game, s, m), 1, "placement is a legal move", file, line);
    carc_game.apply(s, m);
    const carc_placed *pl = carc_tile_at(s, x, y);
    check_eq_(pl != NULL, 1, "tile on the board", file, line);
    check_eq_(pl->type, carc_type_of_letter(letter), "tile type on the board", file, line);
    check_eq_(carc_game.current_player(s), player, "same player places the meeple", file, line);
}

/* Place a meeple on the feature at `port` of the tile just placed (NULL:
 * no meeple). */
static void meeple_(carc_state *s, const char *port, const char *file, int line)
{
    int p = -1;
    if (port) {
        p = carc_port_of_name(port);
        check_eq_(p >= 0, 1, "port name", file, line);
    }
    eng_move m = -1;
    check_eq_(carc_meeple_move(s, p, &m), 0, port ? port : "no meeple", file, line);
    check_eq_(eng_is_legal(&carc_game, s, m), 1, "meeple move is legal", file, line);
    carc_game.apply(s, m);
}

/* A meeple on `port` must be refused. */
static void refuse_(carc_state *s, const char *port, const char *file, int line)
{
    int p = carc_port_of_name(port);
    check_eq_(p >= 0, 1, "port name", file, line);
    eng_move m = -1;
    check_eq_(carc_meeple_move(s, p, &m), ENG_EILLEGAL_MOVE, port, file, line);
}

static void ints_(const char *what, const int *got, const int *want, int n, int players,
                  const char *file, int line)
{
    check_eq_(n, players, "expected values, one per player", file, line);
    for (int p = 0; p < n; p++) {
        char buf[48];
        snprintf(buf, sizeof buf, "%s[%d]", what, p);
        check_eq_(got[p], want[p], buf, file, line);
    }
}

static void scores_(const carc_state *s, const int *want, int n, const char *file, int line)
{
    int got[ENG_MAX_PLAYERS];
    double d[ENG_MAX_PLAYERS];
    carc_game.scores(s, d);
    for (int p = 0; p < s->rules.players; p++) {
        got[p] = s->score[p];
        check_eq_((long)d[p], s->score[p], "scores() agrees with score[]", file, line);
    }
    ints_("score", got, want, n, s->rules.players, file, line);
}

static void supply_(const carc_state *s, const int *want, int n, const char *file, int line)
{
    int got[ENG_MAX_PLAYERS];
    for (int p = 0; p < s->rules.players; p++)
        got[p] = s->supply[p];
    ints_("supply", got, want, n, s->rules.players, file, line);
}

static void virtual_(const carc_state *s, const int *want, int n, const char *file, int line)
{
    int got[ENG_MAX_PLAYERS];
    carc_virtual_scores(s, got);
    ints_("virtual", got, want, n, s->rules.players, file, line);
}

/* The game is over: terminal, bag empty, nothing left to play, and the
 * virtual scores are the final ones. */
static void over_(const carc_state *s, const char *file, int line)
{
    eng_move mv[CARC_MAX_MOVES];
    double pr[CARC_NTYPES];
    check_eq_(carc_game.current_player(s), ENG_TERMINAL, "game over", file, line);
    check_eq_(s->bag_n, 0, "bag empty at the end", file, line);
    check_eq_(carc_game.legal_moves(s, mv), 0, "no moves at the end", file, line);
    check_eq_(carc_game.chance_outcomes(s, mv, pr), 0, "no draws at the end", file, line);
    int v[ENG_MAX_PLAYERS];
    carc_virtual_scores(s, v);
    for (int p = 0; p < s->rules.players; p++)
        check_eq_(v[p], s->score[p], "virtual == final score", file, line);
}

static int nlegal(const carc_state *s)
{
    eng_move mv[CARC_MAX_MOVES];
    return carc_game.legal_moves(s, mv);
}

#define NARGS(...)                      ((int)(sizeof((const int[]){__VA_ARGS__}) / sizeof(int)))
#define START(s, players, tiny, farms)  start_(s, players, tiny, farms, __FILE__, __LINE__)
#define BAG(s, tiles)                   bag_(s, tiles, __FILE__, __LINE__)
#define DRAW(s, letter)                 draw_(s, letter, __FILE__, __LINE__)
#define PLACE(s, pl, letter, x, y, rot) place_(s, pl, letter, x, y, rot, __FILE__, __LINE__)
#define MEEPLE(s, port)                 meeple_(s, port, __FILE__, __LINE__)
#define REFUSE(s, port)                 refuse_(s, port, __FILE__, __LINE__)
#define TURN(s, pl, letter, x, y, rot, port)                                                       \
    do {                                                                                           \
        place_(s, pl, letter, x, y, rot, __FILE__, __LINE__);                                      \
        meeple_(s, port, __FILE__, __LINE__);                                                      \
    } while (0)
#define SCORES(s, ...)                                                                             \
    scores_(s, (const int[]){__VA_ARGS__}, NARGS(__VA_ARGS__), __FILE__, __LINE__)
#define SUPPLY(s, ...)                                                                             \
    supply_(s, (const int[]){__VA_ARGS__}, NARGS(__VA_ARGS__), __FILE__, __LINE__)
#define VIRTUAL(s, ...)                                                                            \
    virtual_(s, (const int[]){__VA_ARGS__}, NARGS(__VA_ARGS__), __FILE__, __LINE__)
#define OVER(s) over_(s, __FILE__, __LINE__)

/* ======================================================================== */
/* Cities                                                                    */
/* ======================================================================== */

/* S01 — the smallest city, completed by the tile the meeple goes on.
 *
 *          x=0
 *   y=-1   E2      city south, P0's meeple on it (port S)
 *   y= 0   D0      start tile, city north
 *
 * T1 P0: E (0,-1) rot 2, meeple S. D's city and E's city close each other:
 * 2 tiles, tiny_city=4: 2*2 = 4 to P0 at once, and the meeple comes back.
 */
static void test_s01_tiny_city_completed_by_own_tile(void **state)
{
    (void)state;
    carc_state s;
    START(&s, 2, 4, true);
    PLACE(&s, 0, 'E', 0, -1, 2);
    MEEPLE(&s, "S");
    SCORES(&s, 4, 0);
    SUPPLY(&s, 7, 7);
    VIRTUAL(&s, 4, 0);
    check_eq_(s.nmeeples, 0, "no meeple left on the board", __FILE__, __LINE__);
    check_eq_(carc_game.current_player(&s), ENG_CHANCE, "next draw", __FILE__, __LINE__);
    check_eq_(s.player, 1, "P1 draws next", __FILE__, __LINE__);
}

/* S02 — the same two-tile city under the old rule tiny_city=2: 2 points. */
static void test_s02_tiny_city_old_rule(void **state)
{
    (void)state;
    carc_state s;
    START(&s, 2, 2, true);
    TURN(&s, 0, 'E', 0, -1, 2, "S"); /* D + E: 2 tiles, tiny_city=2 -> 2 */
    SCORES(&s, 2, 0);
    SUPPLY(&s, 7, 7);
}

/* S03/S04 — a three-tile city with a pennant, closed by the other player.
 *
 *          x=0   x=1
 *   y=-1   M2    E3        M2: city S+E with pennant (P0 on it); E3: city W
 *   y= 0   D0
 *
 * T1 P0: M (0,-1) rot 2, meeple S -> city D+M, open to the east.
 *        Virtual: incomplete 2 tiles + 1 pennant = 3.
 * T2 P1: E (1,-1) rot 3, no meeple -> city D+M+E complete:
 *        3 tiles * 2 + 1 pennant * 2 = 8 to P0 (tiny_city does not touch a
 *        three-tile city, so 8 under both rules).
 */
static void pennant_city(int tiny)
{
    carc_state s;
    START(&s, 2, tiny, true);
    TURN(&s, 0, 'M', 0, -1, 2, "S");
    SCORES(&s, 0, 0);
    SUPPLY(&s, 6, 7);
    VIRTUAL(&s, 3, 0);
    TURN(&s, 1, 'E', 1, -1, 3, NULL);
    SCORES(&s, 8, 0);
    SUPPLY(&s, 7, 7);
    VIRTUAL(&s, 8, 0);
}

static void test_s03_pennant_city_tiny4(void **state)
{
    (void)state;
    pennant_city(4);
}

static void test_s04_pennant_city_tiny2(void **state)
{
    (void)state;
    pennant_city(2);
}

/* S05 — an incomplete city with a pennant scored at the end (tiny_city=2
 * only changes completed two-tile cities).
 *
 *          x=0
 *   y=-1   M2      P0 on the city; M is the last tile in the bag
 *   y= 0   D0
 *
 * End: city D+M incomplete: 2 tiles + 1 pennant = 3 to P0.
 */
static void test_s05_incomplete_pennant_city_at_end(void **state)
{
    (void)state;
    carc_state s;
    START(&s, 2, 2, true);
    BAG(&s, "M");
    TURN(&s, 0, 'M', 0, -1, 2, "S");
    OVER(&s);
    SCORES(&s, 3, 0);
    double ret[ENG_MAX_PLAYERS];
    carc_game.returns(&s, ret);
    check_eq_((long)(ret[0] * 2), 2, "P0 wins", __FILE__, __LINE__);
    check_eq_((long)(ret[1] * 2), 0, "P1 loses", __FILE__, __LINE__);
}

/* S06 — three players; the C tile (city on all sides, pennant) closed on
 * three sides; two fields touching the same city.
 *
 *          x=-1  x=0   x=1
 *   y=-2         E2               P1 on its field (port N)
 *   y=-1   E1    C0    E3         C: P0 on the city; E3: P2 on its field (E)
 *   y= 0         D0
 *
 * T1 P0: C (0,-1), meeple N -> city D+C open N, E, W.
 * T2 P1: E (0,-2) rot 2 joins P0's city: a meeple there is refused; P1
 *        takes E's field instead.
 * T3 P2: E (1,-1) rot 3, meeple on its field.
 *        Virtual: P0 city D,C,E,E incomplete = 4 + 1 pennant = 5; the
 *        fields touch only that incomplete city: 0.
 * T4 P0: E (-1,-1) rot 1 closes the city: D,C,E,E,E = 5 tiles:
 *        5*2 + 1*2 = 12 to P0.
 * End (bag empty): P1's field and P2's field (separate fields; (1,-2) is
 * empty) each touch the completed city: 3 each.  Final 12, 3, 3.
 */
static void test_s06_three_players_c_tile_city_and_fields(void **state)
{
    (void)state;
    carc_state s;
    START(&s, 3, 4, true);
    BAG(&s, "CEEE");
    TURN(&s, 0, 'C', 0, -1, 0, "N");
    PLACE(&s, 1, 'E', 0, -2, 2);
    REFUSE(&s, "S");
    MEEPLE(&s, "N");
    TURN(&s, 2, 'E', 1, -1, 3, "E");
    VIRTUAL(&s, 5, 0, 0);
    SUPPLY(&s, 6, 6, 6);
    TURN(&s, 0, 'E', -1, -1, 1, NULL);
    OVER(&s);
    SCORES(&s, 12, 3, 3);
}

/* S13 — two players' cities joined by one tile: a tie, both score in full.
 *
 *          x=0   x=1
 *   y=-2   N2    N3        N2: city S+E; N3: city W+S
 *   y=-1   G1    E0        G1: city N-S (P0); E0: city N (P1)
 *   y= 0   D0
 *
 * T1 P0: G (0,-1) rot 1, meeple N -> city D+G.
 * T2 P1: E (1,-1) rot 0, meeple N -> separate city E.
 * T3 P0: N (0,-2) rot 2 extends P0's city: meeple refused there.
 *        Virtual: P0 D+G+N = 3, P1 E = 1.
 * T4 P1: N (1,-2) rot 3 joins both and closes the city: refused again.
 *        D,G,N,N,E = 5 tiles = 10; one meeple each: P0 10, P1 10.
 */
static void test_s13_merged_city_tie(void **state)
{
    (void)state;
    carc_state s;
    START(&s, 2, 4, true);
    TURN(&s, 0, 'G', 0, -1, 1, "N");
    TURN(&s, 1, 'E', 1, -1, 0, "N");
    PLACE(&s, 0, 'N', 0, -2, 2);
    REFUSE(&s, "S");
    REFUSE(&s, "E");
    MEEPLE(&s, NULL);
    VIRTUAL(&s, 3, 1);
    PLACE(&s, 1, 'N', 1, -2, 3);
    REFUSE(&s, "W");
    REFUSE(&s, "S");
    MEEPLE(&s, NULL);
    SCORES(&s, 10, 10);
    SUPPLY(&s, 7, 7);
}

/* S14 — the majority alone scores a merged city.
 *
 *          x=-1  x=0   x=1
 *   y=-2   N2    R2    N3        R2: city W, S, E
 *   y=-1   E0    G1    E0        E0 west: P0; G1: P0; E0 east: P1
 *   y= 0         D0
 *
 * T1 P0: G (0,-1) rot 1, meeple N (city D+G).
 * T2 P1: E (1,-1) rot 0, meeple N.
 * T3 P0: E (-1,-1) rot 0, meeple N (a third, separate city).
 * T4 P1: N (-1,-2) rot 2 extends P0's western city.
 *        Virtual: P0 has D+G (2) and E+N (2) = 4; P1 has E (1).
 * T5 P0: R (0,-2) rot 2 joins P0's two cities: D,G,E,N,R = 5 -> virtual 5.
 * T6 P1: N (1,-2) rot 3 joins P1's city and closes it:
 *        7 tiles = 14; P0 has 2 meeples, P1 1 -> P0 14, P1 0.
 *        All three meeples return.
 */
static void test_s14_merged_city_majority(void **state)
{
    (void)state;
    carc_state s;
    START(&s, 2, 4, true);
    TURN(&s, 0, 'G', 0, -1, 1, "N");
    TURN(&s, 1, 'E', 1, -1, 0, "N");
    TURN(&s, 0, 'E', -1, -1, 0, "N");
    TURN(&s, 1, 'N', -1, -2, 2, NULL);
    VIRTUAL(&s, 4, 1);
    SUPPLY(&s, 5, 6);
    PLACE(&s, 0, 'R', 0, -2, 2);
    REFUSE(&s, "S");
    MEEPLE(&s, NULL);
    VIRTUAL(&s, 5, 1);
    TURN(&s, 1, 'N', 1, -2, 3, NULL);
    SCORES(&s, 14, 0);
    SUPPLY(&s, 7, 7);
}

/* S22 — a city that reaches one tile twice: both cities of an H joined into
 * one ring count the H once.
 *
 *          x=-1  x=0   x=1
 *   y= 0         D0
 *   y= 1   N2    H1    N3        H1: cities W and E (P0 on E)
 *   y= 2   N1    G0    M0        M0: pennant
 *
 * T1 P0 H (0,1) rot 1, meeple E; then N (1,1) rot 3, M (1,2) rot 0,
 * G (0,2) rot 0, N (-1,2) rot 1 (virtual: H,N,M,G,N = 5 tiles + 1
 * pennant = 6), and N (-1,1) rot 2 closes the ring through H's west city.
 * Distinct tiles: H,N,M,G,N,N = 6 (7 segments): 6*2 + 1 pennant*2 = 14.
 * (Counting H twice would give 16.)
 */
static void test_s22_h_ring_counts_h_once(void **state)
{
    (void)state;
    carc_state s;
    START(&s, 2, 4, true);
    TURN(&s, 0, 'H', 0, 1, 1, "E");
    TURN(&s, 1, 'N', 1, 1, 3, NULL);
    TURN(&s, 0, 'M', 1, 2, 0, NULL);
    TURN(&s, 1, 'G', 0, 2, 0, NULL);
    TURN(&s, 0, 'N', -1, 2, 1, NULL);
    VIRTUAL(&s, 6, 0);
    TURN(&s, 1, 'N', -1, 1, 2, NULL);
    SCORES(&s, 14, 0);
    SUPPLY(&s, 7, 7);
}

/* S23 — the same ring left open (R instead of the last N, its third city
 * side facing the empty cell (-1,0)), scored at the end.
 *
 *          x=-1  x=0   x=1
 *   y= 0   .     D0
 *   y= 1   R1    H1    N3        R1: city N, E, S (N side open)
 *   y= 2   N1    G0    M0
 *
 * End: incomplete city H,N,M,G,N,R = 6 distinct tiles + 1 pennant = 7
 * (8 if H were counted twice).
 */
static void test_s23_h_ring_open_at_end(void **state)
{
    (void)state;
    carc_state s;
    START(&s, 2, 4, true);
    BAG(&s, "HNMGNR");
    TURN(&s, 0, 'H', 0, 1, 1, "E");
    TURN(&s, 1, 'N', 1, 1, 3, NULL);
    TURN(&s, 0, 'M', 1, 2, 0, NULL);
    TURN(&s, 1, 'G', 0, 2, 0, NULL);
    TURN(&s, 0, 'N', -1, 2, 1, NULL);
    TURN(&s, 1, 'R', -1, 1, 1, NULL);
    OVER(&s);
    SCORES(&s, 7, 0);
}

/* S33 — two pennants in one city; a field scores it once completed.
 *
 *          x=0   x=1   x=2
 *   y=-1   M2    F0    E3        M2: P0 on the city; F0: P1 on its N field
 *   y= 0   D0
 *
 * T1 P0: M (0,-1) rot 2, meeple S.
 * T2 P1: F (1,-1) rot 0 joins the city (meeple there refused), P1 takes
 *        F's north field. Virtual: city D,M,F incomplete 3 + 2 pennants = 5;
 *        the field touches only that incomplete city: 0.
 * T3 P0: E (2,-1) rot 3 closes it: 4 tiles*2 + 2 pennants*2 = 12 to P0.
 * End: P1's field touches the completed city: 3.  Final 12, 3.
 */
static void test_s33_two_pennants_and_a_field(void **state)
{
    (void)state;
    carc_state s;
    START(&s, 2, 4, true);
    BAG(&s, "MFE");
    TURN(&s, 0, 'M', 0, -1, 2, "S");
    PLACE(&s, 1, 'F', 1, -1, 0);
    REFUSE(&s, "E");
    REFUSE(&s, "W");
    MEEPLE(&s, "N");
    VIRTUAL(&s, 5, 0);
    TURN(&s, 0, 'E', 2, -1, 3, NULL);
    OVER(&s);
    SCORES(&s, 12, 3);
}

/* ======================================================================== */
/* Roads                                                                     */
/* ======================================================================== */

/* S07 — a road from a city (T) to a junction (L).
 *
 *          x=-1  x=0   x=1
 *   y= 0   T3    D0    L0        T3: road E ends at its city; L0: junction
 *
 * T1 P0: L (1,0) rot 0, meeple W (road L-D, open at D's west end).
 * T2 P1: T (-1,0) rot 3 closes the road; the road is taken (refused), P1
 *        takes T's city. Road T,D,L = 3 to P0.
 *        P1's city: 1 tile incomplete -> virtual 1.
 */
static void test_s07_road_city_to_junction(void **state)
{
    (void)state;
    carc_state s;
    START(&s, 2, 4, true);
    TURN(&s, 0, 'L', 1, 0, 0, "W");
    VIRTUAL(&s, 2, 0);
    PLACE(&s, 1, 'T', -1, 0, 3);
    REFUSE(&s, "E");
    MEEPLE(&s, "N");
    SCORES(&s, 3, 0);
    SUPPLY(&s, 7, 6);
    VIRTUAL(&s, 3, 1);
}

/* S08 — a road loop of four curves.
 *
 *          x=0   x=1
 *   y= 0   D0
 *   y= 1   V3    V0          V3: road E-S (P0)   V0: road W-S
 *   y= 2   V2    V1          V2: road N-E        V1: road N-W
 *
 * The loop closes with the fourth curve: 4 tiles = 4 to P0 (3 virtual
 * just before).
 */
static void test_s08_road_loop(void **state)
{
    (void)state;
    carc_state s;
    START(&s, 2, 4, true);
    TURN(&s, 0, 'V', 0, 1, 3, "E");
    TURN(&s, 1, 'V', 1, 1, 0, NULL);
    TURN(&s, 0, 'V', 0, 2, 2, NULL);
    VIRTUAL(&s, 3, 0);
    SCORES(&s, 0, 0);
    TURN(&s, 1, 'V', 1, 2, 1, NULL);
    SCORES(&s, 4, 0);
    SUPPLY(&s, 7, 7);
}

/* S09 — a road from a cloister (A) to a city (T).
 *
 *          x=-1  x=0   x=1
 *   y= 0   T3    D0    A1        A1: cloister, road W (P0 on the road)
 *
 * T1 P0: A (1,0) rot 1, meeple W (road A-D).
 * T2 P1: T (-1,0) rot 3, road refused, meeple on T's city.
 *        Road A,D,T complete: 3 to P0.
 * End: P1's city T incomplete, 1 tile: 1.  Final 3, 1.
 */
static void test_s09_road_cloister_to_city(void **state)
{
    (void)state;
    carc_state s;
    START(&s, 2, 4, true);
    BAG(&s, "AT");
    TURN(&s, 0, 'A', 1, 0, 1, "W");
    PLACE(&s, 1, 'T', -1, 0, 3);
    REFUSE(&s, "E");
    MEEPLE(&s, "N"); /* T is the last tile: the road scores, then the end */
    OVER(&s);
    SCORES(&s, 3, 1);
}

/* S10 — roads ending at junctions and at a crossing.
 *
 *          x=-1  x=0   x=1   x=2
 *   y= 0   L0    D0    X0    W0       X0: crossing; W0: junction (road W,E,S)
 *
 * T1 P0: X (1,0), meeple on its east road (1 tile, open).
 * T2 P1: L (-1,0) rot 0, meeple on L's east road: L,D,X(west arm) is
 *        complete at once: 3 to P1, meeple back.
 * T3 P0: W (2,0) rot 0 closes X's east road: X,W = 2 to P0; P0's new
 *        meeple on W's south road (1 tile, open).
 * End: P0's south road 1.  Final P0 2+1 = 3, P1 3.
 */
static void test_s10_roads_at_junctions(void **state)
{
    (void)state;
    carc_state s;
    START(&s, 2, 4, true);
    BAG(&s, "XLW");
    TURN(&s, 0, 'X', 1, 0, 0, "E");
    TURN(&s, 1, 'L', -1, 0, 0, "E");
    SCORES(&s, 0, 3);
    SUPPLY(&s, 6, 7);
    VIRTUAL(&s, 1, 3);
    TURN(&s, 0, 'W', 2, 0, 0, "S"); /* the last tile */
    OVER(&s);
    SCORES(&s, 3, 3);
}

/* S15 — a meeple refused on a road that the new tile joins to an occupied
 * one; the tile's fields are still free.
 *
 *          x=0   x=1   x=2
 *   y= 0   D0    U0    U0          P0 on the road of the first U
 *
 * T2 P1: U (2,0): the road D-U-U is P0's: E and W refused; legal moves are
 *        exactly none + north field + south field = 3. P1 takes the north
 *        field (it touches only D's incomplete city: 0).
 *        Virtual: P0 road 3 tiles = 3; P1 0.
 */
static void test_s15_meeple_refused_on_occupied_road(void **state)
{
    (void)state;
    carc_state s;
    START(&s, 2, 4, true);
    TURN(&s, 0, 'U', 1, 0, 0, "E");
    PLACE(&s, 1, 'U', 2, 0, 0);
    REFUSE(&s, "E");
    REFUSE(&s, "W");
    check_eq_(nlegal(&s), 3, "none + two fields", __FILE__, __LINE__);
    MEEPLE(&s, "N");
    SUPPLY(&s, 6, 6);
    VIRTUAL(&s, 3, 0);
    SCORES(&s, 0, 0);
}

/* S24 — three players tie on one road built from three separate roads
 * merged by two tiles, then closed at both ends.
 *
 *          x=-2  x=-1  x=0   x=1
 *   y= 0         W2    D0    V0        V0 (1,0): P0's road W-S
 *   y= 1   A3    V0    V3    V1        V3 (0,1): P1's road E-S;
 *   y= 2         V2    V1              V0 (-1,1): P2's road S-W
 *
 * T1 P0 V (1,0) rot 0, meeple W.   T2 P1 V (0,1) rot 3, meeple E.
 * T3 P2 V (-1,1) rot 0, meeple S.  T4 P0 V (1,1) rot 1 joins P0's and P1's
 * roads (refused).  T5 P1 V (0,2) rot 1.  T6 P2 V (-1,2) rot 2 joins P2's
 * road: one meeple each; virtual 7 tiles (D + six V) = 7 each.
 * T7 P0 W (-1,0) rot 2 ends the west end at a junction; T8 P1 A (-2,1)
 * rot 3 ends the other at a cloister: 9 tiles -> 9 to each player.
 */
static void test_s24_three_players_road_tie(void **state)
{
    (void)state;
    carc_state s;
    START(&s, 3, 4, true);
    TURN(&s, 0, 'V', 1, 0, 0, "W");
    TURN(&s, 1, 'V', 0, 1, 3, "E");
    TURN(&s, 2, 'V', -1, 1, 0, "S");
    PLACE(&s, 0, 'V', 1, 1, 1);
    REFUSE(&s, "N");
    MEEPLE(&s, NULL);
    TURN(&s, 1, 'V', 0, 2, 1, NULL);
    TURN(&s, 2, 'V', -1, 2, 2, NULL);
    VIRTUAL(&s, 7, 7, 7);
    SUPPLY(&s, 6, 6, 6);
    TURN(&s, 0, 'W', -1, 0, 2, NULL);
    SCORES(&s, 0, 0, 0);
    TURN(&s, 1, 'A', -2, 1, 3, NULL);
    SCORES(&s, 9, 9, 9);
    SUPPLY(&s, 7, 7, 7);
}

/* S35 — a road that leaves a crossing and comes back to it: the crossing
 * is one tile and counts once (docs/rules.md: "road 1 per tile"; read as each
 * tile once, as for cities, so the two arms of X do not count it twice).
 *
 *          x=0   x=1   x=2
 *   y= 0   D0    X0    V0        X0: P0 on its east arm
 *   y= 1         V2    V1
 *
 * The loop X(E) - V(2,0) - V(2,1) - V(1,1) - X(S): tiles X,V,V,V = 4
 * (5 segments). Virtual before the last curve: X,V,V = 3.
 */
static void test_s35_road_loop_through_one_crossing(void **state)
{
    (void)state;
    carc_state s;
    START(&s, 2, 4, true);
    TURN(&s, 0, 'X', 1, 0, 0, "E");
    TURN(&s, 1, 'V', 2, 0, 0, NULL);
    TURN(&s, 0, 'V', 2, 1, 1, NULL);
    VIRTUAL(&s, 3, 0);
    TURN(&s, 1, 'V', 1, 1, 2, NULL);
    SCORES(&s, 4, 0);
    SUPPLY(&s, 7, 7);
}

/* ======================================================================== */
/* Cloisters                                                                 */
/* ======================================================================== */

/* S11 — a cloister completed mid-game: 9.
 *
 *          x=-1  x=0   x=1
 *   y= 0   U0    D0    U0
 *   y= 1   E3    B0    E1          B0: P0's monk
 *   y= 2   E2    E2    E2
 *
 * Seven neighbours after T7: virtual 1 + 7 = 8. The eighth (T8) completes
 * it: 9 to P0, meeple back.
 */
static void test_s11_cloister_completed(void **state)
{
    (void)state;
    carc_state s;
    START(&s, 2, 4, true);
    TURN(&s, 0, 'B', 0, 1, 0, "C");
    VIRTUAL(&s, 2, 0); /* B + D */
    TURN(&s, 1, 'U', 1, 0, 0, NULL);
    TURN(&s, 0, 'U', -1, 0, 0, NULL);
    TURN(&s, 1, 'E', -1, 1, 3, NULL);
    TURN(&s, 0, 'E', 1, 1, 1, NULL);
    TURN(&s, 1, 'E', -1, 2, 2, NULL);
    TURN(&s, 0, 'E', 0, 2, 2, NULL);
    VIRTUAL(&s, 8, 0);
    SCORES(&s, 0, 0);
    TURN(&s, 1, 'E', 1, 2, 2, NULL);
    SCORES(&s, 9, 0);
    SUPPLY(&s, 7, 7);
}

/* S12 — a cloister scored incomplete at the end: 1 + neighbours.
 *
 *          x=0   x=1
 *   y= 0   D0    U0        U0: P1 on the road D-U
 *   y= 1   B0              B0: P0's monk
 *
 * End: cloister 1 + 2 neighbours (D, U) = 3; road D,U = 2.  Final 3, 2.
 */
static void test_s12_cloister_incomplete_at_end(void **state)
{
    (void)state;
    carc_state s;
    START(&s, 2, 4, true);
    BAG(&s, "BU");
    TURN(&s, 0, 'B', 0, 1, 0, "C");
    VIRTUAL(&s, 2, 0);
    TURN(&s, 1, 'U', 1, 0, 0, "E");
    OVER(&s);
    SCORES(&s, 3, 2);
}

/* S28 — the cloister tile itself fills a hole with eight neighbours: it is
 * complete the moment it is placed, scores 9 and its monk returns.
 *
 *          x=-1  x=0   x=1
 *   y= 0   U0    D0    U0          U0 east: P0 on the road
 *   y= 1   E3    B0    E1          B0 placed last by P1 with a monk
 *   y= 2   E2    E2    E2
 *
 * After T8: P1 9 (score), P0's road U,D,U still open: virtual 3.
 */
static void test_s28_cloister_completes_itself(void **state)
{
    (void)state;
    carc_state s;
    START(&s, 2, 4, true);
    TURN(&s, 0, 'U', 1, 0, 0, "E");
    TURN(&s, 1, 'U', -1, 0, 0, NULL);
    TURN(&s, 0, 'E', -1, 1, 3, NULL);
    TURN(&s, 1, 'E', 1, 1, 1, NULL);
    TURN(&s, 0, 'E', -1, 2, 2, NULL);
    TURN(&s, 1, 'E', 1, 2, 2, NULL);
    TURN(&s, 0, 'E', 0, 2, 2, NULL);
    TURN(&s, 1, 'B', 0, 1, 0, "C");
    SCORES(&s, 0, 9);
    SUPPLY(&s, 6, 7);
    VIRTUAL(&s, 3, 9);
}

/* ======================================================================== */
/* Fields                                                                    */
/* ======================================================================== */

/* S16 — a field touching three cities, one incomplete: 3 per completed city.
 *
 *          x=0   x=1
 *   y=-2   E0    E2        E0 (0,-2): P1's city, never closed
 *   y=-1   E2    E0        E2 (0,-1): P0 on its field
 *   y= 0   D0
 *
 * T1 P0: E (0,-1) rot 2 closes city C1 = D+E (no meeple: no points); P0's
 *        meeple on E's field (sides N, E, W).
 * T2 P1: E (0,-2) rot 0, meeple on its city C2 (open). Its field joins P0's.
 * T3 P0: E (1,-1) rot 0: city C3 opens north; its field joins P0's.
 *        Virtual: field touches C1 (complete), C2, C3 (open) -> 3; P1: 1.
 * T4 P1: E (1,-2) rot 2 closes C3 (no meeple); its field joins via (0,-2).
 * End: P0's field touches C1 and C3 complete, C2 not: 2*3 = 6 (C3 is
 * touched from two tiles and still counts once). P1's city C2: 1.
 */
static void test_s16_field_several_cities(void **state)
{
    (void)state;
    carc_state s;
    START(&s, 2, 4, true);
    BAG(&s, "EEEE");
    TURN(&s, 0, 'E', 0, -1, 2, "N");
    SCORES(&s, 0, 0);
    VIRTUAL(&s, 3, 0);
    TURN(&s, 1, 'E', 0, -2, 0, "N");
    TURN(&s, 0, 'E', 1, -1, 0, NULL);
    VIRTUAL(&s, 3, 1);
    TURN(&s, 1, 'E', 1, -2, 2, NULL);
    OVER(&s);
    SCORES(&s, 6, 1);
}

/* S17 — two fields score the same city, each for its own owner.
 *
 *          x=0   x=1
 *   y=-1   E2              P0 on E's outer field
 *   y= 0   D0    U0        P1 on U's north field, joined to D's strip
 *                          between city and road
 *
 * The city D+E is complete (no owner). The two fields are separate ((1,-1)
 * is empty) and both touch it: 3 to P0 and 3 to P1.
 */
static void test_s17_two_fields_same_city(void **state)
{
    (void)state;
    carc_state s;
    START(&s, 2, 4, true);
    BAG(&s, "EU");
    TURN(&s, 0, 'E', 0, -1, 2, "N");
    TURN(&s, 1, 'U', 1, 0, 0, "N");
    OVER(&s);
    SCORES(&s, 3, 3);
}

/* S18 — farms=false: no meeple may stand on a field, fields score nothing.
 *
 * Board of S17. T1 P0: E (0,-1) rot 2: the field is refused; legal meeple
 * moves are exactly none + city; P0 takes the city, which the tile
 * completes: 4. T2 P1: U (1,0): field refused, P1 takes the road D-U.
 * End: P1's road 2 tiles = 2. Final 4, 2.
 */
static void test_s18_no_farms(void **state)
{
    (void)state;
    carc_state s;
    START(&s, 2, 4, false);
    BAG(&s, "EU");
    PLACE(&s, 0, 'E', 0, -1, 2);
    REFUSE(&s, "N");
    REFUSE(&s, "E");
    check_eq_(nlegal(&s), 2, "none + city", __FILE__, __LINE__);
    MEEPLE(&s, "S");
    SCORES(&s, 4, 0);
    VIRTUAL(&s, 4, 0);
    PLACE(&s, 1, 'U', 1, 0, 0);
    REFUSE(&s, "N");
    REFUSE(&s, "S");
    check_eq_(nlegal(&s), 2, "none + road", __FILE__, __LINE__);
    MEEPLE(&s, "E");
    OVER(&s);
    SCORES(&s, 4, 2);
}

/* S30 — a road separates two fields.
 *
 *          x=-1  x=0   x=1
 *   y=-1         E2              closes D's city (no owner)
 *   y= 0   U0    D0    U0        U0 east: P1 south field; U0 west: P0 north
 *
 * P0's field (north of the road: U, D's strip, U) touches the complete
 * city D+E: 3. P1's field (south of the road) touches no city: 0.
 */
static void test_s30_road_separates_fields(void **state)
{
    (void)state;
    carc_state s;
    START(&s, 2, 4, true);
    BAG(&s, "EUU");
    TURN(&s, 0, 'E', 0, -1, 2, NULL);
    SCORES(&s, 0, 0);
    TURN(&s, 1, 'U', 1, 0, 0, "S");
    TURN(&s, 0, 'U', -1, 0, 0, "N");
    OVER(&s);
    SCORES(&s, 3, 0);
}

/* S31 — fields merged around the end of a road: majority 2 to 1.
 *
 *          x=-1  x=0   x=1   x=2
 *   y=-1         E2    E0              E2: P1's field; E0: P1's city
 *   y= 0   U0    D0    U0    A1        U0 west: P0 north field;
 *                                      U0 east: P0 south field; A1: P0 monk
 *
 * T1 P0: U (-1,0), meeple on the north field (U + D's strip).
 * T2 P1: E (0,-1) rot 2 closes D's city (no owner), meeple on E's field.
 * T3 P0: U (1,0), meeple on the south field (D's south + both U's south).
 * T4 P1: E (1,-1) rot 0 joins E's field and the north field; meeple on its
 *        city (open).
 * T5 P0: A (2,0) rot 1: the road ends at the cloister, whose one field
 *        wraps round the road end and joins north and south fields.
 *        P0 monk on A.
 * End: one field, P0 2 meeples vs P1 1: P0 alone scores it; it touches
 * city D+E (complete) and E (1,-1) (open): 3.
 * P0: field 3 + cloister 1 + 2 neighbours (E, U) = 6. P1: city 1 tile = 1.
 */
static void test_s31_field_majority(void **state)
{
    (void)state;
    carc_state s;
    START(&s, 2, 4, true);
    BAG(&s, "UEUEA");
    TURN(&s, 0, 'U', -1, 0, 0, "N");
    TURN(&s, 1, 'E', 0, -1, 2, "N");
    TURN(&s, 0, 'U', 1, 0, 0, "S");
    PLACE(&s, 1, 'E', 1, -1, 0);
    REFUSE(&s, "S"); /* the merged field */
    MEEPLE(&s, "N");
    TURN(&s, 0, 'A', 2, 0, 1, "C");
    OVER(&s);
    SCORES(&s, 6, 1);
}

/* S32 — tiny_city=2: the two-tile city scores 2 to its owner, but a field
 * touching it still gets 3.
 *
 *          x=0   x=1
 *   y=-1   E2              P0 on the city (closed at once: 2)
 *   y= 0   D0    U0        P1 on U's north field (touches D's city)
 */
static void test_s32_tiny_city_and_field(void **state)
{
    (void)state;
    carc_state s;
    START(&s, 2, 2, true);
    BAG(&s, "EU");
    TURN(&s, 0, 'E', 0, -1, 2, "S");
    SCORES(&s, 2, 0);
    TURN(&s, 1, 'U', 1, 0, 0, "N");
    OVER(&s);
    SCORES(&s, 2, 3);
}

/* S34 — the field of an H touches both of its cities.
 *
 *          x=0
 *   y=-2   E2          P1 on the city (H north + E: closed at once, 4)
 *   y=-1   H0          P0 on H's field (sides E and W)
 *   y= 0   D0          H's south city + D: closed by T1, no owner
 *
 * After T1: the field touches one complete city, one open: virtual 3.
 * End: both complete: 6 to P0. Final 6, 4.
 */
static void test_s34_h_field_two_cities(void **state)
{
    (void)state;
    carc_state s;
    START(&s, 2, 4, true);
    BAG(&s, "HE");
    TURN(&s, 0, 'H', 0, -1, 0, "E");
    SCORES(&s, 0, 0);
    VIRTUAL(&s, 3, 0);
    TURN(&s, 1, 'E', 0, -2, 2, "S"); /* the last tile */
    OVER(&s);
    SCORES(&s, 6, 4);
}

/* ======================================================================== */
/* Turn structure: dead tiles, the last tile, meeple supply                 */
/* ======================================================================== */

/* S19 — a dead tile mid-game. After E closes D's city, every open cell
 * needs a field or road side, so C (all city) fits nowhere: drawn, it is
 * discarded and the same player draws again.
 *
 *          x=0
 *   y=-1   E2      open cells: (0,-2) S=F, (-1,-1) E=F, (1,-1) W=F,
 *   y= 0   D0      (1,0) W=R, (-1,0) E=R, (0,1) N=F
 *
 * T1 P0: E, meeple on the city -> 4. P1 draws C: discarded (discards 1,
 * still P1 to draw). P1 draws U, places it: the bag is empty, game over.
 */
static void test_s19_dead_tile(void **state)
{
    (void)state;
    carc_state s;
    START(&s, 2, 4, true);
    BAG(&s, "ECU");
    TURN(&s, 0, 'E', 0, -1, 2, "S");
    SCORES(&s, 4, 0);
    int c = carc_type_of_letter('C');
    check_eq_(carc_count_placements(&s, c), 0, "C fits nowhere", __FILE__, __LINE__);
    check_eq_(carc_count_placements(&s, carc_type_of_letter('U')) > 0, 1, "U fits", __FILE__,
              __LINE__);
    DRAW(&s, 'C');
    check_eq_(carc_game.current_player(&s), ENG_CHANCE, "draw again", __FILE__, __LINE__);
    check_eq_(s.player, 1, "same player draws again", __FILE__, __LINE__);
    check_eq_(s.discards, 1, "one discard", __FILE__, __LINE__);
    check_eq_(s.bag_n, 1, "one tile left", __FILE__, __LINE__);
    check_eq_(s.bag[c], 0, "the C is gone", __FILE__, __LINE__);
    check_eq_(s.nplaced, 2, "nothing placed", __FILE__, __LINE__);
    SCORES(&s, 4, 0);
    TURN(&s, 1, 'U', 1, 0, 0, NULL);
    OVER(&s);
    SCORES(&s, 4, 0);
    check_eq_(s.discards, 1, "still one discard", __FILE__, __LINE__);
}

/* S20 — the last tile is dead: discarding it ends the game, and the end
 * scoring still happens.
 *
 * T1 P0: E (0,-1) rot 2, meeple on its field (the city D+E closes, no
 * owner). P1 draws C, the last tile: discarded, game over. P0's field
 * touches the completed city: 3.
 */
static void test_s20_dead_last_tile(void **state)
{
    (void)state;
    carc_state s;
    START(&s, 2, 4, true);
    BAG(&s, "EC");
    TURN(&s, 0, 'E', 0, -1, 2, "N");
    SCORES(&s, 0, 0);
    DRAW(&s, 'C');
    check_eq_(s.discards, 1, "one discard", __FILE__, __LINE__);
    OVER(&s);
    SCORES(&s, 3, 0);
}

/* S21 — the last tile: the game ends after its meeple step; incomplete
 * city, road and cloister are scored.
 *
 *          x=-1  x=0   x=1
 *   y= 0   U0    D0    L0        L0: P0 on its city; U0: P1 on the road
 *   y= 1         B0              B0: P0's monk, the last tile
 *
 * Road U,D,L (L ends it, the west end is open): 3 to P1.
 * P0: city L 1 tile = 1; cloister 1 + neighbours U, D, L = 4 -> 5.
 */
static void test_s21_last_tile_end_scoring(void **state)
{
    (void)state;
    carc_state s;
    START(&s, 2, 4, true);
    BAG(&s, "LUB");
    TURN(&s, 0, 'L', 1, 0, 0, "N");
    TURN(&s, 1, 'U', -1, 0, 0, "W");
    VIRTUAL(&s, 1, 3);
    SCORES(&s, 0, 0);
    PLACE(&s, 0, 'B', 0, 1, 0);
    check_eq_(carc_game.current_player(&s), 0, "meeple step before the end", __FILE__, __LINE__);
    MEEPLE(&s, "C");
    OVER(&s);
    SCORES(&s, 5, 3);
    double ret[ENG_MAX_PLAYERS];
    carc_game.returns(&s, ret);
    check_eq_((long)ret[0], 1, "P0 wins", __FILE__, __LINE__);
    check_eq_((long)ret[1], 0, "P1 loses", __FILE__, __LINE__);
}

/* S27 — out of meeples: the eighth meeple is refused, only "none" is legal.
 *
 *          x=-2  x=-1  x=0   x=1   x=2   x=3
 *   y=-2               E0
 *   y=-1         E0    E2    E0    E0
 *   y= 0         U0    D0    U0                 U0 east: P0 on the road
 *   y= 1   A0    B0    B0    B0    B0    A0     every cloister: P0's monk
 *   y= 2               V0    V3
 *
 * P0 places monks on B (0,1), B (1,1), B (-1,1), B (2,1), A (-2,1),
 * A (3,1) and a meeple on the road of U (1,0): 7 meeples, none left.
 * P1 fills in with no meeples (E (0,-1) closes D's city, unowned).
 * T15 P0: V (1,2): legal meeple moves = {none}; the road is refused.
 * End: cloisters B(0,1) 1+7 = 8, B(1,1) 1+6 = 7, B(-1,1) 1+5 = 6,
 * B(2,1) 1+4 = 5, A(-2,1) 1+2 = 3, A(3,1) 1+1 = 2; road U,D,U = 3.
 * P0 = 8+7+6+5+3+2+3 = 34, P1 0.
 */
static void test_s27_out_of_meeples(void **state)
{
    (void)state;
    carc_state s;
    START(&s, 2, 4, true);
    BAG(&s, "BEBEBEBEAEAVUUV");
    TURN(&s, 0, 'B', 0, 1, 0, "C");
    TURN(&s, 1, 'E', 0, -1, 2, NULL);
    TURN(&s, 0, 'B', 1, 1, 0, "C");
    TURN(&s, 1, 'E', 0, -2, 0, NULL);
    TURN(&s, 0, 'B', -1, 1, 0, "C");
    TURN(&s, 1, 'E', 1, -1, 0, NULL);
    TURN(&s, 0, 'B', 2, 1, 0, "C");
    TURN(&s, 1, 'E', -1, -1, 0, NULL);
    TURN(&s, 0, 'A', -2, 1, 0, "C");
    TURN(&s, 1, 'E', 2, -1, 0, NULL);
    TURN(&s, 0, 'A', 3, 1, 0, "C");
    TURN(&s, 1, 'V', 0, 2, 0, NULL);
    SUPPLY(&s, 1, 7);
    TURN(&s, 0, 'U', 1, 0, 0, "E");
    SUPPLY(&s, 0, 7);
    TURN(&s, 1, 'U', -1, 0, 0, NULL);
    SCORES(&s, 0, 0);
    PLACE(&s, 0, 'V', 1, 2, 3);
    check_eq_(nlegal(&s), 1, "only 'none' without meeples", __FILE__, __LINE__);
    REFUSE(&s, "E");
    REFUSE(&s, "N");
    MEEPLE(&s, NULL);
    OVER(&s);
    SCORES(&s, 34, 0);
}

/* S29 — one tile completes two features of two owners.
 *
 *          x=-1  x=0   x=1
 *   y=-1         N2    N3          N2: P1's city (with D); N3: city W+S
 *   y= 0   T3    D0    L0          T3: P0's road; L0 closes road and city
 *
 * T1 P0: T (-1,0) rot 3, meeple on the road (T-D, open east).
 * T2 P1: N (0,-1) rot 2, meeple S on the city D+N (open east).
 * T3 P0: N (1,-1) rot 3 extends P1's city (refused for P0).
 * T4 P1: L (1,0) rot 0 closes both: road T,D,L = 3 to P0; city
 *        D,N,N,L = 4 tiles = 8 to P1. P1's new meeple on L's east road
 *        stays out.
 */
static void test_s29_one_tile_closes_two_features(void **state)
{
    (void)state;
    carc_state s;
    START(&s, 2, 4, true);
    TURN(&s, 0, 'T', -1, 0, 3, "E");
    TURN(&s, 1, 'N', 0, -1, 2, "S");
    PLACE(&s, 0, 'N', 1, -1, 3);
    REFUSE(&s, "W");
    MEEPLE(&s, NULL);
    VIRTUAL(&s, 2, 3);
    TURN(&s, 1, 'L', 1, 0, 0, "E");
    SCORES(&s, 3, 8);
    SUPPLY(&s, 7, 6);
    VIRTUAL(&s, 3, 9);
}

/* S36 — the opening: placements counted by hand, symmetric rotations are
 * one placement.
 *
 *          x=0
 *   y=-1   .       needs S = city
 *   y= 0   D0      (1,0) needs W = road, (-1,0) E = road, (0,1) N = field
 *
 * C: only (0,-1), one distinct rotation -> 1.  B: only (0,1) -> 1.
 * U: (1,0) and (-1,0) with rot 0; (0,1) with rot 0 (N field) -> 3.
 * E: (0,-1) rot 2; (0,1) rot 1, 2, 3 (city E, S, W) -> 4.
 * X: (1,0) and (-1,0) -> 2.  G: (0,-1) rot 1 (city N-S); (0,1) rot 0 -> 2.
 * G rot 3 is G rot 1: the same move; G rot 0 at (0,-1) puts a field
 * against D's city: illegal. Then G rot 3 is played: D's city continues
 * through G to the north.
 */
static void test_s36_opening_placements(void **state)
{
    (void)state;
    carc_state s;
    START(&s, 2, 4, true);
    check_eq_(carc_count_placements(&s, carc_type_of_letter('C')), 1, "C", __FILE__, __LINE__);
    check_eq_(carc_count_placements(&s, carc_type_of_letter('B')), 1, "B", __FILE__, __LINE__);
    check_eq_(carc_count_placements(&s, carc_type_of_letter('U')), 3, "U", __FILE__, __LINE__);
    check_eq_(carc_count_placements(&s, carc_type_of_letter('E')), 4, "E", __FILE__, __LINE__);
    check_eq_(carc_count_placements(&s, carc_type_of_letter('X')), 2, "X", __FILE__, __LINE__);
    check_eq_(carc_count_placements(&s, carc_type_of_letter('G')), 2, "G", __FILE__, __LINE__);
    DRAW(&s, 'G');
    check_eq_(nlegal(&s), 2, "G: two legal placements", __FILE__, __LINE__);
    eng_move m1 = -1, m3 = -2, m0 = -3;
    check_eq_(carc_place_move(&s, 0, -1, 1, &m1), 0, "G rot 1", __FILE__, __LINE__);
    check_eq_(carc_place_move(&s, 0, -1, 3, &m3), 0, "G rot 3", __FILE__, __LINE__);
    check_eq_(m1, m3, "rot 3 is rot 1", __FILE__, __LINE__);
    check_eq_(carc_place_move(&s, 0, -1, 0, &m0), ENG_EILLEGAL_MOVE, "G rot 0", __FILE__, __LINE__);
    check_eq_(carc_place_move(&s, 1, 0, 0, &m0), ENG_EILLEGAL_MOVE, "G at (1,0)", __FILE__,
              __LINE__);
    check_eq_(carc_place_move(&s, 2, 0, 0, &m0), ENG_EILLEGAL_MOVE, "not adjacent", __FILE__,
              __LINE__);
    check_eq_(carc_place_move(&s, 0, 0, 0, &m0), ENG_EILLEGAL_MOVE, "occupied", __FILE__, __LINE__);
    carc_game.apply(&s, m3);
    MEEPLE(&s, "N");
    VIRTUAL(&s, 2, 0); /* city D+G open: 2 tiles */
}

/* S37 — a tile whose two cities both join the same city: one meeple option
 * for the city, and the tile completes it.
 *
 *          x=-1  x=0   x=1
 *   y= 0         D0    U0
 *   y= 1   N2    H1    N3        H1 placed last, into the hole
 *   y= 2   N1    G0    M0
 *
 * The ring N,M,G,N,N is built first (one city, open at (0,1) on both
 * sides). H (0,1) rot 1 joins its west and east cities into that one
 * city and closes it. Meeple options: none, the city, H's field = 3;
 * ports W and E name the same move. P0 takes it: tiles H,N,M,G,N,N = 6,
 * 1 pennant: 6*2 + 2 = 14 at once.
 */
static void test_s37_tile_joins_its_two_cities(void **state)
{
    (void)state;
    carc_state s;
    START(&s, 2, 4, true);
    TURN(&s, 0, 'U', 1, 0, 0, NULL);
    TURN(&s, 1, 'N', 1, 1, 3, NULL);
    TURN(&s, 0, 'M', 1, 2, 0, NULL);
    TURN(&s, 1, 'G', 0, 2, 0, NULL);
    TURN(&s, 0, 'N', -1, 2, 1, NULL);
    TURN(&s, 1, 'N', -1, 1, 2, NULL);
    PLACE(&s, 0, 'H', 0, 1, 1);
    check_eq_(nlegal(&s), 3, "none + city + field", __FILE__, __LINE__);
    eng_move mw = -1, me = -2;
    check_eq_(carc_meeple_move(&s, carc_port_of_name("W"), &mw), 0, "W", __FILE__, __LINE__);
    check_eq_(carc_meeple_move(&s, carc_port_of_name("E"), &me), 0, "E", __FILE__, __LINE__);
    check_eq_(mw, me, "one city, one move", __FILE__, __LINE__);
    MEEPLE(&s, "W");
    SCORES(&s, 14, 0);
    SUPPLY(&s, 7, 7);
}

/* ======================================================================== */
/* Four and five players                                                     */
/* ======================================================================== */

/* S25 — four players: the tie of S13 with two more seats on fields.
 *
 *          x=0   x=1
 *   y=-2   N2    N3        N2: P2 on its field (N);  N3: P3 on its field (N)
 *   y=-1   G1    E0        G1: P0 city;  E0: P1 city
 *   y= 0   D0
 *
 * T4 P3 closes the city D,G,N,N,E = 5 tiles = 10 to P0 and P1 (tie).
 * End: P2's and P3's fields (separate) each touch that city: 3 each.
 * Virtual after T3: P0 3 (D,G,N open), P1 1, the fields 0.
 */
static void test_s25_four_players(void **state)
{
    (void)state;
    carc_state s;
    START(&s, 4, 4, true);
    BAG(&s, "GENN");
    TURN(&s, 0, 'G', 0, -1, 1, "N");
    TURN(&s, 1, 'E', 1, -1, 0, "N");
    PLACE(&s, 2, 'N', 0, -2, 2);
    REFUSE(&s, "S");
    MEEPLE(&s, "N");
    VIRTUAL(&s, 3, 1, 0, 0);
    PLACE(&s, 3, 'N', 1, -2, 3);
    REFUSE(&s, "W");
    MEEPLE(&s, "N"); /* the last tile: the city scores, then the end */
    OVER(&s);
    SCORES(&s, 10, 10, 3, 3);
}

/* S26 — five players, each with a meeple; turn order wraps to P0.
 *
 *          x=-1  x=0   x=1
 *   y= 0   U0    D0    U0        U0 east: P1 road; U0 west: P2 north field
 *   y= 1   E3    B0    E1        B0: P0 monk; E3: P3 city W; E1: P4 city E
 *   y= 2   E2    E2    E2        placed by P0, P1, P2
 *
 * T8 (P2) completes the cloister: 9 to P0.
 * End: P1 road U,D,U = 3; P2's field touches only D's open city: 0;
 * P3 and P4 cities of one tile: 1 each.  Final 9, 3, 0, 1, 1.
 */
static void test_s26_five_players(void **state)
{
    (void)state;
    carc_state s;
    START(&s, 5, 4, true);
    BAG(&s, "BUUEEEEE");
    TURN(&s, 0, 'B', 0, 1, 0, "C");
    TURN(&s, 1, 'U', 1, 0, 0, "E");
    PLACE(&s, 2, 'U', -1, 0, 0);
    REFUSE(&s, "W");
    MEEPLE(&s, "N");
    TURN(&s, 3, 'E', -1, 1, 3, "W");
    TURN(&s, 4, 'E', 1, 1, 1, "E");
    SUPPLY(&s, 6, 6, 6, 6, 6);
    VIRTUAL(&s, 6, 3, 0, 1, 1); /* cloister: 1 + D, U, U, E, E */
    TURN(&s, 0, 'E', -1, 2, 2, NULL);
    TURN(&s, 1, 'E', 0, 2, 2, NULL);
    TURN(&s, 2, 'E', 1, 2, 2, NULL);
    OVER(&s);
    SCORES(&s, 9, 3, 0, 1, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_s01_tiny_city_completed_by_own_tile),
        cmocka_unit_test(test_s02_tiny_city_old_rule),
        cmocka_unit_test(test_s03_pennant_city_tiny4),
        cmocka_unit_test(test_s04_pennant_city_tiny2),
        cmocka_unit_test(test_s05_incomplete_pennant_city_at_end),
        cmocka_unit_test(test_s06_three_players_c_tile_city_and_fields),
        cmocka_unit_test(test_s07_road_city_to_junction),
        cmocka_unit_test(test_s08_road_loop),
        cmocka_unit_test(test_s09_road_cloister_to_city),
        cmocka_unit_test(test_s10_roads_at_junctions),
        cmocka_unit_test(test_s11_cloister_completed),
        cmocka_unit_test(test_s12_cloister_incomplete_at_end),
        cmocka_unit_test(test_s13_merged_city_tie),
        cmocka_unit_test(test_s14_merged_city_majority),
        cmocka_unit_test(test_s15_meeple_refused_on_occupied_road),
        cmocka_unit_test(test_s16_field_several_cities),
        cmocka_unit_test(test_s17_two_fields_same_city),
        cmocka_unit_test(test_s18_no_farms),
        cmocka_unit_test(test_s19_dead_tile),
        cmocka_unit_test(test_s20_dead_last_tile),
        cmocka_unit_test(test_s21_last_tile_end_scoring),
        cmocka_unit_test(test_s22_h_ring_counts_h_once),
        cmocka_unit_test(test_s23_h_ring_open_at_end),
        cmocka_unit_test(test_s24_three_players_road_tie),
        cmocka_unit_test(test_s25_four_players),
        cmocka_unit_test(test_s26_five_players),
        cmocka_unit_test(test_s27_out_of_meeples),
        cmocka_unit_test(test_s28_cloister_completes_itself),
        cmocka_unit_test(test_s29_one_tile_closes_two_features),
        cmocka_unit_test(test_s30_road_separates_fields),
        cmocka_unit_test(test_s31_field_majority),
        cmocka_unit_test(test_s32_tiny_city_and_field),
        cmocka_unit_test(test_s33_two_pennants_and_a_field),
        cmocka_unit_test(test_s34_h_field_two_cities),
        cmocka_unit_test(test_s35_road_loop_through_one_crossing),
        cmocka_unit_test(test_s36_opening_placements),
        cmocka_unit_test(test_s37_tile_joins_its_two_cities),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
