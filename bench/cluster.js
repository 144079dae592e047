'use strict';
/*
 * cluster.js — the load benchmark of several servers (docs/scaling.md): the
 * same play, in interleaved rounds, on configurations among
 *   sqlite   one server on its SQLite journal (the single-machine default),
 *   pg1      one server on PostgreSQL,
 *   pgK      K servers on one PostgreSQL with Redis between them, match i
 *            created on server i mod K and its two seats played from that
 *            server (clients routed to their match's owner),
 *   pgKx     the same, its seats played from the other servers (seat s of a
 *            match of server k from k+1+(s mod K-1) mod K): every move forwarded over
 *            Redis to the owner and back, as with clients spread at random;
 *   pgKs     (--loadgen only) seat s of match i played from server (2i+s)
 *            mod K, whoever owns it, as a proxy balancing connections spreads
 *            them (a K-th on their owner), each server advertising its own
 *            address, the hint ignored;
 *   pgKf     the same, each seat following its join's owner_url: it resumes
 *            on the owner (tessera-loadgen --route follow), as `tessera bot`
 *            and the web page do — the share of moves forwarded with and
 *            without the hint.
 * N concurrent matches of two remote random bots (Carcassonne) per round.
 * The players are Node clients (protocol 1) or, with --loadgen, the C load
 * generator (bench/loadgen.c: protocol 2, a few µs of CPU a move, so that
 * the servers' figures are not the clients' on these shared cores); with
 * it the CPU is read over the play alone (its --marks). It reports moves/s,
 * the latency of a move (Node clients only: sent -> its update received on
 * the same connection), the CPU per move of the tessera servers, of
 * PostgreSQL and of Redis (from /proc), PostgreSQL's WAL and commits, and
 * the medians over rounds. A benchmark, not a test: it never fails on time.
 *
 *   node bench/cluster.js --tessera build/cli/tessera [--matches 200] [--rounds 3]
 *        [--configs sqlite,pg1,pg3x] [--loadgen build/bench/tessera-loadgen]
 *        [--think-ms MS] [--services DIR] [--json]
 *
 * PostgreSQL and Redis come from scripts/services.sh (a throwaway cluster in
 * a temporary folder, or the one in --services DIR); each round gets a fresh
 * database. Needs the npm package ws (bench/package.json).
 */
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
let WebSocket;
try {
  WebSocket = require('ws');
} catch {
  console.error('bench/cluster.js: the npm package ws is missing: (cd bench && npm ci)');
  process.exit(2);
}

const ROOT = path.resolve(__dirname, '..');
const SERVICES = path.join(ROOT, 'scripts', 'services.sh');

function parseArgs(argv) {
  const o = { matches: 200, rounds: 3, configs: ['sqlite', 'pg1', 'pg3x'], json: false, services: null,
    tessera: null, loadgen: null, thinkMs: 0 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
      if (i + 1 >= argv.length)
        usage(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--tessera') o.tessera = path.resolve(next());
    else if (a === '--matches') o.matches = +next();
    else if (a === '--rounds') o.rounds = +next();
    else if (a === '--configs') o.configs = next().split(',');
    else if (a === '--services') o.services = path.resolve(next());
    else if (a === '--loadgen') o.loadgen = path.resolve(next());
    else if (a === '--think-ms') o.thinkMs = +next();
    else if (a === '--json') o.json = true;
    else usage(`unknown option '${a}'`);
  }
  if (!o.tessera)
    usage('--tessera PATH is required');
  for (const c of o.configs)
    if (!configOf(c))
      usage(`unknown config '${c}' (sqlite, pg1, pgK, pgKx, pgKs, pgKf for K from 2 to 16)`);
  if (o.configs.some((c) => /^pg\d+[sf]$/.test(c)) && !o.loadgen)
    usage('the configs pgKs and pgKf need --loadgen');
  if (!(o.matches >= 1 && o.rounds >= 1 && o.thinkMs >= 0))
    usage('--matches and --rounds must be at least 1');
  if (o.thinkMs && !o.loadgen)
    usage('--think-ms needs --loadgen');
  return o;
}

/* sqlite | pg1 | pgK | pgKx | pgKs | pgKf -> {sqlite, K, cross, route}, or null */
function configOf(c) {
  if (c === 'sqlite')
    return { sqlite: true, K: 1, cross: false, route: 'owner' };
  const m = /^pg(\d+)([xsf]?)$/.exec(c);
  if (!m || +m[1] < 1 || +m[1] > 16 || (m[2] && +m[1] < 2))
    return null;
  const route = { x: 'cross', s: 'spread', f: 'follow' }[m[2]] || 'owner';
  return { sqlite: false, K: +m[1], cross: m[2] === 'x', route };
}

function usage(msg) {
  console.error(`bench/cluster.js: ${msg}\nusage: node bench/cluster.js --tessera PATH [--matches N] ` +
    '[--rounds R] [--configs sqlite,pg1,pgK,pgKx,pgKs,pgKf,...] [--loadgen PATH] [--think-ms MS] ' +
    '[--services DIR] [--json]');
  process.exit(2);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function envOf(dir) {
  const env = {};
  for (const line of fs.readFileSync(path.join(dir, 'services.env'), 'utf8').split('\n')) {
    const m = /^(\w+)='(.*)'$/.exec(line);
    if (m)
      env[m[1]] = m[2];
  }
  return env;
}

function psql(conninfo, sql) {
  const r = spawnSync('psql', [conninfo, '-qAt', '-c', sql], { encoding: 'utf8' });
  if (r.status !== 0)
    throw new Error(`psql: ${r.stderr || r.error}`);
  return r.stdout.trim();
}

/* CPU ms (user + system) of a process, 0 when it is gone. */
function cpuMs(pid) {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((+f[11]) + (+f[12])) * 1000 / 100; /* utime, stime: clock ticks (100/s) */
  } catch {
    return 0;
  }
}

/* Every process whose parent is ppid (PostgreSQL's backends under its postmaster). */
function children(ppid) {
  const out = [];
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d))
      continue;
    try {
      const f = fs.readFileSync(`/proc/${d}/stat`, 'utf8').split(') ')[1].split(' ');
      if (+f[1] === ppid)
        out.push(+d);
    } catch {}
  }
  return out;
}

/* CPU of PostgreSQL (postmaster and its backends; exited backends' time is
 * in the postmaster's cutime/cstime) and Redis. */
function serviceCpu(svc) {
  let pg = 0, redis = 0;
  if (svc.pgPid) {
    try {
      const f = fs.readFileSync(`/proc/${svc.pgPid}/stat`, 'utf8').split(') ')[1].split(' ');
      pg += ((+f[11]) + (+f[12]) + (+f[13]) + (+f[14])) * 10;
    } catch {}
    for (const c of children(svc.pgPid))
      pg += cpuMs(c);
  }
  if (svc.redisPid)
    redis = cpuMs(svc.redisPid);
  return { pg, redis };
}

/* a port nothing listens on now (the server given it a moment later) */
function freePort() {
  return new Promise((resolve, reject) => {
    const srv = require('node:net').createServer();
    srv.listen(0, '127.0.0.1', () => {
      const p = srv.address().port;
      srv.close(() => resolve(p));
    });
    srv.on('error', reject);
  });
}

/* `tessera serve` on port 0 (a later --port in args wins) */
async function startServer(bin, args, dir, name) {
  const portFile = path.join(dir, `port-${name}`);
  fs.rmSync(portFile, { force: true }); /* a round before left its own */
  const log = fs.openSync(path.join(dir, `${name}.log`), 'w');
  const child = spawn(bin, ['serve', '--port', '0', '--port-file', portFile, '--no-web', '--log-level', 'warn',
    '--max-conns', '20000', ...args], { stdio: ['ignore', 'ignore', log] });
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null)
      throw new Error(`server ${name} exited: ${fs.readFileSync(path.join(dir, `${name}.log`), 'utf8').slice(-2000)}`);
    try {
      const p = +fs.readFileSync(portFile, 'utf8');
      if (p > 0)
        return { child, port: p, name };
    } catch {}
    await sleep(50);
  }
  throw new Error(`server ${name} did not start`);
}

function connect(port) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/`, { perMessageDeflate: false });
    ws.on('open', () => resolve(ws));
    ws.on('error', reject);
  });
}

/* One request on ws, the reply with its id. */
function request(ws, msg) {
  return new Promise((resolve) => {
    const on = (data) => {
      const m = JSON.parse(data);
      if (m.id === msg.id) {
        ws.off('message', on);
        resolve(m);
      }
    };
    ws.on('message', on);
    ws.send(JSON.stringify(msg));
  });
}

let rngState = 12345;
function rand(n) {
  rngState ^= rngState << 13;
  rngState ^= rngState >>> 17;
  rngState ^= rngState << 5;
  return ((rngState >>> 0) % n);
}

/* Play one round with Node clients: servers are {port}; match i is created
 * on server i % K and its seats play from it (cross: from servers
 * (i+1) % K and (i+2) % K, or both from (i+1) % K when K is 2). */
async function playRound(servers, n, cross) {
  const K = servers.length;
  const ctl = await Promise.all(servers.map((s) => connect(s.port)));
  let id = 0;
  for (const c of ctl)
    await request(c, { type: 'hello', protocol: 1, id: ++id });
  const matches = [];
  /* a connection may send 100 messages at once (its burst), 50 a second:
   * a fresh control connection every 40 creates */
  const extra = [];
  for (let i = 0; i < n; i++) {
    let c = ctl[i % K];
    if (i >= 40 * K) {
      if (i % (40 * K) < K) {
        const x = await connect(servers[i % K].port);
        await request(x, { type: 'hello', protocol: 1, id: ++id });
        extra[i % K] = x;
        ctl.push(x);
      }
      c = extra[i % K];
    }
    const r = await request(c, { type: 'create_match', game: 'carcassonne', id: ++id,
      seats: [{ open: true }, { open: true }], time_control: { move_ms: 60000 } });
    if (r.type !== 'match_created')
      throw new Error('create_match: ' + JSON.stringify(r));
    matches.push({ match: r.match, tokens: r.seats.map((s) => s.token), owner: i % K });
  }
  const lat = [];
  let moves = 0, over = 0;
  let done;
  const allOver = new Promise((r) => (done = r));
  const seats = [];
  for (let i = 0; i < n; i++)
    for (let k = 0; k < 2; k++) {
      const srv = servers[cross ? (i % K + 1 + k % (K - 1)) % K : i % K];
      const ws = await connect(srv.port);
      seats.push({ ws, match: matches[i].match, seat: k, token: matches[i].tokens[k], sent: new Map() });
    }
  for (const s of seats)
    await request(s.ws, { type: 'hello', protocol: 1, id: ++id });
  const t0 = Date.now();
  for (const s of seats) {
    s.ws.on('message', (data) => {
      const m = JSON.parse(data);
      if (m.type === 'your_turn') {
        const e = m.legal[rand(m.legal.length)];
        const mv = { x: e.x, y: e.y, rot: e.rot };
        if (e.meeples && e.meeples.length && rand(2))
          mv.meeple = e.meeples[rand(e.meeples.length)];
        s.sent.set(m.turn, process.hrtime.bigint());
        s.ws.send(JSON.stringify({ type: 'move', match: s.match, turn: m.turn, move: mv }));
      } else if (m.type === 'update') {
        const at = s.sent.get(m.turn);
        if (at !== undefined) {
          lat.push(Number(process.hrtime.bigint() - at) / 1e6);
          s.sent.delete(m.turn);
          moves++;
        }
      } else if (m.type === 'game_over' && s.seat === 0) {
        if (++over === n)
          done();
      }
    });
    s.ws.send(JSON.stringify({ type: 'join', match: s.match, seat: s.seat, token: s.token, id: ++id }));
  }
  await allOver;
  const wall = Date.now() - t0;
  for (const s of seats)
    s.ws.close();
  for (const c of ctl)
    c.close();
  lat.sort((a, b) => a - b);
  const pct = (q) => lat[Math.min(lat.length - 1, Math.floor(q * lat.length))];
  return { moves, wall, p50: pct(0.5), p99: pct(0.99) };
}

/* Play one round with the C load generator; snap() is called when the play
 * starts and when it ends (its marks). */
function playLoadgen(o, servers, route, snap) {
  return new Promise((resolve, reject) => {
    const args = ['--ports', servers.map((s) => s.port).join(','), '--matches', String(o.matches),
      '--route', route, '--marks', '--go-delay-ms', '1500', '--move-ms', '600000'];
    if (o.thinkMs)
      args.push('--think-ms', String(o.thinkMs));
    const child = spawn(o.loadgen, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '', result = null;
    child.stdout.on('data', (d) => {
      out += d;
      let nl;
      while ((nl = out.indexOf('\n')) >= 0) {
        const line = out.slice(0, nl);
        out = out.slice(nl + 1);
        const m = JSON.parse(line);
        if (m.mark)
          snap(m.mark);
        else
          result = m;
      }
    });
    child.stderr.on('data', (d) => (err += d));
    child.on('exit', (code) => {
      if (code !== 0 || !result)
        return reject(new Error(`tessera-loadgen exited ${code}: ${err.slice(-1500)}`));
      resolve({ moves: result.turns, wall: result.play_s * 1000, p50: null, p99: null,
        loadgen_cpu_us_per_move: result.client_cpu_us_per_move, followed: result.followed });
    });
  });
}

async function runConfig(o, config, svc, dir) {
  const { sqlite, K, cross, route } = configOf(config);
  let db = null;
  const servers = [];
  if (sqlite) {
    servers.push(await startServer(o.tessera, ['--db', path.join(dir, `bench-${Date.now()}.db`)], dir, 'sqlite'));
  } else {
    const name = `bench_${config}_${Date.now()}`;
    psql(svc.env.TESSERA_PG_ADMIN, `CREATE DATABASE ${name}`);
    db = `${svc.env.TESSERA_PG_ADMIN} dbname=${name}`;
    for (let k = 0; k < K; k++) {
      /* spread and follow: each server says where it is (owner_url), on a port chosen first */
      const own = route === 'spread' || route === 'follow' ? await freePort() : 0;
      servers.push(await startServer(o.tessera, ['--storage', db, '--instance', `b${k}`,
        ...(K > 1 ? ['--redis', svc.env.TESSERA_REDIS] : []),
        ...(own ? ['--port', String(own), '--advertise', `ws://127.0.0.1:${own}/`] : [])], dir, `${config}-${k}`));
    }
  }
  /* PostgreSQL's own counts: WAL bytes written and transactions committed */
  const redisCommands = () => {
    const r = spawnSync('redis-cli', ['-p', svc.env.TESSERA_REDIS.split(':')[1], 'INFO', 'stats'],
      { encoding: 'utf8' });
    const m = /total_commands_processed:(\d+)/.exec(r.stdout || '');
    return m ? +m[1] : 0;
  };
  const pgCounts = () => {
    if (!db)
      return { wal: 0, commits: 0 };
    const [lsn, commits] = psql(db, 'SELECT pg_current_wal_lsn() - \'0/0\'::pg_lsn, ' +
      'xact_commit FROM pg_stat_database WHERE datname = current_database()').split('|');
    return { wal: +lsn, commits: +commits };
  };
  let pg0, cpu0, sc0, cpu1, sc1, rc0;
  const before = () => {
    rc0 = redisCommands();
    pg0 = pgCounts();
    cpu0 = servers.map((s) => cpuMs(s.child.pid));
    sc0 = serviceCpu(svc);
  };
  const after = () => {
    cpu1 = servers.map((s) => cpuMs(s.child.pid));
    sc1 = serviceCpu(svc);
  };
  let r;
  try {
    if (o.loadgen) {
      r = await playLoadgen(o, servers, route, (mark) => (mark === 'go' ? before() : after()));
    } else {
      before();
      r = await playRound(servers, o.matches, cross);
      after();
    }
  } catch (e) {
    for (const srv of servers) {
      const log = path.join(dir, `${srv.name}.log`);
      console.error(`-- ${srv.name} (exit ${srv.child.exitCode}, signal ${srv.child.signalCode}):\n` +
        (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').slice(-1500) : ''));
    }
    throw e;
  }
  /* the messages the servers forwarded to another (their server_stats), moves included */
  let forwarded = null;
  if (K > 1) {
    forwarded = 0;
    for (const srv of servers) {
      const ws = await connect(srv.port);
      await request(ws, { type: 'hello', protocol: 1, id: 1 });
      const st = await request(ws, { type: 'server_stats', id: 2 });
      forwarded += st.cluster ? st.cluster.forwarded : 0;
      ws.close();
    }
  }
  await sleep(600); /* pg_stat_database is updated by the backends every 500 ms at most */
  const pg1 = pgCounts();
  const rc1 = redisCommands();
  for (const s of servers) {
    s.child.kill('SIGTERM');
    await new Promise((res) => s.child.once('exit', res));
  }
  if (db)
    psql(svc.env.TESSERA_PG_ADMIN, `DROP DATABASE ${db.split('dbname=').pop()} WITH (FORCE)`);
  const tcpu = cpu1.reduce((a, b, i) => a + b - cpu0[i], 0);
  return {
    config, instances: K, moves: r.moves, wall_ms: r.wall, moves_per_s: r.moves / (r.wall / 1000),
    latency_p50_ms: r.p50, latency_p99_ms: r.p99, loadgen_cpu_us_per_move: r.loadgen_cpu_us_per_move ?? null,
    tessera_cpu_per_server_us_per_move: cpu1.map((c, i) => (c - cpu0[i]) * 1000 / r.moves),
    tessera_cpu_us_per_move: tcpu * 1000 / r.moves,
    postgres_cpu_us_per_move: (sc1.pg - sc0.pg) * 1000 / r.moves,
    redis_cpu_us_per_move: (sc1.redis - sc0.redis) * 1000 / r.moves,
    wal_bytes_per_move: db ? (pg1.wal - pg0.wal) / r.moves : null,
    commits_per_move: db ? (pg1.commits - pg0.commits) / r.moves : null,
    redis_commands_per_move: (rc1 - rc0) / r.moves,
    /* over the whole run, the joins included: a move is one message */
    forwarded_per_move: forwarded === null ? null : forwarded / r.moves,
    seats_followed: r.followed ?? null,
  };
}

const opt = (x, d) => (x === null || x === undefined || Number.isNaN(x) ? '—' : x.toFixed(d));

const median = (xs) => {
  if (xs.some((x) => x === null))
    return null;
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tessera-cluster-bench-'));
  let svcDir = o.services;
  if (!svcDir) {
    svcDir = path.join(dir, 'services');
    const r = spawnSync(SERVICES, ['start', svcDir], { encoding: 'utf8' });
    if (r.status !== 0)
      throw new Error('scripts/services.sh start: ' + r.stderr);
  }
  const env = envOf(svcDir);
  const svc = { env };
  try {
    const pgDir = fs.readFileSync(path.join(svcDir, 'pg.dir'), 'utf8').trim();
    svc.pgPid = +fs.readFileSync(path.join(pgDir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0];
  } catch {}
  try {
    svc.redisPid = +fs.readFileSync(path.join(svcDir, 'redis.pid'), 'utf8');
  } catch {}
  const rows = [];
  try {
    for (let round = 1; round <= o.rounds; round++)
      for (const c of o.configs) {
        const r = await runConfig(o, c, svc, dir);
        r.round = round;
        rows.push(r);
        if (!o.json)
          console.error(`round ${round} ${c}: ${r.moves} moves, ${r.moves_per_s.toFixed(0)} moves/s, ` +
            `p50 ${opt(r.latency_p50_ms, 1)} ms, p99 ${opt(r.latency_p99_ms, 1)} ms, tessera ` +
            `${r.tessera_cpu_us_per_move.toFixed(0)} us/move, postgres ${r.postgres_cpu_us_per_move.toFixed(0)}, ` +
            `redis ${r.redis_cpu_us_per_move.toFixed(0)}, forwarded/move ${opt(r.forwarded_per_move, 3)}`);
      }
  } finally {
    if (!o.services)
      spawnSync(SERVICES, ['stop', svcDir]);
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const out = {
    matches: o.matches, rounds: o.rounds, loadavg: os.loadavg(),
    medians: Object.fromEntries(o.configs.map((c) => {
      const rs = rows.filter((r) => r.config === c);
      const keys = ['moves_per_s', 'loadgen_cpu_us_per_move', 'latency_p50_ms', 'latency_p99_ms', 'tessera_cpu_us_per_move',
        'postgres_cpu_us_per_move', 'redis_cpu_us_per_move', 'wal_bytes_per_move', 'commits_per_move',
        'redis_commands_per_move', 'forwarded_per_move'];
      return [c, Object.fromEntries(keys.map((k) => [k, median(rs.map((r) => r[k]))]))];
    })),
    rows,
  };
  if (o.json) {
    console.log(JSON.stringify(out));
    return;
  }
  console.log('\nmedians over rounds:');
  console.log('| config | moves/s | move latency p50 | p99 | tessera CPU/move | PostgreSQL CPU/move | ' +
    'Redis CPU/move | WAL bytes/move | commits/move | Redis commands/move | forwarded/move |');
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const [c, m] of Object.entries(out.medians))
    console.log(`| ${c} | ${m.moves_per_s.toFixed(0)} | ${opt(m.latency_p50_ms, 1)} ms | ` +
      `${opt(m.latency_p99_ms, 1)} ms | ${m.tessera_cpu_us_per_move.toFixed(0)} µs | ` +
      `${m.postgres_cpu_us_per_move.toFixed(0)} µs | ${m.redis_cpu_us_per_move.toFixed(0)} µs | ` +
      `${opt(m.wal_bytes_per_move, 0)} | ${opt(m.commits_per_move, 3)} | ${opt(m.redis_commands_per_move, 2)} | ` +
      `${opt(m.forwarded_per_move, 3)} |`);
}

main().catch((e) => {
  console.error('bench/cluster.js: ' + (e.stack || e));
  process.exit(1);
});
