"""The WebSocket loop: a kit bot on a tessera server, without the bridge.

    play_seat(bot, "ws://localhost:8080/", "m7k2q9", 1, "t_...")       # one seat
    play_registered(bot, "ws://class.example:8080/", "alice", "secret") # every game given

It speaks protocol 1 (docs/protocol.md): hello, then join (or register),
then your_turn -> move until game_over. The bot thinks on a thread, so the
connection keeps answering the server's pings during a long search. It needs
the ``websockets`` package (Debian: python3-websockets; pip: websockets).

What the bridge adds and this loop does not: the sandbox, resuming after a
dropped connection, a process per game. For a bot in a tournament on a
server you do not run, prefer ``tessera bridge --register`` with the stdio
loop; this loop is for quick games on your own server and for kits in
places where tessera itself is not installed.
"""

import asyncio
import json
import sys
import time

try:
    import websockets
except ImportError as e:
    # Name the Python that lacks it: Debian's package serves /usr/bin/python3
    # only, and a python3 first on the PATH may be another (pyenv, a venv).
    raise ImportError(
        "the WebSocket loop needs the websockets package, which the Python running this bot ("
        + sys.executable + ") does not have: Debian's python3-websockets serves /usr/bin/python3 "
        "(run the bot with it), or pip install websockets into this Python") from e

from .bot import Turn, decide, log

CLIENT = "tessera-kit/1.0"
MAX_MESSAGE = 1 << 22  # a Carcassonne state with its legal moves stays far below


async def _send(ws, msg):
    await ws.send(json.dumps(msg))


async def _session(bot, url, first, fallback, stop_after):
    """Connect, say hello, send `first` (join or register), then play. Returns the
    number of games that ended; raises RuntimeError on an error reply to `first`."""
    games = {}  # match -> (game, rules)
    ended = 0
    async with websockets.connect(url, max_size=MAX_MESSAGE, ping_interval=20) as ws:
        await _send(ws, {"type": "hello", "protocol": 1, "client": CLIENT})
        welcome = json.loads(await ws.recv())
        if welcome.get("type") != "welcome":
            raise RuntimeError("the server did not welcome us: %s" % json.dumps(welcome)[:300])
        await _send(ws, first)
        loop = asyncio.get_running_loop()
        async for text in ws:
            received = time.monotonic()
            msg = json.loads(text)
            kind = msg.get("type")
            if kind in ("joined", "resumed"):
                games[msg["match"]] = (msg["game"], msg.get("rules"))
                bot.on_start(msg)
            elif kind == "registered":
                log("registered as %s" % msg.get("name"))
            elif kind == "your_turn":
                game, rules = games.get(msg.get("match"), (None, None))
                turn = Turn(msg, game, rules, received)
                t0 = time.monotonic()
                move = await loop.run_in_executor(None, decide, bot, turn, fallback)
                think = int((time.monotonic() - t0) * 1000)
                # the WebSocket move has no debug field: what the bot set is logged here
                if turn.debug is not None:
                    log("turn %s: %s" % (msg["turn"], turn.debug))
                await _send(ws, {"type": "move", "match": msg["match"], "turn": msg["turn"],
                                 "move": move, "think_ms": think})
            elif kind == "update":
                bot.on_update(msg)
            elif kind == "game_over":
                bot.on_game_over(msg)
                games.pop(msg.get("match"), None)
                ended += 1
                log("game over: match %s, scores %s, %s" % (msg.get("match"), msg.get("scores"),
                                                            msg.get("result", {}).get("reason")))
                if stop_after and ended >= stop_after:
                    return ended
            elif kind == "error":
                if msg.get("code") in ("bad_token", "unknown_match", "no_such_seat", "seat_taken",
                                       "match_over", "registration_taken", "unknown_game"):
                    raise RuntimeError("%s: %s" % (msg.get("code"), msg.get("message")))
                log("error from the server: %s: %s" % (msg.get("code"), msg.get("message")))
    return ended


def play_seat(bot, url, match, seat, token, fallback=True):
    """Join one seat and play it until the game ends. Returns 0, or 1 when the
    server refused the seat or could not be reached."""
    first = {"type": "join", "match": match, "seat": seat, "token": token}
    try:
        asyncio.run(_session(bot, url, first, fallback, 1))
        return 0
    except (RuntimeError, OSError, websockets.exceptions.WebSocketException) as e:
        log("cannot play %s seat %s on %s: %s" % (match, seat, url, e))
        return 1


def play_registered(bot, url, name, secret, games=None, max_games=0, fallback=True):
    """Register under a name and play every game the server seats it in, one at a
    time, until max_games have ended (0: until interrupted)."""
    first = {"type": "register", "name": name, "secret": secret, "capacity": 1}
    if games:
        first["games"] = list(games)
    try:
        asyncio.run(_session(bot, url, first, fallback, max_games))
        return 0
    except KeyboardInterrupt:
        return 0
    except (RuntimeError, OSError, websockets.exceptions.WebSocketException) as e:
        log("registration as %s on %s failed: %s" % (name, url, e))
        return 1
