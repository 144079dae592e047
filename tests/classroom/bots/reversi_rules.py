"""reversi_rules.py -- Reversi rules for the classroom test bots (imported by
minimax.py: a submission of two files). The board is the stdio protocol's:
eight strings, rank 8 first, X for seat 0 (Black), O for seat 1 (White)."""

DIRS = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]


def parse(rows):
    """The board as a dict (file, rank) -> 'X'/'O', files and ranks 0..7."""
    cells = {}
    for i, row in enumerate(rows):
        rank = 7 - i
        for f, ch in enumerate(row):
            if ch in "XO":
                cells[(f, rank)] = ch
    return cells


def name(sq):
    return "abcdefgh"[sq[0]] + str(sq[1] + 1)


def square(text):
    return ("abcdefgh".index(text[0]), int(text[1]) - 1)


def flips(cells, sq, me):
    them = "O" if me == "X" else "X"
    out = []
    for dx, dy in DIRS:
        run = []
        x, y = sq[0] + dx, sq[1] + dy
        while 0 <= x < 8 and 0 <= y < 8 and cells.get((x, y)) == them:
            run.append((x, y))
            x, y = x + dx, y + dy
        if run and 0 <= x < 8 and 0 <= y < 8 and cells.get((x, y)) == me:
            out.extend(run)
    return out


def moves(cells, me):
    return [(x, y) for x in range(8) for y in range(8)
            if (x, y) not in cells and flips(cells, (x, y), me)]


def play(cells, sq, me):
    nxt = dict(cells)
    nxt[sq] = me
    for f in flips(cells, sq, me):
        nxt[f] = me
    return nxt
