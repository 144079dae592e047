// The web page on a cluster follows its match to the match's server
// (docs/scaling.md, "Routing clients to the owner"), in Debian's chromium:
// two servers, a and b, on one PostgreSQL with Redis between them, behind
// haproxy routing ?server=NAME (tests/cluster/cluster.js's proxy; every
// request without it goes to b, haproxy's `balance first`, so the page always
// starts on the server that does not own the match). Each server advertises
// the proxy's address with its name. A match of a's, a random bot against a
// seat this browser holds:
//   - at 1280×800 the player's page, opened through the proxy, joins through
//     b, is told a's address, moves there (its socket now ?server=a), resumes
//     and plays three turns by clicking: b forwards none of them;
//   - at 390×844 a spectator's page does the same, and shows the player's
//     next move with the board the server holds;
//   - a page served by b itself (another origin than the proxy's address)
//     does not follow — the page's CSP and the servers' Origin check allow
//     its own origin only —: it stays on b, forwarded, and shows the game all
//     the same;
//   - a stops (SIGTERM gives its lease up): the player's page comes back
//     through the proxy's own address, reaches b, which took the match over,
//     and plays on there.
// No console error, no failed request on any page.
//
//   node route.test.js --bin build/cli/tessera --web web --out DIR
//   (needs TESSERA_SERVICES: run it through ctest, fixture `services`)
'use strict';
const fs = require('fs');
const path = require('path');
const {options, requireTools, ms, strictPage, overflow} = require('./pages.js');

const O = options();
const lib = requireTools(O.bin);
const {test, before, after} = require('node:test');
const assert = require('node:assert/strict');
const {waitFor, startServer, wsClient, launchBrowser, boardSnapshot, compareWithState} = lib;
const {servicesEnv, freshPgDb} = require('../server/lib.js');
const {proxy, freePort} = require('../cluster/cluster.js');

fs.mkdirSync(O.shots, {recursive: true});
const work = path.join(O.out, 'run-route');
fs.rmSync(work, {recursive: true, force: true});
fs.mkdirSync(work, {recursive: true});
const servers = {};
let px, pxHttp, browser, stats;
const pages = [];
const at = (name) => `ws://127.0.0.1:${px.port}/?server=${name}`;

before(async () => {
  const env = servicesEnv();
  const db = freshPgDb('webroute');
  const pxPort = await freePort();
  for (const name of ['a', 'b']) {
    servers[name] = await startServer({bin: O.bin, web: O.web, dir: work, args: [
      '--storage', db, '--instance', name, '--redis', env.TESSERA_REDIS,
      '--advertise', `ws://127.0.0.1:${pxPort}/?server=${name}`]});
    servers[name].instance = name;
  }
  // b first: `balance first` sends every request that names no server to b
  px = await proxy([servers.b, servers.a], {port: pxPort, route: true, balance: 'first'});
  pxHttp = `http://127.0.0.1:${px.port}/`;
  browser = await launchBrowser(work);
  stats = await wsClient(servers.b.port);
});

after(async () => {
  for (const p of pages) await p.page.close().catch(() => {});
  await browser?.close();
  stats?.close();
  px?.stop();
  for (const s of Object.values(servers)) await s.stop();
});

async function page(url, size) {
  const p = await strictPage(lib, browser.context);
  if (size) await p.page.setViewportSize(size);
  if (url) await p.page.goto(url);
  pages.push(p);
  return p;
}

/** What b has forwarded to other servers so far (server_stats' cluster counter). */
async function forwardedByB() {
  return (await stats.request({type: 'server_stats'})).cluster.forwarded;
}

/** The page's own view of its connection: the address, whether open, the last follow's result. */
function where(p) {
  return p.page.evaluate(() => ({url: window.tessera.conn.url, state: window.tessera.conn.state,
    route: document.body.dataset.route || null}));
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

/** The match as its owner holds it, and the page's board compared with it once the page shows that turn. */
async function showsTheServersBoard(p, port, match, what) {
  const c = await wsClient(port);
  const view = await c.request({type: 'spectate', match});
  c.close();
  assert.equal(view.type, 'spectating', `${what}: ${JSON.stringify(view)}`);
  await waitFor(async () => (await boardSnapshot(p.page)).synced >= view.history.length, `${what}: turn ${view.history.length} shown`, ms(10000));
  const diffs = compareWithState(await boardSnapshot(p.page), view.state, view.history[view.history.length - 1]);
  assert.deepEqual(diffs, [], `${what}: the page shows the server's board`);
  return view;
}

test('the page moves to its match\'s server through the proxy; one of another origin stays and is forwarded', async () => {
  const maker = await wsClient(servers.a.port);
  const r = await maker.request({type: 'create_match', game: 'carcassonne', seats: [{open: true}, {bot: 'random'}],
    time_control: {move_ms: 600000}});
  maker.close();
  assert.equal(r.type, 'match_created', JSON.stringify(r));
  const match = r.match;
  const token = r.seats.find((s) => s.seat === 0).token;

  // the player, 1280×800: the lobby through the proxy (on b), then the seat
  const pl = await page(pxHttp);
  await pl.page.locator('#create-form').waitFor();
  assert.equal((await where(pl)).url, `ws://127.0.0.1:${px.port}/`);
  await pl.page.evaluate(([m, t]) => localStorage.setItem('tessera.seats', JSON.stringify({[m]: {seat: 0, token: t}})), [match, token]);
  await pl.page.goto(`${pxHttp}#/play/${match}`);
  const joined = await waitFor(() => pl.received.find((m) => m.type === 'joined' && m.match === match), 'joined through b', ms(10000));
  assert.equal(joined.owner_url, at('a'), 'b says where the match is played');
  await waitFor(async () => (await where(pl)).url === at('a') && (await where(pl)).state === 'open', 'the page on a\'s address', ms(10000));
  assert.equal((await where(pl)).route, 'moved');
  const resumed = await waitFor(() => pl.received.find((m) => m.type === 'resumed' && m.match === match), 'resumed on a', ms(10000));
  assert.equal(resumed.owner_url, undefined, 'the proxy took the page to a itself: nothing forwarded, no hint');
  // three turns by clicking: none of them crosses b
  const before = await forwardedByB();
  let turn = await myTurn(pl);
  for (let i = 0; i < 3; i++) {
    await place(pl);
    await waitFor(() => pl.received.some((m) => m.type === 'move_accepted' && m.turn === turn), `move ${turn} accepted`, ms(10000));
    turn = await myTurn(pl, turn);
  }
  assert.equal(await forwardedByB() - before, 0, 'b forwarded none of the page\'s moves');
  assert.ok(!pl.received.some((m) => m.type === 'error'), 'no error: ' + JSON.stringify(pl.received.filter((m) => m.type === 'error')));
  await showsTheServersBoard(pl, servers.a.port, match, 'the player\'s page');
  assert.ok(!(await pl.page.locator('#banner.show').count()), 'no "connection lost" banner for the move');

  // a spectator, 390×844, through the proxy: moves to a too
  const sp = await page(`${pxHttp}#/watch/${match}`, {width: 390, height: 844});
  const seen = await waitFor(() => sp.received.find((m) => m.type === 'spectating' && m.match === match), 'spectating through b', ms(10000));
  assert.equal(seen.owner_url, at('a'));
  await waitFor(async () => (await where(sp)).url === at('a') && (await where(sp)).state === 'open', 'the spectator on a\'s address', ms(10000));
  await waitFor(() => sp.received.some((m) => m.type === 'spectating' && m.match === match && m.owner_url === undefined), 'spectating on a', ms(10000));
  // a page of b's own origin: the hint is of another origin, so it stays on b, forwarded
  const direct = await page(`http://127.0.0.1:${servers.b.port}/#/watch/${match}`);
  await waitFor(async () => (await where(direct)).route === 'other-origin', 'the page of b\'s origin not following', ms(10000));
  assert.equal((await where(direct)).url, `ws://127.0.0.1:${servers.b.port}/`);
  // the player's next move reaches both spectators' boards
  await place(pl);
  await waitFor(() => pl.received.some((m) => m.type === 'move_accepted' && m.turn === turn), `move ${turn} accepted`, ms(10000));
  turn = await myTurn(pl, turn);
  await showsTheServersBoard(sp, servers.a.port, match, 'the spectator on a');
  await showsTheServersBoard(direct, servers.a.port, match, 'the spectator on b');
  assert.equal(sp.received.filter((m) => m.type === 'welcome').length, 2, 'the spectator: its first connection and a\'s, no reconnect');
  assert.deepEqual(await overflow(sp.page), [], 'nothing sticks out at 390 px');
  await sp.page.screenshot({path: path.join(O.shots, 'route-spectator-390.png')});
  await pl.page.screenshot({path: path.join(O.shots, 'route-player.png')});

  // a goes (SIGTERM: its lease given up, b takes the match over); the player's page comes back
  // through the proxy's own address, reaches b, and plays on
  await servers.a.stop();
  delete servers.a;
  await waitFor(async () => (await where(pl)).url === `ws://127.0.0.1:${px.port}/` && (await where(pl)).state === 'open', 'the player back on the proxy\'s address', ms(15000));
  const t2 = await myTurn(pl, turn - 1);
  await place(pl);
  await waitFor(() => pl.received.some((m) => m.type === 'move_accepted' && m.turn === t2), `move ${t2} accepted on b`, ms(15000));
  await myTurn(pl, t2);
  await showsTheServersBoard(pl, servers.b.port, match, 'the player\'s page after the takeover');
  for (const [p, who] of [[pl, 'the player'], [sp, 'the spectator'], [direct, 'the page of b']]) assert.deepEqual(p.problems, [], who);
});
