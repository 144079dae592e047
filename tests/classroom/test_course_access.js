'use strict';
/*
 * test_course_access.js — who may see and do what in a course
 * (docs/classroom.md, "Who sees what"), and uploads checked against what
 * they claim to be. Also the short end-to-end of the default test set: a
 * one-gate course of two-game gates, a freeze, a final of two, grades.
 *
 * Each refused attempt must be a structured error (code and reason) and
 * change nothing.
 *
 * Usage: node test_course_access.js PATH/TO/tessera  (CTest: classroom_access)
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { Client, startAdmin } = require('../server/lib');
const { submitBot, waitFor, csvRows } = require('./course_lib');

const BOTS = path.join(__dirname, 'bots');
const SLOW = process.env.TESSERA_SANITIZED === '1' ? 3 : 1;

function refused(r, code, reason) {
  assert.equal(r.type, 'error', JSON.stringify(r));
  assert.equal(r.code, code, JSON.stringify(r));
  if (reason)
    assert.equal(r.reason, reason, JSON.stringify(r));
  assert.ok(r.message.length > 0);
}

test('students see only their own; instructors act with the admin token', { timeout: 300000 },
  async (t) => {
    const srv = await startAdmin({ tag: 'course-access' });
    t.after(() => srv.cleanup());
    const A = srv.adminToken;
    const admin = await Client.connect(srv.url, { name: 'instructor' });

    /* instructor messages without the admin token, or with a wrong one */
    const anon = await Client.connect(srv.url, { name: 'anon' });
    refused(await anon.request({ type: 'course_create', name: 'x', game: 'reversi',
      gates: [{ opponent: 'random', games: 2, min_rate: 0 }] }), 'forbidden', 'admin_only');
    refused(await anon.request({ type: 'course_list', admin_token: 'x'.repeat(24) }), 'forbidden',
      'admin_only');
    /* bad course settings are named */
    refused(await admin.request({ type: 'course_create', admin_token: A, name: 'x', game: 'reversi',
      gates: [{ opponent: 'nosuchbot', games: 2, min_rate: 0 }] }), 'unknown_bot');
    refused(await admin.request({ type: 'course_create', admin_token: A, name: 'x', game: 'reversi',
      gates: [{ opponent: 'random', games: 2, min_rate: 1.5 }] }), 'invalid_argument');
    refused(await admin.request({ type: 'course_create', admin_token: A, name: 'x', game: 'chess',
      gates: [{ opponent: 'random', games: 2, min_rate: 0 }] }), 'unknown_game');

    const { course } = await admin.request({
      type: 'course_create', admin_token: A, name: 'access', game: 'reversi', move_ms: 2000 * SLOW,
      seed: 5, gates: [{ opponent: 'random', games: 2, min_rate: 0 }],
    }, 'course_created');
    /* a roster with a bad line is refused whole, naming the line */
    const bad = await admin.request({ type: 'course_add_students', admin_token: A, course,
      csv: 'name,id\nA,a1\n,a2\n' });
    refused(bad, 'invalid_argument', 'bad_roster');
    assert.match(bad.message, /line 3/);
    const added = await admin.request({ type: 'course_add_students', admin_token: A, course,
      csv: 'id,name\na1,Alice\nb2,Bob\nc3,Carol\nd4,Dan\n' }, 'course_students_added');
    const tok = Object.fromEntries(added.students.map((s) => [s.student_id, s.token]));
    refused(await admin.request({ type: 'course_add_students', admin_token: A, course,
      csv: 'id,name\na1,Again\n' }), 'invalid_argument', 'bad_roster');

    const alice = await Client.connect(srv.url, { name: 'alice' });
    const bob = await Client.connect(srv.url, { name: 'bob' });
    refused(await alice.request({ type: 'course_view', token: 'a'.repeat(26) }), 'bad_token',
      'bad_token');

    /* uploads: declared kind, size, syntax, names */
    const py = fs.readFileSync(path.join(BOTS, 'first.py')).toString('base64');
    const up = (files, kind = 'python', main) => alice.request({ type: 'course_submit',
      token: tok.a1, kind, main, files });
    refused(await up([{ name: 'bot.py', data: Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, 0xff, 0xfe]).toString('base64') }]),
      'invalid_argument', 'not_declared_kind');
    refused(await up([{ name: 'bot.py', data: Buffer.from('def f(:\n  pass\n').toString('base64') }]),
      'invalid_argument', 'not_declared_kind');
    refused(await up([{ name: 'bot', data: py }], 'executable'), 'invalid_argument',
      'not_declared_kind');
    refused(await up([{ name: 'big.py', data: Buffer.alloc(41000, 0x23).toString('base64') }]),
      'message_too_large', 'too_large');
    refused(await up([{ name: '../x.py', data: py }]), 'invalid_argument', 'bad_upload');
    refused(await up([{ name: 'a.py', data: py }], 'java'), 'invalid_argument', 'bad_upload');
    refused(await up([{ name: 'a.py', data: py }, { name: 'b.py', data: py }], 'python', 'c.py'),
      'invalid_argument', 'bad_upload');
    /* nothing of those was kept */
    let v = await alice.request({ type: 'course_view', token: tok.a1 }, 'course_view');
    assert.equal(v.submissions.length, 0);
    /* Dan tries once, with a syntax error, and never again: not a no-show in the grades */
    refused(await bob.request({ type: 'course_submit', token: tok.d4, kind: 'python',
      files: [{ name: 'bot.py', data: Buffer.from('def f(:\n  pass\n').toString('base64') }] }),
    'invalid_argument', 'not_declared_kind');

    /* two real submissions each: versions and history */
    for (const [c, k] of [[alice, tok.a1], [bob, tok.b2]]) {
      await submitBot(c, k, [path.join(BOTS, 'first.py')]);
      const r2 = await submitBot(c, k, [path.join(BOTS, 'greedy.py')]);
      assert.equal(r2.version, 2);
    }
    v = await waitFor(alice, { type: 'course_view', token: tok.a1 },
      (x) => x.submissions.length === 2 && x.submissions.every((s) => s.state === 'done'),
      120000 * SLOW);
    assert.equal(v.role, 'student');
    assert.deepEqual(v.submissions.map((s) => s.version), [1, 2]);
    assert.ok(v.submissions.every((s) => s.student_id === 'a1' && s.created_ms > 0));
    assert.ok(v.submissions.every((s) => s.qualified && s.gates[0].game_ids.length === 2));
    /* fair start-up: each program's start-up is measured before its first game and shown */
    assert.ok(v.submissions.every((s) => s.gates[0].startup_ms > 0), JSON.stringify(v.submissions[0].gates[0]));
    assert.equal(v.roster, undefined, 'a student gets no roster');
    const vb = await waitFor(bob, { type: 'course_view', token: tok.b2 },
      (x) => x.submissions.every((s) => s.state === 'done'), 120000 * SLOW);
    const bobGame = vb.submissions[0].gates[0].game_ids[0];
    const bobSub = vb.submissions[0].submission;
    const aliceGame = v.submissions[0].gates[0].game_ids[0];

    /* Alice cannot read Bob's game (record, stderr) or code */
    refused(await alice.request({ type: 'course_game', token: tok.a1, game: bobGame }),
      'forbidden', 'not_yours');
    refused(await alice.request({ type: 'course_game', token: tok.a1, game: 999999 }),
      'forbidden', 'not_yours');
    refused(await alice.request({ type: 'course_code', token: tok.a1, submission: bobSub }),
      'forbidden', 'not_yours');
    /* her own: yes, and the opponent's stderr is never hers to see */
    const own = await alice.request({ type: 'course_game', token: tok.a1, game: aliceGame },
      'course_game');
    assert.equal(own.stderr.filter((x) => x !== null).length, 1);
    const code = await alice.request({ type: 'course_code', token: tok.a1,
      submission: v.submissions[0].submission }, 'course_code');
    assert.equal(Buffer.from(code.files[0].data, 'base64').toString('base64'), py);
    /* the instructor reads everything */
    const ag = await admin.request({ type: 'course_game', admin_token: A, game: bobGame },
      'course_game');
    assert.equal(ag.stderr.length, 2);
    await admin.request({ type: 'course_code', admin_token: A, submission: bobSub }, 'course_code');

    /* a student cannot act as the instructor, even with their token */
    for (const type of ['course_start_final', 'course_grades', 'course_set_deadline',
      'course_add_students'])
      refused(await alice.request({ type, token: tok.a1, course, deadline_ms: 0, csv: 'id,name\nz,Z\n' }),
        'forbidden', 'admin_only');
    refused(await alice.request({ type: 'course_view', admin_token: tok.a1, course }), 'forbidden',
      'admin_only');
    /* the final needs the frozen set */
    refused(await admin.request({ type: 'course_start_final', admin_token: A, course }),
      'invalid_argument', 'not_frozen');

    /* the deadline freezes the latest qualifying version; no submission after it */
    await admin.request({ type: 'course_set_deadline', admin_token: A, course, deadline_ms: 0 },
      'course_deadline');
    refused(await submitBot(bob, tok.b2, [path.join(BOTS, 'first.py')], true), 'forbidden',
      'deadline_passed');
    const iv = await admin.request({ type: 'course_view', admin_token: A, course }, 'course_view');
    assert.equal(iv.role, 'instructor');
    assert.deepEqual(iv.submissions.filter((s) => s.frozen).map((s) => [s.student_id, s.version]),
      [['a1', 2], ['b2', 2]]);
    assert.equal(iv.roster.length, 4);

    refused(await admin.request({ type: 'course_start_final', admin_token: A, course,
      format: 'gauntlet' }), 'invalid_argument');
    const fs0 = await admin.request({ type: 'course_start_final', admin_token: A, course,
      games_per_pair: 2, format: 'knockout' }, 'course_final_started');
    assert.equal(fs0.format, 'knockout');
    refused(await admin.request({ type: 'course_start_final', admin_token: A, course }),
      'invalid_argument', 'final_started');
    const fin = await waitFor(admin, { type: 'course_view', admin_token: A, course },
      (x) => x.course.final_state === 'done', 120000 * SLOW);
    assert.equal(fin.final.length, 2);
    assert.deepEqual(fin.final.map((r) => r.place).sort(), [1, 2], 'a knockout decides');
    assert.ok(fin.final_games.length >= 2, 'a tie is broken by more games');
    assert.match(fin.course.final_note, /^knockout of 2 finalists/);
    /* Alice's report: her row only */
    const av = await alice.request({ type: 'course_view', token: tok.a1 }, 'course_view');
    assert.deepEqual(av.final.map((r) => r.student_id), ['a1']);
    const rows = csvRows((await admin.request({ type: 'course_grades', admin_token: A, course },
      'course_grades')).csv);
    assert.equal(rows.length, 5);
    const col = (name) => rows[0].indexOf(name);
    assert.equal(rows[3][0], 'c3');
    assert.equal(rows[3][col('final_rank')], '', 'Carol never submitted: no rank');
    assert.equal(rows[3][col('status')], 'no_show');
    assert.equal(rows[4][0], 'd4');
    assert.equal(rows[4][col('status')], 'refused', 'Dan tried, and every upload was refused');
    assert.equal(rows[4][col('final_rank')], '');
    assert.deepEqual(rows.slice(1, 3).map((r) => r[col('final_rank')]).sort(), ['1', '2']);
    assert.deepEqual(rows.slice(1, 3).map((r) => r[col('status')]), ['finalist', 'finalist']);
    /* a knockout's places: the round reached decided the second, and is a column */
    const second = rows.slice(1, 3).find((r) => r[col('final_rank')] === '2');
    assert.equal(second[col('decided_by')], 'round reached');
    assert.ok(rows.slice(1, 3).every((r) => /^\d+$/.test(r[col('round_reached')])));
  });

test('a native executable is run as itself; a bot cannot list the others\' folders; ' +
  'another finalist\'s crash shows without its stderr',
  { timeout: 300000 }, async (t) => {
    const { execFileSync } = require('node:child_process');
    const srv = await startAdmin({ tag: 'course-elf' });
    t.after(() => srv.cleanup());
    const A = srv.adminToken;
    const admin = await Client.connect(srv.url, { name: 'instructor' });
    const { course } = await admin.request({
      type: 'course_create', admin_token: A, name: 'native', game: 'reversi', move_ms: 2000 * SLOW,
      seed: 9, gates: [{ opponent: 'random', games: 2, min_rate: 0 }],
    }, 'course_created');
    const added = await admin.request({ type: 'course_add_students', admin_token: A, course,
      csv: 'id,name\nx1,Xavier\ny2,Yolanda\nz3,Zoe\n' }, 'course_students_added');
    const tok = Object.fromEntries(added.students.map((s) => [s.student_id, s.token]));
    const x = await Client.connect(srv.url, { name: 'x1' });
    const y = await Client.connect(srv.url, { name: 'y2' });
    const z = await Client.connect(srv.url, { name: 'z3' });
    await submitBot(z, tok.z3, [path.join(BOTS, 'broken.py')]);

    /* y2 first, so that x1's bot has someone to look for */
    await submitBot(y, tok.y2, [path.join(BOTS, 'first.py')]);
    await submitBot(x, tok.x1, [path.join(BOTS, 'spy.py')]);
    let cc = null;
    for (const c of ['cc', 'gcc'])
      try { execFileSync(c, ['--version'], { stdio: 'ignore' }); cc = c; break; } catch { /* next */ }
    const exe = path.join(srv.dir, 'stdio_bot');
    if (cc) {
      execFileSync(cc, ['-O2', '-o', exe, path.join(__dirname, '..', '..', 'docs', 'examples', 'stdio_bot.c')]);
      const r = await submitBot(y, tok.y2, [exe], false, 'executable');
      assert.equal(r.version, 2);
    } else {
      t.diagnostic('no C compiler: the executable submission is not tried');
    }
    const v = await waitFor(admin, { type: 'course_view', admin_token: A, course },
      (w) => w.submissions.length === (cc ? 4 : 3) && w.submissions.every((s) => s.state === 'done'),
      120000 * SLOW);
    for (const s of v.submissions)
      assert.ok(s.qualified, JSON.stringify(s));
    if (cc) {
      const native = v.submissions.find((s) => s.kind === 'executable');
      assert.equal(native.gates[0].faults, 0, native.verdict);
      assert.equal(native.gates[0].games, 2);
    }
    /* what the spy saw: its folder is /bot in a sandbox of its own
     * (players/sandbox.h), root or not: above it only the sandbox's own
     * root, no course, no other student, no database */
    const spy = v.submissions.find((s) => s.student_id === 'x1');
    const g = await x.request({ type: 'course_game', token: tok.x1, game: spy.gates[0].game_ids[0] },
      'course_game');
    const seen = g.stderr[g.your_seat];
    assert.match(seen, /LISTED \/: \[.*'bot'/, seen);
    assert.doesNotMatch(seen, /course-|student-|READ|tessera\.db/, seen);

    /* a final with the broken bot (min_rate 0 let it through): Yolanda sees
     * that Zoe's program crashed, not what it wrote */
    await admin.request({ type: 'course_set_deadline', admin_token: A, course, deadline_ms: 0 },
      'course_deadline');
    await admin.request({ type: 'course_start_final', admin_token: A, course }, 'course_final_started');
    await waitFor(admin, { type: 'course_view', admin_token: A, course },
      (w) => w.course.final_state === 'done', 120000 * SLOW);
    const yv = await y.request({ type: 'course_view', token: tok.y2 }, 'course_view');
    const vsZ = yv.final_games.filter((fg) => fg.names.includes('z3'));
    assert.equal(vsZ.length, 2);
    for (const fg of vsZ) {
      assert.match(fg.verdict, /^P[12] \(seat [01]\): crashed$/, fg.verdict);
      const one = await y.request({ type: 'course_game', token: tok.y2, game: fg.game }, 'course_game');
      assert.match(one.verdict, /crashed$/);
      assert.equal(one.stderr[1 - one.your_seat], null);
      assert.notEqual(one.culprit, one.your_seat);
      const all = await admin.request({ type: 'course_game', admin_token: A, game: fg.game }, 'course_game');
      assert.match(all.verdict, /KeyError/);
      assert.match(all.stderr[all.culprit], /KeyError/);
    }
    /* Zoe sees her own crash in full */
    const zv = await z.request({ type: 'course_view', token: tok.z3 }, 'course_view');
    assert.ok(zv.final_games.length === 4 && zv.final_games.every((fg) => /KeyError/.test(fg.verdict)),
      JSON.stringify(zv.final_games));
  });
