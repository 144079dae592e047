'use strict';
/*
 * test_tournament_bad.js — bad tournament requests, each refused with a
 * clear, structured error naming what is wrong, nothing created, the
 * server healthy: no admin token, an unknown format, game or bot, a bot
 * registered by nobody, a program that does not exist, one participant,
 * games_per_pair 0, duplicate names, a format that refuses the seats, an
 * unknown tournament, steering a tournament that is over.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { Client, isError, startAdmin } = require('./lib');

test('bad tournament requests: clear errors, nothing created', async (t) => {
  const srv = await startAdmin({ tag: 'tourbad' });
  t.after(() => srv.cleanup());
  const c = await Client.connect(srv.url);
  const base = {
    type: 'create_tournament', admin_token: srv.adminToken, format: 'round-robin', game: 'carcassonne',
    participants: [{ name: 'a', spec: 'random' }, { name: 'b', spec: 'heuristic' }],
  };
  const cases = [
    [{ admin_token: undefined }, 'forbidden', /admin token/],
    [{ format: 'league' }, 'bad_message', /format must be one of round-robin, gauntlet, swiss, knockout, ladder/],
    [{ game: 'chess' }, 'unknown_game', /no game named 'chess'/],
    [{ participants: [{ name: 'a', spec: 'random' }, { name: 'b', spec: 'nosuchbot' }] }, 'unknown_bot',
      /participants\[1\] \(b\)/],
    [{ participants: [{ name: 'a', spec: 'random' }, { name: 'b', spec: 'mcts:k=banana' }] }, 'bad_bot_spec',
      /participants\[1\] \(b\)/],
    [{ participants: [{ name: 'a', spec: 'random' }, { name: 't', spec: 'mcts:threads=3' }] }, 'bad_bot_spec',
      /threads=3: this server lets a bot search on at most 1 thread/],
    [{ participants: [{ name: 'a', spec: 'random' }, { name: 'g', spec: 'remote:ghost' }] }, 'unknown_bot',
      /no bot is registered as 'ghost'/],
    [{ participants: [{ name: 'a', spec: 'random' }, { name: 'p', spec: 'cmd:/no/such/program --x' }] },
      'bad_bot_spec', /participants\[1\] \(p\)/],
    [{ participants: [{ name: 'a', spec: 'random' }] }, 'invalid_argument', /participant/],
    [{ games_per_pair: 0 }, 'bad_message', /games_per_pair must be 1 to 100000, not 0/],
    [{ participants: [{ name: 'a', spec: 'random' }, { name: 'a', spec: 'heuristic' }] }, 'invalid_argument',
      /a/],
    [{ format: 'knockout', rules: { players: 3 },
      participants: [{ name: 'a', spec: 'random' }, { name: 'b', spec: 'random' }, { name: 'c', spec: 'random' }] },
    'invalid_argument', /knockout/],
    [{ rules: { players: 9 } }, 'bad_players', /2 to 5 players, not 9/],
    [{ concurrency: 0 }, 'bad_message', /concurrency must be 1 to 64/],
    [{ sprt: { elo0: 5, elo1: 0 } }, 'invalid_argument', /elo/],
  ];
  for (const [change, code, what] of cases) {
    const msg = { ...base, ...change };
    for (const k of Object.keys(msg))
      if (msg[k] === undefined)
        delete msg[k];
    const r = await c.request(msg);
    assert.ok(isError(r, code, r.id), `${JSON.stringify(change)}: ${JSON.stringify(r)}`);
    assert.match(r.message, what, JSON.stringify(change));
  }
  const list = await c.request({ type: 'list_tournaments' }, 'tournaments');
  assert.deepEqual(list.tournaments, [], 'nothing was created');

  for (const type of ['start_tournament', 'pause_tournament', 'cancel_tournament']) {
    const r = await c.request({ type, admin_token: srv.adminToken, tournament: 99 });
    assert.ok(isError(r, 'unknown_tournament', r.id), type);
  }
  for (const type of ['watch_tournament', 'unwatch_tournament', 'get_tournament_plots']) {
    const r = await c.request({ type, tournament: 99 });
    assert.ok(isError(r, 'unknown_tournament', r.id), type);
  }
  const r0 = await c.request({ type: 'watch_tournament', tournament: 0 });
  assert.ok(isError(r0, 'bad_message', r0.id));

  /* a cancelled tournament cannot be started again */
  const made = await c.request(base, 'tournament_created');
  const cancelled = await c.request({ type: 'cancel_tournament', admin_token: srv.adminToken,
    tournament: made.tournament }, 'tournament_state');
  assert.equal(cancelled.state, 'cancelled');
  assert.equal(cancelled.counts.void, 2);
  const again = await c.request({ type: 'start_tournament', admin_token: srv.adminToken,
    tournament: made.tournament });
  assert.ok(isError(again, 'invalid_argument', again.id) && /over/.test(again.message));
  await c.request({ type: 'ping' }, 'pong');
  const stats = await c.request({ type: 'server_stats' }, 'stats');
  assert.equal(stats.matches_live, 0, 'no match was started by any of it');
});
