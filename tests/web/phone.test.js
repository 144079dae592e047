// Every page of the web UI at phone size (390×844) and at desktop size
// (1280×800), in Debian's chromium: nothing sticks out sideways, the board
// keeps a usable size, the lobby's status and links can be reached, a person
// can make a move on a phone without scrolling, and no page logs an error or
// fails a request (the favicon included). Screenshots of each page at both
// sizes go to <out>/screenshots/ (phone-*.png, desktop-*.png).
//
//   node phone.test.js --bin build/cli/tessera --web web --out DIR
'use strict';
const fs = require('fs');
const path = require('path');
const {options, requireTools, ms, strictPage, overflow, reachable, rect, liveMatch, webStage} = require('./pages.js');

const O = options();
const lib = requireTools(O.bin);
const {test, before, after} = require('node:test');
const assert = require('node:assert/strict');
const {waitFor, boardSnapshot} = lib;

const SIZES = [
  {name: 'phone', width: 390, height: 844, board: 300},
  {name: 'desktop', width: 1280, height: 800, board: 600},
];

fs.mkdirSync(O.shots, {recursive: true});
const S = webStage(O, lib, 'phone');
const {pages} = S;
let server, browser, client;
let live, finished, reversi, player;

async function page(size, url) {
  const p = await strictPage(lib, browser.context);
  await p.page.setViewportSize({width: size.width, height: size.height});
  if (url) await p.page.goto(url);
  pages.push(p);
  return p;
}
async function shot(p, size, name) {
  await p.page.screenshot({path: path.join(O.shots, `${size.name}-${name}.png`)});
}
async function noOverflow(p, what) {
  assert.deepEqual(await overflow(p.page), [], `${what}: nothing sticks out of the ${p.page.viewportSize().width} px viewport`);
}

before(async () => {
  ({server, browser, client} = await S.start());
  // finished matches for the lobby and the replays, and a live one that lasts
  const done = await client.request({type: 'create_match', game: 'carcassonne', seats: [{bot: 'random'}, {bot: 'heuristic'}]});
  assert.equal(done.type, 'match_created', JSON.stringify(done));
  finished = done.match;
  reversi = (await client.request({type: 'create_match', game: 'reversi', seats: [{bot: 'random'}, {bot: 'random'}]})).match;
  const l = await liveMatch(lib, server.port, 12);
  live = l.match;
  player = l.client;
  await waitFor(async () => {
    const m = (await client.request({type: 'list_matches', status: 'all'})).matches;
    const over = (id) => m.find((x) => x.match === id)?.status === 'finished';
    return over(finished) && over(reversi);
  }, 'the finished matches', ms(30000), 200);
});

after(() => player?.close()); // the stage closes the rest

for (const size of SIZES) {
  test(`${size.name} (${size.width}×${size.height}): the lobby`, async () => {
    const p = await page(size, server.url);
    const row = `#live-matches tr[data-match="${live}"]`;
    await p.page.locator(row).waitFor();
    await p.page.locator(`#finished-matches tr[data-match="${finished}"]`).waitFor();
    await p.page.locator('#create-form').waitFor();
    await noOverflow(p, 'the lobby');
    // the first live match: its status and its link in view, and a tap reaches them
    assert.equal(await reachable(p.page, `${row} td.status`), '');
    assert.equal(await reachable(p.page, `${row} a.watch-link`), '');
    assert.match(await p.page.locator(`${row} td.status`).innerText(), /live/);
    // a finished match: status and both links, once scrolled to
    const frow = `#finished-matches tr[data-match="${finished}"]`;
    await p.page.locator(`${frow} a.replay-link`).scrollIntoViewIfNeeded();
    for (const sel of [`${frow} td.status`, `${frow} a.replay-link`, `${frow} a.watch-link`]) assert.equal(await reachable(p.page, sel), '');
    await p.page.evaluate(() => document.querySelector('.lobby').scrollTo(0, 0));
    await shot(p, size, 'lobby');
    // the create form: a button at the top of the lobby brings it into view
    assert.equal(await reachable(p.page, '#new-match-button'), '', 'the New match button is in the first screen');
    await p.page.click('#new-match-button');
    await waitFor(async () => {
      const r = await rect(p.page, '#create-form');
      return r.top >= 0 && r.top < size.height / 2;
    }, 'the form in view', 5000);
    assert.equal(await reachable(p.page, '#game'), '');
    // a bot seat with its options open: help lines wrap, nothing sticks out
    await p.page.selectOption('#seat-1', 'bot:mcts');
    await p.page.locator('.seat-row[data-seat="1"] details.bot-opts summary').click();
    await p.page.locator('#seat-1-opt-sims').waitFor();
    await noOverflow(p, 'the create form with a bot\'s options open');
    await p.page.locator('.seat-row[data-seat="1"]').scrollIntoViewIfNeeded();
    await shot(p, size, 'create-form');
    assert.deepEqual(p.problems, []);
  });

  test(`${size.name}: watching a live match`, async () => {
    const p = await page(size, `${server.url}#/watch/${live}`);
    await waitFor(async () => (await boardSnapshot(p.page)).tiles.length >= 5, 'the board drawn');
    const board = await rect(p.page, 'svg.board');
    assert.ok(board.width >= size.board && board.height >= 300, `the board is ${board.width}×${board.height} px`);
    assert.ok(board.right <= size.width && board.top < size.height / 4, 'the board starts at the top of the screen');
    await noOverflow(p, 'the live table');
    if (size.name === 'phone') {
      // the tile to place shows in the first screen, under the board
      const tile = await rect(p.page, '.drawn-tile');
      assert.ok(tile && tile.bottom <= size.height, `the tile to place in the first screen (bottom ${tile?.bottom})`);
    }
    // a banner never covers the board's message
    await p.page.evaluate(() => window.tessera.banner('a notice long enough to reach across the middle of the screen, as a real one may', 'warn'));
    const msg = await rect(p.page, '.board-msg');
    const banner = await rect(p.page, '#banner');
    assert.ok(msg.height > 0 && banner.height > 0, 'both shown');
    assert.ok(banner.top >= msg.bottom || banner.bottom <= msg.top, `the banner (${banner.top}..${banner.bottom}) is clear of the board message (${msg.top}..${msg.bottom})`);
    await noOverflow(p, 'the live table with a banner');
    await shot(p, size, 'watch');
    await p.page.evaluate(() => window.tessera.hideBanner());
    // the panel below the board on a phone: scores, the chart, the moves
    // a flat line (every score still 0) has no height, and Playwright calls it hidden: wait for it in the page
    await p.page.locator('#live-chart svg path.series').first().waitFor({state: 'attached'});
    await p.page.locator('#live-chart').scrollIntoViewIfNeeded();
    await noOverflow(p, 'the live table scrolled');
    assert.deepEqual(p.problems, []);
  });

  test(`${size.name}: a person's turn`, async () => {
    const p = await page(size, server.url);
    await p.page.locator('#create-form').waitFor();
    await p.page.selectOption('#game', 'carcassonne');
    await p.page.selectOption('#seat-0', 'me');
    await p.page.selectOption('#seat-1', 'bot:random');
    await p.page.fill('#tc-move', '300');
    await p.page.click('#create');
    await p.page.waitForURL(/#\/play\//);
    await p.page.locator('.table[data-my-turn] svg.board .cell').first().waitFor({timeout: ms(15000)});
    // without scrolling: the board with its highlighted cells, the tile and the rotate buttons
    assert.equal(await reachable(p.page, '#rot-cw'), '');
    assert.equal(await reachable(p.page, '.drawn-tile'), '');
    for (let i = 0; i < 4 && (await p.page.locator('.cell.legal').count()) === 0; i++) await p.page.click('#rot-cw');
    const cell = p.page.locator('.cell.legal').first();
    const box = await cell.boundingBox();
    const board = await rect(p.page, 'svg.board');
    assert.ok(box.width >= 20, `a cell is ${box.width} px wide: big enough to tap`);
    assert.ok(box.x >= board.left && box.x + box.width <= board.right && box.y >= board.top && box.y + box.height <= board.bottom, 'the cell is on screen');
    await noOverflow(p, 'a person\'s turn');
    await shot(p, size, 'play');
    await cell.click();
    await p.page.locator('svg.board .ghost').waitFor();
    assert.equal(await reachable(p.page, '#no-meeple'), '', 'the No meeple button in view');
    await shot(p, size, 'play-meeple');
    await p.page.click('#no-meeple');
    await waitFor(() => p.received.some((x) => x.type === 'move_accepted'), 'the move accepted');
    assert.deepEqual(p.problems, []);
  });

  test(`${size.name}: a replay`, async () => {
    const p = await page(size, `${server.url}#/replay/${finished}`);
    const table = p.page.locator('.table.replay');
    await waitFor(async () => Number(await table.getAttribute('data-turns')) > 0, 'the replay loaded');
    for (let i = 0; i < 12; i++) await p.page.click('#next');
    const board = await rect(p.page, 'svg.board');
    assert.ok(board.width >= size.board && board.height >= 300, `the board is ${board.width}×${board.height} px`);
    assert.equal(await reachable(p.page, '#next'), '', 'the step buttons in the first screen');
    await noOverflow(p, 'the replay');
    await shot(p, size, 'replay');
    await p.page.locator('#chart').scrollIntoViewIfNeeded();
    await noOverflow(p, 'the replay scrolled');
    assert.deepEqual(p.problems, []);
  });

  test(`${size.name}: a Reversi board and the tile gallery`, async () => {
    const p = await page(size, `${server.url}#/watch/${reversi}`);
    await p.page.locator('#result[data-scores]').waitFor();
    const board = await rect(p.page, 'svg.board');
    assert.ok(board.width >= size.board && board.height >= 300, `the board is ${board.width}×${board.height} px`);
    await noOverflow(p, 'a Reversi table');
    await shot(p, size, 'reversi');
    await p.page.goto(`${server.url}tiles.html`);
    await p.page.locator('#gallery figure').first().waitFor();
    await noOverflow(p, 'the tile gallery');
    assert.deepEqual(p.problems, []);
  });

  test(`${size.name}: the server's stats`, async () => {
    const p = await page(size, `${server.url}#/stats`);
    await p.page.locator('#stats tr[data-stat="moves"]').waitFor();
    await noOverflow(p, 'the stats page');
    await shot(p, size, 'stats');
    assert.deepEqual(p.problems, []);
  });
}

for (const size of SIZES) {
  test(`${size.name}: every page is a tap or two from the header, which keeps one line`, async () => {
    const p = await page(size, server.url);
    await p.page.locator('#live-matches').waitFor();
    const header = await rect(p.page, 'header.top');
    assert.ok(header.height <= 56, `the header is one line (${header.height} px high)`);
    const pagesOf = [['lobby', /#\/$/], ['tournaments', /#\/tournaments$/], ['course', /#\/course$/],
      ['instructor', /#\/instructor$/], ['stats', /#\/stats$/]];
    for (const [name, url] of pagesOf) {
      // the first link to the page that is shown; else the "More" menu's
      const direct = `header.top nav > a[data-page="${name}"]`;
      let sel = direct;
      if (await reachable(p.page, direct) !== '') {
        assert.equal(await reachable(p.page, 'header.top details.more > summary'), '', `${name}: "More" is in view`);
        await p.page.click('header.top details.more > summary');
        sel = `header.top details.more a[data-page="${name}"]`;
        await p.page.locator(sel).waitFor();
        await noOverflow(p, `the header's menu open (${name})`);
        if (name === 'course') await shot(p, size, 'header-menu');
      }
      assert.equal(await reachable(p.page, sel), '', `${name}'s link can be tapped`);
      const r = await rect(p.page, sel);
      assert.ok(r.height >= 24 && r.width >= 24, `${name}'s link is a ${Math.round(r.width)}×${Math.round(r.height)} px target`);
      await p.page.click(sel);
      await waitFor(async () => url.test(p.page.url()), `the ${name} page`, 5000);
      // the menu closes and the link is marked as the page is drawn, which may follow the address
      await waitFor(async () => await p.page.locator('header.top details.more[open]').count() === 0,
        `the menu closed once ${name} was chosen`, 5000);
      await waitFor(async () => await p.page.locator(`header.top a.here[data-page="${name}"]`).count() > 0,
        `${name} marked as the page shown`, 5000);
      const h = await rect(p.page, 'header.top');
      assert.ok(h.height <= 56, `${name}: the header is still one line (${h.height} px)`);
    }
    // the tile-art page is reached from the header too
    const tiles = await reachable(p.page, 'header.top nav > a[href="tiles.html"]') === ''
      ? 'header.top nav > a[href="tiles.html"]' : 'header.top details.more a[href="tiles.html"]';
    if (tiles.includes('more')) await p.page.click('header.top details.more > summary');
    assert.equal(await reachable(p.page, tiles), '', 'the tiles link can be tapped');
    assert.deepEqual(p.problems, []);
  });
}
