'use strict';
/*
 * test_seats.js — which seat a message is for (docs/protocol.md, "Several
 * seats on one connection" and "Take-over"; issue 15, item 7): one
 * connection holding both seats of a match hears each update once and its
 * bare moves go to the seat to move; `seat` names one of them (to resign the
 * seat that is not to move); `wrong_seat` for a spectator and for a player
 * of another match; after a take-over the old connection is told seat_taken,
 * stays open, and can take the seat back.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { Server, Client, createMatch, join, randomMove, rng, isError } = require('./lib');

test('one connection, both seats: bare moves go to the seat to move; seat names one', async (t) => {
  const srv = await Server.start({ tag: 'seats-two' });
  t.after(() => srv.cleanup());
  const c = await Client.connect(srv.url, { name: 'both' });
  const { match, tokens } = await createMatch(c, [{ open: true }, { open: true }],
    { time_control: { move_ms: 60000 } });
  await join(c, match, 0, tokens[0]);
  await join(c, match, 1, tokens[1]);
  const r = rng(7);
  const seats = [];
  for (let i = 0; i < 6; i++) {
    const yt = await c.expect('your_turn');
    seats.push(yt.seat);
    if (i === 2) {
      /* naming the seat that is not to move: refused, nothing played */
      const e = await c.request({ type: 'move', seat: 1 - yt.seat, move: randomMove(yt, r), id: 'other' });
      assert.ok(isError(e, 'not_your_turn', 'other'), JSON.stringify(e));
      const ok = await c.request({ type: 'move', seat: yt.seat, match, move: randomMove(yt, r) });
      assert.equal(ok.type, 'move_accepted', JSON.stringify(ok));
      continue;
    }
    const ok = await c.request({ type: 'move', move: randomMove(yt, r) }); /* bare */
    assert.equal(ok.type, 'move_accepted', JSON.stringify(ok));
    assert.equal(ok.turn, yt.turn);
  }
  assert.ok(seats.includes(0) && seats.includes(1), `both seats were asked: ${seats}`);
  const yt = await c.expect('your_turn');
  const updates = c.all.filter((m) => m.type === 'update');
  assert.equal(updates.length, yt.turn - 1, 'each update once, though the connection holds two seats');
  assert.deepEqual(updates.map((u) => u.turn), updates.map((_, i) => i + 1));

  /* a seat it does not hold */
  const e = await c.request({ type: 'resign', seat: 3, id: 's3' });
  assert.ok(isError(e, 'wrong_seat', 's3'), JSON.stringify(e));
  /* the seat NOT to move resigns, named */
  const quitter = 1 - yt.seat;
  await c.request({ type: 'resign', match, seat: quitter }, 'resigned');
  const over = await c.expect('game_over');
  assert.equal(over.result.reason, 'resignation');
  assert.equal(over.result.seat, quitter);
  assert.equal(over.ranking[over.ranking.length - 1], quitter, 'the resigned seat ranks last');
  const again = await c.request({ type: 'resign', match, id: 'late' });
  assert.ok(isError(again, 'match_over', 'late'), JSON.stringify(again));
});

test('wrong_seat: a spectator, and a player of another match; not_joined, unknown_match', async (t) => {
  const srv = await Server.start({ tag: 'seats-wrong' });
  t.after(() => srv.cleanup());
  const host = await Client.connect(srv.url, { name: 'host' });
  const a = await createMatch(host, [{ open: true }, { bot: 'random' }], { time_control: { move_ms: 60000 } });
  const b = await createMatch(host, [{ open: true }, { bot: 'random' }], { time_control: { move_ms: 60000 } });
  const pa = await Client.connect(srv.url, { name: 'playerA' });
  await join(pa, a.match, 0, a.tokens[0]);
  const yt = await pa.expect('your_turn');
  const mv = randomMove(yt, rng(1));

  const watcher = await Client.connect(srv.url, { name: 'watcher' });
  await watcher.request({ type: 'spectate', match: a.match }, 'spectating');
  assert.ok(isError(await watcher.request({ type: 'move', match: a.match, move: mv, id: 1 }), 'wrong_seat', 1),
    'a spectator naming the match it watches');
  assert.ok(isError(await watcher.request({ type: 'move', move: mv, id: 2 }), 'not_joined', 2),
    'a spectator naming no match');
  assert.ok(isError(await watcher.request({ type: 'resign', match: a.match, id: 3 }), 'wrong_seat', 3));

  const pb = await Client.connect(srv.url, { name: 'playerB' });
  await join(pb, b.match, 0, b.tokens[0]);
  assert.ok(isError(await pb.request({ type: 'move', match: a.match, move: mv, id: 4 }), 'wrong_seat', 4),
    'a player of another match naming this one');
  assert.ok(isError(await pb.request({ type: 'resign', match: a.match, id: 5 }), 'wrong_seat', 5));
  assert.ok(isError(await pb.request({ type: 'move', match: 'nosuch', move: mv, id: 6 }), 'unknown_match', 6));
  /* nothing of that reached match A */
  const ok = await pa.request({ type: 'move', move: mv });
  assert.equal(ok.type, 'move_accepted');
  assert.equal(ok.match, a.match);
});

test('take-over: the old connection is told seat_taken, stays open, and can take the seat back',
  async (t) => {
    const srv = await Server.start({ tag: 'seats-takeover' });
    t.after(() => srv.cleanup());
    const host = await Client.connect(srv.url, { name: 'host' });
    const { match, tokens } = await createMatch(host, [{ open: true }, { bot: 'random' }],
      { time_control: { move_ms: 60000 } });
    const other = await createMatch(host, [{ open: true }, { bot: 'random' }], { time_control: { move_ms: 60000 } });
    const first = await Client.connect(srv.url, { name: 'first' });
    const joined = await join(first, match, 0, tokens[0]);
    await join(first, other.match, 0, other.tokens[0]); /* a second match on the same connection */
    await first.expect((m) => m.type === 'your_turn' && m.match === match);
    const second = await Client.connect(srv.url, { name: 'second' });
    const resumed = await second.request({ type: 'resume', resume_token: joined.resume_token }, 'resumed');
    assert.equal(resumed.seat, 0);
    const yt = await second.expect('your_turn');
    assert.equal(yt.match, match);

    const told = await first.expect((m) => m.type === 'error');
    assert.equal(told.code, 'seat_taken');
    assert.equal(told.id, undefined, 'unasked: no id');
    assert.deepEqual([told.match, told.seat], [match, 0], 'the notice names the match and seat it is about');
    assert.ok(first.isOpen, 'the old connection stays open');
    assert.equal((await first.request({ type: 'ping', id: 'p' })).type, 'pong');
    const stale = await first.request({ type: 'move', match, move: randomMove(yt, rng(2)), id: 'stale' });
    assert.ok(isError(stale, 'wrong_seat', 'stale'), JSON.stringify(stale));
    /* it keeps its other seat */
    const oyt = await first.expect((m) => m.type === 'your_turn' && m.match === other.match);
    const played = await first.request({ type: 'move', move: randomMove(oyt, rng(3)) });
    assert.equal(played.type, 'move_accepted', 'a bare move goes to the seat it still holds');
    assert.equal(played.match, other.match);

    /* and takes the first seat back: now the second connection is told */
    const back = await first.request({ type: 'resume', resume_token: joined.resume_token }, 'resumed');
    assert.equal(back.match, match);
    const told2 = await second.expect((m) => m.type === 'error');
    assert.equal(told2.code, 'seat_taken');
    assert.deepEqual([told2.match, told2.seat], [match, 0]);
    assert.ok(second.isOpen);
    const yt2 = await first.expect((m) => m.type === 'your_turn' && m.match === match);
    const ok = await first.request({ type: 'move', match, move: randomMove(yt2, rng(4)) });
    assert.equal(ok.type, 'move_accepted');
  });
