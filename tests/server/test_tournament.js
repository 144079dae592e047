'use strict';
/*
 * test_tournament.js — tournaments on the server (docs/protocol.md,
 * "Tournaments"): a round-robin mixing an in-process bot, a registered
 * remote bot (a small Node client that registers) and an external program
 * (docs/examples/stdio_bot.py through python3) runs to the end; every game
 * is an ordinary match whose record replays; the standings agree with the
 * games' results; the pushes tell the watcher as games start and end. And
 * the ladder: a registered newcomer is placed against the references first,
 * ratings come with intervals, a cancel stops it.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { Client, ROOT, SLOW, autoPlay, replayHistory, rng, startAdmin } = require('./lib');

const PY = 'cmd:python3 ' + path.join(ROOT, 'docs/examples/stdio_bot.py');

/* The newest standings push already received whose counts say n games done, else the next. */
async function standingsWith(w, n) {
  const seen = w.all.filter((m) => m.type === 'tournament_update' && m.standings && m.standings.counts.done === n);
  if (seen.length)
    return seen[seen.length - 1].standings;
  return until(w, (u) => u.standings && u.standings.counts.done === n).then((u) => u.standings);
}

/* Wait for pushes until pred(update) holds; returns that update. */
async function until(w, pred, timeout = 120000 * SLOW) {
  for (;;) {
    const u = await w.expect('tournament_update', timeout);
    if (pred(u))
      return u;
  }
}

test('a round-robin of an in-process bot, a registered bot and a program, to the end', async (t) => {
  const srv = await startAdmin({ tag: 'tour' });
  t.after(() => srv.cleanup());
  const alice = await Client.connect(srv.url, { name: 'alice' });
  await alice.request({ type: 'register', name: 'alice', secret: 'alice-secret', capacity: 2 },
    'registered');
  const player = autoPlay(alice, { rng: rng(11) });

  const admin = await Client.connect(srv.url, { name: 'admin' });
  const made = await admin.request({
    type: 'create_tournament', admin_token: srv.adminToken, format: 'round-robin', game: 'carcassonne',
    label: 'mixed', participants: [{ name: 'heur', spec: 'heuristic' },
      { name: 'alice', spec: 'remote:alice' }, { name: 'py', spec: PY }],
    games_per_pair: 2, concurrency: 3, seed: 42, time_control: { move_ms: 5000 * SLOW },
  }, 'tournament_created');
  const id = made.tournament;
  assert.equal(made.state, 'created');

  const w = await Client.connect(srv.url, { name: 'watcher' });
  const view0 = await w.request({ type: 'watch_tournament', tournament: id }, 'tournament');
  assert.equal(view0.state, 'created');
  assert.equal(view0.counts.pending, 6, '3 pairs x 2 games');
  assert.deepEqual(view0.games, []);
  assert.deepEqual(view0.participants_list.map((p) => p.name), ['heur', 'alice', 'py']);

  const started = await admin.request({ type: 'start_tournament', admin_token: srv.adminToken,
    tournament: id }, 'tournament_state');
  assert.equal(started.state, 'running');
  const done = await until(w, (u) => u.state === 'done');
  assert.equal(done.counts.done, 6);
  assert.equal(done.counts.pending + done.counts.running + done.counts.void, 0);
  player.stop();

  /* pushes: every game started and ended, with its match */
  const pushes = w.all.filter((m) => m.type === 'tournament_update' && m.game);
  const startedGames = pushes.filter((u) => u.game.status === 'running').map((u) => u.game.game);
  const endedGames = pushes.filter((u) => u.game.status === 'done').map((u) => u.game.game);
  assert.deepEqual([...startedGames].sort(), [0, 1, 2, 3, 4, 5]);
  assert.deepEqual([...endedGames].sort(), [0, 1, 2, 3, 4, 5]);
  assert.ok(pushes.some((u) => u.counts.running >= 2), 'games ran at the same time');

  /* the final view: standings that agree with the games */
  const standings = await standingsWith(w, 6);
  const view = await w.request({ type: 'watch_tournament', tournament: id }, 'tournament');
  assert.equal(view.games.length, 6);
  const matches = new Set(view.games.map((g) => g.match));
  assert.equal(matches.size, 6, 'one match per game, none played twice');
  const points = { heur: 0, alice: 0, py: 0 }, games = { heur: 0, alice: 0, py: 0 };
  for (const g of view.games) {
    assert.equal(g.status, 'done');
    assert.equal(g.result.end, 'normal', JSON.stringify(g));
    g.table.forEach((name, seat) => {
      games[name]++;
      const other = 1 - seat;
      points[name] += g.result.rank[seat] < g.result.rank[other] ? 1 : g.result.rank[seat] === g.result.rank[other] ? 0.5 : 0;
    });
  }
  for (const row of standings.standings) {
    assert.equal(row.games, games[row.name], row.name);
    assert.equal(row.wins + row.draws + row.losses, row.games);
    assert.ok(Math.abs(row.points - points[row.name]) < 1e-9, `${row.name}: ${row.points} vs ${points[row.name]}`);
    assert.ok(row.elo_lo <= row.elo && row.elo <= row.elo_hi, 'a rating inside its interval');
    assert.ok(row.rate_lo <= row.rate && row.rate <= row.rate_hi);
  }
  const places = standings.standings.map((r) => r.place);
  assert.deepEqual(places, [...places].sort((a, b) => a - b));
  assert.equal(standings.crosstable.points.length, 3);

  /* every game is an ordinary match: listed, tagged, its record replays */
  const list = await admin.request({ type: 'list_matches', status: 'finished' }, 'matches');
  const tagged = list.matches.filter((m) => m.tournament === id);
  assert.equal(tagged.length, 6);
  assert.deepEqual(tagged.map((m) => m.tournament_game).sort(), [0, 1, 2, 3, 4, 5]);
  const byMatch = Object.fromEntries(view.games.map((g) => [g.match, g]));
  for (const m of tagged) {
    const g = byMatch[m.match];
    assert.deepEqual(m.seats.map((s) => s.kind), g.table.map((n) => (n === 'heur' ? 'bot' : n === 'alice' ? 'remote' : 'program')));
    const rec = await admin.request({ type: 'get_record', match: m.match, admin_token: srv.adminToken }, 'record');
    assert.deepEqual(rec.result.scores, g.result.score);
    const replay = await replayHistory(srv.bin, rec.record.rules, rec.record.turns, rec.result.scores);
    assert.ok(replay);
    const progs = rec.programs;
    assert.equal(progs.length, g.table.includes('py') ? 1 : 0);
    if (progs.length) {
      assert.match(progs[0].stderr, /seat \d of a carcassonne game/, 'the program\'s stderr is kept');
      assert.deepEqual(progs[0].verdicts, []);
    }
  }

  /* the plots of the core's report */
  const plots = await w.request({ type: 'get_tournament_plots', tournament: id }, 'tournament_plots');
  for (const k of ['ratings', 'scores', 'crosstable'])
    assert.match(plots[k], /^<svg[\s\S]*<\/svg>\s*$/, k);
  const listed = await w.request({ type: 'list_tournaments' }, 'tournaments');
  assert.equal(listed.tournaments[0].state, 'done');
  assert.equal(listed.tournaments[0].label, 'mixed');
  /* over: it cannot be started again */
  const again = await admin.request({ type: 'start_tournament', admin_token: srv.adminToken, tournament: id });
  assert.equal(again.code, 'invalid_argument');
});

test('the ladder: a registered newcomer meets the references first; ratings; cancel', async (t) => {
  const srv = await startAdmin({ tag: 'ladder' });
  t.after(() => srv.cleanup());
  const admin = await Client.connect(srv.url, { name: 'admin' });
  const made = await admin.request({
    type: 'create_tournament', admin_token: srv.adminToken, format: 'ladder', game: 'carcassonne',
    participants: [{ name: 'heur', spec: 'heuristic' }, { name: 'rand', spec: 'random' }],
    placement_games: 4, concurrency: 2, time_control: { move_ms: 5000 * SLOW },
  }, 'tournament_created');
  const id = made.tournament;
  const w = await Client.connect(srv.url, { name: 'watcher' });
  await w.request({ type: 'watch_tournament', tournament: id }, 'tournament');
  await admin.request({ type: 'start_tournament', admin_token: srv.adminToken, tournament: id },
    'tournament_state');
  /* two references alone never play each other */
  await new Promise((r) => setTimeout(r, 500));
  let view = await w.request({ type: 'watch_tournament', tournament: id }, 'tournament');
  assert.deepEqual(view.games, [], 'no table of references only');

  const bob = await Client.connect(srv.url, { name: 'bob' });
  await bob.request({ type: 'register', name: 'bob', secret: 'bob-secret', games: ['carcassonne'] },
    'registered');
  autoPlay(bob, { rng: rng(5) });
  await until(w, (u) => u.counts.done >= 6);
  view = await w.request({ type: 'watch_tournament', tournament: id }, 'tournament');
  assert.deepEqual(view.participants_list.map((p) => [p.name, p.reference]),
    [['heur', true], ['rand', true], ['bob', false]]);
  const first = view.games.slice(0, 4);
  for (const g of first)
    assert.ok(g.table.includes('bob') && g.table.some((n) => n === 'heur' || n === 'rand'),
      'the newcomer plays the references: ' + JSON.stringify(g.table));
  /* groups: a table plays its two games with the seats swapped, one after the other */
  const byGroup = {};
  for (const g of view.games)
    (byGroup[g.group] = byGroup[g.group] || []).push(g);
  for (const gs of Object.values(byGroup))
    if (gs.length === 2)
      assert.deepEqual(gs[1].table, [...gs[0].table].reverse());

  const st = await until(w, (u) => u.standings && u.standings.standings.find((r) => r.name === 'bob' && r.games >= 4))
    .then((u) => u.standings);
  const bobRow = st.standings.find((r) => r.name === 'bob');
  assert.equal(bobRow.reference, false);
  assert.equal(bobRow.newcomer, false, 'placed after 4 games');
  assert.ok(Number.isFinite(bobRow.elo) && bobRow.elo_lo < bobRow.elo && bobRow.elo < bobRow.elo_hi);
  const refRow = st.standings.find((r) => r.name === 'heur');
  assert.equal(refRow.reference, true);

  const cancelled = await admin.request({ type: 'cancel_tournament', admin_token: srv.adminToken,
    tournament: id }, 'tournament_state');
  assert.equal(cancelled.state, 'cancelled');
  /* the games running finish; no new one starts */
  await new Promise((r) => setTimeout(r, 300));
  const before = (await w.request({ type: 'watch_tournament', tournament: id }, 'tournament')).games.length;
  await new Promise((r) => setTimeout(r, 1500));
  const after = await w.request({ type: 'watch_tournament', tournament: id }, 'tournament');
  assert.equal(after.games.length, before, 'no game started after the cancel');
  assert.equal(after.state, 'cancelled');
});

test('pause: the running game finishes, no other starts; start again: it goes on to the end', async (t) => {
  const srv = await startAdmin({ tag: 'pause' });
  t.after(() => srv.cleanup());
  const admin = await Client.connect(srv.url, { name: 'admin' });
  const made = await admin.request({
    type: 'create_tournament', admin_token: srv.adminToken, format: 'gauntlet', game: 'carcassonne',
    participants: [{ name: 'mcts', spec: 'mcts:ms=15' }, { name: 'flat', spec: 'flatmc:ms=15' },
      { name: 'heur', spec: 'heuristic' }],
    games_per_pair: 2, concurrency: 1, time_control: { move_ms: 5000 * SLOW },
  }, 'tournament_created');
  const id = made.tournament;
  const w = await Client.connect(srv.url, { name: 'watcher' });
  const v0 = await w.request({ type: 'watch_tournament', tournament: id }, 'tournament');
  assert.equal(v0.counts.pending, 4, 'a gauntlet: participant 0 against the two others, 2 games each');
  await admin.request({ type: 'start_tournament', admin_token: srv.adminToken, tournament: id },
    'tournament_state');
  await until(w, (u) => u.game && u.game.status === 'running');
  const paused = await admin.request({ type: 'pause_tournament', admin_token: srv.adminToken,
    tournament: id }, 'tournament_state');
  assert.equal(paused.state, 'paused');
  const ended = await until(w, (u) => u.game && u.game.status === 'done');
  assert.equal(ended.state, 'paused');
  await new Promise((r) => setTimeout(r, 1000));
  const still = await w.request({ type: 'watch_tournament', tournament: id }, 'tournament');
  assert.equal(still.state, 'paused');
  assert.deepEqual([still.counts.running, still.counts.done, still.counts.pending], [0, 1, 3],
    'no game started while paused');
  /* a restart keeps it paused */
  await srv.stop();
  await srv.restart();
  const w2 = await Client.connect(srv.url, { name: 'watcher2' });
  const back = await w2.request({ type: 'watch_tournament', tournament: id }, 'tournament');
  assert.equal(back.state, 'paused');
  assert.equal(back.counts.running, 0);
  const admin2 = await Client.connect(srv.url, { name: 'admin2' });
  const resumed = await admin2.request({ type: 'start_tournament', admin_token: srv.adminToken,
    tournament: id }, 'tournament_state');
  assert.equal(resumed.state, 'running');
  const done = await until(w2, (u) => u.state === 'done');
  assert.equal(done.counts.done, 4);
});
