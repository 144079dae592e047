// A seat taken over by a second tab (issue 15, item 10), in Debian's chromium
// against a real `tessera serve`: the tab that lost the seat (the server sends
// it `seat_taken`, docs/protocol.md) says so and keeps saying so, offers no
// move, keeps following the game, and takes the seat back when asked — and the
// other tab then stops in the same way.
//
//   node takeover.test.js --bin build/cli/tessera --web web --out DIR
'use strict';
const fs = require('fs');
const path = require('path');
const {options, requireTools, ms, strictPage, rect, webStage} = require('./pages.js');

const O = options();
const lib = requireTools(O.bin);
const {test, before, after} = require('node:test');
const assert = require('node:assert/strict');
const {waitFor, sleep, wsClient, boardSnapshot} = lib;

fs.mkdirSync(O.shots, {recursive: true});
const S = webStage(O, lib, 'takeover');
const {pages} = S;
let server, browser, client;

before(async () => {
  ({server, browser, client} = await S.start());
});

async function page(url) {
  const p = await strictPage(lib, browser.context, url);
  pages.push(p);
  return p;
}

/** Our turn number in page p, once it is our turn with cells to click. */
function myTurn(p, after = 0) {
  return waitFor(async () => {
    const n = Number(await p.page.locator('.table').getAttribute('data-my-turn'));
    return n > after && (await p.page.locator('svg.board .cell').count()) > 0 ? n : null;
  }, 'our turn', ms(15000));
}

/** Place the drawn tile on the first cell that takes it, no meeple. */
async function place(p) {
  for (let i = 0; i < 4 && (await p.page.locator('.cell.legal').count()) === 0; i++) await p.page.keyboard.press('r');
  await p.page.locator('.cell.legal').first().click();
  await p.page.keyboard.press('Enter');
}

/** What the page offers the person: a move, a clock of its own, a resign button, the title's mark. */
async function offers(p) {
  return p.page.evaluate(() => ({
    cells: document.querySelectorAll('svg.board .cell').length,
    ghost: document.querySelectorAll('svg.board .ghost').length,
    rotate: !document.querySelector('#rot-cw')?.closest('[hidden]') && !!document.querySelector('#rot-cw')?.offsetParent,
    resign: !!document.querySelector('#resign'),
    myTurn: document.querySelector('.table').dataset.myTurn ?? null,
    message: document.querySelector('.board-msg').textContent,
    title: document.title,
    you: [...document.querySelectorAll('.players .player .name')].some((e) => / \(you\)/.test(e.textContent)),
  }));
}

/** The tab that lost its seat: says so, offers nothing. */
async function assertLost(p, what) {
  await p.page.locator('#seat-notice:not([hidden])').waitFor({timeout: ms(5000)});
  assert.match(await p.page.locator('#seat-notice').innerText(), /another tab or window/i, `${what}: says the seat went`);
  assert.ok(await p.page.locator('#take-back').isVisible(), `${what}: offers to take it back`);
  const o = await offers(p);
  assert.equal(o.cells, 0, `${what}: no cell to click`);
  assert.equal(o.ghost, 0, `${what}: no tile being placed`);
  assert.equal(o.rotate, false, `${what}: no rotate buttons`);
  assert.equal(o.resign, false, `${what}: no resign button`);
  assert.equal(o.myTurn, null, `${what}: not our turn here`);
  assert.doesNotMatch(o.message, /Your turn/, `${what}: the board does not say "Your turn"`);
  assert.doesNotMatch(o.title, /^●/, `${what}: the title has no turn mark`);
  assert.equal(o.you, false, `${what}: no seat is "you"`);
}

test('a seat taken over by a second tab, and taken back', async () => {
  // tab A creates the match and plays its first turn
  const a = await page(server.url);
  await a.page.locator('#create-form').waitFor();
  await a.page.selectOption('#game', 'carcassonne');
  await a.page.selectOption('#seat-0', 'me');
  await a.page.selectOption('#seat-1', 'bot:random');
  await a.page.fill('#tc-move', '300');
  await a.page.click('#create');
  await a.page.waitForURL(/#\/play\//);
  const match = a.page.url().split('#/play/')[1];
  const t1 = await myTurn(a);
  await place(a);
  const t2 = await myTurn(a, t1);
  // tab B opens the same seat (same browser, same saved tokens): it resumes the seat
  const b = await page(`${server.url}#/play/${match}`);
  assert.equal(await myTurn(b), t2, 'B has the turn A had');
  await waitFor(() => a.received.some((m) => m.type === 'error' && m.code === 'seat_taken'), 'A told seat_taken by the server');
  await assertLost(a, 'A after the take-over');
  assert.equal(await a.page.locator('.table').getAttribute('data-seat-lost'), 'taken');
  await a.page.screenshot({path: path.join(O.shots, 'takeover-lost.png')});
  // keys and clicks in A do nothing
  const sentBefore = a.sent.filter((m) => m.type === 'move').length;
  await a.page.keyboard.press('r');
  await a.page.keyboard.press('Enter');
  const board = await rect(a.page, 'svg.board');
  await a.page.mouse.click(board.left + board.width / 2, board.top + board.height / 2);
  assert.equal(a.sent.filter((m) => m.type === 'move').length, sentBefore, 'A sends no move');
  assert.equal((await offers(a)).ghost, 0);
  // the notice stays (a banner would have gone after a few seconds), and the banner never covers the board's message
  await sleep(6500);
  assert.ok(await a.page.locator('#seat-notice').isVisible(), 'the notice is still there');
  // A keeps following the game: B plays, A's board shows it
  const synced = (await boardSnapshot(a.page)).synced;
  await place(b);
  const t3 = await myTurn(b, t2);
  await waitFor(async () => (await boardSnapshot(a.page)).synced >= t3 - 1 && (await boardSnapshot(a.page)).synced > synced, 'A following B\'s moves');
  const sa = await boardSnapshot(a.page), sb = await boardSnapshot(b.page);
  assert.deepEqual(sa.tiles.map((t) => `${t.x},${t.y},${t.tile},${t.rot}`).sort(), sb.tiles.map((t) => `${t.x},${t.y},${t.tile},${t.rot}`).sort(), 'A shows B\'s board');
  await assertLost(a, 'A while B plays');
  // A takes the seat back: A plays, B is the one told
  await a.page.click('#take-back');
  assert.equal(await myTurn(a), t3, 'A has the turn again');
  assert.ok(await a.page.locator('#seat-notice').isHidden(), 'A\'s notice gone');
  assert.match(await a.page.title(), /^● Your turn/);
  await assertLost(b, 'B after A took the seat back');
  await place(a);
  await waitFor(() => a.received.some((m) => m.type === 'move_accepted' && m.turn === t3), 'A\'s move accepted');
  await myTurn(a, t3);
  await assertLost(b, 'B while A plays');
  // what the server holds: every move of seat 0 was played by a person, none by the server
  const spec = await wsClient(server.port);
  const view = await spec.request({type: 'spectate', match});
  spec.close();
  assert.ok(view.history.filter((r) => r.player === 0).length >= 3);
  assert.ok(![...a.received, ...b.received].some((m) => m.type === 'update' && m.by === 'server' && m.reason !== 'dead tile'), 'no move played by the server');
  await b.page.screenshot({path: path.join(O.shots, 'takeover-taken-back.png')});
  assert.deepEqual(a.problems, []);
  assert.deepEqual(b.problems, []);
});

test('a reconnect does not take a lost seat back on its own', async () => {
  const a = await page(server.url);
  await a.page.locator('#create-form').waitFor();
  await a.page.selectOption('#seat-0', 'me');
  await a.page.selectOption('#seat-1', 'bot:random');
  await a.page.fill('#tc-move', '300');
  await a.page.click('#create');
  await a.page.waitForURL(/#\/play\//);
  const match = a.page.url().split('#/play/')[1];
  const t1 = await myTurn(a);
  const b = await page(`${server.url}#/play/${match}`);
  assert.equal(await myTurn(b), t1);
  await assertLost(a, 'A after the take-over');
  // A's connection drops and comes back: it watches again, and B keeps the seat
  const welcomes = a.received.filter((m) => m.type === 'welcome').length;
  const sentBefore = a.sent.length;
  await a.page.evaluate(() => window.tessera.conn.drop());
  await waitFor(() => a.received.filter((m) => m.type === 'welcome').length > welcomes, 'A reconnected', ms(10000));
  await a.page.locator('body[data-conn="open"]').waitFor();
  await waitFor(() => a.received.filter((m) => m.type === 'spectating').length >= 2, 'A watching again');
  assert.ok(a.sent.slice(sentBefore).some((m) => m.type === 'spectate'), 'A asked to watch');
  assert.ok(!a.sent.slice(sentBefore).some((m) => m.type === 'resume' || m.type === 'join'), 'A did not resume');
  await assertLost(a, 'A after its reconnect');
  const o = await offers(b);
  assert.ok(o.cells > 0 && o.myTurn === String(t1), 'B still has the seat and the turn');
  assert.ok(!b.received.some((m) => m.type === 'error' && m.code === 'seat_taken'), 'B was never told seat_taken');
  assert.deepEqual(a.problems, []);
  assert.deepEqual(b.problems, []);
});
