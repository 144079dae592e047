// Small DOM helpers shared by the views. No framework: elements are built with
// h() (HTML) and s() (SVG) and updated in place.

const SVGNS = 'http://www.w3.org/2000/svg';

function apply(node, attrs, children) {
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') node.setAttribute('class', v);
    else if (k === 'text') node.textContent = v;
    else if (k === 'dataset') Object.assign(node.dataset, v);
    else if (k.startsWith('on') && typeof v === 'function') node.addEventListener(k.slice(2), v);
    else if (k in node && !(node instanceof SVGElement) && typeof v !== 'string') node[k] = v;
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of [].concat(children ?? [])) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

/** An HTML element: h('button', {class: 'x', onclick: f}, ['text']). */
export function h(tag, attrs, children) {
  return apply(document.createElement(tag), attrs, children);
}

/** An SVG element, same calling convention as h(). */
export function s(tag, attrs, children) {
  return apply(document.createElementNS(SVGNS, tag), attrs, children);
}

/** Milliseconds as m:ss (or s.t below ten seconds). */
export function fmtClock(ms) {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '–';
  ms = Math.max(0, ms);
  if (ms < 10000) return (ms / 1000).toFixed(1) + ' s';
  const t = Math.floor(ms / 1000);
  const h = Math.floor(t / 3600), m = Math.floor((t % 3600) / 60), sec = t % 60;
  const mm = h ? String(m).padStart(2, '0') : String(m);
  return (h ? h + ':' : '') + mm + ':' + String(sec).padStart(2, '0');
}

export function fmtDate(ms) {
  if (!ms) return '';
  const d = new Date(ms);
  return d.toLocaleString(undefined, {month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit'});
}

/** Seat colours (also in the CSS as --seat0..4). */
export const SEAT_COLOURS = ['#d62839', '#1f6fd6', '#f2c230', '#8e44ad', '#2b2b2b'];
export const SEAT_NAMES = ['red', 'blue', 'yellow', 'purple', 'black'];

/** How people see seat i (0-based on the wire): "P1".."P5". */
export function pLabel(i) { return `P${i + 1}`; }

/** Both, where a person must match the label with a wire seat number (e.g. `--seat 1`): "P2 (seat 1)". */
export function pSeat(i) { return `P${i + 1} (seat ${i})`; }

/** A player's name for people: the seat's name, with its P label when another seat has the same
 *  name (two "heuristic" bots), or the P label alone for a seat without a name. */
export function playerName(seats, i) {
  const name = seats?.[i]?.name;
  if (!name) return pLabel(i);
  const same = (seats || []).filter((x) => x?.name === name).length;
  return same > 1 ? `${name} (${pLabel(i)})` : name;
}

/** Saved seats of this browser: tokens to join and resume tokens, per match. */
const SEATS_KEY = 'tessera.seats';
export const seatStore = {
  all() {
    try { return JSON.parse(localStorage.getItem(SEATS_KEY)) || {}; } catch { return {}; }
  },
  get(match) { return this.all()[match] || null; },
  set(match, rec) {
    const all = this.all();
    all[match] = {...(all[match] || {}), ...rec};
    try { localStorage.setItem(SEATS_KEY, JSON.stringify(all)); } catch { /* private mode */ }
  },
  remove(match) {
    const all = this.all();
    delete all[match];
    try { localStorage.setItem(SEATS_KEY, JSON.stringify(all)); } catch { /* ignore */ }
  },
};

/** A game record (docs/records.md) from what a table view knows. */
export function buildRecord(game, rules, turns, result) {
  const rec = {format: 'tessera-record', version: 1, game, rules, turns};
  if (result && result.reason === 'normal' && Array.isArray(result.scores)) rec.result = {scores: result.scores};
  return rec;
}

export function download(name, text) {
  const a = h('a', {href: URL.createObjectURL(new Blob([text], {type: 'application/json'})), download: name});
  document.body.append(a);
  a.click();
  setTimeout(() => { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
}

/** The admin token the instructor's and the tournaments' pages share, kept in this browser. */
export const ADMIN_KEY = 'tessera.admin.token';

/** Keep a value in this browser's localStorage (an empty value removes it). */
export function store(key, value) {
  try {
    if (value) localStorage.setItem(key, value); else localStorage.removeItem(key);
  } catch { /* private mode: the token lives as long as the page */ }
}

/** A value kept with store(), or ''. */
export function load(key) {
  try { return localStorage.getItem(key) || ''; } catch { return ''; }
}
