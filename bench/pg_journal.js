#!/usr/bin/env node
'use strict';
/*
 * pg_journal.js — what the journal on PostgreSQL costs PostgreSQL per move
 * (issue 26): one server on a fresh PostgreSQL database, played by the C
 * load generator (tessera-loadgen), and, with --vs, a second build in
 * interleaved rounds (A B, B A, A B, ...), so that both see the same
 * machine.
 *
 *   node bench/pg_journal.js --tessera NEW [--vs BASELINE] --loadgen build/bench/tessera-loadgen
 *        [--matches 1000] [--rounds 4] [--think-ms MS] [--services DIR] [--json] [--wal-stats]
 *
 * Per run (a fresh database each), over the play and the server's shutdown:
 *   - PostgreSQL's CPU per move: every process of the cluster (the
 *     postmaster, its backends — the journal's, and the exited ones' time
 *     through the postmaster's cutime/cstime —, the WAL writer, the
 *     checkpointer, autovacuum), from /proc; and the journal's own backend
 *     alone (its pid from pg_stat_activity);
 *   - WAL bytes per move (pg_current_wal_lsn), commits per move and per
 *     second (pg_stat_database.xact_commit, read after the server has exited,
 *     so that its backend has flushed its counts), the journal's rows per
 *     batch and the most batches it had in flight at once (the server's
 *     journal_batches line; the latter printed per run, by builds that log it);
 *   - the server's CPU per move (the generator reads /proc/PID/stat) and the
 *     moves per second.
 * With --wal-stats, each run also prints what its WAL was made of: records
 * and bytes per move by record type (pg_walinspect's pg_get_wal_stats, a
 * contrib module of PostgreSQL 15, over the run's LSNs; the WAL is the
 * cluster's, so it counts anything else the cluster did meanwhile) and the
 * average size of a match's row, its seats and its lobby summary.
 * With --think-ms each bot answers that long after it is asked: the offered
 * load is then the same for both builds (the matches over the bots' pace),
 * as long as both keep up with it; without it the bots answer at once and
 * each build runs as fast as it can — and what is written per second rather
 * than per move (the lobby summaries, once a second per match that moved)
 * weighs more per move on the slower one. A move is a turn the generator played (its `turns`); each turn journals
 * its chance draw and its placement. Medians with min-max per build, and
 * with --vs the median of each interleaved pair's ratio. PostgreSQL and its
 * database come from scripts/services.sh (a throwaway cluster, or the one in
 * --services DIR). A benchmark, not a test: it never fails on time.
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawn, spawnSync } = require('child_process');

const ROOT = path.resolve(__dirname, '..');
const SERVICES = path.join(ROOT, 'scripts', 'services.sh');

function usage(msg) {
  if (msg) console.error(`pg_journal.js: ${msg}`);
  console.error('usage: node bench/pg_journal.js --tessera BIN [--vs BIN] --loadgen BIN [--matches N] ' +
    '[--rounds R] [--think-ms MS] [--services DIR] [--json] [--wal-stats]');
  process.exit(2);
}

const opts = { matches: 1000, rounds: 4, json: false };
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i], v = process.argv[i + 1];
  if (a === '--tessera') opts.tessera = v, i++;
  else if (a === '--vs') opts.vs = v, i++;
  else if (a === '--loadgen') opts.loadgen = v, i++;
  else if (a === '--matches') opts.matches = Number(v), i++;
  else if (a === '--rounds') opts.rounds = Number(v), i++;
  else if (a === '--think-ms') opts.think = Number(v), i++;
  else if (a === '--services') opts.services = path.resolve(v), i++;
  else if (a === '--json') opts.json = true;
  else if (a === '--wal-stats') opts.walStats = true;
  else usage(`unknown argument ${a}`);
}
if (!opts.tessera || !opts.loadgen) usage('--tessera and --loadgen are required');
if (!(opts.matches >= 1) || !(opts.rounds >= 1)) usage('--matches and --rounds want positive numbers');
for (const b of [opts.tessera, opts.vs, opts.loadgen].filter(Boolean))
  if (!fs.existsSync(b)) usage(`${b} does not exist (build it first)`);

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const TICK_MS = 1000 / 100; /* /proc's clock ticks */

function stat(pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  } catch {
    return null;
  }
}

/* CPU ms of a process (user + system), with its reaped children's when asked. */
function cpuMs(pid, children) {
  const f = stat(pid);
  if (!f) return 0;
  return ((+f[11]) + (+f[12]) + (children ? (+f[13]) + (+f[14]) : 0)) * TICK_MS;
}

/* PostgreSQL's whole CPU: the postmaster with what it reaped, and every live child. */
function clusterCpuMs(pmPid) {
  let ms = cpuMs(pmPid, true);
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    const f = stat(d);
    if (f && +f[1] === pmPid) ms += cpuMs(d, false);
  }
  return ms;
}

function envOf(dir) {
  const env = {};
  for (const line of fs.readFileSync(path.join(dir, 'services.env'), 'utf8').split('\n')) {
    const m = /^(\w+)='(.*)'$/.exec(line);
    if (m) env[m[1]] = m[2];
  }
  return env;
}

function psql(conninfo, sql) {
  const r = spawnSync('psql', [conninfo, '-qAt', '-c', sql], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`psql: ${r.stderr || r.error}`);
  return r.stdout.trim();
}

async function runOnce(bin, svc, tag) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tessera-pgj-'));
  const name = `bench_pgj_${process.pid}_${tag}`;
  psql(svc.env.TESSERA_PG_ADMIN, `DROP DATABASE IF EXISTS ${name}`);
  psql(svc.env.TESSERA_PG_ADMIN, `CREATE DATABASE ${name}`);
  const db = `${svc.env.TESSERA_PG_ADMIN} dbname=${name}`;
  const portFile = path.join(dir, 'port');
  const logPath = path.join(dir, 'server.log');
  const logFd = fs.openSync(logPath, 'w');
  const srv = spawn(path.resolve(bin), ['serve', '--port', '0', '--port-file', portFile, '--no-web',
    '--storage', db, '--instance', 'bench', '--max-conns', String(2 * opts.matches + 200),
    '--log-level', 'info', '--set', `limits.max_matches=${opts.matches + 100}`],
  { stdio: ['ignore', 'ignore', logFd] });
  const exited = new Promise((r) => srv.once('exit', r));
  let port = 0;
  for (let i = 0; i < 600 && !port; i++) {
    if (srv.exitCode !== null) throw new Error(`${bin} exited: ${fs.readFileSync(logPath, 'utf8').slice(-2000)}`);
    try { port = +fs.readFileSync(portFile, 'utf8'); } catch {}
    if (!port) await sleep(50);
  }
  if (!port) throw new Error(`${bin} did not start`);
  const backend = +psql(db, `SELECT pid FROM pg_stat_activity WHERE datname = current_database() ` +
    `AND pid <> pg_backend_pid() AND backend_type = 'client backend' ORDER BY backend_start LIMIT 1`);
  const counts = () => {
    const [lsn, commits, at] = psql(db, "SELECT pg_current_wal_lsn() - '0/0'::pg_lsn, xact_commit, " +
      'pg_current_wal_lsn() FROM pg_stat_database WHERE datname = current_database()').split('|');
    return { wal: +lsn, commits: +commits, lsn: at };
  };
  const c0 = counts();
  const pg0 = clusterCpuMs(svc.pgPid), be0 = cpuMs(backend, false);
  const lg = spawnSync(path.resolve(opts.loadgen), ['--port', String(port), '--matches', String(opts.matches),
    '--server-pid', String(srv.pid), '--timeout-s', '1200', ...(opts.think ? ['--think-ms', String(opts.think)] : [])], { encoding: 'utf8', maxBuffer: 1 << 24 });
  const be1 = cpuMs(backend, false);
  srv.kill('SIGTERM');
  await exited;
  await sleep(1200); /* the backend's statistics reach pg_stat_database as it exits */
  const pg1 = clusterCpuMs(svc.pgPid);
  const c1 = counts();
  let out;
  try {
    out = JSON.parse(lg.stdout.trim().split('\n').pop());
  } catch {
    throw new Error(`tessera-loadgen: ${lg.stderr.slice(-2000)}`);
  }
  const plies = +psql(db, 'SELECT count(*) FROM moves');
  /* --wal-stats: what the WAL of the run was made of (pg_walinspect, a
   * contrib module of PostgreSQL 15), bytes per move by record type */
  let walStats = null;
  if (opts.walStats) {
    psql(svc.env.TESSERA_PG_ADMIN, 'CREATE EXTENSION IF NOT EXISTS pg_walinspect');
    walStats = psql(svc.env.TESSERA_PG_ADMIN, 'SELECT "resource_manager/record_type", count, ' +
      `record_size, fpi_size FROM pg_get_wal_stats('${c0.lsn}', '${c1.lsn}', true) ` +
      'WHERE count > 0 ORDER BY combined_size DESC LIMIT 14').split('\n').map((l) => {
      const [type, count, rec, fpi] = l.split('|');
      return { type, per_move: +count / out.turns, rec_b_per_move: +rec / out.turns, fpi_b_per_move: +fpi / out.turns };
    });
    const [row, seats, summary, summaryText] = psql(db, 'SELECT avg(pg_column_size(m.*))::int, ' +
      'avg(pg_column_size(seats))::int, avg(pg_column_size(summary))::int, avg(length(summary))::int ' +
      'FROM matches m').split('|');
    walStats.push({ type: `a match's row ${row} B: seats ${seats} B, summary ${summary} B (${summaryText} characters)`,
      per_move: 0, rec_b_per_move: 0, fpi_b_per_move: 0 });
  }
  const log = fs.readFileSync(logPath, 'utf8');
  const batches = /"journal_batches".*?"batches":\s*(\d+).*?"rows":\s*(\d+)/.exec(log);
  const inFlight = /"journal_batches".*?"most_in_flight":\s*(\d+)/.exec(log); /* builds since 2026-12-03 */
  psql(svc.env.TESSERA_PG_ADMIN, `DROP DATABASE ${name} WITH (FORCE)`);
  fs.rmSync(dir, { recursive: true, force: true });
  if (lg.status !== 0) throw new Error(`tessera-loadgen exited ${lg.status}: ${lg.stderr.slice(-2000)}`);
  const n = out.turns;
  return {
    moves: n, plies, moves_per_s: out.moves_per_s, play_s: out.play_s,
    server_cpu_us_per_move: out.server_cpu_us_per_move,
    pg_cpu_us_per_move: (pg1 - pg0) * 1000 / n,
    pg_backend_cpu_us_per_move: (be1 - be0) * 1000 / n,
    wal_bytes_per_move: (c1.wal - c0.wal) / n,
    commits_per_move: (c1.commits - c0.commits) / n,
    commits_per_s: (c1.commits - c0.commits) / out.play_s,
    rows_per_batch: batches ? +batches[2] / +batches[1] : null,
    most_in_flight: inFlight ? +inFlight[1] : null,
    load: os.loadavg()[0],
    wal_stats: walStats,
  };
}

const median = (xs) => {
  const s = xs.filter((x) => x !== null && !Number.isNaN(x)).sort((a, b) => a - b);
  if (!s.length) return null;
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const KEYS = ['moves_per_s', 'server_cpu_us_per_move', 'pg_cpu_us_per_move', 'pg_backend_cpu_us_per_move',
  'wal_bytes_per_move', 'commits_per_move', 'commits_per_s', 'rows_per_batch'];

async function main() {
  const builds = [{ tag: 'A', bin: opts.tessera }];
  if (opts.vs) builds.push({ tag: 'B', bin: opts.vs });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tessera-pgj-svc-'));
  const svcDir = opts.services || path.join(tmp, 'services');
  if (!opts.services) {
    const r = spawnSync(SERVICES, ['start', svcDir, '--no-redis'], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error('scripts/services.sh start: ' + r.stderr);
  }
  const svc = { env: envOf(svcDir) };
  const pgDir = fs.readFileSync(path.join(svcDir, 'pg.dir'), 'utf8').trim();
  svc.pgPid = +fs.readFileSync(path.join(pgDir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0];
  const rows = [];
  try {
    for (let round = 1; round <= opts.rounds; round++) {
      const order = round % 2 ? builds : [...builds].reverse();
      for (const b of order) {
        const r = await runOnce(b.bin, svc, `${b.tag.toLowerCase()}${round}`);
        r.build = b.tag;
        r.round = round;
        rows.push(r);
        if (!opts.json)
          console.error(`round ${round} ${b.tag}: ${r.moves} moves (${r.plies} plies), ` +
            `${r.moves_per_s.toFixed(0)} moves/s, server ${r.server_cpu_us_per_move.toFixed(1)} us/move, ` +
            `PostgreSQL ${r.pg_cpu_us_per_move.toFixed(1)} us/move (its backend ` +
            `${r.pg_backend_cpu_us_per_move.toFixed(1)}), WAL ${r.wal_bytes_per_move.toFixed(0)} B/move, ` +
            `${r.commits_per_s.toFixed(0)} commits/s (${r.commits_per_move.toFixed(3)}/move), ` +
            (r.most_in_flight !== null ? `at most ${r.most_in_flight} batches in flight, ` : '') +
            `load ${r.load.toFixed(1)}`);
        if (!opts.json && r.wal_stats)
          for (const w of r.wal_stats)
            console.error(`    ${w.type.padEnd(28)} ${w.per_move.toFixed(2)} a move, ` +
              `${w.rec_b_per_move.toFixed(0)} B + ${w.fpi_b_per_move.toFixed(0)} B of page images a move`);
      }
    }
  } finally {
    if (!opts.services) spawnSync(SERVICES, ['stop', svcDir]);
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  const summary = {};
  for (const b of builds) {
    const rs = rows.filter((r) => r.build === b.tag);
    summary[b.tag] = Object.fromEntries(KEYS.map((k) => {
      const xs = rs.map((r) => r[k]).filter((x) => x !== null);
      return [k, { median: median(xs), min: Math.min(...xs), max: Math.max(...xs) }];
    }));
  }
  let ratios = null;
  if (opts.vs) {
    ratios = {};
    for (const k of KEYS) {
      const xs = [];
      for (let round = 1; round <= opts.rounds; round++) {
        const a = rows.find((r) => r.build === 'A' && r.round === round);
        const b = rows.find((r) => r.build === 'B' && r.round === round);
        if (a && b && a[k] !== null && b[k]) xs.push(a[k] / b[k]);
      }
      ratios[k] = { median: median(xs), min: Math.min(...xs), max: Math.max(...xs) };
    }
  }
  const out = { matches: opts.matches, rounds: opts.rounds, think_ms: opts.think || 0, A: opts.tessera, B: opts.vs || null,
    loadavg: os.loadavg(), summary, ratios, rows };
  if (opts.json) {
    console.log(JSON.stringify(out));
    return;
  }
  const f = (s, d) => `${s.median.toFixed(d)} (${s.min.toFixed(d)}–${s.max.toFixed(d)})`;
  console.log(`\n${opts.matches} matches a run${opts.think ? `, bots thinking ${opts.think} ms` : ''}, ` +
    `${opts.rounds} rounds; medians (min–max)` +
    (opts.vs ? '; A/B: median of the rounds\' ratios (min–max)' : ''));
  console.log(`| measure | A | ${opts.vs ? 'B | A/B |' : ''}`);
  console.log(`|---|---|${opts.vs ? '---|---|' : ''}`);
  const digits = { moves_per_s: 0, server_cpu_us_per_move: 1, pg_cpu_us_per_move: 1,
    pg_backend_cpu_us_per_move: 1, wal_bytes_per_move: 0, commits_per_move: 4, commits_per_s: 0,
    rows_per_batch: 1 };
  for (const k of KEYS) {
    if (summary.A[k].median === null) continue;
    console.log(`| ${k} | ${f(summary.A[k], digits[k])} |` +
      (opts.vs ? ` ${f(summary.B[k], digits[k])} | ${f(ratios[k], 3)} |` : ''));
  }
}

main().catch((e) => {
  console.error('pg_journal.js: ' + (e.stack || e));
  process.exit(1);
});
