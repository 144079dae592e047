/*
 * kinds.c — which kinds of player there are, and the spec that names each
 * (player_create, player.h). The top of players/: it knows every kind
 * (bot_player.c, program.c) and the shared part (player.c), and nothing
 * below calls up to it. A new kind is one file with its vtable and one row
 * here.
 */
#include "internal.h"

#include <string.h>

typedef struct kind {
    const char *prefix; /* the spec starts with it ("" matches every spec) */
    int (*init)(player *p, const char *rest, char *err, size_t errcap);
} kind;

static int long_running(player *p, const char *cmdline, char *err, size_t errcap)
{
    return player__program_init(p, cmdline, false, err, errcap);
}

static int stateless(player *p, const char *cmdline, char *err, size_t errcap)
{
    return player__program_init(p, cmdline, true, err, errcap);
}

/* In order: the first prefix that matches decides. */
static const kind kinds[] = {
    {"cmd:", long_running},
    {"cmd-stateless:", stateless},
    {"", player__bot_init}, /* a bot spec, "bot:" or not */
};

player *player_create(const char *spec, const eng_game *g, const player_config *cfg, char *err,
                      size_t errcap)
{
    player *p = player__alloc(spec, g, cfg, err, errcap);
    if (!p)
        return NULL;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        size_t n = strlen(kinds[i].prefix);
        if (strncmp(spec, kinds[i].prefix, n) != 0)
            continue;
        if (kinds[i].init(p, spec + n, err, errcap) != 0) {
            player__free(p);
            return NULL;
        }
        return p;
    }
    player__free(p);
    return NULL; /* not reached: the last kind takes every spec */
}
