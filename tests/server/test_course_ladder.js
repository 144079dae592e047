'use strict';
/*
 * test_course_ladder.js — the gate ladder stops at the first failed gate, in
 * the default test run (issue 30, item 20: only the slow classroom_e2e held
 * this claim). A Reversi course of three two-game gates: the first cannot be
 * failed (min_rate 0), the second cannot be passed by a bot that always plays
 * the first legal move (min_rate 1: both games against mcts:sims=300, which
 * beats it), the third is easy again. The submission must stop after the
 * second: one gate passed, two played (four games in all), the third never
 * started, and the verdict says which gate failed.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { Client, SLOW, startAdmin } = require('./lib');
const { submitBot, waitFor } = require('../classroom/course_lib');

const BOTS = path.join(__dirname, '..', 'classroom', 'bots');

test('the gate ladder stops at the first failed gate', { timeout: 300000 * SLOW }, async (t) => {
  const srv = await startAdmin({ tag: 'ladder' });
  t.after(() => srv.cleanup());
  const A = srv.adminToken;
  const admin = await Client.connect(srv.url, { name: 'instructor' });
  const created = await admin.request({
    type: 'course_create', admin_token: A, name: 'ladder', game: 'reversi', move_ms: 5000 * SLOW,
    seed: 30, qualify: 1, final_games: 2,
    gates: [{ opponent: 'random', games: 2, min_rate: 0 },
      { opponent: 'mcts:sims=300', games: 2, min_rate: 1 },
      { opponent: 'random', games: 2, min_rate: 0 }],
  }, 'course_created');
  const course = created.course;
  const added = await admin.request({ type: 'course_add_students', admin_token: A, course,
    csv: 'name,email,id\nFirst Mover,first@example.edu,s1\n' }, 'course_students_added');
  const student = await Client.connect(srv.url, { name: 's1' });
  await submitBot(student, added.students[0].token, [path.join(BOTS, 'first.py')]);
  const view = await waitFor(admin, { type: 'course_view', admin_token: A, course },
    (v) => v.submissions.length === 1 && v.submissions[0].state === 'done', 120000 * SLOW);
  const s = view.submissions[0];
  assert.equal(s.gates_passed, 1, JSON.stringify(s));
  assert.equal(s.gates.length, 2, `two gates played, the third not: ${JSON.stringify(s.gates)}`);
  assert.equal(s.gates[0].passed, true);
  assert.equal(s.gates[1].passed, false);
  assert.equal(s.gates[1].game_ids.length, 2, 'the failed gate was played in full');
  assert.match(s.verdict, /2/, `the verdict names the failed gate: ${s.verdict}`);
  /* nothing of the third gate was started */
  const games = s.gates.flatMap((g) => g.game_ids);
  assert.equal(games.length, 4);
});
