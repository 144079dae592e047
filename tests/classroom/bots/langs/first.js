// first.js -- a course test bot in JavaScript (tests/classroom): plays the
// first entry of `legal` of every your_turn (any game).
const readline = require('readline');
const rl = readline.createInterface({ input: process.stdin });
rl.on('line', (line) => {
  const msg = JSON.parse(line);
  if (msg.type === 'your_turn')
    process.stdout.write(JSON.stringify({ type: 'move', move: msg.legal[0] }) + '\n');
});
