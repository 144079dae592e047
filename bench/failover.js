'use strict';
/*
 * failover.js — how long a match stops when its server dies (docs/scaling.md,
 * "Measured"): three servers on one PostgreSQL with Redis; a match created on
 * A and played by two clients of B and C (random moves, as fast as they come);
 * after 10 turns A is killed with SIGKILL; the clients resume as soon as their
 * connections close, like `tessera bot`. It reports, per trial, the time from
 * the kill to the takeover (the log line of the server that took A over) and
 * to the first turn played after it (two turns past the one at the kill),
 * and the medians. A benchmark, not a test.
 *
 *   TESSERA_SERVICES=DIR node bench/failover.js build/cli/tessera [--trials 5] [--lease-ms 2000]
 *
 * DIR is a folder of scripts/services.sh (PostgreSQL and Redis); the harness
 * is tests/cluster/cluster.js.
 */
const path = require('node:path');
const lib = require('../tests/server/lib.js');
const { startCluster, stopAll } = require('../tests/cluster/cluster.js');

function args() {
  const o = { trials: 5, leaseMs: 2000 };
  const a = process.argv.slice(3); /* argv[2]: the binary (lib.js reads it there) */
  if (!process.argv[2] || process.argv[2].startsWith('--')) {
    console.error('usage: node bench/failover.js PATH/TO/tessera [--trials N] [--lease-ms MS]');
    process.exit(2);
  }
  for (let i = 0; i < a.length; i++) {
    if (a[i] === '--trials') o.trials = +a[++i];
    else if (a[i] === '--lease-ms') o.leaseMs = +a[++i];
    else {
      console.error(`bench/failover.js: unknown argument ${a[i]}`);
      process.exit(2);
    }
  }
  return o;
}

/* A player that resumes on its server whenever its connection closes; calls
 * onUpdate(turn, at) for every update heard. */
async function player(url, match, seat, token, r, onUpdate) {
  let c = await lib.Client.connect(url, { name: `p${seat}` });
  const j = await c.request({ type: 'join', match, seat, token }, 'joined');
  for (;;) {
    let m;
    try {
      m = await c.expect((x) => ['your_turn', 'update', 'game_over'].includes(x.type), 120000);
    } catch (e) {
      if (!c.closeInfo)
        throw e;
      for (;;) {
        await lib.sleep(50);
        try {
          c = await lib.Client.connect(url, { name: `p${seat}r` });
          const res = await c.request({ type: 'resume', resume_token: j.resume_token });
          if (res.type === 'resumed')
            break;
          c.close();
        } catch {}
      }
      continue;
    }
    if (m.type === 'game_over')
      return;
    if (m.type === 'update') {
      onUpdate(m.turn, Date.now());
      continue;
    }
    c.send({ type: 'move', match, turn: m.turn, move: lib.randomMove(m, r) });
  }
}

async function trial(o, k) {
  const cl = await startCluster(['a', 'b', 'c'], { tag: 'failover', leaseMs: o.leaseMs });
  try {
    const { a, b, c } = cl.servers;
    const ctl = await lib.Client.connect(a.url, { name: 'ctl' });
    const { match, tokens } = await lib.createMatch(ctl, [{ open: true }, { open: true }],
      { time_control: { move_ms: 60000 }, policies: { reconnect_grace_ms: 60000 } });
    let killedAt = 0, resumedAt = 0;
    /* play again: a turn two past the one at the kill (the next one may have
     * been stored and announced by A just before it died) */
    const onUpdate = (turn, at) => {
      if (killedAt && !resumedAt && turn >= 12)
        resumedAt = at;
      if (turn === 10 && !killedAt) {
        killedAt = Date.now();
        a.kill9();
      }
    };
    await Promise.all([player(b.url, match, 0, tokens[0], lib.rng(k * 2 + 1), onUpdate),
      player(c.url, match, 1, tokens[1], lib.rng(k * 2 + 2), onUpdate)]);
    const taker = [b, c].find((s) => s.events('takeover').length);
    const takeoverAt = taker ? lib.logTime(taker.events('takeover')[0]) : NaN;
    return { takeover_ms: takeoverAt - killedAt, resumed_ms: resumedAt - killedAt };
  } finally {
    await stopAll(cl).catch(() => {});
  }
}

async function main() {
  const o = args();
  const rows = [];
  for (let k = 0; k < o.trials; k++) {
    const r = await trial(o, k);
    rows.push(r);
    console.log(`trial ${k + 1}: takeover ${r.takeover_ms} ms after the kill, play again after ${r.resumed_ms} ms`);
  }
  const med = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
  console.log(`lease ${o.leaseMs} ms, ${o.trials} trials: median takeover ${med(rows.map((r) => r.takeover_ms))} ms, ` +
    `median until play again ${med(rows.map((r) => r.resumed_ms))} ms`);
}

main().catch((e) => {
  console.error('bench/failover.js: ' + (e.stack || e));
  process.exit(1);
});
