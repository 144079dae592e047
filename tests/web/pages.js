// Helpers of the page tests (phone.test.js, features.test.js, takeover.test.js),
// on top of lib.js: the tools check, the common command line, a page that
// records every console error and every failed request (lib.js's openPage
// leaves failed resources out), and the layout checks at a given size.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');

function arg(name, def) {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : def;
}

/** The command line every page test takes: --bin, --web, --out. */
function options() {
  const out = path.resolve(arg('--out', path.join(os.tmpdir(), 'tessera-web-tests')));
  return {
    bin: path.resolve(arg('--bin', 'build/cli/tessera')),
    web: path.resolve(arg('--web', path.join(__dirname, '../../web'))),
    out, shots: path.join(out, 'screenshots'),
  };
}

/**
 * lib.js; when chromium or the npm packages are missing, exit 1 naming
 * what is missing — or, with TESSERA_SKIP_MISSING=1 only, exit 77 (CTest:
 * skipped), as ui.test.js does: a skip counts as a pass, so a machine
 * without the tools must be told to skip (issue 30: these suites skipped
 * whatever it said).
 */
function requireTools(bin) {
  const skip = (why) => {
    if (process.env.TESSERA_SKIP_MISSING === '1') {
      console.log(`SKIPPED: ${why}`);
      process.exit(77);
    }
    console.error(`MISSING: ${why} (TESSERA_SKIP_MISSING=1 skips these tests instead)`);
    process.exit(1);
  };
  let lib;
  try {
    require.resolve('playwright-core');
    require.resolve('ws');
    lib = require('./lib.js');
  } catch {
    skip(`the npm packages of tests/web are not installed (run: npm ci --prefix ${__dirname})`);
  }
  if (!fs.existsSync(lib.CHROMIUM)) skip(`no chromium at ${lib.CHROMIUM} (Debian: apt-get install chromium)`);
  if (!fs.existsSync(bin)) { console.error(`no tessera binary at ${bin}`); process.exit(1); }
  return lib;
}

/** A wall-clock allowance, longer under the sanitizers (TESSERA_SANITIZED=1). */
function ms(n) { return process.env.TESSERA_SANITIZED ? n * 4 : n; }

/** lib.openPage, plus every console error and every failed or refused request in p.problems. */
async function strictPage(lib, context, url) {
  const p = await lib.openPage(context);
  p.problems = [];
  p.page.on('console', (m) => { if (m.type() === 'error') p.problems.push(`console: ${m.text()}`); });
  p.page.on('pageerror', (e) => p.problems.push(`page error: ${e}`));
  p.page.on('requestfailed', (r) => p.problems.push(`request failed: ${r.url()} ${r.failure()?.errorText || ''}`));
  p.page.on('response', (r) => { if (r.status() >= 400) p.problems.push(`HTTP ${r.status()}: ${r.url()}`); });
  if (url) await p.page.goto(url);
  return p;
}

/** Elements that stick out of the viewport sideways (the board's drawing excepted: it pans), and the
 *  page's own scroll width. Each offender as "tag#id.class: left..right". */
async function overflow(page) {
  return page.evaluate(() => {
    const W = window.innerWidth;
    const bad = [];
    for (const el of document.querySelectorAll('body *')) {
      if (el.closest('svg.board') || el.closest('noscript')) continue;
      const cs = getComputedStyle(el);
      if (cs.display === 'none' || cs.visibility === 'hidden') continue;
      const r = el.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      if (r.right > W + 0.5 || r.left < -0.5) {
        const name = el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + (typeof el.className === 'string' && el.className ? '.' + el.className.split(' ').join('.') : '');
        bad.push(`${name} "${(el.textContent || '').trim().slice(0, 40)}": ${Math.round(r.left)}..${Math.round(r.right)}`);
      }
    }
    const sw = document.scrollingElement.scrollWidth;
    if (sw > W) bad.unshift(`the page scrolls sideways: scrollWidth ${sw} > ${W}`);
    return bad.slice(0, 12);
  });
}

/** Is the element wholly inside the viewport, and is it what a tap at its centre reaches? */
async function reachable(page, selector) {
  return page.evaluate((sel) => {
    const el = document.querySelector(sel);
    if (!el) return `${sel}: missing`;
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) return `${sel}: not shown`;
    if (r.left < 0 || r.top < 0 || r.right > innerWidth || r.bottom > innerHeight) return `${sel}: outside the viewport (${Math.round(r.left)},${Math.round(r.top)}..${Math.round(r.right)},${Math.round(r.bottom)})`;
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    if (!hit || !(hit === el || el.contains(hit))) return `${sel}: covered by ${hit?.tagName}.${hit?.className}`;
    return '';
  }, selector);
}

/** The rectangle of an element, or null. */
async function rect(page, selector) {
  return page.evaluate((sel) => {
    const el = document.querySelector(sel);
    if (!el) return null;
    const r = el.getBoundingClientRect();
    return {left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: r.width, height: r.height};
  }, selector);
}

/** A Carcassonne match that stays live as long as a test needs it: `heuristic` against a seat this
 *  client plays (the first legal move, at once) until `turns` turns are played, then leaves to move
 *  with ten minutes on its clock. Resolves with {match, client} once the turns are played. */
async function liveMatch(lib, port, turns) {
  const maker = await lib.wsClient(port);
  const r = await maker.request({type: 'create_match', game: 'carcassonne', seats: [{bot: 'heuristic'}, {open: true}],
    time_control: {move_ms: 600000}});
  maker.close();
  if (r.type !== 'match_created') throw new Error(`create_match: ${JSON.stringify(r)}`);
  const c = await lib.wsClient(port);
  const mine = r.seats[0];
  let played = 0;
  const done = new Promise((resolve) => {
    const poll = setInterval(() => {
      for (const m of c.inbox.splice(0)) {
        if (m.type === 'update' && m.match === r.match) played = Math.max(played, m.turn);
        if (m.type === 'your_turn' && m.match === r.match && m.turn <= turns) {
          const e = m.legal[0];
          c.send({type: 'move', match: r.match, turn: m.turn, move: {x: e.x, y: e.y, rot: e.rot}});
        }
      }
      if (played >= turns) { clearInterval(poll); resolve(); }
    }, 5);
  });
  c.send({type: 'join', match: r.match, seat: mine.seat, token: mine.token});
  await done;
  return {match: r.match, client: c};
}

/** The set-up the page tests share: a fresh folder O.out/run-NAME, and start() — for the file's
 *  one `before` hook (node 20 runs a file's before hooks at once, not one after the other) — which
 *  starts a `tessera serve` (with an admin token file when opts.adminToken, the classroom's tests;
 *  opts.args more flags), Debian's chromium and a protocol client (none when opts.client is false)
 *  and resolves with the stage: {work, server, browser, client, adminToken}. open(width, height,
 *  url) is a strictPage of that size; the after hook made here closes those pages, the client, the
 *  browser and the server. The folder is 0755: the programs a course runs, as another user, read
 *  their files below it. */
function webStage(O, lib, name, opts = {}) {
  const {after} = require('node:test');
  const work = path.join(O.out, `run-${name}`);
  fs.rmSync(work, {recursive: true, force: true});
  fs.mkdirSync(work, {recursive: true});
  fs.chmodSync(work, 0o755);
  const stage = {work, pages: []};
  stage.open = async (width, height, url) => {
    const p = await strictPage(lib, stage.browser.context);
    stage.pages.push(p);
    await p.page.setViewportSize({width, height});
    if (url) await p.page.goto(url);
    return p;
  };
  stage.start = async () => {
    const tokenFile = path.join(work, 'admin-token');
    const args = [...(opts.adminToken ? ['--admin-token-file', tokenFile] : []), ...(opts.args || [])];
    stage.server = await lib.startServer({bin: O.bin, web: O.web, dir: work, args});
    stage.browser = await lib.launchBrowser(work);
    if (opts.client !== false) stage.client = await lib.wsClient(stage.server.port);
    if (opts.adminToken) stage.adminToken = fs.readFileSync(tokenFile, 'utf8').trim();
    return stage;
  };
  after(async () => {
    for (const p of stage.pages) await p.page.close().catch(() => {});
    stage.client?.close();
    await stage.browser?.close();
    await stage.server?.stop();
  });
  return stage;
}

/** The visible label of each cell of the first data row of a table: 'heading' when the table's
 *  column headings show (a desktop), else the cell's own ::before label (a phone), '' when it has
 *  none. */
async function cellLabels(page, table) {
  return page.locator(`${table} tbody tr`).first().locator('td').evaluateAll((tds) => tds.map((td) => {
    const before = getComputedStyle(td, '::before').content;
    const head = td.closest('table').querySelector('thead');
    const visibleHead = head && getComputedStyle(head).display !== 'none';
    return visibleHead ? 'heading' : before && before !== 'none' && before !== 'normal' ? before.replace(/^"|"\s*$/g, '').trim() : '';
  }));
}

module.exports = {options, requireTools, ms, strictPage, overflow, reachable, rect, liveMatch, webStage, cellLabels};
