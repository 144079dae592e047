"""Pentago-Twist 6x6 for bots: board, legal moves, moves applied.

docs/rules.md: White (``W``, seat 0) moves first. A move puts a piece on an
empty cell, then turns one quadrant (0 top-left, 1 top-right, 2 bottom-left,
3 bottom-right) 90 degrees clockwise (``rotate``) or mirrors it left-right
(``flip``). Then five or more in a row wins; both at once, or a full board,
is a draw. Cells are (x, y), x east and y south from the top-left cell.
"""

import random

from ._base import WinOrDraw

SIZE = 6
_PIECE = {"W": 0, "B": 1, ".": None}


def _windows():
    out = []
    for y in range(SIZE):
        for x in range(SIZE):
            for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
                cells = [(x + k * dx, y + k * dy) for k in range(5)]
                if all(0 <= a < SIZE and 0 <= b < SIZE for a, b in cells):
                    out.append(cells)
    return out


WINDOWS = _windows()  # the 32 five-cell lines


class State(WinOrDraw):
    game = "pentago-twist"

    def __init__(self, rules=None):
        self.rules = {"players": 2}
        self.players = 2
        self.cells = [[None] * SIZE for _ in range(SIZE)]  # cells[y][x]
        self.player = 0
        self.plies = 0
        self.result = None  # None playing, 0/1 the winner, "draw"

    @classmethod
    def new(cls, rules=None):
        return cls(rules)

    @classmethod
    def from_json(cls, state, rules=None):
        s = cls(rules)
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
        c.rules, c.players = self.rules, self.players
        c.cells = [row[:] for row in self.cells]
        c.player, c.plies, c.result = self.player, self.plies, self.result
        return c

    def legal(self):
        if self.result is not None:
            return []
        return [{"x": x, "y": y, "quadrant": q, "twist": t}
                for y in range(SIZE) for x in range(SIZE) if self.cells[y][x] is None
                for q in range(4) for t in ("rotate", "flip")]

    moves = legal

    def random_move(self, rng=random):
        return rng.choice(self.legal())

    def twist(self, q, t):
        ox, oy = (q & 1) * 3, (q >> 1) * 3
        old = [[self.cells[oy + cy][ox + cx] for cx in range(3)] for cy in range(3)]
        for cy in range(3):
            for cx in range(3):
                # clockwise on screen (y down): (cx, cy) -> (2 - cy, cx)
                nx, ny = (2 - cy, cx) if t == "rotate" else (2 - cx, cy)
                self.cells[oy + ny][ox + nx] = old[cy][cx]

    def five(self, seat):
        return any(all(self.cells[y][x] == seat for x, y in w) for w in WINDOWS)

    def apply(self, move):
        if self.result is not None:
            raise ValueError("the game is over")
        x, y, q, t = move["x"], move["y"], move["quadrant"], move["twist"]
        if not (0 <= x < SIZE and 0 <= y < SIZE) or q not in range(4) or t not in ("rotate", "flip"):
            raise ValueError("%r is not a move" % (move,))
        if self.cells[y][x] is not None:
            raise ValueError("(%d,%d) is taken" % (x, y))
        self.cells[y][x] = self.player
        self.twist(q, t)
        self.plies += 1
        self.player = 1 - self.player
        w, b = self.five(0), self.five(1)
        if w and b:
            self.result = "draw"
        elif w or b:
            self.result = 0 if w else 1
        elif self.plies >= SIZE * SIZE:
            self.result = "draw"
        return self

    def to_json(self):
        rows = ["".join("." if c is None else "WB"[c] for c in row) for row in self.cells]
        return {"turn": self.plies, "board": rows, "scores": self.scores(), "to_move": self.to_move}
