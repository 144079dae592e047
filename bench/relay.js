#!/usr/bin/env node
/*
 * bench/relay.js — the floor under tessera's per-move cost: a bare WebSocket
 * relay (Node `ws`) that speaks just enough of the protocol for bench/load.js
 * (hello, create_match, join, move, server_stats) and sends, per turn, the
 * same messages with the same number of bytes as tessera, with no game logic.
 *
 * Per move it does what any relay must: parse the move message (JSON.parse),
 * check it comes from the seat to move for the current turn, and send
 * `move_accepted` to the mover, `update` to both seats and `your_turn` to the
 * next seat (or `game_over` to both after the last turn). Each message is
 * padded to the size tessera's message of that type had on average, so the
 * relay pays for the same bytes on the wire. It never checks a rule, keeps no
 * board, journals nothing.
 *
 * It takes `tessera serve`'s command line (so load.js can start it in its
 * place) and ignores what it does not need; the sizes come from the
 * environment, as load.js measured them on tessera:
 *   TESSERA_RELAY_SIZES='{"update":U,"your_turn":Y,"move_accepted":A,"turns":T}'
 * (bytes per message as each seat receives them; T turns per match).
 * On SIGTERM it logs a `stats` line in tessera's shape (moves, overhead, RSS).
 * bench/compare.js runs the two side by side; see bench/README.md.
 */
'use strict';

const fs = require('fs');
let WebSocket;
try {
  WebSocket = require('ws');
} catch (e) {
  console.error('bench/relay.js: the npm package "ws" is missing: run `npm ci` in bench/ first');
  process.exit(2);
}

function usage(msg) {
  console.error(`relay.js: ${msg}\nusage: relay.js serve --port N [--port-file F] (other tessera serve options are ignored)`);
  process.exit(2);
}

const argv = process.argv.slice(2);
if (argv[0] !== 'serve') usage("the first argument must be 'serve'");
let port = 0, portFile = null;
for (let i = 1; i < argv.length; i++) {
  if (argv[i] === '--port') port = Number(argv[++i]);
  else if (argv[i] === '--port-file') portFile = argv[++i];
}
if (!Number.isInteger(port) || port < 0 || port > 65535) usage('--port wants 0..65535');

let sizes;
try {
  sizes = JSON.parse(process.env.TESSERA_RELAY_SIZES || '{}');
} catch (e) {
  usage(`TESSERA_RELAY_SIZES is not JSON: ${e.message}`);
}
const want = (k, dflt) => (Number.isFinite(sizes[k]) && sizes[k] >= 0 ? Math.round(sizes[k]) : dflt);
const SIZE = {
  update: want('update', 0), your_turn: want('your_turn', 0), move_accepted: want('move_accepted', 0),
};
const TURNS = Math.max(1, want('turns', 71));
const PAD = 'x'.repeat(1 << 20);

/* `head` (an object's text without its closing brace) padded with a "pad"
 * member to `size` bytes when it is shorter (ASCII only: length = bytes). */
function padded(head, size) {
  const plain = head + '}';
  const extra = size - plain.length - 9; /* ,"pad":"" */
  return extra > 0 ? `${head},"pad":"${PAD.slice(0, extra)}"}` : plain;
}

/* what tessera's your_turn offers a Carcassonne bot, in miniature */
const LEGAL = '[{"x":0,"y":1,"rot":0,"meeples":["N"]},{"x":1,"y":0,"rot":2,"meeples":[]}]';

const matches = new Map();
let nextMatch = 1, moves = 0;
const overhead = [];

function stats() {
  const s = overhead.slice().sort((a, b) => a - b);
  const q = (p) => (s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))] : 0);
  return {
    moves,
    overhead: { count: s.length, p50_us: q(0.5), p99_us: q(0.99), max_us: s.length ? s[s.length - 1] : 0 },
    timeout_late: { count: 0, p50_us: 0, p99_us: 0, max_us: 0 },
    rss_peak_kb: Math.round(process.resourceUsage().maxRSS),
  };
}

function yourTurn(m) {
  const seat = m.turn % 2;
  const ws = m.seats[seat];
  if (!ws) return;
  ws.send(padded(`{"type":"your_turn","match":"${m.id}","seat":${seat},"turn":${m.turn + 1},` +
    `"deadline":${Date.now() + 10000},"legal":${LEGAL}`, SIZE.your_turn));
}

function onMove(ws, msg, rx) {
  const m = matches.get(msg.match);
  if (!m || m.over) return ws.send('{"type":"error","code":"match_over","message":"no such live match"}');
  const seat = m.turn % 2;
  if (m.seats[seat] !== ws || msg.turn !== m.turn + 1)
    return ws.send('{"type":"error","code":"not_your_turn","message":"not your turn"}');
  if (msg.move === null || typeof msg.move !== 'object')
    return ws.send('{"type":"error","code":"bad_move","message":"a move is an object"}');
  m.turn++;
  moves++;
  if (SIZE.move_accepted > 0)
    ws.send(padded(`{"type":"move_accepted","match":"${m.id}","turn":${m.turn}`, SIZE.move_accepted));
  const upd = padded(`{"type":"update","match":"${m.id}","turn":${m.turn},"record":` +
    `${JSON.stringify(msg.move)},"by":"player","next":{"seat":${m.turn % 2}}`, SIZE.update);
  for (const s of m.seats) s.send(upd);
  if (m.turn >= TURNS) {
    m.over = true;
    const over = '{"type":"game_over","match":"' + m.id + '","scores":[0,0],"ranking":[0,1],' +
      '"result":{"reason":"normal","winners":[0,1],"ranking":[0,1],"scores":[0,0]}}';
    for (const s of m.seats) s.send(over);
    matches.delete(m.id);
    return;
  }
  yourTurn(m);
  overhead.push(Number((process.hrtime.bigint() - rx) / 1000n));
}

function onMessage(ws, data) {
  const rx = process.hrtime.bigint();
  let msg;
  try {
    msg = JSON.parse(data.toString());
  } catch (e) {
    return ws.send('{"type":"error","code":"bad_json","message":"not JSON"}');
  }
  const id = msg.id !== undefined ? `,"id":${JSON.stringify(msg.id)}` : '';
  switch (msg.type) {
    case 'hello':
      return ws.send(`{"type":"welcome","protocol":1,"server":"bench/relay.js"${id}}`);
    case 'create_match': {
      const mid = `r${nextMatch++}`;
      matches.set(mid, { id: mid, seats: [null, null], joined: 0, turn: 0, over: false });
      return ws.send(`{"type":"match_created"${id},"match":"${mid}",` +
        `"seats":[{"seat":0,"token":"${mid}-0"},{"seat":1,"token":"${mid}-1"}]}`);
    }
    case 'join': {
      const m = matches.get(msg.match);
      if (!m || (msg.seat !== 0 && msg.seat !== 1) || msg.token !== `${m.id}-${msg.seat}` || m.seats[msg.seat])
        return ws.send(`{"type":"error","code":"bad_join","message":"cannot join"${id}}`);
      m.seats[msg.seat] = ws;
      ws.send(`{"type":"joined","match":"${m.id}","seat":${msg.seat}${id}}`);
      if (++m.joined === 2) yourTurn(m);
      return;
    }
    case 'move':
      return onMove(ws, msg, rx);
    case 'server_stats':
      return ws.send(JSON.stringify(Object.assign({ type: 'server_stats' }, msg.id !== undefined ? { id: msg.id } : {}, stats())));
    default:
      return ws.send(`{"type":"error","code":"unknown_type","message":"the relay does not do that"${id}}`);
  }
}

const wss = new WebSocket.Server({ host: '127.0.0.1', port, perMessageDeflate: false, skipUTF8Validation: true });
wss.on('connection', (ws) => ws.on('message', (data) => onMessage(ws, data)));
wss.on('listening', () => {
  if (portFile) fs.writeFileSync(portFile, `${wss.address().port}\n`);
});
process.on('SIGTERM', () => {
  process.stderr.write(`${JSON.stringify({ level: 'info', event: 'stats', stats: stats() })}\n`);
  process.exit(0);
});
