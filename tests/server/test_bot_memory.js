'use strict';
/*
 * test_bot_memory.js — a finished match lets go of its in-process bots.
 *
 * Found by running `tessera serve --demo` for an hour: every demo match kept
 * its two MCTS bots (and the arena pages their searches had touched) until
 * the match was evicted from memory, 200 finished matches later, so the
 * server grew by ~45 MB per demo game. server_stats reports the bots held.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { Server, Client, SLOW } = require('./lib');

async function stats(c) {
  return c.request({ type: 'server_stats' }, 'stats');
}

/* Wait until the server lists the match as finished (polls list_matches). */
async function finished(c, id, timeout = 60000 * SLOW) {
  const t0 = Date.now();
  for (;;) {
    const l = await c.request({ type: 'list_matches', status: 'finished' }, 'matches');
    if (l.matches.some((m) => m.match === id))
      return;
    if (Date.now() - t0 > timeout)
      throw new Error(`match ${id} not finished within ${timeout} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('in-process bots are released when their match ends, however it ends', async (t) => {
  const srv = await Server.start({ tag: 'bot-memory' });
  t.after(() => srv.cleanup());
  const c = await Client.connect(srv.url, { name: 'watcher' });

  /* two bot-vs-bot games that end by the rules */
  for (let i = 0; i < 2; i++) {
    const made = await c.request({ type: 'create_match', game: 'reversi',
      seats: [{ bot: 'mcts:sims=20' }, { bot: 'random' }] }, 'match_created');
    await finished(c, made.match);
  }
  /* a bot seat in a match that ends by resignation of the other seat */
  const open = await c.request({ type: 'create_match', game: 'carcassonne',
    seats: [{ open: true }, { bot: 'mcts:sims=50' }] }, 'match_created');
  const p = await Client.connect(srv.url, { name: 'resigner' });
  await p.request({ type: 'join', match: open.match, seat: 0, token: open.seats[0].token }, 'joined');
  const during = await stats(c);
  assert.equal(during.bots_held, 1, `one bot held while its match is live: ${JSON.stringify(during)}`);
  await p.request({ type: 'resign', match: open.match }, 'resigned');
  await finished(c, open.match);

  const after = await stats(c);
  assert.equal(after.matches_kept, 3, JSON.stringify(after));
  assert.equal(after.bots_held, 0, `no bot held once every match is over: ${JSON.stringify(after)}`);
});
