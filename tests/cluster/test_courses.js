'use strict';
/*
 * test_courses.js — courses on several servers (docs/scaling.md, "The coordinator"):
 * one server holds the courses (their jobs, deadlines, uploads), the others
 * forward course messages to it; when it dies, the server that takes it over
 * takes the courses too, and runs a submission whose folder was on the dead
 * server's disk from the copy of its files in the database.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const lib = require('../server/lib.js');
const { Client, SLOW } = lib;
const { test, startCluster, startOne, stopAll, adminToken } = require('./cluster.js');
const { submitBot, waitFor } = require('../classroom/course_lib.js');

const BOTS = path.join(lib.ROOT, 'tests', 'classroom', 'bots');

test('the courses live on one server; its death moves them, files and all', async (t) => {
  /* a first: it claims the courses; then b */
  const cl = await startCluster(['a'], { tag: 'courses' });
  cl.servers.b = await startOne('b', cl.db, cl.env, {});
  t.after(() => stopAll(cl));
  const { a, b } = cl.servers;
  assert.equal((await a.waitLog((l) => l.event === 'role')).held, true, 'a holds the courses');
  assert.equal((await b.waitLog((l) => l.event === 'role')).held, false, 'b does not');
  const A = adminToken(cl);

  /* everything through b: forwarded to a */
  const admin = await Client.connect(b.url, { name: 'admin' });
  assert.ok(admin.welcome.capabilities.includes('courses'), 'b offers the courses of the cluster');
  const { course } = await admin.request({
    type: 'course_create', admin_token: A, name: 'cluster', game: 'reversi', move_ms: 3000 * SLOW,
    seed: 3, gates: [{ opponent: 'random', games: 2, min_rate: 0 }],
  }, 'course_created');
  const added = await admin.request({ type: 'course_add_students', admin_token: A, course,
    csv: 'id,name\ns1,Sam\n' }, 'course_students_added');
  const tok = added.students[0].token;
  const st = await Client.connect(b.url, { name: 'student' });
  const first = await submitBot(st, tok, [path.join(BOTS, 'greedy.py'), path.join(BOTS, 'reversi_rules.py')]);
  const view1 = await waitFor(st, { type: 'course_view', token: tok },
    (v) => v.submissions && v.submissions.some((s) => s.submission === first.submission && s.state === 'done'),
    120000 * SLOW);
  assert.ok(view1, 'its gate ran (on a)');
  assert.ok(a.events('submission_files').length === 0, 'a wrote the folder itself');

  /* a dies, and its disk with it: b takes the courses over */
  await a.kill9();
  fs.rmSync(path.join(a.dir), { recursive: true, force: true });
  await b.waitLog((l) => l.event === 'role_taken_over' && l.role === 'coordinator', 30000 * SLOW,
    'the courses taken over');
  /* the first submission's code, read on b: made again from the database */
  const st2 = await Client.connect(b.url, { name: 'student2' });
  const code = await st2.request({ type: 'course_code', token: tok, submission: first.submission }, 'course_code');
  const greedy = code.files.find((f) => f.name === 'greedy.py');
  assert.equal(Buffer.from(greedy.data, 'base64').toString(), fs.readFileSync(path.join(BOTS, 'greedy.py'), 'utf8'));
  const made = await b.waitLog((l) => l.event === 'submission_files' && l.submission === first.submission);
  assert.equal(made.files, 2, 'its two files made again from the database');
  /* and a new upload's gate runs on b */
  const second = await submitBot(st2, tok, [path.join(BOTS, 'weak.py'), path.join(BOTS, 'reversi_rules.py')]);
  const view2 = await waitFor(st2, { type: 'course_view', token: tok },
    (v) => v.submissions && v.submissions.some((s) => s.submission === second.submission && s.state === 'done'),
    120000 * SLOW);
  assert.equal(view2.submissions.length, 2);
});
