#!/usr/bin/env node
/*
 * bench/load.js — load benchmark for `tessera serve` (not a test: it measures).
 *
 * Starts a real server on a free port with a throw-away database, creates N
 * concurrent matches of two remote random bots (plus K matches in which one
 * seat never answers, to measure how late timeouts are enforced), plays them
 * to the end over 2 WebSocket connections per match, then stops the server
 * with SIGTERM and reads the `stats` line it logs. See bench/README.md.
 *
 * Roles: the main process owns the server and the report; the clients live
 * in one or more "shards" — in this process (--workers 1, the default) or in
 * W child processes (--workers W), so that the load generator does not
 * become the bottleneck. A shard owns whole matches (both seats), so the
 * client-side round trip is measured on one clock.
 */
'use strict';

const { spawn, spawnSync } = require('child_process');
const { EventEmitter } = require('events');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { performance, monitorEventLoopDelay } = require('perf_hooks');

let WebSocket;
try {
  WebSocket = require('ws');
} catch (e) {
  console.error('bench/load.js: the npm package "ws" is missing: run `npm ci` in bench/ first');
  process.exit(2);
}

/* ---- options ---------------------------------------------------------------------- */

const USAGE = `usage: node bench/load.js --tessera PATH [options]

  --tessera PATH          the tessera binary (e.g. build/cli/tessera)        [required]
  --matches N             concurrent matches of two remote random bots      [10]
  --game NAME             game to play                                      [carcassonne]
  --move-delay-ms D       each bot waits before answering your_turn: a random
                          time uniform in [D/2, 3D/2] ms (mean D), and the
                          matches start spread over D ms                    [0]
  --fixed-delay           wait exactly D ms and start every match at once
                          (synchronised waves of moves: the worst case)
  --move-ms MS            time_control.move_ms of those matches             [10000]
  --timeout-matches K     extra matches where one seat never answers        [0]
  --timeout-move-ms MS    move_ms (and first_move_ms) of those matches      [200]
  --duration-s S          stop after S seconds of play even if unfinished   [600]
  --warmup K              first play K matches the same way, unmeasured: the
                          figures are then a server's that has been playing
                          (its journal's WAL grown to its bound and written
                          again from its start, its heap grown), not one
                          just started; the overhead's mean is the measured
                          matches' own, its percentiles include the warm-up [0]
  --workers W             client processes (1: clients run in this process) [1]
  --db-dir DIR            where the throw-away database goes                [os.tmpdir()]
  --server-prefix CMD     run the server under CMD (split on spaces), e.g.
                          "nice -n -5" or "perf record -g -o perf.data --"
  --server-log FILE       append the server's log (stderr) to FILE
  --connect-concurrency C WebSocket handshakes in flight at once            [200]
  --seats-per-conn S      each seat connection plays S matches (the same seat of
                          each; the server allows 32): S times fewer descriptors,
                          for N beyond what ulimit -n allows at 2 per match    [1]
  --info N                each bot sends N thinking lines (info: 2 candidates of
                          legal, a win probability, iterations) before each move,
                          relayed live to the matches' spectators            [0]
  --info-paced            thinking lines as a searching bot sends them (our MCTS
                          family, rate-limited): one every 100-250 ms (uniform)
                          of the bot's move delay, and one with its choice just
                          before the move — a bot that answers at once sends
                          that one alone (instead of --info N)
  --info-inline           the last line before each move (--info N's last,
                          --info-paced's with the choice) goes inside the
                          move as its "info" (one frame instead of two; the
                          server's capability move_info)
  --watchers              a spectator for every match (one connection per 32
                          matches): it hears the updates and, with --info, the
                          thinking lines
  --durable               run the server with --durable (fsync before announcing;
                          the report gives its syncs and commits per sync)
  --protocol P            protocol version the clients ask for in hello
                          (2: state changes and compact legal moves)      [2]
  --json                  print the report as one JSON object on the last line too
  --quiet                 no progress lines on stderr
  -h, --help              this text`;

function parseArgs(argv) {
  const o = {
    tessera: null, matches: 10, game: 'carcassonne', moveDelayMs: 0, moveMs: 10000,
    timeoutMatches: 0, timeoutMoveMs: 200, durationS: 600, workers: 1, connectConcurrency: 200,
    json: false, quiet: false, dbDir: os.tmpdir(), serverPrefix: [], fixedDelay: false, protocol: 2,
    serverLog: null,
    durable: false, seatsPerConn: 1, info: 0, infoPaced: false, infoInline: false, watchers: false,
    warmup: 0,
  };
  const ints = {
    '--matches': ['matches', 1], '--move-delay-ms': ['moveDelayMs', 0], '--move-ms': ['moveMs', 1],
    '--timeout-matches': ['timeoutMatches', 0], '--timeout-move-ms': ['timeoutMoveMs', 1],
    '--duration-s': ['durationS', 1], '--workers': ['workers', 1],
    '--connect-concurrency': ['connectConcurrency', 1], '--protocol': ['protocol', 1],
    '--seats-per-conn': ['seatsPerConn', 1], '--info': ['info', 0], '--warmup': ['warmup', 0],
  };
  for (let i = 0; i < argv.length; i++) {
    let a = argv[i], v = null;
    const eq = a.indexOf('=');
    if (a.startsWith('--') && eq > 0) {
      v = a.slice(eq + 1);
      a = a.slice(0, eq);
    }
    const next = () => {
      if (v !== null) return v;
      if (i + 1 >= argv.length) usage(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '-h' || a === '--help') {
      console.log(USAGE);
      process.exit(0);
    } else if (a === '--json') o.json = true;
    else if (a === '--quiet') o.quiet = true;
    else if (a === '--fixed-delay') o.fixedDelay = true;
    else if (a === '--durable') o.durable = true;
    else if (a === '--watchers') o.watchers = true;
    else if (a === '--info-paced') o.infoPaced = true;
    else if (a === '--info-inline') o.infoInline = true;
    else if (a === '--tessera') o.tessera = next();
    else if (a === '--game') o.game = next();
    else if (a === '--db-dir') o.dbDir = next();
    else if (a === '--server-prefix') o.serverPrefix = next().split(/\s+/).filter(Boolean);
    else if (a === '--server-log') o.serverLog = next();
    else if (ints[a]) {
      const [key, min] = ints[a];
      const s = next();
      if (!/^\d+$/.test(s) || Number(s) < min) usage(`${a} wants an integer >= ${min}, not '${s}'`);
      o[key] = Number(s);
    } else usage(`unknown option '${argv[i]}'`);
  }
  if (!o.tessera) usage('--tessera PATH is required');
  if (o.seatsPerConn > 32) usage('--seats-per-conn: the server lets a connection hold at most 32 seats');
  return o;
}

function usage(msg) {
  console.error(`load.js: ${msg}\n${USAGE}`);
  process.exit(2);
}

/* ---- small helpers ------------------------------------------------------------------ */

const epochNow = () => performance.timeOrigin + performance.now(); /* ms, sub-ms resolution */

function percentile(sorted, q) {
  if (!sorted.length) return null;
  const k = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[k];
}

function summary(samples) {
  const s = Float64Array.from(samples).sort();
  return {
    count: s.length,
    p50: percentile(s, 0.5),
    p99: percentile(s, 0.99),
    max: s.length ? s[s.length - 1] : null,
  };
}

function cpuMs(u) {
  return (u.user + u.system) / 1000;
}

/* CPU time (ms) a process has used, from /proc (Linux), as {user, sys}
 * (user space, kernel); null elsewhere. */
function procCpuSplit(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const hz = 100; /* USER_HZ is 100 on every Linux we run on */
    return { user: (Number(f[11]) * 1000) / hz, sys: (Number(f[12]) * 1000) / hz };
  } catch (e) {
    return null;
  }
}

/* Context switches of a process (Linux): involuntary ones mean it was preempted. */
function procSwitches(pid) {
  try {
    const st = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const get = (k) => Number((new RegExp(`^${k}:\\s+(\\d+)`, 'm').exec(st) || [])[1]);
    return { voluntary: get('voluntary_ctxt_switches'), involuntary: get('nonvoluntary_ctxt_switches') };
  } catch (e) {
    return null;
  }
}

/* The scheduler's view of a process's main thread (Linux schedstat): time on a
 * CPU and time runnable but waiting for one, in ms. */
function procSched(pid) {
  try {
    const [run, wait] = fs.readFileSync(`/proc/${pid}/schedstat`, 'utf8').trim().split(/\s+/).map(Number);
    return { run: run / 1e6, wait: wait / 1e6 };
  } catch (e) {
    return null;
  }
}

/* CPU pressure of the machine (PSI): % of time some runnable task waited for a CPU. */
function cpuPressure() {
  try {
    const m = /some avg10=([\d.]+) avg60=([\d.]+)/.exec(fs.readFileSync('/proc/pressure/cpu', 'utf8'));
    return m ? { avg10: Number(m[1]), avg60: Number(m[2]) } : null;
  } catch (e) {
    return null;
  }
}

function fdLimits() {
  const r = spawnSync('sh', ['-c', 'ulimit -n; ulimit -Hn'], { encoding: 'utf8' });
  const [soft, hard] = (r.stdout || '').trim().split('\n');
  const num = (x) => (x === 'unlimited' ? Infinity : Number(x));
  return { soft: num(soft), hard: num(hard) };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/* ---- the client shard: matches, connections, bots ------------------------------------ */

const HIST_TOP_US = 20000; /* the server's histograms end at 20 ms (STAT_BUCKETS) */
const CREATES_PER_CONTROL = 80; /* under the server's burst of 100 messages per connection */

class Shard {
  constructor(send) {
    this.send = send; /* message to the main process */
    this.ctl = [];
    this.matches = [];
    this.seatSockets = [];
    this.rtt = [];
    this.gap = []; /* update -> your_turn on the same connection (the seat to move) */
    this.acceptedLate = []; /* ms past the deadline of moves sent late yet accepted */
    this.timeoutErr = [];
    this.errors = {};
    this.errorSamples = [];
    this.unexpectedCloses = 0;
    this.bytes = {}; /* bytes the seats received, by message type */
    this.closing = false;
    this.normalLeft = 0;
    this.allLeft = 0;
  }

  handle(msg) {
    const fail = (e) => this.send({ ev: 'fatal', error: String(e && e.message ? e.message : e) });
    if (msg.cmd === 'setup') this.setup(msg).catch(fail);
    else if (msg.cmd === 'go') this.go();
    else if (msg.cmd === 'collect') this.collect(msg).catch(fail);
    else if (msg.cmd === 'close') this.close();
  }

  noteError(code, message, where) {
    this.errors[code] = (this.errors[code] || 0) + 1;
    if (this.errorSamples.length < 5) this.errorSamples.push(`${where}: ${code}: ${message}`);
  }

  /* Open a WebSocket, say hello, wait for welcome. */
  openConn(onText) {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(this.url, {
        perMessageDeflate: false,
        skipUTF8Validation: true,
        handshakeTimeout: 30000,
      });
      let welcomed = false;
      ws.on('open', () => ws.send(`{"type":"hello","protocol":${this.cfg.protocol},"client":"bench/load.js"}`));
      ws.on('message', (data) => {
        if (!welcomed) {
          const m = JSON.parse(data.toString());
          if (m.type !== 'welcome') {
            reject(new Error(`hello answered by ${m.type} ${m.code || ''} ${m.message || ''}`));
            ws.terminate();
            return;
          }
          welcomed = true;
          resolve(ws);
          return;
        }
        onText(data);
      });
      ws.on('error', (e) => {
        if (!welcomed) reject(new Error(`connect: ${e.code || e.message}`));
      });
      ws.on('close', (code, reason) => {
        if (!welcomed) {
          reject(new Error(`closed during hello: ${code} ${reason}`));
          return;
        }
        if (!this.closing) {
          this.unexpectedCloses++;
          this.noteError('closed', `${code} ${reason}`, 'connection');
        }
      });
    });
  }

  async openMany(n, makeHandler) {
    const out = new Array(n);
    let next = 0, opened = 0;
    const worker = async () => {
      while (next < n) {
        const i = next++;
        try {
          out[i] = await this.openConn(makeHandler(i));
        } catch (e) {
          throw new Error(`${e.message} (after ${opened} of ${n} connections of this client)`);
        }
        opened++;
      }
    };
    const lanes = [];
    for (let k = 0; k < Math.min(this.cfg.connectConcurrency, n); k++) lanes.push(worker());
    await Promise.all(lanes);
    return out;
  }

  async setup(msg) {
    const t0 = performance.now();
    this.url = msg.url;
    this.cfg = msg.cfg;
    const specs = msg.matches; /* [{idx, timeout}] */
    /* control connections: create_match requests with ids, answered in order */
    const nctl = Math.max(1, Math.ceil(specs.length / CREATES_PER_CONTROL));
    const pending = (this.pending = new Map());
    let reqId = 0;
    this.ctl = await this.openMany(nctl, () => (data) => {
      const m = JSON.parse(data.toString());
      const p = m.id !== undefined ? pending.get(m.id) : undefined;
      if (!p) return;
      pending.delete(m.id);
      if (m.type === 'error') p.reject(new Error(`${p.what}: ${m.code}: ${m.message}`));
      else p.resolve(m);
    });
    const creates = specs.map((sp, i) => {
      const id = ++reqId;
      const tc = sp.timeout
        ? { move_ms: this.cfg.timeoutMoveMs, first_move_ms: this.cfg.timeoutMoveMs }
        : { move_ms: this.cfg.moveMs };
      const req = {
        type: 'create_match', id, game: this.cfg.game,
        seats: [{ open: true, name: 'bench-a' }, { open: true, name: 'bench-b' }],
        time_control: tc,
      };
      if (sp.timeout) req.policies = { timeout: 'random_move' };
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject, what: 'create_match' });
        this.ctl[i % nctl].send(JSON.stringify(req));
      });
    });
    const created = await Promise.all(creates);
    this.matches = specs.map((sp, i) => ({
      idx: sp.idx,
      timeout: sp.timeout,
      silent: sp.timeout ? sp.idx % 2 : -1, /* the seat that never answers */
      id: created[i].match,
      tokens: created[i].seats.map((s) => s.token),
      ws: [null, null],
      sentAt: 0,          /* performance.now() when a move was last sent, 0 if none pending */
      updAt: [0, 0],      /* performance.now() of the last update received, per seat */
      asked: -1,          /* timeout matches: the seat last sent your_turn ... */
      deadline: 0,        /* ... and its deadline (epoch ms) */
      turns: 0,
      movesSent: 0,
      timeouts: 0,        /* timeouts of the silent seat */
      lateAnswers: 0,     /* timeouts of the answering seat (the client was too slow) */
      lateMoves: 0,       /* its moves refused because they came after the timeout */
      sentLate: [0, 0],   /* per seat: ms past its deadline when its pending move was sent */
      over: null,
    }));
    this.normalLeft = this.matches.filter((m) => !m.timeout).length;
    this.allLeft = this.matches.length;
    /* connection k holds seat k & 1 of the matches of group k >> 1 (S of them) */
    const S = this.cfg.seatsPerConn || 1;
    const byId = new Map(this.matches.map((m) => [m.id, m]));
    const socks = await this.openMany(Math.ceil(this.matches.length / S) * 2, (k) => {
      const seat = k & 1;
      if (S === 1) {
        const m = this.matches[k >> 1];
        return (data) => this.onSeatMessage(m, seat, data);
      }
      /* several matches on this connection: route by the message's "match" */
      return (data) => {
        const text = data.toString('latin1', 0, Math.min(data.length, 200));
        const at = text.indexOf('"match":"');
        let id = at >= 0 ? text.slice(at + 9, text.indexOf('"', at + 9)) : null;
        if (id === null || !byId.has(id)) {
          /* "match" is not near the start: read the whole message */
          try {
            id = JSON.parse(data.toString()).match;
          } catch (e) { id = null; }
        }
        const m = byId.get(id);
        if (m) this.onSeatMessage(m, seat, data);
        else this.onSeatMessage({ id: '?', timeout: false, silent: -1, sentLate: [0, 0], updAt: [0, 0] }, seat, data);
      };
    });
    for (let k = 0; k < socks.length; k++)
      for (let j = (k >> 1) * S; j < Math.min(this.matches.length, ((k >> 1) + 1) * S); j++)
        this.matches[j].ws[k & 1] = socks[k];
    this.seatSockets = socks;
    /* --watchers: one spectator connection per 32 matches, reading and dropping */
    this.watchBytes = 0;
    this.watchSockets = this.cfg.watchers
      ? await this.openMany(Math.ceil(this.matches.length / 32), () => (data) => { this.watchBytes += data.length; })
      : [];
    this.send({
      ev: 'ready',
      setupMs: performance.now() - t0,
      connections: socks.length + this.ctl.length,
    });
  }

  go() {
    this.goAt = performance.now();
    this.cpu0 = process.cpuUsage();
    this.sched0 = procSched(process.pid);
    this.eld = monitorEventLoopDelay({ resolution: 10 });
    this.eld.enable();
    if (this.normalLeft === 0) this.normalDone();
    if (this.allLeft === 0) this.allDone();
    /* a match starts when its second seat joins: with a move delay, spread
     * the starts over that delay so that the moves do not come in waves */
    const ramp = this.cfg.fixedDelay ? 0 : this.cfg.moveDelayMs;
    const join = (m, seat) => {
      if (!this.closing) m.ws[seat].send(JSON.stringify({ type: 'join', match: m.id, seat, token: m.tokens[seat] }));
    };
    this.watchSockets.forEach((w, k) => {
      for (const m of this.matches.slice(k * 32, (k + 1) * 32))
        if (!this.closing) w.send(JSON.stringify({ type: 'spectate', match: m.id }));
    });
    for (const m of this.matches) join(m, 0);
    for (const m of this.matches) {
      if (ramp > 0 && !m.timeout) setTimeout(() => join(m, 1), Math.random() * ramp);
      else join(m, 1);
    }
  }

  onSeatMessage(m, seat, data) {
    /* the server writes "type" first: read it without decoding the whole message
     * (updates carry the full state), fall back to a full parse otherwise */
    const head = /^\{"type":"([a-z_]+)"/.exec(data.toString('latin1', 0, 32));
    const type = head ? head[1] : JSON.parse(data.toString()).type;
    this.bytes[type] = (this.bytes[type] || 0) + data.length;
    if (type === 'your_turn') {
      const now = performance.now();
      if (m.sentAt) {
        if (!m.timeout) this.rtt.push(now - m.sentAt); /* timeout matches would mix in timeouts */
        m.sentAt = 0;
      }
      if (m.updAt[seat] && !m.timeout) this.gap.push(now - m.updAt[seat]);
      m.updAt[seat] = 0;
      const msg = JSON.parse(data.toString());
      if (m.timeout) {
        m.asked = seat;
        m.deadline = msg.deadline;
        if (seat === m.silent) return;
      }
      this.play(m, seat, msg);
    } else if (type === 'update') {
      if (seat === 0) m.turns++;
      m.updAt[seat] = performance.now();
      if (seat === m.silent) {
        const s = data.toString();
        if (s.includes('"by":"server"')) {
          const msg = JSON.parse(s);
          if (msg.reason === 'timeout' && m.deadline) {
            this.timeoutErr.push(epochNow() - m.deadline);
            if (m.asked === m.silent) m.timeouts++;
            else m.lateAnswers++;
            m.deadline = 0;
          }
        }
      }
    } else if (type === 'move_accepted') {
      if (m.sentLate[seat] > 0) this.acceptedLate.push(m.sentLate[seat]);
      m.sentLate[seat] = 0;
    } else if (type === 'game_over') {
      if (seat !== 0) return;
      const msg = JSON.parse(data.toString());
      this.finishMatch(m, msg.result ? msg.result.reason : '?');
    } else if (type === 'error') {
      const msg = JSON.parse(data.toString());
      m.sentLate[seat] = 0;
      if (m.timeout && (msg.code === 'not_your_turn' || msg.code === 'match_over'))
        m.lateMoves++; /* the answering bot's move came after its own timeout */
      else this.noteError(msg.code, msg.message, `match ${m.id} seat ${seat}`);
    }
  }

  play(m, seat, msg) {
    const legal = msg.legal;
    if (!Array.isArray(legal) || legal.length === 0) {
      this.noteError('no_legal', 'your_turn without legal moves', `match ${m.id}`);
      return;
    }
    let e = legal[Math.floor(Math.random() * legal.length)];
    if (typeof e === 'string') {
      /* protocol 2's compact Carcassonne entry: "x,y,rot[,PORT...]" */
      const f = e.split(',');
      e = { x: Number(f[0]), y: Number(f[1]), rot: Number(f[2]), meeples: f.slice(3) };
    }
    let move = e;
    if (Array.isArray(e.meeples)) {
      /* Carcassonne: a placement plus one of its meeple ports, or none */
      move = { x: e.x, y: e.y, rot: e.rot };
      const k = Math.floor(Math.random() * (e.meeples.length + 1));
      if (k < e.meeples.length) move.meeple = e.meeples[k];
    }
    /* --info N: thinking lines before the move, as a searching bot sends them */
    const cand = (x) => (typeof x === 'string' ? move : Array.isArray(x.meeples) ? { x: x.x, y: x.y, rot: x.rot } : x);
    const body = (i) => ({ winprob: 0.5 + 0.01 * i,
      candidates: [{ move, visits: 100 + i }, { move: cand(legal[0]), visits: 50 }], iterations: 150 * (i + 1),
      elapsed_ms: 10 * (i + 1) });
    const line = (i) => JSON.stringify({ type: 'info', match: m.id, turn: msg.turn, ...body(i) });
    const last = this.cfg.infoPaced ? -1 : (this.cfg.info || 0) - 1; /* --info-inline: rides the move */
    const inline = this.cfg.infoInline && last >= 0 ? body(last) : null;
    let text = JSON.stringify(inline ? { type: 'move', match: m.id, turn: msg.turn, move, info: inline }
      : { type: 'move', match: m.id, turn: msg.turn, move });
    const infos = [];
    for (let i = 0; i < (this.cfg.info || 0) - (inline ? 1 : 0); i++) infos.push(line(i));
    /* the answering bot of a timeout match answers at once: a delay would
     * make it time out too */
    const d = this.cfg.moveDelayMs;
    const delay = m.timeout || d === 0 ? 0 : this.cfg.fixedDelay ? d : d / 2 + Math.random() * d;
    /* --info-paced: a line every 100-250 ms of the thinking, the last with the move */
    if (this.cfg.infoPaced) {
      let k = 0;
      for (let at = 100 + Math.random() * 150; at < delay; at += 100 + Math.random() * 150) {
        const text = line(k++);
        setTimeout(() => { if (!m.over) m.ws[seat].send(text); }, at);
      }
      if (this.cfg.infoInline)
        text = JSON.stringify({ type: 'move', match: m.id, turn: msg.turn, move, info: body(k) });
      else infos.push(line(k));
    }
    const sendIt = () => {
      if (m.over) return;
      for (const t of infos) m.ws[seat].send(t);
      m.sentAt = performance.now();
      m.movesSent++;
      m.sentLate[seat] = Math.max(0, epochNow() - msg.deadline);
      m.ws[seat].send(text);
    };
    if (delay > 0) setTimeout(sendIt, delay);
    else sendIt();
  }

  finishMatch(m, reason) {
    if (m.over) return;
    m.over = reason;
    m.sentAt = 0;
    this.send({ ev: 'finished', timeout: m.timeout, reason });
    if (!m.timeout && --this.normalLeft === 0) this.normalDone();
    if (--this.allLeft === 0) this.allDone();
  }

  normalDone() {
    this.normalAt = performance.now();
    this.cpuNormal = process.cpuUsage(this.cpu0);
    this.schedNormal = procSched(process.pid);
    this.eld.disable();
    this.send({ ev: 'normalDone' });
  }

  allDone() {
    this.allAt = performance.now();
    this.send({ ev: 'allDone' });
  }

  /* The server's figures while it runs (protocol: server_stats), as a cross-check
   * of the stats line it logs when stopped. */
  serverStats() {
    const ws = this.ctl[0];
    if (!ws || ws.readyState !== WebSocket.OPEN) return Promise.resolve(null);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete('stats');
        resolve(null);
      }, 5000);
      const done = (v) => {
        clearTimeout(timer);
        resolve(v);
      };
      this.pending.set('stats', { resolve: done, reject: () => done(null), what: 'server_stats' });
      ws.send('{"type":"server_stats","id":"stats"}');
    });
  }

  async collect(msg) {
    const live = msg.serverStats ? await this.serverStats() : null;
    this.closing = true; /* the server is stopped next: its closes are expected */
    const now = performance.now();
    const cpuAll = process.cpuUsage(this.cpu0);
    const playMs = (this.normalAt || now) - this.goAt;
    const cpuPlay = this.cpuNormal || cpuAll;
    if (!this.cpuNormal) this.eld.disable();
    const reasons = {};
    let turnsNormal = 0, turnsTimeout = 0, movesSent = 0, timeouts = 0, unfinished = 0;
    let lateAnswers = 0, lateMoves = 0;
    for (const m of this.matches) {
      if (m.timeout) turnsTimeout += m.turns;
      else turnsNormal += m.turns;
      movesSent += m.movesSent;
      timeouts += m.timeouts;
      lateAnswers += m.lateAnswers;
      lateMoves += m.lateMoves;
      if (m.over) reasons[m.over] = (reasons[m.over] || 0) + 1;
      else unfinished++;
    }
    this.send({
      ev: 'results',
      pid: process.pid,
      serverStats: live,
      rtt: this.rtt,
      gap: this.gap,
      acceptedLate: this.acceptedLate,
      timeoutErr: this.timeoutErr,
      turnsNormal, turnsTimeout, movesSent, timeouts, lateAnswers, lateMoves, unfinished, reasons,
      errors: Object.assign({}, this.errors),
      bytes: Object.assign({}, this.bytes),
      errorSamples: this.errorSamples.slice(),
      unexpectedCloses: this.unexpectedCloses,
      playMs,
      cpuPlayMs: cpuMs(cpuPlay),
      cpuAllMs: cpuMs(cpuAll),
      allMs: (this.allAt || now) - this.goAt,
      waitMs: this.sched0 && (this.schedNormal || procSched(process.pid))
        ? (this.schedNormal || procSched(process.pid)).wait - this.sched0.wait : null,
      loopDelayP99Ms: this.eld.count ? this.eld.percentile(99) / 1e6 : null,
      loopDelayMaxMs: this.eld.count ? this.eld.max / 1e6 : null,
      rssKb: Math.round(process.memoryUsage().rss / 1024),
    });
  }

  close() {
    this.closing = true;
    for (const ws of this.seatSockets.concat(this.ctl)) if (ws) ws.terminate();
    this.send({ ev: 'closed' });
  }
}

/* A shard in this process: messages cross through the event loop, as with IPC. */
function localShard() {
  const out = new EventEmitter();
  const shard = new Shard((msg) => setImmediate(() => out.emit('message', msg)));
  return {
    pid: process.pid,
    send: (msg) => setImmediate(() => shard.handle(msg)),
    on: (ev, f) => out.on(ev, f),
    kill() {},
  };
}

/* A shard in a child process (started through sh so that its fd limit can be raised). */
function childShard(fdNeed) {
  const script = `ulimit -n ${fdNeed} 2>/dev/null; exec "$0" "$@"`;
  const child = spawn('sh', ['-c', script, process.execPath, __filename], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: Object.assign({}, process.env, { TESSERA_BENCH_SHARD: '1' }),
  });
  const out = new EventEmitter();
  child.on('message', (m) => out.emit('message', m));
  child.on('exit', (code, sig) => {
    if (!child.expectedExit) out.emit('message', { ev: 'fatal', error: `client process exited (${code ?? sig})` });
  });
  return {
    pid: child.pid,
    send: (msg) => child.send(msg),
    on: (ev, f) => out.on(ev, f),
    kill() {
      child.expectedExit = true;
      child.kill('SIGTERM');
    },
    child,
  };
}

function shardChildMain() {
  const shard = new Shard((msg) => process.send(msg));
  process.on('message', (msg) => {
    shard.handle(msg);
    if (msg.cmd === 'close') setTimeout(() => process.exit(0), 50);
  });
  process.on('disconnect', () => process.exit(0));
}

/* ---- the warm-up (--warmup) ----------------------------------------------------------- */

/* Play k matches to the end with the measured run's settings, on a shard of
 * this process, and close its connections; resolves to its turns, play time
 * and the server's overhead histogram when it ended (server_stats). */
async function warmUp(url, cfg, k, timeoutMs) {
  const sh = localShard();
  const ev = new EventEmitter();
  sh.on('message', (m) => ev.emit(m.ev, m));
  const next = (name) => new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the warm-up: no ${name} within ${timeoutMs} ms`)), timeoutMs);
    ev.once(name, (m) => { clearTimeout(timer); resolve(m); });
    ev.once('fatal', (m) => { clearTimeout(timer); reject(new Error(`the warm-up: ${m.error}`)); });
  });
  const ready = next('ready');
  sh.send({ cmd: 'setup', url, matches: Array.from({ length: k }, (_, i) => ({ idx: i, timeout: false })), cfg });
  await ready;
  const done = next('normalDone');
  sh.send({ cmd: 'go' });
  await done;
  const res = next('results');
  sh.send({ cmd: 'collect', serverStats: true });
  const r = await res;
  if (r.unfinished) throw new Error(`the warm-up: ${r.unfinished} of ${k} matches unfinished`);
  if (!r.serverStats) throw new Error('the warm-up: no server_stats reply');
  const closed = next('closed');
  sh.send({ cmd: 'close' });
  await closed;
  await sleep(1000); /* the server sees the closes before the measured connections open */
  return { turns: r.turnsNormal, playMs: r.playMs, overhead: r.serverStats.overhead };
}

/* The stats line's overhead histogram, the warm-up's taken out of its mean
 * (by the exact sums: mean x count); its percentiles and max are the whole
 * run's, said so. */
function overheadAfter(h, before) {
  const o = { count: h.count, mean: h.mean_us, p50: h.p50_us, p99: h.p99_us, max: h.max_us };
  if (!before) return o;
  const n = h.count - before.count;
  o.count = n;
  o.mean = n > 0 ? (h.mean_us * h.count - before.mean_us * before.count) / n : 0;
  o.percentiles_include_warmup = true;
  return o;
}

/* ---- the server --------------------------------------------------------------------- */

function startServer(opts, dir, maxConns, fdNeed) {
  const portFile = path.join(dir, 'port');
  const db = path.join(dir, 'bench.db');
  /* raise the fd limit in the child if it is too low for maxConns */
  const script =
    `n=$(ulimit -n); if [ "$n" != unlimited ] && [ "$n" -lt ${fdNeed} ]; then ` +
    `ulimit -n ${fdNeed} 2>/dev/null || echo "bench: could not raise the server's ulimit -n ` +
    `from $n to ${fdNeed}" >&2; fi; exec "$0" "$@"`;
  /* --log-level info: the stats line is logged at info level */
  const args = [
    '-c', script, ...opts.serverPrefix, path.resolve(opts.tessera), 'serve', '--port', '0', '--port-file', portFile,
    '--db', db, '--no-web', '--max-conns', String(maxConns), '--log-level', 'info',
    ...(opts.durable ? ['--durable'] : []),
    /* the server holds 5,000 matches unless told more */
    ...(opts.matches + opts.timeoutMatches > 4000
      ? ['--set', `limits.max_matches=${opts.matches + opts.timeoutMatches + 100}`] : []),
  ];
  const child = spawn('sh', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const srv = {
    child, pid: child.pid, stats: null, warnings: {}, warnSamples: [], exited: null,
    events: {}, stderrTail: [],
  };
  let buf = '';
  const logFd = opts.serverLog ? fs.openSync(opts.serverLog, 'a') : null;
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk) => {
    if (logFd !== null) fs.writeSync(logFd, chunk);
    buf += chunk;
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      let o = null;
      try {
        o = JSON.parse(line);
      } catch (e) { /* not a log line */ }
      if (!o) {
        srv.stderrTail.push(line);
        if (srv.stderrTail.length > 20) srv.stderrTail.shift();
        if (!opts.quiet) process.stderr.write(`[server] ${line}\n`);
        continue;
      }
      srv.events[o.event] = (srv.events[o.event] || 0) + 1;
      if (o.event === 'stats') srv.stats = o.stats;
      else if (o.event === 'journal_syncs') srv.syncs = o;
      else if (o.level === 'warn' || o.level === 'error') {
        const key = `${o.level}:${o.event}`;
        srv.warnings[key] = (srv.warnings[key] || 0) + 1;
        if (srv.warnSamples.length < 5) srv.warnSamples.push(line);
      }
    }
  });
  srv.exitPromise = new Promise((resolve) => {
    child.on('exit', (code, sig) => {
      srv.exited = { code, sig };
      resolve(srv.exited);
    });
  });
  srv.portFile = portFile;
  return srv;
}

async function waitPort(srv) {
  for (let i = 0; i < 500; i++) {
    if (srv.exited) break;
    try {
      const p = Number(fs.readFileSync(srv.portFile, 'utf8').trim());
      if (p > 0) return p;
    } catch (e) { /* not yet */ }
    await sleep(20);
  }
  throw new Error(`the server did not start: ${srv.stderrTail.join(' | ') || JSON.stringify(srv.exited)}`);
}

/* The process that runs the server: the spawned one, or under --server-prefix
 * the innermost process whose command line names our port file (not the
 * sandbox's guardian, players/cgroup.c). */
function serverPid(srv) {
  const cands = new Map();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const cmd = fs.readFileSync(`/proc/${d}/cmdline`, 'utf8');
      if (!cmd.includes(srv.portFile)) continue;
      /* the sandbox's guardian is a fork of the server (same command line),
       * named tessera-guard: it only waits for the server's end */
      if (fs.readFileSync(`/proc/${d}/comm`, 'utf8').trim() === 'tessera-guard') continue;
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      cands.set(Number(d), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch (e) { /* gone */ }
  }
  const parents = new Set(cands.values());
  for (const pid of cands.keys()) if (!parents.has(pid)) return pid;
  return srv.child.pid;
}

async function stopServer(srv) {
  srv.stopping = true;
  if (srv.exited) return srv.exited;
  try {
    process.kill(srv.pid, 'SIGTERM');
  } catch (e) {
    srv.child.kill('SIGTERM');
  }
  const t = setTimeout(() => srv.child.kill('SIGKILL'), 20000);
  const r = await srv.exitPromise;
  clearTimeout(t);
  return r;
}

/* ---- the main process --------------------------------------------------------------- */

function fmt(x, digits = 1) {
  if (x === null || x === undefined || Number.isNaN(x)) return '-';
  return Number(x).toFixed(digits);
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (!fs.existsSync(opts.tessera)) usage(`no tessera binary at ${opts.tessera}`);
  const log = (s) => { if (!opts.quiet) process.stderr.write(`load.js: ${s}\n`); };
  const N = opts.matches, K = opts.timeoutMatches, W = opts.workers;
  const total = N + K;
  const nctl = Math.ceil(total / CREATES_PER_CONTROL) + W;
  const S = opts.seatsPerConn;
  const maxConns = 2 * Math.ceil(total / S) + nctl + 64;
  const fdNeed = maxConns + 64;

  /* fd limits: the server's is raised in its child; the clients' must fit ours */
  const lim = fdLimits();
  const clientFdNeed = Math.ceil((2 * Math.ceil(total / S)) / W) + nctl + 64;
  if (W === 1 && lim.soft < clientFdNeed) {
    if (lim.hard >= clientFdNeed && !process.env.TESSERA_BENCH_REEXEC) {
      log(`raising ulimit -n from ${lim.soft} to ${clientFdNeed} (re-running through sh)`);
      const r = spawnSync('sh', ['-c', `ulimit -n ${clientFdNeed} && exec "$0" "$@"`,
        process.execPath, __filename, ...process.argv.slice(2)],
      { stdio: 'inherit', env: Object.assign({}, process.env, { TESSERA_BENCH_REEXEC: '1' }) });
      process.exit(r.status === null ? 1 : r.status);
    }
    console.error(`load.js: ${2 * total} connections need ulimit -n >= ${clientFdNeed} ` +
      `(now ${lim.soft}, hard limit ${lim.hard}): raise it (ulimit -n ${clientFdNeed}) or use fewer matches`);
    process.exit(2);
  }
  if (lim.hard < fdNeed) log(`warning: hard fd limit ${lim.hard} < ${fdNeed} needed by the server`);

  const dir = fs.mkdtempSync(path.join(opts.dbDir, 'tessera-bench-'));
  const srv = startServer(opts, dir, maxConns, fdNeed);
  const shards = [];
  let failed = null;
  const cleanup = async () => {
    for (const s of shards) s.kill();
    await stopServer(srv);
    fs.rmSync(dir, { recursive: true, force: true });
  };
  process.on('SIGINT', () => {
    cleanup().then(() => process.exit(130));
  });

  try {
    const port = await waitPort(srv);
    srv.pid = serverPid(srv);
    const url = `ws://127.0.0.1:${port}/`;
    log(`server pid ${srv.pid} on ${url}; ${N} matches + ${K} timeout matches, ${W} client process(es)`);

    /* shards: whole matches dealt round-robin */
    const cfg = {
      game: opts.game, moveMs: opts.moveMs, timeoutMoveMs: opts.timeoutMoveMs,
      moveDelayMs: opts.moveDelayMs, fixedDelay: opts.fixedDelay, connectConcurrency: Math.max(1, Math.floor(opts.connectConcurrency / W)),
      protocol: opts.protocol, seatsPerConn: opts.seatsPerConn, info: opts.info, infoPaced: opts.infoPaced, infoInline: opts.infoInline,
      watchers: opts.watchers,
    };
    /* --warmup: K matches played to the end first, unmeasured, in this
     * process; their connections closed before the measured ones open */
    let warm = null;
    if (opts.warmup > 0) {
      warm = await warmUp(url, cfg, opts.warmup, opts.durationS * 1000);
      log(`warm-up: ${opts.warmup} matches, ${warm.turns} turns in ${fmt(warm.playMs / 1000, 2)} s`);
    }
    const specs = Array.from({ length: W }, () => []);
    for (let i = 0; i < total; i++) specs[i % W].push({ idx: i, timeout: i >= N });
    const inbox = new EventEmitter();
    for (let w = 0; w < W; w++) {
      const s = W === 1 ? localShard() : childShard(clientFdNeed);
      s.on('message', (m) => inbox.emit(m.ev, w, m));
      shards.push(s);
    }
    inbox.on('fatal', (w, m) => {
      failed = failed || `client ${w}: ${m.error}`;
      inbox.emit('abort');
    });
    /* a server that dies under load is a finding, not something to wait out */
    srv.exitPromise.then((x) => {
      if (srv.stopping) return;
      failed = failed || `the server exited during the run (${x.code !== null ? `status ${x.code}` : `signal ${x.sig}`}): ` +
        (srv.stderrTail.concat(srv.warnSamples).slice(-3).join(' | ') || 'no message');
      inbox.emit('abort');
    });
    const waitAll = (ev, timeoutMs) => new Promise((resolve, reject) => {
      const got = new Array(W).fill(null);
      let n = 0, timer = null;
      const onEv = (w, m) => {
        if (got[w]) return;
        got[w] = m;
        if (++n === W) done(null);
      };
      const onAbort = () => done(new Error(failed));
      const done = (err) => {
        inbox.off(ev, onEv);
        inbox.off('abort', onAbort);
        if (timer) clearTimeout(timer);
        if (err) reject(err);
        else resolve(got);
      };
      inbox.on(ev, onEv);
      inbox.on('abort', onAbort);
      if (failed) onAbort();
      if (timeoutMs) timer = setTimeout(() => done(null), timeoutMs);
    });

    /* setup: create the matches, open and greet every seat connection */
    const tSetup = performance.now();
    const readyP = waitAll('ready');
    shards.forEach((s, w) => s.send({ cmd: 'setup', url, matches: specs[w], cfg }));
    const ready = await readyP;
    const setupMs = performance.now() - tSetup;
    const conns = ready.reduce((a, r) => a + r.connections, 0);
    log(`setup done in ${fmt(setupMs / 1000, 2)} s: ${conns} connections open`);

    /* play: every seat joins at once; the match starts when its second seat joins */
    let finished = 0, finishedTimeout = 0;
    inbox.on('finished', (w, m) => {
      finished++;
      if (m.timeout) finishedTimeout++;
    });
    const load0 = os.loadavg();
    const srvSplit0 = procCpuSplit(srv.pid);
    const srvCpu0 = srvSplit0 ? srvSplit0.user + srvSplit0.sys : null;
    const srvSw0 = procSwitches(srv.pid);
    const srvSched0 = procSched(srv.pid);
    const psi0 = cpuPressure();
    const tGo = performance.now();
    const progress = setInterval(() => {
      log(`${fmt((performance.now() - tGo) / 1000, 0)} s: ${finished - finishedTimeout}/${N} matches ` +
        `finished, ${finishedTimeout}/${K} timeout matches`);
    }, 5000);
    const normalP = waitAll('normalDone', opts.durationS * 1000);
    const allP = waitAll('allDone', opts.durationS * 1000);
    shards.forEach((s) => s.send({ cmd: 'go' }));
    const normal = await normalP.catch((e) => {
      throw new Error(`${e.message} (after ${fmt((performance.now() - tGo) / 1000, 1)} s of play, ` +
        `${finished - finishedTimeout}/${N} matches finished)`);
    });
    const tNormal = performance.now();
    const srvSplit1 = procCpuSplit(srv.pid);
    const srvCpu1 = srvSplit1 ? srvSplit1.user + srvSplit1.sys : null;
    const srvSw1 = procSwitches(srv.pid);
    const srvSched1 = procSched(srv.pid);
    const psi1 = cpuPressure();
    await allP.then((all) => all, () => null);
    const tAll = performance.now();
    clearInterval(progress);
    const timedOut = normal.some((x) => !x);

    /* collect the clients' figures, then stop the server and read its stats */
    const resP = waitAll('results');
    shards.forEach((s, w) => s.send({ cmd: 'collect', serverStats: w === 0 }));
    const res = await resP;
    const load1 = os.loadavg();
    await stopServer(srv);
    const closedP = waitAll('closed', 5000);
    shards.forEach((s) => s.send({ cmd: 'close' }));
    await closedP.catch(() => null);
    for (const s of shards) s.kill();

    /* ---- the report ---- */
    /* the stats line logged at SIGTERM; the live server_stats reply if it is missing */
    const live = res[0].serverStats;
    const st = srv.stats || (live ? Object.assign({}, live, { type: undefined }) : null);
    const rtt = summary([].concat(...res.map((r) => r.rtt)));
    const gap = summary([].concat(...res.map((r) => r.gap)));
    const acceptedLate = summary([].concat(...res.map((r) => r.acceptedLate)));
    const terr = summary([].concat(...res.map((r) => r.timeoutErr)));
    const sum = (k) => res.reduce((a, r) => a + r[k], 0);
    const turnsNormal = sum('turnsNormal'), turnsTimeout = sum('turnsTimeout');
    const playMs = tNormal - tGo;
    const reasons = {}, errors = {}, bytes = {};
    for (const r of res) {
      for (const [k, v] of Object.entries(r.bytes)) bytes[k] = (bytes[k] || 0) + v;
      for (const [k, v] of Object.entries(r.reasons)) reasons[k] = (reasons[k] || 0) + v;
      for (const [k, v] of Object.entries(r.errors)) errors[k] = (errors[k] || 0) + v;
    }
    const genCpuPlayMs = sum('cpuPlayMs');
    const genCpuPct = res.map((r) => (100 * r.cpuPlayMs) / Math.max(1, r.playMs));
    const srvCpuPct = srvCpu0 !== null && srvCpu1 !== null ? (100 * (srvCpu1 - srvCpu0)) / playMs : null;
    const unfinished = sum('unfinished');
    const report = {
      date: new Date().toISOString(),
      host: {
        cpus: os.cpus().length, loadavg_start: load0, loadavg_end: load1, node: process.version,
        cpu_pressure_start: psi0, cpu_pressure_end: psi1,
      },
      config: {
        matches: N, timeout_matches: K, game: opts.game, move_delay_ms: opts.moveDelayMs,
        fixed_delay: opts.fixedDelay, move_ms: opts.moveMs, timeout_move_ms: opts.timeoutMoveMs, workers: W,
        protocol: opts.protocol, durable: opts.durable, seats_per_conn: opts.seatsPerConn,
        info: opts.info, info_paced: opts.infoPaced, info_inline: opts.infoInline, watchers: opts.watchers,
        max_conns: maxConns,
      },
      ok: !failed && !timedOut && unfinished === 0,
      connections: conns,
      setup_s: setupMs / 1000,
      play_s: playMs / 1000,
      total_s: (tAll - tGo) / 1000,
      matches_finished: finished,
      unfinished,
      results: reasons,
      turns: turnsNormal,
      turns_timeout_matches: turnsTimeout,
      moves_per_s: turnsNormal / (playMs / 1000),
      server_moves: st ? st.moves : null,
      bytes_received: bytes,
      bytes_per_turn: Object.values(bytes).reduce((a, b) => a + b, 0) / Math.max(1, turnsNormal + turnsTimeout),
      server_overhead_us: st ? overheadAfter(st.overhead, warm && warm.overhead) : null,
      warmup: warm ? { matches: opts.warmup, turns: warm.turns, play_s: warm.playMs / 1000 } : null,
      client_rtt_ms: rtt,
      client_update_to_your_turn_ms: gap,
      timeouts: sum('timeouts'),
      answering_seat_timeouts: sum('lateAnswers'),
      answering_seat_late_moves: sum('lateMoves'),
      server_timeout_late_us: st && st.timeout_late.count ? { count: st.timeout_late.count, p50: st.timeout_late.p50_us, p99: st.timeout_late.p99_us, max: st.timeout_late.max_us } : null,
      client_timeout_error_ms: terr,
      moves_accepted_after_deadline_ms: acceptedLate,
      server_rss_peak_kb: st ? st.rss_peak_kb : null,
      server_cpu_pct: srvCpuPct,
      server_cpu_us_per_move: srvCpu0 !== null && srvCpu1 !== null && turnsNormal
        ? (1000 * (srvCpu1 - srvCpu0)) / turnsNormal : null,
      /* the same, split: user space and kernel (system calls) */
      server_cpu_us_per_move_split: srvSplit0 && srvSplit1 && turnsNormal ? {
        user: (1000 * (srvSplit1.user - srvSplit0.user)) / turnsNormal,
        sys: (1000 * (srvSplit1.sys - srvSplit0.sys)) / turnsNormal,
      } : null,
      server_runqueue_wait_pct: srvSched0 && srvSched1 ? (100 * (srvSched1.wait - srvSched0.wait)) / playMs : null,
      server_ctxt_switches: srvSw0 && srvSw1 ? {
        voluntary: srvSw1.voluntary - srvSw0.voluntary,
        involuntary: srvSw1.involuntary - srvSw0.involuntary,
      } : null,
      generator: {
        cpu_ms: genCpuPlayMs,
        cpu_pct_per_process: genCpuPct,
        runqueue_wait_pct_per_process: res.map((r) => (r.waitMs === null ? null : (100 * r.waitMs) / Math.max(1, r.playMs))),
        loop_delay_p99_ms: Math.max(...res.map((r) => r.loopDelayP99Ms || 0)),
        loop_delay_max_ms: Math.max(...res.map((r) => r.loopDelayMaxMs || 0)),
        rss_kb: res.map((r) => r.rssKb),
        saturated: genCpuPct.some((p) => p > 85),
      },
      client_errors: errors,
      client_error_samples: [].concat(...res.map((r) => r.errorSamples)).slice(0, 5),
      unexpected_closes: sum('unexpectedCloses'),
      server_warnings: srv.warnings,
      server_warning_samples: srv.warnSamples,
      server_stats: st,
      server_stats_source: srv.stats ? 'log line at SIGTERM' : live ? 'server_stats message' : 'none',
      server_stats_live: live,
      server_exit: srv.exited,
      journal_syncs: srv.syncs ? {
        syncs: srv.syncs.syncs, commits: srv.syncs.commits,
        most_commits_per_sync: srv.syncs.most_commits_per_sync, mean_sync_ms: srv.syncs.mean_sync_ms,
      } : null,
    };
    if (failed) report.error = failed;
    if (timedOut) report.error = `not finished after --duration-s ${opts.durationS}`;
    printTable(report);
    if (opts.json) console.log(JSON.stringify(report));
    fs.rmSync(dir, { recursive: true, force: true });
    process.exit(report.ok ? 0 : 1);
  } catch (e) {
    console.error(`load.js: ${e.message}`);
    await stopServer(srv);
    const report = {
      date: new Date().toISOString(), ok: false, error: e.message,
      config: { matches: N, timeout_matches: K, workers: W, max_conns: maxConns },
      server_stats: srv.stats, server_warnings: srv.warnings, server_warning_samples: srv.warnSamples,
      server_exit: srv.exited, loadavg: os.loadavg(),
    };
    if (srv.warnSamples.length) console.error(`server said: ${srv.warnSamples.join('\n  ')}`);
    if (opts.json) console.log(JSON.stringify(report));
    for (const s of shards) s.kill();
    fs.rmSync(dir, { recursive: true, force: true });
    process.exit(1);
  }
}

function printTable(r) {
  const rows = [];
  const row = (k, v) => rows.push([k, v]);
  const o = r.server_overhead_us, t = r.server_timeout_late_us, c = r.client_timeout_error_ms;
  const psi = (p) => (p ? `, CPU pressure ${p.avg10} %` : '');
  row('date', `${r.date} (load avg ${r.host.loadavg_start.map((x) => x.toFixed(2)).join(' ')}${psi(r.host.cpu_pressure_start)} at start, ` +
    `${r.host.loadavg_end.map((x) => x.toFixed(2)).join(' ')}${psi(r.host.cpu_pressure_end)} at end; ${r.host.cpus} cpus)`);
  row('matches', `${r.config.matches} x 2 remote random bots (${r.config.game}, move delay ` +
    `${r.config.move_delay_ms ? `${r.config.fixed_delay ? '' : 'mean '}${r.config.move_delay_ms} ms` : '0'}) + ` +
    `${r.config.timeout_matches} timeout matches; ${r.connections} connections`);
  row('finished', `${r.matches_finished} (${Object.entries(r.results).map(([k, v]) => `${k} ${v}`).join(', ') || 'none'})` +
    (r.unfinished ? `, ${r.unfinished} UNFINISHED` : ''));
  row('setup (create+connect)', `${fmt(r.setup_s, 2)} s`);
  row('play wall time', `${fmt(r.play_s, 2)} s (all matches incl. timeout ones: ${fmt(r.total_s, 2)} s)`);
  row('turns', `${r.turns} (+${r.turns_timeout_matches} in timeout matches; server counted ${r.server_moves} moves)`);
  row('moves per second', fmt(r.moves_per_s, 0));
  row('bytes to clients', `${fmt(r.bytes_per_turn / 1024, 1)} KiB per turn (` +
    Object.entries(r.bytes_received).sort((a, b) => b[1] - a[1]).slice(0, 3)
      .map(([k, v]) => `${k} ${fmt((100 * v) / Object.values(r.bytes_received).reduce((a, b) => a + b, 0), 0)} %`)
      .join(', ') + ')');
  /* the server's histograms have 1 us buckets up to 20 ms (server/internal.h
   * STAT_BUCKETS); a percentile beyond that reads as the max */
  const hs = (h) => ['p50', 'p99'].map((k) => `${k} ${h[k] === h.max && h.max >= HIST_TOP_US ? `>${HIST_TOP_US}` : h[k]} us`).join(', ') +
    `, max ${h.max} us (n=${h.count})`;
  row('server overhead/move', o ? `mean ${fmt(o.mean, 2)} us, ` + hs(o) +
    (o.percentiles_include_warmup ? ' (percentiles and max include the warm-up)' : '') : '- (no stats line)');
  if (r.warmup) row('warm-up (unmeasured)', `${r.warmup.matches} matches, ${r.warmup.turns} turns in ${fmt(r.warmup.play_s, 2)} s`);
  row('client round trip/move', `p50 ${fmt(r.client_rtt_ms.p50, 2)} ms, p99 ${fmt(r.client_rtt_ms.p99, 2)} ms, ` +
    `max ${fmt(r.client_rtt_ms.max, 2)} ms (n=${r.client_rtt_ms.count})`);
  const gp = r.client_update_to_your_turn_ms;
  row('  of which update->your_turn', `p50 ${fmt(gp.p50, 2)} ms, p99 ${fmt(gp.p99, 2)} ms, max ${fmt(gp.max, 2)} ms ` +
    '(the two messages the server queues back to back for the seat to move)');
  row('timeout late (server)', t ? hs(t) : '-');
  row('timeout error (client)', c.count ? `p50 ${fmt(c.p50, 2)} ms, p99 ${fmt(c.p99, 2)} ms, max ${fmt(c.max, 2)} ms (n=${c.count})` +
    (r.answering_seat_timeouts ? `; ${r.answering_seat_timeouts} of them were the answering bot, too slow under load` : '') : '-');
  const al = r.moves_accepted_after_deadline_ms;
  if (al.count)
    row('late moves accepted', `${al.count} moves sent after their deadline were accepted (by p50 ${fmt(al.p50, 1)} ms, ` +
      `max ${fmt(al.max, 1)} ms past it): the timer had not fired yet`);
  if (r.journal_syncs) {
    const j = r.journal_syncs;
    row('--durable syncs', `${j.syncs} fsyncs for ${j.commits} commits (${fmt(j.commits / Math.max(1, j.syncs), 1)} per sync, ` +
      `at most ${j.most_commits_per_sync}); mean sync ${fmt(j.mean_sync_ms, 2)} ms`);
  }
  row('server peak RSS', r.server_rss_peak_kb !== null ? `${fmt(r.server_rss_peak_kb / 1024, 1)} MiB` : '-');
  const sw = r.server_ctxt_switches;
  row('server CPU (play)', r.server_cpu_pct !== null ? `${fmt(r.server_cpu_pct, 0)} % of one core, ` +
    `${fmt(r.server_cpu_us_per_move, 0)} us CPU per move` +
    (r.server_cpu_us_per_move_split ? ` (${fmt(r.server_cpu_us_per_move_split.user, 0)} user, ` +
      `${fmt(r.server_cpu_us_per_move_split.sys, 0)} system)` : '') +
    (sw ? `; preempted ${sw.involuntary} times, ${sw.voluntary} voluntary switches` : '') : '-');
  if (r.server_runqueue_wait_pct !== null)
    row('server waited for a CPU', `${fmt(r.server_runqueue_wait_pct, 0)} % of the play time (runnable, not running: other processes had the cores)`);
  if (r.server_cpu_us_per_move)
    row('server capacity (est.)', `${fmt(1e6 / r.server_cpu_us_per_move, 0)} moves/s if it had one core to itself`);
  const g = r.generator;
  row('generator CPU (play)', `${g.cpu_pct_per_process.map((p) => `${fmt(p, 0)} %`).join(' + ')} of one core, ` +
    `waited for a CPU ${g.runqueue_wait_pct_per_process.map((p) => `${fmt(p, 0)} %`).join(' + ')} ` +
    `(event loop delay p99 ${fmt(g.loop_delay_p99_ms, 1)} ms, max ${fmt(g.loop_delay_max_ms, 1)} ms)` +
    (g.saturated ? '  <- SATURATED: use --workers' : ''));
  const errs = Object.entries(r.client_errors);
  if (errs.length || r.unexpected_closes)
    row('client errors', `${errs.map(([k, v]) => `${k} ${v}`).join(', ')}; unexpected closes ${r.unexpected_closes}`);
  const warns = Object.entries(r.server_warnings);
  if (warns.length) row('server warnings', warns.map(([k, v]) => `${k} ${v}`).join(', '));
  if (r.error) row('ERROR', r.error);
  const w = Math.max(...rows.map((x) => x[0].length));
  console.log(rows.map(([k, v]) => `${k.padEnd(w)}  ${v}`).join('\n'));
  for (const s of r.client_error_samples) console.log(`  client error: ${s}`);
  for (const s of r.server_warning_samples) console.log(`  server: ${s}`);
}

if (process.env.TESSERA_BENCH_SHARD === '1') shardChildMain();
else main().catch((e) => {
  console.error(`load.js: ${e.stack || e}`);
  process.exit(1);
});
