'use strict';
/*
 * test_metrics.js — GET /metrics, /healthz, /readyz (server/metrics.c,
 * docs/operations.md "Metrics"):
 *   - the exposition is read by a strict parser of the Prometheus text
 *     format 0.0.4 (below): names, labels, escapes, one TYPE per family
 *     before its samples, families not interleaved, no duplicate series,
 *     histograms cumulative with +Inf equal to _count;
 *   - the series an operator needs are there, and they move as matches are
 *     played: connections, matches by state, moves, the per-move overhead,
 *     journal latency, bot think time, errors by code, finished by reason;
 *   - /healthz and /readyz answer; other methods and paths do not;
 *     [metrics] enabled and allow are obeyed.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { Server, Client, SLOW, createMatch, join, playUntilOver, rng, httpGet, isError, sleep } = require('./lib');

/* ---- a strict parser of the Prometheus text exposition format ------------------- */

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = ['counter', 'gauge', 'histogram', 'summary', 'untyped'];

function parseValue(v, where) {
  if (v === '+Inf') return Infinity;
  if (v === '-Inf') return -Infinity;
  if (v === 'NaN') return NaN;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(v))
    throw new Error(`${where}: '${v}' is not a number`);
  return Number(v);
}

/* The labels of `{a="x",b="y\"z"}` starting at text[i] === '{'; returns [labels, index after '}']. */
function parseLabels(text, i, where) {
  const labels = {};
  i++;
  for (;;) {
    if (text[i] === '}')
      return [labels, i + 1];
    const eq = text.indexOf('=', i);
    if (eq < 0)
      throw new Error(`${where}: a label without '='`);
    const name = text.slice(i, eq);
    if (!LABEL.test(name) || name.startsWith('__'))
      throw new Error(`${where}: bad label name '${name}'`);
    if (name in labels)
      throw new Error(`${where}: label ${name} twice`);
    if (text[eq + 1] !== '"')
      throw new Error(`${where}: label ${name}'s value is not quoted`);
    let j = eq + 2, value = '';
    for (;;) {
      const ch = text[j];
      if (ch === undefined)
        throw new Error(`${where}: unterminated label value`);
      if (ch === '"')
        break;
      if (ch === '\\') {
        const e = text[j + 1];
        if (e === 'n') value += '\n';
        else if (e === '\\' || e === '"') value += e;
        else throw new Error(`${where}: bad escape \\${e}`);
        j += 2;
        continue;
      }
      value += ch;
      j++;
    }
    labels[name] = value;
    i = j + 1;
    if (text[i] === ',')
      i++;
    else if (text[i] !== '}')
      throw new Error(`${where}: expected ',' or '}' after label ${name}`);
  }
}

/*
 * Parse a whole exposition. Returns {families: {name: {type, help, samples:
 * [{name, labels, value}]}}} or throws naming the line and the rule broken.
 */
function parseExposition(text) {
  if (!text.endsWith('\n'))
    throw new Error('the exposition does not end with a newline');
  const families = {};
  const seen = new Set();
  const closed = new Set(); /* families whose samples are over */
  let current = null;
  const familyOf = (name) => {
    for (const suffix of ['_bucket', '_sum', '_count']) {
      const base = name.slice(0, -suffix.length);
      if (name.endsWith(suffix) && families[base] && ['histogram', 'summary'].includes(families[base].type))
        return base;
    }
    return name;
  };
  const lines = text.slice(0, -1).split('\n');
  lines.forEach((line, k) => {
    const where = `line ${k + 1} '${line.slice(0, 80)}'`;
    if (line === '')
      throw new Error(`${where}: an empty line`);
    if (line.startsWith('#')) {
      const m = /^# (HELP|TYPE) (\S+) (.*)$/.exec(line);
      if (!m)
        return; /* another comment */
      const [, kind, name, rest] = m;
      if (!NAME.test(name))
        throw new Error(`${where}: bad metric name`);
      const f = families[name] || (families[name] = { samples: [] });
      if (kind === 'TYPE') {
        if (f.type)
          throw new Error(`${where}: a second TYPE for ${name}`);
        if (f.samples.length)
          throw new Error(`${where}: TYPE after ${name}'s samples`);
        if (!TYPES.includes(rest))
          throw new Error(`${where}: unknown type '${rest}'`);
        f.type = rest;
      } else {
        if (f.help !== undefined)
          throw new Error(`${where}: a second HELP for ${name}`);
        f.help = rest;
      }
      return;
    }
    const nm = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line);
    if (!nm)
      throw new Error(`${where}: not a sample`);
    const name = nm[0];
    let i = name.length, labels = {};
    if (line[i] === '{')
      [labels, i] = parseLabels(line, i, where);
    if (line[i] !== ' ')
      throw new Error(`${where}: expected a space before the value`);
    const parts = line.slice(i + 1).split(' ');
    if (parts.length > 2 || (parts.length === 2 && !/^-?\d+$/.test(parts[1])))
      throw new Error(`${where}: expected 'value [timestamp]'`);
    const value = parseValue(parts[0], where);
    const fam = familyOf(name);
    const f = families[fam];
    if (!f || !f.type)
      throw new Error(`${where}: no TYPE line before the samples of ${fam}`);
    if (current !== fam) {
      if (closed.has(fam))
        throw new Error(`${where}: the samples of ${fam} are not together`);
      if (current)
        closed.add(current);
      current = fam;
    }
    const key = name + JSON.stringify(Object.entries(labels).sort());
    if (seen.has(key))
      throw new Error(`${where}: a second sample of the same series`);
    seen.add(key);
    if (f.type === 'counter' && (value < 0 || Number.isNaN(value)))
      throw new Error(`${where}: a counter below 0`);
    if (f.type === 'histogram' && name === fam)
      throw new Error(`${where}: a histogram sample must be _bucket, _sum or _count`);
    f.samples.push({ name, labels, value });
  });
  /* histograms: cumulative buckets ending at +Inf = _count, and a _sum */
  for (const [name, f] of Object.entries(families)) {
    if (f.type !== 'histogram')
      continue;
    const buckets = f.samples.filter((s) => s.name === name + '_bucket');
    const count = f.samples.find((s) => s.name === name + '_count');
    const sum = f.samples.find((s) => s.name === name + '_sum');
    if (!count || !sum || !buckets.length)
      throw new Error(`${name}: a histogram needs _bucket, _sum and _count`);
    let prevLe = -Infinity, prev = 0;
    for (const b of buckets) {
      if (!('le' in b.labels))
        throw new Error(`${name}: a bucket without le`);
      const le = parseValue(b.labels.le, name);
      if (!(le > prevLe))
        throw new Error(`${name}: le not increasing at ${b.labels.le}`);
      if (b.value < prev)
        throw new Error(`${name}: buckets not cumulative at le=${b.labels.le}`);
      prevLe = le;
      prev = b.value;
    }
    if (prevLe !== Infinity)
      throw new Error(`${name}: the last bucket is not le="+Inf"`);
    if (prev !== count.value)
      throw new Error(`${name}: +Inf bucket ${prev} != _count ${count.value}`);
  }
  return families;
}

/* The parser must refuse what breaks the format (it is tested too). */
test('the test\'s parser refuses bad expositions', () => {
  const bad = [
    'x 1',                                                  /* no final newline */
    'x 1\n',                                                /* no TYPE */
    '# TYPE x gauge\nx{a="1} 1\n',                          /* unterminated label */
    '# TYPE x gauge\nx{a=1} 1\n',                           /* unquoted */
    '# TYPE x gauge\nx one\n',                              /* not a number */
    '# TYPE x gauge\n# TYPE x gauge\nx 1\n',                /* TYPE twice */
    '# TYPE x gauge\n# TYPE y gauge\nx 1\ny 1\nx{a="b"} 2\n', /* interleaved */
    '# TYPE x gauge\nx 1\nx 2\n',                           /* duplicate series */
    '# TYPE x counter\nx -1\n',                             /* negative counter */
    '# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 1\nh_sum 1\nh_count 1\n',
    '# TYPE h histogram\nh_bucket{le="1"} 1\nh_sum 1\nh_count 1\n',
    '# TYPE x gauge\nx{a="\\q"} 1\n',                       /* bad escape */
    '# TYPE x gauge\n\nx 1\n',                              /* empty line */
  ];
  for (const b of bad)
    assert.throws(() => parseExposition(b), Error, JSON.stringify(b));
  const good = parseExposition('# HELP x a "gauge"\n# TYPE x gauge\nx{a="q\\"\\\\\\n",b="2"} +Inf\n' +
    '# TYPE h histogram\nh_bucket{le="0.5"} 0\nh_bucket{le="+Inf"} 3\nh_sum 4.5\nh_count 3\n');
  assert.equal(good.x.samples[0].labels.a, 'q"\\\n');
});

/* ---- the server's endpoints ---------------------------------------------------- */

async function scrape(srv) {
  const r = await httpGet(`http://127.0.0.1:${srv.port}/metrics`);
  assert.equal(r.status, 200, r.body);
  assert.match(r.headers['content-type'], /^text\/plain; version=0\.0\.4/);
  return parseExposition(r.body);
}

/* The value of a series (labels: an object, or none). */
function value(fams, name, labels = {}) {
  const fam = fams[name] || fams[name.replace(/_(bucket|sum|count)$/, '')];
  assert.ok(fam, `no family for ${name}`);
  const s = fam.samples.find((x) => x.name === name &&
    Object.keys(labels).every((k) => x.labels[k] === labels[k]) &&
    Object.keys(x.labels).length === Object.keys(labels).length);
  assert.ok(s, `no sample ${name}${JSON.stringify(labels)}`);
  return s.value;
}

test('/metrics parses, has every series, and its values move as matches are played', async (t) => {
  const srv = await Server.start({ tag: 'metrics', env: { TESSERA_TEST_SEED: '11' } });
  t.after(() => srv.cleanup());
  const m0 = await scrape(srv);
  const types = {
    tessera_connections: 'gauge', tessera_connections_accepted_total: 'counter', tessera_matches: 'gauge',
    tessera_matches_created_total: 'counter', tessera_matches_finished_total: 'counter',
    tessera_moves_total: 'counter', tessera_move_overhead_seconds: 'histogram',
    tessera_journal_write_seconds: 'histogram', tessera_bot_think_seconds: 'histogram',
    tessera_errors_total: 'counter', tessera_worker_queue_length: 'gauge', tessera_worker_jobs: 'gauge',
    tessera_programs_running: 'gauge', tessera_tournaments: 'gauge', tessera_journal_ok: 'gauge',
    tessera_journal_faults_total: 'counter', tessera_timeout_lateness_seconds: 'histogram',
    process_resident_memory_bytes: 'gauge', tessera_build_info: 'gauge',
  };
  for (const [name, type] of Object.entries(types)) {
    assert.ok(m0[name], `${name} is exposed`);
    assert.equal(m0[name].type, type, `${name} is a ${type}`);
    assert.ok(m0[name].help && m0[name].help.length > 5, `${name} has a HELP line`);
  }
  assert.equal(value(m0, 'tessera_connections'), 0);
  assert.equal(value(m0, 'tessera_moves_total'), 0);
  assert.equal(value(m0, 'tessera_matches', { state: 'live' }), 0);
  assert.equal(value(m0, 'tessera_journal_ok'), 1);
  assert.equal(value(m0, 'tessera_tournaments', { state: 'running' }), 0);
  assert.ok(value(m0, 'process_resident_memory_bytes') > 1e6);

  /* a match of two remote players, played to its end */
  const host = await Client.connect(srv.url, { name: 'host' });
  const { match, tokens } = await createMatch(host, [{ open: true }, { open: true }],
    { time_control: { move_ms: 20000 } });
  const p = await Client.connect(srv.url, { name: 'p' }), q = await Client.connect(srv.url, { name: 'q' });
  await join(p, match, 0, tokens[0]);
  await join(q, match, 1, tokens[1]);
  const mid = await scrape(srv);
  assert.equal(value(mid, 'tessera_connections'), 3);
  assert.equal(value(mid, 'tessera_connections_accepted_total'), 3);
  assert.equal(value(mid, 'tessera_matches', { state: 'live' }), 1);
  assert.equal(value(mid, 'tessera_matches_created_total'), 1);
  const [over] = await Promise.all([playUntilOver(p, { rng: rng(3) }), playUntilOver(q, { rng: rng(4) })]);
  assert.equal(over.result.reason, 'normal');
  const turns = (await host.request({ type: 'get_record', match }, 'record')).record.turns
    .filter((x) => !x.discarded).length;
  const m1 = await scrape(srv);
  assert.equal(value(m1, 'tessera_moves_total'), turns, `${turns} turns played`);
  assert.equal(value(m1, 'tessera_matches', { state: 'live' }), 0);
  assert.equal(value(m1, 'tessera_matches', { state: 'finished' }), 1);
  assert.equal(value(m1, 'tessera_matches_finished_total', { reason: 'normal' }), 1);
  /* one overhead sample per remote move followed by the other seat's your_turn */
  const overhead = value(m1, 'tessera_move_overhead_seconds_count');
  assert.equal(overhead, turns - 1, `overhead samples: ${overhead}`);
  assert.ok(value(m1, 'tessera_move_overhead_seconds_sum') > 0);
  /* server_stats gives the same samples: their count, and a mean from their exact sum (the
     percentiles are 1 us buckets; bench/thinking.sh compares means) */
  const st = (await host.request({ type: 'server_stats' }, 'stats')).overhead;
  assert.equal(st.count, overhead);
  const meanUs = value(m1, 'tessera_move_overhead_seconds_sum') / overhead * 1e6;
  assert.ok(Math.abs(st.mean_us - meanUs) < 0.01, `mean ${st.mean_us} us, metrics ${meanUs} us`);
  assert.ok(st.mean_us > 0 && st.mean_us <= st.max_us + 1, `mean ${st.mean_us} us, max ${st.max_us} us`);
  const writes = value(m1, 'tessera_journal_write_seconds_count');
  assert.ok(writes >= turns, `journal writes: ${writes} (a draw and a move per turn, and more)`);
  assert.equal(value(m1, 'tessera_bot_think_seconds_count'), 0);

  /* the server's bots: their thinking */
  const bots = await createMatch(host, [{ bot: 'random' }, { bot: 'random' }]);
  const spect = await Client.connect(srv.url, { name: 'spect' });
  /* two random bots may have finished already (a few ms): then the view says so */
  const watched = await spect.request({ type: 'spectate', match: bots.match }, 'spectating');
  if (watched.status !== 'finished')
    await spect.expect('game_over', 30000 * SLOW);
  const mb = await scrape(srv);
  const botTurns = value(mb, 'tessera_moves_total') - turns;
  assert.ok(botTurns >= 60, `${botTurns} bot turns`);
  assert.equal(value(mb, 'tessera_bot_think_seconds_count'), botTurns, 'one think sample per bot turn');
  assert.equal(value(mb, 'tessera_matches_finished_total', { reason: 'normal' }), 2);
  spect.close();
  q.close();

  /* errors by code */
  assert.ok(isError(await host.request({ type: 'spectate', match: 'nosuch', id: 'e1' }), 'unknown_match', 'e1'));
  assert.ok(isError(await host.request({ type: 'spectate', match: 'nosuch2', id: 'e2' }), 'unknown_match', 'e2'));
  host.send({ type: 'create_match', game: 'carcassonne', id: 'e3' }); /* no seats */
  await host.expect((m) => m.id === 'e3');
  const m2 = await scrape(srv);
  assert.equal(value(m2, 'tessera_errors_total', { code: 'unknown_match' }), 2);
  assert.equal(value(m2, 'tessera_errors_total', { code: 'bad_message' }), 1);
  /* connections gone */
  p.close();
  host.close();
  await sleep(300);
  const m3 = await scrape(srv);
  assert.equal(value(m3, 'tessera_connections'), 0);
  assert.equal(value(m3, 'tessera_connections_accepted_total'), 4);
  assert.ok(value(m3, 'tessera_http_requests_total') >= 5);
});

test('/healthz, /readyz; other methods and paths; [metrics] enabled and allow', async (t) => {
  const srv = await Server.start({ tag: 'health' });
  t.after(() => srv.cleanup());
  const base = `http://127.0.0.1:${srv.port}`;
  const h = await httpGet(base + '/healthz');
  assert.deepEqual([h.status, h.body], [200, 'ok\n']);
  assert.equal(h.headers['cache-control'], 'no-store');
  const r = await httpGet(base + '/readyz');
  assert.deepEqual([r.status, r.body], [200, 'ready\n']);
  assert.equal((await httpGet(base + '/metrics', { method: 'POST' })).status, 405);
  assert.equal((await httpGet(base + '/metrics/x')).status, 404);
  assert.equal((await httpGet(base + '/nothing-here')).status, 404);

  const off = await Server.start({ tag: 'metricsoff', args: ['--set', 'metrics.enabled=false'] });
  t.after(() => off.cleanup());
  const o = await httpGet(`http://127.0.0.1:${off.port}/metrics`);
  assert.equal(o.status, 404);
  assert.match(o.body, /metrics are off/);
  assert.equal((await httpGet(`http://127.0.0.1:${off.port}/healthz`)).status, 200, 'health stays');

  const fenced = await Server.start({ tag: 'metricsallow', args: ['--set', 'metrics.allow=10.9.9.0/24'] });
  t.after(() => fenced.cleanup());
  const f = await httpGet(`http://127.0.0.1:${fenced.port}/metrics`);
  assert.equal(f.status, 403);
  const open = await Server.start({ tag: 'metricsallow2', args: ['--set', 'metrics.allow=10.9.9.0/24 127.0.0.1'] });
  t.after(() => open.cleanup());
  assert.equal((await httpGet(`http://127.0.0.1:${open.port}/metrics`)).status, 200);
  /* the web UI beside them, on the same port */
  const web = await Server.start({ tag: 'metricsweb', args: ['--web', require('./lib').ROOT + '/web'] });
  t.after(() => web.cleanup());
  const page = await httpGet(`http://127.0.0.1:${web.port}/`);
  assert.equal(page.status, 200);
  assert.match(page.body, /<html/);
  assert.equal((await httpGet(`http://127.0.0.1:${web.port}/metrics`)).status, 200);
});
