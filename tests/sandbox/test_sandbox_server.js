'use strict';
/*
 * test_sandbox_server.js — hostile programs started by a server, the two
 * ways a server starts them: a `cmd:` seat (the admin's) and a course
 * upload (a student's), with the server run as root or as a user that is
 * not root (the same isolation asserted both ways):
 *   - a spy and a victim in one match, and in one course final: the spy
 *     sees only its own processes, cannot name, trace or read the victim
 *     or the server, finds none of the journal (tessera.db, its -wal), the
 *     admin token file, the data folder or the victim's folder, writes
 *     nowhere but its private folders, reaches no socket of the machine;
 *     the victim's memory and files are intact at every turn; nothing the
 *     programs wrote is left in /tmp, /var/tmp, /dev/shm or the data folder;
 *   - a program whose busy children think for it loses on time, charged
 *     their CPU;
 *   - (not root) without a cgroup of its own the server refuses program
 *     seats, naming what is missing, and tells every client; with
 *     `[sandbox] isolation = partial` it runs them and says so.
 *
 * Usage: node test_sandbox_server.js PATH/TO/tessera root|nonroot|container
 * (CTest: sandbox_server_root, sandbox_server_nonroot, and the container
 * suite docker_sandbox, label slow). Not root: the server runs as
 * nobody in a cgroup given to it (scripts/delegate-cgroup.sh), which needs
 * this test to run as root; when it cannot, the test fails naming why (77
 * with TESSERA_SKIP_MISSING=1). Container: the image $TESSERA_IMAGE run
 * with podman ($TESSERA_PODMAN) as docker/compose.yaml runs it
 * (--cap-add SYS_ADMIN), the programs' folders mounted at the same path;
 * and, without the capability, failing closed.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { execFileSync, spawnSync } = require('node:child_process');
const { Client, startAdmin } = require('../server/lib');
const { submitBot, waitFor } = require('../classroom/course_lib');
const H = require('./hostile_lib');

const SLOW = process.env.TESSERA_SANITIZED === '1' ? 3 : 1;
const BIN = process.argv[2] || process.env.TESSERA_BIN;
const MODE = process.argv[3] || 'root';
const NOBODY = 65534;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

if (process.getuid() !== 0)
  H.missing('this suite starts the server as root, or as nobody in a delegated cgroup: run it as root');

/* A folder for a server run: its own, and nobody's when the server runs
 * as nobody. */
function serverDir(tag) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `tessera-sbx-${tag}-`));
  fs.mkdirSync(path.join(dir, 'tmp'));
  fs.chmodSync(dir, 0o711);
  if (MODE === 'nonroot') {
    fs.chownSync(dir, NOBODY, NOBODY);
    fs.chownSync(path.join(dir, 'tmp'), NOBODY, NOBODY);
  }
  return dir;
}

/* The command that starts the server: itself as root; as nobody in a
 * cgroup of its own otherwise (or without one: `delegate` false). */
function serverBin(dir, delegate = true) {
  if (MODE === 'root')
    return BIN;
  try {
    execFileSync('setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', 'test', '-x', BIN]);
  } catch {
    H.missing(`nobody cannot run ${BIN}: the build folder and the folders above it must be readable by all`);
  }
  const wrapper = path.join(dir, delegate ? 'serve-delegated.sh' : 'serve-nobody.sh');
  const run = delegate
    ? `exec ${path.join(H.ROOT, 'scripts', 'delegate-cgroup.sh')} ${NOBODY} -- ${BIN} "$@"`
    : `exec setpriv --reuid=${NOBODY} --regid=${NOBODY} --clear-groups ${BIN} "$@"`;
  fs.writeFileSync(wrapper, `#!/bin/sh\n${run}\n`, { mode: 0o755 });
  return wrapper;
}

/*
 * A running server, however it was started: url, adminToken; db, tokenFile,
 * dataDir as the server sees them; progs, a folder of the test's that the
 * server sees at the same path (for cmd: programs); uid, what its programs
 * run as ('pool' as root); pids(), its own pids on this machine; left(name),
 * files so named left in its /tmp, /var/tmp, /dev/shm (and this machine's);
 * dataFiles(prefix), files so named in its data folder; events(name), its
 * log lines of that event (not in a container); stop().
 */
async function startLocal(tag, opts) {
  const dir = serverDir(tag);
  const srv = await startAdmin({ tag, dir, bin: serverBin(dir, opts.delegate !== false),
    args: opts.args || [] });
  const progs = fs.mkdtempSync(path.join(dir, 'progs-'));
  fs.chmodSync(progs, 0o755);
  return {
    url: srv.url, adminToken: srv.adminToken, db: srv.db, tokenFile: srv.tokenFile, dataDir: dir,
    progs, uid: MODE === 'root' ? 'pool' : NOBODY,
    pids: () => H.withMarker(srv.portFile),
    left: (name) => H.sharedTmp(name),
    dataFiles: (prefix) => H.filesNamed(dir, prefix),
    events: (name) => srv.events(name),
    stop: async () => {
      await srv.cleanup();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

const PODMAN = (process.env.TESSERA_PODMAN || 'podman --runtime runc').split(' ');
function podman(...args) {
  return execFileSync(PODMAN[0], [...PODMAN.slice(1), ...args], { encoding: 'utf8' }).trim();
}

async function startContainer(tag, opts) {
  const image = process.env.TESSERA_IMAGE || 'localhost/tessera:latest';
  const name = `tessera-sbx-${tag}-${process.pid}`;
  const progs = fs.mkdtempSync(path.join(os.tmpdir(), `tessera-sbx-${tag}-progs-`));
  fs.chmodSync(progs, 0o755);
  const caps = opts.delegate === false ? [] : ['--cap-add', 'SYS_ADMIN'];
  podman('run', '-d', '--name', name, ...caps, '--ulimit', 'nofile=1024:1024', '--ulimit',
    'nproc=1000:1000', '-p', '127.0.0.1::8080', '-v', `${name}:/var/lib/tessera`, '-v',
    `${progs}:${progs}:ro`, image, 'serve', '--config', '/etc/tessera/tessera.conf',
    ...(opts.args || []));
  const stop = async () => {
    try { podman('rm', '-f', '-t', '5', name); } catch {}
    try { podman('volume', 'rm', '-f', name); } catch {}
    fs.rmSync(progs, { recursive: true, force: true });
  };
  try {
    let port = '', token = '';
    for (let i = 0; i < 300 && !token; i++) {
      await sleep(200);
      try {
        port = podman('port', name, '8080/tcp').replace(/.*:/, '');
        token = podman('exec', name, 'cat', '/var/lib/tessera/admin-token');
      } catch {}
    }
    assert.ok(token, 'the container wrote its admin token');
    const url = `ws://127.0.0.1:${port}/`;
    for (let i = 0; i < 100; i++) {
      try {
        (await Client.connect(url, { name: 'probe' })).close?.();
        break;
      } catch { await sleep(200); }
    }
    const uid = +podman('exec', name, 'id', '-u', 'tessera');
    const inside = (cmd) => podman('exec', name, 'sh', '-c', cmd);
    return {
      url, adminToken: token, db: '/var/lib/tessera/tessera.db',
      tokenFile: '/var/lib/tessera/admin-token', dataDir: '/var/lib/tessera', progs, uid,
      logs: () => { /* the container's stderr comes out on podman's */
        const r = spawnSync(PODMAN[0], [...PODMAN.slice(1), 'logs', name], { encoding: 'utf8' });
        return r.stdout + r.stderr;
      },
      pids: () => [+podman('inspect', '--format', '{{.State.Pid}}', name),
        ...H.withMarker('/etc/tessera/tessera.conf')],
      left: (n) => [...H.sharedTmp(n), ...inside(`ls -a /tmp /var/tmp /dev/shm`).split(/\s+/)
        .filter((f) => f === n)],
      dataFiles: (prefix) => inside(`find /var/lib/tessera -name '${prefix}*'`).split('\n')
        .filter(Boolean),
      events: () => [],
      stop,
    };
  } catch (e) {
    await stop();
    throw e;
  }
}

function start(tag, opts = {}) {
  return MODE === 'container' ? startContainer(tag, opts) : startLocal(tag, opts);
}

test(`${MODE}: a spy and a victim in cmd: seats of one match`, { timeout: 300000 * SLOW }, async (t) => {
  const srv = await start('cmd');
  t.after(() => srv.stop());
  const host = await Client.connect(srv.url, { name: 'host' });
  assert.equal(host.welcome.sandbox, 'full', 'the server isolates its programs fully');
  const progs = srv.progs;
  const vm = `tessera-sbx-victim-${process.pid}`, sm = `tessera-sbx-spy-${process.pid}`;
  const vdir = H.progDir(progs, 'victim', { mode: 'victim', marker: vm, delay_ms: 3000 * SLOW });
  const sdir = H.progDir(progs, 'spy', { mode: 'spy', marker: sm });
  /* a TCP port and an abstract socket of the machine */
  let reached = 0;
  const tcp = net.createServer(() => reached++).listen(0, '127.0.0.1');
  const ab = net.createServer(() => reached++).listen('\0' + sm);
  t.after(() => { tcp.close(); ab.close(); });
  await new Promise((r) => tcp.once('listening', r));

  const m = await host.request({ type: 'create_match', game: 'reversi', admin_token: srv.adminToken,
    seats: [{ bot: `cmd:python3 ${vdir}/hostile.py victim ${vm}`, name: 'victim' },
      { bot: `cmd:python3 ${sdir}/hostile.py spy ${sm}`, name: 'spy' }],
    time_control: { move_ms: 30000 * SLOW } }, 'match_created');
  /* the victim runs (its first turn waits): its pids, the server's, are the spy's targets */
  let vpids = [];
  for (let i = 0; i < 200 && (vpids = H.withMarker(vm)).length < 2; i++)
    await sleep(20);
  assert.ok(vpids.length >= 2, 'the victim runs');
  const pids = [...vpids, ...srv.pids()];
  H.writeCfg(sdir, { mode: 'spy', marker: sm, pids, port: tcp.address().port, abstract: sm,
    read: [srv.db, srv.db + '-wal', srv.tokenFile, srv.dataDir, vdir, path.join(vdir, 'hostile.json'),
      '/etc/tessera'],
    write: [srv.dataDir, vdir, progs] });
  const view = await host.request({ type: 'spectate', match: m.match }, 'spectating');
  const over = view.result ? { result: view.result } : await host.expect('game_over', 240000 * SLOW);
  assert.equal(over.result.reason, 'normal', JSON.stringify(over.result));
  let rec;
  for (const end = Date.now() + 10000 * SLOW; ;) {
    rec = await host.request({ type: 'get_record', match: m.match, admin_token: srv.adminToken }, 'record');
    if (rec.programs.every((p) => p.complete) || Date.now() > end)
      break;
    await sleep(100);
  }
  const victim = rec.programs.find((p) => p.seat === 0), spy = rec.programs.find((p) => p.seat === 1);
  const f = H.findings(spy.stderr);
  t.diagnostic('spy: ' + JSON.stringify(f).slice(0, 1500));
  H.checkFindings(f, { victimMarker: vm, expectUid: srv.uid, pids });
  assert.match(victim.stderr, /VICTIM intact turn 2/);
  assert.doesNotMatch(victim.stderr, /TAMPERED/);
  assert.equal(reached, 0, 'no socket of the machine was reached');
  assert.deepEqual(srv.left('hostile-' + sm), []);
  assert.deepEqual(srv.left('secret-' + vm), []);
  assert.deepEqual(srv.dataFiles('hostile-'), [], 'nothing written in the data folder');
  for (let i = 0; i < 50 && (H.withMarker(sm).length || H.withMarker(vm).length); i++)
    await sleep(100);
  assert.deepEqual([...H.withMarker(sm), ...H.withMarker(vm)], [], 'nothing outlives the match');
});

test(`${MODE}: busy children think for a cmd: seat: charged, and it loses on time`, { timeout: 120000 * SLOW }, async (t) => {
  const srv = await start('burn');
  t.after(() => srv.stop());
  const host = await Client.connect(srv.url, { name: 'host' });
  const progs = srv.progs;
  const bm = `tessera-sbx-burner-${process.pid}`;
  const bdir = H.progDir(progs, 'burner', { mode: 'burner', marker: bm, children: 3, hold: 'sleep' });
  const m = await host.request({ type: 'create_match', game: 'reversi', admin_token: srv.adminToken,
    seats: [{ bot: `cmd:python3 ${bdir}/hostile.py burner ${bm}`, name: 'burner' }, { bot: 'random' }],
    time_control: { move_ms: 2000 * SLOW } }, 'match_created');
  const view = await host.request({ type: 'spectate', match: m.match }, 'spectating');
  const over = view.result ? { result: view.result } : await host.expect('game_over', 60000 * SLOW);
  assert.equal(over.result.reason, 'timeout', JSON.stringify(over.result));
  let rec;
  for (const end = Date.now() + 10000 * SLOW; ;) {
    rec = await host.request({ type: 'get_record', match: m.match, admin_token: srv.adminToken }, 'record');
    if (rec.programs[0].complete || Date.now() > end)
      break;
    await sleep(100);
  }
  const log = rec.programs[0];
  assert.equal(log.verdicts[0].verdict, 'time_limit', JSON.stringify(log.verdicts));
  /* the wall clock ran out first ("no move within W ms (CPU C ms)"), or, on
   * a fast idle machine, the CPU the children burn did ("used C ms of CPU") */
  const m2 = /\(CPU (\d+) ms\)|used (\d+) ms of CPU/.exec(log.verdicts[0].detail);
  assert.ok(m2, 'the verdict names the CPU charged: ' + log.verdicts[0].detail);
  const cpu = +(m2[1] || m2[2]);
  const said = H.childrenSaid(log.stderr);
  t.diagnostic(`${log.verdicts[0].detail}; the children said ${said} ms`);
  assert.ok(said >= 10, 'the children ran');
  assert.ok(cpu >= said - 10, `charged ${cpu} ms; the children alone used ${said} ms`);
  for (let i = 0; i < 50 && H.withMarker(bm).length; i++)
    await sleep(100);
  assert.deepEqual(H.withMarker(bm), []);
});

test(`${MODE}: a spy and a victim uploaded to a course, in its gates and its final`, { timeout: 600000 * SLOW }, async (t) => {
  const srv = await start('course');
  t.after(() => srv.stop());
  const A = srv.adminToken;
  const admin = await Client.connect(srv.url, { name: 'instructor' });
  const { course } = await admin.request({ type: 'course_create', admin_token: A, name: 'hostile',
    game: 'reversi', move_ms: 20000 * SLOW, seed: 3,
    gates: [{ opponent: 'random', games: 2, min_rate: 0 }] }, 'course_created');
  const added = await admin.request({ type: 'course_add_students', admin_token: A, course,
    csv: 'id,name\ns1,Spy\nv2,Victim\n' }, 'course_students_added');
  const tok = Object.fromEntries(added.students.map((s) => [s.student_id, s.token]));
  const up = fs.mkdtempSync(path.join(os.tmpdir(), 'tessera-sbx-upload-'));
  t.after(() => fs.rmSync(up, { recursive: true, force: true }));
  const sm = `tessera-sbx-cspy-${process.pid}`, vm = `tessera-sbx-cvictim-${process.pid}`;
  const files = srv.db + '.files';
  const sdir = H.progDir(up, 'spy', { mode: 'spy', marker: sm,
    read: [srv.db, srv.db + '-wal', srv.tokenFile, srv.dataDir, files,
      path.join(files, `course-${course}`), '/etc/tessera'],
    write: [srv.dataDir, files] });
  const vdir = H.progDir(up, 'victim', { mode: 'victim', marker: vm });
  const spyC = await Client.connect(srv.url, { name: 's1' });
  const vicC = await Client.connect(srv.url, { name: 'v2' });
  await submitBot(vicC, tok.v2, [path.join(vdir, 'hostile.py'), path.join(vdir, 'hostile.json')]);
  await submitBot(spyC, tok.s1, [path.join(sdir, 'hostile.py'), path.join(sdir, 'hostile.json')]);
  const v = await waitFor(admin, { type: 'course_view', admin_token: A, course },
    (w) => w.submissions.length === 2 && w.submissions.every((s) => s.state === 'done'), 300000 * SLOW);
  for (const s of v.submissions)
    assert.ok(s.qualified, JSON.stringify(s));
  /* the gates: the spy against the server's bot */
  const spySub = v.submissions.find((s) => s.student_id === 's1');
  const g = await admin.request({ type: 'course_game', admin_token: A, game: spySub.gates[0].game_ids[0] },
    'course_game');
  H.checkFindings(H.findings(g.stderr.find((e) => e && e.includes('FINDINGS'))),
    { victimMarker: vm, expectUid: srv.uid });
  /* the final: the two of them, in the same games */
  await admin.request({ type: 'course_set_deadline', admin_token: A, course, deadline_ms: 0 }, 'course_deadline');
  await admin.request({ type: 'course_start_final', admin_token: A, course, games_per_pair: 2 },
    'course_final_started');
  const fin = await waitFor(admin, { type: 'course_view', admin_token: A, course },
    (w) => w.course.final_state === 'done', 300000 * SLOW);
  assert.ok(fin.final_games.length >= 2);
  for (const fg of fin.final_games) {
    const one = await admin.request({ type: 'course_game', admin_token: A, game: fg.game }, 'course_game');
    const spyLog = one.stderr.find((e) => e && e.includes('FINDINGS'));
    const vicLog = one.stderr.find((e) => e && e.includes('VICTIM'));
    assert.ok(spyLog && vicLog, JSON.stringify(one.stderr).slice(0, 1000));
    const f = H.findings(spyLog);
    H.checkFindings(f, { victimMarker: vm, expectUid: srv.uid });
    for (const cl of Object.values(f.procs))
      assert.doesNotMatch(cl, /course-|student-|\.files/, 'no secret folder name in its argv');
    assert.match(vicLog, /VICTIM intact turn 2/);
    assert.doesNotMatch(vicLog, /TAMPERED/);
  }
  assert.deepEqual(srv.left('hostile-' + sm), []);
  assert.deepEqual(srv.left('secret-' + vm), []);
  assert.deepEqual(srv.dataFiles('hostile-'), [], 'nothing written in the data folder');
});

if (MODE !== 'root')
  test(`${MODE}: without ${MODE === 'container' ? 'CAP_SYS_ADMIN' : 'a cgroup of its own'}, ` +
    'program seats are refused and everyone is told; opted out, they run',
  { timeout: 120000 * SLOW }, async (t) => {
    const srv = await start('nocg', { delegate: false });
    let stopped = false;
    t.after(() => (stopped ? null : srv.stop()));
    const host = await Client.connect(srv.url, { name: 'host' });
    assert.equal(host.welcome.sandbox, 'unavailable');
    const py = MODE === 'container' ? `cmd:${path.join(srv.progs, 'bot.py')}`
      : `cmd:python3 ${path.join(H.ROOT, 'docs/examples/stdio_bot.py')}`;
    if (MODE === 'container') {
      fs.copyFileSync(path.join(H.ROOT, 'docs/examples/stdio_bot.py'), path.join(srv.progs, 'bot.py'));
      fs.chmodSync(path.join(srv.progs, 'bot.py'), 0o755);
    }
    const r = await host.request({ type: 'create_match', game: 'reversi', admin_token: srv.adminToken,
      seats: [{ bot: py }, { bot: 'random' }] });
    assert.equal(r.code, 'bad_bot_spec', JSON.stringify(r));
    assert.match(r.message, MODE === 'container'
      ? /refused here: .*(no fresh \/proc|no cgroup it may write).*isolation = partial/
      : /refused here: no cgroup it may write.*Delegate=yes.*isolation = partial/, r.message);
    if (MODE === 'container')
      assert.match(srv.logs(), /start it with --cap-add SYS_ADMIN/, 'the entrypoint says what it needs');
    else
      assert.equal(srv.events('sandbox')[0].isolation, 'unavailable');
    stopped = true;
    await srv.stop();

    const opt = await start('nocg-partial', { delegate: false,
      args: ['--set', 'sandbox.isolation=partial'] });
    t.after(() => opt.stop());
    if (MODE === 'container') {
      fs.copyFileSync(path.join(H.ROOT, 'docs/examples/stdio_bot.py'), path.join(opt.progs, 'bot.py'));
      fs.chmodSync(path.join(opt.progs, 'bot.py'), 0o755);
    }
    const py2 = MODE === 'container' ? `cmd:${path.join(opt.progs, 'bot.py')}` : py;
    const c = await Client.connect(opt.url, { name: 'host' });
    assert.equal(c.welcome.sandbox, 'partial', 'every client is told');
    const m = await c.request({ type: 'create_match', game: 'reversi', admin_token: opt.adminToken,
      seats: [{ bot: py2 }, { bot: 'random' }], time_control: { move_ms: 10000 * SLOW } }, 'match_created');
    const view = await c.request({ type: 'spectate', match: m.match }, 'spectating');
    const over = view.result ? { result: view.result } : await c.expect('game_over', 60000 * SLOW);
    assert.equal(over.result.reason, 'normal', JSON.stringify(over.result));
  });
