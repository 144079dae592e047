"""What a bot writes: a ``choose(turn)`` method; and what it is given: a Turn.

    class MyBot(Bot):
        def choose(self, turn):
            state = turn.state            # the game model (carcassonne.State, ...)
            return random.choice(state.moves())

A Turn carries the match's game and rules, the seat, the turn number, the
server's ``legal`` entries, the parsed state, and the clock: ``time_left()``
(seconds left now, from ``time_left_ms`` when the message arrived) and
``budget(fraction)`` (a share of it for thinking, less a safety margin).
"""

import json
import random
import sys
import time
import traceback

from .games import parse_state


class Turn:
    """One your_turn, read."""

    def __init__(self, msg, game, rules, received=None):
        self.msg = msg
        self.game = game
        self.rules = rules or {}
        self.match = msg.get("match")
        self.seat = msg["seat"]
        self.number = msg.get("turn")
        self.legal = msg["legal"]
        self.state_json = msg["state"]
        self.time_left_ms = msg.get("time_left_ms")
        self.received = received if received is not None else time.monotonic()
        self.debug = None  # set a string (or any JSON) to send it with the move
        self._state = None

    @property
    def state(self):
        """The game model of the position (parsed once, on first use)."""
        if self._state is None:
            self._state = parse_state(self.game, self.rules, self.state_json)
        return self._state

    def time_left(self):
        """Seconds left for this move now (inf when the runner gave no limit)."""
        if self.time_left_ms is None:
            return float("inf")
        return self.time_left_ms / 1000.0 - (time.monotonic() - self.received)

    def budget(self, fraction=0.5, margin_s=0.15, cap_s=None):
        """Seconds to think: a fraction of what is left, less a margin for the
        reply to leave (at least 0), and at most cap_s."""
        b = max(0.0, self.time_left() * fraction - margin_s)
        return min(b, cap_s) if cap_s is not None else b

    def random_entry(self, rng=random):
        """A legal entry as a move (Carcassonne: that placement without a meeple)."""
        e = dict(rng.choice(self.legal))
        e.pop("meeples", None)
        return e


class Bot:
    """Subclass it and write choose(); the other hooks are optional."""

    name = "kit-bot"

    def choose(self, turn):
        """Return the move for this turn: a legal entry or any whole move of the
        game's form (Carcassonne {"x","y","rot","meeple"?})."""
        raise NotImplementedError

    def on_start(self, msg):
        """A game begins (start / joined): msg has game, rules, seat."""

    def on_update(self, msg):
        """A turn was played (anyone's)."""

    def on_game_over(self, msg):
        """The game ended: msg has scores, ranking, result."""


def log(*args):
    print("tessera_kit:", *args, file=sys.stderr, flush=True)


def decide(bot, turn, fallback=True):
    """The move to send for a turn: bot.choose(turn), checked against the rules."""
    try:
        move = bot.choose(turn)
        if not isinstance(move, dict):
            raise ValueError("choose() returned %r, not a move object" % (move,))
        move = dict(move)
        move.pop("meeples", None)  # a Carcassonne legal entry sent as it is
        try:
            turn.state.copy().apply(move)
        except ValueError as e:
            raise ValueError("choose() returned an illegal move %s: %s" % (json.dumps(move), e))
        return move
    except Exception:
        if not fallback:
            raise
        log("turn %s: choose() failed; playing a random legal move instead\n%s"
            % (turn.number, traceback.format_exc()))
        return turn.random_entry()
