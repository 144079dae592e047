/*
 * cmd_games.c — `tessera games`: the registered games and their rule
 * options for people, and with --json the game's static data for programs:
 * the very `games` message a server sends in reply to list_games
 * (protocol/wire.c builds both), Carcassonne's tile model included — every
 * tile's port map, count, pennant and which cities each field touches — so a
 * bot need not type the tiles in from docs/rules.md; the published game data
 * kits load (kit/python/tessera_kit/data/games.json is this output).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "protocol/wire.h"

const char cmd_games_usage[] =
    "usage: tessera games [--json]\n"
    "\n"
    "Lists every game the server and the tools play, with its player counts and its\n"
    "rule options (name, default, range): what --rule K=V and create_match's rules take.\n"
    "  --json   print the games as one JSON object, the server's reply to list_games\n"
    "           (docs/protocol.md): rules, and for Carcassonne the tile model (each\n"
    "           tile's count, port map, pennant and the cities its fields touch)\n";

static int print_json(void)
{
    json_t *o = json_pack("{s:s, s:o}", "type", "games", "games", wire_games_json());
    char *text = o ? json_dumps(o, JSON_INDENT(1) | JSON_PRESERVE_ORDER) : NULL;
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
        return cli_usage_error("games", "%s: the only option is --json", argv[1]);
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
    printf("(tessera games --json: the same for programs, with Carcassonne's tile model)\n");
    return CLI_OK;
}
