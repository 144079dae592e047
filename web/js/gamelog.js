// A program's game log (cli/gamelog.c, docs/stdio.md "Your program's log"):
// what `tessera match --out` and `tessera tournament --out` keep beside a
// record for each seat a program held, read so that a replay can show each
// turn's debug and stderr beside the board.
//
//   # tessera game log 1: game 3, P2 (seat 1), record game-000003.json, cmd:python3 bot.py
//   turn 2: ok (cpu 12 ms, wall 15 ms)
//   debug: sims=400 value=0.61
//   stderr: considering 12 placements
//   game over
//   stderr: bye

/**
 * Parse a log's text: {seat, game, record, spec, turns: Map(turn -> {line, verdict, debug[],
 * stderr[]}), end: {stderr[]}}, or null when the text is not such a log.
 */
export function parseGameLog(text) {
  const lines = String(text).split('\n');
  const head = /^# tessera game log 1: game (\d+), P(\d+) \(seat (\d+)\), record ([^,]+), (.*)$/.exec(lines[0] || '');
  if (!head) return null;
  const log = {game: Number(head[1]), seat: Number(head[3]), record: head[4], spec: head[5], turns: new Map(), end: null};
  let cur = null;
  for (const line of lines.slice(1)) {
    const t = /^turn (\d+): ([a-z_]+)(.*)$/.exec(line);
    if (t) {
      cur = {line, verdict: t[2], debug: [], stderr: [], note: []};
      log.turns.set(Number(t[1]), cur);
      continue;
    }
    if (line === 'game over') {
      cur = log.end = {line, verdict: 'game over', debug: [], stderr: [], note: []};
      continue;
    }
    const m = /^(debug|stderr|note): ?(.*)$/.exec(line);
    if (m && cur) cur[m[1]].push(m[2]);
  }
  return log;
}
