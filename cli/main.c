/*
 * main.c — `tessera`, the user's front door: dispatches subcommands and
 * prints help. Each subcommand lives in its own cmd_*.c file; the argument
 * helpers they share are in args.c, below them all.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "server/analyze_main.h"

const cli_command cli_commands[] = {
    {"play", "play a game with uniformly random players; print, render or record it",
     "usage: tessera play GAME [--players P] [--seed S] [--rule K=V]... [--record FILE]\n"
     "                         [--render] [--trace]\n"
     "\n"
     "Plays one game of GAME with the uniform random policy for every seat. Players\n"
     "are shown as P1, P2, ... (P1 = seat 0 of the record, the first to move).\n"
     "  --players P    number of seats (game default if omitted)\n"
     "  --seed S       random seed (default: from the clock; printed)\n"
     "  --rule K=V     a rule option, repeatable (see `tessera games`)\n"
     "  --record FILE  write the game record (JSON, docs/records.md) to FILE ('-' = stdout);\n"
     "                 FILE is opened first: one that cannot be written exits 2 at once\n"
     "  --render       draw the final board as text\n"
     "  --trace        print every move as it is played\n",
     cmd_play},
    {"replay", "check a game record against the rules and print its scores",
     "usage: tessera replay FILE [--trace] [--json] [--verify]\n"
     "\n"
     "Checks every turn of the game record FILE ('-' reads standard input) against\n"
     "the rules and prints the final scores (P1 = the record's player 0). A malformed\n"
     "or illegal record is reported with the turn number and the reason, and the exit\n"
     "code is 2, as for a FILE that does not exist or is not a readable file; 1 is a\n"
     "failed read.\n"
     "  --trace        print every turn, its player (P1 (seat 0), ...) and the scores\n"
     "                 after it\n"
     "  --json         print the result as one JSON object (last line)\n"
     "  --verify       also check the record's chance outcomes: its \"chance\" block must\n"
     "                 reveal the seed and nonce whose SHA-256 is its commitment, and every\n"
     "                 chance outcome (Carcassonne: every tile drawn) must be the one the\n"
     "                 seed gives; a record without them, or with a changed tile, seed,\n"
     "                 nonce or commitment, is refused (exit 2, the turn and the reason)\n",
     cmd_replay},
    {"bench", "measure engine speed (random games/s) or a bot's speed (--bot)",
     "usage: tessera bench GAME [--players P] [--games N] [--seed S] [--rule K=V]...\n"
     "                          [--repeat R] [--json]\n"
     "\n"
     "Plays N full games with the uniform random policy on one thread, R times over\n"
     "(the same N games each time), and prints the median games per second, the mean\n"
     "score per player (P1 = seat 0, the first to move), the mean total score per\n"
     "game and the dead tiles per game.\n"
     "  --games N      games per round (default 20000)\n"
     "  --repeat R     rounds; the median round is reported (default 5)\n"
     "  --json         print one JSON object as the last line\n"
     "\n"
     "usage: tessera bench GAME --bot SPEC [--positions N] [--players P] [--seed S]\n"
     "                          [--rule K=V]... [--json]\n"
     "\n"
     "Bot benchmark: runs the bot's decision on N positions, each drawn uniformly from\n"
     "the decision points of a seeded random game (openings, middle games and endings\n"
     "as often as they occur), on one thread. Prints the median ms per decision, the\n"
     "simulations per second (total sims / total time, and the median over positions),\n"
     "the same per phase (first, middle, last third of a game), and with ms= in the\n"
     "spec how far past its budget each decision returned (median and max).\n"
     "  --bot SPEC     the bot to measure (see `tessera bots`)\n"
     "  --positions N  positions to decide (default 100)\n"
     "  --seed S       seed of the random games and of the bot (default 1)\n"
     "  --json         print one JSON object as the last line: bot, positions,\n"
     "                 sims_per_sec, ms_per_move, phases, budget_overshoot_ms, ...\n",
     cmd_bench},
    {"match", "play many games between bots and programs and rank them (rotated seats, shared tiles)",
     cmd_match_usage, cmd_match},
    {"tournament", "run a tournament of bots and programs, here or on a server (--url)",
     cmd_tournament_usage, cmd_tournament},
    {"experiment", "play a seed paper's table again: the paper's figures and ours side by side",
     cmd_experiment_usage, cmd_experiment},
    {"bots", "list the bots, their options and defaults",
     "usage: tessera bots\n"
     "\n"
     "Lists every registered bot with its options, their defaults and ranges, and\n"
     "the options every bot accepts (sims, ms, seed, mem). A bot is named by a spec:\n"
     "NAME or NAME:KEY=VALUE,KEY=VALUE,...\n",
     cmd_bots},
    {"serve", "run the match server (WebSocket protocol + web UI)",
     "usage: tessera serve [--port P] [--host ADDR] [--db FILE | --storage TARGET]\n"
     "                     [--instance NAME] [--redis HOST:PORT] [--advertise URL]\n"
     "                     [--web DIR | --no-web]\n"
     "                     [--demo[=BOT,BOT]] [--durable] [--max-conns N]\n"
     "                     [--log-level debug|info|warn|error] [--port-file FILE]\n"
     "                     [--idle-timeout-ms MS] [--admin-token-file FILE]\n"
     "\n"
     "Runs the match server: the JSON WebSocket protocol of docs/protocol.md on ws://HOST:P/\n"
     "and the browser UI over HTTP on http://HOST:P/. Every move is journaled to the SQLite\n"
     "file before it is announced; a restarted server resumes its unfinished matches.\n"
     "  --port P       TCP port (default 8080; 0 picks a free one)\n"
     "  --host ADDR    address or interface to listen on (default 127.0.0.1: this machine\n"
     "                 only; * = every interface, see docs/operations.md before)\n"
     "  --db FILE      SQLite journal (default tessera.db)\n"
     "  --storage T    where to store: sqlite:FILE, or a PostgreSQL connection string\n"
     "                 (postgresql://USER@HOST/DB or \"host=H dbname=D\"): several servers\n"
     "                 sharing one database take over each other's matches (docs/scaling.md)\n"
     "  --instance N   this server's name among several (default: the host name)\n"
     "  --redis H:P    Redis for spectators and moves across servers (PostgreSQL only)\n"
     "  --advertise URL  where clients reach this server (ws://HOST:PORT/): a client whose\n"
     "                 match this server plays, talking to it through another, is told so\n"
     "                 (owner_url) and may connect here instead (docs/scaling.md)\n"
     "  --web DIR      directory served over HTTP (default: the source tree's web/)\n"
     "  --demo[=SPECS] keep a live bot-vs-bot Carcassonne match going: one bot spec\n"
     "                 (both seats) or two separated by ',' (default mcts:ms=1000,heuristic)\n"
     "  --durable      announce a move only once fsynced (survive power loss)\n"
     "  --max-conns N  concurrent connections (default 8192)\n"
     "  --no-web       serve the WebSocket protocol only, no web UI\n"
     "  --log-level L  least severe log lines printed: debug, info (default), warn, error\n"
     "  --port-file F  write the port once listening (for scripts and tests)\n"
     "  --idle-timeout-ms MS  drop a connection from which nothing arrived for MS (default\n"
     "                 45000; whole seconds, 3000 to 3600000); it is pinged after a third\n"
     "                 of that time without traffic\n"
     "  --admin-token-file F  write the server's admin token to F (mode 0600) at start\n"
     "The admin token (made on the first start, kept in the database, printed once) is\n"
     "needed for tournaments, program (cmd:) seats and registered-bot (remote:) seats.\n"
     "Logs are JSON lines on stderr. SIGINT/SIGTERM shut down gracefully; a second signal\n"
     "exits at once (code 1).\n"
     "Exit status: 0 after a shutdown; 1 when it cannot start (the port is in use, the\n"
     "address is not this machine's, the journal cannot be opened: the reason on stderr);\n"
     "2 bad arguments, including a bad --demo spec.\n",
     cmd_serve},
    {"bot", "play one seat of a match on a server with a bot or a program (--bot SPEC)",
     "usage: tessera bot --url ws://HOST:PORT/ --match ID --seat N --token T --bot SPEC\n"
     "                   [--resume-token R] [--token-file F] [--margin-ms M]\n"
     "                   [--give-up-ms G] [--seed S] [--name NAME] [--quiet]\n"
     "       tessera bot --url ws://HOST:PORT/ --resume-token R --bot SPEC [...]\n"
     "       tessera bot --url ws://HOST:PORT/ --register NAME --secret S --bot SPEC\n"
     "                   [--capacity K] [--game GAME]... [--max-games N] [...]\n"
     "\n"
     "Joins seat N of match ID (the token comes from create_match) and plays it with\n"
     "the player SPEC until the match ends: one of our bots (mcts:sims=400, see `tessera\n"
     "bots`) or a program speaking the stdio protocol, \"cmd:PROGRAM ARGS\" (long-running)\n"
     "or \"cmd-stateless:PROGRAM ARGS\", run in the sandbox (docs/stdio.md; `tessera\n"
     "bridge` is the same with the program after --). The client follows the game\n"
     "itself (rules and history from the server, every update applied and checked)\n"
     "and the player thinks on a thread of its own until the server's time_left_ms\n"
     "minus a margin. A dropped connection is resumed with the resume token, retrying\n"
     "after 100 ms, doubling up to 5 s. See docs/botclient.md.\n"
     "  --url URL          the server (ws:// only)\n"
     "  --match ID         the match id\n"
     "  --seat N           the seat to play (0-based)\n"
     "  --token T          the seat token\n"
     "  --bot SPEC         the player: a bot (mcts:sims=400) or \"cmd:python3 bot.py\"\n"
     "  --resume-token R   take the seat back with resume instead of joining (after a\n"
     "                     crash of this client); --seat/--token are then optional, and\n"
     "                     --match lets the client report a match that ended meanwhile\n"
     "  --token-file F     write the resume token to F whenever one is received\n"
     "  --register NAME    instead of one seat: register under NAME and play every game\n"
     "                     the server seats NAME in (tournaments), until stopped\n"
     "  --secret S         the name's secret (8-64 characters; set by its first use)\n"
     "  --capacity K       games at once when registered, each with its own player (1-16,\n"
     "                     default 1)\n"
     "  --game GAME        registered: accept only these games (repeatable; default all)\n"
     "  --max-games N      registered: exit after N games ended (default: run until\n"
     "                     SIGINT/SIGTERM, which stops new games; a second one, at once)\n"
     "  --margin-ms M      kept back from the server's time_left_ms: the player's deadline\n"
     "                     (what a program is told) is time_left_ms - M (default 200)\n"
     "  --give-up-ms G     stop reconnecting after G ms without a connection (default\n"
     "                     60000; registered: 86400000, a day)\n"
     "  --memory-mb N      a program's address-space limit (default 1024)\n"
     "  --cpu-s N          a program's CPU-time limit per process (default 600)\n"
     "  --seed S           seed of the bot (unless SPEC has seed=) and of random fallbacks\n"
     "  --name NAME        client name sent in hello (default tessera-bot/0.1.0)\n"
     "  --quiet            log errors only (default: one line per own turn on stderr, and\n"
     "                     what a program writes on its stderr)\n"
     "On each game_over prints one line to stdout:\n"
     "  game over: reason=R scores=A,B winners=W ranking=R turns=T match=ID seat=N ...\n"
     "(scores in seat order; winners, ranking and seat are 0-based seat numbers, as on\n"
     "the wire: seat 0 is the player people call P1)\n"
     "Exit status: 0 the match ended (game_over; registered: --max-games reached, or\n"
     "stopped by a signal once its games ended), 1 the connection could not be\n"
     "(re)established or the server refused the seat or the registration (its error\n"
     "code and message are printed), 2 bad arguments.\n",
     cmd_bot},
    {"evolve", "evolve an EvoMCTS evaluation by genetic programming", cmd_evolve_usage, cmd_evolve},
    {"bridge", "play on a server for a program of yours (stdio protocol, any language)",
     "usage: tessera bridge --url ws://HOST:PORT/ --match ID --seat N --token T\n"
     "                      [--stateless] [OPTIONS] -- PROGRAM [ARGS...]\n"
     "       tessera bridge --url ws://HOST:PORT/ --register NAME --secret S\n"
     "                      [--capacity K] [--game GAME]... [OPTIONS] -- PROGRAM [ARGS...]\n"
     "\n"
     "Runs PROGRAM (a bot in any language that reads JSON lines on stdin and prints its\n"
     "moves on stdout, docs/stdio.md) in the sandbox and plays for it on the server:\n"
     "one seat of one match, or, registered under NAME, every game the server gives it\n"
     "(up to K at once, one process each). The program is told the time it has: the\n"
     "server's time_left_ms minus --margin-ms (default 200); its CPU time goes to the\n"
     "server with each move (think_ms); its stderr is shown here. After a dropped\n"
     "connection the bridge resumes and the game goes on; a program that crashed is\n"
     "started again at its next turn with the history. Same options as `tessera bot`\n"
     "(see `tessera bot --help`), and:\n"
     "  --stateless        start the program afresh for every move (cmd-stateless:)\n"
     "PROGRAM and ARGS are run without a shell; an ARG naming an existing file becomes\n"
     "an absolute path. Example:\n"
     "  tessera bridge --url ws://class.example:8080/ --register alice --secret s3cret-42 \\\n"
     "      -- python3 mybot.py\n"
     "Exit status as `tessera bot`.\n",
     cmd_bridge},
    {"doctor", "check a bot before it plays: the cases that break bots, in every game",
     "usage: tessera doctor [OPTIONS] [--stateless] -- PROGRAM [ARGS...]\n"
     "       tessera doctor [OPTIONS] --bot SPEC\n"
     "       tessera doctor [OPTIONS] --url URL --remote NAME --admin-token-file F\n"
     "       tessera doctor --replay BUNDLE [--move-ms MS] [--json] [-- PROGRAM [ARGS...]]\n"
     "\n"
     "Plays the bot through the cases that break bots, in every game (or those given),\n"
     "against a random opponent, and checks that it answers every turn in time with a\n"
     "legal move: its start-up and first move, a whole game,\n"
     "game_over then a new game in the same process, a game with the most seats, a\n"
     "clock close to zero, unknown fields in every message, a restart mid-game with\n"
     "the history (resync), the last turn, a single legal move, a drawn tile that fits\n"
     "nowhere (discarded), no meeple left (Carcassonne). PROGRAM runs in the sandbox\n"
     "as on a server (docs/stdio.md); --bot takes any player spec (mcts:sims=50,\n"
     "\"cmd:python3 bot.py\"). Prints one line per check (pass, FAIL with its reason, what\n"
     "the program wrote on stderr and what to do, or skip) and a summary.\n"
     "  --stateless        start the program afresh for every move (cmd-stateless:)\n"
     "  --game GAME        check this game only (repeatable; default every game)\n"
     "  --check NAME       run this check only (repeatable; e.g. --check low_clock to\n"
     "                     try a fix again; the names are those of the report)\n"
     "  --move-ms MS       time allowed per move (default 2000)\n"
     "  --first-move-ms MS time allowed for a game's first move (default --move-ms, as in\n"
     "                     a course's gates and a tournament; with --url 3 x --move-ms)\n"
     "  --startup-ms MS    a program's start-up allowance, before its first game and on\n"
     "                     no one's clock (default 10000; 0: none, it runs on the first\n"
     "                     move's clock)\n"
     "  --low-ms MS        the clock of the low_clock check (default 200)\n"
     "  --seed S           seed of the positions, the opponent and the draws (default 1)\n"
     "  --memory-mb N      the program's address-space limit (default 1024)\n"
     "  --cpu-s N          the program's CPU-time limit per process (default 600)\n"
     "  --json             print one JSON object instead: spec, kind, passed, counts,\n"
     "                     checks [{game, check, status, detail, verdict, hint, ...}]\n"
     "A bot registered on a server (tessera bridge --register NAME) is checked from a\n"
     "distance with whole games the server seats it in (full_game, new_game,\n"
     "more_players; a time-out or an illegal move forfeits):\n"
     "  --url URL --remote NAME   the server and the name\n"
     "  --admin-token T | --admin-token-file F   the server's admin token (seating a\n"
     "                     registered bot needs it)\n"
     "A fault bundle that `tessera match` or `tessera tournament` kept (docs/bundles.md)\n"
     "is played again with --replay BUNDLE: the same game, tiles, moves and lines, to the\n"
     "bundle's program or to PROGRAM (a fixed one), each of its turns asked with the\n"
     "bundle's allowance (or --move-ms); exit 0 when the faulty turn now passes, 1 when\n"
     "it fails again (or earlier), 2 when the bundle cannot be read.\n"
     "Exit status: 0 every check passed (skips allowed), 1 a check failed, 2 bad\n"
     "arguments (a program that cannot be found, an unknown game).\n",
     cmd_doctor},
    {"games", "list the games and their rule options (--json: their static data)",
     cmd_games_usage, cmd_games},
    {"rate", "rate a bot on a game's reference ladder in minutes (docs/rate.md)", cmd_rate_usage,
     cmd_rate},
    {"vectors", "write conformance vectors: positions, legal moves, results (docs/vectors.md)",
     cmd_vectors_usage, cmd_vectors},
    {"create", "make a match on a server; print its seat tokens", cmd_create_usage, cmd_create},
    {"matches", "list the matches a server holds", cmd_matches_usage, cmd_matches},
    {"export", "save a server's match as a game record", cmd_export_usage, cmd_export},
    {"analyze", "search a finished game again: win probability, mistakes, luck and skill",
     cmd_analyze_usage, cmd_analyze},
    {NULL, NULL, NULL, NULL},
};

static void print_help(FILE *f)
{
    fprintf(f, "tessera — a game server where AI bots play board games\n\n"
               "usage: tessera COMMAND [ARGS...]\n"
               "       tessera COMMAND --help\n\ncommands:\n");
    for (const cli_command *c = cli_commands; c->name; c++)
        fprintf(f, "  %-8s %s\n", c->name, c->summary);
}

static const cli_command *find_command(const char *name)
{
    for (const cli_command *c = cli_commands; c->name; c++)
        if (strcmp(c->name, name) == 0)
            return c;
    return NULL;
}

void cli_print_usage(const char *cmd)
{
    const cli_command *c = find_command(cmd);
    if (c && c->usage)
        fputs(c->usage, stdout);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        print_help(stderr);
        return CLI_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
        if (argc > 2 && strcmp(name, "help") == 0) {
            if (!find_command(argv[2])) {
                fprintf(stderr, "tessera: unknown command '%s'\n", argv[2]);
                return CLI_USAGE;
            }
            cli_print_usage(argv[2]);
            return CLI_OK;
        }
        print_help(stdout);
        return CLI_OK;
    }
    if (strcmp(name, "--version") == 0 || strcmp(name, "version") == 0) {
        const char *web = cli_web_root();
        printf("tessera " TESSERA_VERSION "\nweb UI: %s\n",
               web ? web : "not found (tessera serve --web DIR)");
        return CLI_OK;
    }
    if (strcmp(name, SRV_FENCED_ANALYSIS) == 0) /* a server's analysis job (server/analyze_main.h) */
        return srv_fenced_analysis_main(argc - 1, argv + 1);
    const cli_command *c = find_command(name);
    if (!c) {
        fprintf(stderr, "tessera: unknown command '%s'\n\n", name);
        print_help(stderr);
        return CLI_USAGE;
    }
    for (int i = 2; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            cli_print_usage(c->name);
            return CLI_OK;
        }
    return c->run(argc - 1, argv + 1);
}
