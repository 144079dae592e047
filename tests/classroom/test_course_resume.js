'use strict';
/*
 * test_course_resume.js — an upload outlives its connection, and the
 * largest submission is a setting the instructor changes (issue 25,
 * docs/classroom.md "Uploads").
 *
 * 1. A student begins a 200 KB upload, sends two chunks and drops the
 *    connection (a reload, a lost network). From a new connection the id is
 *    unknown until it is resumed with the student's token; another
 *    student's token cannot take it; the resume says how many bytes the
 *    server has; the rest is sent from there, committed, and submitted with
 *    the bot: the stored file is the whole file, byte for byte (its
 *    SHA-256 checked at commit, and the bot reads it in its gate).
 * 2. max_upload_bytes changed after creation: a course made at the
 *    minimum (40,000 bytes) refuses that upload at begin (too_large);
 *    raised with course_settings (checked against the server's ceiling)
 *    the same begin is taken; lowered again, a submission past it is
 *    refused at submit.
 *
 * Usage: node test_course_resume.js PATH/TO/tessera  (CTest: classroom_resume)
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { Client, startAdmin, sleep } = require('../server/lib');
const { waitFor } = require('./course_lib');

const SLOW = process.env.TESSERA_SANITIZED === '1' ? 3 : 1;
const BOTS = path.join(__dirname, 'bots');
const sha = (b) => crypto.createHash('sha256').update(b).digest('hex');

/* Weights whose last 32 bytes are the SHA-256 of the rest: weights_bot.py exits (a fault in
 * every game) unless the file is whole. */
function weights(n) {
  const b = Buffer.alloc(n - 32);
  for (let i = 0; i < b.length; i++)
    b[i] = (i * 131 + 7) & 255;
  return Buffer.concat([b, crypto.createHash('sha256').update(b).digest()]);
}

test('an upload resumed from another connection; max_upload_bytes changed', { timeout: 240000 * SLOW }, async (t) => {
  const srv = await startAdmin({ tag: 'resume' });
  t.after(() => srv.cleanup());
  const A = srv.adminToken;
  const admin = await Client.connect(srv.url, { name: 'instructor' });
  const created = await admin.request({ type: 'course_create', admin_token: A, name: 'resume', game: 'reversi',
    move_ms: 5000 * SLOW, seed: 5, max_upload_bytes: 40000,
    gates: [{ opponent: 'random', games: 2, min_rate: 0 }] }, 'course_created');
  const course = created.course;
  assert.equal(created.max_upload_bytes, 40000);
  const added = await admin.request({ type: 'course_add_students', admin_token: A, course,
    csv: 'name,id\nAda,s1\nBo,s2\n' }, 'course_students_added');
  const tok = Object.fromEntries(added.students.map((s) => [s.student_id, s.token]));
  const W = weights(200000);
  const begin = { type: 'course_upload', op: 'begin', token: tok.s1, name: 'weights.bin', bytes: W.length, sha256: sha(W) };

  /* 2a. too large for the course as made */
  const c1 = await Client.connect(srv.url, { name: 's1' });
  let r = await c1.request(begin);
  assert.equal(r.reason, 'too_large', JSON.stringify(r));
  /* raised: checked against the server's ceiling, then taken */
  r = await admin.request({ type: 'course_settings', admin_token: A, course, max_upload_bytes: 1 << 40 });
  assert.equal(r.reason, 'too_large', JSON.stringify(r));
  r = await admin.request({ type: 'course_settings', admin_token: A, course, max_upload_bytes: 1 << 20 }, 'course_settings');
  assert.equal(r.max_upload_bytes, 1 << 20);
  const b = await c1.request(begin, 'course_upload');

  /* 1. two chunks, then the connection drops */
  const step = b.chunk_bytes;
  for (let off = 0; off < 2 * step; off += step)
    await c1.request({ type: 'course_upload', op: 'chunk', upload: b.upload, offset: off,
      data: W.subarray(off, off + step).toString('base64') }, 'course_upload');
  c1.close();
  await sleep(300);

  const c2 = await Client.connect(srv.url, { name: 's1-again' });
  r = await c2.request({ type: 'course_upload', op: 'chunk', upload: b.upload, offset: 2 * step, data: '' });
  assert.equal(r.reason, 'unknown_upload', 'not this connection\'s until resumed: ' + JSON.stringify(r));
  const other = await Client.connect(srv.url, { name: 's2' });
  r = await other.request({ type: 'course_upload', op: 'resume', token: tok.s2, upload: b.upload });
  assert.equal(r.reason, 'unknown_upload', 'another student cannot take it: ' + JSON.stringify(r));
  r = await c2.request({ type: 'course_upload', op: 'resume', token: tok.s1, upload: b.upload }, 'course_upload');
  assert.equal(r.received, 2 * step, 'the server says what it has');
  assert.equal(r.name, 'weights.bin');
  assert.equal(r.committed, false);
  for (let off = r.received; off < W.length; off += step) {
    const k = await c2.request({ type: 'course_upload', op: 'chunk', upload: b.upload, offset: off,
      data: W.subarray(off, off + step).toString('base64') }, 'course_upload');
    assert.equal(k.received, Math.min(W.length, off + step));
  }
  const m = await c2.request({ type: 'course_upload', op: 'commit', upload: b.upload }, 'course_upload');
  assert.equal(m.sha256, sha(W), 'the whole file, byte for byte');

  /* 2b. lowered again below what is sent: refused at submit, nothing kept */
  await admin.request({ type: 'course_settings', admin_token: A, course, max_upload_bytes: 100000 }, 'course_settings');
  const bot = fs.readFileSync(path.join(BOTS, 'weights_bot.py'));
  r = await c2.request({ type: 'course_submit', token: tok.s1, kind: 'python', main: 'weights_bot.py',
    files: [{ name: 'weights_bot.py', data: bot.toString('base64') }], uploads: [b.upload] }, undefined, 60000 * SLOW);
  assert.equal(r.reason, 'too_large', JSON.stringify(r));

  /* the same again under the raised limit: the bot reads its weights in its gate */
  await admin.request({ type: 'course_settings', admin_token: A, course, max_upload_bytes: 1 << 20 }, 'course_settings');
  const b2 = await c2.request(begin, 'course_upload');
  for (let off = 0; off < W.length; off += step)
    await c2.request({ type: 'course_upload', op: 'chunk', upload: b2.upload, offset: off,
      data: W.subarray(off, off + step).toString('base64') }, 'course_upload');
  await c2.request({ type: 'course_upload', op: 'commit', upload: b2.upload }, 'course_upload');
  r = await c2.request({ type: 'course_submit', token: tok.s1, kind: 'python', main: 'weights_bot.py',
    files: [{ name: 'weights_bot.py', data: bot.toString('base64') }], uploads: [b2.upload] }, undefined, 60000 * SLOW);
  assert.equal(r.type, 'course_submitted', JSON.stringify(r));
  const view = await waitFor(admin, { type: 'course_view', admin_token: A, course },
    (v) => v.submissions.length === 1 && v.submissions[0].state === 'done', 120000 * SLOW);
  const s = view.submissions[0];
  assert.equal(s.gates[0].faults, 0, JSON.stringify(s.gates[0]));
  assert.deepEqual(s.files.map((f) => [f.name, f.bytes]).sort(), [['weights.bin', W.length], ['weights_bot.py', bot.length]]);
});
