// What a user of the web UI expects to find (issue 15, item 11, and the seat
// labels of item 14), in Debian's chromium against a real `tessera serve`:
// a favicon and no console error; a live score chart; the tab's title (and a
// notification, when allowed) when it becomes your turn; a replay that shows
// the tile each step draws; board coordinates that match the move list's
// (x, y); bot options with units and meaning; the server's stats on a page;
// P1..P5 for people and "P2 (seat 1)" next to a `--seat 1`; the lobby's catalogue
// lost with its connection fails no promise unhandled and loads once reconnected.
//
//   node features.test.js --bin build/cli/tessera --web web --out DIR
'use strict';
const fs = require('fs');
const path = require('path');
const {options, requireTools, ms, strictPage, webStage} = require('./pages.js');

const O = options();
const lib = requireTools(O.bin);
const {test, before, after} = require('node:test');
const assert = require('node:assert/strict');
const {waitFor, wsClient, boardSnapshot} = lib;

fs.mkdirSync(O.shots, {recursive: true});
const S = webStage(O, lib, 'features');
const {pages} = S;
let server, browser, client, finished;

async function page(url) {
  const p = await strictPage(lib, browser.context, url);
  pages.push(p);
  return p;
}
const shot = (p, name) => p.page.screenshot({path: path.join(O.shots, name)});

async function createMatch(seats, extra = {}) {
  const r = await client.request({type: 'create_match', game: 'carcassonne', seats, ...extra});
  assert.equal(r.type, 'match_created', JSON.stringify(r));
  return r.match;
}
async function matchInfo(id) {
  return (await client.request({type: 'list_matches', status: 'all'})).matches.find((m) => m.match === id);
}

before(async () => {
  ({server, browser, client} = await S.start());
  finished = await createMatch([{bot: 'random'}, {bot: 'heuristic'}]);
  await waitFor(async () => (await matchInfo(finished))?.status === 'finished', 'a finished match', ms(20000), 100);
});

test('a favicon, linked from every page, and no console error', async () => {
  const res = await fetch(`${server.url}favicon.svg`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type'), /image\/svg\+xml/);
  assert.match(await res.text(), /^<svg /);
  for (const url of [server.url, `${server.url}tiles.html`]) {
    const p = await page(url);
    const icon = await p.page.evaluate(() => document.querySelector('link[rel="icon"]')?.href);
    assert.equal(icon, `${server.url}favicon.svg`, `${url} links the favicon`);
    await p.page.waitForLoadState('networkidle');
    await lib.sleep(300);
    assert.deepEqual(p.problems, [], `${url}: no console error, no failed request`);
  }
});

test('the create form: bot options with units and meaning, P labels, tokens with "P2 (seat 1)"', async () => {
  const bots = await client.request({type: 'list_bots'});
  const p = await page(server.url);
  await p.page.locator('#create-form').waitFor();
  assert.deepEqual(await p.page.locator('.seat-row .plabel').allTextContents(), ['P1', 'P2'], 'seats are P1, P2');
  await p.page.selectOption('#seat-1', 'bot:mcts');
  const row = p.page.locator('.seat-row[data-seat="1"]');
  await row.locator('details.bot-opts summary').click();
  const mcts = bots.bots.find((b) => b.name === 'mcts');
  for (const o of [...bots.common_options, ...mcts.options]) {
    const opt = row.locator(`.opt[data-option="${o.name}"]`);
    const help = opt.locator('.help');
    assert.ok(await help.isVisible(), `${o.name}: a visible line of meaning`);
    const text = await help.innerText();
    assert.ok(text.includes(o.help), `${o.name}: the server's help "${o.help}" in "${text}"`);
    assert.match(text, /default /, `${o.name}: the default said`);
  }
  const unit = (name) => row.locator(`.opt[data-option="${name}"] .unit`).innerText();
  assert.equal(await unit('ms'), 'ms');
  assert.equal(await unit('mem'), 'MiB');
  assert.match(await row.locator('.opt[data-option="sims"] .help').innerText(), /per decision/);
  assert.match(await row.locator('.opt[data-option="seed"] .help').innerText(), /-1 = /);
  // what the options make: the bot spec, shown as it is edited and sent as shown
  await p.page.fill('#seat-1-opt-sims', '400');
  assert.equal(await row.locator('summary code').innerText(), 'mcts:sims=400');
  await shot(p, 'features-bot-options.png');
  // an open seat: the token to hand over, labelled for people and for the --seat flag
  await p.page.selectOption('#seat-0', 'open');
  await p.page.selectOption('#seat-1', 'open');
  await p.page.click('#create');
  const line = p.page.locator('#create-tokens .token[data-seat="1"]');
  await line.waitFor();
  const text = await line.innerText();
  assert.match(text, /^P2 \(seat 1\): tessera bot .* --seat 1 --token \S+ --bot SPEC$/, text);
  assert.match(await p.page.locator('#create-tokens .token[data-seat="0"]').innerText(), /^P1 \(seat 0\): .* --seat 0 /);
  await shot(p, 'features-tokens.png');
  // and the bot seat is created with the spec the form showed
  await p.page.goto(server.url);
  await p.page.locator('#create-form').waitFor();
  await p.page.selectOption('#seat-0', 'bot:random');
  await p.page.selectOption('#seat-1', 'bot:mcts');
  await p.page.locator('.seat-row[data-seat="1"] details.bot-opts summary').click();
  await p.page.fill('#seat-1-opt-sims', '50');
  await p.page.click('#create');
  await p.page.waitForURL(/#\/watch\//);
  const id = p.page.url().split('#/watch/')[1];
  assert.equal((await matchInfo(id)).seats[1].name, 'mcts:sims=50');
  // a list option is edited as text, and an option that reads a file on the server
  // (evomcts's eval: the operator's, refused to anyone else) is not offered on this page
  await p.page.goto(server.url);
  await p.page.locator('#create-form').waitFor();
  await p.page.selectOption('#seat-1', 'bot:ea-mcts');
  const ea = p.page.locator('.seat-row[data-seat="1"]');
  await ea.locator('details.bot-opts summary').click();
  assert.equal(await p.page.getAttribute('#seat-1-opt-kset', 'type'), 'text');
  await p.page.fill('#seat-1-opt-kset', '1/2');
  assert.equal(await ea.locator('summary code').innerText(), 'ea-mcts:kset=1/2');
  await p.page.selectOption('#seat-1', 'bot:evomcts');
  await p.page.locator('#seat-1-opt-sims').waitFor({state: 'attached'});
  assert.equal(await p.page.locator('#seat-1-opt-eval').count(), 0, 'no eval=FILE box');
  assert.deepEqual(p.problems, []);
});

test('watching: a live score chart with every turn, the whole game\'s scores', async () => {
  // Seat 1 is played by this test: the game moves on only when the test moves, so a busy
  // machine slows the page down without the game running out before three more turns
  // (with two 250 ms bots it once ended while the page was still loading).
  const r = await client.request({type: 'create_match', game: 'carcassonne',
    seats: [{bot: 'heuristic'}, {open: true}], time_control: {move_ms: 600000}});
  assert.equal(r.type, 'match_created', JSON.stringify(r));
  const id = r.match;
  const mine = r.seats.find((s) => s.token);
  const me = await wsClient(server.port);
  me.send({type: 'join', match: id, seat: mine.seat, token: mine.token});
  let played = 0;
  /* answer our next your_turn with its first legal placement */
  const move = async () => {
    const t = await me.next((m) => m.type === 'your_turn' && m.match === id && m.turn > played, 20000, true);
    const e = t.legal[0];
    me.send({type: 'move', match: id, turn: t.turn, move: {x: e.x, y: e.y, rot: e.rot}});
    played = t.turn;
  };
  for (let i = 0; i < 3; i++) await move();
  await waitFor(async () => (await matchInfo(id))?.turn >= 6, 'six turns played before we watch', ms(20000), 100);
  const p = await page(`${server.url}#/watch/${id}`);
  const chart = p.page.locator('#live-chart');
  await chart.locator('svg path.series').first().waitFor({state: 'attached'}); // a flat line has no height
  assert.equal(await chart.locator('svg path.series').count(), 2, 'a line per player');
  // the turns before we came come from the server's replay: every point is known
  const full = async () => {
    const d = await chart.evaluate((e) => ({turns: Number(e.dataset.turns), known: Number(e.dataset.known), last: e.dataset.last}));
    const snap = await boardSnapshot(p.page);
    return d.turns >= 1 && d.known === d.turns + 1 && snap.synced === d.turns && d.last === snap.scores.join(',') ? d : null;
  };
  const d0 = await waitFor(full, 'the chart holding every turn so far', ms(10000));
  for (let i = 0; i < 2; i++) await move();   // ours and the bot's: four more turns
  const d1 = await waitFor(async () => { const d = await full(); return d && d.turns >= d0.turns + 3 ? d : null; },
    'the chart following three more turns', ms(20000));
  assert.ok(d1.known === d1.turns + 1);
  await shot(p, 'features-live-chart.png');
  me.close();
  assert.deepEqual(p.problems, []);
});

test('the board\'s coordinates are the move list\'s (x, y)', async () => {
  const p = await page(`${server.url}#/watch/${finished}`);
  await p.page.locator('#result[data-scores]').waitFor();
  await p.page.waitForFunction(() => document.querySelectorAll('.ruler-x span').length > 0);
  // the rulers: each column's number stands under that column's tiles, each row's beside that row's
  const checked = await p.page.evaluate(() => {
    let xs = 0, ys = 0;
    const bad = [];
    for (const t of document.querySelectorAll('svg.board g.tile')) {
      const r = t.getBoundingClientRect();
      const lx = document.querySelector(`.ruler-x span[data-x="${t.dataset.x}"]`);
      const ly = document.querySelector(`.ruler-y span[data-y="${t.dataset.y}"]`);
      if (lx) {
        const c = lx.getBoundingClientRect();
        if (Math.abs((c.left + c.right) / 2 - (r.left + r.right) / 2) > 1) bad.push(`x ${t.dataset.x}`); else xs++;
      }
      if (ly) {
        const c = ly.getBoundingClientRect();
        if (Math.abs((c.top + c.bottom) / 2 - (r.top + r.bottom) / 2) > 1) bad.push(`y ${t.dataset.y}`); else ys++;
      }
    }
    return {xs, ys, bad, step: document.querySelector('.ruler-x').dataset.step};
  });
  assert.deepEqual(checked.bad, [], 'ruler numbers centred on their tiles');
  assert.ok(checked.xs >= 10 && checked.ys >= 10, `checked ${checked.xs} columns and ${checked.ys} rows (labels every ${checked.step})`);
  // the pointer over the last tile placed names the cell the move list names
  const lastLine = await p.page.locator('#log div').first().innerText();
  const m = /\((-?\d+), (-?\d+)\)/.exec(lastLine);
  assert.ok(m, `the move list gives (x, y): ${lastLine}`);
  const mark = await p.page.locator('svg.board .last-move').boundingBox();
  await p.page.mouse.move(mark.x + mark.width / 2, mark.y + mark.height / 2);
  const coord = p.page.locator('#board-coord');
  await waitFor(async () => (await coord.innerText()).startsWith(`(${m[1]}, ${m[2]})`), `the pointer's cell (${m[1]}, ${m[2]})`, 3000);
  assert.equal(await p.page.locator('.ruler-x span.here').getAttribute('data-x'), m[1]);
  assert.equal(await p.page.locator('.ruler-y span.here').getAttribute('data-y'), m[2]);
  // and the start tile is (0, 0)
  const start = await p.page.locator('svg.board g.tile[data-x="0"][data-y="0"]').boundingBox();
  await p.page.mouse.move(start.x + start.width / 2, start.y + start.height / 2);
  await waitFor(async () => (await coord.innerText()).startsWith('(0, 0)'), 'the start tile at (0, 0)', 3000);
  await shot(p, 'features-coordinates.png');
  assert.deepEqual(p.problems, []);
});

test('a replay shows the tile each step draws', async () => {
  const p = await page(`${server.url}#/replay/${finished}`);
  const table = p.page.locator('.table.replay');
  await waitFor(async () => Number(await table.getAttribute('data-turns')) > 0, 'the replay loaded');
  const rep = p.received.find((x) => x.type === 'replayed');
  const n = rep.turns.length;
  const drawn = p.page.locator('.drawn-tile');
  for (const k of [0, 1, 2, 7, 30, n - 1]) {
    await p.page.evaluate((v) => { const s = document.querySelector('#step-slider'); s.value = String(v); s.dispatchEvent(new Event('input')); }, k);
    assert.equal(await table.getAttribute('data-step'), String(k));
    assert.equal(await drawn.getAttribute('data-tile'), rep.turns[k].record.tile, `after turn ${k}: the tile turn ${k + 1} draws`);
  }
  await p.page.keyboard.press('End');
  assert.equal(await drawn.getAttribute('data-tile'), null, 'no tile after the last turn');
  assert.match(await p.page.locator('.carc-side').innerText(), /the bag is empty/);
  assert.deepEqual(p.problems, []);
});

test('the server\'s stats on a page', async () => {
  const p = await page(server.url);
  await p.page.locator('#live-matches').waitFor();
  const before = await client.request({type: 'server_stats'});
  await p.page.click('header.top nav > a[data-page="stats"]');
  await p.page.waitForURL(/#\/stats$/);
  await p.page.locator('#stats tr[data-stat="moves"]').waitFor();
  assert.match(await p.page.title(), /^Server stats — tessera$/);
  for (const k of ['uptime_ms', 'connections', 'matches_live', 'matches_finished', 'matches_kept', 'moves', 'searches', 'overhead', 'timeout_late', 'rss_peak_kb']) {
    const row = p.page.locator(`#stats tr[data-stat="${k}"]`);
    assert.equal(await row.count(), 1, `a row for ${k}`);
    assert.ok((await row.locator('.help').innerText()).length > 10, `${k} says what it counts`);
  }
  const value = async (k) => p.page.locator(`#stats tr[data-stat="${k}"] .value`).innerText();
  assert.ok(Number(await value('moves')) >= before.moves, 'moves as the server counts them');
  assert.ok(Number(await value('matches_finished')) >= 1);
  assert.ok(Number(await value('connections')) >= 2, 'this page and the test\'s client');
  await shot(p, 'features-stats.png');
  assert.deepEqual(p.problems, []);
});

test('your turn: the tab\'s title says so, and a notification when the tab is hidden', async () => {
  const p = await strictPage(lib, browser.context);
  pages.push(p);
  // a notification API that records what the page shows, and a tab the test can hide
  await p.page.addInitScript(() => {
    window.__notes = [];
    window.Notification = class {
      constructor(title, o) { window.__notes.push({title, ...o}); }
      close() {}
      static get permission() { return 'granted'; }
      static requestPermission() { return Promise.resolve('granted'); }
    };
    Object.defineProperty(document, 'hidden', {configurable: true, get: () => window.__hidden === true});
  });
  await p.page.goto(server.url);
  await p.page.locator('#create-form').waitFor();
  assert.equal(await p.page.title(), 'Lobby — tessera');
  await p.page.selectOption('#seat-0', 'me');
  await p.page.selectOption('#seat-1', 'bot:random');
  await p.page.fill('#tc-move', '300');
  await p.page.click('#create');
  await p.page.waitForURL(/#\/play\//);
  const myTurn = async (after) => waitFor(async () => {
    const n = Number(await p.page.locator('.table').getAttribute('data-my-turn'));
    return n > after && (await p.page.locator('svg.board .cell').count()) > 0 ? n : null;
  }, 'our turn', ms(15000));
  const t1 = await myTurn(0);
  assert.match(await p.page.title(), /^● Your turn — Carcassonne \w+ — tessera$/);
  assert.equal(await p.page.locator('.players .player[data-seat="0"] .plabel').innerText(), 'P1');
  assert.equal(await p.page.locator('.players .player[data-seat="1"] .plabel').innerText(), 'P2');
  assert.match(await p.page.locator('.table .head .meta').innerText(), /you play P1/);
  // ask for notifications, then hide the tab: the next turn notifies
  await p.page.check('#notify-turn');
  assert.equal(await p.page.evaluate(() => localStorage.getItem('tessera.notify')), '1');
  await p.page.evaluate(() => {
    window.__titles = [];
    new MutationObserver(() => window.__titles.push(document.title)).observe(document.querySelector('title'), {childList: true, characterData: true, subtree: true});
    window.__hidden = true;
  });
  const place = async () => {
    for (let i = 0; i < 4 && (await p.page.locator('.cell.legal').count()) === 0; i++) await p.page.keyboard.press('r');
    await p.page.locator('.cell.legal').first().click();
    await p.page.keyboard.press('Enter');
  };
  await place();
  const t2 = await myTurn(t1);
  const titles = await p.page.evaluate(() => window.__titles);
  assert.ok(titles.some((t) => !t.startsWith('●')), `the mark went with our move: ${JSON.stringify(titles)}`);
  assert.match(await p.page.title(), /^● Your turn/);
  const notes = await p.page.evaluate(() => window.__notes);
  assert.equal(notes.length, 1, JSON.stringify(notes));
  assert.match(notes[0].title, /^Your turn — Carcassonne/);
  assert.ok(notes[0].body.includes(`turn ${t2}`), notes[0].body);
  // a visible tab is not notified; one that asked not to be is not either
  await p.page.evaluate(() => { window.__hidden = false; });
  await place();
  const t3 = await myTurn(t2);
  await p.page.uncheck('#notify-turn');
  await p.page.evaluate(() => { window.__hidden = true; });
  await place();
  await myTurn(t3);
  assert.equal((await p.page.evaluate(() => window.__notes)).length, 1, 'no other notification');
  await p.page.goto(server.url);
  await waitFor(async () => (await p.page.title()) === 'Lobby — tessera', 'the mark gone with the table');
  assert.deepEqual(p.problems, []);
});

test('watching: a seat joined or dropped shows at once, at both sizes', async () => {
  const r = await client.request({type: 'create_match', game: 'carcassonne', seats: [{bot: 'heuristic'}, {open: true}],
    time_control: {move_ms: 600000}, policies: {reconnect_grace_ms: 600000}});
  assert.equal(r.type, 'match_created', JSON.stringify(r));
  const token = r.seats.find((s) => s.seat === 1).token;
  let resume = null; // the seat is joined once, then resumed
  for (const size of [{width: 1280, height: 800}, {width: 390, height: 844}]) {
    const p = await page(`${server.url}#/watch/${r.match}`);
    await p.page.setViewportSize(size);
    const info = () => p.page.locator('.players .player[data-seat="1"] .info').innerText();
    await waitFor(async () => /not connected/.test(await info()), 'seat 1 not connected', ms(15000));
    const player = await wsClient(server.port);
    const joined = resume ? await player.request({type: 'resume', resume_token: resume})
      : await player.request({type: 'join', match: r.match, seat: 1, token});
    assert.equal(joined.type, resume ? 'resumed' : 'joined', JSON.stringify(joined));
    resume = joined.resume_token;
    await waitFor(async () => /^remote/.test(await info()), 'seat 1 shown connected once joined', ms(15000));
    assert.equal(await p.page.locator('.players .player[data-seat="1"].disconnected').count(), 0);
    player.close();
    await waitFor(async () => /not connected/.test(await info()), 'seat 1 shown not connected once it dropped', ms(15000));
    assert.equal(await p.page.locator('.players .player[data-seat="1"].disconnected').count(), 1);
    // resumed: connected again
    const back = await wsClient(server.port);
    assert.equal((await back.request({type: 'resume', resume_token: resume})).type, 'resumed');
    await waitFor(async () => /^remote/.test(await info()), 'seat 1 shown connected once resumed', ms(15000));
    await shot(p, `seat-joined-${size.width}.png`);
    back.close();
    await waitFor(async () => /not connected/.test(await info()), 'seat 1 dropped again', ms(15000));
    assert.deepEqual(p.problems, []);
    await p.page.close();
  }
});

test('the lobby\'s catalogue lost with its connection: no unhandled error, the form once reconnected', async () => {
  /* a route that closes the page's first socket when it asks for the bots: the catalogue is lost */
  const p = await strictPage(lib, browser.context);
  pages.push(p);
  const lost = await lib.loseReplyTo(p.page, /"list_bots"/);
  await p.page.goto(server.url);
  await p.page.locator('#game option[value="carcassonne"]').waitFor({state: 'attached', timeout: 20000 * lib.SLOW});
  assert.equal(lost.dropped, 1);
  assert.equal(await p.page.locator('#game').inputValue(), 'carcassonne');
  assert.deepEqual(p.problems, [], 'no unhandled rejection, no console error');
});
