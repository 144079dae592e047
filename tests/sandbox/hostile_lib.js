'use strict';
/*
 * hostile_lib.js — the hostile programs of tests/players/bad/hostile.py in
 * the suites that start them through a server (a cmd: seat, a course
 * upload, the container): their folders, and what a spy's findings must
 * say (the same as test_sandbox.c's local test asserts).
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..', '..');
const HOSTILE = path.join(ROOT, 'tests', 'players', 'bad', 'hostile.py');
const POOL_BASE = 1879048192; /* players/limits.h: PLAYER_UID_POOL_BASE */
const POOL_SIZE = 65536;

/* A folder of its own for hostile.py in parent, with its hostile.json. */
function progDir(parent, name, cfg) {
  const dir = path.join(parent, name);
  fs.mkdirSync(dir, { mode: 0o755 });
  fs.chmodSync(dir, 0o755);
  fs.copyFileSync(HOSTILE, path.join(dir, 'hostile.py'));
  fs.chmodSync(path.join(dir, 'hostile.py'), 0o644);
  writeCfg(dir, cfg);
  return dir;
}

function writeCfg(dir, cfg) {
  fs.writeFileSync(path.join(dir, 'hostile.json'), JSON.stringify(cfg));
  fs.chmodSync(path.join(dir, 'hostile.json'), 0o644);
}

/* Host pids whose command line holds marker. */
function withMarker(marker) {
  const found = [];
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid))
      continue;
    try {
      if (fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker))
        found.push(+pid);
    } catch {}
  }
  return found;
}

/* The spy's report from its stderr log. */
function findings(stderr) {
  const m = /FINDINGS (.*)/.exec(stderr || '');
  assert.ok(m, 'no FINDINGS in the spy\'s log: ' + (stderr || '').slice(0, 2000));
  return JSON.parse(m[1]);
}

function allIn(o, what, allowed) {
  for (const [k, v] of Object.entries(o || {}))
    assert.ok(allowed.includes(v), `${what} ${k}: ${v} (want ${allowed.join('|')})`);
}

/*
 * What a spy may find: its own processes only (itself and bubblewrap's
 * init; none holding victimMarker),
 * no pid of another to signal, none of the `read` targets, no writable
 * place but its private folders, no tracing, no socket of the machine,
 * the denied system calls denied; a uid of the pool as root (expectUid
 * otherwise); a clean environment; HOME /home/bot.
 */
function checkFindings(f, { victimMarker, expectUid, pids = [] }) {
  const procs = f.procs;
  assert.ok(Object.keys(procs).length >= 1 && Object.keys(procs).length <= 3, JSON.stringify(procs));
  for (const [pid, cl] of Object.entries(procs)) {
    /* itself, and bubblewrap's init (pid 1) that started it */
    assert.ok(pid === '1' || pid === String(f.self), `the spy sees process ${pid}: ${cl}`);
    if (victimMarker)
      assert.ok(!cl.includes(victimMarker), `the spy sees the victim: ${cl}`);
  }
  for (const pid of f.signalable)
    assert.ok(procs[String(pid)] !== undefined, `the spy can signal pid ${pid}, not its own`);
  /* not there, or covered: a hidden folder is an empty one, a hidden file empty */
  allIn(f.read, 'read', ['ENOENT', 'listed 0', 'read 0']);
  allIn(f.write, 'write', ['ENOENT', 'EROFS', 'EACCES', 'EPERM']);
  allIn(f.tmp, 'tmp', ['written']);
  allIn(f.ptrace, 'ptrace', ['EPERM']);
  allIn(f.vm_read, 'process_vm_readv', ['EPERM']);
  for (const p of pids) {
    assert.equal(f.kill[String(p)], 'ESRCH', `kill(${p}, 0)`);
    assert.ok(['ENOENT', 'EACCES', 'EPERM'].includes(f.mem[String(p)]), `/proc/${p}/mem: ${f.mem[String(p)]}`);
  }
  if (f.net.tcp !== undefined)
    assert.equal(f.net.tcp, 'EACCES');
  if (f.net.abstract !== undefined)
    assert.equal(f.net.abstract, 'ECONNREFUSED');
  allIn(f.syscalls, 'syscall', ['EPERM']);
  if (expectUid === 'pool')
    assert.ok(f.uid >= POOL_BASE && f.uid < POOL_BASE + POOL_SIZE, `uid ${f.uid}`);
  else
    assert.equal(f.uid, expectUid);
  assert.equal(f.cwd, '/home/bot');
  for (const e of f.env)
    assert.ok(['PATH', 'HOME', 'LANG', 'PWD'].includes(e), `environment variable ${e}`);
  for (const d of f.fds)
    assert.ok(+d <= 3, `descriptor ${d}`);
}

/* Files named so in the machine's shared temporary folders. */
function sharedTmp(name) {
  return ['/tmp', '/var/tmp', '/dev/shm'].filter((d) => fs.existsSync(path.join(d, name)));
}

/* Files under dir (recursively) whose name starts with prefix. */
function filesNamed(dir, prefix) {
  const out = [];
  const walk = (d) => {
    let entries = [];
    try {
      entries = fs.readdirSync(d, { withFileTypes: true });
    } catch { return; }
    for (const e of entries) {
      const p = path.join(d, e.name);
      if (e.name.startsWith(prefix))
        out.push(p);
      if (e.isDirectory())
        walk(p);
    }
  };
  walk(dir);
  return out;
}

/* The CPU a burner's children said they used (the last figure of each). */
function childrenSaid(stderr) {
  const last = new Map();
  for (const m of (stderr || '').matchAll(/CHILD (\d+) (\d+)/g))
    last.set(m[1], Math.max(last.get(m[1]) || 0, +m[2]));
  return [...last.values()].reduce((a, b) => a + b, 0);
}

/* The fail-or-skip rule of the suites: a missing part is a failure naming
 * it, or a skip (exit 77) with TESSERA_SKIP_MISSING=1. */
function missing(what) {
  if (process.env.TESSERA_SKIP_MISSING === '1') {
    console.log('SKIPPED: ' + what);
    process.exit(77);
  }
  throw new Error('MISSING: ' + what + ' (TESSERA_SKIP_MISSING=1 skips this test)');
}

module.exports = { ROOT, progDir, writeCfg, withMarker, findings, checkFindings, sharedTmp,
  filesNamed, childrenSaid, missing };
