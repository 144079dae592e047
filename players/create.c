/*
 * create.c — a player made from its spec (player.h: player_create): the
 * spec's prefix picks the kind ("cmd:" and "cmd-stateless:" an external
 * program, program.c; anything else an in-process bot, bot_player.c), and
 * the kind fills in its part. The one file that knows every kind: the kinds
 * stand on player.c, and player.c on none of them.
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

player *player_create(const char *spec, const eng_game *g, const player_config *cfg, char *err,
                      size_t errcap)
{
    if (!spec || !g) {
        eng_seterr(err, errcap, ENG_EINVAL, "no spec or no game");
        return NULL;
    }
    if (strlen(spec) >= PLAYER_SPEC_MAX) {
        eng_seterr(err, errcap, ENG_EINVAL, "the spec is longer than %d bytes",
                   PLAYER_SPEC_MAX - 1);
        return NULL;
    }
    player *p = calloc(1, sizeof *p);
    if (!p) {
        eng_seterr(err, errcap, ENG_ENOMEM, "out of memory");
        return NULL;
    }
    if (cfg)
        p->cfg = *cfg;
    else
        player_config_default(&p->cfg);
    sandbox_limits_normalize(&p->cfg.limits);
    if (p->cfg.time_control)
        p->cfg.time_control = json_deep_copy(p->cfg.time_control);
    if (p->cfg.extra_fields)
        p->cfg.extra_fields = json_deep_copy(p->cfg.extra_fields);
    p->g = g;
    p->seat = -1;
    snprintf(p->spec, sizeof p->spec, "%s", spec);
    int rc;
    if (strncmp(spec, "cmd:", 4) == 0)
        rc = player__program_init(p, spec + 4, false, err, errcap);
    else if (strncmp(spec, "cmd-stateless:", 14) == 0)
        rc = player__program_init(p, spec + 14, true, err, errcap);
    else
        rc = player__bot_init(p, spec, err, errcap);
    if (rc) {
        json_decref((json_t *)p->cfg.time_control);
        json_decref((json_t *)p->cfg.extra_fields);
        free(p);
        return NULL;
    }
    return p;
}
