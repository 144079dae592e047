'use strict';
/*
 * scale_sim.js — what 100,000 live matches would need (docs/scaling.md, "At
 * internet scale"), where no machine here can show it: the per-move costs
 * measured by bench/cluster.js put into a model of the servers, and a
 * discrete-event simulation of one server's journal (its group commit:
 * moves arriving at random, one batch in flight at a time, each batch
 * committing in a time that grows with its size), which gives the batch
 * sizes, the commits per second and the time a move waits for its commit.
 *
 *   node bench/scale_sim.js [--matches 100000] [--rate 0.5] [--servers auto]
 *        [--srv-us U] [--fwd-us U] [--pg-commit-us U] [--pg-move-us U]
 *        [--commit-ms MS] [--row-us U] [--wal-bytes B] [--redis-per-fwd N]
 *        [--redis-us U] [--util 0.6] [--seconds 30] [--json]
 *
 * Every cost flag has the default measured here (bench/README.md, "Three
 * servers"); --rate is moves per second per live match (0.5: a move every
 * 2 s, bots that think about a second a move). The simulation is seeded:
 * the same flags give the same figures.
 */

const defaults = {
  matches: 100000,
  rate: 0.5,
  servers: 'auto',
  /* measured by bench/cluster.js, 2026-11-28 (bench/README.md, "Three servers"; medians of 3
   * interleaved rounds of 200 matches, 14,200 moves each) */
  srvUs: 300,        /* tessera CPU per move on its owner (pg1: 299 µs) */
  fwdUs: 100,        /* more tessera CPU per move whose mover is on another server (pg3 401 - pg1 299) */
  pgCommitUs: 790,   /* PostgreSQL CPU per commit, and ... */
  pgMoveUs: 150,     /* ... per move: the line through pg1 (0.037 commits/move, 180 µs/move) and
                        pg3 (0.158, 276 µs) */
  walBytes: 2300,    /* PostgreSQL WAL per move (pg1 2,477, pg3 2,070) */
  redisPerFwd: 5.1,  /* Redis commands per forwarded move (pg3) */
  redisUs: 7,        /* Redis CPU per command (pg3: 35 µs per move / 5.1) */
  /* assumed, not measured here (a VM's disk is no server's): */
  commitMs: 2.0,     /* a batch's commit: the WAL's fsync on a server-class SSD, and the round trip */
  rowUs: 25,         /* more commit time per move in the batch */
  util: 0.6,         /* the share of a core a server may use (its loop is one thread) */
  seconds: 30,
  json: false,
};

function parse(argv) {
  const o = { ...defaults };
  const keys = {
    '--matches': 'matches', '--rate': 'rate', '--servers': 'servers', '--srv-us': 'srvUs',
    '--fwd-us': 'fwdUs', '--pg-commit-us': 'pgCommitUs', '--pg-move-us': 'pgMoveUs',
    '--commit-ms': 'commitMs', '--row-us': 'rowUs', '--wal-bytes': 'walBytes',
    '--redis-per-fwd': 'redisPerFwd', '--redis-us': 'redisUs', '--util': 'util', '--seconds': 'seconds',
  };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--json') {
      o.json = true;
      continue;
    }
    const k = keys[argv[i]];
    if (!k || i + 1 >= argv.length) {
      console.error(`bench/scale_sim.js: bad argument '${argv[i]}' (see the comment at the top)`);
      process.exit(2);
    }
    const v = argv[++i];
    o[k] = k === 'servers' && v === 'auto' ? 'auto' : Number(v);
    if (o[k] !== 'auto' && !(o[k] >= 0)) {
      console.error(`bench/scale_sim.js: ${argv[i - 1]} takes a number`);
      process.exit(2);
    }
  }
  return o;
}

/* xorshift: a seeded uniform in (0, 1) */
function rng(seed) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return (x + 0.5) / 4294967296;
  };
}

/* One server's journal for `seconds`: Poisson arrivals at `lambda` per
 * second, a batch sent whenever none is in flight, committed after
 * commitMs + n * rowUs. Returns its batches per second, mean batch, and
 * the wait of a move for its commit (p50, p99, ms). */
function simulate(lambda, o) {
  const u = rng(12345);
  const T = o.seconds;
  let t = 0;
  const arrivals = [];
  while (t < T) {
    t += -Math.log(u()) / lambda;
    arrivals.push(t);
  }
  let i = 0, now = 0, batches = 0, moved = 0;
  const waits = [];
  while (i < arrivals.length) {
    if (arrivals[i] > now)
      now = arrivals[i]; /* idle until the next move */
    /* everything that arrived by now goes in this batch */
    let j = i;
    while (j < arrivals.length && arrivals[j] <= now)
      j++;
    const n = j - i;
    const done = now + (o.commitMs / 1000) + n * (o.rowUs / 1e6);
    for (let k = i; k < j; k++)
      waits.push((done - arrivals[k]) * 1000);
    batches++;
    moved += n;
    i = j;
    now = done;
  }
  waits.sort((a, b) => a - b);
  const pct = (q) => waits[Math.min(waits.length - 1, Math.floor(q * waits.length))];
  return { batchesPerSec: batches / T, meanBatch: moved / batches, waitP50: pct(0.5), waitP99: pct(0.99) };
}

function main() {
  const o = parse(process.argv.slice(2));
  const moves = o.matches * o.rate;
  /* servers: enough that each stays under `util` of a core, the forwarded
   * share depending on their number (a client's server is any of S: its
   * moves are forwarded unless it is the match's owner) */
  const cpuPerMove = (S) => o.srvUs + (1 - 1 / S) * o.fwdUs;
  let S = o.servers;
  if (S === 'auto') {
    S = 1;
    while ((moves / S) * cpuPerMove(S) / 1e6 > o.util)
      S++;
  }
  const fwd = 1 - 1 / S;
  const perServer = moves / S;
  const sim = simulate(perServer, o);
  const commits = sim.batchesPerSec * S;
  const r = {
    matches: o.matches,
    moves_per_s: moves,
    servers: S,
    server_core_share: (perServer * cpuPerMove(S)) / 1e6,
    forwarded_share: fwd,
    batch_mean_moves: sim.meanBatch,
    commits_per_s: commits,
    commit_wait_p50_ms: sim.waitP50,
    commit_wait_p99_ms: sim.waitP99,
    postgres_cores: (commits * o.pgCommitUs + moves * o.pgMoveUs) / 1e6,
    wal_mb_per_s: (moves * o.walBytes) / 1e6,
    redis_commands_per_s: moves * fwd * o.redisPerFwd,
    redis_cores: (moves * fwd * o.redisPerFwd * o.redisUs) / 1e6,
  };
  if (o.json) {
    console.log(JSON.stringify({ params: o, result: r }));
    return;
  }
  const f = (x, d = 0) => Number(x).toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
  console.log(`${f(o.matches)} live matches, ${o.rate} moves/s each: ${f(moves)} moves/s`);
  console.log(`| servers | core per server | moves forwarded | batch (moves) | commits/s | wait for commit p50 / p99 | PostgreSQL cores | WAL | Redis commands/s | Redis cores |`);
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  console.log(`| ${S} | ${f(r.server_core_share, 2)} | ${f(100 * fwd)} % | ${f(r.batch_mean_moves, 1)} | ` +
    `${f(commits)} | ${f(r.commit_wait_p50_ms, 1)} / ${f(r.commit_wait_p99_ms, 1)} ms | ` +
    `${f(r.postgres_cores, 1)} | ${f(r.wal_mb_per_s, 1)} MB/s | ${f(r.redis_commands_per_s)} | ${f(r.redis_cores, 2)} |`);
}

main();
