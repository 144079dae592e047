'use strict';
/*
 * test_course_final.js — a course's round-robin final played by every
 * server of a cluster (classroom/finals.c; docs/classroom.md, "Throughput"):
 * its pairs are rows every server claims as its workers free up, and a
 * server killed in the middle of a pair loses nothing — its claim lapses,
 * the other server plays that pair again, and the standings, computed by
 * the server that stores the last pair, count every game once. What each
 * server played is read from its own log.
 */
const assert = require('node:assert/strict');
const path = require('node:path');
const lib = require('../server/lib.js');
const { Client, SLOW } = lib;
const { test, startCluster, startOne, stopAll, adminToken } = require('./cluster.js');
const { submitBot, waitFor, csvRows } = require('../classroom/course_lib.js');

const BOTS = path.join(lib.ROOT, 'tests', 'classroom', 'bots');
/* 21 pairs: the final must outlast b's first claims (b claims on its second's
 * tick, then again as each of its pairs is stored): with ten pairs a's two
 * workers could claim the last before b's first pair was stored, and b never
 * held a third (seen at load 3-6) */
const N = 7;

function logsOf(s) {
  return (s.previousLogs || []).concat(s.logs || []);
}

test('a final is played on every server; one killed mid-pair loses nothing', async (t) => {
  const args = ['--set', 'courses.gate_jobs=2'];
  const cl = await startCluster(['a'], { tag: 'course-final', args });
  cl.servers.b = await startOne('b', cl.db, cl.env, { args });
  t.after(() => stopAll(cl));
  const { a, b } = cl.servers;
  assert.equal((await a.waitLog((l) => l.event === 'role')).held, true, 'a holds the courses');
  const A = adminToken(cl);
  const admin = await Client.connect(a.url, { name: 'admin' });
  const { course } = await admin.request({
    type: 'course_create', admin_token: A, name: 'final', game: 'reversi', move_ms: 3000 * SLOW,
    seed: 9, final_games: 2, gates: [{ opponent: 'random', games: 2, min_rate: 0 }],
  }, 'course_created');
  const csv = 'id,name\n' + Array.from({ length: N }, (_, i) => `f${i + 1},F${i + 1}`).join('\n') + '\n';
  const added = await admin.request({ type: 'course_add_students', admin_token: A, course, csv },
    'course_students_added');
  const st = await Client.connect(b.url, { name: 'students' });
  for (const s of added.students)
    await submitBot(st, s.token, [path.join(BOTS, 'first.py')]);
  await waitFor(admin, { type: 'course_view', admin_token: A, course },
    (x) => x.submissions.length === N && x.submissions.every((s) => s.state === 'done'), 120000 * SLOW);
  await admin.request({ type: 'course_set_deadline', admin_token: A, course, deadline_ms: 0 }, 'course_deadline');
  await waitFor(admin, { type: 'course_view', admin_token: A, course }, (x) => x.course.frozen_ms > 0, 60000 * SLOW);

  const started = await admin.request({ type: 'course_start_final', admin_token: A, course }, 'course_final_started');
  assert.equal(started.finalists, N);
  /* b's third claim: it has finished a pair and holds others — killed there */
  const claimsOf = (s) => logsOf(s).filter((l) => l.event === 'course_claim_pair' && l.course === course);
  await b.waitLog(() => claimsOf(b).length >= 3, 120000 * SLOW, "b's third pair");
  const bDone = new Set(logsOf(b).filter((l) => l.event === 'course_result' && l.course === course &&
    (l.kind === 'pair' || l.kind === 'final')).map((l) => l.gate));
  await b.kill9();
  const bHeld = claimsOf(b).map((l) => l.pairno).filter((p) => !bDone.has(p));
  assert.ok(bDone.size >= 1, 'b finished a pair before it was killed');
  assert.ok(bHeld.length >= 1, 'b died holding a pair');

  const v = await waitFor(admin, { type: 'course_view', admin_token: A, course },
    (x) => x.course.final_state === 'done' || x.course.final_state === 'failed', 180000 * SLOW);
  assert.equal(v.course.final_state, 'done', v.course.final_note);
  assert.equal(v.final.length, N);
  assert.equal(v.final_games.length, N * (N - 1), 'every pair\'s two games, once');
  for (const row of v.final)
    assert.equal(row.games, 2 * (N - 1), `${row.student_id}: each of its games counted once`);
  for (const row of v.final)
    assert.ok(row.place >= 1 && row.place <= N, `${row.student_id}: a place`);
  for (const p of bHeld)
    assert.ok(claimsOf(a).some((l) => l.pairno === p), `pair ${p}, b's when it died, was claimed again by a`);
  const aDone = logsOf(a).filter((l) => l.event === 'course_result' && l.course === course &&
    (l.kind === 'pair' || l.kind === 'final'));
  assert.ok(aDone.length >= 1 && bDone.size >= 1, 'pairs finished on both servers');
  assert.ok(aDone.some((l) => l.kind === 'final'), 'a stored the last pair, and the standings');
  const g = await admin.request({ type: 'course_grades', admin_token: A, course }, 'course_grades');
  const rows = csvRows(g.csv);
  assert.equal(rows.filter((r) => r[rows[0].indexOf('status')] === 'finalist').length, N, g.csv);
  admin.close();
  st.close();
});
