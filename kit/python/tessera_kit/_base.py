"""What the games without chance share (Reversi, Dodgem, Pentago-Twist).

``NoChance``: no chance event ever comes. ``WinOrDraw``: a game that ends in
a win, scored 1-0, or a draw, 0-0, as the server scores Dodgem and
Pentago-Twist; ``self.result`` is the winning seat, ``"draw"``, or None
while the game is on, and ``self.player`` the seat to move.
"""


class NoChance:
    def needs_draw(self):
        return False

    def sample_chance(self, rng=None):
        raise ValueError("%s has no chance events" % self.game)


class WinOrDraw(NoChance):
    @property
    def to_move(self):
        return None if self.result is not None else self.player

    def is_over(self):
        return self.result is not None

    def scores(self):
        return [1 if self.result == 0 else 0, 1 if self.result == 1 else 0]

    def end_scores(self):
        return self.scores()

    def winners(self):
        return [0, 1] if self.result in (None, "draw") else [self.result]
