#!/usr/bin/env node
/*
 * bench/compare.js — tessera against the bare relay (bench/relay.js), in
 * interleaved rounds: each round runs bench/load.js on tessera, takes the
 * bytes per message type the seats received, then runs load.js on the relay
 * made to send exactly that many bytes per turn. Reports, per round and as
 * medians: server CPU µs per move of both, their ratio (tessera / relay) and
 * bytes_per_turn of both. A benchmark, not a test: it measures.
 *
 *   node bench/compare.js --tessera build/cli/tessera [--baseline OTHER] [--rounds R] [--json]
 *                         [load.js options]
 *
 * --baseline OTHER adds a third run to every round, load.js on another
 * tessera build (e.g. main's), between the two: before and after, measured
 * interleaved with the same relay. Options other than --rounds, --baseline and
 * --json go to load.js unchanged (the relay has no timeout policy:
 * --timeout-matches is refused).
 */
'use strict';

const { spawnSync } = require('child_process');
const path = require('path');

const argv = process.argv.slice(2);
let rounds = 3, json = false, tessera = null, baseline = null;
const pass = [];
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === '--rounds') {
    rounds = Number(argv[++i]);
    if (!Number.isInteger(rounds) || rounds < 1) {
      console.error('compare.js: --rounds wants an integer >= 1');
      process.exit(2);
    }
  } else if (a === '--json') json = true;
  else if (a === '--tessera') tessera = argv[++i];
  else if (a === '--baseline') baseline = argv[++i];
  else if (a === '--timeout-matches') {
    console.error('compare.js: the relay has no timeout policy: --timeout-matches is not supported here');
    process.exit(2);
  } else pass.push(a);
}
if (!tessera) {
  console.error('usage: node bench/compare.js --tessera PATH [--baseline PATH] [--rounds R] [--json] [load.js options]');
  process.exit(2);
}

const load = path.join(__dirname, 'load.js');
const relay = path.join(__dirname, 'relay.js');

function run(bin, env) {
  const r = spawnSync(process.execPath, [load, '--tessera', bin, '--json', '--quiet', ...pass], {
    env: Object.assign({}, process.env, env || {}), encoding: 'utf8', maxBuffer: 64 << 20,
  });
  const lines = (r.stdout || '').trim().split('\n');
  let rep = null;
  try {
    rep = JSON.parse(lines[lines.length - 1]);
  } catch (e) { /* reported below */ }
  if (!rep || !rep.ok) {
    console.error(`compare.js: load.js on ${bin} failed: ${rep ? rep.error : (r.stderr || '').slice(-500)}`);
    process.exit(1);
  }
  return rep;
}

const median = (xs) => {
  const s = xs.slice().sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const out = [];
for (let k = 0; k < rounds; k++) {
  const t = run(tessera);
  /* bytes per message as one seat receives it: updates go to both seats every
   * turn, your_turn and move_accepted to one */
  const turns = t.turns + t.turns_timeout_matches;
  const b = t.bytes_received;
  const sizes = {
    update: (b.update || 0) / (2 * turns),
    your_turn: (b.your_turn || 0) / turns,
    move_accepted: (b.move_accepted || 0) / turns,
    turns: Math.round(t.turns / t.config.matches),
  };
  const base = baseline ? run(baseline) : null;
  const r = run(relay, { TESSERA_RELAY_SIZES: JSON.stringify(sizes) });
  const row = {
    round: k + 1,
    tessera_cpu_us_per_move: t.server_cpu_us_per_move,
    tessera_cpu_split: t.server_cpu_us_per_move_split,
    relay_cpu_us_per_move: r.server_cpu_us_per_move,
    relay_cpu_split: r.server_cpu_us_per_move_split,
    ratio: t.server_cpu_us_per_move / r.server_cpu_us_per_move,
    tessera_bytes_per_turn: t.bytes_per_turn,
    relay_bytes_per_turn: r.bytes_per_turn,
    tessera_moves_per_s: t.moves_per_s,
    relay_moves_per_s: r.moves_per_s,
    tessera_overhead_us: t.server_overhead_us,
    tessera_rss_peak_kb: t.server_rss_peak_kb,
  };
  if (base) {
    row.baseline_cpu_us_per_move = base.server_cpu_us_per_move;
    row.baseline_cpu_split = base.server_cpu_us_per_move_split;
    row.baseline_ratio = base.server_cpu_us_per_move / r.server_cpu_us_per_move;
    row.baseline_bytes_per_turn = base.bytes_per_turn;
    row.baseline_moves_per_s = base.moves_per_s;
    row.baseline_overhead_us = base.server_overhead_us;
    row.baseline_rss_peak_kb = base.server_rss_peak_kb;
  }
  out.push(row);
  console.error(`round ${k + 1}: tessera ${row.tessera_cpu_us_per_move.toFixed(1)} us/move, relay ` +
    `${row.relay_cpu_us_per_move.toFixed(1)} us/move, ratio ${row.ratio.toFixed(2)}; bytes/turn ` +
    `${row.tessera_bytes_per_turn.toFixed(0)} vs ${row.relay_bytes_per_turn.toFixed(0)}` +
    (base ? `; baseline ${row.baseline_cpu_us_per_move.toFixed(1)} us/move, ratio ${row.baseline_ratio.toFixed(2)}` : ''));
}
const med = {
  tessera_cpu_us_per_move: median(out.map((r) => r.tessera_cpu_us_per_move)),
  relay_cpu_us_per_move: median(out.map((r) => r.relay_cpu_us_per_move)),
  ratio: median(out.map((r) => r.ratio)),
  tessera_bytes_per_turn: median(out.map((r) => r.tessera_bytes_per_turn)),
  relay_bytes_per_turn: median(out.map((r) => r.relay_bytes_per_turn)),
  tessera_moves_per_s: median(out.map((r) => r.tessera_moves_per_s)),
};
if (baseline) {
  med.baseline_cpu_us_per_move = median(out.map((r) => r.baseline_cpu_us_per_move));
  med.baseline_ratio = median(out.map((r) => r.baseline_ratio));
  med.baseline_to_tessera = median(out.map((r) => r.baseline_cpu_us_per_move / r.tessera_cpu_us_per_move));
}
console.log(`medians of ${rounds} round(s): tessera ${med.tessera_cpu_us_per_move.toFixed(1)} us CPU/move, ` +
  `relay ${med.relay_cpu_us_per_move.toFixed(1)} us CPU/move, ratio ${med.ratio.toFixed(2)} (per-round ratios), ` +
  `bytes_per_turn ${med.tessera_bytes_per_turn.toFixed(0)} (relay ${med.relay_bytes_per_turn.toFixed(0)})` +
  (baseline ? `; baseline ${med.baseline_cpu_us_per_move.toFixed(1)} us CPU/move, ratio ${med.baseline_ratio.toFixed(2)}, ` +
    `baseline/tessera ${med.baseline_to_tessera.toFixed(2)}` : ''));
if (json) console.log(JSON.stringify({ rounds: out, medians: med }));
