'use strict';
/*
 * test_http.js — the static files of the web UI (tessera serve --web DIR):
 * files under DIR are served, anything else is a 404, and no path — with
 * `..`, percent-encoded dots or slashes, backslashes, NUL bytes — reaches a
 * file outside DIR. Requests go over raw sockets, byte for byte as written
 * here (an HTTP library would tidy the paths up first). The WebSocket
 * protocol on the same port is unaffected.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { Server, Client, SLOW, tmpDir, rawConnect, within } = require('./lib');

const SECRET = 'TOPSECRET-' + process.pid;

/* One request; resolves with {status, headers, body} once the server closes. */
async function get(port, target, extraHeaders = '') {
  const s = await rawConnect(port);
  const chunks = [];
  s.on('data', (d) => chunks.push(d));
  const ended = new Promise((resolve) => s.on('close', resolve));
  s.on('error', () => {});
  s.write(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n${extraHeaders}\r\n`);
  const ok = await within(ended.then(() => true), 10000 * SLOW);
  s.destroy();
  const text = Buffer.concat(chunks).toString('latin1');
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(text);
  if (!ok && !m)
    throw new Error(`GET ${target}: no reply in time`);
  const sep = text.indexOf('\r\n\r\n');
  return { status: m ? Number(m[1]) : 0, head: text.slice(0, sep), body: sep >= 0 ? text.slice(sep + 4) : '' };
}

test('static files: served from the web folder, 404 otherwise, nothing from outside it', async (t) => {
  const dir = tmpDir('http');
  const web = path.join(dir, 'site');
  fs.mkdirSync(path.join(web, 'js'), { recursive: true });
  fs.writeFileSync(path.join(web, 'index.html'), '<!doctype html><title>tessera test</title>\n');
  fs.writeFileSync(path.join(web, 'js', 'app.js'), 'console.log("app");\n');
  /* outside the web folder: beside it, and the server's own database folder */
  fs.writeFileSync(path.join(dir, 'secret.txt'), SECRET + '\n');
  const srv = await Server.start({ dir, args: ['--web', web] });
  t.after(async () => {
    await srv.cleanup();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const root = await get(srv.port, '/');
  assert.equal(root.status, 200);
  assert.match(root.body, /tessera test/);
  const js = await get(srv.port, '/js/app.js');
  assert.equal(js.status, 200);
  assert.match(js.body, /console\.log/);
  assert.match(js.head, /content-type: [a-z/]*javascript/i);

  for (const missing of ['/nope.html', '/js/nope.js', '/etc/passwd', '/tessera.db', '/js/app.js.bak']) {
    const r = await get(srv.port, missing);
    assert.equal(r.status, 404, `GET ${missing}: ${r.status}`);
  }

  const escapes = [
    '/../secret.txt', '/js/../../secret.txt', '/./../secret.txt', '/%2e%2e/secret.txt', '/%2E%2E/secret.txt',
    '/.%2e/secret.txt', '/%2e./secret.txt', '/..%2fsecret.txt', '/..%2Fsecret.txt', '/%2e%2e%2fsecret.txt',
    '/js/%2e%2e/%2e%2e/secret.txt', '/js/..%2f..%2fsecret.txt', '/%252e%252e/secret.txt',
    '/..\\secret.txt', '/js/..%5c..%5csecret.txt', '/..;/secret.txt', '/secret.txt%00.html',
    '//../secret.txt', '/js//../../secret.txt', '/../site/../secret.txt', '/..', '/../', '/%2e%2e',
    '/../tessera.db', '/%2e%2e/tessera.db',
  ];
  for (const target of escapes) {
    const r = await get(srv.port, target);
    t.diagnostic(`GET ${target} -> ${r.status}`);
    assert.ok(!r.body.includes(SECRET), `GET ${target} leaked a file outside the web folder`);
    assert.ok(!r.body.includes('SQLite format'), `GET ${target} served the database`);
    assert.ok(r.status === 0 || (r.status >= 400 && r.status < 500) || (r.status === 200 && /tessera test/.test(r.body)),
      `GET ${target}: ${r.status} (only an error, or the index)`);
  }
  /* absolute-form and odd targets */
  for (const target of [`http://127.0.0.1:${srv.port}/../secret.txt`, '*', 'secret.txt', '../secret.txt']) {
    const r = await get(srv.port, target);
    assert.ok(!r.body.includes(SECRET), `GET ${target} leaked`);
  }

  /* still serving, over HTTP and WebSocket */
  assert.equal((await get(srv.port, '/')).status, 200);
  const c = await Client.connect(srv.url);
  assert.equal((await c.request({ type: 'ping' })).type, 'pong');
  c.close();
});

test('without --web (the tests\' default): every HTTP path is a 404', async (t) => {
  const srv = await Server.start({ tag: 'noweb' });
  t.after(() => srv.cleanup());
  for (const target of ['/', '/index.html', '/../tessera.db'])
    assert.equal((await get(srv.port, target)).status, 404, target);
});
