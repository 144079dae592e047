'use strict';
/*
 * test_course_gate_check.js — a gate opponent that does not exist or faults
 * is never a pass (issue 25, item 1). A course whose gate opponent is a
 * program that cannot start (`cmd:python3 /nonexistent/ref.py`) or crashes
 * at its first turn is refused with `bad_gate`, naming the gate and what
 * doctor saw; a reference that passed that check at creation and breaks
 * afterwards (the instructor edits it) marks the gate *broken* and the
 * submission *not judged* — not passed, not qualified — and the deadline's
 * freeze waits for it instead of freezing without that student; once the
 * reference is fixed and the gates played again, it is judged and frozen.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { Client, SLOW, startAdmin } = require('./lib');
const { submitBot, waitFor } = require('../classroom/course_lib');

const BOTS = path.join(__dirname, '..', 'classroom', 'bots');

test('a gate opponent that does not exist or faults is never a pass', { timeout: 240000 * SLOW },
  async (t) => {
    const srv = await startAdmin({ tag: 'gate-check' });
    t.after(() => srv.cleanup());
    const A = srv.adminToken;
    const admin = await Client.connect(srv.url, { name: 'instructor' });
    /* the reference programs, readable by the user bots run as */
    const refDir = path.join(srv.dir, 'ref');
    fs.mkdirSync(refDir, { mode: 0o755 });
    fs.chmodSync(refDir, 0o755);
    const ref = path.join(refDir, 'ref.py');
    const crash = path.join(refDir, 'crash.py');
    fs.copyFileSync(path.join(BOTS, 'first.py'), ref);
    fs.copyFileSync(path.join(BOTS, 'broken.py'), crash);
    fs.chmodSync(ref, 0o644);
    fs.chmodSync(crash, 0o644);
    const course = (opponent, extra = {}) => admin.request({
      type: 'course_create', admin_token: A, name: 'gates', game: 'reversi', move_ms: 2000 * SLOW,
      seed: 25, gates: [{ opponent: 'random', games: 2, min_rate: 0 },
        { opponent, games: 2, min_rate: 0 }], ...extra,
    }, undefined, 120000 * SLOW);

    for (const [opponent, what] of [['cmd:python3 /nonexistent/ref.py', 'a missing program'],
      [`cmd:python3 ${crash}`, 'a program that crashes']]) {
      const r = await course(opponent);
      assert.equal(r.type, 'error', `${what} as a gate opponent was accepted: ${JSON.stringify(r)}`);
      assert.equal(r.code, 'invalid_argument', JSON.stringify(r));
      assert.equal(r.reason, 'bad_gate', JSON.stringify(r));
      assert.match(r.message, /^gate 2: its opponent cmd:python3 .* failed the check/, r.message);
      assert.match(r.message, /first_move failed/, r.message);
    }
    const list = await admin.request({ type: 'course_list', admin_token: A }, 'course_list');
    assert.equal(list.courses.length, 0, 'nothing of a refused course was stored');

    /* a reference that worked when the course was set, then breaks */
    const created = await course(`cmd:python3 ${ref}`);
    assert.equal(created.type, 'course_created', JSON.stringify(created));
    fs.copyFileSync(crash, ref);
    const added = await admin.request({ type: 'course_add_students', admin_token: A,
      course: created.course, csv: 'name,id\nFirst Mover,s1\n' }, 'course_students_added');
    const student = await Client.connect(srv.url, { name: 's1' });
    await submitBot(student, added.students[0].token, [path.join(BOTS, 'first.py')]);
    const view = await waitFor(admin, { type: 'course_view', admin_token: A, course: created.course },
      (v) => v.submissions.length === 1 && ['done', 'not_judged'].includes(v.submissions[0].state),
      120000 * SLOW);
    const s = view.submissions[0];
    assert.equal(s.state, 'not_judged', JSON.stringify(s));
    assert.equal(s.qualified, false);
    assert.equal(s.gates.length, 2);
    assert.equal(s.gates[0].passed, true);
    assert.equal(s.gates[0].broken, false);
    assert.equal(s.gates[1].passed, false, 'a win over a crashing reference is no pass');
    assert.equal(s.gates[1].broken, true);
    assert.match(s.gates[1].verdict, /^broken: the opponent .* lost 2 of 2 games by a fault/,
      s.gates[1].verdict);
    assert.match(s.verdict, /^not judged: gate 2 is broken/, s.verdict);
    /* the student sees the same */
    const mine = await student.request({ type: 'course_view', token: added.students[0].token },
      'course_view');
    assert.equal(mine.submissions[0].state, 'not_judged');

    /* the deadline passes: the course does not freeze without that student */
    await admin.request({ type: 'course_set_deadline', admin_token: A, course: created.course,
      deadline_ms: 0 }, 'course_deadline');
    await new Promise((r) => setTimeout(r, 2500));
    const after = await admin.request({ type: 'course_view', admin_token: A,
      course: created.course }, 'course_view');
    assert.equal(after.course.frozen_ms, 0, 'the freeze waits for the broken gate to be fixed');

    /* the instructor fixes the reference and plays the gates again: judged, then frozen */
    fs.copyFileSync(path.join(BOTS, 'first.py'), ref);
    await admin.request({ type: 'course_rerun_gates', admin_token: A, course: created.course },
      'course_gates_rerun');
    const fixed = await waitFor(admin, { type: 'course_view', admin_token: A,
      course: created.course }, (v) => v.course.frozen_ms > 0, 120000 * SLOW);
    const f = fixed.submissions[0];
    assert.equal(f.state, 'done', JSON.stringify(f));
    assert.equal(f.qualified, true);
    assert.equal(f.frozen, true);
    assert.deepEqual(f.gates.map((g) => [g.passed, g.broken]), [[true, false], [true, false]]);
  });

/* A gate of more than 16 games: each game's verdict is kept with it when the list of games grows
 * (the first 16 used to point into the list's old memory: the verdict named garbage, and a
 * submission whose verdict was not UTF-8 vanished from course_view). */
test('a long gate names its first fault, and every submission shows', { timeout: 240000 * SLOW },
  async (t) => {
    const srv = await startAdmin({ tag: 'gate-long' });
    t.after(() => srv.cleanup());
    const A = srv.adminToken;
    const admin = await Client.connect(srv.url, { name: 'instructor' });
    const c = await admin.request({ type: 'course_create', admin_token: A, name: 'long',
      game: 'reversi', move_ms: 2000 * SLOW, seed: 3,
      gates: [{ opponent: 'random', games: 20, min_rate: 0.5 }] }, 'course_created');
    const added = await admin.request({ type: 'course_add_students', admin_token: A,
      course: c.course, csv: 'name,id\nBroken,s1\n' }, 'course_students_added');
    const student = await Client.connect(srv.url, { name: 's1' });
    await submitBot(student, added.students[0].token, [path.join(BOTS, 'broken.py')]);
    const v = await waitFor(admin, { type: 'course_view', admin_token: A, course: c.course },
      (x) => x.submissions.length === 1 && x.submissions[0].state === 'done', 180000 * SLOW);
    const g = v.submissions[0].gates[0];
    assert.equal(g.game_ids.length, 20);
    assert.match(g.verdict,
      /^failed: .*; 20 games lost by a fault, first: P[12] \(seat [01]\): crashed: exited with status 1; stderr: .*KeyError: 'moves'$/,
      g.verdict);
  });
