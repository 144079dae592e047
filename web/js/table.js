// A match at the table: watching (spectate) or playing a seat (join/resume).
// Everything comes from the server's messages: the full view (spectating,
// joined, resumed) replaces what we show; each update moves it on by one turn;
// your_turn hands the seat's move to the game view. When the connection drops
// we say so, and when it is back we subscribe again and get the full view.
//
// When another tab or device takes the seat over (`resume` elsewhere; this
// connection gets `seat_taken`), this tab says so, stops offering moves, keeps
// watching, and offers to take the seat back with the resume token it holds.
// It never takes it back on its own, so two tabs cannot fight over a seat.

import {h, fmtClock, seatStore, SEAT_COLOURS, buildRecord, download, pLabel, pSeat, playerName} from './util.js';
import {CarcView} from './carc-view.js';
import {ReversiView, GenericView} from './reversi-view.js';
import {DodgemView} from './dodgem-view.js';
import {PentagoView} from './pentago-view.js';
import {scoreChart} from './chart.js';
import {ThinkingPanel, shares, valueSeries} from './thinking.js';

const NOTIFY_KEY = 'tessera.notify';

/* The views' registry: one line per game with a board of its own (by the
 * engine's name); any other game is shown as JSON with `legal` as buttons. */
const VIEWS = {
  'carcassonne': CarcView,
  'reversi': ReversiView,
  'dodgem': DodgemView,
  'pentago-twist': PentagoView,
};

export function gameView(game) {
  const View = Object.hasOwn(VIEWS, game?.name) ? VIEWS[game.name] : GenericView;
  return new View(game || {});
}

export class TableView {
  constructor(app, matchId, mode) {
    this.app = app;
    this.conn = app.conn;
    this.id = matchId;
    this.mode = mode;            // 'watch' | 'play'
    this.seat = null;            // our seat when playing
    this.lost = false;           // play mode: another connection took the seat over; we watch
    this.series = [];            // scores after turn k (k = 0: the start), for the chart
    this.lines = {};             // thinking lines by turn: the latest {seat, turn, info} (spectators only)
    this.thinking = new ThinkingPanel();
    this.history = [];
    this.state = null;
    this.seats = [];
    this.result = null;
    this.view = null;
    this.clock = null;           // {seat, left, at} for the seat to move
    this.title = `match ${matchId}`;
    this.el = h('div', {class: 'table', dataset: {match: matchId, mode}});
    this.titleEl = h('h2', {text: `match ${matchId}`});
    this.metaEl = h('div', {class: 'meta', text: 'loading…'});
    this.noticeEl = h('div', {class: 'notice', id: 'seat-notice', hidden: true});
    this.playersEl = h('div', {class: 'players'});
    this.resultEl = h('div', {class: 'result', id: 'result'});
    this.gameSide = h('div', {class: 'game-side'});
    this.gameMore = h('div', {class: 'game-more'});
    this.chartEl = h('div', {class: 'chart', id: 'live-chart'});
    this.tableActions = h('div', {class: 'actions'});
    this.notifyEl = this.notifyControl();
    this.logEl = h('div', {class: 'log', id: 'log'});
    this.side = h('aside', {class: 'side'}, [
      h('div', {class: 'head'}, [this.titleEl, this.metaEl, this.noticeEl]),
      h('div', {class: 'sec-players'}, [h('h3', {text: 'Players'}), this.playersEl, this.resultEl]),
      this.gameSide,
      this.thinking.el,
      this.chartSec = h('div', {class: 'sec-chart', hidden: true}, [h('h3', {text: 'Scores by turn'}), this.chartEl]),
      this.gameMore, this.tableActions, this.notifyEl,
      h('div', {class: 'sec-moves'}, [h('h3', {text: 'Moves'}), this.logEl]),
    ]);
    this.boardSlot = h('div', {class: 'board-wrap'});
    this.el.append(this.boardSlot, this.side);
    this.onMessage = (e) => this.message(e.detail);
    this.onReady = () => this.subscribe();
    this.onDown = () => this.connectionLost();
    this.onKey = (e) => this.keydown(e);
  }

  mount(root) {
    root.replaceChildren(this.el);
    this.conn.addEventListener('message', this.onMessage);
    this.conn.addEventListener('ready', this.onReady);
    this.conn.addEventListener('down', this.onDown);
    document.addEventListener('keydown', this.onKey);
    this.ticker = setInterval(() => this.tick(), 100);
    if (this.conn.ready) this.subscribe();
  }

  unmount() {
    this.unmounted = true;
    this.conn.removeEventListener('message', this.onMessage);
    this.conn.removeEventListener('ready', this.onReady);
    this.conn.removeEventListener('down', this.onDown);
    document.removeEventListener('keydown', this.onKey);
    clearInterval(this.ticker);
    if ((this.mode === 'watch' || this.lost) && this.conn.ready) this.conn.send({type: 'unspectate', match: this.id});
    this.view?.destroy();
  }

  /** Playing a seat here now (not watching, and the seat not taken over by another tab). */
  get playing() { return this.mode === 'play' && !this.lost && this.seat !== null; }

  // ---- subscription --------------------------------------------------------

  async subscribe() {
    this.synced = false;
    // the tile maps and rule names come first: the views draw from them
    try { await this.app.loadCatalogue(); } catch { return; /* the connection dropped: 'ready' comes again */ }
    if (!this.conn.ready || this.unmounted) return;
    if (this.mode === 'play' && !this.lost) {
      const rec = seatStore.get(this.id);
      if (rec?.resume_token) { this.conn.send({type: 'resume', resume_token: rec.resume_token, id: 'sub'}); return; }
      if (rec?.token !== undefined && rec?.seat !== undefined) {
        this.conn.send({type: 'join', match: this.id, seat: rec.seat, token: rec.token, id: 'sub'});
        return;
      }
      this.note('This browser holds no seat in this match: watching instead.');
      this.mode = 'watch';
      this.el.dataset.mode = 'watch';
    }
    this.conn.send({type: 'spectate', match: this.id, id: 'sub'});
  }

  resync() {
    // missed a turn somehow: ask for the full view again
    if (this.mode === 'watch' || this.lost) this.conn.send({type: 'unspectate', match: this.id});
    this.subscribe();
  }

  /** Another connection took our seat (or holds it): stop playing, say so, keep watching. */
  seatLost(why) {
    this.lost = true;
    if (this.view?.turn) this.view.endTurn();
    delete this.el.dataset.myTurn;
    this.el.dataset.seatLost = why;
    const canTakeBack = !!seatStore.get(this.id)?.resume_token;
    const you = this.seat !== null ? pLabel(this.seat) : 'this seat';
    this.noticeEl.replaceChildren(
      h('strong', {text: why === 'taken' ? `Your seat (${you}) is now played in another tab or window.` : 'Another tab or window holds this seat.'}),
      ' This tab now only watches. ',
      canTakeBack ? h('button', {id: 'take-back', class: 'primary', text: 'Take the seat back', title: 'play here again (the other tab then only watches)',
        onclick: () => this.takeBack()}) : 'This browser holds no resume token for the seat, so it cannot take it over.');
    this.noticeEl.hidden = false;
    this.render();
    // the seat's updates went with it: watch to keep the board current
    if (this.conn.ready) {
      this.synced = false;
      this.conn.send({type: 'spectate', match: this.id, id: 'sub'});
    }
  }

  /** Resume the seat here; the connection that holds it now is told (seat_taken) and only watches. */
  takeBack() {
    const rec = seatStore.get(this.id);
    if (!rec?.resume_token || !this.conn.ready) return;
    this.conn.send({type: 'unspectate', match: this.id});
    this.synced = false;
    this.conn.send({type: 'resume', resume_token: rec.resume_token, id: 'sub'});
  }

  seatBack() {
    this.lost = false;
    delete this.el.dataset.seatLost;
    this.noticeEl.hidden = true;
    this.noticeEl.replaceChildren();
  }

  connectionLost() {
    this.synced = false;
    this.view?.setMessage('connection lost — reconnecting…');
    if (this.view?.turn) this.view.endTurn();
    delete this.el.dataset.myTurn;
  }

  // ---- messages --------------------------------------------------------------

  message(m) {
    if (m.match !== undefined && m.match !== this.id) return;
    switch (m.type) {
      case 'spectating': case 'joined': case 'resumed': this.fullView(m); break;
      case 'update': this.update(m); break;
      case 'seats': this.seatsChanged(m); break;
      case 'thinking': this.thinkingLine(m); break;
      case 'your_turn': this.yourTurn(m); break;
      case 'game_over': this.gameOver(m); break;
      case 'move_accepted': break;
      case 'error': this.error(m); break;
      default: break;
    }
  }

  /** Who is connected changed (a seat joined, dropped, resumed): the players and the open seats' tokens again. */
  seatsChanged(m) {
    if (!Array.isArray(m.seats)) return;
    this.seats = m.seats;
    if (this.synced) this.render();
  }

  fullView(m) {
    // reached through a server that forwards to the match's: go there (conn.js, follow); 'ready' then subscribes again
    if (m.owner_url) this.conn.follow(m.owner_url);
    if (m.type !== 'spectating') {
      if (this.lost) this.seatBack();
      this.seat = m.seat;
      const rec = seatStore.get(this.id) || {};
      seatStore.set(this.id, {seat: m.seat, resume_token: m.resume_token, name: rec.name});
    }
    const game = this.app.game(m.game);
    if (!this.view || this.view.game?.name !== m.game) {
      this.view?.destroy();
      this.view = gameView(game || {name: m.game});
      this.view.onMove = (turn, move) => this.sendMove(turn, move);
      this.boardSlot.replaceWith(this.view.boardEl);
      this.boardSlot = this.view.boardEl;
      this.gameSide.replaceChildren(this.view.sideEl);
      this.gameMore.replaceChildren(...(this.view.moreEl ? [this.view.moreEl] : []));
    }
    this.gameName = m.game;
    this.gameTitle = game?.title || m.game;
    this.title = `${this.gameTitle} ${this.id}`;
    this.app.setTitle(this.title);
    this.rules = m.rules;
    this.seats = m.seats || [];
    this.history = (m.history || []).slice();
    this.state = m.state;
    this.status = m.status;
    this.result = m.result || null;
    this.setClocks(m.clocks, this.toMove());
    this.synced = true;
    this.view.endTurn?.();
    delete this.el.dataset.myTurn;
    this.logEl.replaceChildren();
    this.history.forEach((rec, i) => this.log(i + 1, rec));
    this.series = [];
    if (this.state?.scores) this.series[this.history.length] = this.state.scores;
    if (this.history.length) this.loadSeries();
    this.render();
    if (this.result) this.showResult({result: this.result, scores: this.result.scores || this.state?.scores});
    this.el.dataset.synced = String(this.history.length);
  }

  update(m) {
    if (!this.synced) return;
    if (m.turn !== this.history.length + 1) { this.resync(); return; }
    this.history.push(m.record);
    this.state = m.state;
    const sc = m.state?.scores || m.scores;
    if (sc) this.series[m.turn] = sc;
    if (this.status !== 'finished') this.status = 'live';
    this.log(m.turn, m.record, m.by === 'server' ? m.reason : null);
    if (this.view?.turn && this.view.turn.turn <= m.turn) { this.view.endTurn(); delete this.el.dataset.myTurn; }
    this.setClocks(m.clocks, m.next ? m.next.seat : null);
    this.render();
    this.el.dataset.synced = String(this.history.length);
  }

  /** A seat's thinking line (docs/protocol.md): kept by turn; the current turn's is shown. */
  thinkingLine(m) {
    if (!this.synced || !Number.isInteger(m.turn) || !m.info) return;
    this.lines[m.turn] = {seat: m.seat, turn: m.turn, info: m.info};
    this.showThinking();
    this.drawChart();
  }

  /** The line about the position on the board (the turn to come), or, once it is played, the last one's. */
  showThinking() {
    const n = this.history.length;
    const cur = this.lines[n + 1];
    this.thinking.show(cur || this.lines[n] || null, this.seats, !!cur);
    this.view?.showThinking?.(cur ? shares(cur.info) : null);
    this.el.dataset.thinkingTurn = cur ? String(cur.turn) : '';
  }

  yourTurn(m) {
    if (!this.synced || !this.view) return;
    if (m.state) this.state = m.state;
    if (this.status !== 'finished') this.status = 'live';
    this.setClocks(m.clocks, m.seat);
    if (Number.isFinite(m.time_left_ms)) this.clock = {seat: m.seat, left: m.time_left_ms, at: performance.now()};
    const fresh = this.el.dataset.myTurn !== String(m.turn);
    this.view.startTurn(m);
    this.el.dataset.myTurn = String(m.turn);
    this.render();
    if (fresh) this.notify(m);
  }

  gameOver(m) {
    this.status = 'finished';
    if (this.lost) this.noticeEl.hidden = true;   // nothing left to take back
    this.result = m.result || {};
    if (this.view?.turn) this.view.endTurn();
    delete this.el.dataset.myTurn;
    this.clock = null;
    this.showResult(m);
    this.render();
  }

  error(m) {
    if (m.code === 'seat_taken' && this.mode === 'play' && !this.lost &&
        (m.id === 'sub' || (m.id === undefined && (m.match === undefined || m.match === this.id)))) {
      // a notice without id: another connection resumed our seat; with id 'sub': our join found it held
      this.seatLost(m.id === 'sub' ? 'held' : 'taken');
      return;
    }
    if (m.id === 'sub') {
      if (this.mode === 'play' && !this.lost) {
        const rec = seatStore.get(this.id);
        if (m.code === 'match_over' || m.code === 'unknown_match') {
          // nothing to play any more: show the match as it ended
          this.mode = 'watch';
          this.el.dataset.mode = 'watch';
          if (m.code === 'unknown_match') { this.note(`unknown match ${this.id}`); return; }
          this.conn.send({type: 'spectate', match: this.id, id: 'sub'});
          return;
        }
        if (rec?.resume_token && m.code === 'bad_token' && rec.token) {
          seatStore.set(this.id, {resume_token: undefined});
          this.subscribe();
          return;
        }
      }
      this.note(`${m.code}: ${m.message || ''}`);
      return;
    }
    if (m.id === 'move') {
      this.note(`move refused — ${m.code}: ${m.message || ''}`, true);
      this.view?.moveRefused();
      return;
    }
    if (m.code) this.note(`${m.code}: ${m.message || ''}`, true);
  }

  sendMove(turn, move) {
    return this.conn.send({type: 'move', match: this.id, turn, move, id: 'move'});
  }

  // ---- drawing ---------------------------------------------------------------

  toMove() {
    const st = this.state;
    if (!st || this.status === 'finished' || this.status === 'waiting') return null; // nobody's clock runs
    return Number.isInteger(st.to_move) ? st.to_move : null;
  }

  setClocks(clocks, toMove) {
    this.clocks = clocks || [];
    const c = this.clocks.find((x) => x.seat === toMove);
    if (toMove === null || toMove === undefined) this.clock = null;
    else if (c && Number.isFinite(c.time_left_ms)) this.clock = {seat: toMove, left: c.time_left_ms, at: performance.now()};
    else if (!this.clock || this.clock.seat !== toMove || this.clock.left !== null) this.clock = {seat: toMove, left: null, at: performance.now()};
  }

  render() {
    const st = this.state || {};
    this.titleEl.textContent = `${this.gameTitle || ''} — ${this.id}`;
    const rules = Object.entries(this.rules || {}).filter(([k]) => k !== 'players').map(([k, v]) => `${k}=${v}`).join(', ');
    const turnNo = this.history.length;
    this.metaEl.textContent = `${this.status || ''} · ${turnNo} turn${turnNo === 1 ? '' : 's'} played` + (rules ? ` · ${rules}` : '') +
      (this.playing ? ` · you play ${pLabel(this.seat)}` : this.lost ? ' · watching' : '');
    this.metaEl.dataset.status = this.status || '';
    this.renderPlayers();
    const last = this.history[this.history.length - 1] || null;
    this.view?.show(st, last);
    this.showThinking();
    this.renderMessage();
    this.drawChart();
    this.app.setYourTurn(this.playing && this.status !== 'finished' && this.el.dataset.myTurn !== undefined);
    this.notifyEl.hidden = !(this.playing && this.status !== 'finished') || !('Notification' in window);
    this.tableActions.replaceChildren();
    const open = seatStore.get(this.id)?.open;
    if (this.status === 'waiting' && open?.length) {
      // this browser created the match: the tokens of the seats still to be joined
      const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/`;
      this.tableActions.append(h('div', {class: 'tokens'}, [h('div', {text: 'Open seats: hand each token to its bot.'}),
        ...open.filter((o) => this.seats[o.seat] && !this.seats[o.seat].connected).map((o) => h('div', {class: 'token', dataset: {seat: o.seat}}, [`${pSeat(o.seat)}: `,
          h('code', {text: `tessera bot --url ${url} --match ${this.id} --seat ${o.seat} --token ${o.token} --bot SPEC`})]))]));
    }
    if (this.playing && this.status !== 'finished') {
      this.tableActions.append(h('button', {id: 'resign', text: 'Resign', onclick: () => {
        if (confirm('Resign this match?')) this.conn.send({type: 'resign', match: this.id});
      }}));
    }
    if (this.status === 'finished') {
      this.tableActions.append(h('a', {href: `#/replay/${this.id}`, id: 'open-replay', text: 'Replay this match'}));
    }
    this.tableActions.append(h('button', {text: 'Download record', title: 'the game record so far (docs/records.md)', onclick: () =>
      download(`${this.id}.json`, JSON.stringify(buildRecord(this.gameName, this.rules, this.history, this.status === 'finished' ? this.result : null)))}));
  }

  renderMessage() {
    if (!this.view) return;
    if (!this.conn.ready) { this.view.setMessage('connection lost — reconnecting…'); return; }
    if (this.status === 'finished') { this.view.setMessage('game over'); return; }
    if (this.status === 'waiting') { this.view.setMessage('waiting for players to join'); return; }
    const tm = this.toMove();
    if (tm === null) { this.view.setMessage(''); return; }
    const mine = this.playing && tm === this.seat;
    const name = this.lost && tm === this.seat ? `${pLabel(tm)} (played elsewhere)` : playerName(this.seats, tm);
    let t = mine ? 'Your turn' : `${name} to move`;
    if (this.clock && this.clock.seat === tm) {
      t += this.clock.left !== null ? ` — ${fmtClock(this.clock.left - (performance.now() - this.clock.at))}`
        : ` — thinking ${fmtClock(performance.now() - this.clock.at)}`;
    }
    this.view.setMessage(t, mine);
  }

  renderPlayers() {
    const st = this.state || {};
    const scores = st.scores || [];
    const tm = this.toMove();
    const winners = new Set(this.status === 'finished' ? (this.result?.winners || []) : []);
    this.playersEl.replaceChildren();
    this.clockEls = [];
    this.seats.forEach((seat, i) => {
      const clockEl = h('div', {class: 'clock'});
      this.clockEls[i] = clockEl;
      const you = this.playing && this.seat === i;
      const kind = seat.kind === 'bot' ? 'bot' : you ? 'you' : this.lost && this.seat === i ? 'your seat, played elsewhere'
        : seat.connected ? 'remote' : 'not connected';
      const el = h('div', {class: 'player' + (tm === i ? ' to-move' : '') + (winners.has(i) ? ' winner' : '') + (seat.connected === false ? ' disconnected' : ''),
        dataset: {seat: i, score: scores[i] ?? 0}}, [
        h('span', {class: 'swatch', style: `background:${this.view?.seatColour?.(i) || SEAT_COLOURS[i % 5]}`}),
        h('span', {class: 'name', title: `${pSeat(i)}${seat.name ? ': ' + seat.name : ''}`}, [
          h('span', {class: 'plabel', text: pLabel(i)}), ' ', `${seat.name || ''}${you ? ' (you)' : ''}`]),
        h('span', {class: 'score', text: String(scores[i] ?? 0)}),
        h('span', {class: 'info', text: [kind, this.view?.playerInfo(i, st)].filter(Boolean).join(' · ')}),
        clockEl,
      ]);
      this.playersEl.append(el);
    });
    this.tick();
  }

  tick() {
    if (!this.clockEls) return;
    const tm = this.toMove();
    this.clocks?.forEach((c) => {
      const el = this.clockEls[c.seat];
      if (!el) return;
      if (this.clock && this.clock.seat === c.seat && tm === c.seat) {
        if (this.clock.left !== null) {
          const left = this.clock.left - (performance.now() - this.clock.at);
          el.textContent = fmtClock(left) + ' left';
          el.classList.toggle('low', left < 5000);
        } else el.textContent = fmtClock(performance.now() - this.clock.at) + ' so far';
      } else {
        el.textContent = c.bank_ms ? `bank ${fmtClock(c.bank_ms)}` : '';
        el.classList.remove('low');
      }
    });
    this.renderMessage();
  }

  showResult(m) {
    const r = m.result || {};
    const scores = m.scores || r.scores || this.state?.scores || [];
    const winners = (r.winners || []).map((w) => playerName(this.seats, w));
    const why = r.reason && r.reason !== 'normal' ? ` (${r.reason}${r.seat !== undefined ? ` of ${playerName(this.seats, r.seat)}` : ''})` : '';
    this.resultEl.replaceChildren(
      h('strong', {text: 'Game over' + why + '. '}),
      winners.length > 1 ? `Draw between ${winners.join(' and ')}. ` : winners.length ? `${winners[0]} wins. ` : '',
      `Final scores: ${scores.join(' : ')}.`);
    this.resultEl.dataset.scores = scores.join(',');
  }

  /** The scores of the turns before we came: the server's replay of the match so far. */
  async loadSeries() {
    const gen = (this.seriesGen = (this.seriesGen || 0) + 1);
    let r;
    try { r = await this.conn.request({type: 'replay', match: this.id}, 30000); } catch { return; }
    if (gen !== this.seriesGen || r.type !== 'replayed' || this.unmounted) return;
    [r.initial?.scores, ...(r.turns || []).map((t) => t.scores)].forEach((sc, k) => {
      if (sc && !this.series[k]) this.series[k] = sc;
    });
    // the last thinking line of each turn played before we came (the record keeps them)
    (r.turns || []).forEach((t, i) => {
      if (t.record?.info && !this.lines[i + 1]) this.lines[i + 1] = {seat: t.record.player, turn: i + 1, info: t.record.info};
    });
    this.drawChart();
  }

  drawChart() {
    const n = this.history.length;
    if (!this.view) return;
    this.chartSec.hidden = n === 0;   // nothing to draw before the first turn
    const points = Array.from({length: n + 1}, (_, k) => this.series[k] || null);
    const value = valueSeries(this.lines, n, this.seats.length);
    this.chartEl.replaceChildren(scoreChart(points, null, null, (i) => this.view?.seatColour?.(i), value));
    this.chartEl.dataset.turns = String(n);
    this.chartEl.dataset.known = String(points.filter(Boolean).length);
    this.chartEl.dataset.last = (points[n] || []).join(',');
  }

  // ---- the turn cue: the tab's title (app.setYourTurn) and, if allowed, a notification

  notifyControl() {
    const box = h('input', {type: 'checkbox', id: 'notify-turn'});
    const note = h('span', {class: 'help'});
    const el = h('label', {class: 'notify', hidden: true}, [box, ' Notify me when it is my turn and this tab is hidden ', note]);
    if (!('Notification' in window)) return el;
    const show = () => {
      const perm = Notification.permission;
      box.checked = perm === 'granted' && localStorage.getItem(NOTIFY_KEY) === '1';
      box.disabled = perm === 'denied';
      note.textContent = perm === 'denied' ? '(blocked in this browser\'s site settings)' : '';
    };
    box.addEventListener('change', async () => {
      if (!box.checked) { localStorage.setItem(NOTIFY_KEY, '0'); show(); return; }
      let perm = Notification.permission;
      if (perm === 'default') { try { perm = await Notification.requestPermission(); } catch { perm = 'denied'; } }
      localStorage.setItem(NOTIFY_KEY, perm === 'granted' ? '1' : '0');
      show();
    });
    show();
    return el;
  }

  notify(m) {
    if (!document.hidden || !('Notification' in window) || Notification.permission !== 'granted') return;
    if (localStorage.getItem(NOTIFY_KEY) !== '1') return;
    try {
      const left = Number.isFinite(m.time_left_ms) ? ` — ${fmtClock(m.time_left_ms)} to move` : '';
      const n = new Notification(`Your turn — ${this.gameTitle || 'tessera'}`, {body: `match ${this.id}, turn ${m.turn}${left}`, tag: `tessera-${this.id}`});
      n.onclick = () => { window.focus(); n.close(); };
    } catch { /* some browsers allow notifications only from a service worker */ }
  }

  log(turn, rec, serverReason) {
    if (!this.view) return;
    const text = `${turn}. ${this.view.describe(rec, this.seats)}` + (serverReason ? ` (server: ${serverReason})` : '');
    this.logEl.prepend(h('div', {text}));
    while (this.logEl.childElementCount > 200) this.logEl.lastElementChild.remove();
  }

  note(text, transient) {
    this.app.banner(text, transient ? 'warn' : 'info');
  }

  keydown(e) {
    if (e.target && /INPUT|SELECT|TEXTAREA/.test(e.target.tagName)) return;
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (this.view?.keydown(e)) { e.preventDefault(); return; }
    const b = this.view?.board;
    if (!b) return;
    if (e.key === '+' || e.key === '=') { b.pz.zoomBy(1 / 1.25); e.preventDefault(); }
    else if (e.key === '-') { b.pz.zoomBy(1.25); e.preventDefault(); }
    else if (e.key === 'f' || e.key === 'F' || e.key === '0') { b.fit(true); e.preventDefault(); }
  }
}
