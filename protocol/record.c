/*
 * record.c — game records: building them from engine moves and replaying
 * them with every rule checked (contract in record.h, format in
 * docs/records.md).
 *
 * This file is game-agnostic. It owns the envelope of a record — format,
 * version, game, rules, the turns array, the result — and hands each turn to
 * the game's codec (protocol/codec.h). Reading goes in three steps, as
 * for every untrusted input in tessera: parse (jansson, duplicate keys
 * rejected, size capped), check the shape (strict unpacking: no unknown or
 * missing keys, right JSON types), then check the rules turn by turn. The
 * first problem stops the replay and is reported with its 1-based turn
 * number (0 outside the turns), a code from engine/errors.h and a reason.
 * Nothing is ever allocated from a size the input claims: the only buffers
 * are one game state (the game's declared size) and what jansson builds
 * from at most REC_MAX_BYTES of text. A verifiable game's record is checked
 * here too (rec_verify_chance), with the commitments of chance.c.
 */
#include "record.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chance.h"
#include "games/common.h"
#include "info.h"

/* ---- rules ----------------------------------------------------------------- */

json_t *rec__rules_json(const eng_game *g, const eng_rules *r)
{
    json_t *o = json_object();
    if (!o || json_object_set_new(o, "players", json_integer(r->players)))
        goto fail;
    for (int i = 0; i < g->n_options; i++) {
        const eng_option *op = &g->options[i];
        json_t *v = op->boolean ? json_boolean(r->opt[i] != 0) : json_integer(r->opt[i]);
        if (json_object_set_new(o, op->name, v))
            goto fail;
    }
    return o;
fail:
    json_decref(o);
    return NULL;
}

static int read_players(const eng_game *g, const json_t *jp, const char *pre, int nseats,
                        eng_rules *r, char *err, size_t errcap)
{
    if (!json_is_integer(jp))
        return eng_seterr(err, errcap, ENG_EBAD_PLAYERS, "%splayers must be an integer, not %s",
                         pre, rec__type_name(jp));
    json_int_t np = json_integer_value(jp);
    if (nseats > 0 && np != nseats)
        return eng_seterr(err, errcap, ENG_EBAD_PLAYERS, "%splayers is %lld but %d seats were given",
                         pre, (long long)np, nseats);
    if (np < g->min_players || np > g->max_players)
        return eng_seterr(err, errcap, ENG_EBAD_PLAYERS, "%s%s takes %d to %d players, not %lld",
                         pre, g->name, g->min_players, g->max_players, (long long)np);
    r->players = (int32_t)np;
    return 0;
}

int rec__rules_parse(const eng_game *g, const json_t *jr, bool in_record, int nseats, eng_rules *r,
                     char *err, size_t errcap)
{
    const char *pre = in_record ? "rules: " : "";
    char q[REC_QUOTE_MAX];
    eng_rules_default(g, r);
    if (nseats > 0)
        r->players = nseats;
    if (jr || in_record) {
        if (!json_is_object(jr))
            return eng_seterr(err, errcap, in_record ? ENG_EBAD_RECORD : ENG_EBAD_RULE,
                             "rules must be an object, not %s", rec__type_name(jr));
        const json_t *jp = json_object_get(jr, "players");
        if (!jp && in_record)
            return eng_seterr(err, errcap, ENG_EBAD_PLAYERS, "rules: \"players\" is missing");
        int rc = jp ? read_players(g, jp, pre, nseats, r, err, errcap) : 0;
        if (rc)
            return rc;
        const char *key;
        json_t *v;
        json_object_foreach((json_t *)jr, key, v)
        {
            if (strcmp(key, "players") == 0)
                continue;
            int i = eng_option_index(g, key);
            if (i < 0)
                return eng_seterr(err, errcap, ENG_EBAD_RULE, "%s%s has no rule %s", pre, g->name,
                                 rec__quote_bytes(key, strlen(key), q));
            const eng_option *op = &g->options[i];
            long long val;
            if (op->boolean) {
                if (!json_is_boolean(v))
                    return eng_seterr(err, errcap, ENG_EBAD_RULE, "%s%s must be true or false, not %s",
                                     pre, op->name, rec__type_name(v));
                val = json_is_true(v);
            } else {
                if (!json_is_integer(v))
                    return eng_seterr(err, errcap, ENG_EBAD_RULE, "%s%s must be an integer, not %s",
                                     pre, op->name, rec__type_name(v));
                val = (long long)json_integer_value(v);
            }
            if (val < op->min || val > op->max)
                return eng_seterr(err, errcap, ENG_EBAD_RULE, "%s%s takes %d to %d, not %lld", pre,
                                 op->name, (int)op->min, (int)op->max, val);
            r->opt[i] = (int32_t)val;
        }
    }
    if (r->players < g->min_players || r->players > g->max_players) /* nseats out of range */
        return eng_seterr(err, errcap, ENG_EBAD_PLAYERS, "%s%s takes %d to %d players, not %d", pre,
                         g->name, g->min_players, g->max_players, (int)r->players);
    char why[200];
    int rc = eng_rules_check(g, r, why, sizeof why);
    if (rc)
        return eng_seterr(err, errcap, rc, "%s%s", pre, why);
    return 0;
}

/* ---- building ------------------------------------------------------------- */

/* A score as JSON: an integer when it is one (every registered game's
 * points are), else a real. New reference or NULL. */
static json_t *score_json(double v)
{
    if (v == floor(v) && fabs(v) < 9007199254740992.0)
        return json_integer((json_int_t)v);
    return json_real(v);
}

static json_t *scores_json(const double *sc, int n)
{
    json_t *a = json_array();
    for (int p = 0; a && p < n; p++)
        if (json_array_append_new(a, score_json(sc[p]))) {
            json_decref(a);
            a = NULL;
        }
    return a;
}

/* The times of moves[start..end) added to a turn: each figure summed over
 * the moves that carry it (a seat's turn carries it on one move). */
static int add_times(json_t *turn, const rec_time *times, int start, int end)
{
    int64_t think = -1, wait = -1;
    for (int i = start; times && i < end; i++) {
        if (times[i].think_ms >= 0)
            think = (think < 0 ? 0 : think) + times[i].think_ms;
        if (times[i].wait_ms >= 0)
            wait = (wait < 0 ? 0 : wait) + times[i].wait_ms;
    }
    if (think >= 0 && json_object_set_new(turn, "think_ms", json_integer(think)))
        return -1;
    if (wait >= 0 && json_object_set_new(turn, "wait_ms", json_integer(wait)))
        return -1;
    return 0;
}

/* rec_build() and rec_build_complete(): with `complete`, a last turn cut
 * short by the end of moves[] is left out instead of refused. */
static json_t *build(const eng_game *g, const eng_rules *rules, const eng_move *moves, int n,
                     const rec_time *times, const json_t *chance, bool complete, int *used,
                     char *err, size_t errcap)
{
    if (used)
        *used = 0;
    if (!g || !rules || n < 0 || (n > 0 && !moves)) {
        eng_seterr(err, errcap, ENG_EINVAL, "rec_build: invalid arguments");
        return NULL;
    }
    const game_codec *codec = codec_find(g->name);
    if (!codec) {
        eng_seterr(err, errcap, ENG_EUNKNOWN_GAME, "game '%s' has no record format", g->name);
        return NULL;
    }
    char why[200];
    if (eng_rules_check(g, rules, why, sizeof why) != 0) {
        eng_seterr(err, errcap, ENG_EBAD_RULE, "%s", why);
        return NULL;
    }

    json_t *rec = NULL, *turns = NULL;
    void *st = malloc(g->state_size);
    if (!st)
        goto nomem;
    g->init(st, rules);

    rec = json_object();
    turns = json_array();
    if (!rec || !turns || json_object_set_new(rec, "format", json_string(REC_FORMAT)) ||
        json_object_set_new(rec, "version", json_integer(REC_VERSION)) ||
        json_object_set_new(rec, "game", json_string(g->name)) ||
        json_object_set_new(rec, "rules", rec__rules_json(g, rules)) ||
        (chance && json_object_set_new(rec, "chance", json_deep_copy(chance))))
        goto nomem;

    int pos = 0;
    while (pos < n) {
        if (g->current_player(st) == ENG_TERMINAL) {
            eng_seterr(err, errcap, ENG_EINVAL, "move %d comes after the end of the game", pos + 1);
            goto fail;
        }
        bool cut = false;
        int start = pos;
        json_t *turn = codec->encode_turn(st, moves, n, &pos, &cut, err, errcap);
        if (!turn && cut && complete) {
            /* the moves stop inside this turn: the record ends before it (st
             * holds part of the turn, which is never a finished game) */
            pos = start;
            break;
        }
        if (!turn)
            goto fail;
        if (add_times(turn, times, start, pos)) {
            json_decref(turn);
            goto nomem;
        }
        if (json_array_append_new(turns, turn))
            goto nomem;
    }
    if (json_object_set(rec, "turns", turns))
        goto nomem;

    if (g->current_player(st) == ENG_TERMINAL) {
        double sc[ENG_MAX_PLAYERS];
        g->scores(st, sc);
        json_t *res = json_object();
        if (!res || json_object_set_new(res, "scores", scores_json(sc, rules->players)) ||
            json_object_set_new(rec, "result", res)) {
            goto nomem;
        }
    }
    json_decref(turns);
    free(st);
    if (used)
        *used = pos;
    return rec;

nomem:
    eng_seterr(err, errcap, ENG_ENOMEM, "out of memory");
fail:
    json_decref(turns);
    json_decref(rec);
    free(st);
    return NULL;
}

json_t *rec_build(const eng_game *g, const eng_rules *rules, const eng_move *moves, int n,
                  char *err, size_t errcap)
{
    return build(g, rules, moves, n, NULL, NULL, false, NULL, err, errcap);
}

json_t *rec_build_complete(const eng_game *g, const eng_rules *rules, const eng_move *moves, int n,
                           int *used, char *err, size_t errcap)
{
    return build(g, rules, moves, n, NULL, NULL, true, used, err, errcap);
}

json_t *rec_build_full(const eng_game *g, const eng_rules *rules, const eng_move *moves, int n,
                       const rec_time *times, const json_t *chance, int *used, char *err,
                       size_t errcap)
{
    return build(g, rules, moves, n, times, chance, true, used, err, errcap);
}

/* ---- replaying ------------------------------------------------------------ */

/* Fill out's failure fields; returns code. The reason may quote the input
 * (jansson's messages name keys and tokens), so anything outside printable
 * ASCII is replaced before it can reach a terminal or a log. */
__attribute__((format(printf, 4, 5))) static int bad(rec_replay *out, int code, int turn,
                                                     const char *fmt, ...)
{
    out->bad_turn = turn;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->reason, sizeof out->reason, fmt, ap);
    va_end(ap);
    for (char *c = out->reason; *c; c++)
        if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
            *c = '?';
    return code;
}

/* Check the shape of "result": {"scores": [n numbers]} and nothing else. */
static int check_result_shape(const json_t *res, int players, rec_replay *out)
{
    json_t *sc = NULL;
    json_error_t jerr;
    char shape[REC_SHAPE_MAX];
    if (!json_is_object(res))
        return bad(out, ENG_EBAD_RECORD, 0, "result must be an object, not %s",
                   rec__type_name(res));
    if (json_unpack_ex((json_t *)res, &jerr, JSON_STRICT, "{s:o}", "scores", &sc) != 0)
        return bad(out, ENG_EBAD_RECORD, 0, "result: %s", rec__shape_error(&jerr, shape));
    if (!json_is_array(sc))
        return bad(out, ENG_EBAD_RECORD, 0, "result: scores must be an array, not %s",
                   rec__type_name(sc));
    if (json_array_size(sc) != (size_t)players)
        return bad(out, ENG_EBAD_RECORD, 0, "result: %zu scores for %d players",
                   json_array_size(sc), players);
    for (int p = 0; p < players; p++) {
        const json_t *v = json_array_get(sc, (size_t)p);
        if (!json_is_number(v))
            return bad(out, ENG_EBAD_RECORD, 0, "result: scores[%d] must be a number, not %s", p,
                       rec__type_name(v));
    }
    return 0;
}

/* A turn's optional time figures (docs/records.md): a non-negative
 * integer of at most REC_TIME_MAX_MS each. 0, or ENG_EBAD_RECORD. */
static int check_time(const json_t *turn, const char *key, char *err, size_t errcap)
{
    const json_t *v = json_object_get(turn, key);
    if (!v)
        return 0;
    if (!json_is_integer(v))
        return eng_seterr(err, errcap, ENG_EBAD_RECORD, "%s must be an integer, not %s", key,
                          rec__type_name(v));
    if (json_integer_value(v) < 0 || json_integer_value(v) > REC_TIME_MAX_MS)
        return eng_seterr(err, errcap, ENG_EBAD_RECORD, "%s must be from 0 to %lld, not %lld", key,
                          (long long)REC_TIME_MAX_MS, (long long)json_integer_value(v));
    return 0;
}

/* The codec's apply_turn on the turn without its time figures, which are
 * the same for every game and checked here. */
static int apply_turn(const game_codec *codec, void *st, const json_t *turn, eng_move *moves,
                      int *nmoves, char *err, size_t errcap)
{
    bool timed = json_object_get(turn, "think_ms") || json_object_get(turn, "wait_ms");
    const json_t *info = json_object_get(turn, "info");
    if (!timed && !info)
        return codec->apply_turn(st, turn, moves, nmoves, err, errcap);
    int rc = check_time(turn, "think_ms", err, errcap);
    if (rc || (rc = check_time(turn, "wait_ms", err, errcap)))
        return rc;
    json_t *bare = json_copy((json_t *)turn);
    if (!bare)
        return eng_seterr(err, errcap, ENG_ENOMEM, "out of memory");
    json_object_del(bare, "think_ms");
    json_object_del(bare, "wait_ms");
    json_object_del(bare, "info");
    if (!info) {
        rc = codec->apply_turn(st, bare, moves, nmoves, err, errcap);
        json_decref(bare);
        return rc;
    }
    /* the seat's last thinking line of the turn (protocol/info.h): checked
     * against the position it was about — after the turn's chance event,
     * before its decisions — as a relay checks it */
    const eng_game *g = eng_find_game(codec->game);
    eng_move mv[ENG_MAX_TURN_MOVES];
    int n = 0;
    unsigned char *at = g ? malloc(g->state_size) : NULL;
    if (!at) {
        json_decref(bare);
        return eng_seterr(err, errcap, ENG_ENOMEM, "out of memory");
    }
    memcpy(at, st, g->state_size);
    rc = codec->apply_turn(st, bare, mv, &n, err, errcap);
    json_decref(bare);
    for (int i = 0; rc == 0 && i < n && g->current_player(at) == ENG_CHANCE; i++)
        g->apply(at, mv[i]);
    json_t *canon = NULL;
    char why[200];
    if (rc == 0 && info_read(g, codec, at, info, 0, &canon, why, sizeof why) != 0)
        rc = eng_seterr(err, errcap, ENG_EBAD_RECORD, "the turn's %s", why);
    json_decref(canon);
    free(at);
    if (rc == 0 && moves) {
        memcpy(moves, mv, (size_t)n * sizeof mv[0]);
        *nmoves = n;
    } else if (rc == 0 && nmoves) {
        *nmoves = n;
    }
    return rc;
}

int rec_replay_json(const json_t *rec, rec_turn_fn fn, void *ud, rec_replay *out)
{
    rec_replay scratch;
    if (!out)
        out = &scratch;
    memset(out, 0, sizeof *out);
    char q[REC_QUOTE_MAX], shape[REC_SHAPE_MAX];

    /* Envelope: say "not a record" before anything more specific. */
    if (!json_is_object(rec))
        return bad(out, ENG_EBAD_RECORD, 0, "a record is a JSON object, not %s",
                   rec ? rec__type_name(rec) : "nothing");
    const json_t *jformat = json_object_get(rec, "format");
    if (!jformat)
        return bad(out, ENG_EBAD_RECORD, 0, "not a game record: \"format\" is missing");
    if (!json_is_string(jformat) || strcmp(json_string_value(jformat), REC_FORMAT) != 0)
        return bad(out, ENG_EBAD_RECORD, 0, "format must be \"%s\", not %s", REC_FORMAT,
                   json_is_string(jformat) ? rec__quote(jformat, q) : rec__type_name(jformat));

    json_t *jf, *jversion, *jgame, *jrules, *jturns, *jresult = NULL, *jchance = NULL;
    json_error_t jerr;
    if (json_unpack_ex((json_t *)rec, &jerr, JSON_STRICT, "{s:o, s:o, s:o, s:o, s:o, s?o, s?o}",
                       "format", &jf, "version", &jversion, "game", &jgame, "rules", &jrules,
                       "turns", &jturns, "result", &jresult, "chance", &jchance) != 0)
        return bad(out, ENG_EBAD_RECORD, 0, "record: %s", rec__shape_error(&jerr, shape));
    if (!json_is_integer(jversion))
        return bad(out, ENG_EBAD_RECORD, 0, "version must be an integer, not %s",
                   rec__type_name(jversion));
    if (json_integer_value(jversion) != REC_VERSION)
        return bad(out, ENG_EBAD_VERSION, 0, "record version %lld is not supported (this build "
                   "reads version %d)", (long long)json_integer_value(jversion), REC_VERSION);
    if (!json_is_string(jgame))
        return bad(out, ENG_EBAD_RECORD, 0, "game must be a string, not %s",
                   rec__type_name(jgame));
    const char *gname = json_string_value(jgame);
    const eng_game *g = eng_find_game(gname);
    if (!g || strlen(gname) != json_string_length(jgame))
        return bad(out, ENG_EUNKNOWN_GAME, 0, "unknown game %s", rec__quote(jgame, q));
    const game_codec *codec = codec_find(g->name);
    if (!codec)
        return bad(out, ENG_EUNKNOWN_GAME, 0, "game %s has no record format", g->name);
    out->game = g;
    char why[sizeof out->reason];
    int rc = rec__rules_parse(g, jrules, true, 0, &out->rules, why, sizeof why);
    if (rc)
        return bad(out, rc, 0, "%s", why);
    if (!json_is_array(jturns))
        return bad(out, ENG_EBAD_RECORD, 0, "turns must be an array, not %s",
                   rec__type_name(jturns));
    if (jresult && (rc = check_result_shape(jresult, out->rules.players, out)))
        return rc;
    if (jchance && (rc = chance_block_parse(jchance, NULL, why, sizeof why)))
        return bad(out, rc, 0, "%s", why);

    /* The turns, against the rules. */
    void *st = malloc(g->state_size);
    if (!st)
        return bad(out, ENG_ENOMEM, 0, "out of memory");
    g->init(st, &out->rules);
    g->scores(st, out->scores);
    size_t nturns = json_array_size(jturns);
    for (size_t i = 0; i < nturns; i++) {
        int turn_no = (int)i + 1; /* i < max_plies + 1, see below */
        const json_t *turn = json_array_get(jturns, i);
        if (g->current_player(st) == ENG_TERMINAL || i >= (size_t)g->max_plies) {
            rc = bad(out, ENG_EILLEGAL_MOVE, turn_no,
                     "the game is already over: it ended after turn %d (%zu turns given)",
                     turn_no - 1, nturns);
            goto done;
        }
        if (!json_is_object(turn)) {
            rc = bad(out, ENG_EBAD_RECORD, turn_no, "a turn must be an object, not %s",
                     rec__type_name(turn));
            goto done;
        }
        rc = apply_turn(codec, st, turn, NULL, NULL, why, sizeof why);
        if (rc) {
            bad(out, rc, turn_no, "%s", why);
            goto done;
        }
        out->turns = turn_no;
        g->scores(st, out->scores);
        if (fn)
            fn(ud, turn_no, turn, st);
    }
    out->finished = g->current_player(st) == ENG_TERMINAL;

    /* The result must agree with the replay; it exists only for a finished game. */
    if (jresult) {
        if (!out->finished) {
            rc = bad(out, ENG_EBAD_RECORD, 0,
                     "the record has a result but its %d turns do not finish the game",
                     out->turns);
            goto done;
        }
        const json_t *sc = json_object_get(jresult, "scores");
        for (int p = 0; p < out->rules.players; p++) {
            double claimed = json_number_value(json_array_get(sc, (size_t)p));
            if (claimed != out->scores[p]) {
                rc = bad(out, ENG_EBAD_RECORD, 0,
                         "result: player %d's score is %.17g, but the turns give %.17g", p,
                         claimed, out->scores[p]);
                goto done;
            }
        }
    }
    rc = 0;
done:
    free(st);
    return rc;
}

int rec_replay_buffer(const char *buf, size_t len, rec_turn_fn fn, void *ud, rec_replay *out)
{
    rec_replay scratch;
    if (!out)
        out = &scratch;
    memset(out, 0, sizeof *out);
    if (!buf && len > 0)
        return bad(out, ENG_EINVAL, 0, "no input");
    if (len > REC_MAX_BYTES)
        return bad(out, ENG_ETOO_LARGE, 0, "the record is %zu bytes; the limit is %d", len,
                   REC_MAX_BYTES);
    json_error_t jerr;
    json_t *rec = json_loadb(buf ? buf : "", len, JSON_REJECT_DUPLICATES, &jerr);
    if (!rec)
        return bad(out, ENG_EBAD_JSON, 0, "invalid JSON at line %d, column %d: %s", jerr.line,
                   jerr.column, jerr.text);
    int rc = rec_replay_json(rec, fn, ud, out);
    json_decref(rec);
    return rc;
}

int rec_apply_turn(const eng_game *g, void *st, const json_t *turn, eng_move *moves, int *nmoves,
                   char *err, size_t errcap)
{
    int n = 0;
    const game_codec *codec = codec_find(g->name);
    if (nmoves)
        *nmoves = 0;
    if (!codec)
        return eng_seterr(err, errcap, ENG_EUNKNOWN_GAME, "game %s has no record format", g->name);
    if (g->current_player(st) == ENG_TERMINAL)
        return eng_seterr(err, errcap, ENG_EILLEGAL_MOVE, "the game is already over");
    if (!json_is_object(turn))
        return eng_seterr(err, errcap, ENG_EBAD_RECORD, "a turn must be an object, not %s",
                         rec__type_name(turn));
    int rc = apply_turn(codec, st, turn, moves, &n, err, errcap);
    if (nmoves)
        *nmoves = moves ? n : 0;
    return rc;
}

/* ---- verifiable games ----------------------------------------------------- */

int rec_verify_chance(const json_t *rec, rec_replay *out)
{
    rec_replay scratch;
    if (!out)
        out = &scratch;
    int rc = rec_replay_json(rec, NULL, NULL, out);
    if (rc)
        return rc;
    const json_t *blk = json_object_get(rec, "chance");
    if (!blk)
        return bad(out, ENG_EBAD_RECORD, 0,
                   "the record has no \"chance\" block: its chance outcomes cannot be verified");
    chance_block b;
    char why[200];
    if ((rc = chance_block_parse(blk, &b, why, sizeof why)))
        return bad(out, rc, 0, "%s", why);
    if (!b.revealed)
        return bad(out, ENG_EBAD_RECORD, 0,
                   "the chance seed is not revealed (no seed and nonce in \"chance\"): a game "
                   "still in progress cannot be verified");
    char commit[CHANCE_COMMIT_HEX];
    if (chance_commitment(&b.secret, commit))
        return bad(out, ENG_EINTERNAL, 0, "SHA-256 failed (libcrypto)");
    if (strcmp(commit, b.commitment) != 0)
        return bad(out, ENG_EBAD_CHANCE, 0,
                   "the commitment %.16s... is not the SHA-256 of the revealed seed and nonce "
                   "(they give %.16s...): seed, nonce or commitment was changed",
                   b.commitment, commit);

    /* Re-derive every chance outcome, turn by turn. The replay above has
     * checked every turn, so applying them again cannot fail. */
    const eng_game *g = out->game;
    void *st = malloc(g->state_size), *at = malloc(g->state_size);
    if (!st || !at) {
        free(st);
        free(at);
        return bad(out, ENG_ENOMEM, 0, "out of memory");
    }
    g->init(st, &out->rules);
    const json_t *turns = json_object_get(rec, "turns");
    uint64_t k = 0; /* chance events so far */
    rc = 0;
    for (size_t i = 0; i < json_array_size(turns) && rc == 0; i++) {
        eng_move mv[ENG_MAX_TURN_MOVES];
        int n = 0;
        memcpy(at, st, g->state_size);
        if ((rc = rec_apply_turn(g, st, json_array_get(turns, i), mv, &n, why, sizeof why))) {
            rc = bad(out, rc, (int)i + 1, "%s", why);
            break;
        }
        for (int j = 0; j < n; j++) {
            if (g->current_player(at) == ENG_CHANCE) {
                eng_move want = eng_chance_draw(g, at, b.secret.seed, k);
                if (mv[j] != want) {
                    char got_s[ENG_MOVE_STR_MAX] = "?", want_s[ENG_MOVE_STR_MAX] = "?";
                    g->move_to_str(at, mv[j], got_s, sizeof got_s);
                    g->move_to_str(at, want, want_s, sizeof want_s);
                    rc = bad(out, ENG_EBAD_CHANCE, (int)i + 1,
                             "chance event %llu is %s in the record, but the revealed seed "
                             "gives %s",
                             (unsigned long long)k, got_s, want_s);
                    break;
                }
                k++;
            }
            g->apply(at, mv[j]);
        }
    }
    free(st);
    free(at);
    return rc;
}
