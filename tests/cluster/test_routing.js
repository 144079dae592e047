'use strict';
/*
 * test_routing.js — clients sent to their match's owner (docs/scaling.md,
 * "Routing clients to the owner"): two servers on one database, each
 * advertising its address (--advertise):
 *   - B's lobby lists A's match with "server_url": A's address;
 *   - a seat joined through B is told "owner_url" (A's address); a player
 *     that follows it (connects to A, resumes) has none of its moves
 *     forwarded — B's forwarded counter (server_stats) grows by exactly the
 *     moves of the player that ignores the hint and plays on through B, and
 *     that player finishes the game all the same;
 *   - behind haproxy routing by ?server=NAME (as docker/cluster/haproxy.cfg
 *     does), the hint, followed through the proxy, reaches the owner;
 *   - `tessera bot` joined through B follows the hint: it resumes on A and
 *     none of its moves is forwarded; told an address that does not answer,
 *     it comes back through B and finishes the game there;
 *   - a server without an address gives no hint.
 */
const { spawn } = require('node:child_process');
const assert = require('node:assert/strict');
const lib = require('../server/lib.js');
const { Client, SLOW, createMatch, rng, randomMove, sleep } = lib;

/* `tessera bot ARGS` to its end: {code, stdout, stderr}. */
function runBot(args) {
  return new Promise((resolve, reject) => {
    const p = spawn(lib.binary(), ['bot', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '', stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      p.kill('SIGKILL');
      reject(new Error('tessera bot did not finish in time:\n' + stdout + stderr.slice(-2000)));
    }, 120000 * SLOW);
    p.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
const { test, startCluster, startOne, proxy, stopAll, freePort } = require('./cluster.js');

/* Play a seat on c until game_over: { over, moves } (the moves it sent). */
async function play(c, match, seed) {
  const r = rng(seed);
  let moves = 0;
  for (;;) {
    const m = await c.expect((x) => x.type === 'your_turn' || x.type === 'game_over', 60000 * SLOW);
    if (m.type === 'game_over')
      return { over: m, moves };
    c.send({ type: 'move', match, turn: m.turn, move: randomMove(m, r) });
    moves++;
  }
}

const forwarded = async (c) => (await c.request({ type: 'server_stats' }, 'stats')).cluster.forwarded;

test('a client that follows owner_url plays on the owner; one that ignores it plays through B',
  async (t) => {
    const cl = await startCluster(['a', 'b'], { tag: 'route', advertise: true });
    t.after(() => stopAll(cl));
    const { a, b } = cl.servers;
    const ctl = await Client.connect(a.url, { name: 'ctl' });
    const { match, tokens } = await createMatch(ctl, [{ open: true }, { open: true }],
      { time_control: { move_ms: 20000 } });
    /* B's lobby: the match, its server and where that server is */
    const lb = await Client.connect(b.url, { name: 'lobby-b' });
    let listed = null;
    for (let i = 0; i < 50 && !listed; i++) {
      const r = await lb.request({ type: 'list_matches' }, 'matches');
      listed = r.matches.find((x) => x.match === match);
      if (!listed)
        await sleep(200);
    }
    assert.ok(listed, 'B lists A\'s match');
    assert.equal(listed.server, 'a');
    assert.equal(listed.server_url, a.url);
    /* both seats join through B: the replies name A's address */
    const c0 = await Client.connect(b.url, { name: 'routed' });
    const j0 = await c0.request({ type: 'join', match, seat: 0, token: tokens[0] }, 'joined');
    assert.equal(j0.owner_url, a.url, 'a join forwarded to A carries A\'s address');
    const c1 = await Client.connect(b.url, { name: 'unrouted' });
    const j1 = await c1.request({ type: 'join', match, seat: 1, token: tokens[1] }, 'joined');
    assert.equal(j1.owner_url, a.url);
    /* seat 0 follows the hint: to A, resumed there, no hint (it is not forwarded) */
    c0.close();
    const d0 = await Client.connect(j0.owner_url, { name: 'routed-at-a' });
    const r0 = await d0.request({ type: 'resume', resume_token: j0.resume_token }, 'resumed');
    assert.equal(r0.owner_url, undefined, 'a reply on the owner itself carries no owner_url');
    const before = await forwarded(lb);
    const [p0, p1] = await Promise.all([play(d0, match, 1), play(c1, match, 2)]);
    assert.equal(p0.over.result.reason, 'normal');
    assert.deepEqual(p0.over.result, p1.over.result);
    assert.ok(p0.moves > 30 && p1.moves > 30, `both seats played (${p0.moves}, ${p1.moves})`);
    /* B forwarded the moves of the seat that stayed on it, and nothing of the other's */
    const after = await forwarded(lb);
    assert.equal(after - before, p1.moves,
      `B forwarded ${after - before} messages during play: seat 1's ${p1.moves} moves and no more`);
  });

test('behind haproxy routing by ?server=NAME, owner_url leads through the proxy to the owner',
  async (t) => {
    const pxPort = await freePort();
    const at = (name) => `ws://127.0.0.1:${pxPort}/?server=${name}`;
    const env = lib.servicesEnv();
    const db = lib.freshPgDb('routepx');
    const servers = {};
    for (const name of ['a', 'b'])
      servers[name] = await startOne(name, db, env, { args: ['--advertise', at(name)] });
    const cl = { servers };
    t.after(() => stopAll(cl));
    const px = await proxy(Object.values(servers), { port: pxPort, route: true });
    t.after(() => px.stop());
    const { a } = servers;
    const ctl = await Client.connect(a.url, { name: 'ctl' });
    const { match, tokens } = await createMatch(ctl, [{ open: true }, { open: true }],
      { time_control: { move_ms: 20000 } });
    /* through the proxy to B (by name), then where the hint says */
    const viaB = await Client.connect(at('b'), { name: 'via-b' });
    const j = await viaB.request({ type: 'join', match, seat: 0, token: tokens[0] }, 'joined');
    assert.equal(j.owner_url, at('a'));
    viaB.close();
    const direct = await Client.connect(j.owner_url, { name: 'via-proxy-to-a' });
    const r = await direct.request({ type: 'resume', resume_token: j.resume_token }, 'resumed');
    assert.equal(r.owner_url, undefined, 'the proxy took the resume to A itself');
    const other = await Client.connect(px.url, { name: 'plain' });
    await other.request({ type: 'join', match, seat: 1, token: tokens[1] }, 'joined');
    const [p0, p1] = await Promise.all([play(direct, match, 3), play(other, match, 4)]);
    assert.equal(p0.over.result.reason, 'normal');
    assert.deepEqual(p0.over.result, p1.over.result);
  });

for (const reachable of [true, false])
  test(`tessera bot joined through B ${reachable ? 'plays on A, its moves not forwarded'
    : 'told an address that does not answer plays on through B'}`, async (t) => {
    let cl;
    if (reachable) {
      cl = await startCluster(['a', 'b'], { tag: 'routebot', advertise: true });
    } else { /* A advertises a port nothing listens on */
      const env = lib.servicesEnv();
      const db = lib.freshPgDb('routebotx');
      const dead = await freePort();
      cl = { servers: {
        a: await startOne('a', db, env, { args: ['--advertise', `ws://127.0.0.1:${dead}/`] }),
        b: await startOne('b', db, env) } };
    }
    t.after(() => stopAll(cl));
    const { a, b } = cl.servers;
    const ctl = await Client.connect(a.url, { name: 'ctl' });
    const { match, tokens } = await createMatch(ctl, [{ open: true }, { open: true }],
      { time_control: { move_ms: 20000 } });
    const lb = await Client.connect(b.url, { name: 'stats-b' });
    const before = await forwarded(lb);
    const other = await Client.connect(a.url, { name: 'p1' });
    const bot = runBot(['--url', b.url, '--match', match, '--seat', '0', '--token', tokens[0],
      '--bot', 'random', '--seed', '7']);
    await other.request({ type: 'join', match, seat: 1, token: tokens[1] }, 'joined');
    const p1 = await play(other, match, 8);
    const r = await bot;
    assert.equal(r.code, 0, r.stderr.slice(-2000));
    assert.equal(p1.over.result.reason, 'normal');
    assert.match(r.stdout, /game over: reason=normal/);
    assert.match(r.stderr, /the match is played on ws:\/\/127\.0\.0\.1:\d+\/: playing there/);
    const fwd = (await forwarded(lb)) - before;
    if (reachable) {
      assert.ok(fwd <= 3, `B forwarded ${fwd} messages: the join, none of the moves\n${r.stderr}`);
    } else {
      assert.match(r.stderr, /at the match's server; playing through ws:/);
      assert.ok(fwd > 30, `B forwarded the bot's moves (${fwd})`);
    }
  });

test('a server without an address gives no hint', async (t) => {
  const cl = await startCluster(['a', 'b'], { tag: 'routeno' });
  t.after(() => stopAll(cl));
  const { a, b } = cl.servers;
  const ctl = await Client.connect(a.url, { name: 'ctl' });
  const { match, tokens } = await createMatch(ctl, [{ open: true }, { open: true }]);
  const c = await Client.connect(b.url, { name: 'p0' });
  const j = await c.request({ type: 'join', match, seat: 0, token: tokens[0] }, 'joined');
  assert.equal(j.owner_url, undefined);
});
