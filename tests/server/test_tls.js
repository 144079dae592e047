'use strict';
/*
 * test_tls.js — TLS (server/net.c, docs/operations.md "TLS"): with a
 * certificate and key in the config (or --tls-cert/--tls-key) the server
 * speaks wss:// and https:// on its port, and only that. The certificate is
 * a self-signed one made here with openssl; the clients pin it (ca), so the
 * round trip checks the chain and the name, as a real client would:
 *   - a match is created, joined and played to its end over wss://;
 *   - /healthz, /metrics and the web UI's files come over https://;
 *   - a plain ws:// client and a client that does not trust the
 *     certificate get nothing;
 *   - a missing file, a file that is not PEM, a key of another certificate
 *     and half a pair each stop the start with a message naming the file.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { Server, Client, SLOW, ROOT, createMatch, join, playUntilOver, rng, httpGet, binary, tmpDir, WebSocket } = require('./lib');

/* A self-signed certificate for 127.0.0.1 and localhost: {cert, key} paths. */
function selfSigned(dir, name) {
  const cert = path.join(dir, name + '.crt'), key = path.join(dir, name + '.key');
  const r = spawnSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1',
    '-nodes', '-days', '2', '-subj', '/CN=tessera test', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost',
    '-keyout', key, '-out', cert], { encoding: 'utf8' });
  if (r.error)
    throw new Error('MISSING: the openssl command (Debian package openssl): ' + r.error.message);
  assert.equal(r.status, 0, 'openssl req: ' + r.stderr);
  return { cert, key };
}

/* Does a WebSocket connection to url open (with these ws options)? */
function opens(url, opts = {}) {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { handshakeTimeout: 3000 * SLOW, ...opts });
    ws.on('open', () => {
      ws.terminate();
      resolve(true);
    });
    ws.on('error', () => resolve(false));
  });
}

test('a match played over wss://, the endpoints and the web UI over https://', async (t) => {
  const dir = tmpDir('tls');
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const { cert, key } = selfSigned(dir, 'server');
  const ca = fs.readFileSync(cert);
  const conf = path.join(dir, 'tessera.conf');
  fs.writeFileSync(conf, `[tls]\ncert = ${cert}\nkey = ${key}\n`);
  const srv = await Server.start({ tag: 'tls', scheme: 'wss',
    args: ['--config', conf, '--web', path.join(ROOT, 'web')] });
  t.after(() => srv.cleanup());
  assert.match(srv.url, /^wss:/);
  assert.equal((await srv.waitLog((l) => l.event === 'listening')).tls, true, 'the listening line says TLS');

  const ws = { ca };
  const host = await Client.connect(srv.url, { name: 'host', ws });
  const { match, tokens } = await createMatch(host, [{ open: true }, { open: true }]);
  const p = await Client.connect(srv.url, { name: 'p', ws });
  const q = await Client.connect(srv.url, { name: 'q', ws });
  await join(p, match, 0, tokens[0]);
  await join(q, match, 1, tokens[1]);
  const [a, b] = await Promise.all([playUntilOver(p, { rng: rng(5) }), playUntilOver(q, { rng: rng(6) })]);
  assert.equal(a.result.reason, 'normal');
  assert.deepEqual(a.result, b.result);
  for (const c of [host, p, q])
    c.close();

  const base = `https://127.0.0.1:${srv.port}`;
  const health = await httpGet(base + '/healthz', { ca });
  assert.equal(health.status, 200);
  assert.equal(health.body.trim(), 'ok');
  const metrics = await httpGet(base + '/metrics', { ca });
  assert.equal(metrics.status, 200);
  assert.match(metrics.body, /^tessera_matches_finished_total\{reason="normal"\} 1$/m);
  const index = await httpGet(base + '/', { ca });
  assert.equal(index.status, 200);
  assert.match(index.body, /<html/i);
  /* the name in the certificate: localhost too */
  assert.equal((await httpGet(`https://localhost:${srv.port}/healthz`, { ca })).status, 200);

  /* only TLS on this port; and a client that does not trust the certificate refuses it */
  assert.equal(await opens(`ws://127.0.0.1:${srv.port}/`), false, 'plain ws:// gets no WebSocket');
  await assert.rejects(httpGet(`http://127.0.0.1:${srv.port}/healthz`, { timeout: 3000 * SLOW }),
    'plain http:// gets no answer');
  assert.equal(await opens(srv.url), false, 'an untrusted certificate is refused by the client');
  await assert.rejects(httpGet(base + '/healthz'), /self[- ]signed|certificate/);
});

test('bad TLS files stop the start, naming the file', () => {
  const dir = tmpDir('tlsbad');
  try {
    const one = selfSigned(dir, 'one'), two = selfSigned(dir, 'two');
    const notPem = path.join(dir, 'not.pem');
    fs.writeFileSync(notPem, 'hello\n');
    const serve = (args) => spawnSync(binary(), ['serve', '--no-web', '--port', '0',
      '--db', path.join(dir, 'tessera.db'), ...args], { encoding: 'utf8', timeout: 20000 * SLOW });
    const cases = [
      [['--tls-cert', path.join(dir, 'nosuch.crt'), '--tls-key', one.key], 1, /tls\.cert .*nosuch\.crt: No such file/],
      [['--tls-cert', notPem, '--tls-key', one.key], 1, /tls\.cert .*not\.pem: not a PEM certificate/],
      [['--tls-cert', one.cert, '--tls-key', notPem], 1, /tls\.key .*not\.pem: not a PEM private key/],
      [['--tls-cert', one.cert, '--tls-key', two.key], 1, /tls\.key .*two\.key is not the key of the certificate .*one\.crt/],
      [['--tls-cert', one.cert], 2, /TLS needs both tls\.cert and tls\.key/],
    ];
    for (const [args, code, re] of cases) {
      const r = serve(args);
      assert.equal(r.status, code, `${args.join(' ')}: exit ${r.status}\n${r.stderr}`);
      assert.match(r.stderr, re, args.join(' '));
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
