'use strict';
/*
 * test_memory_bounds.js — what a long run must not pile up (docs/operations.md,
 * "Load and endurance"), asserted from the server's own counts rather than
 * from wall time or resident memory:
 *   - finished matches: at most limits.finished_kept stay in memory, with
 *     their resume tokens; none of a match's bots or tokens outlive it;
 *   - the journal's WAL: checkpoints copy it into the database, and it is
 *     started again once past its bound (journal/sqlite.c, "Checkpoints"),
 *     so the -wal file and the index SQLite maps in memory for it stay
 *     bounded however many moves are written.
 * The WAL's bound is lowered (TESSERA_TEST_WAL_FRAMES) so that a minute's
 * play crosses it many times over.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const { Server, WebSocket, SLOW, rng, randomMove, httpGet, sleep } = require('./lib');

require('./lib').sqliteOnly("it watches SQLite's write-ahead log and checkpoints");

const MATCHES = 40;   /* played to the end */
const AT_ONCE = 20;   /* on 2 connections of 10 */
const KEPT = 5;       /* limits.finished_kept */
const WAL_FRAMES = 256;

async function metrics(srv) {
  const r = await httpGet(`http://127.0.0.1:${srv.port}/metrics`, { timeout: 10000 * SLOW });
  assert.equal(r.status, 200);
  const out = {};
  for (const line of r.body.split('\n'))
    if (line && !line.startsWith('#')) {
      const i = line.lastIndexOf(' ');
      out[line.slice(0, i)] = Number(line.slice(i + 1));
    }
  return out;
}

async function waitMetrics(srv, pred, what) {
  const t0 = Date.now();
  for (;;) {
    const m = await metrics(srv);
    if (pred(m))
      return m;
    if (Date.now() - t0 > 30000 * SLOW)
      throw new Error(`metrics never showed ${what}`);
    await sleep(100);
  }
}

/* One connection playing both seats of `slots` matches at a time, `total`
 * in all, each to its end. */
function player(url, slots, total, seed) {
  const r = rng(seed);
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { handshakeTimeout: 30000 * SLOW });
    const pending = new Map();
    let nextId = 1, created = 0, finished = 0;
    const request = (m, h) => {
      const id = nextId++;
      pending.set(id, h);
      ws.send(JSON.stringify({ ...m, id }));
    };
    const start = () => {
      if (created === total)
        return;
      created++;
      request({ type: 'create_match', game: 'carcassonne', seats: [{ open: true }, { open: true }],
        time_control: { move_ms: 120000 } }, (made) => {
        for (const s of made.seats)
          request({ type: 'join', match: made.match, seat: s.seat, token: s.token }, () => {});
      });
    };
    ws.on('error', reject);
    ws.on('open', () => request({ type: 'hello', protocol: 1, client: 'bounds' }, () => {
      for (let i = 0; i < slots; i++)
        start();
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
      if (m.type === 'your_turn')
        ws.send(JSON.stringify({ type: 'move', match: m.match, turn: m.turn, move: randomMove(m, r) }));
      else if (m.type === 'game_over') {
        if (m.result.reason !== 'normal')
          return reject(new Error(`match ${m.match} ended by ${m.result.reason}`));
        if (++finished === total) {
          ws.close();
          resolve();
        } else {
          start();
        }
      }
    });
  });
}

test(`${MATCHES} matches played: finished ones let go, the WAL copied and kept within its bound`, async (t) => {
  const srv = await Server.start({ tag: 'bounds', args: ['--log-level', 'warn',
    '--set', 'limits.messages_per_second=100000', '--set', 'limits.burst=100000',
    '--set', `limits.finished_kept=${KEPT}`],
  env: { TESSERA_TEST_WAL_FRAMES: String(WAL_FRAMES) } });
  t.after(() => srv.cleanup());
  const conns = AT_ONCE / 10;
  await Promise.all(Array.from({ length: conns }, (_, i) =>
    player(srv.url, 10, MATCHES / conns, 70 + i)));

  /* the matches: only KEPT finished ones held, no bot, no stray token */
  const m = await metrics(srv);
  t.diagnostic(`after ${MATCHES} matches: ${m.tessera_moves_total} moves, ` +
    `${m.tessera_journal_checkpoints_total} checkpoints, ${m.tessera_journal_wal_resets_total} WAL resets, ` +
    `wal ${m.tessera_journal_wal_frames} frames, loop stalls ${m.tessera_journal_checkpoint_stall_seconds_count} ` +
    `(${(m.tessera_journal_checkpoint_stall_seconds_sum * 1000).toFixed(1)} ms in all)`);
  assert.equal(m['tessera_matches_finished_total{reason="normal"}'], MATCHES);
  assert.equal(m['tessera_matches{state="live"}'], 0);
  assert.equal(m['tessera_matches{state="waiting"}'], 0);
  assert.equal(m['tessera_matches{state="finished"}'], KEPT, 'only limits.finished_kept finished matches held');
  assert.equal(m.tessera_resume_tokens, 2 * KEPT, 'the resume tokens of the matches held, no more');
  assert.equal(m.tessera_bots_held, 0);

  /* the WAL: started again at least once past its bound (the loop copied
   * its tail), and once every frame is copied, the next write cuts the
   * file back to the bound (journal_size_limit) */
  const idle = await waitMetrics(srv, (x) => x.tessera_journal_wal_frames === x.tessera_journal_wal_frames_copied &&
    x.tessera_journal_checkpoints_total > m.tessera_journal_checkpoints_total, 'a checkpoint that copied the whole WAL');
  /* it held more than its bound at some pass (during the play, or this one) */
  assert.ok(idle.tessera_journal_wal_resets_total >= 1, 'the WAL was started again past its bound');
  const c = new WebSocket(srv.url);
  await new Promise((resolve, reject) => {
    c.on('error', reject);
    c.on('open', () => c.send(JSON.stringify({ type: 'hello', protocol: 1, client: 'bounds', id: 1 })));
    c.on('message', (d) => {
      const x = JSON.parse(d.toString());
      if (x.type === 'welcome')
        c.send(JSON.stringify({ type: 'create_match', game: 'carcassonne', id: 2,
          seats: [{ open: true }, { open: true }] }));
      else if (x.type === 'match_created')
        resolve();
      else if (x.type === 'error')
        reject(new Error(JSON.stringify(x)));
    });
  });
  c.close();
  const wal = fs.statSync(srv.db + '-wal').size, db = fs.statSync(srv.db).size;
  t.diagnostic(`files: database ${db} bytes, WAL ${wal} bytes (bound ${WAL_FRAMES * 4120})`);
  assert.ok(wal <= WAL_FRAMES * (4096 + 24), `the WAL file holds ${wal} bytes, past its bound`);
  /* the journal's content is in the database file, not only in the WAL */
  assert.ok(db >= 64 * 1024, `the database file holds ${db} bytes: checkpoints copied the WAL`);
});
