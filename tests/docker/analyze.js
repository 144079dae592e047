'use strict';
/*
 * analyze.js URL MATCH — tests/docker/docker.sh's client for the `analyze`
 * message (docs/protocol.md) against the server in the container: the
 * finished match is analysed at the server's default budget, in its fenced
 * process (players/fenced.h: seccomp, rlimits) under the container's own
 * seccomp profile and user; the report has a turn for each of the record's
 * turns, and a second request is answered from the journal (cached).
 * Prints the analysis's wall seconds; exits 1 with what went wrong.
 */
const assert = require('node:assert/strict');
const { Client } = require('../server/lib');

async function main() {
  const [url, match] = process.argv.slice(2);
  const c = await Client.connect(url, { name: 'docker-analyze' });
  const record = (await c.request({ type: 'get_record', match }, 'record')).record;
  const t0 = Date.now();
  const r = await c.request({ type: 'analyze', match }, null, 600000);
  assert.equal(r.type, 'analysis', JSON.stringify(r).slice(0, 400));
  assert.equal(r.cached, false);
  assert.equal(r.analysis.turns.length, record.turns.length);
  const secs = ((Date.now() - t0) / 1000).toFixed(1);
  const again = await c.request({ type: 'analyze', match }, 'analysis', 60000);
  assert.equal(again.cached, true);
  assert.deepEqual(again.analysis, r.analysis);
  assert.equal(r.analysis.search.sims, 2000, 'the default budget');
  console.log(`analysed ${record.turns.length} turns in ${secs} s (fenced, in the container); again from the journal`);
  c.close();
}
main().catch((e) => { console.error(e.stack || String(e)); process.exit(1); });
