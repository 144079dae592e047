'use strict';
/*
 * test_course_e2e.js — a whole course over the protocol (docs/classroom.md):
 * an instructor creates a Reversi course with a two-gate ladder, adds six
 * students, five of them submit Python bots of different strength (one
 * broken, one of two files), the gates run by themselves and give the
 * expected verdicts, the deadline freezes each student's latest qualifying
 * submission, the final round-robin runs from one message, and the grade
 * CSV says who came where.
 *
 * Every outcome is deterministic: the course has a fixed seed, the Python
 * bots choose without randomness and the reference bots are seeded per
 * game, so the verdicts asserted below are the ones the games give — the
 * strengths were measured with `tessera match` (minimax beats random 10/10
 * and mcts:sims=200 9/10; greedy beats random 9/10 and loses to mcts 8/10;
 * weak loses to random 8/10). A game lost on time would change that, so the
 * time per move is generous: 10 s, where a minimax move takes ~70 ms of CPU (on a machine
 * at load 16, one took more than 2 s of wall time and lost its game on time).
 *
 * Usage: node test_course_e2e.js PATH/TO/tessera  (CTest: classroom_e2e)
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { Client, startAdmin } = require('../server/lib');
const { submitBot, waitFor, csvRows } = require('./course_lib');

const BOTS = path.join(__dirname, 'bots');
const SLOW = process.env.TESSERA_SANITIZED === '1' ? 3 : 1;

test('a course from roster to grades', { timeout: 600000 }, async (t) => {
  const srv = await startAdmin({ tag: 'course' });
  t.after(() => srv.cleanup());
  const admin = await Client.connect(srv.url, { name: 'instructor' });
  const A = srv.adminToken;

  const created = await admin.request({
    type: 'course_create', admin_token: A, name: 'COMP 424 Reversi', game: 'reversi',
    move_ms: 10000 * SLOW, seed: 424, qualify: 1, final_games: 2,
    gates: [{ opponent: 'random', games: 10, min_rate: 0.5 },
      { opponent: 'mcts:sims=200', games: 6, min_rate: 0.35 }],
  }, 'course_created');
  const course = created.course;
  assert.equal(created.gates.length, 2);
  assert.equal(created.final_state, 'none');

  const csv = 'name,email,id\n' +
    'Ada Lovelace,ada@example.edu,s1\n' +
    'Alan Turing,alan@example.edu,s2\n' +
    '"Hopper, Grace",grace@example.edu,s3\n' +
    'Edsger Dijkstra,edsger@example.edu,s4\n' +
    'Barbara Liskov,barbara@example.edu,s5\n' +
    'Donald Knuth,don@example.edu,s6\n';
  const added = await admin.request({ type: 'course_add_students', admin_token: A, course, csv },
    'course_students_added');
  assert.equal(added.students.length, 6);
  const tok = Object.fromEntries(added.students.map((s) => [s.student_id, s.token]));
  const hand = csvRows(added.handout_csv);
  assert.deepEqual(hand[0], ['name', 'email', 'id', 'token', 'course']);
  assert.deepEqual(hand[3], ['Hopper, Grace', 'grace@example.edu', 's3', tok.s3, String(course)]);
  assert.equal(new Set(Object.values(tok)).size, 6, 'six different tokens');

  /* five submit; s6 never does */
  const who = {
    s1: ['minimax.py', 'reversi_rules.py'], s2: ['greedy.py'], s3: ['first.py'],
    s4: ['weak.py'], s5: ['broken.py'],
  };
  const students = {};
  for (const [sid, files] of Object.entries(who)) {
    students[sid] = await Client.connect(srv.url, { name: sid });
    const r = await submitBot(students[sid], tok[sid], files.map((f) => path.join(BOTS, f)));
    assert.equal(r.version, 1);
  }

  /* the gates run in the background; the broken bot must not stall them */
  const view = await waitFor(admin, { type: 'course_view', admin_token: A, course },
    (v) => v.submissions.length === 5 && v.submissions.every((s) => s.state === 'done'),
    300000 * SLOW);
  const by = Object.fromEntries(view.submissions.map((s) => [s.student_id, s]));
  assert.equal(by.s1.gates_passed, 2, by.s1.verdict);
  assert.ok(by.s1.qualified);
  assert.equal(by.s2.gates_passed, 1, by.s2.verdict);
  assert.ok(by.s2.qualified);
  assert.equal(by.s2.gates[1].passed, false);
  assert.equal(by.s4.gates_passed, 0, by.s4.verdict);
  assert.ok(!by.s4.qualified);
  assert.equal(by.s4.gates.length, 1, 'the ladder stops at the first failed gate');
  /* the broken bot: every game lost by its crash, said in the verdict */
  const b = by.s5;
  assert.equal(b.gates_passed, 0);
  assert.ok(!b.qualified);
  assert.equal(b.gates[0].faults, 10, JSON.stringify(b.gates[0]));
  assert.match(b.verdict, /not qualified/);
  assert.match(b.gates[0].verdict, /lost by a fault.*crash/i, b.gates[0].verdict);
  /* the games behind each verdict: 10 of gate 1 for everyone */
  for (const s of view.submissions)
    assert.equal(s.gates[0].game_ids.length, 10, s.student_id);
  /* a broken game shows the traceback to its author */
  const bg = await students.s5.request({ type: 'course_game', token: tok.s5,
    game: b.gates[0].game_ids[0] }, 'course_game');
  assert.match(bg.stderr[bg.your_seat], /KeyError/);
  assert.equal(bg.culprit, bg.your_seat);
  /* minimax's debug lines reach its author, with its time use */
  const mg = await students.s1.request({ type: 'course_game', token: tok.s1,
    game: by.s1.gates[1].game_ids[0] }, 'course_game');
  assert.match(mg.stderr[mg.your_seat], /turn \d+: [a-h][1-8] scores/);
  assert.ok(mg.think_ms[mg.your_seat] > 0);
  assert.ok(by.s1.gates[1].ms_per_move > 1, 'minimax thinks: ' + by.s1.gates[1].ms_per_move);
  assert.ok(mg.record && mg.record.turns.length > 0);

  /* the deadline: now. The set freezes; a late submission is refused */
  const dl = await admin.request({ type: 'course_set_deadline', admin_token: A, course,
    deadline_ms: 0 }, 'course_deadline');
  assert.ok(dl.frozen_ms > 0, 'frozen at once: no submission is still in its gates');
  const late = await submitBot(students.s4, tok.s4, [path.join(BOTS, 'greedy.py')], true);
  assert.equal(late.type, 'error');
  assert.equal(late.code, 'forbidden');
  assert.equal(late.reason, 'deadline_passed');
  const frozen = (await admin.request({ type: 'course_view', admin_token: A, course }, 'course_view'))
    .submissions.filter((s) => s.frozen).map((s) => s.student_id).sort();
  const expected = ['s1', 's2'].concat(by.s3.qualified ? ['s3'] : []);
  assert.deepEqual(frozen, expected);

  /* the final: one message, a round-robin of the frozen set */
  const fin = await admin.request({ type: 'course_start_final', admin_token: A, course },
    'course_final_started');
  assert.equal(fin.finalists, expected.length);
  const done = await waitFor(admin, { type: 'course_view', admin_token: A, course },
    (v) => v.course.final_state === 'done', 300000 * SLOW);
  const pairs = (expected.length * (expected.length - 1)) / 2;
  assert.equal(done.final_games.length, pairs * 2);
  const place = Object.fromEntries(done.final.map((r) => [r.student_id, r]));
  assert.equal(place.s1.place, 1, JSON.stringify(done.final));
  for (const r of done.final)
    assert.ok(r.rating_low <= r.rating && r.rating <= r.rating_high);

  /* grades */
  const g = await admin.request({ type: 'course_grades', admin_token: A, course }, 'course_grades');
  const rows = csvRows(g.csv);
  assert.deepEqual(rows[0], ['student_id', 'name', 'email', 'status', 'final_rank', 'decided_by',
    'rate', 'league_points', 'score_diff', 'swiss_points', 'buchholz', 'round_reached',
    'gates_passed', 'gates_total', 'rating', 'rating_low', 'rating_high', 'submission']);
  assert.equal(rows.length, 7, g.csv);
  const gr = Object.fromEntries(rows.slice(1).map((r) => [r[0], r.slice(3)]));
  /* from status on: status, rank, decided_by, rate, league, diff, swiss, buchholz, round,
   * gates passed, gates, rating, low, high, submission */
  assert.deepEqual([gr.s1[0], gr.s1[1], gr.s1[2]], ['finalist', '1', '']);
  assert.deepEqual(gr.s1.slice(9, 11), ['2', '2']);
  assert.equal(Number(gr.s1[11]).toFixed(1), place.s1.rating.toFixed(1));
  assert.equal(gr.s1[14], '1');
  assert.equal(gr.s2[9], '1');
  assert.equal(gr.s2[1], String(place.s2.place));
  assert.ok(gr.s2[2] !== '', 'second place names what decided it');
  assert.equal(rows.find((r) => r[0] === 's3')[1], 'Hopper, Grace');
  assert.deepEqual(gr.s4, ['not_qualified', '', '', '', '', '', '', '', '', '0', '2', '', '', '', '']);
  assert.deepEqual([gr.s5[0], ...gr.s5.slice(9, 11)], ['not_qualified', '0', '2']);
  assert.deepEqual(gr.s6, ['no_show', '', '', '', '', '', '', '', '', '0', '2', '', '', '', '']);

  /* the student's own report: their standing, their final games only */
  const mine = await students.s2.request({ type: 'course_view', token: tok.s2 }, 'course_view');
  assert.equal(mine.final.length, 1);
  assert.equal(mine.final[0].student_id, 's2');
  assert.equal(mine.final_games.length, (expected.length - 1) * 2);
  assert.ok(mine.submissions.every((s) => s.student_id === 's2'));

  /* everything is in the database: a restart shows the same course */
  await srv.stop();
  await srv.restart();
  const again = await Client.connect(srv.url, { name: 'again' });
  const g2 = await again.request({ type: 'course_grades', admin_token: A, course }, 'course_grades');
  assert.equal(g2.csv, g.csv);
  t.diagnostic('grades:\n' + g.csv);
  for (const s of view.submissions)
    t.diagnostic(`${s.student_id}: ${s.verdict}`);
});
