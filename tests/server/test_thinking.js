'use strict';
/*
 * test_thinking.js — the seats' thinking lines (docs/protocol.md, "Thinking
 * lines"; issue 27): an in-process MCTS bot's search reaches the spectators
 * as `thinking` during its turn (policies.info live: several lines of one
 * turn before its update, iterations growing), after the move (delayed:
 * never before the turn's update), or not at all (never); a connection that
 * plays a seat of the match never gets one while the game is on; a client's
 * own info messages are checked (a bad one dropped, no reply either way)
 * and relayed; a program seat's info lines too, and a program's behind
 * `tessera bridge` (relayed as info messages); and the match's record
 * keeps the last line of each turn, compact, and replays (the server's
 * replay checks every kept line against its position) — after a restart
 * too: the journal keeps each turn's line with its move (a kill -9 in the
 * middle of the match, a graceful restart after it; on PostgreSQL as
 * server_pg_thinking).
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { Client, ROOT, SLOW, binary, startAdmin, createMatch, join, recordTurns, playUntilOver } = require('./lib');

function checkLine(th, match) {
  assert.equal(th.match, match);
  assert.ok(Number.isInteger(th.turn) && th.turn >= 1);
  assert.ok(Number.isInteger(th.seat));
  const c = th.info.candidates || [];
  assert.ok(c.length <= 8, JSON.stringify(th));
  for (const x of c)
    assert.equal(typeof x.move, 'object');
  assert.equal(th.info.type, undefined, 'the body alone');
}

test('live, delayed, never: what spectators and players see; the record keeps the last', async (t) => {
  const srv = await startAdmin({ tag: 'thinking' });
  t.after(() => srv.cleanup());
  const host = await Client.connect(srv.url, { name: 'host' });
  const spec = 'mcts:ms=700,reward=winloss';
  const runs = {};
  let badSent = 0; /* the bad info lines the live run's seat sent */
  for (const mode of ['live', 'delayed', 'never']) {
    const watcher = await Client.connect(srv.url, { name: 'watch-' + mode });
    const made = await createMatch(host, [{ bot: spec }, { open: true }],
      { game: 'reversi', time_control: { move_ms: 20000 * SLOW }, policies: { info: mode } });
    const view = await watcher.request({ type: 'spectate', match: made.match }, 'spectating');
    assert.equal(view.policies.info, mode);
    const player = await Client.connect(srv.url, { name: 'player-' + mode });
    await join(player, made.match, 1, made.tokens[1]);
    runs[mode] = { match: made.match, watcher, player };
  }
  /* the open seat plays at once, and sends lines of its own in the live match */
  await Promise.all(Object.entries(runs).map(async ([mode, r]) => {
    for (;;) {
      const m = await r.player.expect((x) => x.type === 'your_turn' || x.type === 'game_over', 60000 * SLOW);
      if (m.type === 'game_over')
        break;
      const legal = m.legal;
      if (mode === 'live' && m.turn >= 8 && m.turn <= 9) {
        /* the match's record while it is on (anyone may ask, the seat too): no lines */
        const rp = await r.player.request({ type: 'replay', match: r.match }, 'replayed');
        assert.ok(rp.turns.length >= 7);
        assert.equal(rp.turns.filter((x) => x.record.info).length, 0, 'a live record shows no lines');
      }
      if (mode === 'live' && m.turn < 12) {
        badSent += 3;
        r.player.send({ type: 'info', turn: m.turn, text: 'mine', winprob: 0.4,
          candidates: [{ move: legal[0], visits: 3 }] });
        r.player.send({ type: 'info', candidates: [{ move: { move: 'a1' }, visits: 1 }] }); /* illegal: dropped */
        r.player.send({ type: 'info', winprob: 7 });                                            /* dropped */
        r.player.send({ type: 'info', turn: m.turn + 5, text: 'stale' });                        /* dropped */
      }
      r.player.send({ type: 'move', move: legal[legal.length - 1] });
    }
  }));
  for (const r of Object.values(runs))
    await r.watcher.expect('game_over', 30000 * SLOW);
  /* the bad lines counted where an operator looks (server_stats, /metrics) */
  const stats = await runs.live.watcher.request({ type: 'server_stats' }, 'stats');
  assert.ok(badSent > 0 && stats.info.dropped >= badSent, JSON.stringify(stats.info) + ` ${badSent} bad sent`);
  assert.ok(stats.info.passed > 0, JSON.stringify(stats.info));

  for (const [mode, r] of Object.entries(runs)) {
    /* the player's connection never heard a line, and had no reply to its infos */
    assert.equal(r.player.all.filter((m) => m.type === 'thinking').length, 0, mode);
    assert.equal(r.player.all.filter((m) => m.type === 'error').length, 0,
      mode + ': ' + JSON.stringify(r.player.all.filter((m) => m.type === 'error')));
    const seen = r.watcher.all;
    const lines = seen.filter((m) => m.type === 'thinking');
    for (const th of lines)
      checkLine(th, r.match);
    /* where each line came, against the updates: index of the turn's update */
    const updateAt = {};
    seen.forEach((m, i) => {
      if (m.type === 'update')
        updateAt[m.turn] = i;
    });
    if (mode === 'never') {
      assert.equal(lines.length, 0);
    } else if (mode === 'delayed') {
      assert.ok(lines.length > 0);
      for (const th of lines)
        assert.ok(seen.indexOf(th) > updateAt[th.turn], `delayed: turn ${th.turn} told before its move`);
    } else {
      /* the bot's turns: several lines before the update, changing */
      const byTurn = {};
      for (const th of lines.filter((x) => x.seat === 0))
        (byTurn[th.turn] = byTurn[th.turn] || []).push(th);
      const during = Object.entries(byTurn).filter(([turn, ls]) =>
        ls.filter((x) => seen.indexOf(x) < updateAt[turn]).length >= 2);
      assert.ok(during.length > 0, 'a bot turn with two lines before its move: ' +
        JSON.stringify(Object.values(byTurn).map((l) => l.length)));
      for (const [, ls] of during)
        assert.ok(ls[ls.length - 1].info.iterations > ls[0].info.iterations, 'the search went on');
      assert.ok(lines.some((x) => x.seat === 0 && typeof x.info.winprob === 'number'));
      /* the client's own: the good one relayed, in canonical form; the bad ones not */
      const mine = lines.filter((x) => x.seat === 1);
      assert.ok(mine.length >= 1, 'the open seat\'s lines reach the spectators');
      for (const x of mine) {
        assert.equal(x.info.text, 'mine');
        assert.equal(x.info.candidates.length, 1);
      }
    }
    /* the record: the last line of every bot turn, compact, checked by the replay */
    const turns = await recordTurns(host, r.match);
    const botTurns = turns.filter((x) => x.player === 0);
    const withInfo = botTurns.filter((x) => x.info);
    assert.ok(withInfo.length >= botTurns.length * 0.8, `${mode}: ${withInfo.length} of ${botTurns.length}`);
    for (const x of withInfo) {
      assert.ok(x.info.candidates.length >= 1 && x.info.candidates.length <= 3);
      assert.equal(x.info.text, undefined);
      assert.equal(x.info.candidates[0].move.move, x.move, 'the last line names the move played first');
    }
    if (mode === 'live')
      assert.ok(turns.filter((x) => x.player === 1 && x.info && x.info.text === undefined).length >= 1);
  }
});

test('a program seat\'s info lines reach the spectators and the record', async (t) => {
  const srv = await startAdmin({ tag: 'thinking-prog' });
  t.after(() => srv.cleanup());
  const host = await Client.connect(srv.url, { name: 'host' });
  const prog = `cmd:python3 ${path.join(ROOT, 'tests/players/progs/thinker.py')}`;
  const made = await host.request({ type: 'create_match', game: 'reversi', admin_token: srv.adminToken,
    seats: [{ bot: prog }, { bot: 'random' }], time_control: { move_ms: 10000 * SLOW } }, 'match_created');
  const w = await Client.connect(srv.url, { name: 'watch' });
  const view = await w.request({ type: 'spectate', match: made.match }, 'spectating');
  const over = view.result ? { result: view.result } : await w.expect('game_over', 120000 * SLOW);
  assert.equal(over.result.reason, 'normal', JSON.stringify(over.result));
  const lines = w.all.filter((m) => m.type === 'thinking');
  assert.ok(lines.length >= 2, 'lines told: ' + lines.length);
  for (const th of lines) {
    checkLine(th, made.match);
    assert.equal(th.seat, 0);
    assert.ok(['first', 'burst', 'final'].includes(th.info.text), th.info.text);
  }
  const turns = await recordTurns(host, made.match);
  const mine = turns.filter((x) => x.player === 0);
  assert.ok(mine.length > 5);
  for (const x of mine) {
    assert.ok(x.info, 'every turn of the program keeps its last line');
    assert.equal(x.info.winprob, 0.75);
    assert.equal(x.info.candidates[0].move.move, x.move);
  }
});

test('a program behind tessera bridge: its info lines go to the server as info messages', async (t) => {
  const srv = await startAdmin({ tag: 'thinking-bridge' });
  t.after(() => srv.cleanup());
  const host = await Client.connect(srv.url, { name: 'host' });
  const made = await createMatch(host, [{ bot: 'random' }, { open: true }],
    { game: 'reversi', time_control: { move_ms: 10000 * SLOW } });
  const w = await Client.connect(srv.url, { name: 'watch' });
  await w.request({ type: 'spectate', match: made.match }, 'spectating');
  const p = spawn(binary(), ['bridge', '--url', srv.url, '--match', made.match, '--seat', '1',
    '--token', made.tokens[1], '--', 'python3', path.join(ROOT, 'tests/players/progs/thinker.py')],
  { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  p.stderr.on('data', (d) => (err += d));
  const exited = new Promise((resolve) => p.on('exit', resolve));
  t.after(() => p.kill('SIGKILL'));
  const over = await w.expect('game_over', 120000 * SLOW);
  assert.equal(over.result.reason, 'normal', JSON.stringify(over.result));
  assert.equal(await exited, 0, err.slice(-2000));
  const lines = w.all.filter((m) => m.type === 'thinking');
  assert.ok(lines.length >= 4, 'lines told: ' + lines.length + '; ' + err.slice(-500));
  for (const th of lines) {
    checkLine(th, made.match);
    assert.equal(th.seat, 1);
  }
  assert.ok(lines.some((th) => th.info.text === 'final'));
  assert.doesNotMatch(err, /does not take thinking lines/);
  const turns = await recordTurns(host, made.match);
  assert.ok(turns.filter((x) => x.player === 1 && x.info && x.info.winprob === 0.75).length > 5);
});

test('the record\'s lines are journaled with the moves: kept across a kill -9 and a restart', async (t) => {
  const srv = await startAdmin({ tag: 'thinking-restart' });
  t.after(() => srv.cleanup());
  const c = await Client.connect(srv.url, { name: 'player' });
  const made = await createMatch(c, [{ bot: 'random' }, { open: true }], {
    game: 'reversi', time_control: { move_ms: 20000 * SLOW },
    policies: { info: 'live', disconnect: 'forfeit', reconnect_grace_ms: 60000 * SLOW },
  });
  const joined = await join(c, made.match, 1, made.tokens[1]);
  /* each turn of seat 1: a line naming the turn (visits), after another in
   * the first turns (the last is kept); ~36 lines in all, within the
   * connection's burst of info messages (SRV_INFO_BURST) */
  const think = (cl) => (yt) => {
    if (yt.turn <= 12)
      cl.send({ type: 'info', winprob: 0.9, candidates: [{ move: yt.legal[yt.legal.length - 1], visits: 1 }] });
    cl.send({ type: 'info', winprob: yt.turn / 100, text: 'dropped from the record', pv: [yt.legal[0]],
      candidates: [{ move: yt.legal[0], visits: yt.turn }, { move: yt.legal[yt.legal.length - 1], visits: 0 }] });
    return yt.legal[0];
  };
  await playUntilOver(c, { choose: think(c), onTurn: (yt) => (yt.turn >= 20 ? 'stop' : null) });
  await srv.kill9(); /* a turn told was journaled with its line: nothing of it may be lost */
  await c.waitClosed();
  await srv.restart();
  const c2 = await Client.connect(srv.url, { name: 'player2' });
  await c2.request({ type: 'resume', resume_token: joined.resume_token }, 'resumed');
  const over = await playUntilOver(c2, { choose: think(c2) });
  assert.equal(over.result.reason, 'normal', JSON.stringify(over.result));

  const check = (turns) => {
    const mine = turns.filter((x) => x.player === 1);
    /* seat 1 stopped at its first turn from 20 on and played it after the restart
     * (how many turns it has depends on the random seat: 13-19 in ~1% of games) */
    assert.ok(mine.some((x) => turns.indexOf(x) + 1 >= 20) && mine.some((x) => turns.indexOf(x) + 1 < 20),
      'turns on both sides');
    turns.forEach((x, i) => {
      if (x.player !== 1) {
        assert.equal(x.info, undefined, 'the random bot sent no line');
        return;
      }
      /* the turn's last line, compact (no text), from before the kill and after it */
      assert.ok(x.info, `turn ${i + 1} lost its line: ` + JSON.stringify(x));
      assert.equal(x.info.candidates[0].visits, i + 1, `turn ${i + 1}: ` + JSON.stringify(x.info));
      assert.equal(x.info.winprob, (i + 1) / 100);
      assert.equal(x.info.text, undefined);
      assert.equal(x.info.candidates[0].move.move, x.move);
      assert.equal(x.info.pv.length, 1);
    });
  };
  const before = await recordTurns(c2, made.match);
  check(before);
  /* a graceful restart: the finished match's record, read back from the journal */
  await srv.stop();
  await srv.restart();
  const c3 = await Client.connect(srv.url, { name: 'reader' });
  const after = await recordTurns(c3, made.match);
  check(after);
  assert.deepEqual(after.map((x) => x.info), before.map((x) => x.info));
});
