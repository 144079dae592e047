#!/usr/bin/env node
'use strict';
/*
 * client.js — a small third-party Carcassonne bot for a tessera server,
 * written from docs/protocol.md alone. It needs Node.js 18+ and the npm
 * package `ws` (npm install in this folder).
 *
 *   node client.js --url ws://HOST:8080/ --match ID --seat N --token TOKEN
 *       join an open seat you were given (create_match's reply names the
 *       seats and tokens), play it to the end
 *   node client.js --url ws://HOST:8080/ --create [--bot SPEC] [--move-ms MS]
 *       create a match against an in-process bot (default: heuristic) and
 *       play the open seat
 *
 * How it plays: every `your_turn` lists the legal moves. If one of them lets
 * a meeple go on a city, it plays that; otherwise a random placement without
 * a meeple. Whether a port is on a city comes from the tile model the server
 * publishes in `list_games` (`tiles`: each tile's ports, unrotated).
 *
 * If the connection drops, it reconnects and sends `resume` with the resume
 * token it got from `joined`. It exits on `game_over`, printing the result
 * (and a last line of JSON for scripts): exit code 0 when the match ended,
 * 1 on an error it cannot recover from.
 */
const WebSocket = require('ws');

/* ---- command line ---------------------------------------------------------------- */

function usage(msg) {
  if (msg)
    console.error('client.js: ' + msg);
  console.error('usage: node client.js --url ws://HOST:PORT/ --match ID --seat N --token TOKEN [--name NAME]\n' +
    '       node client.js --url ws://HOST:PORT/ --create [--bot SPEC] [--move-ms MS] [--name NAME]\n' +
    '       (add --verbose to print every move)');
  process.exit(2);
}

function parseArgs(argv) {
  const opts = { url: 'ws://127.0.0.1:8080/', name: 'client.js', bot: 'heuristic', verbose: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length)
        usage(a + ' needs a value');
      return argv[++i];
    };
    switch (a) {
    case '--url': opts.url = value(); break;
    case '--match': opts.match = value(); break;
    case '--seat': opts.seat = Number(value()); break;
    case '--token': opts.token = value(); break;
    case '--name': opts.name = value(); break;
    case '--create': opts.create = true; break;
    case '--bot': opts.bot = value(); break;
    case '--move-ms': opts.moveMs = Number(value()); break;
    case '--verbose': opts.verbose = true; break;
    case '--help': case '-h': usage(); break;
    default: usage('unknown argument ' + a);
    }
  }
  if (!opts.create && (!opts.match || !Number.isInteger(opts.seat) || !opts.token))
    usage('give --match, --seat and --token, or --create');
  return opts;
}

const opts = parseArgs(process.argv.slice(2));
const log = (...a) => console.log('[client.js]', ...a);

/* ---- choosing a move ---------------------------------------------------------- */

/* Port order of the tile model (docs/protocol.md, "Carcassonne"): the twelve
 * edge ports clockwise from the north-west, then the centre. Turning a tile
 * a quarter clockwise moves every edge port three places on. */
const PORTS = ['NW', 'N', 'NE', 'EN', 'E', 'ES', 'SE', 'S', 'SW', 'WS', 'W', 'WN', 'C'];
let tiles = {}; /* tile letter -> {ports: "fffffffrffffk", ...}, from list_games */

/* Is `port` (as placed, rotated by rot) on a city of tile `letter`? */
function onCity(letter, rot, port) {
  const t = tiles[letter];
  const i = PORTS.indexOf(port);
  if (!t || i < 0)
    return false;
  const unrotated = i === 12 ? 12 : (((i - 3 * rot) % 12) + 12) % 12;
  return 'cd'.includes(t.ports[unrotated]);
}

function chooseMove(yt) {
  const tile = yt.state.tile;
  for (const e of yt.legal)
    for (const port of e.meeples || [])
      if (onCity(tile, e.rot, port))
        return { x: e.x, y: e.y, rot: e.rot, meeple: port };
  const e = yt.legal[Math.floor(Math.random() * yt.legal.length)];
  return { x: e.x, y: e.y, rot: e.rot };
}

/* ---- the connection ------------------------------------------------------------- */

let ws = null;
let nextId = 1;
let resumeToken = null; /* from joined: what takes the seat back after a drop */
let matchId = opts.match;
let seat = opts.seat;
let over = false;
let retries = 0;
const waiting = new Map(); /* id -> {resolve, reject} for request() */

function send(msg) {
  ws.send(JSON.stringify(msg));
}

/* Send a message with an id and wait for the reply that echoes it. */
function request(msg) {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    send({ ...msg, id });
  });
}

function connect() {
  ws = new WebSocket(opts.url);
  ws.on('open', () => {
    retries = 0;
    session().catch((e) => {
      console.error('client.js: ' + e.message);
      process.exit(1);
    });
  });
  ws.on('message', (data) => onMessage(JSON.parse(data.toString())));
  ws.on('error', (e) => log('connection error: ' + e.message));
  ws.on('close', () => {
    for (const w of waiting.values())
      w.reject(new Error('connection closed'));
    waiting.clear();
    if (over)
      return;
    /* a drop: come back with resume (the server keeps the seat for
     * reconnect_grace_ms, and our clock keeps running meanwhile) */
    if (++retries > 20) {
      console.error('client.js: cannot reach the server; giving up');
      process.exit(1);
    }
    const wait = Math.min(5000, 100 * 2 ** retries);
    log(`connection lost; reconnecting in ${wait} ms`);
    setTimeout(connect, wait);
  });
}

/* What happens once per connection: hello, then join/create or resume. */
async function session() {
  const welcome = await request({ type: 'hello', protocol: 1, client: 'client.js/1.0' });
  if (welcome.type !== 'welcome')
    throw new Error('hello refused: ' + welcome.message);
  if (!Object.keys(tiles).length) {
    const games = await request({ type: 'list_games' });
    const carc = games.games.find((g) => g.name === 'carcassonne');
    tiles = (carc && carc.tiles) || {};
  }
  if (resumeToken) {
    const r = await request({ type: 'resume', resume_token: resumeToken });
    if (r.type !== 'resumed')
      throw new Error('resume refused: ' + r.code + ': ' + r.message);
    log(`resumed seat ${seat} of match ${matchId} after ${r.history.length} turns`);
    return; /* your_turn follows if it is our move */
  }
  if (opts.create) {
    const tc = opts.moveMs ? { move_ms: opts.moveMs } : undefined;
    const created = await request({
      type: 'create_match', game: 'carcassonne',
      seats: [{ bot: opts.bot }, { open: true, name: opts.name }],
      ...(tc ? { time_control: tc } : {}),
    });
    if (created.type !== 'match_created')
      throw new Error('create_match refused: ' + created.code + ': ' + created.message);
    matchId = created.match;
    seat = created.seats[0].seat;
    opts.token = created.seats[0].token;
    log(`created match ${matchId}: ${opts.bot} against us in seat ${seat}`);
  }
  const joined = await request({ type: 'join', match: matchId, seat, token: opts.token });
  if (joined.type !== 'joined')
    throw new Error('join refused: ' + joined.code + ': ' + joined.message);
  resumeToken = joined.resume_token;
  log(`joined seat ${seat} of match ${matchId}`);
}

let lastScores = null;
let lastTurn = null; /* the latest your_turn, to retry after a refused move */
let moves = 0, cityMeeples = 0;

function onMessage(m) {
  if (m.id !== undefined && waiting.has(m.id)) {
    const w = waiting.get(m.id);
    waiting.delete(m.id);
    w.resolve(m);
    return;
  }
  switch (m.type) {
  case 'your_turn': {
    lastTurn = m;
    const move = chooseMove(m);
    moves++;
    if (move.meeple)
      cityMeeples++;
    if (opts.verbose)
      log(`turn ${m.turn}: tile ${m.state.tile} -> ${JSON.stringify(move)} (${m.time_left_ms} ms left)`);
    /* naming the turn makes a late move fail instead of landing on the next turn */
    send({ type: 'move', match: m.match, turn: m.turn, move });
    break;
  }
  case 'update':
    lastScores = m.scores;
    break;
  case 'error':
    log(`error ${m.code}: ${m.message}`);
    /* Under the `reject` illegal policy a refused move may be tried again
     * within the same time: fall back to a plain placement from the list.
     * (not_your_turn means our move came late: nothing to do.) */
    if ((m.code === 'illegal_move' || m.code === 'bad_move') && lastTurn && !lastTurn.retried) {
      lastTurn.retried = true;
      const e = lastTurn.legal[Math.floor(Math.random() * lastTurn.legal.length)];
      send({ type: 'move', match: lastTurn.match, turn: lastTurn.turn, move: { x: e.x, y: e.y, rot: e.rot } });
    }
    break;
  case 'game_over': {
    over = true;
    const r = m.result;
    const won = r.winners.includes(seat);
    log(`game over (${r.reason}${r.detail ? ': ' + r.detail : ''}): scores ${JSON.stringify(m.scores)}, ` +
      `we are seat ${seat} and ${won ? 'won' : 'lost'}; ${moves} moves, ${cityMeeples} meeples on cities`);
    console.log(JSON.stringify({ match: m.match, seat, reason: r.reason, scores: m.scores, winners: r.winners,
      last_update_scores: lastScores, moves }));
    ws.close();
    process.exitCode = 0;
    break;
  }
  default:
    break; /* move_accepted and anything newer: nothing to do */
  }
}

process.on('SIGINT', () => {
  over = true;
  if (ws)
    ws.close();
  process.exit(130);
});

connect();
