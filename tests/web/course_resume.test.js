// An upload resumed after a reload of the student's page (issue 25), in Debian's chromium against
// a real `tessera serve`: a student chooses their bot and a 6 MB weights file and presses submit;
// midway the page is reloaded; chosen again, the files go on from what the server kept — the
// page sends `resume` for the weights file and none of its chunks from offset 0 again — and the
// submission is received. At 1280×800 and 390×844 (a student each). No console error.
//
//   node course_resume.test.js --bin build/cli/tessera --web web --out DIR
'use strict';
const fs = require('fs');
const path = require('path');
const {options, requireTools, ms, strictPage, overflow, webStage} = require('./pages.js');

const O = options();
const lib = requireTools(O.bin);
const {test, before, after} = require('node:test');
const assert = require('node:assert/strict');
const {waitFor} = lib;

const BOTS = path.join(__dirname, '..', 'classroom', 'bots');
fs.mkdirSync(O.shots, {recursive: true});
const S = webStage(O, lib, 'course-resume', {adminToken: true});
const {work, pages} = S;
let server, browser, client, adminToken; // S's, once started
before(async () => ({server, browser, client, adminToken} = await S.start()));

test('an upload goes on after a reload, on a desktop and on a phone', async () => {
  const c = await client.request({type: 'course_create', admin_token: adminToken, name: 'Resume', game: 'reversi', move_ms: ms(2000),
    gates: [{opponent: 'random', games: 2, min_rate: 0}], max_upload_bytes: 8 << 20});
  assert.equal(c.type, 'course_created', JSON.stringify(c));
  const added = await client.request({type: 'course_add_students', admin_token: adminToken, course: c.course, csv: 'name,id\nAda,s1\nBo,s2\n'});
  const big = path.join(work, 'weights.bin');
  const data = Buffer.alloc(6 << 20);
  for (let i = 0; i < data.length; i += 4096) data[i] = (i / 4096) & 255;
  fs.writeFileSync(big, data);
  const files = [path.join(BOTS, 'greedy.py'), big];

  for (const [i, [width, height]] of [[1280, 800], [390, 844]].entries()) {
    const s = added.students[i];
    const p = await strictPage(lib, browser.context);
    pages.push(p);
    const page = p.page;
    const sent = [];
    page.on('websocket', (ws) => ws.on('framesent', (f) => {
      try { const m = JSON.parse(f.payload); if (m.type === 'course_upload') sent.push(m); } catch { /* not ours */ }
    }));
    await page.setViewportSize({width, height});
    await page.goto(`${server.url}#/course`);
    await page.fill('.token-form input[name=token]', s.token);
    await page.click('.token-form button[type=submit]');
    await page.locator('form.submit-form').waitFor();
    await page.setInputFiles('form.submit-form input[name=files]', files);
    await page.click('form.submit-form button[type=submit]');
    /* midway through the weights file: reload */
    await waitFor(async () => {
      const v = await page.locator('progress.upload-progress').evaluate((b) => b.value / b.max).catch(() => 0);
      return v > 0.3 && v < 0.9;
    }, 'the upload midway', ms(60000), 20);
    await page.reload();
    const before = sent.length;
    await page.locator('form.submit-form').waitFor(); /* the token is kept by the browser */
    assert.deepEqual(await overflow(page), [], `the page fits at ${width}px`);
    await page.setInputFiles('form.submit-form input[name=files]', files);
    await page.click('form.submit-form button[type=submit]');
    await waitFor(async () => /version 1 received/.test(await page.locator('.submit-status').textContent()), 'the submission', ms(120000), 100);
    const after = sent.slice(before);
    const resume = after.find((m) => m.op === 'resume');
    assert.ok(resume, 'the page resumed the upload: ' + JSON.stringify(after.map((m) => m.op).slice(0, 8)));
    const chunks = after.filter((m) => m.op === 'chunk' && m.upload === resume.upload);
    assert.ok(chunks.length > 0, 'the rest was sent');
    assert.ok(chunks[0].offset > 0, `it went on from ${chunks[0].offset}, not from the start`);
    assert.ok(chunks[0].offset >= 0.3 * data.length, 'from where it was when the page reloaded');
    assert.equal(after.filter((m) => m.op === 'begin' && m.name === 'weights.bin').length, 0, 'not begun again');
    await page.screenshot({path: path.join(O.shots, `${width < 500 ? 'phone' : 'desktop'}-student-resumed.png`), fullPage: true});
    /* the server has the whole file */
    const v = await client.request({type: 'course_view', admin_token: adminToken, course: c.course});
    const sub = v.submissions.find((x) => x.student_id === s.student_id);
    assert.deepEqual(sub.files.map((f) => [f.name, f.bytes]).sort(), [['greedy.py', fs.statSync(files[0]).size], ['weights.bin', data.length]]);
    assert.deepEqual(p.problems, []);
  }
});
