"""The games the kit models, by their protocol names.

    state = parse_state("carcassonne", {"players": 2}, msg["state"])
    state = new_state("reversi")                 # a fresh game, e.g. to test a bot offline

Every game's State has the same surface: ``to_move`` (a seat, None at the
end), ``legal()`` (the entries your_turn lists), ``moves()`` (every whole
move), ``apply(move)`` (checked, in place), ``copy()``, ``is_over()``,
``scores()``, ``end_scores()`` (scores if the game ended now), ``winners()``,
``needs_draw()`` / ``sample_chance(rng)`` (a chance event pending, and one
drawn; Carcassonne only) and ``to_json()`` (the public state as the server
sends it).
"""

from . import carcassonne, dodgem, pentago, reversi

GAMES = {
    "carcassonne": carcassonne.State,
    "reversi": reversi.State,
    "dodgem": dodgem.State,
    "pentago-twist": pentago.State,
}


def state_class(game):
    try:
        return GAMES[game]
    except KeyError:
        raise ValueError("the kit does not know the game %r (it knows %s)"
                         % (game, ", ".join(sorted(GAMES)))) from None


def parse_state(game, rules, state):
    """The State of a public state the server sent, under the match's rules."""
    return state_class(game).from_json(state, rules)


def new_state(game, rules=None):
    """The first position of a game under rules (a dict; defaults for what is missing)."""
    return state_class(game).new(rules)
