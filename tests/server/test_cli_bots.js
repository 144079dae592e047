'use strict';
/*
 * test_cli_bots.js — two `tessera bot` processes (the network bot client,
 * docs/botclient.md) play a whole match against each other on a real
 * server, watched by a spectator. Skipped, with a message, when the binary
 * has no `bot` command.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { spawn, spawnSync } = require('node:child_process');
const { Server, Client, SLOW, binary, createMatch } = require('./lib');

const bin = binary();
const help = spawnSync(bin, ['bot', '--help'], { encoding: 'utf8' });
const hasBot = /tessera bot/.test((help.stdout || '') + (help.stderr || '')) && !/unknown command/i.test(
  (help.stdout || '') + (help.stderr || ''));

function runBot(args, timeoutMs = 90000 * SLOW) {
  return new Promise((resolve, reject) => {
    const p = spawn(bin, ['bot', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '', stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      p.kill('SIGKILL');
      reject(new Error('tessera bot did not finish in time:\n' + stdout + stderr.slice(-2000)));
    }, timeoutMs);
    p.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/* "game over: reason=normal scores=87,92 winners=1 ..." -> {reason, scores, ...} */
function parseGameOver(stdout) {
  const line = stdout.split('\n').find((l) => l.startsWith('game over:'));
  if (!line)
    return null;
  const out = {};
  for (const m of line.matchAll(/(\w+)=("[^"]*"|\S+)/g))
    out[m[1]] = m[2];
  return out;
}

test('two tessera bot processes play a full match', {
  skip: hasBot ? false : 'this tessera has no `bot` command yet (client/, cli/cmd_bot.c): skipped',
}, async (t) => {
  const srv = await Server.start({ tag: 'clibots' });
  t.after(() => srv.cleanup());
  const host = await Client.connect(srv.url, { name: 'host' });
  const { match, tokens } = await createMatch(host, [{ open: true }, { open: true }], {
    time_control: { move_ms: 5000 },
  });
  const spect = await Client.connect(srv.url, { name: 'spect' });
  await spect.request({ type: 'spectate', match }, 'spectating');
  const bots = [
    runBot(['--url', srv.url, '--match', match, '--seat', '0', '--token', tokens[0], '--bot', 'heuristic',
      '--quiet']),
    runBot(['--url', srv.url, '--match', match, '--seat', '1', '--token', tokens[1], '--bot', 'random',
      '--seed', '7', '--quiet']),
  ];
  const over = await spect.expect('game_over', 90000 * SLOW);
  const runs = await Promise.all(bots);
  assert.equal(over.result.reason, 'normal');
  const ups = spect.all.filter((m) => m.type === 'update');
  assert.deepEqual(ups.map((u) => u.turn), Array.from({ length: 71 }, (_, i) => i + 1));
  assert.ok(ups.every((u) => u.by === 'player' || u.reason === 'dead tile'), 'no policy played for a bot');
  runs.forEach((r, seat) => {
    assert.equal(r.code, 0, `seat ${seat} exits 0:\n${r.stdout}${r.stderr.slice(-2000)}`);
    const g = parseGameOver(r.stdout);
    assert.ok(g, `seat ${seat} prints its game over line:\n${r.stdout}`);
    assert.equal(g.reason, 'normal');
    assert.equal(g.scores, over.scores.join(','), `seat ${seat} saw the final scores`);
    assert.equal(g.match, match);
    assert.equal(Number(g.seat), seat);
    if (g.turns !== undefined)
      assert.equal(Number(g.turns), 71);
  });
});
