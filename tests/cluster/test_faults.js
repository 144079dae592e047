'use strict';
/*
 * test_faults.js — what a server on PostgreSQL does when the database or
 * Redis goes away (docs/scaling.md, "Faults"):
 *   - PostgreSQL down at start: the server refuses to start, naming it;
 *   - PostgreSQL lost mid-match: the match pauses (no turn is announced that
 *     is not stored), goes on when the database is back, and finishes; lost
 *     again and the server killed meanwhile, everything any client heard is
 *     in the journal the restarted server resumes from;
 *   - Redis lost: play between clients of the owner goes on, the spectator
 *     of another server is let go; Redis back, spectating from there works
 *     again.
 * These suites start a PostgreSQL or Redis of their own (scripts/services.sh
 * in a temporary folder), since they stop it.
 */
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const lib = require('../server/lib.js');
const { Server, Client, SLOW, createMatch, rng, randomMove, replayHistory, sleep } = lib;
const { test, startCluster, freePort, stopAll } = require('./cluster.js');

const SERVICES = path.join(lib.ROOT, 'scripts', 'services.sh');

function services(cmd, dir, ...args) {
  const r = spawnSync(SERVICES, [cmd, dir, ...args], { encoding: 'utf8' });
  if (r.status !== 0)
    throw new Error(`services.sh ${cmd}: ${r.stderr}`);
}

function ownServices(t, ...args) {
  const dir = lib.tmpDir('svc');
  services('start', dir, ...args);
  t.after(() => {
    try {
      services('stop', dir);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
  const env = {};
  for (const line of fs.readFileSync(path.join(dir, 'services.env'), 'utf8').split('\n')) {
    const m = /^(\w+)='(.*)'$/.exec(line);
    if (m)
      env[m[1]] = m[2];
  }
  return { dir, env };
}

test('PostgreSQL down at start: the server says so and exits 1', async () => {
  const port = await freePort(); /* nothing listens there */
  const r = spawnSync(lib.binary(), ['serve', '--port', '0', '--no-web', '--storage',
    `host=127.0.0.1 port=${port} user=tessera dbname=tessera connect_timeout=3`],
  { encoding: 'utf8', timeout: 30000 * SLOW });
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /tessera serve: PostgreSQL: .*(refused|could not connect)/i);
  assert.match(r.stderr, new RegExp(`${port}`), 'the message names the address');
  const bad = spawnSync(lib.binary(), ['serve', '--no-web', '--redis', '127.0.0.1:6379'],
    { encoding: 'utf8', timeout: 30000 * SLOW });
  assert.equal(bad.status, 2, 'Redis without PostgreSQL is a configuration error');
  assert.match(bad.stderr, /cluster\.redis needs PostgreSQL storage/);
});

/* Play c's seat until `stop(yt)` says so or the game ends; returns the last message. */
async function playSome(c, r, stop) {
  for (;;) {
    const m = await c.expect((x) => x.type === 'your_turn' || x.type === 'game_over', 30000 * SLOW);
    if (m.type === 'game_over' || (stop && stop(m)))
      return m;
    c.send({ type: 'move', match: m.match, turn: m.turn, move: randomMove(m, r) });
  }
}

const updates = (c) => c.all.filter((m) => m.type === 'update').map((u) => u.record);

test('PostgreSQL lost mid-match: the match pauses, goes on when it is back, and nothing unstored is ever heard',
  async (t) => {
    const { dir, env } = ownServices(t, '--no-redis');
    const db = env.TESSERA_PG;
    const srv = await Server.start({ storage: db, tag: 'pglost' });
    t.after(() => srv.cleanup());
    const c = await Client.connect(srv.url, { name: 'p' });
    const { match, tokens } = await createMatch(c, [{ bot: 'random' }, { open: true }], {
      time_control: { move_ms: 60000 }, policies: { reconnect_grace_ms: 60000 },
    });
    const joined = await c.request({ type: 'join', match, seat: 1, token: tokens[1] }, 'joined');
    const r = rng(3);
    let yt = await playSome(c, r, (m) => m.turn >= 10);

    /* 1. lost, then back: the move sent meanwhile waits or is refused; play goes on */
    services('pg-stop', dir);
    const heardBefore = updates(c).length;
    c.send({ type: 'move', match, turn: yt.turn, move: randomMove(yt, r) });
    await srv.waitLog((l) => l.event === 'journal_fault', 15000 * SLOW, 'journal_fault');
    await sleep(1500);
    const during = c.all.slice(-5);
    /* no update was announced while the database was away */
    assert.ok(updates(c).length <= heardBefore + 0, 'no update announced while PostgreSQL is down: ' +
      JSON.stringify(during));
    services('pg-start', dir);
    await srv.waitLog((l) => l.event === 'journal_recovered', 30000 * SLOW, 'journal_recovered');
    /* the move was either kept (and is announced now) or refused with storage_error */
    const next = await c.expect((m) => m.type === 'update' || (m.type === 'error' && m.code === 'storage_error'),
      20000 * SLOW);
    if (next.type === 'error') {
      yt = await c.expect('your_turn', 20000 * SLOW).catch(() => yt);
      c.send({ type: 'move', match, turn: yt.turn, move: randomMove(yt, r) });
    }
    yt = await playSome(c, r, (m) => m.turn >= 20);

    /* 2. lost again, and the server killed while it is away: what anyone heard
     * is in the journal the restarted server resumes from */
    services('pg-stop', dir);
    c.send({ type: 'move', match, turn: yt.turn, move: randomMove(yt, r) });
    await srv.waitLog((l) => l.event === 'journal_fault' && srv.events('journal_fault').length >= 2,
      15000 * SLOW, 'a second journal_fault');
    await sleep(500);
    const heard = updates(c);
    await srv.kill9();
    services('pg-start', dir);
    await srv.restart();
    const w = await Client.connect(srv.url, { name: 'w' });
    const view = await w.request({ type: 'spectate', match }, 'spectating');
    assert.ok(view.history.length >= heard.length);
    assert.deepEqual(view.history.slice(0, heard.length), heard,
      'every turn heard before the kill is in the journal, as heard');
    /* and it finishes */
    const c2 = await Client.connect(srv.url, { name: 'p2' });
    await c2.request({ type: 'resume', resume_token: joined.resume_token }, 'resumed');
    const over = await playSome(c2, r, null);
    assert.equal(over.type, 'game_over');
    assert.equal(over.result.reason, 'normal');
    const fin = await w.request({ type: 'spectate', match }, 'spectating');
    await replayHistory(lib.binary(), fin.rules, fin.history, over.scores);
  });

test('Redis lost: play on the owner goes on, spectating from another server stops and comes back',
  async (t) => {
    const { dir, env } = ownServices(t, '--no-pg');
    const cl = await startCluster(['a', 'b'], { tag: 'redislost', redisAddr: env.TESSERA_REDIS });
    t.after(() => stopAll(cl));
    const { a, b } = cl.servers;
    const c = await Client.connect(a.url, { name: 'p' });
    const { match, tokens } = await createMatch(c, [{ bot: 'random' }, { open: true }], {
      time_control: { move_ms: 60000 },
    });
    await c.request({ type: 'join', match, seat: 1, token: tokens[1] }, 'joined');
    const w = await Client.connect(b.url, { name: 'w' });
    await w.request({ type: 'spectate', match }, 'spectating');
    const r = rng(9);
    let yt = await playSome(c, r, (m) => m.turn >= 6);
    await w.expect((m) => m.type === 'update' && m.turn >= 5, 10000 * SLOW);

    services('redis-stop', dir);
    await b.waitLog((l) => l.event === 'redis_lost', 10000 * SLOW, 'redis_lost');
    /* B lets its forwarding spectator go (1013: try again later) */
    const closed = await w.waitClosed(10000 * SLOW);
    assert.equal(closed.code, 1013);
    /* a spectate from B now is refused, clearly */
    const w2 = await Client.connect(b.url, { name: 'w2' });
    const refused = await w2.request({ type: 'spectate', match });
    assert.ok(lib.isError(refused, 'unavailable', refused.id), JSON.stringify(refused));
    /* play on the owner goes on without Redis */
    c.send({ type: 'move', match, turn: yt.turn, move: randomMove(yt, r) });
    yt = await playSome(c, r, (m) => m.turn >= 16);
    assert.ok(yt.turn >= 16);

    services('redis-start', dir);
    await b.waitLog((l) => l.event === 'redis_recovered', 20000 * SLOW, 'redis_recovered');
    await a.waitLog((l) => l.event === 'redis_recovered', 20000 * SLOW, 'redis_recovered on A');
    const w3 = await Client.connect(b.url, { name: 'w3' });
    const view = await w3.request({ type: 'spectate', match }, 'spectating');
    assert.equal(view.match, match);
    assert.ok(view.history.length >= 15, 'the spectator from B sees the turns played meanwhile');
    c.send({ type: 'move', match, turn: yt.turn, move: randomMove(yt, r) });
    const over = await playSome(c, r, null);
    assert.equal(over.type, 'game_over');
    await w3.expect('game_over', 20000 * SLOW);
  });
