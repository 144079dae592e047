'use strict';
/*
 * test_times.js — time in the server's records (docs/records.md, "Time";
 * contract 2 of the tournaments' wave): a `move` may carry the client's
 * `think_ms`, the server keeps it with the move in its journal, and the
 * records it builds (get_record, replay) carry per turn `think_ms` — what
 * the client reported, an in-process bot's search time, a program's CPU
 * time — and `wait_ms`, the server's own measure from its your_turn (or
 * its asking the bot or program) to the move. Turns the server played for
 * a seat (a policy's random move) carry neither. A restart keeps them all.
 * A think_ms that is no such integer is bad_message, and the move is not
 * lost: nothing of it happened, the turn still waits for it.
 *
 * Bounds are ones the server cannot miss on any machine: a wait_ms is at
 * least the delay the client waited before answering, never less.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { Server, Client, ROOT, isError, rng, sleep, startAdmin } = require('./lib');

const PY = path.join(ROOT, 'docs', 'examples', 'stdio_bot.py');
const isMs = (v) => Number.isInteger(v) && v >= 0 && v <= 86400000;

async function record(c, match, extra = {}) {
  const r = await c.request({ type: 'get_record', match, ...extra }, 'record');
  return r.record;
}

test('remote seat: think_ms as reported, wait_ms measured; bots: search time; policies: none', async (t) => {
  const srv = await Server.start({ tag: 'times' });
  t.after(() => srv.cleanup());
  const c = await Client.connect(srv.url, { name: 'p1' });
  /* seat 0 an in-process bot, seat 1 ours; a short clock and random moves
   * for a seat out of time, so that one turn is the server's */
  const made = await c.request({ type: 'create_match', game: 'reversi',
    seats: [{ bot: 'mcts:ms=15' }, { open: true }],
    time_control: { move_ms: 1500 }, policies: { timeout: 'random_move' } }, 'match_created');
  const match = made.match;
  await c.request({ type: 'join', match, seat: 1, token: made.seats[0].token }, 'joined');
  const r = rng(3);
  const sent = new Map(); /* turn -> {think, delay} as sent */
  let ours = 0, skipped = 0;
  for (;;) {
    const m = await c.expect((x) => x.type === 'your_turn' || x.type === 'game_over', 20000);
    if (m.type === 'game_over')
      break;
    ours++;
    if (ours === 3) { /* left to the timeout policy: the server's move */
      skipped = m.turn;
      continue;
    }
    const delay = ours <= 6 ? 40 : 0;
    if (delay)
      await sleep(delay);
    const mv = { type: 'move', match, turn: m.turn, move: r.pick(m.legal) };
    if (ours !== 5) { /* one move without think_ms */
      mv.think_ms = 1000 + m.turn;
      sent.set(m.turn, { think: mv.think_ms, delay });
    } else {
      sent.set(m.turn, { think: undefined, delay });
    }
    c.send(mv);
  }
  assert.ok(skipped > 0 && sent.size > 5, `turns sent: ${sent.size}`);

  const rec = await record(c, match);
  let botTurns = 0;
  rec.turns.forEach((turn, i) => {
    const n = i + 1;
    if (turn.player === 1 && sent.has(n)) {
      const want = sent.get(n);
      assert.equal(turn.think_ms, want.think, `turn ${n}: ${JSON.stringify(turn)}`);
      assert.ok(isMs(turn.wait_ms) && turn.wait_ms >= want.delay, `turn ${n}: wait_ms ${JSON.stringify(turn)}`);
    } else if (turn.player === 1) {
      assert.equal(n, skipped, `turn ${n} of seat 1 was neither sent nor skipped`);
      assert.equal(turn.think_ms, undefined, `the server's move has no think_ms: ${JSON.stringify(turn)}`);
      assert.equal(turn.wait_ms, undefined, `the server's move has no wait_ms: ${JSON.stringify(turn)}`);
    } else {
      botTurns++;
      assert.ok(isMs(turn.think_ms) && isMs(turn.wait_ms), `bot turn ${n}: ${JSON.stringify(turn)}`);
      /* the search ran inside the wait (rounding aside) */
      assert.ok(turn.wait_ms + 1 >= turn.think_ms, `bot turn ${n}: ${JSON.stringify(turn)}`);
    }
  });
  assert.ok(botTurns > 5, `bot turns: ${botTurns}`);
  /* the replay of the match shows the same turns */
  const rp = await c.request({ type: 'replay', match }, 'replayed');
  assert.deepEqual(rp.turns.map((x) => x.record), rec.turns);

  /* kept in the journal: the same record after a restart, the bot's
   * thinking lines included (records.md) */
  assert.ok(rec.turns.some((x) => x.info), 'the bot\'s turns keep their thinking lines');
  await srv.stop();
  await srv.restart();
  const c2 = await Client.connect(srv.url);
  assert.deepEqual(await record(c2, match), rec);
});

test('program seat: think_ms is its CPU time, wait_ms the server\'s; both kept', async (t) => {
  const srv = await startAdmin({ tag: 'times-prog' });
  t.after(() => srv.cleanup());
  const c = await Client.connect(srv.url);
  const made = await c.request({ type: 'create_match', game: 'carcassonne', admin_token: srv.adminToken,
    seats: [{ bot: `cmd:python3 ${PY}` }, { bot: 'random' }], time_control: { move_ms: 5000 } }, 'match_created');
  await c.request({ type: 'spectate', match: made.match }, 'spectating');
  const over = await c.expect('game_over', 120000);
  assert.equal(over.result.reason, 'normal', JSON.stringify(over.result));
  const rec = await record(c, made.match);
  let prog = 0;
  for (const turn of rec.turns) {
    if (turn.discarded) {
      assert.equal(turn.think_ms, undefined, 'a discard is no decision');
      assert.equal(turn.wait_ms, undefined);
      continue;
    }
    assert.ok(isMs(turn.think_ms) && isMs(turn.wait_ms), JSON.stringify(turn));
    if (turn.player === 0)
      prog++;
  }
  assert.ok(prog > 30, `program turns with times: ${prog}`);
  /* a program's CPU time is not its wait: the first turn waited for python's start-up */
  const first = rec.turns.find((x) => x.player === 0 && !x.discarded);
  assert.ok(first.wait_ms >= 1, JSON.stringify(first));
  await srv.stop();
  await srv.restart();
  const c2 = await Client.connect(srv.url);
  assert.deepEqual(await record(c2, made.match), rec);
});

/* Issue 30, item 20: think_ms was only checked to be an integer. A program
 * that sleeps before it answers spends its wait, not its CPU: the record must
 * show think_ms far below wait_ms on those turns (and wait_ms at least the
 * sleep), or think_ms is not the program's CPU time at all. */
test('program seat: a sleeping program thinks little and waits long (think_ms << wait_ms)', async (t) => {
  const SLEEP_MS = 400, SLEEPY_TURNS = 3;
  const srv = await startAdmin({ tag: 'times-sleep' });
  t.after(() => srv.cleanup());
  const dir = path.join(srv.dir, 'bot');
  fs.mkdirSync(dir, { mode: 0o755 });
  fs.chmodSync(srv.dir, 0o755); /* the sandbox runs programs as nobody under root */
  const bot = path.join(dir, 'sleepy.py');
  fs.writeFileSync(bot, [
    'import json, sys, time',
    'turns = 0',
    'for line in sys.stdin:',
    '    msg = json.loads(line)',
    '    if msg["type"] == "your_turn":',
    '        turns += 1',
    `        if turns <= ${SLEEPY_TURNS}:`,
    `            time.sleep(${SLEEP_MS / 1000})`,
    '        print(json.dumps({"type": "move", "move": msg["legal"][0]}), flush=True)',
    ''].join('\n'), { mode: 0o644 });
  const c = await Client.connect(srv.url);
  const made = await c.request({ type: 'create_match', game: 'reversi', admin_token: srv.adminToken,
    seats: [{ bot: `cmd:python3 ${bot}` }, { bot: 'random' }], time_control: { move_ms: 10000 } }, 'match_created');
  const view = await c.request({ type: 'spectate', match: made.match }, 'spectating');
  const over = view.result ? view : await c.expect('game_over', 120000);
  assert.equal(over.result.reason, 'normal', JSON.stringify(over.result));
  const own = (await record(c, made.match)).turns.filter((x) => x.player === 0 && x.think_ms !== undefined);
  assert.ok(own.length > SLEEPY_TURNS, `the program's turns: ${own.length}`);
  for (const [i, turn] of own.slice(0, SLEEPY_TURNS).entries()) {
    t.diagnostic(`sleepy turn ${i + 1}: think_ms ${turn.think_ms}, wait_ms ${turn.wait_ms}`);
    assert.ok(turn.wait_ms >= SLEEP_MS, `turn ${i + 1}: waited ${turn.wait_ms} ms, slept ${SLEEP_MS}`);
    assert.ok(turn.think_ms * 4 <= turn.wait_ms,
      `turn ${i + 1}: think_ms ${turn.think_ms} is not far below wait_ms ${turn.wait_ms}: not its CPU time`);
  }
});

test('a bad think_ms: bad_message naming it, nothing played, the move sent again is taken', async (t) => {
  const srv = await Server.start({ tag: 'times-bad' });
  t.after(() => srv.cleanup());
  const c = await Client.connect(srv.url, { name: 'p0' });
  const made = await c.request({ type: 'create_match', game: 'reversi',
    seats: [{ open: true }, { bot: 'random' }] }, 'match_created');
  const match = made.match;
  await c.request({ type: 'join', match, seat: 0, token: made.seats[0].token }, 'joined');
  const yt = await c.expect('your_turn');
  const move = yt.legal[0];
  for (const bad of [-1, 86400001, 12.5, '12', null, true]) {
    const r = await c.request({ type: 'move', match, turn: yt.turn, think_ms: bad, move });
    assert.ok(isError(r, 'bad_message', r.id) && /think_ms/.test(r.message), `${JSON.stringify(bad)}: ${JSON.stringify(r)}`);
  }
  /* nothing was played: still turn 1, ours; the same move with a good think_ms goes in */
  const rec0 = await c.request({ type: 'get_record', match }, 'record');
  assert.equal(rec0.record.turns.length, 0, JSON.stringify(rec0.record.turns));
  const ok = await c.request({ type: 'move', match, turn: yt.turn, think_ms: 86400000, move }, 'move_accepted');
  assert.equal(ok.turn, yt.turn);
  const rec = await c.request({ type: 'get_record', match }, 'record');
  assert.equal(rec.record.turns[0].think_ms, 86400000, JSON.stringify(rec.record.turns[0]));
  assert.ok(isMs(rec.record.turns[0].wait_ms), JSON.stringify(rec.record.turns[0]));
});
