'use strict';
/*
 * test_register.js — registered remote bots (docs/protocol.md, "Registered
 * bots"): the secret stored salted and checked (across restarts too), the
 * unsolicited `joined` when the server seats the bot, its capacity, the
 * games it accepts, re-attaching every live seat with `resumed` after a
 * reconnect, a take-over by a second connection, and unregister.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { Client, isError, rng, randomMove, startAdmin } = require('./lib');

const register = (c, name, secret, extra = {}) =>
  c.request({ type: 'register', name, secret, ...extra });

async function adminMatch(c, srv, seats, extra = {}) {
  return c.request({ type: 'create_match', game: 'carcassonne', admin_token: srv.adminToken, seats,
    time_control: { move_ms: 10000 }, ...extra });
}

test('register: the secret, the unsolicited joined, capacity, games, bad names', async (t) => {
  const srv = await startAdmin({ tag: 'reg' });
  t.after(() => srv.cleanup());
  const alice = await Client.connect(srv.url, { name: 'alice' });
  const ok = await register(alice, 'alice', 'open-sesame');
  assert.deepEqual({ ...ok, id: undefined }, { type: 'registered', id: undefined, name: 'alice', capacity: 1 });

  const mallory = await Client.connect(srv.url, { name: 'mallory' });
  const bad = await register(mallory, 'alice', 'open-sesame!');
  assert.ok(isError(bad, 'bad_token', bad.id), JSON.stringify(bad));
  /* the log line may reach us after the reply (another pipe): wait for it */
  await srv.waitLog((l) => l.event === 'register_refused', undefined, 'register_refused');
  assert.equal(srv.events('register_refused').length, 1);
  for (const [name, secret, what] of [['a b', 'open-sesame', /name may hold only/],
    ['x'.repeat(65), 'open-sesame', /name must have 1 to 64/], ['bob', 'short', /secret must have 8 to 64/]]) {
    const r = await register(mallory, name, secret);
    assert.ok(isError(r, 'bad_message', r.id) && what.test(r.message), JSON.stringify(r));
  }
  const capBad = await register(mallory, 'bob', 'bobsecret', { capacity: 17 });
  assert.ok(isError(capBad, 'bad_message', capBad.id));
  const gameBad = await register(mallory, 'bob', 'bobsecret', { games: ['chess'] });
  assert.ok(isError(gameBad, 'unknown_game', gameBad.id));

  /* the server seats alice: an unsolicited joined, then its turns */
  const host = await Client.connect(srv.url, { name: 'host' });
  const m1 = await adminMatch(host, srv, [{ bot: 'random' }, { bot: 'remote:alice' }]);
  assert.equal(m1.type, 'match_created');
  assert.deepEqual(m1.seats, [], 'no join token: nobody else can take the seat');
  const joined = await alice.expect('joined');
  assert.equal(joined.id, undefined, 'unasked');
  assert.equal(joined.match, m1.match);
  assert.equal(joined.seat, 1);
  assert.match(joined.resume_token, /^[a-z2-9]{24}$/);
  assert.equal(joined.seats[1].kind, 'remote');
  assert.equal(joined.seats[1].name, 'alice');
  assert.equal(joined.seats[1].connected, true);
  await alice.expect('your_turn');

  /* capacity 1: a second game is refused while the first is live */
  const m2 = await adminMatch(host, srv, [{ bot: 'random' }, { bot: 'remote:alice' }]);
  assert.ok(isError(m2, 'too_many', m2.id) && /capacity/.test(m2.message), JSON.stringify(m2));
  const ghost = await adminMatch(host, srv, [{ bot: 'random' }, { bot: 'remote:ghost' }]);
  assert.ok(isError(ghost, 'unknown_bot', ghost.id), JSON.stringify(ghost));
  const twice = await adminMatch(host, srv, [{ bot: 'remote:alice' }, { bot: 'remote:alice' }]);
  assert.ok(twice.type === 'error', 'one bot, two seats of one match: refused');

  /* games: a bot registered for reversi is not seated at carcassonne */
  const carol = await Client.connect(srv.url, { name: 'carol' });
  await register(carol, 'carol', 'carolsecret', { games: ['reversi'], capacity: 3 });
  const wrongGame = await adminMatch(host, srv, [{ bot: 'random' }, { bot: 'remote:carol' }]);
  assert.ok(isError(wrongGame, 'bad_bot_spec', wrongGame.id), JSON.stringify(wrongGame));
  const rev = await host.request({ type: 'create_match', game: 'reversi', admin_token: srv.adminToken,
    seats: [{ bot: 'remote:carol' }, { bot: 'random' }] }, 'match_created');
  const cj = await carol.expect('joined');
  assert.equal(cj.match, rev.match);
  /* one bot in both seats of a match (it plays itself): each seat counts
   * against its capacity (3: one game live, two seats more fit, then none) */
  const self = await host.request({ type: 'create_match', game: 'reversi', admin_token: srv.adminToken,
    seats: [{ bot: 'remote:carol' }, { bot: 'remote:carol' }] }, 'match_created');
  const both = [await carol.expect('joined'), await carol.expect('joined')];
  assert.deepEqual(both.map((j) => [j.match, j.seat]).sort(), [[self.match, 0], [self.match, 1]]);
  const full = await host.request({ type: 'create_match', game: 'reversi', admin_token: srv.adminToken,
    seats: [{ bot: 'random' }, { bot: 'remote:carol' }] });
  assert.ok(isError(full, 'too_many', full.id) && /capacity/.test(full.message), JSON.stringify(full));

  /* a restart keeps the hash: the wrong secret still fails, the right one works */
  await srv.stop();
  await srv.restart();
  const again = await Client.connect(srv.url, { name: 'alice2' });
  const refused = await register(again, 'alice', 'not-the-secret');
  assert.ok(isError(refused, 'bad_token', refused.id));
  const back = await register(again, 'alice', 'open-sesame', { capacity: 2 });
  assert.equal(back.type, 'registered');
  assert.equal(back.capacity, 2);
  /* the match alice played before the restart is re-attached */
  const resumed = await again.expect('resumed');
  assert.equal(resumed.match, m1.match);
  assert.equal(resumed.id, undefined);
  /* registered as alice, it may not register as another name without unregister */
  const other = await register(again, 'dave', 'davesecret');
  assert.ok(isError(other, 'bad_message', other.id) && /unregister first/.test(other.message));
  const un = await again.request({ type: 'unregister' }, 'unregistered');
  assert.ok(un);
  const un2 = await again.request({ type: 'unregister' });
  assert.ok(isError(un2, 'bad_message', un2.id));
  assert.equal((await register(again, 'dave', 'davesecret')).type, 'registered');
});

test('a dropped registered bot re-attaches every live seat; a second connection takes over', async (t) => {
  const srv = await startAdmin({ tag: 'reattach' });
  t.after(() => srv.cleanup());
  const host = await Client.connect(srv.url, { name: 'host' });
  let bob = await Client.connect(srv.url, { name: 'bob' });
  await register(bob, 'bob', 'bobsecret', { capacity: 2 });
  const pol = { policies: { disconnect: 'forfeit', reconnect_grace_ms: 30000 } };
  const a = await adminMatch(host, srv, [{ bot: 'remote:bob' }, { bot: 'random' }], pol);
  const b = await adminMatch(host, srv, [{ bot: 'random' }, { bot: 'remote:bob' }], pol);
  const seen = [await bob.expect('joined'), await bob.expect('joined')].map((j) => j.match).sort();
  assert.deepEqual(seen, [a.match, b.match].sort());
  const r = rng(3);
  /* play a few turns, then drop without a goodbye */
  for (let i = 0; i < 4; i++) {
    const yt = await bob.expect('your_turn');
    bob.send({ type: 'move', match: yt.match, turn: yt.turn, move: randomMove(yt, r) });
  }
  bob.terminate();
  const list = await host.request({ type: 'list_matches', status: 'live' }, 'matches');
  const bobSeat = (m) => m.seats.find((s) => s.kind === 'remote');
  for (const m of list.matches)
    if (m.match === a.match || m.match === b.match)
      assert.ok(bobSeat(m), 'the seat is a remote one');

  /* register again from a new connection: registered, then resumed for both */
  bob = await Client.connect(srv.url, { name: 'bob2' });
  await register(bob, 'bob', 'bobsecret', { capacity: 2 });
  const resumed = [await bob.expect('resumed'), await bob.expect('resumed')];
  assert.deepEqual(resumed.map((x) => x.match).sort(), [a.match, b.match].sort());
  assert.ok(resumed.every((x) => x.id === undefined && x.history.length > 0));

  /* a take-over: a third connection registers the same name */
  const bob3 = await Client.connect(srv.url, { name: 'bob3' });
  await register(bob3, 'bob', 'bobsecret', { capacity: 2 });
  const taken = await bob.expect((m) => m.type === 'error' && m.code === 'registration_taken');
  assert.equal(taken.id, undefined);
  await bob.expect((m) => m.type === 'error' && m.code === 'seat_taken');
  const moved = [await bob3.expect('resumed'), await bob3.expect('resumed')];
  assert.deepEqual(moved.map((x) => x.match).sort(), [a.match, b.match].sort());
  assert.ok(bob.isOpen, 'the first connection stays open');
  await bob.request({ type: 'ping' }, 'pong');

  /* bob3 plays both games to the end */
  const done = new Set();
  while (done.size < 2) {
    const m = await bob3.expect((x) => x.type === 'your_turn' || x.type === 'game_over', 20000);
    if (m.type === 'game_over') {
      assert.equal(m.result.reason, 'normal');
      done.add(m.match);
    } else {
      bob3.send({ type: 'move', match: m.match, turn: m.turn, move: randomMove(m, r) });
    }
  }
  const errors = bob3.all.filter((m) => m.type === 'error');
  assert.deepEqual(errors, [], 'no move of the registered bot was refused (nor rate-limited)');
});
