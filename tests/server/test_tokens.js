'use strict';
/*
 * test_tokens.js — the tokens of issue 29 (docs/operations.md, "Security
 * model", the tokens' lifecycle):
 *   - every token is kept as its SHA-256: the journal holds no seat's join
 *     or resume token and no admin token as text, only their hashes;
 *   - a join token is spent once its seat is taken: it neither takes the
 *     seat back nor hands out the holder's resume token, before or after a
 *     restart; the seat is the resume token's;
 *   - a journal written before tokens were hashed (their text in the meta
 *     table and the seats) keeps working: the admin token and a waiting
 *     seat's join token still open, and the text is gone after the start.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const { Client, startAdmin, createMatch, join, isError, dbQuery, ON_PG } = require('./lib');

const sha256 = (t) => crypto.createHash('sha256').update(t).digest('hex');
const openSeats = [{ open: true }, { open: true }];

/* Every row of the journal's tables that could hold a token, as one text. */
function journalText(srv) {
  return ['SELECT * FROM meta', 'SELECT seats FROM matches', 'SELECT * FROM resume_tokens']
    .map((q) => dbQuery(srv, q)).join('\n');
}

test('tokens are kept as their SHA-256: the journal holds none of their text', async (t) => {
  const srv = await startAdmin({ tag: 'tokens-hash' });
  t.after(() => srv.stop());
  const a = await Client.connect(srv.url, { name: 'a' });
  const m = await createMatch(a, openSeats);
  const j0 = await join(a, m.match, 0, m.tokens[0]);
  assert.match(j0.resume_token, /^[a-z2-9]{24}$/);
  assert.equal((await srv.stop()).code, 0);
  const text = journalText(srv);
  for (const [what, tok] of [['admin', srv.adminToken], ['join 0', m.tokens[0]], ['join 1', m.tokens[1]],
    ['resume 0', j0.resume_token]])
    assert.ok(!text.includes(tok), `the journal holds the ${what} token's text`);
  assert.ok(text.includes(sha256(m.tokens[1])), 'the waiting seat\'s join token, hashed');
  assert.equal(dbQuery(srv, `SELECT match || ':' || seat FROM resume_tokens WHERE token='${sha256(j0.resume_token)}'`),
    `${m.match}:0`);
  assert.equal(dbQuery(srv, "SELECT value FROM meta WHERE key='admin_token_sha256'"), sha256(srv.adminToken));
  /* restarted from hashes only: every token still opens what it opened */
  await srv.restart();
  const b = await Client.connect(srv.url, { name: 'b' });
  const back = await b.request({ type: 'resume', resume_token: j0.resume_token }, 'resumed');
  assert.equal(back.resume_token, j0.resume_token, 'resumed echoes the token it was given');
  await join(b, m.match, 1, m.tokens[1]);
  await b.request({ type: 'create_match', game: 'carcassonne', seats: openSeats, admin_token: srv.adminToken },
    'match_created');
  const wrong = await b.request({ type: 'create_match', game: 'carcassonne', seats: openSeats,
    admin_token: 'x'.repeat(24), id: 'w' });
  assert.ok(isError(wrong, 'forbidden', 'w'), JSON.stringify(wrong));
});

test('a join token is spent once its seat is taken: the seat is its resume token\'s', async (t) => {
  const srv = await startAdmin({ tag: 'tokens-spent' });
  t.after(() => srv.stop());
  const host = await Client.connect(srv.url, { name: 'host' });
  const m = await createMatch(host, openSeats);
  const p0 = await Client.connect(srv.url, { name: 'p0' });
  const j0 = await join(p0, m.match, 0, m.tokens[0]);
  /* while the holder is connected: seat_taken, as before */
  const thief = await Client.connect(srv.url, { name: 'thief' });
  const held = await thief.request({ type: 'join', match: m.match, seat: 0, token: m.tokens[0], id: 'h' });
  assert.ok(isError(held, 'seat_taken', 'h'), JSON.stringify(held));
  /* the holder gone: the join token opens nothing, and says why */
  p0.close();
  await new Promise((r) => setTimeout(r, 300));
  const spent = await thief.request({ type: 'join', match: m.match, seat: 0, token: m.tokens[0], id: 's' });
  assert.ok(isError(spent, 'bad_token', 's'), JSON.stringify(spent));
  assert.match(spent.message, /spent/);
  assert.ok(!JSON.stringify(thief.all).includes(j0.resume_token), 'the resume token was never handed out');
  /* the resume token takes the seat back */
  const p0b = await Client.connect(srv.url, { name: 'p0b' });
  await p0b.request({ type: 'resume', resume_token: j0.resume_token }, 'resumed');
  p0b.close();
  /* and the same after a restart (the journal kept the seat joined) */
  await srv.stop();
  await srv.restart();
  const again = await Client.connect(srv.url, { name: 'again' });
  const r = await again.request({ type: 'join', match: m.match, seat: 0, token: m.tokens[0], id: 'r' });
  assert.ok(isError(r, 'bad_token', 'r'), JSON.stringify(r));
  await again.request({ type: 'resume', resume_token: j0.resume_token }, 'resumed');
});

test('a journal of before hashed tokens: its admin token and join tokens still open, their text is gone', async (t) => {
  if (ON_PG)
    return; /* the seats' JSON is edited with SQLite's json_set */
  const srv = await startAdmin({ tag: 'tokens-old' });
  t.after(() => srv.stop());
  const a = await Client.connect(srv.url, { name: 'a' });
  const m = await createMatch(a, openSeats);
  assert.equal((await srv.stop()).code, 0);
  /* what an older server wrote: the texts */
  const oldAdmin = 'abcdefghijkmnpqrstuvwxyz';
  const oldJoin = '23456789abcdefghijkmnpqr';
  dbQuery(srv, `DELETE FROM meta WHERE key='admin_token_sha256'; INSERT INTO meta(key, value) VALUES('admin_token', '${oldAdmin}');` +
    `UPDATE matches SET seats = json_set(seats, '$[1].token', '${oldJoin}') WHERE id='${m.match}'`);
  await srv.restart();
  const b = await Client.connect(srv.url, { name: 'b' });
  await b.request({ type: 'create_match', game: 'carcassonne', seats: openSeats, admin_token: oldAdmin },
    'match_created');
  await join(b, m.match, 1, oldJoin);
  assert.equal((await srv.stop()).code, 0);
  const text = journalText(srv);
  assert.ok(!text.includes(oldAdmin), 'the admin token\'s text is deleted');
  assert.ok(!text.includes(oldJoin), 'the join token\'s text is replaced by its hash');
  assert.equal(dbQuery(srv, "SELECT value FROM meta WHERE key='admin_token_sha256'"), sha256(oldAdmin));
});
