/*
 * remote.c — `tessera doctor --url URL --remote NAME`: a bot registered on a
 * server (docs/protocol.md, "Registered bots"), checked from a distance.
 *
 * The doctor cannot run the bot, so it asks the server to: for each game,
 * a create_match with the seat `remote:NAME` (which needs the server's
 * admin token) against the server's random bot, watched to its end on the
 * same connection (botclient_watch). Policies are strict — a time-out or an
 * illegal move forfeits at once, a bot that is not connected forfeits
 * after one move's time — so that every fault shows as the match's result.
 * What the doctor sees is what a spectator sees: the result, the updates,
 * and which turns the server had to play for the seat.
 */
#include "doctor/internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/botclient.h"
#include "protocol/codec.h"

#define REQUEST_MS 10000 /* a lobby request's answer */

/* The verdict a match's result names (what the server's reason means). */
static player_verdict verdict_of(const char *reason, const json_t *result)
{
    const char *v = json_string_value(json_object_get(result, "verdict"));
    if (v)
        for (int i = 0; i < PLAYER_NVERDICTS; i++)
            if (strcmp(v, player_verdict_name((player_verdict)i)) == 0)
                return (player_verdict)i;
    if (strcmp(reason, "timeout") == 0)
        return PLAYER_TIME_LIMIT;
    if (strcmp(reason, "illegal") == 0)
        return PLAYER_ILLEGAL_MOVE;
    if (strcmp(reason, "resignation") == 0)
        return PLAYER_RESIGNED;
    if (strcmp(reason, "crash") == 0)
        return PLAYER_CRASHED;
    return PLAYER_NO_ANSWER; /* disconnect, aborted */
}

static const char *remote_hint(player_verdict v)
{
    switch (v) {
    case PLAYER_TIME_LIMIT:
        return "the bot did not move in time: is its bridge running and connected (its log says "
               "`registered as ...`)? A bot that thinks too long: see the bridge's log for its "
               "moves' times, and check it locally with tessera doctor -- PROGRAM";
    case PLAYER_ILLEGAL_MOVE:
        return "the bot played an illegal move: check it locally with tessera doctor -- PROGRAM "
               "and read the bridge's log";
    case PLAYER_NO_ANSWER:
        return "the bot was not connected, or its connection dropped for longer than a move: "
               "start its bridge (tessera bridge --register NAME --secret S -- PROGRAM)";
    default: return "read the bridge's log on the bot's machine, and check it locally";
    }
}

static void set(doctor_check *c, doctor_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void set(doctor_check *c, doctor_status st, const char *fmt, ...)
{
    c->status = st;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->detail, sizeof c->detail, fmt, ap);
    va_end(ap);
    for (char *p = c->detail; *p; p++)
        if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
            *p = '?';
}

typedef struct rgame {
    char name[65];
    int min_players, max_players;
} rgame;

/* One match: the bot in `seat` of `players`, the others random. Fills c.
 * Returns 0, or a negative code for an error that ends the whole run (err
 * set): the token refused, the name unknown, the server gone. */
static int one_match(const doctor_config *cfg, const rgame *gm, int players, int seat,
                     doctor_check *c, char *err, size_t errcap)
{
    char spec[80];
    snprintf(spec, sizeof spec, "remote:%s", cfg->remote);
    json_t *seats = json_array();
    for (int i = 0; i < players; i++)
        json_array_append_new(seats, json_pack("{s:s}", "bot", i == seat ? spec : "random"));
    json_t *msg =
        json_pack("{s:s, s:s, s:o, s:{s:I, s:I}, s:{s:s, s:s, s:s, s:I}, s:s}", "type",
                  "create_match", "game", gm->name, "seats", seats, "time_control", "move_ms",
                  (json_int_t)cfg->move_ms, "first_move_ms", (json_int_t)cfg->first_move_ms,
                  "policies", "timeout", "forfeit", "illegal", "forfeit", "disconnect", "forfeit",
                  "reconnect_grace_ms", (json_int_t)cfg->move_ms, "admin_token", cfg->admin_token);
    if (!msg)
        return eng_seterr(err, errcap, ENG_ENOMEM, "out of memory");
    const eng_game *g = eng_find_game(gm->name);
    int64_t plies = g && g->max_plies > 0 ? g->max_plies : 1000;
    int64_t timeout = plies * cfg->first_move_ms + 30000;
    if (timeout > 4 * 3600 * 1000LL)
        timeout = 4 * 3600 * 1000LL;
    json_t *reply = NULL, *seen = NULL;
    char why[256];
    int rc = botclient_watch(cfg->url, msg, timeout, &reply, &seen, why, sizeof why);
    json_decref(msg);
    if (rc) {
        json_decref(reply);
        json_decref(seen);
        return eng_seterr(err, errcap, ENG_EIO, "%s: %s", cfg->url, why);
    }
    const char *type = json_string_value(json_object_get(reply, "type"));
    const char *code = json_string_value(json_object_get(reply, "code"));
    const char *text = json_string_value(json_object_get(reply, "message"));
    int ret = 0;
    if (type && strcmp(type, "error") == 0) {
        code = code ? code : "?";
        text = text ? text : "";
        if (strcmp(code, "forbidden") == 0)
            ret =
                eng_seterr(err, errcap, ENG_EINVAL, "the server refused the admin token: %s", text);
        else if (strcmp(code, "unknown_bot") == 0)
            ret = eng_seterr(err, errcap, ENG_EUNKNOWN_BOT,
                             "no bot ever registered as %s on %s: %s", cfg->remote, cfg->url, text);
        else if (strcmp(code, "bad_bot_spec") == 0)
            set(c, DOCTOR_SKIP, "%s does not play %s (its registration): %s", cfg->remote, gm->name,
                text);
        else if (strcmp(code, "too_many") == 0)
            set(c, DOCTOR_SKIP, "%s plays its capacity of games now: %s", cfg->remote, text);
        else
            set(c, DOCTOR_FAIL, "the server refused the match: %s: %s", code, text);
        json_decref(reply);
        json_decref(seen);
        return ret;
    }
    const char *match = json_string_value(json_object_get(reply, "match"));
    /* the end, the bot's moves, the turns the server played for it */
    const json_t *result = NULL;
    int own = 0, played_for = 0, first_for = 0;
    const char *for_reason = "";
    size_t i;
    const json_t *m;
    json_array_foreach(seen, i, m)
    {
        const char *t = json_string_value(json_object_get(m, "type"));
        if (!t)
            continue;
        if (strcmp(t, "update") == 0) {
            const json_t *rec = json_object_get(m, "record");
            if (json_integer_value(json_object_get(rec, "player")) != seat)
                continue;
            const char *by = json_string_value(json_object_get(m, "by"));
            const char *reason = json_string_value(json_object_get(m, "reason"));
            if (reason && strcmp(reason, codec_no_decision(codec_find(gm->name))) == 0)
                continue; /* a chance outcome that left the seat nothing to decide */
            if (by && strcmp(by, "server") == 0) {
                if (!played_for++) {
                    first_for = (int)json_integer_value(json_object_get(m, "turn"));
                    for_reason = reason ? reason : "?";
                }
            } else {
                own++;
            }
        } else if (strcmp(t, "game_over") == 0 || strcmp(t, "spectating") == 0) {
            if (json_is_object(json_object_get(m, "result")))
                result = json_object_get(m, "result");
        }
    }
    c->moves = own;
    c->allowed_ms = (double)cfg->move_ms;
    const char *reason = json_string_value(json_object_get(result, "reason"));
    if (!result || !reason) {
        set(c, DOCTOR_FAIL, "match %s: no result seen", match ? match : "?");
    } else if (strcmp(reason, "normal") == 0 && played_for == 0) {
        set(c, DOCTOR_PASS, "match %s, %d players, seat %d: %d moves, a normal end",
            match ? match : "?", players, seat, own);
    } else if (played_for) {
        c->verdict = PLAYER_TIME_LIMIT;
        c->turn = first_for;
        set(c, DOCTOR_FAIL, "match %s: turn %d: the server played for the seat (%s)",
            match ? match : "?", first_for, for_reason);
        c->hint = remote_hint(c->verdict);
    } else {
        const json_t *fs = json_object_get(result, "seat");
        const char *detail = json_string_value(json_object_get(result, "detail"));
        c->verdict = verdict_of(reason, result);
        if (json_is_integer(fs) && json_integer_value(fs) != seat)
            set(c, DOCTOR_FAIL, "match %s ended early (%s) by another seat: %s",
                match ? match : "?", reason, detail ? detail : "");
        else
            set(c, DOCTOR_FAIL, "match %s, seat %d: lost by %s (%s, %s) after %d moves: %s",
                match ? match : "?", seat, reason, player_verdict_name(c->verdict),
                player_verdict_short(c->verdict), own, detail ? detail : "");
        c->hint = remote_hint(c->verdict);
    }
    json_decref(reply);
    json_decref(seen);
    return 0;
}

static bool wanted(const doctor_config *cfg, const char *name)
{
    if (cfg->nchecks == 0)
        return true;
    for (int i = 0; i < cfg->nchecks; i++)
        if (strcmp(cfg->checks[i], name) == 0)
            return true;
    return false;
}

int doctor_run_remote(const doctor_config *cfg, doctor_summary *sum, char *err, size_t errcap)
{
    memset(sum, 0, sizeof *sum);
    for (int i = 0; i < cfg->nchecks; i++)
        if (strcmp(cfg->checks[i], "full_game") != 0 && strcmp(cfg->checks[i], "new_game") != 0 &&
            strcmp(cfg->checks[i], "more_players") != 0)
            return eng_seterr(err, errcap, ENG_EINVAL,
                              "check '%s' is not made on a server (there: full_game, new_game, "
                              "more_players; the others run locally, tessera doctor -- PROGRAM)",
                              cfg->checks[i]);
    json_t *req = json_pack("{s:s}", "type", "list_games"), *reply = NULL;
    char why[256];
    int rc = req ? botclient_request(cfg->url, req, REQUEST_MS, &reply, why, sizeof why) : 1;
    json_decref(req);
    if (rc)
        return eng_seterr(err, errcap, ENG_EIO, "%s: %s", cfg->url, rc == 1 ? why : "bad URL");
    rgame games[64];
    int ng = 0;
    size_t i;
    const json_t *gj;
    json_array_foreach(json_object_get(reply, "games"), i, gj)
    {
        const char *name = json_string_value(json_object_get(gj, "name"));
        if (!name || ng == 64)
            continue;
        bool asked = cfg->ngames == 0;
        for (int k = 0; k < cfg->ngames; k++)
            asked |= strcmp(cfg->games[k], name) == 0;
        if (!asked)
            continue;
        snprintf(games[ng].name, sizeof games[ng].name, "%s", name);
        games[ng].min_players = (int)json_integer_value(json_object_get(gj, "min_players"));
        games[ng].max_players = (int)json_integer_value(json_object_get(gj, "max_players"));
        ng++;
    }
    json_decref(reply);
    if (ng == 0)
        return eng_seterr(err, errcap, ENG_EUNKNOWN_GAME, "%s offers none of the games asked",
                          cfg->url);
    static const struct {
        const char *name, *about;
    } checks[] = {
        {"full_game", "a whole game on the server, seat 0, against its random bot"},
        {"new_game", "another game on the server, in the last seat"},
        {"more_players", "a game with the most seats the game allows, last seat"},
    };
    for (int k = 0; k < ng; k++) {
        const rgame *gm = &games[k];
        int two = gm->min_players > 2 ? gm->min_players : 2;
        for (int j = 0; j < 3; j++) {
            if (!wanted(cfg, checks[j].name))
                continue;
            int players = j == 2 ? gm->max_players : two;
            if (j == 2 && players <= two)
                continue;
            doctor_check c;
            memset(&c, 0, sizeof c);
            c.game = gm->name;
            c.name = checks[j].name;
            c.about = checks[j].about;
            int seat = j == 0 ? 0 : players - 1;
            rc = one_match(cfg, gm, players, seat, &c, err, errcap);
            if (rc)
                return rc;
            if (c.status == DOCTOR_PASS)
                sum->passed++;
            else if (c.status == DOCTOR_FAIL)
                sum->failed++;
            else
                sum->skipped++;
            if (cfg->on_check)
                cfg->on_check(&c, cfg->ud);
        }
    }
    return 0;
}
