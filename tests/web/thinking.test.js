// Thinking lines on the web board (issue 27): a live Reversi match — the
// server's `mcts` in seat 0, seat 1 played on a page by clicking — watched by
// a spectator page (every change it shows recorded as it happens, whatever
// the machine's load): during the bot's turn the
// spectator sees its candidates outlined on the board with their visit
// share, the panel's line (iterations growing: the candidates change while
// it thinks) and the value line on the score chart; the page playing seat 1
// sees none of it, during the turn and after. Then the finished match's
// replay: each position shows the line of the turn to come, the chart its
// value line. At 1280×800 and 390×844, nothing sticking out.
//
//   node thinking.test.js --bin build/cli/tessera --web web --out DIR
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
const S = webStage(O, lib, 'thinking');
const {pages} = S;
let server, browser, client;

before(async () => {
  ({server, browser, client} = await S.start());
});

/* Watch a page's thinking lines as they change (a MutationObserver: every
 * change is kept, however slowly a loaded machine lets the test look). */
function watchThinking(p) {
  return p.page.evaluate(() => {
    window.__seen = [];
    const look = () => {
      const body = document.querySelector('#thinking');
      const rec = {
        visible: !!body && !body.closest('[hidden]'),
        turn: body?.dataset.turn || null, iterations: body?.dataset.iterations || null,
        cands: [...document.querySelectorAll('svg.board .think-cand')].map((e) => Number(e.dataset.share)),
        items: [...document.querySelectorAll('#thinking-candidates li')].map((li) => li.textContent),
        pv: document.querySelector('#thinking-pv')?.textContent || '',
        value: document.querySelector('svg.score-chart .value-line path.value')?.getAttribute('d') || null,
        synced: Number(document.querySelector('.table')?.dataset.synced ?? -1),
      };
      const last = window.__seen[window.__seen.length - 1];
      if (!last || JSON.stringify(last) !== JSON.stringify(rec)) window.__seen.push(rec);
    };
    new MutationObserver(look).observe(document.body, {subtree: true, childList: true, attributes: true, characterData: true});
    look();
  });
}

const seenOf = (p) => p.page.evaluate(() => window.__seen);

for (const [w, hgt] of [[1280, 800], [390, 844]]) {
  test(`a bot's thinking, live to a spectator and hidden from its opponent; then in the replay (${w}×${hgt})`, async () => {
    const made = await client.request({type: 'create_match', game: 'reversi',
      seats: [{bot: 'mcts:ms=2500,reward=winloss', name: 'thinker'}, {open: true, name: 'opponent'}],
      time_control: {move_ms: 60000}, policies: {info: 'live'}});
    assert.equal(made.type, 'match_created', JSON.stringify(made));
    const match = made.match, token = made.seats[0].token;

    const spect = await strictPage(lib, browser.context);
    const opp = await strictPage(lib, browser.context);
    pages.push(spect, opp);
    for (const p of [spect, opp]) await p.page.setViewportSize({width: w, height: hgt});
    await spect.page.goto(`${server.url}#/watch/${match}`);
    await spect.page.locator('.table[data-synced="0"]').waitFor({timeout: ms(10000)});
    /* the opponent's page holds seat 1 (as the page that made the match would) */
    await opp.page.goto(server.url);
    await opp.page.evaluate(([m, t]) => localStorage.setItem('tessera.seats', JSON.stringify({[m]: {seat: 1, token: t}})), [match, token]);
    await opp.page.goto(`${server.url}#/play/${match}`); /* the join starts the match: the bot thinks */
    opp.page.on('dialog', (d) => d.accept());

    await watchThinking(spect);
    await watchThinking(opp);
    for (const turn of [1, 3]) {
      /* the bot's turn is over once the spectator has its update */
      await spect.page.locator(`.table[data-synced="${turn}"]`).waitFor({timeout: ms(30000)});
      const during = (await seenOf(spect)).filter((x) => x.visible && x.turn === String(turn) && x.synced < turn);
      assert.ok(during.length >= 2, `turn ${turn}: the spectator saw the line ${during.length} times`);
      const its = new Set(during.map((x) => x.iterations));
      assert.ok(its.size >= 2, `turn ${turn}: the line changed during the turn (${[...its].join(', ')})`);
      for (const x of during) {
        assert.ok(x.cands.length >= 1 && x.cands.length <= 8, 'candidates outlined on the board');
        assert.ok(x.cands.every((v) => v >= 0 && v <= 100));
        assert.ok(x.items.length === x.cands.length && /%/.test(x.items[0]));
      }
      assert.ok(during.some((x) => /^line: /.test(x.pv)), 'the principal variation in words');
      if (turn === 3) {
        /* the value line of the chart moved while the bot thought about turn 3 */
        const ds = new Set(during.map((x) => x.value));
        assert.ok(!ds.has(null) && ds.size >= 2, `the value line changed during the turn: ${ds.size}`);
      }
      if (turn === 1) {
        await spect.page.screenshot({path: path.join(O.shots, `thinking-live-${w}.png`), fullPage: true});
        assert.deepEqual(await overflow(spect.page), [], 'the spectator\'s page fits');
      }
      /* seat 1 answers by clicking, as a person would: the first marked square */
      await opp.page.locator(`.table[data-my-turn="${turn + 1}"]`).waitFor({timeout: ms(20000)});
      await opp.page.locator('svg.board .rv-cell.legal').first().click();
    }
    await spect.page.locator('.table[data-synced="4"]').waitFor({timeout: ms(30000)});
    /* the opponent's page never showed a line, before the moves or after */
    const oppSaw = await seenOf(opp);
    assert.ok(oppSaw.some((b) => b.synced >= 3), 'the opponent\'s page followed the game');
    for (const b of oppSaw) {
      assert.deepEqual(b.cands, [], 'no candidate on the opponent\'s board');
      assert.equal(b.visible, false, 'no thinking panel on the opponent\'s page');
      assert.equal(b.value, null, 'no value line on the opponent\'s chart');
    }
    await opp.page.screenshot({path: path.join(O.shots, `thinking-opponent-${w}.png`), fullPage: true});
    /* the game ends (seat 1 resigns), and its replay has each turn's last line */
    await opp.page.locator('#resign').click();
    await waitFor(async () => {
      const l = await client.request({type: 'list_matches', status: 'finished'});
      return l.matches?.some((x) => x.match === match);
    }, 'the match to finish', ms(30000));
    const rec = (await client.request({type: 'get_record', match})).record;
    assert.ok(rec.turns[0].info && rec.turns[2].info, 'the record keeps the bot\'s lines');

    const rp = await strictPage(lib, browser.context);
    pages.push(rp);
    await rp.page.setViewportSize({width: w, height: hgt});
    await rp.page.goto(`${server.url}#/replay/${match}`);
    await rp.page.locator('.replay[data-step="0"]').waitFor({timeout: ms(10000)});
    for (const k of [0, 2]) {
      while (Number(await rp.page.evaluate(() => document.querySelector('.replay').dataset.step)) < k)
        await rp.page.keyboard.press('ArrowRight');
      await rp.page.waitForFunction((n) => document.querySelector('.replay')?.dataset.thinkingTurn === String(n + 1), k);
      const r = await rp.page.evaluate(() => ({
        cands: [...document.querySelectorAll('svg.board .think-cand')].map((e) => e.dataset.key),
        turn: document.querySelector('#thinking').dataset.turn,
        points: document.querySelector('svg.score-chart .value-line')?.dataset.points,
      }));
      const info = rec.turns[k].info;
      assert.equal(r.turn, String(k + 1));
      assert.deepEqual(r.cands, info.candidates.map((c) => JSON.stringify(c.move)), 'the record\'s candidates outlined');
      assert.equal(JSON.parse(r.cands[0]).move, rec.turns[k].move, 'the move played first');
      assert.ok(Number(r.points) >= 2, 'the value line over the game');
    }
    assert.deepEqual(await overflow(rp.page), [], 'the replay fits');
    await rp.page.screenshot({path: path.join(O.shots, `thinking-replay-${w}.png`), fullPage: true});
    for (const p of [spect, opp, rp]) assert.deepEqual(p.problems, []);
  });
}
