'use strict';
/*
 * test_storage.js — the journal's failure paths (journal/journal.c,
 * docs/protocol.md "storage_error"):
 *   - a database that cannot be opened (a folder, a file that is not
 *     SQLite, a missing folder): `tessera serve` exits 1 at once, naming
 *     the path and the cause, and never listens;
 *   - a journal with corrupted rows: the damaged matches are reported
 *     (restore_failed, with the reason) and left in the database; every
 *     other match is restored and plays on;
 *   - the database turning read-only mid-match (test hook
 *     TESSERA_TEST_READONLY_AFTER, server/limits.h): a move made while the
 *     journal is known to fail is refused with storage_error, nothing of it
 *     is announced,
 *     the seat's clock restarts and your_turn is sent again; a move the
 *     server owes (timeout policy) is retried every second, not in a busy
 *     loop; after a restart on a writable database the match resumes where
 *     the journal left it.
 * The database is read and damaged with the sqlite3 command (scripts/deps.sh
 * test installs it); without it these tests fail, naming it.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawn, spawnSync } = require('node:child_process');
const { Server, Client, SLOW, CLOCK_SLACK, binary, tmpDir, createMatch, join, playUntilOver, rng, randomMove, isError, sleep,
  dbQuery, ON_PG } = require('./lib');

/* `tessera serve` that must fail to start: resolves with {code, stderr, listened}. */
function serveFails(args) {
  return new Promise((resolve, reject) => {
    const dir = tmpDir('nostart');
    const portFile = path.join(dir, 'port');
    const p = spawn(binary(), ['serve', '--port', '0', '--port-file', portFile, '--no-web', ...args],
      { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    p.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      p.kill('SIGKILL');
      reject(new Error('tessera serve did not exit:\n' + stderr));
    }, 15000 * SLOW);
    p.on('exit', (code, signal) => {
      clearTimeout(timer);
      const listened = fs.existsSync(portFile);
      fs.rmSync(dir, { recursive: true, force: true });
      resolve({ code, signal, stderr, listened });
    });
  });
}

test('a database that cannot be opened: exit 1 at once, naming the path and why',
  { skip: ON_PG && 'about a SQLite file (PostgreSQL down at start: tests/cluster/test_faults.js)' }, async () => {
  const dir = tmpDir('baddb');
  try {
    const notDb = path.join(dir, 'notes.txt');
    fs.writeFileSync(notDb, 'these are not the tables you are looking for\n'.repeat(100));
    const cases = [
      [dir, /is a directory/],
      [notDb, /not a database/],
      [path.join(dir, 'no', 'such', 'folder', 'x.db'), /does not exist/],
    ];
    for (const [db, why] of cases) {
      const r = await serveFails(['--db', db]);
      assert.equal(r.code, 1, `--db ${db}: exit ${r.code}, want 1:\n${r.stderr}`);
      assert.equal(r.listened, false, 'it never listened');
      const human = r.stderr.split('\n').find((l) => l.startsWith('tessera serve: '));
      assert.ok(human, `a plain message on stderr:\n${r.stderr}`);
      assert.ok(human.includes(db), `the message names the path: ${human}`);
      assert.match(human, why);
      const log = r.stderr.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
      assert.ok(log.some((l) => l.event === 'start_failed' && l.level === 'error' && why.test(l.reason)),
        'a start_failed log line with the reason');
    }
    assert.equal(fs.readFileSync(notDb, 'utf8').length, 4500, 'the file that is not a database is untouched');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('another program\'s SQLite file as --db: refused at start, naming it, and left as it was',
  { skip: ON_PG && 'about a SQLite file' }, async () => {
  /* issue 29: a foreign SQLite file given as --db was adopted and written to */
  const dir = tmpDir('foreigndb');
  try {
    const db = path.join(dir, 'grades.db');
    const made = spawnSync('sqlite3', [db, "CREATE TABLE grades(student TEXT, mark INTEGER); INSERT INTO grades VALUES('ada', 19);"],
      { encoding: 'utf8' });
    if (made.error)
      throw new Error('MISSING: the sqlite3 command (scripts/deps.sh test installs it): ' + made.error.message);
    fs.chmodSync(db, 0o644);
    const before = fs.readFileSync(db);
    const r = await serveFails(['--db', db]);
    assert.equal(r.code, 1, `exit ${r.code}, want 1:\n${r.stderr}`);
    assert.equal(r.listened, false, 'it never listened');
    const human = r.stderr.split('\n').find((l) => l.startsWith('tessera serve: '));
    assert.ok(human && human.includes(db), `a plain message naming the file:\n${r.stderr}`);
    assert.match(human, /is not a tessera journal \(it holds 1 table: grades, and no tessera schema\)/);
    assert.ok(fs.readFileSync(db).equals(before), 'its bytes are unchanged');
    assert.equal(fs.statSync(db).mode & 0o777, 0o644, 'its mode is unchanged');
    assert.deepEqual(fs.readdirSync(dir).sort(), ['grades.db'], 'no -wal, -shm or files folder beside it');
    /* an empty file, and a tessera journal, are still taken */
    const empty = path.join(dir, 'empty.db');
    fs.writeFileSync(empty, '');
    const srv = await Server.start({ tag: 'emptydb', db: empty });
    await srv.stop();
    await srv.restart();
    assert.equal((await srv.stop()).code, 0);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('corrupted journal rows: those matches are reported, the others restored', async (t) => {
  const srv = await Server.start({ tag: 'corrupt' });
  t.after(() => srv.cleanup());
  const c = await Client.connect(srv.url, { name: 'host' });
  /* four live matches, a few turns into each */
  const made = [];
  for (let i = 0; i < 4; i++) {
    const { match, tokens } = await createMatch(c, [{ bot: 'random' }, { open: true }],
      { time_control: { move_ms: 30000 }, policies: { reconnect_grace_ms: 60000 } });
    const p = await Client.connect(srv.url, { name: 'p' + i });
    const joined = await join(p, match, 1, tokens[1]);
    const r = rng(40 + i);
    await playUntilOver(p, { choose: (yt) => randomMove(yt, r), onTurn: (yt) => (yt.turn >= 6 ? 'stop' : null) });
    made.push({ match, resume: joined.resume_token, p });
  }
  assert.equal((await srv.stop()).code, 0);
  const [good, badMove, badSeats, good2] = made.map((x) => x.match);
  /* damage: a move the rules refuse, and seats that are not JSON */
  const plies = Number(dbQuery(srv, `SELECT count(*) FROM moves WHERE match='${badMove}'`));
  assert.ok(plies >= 10, `${plies} journaled plies`);
  if (srv.storage) /* PostgreSQL keeps a match's plies in runs (journal/pg.c): the one with ply 4 */
    dbQuery(srv, `UPDATE move_runs r SET plies = (SELECT string_agg(CASE WHEN r.ply + i - 1 = 4 ` +
      `THEN '1000000' || substr(x, strpos(x, ',')) ELSE x END, ';' ORDER BY i) ` +
      `FROM unnest(string_to_array(r.plies, ';')) WITH ORDINALITY AS p(x, i)) ` +
      `WHERE match='${badMove}' AND ply <= 4 AND ply + cardinality(string_to_array(plies, ';')) > 4`);
  else
    dbQuery(srv, `UPDATE moves SET move=1000000 WHERE match='${badMove}' AND ply=4`);
  assert.equal(dbQuery(srv, `SELECT move FROM moves WHERE match='${badMove}' AND ply=4`), '1000000');
  dbQuery(srv, `UPDATE matches SET seats='[{"kind":' WHERE id='${badSeats}'`);

  await srv.restart();
  /* the port file can come before the log lines are read: the restore's
   * summary is logged after every restore_failed */
  await srv.waitLog((l) => l.event === 'restored');
  const failed = srv.events('restore_failed');
  assert.deepEqual(failed.map((l) => l.match).sort(), [badMove, badSeats].sort(), 'both damaged matches reported');
  const why = Object.fromEntries(failed.map((l) => [l.match, l.reason]));
  assert.match(why[badMove], /journal move 4 /, 'the move is named');
  assert.match(why[badSeats], /seats/, 'the seats are named');
  assert.equal((await srv.waitLog((l) => l.event === 'restored', undefined, "the 'restored' line")).unfinished, 2,
    'the two others are restored');

  const c2 = await Client.connect(srv.url, { name: 'host2' });
  const live = (await c2.request({ type: 'list_matches', status: 'live' }, 'matches')).matches.map((m) => m.match);
  assert.deepEqual(live.sort(), [good, good2].sort());
  for (const m of [badMove, badSeats])
    assert.ok(isError(await c2.request({ type: 'spectate', match: m, id: 'x' }), 'unknown_match', 'x'));
  /* nothing was thrown away: the damaged rows are still there for a look */
  assert.equal(Number(dbQuery(srv, `SELECT count(*) FROM moves WHERE match='${badMove}'`)), plies);
  assert.equal(dbQuery(srv, `SELECT seats FROM matches WHERE id='${badSeats}'`), '[{"kind":');
  /* and a restored match plays on to the end */
  const p = await Client.connect(srv.url, { name: 'back' });
  const resumed = await p.request({ type: 'resume', resume_token: made[0].resume }, 'resumed');
  assert.equal(resumed.match, good);
  const over = await playUntilOver(p, { rng: rng(5) });
  assert.equal(over.result.reason, 'normal');
});

test('the database turns read-only mid-match: storage_error, nothing announced, the clock restarts',
  { skip: ON_PG && 'its test hook makes the SQLite connection read-only (PostgreSQL lost mid-match: tests/cluster/test_faults.js)' },
  async (t) => {
    /* Two remote seats, one move per turn and one draw per turn: append 2k
     * journals turn k's move, so with the journal read-only after 19
     * appends the move of turn 10 is the first that cannot be stored (the
     * seed makes the tile order, and so the absence of dead tiles before
     * it, reproducible; the test checks that assumption). */
    const MOVE = 2000;
    const srv = await Server.start({ tag: 'readonly', env: { TESSERA_TEST_SEED: '7', TESSERA_TEST_READONLY_AFTER: '19' } });
    t.after(() => srv.cleanup());
    const host = await Client.connect(srv.url, { name: 'host' });
    const { match, tokens } = await createMatch(host, [{ open: true }, { open: true }], {
      time_control: { move_ms: MOVE, first_move_ms: MOVE },
      policies: { timeout: 'random_move', disconnect: 'forfeit', reconnect_grace_ms: 60000 },
    });
    const spect = await Client.connect(srv.url, { name: 'spect' });
    await spect.request({ type: 'spectate', match }, 'spectating');
    const seats = [await Client.connect(srv.url, { name: 's0' }), await Client.connect(srv.url, { name: 's1' })];
    const joined = [await join(seats[0], match, 0, tokens[0]), await join(seats[1], match, 1, tokens[1])];
    const r = rng(11);
    let yt = null;
    for (let turn = 1; turn <= 10; turn++) {
      const who = seats[(turn - 1) % 2];
      yt = await who.expect((m) => m.type === 'your_turn' && m.turn === turn, 10000 * SLOW);
      if (turn === 10)
        break;
      const ok = await who.request({ type: 'move', turn, move: randomMove(yt, r) });
      assert.equal(ok.type, 'move_accepted', `turn ${turn}: ${JSON.stringify(ok)}`);
    }
    const ups = () => spect.all.filter((m) => m.type === 'update');
    await spect.expect((m) => m.type === 'update' && m.turn === 9);
    assert.ok(!ups().some((u) => u.record.discarded), 'no dead tile before turn 10 (the append count holds)');
    /* the draw of turn 10 was the 19th append: read-only from now on */
    assert.equal((await srv.waitLog((l) => l.event === 'test_readonly')).appends, 19);
    /* the journal meets the fault first with a write of its own, which is
     * refused at once: creating a match (a move whose loop round's commit
     * is the first to meet a fault waits for the journal instead, its table
     * told nothing: test_faults.js) */
    const early = await host.request({ type: 'create_match', game: 'carcassonne', seats: [{ bot: 'random' }, { open: true }], id: 'cm0' });
    assert.ok(isError(early, 'storage_error', 'cm0'), JSON.stringify(early));

    /* turn 10: the move cannot be journaled */
    const s1 = seats[1];
    const move = randomMove(yt, r);
    await sleep(300); /* so that a restarted clock shows: its deadline moves on by this */
    const sentAt = Date.now();
    const e = await s1.request({ type: 'move', turn: 10, move, id: 'm10' });
    assert.ok(isError(e, 'storage_error', 'm10'), JSON.stringify(e));
    /* the clock restarts: a fresh your_turn for the same turn, same tile */
    const again = await s1.expect((m) => m.type === 'your_turn' && m.turn === 10);
    assert.deepEqual(again.state, yt.state, 'nothing of the move was applied');
    assert.ok(again.time_left_ms <= MOVE && again.time_left_ms > MOVE - 1000 * SLOW,
      `the whole allowance again: ${again.time_left_ms} of ${MOVE}`);
    /* sent after the server got our move, which we sent at sentAt */
    const sentByServer = again.deadline - again.time_left_ms;
    assert.ok(sentByServer >= sentAt - CLOCK_SLACK, `the fresh your_turn went out at ${sentByServer}, after our move (${sentAt})`);
    /* restarted when the move was refused, 300 ms or more after turn 10 began */
    assert.ok(again.deadline >= yt.deadline + 300 - CLOCK_SLACK,
      `the deadline restarted: ${yt.deadline} -> ${again.deadline} (move sent at ${sentAt})`);
    /* the write that met the fault (the create_match above) is logged */
    const logged = await srv.waitLog((l) => l.event === 'storage_error');
    assert.equal(logged.what, 'create_match');
    assert.match(logged.sqlite, /readonly|read-only/i, 'the log says why: ' + logged.sqlite);
    /* sent again, refused again */
    const e2 = await s1.request({ type: 'move', turn: 10, move, id: 'm10b' });
    assert.ok(isError(e2, 'storage_error', 'm10b'), JSON.stringify(e2));
    const again2 = await s1.expect((m) => m.type === 'your_turn' && m.turn === 10);
    /* other requests are served; creating a match needs the journal too */
    assert.equal((await host.request({ type: 'ping' })).type, 'pong');
    const made = await host.request({ type: 'create_match', game: 'carcassonne', seats: [{ bot: 'random' }, { open: true }], id: 'cm' });
    assert.ok(isError(made, 'storage_error', 'cm'), JSON.stringify(made));

    /* now silent: the timeout policy (random_move) must play for the seat,
     * cannot journal it either, and tries again every second — no busy loop */
    await srv.waitLog((l) => l.event === 'timeout' && l.match === match, again2.time_left_ms + 10000 * SLOW, 'the timeout');
    await sleep(3000);
    const tries = srv.events('random_move').filter((l) => l.match === match).length;
    t.diagnostic(`random moves tried while read-only: ${tries} in about 3 s`);
    assert.ok(tries >= 2 && tries <= 6, `retried about once a second: ${tries} tries in 3 s`);
    assert.ok(srv.events('storage_error').length < 40, `${srv.events('storage_error').length} storage errors logged`);
    assert.equal((await host.request({ type: 'ping' })).type, 'pong', 'the server is responsive');
    /* the refused your_turn's move is answered not_your_turn: the server owes this turn */
    const e3 = await s1.request({ type: 'move', turn: 10, move, id: 'm10c' });
    assert.ok(isError(e3, 'not_your_turn', 'm10c'), JSON.stringify(e3));
    /* nothing of turn 10 was announced to anyone */
    assert.equal(ups().length, 9, 'no update for turn 10');
    for (const x of [spect, ...seats])
      assert.ok(!x.all.some((m) => m.type === 'game_over'));

    /* restart on a writable database: the match is where the journal left it */
    assert.equal((await srv.stop()).code, 0);
    srv.env = {};
    await srv.restart();
    const view = await (await Client.connect(srv.url, { name: 'spect2' })).request({ type: 'spectate', match }, 'spectating');
    assert.equal(view.history.length, 9, 'nine turns journaled');
    assert.deepEqual(view.history, ups().map((u) => u.record));
    const b0 = await Client.connect(srv.url, { name: 'b0' }), b1 = await Client.connect(srv.url, { name: 'b1' });
    await b0.request({ type: 'resume', resume_token: joined[0].resume_token }, 'resumed');
    await b1.request({ type: 'resume', resume_token: joined[1].resume_token }, 'resumed');
    const yt10 = await b1.expect('your_turn');
    assert.equal(yt10.turn, 10);
    assert.equal(yt10.state.tile, yt.state.tile, 'the tile drawn for turn 10 stayed drawn');
    b1.send({ type: 'move', turn: 10, move });
    const [o0, o1] = await Promise.all([playUntilOver(b0, { rng: rng(1) }), playUntilOver(b1, { rng: rng(2) })]);
    assert.equal(o0.result.reason, 'normal');
    assert.deepEqual(o0, o1);
  });
