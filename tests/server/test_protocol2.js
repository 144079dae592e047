'use strict';
/*
 * test_protocol2.js — protocol 2 (docs/protocol.md, "Protocol 2"): state
 * changes instead of whole states, compact legal moves, and the version
 * agreed in hello.
 *
 * One match is watched at once by a protocol 1 spectator (whole states) and
 * protocol 2 spectators (an early one, and a late one that arrives mid-game)
 * while a protocol 2 player plays from its compact `legal`: every state a
 * protocol 2 client rebuilds by applying the changes (with the reference
 * reader below, which follows the docs) equals the state protocol 1 sends
 * for the same turn; protocol 2's update and your_turn never carry the whole
 * state when the client has the previous one; each compact legal entry reads
 * as a placement with its meeple ports, and a move chosen from it is
 * accepted. A client that asks for protocol 1 gets protocol 1 unchanged;
 * versions 0 and 3 are refused with unsupported_version.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { Server, Client, createMatch, join, rng, isError } = require('./lib');

/* The reference reader of a change (docs/protocol.md): a change that does
 * not fit throws. */
function applyChange(a, d) {
  if (d === null || typeof d !== 'object' || Array.isArray(d))
    return d;
  const keys = Object.keys(d);
  if (keys.length === 0)
    return a;
  if ('$set' in d) {
    assert.equal(keys.length, 1, '"$set" alone');
    return d.$set;
  }
  if (Array.isArray(a)) {
    const n = '$len' in d ? d.$len : a.length;
    const b = a.slice(0, n);
    while (b.length < n)
      b.push(null);
    for (const k of keys) {
      if (k === '$len')
        continue;
      assert.match(k, /^(0|[1-9][0-9]*)$/);
      assert.ok(Number(k) < n, `index ${k} below ${n}`);
      b[Number(k)] = applyChange(b[Number(k)], d[k]);
    }
    return b;
  }
  assert.ok(a !== null && typeof a === 'object', 'a patch applies to an object or an array');
  const b = { ...a };
  for (const k of keys)
    if (k !== '$del')
      b[k] = applyChange(k in a ? a[k] : null, d[k]);
  for (const k of d.$del || []) {
    assert.ok(k in b, `$del of a member that exists: ${k}`);
    delete b[k];
  }
  return b;
}

/* A compact Carcassonne legal entry "x,y,rot[,PORT...]" as an object. */
function readCompact(e) {
  assert.equal(typeof e, 'string');
  assert.match(e, /^-?\d+,-?\d+,[0-3](,(NW|N|NE|EN|E|ES|SE|S|SW|WS|W|WN|C))*$/);
  const f = e.split(',');
  return { x: Number(f[0]), y: Number(f[1]), rot: Number(f[2]), meeples: f.slice(3) };
}

test('protocol 2 changes rebuild the states protocol 1 sends; compact legal moves play', async (t) => {
  const srv = await Server.start({ tag: 'proto2' });
  t.after(() => srv.cleanup());
  const host = await Client.connect(srv.url, { name: 'host', protocol: 2 });
  assert.equal(host.welcome.protocol, 2);
  const { match, tokens } = await createMatch(host, [{ bot: 'random' }, { open: true }]);

  const v1 = await Client.connect(srv.url, { name: 'v1' });
  assert.equal(v1.welcome.protocol, 1);
  await v1.request({ type: 'spectate', match }, 'spectating');
  const v2 = await Client.connect(srv.url, { name: 'v2', protocol: 2 });
  const view = await v2.request({ type: 'spectate', match }, 'spectating');
  let spectState = view.state;
  assert.ok(spectState && Array.isArray(spectState.board), 'the table view has the whole state');

  const player = await Client.connect(srv.url, { name: 'player', protocol: 2 });
  const joined = await join(player, match, 1, tokens[1]);
  let playerState = joined.state;
  const r = rng(5);
  let late = null, lateState = null, turns = 0, changes = 0;
  for (;;) {
    const m = await player.expect((x) => ['your_turn', 'update', 'game_over'].includes(x.type), 20000);
    if (m.type === 'game_over')
      break;
    if (m.type === 'update') {
      turns++;
      assert.ok(!('state' in m) || !('change' in m), 'never both');
      if ('change' in m) {
        playerState = applyChange(playerState, m.change);
        changes++;
      } else {
        playerState = m.state;
      }
      continue;
    }
    /* your_turn: the state came with the update before it */
    assert.ok(!('state' in m), 'protocol 2 your_turn without the state the client has');
    if ('change' in m)
      playerState = applyChange(playerState, m.change);
    assert.ok(m.legal.length > 0);
    const entries = m.legal.map(readCompact);
    for (const e of entries)
      assert.equal(playerState.board.some((b) => b.x === e.x && b.y === e.y), false, 'a free cell');
    assert.equal(playerState.tile !== null, true);
    const e = r.pick(entries);
    const mv = { x: e.x, y: e.y, rot: e.rot };
    if (e.meeples.length && r() < 0.5)
      mv.meeple = r.pick(e.meeples);
    if (m.turn > 30 && !late) {
      late = await Client.connect(srv.url, { name: 'late', protocol: 2 });
      lateState = (await late.request({ type: 'spectate', match }, 'spectating')).state;
    }
    player.send({ type: 'move', match, turn: m.turn, move: mv });
  }
  assert.ok(turns >= 71, `${turns} updates`);
  assert.ok(changes >= 60, `${changes} of them as changes`);

  for (const c of [v1, v2, late])
    await c.expect('game_over', 20000);
  /* every spectator update: protocol 2's rebuilt state equals protocol 1's */
  const ups1 = v1.all.filter((x) => x.type === 'update');
  const ups2 = v2.all.filter((x) => x.type === 'update');
  assert.equal(ups2.length, ups1.length);
  for (let i = 0; i < ups1.length; i++) {
    assert.equal(ups2[i].turn, ups1[i].turn);
    assert.ok('state' in ups1[i]);
    /* the whole state only when the client's is not the last announced one
     * (here: the first update, after the start's draw) */
    assert.ok(('change' in ups2[i]) !== ('state' in ups2[i]), `turn ${ups2[i].turn}: one of them`);
    if (i > 0)
      assert.ok('change' in ups2[i], `turn ${ups2[i].turn}: a change`);
    spectState = 'change' in ups2[i] ? applyChange(spectState, ups2[i].change) : ups2[i].state;
    assert.deepEqual(spectState, ups1[i].state, `turn ${ups1[i].turn}`);
    /* the rest of the update is protocol 1's */
    const a = { ...ups1[i] }, b = { ...ups2[i] };
    delete a.state;
    delete b.change;
    delete b.state;
    delete a.at;
    delete b.at;
    delete a.clocks;
    delete b.clocks;
    assert.deepEqual(b, a);
  }
  assert.deepEqual(playerState, ups1[ups1.length - 1].state, 'the player rebuilt the final state');

  /* the late spectator: the whole state in its table view, then changes */
  const lateUps = late.all.filter((x) => x.type === 'update');
  assert.ok(lateUps.length > 10);
  for (const u of lateUps) {
    assert.ok('change' in u, `late spectator, turn ${u.turn}: a change`);
    lateState = applyChange(lateState, u.change);
    const same = ups1.find((x) => x.turn === u.turn);
    assert.deepEqual(lateState, same.state, `late spectator, turn ${u.turn}`);
  }
  /* protocol 2 is smaller: the updates without the state */
  const bytes = (list) => list.reduce((s, x) => s + JSON.stringify(x).length, 0);
  assert.ok(bytes(ups2) * 4 < bytes(ups1), `protocol 2 updates ${bytes(ups2)} B, protocol 1 ${bytes(ups1)} B`);
});

test('hello: protocol 1 and 2 are agreed, others refused', async (t) => {
  const srv = await Server.start({ tag: 'proto2-hello' });
  t.after(() => srv.cleanup());
  for (const v of [0, 3]) {
    const c = await Client.connect(srv.url, { name: `v${v}`, hello: false });
    c.send({ type: 'hello', protocol: v, client: 'itest' });
    const m = await c.expect('error');
    assert.ok(isError(m, 'unsupported_version'), JSON.stringify(m));
    assert.match(m.message, /1 to 2/);
  }
  const c1 = await Client.connect(srv.url, { name: 'one' });
  assert.equal(c1.welcome.protocol, 1);
  const c2 = await Client.connect(srv.url, { name: 'two', protocol: 2 });
  assert.equal(c2.welcome.protocol, 2);
});
