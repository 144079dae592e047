// Pentago-Twist at a table: the 6×6 board from the public state (rows top
// first, W White = seat 0, B Black = seat 1) in four 3×3 quadrants
// (0 top-left, 1 top-right, 2 bottom-left, 3 bottom-right; docs/protocol.md).
// A move is a piece on an empty cell, then a twist of one quadrant: rotate
// 90° clockwise or flip left <-> right. A person clicks an empty cell, then
// one of the eight twist buttons (two per quadrant, on the board's corners
// and under it).

import {h, s, playerName} from './util.js';
import {GridView} from './grid-view.js';

const C = 50;        // world units per cell
const GAP = 8;       // between quadrants
const TWISTS = {rotate: '↻', flip: '⇆'};

/** World position of cell (x, y): quadrants are drawn apart. */
function pos(x, y) { return [x * C + (x >= 3 ? GAP : 0), y * C + (y >= 3 ? GAP : 0)]; }

/** Where cell (x, y) goes when quadrant q is twisted (or stays, outside q). */
export function twisted(x, y, q, twist) {
  const qx = (q % 2) * 3, qy = Math.floor(q / 2) * 3;
  if (x < qx || x >= qx + 3 || y < qy || y >= qy + 3) return [x, y];
  const cx = x - qx, cy = y - qy;
  return twist === 'rotate' ? [qx + 2 - cy, qy + cx] : [qx + 2 - cx, qy + cy];
}

export class PentagoView extends GridView {
  constructor(game) {
    const W = 6 * C + GAP;
    super(game, {dataGame: 'pentago-twist', viewBox: `-62 -62 ${W + 124} ${W + 124}`, sideClass: 'pentago-side', actionsClass: 'actions pt-twists'});
    this.draw(null, null);   // sel: "x,y" of the chosen empty cell
  }

  seatColour(seat) { return seat === 0 ? '#f7f7f2' : '#161616'; }

  playerInfo(seat) { return seat === 0 ? 'White (W)' : seat === 1 ? 'Black (B)' : ''; }

  describe(rec, seats) {
    const who = seats?.[rec.player]?.name ? playerName(seats, rec.player) : (rec.player === 0 ? 'White' : 'Black');
    const verb = rec.twist === 'rotate' ? 'rotated' : 'flipped';
    return `${who} played (${rec.x},${rec.y}) and ${verb} quadrant ${rec.quadrant}`;
  }

  /** Legal entries of the chosen cell, by "quadrant,twist". */
  movesOf(key) { return this.entriesAt(key, (e) => `${e.quadrant},${e.twist}`); }

  spotOf(m) {
    if (!m || m.x === undefined) return null;
    const [px, py] = pos(m.x, m.y);
    return {x: px, y: py, w: C, h: C};
  }

  /** The analysis' better turn from this position (analysis.js): its cell outlined, its twist named. */
  showBetter(t) {
    this.svg.querySelector('.pt-better')?.remove();
    const m = t?.best_move;
    if (!m || m.x === undefined) return;
    const [px, py] = pos(m.x, m.y);
    this.svg.append(s('rect', {class: 'rv-better pt-better', x: px + 3, y: py + 3, width: C - 6, height: C - 6,
      dataset: {cell: `${m.x},${m.y}`, quadrant: m.quadrant, twist: m.twist}}));
  }

  draw(state, last) {
    const rows = state?.board || [];
    this.svg.replaceChildren();
    for (let q = 0; q < 4; q++) {
      const [x0, y0] = pos((q % 2) * 3, Math.floor(q / 2) * 3);
      const hit = last && last.quadrant === q;
      this.svg.append(s('rect', {class: 'pt-quadrant' + (hit ? ' twisted' : ''), x: x0 - 2, y: y0 - 2, width: 3 * C + 4, height: 3 * C + 4, rx: 8, dataset: {quadrant: q}}));
    }
    for (let i = 0; i < 6; i++) {
      const [px, py] = pos(i, i);
      this.svg.append(s('text', {class: 'pt-label', x: px + C / 2, y: -10, text: String(i)}));
      this.svg.append(s('text', {class: 'pt-label', x: -12, y: py + C / 2, text: String(i)}));
    }
    const live = this.turn && !this.turn.sent;
    const open = new Set((live ? this.turn.legal : []).map((e) => `${e.x},${e.y}`));
    for (let y = 0; y < 6; y++) {
      for (let x = 0; x < 6; x++) {
        const key = `${x},${y}`, [px, py] = pos(x, y);
        const cell = s('rect', {class: 'pt-cell' + (open.has(key) ? ' legal' : '') + (this.sel === key ? ' chosen' : ''), x: px, y: py, width: C, height: C, dataset: {cell: key}});
        if (open.has(key)) cell.addEventListener('click', () => this.choose(key));
        this.svg.append(cell);
        const v = rows[y]?.[x];
        if (v === 'W' || v === 'B') this.svg.append(s('circle', {class: 'pt-piece ' + v, cx: px + C / 2, cy: py + C / 2, r: C * 0.38, dataset: {cell: key, colour: v}}));
        else this.svg.append(s('circle', {class: 'pt-hole', cx: px + C / 2, cy: py + C / 2, r: C * 0.3}));
      }
    }
    if (this.sel) {
      const [x, y] = this.sel.split(',').map(Number), [px, py] = pos(x, y);
      const colour = this.state?.to_move === 1 ? 'B' : 'W';
      this.svg.append(s('circle', {class: 'pt-piece ghost ' + colour, cx: px + C / 2, cy: py + C / 2, r: C * 0.38}));
      // twist buttons on each quadrant's outer corner
      const opts = this.movesOf(this.sel);
      for (let q = 0; q < 4; q++) {
        const right = q % 2 === 1, bottom = q >= 2;
        const [x0, y0] = pos((q % 2) * 3, Math.floor(q / 2) * 3);
        const bx = right ? x0 + 3 * C + 6 : x0 - 54, by = bottom ? y0 + 3 * C + 6 : y0 - 54;
        ['rotate', 'flip'].forEach((tw, k) => {
          const e = opts[`${q},${tw}`];
          if (!e) return;
          const y = by + k * 26;
          const g = s('g', {class: 'pt-twist', dataset: {quadrant: q, twist: tw}}, [
            s('rect', {x: bx, y, width: 48, height: 24, rx: 5}),
            s('text', {x: bx + 24, y: y + 12, text: `${TWISTS[tw]} ${q}`})]);
          g.addEventListener('click', (ev) => { ev.stopPropagation(); this.send(e); });
          this.svg.append(g);
        });
      }
    }
    if (last && Number.isInteger(last.x)) {
      const [tx, ty] = twisted(last.x, last.y, last.quadrant, last.twist), [px, py] = pos(tx, ty);
      this.svg.append(s('rect', {class: 'pt-last', x: px + 2, y: py + 2, width: C - 4, height: C - 4, dataset: {cell: `${tx},${ty}`}}));
    }
    this.drawButtons();
  }

  /** The twists of the chosen cell as buttons under the board too (larger targets on a phone). */
  drawButtons() {
    this.actions.replaceChildren();
    if (!this.sel || !this.turn || this.turn.sent) return;
    const opts = this.movesOf(this.sel);
    for (let q = 0; q < 4; q++) {
      for (const tw of ['rotate', 'flip']) {
        const e = opts[`${q},${tw}`];
        if (!e) continue;
        this.actions.append(h('button', {id: `twist-${q}-${tw}`, class: 'pt-twist-button', title: `${tw} quadrant ${q}`,
          text: `${TWISTS[tw]} ${['top-left', 'top-right', 'bottom-left', 'bottom-right'][q]}`, onclick: () => this.send(e)}));
      }
    }
  }

  hintText() { return this.sel ? 'Now twist a quadrant: rotate ↻ (clockwise) or flip ⇆ (left–right).' : 'Click an empty cell for your piece.'; }

}
