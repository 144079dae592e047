/*
 * tiles.c — the 24 Carcassonne tile types and everything derived from them.
 *
 * Each type is written once, unrotated, as a port map: for the ports
 * NW N NE | EN E ES | SE S SW | WS W WN | C (clockwise, then the cloister)
 * the letter of the feature there. Letters c/d are cities, r/s/t/u roads,
 * f/g/h/i fields, k the cloister, '.' nothing. From that map we derive, once,
 * the edge kinds, the features in every rotation, which rotations are
 * distinct, which fields touch which cities, and the fit table used by
 * legal-move generation. The table follows docs/rules.md ("Tiles"); the tests
 * check it against the published table independently.
 */
#include <pthread.h>
#include <string.h>

#include "carcassonne.h"
#include "internal.h"

static const struct {
    char letter;
    uint8_t count;
    const char *ports; /* NW N NE | EN E ES | SE S SW | WS W WN | C */
    bool pennant;      /* the (single) city carries a pennant */
} defs[CARC_NTYPES] = {
    {'A', 2, "fff" "fff" "frf" "fff" "k", false}, /* cloister, road south */
    {'B', 4, "fff" "fff" "fff" "fff" "k", false}, /* cloister */
    {'C', 1, "ccc" "ccc" "ccc" "ccc" ".", true},
    {'D', 4, "ccc" "frg" "ggg" "grf" ".", false}, /* the start tile is one of these */
    {'E', 5, "ccc" "fff" "fff" "fff" ".", false},
    {'F', 2, "fff" "ccc" "ggg" "ccc" ".", true},
    {'G', 1, "fff" "ccc" "ggg" "ccc" ".", false},
    {'H', 3, "ccc" "fff" "ddd" "fff" ".", false},
    {'I', 2, "ccc" "fff" "fff" "ddd" ".", false},
    {'J', 3, "ccc" "frg" "grf" "fff" ".", false},
    {'K', 3, "ccc" "fff" "frg" "grf" ".", false},
    {'L', 3, "ccc" "frg" "gsh" "htf" ".", false},
    {'M', 2, "ccc" "fff" "fff" "ccc" ".", true},
    {'N', 3, "ccc" "fff" "fff" "ccc" ".", false},
    {'O', 2, "ccc" "frg" "grf" "ccc" ".", true},
    {'P', 3, "ccc" "frg" "grf" "ccc" ".", false},
    {'Q', 1, "ccc" "ccc" "fff" "ccc" ".", true},
    {'R', 3, "ccc" "ccc" "fff" "ccc" ".", false},
    {'S', 2, "ccc" "ccc" "frg" "ccc" ".", true},
    {'T', 1, "ccc" "ccc" "frg" "ccc" ".", false},
    {'U', 8, "fff" "frg" "ggg" "grf" ".", false},
    {'V', 9, "fff" "fff" "frg" "grf" ".", false},
    {'W', 4, "fff" "frg" "gsh" "htf" ".", false},
    {'X', 1, "frg" "gsh" "hti" "iuf" ".", false},
};

carc_type carc__types[CARC_NTYPES];
#define types carc__types
/* fit[pattern][type]: bit r set when distinct rotation r of the type meets
 * every constrained side of an open cell with that pattern. */
uint8_t carc__fit[256][CARC_NTYPES];
carc__lanes8 carc__nfit8[256][CARC_NTYPES / 8]; /* row 0 stays zero */
uint8_t carc__cnt[CARC_NTYPES][256];
uint8_t carc__sides[256];
uint32_t carc__nbrxy[CARC_CELLS][4];
uint8_t carc__needs[CARC_NTYPES * 4][4];
uint32_t carc__side[CARC_NTYPES * 4][4];
uint8_t carc__rotk[CARC_NTYPES][256];
uint8_t carc__cand[CARC_NTYPES][2];
uint8_t carc__cr[CARC_NTYPES];
uint16_t carc__fcity[CARC_NTYPES][CARC_MAX_SEGS];
uint8_t carc__cfield[CARC_NTYPES][CARC_MAX_SEGS];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static uint8_t kind_of_letter(char c)
{
    switch (c) {
    case 'c': case 'd': return CARC_CITY;
    case 'r': case 's': case 't': case 'u': return CARC_ROAD;
    case 'f': case 'g': case 'h': case 'i': return CARC_FIELD;
    case 'k': return CARC_CLOISTER;
    default: return CARC_NONE;
    }
}

/* Two rotations give the same tile when every port has a feature of the
 * same kind and ports share a feature in one exactly when they do in the
 * other. Pennants and the cloister ride along with the features. */
static bool same_tile(const carc_type *t, const carc_tile *a, const carc_tile *b)
{
    for (int p = 0; p < CARC_NPORTS; p++) {
        uint8_t ka = a->seg[p] == 0xff ? 0 : t->kind[a->seg[p]];
        uint8_t kb = b->seg[p] == 0xff ? 0 : t->kind[b->seg[p]];
        if (ka != kb)
            return false;
        for (int q = p + 1; q < CARC_NPORTS; q++) {
            bool sa = a->seg[p] != 0xff && a->seg[p] == a->seg[q];
            bool sb = b->seg[p] != 0xff && b->seg[p] == b->seg[q];
            if (sa != sb)
                return false;
        }
    }
    return true;
}

static void build(void)
{
    for (int ti = 0; ti < CARC_NTYPES; ti++) {
        carc_type *t = &types[ti];
        const char *ports = defs[ti].ports;
        t->letter = defs[ti].letter;
        t->count = defs[ti].count;

        /* Number the features in order of first appearance. */
        char label[CARC_MAX_SEGS];
        uint8_t base[CARC_NPORTS];
        t->nseg = 0;
        for (int p = 0; p < CARC_NPORTS; p++) {
            char c = ports[p];
            base[p] = 0xff;
            if (c == '.')
                continue;
            int s = 0;
            while (s < t->nseg && label[s] != c)
                s++;
            if (s == t->nseg) {
                label[s] = c;
                t->kind[s] = kind_of_letter(c);
                t->nseg++;
            }
            base[p] = (uint8_t)s;
        }
        for (int s = 0; s < t->nseg; s++) {
            t->edges[s] = 0;
            t->pennant[s] = 0;
            t->cities[s] = 0;
            if (t->kind[s] == CARC_CITY || t->kind[s] == CARC_ROAD)
                for (int d = 0; d < 4; d++)
                    if (base[3 * d + 1] == s)
                        t->edges[s]++;
            if (t->kind[s] == CARC_CITY && defs[ti].pennant)
                t->pennant[s] = 1;
        }
        /* A field touches a city when one of its ports neighbours a city port
         * along the tile's perimeter. */
        for (int p = 0; p < 12; p++) {
            int s = base[p];
            if (s == 0xff || t->kind[s] != CARC_FIELD)
                continue;
            for (int dp = -1; dp <= 1; dp += 2) {
                int q = (p + dp + 12) % 12;
                int c = base[q];
                if (c != 0xff && t->kind[c] == CARC_CITY)
                    t->cities[s] |= (uint8_t)(1u << c);
            }
        }
        /* Rotations: board port q of rotation r shows unrotated port q - 3r. */
        for (int r = 0; r < 4; r++) {
            carc_tile *rt = &t->rot[r];
            for (int q = 0; q < 12; q++)
                rt->seg[q] = base[(q - 3 * r + 12) % 12];
            rt->seg[CARC_C] = base[CARC_C];
            rt->sig = 0;
            for (int d = 0; d < 4; d++) {
                rt->edge[d] = t->kind[rt->seg[3 * d + 1]];
                rt->sig |= (uint8_t)(rt->edge[d] << (2 * d));
            }
        }
        t->rots = 0;
        for (int r = 0; r < 4; r++) {
            t->canon[r] = (uint8_t)r;
            for (int r2 = 0; r2 < r; r2++)
                if (same_tile(t, &t->rot[r2], &t->rot[r])) {
                    t->canon[r] = t->canon[r2];
                    break;
                }
            if (t->canon[r] == r)
                t->rots |= (uint8_t)(1u << r);
        }
    }

    for (int ti = 0; ti < CARC_NTYPES; ti++)
        for (int r = 0; r < 4; r++)
            for (int d = 0; d < 4; d++) {
                const carc_tile *rt = &types[ti].rot[r];
                carc__side[ti * 4 + r][d] =
                    (uint32_t)rt->edge[d] | (uint32_t)rt->seg[3 * d + 1] << 8 |
                    (uint32_t)rt->seg[3 * d] << 16 | (uint32_t)rt->seg[3 * d + 2] << 24;
            }
    static const int step[4] = {-CARC_GW, 1, CARC_GW, -1};
    static const uint32_t stepxy[4] = {0xffu << 24, 1u << 16, 1u << 24, 0xffu << 16};
    for (int c = 0; c < CARC_CELLS; c++)
        for (int d = 0; d < 4; d++)
            carc__nbrxy[c][d] = (uint32_t)((c + step[d] + CARC_CELLS) % CARC_CELLS) | stepxy[d];
    for (int ti = 0; ti < CARC_NTYPES; ti++)
        for (int r = 0; r < 4; r++) {
            for (int d = 0; d < 4; d++)
                carc__needs[ti * 4 + r][d] = (uint8_t)(types[ti].rot[r].edge[d] << (2 * (d ^ 2)));
        }
    for (int pat = 0; pat < 256; pat++) {
        carc__sides[pat] = 0;
        for (int d = 0; d < 4; d++)
            if ((pat >> (2 * d)) & 3)
                carc__sides[pat] |= (uint8_t)(1u << d);
    }
    for (int ti = 0; ti < CARC_NTYPES; ti++)
        for (int farms = 0; farms < 2; farms++) {
            carc__cand[ti][farms] = 0;
            for (int g = 0; g < types[ti].nseg; g++)
                if (farms || types[ti].kind[g] != CARC_FIELD)
                    carc__cand[ti][farms] |= (uint8_t)(1u << g);
        }
    for (int ti = 0; ti < CARC_NTYPES; ti++) {
        carc__cr[ti] = 0;
        for (int g = 0; g < types[ti].nseg; g++)
            if (types[ti].kind[g] == CARC_CITY || types[ti].kind[g] == CARC_ROAD)
                carc__cr[ti] |= (uint8_t)(1u << g);
        for (int g = 0; g < CARC_MAX_SEGS; g++) {
            unsigned m = g < types[ti].nseg ? types[ti].cities[g] : 0, rest = m & (m - 1);
            carc__fcity[ti][g] = (uint16_t)((m ? (unsigned)__builtin_ctz(m) : 0x80u) |
                                            (rest ? (unsigned)__builtin_ctz(rest) : 0x80u) << 8);
        }
        /* the same pairs seen from the city (from fcity: one relation) */
        memset(carc__cfield[ti], 0, sizeof carc__cfield[ti]);
        for (int g = 0; g < CARC_MAX_SEGS; g++)
            for (int k = 0; k < 2; k++) {
                unsigned c = carc__fcity[ti][g] >> (8 * k) & 0xffu;
                if (!(c & 0x80u))
                    carc__cfield[ti][c] |= (uint8_t)(1u << g);
            }
    }
    for (int pat = 0; pat < 256; pat++)
        for (int ti = 0; ti < CARC_NTYPES; ti++) {
            uint8_t m = 0;
            for (int r = 0; r < 4; r++) {
                if (!(types[ti].rots & (1u << r)))
                    continue;
                bool ok = true;
                for (int d = 0; d < 4 && ok; d++) {
                    int need = (pat >> (2 * d)) & 3;
                    if (need && need != types[ti].rot[r].edge[d])
                        ok = false;
                }
                if (ok)
                    m |= (uint8_t)(1u << r);
            }
            carc__fit[pat][ti] = m;
            carc__nfit8[pat][ti / 8][ti % 8] = (uint16_t)(pat ? __builtin_popcount(m) : 0);
            carc__cnt[ti][pat] = (uint8_t)__builtin_popcount(m);
            carc__rotk[ti][pat] = 0;
            for (int k = 0, r = 0; r < 4; r++)
                if (m & (1u << r))
                    carc__rotk[ti][pat] |= (uint8_t)(r << (2 * k++));
        }
}

void carc__tables_init(void)
{
    pthread_once(&once, build);
}

const carc_type *carc_types(void)
{
    carc__tables_init();
    return types;
}

int carc_type_of_letter(char c)
{
    if (c >= 'a' && c <= 'x')
        c = (char)(c - 'a' + 'A');
    if (c < 'A' || c > 'X')
        return -1;
    return c - 'A';
}

static const char *const port_names[CARC_NPORTS] = {
    "NW", "N", "NE", "EN", "E", "ES", "SE", "S", "SW", "WS", "W", "WN", "C",
};

const char *carc_port_name(int port)
{
    return port >= 0 && port < CARC_NPORTS ? port_names[port] : "?";
}

int carc_port_of_name(const char *s)
{
    if (!s)
        return -1;
    char up[3];
    size_t n = strlen(s);
    if (n == 0 || n > 2)
        return -1;
    for (size_t i = 0; i < n; i++)
        up[i] = (char)((s[i] >= 'a' && s[i] <= 'z') ? s[i] - 'a' + 'A' : s[i]);
    up[n] = 0;
    for (int p = 0; p < CARC_NPORTS; p++)
        if (strcmp(up, port_names[p]) == 0)
            return p;
    return -1;
}

/* Centre ports name a feature first (N E S W), then halves, then C. */
int carc_feature_port(int type, int rot, int seg)
{
    const carc_tile *t = &carc_types()[type].rot[rot & 3];
    for (int d = 0; d < 4; d++)
        if (t->seg[3 * d + 1] == seg)
            return 3 * d + 1;
    for (int p = 0; p < 12; p++)
        if (t->seg[p] == seg)
            return p;
    if (t->seg[CARC_C] == seg)
        return CARC_C;
    return -1;
}
