'use strict';
/*
 * test_soak.js — endurance (label slow; docs/operations.md "Load and
 * endurance"): 1,000 matches of remote random bots kept going for 30
 * minutes — each finished match is replaced by a new one — on one server.
 * It fails on any error reply, a server that exits, no progress, or a
 * resident memory (the server's /metrics) that grows after the warm-up by
 * more than a quarter. It prints what it measured (moves/s, matches played,
 * RSS over time).
 *
 * TESSERA_SOAK_MINUTES (default 30) and TESSERA_SOAK_MATCHES (default 1000)
 * change its size. The seats of 10 matches share one connection (both seats
 * of each), 100 connections for 1,000 matches; the connections' rate limit
 * is lifted, as these are the server's own test clients.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { Server, WebSocket, SLOW, rng, randomMove, httpGet, sleep } = require('./lib');

const MINUTES = Number(process.env.TESSERA_SOAK_MINUTES || 30);
const MATCHES = Number(process.env.TESSERA_SOAK_MATCHES || 1000);
const PER_CONN = 10;
const WARMUP_MS = Math.min(5 * 60000, MINUTES * 60000 * 0.2);
const SAMPLE_MS = Math.min(30000, MINUTES * 60000 / 10);

async function metrics(srv) {
  const r = await httpGet(`http://127.0.0.1:${srv.port}/metrics`, { timeout: 30000 * SLOW });
  assert.equal(r.status, 200);
  const out = {};
  for (const line of r.body.split('\n'))
    if (line && !line.startsWith('#')) {
      const i = line.lastIndexOf(' ');
      out[line.slice(0, i)] = Number(line.slice(i + 1));
    }
  return out;
}

/* One connection holding both seats of `slots` matches, replacing each
 * finished match with a new one until stop(). */
function player(url, slots, seed, stats) {
  const r = rng(seed);
  let ws, stopped = false, nextId = 1;
  const pending = new Map(); /* id -> handler of the reply */
  const send = (m) => ws.send(JSON.stringify(m));
  const request = (m, handler) => {
    const id = nextId++;
    pending.set(id, handler);
    send({ ...m, id });
  };
  const startMatch = () => {
    if (stopped)
      return;
    request({ type: 'create_match', game: 'carcassonne', seats: [{ open: true }, { open: true }],
      time_control: { move_ms: 120000 } }, (made) => {
      stats.created++;
      for (const s of made.seats)
        request({ type: 'join', match: made.match, seat: s.seat, token: s.token }, () => {});
    });
  };
  return new Promise((resolve, reject) => {
    ws = new WebSocket(url, { handshakeTimeout: 30000 * SLOW });
    ws.on('error', reject);
    ws.on('close', () => {
      if (!stopped)
        stats.errors.push('a connection closed');
    });
    ws.on('open', () => {
      request({ type: 'hello', protocol: 1, client: 'soak' }, () => {
        for (let i = 0; i < slots; i++)
          startMatch();
        resolve({
          stop() {
            stopped = true;
            ws.close();
          },
        });
      });
    });
    ws.on('message', (data) => {
      const m = JSON.parse(data.toString());
      if (m.type === 'error') {
        stats.errors.push(JSON.stringify(m).slice(0, 300));
        if (m.id !== undefined)
          pending.delete(m.id);
        return;
      }
      if (m.id !== undefined && pending.has(m.id)) {
        const h = pending.get(m.id);
        pending.delete(m.id);
        h(m);
        return;
      }
      if (m.type === 'your_turn' && !stopped) {
        send({ type: 'move', match: m.match, turn: m.turn, move: randomMove(m, r) });
        stats.moves++;
      } else if (m.type === 'game_over') {
        stats.finished++;
        if (m.result.reason !== 'normal')
          stats.errors.push(`match ${m.match} ended by ${m.result.reason}`);
        startMatch();
      }
    });
  });
}

test(`soak: ${MATCHES} matches for ${MINUTES} minutes, memory flat, no error`, { timeout: (MINUTES + 10) * 60000 * SLOW }, async (t) => {
  const srv = await Server.start({ tag: 'soak', args: ['--log-level', 'warn',
    '--set', 'limits.messages_per_second=100000', '--set', 'limits.burst=100000',
    '--set', `limits.max_matches=${MATCHES + 100}`] });
  t.after(() => srv.cleanup());
  const stats = { created: 0, finished: 0, moves: 0, errors: [] };
  const players = [];
  for (let i = 0; i * PER_CONN < MATCHES; i++)
    players.push(await player(srv.url, Math.min(PER_CONN, MATCHES - i * PER_CONN), 1000 + i, stats));
  const t0 = Date.now();
  const samples = [];
  let lastMoves = 0;
  while (Date.now() - t0 < MINUTES * 60000) {
    await sleep(SAMPLE_MS);
    const m = await metrics(srv);
    const rss = m.process_resident_memory_bytes;
    const at = Math.round((Date.now() - t0) / 1000);
    samples.push({ at, rss });
    t.diagnostic(`${at} s: rss ${(rss / 1048576).toFixed(1)} MiB, live ${m['tessera_matches{state="live"}']}, ` +
      `moves ${m.tessera_moves_total}, finished ${stats.finished}, errors ${stats.errors.length}`);
    assert.equal(srv.exit, null, 'the server is running');
    assert.deepEqual(stats.errors.slice(0, 5), [], 'no error');
    assert.ok(m.tessera_moves_total > lastMoves, 'moves are being played');
    lastMoves = m.tessera_moves_total;
  }
  for (const p of players)
    p.stop();
  const secs = (Date.now() - t0) / 1000;
  t.diagnostic(`${stats.moves} moves in ${secs.toFixed(0)} s (${(stats.moves / secs).toFixed(0)}/s), ` +
    `${stats.finished} matches finished, ${stats.created} created`);
  const after = samples.filter((s) => s.at * 1000 >= WARMUP_MS);
  assert.ok(after.length >= 2, 'samples after the warm-up');
  const base = after[0].rss, peak = Math.max(...after.map((s) => s.rss)), last = after[after.length - 1].rss;
  t.diagnostic(`rss after warm-up: first ${(base / 1048576).toFixed(1)} MiB, peak ${(peak / 1048576).toFixed(1)}, ` +
    `last ${(last / 1048576).toFixed(1)}`);
  assert.ok(last <= base * 1.25, `resident memory grew from ${base} to ${last} bytes after the warm-up`);
  assert.ok(stats.finished >= MATCHES, `${stats.finished} matches finished`);
});
