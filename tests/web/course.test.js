// The classroom pages (web/js/course.js) in Debian's chromium against a real
// `tessera serve`: the instructor creates a course on #/instructor, adds a
// roster and reads the tokens; a student opens #/course on a phone (390×844)
// with their token, uploads a Python bot through the file picker, sees it
// pass its gate and opens a game behind the verdict with their stderr; a
// third submits a remote bot and is shown the `tessera bridge --register`
// command, its submission waiting for the bot (phone and desktop); the
// instructor closes submissions, starts the final with one click, sees the
// standings and exports the grade CSV (a real download). Every page fits its
// width and logs no console error. Screenshots: desktop-instructor.png,
// phone-student.png, desktop-student.png (and, with --doc-shots DIR, copies
// for docs/classroom.md). Uploads go in course_upload chunks with their progress; a zip
// holding ../evil.py is refused naming it (390 px); the builds queue is shown. And a student whose bot crashes saves their gate game's fault
// bundle from its panel (the download parsed), at both sizes. A reply lost with
// its connection (a route that closes the page's socket on the submission) is
// said on the page, not left at "sending…", and the page sends it again once
// reconnected.
//
//   node course.test.js --bin build/cli/tessera --web web --out DIR [--doc-shots docs/img/classroom]
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
const docShots = (() => { const i = process.argv.indexOf('--doc-shots'); return i > 0 ? path.resolve(process.argv[i + 1]) : null; })();
fs.mkdirSync(O.shots, {recursive: true});
const S = webStage(O, lib, 'course', {adminToken: true});
const {work, pages} = S;
let server, browser, client, adminToken; // S's, once started
before(async () => ({server, browser, client, adminToken} = await S.start()));

const page = S.open;

/** A screenshot of the whole page: the page scrolls inside <main>, so the viewport is made as tall
 *  as its content for the picture, then put back. */
async function shot(p, name) {
  const size = p.page.viewportSize();
  const tall = await p.page.evaluate(() => {
    const el = document.querySelector('.page.course');
    return el.getBoundingClientRect().top + el.scrollHeight + 16;
  });
  await p.page.setViewportSize({width: size.width, height: Math.max(size.height, Math.ceil(tall))});
  await p.page.screenshot({path: path.join(O.shots, name)});
  if (docShots) await p.page.screenshot({path: path.join(docShots, name)});
  await p.page.setViewportSize(size);
}

/** A Reversi course of its own, made over the protocol, with one student (a CSV row "id,name"):
 *  the course's reply and the student's token. */
async function courseOfOne(name, seed, student) {
  const made = await client.request({type: 'course_create', admin_token: adminToken, name, game: 'reversi',
    move_ms: ms(2000), seed, gates: [{opponent: 'random', games: 2, min_rate: 0}]});
  assert.equal(made.type, 'course_created', JSON.stringify(made));
  const added = await client.request({type: 'course_add_students', admin_token: adminToken, course: made.course,
    csv: `id,name\n${student}\n`});
  assert.equal(added.students?.length, 1, JSON.stringify(added));
  return {made, tok: added.students[0].token};
}

test('instructor and student pages, from a new course to exported grades', async () => {
  /* the instructor: token, new course */
  const ins = await page(1280, 800, `${server.url}#/instructor`);
  await ins.page.fill('.token-form input[name=token]', adminToken);
  await ins.page.click('.token-form button[type=submit]');
  await ins.page.locator('form.create-course').waitFor();
  assert.match(await ins.page.locator('#course-list').textContent(), /no courses yet/);
  await ins.page.fill('form.create-course input[name=name]', 'COMP 424 — Reversi');
  await ins.page.selectOption('form.create-course select[name=game]', 'reversi');
  await ins.page.fill('form.create-course input[name=move_ms]', String(ms(2000)));
  await ins.page.fill('form.create-course textarea[name=gates]',
    '[{"opponent": "random", "games": 4, "min_rate": 0}, {"opponent": "mcts:sims=200", "games": 2, "min_rate": 0.5}]');
  await ins.page.click('form.create-course button[type=submit]');
  await ins.page.waitForURL(/#\/instructor\/\d+$/);
  const course = Number(ins.page.url().split('/').pop());
  await ins.page.locator('.course-facts ol.gates li').nth(1).waitFor();

  /* the roster: tokens shown once, with the hand-out file */
  await ins.page.fill('form.roster-form textarea[name=csv]',
    'name,email,id\nAda Lovelace,ada@example.edu,s1\n"Hopper, Grace",grace@example.edu,s2\nAlan Turing,alan@example.edu,s3\n');
  await ins.page.click('form.roster-form button[type=submit]');
  await ins.page.locator('table.tokens tr[data-student="s3"]').waitFor();
  const tokens = Object.fromEntries(await ins.page.locator('table.tokens tbody tr').evaluateAll((rows) =>
    rows.map((r) => [r.dataset.student, r.querySelector('td.token').textContent])));
  assert.equal(Object.keys(tokens).length, 3);
  const [dl] = await Promise.all([ins.page.waitForEvent('download'), ins.page.click('button.handout')]);
  const handout = fs.readFileSync(await dl.path(), 'utf8');
  assert.ok(handout.includes(`"Hopper, Grace",grace@example.edu,s2,${tokens.s2},${course}`), handout);
  await waitFor(async () => (await ins.page.locator('table.roster tbody tr').count()) === 3, 'the roster', ms(10000));
  assert.match(await ins.page.locator('p.builds').textContent(), /builds: 0 building, 0 waiting \(\d+ at once/);

  /* a student on a phone: token, upload, gates */
  const stu = await page(390, 844, `${server.url}#/course`);
  await stu.page.fill('.token-form input[name=token]', tokens.s1);
  await stu.page.click('.token-form button[type=submit]');
  await stu.page.locator('form.submit-form').waitFor();
  assert.match(await stu.page.locator('.page.course h3').first().textContent(), /Ada Lovelace \(s1\)/);
  await stu.page.setInputFiles('form.submit-form input[name=files]', [path.join(BOTS, 'greedy.py')]);
  await stu.page.click('form.submit-form button[type=submit]');
  await waitFor(async () => /version 1 received/.test(await stu.page.locator('.submit-status').textContent()),
    'the submission to be received', ms(10000));
  /* sent as a course_upload: its progress full, the server's builds queue shown */
  const bar = stu.page.locator('.submit-status progress');
  assert.equal(await bar.getAttribute('value'), String(fs.statSync(path.join(BOTS, 'greedy.py')).size));
  assert.equal(await bar.getAttribute('max'), await bar.getAttribute('value'));
  assert.match(await stu.page.locator('p.builds').textContent(), /builds: \d+ building, \d+ waiting/);
  assert.match(await stu.page.locator('dd.max-upload').textContent(), /up to 4\.2 MB/, 'the default limit, set on the form');
  const row = stu.page.locator('table.submissions tr[data-submission]');
  await waitFor(async () => (await row.getAttribute('data-state')) === 'done', 'the gates to run', ms(120000), 200);
  assert.match(await row.locator('td.state').textContent(), /^qualified$/);
  assert.equal(await row.locator('.gate').count(), 2);
  await shot(stu, 'phone-student.png');
  assert.deepEqual(await overflow(stu.page), [], 'the student page fits a phone');
  /* a game behind the verdict: result, time, own stderr only */
  await row.locator('.gate').first().locator('.games a').first().click();
  await stu.page.locator('section.course-game').waitFor();
  assert.match(await stu.page.locator('section.course-game h3').textContent(), /gate 1/);
  assert.equal(await stu.page.locator('section.course-game details').count(), 1, 'only the student\'s own stderr');
  assert.match(await stu.page.locator('section.course-game').textContent(), /\(you\)/);

  /* a second student submits over the protocol; a bad upload is refused on the page */
  const r2 = await client.request({type: 'course_submit', token: tokens.s2, kind: 'python', main: 'first.py',
    files: [{name: 'first.py', data: fs.readFileSync(path.join(BOTS, 'first.py')).toString('base64')}]});
  assert.equal(r2.type, 'course_submitted', JSON.stringify(r2));
  await stu.page.selectOption('form.submit-form select[name=kind]', 'executable');
  await stu.page.setInputFiles('form.submit-form input[name=files]', [path.join(BOTS, 'first.py')]);
  await stu.page.click('form.submit-form button[type=submit]');
  await waitFor(async () => /not an ELF file/.test(await stu.page.locator('.submit-status').textContent()),
    'the refusal of a text file declared as an executable', ms(10000));
  /* a zip of 300 KB (several chunks) goes up with its progress, and one that would write outside
   * its folder is refused, naming the entry; nothing of it is kept */
  const zip = path.join(work, 'bot.zip');
  require('child_process').execFileSync('python3', ['-c', `
import sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_STORED) as z:
    z.writestr("greedy.py", open(sys.argv[2]).read())
    z.writestr("weights.bin", bytes(range(256)) * 1200)
    z.writestr("../evil.py", "x = 1")
`, zip, path.join(BOTS, 'greedy.py')]);
  await stu.page.selectOption('form.submit-form select[name=kind]', 'python');
  await stu.page.setInputFiles('form.submit-form input[name=files]', [zip]);
  await stu.page.fill('form.submit-form input[name=main]', 'greedy.py');
  await stu.page.click('form.submit-form button[type=submit]');
  await waitFor(async () => /unsafe_path/.test(await stu.page.locator('.submit-status').textContent()),
    'the refusal of a zip with ../evil.py', ms(20000));
  assert.match(await stu.page.locator('.submit-status').textContent(), /\.\.\/evil\.py/);
  assert.deepEqual(await overflow(stu.page), [], 'the refusal fits a phone');

  /* a third student submits a remote bot on a phone: the page shows the command to run it, and the
   * submission waits for the bot (it never connects here: the deadline below fails it) */
  const rem = await page(390, 844, `${server.url}#/course`);
  await rem.page.fill('.token-form input[name=token]', tokens.s3);
  await rem.page.click('.token-form button[type=submit]');
  /* this page opened with the first student's token (the pages share the browser's storage): the
   * form below must be the third student's before anything is submitted */
  await waitFor(async () => /Alan Turing \(s3\)/.test((await rem.page.locator('.page.course h3').allTextContents()).join(' ')),
    'the third student\'s page', ms(10000));
  await rem.page.selectOption('form.submit-form select[name=kind]', 'remote');
  assert.equal(await rem.page.locator('form.submit-form input[name=files]').isVisible(), false, 'no files for a remote bot');
  assert.match(await rem.page.locator('form.submit-form .remote-help').textContent(), /runs on your machine/);
  await rem.page.click('form.submit-form button[type=submit]');
  const cmd = rem.page.locator('.register-command pre');
  await cmd.waitFor();
  assert.match(await cmd.textContent(),
    /^tessera bridge --url ws:\/\/127\.0\.0\.1:\d+\/ --register course\d+-s\d+-v1-[a-z0-9]{6} --secret [a-z2-7]{26} --game reversi -- python3 mybot\.py$/);
  const remRow = rem.page.locator('table.submissions tr[data-submission]');
  await waitFor(async () => (await remRow.getAttribute('data-state')) === 'waiting', 'the remote bot to be waited for', ms(10000), 200);
  assert.match(await remRow.locator('td.state').textContent(), /^waiting for your bot$/);
  assert.match(await remRow.locator('td.verdict').textContent(), /waiting for your bot/);
  assert.deepEqual(await overflow(rem.page), [], 'the remote submission fits a phone');
  await rem.page.setViewportSize({width: 1280, height: 800});
  await remRow.waitFor();
  assert.ok(await rem.page.locator('.register-command pre').isVisible());
  assert.deepEqual(await overflow(rem.page), [], 'the remote submission fits a desktop');
  /* two files through the form on a desktop: both go up, the main file named is not one of them */
  await rem.page.selectOption('form.submit-form select[name=kind]', 'python');
  await rem.page.setInputFiles('form.submit-form input[name=files]', [path.join(BOTS, 'greedy.py'), path.join(BOTS, 'first.py')]);
  await rem.page.fill('form.submit-form input[name=main]', 'nosuch.py');
  await rem.page.click('form.submit-form button[type=submit]');
  await waitFor(async () => /bad_upload/.test(await rem.page.locator('.submit-status').textContent()),
    'the refusal of a main file not sent', ms(20000));
  assert.match(await rem.page.locator('.submit-status').textContent(), /main: the name of the file to run/);
  assert.deepEqual(await overflow(rem.page), [], 'the refusal fits a desktop');
  assert.deepEqual(rem.problems, []);
  /* the pages share the browser's storage: give the first student's token back to it */
  await rem.page.fill('.token-form input[name=token]', tokens.s1);
  await rem.page.click('.token-form button[type=submit]');
  await waitFor(async () => /Ada Lovelace/.test(await rem.page.locator('.page.course h3').first().textContent()),
    'the first student\'s page again', ms(10000));

  /* the instructor: everyone's submissions, close, start the final, grades */
  await ins.page.reload();
  await waitFor(async () => (await ins.page.locator('table.submissions tr[data-state="done"]').count()) === 2,
    'both submissions through their gates', ms(120000), 250);
  assert.equal(await ins.page.locator('table.submissions tr[data-student="s3"] td.state').textContent(), 'waiting for the bot');
  assert.match(await ins.page.locator('table.submissions tr[data-student="s3"]').textContent(), /remote bot · course\d+-s\d+-v1-/);
  await ins.page.click('button.deadline-now');
  await waitFor(async () => /frozen/.test(await ins.page.locator('.course-facts dd.deadline').textContent()),
    'the course to freeze', ms(10000));
  await ins.page.locator('button.start-final:not([disabled])').click();
  await waitFor(async () => (await ins.page.locator('table.standings tbody tr[data-student]').count()) === 2,
    'the final standings', ms(120000), 250);
  await shot(ins, 'desktop-instructor.png');
  const [gd] = await Promise.all([ins.page.waitForEvent('download'), ins.page.click('button.export')]);
  const grades = fs.readFileSync(await gd.path(), 'utf8').trim().split('\n');
  assert.equal(grades[0], 'student_id,name,email,status,final_rank,decided_by,rate,league_points,score_diff,swiss_points,buchholz,round_reached,gates_passed,gates_total,rating,rating_low,rating_high,submission');
  assert.equal(grades.length, 4);
  assert.match(grades[1], /^s1,Ada Lovelace,ada@example.edu,finalist,[12],/);
  assert.match(grades[3], /^s3,Alan Turing,alan@example.edu,not_qualified,,,,,,,,,0,2,,,,$/);
  assert.deepEqual(ins.problems, []);

  /* the student's report, on a desktop too */
  await stu.page.setViewportSize({width: 1280, height: 800});
  await stu.page.reload();
  await stu.page.locator('table.standings tr[data-student="s1"]').waitFor();
  assert.equal(await stu.page.locator('table.standings tbody tr').count(), 1, 'their own row only');
  assert.match(await stu.page.locator('form.submit-form').textContent(), /deadline has passed/);
  await shot(stu, 'desktop-student.png');
  await stu.page.setViewportSize({width: 390, height: 844});
  assert.deepEqual(await overflow(stu.page), [], 'the report fits a phone');
  assert.deepEqual(stu.problems, []);
});

test('a student\'s gate game lost by a crash links its fault bundle, at both sizes', async () => {
  /* a course of its own, made over the protocol: one student whose bot crashes at its first turn */
  const {tok} = await courseOfOne('bundles', 4, 'b1,Barbara Liskov');
  const sub = await client.request({type: 'course_submit', token: tok, kind: 'python', main: 'broken.py',
    files: [{name: 'broken.py', data: fs.readFileSync(path.join(BOTS, 'broken.py')).toString('base64')}]});
  assert.equal(sub.type, 'course_submitted', JSON.stringify(sub));
  for (const [w, hgt] of [[1280, 800], [390, 844]]) {
    const p = await page(w, hgt, `${server.url}#/course`);
    await p.page.evaluate((t) => localStorage.setItem('tessera.course.token', t), tok);
    await p.page.reload();
    const row = p.page.locator('table.submissions tr[data-submission]');
    await waitFor(async () => (await row.count()) === 1 && (await row.getAttribute('data-state')) === 'done',
      'the gate to run', ms(120000), 200);
    /* both games crashed: each marked, each with its bundle */
    const marked = row.locator('.games a.has-bundle');
    assert.equal(await marked.count(), 2);
    await marked.first().click();
    const link = p.page.locator('section.course-game a.bundle-link');
    await link.waitFor();
    assert.equal(await link.count(), 1, 'her own seat\'s bundle only');
    assert.match(await link.textContent(), /fault bundle of P[12] \(seat [01]\) b1 \(crashed at turn [12]\)/);
    const [dl] = await Promise.all([p.page.waitForEvent('download'), link.click()]);
    assert.match(dl.suggestedFilename(), /^course-game-\d+-P[12]\.json$/);
    const b = JSON.parse(fs.readFileSync(await dl.path(), 'utf8'));
    assert.equal(b.format, 'tessera-fault');
    assert.equal(b.verdict, 'crashed');
    assert.equal(b.player, 'cmd:python3 broken.py');
    assert.match(b.stderr, /KeyError/);
    assert.deepEqual(await overflow(p.page), [], `the game panel fits ${w} px`);
    assert.deepEqual(p.problems, []);
  }
});

test('a reply lost with its connection is said on the page, and the page goes on', async () => {
  /* a course of its own; the student's page goes through a route that closes its socket when it
   * sees the first course_submit — the message never reaches the server, its reply never comes */
  const {made, tok} = await courseOfOne('lost replies', 5, 'l1,Grace Hopper');
  const p = await strictPage(lib, browser.context);
  pages.push(p);
  await p.page.setViewportSize({width: 390, height: 844});
  const lost = await lib.loseReplyTo(p.page, /"course_submit"/);
  await p.page.goto(`${server.url}#/course`);
  await p.page.evaluate((t) => localStorage.setItem('tessera.course.token', t), tok);
  await p.page.reload();
  await waitFor(async () => /Grace Hopper \(l1\)/.test((await p.page.locator('.page.course h3').allTextContents()).join(' ')),
    'the student\'s page', 10000);
  await p.page.selectOption('form.submit-form select[name=kind]', 'remote');
  await p.page.click('form.submit-form button[type=submit]');
  const status = p.page.locator('.submit-status');
  /* not left at "sending…": the page says the answer was lost, and to look before repeating */
  await waitFor(async () => /no answer from the server \(connection lost\)/.test(await status.textContent()), 'the lost reply said', 10000);
  assert.match(await status.getAttribute('class'), /\berror\b/);
  assert.equal(lost.dropped, 1);
  assert.equal(await p.page.locator('.register-command').count(), 0);
  /* the page connects again by itself; the submission, sent again, is the first the server has */
  await p.page.locator('#banner').filter({hasText: 'reconnected'}).waitFor({timeout: 20000 * lib.SLOW});
  const cmd = p.page.locator('.register-command pre');
  await waitFor(async () => {
    if (await cmd.count()) return true;
    /* not sent yet, or the form was drawn again under the click (the page refreshes on reconnecting) */
    if (!/sending/.test(await status.textContent())) {
      await p.page.selectOption('form.submit-form select[name=kind]', 'remote');
      await p.page.click('form.submit-form button[type=submit]');
    }
    return false;
  }, 'the submission sent again once connected', 20000, 1000);
  assert.match(await cmd.textContent(), new RegExp(`--register course${made.course}-s\\d+-v1-`), 'the first version: the lost one never arrived');
  assert.deepEqual(await overflow(p.page), [], 'the refusal and the command fit a phone');
  assert.deepEqual(p.problems, []);
});
