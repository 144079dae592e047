"""Running a bot: over stdin/stdout (the stdio protocol, docs/stdio.md) or on a
server over WebSocket (docs/protocol.md).

    run(MyBot())   # python3 mybot.py                               -> stdio
                   # python3 mybot.py --url ws://H:8080/ --match M --seat N --token T
                   # python3 mybot.py --url ws://H:8080/ --register NAME --secret S

Under stdio the bot is what `tessera doctor`, `tessera bridge`, tournaments
and courses run (in their sandbox); the WebSocket loop needs the
``websockets`` package (Debian: python3-websockets) and plays one seat, or
every game a server gives a registered name.

A choose() that raises, returns something that is not a legal move, or
returns nothing costs a fault on a server; with ``fallback=True`` (the
default) the runner says so on stderr -- which tessera keeps with the game
and shows you -- and plays a random legal entry instead. ``fallback=False``
lets the error end the program, the strict choice while developing.
"""

import argparse
import json
import random
import sys
import time

from .bot import Turn, decide, log


def run_stdio(bot, inp=None, out=None, fallback=True):
    """Play the stdio protocol until stdin closes."""
    inp = inp or sys.stdin
    out = out or sys.stdout
    game = rules = None
    for line in inp:
        received = time.monotonic()
        line = line.strip()
        if not line:
            continue
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "start":
            game, rules = msg["game"], msg.get("rules")
            bot.on_start(msg)
        elif kind == "your_turn":
            game = msg.get("game", game)  # a stateless request carries game and rules
            rules = msg.get("rules", rules)
            turn = Turn(msg, game, rules, received)
            reply = {"type": "move", "turn": msg["turn"], "move": decide(bot, turn, fallback)}
            if turn.debug is not None:
                reply["debug"] = turn.debug
            out.write(json.dumps(reply) + "\n")
            out.flush()
        elif kind == "update":
            bot.on_update(msg)
        elif kind == "game_over":
            bot.on_game_over(msg)
        elif kind == "error":
            log("the move was refused: %s: %s" % (msg.get("code"), msg.get("message")))


def run(bot, argv=None, fallback=True):
    """Run the bot as its command line says: stdio by default, a server with --url."""
    p = argparse.ArgumentParser(description="a tessera bot (tessera_kit)")
    p.add_argument("--url", help="a tessera server, ws://HOST:PORT/ (default: the stdio protocol)")
    p.add_argument("--match", help="the match to join")
    p.add_argument("--seat", type=int, help="the seat to join (0-based)")
    p.add_argument("--token", help="the seat's token")
    p.add_argument("--register", metavar="NAME", help="register under NAME and play the games given")
    p.add_argument("--secret", help="the name's secret")
    p.add_argument("--game", action="append", help="registered: accept only this game (repeatable)")
    p.add_argument("--max-games", type=int, default=0, help="registered: stop after N games")
    p.add_argument("--seed", type=int, help="seed Python's random module")
    a = p.parse_args(argv)
    if a.seed is not None:
        random.seed(a.seed)
    if not a.url:
        return run_stdio(bot, fallback=fallback)
    from . import ws  # needs the websockets package
    if a.register:
        if not a.secret:
            p.error("--register needs --secret")
        return ws.play_registered(bot, a.url, a.register, a.secret, games=a.game,
                                  max_games=a.max_games, fallback=fallback)
    if a.match is None or a.seat is None or a.token is None:
        p.error("--url needs --match, --seat and --token (or --register and --secret)")
    return ws.play_seat(bot, a.url, a.match, a.seat, a.token, fallback=fallback)
