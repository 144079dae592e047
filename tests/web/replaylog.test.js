// A program's game log beside its replay (issue 30, item 3): `tessera match
// --out` keeps a record and, for the seat a program held, its log; picked
// together in the lobby's "Replay a record file", the replay shows, beside
// the board, each of the program's turns with its verdict, its `debug` and
// the stderr it wrote — at 1280×800 and at 390×844, nothing sticking out.
//
//   node replaylog.test.js --bin build/cli/tessera --web web --out DIR
'use strict';
const fs = require('fs');
const path = require('path');
const {execFileSync} = require('child_process');
const {options, requireTools, ms, strictPage, overflow, webStage} = require('./pages.js');

const O = options();
const lib = requireTools(O.bin);
const {test, before, after} = require('node:test');
const assert = require('node:assert/strict');

fs.mkdirSync(O.shots, {recursive: true});
const S = webStage(O, lib, 'replaylog', {client: false});
const {work, pages} = S;
let server, browser;
const BOT = path.resolve(__dirname, '../../docs/examples/stdio_bot.py');
const recs = path.join(work, 'm', 'records');

before(async () => {
  /* game 0: the program is P1 (seat 0) and moves on the odd turns */
  execFileSync(O.bin, ['match', 'reversi', `cmd:python3 ${BOT}`, 'random', '--games', '2', '--out',
    path.join(work, 'm')], {stdio: ['ignore', 'ignore', 'inherit']});
  ({server, browser} = await S.start());
});

/* What the log panel shows for the step on screen. */
const panel = (p) => p.page.evaluate(() => {
  const box = document.querySelector('#replay-log .log-seat');
  return box ? {
    seat: box.dataset.seat,
    verdict: box.querySelector('.log-verdict')?.textContent || '',
    debug: [...box.querySelectorAll('.log-debug')].map((e) => e.textContent),
    stderr: box.querySelector('.log-stderr')?.textContent || '',
    help: box.querySelector('.help')?.textContent || '',
  } : null;
});

for (const [w, hgt] of [[1280, 800], [390, 844]]) {
  test(`a record and its program's log, replayed side by side (${w}×${hgt})`, async () => {
    const p = await strictPage(lib, browser.context);
    pages.push(p);
    await p.page.setViewportSize({width: w, height: hgt});
    await p.page.goto(server.url);
    await p.page.setInputFiles('#record-file', [path.join(recs, 'game-000000.json'), path.join(recs, 'game-000000.P1.log')]);
    await p.page.waitForURL(/#\/replay\/file$/);
    await p.page.locator('#replay-log').waitFor();
    /* turn 1 is the program's: its verdict, its debug ("N legal moves"), its stderr */
    await p.page.locator('#next').click();
    await p.page.waitForFunction(() => document.querySelector('.replay')?.dataset.step === '1');
    const one = await panel(p);
    assert.equal(one.seat, '0');
    assert.match(one.verdict, /^turn 1: ok \(cpu \d+ ms, wall \d+ ms\)$/);
    assert.deepEqual(one.debug, ['debug: 4 legal moves'], 'Reversi opens with 4 legal moves');
    assert.match(one.stderr, /seat 0 of a reversi game/);
    /* turn 2 is random's: nothing of the program's */
    await p.page.locator('#next').click();
    await p.page.waitForFunction(() => document.querySelector('.replay')?.dataset.step === '2');
    assert.equal((await panel(p)).help, 'not its turn');
    await p.page.locator('#next').click();
    await p.page.waitForFunction(() => document.querySelector('.replay')?.dataset.step === '3');
    assert.match((await panel(p)).verdict, /^turn 3: ok /);
    /* the last step: its game over too */
    await p.page.locator('#last').click();
    await p.page.waitForFunction(() => document.querySelector('#replay-log')?.textContent.includes('game over'));
    assert.deepEqual(await overflow(p.page), [], 'the replay with its log fits');
    await p.page.screenshot({path: path.join(O.shots, `replay-log-${w}.png`), fullPage: true});
    assert.deepEqual(p.problems, []);
  });
}

test('a log added on the replay page, and a file that is no log refused', async () => {
  const p = await strictPage(lib, browser.context);
  pages.push(p);
  await p.page.setViewportSize({width: 1280, height: 800});
  await p.page.goto(server.url);
  await p.page.setInputFiles('#record-file', path.join(recs, 'game-000001.json'));
  await p.page.waitForURL(/#\/replay\/file$/);
  await p.page.locator('#replay-log').waitFor();
  assert.match(await p.page.locator('#replay-log').textContent(), /none/);
  /* game 1: the program is P2 (seat 1), first on turn 2 */
  await p.page.setInputFiles('#log-file', path.join(recs, 'game-000001.P2.log'));
  await p.page.locator('#next').click();
  await p.page.locator('#next').click();
  await p.page.waitForFunction(() => document.querySelector('.replay')?.dataset.step === '2');
  const two = await panel(p);
  assert.equal(two.seat, '1');
  assert.match(two.verdict, /^turn 2: ok /);
  assert.match(two.stderr, /seat 1 of a reversi game/);
  fs.writeFileSync(path.join(work, 'not-a-log.log'), 'hello\n');
  await p.page.setInputFiles('#log-file', path.join(work, 'not-a-log.log'));
  await p.page.locator('#banner').filter({hasText: 'not a tessera game log'}).waitFor({timeout: ms(5000)});
});
