'use strict';
/*
 * test_doctor_remote.js — `tessera doctor --url URL --remote NAME` (docs/
 * stdio.md, "Checking your bot"): a bot registered on a real server through
 * `tessera bridge --register` is checked from a distance, with whole games
 * the server seats it in. The example bot passes; a bot that answers in
 * words fails full_game on time (the bridge sends the server nothing for
 * it); a name nobody registered is an error (exit 2).
 *
 * Needs a server with registered bots and the admin token (`remote:` seats);
 * skipped, with a message, when `tessera serve` has no --admin-token-file.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawn, spawnSync } = require('node:child_process');
const { Server, SLOW, ROOT, binary, sleep, tmpDir } = require('./lib');

const bin = binary();
const help = spawnSync(bin, ['serve', '--help'], { encoding: 'utf8' });
const skip = /--admin-token-file/.test((help.stdout || '') + (help.stderr || '')) ? false
  : 'this server has no admin token and registered bots yet (remote: seats): skipped';
const PY = path.join(ROOT, 'docs', 'examples', 'stdio_bot.py');
const GARBAGE = path.join(ROOT, 'tests', 'players', 'bad', 'garbage.py');

function run(args) {
  const p = spawn(bin, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const o = { stdout: '', stderr: '', proc: p };
  p.stdout.on('data', (d) => (o.stdout += d));
  p.stderr.on('data', (d) => (o.stderr += d));
  o.exited = new Promise((resolve) => p.on('exit', (code) => {
    o.code = code;
    resolve(o);
  }));
  return o;
}

async function registered(b, name) {
  for (let i = 0; i < 200 * SLOW; i++) {
    if (new RegExp(`registered as ${name}`).test(b.stderr))
      return;
    await sleep(25);
  }
  throw new Error('the bridge did not register: ' + b.stderr);
}

test('doctor --remote: a registered bot checked with whole games on the server', { skip }, async (t) => {
  const dir = tmpDir('docremote');
  const tokenFile = path.join(dir, 'admin-token');
  const srv = await Server.start({ dir, args: ['--admin-token-file', tokenFile] });
  t.after(() => srv.cleanup());
  assert.ok(fs.readFileSync(tokenFile, 'utf8').trim().length > 0);

  const good = run(['bridge', '--url', srv.url, '--register', 'alice', '--secret', 'alice-secret-1',
    '--', 'python3', PY]);
  const bad = run(['bridge', '--url', srv.url, '--register', 'bob', '--secret', 'bob-secret-22',
    '--', 'python3', GARBAGE]);
  t.after(() => {
    good.proc.kill('SIGKILL');
    bad.proc.kill('SIGKILL');
  });
  await registered(good, 'alice');
  await registered(bad, 'bob');

  const d = await run(['doctor', '--url', srv.url, '--remote', 'alice', '--admin-token-file', tokenFile,
    '--game', 'carcassonne', '--game', 'reversi', '--move-ms', String(3000 * SLOW)]).exited;
  assert.equal(d.code, 0, d.stdout + d.stderr);
  for (const line of ['pass  carcassonne  full_game', 'pass  carcassonne  new_game',
    'pass  carcassonne  more_players', 'pass  reversi      full_game', 'pass  reversi      new_game'])
    assert.ok(d.stdout.includes(line), `no "${line}" in:\n${d.stdout}`);
  assert.match(d.stdout, /^Every check passed\.$/m);

  const j = await run(['doctor', '--url', srv.url, '--remote', 'bob', '--admin-token-file', tokenFile,
    '--game', 'reversi', '--check', 'full_game', '--move-ms', String(1000 * SLOW), '--json']).exited;
  assert.equal(j.code, 1, j.stdout + j.stderr);
  const r = JSON.parse(j.stdout.trim().split('\n').pop());
  assert.equal(r.kind, 'remote');
  assert.equal(r.passed, false);
  assert.equal(r.checks.length, 1);
  assert.equal(r.checks[0].status, 'fail');
  assert.equal(r.checks[0].verdict, 'time_limit', JSON.stringify(r.checks[0]));
  assert.match(r.checks[0].detail, /lost by timeout/);
  assert.match(bad.stderr, /bad_output \(OUT\)/);

  const u = await run(['doctor', '--url', srv.url, '--remote', 'nobody', '--admin-token-file', tokenFile,
    '--game', 'reversi']).exited;
  assert.equal(u.code, 2, u.stdout + u.stderr);
  assert.match(u.stderr, /no bot ever registered as nobody/);
});
