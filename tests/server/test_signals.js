'use strict';
/*
 * test_signals.js — how `tessera serve` stops (server/server.c, `tessera
 * serve --help`): SIGTERM or SIGINT shuts down gracefully (every connection
 * told shutting_down and closed with 1001, exit 0), waiting for clients to
 * answer the close but not forever; a second signal during that shutdown
 * exits at once with code 1 (log `shutdown_forced`). Either way every
 * journaled move survives: a restart resumes the match where it was.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { Server, Client, SLOW, createMatch, join, playUntilOver, rng, randomMove, rawWsClient } = require('./lib');

/* A live match [random bot, open seat] played to `turns` turns; returns the
 * player still holding the seat and its resume token. */
async function midMatch(srv, turns) {
  const c = await Client.connect(srv.url, { name: 'player' });
  const { match, tokens } = await createMatch(c, [{ bot: 'random' }, { open: true }], {
    time_control: { move_ms: 30000 }, policies: { reconnect_grace_ms: 60000 },
  });
  const joined = await join(c, match, 1, tokens[1]);
  const r = rng(3);
  const stalled = await playUntilOver(c, { choose: (yt) => randomMove(yt, r), onTurn: (yt) => (yt.turn >= turns ? 'stop' : null) });
  return { c, match, resume: joined.resume_token, stalled };
}

test('a client that never answers the close does not hold a graceful shutdown for long', async (t) => {
  const srv = await Server.start({ tag: 'stopdeaf' });
  t.after(() => srv.cleanup());
  const { c } = await midMatch(srv, 5);
  const deaf = await rawWsClient(srv.port);
  deaf.pause(); /* it reads nothing, so it never answers our close frame */
  const t0 = Date.now();
  const exit = await srv.stop();
  const took = Date.now() - t0;
  t.diagnostic(`stopped ${took} ms after SIGTERM`);
  assert.deepEqual(exit, { code: 0, signal: null });
  assert.ok(took < 10000 * SLOW, `stopped in ${took} ms, not held up by the deaf client`);
  const closed = await c.waitClosed();
  assert.equal(closed.code, 1001, 'the polite client got its goodbye');
  assert.ok(srv.events('stopped').length === 1, 'the server logged its orderly stop');
  deaf.destroy();
});

test('a second signal during the shutdown forces the exit (code 1); the journal is intact', async (t) => {
  const srv = await Server.start({ tag: 'forced' });
  t.after(() => srv.cleanup());
  const { c, match, resume, stalled } = await midMatch(srv, 12);
  /* a client that never answers the close keeps the graceful shutdown
   * waiting (SRV_GOODBYE_MS), so the second signal surely comes during it */
  const deaf = await rawWsClient(srv.port);
  deaf.pause();
  /* both signals at once: stop the process, queue SIGTERM and SIGINT, and
   * let it go on; it gets them one after the other */
  srv.proc.kill('SIGSTOP');
  srv.proc.kill('SIGTERM');
  srv.proc.kill('SIGINT');
  srv.proc.kill('SIGCONT');
  srv.expectedExit = { code: 1, signal: null };
  const exit = await srv.exited;
  assert.deepEqual(exit, { code: 1, signal: null }, 'exit code 1, not killed by the signal');
  const forced = await srv.waitLog((l) => l.event === 'shutdown_forced', 5000 * SLOW, 'shutdown_forced');
  assert.ok([2, 15].includes(forced.signal), `the second signal is named: ${forced.signal}`);
  assert.equal(srv.events('shutdown').length, 1, 'the first signal began the graceful shutdown');
  assert.equal(srv.events('stopped').length, 0, 'no orderly stop');
  await c.waitClosed();
  deaf.destroy();

  /* every move heard before is in the journal */
  await srv.restart();
  const c2 = await Client.connect(srv.url, { name: 'back' });
  const resumed = await c2.request({ type: 'resume', resume_token: resume }, 'resumed');
  assert.equal(resumed.match, match);
  assert.deepEqual(resumed.history, c.all.filter((m) => m.type === 'update').map((u) => u.record));
  const yt = await c2.expect('your_turn');
  assert.equal(yt.turn, stalled.turn);
  assert.equal(yt.state.tile, stalled.state.tile);
  c2.send({ type: 'move', turn: yt.turn, move: randomMove(yt, rng(1)) });
  const over = await playUntilOver(c2, { rng: rng(2) });
  assert.equal(over.result.reason, 'normal');
});
