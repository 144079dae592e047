#!/usr/bin/env python3
"""greedy_bot.py -- a one-ply greedy tessera bot written with tessera_kit.

For every whole move it plays the move on a copy of the position and rates
the position after it; it keeps the move whose rating leads the best other
seat's by the most (ties: a random one of the best). In Carcassonne the
rating of a seat is its score, plus what each feature it holds should still
bring (a feature near completion is worth nearly its completed value; a
field its completed cities and some of the others), plus a value for each
meeple in hand that shrinks as the bag empties -- all read from the kit's
features (union-find, open sides, pennants, fields' cities). In the other
games it takes a win when it sees one and otherwise plays by the kit's
end_scores() (Reversi: discs).

    export PYTHONPATH=kit/python      # from a checkout: the kit, shown to the sandboxed bot
    tessera doctor -- python3 kit/python/examples/greedy_bot.py
    tessera match carcassonne "cmd:python3 kit/python/examples/greedy_bot.py" heuristic
"""
import os
import random
import sys
import time

try:
    import tessera_kit
except ImportError:  # run from a checkout: the kit is the folder above
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    try:
        import tessera_kit
    except ImportError:  # in tessera's sandbox, which shows only this folder
        sys.exit("tessera_kit not found: run with PYTHONPATH=kit/python (tessera shows the "
                 "program its PYTHONPATH), or copy or install the kit (docs/kit.md)")

from tessera_kit import Bot, run


HAND = (0.0, 6.0, 10.0, 13.0, 15.0, 16.5, 17.5, 18.0)  # worth of 0..7 meeples in hand


def carcassonne_rating(state):
    """Each seat's score plus what its features and meeples should still bring."""
    left = state.bag_n / 71.0                     # share of the game still to come
    soon = min(1.0, 2.5 * left)
    total = [float(s) for s in state.score]
    for f in state.features(("city", "road", "cloister")) if soon > 0 else ():
        if f.complete:
            continue
        if f.kind == "city":
            done = 2 * f.tiles + 2 * f.pennants   # if it is completed
            hope = (0.85, 0.6, 0.4, 0.3)[min(f.open, 4) - 1] if f.open > 0 else 1.0
            v = f.value + (done - f.value) * hope * soon
        elif f.kind == "road":
            v = f.value + 0.5 * f.open * soon
        else:
            v = f.value + (9 - f.value) * min(1.0, 1.5 * left)
        if f.owners:
            for p in f.owners:
                total[p] += v
        else:  # a prize the next seat may claim
            total[(state.player) % state.players] += 0.25 * v
    for f in state.held_features():
        if f.kind == "field":
            v = f.value + 1.5 * f.cities_open * min(1.0, 2.0 * left)
            for p in f.owners:
                total[p] += v
        elif f.complete or soon == 0:
            for p in f.owners:
                total[p] += f.value
    for p in range(state.players):
        total[p] += HAND[state.supply[p]] * soon
    return total


class Greedy(Bot):
    name = "greedy"

    def rating(self, state, seat):
        if state.game == "carcassonne":
            r = carcassonne_rating(state)
        elif state.is_over():
            w = state.winners()
            r = [1000.0 if p in w and len(w) == 1 else 0.0 for p in range(state.players)]
        else:
            r = [float(x) for x in state.end_scores()]
        return r[seat] - max(x for p, x in enumerate(r) if p != seat)

    def choose(self, turn):
        state, seat = turn.state, turn.seat
        moves = state.moves()
        random.shuffle(moves)  # ties go to a random one of the best
        # rate moves while half the time left remains (a low clock: the first few)
        deadline = time.monotonic() + turn.budget(0.5)
        best, best_value, rated = moves[0], None, 0
        for m in moves:
            v = self.rating(state.copy().apply(m), seat)
            rated += 1
            if best_value is None or v > best_value:
                best, best_value = m, v
            if time.monotonic() > deadline:
                break
        turn.debug = "rated %d of %d moves, best %+.1f" % (rated, len(moves), best_value)
        return best


if __name__ == "__main__":
    run(Greedy())
