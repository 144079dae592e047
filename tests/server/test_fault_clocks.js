'use strict';
/*
 * test_fault_clocks.js — no one loses on time because the server could not
 * write its journal (issue 29): a seat's clock starts when its your_turn
 * is actually sent, and a journal fault that holds the message back
 * (behind the loop round's batch whose commit failed) holds its clock too
 * (server/match.c, start_clock; server/match_clock.c).
 *
 * Six live matches of two remote players each, 3 s a move (forfeit on
 * time), play on while the journal's disk is full (test hook
 * TESSERA_TEST_FAULT_FILE) for two and a half times that: the moves that met the
 * fault wait, their tables hear nothing, the next seats' your_turns are
 * held; once the fault clears, every match plays to its end by the rules
 * (none by timeout), and everything announced is in the journal after a
 * restart. Before the fix the seats whose your_turn was held lost on time
 * without ever being asked (a disk-full episode of the security review:
 * all 6 live matches ended `timeout`).
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { Server, Client, SLOW, tmpDir, createMatch, join, playUntilOver, rng, randomMove, sleep } = require('./lib');

require('./lib').sqliteOnly("its fault is injected into SQLite's file (disk full); PostgreSQL's journal holds its messages the same way (server/journal.c)");

const MATCHES = 6;
const MOVE_MS = 3000 * SLOW;
const FAULT_MS = 2.5 * MOVE_MS;

test('a disk-full episode during live matches: nothing lost, and no match ends by timeout because of it', async (t) => {
  const dir = tmpDir('fclock');
  const faultFile = path.join(dir, 'fault');
  fs.writeFileSync(faultFile, 'none\n');
  const srv = await Server.start({ dir, env: { TESSERA_TEST_FAULT_FILE: faultFile, TESSERA_TEST_SEED: '5' } });
  t.after(() => srv.cleanup().finally(() => fs.rmSync(dir, { recursive: true, force: true })));
  const host = await Client.connect(srv.url, { name: 'host' });

  const games = [];
  for (let i = 0; i < MATCHES; i++) {
    const { match, tokens } = await createMatch(host, [{ open: true }, { open: true }], {
      time_control: { move_ms: MOVE_MS, first_move_ms: MOVE_MS },
      policies: { timeout: 'forfeit', disconnect: 'forfeit' },
    });
    const spect = await Client.connect(srv.url, { name: 'spect' + i });
    await spect.request({ type: 'spectate', match }, 'spectating');
    const seats = [await Client.connect(srv.url, { name: `m${i}s0` }), await Client.connect(srv.url, { name: `m${i}s1` })];
    await join(seats[0], match, 0, tokens[0]);
    await join(seats[1], match, 1, tokens[1]);
    games.push({ match, spect, seats });
  }
  /* every seat answers at once (a few ms), a move refused under the fault
   * again after its fresh your_turn; 40 ms between moves, so that the
   * matches are mid-game when the disk fills */
  const over = games.flatMap((g, i) => g.seats.map((c, s) =>
    playUntilOver(c, { rng: rng(10 * i + s + 1), delayMs: 40, timeout: (FAULT_MS + 30000) * SLOW })));
  await Promise.all(games.map((g) => g.spect.expect((m) => m.type === 'update' && m.turn >= 6, 30000 * SLOW)));

  fs.writeFileSync(faultFile, 'disk_full\n');
  const fault = await srv.waitLog((l) => l.event === 'journal_fault', 10000 * SLOW);
  assert.equal(fault.fault, 'disk_full');
  /* the round's commit met it: moves were played that wait for it */
  assert.equal((await srv.waitLog((l) => l.event === 'storage_error' && l.what === 'append', 10000 * SLOW)).what, 'append');
  await sleep(FAULT_MS);
  fs.writeFileSync(faultFile, 'none\n');
  await srv.waitLog((l) => l.event === 'journal_recovered', 10000 * SLOW);

  const results = await Promise.all(over);
  for (let i = 0; i < MATCHES; i++) {
    const [a, b] = [results[2 * i], results[2 * i + 1]];
    assert.equal(a.type, 'game_over');
    assert.deepEqual(a.result, b.result);
    assert.equal(a.result.reason, 'normal', `match ${games[i].match} ended ${JSON.stringify(a.result)}`);
  }
  /* the server's own account: no match finished by timeout, none timed out */
  assert.equal(srv.events('match_finished').filter((l) => l.reason !== 'normal').length, 0,
    JSON.stringify(srv.events('match_finished')));
  assert.equal(srv.events('timeout').length, 0, JSON.stringify(srv.events('timeout')));

  /* nothing lost: after a restart without faults, each match's journal is
   * every update its spectator saw, in order, and no more */
  const seen = [];
  for (const g of games) {
    await g.spect.expect('game_over', 10000 * SLOW);
    seen.push(g.spect.all.filter((m) => m.type === 'update').map((u) => u.record));
  }
  assert.equal((await srv.stop()).code, 0, 'a clean stop');
  srv.env = {};
  await srv.restart();
  const c = await Client.connect(srv.url, { name: 'after' });
  for (let i = 0; i < MATCHES; i++) {
    const view = await c.request({ type: 'spectate', match: games[i].match }, 'spectating');
    const history = view.history || view.record?.turns || [];
    assert.ok(history.length >= seen[i].length, `match ${games[i].match}: journal ${history.length} >= announced ${seen[i].length}`);
    assert.deepEqual(history.slice(history.length - seen[i].length), seen[i], `match ${games[i].match}: what was announced is what was stored`);
  }
  c.close();
});

test('a seat resumed while its your_turn waits for the journal is told once', async (t) => {
  /* the your_turn of a move whose batch has not been stored waits
   * (tell_turn, clock_hold) and is sent when the batch is; a seat resumed
   * meanwhile was told at once as well, so it heard the same your_turn twice
   * and a client answering both had one refused (not_your_turn): seen with
   * clients that follow owner_url, which resume right after their join */
  const dir = tmpDir('fresume');
  const faultFile = path.join(dir, 'fault');
  fs.writeFileSync(faultFile, 'none\n');
  const srv = await Server.start({ dir, env: { TESSERA_TEST_FAULT_FILE: faultFile } });
  t.after(() => srv.cleanup().finally(() => fs.rmSync(dir, { recursive: true, force: true })));
  const host = await Client.connect(srv.url, { name: 'host' });
  const { match, tokens } = await createMatch(host, [{ open: true }, { open: true }],
    { time_control: { move_ms: 60000 } });
  const a = await Client.connect(srv.url, { name: 'a' });
  const b = await Client.connect(srv.url, { name: 'b' });
  await join(a, match, 0, tokens[0]);
  const jb = await join(b, match, 1, tokens[1]);
  const yt = await a.expect('your_turn', 10000 * SLOW);
  /* a's move meets a full disk: it is played, its batch waits, and so does b's your_turn */
  fs.writeFileSync(faultFile, 'disk_full\n');
  a.send({ type: 'move', match, turn: yt.turn, move: randomMove(yt, rng(3)) });
  await srv.waitLog((l) => l.event === 'journal_fault', 10000 * SLOW);
  /* b comes back on a new connection meanwhile */
  const b2 = await Client.connect(srv.url, { name: 'b2' });
  b2.send({ type: 'resume', resume_token: jb.resume_token });
  await sleep(300);
  fs.writeFileSync(faultFile, 'none\n');
  await srv.waitLog((l) => l.event === 'journal_recovered', 10000 * SLOW);
  const next = await b2.expect((m) => m.type === 'your_turn' && m.turn === yt.turn + 1, 10000 * SLOW);
  await sleep(500);
  const told = b2.all.filter((m) => m.type === 'your_turn' && m.turn === next.turn).length;
  assert.equal(told, 1, `b2 told its turn ${told} times: ${JSON.stringify(b2.all.map((m) => m.type))}`);
  b2.send({ type: 'move', match, turn: next.turn, move: randomMove(next, rng(4)) });
  const after = await b2.expect((m) => (m.type === 'update' && m.turn === next.turn) || m.type === 'error', 10000 * SLOW);
  assert.equal(after.type, 'update', JSON.stringify(after));
});
