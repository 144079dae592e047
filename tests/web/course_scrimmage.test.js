// The live scrimmage ladder on the classroom pages (issue 25), in Debian's chromium against a real
// `tessera serve`: a course with `scrimmage: "class"` and two qualified bots. The instructor's page
// shows the table (place, bot, games, W-L-D, rating with its interval) filling in while pairs are
// played, its latest games open to a replay with the bots' names; the setting is changed on the
// page. A student's page shows the table with "class" and not with "instructor". At 1280×800 and
// 390×844: every cell keeps its heading (a column's, or its own label on a phone), nothing sticks
// out sideways. No console error.
//
//   node course_scrimmage.test.js --bin build/cli/tessera --web web --out DIR
'use strict';
const fs = require('fs');
const path = require('path');
const {options, requireTools, ms, overflow, webStage, cellLabels} = require('./pages.js');

const O = options();
const lib = requireTools(O.bin);
const {test, before, after} = require('node:test');
const assert = require('node:assert/strict');
const {waitFor} = lib;

const BOTS = path.join(__dirname, '..', 'classroom', 'bots');
fs.mkdirSync(O.shots, {recursive: true});
const S = webStage(O, lib, 'course-scrimmage', {adminToken: true});
const {pages} = S;
let server, client, adminToken; // S's, once started
before(async () => ({server, client, adminToken} = await S.start()));

const open = S.open;

test('the scrimmage table on the instructor\'s and a student\'s page, desktop and phone', async () => {
  const c = await client.request({type: 'course_create', admin_token: adminToken, name: 'Scrim', game: 'reversi', move_ms: ms(2000),
    seed: 11, gates: [{opponent: 'random', games: 2, min_rate: 0}], qualify: 1, scrimmage: 'class'});
  assert.equal(c.type, 'course_created', JSON.stringify(c));
  const added = await client.request({type: 'course_add_students', admin_token: adminToken, course: c.course,
    csv: 'name,id\nAda,s1\nBrian,s2\nCarol,s3\n'});
  const tok = Object.fromEntries(added.students.map((s) => [s.student_id, s.token]));
  for (const [sid, bot] of [['s1', 'greedy.py'], ['s2', 'first.py']]) {
    const r = await client.request({type: 'course_submit', token: tok[sid], kind: 'python', main: bot,
      files: [{name: bot, data: fs.readFileSync(path.join(BOTS, bot)).toString('base64')}]});
    assert.equal(r.type, 'course_submitted', JSON.stringify(r));
  }

  /* the instructor's page: the table fills in by itself (the page polls while it plays) */
  const ins = await open(1280, 800, `${server.url}#/instructor/${c.course}`);
  await ins.page.fill('.token-form input[name=token]', adminToken);
  await ins.page.click('.token-form button[type=submit]');
  await waitFor(async () => (await ins.page.locator('section.scrimmage table.scrim-table tbody tr').count()) === 2 &&
    /Scrimmage \([1-9]/.test(await ins.page.locator('section.scrimmage h3').textContent()), 'the scrimmage table', ms(120000), 250);
  const rows = await ins.page.locator('section.scrimmage table.scrim-table tbody tr').evaluateAll((trs) => trs.map((tr) => tr.dataset.student));
  assert.deepEqual([...rows].sort(), ['s1', 's2']);
  assert.match(await ins.page.locator('section.scrimmage .scrim-state').textContent(), /shown to the class/);
  assert.match(await ins.page.locator('section.scrimmage table.scrim-table tbody tr').first().textContent(), /\[[−+-]?\d+, [−+-]?\d+\]/,
    'a rating with its interval');
  assert.deepEqual(await cellLabels(ins.page, 'section.scrimmage table.scrim-table'), Array(5).fill('heading'));
  await ins.page.screenshot({path: path.join(O.shots, 'desktop-instructor-scrimmage.png'), fullPage: true});

  /* a scrimmage game opens with the bots' names */
  await ins.page.click('section.scrimmage details.scrim-games summary');
  await ins.page.locator('section.scrimmage details.scrim-games a.game-link').first().click();
  await waitFor(async () => /s1 v1/.test(await ins.page.locator('.game-detail, section.game').first().textContent().catch(() => '')) ||
    /s1 v1/.test(await ins.page.locator('body').textContent()), 'the game panel', ms(30000));
  assert.ok(await ins.page.locator('a.replay-link').first().isVisible(), 'a replay link');

  /* the phone: labelled cells, nothing sideways */
  await ins.page.setViewportSize({width: 390, height: 844});
  assert.deepEqual(await overflow(ins.page), [], 'the instructor\'s page fits a phone');
  const phoneLabels = await cellLabels(ins.page, 'section.scrimmage table.scrim-table');
  assert.deepEqual(phoneLabels, ['#', 'bot', 'games', 'W-L-D', 'rating (95%)']);
  await ins.page.screenshot({path: path.join(O.shots, 'phone-instructor-scrimmage.png'), fullPage: true});
  await ins.page.setViewportSize({width: 1280, height: 800});

  /* a student who has not submitted sees it (class), at both sizes */
  const stu = await open(390, 844, `${server.url}#/course`);
  await stu.page.fill('.token-form input[name=token]', tok.s3);
  await stu.page.click('.token-form button[type=submit]');
  await waitFor(async () => (await stu.page.locator('section.scrimmage table.scrim-table tbody tr').count()) === 2, 'the student\'s table', ms(30000));
  assert.deepEqual(await overflow(stu.page), [], 'the student\'s page fits a phone');
  assert.deepEqual(await cellLabels(stu.page, 'section.scrimmage table.scrim-table'), ['#', 'bot', 'games', 'W-L-D', 'rating (95%)']);
  await stu.page.screenshot({path: path.join(O.shots, 'phone-student-scrimmage.png'), fullPage: true});
  await stu.page.setViewportSize({width: 1280, height: 800});
  assert.deepEqual(await overflow(stu.page), []);
  assert.deepEqual(await cellLabels(stu.page, 'section.scrimmage table.scrim-table'), Array(5).fill('heading'));

  /* the instructor keeps it to themselves, on the page: the student's table goes */
  if (!(await ins.page.locator('details.manage').evaluate((d) => d.open))) await ins.page.click('details.manage summary');
  await ins.page.selectOption('form.settings-form select[name=scrimmage]', 'instructor');
  await ins.page.click('form.settings-form button.save-settings');
  await waitFor(async () => /shown to you only/.test(await ins.page.locator('section.scrimmage .scrim-state').textContent()), 'the setting saved', ms(30000));
  assert.equal(await ins.page.locator('.act-status').textContent(), '');
  await stu.page.reload();
  await stu.page.locator('h3', {hasText: 'My report'}).waitFor();
  assert.equal(await stu.page.locator('section.scrimmage').count(), 0, 'no table for the class with "instructor"');
  for (const p of pages) assert.deepEqual(p.problems, []);
});
