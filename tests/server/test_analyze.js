'use strict';
/*
 * test_analyze.js — the `analyze` message (docs/protocol.md, docs/analysis.md;
 * issue 27): a finished match analysed on the server's pool, two viewers
 * asking at once served by one job (the server logs one `analysed` with two
 * waiters), the next viewer served from the cache (`cached`: true, the same
 * report), after a restart too (the cache is in the journal's database);
 * the report is `tessera analyze`'s layout with one entry per record turn;
 * a match not finished, an unknown one and a bad message are refused; a
 * connection waiting for one analysis may not ask for another, and past two
 * jobs at once the server says too_many. TESSERA_TEST_ANALYZE_SIMS keeps the
 * searches small (a second a game); TESSERA_TEST_ANALYZE_HOLD holds every job
 * until the test creates a file, so that the requests meet jobs certainly
 * under way, on a fast machine as on a loaded one. A record the client
 * sends (a three-seat Carcassonne game) is analysed the same way, not stored
 * (the same record twice: two jobs, one report), under the same per-connection
 * limit; a malformed record, an illegal move (replay's code and words), both
 * match and record, and a record past the message limit are refused. A
 * crash in the analysis (TESSERA_TEST_ANALYZE_CRASH) ends its fenced
 * process: the viewer gets `internal_error` with what ended it, and the server,
 * its connection and its matches go on. Past its memory limit
 * (TESSERA_TEST_ANALYZE_MEM_MB lowers it) the analysis ends with
 * `out_of_memory` and says the limit.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { Server, Client, SLOW, isError } = require('./lib');

async function waitFinished(c, match) {
  for (let i = 0; i < 400; i++) {
    const listed = await c.request({ type: 'list_matches', status: 'finished' }, 'matches');
    if (listed.matches.find((x) => x.match === match))
      return;
    await new Promise((r) => setTimeout(r, 50 * SLOW));
  }
  throw new Error('match ' + match + ' did not finish');
}

test('analyze: one job for two viewers, then the cache, across a restart', async (t) => {
  const srv = await Server.start({ tag: 'analyze', env: { TESSERA_TEST_ANALYZE_SIMS: '40' } });
  const hold = path.join(srv.dir, 'go');
  srv.env.TESSERA_TEST_ANALYZE_HOLD = hold;
  await srv.stop();
  await srv.restart(); /* now with the hold */
  t.after(() => srv.cleanup());
  const a = await Client.connect(srv.url, { name: 'viewer-a' });
  const b = await Client.connect(srv.url, { name: 'viewer-b' });
  const made = await a.request({ type: 'create_match', game: 'reversi',
    seats: [{ bot: 'mcts:sims=30' }, { bot: 'random' }] }, 'match_created');
  const match = made.match;
  const others = [];
  for (let i = 0; i < 2; i++)
    others.push((await a.request({ type: 'create_match', game: 'dodgem',
      seats: [{ bot: 'random' }, { bot: 'random' }] }, 'match_created')).match);

  /* not finished yet: an open-seat match waits forever */
  const waiting = await a.request({ type: 'create_match', game: 'dodgem', seats: [{ open: true }, { bot: 'random' }] },
    'match_created');
  const early = await a.request({ id: 'early', type: 'analyze', match: waiting.match });
  assert.ok(isError(early, 'bad_message', 'early'), JSON.stringify(early));
  assert.match(early.message, /finished/);
  const unknown = await a.request({ id: 'u', type: 'analyze', match: 'nosuchmatch' });
  assert.ok(isError(unknown, 'unknown_match', 'u'), JSON.stringify(unknown));
  const bad = await a.request({ id: 'x', type: 'analyze', match: 17 });
  assert.ok(isError(bad, 'bad_message', 'x'), JSON.stringify(bad));

  await waitFinished(a, match);
  for (const m of others)
    await waitFinished(a, m);
  const record = (await a.request({ type: 'get_record', match }, 'record')).record;
  /* two viewers of one match: one job, held until the file exists */
  a.send({ id: 'a1', type: 'analyze', match });
  b.send({ id: 'b1', type: 'analyze', match });
  await b.request({ type: 'ping' }, 'pong'); /* b's analyze was handled: it joined the job */
  /* a waits already: no second request of its own */
  const second = await a.request({ id: 'a2', type: 'analyze', match: others[0] });
  assert.ok(isError(second, 'too_many', 'a2'), JSON.stringify(second));
  /* a second job for another viewer; a third is past the server's two */
  const c2 = await Client.connect(srv.url, { name: 'viewer-c2' });
  const e3 = await Client.connect(srv.url, { name: 'viewer-e3' });
  c2.send({ id: 'c2', type: 'analyze', match: others[0] });
  await c2.request({ type: 'ping' }, 'pong');
  const third = await e3.request({ id: 'e3', type: 'analyze', match: others[1] });
  assert.ok(isError(third, 'too_many', 'e3'), JSON.stringify(third));
  assert.equal(srv.events('analysed').length, 0, 'nothing done while held');
  fs.writeFileSync(hold, 'go');
  const ra = await a.expect((m) => m.id === 'a1', 60000 * SLOW);
  const rb = await b.expect((m) => m.id === 'b1', 60000 * SLOW);
  const rc2 = await c2.expect((m) => m.id === 'c2', 60000 * SLOW);
  for (const r of [ra, rb]) {
    assert.equal(r.type, 'analysis', JSON.stringify(r).slice(0, 300));
    assert.equal(r.match, match);
    assert.equal(r.cached, false, 'both waited for the job');
  }
  assert.equal(rc2.type, 'analysis');
  assert.equal(rc2.analysis.game, 'dodgem');
  assert.deepEqual(rb.analysis, ra.analysis, 'both viewers got the same report');
  const jobs = await srv.waitLog((l) => l.event === 'analysed' && l.match === match);
  assert.equal(jobs.code, 'ok');
  assert.equal(jobs.waiters, 2, 'one job served both viewers');
  assert.equal(srv.events('analysed').filter((l) => l.match === match).length, 1);
  /* the refused viewer may ask again once its first is answered: from the cache now */
  const again = await a.request({ id: 'a3', type: 'analyze', match: others[0] }, 'analysis', 30000 * SLOW);
  assert.equal(again.cached, true);
  assert.deepEqual(again.analysis, rc2.analysis);

  const rep = ra.analysis;
  assert.equal(rep.format, 'tessera-analysis');
  assert.equal(rep.game, 'reversi');
  assert.equal(rep.finished, true);
  assert.equal(rep.turns.length, record.turns.length, 'one entry per record turn');
  assert.equal(rep.search.sims, 40);
  const d = rep.decomposition;
  assert.ok(Math.abs(d.luck + d.skill - d.final) < 1e-3, JSON.stringify(d));
  assert.equal(d.final, record.result.scores[0] - record.result.scores[1]);
  for (const turn of rep.turns.filter((x) => x.played)) {
    assert.ok(turn.value.win >= 0 && turn.value.win <= 1);
    assert.ok(turn.best_move && typeof turn.best_move === 'object', JSON.stringify(turn));
  }

  /* a third viewer: at once, from the cache */
  const c = await Client.connect(srv.url, { name: 'viewer-c' });
  const rc = await c.request({ type: 'analyze', match }, 'analysis');
  assert.equal(rc.cached, true);
  assert.deepEqual(rc.analysis, ra.analysis);

  /* after a restart the journal's database still has it */
  a.close();
  await srv.stop();
  await srv.restart();
  const d2 = await Client.connect(srv.url, { name: 'viewer-d' });
  const rd = await d2.request({ type: 'analyze', match }, 'analysis', 30000 * SLOW);
  assert.equal(rd.cached, true, 'served from the journal after a restart');
  assert.deepEqual(rd.analysis, ra.analysis);
  assert.equal(srv.events('analysed').length, 0, 'nothing analysed again after the restart');
});

test('analyze: a job under way when the server stops ends at once, nothing stored', async (t) => {
  const srv = await Server.start({ tag: 'analyze-stop', env: { TESSERA_TEST_ANALYZE_SIMS: '40' } });
  const hold = path.join(srv.dir, 'never');
  srv.env.TESSERA_TEST_ANALYZE_HOLD = hold; /* the file is never made: held until the stop */
  await srv.stop();
  await srv.restart();
  t.after(() => srv.cleanup());
  const a = await Client.connect(srv.url, { name: 'stopper' });
  const made = await a.request({ type: 'create_match', game: 'dodgem', seats: [{ bot: 'random' }, { bot: 'random' }] },
    'match_created');
  await waitFinished(a, made.match);
  a.send({ id: 'held', type: 'analyze', match: made.match });
  await a.request({ type: 'ping' }, 'pong'); /* the job is on the pool, held */
  const t0 = Date.now();
  const exit = await srv.stop();
  assert.equal(exit.code, 0, JSON.stringify(exit));
  assert.ok(Date.now() - t0 < 10000 * SLOW, 'stopped without waiting for the analysis');
  const line = srv.events('analysed').find((l) => l.match === made.match);
  assert.ok(line, 'the job ended: ' + srv.stderr.slice(-1500));
  assert.equal(line.code, 'shutting_down');
  /* nothing was stored: after a restart the analysis runs (held no more) */
  delete srv.env.TESSERA_TEST_ANALYZE_HOLD;
  await srv.restart();
  const b = await Client.connect(srv.url, { name: 'after' });
  const r = await b.request({ type: 'analyze', match: made.match }, 'analysis', 60000 * SLOW);
  assert.equal(r.cached, false);
});

test('analyze: a crash in the analysis ends its fenced process, not the server', async (t) => {
  /* TESSERA_TEST_ANALYZE_CRASH: the fenced child dereferences NULL before it searches */
  const srv = await Server.start({ tag: 'analyze-crash',
    env: { TESSERA_TEST_ANALYZE_SIMS: '20', TESSERA_TEST_ANALYZE_CRASH: '1' } });
  t.after(() => srv.cleanup());
  const a = await Client.connect(srv.url, { name: 'crash-viewer' });
  const made = await a.request({ type: 'create_match', game: 'dodgem', seats: [{ bot: 'random' }, { bot: 'random' }] },
    'match_created');
  await waitFinished(a, made.match);
  const record = (await a.request({ type: 'get_record', match: made.match }, 'record')).record;
  /* a match under way meanwhile: an open seat, its bot waiting */
  const waiting = await a.request({ type: 'create_match', game: 'reversi', seats: [{ open: true }, { bot: 'random' }] },
    'match_created');
  const r = await a.request({ id: 'c1', type: 'analyze', match: made.match }, null, 60000 * SLOW);
  assert.ok(isError(r, 'internal_error', 'c1'), JSON.stringify(r));
  /* under ASan its SEGV handler reads /proc/self/exe first, which the fence refuses */
  const ended = process.env.TESSERA_SANITIZED === '1'
    ? /^the analysis failed: the fenced process (was ended by signal 11|made a system call its fence does not allow)/
    : /^the analysis failed: the fenced process was ended by signal 11 \(Segmentation fault\)$/;
  assert.match(r.message, ended);
  const line = await srv.waitLog((l) => l.event === 'analysed' && l.match === made.match);
  assert.equal(line.code, 'internal_error');
  assert.equal(line.reason, r.message);
  /* a client's record: the same */
  const r2 = await a.request({ id: 'c2', type: 'analyze', record }, null, 60000 * SLOW);
  assert.ok(isError(r2, 'internal_error', 'c2'), JSON.stringify(r2));
  /* the same server, the same connection: the waiting match is there and can be played */
  const listed = await a.request({ type: 'list_matches' }, 'matches');
  assert.ok(listed.matches.find((x) => x.match === waiting.match), JSON.stringify(listed).slice(0, 300));
  const other = await a.request({ type: 'create_match', game: 'dodgem', seats: [{ bot: 'random' }, { bot: 'random' }] },
    'match_created');
  await waitFinished(a, other.match);
  /* nothing stored for the crashed job: a second request runs it again (and fails again) */
  const r3 = await a.request({ id: 'c3', type: 'analyze', match: made.match }, null, 60000 * SLOW);
  assert.ok(isError(r3, 'internal_error', 'c3'), JSON.stringify(r3));
  assert.equal(srv.events('analysed').filter((l) => l.match === made.match).length, 2);
});

test('analyze: the fenced process has its memory limit; past it, out_of_memory and the server goes on', async (t) => {
  /* no address-space limit in an ASan build (players/fenced.h) */
  if (process.env.TESSERA_SANITIZED === '1') { t.skip('no memory limit under ASan'); return; }
  /* TESSERA_TEST_ANALYZE_MEM_MB: 200 MiB, less than the two searches' 256 MiB each */
  const srv = await Server.start({ tag: 'analyze-mem',
    env: { TESSERA_TEST_ANALYZE_SIMS: '20', TESSERA_TEST_ANALYZE_MEM_MB: '200' } });
  t.after(() => srv.cleanup());
  const a = await Client.connect(srv.url, { name: 'mem-viewer' });
  const made = await a.request({ type: 'create_match', game: 'dodgem', seats: [{ bot: 'random' }, { bot: 'random' }] },
    'match_created');
  await waitFinished(a, made.match);
  const r = await a.request({ id: 'm1', type: 'analyze', match: made.match }, null, 60000 * SLOW);
  assert.ok(isError(r, 'out_of_memory', 'm1'), JSON.stringify(r));
  assert.equal(r.message, 'the analysis ran out of its 200 MiB: mcts: out of memory for a 256 MiB search');
  const line = await srv.waitLog((l) => l.event === 'analysed' && l.match === made.match);
  assert.equal(line.code, 'out_of_memory');
  /* the server goes on */
  const other = await a.request({ type: 'create_match', game: 'dodgem', seats: [{ bot: 'random' }, { bot: 'random' }] },
    'match_created');
  await waitFinished(a, other.match);
});

test('analyze: a record the client sends (three seats); bad records refused as replay refuses them', async (t) => {
  const srv = await Server.start({ tag: 'analyze-record', env: { TESSERA_TEST_ANALYZE_SIMS: '20' } });
  t.after(() => srv.cleanup());
  const a = await Client.connect(srv.url, { name: 'file-viewer' });
  const made = await a.request({ type: 'create_match', game: 'carcassonne', rules: { players: 3 },
    seats: [{ bot: 'random' }, { bot: 'random' }, { bot: 'random' }] }, 'match_created');
  await waitFinished(a, made.match);
  const record = (await a.request({ type: 'get_record', match: made.match }, 'record')).record;

  const r = await a.request({ id: 'f1', type: 'analyze', record }, 'analysis', 60000 * SLOW);
  assert.equal(r.id, 'f1');
  assert.equal(r.match, undefined, 'a record names no match');
  assert.equal(r.cached, false);
  const rep = r.analysis;
  assert.equal(rep.game, 'carcassonne');
  assert.equal(rep.players.length, 3);
  assert.equal(rep.turns.length, record.turns.length, 'one entry per record turn');
  const sc = record.result.scores;
  for (const p of rep.players) {
    const d = p.decomposition;
    const lead = sc[p.seat] - Math.max(...sc.filter((_, q) => q !== p.seat));
    assert.ok(Math.abs(d.luck + d.skill - d.final) < 1e-3, JSON.stringify(d));
    assert.equal(d.final, lead, 'each player\'s final lead over the best of the others');
  }
  assert.ok(rep.turns.every((x) => x.after_by_seat.length === 3));
  /* not stored: the same record again is analysed again (and the same, by the seed) */
  const again = await a.request({ id: 'f2', type: 'analyze', record }, 'analysis', 60000 * SLOW);
  assert.equal(again.cached, false);
  delete again.analysis.search.ms;
  delete rep.search.ms;
  assert.deepEqual(again.analysis, rep);
  assert.equal(srv.events('analysed').filter((l) => l.match === '(record)' && l.code === 'ok').length, 2);

  /* bad records: the replay's codes and "turn N:", at once, no job */
  const junk = await a.request({ id: 'j', type: 'analyze', record: { format: 'something' } });
  assert.ok(isError(junk, 'bad_record', 'j'), JSON.stringify(junk));
  const rev = { format: 'tessera-record', version: 1, game: 'reversi', rules: { players: 2 },
    turns: [{ player: 0, move: 'd3' }, { player: 1, move: 'a1' }] };
  const illegal = await a.request({ id: 'i', type: 'analyze', record: rev });
  assert.ok(isError(illegal, 'illegal_move', 'i'), JSON.stringify(illegal));
  assert.match(illegal.message, /^turn 2: /);
  const replayed = await a.request({ id: 'r', type: 'replay', record: rev });
  assert.equal(replayed.message, illegal.message, 'the same words as replay');
  const both = await a.request({ id: 'b', type: 'analyze', match: made.match, record });
  assert.ok(isError(both, 'bad_message', 'b'), JSON.stringify(both));
  assert.equal(srv.events('analysed').length, 2, 'no job for a bad record');

  /* one waiting analysis per connection, a record's as a match's */
  const held = path.join(srv.dir, 'go');
  srv.env.TESSERA_TEST_ANALYZE_HOLD = held;
  a.close();
  await srv.stop();
  await srv.restart();
  const b = await Client.connect(srv.url, { name: 'file-viewer-2' });
  b.send({ id: 'h1', type: 'analyze', record });
  await b.request({ type: 'ping' }, 'pong');
  const second = await b.request({ id: 'h2', type: 'analyze', record });
  assert.ok(isError(second, 'too_many', 'h2'), JSON.stringify(second));
  fs.writeFileSync(held, 'go');
  const done = await b.expect((m) => m.id === 'h1', 60000 * SLOW);
  assert.equal(done.type, 'analysis');

  /* past the message limit: message_too_large, the connection closed (docs/protocol.md) */
  const big = { ...rev, turns: Array.from({ length: 4000 }, (_, i) => ({ player: i % 2, move: 'd3' })) };
  const c = await Client.connect(srv.url, { name: 'file-viewer-3' });
  c.send({ id: 'big', type: 'analyze', record: big });
  const tooBig = await c.expect((m) => m.type === 'error', 10000 * SLOW);
  assert.ok(isError(tooBig, 'message_too_large'), JSON.stringify(tooBig).slice(0, 300));
});
