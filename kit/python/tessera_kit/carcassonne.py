"""Carcassonne for bots: the tiles, the board, features and scoring.

The tile set is not typed in here: it is loaded from the game's published
data (``tessera games --json``, the server's ``list_games`` reply), shipped
with the kit as ``data/games.json``. Each tile type is a port map -- one
letter per port naming the feature there -- with its count, its pennant and
which cities each of its fields touches.

A ``State`` is built from the public state the server sends (``your_turn``'s
``state``), or with ``State.new(rules)`` for a fresh game. It lists the legal
moves exactly as the server does (``legal()``: placements with the ports a
meeple may go on; ``moves()``: every whole move), applies moves and draws
(``apply``, ``draw``), tracks features with a union-find over tile segments
(open or closed, meeples on them, their value now) and scores completed
features at once and everything at the end, fields included -- the rules of
docs/rules.md. ``to_json()`` gives back the public state, so the kit can be
checked field by field against the engine's conformance vectors.

Notation (docs/rules.md): x grows east, y grows south; ``rot`` counts
clockwise quarter turns; ports N E S W (edge centres), NW NE EN ES SE SW WS
WN (edge halves, clockwise from the north-west), C (cloister).
"""

import json
import os
import random

PORTS = ("NW", "N", "NE", "EN", "E", "ES", "SE", "S", "SW", "WS", "W", "WN", "C")
PORT_INDEX = {p: i for i, p in enumerate(PORTS)}
C_PORT = 12
CENTRES = (1, 4, 7, 10)  # N E S W

NONE, CITY, ROAD, FIELD, CLOISTER = 0, 1, 2, 3, 4
KIND_NAMES = {CITY: "city", ROAD: "road", FIELD: "field", CLOISTER: "cloister"}
_KIND_OF_LETTER = {"c": CITY, "d": CITY, "r": ROAD, "s": ROAD, "t": ROAD, "u": ROAD,
                   "f": FIELD, "g": FIELD, "h": FIELD, "i": FIELD, "k": CLOISTER}

# side d (N=0, E=1, S=2, W=3): the neighbour's offset
_DX = (0, 1, 0, -1)
_DY = (-1, 0, 1, 0)
_AROUND = ((-1, -1), (0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0))
MEEPLES = 7


class TileType:
    """One tile type, every rotation precomputed from its port map.

    Features of the tile ("segments") are numbered in the order their letter
    first appears in the unrotated port map, as the engine numbers them.
    """

    def __init__(self, letter, index, count, ports, pennant, field_cities):
        self.letter = letter
        self.index = index
        self.count = count
        self.ports = ports
        letters = []
        for ch in ports:
            if ch != "." and ch not in letters:
                letters.append(ch)
        self.nseg = len(letters)
        self.kind = [_KIND_OF_LETTER[ch] for ch in letters]
        base = [letters.index(ch) if ch != "." else None for ch in ports]
        # sides a city or road reaches (its open ends when placed alone)
        self.edges = [sum(1 for d in range(4) if base[3 * d + 1] == s)
                      if self.kind[s] in (CITY, ROAD) else 0 for s in range(self.nseg)]
        self.pennant = [1 if pennant and self.kind[s] == CITY else 0 for s in range(self.nseg)]
        # for a field: the local indices of the cities it touches
        self.cities = [[] for _ in range(self.nseg)]
        for f, cs in field_cities.items():
            self.cities[letters.index(f)] = sorted(letters.index(c) for c in cs)
        self.cloister = base[C_PORT]
        # rotation r: board port q shows the unrotated port q - 3r
        self.seg = []
        self.edge = []
        for r in range(4):
            s = [base[(q - 3 * r) % 12] for q in range(12)] + [base[C_PORT]]
            self.seg.append(s)
            self.edge.append(tuple(self.kind[s[3 * d + 1]] for d in range(4)))
        # the port that names segment s in rotation r: a centre first
        self.port_of = []
        for r in range(4):
            names = []
            for s in range(self.nseg):
                p = next((q for q in CENTRES if self.seg[r][q] == s), None)
                if p is None:
                    p = next((q for q in range(13) if self.seg[r][q] == s), None)
                names.append(p)
            self.port_of.append(names)
        # rotations giving the same tile share the lowest one
        self.canon = []
        for r in range(4):
            c = next(r2 for r2 in range(r + 1) if self._same(r2, r))
            self.canon.append(c)
        self.rots = [r for r in range(4) if self.canon[r] == r]

    def _same(self, a, b):
        sa, sb = self.seg[a], self.seg[b]
        for p in range(13):
            ka = self.kind[sa[p]] if sa[p] is not None else NONE
            kb = self.kind[sb[p]] if sb[p] is not None else NONE
            if ka != kb:
                return False
            for q in range(p + 1, 13):
                if (sa[p] is not None and sa[p] == sa[q]) != (sb[p] is not None and sb[p] == sb[q]):
                    return False
        return True

    def __repr__(self):
        return "TileType(%s)" % self.letter


def _default_data_path():
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "games.json")


class TileSet:
    """The tile types of the game, from its published data."""

    def __init__(self, entry):
        order = entry.get("port_order", "")
        if order.split() != list(PORTS):
            raise ValueError("carcassonne data: port_order %r, expected %r" % (order, " ".join(PORTS)))
        tiles = entry["tiles"]
        self.types = []
        for i, letter in enumerate(sorted(tiles)):
            t = tiles[letter]
            if "field_cities" not in t:
                raise ValueError("carcassonne data: tile %s has no field_cities "
                                 "(a tessera older than the kit's data)" % letter)
            self.types.append(TileType(letter, i, t["count"], t["ports"], t["pennant"],
                                       t["field_cities"]))
        self.by_letter = {t.letter: t for t in self.types}
        self.total = sum(t.count for t in self.types)

    @classmethod
    def load(cls, path=None):
        """The tile set of a games file (``tessera games --json``); the kit's own by default."""
        with open(path or _default_data_path()) as f:
            data = json.load(f)
        games = data["games"] if isinstance(data, dict) and "games" in data else data
        entry = next(g for g in games if g["name"] == "carcassonne")
        return cls(entry)


_TILES = None


def tiles():
    """The kit's tile set (loaded once from data/games.json)."""
    global _TILES
    if _TILES is None:
        _TILES = TileSet.load()
    return _TILES


def use_tiles(tileset):
    """Use another tile set (e.g. from a server's list_games reply) from now on."""
    global _TILES
    _TILES = tileset


class Feature:
    """A feature on the board, as it is now (a snapshot: read, do not keep)."""

    def __init__(self, state, root, counts=None):
        self.root = root
        self.kind = KIND_NAMES[state.kind[root]]
        self.complete = state.is_complete(root)
        self.value = state.feature_value(root)  # worth now: completed, or as at the end
        self.tiles = state.feature_tiles(root)  # distinct tiles
        # city, road: sides still open; cloister: empty cells around; field: 0
        self.open = state.open[root] if state.kind[root] != FIELD else 0
        self.pennants = state.pen[root]
        if counts is None:
            counts = state.meeple_counts()
        self.meeples = counts.get(root) or [0] * state.players  # meeples per seat
        best = max(self.meeples)
        # seats that would score it: the most meeples on it
        self.owners = [p for p, c in enumerate(self.meeples) if best > 0 and c == best]
        # field: completed and incomplete cities it touches
        self.cities_closed, self.cities_open = state.field_cities(root) if self.kind == "field" else (0, 0)

    def __repr__(self):
        return "Feature(%s, %d tiles, %s, value %d, meeples %s)" % (
            self.kind, self.tiles, "complete" if self.complete else "open", self.value, self.meeples)


class State:
    """A Carcassonne position: board, features, meeples, scores and bag."""

    game = "carcassonne"

    # ---- making one ----

    def __init__(self, rules=None, tileset=None):
        self.ts = tileset or tiles()
        rules = dict(rules or {})
        self.players = int(rules.get("players", 2))
        self.tiny_city = int(rules.get("tiny_city", 4))
        self.farms = bool(rules.get("farms", True))
        self.rules = {"players": self.players, "tiny_city": self.tiny_city, "farms": self.farms}
        self.placed = []      # [type, rot, x, y, node0] in the order placed
        self.grid = {}        # (x, y) -> index into placed
        self.opens = {}       # (x, y) -> [required kind per side N E S W, 0 = free]
        self.par = []         # union-find over segments
        self.kind = []        # segment kind
        self.tile_of = []     # segment -> index into placed
        self.open = []        # root: unmatched sides (city, road); cloister: empty neighbours
        self.pen = []         # root: pennants
        self.members = []     # root: its segments
        self.meeples = []     # [node, seat]
        self.score = [0] * self.players
        self.supply = [MEEPLES] * self.players
        self.bag = [t.count for t in self.ts.types]
        self.bag_n = 0
        self.turns = 0
        self.discards = 0
        self.phase = "draw"
        self.player = 0
        self.drawn = None     # TileType being placed (or just discarded)
        self.dead = False     # the last draw was discarded
        self._complete = []   # roots completed by the last placement, scored after the meeple

    @classmethod
    def new(cls, rules=None, tileset=None):
        """The start of a game: the start tile D at (0,0), the other tiles in the bag."""
        s = cls(rules, tileset)
        d = s.ts.by_letter["D"]
        s.bag[d.index] -= 1
        s.bag_n = sum(s.bag)
        s._place(d, 0, 0, 0)
        s._complete = []
        return s

    @classmethod
    def from_json(cls, state, rules=None, tileset=None):
        """The position of a public state (your_turn's ``state``) under ``rules``."""
        s = cls(rules, tileset)
        if len(state["scores"]) != s.players:
            raise ValueError("the state has %d seats, the rules %d" % (len(state["scores"]), s.players))
        for b in state["board"]:
            t = s.ts.by_letter[b["tile"]]
            s._place(t, t.canon[b["rot"] & 3], b["x"], b["y"])
        s._complete = []
        for m in state["meeples"]:
            i = s.grid[(m["x"], m["y"])]
            t, rot, _, _, node0 = s.placed[i]
            seg = t.seg[rot][PORT_INDEX[m["port"]]]
            s.meeples.append([node0 + seg, m["seat"]])
        s.score = list(state["scores"])
        s.supply = list(state["meeples_left"])
        s.bag = [state["bag"].get(t.letter, 0) for t in s.ts.types]
        s.bag_n = sum(s.bag)
        s.turns = state["turn"]
        s.discards = state.get("discards", 0)
        s.phase = state["phase"]
        if s.phase == "meeple":
            raise ValueError("a state in the meeple phase is never sent to a bot")
        s.player = state["to_move"] if state["to_move"] is not None else 0
        s.drawn = s.ts.by_letter[state["tile"]] if state.get("tile") else None
        s.dead = s.phase == "draw" and s.drawn is not None
        return s

    def copy(self):
        c = State.__new__(State)
        c.ts = self.ts
        c.players, c.tiny_city, c.farms, c.rules = self.players, self.tiny_city, self.farms, self.rules
        c.placed = [p[:] for p in self.placed]
        c.grid = dict(self.grid)
        c.opens = {k: v[:] for k, v in self.opens.items()}
        c.par = self.par[:]
        c.kind = self.kind[:]
        c.tile_of = self.tile_of[:]
        c.open = self.open[:]
        c.pen = self.pen[:]
        c.members = [m[:] if m is not None else None for m in self.members]
        c.meeples = [m[:] for m in self.meeples]
        c.score = self.score[:]
        c.supply = self.supply[:]
        c.bag = self.bag[:]
        c.bag_n, c.turns, c.discards = self.bag_n, self.turns, self.discards
        c.phase, c.player, c.drawn, c.dead = self.phase, self.player, self.drawn, self.dead
        c._complete = self._complete[:]
        return c

    # ---- union-find ----

    def find(self, n):
        par = self.par
        while par[n] != n:
            par[n] = par[par[n]]
            n = par[n]
        return n

    def _unite(self, a, b):
        a, b = self.find(a), self.find(b)
        if a == b:
            return a
        if len(self.members[a]) < len(self.members[b]):
            a, b = b, a
        self.par[b] = a
        self.members[a].extend(self.members[b])
        self.members[b] = None
        self.open[a] += self.open[b]
        self.pen[a] += self.pen[b]
        return a

    # ---- placing a tile ----

    def _place(self, t, rot, x, y):
        idx = len(self.placed)
        node0 = len(self.par)
        self.placed.append([t, rot, x, y, node0])
        self.grid[(x, y)] = idx
        for g in range(t.nseg):
            n = node0 + g
            self.par.append(n)
            self.kind.append(t.kind[g])
            self.tile_of.append(idx)
            self.open.append(t.edges[g])
            self.pen.append(t.pennant[g])
            self.members.append([n])
        self.opens.pop((x, y), None)
        seg, edge = t.seg[rot], t.edge[rot]
        farms = self.farms
        for d in range(4):
            nx, ny = x + _DX[d], y + _DY[d]
            od = (d + 2) & 3
            j = self.grid.get((nx, ny))
            if j is None:
                req = self.opens.get((nx, ny))
                if req is None:
                    req = self.opens[(nx, ny)] = [0, 0, 0, 0]
                req[od] = edge[d]
                continue
            q, qrot, _, _, q0 = self.placed[j]
            qs = q.seg[qrot]
            a, b = node0 + seg[3 * d + 1], q0 + qs[3 * od + 1]
            if edge[d] == FIELD:
                if farms:
                    self._unite(a, b)
                continue
            r = self._unite(a, b)
            self.open[r] -= 2
            if edge[d] == ROAD and farms:
                self._unite(node0 + seg[3 * d], q0 + qs[3 * od + 2])
                self._unite(node0 + seg[3 * d + 2], q0 + qs[3 * od])
        complete = []
        for g in range(t.nseg):
            if t.kind[g] in (CITY, ROAD):
                r = self.find(node0 + g)
                if self.open[r] == 0 and r not in complete:
                    complete.append(r)
        filled = 0
        for ax, ay in _AROUND:
            j = self.grid.get((x + ax, y + ay))
            if j is None:
                continue
            filled += 1
            q, _, _, _, q0 = self.placed[j]
            if q.cloister is not None:
                cn = q0 + q.cloister
                self.open[cn] -= 1
                if self.open[cn] == 0:
                    complete.append(cn)
        if t.cloister is not None:
            cn = node0 + t.cloister
            self.open[cn] = 8 - filled
            if filled == 8:
                complete.append(cn)
        self._complete = complete

    # ---- reading the board ----

    def tile_at(self, x, y):
        """(TileType, rot) of the tile at (x, y), or None."""
        i = self.grid.get((x, y))
        return None if i is None else (self.placed[i][0], self.placed[i][1])

    def node_at(self, x, y, port):
        """The segment at a port ("N", "WS", "C", ...) of the tile at (x, y), or None."""
        i = self.grid.get((x, y))
        if i is None:
            return None
        t, rot, _, _, node0 = self.placed[i]
        s = t.seg[rot][PORT_INDEX[port] if isinstance(port, str) else port]
        return None if s is None else node0 + s

    def feature_at(self, x, y, port):
        """The Feature at a port of the tile at (x, y), or None."""
        n = self.node_at(x, y, port)
        return None if n is None else Feature(self, self.find(n))

    def is_complete(self, root):
        k = self.kind[root]
        return k != FIELD and self.open[root] == 0

    def feature_tiles(self, root):
        tile_of = self.tile_of
        return len({tile_of[n] for n in self.members[root]})

    def feature_value(self, root):
        """What the feature at root is worth now to whoever holds it: its value if
        completed, else what it would score at the end (fields: 3 per completed city)."""
        k = self.kind[root]
        if k == CITY:
            tiles_ = self.feature_tiles(root)
            if self.open[root] != 0:
                return tiles_ + self.pen[root]
            if tiles_ == 2 and self.tiny_city == 2:
                return 2
            return 2 * tiles_ + 2 * self.pen[root]
        if k == ROAD:
            return self.feature_tiles(root)
        if k == CLOISTER:
            return 9 - self.open[root]
        if k == FIELD:
            cities = set()
            for n in self.members[root]:
                t, _, _, _, node0 = self.placed[self.tile_of[n]]
                for c in t.cities[n - node0]:
                    cr = self.find(node0 + c)
                    if self.open[cr] == 0:
                        cities.add(cr)
            return 3 * len(cities)
        return 0

    def field_cities(self, root):
        """(completed, incomplete) cities a field touches."""
        closed, opened = set(), set()
        for n in self.members[root]:
            t, _, _, _, node0 = self.placed[self.tile_of[n]]
            for c in t.cities[n - node0]:
                cr = self.find(node0 + c)
                (closed if self.open[cr] == 0 else opened).add(cr)
        return len(closed), len(opened)

    def features(self, kinds=("city", "road", "cloister", "field")):
        """Every feature on the board (one Feature per union-find root) of the kinds asked."""
        want = {k for k, name in KIND_NAMES.items() if name in kinds}
        counts = self.meeple_counts()
        return [Feature(self, n, counts) for n in range(len(self.par))
                if self.par[n] == n and self.kind[n] in want]

    def held_features(self):
        """Every feature with a meeple on it, as Feature snapshots."""
        counts = self.meeple_counts()
        return [Feature(self, r, counts) for r in counts]

    def meeple_counts(self):
        """{root: meeples per seat} of every feature with a meeple on it."""
        out = {}
        for n, seat in self.meeples:
            r = self.find(n)
            c = out.get(r)
            if c is None:
                c = out[r] = [0] * self.players
            c[seat] += 1
        return out

    def meeples_on(self, root):
        """Meeples per seat on the feature at root."""
        return self.meeple_counts().get(root) or [0] * self.players

    def owners(self, root):
        """The seats with the most meeples on the feature (they all score it)."""
        cnt = self.meeples_on(root)
        best = max(cnt)
        return [p for p in range(self.players) if best > 0 and cnt[p] == best]

    def _award(self, root, pts):
        owners = self.owners(root)
        if owners:
            v = self.feature_value(root)
            for p in owners:
                pts[p] += v

    # ---- moves ----

    def is_over(self):
        return self.phase == "over"

    def needs_draw(self):
        """A tile must be drawn (a chance event) before the next decision."""
        return self.phase == "draw"

    @property
    def to_move(self):
        """The seat whose turn it is (who places, or who draws next); None at the end."""
        return None if self.phase == "over" else self.player

    @property
    def tile(self):
        """The letter of the tile in play (to place, or just discarded), or None."""
        return self.drawn.letter if self.drawn is not None and (self.phase == "place" or self.dead) else None

    def _fits(self, t, req):
        return [r for r in t.rots if all(k == 0 or k == e for k, e in zip(req, t.edge[r]))]

    def placements(self, tile=None):
        """Distinct legal placements (x, y, rot) of a tile type (a letter, a TileType,
        or the tile in play), rotations giving the same tile counted once."""
        t = self._type(tile)
        out = []
        for (x, y), req in self.opens.items():
            for r in self._fits(t, req):
                out.append((x, y, r))
        return out

    def fits_somewhere(self, tile):
        t = self._type(tile)
        return any(self._fits(t, req) for req in self.opens.values())

    def _type(self, tile):
        if tile is None:
            if self.drawn is None:
                raise ValueError("no tile in play")
            return self.drawn
        return tile if isinstance(tile, TileType) else self.ts.by_letter[tile]

    def meeple_ports(self, x, y, rot, tile=None):
        """The ports a meeple may go on after placing the tile at (x, y, rot): one per
        distinct unoccupied feature of the tile once merged with its neighbours'
        (lowest segment first, named by its preferred port); none without a meeple
        in hand. The tile is not placed."""
        t = self._type(tile)
        rot = t.canon[rot & 3]
        reps, _ = self._meeple_options(t, x, y, rot)
        return [PORTS[t.port_of[rot][g]] for g in reps]

    def _meeple_options(self, t, x, y, rot):
        """(the segments of t a meeple may go on, lowest of each merged feature
        first; a function from a segment to the lowest segment of its feature)."""
        grp = list(range(t.nseg))

        def top(g):
            while grp[g] != g:
                g = grp[g]
            return g

        if self.supply[self.player] == 0:
            return [], top
        seg, edge = t.seg[rot], t.edge[rot]
        farms = self.farms
        joined = [[] for _ in range(t.nseg)]
        for d in range(4):
            j = self.grid.get((x + _DX[d], y + _DY[d]))
            if j is None:
                continue
            od = (d + 2) & 3
            q, qrot, _, _, q0 = self.placed[j]
            qs = q.seg[qrot]
            if edge[d] == FIELD and not farms:
                continue
            joined[seg[3 * d + 1]].append(self.find(q0 + qs[3 * od + 1]))
            if edge[d] == ROAD and farms:
                joined[seg[3 * d]].append(self.find(q0 + qs[3 * od + 2]))
                joined[seg[3 * d + 2]].append(self.find(q0 + qs[3 * od]))
        # local segments joining a common neighbour feature become one feature
        first = {}
        for g in range(t.nseg):
            for r in joined[g]:
                if r in first:
                    a, b = top(first[r]), top(g)
                    if a != b:
                        grp[max(a, b)] = min(a, b)
                else:
                    first[r] = g
        taken = set(self.find(n) for n, _ in self.meeples)
        busy = [False] * t.nseg
        for g in range(t.nseg):
            if any(r in taken for r in joined[g]):
                busy[top(g)] = True
        reps = [g for g in range(t.nseg)
                if top(g) == g and not busy[g] and (farms or t.kind[g] != FIELD)]
        return reps, top

    def legal(self):
        """The legal entries, as your_turn lists them: {"x","y","rot","meeples":[ports]}."""
        if self.phase != "place":
            return []
        return [{"x": x, "y": y, "rot": r, "meeples": self.meeple_ports(x, y, r)}
                for x, y, r in self.placements()]

    def moves(self):
        """Every whole move: each placement without a meeple and with each port."""
        out = []
        for e in self.legal():
            out.append({"x": e["x"], "y": e["y"], "rot": e["rot"]})
            for p in e["meeples"]:
                out.append({"x": e["x"], "y": e["y"], "rot": e["rot"], "meeple": p})
        return out

    def random_move(self, rng=random):
        """A uniformly random legal move as the engine's random policy draws one: a
        placement uniform over the distinct ones, then a meeple uniform over none and
        the ports it allows. Cheaper than choosing from moves()."""
        x, y, r = rng.choice(self.placements())
        ports = self.meeple_ports(x, y, r)
        k = rng.randrange(len(ports) + 1)
        m = {"x": x, "y": y, "rot": r}
        if k:
            m["meeple"] = ports[k - 1]
        return m

    def apply(self, move):
        """Play a whole move {"x","y","rot","meeple"?} of the seat to move (checked:
        ValueError when it is not legal). Completed features score; at the end of
        the bag the game ends and is scored."""
        if self.phase != "place":
            raise ValueError("no tile to place (phase %s)" % self.phase)
        t = self.drawn
        x, y, rot = move["x"], move["y"], move["rot"]
        req = self.opens.get((x, y))
        if req is None or not isinstance(rot, int) or rot not in range(4):
            raise ValueError("tile %s cannot go at (%s,%s)" % (t.letter, x, y))
        rot = t.canon[rot]
        if rot not in self._fits(t, req):
            raise ValueError("tile %s does not fit at (%d,%d) with rot %d" % (t.letter, x, y, rot))
        port = move.get("meeple")
        rep = None
        if port is not None:
            # any port of a feature names it; the meeple stands on its lowest segment
            reps, top = self._meeple_options(t, x, y, rot)
            seg = t.seg[rot][PORT_INDEX[port]] if port in PORT_INDEX else None
            rep = top(seg) if seg is not None else None
            if rep not in reps:
                raise ValueError("no meeple may go on %s of tile %s at (%d,%d)" % (port, t.letter, x, y))
        self._place(t, rot, x, y)
        if rep is not None:
            self.meeples.append([self.placed[-1][4] + rep, self.player])
            self.supply[self.player] -= 1
        self._end_turn()
        return self

    def _end_turn(self):
        for r in self._complete:
            self._score_and_return(r)
        self._complete = []
        self.player = (self.player + 1) % self.players
        self.phase = "draw"
        self.drawn = None
        self.dead = False
        if self.bag_n == 0:
            self._end_game()

    def _score_and_return(self, root):
        if not any(self.find(n) == root for n, _ in self.meeples):
            return
        pts = [0] * self.players
        self._award(root, pts)
        for p in range(self.players):
            self.score[p] += pts[p]
        keep = []
        for m in self.meeples:
            if self.find(m[0]) == root:
                self.supply[m[1]] += 1
            else:
                keep.append(m)
        self.meeples = keep

    def _end_points(self):
        pts = [0] * self.players
        seen = set()
        for n, _ in self.meeples:
            r = self.find(n)
            if r not in seen:
                seen.add(r)
                self._award(r, pts)
        return pts

    def _end_game(self):
        pts = self._end_points()
        for p in range(self.players):
            self.score[p] += pts[p]
        self.phase = "over"

    def end_scores(self):
        """Every seat's score if the game ended now (incomplete features and fields
        scored as at the end); the final scores once it is over."""
        if self.phase == "over":
            return self.score[:]
        pts = self._end_points()
        return [self.score[p] + pts[p] for p in range(self.players)]

    def scores(self):
        return self.score[:]

    def draw(self, tile):
        """The chance event: `tile` (a letter) is drawn from the bag by the seat to
        move. A tile that fits nowhere is discarded (the same seat draws again); the
        game ends when the bag is empty."""
        if self.phase != "draw":
            raise ValueError("not the time to draw (phase %s)" % self.phase)
        t = self._type(tile)
        if self.bag[t.index] <= 0:
            raise ValueError("no tile %s left in the bag" % t.letter)
        self.bag[t.index] -= 1
        self.bag_n -= 1
        self.turns += 1
        self.drawn = t
        self.dead = not self.fits_somewhere(t)
        if not self.dead:
            self.phase = "place"
            return self
        self.discards += 1
        if self.bag_n == 0:
            self._end_game()
        return self

    def draw_random(self, rng=random):
        """Draw a tile uniformly from the bag (what the server does, unseen)."""
        k = rng.randrange(self.bag_n)
        for t in self.ts.types:
            if k < self.bag[t.index]:
                return self.draw(t)
            k -= self.bag[t.index]
        raise AssertionError("bag count out of step")

    def sample_chance(self, rng=random):
        return self.draw_random(rng)

    def winners(self):
        best = max(self.score)
        return [p for p in range(self.players) if self.score[p] == best]

    # ---- the public state ----

    def _closed(self, i):
        t, rot, _, _, node0 = self.placed[i]
        out = []
        for g in range(t.nseg):
            if t.kind[g] != FIELD and self.is_complete(self.find(node0 + g)):
                out.append(PORTS[t.port_of[rot][g]])
        return out

    def to_json(self):
        """The public state as the server sends it (docs/protocol.md)."""
        board = [{"x": x, "y": y, "tile": t.letter, "rot": rot, "closed": self._closed(i)}
                 for i, (t, rot, x, y, _) in enumerate(self.placed)]
        meeples = []
        for n, seat in self.meeples:
            t, rot, x, y, node0 = self.placed[self.tile_of[n]]
            meeples.append({"x": x, "y": y, "port": PORTS[t.port_of[rot][n - node0]], "seat": seat})
        return {"turn": self.turns, "phase": self.phase, "board": board, "meeples": meeples,
                "scores": self.score[:], "meeples_left": self.supply[:],
                "bag": {t.letter: self.bag[t.index] for t in self.ts.types},
                "tile": self.tile, "bag_left": self.bag_n, "discards": self.discards,
                "to_move": self.to_move}

    def render(self):
        """The board as text: one letter per tile (lower case: with a meeple)."""
        if not self.placed:
            return ""
        xs = [p[2] for p in self.placed]
        ys = [p[3] for p in self.placed]
        held = {self.tile_of[n] for n, _ in self.meeples}
        rows = []
        for y in range(min(ys), max(ys) + 1):
            row = ""
            for x in range(min(xs), max(xs) + 1):
                i = self.grid.get((x, y))
                row += "." if i is None else (self.placed[i][0].letter.lower() if i in held
                                              else self.placed[i][0].letter)
            rows.append(row)
        return "\n".join(rows)
