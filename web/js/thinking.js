// Thinking lines (docs/protocol.md, "Thinking lines"; issue 27): what a seat
// considered before its move — live from the `thinking` messages a spectator
// gets, in a replay from the record's turns (`info`, the last line of each).
// The panel says it in words (the value, the search's size, each candidate's
// share, the principal variation); the board outlines the candidates with
// their share (each view's showThinking); the score chart draws the first
// player's value as a line (valueSeries).

import {h, s, pLabel} from './util.js';

/** A protocol move in a few characters: Reversi's square, else its fields. */
export function moveText(m) {
  if (!m || typeof m !== 'object') return '?';
  if (typeof m.move === 'string') return m.move;
  const parts = [];
  if (m.x !== undefined && m.y !== undefined) parts.push(`(${m.x},${m.y})`);
  for (const [k, v] of Object.entries(m)) {
    if (k === 'x' || k === 'y' || v === null || v === undefined) continue;
    parts.push(k === 'rot' ? `r${v}` : String(v));
  }
  return parts.join(' ');
}

/** The candidates with their share of the visits (or of the weights), best first. */
export function shares(info) {
  const c = info?.candidates || [];
  const w = c.map((x) => (Number.isFinite(x.visits) ? x.visits : Number.isFinite(x.weight) ? x.weight : 0));
  const sum = w.reduce((a, b) => a + b, 0);
  return c.map((x, i) => ({move: x.move, share: sum > 0 ? w[i] / sum : 1 / c.length, winprob: x.winprob, score: x.score}));
}

/** The first player's value after k turns, from the line about turn k + 1
 *  (lines[t] = {seat, info}): win probability when the lines give one, else
 *  the expected score difference; null when unknown. Two-player games only. */
export function valueSeries(lines, steps, players) {
  if (players !== 2) return null;
  const out = new Array(steps + 1).fill(null);
  let kind = null;
  for (const l of Object.values(lines)) if (Number.isFinite(l?.info?.winprob)) kind = 'win';
  if (!kind) for (const l of Object.values(lines)) if (Number.isFinite(l?.info?.score)) kind = 'score';
  if (!kind) return null;
  for (let k = 0; k <= steps; k++) {
    const l = lines[k + 1];
    if (!l) continue;
    const v = kind === 'win' ? l.info.winprob : l.info.score;
    if (!Number.isFinite(v)) continue;
    out[k] = kind === 'win' ? (l.seat === 0 ? v : 1 - v) : (l.seat === 0 ? v : -v);
  }
  return out.some((v) => v !== null) ? {kind, values: out} : null;
}

/** The panel of one line, in words. */
export class ThinkingPanel {
  constructor() {
    this.body = h('div', {class: 'thinking-body', id: 'thinking'});
    this.el = h('div', {class: 'sec-thinking', hidden: true}, [h('h3', {text: 'Thinking'}), this.body]);
  }

  /** line: {seat, turn, info} or null; seats: the table's; live: still thinking. */
  show(line, seats, live) {
    this.el.hidden = !line;
    this.body.replaceChildren();
    if (!line) { delete this.body.dataset.turn; return; }
    const i = line.info || {};
    const who = seats?.[line.seat]?.name ? `${pLabel(line.seat)} ${seats[line.seat].name}` : pLabel(line.seat);
    this.body.dataset.turn = String(line.turn);
    this.body.dataset.seat = String(line.seat);
    this.body.dataset.iterations = String(i.iterations ?? '');
    const value = [Number.isFinite(i.winprob) ? `win ${(i.winprob * 100).toFixed(1)}%` : null,
      Number.isFinite(i.score) ? `score ${i.score >= 0 ? '+' : ''}${i.score.toFixed(1)}` : null].filter(Boolean).join(', ');
    const size = [i.iterations !== undefined ? `${i.iterations} iterations` : null, i.nodes !== undefined ? `${i.nodes} nodes` : null,
      i.depth !== undefined ? `depth ${i.depth}` : null, i.elapsed_ms !== undefined ? `${(i.elapsed_ms / 1000).toFixed(1)} s` : null]
      .filter(Boolean).join(' · ');
    this.body.append(h('div', {class: 'meta'}, [h('strong', {text: `turn ${line.turn}: ${who}`}),
      live ? ' is thinking' : ' thought', value ? ` — ${value}` : '']));
    if (size) this.body.append(h('div', {class: 'help', text: size}));
    const list = h('ol', {class: 'candidates', id: 'thinking-candidates'});
    for (const c of shares(i)) {
      const v = Number.isFinite(c.winprob) ? ` · win ${(c.winprob * 100).toFixed(0)}%` : Number.isFinite(c.score) ? ` · ${c.score >= 0 ? '+' : ''}${c.score.toFixed(1)}` : '';
      list.append(h('li', {dataset: {share: Math.round(c.share * 100)}, text: `${moveText(c.move)} — ${Math.round(c.share * 100)}%${v}`}));
    }
    if (list.childElementCount) this.body.append(list);
    if (i.pv?.length) this.body.append(h('div', {class: 'pv', id: 'thinking-pv', text: 'line: ' + i.pv.map(moveText).join(' ')}));
    if (i.text) this.body.append(h('div', {class: 'help', text: i.text}));
  }
}

/** Candidates outlined on an svg: spots [{x, y, w, h, share}] in its units, best first ([] clears). */
export function drawThinking(parent, spots) {
  parent.querySelector(':scope > .think')?.remove();
  if (!spots.length) return;
  const g = s('g', {class: 'think'});
  spots.forEach((p, i) => {
    const pct = Math.round(p.share * 100);
    g.append(s('rect', {class: 'think-cand' + (i === 0 ? ' best' : ''), x: p.x + 3, y: p.y + 3, width: p.w - 6, height: p.h - 6,
      'stroke-width': (1.5 + 6 * p.share).toFixed(1), dataset: {rank: i, share: pct, key: p.key || ''}}));
    g.append(s('text', {class: 'think-share', x: p.x + p.w / 2, y: p.y + p.h - 7, 'text-anchor': 'middle', text: `${pct}%`}));
  });
  parent.append(g);
}
