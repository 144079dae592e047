#!/usr/bin/env node
'use strict';
/*
 * throughput.js — moves per second through `tessera serve`, plain and
 * --durable, played by the C load generator (tessera-loadgen), which needs a
 * fifth of the CPU per move that load.js's Node clients do: on two shared
 * cores it is the server's throughput that is measured, not the clients'.
 *
 *   node bench/throughput.js --tessera build/cli/tessera --loadgen build/bench/tessera-loadgen
 *        [--matches 1000] [--rounds 3] [--modes plain,durable] [--json]
 *
 * Each round starts a fresh server per mode (a new database in a temporary
 * directory), in the order of --modes, so the modes are interleaved; per
 * round and mode: moves/s over the play (first join to last game_over), the
 * server's and the generator's CPU per move, and for --durable the server's
 * own count of fsyncs and commits (its journal_syncs log line). Medians at
 * the end. The machine's load average is printed with every row: these
 * figures are the machine's, compare them inside one run.
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawn, execFileSync } = require('child_process');

function usage(msg) {
  if (msg) console.error(`throughput.js: ${msg}`);
  console.error('usage: node bench/throughput.js --tessera BIN --loadgen BIN [--matches N] [--rounds R] ' +
    '[--modes plain,durable] [--json]');
  process.exit(2);
}

const opts = { matches: 1000, rounds: 3, modes: ['plain', 'durable'], json: false };
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i], v = process.argv[i + 1];
  if (a === '--tessera') opts.tessera = v, i++;
  else if (a === '--loadgen') opts.loadgen = v, i++;
  else if (a === '--matches') opts.matches = Number(v), i++;
  else if (a === '--rounds') opts.rounds = Number(v), i++;
  else if (a === '--modes') opts.modes = String(v).split(','), i++;
  else if (a === '--json') opts.json = true;
  else usage(`unknown argument ${a}`);
}
if (!opts.tessera || !opts.loadgen) usage('--tessera and --loadgen are required');
if (!(opts.matches >= 1) || !(opts.rounds >= 1)) usage('--matches and --rounds want positive numbers');
for (const m of opts.modes) if (m !== 'plain' && m !== 'durable') usage(`a mode is plain or durable, not ${m}`);
for (const b of [opts.tessera, opts.loadgen]) if (!fs.existsSync(b)) usage(`${b} does not exist (build it first)`);

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const load = () => os.loadavg()[0];

async function runOnce(mode) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tessera-throughput-'));
  const portFile = path.join(dir, 'port');
  const args = ['serve', '--port', '0', '--port-file', portFile, '--db', path.join(dir, 'bench.db'), '--no-web',
    '--max-conns', String(2 * opts.matches + 200), '--log-level', 'info',
    '--set', `limits.max_matches=${opts.matches + 100}`, ...(mode === 'durable' ? ['--durable'] : [])];
  /* the log goes to a file: a pipe would fill while execFileSync holds this process */
  const logPath = path.join(dir, 'server.log');
  const logFd = fs.openSync(logPath, 'w');
  const srv = spawn(path.resolve(opts.tessera), args, { stdio: ['ignore', 'ignore', logFd] });
  fs.closeSync(logFd);
  const readLog = () => { try { return fs.readFileSync(logPath, 'utf8'); } catch (e) { return ''; } };
  const exited = new Promise((r) => srv.on('exit', (code, sig) => r({ code, sig })));
  let port = 0;
  for (let i = 0; i < 500 && !port; i++) {
    try { port = Number(fs.readFileSync(portFile, 'utf8').trim()); } catch (e) { /* not yet */ }
    if (!port) await sleep(20);
  }
  if (!port) throw new Error(`the server did not start: ${readLog().slice(-500)}`);
  const loadStart = load();
  let out;
  try {
    out = execFileSync(path.resolve(opts.loadgen), ['--port', String(port), '--matches', String(opts.matches),
      '--server-pid', String(srv.pid)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  } finally {
    srv.kill('SIGTERM');
    await exited;
  }
  const log = readLog();
  fs.rmSync(dir, { recursive: true, force: true });
  const r = JSON.parse(out.trim().split('\n').pop());
  r.mode = mode;
  r.load_start = loadStart;
  r.load_end = load();
  for (const line of log.split('\n')) {
    if (!line.startsWith('{')) continue;
    let o;
    try { o = JSON.parse(line); } catch (e) { continue; }
    if (o.event === 'journal_syncs') { r.fsyncs = o.syncs; r.commits = o.commits; r.mean_fsync_ms = o.mean_sync_ms; }
    if (o.event === 'stats' && o.stats.overhead) { r.p50_us = o.stats.overhead.p50_us; r.p99_us = o.stats.overhead.p99_us; }
  }
  return r;
}

const median = (xs) => {
  const s = xs.slice().sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

(async () => {
  const rows = [];
  for (let round = 1; round <= opts.rounds; round++) {
    for (const mode of opts.modes) {
      const r = await runOnce(mode);
      r.round = round;
      rows.push(r);
      if (!opts.json) {
        console.log(`round ${round} ${mode.padEnd(7)} ${r.moves_per_s.toFixed(0).padStart(6)} moves/s  ` +
          `server ${r.server_cpu_us_per_move.toFixed(1)} µs/move  loadgen ${r.client_cpu_us_per_move.toFixed(1)} µs/move  ` +
          `p50/p99 ${r.p50_us}/${r.p99_us} µs  ` +
          (r.fsyncs !== undefined ? `${r.fsyncs} fsyncs, ${r.commits} commits, mean fsync ${r.mean_fsync_ms.toFixed(1)} ms  ` : '') +
          `load ${r.load_start.toFixed(1)}→${r.load_end.toFixed(1)}` + (r.errors || r.bad_ends ? `  ERRORS ${r.errors}/${r.bad_ends}` : ''));
      }
    }
  }
  const summary = {};
  for (const mode of opts.modes) {
    const rs = rows.filter((r) => r.mode === mode);
    summary[mode] = {
      moves_per_s: median(rs.map((r) => r.moves_per_s)),
      server_cpu_us_per_move: median(rs.map((r) => r.server_cpu_us_per_move)),
      client_cpu_us_per_move: median(rs.map((r) => r.client_cpu_us_per_move)),
    };
  }
  if (opts.json) console.log(JSON.stringify({ matches: opts.matches, rounds: rows, median: summary }));
  else for (const [mode, s] of Object.entries(summary))
    console.log(`median ${mode.padEnd(7)} ${s.moves_per_s.toFixed(0)} moves/s, server ${s.server_cpu_us_per_move.toFixed(1)} µs/move, ` +
      `loadgen ${s.client_cpu_us_per_move.toFixed(1)} µs/move`);
  process.exit(rows.some((r) => r.errors || r.bad_ends) ? 1 : 0);
})().catch((e) => { console.error(`throughput.js: ${e.message}`); process.exit(1); });
