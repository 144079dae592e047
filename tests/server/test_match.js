'use strict';
/*
 * test_match.js — a whole Carcassonne match between an in-process bot and a
 * remote client, played over the protocol: it ends normally after 71 turns
 * and what the client saw along the way adds up to the final result.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { Server, Client, createMatch, join, playUntilOver, rng, randomMove, sleep } = require('./lib');

test('in-process bot vs remote client: a full match ends normally', async (t) => {
  const srv = await Server.start({ tag: 'match' });
  t.after(() => srv.cleanup());
  const c = await Client.connect(srv.url, { name: 'player' });
  assert.equal(c.welcome.protocol, 1);
  assert.equal(c.welcome.limits.max_message_bytes, 65536);

  const { match, tokens } = await createMatch(c, [{ bot: 'heuristic' }, { open: true, name: 'remote' }],
    { time_control: { move_ms: 5000 } });
  assert.match(match, /^[A-Za-z0-9_-]{1,32}$/);
  assert.deepEqual(Object.keys(tokens), ['1']);

  /* waiting until the open seat is joined */
  const listed = await c.request({ type: 'list_matches', status: 'all' }, 'matches');
  const mine = listed.matches.find((m) => m.match === match);
  assert.equal(mine.status, 'waiting');

  const joined = await join(c, match, 1, tokens[1]);
  assert.equal(joined.seat, 1);
  assert.match(joined.resume_token, /^[A-Za-z0-9_-]{1,64}$/);
  assert.equal(joined.game, 'carcassonne');
  assert.deepEqual(joined.history, []);

  const r = rng(11);
  const accepted = [];
  const over = await playUntilOver(c, {
    choose: (yt) => {
      assert.equal(yt.seat, 1);
      assert.ok(yt.legal.length > 0, 'your_turn lists at least one legal move');
      return randomMove(yt, r);
    },
  });
  for (const m of c.all)
    if (m.type === 'move_accepted')
      accepted.push(m.turn);

  assert.equal(over.result.reason, 'normal');
  assert.equal(over.match, match);
  const updates = c.all.filter((m) => m.type === 'update');
  assert.deepEqual(updates.map((u) => u.turn), Array.from({ length: 71 }, (_, i) => i + 1),
    'the player hears of every turn, 1..71, once, in order');
  const last = updates[updates.length - 1];
  assert.equal(last.next, null, 'the last update names no next seat');
  assert.deepEqual(last.scores, over.scores, 'the client\'s view of the scores is the final one');
  assert.deepEqual(last.state.scores, over.scores);
  assert.equal(last.state.phase, 'over');
  assert.equal(last.state.bag_left, 0);

  /* every turn the remote seat played was accepted exactly once */
  const mine1 = updates.filter((u) => u.record.player === 1 && !u.record.discarded);
  assert.deepEqual(accepted, mine1.map((u) => u.turn));
  assert.ok(updates.every((u) => u.by === 'player' || u.reason === 'dead tile'),
    'no policy played for anyone');

  /* ranking and winners follow the scores */
  assert.deepEqual([...over.ranking].sort(), [0, 1]);
  assert.ok(over.scores[over.ranking[0]] >= over.scores[over.ranking[1]]);
  const best = Math.max(...over.scores);
  assert.deepEqual(over.result.winners, [0, 1].filter((s) => over.scores[s] === best));

  /* the finished match: 71 turns in its history, the same records */
  const view = await c.request({ type: 'spectate', match }, 'spectating');
  assert.equal(view.history.length, 71);
  assert.deepEqual(view.history, updates.map((u) => u.record));
  assert.equal(view.result.reason, 'normal');
  const fin = await c.request({ type: 'list_matches', status: 'finished' }, 'matches');
  const f = fin.matches.find((m) => m.match === match);
  assert.equal(f.status, 'finished');
  assert.equal(f.turn, 71);
  assert.deepEqual(f.scores, over.scores);
  c.close();
  const e = await srv.stop();
  assert.equal(e.code, 0, 'graceful stop exits 0');
});

test('joined and resumed show the joining seat connected and the match started', async (t) => {
  const srv = await Server.start({ tag: 'joinview' });
  t.after(() => srv.cleanup());
  const c = await Client.connect(srv.url);
  const { match, tokens } = await createMatch(c, [{ bot: 'random' }, { open: true }]);
  const joined = await join(c, match, 1, tokens[1]);
  c.terminate();
  const c2 = await Client.connect(srv.url);
  const resumed = await c2.request({ type: 'resume', resume_token: joined.resume_token }, 'resumed');
  assert.equal(resumed.seats[1].connected, true, 'resumed: the seat is connected');
  assert.equal(joined.seats[1].connected, true, 'joined: the seat is connected');
  assert.equal(joined.status, 'live', 'joined: the last open seat joined starts the match');
});

test('one connection holding two seats of a match can play the seat to move', async (t) => {
  const srv = await Server.start({ tag: 'twoseats' });
  t.after(() => srv.cleanup());
  const c = await Client.connect(srv.url);
  const { match, tokens } = await createMatch(c, [{ open: true }, { open: true }]);
  await join(c, match, 0, tokens[0]);
  const second = await c.request({ type: 'join', match, seat: 1, token: tokens[1] });
  if (second.type === 'error')
    return; /* refusing the second seat is a fine answer too */
  const yt = await c.expect('your_turn');
  const r = await c.request({ type: 'move', match, turn: yt.turn, move: randomMove(yt, rng(1)) });
  assert.equal(r.type, 'move_accepted', JSON.stringify(r));
});

test('SIGTERM while in-process searches run: a clean exit, and every match resumes after', async (t) => {
  /* Stopping closes every match while its bot may be searching on the
   * thread pool: the match must be freed exactly once, after both the
   * search and its timer are done (run under ASan this catches a double
   * free). Three rounds, to meet the search at different points. */
  const srv = await Server.start({ tag: 'stopsearch' });
  t.after(() => srv.cleanup());
  let ids = [];
  for (let round = 0; round < 3; round++) {
    const c = await Client.connect(srv.url, { name: 'stopper' + round });
    if (round === 0)
      for (let i = 0; i < 6; i++)
        ids.push((await createMatch(c, [{ bot: 'mcts:ms=40' }, { bot: 'flatmc:ms=30' }])).match);
    const live = await c.request({ type: 'list_matches', status: 'live' }, 'matches');
    assert.deepEqual(live.matches.map((m) => m.match).sort(), [...ids].sort(),
      `round ${round}: every match is live (resumed after the restart)`);
    await sleep(100 + 70 * round);
    c.terminate();
    const e = await srv.stop();
    assert.equal(e.code, 0, `round ${round}: graceful stop exits 0 (${JSON.stringify(e)})`);
    await srv.restart();
  }
});
