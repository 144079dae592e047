/*
 * tour_server.c — `tessera tournament ... --url ws://HOST:PORT/`: the same
 * tournament as the local runner plays, created on a server instead
 * (create_tournament and start_tournament with the admin token, docs/
 * protocol.md "Tournaments"), its web page's address printed, and followed
 * like the local runner (a bar on a terminal, a line per game otherwise),
 * ending with the standings the server computed — or, with --detach, left
 * running there (`--watch ID` follows it again). The standings table is
 * printed by the one printer both halves of `tessera tournament` share
 * (cli_standings_print, from the standings' JSON).
 *
 * One connection does it all (client/botclient.h, botclient_converse): the
 * replies and the tournament's pushes come to on_message in order.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "client/botclient.h"

static const char *const cmd = "tournament";

/* ---- the standings, from their JSON ----------------------------------------------- */

static double num(const json_t *o, const char *key)
{
    return json_number_value(json_object_get(o, key));
}

void cli_standings_print(const json_t *rows)
{
    int w = 11;
    size_t i;
    const json_t *r;
    json_array_foreach(rows, i, r)
    {
        const char *name = json_string_value(json_object_get(r, "name"));
        int len = name ? (int)strlen(name) : 0;
        if (len > w)
            w = len > 40 ? 40 : len;
    }
    printf("%3s  %-*s %6s %13s %6s %13s %6s %12s %4s %8s %5s %6s\n", "#", w, "participant", "games",
           "W-D-L", "rate", "rate 95%", "Elo", "Elo 95%", "pts", "ms/move", "TL", "faults");
    json_array_foreach(rows, i, r)
    {
        const char *name = json_string_value(json_object_get(r, "name"));
        char wdl[64], ci[32], eci[32];
        snprintf(wdl, sizeof wdl, "%.0f-%.0f-%.0f", num(r, "wins"), num(r, "draws"),
                 num(r, "losses"));
        snprintf(ci, sizeof ci, "%.1f-%.1f%%", 100 * num(r, "rate_lo"), 100 * num(r, "rate_hi"));
        snprintf(eci, sizeof eci, "%+.0f..%+.0f", num(r, "elo_lo"), num(r, "elo_hi"));
        printf("%3.0f  %-*.*s %6.0f %13s %5.1f%% %13s %+6.0f %12s %4.0f %8.1f %5.0f %6.0f\n",
               num(r, "place"), w, w, name ? name : "?",
               num(r, "games"), wdl, 100 * num(r, "rate"), ci, num(r, "elo"), eci,
               num(json_object_get(r, "league"), "points"), num(r, "ms_per_move"),
               num(r, "time_losses"), num(r, "faults"));
    }
}

void cli_standings_legend(void)
{
    printf(
        "\nW-D-L: games won (sole first place), drawn (shared first), lost. rate: points per game\n"
        "(a better final place than an opponent counts 1, an equal one 1/2) with its 95%% Wilson\n"
        "interval. Elo: Bradley-Terry maximum likelihood, 95%% interval. pts: league points\n"
        "(docs/league.md). ms/move: thinking time per decision (programs: their CPU time).\n"
        "TL: games lost on time. faults: games this participant ended by a fault. See\n"
        "docs/tournaments.md.\n");
}

/* ---- following a tournament on a server -------------------------------------------- */

typedef enum step { CREATING, STARTING, WATCHING, FINISHING } step;

typedef struct follow {
    const char *url;
    const char *admin;
    const char *bundles; /* where faults' bundles go (admin only), or NULL */
    int asked;           /* get_record requests for bundles not yet answered */
    bool detach, json, quiet, tty;
    step step;
    int64_t id;          /* the tournament */
    json_t *standings;   /* the latest standings (owned) */
    int64_t done, expected, running;
    char state[16];
    double t0, last_draw, finish_by; /* cli_now() seconds */
    bool drawn;
    int exit_code;
} follow;

/* "http://HOST:PORT/" of "ws://HOST:PORT/..." (wss: https). */
static void page_url(const char *url, int64_t id, char *out, size_t cap)
{
    const char *rest = strncmp(url, "wss://", 6) == 0 ? url + 6 : url + 5;
    size_t host = strcspn(rest, "/");
    snprintf(out, cap, "%s://%.*s/#/tournament/%lld", strncmp(url, "wss://", 6) == 0 ? "https" : "http",
             (int)host, rest, (long long)id);
}

static void bar_clear(follow *f)
{
    if (f->drawn) {
        fprintf(stderr, "\r\033[K");
        fflush(stderr);
        f->drawn = false;
    }
}

static void progress(follow *f, bool force)
{
    if (f->quiet || !f->tty)
        return;
    double now = cli_now();
    if (!force && now - f->last_draw < 0.2)
        return;
    f->last_draw = now;
    enum { WIDTH = 30 };
    int fill = f->expected ? (int)(WIDTH * f->done / f->expected) : 0;
    char bar[WIDTH + 1];
    for (int i = 0; i < WIDTH; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[WIDTH] = 0;
    fprintf(stderr, "\r[%s] %lld/%lld games, %lld running, %.0f s, %s\033[K", bar,
            (long long)f->done, (long long)f->expected, (long long)f->running, now - f->t0,
            f->state);
    fflush(stderr);
    f->drawn = true;
}

static void take_counts(follow *f, const json_t *msg)
{
    const json_t *c = json_object_get(msg, "counts");
    if (json_is_object(c)) {
        f->done = (int64_t)num(c, "done");
        f->expected = (int64_t)num(c, "expected");
        f->running = (int64_t)num(c, "running");
    }
    const char *state = json_string_value(json_object_get(msg, "state"));
    if (state)
        snprintf(f->state, sizeof f->state, "%s", state);
    const json_t *st = json_object_get(msg, "standings");
    if (json_is_object(st)) {
        json_decref(f->standings);
        f->standings = json_incref((json_t *)st);
    }
}

/* A line per finished game, as the local runner prints them (not on a
 * terminal, where the bar is drawn). */
static void game_line(follow *f, const json_t *g)
{
    const char *status = json_string_value(json_object_get(g, "status"));
    if (f->quiet || f->tty || !status || strcmp(status, "done") != 0)
        return;
    const json_t *table = json_object_get(g, "table"), *res = json_object_get(g, "result");
    const json_t *score = json_object_get(res, "score");
    char line[1024];
    size_t o = (size_t)snprintf(line, sizeof line, "game %lld:", (long long)num(g, "game"));
    for (size_t s = 0; s < json_array_size(table) && o < sizeof line; s++) {
        const char *name = json_string_value(json_array_get(table, s));
        o += (size_t)snprintf(line + o, sizeof line - o, "%s P%zu %s %g", s ? "," : "", s + 1,
                              name ? name : "?", json_number_value(json_array_get(score, s)));
    }
    const char *end = json_string_value(json_object_get(res, "end"));
    int culprit = (int)json_integer_value(json_object_get(res, "culprit"));
    if (end && strcmp(end, "normal") != 0 && o < sizeof line)
        o += (size_t)snprintf(line + o, sizeof line - o, " (%s by P%d)", end, culprit + 1);
    const char *match = json_string_value(json_object_get(g, "match"));
    if (match && o < sizeof line)
        snprintf(line + o, sizeof line - o, ", match %s", match);
    fprintf(stderr, "tessera tournament: %s  [%lld/%lld games, %lld running]\n", line,
            (long long)f->done, (long long)f->expected, (long long)f->running);
}

/* A finished game lost by a fault: ask for its record, whose programs hold
 * the bundles (docs/bundles.md), to keep them here as match and the local
 * tournament do. */
static void ask_bundles(botclient_conv *cv, follow *f, const json_t *g)
{
    const json_t *res = json_object_get(g, "result");
    const char *status = json_string_value(json_object_get(g, "status"));
    const char *match = json_string_value(json_object_get(g, "match"));
    if (!f->bundles || !f->admin || !status || strcmp(status, "done") != 0 || !match ||
        json_integer_value(json_object_get(res, "culprit")) < 0 ||
        !json_is_integer(json_object_get(res, "culprit")))
        return;
    char id[48];
    snprintf(id, sizeof id, "tessera-bundle-%lld", (long long)num(g, "game"));
    json_t *m = json_pack("{s:s, s:s, s:s, s:s}", "type", "get_record", "id", id, "match", match,
                          "admin_token", f->admin);
    if (m && botclient_conv_send(cv, m) == 0)
        f->asked++;
    json_decref(m);
}

/* A record asked for by ask_bundles: its programs' bundles kept. */
static void keep_bundles(follow *f, const json_t *msg, const char *id)
{
    f->asked--;
    long long game = atoll(id + strlen("tessera-bundle-"));
    const json_t *progs = json_object_get(msg, "programs");
    size_t i;
    const json_t *p;
    bar_clear(f);
    json_array_foreach(progs, i, p)
    {
        const json_t *b = json_object_get(p, "bundle");
        if (json_is_object(b))
            cli_keep_bundle(cmd, f->bundles, b, game,
                            (int)json_integer_value(json_object_get(p, "seat")), NULL, 0);
    }
}

static int send_admin(botclient_conv *cv, const follow *f, const char *type, const char *id)
{
    json_t *m = json_pack("{s:s, s:s, s:s, s:I}", "type", type, "id", id, "admin_token", f->admin,
                          "tournament", (json_int_t)f->id);
    int rc = m ? botclient_conv_send(cv, m) : -1;
    json_decref(m);
    return rc;
}

/* The end: the standings the server computed, or the JSON. */
static void print_end(follow *f)
{
    bar_clear(f);
    char page[600];
    page_url(f->url, f->id, page, sizeof page);
    if (f->json) {
        json_t *o = json_pack("{s:I, s:s, s:s, s:O}", "tournament", (json_int_t)f->id, "state",
                              f->state, "page", page, "standings",
                              f->standings ? f->standings : json_null());
        char *text = o ? json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII | JSON_REAL_PRECISION(10))
                       : NULL;
        json_decref(o);
        printf("%s\n", text ? text : "{}");
        free(text);
        return;
    }
    printf("tournament %lld on %s: %s, %lld games done of %lld expected\n\n", (long long)f->id,
           f->url, f->state, (long long)f->done, (long long)f->expected);
    const json_t *rows = json_object_get(f->standings, "standings");
    if (json_is_array(rows))
        cli_standings_print(rows);
    else
        printf("(no standings yet)\n");
    cli_standings_legend();
    printf("Its page: %s (every game's replay, the cross-table, the plots)\n", page);
}

static bool standings_current(const follow *f)
{
    const json_t *c = json_object_get(f->standings, "counts");
    return f->standings && (int64_t)num(c, "done") == f->done;
}

static int on_message(botclient_conv *cv, const json_t *msg, void *user)
{
    follow *f = user;
    if (!msg) { /* a second without news: the bar's clock, and the end's wait */
        progress(f, true);
        if (f->step == FINISHING && cli_now() > f->finish_by) {
            print_end(f);
            return 1 + (strcmp(f->state, "done") == 0 ? CLI_OK : CLI_FAIL);
        }
        return 0;
    }
    const char *type = json_string_value(json_object_get(msg, "type"));
    const char *id = json_string_value(json_object_get(msg, "id"));
    if (!type)
        return 0;
    if (id && strncmp(id, "tessera-bundle-", 15) == 0) {
        if (strcmp(type, "record") == 0)
            keep_bundles(f, msg, id);
        else
            f->asked--; /* the match is gone: no bundle to keep */
        if (f->step == FINISHING && f->asked <= 0 && standings_current(f)) {
            print_end(f);
            return 1 + (strcmp(f->state, "done") == 0 ? CLI_OK : CLI_FAIL);
        }
        return 0;
    }
    if (strcmp(type, "error") == 0 && (id || f->step == CREATING)) {
        bar_clear(f);
        const char *code = json_string_value(json_object_get(msg, "code"));
        const char *text = json_string_value(json_object_get(msg, "message"));
        fprintf(stderr, "tessera %s: the server at %s says: %s (%s)\n", cmd, f->url,
                text ? text : "error", code ? code : "?");
        bool mine = code && (strcmp(code, "forbidden") == 0 || strcmp(code, "bad_message") == 0 ||
                             strcmp(code, "unknown_bot") == 0 ||
                             strcmp(code, "bad_bot_spec") == 0 || strcmp(code, "bad_rule") == 0 ||
                             strcmp(code, "unknown_game") == 0 ||
                             strcmp(code, "invalid_argument") == 0 ||
                             strcmp(code, "bad_players") == 0 ||
                             strcmp(code, "unknown_tournament") == 0);
        return 1 + (mine ? CLI_USAGE : CLI_FAIL);
    }
    if (f->step == CREATING && strcmp(type, "tournament_created") == 0) {
        f->id = (int64_t)json_integer_value(json_object_get(msg, "tournament"));
        f->step = STARTING;
        return send_admin(cv, f, "start_tournament", "tessera-start") ? 1 + CLI_FAIL : 0;
    }
    if (f->step == STARTING && strcmp(type, "tournament_state") == 0) {
        char page[600];
        page_url(f->url, f->id, page, sizeof page);
        printf("tournament %lld created on %s and started; its page: %s\n", (long long)f->id,
               f->url, page);
        fflush(stdout);
        if (f->detach) {
            printf("It runs on the server; follow it again with:\n"
                   "  tessera tournament --url %s --watch %lld\n",
                   f->url, (long long)f->id);
            return 1 + CLI_OK;
        }
        f->step = WATCHING;
        json_t *w = json_pack("{s:s, s:s, s:I}", "type", "watch_tournament", "id", "tessera-watch",
                              "tournament", (json_int_t)f->id);
        int rc = w ? botclient_conv_send(cv, w) : -1;
        json_decref(w);
        return rc ? 1 + CLI_FAIL : 0;
    }
    if (strcmp(type, "tournament") == 0 || strcmp(type, "tournament_update") == 0) {
        if ((int64_t)json_integer_value(json_object_get(msg, "tournament")) != f->id)
            return 0;
        take_counts(f, msg);
        if (json_is_object(json_object_get(msg, "game"))) {
            game_line(f, json_object_get(msg, "game"));
            ask_bundles(cv, f, json_object_get(msg, "game"));
        }
        progress(f, false);
        bool over = strcmp(f->state, "done") == 0 || strcmp(f->state, "cancelled") == 0;
        if (over && f->step != FINISHING) {
            f->step = FINISHING;
            f->finish_by = cli_now() + 10; /* the last standings are a moment behind */
        }
        if (f->step == FINISHING &&
            ((standings_current(f) && f->asked <= 0) || cli_now() > f->finish_by)) {
            print_end(f);
            return 1 + (strcmp(f->state, "done") == 0 ? CLI_OK : CLI_FAIL);
        }
    }
    return 0;
}

int cli_tournament_on_server(const char *url, const char *admin, json_t *create, int64_t watch_id,
                             bool detach, bool json, bool quiet, const char *bundles)
{
    follow f = {.url = url, .admin = admin, .bundles = bundles, .detach = detach, .json = json,
                .quiet = quiet,
                .tty = isatty(STDERR_FILENO) != 0, .t0 = cli_now(), .id = watch_id};
    snprintf(f.state, sizeof f.state, "created");
    json_t *first;
    if (create) {
        json_object_set_new(create, "id", json_string("tessera-create"));
        json_object_set_new(create, "admin_token", json_string(admin));
        first = json_incref(create);
    } else {
        f.step = WATCHING;
        first = json_pack("{s:s, s:s, s:I}", "type", "watch_tournament", "id", "tessera-watch",
                          "tournament", (json_int_t)watch_id);
    }
    char err[320];
    int rc = botclient_converse(url, first, on_message, &f, 1000, err, sizeof err);
    json_decref(first);
    bar_clear(&f);
    if (rc == -2)
        rc = cli_usage_error(cmd, "--url: %s", err);
    else if (rc < 0) {
        fprintf(stderr, "tessera %s: %s %s: %s\n", cmd,
                f.step == CREATING ? "cannot reach a tessera server at" : "lost the server at", url,
                err);
        if (f.step != CREATING && f.id > 0)
            fprintf(stderr,
                    "tessera %s: tournament %lld goes on on the server; follow it again with "
                    "`tessera tournament --url %s --watch %lld`\n",
                    cmd, (long long)f.id, url, (long long)f.id);
        rc = CLI_FAIL;
    }
    json_decref(f.standings);
    return rc;
}
