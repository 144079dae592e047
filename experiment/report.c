/*
 * report.c — an experiment's result as text (experiment.h): the terminal
 * table, Markdown, CSV, JSON and an SVG plot of A's scoring rate against
 * the rows' x (the doubling curve of Müller's thesis, Figure 5.4), ours with
 * its 95% Wilson interval beside the paper's. Every rate is A's: (wins +
 * draws/2) / games, the thesis' scoring rate.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/textbuf.h"
#include "experiment/experiment.h"

static void paper_wld(const exp_paper *p, char *buf, size_t cap)
{
    if (p->present && p->wld)
        snprintf(buf, cap, "%lld-%lld-%lld", (long long)p->w, (long long)p->l, (long long)p->d);
    else if (p->present) /* the paper's own form: points (W + D/2) of n games */
        snprintf(buf, cap, "%g of %lld", p->rate * (double)p->n, (long long)p->n);
    else
        snprintf(buf, cap, "-");
}

/* "carcassonne, rules tiny_city=2" / "reversi" */
static void game_text(const exp_def *d, char *buf, size_t cap)
{
    size_t o = (size_t)snprintf(buf, cap, "%s", d->game);
    for (int i = 0; i < d->nrules && o < cap; i++)
        o += (size_t)snprintf(buf + o, cap - o, "%s%s", i ? " " : ", rules ", d->rules[i]);
}

static void rate_text(double rate, double lo, double hi, bool have, char *buf, size_t cap)
{
    if (have)
        snprintf(buf, cap, "%.1f%% (%.1f-%.1f)", 100 * rate, 100 * lo, 100 * hi);
    else
        snprintf(buf, cap, "-");
}

static void ours_wld(const exp_row_result *r, char *buf, size_t cap)
{
    if (r->done)
        snprintf(buf, cap, "%lld-%lld-%lld", (long long)r->w, (long long)r->l, (long long)r->d);
    else
        snprintf(buf, cap, "-");
}

static void games_text(const exp_row_result *r, char *buf, size_t cap)
{
    if (r->done < r->expected)
        snprintf(buf, cap, "%lld of %lld", (long long)r->done, (long long)r->expected);
    else
        snprintf(buf, cap, "%lld", (long long)r->done);
}

static void league_text(const exp_league *l, char *buf, size_t cap)
{
    snprintf(buf, cap, "%d (%d/%d, %d-%d-%d, PD %+.1f)", l->points, l->bwp, l->blp, l->won, l->lost,
             l->drawn, l->pd);
}

/* Every row of the experiment finished? (the ranking is partial otherwise) */
static bool all_rows_done(const exp_def *d, const exp_row_result *res)
{
    for (int i = 0; i < d->nrows; i++)
        if (res[i].done == 0 || res[i].done < res[i].expected)
            return false;
    return true;
}

/* The ranking table, one line per controller in the paper's order:
 * Markdown (md) or plain text. */
static void ranking(textbuf *b, const exp_def *d, const exp_row_result *res, bool md)
{
    if (d->nranked == 0)
        return;
    exp_league ours[EXP_MAX_RANKED];
    int rank[EXP_MAX_RANKED];
    exp_ranking(d, res, ours, rank);
    int order[EXP_MAX_RANKED];
    for (int i = 0; i < d->nranked; i++)
        order[i] = i;
    for (int i = 1; i < d->nranked; i++) /* by the paper's rank (few entries) */
        for (int j = i;
             j > 0 && d->ranked[order[j]].paper_rank < d->ranked[order[j - 1]].paper_rank; j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    const char *partial = all_rows_done(d, res) ? "" : " (not every row is done: partial)";
    if (md)
        tb_printf(b,
                  "\n### Ranking: the paper's %s and ours%s\n\n"
                  "League points of docs/league.md summed over each controller's rows (a row is "
                  "two matches, one per seat order): points (BWP/BLP, matches W-L-D, PD).\n\n"
                  "| controller | paper rank | paper points | our rank | our points |\n"
                  "|---|---|---|---|---|\n",
                  d->ranking_table, partial);
    else
        tb_printf(b, "\nRanking (the paper's %s) and ours%s: points (BWP/BLP, W-L-D, PD)\n",
                  d->ranking_table, partial);
    for (int j = 0; j < d->nranked; j++) {
        int i = order[j];
        char pl[96], ol[96];
        league_text(&d->ranked[i].paper, pl, sizeof pl);
        league_text(&ours[i], ol, sizeof ol);
        if (md)
            tb_printf(b, "| %s (`%s`) | %d | %s | %d | %s |\n", d->ranked[i].label,
                      d->ranked[i].spec, d->ranked[i].paper_rank, pl, rank[i], ol);
        else
            tb_printf(b, "  %-12s paper %2d: %-30s ours %2d: %s\n", d->ranked[i].label,
                      d->ranked[i].paper_rank, pl, rank[i], ol);
    }
}

/* ---- terminal ---------------------------------------------------------------------- */

char *exp_report_text(const exp_def *d, const exp_row_result *res)
{
    textbuf b = TEXTBUF_INIT;
    char gt[512];
    game_text(d, gt, sizeof gt);
    tb_printf(
        &b,
        "%s: %s\n%s, %s. Game: %s, 2 players. Rates are A's: (W + D/2) / games, with the 95%% "
        "Wilson interval.\n\n",
        d->name, d->title, d->paper, d->table, gt);
    int lw = 5;
    for (int i = 0; i < d->nrows; i++) {
        int n = (int)strlen(d->rows[i].label);
        if (n > lw)
            lw = n > 44 ? 44 : n;
    }
    tb_printf(&b, "%-*s  %11s %21s  %11s %11s %21s  %s\n", lw, "row", "paper W-L-D", "paper rate",
              "games", "ours W-L-D", "our rate", "verdict");
    for (int i = 0; i < d->nrows; i++) {
        const exp_row *row = &d->rows[i];
        const exp_row_result *r = &res[i];
        char pw[40], pr[48], ow[40], orr[48], gm[48];
        paper_wld(&row->paper, pw, sizeof pw);
        rate_text(r->paper_rate, r->paper_lo, r->paper_hi, row->paper.present, pr, sizeof pr);
        ours_wld(r, ow, sizeof ow);
        rate_text(r->rate, r->lo, r->hi, r->done > 0, orr, sizeof orr);
        games_text(r, gm, sizeof gm);
        tb_printf(&b, "%-*.*s  %11s %21s  %11s %11s %21s  %s\n", lw, lw, row->label, pw, pr, gm, ow,
                  orr, exp_verdict_name(r->verdict));
    }
    tb_printf(&b, "\nRows (A against B):\n");
    for (int i = 0; i < d->nrows; i++)
        tb_printf(&b, "  %-*.*s  A = %s, B = %s\n", lw, lw, d->rows[i].label, d->rows[i].a,
                  d->rows[i].b);
    tb_printf(
        &b,
        "\nverdict: \"agrees\" when our rate and the paper's differ by at most 1.96 pooled\n"
        "standard errors (a two-proportion test at 95%%, each rate over its own games), else\n"
        "\"differs\". The paper's conclusion: %s\n",
        d->conclusion);
    ranking(&b, d, res, false);
    return tb_take(&b);
}

/* ---- Markdown ---------------------------------------------------------------------- */

/* Backquote a spec for Markdown (specs have no backquotes). */
char *exp_report_markdown(const exp_def *d, const exp_row_result *res, const exp_options *o)
{
    textbuf b = TEXTBUF_INIT;
    tb_printf(&b, "# %s: %s\n\n", d->name, d->title);
    /* no link: the report is written outside docs/ (the anchor names the citation there) */
    tb_printf(&b, "Paper: %s (docs/references.md, `#%s`), %s. Its conclusion: %s\n\n", d->paper,
              d->anchor, d->table, d->conclusion);
    tb_printf(&b, "Set-up: %s\n\n", d->setup);
    tb_printf(&b, "Game: `%s`, 2 players, ", d->game);
    if (d->nrules == 0)
        tb_printf(&b, "default rules.\n\n");
    for (int i = 0; i < d->nrules; i++)
        tb_printf(&b, "%s`%s`%s", i ? ", " : "rules ", d->rules[i],
                  i + 1 == d->nrules ? ".\n\n" : "");
    tb_printf(&b,
              "Seed %llu%s. Every rate is A's scoring rate (W + D/2) / games with its 95%% Wilson "
              "interval; the paper's figures are A's side of the cells named in *paper cells*.\n\n",
              (unsigned long long)(o ? o->seed : 1),
              o && o->quick ? ", quick mode (tiny budgets)" : "");
    tb_printf(&b, "| row | A | B | paper W-L-D | paper rate (95%%) | games | ours W-L-D | our rate "
                  "(95%%) | score A / B | Elo A−B (95%%) | verdict | paper cells |\n");
    tb_printf(&b, "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < d->nrows; i++) {
        const exp_row *row = &d->rows[i];
        const exp_row_result *r = &res[i];
        char pw[40], pr[48], ow[40], orr[48], gm[48], sc[48], elo[64];
        paper_wld(&row->paper, pw, sizeof pw);
        rate_text(r->paper_rate, r->paper_lo, r->paper_hi, row->paper.present, pr, sizeof pr);
        ours_wld(r, ow, sizeof ow);
        rate_text(r->rate, r->lo, r->hi, r->done > 0, orr, sizeof orr);
        games_text(r, gm, sizeof gm);
        if (r->done) {
            snprintf(sc, sizeof sc, "%.1f / %.1f", r->score_a, r->score_b);
            snprintf(elo, sizeof elo, "%+.0f (%+.0f..%+.0f)", r->elo, r->elo_lo, r->elo_hi);
        } else {
            snprintf(sc, sizeof sc, "-");
            snprintf(elo, sizeof elo, "-");
        }
        tb_printf(&b, "| %s | `%s` | `%s` | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
                  row->label, row->a, row->b, pw, pr, gm, ow, orr, sc, elo,
                  exp_verdict_name(r->verdict), row->paper.present ? row->paper.source : "—");
    }
    tb_printf(&b,
              "\n*verdict*: **agrees** when the two rates differ by at most 1.96 pooled standard "
              "errors (a two-proportion test at 95%%, each rate over its own games), "
              "**differs** otherwise; *ours only*: the paper has no such cell.\n");
    ranking(&b, d, res, true);
    return tb_take(&b);
}

/* ---- CSV ---------------------------------------------------------------------------- */

static void csv_field(textbuf *b, const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) {
        tb_printf(b, "%s", s);
        return;
    }
    tb_printf(b, "\"");
    for (; *s; s++)
        tb_printf(b, *s == '"' ? "\"\"" : "%c", *s);
    tb_printf(b, "\"");
}

char *exp_report_csv(const exp_def *d, const exp_row_result *res)
{
    textbuf b = TEXTBUF_INIT;
    tb_printf(&b, "experiment,row,label,a,b,x,paper_w,paper_l,paper_d,paper_n,paper_rate,paper_lo,"
                  "paper_hi,"
                  "games_expected,games,w,l,d,rate,lo,hi,score_a,score_b,elo,elo_lo,elo_hi,z,"
                  "verdict\n");
    for (int i = 0; i < d->nrows; i++) {
        const exp_row *row = &d->rows[i];
        const exp_row_result *r = &res[i];
        csv_field(&b, d->name);
        tb_printf(&b, ",");
        csv_field(&b, row->id);
        tb_printf(&b, ",");
        csv_field(&b, row->label);
        tb_printf(&b, ",");
        csv_field(&b, row->a);
        tb_printf(&b, ",");
        csv_field(&b, row->b);
        tb_printf(&b, ",%g,", row->x);
        if (row->paper.present && row->paper.wld)
            tb_printf(&b, "%lld,%lld,%lld,", (long long)row->paper.w, (long long)row->paper.l,
                      (long long)row->paper.d);
        else
            tb_printf(&b, ",,,");
        if (row->paper.present)
            tb_printf(&b, "%lld,%.4f,%.4f,%.4f,", (long long)row->paper.n, r->paper_rate,
                      r->paper_lo, r->paper_hi);
        else
            tb_printf(&b, ",,,,");
        tb_printf(&b, "%lld,%lld,", (long long)r->expected, (long long)r->done);
        if (r->done)
            tb_printf(&b, "%lld,%lld,%lld,%.4f,%.4f,%.4f,%.2f,%.2f,%.1f,%.1f,%.1f,%.3f,",
                      (long long)r->w, (long long)r->l, (long long)r->d, r->rate, r->lo, r->hi,
                      r->score_a, r->score_b, r->elo, r->elo_lo, r->elo_hi, r->z);
        else
            tb_printf(&b, ",,,,,,,,,,,,");
        tb_printf(&b, "%s\n", exp_verdict_name(r->verdict));
    }
    return tb_take(&b);
}

/* ---- JSON --------------------------------------------------------------------------- */

json_t *exp_report_json(const exp_def *d, const exp_row_result *res, const exp_options *o)
{
    json_t *rows = json_array();
    json_t *rules = json_array();
    for (int i = 0; rules && i < d->nrules; i++)
        json_array_append_new(rules, json_string(d->rules[i]));
    json_t *root = json_pack(
        "{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:o, s:I, s:b, s:o}", "experiment", d->name,
        "title", d->title, "paper", d->paper, "anchor", d->anchor, "table", d->table, "conclusion",
        d->conclusion, "setup", d->setup, "game", d->game, "rules", rules ? rules : json_null(),
        "seed", (json_int_t)(o ? o->seed : 1), "quick", o && o->quick, "rows", rows);
    if (!root)
        return NULL;
    for (int i = 0; i < d->nrows; i++) {
        const exp_row *row = &d->rows[i];
        const exp_row_result *r = &res[i];
        const exp_paper *pp = &row->paper;
        /* w, l, d are null when the paper gives only a rate over n games */
        json_t *paper = pp->present
                            ? json_pack("{s:o, s:o, s:o, s:I, s:f, s:f, s:f, s:s}", "w",
                                        pp->wld ? json_integer(pp->w) : json_null(), "l",
                                        pp->wld ? json_integer(pp->l) : json_null(), "d",
                                        pp->wld ? json_integer(pp->d) : json_null(), "n",
                                        (json_int_t)pp->n, "rate", r->paper_rate, "lo", r->paper_lo,
                                        "hi", r->paper_hi, "source", pp->source)
                            : json_null();
        json_t *ours = json_pack(
            "{s:I, s:I, s:I, s:I, s:I, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, "
            "s:f, s:f, s:I, s:b}",
            "games_expected", (json_int_t)r->expected, "games", (json_int_t)r->done, "w",
            (json_int_t)r->w, "l", (json_int_t)r->l, "d", (json_int_t)r->d, "rate", r->rate, "lo",
            r->lo, "hi", r->hi, "score_a", r->score_a, "score_b", r->score_b, "elo", r->elo,
            "elo_lo", r->elo_lo, "elo_hi", r->elo_hi, "ms_per_decision_a", r->ms_a,
            "ms_per_decision_b", r->ms_b, "seconds", round(r->seconds * 1000) / 1000, "played",
            (json_int_t)r->played, "resumed", r->resumed);
        json_t *jr = json_pack("{s:s, s:s, s:s, s:s, s:f, s:o, s:o, s:f, s:s}", "id", row->id,
                               "label", row->label, "a", row->a, "b", row->b, "x", row->x, "paper",
                               paper ? paper : json_null(), "ours", ours ? ours : json_null(), "z",
                               r->z, "verdict", exp_verdict_name(r->verdict));
        if (!jr || json_array_append_new(rows, jr)) {
            json_decref(root);
            return NULL;
        }
    }
    if (d->nranked) {
        exp_league ours[EXP_MAX_RANKED];
        int rank[EXP_MAX_RANKED];
        exp_ranking(d, res, ours, rank);
        json_t *ents = json_array();
        json_t *rk = json_pack("{s:s, s:b, s:o}", "table", d->ranking_table, "complete",
                               all_rows_done(d, res), "entries", ents);
        if (!rk || json_object_set_new(root, "ranking", rk)) {
            json_decref(root);
            return NULL;
        }
        for (int i = 0; i < d->nranked; i++) {
            const exp_league *l[2] = {&d->ranked[i].paper, &ours[i]};
            int rks[2] = {d->ranked[i].paper_rank, rank[i]};
            json_t *side[2];
            for (int k = 0; k < 2; k++)
                side[k] = json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:f}", "rank", rks[k],
                                    "points", l[k]->points, "bwp", l[k]->bwp, "blp", l[k]->blp, "w",
                                    l[k]->won, "l", l[k]->lost, "d", l[k]->drawn, "pd", l[k]->pd);
            json_t *e = json_pack("{s:s, s:s, s:o, s:o}", "label", d->ranked[i].label, "spec",
                                  d->ranked[i].spec, "paper", side[0] ? side[0] : json_null(),
                                  "ours", side[1] ? side[1] : json_null());
            if (!e || json_array_append_new(ents, e)) {
                json_decref(root);
                return NULL;
            }
        }
    }
    return root;
}

/* ---- SVG ---------------------------------------------------------------------------- */

static void svg_text(textbuf *b, const char *s)
{
    for (; *s; s++) {
        if (*s == '<')
            tb_printf(b, "&lt;");
        else if (*s == '>')
            tb_printf(b, "&gt;");
        else if (*s == '&')
            tb_printf(b, "&amp;");
        else
            tb_printf(b, "%c", *s);
    }
}

char *exp_report_svg(const exp_def *d, const exp_row_result *res)
{
    if (!d->plot_x)
        return NULL;
    enum { W = 720, H = 440, L = 70, R = 20, T = 50, B = 60 };
    double xmin = INFINITY, xmax = -INFINITY;
    for (int i = 0; i < d->nrows; i++) {
        double x = d->plot_log2 ? log2(d->rows[i].x) : d->rows[i].x;
        xmin = fmin(xmin, x), xmax = fmax(xmax, x);
    }
    if (!(xmax > xmin))
        xmax = xmin + 1;
    double pad = (xmax - xmin) * 0.05;
    xmin -= pad, xmax += pad;
    /* y: 0..100% of A's rate, but zoomed to the data's range in steps of 10 */
    double ylo = 1, yhi = 0;
    for (int i = 0; i < d->nrows; i++) {
        if (d->rows[i].paper.present)
            ylo = fmin(ylo, res[i].paper_lo), yhi = fmax(yhi, res[i].paper_hi);
        if (res[i].done)
            ylo = fmin(ylo, res[i].lo), yhi = fmax(yhi, res[i].hi);
    }
    if (yhi < ylo)
        ylo = 0, yhi = 1;
    ylo = fmax(0, floor(ylo * 10) / 10), yhi = fmin(1, ceil(yhi * 10) / 10);
    if (yhi - ylo < 0.1)
        yhi = fmin(1, ylo + 0.1), ylo = yhi - 0.1;
#define PX(x) (L + ((d->plot_log2 ? log2(x) : (x)) - xmin) / (xmax - xmin) * (W - L - R))
#define PY(y) (T + (yhi - (y)) / (yhi - ylo) * (H - T - B))
    textbuf b = TEXTBUF_INIT;
    tb_printf(
        &b,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d "
        "%d\" font-family=\"sans-serif\" font-size=\"12\">\n",
        W, H, W, H);
    tb_printf(&b, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", W, H);
    tb_printf(&b, "<text x=\"%d\" y=\"22\" font-size=\"15\">", L);
    svg_text(&b, d->name);
    tb_printf(&b, ": ");
    svg_text(&b, d->table);
    tb_printf(&b, ", scoring rate of A (ours: 95%% Wilson interval)</text>\n");
    /* grid and y labels */
    for (int k = 0; k <= 10; k++) {
        double y = ylo + (yhi - ylo) * k / 10;
        tb_printf(&b,
                  "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n"
                  "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%.0f%%</text>\n",
                  L, W - R, PY(y), PY(y), L - 6, PY(y) + 4, 100 * y);
    }
    if (0.5 > ylo && 0.5 < yhi)
        tb_printf(&b,
                  "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#999\" "
                  "stroke-dasharray=\"4 3\"/>\n",
                  L, W - R, PY(0.5), PY(0.5));
    /* x labels */
    for (int i = 0; i < d->nrows; i++)
        tb_printf(&b, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%g</text>\n",
                  PX(d->rows[i].x), H - B + 18, d->rows[i].x);
    tb_printf(&b, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">", (L + W - R) / 2, H - 16);
    svg_text(&b, d->plot_x);
    tb_printf(&b, "</text>\n");
    tb_printf(
        &b, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#444\"/>\n",
        L, T, W - L - R, H - T - B);
    /* the paper: grey squares joined by a line, with their interval */
    const char *paper_colour = "#888", *our_colour = "#1f5fbf";
    bool first = true;
    tb_printf(&b, "<polyline fill=\"none\" stroke=\"%s\" points=\"", paper_colour);
    for (int i = 0; i < d->nrows; i++)
        if (d->rows[i].paper.present) {
            tb_printf(&b, "%s%.1f,%.1f", first ? "" : " ", PX(d->rows[i].x), PY(res[i].paper_rate));
            first = false;
        }
    tb_printf(&b, "\"/>\n");
    for (int i = 0; i < d->nrows; i++)
        if (d->rows[i].paper.present)
            tb_printf(&b,
                      "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>"
                      "<rect x=\"%.1f\" y=\"%.1f\" width=\"7\" height=\"7\" fill=\"%s\"/>\n",
                      PX(d->rows[i].x) - 4, PX(d->rows[i].x) - 4, PY(res[i].paper_lo),
                      PY(res[i].paper_hi), paper_colour, PX(d->rows[i].x) - 7.5,
                      PY(res[i].paper_rate) - 3.5, paper_colour);
    /* ours: blue dots with whiskers */
    first = true;
    tb_printf(&b, "<polyline fill=\"none\" stroke=\"%s\" points=\"", our_colour);
    for (int i = 0; i < d->nrows; i++)
        if (res[i].done) {
            tb_printf(&b, "%s%.1f,%.1f", first ? "" : " ", PX(d->rows[i].x) + 4, PY(res[i].rate));
            first = false;
        }
    tb_printf(&b, "\"/>\n");
    for (int i = 0; i < d->nrows; i++)
        if (res[i].done)
            tb_printf(&b,
                      "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>"
                      "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>\n",
                      PX(d->rows[i].x) + 4, PX(d->rows[i].x) + 4, PY(res[i].lo), PY(res[i].hi),
                      our_colour, PX(d->rows[i].x) + 4, PY(res[i].rate), our_colour);
    /* legend */
    tb_printf(&b,
              "<rect x=\"%d\" y=\"%d\" width=\"8\" height=\"8\" fill=\"%s\"/><text x=\"%d\" "
              "y=\"%d\">",
              W - R - 250, T + 12, paper_colour, W - R - 236, T + 20);
    svg_text(&b, d->paper);
    tb_printf(&b, "</text>\n");
    tb_printf(&b,
              "<circle cx=\"%d\" cy=\"%d\" r=\"4\" fill=\"%s\"/><text x=\"%d\" y=\"%d\">tessera "
              "(ours)</text>\n",
              W - R - 246, T + 34, our_colour, W - R - 236, T + 38);
    tb_printf(&b, "</svg>\n");
#undef PX
#undef PY
    return tb_take(&b);
}
