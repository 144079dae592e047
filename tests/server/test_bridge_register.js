'use strict';
/*
 * test_bridge_register.js — `tessera bridge --register` (docs/botclient.md,
 * contract 3 of the registered remote bots) against a stand-in for the
 * server side of registration: a small proxy (RegisterFake below) that
 * speaks `register`/`registered`/`unregister` to the bridge as the contract
 * says, seats the registered name in real matches of a real `tessera serve`
 * (one upstream connection per seat, messages relayed both ways), and
 * re-attaches the live seats with `resumed` when the name registers again.
 * The games themselves — rules, clocks, records — are the real server's.
 *
 * What the bridge must do: register with its name, secret and capacity;
 * take every seat it is given (unsolicited `joined`), up to `capacity` at
 * once, each with a program of its own; send think_ms with its moves;
 * register again after a dropped connection and play its games to the end;
 * stop taking games on SIGINT and finish those it has; exit 1 on a wrong
 * secret or when another connection takes the name over.
 *
 * Once the real server side of registration is merged, the same checks
 * should run against it (tests of the server helper); this file keeps the
 * client honest until then.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { WebSocket, Server, Client, SLOW, ROOT, binary, sleep, createMatch } = require('./lib');

const bin = binary();
const PY = path.join(ROOT, 'docs', 'examples', 'stdio_bot.py');

/* ---- the stand-in for the server side of registration -------------------------- */

class RegisterFake {
  constructor(upstream) {
    this.upstream = upstream; /* the real server's ws:// URL */
    this.names = new Map();   /* name -> {secret, conn, capacity, registrations} */
    this.seats = [];          /* {name, match, seat, up, resume, over, game} */
    this.moves = [];          /* every move a bridge sent, as sent */
    this.events = [];         /* what happened, for messages on failure */
  }

  async start() {
    this.wss = new WebSocket.Server({ port: 0, host: '127.0.0.1' });
    await new Promise((r) => this.wss.on('listening', r));
    this.url = `ws://127.0.0.1:${this.wss.address().port}/`;
    this.wss.on('connection', (ws) => this._bridge(ws));
    this.host = await Client.connect(this.upstream, { name: 'fake-host' });
    return this;
  }

  async stop() {
    for (const s of this.seats)
      s.up.terminate();
    this.host.close();
    for (const ws of this.wss.clients)
      ws.terminate();
    await new Promise((r) => this.wss.close(r));
  }

  _send(ws, msg) {
    if (ws && ws.readyState === WebSocket.OPEN)
      ws.send(JSON.stringify(msg));
  }

  _bridge(ws) {
    ws.on('message', (data) => {
      let m;
      try {
        m = JSON.parse(data.toString());
      } catch {
        return;
      }
      const reply = (obj) => this._send(ws, m.id !== undefined ? { ...obj, id: m.id } : obj);
      switch (m.type) {
      case 'hello':
        reply({ type: 'welcome', protocol: 1, server: 'register-fake', capabilities: ['play', 'register'],
          limits: { max_message_bytes: 65536, messages_per_second: 50, burst: 100 } });
        break;
      case 'register': {
        const n = this.names.get(m.name);
        if (n && n.secret !== m.secret) {
          reply({ type: 'error', code: 'bad_token', message: 'wrong secret for ' + m.name });
          return;
        }
        const entry = n || { secret: m.secret, registrations: 0 };
        if (entry.conn && entry.conn !== ws && entry.conn.readyState === WebSocket.OPEN)
          this._send(entry.conn, { type: 'error', code: 'registration_taken',
            message: 'another connection registered as ' + m.name });
        entry.conn = ws;
        entry.capacity = m.capacity || 1;
        entry.games = m.games;
        entry.registrations++;
        entry.unregistered = false;
        this.names.set(m.name, entry);
        ws.regName = m.name;
        this.events.push(`register ${m.name} capacity ${entry.capacity}`);
        reply({ type: 'registered', name: m.name, capacity: entry.capacity });
        for (const s of this.seats)
          if (s.name === m.name && !s.over)
            s.up.send(JSON.stringify({ type: 'resume', resume_token: s.resume })); /* -> resumed */
        break;
      }
      case 'unregister': {
        const n = this.names.get(ws.regName);
        if (n)
          n.unregistered = true;
        this.events.push('unregister ' + ws.regName);
        reply({ type: 'unregistered' });
        break;
      }
      case 'move':
      case 'resign':
      case 'resume': {
        const s = m.type === 'resume' ? this.seats.find((x) => x.resume === m.resume_token)
          : this.seats.find((x) => x.match === m.match && x.name === ws.regName &&
            (m.seat === undefined || x.seat === m.seat));
        if (!s) {
          reply({ type: 'error', code: 'unknown_match', message: 'no such seat here' });
          return;
        }
        if (m.type === 'move')
          this.moves.push({ ...m, name: ws.regName });
        if (m.type === 'move' && this.oldServer && m.think_ms !== undefined) {
          /* a server from before think_ms refuses the field; the refusal
           * comes late, so that moves of several games are in flight */
          this.refused = (this.refused || 0) + 1;
          setTimeout(() => reply({ type: 'error', code: 'bad_message',
            message: 'move: unknown field "think_ms"' }), 300);
          return;
        }
        const up = { ...m };
        delete up.think_ms; /* the real server may not take it yet */
        s.up.send(JSON.stringify(up));
        break;
      }
      default:
        reply({ type: 'error', code: 'unknown_type', message: 'the fake does not do ' + m.type });
      }
    });
  }

  /* Seat `name` in a new match of `game` against an in-process bot (or, with
   * opponent null, in both seats); resolves with the match id once the
   * bridge has been sent `joined`. */
  async seat(name, { game = 'carcassonne', opponent = 'random', seat = 1, moveMs = 5000 } = {}) {
    const both = opponent === null;
    const other = both ? { open: true } : { bot: opponent };
    const seats = seat === 0 ? [{ open: true }, other] : [other, { open: true }];
    const { match, tokens } = await createMatch(this.host, seats, {
      game, time_control: { move_ms: moveMs },
      policies: { disconnect: 'forfeit', reconnect_grace_ms: 20000 },
    });
    if (both) {
      await Promise.all([this._join(name, game, match, 0, tokens), this._join(name, game, match, 1, tokens)]);
      return match;
    }
    return this._join(name, game, match, seat, tokens);
  }

  _join(name, game, match, seat, tokens) {
    const up = new WebSocket(this.upstream);
    const s = { name, match, seat, up, resume: null, over: false, game };
    this.seats.push(s);
    const joined = new Promise((resolve, reject) => {
      up.on('message', (data) => {
        const m = JSON.parse(data.toString());
        if (m.type === 'welcome') {
          up.send(JSON.stringify({ type: 'join', id: 'j', match, seat, token: tokens[seat] }));
          return;
        }
        if (m.type === 'joined' || m.type === 'resumed') {
          s.resume = m.resume_token;
          delete m.id; /* unsolicited, for the bridge */
          if (m.type === 'joined')
            resolve(match);
        }
        if (m.type === 'game_over')
          s.over = true;
        if (m.type === 'error' && m.id === 'j')
          reject(new Error('join failed: ' + JSON.stringify(m)));
        const conn = this.names.get(name) && this.names.get(name).conn;
        this._send(conn, m);
      });
      up.on('open', () => up.send(JSON.stringify({ type: 'hello', protocol: 1, client: 'fake-seat' })));
      up.on('error', reject);
    });
    this.events.push(`seat ${name} in ${game} match ${match} seat ${seat}`);
    return joined;
  }


  /* Cut the bridge's connection of `name` (no close frame). */
  dropBridge(name) {
    const n = this.names.get(name);
    if (n && n.conn)
      n.conn.terminate();
  }

  live(name) {
    return this.seats.filter((s) => s.name === name && !s.over).length;
  }
}

/* ---- the bridge process ------------------------------------------------------------ */

function startBridge(url, args) {
  const p = spawn(bin, ['bridge', '--url', url, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const out = { stdout: '', stderr: '', code: null, signal: null };
  p.stdout.on('data', (d) => (out.stdout += d));
  p.stderr.on('data', (d) => (out.stderr += d));
  out.exited = new Promise((resolve) => p.on('exit', (code, signal) => {
    out.code = code;
    out.signal = signal;
    resolve(out);
  }));
  out.proc = p;
  return out;
}

async function waitFor(pred, what, timeout = 20000 * SLOW) {
  const t0 = Date.now();
  while (!pred()) {
    if (Date.now() - t0 > timeout)
      throw new Error('timed out waiting for ' + what);
    await sleep(20);
  }
}

async function exitWithin(b, ms = 60000 * SLOW) {
  let timer;
  const t = new Promise((_, rej) => {
    timer = setTimeout(() => rej(new Error('the bridge did not exit:\n' + b.stderr.slice(-3000))), ms);
  });
  try {
    return await Promise.race([b.exited, t]);
  } finally {
    clearTimeout(timer);
  }
}

const results = (b) => b.stdout.split('\n').filter((l) => l.startsWith('game over:'));

async function setup(t) {
  const srv = await Server.start({ tag: 'bridgereg' });
  const fake = await new RegisterFake(srv.url).start();
  t.after(async () => {
    await fake.stop();
    await srv.cleanup();
  });
  return fake;
}

test('registered: every game it is given, two at once, each with its own program; think_ms', async (t) => {
  const fake = await setup(t);
  const b = startBridge(fake.url, ['--register', 'alice', '--secret', 'alice-secret-1', '--capacity', '2',
    '--max-games', '3', '--', 'python3', PY]);
  t.after(() => b.proc.kill('SIGKILL'));
  await waitFor(() => fake.names.get('alice'), 'the registration');
  assert.equal(fake.names.get('alice').capacity, 2);
  assert.equal(fake.names.get('alice').secret, 'alice-secret-1');
  /* two games at once (a Carcassonne and a Reversi), then a third as one ends */
  const m1 = await fake.seat('alice', { game: 'carcassonne', opponent: 'mcts:ms=20' });
  const m2 = await fake.seat('alice', { game: 'reversi', opponent: 'random', seat: 0 });
  await waitFor(() => fake.live('alice') < 2, 'a game to end');
  const m3 = await fake.seat('alice', { game: 'carcassonne', opponent: 'heuristic', seat: 0 });
  const r = await exitWithin(b);
  assert.equal(r.code, 0, r.stderr.slice(-3000));
  const lines = results(b);
  assert.equal(lines.length, 3, b.stdout);
  for (const m of [m1, m2, m3])
    assert.ok(lines.some((l) => l.includes(' match=' + m + ' ') && l.includes('reason=normal')),
      `no normal result for ${m}: ${lines.join('\n')}`);
  assert.ok(lines.some((l) => l.includes(`match=${m2} seat=0`)), lines.join('\n'));
  assert.match(b.stderr, /registered as alice \(capacity 2\)/);
  assert.match(b.stderr, /3 games played; stopping/);
  /* each game had a program of its own: three starts, three "seat N of a ..." */
  assert.equal((b.stderr.match(/stderr\| seat \d of a (carcassonne|reversi) game/g) || []).length, 3, b.stderr);
  /* the moves went out with the program's CPU time and the seat */
  assert.ok(fake.moves.length > 40, 'moves: ' + fake.moves.length);
  for (const mv of fake.moves) {
    assert.ok(Number.isInteger(mv.think_ms) && mv.think_ms >= 0 && mv.think_ms <= 86400000,
      'think_ms ' + JSON.stringify(mv));
    assert.ok(Number.isInteger(mv.seat) && typeof mv.match === 'string', JSON.stringify(mv));
  }
});

test('registered: both seats of one match, a program each; table messages reach both', async (t) => {
  const fake = await setup(t);
  const b = startBridge(fake.url, ['--register', 'erin', '--secret', 'erin-secret-55', '--capacity', '2',
    '--max-games', '2', '--', 'python3', PY]);
  t.after(() => b.proc.kill('SIGKILL'));
  await waitFor(() => fake.names.get('erin'), 'the registration');
  const m = await fake.seat('erin', { game: 'reversi', opponent: null });
  const r = await exitWithin(b);
  assert.equal(r.code, 0, r.stderr.slice(-3000));
  const lines = results(b);
  assert.equal(lines.length, 2, b.stdout);
  assert.ok(lines.some((l) => l.includes(`match=${m} seat=0`)) && lines.some((l) => l.includes(`match=${m} seat=1`)),
    lines.join('\n'));
  assert.equal(new Set(lines.map((l) => l.replace(/ seat=\d$/, ''))).size, 1, 'the two seats saw different ends');
  assert.ok(lines.every((l) => /reason=normal/.test(l)), lines.join('\n'));
  assert.equal((b.stderr.match(/stderr\| seat \d of a reversi game/g) || []).length, 2, b.stderr);
  assert.doesNotMatch(b.stderr, /error/, b.stderr.slice(-2000));
});

test('registered: a server that refuses think_ms gets every game\'s move again without it', async (t) => {
  const fake = await setup(t);
  fake.oldServer = true;
  const b = startBridge(fake.url, ['--register', 'frank', '--secret', 'frank-secret-6', '--capacity', '2',
    '--max-games', '2', '--', 'python3', PY]);
  t.after(() => b.proc.kill('SIGKILL'));
  await waitFor(() => fake.names.get('frank'), 'the registration');
  /* two games where the bot moves first: both first moves leave with
   * think_ms before the first refusal comes back */
  const [m1, m2] = await Promise.all([
    fake.seat('frank', { game: 'carcassonne', opponent: 'random', seat: 0, moveMs: 4000 }),
    fake.seat('frank', { game: 'reversi', opponent: 'random', seat: 0, moveMs: 4000 }),
  ]);
  const r = await exitWithin(b);
  assert.equal(r.code, 0, r.stderr.slice(-3000));
  assert.equal(fake.refused, 2, 'refusals: ' + fake.refused);
  for (const m of [m1, m2])
    assert.match(b.stdout, new RegExp(`game over: reason=normal .* match=${m} seat=0`), b.stdout);
  assert.equal((b.stderr.match(/does not take think_ms/g) || []).length, 1, b.stderr);
  const later = fake.moves.filter((x) => x.think_ms === undefined);
  assert.ok(later.length > 20, 'moves without think_ms: ' + later.length);
});

test('registered: a dropped connection registers again; the live game is given back and ends', async (t) => {
  const fake = await setup(t);
  const b = startBridge(fake.url, ['--register', 'bob', '--secret', 'bob-secret-22', '--max-games', '1',
    '--', 'python3', PY]);
  t.after(() => b.proc.kill('SIGKILL'));
  await waitFor(() => fake.names.get('bob'), 'the registration');
  const m = await fake.seat('bob', { game: 'carcassonne', opponent: 'mcts:ms=40' });
  await waitFor(() => fake.moves.filter((x) => x.match === m).length >= 4, 'four moves');
  fake.dropBridge('bob');
  const r = await exitWithin(b);
  assert.equal(r.code, 0, r.stderr.slice(-3000));
  assert.equal(fake.names.get('bob').registrations, 2, fake.events.join('\n'));
  assert.match(b.stderr, new RegExp(`resumed match ${m} as seat 1`));
  assert.match(results(b)[0] || '', /reason=normal .* turns=71 /);
  /* one program for the whole game: it was not restarted by the reconnect */
  assert.equal((b.stderr.match(/stderr\| seat 1 of a carcassonne game/g) || []).length, 1, b.stderr);
});

test('registered: SIGINT stops new games and finishes the live one; exit 0', async (t) => {
  const fake = await setup(t);
  const b = startBridge(fake.url, ['--register', 'carol', '--secret', 'carol-secret-3', '--', 'python3', PY]);
  t.after(() => b.proc.kill('SIGKILL'));
  await waitFor(() => fake.names.get('carol'), 'the registration');
  const m = await fake.seat('carol', { game: 'carcassonne', opponent: 'mcts:ms=40' });
  await waitFor(() => fake.moves.filter((x) => x.match === m).length >= 2, 'two moves');
  b.proc.kill('SIGINT');
  const r = await exitWithin(b);
  assert.equal(r.code, 0, r.stderr.slice(-3000));
  assert.ok(fake.names.get('carol').unregistered, 'no unregister: ' + fake.events.join('\n'));
  assert.match(b.stderr, /no new games; finishing the 1 being played/);
  assert.match(results(b)[0] || '', new RegExp(`reason=normal .* turns=71 match=${m} `));
});

test('registered: a wrong secret and a take-over end the bridge with exit 1', async (t) => {
  const fake = await setup(t);
  const first = startBridge(fake.url, ['--register', 'dave', '--secret', 'dave-secret-4', '--', 'python3', PY]);
  t.after(() => first.proc.kill('SIGKILL'));
  await waitFor(() => fake.names.get('dave'), 'the registration');
  const wrong = startBridge(fake.url, ['--register', 'dave', '--secret', 'not-daves-secret', '--', 'python3', PY]);
  const rw = await exitWithin(wrong, 20000 * SLOW);
  assert.equal(rw.code, 1, rw.stderr);
  assert.match(rw.stderr, /cannot register as dave: bad_token: wrong secret/);
  const second = startBridge(fake.url, ['--register', 'dave', '--secret', 'dave-secret-4', '--max-games', '1',
    '--', 'python3', PY]);
  t.after(() => second.proc.kill('SIGKILL'));
  const r1 = await exitWithin(first, 20000 * SLOW);
  assert.equal(r1.code, 1, r1.stderr);
  assert.match(r1.stderr, /another connection registered as dave/);
  /* the newcomer plays */
  await waitFor(() => fake.names.get('dave').registrations === 2, 'the second registration');
  await fake.seat('dave', { game: 'reversi', opponent: 'random' });
  const r2 = await exitWithin(second);
  assert.equal(r2.code, 0, r2.stderr.slice(-2000));
  assert.match(results(second)[0] || '', /reason=normal/);
});
