// Classroom competitions (docs/classroom.md): the student's page and the
// instructor's, over the course_* messages.
//   #/course            a student: their token, then submit, gates, games, report
//   #/instructor        the instructor: the admin token, courses, a new course
//   #/instructor/ID     one course: roster (+ tokens to hand out), submissions and
//                       gate results, deadline, the final, standings, grades
// Tokens are kept in this browser's localStorage, never in the address.

import {h, fmtDate, download, pSeat, ADMIN_KEY, store, load} from './util.js';
import {elo, num, ratingsChart, crossTable} from './standings-charts.js';
import {uploadFile} from './upload.js';

const STUDENT_KEY = 'tessera.course.token';

function pct(x) { return Number.isFinite(x) ? `${Math.round(x * 100)}%` : '–'; }


/** The deadline in words; `own`: a student's extension (their page), else the latest one. */
function deadlineText(c, own) {
  if (c.frozen_ms) return `closed ${fmtDate(c.frozen_ms)} (frozen)`;
  const ext = own === undefined ? c.last_extension_ms : own;
  const extText = ext && ext > c.deadline_ms ? `; ${own === undefined ? 'an extension' : 'yours'} until ${fmtDate(ext)}` : '';
  if (c.deadline_ms) return `${fmtDate(c.deadline_ms)}${c.deadline_ms <= Date.now() && !(ext > Date.now()) ? ' (passed: freezing)' : ''}${extText}`;
  return 'not set';
}

function gateText(g) {
  return `beat ${g.opponent} ≥ ${pct(g.min_rate)} over ${g.games} paired games`;
}

function courseFacts(c, own) {
  return h('dl', {class: 'course-facts'}, [
    h('dt', {text: 'game'}), h('dd', {text: `${c.game}, ${c.move_ms} ms per move`}),
    h('dt', {text: 'gates'}), h('dd', {}, [h('ol', {class: 'gates'}, c.gates.map((g) => h('li', {text: gateText(g)})))]),
    h('dt', {text: 'qualifying'}), h('dd', {text: c.qualify ? `pass ${c.qualify} gate${c.qualify > 1 ? 's' : ''}` : 'every submission'}),
    h('dt', {text: 'uploads'}), h('dd', {class: 'max-upload', text: `up to ${fmtBytes(c.max_upload_bytes || 4194304)} a submission (its files, a zip unpacked)`}),
    h('dt', {text: 'deadline'}), h('dd', {class: 'deadline', dataset: {frozen: String(c.frozen_ms || '')}, text: deadlineText(c, own)}),
    h('dt', {text: 'final'}), h('dd', {class: 'final-state', text: c.final_state === 'none' ? 'not started' : `${c.final_state}${c.final_note ? ' — ' + c.final_note : ''}`}),
  ]);
}

/** A message for people from an error reply. */
function errText(r) { return r.reason ? `${r.message} (${r.reason})` : r.message; }

/** File → {name, data (base64)}. */
function readFile(file) {
  return new Promise((resolve, reject) => {
    const fr = new FileReader();
    fr.onload = () => resolve({name: file.name, data: String(fr.result).replace(/^data:[^,]*,/, '')});
    fr.onerror = () => reject(fr.error);
    fr.readAsDataURL(file);
  });
}

/** The server's builds queue (course_view's builds): uploads building and waiting for a slot. */
function buildsLine(b) {
  if (!b) return null;
  return h('p', {class: 'builds', dataset: {building: b.building, waiting: b.waiting}},
    [`builds: ${b.building} building, ${b.waiting} waiting (${b.threads} at once on this server)`]);
}

/** Bytes for people: 812 B, 41.2 KB, 3.5 MB. */
function fmtBytes(n) { return n < 1000 ? `${n} B` : n < 1e6 ? `${(n / 1e3).toFixed(1)} KB` : `${(n / 1e6).toFixed(1)} MB`; }

/** A file of course_code as text: a source as it is; a program, a large or binary file by its size. */
function codeText(r, f) {
  if (f.data === null) return `(${fmtBytes(f.bytes)}: ${f.omitted || 'not shown'})`;
  if (r.kind === 'executable' || /^build\.(out|jar)$/.test(f.name)) return `(${fmtBytes(f.bytes ?? Math.floor(f.data.length * 3 / 4))}, a program)`;
  const text = atob(f.data);
  return /[\x00-\x08\x0e-\x1f]/.test(text.slice(0, 4096)) ? `(${fmtBytes(text.length)} of binary data)` : text;
}

/** A submission's state in words. */
function stateText(s, instructor) {
  if (s.state === 'done') return s.qualified ? 'qualified' : 'not qualified';
  if (s.state === 'not_judged') return instructor ? 'not judged: a gate is broken' : 'not judged (a gate is broken, not your bot)';
  if (s.state === 'queued') return 'waiting';
  if (s.state === 'waiting') return instructor ? 'waiting for the bot' : 'waiting for your bot';
  return 'in the gates';
}

/** Is a submission through its gates (judged, or stopped at a broken gate)? */
function settled(s) { return s.state === 'done' || s.state === 'not_judged'; }

/** The command a student runs for a remote submission (docs/classroom.md). */
function registerCommand(rem, secret) {
  const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/`;
  return `tessera bridge --url ${url} --register ${rem.name} --secret ${secret} --game ${rem.game} -- python3 mybot.py`;
}

/** A table of submissions with their gates; games clickable (onGame(id)). */
function submissionsTable(subs, onGame, {withStudent = false, onCode = null} = {}) {
  if (!subs.length) return h('p', {class: 'empty', text: 'no submissions yet'});
  const head = (withStudent ? ['student'] : []).concat(['version', 'sent', 'kind', 'state', 'gates', 'verdict']);
  return h('table', {class: 'matches submissions'}, [
    h('thead', {}, [h('tr', {}, head.map((x) => h('th', {text: x})))]),
    h('tbody', {}, subs.slice().reverse().map((s) => h('tr', {dataset: {submission: s.submission, state: s.state, student: s.student_id}, class: s.frozen ? 'frozen' : ''}, [
      withStudent ? h('td', {dataset: {label: 'student'}, text: s.student_id}) : null,
      h('td', {dataset: {label: 'version'}}, [`v${s.version}`, s.frozen ? h('span', {class: 'tag', text: 'frozen'}) : null,
        s.similar?.length ? h('span', {class: 'tag similar', title: s.similar.map((x) => `${x.student_id} v${x.version}: ${x.how}`).join('\n'),
          text: `≈ ${s.similar.map((x) => `${x.student_id} v${x.version}`).join(', ')}${s.similar_count > s.similar.length ? ` +${s.similar_count - s.similar.length}` : ''}`}) : null,
        onCode ? h('button', {class: 'link', text: 'code', onclick: () => onCode(s)}) : null]),
      h('td', {dataset: {label: 'sent'}, text: fmtDate(s.created_ms)}),
      h('td', {dataset: {label: 'kind'}, text: s.kind === 'remote' ? `remote bot · ${s.main}` : `${s.kind} · ${s.main} · ${s.bytes} B`}),
      h('td', {class: 'state', dataset: {label: 'state'}, text: stateText(s, withStudent)}),
      h('td', {class: 'gates', dataset: {label: 'gates'}}, s.gates.map((g) => h('div', {class: `gate ${g.broken ? 'broken' : g.passed ? 'pass' : 'fail'}`, title: g.broken ? g.verdict : undefined}, [
        h('b', {text: g.broken ? `⚠ gate ${g.gate + 1} broken` : `${g.passed ? '✓' : '✗'} gate ${g.gate + 1}`}),
        ` ${g.points}/${g.games} vs ${g.opponent}, ${g.ms_per_move.toFixed(1)} ms/move`,
        Number.isFinite(g.startup_ms) ? h('span', {class: 'startup', title: 'its start-up, measured before its first game: on no one\'s clock, within the allowance (docs/stdio.md, "Time")', text: `, start-up ${(g.startup_ms / 1000).toFixed(2)} s`}) : null,
        ' ',
        h('span', {class: 'games'}, g.game_ids.map((id, k) => h('a', {href: `#/course-game/${id}`, class: 'game-link' + (g.bundle_game_ids?.includes(id) ? ' has-bundle' : ''), text: String(k + 1) + (g.bundle_game_ids?.includes(id) ? '⚑' : ''), title: `game ${id}` + (g.bundle_game_ids?.includes(id) ? ': a fault, kept as a bundle' : ''), dataset: {game: id}, onclick: (e) => { e.preventDefault(); onGame(id); }}))),
      ]))),
      h('td', {class: 'verdict', dataset: {label: 'verdict'}, text: s.verdict}),
    ])))]);
}

/** One game's details: result, verdict, time, stderr (one seat or both), replay. */
function gamePanel(app, g) {
  const seats = g.names.map((n, i) => `${pSeat(i)} ${n}`);
  const rows = g.names.map((_, i) => h('tr', {}, [
    h('td', {text: seats[i] + (g.your_seat === i ? ' (you)' : '')}),
    h('td', {text: String(g.scores[i])}),
    h('td', {text: `${g.moves[i]} moves, ${Math.round(g.think_ms[i])} ms thinking`}),
  ]));
  const errs = g.stderr.map((e, i) => e === null ? null : h('details', {open: g.your_seat === i || g.culprit === i}, [
    h('summary', {text: `stderr of ${seats[i]} (${e.length} bytes kept)`}),
    h('pre', {class: 'stderr', text: e || '(nothing)'}),
  ]));
  return h('section', {class: 'course-game', dataset: {game: g.game}}, [
    h('h3', {text: `Game ${g.game} — ${g.stage === 'gate' ? `gate ${g.gate + 1}` : 'final'}, ${g.end}`}),
    g.verdict ? h('p', {class: 'verdict', text: g.verdict}) : null,
    h('table', {class: 'matches'}, [h('tbody', {}, rows)]),
    ...errs,
    g.stderr_note ? h('p', {class: 'stderr-note', text: `stderr: not available — ${g.stderr_note}`}) : null,
    ...(g.bundles || []).map((b, i) => b && h('p', {class: 'bundle'}, [
      h('a', {href: '#', class: 'bundle-link', dataset: {seat: i}, text: `fault bundle of ${seats[i]} (${b.verdict} at turn ${b.turn})`,
        onclick: (e) => { e.preventDefault(); download(`course-game-${g.game}-P${i + 1}.json`, JSON.stringify(b, null, 1)); }}),
      h('span', {class: 'help', text: ` — make the fault happen again on your machine: tessera doctor --replay course-game-${g.game}-P${i + 1}.json (docs/bundles.md)`}),
    ])),
    h('p', {}, [h('a', {class: 'replay-link', href: `#/course-game/${g.game}`, text: 'replay this game'})]),
  ]);
}

/** The order of a final's places, every tiebreak named (tournament/standings.c). */
const ORDER = {
  'round-robin': 'Places follow the scoring rate, then league points, then the score difference, then roster order.',
  swiss: 'Places follow the Swiss points, then Buchholz, then points, then roster order.',
  knockout: 'Places follow the round reached, then roster order.',
};

/** The final's standings: every tiebreak of its format a column, and what decided each place. */
function standingsTable(rows) {
  if (!rows.length) return h('p', {class: 'empty', text: 'no standings yet'});
  const format = rows[0].format || 'round-robin';
  const cols = [['#', (r) => String(r.place)], ['student', (r) => `${r.name} (${r.student_id})`], ['games', (r) => String(r.games)],
    ['W-L-D', (r) => `${r.wins}-${r.losses}-${r.draws}`], ['rate', (r) => pct(r.rate)]];
  if (format === 'round-robin') cols.push(['league pts', (r) => String(r.league_points)], ['score diff', (r) => num(r.score_diff, 2)]);
  if (format === 'swiss') cols.push(['Swiss pts', (r) => num(r.swiss_points)], ['Buchholz', (r) => num(r.buchholz)]);
  if (format === 'knockout') cols.push(['reached', (r) => `round ${r.round_reached + 1}`]);
  cols.push(['roster #', (r) => String(r.roster)], ['decided by', (r) => r.decided_by || (r.place === 1 ? 'first' : 'shared place')],
    ['rating (95%)', (r) => `${elo(r.rating)} [${elo(r.rating_low)}, ${elo(r.rating_high)}]`],
    ['ms/move', (r) => Number.isFinite(r.ms_per_move) ? r.ms_per_move.toFixed(1) : '–'], ['faults', (r) => String(r.faults)], ['version', (r) => `v${r.version}`]);
  return h('div', {class: 'standings-box'}, [
    h('p', {class: 'help order', text: ORDER[format] || ''}),
    h('table', {class: 'matches standings'}, [
      h('thead', {}, [h('tr', {}, cols.map(([t]) => h('th', {text: t})))]),
      h('tbody', {}, rows.map((r) => h('tr', {dataset: {student: r.student_id}}, cols.map(([t, f]) => h('td', {dataset: {label: t}, text: f(r)})))))])]);
}

/** A final's games, each a link to its details (result, time, stderr, replay). */
function gameList(games, onGame) {
  return h('ul', {class: 'final-games'}, games.map((g) => h('li', {}, [h('a', {href: `#/course-game/${g.game}`, class: 'game-link', dataset: {game: g.game},
    text: `${g.names.join(' v ')} (${g.scores.join('–')})${g.end !== 'normal' ? ` — ${g.end}` : ''}${g.bundle ? ' ⚑' : ''}`, onclick: (e) => { e.preventDefault(); onGame(g.game); }})])));
}

/** What a scrimmage's state means, in words. */
const SCRIM_STATE = {
  playing: 'live: the latest qualified bots play each other in pairs while submissions are open; ratings are Bradley–Terry with 95% intervals',
  waiting: 'live once two students have a qualified bot',
  rested: 'resting: every bot has played its games; a new qualified version starts it again',
  stopped: 'stopped',
  off: 'off',
};
const SCRIM_WHY = {deadline: 'at the deadline', final: 'the final has started', archived: 'the course is archived'};

/** The scrimmage's latest games stay open across the page's refreshes. */
let scrimGamesOpen = false;

/** The scrimmage setting's choices. */
function scrimSelect(current) {
  return h('select', {name: 'scrimmage'}, [['off', 'off'], ['instructor', 'shown to me only'], ['class', 'shown to the class']]
    .map(([v, t]) => h('option', {value: v, text: t, selected: v === current})));
}

/** The live scrimmage ladder (issue 25): its table and latest games. */
function scrimmageSection(sc, onGame, mine = false) {
  if (!sc || sc.setting === 'off') return null;
  const state = SCRIM_STATE[sc.state] || sc.state;
  const cols = [['#', (r) => String(r.place)], ['bot', (r) => `${r.student_id} v${r.version}${r.yours ? ' (you)' : ''}`], ['games', (r) => String(r.games)],
    ['W-L-D', (r) => `${r.wins}-${r.losses}-${r.draws}`],
    ['rating (95%)', (r) => r.games ? `${elo(r.rating)} [${elo(r.rating_low)}, ${elo(r.rating_high)}]` : 'unrated']];
  return h('section', {class: 'scrimmage', dataset: {state: sc.state}}, [
    h('h3', {text: `Scrimmage (${sc.games_total} game${sc.games_total === 1 ? '' : 's'})`}),
    h('p', {class: 'help scrim-state', text: `${state}${sc.state === 'stopped' && SCRIM_WHY[sc.why] ? `: ${SCRIM_WHY[sc.why]}` : ''}${mine ? '' : ` — shown to ${sc.setting === 'class' ? 'the class' : 'you only'}`}.`}),
    sc.rows.length ? h('table', {class: 'matches standings scrim-table'}, [
      h('thead', {}, [h('tr', {}, cols.map(([t]) => h('th', {text: t})))]),
      h('tbody', {}, sc.rows.map((r) => h('tr', {class: r.yours ? 'yours' : '', dataset: {student: r.student_id}}, cols.map(([t, f]) => h('td', {dataset: {label: t}, text: f(r)})))))])
      : h('p', {class: 'empty', text: 'no qualified bot yet'}),
    sc.games.length ? h('details', {class: 'scrim-games', open: scrimGamesOpen, ontoggle: (e) => { scrimGamesOpen = e.target.open; }}, [h('summary', {text: `Latest games (${sc.games.length})`}), gameList(sc.games, onGame)]) : null,
  ]);
}

/** Ratings with their intervals and the cross-table of a final, from its rows and the games the
 *  reader may see (the instructor: all). */
function finalCharts(rows, games) {
  if (!rows.length) return null;
  const index = new Map(rows.map((r, i) => [r.student_id, i]));
  const chartRows = rows.map((r, i) => ({name: r.student_id, place: r.place, participant: i, games: r.games, elo: r.rating, elo_lo: r.rating_low, elo_hi: r.rating_high}));
  const n = rows.length, zero = () => Array.from({length: n}, () => new Array(n).fill(0));
  const cross = {games: zero(), points: zero()};
  for (const g of games) {
    const [a, b] = g.names.map((x) => index.get(x));
    if (a === undefined || b === undefined) continue;
    const pa = g.scores[0] > g.scores[1] ? 1 : g.scores[0] < g.scores[1] ? 0 : 0.5;
    cross.games[a][b]++; cross.games[b][a]++;
    cross.points[a][b] += pa; cross.points[b][a] += 1 - pa;
  }
  return h('div', {class: 'final-charts'}, [
    h('section', {}, [h('h4', {text: 'Ratings, 95% intervals'}), ratingsChart(chartRows)]),
    n > 1 ? h('section', {}, [h('h4', {text: 'Cross-table'}), crossTable(chartRows, cross)]) : null,
  ]);
}

// ---- the student --------------------------------------------------------------------

export class StudentView {
  constructor(app) {
    this.app = app;
    this.conn = app.conn;
    this.title = 'My course';
    this.token = load(STUDENT_KEY);
    this.el = h('div', {class: 'page course student'});
    this.submitStatus = h('span', {class: 'submit-status'});
    this.detail = h('div', {class: 'detail'});
    this.onReady = () => this.refresh();
  }

  mount(root) {
    root.replaceChildren(this.el);
    this.conn.addEventListener('ready', this.onReady);
    this.render();
    if (this.conn.ready) this.refresh();
    this.timer = setInterval(() => { if (this.view && (!this.view.submissions.every(settled) || this.view.scrimmage?.state === 'playing')) this.refresh(true); }, 2000);
  }

  unmount() {
    clearInterval(this.timer);
    this.conn.removeEventListener('ready', this.onReady);
  }

  async refresh(poll = false) {
    if (!this.token || !this.conn.ready) return;
    const token = this.token;
    /* a reply lost with its connection leaves the page as it is: 'ready' refreshes it again */
    const r = await this.conn.request({type: 'course_view', token}).catch(() => null);
    if (!r || token !== this.token) return; /* the answer for a token given up meanwhile */
    /* a poll with nothing new (a remote bot still waited for): the page stays as it is, under the
     * reader's pointer */
    const text = JSON.stringify({...r, id: undefined});
    if (poll && text === this.lastText) return;
    this.lastText = text;
    if (r.type === 'error') { this.error = errText(r); this.view = null; } else { this.error = ''; this.view = r; }
    this.render();
  }

  /* The token form is built once and kept: a view arriving re-renders the page around it, never
   * the input being typed in nor the button being pressed (a re-render between the press and the
   * release of a click lost the click, and the page went on with the token stored before). */
  loginForm() {
    if (this.login) return this.login;
    this.tokenInput = h('input', {name: 'token', type: 'password', autocomplete: 'off', value: this.token, size: 30});
    this.forgetButton = h('button', {type: 'button', text: 'forget', onclick: () => {
      this.token = ''; this.tokenInput.value = ''; store(STUDENT_KEY, ''); this.view = null; this.error = ''; this.render();
    }});
    this.login = h('form', {class: 'token-form', onsubmit: (e) => {
      e.preventDefault();
      this.token = this.tokenInput.value.trim();
      this.view = null; /* the last token's view goes at once */
      this.error = '';
      store(STUDENT_KEY, this.token);
      this.render();
      this.refresh();
    }}, [
      h('label', {}, ['Your student token ', this.tokenInput]),
      h('button', {type: 'submit', text: 'open'}),
      this.forgetButton,
    ]);
    return this.login;
  }

  render() {
    const login = this.loginForm();
    this.forgetButton.hidden = !this.token;
    const parts = [h('h2', {text: 'My course'}), login];
    if (this.error) parts.push(h('p', {class: 'error', text: this.error}));
    const v = this.view;
    if (v) {
      const c = v.course;
      parts.push(h('h3', {text: `${c.name} — ${v.student.name} (${v.student.student_id})`}), courseFacts(c, v.student.deadline_ms || 0));
      parts.push(buildsLine(v.builds), this.submitForm(c));
      parts.push(h('h3', {text: 'My submissions'}), submissionsTable(v.submissions, (id) => this.showGame(id), {onCode: (s) => this.showCode(s)}));
      parts.push(scrimmageSection(v.scrimmage, (id) => this.showGame(id), true));
      parts.push(h('h3', {text: 'My report'}));
      if (v.final.length) {
        parts.push(standingsTable(v.final), finalCharts(v.final, v.final_games));
        parts.push(h('h4', {text: 'My final games'}), gameList(v.final_games, (id) => this.showGame(id)));
      } else {
        parts.push(h('p', {class: 'empty', text: c.final_state === 'done' ? 'you were not in the final' : 'the final has not been played yet'}));
      }
      parts.push(this.detail);
    }
    this.el.replaceChildren(...parts);
  }

  submitForm(c) {
    const until = Math.max(c.deadline_ms, this.view.student.deadline_ms || 0);
    const closed = !!c.frozen_ms || c.archived || (c.deadline_ms && until <= Date.now());
    const status = this.submitStatus;
    const form = h('form', {class: 'submit-form', onsubmit: async (e) => {
      e.preventDefault();
      const el = e.target.elements;
      if (el.kind.value === 'remote') {
        status.textContent = 'sending…';
        const r = await this.conn.ask({type: 'course_submit', token: this.token, kind: 'remote'});
        status.textContent = r.type === 'error' ? errText(r) : `version ${r.version} received — run your bot with the command below; its gates start when it connects`;
        status.className = 'submit-status ' + (r.type === 'error' ? 'error' : 'ok');
        if (r.type !== 'error') this.registration = {version: r.version, command: registerCommand(r.remote, r.remote.secret)};
        this.refresh();
        return;
      }
      const files = [...el.files.files];
      if (!files.length) { status.textContent = 'choose your bot\'s file(s) or a zip'; return; }
      const total = files.reduce((n, f) => n + f.size, 0);
      const limit = c.max_upload_bytes || Infinity;
      status.className = 'submit-status';
      if (total > limit) { status.textContent = `${fmtBytes(total)} is more than this course allows (${fmtBytes(limit)})`; status.className = 'submit-status error'; return; }
      /* each file (or a zip: unpacked by the server) goes in chunks, with its progress */
      const bar = h('progress', {class: 'upload-progress', max: total, value: 0});
      const words = h('span', {text: 'sending…'});
      status.replaceChildren(bar, ' ', words);
      const onBuild = (ev) => {
        const m = ev.detail;
        if (m?.type !== 'course_build') return;
        words.textContent = m.state === 'waiting' ? `uploaded — waiting for a build slot (${m.ahead} ahead)` : 'uploaded — checking and building…';
      };
      this.conn.addEventListener('message', onBuild);
      try {
        const uploads = [];
        let sent = 0;
        for (const f of files) {
          words.textContent = `sending ${f.name}…`;
          uploads.push(await uploadFile(this.conn, this.token, f, (n, resumed) => { bar.value = sent + n; words.textContent = resumed ? `resuming ${f.name} from ${fmtBytes(n)} (the server kept it)` : `sending ${f.name}: ${fmtBytes(sent + n)} of ${fmtBytes(total)}`; }));
          sent += f.size;
          bar.value = sent;
        }
        words.textContent = 'uploaded — checking…';
        const zipOnly = files.length === 1 && /\.zip$/i.test(files[0].name);
        const main = el.main.value.trim() || (zipOnly ? undefined : files[0].name);
        const r = await this.conn.request({type: 'course_submit', token: this.token, kind: el.kind.value, main, uploads}, 300000);
        if (r.type === 'error') status.textContent = errText(r);
        else status.replaceChildren(bar, ' ', `version ${r.version} received (${fmtBytes(total)}) — it is in the gates now`);
        status.className = 'submit-status ' + (r.type === 'error' ? 'error' : 'ok');
        this.refresh();
      } catch (err) {
        status.textContent = String(err.message || err);
        status.className = 'submit-status error';
      } finally { this.conn.removeEventListener('message', onBuild); }
    }}, [
      h('h3', {text: 'Submit a bot'}),
      h('label', {}, ['kind ', h('select', {name: 'kind', onchange: (e) => { form.classList.toggle('remote', e.target.value === 'remote'); }}, [h('option', {value: 'python', text: 'Python 3 (python3 MAIN)'}), h('option', {value: 'java', text: 'Java (built here: javac, java -jar)'}), h('option', {value: 'c', text: 'C (built here: gcc)'}), h('option', {value: 'cpp', text: 'C++ (built here: g++)'}), h('option', {value: 'javascript', text: 'JavaScript (node MAIN)'}), h('option', {value: 'executable', text: 'executable (Linux ELF)'}), h('option', {value: 'remote', text: 'remote bot (you run it)'})])]),
      h('label', {}, ['files or a zip ', h('input', {name: 'files', type: 'file', multiple: true})]),
      h('label', {}, ['file to run ', h('input', {name: 'main', placeholder: 'the first file', size: 16})]),
      h('button', {type: 'submit', text: 'submit', disabled: closed}),
      closed ? h('span', {class: 'error', text: ' the deadline has passed'}) : null,
      status,
      h('p', {class: 'remote-help', text: 'A remote bot runs on your machine: submit, then run the command shown with your program (any language speaking the stdio protocol) after the "--". The secret is shown once.'}),
      this.registration ? h('div', {class: 'register-command'}, [
        h('b', {text: `v${this.registration.version}: run your bot with`}),
        h('pre', {text: this.registration.command}),
      ]) : null,
    ]);
    return form;
  }

  async showGame(id) {
    const r = await this.conn.ask({type: 'course_game', token: this.token, game: id});
    this.detail.replaceChildren(r.type === 'error' ? h('p', {class: 'error', text: errText(r)}) : gamePanel(this.app, r));
    this.detail.scrollIntoView({block: 'nearest'});
  }

  async showCode(s) {
    const r = await this.conn.ask({type: 'course_code', token: this.token, submission: s.submission});
    if (r.type === 'error') { this.detail.replaceChildren(h('p', {class: 'error', text: errText(r)})); return; }
    this.detail.replaceChildren(h('section', {class: 'code'}, [h('h3', {text: `v${r.version}: ${r.main}`}),
      ...r.files.map((f) => h('details', {open: f.name === r.main}, [h('summary', {text: f.name}), h('pre', {text: codeText(r, f)})]))]));
  }
}

// ---- a course game replayed ----------------------------------------------------------------

/** #/course-game/ID: a course's game (a gate's or the final's) replayed with its players' names. The
 *  address survives a reload: the game is fetched again with the token this browser keeps (the
 *  admin's, else the student's), so it is also a link to hand on. */
export class CourseGameView {
  constructor(app, id, Replay) {
    this.app = app;
    this.conn = app.conn;
    this.id = Number(id);
    this.Replay = Replay;
    this.title = `Course game ${this.id}`;
    this.el = h('div', {class: 'page course course-game-page'}, [h('h2', {text: this.title}), h('p', {class: 'meta', text: 'loading…'})]);
    this.onReady = () => this.load();
  }

  mount(root) {
    this.root = root;
    root.replaceChildren(this.el);
    this.conn.addEventListener('ready', this.onReady);
    if (this.conn.ready) this.load();
  }

  unmount() {
    this.conn.removeEventListener('ready', this.onReady);
    this.gone = true;
    this.replay?.unmount();
  }

  async load() {
    if (this.replay || this.loading) return;
    this.loading = true;
    const admin = load(ADMIN_KEY), student = load(STUDENT_KEY);
    const tries = [admin ? {admin_token: admin} : null, student ? {token: student} : null].filter(Boolean);
    let r = {type: 'error', message: 'open your course page with your token first, then this game again'};
    try {
      for (const t of tries) {
        r = await this.conn.request({type: 'course_game', game: this.id, ...t});
        if (r.type !== 'error') break;
      }
    } catch (err) { r = {type: 'error', message: String(err.message || err)}; }
    this.loading = false;
    if (this.gone) return;
    const back = h('a', {class: 'back', href: r.type !== 'error' && tries[0]?.admin_token && r.your_seat === undefined ? `#/instructor/${r.course}` : '#/course', text: '← the course'});
    if (r.type === 'error') {
      this.el.replaceChildren(h('h2', {text: this.title}), h('p', {class: 'error', text: errText(r)}), h('p', {}, [back]));
      return;
    }
    const where = r.stage === 'gate' ? `gate ${r.gate + 1}` : 'the final';
    this.replay = new this.Replay(this.app, {record: r.record, logs: [], seats: r.names.map((name) => ({name})),
      label: `course game ${this.id}, ${where}: ${r.names.join(' v ')}`});
    this.replay.mount(this.root);
    this.replay.el.prepend(h('p', {class: 'course-back'}, [back]));
  }
}

// ---- the instructor -----------------------------------------------------------------------

const DEFAULT_GATES = '[{"opponent": "random", "games": 20, "min_rate": 0.8},\n {"opponent": "heuristic", "games": 20, "min_rate": 0.5},\n {"opponent": "mcts:sims=400", "games": 20, "min_rate": 0.5}]';

export class InstructorView {
  constructor(app, courseId) {
    this.app = app;
    this.conn = app.conn;
    this.courseId = courseId ? Number(courseId) : null;
    this.title = this.courseId ? `Course ${this.courseId}` : 'Courses';
    this.token = load(ADMIN_KEY);
    this.el = h('div', {class: 'page course instructor'});
    this.detail = h('div', {class: 'detail'});
    this.rosterStatus = h('div', {class: 'roster-status'});
    this.actStatus = h('span', {class: 'act-status'});
    this.onReady = () => this.refresh();
  }

  mount(root) {
    root.replaceChildren(this.el);
    this.conn.addEventListener('ready', this.onReady);
    this.render();
    if (this.conn.ready) this.refresh();
    this.timer = setInterval(() => { if (this.courseId && this.busy()) this.refresh(true); }, 2000);
  }

  unmount() {
    clearInterval(this.timer);
    this.conn.removeEventListener('ready', this.onReady);
  }

  busy() {
    const v = this.view;
    return v && (!v.submissions.every(settled) || v.builds?.building > 0 || v.builds?.waiting > 0 || v.course.final_state === 'running' || (v.course.deadline_ms && !v.course.frozen_ms) || v.scrimmage?.state === 'playing');
  }

  async refresh(poll = false) {
    if (!this.token || !this.conn.ready) return;
    this.error = '';
    if (this.courseId) {
      /* a reply lost with its connection leaves the page as it is: 'ready' refreshes it again */
      const r = await this.conn.request({type: 'course_view', admin_token: this.token, course: this.courseId}).catch(() => null);
      if (!r) return;
      const text = JSON.stringify({...r, id: undefined});
      if (poll && text === this.lastText) return; /* a poll with nothing new: the page stays as it is */
      this.lastText = text;
      if (r.type === 'error') { this.error = errText(r); this.view = null; } else this.view = r;
    } else {
      const r = await this.conn.request({type: 'course_list', admin_token: this.token}).catch(() => null);
      if (!r) return;
      if (r.type === 'error') { this.error = errText(r); this.list = null; } else this.list = r.courses;
      await this.app.loadCatalogue().catch(() => {});
    }
    this.render();
  }

  render() {
    const login = h('form', {class: 'token-form', onsubmit: (e) => {
      e.preventDefault();
      this.token = e.target.elements.token.value.trim();
      store(ADMIN_KEY, this.token);
      this.refresh();
    }}, [
      h('label', {}, ['Admin token ', h('input', {name: 'token', type: 'password', autocomplete: 'off', value: this.token, size: 28})]),
      h('button', {type: 'submit', text: 'open'}),
    ]);
    const parts = [h('h2', {}, [this.courseId ? h('a', {href: '#/instructor', text: 'Courses'}) : 'Courses', this.courseId ? ` › ${this.view?.course.name || this.courseId}` : '']), login];
    if (this.error) parts.push(h('p', {class: 'error', text: this.error}));
    if (this.courseId && this.view) parts.push(...this.courseParts().filter(Boolean));
    else if (!this.courseId && this.list) parts.push(...this.listParts().filter(Boolean));
    this.el.replaceChildren(...parts);
  }

  listParts() {
    const current = this.list.filter((c) => !c.archived), archived = this.list.filter((c) => c.archived);
    const row = (c) => h('tr', {dataset: {course: c.course}}, [
      h('td', {}, [h('a', {href: `#/instructor/${c.course}`, text: c.name})]),
      h('td', {text: c.game}), h('td', {text: `${c.gates.length} gates`}), h('td', {text: deadlineText(c)}), h('td', {text: c.final_state}),
    ]);
    const rows = current.length ? current.map(row) : [h('tr', {}, [h('td', {class: 'empty', colspan: 5, text: 'no courses yet'})])];
    const games = (this.app.games || []).map((g) => g.name);
    const status = h('span', {class: 'create-status'});
    const form = h('form', {class: 'create-course', onsubmit: async (e) => {
      e.preventDefault();
      const el = e.target.elements;
      let gates;
      try { gates = JSON.parse(el.gates.value); } catch (err) { status.textContent = `gates: not JSON (${err.message})`; return; }
      const msg = {type: 'course_create', admin_token: this.token, name: el.name.value, game: el.game.value, move_ms: Number(el.move_ms.value), gates,
        qualify: Number(el.qualify.value), final_games: Number(el.final_games.value),
        max_upload_bytes: Math.round(Number(el.max_upload_mb.value) * 1048576), scrimmage: el.scrimmage.value};
      if (el.deadline.value) msg.deadline_ms = new Date(el.deadline.value).getTime();
      status.textContent = 'checking the gates (a program opponent plays a game first)…';
      status.className = 'create-status';
      let r;
      try { r = await this.conn.request(msg, 300000); } catch (err) { status.textContent = String(err.message || err); return; }
      if (r.type === 'error') { status.textContent = errText(r); status.className = 'create-status error'; return; }
      location.hash = `#/instructor/${r.course}`;
    }}, [
      h('h3', {text: 'New course'}),
      h('label', {}, ['name ', h('input', {name: 'name', required: true, maxlength: 80, placeholder: 'COMP 424 — Reversi'})]),
      h('label', {}, ['game ', h('select', {name: 'game'}, (games.length ? games : ['reversi']).map((g) => h('option', {value: g, text: g, selected: g === 'reversi'})))]),
      h('label', {}, ['ms per move ', h('input', {name: 'move_ms', type: 'number', min: 1, value: 1000})]),
      h('label', {class: 'wide'}, ['gates (the ladder, in order) ', h('textarea', {name: 'gates', rows: 3, cols: 60, text: DEFAULT_GATES})]),
      h('label', {}, ['gates to qualify ', h('input', {name: 'qualify', type: 'number', min: 0, value: 1})]),
      h('label', {}, ['final games per pair ', h('input', {name: 'final_games', type: 'number', min: 2, value: 2})]),
      h('label', {}, ['largest submission (MiB) ', h('input', {name: 'max_upload_mb', type: 'number', min: 0.04, step: 'any', value: 4})]),
      h('label', {}, ['deadline ', h('input', {name: 'deadline', type: 'datetime-local'})]),
      h('label', {}, ['scrimmage before the deadline ', scrimSelect('off')]),
      h('button', {type: 'submit', text: 'create the course'}),
      status,
    ]);
    const head = () => h('thead', {}, [h('tr', {}, ['course', 'game', 'ladder', 'deadline', 'final'].map((x) => h('th', {text: x})))]);
    return [h('table', {class: 'matches', id: 'course-list'}, [head(), h('tbody', {}, rows)]),
      archived.length ? h('details', {class: 'archived-courses'}, [h('summary', {text: `Archived (${archived.length})`}), h('table', {class: 'matches', id: 'archived-list'}, [head(), h('tbody', {}, archived.map(row))])]) : null,
      form];
  }

  courseParts() {
    const v = this.view, c = v.course;
    const rosterStatus = this.rosterStatus;
    const roster = h('form', {class: 'roster-form', onsubmit: async (e) => {
      e.preventDefault();
      const r = await this.conn.ask({type: 'course_add_students', admin_token: this.token, course: c.course, csv: e.target.elements.csv.value});
      if (r.type === 'error') { rosterStatus.replaceChildren(h('p', {class: 'error', text: errText(r)})); return; }
      this.handout = r.handout_csv;
      e.target.elements.csv.value = '';
      rosterStatus.replaceChildren(h('p', {class: 'ok'}, [`${r.students.length} students added. Their tokens are shown this once — hand each student theirs: `,
        h('button', {type: 'button', class: 'handout', text: 'download the token file (CSV)', onclick: () => download(`course-${c.course}-tokens.csv`, r.handout_csv)})]),
      h('table', {class: 'matches tokens'}, [h('thead', {}, [h('tr', {}, ['id', 'name', 'token'].map((x) => h('th', {text: x})))]),
        h('tbody', {}, r.students.map((x) => h('tr', {dataset: {student: x.student_id}}, [h('td', {text: x.student_id}), h('td', {text: x.name}), h('td', {class: 'token', text: x.token})])))]));
      this.refresh();
    }}, [
      h('label', {class: 'wide'}, ['add students (CSV with name, email, id columns) ', h('textarea', {name: 'csv', rows: 3, cols: 60, placeholder: 'name,email,id\nAda Lovelace,ada@example.edu,s1'})]),
      h('button', {type: 'submit', text: 'add to the roster'}),
    ]);
    const started = c.final_state === 'running' || c.final_state === 'done';
    const actions = h('div', {class: 'actions'}, [
      h('button', {class: 'deadline-now', text: 'close submissions now', disabled: !!c.frozen_ms || started, onclick: () => this.act({type: 'course_set_deadline', deadline_ms: 0})}),
      h('select', {class: 'final-format', title: 'the final\'s format'}, [['round-robin', 'round-robin'], ['swiss', 'Swiss'], ['knockout', 'knockout']].map(([v, t]) => h('option', {value: v, text: t}))),
      h('button', {class: 'start-final', text: c.final_state === 'done' ? 'play the final again' : 'start the final', disabled: !c.frozen_ms || c.final_state === 'running',
        onclick: () => this.act({type: 'course_start_final', format: this.el.querySelector('select.final-format').value, ...(c.final_state === 'done' ? {rerun: true} : {})})}),
      h('button', {class: 'export', text: 'export grades (CSV)', onclick: async () => {
        const r = await this.conn.ask({type: 'course_grades', admin_token: this.token, course: c.course});
        if (r.type === 'error') { this.actStatus.textContent = errText(r); return; }
        this.lastGrades = r.csv;
        download(`course-${c.course}-grades.csv`, r.csv);
      }}),
    ]);
    const broken = v.submissions.filter((s) => s.state === 'not_judged');
    return [
      c.archived ? h('p', {class: 'archived-note', text: 'This course is archived: submissions are closed; everything is kept.'}) : null,
      courseFacts(c), buildsLine(v.builds), actions, this.actStatus,
      broken.length ? h('p', {class: 'broken-gates error', text: `${broken.length} submission${broken.length > 1 ? 's are' : ' is'} not judged: a gate's opponent faulted (⚠ below). Fix it, then play the gates again; the freeze waits.`}) : null,
      this.manageParts(c, v, started),
      h('h3', {text: `Roster (${v.roster.length})`}),
      h('table', {class: 'matches roster'}, [h('thead', {}, [h('tr', {}, ['id', 'name', 'email', 'submissions', 'extension'].map((x) => h('th', {text: x})))]),
        h('tbody', {}, v.roster.map((s) => h('tr', {dataset: {student: s.student_id}}, [h('td', {dataset: {label: 'id'}, text: s.student_id}), h('td', {dataset: {label: 'name'}, text: s.name}), h('td', {dataset: {label: 'email'}, text: s.email}), h('td', {dataset: {label: 'submissions'}, text: String(s.submissions)}),
          h('td', {class: 'extension', dataset: {label: 'extension'}}, s.deadline_ms ? [fmtDate(s.deadline_ms), ' ', h('button', {class: 'link remove-extension', text: 'remove', disabled: started, onclick: () => this.act({type: 'course_set_deadline', student: s.student_id, deadline_ms: 0})})] : ['–'])])))]),
      roster, rosterStatus,
      h('h3', {text: 'Submissions and gates'}),
      submissionsTable(v.submissions, (id) => this.showGame(id), {withStudent: true, onCode: (s) => this.showCode(s)}),
      scrimmageSection(v.scrimmage, (id) => this.showGame(id)),
      h('h3', {text: 'Final standings'}), standingsTable(v.final), finalCharts(v.final, v.final_games),
      v.final_games.length ? h('h3', {text: `Final games (${v.final_games.length})`}) : null,
      v.final_games.length ? gameList(v.final_games, (id) => this.showGame(id)) : null,
      this.detail,
    ];
  }

  /** Undo and remove (issue 25): the deadline moved or extended for one student, the gates played
   *  again (with a new ladder), the course archived or deleted. */
  manageParts(c, v, started) {
    const deadline = h('form', {class: 'deadline-form', onsubmit: (e) => {
      e.preventDefault();
      const el = e.target.elements;
      const msg = {type: 'course_set_deadline', deadline_ms: new Date(el.when.value).getTime()};
      if (el.student.value) msg.student = el.student.value;
      this.act(msg);
    }}, [
      h('label', {}, ['deadline ', h('input', {name: 'when', type: 'datetime-local', required: true})]),
      h('label', {}, ['for ', h('select', {name: 'student'}, [h('option', {value: '', text: 'everyone'}),
        ...v.roster.map((s) => h('option', {value: s.student_id, text: `${s.student_id} only (an extension)`}))])]),
      h('button', {type: 'submit', text: 'set the deadline', disabled: started}),
    ]);
    const gates = h('form', {class: 'rerun-form', onsubmit: (e) => {
      e.preventDefault();
      const el = e.target.elements;
      let ladder;
      try { ladder = JSON.parse(el.gates.value); } catch (err) { this.actStatus.textContent = `gates: not JSON (${err.message})`; return; }
      this.actStatus.textContent = 'checking the gates and playing them again…';
      this.act({type: 'course_rerun_gates', gates: ladder, qualify: Number(el.qualify.value)}, 300000);
    }}, [
      h('label', {class: 'wide'}, ['gates ', h('textarea', {name: 'gates', rows: 2, cols: 60, text: JSON.stringify(c.gates)})]),
      h('label', {}, ['gates to qualify ', h('input', {name: 'qualify', type: 'number', min: 0, value: c.qualify})]),
      h('button', {type: 'submit', class: 'rerun-gates', text: 'play every submission\'s gates again', disabled: started}),
    ]);
    const settings = h('form', {class: 'settings-form', onsubmit: (e) => {
      e.preventDefault();
      const el = e.target.elements;
      this.act({type: 'course_settings', scrimmage: el.scrimmage.value, max_upload_bytes: Math.round(Number(el.max_upload_mb.value) * 1048576)});
    }}, [
      h('label', {}, ['scrimmage ', scrimSelect(c.scrimmage || 'off')]),
      h('label', {}, ['largest submission (MiB) ', h('input', {name: 'max_upload_mb', type: 'number', min: 0.04, step: 'any', value: +((c.max_upload_bytes || 4194304) / 1048576).toFixed(3)})]),
      h('button', {type: 'submit', class: 'save-settings', text: 'save the settings'}),
    ]);
    const remove = h('form', {class: 'delete-form', onsubmit: async (e) => {
      e.preventDefault();
      this.actStatus.textContent = 'deleting…';
      const r = await this.conn.ask({type: 'course_delete', admin_token: this.token, course: this.courseId, confirm: e.target.elements.confirm.value}, 120000);
      if (r.type === 'error') { this.actStatus.textContent = errText(r); return; }
      location.hash = '#/instructor';
    }}, [
      h('button', {type: 'button', class: 'archive', text: c.archived ? 'bring back from the archive' : 'archive the course', onclick: () => this.act({type: 'course_archive', archived: !c.archived})}),
      h('label', {}, ['delete: type its name ', h('input', {name: 'confirm', autocomplete: 'off', size: 16})]),
      h('button', {type: 'submit', class: 'delete', text: 'delete the course'}),
    ]);
    return h('details', {class: 'manage', open: !!this.manageOpen, ontoggle: (e) => { this.manageOpen = e.target.open; }}, [h('summary', {text: 'Change the deadline, the gates, the settings; archive or delete'}), deadline, gates, settings, remove]);
  }

  async act(msg, timeout) {
    const r = await this.conn.ask({...msg, admin_token: this.token, course: this.courseId}, timeout);
    this.actStatus.textContent = r.type === 'error' ? errText(r) : '';
    this.refresh();
  }

  async showGame(id) {
    const r = await this.conn.ask({type: 'course_game', admin_token: this.token, game: id});
    this.detail.replaceChildren(r.type === 'error' ? h('p', {class: 'error', text: errText(r)}) : gamePanel(this.app, r));
  }

  async showCode(s) {
    const r = await this.conn.ask({type: 'course_code', admin_token: this.token, submission: s.submission});
    if (r.type === 'error') { this.detail.replaceChildren(h('p', {class: 'error', text: errText(r)})); return; }
    this.detail.replaceChildren(h('section', {class: 'code'}, [h('h3', {text: `${s.student_id} v${r.version}: ${r.main}`}),
      ...r.files.map((f) => h('details', {open: f.name === r.main}, [h('summary', {text: f.name}), h('pre', {text: codeText(r, f)})]))]));
  }
}
