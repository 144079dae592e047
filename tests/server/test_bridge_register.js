'use strict';
/*
 * test_bridge_register.js — `tessera bridge --register` (docs/botclient.md,
 * contract 3 of the registered remote bots) against the real server side
 * of registration: a `tessera serve` with its admin token seats the
 * registered name in real matches (`remote:NAME` seats), re-attaches its
 * live seats with `resumed` when it registers again, refuses a wrong
 * secret and hands the name over to a second connection.
 *
 * The bridge reaches the server through a transparent relay (Relay below)
 * that passes every message on unchanged and only watches: which moves the
 * bridge sent (think_ms, seat, match), what it registered, which seats it
 * was given and which games ended for it. One test makes the relay act as
 * a server from before think_ms (contract 2), refusing every move that
 * carries it, for the bridge's fallback that such servers still need.
 *
 * What the bridge must do: register with its name, secret and capacity;
 * take every seat it is given (unsolicited `joined`), up to `capacity` at
 * once, each with a program of its own; send think_ms with its moves, which
 * the server keeps in its records; register again after a dropped
 * connection and play its games to the end — a server tournament's as
 * well as a match an admin made; stop taking games on SIGINT
 * and finish those it has; exit 1 on a wrong secret or when another
 * connection takes the name over.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { WebSocket, Client, SLOW, ROOT, binary, sleep, startAdmin } = require('./lib');

const bin = binary();
const PY = path.join(ROOT, 'docs', 'examples', 'stdio_bot.py');

/* ---- a relay between the bridge and the real server -------------------------------- */

class Relay {
  constructor(srv) {
    this.srv = srv;           /* the real server (startAdmin) */
    this.names = new Map();   /* name -> {secret, capacity, registrations, unregistered, conns} */
    this.seats = [];          /* {name, match, seat, over} given to a bridge */
    this.moves = [];          /* every move a bridge sent, as sent, with .name */
    this.events = [];         /* what happened, for messages on failure */
    this.pairs = new Set();   /* {down, up} */
    this.waiters = [];
    this.oldServer = false;   /* refuse think_ms, as servers from before it did */
    this.refused = 0;
  }

  async start() {
    this.wss = new WebSocket.Server({ port: 0, host: '127.0.0.1' });
    await new Promise((r) => this.wss.on('listening', r));
    this.url = `ws://127.0.0.1:${this.wss.address().port}/`;
    this.wss.on('connection', (ws) => this._bridge(ws));
    this.host = await Client.connect(this.srv.url, { name: 'host' });
    return this;
  }

  async stop() {
    for (const p of this.pairs) {
      p.up.terminate();
      p.down.terminate();
    }
    this.host.close();
    await new Promise((r) => this.wss.close(r));
  }

  _wake() {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w)
      f();
  }

  _bridge(down) {
    const up = new WebSocket(this.srv.url);
    const pair = { down, up, name: null, queue: [] };
    this.pairs.add(pair);
    const toUp = (text) => {
      if (up.readyState === WebSocket.OPEN)
        up.send(text);
      else
        pair.queue.push(text);
    };
    up.on('open', () => {
      for (const t of pair.queue)
        up.send(t);
      pair.queue = [];
    });
    const end = () => {
      this.pairs.delete(pair);
      up.terminate();
      down.terminate();
    };
    up.on('close', end);
    up.on('error', end);
    down.on('close', end);
    down.on('error', end);
    down.on('message', (data) => {
      const text = data.toString();
      let m = null;
      try {
        m = JSON.parse(text);
      } catch {}
      if (m && m.type === 'register') {
        pair.name = m.name;
        pair.pendingSecret = m.secret;
      }
      if (m && m.type === 'unregister')
        pair.unregistering = true;
      if (m && m.type === 'move') {
        this.moves.push({ ...m, name: pair.name });
        if (this.oldServer && m.think_ms !== undefined) {
          /* a server from before think_ms refuses the field; the refusal
           * comes late, so that moves of several games are in flight */
          this.refused++;
          setTimeout(() => {
            if (down.readyState === WebSocket.OPEN)
              down.send(JSON.stringify({ type: 'error', code: 'bad_message', id: m.id,
                message: 'move: unknown field "think_ms"' }));
          }, 300);
          return;
        }
      }
      toUp(text);
    });
    up.on('message', (data) => {
      const text = data.toString();
      let m = null;
      try {
        m = JSON.parse(text);
      } catch {}
      if (m && m.type === 'registered') {
        const n = this.names.get(m.name) || { registrations: 0 };
        n.secret = pair.pendingSecret;
        n.capacity = m.capacity;
        n.registrations++;
        n.unregistered = false;
        n.pair = pair;
        this.names.set(m.name, n);
        this.events.push(`registered ${m.name} capacity ${m.capacity}`);
      }
      if (m && m.type === 'unregistered' && pair.name && this.names.get(pair.name)) {
        this.names.get(pair.name).unregistered = true;
        this.events.push('unregistered ' + pair.name);
      }
      if (m && (m.type === 'joined' || m.type === 'resumed') && pair.name) {
        if (!this.seats.some((s) => s.match === m.match && s.seat === m.seat))
          this.seats.push({ name: pair.name, match: m.match, seat: m.seat, over: false });
        this.events.push(`${m.type} ${pair.name} ${m.match} seat ${m.seat}`);
      }
      if (m && m.type === 'game_over')
        for (const s of this.seats)
          if (s.match === m.match)
            s.over = true;
      if (down.readyState === WebSocket.OPEN)
        down.send(text);
      this._wake();
    });
  }

  /* Resolve once pred() holds (checked at every message relayed). */
  until(pred, what, timeout = 20000 * SLOW) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('timed out waiting for ' + what + '\n' +
        this.events.join('\n'))), timeout);
      const check = () => {
        if (pred()) {
          clearTimeout(timer);
          resolve();
        } else {
          this.waiters.push(check);
        }
      };
      check();
    });
  }

  /* Seat `name` in a new match of `game` against an in-process bot (or, with
   * opponent null, in both seats) on the real server; resolves with the
   * match id once the bridge has been sent `joined` for its seats. */
  async seat(name, { game = 'carcassonne', opponent = 'random', seat = 1, moveMs = 5000 } = {}) {
    const both = opponent === null;
    const mine = { bot: 'remote:' + name };
    const seats = both ? [mine, mine] : seat === 0 ? [mine, { bot: opponent }] : [{ bot: opponent }, mine];
    const r = await this.host.request({ type: 'create_match', game, admin_token: this.srv.adminToken, seats,
      time_control: { move_ms: moveMs }, policies: { disconnect: 'forfeit', reconnect_grace_ms: 20000 } });
    if (r.type !== 'match_created')
      throw new Error('create_match: ' + JSON.stringify(r));
    const want = both ? [0, 1] : [seat];
    this.events.push(`seat ${name} in ${game} match ${r.match} seat ${want.join(',')}`);
    await this.until(() => want.every((k) => this.seats.some((s) => s.match === r.match && s.seat === k)),
      `joined for ${r.match}`);
    return r.match;
  }

  /* Cut the bridge's connection of `name` (no close frame), on both sides. */
  dropBridge(name) {
    const n = this.names.get(name);
    if (n && n.pair) {
      n.pair.down.terminate();
      n.pair.up.terminate();
    }
  }

  live(name) {
    return this.seats.filter((s) => s.name === name && !s.over).length;
  }

  /* The server's record of a match. */
  async record(match) {
    const r = await this.host.request({ type: 'get_record', match }, 'record');
    return r.record;
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
  const srv = await startAdmin({ tag: 'bridgereg' });
  const fake = await new Relay(srv).start();
  t.after(async () => {
    await fake.stop();
    await srv.cleanup();
  });
  return fake;
}

/* Every move the bridge sent with think_ms reached the server's record: the
 * turn it played carries that think_ms, and the server's own wait_ms. */
async function assertThinkInRecords(fake, matches) {
  let checked = 0;
  for (const m of matches) {
    const rec = await fake.record(m);
    const sent = fake.moves.filter((x) => x.match === m);
    assert.ok(sent.length > 0, 'no move sent in ' + m);
    for (const mv of sent) {
      const turn = rec.turns[mv.turn - 1];
      assert.ok(turn, `match ${m}: no turn ${mv.turn} in the record`);
      assert.equal(turn.player, mv.seat, `match ${m} turn ${mv.turn}: ${JSON.stringify(turn)}`);
      assert.equal(turn.think_ms, mv.think_ms, `match ${m} turn ${mv.turn}: ${JSON.stringify(turn)} for ${JSON.stringify(mv)}`);
      assert.ok(Number.isInteger(turn.wait_ms) && turn.wait_ms >= 0, JSON.stringify(turn));
      checked++;
    }
  }
  return checked;
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
  /* ... and the server kept every think_ms with its move: the records say so */
  assert.equal(await assertThinkInRecords(fake, [m1, m2, m3]), fake.moves.length);
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

test('registered: a server tournament seats the bridge\'s bot (remote:NAME) and it plays its games', async (t) => {
  const fake = await setup(t);
  const b = startBridge(fake.url, ['--register', 'gina', '--secret', 'gina-secret-77', '--capacity', '2',
    '--max-games', '2', '--', 'python3', PY]);
  t.after(() => b.proc.kill('SIGKILL'));
  await waitFor(() => fake.names.get('gina'), 'the registration');
  const admin = fake.host;
  const made = await admin.request({ type: 'create_tournament', admin_token: fake.srv.adminToken,
    format: 'round-robin', game: 'reversi', label: 'bridge', seed: 7, games_per_pair: 2, concurrency: 2,
    participants: [{ name: 'gina', spec: 'remote:gina' }, { name: 'rnd', spec: 'random' }],
    time_control: { move_ms: 5000 * SLOW } }, 'tournament_created');
  const id = made.tournament;
  const w = await Client.connect(fake.srv.url, { name: 'watcher' });
  t.after(() => w.close());
  await w.request({ type: 'watch_tournament', tournament: id }, 'tournament');
  await admin.request({ type: 'start_tournament', admin_token: fake.srv.adminToken, tournament: id },
    'tournament_state');
  for (;;) {
    const u = await w.expect('tournament_update', 120000 * SLOW);
    if (u.state === 'done')
      break;
  }
  const r = await exitWithin(b);
  assert.equal(r.code, 0, r.stderr.slice(-3000));
  const view = await w.request({ type: 'watch_tournament', tournament: id }, 'tournament');
  assert.equal(view.games.length, 2);
  const lines = results(b);
  assert.equal(lines.length, 2, b.stdout);
  for (const g of view.games) {
    assert.equal(g.status, 'done', JSON.stringify(g));
    assert.equal(g.result.end, 'normal', JSON.stringify(g));
    const seat = g.table.indexOf('gina');
    assert.ok(seat >= 0, JSON.stringify(g));
    /* the bridge was given that seat of that match and played it to the end */
    assert.ok(lines.some((l) => l.includes(`match=${g.match} seat=${seat}`) && /reason=normal/.test(l)),
      `${g.match} seat ${seat}: ${lines.join('\n')}`);
    assert.ok(fake.moves.some((mv) => mv.match === g.match && mv.seat === seat), 'moves sent in ' + g.match);
  }
  assert.deepEqual(view.games.map((g) => g.table.indexOf('gina')).sort(), [0, 1], 'one game in each seat');
  /* its moves, with their think_ms, are the tournament matches' records */
  assert.equal(await assertThinkInRecords(fake, view.games.map((g) => g.match)), fake.moves.length);
});

/* Servers from before think_ms (contract 2) refused it: the fallback stays for them. */
test('registered: a server that refuses think_ms gets every game\'s move again without it', async (t) => {
  const fake = await setup(t);
  fake.oldServer = true;
  const b = startBridge(fake.url, ['--register', 'frank', '--secret', 'frank-secret-6', '--capacity', '2',
    '--max-games', '2', '--', 'python3', PY]);
  t.after(() => b.proc.kill('SIGKILL'));
  await waitFor(() => fake.names.get('frank'), 'the registration');
  /* two games where the bot moves first: a first move that left with
   * think_ms before the first refusal came back is refused too (once: it
   * is sent again without), so one refusal or two, as the race goes —
   * never a third (no move carries think_ms after the first refusal) */
  const [m1, m2] = await Promise.all([
    fake.seat('frank', { game: 'carcassonne', opponent: 'random', seat: 0, moveMs: 4000 }),
    fake.seat('frank', { game: 'reversi', opponent: 'random', seat: 0, moveMs: 4000 }),
  ]);
  const r = await exitWithin(b);
  assert.equal(r.code, 0, r.stderr.slice(-3000));
  assert.ok(fake.refused >= 1 && fake.refused <= 2, 'refusals: ' + fake.refused);
  for (const m of [m1, m2])
    assert.match(b.stdout, new RegExp(`game over: reason=normal .* match=${m} seat=0`), b.stdout);
  assert.equal((b.stderr.match(/does not take think_ms/g) || []).length, 1, b.stderr);
  const later = fake.moves.filter((x) => x.think_ms === undefined);
  assert.ok(later.length > 20, 'moves without think_ms: ' + later.length);
  /* what the server played has the server's wait_ms and no think_ms */
  for (const m of [m1, m2]) {
    const rec = await fake.record(m);
    for (const mv of later.filter((x) => x.match === m)) {
      const turn = rec.turns[mv.turn - 1];
      assert.ok(turn && turn.think_ms === undefined && Number.isInteger(turn.wait_ms), JSON.stringify(turn));
    }
  }
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
  assert.match(rw.stderr, /cannot register as dave: bad_token: the secret does not match/);
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
