/*
 * carc_oracle.c — the slow reference Carcassonne (see carc_oracle.h).
 *
 * Written from the rules alone (docs/rules.md), without looking at the
 * engine's code. The tiles are typed below from its table as text, parsed once and
 * checked for consistency (every edge port covered exactly once, the kind
 * of each side agrees with the table's N E S W columns).
 *
 * Model. A tile has 13 ports: three per side, clockwise from the north-west
 * (NW N NE, EN E ES, SE S SW, WS W WN), and C for a cloister. Each feature
 * of a tile covers a set of ports: a city side covers its three ports, a
 * field side its three ports, a road side its centre (the road) and its two
 * halves (the fields beside it). Rotating a tile clockwise by one quarter
 * moves port p to port p + 3 (mod 12).
 *
 * Port p of side d = p / 3, position k = p % 3, faces port 3*((d+2)%4) +
 * (2-k) of the neighbour across side d: the centres face each other and the
 * halves are mirrored (NW faces the northern neighbour's SW, NE its SE).
 * A feature on the board is found by flood fill over (tile, local feature)
 * pairs through those facing ports. A city or road is complete when none of
 * its ports faces an empty cell; a cloister when its 8 neighbours are filled.
 */
#include "carc_oracle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CO_CHECK(cond)                                                                  \
    do {                                                                                \
        if (!(cond)) {                                                                  \
            fprintf(stderr, "%s:%d: oracle invariant failed: %s\n", __FILE__, __LINE__, \
                    #cond);                                                             \
            abort();                                                                    \
        }                                                                               \
    } while (0)

/* ---- the tiles, typed from docs/rules.md -------------------------------- */

/* edges: the N E S W columns. feats: space-separated features, each
 * "<kind>[p][*]:<ports>" with kind C city, R road, F field, M cloister;
 * p = pennant, * = a field bordering the tile's cities (on H and I, both). */
static const struct {
    char letter;
    int count;
    const char *edges;
    const char *feats;
} co_defs[CO_NTYPES] = {
    {'A', 2, "FFRF", "M:C R:S F:NW,N,NE,EN,E,ES,SE,SW,WS,W,WN"},
    {'B', 4, "FFFF", "M:C F:NW,N,NE,EN,E,ES,SE,S,SW,WS,W,WN"},
    {'C', 1, "CCCC", "Cp:NW,N,NE,EN,E,ES,SE,S,SW,WS,W,WN"},
    {'D', 4, "CRFR", "C:NW,N,NE R:W,E F*:WN,EN F:WS,SW,S,SE,ES"},
    {'E', 5, "CFFF", "C:NW,N,NE F*:EN,E,ES,SE,S,SW,WS,W,WN"},
    {'F', 2, "FCFC", "Cp:EN,E,ES,WS,W,WN F*:NW,N,NE F*:SE,S,SW"},
    {'G', 1, "FCFC", "C:EN,E,ES,WS,W,WN F*:NW,N,NE F*:SE,S,SW"},
    {'H', 3, "CFCF", "C:NW,N,NE C:SE,S,SW F*:EN,E,ES,WS,W,WN"},
    {'I', 2, "CFFC", "C:NW,N,NE C:WS,W,WN F*:EN,E,ES,SE,S,SW"},
    {'J', 3, "CRRF", "C:NW,N,NE R:E,S F*:EN,WS,W,WN,SW F:ES,SE"},
    {'K', 3, "CFRR", "C:NW,N,NE R:S,W F*:WN,EN,E,ES,SE F:WS,SW"},
    {'L', 3, "CRRR", "C:NW,N,NE R:E R:S R:W F*:WN,EN F:WS,SW F:ES,SE"},
    {'M', 2, "CFFC", "Cp:NW,N,NE,WS,W,WN F*:EN,E,ES,SE,S,SW"},
    {'N', 3, "CFFC", "C:NW,N,NE,WS,W,WN F*:EN,E,ES,SE,S,SW"},
    {'O', 2, "CRRC", "Cp:NW,N,NE,WS,W,WN R:E,S F*:EN,SW F:ES,SE"},
    {'P', 3, "CRRC", "C:NW,N,NE,WS,W,WN R:E,S F*:EN,SW F:ES,SE"},
    {'Q', 1, "CCFC", "Cp:NW,N,NE,EN,E,ES,WS,W,WN F*:SE,S,SW"},
    {'R', 3, "CCFC", "C:NW,N,NE,EN,E,ES,WS,W,WN F*:SE,S,SW"},
    {'S', 2, "CCRC", "Cp:NW,N,NE,EN,E,ES,WS,W,WN R:S F*:SE F*:SW"},
    {'T', 1, "CCRC", "C:NW,N,NE,EN,E,ES,WS,W,WN R:S F*:SE F*:SW"},
    {'U', 8, "FRFR", "R:W,E F:WN,NW,N,NE,EN F:ES,SE,S,SW,WS"},
    {'V', 9, "FFRR", "R:W,S F:WN,NW,N,NE,EN,E,ES,SE F:SW,WS"},
    {'W', 4, "FRRR", "R:E R:S R:W F:WN,NW,N,NE,EN F:ES,SE F:SW,WS"},
    {'X', 1, "RRRR", "R:N R:E R:S R:W F:WN,NW F:NE,EN F:ES,SE F:SW,WS"},
};

static const char *const co_port_names[CO_NPORTS] = {"NW", "N", "NE", "EN", "E", "ES", "SE",
                                                     "S",  "SW", "WS", "W", "WN", "C"};

static co_type co_table[CO_NTYPES];
static int co_table_ready;
static int8_t co_feat_tab[CO_NTYPES][4][CO_NPORTS]; /* find_feat(), memoised */
static int8_t co_canon_tab[CO_NTYPES][4];           /* canonical_rot(), memoised */

static int find_feat(int t, int rot, int p);
static int canonical_rot(int type, int rot);

static int kind_of_char(char c)
{
    switch (c) {
    case 'C': return CO_CITY;
    case 'R': return CO_ROAD;
    case 'F': return CO_FIELD;
    case 'M': return CO_CLOISTER;
    default: return 0;
    }
}

static int port_of_name(const char *s, size_t len)
{
    for (int p = 0; p < CO_NPORTS; p++)
        if (strlen(co_port_names[p]) == len && memcmp(co_port_names[p], s, len) == 0)
            return p;
    return -1;
}

static void parse_type(int t)
{
    co_type *ty = &co_table[t];
    memset(ty, 0, sizeof *ty);
    ty->letter = co_defs[t].letter;
    ty->count = co_defs[t].count;
    CO_CHECK(strlen(co_defs[t].edges) == 4);
    for (int d = 0; d < 4; d++) {
        ty->edge[d] = kind_of_char(co_defs[t].edges[d]);
        CO_CHECK(ty->edge[d] == CO_CITY || ty->edge[d] == CO_ROAD || ty->edge[d] == CO_FIELD);
    }
    const char *s = co_defs[t].feats;
    while (*s) {
        while (*s == ' ')
            s++;
        if (!*s)
            break;
        CO_CHECK(ty->nfeat < CO_MAX_FEATS);
        int f = ty->nfeat++;
        ty->kind[f] = kind_of_char(*s++);
        CO_CHECK(ty->kind[f] != 0);
        for (; *s != ':'; s++) {
            if (*s == 'p')
                ty->pennant[f] = 1;
            else if (*s == '*')
                ty->touches_city[f] = 1;
            else
                CO_CHECK(!"bad feature flag");
        }
        s++; /* ':' */
        for (;;) {
            size_t len = strcspn(s, ", ");
            int p = port_of_name(s, len);
            CO_CHECK(p >= 0);
            ty->ports[f] |= (uint16_t)(1u << p);
            s += len;
            if (*s != ',')
                break;
            s++;
        }
        CO_CHECK(!ty->pennant[f] || ty->kind[f] == CO_CITY);
        CO_CHECK(!ty->touches_city[f] || ty->kind[f] == CO_FIELD);
        CO_CHECK((ty->kind[f] == CO_CLOISTER) == (ty->ports[f] == (1u << CO_PORT_C)));
    }
    /* every port belongs to at most one feature, every edge port to one */
    uint16_t all = 0;
    for (int f = 0; f < ty->nfeat; f++) {
        CO_CHECK((all & ty->ports[f]) == 0);
        all |= ty->ports[f];
    }
    CO_CHECK((all & 0xfff) == 0xfff);
    /* the sides agree with the N E S W columns */
    for (int d = 0; d < 4; d++) {
        int fc = -1, fa = -1, fb = -1;
        for (int f = 0; f < ty->nfeat; f++) {
            if (ty->ports[f] & (1u << (3 * d + 1)))
                fc = f;
            if (ty->ports[f] & (1u << (3 * d)))
                fa = f;
            if (ty->ports[f] & (1u << (3 * d + 2)))
                fb = f;
        }
        CO_CHECK(ty->kind[fc] == ty->edge[d]);
        if (ty->edge[d] == CO_ROAD) {
            CO_CHECK(ty->kind[fa] == CO_FIELD && ty->kind[fb] == CO_FIELD);
        } else {
            CO_CHECK(fa == fc && fb == fc);
        }
    }
}

const co_type *co_types(void)
{
    if (!co_table_ready) {
        int total = 0, pennants = 0, cloisters = 0;
        for (int t = 0; t < CO_NTYPES; t++) {
            parse_type(t);
            CO_CHECK(co_table[t].letter == 'A' + t);
            total += co_table[t].count;
            for (int f = 0; f < co_table[t].nfeat; f++) {
                pennants += co_table[t].pennant[f] * co_table[t].count;
                cloisters += (co_table[t].kind[f] == CO_CLOISTER) * co_table[t].count;
            }
        }
        /* docs/rules.md: 72 tiles, 10 with a pennant, 6 cloisters */
        CO_CHECK(total == CO_NTILES && pennants == 10 && cloisters == 6);
        for (int t = 0; t < CO_NTYPES; t++)
            for (int r = 0; r < 4; r++)
                for (int p = 0; p < CO_NPORTS; p++)
                    co_feat_tab[t][r][p] = (int8_t)find_feat(t, r, p);
        co_table_ready = 1; /* canonical_rot() below reads the tables through co_types() */
        for (int t = 0; t < CO_NTYPES; t++)
            for (int r = 0; r < 4; r++)
                co_canon_tab[t][r] = (int8_t)canonical_rot(t, r);
    }
    return co_table;
}

int co_type_of_letter(char c)
{
    if (c >= 'a' && c <= 'x')
        c = (char)(c - 'a' + 'A');
    return (c >= 'A' && c <= 'X') ? c - 'A' : -1;
}

int co_canonical_rot(int type, int rot)
{
    co_types();
    return co_canon_tab[type][rot & 3];
}

/* ---- ports and rotations ------------------------------------------------ */

/* The rot-0 port that lands on board port p after rot clockwise quarter turns. */
static int base_port(int p, int rot)
{
    return p == CO_PORT_C ? p : (p + 12 - 3 * rot) % 12;
}

/* Local feature of type t in rotation rot at board port p, or -1, found by
 * searching the typed ports. co_types() stores the answers in co_feat_tab. */
static int find_feat(int t, int rot, int p)
{
    const co_type *ty = &co_table[t];
    int b = base_port(p, rot);
    for (int f = 0; f < ty->nfeat; f++)
        if (ty->ports[f] & (1u << b))
            return f;
    return -1;
}

static int feat_at(int t, int rot, int p)
{
    co_types();
    return co_feat_tab[t][rot][p];
}

uint16_t co_feat_ports(int t, int rot, int f)
{
    uint16_t m = 0;
    for (int p = 0; p < CO_NPORTS; p++)
        if (feat_at(t, rot, p) == f)
            m |= (uint16_t)(1u << p);
    return m;
}

int co_port_kind(int type, int rot, int port)
{
    int f = feat_at(type, rot, port);
    return f < 0 ? 0 : co_types()[type].kind[f];
}

/* Do rotations r1 and r2 of type t give the same tile on the board? */
static bool same_tile(int t, int r1, int r2)
{
    const co_type *ty = &co_types()[t];
    for (int p = 0; p < CO_NPORTS; p++) {
        int f1 = feat_at(t, r1, p), f2 = feat_at(t, r2, p);
        if ((f1 < 0) != (f2 < 0))
            return false;
        if (f1 < 0)
            continue;
        if (ty->kind[f1] != ty->kind[f2] || ty->pennant[f1] != ty->pennant[f2] ||
            ty->touches_city[f1] != ty->touches_city[f2])
            return false;
        for (int q = 0; q < CO_NPORTS; q++)
            if ((feat_at(t, r1, q) == f1) != (feat_at(t, r2, q) == f2))
                return false;
    }
    return true;
}

static int canonical_rot(int type, int rot)
{
    for (int r = 0; r < rot; r++)
        if (same_tile(type, r, rot))
            return r;
    return rot;
}

static const int co_dx[4] = {0, 1, 0, -1}; /* N E S W */
static const int co_dy[4] = {-1, 0, 1, 0};

/* The port facing board port p across its side. */
static int facing_port(int p)
{
    int d = p / 3, k = p % 3;
    return 3 * ((d + 2) % 4) + (2 - k);
}

/* ---- the board ---------------------------------------------------------- */

int co_tile_at(const co_game *g, int x, int y)
{
    if (x < -CO_OFF || x > CO_OFF || y < -CO_OFF || y > CO_OFF)
        return -1;
    return g->map[y + CO_OFF][x + CO_OFF] - 1;
}

static void put_tile(co_game *g, int type, int x, int y, int rot)
{
    CO_CHECK(g->ntiles < CO_NTILES);
    CO_CHECK(x > -CO_OFF && x < CO_OFF && y > -CO_OFF && y < CO_OFF);
    CO_CHECK(co_tile_at(g, x, y) < 0);
    int i = g->ntiles++;
    g->tiles[i] = (co_tile){type, rot, x, y};
    g->map[y + CO_OFF][x + CO_OFF] = (int8_t)(i + 1);
}

void co_init(co_game *g, int players, int tiny_city, bool farms)
{
    CO_CHECK(players >= 2 && players <= CO_MAX_PLAYERS);
    memset(g, 0, sizeof *g);
    g->players = players;
    g->tiny_city = tiny_city;
    g->farms = farms;
    for (int p = 0; p < players; p++)
        g->supply[p] = CO_MEEPLES;
    put_tile(g, co_type_of_letter('D'), 0, 0, 0);
}

/* Does type t in rotation rot fit at the empty cell (x, y)? Needs a neighbour. */
static bool fits(const co_game *g, int t, int x, int y, int rot)
{
    int neighbours = 0;
    for (int d = 0; d < 4; d++) {
        int n = co_tile_at(g, x + co_dx[d], y + co_dy[d]);
        if (n < 0)
            continue;
        neighbours++;
        int mine = co_port_kind(t, rot, 3 * d + 1);
        int theirs = co_port_kind(g->tiles[n].type, g->tiles[n].rot, facing_port(3 * d + 1));
        if (mine != theirs)
            return false;
    }
    return neighbours > 0;
}

static int cmp_place(const void *a, const void *b)
{
    const co_place *p = a, *q = b;
    if (p->y != q->y)
        return p->y < q->y ? -1 : 1;
    if (p->x != q->x)
        return p->x < q->x ? -1 : 1;
    return p->rot - q->rot;
}

int co_legal_placements(const co_game *g, int type, co_place *out)
{
    bool seen[CO_DIM][CO_DIM]; /* candidate cells already looked at */
    memset(seen, 0, sizeof seen);
    int n = 0;
    for (int i = 0; i < g->ntiles; i++) {
        for (int d = 0; d < 4; d++) {
            int x = g->tiles[i].x + co_dx[d], y = g->tiles[i].y + co_dy[d];
            if (co_tile_at(g, x, y) >= 0 || seen[y + CO_OFF][x + CO_OFF])
                continue;
            seen[y + CO_OFF][x + CO_OFF] = true;
            for (int rot = 0; rot < 4; rot++) {
                if (co_canonical_rot(type, rot) != rot || !fits(g, type, x, y, rot))
                    continue;
                CO_CHECK(n < CO_MAX_PLACEMENTS);
                out[n++] = (co_place){x, y, rot};
            }
        }
    }
    qsort(out, (size_t)n, sizeof *out, cmp_place);
    return n;
}

void co_place_tile(co_game *g, int type, int x, int y, int rot)
{
    CO_CHECK(type >= 0 && type < CO_NTYPES && rot >= 0 && rot < 4);
    CO_CHECK(fits(g, type, x, y, rot));
    put_tile(g, type, x, y, rot);
}

/* ---- features by flood fill --------------------------------------------- */

typedef struct co_flood {
    int kind;                                 /* kind of the feature */
    int n;                                    /* (tile, feature) members */
    int mt[CO_NTILES * CO_MAX_FEATS];
    int mf[CO_NTILES * CO_MAX_FEATS];
    bool in[CO_NTILES][CO_MAX_FEATS];         /* membership */
    bool open;                                /* a city/road port faces an empty cell */
    int ntiles;                               /* distinct tiles it covers */
    int pennants;                             /* pennants on it */
    int meeples[CO_MAX_PLAYERS];              /* meeples on it, per player */
    int nmeeples;
} co_flood;

/* Number of occupied cells among the 8 around tile i. */
static int neighbours8(const co_game *g, int i)
{
    int n = 0;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++)
            if ((dx || dy) && co_tile_at(g, g->tiles[i].x + dx, g->tiles[i].y + dy) >= 0)
                n++;
    return n;
}

/* The whole feature containing local feature f0 of tile t0. */
static void flood(const co_game *g, int t0, int f0, co_flood *F)
{
    const co_type *types = co_types();
    memset(F, 0, sizeof *F);
    F->kind = types[g->tiles[t0].type].kind[f0];
    F->mt[0] = t0;
    F->mf[0] = f0;
    F->in[t0][f0] = true;
    F->n = 1;
    for (int head = 0; head < F->n; head++) {
        int t = F->mt[head], f = F->mf[head];
        const co_tile *tl = &g->tiles[t];
        CO_CHECK(types[tl->type].kind[f] == F->kind);
        uint16_t ports = co_feat_ports(tl->type, tl->rot, f);
        for (int p = 0; p < 12; p++) {
            if (!(ports & (1u << p)))
                continue;
            int d = p / 3;
            int nt = co_tile_at(g, tl->x + co_dx[d], tl->y + co_dy[d]);
            if (nt < 0) {
                if (F->kind == CO_CITY || F->kind == CO_ROAD)
                    F->open = true;
                continue;
            }
            int nf = feat_at(g->tiles[nt].type, g->tiles[nt].rot, facing_port(p));
            CO_CHECK(nf >= 0);
            CO_CHECK(types[g->tiles[nt].type].kind[nf] == F->kind);
            if (!F->in[nt][nf]) {
                F->in[nt][nf] = true;
                F->mt[F->n] = nt;
                F->mf[F->n] = nf;
                F->n++;
            }
        }
    }
    bool tile_seen[CO_NTILES] = {false};
    for (int i = 0; i < F->n; i++) {
        if (!tile_seen[F->mt[i]]) {
            tile_seen[F->mt[i]] = true;
            F->ntiles++;
        }
        F->pennants += types[g->tiles[F->mt[i]].type].pennant[F->mf[i]];
    }
    if (F->kind == CO_CLOISTER)
        F->open = neighbours8(g, t0) < 8;
    for (int m = 0; m < g->nmeeples; m++)
        if (F->in[g->meeples[m].tile][g->meeples[m].feat]) {
            F->meeples[g->meeples[m].player]++;
            F->nmeeples++;
        }
}

/* Every player tied for the most meeples on F gets `points`. */
static void award(int *score, int players, const co_flood *F, int points, co_counters *count)
{
    int most = 0;
    for (int p = 0; p < players; p++)
        if (F->meeples[p] > most)
            most = F->meeples[p];
    if (most == 0)
        return;
    int winners = 0;
    for (int p = 0; p < players; p++)
        if (F->meeples[p] == most) {
            score[p] += points;
            winners++;
        }
    if (count) {
        count->shared_awards += winners > 1;
        count->revisits += F->ntiles < F->n && F->kind != CO_FIELD;
        count->field_awards += F->kind == CO_FIELD && points > 0;
    }
}

/* Take the meeples on F back to their owners' hands. */
static void return_meeples(co_game *g, const co_flood *F)
{
    int k = 0;
    for (int m = 0; m < g->nmeeples; m++) {
        if (F->in[g->meeples[m].tile][g->meeples[m].feat])
            g->supply[g->meeples[m].player]++;
        else
            g->meeples[k++] = g->meeples[m];
    }
    g->nmeeples = k;
}

static int cmp_option(const void *a, const void *b)
{
    const co_option *p = a, *q = b;
    return (int)p->ports - (int)q->ports;
}

int co_meeple_options(const co_game *g, int player, co_option *out, co_counters *count)
{
    CO_CHECK(player >= 0 && player < g->players && g->ntiles > 1);
    if (g->supply[player] == 0)
        return 0;
    int last = g->ntiles - 1;
    const co_tile *tl = &g->tiles[last];
    const co_type *ty = &co_types()[tl->type];
    co_flood F;
    bool done[CO_MAX_FEATS] = {false};
    int n = 0;
    for (int f = 0; f < ty->nfeat; f++) {
        if (done[f])
            continue;
        flood(g, last, f, &F);
        uint16_t ports = 0;
        for (int f2 = 0; f2 < ty->nfeat; f2++)
            if (F.in[last][f2]) {
                done[f2] = true;
                ports |= co_feat_ports(tl->type, tl->rot, f2);
            }
        if (ty->kind[f] == CO_FIELD && !g->farms)
            continue;
        if (F.nmeeples > 0) {
            if (count)
                count->occupied_skipped++;
            continue;
        }
        if (count && ports != co_feat_ports(tl->type, tl->rot, f))
            count->merged_options++;
        out[n++] = (co_option){ty->kind[f], ports, f};
    }
    qsort(out, (size_t)n, sizeof *out, cmp_option);
    return n;
}

/* Points of a completed city or road (cloisters are handled apart). */
static int completed_value(const co_game *g, const co_flood *F)
{
    if (F->kind == CO_ROAD)
        return F->ntiles;
    CO_CHECK(F->kind == CO_CITY);
    if (F->ntiles == 2) {
        /* a two-tile city is made of two one-side cities, none with a pennant */
        CO_CHECK(F->pennants == 0);
        return g->tiny_city;
    }
    return 2 * (F->ntiles + F->pennants);
}

void co_finish_turn(co_game *g, int player, int port)
{
    CO_CHECK(player >= 0 && player < g->players && g->ntiles > 1);
    int last = g->ntiles - 1;
    const co_tile *tl = &g->tiles[last];
    const co_type *ty = &co_types()[tl->type];
    co_flood F;
    if (port >= 0) {
        int f = feat_at(tl->type, tl->rot, port);
        CO_CHECK(f >= 0);
        co_option opts[CO_MAX_FEATS];
        int n = co_meeple_options(g, player, opts, NULL), ok = 0;
        for (int i = 0; i < n; i++)
            if (opts[i].ports & (1u << port))
                ok = 1;
        CO_CHECK(ok);
        g->meeples[g->nmeeples++] = (co_meeple){last, f, player};
        g->supply[player]--;
    }
    /* cities and roads through the new tile */
    bool done[CO_MAX_FEATS] = {false};
    for (int f = 0; f < ty->nfeat; f++) {
        if (done[f] || (ty->kind[f] != CO_CITY && ty->kind[f] != CO_ROAD))
            continue;
        flood(g, last, f, &F);
        for (int f2 = 0; f2 < ty->nfeat; f2++)
            if (F.in[last][f2])
                done[f2] = true;
        if (F.open)
            continue;
        if (F.nmeeples > 0) {
            g->count.completed[F.kind]++;
            g->count.tiny_cities += F.kind == CO_CITY && F.ntiles == 2;
        }
        award(g->score, g->players, &F, completed_value(g, &F), &g->count);
        return_meeples(g, &F);
    }
    /* cloisters on the new tile or around it */
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            int t = co_tile_at(g, tl->x + dx, tl->y + dy);
            if (t < 0)
                continue;
            const co_type *ct = &co_types()[g->tiles[t].type];
            for (int f = 0; f < ct->nfeat; f++) {
                if (ct->kind[f] != CO_CLOISTER)
                    continue;
                flood(g, t, f, &F);
                if (F.open)
                    continue;
                g->count.completed[CO_CLOISTER] += F.nmeeples > 0;
                award(g->score, g->players, &F, 9, &g->count);
                return_meeples(g, &F);
            }
        }
}

void co_final_scores(const co_game *g, int *out, co_counters *count)
{
    const co_type *types = co_types();
    co_flood F, C;
    int city_id[CO_NTILES][CO_MAX_FEATS];     /* city number of (tile, feature), -1 unknown */
    bool city_done[CO_NTILES * CO_MAX_FEATS]; /* by city number: the city is complete */
    int ncities = 0;
    for (int t = 0; t < CO_NTILES; t++)
        for (int f = 0; f < CO_MAX_FEATS; f++)
            city_id[t][f] = -1;
    for (int p = 0; p < g->players; p++)
        out[p] = g->score[p];
    bool counted[CO_MAX_PLAYERS * CO_MEEPLES] = {false};
    for (int m = 0; m < g->nmeeples; m++) {
        if (counted[m])
            continue;
        flood(g, g->meeples[m].tile, g->meeples[m].feat, &F);
        for (int m2 = m; m2 < g->nmeeples; m2++)
            if (F.in[g->meeples[m2].tile][g->meeples[m2].feat])
                counted[m2] = true;
        int points = 0;
        switch (F.kind) {
        case CO_CITY:
            CO_CHECK(F.open); /* completed cities were scored at once */
            points = F.ntiles + F.pennants;
            break;
        case CO_ROAD:
            CO_CHECK(F.open);
            points = F.ntiles;
            break;
        case CO_CLOISTER:
            CO_CHECK(F.open);
            points = 1 + neighbours8(g, g->meeples[m].tile);
            break;
        case CO_FIELD: {
            CO_CHECK(g->farms);
            bool touched[CO_NTILES * CO_MAX_FEATS] = {false};
            int complete_cities = 0;
            for (int i = 0; i < F.n; i++) {
                int t = F.mt[i];
                const co_type *ty = &types[g->tiles[t].type];
                if (!ty->touches_city[F.mf[i]])
                    continue;
                for (int c = 0; c < ty->nfeat; c++) {
                    if (ty->kind[c] != CO_CITY)
                        continue;
                    if (city_id[t][c] < 0) {
                        flood(g, t, c, &C);
                        for (int j = 0; j < C.n; j++)
                            city_id[C.mt[j]][C.mf[j]] = ncities;
                        city_done[ncities++] = !C.open;
                    }
                    int id = city_id[t][c];
                    if (!touched[id] && city_done[id]) {
                        touched[id] = true;
                        complete_cities++;
                    }
                }
            }
            points = 3 * complete_cities;
            break;
        }
        default:
            CO_CHECK(!"meeple on an unknown feature kind");
        }
        award(out, g->players, &F, points, count);
    }
}
