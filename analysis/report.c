/*
 * report.c — an analysis written out (docs/analysis.md): the JSON of every
 * turn and player, the Markdown summary, the SVG win-probability graph.
 * Reads the report analysis.c filled; computes only the per-player sums.
 * Two seats keep the layout they always had (P1's view where one view is
 * given); three to five add every seat's figures beside it.
 */
#include <math.h>
#include <stdio.h>
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

static void sum_players(const ana_report *r, player_sum ps[ENG_MAX_PLAYERS])
{
    memset(ps, 0, ENG_MAX_PLAYERS * sizeof *ps);
    for (int k = 0; k < r->nturns; k++) {
        const ana_turn *t = &r->turns[k];
        player_sum *p = &ps[t->seat];
        double luck = t->drawn.diff[t->seat] - t->before.diff[t->seat];
        double skill = t->after.diff[t->seat] - t->drawn.diff[t->seat];
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

/* A value in seat s's view. */
static json_t *seat_val(const ana_val *v, int s)
{
    return val_json(v->diff[s], v->win[s]);
}

/* A value in every seat's view, seat by seat. */
static json_t *seats_json(const ana_report *r, const ana_val *v)
{
    json_t *a = json_array();
    for (int p = 0; a && p < r->players; p++)
        json_array_append_new(a, seat_val(v, p));
    return a;
}

static json_t *turn_json(const ana_report *r, const ana_turn *t, int k)
{
    int s = t->seat;
    json_t *o = json_pack("{s:i, s:i}", "turn", k + 1, "seat", s);
    if (!o)
        return NULL;
    if (t->chance) {
        json_object_set_new(o, "draw", json_string(t->draw));
        json_object_set_new(o, "luck", val_json(t->drawn.diff[s] - t->before.diff[s],
                                                t->drawn.win[s] - t->before.win[s]));
    }
    if (t->decision) {
        json_object_set_new(o, "played", json_string(t->played));
        json_object_set_new(o, "move", json_incref(t->played_move));
        json_object_set_new(o, "best", json_string(t->best));
        json_object_set_new(o, "best_move", json_incref(t->best_move));
        json_object_set_new(o, "same", json_boolean(t->same));
        json_object_set_new(o, "value", seat_val(&t->drawn, s));
        json_object_set_new(o, "best_value", seat_val(&t->best_after, s));
        json_object_set_new(o, "played_value", seat_val(&t->played_after, s));
        json_object_set_new(o, "checked", json_boolean(t->checked));
        json_object_set_new(o, "loss", val_json(t->loss_diff, t->loss_win));
        json_object_set_new(o, "mark", t->mark ? json_string(mark_names[t->mark]) : json_null());
    }
    json_object_set_new(o, "p1_after", seat_val(&t->after, 0));
    json_object_set_new(o, "after_by_seat", seats_json(r, &t->after));
    return o;
}

json_t *ana_json(const ana_report *r)
{
    player_sum ps[ENG_MAX_PLAYERS];
    sum_players(r, ps);
    ana_sums s;
    ana_get_sums(r, &s);
    json_t *players = json_array(), *turns = json_array();
    for (int p = 0; p < r->players; p++) {
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
        json_object_set_new(json_array_get(players, (size_t)p), "decomposition",
                            json_pack("{s:o, s:o, s:o, s:o}", "start", num(s.seat_start[p]), "luck",
                                      num(s.seat_luck[p]), "skill", num(s.seat_skill[p]), "final",
                                      num(s.seat_final[p])));
    }
    for (int k = 0; k < r->nturns; k++)
        json_array_append_new(turns, turn_json(r, &r->turns[k], k));
    json_t *o = json_pack(
        "{s:s, s:i, s:s, s:o, s:b, s:{s:s, s:s, s:I, s:I, s:I, s:I, s:o}, s:{s:f, s:f, s:f},"
        " s:o, s:o, s:{s:o, s:o, s:o, s:o}, s:o, s:o}",
        "format", "tessera-analysis", "version", 1, "game", r->game->name, "rules",
        wire_rules_json(r->game, &r->rules), "finished", r->finished, "search", "score",
        r->score_spec, "win", r->win_spec, "sims", (json_int_t)r->sims, "chance_sims",
        (json_int_t)r->chance_sims, "seed", (json_int_t)r->seed, "searches",
        (json_int_t)r->searches, "ms", json_integer((json_int_t)llround(r->ms)), "thresholds",
        "inaccuracy", ANA_DROP_INACCURACY, "mistake", ANA_DROP_MISTAKE, "blunder", ANA_DROP_BLUNDER, "start",
        seat_val(&r->start, 0), "end", seat_val(&r->end, 0),
        "decomposition", "start", num(s.start), "luck", num(s.luck_total), "skill",
        num(s.skill_total), "final", num(s.final), "players", players, "turns", turns);
    if (o)
        json_object_set_new(o, "start_by_seat", seats_json(r, &r->start));
    return o;
}

/* A new table row and its label; one cell per seat follows. */
static void row_start(textbuf *b, const char *label)
{
    tb_printf(b, "\n| %s |", label);
}

char *ana_markdown(const ana_report *r)
{
    player_sum ps[ENG_MAX_PLAYERS];
    sum_players(r, ps);
    ana_sums s;
    ana_get_sums(r, &s);
    int np = r->players;
    textbuf b = TEXTBUF_INIT;
    tb_printf(&b, "# Analysis of a %s game\n\n", r->game->title);
    tb_printf(&b, r->finished ? "Result:" : "The record stops before the end (scores then:");
    for (int p = 0; p < np; p++)
        tb_printf(&b, "%s P%d %g", p ? "," : "", p + 1, r->scores[p]);
    tb_printf(&b, r->finished ? " (P1 = seat 0, the first to move).\n\n"
                              : "); the last position was searched too.\n\n");
    tb_printf(&b, "Search: `%s` (score) and `%s` (win probability), %lld simulations a position",
              r->score_spec, r->win_spec, (long long)r->sims);
    if (r->game->max_chance > 0)
        tb_printf(&b, ", %lld under each outcome of a draw", (long long)r->chance_sims);
    tb_printf(&b, "; seed %llu; %lld searches in %.1f s.\n\n", (unsigned long long)r->seed,
              (long long)r->searches, r->ms / 1000);
    if (np > 2)
        tb_printf(&b, "%d seats: a player's points are their score minus the best of the "
                      "others', their win probability that of finishing first (a tie for first "
                      "counting half).\n\n", np);
    tb_printf(&b, "| |");
    for (int p = 0; p < np; p++)
        tb_printf(&b, " P%d |", p + 1);
    tb_printf(&b, "\n|---|");
    for (int p = 0; p < np; p++)
        tb_printf(&b, "---|");
    row_start(&b, "turns decided");
    for (int p = 0; p < np; p++)
        tb_printf(&b, " %d |", ps[p].moves);
    row_start(&b, "average loss a move, win probability");
    for (int p = 0; p < np; p++)
        tb_printf(&b, " %.1f%% |", 100 * ps[p].loss_win / (ps[p].moves ? ps[p].moves : 1));
    row_start(&b, "average loss a move, points");
    for (int p = 0; p < np; p++)
        tb_printf(&b, " %.2f |", ps[p].loss_diff / (ps[p].moves ? ps[p].moves : 1));
    for (int i = 0; i < 3; i++) {
        static const char *const plural[] = {"inaccuracies", "mistakes", "blunders"};
        row_start(&b, plural[i]);
        for (int p = 0; p < np; p++)
            tb_printf(&b, " %d |", ps[p].marks[i]);
    }
    row_start(&b, "luck (points drawn)");
    for (int p = 0; p < np; p++)
        tb_printf(&b, " %+.1f |", ps[p].luck);
    row_start(&b, "skill (points won by the turns played)");
    for (int p = 0; p < np; p++)
        tb_printf(&b, " %+.1f |", ps[p].skill);
    row_start(&b, "luck share");
    for (int p = 0; p < np; p++)
        tb_printf(&b, " %.0f%% |", 100 * share(ps[p].luck_abs, ps[p].skill_abs));
    tb_printf(&b, "\n\n");
    if (np == 2) {
        tb_printf(&b,
                  "P1's final score difference %+.1f = %+.1f luck (%+.1f the first move's value, "
                  "%+.1f P1's draws, %+.1f P2's) %+.1f skill (%+.1f P1's turns, %+.1f P2's).\n\n",
                  s.final, s.luck_total, s.start, s.luck[0], -s.luck[1], s.skill_total, s.skill[0],
                  -s.skill[1]);
    } else {
        for (int p = 0; p < np; p++)
            tb_printf(&b,
                      "P%d's final lead %+.1f = %+.1f luck (%+.1f the first position's value, "
                      "%+.1f own draws, %+.1f the others') %+.1f skill (%+.1f own turns, %+.1f "
                      "the others').\n",
                      p + 1, s.seat_final[p], s.seat_luck[p], s.seat_start[p], s.luck[p],
                      s.seat_luck[p] - s.seat_start[p] - s.luck[p], s.seat_skill[p], s.skill[p],
                      s.seat_skill[p] - s.skill[p]);
        tb_printf(&b, "\n");
    }
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
                  t->seat + 1, t->played, t->best, 100 * t->best_after.win[t->seat],
                  100 * t->played_after.win[t->seat], mark_names[t->mark], -t->loss_diff);
    }
    if (!any)
        tb_printf(&b, "No turn lost %.0f%% of win probability or more.\n", 100 * ANA_DROP_INACCURACY);
    return tb_take(&b);
}

/* Seat p's win probability at step k (0: the start, k: after turn k). */
static double win_at(const ana_report *r, int p, int k)
{
    return k == 0 ? r->start.win[p] : r->turns[k - 1].after.win[p];
}

/* The graph's point of step k: consecutive values come from different
 * seats' searches, each a little kind to its own side, so weights 1/4, 1/2,
 * 1/4 cancel that swing with two seats (docs/analysis.md) and damp it with
 * more; the ends are kept as they are. */
static double smoothed(const ana_report *r, int p, int k)
{
    if (k == 0 || k == r->nturns)
        return win_at(r, p, k);
    return (win_at(r, p, k - 1) + 2 * win_at(r, p, k) + win_at(r, p, k + 1)) / 4;
}

/* The seats' line colours with three or more seats: the web UI's seat
 * colours (SEAT_COLOURS in web/js/util.js). Two seats keep P1's blue line. */
static const char *const seat_colour[ENG_MAX_PLAYERS] = {"#d62839", "#1f6fd6", "#f2c230",
                                                         "#8e44ad", "#2b2b2b"};

/* The graph: the win probability at the start and after every turn — P1's
 * with two seats (P2's is its mirror), one line per seat with more — the
 * marked turns as dots on their mover's line (with their text as a tooltip). */
char *ana_svg(const ana_report *r)
{
    const int W = 720, H = 240, L = 40, R = 10, T = 12, B = 28;
    double pw = W - L - R, ph = H - T - B;
    int n = r->nturns > 0 ? r->nturns : 1;
    int lines = r->players == 2 ? 1 : r->players;
    textbuf b = TEXTBUF_INIT;
    tb_printf(&b,
              "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" width=\"%d\" "
              "height=\"%d\" font-family=\"sans-serif\" font-size=\"11\">\n"
              "<title>%s win probability, %s</title>\n"
              "<rect x=\"%d\" y=\"%d\" width=\"%g\" height=\"%g\" fill=\"#fff\" stroke=\"#999\"/>\n",
              W, H, W, H, lines == 1 ? "P1's" : "Each player's", r->game->title, L, T, pw, ph);
    for (int i = 0; i <= 4; i++) {
        double y = T + ph * i / 4;
        tb_printf(&b,
                  "<line x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                  "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%d%%</text>\n",
                  L, y, L + pw, y, L - 4, y + 4, 100 - 25 * i);
    }
    tb_printf(&b, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">turn (%d)</text>\n", L + pw / 2,
              H - 6, r->nturns);
    for (int p = 0; p < lines; p++) {
        tb_printf(&b, "<polyline data-seat=\"%d\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"",
                  p, lines == 1 ? "#1f5fbf" : seat_colour[p]);
        for (int k = 0; k <= r->nturns; k++)
            tb_printf(&b, "%s%.1f,%.1f", k ? " " : "", L + pw * k / n, T + ph * (1 - smoothed(r, p, k)));
        tb_printf(&b, "\"/>\n");
        if (lines > 1) /* the legend, top left inside the frame */
            tb_printf(&b, "<text x=\"%d\" y=\"%d\" fill=\"%s\">P%d</text>\n", L + 6 + 28 * p, T + 14,
                      seat_colour[p], p + 1);
    }
    static const char *const colour[] = {NULL, "#e0b000", "#e07000", "#d01010"};
    for (int k = 0; k < r->nturns; k++) {
        const ana_turn *t = &r->turns[k];
        if (!t->mark)
            continue;
        tb_printf(&b,
                  "<circle data-turn=\"%d\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"><title>turn "
                  "%d, P%d: %s (%s; better %s)</title></circle>\n",
                  k + 1, L + pw * (k + 1) / n,
                  T + ph * (1 - smoothed(r, lines == 1 ? 0 : t->seat, k + 1)), colour[t->mark],
                  k + 1, t->seat + 1, mark_names[t->mark], t->played, t->best);
    }
    tb_printf(&b, "</svg>\n");
    return tb_take(&b);
}
