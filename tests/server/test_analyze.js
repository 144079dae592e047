'use strict';
/*
 * test_analyze.js — the `analyze` message (docs/protocol.md, docs/analysis.md;
 * issue 27): a finished match analysed on the server's pool, two viewers
 * asking at once served by one job (the server logs one `analysed` with two
 * waiters), the next viewer served from the cache (`cached`: true, the same
 * report), after a restart too (the cache is in the journal's database);
 * the report is `tessera analyze`'s layout with one entry per record turn;
 * a match not finished, an unknown one and a bad message are refused.
 * TESSERA_TEST_ANALYZE_SIMS keeps the searches small (a second a game).
 */
const test = require('node:test');
const assert = require('node:assert/strict');
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
  t.after(() => srv.cleanup());
  const a = await Client.connect(srv.url, { name: 'viewer-a' });
  const b = await Client.connect(srv.url, { name: 'viewer-b' });
  const made = await a.request({ type: 'create_match', game: 'reversi',
    seats: [{ bot: 'mcts:sims=30' }, { bot: 'random' }] }, 'match_created');
  const match = made.match;

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
  const record = (await a.request({ type: 'get_record', match }, 'record')).record;
  /* two viewers at once: both answered; one job ran or the second came after it */
  a.send({ id: 'a1', type: 'analyze', match });
  b.send({ id: 'b1', type: 'analyze', match });
  const ra = await a.expect((m) => m.id === 'a1', 60000 * SLOW);
  const rb = await b.expect((m) => m.id === 'b1', 60000 * SLOW);
  for (const r of [ra, rb]) {
    assert.equal(r.type, 'analysis', JSON.stringify(r).slice(0, 300));
    assert.equal(r.match, match);
  }
  assert.equal(ra.cached, false, 'the first request started the job');
  assert.deepEqual(rb.analysis, ra.analysis, 'both viewers got the same report');
  const jobs = srv.events('analysed').filter((l) => l.match === match);
  assert.equal(jobs.length, 1, 'one analysis ran: ' + JSON.stringify(jobs));
  assert.equal(jobs[0].code, 'ok');
  /* the second viewer either joined the job or found its report stored */
  assert.ok(jobs[0].waiters === 2 ? rb.cached === false : rb.cached === true, JSON.stringify(jobs[0]));

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
