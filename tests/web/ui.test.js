// End-to-end tests of the web UI (web/) in a real browser: Debian's chromium
// driven by playwright-core, against a real `tessera serve`.
//
//   node ui.test.js --bin build/cli/tessera --web web --out DIR [--readme-shot docs/screenshot-live.png]
//
// Without chromium or the npm packages it fails (exit 1), naming what is
// missing; with TESSERA_SKIP_MISSING=1 it exits 77 instead (CTest: skipped).
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');

function arg(name, def) {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : def;
}
const BIN = path.resolve(arg('--bin', 'build/cli/tessera'));
const WEB = path.resolve(arg('--web', path.join(__dirname, '../../web')));
const OUT = path.resolve(arg('--out', path.join(os.tmpdir(), 'tessera-web-tests')));
const README_SHOT = arg('--readme-shot', process.env.TESSERA_README_SHOT || '');
const SHOTS = path.join(OUT, 'screenshots');

function skip(why) {
  if (process.env.TESSERA_SKIP_MISSING === '1') {
    console.log(`SKIPPED: ${why}`);
    process.exit(77);
  }
  console.error(`MISSING: ${why} (TESSERA_SKIP_MISSING=1 skips these tests instead)`);
  process.exit(1);
}
let lib;
try {
  require.resolve('playwright-core');
  require.resolve('ws');
  lib = require('./lib.js');
} catch {
  skip(`the npm packages of tests/web are not installed (run: npm ci --prefix ${__dirname})`);
}
if (!fs.existsSync(lib.CHROMIUM)) skip(`no chromium at ${lib.CHROMIUM} (Debian: apt-get install chromium)`);
if (!fs.existsSync(BIN)) { console.error(`no tessera binary at ${BIN}`); process.exit(1); }

const {test, before, after} = require('node:test');
const assert = require('node:assert/strict');
const {sleep, waitFor, startServer, wsClient, launchBrowser, openPage, boardSnapshot, compareWithState} = lib;

fs.mkdirSync(SHOTS, {recursive: true});
// server databases and logs, and the browser profile: kept for a look after a failure
const work = path.join(OUT, 'run');
fs.rmSync(work, {recursive: true, force: true});
fs.mkdirSync(work, {recursive: true});
let server, browser, client;
const pages = [];
const followers = [];

async function page(url) {
  const p = await openPage(browser.context, url);
  pages.push(p);
  return p;
}
/** Run a test body; on failure, a screenshot of each page still open, for a look. */
function withShots(fn) {
  return async (t) => {
    try { await fn(t); } catch (e) {
      const safe = t.name.replace(/[^a-z0-9]+/gi, '-').slice(0, 40);
      for (const [i, p] of pages.entries()) await p.page.screenshot({path: path.join(SHOTS, `FAILED-${safe}-${i}.png`)}).catch(() => {});
      throw e;
    }
  };
}
async function shot(p, name) {
  await p.page.screenshot({path: path.join(SHOTS, name)});
}
function noErrors(p) {
  assert.deepEqual(p.errors, [], 'the page logged errors');
}

before(async () => {
  server = await startServer({bin: BIN, web: WEB, dir: work, demo: true});
  browser = await launchBrowser(work);
  client = await wsClient(server.port);
});

after(async () => {
  for (const f of followers) f.close();
  for (const p of pages) await p.page.close().catch(() => {});
  await browser?.close();
  client?.close();
  await server?.stop();
});

/** Create a match over the protocol; resolves with its id. */
async function createMatch(game, seats, extra = {}) {
  const r = await client.request({type: 'create_match', game, seats, ...extra});
  assert.equal(r.type, 'match_created', JSON.stringify(r));
  return r;
}

/** Watch a match over the protocol and remember the public state after each turn. */
async function follow(match) {
  const c = await wsClient(server.port);
  const states = new Map();    // turns played -> {state, last}
  let over = null;
  const r = await c.request({type: 'spectate', match});
  assert.equal(r.type, 'spectating');
  states.set(r.history.length, {state: r.state, last: r.history[r.history.length - 1] || null});
  /* two bots may finish the whole game before the spectate is read (a
   * loaded machine did, for Reversi): a finished match's view has no
   * game_over to follow, so its status and result stand for it */
  if (r.status === 'finished')
    over = {type: 'game_over', match, result: r.result, scores: r.state && r.state.scores, fromView: true};
  const ws = c;
  const poll = setInterval(() => {
    for (const m of ws.inbox.splice(0)) {
      if (m.type === 'update' && m.match === match) states.set(m.turn, {state: m.state, last: m.record});
      if (m.type === 'game_over' && m.match === match) over = m;
    }
  }, 5);
  const f = {c, states, get over() { return over; }, history: r.history, close() { clearInterval(poll); c.close(); }};
  followers.push(f);
  return f;
}

// A check of its own for symmetric tiles (not the UI's code): rotations that
// give the same tile on the board, from the port map.
function sameTileRotations(ports) {
  const rotate = (r) => { let o = ''; for (let j = 0; j < 12; j++) o += ports[(j - 3 * r + 48) % 12]; return o + ports[12]; };
  const canon = (str) => { const seen = new Map(); let n = 0; return [...str].map((c) => (c === '.' ? '.' : (seen.has(c) ? seen.get(c) : (seen.set(c, c.replace(/[cd]/, 'c').replace(/[rstu]/, 'r').replace(/[fghi]/, 'f') + n++), seen.get(c))))).join(' '); };
  const c = [0, 1, 2, 3].map((r) => canon(rotate(r)));
  return (a, b) => c[a] === c[b];
}

// ---------------------------------------------------------------------------

test('the lobby lists a running bot match', withShots(async () => {
  const live = await waitFor(async () => {
    const r = await client.request({type: 'list_matches', status: 'live'});
    return r.matches.find((m) => m.demo && m.status === 'live');
  }, 'the demo match', 15000);
  const p = await page(server.url);
  const row = p.page.locator(`#live-matches tr[data-match="${live.match}"]`);
  await row.waitFor({timeout: 10000});
  assert.equal(await row.getAttribute('data-status'), 'live');
  const text = await row.innerText();
  for (const s of live.seats) assert.ok(text.includes(s.name), `the row names ${s.name}: ${text}`);
  assert.ok(text.includes('Carcassonne'));
  assert.ok(await row.locator('a.watch-link').count() === 1, 'a link to watch it');
  // the create form offers the server's games and bots
  const options = await p.page.locator('#seat-1 option').allTextContents();
  assert.ok(options.some((o) => o.includes('random')) && options.some((o) => o.includes('me')));
  await shot(p, 'lobby.png');
  noErrors(p);
}));

test('the live board follows the moves and matches the server state', withShots(async () => {
  // Seat 1 is played by this test, and it moves only once the page has shown the turn before:
  // the game's pace is the page's, so every second turn is compared however busy the machine is.
  const r = await createMatch('carcassonne', [{bot: 'heuristic'}, {open: true}], {time_control: {move_ms: 600000}});
  const match = r.match;
  const mine = r.seats.find((s) => s.token);
  const f = await follow(match);
  const me = await wsClient(server.port);
  followers.push({close: () => me.close()});
  me.send({type: 'join', match, seat: mine.seat, token: mine.token});
  const p = await page(`${server.url}#/watch/${match}`);
  const checked = new Set();
  let readmeTaken = false;
  let pending = null;            // our your_turn, not yet answered
  const start = Date.now();
  for (;;) {
    for (const m of me.inbox.splice(0)) if (m.type === 'your_turn' && m.match === match) pending = m;
    const snap = await boardSnapshot(p.page);
    const known = f.states.get(snap.synced);
    if (known) {
      const diffs = compareWithState(snap, known.state, known.last);
      assert.deepEqual(diffs, [], `after turn ${snap.synced}`);
      checked.add(snap.synced);
      if (!readmeTaken && snap.synced >= 45) {
        readmeTaken = true;
        await shot(p, 'live-board.png');
        if (README_SHOT) await p.page.screenshot({path: README_SHOT});
      }
    }
    if (pending && checked.has(pending.turn - 1)) {   // your_turn counts from 1, updates count turns played
      const e = pending.legal[pending.turn % pending.legal.length];
      me.send({type: 'move', match, turn: pending.turn, move: {x: e.x, y: e.y, rot: e.rot}});
      pending = null;
    }
    if (f.over && Math.max(...f.states.keys()) === snap.synced && checked.has(snap.synced)) break;
    assert.ok(Date.now() - start < 240000 * lib.SLOW, 'the game ends within 4 minutes'); // a stuck UI
    await sleep(30);
  }
  assert.ok(checked.size >= 30, `compared at ${checked.size} different turns while the game went on`);
  assert.ok(checked.size >= 5, `compared at ${checked.size} different turns while the game went on`);
  // the end: scores and result shown
  const result = p.page.locator('#result');
  await waitFor(async () => (await result.getAttribute('data-scores')) === f.over.scores.join(','), 'the final scores');
  assert.ok((await p.page.locator('svg.board .meeple-at').count()) === (f.states.get(Math.max(...f.states.keys())).state.meeples || []).length);
  await shot(p, 'finished-board.png');
  f.close();
  noErrors(p);
}));

/** Create a match with seat 0 = me and seat 1 = random, through the lobby form. */
async function createFromLobby(p) {
  await p.page.goto(server.url);
  await p.page.locator('#create-form').waitFor();
  await p.page.selectOption('#game', 'carcassonne');
  await p.page.selectOption('#seat-0', 'me');
  await p.page.selectOption('#seat-1', 'bot:random');
  await p.page.fill('#tc-move', '60');
  await p.page.click('#create');
  await p.page.waitForURL(/#\/play\//);
  const match = p.page.url().split('#/play/')[1];
  await p.page.locator('.table[data-mode="play"]').waitFor();
  return match;
}

/** Wait for our turn (returns its number) or the end of the game (returns 0). */
async function nextTurn(p, after) {
  return waitFor(async () => {
    return p.page.evaluate((prev) => {
      const t = document.querySelector('.table');
      if (document.querySelector('#result')?.dataset.scores) return 0;
      const n = Number(t?.dataset.myTurn || 0);
      if (n > prev && document.querySelector('svg.board .layer-cells .cell')) return n;
      return null;
    }, after).then((v) => (v === null ? null : {v}));
  }, 'our turn', 20000, 20).then((o) => o.v);
}

test('a person plays a whole game against random with clicks and keys', withShots(async () => {
  const t0 = Date.now();
  const p = await page();
  const match = await createFromLobby(p);
  let turn = 0, turns = 0, meeples = 0, rotatedByKey = false, dropped = false;
  for (;;) {
    turn = await nextTurn(p, turn);
    if (turn === 0) break;
    turns++;
    const drawn = p.page.locator('.drawn-tile');
    if (turns === 1) {
      // rotate with the keyboard: R clockwise, Shift+R back
      const r0 = Number(await drawn.getAttribute('data-rot'));
      await p.page.keyboard.press('r');
      assert.equal(Number(await drawn.getAttribute('data-rot')), (r0 + 1) % 4, 'R turns the tile clockwise');
      await p.page.keyboard.press('Shift+R');
      assert.equal(Number(await drawn.getAttribute('data-rot')), r0, 'Shift+R turns it back');
      await p.page.keyboard.press('ArrowRight');
      rotatedByKey = true;
      await shot(p, 'human-turn.png');
    }
    if (turns === 6 && !dropped) {
      // drop the connection in the middle of our turn: the seat is resumed
      dropped = true;
      await p.page.evaluate(() => window.tessera.conn.drop());
      await p.page.locator('#banner[data-kind="down"]').waitFor({timeout: 5000});
      assert.equal(await p.page.locator('svg.board .cell').count(), 0, 'no move can be made while offline');
      await p.page.locator('body[data-conn="open"]').waitFor({timeout: 10000});
      turn = turn - 1;
      continue;
    }
    // rotate until some cell takes the tile as it is turned (at most 3 presses)
    for (let i = 0; i < 4 && (await p.page.locator('.cell.legal').count()) === 0; i++) await p.page.keyboard.press('r');
    const cells = p.page.locator('.cell.legal');
    const n = await cells.count();
    assert.ok(n > 0, 'some cell is highlighted');
    await cells.nth((turns * 7) % n).click();
    await p.page.locator('svg.board .ghost').waitFor();
    if (turns % 5 === 2) await p.page.keyboard.press('r');   // another legal rotation there, if any
    const spots = p.page.locator('svg.board .spot');
    const k = await spots.count();
    if (turns === 3 && k) await shot(p, 'meeple-choice.png');
    if (k && turns % 3 === 0) {
      await spots.nth(turns % k).click();
      meeples++;
    } else if (turns % 2) await p.page.keyboard.press('Enter');
    else await p.page.click('#no-meeple');
  }
  const elapsed = (Date.now() - t0) / 1000;
  // the server's account of the game
  const list = await client.request({type: 'list_matches', status: 'finished'});
  const m = list.matches.find((x) => x.match === match);
  assert.ok(m, 'the match is finished');
  assert.equal(m.result.reason, 'normal');
  const shown = await p.page.locator('#result').getAttribute('data-scores');
  assert.equal(shown, m.scores.join(','), 'the final scores shown are the server\'s');
  const spec = await wsClient(server.port);
  const view = await spec.request({type: 'spectate', match});
  spec.close();
  const mine = view.history.filter((r) => r.player === 0 && !r.discarded);
  const sentMoves = p.sent.filter((x) => x.type === 'move');
  assert.equal(sentMoves.length, mine.length, 'one move sent per turn we played');
  const byServer = p.received.filter((x) => x.type === 'update' && x.by === 'server' && x.reason !== 'dead tile');
  assert.deepEqual(byServer, [], 'no move of ours was played by the server');
  assert.ok(!p.received.some((x) => x.type === 'error' && x.id === 'move'), 'no move was refused');
  assert.ok(rotatedByKey && meeples > 0, 'rotated with keys and placed meeples');
  assert.ok(p.received.some((x) => x.type === 'resumed'), 'the seat was resumed after the drop');
  assert.equal(view.state.bag_left, 0);
  await shot(p, 'game-over.png');
  console.log(`# a whole game through the UI: ${turns} turns, ${meeples} meeples by click, ${elapsed.toFixed(1)} s`);
  assert.ok(elapsed < 180 * lib.SLOW, `the game took ${elapsed} s`); // a stuck UI, not a busy machine
  noErrors(p);
}));

test('an illegal placement cannot be made from the UI', withShots(async () => {
  const p = await page();
  const match = await createFromLobby(p);
  const turn = await nextTurn(p, 0);
  assert.ok(turn > 0);
  const yt = p.received.filter((x) => x.type === 'your_turn' && x.match === match).pop();
  const legal = yt.legal;
  const tileDefs = (await client.request({type: 'list_games'})).games.find((g) => g.name === 'carcassonne').tiles;
  const same = sameTileRotations(tileDefs[yt.state.tile].ports);
  const isLegal = (x, y, rot) => legal.some((e) => e.x === x && e.y === y && same(e.rot, rot));
  const moves = () => p.sent.filter((x) => x.type === 'move').length;
  const clickWorld = async (x, y) => {
    const pt = await p.page.evaluate(([cx, cy]) => {
      const svg = document.querySelector('svg.board');
      const m = svg.getScreenCTM();
      return {x: m.a * cx + m.c * cy + m.e, y: m.b * cx + m.d * cy + m.f};
    }, [x * 100 + 50, y * 100 + 50]);
    await p.page.mouse.click(pt.x, pt.y);
  };
  // a cell without a highlight: the start tile, and empty cells no placement uses
  const cells = new Set(legal.map((e) => `${e.x},${e.y}`));
  const empty = [[1, 1], [-1, -1], [1, -1], [-1, 1], [0, 0]].filter(([x, y]) => !cells.has(`${x},${y}`));
  assert.ok(empty.length > 0);
  for (const [x, y] of empty) {
    await clickWorld(x, y);
    assert.equal(await p.page.locator('svg.board .ghost').count(), 0, `clicking (${x},${y}) places nothing`);
  }
  // dragging the board pans it and places nothing, even when it starts on a highlighted cell
  const vb0 = await p.page.locator('svg.board').getAttribute('viewBox');
  const box = await p.page.locator('.cell').first().boundingBox();
  await p.page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await p.page.mouse.down();
  await p.page.mouse.move(box.x + box.width / 2 + 60, box.y + box.height / 2 + 30, {steps: 5});
  await p.page.mouse.up();
  const vb1 = await p.page.locator('svg.board').getAttribute('viewBox');
  assert.notEqual(vb1, vb0, 'the drag panned the board');
  assert.equal(await p.page.locator('svg.board .ghost').count(), 0, 'a drag is not a click');
  await p.page.mouse.wheel(0, -300);
  const vb2 = await p.page.locator('svg.board').getAttribute('viewBox');
  assert.ok(Number(vb2.split(' ')[2]) < Number(vb1.split(' ')[2]), 'the wheel zooms in');
  await p.page.keyboard.press('f');   // fit again
  // every rotation the UI offers at a cell is a legal one
  const rot = Number(await p.page.locator('.drawn-tile').getAttribute('data-rot'));
  const strong = await p.page.locator('.cell.legal').evaluateAll((els) => els.map((e) => [+e.dataset.x, +e.dataset.y]));
  const hints = await p.page.locator('.cell.hint').evaluateAll((els) => els.map((e) => [+e.dataset.x, +e.dataset.y]));
  for (const [x, y] of strong) assert.ok(isLegal(x, y, rot), `(${x},${y}) rot ${rot} is highlighted and legal`);
  for (const [x, y] of hints) assert.ok(!isLegal(x, y, rot), `(${x},${y}) rot ${rot} is only a hint`);
  const target = hints[0] || strong[0];
  await p.page.locator(`.cell[data-x="${target[0]}"][data-y="${target[1]}"]`).click();
  const ghost = p.page.locator('svg.board .ghost');
  await ghost.waitFor();
  const seen = new Set();
  for (let i = 0; i < 5; i++) {
    const r = Number(await ghost.getAttribute('data-rot'));
    seen.add(r);
    assert.ok(isLegal(target[0], target[1], r), `the tile stands at (${target}) only in legal rotations (rot ${r})`);
    await p.page.keyboard.press(i % 2 ? 'Shift+R' : 'r');
  }
  // a meeple key beyond the spots does nothing
  const nSpots = await p.page.locator('svg.board .spot').count();
  if (nSpots < 9) await p.page.keyboard.press('9');
  await p.page.keyboard.press('Escape');
  assert.equal(await ghost.count(), 0, 'Escape takes the tile back');
  assert.equal(moves(), 0, 'no move was sent by any of this');
  // the UI never offered an illegal placement: a placement now sends one legal move
  const firstStrong = p.page.locator('.cell.legal').first();
  if ((await firstStrong.count()) === 0) await p.page.keyboard.press('r');
  await p.page.locator('.cell.legal, .cell.hint').first().click();
  await p.page.keyboard.press('Enter');
  await waitFor(() => moves() === 1, 'one move');
  const sent = p.sent.find((x) => x.type === 'move');
  assert.ok(legal.some((e) => e.x === sent.move.x && e.y === sent.move.y && e.rot === sent.move.rot), `sent a legal placement ${JSON.stringify(sent.move)}`);
  await waitFor(() => p.received.some((x) => x.type === 'move_accepted'), 'move_accepted');
  assert.ok(!p.received.some((x) => x.type === 'error'), 'no error');
  // resigning: the button (after the page's confirmation) ends the match
  p.page.once('dialog', (d) => d.accept());
  await p.page.locator('#resign').click();
  await waitFor(() => p.sent.some((x) => x.type === 'resign'), 'the resign message');
  const over = await waitFor(() => p.received.find((x) => x.type === 'game_over'), 'game_over after resigning');
  assert.equal(over.result.reason, 'resignation');
  assert.equal(over.result.seat, p.received.find((x) => x.type === 'joined').seat, 'our seat resigned');
  assert.ok(p.received.some((x) => x.type === 'resigned'), 'the server confirmed');
  noErrors(p);
  await p.page.close();
}));

test('a replay steps to the end and shows the final scores', withShots(async () => {
  const {match} = await createMatch('carcassonne', [{bot: 'random'}, {bot: 'heuristic'}]);
  const f = await follow(match);
  const over = await waitFor(() => f.over || f.c.inbox.find((m) => m.type === 'game_over'), 'the game to end', 20000)
    .catch(async () => null);
  const final = over || (await client.request({type: 'list_matches', status: 'finished'})).matches.find((m) => m.match === match);
  f.close();
  const spec = await wsClient(server.port);
  const view = await spec.request({type: 'spectate', match});
  spec.close();
  const scores = final.scores.join(',');
  const history = view.history;
  const p = await page(`${server.url}#/replay/${match}`);
  const table = p.page.locator('.table.replay');
  await table.waitFor();
  await waitFor(async () => (await table.getAttribute('data-turns')) === String(history.length), 'the replay loaded');
  const tilesShown = () => p.page.locator('svg.board .layer-tiles g.tile').count();
  assert.equal(await table.getAttribute('data-step'), '0');
  assert.equal(await tilesShown(), 1, 'the start tile alone at step 0');
  for (let i = 0; i < 3; i++) await p.page.click('#next');
  assert.equal(await table.getAttribute('data-step'), '3');
  const placed = (k) => 1 + history.slice(0, k).filter((r) => !r.discarded).length;
  assert.equal(await tilesShown(), placed(3));
  await p.page.keyboard.press('ArrowLeft');
  assert.equal(await table.getAttribute('data-step'), '2');
  assert.equal(await tilesShown(), placed(2));
  // the scores at a step are the server's replay's
  const rep = p.received.find((x) => x.type === 'replayed');
  assert.ok(rep, 'the page asked the server for the replay');
  assert.equal(rep.turns.length, history.length);
  for (const k of [2, 10, 40, history.length]) {
    await p.page.evaluate((v) => { const s = document.querySelector('#step-slider'); s.value = String(v); s.dispatchEvent(new Event('input')); }, k);
    assert.equal(await table.getAttribute('data-step'), String(k));
    const row = await p.page.locator('#replay-scores tr').evaluateAll((els) => els.map((e) => e.dataset.score).join(','));
    assert.equal(row, rep.turns[k - 1].scores.join(','), `scores after turn ${k}`);
  }
  await p.page.keyboard.press('End');
  assert.equal(await table.getAttribute('data-step'), String(history.length));
  assert.equal(await p.page.locator('#result').getAttribute('data-scores'), scores, 'final scores');
  const rows = await p.page.locator('#replay-scores tr').evaluateAll((els) => els.map((e) => e.dataset.score).join(','));
  assert.equal(rows, scores);
  assert.equal(await tilesShown(), placed(history.length));
  assert.equal(await p.page.locator('#chart svg path.series').count(), 2, 'a line per player in the chart');
  await shot(p, 'replay.png');
  // a record file, opened from the lobby
  const rec = {format: 'tessera-record', version: 1, game: view.game, rules: view.rules, turns: history, result: {scores: final.scores}};
  const file = path.join(work, 'game.json');
  fs.writeFileSync(file, JSON.stringify(rec));
  await p.page.goto(server.url);
  await p.page.setInputFiles('#record-file', file);
  await p.page.waitForURL(/#\/replay\/file/);
  await waitFor(async () => (await table.getAttribute('data-turns')) === String(history.length), 'the record loaded');
  await p.page.click('#last');
  assert.equal(await p.page.locator('#result').getAttribute('data-scores'), scores, 'final scores of the record');
  // a record too large for one message: said so, not sent (the server would
  // close the connection on it, and the page reconnect and send it again)
  const big = path.join(work, 'big.json');
  fs.writeFileSync(big, JSON.stringify({...rec, comment: 'x'.repeat(70000)}));
  const welcomes = () => p.received.filter((x) => x.type === 'welcome').length;
  await p.page.goto(server.url);
  await p.page.setInputFiles('#record-file', big);
  await p.page.waitForURL(/#\/replay\/file/);
  const meta = p.page.locator('.table.replay .error');
  await meta.waitFor({timeout: 5000});
  assert.match(await meta.textContent(), /tessera replay/);
  const w0 = welcomes();
  await new Promise((r) => setTimeout(r, 1500));
  assert.equal(welcomes(), w0, 'no reconnect loop');
  assert.equal(await p.page.locator('body').getAttribute('data-conn'), 'open', 'the connection stays up');
  noErrors(p);
}));

test('a dropped connection shows the trouble and resynchronises', withShots(async () => {
  // (1) the page's socket is closed under it
  const {match} = await createMatch('carcassonne', [{bot: 'mcts:ms=150'}, {bot: 'heuristic'}]);
  const f = await follow(match);
  const p = await page(`${server.url}#/watch/${match}`);
  await waitFor(async () => (await boardSnapshot(p.page)).synced >= 2, 'a few turns', 30000);
  /* every banner the page shows, in order: the "reconnected" one stays 2.5 s, which a
   * loaded machine can let pass between two reads of the page (it did) */
  await p.page.evaluate(() => {
    const b = document.getElementById('banner');
    window.bannersSeen = [];
    new MutationObserver(() => window.bannersSeen.push(b.dataset.kind)).observe(b, {attributes: true, attributeFilter: ['data-kind']});
  });
  await p.page.evaluate(() => window.tessera.conn.drop());
  await p.page.waitForFunction(() => window.bannersSeen.includes('down'), null, {timeout: 20000 * lib.SLOW});
  /* (the page may already be connected again when this line runs: a loaded
   * machine let the reconnect through between the two reads, so the banner
   * above is the check that the loss was shown) */
  await shot(p, 'connection-lost.png');
  await p.page.locator('body[data-conn="open"]').waitFor({timeout: 20000 * lib.SLOW});
  await p.page.waitForFunction(() => window.bannersSeen.indexOf('ok') > window.bannersSeen.indexOf('down'),
    null, {timeout: 20000 * lib.SLOW});
  const check = async () => {
    let last = null;
    await waitFor(async () => {
      const snap = await boardSnapshot(p.page);
      const known = f.states.get(snap.synced);
      if (!known) return false;
      last = compareWithState(snap, known.state, known.last);
      return last.length === 0;
    }, 'the board to match the server again', 10000);
  };
  await check();
  f.close();

  // (2) the server restarts (same port, same database): the match goes on
  const dir = fs.mkdtempSync(path.join(work, 'restart-'));
  let s2 = await startServer({bin: BIN, web: WEB, dir});
  const c2 = await wsClient(s2.port);
  const created = await c2.request({type: 'create_match', game: 'carcassonne', seats: [{bot: 'mcts:ms=300'}, {bot: 'heuristic'}]});
  c2.close();
  const q = await page(`${s2.url}#/watch/${created.match}`);
  await waitFor(async () => (await boardSnapshot(q.page)).synced >= 2, 'a few turns', 30000);
  await s2.stop('SIGTERM');
  await q.page.locator('#banner[data-kind="down"]').waitFor({timeout: 20000 * lib.SLOW});
  await waitFor(async () => /offline/.test(await q.page.locator('#conn').innerText()), 'the offline mark');
  const before = await boardSnapshot(q.page);
  /* the start tile and at least one more (a tile that fits nowhere is drawn
   * again, so two synced turns may have placed only one) */
  assert.ok(before.tiles.length >= 2, 'the board stays while offline');
  await shot(q, 'server-down.png');
  s2 = await startServer({bin: BIN, web: WEB, dir, port: s2.port, db: s2.db});
  await q.page.locator('body[data-conn="open"]').waitFor({timeout: 20000 * lib.SLOW});
  const f2 = await (async () => { const save = server; server = s2; try { return await follow(created.match); } finally { server = save; } })();
  await waitFor(async () => {
    const snap = await boardSnapshot(q.page);
    const known = f2.states.get(snap.synced);
    return known && snap.synced >= before.synced && compareWithState(snap, known.state, known.last).length === 0;
  }, 'the board to match the restarted server', 15000);
  f2.close();
  await q.page.close();
  await s2.stop();
  noErrors(p);
}));

test('a Reversi match is watchable (and playable)', withShots(async () => {
  const {match} = await createMatch('reversi', [{bot: 'random'}, {bot: 'random'}]);
  const f = await follow(match);
  /* the page is compared with the finished game's state below: a game still
   * going would fail that comparison, not this wait */
  await waitFor(() => f.over, 'the game to end', 30000);
  f.close();
  const spec = await wsClient(server.port);
  const view = await spec.request({type: 'spectate', match});
  spec.close();
  const p = await page(`${server.url}#/watch/${match}`);
  await p.page.locator('svg.board[data-game="reversi"] .rv-disc').first().waitFor();
  const discs = await p.page.locator('.rv-disc').evaluateAll((els) => els.map((e) => `${e.dataset.square}${e.dataset.colour}`).sort());
  const want = [];
  view.state.board.forEach((row, r) => [...row].forEach((v, c) => { if (v !== '.') want.push(`${'abcdefgh'[c]}${8 - r}${v}`); }));
  assert.deepEqual(discs, want.sort());
  assert.equal(await p.page.locator('.rv-cell').count(), 64);
  const scores = await p.page.locator('.players .player').evaluateAll((els) => els.map((e) => +e.dataset.score));
  assert.deepEqual(scores, view.state.scores);
  await shot(p, 'reversi.png');

  // and playable: a person against random, by clicking marked squares
  await p.page.goto(server.url);
  await p.page.locator('#create-form').waitFor();
  await p.page.selectOption('#game', 'reversi');
  await p.page.selectOption('#seat-0', 'me');
  await p.page.selectOption('#seat-1', 'bot:random');
  await p.page.click('#create');
  await p.page.waitForURL(/#\/play\//);
  const id = p.page.url().split('#/play/')[1];
  let turn = 0, clicks = 0;
  for (;;) {
    turn = await waitFor(() => p.page.evaluate((prev) => {
      if (document.querySelector('#result')?.dataset.scores) return {v: 0};
      const n = Number(document.querySelector('.table')?.dataset.myTurn || 0);
      return n > prev && (document.querySelector('.rv-cell.legal') || document.querySelector('#pass')) ? {v: n} : null;
    }, turn), 'our Reversi turn', 10000, 20).then((o) => o.v);
    if (!turn) break;
    if (await p.page.locator('#pass').count()) await p.page.click('#pass');
    else {
      const cells = p.page.locator('.rv-cell.legal');
      await cells.nth(clicks % (await cells.count())).click();
    }
    clicks++;
  }
  const fin = (await client.request({type: 'list_matches', status: 'finished'})).matches.find((m) => m.match === id);
  assert.equal(fin.result.reason, 'normal');
  assert.equal(await p.page.locator('#result').getAttribute('data-scores'), fin.scores.join(','));
  assert.equal(p.sent.filter((x) => x.type === 'move').length, clicks);
  noErrors(p);
}));
