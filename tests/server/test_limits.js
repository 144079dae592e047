'use strict';
/*
 * test_limits.js — the server's limits (server/limits.h) reached on
 * purpose, each answered as docs/protocol.md says, with everyone else
 * unaffected:
 *   - a client that never reads while its replies pile up past
 *     SRV_MAX_QUEUED_BYTES is cut off; the others are served meanwhile;
 *   - the most live matches (SRV_MAX_LIVE_MATCHES), spectators of one
 *     match (SRV_MAX_SPECTATORS), matches spectated by one connection
 *     (SRV_MAX_SPECTATING): too_many, then room again once one goes;
 *   - finished matches kept in memory (SRV_MAX_FINISHED_KEPT): the oldest
 *     are let go, the journal keeps them.
 * Limits too large to reach in a test are lowered with the test hooks
 * TESSERA_TEST_MAX_MATCHES, _MAX_SPECTATORS and _FINISHED_KEPT.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { Server, Client, SLOW, createMatch, join, playUntilOver, rng, isError, rawWsClient, within, sleep } =
  require('./lib');

/* A finished bot-vs-bot match (quick: two random bots). */
async function finishedMatch(c) {
  const { match } = await createMatch(c, [{ bot: 'random' }, { bot: 'random' }]);
  for (;;) {
    const l = await c.request({ type: 'list_matches', status: 'finished' }, 'matches');
    if (l.matches.some((m) => m.match === match))
      return match;
    await sleep(50);
  }
}

test('a client that never reads is cut off when its queue is full; the others go on', async (t) => {
  const srv = await Server.start({ tag: 'queue' });
  t.after(() => srv.cleanup());
  const c = await Client.connect(srv.url, { name: 'reader' });
  const done = await finishedMatch(c);
  const replay = await c.request({ type: 'replay', match: done }, 'replayed', 30000 * SLOW);
  const size = JSON.stringify(replay).length;
  /* enough replays for several times the queue limit (4 MiB) plus what the
   * sockets buffer, within the burst of the rate limit */
  const n = Math.min(95, Math.ceil((40 << 20) / size));
  t.diagnostic(`a replay is ${size} bytes; asking for ${n} of them without reading`);
  /* a live match to watch meanwhile */
  const { match: live, tokens } = await createMatch(c, [{ bot: 'random' }, { open: true }]);
  await c.request({ type: 'spectate', match: live }, 'spectating');
  const deaf = await rawWsClient(srv.port, Array.from({ length: n }, (_, i) => ({ type: 'replay', match: done, id: i })));
  deaf.pause();
  const closed = new Promise((resolve) => deaf.on('close', resolve));
  const killed = await srv.waitLog((l) => l.event === 'conn_killed', 60000 * SLOW, 'conn_killed');
  assert.match(killed.reason, /output queue full/);
  /* the others are served meanwhile: a ping, and a seat that plays on */
  assert.equal((await c.request({ type: 'ping' })).type, 'pong');
  const p = await Client.connect(srv.url, { name: 'player' });
  await join(p, live, 1, tokens[1]);
  const yt = await p.expect('your_turn');
  const e = yt.legal[0];
  assert.equal((await p.request({ type: 'move', move: { x: e.x, y: e.y, rot: e.rot } })).type, 'move_accepted');
  await c.expect((m) => m.type === 'update' && m.match === live && m.turn === yt.turn);
  /* the deaf one: reading again shows that the server closed it */
  deaf.on('data', () => {});
  deaf.resume();
  assert.ok(await within(closed.then(() => true), 10000 * SLOW), 'the client that did not read was closed');
  const stats = await c.request({ type: 'server_stats' }, 'stats');
  assert.equal(stats.connections, 2, 'only the reader and the player are left');
});

test('the most live matches: too_many, and room again once one ends', async (t) => {
  const srv = await Server.start({ tag: 'maxmatches', env: { TESSERA_TEST_MAX_MATCHES: '3' } });
  t.after(() => srv.cleanup());
  const c = await Client.connect(srv.url, { name: 'host' });
  const made = [];
  for (let i = 0; i < 3; i++)
    made.push(await createMatch(c, [{ bot: 'random' }, { open: true }]));
  const e = await c.request({ type: 'create_match', game: 'carcassonne', seats: [{ bot: 'random' }, { open: true }], id: 'four' });
  assert.ok(isError(e, 'too_many', 'four'), JSON.stringify(e));
  assert.match(e.message, /3 matches/);
  /* one ends (joined, then resigned): a new one fits, and only one */
  await join(c, made[0].match, 1, made[0].tokens[1]);
  assert.equal((await c.request({ type: 'resign', match: made[0].match })).type, 'resigned');
  await c.expect((m) => m.type === 'game_over' && m.match === made[0].match);
  await createMatch(c, [{ bot: 'random' }, { open: true }]);
  const e2 = await c.request({ type: 'create_match', game: 'carcassonne', seats: [{ bot: 'random' }, { open: true }], id: 'five' });
  assert.ok(isError(e2, 'too_many', 'five'), JSON.stringify(e2));
  const stats = await c.request({ type: 'server_stats' }, 'stats');
  assert.equal(stats.matches_live, 3);
});

test('the most spectators of a match: too_many for a newcomer, not for one already watching', async (t) => {
  const srv = await Server.start({ tag: 'maxspect', env: { TESSERA_TEST_MAX_SPECTATORS: '2' } });
  t.after(() => srv.cleanup());
  const host = await Client.connect(srv.url, { name: 'host' });
  const { match, tokens } = await createMatch(host, [{ bot: 'random' }, { open: true }]);
  const a = await Client.connect(srv.url, { name: 'a' }), b = await Client.connect(srv.url, { name: 'b' });
  const third = await Client.connect(srv.url, { name: 'third' });
  await a.request({ type: 'spectate', match }, 'spectating');
  await b.request({ type: 'spectate', match }, 'spectating');
  const e = await third.request({ type: 'spectate', match, id: 'x' });
  assert.ok(isError(e, 'too_many', 'x'), JSON.stringify(e));
  assert.match(e.message, /spectators/);
  /* spectating again (to get the view again) is not a new spectator */
  await a.request({ type: 'spectate', match }, 'spectating');
  /* the match goes on for those watching, and only them */
  const p = await Client.connect(srv.url, { name: 'p' });
  await join(p, match, 1, tokens[1]);
  const yt = await p.expect('your_turn');
  const l = yt.legal[0];
  p.send({ type: 'move', move: { x: l.x, y: l.y, rot: l.rot } });
  for (const x of [a, b])
    await x.expect((m) => m.type === 'update' && m.turn === yt.turn);
  assert.ok(!third.all.some((m) => m.type === 'update'), 'the refused one hears nothing');
  /* room again when one leaves: by unspectate, or by closing */
  await a.request({ type: 'unspectate', match }, 'unspectated');
  await third.request({ type: 'spectate', match }, 'spectating');
  const fourth = await Client.connect(srv.url, { name: 'fourth' });
  assert.ok(isError(await fourth.request({ type: 'spectate', match, id: 'y' }), 'too_many', 'y'));
  b.close();
  await b.waitClosed();
  let ok = null;
  for (let i = 0; i < 100 && !ok; i++) {
    const r = await fourth.request({ type: 'spectate', match });
    ok = r.type === 'spectating' ? r : null;
    if (!ok)
      await sleep(50);
  }
  assert.ok(ok, 'a closed spectator makes room');
});

test('one connection spectating its most matches: finished ones make room', async (t) => {
  const srv = await Server.start({ tag: 'maxspecting' });
  t.after(() => srv.cleanup());
  const host = await Client.connect(srv.url, { name: 'host' });
  const w = await Client.connect(srv.url, { name: 'watcher' });
  const made = [];
  for (let i = 0; i < 65; i++)
    made.push(await createMatch(host, [{ open: true }, { open: true }]));
  for (let i = 0; i < 64; i++)
    await w.request({ type: 'spectate', match: made[i].match }, 'spectating');
  assert.ok(isError(await w.request({ type: 'spectate', match: made[64].match, id: 'n' }), 'too_many', 'n'));
  /* spectating one already watched is fine at the limit */
  await w.request({ type: 'spectate', match: made[3].match }, 'spectating');
  /* one of them ends: it sends nothing more, so it no longer takes a place */
  await join(host, made[5].match, 0, made[5].tokens[0]);
  await join(host, made[5].match, 1, made[5].tokens[1]);
  await host.request({ type: 'resign', match: made[5].match }, 'resigned');
  await w.expect((m) => m.type === 'game_over' && m.match === made[5].match);
  await w.request({ type: 'spectate', match: made[64].match }, 'spectating');
  /* the 64 live ones are still watched: an update of one reaches w */
  await join(host, made[7].match, 0, made[7].tokens[0]);
  await join(host, made[7].match, 1, made[7].tokens[1]);
  const yt = await host.expect((m) => m.type === 'your_turn' && m.match === made[7].match);
  const l = yt.legal[0];
  host.send({ type: 'move', match: made[7].match, move: { x: l.x, y: l.y, rot: l.rot } });
  await w.expect((m) => m.type === 'update' && m.match === made[7].match);
});

test('finished matches beyond those kept are let go; the journal keeps them', async (t) => {
  const KEPT = 3;
  const srv = await Server.start({ tag: 'evict', env: { TESSERA_TEST_FINISHED_KEPT: String(KEPT) } });
  t.after(() => srv.cleanup());
  const c = await Client.connect(srv.url, { name: 'host' });
  const done = [];
  for (let i = 0; i < 5; i++) {
    const { match, tokens } = await createMatch(c, [{ bot: 'random' }, { open: true }]);
    const p = await Client.connect(srv.url, { name: 'p' + i });
    const j = await join(p, match, 1, tokens[1]);
    await playUntilOver(p, { rng: rng(i) });
    p.close();
    done.push({ match, resume: j.resume_token });
  }
  const listed = async (cl) => (await cl.request({ type: 'list_matches', status: 'finished' }, 'matches'))
    .matches.map((m) => m.match);
  const kept = done.slice(-KEPT).map((d) => d.match);
  assert.deepEqual((await listed(c)).sort(), [...kept].sort(), 'the newest are kept');
  for (const m of kept)
    assert.equal((await c.request({ type: 'replay', match: m }, 'replayed')).result.reason, 'normal');
  const stats = await c.request({ type: 'server_stats' }, 'stats');
  assert.equal(stats.matches_kept, KEPT);
  assert.equal(stats.matches_finished, 5);
  for (const old of done.slice(0, 2)) {
    /* let go, but read back from the journal when asked for, in place of the oldest kept */
    const v = await c.request({ type: 'spectate', match: old.match }, 'spectating');
    assert.equal(v.status, 'finished');
    assert.equal((await c.request({ type: 'replay', match: old.match }, 'replayed')).result.reason, 'normal');
    /* its seat's resume token is known to the journal: match_over, not bad_token */
    assert.ok(isError(await c.request({ type: 'resume', resume_token: old.resume, id: 'z' }), 'match_over', 'z'));
    assert.equal((await c.request({ type: 'server_stats' }, 'stats')).matches_kept, KEPT, 'still KEPT held');
  }
  /* after a restart: the same newest ones */
  assert.equal((await srv.stop()).code, 0);
  await srv.restart();
  /* the line is read from the server's stderr as it comes: wait for it rather than read it at once */
  assert.equal((await srv.waitLog((l) => l.event === 'restored', undefined, "the 'restored' line")).finished, KEPT);
  const c2 = await Client.connect(srv.url, { name: 'again' });
  assert.deepEqual((await listed(c2)).sort(), [...kept].sort());
});
