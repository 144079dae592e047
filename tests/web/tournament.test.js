// The tournament page (web/js/tournament.js) in Debian's chromium against a
// real `tessera serve`: a round-robin of in-process bots runs while the page
// is open, and its standings update without a reload (games and points grow
// while the state says running); the cross-table, the ratings chart with
// intervals, a link to every game (watch live while it runs, replay once
// done) and the report's three SVG plots are there; the lobby lists the
// tournament; at phone width (390×844) nothing sticks out sideways; and no
// console error or failed request on the way. A game lost by a program's
// crash has a fault-bundle link for the admin, whose download is a bundle.
//
//   node tournament.test.js --bin build/cli/tessera --web web --out DIR
'use strict';
const fs = require('fs');
const path = require('path');
const {options, requireTools, ms, strictPage, overflow, webStage} = require('./pages.js');

const O = options();
const lib = requireTools(O.bin);
const {test, before, after} = require('node:test');
const assert = require('node:assert/strict');
const {waitFor} = lib;

fs.mkdirSync(O.shots, {recursive: true});
const S = webStage(O, lib, 'tournament', {adminToken: true});
const {pages} = S;
let server, browser, client, tid;

async function page(width, height, url) {
  const p = await strictPage(lib, browser.context);
  await p.page.setViewportSize({width, height});
  await p.page.goto(url);
  pages.push(p);
  return p;
}

/** What the page's standings say: participant -> games, and the state badge. */
async function standings(p) {
  return p.page.evaluate(() => {
    const rows = [...document.querySelectorAll('#standings tbody tr[data-participant]')];
    return {
      state: document.querySelector('.tour-head .tour-state')?.textContent || '',
      games: rows.reduce((a, r) => a + Number(r.dataset.games), 0),
      names: rows.map((r) => r.querySelector('.pname').textContent),
      places: rows.map((r) => Number(r.querySelector('td.place').textContent)),
      points: rows.map((r) => Number(r.querySelector('td.pts').textContent)),
      wdl: rows.map((r) => r.querySelector('td.wdl').textContent),
      /* the cross-table's row labels: "PLACE NAME" */
      cross: [...document.querySelectorAll('#crosstable svg text.who')].map((t) => t.textContent),
    };
  });
}

/* The standings the server computed for tournament id, once they count
 * every game done (issue 30, item 20: the page was checked against a sum of
 * points, not against the server). */
async function serverStandings(id, done) {
  return waitFor(async () => {
    const t = await client.request({type: 'watch_tournament', tournament: id});
    await client.request({type: 'unwatch_tournament', tournament: id});
    const st = t.standings;
    return st && st.counts.done === done ? st : null;
  }, 'the server\'s final standings', ms(30000), 250);
}

/* The page shows the server's standings, row for row, and numbers the
 * cross-table's rows as the standings (issue 30, item 14). */
function sameAsServer(page, st) {
  const rows = st.standings;
  assert.deepEqual(page.names, rows.map((r) => r.name), 'the order of the standings');
  assert.deepEqual(page.places, rows.map((r) => r.place), 'the places');
  assert.deepEqual(page.points, rows.map((r) => r.points), 'the points');
  assert.deepEqual(page.wdl, rows.map((r) => `${r.wins}–${r.draws}–${r.losses}`), 'W–D–L');
  assert.deepEqual(page.cross.map((x) => x.split(' ')[0]), rows.map((r) => String(r.place)),
    'the cross-table numbers its rows as the standings do');
}

before(async () => {
  let token;
  ({server, browser, client, adminToken: token} = await S.start());
  const made = await client.request({
    type: 'create_tournament', admin_token: token, format: 'round-robin', game: 'carcassonne',
    label: 'browser league', participants: [{name: 'mcts', spec: 'mcts:ms=15'}, {name: 'flat', spec: 'flatmc:ms=15'},
      {name: 'heur', spec: 'heuristic'}, {name: 'rand', spec: 'random'}],
    games_per_pair: 2, concurrency: 1, seed: 5, time_control: {move_ms: 4000},
  });
  assert.equal(made.type, 'tournament_created', JSON.stringify(made));
  tid = made.tournament;
  const started = await client.request({type: 'start_tournament', admin_token: token, tournament: tid});
  assert.equal(started.state, 'running');
});

test('the standings update while the tournament runs, and everything is there at the end', async () => {
  const p = await page(1280, 800, `${server.url}#/tournament/${tid}`);
  await p.page.locator('#tournament h1').waitFor();
  assert.equal(await p.page.locator('#tournament h1').textContent(), 'browser league');
  /* a first standings table while games are still to come */
  const first = await waitFor(async () => {
    const s = await standings(p);
    return s.state === 'running' && s.games > 0 ? s : null;
  }, 'standings with a finished game', ms(60000), 100);
  assert.equal(first.names.length, 4);
  /* ... and later ones, pushed to the open page: more games, same page */
  const later = await waitFor(async () => {
    const s = await standings(p);
    return s.games > first.games ? s : null;
  }, 'the standings to update by themselves', ms(60000), 100);
  assert.ok(later.games > first.games);
  const sent = p.sent.filter((m) => m.type === 'watch_tournament').length;
  assert.equal(sent, 1, 'updated by the pushes, without watching again');
  /* a running game has a live link */
  await waitFor(async () => (await p.page.locator('#tour-games tr[data-status="running"] a.watch-link').count()) > 0 ||
    (await standings(p)).state === 'done', 'a running game with a link', ms(30000), 50);

  const end = await waitFor(async () => {
    const s = await standings(p);
    return s.state === 'done' && s.games === 24 ? s : null;
  }, 'the end of the tournament', ms(180000), 250);
  const sum = end.points.reduce((a, b) => a + b, 0);
  assert.ok(Math.abs(sum - 12) < 1e-6, 'twelve games, one point each: ' + sum);
  sameAsServer(await standings(p), await serverStandings(tid, 12));
  assert.match(await p.page.locator('#tour-progress').textContent(), /12 of 12 games/);
  /* every game, each with its links */
  assert.equal(await p.page.locator('#tour-games tr[data-game]').count(), 12);
  assert.equal(await p.page.locator('#tour-games tr[data-status="done"] a.replay-link').count(), 12);
  const href = await p.page.locator('#tour-games tr[data-game="0"] a.replay-link').getAttribute('href');
  assert.match(href, /^#\/replay\/[a-z2-9]+$/);
  /* the ratings chart: every participant, a dot on its interval; the cross-table */
  assert.equal(await p.page.locator('#ratings-chart svg circle').count(), 4);
  assert.equal(await p.page.locator('#ratings-chart svg line.ci').count(), 4);
  assert.equal(await p.page.locator('#crosstable svg rect.c').count(), 12);
  /* the report's plots, loaded as images */
  await waitFor(async () => (await p.page.locator('#plots img').count()) === 3, 'the three plots', ms(20000), 100);
  const sizes = await p.page.locator('#plots img').evaluateAll((imgs) => imgs.map((i) => i.complete ? i.naturalWidth : 0));
  assert.ok(sizes.every((w) => w > 100), 'the plots were drawn: ' + sizes);
  await p.page.screenshot({path: path.join(O.shots, 'desktop-tournament.png'), fullPage: true});
  /* a replay link leads to the replay */
  await p.page.locator('#tour-games tr[data-game="0"] a.replay-link').click();
  await p.page.waitForURL(/#\/replay\//);
  assert.deepEqual(p.problems, []);
});

test('at 390×844: nothing sticks out; the lobby lists the tournament', async () => {
  const p = await page(390, 844, `${server.url}#/tournament/${tid}`);
  await p.page.locator('#standings tbody tr[data-participant]').first().waitFor();
  await p.page.locator('#ratings-chart svg').waitFor();
  assert.deepEqual(await overflow(p.page), [], 'the tournament page fits a phone');
  const box = await p.page.locator('#standings').boundingBox();
  assert.ok(box.width <= 390, 'the standings fit the width');
  await p.page.screenshot({path: path.join(O.shots, 'phone-tournament.png'), fullPage: true});
  await p.page.goto(`${server.url}#/`);
  await p.page.locator(`#lobby-tournaments tr[data-tournament="${tid}"]`).waitFor();
  await p.page.goto(`${server.url}#/tournaments`);
  await p.page.locator(`#tournament-list tr[data-tournament="${tid}"]`).waitFor();
  assert.deepEqual(await overflow(p.page), [], 'the list fits a phone');
  await p.page.locator(`#tournament-list tr[data-tournament="${tid}"] a`).click();
  await p.page.waitForURL(new RegExp(`#/tournament/${tid}$`));
  assert.deepEqual(p.problems, []);
});

/* Issue 30, item 8: the admin creates a tournament on the Tournaments page,
 * at both sizes: participants typed one a line (no JSON), a refusal shown in
 * the form, and the tournament it made started, its page opened. */
for (const [w, hgt] of [[1280, 800], [390, 844]]) {
  test(`the admin's form makes and starts a tournament (${w}×${hgt})`, async () => {
    const token = S.adminToken;
    const p = await page(w, hgt, `${server.url}#/tournaments`);
    const f = p.page.locator('#new-tournament');
    await f.waitFor();
    assert.deepEqual(await overflow(p.page), [], 'the list and the form fit');
    await f.locator('input[name=token]').fill(token);
    await f.locator('input[name=label]').fill(`form ${w}`);
    await f.locator('select[name=game]').selectOption('reversi');
    /* a refusal: the server's reason in the form, nothing made */
    await f.locator('textarea[name=participants]').fill('a=random\nb=no-such-bot');
    await f.locator('button[type=submit]').click();
    await p.page.locator('#new-tournament-status.error').waitFor();
    assert.match(await p.page.locator('#new-tournament-status').textContent(), /no-such-bot/);
    assert.match(p.page.url(), /#\/tournaments$/);
    /* and the good one */
    await f.locator('textarea[name=participants]').fill('r1=random\nr2=random:seed=2\n\nheuristic');
    await f.locator('input[name=games_per_pair]').fill('2');
    await f.locator('input[name=move_ms]').fill('3000');
    await f.locator('button[type=submit]').click();
    await p.page.waitForURL(/#\/tournament\/\d+$/, {timeout: ms(10000)});
    const id = Number(p.page.url().split('/').pop());
    assert.equal(await p.page.locator('#tournament h1').textContent(), `form ${w}`);
    const end = await waitFor(async () => {
      const st = await standings(p);
      return st.state === 'done' && st.games === 12 ? st : null;
    }, 'the form\'s tournament to end', ms(120000), 250);
    assert.deepEqual([...end.names].sort(), ['heuristic', 'r1', 'r2']);
    const st = await serverStandings(id, 6);
    assert.equal(st.spec.game, 'reversi');
    assert.equal(st.spec.games_per_pair, 2);
    sameAsServer(await standings(p), st);
    assert.deepEqual(await overflow(p.page), [], 'its page fits');
    await p.page.screenshot({path: path.join(O.shots, `tournament-form-${w}.png`), fullPage: true});
    /* the problems a refused create leaves: none (the refusal is an answer) */
    assert.deepEqual(p.problems, []);
  });
}

/* A program's fault: the admin saves its bundle from the game's row (get_record's programs). */
test('a game lost by a program\'s crash links its fault bundle for the admin', async () => {
  const token = S.adminToken;
  const broken = path.join(__dirname, '..', 'classroom', 'bots', 'broken.py');
  const made = await client.request({type: 'create_tournament', admin_token: token, format: 'round-robin', game: 'reversi',
    label: 'crashes', participants: [{name: 'broken', spec: `cmd:python3 ${broken}`}, {name: 'random', spec: 'random'}],
    games_per_pair: 2, concurrency: 2, time_control: {move_ms: ms(3000)}});
  assert.equal(made.type, 'tournament_created', JSON.stringify(made));
  await client.request({type: 'start_tournament', admin_token: token, tournament: made.tournament});
  const p = await page(1280, 800, `${server.url}#/tournaments`);
  await p.page.evaluate((t) => localStorage.setItem('tessera.admin.token', t), token);
  await p.page.goto(`${server.url}#/tournament/${made.tournament}`);
  const links = p.page.locator('a.bundle-link');
  await waitFor(async () => (await links.count()) === 2, 'a bundle link on each crashed game', ms(60000), 250);
  const [dl] = await Promise.all([p.page.waitForEvent('download'), links.first().click()]);
  assert.match(dl.suggestedFilename(), new RegExp(`^tournament-${made.tournament}-game-\\d+-P[12]\\.json$`));
  const b = JSON.parse(fs.readFileSync(await dl.path(), 'utf8'));
  assert.equal(b.format, 'tessera-fault');
  assert.equal(b.verdict, 'crashed');
  assert.match(b.stderr, /KeyError/);
  assert.match(b.source, new RegExp(`tournament ${made.tournament}, game \\d`));
  assert.deepEqual(p.problems, []);
});
