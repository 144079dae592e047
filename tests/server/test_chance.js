'use strict';
/*
 * test_chance.js — verifiable games on the server (docs/records.md,
 * "Verifiable games"): a match publishes the SHA-256 commitment to its chance
 * seed from the start (joined, spectating, the matches list), reveals the
 * seed and nonce in game_over, and its record (get_record) carries the chance
 * block that `tessera replay --verify` accepts; a server killed with SIGKILL
 * mid-match and restarted goes on drawing from the same seed, so the finished
 * record still verifies against the commitment published before the kill.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { Server, Client, createMatch, join, playUntilOver, rng, randomMove, tmpDir } = require('./lib');

const HEX64 = /^[0-9a-f]{64}$/;

function commitmentOf(seed, nonce) {
  return crypto.createHash('sha256').update(`tessera-chance-1:${seed}:${nonce}`).digest('hex');
}

/* `tessera replay --verify` on a record; resolves with its exit code and output. */
function verify(bin, record, tag) {
  const file = path.join(tmpDir(tag), 'record.json');
  fs.writeFileSync(file, JSON.stringify(record));
  const p = spawnSync(bin, ['replay', '--verify', file], { encoding: 'utf8' });
  return { code: p.status, out: p.stdout + p.stderr };
}

test('commitment at the start, reveal in game_over, a record that verifies', async (t) => {
  const srv = await Server.start({ tag: 'chance1' });
  t.after(() => srv.cleanup());
  const c = await Client.connect(srv.url, { name: 'player' });
  const { match, tokens } = await createMatch(c, [{ bot: 'random' }, { open: true }]);
  const joined = await join(c, match, 1, tokens[1]);
  assert.match(joined.chance_commitment, HEX64);
  const list = await c.request({ type: 'list_matches' }, 'matches');
  const entry = list.matches.find((m) => m.match === match);
  assert.equal(entry.chance_commitment, joined.chance_commitment);
  const spect = await Client.connect(srv.url, { name: 'spect' });
  const view = await spect.request({ type: 'spectate', match }, 'spectating');
  assert.equal(view.chance_commitment, joined.chance_commitment);

  /* while the match is live the record has the commitment only */
  const live = await c.request({ type: 'get_record', match }, 'record');
  assert.equal(live.record.chance.commitment, joined.chance_commitment);
  assert.equal(live.record.chance.seed, undefined);
  assert.equal(live.record.chance.nonce, undefined);

  const over = await playUntilOver(c, { rng: rng(5) });
  assert.match(over.chance_seed, /^(0|[1-9][0-9]{0,19})$/);
  assert.match(over.chance_nonce, /^[0-9a-f]{32}$/);
  assert.equal(commitmentOf(over.chance_seed, over.chance_nonce), joined.chance_commitment);

  const rec = (await c.request({ type: 'get_record', match }, 'record')).record;
  assert.deepEqual(rec.chance, {
    scheme: 'tessera-chance-1', commitment: joined.chance_commitment,
    seed: over.chance_seed, nonce: over.chance_nonce,
  });
  const v = verify(srv.bin, rec, 'chance1v');
  assert.equal(v.code, 0, v.out);
  /* another seed revealed: refused */
  rec.chance.seed = String(BigInt(rec.chance.seed) ^ 1n);
  const bad = verify(srv.bin, rec, 'chance1b');
  assert.equal(bad.code, 2, bad.out);
  assert.match(bad.out, /chance_mismatch/);
});

test('kill -9 mid-match: the restarted server draws from the same seed', async (t) => {
  const srv = await Server.start({ tag: 'chance2' });
  t.after(() => srv.cleanup());
  const c = await Client.connect(srv.url, { name: 'player' });
  const { match, tokens } = await createMatch(c, [{ bot: 'random' }, { open: true }], {
    time_control: { move_ms: 20000 }, policies: { disconnect: 'forfeit', reconnect_grace_ms: 30000 },
  });
  const joined = await join(c, match, 1, tokens[1]);
  const r = rng(23);
  await playUntilOver(c, { choose: (yt) => randomMove(yt, r), onTurn: (yt) => (yt.turn >= 30 ? 'stop' : null) });
  await srv.kill9();
  await c.waitClosed();
  await srv.restart();
  const c2 = await Client.connect(srv.url, { name: 'player2' });
  const resumed = await c2.request({ type: 'resume', resume_token: joined.resume_token }, 'resumed');
  assert.equal(resumed.chance_commitment, joined.chance_commitment, 'the same commitment after a restart');
  const over = await playUntilOver(c2, { rng: rng(24) });
  assert.equal(over.result.reason, 'normal');
  assert.equal(commitmentOf(over.chance_seed, over.chance_nonce), joined.chance_commitment);
  const rec = (await c2.request({ type: 'get_record', match }, 'record')).record;
  assert.equal(rec.turns.length, 71);
  const v = verify(srv.bin, rec, 'chance2v');
  assert.equal(v.code, 0, 'every draw, before and after the restart, is the seed\'s: ' + v.out);
});
