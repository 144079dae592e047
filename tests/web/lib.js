// Helpers of the web UI tests: a real `tessera serve` (port 0 + port file,
// temporary database), a WebSocket client speaking docs/protocol.md, and
// Debian's chromium driven by playwright-core (never a downloaded browser).
// A server must stop cleanly (exit 0 after SIGTERM) with no sanitizer report
// in its log, or stop() throws. Under TESSERA_SANITIZED=1 the server is
// slower: waitFor's timeouts grow by SLOW.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const {spawn} = require('child_process');

const CHROMIUM = process.env.TESSERA_CHROMIUM || '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/* Under AddressSanitizer the server is slower: timeouts grow by this. */
const SLOW = process.env.TESSERA_SANITIZED === '1' ? 3 : 1;
const SANITIZER = /ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:/;

function sleep(ms) { return new Promise((r) => setTimeout(r, ms)); }

/** Poll fn until it returns something truthy; timeoutMs is scaled by SLOW. */
async function waitFor(fn, what, timeoutMs = 10000, everyMs = 50) {
  const end = Date.now() + timeoutMs * SLOW;
  let last;
  for (;;) {
    try { last = await fn(); if (last) return last; } catch (e) { last = e; }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}` + (last instanceof Error ? `: ${last.message}` : ''));
    await sleep(everyMs);
  }
}

/** Start `tessera serve`; resolves once it listens. opts: {bin, web, dir, demo, port, db, args}. */
async function startServer(opts) {
  const dir = opts.dir;
  const portFile = path.join(dir, `port-${Date.now()}-${Math.random().toString(36).slice(2)}`);
  const db = opts.db || path.join(dir, 'tessera.db');
  const args = ['serve', '--port', String(opts.port || 0), '--port-file', portFile, '--db', db, '--web', opts.web,
    '--host', '127.0.0.1', '--log-level', 'warn'];
  if (opts.demo) args.push(typeof opts.demo === 'string' ? `--demo=${opts.demo}` : '--demo');
  args.push(...(opts.args || []));
  const logPath = path.join(dir, `server-${Date.now()}-${Math.random().toString(36).slice(2)}.log`);
  const log = fs.openSync(logPath, 'a');
  const proc = spawn(opts.bin, args, {stdio: ['ignore', log, log]});
  fs.closeSync(log);
  let exited = null;
  proc.on('exit', (code, sig) => { exited = {code, sig}; });
  const port = await waitFor(() => {
    if (exited) throw new Error(`tessera serve exited (${JSON.stringify(exited)}), see ${logPath}`);
    try { const p = fs.readFileSync(portFile, 'utf8').trim(); return p ? Number(p) : null; } catch { return null; }
  }, 'the server port file', 15000);
  const sanitizerReport = () => {
    const text = fs.readFileSync(logPath, 'utf8');
    const i = text.search(SANITIZER);
    return i < 0 ? null : text.slice(Math.max(0, i - 200), i + 3000);
  };
  return {
    port, proc, db, logPath, url: `http://127.0.0.1:${port}/`,
    /** SIGTERM; throws unless the server exits 0 in time with no sanitizer report. */
    async stop() {
      if (!exited) {
        proc.kill('SIGTERM');
        try {
          await waitFor(() => exited, 'the server to exit', 15000);
        } catch {
          proc.kill('SIGKILL');
          throw new Error(`tessera serve did not exit within ${15 * SLOW} s of SIGTERM; see ${logPath}`);
        }
      }
      const report = sanitizerReport();
      if (report) throw new Error(`the server reported a memory or UB error (${logPath}):\n${report}`);
      if (exited.code !== 0)
        throw new Error(`tessera serve ended with ${JSON.stringify(exited)}, want exit code 0 after SIGTERM; see ${logPath}`);
    },
  };
}

/** A protocol client (the tests' own spectator and match creator). */
async function wsClient(port) {
  const WebSocket = require('ws');
  const ws = new WebSocket(`ws://127.0.0.1:${port}/`);
  const inbox = [];
  const waiters = [];
  ws.on('message', (data) => {
    const m = JSON.parse(String(data));
    inbox.push(m);
    for (const w of waiters.slice()) if (w.pred(m)) { waiters.splice(waiters.indexOf(w), 1); w.resolve(m); }
  });
  await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
  const c = {
    inbox,
    send(m) { ws.send(JSON.stringify(m)); },
    /** The next message matching pred (searching what already came first when `past`). */
    next(pred, timeoutMs = 10000, past = false) {
      if (past) { const m = inbox.find(pred); if (m) return Promise.resolve(m); }
      return new Promise((resolve, reject) => {
        const w = {pred, resolve};
        waiters.push(w);
        setTimeout(() => { const i = waiters.indexOf(w); if (i >= 0) { waiters.splice(i, 1); reject(new Error('no such message in time')); } }, timeoutMs * SLOW);
      });
    },
    async request(m, timeoutMs = 10000) {
      const id = 't' + Math.random().toString(36).slice(2);
      const p = c.next((x) => x.id === id, timeoutMs);
      c.send({...m, id});
      return p;
    },
    close() { ws.close(); },
  };
  c.send({type: 'hello', protocol: 1, client: 'web-tests'});
  await c.next((m) => m.type === 'welcome');
  return c;
}

/** Debian's chromium with a fresh profile directory. */
async function launchBrowser(profileRoot) {
  const {chromium} = require('playwright-core');
  const userDataDir = fs.mkdtempSync(path.join(profileRoot || os.tmpdir(), 'chromium-profile-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS,
    viewport: {width: 1280, height: 800}, deviceScaleFactor: 1,
  });
  return {
    context,
    async close() {
      await context.close().catch(() => {});
      fs.rmSync(userDataDir, {recursive: true, force: true});
    },
  };
}

/** A new page that records its console errors and the protocol frames it sends and receives. */
async function openPage(context, url) {
  const page = await context.newPage();
  const errors = [];
  const sent = [];
  const received = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) errors.push(m.text()); });
  page.on('websocket', (ws) => {
    ws.on('framesent', (f) => { try { sent.push(JSON.parse(f.payload)); } catch { /* binary */ } });
    ws.on('framereceived', (f) => { try { received.push(JSON.parse(f.payload)); } catch { /* binary */ } });
  });
  if (url) await page.goto(url);
  return {page, errors, sent, received};
}

/** Make the page lose a reply: its WebSockets go through a route that passes every frame both
 *  ways, but closes the page's socket (and the server's side) at the first frame it sends that
 *  matches `re` — that message never reaches the server. Call before the page opens its socket;
 *  the returned object counts the sockets closed so (`dropped`). */
async function loseReplyTo(page, re) {
  const lost = {dropped: 0};
  await page.routeWebSocket(/.*/, (ws) => {
    const srv = ws.connectToServer();
    srv.onMessage((m) => ws.send(m));
    ws.onMessage((m) => {
      if (lost.dropped || !re.test(m)) { srv.send(m); return; }
      lost.dropped++;
      srv.close();
      ws.close({code: 1001, reason: 'the test lost this reply'});
    });
  });
  return lost;
}

/** What the page shows of a Carcassonne table, read in one go. */
async function boardSnapshot(page) {
  return page.evaluate(() => {
    const table = document.querySelector('.table');
    const tiles = [...document.querySelectorAll('svg.board .layer-tiles g.tile')].map((g) => ({
      x: +g.dataset.x, y: +g.dataset.y, tile: g.dataset.tile, rot: +g.dataset.rot, closed: g.dataset.closed}));
    const meeples = [...document.querySelectorAll('svg.board .layer-meeples .meeple-at')].map((g) => ({
      x: +g.dataset.x, y: +g.dataset.y, port: g.dataset.port, seat: +g.dataset.seat}));
    const scores = [...document.querySelectorAll('.players .player')].map((p) => +p.dataset.score);
    const bag = Object.fromEntries([...document.querySelectorAll('.bag .bt')].map((b) => [b.dataset.tile, +b.dataset.count]));
    const last = document.querySelector('svg.board .last-move');
    return {synced: table ? Number(table.dataset.synced) : NaN, tiles, meeples, scores, bag,
      last: last ? {x: +last.dataset.x, y: +last.dataset.y} : null,
      drawn: document.querySelector('.drawn-tile')?.dataset.tile || null};
  });
}

const key = (o, fields) => fields.map((f) => o[f]).join(',');
function sameSet(a, b, fields) {
  const A = a.map((o) => key(o, fields)).sort(), B = b.map((o) => key(o, fields)).sort();
  return JSON.stringify(A) === JSON.stringify(B);
}

/** Compare what the page shows with the server's public state; returns a list of differences. */
function compareWithState(snap, state, lastRecord) {
  const diffs = [];
  const tiles = (state.board || []).map((t) => ({...t, closed: (t.closed || []).slice().sort().join(' ')}));
  if (!sameSet(snap.tiles, tiles, ['x', 'y', 'tile', 'rot'])) diffs.push('tiles differ');
  if (!sameSet(snap.tiles, tiles, ['x', 'y', 'closed'])) diffs.push('completed features differ');
  if (!sameSet(snap.meeples, state.meeples || [], ['x', 'y', 'port', 'seat'])) diffs.push('meeples differ');
  if (JSON.stringify(snap.scores) !== JSON.stringify(state.scores)) diffs.push(`scores ${snap.scores} vs ${state.scores}`);
  for (const [t, n] of Object.entries(state.bag || {})) if (snap.bag[t] !== n) { diffs.push(`bag ${t}: ${snap.bag[t]} vs ${n}`); break; }
  if ((state.tile || null) !== snap.drawn && state.phase !== 'over') diffs.push(`drawn tile ${snap.drawn} vs ${state.tile}`);
  if (lastRecord && !lastRecord.discarded && (!snap.last || snap.last.x !== lastRecord.x || snap.last.y !== lastRecord.y)) diffs.push('last move not highlighted');
  return diffs;
}

module.exports = {SLOW, sleep, waitFor, startServer, wsClient, launchBrowser, openPage, loseReplyTo, boardSnapshot, compareWithState, CHROMIUM};
