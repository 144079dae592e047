'use strict';
/*
 * test_tournament_disconnect.js — a registered bot in a tournament whose
 * connection drops: back within the grace, it resumes its game (resumed)
 * and the game ends normally; gone for good, its games follow the match
 * policies (here: forfeit on disconnect) — the one it was playing and the
 * ones that start while it is away — and the tournament goes on to the end.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { Client, SLOW, randomMove, rng, sleep, startAdmin } = require('./lib');

test('a remote participant that disconnects mid-tournament: the tournament goes on', async (t) => {
  const srv = await startAdmin({ tag: 'tourdisc' });
  t.after(() => srv.cleanup());
  const r = rng(21);
  let dave = await Client.connect(srv.url, { name: 'dave' });
  await dave.request({ type: 'register', name: 'dave', secret: 'dave-secret' }, 'registered');
  const admin = await Client.connect(srv.url, { name: 'admin' });
  const made = await admin.request({
    type: 'create_tournament', admin_token: srv.adminToken, format: 'round-robin', game: 'carcassonne',
    participants: [{ name: 'heur', spec: 'heuristic' }, { name: 'rand', spec: 'random' },
      { name: 'dave', spec: 'remote:dave' }],
    games_per_pair: 2, concurrency: 1, seed: 3, time_control: { move_ms: 5000 * SLOW },
    policies: { disconnect: 'forfeit', reconnect_grace_ms: 1500 * SLOW },
  }, 'tournament_created');
  const id = made.tournament;
  const w = await Client.connect(srv.url, { name: 'watcher' });
  await w.request({ type: 'watch_tournament', tournament: id }, 'tournament');
  await admin.request({ type: 'start_tournament', admin_token: srv.adminToken, tournament: id },
    'tournament_state');

  /* dave's first game: three turns, a drop, back 200 ms later, to the end */
  const first = await dave.expect('joined', 30000 * SLOW);
  for (let i = 0; i < 3; i++) {
    const yt = await dave.expect('your_turn', 30000 * SLOW);
    dave.send({ type: 'move', match: yt.match, turn: yt.turn, move: randomMove(yt, r) });
    await dave.expect((m) => m.type === 'move_accepted' || m.type === 'error');
  }
  dave.terminate();
  await sleep(200);
  dave = await Client.connect(srv.url, { name: 'dave2' });
  await dave.request({ type: 'register', name: 'dave', secret: 'dave-secret' }, 'registered');
  const resumed = await dave.expect('resumed');
  assert.equal(resumed.match, first.match, 'its game is re-attached');
  for (;;) {
    const m = await dave.expect((x) => x.type === 'your_turn' || x.type === 'game_over', 30000 * SLOW);
    if (m.type === 'game_over') {
      assert.equal(m.match, first.match);
      assert.equal(m.result.reason, 'normal', 'back within the grace: a normal end');
      break;
    }
    dave.send({ type: 'move', match: m.match, turn: m.turn, move: randomMove(m, r) });
  }

  /* its second game: a few turns, then gone for good */
  const second = await dave.expect('joined', 30000 * SLOW);
  const yt = await dave.expect('your_turn', 30000 * SLOW);
  dave.send({ type: 'move', match: yt.match, turn: yt.turn, move: randomMove(yt, r) });
  await dave.expect('move_accepted');
  dave.terminate();

  for (;;) {
    const u = await w.expect('tournament_update', 60000 * SLOW);
    if (u.state === 'done')
      break;
  }
  const v = await w.request({ type: 'watch_tournament', tournament: id }, 'tournament');
  assert.equal(v.counts.done, 6, 'every game played');
  const daves = v.games.filter((g) => g.table.includes('dave'));
  assert.equal(daves.length, 4);
  const byMatch = Object.fromEntries(v.games.map((g) => [g.match, g]));
  assert.equal(byMatch[first.match].result.end, 'normal');
  const gone = daves.filter((g) => g.match !== first.match);
  for (const g of gone) {
    assert.equal(g.result.end, 'disconnect', JSON.stringify(g));
    assert.equal(g.table[g.result.culprit], 'dave', 'dave is at fault');
    assert.equal(g.result.rank[g.result.culprit], 2, 'and ranks last');
  }
  assert.ok(gone.some((g) => g.match === second.match));
  for (const g of v.games.filter((x) => !x.table.includes('dave')))
    assert.equal(g.result.end, 'normal', 'the other games are not affected');
  const pushed = w.all.filter((m) => m.type === 'tournament_update' && m.standings &&
    m.standings.counts.done === 6);
  const st = pushed.length ? pushed[pushed.length - 1].standings : (await (async () => {
    for (;;) {
      const u = await w.expect('tournament_update', 30000 * SLOW);
      if (u.standings && u.standings.counts.done === 6)
        return u.standings;
    }
  })());
  const row = st.standings.find((x) => x.name === 'dave');
  assert.equal(row.faults, 3, 'its three lost games are its faults');
  assert.equal(row.games, 4);
});
