/*
 * replay.c — `tessera doctor --replay BUNDLE [-- PROGRAM]` (doctor.h): the
 * game of a fault bundle (players/bundle.h) played again to a program, so
 * that a fault seen in a match or a tournament happens again on the
 * author's machine — or, for a program fixed since, does not.
 *
 * The program is seated as the runner seated it: a new game of the
 * bundle's rules in the bundle's seat, named as the game was, every move of
 * the game shown to it in order (chance outcomes from the revealed seed),
 * so it is sent the same lines; each of its own turns is asked with the
 * bundle's allowance, and the game's own move is played whatever it
 * answers now. At the end the lines it was sent are compared with those the
 * bundle kept, the clock fields aside (deadline, time_left_ms).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bots/bot.h"
#include "doctor/doctor.h"
#include "players/bundle.h"
#include "protocol/wire.h"

/* The last lines of a stderr tail on one line, " | " between them. */
static void tail_line(const char *src, size_t len, char *out, size_t cap)
{
    size_t start = len > cap / 2 ? len - cap / 2 : 0, o = 0;
    while (len > start && (src[len - 1] == '\n' || src[len - 1] == '\r'))
        len--;
    for (size_t i = start; i < len && o + 4 < cap; i++) {
        char c = src[i];
        if (c == '\n') {
            memcpy(out + o, " | ", 3);
            o += 3;
        } else {
            out[o++] = (c >= 0x20 && c < 0x7f) ? c : '?';
        }
    }
    out[o] = 0;
}

/* Are two lines sent the same message, the clocks aside? */
static bool same_line(const char *a, const char *b, char *why, size_t cap)
{
    if (strcmp(a, b) == 0)
        return true;
    json_t *ja = json_loads(a, 0, NULL), *jb = json_loads(b, 0, NULL);
    bool same = false;
    if (ja && jb && json_is_object(ja) && json_is_object(jb)) {
        static const char *const clocks[] = {"deadline", "time_left_ms"};
        for (size_t i = 0; i < sizeof clocks / sizeof clocks[0]; i++) {
            json_object_del(ja, clocks[i]);
            json_object_del(jb, clocks[i]);
        }
        same = json_equal(ja, jb);
        if (!same) {
            const char *key;
            json_t *v;
            snprintf(why, cap, "a field differs");
            json_object_foreach(ja, key, v)
            {
                if (!json_equal(v, json_object_get(jb, key))) {
                    snprintf(why, cap, "field \"%.40s\" differs", key);
                    break;
                }
            }
        }
    } else {
        snprintf(why, cap, "the text differs");
    }
    json_decref(ja);
    json_decref(jb);
    return same;
}

/* The "in" lines of a transcript, in order (borrowed strings). */
static int in_lines(const json_t *lines, const char **out, int cap)
{
    int n = 0;
    size_t i;
    json_t *e;
    json_array_foreach(lines, i, e)
    {
        const char *s = json_string_value(json_object_get(e, "in"));
        if (s && n < cap)
            out[n++] = s;
    }
    return n;
}

/* Compare the lines the replay sent with the bundle's. */
static void compare_lines(const bundle *b, player *pl, doctor_replay_result *r)
{
    if (!b->lines) {
        snprintf(r->lines_note, sizeof r->lines_note, "the bundle holds no lines");
        return;
    }
    json_t *now = player_transcript(pl, NULL);
    if (!now) {
        snprintf(r->lines_note, sizeof r->lines_note, "not a program: no lines to compare");
        return;
    }
    size_t cap = json_array_size(b->lines) + json_array_size(now) + 1;
    const char **was = malloc(cap * sizeof *was), **sent = malloc(cap * sizeof *sent);
    if (!was || !sent) {
        snprintf(r->lines_note, sizeof r->lines_note, "out of memory");
    } else {
        int nw = in_lines(b->lines, was, (int)cap), ns = in_lines(now, sent, (int)cap);
        r->lines = ns;
        char why[128] = "";
        int k = 0;
        while (k < nw && k < ns && same_line(was[k], sent[k], why, sizeof why))
            k++;
        if (k < nw && k < ns) {
            r->lines_differ = k + 1;
            snprintf(r->lines_note, sizeof r->lines_note, "line %d of %d differs: %s", k + 1, nw,
                     why);
        } else if (nw != ns && !(b->lines_truncated && ns > nw)) {
            r->lines_differ = k + 1;
            snprintf(r->lines_note, sizeof r->lines_note,
                     "the game sent %d lines, the replay %d", nw, ns);
        } else {
            snprintf(r->lines_note, sizeof r->lines_note,
                     "the %d line%s it was sent %s the bundle's, the clocks aside%s", ns,
                     ns == 1 ? "" : "s", ns == 1 ? "is" : "are",
                     b->lines_truncated ? " (the bundle kept only the first ones)" : "");
        }
    }
    free(was);
    free(sent);
    json_decref(now);
}

/* The bundle's first line as JSON (its `start`; new reference), or NULL. */
static json_t *start_line(const bundle *b)
{
    const char *first = json_string_value(json_object_get(json_array_get(b->lines, 0), "in"));
    return first ? json_loads(first, 0, NULL) : NULL;
}

/* The match name the game used (the bundle's first line says it), so that
 * the lines are the same. */
static void match_name(const json_t *start, char *out, size_t cap)
{
    snprintf(out, cap, "replay");
    const char *m = json_string_value(json_object_get(start, "match"));
    if (m)
        snprintf(out, cap, "%s", m);
}

/* A turn as its record turn (the wire's JSON), for people: the game's
 * moves pre[0..np) of the turn (its chance outcome) from turn_start, then
 * the player's m[0..n). */
static void moves_text(const eng_game *g, const void *turn_start, const eng_move *pre, int np,
                       const eng_move *m, int n, char *out, size_t cap)
{
    char why[128];
    eng_move all[2 * ENG_MAX_TURN_MOVES];
    int k = 0;
    for (int i = 0; i < np && k < 2 * ENG_MAX_TURN_MOVES; i++)
        all[k++] = pre[i];
    for (int i = 0; i < n && k < 2 * ENG_MAX_TURN_MOVES; i++)
        all[k++] = m[i];
    json_t *t = wire_record_turn(g, turn_start, all, k, why, sizeof why);
    char *text = t ? json_dumps(t, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    snprintf(out, cap, "%s", text ? text : "(a move that cannot be written)");
    free(text);
    json_decref(t);
}

int doctor_replay(const char *path, const char *spec, int64_t move_ms, doctor_replay_result *r,
                  char *err, size_t errcap)
{
    memset(r, 0, sizeof *r);
    bundle b;
    int rc = bundle_load(path, &b, err, errcap);
    if (rc)
        return rc;
    const eng_game *g = b.g;
    r->game = g->name;
    r->seat = b.seat;
    r->turn = b.turn;
    snprintf(r->was, sizeof r->was, "%s%s%s", b.verdict, b.detail[0] ? ": " : "", b.detail);
    if (move_ms <= 0)
        move_ms = b.move_ms;

    player_config pc;
    player_config_default(&pc);
    pc.limits = b.limits;
    pc.transcript = true;
    /* the time control the game showed the program (a server's match has
     * one, the runner's games none), so that its start is the same */
    json_t *start = start_line(&b);
    pc.time_control = json_object_get(start, "time_control");
    /* a program given in its place runs as the bundle's did: started afresh
     * for every turn when that one was */
    char respec[PLAYER_SPEC_MAX];
    if (spec && strncmp(spec, "cmd:", 4) == 0 && strncmp(b.player, "cmd-stateless:", 14) == 0) {
        snprintf(respec, sizeof respec, "cmd-stateless:%s", spec + 4);
        spec = respec;
    }
    char perr[512];
    player *pl = player_create(spec ? spec : b.player, g, &pc, perr, sizeof perr);
    unsigned char *st = malloc(g->state_size), *scratch = malloc(g->state_size);
    unsigned char *tstart = malloc(g->state_size); /* where the current turn began */
    int tfirst = 0;                                /* the index of its first move */
    player_result *res = calloc(1, sizeof *res);
    if (!pl)
        rc = eng_seterr(err, errcap, ENG_EINVAL, "%s", perr);
    else if (!st || !scratch || !tstart || !res)
        rc = eng_seterr(err, errcap, ENG_ENOMEM, "out of memory");
    char name[40];
    match_name(start, name, sizeof name);
    if (rc == 0) {
        g->init(st, &b.rules);
        memcpy(tstart, st, g->state_size);
        rc = player_new_game(pl, st, b.seat, name);
        if (rc)
            eng_seterr(err, errcap, rc, "the player could not start a game");
    }
    int turn = 1; /* the record turn being played, as your_turn counts */
    for (int i = 0; rc == 0 && i <= b.nmoves;) {
        int p = g->current_player(st), k = 1; /* k: the game's moves played next */
        if (p == b.seat) {
            /* the seat's turn: ask it; the faulty one is the last */
            bool last = i == b.nmoves;
            player_verdict v = player_turn(pl, st, bot_now_ms() + (double)move_ms, NULL, res);
            char why[200];
            if (v == PLAYER_OK &&
                eng_turn_check(g, st, res->moves, res->nmoves, scratch, why, sizeof why) != 0) {
                v = PLAYER_ILLEGAL_MOVE;
                snprintf(res->detail, sizeof res->detail, "%s", why);
            }
            if (v != PLAYER_OK || last) {
                r->verdict = v;
                r->earlier = !last;
                r->turn = turn;
                if (v == PLAYER_OK)
                    moves_text(g, tstart, b.moves + tfirst, i - tfirst, res->moves,
                               res->nmoves, r->detail, sizeof r->detail);
                else
                    snprintf(r->detail, sizeof r->detail, "%s", res->detail);
                tail_line(res->stderr_tail, res->stderr_len, r->stderr_tail,
                          sizeof r->stderr_tail);
                break;
            }
            /* the game's turn: the seat's decisions from here */
            k = 0;
            memcpy(scratch, st, g->state_size);
            while (i + k < b.nmoves && g->current_player(scratch) == b.seat) {
                g->apply(scratch, b.moves[i + k]);
                k++;
            }
            r->asked++;
            if (k != res->nmoves || memcmp(res->moves, b.moves + i, (size_t)k * sizeof *b.moves)) {
                r->differed++;
                if (!r->first_differed)
                    r->first_differed = turn;
            }
        }
        if (i == b.nmoves || k == 0)
            break;
        /* the game's moves (a seat's whole turn, or one), shown to the player and applied */
        for (int j = 0; j < k; j++, i++) {
            int before = g->current_player(st);
            player_observe(pl, st, b.moves[i], NULL);
            g->apply(st, b.moves[i]);
            if (eng_turn_ends(g, before, st)) {
                turn++;
                memcpy(tstart, st, g->state_size);
                tfirst = i + 1;
            }
        }
    }
    if (rc == 0) {
        compare_lines(&b, pl, r); /* before game_over, which the game never got */
        player_game_over(pl, st, "stopped", -1, NULL, NULL);
    }
    player_destroy(pl);
    free(st);
    free(scratch);
    free(tstart);
    free(res);
    json_decref(start);
    bundle_free(&b);
    return rc;
}
