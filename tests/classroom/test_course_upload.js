'use strict';
/*
 * test_course_upload.js — submissions larger than one protocol message
 * (docs/classroom.md, "Uploads"), and builds on threads of their own
 * ("Builds").
 *
 * 1. Uploads: a Python bot that reads a 300 KB weights file shipped beside
 *    it qualifies through a gate, sent as a zip of its folder in chunks;
 *    the same as two files (the bot inline, the weights uploaded). Each bad
 *    upload is a structured error and keeps nothing: larger than the
 *    course allows, a chunk out of order (resumed from `expected`), a
 *    wrong checksum (the upload gone), another connection's upload, not a
 *    zip, a path out of the folder, a symbolic link, a zip bomb, too many
 *    files; an upload whose connection closed mid-way is kept to be resumed,
 *    and aborted leaves no file behind.
 * 2. Builds: with one build thread and one libuv thread (UV_THREADPOOL_SIZE=1,
 *    the pool the server's in-process bots search on), two Java uploads
 *    at once queue (course_build "waiting" to their senders, `builds` in
 *    course_view), and the moves of a live match of in-process bots keep
 *    coming while they build — counted by the server (server_stats.moves),
 *    sampled while the build pool is busy throughout.
 *
 * Usage: node test_course_upload.js PATH/TO/tessera  (CTest: classroom_upload)
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { Client, startAdmin, sleep } = require('../server/lib');
const { submitBot, uploadFile, waitFor } = require('./course_lib');

const BOTS = path.join(__dirname, 'bots');
const LANGS = path.join(BOTS, 'langs');
const SLOW = process.env.TESSERA_SANITIZED === '1' ? 3 : 1;
const LIMIT = 1 << 20; /* the course's max_upload_bytes */

/* A zip made by Python's zipfile: entries [name, Buffer, unixMode?]. */
function makeZip(file, entries) {
  const spec = entries.map(([n, b, mode]) => [n, b.toString('base64'), mode || 0]);
  execFileSync('python3', ['-c', `
import base64, json, sys, zipfile
spec = json.loads(sys.stdin.read())
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
    for name, data, mode in spec:
        i = zipfile.ZipInfo(name)
        i.compress_type = zipfile.ZIP_DEFLATED
        if mode:
            i.external_attr = mode << 16
        z.writestr(i, base64.b64decode(data))
`, file], { input: JSON.stringify(spec) });
  return fs.readFileSync(file);
}

function refused(r, reason, what) {
  assert.equal(r.type, 'error', `${what}: ${JSON.stringify(r)}`);
  assert.equal(r.reason, reason, `${what}: ${JSON.stringify(r)}`);
  assert.ok(r.message.length > 0);
}

/* Weights whose last 32 bytes are the SHA-256 of the rest (weights_bot.py checks). */
function weights(n) {
  const body = Buffer.alloc(n - 32);
  for (let i = 0; i < body.length; i++)
    body[i] = (i * 131 + 7) & 255;
  return Buffer.concat([body, crypto.createHash('sha256').update(body).digest()]);
}

test('uploads in chunks, zips unpacked safely; builds on their own threads', { timeout: 600000 },
  async (t) => {
    const srv = await startAdmin({ tag: 'course-upload', args: ['--set', 'courses.build_jobs=1'],
      env: { UV_THREADPOOL_SIZE: '1' } });
    t.after(() => srv.cleanup());
    const A = srv.adminToken;
    const admin = await Client.connect(srv.url, { name: 'instructor' });
    /* a limit above the server's ceiling is refused */
    refused(await admin.request({ type: 'course_create', admin_token: A, name: 'x', game: 'reversi',
      max_upload_bytes: 2 ** 40, gates: [{ opponent: 'random', games: 2, min_rate: 0 }] }), 'too_large',
    'a limit above the ceiling');
    const { course, max_upload_bytes: lim } = await admin.request({
      type: 'course_create', admin_token: A, name: 'uploads', game: 'reversi', move_ms: 3000 * SLOW,
      seed: 3, max_upload_bytes: LIMIT, gates: [{ opponent: 'random', games: 2, min_rate: 0 }],
    }, 'course_created');
    assert.equal(lim, LIMIT);
    const added = await admin.request({ type: 'course_add_students', admin_token: A, course,
      csv: 'id,name\nzip,Zed\ntwo,Tia\nbad,Bo\nj1,J1\nj2,J2\n' }, 'course_students_added');
    const tok = Object.fromEntries(added.students.map((s) => [s.student_id, s.token]));
    const tmp = path.join(srv.dir, 'zips');
    fs.mkdirSync(tmp);
    const W = weights(300000);
    const botSrc = fs.readFileSync(path.join(BOTS, 'weights_bot.py'));
    const stagedDir = fs.existsSync(srv.db + '.files') ? path.join(srv.db + '.files', 'uploads')
      : path.join(srv.dir, 'files', 'uploads');
    const staged = () => (fs.existsSync(stagedDir) ? fs.readdirSync(stagedDir) : []);

    /* ---- 1. a zip of the bot's folder, sent in chunks ---- */
    const SUBMIT_MS = 120000 * SLOW;
    const submit = (c, token, extra) => c.request({ type: 'course_submit', token, kind: 'python', ...extra },
      undefined, SUBMIT_MS);
    const zc = await Client.connect(srv.url, { name: 'zip' });
    const zip = makeZip(path.join(tmp, 'bot.zip'), [['mybot/', Buffer.alloc(0), 0o40755],
      ['mybot/weights_bot.py', botSrc], ['mybot/weights.bin', W]]);
    const zid = await uploadFile(zc, tok.zip, 'bot.zip', zip);
    const zs = await submit(zc, tok.zip, { main: 'weights_bot.py', uploads: [zid] });
    assert.equal(zs.type, 'course_submitted', JSON.stringify(zs));
    /* the same as two files: the bot inline, its weights uploaded (in uneven chunks) */
    const tc = await Client.connect(srv.url, { name: 'two' });
    const wid = await uploadFile(tc, tok.two, 'weights.bin', W, 40001);
    const ts = await submit(tc, tok.two, { main: 'weights_bot.py', uploads: [wid],
      files: [{ name: 'weights_bot.py', data: botSrc.toString('base64') }] });
    assert.equal(ts.type, 'course_submitted', JSON.stringify(ts));
    assert.deepEqual(staged(), [], 'a submitted upload leaves no staged file');

    /* ---- the bad ones: each refused, nothing kept ---- */
    const bc = await Client.connect(srv.url, { name: 'bad' });
    const sha = (b) => crypto.createHash('sha256').update(b).digest('hex');
    /* larger than the course allows: refused at begin */
    refused(await bc.request({ type: 'course_upload', op: 'begin', token: tok.bad, name: 'big.bin',
      bytes: LIMIT + 1, sha256: sha(Buffer.alloc(1)) }), 'too_large', 'too large');
    /* a chunk out of order: refused with where to resume, then resumed */
    const data = Buffer.from('0123456789'.repeat(10));
    const b1 = await bc.request({ type: 'course_upload', op: 'begin', token: tok.bad, name: 'w.bin',
      bytes: data.length, sha256: sha(data) });
    assert.equal(b1.type, 'course_upload', JSON.stringify(b1));
    assert.equal(b1.chunk_bytes, 45000);
    const chunk = (up, offset, buf) => bc.request({ type: 'course_upload', op: 'chunk', upload: up, offset,
      data: buf.toString('base64') });
    assert.equal((await chunk(b1.upload, 0, data.subarray(0, 40))).received, 40);
    const skip = await chunk(b1.upload, 80, data.subarray(80));
    refused(skip, 'bad_chunk', 'a chunk out of order');
    assert.equal(skip.expected, 40);
    refused(await chunk(b1.upload, 0, data.subarray(0, 40)), 'bad_chunk', 'a chunk sent twice');
    /* commit before the end: the bytes missing named, the upload kept */
    refused(await bc.request({ type: 'course_upload', op: 'commit', upload: b1.upload }), 'bad_chunk',
      'an early commit');
    assert.equal((await chunk(b1.upload, 40, data.subarray(40))).received, 100);
    /* another connection cannot touch it */
    refused(await zc.request({ type: 'course_upload', op: 'abort', upload: b1.upload }), 'unknown_upload',
      "another connection's upload");
    /* a wrong checksum: refused at commit, and the upload is gone */
    const b2 = await bc.request({ type: 'course_upload', op: 'begin', token: tok.bad, name: 'x.bin',
      bytes: 4, sha256: sha(Buffer.from('abcd')) });
    await chunk(b2.upload, 0, Buffer.from('abce'));
    refused(await bc.request({ type: 'course_upload', op: 'commit', upload: b2.upload }), 'bad_checksum',
      'a wrong checksum');
    refused(await chunk(b2.upload, 4, Buffer.from('x')), 'unknown_upload', 'a refused upload');
    assert.equal(staged().length, 1, 'only w.bin is staged: ' + staged());
    refused(await bc.request({ type: 'course_upload', op: 'abort', upload: b1.upload }).then((r) => {
      assert.equal(r.op, 'abort');
      return bc.request({ type: 'course_upload', op: 'commit', upload: b1.upload });
    }), 'unknown_upload', 'an aborted upload');
    assert.deepEqual(staged(), []);

    /* zips that are not what they should be */
    const cases = [
      ['not a zip', 'bad_zip', /not a zip/, fs.readFileSync(path.join(BOTS, 'greedy.py'))],
      ['path traversal', 'unsafe_path', /\.\.\/evil\.py/, makeZip(path.join(tmp, 't.zip'),
        [['greedy.py', botSrc], ['../evil.py', botSrc]])],
      ['absolute path', 'unsafe_path', /\/tmp\/evil\.py/, makeZip(path.join(tmp, 'a.zip'),
        [['/tmp/evil.py', botSrc]])],
      ['symbolic link', 'unsafe_path', /symbolic link/, makeZip(path.join(tmp, 'l.zip'),
        [['greedy.py', botSrc], ['weights.bin', Buffer.from('/etc/shadow'), 0o120777]])],
      ['zip bomb', 'too_large', /more than the course allows/, makeZip(path.join(tmp, 'b.zip'),
        [['greedy.py', botSrc], ['zeros.bin', Buffer.alloc(32 << 20)]])],
      ['too many files', 'too_many_files', /at most 64 files/, makeZip(path.join(tmp, 'm.zip'),
        Array.from({ length: 70 }, (_, i) => [`m${i}.py`, Buffer.from('x = 1\n')]))],
    ];
    for (const [what, reason, says, bytes] of cases) {
      if (what === 'zip bomb')
        assert.ok(bytes.length < 100000, `the bomb is small: ${bytes.length}`);
      const id = await uploadFile(bc, tok.bad, 'bot.zip', bytes);
      const r = await submit(bc, tok.bad, { main: 'greedy.py', uploads: [id] });
      refused(r, reason, what);
      assert.match(r.message, says, what);
      assert.deepEqual(staged(), [], `${what}: the upload is gone`);
    }
    /* an upload whose connection closes mid-way is kept for its student to resume
     * (test_course_resume.js); aborted from the connection that resumed it, it goes */
    const ac = await Client.connect(srv.url, { name: 'abandon' });
    const b3 = await ac.request({ type: 'course_upload', op: 'begin', token: tok.bad, name: 'w.bin',
      bytes: W.length, sha256: sha(W) });
    await ac.request({ type: 'course_upload', op: 'chunk', upload: b3.upload, offset: 0,
      data: W.subarray(0, 45000).toString('base64') });
    assert.equal(staged().length, 1);
    assert.equal(fs.statSync(path.join(stagedDir, staged()[0])).size, 45000);
    ac.close();
    await sleep(300);
    assert.equal(staged().length, 1, 'kept after its connection closed, to be resumed');
    const ac2 = await Client.connect(srv.url, { name: 'abandon-again' });
    const re = await ac2.request({ type: 'course_upload', op: 'resume', token: tok.bad, upload: b3.upload });
    assert.equal(re.received, 45000, JSON.stringify(re));
    await ac2.request({ type: 'course_upload', op: 'abort', upload: b3.upload }, 'course_upload');
    assert.deepEqual(staged(), [], 'an aborted upload leaves nothing behind');

    /* ---- 2. builds queue on their own threads; live matches move meanwhile ---- */
    const jc = {};
    for (const sid of ['j1', 'j2'])
      jc[sid] = await Client.connect(srv.url, { name: sid });
    const javaFiles = [path.join(LANGS, 'Bot.java'), path.join(LANGS, 'Legal.java')];
    const builds = ['j1', 'j2'].map((sid) => submitBot(jc[sid], tok[sid], javaFiles, false, 'java',
      240000 * SLOW));
    const viewer = await Client.connect(srv.url, { name: 'viewer' });
    const view = () => viewer.request({ type: 'course_view', admin_token: A, course }, 'course_view');
    const moves = async () => (await viewer.request({ type: 'server_stats' }, 'stats')).moves;
    const m = await viewer.request({ type: 'create_match', game: 'reversi',
      seats: [{ bot: 'mcts:ms=40' }, { bot: 'mcts:ms=40' }] });
    assert.equal(m.type, 'match_created', JSON.stringify(m));
    /* sampled every 300 ms: a javac build takes more than that (its JVM's
     * start alone), so some sample falls inside the first build with the
     * second waiting; 1.5 s apart, both builds could be over by the second
     * look on a fast machine, and the pool was never seen busy (CI, 5a6989c) */
    let proved = false, samples = 0, last;
    while (!proved && samples < 200) {
      const v1 = await view();
      const s1 = await moves();
      await sleep(300);
      const s2 = await moves();
      const v2 = await view();
      samples++;
      last = { v1: v1.builds, v2: v2.builds, s1, s2 };
      /* one build thread, a job waiting at v1 and one building at v2: the
       * pool was busy the whole time, and the match moved meanwhile */
      assert.equal(v1.builds.threads, 1);
      if (v1.builds.building === 1 && v1.builds.waiting >= 1 && v2.builds.building === 1)
        proved = s2 > s1;
      if (v1.builds.waiting === 0 && v1.builds.building === 0)
        break;
    }
    assert.ok(proved, 'moves while builds queued: ' + JSON.stringify(last));
    const waited = await Promise.race([jc.j1, jc.j2].map((c) => c.expect('course_build', 240000 * SLOW)));
    assert.equal(waited.state, 'waiting', JSON.stringify(waited));
    assert.ok(waited.ahead >= 0);
    for (const r of await Promise.all(builds))
      assert.equal(r.kind, 'java');

    /* the weights bots qualified through the gate, without a fault */
    const v = await waitFor(admin, { type: 'course_view', admin_token: A, course },
      (w) => w.submissions.length === 4 && w.submissions.every((x) => x.state === 'done'), 300000 * SLOW);
    for (const sid of ['zip', 'two']) {
      const s = v.submissions.find((x) => x.student_id === sid);
      assert.equal(s.gates[0].faults, 0, `${sid}: ${s.verdict}`);
      assert.ok(s.qualified, `${sid}: ${s.verdict}`);
      assert.deepEqual(s.files.map((f) => f.name).sort(), ['weights.bin', 'weights_bot.py']);
      assert.equal(s.files.find((f) => f.name === 'weights.bin').bytes, W.length);
      assert.equal(s.bytes, W.length + botSrc.length, `${sid}: counted unpacked`);
    }
    /* the refused uploads kept nothing: one version each */
    assert.equal(v.submissions.filter((x) => x.student_id === 'bad').length, 0);
    /* the code view lists the weights without sending 300 KB */
    const code = await zc.request({ type: 'course_code', token: tok.zip,
      submission: v.submissions.find((x) => x.student_id === 'zip').submission }, 'course_code');
    const wf = code.files.find((f) => f.name === 'weights.bin');
    assert.equal(wf.data, null);
    assert.equal(wf.bytes, W.length);
    assert.equal(Buffer.from(code.files.find((f) => f.name === 'weights_bot.py').data, 'base64').toString(),
      botSrc.toString());
  });
