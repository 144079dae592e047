/*
 * cmd_games.c — `tessera games`: the registered games and their rule options,
 * as text or (--json) as the server's list_games reply, the published game
 * data kits load (kit/python/tessera_kit/data/games.json is this output).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "protocol/codec.h"
#include "protocol/wire.h"

/* {"type":"games","games":[...]}: what list_games answers (server/handlers.c). */
static int print_json(void)
{
    int n;
    const eng_game *const *all = eng_games(&n);
    json_t *arr = json_array();
    for (int i = 0; i < n; i++)
        if (codec_find(all[i]->name))
            json_array_append_new(arr, wire_game_entry(all[i]));
    json_t *o = json_pack("{s:s, s:o}", "type", "games", "games", arr);
    char *text = json_dumps(o, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    json_decref(o);
    if (!text) {
        fprintf(stderr, "tessera games: out of memory\n");
        return CLI_FAIL;
    }
    puts(text);
    free(text);
    return CLI_OK;
}

int cmd_games(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--json") == 0)
        return print_json();
    if (argc > 1)
        return cli_usage_error("games", "unknown argument '%s' (only --json)", argv[1]);
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
