'use strict';
/*
 * test_idle.js — WebSocket keep-alive (server/limits.h: SRV_PING_IDLE_S,
 * SRV_HANGUP_IDLE_S; docs/protocol.md: welcome.limits.idle_timeout_ms). A
 * client that stops reading and answering the server's pings is dropped
 * once idle_timeout_ms has passed; a client that is idle but answers pings
 * (as every WebSocket library does) is kept; the server keeps serving
 * everyone meanwhile. The server runs with `--idle-timeout-ms 3000` (pings
 * after a third of it), so this takes seconds, not the default's minute.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { Server, Client, SLOW, createMatch, join, playUntilOver, rng, rawWsClient, within } = require('./lib');

test('a client that stops reading and answering pings is dropped; a quiet one is kept', async (t) => {
  const IDLE = 3000;
  const srv = await Server.start({ tag: 'idle', args: ['--idle-timeout-ms', String(IDLE)] });
  t.after(() => srv.cleanup());
  const quiet = await Client.connect(srv.url, { name: 'quiet' });
  const idleMs = quiet.welcome.limits.idle_timeout_ms;
  assert.equal(idleMs, IDLE, 'welcome.limits.idle_timeout_ms is the one asked for');

  /* deaf: reads nothing at all (its socket is paused: pings pile up unread) */
  const deaf = await rawWsClient(srv.port);
  deaf.pause();
  const t0 = Date.now();
  /* mute: reads, but never answers a ping */
  const mute = await rawWsClient(srv.port);
  let muteClosedAt = null, pings = 0;
  mute.on('data', (d) => {
    for (let i = 0; i + 1 < d.length; i++)
      if (d[i] === 0x89)
        pings++;
  });
  mute.on('close', () => (muteClosedAt = Date.now()));

  /* meanwhile: whole matches, one after the other, until the mute client
   * is gone and the idle time is well past (or far too long has passed) */
  let matches = 0;
  const host = await Client.connect(srv.url, { name: 'host' });
  while ((muteClosedAt === null || Date.now() - t0 < idleMs + 1000) && Date.now() - t0 < 30000 * SLOW) {
    const { match, tokens } = await createMatch(host, [{ bot: 'random' }, { open: true }]);
    const p = await Client.connect(srv.url, { name: 'p' });
    await join(p, match, 1, tokens[1]);
    const over = await playUntilOver(p, { rng: rng(matches), delayMs: 10 });
    assert.equal(over.result.reason, 'normal');
    p.close();
    matches++;
  }
  assert.ok(matches >= 1, `matches went on meanwhile (${matches})`);

  /* the mute one is gone, after being pinged, not before the idle time */
  assert.ok(muteClosedAt !== null, 'the client that never answers pings was dropped');
  assert.ok(pings >= 1, 'it was pinged first');
  const after = muteClosedAt - t0;
  t.diagnostic(`the mute client was dropped after ${after} ms (${pings} pings); idle timeout ${idleMs} ms`);
  assert.ok(after >= idleMs / 3, `dropped after ${after} ms: not before pinging`);
  assert.ok(after <= idleMs + 5000 * SLOW, `dropped after ${after} ms (idle timeout ${idleMs} ms)`);

  /* the deaf one: resume reading to see that the server closed it */
  const deafClosed = new Promise((resolve) => deaf.on('close', resolve));
  deaf.on('data', () => {});
  deaf.resume();
  const r = await within(deafClosed.then(() => true), 5000);
  assert.ok(r, 'the client that stopped reading was dropped');

  /* the quiet one answered the pings (ws does) and is still served */
  assert.ok(quiet.isOpen, 'an idle client that answers pings is kept');
  assert.equal((await quiet.request({ type: 'ping' })).type, 'pong');
});
