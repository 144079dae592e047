'use strict';
/*
 * lib.js — the shared harness of the server integration tests.
 *
 * Every test starts its own real `tessera serve` process on a free port
 * (--port 0 --port-file) with a database in a fresh temporary folder, talks
 * to it over WebSocket exactly as a third-party client would (docs/
 * protocol.md, nothing else), and stops it at the end. The pieces:
 *
 *   Server        spawn, wait for the port file, stop (SIGTERM), kill -9,
 *                 restart on the same database, the server's JSON log lines;
 *                 cleanup() fails the test unless every run of the server
 *                 ended as asked (exit code 0 after SIGTERM, or our kill -9)
 *                 with no sanitizer report
 *   Client        one WebSocket connection that keeps every message it gets:
 *                 send, expect(predicate) with a timeout, request (id echo),
 *                 the close event with its time
 *   play helpers  answer every `your_turn` with a move from `legal` until
 *                 `game_over`
 *
 * The binary under test is the first command-line argument (CTest passes
 * $<TARGET_FILE:tessera>) or $TESSERA_BIN.
 */
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

let WebSocket;
try {
  WebSocket = require('ws');
} catch (e) {
  console.error(
    'tests/server: the npm package "ws" is missing.\n' +
      '  Install it once with: (cd tests/server && npm ci)   (scripts/test.sh does this)');
  process.exit(1);
}

const ROOT = path.resolve(__dirname, '..', '..');

/* The tessera binary under test. */
function binary() {
  const bin = process.argv[2] || process.env.TESSERA_BIN;
  if (!bin) {
    console.error('usage: node ' + path.basename(process.argv[1]) + ' PATH/TO/tessera');
    process.exit(2);
  }
  return path.resolve(bin);
}

/* Under AddressSanitizer everything is slower: widen the timing bounds.
 * Bounds on wall-clock time are for "it happened, and not absurdly late";
 * where a test is about the server's clocks it compares what the server
 * itself announced or logged (deadlines and log times are epoch ms on the
 * clock this process shares with the server), not what a loaded machine
 * made this process see. */
const SLOW = process.env.TESSERA_SANITIZED === '1' ? 3 : 1;

/* A server log line's time (its "ts") in epoch ms. */
const logTime = (line) => Date.parse(line.ts);

/* Slack (ms) when comparing times the server derived from two clocks (the
 * loop's monotonic one for deadlines, the wall clock for `deadline` fields
 * and log lines): it reads them one after the other, and a busy machine may
 * pause it in between. */
const CLOCK_SLACK = 25 * SLOW;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/* The promise's value, or null once ms have passed (the timer is cleared
 * either way, so that it cannot keep the process alive). */
async function within(promise, ms) {
  let timer;
  const t = new Promise((resolve) => {
    timer = setTimeout(() => resolve(null), ms);
  });
  try {
    return await Promise.race([promise, t]);
  } finally {
    clearTimeout(timer);
  }
}

/* A small seeded RNG (Marsaglia's xorshift32) so that a failing game can be
 * replayed: same seed, same moves. */
function rng(seed) {
  let x = (seed >>> 0) || 0x9e3779b9;
  const next = () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 4294967296;
  };
  next.int = (n) => Math.floor(next() * n);
  next.pick = (arr) => arr[Math.floor(next() * arr.length)];
  return next;
}

/* ---- PostgreSQL (the same suites on the second storage engine) ------------------- */

/*
 * With TESSERA_TEST_STORAGE=pg (CTest's server_pg_* tests) every Server
 * gets a fresh PostgreSQL database on the test cluster of
 * scripts/services.sh (TESSERA_SERVICES names its folder) instead of a
 * SQLite file; a restart keeps it. A suite that reads or damages the SQLite
 * file itself says so with sqliteOnly(), which skips it on PostgreSQL.
 */
const ON_PG = process.env.TESSERA_TEST_STORAGE === 'pg';

/* KEY='value' lines of the cluster's services.env. */
function servicesEnv() {
  const dir = process.env.TESSERA_SERVICES;
  if (!dir)
    throw new Error('TESSERA_SERVICES is not set: run this through ctest, whose fixture ' +
      '`services` starts PostgreSQL and Redis (scripts/services.sh)');
  const file = path.join(dir, 'services.env');
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`${file}: ${e.message} (did scripts/services.sh start fail?)`);
  }
  const env = {};
  for (const line of text.split('\n')) {
    const m = /^(\w+)='(.*)'$/.exec(line);
    if (m)
      env[m[1]] = m[2];
  }
  return env;
}

let dbSerial = 0;
/* A fresh database on the test cluster: its connection string. */
function freshPgDb(tag) {
  const env = servicesEnv();
  const name = `t_${(tag || 'x').replace(/[^a-z0-9]/gi, '_').slice(0, 20)}_${process.pid}_${++dbSerial}`
    .toLowerCase();
  psql(env.TESSERA_PG_ADMIN, `CREATE DATABASE ${name}`);
  return `${env.TESSERA_PG_ADMIN} dbname=${name}`;
}

/* Run SQL with psql (the postgresql package brings it); its output rows. */
function psql(conninfo, sql) {
  const r = require('node:child_process').spawnSync('psql', [conninfo, '-qAt', '-v', 'ON_ERROR_STOP=1', '-c', sql],
    { encoding: 'utf8' });
  if (r.error)
    throw new Error(`psql: ${r.error.message} (install the Debian package postgresql-client)`);
  if (r.status !== 0)
    throw new Error(`psql ${sql.slice(0, 80)}: ${r.stderr}`);
  return r.stdout.split('\n').filter((l) => l.length);
}

/* Run SQL on a server's database, whichever engine it is on: the sqlite3
 * command on its file, or psql on its PostgreSQL database. Rows as text,
 * columns joined by '|' (both tools' default), lines by '\n'. */
function dbQuery(srv, sql) {
  if (srv.storage)
    return psql(srv.storage, sql).join('\n');
  const r = require('node:child_process').spawnSync('sqlite3', [srv.db, sql], { encoding: 'utf8' });
  if (r.error)
    throw new Error('MISSING: the sqlite3 command (scripts/deps.sh test installs it): ' + r.error.message);
  if (r.status !== 0)
    throw new Error(`sqlite3 ${sql}: ${r.stderr}`);
  return r.stdout.trim();
}

/* In a suite about the SQLite file itself: on PostgreSQL, say why and skip
 * (exit 0 after a line CTest shows). */
function sqliteOnly(why) {
  if (!ON_PG)
    return;
  /* not registered on PostgreSQL (server.cmake reads the files for this
   * call); run there anyway, it is a skip (77), never a pass */
  console.log(`SKIPPED on PostgreSQL: ${why}`);
  process.exit(77);
}

function tmpDir(tag) {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'tessera-itest-' + (tag || 'x') + '-'));
}

/* ---- the server process ------------------------------------------------------- */

/* Servers still running: killed if this process ends early (a failed
 * assertion outside a test, Ctrl-C), so that none outlives its test. */
const running = new Set();
process.on('exit', () => {
  for (const p of running)
    p.kill('SIGKILL');
});
for (const sig of ['SIGINT', 'SIGTERM'])
  process.on(sig, () => process.exit(128 + (sig === 'SIGINT' ? 2 : 15)));

class Server {
  /*
   * Start `tessera serve` and resolve once it listens. opts: dir (temporary
   * folder, made when absent), db (default DIR/tessera.db), args (extra
   * serve options), bin, env (extra environment variables).
   */
  static async start(opts = {}) {
    const s = new Server();
    s.bin = opts.bin || binary();
    s.ownDir = !opts.dir;
    s.dir = opts.dir || tmpDir(opts.tag);
    s.db = opts.db || path.join(s.dir, 'tessera.db');
    s.args = opts.args || [];
    /* the second engine: the same suite on a fresh PostgreSQL database */
    s.storage = opts.storage || (ON_PG && !opts.db ? freshPgDb(opts.tag) : null);
    s.env = opts.env || {};
    s.scheme = opts.scheme || 'ws'; /* wss for a server given a TLS certificate */
    await s._spawn();
    return s;
  }

  async _spawn() {
    this.portFile = path.join(this.dir, 'port-' + process.hrtime.bigint());
    this.logs = [];
    this.stderr = '';
    this.exit = null;
    this.killed9 = false;     /* this run ended by our kill9() */
    this.forceKilled = false; /* stop() gave up waiting and used SIGKILL */
    /* on PostgreSQL the courses' files go in the test's folder too */
    const where = this.storage ? ['--storage', this.storage, '--set', `courses.files=${path.join(this.dir, 'files')}`]
      : ['--db', this.db];
    const args = ['serve', '--port', '0', '--port-file', this.portFile, ...where, '--no-web',
      '--log-level', 'info', ...this.args];
    const proc = spawn(this.bin, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...this.env } });
    this.proc = proc;
    running.add(proc);
    this.exited = new Promise((resolve) => {
      proc.on('exit', (code, signal) => {
        running.delete(proc);
        this.exit = { code, signal };
        resolve(this.exit);
      });
    });
    /* 'exit' can come before the last of stderr has been read: waitLog waits
     * for the stream's end (at most a second) before it says a line is missing */
    this.stderrDone = new Promise((resolve) => proc.stderr.on('close', resolve));
    let partial = '';
    proc.stderr.on('data', (d) => {
      const text = d.toString();
      this.stderr += text;
      partial += text;
      let nl;
      while ((nl = partial.indexOf('\n')) >= 0) {
        const line = partial.slice(0, nl);
        partial = partial.slice(nl + 1);
        try {
          this.logs.push(JSON.parse(line));
        } catch {
          this.logs.push({ raw: line });
        }
      }
    });
    const t0 = Date.now();
    for (;;) {
      if (this.exit)
        throw new Error(`tessera serve exited (${JSON.stringify(this.exit)}) before listening:\n` +
          this.stderr);
      let text = '';
      try {
        text = fs.readFileSync(this.portFile, 'utf8');
      } catch {}
      if (/^\d+\s*$/.test(text) && +text > 0) {
        this.port = +text;
        break;
      }
      if (Date.now() - t0 > 15000 * SLOW) {
        proc.kill('SIGKILL');
        throw new Error('tessera serve did not write its port file in time:\n' + this.stderr);
      }
      await sleep(20);
    }
    this.url = `${this.scheme}://127.0.0.1:${this.port}/`;
  }

  /* Log lines with this event name (of the current run). */
  events(name) {
    return this.logs.filter((l) => l.event === name);
  }

  /* Resolve with the first log line (current run) that matches pred, or
   * reject after timeout ms. */
  async waitLog(pred, timeout = 10000 * SLOW, label = 'a log line') {
    const t0 = Date.now();
    for (;;) {
      const line = this.logs.find(pred);
      if (line)
        return line;
      if (Date.now() - t0 > timeout)
        throw new Error(`no ${label} in the server log within ${timeout} ms:\n` + this.stderr.slice(-2000));
      if (this.exit) {
        await Promise.race([this.stderrDone, sleep(1000)]);
        const late = this.logs.find(pred);
        if (late)
          return late;
        throw new Error(`the server exited (${JSON.stringify(this.exit)}) before ${label}:\n` +
          this.stderr.slice(-2000));
      }
      await sleep(20);
    }
  }

  /* Graceful stop (SIGTERM); resolves with {code, signal}. A server that
   * has not exited 15 s (x SLOW) later is killed, and checkExit() fails. */
  async stop() {
    if (this.exit)
      return this.exit;
    this.proc.kill('SIGTERM');
    const t = setTimeout(() => {
      this.forceKilled = true;
      this.proc.kill('SIGKILL');
    }, 15000 * SLOW);
    const e = await this.exited;
    clearTimeout(t);
    return e;
  }

  /* kill -9: no chance to flush or say goodbye. */
  async kill9() {
    if (this.exit)
      return this.exit;
    this.killed9 = true;
    this.proc.kill('SIGKILL');
    return this.exited;
  }

  /*
   * Throw unless this run of the server ended as asked: exit code 0 (after
   * SIGTERM), or killed by our kill9(). A test that expects another ending
   * sets srv.expectedExit = {code, signal} first.
   */
  checkExit() {
    const e = this.exit;
    if (!e)
      throw new Error('checkExit: the server is still running');
    const want = this.expectedExit || { code: 0, signal: null };
    if (this.forceKilled)
      throw new Error(`tessera serve did not exit within ${15 * SLOW} s of SIGTERM and was killed:\n` +
        this.stderr.slice(-3000));
    if (this.killed9 && e.signal === 'SIGKILL')
      return;
    if (e.code !== want.code || e.signal !== want.signal)
      throw new Error(`tessera serve ended with ${JSON.stringify(e)}, want ${JSON.stringify(want)}:\n` +
        this.stderr.slice(-3000));
  }

  /* Start again on the same database (after stop or kill9); a new port.
   * The run that ended must have ended as asked (checkExit). */
  async restart() {
    if (!this.exit)
      throw new Error('restart: the server is still running');
    this.checkExit();
    this.expectedExit = null;
    this.previousLogs = (this.previousLogs || []).concat(this.logs);
    this.oldStderr = (this.oldStderr || '') + this.stderr;
    await this._spawn();
  }

  /* What AddressSanitizer / UndefinedBehaviorSanitizer reported on stderr
   * (every run of this server, restarts included), or null. */
  sanitizerReport() {
    const all = (this.oldStderr || '') + this.stderr;
    const i = all.search(/ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:/);
    return i < 0 ? null : all.slice(Math.max(0, i - 200), i + 3000);
  }

  /* Stop if running (gracefully, so that a sanitizer reports leaks too),
   * remove the temporary folder, and fail if a sanitizer complained or the
   * server did not exit cleanly (checkExit). */
  async cleanup() {
    await this.stop();
    if (this.ownDir)
      fs.rmSync(this.dir, { recursive: true, force: true });
    const report = this.sanitizerReport();
    if (report)
      throw new Error('the server reported a memory or UB error:\n' + report);
    this.checkExit();
  }
}

/*
 * Start a server that writes its admin token to a file (--admin-token-file)
 * and read it: resolves with the Server, its token in srv.adminToken.
 */
async function startAdmin(opts = {}) {
  const dir = opts.dir || tmpDir(opts.tag);
  const tokenFile = path.join(dir, 'admin-token');
  /* the programs it runs get their working folders here, not in /tmp: a suite
   * that counts the sandbox's folders in /tmp (tests/players) may run at the
   * same time. Programs run as nobody under root: the folders must be reachable. */
  const tmp = path.join(dir, 'tmp');
  fs.mkdirSync(tmp, { recursive: true });
  fs.chmodSync(dir, 0o711);
  fs.chmodSync(tmp, 0o1777);
  const srv = await Server.start({ ...opts, dir, args: [...(opts.args || []), '--admin-token-file', tokenFile],
    env: { TMPDIR: tmp, ...(opts.env || {}) } });
  srv.ownDir = !opts.dir;
  srv.tokenFile = tokenFile;
  srv.adminToken = fs.readFileSync(tokenFile, 'utf8').trim();
  return srv;
}

/* ---- a WebSocket client ------------------------------------------------------- */

let clientCount = 0;

class Client {
  /*
   * Connect; with hello (the default) also say hello and wait for welcome.
   * opts: hello (bool), name (for messages), timeout (ms), ws (options
   * of the ws package's WebSocket: headers, ca, ...).
   */
  static async connect(url, opts = {}) {
    const c = new Client(url, opts.name);
    c.wsOptions = opts.ws || {};
    await c._open(opts.timeout || 5000 * SLOW);
    if (opts.hello !== false)
      c.welcome = await c.request({ type: 'hello', protocol: opts.protocol || 1, client: 'itest/' + c.name }, 'welcome');
    return c;
  }

  constructor(url, name) {
    this.name = name || 'c' + ++clientCount;
    this.url = url;
    this.all = [];       /* every message received, in order, with .at (ms) */
    this.pending = [];   /* received and not yet taken by expect() */
    this.waiters = [];
    this.closeInfo = null;
    this.nextId = 0;
  }

  _open(timeout) {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(this.url, { handshakeTimeout: timeout, ...(this.wsOptions || {}) });
      this.ws = ws;
      this.closed = new Promise((res) => {
        this._resolveClosed = res;
      });
      const timer = setTimeout(() => reject(new Error(this.name + ': connect timed out')), timeout);
      ws.on('open', () => {
        clearTimeout(timer);
        resolve();
      });
      ws.on('error', (e) => {
        clearTimeout(timer);
        this.lastError = e;
        reject(e);
      });
      ws.on('message', (data, isBinary) => {
        const text = data.toString();
        let msg;
        try {
          msg = JSON.parse(text);
        } catch {
          msg = { type: '<unparsable>', text };
        }
        if (isBinary)
          msg = { type: '<binary>', text };
        Object.defineProperty(msg, 'at', { value: Date.now(), enumerable: false });
        Object.defineProperty(msg, 'bytes', { value: text.length, enumerable: false });
        this.all.push(msg);
        this.pending.push(msg);
        this._wake();
      });
      ws.on('close', (code, reason) => {
        clearTimeout(timer);
        this.closeInfo = { code, reason: reason.toString(), at: Date.now() };
        this._resolveClosed(this.closeInfo);
        this._wake();
        reject(new Error(this.name + ': closed before open'));
      });
    });
  }

  _wake() {
    const ws = this.waiters;
    this.waiters = [];
    for (const w of ws)
      w();
  }

  get isOpen() {
    return this.ws && this.ws.readyState === WebSocket.OPEN;
  }

  send(obj) {
    this.ws.send(typeof obj === 'string' ? obj : JSON.stringify(obj));
  }

  /* Send raw bytes as one frame: text unless binary is set. */
  sendRaw(data, binary = false) {
    this.ws.send(data, { binary });
  }

  /*
   * Take the first pending message that matches `what` (a type name or a
   * predicate), waiting up to `timeout` ms. Messages that do not match stay
   * pending for later expects. Rejects on timeout or when the connection
   * closes first.
   */
  expect(what, timeout = 5000 * SLOW) {
    const pred = typeof what === 'function' ? what : (m) => m.type === what;
    const label = typeof what === 'function' ? (what.label || what.toString().slice(0, 120)) : what;
    return new Promise((resolve, reject) => {
      const t0 = Date.now();
      const check = () => {
        const i = this.pending.findIndex(pred);
        if (i >= 0) {
          const [m] = this.pending.splice(i, 1);
          clearTimeout(timer);
          resolve(m);
          return;
        }
        if (this.closeInfo) {
          clearTimeout(timer);
          reject(new Error(`${this.name}: closed (${this.closeInfo.code}) while waiting for ${label}; ` +
            `last messages: ${this.tail()}`));
          return;
        }
        this.waiters.push(check);
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== check);
        reject(new Error(`${this.name}: no ${label} within ${Date.now() - t0} ms; last messages: ` +
          this.tail()));
      }, timeout);
      check();
    });
  }

  /* Send with a fresh id (unless given) and wait for the reply carrying it. */
  async request(obj, replyType, timeout) {
    if (obj.id === undefined)
      obj = { ...obj, id: this.name + '-' + ++this.nextId };
    this.send(obj);
    const reply = await this.expect((m) => m.id === obj.id, timeout);
    if (replyType && reply.type !== replyType)
      throw new Error(`${this.name}: ${obj.type} got ${JSON.stringify(reply).slice(0, 400)}, ` +
        `expected ${replyType}`);
    return reply;
  }

  /* Resolve with {code, reason, at} once closed; reject after timeout. */
  async waitClosed(timeout = 5000 * SLOW) {
    let timer;
    const t = new Promise((_, rej) => {
      timer = setTimeout(() => rej(new Error(this.name + ': still open after ' + timeout + ' ms')), timeout);
    });
    try {
      return await Promise.race([this.closed, t]);
    } finally {
      clearTimeout(timer);
    }
  }

  /* Forget pending messages (they stay in .all). */
  drain() {
    this.pending = [];
  }

  tail(n = 4) {
    return this.all.slice(-n).map((m) => JSON.stringify(m).slice(0, 300)).join(' | ') || '(none)';
  }

  close() {
    if (this.ws && this.ws.readyState <= WebSocket.OPEN)
      this.ws.close();
  }

  /* Drop the TCP connection at once, no close frame (a crash or a cut cable). */
  terminate() {
    if (this.ws)
      this.ws.terminate();
  }
}

/* ---- protocol helpers --------------------------------------------------------- */

/* A Carcassonne move from one `legal` entry, with a meeple port or none. */
function carcMove(entry, meeple) {
  const mv = { x: entry.x, y: entry.y, rot: entry.rot };
  if (meeple)
    mv.meeple = meeple;
  return mv;
}

/* A uniformly random legal Carcassonne move (meeple: none half the time). */
function randomMove(yt, r) {
  const e = r.pick(yt.legal);
  const meeple = e.meeples && e.meeples.length && r() < 0.5 ? r.pick(e.meeples) : null;
  return carcMove(e, meeple);
}

/* A move that reads well but breaks the rules: far from every tile. */
function illegalMove(yt) {
  let maxX = 0;
  for (const t of yt.state.board)
    maxX = Math.max(maxX, t.x);
  return { x: maxX + 5, y: 0, rot: 0 };
}

/* create_match for Carcassonne; seats like [{bot:'random'},{open:true}]. */
async function createMatch(c, seats, extra = {}) {
  const r = await c.request({ type: 'create_match', game: 'carcassonne', seats, ...extra });
  if (r.type !== 'match_created')
    throw new Error('create_match failed: ' + JSON.stringify(r));
  return { match: r.match, tokens: Object.fromEntries(r.seats.map((s) => [s.seat, s.token])) };
}

/* Join a seat; resolves with the `joined` message. */
function join(c, match, seat, token) {
  return c.request({ type: 'join', match, seat, token }, 'joined');
}

/*
 * Answer every `your_turn` with choose(yt) until `game_over`, which it
 * returns. opts: choose, delayMs (think time), onTurn(yt) (may return
 * 'skip' to leave that turn unanswered or 'stop' to return it), timeout
 * (longest wait for the next message).
 */
async function playUntilOver(c, opts = {}) {
  const r = opts.rng || rng(1);
  const choose = opts.choose || ((yt) => randomMove(yt, r));
  for (;;) {
    const m = await c.expect((x) => x.type === 'your_turn' || x.type === 'game_over',
      opts.timeout || 20000 * SLOW);
    if (m.type === 'game_over')
      return m;
    if (opts.onTurn) {
      const what = await opts.onTurn(m);
      if (what === 'skip')
        continue;
      if (what === 'stop')
        return m;
    }
    if (opts.delayMs)
      await sleep(opts.delayMs);
    c.send({ type: 'move', match: m.match, turn: m.turn, move: choose(m) });
  }
}

/*
 * In the background, answer every `your_turn` that reaches c (any match,
 * any seat: a registered bot) with a random legal move, until stop() or the
 * connection closes. opts: rng, delayMs, skip(yt) (true: leave it
 * unanswered). Returns {stop, turns} (turns: how many were answered).
 */
function autoPlay(c, opts = {}) {
  const r = opts.rng || rng(7);
  const state = { stopped: false, turns: 0 };
  (async () => {
    while (!state.stopped) {
      let yt;
      try {
        yt = await c.expect('your_turn', 3600 * 1000);
      } catch {
        return; /* closed */
      }
      if (state.stopped || (opts.skip && opts.skip(yt)))
        continue;
      if (opts.delayMs)
        await sleep(opts.delayMs);
      if (c.isOpen)
        c.send({ type: 'move', match: yt.match, turn: yt.turn, move: randomMove(yt, r) });
      state.turns++;
    }
  })();
  return {
    stop() {
      state.stopped = true;
    },
    get turns() {
      return state.turns;
    },
  };
}

/* Assert that m is a structured error with this code (and id, if given). */
function isError(m, code, id) {
  return m.type === 'error' && m.code === code && typeof m.message === 'string' &&
    m.message.length > 0 && (id === undefined ? m.id === undefined : m.id === id);
}

/* A raw TCP connection (for handshakes that never finish). */
function rawConnect(port) {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1');
    s.on('connect', () => resolve(s));
    s.on('error', reject);
  });
}

/* One masked client text frame (RFC 6455) carrying obj as JSON. */
function wsFrame(obj) {
  const crypto = require('node:crypto');
  const payload = Buffer.from(JSON.stringify(obj));
  const mask = crypto.randomBytes(4);
  let head;
  if (payload.length < 126) {
    head = Buffer.from([0x81, 0x80 | payload.length]);
  } else {
    head = Buffer.alloc(4);
    head[0] = 0x81;
    head[1] = 0x80 | 126;
    head.writeUInt16BE(payload.length, 2);
  }
  return Buffer.concat([head, mask, Buffer.from(payload.map((b, i) => b ^ mask[i % 4]))]);
}

/*
 * A WebSocket client over a raw socket, for clients that misbehave below
 * the protocol: the handshake, then `hello` (and any further messages
 * given), and after that it does nothing by itself — it answers no ping and
 * reads only if the caller reads. Resolves with the socket.
 */
async function rawWsClient(port, messages = []) {
  const crypto = require('node:crypto');
  const s = await rawConnect(port);
  const key = crypto.randomBytes(16).toString('base64');
  s.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
    `Sec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`);
  await new Promise((resolve, reject) => {
    let got = '';
    const onData = (d) => {
      got += d.toString('latin1');
      if (got.includes('\r\n\r\n')) {
        s.off('data', onData);
        if (!/^HTTP\/1\.1 101/.test(got))
          reject(new Error('handshake refused: ' + got.slice(0, 100)));
        resolve();
      }
    };
    s.on('data', onData);
  });
  s.write(wsFrame({ type: 'hello', protocol: 1 }));
  for (const m of messages)
    s.write(wsFrame(m));
  s.on('error', () => {});
  return s;
}


/*
 * Check a finished history with `tessera replay` (every turn against the
 * rules, the final scores). Resolves with the replay's JSON result.
 */
function replayHistory(bin, rules, history, scores) {
  const record = { format: 'tessera-record', version: 1, game: 'carcassonne', rules, turns: history };
  if (scores)
    record.result = { scores };
  return new Promise((resolve, reject) => {
    const p = spawn(bin, ['replay', '-', '--json'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '', err = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (err += d));
    /* 'close', not 'exit': the output is all read by then */
    p.on('close', (code) => {
      if (code !== 0)
        return reject(new Error(`tessera replay exited ${code}: ${err}${out}`));
      const lines = out.trim().split('\n');
      resolve(JSON.parse(lines[lines.length - 1]));
    });
    p.stdin.end(JSON.stringify(record));
  });
}

/* ---- what the server may tell a client: an allow-list ------------------------- */

/*
 * Every field a server message may carry, per message type, and inside the
 * public Carcassonne state (docs/protocol.md). Anything else — a seed, the
 * bag's order, a token meant for another seat — is a leak.
 */
const TOP = {
  welcome: ['type', 'id', 'protocol', 'server', 'capabilities', 'limits', 'create', 'sandbox'],
  pong: ['type', 'id'],
  error: ['type', 'id', 'code', 'message'],
  match_created: ['type', 'id', 'match', 'seats'],
  joined: ['type', 'id', 'match', 'seat', 'resume_token', 'game', 'rules', 'status', 'seats', 'history',
    'state', 'clocks', 'result', 'time_control', 'policies', 'chance_commitment'],
  spectating: ['type', 'id', 'match', 'game', 'rules', 'status', 'seats', 'history', 'state', 'clocks',
    'result', 'time_control', 'policies', 'chance_commitment'],
  unspectated: ['type', 'id'],
  your_turn: ['type', 'id', 'match', 'seat', 'turn', 'state', 'legal', 'time_left_ms', 'deadline', 'clocks'],
  move_accepted: ['type', 'id', 'match', 'turn'],
  update: ['type', 'match', 'turn', 'record', 'by', 'reason', 'scores', 'next', 'clocks', 'state'],
  thinking: ['type', 'match', 'seat', 'turn', 'info'],
  seats: ['type', 'match', 'seats'],
  /* the reveal (docs/records.md, "Verifiable games"): the match is over */
  game_over: ['type', 'match', 'scores', 'ranking', 'result', 'chance_seed', 'chance_nonce'],
  resigned: ['type', 'id'],
  matches: ['type', 'id', 'matches'],
  games: ['type', 'id', 'games'],
  bots: ['type', 'id', 'bots', 'common_options'],
};
TOP.resumed = TOP.joined;
const STATE = ['turn', 'to_move', 'tile', 'phase', 'board', 'meeples', 'scores', 'meeples_left', 'bag',
  'bag_left', 'discards'];
const BOARD = ['x', 'y', 'tile', 'rot', 'closed'];
const MEEPLE = ['x', 'y', 'port', 'seat'];
const RECORD = ['player', 'tile', 'x', 'y', 'rot', 'meeple', 'discarded'];
const CLOCK = ['seat', 'bank_ms', 'time_left_ms', 'deadline', 'grace_ms'];
const SEAT = ['seat', 'kind', 'name', 'connected', 'takeover'];
const LEGAL = ['x', 'y', 'rot', 'meeples'];
const RESULT = ['reason', 'winners', 'ranking', 'scores', 'seat', 'detail', 'verdict'];
const TILE = /^[A-X]$/;

/* The fields of `msg` outside the allow-list, as "path: key" strings. */
function leaks(msg) {
  const out = [];
  const only = (obj, allowed, where) => {
    if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) {
      out.push(`${where}: not an object`);
      return false;
    }
    for (const k of Object.keys(obj))
      if (!allowed.includes(k))
        out.push(`${where}.${k}`);
    return true;
  };
  const each = (arr, allowed, where) => {
    if (!Array.isArray(arr)) {
      out.push(`${where}: not an array`);
      return;
    }
    arr.forEach((x, i) => only(x, allowed, `${where}[${i}]`));
  };
  const state = (st, where) => {
    if (!only(st, STATE, where))
      return;
    each(st.board, BOARD, where + '.board');
    each(st.meeples, MEEPLE, where + '.meeples');
    for (const [k, v] of Object.entries(st.bag || {}))
      if (!TILE.test(k) || !Number.isInteger(v) || v < 0)
        out.push(`${where}.bag.${k}=${v}`);
    if (st.tile !== null && st.tile !== undefined && !TILE.test(st.tile))
      out.push(`${where}.tile=${st.tile}`);
  };
  const allowed = TOP[msg.type];
  if (!allowed)
    return [`unexpected message type ${msg.type}`];
  only(msg, allowed, msg.type);
  if (msg.state !== undefined)
    state(msg.state, msg.type + '.state');
  if (msg.clocks !== undefined)
    each(msg.clocks, CLOCK, msg.type + '.clocks');
  if (msg.type === 'seats')
    each(msg.seats, SEAT, 'seats.seats');
  if (msg.type === 'joined' || msg.type === 'resumed' || msg.type === 'spectating') {
    each(msg.seats, SEAT, msg.type + '.seats');
    each(msg.history, RECORD, msg.type + '.history');
    only(msg.rules, ['players', 'tiny_city', 'farms'], msg.type + '.rules');
    if (msg.time_control !== undefined)
      only(msg.time_control, ['move_ms', 'first_move_ms', 'bank_ms', 'increment_ms'], msg.type + '.time_control');
    if (msg.policies !== undefined)
      only(msg.policies, ['timeout', 'illegal', 'max_illegal', 'disconnect', 'reconnect_grace_ms', 'grace_ms', 'info'],
        msg.type + '.policies');
  }
  if (msg.type === 'update') {
    only(msg.record, RECORD, 'update.record');
    if (msg.next !== null)
      only(msg.next, ['seat', 'tile'], 'update.next');
  }
  if (msg.type === 'your_turn')
    each(msg.legal, LEGAL, 'your_turn.legal');
  if (msg.result !== undefined && msg.result !== null)
    only(msg.result, RESULT, msg.type + '.result');
  return out;
}

/*
 * GET url over http or https; resolves with {status, headers, body}.
 * opts: method, ca (a pinned certificate), rejectUnauthorized, timeout (ms).
 */
function httpGet(url, opts = {}) {
  const u = new URL(url);
  const mod = u.protocol === 'https:' ? require('node:https') : require('node:http');
  return new Promise((resolve, reject) => {
    const req = mod.request(u, {
      method: opts.method || 'GET', ca: opts.ca, rejectUnauthorized: opts.rejectUnauthorized,
      agent: false, timeout: opts.timeout || 5000 * SLOW,
    }, (res) => {
      const chunks = [];
      res.on('data', (d) => chunks.push(d));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${url}: no answer in time`)));
    req.on('error', reject);
    req.end();
  });
}

/* The turns of a finished match's record, checked by the server's replay
 * (c: a client of the server that has the match). */
async function recordTurns(c, match) {
  const rec = (await c.request({ type: 'get_record', match }, 'record')).record;
  const again = await c.request({ type: 'replay', record: rec }, 'replayed', 30000 * SLOW);
  if (again.turns.length !== rec.turns.length)
    throw new Error(`replay of ${match}: ${again.turns.length} turns, the record has ${rec.turns.length}`);
  return rec.turns;
}

module.exports = {
  ON_PG,
  servicesEnv,
  freshPgDb,
  psql,
  sqliteOnly,
  dbQuery,
  httpGet,
  leaks, replayHistory, recordTurns, logTime, CLOCK_SLACK, startAdmin, autoPlay,
  WebSocket, ROOT, SLOW, Server, Client, binary, sleep, within, rng, tmpDir,
  carcMove, randomMove, illegalMove, createMatch, join, playUntilOver, isError, rawConnect, rawWsClient,
  wsFrame,
};
