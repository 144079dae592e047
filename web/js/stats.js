// The server's figures (server_stats → stats, docs/protocol.md "Operators"),
// refreshed every two seconds, each with a line saying what it counts.

import {h, fmtClock} from './util.js';

/** Microseconds for people: "85 µs", "1.4 ms", "2.3 s". */
function fmtUs(us) {
  if (!Number.isFinite(us)) return '–';
  if (us < 1000) return `${Math.round(us)} µs`;
  if (us < 1e6) return `${(us / 1000).toFixed(us < 1e4 ? 1 : 0)} ms`;
  return `${(us / 1e6).toFixed(1)} s`;
}

function fmtKb(kb) {
  if (!Number.isFinite(kb)) return '–';
  return kb < 10240 ? `${kb} KiB` : `${(kb / 1024).toFixed(1)} MiB`;
}

function fmtUptime(ms) {
  if (!Number.isFinite(ms)) return '–';
  const d = Math.floor(ms / 86400000);
  return (d ? `${d} d ` : '') + fmtClock(ms % 86400000);
}

function hist(x) {
  if (!x || !x.count) return 'none yet';
  return `median ${fmtUs(x.p50_us)} · 99 % ≤ ${fmtUs(x.p99_us)} · max ${fmtUs(x.max_us)} (${x.count} measured)`;
}

// what the page shows: [field of the stats message, label, format, what it means]
const ROWS = [
  ['uptime_ms', 'up for', fmtUptime, 'since this server process started'],
  ['connections', 'connections', String, 'WebSocket clients connected now: browsers, bots, spectators (this page too)'],
  ['matches_live', 'live matches', String, 'waiting for players or being played'],
  ['matches_finished', 'matches finished', String, 'since the server started'],
  ['matches_kept', 'finished matches kept', String, 'the most recent ones, listed in the lobby and replayable (restored from the journal too)'],
  ['moves', 'moves played', String, 'since the server started, every seat and match'],
  ['searches', 'bot searches running', String, 'in-process bots thinking right now, one thread per core'],
  ['programs', 'programs running', String, 'external programs (cmd:) playing in seats now, each in its sandbox'],
  ['overhead', 'server overhead per move', hist, 'from a remote move\'s arrival to the next remote seat\'s your_turn being queued'],
  ['timeout_late', 'timeouts applied late by', hist, 'how long after a deadline the timeout policy was applied'],
  ['rss_peak_kb', 'peak memory', fmtKb, 'the largest resident size of the server process so far'],
];

export class StatsView {
  constructor(app) {
    this.app = app;
    this.conn = app.conn;
    this.title = 'Server stats';
    this.body = h('tbody');
    this.when = h('div', {class: 'help', id: 'stats-when', text: 'asking the server…'});
    this.el = h('div', {class: 'page stats'}, [
      h('h2', {text: 'Server stats'}),
      h('p', {class: 'help', text: 'What this tessera server reports about itself (the server_stats message); the same figures are logged when it stops.'}),
      h('table', {class: 'figures', id: 'stats'}, [this.body]),
      this.when,
    ]);
    this.onReady = () => this.refresh();
  }

  mount(root) {
    root.replaceChildren(this.el);
    this.conn.addEventListener('ready', this.onReady);
    if (this.conn.ready) this.refresh();
    this.timer = setInterval(() => this.refresh(), 2000);
  }

  unmount() {
    clearInterval(this.timer);
    this.conn.removeEventListener('ready', this.onReady);
  }

  async refresh() {
    if (!this.conn.ready) { this.when.textContent = 'not connected: the figures are from before'; return; }
    let r;
    try { r = await this.conn.request({type: 'server_stats'}); } catch { return; }
    if (r.type !== 'stats') {
      this.when.textContent = `the server refused: ${r.code || r.type}: ${r.message || ''}`;
      this.when.classList.add('error');
      return;
    }
    this.render(r);
  }

  render(r) {
    this.body.replaceChildren(...ROWS.filter(([k]) => k in r).map(([k, label, fmt, help]) =>
      h('tr', {dataset: {stat: k}}, [
        h('th', {text: label}),
        h('td', {}, [h('div', {class: 'value', text: fmt(r[k])}), h('div', {class: 'help', text: help})]),
      ])));
    this.when.classList.remove('error');
    this.when.textContent = `as of ${new Date().toLocaleTimeString()}, refreshed every 2 s`;
  }
}
