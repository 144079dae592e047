'use strict';
/*
 * test_security.js — what a remote client may make the server do on its
 * machine. Reading a file is the admin's: a bot option that names a file
 * the bot reads (evomcts:eval=FILE, marked so in `bots`) is refused with
 * `forbidden` naming the option, in create_match and in a tournament's
 * participants, unless the message carries the admin token — and the
 * refusal says nothing of the file (whether it exists, what it holds).
 * Starting a process is the admin's too: cmd: and cmd-stateless: seats
 * without the token are refused and nothing is started (the same requests
 * with the token do start the program, so the check can see one).
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { Client, ROOT, isError, sleep, startAdmin, SLOW } = require('./lib');

const EVAL = path.join(ROOT, 'docs', 'examples', 'evomcts-reversi.txt');

const create = (c, bot, extra = {}) => c.request({ type: 'create_match', game: 'reversi',
  seats: [{ bot }, { bot: 'random' }], ...extra });

test('file-reading bot options need the admin token; the refusal tells nothing of the file', async (t) => {
  const srv = await startAdmin({ tag: 'sec-file' });
  t.after(() => srv.cleanup());
  const c = await Client.connect(srv.url);

  /* `bots` marks the option */
  const bots = await c.request({ type: 'list_bots' }, 'bots');
  const evo = bots.bots.find((b) => b.name === 'evomcts');
  const opt = evo.options.find((o) => o.name === 'eval');
  assert.equal(opt.reads_file, true, JSON.stringify(opt));
  assert.ok(evo.options.filter((o) => o.reads_file).length === 1, 'only eval reads a file');
  for (const b of bots.bots)
    for (const o of b.options)
      if (b.name !== 'evomcts' || o.name !== 'eval')
        assert.equal(o.reads_file, undefined, `${b.name}:${o.name}`);

  const wrong = 'z'.repeat(24);
  const answers = [];
  for (const spec of ['evomcts:eval=/etc/passwd', 'evomcts:eval=/no/such/file', `evomcts:sims=20,eval=${EVAL}`,
    'evomcts:pbf=2,eval=../../../../etc/shadow']) {
    for (const extra of [{}, { admin_token: wrong }]) {
      const r = await create(c, spec, extra);
      assert.ok(isError(r, 'forbidden', r.id), `${spec}: ${JSON.stringify(r)}`);
      if (!extra.admin_token) {
        assert.match(r.message, /option 'eval'/, r.message);
        assert.match(r.message, /admin/, r.message);
        answers.push(r.message.replace(/seat \d+: /, ''));
      }
      assert.doesNotMatch(r.message, /root:|No such file|cannot open|not found|line \d/, r.message);
    }
  }
  assert.equal(new Set(answers).size, 1, 'one answer whatever the file: ' + answers.join(' | '));
  /* in the second seat too */
  const second = await c.request({ type: 'create_match', game: 'reversi',
    seats: [{ bot: 'random' }, { bot: 'evomcts:eval=/etc/passwd' }] });
  assert.ok(isError(second, 'forbidden', second.id) && /seat 1/.test(second.message), JSON.stringify(second));
  const matches = await c.request({ type: 'list_matches' }, 'matches');
  assert.deepEqual(matches.matches, [], 'nothing was created');

  /* a tournament's participants: the same rule */
  const tour = { type: 'create_tournament', format: 'round-robin', game: 'reversi',
    participants: [{ name: 'evo', spec: `evomcts:sims=20,eval=${EVAL}` }, { name: 'rnd', spec: 'random' }] };
  const tr = await c.request(tour);
  assert.ok(isError(tr, 'forbidden', tr.id), JSON.stringify(tr));

  /* the admin may: the evaluation is read, the match is played */
  const ok = await create(c, `evomcts:sims=20,eval=${EVAL}`, { admin_token: srv.adminToken });
  assert.equal(ok.type, 'match_created', JSON.stringify(ok));
  const view = await c.request({ type: 'spectate', match: ok.match }, 'spectating');
  const over = view.result ? { result: view.result } : await c.expect('game_over', 60000 * SLOW);
  assert.equal(over.result.reason, 'normal');
  const missing = await create(c, 'evomcts:eval=/no/such/file', { admin_token: srv.adminToken });
  assert.ok(isError(missing, 'bad_bot_spec', missing.id), JSON.stringify(missing));
  const made = await c.request({ ...tour, admin_token: srv.adminToken });
  assert.equal(made.type, 'tournament_created', JSON.stringify(made));
});

test('program seats without the admin token start nothing', async (t) => {
  const srv = await startAdmin({ tag: 'sec-cmd' });
  t.after(() => srv.cleanup());
  const c = await Client.connect(srv.url);
  const marker = path.join(srv.dir, 'tmp', 'started');
  const specs = [`cmd:/usr/bin/touch ${marker}`, `cmd-stateless:/usr/bin/touch ${marker}`,
    `cmd:python3 ${path.join(ROOT, 'docs', 'examples', 'stdio_bot.py')}`];
  for (const spec of specs) {
    for (const extra of [{}, { admin_token: 'z'.repeat(24) }, { admin_token: '' }]) {
      const r = await create(c, spec, extra);
      assert.ok(r.type === 'error' && (r.code === 'forbidden' || (extra.admin_token === '' && r.code === 'bad_message')),
        `${spec} ${JSON.stringify(extra)}: ${JSON.stringify(r)}`);
    }
    const tr = await c.request({ type: 'create_tournament', format: 'round-robin', game: 'reversi',
      participants: [{ name: 'p', spec }, { name: 'rnd', spec: 'random' }] });
    assert.ok(isError(tr, 'forbidden', tr.id), JSON.stringify(tr));
  }
  await sleep(300);
  assert.equal(srv.events('program_started').length, 0, 'no program was started');
  assert.ok(!fs.existsSync(marker));
  /* the check can see a start: the same request with the token starts one */
  const ok = await create(c, specs[2], { admin_token: srv.adminToken });
  assert.equal(ok.type, 'match_created', JSON.stringify(ok));
  await srv.waitLog((l) => l.event === 'program_started');
});
