'use strict';
/*
 * test_policies.js — policies where they meet (docs/protocol.md, "Time and
 * policies"), and faults of the server's own bots:
 *   - an in-process bot whose search returns an illegal move (test hook
 *     TESSERA_TEST_BOT_ILLEGAL_TURN, server/limits.h): a random legal move
 *     is played for it (update by server, reason illegal), the match goes on;
 *   - a three-seat match in which one seat forfeits: it ranks last, the
 *     other two by score, the winners are the best of those;
 *   - a timeout while the seat is disconnected: the clock kept running, the
 *     timeout policy applies (random_move: the match goes on; forfeit:
 *     reason timeout, not disconnect);
 *   - a disconnect during the grace bank: resuming within both graces keeps
 *     the grace deadline; a reconnect grace shorter than what is left of the
 *     grace bank forfeits for the disconnect.
 * Times are judged by the server's own log lines (ts, epoch ms).
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { Server, Client, SLOW, CLOCK_SLACK, logTime, createMatch, join, playUntilOver, rng, randomMove, sleep } =
  require('./lib');

const LATE = 3000 * SLOW;
const range = (a, b) => Array.from({ length: b - a + 1 }, (_, i) => a + i);

test('an in-process bot that returns an illegal move: a random move is played for it', async (t) => {
  const srv = await Server.start({ tag: 'botillegal', env: { TESSERA_TEST_BOT_ILLEGAL_TURN: '3', TESSERA_TEST_SEED: '5' } });
  t.after(() => srv.cleanup());
  const c = await Client.connect(srv.url, { name: 'human' });
  const { match, tokens } = await createMatch(c, [{ bot: 'mcts:sims=50' }, { open: true }]);
  await c.request({ type: 'spectate', match }, 'spectating');
  const p = await Client.connect(srv.url, { name: 'p' });
  await join(p, match, 1, tokens[1]);
  const over = await playUntilOver(p, { rng: rng(4) });
  assert.equal(over.result.reason, 'normal', 'the match went on to its end');
  await c.expect('game_over');
  const ups = c.all.filter((m) => m.type === 'update');
  assert.deepEqual(ups.map((u) => u.turn), range(1, 71));
  const t3 = ups[2];
  assert.equal(t3.record.player, 0, 'turn 3 is the bot\'s (the seed draws no dead tile before it)');
  assert.equal(t3.by, 'server');
  assert.equal(t3.reason, 'illegal');
  assert.ok(!t3.record.discarded);
  const bad = await srv.waitLog((l) => l.event === 'bot_bad_move');
  assert.equal(bad.match, match);
  assert.equal(bad.seat, 0);
  assert.equal(srv.events('bot_bad_move').length, 1, 'only the one search cheated');
  /* every other turn of the bot was its own */
  const others = ups.filter((u) => u.record.player === 0 && u.turn !== 3 && !u.record.discarded);
  assert.ok(others.length > 20);
  assert.ok(others.every((u) => u.by === 'player'), 'the bot played its other turns itself');
  /* and the history replays: the move played for it was legal */
  const view = await c.request({ type: 'replay', match }, 'replayed');
  assert.equal(view.turns.length, 71);
});

test('three seats, one forfeits: it ranks last, the others by score', async (t) => {
  const srv = await Server.start({ tag: 'three' });
  t.after(() => srv.cleanup());
  const host = await Client.connect(srv.url, { name: 'host' });
  const { match, tokens } = await createMatch(host, [{ bot: 'random' }, { open: true }, { bot: 'heuristic' }], {
    time_control: { move_ms: 2000, first_move_ms: 2000 }, policies: { timeout: 'forfeit' },
  });
  await host.request({ type: 'spectate', match }, 'spectating');
  const p = await Client.connect(srv.url, { name: 'p' });
  await join(p, match, 1, tokens[1]);
  /* stall as soon as seat 1 has more points than one of the others (so
   * that a ranking by score alone would not put it last), or at turn 60 */
  const r = rng(6);
  let stalledAt = null;
  await playUntilOver(p, {
    choose: (yt) => randomMove(yt, r),
    onTurn: (yt) => {
      const sc = yt.state.scores;
      if ((yt.turn > 6 && sc[1] > Math.min(sc[0], sc[2])) || yt.turn > 60) {
        stalledAt = yt;
        return 'stop';
      }
      return null;
    },
  });
  const over = await host.expect('game_over', 10000 * SLOW);
  t.diagnostic(`seat 1 stalled at turn ${stalledAt.turn} with scores ${stalledAt.state.scores}; final ${over.scores}`);
  assert.equal(over.result.reason, 'timeout');
  assert.equal(over.result.seat, 1);
  const sc = over.scores;
  assert.equal(sc.length, 3);
  assert.equal(over.ranking.length, 3);
  assert.equal(over.ranking[2], 1, 'the forfeiting seat ranks last, whatever its score');
  const [first, second] = over.ranking;
  assert.deepEqual([first, second].sort(), [0, 2]);
  assert.ok(sc[first] >= sc[second], `the others by score: ${over.ranking} with ${sc}`);
  if (sc[0] === sc[2])
    assert.deepEqual(over.result.winners, [0, 2], 'a tie for the best: both win');
  else
    assert.deepEqual(over.result.winners, [first], 'the best of the others wins');
  assert.ok(!over.result.winners.includes(1), 'the forfeiting seat never wins');
  assert.deepEqual(over.result.ranking, over.ranking);
  /* the list says the same */
  const listed = (await host.request({ type: 'list_matches', status: 'finished' }, 'matches')).matches
    .find((m) => m.match === match);
  assert.deepEqual(listed.result.ranking, over.ranking);
  assert.deepEqual(listed.scores, sc);
});

test('a timeout while disconnected: random_move plays for the seat, the match goes on', async (t) => {
  const MOVE = 1500;
  const srv = await Server.start({ tag: 'dctimeout' });
  t.after(() => srv.cleanup());
  const host = await Client.connect(srv.url, { name: 'host' });
  const { match, tokens } = await createMatch(host, [{ bot: 'random' }, { open: true }], {
    time_control: { move_ms: MOVE, first_move_ms: MOVE },
    policies: { timeout: 'random_move', disconnect: 'forfeit', reconnect_grace_ms: 60000 },
  });
  await host.request({ type: 'spectate', match }, 'spectating');
  const c = await Client.connect(srv.url, { name: 'leaver' });
  const joined = await join(c, match, 1, tokens[1]);
  const r = rng(8);
  const stalled = await playUntilOver(c, { choose: (yt) => randomMove(yt, r), onTurn: (yt) => (yt.turn >= 6 ? 'stop' : null) });
  c.terminate();
  /* away for two of its turns: the server plays both at their deadlines */
  const first = await host.expect((m) => m.type === 'update' && m.turn === stalled.turn, 10000 * SLOW);
  assert.equal(first.by, 'server');
  assert.equal(first.reason, 'timeout', 'the timeout policy, not the disconnect policy');
  const second = await host.expect((m) => m.type === 'update' && m.turn > stalled.turn && m.record.player === 1 &&
    !m.record.discarded, 10000 * SLOW);
  assert.equal(second.by, 'server');
  assert.equal(second.reason, 'timeout');
  const dropped = await srv.waitLog((l) => l.event === 'seat_dropped' && l.match === match);
  const timeouts = srv.events('timeout').filter((l) => l.match === match);
  assert.ok(timeouts.length >= 2);
  assert.ok(logTime(timeouts[0]) <= stalled.deadline + LATE && logTime(timeouts[0]) >= stalled.deadline - CLOCK_SLACK,
    'the first timeout at the deadline announced before the drop');
  assert.ok(logTime(timeouts[1]) - logTime(dropped) >= MOVE - CLOCK_SLACK, 'the next one a whole move_ms later');
  assert.equal(srv.events('reconnect_grace_over').length, 0);
  /* back: the seat plays for itself again, to the end */
  const c2 = await Client.connect(srv.url, { name: 'back' });
  await c2.request({ type: 'resume', resume_token: joined.resume_token }, 'resumed');
  const over = await playUntilOver(c2, { rng: rng(9), timeout: 20000 * SLOW });
  assert.equal(over.result.reason, 'normal');
  await host.expect('game_over');
  const ups = host.all.filter((m) => m.type === 'update');
  assert.deepEqual(ups.map((u) => u.turn), range(1, 71));
});

test('a timeout while disconnected under forfeit: lost on time, not for the disconnect', async (t) => {
  const MOVE = 800;
  const srv = await Server.start({ tag: 'dcforfeit' });
  t.after(() => srv.cleanup());
  const host = await Client.connect(srv.url, { name: 'host' });
  const { match, tokens } = await createMatch(host, [{ bot: 'random' }, { open: true }], {
    time_control: { move_ms: MOVE, first_move_ms: MOVE },
    policies: { timeout: 'forfeit', disconnect: 'forfeit', reconnect_grace_ms: 60000 },
  });
  await host.request({ type: 'spectate', match }, 'spectating');
  const c = await Client.connect(srv.url, { name: 'leaver' });
  await join(c, match, 1, tokens[1]);
  const yt = await c.expect('your_turn');
  c.terminate();
  const over = await host.expect('game_over', 10000 * SLOW);
  assert.equal(over.result.reason, 'timeout');
  assert.equal(over.result.seat, 1);
  assert.deepEqual(over.ranking, [0, 1]);
  const line = await srv.waitLog((l) => l.event === 'timeout' && l.match === match);
  assert.ok(logTime(line) >= yt.deadline - CLOCK_SLACK && logTime(line) <= yt.deadline + LATE, 'at the deadline it had');
});

test('a disconnect during the grace bank: resuming keeps the grace deadline', async (t) => {
  const GRACE = 5000;
  const srv = await Server.start({ tag: 'dcgrace' });
  t.after(() => srv.cleanup());
  const host = await Client.connect(srv.url, { name: 'host' });
  const { match, tokens } = await createMatch(host, [{ bot: 'random' }, { open: true }], {
    time_control: { move_ms: 400, first_move_ms: 400 },
    policies: { timeout: 'grace', grace_ms: GRACE, disconnect: 'forfeit', reconnect_grace_ms: 60000 },
  });
  await host.request({ type: 'spectate', match }, 'spectating');
  const c = await Client.connect(srv.url, { name: 'leaver' });
  const joined = await join(c, match, 1, tokens[1]);
  const yt = await c.expect('your_turn');
  /* the deadline passes: grace; then the connection drops */
  const g = await c.expect((m) => m.type === 'your_turn' && m.turn === yt.turn, 10000 * SLOW);
  assert.ok(Math.abs(g.deadline - yt.deadline - GRACE) <= CLOCK_SLACK, 'in grace');
  c.terminate();
  await sleep(300);
  const c2 = await Client.connect(srv.url, { name: 'back' });
  const resumed = await c2.request({ type: 'resume', resume_token: joined.resume_token }, 'resumed');
  assert.equal(resumed.clocks[1].grace_ms, GRACE, 'the grace bank is charged only when the move comes');
  const again = await c2.expect((m) => m.type === 'your_turn' && m.turn === yt.turn);
  assert.ok(Math.abs(again.deadline - g.deadline) <= CLOCK_SLACK,
    `the grace deadline holds across the reconnect: ${again.deadline} vs ${g.deadline}`);
  const sent = Date.now();
  const ok = await c2.request({ type: 'move', turn: yt.turn, move: randomMove(again, rng(1)) });
  assert.equal(ok.type, 'move_accepted');
  const up = await host.expect((m) => m.type === 'update' && m.turn === yt.turn);
  assert.equal(up.by, 'player');
  const left = up.clocks[1].grace_ms;
  assert.ok(left <= GRACE - (sent - yt.deadline) + CLOCK_SLACK && left >= GRACE - (ok.at - yt.deadline) - CLOCK_SLACK,
    `the grace spent is the time past the first deadline: ${GRACE - left} ms`);
  assert.ok(!host.all.some((m) => m.type === 'game_over'));
});

test('a disconnect during the grace bank: a shorter reconnect grace forfeits for the disconnect', async (t) => {
  const GRACE = 20000, RECONNECT = 800;
  const srv = await Server.start({ tag: 'dcgrace2' });
  t.after(() => srv.cleanup());
  const host = await Client.connect(srv.url, { name: 'host' });
  const { match, tokens } = await createMatch(host, [{ bot: 'random' }, { open: true }], {
    time_control: { move_ms: 400, first_move_ms: 400 },
    policies: { timeout: 'grace', grace_ms: GRACE, disconnect: 'forfeit', reconnect_grace_ms: RECONNECT },
  });
  await host.request({ type: 'spectate', match }, 'spectating');
  const c = await Client.connect(srv.url, { name: 'leaver' });
  await join(c, match, 1, tokens[1]);
  const yt = await c.expect('your_turn');
  await c.expect((m) => m.type === 'your_turn' && m.turn === yt.turn, 10000 * SLOW);
  c.terminate();
  const over = await host.expect('game_over', 10000 * SLOW);
  assert.equal(over.result.reason, 'disconnect', 'lost for the disconnect, with grace left');
  assert.equal(over.result.seat, 1);
  const dropped = await srv.waitLog((l) => l.event === 'seat_dropped' && l.match === match);
  const gone = await srv.waitLog((l) => l.event === 'reconnect_grace_over' && l.match === match);
  const waited = logTime(gone) - logTime(dropped);
  assert.ok(waited >= RECONNECT - CLOCK_SLACK && waited <= RECONNECT + LATE, `forfeit ${waited} ms after the drop`);
});
