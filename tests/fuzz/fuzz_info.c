/*
 * fuzz_info.c — libFuzzer target for the thinking lines' check (info_read,
 * protocol/info.h), what tessera does with every `info` line a program or a
 * client sends while it thinks.
 *
 * The first byte picks the game (and how many random turns from its start
 * the position is, so that the candidates meet boards of every kind); the
 * rest is the line, read by stdio_decode() as a program's would be. Beyond
 * "no crash, no leak, no UB" (ASan/UBSan), the target aborts when the
 * contract is broken: a failure is a documented code with a printable
 * reason and nothing returned; a success is an object of known fields only,
 * at most INFO_MAX_CANDIDATES candidates and INFO_MAX_PV moves, every move
 * legal where it stands, and a fixed point (read again, the same).
 *
 * The same line also goes to our own reader (protocol/infotext.h, which
 * the server uses for a client's plain lines), cold and with the turn's
 * legal moves kept: whatever it writes, the general way (jansson, then
 * info_read) must keep too, with the same bytes (test_info_text does the
 * same over the corpus and generated lines); and a move that carries the
 * line goes through the server's split of it (split()).
 *
 * Build and run: scripts/fuzz.sh [SECONDS] info — see tests/fuzz/CMakeLists.txt.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/info.h"
#include "protocol/infotext.h"
#include "protocol/stdio.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(bool ok)
{
    if (!ok)
        abort();
}

static bool printable(const char *s)
{
    size_t n = strlen(s);
    if (!n)
        return false;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e)
            return false;
    return true;
}

static const char *const known[] = {"turn",  "score",      "winprob",    "candidates", "pv",
                                    "nodes", "iterations", "elapsed_ms", "depth",      "text"};

/* Our own reader against the general way, on line[0..n) at st. */
static void differ(const eng_game *g, const game_codec *c, const void *st, const char *line,
                   size_t n)
{
    info_parsed ip;
    if (info_parse(line, n, &ip) != 0)
        return;
    info_moves mc = {0};
    info_moves_at(&mc, 1);
    if (!c->pick_entry) {
        json_t *legal = c->legal(st);
        textbuf lt = TEXTBUF_INIT;
        check(legal && info_legal_dump(&lt, legal, &mc, 1) == 0);
        tb_free(&lt);
        json_decref(legal);
    }
    for (int pass = 0; pass < 2; pass++) {
        textbuf t = TEXTBUF_INIT;
        if (info_write(g, c, st, &ip, pass ? &mc : NULL, true, &t) == 0) {
            json_error_t e;
            json_t *root = json_loadb(line, n, JSON_REJECT_DUPLICATES, &e), *o = NULL;
            char err[256];
            check(root && info_read(g, c, st, root, n, &o, err, sizeof err) == 0);
            textbuf u = TEXTBUF_INIT;
            check(jt_dump(&u, o) == 0 && u.len == t.len && memcmp(u.p, t.p, t.len) == 0);
            tb_free(&u);
            json_decref(o);
            json_decref(root);
        }
        tb_free(&t);
    }
    info_moves_free(&mc);
}

/* A move carrying its line (docs/protocol.md, "A move that carries its
 * line") as the server splits it (info_move_split): the whole message and
 * the move without its line both decode, to the same move; a line ours
 * writes, the general way (info_body_check, info_read) keeps, in its bytes. */
static void split(const eng_game *g, const game_codec *c, const void *st, const char *msg,
                  size_t n)
{
    char rest[1024], err[256];
    size_t rl = 0;
    info_parsed ip;
    if (info_move_split(msg, n, rest, sizeof rest, &rl, &ip) != 0)
        return;
    proto_msg m, r;
    /* the move without its line is refused exactly when the whole is (a
     * turn of 0, a move of the wrong shape: the server answers the same) */
    bool whole = proto_decode(msg, n, &m, NULL, err, sizeof err) == 0;
    bool part = proto_decode(rest, rl, &r, NULL, err, sizeof err) == 0;
    check(whole == part);
    if (!whole)
        return;
    check(m.type == PROTO_MOVE && m.info && r.type == PROTO_MOVE && !r.info && json_equal(r.move, m.move));
    textbuf t = TEXTBUF_INIT;
    if (info_write(g, c, st, &ip, NULL, true, &t) == 0) {
        json_t *o = NULL;
        check(info_body_check(m.info, err, sizeof err) == 0 &&
              info_read(g, c, st, m.info, 0, &o, err, sizeof err) == 0);
        textbuf u = TEXTBUF_INIT;
        check(jt_dump(&u, o) == 0 && u.len == t.len && memcmp(u.p, t.p, t.len) == 0);
        tb_free(&u);
        json_decref(o);
    }
    tb_free(&t);
    proto_msg_free(&m);
    proto_msg_free(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    static const char *const games[] = {"reversi", "carcassonne", "dodgem", "pentago-twist"};
    const eng_game *g = eng_find_game(games[data[0] & 3]);
    const game_codec *c = codec_find(g->name);
    check(g && c);
    eng_rules r;
    eng_rules_default(g, &r);
    unsigned char *st = malloc(g->state_size);
    char err[256];
    check(st && eng_init(g, st, &r, err, sizeof err) == 0);
    eng_rng rng;
    eng_rng_seed(&rng, 7);
    for (int turns = data[0] >> 2; g->current_player(st) != ENG_TERMINAL;) {
        while (g->current_player(st) == ENG_CHANCE)
            g->apply(st, eng_sample_chance(g, st, &rng));
        if (turns-- <= 0 || g->current_player(st) < 0)
            break;
        g->apply(st, eng_random_move(g, st, &rng));
    }
    if (g->current_player(st) < 0) {
        free(st);
        return 0;
    }
    differ(g, c, st, (const char *)data + 1, size - 1);
    split(g, c, st, (const char *)data + 1, size - 1);
    stdio_reply rp;
    if (stdio_decode((const char *)data + 1, size - 1, 0, &rp, err, sizeof err) != 0 ||
        rp.type != STDIO_INFO) {
        if (rp.root)
            stdio_reply_free(&rp);
        free(st);
        return 0;
    }
    json_t *out = NULL;
    int rc = info_read(g, c, st, rp.root, rp.len, &out, err, sizeof err);
    if (rc) {
        check(rc == ENG_ETOO_LARGE || rc == ENG_EBAD_MESSAGE || rc == ENG_EBAD_MOVE ||
              rc == ENG_EILLEGAL_MOVE || rc == ENG_ENOMEM);
        check(out == NULL && printable(err));
    } else {
        check(json_is_object(out));
        const char *k;
        json_t *v;
        json_object_foreach(out, k, v)
        {
            bool ok = false;
            for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
                ok |= strcmp(k, known[i]) == 0;
            check(ok);
        }
        check(json_array_size(json_object_get(out, "candidates")) <= INFO_MAX_CANDIDATES);
        check(json_array_size(json_object_get(out, "pv")) <= INFO_MAX_PV);
        size_t i;
        json_array_foreach(json_object_get(out, "candidates"), i, v)
        {
            eng_move mv[ENG_MAX_TURN_MOVES];
            check(c->parse_move(st, json_object_get(v, "move"), mv, err, sizeof err) > 0);
        }
        json_t *again = NULL;
        check(info_read(g, c, st, out, 0, &again, err, sizeof err) == 0);
        check(json_equal(again, out));
        json_decref(again);
        json_decref(out);
    }
    stdio_reply_free(&rp);
    free(st);
    return 0;
}
