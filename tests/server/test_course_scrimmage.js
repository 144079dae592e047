'use strict';
/*
 * test_course_scrimmage.js — the live scrimmage ladder before the deadline
 * (issue 25, docs/classroom.md "Scrimmage"). A Reversi course with
 * `scrimmage: "class"`: two students' bots qualify (greedy and minimax),
 * a crashing one does not, a fourth student never submits. The
 * server must play scrimmage pairs between the two qualified submissions
 * only; the table (ratings with intervals) appears for the instructor and,
 * with "class", for every student, who may replay any scrimmage game but
 * sees no other seat's stderr; with "instructor" students see neither the
 * table nor others' games; course_settings refuses a bad setting and a
 * max_upload_bytes beyond the server's ceiling, and changes a good one; the
 * deadline stops it: no game is kept after it, the state says "stopped".
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { Client, SLOW, startAdmin, sleep } = require('./lib');
const { submitBot, waitFor } = require('../classroom/course_lib');

const BOTS = path.join(__dirname, '..', 'classroom', 'bots');

test('scrimmage among qualified bots, visible as set, stopped by the deadline',
  { timeout: 240000 * SLOW }, async (t) => {
    const srv = await startAdmin({ tag: 'scrim' });
    t.after(() => srv.cleanup());
    const A = srv.adminToken;
    const admin = await Client.connect(srv.url, { name: 'instructor' });
    const bad = await admin.request({
      type: 'course_create', admin_token: A, name: 'scrim', game: 'reversi', scrimmage: 'everyone',
      gates: [{ opponent: 'random', games: 2, min_rate: 0.25 }],
    });
    assert.equal(bad.reason, 'bad_setting', JSON.stringify(bad));
    const created = await admin.request({
      type: 'course_create', admin_token: A, name: 'scrim', game: 'reversi', move_ms: 3000 * SLOW,
      seed: 25, qualify: 1, scrimmage: 'class',
      gates: [{ opponent: 'random', games: 2, min_rate: 0.25 }],
    }, 'course_created');
    assert.equal(created.scrimmage, 'class');
    const course = created.course;
    const added = await admin.request({ type: 'course_add_students', admin_token: A, course,
      csv: 'name,email,id\nGreedy,g@x.edu,s1\nMinimax,m@x.edu,s2\nBroken,b@x.edu,s3\nAbsent,a@x.edu,s4\n' },
    'course_students_added');
    const tok = Object.fromEntries(added.students.map((s) => [s.student_id, s.token]));
    const c = {};
    for (const [sid, files] of [['s1', ['greedy.py']], ['s2', ['minimax.py', 'reversi_rules.py']],
      ['s3', ['broken.py']]]) {
      c[sid] = await Client.connect(srv.url, { name: sid });
      await submitBot(c[sid], tok[sid], files.map((f) => path.join(BOTS, f)));
    }
    c.s4 = await Client.connect(srv.url, { name: 's4' });

    /* the pairs come: one (two games) at least between s1 and s2 */
    const view = await waitFor(admin, { type: 'course_view', admin_token: A, course },
      (v) => v.scrimmage && v.scrimmage.games_total >= 2, 120000 * SLOW);
    const byId = Object.fromEntries(view.submissions.map((s) => [s.student_id, s]));
    assert.equal(byId.s1.qualified, true, JSON.stringify(byId.s1));
    assert.equal(byId.s2.qualified, true, JSON.stringify(byId.s2));
    assert.equal(byId.s3.qualified, false, JSON.stringify(byId.s3));
    const sc = view.scrimmage;
    assert.equal(sc.setting, 'class');
    assert.ok(['playing', 'rested'].includes(sc.state), sc.state);
    assert.deepEqual(sc.rows.map((r) => r.student_id).sort(), ['s1', 's2'],
      'only the qualified submissions play: ' + JSON.stringify(sc.rows));
    for (const r of sc.rows) {
      assert.equal(r.games, sc.games_total, 'two bots: each played every game');
      assert.equal(r.wins + r.losses + r.draws, r.games);
      assert.ok(r.rating_low <= r.rating && r.rating <= r.rating_high, JSON.stringify(r));
    }
    assert.ok(sc.rows[0].rating >= sc.rows[1].rating, 'the table is in rating order');
    assert.ok(sc.games.length >= 2);
    for (const g of sc.games)
      assert.deepEqual([...g.names].sort(), ['s1 v1', 's2 v1'], JSON.stringify(g));

    /* a scrimmage game replays with its names; the instructor sees every seat's stderr */
    const gid = sc.games[0].game;
    const full = await admin.request({ type: 'course_game', admin_token: A, game: gid }, 'course_game');
    assert.equal(full.stage, 'scrimmage');
    assert.deepEqual([...full.names].sort(), ['s1 v1', 's2 v1']);
    assert.ok(full.record && full.record.turns.length > 0, 'the game has its record');
    assert.equal(full.stderr.length, 2);

    /* "class": every student sees the table; one who is not in it may replay its games,
     * without anyone's stderr */
    for (const sid of ['s1', 's3', 's4']) {
      const v = await c[sid].request({ type: 'course_view', token: tok[sid] }, 'course_view');
      assert.ok(v.scrimmage, sid + ' sees the table');
      assert.equal(v.scrimmage.rows.length, 2);
      assert.equal(v.scrimmage.rows.some((r) => r.yours), sid === 's1');
    }
    const seen = await c.s3.request({ type: 'course_game', token: tok.s3, game: gid }, 'course_game');
    assert.deepEqual(seen.stderr, [null, null]);
    assert.equal(seen.your_seat, -1);
    assert.deepEqual(seen.bundles, [null, null]);

    /* the setting: validated, changed; "instructor" hides it from the class */
    let r = await admin.request({ type: 'course_settings', admin_token: A, course, scrimmage: 'all' });
    assert.equal(r.reason, 'bad_setting', JSON.stringify(r));
    r = await admin.request({ type: 'course_settings', admin_token: A, course, max_upload_bytes: 1 << 40 });
    assert.equal(r.reason, 'too_large', JSON.stringify(r));
    r = await admin.request({ type: 'course_settings', admin_token: A, course, scrimmage: 'instructor',
      max_upload_bytes: 8 << 20 }, 'course_settings');
    assert.equal(r.scrimmage, 'instructor');
    assert.equal(r.max_upload_bytes, 8 << 20);
    r = await c.s1.request({ type: 'course_settings', token: tok.s1, course, scrimmage: 'class' });
    assert.equal(r.reason, 'admin_only', 'a student cannot change it: ' + JSON.stringify(r));
    const hidden = await c.s3.request({ type: 'course_view', token: tok.s3 }, 'course_view');
    assert.equal(hidden.scrimmage, undefined, 'no table for the class with "instructor"');
    r = await c.s3.request({ type: 'course_game', token: tok.s3, game: gid });
    assert.equal(r.reason, 'not_yours', JSON.stringify(r));
    const own = await c.s1.request({ type: 'course_game', token: tok.s1, game: gid }, 'course_game');
    assert.ok(own.your_seat === 0 || own.your_seat === 1, 'a player still sees their own game');

    /* the deadline stops it: nothing is kept after it, the state says so */
    await admin.request({ type: 'course_set_deadline', admin_token: A, course, deadline_ms: 0 },
      'course_deadline');
    const frozen = await waitFor(admin, { type: 'course_view', admin_token: A, course },
      (v) => v.course.frozen_ms > 0, 60000 * SLOW);
    assert.equal(frozen.scrimmage.state, 'stopped');
    assert.equal(frozen.scrimmage.why, 'deadline');
    const before = frozen.scrimmage.games_total;
    await sleep(5000 * SLOW); /* a pair playing at the deadline ends within this and is dropped */
    const after = await admin.request({ type: 'course_view', admin_token: A, course }, 'course_view');
    assert.equal(after.scrimmage.games_total, before, 'no scrimmage game after the deadline');
    assert.equal(after.scrimmage.rows.length, 2, 'the table stays to be read');
  });
