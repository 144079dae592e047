/*
 * test_carc_tiles.c — the 24 Carcassonne tile types checked against the
 * table in docs/rules.md ("Tiles"), written out again here by hand.
 *
 * The expectations below are deliberately independent of tiles.c: each tile
 * is described as its edge kinds (N E S W) and a list of features, each with
 * the ports it covers in the unrotated tile, its pennant, and (for fields)
 * the ports of the cities it touches. The tests check the engine's model —
 * counts, edges, port -> feature maps, field -> city adjacency, pennants,
 * cloisters, every rotation and which rotations are distinct — against that
 * description. A few types are also written out rotation by rotation, so that
 * the rotation rule itself ("rotating once moves the N edge to E") is checked
 * without using any formula.
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

/* ---- the hand-written table ---------------------------------------------- */

/* Port names in the order of enum carc_port (checked in test_port_names). */
static const char *const pname[CARC_NPORTS] = {
    "NW", "N", "NE", "EN", "E", "ES", "SE", "S", "SW", "WS", "W", "WN", "C",
};

typedef struct feat_spec {
    char kind;          /* 'c' city, 'r' road, 'f' field, 'k' cloister */
    const char *ports;  /* ports covered, space-separated */
    bool pennant;       /* city with a pennant */
    const char *cities; /* field: one port of each city it touches ("" none) */
} feat_spec;

typedef struct tile_spec {
    char letter;
    int count;                      /* copies in the game, start tile included */
    const char *edges;              /* N E S W: C city, R road, F field */
    int distinct;                   /* distinct rotations, from the tile's symmetry */
    feat_spec f[CARC_MAX_SEGS + 1]; /* ends with kind 0 */
} tile_spec;

/* Port lists used repeatedly: the three ports of an edge. */
#define PN "NW N NE"
#define PE "EN E ES"
#define PS "SE S SW"
#define PW "WS W WN"

/* The table of docs/rules.md. Distinct rotations: a tile with full rotational symmetry
 * (B, C, X) has 1; one that looks the same after a half turn (F, G, H, U) has
 * 2; every other tile has 4 (A: the road picks a side; I: the two cities are
 * on adjacent sides, so a half turn moves them to S and E). */
/* clang-format off */
static const tile_spec spec[CARC_NTYPES] = {
    {'A', 2, "FFRF", 4,
     {{'k', "C", false, NULL},
      {'r', "S", false, NULL},
      {'f', PN " " PE " SE SW " PW, false, ""}}},
    {'B', 4, "FFFF", 1,
     {{'k', "C", false, NULL},
      {'f', PN " " PE " " PS " " PW, false, ""}}},
    {'C', 1, "CCCC", 1,
     {{'c', PN " " PE " " PS " " PW, true, NULL}}},
    {'D', 4, "CRFR", 4,
     {{'c', PN, false, NULL},
      {'r', "W E", false, NULL},
      {'f', "WN EN", false, "N"},
      {'f', "WS " PS " ES", false, ""}}},
    {'E', 5, "CFFF", 4,
     {{'c', PN, false, NULL},
      {'f', PE " " PS " " PW, false, "N"}}},
    {'F', 2, "FCFC", 2,
     {{'c', PE " " PW, true, NULL},
      {'f', PN, false, "E"},
      {'f', PS, false, "W"}}},
    {'G', 1, "FCFC", 2,
     {{'c', PE " " PW, false, NULL},
      {'f', PN, false, "W"},
      {'f', PS, false, "E"}}},
    {'H', 3, "CFCF", 2,
     {{'c', PN, false, NULL},
      {'c', PS, false, NULL},
      {'f', PE " " PW, false, "N S"}}},
    {'I', 2, "CFFC", 4,
     {{'c', PN, false, NULL},
      {'c', PW, false, NULL},
      {'f', PE " " PS, false, "N W"}}},
    {'J', 3, "CRRF", 4,
     {{'c', PN, false, NULL},
      {'r', "E S", false, NULL},
      {'f', "EN SW " PW, false, "N"},
      {'f', "ES SE", false, ""}}},
    {'K', 3, "CFRR", 4,
     {{'c', PN, false, NULL},
      {'r', "S W", false, NULL},
      {'f', "WN " PE " SE", false, "N"},
      {'f', "WS SW", false, ""}}},
    {'L', 3, "CRRR", 4,
     {{'c', PN, false, NULL},
      {'r', "E", false, NULL},
      {'r', "S", false, NULL},
      {'r', "W", false, NULL},
      {'f', "WN EN", false, "N"},
      {'f', "WS SW", false, ""},
      {'f', "ES SE", false, ""}}},
    {'M', 2, "CFFC", 4,
     {{'c', PN " " PW, true, NULL},
      {'f', PE " " PS, false, "N"}}},
    {'N', 3, "CFFC", 4,
     {{'c', PN " " PW, false, NULL},
      {'f', PE " " PS, false, "W"}}},
    {'O', 2, "CRRC", 4,
     {{'c', PN " " PW, true, NULL},
      {'r', "E S", false, NULL},
      {'f', "EN SW", false, "N"},
      {'f', "ES SE", false, ""}}},
    {'P', 3, "CRRC", 4,
     {{'c', PN " " PW, false, NULL},
      {'r', "E S", false, NULL},
      {'f', "EN SW", false, "W"},
      {'f', "ES SE", false, ""}}},
    {'Q', 1, "CCFC", 4,
     {{'c', PN " " PE " " PW, true, NULL},
      {'f', PS, false, "N"}}},
    {'R', 3, "CCFC", 4,
     {{'c', PN " " PE " " PW, false, NULL},
      {'f', PS, false, "E"}}},
    {'S', 2, "CCRC", 4,
     {{'c', PN " " PE " " PW, true, NULL},
      {'r', "S", false, NULL},
      {'f', "SE", false, "N"},
      {'f', "SW", false, "W"}}},
    {'T', 1, "CCRC", 4,
     {{'c', PN " " PE " " PW, false, NULL},
      {'r', "S", false, NULL},
      {'f', "SE", false, "E"},
      {'f', "SW", false, "N"}}},
    {'U', 8, "FRFR", 2,
     {{'r', "W E", false, NULL},
      {'f', "WN " PN " EN", false, ""},
      {'f', "ES " PS " WS", false, ""}}},
    {'V', 9, "FFRR", 4,
     {{'r', "W S", false, NULL},
      {'f', "WN " PN " " PE " SE", false, ""},
      {'f', "SW WS", false, ""}}},
    {'W', 4, "FRRR", 4,
     {{'r', "E", false, NULL},
      {'r', "S", false, NULL},
      {'r', "W", false, NULL},
      {'f', "WN " PN " EN", false, ""},
      {'f', "ES SE", false, ""},
      {'f', "SW WS", false, ""}}},
    {'X', 1, "RRRR", 1,
     {{'r', "N", false, NULL},
      {'r', "E", false, NULL},
      {'r', "S", false, NULL},
      {'r', "W", false, NULL},
      {'f', "WN NW", false, ""},
      {'f', "NE EN", false, ""},
      {'f', "ES SE", false, ""},
      {'f', "SW WS", false, ""}}},
};
/* clang-format on */

/* ---- helpers --------------------------------------------------------------- */

static int port_index(const char *name, size_t len)
{
    for (int p = 0; p < CARC_NPORTS; p++)
        if (strlen(pname[p]) == len && strncmp(pname[p], name, len) == 0)
            return p;
    fail_msg("unknown port name '%.*s' in the test table", (int)len, name);
    return -1;
}

/* Parse a space-separated port list into a bit mask (bit p = port p). */
static unsigned port_mask(const char *list)
{
    unsigned m = 0;
    const char *s = list;
    while (*s) {
        while (*s == ' ')
            s++;
        const char *e = s;
        while (*e && *e != ' ')
            e++;
        if (e > s) {
            int p = port_index(s, (size_t)(e - s));
            assert_false(m & (1u << p)); /* no port twice */
            m |= 1u << p;
        }
        s = e;
    }
    return m;
}

/* Board port of unrotated port p after rot clockwise quarter turns. */
static int turn_port(int p, int rot)
{
    return p == CARC_C ? p : (p + 3 * rot) % 12;
}

static unsigned turn_mask(unsigned m, int rot)
{
    unsigned out = 0;
    for (int p = 0; p < CARC_NPORTS; p++)
        if (m & (1u << p))
            out |= 1u << turn_port(p, rot);
    return out;
}

static int kind_of(char k)
{
    switch (k) {
    case 'c':
    case 'C': return CARC_CITY;
    case 'r':
    case 'R': return CARC_ROAD;
    case 'f':
    case 'F': return CARC_FIELD;
    case 'k': return CARC_CLOISTER;
    default: fail_msg("bad kind '%c' in the test table", k); return -1;
    }
}

static int nfeat(const tile_spec *t)
{
    int n = 0;
    while (n < CARC_MAX_SEGS && t->f[n].kind)
        n++;
    return n;
}

/* The local feature index covering every port of `mask` in tile tl, which
 * must be the same for all of them and cover no other port. */
static int seg_of(const carc_tile *tl, unsigned mask, char letter, int rot)
{
    int seg = -1;
    for (int p = 0; p < CARC_NPORTS; p++) {
        int s = tl->seg[p];
        if (mask & (1u << p)) {
            if (s == 0xff)
                fail_msg("%c rot %d: port %s has no feature", letter, rot, pname[p]);
            if (seg < 0)
                seg = s;
            else if (s != seg)
                fail_msg("%c rot %d: port %s is feature %d, expected %d", letter, rot, pname[p], s,
                         seg);
        }
    }
    assert_true(seg >= 0);
    for (int p = 0; p < CARC_NPORTS; p++)
        if (!(mask & (1u << p)) && tl->seg[p] == seg)
            fail_msg("%c rot %d: port %s is also on feature %d", letter, rot, pname[p], seg);
    return seg;
}

/* ---- tests ----------------------------------------------------------------- */

static void test_table_is_well_formed(void **state)
{
    (void)state;
    /* Self-check of the hand-written table: every perimeter port is covered
     * by exactly one feature, C exactly when the tile has a cloister, and the
     * edge letters agree with the features at the edge centres. */
    for (int t = 0; t < CARC_NTYPES; t++) {
        const tile_spec *sp = &spec[t];
        assert_int_equal(sp->letter, 'A' + t);
        unsigned all = 0;
        for (int i = 0; i < nfeat(sp); i++) {
            unsigned m = port_mask(sp->f[i].ports);
            assert_int_equal(all & m, 0);
            all |= m;
            for (int d = 0; d < 4; d++)
                if (m & (1u << (3 * d + 1)))
                    assert_int_equal(kind_of(sp->edges[d]), kind_of(sp->f[i].kind));
        }
        bool cloister = sp->letter == 'A' || sp->letter == 'B';
        assert_int_equal(all, cloister ? 0x1fffu : 0x0fffu);
    }
}

/* What the engine's fast paths assume of the tile model: a field touches at
 * most two cities of its tile (field_value takes two without a loop), a
 * tile has at most 8 features and a cloister tile at most one road (the
 * bound on features one placement completes, CARC_MAX_COMPLETE), and the
 * cloister tiles are the CARC_NCLOISTERS the cloister table holds. */
static void test_engine_assumptions(void **state)
{
    (void)state;
    const carc_type *ty = carc_types();
    int cloisters = 0, segments = 0;
    for (int t = 0; t < CARC_NTYPES; t++) {
        assert_true(ty[t].nseg <= CARC_MAX_SEGS);
        int roads = 0, has_cloister = 0;
        for (int g = 0; g < ty[t].nseg; g++) {
            if (ty[t].kind[g] == CARC_FIELD)
                assert_true(__builtin_popcount(ty[t].cities[g]) <= 2);
            roads += ty[t].kind[g] == CARC_ROAD;
            has_cloister |= ty[t].kind[g] == CARC_CLOISTER;
        }
        if (has_cloister)
            assert_true(roads <= 1);
        cloisters += has_cloister * ty[t].count;
        segments += ty[t].nseg * ty[t].count;
    }
    assert_int_equal(cloisters, CARC_NCLOISTERS);
    assert_int_equal(segments, 243);
    assert_true(CARC_MAX_COMPLETE >= 4 + CARC_NCLOISTERS);
}

static void test_counts(void **state)
{
    (void)state;
    const carc_type *ty = carc_types();
    int total = 0, pennants = 0, cloisters = 0;
    for (int t = 0; t < CARC_NTYPES; t++) {
        assert_int_equal(ty[t].letter, spec[t].letter);
        assert_int_equal(ty[t].count, spec[t].count);
        total += ty[t].count;
        for (int s = 0; s < ty[t].nseg; s++) {
            if (ty[t].pennant[s])
                pennants += ty[t].count;
            if (ty[t].kind[s] == CARC_CLOISTER)
                cloisters += ty[t].count;
        }
    }
    assert_int_equal(total, 72);
    assert_int_equal(total, CARC_NTILES);
    assert_int_equal(pennants, 10);
    assert_int_equal(cloisters, 6);
    assert_int_equal(ty[carc_type_of_letter('D')].count, 4);

    /* The start tile is one of the four Ds: 71 tiles in the bag, 3 Ds. */
    eng_rules r;
    eng_rules_default(&carc_game, &r);
    static carc_state s;
    assert_int_equal(eng_init(&carc_game, &s, &r, NULL, 0), 0);
    assert_int_equal(s.bag_n, 71);
    assert_int_equal(s.bag[carc_type_of_letter('D')], 3);
    assert_int_equal(s.bag[carc_type_of_letter('U')], 8);
    assert_int_equal(s.nplaced, 1);
    const carc_placed *start = carc_tile_at(&s, 0, 0);
    assert_non_null(start);
    assert_int_equal(start->type, carc_type_of_letter('D'));
    assert_int_equal(start->rot, 0);
}

static void test_letters_and_ports(void **state)
{
    (void)state;
    for (int t = 0; t < CARC_NTYPES; t++) {
        assert_int_equal(carc_type_of_letter((char)('A' + t)), t);
        assert_int_equal(carc_type_of_letter((char)('a' + t)), t);
    }
    assert_int_equal(carc_type_of_letter('Y'), -1);
    assert_int_equal(carc_type_of_letter('@'), -1);
    assert_int_equal(CARC_NPORTS, 13);
    for (int p = 0; p < CARC_NPORTS; p++) {
        assert_int_equal(carc_port_of_name(pname[p]), p);
        assert_string_equal(carc_port_name(p), pname[p]);
        char lower[3] = {0};
        for (int i = 0; pname[p][i]; i++)
            lower[i] = (char)(pname[p][i] - 'A' + 'a');
        assert_int_equal(carc_port_of_name(lower), p);
    }
    assert_int_equal(carc_port_of_name("X"), -1);
    assert_int_equal(carc_port_of_name("NN"), -1);
    assert_int_equal(carc_port_of_name(""), -1);
    assert_int_equal(carc_port_of_name("NWW"), -1);
}

/* Every type, every rotation: features, kinds, edges, pennants, fields'
 * cities, against the table turned by the rotation rule. */
static void test_features_all_rotations(void **state)
{
    (void)state;
    const carc_type *ty = carc_types();
    for (int t = 0; t < CARC_NTYPES; t++) {
        const tile_spec *sp = &spec[t];
        const carc_type *tt = &ty[t];
        int nf = nfeat(sp);
        assert_int_equal(tt->nseg, nf);
        for (int rot = 0; rot < 4; rot++) {
            const carc_tile *tl = &tt->rot[rot];
            int segs[CARC_MAX_SEGS];
            for (int i = 0; i < nf; i++) {
                unsigned m = turn_mask(port_mask(sp->f[i].ports), rot);
                int s = seg_of(tl, m, sp->letter, rot);
                for (int j = 0; j < i; j++)
                    assert_int_not_equal(segs[j], s);
                segs[i] = s;
                assert_int_equal(tt->kind[s], kind_of(sp->f[i].kind));
                assert_int_equal(tt->pennant[s], sp->f[i].pennant ? 1 : 0);
                if (sp->f[i].kind == 'c' || sp->f[i].kind == 'r') {
                    int edges = 0;
                    for (int d = 0; d < 4; d++)
                        edges += (m >> (3 * d + 1)) & 1;
                    assert_int_equal(tt->edges[s], edges);
                }
            }
            /* fields: the cities they touch, by a port of each */
            for (int i = 0; i < nf; i++) {
                if (sp->f[i].kind != 'f')
                    continue;
                unsigned cm = turn_mask(port_mask(sp->f[i].cities), rot);
                unsigned want = 0;
                for (int p = 0; p < CARC_NPORTS; p++)
                    if (cm & (1u << p)) {
                        int c = tl->seg[p];
                        assert_int_equal(tt->kind[c], CARC_CITY);
                        want |= 1u << c;
                    }
                assert_int_equal(tt->cities[segs[i]], want);
            }
            /* edges: board side d shows the unrotated side d - rot */
            unsigned sig = 0;
            for (int d = 0; d < 4; d++) {
                int k = kind_of(sp->edges[(d - rot + 4) % 4]);
                assert_int_equal(tl->edge[d], k);
                sig |= (unsigned)k << (2 * d);
            }
            assert_int_equal(tl->sig, sig);
        }
    }
}

static void test_distinct_rotations(void **state)
{
    (void)state;
    const carc_type *ty = carc_types();
    for (int t = 0; t < CARC_NTYPES; t++) {
        const carc_type *tt = &ty[t];
        switch (spec[t].distinct) {
        case 1:
            assert_int_equal(tt->rots, 0x1);
            for (int r = 0; r < 4; r++)
                assert_int_equal(tt->canon[r], 0);
            break;
        case 2:
            assert_int_equal(tt->rots, 0x3);
            assert_int_equal(tt->canon[0], 0);
            assert_int_equal(tt->canon[1], 1);
            assert_int_equal(tt->canon[2], 0);
            assert_int_equal(tt->canon[3], 1);
            break;
        default:
            assert_int_equal(tt->rots, 0xf);
            for (int r = 0; r < 4; r++)
                assert_int_equal(tt->canon[r], r);
        }
    }
    /* the ones the brief names */
    assert_int_equal(ty[carc_type_of_letter('B')].rots, 0x1);
    assert_int_equal(ty[carc_type_of_letter('C')].rots, 0x1);
    assert_int_equal(ty[carc_type_of_letter('X')].rots, 0x1);
    assert_int_equal(ty[carc_type_of_letter('U')].rots, 0x3);
    assert_int_equal(ty[carc_type_of_letter('H')].rots, 0x3);
    assert_int_equal(ty[carc_type_of_letter('F')].rots, 0x3);
    assert_int_equal(ty[carc_type_of_letter('G')].rots, 0x3);
    assert_int_equal(ty[carc_type_of_letter('I')].rots, 0xf);
    assert_int_equal(ty[carc_type_of_letter('A')].rots, 0xf);
}

/* ---- a few types written out rotation by rotation (no formula) ------------ */

typedef struct rot_spec {
    const char *edges;              /* N E S W after the rotation */
    feat_spec f[CARC_MAX_SEGS + 1]; /* board ports after the rotation */
} rot_spec;

static void check_rotation(char letter, int rot, const rot_spec *rs)
{
    const carc_type *tt = &carc_types()[carc_type_of_letter(letter)];
    const carc_tile *tl = &tt->rot[rot];
    for (int d = 0; d < 4; d++)
        if (tl->edge[d] != kind_of(rs->edges[d]))
            fail_msg("%c rot %d: side %d is kind %d, expected %c", letter, rot, d, tl->edge[d],
                     rs->edges[d]);
    int n = 0;
    int segs[CARC_MAX_SEGS];
    for (; rs->f[n].kind; n++) {
        int s = seg_of(tl, port_mask(rs->f[n].ports), letter, rot);
        assert_int_equal(tt->kind[s], kind_of(rs->f[n].kind));
        assert_int_equal(tt->pennant[s], rs->f[n].pennant ? 1 : 0);
        for (int j = 0; j < n; j++)
            assert_int_not_equal(segs[j], s);
        segs[n] = s;
        if (rs->f[n].cities) {
            unsigned want = 0;
            unsigned cm = port_mask(rs->f[n].cities);
            for (int p = 0; p < CARC_NPORTS; p++)
                if (cm & (1u << p))
                    want |= 1u << tl->seg[p];
            assert_int_equal(tt->cities[s], want);
        }
    }
    assert_int_equal(n, tt->nseg);
}

static void test_rotations_d(void **state)
{
    (void)state;
    /* D: city N, road W-E; rotating once puts the city east, the road N-S. */
    static const rot_spec d[4] = {
        {"CRFR",
         {{'c', "NW N NE", 0, 0},
          {'r', "W E", 0, 0},
          {'f', "WN EN", 0, "N"},
          {'f', "WS SW S SE ES", 0, ""}}},
        {"RCRF",
         {{'c', "EN E ES", 0, 0},
          {'r', "N S", 0, 0},
          {'f', "NE SE", 0, "E"},
          {'f', "SW WS W WN NW", 0, ""}}},
        {"FRCR",
         {{'c', "SE S SW", 0, 0},
          {'r', "E W", 0, 0},
          {'f', "ES WS", 0, "S"},
          {'f', "WN NW N NE EN", 0, ""}}},
        {"RFRC",
         {{'c', "WS W WN", 0, 0},
          {'r', "N S", 0, 0},
          {'f', "NW SW", 0, "W"},
          {'f', "NE EN E ES SE", 0, ""}}},
    };
    for (int r = 0; r < 4; r++)
        check_rotation('D', r, &d[r]);
}

static void test_rotations_v(void **state)
{
    (void)state;
    /* V: a road curve S-W, turning clockwise W-N, N-E, E-S. */
    static const rot_spec v[4] = {
        {"FFRR",
         {{'r', "S W", 0, 0}, {'f', "SW WS", 0, ""}, {'f', "WN NW N NE EN E ES SE", 0, ""}}},
        {"RFFR",
         {{'r', "W N", 0, 0}, {'f', "WN NW", 0, ""}, {'f', "NE EN E ES SE S SW WS", 0, ""}}},
        {"RRFF",
         {{'r', "N E", 0, 0}, {'f', "NE EN", 0, ""}, {'f', "ES SE S SW WS W WN NW", 0, ""}}},
        {"FRRF",
         {{'r', "E S", 0, 0}, {'f', "ES SE", 0, ""}, {'f', "SW WS W WN NW N NE EN", 0, ""}}},
    };
    for (int r = 0; r < 4; r++)
        check_rotation('V', r, &v[r]);
}

static void test_rotations_i(void **state)
{
    (void)state;
    /* I: two separate cities on adjacent sides N and W. */
    static const rot_spec v[4] = {
        {"CFFC",
         {{'c', "NW N NE", 0, 0}, {'c', "WS W WN", 0, 0}, {'f', "EN E ES SE S SW", 0, "N W"}}},
        {"CCFF",
         {{'c', "NW N NE", 0, 0}, {'c', "EN E ES", 0, 0}, {'f', "SE S SW WS W WN", 0, "N E"}}},
        {"FCCF",
         {{'c', "EN E ES", 0, 0}, {'c', "SE S SW", 0, 0}, {'f', "WS W WN NW N NE", 0, "E S"}}},
        {"FFCC",
         {{'c', "SE S SW", 0, 0}, {'c', "WS W WN", 0, 0}, {'f', "NW N NE EN E ES", 0, "S W"}}},
    };
    for (int r = 0; r < 4; r++)
        check_rotation('I', r, &v[r]);
}

static void test_rotations_s(void **state)
{
    (void)state;
    /* S: city on three sides with a pennant, a road from the open side
     * ending at the city, a small field either side of the road. */
    static const rot_spec v[4] = {
        {"CCRC",
         {{'c', "NW N NE EN E ES WS W WN", 1, 0},
          {'r', "S", 0, 0},
          {'f', "SE", 0, "E"},
          {'f', "SW", 0, "W"}}},
        {"CCCR",
         {{'c', "NW N NE EN E ES SE S SW", 1, 0},
          {'r', "W", 0, 0},
          {'f', "WS", 0, "S"},
          {'f', "WN", 0, "N"}}},
        {"RCCC",
         {{'c', "EN E ES SE S SW WS W WN", 1, 0},
          {'r', "N", 0, 0},
          {'f', "NW", 0, "W"},
          {'f', "NE", 0, "E"}}},
        {"CRCC",
         {{'c', "NW N NE SE S SW WS W WN", 1, 0},
          {'r', "E", 0, 0},
          {'f', "EN", 0, "N"},
          {'f', "ES", 0, "S"}}},
    };
    for (int r = 0; r < 4; r++)
        check_rotation('S', r, &v[r]);
}

static void test_rotations_a_and_h(void **state)
{
    (void)state;
    /* A: the cloister stays at C, the road turns S, W, N, E. */
    static const rot_spec a[4] = {
        {"FFRF",
         {{'k', "C", 0, 0}, {'r', "S", 0, 0}, {'f', "NW N NE EN E ES SE SW WS W WN", 0, ""}}},
        {"FFFR",
         {{'k', "C", 0, 0}, {'r', "W", 0, 0}, {'f', "NW N NE EN E ES SE S SW WS WN", 0, ""}}},
        {"RFFF",
         {{'k', "C", 0, 0}, {'r', "N", 0, 0}, {'f', "NW NE EN E ES SE S SW WS W WN", 0, ""}}},
        {"FRFF",
         {{'k', "C", 0, 0}, {'r', "E", 0, 0}, {'f', "NW N NE EN ES SE S SW WS W WN", 0, ""}}},
    };
    for (int r = 0; r < 4; r++)
        check_rotation('A', r, &a[r]);
    /* H: cities N and S; once turned they are E and W; a half turn is the
     * same tile again (canon 0), three quarters the same as one (canon 1). */
    static const rot_spec h[4] = {
        {"CFCF",
         {{'c', "NW N NE", 0, 0}, {'c', "SE S SW", 0, 0}, {'f', "EN E ES WS W WN", 0, "N S"}}},
        {"FCFC",
         {{'c', "EN E ES", 0, 0}, {'c', "WS W WN", 0, 0}, {'f', "NW N NE SE S SW", 0, "E W"}}},
        {"CFCF",
         {{'c', "NW N NE", 0, 0}, {'c', "SE S SW", 0, 0}, {'f', "EN E ES WS W WN", 0, "N S"}}},
        {"FCFC",
         {{'c', "EN E ES", 0, 0}, {'c', "WS W WN", 0, 0}, {'f', "NW N NE SE S SW", 0, "E W"}}},
    };
    for (int r = 0; r < 4; r++)
        check_rotation('H', r, &h[r]);
}

static void test_feature_port_names(void **state)
{
    (void)state;
    /* carc_feature_port prefers an edge centre, then a half, then C. */
    int d = carc_type_of_letter('D');
    const carc_tile *t1 = &carc_types()[d].rot[1];
    assert_int_equal(carc_feature_port(d, 1, t1->seg[CARC_E]), CARC_E);   /* city */
    assert_int_equal(carc_feature_port(d, 1, t1->seg[CARC_S]), CARC_N);   /* road N-S */
    assert_int_equal(carc_feature_port(d, 1, t1->seg[CARC_NE]), CARC_NE); /* thin field */
    assert_int_equal(carc_feature_port(d, 1, t1->seg[CARC_SW]), CARC_W);  /* big field */
    int b = carc_type_of_letter('B');
    assert_int_equal(carc_feature_port(b, 2, carc_types()[b].rot[2].seg[CARC_C]), CARC_C);
    int x = carc_type_of_letter('X');
    assert_int_equal(carc_feature_port(x, 0, carc_types()[x].rot[0].seg[CARC_WN]), CARC_NW);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_is_well_formed), cmocka_unit_test(test_counts),
        cmocka_unit_test(test_letters_and_ports),    cmocka_unit_test(test_features_all_rotations),
        cmocka_unit_test(test_distinct_rotations),   cmocka_unit_test(test_rotations_d),
        cmocka_unit_test(test_rotations_v),          cmocka_unit_test(test_rotations_i),
        cmocka_unit_test(test_rotations_s),          cmocka_unit_test(test_rotations_a_and_h),
        cmocka_unit_test(test_feature_port_names),   cmocka_unit_test(test_engine_assumptions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
