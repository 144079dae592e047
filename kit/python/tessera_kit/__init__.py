"""tessera_kit: write a tessera bot in Python (docs/kit.md).

    from tessera_kit import Bot, run

    class Greedy(Bot):
        def choose(self, turn):
            return max(turn.state.moves(), key=lambda m: self.value(turn, m))

    run(Greedy())     # stdio (tessera doctor, bridge, tournaments) or --url ... (WebSocket)

Standard library only (the WebSocket loop uses the ``websockets`` package
when it is used); Python 3.9 or later.
"""

from .bot import Bot, Turn
from .games import GAMES, new_state, parse_state
from .runner import run, run_stdio

__all__ = ["Bot", "Turn", "GAMES", "new_state", "parse_state", "run", "run_stdio"]
__version__ = "1.0.0"
