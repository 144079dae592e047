'use strict';
/*
 * test_bundles.js — fault bundles from the server (docs/bundles.md, "Where
 * they are kept"): a program that crashes on a given turn, as a server
 * tournament's participant and as a course's submission in its gate, leaves
 * a bundle; the admin gets the tournament's through get_record (programs[].
 * bundle, once the match is over), the student their gate game's through
 * course_game (bundles[your_seat]); `tessera doctor --replay` on each
 * crashes the same program again at the same turn, and passes a fixed copy.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { Client, SLOW, startAdmin, tmpDir } = require('./lib');
const { submitBot, waitFor } = require('../classroom/course_lib');

/* Carcassonne: the first legal placement, and a crash from turn 9 on when
 * the tile is one of the common ones (33 of the 71: every game meets one),
 * unless a file BOT.fixed lies beside it. */
const CRASH_BOT = `import json, os, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("type") != "your_turn":
        continue
    tile = m["state"].get("tile")
    if m["turn"] >= 9 and tile in ("U", "V", "W", "K", "D", "E") and not os.path.exists(__file__ + ".fixed"):
        print("crashing on tile %s at turn %d" % (tile, m["turn"]), file=sys.stderr)
        sys.exit(3)
    e = dict(m["legal"][0])
    e.pop("meeples", None)
    print(json.dumps({"type": "move", "turn": m["turn"], "move": e}), flush=True)
`;

/* The crashing bot in DIR/crash, a fixed copy in DIR/fixed; world-readable:
 * the sandbox runs programs as another user when the tests run as root. */
function bots() {
  const dir = tmpDir('bundles');
  fs.chmodSync(dir, 0o755);
  for (const d of ['crash', 'fixed']) {
    fs.mkdirSync(path.join(dir, d), { mode: 0o755 });
    fs.writeFileSync(path.join(dir, d, 'bot.py'), CRASH_BOT, { mode: 0o644 });
  }
  fs.writeFileSync(path.join(dir, 'fixed', 'bot.py.fixed'), '', { mode: 0o644 });
  return dir;
}

function doctor(bin, args, cwd) {
  const r = spawnSync(bin, ['doctor', '--replay', ...args], { cwd, encoding: 'utf8', timeout: 120000 * SLOW });
  return { status: r.status, out: (r.stdout || '') + (r.stderr || '') };
}

/* A bundle b (an object) holds a crash at turn >= 9 on a common tile; kept
 * as a file, it crashes the program again at that turn (run from cwd, where
 * the bundle's program is found when it names a file there), and a fixed
 * program passes that turn. */
function replays(bin, dir, b, name, cwd, fixedArgs) {
  assert.equal(b.format, 'tessera-fault');
  assert.equal(b.game, 'carcassonne');
  assert.equal(b.verdict, 'crashed', JSON.stringify(b.detail));
  assert.match(b.stderr, /crashing on tile [UVWKDE] at turn \d+/);
  assert.ok(b.turn >= 9, `turn ${b.turn}`);
  assert.equal(b.record.turns.length, b.turn - 1, 'the complete turns before the fault');
  assert.ok(b.record.chance && b.record.chance.seed, 'the seed revealed');
  const ins = b.lines.filter((l) => 'in' in l).map((l) => JSON.parse(l.in));
  assert.equal(ins[ins.length - 1].type, 'your_turn');
  assert.equal(ins[ins.length - 1].turn, b.turn);
  const file = path.join(dir, name);
  fs.writeFileSync(file, JSON.stringify(b));
  const again = doctor(bin, [file], cwd);
  assert.equal(again.status, 1, again.out);
  assert.match(again.out, new RegExp(`FAULT AGAIN at turn ${b.turn}: crashed`), again.out);
  assert.match(again.out, /the \d+ lines it was sent are the bundle's, the clocks aside/, again.out);
  const fixed = doctor(bin, [file, '--', ...fixedArgs], cwd);
  assert.equal(fixed.status, 0, fixed.out);
  assert.match(fixed.out, new RegExp(`no fault now: turn ${b.turn} answered`), fixed.out);
}

test('a server tournament keeps a bundle of each program fault, for the admin', { timeout: 300000 * SLOW },
  async (t) => {
    const srv = await startAdmin({ tag: 'bundles-tour' });
    t.after(() => srv.cleanup());
    const dir = bots();
    const A = srv.adminToken;
    const admin = await Client.connect(srv.url, { name: 'admin' });
    const made = await admin.request({
      type: 'create_tournament', admin_token: A, format: 'round-robin', game: 'carcassonne',
      label: 'bundles', participants: [{ name: 'crash', spec: 'cmd:python3 ' + path.join(dir, 'crash', 'bot.py') },
        { name: 'random', spec: 'random' }],
      games_per_pair: 2, concurrency: 2, seed: 7, time_control: { move_ms: 5000 * SLOW },
    }, 'tournament_created');
    const id = made.tournament;
    const w = await Client.connect(srv.url, { name: 'watcher' });
    await w.request({ type: 'watch_tournament', tournament: id }, 'tournament');
    await admin.request({ type: 'start_tournament', admin_token: A, tournament: id }, 'tournament_state');
    for (;;) {
      const u = await w.expect('tournament_update', 120000 * SLOW);
      if (u.state === 'done')
        break;
    }
    const view = await w.request({ type: 'watch_tournament', tournament: id }, 'tournament');
    assert.equal(view.games.length, 2);
    for (const g of view.games) {
      const seat = g.table.indexOf('crash');
      assert.equal(g.result.end, 'crash', JSON.stringify(g.result));
      assert.equal(g.result.culprit, seat);
      /* without the admin token: no logs, no bundle */
      const plain = await w.request({ type: 'get_record', match: g.match }, 'record');
      assert.equal(plain.programs, undefined);
      const rec = await admin.request({ type: 'get_record', match: g.match, admin_token: A }, 'record');
      assert.equal(rec.status, 'finished');
      assert.equal(rec.programs.length, 1);
      const b = rec.programs[0].bundle;
      assert.ok(b && typeof b === 'object', 'a bundle: ' + JSON.stringify(rec.programs[0]).slice(0, 300));
      assert.equal(b.seat, seat);
      assert.match(b.source, new RegExp(`tournament ${id}, game ${g.game}`));
      replays(srv.bin, dir, b, `tour-${g.game}.json`, dir, ['python3', path.join(dir, 'fixed', 'bot.py')]);
    }
  });

test('a course gate keeps a bundle of the submission\'s fault, for its student', { timeout: 300000 * SLOW },
  async (t) => {
    const srv = await startAdmin({ tag: 'bundles-course' });
    t.after(() => srv.cleanup());
    const dir = bots();
    const A = srv.adminToken;
    const admin = await Client.connect(srv.url, { name: 'instructor' });
    const { course } = await admin.request({
      type: 'course_create', admin_token: A, name: 'bundles', game: 'carcassonne', move_ms: 5000 * SLOW,
      seed: 3, gates: [{ opponent: 'random', games: 2, min_rate: 0 }],
    }, 'course_created');
    const added = await admin.request({ type: 'course_add_students', admin_token: A, course,
      csv: 'id,name\na1,Alice\nb2,Bob\n' }, 'course_students_added');
    const tok = Object.fromEntries(added.students.map((s) => [s.student_id, s.token]));
    const alice = await Client.connect(srv.url, { name: 'alice' });
    await submitBot(alice, tok.a1, [path.join(dir, 'crash', 'bot.py')]);
    const v = await waitFor(alice, { type: 'course_view', token: tok.a1 },
      (x) => x.submissions.length === 1 && x.submissions[0].state === 'done', 180000 * SLOW);
    const gate = v.submissions[0].gates[0];
    assert.equal(gate.faults, 2, JSON.stringify(gate));
    assert.deepEqual([...gate.bundle_game_ids].sort(), [...gate.game_ids].sort(),
      'each game crashed and kept its bundle');
    for (const gid of gate.game_ids) {
      const g = await alice.request({ type: 'course_game', token: tok.a1, game: gid }, 'course_game');
      const mine = g.your_seat;
      assert.equal(g.bundles.length, 2);
      assert.equal(g.bundles[1 - mine], null, 'the opponent kept none');
      const b = g.bundles[mine];
      assert.ok(b && typeof b === 'object', 'her bundle');
      assert.equal(b.seat, mine);
      assert.equal(b.source, 'tessera course gate');
      /* the server's folders are not shown: the program is named by its file */
      assert.equal(b.player, 'cmd:python3 bot.py');
      assert.ok(!JSON.stringify(b).includes(srv.dir), 'a server path in the bundle');
      /* the instructor sees it too */
      const gi = await admin.request({ type: 'course_game', admin_token: A, game: gid }, 'course_game');
      assert.deepEqual(gi.bundles[mine], b);
      /* the bundle's program, bot.py, from the folder the student replays in */
      replays(srv.bin, dir, b, `gate-${gid}.json`, path.join(dir, 'crash'),
        ['python3', path.join(dir, 'fixed', 'bot.py')]);
    }
    /* Bob may not read Alice's game, bundle included */
    const bob = await Client.connect(srv.url, { name: 'bob' });
    const r = await bob.request({ type: 'course_game', token: tok.b2, game: gate.game_ids[0] });
    assert.equal(r.type, 'error');
    assert.equal(r.reason, 'not_yours');
  });
