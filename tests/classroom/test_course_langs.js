'use strict';
/*
 * test_course_langs.js — a course with a submission in each language the
 * server runs (docs/classroom.md, "What students submit"): Python, Java
 * (two files, built by javac in the sandbox), C and C++ (built by gcc and
 * g++ there), JavaScript (run by node), each through the gate without a
 * fault and qualified; a C file that does not compile is refused with
 * gcc's own message (reason compile_error), and one that is not JavaScript
 * with node's — nothing of them is kept.
 *
 * Usage: node test_course_langs.js PATH/TO/tessera  (CTest: classroom_langs)
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { Client, startAdmin } = require('../server/lib');
const { submitBot, waitFor } = require('./course_lib');

const BOTS = path.join(__dirname, 'bots');
const LANGS = path.join(BOTS, 'langs');
const SLOW = process.env.TESSERA_SANITIZED === '1' ? 3 : 1;
/* a build may take javac's ten seconds and more on a loaded machine */
const BUILD_MS = 120000 * SLOW;

test('Python, Java, C, C++ and JavaScript each qualify; a compile error is shown', { timeout: 600000 },
  async (t) => {
    const srv = await startAdmin({ tag: 'course-langs' });
    t.after(() => srv.cleanup());
    const A = srv.adminToken;
    const admin = await Client.connect(srv.url, { name: 'instructor' });
    const { course } = await admin.request({
      type: 'course_create', admin_token: A, name: 'languages', game: 'reversi',
      move_ms: 3000 * SLOW, seed: 12, gates: [{ opponent: 'random', games: 2, min_rate: 0 }],
    }, 'course_created');
    const added = await admin.request({ type: 'course_add_students', admin_token: A, course,
      csv: 'id,name\npy,Pia\njava,Jo\nc,Cy\ncpp,Cass\njs,Jess\n' }, 'course_students_added');
    const tok = Object.fromEntries(added.students.map((s) => [s.student_id, s.token]));
    const submissions = [
      ['py', 'python', [path.join(BOTS, 'greedy.py')]],
      ['java', 'java', [path.join(LANGS, 'Bot.java'), path.join(LANGS, 'Legal.java')]],
      ['c', 'c', [path.join(__dirname, '..', '..', 'docs', 'examples', 'stdio_bot.c')]],
      ['cpp', 'cpp', [path.join(LANGS, 'first.cpp')]],
      ['js', 'javascript', [path.join(LANGS, 'first.js')]],
    ];
    const clients = {};
    for (const [sid] of submissions)
      clients[sid] = await Client.connect(srv.url, { name: sid });

    /* compile errors first: refused with the compiler's words, nothing kept */
    const bad = await submitBot(clients.c, tok.c, [path.join(LANGS, 'broken.c')], true, 'c', BUILD_MS);
    assert.equal(bad.type, 'error', JSON.stringify(bad));
    assert.equal(bad.code, "invalid_argument", JSON.stringify(bad));
    assert.equal(bad.reason, 'compile_error');
    assert.match(bad.message, /broken\.c:8:5: error: expected/, bad.message);
    assert.doesNotMatch(bad.message, new RegExp(srv.dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
    const badjs = await submitBot(clients.js, tok.js, [path.join(LANGS, 'broken.js')], true, 'javascript',
      BUILD_MS);
    assert.equal(badjs.reason, 'compile_error', JSON.stringify(badjs));
    assert.match(badjs.message, /SyntaxError/);
    /* a main file of another language is a bad upload */
    const wrong = await submitBot(clients.java, tok.java, [path.join(LANGS, 'first.js')], true, 'java');
    assert.equal(wrong.reason, 'bad_upload', JSON.stringify(wrong));

    for (const [sid, kind, files] of submissions) {
      const r = await submitBot(clients[sid], tok[sid], files, false, kind, BUILD_MS);
      assert.equal(r.version, 1, `${sid}: the refused uploads kept no version`);
      assert.equal(r.kind, kind);
    }
    const v = await waitFor(admin, { type: 'course_view', admin_token: A, course },
      (w) => w.submissions.length === 5 && w.submissions.every((s) => s.state === 'done'),
      240000 * SLOW);
    for (const s of v.submissions) {
      assert.equal(s.gates[0].faults, 0, `${s.student_id}: ${s.verdict}`);
      assert.equal(s.gates[0].games, 2);
      assert.ok(s.qualified, `${s.student_id}: ${s.verdict}`);
      assert.ok(s.gates[0].startup_ms > 0, `${s.student_id}: its start-up measured`);
      /* what the build made is one of its files */
      const built = { c: 'build.out', cpp: 'build.out', java: 'build.jar' }[s.student_id];
      if (built)
        assert.ok(s.files.some((f) => f.name === built), JSON.stringify(s.files));
    }
    /* the student reads their sources back, not the build */
    const code = await clients.java.request({ type: 'course_code', token: tok.java,
      submission: v.submissions.find((s) => s.student_id === 'java').submission }, 'course_code');
    assert.equal(code.kind, 'java');
    assert.match(Buffer.from(code.files.find((f) => f.name === 'Bot.java').data, 'base64').toString(),
      /class Bot/);
  });
