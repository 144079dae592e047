// The Carcassonne board: placed tiles, meeples, completed features, the last
// move, and — when a person plays — the legal cells, the tile being placed
// and its meeple spots. Every tile and meeple element carries data attributes
// (data-x, data-y, data-tile, data-rot; data-port, data-seat) naming exactly
// what the server's state says, so tests can compare the two.
//
// Rulers along the bottom and left edges number the columns (x, east) and rows
// (y, south) as the move list and the protocol do — the start tile is (0, 0) —
// and the cell under the pointer is named in the bottom-right corner.

import {h, s, SEAT_COLOURS} from './util.js';
import {PanZoom} from './panzoom.js';
import {drawTile, drawMeeple, meepleSpot, letterAt} from './carc-tiles.js';
import {drawThinking} from './thinking.js';

const T = 100;   // world units per cell
const RULER_W = 26, RULER_H = 18;   // pixels: the rulers' size (style.css .ruler-y, .ruler-x)

export class CarcBoard {
  constructor(tiles) {
    this.tiles = tiles;
    this.el = h('div', {class: 'board-wrap'});
    this.svg = s('svg', {class: 'board', 'data-game': 'carcassonne'});
    this.layers = {};
    this.svg.append(s('rect', {class: 'bgrect', x: -1e5, y: -1e5, width: 2e5, height: 2e5}));
    for (const name of ['tiles', 'marks', 'meeples', 'cells', 'ghost']) {
      this.layers[name] = s('g', {class: 'layer-' + name});
      this.svg.append(this.layers[name]);
    }
    this.msg = h('div', {class: 'board-msg'});
    this.rulerX = h('div', {class: 'ruler ruler-x', 'aria-hidden': 'true'});
    this.rulerY = h('div', {class: 'ruler ruler-y', 'aria-hidden': 'true'});
    this.coordEl = h('div', {class: 'coord', id: 'board-coord'});
    this.hoverCell = null;
    this.pz = new PanZoom(this.svg, () => this.drawRulers());
    this.svg.addEventListener('pointermove', (e) => this.hover(e));
    this.svg.addEventListener('pointerleave', () => this.hover(null));
    const zoom = h('div', {class: 'zoom'}, [
      h('button', {title: 'zoom in (+)', onclick: () => this.pz.zoomBy(1 / 1.25), text: '+'}),
      h('button', {title: 'zoom out (−)', onclick: () => this.pz.zoomBy(1.25), text: '−'}),
      h('button', {title: 'fit the board (F)', class: 'fit', onclick: () => this.fit(true), text: '⤢'}),
    ]);
    this.el.append(this.svg, this.rulerX, this.rulerY, this.coordEl, zoom, this.msg);
    this.tileEls = new Map();
    this.state = null;
    this.play = null;
    this.bounds = [0, 0, 0, 0];
    requestAnimationFrame(() => this.fit(true));
  }

  setMessage(text, mine = false) {
    this.msg.textContent = text || '';
    this.msg.classList.toggle('mine', !!mine);
  }

  /** Draw a public state; last: the record of the last turn (highlighted). */
  setState(state, last) {
    this.state = state;
    const seen = new Set();
    let x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    for (const t of state.board || []) {
      const key = `${t.x},${t.y}`;
      seen.add(key);
      x0 = Math.min(x0, t.x); y0 = Math.min(y0, t.y); x1 = Math.max(x1, t.x); y1 = Math.max(y1, t.y);
      // completed features: board[].closed names one port of each, per tile
      const ports = [...new Set(t.closed || [])];
      const closed = ports.sort().join(' ');
      let el = this.tileEls.get(key);
      if (el && el.dataset.tile === t.tile && el.dataset.rot === String(t.rot) && el.dataset.closed === closed) continue;
      const def = this.tiles[t.tile];
      if (!def) continue;
      const letters = new Set(ports.map((p) => letterAt(def.ports, t.rot, p)));
      const g = s('g', {class: 'tile', transform: `translate(${t.x * T} ${t.y * T})`,
        dataset: {x: t.x, y: t.y, tile: t.tile, rot: t.rot, closed}});
      g.append(drawTile(t.tile, def, t.rot, letters));
      if (el) el.replaceWith(g); else this.layers.tiles.append(g);
      this.tileEls.set(key, g);
    }
    for (const [key, el] of this.tileEls) if (!seen.has(key)) { el.remove(); this.tileEls.delete(key); }
    this.bounds = [x0, y0, x1, y1];

    // meeples
    const byCell = new Map((state.board || []).map((t) => [`${t.x},${t.y}`, t]));
    this.layers.meeples.replaceChildren();
    const fresh = last && !last.discarded && last.meeple ? `${last.x},${last.y},${last.meeple}` : null;
    for (const m of state.meeples || []) {
      const t = byCell.get(`${m.x},${m.y}`);
      if (!t || !this.tiles[t.tile]) continue;
      const spot = meepleSpot(t.tile, this.tiles[t.tile], t.rot, m.port);
      const g = s('g', {class: 'meeple-at', transform: `translate(${m.x * T} ${m.y * T})`,
        dataset: {x: m.x, y: m.y, port: m.port, seat: m.seat}});
      const fig = drawMeeple(spot.anchor[0], spot.anchor[1], m.seat, spot.kind, SEAT_COLOURS[m.seat % 5]);
      if (fresh === `${m.x},${m.y},${m.port}`) fig.classList.add('fresh');
      g.append(fig);
      this.layers.meeples.append(g);
    }
    // the last move
    this.layers.marks.replaceChildren();
    if (last && !last.discarded && Number.isInteger(last.x)) {
      this.layers.marks.append(s('rect', {class: 'last-move', x: last.x * T + 2.5, y: last.y * T + 2.5, width: T - 5, height: T - 5, rx: 4,
        dataset: {x: last.x, y: last.y}}));
    }
    this.autoFit();
  }

  /** Human play: {legal: Map key->entry, cells: [{x,y,strong}], pending, tile, onCell, onSpot} or null. */
  setPlay(play) {
    this.play = play;
    this.layers.cells.replaceChildren();
    this.layers.ghost.replaceChildren();
    if (!play) return;
    if (!play.pending) {
      for (const c of play.cells) {
        const r = s('rect', {class: 'cell ' + (c.strong ? 'legal' : 'hint'), x: c.x * T + 3, y: c.y * T + 3, width: T - 6, height: T - 6, rx: 6,
          dataset: {x: c.x, y: c.y}});
        r.addEventListener('click', (e) => { e.stopPropagation(); play.onCell(c.x, c.y); });
        this.layers.cells.append(r);
      }
    } else {
      const p = play.pending;
      const def = this.tiles[play.tile];
      const g = s('g', {class: 'ghost', transform: `translate(${p.x * T} ${p.y * T})`, dataset: {x: p.x, y: p.y, tile: play.tile, rot: p.rot}});
      g.append(drawTile(play.tile, def, p.rot));
      this.layers.ghost.append(g, s('rect', {class: 'ghost-frame', x: p.x * T, y: p.y * T, width: T, height: T}));
      p.entry.meeples.forEach((port, i) => {
        const spot = meepleSpot(play.tile, def, p.entry.rot, port);
        const [ax, ay] = spot.anchor;
        const sp = s('g', {class: 'spot', transform: `translate(${p.x * T + ax} ${p.y * T + ay})`, dataset: {port}}, [
          s('title', {text: `meeple on the ${spot.kind || 'feature'} at ${port} (key ${i + 1})`}),
          s('circle', {r: 10}),
          s('text', {text: i < 9 ? String(i + 1) : ''}),
        ]);
        sp.addEventListener('click', (e) => { e.stopPropagation(); play.onSpot(port); });
        this.layers.ghost.append(sp);
      });
    }
    this.autoFit();
  }

  /** Candidate placements [{move: {x, y, rot, meeple}, share}] outlined (thinking.js); null clears them. */
  setThinking(cands) {
    drawThinking(this.layers.marks, (cands || []).filter((c) => c.move && c.move.x !== undefined)
      .map((c) => ({x: c.move.x * T, y: c.move.y * T, w: T, h: T, share: c.share, key: JSON.stringify(c.move)})));
  }

  /** A better placement (the analysis' {draw, best_move: {x, y, rot}}) drawn as a framed ghost; null clears it. */
  setBetter(t) {
    this.layers.marks.querySelector('.better')?.remove();
    const m = t?.best_move, def = t && this.tiles[t.draw];
    if (!m || !def) return;
    const g = s('g', {class: 'better', transform: `translate(${m.x * T} ${m.y * T})`, dataset: {x: m.x, y: m.y, tile: t.draw, rot: m.rot}});
    g.append(drawTile(t.draw, def, m.rot), s('rect', {class: 'better-frame', x: 0, y: 0, width: T, height: T}));
    this.layers.marks.append(g);
  }

  worldBox() {
    let [x0, y0, x1, y1] = this.bounds;
    if (this.play) {
      for (const c of this.play.cells || []) { x0 = Math.min(x0, c.x); y0 = Math.min(y0, c.y); x1 = Math.max(x1, c.x); y1 = Math.max(y1, c.y); }
    }
    // one free cell around the tiles, for the placements to come
    return [(x0 - 1) * T, (y0 - 1) * T, (x1 + 2) * T, (y1 + 2) * T];
  }

  /** Follow the board as it grows, unless the user has moved the view and it still shows everything. */
  autoFit() {
    const box = this.worldBox();
    if (!this.pz.userMoved) this.fit(false);
    else if (this.play && !this.pz.shows(box)) this.fit(true);
  }

  /** Number the visible columns and rows; labels thin out as the board is zoomed out. */
  drawRulers() {
    const vb = this.svg.viewBox.baseVal;
    const [w, hgt] = this.pz.size();
    if (!vb || !vb.width || !vb.height) return;
    const px = w / vb.width;                          // screen pixels per world unit
    const cellPx = T * px;
    const step = [1, 2, 5, 10, 20, 50].find((k) => k * cellPx >= 22) || 100;
    const label = (axis, v, pos) => h('span', {dataset: {[axis]: v}, style: axis === 'x' ? `left:${pos}px` : `top:${pos}px`,
      class: this.hoverCell && this.hoverCell[axis] === v ? 'here' : null, text: String(v)});
    const xs = [], ys = [];
    for (let x = Math.floor(vb.x / T / step) * step; (x * T) <= vb.x + vb.width; x += step) {
      const pos = ((x + 0.5) * T - vb.x) * px;
      if (pos > RULER_W + 8 && pos < w - 10) xs.push(label('x', x, pos));
    }
    for (let y = Math.floor(vb.y / T / step) * step; (y * T) <= vb.y + vb.height; y += step) {
      const pos = ((y + 0.5) * T - vb.y) * (hgt / vb.height);
      if (pos > 8 && pos < hgt - RULER_H - 8) ys.push(label('y', y, pos));
    }
    this.rulerX.replaceChildren(...xs);
    this.rulerY.replaceChildren(...ys);
    this.rulerX.dataset.step = this.rulerY.dataset.step = String(step);
  }

  /** Name the cell under the pointer, as the move list does. */
  hover(e) {
    let cell = null;
    if (e && e.pointerType !== 'touch') {
      const [wx, wy] = this.pz.toWorld(e.clientX, e.clientY);
      cell = {x: Math.floor(wx / T), y: Math.floor(wy / T)};
    }
    if (cell && this.hoverCell && cell.x === this.hoverCell.x && cell.y === this.hoverCell.y) return;
    this.hoverCell = cell;
    if (cell) {
      const t = this.tileEls.get(`${cell.x},${cell.y}`);
      this.coordEl.textContent = `(${cell.x}, ${cell.y})` + (t ? ` · ${t.dataset.tile}` : '');
      this.coordEl.dataset.x = cell.x;
      this.coordEl.dataset.y = cell.y;
    } else {
      this.coordEl.textContent = '';
      delete this.coordEl.dataset.x;
      delete this.coordEl.dataset.y;
    }
    for (const el of this.rulerX.children) el.classList.toggle('here', !!cell && Number(el.dataset.x) === cell.x);
    for (const el of this.rulerY.children) el.classList.toggle('here', !!cell && Number(el.dataset.y) === cell.y);
  }

  fit(reset) {
    if (reset) this.pz.userMoved = false;
    this.pz.fit(this.worldBox(), 20, 0.55);
  }

  destroy() { this.pz.destroy(); }
}
