// The tessera web UI: one WebSocket (docs/protocol.md), a hash router and
// four kinds of page — the lobby, a table (watch or play), a replay and the
// server's figures.
//   #/                  lobby
//   #/watch/ID          spectate a match
//   #/play/ID           play the seat this browser holds (join, then resume)
//   #/replay/ID         replay a finished match
//   #/replay/file       replay the record file chosen in the lobby
//   #/stats             the server's figures (server_stats)
//   #/tournaments       the server's tournaments
//   #/tournament/ID     one tournament: standings, cross-table, ratings, games, plots
//   #/course            a student's course page; #/instructor[/ID] the instructor's (course.js)
//   #/course-game/ID    replay a course's game (gate or final) with its players' names

import {h} from './util.js';
import {Connection} from './conn.js';
import {LobbyView} from './lobby.js';
import {TableView} from './table.js';
import {ReplayView} from './replay.js';
import {StatsView} from './stats.js';
import {TournamentsView, TournamentView} from './tournament.js';
import {StudentView, InstructorView, CourseGameView} from './course.js';

class App {
  constructor() {
    const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/`;
    this.conn = new Connection(url, 'tessera-web/1');
    this.root = document.getElementById('app');
    this.connEl = document.getElementById('conn');
    this.bannerEl = document.getElementById('banner');
    this.games = null;
    this.bots = null;
    this.view = null;
    this.baseTitle = document.title;
    this.yourTurn = false;
    this.conn.addEventListener('status', () => this.showConnection());
    this.conn.addEventListener('ready', (e) => {
      // a restarted server may offer other games or bots (one of the same cluster offers the same)
      if (!e.detail?.moved) this.catalogue = null;
      if (e.detail?.moved) this.hideBanner();   // on the match's own server (conn.js, follow): nothing was lost
      else if (e.detail?.reconnected) this.banner('reconnected — back in sync', 'ok', 2500);
      else this.hideBanner();
      // the operator's opt-out of the programs' full isolation, told to everyone
      document.getElementById('sandbox-note').hidden = this.conn.welcome?.sandbox !== 'partial';
    });
    // where the page talks to, for the curious and the tests: the match's server (moved), or why not
    this.conn.addEventListener('route', (e) => { document.body.dataset.route = e.detail.result; });
    this.conn.addEventListener('down', () => this.banner('connection to the server lost — reconnecting…', 'down'));
    window.addEventListener('hashchange', () => this.route());
    this.statusTimer = setInterval(() => this.showConnection(), 500);
  }

  start() {
    this.conn.connect();
    this.route();
  }

  /** list_games and list_bots, once per connection. */
  loadCatalogue() {
    if (!this.catalogue) {
      this.catalogue = (async () => {
        await this.conn.whenReady();
        const [g, b] = await Promise.all([this.conn.request({type: 'list_games'}), this.conn.request({type: 'list_bots'})]);
        this.games = g.games || [];
        this.bots = b.bots || [];
        this.commonOptions = b.common_options || []; // sims, ms, seed, mem: every bot takes them
      })().catch((e) => { this.catalogue = null; throw e; });
    }
    return this.catalogue;
  }

  game(name) { return (this.games || []).find((g) => g.name === name) || null; }

  route() {
    const parts = location.hash.replace(/^#\/?/, '').split('/').filter(Boolean);
    this.view?.unmount();
    this.view = null;
    let view;
    if (parts[0] === 'watch' && parts[1]) view = new TableView(this, parts[1], 'watch');
    else if (parts[0] === 'play' && parts[1]) view = new TableView(this, parts[1], 'play');
    else if (parts[0] === 'replay' && parts[1] === 'file') {
      if (!this.pendingRecord) { location.hash = '#/'; return; }
      view = new ReplayView(this, {record: this.pendingRecord, logs: this.pendingLogs});
    } else if (parts[0] === 'replay' && parts[1]) view = new ReplayView(this, {match: parts[1]});
    else if (parts[0] === 'stats') view = new StatsView(this);
    else if (parts[0] === 'tournaments') view = new TournamentsView(this);
    else if (parts[0] === 'tournament' && parts[1]) view = new TournamentView(this, parts[1]);
    else if (parts[0] === 'course') view = new StudentView(this);
    else if (parts[0] === 'instructor') view = new InstructorView(this, parts[1]);
    else if (parts[0] === 'course-game' && parts[1]) view = new CourseGameView(this, parts[1], ReplayView);
    else view = new LobbyView(this);
    document.body.dataset.page = parts[0] || 'lobby';
    const navPage = {tournament: 'tournaments', 'course-game': 'course'}[document.body.dataset.page] || document.body.dataset.page;
    for (const a of document.querySelectorAll('header.top nav a[data-page]')) a.classList.toggle('here', a.dataset.page === navPage);
    const more = document.querySelector('header.top details.more');
    if (more) { // the phone's menu: closed once a page is chosen, marked when it holds the page shown
      more.open = false;
      more.querySelector('summary').classList.toggle('here', !!more.querySelector(`a[data-page="${navPage}"]`));
    }
    this.setYourTurn(false);
    this.setTitle(view.title || '');
    this.view = view;
    view.mount(this.root);
  }

  /** The tab's title: what the page shows, then "tessera". */
  setTitle(text) {
    this.baseTitle = text ? `${text} — tessera` : 'tessera';
    this.showTitle();
  }

  /** The cue that it is this browser's turn: a mark at the head of the tab's title. */
  setYourTurn(on) {
    this.yourTurn = !!on;
    this.showTitle();
  }

  showTitle() {
    document.title = this.yourTurn ? `● Your turn — ${this.baseTitle}` : this.baseTitle;
  }

  showConnection() {
    const c = this.conn;
    const el = this.connEl;
    el.className = c.state;
    document.body.dataset.conn = c.state;
    el.title = c.url;
    if (c.state === 'open') el.textContent = 'connected';
    else if (c.state === 'connecting') el.textContent = 'connecting…';
    else {
      const secs = c.retryAt ? Math.max(0, Math.ceil((c.retryAt - Date.now()) / 1000)) : 0;
      el.textContent = `offline — retry in ${secs} s`;
    }
  }

  banner(text, kind = 'info', ms = 0) {
    clearTimeout(this.bannerTimer);
    this.bannerEl.replaceChildren(text, ' ');
    if (kind === 'down') this.bannerEl.append(h('a', {href: '#', text: 'retry now', onclick: (e) => { e.preventDefault(); this.conn.retryNow(); }}));
    this.bannerEl.className = 'show ' + (kind === 'ok' ? 'ok' : '');
    this.bannerEl.dataset.kind = kind;
    if (ms || kind === 'info' || kind === 'warn') this.bannerTimer = setTimeout(() => this.hideBanner(), ms || 6000);
  }

  hideBanner() {
    this.bannerEl.className = '';
    this.bannerEl.dataset.kind = '';
  }
}

const app = new App();
window.tessera = app;   // for the console and the browser tests
app.start();
