// What the small-board views share (Reversi, Dodgem, Pentago-Twist): the
// board panel (an SVG and the table's message line), the side panel (a hint,
// action buttons, optional extra lines), and a turn in which a person may
// pick a piece or a cell first (`sel`) and then one of the legal entries,
// which is sent once, as it came in `legal`. A view subclasses GridView and
// writes draw(state, last), describe(), seatColour(), playerInfo() and
// hintText(); the table (table.js) calls the rest.

import {h, s} from './util.js';
import {drawThinking} from './thinking.js';

export class GridView {
  /** opts: dataGame (the svg's data-game), viewBox, sideClass, actionsClass, extra (side elements after the buttons). */
  constructor(game, opts) {
    this.game = game;
    this.boardEl = h('div', {class: 'board-wrap'});
    this.svg = s('svg', {class: 'board', 'data-game': opts.dataGame, preserveAspectRatio: 'xMidYMid meet', ...(opts.viewBox ? {viewBox: opts.viewBox} : {})});
    this.boardEl.append(this.svg);
    this.msg = h('div', {class: 'board-msg'});
    this.boardEl.append(this.msg);
    this.actions = h('div', {class: opts.actionsClass || 'actions'});
    this.hint = h('div', {class: 'help'});
    this.sideEl = h('div', {class: opts.sideClass}, [this.hint, this.actions, ...(opts.extra || [])]);
    this.turn = null;
    this.sel = null;
    this.onMove = null;
  }

  setMessage(text, mine) { this.msg.textContent = text || ''; this.msg.classList.toggle('mine', !!mine); }

  show(state, last) { this.state = state; this.last = last; this.draw(state, last); this.drawThink(); }

  /** A thinking line's candidates [{move, share}] outlined on the board (thinking.js); null clears.
   *  A view says where a move is with spotOf(move) → {x, y, w, h} in its svg's units, or null. */
  showThinking(cands) { this.think = cands || null; this.drawThink(); }

  drawThink() {
    const spots = (this.think || []).map((c) => {
      const p = this.spotOf?.(c.move);
      return p && {...p, share: c.share, key: JSON.stringify(c.move)};
    }).filter(Boolean);
    drawThinking(this.svg, spots);
  }

  /** The legal entries at cell key ("x,y"), by name(entry). */
  entriesAt(key, name) {
    const out = {};
    for (const e of this.turn?.legal || []) if (`${e.x},${e.y}` === key) out[name(e)] = e;
    return out;
  }

  /** Pick (or drop) a piece or cell during one's turn. */
  choose(key) {
    if (!this.turn || this.turn.sent) return;
    this.sel = this.sel === key ? null : key;
    this.refresh();
  }

  startTurn(msg) {
    this.turn = {turn: msg.turn, legal: msg.legal || [], sent: false};
    this.sel = null;
    this.refresh();
  }

  refresh() {
    const t = this.turn;
    this.hint.textContent = t && !t.sent ? this.hintText() : t?.sent ? 'move sent…' : '';
    this.draw(this.state, this.last);
    this.drawThink();
  }

  endTurn() { this.turn = null; this.sel = null; this.refresh(); }

  /** Send legal entry e as the move (once; moveRefused() allows another). */
  send(e) {
    const t = this.turn;
    if (!t || t.sent || !t.legal.includes(e)) return;
    if (this.onMove && this.onMove(t.turn, {...e})) { t.sent = true; this.sel = null; this.refresh(); }
  }

  moveRefused() { if (this.turn) { this.turn.sent = false; this.refresh(); } }

  keydown(ev) {
    if (ev.key === 'Escape' && this.sel) { this.sel = null; this.refresh(); return true; }
    return false;
  }

  destroy() {}
}
