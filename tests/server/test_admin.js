'use strict';
/*
 * test_admin.js — the admin token (docs/protocol.md, "The admin token"):
 * made on the first start, printed once, kept in the database across
 * restarts, written to --admin-token-file with mode 0600; every admin act
 * without it, or with another one, is refused with `forbidden` and changes
 * nothing, while the public messages need no token.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const { Client, isError, startAdmin } = require('./lib');

test('the admin token: made once, printed once, kept, written 0600', async (t) => {
  const srv = await startAdmin({ tag: 'admin' });
  t.after(() => srv.cleanup());
  const tok = srv.adminToken;
  assert.match(tok, /^[a-z2-9]{24}$/);
  assert.equal(fs.statSync(srv.tokenFile).mode & 0o777, 0o600, 'the token file is private');
  /* the port file can come before stderr is read: wait for the log line,
   * which the server writes after the printed token */
  await srv.waitLog((l) => l.event === 'admin_token', undefined, 'the admin_token line');
  assert.ok(srv.stderr.includes('admin token of this server') && srv.stderr.includes(tok),
    'the first start prints the token');
  assert.equal(srv.events('admin_token').length, 1, 'and logs it once');

  /* a restart keeps the token and prints it no more; the file that holds
   * it is kept, private */
  await srv.stop();
  fs.chmodSync(srv.tokenFile, 0o644);
  await srv.restart();
  assert.equal(fs.readFileSync(srv.tokenFile, 'utf8').trim(), tok, 'the same token');
  assert.equal(fs.statSync(srv.tokenFile).mode & 0o777, 0o600, 'made private again');
  assert.ok(!srv.stderr.includes(tok), 'not printed again');
  assert.equal(srv.events('admin_token').length, 0);
  assert.equal(srv.events('admin_token_file').length, 0);
  /* the database keeps the token's hash only (issue 29): a file that lost
   * it cannot be written again, and the server says so */
  await srv.stop();
  fs.writeFileSync(srv.tokenFile, 'stale\n');
  await srv.restart();
  assert.equal(fs.readFileSync(srv.tokenFile, 'utf8').trim(), 'stale');
  assert.match(srv.events('admin_token_file')[0].note, /hash only/);

  const c = await Client.connect(srv.url);
  assert.ok(c.welcome.capabilities.includes('register'));
  assert.ok(c.welcome.capabilities.includes('tournaments'));
});

test('admin acts without the token, or with another one, are forbidden', async (t) => {
  const srv = await startAdmin({ tag: 'forbid' });
  t.after(() => srv.cleanup());
  const c = await Client.connect(srv.url);
  const tour = { type: 'create_tournament', format: 'round-robin', game: 'carcassonne',
    participants: [{ name: 'a', spec: 'random' }, { name: 'b', spec: 'heuristic' }] };
  const wrong = 'z'.repeat(24);
  for (const extra of [{}, { admin_token: wrong }, { admin_token: 'short' }]) {
    const r = await c.request({ ...tour, ...extra });
    assert.ok(isError(r, 'forbidden', r.id), JSON.stringify(r));
  }
  const none = await c.request({ type: 'create_tournament', format: 'round-robin', game: 'carcassonne',
    participants: [] });
  assert.ok(isError(none, 'forbidden', none.id), 'the token is checked before anything else');
  assert.match(none.message, /admin token/);

  /* program and registered-bot seats need it too; in-process bots do not */
  for (const bot of ['cmd:python3 docs/examples/stdio_bot.py', 'remote:alice']) {
    const r = await c.request({ type: 'create_match', game: 'carcassonne',
      seats: [{ bot: 'random' }, { bot }] });
    assert.ok(isError(r, 'forbidden', r.id), JSON.stringify(r));
    const r2 = await c.request({ type: 'create_match', game: 'carcassonne', admin_token: wrong,
      seats: [{ bot: 'random' }, { bot }] });
    assert.ok(isError(r2, 'forbidden', r2.id), JSON.stringify(r2));
  }
  const plain = await c.request({ type: 'create_match', game: 'carcassonne',
    seats: [{ bot: 'random' }, { open: true }] });
  assert.equal(plain.type, 'match_created');
  const withTok = await c.request({ type: 'create_match', game: 'carcassonne', admin_token: wrong,
    seats: [{ bot: 'random' }, { open: true }] });
  assert.ok(isError(withTok, 'forbidden', withTok.id), 'a wrong token is refused even where none is needed');

  /* nothing was created by the refused messages */
  const list = await c.request({ type: 'list_tournaments' }, 'tournaments');
  assert.deepEqual(list.tournaments, []);

  /* one legitimate tournament: steering it needs the token as well */
  const made = await c.request({ ...tour, admin_token: srv.adminToken }, 'tournament_created');
  for (const type of ['start_tournament', 'pause_tournament', 'cancel_tournament']) {
    const r = await c.request({ type, tournament: made.tournament });
    assert.ok(isError(r, 'forbidden', r.id), type);
    const r2 = await c.request({ type, tournament: made.tournament, admin_token: wrong });
    assert.ok(isError(r2, 'forbidden', r2.id), type);
  }
  /* ... but watching and listing are public */
  const view = await c.request({ type: 'watch_tournament', tournament: made.tournament }, 'tournament');
  assert.equal(view.state, 'created', 'the refused start did not start it');
  const rec = await c.request({ type: 'get_record', match: plain.match, admin_token: wrong });
  assert.ok(isError(rec, 'forbidden', rec.id), 'get_record with a wrong token');
  const rec2 = await c.request({ type: 'get_record', match: plain.match }, 'record');
  assert.equal(rec2.programs, undefined, 'program logs only with the token');
  assert.ok(srv.events('admin_token_refused').length >= 5, 'refusals are logged');
});
