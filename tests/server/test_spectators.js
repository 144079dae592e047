'use strict';
/*
 * test_spectators.js — spectators see every turn and only the public state.
 *
 * A spectator that arrives before the match starts gets `update`s for turns
 * 1..71 with no gap, then `game_over`. No message to anyone carries a field
 * beyond the allow-list of docs/protocol.md (lib.leaks); the bag is public
 * only as counts: `next.tile` is always the tile of the following turn's
 * record, and the counts only ever drop by the tile just drawn. A late
 * spectator gets the same history; one that unspectates hears nothing more.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { Server, Client, createMatch, join, playUntilOver, rng, randomMove, leaks, SLOW } = require('./lib');

const sum = (bag) => Object.values(bag).reduce((a, b) => a + b, 0);

/* bag minus the named tiles, as a new object */
function minus(bag, ...tiles) {
  const b = { ...bag };
  for (const t of tiles)
    if (t)
      b[t] = (b[t] || 0) - 1;
  return b;
}

test('spectators get every update and never the tile order', async (t) => {
  const srv = await Server.start({ tag: 'spect' });
  t.after(() => srv.cleanup());
  const host = await Client.connect(srv.url, { name: 'host' });
  const { match, tokens } = await createMatch(host, [{ bot: 'heuristic' }, { open: true }]);

  const early = await Client.connect(srv.url, { name: 'early' });
  const view0 = await early.request({ type: 'spectate', match }, 'spectating');
  assert.equal(view0.status, 'waiting');
  assert.deepEqual(view0.history, []);
  assert.equal(view0.state.bag_left, 71);
  assert.equal(sum(view0.state.bag), 71);

  /* spectating twice is harmless: still one update per turn (checked below) */
  await early.request({ type: 'spectate', match }, 'spectating');

  const quitter = await Client.connect(srv.url, { name: 'quitter' });
  await quitter.request({ type: 'spectate', match }, 'spectating');

  const player = await Client.connect(srv.url, { name: 'player' });
  await join(player, match, 1, tokens[1]);
  const r = rng(21);
  let late = null, lateView = null, quitAt = null;
  const over = await playUntilOver(player, {
    choose: (yt) => randomMove(yt, r),
    onTurn: async (yt) => {
      if (yt.turn > 30 && !late) {
        late = await Client.connect(srv.url, { name: 'late' });
        lateView = await late.request({ type: 'spectate', match }, 'spectating');
      }
      if (yt.turn > 10 && quitAt === null) {
        await quitter.request({ type: 'unspectate', match }, 'unspectated');
        quitAt = quitter.all.length;
      }
    },
  });
  assert.equal(over.result.reason, 'normal');
  const endEarly = await early.expect('game_over');
  const endLate = await late.expect('game_over');
  assert.deepEqual(endEarly, over);
  assert.deepEqual(endLate, over);

  /* turns 1..71, no gap, no repeat */
  const ups = early.all.filter((m) => m.type === 'update');
  assert.deepEqual(ups.map((u) => u.turn), Array.from({ length: 71 }, (_, i) => i + 1));
  assert.equal(early.all[early.all.length - 1].type, 'game_over', 'game_over comes last');

  /* the bag: public counts only, dropping by exactly the tile drawn */
  let prevState = view0.state;
  for (let i = 0; i < ups.length; i++) {
    const u = ups[i];
    assert.equal(u.match, match);
    assert.ok(u.by === 'player' || (u.by === 'server' && u.reason === 'dead tile'),
      `turn ${u.turn}: by ${u.by} ${u.reason || ''}`);
    /* this turn's tile is the one announced before it */
    if (prevState.tile)
      assert.equal(u.record.tile, prevState.tile, `turn ${u.turn}: record.tile is the announced tile`);
    if (i > 0 && ups[i - 1].next) {
      assert.equal(u.record.tile, ups[i - 1].next.tile, `turn ${u.turn}: the previous next.tile`);
      assert.equal(u.record.player, ups[i - 1].next.seat, `turn ${u.turn}: the previous next.seat`);
    }
    /* the state names the tile drawn for what comes next (a dead one too) */
    const expectBag = minus(prevState.bag, prevState.tile ? null : u.record.tile, u.state.tile);
    assert.deepEqual(u.state.bag, expectBag, `turn ${u.turn}: the bag drops by the drawn tile only`);
    assert.ok(Object.values(u.state.bag).every((n) => n >= 0));
    assert.equal(u.state.bag_left, sum(u.state.bag), `turn ${u.turn}: bag_left is the sum of the counts`);
    if (u.next) {
      assert.equal(u.state.tile, u.next.tile, `turn ${u.turn}: state.tile is next.tile`);
      assert.equal(u.state.to_move, u.next.seat);
      assert.equal(u.state.turn, u.turn + 1, 'the state names the coming turn');
    } else {
      assert.equal(i, ups.length - 1, `turn ${u.turn}: next is null only once the game is over`);
    }
    prevState = u.state;
  }
  assert.equal(ups[70].next, null);
  assert.equal(ups[70].state.bag_left, 0);

  /* nothing beyond the public state, to anyone */
  for (const c of [early, late, quitter, player, host])
    for (const m of c.all) {
      const bad = leaks(m);
      assert.deepEqual(bad, [], `${c.name} got fields beyond the public state in ${m.type}: ` +
        JSON.stringify(m).slice(0, 300));
    }
  /* spectators get nothing addressed to a seat */
  for (const c of [early, late, quitter])
    for (const m of c.all)
      assert.ok(['welcome', 'spectating', 'seats', 'update', 'game_over', 'unspectated'].includes(m.type),
        `${c.name} got a ${m.type}`);
  /* the player's your_turn lists only placements of its own drawn tile */
  for (const yt of player.all.filter((m) => m.type === 'your_turn' && m.turn > 1))
    assert.equal(yt.state.tile, ups[yt.turn - 2].next.tile, `your_turn ${yt.turn}: the announced tile`);

  /* the late spectator: the same history, then the rest without a gap */
  const lateUps = late.all.filter((m) => m.type === 'update');
  const h = lateView.history.length;
  assert.ok(h >= 30);
  assert.deepEqual(lateView.history, ups.slice(0, h).map((u) => u.record));
  assert.deepEqual(lateUps.map((u) => u.turn), Array.from({ length: 71 - h }, (_, i) => h + 1 + i));

  /* the one that left heard nothing after its unspectated */
  assert.deepEqual(quitter.all.slice(quitAt).map((m) => m.type), [],
    'no message after unspectate');
  assert.ok(quitter.all.filter((m) => m.type === 'update').length >= 10);
});

/*
 * The tile model published in list_games (each type's ports, unrotated, in
 * the order NW N NE EN E ES SE S SW WS W WN C; a quarter turn clockwise moves
 * an edge port three places on) agrees with the boards the server sends:
 * wherever two tiles touch, the touching ports are of the same kind.
 */
test('the tile model of list_games agrees with the board', async (t) => {
  const srv = await Server.start({ tag: 'tiles' });
  t.after(() => srv.cleanup());
  const c = await Client.connect(srv.url);
  const games = await c.request({ type: 'list_games' }, 'games');
  const carc = games.games.find((g) => g.name === 'carcassonne');
  const tiles = carc.tiles;
  assert.equal(Object.values(tiles).reduce((a, x) => a + x.count, 0), 72, '72 tiles, the start tile included');
  const kind = (ch) => ('cd'.includes(ch) ? 'city' : 'rstu'.includes(ch) ? 'road' : 'fghi'.includes(ch) ? 'field' : ch);
  const feature = (tile, j) => kind(tiles[tile.tile].ports[(((j - 3 * tile.rot) % 12) + 12) % 12]);
  const { match } = await createMatch(c, [{ bot: 'random' }, { bot: 'random' }]);
  /* two random bots may finish before the spectate is read (a loaded machine
   * did): a finished match's view has no game_over to follow */
  if ((await c.request({ type: 'spectate', match }, 'spectating')).status !== 'finished')
    await c.expect('game_over', 30000 * SLOW);
  const board = (await c.request({ type: 'spectate', match }, 'spectating')).state.board;
  assert.equal(board.length + (await c.request({ type: 'spectate', match })).state.discards, 72);
  const at = new Map(board.map((b) => [b.x + ',' + b.y, b]));
  let touching = 0;
  for (const b of board) {
    const east = at.get(b.x + 1 + ',' + b.y), south = at.get(b.x + ',' + (b.y + 1));
    for (const [other, pairs] of [[east, [[3, 11], [4, 10], [5, 9]]], [south, [[6, 2], [7, 1], [8, 0]]]]) {
      if (!other)
        continue;
      for (const [p, q] of pairs) {
        touching++;
        assert.equal(feature(b, p), feature(other, q),
          `${b.tile}@(${b.x},${b.y}) rot ${b.rot} port ${p} against ${other.tile}@(${other.x},${other.y}) rot ${other.rot}`);
      }
    }
  }
  assert.ok(touching > 100);
});

/*
 * A tile that fits nowhere is drawn like any other, then discarded by the
 * server (an update by "server", reason "dead tile"). The update before the
 * discard must still name what comes next: docs/protocol.md says `next` is
 * null only when the game is over. Dead tiles are rare (a few games in a
 * hundred), so the match is made reproducible with the test hook
 * TESSERA_TEST_SEED (server/limits.h): with seed 3, the random bot on seat
 * 0 and this client's rng(1) moves on seat 1 draw a dead tile at turn 3 (chance drawn by
 * the per-event streams of docs/records.md, "Verifiable games").
 * Should the engine, the random bot or lib.randomMove change so that they
 * no longer do, this test says so: find another seed (a server started
 * with TESSERA_TEST_SEED=0 seeds its matches 0, 1, 2, ...).
 */
test('a dead tile is announced in next like any draw', async (t) => {
  const SEED = 3;
  const srv = await Server.start({ tag: 'dead', env: { TESSERA_TEST_SEED: String(SEED) } });
  t.after(() => srv.cleanup());
  const c = await Client.connect(srv.url, { name: 'watch' });
  const { match, tokens } = await createMatch(c, [{ bot: 'random' }, { open: true }]);
  await c.request({ type: 'spectate', match }, 'spectating');
  const p = await Client.connect(srv.url, { name: 'p' });
  await join(p, match, 1, tokens[1]);
  await playUntilOver(p, { rng: rng(1) });
  await c.expect('game_over');
  const ups = c.all.filter((m) => m.type === 'update');
  assert.deepEqual(ups.map((u) => u.turn), Array.from({ length: 71 }, (_, k) => k + 1));
  const i = ups.findIndex((u) => u.reason === 'dead tile');
  assert.ok(i >= 1, `seed ${SEED} no longer draws a dead tile after turn 1: find another seed`);
  const before = ups[i - 1], dead = ups[i];
  t.diagnostic(`a dead tile at turn ${dead.turn}`);
  assert.equal(dead.by, 'server');
  assert.equal(dead.record.discarded, true);
  assert.equal(before.state.tile, dead.record.tile, 'the state before names the dead tile');
  assert.deepEqual(before.next, { seat: dead.record.player, tile: dead.record.tile },
    'next names the seat and the dead tile');
  assert.equal(dead.next.seat, dead.record.player, 'the same seat draws again');
  assert.equal(ups[70].state.discards, ups.filter((u) => u.record.discarded).length,
    'the state counts every discard');
});

test('the table hears who is connected: a seat joined, dropped and resumed', async (t) => {
  /* a spectator's view of the seats must not freeze at `spectating`: a
   * `seats` push tells everyone at the table when a seat's connection comes
   * or goes (docs/protocol.md) */
  const srv = await Server.start({ tag: 'spect-seats' });
  t.after(() => srv.cleanup());
  const host = await Client.connect(srv.url, { name: 'host' });
  const { match, tokens } = await createMatch(host, [{ open: true }, { open: true }],
    { time_control: { move_ms: 600000 }, policies: { reconnect_grace_ms: 600000 } });
  const watcher = await Client.connect(srv.url, { name: 'watcher' });
  const view = await watcher.request({ type: 'spectate', match }, 'spectating');
  assert.deepEqual(view.seats.map((s) => s.connected), [false, false]);
  const seatsNow = async (want, what) => {
    const m = await watcher.expect((x) => x.type === 'seats' && x.match === match &&
      JSON.stringify(x.seats.map((s) => s.connected)) === JSON.stringify(want), 10000);
    assert.ok(m, `${what}: the watcher was told ${JSON.stringify(want)}`);
    assert.deepEqual(leaks(m), [], JSON.stringify(m));
    assert.equal(m.id, undefined, 'a push answers no request');
    return m;
  };
  const a = await Client.connect(srv.url, { name: 'a' });
  const ja = await join(a, match, 0, tokens[0]);
  await seatsNow([true, false], 'seat 0 joined');
  const b = await Client.connect(srv.url, { name: 'b' });
  await join(b, match, 1, tokens[1]);
  await seatsNow([true, true], 'seat 1 joined');
  /* the other player hears it too (before the match's first your_turn) */
  assert.ok(await a.expect((m) => m.type === 'seats' && m.seats[1].connected, 10000), 'seat 0 heard seat 1 join');
  /* the joiner itself gets its `joined`, which shows it: no seats push to it for its own join */
  assert.ok(!b.all.some((m) => m.type === 'seats'), JSON.stringify(b.all.map((m) => m.type)));
  a.terminate();
  await seatsNow([false, true], 'seat 0 dropped');
  const a2 = await Client.connect(srv.url, { name: 'a2' });
  await a2.request({ type: 'resume', resume_token: ja.resume_token }, 'resumed');
  await seatsNow([true, true], 'seat 0 resumed');
  for (const c of [a2, b, watcher, host]) c.close();
});
