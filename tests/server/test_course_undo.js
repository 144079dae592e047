'use strict';
/*
 * test_course_undo.js — nothing an instructor does is irreversible (issue
 * 25, item 2). A deadline in the past is refused (at creation and later);
 * the deadline can be moved after the freeze, which reopens the course, and
 * extended for one student only; the gates can be played again with a new
 * ladder, and the course freezes again on the new verdicts; the final can
 * be played again; a course can be archived (submissions closed) and
 * brought back, and deleted with its rows and files. Each refusal is a
 * structured error with its reason.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { Client, SLOW, startAdmin } = require('./lib');
const { submitBot, waitFor, csvRows } = require('../classroom/course_lib');

const BOTS = path.join(__dirname, '..', 'classroom', 'bots');
const FIRST = path.join(BOTS, 'first.py');

function refused(r, reason) {
  assert.equal(r.type, 'error', JSON.stringify(r));
  assert.equal(r.reason, reason, JSON.stringify(r));
  assert.ok(r.message.length > 0);
}

/* Every file and folder under dir whose name is `name`. */
function findNamed(dir, name) {
  const out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.name === name)
      out.push(p);
    if (e.isDirectory())
      out.push(...findNamed(p, name));
  }
  return out;
}

test('nothing an instructor does is irreversible', { timeout: 300000 * SLOW }, async (t) => {
  const srv = await startAdmin({ tag: 'course-undo' });
  t.after(() => srv.cleanup());
  const A = srv.adminToken;
  const admin = await Client.connect(srv.url, { name: 'instructor' });
  const ask = (msg, type) => admin.request({ admin_token: A, ...msg }, type, 60000 * SLOW);
  const easy = [{ opponent: 'random', games: 2, min_rate: 0 }];
  const settings = { type: 'course_create', name: 'undo', game: 'reversi', move_ms: 2000 * SLOW,
    seed: 25, gates: easy, final_games: 2 };

  /* a deadline in the past at creation: refused, nothing stored */
  const past = await ask({ ...settings, deadline_ms: Date.UTC(2020, 0, 1) });
  refused(past, 'past_deadline');
  assert.match(past.message, /2020-01-01 00:00 UTC is in the past/);
  assert.equal((await ask({ type: 'course_list' }, 'course_list')).courses.length, 0);

  const { course } = await ask(settings, 'course_created');
  const added = await ask({ type: 'course_add_students', course,
    csv: 'name,id\nAda,s1\nBrian,s2\nCarol,s3\n' }, 'course_students_added');
  const tok = Object.fromEntries(added.students.map((s) => [s.student_id, s.token]));
  const stu = {};
  for (const sid of ['s1', 's2', 's3'])
    stu[sid] = await Client.connect(srv.url, { name: sid });
  const view = () => ask({ type: 'course_view', course }, 'course_view');
  const settled = (v) => v.submissions.every((s) => s.state === 'done');
  await submitBot(stu.s1, tok.s1, [FIRST]);
  await submitBot(stu.s2, tok.s2, [FIRST]);

  /* a deadline moved into the past: refused, the course still open */
  refused(await ask({ type: 'course_set_deadline', course, deadline_ms: Date.now() - 60000 }),
    'past_deadline');
  assert.equal((await view()).course.deadline_ms, 0);

  /* close now: the course freezes once the gates are through */
  await ask({ type: 'course_set_deadline', course, deadline_ms: 0 }, 'course_deadline');
  let v = await waitFor(admin, { type: 'course_view', admin_token: A, course },
    (x) => x.course.frozen_ms > 0, 120000 * SLOW);
  assert.equal(v.submissions.filter((s) => s.frozen).length, 2);
  refused(await submitBot(stu.s3, tok.s3, [FIRST], true), 'deadline_passed');

  /* one student's extension reopens the course for that student only */
  refused(await ask({ type: 'course_set_deadline', course, student: 'nobody',
    deadline_ms: Date.now() + 600000 }), 'unknown_student');
  const ext = await ask({ type: 'course_set_deadline', course, student: 's3',
    deadline_ms: Date.now() + 600000 }, 'course_deadline');
  assert.equal(ext.frozen_ms, 0, 'an extension unfreezes the course');
  assert.ok(ext.last_extension_ms > Date.now());
  refused(await submitBot(stu.s1, tok.s1, [FIRST], true), 'deadline_passed');
  const late = await submitBot(stu.s3, tok.s3, [FIRST]);
  assert.equal(late.type, 'course_submitted');
  const s3view = await stu.s3.request({ type: 'course_view', token: tok.s3 }, 'course_view');
  assert.ok(s3view.student.deadline_ms > Date.now(), 'the student sees their own deadline');
  await waitFor(admin, { type: 'course_view', admin_token: A, course },
    (x) => x.submissions.length === 3 && settled(x), 120000 * SLOW);
  await new Promise((r) => setTimeout(r, 1500));
  assert.equal((await view()).course.frozen_ms, 0, 'the freeze waits for the extension');
  /* the extension ends: the course freezes with the late submission in it */
  await ask({ type: 'course_set_deadline', course, student: 's3', deadline_ms: 0 },
    'course_deadline');
  v = await waitFor(admin, { type: 'course_view', admin_token: A, course },
    (x) => x.course.frozen_ms > 0, 30000 * SLOW);
  assert.equal(v.submissions.filter((s) => s.frozen).length, 3);

  /* the course deadline moved after the freeze reopens it for everyone */
  const moved = await ask({ type: 'course_set_deadline', course,
    deadline_ms: Date.now() + 3600000 }, 'course_deadline');
  assert.equal(moved.frozen_ms, 0);
  assert.equal((await view()).submissions.filter((s) => s.frozen).length, 0);
  await ask({ type: 'course_set_deadline', course, deadline_ms: 0 }, 'course_deadline');

  /* the gates played again with a ladder nobody passes: nobody qualifies */
  refused(await ask({ type: 'course_rerun_gates', course, submission: 999999 }),
    'unknown_submission');
  const hard = [easy[0], { opponent: 'mcts:sims=300', games: 2, min_rate: 1 }];
  const rr = await ask({ type: 'course_rerun_gates', course, gates: hard, qualify: 2 },
    'course_gates_rerun');
  assert.equal(rr.submissions, 3);
  assert.equal(rr.course.gates.length, 2);
  assert.equal(rr.course.qualify, 2);
  v = await waitFor(admin, { type: 'course_view', admin_token: A, course },
    (x) => settled(x) && x.course.frozen_ms > 0, 180000 * SLOW);
  for (const s of v.submissions) {
    assert.equal(s.qualified, false, JSON.stringify(s));
    assert.equal(s.gates.length, 2, 'played on the new ladder');
    assert.equal(s.frozen, false);
  }
  refused(await ask({ type: 'course_start_final', course }), 'too_few');
  /* and back to the easy ladder: everyone qualifies again */
  await ask({ type: 'course_rerun_gates', course, gates: easy, qualify: 1 }, 'course_gates_rerun');
  v = await waitFor(admin, { type: 'course_view', admin_token: A, course },
    (x) => settled(x) && x.course.frozen_ms > 0, 120000 * SLOW);
  assert.equal(v.submissions.filter((s) => s.frozen && s.qualified).length, 3,
    JSON.stringify(v.submissions.map((s) => [s.state, s.qualified, s.frozen])));

  /* the final, played again */
  await ask({ type: 'course_start_final', course }, 'course_final_started');
  v = await waitFor(admin, { type: 'course_view', admin_token: A, course },
    (x) => x.course.final_state === 'done', 180000 * SLOW);
  const games1 = v.final_games.length;
  assert.equal(v.final.length, 3);
  /* grades that explain themselves: three bots playing the same moves; whatever separated
   * them is named, and every tiebreak is a column */
  for (const r of v.final) {
    assert.equal(r.format, 'round-robin');
    assert.ok(Number.isInteger(r.league_points) && Number.isFinite(r.score_diff), JSON.stringify(r));
    assert.ok(r.roster >= 1 && r.roster <= 3);
    if (r.place > 1)
      assert.match(r.decided_by, /^(rate|league points|score difference|roster order)$/, JSON.stringify(r));
  }
  const g = csvRows((await ask({ type: 'course_grades', course }, 'course_grades')).csv);
  const col = (name) => g[0].indexOf(name);
  for (const name of ['status', 'decided_by', 'rate', 'league_points', 'score_diff'])
    assert.ok(col(name) > 0, `the grades have a ${name} column`);
  for (const r of v.final) {
    const line = g.find((x) => x[0] === r.student_id);
    assert.equal(line[col('status')], 'finalist');
    assert.equal(line[col('final_rank')], String(r.place));
    assert.equal(line[col('decided_by')], r.decided_by);
    assert.equal(line[col('league_points')], String(r.league_points));
  }
  refused(await ask({ type: 'course_start_final', course }), 'final_started');
  refused(await ask({ type: 'course_rerun_gates', course }), 'final_started');
  refused(await ask({ type: 'course_set_deadline', course, deadline_ms: Date.now() + 60000 }),
    'final_started');
  await ask({ type: 'course_start_final', course, rerun: true }, 'course_final_started');
  v = await waitFor(admin, { type: 'course_view', admin_token: A, course },
    (x) => x.course.final_state === 'done', 180000 * SLOW);
  assert.equal(v.final.length, 3);
  assert.equal(v.final_games.length, games1, 'the first final\'s games were replaced, not added to');

  /* archived: submissions closed, everything kept; and back */
  const arch = await ask({ type: 'course_archive', course, archived: true }, 'course_archived');
  assert.equal(arch.archived, true);
  const list = await ask({ type: 'course_list' }, 'course_list');
  assert.equal(list.courses.find((c) => c.course === course).archived, true);
  refused(await submitBot(stu.s1, tok.s1, [FIRST], true), 'archived');
  assert.equal((await view()).final.length, 3);
  assert.equal((await ask({ type: 'course_archive', course, archived: false },
    'course_archived')).archived, false);

  /* deleted: its name typed again; then gone, rows and files */
  assert.ok(findNamed(srv.dir, `course-${course}`).length > 0, 'the course has a folder');
  refused(await ask({ type: 'course_delete', course, confirm: 'und' }), 'confirm');
  await ask({ type: 'course_delete', course, confirm: 'undo' }, 'course_deleted');
  refused(await ask({ type: 'course_view', course }), 'unknown_course');
  refused(await stu.s1.request({ type: 'course_view', token: tok.s1 }), 'bad_token');
  assert.equal((await ask({ type: 'course_list' }, 'course_list')).courses.length, 0);
  assert.deepEqual(findNamed(srv.dir, `course-${course}`), [], 'its files are gone');
});
