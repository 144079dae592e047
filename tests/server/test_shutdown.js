'use strict';
/*
 * test_shutdown.js — SIGTERM with hundreds of live matches (docs/operations.md,
 * "Stopping"): the server exits 0 promptly — its goodbyes wait at most
 * SRV_GOODBYE_MS, and nothing is done per match at exit but letting go of
 * its memory — and it loses nothing: at the next start every match is
 * restored with every move it had announced, and plays on.
 *
 * 300 matches, both seats of 10 matches on each of 30 connections, each
 * played to 6 moves and left waiting for its next move.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { Server, Client, WebSocket, SLOW, rng, randomMove, sleep } = require('./lib');

const MATCHES = 300;
const PER_CONN = 10;
const MOVES = 6;

/* A connection holding both seats of `n` matches, answering your_turn until
 * each match has had MOVES moves. Resolves once every match has, with
 * {match -> {turn, tile, resume: [token of seat 0, seat 1], history: the updates' records}}. */
function player(url, n, seed) {
  const r = rng(seed);
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { handshakeTimeout: 30000 * SLOW });
    const matches = new Map();
    const pending = new Map();
    let nextId = 1, done = 0;
    const request = (m, h) => {
      const id = nextId++;
      pending.set(id, h);
      ws.send(JSON.stringify({ ...m, id }));
    };
    ws.on('error', reject);
    ws.on('open', () => request({ type: 'hello', protocol: 1, client: 'shutdown' }, () => {
      for (let i = 0; i < n; i++)
        request({ type: 'create_match', game: 'carcassonne', seats: [{ open: true }, { open: true }],
          time_control: { move_ms: 600000 }, policies: { reconnect_grace_ms: 600000 } }, (made) => {
          const info = { moves: 0, resume: [], waiting: false, turns: new Map() };
          matches.set(made.match, info);
          for (const s of made.seats)
            request({ type: 'join', match: made.match, seat: s.seat, token: s.token }, (j) => {
              info.resume[s.seat] = j.resume_token;
            });
        });
    }));
    ws.on('message', (data) => {
      const m = JSON.parse(data.toString());
      if (m.type === 'error')
        return reject(new Error('error reply: ' + JSON.stringify(m)));
      if (m.id !== undefined && pending.has(m.id)) {
        const h = pending.get(m.id);
        pending.delete(m.id);
        return h(m);
      }
      if (m.type === 'update' && m.record) {
        /* both seats get each update: keep it once, by its turn */
        const info = matches.get(m.match);
        if (info)
          info.turns.set(m.turn, m.record);
      }
      if (m.type !== 'your_turn')
        return;
      const info = matches.get(m.match);
      if (info.moves < MOVES) {
        ws.send(JSON.stringify({ type: 'move', match: m.match, turn: m.turn, move: randomMove(m, r) }));
        info.moves++;
      } else if (!info.waiting) {
        info.waiting = true;
        info.turn = m.turn;
        info.history = [...info.turns.entries()].sort((a, b) => a[0] - b[0]).map((e) => e[1]);
        info.tile = m.state.tile;
        if (++done === n)
          resolve({ ws, matches });
      }
    });
  });
}

test(`SIGTERM with ${MATCHES} live matches: exit 0 within the bound, every match restored`, async (t) => {
  const srv = await Server.start({ tag: 'shutdown', args: ['--log-level', 'info',
    '--set', 'limits.messages_per_second=100000', '--set', 'limits.burst=100000'] });
  t.after(() => srv.cleanup());
  const players = await Promise.all(Array.from({ length: MATCHES / PER_CONN },
    (_, i) => player(srv.url, PER_CONN, 500 + i)));
  const all = new Map();
  for (const p of players)
    for (const [id, info] of p.matches)
      all.set(id, info);
  assert.equal(all.size, MATCHES);

  const t0 = Date.now();
  const exit = await srv.stop();
  const took = Date.now() - t0;
  assert.deepEqual(exit, { code: 0, signal: null }, 'exit code 0');
  const down = srv.events('shutdown')[0];
  assert.equal(down.live_matches, MATCHES, 'the matches were live at the signal');
  const stopped = await srv.waitLog((l) => l.event === 'stopped', 5000 * SLOW, 'stopped');
  t.diagnostic(`exit ${took} ms after SIGTERM; the server's own figures: shutdown ${stopped.shutdown_ms} ms, ` +
    `journal closed in ${stopped.journal_close_ms} ms`);
  /* the bound (docs/operations.md, "Stopping"): the goodbyes' 3 s at most,
   * plus a journal close whose WAL is bounded — a few seconds; doubled for
   * a loaded machine */
  assert.ok(stopped.shutdown_ms <= 8000 * SLOW, `the server took ${stopped.shutdown_ms} ms to stop`);
  assert.ok(took <= 12000 * SLOW, `exit ${took} ms after SIGTERM`);
  for (const p of players)
    p.ws.terminate();

  /* the next start restores every one, at the move it was waiting for */
  await srv.restart();
  const restored = await srv.waitLog((l) => l.event === 'restored', 30000 * SLOW, 'restored');
  assert.equal(restored.unfinished, MATCHES, 'every live match is restored');
  assert.deepEqual(srv.events('restore_failed'), []);
  const ids = [...all.keys()];
  for (let i = 0; i < ids.length; i += 15) {
    const c = await Client.connect(srv.url, { name: 'back' });
    for (const id of ids.slice(i, i + 15)) {
      const info = all.get(id);
      /* both seats: the one whose turn it is is asked for the same move */
      for (const s of [0, 1]) {
        const resumed = await c.request({ type: 'resume', resume_token: info.resume[s] }, 'resumed');
        assert.equal(resumed.match, id);
        assert.deepEqual(resumed.history, info.history, `match ${id} has every move it announced`);
      }
      const yt = await c.expect((m) => m.type === 'your_turn' && m.match === id, 10000 * SLOW);
      assert.equal(yt.turn, info.turn, `match ${id} waits for the same turn`);
      assert.equal(yt.state.tile, info.tile, `match ${id} offers the same tile`);
    }
    c.close();
    await sleep(10);
  }
});
