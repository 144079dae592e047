'use strict';
/*
 * test_shared_redis.js — two clusters, each on its own database, sharing one
 * Redis and using the same server names (a and b), as a staging and a
 * production cluster might: neither may hear the other. Cluster one plays a
 * match of its a through its b (every message forwarded over Redis); mid-match
 * cluster two's a is killed and cluster two's b takes it over, saying so on
 * Redis. Cluster one's players must not notice: no connection closed, no
 * takeover in cluster one, the match ends normally. Found by CI: the channels
 * were tessera:i:NAME for every cluster, so cluster_cluster and
 * cluster_courses, run at once on the fixture's Redis, closed each other's
 * forwarded connections ("the server of this match is gone").
 */
const assert = require('node:assert/strict');
const lib = require('../server/lib.js');
const { Client, SLOW, createMatch } = lib;
const { test, startCluster, stopAll, resilientPlayer } = require('./cluster.js');

test('two clusters on one Redis with the same server names do not hear each other', async (t) => {
  const one = await startCluster(['a', 'b'], { tag: 'shared1' });
  t.after(() => stopAll(one));
  const two = await startCluster(['a', 'b'], { tag: 'shared2' });
  t.after(() => stopAll(two));
  assert.equal(one.redis, two.redis, 'the same Redis');
  const ctl = await Client.connect(one.servers.a.url, { name: 'ctl' });
  const { match, tokens } = await createMatch(ctl, [{ open: true }, { open: true }],
    { time_control: { move_ms: 120000 * SLOW } });
  let killed = false;
  const onTurn = async (m) => {
    if (killed || m.turn < 10)
      return;
    killed = true;
    /* the match waits for this seat while cluster two fails over */
    await two.servers.a.kill9();
    await two.servers.b.waitLog((l) => l.event === 'takeover' && l.from === 'a', 60000 * SLOW,
      "cluster two's b takes its a over");
  };
  const p0 = resilientPlayer(() => one.servers.b.url, match, 0, tokens[0], 5, { onTurn });
  const p1 = resilientPlayer(() => one.servers.b.url, match, 1, tokens[1], 6);
  const [r0, r1] = await Promise.all([p0, p1]);
  assert.ok(killed, 'cluster two lost its a mid-match');
  assert.equal(r0.over.result.reason, 'normal');
  assert.deepEqual(r0.over.result, r1.over.result);
  assert.equal(r0.reconnects + r1.reconnects, 0, "cluster one's players were never cut off");
  assert.equal(one.servers.b.events('takeover').length, 0, "cluster one's b took nothing over");
  assert.equal(one.servers.a.events('takeover').length, 0);
  const stats = await ctl.request({ type: 'server_stats' }, 'stats');
  assert.ok(stats.cluster.served > 0, "cluster one's a answered forwarded messages");
  two.servers.a.expectedExit = null;
});
