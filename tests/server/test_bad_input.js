'use strict';
/*
 * test_bad_input.js — hostile and broken clients (docs/protocol.md, "Errors").
 *
 * One server for the file, with a match running alongside all the time (an
 * in-process bot against a client that takes ~20 ms a move, watched by a
 * spectator; a new one starts when one ends). Each case sends something bad
 * on a fresh connection and checks
 *   - the structured reply {"type":"error","code":...,"message":...} with the
 *     right code, and the `id` echoed when the message had a valid one;
 *   - whether the connection is closed after it or kept (a kept one still
 *     answers ping);
 *   - that the server keeps serving everyone else: the match alongside keeps
 *     producing updates to its spectator, and a fresh connection still gets
 *     `welcome` and `pong`.
 */
const { describe, test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { Server, Client, SLOW, createMatch, join, playUntilOver, rng, randomMove, isError, rawConnect,
  rawWsClient, sleep, within } = require('./lib');

/* ---- the match alongside -------------------------------------------------------- */

class Background {
  constructor(srv) {
    this.srv = srv;
    this.updates = 0;
    this.matches = 0;
    this.error = null;
    this.stopped = false;
  }

  start() {
    this.done = this._run().catch((e) => {
      if (!this.stopped)
        this.error = e;
    });
  }

  async _run() {
    while (!this.stopped) {
      const host = await Client.connect(this.srv.url, { name: 'bg-host' });
      const { match, tokens } = await createMatch(host, [{ bot: 'random' }, { open: true }],
        { time_control: { move_ms: 30000 } });
      const spect = await Client.connect(this.srv.url, { name: 'bg-spect' });
      spect.ws.on('message', (d) => {
        if (d.toString().startsWith('{"type":"update"'))
          this.updates++;
      });
      await spect.request({ type: 'spectate', match }, 'spectating');
      const player = await Client.connect(this.srv.url, { name: 'bg-player' });
      await join(player, match, 1, tokens[1]);
      this.clients = [host, spect, player];
      const over = await playUntilOver(player, { rng: rng(++this.matches), delayMs: 20 });
      if (over.result.reason !== 'normal')
        throw new Error('the match alongside ended by ' + over.result.reason);
      for (const c of this.clients)
        c.close();
    }
  }

  /* The match alongside moved on, and a new connection is served. */
  async alive() {
    if (this.error)
      throw this.error;
    const n = this.updates;
    const t0 = Date.now();
    while (this.updates <= n) {
      if (this.error)
        throw this.error;
      if (Date.now() - t0 > 15000 * SLOW)
        throw new Error(`the match alongside made no progress for ${15 * SLOW} s`);
      await sleep(10);
    }
    const c = await Client.connect(this.srv.url, { name: 'fresh' });
    assert.equal(c.welcome.type, 'welcome');
    assert.equal((await c.request({ type: 'ping' })).type, 'pong');
    c.close();
  }

  async stop() {
    this.stopped = true;
    for (const c of this.clients || [])
      c.terminate();
    await this.done;
  }
}

let srv, bg;

/*
 * One bad-input case. opts:
 *   send     frames sent after hello (or instead of it): an object (sent as
 *            JSON), a string (a raw text frame), {binary: Buffer}, or
 *            {text: Buffer} (raw bytes in a text frame); or a function of
 *            the setup's result giving them
 *   hello    say hello first (default true)
 *   setup    async (client) => context, before sending
 *   code     the expected error code
 *   id       the id the error must echo (undefined: none)
 *   closes   the server must close the connection after the reply
 */
function badCase(name, opts) {
  test(name, async () => {
    const c = await Client.connect(srv.url, { hello: opts.hello !== false, name: 'bad' });
    const ctx = opts.setup ? await opts.setup(c) : {};
    let frames = typeof opts.send === 'function' ? await opts.send(ctx) : opts.send;
    frames = Array.isArray(frames) ? frames : [frames];
    for (const f of frames) {
      if (typeof f === 'string')
        c.sendRaw(f);
      else if (f && f.binary)
        c.sendRaw(f.binary, true);
      else if (f && f.text)
        c.sendRaw(f.text, false);
      else
        c.send(f);
    }
    const e = await c.expect('error');
    assert.ok(isError(e, opts.code, opts.id),
      `expected error ${opts.code} with id ${JSON.stringify(opts.id)}, got ${JSON.stringify(e)}`);
    if (opts.closes) {
      await c.waitClosed();
    } else {
      const pong = await c.request({ type: 'ping' });
      assert.equal(pong.type, 'pong', 'the connection is kept');
    }
    if (opts.check)
      await opts.check(c, ctx);
    c.terminate();
    await bg.alive();
  });
}

/* A live match with two open seats: the client holds `seat`, another
 * connection the other one; seat 0 is to move. */
async function liveTable(c, seat) {
  const host = await Client.connect(srv.url, { name: 'host' });
  const { match, tokens } = await createMatch(host, [{ open: true }, { open: true }]);
  const other = await Client.connect(srv.url, { name: 'other' });
  await join(other, match, 1 - seat, tokens[1 - seat]);
  await join(c, match, seat, tokens[seat]);
  const yt = await (seat === 0 ? c : other).expect('your_turn');
  assert.equal(yt.seat, 0);
  return { match, tokens, other, yt };
}

/* A match [random bot, open seat 1] the client has joined. */
async function botTable(c, extra) {
  const { match, tokens } = await createMatch(c, [{ bot: 'random' }, { open: true }], extra);
  const joined = await join(c, match, 1, tokens[1]);
  return { match, tokens, joined };
}

const create = (extra) => ({ type: 'create_match', game: 'carcassonne', seats: [{ open: true }, { open: true }],
  ...extra });
const pad = (n) => ' '.repeat(n);

describe('bad input', () => {
  before(async () => {
    srv = await Server.start({ tag: 'bad' });
    bg = new Background(srv);
    bg.start();
    await bg.alive();
  });
  after(async () => {
    await bg.stop();
    assert.equal(srv.exit, null, 'the server is still running');
    const e = await srv.stop();
    await srv.cleanup();
    assert.equal(e.code, 0, 'and stops cleanly');
  });

  /* -- framing and JSON -- */
  badCase('invalid JSON', { send: '{"type":"ping",', code: 'bad_json', closes: true });
  badCase('empty message', { send: '', code: 'bad_json', closes: true });
  badCase('an array, not an object', { send: '[1,2]', code: 'bad_json', closes: true });
  badCase('a bare string', { send: '"ping"', code: 'bad_json', closes: true });
  badCase('two objects in one message', { send: '{"type":"ping"}{"type":"ping"}', code: 'bad_json',
    closes: true });
  badCase('duplicate keys', { send: '{"type":"ping","id":1,"id":2}', code: 'bad_json', closes: true });
  badCase('nesting 3000 levels deep', { send: '{"type":"ping","x":' + '['.repeat(3000) + ']'.repeat(3000) + '}',
    code: 'bad_json', closes: true });
  badCase('a \\u0000 escape', { send: '{"type":"ping","id":"a\\u0000b"}', code: 'bad_json', closes: true });
  badCase('a raw NUL byte inside a string', { send: { text: Buffer.from('{"type":"ping","id":"a\0b"}') },
    code: 'bad_json', closes: true });
  badCase('a raw NUL byte after the object', { send: { text: Buffer.from('{"type":"ping"}\0') },
    code: 'bad_json', closes: true });
  badCase('invalid UTF-8', { send: { text: Buffer.from([0x7b, 0x22, 0x74, 0x79, 0x70, 0x65, 0x22, 0x3a, 0x22,
    0xff, 0xfe, 0x22, 0x7d]) }, code: 'bad_json', closes: true });
  badCase('a lone surrogate escape', { send: '{"type":"ping","id":"\\ud800"}', code: 'bad_json', closes: true });
  badCase('oversized message (64 KiB + 1)', {
    send: '{"type":"ping","id":"big"' + pad(65536 - 26 + 1) + '}', code: 'message_too_large', closes: true,
  });
  test('oversized message (1 MiB): closed; any reply is message_too_large', async () => {
    /* The reply itself may be lost on the way: the server stops reading at
     * the limit, and a client still pushing most of a megabyte can see its
     * connection reset before it reads the reply. */
    const c = await Client.connect(srv.url, { name: 'huge' });
    c.sendRaw('{"type":"ping","x":"' + 'y'.repeat(1 << 20) + '"}');
    await c.waitClosed();
    const errors = c.all.filter((m) => m.type === 'error');
    assert.ok(errors.every((m) => isError(m, 'message_too_large')), JSON.stringify(errors));
    assert.ok(!c.all.some((m) => m.type === 'pong'), 'the message was not handled');
    await bg.alive();
  });
  badCase('binary frame', { send: { binary: Buffer.from('{"type":"ping"}') }, code: 'binary_frame', closes: true });
  test('a message of exactly 64 KiB is accepted', async () => {
    const c = await Client.connect(srv.url);
    const text = '{"type":"ping","id":"edge"' + pad(65536 - 26 - 1) + '}';
    assert.equal(Buffer.byteLength(text), 65536);
    c.sendRaw(text);
    assert.equal((await c.expect((m) => m.id === 'edge')).type, 'pong');
    c.close();
  });

  /* -- session -- */
  badCase('no hello first', { hello: false, send: { type: 'ping', id: 3 }, code: 'bad_message', id: 3,
    closes: true });
  badCase('no hello first: create_match', { hello: false, send: create({ id: 'c' }), code: 'bad_message',
    id: 'c', closes: true });
  badCase('hello twice', { send: { type: 'hello', protocol: 1, id: 'h2' }, code: 'bad_message', id: 'h2' });
  badCase('protocol 3', { hello: false, send: { type: 'hello', protocol: 3, id: 1 }, code: 'unsupported_version',
    id: 1, closes: true });
  badCase('protocol 3 with unknown fields (version checked first)', { hello: false,
    send: { type: 'hello', protocol: 3, shiny: true }, code: 'unsupported_version', closes: true });
  badCase('hello without protocol', { hello: false, send: { type: 'hello', id: 9 }, code: 'bad_message', id: 9,
    closes: true });
  badCase('hello with protocol "1"', { hello: false, send: '{"type":"hello","protocol":"1"}',
    code: 'bad_message', closes: true });
  badCase('hello with client null (optional fields are left out, never null)', { hello: false,
    send: '{"type":"hello","protocol":1,"client":null}', code: 'bad_message', closes: true });

  /* -- shape -- */
  badCase('unknown message type', { send: { type: 'dance', id: 'd' }, code: 'unknown_type', id: 'd' });
  badCase('missing type', { send: { id: 3 }, code: 'bad_message', id: 3 });
  badCase('type is a number', { send: { type: 5, id: 4 }, code: 'bad_message', id: 4 });
  badCase('unknown field', { send: { type: 'ping', id: 1, foo: 1 }, code: 'bad_message', id: 1 });
  badCase('id of the wrong type (not echoed)', { send: { type: 'ping', id: [1] }, code: 'bad_message' });
  badCase('id of 65 characters (not echoed)', { send: { type: 'ping', id: 'a'.repeat(65) }, code: 'bad_message' });
  badCase('id a real number (not echoed)', { send: '{"type":"ping","id":1.5}', code: 'bad_message' });
  badCase('join: missing fields', { send: { type: 'join', id: 2 }, code: 'bad_message', id: 2 });
  badCase('join: seat of the wrong type', { send: { type: 'join', match: 'abc', seat: '1', token: 't', id: 4 },
    code: 'bad_message', id: 4 });
  badCase('join: seat 1.0 (a real, not an integer)', {
    send: '{"type":"join","match":"abc","seat":1.0,"token":"t","id":8}', code: 'bad_message', id: 8 });
  badCase('join: seat 1e0', { send: '{"type":"join","match":"abc","seat":1e0,"token":"t","id":8}',
    code: 'bad_message', id: 8 });
  badCase('join: negative seat', { send: { type: 'join', match: 'abc', seat: -1, token: 't', id: 6 },
    code: 'bad_message', id: 6 });
  badCase('join: seat 2^40', { send: { type: 'join', match: 'abc', seat: 2 ** 40, token: 't', id: 7 },
    code: 'bad_message', id: 7 });
  badCase('join: seat beyond 64 bits', {
    send: '{"type":"join","match":"abc","seat":99999999999999999999999,"token":"t"}', code: 'bad_message' });
  badCase('ping: id 2^63 (beyond 64 bits)', { send: '{"type":"ping","id":9223372036854775808}',
    code: 'bad_message' });
  badCase('join: match id with a slash', { send: { type: 'join', match: 'a/b', seat: 0, token: 'x', id: 1 },
    code: 'bad_message', id: 1 });
  badCase('join: match id of 33 characters', {
    send: { type: 'join', match: 'a'.repeat(33), seat: 0, token: 'x', id: 1 }, code: 'bad_message', id: 1 });
  badCase('resume: token with a space', { send: { type: 'resume', resume_token: 'a b', id: 1 },
    code: 'bad_message', id: 1 });
  badCase('resume: empty token', { send: { type: 'resume', resume_token: '', id: 1 }, code: 'bad_message', id: 1 });
  badCase('list_matches: unknown status', { send: { type: 'list_matches', status: 'bogus', id: 9 },
    code: 'bad_message', id: 9 });
  badCase('move: not an object', { send: { type: 'move', move: 'N', id: 1 }, code: 'bad_message', id: 1 });

  /* -- create_match -- */
  badCase('unknown game', { send: create({ game: 'chess', id: 1 }), code: 'unknown_game', id: 1 });
  badCase('bad rules: unknown rule', { send: create({ rules: { nope: 1 }, id: 1 }), code: 'bad_rule', id: 1 });
  badCase('bad rules: out of range', { send: create({ rules: { tiny_city: 7 }, id: 1 }), code: 'bad_rule', id: 1 });
  badCase('bad rules: wrong type', { send: create({ rules: { farms: 3 }, id: 1 }), code: 'bad_rule', id: 1 });
  badCase('players differ from the seats', { send: create({ rules: { players: 3 }, id: 1 }), code: 'bad_players',
    id: 1 });
  badCase('one seat', { send: create({ seats: [{ open: true }], id: 1 }), code: 'bad_players', id: 1 });
  badCase('six seats', { send: create({ seats: Array(6).fill({ open: true }), id: 1 }), code: 'bad_message', id: 1 });
  badCase('unknown bot', { send: create({ seats: [{ bot: 'deepblue' }, { open: true }], id: 1 }),
    code: 'unknown_bot', id: 1 });
  badCase('bad bot spec: unknown option', { send: create({ seats: [{ bot: 'mcts:zzz=1' }, { open: true }], id: 1 }),
    code: 'bad_bot_spec', id: 1 });
  badCase('bad bot spec: out of range', { send: create({ seats: [{ bot: 'mcts:k=-1' }, { open: true }], id: 1 }),
    code: 'bad_bot_spec', id: 1 });
  badCase('bad bot spec: more search threads than the server allows (limits.bot_threads = 1)',
    { send: create({ seats: [{ bot: 'mcts:threads=2' }, { open: true }], id: 1 }), code: 'bad_bot_spec', id: 1 });
  badCase('seat with both bot and open', { send: create({ seats: [{ bot: 'random', open: true }, { open: true }],
    id: 1 }), code: 'bad_message', id: 1 });
  badCase('move_ms 0', { send: create({ time_control: { move_ms: 0 }, id: 1 }), code: 'bad_message', id: 1 });
  badCase('move_ms over a day', { send: create({ time_control: { move_ms: 86400001 }, id: 1 }), code: 'bad_message',
    id: 1 });
  badCase('unknown timeout policy', { send: create({ policies: { timeout: 'pray' }, id: 1 }), code: 'bad_message',
    id: 1 });
  badCase('max_illegal 0', { send: create({ policies: { max_illegal: 0 }, id: 1 }), code: 'bad_message', id: 1 });

  /* -- matches, seats, tokens -- */
  badCase('join an unknown match', { send: { type: 'join', match: 'nosuch', seat: 0, token: 'x', id: 1 },
    code: 'unknown_match', id: 1 });
  badCase('spectate an unknown match', { send: { type: 'spectate', match: 'nosuch', id: 'sp' },
    code: 'unknown_match', id: 'sp' });
  badCase('unspectate an unknown match', { send: { type: 'unspectate', match: 'nosuch', id: 1 },
    code: 'unknown_match', id: 1 });
  badCase('resume with a bad token', { send: { type: 'resume', resume_token: 'r_nosuchtoken', id: 'r' },
    code: 'bad_token', id: 'r' });
  badCase('join with a wrong token', {
    setup: async (c) => createMatch(c, [{ bot: 'random' }, { open: true }]),
    send: ({ match }) => ({ type: 'join', match, seat: 1, token: 'wrongtoken', id: 't' }),
    code: 'bad_token', id: 't' });
  badCase('join with another seat\'s token', {
    setup: async (c) => createMatch(c, [{ open: true }, { open: true }]),
    send: ({ match, tokens }) => ({ type: 'join', match, seat: 1, token: tokens[0], id: 't' }),
    code: 'bad_token', id: 't' });
  badCase('join a seat that does not exist', {
    setup: async (c) => createMatch(c, [{ bot: 'random' }, { open: true }]),
    send: ({ match, tokens }) => ({ type: 'join', match, seat: 3, token: tokens[1], id: 's' }),
    code: 'no_such_seat', id: 's' });
  badCase('join a bot\'s seat', {
    setup: async (c) => createMatch(c, [{ bot: 'random' }, { open: true }]),
    send: ({ match, tokens }) => ({ type: 'join', match, seat: 0, token: tokens[1], id: 's' }),
    code: 'no_such_seat', id: 's' });
  badCase('join a seat another live connection holds', {
    setup: async (c) => {
      const t = await createMatch(c, [{ bot: 'random' }, { open: true }]);
      const holder = await Client.connect(srv.url, { name: 'holder' });
      await join(holder, t.match, 1, t.tokens[1]);
      return t;
    },
    send: ({ match, tokens }) => ({ type: 'join', match, seat: 1, token: tokens[1], id: 'full' }),
    code: 'seat_taken', id: 'full' });

  badCase('spectate a 65th match from one connection', {
    setup: async (c) => {
      const host = await Client.connect(srv.url, { name: 'host65' });
      const ids = [];
      for (let i = 0; i < 65; i++)
        ids.push((await createMatch(host, [{ open: true }, { open: true }])).match);
      for (let i = 0; i < 64; i++)
        await c.request({ type: 'spectate', match: ids[i] }, 'spectating');
      host.close();
      return { ids };
    },
    send: ({ ids }) => ({ type: 'spectate', match: ids[64], id: '65th' }),
    code: 'too_many', id: '65th',
    check: async (c, { ids }) => {
      /* one less, and there is room again */
      await c.request({ type: 'unspectate', match: ids[0] }, 'unspectated');
      await c.request({ type: 'spectate', match: ids[64] }, 'spectating');
    },
  });

  /* -- moves -- */
  badCase('move before join', { send: { type: 'move', move: { x: 0, y: 1, rot: 0 }, id: 1 }, code: 'not_joined',
    id: 1 });
  badCase('resign before join', { send: { type: 'resign', id: 2 }, code: 'not_joined', id: 2 });
  badCase('move in an unknown match', { send: { type: 'move', match: 'nosuch', move: { x: 0, y: 1, rot: 0 }, id: 1 },
    code: 'unknown_match', id: 1 });
  badCase('move out of turn (the other seat is to move)', {
    setup: (c) => liveTable(c, 1),
    send: ({ match, yt }) => ({ type: 'move', match, move: randomMove(yt, rng(1)), id: 'oot' }),
    code: 'not_your_turn', id: 'oot' });
  badCase('move with a stale turn number', {
    setup: (c) => liveTable(c, 0),
    send: ({ match, yt }) => ({ type: 'move', match, turn: yt.turn + 1, move: randomMove(yt, rng(1)), id: 'st' }),
    code: 'not_your_turn', id: 'st' });
  badCase('move while the match waits for its seats', {
    setup: async (c) => {
      const t = await createMatch(c, [{ open: true }, { open: true }]);
      await join(c, t.match, 0, t.tokens[0]);
      return t;
    },
    send: ({ match }) => ({ type: 'move', match, move: { x: 0, y: 1, rot: 0 }, id: 'w' }),
    code: 'not_your_turn', id: 'w' });
  badCase('move for another match (no seat there)', {
    setup: async (c) => {
      const mine = await botTable(c);
      const theirs = await createMatch(c, [{ bot: 'random' }, { open: true }]);
      return { mine, theirs };
    },
    send: ({ theirs }) => ({ type: 'move', match: theirs.match, move: { x: 0, y: 1, rot: 0 }, id: 'ws' }),
    code: 'wrong_seat', id: 'ws' });
  badCase('move after game over', {
    setup: async (c) => {
      const t = await botTable(c);
      const over = await playUntilOver(c, { rng: rng(2) });
      assert.equal(over.result.reason, 'normal');
      return t;
    },
    send: ({ match }) => ({ type: 'move', match, move: { x: 0, y: 1, rot: 0 }, id: 'late' }),
    code: 'match_over', id: 'late',
    check: async (c, { match, tokens, joined }) => {
      assert.ok(isError(await c.request({ type: 'join', match, seat: 1, token: tokens[1], id: 'j' }),
        'match_over', 'j'), 'join after the end');
      const c2 = await Client.connect(srv.url);
      assert.ok(isError(await c2.request({ type: 'resume', resume_token: joined.resume_token, id: 'r' }),
        'match_over', 'r'), 'resume after the end');
      c2.close();
    },
  });
  badCase('resign, then move', {
    setup: async (c) => {
      const t = await botTable(c);
      const yt = await c.expect('your_turn');
      assert.equal((await c.request({ type: 'resign', match: t.match })).type, 'resigned');
      const over = await c.expect('game_over');
      assert.equal(over.result.reason, 'resignation');
      assert.equal(over.result.seat, 1);
      return { ...t, yt };
    },
    send: ({ match, yt }) => ({ type: 'move', match, move: randomMove(yt, rng(1)), id: 'rm' }),
    code: 'match_over', id: 'rm',
    check: async (c) => {
      assert.ok(isError(await c.request({ type: 'resign', id: 'again' }), 'match_over', 'again'));
    },
  });

  /* -- floods and idle connections -- */
  test('one connection holding seats and spectating past the limits: too_many, and closing it is safe', async () => {
    /* 64 spectated matches + 32 seats fill the connection's table; the next
     * seat is refused (it used to be attached without being tracked, and
     * broadcast to after the connection was freed). A seat in a finished
     * match is let go to make room. */
    const SEATS = 32, WATCH = 64;
    const host = await Client.connect(srv.url, { name: 'seathost' });
    const made = [];
    for (let i = 0; i < SEATS + WATCH + 1; i++) {
      made.push(await createMatch(host, [{ open: true }, { open: true }], { time_control: { move_ms: 60000 } }));
      if (i % 40 === 39)
        await sleep(900); /* stay inside the rate limit */
    }
    const p = await Client.connect(srv.url, { name: 'seatholder' });
    for (let i = 0; i < WATCH; i++)
      await p.request({ type: 'spectate', match: made[SEATS + 1 + i].match }, 'spectating');
    await sleep(1500);
    for (let i = 0; i < SEATS; i++)
      await join(p, made[i].match, 0, made[i].tokens[0]);
    await sleep(1500);
    const extra = made[SEATS];
    const e = await p.request({ id: 'one-more', type: 'join', match: extra.match, seat: 0, token: extra.tokens[0] });
    assert.ok(isError(e, 'too_many', 'one-more'), JSON.stringify(e));
    /* finish one of the held matches: its seat is let go, and the join goes through */
    await p.request({ type: 'resign', match: made[0].match }, 'resigned');
    await join(p, extra.match, 0, extra.tokens[0]);
    /* the refused and the held seats, then the connection goes away ... */
    p.terminate();
    await sleep(200);
    /* ... and the matches it sat in go on: the other seat joins, updates go out */
    const other = await Client.connect(srv.url, { name: 'seatother' });
    for (const k of [1, SEATS - 1]) {
      const j = await join(other, made[k].match, 1, made[k].tokens[1]);
      assert.equal(j.seats[0].connected, false, 'the dropped seat shows as disconnected');
    }
    const ping = await other.request({ type: 'ping' });
    assert.equal(ping.type, 'pong');
    other.terminate();
    host.terminate();
    await bg.alive();
  });

  test('a flood of messages: rate_limited, then closed; others unaffected', async () => {
    const c = await Client.connect(srv.url, { name: 'flood' });
    /* twice the burst at once: the burst is served, then the client is told
     * (and kept). Twice, so that even a server slowed down by a busy machine
     * (the bucket refills while it reads) must refuse some. */
    const { burst } = c.welcome.limits;
    for (let i = 0; i < 2 * burst; i++)
      c.send({ type: 'ping', id: i });
    const e = await c.expect('error');
    assert.ok(isError(e, 'rate_limited', e.id) && Number.isInteger(e.id), JSON.stringify(e));
    /* replies come in order: every pong before the first refusal is here */
    const pongs = c.all.filter((m) => m.type === 'pong').length;
    assert.ok(pongs >= burst - 10, `the burst is served (${pongs} pongs before the first refusal)`);
    assert.ok(c.isOpen, 'one flood is forgiven');
    /* then flooding on, 20 pings every 5 ms (~4000/s), until the server hangs
     * up (all at once is the regression test "flood: the replies and the
     * final error reach the client" below). */
    let sent = 2 * burst;
    while (!c.closeInfo && sent < 20000) {
      for (let k = 0; k < 20 && c.isOpen; k++)
        c.send({ type: 'ping', id: sent++ });
      await sleep(5);
    }
    const closed = await c.waitClosed(10000 * SLOW);
    assert.ok(closed, 'closed after repeated floods');
    assert.ok(sent < 5000, `closed after ${sent} messages`);
    await bg.alive();
    /* a polite client is never limited: half the announced rate, sustained
     * for well past what the burst alone would allow (burst + rate messages:
     * without the bucket refilling at the announced rate, the last ones
     * would be refused) */
    const p = await Client.connect(srv.url, { name: 'polite' });
    const rate = p.welcome.limits.messages_per_second;
    const n = p.welcome.limits.burst + rate;
    const t0 = Date.now();
    for (let i = 0; i < n; i++) {
      p.send({ type: 'ping', id: i });
      await sleep(2000 / rate);
    }
    await p.expect((m) => m.id === n - 1, 10000 * SLOW);
    assert.ok(Date.now() - t0 >= (n - 1) * (2000 / rate), 'sent at half the announced rate');
    assert.equal(p.all.filter((m) => m.type === 'pong').length, n, 'every ping answered');
    assert.ok(!p.all.some((m) => m.type === 'error'), `no error at ${rate / 2} messages per second`);
    p.close();
  });

  test('half-open connections are dropped, and the server keeps serving', async () => {
    /* a TCP client that never starts the handshake, one that stops half way,
     * and a WebSocket client that never says hello */
    const silent = await rawConnect(srv.port);
    const half = await rawConnect(srv.port);
    half.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n');
    const mute = await Client.connect(srv.url, { hello: false, name: 'mute' });
    const t0 = Date.now();
    const closedAt = (s) => new Promise((resolve) => s.on('close', () => resolve(Date.now() - t0)));
    const waits = [closedAt(silent), closedAt(half), mute.closed.then(() => Date.now() - t0)];
    silent.on('error', () => {});
    half.on('error', () => {});
    /* meanwhile the others are served */
    for (let i = 0; i < 3; i++)
      await bg.alive();
    const times = await within(Promise.all(waits), 30000 * SLOW);
    assert.ok(times, 'every half-open connection was dropped within 30 s');
    for (const ms of times)
      assert.ok(ms >= 5000, `dropped after ${ms} ms: the server gives a slow client a few seconds`);
    await bg.alive();
  });

  /* -- regression tests for bugs the suite found (each fixed in the server) -- */
  test('the id is echoed even when a number overflows elsewhere in the message', async () => {
    const c = await Client.connect(srv.url);
    c.sendRaw('{"type":"join","match":"abc","seat":99999999999999999999999,"token":"t","id":5}');
    const e = await c.expect('error');
    c.terminate();
    assert.ok(isError(e, 'bad_message', 5), JSON.stringify(e));
  });

  test('flood: the replies and the final error reach the client before the close', async () => {
    const c = await Client.connect(srv.url, { name: 'flood2' });
    for (let i = 0; i < 600; i++)
      c.send({ type: 'ping', id: i });
    await c.waitClosed(10000 * SLOW);
    const pongs = c.all.filter((m) => m.type === 'pong').length;
    const limited = c.all.filter((m) => isError(m, 'rate_limited'));
    assert.ok(pongs >= 90, `${pongs} pongs of the first 100 pings arrived`);
    assert.ok(limited.some((m) => /closing/.test(m.message)), 'the final rate_limited error arrived');
    await bg.alive();
  });

  test('a request refused for its rate still gets a reply that echoes its id', async () => {
    /* every message with an id gets exactly one direct reply, the refused
     * ones too (docs/protocol.md): a client that waits for its id is never
     * left hanging by the rate limit */
    const c = await Client.connect(srv.url, { name: 'flood-ids' });
    const { burst } = c.welcome.limits;
    const n = 2 * burst;
    for (let i = 0; i < n; i++)
      c.send({ type: 'ping', id: 'p' + i });
    await c.expect((m) => m.id === 'p' + (n - 1), 10000 * SLOW);
    const byId = new Map();
    for (const m of c.all)
      if (typeof m.id === 'string' && m.id.startsWith('p'))
        byId.set(m.id, (byId.get(m.id) || []).concat([m]));
    let refused = 0;
    for (let i = 0; i < n; i++) {
      const got = byId.get('p' + i) || [];
      assert.equal(got.length, 1, `ping p${i}: one reply, got ${JSON.stringify(got)}`);
      if (got[0].type === 'error') {
        assert.ok(isError(got[0], 'rate_limited', 'p' + i), JSON.stringify(got[0]));
        refused++;
      } else {
        assert.equal(got[0].type, 'pong');
      }
    }
    assert.ok(refused > 0, 'some of twice the burst were refused');
    assert.ok(c.isOpen, 'one flood is forgiven');
    c.close();
    await bg.alive();
  });

  test('a protocol violation is closed with a WebSocket close frame', async () => {
    const c = await Client.connect(srv.url);
    c.sendRaw('{"type":"ping",');
    await c.expect('error');
    const info = await c.waitClosed();
    assert.notEqual(info.code, 1006, 'a close frame with a status code (e.g. 1008)');
  });

  test('a client that answers the server\'s close frame gets no second one', async () => {
    /* RFC 6455 5.5.1: an endpoint that sent a Close sends nothing more. The
     * server writes its close frame itself (server/net.c), so libwebsockets
     * took the client's answer for a close of the client's own and echoed it:
     * browsers log "Close received after close" */
    const s = await rawWsClient(srv.port, []);
    const frames = [];
    let buf = Buffer.alloc(0);
    const ended = new Promise((resolve) => s.on('close', resolve));
    s.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      for (;;) {
        if (buf.length < 2)
          return;
        let n = buf[1] & 127, at = 2;
        if (n === 126) {
          if (buf.length < 4)
            return;
          n = buf.readUInt16BE(2);
          at = 4;
        }
        if (buf.length < at + n)
          return;
        const op = buf[0] & 15, payload = buf.subarray(at, at + n);
        buf = buf.subarray(at + n);
        frames.push(op);
        if (op === 8 && frames.filter((o) => o === 8).length === 1) /* answer it, masked, with its status */
          s.write(Buffer.concat([Buffer.from([0x88, 0x82, 0, 0, 0, 0]), payload.subarray(0, 2)]));
      }
    });
    s.write(Buffer.from([0x81, 0x80 | 15, 0, 0, 0, 0]));
    s.write(Buffer.from('{"type":"ping",'));
    assert.ok(await within(ended.then(() => true), 10000 * SLOW), 'the server ended the connection');
    assert.equal(frames.filter((o) => o === 8).length, 1, `one close frame (frames' opcodes: ${frames})`);
  });
});

test('--max-conns: connections past the limit get too_many and are closed; slots come back', async (t) => {
  const N = 64;
  const s = await Server.start({ tag: 'maxconns', args: ['--max-conns', String(N)] });
  t.after(() => s.cleanup());
  const open = async () => {
    const held = await Promise.all(Array.from({ length: N }, (_, i) => Client.connect(s.url, { name: 'held' + i })));
    for (const c of held)
      assert.equal(c.welcome.type, 'welcome');
    return held;
  };
  const held = await open();
  /* three more at once: each told too_many, each closed */
  const extra = await Promise.all([0, 1, 2].map((i) => Client.connect(s.url, { hello: false, name: 'extra' + i })));
  for (const c of extra) {
    const e = await c.expect('error');
    assert.ok(isError(e, 'too_many'), JSON.stringify(e));
    await c.waitClosed();
  }
  /* those within the limit are still served */
  await Promise.all(held.map(async (c) => assert.equal((await c.request({ type: 'ping' })).type, 'pong')));
  /* a slot freed is a slot again */
  held[0].close();
  await held[0].waitClosed();
  /* the server frees the slot once it has closed its side too (a busy
   * server a little after the client saw the close): try for a while */
  const whenFree = async (name) => {
    for (let i = 0; i < 200; i++) {
      try {
        return await Client.connect(s.url, { name });
      } catch {
        await sleep(50);
      }
    }
    throw new Error(name + ': no slot came free in 10 s');
  };
  const again = await whenFree('again');
  assert.equal((await again.request({ type: 'ping' })).type, 'pong');
  /* all gone, then all back: refused connections leaked no slot */
  for (const c of [...held, again])
    c.close();
  await Promise.all([...held, again].map((c) => c.waitClosed()));
  const back = [];
  for (let i = 0; i < N; i++)
    back.push(await whenFree('back' + i));
  assert.equal(back.length, N, 'every slot came back');
  for (const c of back)
    c.close();
});
