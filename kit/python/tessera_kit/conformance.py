"""Check the kit's game models against conformance vectors (docs/vectors.md).

    python3 -m tessera_kit.conformance kit/vectors/*.jsonl
    tessera vectors carcassonne --count 500 --seed 7 | python3 -m tessera_kit.conformance -

Each vector is a position as the server shows it and what the engine says
about it: its legal entries and the state after a move (``turn``), the state
after a chance event (``draw``), the placements of each tile in the bag
(``fits``), the scores if the game ended there (``score_now``). A position
at turn 0 must also be what the kit's own ``new_state`` starts a game with. Prints one
line per file, and the first disagreements in full; exit status 1 when any
vector disagrees, 2 when a file cannot be read.
"""

import json
import sys

from .games import new_state, parse_state


def _canon_entry(e):
    e = dict(e)
    if "meeples" in e:
        e["meeples"] = sorted(e["meeples"])
    return json.dumps(e, sort_keys=True)


def _canon_state(s):
    """A state with its unordered lists sorted (Carcassonne's meeples, closed ports)."""
    s = dict(s)
    if "meeples" in s:
        s["meeples"] = sorted(s["meeples"], key=lambda m: json.dumps(m, sort_keys=True))
    if "board" in s and s["board"] and isinstance(s["board"][0], dict):
        s["board"] = [dict(b, closed=sorted(b["closed"])) for b in s["board"]]
    return s


def _diff(kit, engine, path=""):
    """The first place where two JSON values differ, as text."""
    if isinstance(kit, dict) and isinstance(engine, dict):
        for k in sorted(set(kit) | set(engine)):
            if k not in kit:
                return "%s.%s: missing in the kit's (engine: %s)" % (path, k, json.dumps(engine[k])[:200])
            if k not in engine:
                return "%s.%s: not in the engine's (kit: %s)" % (path, k, json.dumps(kit[k])[:200])
            d = _diff(kit[k], engine[k], "%s.%s" % (path, k))
            if d:
                return d
        return None
    if isinstance(kit, list) and isinstance(engine, list):
        if len(kit) != len(engine):
            return "%s: %d entries in the kit's, %d in the engine's" % (path, len(kit), len(engine))
        for i, (a, b) in enumerate(zip(kit, engine)):
            d = _diff(a, b, "%s[%d]" % (path, i))
            if d:
                return d
        return None
    if kit != engine or type(kit) is not type(engine):
        return "%s: kit %s, engine %s" % (path, json.dumps(kit), json.dumps(engine))
    return None


def check(v):
    """None when the kit agrees with vector v, else what differs."""
    kind = v["kind"]
    if v["state"].get("turn") == 0:
        # the first position of a game: the kit's own new game must be it
        d = _diff(_canon_state(new_state(v["game"], v["rules"]).to_json()),
                  _canon_state(v["state"]), "new game")
        if d:
            return d
    st = parse_state(v["game"], v["rules"], v["state"])
    if kind == "turn":
        kit = sorted(_canon_entry(e) for e in st.legal())
        eng = sorted(_canon_entry(e) for e in v["legal"])
        if kit != eng:
            extra = sorted(set(kit) - set(eng))[:3]
            missing = sorted(set(eng) - set(kit))[:3]
            return "legal: %d entries in the kit's, %d in the engine's; kit only %s; engine only %s" % (
                len(kit), len(eng), extra, missing)
        st.apply(v["move"])
        return _diff(_canon_state(st.to_json()), _canon_state(v["after"]), "after")
    if kind == "draw":
        st.draw(v["outcome"]["tile"])
        return _diff(_canon_state(st.to_json()), _canon_state(v["after"]), "after")
    if kind == "fits":
        for tile, n in sorted(v["placements"].items()):
            k = len(st.placements(tile))
            if k != n:
                return "tile %s: %d placements in the kit's, %d in the engine's" % (tile, k, n)
        return None
    if kind == "score_now":
        k = st.end_scores()
        return None if k == v["scores"] else "scores now: kit %s, engine %s" % (k, v["scores"])
    return "unknown kind %r" % kind


def check_file(f, name, out=sys.stdout, show=3):
    """Check every vector of an open file; returns (checked, failed)."""
    n = bad = 0
    for lineno, line in enumerate(f, 1):
        if not line.strip():
            continue
        v = json.loads(line)
        if v.get("kind") == "header":
            continue
        n += 1
        try:
            why = check(v)
        except Exception as e:  # a crash of the model is a disagreement too
            why = "%s: %s" % (type(e).__name__, e)
        if why:
            bad += 1
            if bad <= show:
                print("%s:%d: vector %s (%s, %s): %s" % (name, lineno, v.get("id"), v["kind"],
                                                        json.dumps(v["rules"]), why), file=out)
    return n, bad


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        print("usage: python3 -m tessera_kit.conformance FILE.jsonl... ('-' reads stdin)", file=sys.stderr)
        return 2
    failed = 0
    for name in argv:
        try:
            f = sys.stdin if name == "-" else open(name)
        except OSError as e:
            print("%s: %s" % (name, e.strerror), file=sys.stderr)
            return 2
        with f:
            n, bad = check_file(f, name)
        print("%s: %d vectors, %s" % (name, n, "all agree" if bad == 0 else "%d disagree" % bad))
        failed += bad
        if n == 0:
            print("%s: no vectors in it" % name)
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
