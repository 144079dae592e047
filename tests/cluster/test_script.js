'use strict';
/*
 * test_script.js — scripts/cluster.sh, the local cluster without docker
 * (docs/scaling.md, "Running it"): `start --instances 2` brings up its own
 * PostgreSQL and Redis, two servers and haproxy; the proxy serves the web
 * page; it routes ?server=NAME as docker/cluster/haproxy.cfg does, and each
 * server advertises the proxy's address with its name: a seat joined through
 * t2 is told t1's (owner_url), and resumed there it is on t1 itself (no hint,
 * t2's forwarded counter unmoved by its moves); `stop` ends every process it
 * started. (Its own services: the fixture's are not used.)
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const assert = require('node:assert/strict');
const lib = require('../server/lib.js');
const { Client, createMatch, rng, randomMove } = lib;
const { test } = require('./cluster.js');

const root = path.resolve(__dirname, '../..');
/* the build folder of the binary this suite was given (BUILD/cli/tessera) */
const build = path.dirname(path.dirname(lib.binary()));

function portFree(port) {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/* P, P+1, P+2 all free (the proxy and two servers) */
async function freeRun() {
  for (let i = 0; i < 50; i++) {
    const p = 20000 + Math.floor(Math.random() * 30000);
    if ((await portFree(p)) && (await portFree(p + 1)) && (await portFree(p + 2)))
      return p;
  }
  throw new Error('no three free ports in a row');
}

function script(args) {
  const r = spawnSync('bash', [path.join(root, 'scripts/cluster.sh'), ...args],
    { encoding: 'utf8', env: { ...process.env, TESSERA_BUILD_DIR: build }, timeout: 240000 });
  return { code: r.status, out: (r.stdout || '') + (r.stderr || '') };
}

test('scripts/cluster.sh: two servers behind haproxy routing ?server=NAME; owner_url through the proxy', async (t) => {
  const dir = lib.tmpDir('clsh');
  fs.chmodSync(dir, 0o755); /* as root the services run as nobody, under it */
  const port = await freeRun();
  t.after(() => {
    const r = script(['stop', '--dir', dir]);
    fs.rmSync(dir, { recursive: true, force: true });
    assert.equal(r.code, 0, r.out);
  });
  const up = script(['start', '--dir', dir, '--instances', '2', '--port', String(port)]);
  assert.equal(up.code, 0, up.out);
  const px = `ws://127.0.0.1:${port}/`;
  const at = (name) => `${px}?server=${name}`;
  /* the page, through the proxy */
  const page = await fetch(`http://127.0.0.1:${port}/`);
  assert.equal(page.status, 200);
  assert.match(await page.text(), /<title>/);
  /* a match made on t1 (directly), a seat joined through the proxy to t2 */
  const ctl = await Client.connect(`ws://127.0.0.1:${port + 1}/`, { name: 'ctl' });
  const { match, tokens } = await createMatch(ctl, [{ open: true }, { bot: 'random' }],
    { time_control: { move_ms: 20000 } });
  const viaT2 = await Client.connect(at('t2'), { name: 'via-t2' });
  const j = await viaT2.request({ type: 'join', match, seat: 0, token: tokens[0] }, 'joined');
  assert.equal(j.owner_url, at('t1'), 't2 names t1 by the proxy\'s address');
  viaT2.close();
  const onT1 = await Client.connect(j.owner_url, { name: 'on-t1' });
  const r = await onT1.request({ type: 'resume', resume_token: j.resume_token }, 'resumed');
  assert.equal(r.owner_url, undefined, 'the proxy took ?server=t1 to t1 itself');
  /* a few moves there: t2 forwards none of them */
  const stats = await Client.connect(`ws://127.0.0.1:${port + 2}/`, { name: 'stats-t2' });
  const fwd = async () => (await stats.request({ type: 'server_stats' }, 'stats')).cluster.forwarded;
  const before = await fwd();
  const rand = rng(5);
  for (let moves = 0; moves < 5;) {
    const m = await onT1.expect((x) => x.type === 'your_turn' || x.type === 'game_over', 20000);
    if (m.type === 'game_over')
      break;
    onT1.send({ type: 'move', match, turn: m.turn, move: randomMove(m, rand) });
    await onT1.expect((x) => x.type === 'move_accepted' || x.type === 'error', 20000);
    moves++;
  }
  assert.equal(await fwd() - before, 0, 't2 forwarded none of the moves');
  for (const c of [ctl, onT1, stats])
    c.close();
});
