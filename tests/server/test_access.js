'use strict';
/*
 * test_access.js — the security defaults (server/access.c, docs/operations.md
 * "Security defaults"):
 *   - the server listens on 127.0.0.1 unless told otherwise;
 *   - on a public address, matches that seat the server's own bots need the
 *     admin token ([create] bots = auto); on loopback they do not; the
 *     policies can be set either way, and welcome.create says what holds;
 *   - clients without the admin token are held to a per-address quota
 *     (matches not over, creations per minute); the admin token and the
 *     exempt addresses are not; behind a trusted proxy the address is the
 *     client's (X-Forwarded-For), and only then;
 *   - a waiting match whose open seats are not all joined expires;
 *   - resume tokens are found through an index, also in the database for a
 *     finished match no longer held in memory, and the index is rebuilt
 *     from an older database.
 * Some cases need a client that is not on loopback. With an IPv4 address of
 * this machine that is not loopback (read from its interfaces) a client
 * connects to it; without one (a container may have none: issue 30, these
 * cases then passed having checked nothing) the "other address" the bind is
 * checked against is 127.0.0.2 (loopback, but not the address the server
 * binds), and the quota's client is an outside address forwarded by a
 * trusted proxy on loopback, as the X-Forwarded-For case checks.
 * TESSERA_TEST_NO_EXTERNAL=1 takes the second way on any machine.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const os = require('node:os');
const { spawnSync } = require('node:child_process');
const { Server, Client, SLOW, startAdmin, createMatch, join, isError, sleep, WebSocket, dbQuery, ON_PG } = require('./lib');

/* An IPv4 address of this machine that is not loopback, or null. */
function externalV4() {
  for (const list of Object.values(os.networkInterfaces()))
    for (const a of list || [])
      if (a.family === 'IPv4' && !a.internal)
        return a.address;
  return null;
}
const EXT = process.env.TESSERA_TEST_NO_EXTERNAL === '1' ? null : externalV4();
/* another address of this machine than the one a server binds by default */
const OTHER = EXT || '127.0.0.2';
/* how the quota's client from outside is seen, and the server options that
 * make it so without an external address */
const OUTSIDE = EXT || '203.0.113.50';
const OUTSIDE_ARGS = EXT ? [] : ['--set', 'server.trusted_proxies=127.0.0.0/8'];
function outside(srv, name) {
  if (EXT)
    return Client.connect(`ws://${EXT}:${srv.port}/`, { name });
  return Client.connect(srv.url, { name, ws: { headers: { 'X-Forwarded-For': OUTSIDE } } });
}

/* Does a WebSocket connection to url open? */
function opens(url) {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { handshakeTimeout: 3000 * SLOW });
    ws.on('open', () => {
      ws.terminate();
      resolve(true);
    });
    ws.on('error', () => resolve(false));
  });
}

const botSeats = [{ bot: 'random' }, { open: true }];
const openSeats = [{ open: true }, { open: true }];
const create = (c, seats, extra = {}) =>
  c.request({ type: 'create_match', game: 'carcassonne', seats, ...extra });

test('the server listens on 127.0.0.1 unless told otherwise', async (t) => {
  const srv = await Server.start({ tag: 'bind' });
  t.after(() => srv.cleanup());
  /* the port file can come before the log line has been read: wait for it */
  assert.equal((await srv.waitLog((l) => l.event === 'listening')).host, '127.0.0.1');
  assert.equal(await opens(srv.url), true, 'loopback connects');
  t.diagnostic(`the other address: ${OTHER}${EXT ? '' : ' (no non-loopback IPv4 address here)'}`);
  assert.equal(await opens(`ws://${OTHER}:${srv.port}/`), false, `${OTHER} is refused`);
  /* a name or an IPv6 address of loopback: loopback only too (libwebsockets
   * itself would listen on every address for an IPv4 address or a name) */
  for (const host of ['localhost', '::1']) {
    const one = await Server.start({ tag: 'bind1', args: ['--host', host] });
    t.after(() => one.cleanup());
    const local = host === '::1' ? `ws://[::1]:${one.port}/` : `ws://127.0.0.1:${one.port}/`;
    assert.equal(await opens(local), true, `--host ${host}: loopback connects`);
    assert.equal(await opens(`ws://${OTHER}:${one.port}/`), false, `--host ${host}: ${OTHER} is refused`);
  }
  /* told otherwise: every IPv4 interface */
  const pub = await Server.start({ tag: 'bindall', args: ['--host', '0.0.0.0'] });
  t.after(() => pub.cleanup());
  assert.equal(await opens(`ws://${OTHER}:${pub.port}/`), true, `${OTHER} connects to --host 0.0.0.0`);
});

test('on a public address the server\'s bots need the admin token; on loopback they do not', async (t) => {
  const pub = await startAdmin({ tag: 'pubbots', args: ['--host', '0.0.0.0'] });
  t.after(() => pub.cleanup());
  const c = await Client.connect(pub.url, { name: 'anon' });
  assert.deepEqual({ bots: c.welcome.create.bots, open: c.welcome.create.open }, { bots: 'admin', open: 'anyone' });
  const e = await create(c, botSeats, { id: 'b' });
  assert.ok(isError(e, 'forbidden', 'b'), JSON.stringify(e));
  assert.match(e.message, /admin token/);
  const wrong = await create(c, botSeats, { id: 'w', admin_token: 'x'.repeat(24) });
  assert.ok(isError(wrong, 'forbidden', 'w'), JSON.stringify(wrong));
  assert.equal((await create(c, botSeats, { admin_token: pub.adminToken })).type, 'match_created');
  assert.equal((await create(c, openSeats)).type, 'match_created', 'open seats only: anyone');
  assert.ok((await pub.waitLog((l) => l.event === 'listening')).anonymous_bot_matches === false);

  /* loopback: the person at the machine is its operator */
  const local = await Server.start({ tag: 'localbots' });
  t.after(() => local.cleanup());
  const l = await Client.connect(local.url, { name: 'local' });
  assert.equal(l.welcome.create.bots, 'anyone');
  assert.equal((await create(l, botSeats)).type, 'match_created');

  /* the policies set either way */
  const strict = await Server.start({ tag: 'strict', args: ['--set', 'create.bots=admin', '--set', 'create.open=admin'] });
  t.after(() => strict.cleanup());
  const s = await Client.connect(strict.url, { name: 'strict' });
  assert.deepEqual({ bots: s.welcome.create.bots, open: s.welcome.create.open }, { bots: 'admin', open: 'admin' });
  assert.ok(isError(await create(s, botSeats, { id: 1 }), 'forbidden', 1));
  const o = await create(s, openSeats, { id: 2 });
  assert.ok(isError(o, 'forbidden', 2));
  assert.match(o.message, /creating matches needs the admin token/);
  const open = await startAdmin({ tag: 'openbots', args: ['--host', '0.0.0.0', '--set', 'create.bots=anyone'] });
  t.after(() => open.cleanup());
  const p = await Client.connect(open.url, { name: 'open' });
  assert.equal(p.welcome.create.bots, 'anyone');
  assert.equal((await create(p, botSeats)).type, 'match_created');
  /* programs are never anyone's: create.bots does not reach cmd: seats */
  const prog = await create(p, [{ bot: 'cmd:/bin/true' }, { open: true }], { id: 'p' });
  assert.ok(isError(prog, 'forbidden', 'p'), JSON.stringify(prog));
});

test('the per-address quota: matches not over, creations per minute; the token and exempt addresses are free', async (t) => {
  t.diagnostic(`the client from outside: ${OUTSIDE}${EXT ? '' : ', forwarded by a trusted proxy on loopback'}`);
  const srv = await startAdmin({ tag: 'quota', args: ['--host', '0.0.0.0', '--set', 'quota.matches_per_address=3',
    ...OUTSIDE_ARGS] });
  t.after(() => srv.cleanup());
  const c = await outside(srv, 'q');
  assert.equal(c.welcome.create.matches_per_address, 3);
  const made = [];
  for (let i = 0; i < 3; i++)
    made.push(await createMatch(c, openSeats));
  const e = await create(c, openSeats, { id: 'four' });
  assert.ok(isError(e, 'too_many', 'four'), JSON.stringify(e));
  assert.match(e.message, /your address has 3 matches not over/);
  const logged = await srv.waitLog((l) => l.event === 'quota_refused');
  assert.equal(logged.address, OUTSIDE);
  /* a second connection from the same address shares the quota */
  const c2 = await outside(srv, 'q2');
  assert.ok(isError(await create(c2, openSeats, { id: 'x' }), 'too_many', 'x'));
  /* the admin token is not counted, and neither is loopback (exempt by default) */
  assert.equal((await create(c, openSeats, { admin_token: srv.adminToken })).type, 'match_created');
  const local = await Client.connect(srv.url, { name: 'lo' });
  for (let i = 0; i < 4; i++)
    assert.equal((await create(local, openSeats)).type, 'match_created');
  /* a match that ends frees its place */
  const p = await outside(srv, 'player');
  await join(p, made[0].match, 0, made[0].tokens[0]);
  await p.request({ type: 'resign', match: made[0].match }, 'resigned');
  await p.expect('game_over');
  assert.equal((await create(c, openSeats)).type, 'match_created');
  assert.ok(isError(await create(c, openSeats, { id: 'y' }), 'too_many', 'y'));

  /* creations per minute, in a bucket per address */
  const rate = await Server.start({ tag: 'rate', args: ['--host', '0.0.0.0', '--set', 'quota.matches_per_address=0',
    '--set', 'quota.creates_per_minute=4', ...OUTSIDE_ARGS] });
  t.after(() => rate.cleanup());
  const r = await outside(rate, 'rate');
  for (let i = 0; i < 4; i++)
    assert.equal((await create(r, openSeats)).type, 'match_created');
  const fifth = await create(r, openSeats, { id: 5 });
  assert.ok(isError(fifth, 'too_many', 5), JSON.stringify(fifth));
  assert.match(fifth.message, /4 matches a minute .* try again in \d+ s/);
  /* the bucket refills: one creation every 15 s at 4 a minute */
  await sleep(15500);
  assert.equal((await create(r, openSeats)).type, 'match_created');
  assert.ok(isError(await create(r, openSeats, { id: 6 }), 'too_many', 6));
});

test('behind a trusted proxy the client\'s address comes from X-Forwarded-For, and only then', async (t) => {
  const args = ['--set', 'quota.exempt=', '--set', 'quota.matches_per_address=1'];
  const srv = await Server.start({ tag: 'proxy', args: [...args, '--set', 'server.trusted_proxies=127.0.0.0/8'] });
  t.after(() => srv.cleanup());
  const via = (ip) => Client.connect(srv.url, { name: 'via' + ip, ws: { headers: { 'X-Forwarded-For': `198.51.100.9, ${ip}` } } });
  const a = await via('203.0.113.7'), a2 = await via('203.0.113.7'), b = await via('203.0.113.8');
  assert.equal((await create(a, openSeats)).type, 'match_created');
  assert.ok(isError(await create(a2, openSeats, { id: 'a2' }), 'too_many', 'a2'), 'the same client, another connection');
  assert.equal((await create(b, openSeats)).type, 'match_created', 'another client behind the proxy');
  assert.equal((await srv.waitLog((l) => l.event === 'quota_refused')).address, '203.0.113.7',
    'the last hop the proxy appended, not the first address');
  /* not a trusted proxy: the header is the client's own claim, ignored */
  const plain = await Server.start({ tag: 'noproxy', args });
  t.after(() => plain.cleanup());
  const x = await Client.connect(plain.url, { name: 'x', ws: { headers: { 'X-Forwarded-For': '203.0.113.7' } } });
  const y = await Client.connect(plain.url, { name: 'y', ws: { headers: { 'X-Forwarded-For': '203.0.113.8' } } });
  assert.equal((await create(x, openSeats)).type, 'match_created');
  assert.ok(isError(await create(y, openSeats, { id: 'y' }), 'too_many', 'y'), 'both are 127.0.0.1');
});

test('connections per address: one address holds at most its share; other addresses still connect', async (t) => {
  /* issue 29: 1,000 connections from one address were all accepted, and one
   * client could take every slot of --max-conns. Addresses come from a
   * trusted proxy's X-Forwarded-For here (one machine plays many clients). */
  const proxied = ['--set', 'quota.exempt=', '--set', 'server.trusted_proxies=127.0.0.0/8'];
  const srv = await Server.start({ tag: 'perconn', args: [...proxied, '--set', 'quota.connections_per_address=3'] });
  t.after(() => srv.cleanup());
  const via = (ip, name, hello = true) => Client.connect(srv.url, { name, hello, ws: { headers: { 'X-Forwarded-For': ip } } });
  const refused = async (c, re) => {
    const e = await c.expect('error');
    assert.ok(isError(e, 'too_many'), JSON.stringify(e));
    assert.match(e.message, re);
    await c.waitClosed();
  };
  const a = [];
  for (let i = 0; i < 3; i++)
    a.push(await via('203.0.113.7', 'a' + i));
  await refused(await via('203.0.113.7', 'a3', false), /your address \(203\.0\.113\.7\) holds its maximum of 3 connections/);
  /* IPv6: one /64 is one client */
  for (let i = 1; i <= 3; i++)
    await via(`2001:db8:1:2::${i}`, 'v6-' + i);
  await refused(await via('2001:db8:1:2:ffff::9', 'v6-4', false), /2001:0db8:0001:0002::\/64/);
  await via('2001:db8:1:3::1', 'v6-other');
  /* another address, and those within the limit, are served */
  const b = await via('203.0.113.8', 'b');
  assert.equal((await b.request({ type: 'ping' })).type, 'pong');
  assert.equal((await a[2].request({ type: 'ping' })).type, 'pong');
  /* a slot freed is the address's again (once the server has closed its side) */
  a[0].close();
  await a[0].waitClosed();
  let again = null;
  for (let i = 0; i < 200 && !again; i++) {
    try {
      again = await via('203.0.113.7', 'again');
    } catch {
      await sleep(50);
    }
  }
  assert.ok(again, 'the freed slot came back within 10 s');
  /* whatever the setting, one address gets at most a quarter of max_connections */
  const small = await Server.start({ tag: 'perconn-share', args: [...proxied, '--max-conns', '8'] });
  t.after(() => small.cleanup());
  const via2 = (ip, name, hello = true) => Client.connect(small.url, { name, hello, ws: { headers: { 'X-Forwarded-For': ip } } });
  await via2('198.51.100.1', 's0');
  await via2('198.51.100.1', 's1');
  await refused(await via2('198.51.100.1', 's2', false), /maximum of 2 connections/);
  await via2('198.51.100.2', 'other');
});

test('a waiting match expires; a match whose seats are all joined does not', async (t) => {
  const srv = await Server.start({ tag: 'expiry', args: ['--set', 'create.waiting_expiry_s=2'] });
  t.after(() => srv.cleanup());
  const c = await Client.connect(srv.url, { name: 'host' });
  const waiting = await createMatch(c, openSeats);
  const full = await createMatch(c, [{ bot: 'random' }, { open: true }],
    { time_control: { move_ms: 60000, first_move_ms: 60000 } });
  const p = await Client.connect(srv.url, { name: 'p0' });
  await join(p, waiting.match, 0, waiting.tokens[0]);
  const q = await Client.connect(srv.url, { name: 'q' });
  await join(q, full.match, 1, full.tokens[1]);
  const spect = await Client.connect(srv.url, { name: 'spect' });
  await spect.request({ type: 'spectate', match: waiting.match }, 'spectating');
  const t0 = Date.now();
  const over = await p.expect('game_over', 10000 * SLOW);
  const waited = Date.now() - t0;
  assert.ok(waited >= 1000, `it waited for its expiry (${waited} ms after the join)`);
  assert.equal(over.result.reason, 'expired');
  assert.deepEqual(over.result.winners, [], 'nobody wins an expired match');
  assert.match(over.result.detail, /not all joined within 2 s/);
  assert.equal((await spect.expect('game_over')).result.reason, 'expired', 'spectators are told too');
  const logged = srv.events('match_expired');
  assert.deepEqual(logged.map((l) => l.match), [waiting.match]);
  const list = (await c.request({ type: 'list_matches' }, 'matches')).matches;
  const w = list.find((m) => m.match === waiting.match), f = list.find((m) => m.match === full.match);
  assert.equal(w.status, 'finished');
  assert.equal(w.result.reason, 'expired');
  assert.equal(f.status, 'live', 'a match with all its open seats joined plays on');
  /* a late join is told the match is over */
  const late = await Client.connect(srv.url, { name: 'late' });
  const e = await late.request({ type: 'join', match: waiting.match, seat: 1, token: waiting.tokens[1], id: 'j' });
  assert.ok(isError(e, 'match_over', 'j'), JSON.stringify(e));
  /* journaled as finished */
  assert.equal((await srv.stop()).code, 0);
  const [status, result] = dbQuery(srv, `SELECT status, result FROM matches WHERE id='${waiting.match}'`).split('|');
  assert.equal(status, '2');
  assert.equal(JSON.parse(result).reason, 'expired');
});

test('resume tokens: an index in memory and in the database, rebuilt for an older database', async (t) => {
  const srv = await Server.start({ tag: 'tokens', env: { TESSERA_TEST_FINISHED_KEPT: '1' } });
  t.after(() => srv.cleanup());
  const c = await Client.connect(srv.url, { name: 'host' });
  /* many seats held: each resume finds its own */
  const held = [];
  for (let i = 0; i < 30; i++) {
    const m = await createMatch(c, openSeats);
    const p = await Client.connect(srv.url, { name: 'p' + i });
    held.push({ ...m, joined: await join(p, m.match, 0, m.tokens[0]), p });
  }
  for (const h of [held[0], held[17], held[29]]) {
    const r = await Client.connect(srv.url, { name: 'r' });
    const res = await r.request({ type: 'resume', resume_token: h.joined.resume_token }, 'resumed');
    assert.equal(res.match, h.match);
    assert.equal(res.seat, 0);
    r.close();
  }
  assert.ok(isError(await c.request({ type: 'resume', resume_token: 'a'.repeat(24), id: 'n' }), 'bad_token', 'n'));
  /* finished and let go of (finished_kept 1): found in the database */
  const first = held[0];
  const r = await Client.connect(srv.url, { name: 'resigner' });
  await r.request({ type: 'resume', resume_token: first.joined.resume_token }, 'resumed');
  await r.request({ type: 'resign', match: first.match }, 'resigned');
  const second = held[1];
  await second.p.request({ type: 'resign', match: second.match }, 'resigned');
  await second.p.expect('game_over');
  const e = await c.request({ type: 'resume', resume_token: first.joined.resume_token, id: 'gone' });
  assert.ok(isError(e, 'match_over', 'gone'), JSON.stringify(e));
  /* no longer held in memory, it is read back from the journal when asked for */
  const spectate = await c.request({ type: 'spectate', match: first.match, id: 's' });
  assert.equal(spectate.type, 'spectating', JSON.stringify(spectate).slice(0, 200));
  assert.equal(spectate.status, 'finished');
  assert.equal((await srv.stop()).code, 0);
  /* the index holds the token's hash (issue 29), not its text */
  const hashOf = (t) => require('node:crypto').createHash('sha256').update(t).digest('hex');
  assert.equal(dbQuery(srv, `SELECT match || ':' || seat FROM resume_tokens WHERE token='${hashOf(first.joined.resume_token)}'`),
    `${first.match}:0`);
  assert.equal(Number(dbQuery(srv, 'SELECT count(*) FROM resume_tokens')), 30);
  /* a database from before the index: it is made from the stored seats
   * (SQLite's migration; a PostgreSQL journal always had it) */
  if (!ON_PG) {
    dbQuery(srv, 'DROP TABLE resume_tokens');
    await srv.restart();
    assert.equal((await srv.stop()).code, 0);
    assert.equal(Number(dbQuery(srv, 'SELECT count(*) FROM resume_tokens')), 30, 'rebuilt');
  }
  await srv.restart();
  const c2 = await Client.connect(srv.url, { name: 'host2' });
  assert.ok(isError(await c2.request({ type: 'resume', resume_token: first.joined.resume_token, id: 'g2' }), 'match_over', 'g2'));
  const back = await c2.request({ type: 'resume', resume_token: held[20].joined.resume_token }, 'resumed');
  assert.equal(back.match, held[20].match, 'a live match restored from the journal is found by its token');
});
