// Standings drawn: each rating on its 95% interval, and the cross-table —
// the tournament page's (tournament.js) and a course final's (course.js).

import {h, s} from './util.js';

/** "+96" / "−12" / "0" for a rating. */
export function elo(x) {
  if (x === null || x === undefined || !Number.isFinite(x)) return '–';
  const r = Math.round(x);
  return r > 0 ? `+${r}` : r < 0 ? `−${-r}` : '0';
}

export function num(x, digits = 1) {
  if (x === null || x === undefined || !Number.isFinite(x)) return '–';
  return Number.isInteger(x) ? String(x) : x.toFixed(digits);
}

/** Each rating as a dot on its 95% interval, best first: an SVG (or a note when nothing is rated). */
export function ratingsChart(rows) {
  const rated = rows.filter((r) => r.games > 0 && Number.isFinite(r.elo));
  if (!rated.length) return h('div', {class: 'help', text: 'no rated games yet'});
  const W = 600, L = 150, R = 20, row = 22, top = 24, H = top + rated.length * row + 10;
  let lo = Math.min(...rated.map((r) => Number.isFinite(r.elo_lo) ? r.elo_lo : r.elo));
  let hi = Math.max(...rated.map((r) => Number.isFinite(r.elo_hi) ? r.elo_hi : r.elo));
  if (hi - lo < 50) { lo -= 25; hi += 25; }
  const x = (v) => L + (W - L - R) * (Math.max(lo, Math.min(hi, v)) - lo) / (hi - lo);
  const parts = [s('line', {x1: x(0), x2: x(0), y1: top - 6, y2: H - 6, class: 'zero'}),
    s('text', {x: x(0), y: 14, 'text-anchor': 'middle', class: 'axis', text: '0'}),
    s('text', {x: L, y: 14, class: 'axis', text: elo(lo)}),
    s('text', {x: W - R, y: 14, 'text-anchor': 'end', class: 'axis', text: elo(hi)})];
  rated.forEach((r, i) => {
    const y = top + i * row + row / 2;
    parts.push(s('text', {x: L - 8, y: y + 4, 'text-anchor': 'end', class: 'who', text: r.name.length > 20 ? r.name.slice(0, 19) + '…' : r.name}));
    if (Number.isFinite(r.elo_lo) && Number.isFinite(r.elo_hi))
      parts.push(s('line', {x1: x(r.elo_lo), x2: x(r.elo_hi), y1: y, y2: y, class: 'ci'}));
    parts.push(s('circle', {cx: x(r.elo), cy: y, r: 4.5, class: 'pt'}, [s('title', {text: `${r.name}: ${elo(r.elo)} (${elo(r.elo_lo)} … ${elo(r.elo_hi)})`})]));
  });
  return s('svg', {class: 'ratings-chart', viewBox: `0 0 ${W} ${H}`, role: 'img', style: `max-width:${W}px`,
    'aria-label': 'ratings with their 95% intervals'}, parts);
}

/** The cross-table as a grid scaled to the width: the points of the row's participant against the
 *  column's (cross.games[p][q], cross.points[p][q] by participant), numbered by place. */
export function crossTable(rows, cross) {
  if (!cross || !rows.length)
    return h('div', {class: 'help', text: cross === undefined && rows.length > 64 ? 'over 64 participants: see the standings' : 'no games yet'});
  const order = rows.map((r) => r.participant);
  const n = order.length;
  const cell = 34, L = 130, top = 26, W = L + n * cell + 4, H = top + n * cell + 4;
  const parts = [];
  // numbered as the standings beside it number them: by place
  order.forEach((p, j) => parts.push(s('text', {x: L + j * cell + cell / 2, y: 17, 'text-anchor': 'middle', class: 'axis', text: String(rows[j].place)})));
  order.forEach((p, i) => {
    const y = top + i * cell;
    const name = rows[i].name;
    parts.push(s('text', {x: L - 6, y: y + cell / 2 + 4, 'text-anchor': 'end', class: 'who', text: `${rows[i].place} ${name.length > 14 ? name.slice(0, 13) + '…' : name}`}));
    order.forEach((q, j) => {
      const x = L + j * cell;
      if (p === q) { parts.push(s('rect', {x, y, width: cell - 2, height: cell - 2, class: 'self'})); return; }
      const g = cross.games?.[p]?.[q] || 0, pts = cross.points?.[p]?.[q] || 0;
      const rate = g ? pts / g : null;
      const fill = rate === null ? '#f2eee6' : `hsl(${Math.round(rate * 120)}, 55%, ${78 - 18 * Math.abs(rate - 0.5)}%)`;
      parts.push(s('rect', {x, y, width: cell - 2, height: cell - 2, fill, class: 'c'}, [s('title', {text: `${name} v ${rows[j].name}: ${num(pts)} of ${num(g)}`})]));
      if (g && n <= 16) parts.push(s('text', {x: x + cell / 2 - 1, y: y + cell / 2 + 4, 'text-anchor': 'middle', class: 'v', text: num(pts)}));
    });
  });
  return s('svg', {class: 'xtable', viewBox: `0 0 ${W} ${H}`, role: 'img', style: `max-width:${W}px`,
    'aria-label': 'cross-table: points of each row against each column'}, parts);
}
