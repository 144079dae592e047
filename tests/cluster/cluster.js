'use strict';
/*
 * cluster.js — the harness of the cluster suites: several real `tessera
 * serve` processes on one fresh PostgreSQL database of the test cluster
 * (scripts/services.sh, the CTest fixture `services`), with Redis between
 * them, and haproxy in front when a suite asks for one address.
 *
 *   startCluster(names, opts)   a database and one server per name, each with
 *                               --storage, --instance NAME, --redis and a
 *                               lease (opts.leaseMs, default 5000: the servers' own
 *                               default; a shorter one expires on a busy machine);
 *                               opts.advertise: each on a port chosen before its start,
 *                               which it advertises (--advertise, owner_url)
 *   proxy(servers)              haproxy on a free port, round-robin over them
 *   playAll(clients, ...)       answer your_turn on every client until game_over
 *   resilientPlayer(url, ...)   a seat's player that resumes on any lost connection
 *                               (as `tessera bot` does), at url() each time
 *   checkAgainst(history, seen) every turn announced is the final history's
 *   test(name, fn)              node:test's test; when it fails, the last log
 *                               lines of every server it started are printed
 *                               (the servers log at debug level)
 *
 * Everything else (Server, Client, the play helpers) is tests/server/lib.js.
 */
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const assert = require('node:assert');
const nodeTest = require('node:test');
const path = require('node:path');
const lib = require('../server/lib.js');
const { Client, SLOW, rng, randomMove, sleep } = lib;

async function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = s.address().port;
      s.close(() => resolve(p));
    });
    s.on('error', reject);
  });
}

/* A database and one server per name. Returns {db, redis, servers: {name: Server}, env}. */
async function startCluster(names, opts = {}) {
  const env = lib.servicesEnv();
  const db = opts.db || lib.freshPgDb(opts.tag || 'cluster');
  const servers = {};
  for (const name of names)
    servers[name] = await startOne(name, db, env, opts);
  return { db, env, servers, redis: env.TESSERA_REDIS };
}

/* every server started by the running test, for its failure report */
let started = [];

function printLogs(servers, lines = 60) {
  for (const s of servers) {
    const all = (s.previousLogs || []).concat(s.logs || []);
    process.stderr.write(`--- server ${s.instance}: the last ${Math.min(lines, all.length)} of ` +
      `${all.length} log lines\n`);
    for (const l of all.slice(-lines))
      process.stderr.write((l.raw !== undefined ? l.raw : JSON.stringify(l)) + '\n');
  }
}

function test(name, fn) {
  return nodeTest(name, async (t) => {
    started = [];
    try {
      return await fn(t);
    } catch (e) {
      printLogs(started);
      throw e;
    }
  });
}

async function startOne(name, db, env, opts = {}) {
  /* each server its own folder (lib.js puts the courses' files there): its own disk */
  const dir = lib.tmpDir('cl-' + name);
  /* the courses' files are under it: their bots run as other users when the
   * tests run as root, and must reach them (lib.startAdmin does the same) */
  fs.chmodSync(dir, 0o711);
  const args = ['--instance', name, '--set', `cluster.lease_ms=${opts.leaseMs || 5000}`];
  if (opts.redis !== false)
    args.push('--redis', opts.redisAddr || env.TESSERA_REDIS);
  if (opts.args)
    args.push(...opts.args);
  if (opts.advertise) { /* a port known before the start, so that the server can say where it is */
    const port = await freePort();
    args.push('--port', String(port), '--advertise', `ws://127.0.0.1:${port}/`);
  }
  args.push('--log-level', 'debug');
  const srv = await lib.Server.start({ storage: db, args, dir, env: opts.env });
  srv.ownDir = true; /* removed by cleanup */
  srv.instance = name;
  started.push(srv);
  return srv;
}

/* haproxy in front of the servers (WebSocket-aware: tunnel mode once upgraded),
 * round-robin, health-checked every 500 ms; opts.port its port (default: a
 * free one); opts.route: a request whose URL says ?server=NAME goes to that
 * server while it is up (as docker/cluster/haproxy.cfg routes). Resolves with
 * {port, url, stop()}. */
async function proxy(servers, opts = {}) {
  const which = spawnSync('sh', ['-c', 'command -v haproxy']);
  if (which.status !== 0)
    throw new Error('haproxy is not installed (scripts/deps.sh test installs it)');
  const port = opts.port || await freePort();
  const dir = lib.tmpDir('haproxy');
  const backends = servers.map((s, i) =>
    (opts.route ? `  use-server s${i} if { urlp(server) -m str ${s.instance} }\n` : '') +
    `  server s${i} 127.0.0.1:${s.port} check inter 500 fall 2 rise 1`).join('\n');
  const cfg = `global
  maxconn 4096
defaults
  mode http
  timeout connect 2s
  timeout client 120s
  timeout server 120s
  timeout tunnel 1h
frontend tessera
  bind 127.0.0.1:${port}
  default_backend servers
backend servers
  balance ${opts.balance || 'roundrobin'}
  option httpchk GET /healthz
${backends}
`;
  const file = path.join(dir, 'haproxy.cfg');
  fs.writeFileSync(file, cfg);
  const proc = spawn('haproxy', ['-f', file, '-db'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  proc.stderr.on('data', (d) => (stderr += d));
  for (let i = 0; i < 100; i++) {
    const ok = await new Promise((resolve) => {
      const s = net.connect(port, '127.0.0.1');
      s.on('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (ok)
      break;
    if (proc.exitCode !== null)
      throw new Error('haproxy exited: ' + stderr);
    await lib.sleep(50);
  }
  return {
    port,
    url: `ws://127.0.0.1:${port}/`,
    stop() {
      proc.kill('SIGTERM');
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/*
 * A player that keeps its seat across lost connections, as `tessera bot`
 * does: on a close it connects again to url() and resumes with its token.
 * Resolves with the game_over message and the turns it saw announced.
 */
function resilientPlayer(url, match, seat, token, seed, opts = {}) {
  const r = rng(seed);
  const seen = []; /* every update heard, over every connection */
  let resumeToken = null;
  let reconnects = 0;
  const done = (async () => {
    let c = await Client.connect(url(), { name: `p${seat}` });
    const joined = await c.request({ type: 'join', match, seat, token }, 'joined');
    resumeToken = joined.resume_token;
    for (;;) {
      let m;
      try {
        m = await c.expect((x) => ['your_turn', 'game_over', 'update'].includes(x.type), 60000 * SLOW);
      } catch (e) {
        if (!c.closeInfo)
          throw e;
        /* lost: connect again (retrying while the servers sort themselves out) and resume */
        for (let attempt = 0; ; attempt++) {
          await sleep(Math.min(100 * 2 ** attempt, 1000));
          try {
            c = await Client.connect(url(), { name: `p${seat}r${++reconnects}` });
            const res = await c.request({ type: 'resume', resume_token: resumeToken });
            if (res.type === 'resumed')
              break;
            c.close();
          } catch {
            /* refused or closed: again */
          }
          if (attempt > 200)
            throw new Error(`player ${seat} could not resume`);
        }
        continue;
      }
      if (m.type === 'update') {
        seen.push(m);
        continue;
      }
      if (m.type === 'game_over') {
        c.close();
        return { over: m, seen, reconnects };
      }
      if (opts.onTurn)
        await opts.onTurn(m);
      if (opts.delayMs)
        await sleep(opts.delayMs);
      c.send({ type: 'move', match, turn: m.turn, move: randomMove(m, r) });
    }
  })();
  return done;
}

/* No turn announced twice with different content, and each a prefix-consistent
 * piece of the final history. */
function checkAgainst(history, seen, who) {
  const byTurn = new Map();
  for (const u of seen) {
    const prev = byTurn.get(u.turn);
    if (prev)
      assert.deepStrictEqual(u.record, prev, `${who}: turn ${u.turn} announced twice, differently`);
    byTurn.set(u.turn, u.record);
    assert.deepStrictEqual(u.record, history[u.turn - 1], `${who}: turn ${u.turn} is the history's`);
  }
}

/* Stop every server; fail on a sanitizer report or a bad exit (lib.js cleanup). */
async function stopAll(cl) {
  const errors = [];
  for (const s of Object.values(cl.servers)) {
    try {
      await s.cleanup();
    } catch (e) {
      errors.push(`${s.instance}: ${e.message}`);
    }
  }
  if (errors.length)
    throw new Error(errors.join('\n'));
}

/* The cluster's admin token: the database keeps its hash only (issue 29);
 * the server that made it logged it once (the event admin_token). */
function adminToken(cl) {
  for (const s of Object.values(cl.servers)) {
    const e = (s.previousLogs || []).concat(s.logs || []).filter((l) => l.event === 'admin_token');
    if (e.length)
      return e[0].token;
  }
  throw new Error('no server of the cluster logged the admin token');
}

/* Resolve once PostgreSQL has no connection left of a killed server that
 * connected as application_name=`app` (a statement it sent before it died is
 * still carried out until then): what it stored is then the database's
 * final word. Fails after 30 s (x SLOW). */
async function pgConnectionsGone(db, app) {
  const t0 = Date.now();
  while (lib.psql(db, `SELECT count(*) FROM pg_stat_activity WHERE application_name = '${app}'`)[0] !== '0') {
    if (Date.now() - t0 > 30000 * SLOW)
      throw new Error(`${app}'s connections to PostgreSQL outlived it by 30 s`);
    await sleep(50);
  }
}

module.exports = { test, startCluster, startOne, proxy, stopAll, freePort, resilientPlayer, checkAgainst, adminToken,
  pgConnectionsGone };
