'use strict';
/*
 * test_new_games.js — Dodgem and Pentago-Twist on the server, with nothing
 * game-specific in the server: `list_games` offers them with their rules;
 * create_match with rules; a full match of two in-process random bots ends
 * normally and replays to the same scores, also as a record; a remote
 * client plays a whole match by echoing `legal` entries, after a bad move
 * (bad_move) and an illegal one (illegal_move) were refused.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const { Server, Client, SLOW, join, playUntilOver, rng, isError } = require('./lib');

async function create(c, game, seats, extra = {}) {
  const r = await c.request({ type: 'create_match', game, seats, ...extra });
  assert.equal(r.type, 'match_created', JSON.stringify(r));
  return { match: r.match, tokens: Object.fromEntries(r.seats.map((s) => [s.seat, s.token])) };
}

async function waitFinished(c, match) {
  for (let i = 0; i < 400; i++) {
    const listed = await c.request({ type: 'list_matches', status: 'finished' }, 'matches');
    const summary = listed.matches.find((x) => x.match === match);
    if (summary)
      return summary;
    await new Promise((r) => setTimeout(r, 50 * SLOW));
  }
  throw new Error('match ' + match + ' did not finish');
}

test('list_games offers dodgem and pentago-twist with their rules', async (t) => {
  const srv = await Server.start({ tag: 'newgames-list' });
  t.after(() => srv.cleanup());
  const c = await Client.connect(srv.url, { name: 'lister' });
  const g = await c.request({ type: 'list_games' }, 'games');
  const dodgem = g.games.find((x) => x.name === 'dodgem');
  const pentago = g.games.find((x) => x.name === 'pentago-twist');
  assert.ok(dodgem && pentago, JSON.stringify(g.games.map((x) => x.name)));
  assert.equal(dodgem.title, 'Dodgem');
  assert.deepEqual(dodgem.rules.map((r) => [r.name, r.default, r.min, r.max]),
    [['size', 5, 3, 5], ['max_plies', 100, 1, 1000]]);
  assert.equal(pentago.title, 'Pentago-Twist');
  assert.deepEqual(pentago.rules, []);
  for (const x of [dodgem, pentago]) {
    assert.equal(x.min_players, 2);
    assert.equal(x.max_players, 2);
    assert.equal(x.chance, false);
  }
  /* rules are checked at creation */
  const bad = await c.request({ id: 'b', type: 'create_match', game: 'dodgem', rules: { size: 7 },
    seats: [{ bot: 'random' }, { bot: 'random' }] });
  assert.ok(isError(bad, 'bad_rule', 'b'), JSON.stringify(bad));
  const bad2 = await c.request({ id: 'p', type: 'create_match', game: 'pentago-twist',
    seats: [{ bot: 'random' }, { bot: 'random' }, { bot: 'random' }] });
  assert.ok(isError(bad2, 'bad_players', 'p'), JSON.stringify(bad2));
});

for (const [game, rules, pieces] of [
  ['dodgem', { players: 2, size: 4, max_plies: 60 }, /^[BW.]{4}$/],
  ['pentago-twist', { players: 2 }, /^[WB.]{6}$/],
]) {
  test(`${game}: a bot match ends normally and replays`, async (t) => {
    const srv = await Server.start({ tag: 'newgames-' + game });
    t.after(() => srv.cleanup());
    const c = await Client.connect(srv.url, { name: 'watcher' });
    const { match } = await create(c, game, [{ bot: 'random:seed=5' }, { bot: 'random:seed=6' }], { rules });
    const summary = await waitFinished(c, match);
    assert.equal(summary.result.reason, 'normal');

    const rep = await c.request({ type: 'replay', match }, 'replayed', 10000 * SLOW);
    assert.equal(rep.finished, true);
    assert.deepEqual(rep.rules, rules);
    assert.equal(rep.turns.length, summary.turn);
    for (const row of rep.initial.board)
      assert.match(row, pieces);
    const last = rep.turns[rep.turns.length - 1];
    assert.deepEqual(last.scores, summary.scores);
    assert.equal(last.state.to_move, null, 'the final state names no one to move');
    assert.deepEqual(last.state.scores, summary.scores);
    /* a sole winner has 1 point; a draw (Dodgem's ply cap, a Pentago double five or full board) 0-0 */
    const total = summary.scores[0] + summary.scores[1];
    assert.ok(total === 1 || total === 0, JSON.stringify(summary.scores));
    assert.deepEqual(rep.result.winners, total ? [summary.scores.indexOf(1)] : [0, 1]);

    /* the turns sent back as a record replay to the same end */
    const record = { format: 'tessera-record', version: 1, game, rules: rep.rules,
      turns: rep.turns.map((tu) => tu.record) };
    const again = await c.request({ type: 'replay', record }, 'replayed', 10000 * SLOW);
    assert.deepEqual(again.turns.map((tu) => tu.scores), rep.turns.map((tu) => tu.scores));
  });
}

const samples = {
  dodgem: {
    bad: [{ car: [0, 1], dir: 'E' }, { x: 0, y: 1, dir: 'east' }, { x: 9, y: 1, dir: 'E' }],
    illegal: (yt) => ({ x: 0, y: 0, dir: yt.seat === 0 ? 'W' : 'N' }), /* backwards (or no car) */
  },
  'pentago-twist': {
    bad: [{ x: 0, y: 0, quadrant: 0 }, { x: 0, y: 0, quadrant: 5, twist: 'rotate' },
      { x: 0, y: 0, quadrant: 0, twist: 'spin' }],
    illegal: (yt) => {
      /* a taken cell, or (on the first move) a cell taken by nobody yet is fine: use any piece */
      for (let y = 0; y < 6; y++)
        for (let x = 0; x < 6; x++)
          if (yt.state.board[y][x] !== '.')
            return { x, y, quadrant: 0, twist: 'rotate' };
      return null;
    },
  },
};

for (const game of ['dodgem', 'pentago-twist']) {
  test(`${game}: a remote client plays a whole match; bad and illegal moves are refused`, async (t) => {
    const srv = await Server.start({ tag: 'newgames-remote-' + game });
    t.after(() => srv.cleanup());
    const c = await Client.connect(srv.url, { name: 'player' });
    const { match, tokens } = await create(c, game, [{ bot: 'random:seed=9' }, { open: true, name: 'remote' }],
      { time_control: { move_ms: 10000 } });
    const joined = await join(c, match, 1, tokens[1]);
    assert.equal(joined.game, game);
    const r = rng(4);
    let refused = 0, illegal = 0;
    const over = await playUntilOver(c, {
      onTurn: async (yt) => {
        assert.equal(yt.seat, 1);
        assert.ok(yt.legal.length > 0);
        if (refused === 0) {
          for (const mv of samples[game].bad) {
            const e = await c.request({ type: 'move', match, turn: yt.turn, move: mv });
            assert.ok(isError(e, 'bad_move', e.id), `${JSON.stringify(mv)}: ${JSON.stringify(e)}`);
            refused++;
          }
        }
        const il = samples[game].illegal(yt);
        if (illegal === 0 && il) {
          const e = await c.request({ type: 'move', match, turn: yt.turn, move: il });
          assert.ok(isError(e, 'illegal_move', e.id), `${JSON.stringify(il)}: ${JSON.stringify(e)}`);
          illegal++;
        }
        return undefined;
      },
      choose: (yt) => r.pick(yt.legal),
    });
    assert.ok(refused > 0 && illegal === 1);
    assert.ok(['normal'].includes(over.result.reason), JSON.stringify(over.result));
    const updates = c.all.filter((m) => m.type === 'update');
    assert.ok(updates.length > 0);
    assert.ok(updates.every((u) => u.by === 'player'), 'no policy played for anyone');
  });
}

/* The new bots, in-process (mcts-d2 against evomcts) and over the network
 * (two `tessera bot` processes, the network bot client, playing them). */
const { spawn } = require('node:child_process');
const { binary } = require('./lib');

function runBot(args, timeoutMs = 120000 * SLOW) {
  return new Promise((resolve, reject) => {
    const p = spawn(binary(), ['bot', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '', stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      p.kill('SIGKILL');
      reject(new Error('tessera bot did not finish in time:\n' + stdout + stderr.slice(-2000)));
    }, timeoutMs);
    p.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

test('mcts-d2 and evomcts play in-process and through tessera bot', async (t) => {
  const srv = await Server.start({ tag: 'newgames-newbots' });
  t.after(() => srv.cleanup());
  const c = await Client.connect(srv.url, { name: 'host' });
  const bots = await c.request({ type: 'list_bots' }, 'bots');
  const names = bots.bots.map((b) => b.name);
  assert.ok(names.includes('mcts-d2') && names.includes('evomcts'), names.join(','));
  const evo = bots.bots.find((b) => b.name === 'evomcts');
  const ev = evo.options.find((o) => o.name === 'eval');
  assert.equal(ev.kind, 'string');
  assert.equal(ev.default, '');

  const inproc = await create(c, 'pentago-twist', [{ bot: 'mcts-d2:sims=100' }, { bot: 'evomcts:sims=30' }]);
  const s1 = await waitFinished(c, inproc.match);
  assert.equal(s1.result.reason, 'normal');

  const { match, tokens } = await create(c, 'dodgem', [{ open: true }, { open: true }],
    { rules: { size: 4 }, time_control: { move_ms: 10000 } });
  const [a, b] = await Promise.all([
    runBot(['--url', srv.url, '--match', match, '--seat', '0', '--token', tokens[0], '--bot',
      'mcts-d2:sims=100', '--quiet']),
    runBot(['--url', srv.url, '--match', match, '--seat', '1', '--token', tokens[1], '--bot',
      'evomcts:sims=30', '--quiet']),
  ]);
  assert.equal(a.code, 0, a.stderr);
  assert.equal(b.code, 0, b.stderr);
  assert.match(a.stdout, /^game over: reason=normal /m);
  const s2 = await waitFinished(c, match);
  assert.equal(s2.result.reason, 'normal');
});
