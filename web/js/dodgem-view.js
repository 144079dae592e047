// Dodgem at a table: an n×n board from the public state (board rows top
// first, B Black = seat 0 whose cars drive east, W White = seat 1 whose cars
// drive south; docs/protocol.md). A person clicks one of their cars that can
// move, then one of the marked cells next to it — or the exit arrow beyond
// the far edge, to take the car off the board.

import {h, s, playerName} from './util.js';
import {GridView} from './grid-view.js';

const C = 60;   // world units per cell
const DIRS = {N: [0, -1], E: [1, 0], S: [0, 1], W: [-1, 0]};
const DIR_WORDS = {N: 'north', E: 'east', S: 'south', W: 'west'};

export class DodgemView extends GridView {
  constructor(game) {
    const info = h('div', {class: 'help dg-info'});
    super(game, {dataGame: 'dodgem', sideClass: 'dodgem-side', extra: [info]});
    this.info = info;
    this.n = 5;
    this.draw(null, null);   // sel: "x,y" of the chosen car
  }

  seatColour(seat) { return seat === 0 ? '#161616' : '#cfcfc4'; }

  playerInfo(seat) { return seat === 0 ? 'Black (drives east)' : seat === 1 ? 'White (drives south)' : ''; }

  describe(rec, seats) {
    const who = seats?.[rec.player]?.name ? playerName(seats, rec.player) : (rec.player === 0 ? 'Black' : 'White');
    const [dx, dy] = DIRS[rec.dir] || [0, 0];
    const tx = rec.x + dx, ty = rec.y + dy, n = this.n;
    const off = tx < 0 || ty < 0 || tx >= n || ty >= n;
    return off ? `${who} drove the car at (${rec.x},${rec.y}) off the board`
      : `${who} moved (${rec.x},${rec.y}) ${DIR_WORDS[rec.dir] || rec.dir} to (${tx},${ty})`;
  }

  /** The legal moves of the chosen car: dir → entry. */
  movesOf(key) { return this.entriesAt(key, (e) => e.dir); }

  spotOf(m) { return m && m.x !== undefined ? {x: m.x * C, y: m.y * C, w: C, h: C} : null; }

  /** The analysis' better turn from this position (analysis.js): the car to move outlined. */
  showBetter(t) {
    this.svg.querySelector('.dg-better')?.remove();
    const m = t?.best_move;
    if (!m || m.x === undefined) return;
    this.svg.append(s('rect', {class: 'rv-better dg-better', x: m.x * C + 4, y: m.y * C + 4, width: C - 8, height: C - 8,
      dataset: {cell: `${m.x},${m.y}`, dir: m.dir}}));
  }

  draw(state, last) {
    const rows = state?.board || [];
    const n = this.n = state?.size || rows.length || this.n;
    this.svg.setAttribute('viewBox', `${-C * 0.9} ${-C * 0.9} ${n * C + C * 1.8} ${n * C + C * 1.8}`);
    this.svg.replaceChildren();
    this.svg.append(s('rect', {class: 'dg-board', x: 0, y: 0, width: n * C, height: n * C, rx: 4}));
    // the exits: Black leaves by the east edge, White by the south edge
    this.svg.append(s('rect', {class: 'dg-exit B', x: n * C + 4, y: 0, width: 8, height: n * C}));
    this.svg.append(s('rect', {class: 'dg-exit W', x: 0, y: n * C + 4, width: n * C, height: 8}));
    for (let i = 0; i < n; i++) {
      this.svg.append(s('text', {class: 'dg-label', x: i * C + C / 2, y: -C * 0.3, text: String(i)}));
      this.svg.append(s('text', {class: 'dg-label', x: -C * 0.3, y: i * C + C / 2, text: String(i)}));
    }
    const live = this.turn && !this.turn.sent;
    const movable = new Set((live ? this.turn.legal : []).map((e) => `${e.x},${e.y}`));
    const targets = live && this.sel ? this.movesOf(this.sel) : {};
    for (let y = 0; y < n; y++) {
      for (let x = 0; x < n; x++) {
        const key = `${x},${y}`;
        const cell = s('rect', {class: 'dg-cell', x: x * C, y: y * C, width: C, height: C, dataset: {cell: key}});
        this.svg.append(cell);
        const v = rows[y]?.[x];
        if (v === 'B' || v === 'W') this.svg.append(this.car(x, y, v, movable.has(key), this.sel === key));
      }
    }
    if (last && DIRS[last.dir]) {
      const [dx, dy] = DIRS[last.dir];
      const tx = last.x + dx, ty = last.y + dy;
      this.svg.append(s('rect', {class: 'dg-last from', x: last.x * C + 3, y: last.y * C + 3, width: C - 6, height: C - 6}));
      if (tx >= 0 && ty >= 0 && tx < n && ty < n)
        this.svg.append(s('rect', {class: 'dg-last', x: tx * C + 2, y: ty * C + 2, width: C - 4, height: C - 4}));
    }
    // where the chosen car may go: a marked cell, or an arrow off the board
    if (this.sel) {
      const [sx, sy] = this.sel.split(',').map(Number);
      for (const [dir, e] of Object.entries(targets)) {
        const [dx, dy] = DIRS[dir];
        const tx = sx + dx, ty = sy + dy;
        const off = tx < 0 || ty < 0 || tx >= n || ty >= n;
        const t = off
          ? s('g', {class: 'dg-target off', dataset: {dir}}, [
              s('rect', {x: tx * C + (dx ? C * 0.1 : 0), y: ty * C + (dy ? C * 0.1 : 0), width: dx ? C * 0.7 : C, height: dy ? C * 0.7 : C, rx: 6}),
              s('text', {x: tx * C + C / 2 - (dx ? C * 0.05 : 0), y: ty * C + C / 2 - (dy ? C * 0.05 : 0), text: dx ? '→' : '↓'})])
          : s('rect', {class: 'dg-target', x: tx * C + 4, y: ty * C + 4, width: C - 8, height: C - 8, rx: 6, dataset: {dir}});
        t.addEventListener('click', (ev) => { ev.stopPropagation(); this.send(e); });
        this.svg.append(t);
      }
    }
    const cars = state?.cars;
    this.info.textContent = state ? `Cars left: Black ${cars?.[0] ?? '?'}, White ${cars?.[1] ?? '?'}. Ply ${state.turn} of at most ${state.max_plies}.` : '';
  }

  /** A car: a rounded body with its driving direction. */
  car(x, y, v, movable, chosen) {
    const cx = x * C + C / 2, cy = y * C + C / 2, r = C * 0.34;
    const g = s('g', {class: `dg-car ${v}` + (movable ? ' movable' : '') + (chosen ? ' chosen' : ''), dataset: {car: `${x},${y}`, colour: v}});
    g.append(s('rect', {x: cx - r, y: cy - r, width: 2 * r, height: 2 * r, rx: r * 0.45}));
    // a triangle pointing forward: east for Black, south for White
    const pts = v === 'B' ? [[cx + r * 0.6, cy], [cx - r * 0.3, cy - r * 0.5], [cx - r * 0.3, cy + r * 0.5]]
      : [[cx, cy + r * 0.6], [cx - r * 0.5, cy - r * 0.3], [cx + r * 0.5, cy - r * 0.3]];
    g.append(s('polygon', {class: 'dg-arrow', points: pts.map((p) => p.join(',')).join(' ')}));
    if (movable) g.addEventListener('click', () => this.choose(`${x},${y}`));
    return g;
  }

  hintText() { return this.sel ? 'Click a marked cell (or the arrow off the board), or another car.' : 'Click one of your cars that can move.'; }

}
