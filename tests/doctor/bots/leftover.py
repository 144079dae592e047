# Prints a copy of each move on stdout as it goes on thinking ("what did I
# send?"), a moment after the move itself. Between turns the copies are
# dropped as lines printed outside the turn; the copy of the last move of a
# game comes after game_over and is still there when the next game's first
# turn is read: not_your_turn, whose cause is that leftover line, not the
# bot's game state (issue 30, item 5).
import json, sys, time
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "your_turn":
        move = {"type": "move", "turn": msg["turn"], "move": msg["legal"][0]}
        print(json.dumps(move), flush=True)
        time.sleep(0.05)
        print(json.dumps(move), flush=True)  # the debugging copy, on the wrong stream
