'use strict';
/*
 * test_example_client.js — the third-party example client
 * (docs/examples/client.js), run as a child process exactly as its README
 * says, plays whole matches: one it creates against an in-process bot, and
 * one it joins with a seat token and keeps through a dropped connection
 * (cut by a TCP relay in the middle) by resuming.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const net = require('node:net');
const path = require('node:path');
const { Server, Client, SLOW, ROOT, createMatch } = require('./lib');

const CLIENT = path.join(ROOT, 'docs', 'examples', 'client.js');

/* Run the example client; resolves with {code, stdout, stderr, result}. */
function runClient(args, timeoutMs = 60000 * SLOW) {
  return new Promise((resolve, reject) => {
    /* `ws` from the example's own node_modules if installed, else the tests' */
    const env = { ...process.env, NODE_PATH: [path.join(ROOT, 'docs', 'examples', 'node_modules'),
      path.join(__dirname, 'node_modules')].join(path.delimiter) };
    const p = spawn(process.execPath, [CLIENT, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '', stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      p.kill('SIGKILL');
      reject(new Error('client.js did not finish in time:\n' + stdout + stderr));
    }, timeoutMs);
    p.on('exit', (code) => {
      clearTimeout(timer);
      const last = stdout.trim().split('\n').pop();
      let result = null;
      try {
        result = JSON.parse(last);
      } catch {}
      resolve({ code, stdout, stderr, result });
    });
  });
}

/* A TCP relay in front of the server whose connections can be cut. */
async function relay(port) {
  const pairs = new Set();
  const server = net.createServer((down) => {
    const up = net.connect(port, '127.0.0.1');
    const pair = [down, up];
    pairs.add(pair);
    down.pipe(up);
    up.pipe(down);
    const drop = () => {
      pairs.delete(pair);
      down.destroy();
      up.destroy();
    };
    down.on('error', drop);
    up.on('error', drop);
    down.on('close', drop);
    up.on('close', drop);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: server.address().port,
    cut() {
      const n = pairs.size;
      for (const [down, up] of pairs) {
        down.destroy();
        up.destroy();
      }
      pairs.clear();
      return n;
    },
    close() {
      this.cut();
      server.close();
    },
  };
}

test('example client: --create a match against an in-process bot and play it', async (t) => {
  const srv = await Server.start({ tag: 'example' });
  t.after(() => srv.cleanup());
  const run = await runClient(['--url', srv.url, '--create', '--bot', 'heuristic']);
  assert.equal(run.code, 0, 'exit 0 after game_over\n' + run.stdout + run.stderr);
  const r = run.result;
  assert.ok(r, 'a last line of JSON:\n' + run.stdout);
  assert.equal(r.reason, 'normal');
  assert.deepEqual(r.scores, r.last_update_scores, 'the client\'s view of the scores is the final one');
  assert.equal(r.seat, 1);
  assert.ok(r.moves >= 30 && r.moves <= 40, `about half of the 71 turns played (${r.moves})`);
  const c = await Client.connect(srv.url);
  const view = await c.request({ type: 'spectate', match: r.match }, 'spectating');
  assert.equal(view.history.length, 71);
  assert.equal(view.result.reason, 'normal');
  assert.deepEqual(view.result.scores, r.scores);
});

test('example client: join a seat with its token, survive a dropped connection, finish', async (t) => {
  const srv = await Server.start({ tag: 'example2' });
  t.after(() => srv.cleanup());
  const host = await Client.connect(srv.url, { name: 'host' });
  const { match, tokens } = await createMatch(host, [{ bot: 'flatmc:ms=20' }, { open: true, name: 'example' }], {
    policies: { disconnect: 'forfeit', reconnect_grace_ms: 15000 },
  });
  const spect = await Client.connect(srv.url, { name: 'spect' });
  await spect.request({ type: 'spectate', match }, 'spectating');
  const proxy = await relay(srv.port);
  t.after(() => proxy.close());
  const running = runClient(['--url', `ws://127.0.0.1:${proxy.port}/`, '--match', match, '--seat', '1',
    '--token', tokens[1], '--name', 'example']);
  /* cut the line in the middle of the match */
  await spect.expect((m) => m.type === 'update' && m.turn >= 30, 30000 * SLOW);
  assert.ok(proxy.cut() >= 1, 'the client was connected through the relay');
  const over = await spect.expect('game_over', 60000 * SLOW);
  const run = await running;
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /reconnecting/);
  assert.match(run.stdout, /resumed seat 1/);
  assert.equal(over.result.reason, 'normal', 'the seat came back in time: no forfeit');
  assert.deepEqual(run.result.scores, over.scores);
  const ups = spect.all.filter((m) => m.type === 'update');
  assert.deepEqual(ups.map((u) => u.turn), Array.from({ length: 71 }, (_, i) => i + 1));
  assert.ok(ups.filter((u) => u.record.player === 1).every((u) => u.by === 'player' || u.reason === 'dead tile'),
    'the client played every one of its turns itself');
});
