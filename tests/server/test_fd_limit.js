'use strict';
/*
 * test_fd_limit.js — a server whose descriptor limit cannot hold its
 * max_conns says so at start (fd_limit, and a line on stderr naming both
 * numbers) and lowers max_conns to what fits: the connection past it gets a
 * clear `too_many` error, not an accept() that fails with EMFILE in
 * silence; and a server whose soft limit is below the hard one raises it.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { Server, Client, binary, tmpDir } = require('./lib');

/* `tessera` run with `ulimit -n SOFT` (and the hard limit HARD) */
function limited(dir, soft, hard) {
  const wrapper = path.join(dir, 'tessera-limited');
  fs.writeFileSync(wrapper, `#!/bin/sh\nulimit -Sn ${soft} && ulimit -Hn ${hard} || exit 99\nexec '${binary()}' "$@"\n`);
  fs.chmodSync(wrapper, 0o755);
  return wrapper;
}

test('max_conns beyond the descriptor limit: lowered with a warning, the next connection refused clearly',
  async (t) => {
    const dir = tmpDir('fdlimit');
    const srv = await Server.start({ dir, bin: limited(dir, 160, 160), args: ['--max-conns', '1000'] });
    t.after(() => srv.cleanup().finally(() => fs.rmSync(dir, { recursive: true, force: true })));
    const [line] = srv.events('fd_limit');
    assert.ok(line, 'fd_limit is logged');
    assert.equal(line.limit, 160);
    assert.equal(line.max_conns, 1000);
    const fit = line.lowered_to;
    assert.equal(fit, 160 - line.reserved);
    assert.match(srv.stderr, /max_conns 1000 needs more descriptors than the limit of 160 allows.*at most \d+ connections/);
    const conns = [];
    for (let i = 0; i < fit; i++)
      conns.push(await Client.connect(srv.url, { name: `c${i}` }));
    const extra = await Client.connect(srv.url, { name: 'extra', hello: false });
    const err = await extra.expect('error');
    assert.equal(err.code, 'too_many');
    assert.match(err.message, new RegExp(`maximum of ${fit} connections`));
    await extra.waitClosed();
    /* the ones that fit still work */
    const last = conns[conns.length - 1];
    const r = await last.request({ type: 'list_matches' }, 'matches');
    assert.ok(Array.isArray(r.matches));
    for (const c of conns)
      c.close();
  });

test('a soft limit below the hard one is raised at start: no warning', async (t) => {
  const dir = tmpDir('fdraise');
  /* the default max_conns (8192) does not fit 1024 descriptors, but fits 9000 */
  const srv = await Server.start({ dir, bin: limited(dir, 1024, 9000) });
  t.after(() => srv.cleanup().finally(() => fs.rmSync(dir, { recursive: true, force: true })));
  assert.equal(srv.events('fd_limit').length, 0, srv.stderr);
  const limits = fs.readFileSync(`/proc/${srv.proc.pid}/limits`, 'utf8');
  assert.match(limits, /Max open files\s+9000\s+9000/);
});
