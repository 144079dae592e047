// The analysis of a finished match under its replay (docs/analysis.md):
// an *Analyse* button sends `analyze`; the report comes back as the server
// made it (or at once from its store). Shown: P1's win probability over the
// game — with three to five seats, one line per player in the seat colours
// (click a point to go to that turn), each player's figures, and for
// the position on screen the turn played next beside the search's better
// turn, which the board draws where the view can (showBetter).

import {h, s, pLabel, SEAT_COLOURS} from './util.js';

const MARK_COLOURS = {inaccuracy: '#e0b000', mistake: '#e07000', blunder: '#d01010'};

// consecutive values come from different seats' searches, each a little kind to its own side:
// weights 1/4, 1/2, 1/4 cancel that swing with two seats and damp it with more (docs/analysis.md);
// the ends are kept as they are
const smooth = (raw) => raw.map((p, k) => (k === 0 || k === raw.length - 1 ? p : (raw[k - 1] + 2 * p + raw[k + 1]) / 4));

/** The win probability at each step (0: the start) as an SVG — P1's with two seats, every
 * seat's with more (reports of three to five seats carry after_by_seat); onPick(step). */
export function winChart(report, cursor, onPick) {
  const W = 320, H = 120, L = 30, R = 8, TOP = 8, B = 18;
  const seats = report.start_by_seat && report.start_by_seat.length > 2 ? report.start_by_seat.length : 1;
  const series = seats === 1
    ? [smooth([report.start.win, ...report.turns.map((t) => t.p1_after.win)])]
    : [...Array(seats).keys()].map((p) => smooth([report.start_by_seat[p].win, ...report.turns.map((t) => t.after_by_seat[p].win)]));
  const pts = series[0];
  const n = Math.max(1, pts.length - 1);
  const X = (k) => L + (k / n) * (W - L - R);
  const Y = (p) => TOP + (1 - p) * (H - TOP - B);
  const svg = s('svg', {viewBox: `0 0 ${W} ${H}`, class: 'winprob-chart', role: 'img',
    'aria-label': seats === 1 ? 'P1\'s win probability over the game' : 'each player\'s win probability over the game'});
  for (const p of [0, 0.5, 1]) {
    svg.append(s('line', {class: p === 0.5 ? 'axis' : 'grid', x1: L, x2: W - R, y1: Y(p), y2: Y(p)}));
    svg.append(s('text', {x: L - 4, y: Y(p) + 3, 'text-anchor': 'end', text: `${p * 100}%`}));
  }
  svg.append(s('text', {x: W - R, y: H - 4, 'text-anchor': 'end', text: `turn ${n}`}));
  series.forEach((ps, p) => {
    const d = ps.map((v, k) => `${k ? 'L' : 'M'}${X(k).toFixed(1)} ${Y(v).toFixed(1)}`).join('');
    svg.append(s('path', {d, fill: 'none', stroke: seats === 1 ? '#1f5fbf' : SEAT_COLOURS[p], 'stroke-width': seats === 1 ? 2 : 1.5,
      class: 'series', dataset: {seat: p}}));
    // the legend: the stylesheet's grey for chart text would hide the seat colours
    if (seats > 1) svg.append(s('text', {x: L + 4 + 22 * p, y: TOP + 10, class: 'legend', style: `fill: ${SEAT_COLOURS[p]}; font-weight: bold`, text: pLabel(p)}));
  });
  report.turns.forEach((t, i) => {
    if (!t.mark) return;
    const on = series[seats === 1 ? 0 : t.seat];
    svg.append(s('circle', {cx: X(i + 1), cy: Y(on[i + 1]), r: 3.5, fill: MARK_COLOURS[t.mark],
      class: 'mark', dataset: {turn: t.turn, mark: t.mark}}, [s('title', {text: `turn ${t.turn}: ${t.mark} (${t.played}; better ${t.best})`})]));
  });
  if (cursor !== null && cursor !== undefined)
    svg.append(s('line', {class: 'cursor', x1: X(cursor), x2: X(cursor), y1: TOP, y2: H - B}));
  svg.style.cursor = 'pointer';
  svg.addEventListener('click', (e) => {
    const r = svg.getBoundingClientRect();
    const x = ((e.clientX - r.left) / r.width) * W;
    onPick(Math.max(0, Math.min(n, Math.round(((x - L) / (W - L - R)) * n))));
  });
  return svg;
}

const pct = (p) => `${Math.round(p * 100)}%`;

// A client message may hold 64 KiB (docs/protocol.md, max_message_bytes); the envelope around a
// record sent for analysis takes a few bytes of it.
const MAX_MESSAGE = 65536, ENVELOPE = 64;

/** The analyze message for a source: a match by id, or a record file's record sent along — its
 * turns' thinking lines (info) left out: the analysis reads only the moves, and they are most of
 * a record's bytes. Returns {msg} or {error} (too large to send). */
export function analyzeMessage(source) {
  if (source.match) return {msg: {type: 'analyze', match: source.match}};
  const rec = {...source.record, turns: (source.record.turns || []).map((t) => {
    if (!t || typeof t !== 'object' || !('info' in t)) return t;
    const rest = {...t};
    delete rest.info;
    return rest;
  })};
  const msg = {type: 'analyze', record: rec};
  const bytes = new TextEncoder().encode(JSON.stringify(msg)).length;
  if (bytes + ENVELOPE > MAX_MESSAGE)
    return {error: `the record is too large to send for analysis (${Math.ceil(bytes / 1024)} KiB; a message may hold 64 KiB)`};
  return {msg};
}

export class AnalysisPanel {
  /** conn: the connection; source: {match} (a server's match) or {record} (a record file, sent
   * along: analysed each time, never stored); go(step): move the replay; view(): the board's view. */
  constructor(conn, source, go, view) {
    this.conn = conn;
    this.source = source;
    this.goTo = go;
    this.view = view;
    this.report = null;
    this.step = 0;
    this.status = h('span', {class: 'help', id: 'analysis-status'});
    this.button = h('button', {id: 'analyse', text: 'Analyse', title: 'search every position again: win probability, mistakes, luck',
      onclick: () => this.request()});
    this.body = h('div', {id: 'analysis-body'});
    this.el = h('div', {class: 'sec-analysis', id: 'analysis'}, [
      h('h3', {text: 'Analysis'}), h('div', {class: 'replay-controls'}, [this.button, ' ', this.status]), this.body]);
  }

  async request() {
    if (this.busy) return;
    this.busy = true;
    this.button.disabled = true;
    const {msg, error} = analyzeMessage(this.source);
    if (error) {
      this.status.textContent = `cannot analyse: ${error}`;
      this.busy = false;
      return; // the button stays disabled: the same file stays too large
    }
    this.status.textContent = 'the server is searching every position… (a minute at most)';
    try {
      const r = await this.conn.request(msg, 180000);
      if (r.type !== 'analysis') {
        this.status.textContent = `cannot analyse: ${r.code || r.type}: ${r.message || ''}`;
        this.button.disabled = false;
        return;
      }
      this.report = r.analysis;
      this.el.dataset.cached = String(!!r.cached);
      this.status.textContent = r.cached ? 'stored analysis' : 'analysed now';
      this.button.hidden = true;
      this.show(this.step);
    } catch (e) {
      this.status.textContent = `cannot analyse yet: ${e.message}`;
      this.button.disabled = false;
    } finally {
      this.busy = false;
    }
  }

  /** The analysis of step k: the graph's cursor, and the turn played from that position. */
  show(k) {
    this.step = k;
    const a = this.report;
    if (!a) return;
    this.body.replaceChildren(winChart(a, k, (j) => this.goTo(j)));
    const rows = a.players.map((p) => h('tr', {dataset: {seat: p.seat}}, [
      h('td', {}, [h('span', {class: 'plabel', text: pLabel(p.seat)})]),
      h('td', {class: 'num', text: `${(p.avg_loss_win * 100).toFixed(1)}%`}),
      h('td', {class: 'num', text: `${p.inaccuracies} / ${p.mistakes} / ${p.blunders}`}),
      ...(a.turns.some((t) => t.draw) ? [h('td', {class: 'num', text: `${p.luck >= 0 ? '+' : ''}${p.luck.toFixed(1)}`}),
        h('td', {class: 'num', text: pct(p.luck_share)})] : []),
    ]));
    const chance = a.turns.some((t) => t.draw);
    this.body.append(h('table', {class: 'scores-table', id: 'analysis-players'}, [
      h('tr', {}, [h('th', {text: ''}), h('th', {text: 'loss/move'}), h('th', {text: '?! / ? / ??'}),
        ...(chance ? [h('th', {text: 'luck'}), h('th', {text: 'luck share'})] : [])]), ...rows]));
    // the turn played from the position on screen (the next one), and the better one
    const t = a.turns[k];
    const line = h('div', {class: 'meta', id: 'analysis-turn'});
    if (!t) line.textContent = 'the end of the game';
    else if (!t.played) line.textContent = `turn ${t.turn}: no decision (${t.draw || ''})`;
    else {
      line.dataset.turn = String(t.turn);
      line.dataset.mark = t.mark || '';
      const who = pLabel(t.seat);
      line.append(`next, turn ${t.turn}: ${who} ${t.draw ? `drew ${t.draw}, ` : ''}played ${t.played} (win ${pct(t.played_value.win)})`);
      if (!t.same) line.append(h('br'), `better: ${t.best} (win ${pct(t.best_value.win)})`);
      if (t.mark) line.append(' ', h('strong', {class: 'mark-' + t.mark, text: t.mark}));
    }
    this.body.append(line);
    const view = this.view();
    view?.showBetter?.(t && t.played && !t.same ? t : null);
  }
}
