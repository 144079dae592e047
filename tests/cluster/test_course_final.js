'use strict';
/*
 * test_course_final.js — a course's round-robin final played by every
 * server of a cluster (classroom/finals.c; docs/classroom.md, "Throughput"):
 * its pairs are rows every server claims as its workers free up, and a
 * server killed in the middle of a pair loses nothing — its claim lapses,
 * the other server plays that pair again, and the standings, computed by
 * the server that stores the last pair, count every game once. What each
 * server played is read from its own log; what b held when it died, from
 * the database (b may commit and die before it writes the line).
 */
const assert = require('node:assert/strict');
const path = require('node:path');
const lib = require('../server/lib.js');
const { Client, SLOW } = lib;
const { test, startCluster, startOne, stopAll, adminToken, pgConnectionsGone } = require('./cluster.js');
const { submitBot, waitFor, csvRows } = require('../classroom/course_lib.js');

const BOTS = path.join(lib.ROOT, 'tests', 'classroom', 'bots');
/* 21 pairs: the final must outlast b's first pairs — b is killed once it has
 * stored one and claimed another since (b claims on its second's tick, then as
 * its workers free up): with ten pairs a's two workers could claim the last
 * before b stored its first (seen at load 3-6) */
const N = 7;

function logsOf(s) {
  return (s.previousLogs || []).concat(s.logs || []);
}

test('a final is played on every server; one killed mid-pair loses nothing', async (t) => {
  const args = ['--set', 'courses.gate_jobs=2'];
  const cl = await startCluster(['a'], { tag: 'course-final', args });
  /* b's connections named, to tell when they are gone (after its kill) */
  cl.servers.b = await startOne('b', `${cl.db} application_name=tessera-b`, cl.env, { args });
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
  /* b killed once it has stored a pair and claimed another since (a claim
   * whose games have not been played yet): it dies holding that one */
  const claimsOf = (s) => logsOf(s).filter((l) => l.event === 'course_claim_pair' && l.course === course);
  const isResult = (l) => l.event === 'course_result' && l.course === course &&
    (l.kind === 'pair' || l.kind === 'final');
  await b.waitLog(() => {
    const L = logsOf(b);
    const first = L.findIndex(isResult);
    return first >= 0 && L.slice(first + 1).some((l) => l.event === 'course_claim_pair' && l.course === course &&
      !L.some((r) => isResult(r) && r.gate === l.pairno));
  }, 120000 * SLOW, 'b storing a pair, then claiming another');
  await b.kill9();
  /* What b held when it died is the database's word, not its log's: b writes
   * a claim's or a result's line after its commit, and may die between the
   * two. Read once b's connections are gone (a statement b sent before it
   * died is still carried out), long before its claims lapse. */
  await pgConnectionsGone(cl.db, 'tessera-b');
  const bRows = lib.psql(cl.db, `SELECT pairno, state FROM class_final_pairs WHERE course = ${course}` +
    " AND worker LIKE 'b/%'").map((r) => r.split('|'));
  const bHeld = bRows.filter(([, state]) => state === 'queued').map(([p]) => Number(p));
  assert.ok(bRows.some(([, state]) => state === 'done'), 'b stored a pair before it was killed');
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
  /* every pair b held was played again by a, and only those */
  for (const p of bHeld)
    await a.waitLog((l) => l.event === 'course_claim_pair' && l.course === course && l.pairno === p && l.run >= 2,
      10000 * SLOW, `a's claim of pair ${p}, b's when it died`);
  for (const l of claimsOf(a).filter((x) => x.run >= 2))
    assert.ok(bHeld.includes(l.pairno), `pair ${l.pairno}, played again by a, was b's when it died (${bHeld})`);
  await a.waitLog((l) => l.event === 'course_result' && l.course === course && l.kind === 'final',
    10000 * SLOW, 'a storing the last pair, and the standings');
  const g = await admin.request({ type: 'course_grades', admin_token: A, course }, 'course_grades');
  const rows = csvRows(g.csv);
  assert.equal(rows.filter((r) => r[rows[0].indexOf('status')] === 'finalist').length, N, g.csv);
  admin.close();
  st.close();
});
