// A small inline SVG line chart of the scores after each turn.

import {s, SEAT_COLOURS} from './util.js';

/** points[k] = scores after step k (k = 0: before the first turn). value
 *  (optional, thinking.js valueSeries): {kind: 'win' | 'score', values[k]}, the
 *  first player's value after step k, drawn dashed on an axis of its own at
 *  the right (win: 0–100%; score: ± the largest difference). */
export function scoreChart(points, cursor, onPick, colourOf, value) {
  const W = 320, H = 150, L = 30, R = 8, TOP = 8, B = 20;
  const n = Math.max(1, points.length - 1);
  const seats = Math.max(0, ...points.map((p) => (p ? p.length : 0)));
  const max = Math.max(10, ...points.flatMap((p) => p || []));
  // at most four grid steps of a round size (1, 2, 2.5 or 5 × 10^k), every label a whole number
  const raw = max / 4, mag = 10 ** Math.floor(Math.log10(raw));
  const stepY = (mag >= 10 ? [1, 2, 2.5, 5, 10] : [1, 2, 5, 10]).map((f) => f * mag).find((v) => v >= raw);
  const yMax = stepY * Math.ceil(max / stepY);
  const X = (k) => L + (k / n) * (W - L - R);
  const Y = (v) => TOP + (1 - v / yMax) * (H - TOP - B);
  const svg = s('svg', {viewBox: `0 0 ${W} ${H}`, class: 'score-chart', role: 'img', 'aria-label': 'scores over the game'});
  for (let v = 0; v <= yMax; v += stepY) {
    svg.append(s('line', {class: 'grid', x1: L, x2: W - R, y1: Y(v), y2: Y(v)}));
    svg.append(s('text', {x: L - 4, y: Y(v) + 3, 'text-anchor': 'end', text: String(Math.round(v))}));
  }
  svg.append(s('line', {class: 'axis', x1: L, x2: W - R, y1: Y(0), y2: Y(0)}));
  svg.append(s('text', {x: W - R, y: H - 5, 'text-anchor': 'end', text: `turn ${n}`}));
  svg.append(s('text', {x: L, y: H - 5, text: '0'}));
  for (let seat = 0; seat < seats; seat++) {
    const colour = colourOf?.(seat) || SEAT_COLOURS[seat % 5];
    // a line through known points; unknown steps (null) break it, and a
    // point with no known neighbour is a dot
    let d = '', prev = false;
    points.forEach((p, k) => {
      const known = p && p[seat] !== undefined;
      if (known) {
        d += `${prev ? 'L' : 'M'}${X(k).toFixed(1)} ${Y(p[seat]).toFixed(1)}`;
        const next = points[k + 1];
        if (!prev && !(next && next[seat] !== undefined)) {
          svg.append(s('circle', {cx: X(k), cy: Y(p[seat]), r: 3, fill: colour, stroke: '#555', class: 'point', 'data-seat': seat}));
        }
      }
      prev = known;
    });
    if (d) svg.append(s('path', {d, fill: 'none', stroke: colour, 'stroke-width': 2, 'stroke-linejoin': 'round', class: 'series', 'data-seat': seat}));
  }
  if (value) {
    const vs = value.values;
    const span = value.kind === 'win' ? 1 : Math.max(10, ...vs.filter((v) => v !== null).map((v) => Math.abs(v)));
    const VY = (v) => TOP + (1 - (value.kind === 'win' ? v : 0.5 + v / (2 * span))) * (H - TOP - B);
    let d = '', prev = false;
    vs.forEach((v, k) => {
      if (v !== null) d += `${prev ? 'L' : 'M'}${X(k).toFixed(1)} ${VY(v).toFixed(1)}`;
      prev = v !== null;
    });
    const g = s('g', {class: 'value-line', 'data-kind': value.kind, 'data-points': String(vs.filter((v) => v !== null).length)});
    g.append(s('line', {class: 'grid value-mid', x1: L, x2: W - R, y1: VY(value.kind === 'win' ? 0.5 : 0), y2: VY(value.kind === 'win' ? 0.5 : 0)}));
    g.append(s('path', {d, fill: 'none', class: 'value', 'stroke-width': 1.5, 'stroke-dasharray': '4 3'}));
    for (const [v, label] of value.kind === 'win' ? [[1, '100%'], [0.5, '50%'], [0, '0%']] : [[span, `+${Math.round(span)}`], [0, '0'], [-span, `−${Math.round(span)}`]])
      g.append(s('text', {class: 'value-label', x: W - R, y: VY(v) + (v === (value.kind === 'win' ? 1 : span) ? 9 : -2), 'text-anchor': 'end', text: label}));
    g.append(s('title', {text: value.kind === 'win' ? 'P1\'s win probability by its thinking lines' : 'P1\'s expected score difference by the thinking lines'}));
    svg.append(g);
  }
  if (cursor !== null && cursor !== undefined) {
    svg.append(s('line', {class: 'cursor', x1: X(cursor), x2: X(cursor), y1: TOP, y2: H - B}));
  }
  if (onPick) {
    svg.style.cursor = 'pointer';
    svg.addEventListener('click', (e) => {
      const r = svg.getBoundingClientRect();
      const x = ((e.clientX - r.left) / r.width) * W;
      onPick(Math.max(0, Math.min(n, Math.round(((x - L) / (W - L - R)) * n))));
    });
  }
  return svg;
}
