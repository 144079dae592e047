/*
 * cmd_bots.c — `tessera bots`: every registered bot, its options, their
 * defaults and ranges, and the options every bot accepts (bot_catalogue).
 * Bots register themselves in bots/bot.c, so the list grows on its own.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bots/bot.h"
#include "cli.h"

int cmd_bots(int argc, char **argv)
{
    if (argc > 1)
        return cli_usage_error("bots", "unexpected argument '%s'", argv[1]);
    int need = bot_catalogue(NULL, 0);
    char *buf = need >= 0 ? malloc((size_t)need + 1) : NULL;
    if (!buf) {
        fprintf(stderr, "tessera bots: out of memory\n");
        return CLI_FAIL;
    }
    bot_catalogue(buf, (size_t)need + 1);
    fputs(buf, stdout);
    printf("\nA bot is named by a spec: NAME or NAME:KEY=VALUE,KEY=VALUE,...\n"
           "e.g. random, or random:seed=7 (see `tessera match --help`).\n");
    free(buf);
    return CLI_OK;
}
