// Replays: a finished match (by id) or a record file, stepped forwards and
// backwards, with the scores after each turn and a chart of them.
//
// The server computes every state (`replay` message): the UI never applies
// the rules itself. A server without `replay` (it answers unknown_type) still
// gives the history and the final state through `spectate`; then the steps
// show the tiles as placed (Carcassonne), and the scores and meeples only at
// the end.

import {h, SEAT_COLOURS, buildRecord, download} from './util.js';
import {gameView} from './table.js';
import {scoreChart} from './chart.js';

export class ReplayView {
  constructor(app, source) {
    this.app = app;
    this.conn = app.conn;
    this.source = source;         // {match} or {record}
    this.step = 0;
    this.data = null;
    this.el = h('div', {class: 'table replay', dataset: {replay: source.match || 'file'}});
    this.boardSlot = h('div', {class: 'board-wrap'});
    this.titleEl = h('h2', {text: 'Replay'});
    this.metaEl = h('div', {class: 'meta', text: 'loading…'});
    this.stepLabel = h('span', {id: 'step-label'});
    this.slider = h('input', {type: 'range', id: 'step-slider', min: 0, max: 0, value: 0, oninput: () => this.go(Number(this.slider.value))});
    const btn = (id, text, title, f) => h('button', {id, text, title, onclick: f});
    this.playBtn = btn('play', 'play', 'play / pause (Space)', () => this.togglePlay());
    this.controls = h('div', {class: 'replay-controls'}, [
      btn('first', '«', 'the start (Home)', () => this.go(0)),
      btn('prev', '‹ back', 'back one turn (←)', () => this.go(this.step - 1)),
      this.playBtn,
      btn('next', 'next ›', 'forward one turn (→)', () => this.go(this.step + 1)),
      btn('last', '»', 'the end (End)', () => this.go(this.max)),
    ]);
    this.scoresEl = h('table', {class: 'scores-table', id: 'replay-scores'});
    this.chartEl = h('div', {class: 'chart', id: 'chart'});
    this.moveEl = h('div', {class: 'meta', id: 'replay-move'});
    this.resultEl = h('div', {class: 'result', id: 'result'});
    this.noteEl = h('div', {class: 'help'});
    this.gameSide = h('div');
    this.actions = h('div', {class: 'actions'});
    this.side = h('aside', {class: 'side'}, [
      this.titleEl, this.metaEl, this.controls, h('div', {class: 'replay-controls'}, [this.slider, this.stepLabel]),
      this.moveEl, h('h3', {text: 'Scores'}), this.scoresEl, this.chartEl, this.resultEl, this.noteEl,
      this.gameSide, this.actions,
    ]);
    this.el.append(this.boardSlot, this.side);
    this.onReady = () => { if (!this.data) this.load(); };
    this.onKey = (e) => this.keydown(e);
  }

  get max() { return this.data ? this.data.turns.length : 0; }

  mount(root) {
    root.replaceChildren(this.el);
    this.conn.addEventListener('ready', this.onReady);
    document.addEventListener('keydown', this.onKey);
    if (this.conn.ready) this.load();
  }

  unmount() {
    this.conn.removeEventListener('ready', this.onReady);
    document.removeEventListener('keydown', this.onKey);
    clearInterval(this.playTimer);
    this.view?.destroy();
  }

  async load() {
    if (this.loading) return;
    this.loading = true;
    try {
      await this.app.loadCatalogue();
      const msg = this.source.match ? {type: 'replay', match: this.source.match} : {type: 'replay', record: this.source.record};
      let r = await this.conn.request(msg, 30000);
      if (r.type === 'replayed' || r.type === 'replay') {
        this.data = {game: r.game, rules: r.rules, initial: r.initial, turns: r.turns || [], result: r.result, seats: r.seats, full: true};
        if (!this.data.seats && this.source.match) this.data.seats = await this.seatNames();
      } else if (r.type === 'error' && (r.code === 'unknown_type' || r.code === 'bad_message')) {
        this.data = await this.fallback();
      } else {
        this.metaEl.textContent = `cannot replay: ${r.code}: ${r.message || ''}`;
        this.metaEl.classList.add('error');
        return;
      }
      if (!this.data) return;
      this.start();
    } catch (e) {
      this.metaEl.textContent = `cannot replay: ${e.message}`;
    } finally {
      this.loading = false;
    }
  }

  async seatNames() {
    try {
      const r = await this.conn.request({type: 'list_matches', status: 'finished'});
      return (r.matches || []).find((m) => m.match === this.source.match)?.seats;
    } catch { return undefined; }
  }

  /** Without the server's replay: the history and the final state. */
  async fallback() {
    if (this.source.match) {
      const r = await this.conn.request({type: 'spectate', match: this.source.match});
      this.conn.send({type: 'unspectate', match: this.source.match});
      if (r.type !== 'spectating') {
        this.metaEl.textContent = `cannot replay: ${r.code || r.type}: ${r.message || ''}`;
        return null;
      }
      return {game: r.game, rules: r.rules, initial: null, turns: (r.history || []).map((record) => ({record})),
        final: r.state, result: r.result, seats: r.seats, full: false};
    }
    const rec = this.source.record || {};
    if (!Array.isArray(rec.turns)) { this.metaEl.textContent = 'cannot replay: not a game record'; return null; }
    return {game: rec.game, rules: rec.rules, initial: null, turns: rec.turns.map((record) => ({record})),
      final: null, result: rec.result ? {scores: rec.result.scores} : null, full: false};
  }

  start() {
    const d = this.data;
    const game = this.app.game(d.game) || {name: d.game};
    this.view = gameView(game);
    this.boardSlot.replaceWith(this.view.boardEl);
    this.boardSlot = this.view.boardEl;
    this.gameSide.replaceChildren(this.view.sideEl);
    const players = d.rules?.players || d.initial?.scores?.length || d.result?.scores?.length || 2;
    this.players = players;
    this.titleEl.textContent = `Replay — ${game.title || d.game}` + (this.source.match ? ` — ${this.source.match}` : ' — record file');
    const rules = Object.entries(d.rules || {}).filter(([k]) => k !== 'players').map(([k, v]) => `${k}=${v}`).join(', ');
    this.metaEl.textContent = `${d.turns.length} turns · ${players} players` + (rules ? ` · ${rules}` : '');
    this.slider.max = String(d.turns.length);
    // scores after each step, for the chart
    this.series = [];
    if (d.full) {
      this.series.push(d.initial?.scores || new Array(players).fill(0));
      for (const t of d.turns) this.series.push(t.scores || t.state?.scores || null);
    } else {
      this.series = new Array(d.turns.length + 1).fill(null);
      this.series[0] = new Array(players).fill(0);
      const fin = d.final?.scores || d.result?.scores;
      if (fin) this.series[d.turns.length] = fin;
      this.noteEl.textContent = 'This server does not send replays yet: the scores after each turn (and the meeples) appear at the end only.';
    }
    this.el.dataset.turns = String(d.turns.length);
    this.actions.replaceChildren(h('button', {text: 'Download record', onclick: () =>
      download(`${this.source.match || 'record'}.json`, JSON.stringify(buildRecord(d.game, d.rules, d.turns.map((t) => t.record), d.result && {reason: d.result.reason || 'normal', scores: d.result.scores})))}));
    this.go(0);
  }

  stateAt(k) {
    const d = this.data;
    if (d.full) return k === 0 ? d.initial : d.turns[k - 1].state;
    if (k === d.turns.length && d.final) return d.final;
    if (d.game === 'carcassonne') {
      // the tiles as placed, no meeples or scores (the server has the rules)
      const board = [{x: 0, y: 0, tile: 'D', rot: 0}];
      for (const t of d.turns.slice(0, k)) if (!t.record.discarded) board.push({x: t.record.x, y: t.record.y, tile: t.record.tile, rot: t.record.rot});
      return {board, meeples: [], scores: this.series[k] || [], tile: d.turns[k]?.record?.tile ?? null, bag: null, bag_left: null};
    }
    return k === d.turns.length && d.final ? d.final : {};
  }

  go(k) {
    if (!this.data) return;
    k = Math.max(0, Math.min(this.max, k));
    this.step = k;
    this.slider.value = String(k);
    this.stepLabel.textContent = `turn ${k} / ${this.max}`;
    this.el.dataset.step = String(k);
    const st = this.stateAt(k) || {};
    const last = k > 0 ? this.data.turns[k - 1].record : null;
    this.view.show(st, last);
    this.view.setMessage?.(k === this.max ? 'final position' : `after turn ${k}`);
    this.moveEl.textContent = last ? `${k}. ${this.view.describe(last, this.data.seats)}` : 'the start position';
    const scores = this.series[k];
    this.scoresEl.replaceChildren();
    for (let i = 0; i < this.players; i++) {
      const name = this.data.seats?.[i]?.name || `seat ${i + 1}`;
      this.scoresEl.append(h('tr', {dataset: {seat: i, score: scores ? scores[i] : ''}}, [
        h('td', {}, [h('span', {class: 'dot', style: `background:${this.view.seatColour?.(i) || SEAT_COLOURS[i % 5]}`}), name]),
        h('td', {class: 'num', text: scores ? String(scores[i]) : '–'}),
      ]));
    }
    this.chartEl.replaceChildren(scoreChart(this.series, k, (j) => this.go(j), (i) => this.view.seatColour?.(i)));
    this.resultEl.replaceChildren();
    delete this.resultEl.dataset.scores;
    if (k === this.max) {
      const fin = this.data.result?.scores || scores;
      const r = this.data.result || {};
      if (fin) {
        this.resultEl.append(h('strong', {text: 'Final scores: '}), fin.join(' : ') + (r.reason && r.reason !== 'normal' ? ` (${r.reason})` : ''));
        this.resultEl.dataset.scores = fin.join(',');
      } else this.resultEl.textContent = 'an unfinished game';
    }
  }

  togglePlay() {
    if (this.playTimer) { clearInterval(this.playTimer); this.playTimer = null; this.playBtn.textContent = 'play'; return; }
    if (this.step >= this.max) this.go(0);
    this.playBtn.textContent = 'pause';
    this.playTimer = setInterval(() => {
      if (this.step >= this.max) { this.togglePlay(); return; }
      this.go(this.step + 1);
    }, 600);
  }

  keydown(e) {
    if (e.target && /INPUT|SELECT|TEXTAREA/.test(e.target.tagName)) return;
    const k = e.key;
    if (k === 'ArrowRight') this.go(this.step + 1);
    else if (k === 'ArrowLeft') this.go(this.step - 1);
    else if (k === 'Home') this.go(0);
    else if (k === 'End') this.go(this.max);
    else if (k === ' ') this.togglePlay();
    else if ((k === 'f' || k === 'F') && this.view?.board) this.view.board.fit(true);
    else return;
    e.preventDefault();
  }
}
