/*
 * report.c — an analysis written out (docs/analysis.md): the JSON of every
 * turn and player, the Markdown summary, the SVG win-probability graph.
 * Reads the report analysis.c filled; computes only the per-player sums.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/textbuf.h"
#include "internal.h"
#include "protocol/wire.h"

static const char *const mark_names[] = {NULL, "inaccuracy", "mistake", "blunder"};

/* A player's figures over their turns. */
typedef struct player_sum {
    int moves;                 /* turns with a decision */
    double loss_win, loss_diff; /* summed */
    int marks[3];
    double luck, skill;        /* in the player's points */
    double luck_abs, skill_abs; /* sums of the swings' sizes */
} player_sum;

static double mv(int seat, double x)
{
    return seat == 0 ? x : -x;
}
static double mvp(int seat, double p)
{
    return seat == 0 ? p : 1 - p;
}

static void sum_players(const ana_report *r, player_sum ps[2])
{
    memset(ps, 0, 2 * sizeof *ps);
    for (int k = 0; k < r->nturns; k++) {
        const ana_turn *t = &r->turns[k];
        player_sum *p = &ps[t->seat];
        double luck = mv(t->seat, t->drawn.diff - t->before.diff);
        double skill = mv(t->seat, t->after.diff - t->drawn.diff);
        p->luck += luck;
        p->skill += skill;
        p->luck_abs += fabs(luck);
        p->skill_abs += fabs(skill);
        if (!t->decision)
            continue;
        p->moves++;
        p->loss_win += t->loss_win;
        p->loss_diff += t->loss_diff;
        if (t->mark)
            p->marks[t->mark - 1]++;
    }
}

static double share(double luck_abs, double skill_abs)
{
    return luck_abs + skill_abs > 0 ? luck_abs / (luck_abs + skill_abs) : 0;
}

/* Rounded for the reader: values of searches are not worth more digits. */
static json_t *num(double x)
{
    return json_real(round(x * 10000) / 10000);
}

static json_t *val_json(double diff, double win)
{
    return json_pack("{s:o, s:o}", "diff", num(diff), "win", num(win));
}

static json_t *turn_json(const ana_turn *t, int k)
{
    int s = t->seat;
    json_t *o = json_pack("{s:i, s:i}", "turn", k + 1, "seat", s);
    if (!o)
        return NULL;
    if (t->chance) {
        json_object_set_new(o, "draw", json_string(t->draw));
        json_object_set_new(o, "luck", val_json(mv(s, t->drawn.diff - t->before.diff),
                                                mvp(s, t->drawn.win) - mvp(s, t->before.win)));
    }
    if (t->decision) {
        json_object_set_new(o, "played", json_string(t->played));
        json_object_set_new(o, "move", json_incref(t->played_move));
        json_object_set_new(o, "best", json_string(t->best));
        json_object_set_new(o, "best_move", json_incref(t->best_move));
        json_object_set_new(o, "same", json_boolean(t->same));
        json_object_set_new(o, "value", val_json(mv(s, t->drawn.diff), mvp(s, t->drawn.win)));
        json_object_set_new(o, "best_value",
                            val_json(mv(s, t->best_after.diff), mvp(s, t->best_after.win)));
        json_object_set_new(o, "played_value",
                            val_json(mv(s, t->played_after.diff), mvp(s, t->played_after.win)));
        json_object_set_new(o, "checked", json_boolean(t->checked));
        json_object_set_new(o, "loss", val_json(t->loss_diff, t->loss_win));
        json_object_set_new(o, "mark", t->mark ? json_string(mark_names[t->mark]) : json_null());
    }
    json_object_set_new(o, "p1_after", val_json(t->after.diff, t->after.win));
    return o;
}

json_t *ana_json(const ana_report *r)
{
    player_sum ps[2];
    sum_players(r, ps);
    ana_sums s;
    ana_get_sums(r, &s);
    json_t *players = json_array(), *turns = json_array();
    for (int p = 0; p < 2; p++) {
        const player_sum *q = &ps[p];
        double m = q->moves ? q->moves : 1;
        json_array_append_new(
            players,
            json_pack("{s:i, s:i, s:o, s:o, s:i, s:i, s:i, s:o, s:o, s:o, s:f}", "seat", p, "moves",
                      q->moves, "avg_loss_win", num(q->loss_win / m), "avg_loss_diff",
                      num(q->loss_diff / m), "inaccuracies", q->marks[0], "mistakes", q->marks[1],
                      "blunders", q->marks[2], "luck", num(q->luck), "skill", num(q->skill),
                      "luck_share", num(share(q->luck_abs, q->skill_abs)), "score",
                      r->scores[p]));
    }
    for (int k = 0; k < r->nturns; k++)
        json_array_append_new(turns, turn_json(&r->turns[k], k));
    json_t *o = json_pack(
        "{s:s, s:i, s:s, s:o, s:b, s:{s:s, s:s, s:I, s:I, s:I, s:I, s:o}, s:{s:f, s:f, s:f},"
        " s:o, s:o, s:{s:o, s:o, s:o, s:o}, s:o, s:o}",
        "format", "tessera-analysis", "version", 1, "game", r->game->name, "rules",
        wire_rules_json(r->game, &r->rules), "finished", r->finished, "search", "score",
        r->score_spec, "win", r->win_spec, "sims", (json_int_t)r->sims, "chance_sims",
        (json_int_t)r->chance_sims, "seed", (json_int_t)r->seed, "searches",
        (json_int_t)r->searches, "ms", json_integer((json_int_t)llround(r->ms)), "thresholds",
        "inaccuracy", ANA_DROP_INACCURACY, "mistake", ANA_DROP_MISTAKE, "blunder", ANA_DROP_BLUNDER, "start",
        val_json(r->start.diff, r->start.win), "end", val_json(r->end.diff, r->end.win),
        "decomposition", "start", num(s.start), "luck", num(s.luck_total), "skill",
        num(s.skill_total), "final", num(s.final), "players", players, "turns", turns);
    return o;
}

char *ana_markdown(const ana_report *r)
{
    player_sum ps[2];
    sum_players(r, ps);
    ana_sums s;
    ana_get_sums(r, &s);
    textbuf b = TEXTBUF_INIT;
    tb_printf(&b, "# Analysis of a %s game\n\n", r->game->title);
    if (r->finished)
        tb_printf(&b, "Result: P1 %g, P2 %g (P1 = seat 0, the first to move).\n\n", r->scores[0],
                  r->scores[1]);
    else
        tb_printf(&b, "The record stops before the end (P1 %g, P2 %g then); the last position "
                      "was searched too.\n\n", r->scores[0], r->scores[1]);
    tb_printf(&b, "Search: `%s` (score) and `%s` (win probability), %lld simulations a position",
              r->score_spec, r->win_spec, (long long)r->sims);
    if (r->game->max_chance > 0)
        tb_printf(&b, ", %lld under each outcome of a draw", (long long)r->chance_sims);
    tb_printf(&b, "; seed %llu; %lld searches in %.1f s.\n\n", (unsigned long long)r->seed,
              (long long)r->searches, r->ms / 1000);
    tb_printf(&b, "| | P1 | P2 |\n|---|---|---|\n");
    tb_printf(&b, "| turns decided | %d | %d |\n", ps[0].moves, ps[1].moves);
    double m0 = ps[0].moves ? ps[0].moves : 1, m1 = ps[1].moves ? ps[1].moves : 1;
    tb_printf(&b, "| average loss a move, win probability | %.1f%% | %.1f%% |\n",
              100 * ps[0].loss_win / m0, 100 * ps[1].loss_win / m1);
    tb_printf(&b, "| average loss a move, points | %.2f | %.2f |\n", ps[0].loss_diff / m0,
              ps[1].loss_diff / m1);
    for (int i = 0; i < 3; i++)
        tb_printf(&b, "| %ss | %d | %d |\n", mark_names[i + 1], ps[0].marks[i], ps[1].marks[i]);
    tb_printf(&b, "| luck (points drawn) | %+.1f | %+.1f |\n", ps[0].luck, ps[1].luck);
    tb_printf(&b, "| skill (points won by the turns played) | %+.1f | %+.1f |\n", ps[0].skill,
              ps[1].skill);
    tb_printf(&b, "| luck share | %.0f%% | %.0f%% |\n\n", 100 * share(ps[0].luck_abs, ps[0].skill_abs),
              100 * share(ps[1].luck_abs, ps[1].skill_abs));
    tb_printf(&b,
              "P1's final score difference %+.1f = %+.1f luck (%+.1f the first move's value, "
              "%+.1f P1's draws, %+.1f P2's) %+.1f skill (%+.1f P1's turns, %+.1f P2's).\n\n",
              s.final, s.luck_total, s.start, s.luck[0], -s.luck[1], s.skill_total, s.skill[0],
              -s.skill[1]);
    bool any = false;
    for (int k = 0; k < r->nturns; k++) {
        const ana_turn *t = &r->turns[k];
        if (!t->mark)
            continue;
        if (!any)
            tb_printf(&b, "## Marked turns\n\n| turn | player | played | better | win "
                          "probability | points |\n|---|---|---|---|---|---|\n");
        any = true;
        tb_printf(&b, "| %d | P%d | %s | %s | %.0f%% → %.0f%% (%s) | %+.1f |\n", k + 1,
                  t->seat + 1, t->played, t->best, 100 * mvp(t->seat, t->best_after.win), 100 * mvp(t->seat, t->played_after.win),
                  mark_names[t->mark], -t->loss_diff);
    }
    if (!any)
        tb_printf(&b, "No turn lost %.0f%% of win probability or more.\n", 100 * ANA_DROP_INACCURACY);
    return tb_take(&b);
}

/* P1's win probability at step k (0: the start, k: after turn k). */
static double win_at(const ana_report *r, int k)
{
    return k == 0 ? r->start.win : r->turns[k - 1].after.win;
}

/* The graph's point of step k: consecutive values come from the two sides'
 * searches, each a little kind to its own side, so weights 1/4, 1/2, 1/4
 * cancel that swing (docs/analysis.md); the ends are kept as they are. */
static double smoothed(const ana_report *r, int k)
{
    if (k == 0 || k == r->nturns)
        return win_at(r, k);
    return (win_at(r, k - 1) + 2 * win_at(r, k) + win_at(r, k + 1)) / 4;
}

/* The graph: P1's win probability at the start and after every turn, the
 * marked turns as dots (with their text as a tooltip). */
char *ana_svg(const ana_report *r)
{
    const int W = 720, H = 240, L = 40, R = 10, T = 12, B = 28;
    double pw = W - L - R, ph = H - T - B;
    int n = r->nturns > 0 ? r->nturns : 1;
    textbuf b = TEXTBUF_INIT;
    tb_printf(&b,
              "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" width=\"%d\" "
              "height=\"%d\" font-family=\"sans-serif\" font-size=\"11\">\n"
              "<title>P1's win probability, %s</title>\n"
              "<rect x=\"%d\" y=\"%d\" width=\"%g\" height=\"%g\" fill=\"#fff\" stroke=\"#999\"/>\n",
              W, H, W, H, r->game->title, L, T, pw, ph);
    for (int i = 0; i <= 4; i++) {
        double y = T + ph * i / 4;
        tb_printf(&b,
                  "<line x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                  "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%d%%</text>\n",
                  L, y, L + pw, y, L - 4, y + 4, 100 - 25 * i);
    }
    tb_printf(&b, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">turn (%d)</text>\n", L + pw / 2,
              H - 6, r->nturns);
    tb_printf(&b, "<polyline fill=\"none\" stroke=\"#1f5fbf\" stroke-width=\"2\" points=\"");
    for (int k = 0; k <= r->nturns; k++)
        tb_printf(&b, "%s%.1f,%.1f", k ? " " : "", L + pw * k / n, T + ph * (1 - smoothed(r, k)));
    tb_printf(&b, "\"/>\n");
    static const char *const colour[] = {NULL, "#e0b000", "#e07000", "#d01010"};
    for (int k = 0; k < r->nturns; k++) {
        const ana_turn *t = &r->turns[k];
        if (!t->mark)
            continue;
        tb_printf(&b,
                  "<circle data-turn=\"%d\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"><title>turn "
                  "%d, P%d: %s (%s; better %s)</title></circle>\n",
                  k + 1, L + pw * (k + 1) / n, T + ph * (1 - smoothed(r, k + 1)), colour[t->mark], k + 1,
                  t->seat + 1, mark_names[t->mark], t->played, t->best);
    }
    tb_printf(&b, "</svg>\n");
    return tb_take(&b);
}
