'use strict';
/*
 * test_illegal.js — illegal moves under each `illegal` policy
 * (docs/protocol.md, "Time and policies"): reject (with max_illegal),
 * forfeit, random_move. An unreadable move is `bad_move` and never counts
 * as an illegal one.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { Server, Client, SLOW, createMatch, join, playUntilOver, rng, randomMove, illegalMove, isError } =
  require('./lib');

/* A fresh match [random bot, open seat 1] joined by a client. */
async function table(t, policies) {
  const srv = await Server.start({ tag: 'illegal' });
  t.after(() => srv.cleanup());
  const c = await Client.connect(srv.url, { name: 'cheat' });
  const { match, tokens } = await createMatch(c, [{ bot: 'random' }, { open: true }], {
    time_control: { move_ms: 10000 }, policies,
  });
  await join(c, match, 1, tokens[1]);
  return { srv, c, match };
}

const nextTurn = (c, after = 0) =>
  c.expect((m) => m.type === 'your_turn' && m.turn > after, 10000 * SLOW);

test('illegal policy reject: errors until max_illegal, then forfeit; bad_move does not count',
  async (t) => {
    const { c, match } = await table(t, { illegal: 'reject', max_illegal: 2 });
    const yt1 = await nextTurn(c);
    /* unreadable: bad_move, connection kept, not counted */
    for (const mv of [{ x: 'a', y: 0, rot: 0 }, { x: 0, y: 1, rot: 9 }, { x: 0, y: 1, rot: 0, meeple: 'Q' },
      { x: 0, y: 1 }, {}, { x: 0, y: 1, rot: 0, extra: 1 }, { x: 0.5, y: 1, rot: 0 }])
      assert.ok(isError(await c.request({ type: 'move', move: mv, id: 'b' }), 'bad_move', 'b'),
        'bad_move for ' + JSON.stringify(mv));
    /* not even an object: a shape error */
    assert.ok(isError(await c.request({ type: 'move', move: 'N', id: 'n' }), 'bad_message', 'n'));
    /* illegal #1: rejected, the seat may try again */
    const e1 = await c.request({ type: 'move', match, turn: yt1.turn, move: illegalMove(yt1), id: 1 });
    assert.ok(isError(e1, 'illegal_move', 1), JSON.stringify(e1));
    const ok = await c.request({ type: 'move', match, turn: yt1.turn, move: randomMove(yt1, rng(1)), id: 2 });
    assert.equal(ok.type, 'move_accepted');
    assert.equal(ok.turn, yt1.turn);
    /* illegal #2 on a later turn: max_illegal reached, the seat forfeits */
    const yt2 = await nextTurn(c, yt1.turn);
    const e2 = await c.request({ type: 'move', move: illegalMove(yt2), id: 'x2' });
    assert.ok(isError(e2, 'illegal_move', 'x2'));
    const over = await c.expect('game_over');
    assert.equal(over.result.reason, 'illegal');
    assert.equal(over.result.seat, 1);
    assert.match(over.result.detail, /illegal/);
    assert.deepEqual(over.ranking, [0, 1]);
  });

test('illegal policy reject (default max_illegal 3)', async (t) => {
  const { c } = await table(t, {});
  const yt = await nextTurn(c);
  for (let i = 1; i <= 3; i++) {
    const e = await c.request({ type: 'move', move: illegalMove(yt), id: i });
    assert.ok(isError(e, 'illegal_move', i));
    if (i < 3)
      assert.ok(!c.all.some((m) => m.type === 'game_over'), `no forfeit after ${i} illegal moves`);
  }
  const over = await c.expect('game_over');
  assert.equal(over.result.reason, 'illegal');
});

test('illegal policy forfeit: the first illegal move loses', async (t) => {
  const { c } = await table(t, { illegal: 'forfeit' });
  const yt = await nextTurn(c);
  const e = await c.request({ type: 'move', move: illegalMove(yt), id: 'f' });
  assert.ok(isError(e, 'illegal_move', 'f'));
  const over = await c.expect('game_over');
  assert.equal(over.result.reason, 'illegal');
  assert.equal(over.result.seat, 1);
  assert.deepEqual(over.result.winners, [0]);
  assert.ok(!c.all.some((m) => m.type === 'update' && m.turn === yt.turn), 'nothing played for the seat');
});

test('illegal policy random_move: a random legal move is played instead, the match goes on',
  async (t) => {
    const { c } = await table(t, { illegal: 'random_move' });
    const yt = await nextTurn(c);
    const e = await c.request({ type: 'move', move: illegalMove(yt), id: 'r' });
    assert.ok(isError(e, 'illegal_move', 'r'));
    const up = await c.expect((m) => m.type === 'update' && m.turn === yt.turn);
    assert.equal(up.by, 'server');
    assert.equal(up.reason, 'illegal');
    assert.equal(up.record.player, 1);
    assert.ok(up.record.discarded || yt.legal.some((l) => l.x === up.record.x && l.y === up.record.y));
    /* a second illegal move later: the same, never a forfeit */
    const yt2 = await nextTurn(c, yt.turn);
    assert.ok(isError(await c.request({ type: 'move', move: illegalMove(yt2), id: 2 }), 'illegal_move', 2));
    const up2 = await c.expect((m) => m.type === 'update' && m.turn === yt2.turn);
    assert.equal(up2.reason, 'illegal');
    const over = await playUntilOver(c, { rng: rng(4) });
    assert.equal(over.result.reason, 'normal');
    assert.equal(c.all.filter((m) => m.type === 'update').length, 71);
  });
