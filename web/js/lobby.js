// The lobby: live and finished matches (list_matches, refreshed every two
// seconds) and the form that creates a match (create_match) from the games
// (list_games) and bots (list_bots) the server offers.

import {h, fmtDate, seatStore, SEAT_COLOURS, pLabel, pSeat} from './util.js';
import {tournamentRows} from './tournament.js';

// Units of the options every bot takes (list_bots common_options); each option's
// meaning is the server's own help line, shown under it.
const UNITS = {ms: 'ms', mem: 'MiB'};
const COLUMNS = ['match', 'game', 'players', 'status', 'turn', 'scores', ''];

export class LobbyView {
  constructor(app) {
    this.app = app;
    this.conn = app.conn;
    this.title = 'Lobby';
    this.liveBody = h('tbody');
    this.doneBody = h('tbody');
    this.tourBody = h('tbody');
    this.shown = new Map();      // tbody -> what it shows (as JSON)
    this.formBox = h('div', {class: 'card', id: 'new-match'});
    this.el = h('div', {class: 'lobby'}, [
      h('div', {class: 'lobby-bar'}, [
        h('button', {class: 'primary', id: 'new-match-button', text: '+ New match', title: 'to the form that creates a match',
          onclick: () => this.toForm()}),
        h('span', {class: 'help', text: 'Watch a live match, replay a finished one, or start one against the server\'s bots.'}),
      ]),
      h('div', {class: 'lists'}, [
        h('h2', {text: 'Live matches'}),
        h('table', {class: 'matches', id: 'live-matches'}, [this.head(), this.liveBody]),
        h('h2', {text: 'Finished matches'}),
        h('table', {class: 'matches', id: 'finished-matches'}, [this.head(), this.doneBody]),
        h('h2', {}, [h('a', {href: '#/tournaments', text: 'Tournaments'})]),
        h('table', {class: 'matches', id: 'lobby-tournaments'}, [this.tourBody]),
        h('h2', {text: 'Replay a record file'}),
        h('div', {class: 'card'}, [
          h('input', {type: 'file', id: 'record-file', multiple: true, accept: '.json,.log,application/json,text/plain',
            onchange: (e) => this.openRecord([...e.target.files])}),
          h('div', {class: 'help', text: 'A game record (docs/records.md), e.g. from `tessera play --record`, "Download record" at a table, ' +
            'or `tessera match --out`; pick its programs\' logs (game-NNNNNN.P1.log) with it to see their debug and stderr turn by turn.'}),
        ]),
      ]),
      h('div', {class: 'create-col'}, [h('h2', {text: 'New match'}), this.formBox]),
    ]);
    this.onReady = () => this.load();
  }

  head() {
    return h('thead', {}, [h('tr', {}, COLUMNS.map((t) => h('th', {text: t})))]);
  }

  /** Bring the create form into view (the lobby's first button: on a phone the form is far below). */
  toForm() {
    this.formBox.scrollIntoView({block: 'start', behavior: 'smooth'});
    (this.gameSel || this.formBox).focus({preventScroll: true});
  }

  mount(root) {
    root.replaceChildren(this.el);
    this.conn.addEventListener('ready', this.onReady);
    if (this.conn.ready) this.load();
    this.timer = setInterval(() => this.refresh(), 2000);
  }

  unmount() {
    clearInterval(this.timer);
    this.conn.removeEventListener('ready', this.onReady);
  }

  async load() {
    try { await this.app.loadCatalogue(); } catch { return; /* the connection dropped: 'ready' loads again */ }
    if (!this.form) this.buildForm();
    this.refresh();
  }

  async refresh() {
    if (!this.conn.ready) return;
    let r;
    try { r = await this.conn.request({type: 'list_matches', status: 'all'}); } catch { return; }
    if (r.type !== 'matches') return;
    this.render(r.matches || []);
    let t;
    try { t = await this.conn.request({type: 'list_tournaments'}); } catch { return; }
    if (t.type !== 'tournaments') return;
    const key = JSON.stringify(t.tournaments);
    if (this.shown.get(this.tourBody) === key) return;
    this.shown.set(this.tourBody, key);
    this.tourBody.replaceChildren(...tournamentRows(t.tournaments.slice(0, 10)));
  }

  render(matches) {
    const live = matches.filter((m) => m.status !== 'finished');
    const done = matches.filter((m) => m.status === 'finished');
    this.fill(this.liveBody, live, 'no live matches');
    this.fill(this.doneBody, done.slice(0, 50), 'no finished matches yet');
  }

  fill(body, list, empty) {
    // rebuild only what changed: a row replaced under a finger loses the tap
    const key = JSON.stringify(list.map((m) => [m, !!seatStore.get(m.match)]));
    if (this.shown.get(body) === key) return;
    this.shown.set(body, key);
    body.replaceChildren();
    if (!list.length) { body.append(h('tr', {}, [h('td', {class: 'empty', colspan: 7, text: empty})])); return; }
    for (const m of list) {
      const mine = seatStore.get(m.match);
      const players = h('td', {class: 'seats', dataset: {label: 'players'}}, m.seats.map((s, i) => h('div', {class: 'who'}, [
        h('span', {class: 'dot', style: `background:${SEAT_COLOURS[i % 5]}`}),
        h('span', {class: 'plabel', text: pLabel(i)}), ' ',
        (s.name || s.kind) + (s.kind === 'open' && !s.connected && m.status !== 'finished' ? ' (open)' : ''),
        m.to_move === i ? ' ◀' : '',
      ])));
      const status = (m.result ? `finished (${m.result.reason})` : m.status + (m.demo ? ' · demo' : '')) +
        (m.tournament ? ` · tournament ${m.tournament}` : '');
      const links = h('td', {class: 'links'});
      if (mine && m.status !== 'finished') links.append(h('a', {href: `#/play/${m.match}`, class: 'play-link', text: 'play'}), ' ');
      if (m.status === 'finished') links.append(h('a', {href: `#/replay/${m.match}`, class: 'replay-link', text: 'replay'}), ' ');
      links.append(h('a', {href: `#/watch/${m.match}`, class: 'watch-link', text: m.status === 'finished' ? 'final board' : 'watch'}));
      body.append(h('tr', {dataset: {match: m.match, status: m.status, game: m.game}}, [
        h('td', {class: 'id', title: fmtDate(m.created)}, [h('code', {text: m.match})]),
        h('td', {class: 'game', text: this.app.game(m.game)?.title || m.game}),
        players,
        h('td', {class: 'status status-' + m.status, text: status}),
        h('td', {class: 'turn', dataset: {label: 'turn'}, text: String(m.turn)}),
        h('td', {class: 'scores', dataset: {label: 'scores'}, text: (m.scores || []).join(' : ')}),
        links,
      ]));
    }
  }

  /** The record file picked (the .json), with the programs' logs picked beside it (.log). */
  async openRecord(files) {
    const recs = files.filter((f) => !/\.log$/.test(f.name));
    if (recs.length !== 1) {
      if (files.length) this.app.banner('pick one record file (.json), and its programs\' logs (.log) if you like', 'warn');
      return;
    }
    let rec;
    try { rec = JSON.parse(await recs[0].text()); } catch (e) { this.app.banner(`not a JSON file: ${e.message}`, 'warn'); return; }
    this.app.pendingRecord = rec;
    this.app.pendingLogs = await Promise.all(files.filter((f) => /\.log$/.test(f.name)).map((f) => f.text().then((text) => ({name: f.name, text}))));
    location.hash = '#/replay/file';
  }

  // ---- the create form ------------------------------------------------------

  buildForm() {
    const games = this.app.games || [];
    const bots = this.app.bots || [];
    this.gameSel = h('select', {id: 'game', onchange: () => this.gameChanged()},
      games.map((g) => h('option', {value: g.name, text: g.title || g.name})));
    this.gameSel.value = games.some((g) => g.name === 'carcassonne') ? 'carcassonne' : games[0]?.name;
    this.playersSel = h('select', {id: 'players', onchange: () => this.seatsChanged()});
    this.rulesBox = h('div');
    this.seatsBox = h('div');
    this.nameInput = h('input', {id: 'my-name', value: localStorage.getItem('tessera.name') || 'human', maxlength: 64});
    const num = (id, value, title, placeholder) => h('input', {type: 'number', id, value, min: 0, step: 'any', title, placeholder});
    this.tc = {
      move: num('tc-move', 30, 'seconds per move'),
      first: num('tc-first', '', 'seconds for a seat\'s first move (empty: 3 × per move)', 'auto'),
      bank: num('tc-bank', 0, 'extra seconds a seat may draw on across the match'),
      inc: num('tc-inc', 0, 'seconds added to the bank after each move'),
    };
    const tcField = (label, input, help) => h('label', {class: 'tc'}, [
      h('span', {class: 'name', text: label}), h('span', {class: 'ctl'}, [input, h('span', {class: 'unit', text: 's'})]),
      h('span', {class: 'help', text: help})]);
    this.timeoutSel = h('select', {id: 'pol-timeout'}, [
      h('option', {value: 'random_move', text: 'a random move is played'}),
      h('option', {value: 'forfeit', text: 'the seat forfeits'}),
      h('option', {value: 'grace', text: 'a grace bank, then forfeit'}),
    ]);
    this.disconnectSel = h('select', {id: 'pol-disconnect'}, [
      h('option', {value: 'forfeit', text: 'forfeit after 30 s'}),
      h('option', {value: 'random_move', text: 'random moves until back'}),
    ]);
    this.msg = h('div', {class: 'error', id: 'create-error'});
    this.tokens = h('div', {class: 'tokens', id: 'create-tokens'});
    this.form = h('form', {class: 'create', id: 'create-form', onsubmit: (e) => { e.preventDefault(); this.create(); }}, [
      h('label', {}, ['Game ', this.gameSel, ' players ', this.playersSel]),
      this.rulesBox,
      h('fieldset', {}, [h('legend', {text: 'Seats'}), this.seatsBox,
        h('label', {}, ['Your name ', this.nameInput])]),
      h('fieldset', {}, [h('legend', {text: 'Time control'}),
        h('div', {class: 'tc-grid'}, [
          tcField('per move', this.tc.move, 'what each move may take, bots included'),
          tcField('first move', this.tc.first, 'a seat\'s first move (empty: 3 × per move)'),
          tcField('bank', this.tc.bank, 'extra time a seat may draw on across the match'),
          tcField('increment', this.tc.inc, 'added to the bank after each move'),
        ]),
        h('label', {}, ['Out of time: ', this.timeoutSel]),
        h('label', {}, ['Disconnected: ', this.disconnectSel]),
      ]),
      h('button', {type: 'submit', class: 'primary', id: 'create', text: 'Create match'}),
      this.msg, this.tokens,
    ]);
    this.formBox.replaceChildren(this.form);
    this.botList = bots;
    this.gameChanged();
  }

  get gameDef() { return (this.app.games || []).find((g) => g.name === this.gameSel.value); }

  gameChanged() {
    const g = this.gameDef;
    if (!g) return;
    const lo = g.min_players || 2, hi = g.max_players || lo;
    this.playersSel.replaceChildren(...Array.from({length: hi - lo + 1}, (_, i) => h('option', {value: lo + i, text: String(lo + i)})));
    this.playersSel.value = String(g.default_players || lo);
    this.rulesBox.replaceChildren();
    this.ruleInputs = {};
    if ((g.rules || []).length) {
      const fs = h('fieldset', {}, [h('legend', {text: 'Rules'})]);
      for (const r of g.rules) {
        const input = r.boolean
          ? h('input', {type: 'checkbox', id: 'rule-' + r.name, checked: !!r.default})
          : h('input', {type: 'number', id: 'rule-' + r.name, value: r.default, min: r.min, max: r.max, step: 1});
        this.ruleInputs[r.name] = {r, input};
        fs.append(h('label', {title: r.help || ''}, [input, ' ', r.name, h('span', {class: 'help', text: r.help ? ` — ${r.help}` : ''})]));
      }
      this.rulesBox.append(fs);
    }
    this.seatsChanged();
  }

  seatsChanged() {
    const n = Number(this.playersSel.value);
    const old = this.seatRows || [];
    this.seatRows = [];
    this.seatsBox.replaceChildren();
    for (let i = 0; i < n; i++) {
      const prev = old[i];
      const kind = prev ? prev.sel.value : i === 0 ? 'me' : (this.botList.some((b) => b.name === 'heuristic') ? 'bot:heuristic' : 'bot:random');
      this.seatRows.push(this.seatRow(i, kind));
    }
  }

  seatRow(i, kind) {
    const sel = h('select', {id: `seat-${i}`, class: 'seat-kind'}, [
      h('option', {value: 'me', text: 'me (play here)'}),
      h('option', {value: 'open', text: 'open seat (a remote bot joins)'}),
      ...this.botList.map((b) => h('option', {value: 'bot:' + b.name, text: `bot: ${b.name}`, title: b.summary})),
    ]);
    sel.value = kind;
    const opts = h('div', {class: 'opts'});
    const specEl = h('code', {class: 'spec'});
    const optsBox = h('details', {class: 'bot-opts'}, [h('summary', {}, ['options · ', specEl]), opts]);
    const summary = h('div', {class: 'help'});
    const openName = h('input', {id: `seat-${i}-name`, placeholder: 'name (optional)', maxlength: 64});
    const row = h('div', {class: 'seat-row', dataset: {seat: i}, style: `border-left-color:${SEAT_COLOURS[i % 5]}`}, [
      h('label', {}, [h('span', {class: 'plabel', text: pLabel(i), title: `seat ${i} on the wire`}), ' ', sel]), summary, openName, optsBox,
    ]);
    const entry = {sel, opts, openName, inputs: {}};
    const showSpec = () => { specEl.textContent = sel.value.startsWith('bot:') ? this.botSpec(entry) : ''; };
    const refresh = () => {
      opts.replaceChildren();
      entry.inputs = {};
      openName.hidden = sel.value !== 'open';
      const bot = sel.value.startsWith('bot:') ? this.botList.find((b) => 'bot:' + b.name === sel.value) : null;
      summary.textContent = bot ? bot.summary : sel.value === 'open' ? 'The creator gets a token to hand to the bot (tessera bot --token …).' : '';
      optsBox.hidden = !bot;
      if (!bot) return;
      const all = [...(this.app.commonOptions || []), ...(bot.options || [])];
      for (const o of all) {
        if (o.reads_file) continue; // a file on the server: for the operator's own tools, not this page
        let input;
        const id = `seat-${i}-opt-${o.name}`;
        if (o.kind === 'enum') input = h('select', {id}, (o.choices || []).map((c) => h('option', {value: c, text: c})));
        else if (o.kind === 'bool') input = h('input', {id, type: 'checkbox', checked: !!o.default});
        else if (o.kind === 'int' || o.kind === 'real') input = h('input', {id, type: 'number', step: o.kind === 'int' ? 1 : 'any', min: o.min, max: o.max});
        else input = h('input', {id, type: 'text'}); // list, string
        if (o.kind !== 'bool') input.value = String(o.default ?? '');
        input.dataset.option = o.name;
        input.addEventListener('input', showSpec);
        input.addEventListener('change', showSpec);
        entry.inputs[o.name] = {o, input};
        const dflt = o.kind === 'bool' ? (o.default ? 'on' : 'off') : String(o.default ?? '');
        opts.append(h('div', {class: 'opt', dataset: {option: o.name}}, [
          h('label', {for: id, class: 'name', text: o.name}),
          h('span', {class: 'ctl'}, [input, UNITS[o.name] ? h('span', {class: 'unit', text: UNITS[o.name]}) : null]),
          h('div', {class: 'help', text: (o.help || '') + (dflt !== '' ? ` · default ${dflt}` : '')}),
        ]));
      }
      showSpec();
    };
    sel.addEventListener('change', refresh);
    refresh();
    this.seatsBox.append(row);
    return entry;
  }

  botSpec(entry) {
    const name = entry.sel.value.slice(4);
    const parts = [];
    for (const {o, input} of Object.values(entry.inputs)) {
      let v;
      if (o.kind === 'bool') { if (input.checked === !!o.default) continue; v = input.checked ? 'true' : 'false'; }
      else {
        v = String(input.value).trim();
        if (v === '' || v === String(o.default) || ((o.kind === 'int' || o.kind === 'real') && Number(v) === Number(o.default))) continue;
      }
      parts.push(`${o.name}=${v}`);
    }
    return parts.length ? `${name}:${parts.join(',')}` : name;
  }

  async create() {
    this.msg.textContent = '';
    this.tokens.replaceChildren();
    const g = this.gameDef;
    const rules = {players: Number(this.playersSel.value)};
    for (const [name, {r, input}] of Object.entries(this.ruleInputs || {})) rules[name] = r.boolean ? input.checked : Number(input.value);
    const myName = this.nameInput.value.trim() || 'human';
    localStorage.setItem('tessera.name', myName);
    const meSeats = this.seatRows.map((e, i) => (e.sel.value === 'me' ? i : -1)).filter((i) => i >= 0);
    if (meSeats.length > 1) { this.msg.textContent = 'Only one seat can be "me" (open another seat for a second player).'; return; }
    const seats = this.seatRows.map((e) => {
      if (e.sel.value === 'me') return {open: true, name: myName};
      if (e.sel.value === 'open') return e.openName.value.trim() ? {open: true, name: e.openName.value.trim()} : {open: true};
      return {bot: this.botSpec(e)};
    });
    const secs = (input) => (input.value === '' ? undefined : Math.round(Number(input.value) * 1000));
    const tc = {};
    const move = secs(this.tc.move), first = secs(this.tc.first), bank = secs(this.tc.bank), inc = secs(this.tc.inc);
    if (move !== undefined) tc.move_ms = Math.max(1, move);
    if (first !== undefined) tc.first_move_ms = Math.max(1, first);
    if (bank !== undefined) tc.bank_ms = bank;
    if (inc !== undefined) tc.increment_ms = inc;
    const msg = {type: 'create_match', game: g.name, rules, seats, time_control: tc,
      policies: {timeout: this.timeoutSel.value, disconnect: this.disconnectSel.value}};
    let r;
    try { r = await this.conn.request(msg); } catch (e) { this.msg.textContent = `not sent: ${e.message}`; return; }
    if (r.type === 'error') { this.msg.textContent = `${r.code}: ${r.message || ''}`; return; }
    const id = r.match;
    const tokens = r.seats || [];
    const mine = tokens.find((t) => t.seat === meSeats[0]);
    const others = tokens.filter((t) => t !== mine);
    if (others.length) seatStore.set(id, {open: others.map((t) => ({seat: t.seat, token: t.token}))});
    if (mine) {
      seatStore.set(id, {seat: mine.seat, token: mine.token, name: myName});
    }
    if (others.length) {
      const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/`;
      this.tokens.append(h('div', {text: `Match ${id} created. Hand each open seat's token to its bot:`}),
        ...others.map((t) => h('div', {class: 'token', dataset: {seat: t.seat}}, [`${pSeat(t.seat)}: `, h('code', {text: `tessera bot --url ${url} --match ${id} --seat ${t.seat} --token ${t.token} --bot SPEC`})])),
        h('div', {}, [h('a', {href: mine ? `#/play/${id}` : `#/watch/${id}`, text: mine ? 'Go to your seat' : 'Watch it'})]));
      this.tokens.scrollIntoView({block: 'nearest', behavior: 'smooth'});
      return;
    }
    location.hash = mine ? `#/play/${id}` : `#/watch/${id}`;
  }
}
