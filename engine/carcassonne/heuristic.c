/*
 * heuristic.c — Carcassonne's rate_moves: a fast one-ply rating of
 * placements and meeple options in the manner of Simple Player v3
 * (Müller's thesis, §5.1.6 and Appendix C, Algorithm 7). docs/heuristic.md
 * describes the rating, its parameters and its approximations.
 *
 * Nothing is applied and no state is copied. For a placement we predict,
 * from the union-find forest of the current state, the feature each element
 * of the drawn tile will belong to once merged: which existing roots it
 * joins through each matching edge (a root reached twice counts once, and
 * two elements of the tile that reach one root are one feature), and from
 * the roots' aggregates its distinct tiles, pennants, meeples per player and
 * open sides (own sides + the roots' open sides - 2 per matched edge; this
 * is exactly what carc__place() in board.c will compute). A cloister counts
 * the tiles around the cell; a field counts the completed and incomplete
 * cities it will touch; cloisters around the cell gain a neighbour. Every
 * touched feature then scores in the structure of Algorithm 7: an owned
 * feature +score*MyBonus, an opponent's -score*OppBonus, an unowned one
 * -score*OpenPenalty, each times the TypeBonus of its kind, plus the best
 * meeple option (score*MyBonus - open*MeeplePenalty)*TypeBonus if positive.
 * At the meeple step the same valuation runs on the real merged features,
 * so a placement's rating equals the best meeple-step rating after it.
 *
 * Cost: one rate_moves call clears about 1 KB of caches on the stack
 * (about 26 KB in all: per-root tile sets and field city sets, per-open-cell
 * neighbour roots, each filled on first use), then every placement costs a
 * few dozen table reads. No allocation, no static mutable state.
 */
#include <string.h>

#include "heuristic.h"
#include "internal.h"

/* ---- parameters (docs/heuristic.md explains each) ------------------------ */

#define H_MY_BONUS      1.0         /* MyBonus: weight of our own points */
#define H_OPP_BONUS_2P  1.0         /* OppBonus with two players; 2/players with more */
#define H_OPEN_PENALTY  0.25        /* OpenPenalty: an unowned feature we grow for others */
#define H_MEEPLE_COST   0.4         /* MeeplePenalty per open side with a full hand (7) */
#define H_ENDGAME_TILES 12.0        /* MeeplePenalty fades linearly over the last tiles */
#define H_CLOISTER_OPEN (1.0 / 3.0) /* a cloister's empty neighbour, in open sides */
#define H_FIELD_LOCK    3.0         /* a field meeple never returns: open sides it counts as */
#define H_FIELD_HOPE    0.5         /* points per incomplete city a field touches */
#define H_RETURN        3.0         /* a meeple returned by a completion, in MeeplePenalty units */
#define H_TB_CITY       2.5         /* TypeBonus per kind */
#define H_TB_ROAD       1.0
#define H_TB_CLOISTER   1.25
#define H_TB_FIELD      0.5

static const double type_bonus[5] = {0.0, H_TB_CITY, H_TB_ROAD, H_TB_FIELD, H_TB_CLOISTER};

/* ---- per-call caches ------------------------------------------------------ */

/* What a placement on one open cell meets, whatever the tile and rotation. */
typedef struct hslot {
    uint8_t mid[4]; /* side d has a neighbour: root of its feature at our port 3d+1 */
    uint8_t h0[4];  /* road side d: root of the neighbour's field at our port 3d */
    uint8_t h2[4];  /* road side d: root of the neighbour's field at our port 3d+2 */
    uint8_t filled; /* tiles among the eight surrounding cells */
    uint8_t ncl;    /* cloisters among them */
    uint8_t cl[8];  /* their nodes, in dcell8 order */
} hslot;

typedef struct hctx {
    const carc_state *s;
    const carc_type *ty;
    int farms;
    uint8_t tiles_ok[CARC_MAX_NODES]; /* tmask[r] filled */
    uint8_t field_ok[CARC_MAX_NODES]; /* fdone/fopen[r] filled */
    uint8_t occ[CARC_MAX_NODES];      /* root -> row of cnt, 0xff: no meeple */
    uint8_t slot_ok[CARC_MAX_OPEN];   /* slot[i] filled */
    uint8_t cnt[ENG_MAX_PLAYERS * CARC_MEEPLES][ENG_MAX_PLAYERS]; /* meeples per root, player */
    hslot slot[CARC_MAX_OPEN];
    uint64_t tmask[CARC_MAX_NODES][2]; /* root: set of tiles (placed[] indices) */
    uint64_t fdone[CARC_MAX_NODES][4]; /* field root: completed city roots it touches */
    uint64_t fopen[CARC_MAX_NODES][4]; /* field root: incomplete city roots it touches */
    uint8_t tiles_n[CARC_MAX_NODES];   /* root: bits in tmask */
    uint8_t fdone_n[CARC_MAX_NODES];   /* field root: bits in fdone */
    uint8_t fopen_n[CARC_MAX_NODES];   /* field root: bits in fopen */
} hctx;

static void ctx_init(hctx *c, const carc_state *s)
{
    c->s = s;
    c->ty = carc_types();
    c->farms = s->rules.opt[CARC_OPT_FARMS] != 0;
    memset(c->tiles_ok, 0, sizeof c->tiles_ok);
    memset(c->field_ok, 0, sizeof c->field_ok);
    memset(c->occ, 0xff, sizeof c->occ);
    memset(c->slot_ok, 0, sizeof c->slot_ok);
    int rows = 0;
    for (int i = 0; i < s->nmeeples; i++) {
        int r = carc__find(s, s->meeple[i].node);
        if (c->occ[r] == 0xff) {
            c->occ[r] = (uint8_t)rows;
            memset(c->cnt[rows], 0, sizeof c->cnt[rows]);
            rows++;
        }
        c->cnt[c->occ[r]][s->meeple[i].player]++;
    }
}

static const uint64_t *tiles_of(hctx *c, int r)
{
    if (!c->tiles_ok[r]) {
        const carc_state *s = c->s;
        uint64_t m0 = 0, m1 = 0;
        int n = r;
        do {
            int t = s->tile[n];
            if (t < 64)
                m0 |= 1ULL << t;
            else
                m1 |= 1ULL << (t - 64);
            n = s->nxt[n];
        } while (n != r);
        c->tmask[r][0] = m0;
        c->tmask[r][1] = m1;
        c->tiles_n[r] = (uint8_t)(carc__pop64(m0) + carc__pop64(m1));
        c->tiles_ok[r] = 1;
    }
    return c->tmask[r];
}

/* The city roots a field root touches, split by completion (now). */
static void field_cities(hctx *c, int r)
{
    if (c->field_ok[r])
        return;
    const carc_state *s = c->s;
    uint64_t *done = c->fdone[r], *open = c->fopen[r];
    memset(done, 0, sizeof c->fdone[r]);
    memset(open, 0, sizeof c->fopen[r]);
    int n = r;
    do {
        const carc_placed *pl = &s->placed[s->tile[n]];
        unsigned mask = c->ty[pl->type].cities[n - pl->node0];
        while (mask) {
            int k = __builtin_ctz(mask);
            mask &= mask - 1;
            int cr = carc__find(s, pl->node0 + k);
            uint64_t bit = 1ULL << (cr & 63);
            if (s->open[cr] == 0)
                done[cr >> 6] |= bit;
            else
                open[cr >> 6] |= bit;
        }
        n = s->nxt[n];
    } while (n != r);
    c->fdone_n[r] = (uint8_t)(carc__pop64(done[0]) + carc__pop64(done[1]) + carc__pop64(done[2]) + carc__pop64(done[3]));
    c->fopen_n[r] = (uint8_t)(carc__pop64(open[0]) + carc__pop64(open[1]) + carc__pop64(open[2]) + carc__pop64(open[3]));
    c->field_ok[r] = 1;
}

static void add_meeples(const hctx *c, int r, carc__hfeat *f)
{
    uint8_t row = c->occ[r];
    if (row == 0xff)
        return;
    for (int p = 0; p < ENG_MAX_PLAYERS; p++)
        f->mee[p] = (uint8_t)(f->mee[p] + c->cnt[row][p]);
}

static const hslot *slot_of(hctx *c, int slot)
{
    hslot *h = &c->slot[slot];
    if (c->slot_ok[slot])
        return h;
    const carc_state *s = c->s;
    const carc_open *o = &s->opens[slot];
    for (int d = 0; d < 4; d++) {
        h->mid[d] = h->h0[d] = h->h2[d] = 0;
        int kind = (o->pattern >> (2 * d)) & 3;
        if (!kind)
            continue;
        const carc_placed *q = &s->placed[s->grid[carc__wrap(o->cell + carc__dcell[d])] - 1];
        const carc_tile *qt = &c->ty[q->type].rot[q->rot];
        int od = (d + 2) & 3;
        h->mid[d] = (uint8_t)carc__find(s, q->node0 + qt->seg[3 * od + 1]);
        if (kind == CARC_ROAD) {
            h->h0[d] = (uint8_t)carc__find(s, q->node0 + qt->seg[3 * od + 2]);
            h->h2[d] = (uint8_t)carc__find(s, q->node0 + qt->seg[3 * od]);
        }
    }
    h->filled = 0;
    h->ncl = 0;
    for (int i = 0; i < 8; i++) {
        uint8_t nb = s->grid[carc__wrap(o->cell + carc__dcell8[i])];
        if (nb == 0 || nb >= CARC_CELL_OPEN0)
            continue;
        h->filled++;
        const carc_placed *q = &s->placed[nb - 1];
        uint8_t cs = c->ty[q->type].rot[0].seg[CARC_C];
        if (cs != 0xff)
            h->cl[h->ncl++] = (uint8_t)(q->node0 + cs);
    }
    c->slot_ok[slot] = 1;
    return h;
}

/* A cloister next to the placed tile: one more neighbour. `after` is its
 * count of empty neighbours once the tile is down. */
static void cloister_neighbour(const hctx *c, int node, int after, carc__hfeat *f)
{
    memset(f, 0, sizeof *f);
    f->kind = CARC_CLOISTER;
    f->node = (uint8_t)node;
    f->tiles = 1;
    f->open = (uint8_t)after;
    f->complete = after == 0;
    add_meeples(c, node, f);
}

/* ---- prediction (placement step) ------------------------------------------ */

static int uf_find(uint8_t *uf, int g)
{
    while (uf[g] != g)
        g = uf[g];
    return g;
}

typedef struct links {
    uint8_t uf[CARC_MAX_SEGS];      /* tile elements that will be one feature */
    uint8_t matched[CARC_MAX_SEGS]; /* city/road edges of each element that meet a neighbour */
    uint8_t root[12], seg[12];      /* distinct neighbour roots, and an element joining each */
    int n;
} links;

static void join_root(links *l, int g, int r)
{
    for (int i = 0; i < l->n; i++)
        if (l->root[i] == r) {
            int a = uf_find(l->uf, g), b = uf_find(l->uf, l->seg[i]);
            if (a != b)
                l->uf[a > b ? a : b] = (uint8_t)(a < b ? a : b);
            return;
        }
    l->root[l->n] = (uint8_t)r;
    l->seg[l->n] = (uint8_t)g;
    l->n++;
}

static int predict(hctx *c, eng_move m, carc__hfeat *out)
{
    const carc_state *s = c->s;
    int cell = m >> 2, rot = m & 3;
    int slot = s->grid[cell] - CARC_CELL_OPEN0;
    const carc_type *ty = &c->ty[s->drawn];
    const carc_tile *rt = &ty->rot[rot];
    const carc_open *o = &s->opens[slot];
    const hslot *h = slot_of(c, slot);

    links l;
    l.n = 0;
    for (int g = 0; g < ty->nseg; g++) {
        l.uf[g] = (uint8_t)g;
        l.matched[g] = 0;
    }
    for (int d = 0; d < 4; d++) {
        int kind = (o->pattern >> (2 * d)) & 3;
        if (kind == CARC_CITY || kind == CARC_ROAD) {
            int g = rt->seg[3 * d + 1];
            l.matched[g]++;
            join_root(&l, g, h->mid[d]);
            if (kind == CARC_ROAD && c->farms) {
                join_root(&l, rt->seg[3 * d], h->h0[d]);
                join_root(&l, rt->seg[3 * d + 2], h->h2[d]);
            }
        } else if (kind == CARC_FIELD && c->farms) {
            join_root(&l, rt->seg[3 * d + 1], h->mid[d]);
        }
    }

    /* One summary per feature, in order of its lowest element. */
    int nf = 0;
    int8_t fidx[CARC_MAX_SEGS];
    int matched[CARC__HFEAT_MAX];
    for (int g = 0; g < ty->nseg; g++) {
        int k = ty->kind[g];
        int rep = uf_find(l.uf, g);
        if (k == CARC_FIELD && !c->farms) {
            fidx[g] = -1;
            continue;
        }
        if (rep != g) { /* rep < g: its feature exists */
            carc__hfeat *f = &out[fidx[g] = fidx[rep]];
            f->segs |= (uint8_t)(1u << g);
            f->open = (uint8_t)(f->open + ty->edges[g]);
            f->pen = (uint8_t)(f->pen + ty->pennant[g]);
            matched[fidx[g]] += l.matched[g];
            continue;
        }
        fidx[g] = (int8_t)nf;
        carc__hfeat *f = &out[nf];
        memset(f, 0, sizeof *f);
        f->kind = (uint8_t)k;
        f->segs = (uint8_t)(1u << g);
        f->open = ty->edges[g];
        f->pen = ty->pennant[g];
        matched[nf] = l.matched[g];
        nf++;
    }

    /* The neighbour roots each feature joins (distinct by construction). */
    uint8_t fr[CARC__HFEAT_MAX][12];
    int nfr[CARC__HFEAT_MAX];
    for (int fi = 0; fi < nf; fi++)
        nfr[fi] = 0;
    for (int i = 0; i < l.n; i++) {
        int fi = fidx[uf_find(l.uf, l.seg[i])];
        fr[fi][nfr[fi]++] = l.root[i];
    }

    for (int fi = 0; fi < nf; fi++) {
        carc__hfeat *f = &out[fi];
        int nr = nfr[fi];
        uint64_t t0 = 0, t1 = 0;
        for (int i = 0; i < nr; i++) {
            int r = fr[fi][i];
            const uint64_t *t = tiles_of(c, r);
            t0 |= t[0];
            t1 |= t[1];
            add_meeples(c, r, f);
            f->open = (uint8_t)(f->open + s->open[r]);
            f->pen = (uint8_t)(f->pen + s->pen[r]);
        }
        /* the new tile is in no root's set; one root needs no union */
        f->tiles = (uint8_t)(1 + (nr == 0   ? 0
                                  : nr == 1 ? c->tiles_n[fr[fi][0]]
                                            : carc__pop64(t0) + carc__pop64(t1)));
        if (f->kind == CARC_CITY || f->kind == CARC_ROAD) {
            f->open = (uint8_t)(f->open - 2 * matched[fi]);
            f->complete = f->open == 0;
        } else if (f->kind == CARC_CLOISTER) {
            f->open = (uint8_t)(8 - h->filled);
            f->complete = h->filled == 8;
        } else {
            f->open = 0; /* fields have no sides to close */
            f->pen = 0;
        }
    }

    /* Fields: the cities their roots touch, with every city this tile
     * extends counted once and with its predicted completion. A city this
     * tile joins was incomplete (a complete one has no side to join), so
     * only the incomplete sets can hold its roots. */
    if (c->farms)
        for (int fi = 0; fi < nf; fi++) {
            carc__hfeat *f = &out[fi];
            if (f->kind != CARC_FIELD)
                continue;
            int nr = nfr[fi], nd = 0, no = 0;
            uint64_t uopen[4];
            const uint64_t *open = uopen;
            if (nr == 1) {
                int r = fr[fi][0];
                field_cities(c, r);
                open = c->fopen[r];
                nd = c->fdone_n[r];
                no = c->fopen_n[r];
            } else if (nr > 1) {
                uint64_t udone[4] = {0, 0, 0, 0};
                uopen[0] = uopen[1] = uopen[2] = uopen[3] = 0;
                for (int i = 0; i < nr; i++) {
                    int r = fr[fi][i];
                    field_cities(c, r);
                    for (int w = 0; w < 4; w++) {
                        udone[w] |= c->fdone[r][w];
                        uopen[w] |= c->fopen[r][w];
                    }
                }
                for (int w = 0; w < 4; w++) {
                    nd += carc__pop64(udone[w]);
                    no += carc__pop64(uopen[w]);
                }
            }
            unsigned local = 0; /* tile cities the field's own elements touch */
            for (unsigned sg = f->segs; sg; sg &= sg - 1)
                local |= ty->cities[__builtin_ctz(sg)];
            for (int ci = 0; ci < nf; ci++) {
                const carc__hfeat *cf = &out[ci];
                if (cf->kind != CARC_CITY)
                    continue;
                int touched = (local & cf->segs) != 0;
                if (nr > 0)
                    for (int i = 0; i < nfr[ci]; i++) {
                        int r = fr[ci][i];
                        if (open[r >> 6] & (1ULL << (r & 63))) {
                            touched = 1;
                            no--; /* counted below as part of the merged city */
                        }
                    }
                if (touched) {
                    if (cf->complete)
                        nd++;
                    else
                        no++;
                }
            }
            f->cities_done = (uint8_t)nd;
            f->cities_open = (uint8_t)no;
        }

    for (int i = 0; i < h->ncl; i++) {
        int cn = h->cl[i];
        cloister_neighbour(c, cn, s->open[cn] - 1, &out[nf++]);
    }
    return nf;
}

/* ---- the real features (meeple step) --------------------------------------- */

static int actual(hctx *c, carc__hfeat *out)
{
    const carc_state *s = c->s;
    const carc_placed *pl = &s->placed[s->nplaced - 1];
    const carc_type *ty = &c->ty[pl->type];
    int nf = 0;
    int roots[CARC_MAX_SEGS];
    for (int g = 0; g < ty->nseg; g++) {
        int k = ty->kind[g];
        if (k == CARC_FIELD && !c->farms)
            continue;
        int r = carc__find(s, pl->node0 + g);
        int fi = -1;
        for (int i = 0; i < nf; i++)
            if (roots[i] == r)
                fi = i;
        if (fi >= 0) {
            out[fi].segs |= (uint8_t)(1u << g);
            continue;
        }
        roots[nf] = r;
        carc__hfeat *f = &out[nf++];
        memset(f, 0, sizeof *f);
        f->kind = (uint8_t)k;
        f->segs = (uint8_t)(1u << g);
        tiles_of(c, r);
        f->tiles = c->tiles_n[r];
        add_meeples(c, r, f);
        if (k == CARC_FIELD) {
            field_cities(c, r);
            int nd = 0, no = 0;
            for (int w = 0; w < 4; w++) {
                nd += carc__pop64(c->fdone[r][w]);
                no += carc__pop64(c->fopen[r][w]);
            }
            f->cities_done = (uint8_t)nd;
            f->cities_open = (uint8_t)no;
        } else {
            f->open = s->open[r];
            f->pen = k == CARC_CITY ? s->pen[r] : 0;
            f->complete = s->open[r] == 0;
        }
    }
    for (int i = 0; i < 8; i++) {
        uint8_t nb = s->grid[carc__wrap(pl->cell + carc__dcell8[i])];
        if (nb == 0 || nb >= CARC_CELL_OPEN0)
            continue;
        const carc_placed *q = &s->placed[nb - 1];
        uint8_t cs = c->ty[q->type].rot[0].seg[CARC_C];
        if (cs != 0xff)
            cloister_neighbour(c, q->node0 + cs, s->open[q->node0 + cs], &out[nf++]);
    }
    return nf;
}

int carc__heur_features(const carc_state *s, eng_move m, carc__hfeat *out)
{
    hctx c;
    ctx_init(&c, s);
    if (s->phase == CARC_PLACE)
        return predict(&c, m, out);
    if (s->phase == CARC_MEEPLE)
        return actual(&c, out);
    return 0;
}

/* ---- valuation (Algorithm 7) ---------------------------------------------- */

typedef struct hval {
    int me, players;
    int can_meeple; /* the mover has a meeple in hand */
    int farms;
    int tiny_city; /* points of a completed two-tile city */
    double opp;    /* OppBonus */
    double mp;     /* MeeplePenalty(meeples in hand, tiles left) */
} hval;

static void val_init(hval *v, const carc_state *s)
{
    v->me = s->player;
    v->players = s->rules.players;
    v->farms = s->rules.opt[CARC_OPT_FARMS] != 0;
    v->tiny_city = s->rules.opt[CARC_OPT_TINY_CITY];
    v->opp = v->players == 2 ? H_OPP_BONUS_2P : 2.0 / v->players;
    int hand = s->supply[s->player];
    v->can_meeple = hand > 0;
    double fade = s->bag_n / H_ENDGAME_TILES;
    if (fade > 1.0)
        fade = 1.0;
    v->mp = hand > 0 ? H_MEEPLE_COST * CARC_MEEPLES / hand * fade : 0.0;
}

/* Points of a feature in Algorithm 7's sense: what it is worth now
 * (completed value if complete, end-game value otherwise); a field counts
 * 3 per completed city plus a hope for the incomplete ones. */
static double feat_score(const hval *v, const carc__hfeat *f)
{
    switch (f->kind) {
    case CARC_CITY:
        if (!f->complete)
            return f->tiles + f->pen;
        if (f->tiles == 2 && v->tiny_city == 2)
            return 2.0;
        return 2.0 * (f->tiles + f->pen);
    case CARC_ROAD: return f->tiles;
    case CARC_CLOISTER: return 9 - f->open;
    case CARC_FIELD: return 3.0 * f->cities_done + H_FIELD_HOPE * f->cities_open;
    default: return 0.0;
    }
}

/* MeeplePoints of a feature that cannot take our meeple. */
#define H_NO_OPTION (-1e300)

/* One touched feature in Algorithm 7's terms: returns its ElementPoints
 * times the TypeBonus of its kind, and sets *meeple to its MeeplePoints
 * (times TypeBonus), or H_NO_OPTION when a meeple cannot go there. */
static double feature_points(const hval *v, const carc__hfeat *f, double *meeple)
{
    double score = feat_score(v, f), tb = type_bonus[f->kind];
    int best = 0, mine = f->mee[v->me];
    for (int p = 0; p < v->players; p++)
        if (f->mee[p] > best)
            best = f->mee[p];
    if (best > 0) {
        *meeple = H_NO_OPTION; /* occupied */
        double pts = 0.0;
        for (int p = 0; p < v->players; p++)
            if (f->mee[p] == best)
                pts += p == v->me ? score * H_MY_BONUS : -score * v->opp;
        if (f->complete)
            pts += mine * H_RETURN * v->mp;
        return pts * tb;
    }
    if (!v->can_meeple || f->segs == 0 || (f->kind == CARC_FIELD && !v->farms)) {
        *meeple = H_NO_OPTION;
    } else {
        double open;
        switch (f->kind) {
        case CARC_FIELD: open = H_FIELD_LOCK; break;
        case CARC_CLOISTER: open = f->open * H_CLOISTER_OPEN; break;
        default: open = f->open; break; /* 0 when complete: the meeple comes straight back */
        }
        *meeple = (score * H_MY_BONUS - open * v->mp) * tb;
    }
    /* unowned: a prize for others, unless complete or a cloister (neither
     * can be claimed later) */
    if (f->complete || f->kind == CARC_CLOISTER)
        return 0.0;
    return -score * H_OPEN_PENALTY * tb;
}

/* Rate the placement whose features are f[0..n): the elements' points plus
 * the best meeple option, if it beats none. */
static double rate_placement(const hval *v, const carc__hfeat *f, int n)
{
    double pts = 0.0, best = 0.0;
    for (int i = 0; i < n; i++) {
        double mp;
        pts += feature_points(v, &f[i], &mp);
        if (mp > best)
            best = mp;
    }
    return pts + best;
}

void carc_rate_moves(const void *st, const eng_move *moves, int n, double *out)
{
    const carc_state *s = st;
    if (s->phase != CARC_PLACE && s->phase != CARC_MEEPLE) {
        for (int i = 0; i < n; i++)
            out[i] = 0.0;
        return;
    }
    hctx c;
    ctx_init(&c, s);
    hval v;
    val_init(&v, s);
    carc__hfeat f[CARC__HFEAT_MAX];

    if (s->phase == CARC_PLACE) {
        for (int i = 0; i < n; i++) {
            eng_move m = moves[i];
            int cell = m >> 2;
            if (m < 0 || cell >= CARC_CELLS || s->grid[cell] < CARC_CELL_OPEN0) {
                out[i] = -1e9; /* not a placement of this state */
                continue;
            }
            out[i] = rate_placement(&v, f, predict(&c, m, f));
        }
        return;
    }

    /* Meeple step: the elements' points are the same for every option; an
     * option adds its meeple points (none adds nothing). */
    int nf = actual(&c, f);
    double base = 0.0;
    double opt[CARC_MAX_SEGS];
    const carc_type *ty = &c.ty[s->placed[s->nplaced - 1].type];
    for (int g = 0; g < ty->nseg; g++)
        opt[g] = H_NO_OPTION;
    for (int i = 0; i < nf; i++) {
        double mp;
        base += feature_points(&v, &f[i], &mp);
        for (unsigned sg = f[i].segs; sg; sg &= sg - 1)
            opt[__builtin_ctz(sg)] = mp;
    }
    for (int i = 0; i < n; i++) {
        int g = moves[i] - CARC_MEEPLE0;
        if (moves[i] == CARC_NO_MEEPLE)
            out[i] = base;
        else if (g >= 0 && g < ty->nseg && opt[g] > H_NO_OPTION)
            out[i] = base + opt[g];
        else
            out[i] = -1e9; /* not a meeple option of this state */
    }
}
