/*
 * report.c — standings as Markdown, CSV, JSON and SVG (see report.h). Text
 * is built in a growing buffer; names from the spec are escaped for each
 * format (| in Markdown tables, quotes in CSV, & < > " in SVG).
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/textbuf.h"
#include "tournament/internal.h"
#include "tournament/rating.h"
#include "tournament/report.h"

/* ---- text: a textbuf (engine/textbuf.h) ------------------------------------------- */

/* Text with the characters that matter to a format escaped. */
static void sb_md(textbuf *b, const char *s)
{
    for (; *s; s++)
        if (*s == '|')
            tb_printf(b, "\\|");
        else
            tb_printf(b, "%c", *s);
}

static void sb_xml(textbuf *b, const char *s)
{
    for (; *s; s++)
        switch (*s) {
        case '&': tb_printf(b, "&amp;"); break;
        case '<': tb_printf(b, "&lt;"); break;
        case '>': tb_printf(b, "&gt;"); break;
        case '"': tb_printf(b, "&quot;"); break;
        default: tb_printf(b, "%c", *s);
        }
}

static void sb_csv(textbuf *b, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        tb_printf(b, "%s", s);
        return;
    }
    tb_printf(b, "\"");
    for (; *s; s++)
        tb_printf(b, *s == '"' ? "\"\"" : "%c", *s);
    tb_printf(b, "\"");
}

static const char *pname(const tour *t, int i)
{
    return t->spec->participants[i].name;
}

/* The stage a knockout participant reached, for people. */
static void ko_stage(const tour *t, int reached, char *buf, size_t cap)
{
    int R = t->rounds_total, left = R - reached;
    if (left <= 0)
        snprintf(buf, cap, "winner");
    else if (left == 1)
        snprintf(buf, cap, "final");
    else if (left == 2)
        snprintf(buf, cap, "semi-final");
    else if (left == 3)
        snprintf(buf, cap, "quarter-final");
    else
        snprintf(buf, cap, "round %d", reached + 1);
}

static const char *status_word(const tour_standings *s, const tour *t)
{
    return t->cancelled ? "cancelled" : s->done ? "finished" : t->paused ? "paused" : "running";
}

static void sb_rules(textbuf *b, const tour *t)
{
    const eng_game *g = t->spec->game;
    tb_printf(b, "%s (players=%d", g->name, t->k);
    for (int i = 0; i < g->n_options; i++) {
        const eng_option *o = &g->options[i];
        int v = t->spec->rules.opt[i];
        if (o->boolean)
            tb_printf(b, ", %s=%s", o->name, v ? "true" : "false");
        else
            tb_printf(b, ", %s=%d", o->name, v);
    }
    tb_printf(b, ")");
}

/* ---- Markdown --------------------------------------------------------------------- */

char *tour_report_markdown(const tour *t, const tour_standings *s)
{
    textbuf b = TEXTBUF_INIT;
    const tour_spec *sp = t->spec;
    int n = t->n, k = t->k;
    tb_printf(&b, "# ");
    if (sp->label) {
        sb_md(&b, sp->label);
        tb_printf(&b, ": ");
    }
    tb_printf(&b, "%s of %s, %d participants\n\n", tour_format_name(sp->format), sp->game->title,
              n);
    sb_rules(&b, t);
    switch (sp->format) {
    case TOUR_ROUND_ROBIN:
    case TOUR_GAUNTLET:
        tb_printf(&b, ", %d cycle%s", sp->cycles, sp->cycles == 1 ? "" : "s");
        break;
    case TOUR_SWISS: tb_printf(&b, ", %d rounds", t->rounds_total); break;
    case TOUR_KNOCKOUT:
        tb_printf(&b, ", ties of %d group%s", t->gpg, t->gpg == 1 ? "" : "s");
        break;
    }
    if (sp->format != TOUR_KNOCKOUT)
        tb_printf(&b, ", %lld games per table (%d group%s of %d)", (long long)t->gpp, t->gpg,
                  t->gpg == 1 ? "" : "s", k);
    tb_printf(&b, ", seed %llu.\n\n", (unsigned long long)sp->seed);
    tb_printf(&b, "Status: %s. Games: %lld done, %lld running, %lld pending of %lld expected",
              status_word(s, t), (long long)s->counts.done, (long long)s->counts.running,
              (long long)s->counts.pending, (long long)s->counts.expected);
    if (s->counts.voided)
        tb_printf(&b, " (%lld void)", (long long)s->counts.voided);
    tb_printf(&b, ".\n\n## Standings\n\n| # | participant |");
    if (sp->format == TOUR_SWISS)
        tb_printf(&b, " round pts | Buchholz | byes |");
    if (sp->format == TOUR_KNOCKOUT)
        tb_printf(&b, " reached |");
    tb_printf(&b,
              " games | W | D | L | points | rate | rate 95%% | mean score | PD | league | "
              "m:W-D-L | BWP | BLP | Elo | Elo 95%% | ms/move | time losses | faults |\n|---|---|");
    if (sp->format == TOUR_SWISS)
        tb_printf(&b, "---|---|---|");
    if (sp->format == TOUR_KNOCKOUT)
        tb_printf(&b, "---|");
    tb_printf(&b, "---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < n; i++) {
        const tour_row *r = &s->rows[i];
        tb_printf(&b, "| %d | ", r->place);
        sb_md(&b, pname(t, r->participant));
        tb_printf(&b, " |");
        if (sp->format == TOUR_SWISS)
            tb_printf(&b, " %.1f | %.1f | %d |", r->swiss_points, r->buchholz, r->byes);
        if (sp->format == TOUR_KNOCKOUT) {
            char stage[32];
            ko_stage(t, r->ko_reached, stage, sizeof stage);
            tb_printf(&b, " %s%s |", stage, r->ko_alive && !s->done ? " (in)" : "");
        }
        tb_printf(&b,
                  " %lld | %lld | %lld | %lld | %.1f | %.1f%% | %.1f–%.1f%% | %.2f | %+.2f | %d | "
                  "%d-%d-%d | %d | %d | %+.0f | %+.0f…%+.0f | %.1f | %lld | %lld |\n",
                  (long long)r->games, (long long)r->wins, (long long)r->draws,
                  (long long)r->losses, r->points, 100 * r->rate, 100 * r->rate_lo,
                  100 * r->rate_hi, r->mean_score, r->pd, r->league.points, r->league.won,
                  r->league.drawn, r->league.lost, r->league.bwp, r->league.blp, r->elo, r->elo_lo,
                  r->elo_hi, r->ms_per_move, (long long)r->time_losses, (long long)r->faults);
    }

    /* rows and columns in the standings' order, numbered as the standings
     * number them (their place) */
    tb_printf(
        &b, "\n## Cross-table\n\nPoints of the row against the column (a game counts 1 "
            "for a better final place, ½ for an equal one), over the games they shared; "
            "numbered as in the standings.\n\n|   |");
    for (int c = 0; c < n; c++)
        tb_printf(&b, " %d |", s->rows[c].place);
    tb_printf(&b, "\n|---|");
    for (int j = 0; j < n; j++)
        tb_printf(&b, "---|");
    tb_printf(&b, "\n");
    for (int r = 0; r < n; r++) {
        int i = s->rows[r].participant;
        tb_printf(&b, "| %d. ", s->rows[r].place);
        sb_md(&b, pname(t, i));
        tb_printf(&b, " |");
        for (int c = 0; c < n; c++) {
            int j = s->rows[c].participant;
            double g = s->cross_games[i * n + j];
            if (i == j || g == 0)
                tb_printf(&b, " · |");
            else
                tb_printf(&b, " %g/%g |", s->cross_points[i * n + j], g);
        }
        tb_printf(&b, "\n");
    }

    if (n == 2 && k == 2 &&
        s->penta.ll + s->penta.ld + s->penta.dd + s->penta.wl + s->penta.wd + s->penta.ww > 0) {
        const tour_penta *c = &s->penta;
        const tour_penta_est *e = &s->est;
        tb_printf(&b, "\n## Head to head (game pairs)\n\nFrom ");
        sb_md(&b, pname(t, 0));
        tb_printf(&b,
                  "'s side, %lld pairs: LL %lld, LD %lld, DD %lld, WL %lld, WD %lld, WW %lld. "
                  "Score %.2f%%, Elo %+.1f (95%%: %+.1f to %+.1f), nElo %+.1f (95%%: %+.1f to "
                  "%+.1f), LOS %.1f%%.\n",
                  (long long)e->pairs, (long long)c->ll, (long long)c->ld, (long long)c->dd,
                  (long long)c->wl, (long long)c->wd, (long long)c->ww, 100 * e->score, e->elo,
                  e->elo_lo, e->elo_hi, e->nelo, e->nelo_lo, e->nelo_hi, 100 * e->los);
    }
    if (s->has_sprt) {
        const tour_sprt_params *p = &sp->sprt;
        tb_printf(&b,
                  "\n## SPRT\n\nH0: elo %g, H1: elo %g (%s model), alpha %g, beta %g. LLR "
                  "%.2f, bounds [%.2f, %.2f], %lld pairs: ",
                  p->elo0, p->elo1, tour_sprt_model_name(p->model), p->alpha, p->beta, s->sprt.llr,
                  s->sprt.lower, s->sprt.upper, (long long)tour_penta_pairs(&s->sprt.penta));
        if (s->sprt.state == TOUR_SPRT_H1)
            tb_printf(&b, "**H1 accepted** (the first participant is stronger by about elo1).\n");
        else if (s->sprt.state == TOUR_SPRT_H0)
            tb_printf(&b, "**H0 accepted** (not stronger by elo1).\n");
        else
            tb_printf(&b, "undecided.\n");
    }
    tb_printf(&b, "\n## Notes\n\n- W: sole first place; D: first place shared; L: otherwise. "
                  "Points: pairwise share of the final ranking per game.\n"
                  "- Rate 95%%: Wilson score interval. Elo: Bradley–Terry maximum likelihood over "
                  "all games (draws half a win), ");
    if (k > 2)
        tb_printf(&b, "each %d-seat game split into pairwise results weighted 1/%d, ", k, k - 1);
    if (s->anchor >= 0) {
        tb_printf(&b, "anchored at ");
        sb_md(&b, pname(t, s->anchor));
        tb_printf(&b, " = 0");
    } else {
        tb_printf(&b, "mean 0");
    }
    tb_printf(&b, "; 95%% intervals from the inverse observed information.%s\n",
              s->rating_prior ? " The plain maximum-likelihood ratings do not exist yet (someone "
                                "won or lost every game, or the field has not all met): 2 virtual "
                                "draws per participant were added, pulling ratings towards 0."
                              : "");
    tb_printf(&b, "- League points: docs/league.md (W4 D2 L0, bonus points).\n");
    return tb_take(&b);
}

/* ---- CSV ------------------------------------------------------------------------- */

char *tour_report_csv(const tour *t, const tour_standings *s)
{
    textbuf b = TEXTBUF_INIT;
    tb_printf(&b, "place,name,spec,games,wins,draws,losses,points,rate,rate_lo,rate_hi,"
                  "mean_score,pd,league_points,league_won,league_drawn,league_lost,bwp,blp,"
                  "league_pd,elo,elo_lo,elo_hi,elo_se,time_ms,moves,ms_per_move,time_losses,"
                  "faults,score_min,score_q1,score_median,score_q3,score_max,swiss_points,"
                  "buchholz,byes,ko_reached,ko_alive\r\n");
    for (int i = 0; i < s->n; i++) {
        const tour_row *r = &s->rows[i];
        tb_printf(&b, "%d,", r->place);
        sb_csv(&b, pname(t, r->participant));
        tb_printf(&b, ",");
        sb_csv(&b, t->spec->participants[r->participant].spec);
        tb_printf(&b,
                  ",%lld,%lld,%lld,%lld,%.6g,%.6f,%.6f,%.6f,%.6g,%.6g,%d,%d,%d,%d,%d,%d,%.6g,"
                  "%.3f,%.3f,%.3f,%.3f,%.3f,%lld,%.6g,%lld,%lld,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,"
                  "%.6g,%d,%d,%d\r\n",
                  (long long)r->games, (long long)r->wins, (long long)r->draws,
                  (long long)r->losses, r->points, r->rate, r->rate_lo, r->rate_hi, r->mean_score,
                  r->pd, r->league.points, r->league.won, r->league.drawn, r->league.lost,
                  r->league.bwp, r->league.blp, r->league.pd, r->elo, r->elo_lo, r->elo_hi,
                  r->elo_se, r->time_ms, (long long)r->moves, r->ms_per_move,
                  (long long)r->time_losses, (long long)r->faults, r->score_min, r->score_q1,
                  r->score_median, r->score_q3, r->score_max, r->swiss_points, r->buchholz, r->byes,
                  r->ko_reached, r->ko_alive);
    }
    return tb_take(&b);
}

/* ---- JSON ------------------------------------------------------------------------ */

/* A real, or null when not finite (JSON has no infinities). */
static json_t *jreal(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

static json_t *game_json(const tour *t, int64_t id)
{
    tour_game g;
    tour_get_game(t, id, &g);
    json_t *table = json_array();
    for (int s = 0; s < t->k; s++)
        json_array_append_new(table, json_string(pname(t, g.table[s])));
    json_t *o = json_pack("{s:I, s:I, s:I, s:i, s:i, s:o, s:s}", "id", (json_int_t)id, "group",
                          (json_int_t)g.group, "pairing", (json_int_t)g.pairing, "round", g.round,
                          "rotation", g.rotation, "table", table, "status",
                          tour_game_status_name(g.status));
    if (!o)
        return NULL;
    if (t->ref[id])
        json_object_set_new(o, "ref", json_string(t->ref[id]));
    const tour__res *r = t->res[id];
    if (r) {
        json_t *score = json_array(), *rank = json_array(), *tm = json_array();
        for (int s = 0; s < t->k; s++) {
            json_array_append_new(score, jreal(r->score[s]));
            json_array_append_new(rank, json_integer(r->rank[s]));
            json_array_append_new(tm, jreal(r->time_ms[s]));
        }
        json_object_set_new(o, "score", score);
        json_object_set_new(o, "rank", rank);
        json_object_set_new(o, "time_ms", tm);
        json_object_set_new(o, "end", json_string(tour_end_name((tour_end)r->end)));
        if (r->culprit >= 0)
            json_object_set_new(o, "culprit_seat", json_integer(r->culprit));
        if (r->verdict)
            json_object_set_new(o, "verdict", json_string(r->verdict));
    }
    return o;
}

static json_t *penta_json(const tour_penta *c)
{
    return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I}", "ll", (json_int_t)c->ll, "ld",
                     (json_int_t)c->ld, "dd", (json_int_t)c->dd, "wl", (json_int_t)c->wl, "wd",
                     (json_int_t)c->wd, "ww", (json_int_t)c->ww);
}

json_t *tour_report_json(const tour *t, const tour_standings *s, bool with_games)
{
    int n = t->n;
    json_t *rows = json_array();
    for (int i = 0; i < n && rows; i++) {
        const tour_row *r = &s->rows[i];
        json_t *o = json_pack(
            "{s:i, s:i, s:s, s:s, s:I, s:I, s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, "
            "s:o, s:o, s:I, s:o, s:I, s:I}",
            "place", r->place, "participant", r->participant, "name", pname(t, r->participant),
            "spec", t->spec->participants[r->participant].spec, "games", (json_int_t)r->games,
            "wins", (json_int_t)r->wins, "draws", (json_int_t)r->draws, "losses",
            (json_int_t)r->losses, "points", jreal(r->points), "rate", jreal(r->rate), "rate_lo",
            jreal(r->rate_lo), "rate_hi", jreal(r->rate_hi), "mean_score", jreal(r->mean_score),
            "pd", jreal(r->pd), "elo", jreal(r->elo), "elo_lo", jreal(r->elo_lo), "elo_hi",
            jreal(r->elo_hi), "time_ms", jreal(r->time_ms), "moves", (json_int_t)r->moves,
            "ms_per_move", jreal(r->ms_per_move), "time_losses", (json_int_t)r->time_losses,
            "faults", (json_int_t)r->faults);
        if (!o)
            continue;
        json_object_set_new(o, "elo_se", jreal(r->elo_se));
        json_object_set_new(o, "league",
                            json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:o}", "matches",
                                      r->league.matches, "won", r->league.won, "drawn",
                                      r->league.drawn, "lost", r->league.lost, "bwp", r->league.bwp,
                                      "blp", r->league.blp, "points", r->league.points, "pd",
                                      jreal(r->league.pd)));
        json_object_set_new(o, "scores",
                            json_pack("{s:o, s:o, s:o, s:o, s:o}", "min", jreal(r->score_min), "q1",
                                      jreal(r->score_q1), "median", jreal(r->score_median), "q3",
                                      jreal(r->score_q3), "max", jreal(r->score_max)));
        if (t->spec->format == TOUR_SWISS)
            json_object_set_new(o, "swiss",
                                json_pack("{s:o, s:o, s:i}", "points", jreal(r->swiss_points),
                                          "buchholz", jreal(r->buchholz), "byes", r->byes));
        if (t->spec->format == TOUR_KNOCKOUT) {
            char stage[32];
            ko_stage(t, r->ko_reached, stage, sizeof stage);
            json_object_set_new(o, "knockout",
                                json_pack("{s:i, s:s, s:b}", "reached", r->ko_reached, "stage",
                                          stage, "alive", r->ko_alive));
        }
        json_array_append_new(rows, o);
    }
    json_t *cp = json_array(), *cg = json_array();
    for (int i = 0; i < n; i++) {
        json_t *a = json_array(), *g = json_array();
        for (int j = 0; j < n; j++) {
            json_array_append_new(a, jreal(s->cross_points[i * n + j]));
            json_array_append_new(g, jreal(s->cross_games[i * n + j]));
        }
        json_array_append_new(cp, a);
        json_array_append_new(cg, g);
    }
    const tour_counts *c = &s->counts;
    json_t *o = json_pack(
        "{s:o, s:s, s:b, s:b, s:b, s:{s:I, s:I, s:I, s:I, s:I, s:I, s:i, s:i}, s:o, "
        "s:{s:o, s:o}, s:{s:s, s:s, s:o, s:b, s:f}}",
        "spec", tour_spec_to_json(t->spec), "status", status_word(s, t), "done", s->done, "paused",
        t->paused, "cancelled", t->cancelled, "counts", "pending", (json_int_t)c->pending,
        "running", (json_int_t)c->running, "done", (json_int_t)c->done, "void",
        (json_int_t)c->voided, "scheduled", (json_int_t)c->scheduled, "expected",
        (json_int_t)c->expected, "round", c->round, "rounds", c->rounds, "standings", rows,
        "crosstable", "points", cp, "games", cg, "ratings", "model", "bradley-terry", "draws",
        "half a win", "anchor", s->anchor >= 0 ? json_string(pname(t, s->anchor)) : json_null(),
        "prior", s->rating_prior, "interval", 0.95);
    if (!o)
        return NULL;
    if (n == 2 && t->k == 2) {
        const tour_penta_est *e = &s->est;
        json_object_set_new(o, "head_to_head",
                            json_pack("{s:o, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "penta",
                                      penta_json(&s->penta), "pairs", (json_int_t)e->pairs, "score",
                                      jreal(e->score), "elo", jreal(e->elo), "elo_lo",
                                      jreal(e->elo_lo), "elo_hi", jreal(e->elo_hi), "nelo",
                                      jreal(e->nelo), "nelo_lo", jreal(e->nelo_lo), "nelo_hi",
                                      jreal(e->nelo_hi), "los", jreal(e->los)));
    }
    if (s->has_sprt) {
        const tour_sprt_params *p = &t->spec->sprt;
        json_object_set_new(
            o, "sprt",
            json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:s, s:o, s:I}", "state",
                      tour_sprt_state_name(s->sprt.state), "llr", jreal(s->sprt.llr), "lower",
                      jreal(s->sprt.lower), "upper", jreal(s->sprt.upper), "elo0", jreal(p->elo0),
                      "elo1", jreal(p->elo1), "alpha", jreal(p->alpha), "beta", jreal(p->beta),
                      "model", tour_sprt_model_name(p->model), "penta", penta_json(&s->sprt.penta),
                      "decided_at_group", (json_int_t)s->sprt.decided_at));
    }
    if (with_games) {
        json_t *games = json_array();
        for (int64_t id = 0; id < tour__ngames(t) && games; id++)
            json_array_append_new(games, game_json(t, id));
        json_object_set_new(o, "games", games);
    }
    return o;
}

/* ---- SVG ------------------------------------------------------------------------- */

#define SVG_W      760
#define SVG_LEFT   170 /* room for names */
#define SVG_RIGHT  30
#define SVG_ROW    26
#define SVG_TOP    46
#define SVG_BOTTOM 40

/* A "nice" tick step for a span (1, 2 or 5 times a power of ten). */
static double nice_step(double span, int ticks)
{
    double raw = span / ticks, p = pow(10, floor(log10(raw)));
    double m = raw / p;
    return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

static void svg_open(textbuf *b, int h, const char *title)
{
    tb_printf(b,
              "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
              "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n"
              "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n"
              "<text x=\"%d\" y=\"22\" font-size=\"15\" font-weight=\"bold\">",
              SVG_W, h, SVG_W, h, 10);
    sb_xml(b, title);
    tb_printf(b, "</text>\n");
}

/* An x axis from lo to hi at the bottom of a plot of height h. */
static void svg_axis(textbuf *b, double lo, double hi, int h, const char *label)
{
    double step = nice_step(hi - lo, 6);
    int y0 = SVG_TOP - 6, y1 = h - SVG_BOTTOM + 4, w = SVG_W - SVG_LEFT - SVG_RIGHT;
    for (double x = ceil(lo / step) * step; x <= hi + 1e-9; x += step) {
        double px = SVG_LEFT + (x - lo) / (hi - lo) * w;
        tb_printf(b,
                  "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>\n"
                  "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">%g</text>\n",
                  px, y0, px, y1, px, y1 + 14, fabs(x) < 1e-9 ? 0 : x);
    }
    tb_printf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"#333\">", SVG_LEFT + w / 2,
              h - 6);
    sb_xml(b, label);
    tb_printf(b, "</text>\n");
}

static void svg_name(textbuf *b, const tour *t, int i, int y)
{
    tb_printf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", SVG_LEFT - 10, y + 4);
    sb_xml(b, pname(t, i));
    tb_printf(b, "</text>\n");
}

char *tour_svg_ratings(const tour *t, const tour_standings *s)
{
    textbuf b = TEXTBUF_INIT;
    int n = s->n, h = SVG_TOP + n * SVG_ROW + SVG_BOTTOM;
    /* rows by rating, best first */
    int order[TOUR_MAX_PARTICIPANTS];
    for (int i = 0; i < n; i++)
        order[i] = i;
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && s->rows[order[j - 1]].elo < s->rows[order[j]].elo; j--) {
            int x = order[j];
            order[j] = order[j - 1];
            order[j - 1] = x;
        }
    double lo = 0, hi = 0;
    for (int i = 0; i < n; i++) {
        lo = fmin(lo, s->rows[i].elo_lo);
        hi = fmax(hi, s->rows[i].elo_hi);
    }
    double pad = (hi - lo) * 0.05 + 10;
    lo -= pad;
    hi += pad;
    svg_open(&b, h, "Ratings (Elo, Bradley–Terry) with 95% intervals");
    svg_axis(&b, lo, hi, h, s->anchor >= 0 ? "Elo (anchor = 0)" : "Elo (mean = 0)");
    int w = SVG_W - SVG_LEFT - SVG_RIGHT;
#define PX(v) (SVG_LEFT + ((v)-lo) / (hi - lo) * w)
    tb_printf(&b, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#999\"/>\n", PX(0.0),
              SVG_TOP - 6, PX(0.0), h - SVG_BOTTOM + 4);
    for (int i = 0; i < n; i++) {
        const tour_row *r = &s->rows[order[i]];
        int y = SVG_TOP + i * SVG_ROW + SVG_ROW / 2;
        svg_name(&b, t, r->participant, y);
        tb_printf(&b,
                  "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#1f5fa8\" "
                  "stroke-width=\"2\"/>\n"
                  "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#1f5fa8\"/>\n"
                  "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#1f5fa8\"/>\n"
                  "<circle cx=\"%.1f\" cy=\"%d\" r=\"4\" fill=\"#1f5fa8\"><title>%+.0f (%+.0f to "
                  "%+.0f)</title></circle>\n",
                  PX(r->elo_lo), y, PX(r->elo_hi), y, PX(r->elo_lo), y - 5, PX(r->elo_lo), y + 5,
                  PX(r->elo_hi), y - 5, PX(r->elo_hi), y + 5, PX(r->elo), y, r->elo, r->elo_lo,
                  r->elo_hi);
    }
#undef PX
    tb_printf(&b, "</svg>\n");
    return tb_take(&b);
}

char *tour_svg_scores(const tour *t, const tour_standings *s)
{
    textbuf b = TEXTBUF_INIT;
    int n = s->n, h = SVG_TOP + n * SVG_ROW + SVG_BOTTOM;
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < n; i++)
        if (s->rows[i].games) {
            lo = fmin(lo, s->rows[i].score_min);
            hi = fmax(hi, s->rows[i].score_max);
        }
    if (!(lo <= hi)) {
        lo = 0;
        hi = 1;
    }
    double pad = (hi - lo) * 0.05 + 0.5;
    lo -= pad;
    hi += pad;
    svg_open(&b, h, "Game scores per participant (min, quartiles, median, max; ◆ mean)");
    svg_axis(&b, lo, hi, h, "final game score");
    int w = SVG_W - SVG_LEFT - SVG_RIGHT;
#define PX(v) (SVG_LEFT + ((v)-lo) / (hi - lo) * w)
    for (int i = 0; i < n; i++) {
        const tour_row *r = &s->rows[i];
        int y = SVG_TOP + i * SVG_ROW + SVG_ROW / 2;
        svg_name(&b, t, r->participant, y);
        if (!r->games)
            continue;
        tb_printf(&b,
                  "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#555\"/>\n"
                  "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"14\" fill=\"#cfe0f3\" "
                  "stroke=\"#1f5fa8\"/>\n"
                  "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#1f5fa8\" "
                  "stroke-width=\"2\"/>\n"
                  "<path d=\"M%.1f %d l4 4 l-4 4 l-4 -4 z\" fill=\"#b33\"><title>mean %.2f, "
                  "median %.2f, %lld games</title></path>\n",
                  PX(r->score_min), y, PX(r->score_max), y, PX(r->score_q1), y - 7,
                  PX(r->score_q3) - PX(r->score_q1), PX(r->score_median), y - 7,
                  PX(r->score_median), y + 7, PX(r->mean_score), y - 4, r->mean_score,
                  r->score_median, (long long)r->games);
    }
#undef PX
    tb_printf(&b, "</svg>\n");
    return tb_take(&b);
}

char *tour_svg_crosstable(const tour *t, const tour_standings *s)
{
    textbuf b = TEXTBUF_INIT;
    int n = s->n, cell = n <= 12 ? 44 : n <= 30 ? 22 : 10, left = 170, top = 60;
    int wpx = left + n * cell + 20, h = top + n * cell + 30;
    tb_printf(&b,
              "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
              "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n"
              "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n"
              "<text x=\"10\" y=\"22\" font-size=\"15\" font-weight=\"bold\">Cross-table: "
              "score rate of the row against the column</text>\n",
              wpx, h, wpx, h);
    /* in the standings' order, numbered by place, as the Markdown */
    for (int c = 0; c < n; c++)
        tb_printf(&b, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%d</text>\n",
                  left + c * cell + cell / 2, top - 8, s->rows[c].place);
    for (int r = 0; r < n; r++) {
        int i = s->rows[r].participant, y = top + r * cell;
        tb_printf(&b, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%d. ", left - 8,
                  y + cell / 2 + 4, s->rows[r].place);
        sb_xml(&b, pname(t, i));
        tb_printf(&b, "</text>\n");
        for (int c = 0; c < n; c++) {
            int j = s->rows[c].participant, x = left + c * cell;
            double g = s->cross_games[i * n + j];
            if (i == j || g == 0) {
                tb_printf(&b,
                          "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#eee\" "
                          "stroke=\"#fff\"/>\n",
                          x, y, cell, cell);
                continue;
            }
            double rate = s->cross_points[i * n + j] / g;
            /* red (0) - white (1/2) - green (1) */
            double lo[3] = {214, 96, 77}, hi[3] = {44, 160, 44}, rgb[3];
            for (int q = 0; q < 3; q++) /* white at 1/2 */
                rgb[q] = rate < 0.5 ? lo[q] + (255 - lo[q]) * (rate / 0.5)
                                    : 255 + (hi[q] - 255) * ((rate - 0.5) / 0.5);
            int rr = (int)rgb[0], gg = (int)rgb[1], bb = (int)rgb[2];
            tb_printf(&b,
                      "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"rgb(%d,%d,%d)\" "
                      "stroke=\"#fff\"><title>%g/%g</title></rect>\n",
                      x, y, cell, cell, rr, gg, bb, s->cross_points[i * n + j], g);
            if (cell >= 22)
                tb_printf(&b,
                          "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"%d\">"
                          "%.0f</text>\n",
                          x + cell / 2, y + cell / 2 + 4, cell >= 44 ? 12 : 9, 100 * rate);
        }
    }
    tb_printf(&b, "</svg>\n");
    return tb_take(&b);
}

/* ---- files ------------------------------------------------------------------------ */

static int write_file(const char *dir, const char *name, const char *text, char *err, size_t errcap)
{
    if (!text)
        return eng_seterr(err, errcap, ENG_ENOMEM, "out of memory writing %s", name);
    char path[4096], tmp[4200];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path)
        return eng_seterr(err, errcap, ENG_EIO, "the path %s/%s is too long", dir, name);
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f)
        return eng_seterr(err, errcap, ENG_EIO, "cannot write %s: %s", tmp, strerror(errno));
    size_t len = strlen(text);
    bool ok = fwrite(text, 1, len, f) == len;
    ok = fclose(f) == 0 && ok;
    if (!ok || rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        return eng_seterr(err, errcap, ENG_EIO, "cannot write %s: %s", path, strerror(e));
    }
    return 0;
}

int tour_report_write(const tour *t, const char *dir, char *err, size_t errcap)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return eng_seterr(err, errcap, ENG_EIO, "cannot create the directory %s: %s", dir,
                          strerror(errno));
    tour_standings *s = tour_standings_new(t);
    if (!s)
        return eng_seterr(err, errcap, ENG_ENOMEM, "out of memory computing the standings");
    int rc = 0;
    char *text;
    text = tour_report_markdown(t, s);
    rc = write_file(dir, "standings.md", text, err, errcap);
    free(text);
    if (!rc) {
        text = tour_report_csv(t, s);
        rc = write_file(dir, "standings.csv", text, err, errcap);
        free(text);
    }
    if (!rc) {
        json_t *o = tour_report_json(t, s, true);
        text = o ? json_dumps(o, JSON_INDENT(1) | JSON_REAL_PRECISION(10)) : NULL;
        json_decref(o);
        if (text) {
            size_t len = strlen(text);
            char *nl = realloc(text, len + 2);
            if (nl) {
                text = nl;
                strcpy(text + len, "\n");
            }
        }
        rc = write_file(dir, "result.json", text, err, errcap);
        free(text);
    }
    if (!rc) {
        text = tour_svg_ratings(t, s);
        rc = write_file(dir, "ratings.svg", text, err, errcap);
        free(text);
    }
    if (!rc) {
        text = tour_svg_scores(t, s);
        rc = write_file(dir, "scores.svg", text, err, errcap);
        free(text);
    }
    if (!rc) {
        text = tour_svg_crosstable(t, s);
        rc = write_file(dir, "crosstable.svg", text, err, errcap);
        free(text);
    }
    tour_standings_free(s);
    return rc;
}
