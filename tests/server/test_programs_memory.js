'use strict';
/*
 * test_programs_memory.js (label slow) — the server over 1,000 short games
 * of an external program (docs/stdio.md): the C example bot, compiled here,
 * in one seat of 3×3 Dodgem games against `random`, 16 games at a time.
 * After a warm-up of 100 games the server's resident memory, open
 * descriptors and threads are read from /proc; at the end they must be
 * where they were (memory within a quarter, plus 8 MiB for the allocator),
 * and no child of the server (a program or a zombie) may be left. It prints
 * what it measured.
 *
 * TESSERA_PROG_GAMES changes the number of games (default 1000; the default
 * test run's server_programs_memory_short plays 200, after 50 of warm-up).
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { Client, ROOT, SLOW, sleep, startAdmin, tmpDir } = require('./lib');

const GAMES = Number(process.env.TESSERA_PROG_GAMES || 1000);
const AT_ONCE = 16;
const WARMUP = Math.min(100, Math.floor(GAMES / 4));

function status(pid, field) {
  const m = fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(new RegExp(`^${field}:\\s+(\\d+)`, 'm'));
  return m ? Number(m[1]) : NaN;
}

function sample(pid) {
  return { rss_kb: status(pid, 'VmRSS'), threads: status(pid, 'Threads'), fds: fs.readdirSync(`/proc/${pid}/fd`).length };
}

/* The server's children (programs, sandbox helpers, zombies), from /proc;
 * not the sandbox's guardian (players/cgroup.c: one per server, for its
 * life, named tessera-guard). */
function children(pid) {
  const out = [];
  for (const p of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(p))
      continue;
    try {
      const st = fs.readFileSync(`/proc/${p}/stat`, 'utf8');
      const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
      const name = st.slice(st.indexOf('(') + 1, st.lastIndexOf(')'));
      if (Number(f[1]) === pid && name !== 'tessera-guard')
        out.push(`${p} (${f[0]})`);
    } catch {}
  }
  return out;
}

test(`${GAMES} short games of an external program: the server's memory, descriptors and children stay flat`, async (t) => {
  /* under AddressSanitizer freed memory waits in a quarantine (256 MiB by
   * default) before it is reused: RSS would grow by it, not by a leak */
  const asan = process.env.TESSERA_SANITIZED === '1'
    ? { ASAN_OPTIONS: [process.env.ASAN_OPTIONS, 'quarantine_size_mb=0'].filter(Boolean).join(':') } : {};
  const srv = await startAdmin({ tag: 'progmem', env: asan });
  t.after(() => srv.cleanup());
  const dir = tmpDir('progmem-bin');
  fs.chmodSync(dir, 0o755); /* programs run as nobody when the tests run as root */
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const bot = path.join(dir, 'stdio_bot');
  const cc = spawnSync('cc', ['-O2', '-o', bot, path.join(ROOT, 'docs/examples/stdio_bot.c')], { encoding: 'utf8' });
  assert.equal(cc.status, 0, `cc: ${cc.stderr}`);
  const spec = `cmd:${bot}`;
  const pid = srv.proc.pid;

  let played = 0, warm = null;
  const results = {};
  const worker = async (k) => {
    const c = await Client.connect(srv.url, { name: `host${k}` });
    while (played < GAMES) {
      const n = played++;
      const seats = n % 2 ? [{ bot: 'random' }, { bot: spec }] : [{ bot: spec }, { bot: 'random' }];
      const m = await c.request({ type: 'create_match', game: 'dodgem', rules: { size: 3 },
        admin_token: srv.adminToken, seats, time_control: { move_ms: 10000 * SLOW } }, 'match_created');
      const view = await c.request({ type: 'spectate', match: m.match }, 'spectating');
      const over = view.result ? view : await c.expect((x) => x.type === 'game_over' && x.match === m.match, 60000 * SLOW);
      results[over.result.reason] = (results[over.result.reason] || 0) + 1;
      c.pending.length = 0; /* the updates of the game just watched */
      await c.request({ type: 'unspectate', match: m.match }).catch(() => {});
      if (n + 1 === WARMUP)
        warm = sample(pid);
    }
    c.close();
  };
  const t0 = Date.now();
  await Promise.all(Array.from({ length: AT_ONCE }, (_, k) => worker(k)));
  const secs = (Date.now() - t0) / 1000;
  /* let the last programs be reaped */
  let left = children(pid);
  for (const end = Date.now() + 10000 * SLOW; left.length && Date.now() < end; left = children(pid))
    await sleep(100);
  await sleep(500);
  const end = sample(pid);
  console.log(`# ${GAMES} games in ${secs.toFixed(1)} s; results ${JSON.stringify(results)}; ` +
    `after ${WARMUP}: ${JSON.stringify(warm)}; at the end: ${JSON.stringify(end)}`);
  assert.equal(srv.events('program_started').length, GAMES, 'a program started for every game');
  assert.deepEqual(left, [], 'no program, sandbox helper or zombie left');
  assert.equal(results.normal, GAMES, `every game ends by the rules: ${JSON.stringify(results)}`);
  assert.ok(end.rss_kb <= warm.rss_kb * 1.25 + 8192, `RSS ${warm.rss_kb} -> ${end.rss_kb} kB`);
  assert.ok(end.fds <= warm.fds + 4, `descriptors ${warm.fds} -> ${end.fds}`);
  assert.ok(end.threads <= warm.threads + 2, `threads ${warm.threads} -> ${end.threads}`);
});
