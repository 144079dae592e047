'use strict';
/*
 * test_web_guard.js — what the server tells browsers (issue 29;
 * docs/operations.md, "Security model"):
 *   - every HTTP response (the web UI's page, its scripts, a 404, the
 *     operator's /healthz) carries a Content-Security-Policy that keeps the
 *     page from being framed by another site, nosniff, X-Frame-Options and
 *     no referrer;
 *   - a WebSocket handshake from a page of another site (its Origin) is
 *     refused, and logged; one without Origin (bots, tools) and one from the
 *     server's own page are served; `[server] allowed_origins` lets named
 *     sites in ("*": any).
 * The web UI working under that policy is the web suites' (tests/web:
 * Chromium loads every page with these headers).
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const path = require('node:path');
const { Server, Client, WebSocket, SLOW } = require('./lib');

function get(url) {
  return new Promise((resolve, reject) => {
    http.get(url, (res) => {
      res.resume();
      res.on('end', () => resolve(res));
    }).on('error', reject);
  });
}

/* Does a WebSocket handshake with these headers succeed? 'open', or the
 * HTTP status it was refused with. */
function handshake(url, headers) {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { headers, handshakeTimeout: 5000 * SLOW });
    ws.on('open', () => {
      ws.terminate();
      resolve('open');
    });
    ws.on('unexpected-response', (req, res) => {
      resolve(res.statusCode);
      req.destroy();
    });
    ws.on('error', (e) => resolve('error: ' + e.message));
  });
}

test('every HTTP response carries the security headers', async (t) => {
  const srv = await Server.start({ tag: 'headers', args: ['--web', path.join(__dirname, '..', '..', 'web')] });
  t.after(() => srv.cleanup());
  for (const p of ['/', '/index.html', '/js/app.js', '/css/style.css', '/no-such-page', '/healthz', '/readyz']) {
    const res = await get(srv.url.replace(/^ws/, 'http') + p.slice(1));
    const csp = res.headers['content-security-policy'];
    assert.ok(csp, `${p} (${res.statusCode}): no Content-Security-Policy`);
    assert.match(csp, /frame-ancestors 'none'/, p);
    assert.match(csp, /script-src 'self';/, p);
    assert.doesNotMatch(csp, /unsafe-eval/, p);
    assert.equal(res.headers['x-content-type-options'], 'nosniff', p);
    assert.equal(res.headers['x-frame-options'], 'DENY', p);
    assert.equal(res.headers['referrer-policy'], 'no-referrer', p);
  }
});

test('a WebSocket from another site\'s page is refused; bots, the server\'s own page and allowed sites are served', async (t) => {
  const srv = await Server.start({ tag: 'origin' });
  t.after(() => srv.cleanup());
  const own = srv.url.replace(/^ws/, 'http').replace(/\/$/, '');
  assert.equal(await handshake(srv.url, {}), 'open', 'no Origin: a program');
  assert.equal(await handshake(srv.url, { Origin: own }), 'open', 'the server\'s own page');
  assert.equal(await handshake(srv.url, { Origin: 'https://evil.example' }), 403, 'another site');
  assert.equal(await handshake(srv.url, { Origin: own + '.evil.example' }), 403, 'a look-alike');
  assert.equal(await handshake(srv.url, { Origin: 'null' }), 403, 'a sandboxed or file page');
  const logged = await srv.waitLog((l) => l.event === 'origin_refused');
  assert.match(logged.why, /evil\.example/);
  /* the refused ones left nothing behind: a client still gets in */
  const c = await Client.connect(srv.url, { name: 'after' });
  assert.equal((await c.request({ type: 'ping' })).type, 'pong');

  const listed = await Server.start({ tag: 'origin-allowed',
    args: ['--set', 'server.allowed_origins=https://class.example.org, https://other.example:8443'] });
  t.after(() => listed.cleanup());
  assert.equal(await handshake(listed.url, { Origin: 'https://class.example.org' }), 'open');
  assert.equal(await handshake(listed.url, { Origin: 'https://other.example:8443' }), 'open');
  assert.equal(await handshake(listed.url, { Origin: 'https://other.example' }), 403, 'another port');
  const any = await Server.start({ tag: 'origin-any', args: ['--set', 'server.allowed_origins=*'] });
  t.after(() => any.cleanup());
  assert.equal(await handshake(any.url, { Origin: 'https://evil.example' }), 'open');
});
