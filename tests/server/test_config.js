'use strict';
/*
 * test_config.js — `tessera serve --config FILE` (server/config.c,
 * docs/operations.md "Configuration"):
 *   - every kind of bad config is refused before anything starts: exit 2,
 *     one message naming the file and the line (and, for an unknown key,
 *     the key it probably meant);
 *   - the override order: defaults < the file < flags, and flags in the
 *     order given;
 *   - --print-config writes a file that reads back to the same settings,
 *     and the shipped example (docs/examples/tessera.conf) is valid;
 *   - a config's settings are the ones the running server uses (limits,
 *     the admin token file, the demo).
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { Server, Client, ROOT, binary, tmpDir, createMatch, isError } = require('./lib');

const dir = tmpDir('config');
test.after(() => fs.rmSync(dir, { recursive: true, force: true }));
let n = 0;

/* Write a config file; returns its path. */
function conf(text) {
  const f = path.join(dir, `c${++n}.conf`);
  fs.writeFileSync(f, text);
  return f;
}

function serve(args) {
  return spawnSync(binary(), ['serve', ...args], { encoding: 'utf8', timeout: 15000 });
}

/* The settings --print-config shows, as {"section.key": "value"}. */
function settings(text) {
  const out = {};
  let section = '';
  for (const line of text.split('\n')) {
    const m = /^\[(\w+)\]$/.exec(line);
    if (m)
      section = m[1];
    const kv = /^(\w+) =(?: (.*))?$/.exec(line);
    if (kv)
      out[`${section}.${kv[1]}`] = kv[2] === undefined ? '' : kv[2];
  }
  return out;
}

function printed(args) {
  const r = serve([...args, '--print-config']);
  assert.equal(r.status, 0, `--print-config ${args.join(' ')}: ${r.stderr}`);
  return settings(r.stdout);
}

test('each kind of bad config: exit 2, naming the file and the line', () => {
  const cases = [
    ['[server]\nport = 80x\n', 2, /server\.port must be a whole number, got '80x'/],
    ['[server]\nport = 70000\n', 2, /server\.port must be from 0 to 65535, got 70000/],
    ['# ok\n\n[server]\nprot = 8080\n', 4, /unknown key 'prot' in \[server\] \(did you mean 'port'\?\)/],
    ['[journal]\nport = 1\n', 2, /unknown key 'port' in \[journal\] \(did you mean 'port' in \[server\]\?\)/],
    ['[sever]\nport = 1\n', 1, /unknown section \[sever\]/],
    ['port = 1\n', 1, /'port' is outside any section/],
    ['[server]\nport 8080\n', 2, /expected 'key = value', got 'port 8080'/],
    ['[server]\nport = 1\nhost = x\nport = 2\n', 4, /server\.port is set twice/],
    ['[journal]\ndurable = maybe\n', 2, /journal\.durable must be true or false, got 'maybe'/],
    ['[server]\nlog_level = loud\n', 2, /server\.log_level must be debug, info, warn or error, got 'loud'/],
    ['[create]\nbots = everyone\n', 2, /create\.bots must be auto, anyone or admin/],
    ['[server]\ndemo = "mcts:ms=5\n', 2, /unterminated quoted value/],
    ['[server]\ndemo = "mcts" extra\n', 2, /text after the closing quote/],
    ['[server\nport = 1\n', 1, /'\[' without '\]'/],
    ['[server] junk\n', 1, /text after the section's '\]'/],
    ['[quota]\nexempt = 10.0.0.0/33\n', 2, /quota\.exempt: '10\.0\.0\.0\/33' is not an address/],
    ['[metrics]\nallow = localhost\n', 2, /metrics\.allow: 'localhost' is not an address/],
    ['[server]\nport-number = 1\n', 2, /'port-number' is not a key/],
    ['[server]\nhost = a\x01b\n', 2, /a control character/],
    ['[server]\nport = 1\x00\n', 2, /a NUL byte/],
    ['[journal]\npath =\n', 2, /journal\.path may not be empty/],
    ['[server]\n' + 'x'.repeat(5000) + ' = 1\n', 2, /longer than 4096 characters/],
    ['[server]\nport = 9002 ; x\n', 2, /server\.port must be a whole number, got '9002 ; x'/], // an inline comment is '#'
  ];
  for (const [text, line, why] of cases) {
    const f = conf(text);
    const r = serve(['--config', f, '--port', '0', '--no-web', '--db', path.join(dir, 'never.db')]);
    assert.equal(r.status, 2, `${JSON.stringify(text).slice(0, 60)}: exit ${r.status}, want 2:\n${r.stderr}`);
    const first = r.stderr.split('\n')[0];
    assert.ok(first.startsWith(`tessera serve: ${f}:${line}: `), `names the file and line ${line}: ${first}`);
    assert.match(first, why);
  }
  assert.equal(fs.existsSync(path.join(dir, 'never.db')), false, 'nothing was opened');
  /* a file that cannot be read, and flags the config parser checks */
  const missing = serve(['--config', path.join(dir, 'nope.conf')]);
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /cannot read config file .*nope\.conf: No such file/);
  /* a file over the reader's 1 MiB (a config is a page of settings), and a comment line of ';' */
  const big = serve(['--config', conf('[server]\n' + '# padding\n'.repeat(120000))]);
  assert.equal(big.status, 2);
  assert.match(big.stderr, /config file .* is larger than 1048576 bytes: is it the right file\?/);
  assert.equal(printed(['--config', conf('; a comment\n[server]\nport = 9002\n')])['server.port'], '9002');
  const twice = serve(['--config', conf(''), '--config', conf('')]);
  assert.equal(twice.status, 2);
  assert.match(twice.stderr, /--config is given twice/);
  const badSet = serve(['--set', 'quota.matches=3']);
  assert.equal(badSet.status, 2);
  assert.match(badSet.stderr, /--set: unknown key 'matches' in \[quota\]/);
  const noEq = serve(['--set', 'quota.exempt']);
  assert.equal(noEq.status, 2);
  assert.match(noEq.stderr, /--set takes SECTION\.KEY=VALUE/);
  const badFlag = serve(['--port', 'http']);
  assert.equal(badFlag.status, 2);
  assert.match(badFlag.stderr, /--port: server\.port must be a whole number/);
  /* settings that are each valid but not together */
  const halfTls = serve(['--config', conf('[tls]\ncert = /etc/hostname\n'), '--no-web', '--port', '0']);
  assert.equal(halfTls.status, 2);
  assert.match(halfTls.stderr, /TLS needs both tls\.cert and tls\.key/);
  /* the address a server advertises is handed to clients: a ws:// or wss:// URL only */
  for (const bad of ['http://h:1/', 'ws://h:1/ x', 'ws://"h"/', 'ws://' + 'h'.repeat(200)]) {
    const r = serve(['--advertise', bad, '--no-web', '--port', '0', '--db', path.join(dir, 'never.db')]);
    assert.equal(r.status, 2, `--advertise ${bad.slice(0, 30)}: exit ${r.status}`);
    assert.match(r.stderr, /cluster\.address '.*': a ws:\/\/ or wss:\/\/ URL of at most 200 characters/);
  }
  assert.equal(printed(['--advertise', 'wss://t1.example:8443/?server=t1'])['cluster.address'],
    'wss://t1.example:8443/?server=t1');
});

test('comments, quotes, blank lines and spaces are read as documented', () => {
  const f = conf([
    '  # a comment',
    '; another',
    '',
    '[server]   # the section',
    '   port=9001   ',
    'demo = "random,random # not a comment"',
    'admin_token_file = /var/lib/t#1/token   # a # inside a word is kept',
    '[ quota ]',
    'exempt = 10.0.0.0/8, fd00::/8 192.168.1.7',
    '[journal]',
    'durable = YES',
    'path = "with \\"quotes\\" and \\\\"',
  ].join('\r\n'));
  const s = printed(['--config', f]);
  assert.equal(s['server.port'], '9001');
  assert.equal(s['server.demo'], '"random,random # not a comment"');
  assert.equal(s['server.admin_token_file'], '/var/lib/t#1/token');
  assert.equal(s['quota.exempt'], '10.0.0.0/8, fd00::/8 192.168.1.7');
  assert.equal(s['journal.durable'], 'true');
  /* printed plain: inside a value, quotes and backslashes need no escape */
  assert.equal(s['journal.path'], 'with "quotes" and \\');
});

test('override order: defaults < file < flags, flags in the order given', () => {
  const d = printed(['--no-web']);
  assert.equal(d['server.host'], '127.0.0.1', 'loopback unless told otherwise');
  assert.equal(d['server.port'], '8080');
  assert.equal(d['create.bots'], 'auto');
  assert.equal(d['quota.matches_per_address'], '20');
  assert.equal(d['create.waiting_expiry_s'], '600');
  const f = conf('[server]\nport = 9000\nhost = *\nlog_level = warn\n[limits]\nmax_matches = 7\n' +
    '[quota]\nmatches_per_address = 3\n');
  const fromFile = printed(['--config', f]);
  assert.equal(fromFile['server.port'], '9000');
  assert.equal(fromFile['server.host'], '*');
  assert.equal(fromFile['limits.max_matches'], '7');
  assert.equal(fromFile['server.max_connections'], d['server.max_connections'], 'untouched keys keep their default');
  /* flags win over the file, wherever --config is among them */
  const over = printed(['--port', '9001', '--config', f, '--set', 'quota.matches_per_address=5',
    '--host', '::1', '--log-level', 'debug']);
  assert.equal(over['server.port'], '9001');
  assert.equal(over['server.host'], '::1');
  assert.equal(over['server.log_level'], 'debug');
  assert.equal(over['quota.matches_per_address'], '5');
  assert.equal(over['limits.max_matches'], '7', 'what no flag sets comes from the file');
  /* two flags for one setting: the later one */
  assert.equal(printed(['--port', '1', '--set', 'server.port=2'])['server.port'], '2');
  assert.equal(printed(['--set', 'server.port=2', '--port', '1'])['server.port'], '1');
  assert.equal(printed(['--web', '/srv/www', '--no-web'])['server.web'], 'none');
  assert.equal(printed(['--no-web', '--web', '/srv/www'])['server.web'], '/srv/www');
});

test('--print-config reads back to the same settings; the example config is valid', () => {
  const ex = path.join(ROOT, 'docs', 'examples', 'tessera.conf');
  const first = serve(['--config', ex, '--set', 'server.demo=random', '--set', 'journal.path=a "b" #c', '--print-config']);
  assert.equal(first.status, 0, first.stderr);
  const again = serve(['--config', conf(first.stdout), '--print-config']);
  assert.equal(again.status, 0, again.stderr);
  assert.equal(again.stdout, first.stdout);
  const s = settings(first.stdout);
  assert.equal(s['server.host'], '0.0.0.0');
  assert.equal(s['tls.cert'], '/etc/tessera/fullchain.pem');
  assert.equal(s['journal.path'], '"a \\"b\\" #c"');
  /* every setting is printed with its help line */
  const keys = Object.keys(s);
  assert.ok(keys.length >= 28, `${keys.length} settings`);
  for (const k of keys)
    assert.ok(first.stdout.includes(`# `) && new RegExp(`# .*\\n${k.split('.')[1]} =`).test(first.stdout), k);
});

test('a config file sets what the server does', async (t) => {
  const tokenFile = path.join(dir, 'admin.token');
  const f = conf([
    '[server]',
    `admin_token_file = ${tokenFile}`,
    'log_level = info',
    '[limits]',
    'max_matches = 2',
    'messages_per_second = 7',
    'burst = 9',
    '[quota]',
    'matches_per_address = 0',
    '[create]',
    'waiting_expiry_s = 123',
  ].join('\n'));
  const srv = await Server.start({ tag: 'cfgrun', args: ['--config', f] });
  t.after(() => srv.cleanup());
  assert.match(fs.readFileSync(tokenFile, 'utf8'), /^[a-z2-9]{24}\n$/, 'the admin token file was written');
  assert.equal((fs.statSync(tokenFile).mode & 0o777).toString(8), '600');
  const c = await Client.connect(srv.url, { name: 'cfg' });
  assert.equal(c.welcome.limits.messages_per_second, 7);
  assert.equal(c.welcome.limits.burst, 9);
  assert.equal(c.welcome.create.waiting_expiry_s, 123);
  await createMatch(c, [{ bot: 'random' }, { open: true }]);
  await createMatch(c, [{ bot: 'random' }, { open: true }]);
  const third = await c.request({ type: 'create_match', game: 'carcassonne', seats: [{ open: true }, { open: true }], id: 'x' });
  assert.ok(isError(third, 'too_many', 'x'), JSON.stringify(third));
  assert.match(third.message, /maximum of 2 matches/);
});
