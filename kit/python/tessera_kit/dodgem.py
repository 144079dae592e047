"""Dodgem n x n (3, 4 or 5) for bots: board, legal moves, moves applied.

docs/rules.md: Black (``B``, seat 0) starts on the left column and drives
east (forward), north or south; White (``W``, seat 1) starts on the top row
and drives south (forward), west or east; one car one step onto an empty
cell, or off the board by a forward move from the far edge. The seat with no
legal move on its own turn WINS. A game reaching ``max_plies`` is a draw.
Cells are (x, y), x east and y south from the top-left cell.
"""

import random

from ._base import WinOrDraw

_STEP = {"N": (0, -1), "E": (1, 0), "S": (0, 1), "W": (-1, 0)}
_DIRS = ({"E", "N", "S"}, {"S", "W", "E"})  # what each seat may drive
_FORWARD = ("E", "S")
_PIECE = {"B": 0, "W": 1, ".": None}


class State(WinOrDraw):
    game = "dodgem"

    def __init__(self, rules=None):
        rules = dict(rules or {})
        self.n = int(rules.get("size", 5))
        self.cap = int(rules.get("max_plies", 100))
        self.rules = {"players": 2, "size": self.n, "max_plies": self.cap}
        self.players = 2
        self.cells = [[None] * self.n for _ in range(self.n)]  # cells[y][x]
        self.player = 0
        self.plies = 0
        self.result = None  # None playing, 0/1 the winner, "draw"

    @classmethod
    def new(cls, rules=None):
        s = cls(rules)
        for i in range(1, s.n):
            s.cells[i][0] = 0
            s.cells[0][i] = 1
        return s

    @classmethod
    def from_json(cls, state, rules=None):
        s = cls(rules)
        if state.get("size", s.n) != s.n:
            raise ValueError("the state's size %s is not the rules' %d" % (state.get("size"), s.n))
        for y, row in enumerate(state["board"]):
            for x, ch in enumerate(row):
                s.cells[y][x] = _PIECE[ch]
        s.plies = state["turn"]
        if state["to_move"] is None:
            sc = state["scores"]
            s.result = 0 if sc[0] > sc[1] else 1 if sc[1] > sc[0] else "draw"
        else:
            s.player = state["to_move"]
        return s

    def copy(self):
        c = State.__new__(State)
        c.n, c.cap, c.rules, c.players = self.n, self.cap, self.rules, self.players
        c.cells = [row[:] for row in self.cells]
        c.player, c.plies, c.result = self.player, self.plies, self.result
        return c

    def _ok(self, seat, x, y, d):
        dx, dy = _STEP[d]
        nx, ny = x + dx, y + dy
        if not (0 <= nx < self.n and 0 <= ny < self.n):
            return d == _FORWARD[seat]
        return self.cells[ny][nx] is None

    def _moves_of(self, seat):
        out = []
        for y in range(self.n):
            for x in range(self.n):
                if self.cells[y][x] == seat:
                    for d in "NESW":
                        if d in _DIRS[seat] and self._ok(seat, x, y, d):
                            out.append({"x": x, "y": y, "dir": d})
        return out

    def legal(self):
        return [] if self.result is not None else self._moves_of(self.player)

    moves = legal

    def random_move(self, rng=random):
        return rng.choice(self.legal())

    def apply(self, move):
        if self.result is not None:
            raise ValueError("the game is over")
        me = self.player
        x, y, d = move["x"], move["y"], move["dir"]
        if not (0 <= x < self.n and 0 <= y < self.n) or self.cells[y][x] != me:
            raise ValueError("no car of seat %d on (%s,%s)" % (me, x, y))
        if d not in _DIRS[me] or not self._ok(me, x, y, d):
            raise ValueError("the car on (%d,%d) cannot drive %s" % (x, y, d))
        dx, dy = _STEP[d]
        self.cells[y][x] = None
        nx, ny = x + dx, y + dy
        if 0 <= nx < self.n and 0 <= ny < self.n:
            self.cells[ny][nx] = me
        self.player = 1 - me
        self.plies += 1
        if not self._moves_of(self.player):
            self.result = self.player  # no move on its own turn: it wins
        elif self.plies >= self.cap:
            self.result = "draw"
        return self

    def cars(self):
        n = [0, 0]
        for row in self.cells:
            for c in row:
                if c is not None:
                    n[c] += 1
        return n

    def to_json(self):
        rows = ["".join("." if c is None else "BW"[c] for c in row) for row in self.cells]
        return {"turn": self.plies, "size": self.n, "max_plies": self.cap, "board": rows,
                "cars": self.cars(), "scores": self.scores(), "to_move": self.to_move}
