'use strict';
/*
 * test_time_control.js — the server owns the clocks (docs/protocol.md, "Time
 * and policies"). A deliberately slow remote seat, one that never answers,
 * gets the match's timeout policy applied on time: no earlier than its
 * deadline and not absurdly late. And the `time_left_ms` of successive
 * `your_turn`s follows the rules: first-move allowance, per-move limit,
 * bank drawn on beyond the limit, increment added after each move.
 *
 * Timing is judged on two clocks. `deadline` fields and the log's `ts` are
 * epoch ms on the wall clock this process shares with the server, so "the
 * policy was applied on time" compares the server's `timeout` log line with
 * the deadline it announced; and on the client's own clock, the message that
 * showed the policy (the update played for the seat, the game_over, the
 * your_turn of the grace) cannot have arrived before that deadline, nor long
 * after it. "Long" means something (issue 30: it was 3 s for 300 ms limits):
 * 250 ms, plus twice the longest stall this process itself suffered while it
 * waited (a timer's lateness, measured every 10 ms) — a loaded machine
 * starves the server and this process alike, a server that misses its
 * deadline on a quiet one fails. Think times planned by the tests leave
 * seconds of room before any deadline, so a loaded machine cannot turn a
 * logic test into a race.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { Server, Client, SLOW, CLOCK_SLACK, logTime, createMatch, join, playUntilOver, rng, randomMove, sleep } =
  require('./lib');

/* "On time": the server's `timeout` log line is no earlier than the deadline
 * it announced (but for CLOCK_SLACK: both come from two clocks read one
 * after the other) and at most late() ms after it. */
const EARLY = CLOCK_SLACK;
const LATE_BASE = 250 * SLOW;

/* This process's own stalls: the longest lateness of a 10 ms timer since
 * the monitor started (what the machine's load costs a process now). */
function lagMonitor() {
  let last = Date.now(), worst = 0;
  const h = setInterval(() => {
    const now = Date.now();
    worst = Math.max(worst, now - last - 10);
    last = now;
  }, 10);
  return { stall: () => Math.max(worst, Date.now() - last - 10), stop: () => clearInterval(h) };
}
let monitor = lagMonitor();
test.after(() => monitor.stop());
/* The window for lateness: the base and twice the worst stall seen since the
 * last reset (each judgement resets it once done). */
const late = () => LATE_BASE + 2 * monitor.stall();

/* The k-th (0-based) `timeout` log line of a match. */
function timeoutLine(srv, match, k = 0) {
  return srv.waitLog(() => srv.events('timeout').filter((l) => l.match === match).length > k,
    10000 * SLOW, `timeout #${k + 1} of ${match}`).then(() =>
    srv.events('timeout').filter((l) => l.match === match)[k]);
}

/* seen: the client's message that showed the policy applied (its .at is
 * this process's clock). */
async function assertOnTime(t, srv, match, k, deadline, what, seen) {
  const line = await timeoutLine(srv, match, k);
  const window = late();
  const byServer = logTime(line) - deadline, byClient = seen.at - deadline;
  t.diagnostic(`${what}: applied ${byServer} ms after the announced deadline by the server's log, ` +
    `seen ${byClient} ms after it here; window ${window} ms (this process stalled ` +
    `${monitor.stall()} ms at most)`);
  assert.ok(byServer >= -EARLY, `${what}: applied ${-byServer} ms before the deadline the server announced`);
  assert.ok(byClient >= -EARLY, `${what}: seen here ${-byClient} ms before the announced deadline`);
  assert.ok(byServer <= window, `${what}: applied ${byServer} ms after the deadline (the window: ${window} ms)`);
  assert.ok(byClient <= window, `${what}: seen here ${byClient} ms after the deadline (the window: ${window} ms)`);
  monitor.stop();
  monitor = lagMonitor();
  return line;
}

/* A server, a match [random bot, open seat] with these options, the open
 * seat joined by a fresh client. */
async function setup(t, extra, serverOpts = {}) {
  const srv = await Server.start({ tag: 'time', ...serverOpts });
  t.after(() => srv.cleanup());
  const c = await Client.connect(srv.url, { name: 'slow' });
  const { match, tokens } = await createMatch(c, [{ bot: 'random' }, { open: true }], extra);
  const sentJoin = Date.now();
  const joined = await join(c, match, 1, tokens[1]);
  return { srv, c, match, joined, sentJoin };
}

/* The next your_turn after turn `after` (older ones, e.g. re-sent in
 * grace, are left pending). */
const yourTurn = (c, after = 0) =>
  c.expect((m) => m.type === 'your_turn' && m.turn > after, 10000 * SLOW);

test('timeout policy forfeit: the silent seat loses on time, ranked last', async (t) => {
  const { srv, c, match } = await setup(t, {
    time_control: { move_ms: 400, first_move_ms: 400 },
    policies: { timeout: 'forfeit' },
  });
  const yt = await yourTurn(c);
  assert.equal(yt.time_left_ms <= 400 && yt.time_left_ms > 0, true, 'first move: first_move_ms, no bank');
  const over = await c.expect('game_over', 10000 * SLOW);
  const line = await assertOnTime(t, srv, match, 0, yt.deadline, 'forfeit', over);
  assert.equal(line.seat, 1);
  assert.equal(line.policy, 'forfeit');
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
    const { srv, c, match } = await setup(t, {
      time_control: { move_ms: 300, first_move_ms: 300 },
      policies: { timeout: 'random_move' },
    });
    /* stall on two turns */
    let last = 0;
    for (let k = 0; k < 2; k++) {
      const yt = await yourTurn(c, last);
      last = yt.turn;
      const up = await c.expect((m) => m.type === 'update' && m.turn === yt.turn, 10000 * SLOW);
      await assertOnTime(t, srv, match, k, yt.deadline, 'random_move #' + (k + 1), up);
      assert.equal(up.by, 'server');
      assert.equal(up.reason, 'timeout');
      assert.equal(up.record.player, 1);
      /* the move played is one of the legal ones */
      if (!up.record.discarded)
        assert.ok(yt.legal.some((e) => e.x === up.record.x && e.y === up.record.y),
          'the server\'s move is a legal placement');
    }
    /* then play properly to the end (well within the 300 ms: a move a loaded
     * machine delivers late is played for the seat, which the count allows) */
    const r = rng(3);
    const over = await playUntilOver(c, { choose: (yt) => randomMove(yt, r) });
    assert.equal(over.result.reason, 'normal');
    const updates = c.all.filter((m) => m.type === 'update');
    assert.equal(updates.length, 71);
    const byPolicy = updates.filter((u) => u.by === 'server' && u.reason === 'timeout');
    assert.equal(byPolicy.length, srv.events('timeout').length, 'one random move per timeout logged');
    assert.ok(byPolicy.length >= 2);
  });

test('timeout policy grace: a move within the grace bank is accepted, a second stall forfeits',
  async (t) => {
    const GRACE = 3000;
    const { srv, c, match } = await setup(t, {
      time_control: { move_ms: 300, first_move_ms: 300 },
      policies: { timeout: 'grace', grace_ms: GRACE },
    });
    const yt1 = await yourTurn(c);
    assert.ok(yt1.time_left_ms <= 300);
    assert.equal(yt1.clocks[1].grace_ms, GRACE, 'clocks show the grace bank');
    /* the deadline passes: the seat is told it now runs on its grace bank */
    const g1 = await c.expect((m) => m.type === 'your_turn' && m.turn === yt1.turn, 10000 * SLOW);
    await assertOnTime(t, srv, match, 0, yt1.deadline, 'grace starts', g1);
    assert.ok(Math.abs(g1.deadline - yt1.deadline - GRACE) <= CLOCK_SLACK,
      `in grace, the deadline moves on by the grace bank: ${yt1.deadline} -> ${g1.deadline}`);
    assert.ok(g1.time_left_ms <= GRACE, `in grace, time_left_ms ${g1.time_left_ms} is at most the grace bank`);
    assert.ok(!c.all.some((m) => m.type === 'game_over'), 'no forfeit while the grace lasts');
    await sleep(250);
    const sentAt = Date.now();
    const acc = await c.request({ type: 'move', turn: g1.turn, move: randomMove(g1, rng(5)) });
    assert.equal(acc.type, 'move_accepted', 'a move within the grace bank is played');
    assert.equal(acc.turn, yt1.turn);
    const played = await c.expect((m) => m.type === 'update' && m.turn === yt1.turn);
    assert.equal(played.by, 'player');

    /* the next turn: what is left of the grace bank is shown, then spent.
     * The server charged from the first deadline to the move's arrival,
     * which happened between sending it and hearing it was accepted. */
    const yt2 = await yourTurn(c, yt1.turn);
    const left = yt2.clocks[1].grace_ms;
    const spentMin = sentAt - yt1.deadline, spentMax = acc.at - yt1.deadline;
    assert.ok(spentMin >= 250, `the move went out ${spentMin} ms into the grace`);
    assert.ok(left >= GRACE - spentMax - CLOCK_SLACK && left <= GRACE - spentMin + CLOCK_SLACK,
      `grace spent: ${GRACE - left} ms, expected ${spentMin}..${spentMax}`);
    const g2 = await c.expect((m) => m.type === 'your_turn' && m.turn === yt2.turn, 10000 * SLOW);
    await assertOnTime(t, srv, match, 1, yt2.deadline, 'grace starts again', g2);
    assert.ok(Math.abs(g2.deadline - yt2.deadline - left) <= CLOCK_SLACK, 'the rest of the grace bank');
    const over = await c.expect('game_over', 10000 * SLOW);
    await assertOnTime(t, srv, match, 2, g2.deadline, 'forfeit when the grace is spent', over);
    assert.equal(over.result.reason, 'timeout');
    assert.equal(over.result.seat, 1);
    assert.deepEqual(over.ranking, [0, 1]);
  });

test('clocks: first-move allowance, per-move limit, bank and increment', async (t) => {
  /* the bank is large enough that no planned think time comes within
   * seconds of a deadline: this test is about the arithmetic */
  const MOVE = 250, FIRST = 1200, BANK = 3000, INC = 100;
  const { srv, c, match, joined, sentJoin } = await setup(t, {
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
  let bank = BANK, last = 0, sentPrev = sentJoin, overTotal = 0;
  for (let k = 0; k < thinks.length; k++) {
    const yt = await yourTurn(c, last);
    last = yt.turn;
    const base = k === 0 ? FIRST : MOVE;
    assert.equal(yt.clocks[1].bank_ms, bank, `turn ${k + 1}: your_turn shows the bank the last update showed`);
    /* the time left counts down from base + bank from the moment the seat was asked */
    assert.ok(yt.time_left_ms <= base + bank && yt.time_left_ms >= base + bank - 1000 * SLOW,
      `turn ${k + 1}: time_left_ms ${yt.time_left_ms}, allowance ${base + bank}`);
    assert.equal(yt.clocks[1].time_left_ms, yt.time_left_ms, 'clocks name the time left of the seat to move');
    assert.equal(yt.clocks[0].time_left_ms, undefined, 'only the seat to move has time_left_ms');
    /* deadline is epoch ms: deadline - time_left_ms is when the server sent
     * it, after it heard our previous message and before we got it */
    const sentByServer = yt.deadline - yt.time_left_ms;
    assert.ok(sentByServer >= sentPrev - CLOCK_SLACK && sentByServer <= yt.at + CLOCK_SLACK,
      `deadline ${yt.deadline} - time_left_ms ${yt.time_left_ms} is between ${sentPrev} and ${yt.at}`);
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
      const at = nc.deadline - nc.time_left_ms;
      assert.ok(at >= sent - CLOCK_SLACK && at <= up.at + CLOCK_SLACK, 'update deadline is epoch ms');
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
  const over = await c.expect('game_over', 20000 * SLOW);
  await assertOnTime(t, srv, match, 0, yt.deadline, 'forfeit after the bank is spent', over);
  assert.equal(over.result.reason, 'timeout');
});

test('clocks: first_move_ms defaults to 3 x move_ms', async (t) => {
  const { c, joined } = await setup(t, { time_control: { move_ms: 2000 }, policies: { timeout: 'random_move' } });
  assert.equal(joined.time_control.first_move_ms, 6000, 'the server records 3 x move_ms');
  const yt1 = await yourTurn(c);
  assert.ok(yt1.time_left_ms <= 6000 && yt1.time_left_ms > 6000 - 1000 * SLOW,
    `the first your_turn has first_move_ms: ${yt1.time_left_ms}`);
  c.send({ type: 'move', turn: yt1.turn, move: randomMove(yt1, rng(1)) });
  const yt2 = await yourTurn(c, yt1.turn);
  assert.ok(yt2.time_left_ms <= 2000 && yt2.time_left_ms > 2000 - 1000 * SLOW,
    `after the first move: move_ms (no bank): ${yt2.time_left_ms}`);
  assert.deepEqual(yt2.clocks.map((k) => k.bank_ms), [0, 0]);
});

/* The margin the server keeps back from an in-process bot's time (limits.h
 * SRV_BOT_MARGIN_MS: 50 ms or a twentieth, whichever is more). */
const botMargin = (allow) => Math.max(50, Math.floor(allow / 20));

test('in-process bots are held to the clock too: a slow bot is stopped in time', async (t) => {
  const MOVE = 300;
  /* a bot that would think for a minute per move, in a 300 ms game */
  const srv = await Server.start({ tag: 'botclock', args: ['--log-level', 'debug'] });
  t.after(() => srv.cleanup());
  const c = await Client.connect(srv.url, { name: 'human' });
  /* random_move, not forfeit: our own seat has 300 ms too, and a busy
   * machine may deliver our moves late; the bot's turns must still be its
   * own (checked below), so a late bot cannot hide behind the policy */
  const { match, tokens } = await createMatch(c, [{ bot: 'mcts:ms=60000,sims=100000000' }, { open: true }], {
    time_control: { move_ms: MOVE, first_move_ms: MOVE }, policies: { timeout: 'random_move' },
  });
  await join(c, match, 1, tokens[1]);
  const r = rng(12);
  let last = 0;
  for (let k = 0; k < 4; k++) {
    const yt = await yourTurn(c, last);
    last = yt.turn;
    c.send({ type: 'move', turn: yt.turn, move: randomMove(yt, r) });
    const mine = await c.expect((m) => m.type === 'update' && m.turn === yt.turn);
    const theirs = await c.expect((m) => m.type === 'update' && m.turn > yt.turn && m.record.player === 0 &&
      !m.record.discarded, 10000 * SLOW);
    t.diagnostic(`bot turn ${theirs.turn}: answered ${theirs.at - mine.at} ms after our move (limit ${MOVE})`);
    assert.equal(theirs.by, 'player', 'the bot moved itself, no policy played for it');
  }
  /* what the server gave each search, by its own log: the seat's time
   * minus the margin, never the minute the spec asks for */
  const searches = srv.events('bot_search').filter((l) => l.match === match);
  assert.ok(searches.length >= 4, `${searches.length} searches logged`);
  for (const s of searches) {
    t.diagnostic(`search for turn ${s.turn}: allowance ${s.allowance_ms}, budget ${s.budget_ms}, ` +
      `first decision ${s.first_budget_ms}, searched ${s.search_ms} ms`);
    assert.equal(s.allowance_ms, MOVE, 'the seat had move_ms');
    assert.ok(s.budget_ms <= s.allowance_ms - botMargin(s.allowance_ms),
      `turn ${s.turn}: budget ${s.budget_ms} ms within the seat's ${s.allowance_ms} ms less the margin`);
    assert.ok(s.first_budget_ms <= s.budget_ms, 'the first decision got no more than the budget');
    assert.ok(s.search_ms < 10000 * SLOW, `turn ${s.turn}: searched ${s.search_ms} ms: capped, not a minute`);
  }
  assert.ok(!c.all.some((m) => m.type === 'game_over'), 'no match end');
  assert.ok(!srv.events('timeout').some((l) => l.seat === 0), 'the bot never ran out of time');
  assert.equal((await c.request({ type: 'resign' })).type, 'resigned');
  const over = await c.expect('game_over');
  assert.equal(over.result.reason, 'resignation');
  assert.equal(over.result.seat, 1);
});

test('in-process bots waiting for a worker thread are not charged twice: no bot loses on time', async (t) => {
  /* More searches than worker threads: a search that waited for a thread
   * must spend only what is left of its seat's time, not a whole budget
   * from when it started (which ran past the deadline and its grace). The
   * server logs each search (bot_search, level debug): the time it waited
   * for a thread plus the budget its first decision got must fit in the
   * budget counted from when it was queued. */
  const MOVE = 300, N = 8;
  const srv = await Server.start({ tag: 'botqueue', env: { UV_THREADPOOL_SIZE: '2' }, args: ['--log-level', 'debug'] });
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
  /* every match makes a few moves; none may end on time */
  const progressed = (id) => c.all.filter((m) => m.type === 'update' && m.match === id).length >= 4;
  const t0 = Date.now();
  while (!ids.every(progressed) && !c.all.some((m) => m.type === 'game_over') && Date.now() - t0 < 60000 * SLOW)
    await sleep(100);
  const overs = c.all.filter((m) => m.type === 'game_over');
  assert.deepEqual(overs.map((o) => o.result.reason), [], 'no match ended: ' +
    JSON.stringify(overs.map((o) => o.result)));
  for (const id of ids) {
    const ups = c.all.filter((m) => m.type === 'update' && m.match === id);
    assert.ok(ups.length >= 4, `match ${id} made progress (${ups.length} turns)`);
    assert.ok(ups.every((u) => u.by === 'player' || u.reason === 'dead tile'), `match ${id}: no policy played`);
  }
  const searches = srv.events('bot_search');
  assert.ok(searches.length >= 4 * N, `${searches.length} searches logged`);
  for (const s of searches) {
    assert.ok(s.budget_ms <= s.allowance_ms - botMargin(s.allowance_ms), `budget ${s.budget_ms} of ${s.allowance_ms}`);
    assert.ok(s.waited_ms + s.first_budget_ms <= Math.max(s.budget_ms, s.waited_ms + 1) + 1,
      `a search that waited ${s.waited_ms} ms for a thread got ${s.first_budget_ms} ms more: ` +
      `past its ${s.budget_ms} ms counted from when it was queued`);
  }
  /* the check above bites only if searches did wait: with N matches on two
   * threads, they must */
  const waited = searches.filter((s) => s.waited_ms > 50);
  assert.ok(waited.length > 0, 'some searches waited for a thread');
  t.diagnostic(`${searches.length} searches, ${waited.length} waited over 50 ms (longest ` +
    `${Math.max(...searches.map((s) => s.waited_ms))} ms); stopped at their deadline: ` +
    `${srv.events('bot_overran').length}; longest time before the loop noticed a result: ` +
    `${Math.max(...searches.map((s) => s.noticed_after_ms))} ms`);
});
