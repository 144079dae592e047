// The analysis under a replay (issue 27): on a finished Reversi match's
// replay the *Analyse* button asks the server (`analyze`), the win-probability
// graph appears under the scores with a dot per marked turn, a click on the
// graph moves the replay to that turn, and at a position whose next turn was
// not the search's choice the better square is outlined on the board — at
// 1280×800 and at 390×844, nothing sticking out; the second page gets the
// stored analysis. A Carcassonne match too: the luck columns, and the better
// placement drawn as a tile where it would go. A record file of three players opened in the
// lobby: analysed too (sent along), a line per player, a click on a marked turn goes there.
// The searches are kept small (TESSERA_TEST_ANALYZE_SIMS).
//
//   node analyze.test.js --bin build/cli/tessera --web web --out DIR
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
const S = webStage(O, lib, 'analyze');
const {work, pages} = S;
let server, browser, client, match, record, fileRecord;

before(async () => {
  process.env.TESSERA_TEST_ANALYZE_SIMS = '40';
  ({server, browser, client} = await S.start());
  /* a weak bot against random: a game with marked turns. Seeded, so the game
   * and its analysis (seed 1, 40 simulations) are the same every run: this one
   * has 10 marked turns in 61 (unseeded, 1 game in 40 had a single one, and CI
   * once met a game with none) */
  const made = await client.request({type: 'create_match', game: 'reversi',
    seats: [{bot: 'mcts:sims=20,seed=6'}, {bot: 'random:seed=6'}]});
  assert.equal(made.type, 'match_created', JSON.stringify(made));
  match = made.match;
  await waitFor(async () => {
    const l = await client.request({type: 'list_matches', status: 'finished'});
    return l.matches?.some((x) => x.match === match);
  }, 'the match to finish', 60000);
  record = (await client.request({type: 'get_record', match})).record;
});

let first = true;
for (const [w, hgt] of [[1280, 800], [390, 844]]) {
  test(`a replay analysed: graph, click to jump, the better move drawn (${w}×${hgt})`, async () => {
    const p = await strictPage(lib, browser.context);
    pages.push(p);
    await p.page.setViewportSize({width: w, height: hgt});
    await p.page.goto(`${server.url}#/replay/${match}`);
    await p.page.locator('#analyse').click();
    await p.page.locator('svg.winprob-chart').waitFor({timeout: ms(60000)});
    const cached = await p.page.locator('#analysis').getAttribute('data-cached');
    assert.equal(cached, first ? 'false' : 'true', 'the second page gets the stored analysis');
    first = false;
    /* the server's report, to know which turns to expect */
    const r = await client.request({type: 'analyze', match}, 30000);
    assert.equal(r.type, 'analysis');
    const a = r.analysis;
    assert.equal(a.turns.length, record.turns.length);
    const marks = await p.page.locator('svg.winprob-chart circle.mark').count();
    assert.equal(marks, a.turns.filter((t) => t.mark).length, 'a dot per marked turn');
    assert.ok(marks > 0, 'the seeded game has marked turns');
    /* a click at the graph's right end goes to the last turn, at its middle to a middle one */
    const box = await p.page.locator('svg.winprob-chart').boundingBox();
    await p.page.mouse.click(box.x + box.width - 3, box.y + box.height / 2);
    await p.page.waitForFunction((n) => document.querySelector('.replay')?.dataset.step === String(n), a.turns.length);
    await p.page.mouse.click(box.x + box.width * 0.55, box.y + box.height / 2);
    const mid = Number(await p.page.evaluate(() => document.querySelector('.replay').dataset.step));
    assert.ok(mid > 5 && mid < a.turns.length - 5, `a click in the middle went to turn ${mid}`);
    /* a position whose next turn the search would not have played: its square outlined */
    const k = a.turns.findIndex((t) => t.played && !t.same && t.best_move.move !== 'pass');
    assert.ok(k >= 0, 'some turn differs from the search\'s choice');
    for (let i = 0; i < 70 && Number(await p.page.evaluate(() => document.querySelector('.replay').dataset.step)) !== k; i++)
      await p.page.keyboard.press(Number(await p.page.evaluate(() => document.querySelector('.replay').dataset.step)) > k ? 'ArrowLeft' : 'ArrowRight');
    await p.page.waitForFunction((n) => document.querySelector('.replay')?.dataset.step === String(n), k);
    const better = await p.page.locator('svg.board .rv-better').getAttribute('data-square');
    assert.equal(better, a.turns[k].best_move.move, 'the better square outlined');
    assert.equal(await p.page.locator('#analysis-turn').getAttribute('data-turn'), String(k + 1));
    assert.match(await p.page.locator('#analysis-turn').textContent(), new RegExp(`better: ${a.turns[k].best}`));
    /* a turn that was the search's own choice: nothing outlined */
    const same = a.turns.findIndex((t) => t.played && t.same);
    if (same >= 0) {
      await p.page.mouse.click(box.x + 30 * box.width / 320 + (same / a.turns.length) * (box.width * 282 / 320), box.y + box.height / 2);
      const at = Number(await p.page.evaluate(() => document.querySelector('.replay').dataset.step));
      if (a.turns[at]?.same) assert.equal(await p.page.locator('svg.board .rv-better').count(), 0);
    }
    assert.deepEqual(await overflow(p.page), [], 'the replay with its analysis fits');
    await p.page.screenshot({path: path.join(O.shots, `replay-analysis-${w}.png`), fullPage: true});
    assert.deepEqual(p.problems, []);
  });
}

/* Step the replay on page p to step k with the arrow keys. */
async function stepTo(p, k) {
  const at = () => p.page.evaluate(() => Number(document.querySelector('.replay').dataset.step));
  for (let i = 0; i < 200 && (await at()) !== k; i++)
    await p.page.keyboard.press((await at()) > k ? 'ArrowLeft' : 'ArrowRight');
  await p.page.waitForFunction((n) => document.querySelector('.replay')?.dataset.step === String(n), k);
}

test('a Carcassonne replay analysed: luck, and the better placement drawn as a tile', async () => {
  const made = await client.request({type: 'create_match', game: 'carcassonne', seats: [{bot: 'mcts:sims=20'}, {bot: 'random'}]});
  assert.equal(made.type, 'match_created', JSON.stringify(made));
  await waitFor(async () => {
    const l = await client.request({type: 'list_matches', status: 'finished'});
    return l.matches?.some((x) => x.match === made.match);
  }, 'the match to finish', 60000);
  const p = await strictPage(lib, browser.context);
  pages.push(p);
  await p.page.setViewportSize({width: 1280, height: 800});
  await p.page.goto(`${server.url}#/replay/${made.match}`);
  await p.page.locator('#analyse').click();
  await p.page.locator('svg.winprob-chart').waitFor({timeout: ms(120000)});
  const a = (await client.request({type: 'analyze', match: made.match}, 30000)).analysis;
  assert.equal(a.game, 'carcassonne');
  assert.match(await p.page.locator('#analysis-players').textContent(), /luck share/);
  const k = a.turns.findIndex((t) => t.played && !t.same);
  assert.ok(k >= 0, 'some turn differs from the search\'s choice');
  await stepTo(p, k);
  const g = p.page.locator('svg.board g.better');
  await g.waitFor({timeout: ms(5000)});
  const at = await g.evaluate((e) => ({...e.dataset}));
  const best = a.turns[k].best_move;
  assert.deepEqual([Number(at.x), Number(at.y), Number(at.rot), at.tile], [best.x, best.y, best.rot, a.turns[k].draw]);
  assert.match(await p.page.locator('#analysis-turn').textContent(), new RegExp(`drew ${a.turns[k].draw}`));
  assert.deepEqual(await overflow(p.page), []);
  await p.page.screenshot({path: path.join(O.shots, 'replay-analysis-carcassonne.png')});
  assert.deepEqual(p.problems, []);
});

/* A record file opened in the lobby (#/replay/file): a game of three seats, sent along with
 * `analyze` (its thinking lines left out); the graph has a line per player, and a click on a
 * marked turn's dot moves the replay to that turn. */
for (const [w, hgt] of [[1280, 800], [390, 844]]) {
  test(`a record file of three players analysed: a line each, a marked turn clicked (${w}×${hgt})`, async () => {
    if (!fileRecord) {
      const made = await client.request({type: 'create_match', game: 'carcassonne', rules: {players: 3},
        seats: [{bot: 'random'}, {bot: 'random'}, {bot: 'random'}]});
      assert.equal(made.type, 'match_created', JSON.stringify(made));
      await waitFor(async () => {
        const l = await client.request({type: 'list_matches', status: 'finished'});
        return l.matches?.some((x) => x.match === made.match);
      }, 'the match to finish', 60000);
      fileRecord = path.join(work, 'three.json');
      fs.writeFileSync(fileRecord, JSON.stringify((await client.request({type: 'get_record', match: made.match})).record));
    }
    const p = await strictPage(lib, browser.context);
    pages.push(p);
    await p.page.setViewportSize({width: w, height: hgt});
    await p.page.goto(server.url);
    await p.page.setInputFiles('#record-file', fileRecord);
    await p.page.waitForURL(/#\/replay\/file$/);
    await p.page.locator('#analyse').click();
    await p.page.locator('svg.winprob-chart').waitFor({timeout: ms(120000)});
    assert.equal(await p.page.locator('#analysis').getAttribute('data-cached'), 'false', 'a file\'s analysis is never stored');
    assert.equal(await p.page.locator('svg.winprob-chart path.series').count(), 3, 'a line per player');
    assert.equal(await p.page.locator('#analysis-players tr[data-seat]').count(), 3);
    const dots = p.page.locator('svg.winprob-chart circle.mark');
    const n = await dots.count();
    assert.ok(n > 0, 'random players make marked turns');
    const dot = dots.nth(Math.floor(n / 2));
    const turn = Number(await dot.getAttribute('data-turn'));
    await dot.click();
    await p.page.waitForFunction((k) => document.querySelector('.replay')?.dataset.step === String(k), turn);
    assert.equal(await p.page.locator('#analysis-turn').count(), 1);
    assert.deepEqual(await overflow(p.page), [], 'the file\'s replay with its analysis fits');
    await p.page.screenshot({path: path.join(O.shots, `replay-file-analysis-${w}.png`), fullPage: true});
    assert.deepEqual(p.problems, []);
  });
}
