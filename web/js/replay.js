// Replays: a finished match (by id) or a record file, stepped forwards and
// backwards, with the scores after each turn and a chart of them.
//
// The server computes every state (`replay` message): the UI never applies
// the rules itself.

import {h, SEAT_COLOURS, buildRecord, download, pLabel} from './util.js';
import {gameView} from './table.js';
import {scoreChart} from './chart.js';
import {parseGameLog} from './gamelog.js';
import {AnalysisPanel} from './analysis.js';
import {ThinkingPanel, shares, valueSeries} from './thinking.js';

export class ReplayView {
  constructor(app, source) {
    this.app = app;
    this.conn = app.conn;
    this.source = source;         // {match} or {record, logs: [{name, text}]}
    this.logs = [];               // parsed program logs (gamelog.js), one per seat that has one
    this.title = source.match ? `Replay ${source.match}` : `Replay of ${source.label || 'a record file'}`;
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
    // a program's debug and stderr for the turn shown, from its game log
    this.logEl = h('div', {class: 'game-log', id: 'replay-log'});
    this.logPick = h('input', {type: 'file', id: 'log-file', multiple: true, accept: '.log,text/plain',
      onchange: (e) => this.addLogFiles([...e.target.files])});
    this.logSec = h('div', {class: 'sec-log'}, [h('h3', {text: 'Programs\' logs'}), this.logEl,
      h('label', {class: 'help'}, ['add a program\'s log (game-NNNNNN.P1.log, from --out): ', this.logPick])]);
    this.gameSide = h('div', {class: 'game-side'});
    this.gameMore = h('div', {class: 'game-more'});
    this.actions = h('div', {class: 'actions'});
    this.thinking = new ThinkingPanel();
    this.side = h('aside', {class: 'side'}, [
      h('div', {class: 'head'}, [this.titleEl, this.metaEl, this.controls, h('div', {class: 'replay-controls'}, [this.slider, this.stepLabel]),
        this.moveEl]),
      h('div', {class: 'sec-players'}, [h('h3', {text: 'Scores'}), this.scoresEl, this.chartEl, this.resultEl]),
      this.thinking.el, this.logSec, this.gameSide, this.gameMore, this.actions,
    ]);
    this.el.append(this.boardSlot, this.side);
    this.onReady = () => { if (!this.data && !this.failed) this.load(); };
    this.onKey = (e) => this.keydown(e);
  }

  get max() { return this.data ? this.data.turns.length : 0; }

  /** Read log files the user picked, then show them. */
  async addLogFiles(files) {
    const texts = await Promise.all(files.map((f) => f.text().then((text) => ({name: f.name, text}))));
    this.addLogs(texts);
    if (this.data) this.go(this.step);
  }

  addLogs(items) {
    for (const {name, text} of items || []) {
      const log = parseGameLog(text);
      if (!log) { this.app.banner(`${name} is not a tessera game log`, 'warn'); continue; }
      this.logs = this.logs.filter((l) => l.seat !== log.seat).concat([log]).sort((a, b) => a.seat - b.seat);
    }
  }

  /** The logs' entries for turn k (the turn whose result is shown), and the ends at the last. */
  showLogs(k) {
    this.logEl.replaceChildren();
    if (!this.logs.length) {
      this.logEl.append(h('div', {class: 'help', text: 'none: a record from --out has one per program beside it'}));
      return;
    }
    for (const log of this.logs) {
      const entries = [];
      const turn = k > 0 ? log.turns.get(k) : null;
      if (turn) entries.push(turn);
      if (k === this.max && log.end) entries.push(log.end);
      const box = h('div', {class: 'log-seat', dataset: {seat: log.seat}}, [
        h('div', {}, [h('span', {class: 'plabel', text: pLabel(log.seat)}), ' ', h('code', {text: log.spec})])]);
      if (!entries.length) box.append(h('div', {class: 'help', text: k > 0 ? 'not its turn' : 'no turn yet'}));
      for (const e of entries) {
        box.append(h('div', {class: 'log-verdict verdict-' + e.verdict, text: e.line}));
        for (const d of e.debug) box.append(h('div', {class: 'log-debug', text: 'debug: ' + d}));
        for (const n of e.note) box.append(h('div', {class: 'log-note', text: n}));
        if (e.stderr.length) box.append(h('pre', {class: 'log-stderr', text: e.stderr.join('\n')}));
      }
      this.logEl.append(box);
    }
  }

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
      // the server closes a connection on a message over its limit: say so instead of sending it
      const limit = this.conn.welcome?.limits?.max_message_bytes;
      const size = new TextEncoder().encode(JSON.stringify({...msg, id: 'w000000000'})).length;
      if (limit && size > limit) {
        this.fail(`this record is ${size} bytes and the server takes messages of up to ${limit}: ` +
          'check it with "tessera replay FILE" instead');
        return;
      }
      const r = await this.conn.request(msg, 30000);
      if (r.type !== 'replayed') {
        this.fail(`cannot replay: ${r.code || r.type}: ${r.message || ''}`);
        return;
      }
      this.data = {game: r.game, rules: r.rules, initial: r.initial, turns: r.turns, result: r.result, seats: this.source.seats || r.seats};
      this.start();
    } catch (e) {
      // the connection dropped: 'ready' loads again once it is back
      this.metaEl.textContent = `cannot replay yet: ${e.message}`;
    } finally {
      this.loading = false;
    }
  }

  /** A refusal that reconnecting will not change. */
  fail(text) {
    this.failed = true;
    this.metaEl.textContent = text;
    this.metaEl.classList.add('error');
  }

  start() {
    const d = this.data;
    const game = this.app.game(d.game) || {name: d.game};
    this.view = gameView(game);
    this.boardSlot.replaceWith(this.view.boardEl);
    this.boardSlot = this.view.boardEl;
    this.gameSide.replaceChildren(this.view.sideEl);
    this.gameMore.replaceChildren(...(this.view.moreEl ? [this.view.moreEl] : []));
    const players = d.rules?.players || d.initial?.scores?.length || d.result?.scores?.length || 2;
    this.players = players;
    this.titleEl.textContent = `Replay — ${game.title || d.game}` + (this.source.match ? ` — ${this.source.match}` : ` — ${this.source.label || 'record file'}`);
    this.app.setTitle(`Replay ${game.title || d.game}` + (this.source.match ? ` ${this.source.match}` : ''));
    const rules = Object.entries(d.rules || {}).filter(([k]) => k !== 'players').map(([k, v]) => `${k}=${v}`).join(', ');
    this.metaEl.textContent = `${d.turns.length} turns · ${players} players` + (rules ? ` · ${rules}` : '');
    this.slider.max = String(d.turns.length);
    // scores after each step, for the chart
    this.series = [d.initial?.scores || new Array(players).fill(0), ...d.turns.map((t) => t.scores)];
    // each turn's last thinking line, as the record keeps it (records.md)
    this.lines = {};
    d.turns.forEach((t, i) => {
      if (t.record?.info) this.lines[i + 1] = {seat: t.record.player, turn: i + 1, info: t.record.info};
    });
    this.value = valueSeries(this.lines, d.turns.length, players);
    this.el.dataset.turns = String(d.turns.length);
    this.addLogs(this.source.logs);
    if (!this.analysis) { // under the scores: a server's match's analysis, or a record file's (sent along)
      const source = this.source.match ? {match: this.source.match} : {record: this.source.record};
      this.analysis = new AnalysisPanel(this.conn, source, (j) => this.go(j), () => this.view);
      this.side.querySelector('.sec-players').after(this.analysis.el);
    }
    this.actions.replaceChildren(h('button', {text: 'Download record', onclick: () =>
      download(`${this.source.match || 'record'}.json`, JSON.stringify(buildRecord(d.game, d.rules, d.turns.map((t) => t.record), d.result && {reason: d.result.reason || 'normal', scores: d.result.scores})))}));
    this.go(0);
  }

  stateAt(k) {
    return k === 0 ? this.data.initial : this.data.turns[k - 1].state;
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
    // the next turn's record (a view may show the chance outcome it starts with, which a replayed
    // state does not hold: it stops before the draw), or {end: true}
    const next = this.data.turns[k]?.record;
    this.view.show(st, last, next || {end: true});
    this.view.setMessage?.(k === this.max ? 'final position' : `after turn ${k}`);
    this.moveEl.textContent = last ? `${k}. ${this.view.describe(last, this.data.seats)}` : 'the start position';
    const scores = this.series[k];
    this.scoresEl.replaceChildren();
    for (let i = 0; i < this.players; i++) {
      const name = this.data.seats?.[i]?.name || '';
      this.scoresEl.append(h('tr', {dataset: {seat: i, score: scores ? scores[i] : ''}}, [
        h('td', {}, [h('span', {class: 'dot', style: `background:${this.view.seatColour?.(i) || SEAT_COLOURS[i % 5]}`}),
          h('span', {class: 'plabel', text: pLabel(i)}), ' ', name]),
        h('td', {class: 'num', text: scores ? String(scores[i]) : '–'}),
      ]));
    }
    this.chartEl.replaceChildren(scoreChart(this.series, k, (j) => this.go(j), (i) => this.view.seatColour?.(i), this.value));
    // what the seat to move next thought about this position
    const line = this.lines[k + 1] || null;
    this.thinking.show(line, this.data.seats, false);
    this.view.showThinking?.(line ? shares(line.info) : null);
    this.el.dataset.thinkingTurn = line ? String(line.turn) : '';
    this.showLogs(k);
    this.analysis?.show(k);
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
