'use strict';
/*
 * cluster.js TESSERA URL PROJECT — the client side of tests/docker/cluster.sh:
 * docker/compose.cluster.yaml, already up (project PROJECT), seen from the host
 * through haproxy at URL (ws://127.0.0.1:PORT/) only, as a player would see it.
 *   - three servers answer behind the proxy: connections spread by haproxy
 *     reach t1, t2 and t3, each reporting three live instances and Redis up;
 *   - a match of two open seats, created through the proxy, is played by two
 *     players and watched by a spectator, all through the proxy: the same
 *     turns for everyone, the record replays (TESSERA replay) to the scores;
 *   - a second such match: at turn 12 its owner's container is stopped
 *     (podman stop, SIGTERM: the server leaves its lease); another server
 *     takes it over, the players resume through the proxy, it finishes
 *     normally, every turn anyone heard is the final history's, the journal
 *     holds each ply once, the history replays;
 *   - routing by match (docs/scaling.md, "Routing clients to the owner"):
 *     ws://PROXY/?server=NAME reaches NAME (docker/cluster/haproxy.cfg's
 *     use-server rules); a seat joined through another server is told the
 *     owner's address as the compose file advertises it (the proxy's, with
 *     the owner's name: owner_url), resumes there on the owner itself, and
 *     plays the match out with no move forwarded by the server it left;
 *   - a third: the same with its owner's container killed (podman kill
 *     --signal KILL, a crash): the file's `restart: unless-stopped` may
 *     start it again before its lease runs out, and then the match goes on
 *     where it was; otherwise another server takes it over; either way the
 *     same checks of every turn;
 * and it prints what it measured (the failover: stop or kill asked ->
 * takeover logged -> the next turn played). The players are tests/cluster's (cluster.js).
 * TESSERA_PODMAN: the podman command (default: podman --runtime runc).
 */
const { execFile } = require('node:child_process');
const assert = require('node:assert/strict');
const lib = require('../server/lib.js');
const { resilientPlayer, checkAgainst } = require('../cluster/cluster.js');
const { Client, createMatch, replayHistory, sleep, rng, randomMove } = lib;

const [, , , url, project] = process.argv;
if (!url || !project) {
  console.error('usage: node cluster.js TESSERA ws://127.0.0.1:PORT/ PROJECT');
  process.exit(2);
}
const podman = (process.env.TESSERA_PODMAN || 'podman --runtime runc').split(/\s+/);
const container = (svc) => `${project}_${svc}_1`;

/* podman ARGS..., resolving with its stdout (rejecting on a failure) */
function pod(...args) {
  return new Promise((resolve, reject) => {
    execFile(podman[0], [...podman.slice(1), ...args], { maxBuffer: 64 << 20 }, (err, out, errOut) => {
      if (err)
        return reject(new Error(`podman ${args.join(' ')}: ${err.message} ${errOut}`));
      resolve(out + errOut);
    });
  });
}

/* one SQL query on the cluster's PostgreSQL, in its container: rows of a|b|c */
async function sql(query) {
  const out = await pod('exec', container('db'), 'psql', '-h', '127.0.0.1', '-U', 'tessera', '-d', 'tessera',
    '-qAt', '-v', 'ON_ERROR_STOP=1', '-c', query);
  return out.trim().split('\n').filter((l) => l);
}

/* a server's JSON log lines with event ev (the server logs to stderr) */
async function events(svc, ev) {
  const out = await pod('logs', container(svc));
  return out.split('\n').filter((l) => l.startsWith('{')).map((l) => {
    try {
      return JSON.parse(l);
    } catch {
      return {};
    }
  }).filter((l) => l.event === ev);
}

const updates = (c) => c.all.filter((m) => m.type === 'update');

async function stats(c) {
  return (await c.request({ type: 'server_stats' }, 'stats')).cluster;
}

/* the three servers, each seen through the proxy (leastconn: held
 * connections make the next one go elsewhere) */
async function threeServers() {
  const seen = new Map();
  const held = [];
  for (let i = 0; i < 60 && seen.size < 3; i++) {
    const c = await Client.connect(url, { name: 'probe' + i, timeout: 20000 });
    held.push(c);
    const st = await stats(c);
    assert.ok(st, 'server_stats has a cluster section');
    if (st.instances === 3 && st.redis)
      seen.set(st.instance, st);
    else
      await sleep(500); /* its view of the others is a second old at most */
  }
  for (const c of held)
    c.close();
  assert.deepEqual([...seen.keys()].sort(), ['t1', 't2', 't3'],
    'connections through the proxy reach t1, t2 and t3, each seeing three instances and Redis');
  console.log('three servers behind the proxy: ' + [...seen.keys()].sort().join(', '));
}

/* a match of two open seats made through the proxy, and its owner (the server
 * the creating connection reached) */
async function newMatch(name, extra) {
  const ctl = await Client.connect(url, { name, timeout: 20000 });
  const owner = (await stats(ctl)).instance;
  const made = await createMatch(ctl, [{ open: true }, { open: true }], extra);
  ctl.close();
  const row = await sql(`SELECT owner FROM matches WHERE id='${made.match}'`);
  assert.deepEqual(row, [owner], 'the journal names the creating server as the owner');
  return { ...made, owner };
}

async function plainMatch() {
  const { match, tokens, owner } = await newMatch('ctl1', { time_control: { move_ms: 30000 } });
  const watch = await Client.connect(url, { name: 'watch1', timeout: 20000 });
  await watch.request({ type: 'spectate', match }, 'spectating');
  const [r0, r1] = await Promise.all([
    resilientPlayer(() => url, match, 0, tokens[0], 5),
    resilientPlayer(() => url, match, 1, tokens[1], 6),
  ]);
  assert.equal(r0.over.result.reason, 'normal', JSON.stringify(r0.over.result));
  assert.deepEqual(r0.over.result, r1.over.result);
  assert.equal(r0.reconnects + r1.reconnects, 0, 'no connection lost');
  await watch.expect('game_over', 60000);
  const view = await watch.request({ type: 'spectate', match }, 'spectating');
  assert.equal(view.status, 'finished');
  assert.ok(view.history.length > 30, 'a whole game');
  assert.deepEqual(updates(watch).map((u) => u.record), view.history, 'the spectator saw every turn');
  checkAgainst(view.history, r0.seen, 'player 0');
  checkAgainst(view.history, r1.seen, 'player 1');
  await replayHistory(lib.binary(), view.rules, view.history, r0.over.scores);
  watch.close();
  console.log(`match ${match} (owner ${owner}): ${view.history.length} turns, played and watched through the proxy`);
}

/* Play a seat on c until game_over: the number of moves it sent. */
async function playOut(c, match, seed) {
  const r = rng(seed);
  let moves = 0;
  for (;;) {
    const m = await c.expect((x) => x.type === 'your_turn' || x.type === 'game_over', 60000);
    if (m.type === 'game_over')
      return moves;
    c.send({ type: 'move', match, turn: m.turn, move: randomMove(m, r) });
    moves++;
  }
}

async function routedMatch() {
  const { match, tokens, owner } = await newMatch('ctl-route', { time_control: { move_ms: 30000 } });
  const other = ['t1', 't2', 't3'].find((s) => s !== owner);
  const named = (s) => `${url}?server=${s}`;
  const via = await Client.connect(named(other), { name: 'via-' + other, timeout: 20000 });
  assert.equal((await stats(via)).instance, other, `?server=${other} reaches ${other}`);
  const before = (await stats(via)).forwarded;
  const j = await via.request({ type: 'join', match, seat: 0, token: tokens[0] }, 'joined');
  /* what the compose file advertises: TESSERA_HOST (localhost) and TESSERA_PORT */
  const port = new URL(url).port;
  assert.equal(j.owner_url, `ws://localhost:${port}/?server=${owner}`, 'the owner named by the proxy\'s address');
  const routed = await Client.connect(j.owner_url.replace('//localhost:', '//127.0.0.1:'),
    { name: 'routed', timeout: 20000 });
  const r = await routed.request({ type: 'resume', resume_token: j.resume_token }, 'resumed');
  assert.equal(r.owner_url, undefined, 'resumed on the owner itself');
  assert.equal((await stats(routed)).instance, owner);
  const p1 = await Client.connect(named(owner), { name: 'p1-' + owner, timeout: 20000 });
  await p1.request({ type: 'join', match, seat: 1, token: tokens[1] }, 'joined');
  const [m0, m1] = await Promise.all([playOut(routed, match, 21), playOut(p1, match, 22)]);
  const fwd = (await stats(via)).forwarded - before;
  assert.ok(fwd <= 2, `${other} forwarded ${fwd} messages: the join, none of the ${m0 + m1} moves`);
  for (const c of [via, routed, p1])
    c.close();
  console.log(`match ${match} (owner ${owner}): joined through ${other}, followed owner_url through the proxy, ` +
    `${m0 + m1} moves played on ${owner}, ${fwd} message(s) forwarded by ${other}`);
}

/* how: 'stop' (podman stop: SIGTERM, then the server's own shutdown) or
 * 'kill' (podman kill --signal KILL: no shutdown at all) */
async function failoverMatch(how) {
  const { match, tokens, owner } = await newMatch('ctl-' + how, {
    time_control: { move_ms: 60000 },
    policies: { disconnect: 'forfeit', reconnect_grace_ms: 120000 },
  });
  const watch = await Client.connect(url, { name: 'watch-' + how, timeout: 20000 });
  await watch.request({ type: 'spectate', match }, 'spectating');
  let stopping = null;
  let stopAt = 0;
  let stoppedAt = 0;
  let firstAfter = 0;
  const onTurn = async (yt) => {
    if (!stopping && yt.turn >= 12) {
      stopAt = Date.now();
      console.log(`turn ${yt.turn}: podman ${how} ${container(owner)} (the owner)`);
      /* the stop is awaited: the seat to move waits, so the match is live on
       * the owner until it goes (a match runs ~70 turns in a second or two) */
      stopping = how === 'kill' ? pod('kill', '--signal', 'KILL', container(owner))
        : pod('stop', '-t', '20', container(owner));
      await stopping;
      stoppedAt = Date.now();
    } else if (stopping && !firstAfter && yt.turn > 12) {
      firstAfter = Date.now();
    }
  };
  const [r0, r1] = await Promise.all([
    resilientPlayer(() => url, match, 0, tokens[0], 11, { onTurn }),
    resilientPlayer(() => url, match, 1, tokens[1], 12, { onTurn }),
  ]);
  assert.ok(stopping, `the owner was ${how === 'kill' ? 'killed' : 'stopped'} mid-match`);
  await stopping;
  assert.equal(r0.over.result.reason, 'normal', JSON.stringify(r0.over.result));
  assert.deepEqual(r0.over.result, r1.over.result);
  assert.ok(r0.reconnects + r1.reconnects > 0, 'the players lost their connections to the owner and resumed');
  const state = (await pod('inspect', '--format', '{{.State.Status}}', container(owner))).trim();
  /* one survivor took it over, or (killed) the owner came back first */
  const others = ['t1', 't2', 't3'].filter((s) => s !== owner);
  const takers = [];
  for (const s of others)
    for (const e of await events(s, 'takeover'))
      if (e.from === owner && Date.parse(e.ts) >= stopAt - 1000) /* this one's, not an earlier one's */
        takers.push({ s, e });
  const row = await sql(`SELECT owner, status FROM matches WHERE id='${match}'`);
  const back = how === 'kill' && takers.length === 0 && state === 'running';
  if (back) {
    assert.deepEqual(row, [`${owner}|2`], 'finished on its owner, started again');
  } else {
    if (how === 'stop') /* a killed one may be started again after the takeover */
      assert.equal(state, 'exited', `${container(owner)} stays down`);
    assert.equal(takers.length, 1, `exactly one server took ${owner} over`);
    assert.ok(takers[0].e.matches >= 1, 'with its matches');
    assert.deepEqual(row, [`${takers[0].s}|2`], 'finished, owned by the taker');
  }
  /* every move intact */
  const v = await Client.connect(url, { name: 'final', timeout: 20000 });
  const view = await v.request({ type: 'spectate', match }, 'spectating');
  v.close();
  assert.equal(view.status, 'finished');
  await replayHistory(lib.binary(), view.rules, view.history, r0.over.scores);
  checkAgainst(view.history, r0.seen, 'player 0');
  checkAgainst(view.history, r1.seen, 'player 1');
  checkAgainst(view.history, updates(watch), 'the spectator');
  assert.ok(r0.seen.some((u) => u.turn === 11), 'the turns before the stop were heard');
  const plies = (await sql(`SELECT count(*), count(DISTINCT ply), max(ply) FROM moves WHERE match='${match}'`))[0]
    .split('|').map(Number);
  assert.equal(plies[0], plies[1], 'no ply twice');
  assert.equal(plies[2], plies[0] - 1, 'no ply missing');
  assert.ok(plies[0] >= view.history.length, 'the journal holds the history (a turn is a ply or more)');
  const takeAt = back ? NaN : Date.parse(takers[0].e.ts);
  console.log(`match ${match}: owner ${owner} ${how === 'kill' ? 'killed' : 'stopped'} at turn 12, ` +
    (back ? `started again by podman and back in charge of it ` : `taken over by ${takers[0].s} `) +
    `${back ? '' : ((takeAt - stopAt) / 1000).toFixed(1) + ' s '}after podman ${how} was asked (it returned after ` +
    `${((stoppedAt - stopAt) / 1000).toFixed(1)} s), the next turn played ` +
    `${((firstAfter - stopAt) / 1000).toFixed(1)} s after it; ${view.history.length} turns, ` +
    `${r0.reconnects + r1.reconnects} attempts to resume`);
}

(async () => {
  await threeServers();
  await plainMatch();
  await routedMatch();
  await failoverMatch('stop');
  await failoverMatch('kill');
})().then(() => process.exit(0), (e) => {
  console.error('FAIL: ' + (e.stack || e.message));
  process.exit(1);
});
