'use strict';
/*
 * test_course_remote.js — remote-bot submissions (docs/classroom.md, "Remote
 * bots"): a student submits kind "remote", gets a registered name and a
 * secret, runs a real `tessera bridge --register` with the example bot
 * (docs/examples/stdio_bot.py, random moves), and its gates are played as
 * server matches against that connection: the first gate (random, any
 * score) passes, the second (mcts:sims=1000, must win every game) fails.
 * A remote submission whose bot never connects waits ("waiting for your
 * bot"), then fails once the course's remote_wait_ms is over. The final
 * seats the frozen remote bots: one connected, one whose bridge was
 * stopped before the final (it loses its games on time, or by "disconnect"), and a
 * Python program in the sandbox.
 *
 * A second course's bots register but never move (their games are lost on
 * time), or leave at their first game (lost on time or by disconnect): the
 * gate's verdict names the fault. Last, three slow Python programs show
 * that two submissions (courses.gate_jobs = 2) are in their gates at once,
 * and never three.
 *
 * Reversi with two games per gate and per pair keeps it to a minute or two.
 * Verdicts are asserted, not wall time, except the wait's own bound.
 *
 * Usage: node test_course_remote.js PATH/TO/tessera  (CTest: classroom_remote)
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { Client, startAdmin, binary, ROOT } = require('../server/lib');
const { submitBot, waitFor, csvRows } = require('./course_lib');

const bin = binary();
const PY = path.join(ROOT, 'docs', 'examples', 'stdio_bot.py');
const SLOW = process.env.TESSERA_SANITIZED === '1' ? 3 : 1;

/* Run the example bot behind `tessera bridge --register`: a copy of it in dir (the CLI tests
 * look for processes of docs/examples/stdio_bot.py left behind by theirs, and run meanwhile). */
function bridge(url, remote, log, dir) {
  const bot = path.join(dir, 'stdio_bot.py');
  if (!fs.existsSync(bot))
    fs.copyFileSync(PY, bot);
  const p = spawn(bin, ['bridge', '--url', url, '--register', remote.name, '--secret', remote.secret,
    '--game', remote.game, '--quiet', '--', 'python3', bot], { stdio: ['ignore', 'pipe', 'pipe'] });
  p.stdout.on('data', (d) => log.push(String(d)));
  p.stderr.on('data', (d) => log.push(String(d)));
  p.on('error', (e) => log.push(`bridge ${remote.name}: ${e.message}\n`));
  p.exited = new Promise((r) => p.on('exit', (code, sig) => {
    log.push(`bridge ${remote.name} exited: ${code} ${sig}\n`);
    r();
  }));
  return p;
}

test('remote bots: gates as server matches, waiting, the final', { timeout: 600000 }, async (t) => {
  const srv = await startAdmin({ tag: 'course-remote' });
  const procs = [];
  const log = [];
  t.after(async () => {
    for (const p of procs)
      if (p.exitCode === null) { p.kill('SIGKILL'); await p.exited; }
    await srv.cleanup();
  });
  const admin = await Client.connect(srv.url, { name: 'instructor' });
  assert.ok(admin.welcome.capabilities.includes('courses'), JSON.stringify(admin.welcome));
  const A = srv.adminToken;
  const WAIT = 20000 * SLOW; /* s1 and s4 connect well within it; s3 never does */
  /* the database is private from its opening (journal/sqlite.c), whatever the umask */
  for (const f of [srv.db, srv.db + '-wal', srv.db + '-shm'])
    if (fs.existsSync(f))
      assert.equal(fs.statSync(f).mode & 0o777, 0o600, f);

  const created = await admin.request({
    type: 'course_create', admin_token: A, name: 'Remote Reversi', game: 'reversi',
    move_ms: 3000 * SLOW, seed: 11, qualify: 1, final_games: 2, remote_wait_ms: WAIT,
    gates: [{ opponent: 'random', games: 2, min_rate: 0 },
      { opponent: 'mcts:sims=1000', games: 2, min_rate: 1 }],
  }, 'course_created');
  const course = created.course;
  assert.equal(created.remote_wait_ms, WAIT);
  const added = await admin.request({ type: 'course_add_students', admin_token: A, course,
    csv: 'name,email,id\nAda,ada@x.edu,s1\nAlan,alan@x.edu,s2\nGrace,grace@x.edu,s3\nEd,ed@x.edu,s4\n' },
  'course_students_added');
  const tok = Object.fromEntries(added.students.map((s) => [s.student_id, s.token]));
  const st = {};
  for (const sid of ['s1', 's2', 's3', 's4'])
    st[sid] = await Client.connect(srv.url, { name: sid });

  /* a remote submission takes no files */
  const bad = await st.s1.request({ type: 'course_submit', token: tok.s1, kind: 'remote',
    files: [{ name: 'bot.py', data: 'cHJpbnQoKQ==' }] });
  assert.equal(bad.type, 'error');
  assert.equal(bad.reason, 'bad_upload');

  /* s1 and s4 submit remote bots and run them; s3 submits one and never runs it */
  const sub = {};
  for (const sid of ['s1', 's3', 's4']) {
    sub[sid] = await st[sid].request({ type: 'course_submit', token: tok[sid], kind: 'remote' },
      'course_submitted');
    assert.equal(sub[sid].kind, 'remote');
    assert.equal(sub[sid].version, 1);
    assert.match(sub[sid].remote.name, /^course\d+-s\d+-v1-[a-z0-9]{6}$/);
    assert.equal(sub[sid].remote.secret.length, 26);
    assert.equal(sub[sid].remote.game, 'reversi');
    /* s1 and s4 start their bots at once, as told */
    if (sid !== 's3')
      procs.push(bridge(srv.url, sub[sid].remote, log, srv.dir));
    if (sid === 's3') {
      /* waited for, not failed: "waiting for your bot" (written before the reply is sent) */
      const w = await st.s3.request({ type: 'course_view', token: tok.s3 }, 'course_view');
      assert.equal(w.submissions[0].state, 'waiting', JSON.stringify(w.submissions[0]));
      assert.match(w.submissions[0].verdict, /gate 1: waiting for your bot: course\d+-s\d+-v1-\w+ is not connected; it fails if it has not connected by /);
      assert.equal(w.submissions[0].gates.length, 0);
    }
  }
  /* the secret is given once: a wrong one is refused by the registration */
  const thief = await Client.connect(srv.url, { name: 'thief' });
  const stolen = await thief.request({ type: 'register', name: sub.s3.remote.name,
    secret: 'not-the-secret', capacity: 1 });
  assert.equal(stolen.type, 'error');
  assert.equal(stolen.code, 'bad_token');

  /* s2: a Python program, gated by the local runner as before */
  await submitBot(st.s2, tok.s2, [PY]);

  /* s1 and s4: gate 1 passed, gate 2 failed; the games are server matches */
  const view = await waitFor(admin, { type: 'course_view', admin_token: A, course },
    (v) => v.submissions.length === 4 && v.submissions.every((s) => s.state === 'done'),
    240000 * SLOW);
  const by = Object.fromEntries(view.submissions.map((s) => [s.student_id, s]));
  for (const sid of ['s1', 's4']) {
    const s = by[sid];
    assert.equal(s.kind, 'remote');
    assert.equal(s.gates.length, 2, sid + ': ' + s.verdict + '\n' + log.join(''));
    assert.equal(s.gates[0].passed, true, s.gates[0].verdict);
    assert.equal(s.gates[0].game_ids.length, 2);
    assert.equal(s.gates[1].passed, false, s.gates[1].verdict);
    assert.equal(s.gates_passed, 1);
    assert.ok(s.qualified, s.verdict);
    assert.match(s.verdict, /^qualified: 1 of 2 gates/);
  }
  /* s3: its wait ran out: not qualified, the verdict says why */
  assert.equal(by.s3.gates_passed, 0);
  assert.ok(!by.s3.qualified);
  assert.match(by.s3.verdict, /not qualified: 0 of 2 gates; gate 1 not played: your bot .* was not connected by/);
  assert.ok(by.s2.qualified, by.s2.verdict);

  /* a remote game as its student sees it: no stderr (N/A), time used, record */
  const g = await st.s1.request({ type: 'course_game', token: tok.s1,
    game: by.s1.gates[0].game_ids[0] }, 'course_game');
  assert.ok(g.your_seat === 0 || g.your_seat === 1);
  assert.equal(g.stderr[g.your_seat], null, 'a remote bot\'s stderr stays on its machine');
  assert.ok(g.stderr_note && /remote/.test(g.stderr_note), g.stderr_note);
  assert.ok(g.moves[g.your_seat] > 0);
  assert.ok(g.think_ms[g.your_seat] >= 0);
  assert.ok(g.record && g.record.turns.length > 0);
  /* another student cannot read it */
  const peek = await st.s2.request({ type: 'course_game', token: tok.s2, game: g.game });
  assert.equal(peek.reason, 'not_yours');

  /* s4's bridge stops before the final: it forfeits its final games */
  const s4 = procs[1];
  s4.kill('SIGKILL');
  await s4.exited;

  const dl = await admin.request({ type: 'course_set_deadline', admin_token: A, course,
    deadline_ms: 0 }, 'course_deadline');
  assert.ok(dl.frozen_ms > 0);
  const fin = await admin.request({ type: 'course_start_final', admin_token: A, course },
    'course_final_started');
  assert.equal(fin.finalists, 3);
  const done = await waitFor(admin, { type: 'course_view', admin_token: A, course },
    (v) => v.course.final_state !== 'running', 300000 * SLOW);
  assert.equal(done.course.final_state, 'done', done.course.final_note);
  assert.equal(done.final_games.length, 6);
  const place = Object.fromEntries(done.final.map((r) => [r.student_id, r]));
  assert.equal(place.s4.faults, 4, JSON.stringify(place.s4));
  assert.equal(place.s4.points, 0);
  assert.equal(place.s4.place, 3);
  for (const fg of done.final_games.filter((x) => x.names.includes('s4')))
    /* its clock runs out before the reconnect grace (whichever comes first) */
    assert.ok(['timeout', 'disconnect'].includes(fg.end), JSON.stringify(fg));
  /* the connected remote bot played its final games to the end */
  assert.ok(done.final_games.some((x) => x.names.includes('s1') && x.names.includes('s2')
    && x.end === 'normal'));

  const grades = await admin.request({ type: 'course_grades', admin_token: A, course },
    'course_grades');
  const rows = csvRows(grades.csv);
  const byId = Object.fromEntries(rows.slice(1).map((r) => [r[0], r]));
  const rank = rows[0].indexOf('final_rank');
  assert.equal(byId.s4[rank], '3');
  assert.equal(byId.s3[rank], '');
  assert.ok(['1', '2'].includes(byId.s1[rank]));
});

test('a remote bot that never moves, or leaves, or whose gate is cancelled: the verdict says so', { timeout: 300000 }, async (t) => {
  const srv = await startAdmin({ tag: 'course-remote-faults' });
  t.after(() => srv.cleanup());
  const admin = await Client.connect(srv.url, { name: 'instructor' });
  const A = srv.adminToken;
  const { course } = await admin.request({
    type: 'course_create', admin_token: A, name: 'Faults', game: 'reversi', move_ms: 1000 * SLOW,
    seed: 5, gates: [{ opponent: 'random', games: 2, min_rate: 0 }],
  }, 'course_created');
  const added = await admin.request({ type: 'course_add_students', admin_token: A, course,
    csv: 'name,email,id\nSilent,s@x.edu,t1\nLeaver,l@x.edu,t2\nCancelled,c@x.edu,t3\n' },
  'course_students_added');
  const tok = Object.fromEntries(added.students.map((s) => [s.student_id, s.token]));
  const bots = {};
  const subs = {};
  for (const sid of ['t1', 't2', 't3']) {
    const c = await Client.connect(srv.url, { name: sid });
    const r = await c.request({ type: 'course_submit', token: tok[sid], kind: 'remote' }, 'course_submitted');
    subs[sid] = r.submission;
    /* the bot: registers with the name and secret given, then never moves */
    const bot = await Client.connect(srv.url, { name: sid + '-bot' });
    await bot.request({ type: 'register', name: r.remote.name, secret: r.remote.secret, capacity: 1 },
      'registered');
    bots[sid] = bot;
  }
  /* t2's bot leaves as its first game starts */
  await bots.t2.expect('joined', 20000 * SLOW);
  bots.t2.ws.terminate();
  /* the admin cancels t3's gate (a server tournament like any other): the gate fails, saying so */
  const label = `course ${course}: submission ${subs.t3}, gate 1`;
  const list = await waitFor(admin, { type: 'list_tournaments' },
    (x) => x.tournaments.some((y) => y.label === label), 20000 * SLOW);
  const tid = list.tournaments.find((y) => y.label === label).tournament;
  await admin.request({ type: 'cancel_tournament', admin_token: A, tournament: tid }, 'tournament_state');
  const v = await waitFor(admin, { type: 'course_view', admin_token: A, course },
    (x) => x.submissions.length === 3 && x.submissions.every((s) => s.state === 'done'), 120000 * SLOW);
  const by = Object.fromEntries(v.submissions.map((s) => [s.student_id, s]));
  const g1 = by.t1.gates[0];
  assert.equal(g1.faults, 2, JSON.stringify(g1));
  assert.equal(g1.points, 0);
  assert.match(g1.verdict, /2 games lost by a fault, first: P[12] \(seat [01]\): timeout: seat [01] did not move in time/);
  const g2 = by.t2.gates[0];
  assert.equal(g2.faults, 2, JSON.stringify(g2));
  assert.match(g2.verdict, /lost by a fault, first: P[12] \(seat [01]\): (timeout|disconnect)/);
  assert.match(by.t3.verdict, /not qualified: 0 of 1 gates; gate 1 could not be played: its server tournament \d+ was cancelled/);
  assert.equal(by.t3.gates.length, 0);
  /* the games say it too, to their student */
  const c1 = await Client.connect(srv.url, { name: 't1-view' });
  const game = await c1.request({ type: 'course_game', token: tok.t1, game: g1.game_ids[0] }, 'course_game');
  assert.equal(game.culprit, game.your_seat);
  assert.equal(game.end, 'timeout');
  bots.t1.ws.terminate();
  bots.t3.ws.terminate();
});

test('several submissions are in their gates at once, at most courses.gate_jobs', { timeout: 300000 }, async (t) => {
  const srv = await startAdmin({ tag: 'course-jobs', args: ['--set', 'courses.gate_jobs=2'] });
  t.after(() => srv.cleanup());
  const admin = await Client.connect(srv.url, { name: 'instructor' });
  const A = srv.adminToken;
  const { course } = await admin.request({
    type: 'course_create', admin_token: A, name: 'Queue', game: 'reversi', move_ms: 5000 * SLOW,
    seed: 7, gates: [{ opponent: 'random', games: 2, min_rate: 0 }],
  }, 'course_created');
  const added = await admin.request({ type: 'course_add_students', admin_token: A, course,
    csv: 'name,email,id\nA,a@x.edu,u1\nB,b@x.edu,u2\nC,c@x.edu,u3\n' }, 'course_students_added');
  const slow = path.join(__dirname, 'bots', 'slow.py');
  /* all three at once: one after the other, on a loaded machine (python3's
   * check of each upload taking seconds), the first could finish its gate
   * before the third is even queued */
  const clients = await Promise.all(added.students.map((s) => Client.connect(srv.url, { name: s.student_id })));
  await Promise.all(added.students.map((s, i) => submitBot(clients[i], s.token, [slow])));
  let most = 0;
  let both = null;
  const v = await waitFor(admin, { type: 'course_view', admin_token: A, course }, (x) => {
    const running = x.submissions.filter((s) => s.state === 'running').length;
    most = Math.max(most, running);
    if (running === 2 && !both)
      both = x.submissions.map((s) => s.state);
    return x.submissions.every((s) => s.state === 'done');
  }, 120000 * SLOW);
  assert.deepEqual(both && both.slice().sort(), ['queued', 'running', 'running'],
    'two in their gates while the third waits: ' + JSON.stringify(both));
  assert.equal(most, 2, 'never more than courses.gate_jobs at once');
  for (const s of v.submissions)
    assert.ok(s.qualified, s.verdict);
});

test('a server stopped during a remote gate plays the gate again after its restart', { timeout: 300000 }, async (t) => {
  const srv = await startAdmin({ tag: 'course-remote-restart' });
  t.after(() => srv.cleanup());
  let admin = await Client.connect(srv.url, { name: 'instructor' });
  const A = srv.adminToken;
  const { course } = await admin.request({
    type: 'course_create', admin_token: A, name: 'Restart', game: 'reversi', move_ms: 1000 * SLOW,
    seed: 9, gates: [{ opponent: 'random', games: 2, min_rate: 0 }],
  }, 'course_created');
  const added = await admin.request({ type: 'course_add_students', admin_token: A, course,
    csv: 'name,email,id\nSilent,s@x.edu,r1\n' }, 'course_students_added');
  const tok = added.students[0].token;
  const c = await Client.connect(srv.url, { name: 'r1' });
  const sub = await c.request({ type: 'course_submit', token: tok, kind: 'remote' }, 'course_submitted');
  /* a bot that registers and never moves: each game lasts until its clock runs out */
  let bot = await Client.connect(srv.url, { name: 'r1-bot' });
  await bot.request({ type: 'register', name: sub.remote.name, secret: sub.remote.secret, capacity: 1 },
    'registered');
  await waitFor(admin, { type: 'course_view', admin_token: A, course },
    (x) => x.submissions[0].state === 'running', 20000 * SLOW);
  const before = (await admin.request({ type: 'list_tournaments' }, 'tournaments')).tournaments
    .filter((y) => y.label.startsWith(`course ${course}:`));
  assert.equal(before.length, 1);

  await srv.stop();
  await srv.restart();
  admin = await Client.connect(srv.url, { name: 'instructor2' });
  bot = await Client.connect(srv.url, { name: 'r1-bot2' });
  await bot.request({ type: 'register', name: sub.remote.name, secret: sub.remote.secret, capacity: 1 },
    'registered');
  const v = await waitFor(admin, { type: 'course_view', admin_token: A, course },
    (x) => x.submissions[0].state === 'done', 120000 * SLOW);
  const s = v.submissions[0];
  assert.equal(s.gates.length, 1, s.verdict);
  assert.equal(s.gates[0].games, 2, 'the gate played again from its start, nothing counted twice');
  assert.equal(s.gates[0].game_ids.length, 2);
  assert.equal(s.gates[0].faults, 2);
  const after = (await admin.request({ type: 'list_tournaments' }, 'tournaments')).tournaments
    .filter((y) => y.label.startsWith(`course ${course}:`));
  assert.equal(after.length, 2, JSON.stringify(after));
  assert.equal(after.find((y) => y.tournament === before[0].tournament).state, 'cancelled');
  bot.ws.terminate();
});
