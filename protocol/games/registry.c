/*
 * registry.c (protocol) — the registry of game codecs (protocol/codec.h):
 * one line per game in CODECS below, the name of its `const game_codec` in
 * protocol/games/<game>.c. Every generic part of tessera (records, the
 * wire, the stdio protocol, the server, the clients) finds a game's JSON
 * here by the game's engine name; test_codecs checks that every registered
 * engine game has a codec and that each codec keeps its contract.
 */
#include <string.h>

#include "common.h"

#define CODECS(X)                                                                                   \
    X(codec_carcassonne)                                                                           \
    X(codec_reversi)                                                                               \
    X(codec_dodgem)                                                                                \
    X(codec_pentago)

#define DECLARE_(v) extern const game_codec v;
#define ENTRY_(v)   &v,
CODECS(DECLARE_)
static const game_codec *const codecs[] = {CODECS(ENTRY_)};
#undef DECLARE_
#undef ENTRY_

const game_codec *const *codec_all(int *n)
{
    *n = (int)(sizeof codecs / sizeof codecs[0]);
    return codecs;
}

const game_codec *codec_find(const char *game)
{
    if (!game)
        return NULL;
    for (size_t i = 0; i < sizeof codecs / sizeof codecs[0]; i++)
        if (strcmp(codecs[i]->game, game) == 0)
            return codecs[i];
    return NULL;
}

const char *codec_no_decision(const game_codec *c)
{
    return c && c->no_decision ? c->no_decision : "no decision";
}
