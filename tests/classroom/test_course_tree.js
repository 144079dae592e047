'use strict';
/*
 * test_course_tree.js — a submission keeps its folder tree (issue 25,
 * docs/classroom.md "Uploads"): a Java bot whose main class is in a package
 * (pkg/Main.java, its helper in pkg/util/Legal.java: javac builds the tree,
 * the jar runs pkg.Main) and a Python bot that imports a package of its own
 * (bot.py, pkg/__init__.py, pkg/moves.py), each sent as a zip of its folder
 * in chunks, build or check and play their gate with no fault; course_code
 * lists the files by their paths. A zip is still refused for a path out of
 * the folder, an absolute path, a symbolic link, a path both a file and a
 * folder, and one too deep.
 *
 * Usage: node test_course_tree.js PATH/TO/tessera  (CTest: classroom_tree)
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { Client, startAdmin } = require('../server/lib');
const { uploadFile, waitFor } = require('./course_lib');

const SLOW = process.env.TESSERA_SANITIZED === '1' ? 3 : 1;
const LANGS = path.join(__dirname, 'bots', 'langs');

/* A zip made by Python's zipfile: entries [name, Buffer, unixMode?]. */
function makeZip(file, entries) {
  const spec = entries.map(([n, b, mode]) => [n, b.toString('base64'), mode || 0]);
  execFileSync('python3', ['-c', `
import base64, json, sys, zipfile
spec = json.loads(sys.stdin.read())
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
    for name, data, mode in spec:
        i = zipfile.ZipInfo(name)
        i.compress_type = zipfile.ZIP_DEFLATED
        if mode:
            i.external_attr = mode << 16
        z.writestr(i, base64.b64decode(data))
`, file], { input: JSON.stringify(spec) });
  return fs.readFileSync(file);
}

/* The example Java bot, moved into packages: pkg.Main uses pkg.util.Legal. */
const MAIN_JAVA = Buffer.from(fs.readFileSync(path.join(LANGS, 'Bot.java'), 'utf8')
  .replace('import java.io.BufferedReader;', 'package pkg;\n\nimport pkg.util.Legal;\nimport java.io.BufferedReader;')
  .replace('public class Bot', 'public class Main'));
const LEGAL_JAVA = Buffer.from(fs.readFileSync(path.join(LANGS, 'Legal.java'), 'utf8')
  .replace('class Legal {', 'package pkg.util;\n\npublic class Legal {')
  .replace('static String first', 'public static String first'));
const BOT_PY = Buffer.from(`import json, sys
from pkg.moves import first

for line in sys.stdin:
    m = json.loads(line)
    if m.get("type") == "your_turn":
        print(json.dumps({"type": "move", "move": first(m)}), flush=True)
`);
const MOVES_PY = Buffer.from('def first(msg):\n    return msg["legal"][0]\n');

test('a Java package tree and a Python package, zipped with their folders', { timeout: 300000 * SLOW }, async (t) => {
  const srv = await startAdmin({ tag: 'tree' });
  t.after(() => srv.cleanup());
  const A = srv.adminToken;
  const admin = await Client.connect(srv.url, { name: 'instructor' });
  const created = await admin.request({ type: 'course_create', admin_token: A, name: 'tree', game: 'reversi',
    move_ms: 5000 * SLOW, seed: 3, qualify: 1, gates: [{ opponent: 'random', games: 2, min_rate: 0 }] },
  'course_created');
  const course = created.course;
  const added = await admin.request({ type: 'course_add_students', admin_token: A, course,
    csv: 'name,id\nJava,s1\nPython,s2\n' }, 'course_students_added');
  const tok = Object.fromEntries(added.students.map((s) => [s.student_id, s.token]));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tessera-tree-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const submitZip = async (c, token, kind, main, entries) => {
    const zip = makeZip(path.join(dir, 'bot.zip'), entries);
    const up = await uploadFile(c, token, 'bot.zip', zip);
    return c.request({ type: 'course_submit', token, kind, main, uploads: [up] }, undefined, 120000 * SLOW);
  };

  const java = await Client.connect(srv.url, { name: 's1' });
  const jr = await submitZip(java, tok.s1, 'java', 'pkg/Main.java', [
    ['mybot/', Buffer.alloc(0), 0o40755],
    ['mybot/pkg/Main.java', MAIN_JAVA], ['mybot/pkg/util/Legal.java', LEGAL_JAVA]]);
  assert.equal(jr.type, 'course_submitted', JSON.stringify(jr));
  const py = await Client.connect(srv.url, { name: 's2' });
  const pr = await submitZip(py, tok.s2, 'python', 'bot.py', [
    ['bot.py', BOT_PY], ['pkg/__init__.py', Buffer.from('\n')], ['pkg/moves.py', MOVES_PY]]);
  assert.equal(pr.type, 'course_submitted', JSON.stringify(pr));

  const view = await waitFor(admin, { type: 'course_view', admin_token: A, course },
    (v) => v.submissions.length === 2 && v.submissions.every((s) => s.state === 'done'), 180000 * SLOW);
  for (const s of view.submissions) {
    assert.equal(s.qualified, true, JSON.stringify(s));
    assert.equal(s.gates[0].faults, 0, `${s.student_id} played its gate without a fault: ${JSON.stringify(s.gates[0])}`);
  }
  const code = await java.request({ type: 'course_code', token: tok.s1, submission: jr.submission }, 'course_code');
  assert.deepEqual(code.files.map((f) => f.name).sort(), ['build.jar', 'pkg/Main.java', 'pkg/util/Legal.java']);
  assert.equal(code.main, 'pkg/Main.java');
  const pcode = await py.request({ type: 'course_code', token: tok.s2, submission: pr.submission }, 'course_code');
  assert.deepEqual(pcode.files.map((f) => f.name).sort(), ['bot.py', 'pkg/__init__.py', 'pkg/moves.py']);

  /* still refused: ways out of the folder, links, clashes, depth */
  const bad = [
    ['unsafe_path', [['bot.py', BOT_PY], ['pkg/../../evil.py', MOVES_PY]]],
    ['unsafe_path', [['bot.py', BOT_PY], ['/etc/evil.py', MOVES_PY]]],
    ['unsafe_path', [['bot.py', BOT_PY], ['pkg/moves.py', Buffer.from('/etc/passwd'), 0o120777]]],
    ['bad_zip', [['bot.py', BOT_PY], ['pkg', MOVES_PY], ['pkg/moves.py', MOVES_PY]]],
    ['bad_upload', [['bot.py', BOT_PY], ['a/b/c/d/e/f/g/h/i.py', MOVES_PY]]],
  ];
  for (const [reason, entries] of bad) {
    const r = await submitZip(py, tok.s2, 'python', 'bot.py', entries);
    assert.equal(r.type, 'error', JSON.stringify(r));
    assert.equal(r.reason, reason, `${entries.map((e) => e[0]).join(', ')}: ${JSON.stringify(r)}`);
  }
  const after = await admin.request({ type: 'course_view', admin_token: A, course }, 'course_view');
  assert.equal(after.submissions.length, 2, 'nothing of a refused zip was kept');
});
