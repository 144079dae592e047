'use strict';
/*
 * test_durable.js — `tessera serve --durable` announces nothing that is not
 * on disk. Each run plays matches of remote random bots against a durable
 * server, kills it with SIGKILL at a random moment, then makes the disk look
 * as a power cut at that moment could leave it: the server's test hook
 * TESSERA_TEST_SYNC_LOG says how much of the write-ahead log each fsync
 * covered, and the WAL is cut there (what was written after the last
 * completed fsync may be lost; with checkpoints off under the hook, the WAL
 * only grows). The server is started again on that database and every move
 * a client heard of (each `update` of each seat's connection) must be in the
 * restored history, in order. A server that announced a move before its
 * fsync would fail this whenever the kill falls between the two.
 *
 * TESSERA_DURABLE_RUNS sets the number of runs (default 3; the `slow` CTest
 * entry server_durable_many runs 24).
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { Server, Client, SLOW, createMatch, join, autoPlay, rng, sleep, tmpDir } = require('./lib');

const RUNS = Number(process.env.TESSERA_DURABLE_RUNS || 3);
const MATCHES = 8;

/* The records each match's players heard, by turn (both seats hear each). */
function heardOf(clients) {
  const heard = new Map();
  for (const c of clients)
    for (const u of c.all.filter((m) => m.type === 'update')) {
      const turns = heard.get(u.match) || new Map();
      heard.set(u.match, turns);
      if (turns.has(u.turn))
        assert.deepEqual(u.record, turns.get(u.turn), `${u.match} turn ${u.turn}: both seats heard the same`);
      turns.set(u.turn, u.record);
    }
  return heard;
}

/* Cut the WAL where the last completed fsync left it; returns the bytes cut. */
function powerCut(db, syncLog) {
  const lines = fs.existsSync(syncLog) ? fs.readFileSync(syncLog, 'utf8').trim().split('\n').filter(Boolean) : [];
  const synced = lines.length ? Number(lines[lines.length - 1]) : 0;
  const wal = db + '-wal';
  const size = fs.existsSync(wal) ? fs.statSync(wal).size : 0;
  assert.ok(size >= synced, `the WAL (${size} bytes) holds what was synced (${synced})`);
  if (size > synced)
    fs.truncateSync(wal, synced);
  /* the shared-memory index describes the uncut WAL: SQLite rebuilds it */
  fs.rmSync(db + '-shm', { force: true });
  return size - synced;
}

test(`--durable: after kill -9 and a cut to the last fsync, every announced move is in the journal (${RUNS} runs)`,
  async (t) => {
    const r = rng(1606);
    let cutRuns = 0, heardMoves = 0;
    for (let run = 0; run < RUNS; run++) {
      const dir = tmpDir('durable');
      const syncLog = path.join(dir, 'sync.log');
      const srv = await Server.start({ dir, args: ['--durable'], env: { TESSERA_TEST_SYNC_LOG: syncLog } });
      t.after(() => srv.cleanup().finally(() => fs.rmSync(dir, { recursive: true, force: true })));
      const host = await Client.connect(srv.url, { name: 'host' });
      const players = [], bots = [];
      for (let i = 0; i < MATCHES; i++) {
        const { match, tokens } = await createMatch(host, [{ open: true }, { open: true }], {
          time_control: { move_ms: 30000 },
        });
        for (const seat of [0, 1]) {
          const c = await Client.connect(srv.url, { name: `m${i}s${seat}` });
          await join(c, match, seat, tokens[seat]);
          players.push(c);
          bots.push(autoPlay(c, { rng: rng(run * 100 + i * 2 + seat) }));
        }
      }
      /* a random moment of play: matches are 71 turns, a few hundred ms each */
      await sleep(50 + Math.floor(r() * 600));
      await srv.kill9();
      for (const b of bots)
        b.stop();
      await Promise.all(players.map((c) => c.waitClosed().catch(() => null)));
      host.close();
      const heard = heardOf(players);
      const cut = powerCut(srv.db, syncLog);
      if (cut > 0)
        cutRuns++;

      await srv.restart();
      const spect = await Client.connect(srv.url, { name: 'spect' });
      for (const [match, turns] of heard) {
        const view = await spect.request({ type: 'spectate', match }, 'spectating');
        assert.equal(view.type, 'spectating', `run ${run}: match ${match} is in the journal`);
        const n = turns.size;
        assert.deepEqual([...turns.keys()].sort((a, b) => a - b), Array.from({ length: n }, (_, k) => k + 1),
          `run ${run}: ${match}: the players heard turns 1..${n}`);
        assert.ok(view.history.length >= n,
          `run ${run}: ${match}: ${n} turns announced, ${view.history.length} in the journal after the cut`);
        assert.deepEqual(view.history.slice(0, n), [...turns.keys()].sort((a, b) => a - b).map((k) => turns.get(k)),
          `run ${run}: ${match}: what was heard is the journal's history`);
        heardMoves += n;
      }
      spect.close();
      await srv.stop();
    }
    console.log(`durable: ${RUNS} runs, ${heardMoves} announced turns checked, ` +
      `${cutRuns} runs lost unsynced WAL bytes to the cut`);
    assert.ok(heardMoves > 0, 'moves were announced');
  });
