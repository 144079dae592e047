'use strict';
/*
 * test_analyze.js — `analyze` on two servers sharing one PostgreSQL database
 * (docs/analysis.md, "On the server"; issue 27: "on several servers, any
 * server can serve it"): a match played on A is analysed when B is asked (B
 * reads the finished match from the database and runs the job), and A then
 * answers from the shared store at once, the same report, running nothing.
 */
const assert = require('node:assert/strict');
const lib = require('../server/lib.js');
const { Client, SLOW, sleep } = lib;
const { test, startCluster, stopAll } = require('./cluster.js');

test('a match of A analysed through B, then served by A from the shared store', async (t) => {
  const cl = await startCluster(['a', 'b'], { tag: 'analyze2', env: { TESSERA_TEST_ANALYZE_SIMS: '40' } });
  t.after(() => stopAll(cl));
  const { a, b } = cl.servers;
  const ca = await Client.connect(a.url, { name: 'on-a' });
  const made = await ca.request({ type: 'create_match', game: 'reversi',
    seats: [{ bot: 'mcts:sims=20' }, { bot: 'random' }] }, 'match_created');
  let done = false;
  for (let i = 0; i < 400 && !done; i++) {
    const l = await ca.request({ type: 'list_matches', status: 'finished' }, 'matches');
    done = l.matches.some((x) => x.match === made.match);
    if (!done)
      await sleep(50 * SLOW);
  }
  assert.ok(done, 'the match finished on A');
  const cb = await Client.connect(b.url, { name: 'on-b' });
  const rb = await cb.request({ type: 'analyze', match: made.match }, 'analysis', 60000 * SLOW);
  assert.equal(rb.cached, false);
  assert.equal(rb.analysis.game, 'reversi');
  assert.equal(b.events('analysed').filter((l) => l.match === made.match).length, 1, 'B ran the job');
  const ra = await ca.request({ type: 'analyze', match: made.match }, 'analysis', 30000 * SLOW);
  assert.equal(ra.cached, true, 'A found it stored');
  assert.deepEqual(ra.analysis, rb.analysis);
  assert.equal(a.events('analysed').length, 0, 'A ran nothing');
});
