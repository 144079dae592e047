/*
 * bundle.c — fault bundles (bundle.h): built from what the caller saw of a
 * fault, written whole or not at all, read back without trusting a byte.
 */
#define _GNU_SOURCE
#include "players/bundle.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "protocol/chance.h"
#include "protocol/record.h"
#include "protocol/wire.h"

/* ---- building ------------------------------------------------------------------ */

static json_t *limits_json(const sandbox_limits *l)
{
    return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "cpu_s", (json_int_t)l->cpu_s,
                     "memory_mb", (json_int_t)l->memory_mb, "file_mb", (json_int_t)l->file_mb,
                     "max_files", (json_int_t)l->max_files, "max_tasks", (json_int_t)l->max_tasks,
                     "max_line_bytes", (json_int_t)l->max_line, "max_stdout_bytes",
                     (json_int_t)l->max_stdout, "max_stderr_bytes", (json_int_t)l->max_stderr);
}

json_t *bundle_new(const bundle_fault *f, char *err, size_t errcap)
{
    assert(f && f->g && f->rules && f->player);
    if (f->seat < 0 || f->seat >= f->rules->players || f->verdict == PLAYER_OK) {
        eng_seterr(err, errcap, ENG_EINVAL, "not a fault of a seat");
        return NULL;
    }
    /* the complete turns before the fault: the draw of the faulty turn (if
     * any) comes again from the seed */
    int used = 0;
    json_t *rec = rec_build_full(f->g, f->rules, f->moves, f->nmoves, NULL, f->chance, &used, err,
                                 errcap);
    if (!rec)
        return NULL;
    json_t *rules = wire_rules_json(f->g, f->rules);
    /* the turn it was asked: the one after the record's (your_turn counts so) */
    int turn = f->turn > 0 ? f->turn : (int)json_array_size(json_object_get(rec, "turns")) + 1;
    json_t *b = json_pack("{s:s, s:i, s:s, s:o, s:i, s:s, s:s, s:s, s:i, s:I, s:o, s:o, s:s, s:s}",
                          "format", BUNDLE_FORMAT, "version", BUNDLE_VERSION, "game", f->g->name,
                          "rules", rules, "seat", f->seat, "player", f->player, "verdict",
                          player_verdict_name(f->verdict), "detail", f->detail ? f->detail : "",
                          "turn", turn, "move_ms", (json_int_t)(f->move_ms + 0.5), "limits",
                          limits_json(f->limits), "record", rec, "stderr",
                          f->stderr_text ? f->stderr_text : "", "source",
                          f->source ? f->source : "tessera");
    if (!b) {
        eng_seterr(err, errcap, ENG_ENOMEM, "out of memory (or a detail that is not UTF-8)");
        return NULL;
    }
    if (f->lines) {
        json_object_set(b, "lines", (json_t *)f->lines);
        json_object_set_new(b, "lines_truncated", json_boolean(f->lines_truncated));
    }
    return b;
}

int bundle_write(const json_t *b, const char *dir, const char *name, char *path, size_t pathcap,
                 char *err, size_t errcap)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return eng_seterr(err, errcap, ENG_EIO, "cannot make %s: %s", dir, strerror(errno));
    char final[4096], tmp[4200];
    if ((size_t)snprintf(final, sizeof final, "%s/%s.json", dir, name) >= sizeof final)
        return eng_seterr(err, errcap, ENG_EIO, "the bundle's path is too long");
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", final, (long)getpid());
    FILE *fp = fopen(tmp, "w");
    if (!fp)
        return eng_seterr(err, errcap, ENG_EIO, "cannot write %s: %s", tmp, strerror(errno));
    int rc = json_dumpf(b, fp, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    rc |= fputc('\n', fp) == EOF;
    rc |= fclose(fp) != 0;
    if (rc || rename(tmp, final) != 0) {
        int e = errno;
        unlink(tmp);
        return eng_seterr(err, errcap, ENG_EIO, "cannot write %s: %s", final, strerror(e));
    }
    if (path)
        snprintf(path, pathcap, "%s", final);
    return 0;
}

/* ---- reading --------------------------------------------------------------------- */

/* Bytes one line of a transcript takes written as JSON, at most: its
 * object ({"out":"..."}, and the comma) and its text escaped. */
static size_t line_json_bytes(const json_t *l)
{
    const json_t *t = json_object_get(l, "in") ? json_object_get(l, "in") : json_object_get(l, "out");
    const unsigned char *s = (const unsigned char *)json_string_value(t);
    size_t n = 12, len = json_string_length(t);
    for (size_t i = 0; s && i < len; i++)
        n += s[i] == '"' || s[i] == '\\' ? 2 : s[i] < 0x20 ? 6 : 1;
    return n;
}

json_t *bundle_capped(const json_t *b, size_t max_bytes)
{
    assert(json_is_object(b));
    const json_t *lines = json_object_get(b, "lines");
    size_t used = 0, keep = 0, n = json_array_size(lines);
    for (; keep < n; keep++) {
        used += line_json_bytes(json_array_get(lines, keep));
        if (used > max_bytes)
            break;
    }
    if (keep == n)
        return json_incref((json_t *)b);
    json_t *cut = json_array();
    for (size_t i = 0; cut && i < keep; i++)
        json_array_append(cut, json_array_get(lines, i));
    json_t *c = cut ? json_copy((json_t *)b) : NULL;
    if (!c || json_object_set_new(c, "lines", cut) != 0 ||
        json_object_set_new(c, "lines_truncated", json_true()) != 0) {
        json_decref(c);
        json_decref(c ? NULL : cut);
        return NULL;
    }
    return c;
}

void bundle_free(bundle *b)
{
    if (!b)
        return;
    json_decref(b->root);
    free(b->moves);
    memset(b, 0, sizeof *b);
}

/* A limit from the bundle: a positive integer up to max, else the default. */
static int64_t limit_of(const json_t *lim, const char *key, int64_t def, int64_t max)
{
    const json_t *v = json_object_get(lim, key);
    if (!json_is_integer(v))
        return def;
    json_int_t x = json_integer_value(v);
    return x >= 1 && x <= max ? (int64_t)x : def;
}

/* The moves of a record (its turns applied from init), then the chance
 * events that follow it up to the next decision, from the revealed seed. */
static int position(bundle *b, const json_t *rec, char *err, size_t errcap)
{
    const eng_game *g = b->g;
    const json_t *turns = json_object_get(rec, "turns");
    size_t nt = json_array_size(turns);
    int cap = g->max_plies + 1;
    b->moves = malloc((size_t)cap * sizeof *b->moves);
    void *st = malloc(g->state_size);
    int rc = b->moves && st ? 0 : eng_seterr(err, errcap, ENG_ENOMEM, "out of memory");
    if (rc == 0)
        g->init(st, &b->rules);
    int n = 0;
    uint64_t kchance = 0;
    unsigned char *copy = malloc(g->state_size);
    if (rc == 0 && !copy)
        rc = eng_seterr(err, errcap, ENG_ENOMEM, "out of memory");
    for (size_t i = 0; rc == 0 && i < nt; i++) {
        eng_move m[ENG_MAX_TURN_MOVES];
        int k = 0;
        char why[256] = "";
        memcpy(copy, st, g->state_size);
        rc = rec_apply_turn(g, st, json_array_get(turns, i), m, &k, why, sizeof why);
        if (rc) {
            eng_seterr(err, errcap, rc, "the bundle's record, turn %zu: %s", i + 1, why);
            break;
        }
        if (n + k > cap) {
            rc = eng_seterr(err, errcap, ENG_EBAD_RECORD, "the record is longer than a game");
            break;
        }
        /* the turn's moves again on the copy, counting its chance outcomes */
        for (int j = 0; j < k; j++) {
            if (g->current_player(copy) == ENG_CHANCE)
                kchance++;
            g->apply(copy, m[j]);
            b->moves[n++] = m[j];
        }
    }
    free(copy);
    if (rc == 0) {
        chance_block cb = {0};
        const json_t *blk = json_object_get(rec, "chance");
        if (blk && chance_block_parse(blk, &cb, err, errcap) != 0)
            rc = ENG_EBAD_RECORD;
        while (rc == 0 && g->current_player(st) == ENG_CHANCE) {
            if (!cb.revealed) {
                rc = eng_seterr(err, errcap, ENG_EBAD_RECORD,
                                "the bundle's record has no revealed chance seed: the tiles of "
                                "the faulty turn cannot be drawn again");
                break;
            }
            if (n >= cap) {
                rc = eng_seterr(err, errcap, ENG_EBAD_RECORD, "the record is longer than a game");
                break;
            }
            eng_move m = eng_chance_draw(g, st, cb.secret.seed, kchance++);
            g->apply(st, m);
            b->moves[n++] = m;
        }
    }
    if (rc == 0 && g->current_player(st) != b->seat)
        rc = eng_seterr(err, errcap, ENG_EBAD_RECORD,
                        "at the end of the bundle's record seat %d is not to move (the record "
                        "does not lead to the faulty turn)",
                        b->seat);
    b->nmoves = n;
    free(st);
    return rc;
}

int bundle_load(const char *path, bundle *out, char *err, size_t errcap)
{
    memset(out, 0, sizeof *out);
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return eng_seterr(err, errcap, ENG_EIO, "cannot read %s: %s", path, strerror(errno));
    json_error_t je;
    struct stat sb;
    if (fstat(fileno(fp), &sb) == 0 && sb.st_size > BUNDLE_MAX_BYTES) {
        fclose(fp);
        return eng_seterr(err, errcap, ENG_ETOO_LARGE, "%s: more than %d bytes: not a bundle",
                          path, BUNDLE_MAX_BYTES);
    }
    out->root = json_loadf(fp, JSON_REJECT_DUPLICATES, &je);
    fclose(fp);
    if (!out->root)
        return eng_seterr(err, errcap, ENG_EBAD_JSON, "%s: not JSON (line %d: %s)", path, je.line,
                          je.text);
    json_t *r = out->root, *rules = NULL, *rec = NULL, *lim = NULL, *lines = NULL;
    const char *format = NULL, *game = NULL;
    int version = 0, truncated = 0;
    json_int_t seat = -1, turn = 0, move_ms = 0;
    out->detail = "";
    if (json_unpack_ex(r, &je, 0, "{s:s, s:i, s:s, s:o, s:I, s:s, s:s, s?s, s?I, s?I, s?o, s:o, s?o, s?b}",
                       "format", &format, "version", &version, "game", &game, "rules", &rules,
                       "seat", &seat, "player", &out->player, "verdict", &out->verdict, "detail",
                       &out->detail, "turn", &turn, "move_ms", &move_ms, "limits", &lim, "record",
                       &rec, "lines", &lines, "lines_truncated", &truncated) != 0) {
        int rc = eng_seterr(err, errcap, ENG_EBAD_RECORD, "%s: not a fault bundle: %s", path,
                            je.text);
        bundle_free(out);
        return rc;
    }
    int rc = 0;
    if (strcmp(format, BUNDLE_FORMAT) != 0 || version != BUNDLE_VERSION)
        rc = eng_seterr(err, errcap, ENG_EBAD_RECORD,
                        "%s: not a fault bundle of this tessera (format %s, version %d)", path,
                        format, version);
    else if (!(out->g = eng_find_game(game)))
        rc = eng_seterr(err, errcap, ENG_EUNKNOWN_GAME, "%s: no game named '%.40s'", path, game);
    if (rc == 0) {
        char why[256];
        json_t *players = json_object_get(rules, "players");
        int nseats = json_is_integer(players) ? (int)json_integer_value(players)
                                              : out->g->default_players;
        if (wire_rules_parse(out->g, rules, nseats, &out->rules, why, sizeof why) != 0)
            rc = eng_seterr(err, errcap, ENG_EBAD_RULE, "%s: its rules: %s", path, why);
    }
    if (rc == 0 && (seat < 0 || seat >= out->rules.players))
        rc = eng_seterr(err, errcap, ENG_EBAD_RECORD, "%s: seat %lld is not a seat of the game",
                        path, (long long)seat);
    if (rc == 0 && lines && !json_is_array(lines))
        rc = eng_seterr(err, errcap, ENG_EBAD_RECORD, "%s: lines is not an array", path);
    if (rc == 0) {
        /* the record must replay (and match its seed) under the bundle's game and rules */
        rec_replay rp;
        int vrc = json_object_get(rec, "chance") ? rec_verify_chance(rec, &rp)
                                                 : rec_replay_json(rec, NULL, NULL, &rp);
        if (vrc != 0)
            rc = eng_seterr(err, errcap, vrc, "%s: its record, turn %d: %s", path, rp.bad_turn,
                            rp.reason);
        else if (rp.game != out->g || rp.rules.players != out->rules.players)
            rc = eng_seterr(err, errcap, ENG_EBAD_RECORD,
                            "%s: its record is of another game or seat count", path);
        else if (rp.finished)
            rc = eng_seterr(err, errcap, ENG_EBAD_RECORD,
                            "%s: its record is a finished game: no turn is left to replay", path);
    }
    if (rc == 0) {
        out->seat = (int)seat;
        out->turn = turn > 0 && turn < 1000000 ? (int)turn : 0;
        out->move_ms = move_ms >= 10 && move_ms <= 3600 * 1000 ? move_ms : 1000;
        sandbox_limits_default(&out->limits);
        sandbox_limits *l = &out->limits;
        l->cpu_s = limit_of(lim, "cpu_s", l->cpu_s, 24 * 3600);
        l->memory_mb = limit_of(lim, "memory_mb", l->memory_mb, 1 << 20);
        l->file_mb = limit_of(lim, "file_mb", l->file_mb, 1 << 20);
        l->max_files = limit_of(lim, "max_files", l->max_files, 1 << 16);
        l->max_tasks = limit_of(lim, "max_tasks", l->max_tasks, 1 << 16);
        l->max_line = limit_of(lim, "max_line_bytes", l->max_line, 1 << 30);
        l->max_stdout = limit_of(lim, "max_stdout_bytes", l->max_stdout, 1 << 30);
        l->max_stderr = limit_of(lim, "max_stderr_bytes", l->max_stderr, 1 << 30);
        out->lines = lines;
        out->lines_truncated = truncated;
        rc = position(out, rec, err, errcap);
    }
    if (rc)
        bundle_free(out);
    return rc;
}
