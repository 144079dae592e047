'use strict';
/*
 * course_throughput.js — the wall time of a class on one server (issue 25,
 * "minutes, not hours"; the figures are in docs/classroom.md):
 *
 *   gates   N students (default 30) submit at once — a fifth each of the
 *           classroom test bots first.py, greedy.py, weak.py, broken.py and
 *           minimax.py (two files) — into a course with the default ladder
 *           (random 20 games >= 80%, heuristic 20 >= 50%, mcts:sims=400 20 >=
 *           50%) at 1000 ms a move: the time from the first upload to the
 *           last ladder done, and the games played.
 *   final   the same class, every submission qualified (qualify 0, one
 *           two-game gate), closed, and a round-robin of the N at 2 games a
 *           pair and 200 ms a move: the time from course_start_final to done.
 *
 * Usage: node bench/course_throughput.js BUILD/cli/tessera [--students N]
 *            [--only gates|final] [--pass-all] [--set courses.gate_jobs=J]
 *            [--cluster N]
 * (--pass-all: every gate's min_rate 0, so that every submission plays the
 * ladder's 60 games. --cluster N: N servers on one PostgreSQL with Redis,
 * behind haproxy (tests/cluster/cluster.js; TESSERA_SERVICES names a folder
 * of scripts/services.sh), every server claiming ladders and final pairs.)
 * Prints one JSON line per part (wall seconds, games, the server's pool, and
 * on a cluster what each server played, from its log).
 */
const path = require('node:path');
const fs = require('node:fs');
const { Client, startAdmin } = require('../tests/server/lib');
const { submitBot, waitFor } = require('../tests/classroom/course_lib');

const BOTS = path.join(__dirname, '..', 'tests', 'classroom', 'bots');
const MIX = [['first.py'], ['greedy.py'], ['weak.py'], ['broken.py'], ['minimax.py', 'reversi_rules.py']];
const LADDER = [{ opponent: 'random', games: 20, min_rate: 0.8 },
  { opponent: 'heuristic', games: 20, min_rate: 0.5 },
  { opponent: 'mcts:sims=400', games: 20, min_rate: 0.5 }];

function arg(name, def) {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : def;
}

async function classOf(admin, A, n, settings) {
  const c = await admin.request({ type: 'course_create', admin_token: A, name: 'bench', game: 'reversi',
    seed: 25, ...settings }, 'course_created', 600000);
  const csv = 'name,id\n' + Array.from({ length: n }, (_, i) => `Student ${i + 1},s${i + 1}`).join('\n') + '\n';
  const added = await admin.request({ type: 'course_add_students', admin_token: A, course: c.course, csv },
    'course_students_added');
  return { course: c.course, tokens: added.students.map((s) => s.token) };
}

/* One server (SQLite), or a cluster of n behind haproxy: {url, adminToken, servers, stop}. */
async function serversOf(bin, n, set) {
  const args = set ? ['--set', set] : [];
  if (!n) {
    const srv = await startAdmin({ bin, tag: 'course-bench', args });
    return { url: srv.url, adminToken: srv.adminToken, servers: { one: srv },
      stop: async () => { await srv.stop(); srv.cleanup?.(); } };
  }
  const { startCluster, startOne, stopAll, proxy, adminToken } = require('../tests/cluster/cluster');
  const names = Array.from({ length: n }, (_, i) => `t${i + 1}`);
  const cl = await startCluster([names[0]], { tag: 'course-bench', args });
  for (const name of names.slice(1))
    cl.servers[name] = await startOne(name, cl.db, cl.env, { args });
  const px = await proxy(Object.values(cl.servers));
  return { url: px.url, adminToken: adminToken(cl), servers: cl.servers,
    stop: async () => { px.stop(); await stopAll(cl); } };
}

/* What each server played of a course, from its log; on a cluster (whose
 * servers log their claims) also the median wall time of a ladder and of a
 * final's pair from its claim to its result. */
function byServer(where, course) {
  const out = {};
  const ladder = [], pair = [];
  const median = (a) => (a.length ? a.sort((x, y) => x - y)[a.length >> 1] / 1000 : null);
  for (const [name, s] of Object.entries(where.servers)) {
    const logs = (s.previousLogs || []).concat(s.logs || []).filter((l) => l.course === course);
    const at = (l) => Date.parse(l.ts);
    for (const r of logs.filter((l) => l.event === 'course_result' && l.kind === 'submission')) {
      const c = logs.filter((l) => l.event === 'course_claim' && l.submission === r.submission).pop();
      if (c)
        ladder.push(at(r) - at(c));
    }
    for (const r of logs.filter((l) => l.event === 'course_result' && (l.kind === 'pair' || l.kind === 'final'))) {
      const c = logs.filter((l) => l.event === 'course_claim_pair' && l.pairno === r.gate).pop();
      if (c)
        pair.push(at(r) - at(c));
    }
    out[name] = { ladders: logs.filter((l) => l.event === 'course_result' && l.kind === 'submission').length,
      pairs: logs.filter((l) => l.event === 'course_result' && (l.kind === 'pair' || l.kind === 'final')).length };
  }
  out.median_ladder_s = median(ladder);
  out.median_pair_s = median(pair);
  return out;
}

async function submitAll(where, tokens) {
  const t0 = Date.now();
  await Promise.all(tokens.map(async (tok, i) => {
    const c = await Client.connect(where.url, { name: `s${i + 1}` });
    const files = MIX[i % MIX.length].map((f) => path.join(BOTS, f));
    /* the server checks at most 8 uploads at once: send again when it says so */
    for (;;) {
      const r = await submitBot(c, tok, files, true, 'python', 120000);
      if (r.type === 'course_submitted')
        break;
      if (r.code !== 'too_many')
        throw new Error(JSON.stringify(r));
      await new Promise((res) => setTimeout(res, 200));
    }
    c.close();
  }));
  return t0;
}

function pool(srv) {
  const line = srv.logs.find((l) => l.event === 'course_pool');
  return line ? { cores: line.cores, gate_jobs: line.gate_jobs, final_games_at_once: line.final_games_at_once } : null;
}

async function main() {
  const bin = path.resolve(process.argv[2] || 'build/cli/tessera');
  const n = Number(arg('--students', 30));
  const only = arg('--only', '');
  const set = arg('--set', '');
  const ncl = Number(arg('--cluster', 0));
  const where = await serversOf(bin, ncl, set);
  const srv = Object.values(where.servers)[0];
  try {
    const A = where.adminToken; /* the students and the instructor: through the proxy on a cluster */
    const admin = await Client.connect(where.url, { name: 'instructor' });
    const done = (v) => v.submissions.length === n && v.submissions.every((s) => s.state === 'done');
    if (only !== 'final') {
      /* --pass-all: the default ladder's games with min_rate 0, so that every submission plays
       * all 60 (the worst case; with the real thresholds a ladder stops at its first failed gate) */
      const gates = process.argv.includes('--pass-all') ? LADDER.map((g) => ({ ...g, min_rate: 0 })) : LADDER;
      const { course, tokens } = await classOf(admin, A, n, { move_ms: 1000, gates, qualify: 1 });
      const t0 = await submitAll(where, tokens);
      const v = await waitFor(admin, { type: 'course_view', admin_token: A, course }, done, 6 * 3600 * 1000);
      const games = v.submissions.reduce((k, s) => k + s.gates.reduce((g, x) => g + x.games, 0), 0);
      console.log(JSON.stringify({ part: 'gates', students: n, wall_s: (Date.now() - t0) / 1000, games,
        faults: v.submissions.reduce((k, s) => k + s.gates.reduce((g, x) => g + x.faults, 0), 0),
        qualified: v.submissions.filter((s) => s.qualified).length, pool: pool(srv), servers: ncl || 1,
        by_server: byServer(where, course) }));
    }
    if (only !== 'gates') {
      const { course, tokens } = await classOf(admin, A, n, { move_ms: 200, qualify: 0, final_games: 2,
        gates: [{ opponent: 'random', games: 2, min_rate: 0 }] });
      await submitAll(where, tokens);
      await waitFor(admin, { type: 'course_view', admin_token: A, course }, done, 3600 * 1000);
      await admin.request({ type: 'course_set_deadline', admin_token: A, course, deadline_ms: 0 }, 'course_deadline');
      await waitFor(admin, { type: 'course_view', admin_token: A, course }, (v) => v.course.frozen_ms > 0, 600000);
      const t0 = Date.now();
      await admin.request({ type: 'course_start_final', admin_token: A, course }, 'course_final_started');
      const v = await waitFor(admin, { type: 'course_view', admin_token: A, course },
        (x) => x.course.final_state === 'done' || x.course.final_state === 'failed', 6 * 3600 * 1000);
      console.log(JSON.stringify({ part: 'final', finalists: v.final.length, wall_s: (Date.now() - t0) / 1000,
        games: v.final_games.length, state: v.course.final_state, pool: pool(srv), servers: ncl || 1,
        by_server: byServer(where, course) }));
    }
    admin.close();
  } finally {
    await where.stop();
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
