'use strict';
/*
 * test_kill9.js — a server killed with SIGKILL mid-match and started again on
 * the same database resumes the match, which finishes with every move intact:
 * what anyone heard before the kill is a prefix of the final history, no turn
 * is lost or played twice, and the whole history replays (tessera replay) to
 * the final scores.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { Server, Client, SLOW, createMatch, join, playUntilOver, rng, randomMove, replayHistory, sleep } =
  require('./lib');

const range = (a, b) => Array.from({ length: b - a + 1 }, (_, i) => a + i);
const records = (c) => c.all.filter((m) => m.type === 'update').map((u) => u.record);

test('kill -9 while a remote seat is to move: the same turn, the same tile, then on to the end',
  async (t) => {
    const srv = await Server.start({ tag: 'kill9a' });
    t.after(() => srv.cleanup());
    const c = await Client.connect(srv.url, { name: 'player' });
    const { match, tokens } = await createMatch(c, [{ bot: 'random' }, { open: true }], {
      time_control: { move_ms: 10000 }, policies: { disconnect: 'forfeit', reconnect_grace_ms: 20000 },
    });
    const spect = await Client.connect(srv.url, { name: 'spect' });
    await spect.request({ type: 'spectate', match }, 'spectating');
    const joined = await join(c, match, 1, tokens[1]);
    const r = rng(17);
    const stalled = await playUntilOver(c, {
      choose: (yt) => randomMove(yt, r),
      onTurn: (yt) => (yt.turn >= 25 ? 'stop' : null),
    });
    await spect.expect((m) => m.type === 'update' && m.turn === stalled.turn - 1);
    await srv.kill9();
    await c.waitClosed();
    await spect.waitClosed();
    const before = records(spect);
    assert.equal(before.length, stalled.turn - 1);

    await srv.restart();
    const restored = srv.events('restored');
    assert.equal(restored.length, 1);
    assert.equal(restored[0].unfinished, 1, 'the unfinished match is restored');

    const spect2 = await Client.connect(srv.url, { name: 'spect2' });
    const view = await spect2.request({ type: 'spectate', match }, 'spectating');
    assert.equal(view.status, 'live');
    assert.deepEqual(view.history, before, 'the history is exactly what was announced');

    const c2 = await Client.connect(srv.url, { name: 'player2' });
    const resumed = await c2.request({ type: 'resume', resume_token: joined.resume_token }, 'resumed');
    assert.deepEqual(resumed.history, before);
    const yt = await c2.expect('your_turn');
    assert.equal(yt.turn, stalled.turn, 'the turn left unanswered is asked again');
    assert.equal(yt.state.tile, stalled.state.tile, 'the tile already drawn stays drawn');
    assert.deepEqual(yt.state.bag, stalled.state.bag);
    assert.deepEqual(yt.legal, stalled.legal);
    c2.send({ type: 'move', turn: yt.turn, move: randomMove(yt, r) });
    const over = await playUntilOver(c2, { rng: rng(18) });
    assert.equal(over.result.reason, 'normal');
    await spect2.expect('game_over');

    const after = spect2.all.filter((m) => m.type === 'update');
    assert.deepEqual(after.map((u) => u.turn), range(stalled.turn, 71), 'no turn lost or repeated');
    const final = (await spect2.request({ type: 'spectate', match }, 'spectating')).history;
    assert.equal(final.length, 71);
    assert.deepEqual(final, [...before, ...after.map((u) => u.record)]);
    const replay = await replayHistory(srv.bin, view.rules, final, over.scores);
    assert.ok(replay, 'the final history replays to the final scores');
  });

test('kill -9 at an arbitrary moment of a bot-vs-bot match', async (t) => {
  const srv = await Server.start({ tag: 'kill9b' });
  t.after(() => srv.cleanup());
  const host = await Client.connect(srv.url, { name: 'host' });
  /* bots that think ~20 ms a turn: the match takes a few seconds */
  const { match } = await createMatch(host, [{ bot: 'mcts:ms=20' }, { bot: 'flatmc:ms=20' }], {
    time_control: { move_ms: 5000 },
  });
  const spect = await Client.connect(srv.url, { name: 'spect' });
  const view0 = await spect.request({ type: 'spectate', match }, 'spectating');
  await spect.expect((m) => m.type === 'update' && m.turn >= 12, 20000 * SLOW);
  await sleep(37);
  await srv.kill9();
  await spect.waitClosed();
  const heard = [...view0.history, ...records(spect)];
  assert.ok(heard.length >= 12 && heard.length < 71, `killed mid-match (after ${heard.length} turns)`);

  await srv.restart();
  const spect2 = await Client.connect(srv.url, { name: 'spect2' });
  const view = await spect2.request({ type: 'spectate', match }, 'spectating');
  /* journal first, broadcast second: nothing heard is lost */
  assert.ok(view.history.length >= heard.length, 'no announced turn lost');
  assert.deepEqual(view.history.slice(0, heard.length), heard, 'what was heard is a prefix');
  const over = await spect2.expect('game_over', 30000 * SLOW);
  assert.equal(over.result.reason, 'normal');
  const after = spect2.all.filter((m) => m.type === 'update');
  assert.deepEqual(after.map((u) => u.turn), range(view.history.length + 1, 71), 'no gap after restart');
  const final = (await spect2.request({ type: 'spectate', match }, 'spectating')).history;
  assert.deepEqual(final, [...view.history, ...after.map((u) => u.record)]);
  assert.equal(final.length, 71);
  await replayHistory(srv.bin, view.rules, final, over.scores);

  /* and a graceful restart after the end changes nothing */
  assert.equal((await srv.stop()).code, 0);
  await srv.restart();
  const spect3 = await Client.connect(srv.url, { name: 'spect3' });
  const done = await spect3.request({ type: 'list_matches', status: 'finished' }, 'matches');
  const m = done.matches.find((x) => x.match === match);
  assert.equal(m.turn, 71);
  assert.deepEqual(m.scores, over.scores);
  assert.equal(m.result.reason, 'normal');
});

test('graceful restart (SIGTERM) mid-match: no game_over, the match resumes', async (t) => {
  const srv = await Server.start({ tag: 'restart' });
  t.after(() => srv.cleanup());
  const c = await Client.connect(srv.url, { name: 'player' });
  const { match, tokens } = await createMatch(c, [{ bot: 'heuristic' }, { open: true }], {
    policies: { disconnect: 'forfeit', reconnect_grace_ms: 20000 },
  });
  const joined = await join(c, match, 1, tokens[1]);
  const r = rng(31);
  const stalled = await playUntilOver(c, { choose: (yt) => randomMove(yt, r), onTurn: (yt) => (yt.turn >= 40 ? 'stop' : null) });
  const watcher = await Client.connect(srv.url, { name: 'watcher' });
  await watcher.request({ type: 'spectate', match }, 'spectating');
  assert.equal((await srv.stop()).code, 0);
  /* every connection hears why, then gets a proper close: 1001 going away */
  for (const x of [c, watcher]) {
    const closed = await x.waitClosed();
    assert.equal(closed.code, 1001, `${x.name}: closed with 1001 (going away), got ${closed.code} ${closed.reason}`);
    const errors = x.all.filter((m) => m.type === 'error');
    assert.deepEqual(errors.map((m) => m.code), ['shutting_down'], `${x.name}: one shutting_down notice`);
    assert.ok(errors[0].message.length > 0);
    assert.equal(x.all[x.all.length - 1].type, 'error', `${x.name}: the notice is the last message`);
    assert.ok(!x.all.some((m) => m.type === 'game_over'), 'a graceful restart ends no match');
  }
  await srv.restart();
  const c2 = await Client.connect(srv.url, { name: 'player2' });
  const resumed = await c2.request({ type: 'resume', resume_token: joined.resume_token }, 'resumed');
  assert.equal(resumed.history.length, stalled.turn - 1);
  const yt = await c2.expect('your_turn');
  assert.equal(yt.turn, stalled.turn);
  assert.equal(yt.state.tile, stalled.state.tile);
  c2.send({ type: 'move', turn: yt.turn, move: randomMove(yt, r) });
  const over = await playUntilOver(c2, { rng: rng(32) });
  assert.equal(over.result.reason, 'normal');
  const turns = [...c.all, ...c2.all].filter((m) => m.type === 'update').map((u) => u.turn);
  assert.deepEqual(turns, range(1, 71));
});
