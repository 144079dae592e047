"""Reversi 8x8 for bots: the board the server sends, legal moves, moves applied.

Standard Othello (docs/rules.md): Black (``X``, seat 0) moves first from
d5/e4, White (``O``, seat 1) holds d4/e5; a move flips every outflanked
line; a seat without a move must pass (``{"move":"pass"}`` is then its only
legal move); the game ends when neither seat can move, most discs wins.
Squares are named ``a1``..``h8`` (file, rank); the state's ``board`` lists
the ranks from 8 down to 1.
"""

import random

from ._base import NoChance

_DIRS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1))
_PIECE = {"X": 0, "O": 1, ".": None}


def square(f, r):
    """The name of file f (0..7) and rank index r (0 = rank 1)."""
    return "abcdefgh"[f] + str(r + 1)


class State(NoChance):
    game = "reversi"

    def __init__(self, rules=None):
        self.rules = {"players": 2}
        self.players = 2
        self.cells = [[None] * 8 for _ in range(8)]  # cells[r][f], r = 0 is rank 1
        self.player = 0
        self.plies = 0
        self.over = False

    @classmethod
    def new(cls, rules=None):
        s = cls(rules)
        s.cells[3][3] = s.cells[4][4] = 1  # d4, e5 White
        s.cells[4][3] = s.cells[3][4] = 0  # d5, e4 Black
        return s

    @classmethod
    def from_json(cls, state, rules=None):
        s = cls(rules)
        rows = state["board"]
        for i, row in enumerate(rows):
            r = 7 - i
            for f, ch in enumerate(row):
                s.cells[r][f] = _PIECE[ch]
        s.plies = state["turn"]
        s.over = state["to_move"] is None
        s.player = state["to_move"] if not s.over else 0
        return s

    def copy(self):
        c = State.__new__(State)
        c.rules, c.players = self.rules, self.players
        c.cells = [row[:] for row in self.cells]
        c.player, c.plies, c.over = self.player, self.plies, self.over
        return c

    @property
    def to_move(self):
        return None if self.over else self.player

    def is_over(self):
        return self.over

    def flips(self, f, r, me):
        """The squares (f, r) a disc of seat `me` on (f, r) would flip."""
        if self.cells[r][f] is not None:
            return []
        out = []
        for df, dr in _DIRS:
            line = []
            x, y = f + df, r + dr
            while 0 <= x < 8 and 0 <= y < 8 and self.cells[y][x] == 1 - me:
                line.append((x, y))
                x += df
                y += dr
            if line and 0 <= x < 8 and 0 <= y < 8 and self.cells[y][x] == me:
                out.extend(line)
        return out

    def _squares(self, me):
        return [(f, r) for r in range(8) for f in range(8) if self.flips(f, r, me)]

    def legal(self):
        if self.over:
            return []
        sq = self._squares(self.player)
        if not sq:
            return [{"move": "pass"}]
        return [{"move": square(f, r)} for f, r in sq]

    moves = legal

    def random_move(self, rng=random):
        return rng.choice(self.legal())

    def apply(self, move):
        if self.over:
            raise ValueError("the game is over")
        m = move["move"] if isinstance(move, dict) else move
        me = self.player
        if m == "pass":
            if self._squares(me):
                raise ValueError("pass is not legal: a move exists")
        else:
            if len(m) != 2 or m[0] not in "abcdefgh" or m[1] not in "12345678":
                raise ValueError("%r is not a square" % m)
            f, r = "abcdefgh".index(m[0]), int(m[1]) - 1
            fl = self.flips(f, r, me)
            if not fl:
                raise ValueError("%s is not a legal move now" % m)
            self.cells[r][f] = me
            for x, y in fl:
                self.cells[y][x] = me
        self.player = 1 - me
        self.plies += 1
        if not self._squares(0) and not self._squares(1):
            self.over = True
        return self

    def scores(self):
        n = [0, 0]
        for row in self.cells:
            for c in row:
                if c is not None:
                    n[c] += 1
        return n

    end_scores = scores

    def winners(self):
        a, b = self.scores()
        return [0] if a > b else [1] if b > a else [0, 1]


    def to_json(self):
        rows = ["".join("." if c is None else "XO"[c] for c in self.cells[r]) for r in range(7, -1, -1)]
        return {"turn": self.plies, "board": rows, "scores": self.scores(), "to_move": self.to_move}
