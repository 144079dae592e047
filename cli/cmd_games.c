/*
 * cmd_games.c — `tessera games`: the registered games and their rule options.
 */
#include <stdio.h>

#include "cli.h"

int cmd_games(int argc, char **argv)
{
    (void)argv;
    if (argc > 1)
        return cli_usage_error("games", "takes no arguments");
    int n;
    const eng_game *const *all = eng_games(&n);
    for (int i = 0; i < n; i++) {
        const eng_game *g = all[i];
        printf("%-14s %s, %d", g->name, g->title, g->min_players);
        if (g->max_players != g->min_players)
            printf("-%d", g->max_players);
        printf(" players (default %d)%s\n", g->default_players,
               g->max_chance ? ", with chance" : "");
        for (int k = 0; k < g->n_options; k++) {
            const eng_option *o = &g->options[k];
            if (o->boolean)
                printf("  --rule %s=%s   %s\n", o->name, o->def ? "true" : "false", o->help);
            else
                printf("  --rule %s=%d   %s\n", o->name, (int)o->def, o->help);
        }
    }
    return CLI_OK;
}
