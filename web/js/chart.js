// A small inline SVG line chart of the scores after each turn.

import {s, SEAT_COLOURS} from './util.js';

/** points[k] = scores after step k (k = 0: before the first turn). */
export function scoreChart(points, cursor, onPick, colourOf) {
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
