// The classroom's games and grades on the page (issue 25, items 3 to 5), in Debian's chromium against
// a real `tessera serve`: the final's standings name every tiebreak in columns and say what decided
// each place, with the ratings chart and the cross-table; the instructor lists every final game;
// a game's replay keeps the players' names and survives a reload (its address is its own); the
// header links to the course pages. On a phone (390×844): the standings and the report keep a
// heading on every value, gate-game links are at least 24 px, no server file path shows (a
// crashing bot's traceback names its file only), and the lobby's status does not run into the
// game's name. No console error.
//
//   node course_games.test.js --bin build/cli/tessera --web web --out DIR
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
const S = webStage(O, lib, 'course-games', {adminToken: true});
const {pages} = S;
let server, client, adminToken; // S's, once started
before(async () => ({server, client, adminToken} = await S.start()));

const open = S.open;

test('the final explained, every game replayed by name, and the phone', async () => {
  /* a course of three: two that play the same moves, one that crashes with a traceback */
  const c = await client.request({type: 'course_create', admin_token: adminToken, name: 'Games', game: 'reversi', move_ms: ms(2000),
    seed: 7, gates: [{opponent: 'random', games: 2, min_rate: 0}], qualify: 0, final_games: 2});
  assert.equal(c.type, 'course_created', JSON.stringify(c));
  const added = await client.request({type: 'course_add_students', admin_token: adminToken, course: c.course,
    csv: 'name,id\nAda,s1\nBrian,s2\nCarol,s3\n'});
  const tok = Object.fromEntries(added.students.map((s) => [s.student_id, s.token]));
  for (const [sid, bot] of [['s1', 'first.py'], ['s2', 'first.py'], ['s3', 'broken.py']]) {
    const r = await client.request({type: 'course_submit', token: tok[sid], kind: 'python', main: bot,
      files: [{name: bot, data: fs.readFileSync(path.join(BOTS, bot)).toString('base64')}]});
    assert.equal(r.type, 'course_submitted', JSON.stringify(r));
  }
  /* a finished Carcassonne match in the lobby */
  const m = await client.request({type: 'create_match', game: 'carcassonne', seats: [{bot: 'random'}, {bot: 'random'}]});
  assert.equal(m.type, 'match_created', JSON.stringify(m));

  const ins = await open(1280, 800, `${server.url}#/instructor/${c.course}`);
  await ins.page.fill('.token-form input[name=token]', adminToken);
  await ins.page.click('.token-form button[type=submit]');
  await waitFor(async () => (await ins.page.locator('table.submissions tr[data-state="done"]').count()) === 3, 'the gates', ms(120000), 250);
  /* the header links to the course pages (on a desktop: a phone's header keeps one line) */
  assert.ok(await ins.page.locator('header.top nav > a[href="#/course"]').isVisible());
  assert.ok(await ins.page.locator('header.top nav > a[href="#/instructor"]').isVisible());
  /* s1 and s2 sent the same file: each is flagged to the instructor */
  assert.match(await ins.page.locator('table.submissions tr[data-student="s1"] .tag.similar').textContent(), /s2 v1/);
  assert.equal(await ins.page.locator('table.submissions tr[data-student="s3"] .tag.similar').count(), 0);
  await ins.page.click('button.deadline-now');
  await waitFor(async () => /frozen/.test(await ins.page.locator('.course-facts dd.deadline').textContent()), 'the freeze', ms(60000));
  await ins.page.locator('button.start-final:not([disabled])').click();
  await waitFor(async () => (await ins.page.locator('table.standings tbody tr[data-student]').count()) === 3, 'the final', ms(180000), 250);

  /* every tiebreak a column, and what decided each place */
  const heads = await ins.page.locator('table.standings thead th').allTextContents();
  for (const col of ['rate', 'league pts', 'score diff', 'roster #', 'decided by', 'rating (95%)'])
    assert.ok(heads.includes(col), `the standings have a "${col}" column: ${heads}`);
  const decided = await ins.page.locator('table.standings tbody tr td[data-label="decided by"]').allTextContents();
  assert.equal(decided[0], 'first');
  assert.ok(decided.slice(1).every((d) => /^(rate|league points|score difference|roster order)$/.test(d)), decided.join(', '));
  assert.match(await ins.page.locator('.standings-box p.order').textContent(), /then roster order/);
  assert.equal(await ins.page.locator('.final-charts svg.ratings-chart circle').count(), 3, 'each finalist rated on its interval');
  assert.equal(await ins.page.locator('.final-charts svg.xtable rect.c').count(), 6, 'the cross-table of three');

  /* the instructor lists and replays every final game, by name, and the replay survives a reload */
  const games = ins.page.locator('ul.final-games a.game-link');
  assert.equal(await games.count(), 6, 'three pairs, two games each');
  await games.first().click();
  await ins.page.locator('section.course-game a.replay-link').click();
  await ins.page.waitForURL(/#\/course-game\/\d+$/);
  const names = async () => (await ins.page.locator('#replay-scores tr').allTextContents()).join(' | ');
  await waitFor(async () => /s\d.*\|.*s\d/.test(await names()), 'the replay with the players\' names', ms(30000));
  const before = await names();
  await ins.page.reload();
  await waitFor(async () => (await names()) === before, 'the same replay after a reload', ms(30000));
  assert.match(await ins.page.locator('.replay h2').textContent(), /course game \d+, the final: s\d v s\d/);
  await ins.page.locator('p.course-back a').click();
  await ins.page.waitForURL(new RegExp(`#/instructor/${c.course}$`));
  assert.deepEqual(ins.problems, []);

  /* the student who crashed, on a phone: headings on every value, big enough game links, no path */
  const stu = await open(390, 844, `${server.url}#/course`);
  await stu.page.fill('.token-form input[name=token]', tok.s3);
  await stu.page.click('.token-form button[type=submit]');
  await stu.page.locator('table.standings tbody tr').waitFor();
  const reportLabels = await cellLabels(stu.page, 'table.standings');
  assert.ok(reportLabels.every((l) => l.length > 0), `every value of the report has its heading: ${JSON.stringify(reportLabels)}`);
  assert.ok(reportLabels.includes('decided by') && reportLabels.includes('rate'), JSON.stringify(reportLabels));
  const subLabels = await cellLabels(stu.page, 'table.submissions');
  assert.ok(subLabels.every((l) => l.length > 0), `every value of a submission has its heading: ${JSON.stringify(subLabels)}`);
  const link = stu.page.locator('table.submissions .gate .games a').first();
  const box = await link.boundingBox();
  assert.ok(box.width >= 24 && box.height >= 24, `a gate-game link is ${box.width}×${box.height} px`);
  await link.click();
  await stu.page.locator('section.course-game pre.stderr').first().waitFor();
  const text = await stu.page.locator('.page.course').textContent();
  assert.match(text, /broken\.py/, 'the traceback names the file');
  assert.doesNotMatch(text, /files\/course-\d+|\/student-\d+\/v\d+-/, 'no server path on the student\'s page');
  assert.deepEqual(await overflow(stu.page), [], 'the report fits a phone');
  const header = await stu.page.locator('header.top').boundingBox();
  assert.ok(header.height < 50, `the phone's header keeps one line (${header.height} px)`);
  await stu.page.screenshot({path: path.join(O.shots, 'phone-student-report.png'), fullPage: true});
  assert.deepEqual(stu.problems, []);

  /* the instructor's standings on a phone */
  await ins.page.setViewportSize({width: 390, height: 844});
  await ins.page.locator('table.standings tbody tr').first().waitFor();
  const insLabels = await cellLabels(ins.page, 'table.standings');
  assert.ok(insLabels.every((l) => l.length > 0), JSON.stringify(insLabels));
  assert.deepEqual(await overflow(ins.page), [], 'the instructor page fits a phone');
  await ins.page.screenshot({path: path.join(O.shots, 'phone-instructor-final.png'), fullPage: true});

  /* the lobby on a phone: a finished Carcassonne's status beside its name, not into it */
  await waitFor(async () => (await client.request({type: 'list_matches', status: 'all'})).matches.some((x) => x.match === m.match && x.status === 'finished'),
    'the Carcassonne match to finish', ms(120000), 500);
  const lob = await open(390, 844, `${server.url}#/`);
  const row = lob.page.locator(`table.matches tr[data-match="${m.match}"]`);
  await row.waitFor();
  const g = await row.locator('td.game').evaluate((td) => ({right: td.getBoundingClientRect().right, scroll: td.scrollWidth, client: td.clientWidth}));
  const st = await row.locator('td.status').boundingBox();
  assert.ok(g.right <= st.x + 0.5, `the game's cell ends (${g.right}) before the status begins (${st.x})`);
  assert.ok(g.scroll <= g.client || await row.locator('td.game').evaluate((td) => getComputedStyle(td).textOverflow === 'ellipsis'),
    'the game\'s name is cut with an ellipsis, not drawn under the status');
  assert.deepEqual(lob.problems, []);
});
