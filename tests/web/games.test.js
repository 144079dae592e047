// The boards of Dodgem and Pentago-Twist in Debian's chromium (issue 12): for
// each game, a person plays a whole game against `random` by clicking only —
// at desktop size (1280×800) and at phone size (390×844), where the board and
// its controls must fit the screen — a bot game is watched and its pieces
// checked against the server's public state, and its replay is stepped
// through, each step's pieces checked against the replayed state.
//
//   node games.test.js --bin build/cli/tessera --web web --out DIR
'use strict';
const fs = require('fs');
const path = require('path');
const {options, requireTools, ms, strictPage, overflow, reachable, rect, webStage} = require('./pages.js');

const O = options();
const lib = requireTools(O.bin);
const {test, before, after} = require('node:test');
const assert = require('node:assert/strict');
const {waitFor, wsClient} = lib;

const SIZES = [
  {name: 'desktop', width: 1280, height: 800, board: 500},
  {name: 'phone', width: 390, height: 844, board: 300},
];

/* What each game's board shows, and how a person makes a move on it. */
const GAMES = {
  dodgem: {
    title: 'Dodgem',
    /** The pieces on the page as "x,y,colour", sorted. */
    pieces: (page) => page.locator('svg.board[data-game="dodgem"] .dg-car').evaluateAll((els) => els.map((e) => `${e.dataset.car},${e.dataset.colour}`).sort()),
    want: (state) => boardPieces(state.board, 'BW'),
    ready: '.dg-car.movable',
    /** One move by clicks: a car, then a target (forward first, so the game ends soon). */
    async move(p, k) {
      const cars = p.page.locator('.dg-car.movable');
      const n = await cars.count();
      for (let i = 0; i < n; i++) {
        await cars.nth((k + i) % n).click();
        const fwd = p.page.locator('.dg-target[data-dir="E"]');
        if (await fwd.count()) { await fwd.first().click(); return; }
      }
      await p.page.locator('.dg-target').first().click();
    },
  },
  'pentago-twist': {
    title: 'Pentago-Twist',
    pieces: (page) => page.locator('svg.board[data-game="pentago-twist"] .pt-piece:not(.ghost)').evaluateAll((els) => els.map((e) => `${e.dataset.cell},${e.dataset.colour}`).sort()),
    want: (state) => boardPieces(state.board, 'WB'),
    ready: '.pt-cell.legal',
    /** One move by clicks: an empty cell, then a twist (on the board, or a button under it). */
    async move(p, k) {
      const cells = p.page.locator('.pt-cell.legal');
      await cells.nth((k * 7) % (await cells.count())).click();
      if (k % 2) await p.page.locator(`#twist-${k % 4}-${k % 3 ? 'rotate' : 'flip'}`).click();
      else await p.page.locator(`svg.board .pt-twist[data-quadrant="${(k >> 1) % 4}"][data-twist="rotate"]`).click();
    },
  },
};

function boardPieces(rows, letters) {
  const out = [];
  rows.forEach((row, y) => [...row].forEach((v, x) => { if (letters.includes(v)) out.push(`${x},${y},${v}`); }));
  return out.sort();
}

fs.mkdirSync(O.shots, {recursive: true});
const S = webStage(O, lib, 'games');
const {pages} = S;
let server, browser, client;

async function page(size, url) {
  const p = await strictPage(lib, browser.context);
  await p.page.setViewportSize({width: size.width, height: size.height});
  if (url) await p.page.goto(url);
  pages.push(p);
  return p;
}
async function shot(p, name) {
  await p.page.screenshot({path: path.join(O.shots, `games-${name}.png`)});
}
async function noOverflow(p, what) {
  assert.deepEqual(await overflow(p.page), [], `${what}: nothing sticks out of the ${p.page.viewportSize().width} px viewport`);
}
async function finishedMatch(id) {
  return waitFor(async () => (await client.request({type: 'list_matches', status: 'finished'})).matches.find((m) => m.match === id),
    `match ${id} to finish`, ms(60000), 200);
}

before(async () => {
  ({server, browser, client} = await S.start());
});

for (const [name, G] of Object.entries(GAMES)) {
  for (const size of SIZES) {
    test(`${G.title}, ${size.name}: a whole game played by clicking`, async () => {
      const p = await page(size, server.url);
      await p.page.locator('#create-form').waitFor();
      await p.page.selectOption('#game', name);
      await p.page.selectOption('#seat-0', 'me');
      await p.page.selectOption('#seat-1', 'bot:random');
      await p.page.click('#create');
      await p.page.waitForURL(/#\/play\//);
      const id = p.page.url().split('#/play/')[1];
      let turn = 0, moves = 0;
      for (;;) {
        turn = await waitFor(() => p.page.evaluate(([prev, ready]) => {
          if (document.querySelector('#result')?.dataset.scores) return {v: 0};
          const n = Number(document.querySelector('.table')?.dataset.myTurn || 0);
          return n > prev && document.querySelector(ready) ? {v: n} : null;
        }, [turn, G.ready]), `our ${G.title} turn`, ms(15000), 20).then((o) => o.v);
        if (!turn) break;
        if (moves === 0) {
          // the first turn: the board is big enough and in view, nothing sticks out
          const board = await rect(p.page, 'svg.board');
          assert.ok(board.width >= size.board || board.height >= size.board * 0.9, `the board is ${board.width}×${board.height} px`);
          assert.ok(board.right <= size.width && board.top < size.height / 4, 'the board starts at the top of the screen');
          assert.equal(await reachable(p.page, G.ready), '', 'a piece to click is in view');
          await noOverflow(p, `a ${G.title} turn`);
        }
        await G.move(p, moves);
        if (moves === 1) await shot(p, `${name}-${size.name}-play`);
        moves++;
        assert.ok(moves < 200, 'the game ends');
      }
      const fin = await finishedMatch(id);
      assert.equal(fin.result.reason, 'normal');
      assert.equal(await p.page.locator('#result').getAttribute('data-scores'), fin.scores.join(','));
      const sent = p.sent.filter((x) => x.type === 'move');
      assert.equal(sent.length, moves, 'one move message per move made');
      assert.equal(p.received.filter((x) => x.type === 'error').length, 0, 'no move refused');
      // the final position shown is the server's
      const spec = await wsClient(server.port);
      const view = await spec.request({type: 'spectate', match: id});
      spec.close();
      assert.deepEqual(await G.pieces(p.page), G.want(view.state));
      await shot(p, `${name}-${size.name}-end`);
      assert.deepEqual(p.problems, []);
    });
  }

  test(`${G.title}: watching a bot game, and its replay`, async () => {
    const r = await client.request({type: 'create_match', game: name, seats: [{bot: 'random'}, {bot: 'heuristic'}]});
    assert.equal(r.type, 'match_created', JSON.stringify(r));
    await finishedMatch(r.match);
    const spec = await wsClient(server.port);
    const view = await spec.request({type: 'spectate', match: r.match});
    spec.close();
    const p = await page(SIZES[0], `${server.url}#/watch/${r.match}`);
    await p.page.locator('#result[data-scores]').waitFor();
    assert.deepEqual(await G.pieces(p.page), G.want(view.state));
    const scores = await p.page.locator('.players .player').evaluateAll((els) => els.map((e) => +e.dataset.score));
    assert.deepEqual(scores, view.state.scores);
    await shot(p, `${name}-watch`);

    // the replay: every step's pieces are the replayed state's
    const rep = await client.request({type: 'replay', match: r.match});
    assert.equal(rep.type, 'replayed', JSON.stringify(rep).slice(0, 200));
    await p.page.goto(`${server.url}#/replay/${r.match}`);
    const table = p.page.locator('.table.replay');
    await waitFor(async () => Number(await table.getAttribute('data-turns')) > 0, 'the replay loaded');
    assert.equal(Number(await table.getAttribute('data-turns')), rep.turns.length);
    assert.deepEqual(await G.pieces(p.page), G.want(rep.initial));
    const steps = [1, 2, 3, Math.floor(rep.turns.length / 2), rep.turns.length];
    let at = 0;
    for (const k of steps) {
      while (at < k) { await p.page.click('#next'); at++; }
      await waitFor(async () => Number(await table.getAttribute('data-step')) === k, `step ${k}`);
      assert.deepEqual(await G.pieces(p.page), G.want(rep.turns[k - 1].state), `the pieces after turn ${k}`);
      assert.match(await p.page.locator('#replay-move').innerText(), new RegExp(`^${k}\\. `));
    }
    await shot(p, `${name}-replay`);
    await p.page.click('#first');
    assert.deepEqual(await G.pieces(p.page), G.want(rep.initial));
    // at phone size the replay fits too
    await p.page.setViewportSize({width: SIZES[1].width, height: SIZES[1].height});
    await p.page.click('#last');
    await noOverflow(p, `a ${G.title} replay`);
    assert.equal(await reachable(p.page, '#next'), '', 'the step buttons in the first screen');
    assert.deepEqual(p.problems, []);
  });
}
