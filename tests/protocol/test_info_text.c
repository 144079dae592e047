/*
 * test_info_text.c — our own reader of info lines (protocol/infotext.h)
 * held against the general way it stands in for (jansson's json_loadb, then
 * info_read: the oracle), line by line over three sources: the info cases
 * (tests/protocol/info_cases), the fuzz corpus (tests/fuzz/corpus/info,
 * its first byte picking the position as fuzz_info does) and lines
 * generated here from random positions of every game — good ones as bots
 * write them, odd ones (other spellings of a move, escapes, big numbers,
 * repeated or unknown fields) and byte-level mutations of both.
 *
 * For every line ours takes (info_parse 0, info_write 0) the oracle must
 * say ok and write the same bytes; with a warm move cache too; the
 * envelope it read must be proto_decode's (type info, the same match, seat
 * and turn); and the record's line info_compact cuts from it must be the
 * bytes of the oracle's compaction of the tree (server/thinking.c's rule:
 * without turn, nodes, depth, text; 3 candidates, 4 pv moves). A line ours
 * declines is the oracle's alone: nothing to compare. So that the test
 * cannot pass by declining everything, ours must take nearly all the good
 * generated lines. Every line is compared in a move too (compare_move: a
 * move that carries its line, split by info_move_split), and the move
 * cases of info_cases as they are.
 *
 * Usage: test_info_text INFO_CASES_DIR FUZZ_CORPUS_DIR
 */
#define _GNU_SOURCE /* memmem */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "case_dirs.h"

#include "engine/rng.h"
#include "protocol/info.h"
#include "protocol/infotext.h"
#include "protocol/messages.h"

static const char *cases_dir, *corpus_dir;

static struct {
    long lines;      /* compared */
    long taken;      /* ours wrote them */
    long oracle_ok;  /* the oracle kept them */
    long moves;      /* moves carrying a line compared */
    long split;      /* ours split them (info_move_split) */
    long split_taken; /* ... and wrote their line */
} seen;

/* The oracle's record line: the rule of server/thinking.c before this reader. */
static void oracle_compact(const json_t *info, textbuf *out, bool *whole)
{
    json_t *o = json_object();
    const char *key;
    json_t *v;
    *whole = true;
    json_object_foreach((json_t *)info, key, v) {
        if (!strcmp(key, "text") || !strcmp(key, "nodes") || !strcmp(key, "depth") ||
            !strcmp(key, "turn")) {
            *whole = false;
            continue;
        }
        size_t keep = !strcmp(key, "candidates") ? 3 : !strcmp(key, "pv") ? 4 : 0;
        if (keep && json_array_size(v) > keep) {
            json_t *a = json_array();
            for (size_t i = 0; i < keep; i++)
                json_array_append(a, json_array_get(v, i));
            json_object_set_new(o, key, a);
            *whole = false;
        } else {
            json_object_set(o, key, v);
        }
    }
    assert_int_equal(jt_dump(out, o), 0);
    json_decref(o);
}

static void fail_line(const char *where, const char *what, const char *line, size_t len,
                      const char *got, const char *want)
{
    fail_msg("%s: %s\n  line: %.*s\n  ours:   %s\n  oracle: %s", where, what, (int)len, line,
             got ? got : "-", want ? want : "-");
}

/* A move carrying its line (docs/protocol.md, "A move that carries its
 * line"), the server's two ways: ours (info_move_split, then the move
 * without its line through proto_decode, the line through info_write) and
 * the oracle (proto_decode of the whole, info_body_check and info_read of
 * its "info"). Ours must split only what proto_decode takes, leave the
 * same move, and write only lines the oracle keeps, in its bytes. Returns
 * whether ours wrote the line. */
static bool compare_move(const char *where, const eng_game *g, const void *st, const char *msg,
                         size_t len, info_moves *mc)
{
    const game_codec *c = codec_find(g->name);
    seen.moves++;
    proto_msg m;
    json_t *id = NULL, *out = NULL;
    char err[256];
    int drc = proto_decode(msg, len, &m, &id, err, sizeof err);
    json_decref(id);
    bool ok = drc == 0 && m.type == PROTO_MOVE && m.info &&
              info_body_check(m.info, err, sizeof err) == 0 &&
              info_read(g, c, st, m.info, 0, &out, err, sizeof err) == 0;
    char rest[1024];
    size_t rlen = 0;
    info_parsed p;
    bool wrote = false;
    if (info_move_split(msg, len, rest, sizeof rest, &rlen, &p) == 0) {
        seen.split++;
        proto_msg r;
        json_t *rid = NULL;
        /* a move proto_decode refuses whole is refused without its line
         * alike (a turn of 0 …): the same error, and its line goes with it */
        char rerr[256];
        int rrc = proto_decode(rest, rlen, &r, &rid, rerr, sizeof rerr);
        if (drc != 0) {
            if (rrc != drc || strcmp(rerr, err) != 0)
                fail_line(where, "the move without its line is refused otherwise than whole", msg, len,
                          rest, rrc ? rerr : "(taken)");
            if (rrc == 0)
                proto_msg_free(&r);
            json_decref(rid);
            json_decref(out);
            return false;
        }
        snprintf(err, sizeof err, "%s", rerr);
        if (rrc != 0 || r.type != PROTO_MOVE ||
            r.info || !json_equal(r.move, m.move) || r.has_turn != m.has_turn ||
            r.turn != m.turn || !!r.match != !!m.match ||
            (r.id || m.id ? !json_equal(r.id, m.id) : false))
            fail_line(where, "the move without its line is not the move", msg, len, rest, err);
        proto_msg_free(&r);
        json_decref(rid);
        textbuf a = TEXTBUF_INIT, b = TEXTBUF_INIT;
        if (info_write(g, c, st, &p, mc, true, &a) == 0) {
            wrote = true;
            seen.split_taken++;
            if (!ok)
                fail_line(where, "ours wrote a move's line, the oracle drops it", msg, len, a.p, err);
            assert_int_equal(jt_dump(&b, out), 0);
            if (a.len != b.len || memcmp(a.p, b.p, a.len) != 0)
                fail_line(where, "a move's line: canonical texts differ", msg, len, a.p, b.p);
        }
        tb_free(&a);
        tb_free(&b);
    }
    if (drc == 0)
        proto_msg_free(&m);
    json_decref(out);
    return wrote;
}

/* An info line {"type":"info",...} as the body of a move, first or last of
 * its members: ours must take it as the line alone when it names none of
 * the envelope (match, seat, id) and was taken as a line. */
static void compare_as_move(const char *where, const eng_game *g, const void *st,
                            const char *line, size_t len, info_moves *mc, bool line_taken)
{
    static const char head[] = "{\"type\":\"info\"";
    size_t h = sizeof head - 1;
    if (len <= h || memcmp(line, head, h) != 0 || (line[h] != ',' && line[h] != '}'))
        return;
    textbuf body = TEXTBUF_INIT, msg = TEXTBUF_INIT;
    tb_puts(&body, "{");
    tb_put(&body, line + h + (line[h] == ','), len - h - (line[h] == ','));
    bool envelope = memmem(body.p, body.len, "\"match\"", 7) || memmem(body.p, body.len, "\"seat\"", 6) ||
                    memmem(body.p, body.len, "\"id\"", 4);
    for (int form = 0; form < 2; form++) {
        tb_reset(&msg);
        if (form == 0) {
            tb_puts(&msg, "{\"type\":\"move\",\"turn\":3,\"move\":{\"move\":\"d3\"},\"info\":");
            tb_put(&msg, body.p, body.len);
            tb_puts(&msg, "}");
        } else {
            tb_puts(&msg, "{\"info\":");
            tb_put(&msg, body.p, body.len);
            tb_puts(&msg, ", \"type\":\"move\",\"move\":{\"x\":1},\"id\":\"m-1\"}");
        }
        bool wrote = compare_move(where, g, st, msg.p, msg.len, mc);
        if (line_taken && !envelope && body.len <= INFO_MAX_BYTES && !wrote)
            fail_line(where, "taken as a line, declined in a move", msg.p, msg.len, NULL, NULL);
    }
    tb_free(&body);
    tb_free(&msg);
}

/* One line at st: ours against the oracle. */
static void compare(const char *where, const eng_game *g, const void *st, const char *line,
                    size_t len, info_moves *mc)
{
    const game_codec *c = codec_find(g->name);
    assert_non_null(c);
    seen.lines++;
    json_error_t e;
    json_t *root = json_loadb(line, len, JSON_REJECT_DUPLICATES, &e), *out = NULL;
    char err[256];
    int rc = root ? info_read(g, c, st, root, len, &out, err, sizeof err) : ENG_EBAD_JSON;
    seen.oracle_ok += rc == 0;

    info_parsed p;
    bool line_taken = false;
    if (info_parse(line, len, &p) == 0) {
        /* the envelope: what proto_decode reads of it */
        proto_msg m;
        json_t *id = NULL;
        int drc = proto_decode(line, len, &m, &id, err, sizeof err);
        if (drc != 0 || m.type != PROTO_INFO)
            fail_line(where, "read by info_parse, refused by proto_decode", line, len, NULL, err);
        proto_msg v; /* what the server hands on in its place */
        info_envelope(&p, &v);
        if (!!v.match != !!m.match || (m.match && strcmp(m.match, v.match) != 0) ||
            v.has_seat != m.has_seat || (m.has_seat && m.seat != v.seat) ||
            v.has_turn != m.has_turn || (m.has_turn && m.turn != v.turn) ||
            v.type != m.type || v.bytes != m.bytes || v.id || m.id)
            fail_line(where, "envelope differs from proto_decode's", line, len, NULL, NULL);
        proto_msg_free(&m);
        json_decref(id);

        textbuf a = {0}, b = {0}, t = {0};
        for (int pass = 0; pass < 2; pass++) { /* cold, then (mc) warm */
            tb_reset(&a);
            if (info_write(g, c, st, &p, mc, true, &a) != 0) {
                if (pass == 1)
                    fail_line(where, "written cold, declined warm", line, len, NULL, NULL);
                break;
            }
            if (pass == 0)
                seen.taken++;
            line_taken = true;
            tb_reset(&b);
            if (rc != 0)
                fail_line(where, "ours wrote it, the oracle drops it", line, len, a.p, err);
            assert_int_equal(jt_dump(&b, out), 0);
            if (a.len != b.len || memcmp(a.p, b.p, a.len) != 0)
                fail_line(where, "canonical texts differ", line, len, a.p, b.p);
            /* without the turn, as the server keeps it */
            json_t *noturn = json_deep_copy(out);
            json_object_del(noturn, "turn");
            tb_reset(&a);
            tb_reset(&b);
            assert_int_equal(info_write(g, c, st, &p, mc, false, &a), 0);
            assert_int_equal(jt_dump(&b, noturn), 0);
            if (a.len != b.len || memcmp(a.p, b.p, a.len) != 0)
                fail_line(where, "texts without turn differ", line, len, a.p, b.p);
            json_decref(noturn);
            /* a line the server keeps as its own record line needs no cut */
            if (info_parsed_compact(&p, 3, 4)) {
                tb_reset(&t);
                if (info_compact(a.p, a.len, 3, 4, &t) != 1 || t.len != a.len ||
                    memcmp(t.p, a.p, a.len) != 0)
                    fail_line(where, "called its own record line, but cut", line, len, t.p, a.p);
            }
            /* the record's line */
            tb_reset(&b);
            tb_reset(&t);
            bool whole;
            oracle_compact(out, &b, &whole);
            tb_reset(&a);
            assert_int_equal(info_write(g, c, st, &p, mc, true, &a), 0);
            int w = info_compact(a.p, a.len, 3, 4, &t);
            if (w != (int)whole || t.len != b.len || memcmp(t.p, b.p, t.len) != 0)
                fail_line(where, "record lines differ", line, len, t.p, b.p);
            if (!mc)
                break;
        }
        tb_free(&a);
        tb_free(&b);
        tb_free(&t);
    }
    json_decref(out);
    json_decref(root);
    if (len > 14 && memcmp(line, "{\"type\":\"move\"", 14) == 0)
        compare_move(where, g, st, line, len, mc); /* a case of a move carrying its line */
    else
        compare_as_move(where, g, st, line, len, mc, line_taken);
}

/* mc at st, named key, with the legal moves' text as the server has it
 * (the your_turn it wrote: by the codec's legal_text when it has one)
 * where the codec's entries are moves. */
static void moves_at(info_moves *mc, uint64_t key, const eng_game *g, const void *st)
{
    const game_codec *c = codec_find(g->name);
    info_moves_at(mc, key);
    if (c->pick_entry || g->current_player(st) < 0)
        return;
    json_t *legal = c->legal(st);
    textbuf t = TEXTBUF_INIT, want = TEXTBUF_INIT;
    if (c->legal_text)
        assert_int_equal(info_legal_write(&t, c, st, g->max_moves, mc, key), 0);
    else
        assert_int_equal(info_legal_dump(&t, legal, mc, key), 0);
    assert_int_equal(jt_dump(&want, legal), 0); /* the your_turn's bytes, as before */
    assert_true(t.len == want.len && memcmp(t.p, want.p, t.len) == 0);
    assert_int_equal(mc->nlegal, (int)json_array_size(legal));
    for (int i = 0; i < mc->nlegal; i++) { /* each entry kept as its own text */
        textbuf e = TEXTBUF_INIT;
        assert_int_equal(jt_dump(&e, json_array_get(legal, (size_t)i)), 0);
        assert_int_equal(mc->legal[i][1], e.len);
        assert_memory_equal(mc->text.p + mc->legal[i][0], e.p, e.len);
        tb_free(&e);
    }
    tb_free(&t);
    tb_free(&want);
    json_decref(legal);
}

/* ---- the info cases ---------------------------------------------------------------------- */

static void *case_position(const char *text, const eng_game **gout)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", text);
    char *save = NULL, *tok = strtok_r(buf, " \t\r\n", &save);
    const eng_game *g = tok ? eng_find_game(tok) : NULL;
    assert_non_null(g);
    eng_rules r;
    eng_rules_default(g, &r);
    void *st = malloc(g->state_size);
    char err[256];
    assert_int_equal(eng_init(g, st, &r, err, sizeof err), 0);
    uint64_t k = 0;
    for (;;) {
        while (g->current_player(st) == ENG_CHANCE)
            g->apply(st, eng_chance_draw(g, st, 1, k++));
        tok = strtok_r(NULL, " \t\r\n", &save);
        if (!tok)
            break;
        eng_move m;
        assert_int_equal(g->move_from_str(st, tok, &m), 0);
        g->apply(st, m);
    }
    *gout = g;
    return st;
}

static void test_cases(void **state)
{
    (void)state;
    DIR *d = opendir(cases_dir);
    assert_non_null(d);
    struct dirent *de;
    int n = 0;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.' || strchr(de->d_name, '.'))
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s/position", cases_dir, de->d_name);
        char *pos = case_slurp(path, NULL);
        if (!pos)
            continue;
        const eng_game *g;
        void *st = case_position(pos, &g);
        size_t len;
        snprintf(path, sizeof path, "%s/%s/input", cases_dir, de->d_name);
        char *in = case_slurp(path, &len);
        assert_non_null(in);
        while (len && in[len - 1] == '\n')
            len--;
        compare(de->d_name, g, st, in, len, NULL);
        info_moves mc = {0};
        moves_at(&mc, 1, g, st);
        compare(de->d_name, g, st, in, len, &mc);
        info_moves_free(&mc);
        free(in);
        free(pos);
        free(st);
        n++;
    }
    closedir(d);
    assert_true(n >= 20);
}

/* ---- the fuzz corpus --------------------------------------------------------------------- */

static const char *const games[] = {"reversi", "carcassonne", "dodgem", "pentago-twist"};

/* fuzz_info's position: the first byte picks the game and the turns played. */
static void *fuzz_position(uint8_t b, const eng_game **gout)
{
    const eng_game *g = eng_find_game(games[b & 3]);
    eng_rules r;
    eng_rules_default(g, &r);
    unsigned char *st = malloc(g->state_size);
    char err[256];
    assert_int_equal(eng_init(g, st, &r, err, sizeof err), 0);
    eng_rng rng;
    eng_rng_seed(&rng, 7);
    for (int turns = b >> 2; g->current_player(st) != ENG_TERMINAL;) {
        while (g->current_player(st) == ENG_CHANCE)
            g->apply(st, eng_sample_chance(g, st, &rng));
        if (turns-- <= 0 || g->current_player(st) < 0)
            break;
        g->apply(st, eng_random_move(g, st, &rng));
    }
    *gout = g;
    return st;
}

static void test_corpus(void **state)
{
    (void)state;
    DIR *d = opendir(corpus_dir);
    assert_non_null(d);
    struct dirent *de;
    int n = 0;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        char path[4096];
        size_t len;
        snprintf(path, sizeof path, "%s/%s", corpus_dir, de->d_name);
        char *data = case_slurp(path, &len);
        if (!data || len < 1) {
            free(data);
            continue;
        }
        const eng_game *g;
        void *st = fuzz_position((uint8_t)data[0], &g);
        if (g->current_player(st) >= 0) {
            compare(de->d_name, g, st, data + 1, len - 1, NULL);
            info_moves mc = {0};
            moves_at(&mc, 1, g, st);
            compare(de->d_name, g, st, data + 1, len - 1, &mc);
            info_moves_free(&mc);
        }
        free(st);
        free(data);
        n++;
    }
    closedir(d);
    assert_true(n >= 20);
}

/* ---- generated lines --------------------------------------------------------------------- */

/* A legal move at st as a bot writes it (an entry of `legal`, one picked
 * where it stands for several), its text appended to b; its engine moves
 * applied to st when apply. */
static void random_move(const game_codec *c, const eng_game *g, void *st, eng_rng *rng,
                        textbuf *b, bool apply, bool as_entry)
{
    json_t *legal = c->legal(st);
    size_t n = json_array_size(legal);
    if (n == 0)
        fail_msg("%s: no legal moves at a position of a seat to move (%d)", g->name,
                 g->current_player(st));
    json_t *e = json_array_get(legal, eng_rng_below(rng, (uint32_t)n));
    eng_rng_seed(rng, eng_rng_next(rng));
    json_t *mv = c->pick_entry && !as_entry ? c->pick_entry(e, rng) : json_incref(e);
    jt_dump(b, mv);
    if (apply) {
        eng_move m[ENG_MAX_TURN_MOVES];
        char err[200];
        int k = c->parse_move(st, mv, m, err, sizeof err);
        assert_true(k > 0);
        for (int i = 0; i < k; i++)
            g->apply(st, m[i]);
    }
    json_decref(mv);
    json_decref(legal);
}

static void random_number(eng_rng *rng, textbuf *b, bool odd)
{
    char t[64];
    switch (eng_rng_below(rng, odd ? 9 : 4)) {
    case 0: snprintf(t, sizeof t, "%u", eng_rng_below(rng, odd ? 1000 : 2)); break;
    case 1: snprintf(t, sizeof t, "0.%u", eng_rng_below(rng, 1000)); break;
    case 2: { /* 17 digits: strtod's; 15: read exactly without it */
        double x = (double)eng_rng_next(rng) / 18446744073709551616.0;
        if (eng_rng_below(rng, 2))
            snprintf(t, sizeof t, "%.17g", x);
        else
            snprintf(t, sizeof t, "%.15g", x);
        break;
    }
    case 3: snprintf(t, sizeof t, "%u.%u", eng_rng_below(rng, odd ? 50 : 1), eng_rng_below(rng, 100)); break;
    case 4: snprintf(t, sizeof t, "-%u.5", eng_rng_below(rng, 3)); break;
    case 5: snprintf(t, sizeof t, "%ue%d", eng_rng_below(rng, 9), (int)eng_rng_below(rng, 40) - 20); break;
    case 6: snprintf(t, sizeof t, "%llu", (unsigned long long)eng_rng_next(rng)); break;
    case 7: snprintf(t, sizeof t, "1e400"); break;
    default: snprintf(t, sizeof t, "\"%u\"", eng_rng_below(rng, 9)); break;
    }
    tb_puts(b, t);
}

/* One info line at st: good as bots write them, or (odd) with a twist. */
static void random_line(const game_codec *c, const eng_game *g, const void *st, eng_rng *rng,
                        bool odd, textbuf *b)
{
    static const char *const fields[] = {"score",      "winprob", "candidates", "pv",  "iterations",
                                         "nodes",      "depth",   "elapsed_ms", "text", "turn",
                                         "match",      "seat"};
    tb_puts(b, "{\"type\":\"info\"");
    for (int f = 0; f < 12; f++) {
        if (eng_rng_below(rng, 3) == 0)
            continue;
        tb_puts(b, eng_rng_below(rng, 8) == 0 ? ", \"" : ",\"");
        tb_puts(b, fields[f]);
        tb_puts(b, "\":");
        switch (f) {
        case 0:
        case 1: random_number(rng, b, odd); break;
        case 2: {
            int n = (int)eng_rng_below(rng, odd ? 11 : 6);
            tb_puts(b, "[");
            for (int i = 0; i < n; i++) {
                tb_puts(b, i ? ",{\"move\":" : "{\"move\":");
                unsigned char *s = malloc(g->state_size);
                memcpy(s, st, g->state_size);
                random_move(c, g, s, rng, b, false, odd && eng_rng_below(rng, 3) == 0);
                free(s);
                if (eng_rng_below(rng, 2))
                    tb_printf(b, ",\"visits\":%u", eng_rng_below(rng, 5000));
                if (eng_rng_below(rng, 3) == 0) {
                    tb_puts(b, ",\"weight\":");
                    random_number(rng, b, odd);
                }
                if (eng_rng_below(rng, 2)) {
                    tb_puts(b, ",\"winprob\":");
                    random_number(rng, b, odd);
                }
                if (eng_rng_below(rng, 3) == 0) {
                    tb_puts(b, ",\"score\":");
                    random_number(rng, b, odd);
                }
                tb_puts(b, "}");
            }
            tb_puts(b, "]");
            break;
        }
        case 3: {
            int n = (int)eng_rng_below(rng, 20);
            unsigned char *s = malloc(g->state_size);
            memcpy(s, st, g->state_size);
            tb_puts(b, "[");
            for (int i = 0; i < n && g->current_player(s) >= 0; i++) {
                if (i)
                    tb_puts(b, ",");
                random_move(c, g, s, rng, b, true, false);
                while (g->current_player(s) == ENG_CHANCE)
                    g->apply(s, eng_sample_chance(g, s, rng));
            }
            tb_puts(b, "]");
            free(s);
            break;
        }
        case 4:
        case 5: tb_printf(b, "%u", eng_rng_below(rng, 1000000)); break;
        case 6:
        case 7: tb_printf(b, "%u", eng_rng_below(rng, 100)); break;
        case 8: {
            tb_puts(b, "\"");
            int n = (int)eng_rng_below(rng, eng_rng_below(rng, 8) == 0 ? 400 : 40);
            for (int i = 0; i < n; i++) {
                char ch = (char)(' ' + eng_rng_below(rng, 95));
                if (ch == '"' || ch == '\\')
                    tb_puts(b, odd ? "\\\"" : "x");
                else
                    tb_put(b, &ch, 1);
            }
            tb_puts(b, odd && eng_rng_below(rng, 3) == 0 ? "\\u00e9\\t\"" : "\"");
            break;
        }
        case 9: tb_printf(b, "%u", eng_rng_below(rng, 3) + !odd); break;
        case 10: tb_puts(b, odd && eng_rng_below(rng, 4) == 0 ? "\"m 1\"" : "\"m-000123\""); break;
        default: tb_printf(b, "%u", eng_rng_below(rng, odd ? 6 : 2)); break;
        }
    }
    if (odd && eng_rng_below(rng, 4) == 0)
        tb_puts(b, eng_rng_below(rng, 2) ? ",\"id\":7" : ",\"score\":1");
    tb_puts(b, "}");
    if (odd && eng_rng_below(rng, 3) == 0 && b->len > 2) { /* a byte changed, dropped or added */
        size_t at = eng_rng_below(rng, (uint32_t)b->len);
        switch (eng_rng_below(rng, 3)) {
        case 0: b->p[at] = (char)eng_rng_below(rng, 128); break;
        case 1:
            memmove(b->p + at, b->p + at + 1, b->len - at - 1);
            b->len--;
            break;
        default: b->p[at] = " ,:{}[]\"0-"[eng_rng_below(rng, 10)]; break;
        }
    }
}

static void test_generated(void **state)
{
    (void)state;
    eng_rng rng;
    eng_rng_seed(&rng, 27);
    textbuf b = {0};
    long good = 0, good_taken = 0;
    for (int round = 0; round < 160; round++) {
        const eng_game *g = eng_find_game(games[round & 3]);
        const game_codec *c = codec_find(g->name);
        eng_rules r;
        eng_rules_default(g, &r);
        unsigned char *st = malloc(g->state_size);
        char err[256];
        assert_int_equal(eng_init(g, st, &r, err, sizeof err), 0);
        int turns = (int)eng_rng_below(&rng, 40);
        for (;;) {
            while (g->current_player(st) == ENG_CHANCE)
                g->apply(st, eng_sample_chance(g, st, &rng));
            if (turns-- <= 0 || g->current_player(st) < 0)
                break;
            eng_move mv[ENG_MAX_TURN_MOVES];
            eng_random_turn(g, st, &rng, mv); /* whole turns: a position a seat is asked at */
        }
        if (g->current_player(st) < 0) {
            free(st);
            continue;
        }
        info_moves mc = {0};
        moves_at(&mc, (uint64_t)round + 1, g, st);
        for (int i = 0; i < 16; i++) {
            bool odd = i % 2 == 1;
            tb_reset(&b);
            random_line(c, g, st, &rng, odd, &b);
            long taken = seen.taken, ok = seen.oracle_ok;
            compare("generated", g, st, b.p, b.len, i % 4 < 2 ? &mc : NULL);
            if (!odd && seen.oracle_ok > ok) {
                good++;
                good_taken += seen.taken > taken;
            }
        }
        info_moves_free(&mc);
        free(st);
    }
    tb_free(&b);
    print_message("info_text: %ld lines compared, %ld written by ours, %ld kept by the oracle; "
                  "ours took %ld of the %ld good generated lines the oracle kept; %ld moves "
                  "carrying a line, %ld split by ours, %ld of their lines written\n",
                  seen.lines, seen.taken, seen.oracle_ok, good_taken, good, seen.moves, seen.split,
                  seen.split_taken);
    assert_true(seen.split_taken >= 250); /* most generated lines name match or seat */
    assert_true(good > 500);
    /* the good lines ours leaves to the oracle: texts cut past 256 bytes are
     * taken too; none should be declined */
    assert_int_equal(good_taken, good);
}

/* What a legal-text hit takes for granted: where a codec's entries are
 * moves, each entry's text is the codec's canonical text of that move (read
 * and written back, the same bytes). */
static void test_legal_entries_canonical(void **state)
{
    (void)state;
    eng_rng rng;
    eng_rng_seed(&rng, 26);
    int checked = 0;
    for (int round = 0; round < 80; round++) {
        const eng_game *g = eng_find_game(games[round & 3]);
        const game_codec *c = codec_find(g->name);
        if (c->pick_entry)
            continue;
        eng_rules r;
        eng_rules_default(g, &r);
        unsigned char *st = malloc(g->state_size);
        char err[256];
        assert_int_equal(eng_init(g, st, &r, err, sizeof err), 0);
        for (int turns = (int)eng_rng_below(&rng, 50); turns > 0 && g->current_player(st) >= 0;
             turns--) {
            eng_move mv[ENG_MAX_TURN_MOVES];
            eng_random_turn(g, st, &rng, mv);
            while (g->current_player(st) == ENG_CHANCE)
                g->apply(st, eng_sample_chance(g, st, &rng));
        }
        if (g->current_player(st) >= 0) {
            json_t *legal = c->legal(st), *e;
            size_t i;
            json_array_foreach(legal, i, e) {
                eng_move mv[ENG_MAX_TURN_MOVES];
                int k = c->parse_move(st, e, mv, err, sizeof err);
                if (k <= 0)
                    fail_msg("%s: a legal entry is refused: %s", g->name, err);
                json_t *back = c->format_move(st, mv, k);
                textbuf a = TEXTBUF_INIT, b = TEXTBUF_INIT;
                assert_int_equal(jt_dump(&a, e), 0);
                assert_int_equal(jt_dump(&b, back), 0);
                if (a.len != b.len || memcmp(a.p, b.p, a.len) != 0)
                    fail_msg("%s: legal entry %s is written back %s", g->name, a.p, b.p);
                tb_free(&a);
                tb_free(&b);
                json_decref(back);
                checked++;
            }
            json_decref(legal);
        }
        free(st);
    }
    assert_true(checked > 500);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s INFO_CASES_DIR FUZZ_CORPUS_DIR\n", argv[0]);
        return 2;
    }
    cases_dir = argv[1];
    corpus_dir = argv[2];
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_cases), cmocka_unit_test(test_corpus),
                                       cmocka_unit_test(test_generated),
                                       cmocka_unit_test(test_legal_entries_canonical)};
    return cmocka_run_group_tests_name("info_text", tests, NULL, NULL);
}
