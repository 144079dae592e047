// Carcassonne tiles drawn from their port maps (docs/protocol.md "tiles"): no
// artwork, only geometry derived from which feature touches which port.
//
// A tile is a 100×100 square, x east, y south. Ports, in the protocol's order:
//   NW N NE EN E ES SE S SW WS W WN C
// and one letter per port names its feature: c/d city, r/s/t/u road,
// f/g/h/i field, k cloister, '.' none. Rotating a tile clockwise once moves
// its N edge to E, i.e. port index i (edge ports 0..11) goes to (i + 3) % 12.

import {s} from './util.js';

export const PORTS = ['NW', 'N', 'NE', 'EN', 'E', 'ES', 'SE', 'S', 'SW', 'WS', 'W', 'WN', 'C'];
export const PORT_XY = {
  NW: [25, 0], N: [50, 0], NE: [75, 0], EN: [100, 25], E: [100, 50], ES: [100, 75],
  SE: [75, 100], S: [50, 100], SW: [25, 100], WS: [0, 75], W: [0, 50], WN: [0, 25], C: [50, 50],
};
const CORNERS = [[0, 0], [100, 0], [100, 100], [0, 100]];   // NW NE SE SW: edge e runs corner e -> e+1
const EDGE_MID = [[50, 0], [100, 50], [50, 100], [0, 50]];    // N E S W

export function kindOf(letter) {
  if ('cd'.includes(letter)) return 'city';
  if ('rstu'.includes(letter)) return 'road';
  if ('fghi'.includes(letter)) return 'field';
  if (letter === 'k') return 'cloister';
  return null;
}

/** The port map of a tile after rot clockwise quarter turns (board orientation). */
export function rotatePorts(ports, rot) {
  rot = ((rot % 4) + 4) % 4;
  let out = '';
  for (let j = 0; j < 12; j++) out += ports[(j - 3 * rot + 48) % 12];
  return out + ports[12];
}

/** Letters relabelled by order of appearance within their kind, so two
 *  rotations that give the same tile on the board compare equal. */
function canonical(rotated) {
  const seen = new Map(), count = {};
  let out = '';
  for (const ch of rotated) {
    const k = kindOf(ch);
    if (!k) { out += '.'; continue; }
    if (!seen.has(ch)) { count[k] = (count[k] || 0) + 1; seen.set(ch, k[0] + count[k]); }
    out += seen.get(ch) + ' ';
  }
  return out;
}

/** For each rotation, the lowest rotation giving the same tile on the board. */
export function rotationClasses(ports) {
  const canon = [0, 1, 2, 3].map((r) => canonical(rotatePorts(ports, r)));
  return canon.map((c) => canon.indexOf(c));
}

/** The feature letter at a port name of a placed tile. */
export function letterAt(ports, rot, port) {
  const i = PORTS.indexOf(port);
  return i < 0 ? null : rotatePorts(ports, rot)[i];
}

// ---- geometry -------------------------------------------------------------

const rot90 = ([x, y]) => [100 - y, x];
function rotN([x, y], n) { let p = [x, y]; for (let i = 0; i < (n % 4); i++) p = rot90(p); return p; }

// The boundary between a city and the rest of the tile across a run of n
// non-city edges, written for a run that starts at the N edge (from the NW
// corner); other runs are rotated copies. Two cubic control points each.
const RUN_CONTROLS = {
  1: [[8, 32], [92, 32]],      // to NE: the city holds the other three edges or the opposite one
  2: [[30, 55], [45, 70]],    // to SE: the city holds S and W, bowed slightly into it
  3: [[40, 20], [40, 80]],    // to SW: a cap on the W edge
};

function bezier(p0, c1, c2, p1, steps, out) {
  for (let i = 1; i <= steps; i++) {
    const t = i / steps, u = 1 - t;
    out.push([
      u * u * u * p0[0] + 3 * u * u * t * c1[0] + 3 * u * t * t * c2[0] + t * t * t * p1[0],
      u * u * u * p0[1] + 3 * u * u * t * c1[1] + 3 * u * t * t * c2[1] + t * t * t * p1[1],
    ]);
  }
}

const f1 = (v) => Math.round(v * 10) / 10;
const pt = ([x, y]) => `${f1(x)} ${f1(y)}`;

/** Outline of a city over the given edges: an SVG path and a polygon. */
function cityOutline(edges) {
  const inCity = [0, 1, 2, 3].map((e) => edges.includes(e));
  if (inCity.every(Boolean)) {
    return {d: 'M0 0H100V100H0Z', poly: CORNERS.map((c) => c.slice())};
  }
  let start = [0, 1, 2, 3].find((e) => inCity[e] && !inCity[(e + 3) % 4]);
  let d = `M${pt(CORNERS[start])}`;
  const poly = [CORNERS[start].slice()];
  let i = start, done = 0;
  while (done < 4) {
    const e = i % 4;
    if (inCity[e]) {
      const c = CORNERS[(e + 1) % 4];
      d += `L${pt(c)}`;
      poly.push(c.slice());
      i++; done++;
    } else {
      let n = 0;
      while (n < 4 && !inCity[(e + n) % 4]) n++;
      const [c1, c2] = RUN_CONTROLS[n].map((p) => rotN(p, e));
      const from = CORNERS[e], to = CORNERS[(e + n) % 4];
      d += `C${pt(c1)} ${pt(c2)} ${pt(to)}`;
      bezier(from, c1, c2, to, 16, poly);
      i += n; done += n;
    }
  }
  return {d: d + 'Z', poly};
}

function insidePoly(poly, x, y) {
  let inside = false;
  for (let i = 0, j = poly.length - 1; i < poly.length; j = i++) {
    const [xi, yi] = poly[i], [xj, yj] = poly[j];
    if ((yi > y) !== (yj > y) && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

function distToSegment(px, py, [ax, ay], [bx, by]) {
  const dx = bx - ax, dy = by - ay;
  const len = dx * dx + dy * dy;
  let t = len ? ((px - ax) * dx + (py - ay) * dy) / len : 0;
  t = Math.max(0, Math.min(1, t));
  return Math.hypot(px - (ax + t * dx), py - (ay + t * dy));
}

const GRID = 25, CELL = 100 / GRID;
const ROAD_HALF = 7;

/** The geometry of one tile type in one rotation, computed once and cached:
 *  features with their SVG paths and an anchor point for a meeple. */
const cache = new Map();
export function tileGeometry(type, def, rot) {
  const key = `${type}/${rot}`;
  if (cache.has(key)) return cache.get(key);
  const ports = rotatePorts(def.ports, rot);
  const letters = [...new Set(ports.replace(/\./g, ''))];
  const features = {};
  for (const L of letters) features[L] = {letter: L, kind: kindOf(L), ports: [], edges: []};
  for (let i = 0; i < 13; i++) if (ports[i] !== '.') features[ports[i]].ports.push(PORTS[i]);
  for (let e = 0; e < 4; e++) {
    const L = ports[3 * e + 1];
    if (L !== '.') features[L].edges.push(e);
  }
  const cities = [], roads = [], fields = [];
  let cloister = null;
  for (const f of Object.values(features)) {
    if (f.kind === 'city') { Object.assign(f, cityOutline(f.edges)); cities.push(f); }
    else if (f.kind === 'road') roads.push(f);
    else if (f.kind === 'field') fields.push(f);
    else if (f.kind === 'cloister') { cloister = f; f.anchor = [50, 50]; }
  }
  const roadEdges = roads.reduce((n, r) => n + r.edges.length, 0);
  const junction = roads.length >= 3 || (roads.length > 0 && roads.every((r) => r.edges.length === 1) && !cloister && cities.length === 0);
  for (const r of roads) {
    const mids = r.edges.map((e) => EDGE_MID[e]);
    if (mids.length === 2) {
      const opposite = Math.abs(r.edges[0] - r.edges[1]) === 2;
      r.d = opposite ? `M${pt(mids[0])}L${pt(mids[1])}` : `M${pt(mids[0])}Q50 50 ${pt(mids[1])}`;
      r.line = [];
      if (opposite) { r.line.push(mids[0], mids[1]); r.anchor = [f1((mids[0][0] + mids[1][0]) / 2), f1((mids[0][1] + mids[1][1]) / 2)]; }
      else {
        r.line.push(mids[0]);
        for (let i = 1; i <= 12; i++) {
          const t = i / 12, u = 1 - t;
          r.line.push([u * u * mids[0][0] + 2 * u * t * 50 + t * t * mids[1][0], u * u * mids[0][1] + 2 * u * t * 50 + t * t * mids[1][1]]);
        }
        r.anchor = r.line[6].map(f1);
      }
    } else {
      // a road that ends on this tile: at the junction, the cloister or the city
      r.line = [];
      let d = '';
      for (const m of mids) {
        d += `M${pt(m)}L50 50`;
        r.line.push(m, [50, 50]);
      }
      r.d = d;
      const m = mids[0];
      const k = junction ? 0.3 : cloister ? 0.36 : 0.2;
      r.anchor = [f1(m[0] + (50 - m[0]) * k), f1(m[1] + (50 - m[1]) * k)];
    }
  }
  void roadEdges;

  // classify a coarse grid: city, road, cloister or field area, to find
  // where fields lie and where a meeple on a city or field stands best
  const owner = new Array(GRID * GRID).fill(null);
  for (let gy = 0; gy < GRID; gy++) {
    for (let gx = 0; gx < GRID; gx++) {
      const x = (gx + 0.5) * CELL, y = (gy + 0.5) * CELL;
      let o = null;
      for (const c of cities) if (insidePoly(c.poly, x, y)) o = c.letter;
      if (!o) {
        for (const r of roads) {
          for (let i = 0; i + 1 < r.line.length; i++) {
            if (distToSegment(x, y, r.line[i], r.line[i + 1]) < ROAD_HALF) { o = r.letter; break; }
          }
          if (o) break;
        }
      }
      if (!o && cloister && Math.abs(x - 50) < 18 && Math.abs(y - 50) < 18) o = 'k';
      if (!o && junction && Math.hypot(x - 50, y - 50) < 10) o = '#';
      owner[gy * GRID + gx] = o;
    }
  }
  // connected field areas, each claimed by the field whose ports touch it
  const area = new Array(GRID * GRID).fill(-1);
  let areas = 0;
  for (let i = 0; i < owner.length; i++) {
    if (owner[i] !== null || area[i] >= 0) continue;
    const stack = [i];
    area[i] = areas;
    while (stack.length) {
      const c = stack.pop(), cx = c % GRID, cy = (c - cx) / GRID;
      for (const [dx, dy] of [[1, 0], [-1, 0], [0, 1], [0, -1]]) {
        const nx = cx + dx, ny = cy + dy;
        if (nx < 0 || ny < 0 || nx >= GRID || ny >= GRID) continue;
        const n = ny * GRID + nx;
        if (owner[n] === null && area[n] < 0) { area[n] = areas; stack.push(n); }
      }
    }
    areas++;
  }
  const cellOf = ([x, y]) => {
    const gx = Math.min(GRID - 1, Math.max(0, Math.floor(x / CELL)));
    const gy = Math.min(GRID - 1, Math.max(0, Math.floor(y / CELL)));
    return gy * GRID + gx;
  };
  for (const f of fields) {
    const mine = new Set();
    for (const p of f.ports) {
      const [px, py] = PORT_XY[p];
      // step from the port towards the centre until we are on field ground
      for (let k = 0.03; k < 0.6; k += 0.04) {
        const c = cellOf([px + (50 - px) * k, py + (50 - py) * k]);
        if (area[c] >= 0) { mine.add(area[c]); break; }
      }
    }
    f.cells = [];
    for (let i = 0; i < area.length; i++) if (mine.has(area[i])) f.cells.push(i);
  }
  for (const c of cities) {
    c.cells = [];
    for (let i = 0; i < owner.length; i++) if (owner[i] === c.letter) c.cells.push(i);
  }
  // anchor: the cell of the area farthest from everything else and the edge
  for (const f of [...fields, ...cities]) {
    const own = new Set(f.cells);
    let best = null, bestD = -1;
    for (const i of f.cells) {
      const cx = i % GRID, cy = (i - cx) / GRID;
      let d = Math.min(cx + 0.5, cy + 0.5, GRID - cx - 0.5, GRID - cy - 0.5) * 1.4;
      for (let j = 0; j < owner.length && d > bestD; j++) {
        if (own.has(j)) continue;
        const jx = j % GRID, jy = (j - jx) / GRID;
        d = Math.min(d, Math.hypot(jx - cx, jy - cy));
      }
      if (d > bestD) { bestD = d; best = i; }
    }
    if (best === null) {
      const [px, py] = PORT_XY[f.ports[0]];
      f.anchor = [f1(px + (50 - px) * 0.25), f1(py + (50 - py) * 0.25)];
    } else {
      const cx = best % GRID;
      f.anchor = [f1((cx + 0.5) * CELL), f1(((best - cx) / GRID + 0.5) * CELL)];
    }
  }
  // a pennant sits beside the city's meeple spot, inside the city
  let pennant = null;
  if (def.pennant && cities.length) {
    const c = cities[0];
    const own = new Set(c.cells);
    const [ax, ay] = c.anchor;
    for (const [dx, dy] of [[-17, -14], [17, -14], [-17, 14], [17, 14], [0, -18], [0, 18], [-18, 0], [18, 0]]) {
      const x = ax + dx, y = ay + dy;
      if (x > 8 && x < 92 && y > 8 && y < 92 && own.has(cellOf([x, y]))) { pennant = [x, y]; break; }
    }
    if (!pennant) pennant = [Math.max(12, ax - 14), Math.max(12, ay - 12)];
  }
  const geo = {type, rot, ports, features, cities, roads, fields, cloister, junction, pennant};
  cache.set(key, geo);
  return geo;
}

/** Where a meeple on a port of this tile stands, and on which kind of feature. */
export function meepleSpot(type, def, rot, port) {
  const geo = tileGeometry(type, def, rot);
  const L = geo.ports[PORTS.indexOf(port)];
  const f = L ? geo.features[L] : null;
  if (!f) return {anchor: PORT_XY[port] || [50, 50], kind: null, letter: null};
  return {anchor: f.anchor, kind: f.kind, letter: L};
}

// ---- drawing --------------------------------------------------------------

/** The SVG of one tile at the origin (0..100); closed: letters of completed features. */
export function drawTile(type, def, rot, closed = new Set()) {
  const geo = tileGeometry(type, def, rot);
  const g = s('g', {class: 'tile-art'});
  g.append(s('rect', {class: 'field', x: 0, y: 0, width: 100, height: 100}));
  for (const r of geo.roads) {
    const cl = closed.has(r.letter) ? ' closed' : '';
    g.append(s('path', {class: 'road-edge' + cl, d: r.d, 'data-feature': r.letter}));
    g.append(s('path', {class: 'road' + cl, d: r.d, 'data-feature': r.letter}));
  }
  if (geo.junction) g.append(s('circle', {class: 'junction', cx: 50, cy: 50, r: 8}));
  for (const c of geo.cities) {
    g.append(s('path', {class: 'city' + (closed.has(c.letter) ? ' closed' : ''), d: c.d, 'data-feature': c.letter}));
  }
  if (geo.pennant) {
    const [x, y] = geo.pennant;
    g.append(s('path', {class: 'pennant', d: `M${f1(x - 6)} ${f1(y - 7)}h12v6c0 5-3 8-6 10c-3-2-6-5-6-10z`}));
  }
  if (geo.cloister) {
    const cl = closed.has('k') ? ' closed' : '';
    g.append(s('g', {class: 'cloister' + cl, 'data-feature': 'k'}, [
      s('rect', {class: 'cloister-ground', x: 30, y: 30, width: 40, height: 40, rx: 8}),
      s('path', {class: 'cloister-body', d: 'M38 52h24v14h-24z'}),
      s('path', {class: 'cloister-roof', d: 'M35 53l15-14l15 14z'}),
      s('path', {class: 'cloister-door', d: 'M47 66v-7a3 3 0 0 1 6 0v7z'}),
    ]));
  }
  g.append(s('rect', {class: 'tile-edge', x: 0, y: 0, width: 100, height: 100}));
  return g;
}

/** A meeple figure centred on (x, y); lying down on fields. */
export function drawMeeple(x, y, seat, kind, colour) {
  const body = 'M0 -11a4 4 0 0 1 4 4a4 4 0 0 1-1.6 3.2L9 -1.5c1.6 .8 1.2 3-.6 3H4.5L7 9.5c.3 1-.3 1.5-1.2 1.5H2L0 6.5L-2 11h-3.8c-.9 0-1.5-.5-1.2-1.5L-4.5 1.5h-3.9c-1.8 0-2.2-2.2-.6-3L-2.4 -3.8A4 4 0 0 1-4 -7a4 4 0 0 1 4-4z';
  const lying = kind === 'field';
  return s('g', {class: 'meeple', transform: `translate(${f1(x)} ${f1(y)}) scale(1.15)${lying ? ' rotate(-90)' : ''}`,
    'data-seat': seat}, [
    s('path', {d: body, fill: colour, class: 'meeple-body'}),
  ]);
}
