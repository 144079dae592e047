// The instructor's undo on the classroom page (issue 25, items 1 and 2), in Debian's chromium
// against a real `tessera serve`: a course with a deadline in the past is refused on the form;
// one student's extension is given and removed from the page, the course freezing only once it
// is over; the gates are played again from the page; the final is played again; the course is
// archived (listed apart) and deleted by typing its name. At 1280×800, and the page with its
// forms open at 390×844 fits the phone. No console error.
//
//   node course_manage.test.js --bin build/cli/tessera --web web --out DIR
'use strict';
const fs = require('fs');
const path = require('path');
const {options, requireTools, ms, strictPage, overflow, webStage} = require('./pages.js');

const O = options();
const lib = requireTools(O.bin);
const {test, before, after} = require('node:test');
const assert = require('node:assert/strict');
const {waitFor} = lib;

const FIRST = path.join(__dirname, '..', 'classroom', 'bots', 'first.py');
fs.mkdirSync(O.shots, {recursive: true});
const S = webStage(O, lib, 'course-manage', {adminToken: true});
const {pages} = S;
let server, browser, client, adminToken; // S's, once started
before(async () => ({server, browser, client, adminToken} = await S.start()));

/** The value of a datetime-local input for epoch milliseconds, in the browser's time zone. */
async function localInput(page, msEpoch) {
  return page.evaluate((t) => {
    const d = new Date(t - new Date(t).getTimezoneOffset() * 60000);
    return d.toISOString().slice(0, 16);
  }, msEpoch);
}

test('the instructor can undo: deadline, extension, gates, final, archive, delete', async () => {
  const p = await strictPage(lib, browser.context);
  pages.push(p);
  const page = p.page;
  const openManage = async () => {
    if (!(await page.locator('details.manage').evaluate((d) => d.open))) await page.click('details.manage summary');
  };
  await page.setViewportSize({width: 1280, height: 800});
  await page.goto(`${server.url}#/instructor`);
  await page.fill('.token-form input[name=token]', adminToken);
  await page.click('.token-form button[type=submit]');
  await page.locator('form.create-course').waitFor();

  /* a deadline in the past is refused on the form, and no course is made */
  await page.fill('form.create-course input[name=name]', 'Undo');
  await page.fill('form.create-course input[name=move_ms]', String(ms(2000)));
  await page.fill('form.create-course textarea[name=gates]', '[{"opponent": "random", "games": 2, "min_rate": 0}]');
  await page.fill('form.create-course input[name=deadline]', '2020-01-01T09:00');
  await page.click('form.create-course button[type=submit]');
  await waitFor(async () => /past_deadline/.test(await page.locator('.create-status').textContent()), 'the refusal', 30000);
  assert.match(await page.url(), /#\/instructor$/);
  await page.fill('form.create-course input[name=deadline]', '');
  await page.click('form.create-course button[type=submit]');
  await page.waitForURL(/#\/instructor\/\d+$/);
  const course = Number(page.url().split('/').pop());

  /* two students submit over the protocol */
  const added = await client.request({type: 'course_add_students', admin_token: adminToken, course, csv: 'name,id\nAda,s1\nBrian,s2\n'});
  const data = fs.readFileSync(FIRST).toString('base64');
  for (const s of added.students) {
    const r = await client.request({type: 'course_submit', token: s.token, kind: 'python', main: 'first.py', files: [{name: 'first.py', data}]});
    assert.equal(r.type, 'course_submitted', JSON.stringify(r));
  }
  await page.reload();
  await waitFor(async () => (await page.locator('table.submissions tr[data-state="done"]').count()) === 2, 'the gates', 120000, 250);

  /* an extension for s2, then close for everyone: the course waits for s2 */
  await openManage();
  await page.fill('form.deadline-form input[name=when]', await localInput(page, Date.now() + 3600000));
  await page.selectOption('form.deadline-form select[name=student]', 's2');
  await page.click('form.deadline-form button[type=submit]');
  await waitFor(async () => (await page.locator('table.roster tr[data-student="s2"] td.extension').textContent()) !== '–', 'the extension', 30000);
  await page.click('button.deadline-now');
  await waitFor(async () => /an extension until/.test(await page.locator('.course-facts dd.deadline').textContent()), 'the extension shown', 30000);
  await page.waitForTimeout(1500);
  assert.doesNotMatch(await page.locator('.course-facts dd.deadline').textContent(), /frozen/);
  await page.click('table.roster tr[data-student="s2"] button.remove-extension');
  await waitFor(async () => /frozen/.test(await page.locator('.course-facts dd.deadline').textContent()), 'the freeze', 60000);

  /* the gates played again from the page: the course unfreezes, then freezes again */
  await openManage();
  /* the page still shows the first freeze until it hears of the new one:
   * wait for a freeze of a later moment (data-frozen: the course's
   * frozen_ms), not for "frozen", which the old view already says */
  const frozenAt = async () => Number(await page.locator('.course-facts dd.deadline').getAttribute('data-frozen'));
  const firstFreeze = await frozenAt();
  assert.ok(firstFreeze > 0, 'the course was frozen before the gates were played again');
  await page.click('form.rerun-form button.rerun-gates');
  await waitFor(async () => (await frozenAt()) > firstFreeze &&
    (await page.locator('table.submissions tr[data-state="done"]').count()) === 2, 'the gates played again', 120000, 250);
  assert.match(await page.locator('.course-facts dd.deadline').textContent(), /frozen/);
  assert.equal(await page.locator('table.submissions tr.frozen').count(), 2);

  /* the final, and the final again */
  await page.locator('button.start-final:not([disabled])').click();
  await waitFor(async () => (await page.locator('table.standings tbody tr[data-student]').count()) === 2, 'the final', 120000, 250);
  await waitFor(async () => (await page.locator('button.start-final').textContent()) === 'play the final again', 'the re-run button', 30000);
  /* the page still shows the first final (done, two rows) until it hears of the new one, and
   * waiting for "done" passed at once: the delete below was then refused as "the final is
   * running". The old view's line is marked; the page renders anew only once the server has
   * taken the request (a course whose final is done is not polled), so an unmarked "done" is
   * the second final's. */
  await page.locator('.course-facts dd.final-state').evaluate((e) => { e.dataset.stale = '1'; });
  await page.click('button.start-final');
  await waitFor(async () => /done/.test(await page.locator('.course-facts dd.final-state:not([data-stale])').textContent()) &&
    (await page.locator('table.standings tbody tr[data-student]').count()) === 2, 'the final played again', 120000, 250);
  assert.equal(await page.locator('.act-status').textContent(), '');

  /* the phone: every form open fits */
  await openManage();
  await page.setViewportSize({width: 390, height: 844});
  assert.deepEqual(await overflow(page), [], 'the instructor page with its forms fits a phone');
  await page.screenshot({path: path.join(O.shots, 'phone-instructor-manage.png'), fullPage: true});
  await page.setViewportSize({width: 1280, height: 800});

  /* archived: said on the page, listed apart */
  await page.click('form.delete-form button.archive');
  await page.locator('p.archived-note').waitFor();
  await page.goto(`${server.url}#/instructor`);
  await page.locator(`#archived-list tr[data-course="${course}"]`).waitFor({state: 'attached'});
  assert.equal(await page.locator(`#course-list tr[data-course="${course}"]`).count(), 0);

  /* deleted by typing its name */
  await page.goto(`${server.url}#/instructor/${course}`);
  await openManage();
  await page.fill('form.delete-form input[name=confirm]', 'Und');
  await page.click('form.delete-form button.delete');
  await waitFor(async () => /\(confirm\)/.test(await page.locator('.act-status').textContent()), 'the refusal of a wrong name', 30000);
  await page.fill('form.delete-form input[name=confirm]', 'Undo');
  await page.locator('.act-status').evaluate((e) => { e.textContent = ''; });
  await page.click('form.delete-form button.delete');
  /* the reply comes once the course's jobs have stopped and its files are gone: on a loaded
   * machine that took longer than waitForURL's 30 s (a fresh clone's first pass, load 20) */
  /* a refusal ends the wait at once (and fails below), not after the whole timeout */
  await waitFor(async () => /#\/instructor$/.test(page.url()) || !/^(|deleting…)$/.test(await page.locator('.act-status').textContent()),
    "the instructor's list after the delete", 120000, 250);
  assert.match(page.url(), /#\/instructor$/, `the course was deleted: ${page.url().endsWith('/instructor') ? '' : await page.locator('.act-status').textContent()}`);
  await waitFor(async () => /no courses yet/.test(await page.locator('#course-list').textContent()), 'the course gone', 30000);
  assert.deepEqual(p.problems, []);
});
