'use strict';
/*
 * test_thinking_inline.js — a move that carries its thinking line
 * (docs/protocol.md, "A move that carries its line"; issue 27): the line in
 * a move's "info" is the seat's line of the turn, as an info message sent
 * just before the move — relayed to the spectators as the match's
 * policies.info says (live: before the turn's update; delayed: after it),
 * never to a connection that plays a seat, kept as the turn's record line
 * (the server's replay checks it); a bad one (wrong type, a field of the
 * envelope or unknown, a non-number, an illegal candidate, another turn's,
 * too large) never costs the move: the move is played, the line dropped and
 * counted (server_stats.info). A program's move line may carry one too: a
 * program seat of the server, and one behind `tessera bridge`, which sends
 * a line and the move right behind it as one move (in_moves counts them).
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { Client, ROOT, SLOW, binary, startAdmin, createMatch, join, recordTurns } = require('./lib');

/* What a bad line in a move may be, turn by turn (from turn 2 on). */
const BAD = [
  () => 5,
  () => 'thinking hard',
  () => [0.5],
  () => ({ winprob: 'high' }),
  () => ({ winprob: 7 }),
  () => ({ score: 1e7 }),
  () => ({ candidates: [{ move: { move: 'a1' }, visits: 1 }] }), /* illegal this early */
  () => ({ candidates: [{ move: { move: 'zz' }, visits: 1 }] }), /* unreadable */
  (turn) => ({ turn: turn + 1, winprob: 0.5 }),                     /* another turn's */
  () => ({ type: 'info', winprob: 0.5 }),                           /* the envelope is the move's */
  () => ({ seat: 0, winprob: 0.5 }),
  () => ({ visits: 3 }),                                            /* not a field of a line */
  () => ({ candidates: 'none' }),
  () => ({ iterations: -1 }),
  () => ({ text: 'x'.repeat(9000) }),                               /* over 8192 bytes */
];

test('a move carrying its line: live and delayed spectators, never a player, the record; bad lines never cost the move', async (t) => {
  const srv = await startAdmin({ tag: 'thinking-inline' });
  t.after(() => srv.cleanup());
  const host = await Client.connect(srv.url, { name: 'host' });
  const before = (await host.request({ type: 'server_stats' }, 'stats')).info;
  assert.equal(before.in_moves, 0);
  const runs = {};
  for (const mode of ['live', 'delayed']) {
    const made = await createMatch(host, [{ open: true }, { open: true }],
      { game: 'reversi', time_control: { move_ms: 20000 * SLOW }, policies: { info: mode } });
    const watcher = await Client.connect(srv.url, { name: 'watch-' + mode });
    await watcher.request({ type: 'spectate', match: made.match }, 'spectating');
    const players = [];
    for (const seat of [0, 1]) {
      const p = await Client.connect(srv.url, { name: `p${seat}-${mode}` });
      await join(p, made.match, seat, made.tokens[seat]);
      players.push(p);
    }
    runs[mode] = { match: made.match, watcher, players, bad: new Set(), sent: 0 };
  }
  /* each seat plays the turns it is asked, every move with a line */
  const play = async (r, seat) => {
    const c = r.players[seat];
    for (;;) {
      const m = await c.expect((x) => x.type === 'your_turn' || x.type === 'game_over', 60000 * SLOW);
      if (m.type === 'game_over')
        return;
      const move = m.legal[m.turn % m.legal.length];
      let info = { winprob: Math.min(1, m.turn / 100), text: 'inline', pv: [move],
        candidates: [{ move, visits: m.turn }, { move: m.legal[0], visits: 0 }] };
      if (m.turn % 7 === 0)
        info.text = 'said "so" \\ here'; /* escapes: read the general way */
      if (m.turn >= 2 && m.turn < 2 + BAD.length) {
        info = BAD[m.turn - 2](m.turn);
        r.bad.add(m.turn);
      }
      r.sent++;
      const reply = await c.request({ type: 'move', match: r.match, turn: m.turn, move, info });
      assert.equal(reply.type, 'move_accepted', `turn ${m.turn}: ` + JSON.stringify(reply));
    }
  };
  await Promise.all(Object.values(runs).flatMap((r) => [play(r, 0), play(r, 1)]));
  for (const r of Object.values(runs))
    await r.watcher.expect('game_over', 30000 * SLOW);

  const after = (await host.request({ type: 'server_stats' }, 'stats')).info;
  const sent = runs.live.sent + runs.delayed.sent, bad = runs.live.bad.size + runs.delayed.bad.size;
  assert.equal(bad, 2 * BAD.length);
  assert.equal(after.in_moves - before.in_moves, sent, JSON.stringify(after));
  assert.equal(after.dropped - before.dropped, bad, 'each bad line dropped and counted: ' + JSON.stringify(after));
  assert.equal(after.passed - before.passed, sent - bad, JSON.stringify(after));

  for (const [mode, r] of Object.entries(runs)) {
    /* the players: no line of either seat, and no error for any move */
    for (const p of r.players) {
      assert.equal(p.all.filter((m) => m.type === 'thinking').length, 0, mode);
      assert.equal(p.all.filter((m) => m.type === 'error').length, 0, mode);
    }
    const seen = r.watcher.all;
    const updateAt = {};
    seen.forEach((m, i) => {
      if (m.type === 'update')
        updateAt[m.turn] = i;
    });
    const lines = seen.filter((m) => m.type === 'thinking');
    const turnsTold = new Set(lines.map((x) => x.turn));
    for (const th of lines) {
      assert.equal(th.match, r.match);
      assert.ok(!r.bad.has(th.turn), `${mode}: turn ${th.turn}'s bad line was told`);
      assert.equal(th.info.candidates[0].visits, th.turn);
      assert.equal(th.info.text, th.turn % 7 === 0 ? 'said "so" \\ here' : 'inline');
      assert.equal(th.info.type, undefined);
      const at = seen.indexOf(th);
      if (mode === 'live')
        assert.ok(at < updateAt[th.turn], `live: turn ${th.turn} told after its move`);
      else
        assert.ok(at > updateAt[th.turn], `delayed: turn ${th.turn} told before its move`);
    }
    const turns = await recordTurns(host, r.match);
    assert.ok(turns.length >= 20);
    turns.forEach((x, i) => {
      const turn = i + 1;
      if (r.bad.has(turn)) {
        assert.equal(x.info, undefined, `turn ${turn}: the bad line is not the record's`);
        assert.ok(!turnsTold.has(turn));
        return;
      }
      assert.ok(turnsTold.has(turn), `${mode}: turn ${turn}'s line was not told`);
      assert.ok(x.info, `turn ${turn} lost its line`);
      assert.equal(x.info.candidates[0].visits, turn);
      assert.equal(x.info.candidates[0].move.move, x.move);
      assert.equal(x.info.winprob, Math.min(1, turn / 100));
      assert.equal(x.info.text, undefined, 'the record keeps no text');
    });
  }
});

test('a program\'s move line carries its line: a program seat, and tessera bridge sends a line and its move as one', async (t) => {
  const srv = await startAdmin({ tag: 'thinking-inline-prog' });
  t.after(() => srv.cleanup());
  const host = await Client.connect(srv.url, { name: 'host' });
  const prog = path.join(ROOT, 'tests/players/progs/thinker_inline.py');
  const check = (lines, turns, seat) => {
    const mine = turns.map((x, i) => ({ ...x, turn: i + 1 })).filter((x) => x.player === seat);
    assert.ok(mine.length > 5);
    for (const x of mine) {
      assert.ok(x.info, `turn ${x.turn} keeps its line`);
      assert.equal(x.info.winprob, 0.75);
      assert.equal(x.info.iterations, x.turn);
      assert.equal(x.info.candidates[0].move.move, x.move);
    }
    const told = lines.filter((th) => th.seat === seat);
    for (const th of told)
      assert.ok(['inline', 'before'].includes(th.info.text), JSON.stringify(th));
    assert.ok(told.some((th) => th.info.text === 'inline') && told.some((th) => th.info.text === 'before'));
    return mine.length;
  };

  /* a program seat of the server */
  const s0 = (await host.request({ type: 'server_stats' }, 'stats')).info;
  const made = await host.request({ type: 'create_match', game: 'reversi', admin_token: srv.adminToken,
    seats: [{ bot: `cmd:python3 ${prog}` }, { bot: 'random' }], time_control: { move_ms: 10000 * SLOW } },
  'match_created');
  const w = await Client.connect(srv.url, { name: 'watch' });
  const view = await w.request({ type: 'spectate', match: made.match }, 'spectating');
  const over = view.result ? { result: view.result } : await w.expect('game_over', 120000 * SLOW);
  assert.equal(over.result.reason, 'normal', JSON.stringify(over.result));
  check(w.all.filter((m) => m.type === 'thinking'), await recordTurns(host, made.match), 0);
  const s1 = (await host.request({ type: 'server_stats' }, 'stats')).info;
  assert.equal(s1.dropped, s0.dropped);
  assert.equal(s1.in_moves, s0.in_moves, 'a program seat\'s lines come through its player, not in a message');

  /* behind tessera bridge: the program's inline lines go inside its moves */
  const m2 = await createMatch(host, [{ bot: 'random' }, { open: true }],
    { game: 'reversi', time_control: { move_ms: 10000 * SLOW } });
  const w2 = await Client.connect(srv.url, { name: 'watch2' });
  await w2.request({ type: 'spectate', match: m2.match }, 'spectating');
  const p = spawn(binary(), ['bridge', '--url', srv.url, '--match', m2.match, '--seat', '1',
    '--token', m2.tokens[1], '--', 'python3', prog], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  p.stderr.on('data', (d) => (err += d));
  const exited = new Promise((resolve) => p.on('exit', resolve));
  t.after(() => p.kill('SIGKILL'));
  const over2 = await w2.expect('game_over', 120000 * SLOW);
  assert.equal(over2.result.reason, 'normal', JSON.stringify(over2.result));
  assert.equal(await exited, 0, err.slice(-2000));
  const mine = check(w2.all.filter((m) => m.type === 'thinking'), await recordTurns(host, m2.match), 1);
  const s2 = (await host.request({ type: 'server_stats' }, 'stats')).info;
  /* every other turn's line is in the program's move line: in a move,
   * always; the others' go with the move when the bridge reads the two together */
  assert.ok(s2.in_moves - s1.in_moves >= Math.floor(mine / 2),
    `lines in moves: ${s2.in_moves - s1.in_moves} of the bridge's ${mine} turns; ` + err.slice(-500));
  assert.equal(s2.dropped, s1.dropped, err.slice(-500));
  assert.doesNotMatch(err, /does not take|refused/);
});
