'use strict';
/*
 * test_reconnect.js — dropped connections (docs/protocol.md, `resume` and the
 * `disconnect` policy).
 *
 *  - a seat drops mid-match, resumes from a new connection with its resume
 *    token, gets the full state (`resumed` + history) and `your_turn`, and
 *    finishes the match; no turn is lost or repeated;
 *  - resuming from a second connection while the first still looks alive
 *    takes the seat over (the first is told seat_taken);
 *  - disconnect policy forfeit: the seat loses once reconnect_grace_ms runs out;
 *  - disconnect policy random_move: the server plays for the seat until it
 *    comes back, then the seat plays again.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { Server, Client, SLOW, CLOCK_SLACK, logTime, createMatch, join, playUntilOver, rng, randomMove, isError, leaks, sleep } =
  require('./lib');

/* Times are judged by the server's log (ts, epoch ms): the reconnect grace
 * ends no earlier than it should, and at most LATE ms after (a starved loop
 * notices late). */
const LATE = 3000 * SLOW;
async function assertGraceKept(t, srv, match, grace, what) {
  const dropped = await srv.waitLog((l) => l.event === 'seat_dropped' && l.match === match);
  const over = await srv.waitLog((l) => l.event === 'reconnect_grace_over' && l.match === match);
  const waited = logTime(over) - logTime(dropped);
  t.diagnostic(`${what} ${waited} ms after the drop (grace ${grace} ms)`);
  assert.ok(waited >= grace - CLOCK_SLACK, `${what} after ${waited} ms, before the ${grace} ms grace ran out`);
  assert.ok(waited <= grace + LATE, `${what} after ${waited} ms: more than ${LATE} ms late`);
}
const nextTurn = (c, after = 0) =>
  c.expect((m) => m.type === 'your_turn' && m.turn > after, 10000 * SLOW);
const range = (a, b) => Array.from({ length: b - a + 1 }, (_, i) => a + i);

test('reconnect mid-match: resume from a new connection and finish', async (t) => {
  const srv = await Server.start({ tag: 'resume' });
  t.after(() => srv.cleanup());
  const c1 = await Client.connect(srv.url, { name: 'first' });
  const { match, tokens } = await createMatch(c1, [{ bot: 'random' }, { open: true }], {
    time_control: { move_ms: 10000 }, policies: { disconnect: 'forfeit', reconnect_grace_ms: 10000 },
  });
  const joined = await join(c1, match, 1, tokens[1]);
  const token = joined.resume_token;
  const r = rng(8);
  /* play until turn 20, then drop the connection on our turn */
  const stalled = await playUntilOver(c1, {
    choose: (yt) => randomMove(yt, r),
    onTurn: (yt) => (yt.turn >= 20 ? 'stop' : null),
  });
  assert.equal(stalled.type, 'your_turn');
  c1.terminate();
  await c1.waitClosed();
  await sleep(100);

  const c2 = await Client.connect(srv.url, { name: 'second' });
  const resumeSent = Date.now();
  const resumed = await c2.request({ type: 'resume', resume_token: token }, 'resumed');
  assert.equal(resumed.match, match);
  assert.equal(resumed.seat, 1);
  assert.equal(resumed.resume_token, token, 'the resume token stays the same');
  assert.equal(resumed.history.length, stalled.turn - 1, 'the history holds every turn so far');
  const seen = c1.all.filter((m) => m.type === 'update');
  assert.deepEqual(resumed.history, seen.map((u) => u.record), 'the history is what was played');
  assert.deepEqual(resumed.state, stalled.state, 'the same state as the unanswered your_turn');
  assert.deepEqual(leaks(resumed), []);
  const yt = await nextTurn(c2);
  assert.equal(yt.turn, stalled.turn, 'your_turn again for the turn left unanswered');
  /* the server sent `stalled` before we got it, and this one after it got
   * our resume: at least that long passed on its clock, and the deadline
   * did not move */
  const away = resumeSent - stalled.at;
  assert.ok(yt.time_left_ms <= stalled.time_left_ms - away + 2,
    `the clock ran while the seat was away: ${yt.time_left_ms} ms left of ${stalled.time_left_ms} after ${away} ms`);
  assert.ok(Math.abs(yt.deadline - stalled.deadline) <= CLOCK_SLACK, 'the same deadline');
  assert.deepEqual(yt.legal, stalled.legal);
  c2.send({ type: 'move', turn: yt.turn, move: randomMove(yt, r) });

  const over = await playUntilOver(c2, { rng: rng(9) });
  assert.equal(over.result.reason, 'normal');
  const later = c2.all.filter((m) => m.type === 'update');
  assert.deepEqual([...seen, ...later].map((u) => u.turn), range(1, 71), 'no turn lost or repeated');

  /* after the end, the token is spent */
  const c3 = await Client.connect(srv.url, { name: 'third' });
  assert.ok(isError(await c3.request({ type: 'resume', resume_token: token, id: 5 }), 'match_over', 5));
});

test('resume from a new connection while the old one is alive takes the seat over', async (t) => {
  const srv = await Server.start({ tag: 'takeover' });
  t.after(() => srv.cleanup());
  const c1 = await Client.connect(srv.url, { name: 'old' });
  const { match, tokens } = await createMatch(c1, [{ bot: 'random' }, { open: true }]);
  const joined = await join(c1, match, 1, tokens[1]);
  const yt1 = await nextTurn(c1);
  const c2 = await Client.connect(srv.url, { name: 'new' });
  /* joining again is refused while a live connection holds the seat */
  assert.ok(isError(await c2.request({ type: 'join', match, seat: 1, token: tokens[1], id: 1 }),
    'seat_taken', 1));
  await c2.request({ type: 'resume', resume_token: joined.resume_token }, 'resumed');
  const yt2 = await nextTurn(c2);
  assert.equal(yt2.turn, yt1.turn);
  const told = await c1.expect('error');
  assert.equal(told.code, 'seat_taken', 'the old connection is told');
  /* the old connection holds nothing now */
  const stale = await c1.request({ type: 'move', move: randomMove(yt1, rng(1)), id: 'old' });
  assert.equal(stale.type, 'error');
  assert.ok(['not_joined', 'wrong_seat'].includes(stale.code), stale.code);
  assert.equal((await c1.request({ type: 'ping' })).type, 'pong', 'the old connection stays open');
  const ok = await c2.request({ type: 'move', move: randomMove(yt2, rng(1)) });
  assert.equal(ok.type, 'move_accepted');
});

test('disconnect policy forfeit: the seat loses when reconnect_grace_ms runs out', async (t) => {
  const GRACE = 600;
  const srv = await Server.start({ tag: 'dcforfeit' });
  t.after(() => srv.cleanup());
  const c = await Client.connect(srv.url, { name: 'leaver' });
  const { match, tokens } = await createMatch(c, [{ bot: 'random' }, { open: true }], {
    time_control: { move_ms: 20000 }, policies: { disconnect: 'forfeit', reconnect_grace_ms: GRACE },
  });
  const spect = await Client.connect(srv.url, { name: 'spect' });
  await spect.request({ type: 'spectate', match }, 'spectating');
  await join(c, match, 1, tokens[1]);
  const r = rng(2);
  await playUntilOver(c, { choose: (yt) => randomMove(yt, r), onTurn: (yt) => (yt.turn > 6 ? 'stop' : null) });
  c.terminate();
  const over = await spect.expect('game_over', 10000 * SLOW);
  await assertGraceKept(t, srv, match, GRACE, 'forfeit');
  assert.equal(over.result.reason, 'disconnect');
  assert.equal(over.result.seat, 1);
  assert.deepEqual(over.ranking, [0, 1]);
});

test('disconnect: coming back within reconnect_grace_ms keeps the seat', async (t) => {
  /* drops of a few hundred ms against a grace of seconds: a busy machine
   * slowing the reconnect down must not turn this into a race */
  const GRACE = 10000 * SLOW;
  const srv = await Server.start({ tag: 'dcback' });
  t.after(() => srv.cleanup());
  const c = await Client.connect(srv.url, { name: 'flaky' });
  const { match, tokens } = await createMatch(c, [{ bot: 'random' }, { open: true }], {
    time_control: { move_ms: 20000 }, policies: { disconnect: 'forfeit', reconnect_grace_ms: GRACE },
  });
  const joined = await join(c, match, 1, tokens[1]);
  /* drop while the bot is to move: a drop of several hundred ms, three times */
  let conn = c;
  for (let k = 0; k < 3; k++) {
    const yt = await nextTurn(conn);
    conn.send({ type: 'move', turn: yt.turn, move: randomMove(yt, rng(k)) });
    await conn.expect('move_accepted');
    conn.terminate();
    await sleep(400);
    conn = await Client.connect(srv.url, { name: 'flaky' + k });
    await conn.request({ type: 'resume', resume_token: joined.resume_token }, 'resumed');
  }
  const over = await playUntilOver(conn, { rng: rng(7) });
  assert.equal(over.result.reason, 'normal', 'three short drops cost nothing');
  assert.equal(srv.events('seat_dropped').length, 3, 'three drops seen by the server');
  assert.equal(srv.events('reconnect_grace_over').length, 0);
});

test('disconnect policy random_move: the server plays for the seat until it resumes', async (t) => {
  const GRACE = 400;
  const srv = await Server.start({ tag: 'dcrandom' });
  t.after(() => srv.cleanup());
  const host = await Client.connect(srv.url, { name: 'partner' });
  const { match, tokens } = await createMatch(host, [{ open: true }, { open: true }], {
    time_control: { move_ms: 20000 }, policies: { disconnect: 'random_move', reconnect_grace_ms: GRACE },
  });
  const spect = await Client.connect(srv.url, { name: 'spect' });
  await spect.request({ type: 'spectate', match }, 'spectating');
  const c = await Client.connect(srv.url, { name: 'leaver' });
  await join(host, match, 0, tokens[0]);
  const joined = await join(c, match, 1, tokens[1]);
  /* seat 0: a partner that takes 40 ms a move, all match long */
  const partner = playUntilOver(host, { rng: rng(1), delayMs: 40 });

  const r = rng(3);
  await playUntilOver(c, { choose: (yt) => randomMove(yt, r), onTurn: (yt) => (yt.turn > 8 ? 'stop' : null) });
  c.terminate();
  /* (a dead tile's discard is the server's too, whatever the seats do: not the one looked for) */
  const first = await spect.expect((m) => m.type === 'update' && m.by === 'server' && m.reason !== 'dead tile',
    10000 * SLOW);
  await assertGraceKept(t, srv, match, GRACE, 'takeover');
  assert.equal(first.reason, 'disconnect');
  assert.equal(first.record.player, 1);
  /* and goes on playing for the seat at once, turn after turn */
  let last = first.turn;
  for (let k = 0; k < 2; k++) {
    const u = await spect.expect((m) => m.type === 'update' && m.turn > last && m.record.player === 1,
      10000 * SLOW);
    last = u.turn;
    assert.equal(u.by, 'server');
    assert.ok(u.reason === 'disconnect' || u.reason === 'dead tile', u.reason);
  }
  const listed = await spect.request({ type: 'list_matches', status: 'live' }, 'matches');
  const seat1 = listed.matches.find((m) => m.match === match).seats[1];
  assert.equal(seat1.connected, false);
  assert.equal(seat1.takeover, true, 'the seat shows as taken over');

  /* back: the seat plays for itself again */
  const c2 = await Client.connect(srv.url, { name: 'back' });
  const resumed = await c2.request({ type: 'resume', resume_token: joined.resume_token }, 'resumed');
  const backAt = resumed.history.length;
  const over = await playUntilOver(c2, { rng: rng(5) });
  await partner;
  assert.equal(over.result.reason, 'normal');
  await spect.expect('game_over');
  const ups = spect.all.filter((m) => m.type === 'update');
  assert.deepEqual(ups.map((u) => u.turn), range(1, 71));
  const byServer = ups.filter((u) => u.by === 'server' && u.reason === 'disconnect');
  assert.ok(byServer.length >= 1);
  assert.ok(byServer.every((u) => u.record.player === 1));
  /* the three server turns seen above: each played for seat 1 (or a dead tile's discard) */
  const taken = ups.filter((u) => u.turn >= first.turn && u.turn <= last && u.record.player === 1);
  assert.ok(taken.length >= 3, `${taken.length} server turns of seat 1`);
  assert.ok(taken.every((u) => u.by === 'server' && (u.reason === 'disconnect' || u.reason === 'dead tile')));
  /* after the resume (allowing for one turn in flight), seat 1 plays itself */
  const after = ups.filter((u) => u.turn > backAt + 2 && u.record.player === 1);
  assert.ok(after.length > 0);
  assert.ok(after.every((u) => u.by === 'player' || u.reason === 'dead tile'),
    'no more server moves after the seat came back');
});
