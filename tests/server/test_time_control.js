'use strict';
/*
 * test_time_control.js — the server owns the clocks (docs/protocol.md, "Time
 * and policies"). A deliberately slow remote seat, one that never answers,
 * gets the match's timeout policy applied on time: no earlier than its
 * deadline and not absurdly late. And the `time_left_ms` of successive
 * `your_turn`s follows the rules: first-move allowance, per-move limit,
 * bank drawn on beyond the limit, increment added after each move.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { Server, Client, SLOW, createMatch, join, playUntilOver, rng, randomMove, sleep } =
  require('./lib');

/* A policy is applied "on time": never before the deadline the server
 * announced (minus a few ms of loopback latency), and at most LATE ms after. */
const EARLY = 30;
const LATE = 1000 * SLOW;

function assertOnTime(t, elapsed, allowed, what) {
  t.diagnostic(`${what}: after ${elapsed} ms, allowed ${allowed} ms (${elapsed - allowed >= 0 ? '+' : ''}${elapsed - allowed})`);
  assert.ok(elapsed >= allowed - EARLY,
    `${what}: applied after ${elapsed} ms, before the ${allowed} ms the seat had`);
  assert.ok(elapsed <= allowed + LATE,
    `${what}: applied after ${elapsed} ms, more than ${LATE} ms past the ${allowed} ms deadline`);
}

/* A server, a match [random bot, open seat] with these options, the open
 * seat joined by a fresh client. */
async function setup(t, extra) {
  const srv = await Server.start({ tag: 'time' });
  t.after(() => srv.cleanup());
  const c = await Client.connect(srv.url, { name: 'slow' });
  const { match, tokens } = await createMatch(c, [{ bot: 'random' }, { open: true }], extra);
  const joined = await join(c, match, 1, tokens[1]);
  return { srv, c, match, joined };
}

/* The next your_turn after turn `after` (older ones, e.g. re-sent in
 * grace, are left pending). */
const yourTurn = (c, after = 0) =>
  c.expect((m) => m.type === 'your_turn' && m.turn > after, 10000 * SLOW);

test('timeout policy forfeit: the silent seat loses on time, ranked last', async (t) => {
  const { c, match } = await setup(t, {
    time_control: { move_ms: 400, first_move_ms: 400 },
    policies: { timeout: 'forfeit' },
  });
  const yt = await yourTurn(c);
  assert.equal(yt.time_left_ms, 400, 'first move: first_move_ms, no bank');
  const over = await c.expect('game_over', 10000 * SLOW);
  assertOnTime(t, over.at - yt.at, yt.time_left_ms, 'forfeit');
  assert.equal(over.match, match);
  assert.equal(over.result.reason, 'timeout');
  assert.equal(over.result.seat, 1);
  assert.equal(typeof over.result.detail, 'string');
  assert.deepEqual(over.ranking, [0, 1], 'the forfeiting seat ranks last');
  assert.deepEqual(over.result.winners, [0]);
  /* nothing was played for the seat */
  assert.ok(!c.all.some((m) => m.type === 'update' && m.by === 'server' && m.reason === 'timeout'));
  /* a move after the end is refused */
  const late = await c.request({ type: 'move', match, move: { x: 0, y: 1, rot: 0 } });
  assert.equal(late.type, 'error');
  assert.equal(late.code, 'match_over');
});

test('timeout policy random_move: the server plays for the seat on time, the match goes on',
  async (t) => {
    const { c } = await setup(t, {
      time_control: { move_ms: 300, first_move_ms: 300 },
      policies: { timeout: 'random_move' },
    });
    /* stall on two turns */
    let last = 0;
    for (let k = 0; k < 2; k++) {
      const yt = await yourTurn(c, last);
      last = yt.turn;
      const up = await c.expect((m) => m.type === 'update' && m.turn === yt.turn, 10000 * SLOW);
      assertOnTime(t, up.at - yt.at, yt.time_left_ms, 'random_move #' + (k + 1));
      assert.equal(up.by, 'server');
      assert.equal(up.reason, 'timeout');
      assert.equal(up.record.player, 1);
      /* the move played is one of the legal ones */
      if (!up.record.discarded)
        assert.ok(yt.legal.some((e) => e.x === up.record.x && e.y === up.record.y),
          'the server\'s move is a legal placement');
    }
    /* then play properly to the end */
    const r = rng(3);
    const over = await playUntilOver(c, { choose: (yt) => randomMove(yt, r) });
    assert.equal(over.result.reason, 'normal');
    const updates = c.all.filter((m) => m.type === 'update');
    assert.equal(updates.length, 71);
    assert.equal(updates.filter((u) => u.by === 'server' && u.reason === 'timeout').length, 2);
  });

test('timeout policy grace: a move within the grace bank is accepted, a second stall forfeits',
  async (t) => {
    const GRACE = 900;
    const { c } = await setup(t, {
      time_control: { move_ms: 300, first_move_ms: 300 },
      policies: { timeout: 'grace', grace_ms: GRACE },
    });
    const yt1 = await yourTurn(c);
    assert.equal(yt1.time_left_ms, 300);
    assert.equal(yt1.clocks[1].grace_ms, GRACE, 'clocks show the grace bank');
    /* the deadline passes: the seat is told it now runs on its grace bank */
    const g1 = await c.expect((m) => m.type === 'your_turn' && m.turn === yt1.turn, 10000 * SLOW);
    assertOnTime(t, g1.at - yt1.at, yt1.time_left_ms, 'grace starts');
    assert.ok(g1.time_left_ms > GRACE - 100 && g1.time_left_ms <= GRACE,
      `in grace, time_left_ms ${g1.time_left_ms} is the grace bank ${GRACE}`);
    assert.ok(!c.all.some((m) => m.type === 'game_over'), 'no forfeit while the grace lasts');
    await sleep(250);
    const acc = await c.request({ type: 'move', turn: g1.turn, move: randomMove(g1, rng(5)) });
    assert.equal(acc.type, 'move_accepted', 'a move within the grace bank is played');
    assert.equal(acc.turn, yt1.turn);
    const played = await c.expect((m) => m.type === 'update' && m.turn === yt1.turn);
    assert.equal(played.by, 'player');

    /* the next turn: what is left of the grace bank is shown, then spent */
    const yt2 = await yourTurn(c, yt1.turn);
    const left = yt2.clocks[1].grace_ms;
    assert.ok(left < GRACE - 150 && left > GRACE - 600,
      `about 250 ms of grace spent: ${left} of ${GRACE} left`);
    const g2 = await c.expect((m) => m.type === 'your_turn' && m.turn === yt2.turn, 10000 * SLOW);
    assertOnTime(t, g2.at - yt2.at, yt2.time_left_ms, 'grace starts again');
    const over = await c.expect('game_over', 10000 * SLOW);
    assertOnTime(t, over.at - yt2.at, yt2.time_left_ms + left, 'forfeit when the grace is spent');
    assert.equal(over.result.reason, 'timeout');
    assert.equal(over.result.seat, 1);
    assert.deepEqual(over.ranking, [0, 1]);
  });

test('clocks: first-move allowance, per-move limit, bank and increment', async (t) => {
  const MOVE = 250, FIRST = 1200, BANK = 500, INC = 100;
  const { c, joined } = await setup(t, {
    time_control: { move_ms: MOVE, first_move_ms: FIRST, bank_ms: BANK, increment_ms: INC },
    policies: { timeout: 'forfeit' },
  });
  assert.deepEqual(joined.clocks.map((k) => k.bank_ms), [BANK, BANK], 'every seat starts with the bank');
  assert.deepEqual(joined.time_control, { move_ms: MOVE, first_move_ms: FIRST, bank_ms: BANK, increment_ms: INC },
    'joined names the time control');
  assert.equal(joined.policies.timeout, 'forfeit', 'joined names the policies');
  const r = rng(9);
  /* Think times: the first move is free, the second 150 ms over the limit,
   * the third 400 ms over. The server charges from when it sent your_turn
   * to when the move arrived, which the client can only bound: at least the
   * think time, at most the time since it sent its previous message (the
   * server sends your_turn after receiving that) until the update came
   * back. The bank must move within those bounds, by the rules of
   * docs/protocol.md: time beyond the per-move limit comes off the bank,
   * then the increment is added. */
  const thinks = [0, 400, 650, 0, 0];
  let bank = BANK, last = 0, sentPrev = Date.now(), overTotal = 0;
  for (let k = 0; k < thinks.length; k++) {
    const yt = await yourTurn(c, last);
    last = yt.turn;
    const base = k === 0 ? FIRST : MOVE;
    assert.equal(yt.clocks[1].bank_ms, bank, `turn ${k + 1}: your_turn shows the bank the last update showed`);
    /* the time left counts down from base + bank at the moment it was sent */
    assert.ok(yt.time_left_ms <= base + bank && yt.time_left_ms >= base + bank - 150 * SLOW,
      `turn ${k + 1}: time_left_ms ${yt.time_left_ms}, allowance ${base + bank}`);
    assert.equal(yt.clocks[1].time_left_ms, yt.time_left_ms, 'clocks name the time left of the seat to move');
    assert.equal(yt.clocks[0].time_left_ms, undefined, 'only the seat to move has time_left_ms');
    assert.ok(Math.abs(yt.deadline - (Date.now() + yt.time_left_ms)) < 1000, 'deadline is epoch ms');
    if (thinks[k])
      await sleep(thinks[k]);
    const sent = Date.now();
    c.send({ type: 'move', turn: yt.turn, move: randomMove(yt, r) });
    const up = await c.expect((m) => m.type === 'update' && m.turn === yt.turn);
    assert.equal(up.by, 'player', `turn ${yt.turn} played by the seat (not by a policy)`);
    /* the update gives the seat asked next its whole allowance, so watchers can count down */
    if (up.next) {
      const nc = up.clocks[up.next.seat];
      assert.ok(Number.isInteger(nc.time_left_ms) && nc.time_left_ms >= MOVE && nc.time_left_ms <= FIRST + nc.bank_ms,
        `turn ${yt.turn}: the next seat's time_left_ms ${nc.time_left_ms} is its allowance plus bank`);
      assert.ok(Math.abs(nc.deadline - (up.at + nc.time_left_ms)) < 1000, 'update deadline is epoch ms');
      assert.equal(up.clocks[1 - up.next.seat].time_left_ms, undefined, 'only the seat asked next has time_left_ms');
    }
    const usedMin = thinks[k], usedMax = up.at - sentPrev;
    const over = (used) => Math.max(0, used - base);
    const hi = bank - Math.min(bank, over(usedMin)) + INC; /* the least the server may charge */
    const lo = bank - Math.min(bank, over(usedMax)) + INC; /* the most */
    const now = up.clocks[1].bank_ms;
    assert.ok(now >= lo - 2 && now <= hi + 2,
      `turn ${k + 1}: bank ${bank} -> ${now}, expected within [${lo}, ${hi}] (used ${usedMin}..${usedMax} ms)`);
    overTotal += bank + INC - now;
    bank = now;
    sentPrev = sent;
  }
  /* the two slow turns did cost bank: at least their planned overrun */
  assert.ok(overTotal >= 150 + 400 - 10, `the slow turns cost ${overTotal} ms of bank`);
  /* then stall: the last your_turn's time_left_ms is the whole budget */
  const yt = await yourTurn(c, last);
  const over = await c.expect('game_over', 10000 * SLOW);
  assertOnTime(t, over.at - yt.at, yt.time_left_ms, 'forfeit after the bank is spent');
  assert.equal(over.result.reason, 'timeout');
});

test('clocks: first_move_ms defaults to 3 x move_ms', async (t) => {
  const { c } = await setup(t, { time_control: { move_ms: 200 }, policies: { timeout: 'random_move' } });
  const yt1 = await yourTurn(c);
  assert.equal(yt1.time_left_ms, 600);
  c.send({ type: 'move', turn: yt1.turn, move: randomMove(yt1, rng(1)) });
  const yt2 = await yourTurn(c, yt1.turn);
  assert.equal(yt2.time_left_ms, 200, 'after the first move: move_ms (no bank)');
  assert.deepEqual(yt2.clocks.map((k) => k.bank_ms), [0, 0]);
});

test('in-process bots are held to the clock too: a slow bot is stopped in time', async (t) => {
  const MOVE = 300;
  /* a bot that would think for a minute per move, in a 300 ms game */
  const srv = await Server.start({ tag: 'botclock' });
  t.after(() => srv.cleanup());
  const c = await Client.connect(srv.url, { name: 'human' });
  const { match, tokens } = await createMatch(c, [{ bot: 'mcts:ms=60000,sims=100000000' }, { open: true }], {
    time_control: { move_ms: MOVE, first_move_ms: MOVE }, policies: { timeout: 'forfeit' },
  });
  await join(c, match, 1, tokens[1]);
  const r = rng(12);
  let last = 0;
  for (let k = 0; k < 4; k++) {
    const yt = await yourTurn(c, last);
    last = yt.turn;
    c.send({ type: 'move', turn: yt.turn, move: randomMove(yt, r) });
    const mine = await c.expect((m) => m.type === 'update' && m.turn === yt.turn);
    const theirs = await c.expect((m) => (m.type === 'update' && m.turn > yt.turn && m.record.player === 0) ||
      m.type === 'game_over', 10000 * SLOW);
    assert.notEqual(theirs.type, 'game_over', 'the bot lost on time: ' + JSON.stringify(theirs.result));
    const took = theirs.at - mine.at;
    t.diagnostic(`bot turn ${theirs.turn}: ${took} ms of ${MOVE}`);
    assert.equal(theirs.by, 'player', 'the bot moved itself, no policy played for it');
    assert.ok(took <= MOVE + 200 * SLOW, `the bot answered in ${took} ms, past its ${MOVE} ms`);
  }
  assert.ok(!c.all.some((m) => m.type === 'game_over'), 'the bot never lost on time');
  assert.equal((await c.request({ type: 'resign' })).type, 'resigned');
  const over = await c.expect('game_over');
  assert.equal(over.result.reason, 'resignation');
  assert.equal(over.result.seat, 1);
});

test('in-process bots waiting for a worker thread are not charged twice: no bot loses on time', async (t) => {
  /* More searches than worker threads: a search that waited for a thread
   * must spend only what is left of its seat's time, not a whole budget
   * from when it started (which ran past the deadline and its grace). */
  const MOVE = 300, N = 8;
  const srv = await Server.start({ tag: 'botqueue', env: { UV_THREADPOOL_SIZE: '2' } });
  t.after(() => srv.cleanup());
  const c = await Client.connect(srv.url, { name: 'watcher' });
  const ids = [];
  for (let i = 0; i < N; i++) {
    const { match } = await createMatch(c, [{ bot: 'mcts:ms=60000,sims=100000000' }, { bot: 'flatmc:ms=60000' }], {
      time_control: { move_ms: MOVE, first_move_ms: MOVE }, policies: { timeout: 'forfeit' },
    });
    ids.push(match);
    await c.request({ type: 'spectate', match }, 'spectating');
  }
  /* every match makes moves for a while; none may end on time */
  await sleep(4000 * SLOW);
  const overs = c.all.filter((m) => m.type === 'game_over');
  assert.deepEqual(overs.map((o) => o.result.reason), [], 'no match ended: ' +
    JSON.stringify(overs.map((o) => o.result)));
  for (const id of ids) {
    const ups = c.all.filter((m) => m.type === 'update' && m.match === id);
    assert.ok(ups.length >= 2, `match ${id} made progress (${ups.length} turns)`);
    assert.ok(ups.every((u) => u.by === 'player' || u.reason === 'dead tile'), `match ${id}: no policy played`);
  }
  /* How many searches ran past their seat's deadline and had to be stopped
   * depends on how busy the machine is: reported, not asserted (on a quiet
   * machine it was 0 with the queue time charged, and not 0 without). */
  t.diagnostic(`searches stopped at their deadline: ${srv.events('bot_overran').length}`);
});
