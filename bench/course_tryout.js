'use strict';
/*
 * course_tryout.js — the instructor's tryout of issue 25, scripted: a course
 * of 30 students whose bots come in every language the server runs (Python,
 * Java, JavaScript, C, C++) and behave as a class's do — random, first-legal,
 * greedy, crashing at the first turn, slow (0.3 s a move), a compile error
 * (fixed by a second upload, or not) — uploaded at random times within a
 * window, through the gates, the deadline, the freeze, the final and the
 * grades CSV; on one server (SQLite) or on a local cluster of N servers on
 * one PostgreSQL with Redis (tests/cluster/cluster.js), the students and the
 * instructor behind haproxy.
 *
 * It checks what an instructor would look at, and exits 1 when one is wrong:
 * every compile error refused with the compiler's words; every crashing bot
 * failed with a fault named; the grades CSV before the final tells
 * `qualified`, `not_qualified` (failed every gate), `refused` (every upload
 * refused: a compile error never fixed) and `no_show` apart, and
 * after it `finalist` with its place, the tiebreak that placed it
 * (`decided_by`) and a column for each tiebreak of the format. It prints one
 * JSON line per phase (wall seconds) and, on a cluster, the ladders each
 * server played (from their logs).
 *
 *   node bench/course_tryout.js BUILD/cli/tessera [--window-s 60] [--cluster 3]
 *        [--move-ms 1000] [--quiet]
 *
 * --cluster needs TESSERA_SERVICES (a folder of scripts/services.sh: ctest's
 * fixture `services` sets it). CTest: classroom_tryout and cluster_tryout,
 * both labelled slow.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const lib = require('../tests/server/lib');
const { Client, startAdmin } = lib;
const { submitBot, waitFor, csvRows } = require('../tests/classroom/course_lib');

const ROOT = path.join(__dirname, '..');
const BOTS = path.join(ROOT, 'tests', 'classroom', 'bots');
const SLOW = process.env.TESSERA_SANITIZED === '1' ? 3 : 1;

function arg(name, def) {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : def;
}
const QUIET = process.argv.includes('--quiet');
function say(obj) {
  console.log(JSON.stringify(obj));
}

/* ---- the bots, per language and behaviour ------------------------------------------------ */

/* C: the k-th object of "legal" (first, random), or a crash, or 0.3 s a move. */
function cSource(mode, cpp) {
  const head = cpp ? '#include <cstdio>\n#include <cstdlib>\n#include <cstring>\n#include <ctime>\n#include <string>\n#include <iostream>\n#include <unistd.h>\n'
    : '#define _DEFAULT_SOURCE\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <time.h>\n#include <unistd.h>\n';
  const legal = `
/* the k-th object of "legal":[...] copied into out; the number of entries */
static int legal(const char *l, int k, char *out, size_t cap)
{
    const char *p = strstr(l, "\\"legal\\":[");
    if (!p)
        return 0;
    int n = 0, depth = 0, str = 0;
    const char *start = p;
    for (p += 9; *p; p++) {
        char c = *p;
        if (str) {
            if (c == '\\\\')
                p++;
            else if (c == '"')
                str = 0;
        } else if (c == '"') {
            str = 1;
        } else if (c == '{') {
            if (depth++ == 0)
                start = p;
        } else if (c == '}') {
            if (--depth == 0) {
                size_t len = (size_t)(p - start) + 1;
                if (n == k && len < cap) {
                    memcpy(out, start, len);
                    out[len] = 0;
                }
                n++;
            }
        } else if (c == ']' && depth == 0) {
            break;
        }
    }
    return n;
}
`;
  const turn = `
        ${mode === 'crash' ? 'fprintf(stderr, "bot: no idea what to do, giving up\\n");\n        exit(3);' : ''}
        ${mode === 'slow' ? 'usleep(300000);' : ''}
        static char mv[1 << 16];
        int n = legal(LINE, 0, mv, sizeof mv);
        if (${mode === 'random' ? 'n > 1' : '0'})
            legal(LINE, rand() % n, mv, sizeof mv);
        printf("{\\"type\\":\\"move\\",\\"move\\":%s}\\n", mv);
        fflush(stdout);`;
  const broken = mode === 'compile' ? '    int unused = 0\n' : '';
  if (cpp)
    return `// bot.cpp -- a tryout bot in C++ (${mode})\n${head}${legal}
int main()
{
${broken}    srand((unsigned)time(NULL) ^ (unsigned)getpid());
    std::string line;
    while (std::getline(std::cin, line)) {
        if (line.find("\\"type\\":\\"your_turn\\"") == std::string::npos)
            continue;${turn.replace(/LINE/g, 'line.c_str()')}
    }
    return 0;
}
`;
  return `/* bot.c -- a tryout bot in C (${mode}) */\n${head}${legal}
int main(void)
{
${broken}    static char line[1 << 20];
    srand((unsigned)time(NULL) ^ (unsigned)getpid());
    while (fgets(line, sizeof line, stdin)) {
        if (!strstr(line, "\\"type\\":\\"your_turn\\""))
            continue;${turn.replace(/LINE/g, 'line')}
    }
    return 0;
}
`;
}

function javaSource(mode) {
  return `// Bot.java -- a tryout bot in Java (${mode})
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

public class Bot {
    static List<String> legal(String line) {
        List<String> out = new ArrayList<>();
        int p = line.indexOf("\\"legal\\":[") + 9, depth = 0, start = p;
        boolean str = false;
        for (int i = p; i < line.length(); i++) {
            char c = line.charAt(i);
            if (str) {
                if (c == '\\\\') i++;
                else if (c == '"') str = false;
            } else if (c == '"') str = true;
            else if (c == '{') { if (depth++ == 0) start = i; }
            else if (c == '}') { if (--depth == 0) out.add(line.substring(start, i + 1)); }
            else if (c == ']' && depth == 0) break;
        }
        return out;
    }

    public static void main(String[] args) throws Exception {
        ${mode === 'compile' ? 'int unused = 0' : ''}
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
        Random rnd = new Random();
        String line;
        while ((line = in.readLine()) != null) {
            if (!line.contains("\\"type\\":\\"your_turn\\""))
                continue;
            ${mode === 'crash' ? 'if (line.length() > 0) throw new IllegalStateException("no idea what to do");' : ''}
            ${mode === 'slow' ? 'Thread.sleep(300);' : ''}
            List<String> moves = legal(line);
            String mv = moves.get(${mode === 'random' ? 'rnd.nextInt(moves.size())' : '0'});
            System.out.println("{\\"type\\":\\"move\\",\\"move\\":" + mv + "}");
            System.out.flush();
        }
    }
}
`;
}

function jsSource(mode) {
  return `// bot.js -- a tryout bot in JavaScript (${mode})
const readline = require('readline');
${mode === 'compile' ? 'const broken = ;' : ''}
const rl = readline.createInterface({ input: process.stdin });
rl.on('line', (line) => {
  const msg = JSON.parse(line);
  if (msg.type !== 'your_turn')
    return;
  ${mode === 'crash' ? "throw new Error('no idea what to do: ' + msg.moves.length);" : ''}
  const k = ${mode === 'random' ? 'Math.floor(Math.random() * msg.legal.length)' : '0'};
  const send = () => process.stdout.write(JSON.stringify({ type: 'move', turn: msg.turn, move: msg.legal[k] }) + '\\n');
  ${mode === 'slow' ? 'setTimeout(send, 300);' : 'send();'}
});
`;
}

function pySource(mode) {
  return `#!/usr/bin/env python3
"""bot.py -- a tryout bot in Python (${mode})"""
import json
import random
import sys
import time
${mode === 'compile' ? 'def broken(:\n    pass\n' : ''}
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("type") != "your_turn":
        continue
    ${mode === 'crash' ? 'move = msg["moves"][0]' : ''}
    ${mode === 'slow' ? 'time.sleep(0.3)' : ''}
    move = ${mode === 'random' ? 'random.choice(msg["legal"])' : 'msg["legal"][0]'}
    print(json.dumps({"type": "move", "turn": msg["turn"], "move": move}), flush=True)
`;
}

/* The files of a submission: [kind, [paths]] (written under dir). */
function botFiles(dir, lang, mode, tag) {
  const d = path.join(dir, tag);
  fs.mkdirSync(d, { recursive: true });
  const w = (name, text) => {
    fs.writeFileSync(path.join(d, name), text);
    return path.join(d, name);
  };
  switch (lang) {
  case 'python':
    if (mode === 'greedy')
      return ['python', [path.join(BOTS, 'greedy.py'), path.join(BOTS, 'reversi_rules.py')]];
    return ['python', [w('bot.py', pySource(mode))]];
  case 'java': return ['java', [w('Bot.java', javaSource(mode))]];
  case 'javascript': return ['javascript', [w('bot.js', jsSource(mode))]];
  case 'c': return ['c', [w('bot.c', cSource(mode, false))]];
  case 'cpp': return ['cpp', [w('bot.cpp', cSource(mode, true))]];
  }
  throw new Error('no language ' + lang);
}

/* The class: each student's uploads in order ([lang, mode]); none: a no-show.
 * `expect`: their status in the grades before the final (after it, a
 * `qualified` one is a `finalist`). */
const CLASS = [
  { up: [['python', 'greedy']], expect: 'qualified' },
  { up: [['python', 'greedy']], expect: 'qualified' },
  { up: [['python', 'random']], expect: null },
  { up: [['python', 'first']], expect: null },
  { up: [['python', 'crash']], expect: 'not_qualified' },
  { up: [['python', 'slow']], expect: null },
  { up: [['python', 'compile'], ['python', 'random']], expect: null },
  { up: [['java', 'first']], expect: null },
  { up: [['java', 'random']], expect: null },
  { up: [['java', 'crash']], expect: 'not_qualified' },
  { up: [['java', 'slow']], expect: null },
  { up: [['java', 'compile'], ['java', 'random']], expect: null },
  { up: [['javascript', 'first']], expect: null },
  { up: [['javascript', 'random']], expect: null },
  { up: [['javascript', 'crash']], expect: 'not_qualified' },
  { up: [['javascript', 'slow']], expect: null },
  { up: [['javascript', 'compile']], expect: 'refused' },
  { up: [['c', 'first']], expect: null },
  { up: [['c', 'random']], expect: null },
  { up: [['c', 'crash']], expect: 'not_qualified' },
  { up: [['c', 'slow']], expect: null },
  { up: [['c', 'compile'], ['c', 'first']], expect: null },
  { up: [['cpp', 'first']], expect: null },
  { up: [['cpp', 'random']], expect: null },
  { up: [['cpp', 'crash']], expect: 'not_qualified' },
  { up: [['cpp', 'slow']], expect: null },
  { up: [['cpp', 'compile']], expect: 'refused' },
  { up: [['python', 'crash'], ['python', 'greedy']], expect: 'qualified' },
  { up: [], expect: 'no_show' },
  { up: [], expect: 'no_show' },
];

/* The ladder: gate 1 against random (a crash fails it, anything that plays
 * passes it most of the time), gate 2 against heuristic (few pass). */
const GATES = [{ opponent: 'random', games: 4, min_rate: 0.25 }, { opponent: 'heuristic', games: 4, min_rate: 0.5 }];

/* ---- the servers ---------------------------------------------------------------------------- */

async function oneServer() {
  const srv = await startAdmin({ tag: 'tryout' });
  return { url: srv.url, admin: srv.adminToken, servers: { one: srv }, stop: () => srv.cleanup() };
}

async function cluster(n) {
  const { startCluster, startOne, stopAll, proxy, adminToken } = require('../tests/cluster/cluster');
  const names = Array.from({ length: n }, (_, i) => `t${i + 1}`);
  const cl = await startCluster([names[0]], { tag: 'tryout' });
  for (const name of names.slice(1))
    cl.servers[name] = await startOne(name, cl.db, cl.env, {});
  /* the harness logs at debug level; its servers' logs are what we count */
  const px = await proxy(Object.values(cl.servers));
  return { url: px.url, admin: adminToken(cl), servers: cl.servers,
    stop: async () => { px.stop(); await stopAll(cl); } };
}

/* ---- the tryout --------------------------------------------------------------------------- */

async function main() {
  const window = Number(arg('--window-s', 60)) * 1000;
  const ncl = Number(arg('--cluster', 0));
  const moveMs = Number(arg('--move-ms', 1000));
  const failures = [];
  const check = (ok, what) => {
    if (!ok)
      failures.push(what);
    if (!QUIET && !ok)
      console.error('FAILED: ' + what);
  };
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tessera-tryout-'));
  const where = ncl ? await cluster(ncl) : await oneServer();
  const A = where.admin;
  try {
    const admin = await Client.connect(where.url, { name: 'instructor' });
    const t0 = Date.now();
    const { course } = await admin.request({ type: 'course_create', admin_token: A, name: 'tryout',
      game: 'reversi', move_ms: moveMs * SLOW, seed: 425, qualify: 1, final_games: 2, gates: GATES },
    'course_created', 120000 * SLOW);
    const csv = 'name,email,id\n' + CLASS.map((_, i) => {
      const id = `s${String(i + 1).padStart(2, '0')}`;
      return `Student ${i + 1},${id}@example.edu,${id}`;
    }).join('\n') + '\n';
    const added = await admin.request({ type: 'course_add_students', admin_token: A, course, csv },
      'course_students_added');
    const tokens = added.students.map((s) => s.token);

    /* the uploads, each student at a random time within the window */
    const refused = [];
    const tUp = Date.now();
    await Promise.all(CLASS.map(async (st, i) => {
      if (!st.up.length)
        return;
      await new Promise((r) => setTimeout(r, Math.random() * window));
      const c = await Client.connect(where.url, { name: `s${i + 1}` });
      for (const [k, [lang, mode]] of st.up.entries()) {
        const [kind, files] = botFiles(tmp, lang, mode, `s${i + 1}-v${k + 1}`);
        let r;
        for (;;) { /* the server builds at most so many at once: send again when it says so */
          r = await submitBot(c, tokens[i], files, true, kind, 300000 * SLOW);
          if (r.code !== 'too_many')
            break;
          await new Promise((res) => setTimeout(res, 1000));
        }
        if (mode === 'compile') {
          const why = lang === 'python' ? 'not_declared_kind' : 'compile_error';
          check(r.type === 'error' && r.reason === why && /error|Error|syntax/.test(r.message),
            `s${i + 1}: a ${lang} compile error refused with ${why} and the compiler's words: ${JSON.stringify(r).slice(0, 300)}`);
          refused.push(r.reason);
        } else {
          check(r.type === 'course_submitted', `s${i + 1}: ${lang} ${mode} accepted: ${JSON.stringify(r).slice(0, 300)}`);
        }
      }
      c.close();
    }));
    const tUploaded = Date.now();
    const view = () => admin.request({ type: 'course_view', admin_token: A, course }, 'course_view', 60000);
    const v = await waitFor(admin, { type: 'course_view', admin_token: A, course },
      (x) => x.submissions.length > 0 && x.submissions.every((s) => s.state === 'done' || s.state === 'not_judged'),
      3600 * 1000);
    const tGates = Date.now();
    const games = v.submissions.reduce((k, s) => k + s.gates.reduce((g, x) => g + x.games, 0), 0);
    say({ phase: 'gates', servers: ncl || 1, students: CLASS.length, submissions: v.submissions.length,
      refused: refused.length, games, window_s: window / 1000, uploads_s: (tUploaded - tUp) / 1000,
      first_upload_to_last_verdict_s: (tGates - tUp) / 1000,
      qualified: v.submissions.filter((s) => s.qualified).length });
    for (const s of v.submissions) {
      const st = CLASS[Number(s.student_id.slice(1)) - 1];
      const mode = st.up.filter(([, m]) => m !== 'compile')[s.version - 1]?.[1];
      if (mode === 'crash')
        check(!s.qualified && s.gates[0].faults === s.gates[0].games && /fault/.test(s.verdict),
          `${s.student_id} v${s.version} (crash): failed with its faults named: ${s.verdict.slice(0, 200)}`);
      check(s.state === 'done', `${s.student_id} v${s.version}: judged (${s.state}: ${s.verdict.slice(0, 200)})`);
    }

    /* the deadline: now; the course freezes once every ladder is through */
    await admin.request({ type: 'course_set_deadline', admin_token: A, course, deadline_ms: 0 }, 'course_deadline');
    await waitFor(admin, { type: 'course_view', admin_token: A, course }, (x) => x.course.frozen_ms > 0, 600000);
    const before = csvRows((await admin.request({ type: 'course_grades', admin_token: A, course }, 'course_grades')).csv);
    const head = before[0];
    const col = (row, name) => row[head.indexOf(name)];
    for (const name of ['status', 'final_rank', 'decided_by', 'rate', 'league_points', 'score_diff', 'swiss_points',
      'buchholz', 'round_reached', 'gates_passed', 'gates_total'])
      check(head.includes(name), `the grades CSV has a column ${name}`);
    const statusBefore = {};
    for (const row of before.slice(1).filter((r) => r.length > 1))
      statusBefore[col(row, 'student_id')] = col(row, 'status');
    CLASS.forEach((st, i) => {
      const id = `s${String(i + 1).padStart(2, '0')}`;
      if (st.expect)
        check(statusBefore[id] === st.expect, `${id} before the final: ${st.expect}, not ${statusBefore[id]}`);
      else
        check(['qualified', 'not_qualified'].includes(statusBefore[id]), `${id} before the final: judged (${statusBefore[id]})`);
    });
    for (const row of before.slice(1).filter((r) => r.length > 1 && col(r, 'status') === 'not_qualified'))
      check(col(row, 'gates_passed') === '0', `${col(row, 'student_id')}: not_qualified after failing every gate`);

    /* the final */
    const finalists = Object.values(statusBefore).filter((s) => s === 'qualified').length;
    const tF = Date.now();
    await admin.request({ type: 'course_start_final', admin_token: A, course }, 'course_final_started', 120000);
    const vf = await waitFor(admin, { type: 'course_view', admin_token: A, course },
      (x) => x.course.final_state === 'done' || x.course.final_state === 'failed', 6 * 3600 * 1000);
    const tFinal = Date.now();
    check(vf.course.final_state === 'done', `the final is done (${vf.course.final_state}: ${vf.course.final_note})`);
    say({ phase: 'final', servers: ncl || 1, finalists, games: vf.final_games.length,
      wall_s: (tFinal - tF) / 1000 });
    const after = csvRows((await admin.request({ type: 'course_grades', admin_token: A, course }, 'course_grades')).csv);
    const rows = after.slice(1).filter((r) => r.length > 1);
    const fin = rows.filter((r) => col(r, 'status') === 'finalist')
      .sort((a, b) => Number(col(a, 'final_rank')) - Number(col(b, 'final_rank')));
    check(fin.length === finalists, `every qualified student is a finalist (${fin.length} of ${finalists})`);
    for (const [k, r] of fin.entries()) {
      check(col(r, 'rate') !== '' && col(r, 'league_points') !== '' && col(r, 'score_diff') !== '',
        `${col(r, 'student_id')}: its round-robin tiebreaks filled`);
      const shared = k > 0 && col(fin[k - 1], 'final_rank') === col(r, 'final_rank');
      check(k === 0 || shared || col(r, 'decided_by') !== '', `${col(r, 'student_id')} (place ${col(r, 'final_rank')}): what placed it below the one above is named`);
    }
    for (const r of rows) {
      const was = statusBefore[col(r, 'student_id')];
      check(was === 'qualified' ? col(r, 'status') === 'finalist' : col(r, 'status') === was,
        `${col(r, 'student_id')}: ${was} before the final, ${col(r, 'status')} after`);
    }
    const byServer = {};
    for (const [name, s] of Object.entries(where.servers))
      byServer[name] = {
        ladders: ((s.previousLogs || []).concat(s.logs || [])).filter((l) => l.event === 'course_result' &&
          l.kind === 'submission' && l.course === course).length,
      };
    say({ phase: 'total', servers: ncl || 1, wall_s: (Date.now() - t0) / 1000, by_server: byServer,
      statuses: rows.reduce((m, r) => ({ ...m, [col(r, 'status')]: (m[col(r, 'status')] || 0) + 1 }), {}),
      failures });
    if (!QUIET)
      console.error(after.map((r) => r.join(',')).join('\n'));
    if (ncl)
      check(Object.values(byServer).filter((x) => x.ladders > 0).length >= 2, 'ladders played on more than one server');
    admin.close();
  } finally {
    await where.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  if (failures.length) {
    console.error(`${failures.length} check(s) failed:\n` + failures.join('\n'));
    process.exit(1);
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
