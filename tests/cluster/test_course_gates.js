'use strict';
/*
 * test_course_gates.js — a course's gates played by every server of a
 * cluster (docs/scaling.md, "The coordinator"; docs/classroom.md,
 * "Throughput"): the coordinator takes the uploads, every server claims
 * ladders from the shared database as its workers free up, and a server
 * killed in the middle of a gate loses nothing — its claim lapses, another
 * server plays that ladder again from its first gate, and the verdict is
 * stored once, with each gate's games counted once.
 *
 * What each server played is read from its own log (course_claim,
 * course_result), not inferred from timing; what the killed server held
 * when it died, from the database (it writes a line after its commit, and
 * may die between the two).
 */
const assert = require('node:assert/strict');
const path = require('node:path');
const lib = require('../server/lib.js');
const { Client, SLOW, sleep } = lib;
const { test, startCluster, startOne, stopAll, adminToken, pgConnectionsGone } = require('./cluster.js');
const { submitBot, waitFor } = require('../classroom/course_lib.js');

const BOTS = path.join(lib.ROOT, 'tests', 'classroom', 'bots');
const N = 6; /* three servers, two ladders each at once */

function logsOf(s) {
  return (s.previousLogs || []).concat(s.logs || []);
}

test('every server plays gates; one killed mid-gate loses no verdict', async (t) => {
  /* a first: it holds the courses; b and c only play what they claim */
  const args = ['--set', 'courses.gate_jobs=2'];
  const cl = await startCluster(['a'], { tag: 'course-gates', args });
  cl.servers.b = await startOne('b', cl.db, cl.env, { args });
  cl.servers.c = await startOne('c', `${cl.db} application_name=tessera-c`, cl.env, { args });
  t.after(() => stopAll(cl));
  const { a, b, c } = cl.servers;
  assert.equal((await a.waitLog((l) => l.event === 'role')).held, true, 'a holds the courses');
  const A = adminToken(cl);

  const admin = await Client.connect(a.url, { name: 'admin' });
  /* slow.py: 0.3 s a move, a two-game gate lasts ~10 s: long enough to kill
   * its server in the middle of it */
  const { course } = await admin.request({
    type: 'course_create', admin_token: A, name: 'spread', game: 'reversi', move_ms: 5000 * SLOW,
    seed: 7, gates: [{ opponent: 'random', games: 2, min_rate: 0 }],
  }, 'course_created');
  const csv = 'id,name\n' + Array.from({ length: N }, (_, i) => `s${i + 1},S${i + 1}`).join('\n') + '\n';
  const added = await admin.request({ type: 'course_add_students', admin_token: A, course, csv },
    'course_students_added');
  const st = await Client.connect(b.url, { name: 'students' });
  const subs = [];
  for (const s of added.students)
    subs.push((await submitBot(st, s.token, [path.join(BOTS, 'slow.py')])).submission);

  /* c claims a ladder and starts its gate: killed a few seconds in */
  const claim = await c.waitLog((l) => l.event === 'course_claim' && l.course === course, 60000 * SLOW,
    'a claim by c');
  await sleep(3000);
  const cFinished = new Set(logsOf(c).filter((l) => l.event === 'course_result' && l.kind === 'submission')
    .map((l) => l.submission));
  assert.ok(!cFinished.has(claim.submission), 'c was still in the gate it claimed when it was killed');
  await c.kill9();
  /* What c held when it died is the database's word, read once c's
   * connections are gone (a statement c sent before it died is still
   * carried out), long before its claims lapse */
  await pgConnectionsGone(cl.db, 'tessera-c');
  const cRows = lib.psql(cl.db, `SELECT id, state FROM class_submissions WHERE course = ${course}` +
    " AND worker LIKE 'c/%'").map((r) => r.split('|'));
  const lost = cRows.filter(([, state]) => state !== 'done').map(([id]) => Number(id));
  assert.ok(lost.includes(claim.submission), `c died holding the ladder it claimed (${JSON.stringify(cRows)})`);

  /* every verdict arrives: c's unfinished ladders claimed again once c's
   * claims lapse (CLASS_CLAIM_MS, 15 s) */
  const v = await waitFor(admin, { type: 'course_view', admin_token: A, course },
    (x) => x.submissions.length === N && x.submissions.every((s) => s.state === 'done'), 180000 * SLOW);
  for (const s of v.submissions) {
    assert.equal(s.gates.length, 1, `submission ${s.submission}: one gate`);
    assert.equal(s.gates[0].games, 2, `submission ${s.submission}: its gate's games counted once`);
    assert.equal(s.gates[0].game_ids.length, 2, `submission ${s.submission}: two games stored`);
    assert.match(s.verdict, /^qualified: 1 of 1 gates/, `submission ${s.submission}: ${s.verdict}`);
  }
  /* every ladder c held was claimed again and finished by a or b (their
   * lines follow their commits: waited for, not read at once) */
  const onAorB = (pred, label) => Promise.any([a, b].map((s) => s.waitLog(pred, 10000 * SLOW, label)));
  for (const s of lost) {
    await onAorB((l) => l.event === 'course_claim' && l.submission === s,
      `the claim of submission ${s}, c's when it died, by a or b`);
    await onAorB((l) => l.event === 'course_result' && l.kind === 'submission' && l.submission === s,
      `submission ${s}, c's when it died, finished on a or b`);
  }
  /* who played what, from the logs of the servers that lived */
  const played = {};
  for (const name of ['a', 'b'])
    played[name] = logsOf(cl.servers[name]).filter((l) => l.event === 'course_result' &&
      l.kind === 'submission' && l.course === course).map((l) => l.submission);
  assert.ok(played.a.length > 0 && played.b.length > 0, `ladders finished on a and b: ${JSON.stringify(played)}`);
  for (const sub of subs)
    assert.ok(v.submissions.some((s) => s.submission === sub));
  admin.close();
  st.close();
});
