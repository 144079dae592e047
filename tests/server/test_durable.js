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
 * A run whose kill fell where the WAL held nothing unsynced cut nothing and
 * proved nothing: runs go on until RUNS of them did cut (at most 4 x RUNS),
 * and the test asserts that many were (issue 30: it never counted them).
 *
 * On PostgreSQL (TESSERA_TEST_STORAGE=pg, CTest's server_pg_db_crash) there
 * is no WAL of ours to cut: each run crashes the database itself — a
 * PostgreSQL cluster of the test's own (scripts/services.sh), stopped in
 * immediate mode (every process ends at once, no checkpoint) at the moment
 * tessera is killed — and starts it again, so it recovers from its own WAL:
 * every move a client heard of must have been committed. That is a crash of
 * both processes, not a power cut (the kernel's cache survives it): the
 * power cut is the SQLite run's, and the name says which is which.
 *
 * TESSERA_DURABLE_RUNS sets the number of runs (default 3; the `slow` CTest
 * entry server_durable_many runs 24).
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { Server, Client, SLOW, ON_PG, ROOT, createMatch, join, autoPlay, psql, rng, sleep, tmpDir } = require('./lib');

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

/* A PostgreSQL cluster of this test's own (the fixture's is shared: it
 * cannot be crashed). */
function services(...args) {
  const r = spawnSync('bash', [path.join(ROOT, 'scripts/services.sh'), ...args], { encoding: 'utf8' });
  if (r.status !== 0)
    throw new Error(`scripts/services.sh ${args.join(' ')}: ${r.stderr || r.error}`);
}

function ownCluster(t) {
  const dir = tmpDir('pgcrash');
  services('start', dir, '--no-redis');
  t.after(() => services('stop', dir));
  const env = {};
  for (const line of fs.readFileSync(path.join(dir, 'services.env'), 'utf8').split('\n')) {
    const m = /^(\w+)='(.*)'$/.exec(line);
    if (m)
      env[m[1]] = m[2];
  }
  return { dir, admin: env.TESSERA_PG_ADMIN };
}

test(ON_PG
  ? `--durable on PostgreSQL: tessera killed and the database crashed at once, every announced move is in the journal (${RUNS} runs)`
  : `--durable: after kill -9 and a cut to the last fsync, every announced move is in the journal (${RUNS} runs cut)`,
async (t) => {
    const r = rng(1606);
    const cluster = ON_PG ? ownCluster(t) : null;
    let cutRuns = 0, heardMoves = 0, runs = 0;
    for (let run = 0; ON_PG ? run < RUNS : cutRuns < RUNS && run < 4 * RUNS; run++) {
      runs++;
      const dir = tmpDir('durable');
      const syncLog = path.join(dir, 'sync.log');
      let storage;
      if (ON_PG) {
        psql(cluster.admin, `CREATE DATABASE durable_${run}`);
        storage = `${cluster.admin} dbname=durable_${run}`;
      }
      const srv = await Server.start({ dir, storage, args: ['--durable'], env: { TESSERA_TEST_SYNC_LOG: syncLog } });
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
      if (ON_PG) {
        /* both at once: the database's crash cannot wait for tessera's */
        await Promise.all([srv.kill9(), new Promise((resolve) => resolve(services('pg-crash', cluster.dir)))]);
      } else {
        await srv.kill9();
      }
      for (const b of bots)
        b.stop();
      await Promise.all(players.map((c) => c.waitClosed().catch(() => null)));
      host.close();
      const heard = heardOf(players);
      if (ON_PG) {
        services('pg-start', cluster.dir); /* crash recovery from its WAL */
        cutRuns++;
      } else if (powerCut(srv.db, syncLog) > 0) {
        cutRuns++;
      }

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
    console.log(ON_PG
      ? `durable: ${runs} runs, each a crash of PostgreSQL with tessera's kill, ${heardMoves} announced turns checked`
      : `durable: ${runs} runs, ${heardMoves} announced turns checked, ` +
        `${cutRuns} runs lost unsynced WAL bytes to the cut`);
    assert.ok(heardMoves > 0, 'moves were announced');
    assert.equal(cutRuns, RUNS, ON_PG ? 'every run crashed the database'
      : `${RUNS} runs cut unsynced bytes from the WAL (${runs} were played): a kill that left ` +
        'nothing unsynced tests nothing');
  });
