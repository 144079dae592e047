'use strict';
/*
 * test_soak.js — endurance (label slow; docs/operations.md "Load and
 * endurance"): 1,000 matches of remote random bots kept going for 30
 * minutes — each finished match is replaced by a new one — on one server.
 * It fails on any error reply, a server that exits, no progress, a
 * resident memory (the server's /metrics) that grows after the warm-up by
 * more than RSS_SLACK (below), a WAL past its bound, or a stop (SIGTERM,
 * with every match live) slower than the bound docs/operations.md states.
 * It prints what it measured (moves/s, matches played, RSS, the heap,
 * SQLite's memory and the WAL over time, the stop's figures).
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
/*
 * "Flat": after the warm-up (every match live, the finished ones held up to
 * limits.finished_kept, SQLite's caches full) nothing the server holds
 * should grow with the matches played, so the resident memory at the end
 * (the mean of the last three samples) may exceed that at the end of the
 * warm-up (the first three after it) only by what the allocator's free
 * lists and the kernel's accounting move by: 5 %, or 8 MiB for a small
 * run. The growth this test was written against, the WAL's index (8 bytes
 * a frame, about 1.6 MiB a minute at 1,000 matches), is 40 MiB in 25
 * minutes; a per-match leak small enough to pass is for the counts of
 * test_memory_bounds.js to catch.
 */
const RSS_SLACK = (base) => Math.max(base * 0.05, 8 * 1048576);

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
    const mib = (x) => (x / 1048576).toFixed(1);
    t.diagnostic(`${at} s: rss ${mib(rss)} MiB (heap in use ${mib(m.tessera_heap_in_use_bytes)}, ` +
      `free ${mib(m.tessera_heap_free_bytes)}, sqlite ${mib(m.tessera_sqlite_memory_bytes)}), ` +
      `live ${m['tessera_matches{state="live"}']}, held finished ${m['tessera_matches{state="finished"}']}, ` +
      `tokens ${m.tessera_resume_tokens}, moves ${m.tessera_moves_total}, finished ${stats.finished}, ` +
      `errors ${stats.errors.length}, wal ${m.tessera_journal_wal_frames} frames, ` +
      `${m.tessera_journal_wal_resets_total} resets, stalls ${m.tessera_journal_checkpoint_stall_seconds_count} ` +
      `(${(m.tessera_journal_checkpoint_stall_seconds_sum * 1000).toFixed(0)} ms)`);
    samples.push({ at, rss, wal: m.tessera_journal_wal_frames });
    assert.equal(srv.exit, null, 'the server is running');
    assert.deepEqual(stats.errors.slice(0, 5), [], 'no error');
    assert.ok(m.tessera_moves_total > lastMoves, 'moves are being played');
    lastMoves = m.tessera_moves_total;
  }
  const secs = (Date.now() - t0) / 1000;
  /* the stop, with every match live and its players connected */
  const live = (await metrics(srv))['tessera_matches{state="live"}'];
  const s0 = Date.now();
  const exit = await srv.stop();
  const took = Date.now() - s0;
  const stopped = await srv.waitLog((l) => l.event === 'stopped', 5000 * SLOW, 'stopped');
  t.diagnostic(`SIGTERM with ${live} live matches: exit ${JSON.stringify(exit)} ${took} ms later ` +
    `(the server's figures: ${stopped.shutdown_ms} ms, the journal's close ${stopped.journal_close_ms} ms)`);
  for (const p of players)
    p.stop();
  t.diagnostic(`${stats.moves} moves in ${secs.toFixed(0)} s (${(stats.moves / secs).toFixed(0)}/s), ` +
    `${stats.finished} matches finished, ${stats.created} created`);
  const after = samples.filter((s) => s.at * 1000 >= WARMUP_MS);
  assert.ok(after.length >= 2, 'samples after the warm-up');
  const mean = (xs) => xs.reduce((a, s) => a + s.rss, 0) / xs.length;
  const k = Math.min(3, Math.floor(after.length / 2));
  const base = mean(after.slice(0, k)), last = mean(after.slice(-k));
  const peak = Math.max(...after.map((s) => s.rss));
  t.diagnostic(`rss after warm-up: first ${(base / 1048576).toFixed(1)} MiB, peak ${(peak / 1048576).toFixed(1)}, ` +
    `last ${(last / 1048576).toFixed(1)} (slack ${(RSS_SLACK(base) / 1048576).toFixed(1)})`);
  assert.deepEqual(exit, { code: 0, signal: null });
  assert.ok(stopped.shutdown_ms <= 8000 * SLOW, `the stop took ${stopped.shutdown_ms} ms`);
  assert.ok(last <= base + RSS_SLACK(base), `resident memory grew from ${base} to ${last} bytes after the warm-up`);
  /* the WAL's bound (limits.h JOURNAL_WAL_RESET_FRAMES) and the frames written
   * between two checkpoints */
  assert.ok(Math.max(...samples.map((s) => s.wal)) <= 4 * 16384, 'the WAL stays within its bound');
  assert.ok(stats.finished >= MATCHES, `${stats.finished} matches finished`);
});
