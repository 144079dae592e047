// Reversi at a table: an 8×8 board from the public state (rank 8 first, X
// Black = seat 0, O White = seat 1); a person clicks one of the legal squares
// or passes when that is the only move.

import {h, s, playerName} from './util.js';
import {GridView} from './grid-view.js';

const C = 50;   // world units per square
const FILES = 'abcdefgh';

export class ReversiView extends GridView {
  constructor(game) {
    super(game, {dataGame: 'reversi', viewBox: `-22 -50 ${8 * C + 30} ${8 * C + 58}`, sideClass: 'reversi-side'});
    this.svg.style.cursor = 'default';
    this.draw(null, null);
  }

  seatColour(seat) { return seat === 0 ? '#161616' : '#cfcfc4'; }

  playerInfo(seat) { return seat === 0 ? 'Black (X)' : seat === 1 ? 'White (O)' : ''; }

  describe(rec, seats) {
    const who = seats?.[rec.player]?.name ? playerName(seats, rec.player) : (rec.player === 0 ? 'Black' : 'White');
    return rec.move === 'pass' ? `${who} passed` : `${who} played ${rec.move}`;
  }

  draw(state, last) {
    this.svg.replaceChildren();
    this.svg.append(s('rect', {class: 'rv-board', x: 0, y: 0, width: 8 * C, height: 8 * C, rx: 4}));
    for (let i = 0; i < 8; i++) {
      this.svg.append(s('text', {class: 'rv-label', x: i * C + C / 2, y: -10, text: FILES[i]}));
      this.svg.append(s('text', {class: 'rv-label', x: -11, y: i * C + C / 2, text: String(8 - i)}));
    }
    const legal = new Set((this.turn?.legal || []).map((e) => e.move));
    const rows = state?.board || [];
    for (let r = 0; r < 8; r++) {
      for (let c = 0; c < 8; c++) {
        const sq = FILES[c] + (8 - r);
        const cell = s('rect', {class: 'rv-cell' + (legal.has(sq) && !this.turn?.sent ? ' legal' : ''), x: c * C, y: r * C, width: C, height: C, dataset: {square: sq}});
        if (legal.has(sq)) cell.addEventListener('click', () => this.sendSquare(sq));
        this.svg.append(cell);
        const v = rows[r]?.[c];
        if (v === 'X' || v === 'O') this.svg.append(s('circle', {class: 'rv-disc ' + v, cx: c * C + C / 2, cy: r * C + C / 2, r: C * 0.4, dataset: {square: sq, colour: v}}));
        else if (legal.has(sq) && !this.turn?.sent) this.svg.append(s('circle', {class: 'rv-hint', cx: c * C + C / 2, cy: r * C + C / 2, r: 5}));
      }
    }
    if (last && last.move && last.move !== 'pass') {
      const c = FILES.indexOf(last.move[0]), r = 8 - Number(last.move.slice(1));
      this.svg.append(s('rect', {class: 'rv-last', x: c * C + 2, y: r * C + 2, width: C - 4, height: C - 4}));
    }
  }

  spotOf(m) {
    const sq = m?.move;
    if (typeof sq !== 'string' || sq === 'pass') return null;
    return {x: FILES.indexOf(sq[0]) * C, y: (8 - Number(sq.slice(1))) * C, w: C, h: C};
  }

  /** The analysis' better turn from this position (analysis.js), outlined; null: none. */
  showBetter(t) {
    this.svg.querySelector('.rv-better')?.remove();
    const sq = t?.best_move?.move;
    if (!sq || sq === 'pass') return;
    const c = FILES.indexOf(sq[0]), r = 8 - Number(sq.slice(1));
    this.svg.append(s('rect', {class: 'rv-better', x: c * C + 4, y: r * C + 4, width: C - 8, height: C - 8, dataset: {square: sq}}));
  }

  hintText() { return this.mustPass() ? 'You have no move: pass.' : 'Click a marked square.'; }

  mustPass() { return (this.turn?.legal || []).some((e) => e.move === 'pass'); }

  refresh() {
    this.actions.replaceChildren();
    if (this.turn && !this.turn.sent && this.mustPass())
      this.actions.append(h('button', {id: 'pass', class: 'primary', text: 'Pass', onclick: () => this.sendSquare('pass')}));
    super.refresh();
  }

  /** Send the legal entry of square sq ("d3", or "pass"). */
  sendSquare(sq) {
    const e = (this.turn?.legal || []).find((x) => x.move === sq);
    if (e) this.send(e);
  }
}

/** Any other game: the state as JSON and the legal moves as buttons (the
 *  protocol lets a client play any game by echoing an entry of `legal`). */
export class GenericView {
  constructor(game) {
    this.game = game;
    this.pre = h('pre');
    this.boardEl = h('div', {class: 'board-wrap generic'}, [this.pre]);
    this.boardEl.style.overflow = 'auto';
    this.boardEl.style.padding = '1rem';
    this.actions = h('div', {class: 'actions'});
    this.sideEl = h('div', {}, [this.actions]);
    this.onMove = null;
  }
  setMessage() {}
  playerInfo() { return ''; }
  describe(rec) { return JSON.stringify(rec); }
  show(state) { this.pre.textContent = JSON.stringify(state, null, 1); }
  startTurn(msg) {
    this.turn = {turn: msg.turn};
    this.actions.replaceChildren(...(msg.legal || []).map((e) => h('button', {text: JSON.stringify(e), onclick: () => {
      if (this.onMove && this.onMove(msg.turn, e)) this.actions.replaceChildren();
    }})));
  }
  endTurn() { this.actions.replaceChildren(); }
  moveRefused() {}
  keydown() { return false; }
  destroy() {}
}
