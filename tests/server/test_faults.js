'use strict';
/*
 * test_faults.js — faults of the journal, injected where they happen
 * (journal/journal.c, docs/operations.md "When the journal fails"):
 *   - disk full and I/O error (test hook TESSERA_TEST_FAULT_FILE: a wrapped
 *     SQLite VFS fails writes and syncs while the file names a fault): a
 *     player's move whose loop round's commit meets the fault waits, and
 *     nothing more is told to its table until it is stored; a move made
 *     while the fault is known is refused with storage_error, nothing of it
 *     applied; the log says what failed (journal_fault), /metrics and
 *     /readyz show it; once the fault clears the waiting move is stored and
 *     told, the refused one is accepted, the log says journal_recovered,
 *     and the match plays to its end;
 *   - the same faults under the server's own moves (bots, draws): the match
 *     pauses, its table is told once (storage_error naming the match) —
 *     after the fault when the moves that met it were this match's — and
 *     it goes on by itself when the fault clears;
 *   - an idle server (no match writing) notices a fault end by itself: it
 *     tries the journal once a second, and /readyz follows;
 *   - the database locked by another process (the sqlite3 shell holding a
 *     write transaction): the same, with the kind `locked`: the move waits
 *     for the lock, and is told once it is released;
 *   - a damaged database file at start-up: exit 1 with a message naming the
 *     file and what to do, never listening, the file left as it was;
 * and in every case: no crash, and every move announced is in the journal
 * (the history after a restart starts with everything that was announced).
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');
const { spawn } = require('node:child_process');
const { Server, Client, SLOW, binary, tmpDir, createMatch, join, playUntilOver, rng, randomMove, isError, sleep, httpGet } =
  require('./lib');

require('./lib').sqliteOnly("its faults are injected into SQLite's file (disk full, I/O error, a lock, a damaged file); PostgreSQL's are tests/cluster/test_faults.js");

/* A server whose journal faults are injected through a file; its seed is
 * fixed, so the tiles (and the turns the server plays itself) are too. */
async function faultServer(t, tag, extra = {}) {
  const dir = tmpDir(tag);
  const faultFile = path.join(dir, 'fault');
  fs.writeFileSync(faultFile, 'none\n');
  const srv = await Server.start({ dir, env: { TESSERA_TEST_FAULT_FILE: faultFile, TESSERA_TEST_SEED: '11' }, ...extra });
  t.after(() => srv.cleanup().finally(() => fs.rmSync(dir, { recursive: true, force: true })));
  srv.fault = (word) => fs.writeFileSync(faultFile, word + '\n');
  return srv;
}

/* The value of one sample of GET /metrics, e.g. ('tessera_journal_ok'). */
async function metric(srv, sample) {
  const r = await httpGet(`http://127.0.0.1:${srv.port}/metrics`);
  assert.equal(r.status, 200);
  const line = r.body.split('\n').find((l) => l.startsWith(sample + ' '));
  assert.ok(line, `${sample} in /metrics`);
  return Number(line.slice(sample.length + 1));
}

/* Send a move until it is accepted (a fault just cleared: the journal is
 * tried again at most once a second). Returns the refusals seen. */
async function moveUntilAccepted(c, turn, move, ms) {
  const t0 = Date.now();
  let refused = 0;
  for (;;) {
    const r = await c.request({ type: 'move', turn, move, id: 'retry' + refused });
    if (r.type === 'move_accepted')
      return refused;
    assert.ok(isError(r, 'storage_error', 'retry' + refused), JSON.stringify(r));
    refused++;
    assert.ok(Date.now() - t0 < ms, `the move is still refused after ${ms} ms`);
    await c.expect((m) => m.type === 'your_turn' && m.turn === turn);
    await sleep(250);
  }
}

/* Stop, restart without faults, and check that every update the spectator
 * saw is in the journal, in order. Returns the journal's history. */
async function announcedWereStored(srv, match, updates) {
  assert.equal((await srv.stop()).code, 0, 'a clean stop');
  srv.env = {};
  await srv.restart();
  const c = await Client.connect(srv.url, { name: 'after' });
  const view = await c.request({ type: 'spectate', match }, 'spectating');
  const history = view.history || view.record?.turns || [];
  assert.ok(history.length >= updates.length, `journal ${history.length} >= announced ${updates.length}`);
  assert.deepEqual(history.slice(0, updates.length), updates, 'what was announced is what was stored');
  c.close();
  return history;
}

/* Two remote seats of a new match, joined, up to the your_turn of `turn`
 * (the moves before it played and accepted); the seats and that your_turn. */
async function playTo(srv, host, turn, r, extra = {}) {
  const { match, tokens } = await createMatch(host, [{ open: true }, { open: true }],
    { time_control: { move_ms: 120000 }, ...extra });
  const seats = [await Client.connect(srv.url, { name: 's0' }), await Client.connect(srv.url, { name: 's1' })];
  await join(seats[0], match, 0, tokens[0]);
  await join(seats[1], match, 1, tokens[1]);
  let yt;
  for (let k = 1; k <= turn; k++) {
    const who = seats[(k - 1) % 2];
    yt = await who.expect((m) => m.type === 'your_turn' && m.turn === k, 10000 * SLOW);
    if (k < turn)
      assert.equal((await who.request({ type: 'move', turn: k, move: randomMove(yt, r) })).type, 'move_accepted');
  }
  return { match, seats, yt, who: seats[(turn - 1) % 2] };
}

for (const kind of ['disk_full', 'io_error']) {
  test(`${kind} under a player's move: it waits, nothing announced; moves after it refused; all goes on once it clears`, async (t) => {
    /* The journal commits the moves of a loop round together, after the
     * round (journal/journal.c, "Batches"). A fault met by that commit keeps
     * the round's moves (already played in memory) and holds everything
     * their tables would be told until they are stored: the mover hears
     * nothing, not even move_accepted, until the fault clears. A move made
     * while the fault is known is refused at once with storage_error,
     * nothing of it applied, the clock restarted. */
    const srv = await faultServer(t, 'f' + kind);
    const host = await Client.connect(srv.url, { name: 'host' });
    const r = rng(kind.length);
    const FAULT_TURN = 5;
    const a = await playTo(srv, host, FAULT_TURN, r);
    const b = await playTo(srv, host, 3, r);
    const spect = await Client.connect(srv.url, { name: 'spect' });
    const view = await spect.request({ type: 'spectate', match: a.match }, 'spectating');
    assert.equal(view.history.length, FAULT_TURN - 1);
    const ups = () => spect.all.filter((m) => m.type === 'update');

    srv.fault(kind);
    /* match a: its move meets the fault at the round's commit */
    const move = randomMove(a.yt, r);
    const heard = a.who.all.length;
    a.who.send({ type: 'move', turn: FAULT_TURN, move, id: 'm' });
    const logged = await srv.waitLog((l) => l.event === 'journal_fault');
    assert.equal(logged.fault, kind, JSON.stringify(logged));
    assert.equal(logged.level, 'error');
    assert.ok(logged.sqlite.length > 0, 'SQLite\'s message is in the log line');
    assert.equal((await srv.waitLog((l) => l.event === 'storage_error')).what, 'append', 'the round\'s commit failed');
    /* the operator sees it */
    assert.equal(await metric(srv, 'tessera_journal_ok'), 0);
    assert.ok(await metric(srv, `tessera_journal_faults_total{kind="${kind}"}`) >= 1);
    const ready = await httpGet(`http://127.0.0.1:${srv.port}/readyz`);
    assert.equal(ready.status, 503);
    assert.match(ready.body, new RegExp(`journal cannot be written \\(${kind}`));
    assert.equal((await httpGet(`http://127.0.0.1:${srv.port}/healthz`)).status, 200, 'alive all the same');
    /* other requests are served; a new match needs the journal and is refused */
    assert.equal((await host.request({ type: 'ping' })).type, 'pong');
    const made = await host.request({ type: 'create_match', game: 'carcassonne', seats: [{ open: true }, { open: true }], id: 'c' });
    assert.ok(isError(made, 'storage_error', 'c'), JSON.stringify(made));

    /* match b: a move while the fault is known is refused at once */
    const bmove = randomMove(b.yt, r);
    const e = await b.who.request({ type: 'move', turn: 3, move: bmove, id: 'b' });
    assert.ok(isError(e, 'storage_error', 'b'), JSON.stringify(e));
    const again = await b.who.expect((m) => m.type === 'your_turn' && m.turn === 3);
    assert.deepEqual(again.state, b.yt.state, 'nothing of the move was applied');
    await sleep(1500); /* a second try of the journal comes and fails too */
    assert.ok(srv.events('storage_error').length >= 2, 'the round\'s commit is tried again');
    const e2 = await b.who.request({ type: 'move', turn: 3, move: bmove, id: 'b2' });
    assert.ok(isError(e2, 'storage_error', 'b2'), JSON.stringify(e2));
    await b.who.expect((m) => m.type === 'your_turn' && m.turn === 3);
    /* match a's table has heard nothing since the move */
    assert.equal(a.who.all.length, heard, `the mover heard nothing: ${a.who.tail()}`);
    assert.equal(ups().length, 0, 'no update while the journal fails');
    assert.ok(!spect.all.some((m) => m.type === 'error'), 'nor anything else');

    /* the fault clears: match a's move is stored and told, b's goes through */
    srv.fault('none');
    const ok = await a.who.expect((m) => m.id === 'm', 10000 * SLOW);
    assert.equal(ok.type, 'move_accepted', JSON.stringify(ok));
    assert.equal(ok.turn, FAULT_TURN);
    const up = await spect.expect((m) => m.type === 'update' && m.turn === FAULT_TURN);
    assert.equal(up.by, 'player');
    const rec = await srv.waitLog((l) => l.event === 'journal_recovered');
    assert.equal(rec.fault, kind);
    assert.equal(await metric(srv, 'tessera_journal_ok'), 1);
    assert.equal((await httpGet(`http://127.0.0.1:${srv.port}/readyz`)).status, 200);
    await moveUntilAccepted(b.who, 3, bmove, 10000 * SLOW);
    const [o0, o1] = await Promise.all([playUntilOver(a.seats[0], { rng: rng(1) }), playUntilOver(a.seats[1], { rng: rng(2) })]);
    assert.equal(o0.result.reason, 'normal');
    assert.deepEqual(o0.result, o1.result);
    await spect.expect('game_over');
    assert.equal(srv.exit, null, 'the server is running');
    const history = await announcedWereStored(srv, a.match, [...view.history, ...ups().map((u) => u.record)]);
    assert.equal(history.length, view.history.length + ups().length, 'a finished match: all of it, nothing more');
  });
}

test('the server\'s own moves (bots, draws) pause under a fault and go on after it', async (t) => {
  const srv = await faultServer(t, 'fbots');
  const host = await Client.connect(srv.url, { name: 'host' });
  /* bots slow enough to fault in the middle of the match */
  const { match } = await createMatch(host, [{ bot: 'mcts:ms=150' }, { bot: 'mcts:ms=150' }]);
  const spect = await Client.connect(srv.url, { name: 'spect' });
  /* the bots may have moved before the spectator came: those turns are in its view */
  const view = await spect.request({ type: 'spectate', match }, 'spectating');
  const before = view.history || view.record?.turns || [];
  await spect.expect((m) => m.type === 'update' && m.turn >= 3, 20000 * SLOW);
  const ups = () => spect.all.filter((m) => m.type === 'update');

  srv.fault('io_error');
  /* the round that meets the fault holds this match's moves: its table is
   * told nothing more (not even the pause) until they are stored */
  const paused = await srv.waitLog((l) => l.event === 'match_paused' && l.match === match, 10000 * SLOW);
  assert.ok(['bot_move', 'draw'].includes(paused.waits_to), JSON.stringify(paused));
  await sleep(500); /* what was in flight lands; then nothing moves */
  const held = spect.all.length;
  await sleep(2500);
  assert.equal(spect.all.length, held, 'nothing told while the journal fails');
  assert.ok(!spect.all.some((m) => m.type === 'error'), 'not even the pause: it waits behind the moves');
  const tries = srv.events('storage_error').length;
  assert.ok(tries >= 2 && tries <= 10, `the journal is tried about once a second: ${tries} failed writes in 3 s`);

  srv.fault('none');
  await srv.waitLog((l) => l.event === 'match_resumed' && l.match === match, 10000 * SLOW);
  const notice = await spect.expect((m) => m.type === 'error', 10000 * SLOW);
  assert.ok(isError(notice, 'storage_error'), JSON.stringify(notice));
  assert.equal(notice.match, match, 'the notice names the match');
  assert.match(notice.message, /paused/);
  const at = ups().length;
  await spect.expect((m) => m.type === 'update' && m.turn > at + 2, 20000 * SLOW);
  assert.equal(spect.all.filter((m) => m.type === 'error').length, 1, 'the table is told once');
  assert.equal(srv.exit, null, 'the server is running');
  await announcedWereStored(srv, match, [...before, ...ups().map((u) => u.record)]);
});

test('an idle server sees the fault begin and clear by itself (readiness follows)', async (t) => {
  const srv = await faultServer(t, 'fidle');
  const c = await Client.connect(srv.url, { name: 'c' });
  srv.fault('disk_full');
  const made = await c.request({ type: 'create_match', game: 'carcassonne', seats: [{ open: true }, { open: true }], id: 'c1' });
  assert.ok(isError(made, 'storage_error', 'c1'), JSON.stringify(made));
  assert.equal((await srv.waitLog((l) => l.event === 'journal_fault')).fault, 'disk_full');
  assert.equal((await httpGet(`http://127.0.0.1:${srv.port}/readyz`)).status, 503);
  /* nobody writes now: the server tries the journal itself, about once a second */
  await srv.waitLog((l) => l.event === 'storage_error' && l.what === 'probe', 5000 * SLOW, 'a probe of the journal');
  srv.fault('none');
  const rec = await srv.waitLog((l) => l.event === 'journal_recovered', 5000 * SLOW, 'journal_recovered');
  assert.equal(rec.fault, 'disk_full');
  assert.equal((await httpGet(`http://127.0.0.1:${srv.port}/readyz`)).status, 200, 'ready again, with no client action');
  assert.equal(await metric(srv, 'tessera_journal_ok'), 1);
  const again = await c.request({ type: 'create_match', game: 'carcassonne', seats: [{ open: true }, { open: true }] });
  assert.equal(again.type, 'match_created');
});

test('a database locked by another process: the kind is `locked`, and play resumes when it is released', async (t) => {
  const srv = await faultServer(t, 'flocked');
  const host = await Client.connect(srv.url, { name: 'host' });
  const { match, tokens } = await createMatch(host, [{ open: true }, { open: true }],
    { time_control: { move_ms: 120000 } });
  const seats = [await Client.connect(srv.url, { name: 's0' }), await Client.connect(srv.url, { name: 's1' })];
  await join(seats[0], match, 0, tokens[0]);
  await join(seats[1], match, 1, tokens[1]);
  const r = rng(9);
  let yt = await seats[0].expect((m) => m.type === 'your_turn' && m.turn === 1);
  assert.equal((await seats[0].request({ type: 'move', turn: 1, move: randomMove(yt, r) })).type, 'move_accepted');
  yt = await seats[1].expect((m) => m.type === 'your_turn' && m.turn === 2);

  /* an operator's sqlite3 shell holding a write transaction */
  const shell = spawn('sqlite3', [srv.db], { stdio: ['pipe', 'pipe', 'pipe'] });
  shell.on('error', (e) => assert.fail('MISSING: the sqlite3 command (scripts/deps.sh test installs it): ' + e.message));
  t.after(() => shell.kill('SIGKILL'));
  let out = '';
  shell.stdout.on('data', (d) => (out += d));
  shell.stdin.write("BEGIN IMMEDIATE;\nINSERT INTO meta VALUES('fault-test', 'x');\nSELECT 'held';\n");
  for (const t0 = Date.now(); !out.includes('held'); await sleep(20))
    assert.ok(Date.now() - t0 < 10000 * SLOW, 'the shell did not take the lock');

  /* the move's round cannot commit (SQLite waits [journal] busy_timeout_ms
   * for the lock, then gives up): the move waits, its table is told nothing */
  const move = randomMove(yt, r);
  const heard = seats[1].all.length;
  seats[1].send({ type: 'move', turn: 2, move, id: 'm' });
  const logged = await srv.waitLog((l) => l.event === 'journal_fault');
  assert.equal(logged.fault, 'locked', JSON.stringify(logged));
  assert.match(logged.sqlite, /locked|busy/i);
  await sleep(500);
  assert.equal(seats[1].all.length, heard, `nothing told while the lock is held: ${seats[1].tail()}`);

  shell.stdin.end('ROLLBACK;\n');
  await new Promise((res) => shell.on('exit', res));
  const ok = await seats[1].expect((m) => m.id === 'm', 10000 * SLOW);
  assert.equal(ok.type, 'move_accepted', JSON.stringify(ok));
  assert.equal((await srv.waitLog((l) => l.event === 'journal_recovered')).fault, 'locked');
  const [o0] = await Promise.all([playUntilOver(seats[0], { rng: rng(3) }), playUntilOver(seats[1], { rng: rng(4) })]);
  assert.equal(o0.result.reason, 'normal');
});

test('a damaged database at start-up: exit 1, naming the file, which is left as it was', async (t) => {
  /* a real journal: a finished bot match, and a stop that checkpoints it into the file */
  const srv = await Server.start({ tag: 'fdamaged' });
  t.after(() => srv.cleanup());
  const c = await Client.connect(srv.url, { name: 'host' });
  const { match } = await createMatch(c, [{ bot: 'random' }, { bot: 'random' }]);
  /* two random bots may have finished already (a few ms): then the view says so */
  if ((await c.request({ type: 'spectate', match }, 'spectating')).status !== 'finished')
    await c.expect('game_over', 30000 * SLOW);
  assert.equal((await srv.stop()).code, 0);
  const good = fs.readFileSync(srv.db);
  assert.ok(good.length >= 8 * 4096, `${good.length} bytes`);

  const serve = (db, args = []) => new Promise((resolve, reject) => {
    const portFile = db + '.port';
    const p = spawn(binary(), ['serve', '--port', '0', '--port-file', portFile, '--no-web', '--db', db, ...args],
      { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    p.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      p.kill('SIGKILL');
      reject(new Error('tessera serve did not exit:\n' + stderr));
    }, 20000 * SLOW);
    p.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stderr, listened: fs.existsSync(portFile) });
    });
  });
  const damaged = {
    /* pages in the middle overwritten */
    pages: Buffer.concat([good.subarray(0, 2 * 4096), Buffer.alloc(3 * 4096, 0xa5), good.subarray(5 * 4096)]),
    /* cut short: half the file */
    truncated: good.subarray(0, Math.floor(good.length / 2 / 4096) * 4096 + 100),
  };
  for (const [name, bytes] of Object.entries(damaged)) {
    const db = path.join(srv.dir, name + '.db');
    fs.writeFileSync(db, bytes);
    const sum = crypto.createHash('sha256').update(bytes).digest('hex');
    const r = await serve(db);
    assert.equal(r.signal, null, `${name}: no crash (${r.signal})`);
    assert.equal(r.code, 1, `${name}: exit ${r.code}:\n${r.stderr}`);
    assert.equal(r.listened, false, `${name}: never listened`);
    const human = r.stderr.split('\n').find((l) => l.startsWith('tessera serve: '));
    assert.ok(human, `${name}: a plain message:\n${r.stderr}`);
    assert.ok(human.includes(db), `${name}: names the file: ${human}`);
    assert.match(human.replace(db, 'DB'), /damaged/, name);
    assert.match(human, /backup/, `${name}: says what to do`);
    assert.equal(crypto.createHash('sha256').update(fs.readFileSync(db)).digest('hex'), sum, `${name}: the file is untouched`);
  }
  /* the undamaged journal still starts */
  srv.env = {};
  await srv.restart();
  const c2 = await Client.connect(srv.url, { name: 'again' });
  const list = await c2.request({ type: 'list_matches', status: 'finished' }, 'matches');
  assert.ok(list.matches.some((m) => m.match === match));
});
