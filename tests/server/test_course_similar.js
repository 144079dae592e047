'use strict';
/*
 * test_course_similar.js — identical and near-identical submissions flagged
 * to the instructor (issue 25, "before the deadline"): two students send the
 * same file, a third the same code with its comments and spacing changed, a
 * fourth another bot. The instructor's view names, on each, the other
 * students' copies and how alike they are; a student's view says nothing of
 * the others.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { Client, SLOW, startAdmin } = require('./lib');
const { submitBot } = require('../classroom/course_lib');

const BOTS = path.join(__dirname, '..', 'classroom', 'bots');

test('identical and near-identical submissions are flagged to the instructor',
  { timeout: 120000 * SLOW }, async (t) => {
    const srv = await startAdmin({ tag: 'course-similar' });
    t.after(() => srv.cleanup());
    const A = srv.adminToken;
    const admin = await Client.connect(srv.url, { name: 'instructor' });
    const { course } = await admin.request({ type: 'course_create', admin_token: A, name: 'similar',
      game: 'reversi', move_ms: 2000 * SLOW, gates: [{ opponent: 'random', games: 2, min_rate: 0 }] },
    'course_created');
    const added = await admin.request({ type: 'course_add_students', admin_token: A, course,
      csv: 'name,id\nA,s1\nB,s2\nC,s3\nD,s4\n' }, 'course_students_added');
    const tok = Object.fromEntries(added.students.map((s) => [s.student_id, s.token]));
    /* s3's copy: comments changed and added, spacing changed, same code */
    const dir = path.join(srv.dir, 'copy');
    fs.mkdirSync(dir);
    const orig = fs.readFileSync(path.join(BOTS, 'first.py'), 'utf8');
    const copy = ('# my own bot\n' + orig)
      .replace('for line in sys.stdin:', '# read every line\nfor line   in   sys.stdin :  # a loop')
      .replace(/\n\n/g, '\n\n\n');
    assert.notEqual(copy, orig);
    fs.writeFileSync(path.join(dir, 'first.py'), copy);
    const c = await Client.connect(srv.url, { name: 'students' });
    await submitBot(c, tok.s1, [path.join(BOTS, 'first.py')]);
    await submitBot(c, tok.s2, [path.join(BOTS, 'first.py')]);
    await submitBot(c, tok.s3, [path.join(dir, 'first.py')]);
    await submitBot(c, tok.s4, [path.join(BOTS, 'greedy.py')]);

    const v = await admin.request({ type: 'course_view', admin_token: A, course }, 'course_view');
    const by = Object.fromEntries(v.submissions.map((s) => [s.student_id, s]));
    const named = (s) => s.similar.map((x) => `${x.student_id} v${x.version}: ${x.how}`).sort();
    assert.deepEqual(named(by.s1), ['s2 v1: identical', 's3 v1: the same but for comments and spacing']);
    assert.deepEqual(named(by.s2), ['s1 v1: identical', 's3 v1: the same but for comments and spacing']);
    assert.deepEqual(named(by.s3), ['s1 v1: the same but for comments and spacing',
      's2 v1: the same but for comments and spacing']);
    assert.deepEqual(by.s4.similar, []);
    assert.equal(by.s1.similar_count, 2);
    /* a student sees nothing of the others */
    const mine = await c.request({ type: 'course_view', token: tok.s1 }, 'course_view');
    assert.equal(mine.submissions[0].similar, undefined);
  });
