'use strict';
/*
 * test_lobby.js — the lobby and replay messages of docs/protocol.md, as a
 * client that knows no rules would use them: list_games, list_bots,
 * list_matches (with the time control and policies filled in), replay of a
 * finished match and of a sent record (checked turn by turn by the server),
 * and server_stats.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { Server, Client, SLOW, createMatch, join, playUntilOver, rng, isError, leaks } = require('./lib');

test('list_games and list_bots describe what a match can be made of', async (t) => {
  const srv = await Server.start({ tag: 'lobby-lists' });
  t.after(() => srv.cleanup());
  const c = await Client.connect(srv.url, { name: 'lister' });

  const games = await c.request({ type: 'list_games' }, 'games');
  const names = games.games.map((g) => g.name);
  assert.ok(names.includes('carcassonne') && names.includes('reversi'), `games: ${names}`);
  const carc = games.games.find((g) => g.name === 'carcassonne');
  assert.equal(carc.min_players, 2);
  assert.equal(carc.max_players, 5);
  const tiny = carc.rules.find((r) => r.name === 'tiny_city');
  assert.deepEqual([tiny.default, tiny.min, tiny.max], [4, 2, 4]);
  assert.equal(carc.rules.find((r) => r.name === 'farms').default, true);

  const bots = await c.request({ type: 'list_bots' }, 'bots');
  assert.deepEqual(leaks(bots), []);
  const byName = Object.fromEntries(bots.bots.map((b) => [b.name, b]));
  for (const want of ['random', 'heuristic', 'mcts', 'rave', 'ea-mcts', 'siea-mcts', 'star2'])
    assert.ok(byName[want], `list_bots names ${want}`);
  for (const b of bots.bots) {
    assert.ok(b.summary.length > 0, `${b.name} has a summary`);
    for (const o of b.options) {
      assert.ok(['int', 'real', 'bool', 'enum', 'list', 'string'].includes(o.kind), `${b.name}.${o.name}: kind ${o.kind}`);
      assert.ok(o.help.length > 0, `${b.name}.${o.name} has help`);
      if (o.kind === 'enum')
        assert.ok(o.choices.includes(o.default), `${b.name}.${o.name}: the default is one of the choices`);
      if (o.kind === 'int' || o.kind === 'real')
        assert.ok(o.min <= o.default && o.default <= o.max, `${b.name}.${o.name}: default within [min, max]`);
    }
  }
  const common = bots.common_options.map((o) => o.name);
  for (const want of ['sims', 'ms', 'seed'])
    assert.ok(common.includes(want), `common_options names ${want}: ${common}`);
  /* an option the list names is one create_match takes */
  const k = byName.mcts.options.find((o) => o.name === 'k' || o.name === 'c');
  assert.ok(k, 'mcts lists its exploration constant');
  const made = await c.request({ type: 'create_match', game: 'carcassonne',
    seats: [{ bot: `mcts:${k.name}=0.5,sims=50` }, { open: true }] });
  assert.equal(made.type, 'match_created', JSON.stringify(made));
  /* and one it does not name is refused, saying which */
  const bad = await c.request({ type: 'create_match', game: 'carcassonne',
    seats: [{ bot: 'mcts:colour=red' }, { open: true }] });
  assert.equal(bad.type, 'error');
  assert.match(bad.message, /colour/);
});

test('list_matches gives the time control and policies with the defaults filled in', async (t) => {
  const srv = await Server.start({ tag: 'lobby-matches' });
  t.after(() => srv.cleanup());
  const c = await Client.connect(srv.url, { name: 'host' });
  const { match } = await createMatch(c, [{ bot: 'random' }, { open: true, name: 'alice' }],
    { time_control: { move_ms: 700, bank_ms: 50 }, policies: { timeout: 'random_move', max_illegal: 5 } });
  const listed = await c.request({ type: 'list_matches', status: 'all' }, 'matches');
  const m = listed.matches.find((x) => x.match === match);
  assert.ok(m, 'the new match is listed');
  assert.equal(m.status, 'waiting');
  assert.deepEqual(m.time_control, { move_ms: 700, first_move_ms: 2100, bank_ms: 50, increment_ms: 0 });
  assert.deepEqual(m.policies, { timeout: 'random_move', illegal: 'reject', max_illegal: 5,
    disconnect: 'forfeit', reconnect_grace_ms: 30000, grace_ms: 10000, info: 'live' });
  assert.deepEqual(m.seats.map((s) => [s.kind, s.name]), [['bot', 'random'], ['open', 'alice']]);
  const live = await c.request({ type: 'list_matches', status: 'live' }, 'matches');
  assert.ok(live.matches.some((x) => x.match === match), 'live lists a waiting match (its seats can be joined)');
  const fin = await c.request({ type: 'list_matches', status: 'finished' }, 'matches');
  assert.ok(!fin.matches.some((x) => x.match === match), 'finished does not');
  const spec = await c.request({ type: 'spectate', match }, 'spectating');
  assert.deepEqual(spec.time_control, m.time_control, 'spectating names the same time control');
  assert.deepEqual(spec.policies, m.policies);
});

test('replay: a finished match, and a record sent along, checked turn by turn', async (t) => {
  const srv = await Server.start({ tag: 'lobby-replay' });
  t.after(() => srv.cleanup());
  const c = await Client.connect(srv.url, { name: 'viewer' });
  const { match } = await createMatch(c, [{ bot: 'random:seed=3' }, { bot: 'heuristic' }]);
  /* bot-only matches start at once; wait for the end */
  let summary;
  for (let i = 0; i < 600; i++) {
    const listed = await c.request({ type: 'list_matches', status: 'finished' }, 'matches');
    summary = listed.matches.find((x) => x.match === match);
    if (summary)
      break;
    await new Promise((r) => setTimeout(r, 50 * SLOW));
  }
  assert.ok(summary, 'the bot match finished');

  const rep = await c.request({ type: 'replay', match }, 'replayed', 10000 * SLOW);
  assert.equal(rep.finished, true);
  assert.equal(rep.match, match);
  assert.deepEqual(rep.seats.map((s) => s.name), ['random:seed=3', 'heuristic']);
  assert.deepEqual(rep.rules, { players: 2, tiny_city: 4, farms: true });
  assert.equal(rep.initial.bag_left, 71, 'before turn 1: the start tile is down, 71 in the bag');
  assert.equal(rep.turns.length, 71, 'one entry per draw (a dead tile\'s discard is an entry too)');
  assert.deepEqual(rep.turns[rep.turns.length - 1].scores, summary.scores, 'the replay ends on the final scores');
  assert.deepEqual(rep.result.winners, summary.result.winners);
  /* states step by one tile each */
  rep.turns.forEach((tu, i) => assert.equal(tu.state.bag_left, 70 - i, `turn ${i + 1}: bag_left`));

  /* the same turns sent back as a record replay to the same end */
  const record = { format: 'tessera-record', version: 1, game: 'carcassonne', rules: rep.rules,
    turns: rep.turns.map((tu) => tu.record) };
  const again = await c.request({ type: 'replay', record }, 'replayed', 10000 * SLOW);
  assert.deepEqual(again.turns.map((tu) => tu.scores), rep.turns.map((tu) => tu.scores));
  assert.equal(again.match, undefined);
  assert.equal(again.seats, undefined, 'a record replay names no seats');

  /* a record with an illegal turn: the error names the turn, nothing else is sent */
  const broken = JSON.parse(JSON.stringify(record));
  /* the first placement from turn 6 on (a dead tile's discard has no x to move) */
  const at = broken.turns.findIndex((tu, i) => i >= 5 && Number.isInteger(tu.x));
  assert.ok(at >= 5, 'a placed tile after turn 5');
  broken.turns[at] = { ...broken.turns[at], x: 40, y: 40 };
  const err = await c.request({ id: 'broken', type: 'replay', record: broken });
  assert.ok(isError(err, 'illegal_move', 'broken') || isError(err, 'bad_move', 'broken'), JSON.stringify(err));
  assert.match(err.message, new RegExp(`^turn ${at + 1}:`));
  /* a Reversi record, to show the replay is not Carcassonne-shaped */
  const rev = await c.request({ type: 'replay', record: { format: 'tessera-record', version: 1, game: 'reversi',
    rules: { players: 2 }, turns: [{ player: 0, move: 'd3' }, { player: 1, move: 'c5' }] } }, 'replayed');
  assert.equal(rev.turns.length, 2);
  assert.equal(rev.finished, false);
  /* and an unknown match */
  const none = await c.request({ id: 'nomatch', type: 'replay', match: 'no-such-match' });
  assert.ok(isError(none, 'unknown_match', 'nomatch'), JSON.stringify(none));
});

/* A turn's messages to a connection leave in one socket write: the mover's
 * move_accepted and update, the next seat's update and your_turn. The
 * your_turn waits for the journal's round batch with the update (issue 29's
 * clock), and built after the update's release it went out in a write of
 * its own: 3.2 writes a turn instead of 2.2 (bench/README.md, 2026-12-02). */
test('a turn costs each seat one socket write', async (t) => {
  const srv = await Server.start({ tag: 'lobby-writes' });
  t.after(() => srv.cleanup());
  const op = await Client.connect(srv.url, { name: 'operator' });
  const a = await Client.connect(srv.url, { name: 'a' });
  const b = await Client.connect(srv.url, { name: 'b' });
  const { match, tokens } = await createMatch(op, [{ open: true, name: 'a' }, { open: true, name: 'b' }]);
  await join(a, match, 0, tokens[0]);
  await join(b, match, 1, tokens[1]);
  const before = await op.request({ type: 'server_stats' }, 'stats');
  await Promise.all([playUntilOver(a, { rng: rng(5) }), playUntilOver(b, { rng: rng(6) })]);
  const after = await op.request({ type: 'server_stats' }, 'stats');
  const moves = after.moves - before.moves;
  /* the operator's two requests and replies are the only other output */
  const writes = after.writes - before.writes - 1;
  assert.ok(moves >= 60, `a Carcassonne game of ${moves} moves`);
  assert.ok(writes <= 2.5 * moves, `${writes} writes for ${moves} turns (one per seat a turn is 2)`);
});

test('server_stats counts what happened', async (t) => {
  const srv = await Server.start({ tag: 'lobby-stats' });
  t.after(() => srv.cleanup());
  const c = await Client.connect(srv.url, { name: 'operator' });
  const before = await c.request({ type: 'server_stats' }, 'stats');
  assert.ok(before.connections >= 1);
  const { match } = await createMatch(c, [{ bot: 'random' }, { bot: 'random' }]);
  for (let i = 0; i < 600; i++) {
    const s = await c.request({ type: 'server_stats' }, 'stats');
    if (s.matches_finished > before.matches_finished)
      break;
    await new Promise((r) => setTimeout(r, 50 * SLOW));
  }
  const after = await c.request({ type: 'server_stats' }, 'stats');
  assert.equal(after.matches_finished, before.matches_finished + 1, `match ${match} counted as finished`);
  /* moves counts the turns seats played: a dead tile's turn is the server's
   * (found by chance in a random game: it failed once with 70) */
  const { state } = await c.request({ type: 'spectate', match }, 'spectating');
  assert.equal(after.moves, before.moves + 71 - state.discards,
    `moves ${before.moves} -> ${after.moves} (${state.discards} dead tiles)`);
  assert.ok(after.uptime_ms >= before.uptime_ms);
  assert.ok(after.rss_peak_kb > 0);
  assert.equal(after.matches_kept, before.matches_kept + 1, 'the finished match is kept in memory');

  /* counters are since this process started; what is kept comes back from the journal */
  await srv.stop();
  await srv.restart();
  const c2 = await Client.connect(srv.url, { name: 'operator2' });
  const fresh = await c2.request({ type: 'server_stats' }, 'stats');
  assert.equal(fresh.matches_finished, 0, 'no match has finished in this process yet');
  assert.equal(fresh.moves, 0);
  assert.ok(fresh.matches_kept >= 1, `the finished match is restored (${fresh.matches_kept} kept)`);
  const listed = await c2.request({ type: 'list_matches', status: 'finished' }, 'matches');
  assert.equal(listed.matches.length, fresh.matches_kept, 'matches_kept is what list_matches can show');
});
