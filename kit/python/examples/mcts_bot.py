#!/usr/bin/env python3
"""mcts_bot.py -- Monte Carlo tree search for any tessera game, with tessera_kit.

UCT over whole moves, open loop: every iteration copies the position, and
where the game draws (a Carcassonne tile) it samples the draw from the bag,
so the tree never sees the real tile order. A node grows children slowly
(progressive widening: about 2 x sqrt(visits) of them, the root's first ones
being the greedy example's best moves in Carcassonne), so that a search of a
few hundred iterations still looks deeper than one ply in a game with
hundreds of moves. Playouts are random (the kit's random_move) and stop after
--depth turns in Carcassonne, where the position is rated by its score if
the game ended then; elsewhere they play to the end. The reward is the
margin over the best other seat (Carcassonne, squashed into 0..1) or the
result (1 win, 0.5 draw, 0 loss).

    python3 kit/python/examples/mcts_bot.py --ms 1000       # stdio, 1 s a move at most
    PYTHONPATH=kit/python tessera doctor -- python3 kit/python/examples/mcts_bot.py --ms 300
"""
import argparse
import json
import math
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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from greedy_bot import Greedy  # noqa: E402  (the root's first candidates)

C = 0.7        # UCT exploration
ROOT_PRIOR = 6  # Carcassonne: the greedy example's best moves are tried first


class Node:
    __slots__ = ("children", "order", "n", "w")

    def __init__(self):
        self.children = {}  # move key -> (move, Node)
        self.order = None   # keys in the order they may be expanded (root: by prior)
        self.n = 0
        self.w = 0.0        # total reward of the seat that moved into this node


def key(move):
    return json.dumps(move, sort_keys=True)


class Mcts(Bot):
    name = "mcts"

    def __init__(self, ms=1000, depth=12, seed=None):
        self.ms = ms
        self.depth = depth
        self.rng = random.Random(seed)
        self.greedy = Greedy()

    def reward(self, st, seat):
        if st.game == "carcassonne":
            s = st.end_scores()
            lead = s[seat] - max(x for p, x in enumerate(s) if p != seat)
            return 0.5 + 0.5 * math.tanh(lead / 20.0)
        w = st.winners()
        return 1.0 / len(w) if seat in w else 0.0

    def rollout(self, st):
        turns = 0
        while not st.is_over():
            if st.needs_draw():
                st.sample_chance(self.rng)
                continue
            if st.game == "carcassonne" and turns >= self.depth:
                break
            st.apply(st.random_move(self.rng))
            turns += 1

    def iterate(self, root, state):
        st = state.copy()
        node, path = root, []
        while not st.is_over():
            if st.needs_draw():
                st.sample_chance(self.rng)
                continue
            mover = st.to_move
            moves = {key(m): m for m in st.moves()}
            if node.order is None:
                node.order = list(moves)
                self.rng.shuffle(node.order)
            width = max(1, int(2 * math.sqrt(node.n + 1)))
            grown = [k for k in node.order[:width] if k in moves]
            fresh = [k for k in grown if k not in node.children]
            if fresh:
                k = fresh[0]
                child = Node()
                node.children[k] = (moves[k], child)
                st.apply(moves[k])
                path.append((child, mover))
                break
            live = [node.children[k] for k in grown if k in node.children]
            if not live:  # this sample's moves are none of the tree's: expand one
                k = self.rng.choice(list(moves))
                node.order.append(k)
                node.children[k] = (moves[k], Node())
                live = [node.children[k]]
            logn = math.log(node.n + 1)
            move, child = max(live, key=lambda mc: mc[1].w / (mc[1].n + 1e-9)
                              + C * math.sqrt(logn / (mc[1].n + 1e-9)))
            st.apply(move)
            path.append((child, mover))
            node = child
        self.rollout(st)
        root.n += 1
        for child, mover in path:
            child.n += 1
            child.w += self.reward(st, mover)

    def choose(self, turn):
        state = turn.state
        start = time.monotonic()
        budget = min(self.ms / 1000.0, turn.budget(0.5))
        deadline = start + budget
        root = Node()
        if state.game == "carcassonne" and budget > 0.1:
            # the greedy example's best moves first, rated in a third of the time
            moves = state.moves()
            self.rng.shuffle(moves)
            rated = []
            for m in moves:
                rated.append((self.greedy.rating(state.copy().apply(m), turn.seat), len(rated), m))
                if time.monotonic() > start + budget / 3:
                    break
            rated.sort(reverse=True)
            first = [key(m) for _, _, m in rated[:ROOT_PRIOR]]
            root.order = first + [key(m) for m in moves if key(m) not in first]
        iters = 0
        while iters < 2 or time.monotonic() < deadline:
            self.iterate(root, state)
            iters += 1
        move, child = max(root.children.values(), key=lambda mc: mc[1].n)
        turn.debug = "%d iterations, %d children, value %.2f" % (
            iters, len(root.children), child.w / max(child.n, 1))
        return move


if __name__ == "__main__":
    ap = argparse.ArgumentParser(add_help=False)
    ap.add_argument("--ms", type=int, default=1000, help="most milliseconds a move may take")
    ap.add_argument("--depth", type=int, default=12, help="Carcassonne: turns a playout plays")
    a, rest = ap.parse_known_args()
    run(Mcts(a.ms, a.depth), rest)
