"""The kit's own tests (python3 -m unittest discover -s kit/python/tests).

What the conformance vectors cannot see: the stdio loop (long-running and
stateless messages, a choose() that fails or cheats, the fallback), the
clock of a Turn, the tile data, whole games played offline with the models
(every game ends; Carcassonne's bag, board and discards add up), the
Feature view of a hand-played position, and the example bots (legal moves
in every game). Run from anywhere: the kit is found beside this folder.
"""

import importlib.util
import io
import json
import os
import random
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
KIT = os.path.dirname(HERE)
sys.path.insert(0, KIT)

import tessera_kit  # noqa: E402
from tessera_kit import Bot, Turn, carcassonne, new_state, run_stdio  # noqa: E402
from tessera_kit.bot import decide  # noqa: E402


def load_example(name):
    sys.path.insert(0, os.path.join(KIT, "examples"))
    spec = importlib.util.spec_from_file_location(name, os.path.join(KIT, "examples", name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def your_turn(state, game, rules, seat=None, stateless=False, turn=1, time_left_ms=5000):
    msg = {"type": "your_turn", "match": "g1", "seat": state.to_move if seat is None else seat,
           "turn": turn, "state": state.to_json(), "legal": state.legal(),
           "time_left_ms": time_left_ms, "deadline": 0}
    if stateless:
        msg.update({"protocol": 1, "game": game, "rules": rules, "history": []})
    return msg


def carcassonne_turn_state(seed=1, turns=0, players=2):
    rng = random.Random(seed)
    s = new_state("carcassonne", {"players": players})
    while True:
        if s.needs_draw():
            s.draw_random(rng)
            continue
        if s.turns > turns or s.is_over():
            return s
        s.apply(s.random_move(rng))


class FirstEntry(Bot):
    def choose(self, turn):
        turn.debug = "first"
        return turn.legal[0]


class Raises(Bot):
    def choose(self, turn):
        raise ZeroDivisionError("oops")


class Cheats(Bot):
    def choose(self, turn):
        return {"x": 40, "y": 40, "rot": 0}


class TestStdioLoop(unittest.TestCase):
    def run_lines(self, bot, lines, **kw):
        out = io.StringIO()
        run_stdio(bot, io.StringIO("".join(json.dumps(m) + "\n" for m in lines)), out, **kw)
        return [json.loads(x) for x in out.getvalue().splitlines()]

    def test_long_running_game(self):
        s = carcassonne_turn_state(turns=5)
        rules = {"players": 2, "tiny_city": 4, "farms": True}
        start = {"type": "start", "protocol": 1, "game": "carcassonne", "rules": rules, "seat": s.to_move,
                 "match": "g1", "history": [], "state": s.to_json()}
        seen = []

        class Watch(FirstEntry):
            def on_update(self, msg):
                seen.append("update")

            def on_game_over(self, msg):
                seen.append("over")

        replies = self.run_lines(Watch(), [start, your_turn(s, "carcassonne", rules, turn=7),
                                           {"type": "update", "turn": 7},
                                           {"type": "game_over", "scores": [1, 2]}])
        self.assertEqual(len(replies), 1)
        r = replies[0]
        self.assertEqual(r["type"], "move")
        self.assertEqual(r["turn"], 7)
        self.assertEqual(r["debug"], "first")
        e = dict(s.legal()[0])
        e.pop("meeples")
        self.assertEqual(r["move"], e)  # the entry without its "meeples"
        self.assertEqual(seen, ["update", "over"])

    def test_stateless_request_carries_game_and_rules(self):
        s = new_state("reversi")
        replies = self.run_lines(FirstEntry(), [your_turn(s, "reversi", {"players": 2}, stateless=True)])
        self.assertEqual(replies[0]["move"], s.legal()[0])

    def test_every_game_answers(self):
        for game in tessera_kit.GAMES:
            s = new_state(game)
            while s.needs_draw():
                s.sample_chance(random.Random(1))
            replies = self.run_lines(FirstEntry(), [your_turn(s, game, s.rules, stateless=True)])
            s.copy().apply(replies[0]["move"])  # legal, or ValueError

    def test_a_failing_choose_plays_a_legal_move_and_says_why(self):
        s = new_state("dodgem", {"size": 4})
        err = io.StringIO()
        old, sys.stderr = sys.stderr, err
        try:
            replies = self.run_lines(Raises(), [your_turn(s, "dodgem", s.rules, stateless=True)])
        finally:
            sys.stderr = old
        self.assertIn(replies[0]["move"], s.legal())
        self.assertIn("ZeroDivisionError: oops", err.getvalue())
        self.assertIn("choose() failed", err.getvalue())

    def test_an_illegal_move_is_replaced(self):
        s = carcassonne_turn_state(turns=3)
        t = Turn(your_turn(s, "carcassonne", s.rules), "carcassonne", s.rules)
        err = io.StringIO()
        old, sys.stderr = sys.stderr, err
        try:
            move = decide(Cheats(), t)
        finally:
            sys.stderr = old
        self.assertIn("illegal move", err.getvalue())
        s.copy().apply(move)

    def test_no_fallback_lets_the_error_through(self):
        s = new_state("pentago-twist")
        with self.assertRaises(ZeroDivisionError):
            self.run_lines(Raises(), [your_turn(s, "pentago-twist", s.rules, stateless=True)],
                           fallback=False)

    def test_blank_lines_and_errors_are_read(self):
        s = new_state("reversi")
        inp = io.StringIO("\n" + json.dumps({"type": "error", "code": "illegal_move", "message": "no"})
                          + "\n" + json.dumps(your_turn(s, "reversi", s.rules, stateless=True)) + "\n")
        out, err = io.StringIO(), io.StringIO()
        old, sys.stderr = sys.stderr, err
        try:
            run_stdio(FirstEntry(), inp, out)
        finally:
            sys.stderr = old
        self.assertIn("refused: illegal_move: no", err.getvalue())
        self.assertEqual(len(out.getvalue().splitlines()), 1)


class TestWebSocketMissing(unittest.TestCase):
    def test_names_the_python_without_it(self):
        # a python3 first on the PATH without the package (pyenv, a venv) while Debian's
        # has it: the error says which Python lacks it (found in the issue 28 tryout)
        saved = {k: sys.modules.pop(k) for k in list(sys.modules)
                 if k == "websockets" or k.startswith("websockets.") or k == "tessera_kit.ws"}
        sys.modules["websockets"] = None  # import websockets raises ImportError
        try:
            with self.assertRaises(ImportError) as cm:
                importlib.import_module("tessera_kit.ws")
            self.assertIn(sys.executable, str(cm.exception))
            self.assertIn("/usr/bin/python3", str(cm.exception))
        finally:
            del sys.modules["websockets"]
            sys.modules.pop("tessera_kit.ws", None)
            sys.modules.update(saved)


class TestTurn(unittest.TestCase):
    def test_clock(self):
        s = new_state("reversi")
        t = Turn(your_turn(s, "reversi", s.rules, time_left_ms=1000), "reversi", s.rules,
                 received=time.monotonic() - 0.4)
        self.assertAlmostEqual(t.time_left(), 0.6, delta=0.1)
        self.assertAlmostEqual(t.budget(0.5, margin_s=0.1), 0.2, delta=0.1)
        self.assertEqual(t.budget(0.5, margin_s=5), 0.0)
        self.assertLessEqual(t.budget(1.0, cap_s=0.05), 0.05)
        msg = your_turn(s, "reversi", s.rules)
        del msg["time_left_ms"]
        self.assertEqual(Turn(msg, "reversi", s.rules).time_left(), float("inf"))

    def test_state_is_parsed_once(self):
        s = new_state("dodgem")
        t = Turn(your_turn(s, "dodgem", s.rules), "dodgem", s.rules)
        self.assertIs(t.state, t.state)
        self.assertEqual(t.state.to_json(), s.to_json())


class TestTiles(unittest.TestCase):
    def test_the_published_tile_set(self):
        ts = carcassonne.tiles()
        self.assertEqual(len(ts.types), 24)
        self.assertEqual(ts.total, 72)
        self.assertEqual(sum(t.count for t in ts.types if any(t.pennant)), 10)
        self.assertEqual(sum(t.count for t in ts.types if t.cloister is not None), 6)
        # symmetric tiles have fewer distinct rotations
        self.assertEqual(ts.by_letter["B"].rots, [0])
        self.assertEqual(ts.by_letter["C"].rots, [0])
        self.assertEqual(ts.by_letter["U"].rots, [0, 1])
        self.assertEqual(ts.by_letter["V"].rots, [0, 1, 2, 3])

    def test_data_without_field_cities_is_refused(self):
        path = os.path.join(KIT, "tessera_kit", "data", "games.json")
        with open(path) as f:
            data = json.load(f)
        entry = next(g for g in data["games"] if g["name"] == "carcassonne")
        entry = json.loads(json.dumps(entry))
        del entry["tiles"]["A"]["field_cities"]
        with self.assertRaises(ValueError):
            carcassonne.TileSet(entry)


class TestWholeGames(unittest.TestCase):
    def test_random_games_end(self):
        rng = random.Random(7)
        for game in tessera_kit.GAMES:
            for k in range(3):
                rules = {"players": 2 + k} if game == "carcassonne" else None
                s = new_state(game, rules)
                plies = 0
                while not s.is_over():
                    if s.needs_draw():
                        s.sample_chance(rng)
                    else:
                        s.apply(s.random_move(rng))
                        plies += 1
                    self.assertLess(plies, 1000, game)
                if game == "carcassonne":
                    self.assertEqual(s.bag_n, 0)
                    self.assertEqual(len(s.placed) + s.discards, 72)
                    self.assertEqual(s.end_scores(), s.scores())
                    # every meeple is on the board or in hand
                    self.assertEqual(sum(s.supply) + len(s.meeples), 7 * s.players)

    def test_to_json_round_trip(self):
        s = carcassonne_turn_state(seed=3, turns=30, players=3)
        again = carcassonne.State.from_json(s.to_json(), s.rules)
        self.assertEqual(again.to_json(), s.to_json())
        self.assertEqual(sorted(map(json.dumps, again.legal())), sorted(map(json.dumps, s.legal())))


class TestFeatures(unittest.TestCase):
    def test_a_city_completed_with_a_meeple(self):
        # the start tile D has its city to the north; an E with rot 2 (city south)
        # closes it at (0,-1): a two-tile city, 4 points (2 under tiny_city=2)
        for tiny, points in ((4, 4), (2, 2)):
            s = new_state("carcassonne", {"players": 2, "tiny_city": tiny})
            s.draw("E")
            self.assertIn({"x": 0, "y": -1, "rot": 2, "meeples": ["S", "N"]}, s.legal())
            f = None
            before = s.copy()
            before._place(s.ts.by_letter["E"], 2, 0, -1)
            f = before.feature_at(0, 0, "N")
            self.assertEqual((f.kind, f.tiles, f.complete, f.value), ("city", 2, True, points))
            s.apply({"x": 0, "y": -1, "rot": 2, "meeple": "S"})
            self.assertEqual(s.scores(), [points, 0])
            self.assertEqual(s.supply, [7, 7])  # the meeple came back
            self.assertEqual(s.to_json()["board"][1]["closed"], ["S"])

    def test_a_field_scores_at_the_end(self):
        s = new_state("carcassonne", {"players": 2})
        s.draw("E")
        s.apply({"x": 0, "y": -1, "rot": 2, "meeple": "N"})  # a field north of the closed city
        f = s.feature_at(0, -1, "N")
        self.assertEqual((f.kind, f.owners, f.value, f.cities_closed), ("field", [0], 3, 1))
        self.assertEqual(s.end_scores(), [3, 0])
        self.assertEqual(s.meeples_on(f.root), [1, 0])


class TestExamples(unittest.TestCase):
    def test_they_play_legal_moves_in_every_game(self):
        greedy = load_example("greedy_bot").Greedy()
        mcts = load_example("mcts_bot").Mcts(ms=50)
        rng = random.Random(11)
        for game in tessera_kit.GAMES:
            s = new_state(game)
            for _ in range(6):  # a few turns into the game
                if s.needs_draw():
                    s.sample_chance(rng)
                if not s.is_over():
                    s.apply(s.random_move(rng))
            while s.needs_draw():
                s.sample_chance(rng)
            if s.is_over():
                continue
            for bot in (greedy, mcts):
                t = Turn(your_turn(s, game, s.rules), game, s.rules)
                move = decide(bot, t, fallback=False)
                s.copy().apply(move)


if __name__ == "__main__":
    unittest.main()
