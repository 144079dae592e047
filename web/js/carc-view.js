// Carcassonne at a table: the board, the drawn tile, the bag, and a person's
// turn — rotate, place on a highlighted cell, pick a meeple spot or none, send
// one move. Only placements from your_turn.legal can be made.

import {h, s, playerName} from './util.js';
import {CarcBoard} from './carc-board.js';
import {drawTile, rotationClasses} from './carc-tiles.js';

export class CarcView {
  constructor(game) {
    this.game = game;
    this.tiles = game.tiles || {};
    this.board = new CarcBoard(this.tiles);
    this.boardEl = this.board.el;
    this.drawnSvg = s('svg', {viewBox: '-3 -3 106 106', class: 'drawn-tile'});
    this.drawnText = h('div', {class: 'meta'});
    this.rotBtns = h('div', {class: 'controls'}, [
      h('button', {id: 'rot-ccw', title: 'rotate anticlockwise (Shift+R, ←)', text: '⟲', onclick: () => this.rotate(-1)}),
      h('button', {id: 'rot-cw', title: 'rotate clockwise (R, →)', text: '⟳', onclick: () => this.rotate(1)}),
    ]);
    this.actions = h('div', {class: 'actions'});
    this.hint = h('div', {class: 'help'});
    this.bagEl = h('div', {class: 'bag'});
    this.bagTitle = h('h3', {text: 'Bag'});
    // sideEl: what a player needs next to the board (kept high on a phone); moreEl: the rest
    this.sideEl = h('div', {class: 'carc-side'}, [
      h('h3', {text: 'Tile to place'}),
      h('div', {class: 'drawn'}, [this.drawnSvg, h('div', {}, [this.drawnText, this.rotBtns])]),
      this.hint, this.actions,
    ]);
    this.moreEl = h('div', {class: 'carc-more'}, [
      this.bagTitle, this.bagEl,
      h('div', {class: 'legend'}, ['Gold outlines: completed cities, roads and cloisters. Orange frame: the last tile placed. ',
        'Coordinates (x, y) as in the move list: x east, y south, the start tile at (0, 0).']),
    ]);
    this.rotBtns.hidden = true;
    this.state = null;
    this.turn = null;     // your_turn being answered
    this.rot = 0;
    this.pending = null;
    this.onMove = null;   // set by the table: sends a move
  }

  setMessage(text, mine) { this.board.setMessage(text, mine); }

  playerInfo(seat, state) {
    const left = state?.meeples_left?.[seat];
    return left === undefined ? '' : `${left} meeple${left === 1 ? '' : 's'} left`;
  }

  describe(rec, seats) {
    const who = playerName(seats, rec.player);
    if (rec.discarded) return `${who} drew ${rec.tile}: fits nowhere, discarded`;
    return `${who} placed ${rec.tile} at (${rec.x}, ${rec.y}) rot ${rec.rot}` + (rec.meeple ? `, meeple on ${rec.meeple}` : '');
  }

  /** Draw a state; last: the record of the turn that led to it; next (replays): the next turn's record
   *  ({tile, discarded, ...}: the tile it draws, which a replayed state does not hold, as it stops
   *  before the draw) or {end: true}. */
  show(state, last, next) {
    this.state = state;
    this.next = next ? (next.end ? {end: true} : {tile: next.tile, discarded: !!next.discarded}) : null;
    this.board.setState(state, last);
    this.drawDrawn();
    this.drawBag(state);
  }

  /** A thinking line's candidates [{move, share}] (thinking.js): their cells outlined with their share. */
  showThinking(cands) { this.board.setThinking(cands); }

  /** The analysis' better turn from this position (analysis.js): its tile drawn where it would go. */
  showBetter(t) { this.board.setBetter(t && t.best_move && t.draw ? t : null); }

  drawDrawn() {
    const st = this.state;
    const tile = this.turn ? this.turn.tile : st?.tile || this.next?.tile;
    this.drawnSvg.replaceChildren();
    this.drawnSvg.classList.toggle('none', !(tile && this.tiles[tile]));
    if (tile && this.tiles[tile]) {
      const rot = this.turn ? (this.pending ? this.pending.rot : this.rot) : 0;
      this.drawnSvg.append(drawTile(tile, this.tiles[tile], rot));
      this.drawnSvg.dataset.tile = tile;
      this.drawnSvg.dataset.rot = rot;
      this.drawnText.textContent = `${tile} — ${this.tiles[tile].count} in the game` +
        (!st?.tile && this.next?.discarded ? '; it fits nowhere and is discarded' : '');
    } else {
      delete this.drawnSvg.dataset.tile;
      this.drawnText.textContent = st && st.phase === 'over' ? 'the bag is empty'
        : this.next && this.next.end ? 'none: the game ended here' : 'no tile drawn';
    }
  }

  drawBag(state) {
    const bag = state?.bag || {};
    this.bagTitle.textContent = `Bag — ${state?.bag_left ?? '?'} tiles left` + (state?.discards ? `, ${state.discards} discarded` : '');
    if (!this.bagBuilt) {
      this.bagBuilt = new Map();
      for (const [type, def] of Object.entries(this.tiles)) {
        const svg = s('svg', {viewBox: '-2 -2 104 104'});
        svg.append(drawTile(type, def, 0));
        const n = h('span', {class: 'n'});
        const el = h('div', {class: 'bt', title: type, dataset: {tile: type}}, [svg, n]);
        this.bagEl.append(el);
        this.bagBuilt.set(type, {el, n});
      }
    }
    for (const [type, {el, n}] of this.bagBuilt) {
      const c = bag[type] ?? 0;
      n.textContent = String(c);
      el.dataset.count = c;
      el.classList.toggle('none', c === 0);
    }
  }

  // ---- a person's turn ----------------------------------------------------

  startTurn(msg) {
    const tile = msg.state?.tile;
    const def = this.tiles[tile];
    if (!def) return;
    const classes = rotationClasses(def.ports);
    const legal = new Map();          // "x,y,r" -> entry, for every r giving the entry's tile
    const cells = new Map();
    for (const e of msg.legal || []) {
      if (!Number.isInteger(e.x)) continue;
      for (let r = 0; r < 4; r++) if (classes[r] === classes[e.rot]) legal.set(`${e.x},${e.y},${r}`, e);
      cells.set(`${e.x},${e.y}`, {x: e.x, y: e.y});
    }
    const sameTurn = this.turn && this.turn.turn === msg.turn;
    this.turn = {turn: msg.turn, tile, legal, cells, classes, sent: false};
    if (!sameTurn) {
      this.pending = null;
      // start at the first rotation that fits somewhere
      this.rot = [0, 1, 2, 3].find((r) => [...cells.values()].some((c) => legal.has(`${c.x},${c.y},${r}`))) ?? 0;
    }
    this.rotBtns.hidden = false;
    this.refreshPlay();
  }

  endTurn() {
    this.turn = null;
    this.pending = null;
    this.rotBtns.hidden = true;
    this.board.setPlay(null);
    this.actions.replaceChildren();
    this.hint.textContent = '';
    this.drawDrawn();
  }

  entryAt(x, y, r) { return this.turn?.legal.get(`${x},${y},${r}`) || null; }

  refreshPlay() {
    const t = this.turn;
    if (!t) return;
    this.drawDrawn();
    this.actions.replaceChildren();
    if (t.sent) {
      this.board.setPlay(null);
      this.hint.textContent = 'move sent…';
      return;
    }
    if (!this.pending) {
      const cells = [...t.cells.values()].map((c) => ({...c, strong: !!this.entryAt(c.x, c.y, this.rot)}));
      this.board.setPlay({tile: t.tile, cells, pending: null,
        onCell: (x, y) => this.clickCell(x, y), onSpot: () => {}});
      const n = cells.filter((c) => c.strong).length;
      this.hint.replaceChildren(
        `${n} place${n === 1 ? '' : 's'} fit this rotation (bright). Click one to place; `,
        h('kbd', {text: 'R'}), ' / ', h('kbd', {text: 'Shift+R'}), ' rotate.');
    } else {
      const p = this.pending;
      this.board.setPlay({tile: t.tile, cells: [...t.cells.values()].map((c) => ({...c, strong: false})), pending: p,
        onCell: () => {}, onSpot: (port) => this.send(port)});
      this.actions.append(
        h('button', {id: 'no-meeple', class: 'primary', text: 'No meeple', title: 'place without a meeple (Enter)', onclick: () => this.send(null)}),
        h('button', {id: 'cancel-place', text: 'Back', title: 'pick another place (Esc)', onclick: () => this.cancel()}));
      const k = p.entry.meeples.length;
      this.hint.replaceChildren(k
        ? `Click a numbered spot (or press ${k === 1 ? '1' : `1–${Math.min(9, k)}`}) to put a meeple there, or `
        : 'No meeple can go on this tile. ', h('kbd', {text: 'Enter'}), ' for none, ', h('kbd', {text: 'R'}), ' another rotation, ', h('kbd', {text: 'Esc'}), ' back.');
    }
  }

  clickCell(x, y) {
    const t = this.turn;
    if (!t || t.sent || this.pending) return;
    let r = this.rot;
    if (!this.entryAt(x, y, r)) {
      // a cell that fits another rotation: turn the tile to it
      r = [1, 2, 3].map((d) => (this.rot + d) % 4).find((q) => this.entryAt(x, y, q));
      if (r === undefined) return;
      this.rot = r;
    }
    this.pending = {x, y, rot: r, entry: this.entryAt(x, y, r)};
    this.refreshPlay();
  }

  rotate(d) {
    const t = this.turn;
    if (!t || t.sent) return;
    if (!this.pending) {
      this.rot = (this.rot + d + 4) % 4;
    } else {
      // only to rotations that fit here and look different
      const p = this.pending;
      for (let i = 1; i < 4; i++) {
        const r = (p.rot + d * i + 8) % 4;
        if (t.classes[r] !== t.classes[p.rot] && this.entryAt(p.x, p.y, r)) {
          this.rot = r;
          this.pending = {x: p.x, y: p.y, rot: r, entry: this.entryAt(p.x, p.y, r)};
          break;
        }
      }
    }
    this.refreshPlay();
  }

  cancel() {
    if (!this.pending || this.turn?.sent) return;
    this.pending = null;
    this.refreshPlay();
  }

  send(port) {
    const t = this.turn, p = this.pending;
    if (!t || t.sent || !p) return;
    if (port !== null && !p.entry.meeples.includes(port)) return;
    const move = {x: p.x, y: p.y, rot: p.entry.rot};
    if (port) move.meeple = port;
    if (this.onMove && this.onMove(t.turn, move)) {
      t.sent = true;
      this.refreshPlay();
    }
  }

  /** The server refused the move: let the person try again. */
  moveRefused() {
    if (!this.turn) return;
    this.turn.sent = false;
    this.pending = null;
    this.refreshPlay();
  }

  keydown(e) {
    if (!this.turn || this.turn.sent) return false;
    const k = e.key;
    if (k === 'r' || k === 'R') { this.rotate(e.shiftKey ? -1 : 1); return true; }
    if (k === 'ArrowRight') { this.rotate(1); return true; }
    if (k === 'ArrowLeft') { this.rotate(-1); return true; }
    if (this.pending) {
      if (k === 'Escape' || k === 'Backspace') { this.cancel(); return true; }
      if (k === 'Enter' || k === 'n' || k === 'N') { this.send(null); return true; }
      if (/^[1-9]$/.test(k)) {
        const port = this.pending.entry.meeples[Number(k) - 1];
        if (port) this.send(port);
        return true;
      }
    }
    return false;
  }

  destroy() { this.board.destroy(); }
}
