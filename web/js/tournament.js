// Tournaments: the list (list_tournaments, refreshed every few seconds) and
// one tournament's page (watch_tournament, then its tournament_update
// pushes): live standings with ratings and their 95% intervals, the
// cross-table, a ratings chart, every game with a link to watch it live or
// replay it, and the SVG plots of the server's report (get_tournament_plots).
//   #/tournaments        the list, and for the server's admin a form that creates
//                        and starts a tournament (create_tournament, start_tournament)
//   #/tournament/ID      one tournament

import {h, fmtDate, download, SEAT_COLOURS, pLabel, ADMIN_KEY, store, load} from './util.js';
import {elo, num, ratingsChart, crossTable} from './standings-charts.js';

const FORMATS = {'round-robin': 'Round-robin', gauntlet: 'Gauntlet', swiss: 'Swiss', knockout: 'Knockout', ladder: 'Ladder'};


function pct(x) { return Number.isFinite(x) ? `${Math.round(x * 100)}%` : '–'; }

/** "12 of 30 games · 2 running" from a tournament's counts. */
function progressText(t) {
  const c = t.counts || {};
  const total = t.format === 'ladder' ? null : c.expected;
  const parts = [total ? `${c.done} of ${total} games` : `${c.done} game${c.done === 1 ? '' : 's'} played`];
  if (c.running) parts.push(`${c.running} running`);
  if (c.void) parts.push(`${c.void} void`);
  return parts.join(' · ');
}

function stateBadge(state) {
  return h('span', {class: `tour-state ${state}`, text: state});
}

// ---- the list ------------------------------------------------------------------

/** The rows of a tournaments table (the list page and the lobby share it). */
export function tournamentRows(list) {
  if (!list.length) return [h('tr', {}, [h('td', {class: 'empty', colspan: 5, text: 'no tournaments yet'})])];
  return list.map((t) => h('tr', {dataset: {tournament: t.tournament, state: t.state}}, [
    h('td', {class: 'id'}, [h('a', {href: `#/tournament/${t.tournament}`, text: t.label || `Tournament ${t.tournament}`})]),
    h('td', {class: 'game', text: `${FORMATS[t.format] || t.format} · ${t.game}`}),
    h('td', {class: 'seats', text: `${t.participants} participants`}),
    h('td', {class: 'status'}, [stateBadge(t.state)]),
    h('td', {class: 'scores', text: progressText(t)}),
  ]));
}

/**
 * The participants a person types, one a line: `NAME=SPEC` or a bare SPEC
 * (named by itself), as `tessera tournament` takes them; blank lines and
 * `#` comments are skipped. Returns {participants} or {error}.
 */
export function parseParticipants(text) {
  const participants = [], seen = new Set();
  const lines = String(text).split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (!line || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    /* NAME=SPEC when what comes before the first '=' is a name (no ':'): bot specs have theirs after a ':' */
    const named = eq > 0 && !line.slice(0, eq).includes(':');
    const name = named ? line.slice(0, eq).trim() : line, spec = named ? line.slice(eq + 1).trim() : line;
    if (!spec) return {error: `line ${i + 1}: no spec after '${name}='`};
    if (seen.has(name)) return {error: `line ${i + 1}: the name '${name}' is taken: write NAME=SPEC`};
    seen.add(name);
    participants.push({name, spec});
  }
  if (participants.length < 2) return {error: 'a tournament needs at least two participants, one a line'};
  return {participants};
}

export class TournamentsView {
  constructor(app) {
    this.app = app;
    this.conn = app.conn;
    this.title = 'Tournaments';
    this.body = h('tbody');
    this.el = h('div', {class: 'page tournaments'}, [
      h('h2', {text: 'Tournaments'}),
      h('p', {class: 'help', text: 'Round-robins, gauntlets, Swiss, knockouts and ladders this server runs. Every game is an ordinary match: watch it live or replay it from the tournament\'s page. The server\'s admin creates them here, with `tessera tournament --url`, or with create_tournament (docs/protocol.md).'}),
      h('table', {class: 'matches', id: 'tournament-list'}, [
        h('thead', {}, [h('tr', {}, ['tournament', 'format', 'players', 'state', 'progress'].map((x) => h('th', {text: x})))]),
        this.body]),
      this.form(),
    ]);
    this.onReady = () => this.refresh();
  }

  /** The admin's form: a new tournament, started at once. */
  form() {
    const status = h('div', {class: 'create-status', id: 'new-tournament-status'});
    const games = () => (this.app.games || []).map((g) => g.name);
    const gameSel = h('select', {name: 'game'});
    const fillGames = () => {
      const names = games().length ? games() : ['carcassonne'];
      gameSel.replaceChildren(...names.map((g) => h('option', {value: g, text: this.app.game(g)?.title || g, selected: g === 'carcassonne'})));
    };
    this.fillGames = fillGames;
    fillGames();
    const num = (name, label, value, min, max, title) => h('label', {title}, [label + ' ',
      h('input', {name, type: 'number', min, max, value, inputmode: 'numeric'})]);
    const form = h('form', {class: 'create-tournament card', id: 'new-tournament', onsubmit: (e) => { e.preventDefault(); this.create(e.target.elements, status); }}, [
      h('h3', {text: 'New tournament (the server\'s admin)'}),
      h('label', {}, ['admin token ', h('input', {name: 'token', type: 'password', autocomplete: 'off', value: load(ADMIN_KEY), size: 26, required: true,
        title: 'printed by the server\'s first start; `tessera serve --admin-token-file F` writes it'})]),
      h('label', {}, ['name ', h('input', {name: 'label', maxlength: 64, placeholder: 'week 3 league'})]),
      h('label', {}, ['format ', h('select', {name: 'format'}, Object.entries(FORMATS).map(([v, t]) => h('option', {value: v, text: t})))]),
      h('label', {}, ['game ', gameSel]),
      h('label', {class: 'wide'}, ['participants, one a line: NAME=SPEC — a bot (mcts:sims=400), a program the server runs (cmd:python3 /path/bot.py) or a registered bot (remote:alice)',
        h('textarea', {name: 'participants', rows: 5, cols: 50, spellcheck: false,
          placeholder: 'mcts=mcts:sims=400\nheuristic\nalice=remote:alice'})]),
      num('games_per_pair', 'games per pair', 2, 1, 100000, 'games each table plays, rounded up to a multiple of the seats'),
      num('players', 'seats per table', 2, 2, 5),
      num('concurrency', 'games at once', 2, 1, 64),
      num('move_ms', 'ms per move', 5000, 1, 86400000),
      h('label', {}, ['a failed turn ', h('select', {name: 'fault'}, [h('option', {value: 'forfeit', text: 'forfeits the game'}), h('option', {value: 'random_move', text: 'is played at random'})])]),
      h('button', {type: 'submit', class: 'primary', text: 'create and start'}),
      status,
    ]);
    return form;
  }

  async create(el, status) {
    const said = (text, cls = 'create-status error') => { status.textContent = text; status.className = cls; };
    const parsed = parseParticipants(el.participants.value);
    if (parsed.error) { said(parsed.error); return; }
    const token = el.token.value.trim();
    store(ADMIN_KEY, token);
    const fault = el.fault.value;
    const msg = {type: 'create_tournament', admin_token: token, format: el.format.value, game: el.game.value,
      rules: {players: Number(el.players.value)}, participants: parsed.participants,
      games_per_pair: Number(el.games_per_pair.value), concurrency: Number(el.concurrency.value),
      time_control: {move_ms: Number(el.move_ms.value)}, policies: {timeout: fault, illegal: fault, disconnect: fault}};
    if (el.label.value.trim()) msg.label = el.label.value.trim();
    said('creating…', 'create-status');
    let r;
    try { r = await this.conn.request(msg); } catch (e) { said(`not sent: ${e.message}`); return; }
    if (r.type === 'error') { said(`${r.message} (${r.code})`); return; }
    const started = await this.conn.request({type: 'start_tournament', admin_token: token, tournament: r.tournament});
    if (started.type === 'error') { said(`created as ${r.tournament}, not started: ${started.message} (${started.code})`); return; }
    location.hash = `#/tournament/${r.tournament}`;
  }

  mount(root) {
    root.replaceChildren(this.el);
    this.conn.addEventListener('ready', this.onReady);
    if (this.conn.ready) this.refresh();
    this.timer = setInterval(() => this.refresh(), 3000);
    this.app.loadCatalogue?.().then(() => this.fillGames()).catch(() => {});
  }

  unmount() {
    clearInterval(this.timer);
    this.conn.removeEventListener('ready', this.onReady);
  }

  async refresh() {
    if (!this.conn.ready) return;
    let r;
    try { r = await this.conn.request({type: 'list_tournaments'}); } catch { return; }
    if (r.type !== 'tournaments') return;
    const key = JSON.stringify(r.tournaments);
    if (key === this.shown) return;
    this.shown = key;
    this.body.replaceChildren(...tournamentRows(r.tournaments));
  }
}

// ---- one tournament -----------------------------------------------------------------

export class TournamentView {
  constructor(app, id) {
    this.app = app;
    this.conn = app.conn;
    this.id = Number(id);
    this.title = `Tournament ${id}`;
    this.t = null;             // the tournament message, kept up to date
    this.games = new Map();    // game id -> game entry
    this.plotsAt = 0;
    this.headEl = h('div', {class: 'tour-head'});
    this.noteEl = h('div', {class: 'help', id: 'tour-note'});
    this.barEl = h('div', {class: 'bar'});
    this.standBody = h('tbody');
    this.standHead = h('thead');
    this.ratingsBox = h('div', {class: 'ratings-box', id: 'ratings-chart'});
    this.crossBox = h('div', {class: 'cross-box', id: 'crosstable'});
    this.gamesBody = h('tbody');
    this.plotsBox = h('div', {class: 'plots', id: 'plots'});
    this.el = h('div', {class: 'tournament', id: 'tournament', dataset: {tournament: id}}, [
      this.headEl,
      h('div', {class: 'progress', title: 'games done'}, [this.barEl]),
      this.noteEl,
      h('h2', {text: 'Standings'}),
      h('table', {class: 'standings', id: 'standings'}, [this.standHead, this.standBody]),
      h('p', {class: 'help', id: 'standings-help'}),
      h('div', {class: 'tour-grid'}, [
        h('section', {}, [h('h2', {text: 'Ratings, 95% intervals'}), this.ratingsBox]),
        h('section', {}, [h('h2', {text: 'Cross-table'}), this.crossBox]),
      ]),
      h('h2', {text: 'Games'}),
      h('table', {class: 'matches', id: 'tour-games'}, [
        h('thead', {}, [h('tr', {}, ['game', 'round', 'players', 'status', 'end', 'scores', ''].map((x) => h('th', {text: x})))]),
        this.gamesBody]),
      h('h2', {text: 'Plots'}),
      this.plotsBox,
    ]);
    this.onReady = () => this.watch();
    this.onMessage = (e) => this.message(e.detail);
  }

  mount(root) {
    root.replaceChildren(this.el);
    this.conn.addEventListener('ready', this.onReady);
    this.conn.addEventListener('message', this.onMessage);
    if (this.conn.ready) this.watch();
  }

  unmount() {
    this.conn.removeEventListener('ready', this.onReady);
    this.conn.removeEventListener('message', this.onMessage);
    clearTimeout(this.plotTimer);
    if (this.conn.ready) this.conn.send({type: 'unwatch_tournament', tournament: this.id});
  }

  async watch() {
    let r;
    try { r = await this.conn.request({type: 'watch_tournament', tournament: this.id}); } catch { return; }
    if (r.type === 'error') {
      this.el.replaceChildren(h('div', {class: 'card error', id: 'tour-error'}, [
        `${r.code}: ${r.message} `, h('a', {href: '#/tournaments', text: 'all tournaments'})]));
      return;
    }
    this.t = r;
    this.games = new Map((r.games || []).map((g) => [g.game, g]));
    this.title = r.label || `Tournament ${r.tournament}`;
    this.app.setTitle(this.title);
    this.renderHead();
    this.renderStandings();
    this.renderGames();
    this.loadPlots();
  }

  message(m) {
    if (m.type !== 'tournament_update' || m.tournament !== this.id || !this.t) return;
    this.t.state = m.state;
    this.t.counts = m.counts;
    this.t.note = m.note;
    if (m.game) {
      this.games.set(m.game.game, m.game);
      this.renderGames();
    }
    if (m.standings) {
      this.t.standings = m.standings;
      this.renderStandings();
      this.loadPlots();
    }
    this.renderHead();
  }

  renderHead() {
    const t = this.t;
    const rules = Object.entries(t.rules || {}).filter(([k]) => k !== 'players').map(([k, v]) => `${k}=${v}`).join(', ');
    this.headEl.replaceChildren(
      h('h1', {text: t.label || `Tournament ${t.tournament}`}),
      stateBadge(t.state),
      h('span', {class: 'help', text: `${FORMATS[t.format] || t.format} · ${t.game} at ${t.rules?.players || 2} seats${rules ? ` (${rules})` : ''} · ${t.participants} participants · ${t.concurrency} at once · ${Math.round((t.time_control?.move_ms || 0) / 100) / 10} s a move`}),
      h('span', {class: 'help', id: 'tour-progress', text: progressText(t)}),
      h('span', {class: 'help', text: `created ${fmtDate(t.created)}`}),
    );
    const c = t.counts || {};
    const total = t.format === 'ladder' ? 0 : c.expected || 0;
    this.barEl.style.width = total ? `${Math.min(100, 100 * c.done / total)}%` : '0';
    this.noteEl.textContent = t.note ? `paused by the server: ${t.note}` : '';
  }

  // ---- standings ----

  renderStandings() {
    const st = this.t.standings;
    const ladder = this.t.format === 'ladder';
    const swiss = this.t.format === 'swiss', ko = this.t.format === 'knockout';
    const cols = [['#', 'place'], ['participant', 'name'], ['games', 'g'], ['W–D–L', 'wdl'], ['points', 'pts'],
      ['rate', 'rate wide'], ['Elo', 'elo'], ['95% interval', 'ci wide']];
    if (swiss) cols.splice(5, 0, ['round pts', 'swiss wide'], ['Buchholz', 'buch wide']);
    if (ko) cols.splice(2, 0, ['reached', 'ko']);
    if (!ladder) cols.push(['league', 'league wide'], ['ms/move', 'ms wide'], ['faults', 'faults wide']);
    this.standHead.replaceChildren(h('tr', {}, cols.map(([t, c]) => h('th', {class: c, text: t}))));
    const rows = st?.standings || [];
    const help = document.getElementById('standings-help') || this.el.querySelector('#standings-help');
    if (!rows.length) {
      this.standBody.replaceChildren(h('tr', {}, [h('td', {class: 'empty', colspan: cols.length,
        text: st ? 'no game finished yet' : 'the standings are being computed…'})]));
    } else {
      this.standBody.replaceChildren(...rows.map((r) => {
        const cells = {
          place: String(r.place), name: null, g: String(r.games), wdl: `${r.wins}–${r.draws}–${r.losses}`,
          pts: num(r.points), rate: r.games ? `${pct(r.rate)} (${pct(r.rate_lo)}–${pct(r.rate_hi)})` : '–',
          elo: r.games ? elo(r.elo) : '–', ci: r.games ? `${elo(r.elo_lo)} … ${elo(r.elo_hi)}` : '–',
          swiss: num(r.swiss?.points), buch: num(r.swiss?.buchholz), ko: r.knockout ? r.knockout.stage : '',
          league: r.league ? String(r.league.points) : '', ms: r.ms_per_move ? num(r.ms_per_move, 0) : '–',
          faults: String(r.faults ?? 0),
        };
        const name = h('td', {class: 'name'}, [h('span', {class: 'pname', text: r.name}),
          r.reference ? h('span', {class: 'tag', text: 'reference', title: 'newcomers are placed against it'}) : null,
          r.newcomer ? h('span', {class: 'tag new', text: 'newcomer', title: 'still being placed against the references'}) : null,
          h('div', {class: 'spec', text: r.spec})]);
        return h('tr', {dataset: {participant: r.participant, games: r.games}}, cols.map(([, c]) => {
          const key = c.split(' ')[0];
          return key === 'name' ? name : h('td', {class: c, dataset: {label: key === 'g' ? 'games' : key === 'pts' ? 'pts' : ''}, text: cells[key]});
        }));
      }));
    }
    if (help) {
      const r = st?.ratings;
      help.textContent = st ? `Ratings: ${r?.model === 'bradley-terry' ? 'Bradley–Terry' : r?.model || ''} maximum likelihood on the Elo scale, a draw half a win${r?.anchor ? `, ${r.anchor} rated 0` : ', averaging 0'}; 95% intervals${r?.prior ? ' (with a weak prior: not everyone has both won and lost yet)' : ''}. Points: a win 1, a draw ½ (shared places at tables of more seats).${st.sprt ? ` SPRT: ${st.sprt.state}, LLR ${num(st.sprt.llr, 2)} in [${num(st.sprt.lower, 2)}, ${num(st.sprt.upper, 2)}].` : ''}` : '';
    }
    this.renderRatings(rows);
    this.renderCross(rows, st?.crosstable);
  }

  renderRatings(rows) { this.ratingsBox.replaceChildren(ratingsChart(rows)); }

  renderCross(rows, cross) { this.crossBox.replaceChildren(crossTable(rows, cross)); }

  // ---- games ----

  renderGames() {
    const list = [...this.games.values()].sort((a, b) => b.game - a.game);
    if (!list.length) {
      this.gamesBody.replaceChildren(h('tr', {}, [h('td', {class: 'empty', colspan: 7, text: 'no game started yet'})]));
      return;
    }
    this.gamesBody.replaceChildren(...list.slice(0, 500).map((g) => {
      const res = g.result;
      const links = h('td', {class: 'links'});
      if (g.match) {
        if (g.status === 'running') links.append(h('a', {href: `#/watch/${g.match}`, class: 'watch-link', text: 'watch live'}));
        else links.append(h('a', {href: `#/replay/${g.match}`, class: 'replay-link', text: 'replay'}), ' ',
          h('a', {href: `#/watch/${g.match}`, class: 'watch-link', text: 'final board'}));
        /* a program's fault: its bundle, for the admin (get_record's programs) */
        if (g.status === 'done' && res && res.culprit >= 0 && load(ADMIN_KEY))
          links.append(' ', h('a', {href: '#', class: 'bundle-link', title: 'the fault as a bundle: tessera doctor --replay FILE (docs/bundles.md)', text: 'fault bundle',
            onclick: (e) => { e.preventDefault(); this.fetchBundle(g, res.culprit, e.target); }}));
      }
      return h('tr', {dataset: {game: g.game, status: g.status, match: g.match || ''}}, [
        h('td', {class: 'id', text: `#${g.game}`}),
        h('td', {class: 'game', text: g.round !== undefined ? `round ${g.round + 1}` : `group ${g.group}`}),
        h('td', {class: 'seats'}, g.table.map((name, i) => h('div', {class: 'who'}, [
          h('span', {class: 'dot', style: `background:${SEAT_COLOURS[i % 5]}`}),
          h('span', {class: 'plabel', text: pLabel(i)}), ' ', name,
          res && res.rank[i] === 1 && !res.rank.every((x) => x === 1) ? ' ★' : '']))),
        h('td', {class: 'status status-' + (g.status === 'done' ? 'finished' : 'live'), text: g.status === 'done' ? 'finished' : g.status}),
        h('td', {class: 'turn', dataset: {label: 'end'}, text: res ? res.end + (res.culprit >= 0 ? ` (${pLabel(res.culprit)})` : '') : ''}),
        h('td', {class: 'scores', dataset: {label: 'scores'}, text: res ? res.score.map((x) => num(x, 0)).join(' : ') : ''}),
        links,
      ]);
    }));
  }

  /** Game g's fault bundle of seat `seat` saved as a file, or why there is none. */
  async fetchBundle(g, seat, link) {
    const r = await this.conn.request({type: 'get_record', match: g.match, admin_token: load(ADMIN_KEY)});
    const b = r.type === 'record' ? (r.programs || []).find((p) => p.seat === seat)?.bundle : null;
    if (b) download(`tournament-${this.id}-game-${g.game}-P${seat + 1}.json`, JSON.stringify(b, null, 1));
    else link.replaceWith(h('span', {class: 'help', text: r.type === 'error' ? r.message : 'no bundle: not a program\'s fault'}));
  }

  // ---- plots ----

  /** The report's SVG plots, at most every five seconds (they follow the standings). */
  loadPlots() {
    if (this.t?.format === 'ladder') {
      this.plotsBox.replaceChildren(h('div', {class: 'help', text: 'A ladder has no report plots: its ratings are drawn above.'}));
      return;
    }
    const wait = this.plotsAt + 5000 - Date.now();
    clearTimeout(this.plotTimer);
    if (wait > 0) { this.plotTimer = setTimeout(() => this.loadPlots(), wait); return; }
    this.plotsAt = Date.now();
    this.conn.request({type: 'get_tournament_plots', tournament: this.id}).then((r) => {
      if (r.type !== 'tournament_plots') return;
      const figs = [['ratings', 'Ratings with 95% intervals'], ['scores', 'Score distributions'], ['crosstable', 'Cross-table (score rates)']]
        .filter(([k]) => r[k]).map(([k, cap]) => h('figure', {dataset: {plot: k}}, [
          h('img', {src: 'data:image/svg+xml;charset=utf-8,' + encodeURIComponent(r[k]), alt: cap}),
          h('figcaption', {text: cap})]));
      this.plotsBox.replaceChildren(...(figs.length ? figs : [h('div', {class: 'help', text: 'no plots yet'})]));
    }).catch(() => {});
  }
}
