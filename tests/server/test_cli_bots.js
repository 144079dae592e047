'use strict';
/*
 * test_cli_bots.js — `tessera bot` processes (the network bot client,
 * docs/botclient.md) play whole matches on a real server, watched by a
 * spectator: every bot of the catalogue's search families runs as a
 * separate client process, as the mission says they can — MCTS and the
 * heuristic, the evolved-UCT bots (EA-MCTS, SIEA-MCTS, EA-p-MCTS) and the
 * *-minimax family (Star1, Star2, Star2.5), with short budgets. Each match
 * must end normally, every turn played by the seat itself (no policy, no
 * forfeit), and each client must exit 0 having seen the final scores.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const { Server, Client, SLOW, binary, createMatch } = require('./lib');

const bin = binary();
const SANITIZER = /ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:/;

function runBot(args, timeoutMs = 120000 * SLOW) {
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

/*
 * A match of two open seats, a `tessera bot` process on each (specs[i] on
 * seat i), watched by a spectator; checks the whole match and both clients.
 * The move limit is generous: the budgets are simulation counts, and a
 * loaded machine must not turn this into a race.
 */
async function playPair(srv, specs, extraArgs = [[], []]) {
  const host = await Client.connect(srv.url, { name: 'host' });
  const { match, tokens } = await createMatch(host, [{ open: true }, { open: true }], {
    time_control: { move_ms: 30000 },
  });
  const spect = await Client.connect(srv.url, { name: 'spect' });
  await spect.request({ type: 'spectate', match }, 'spectating');
  const runs = await Promise.all(specs.map((spec, seat) =>
    runBot(['--url', srv.url, '--match', match, '--seat', String(seat), '--token', tokens[seat],
      '--bot', spec, ...extraArgs[seat]])));
  const over = await spect.expect('game_over', 30000 * SLOW);
  const what = specs.join(' vs ');
  assert.equal(over.result.reason, 'normal', `${what}: ${JSON.stringify(over.result)}`);
  const ups = spect.all.filter((m) => m.type === 'update');
  assert.deepEqual(ups.map((u) => u.turn), Array.from({ length: 71 }, (_, i) => i + 1), `${what}: turns 1..71`);
  assert.ok(ups.every((u) => u.by === 'player' || u.reason === 'dead tile'),
    `${what}: no policy played for a bot: ` + JSON.stringify(ups.filter((u) => u.by !== 'player' &&
      u.reason !== 'dead tile').map((u) => [u.turn, u.by, u.reason])));
  runs.forEach((r, seat) => {
    const who = `${what}, seat ${seat} (${specs[seat]})`;
    assert.ok(!SANITIZER.test(r.stderr), `${who}: a sanitizer report:\n${r.stderr.slice(-4000)}`);
    assert.equal(r.code, 0, `${who} exits 0:\n${r.stdout}${r.stderr.slice(-2000)}`);
    const errors = r.stderr.split('\n').filter((l) => l.startsWith('tessera bot: error'));
    assert.deepEqual(errors, [], `${who}: errors logged`);
    const g = parseGameOver(r.stdout);
    assert.ok(g, `${who} prints its game over line:\n${r.stdout}`);
    assert.equal(g.reason, 'normal');
    assert.equal(g.scores, over.scores.join(','), `${who} saw the final scores`);
    assert.equal(g.match, match);
    assert.equal(Number(g.seat), seat);
    assert.equal(Number(g.turns), 71);
    /* it played its own turns: one log line per turn it was asked */
    const turns = r.stderr.split('\n').filter((l) => /^tessera bot: turn \d+: \{/.test(l)).length;
    const own = ups.filter((u) => u.record.player === seat && !u.record.discarded).length;
    assert.equal(turns, own, `${who}: a turn line per own turn`);
  });
  host.close();
  spect.close();
  return { match, over, runs };
}

test('two tessera bot processes play a full match (heuristic, random)', async (t) => {
  const srv = await Server.start({ tag: 'clibots' });
  t.after(() => srv.cleanup());
  await playPair(srv, ['heuristic', 'random'], [[], ['--seed', '7']]);
});

/* Short budgets: the evolved-UCT bots with 2 generations of fitness over 5
 * simulations after 120 MCTS simulations (their defaults take seconds a
 * move), the *-minimax bots with a few thousand leaf evaluations. */
const FAMILY = [
  ['ea-mcts:sims=120,gens=2,fitness_sims=5', 'siea-mcts:sims=120,gens=2,fitness_sims=5'],
  ['ea-p-mcts:sims=120,gens=2,fitness_sims=5', 'star1:sims=2000'],
  ['star2:sims=2000', 'star2.5:sims=2000'],
];

for (const pair of FAMILY)
  test(`the search bots as client processes: ${pair.join(' vs ')}`, async (t) => {
    const srv = await Server.start({ tag: 'clibots' });
    t.after(() => srv.cleanup());
    const { runs } = await playPair(srv, pair);
    /* and they searched: the turn lines report simulations */
    runs.forEach((r, seat) => {
      const sims = [...r.stderr.matchAll(/^tessera bot: turn \d+: .* sims (\d+),/gm)].map((m) => Number(m[1]));
      assert.ok(sims.length > 0 && sims.some((n) => n > 1), `${pair[seat]}: sims reported (${sims.slice(0, 5)})`);
    });
  });
