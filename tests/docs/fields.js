#!/usr/bin/env node
// fields.js SOURCE_DIR TESSERA — every field a program can be sent is
// described where its author reads (issue 30, items 11-13: the Carcassonne
// state was only in protocol.md, the tiles' port maps were nowhere
// machine-readable, and nothing checked either):
// 1. every property named in a WebSocket message schema (docs/schema/*.json)
//    is named in docs/protocol.md (a game record's own fields, under
//    `record`, in docs/records.md; the course_* messages', which
//    protocol.md leaves to docs/classroom.md, there);
// 2. every property of a stdio message schema (docs/schema/stdio/) is named
//    in docs/stdio.md;
// 3. every field of `tessera games --json` (the game entries, the rule
//    options, Carcassonne's tile model) is named in docs/protocol.md and is
//    allowed by docs/schema/games.json's properties;
// 4. every field of the Carcassonne state in protocol.md's example is
//    named in docs/stdio.md too (a stdio bot author reads that page only).
// "Named" is `name` in a code span or "name" in a JSON example. Prints each
// gap as DOC: what is missing, and exits 1 if there is any.
'use strict';
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');

const root = path.resolve(process.argv[2] || path.join(__dirname, '..', '..'));
const tessera = process.argv[3];
const problems = [];
const read = (p) => fs.readFileSync(path.join(root, p), 'utf8');
const named = (text, k) => text.includes('`' + k + '`') || text.includes('"' + k + '"');

// the property names of a schema, each with the path where it sits
function props(node, at, out) {
  if (!node || typeof node !== 'object') return out;
  if (Array.isArray(node)) { node.forEach((n) => props(n, at, out)); return out; }
  if (node.properties && typeof node.properties === 'object')
    for (const [k, v] of Object.entries(node.properties)) {
      out.push([k, at]);
      props(v, at.concat(k), out);
    }
  for (const [k, v] of Object.entries(node))
    if (k !== 'properties') props(v, at, out);
  return out;
}

const protocol = read('docs/protocol.md'), records = read('docs/records.md'), stdio = read('docs/stdio.md');
const classroom = read('docs/classroom.md');
for (const [dir, doc, text] of [['docs/schema', 'docs/protocol.md', protocol], ['docs/schema/stdio', 'docs/stdio.md', stdio]]) {
  for (const f of fs.readdirSync(path.join(root, dir)).filter((f) => f.endsWith('.json')).sort()) {
    for (const [k, at] of props(JSON.parse(read(path.join(dir, f))), [], [])) {
      const inRecord = at.includes('record');
      const course = dir === 'docs/schema' && f.startsWith('course_');
      if (!named(text, k) && !(inRecord && named(records, k)) && !(course && named(classroom, k)))
        problems.push(`${doc}: field \`${k}\` of ${dir}/${f} (${at.concat(k).join('.')}) is not named`);
    }
  }
}

// 3. the games' static data, as the CLI and the server publish it
if (tessera) {
  let games = { games: [] };
  try {
    games = JSON.parse(execFileSync(tessera, ['games', '--json'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }));
  } catch (e) {
    problems.push(`tessera games --json failed: ${String(e.stderr || e.message).trim()}`);
  }
  const schema = JSON.parse(read('docs/schema/games.json'));
  const entryProps = Object.keys(schema.properties.games.items.properties);
  const tileProps = Object.keys(schema.$defs.tile.properties);
  const ruleProps = Object.keys(schema.$defs.rule.properties);
  const check = (k, where, allowed) => {
    if (!named(protocol, k))
      problems.push(`docs/protocol.md: field \`${k}\` of ${where} (tessera games --json) is not named`);
    if (allowed && !allowed.includes(k))
      problems.push(`docs/schema/games.json: field \`${k}\` of ${where} is not in the schema`);
  };
  for (const g of games.games) {
    for (const k of Object.keys(g)) check(k, `the ${g.name} entry`, entryProps);
    for (const r of g.rules) for (const k of Object.keys(r)) check(k, `${g.name}'s rule ${r.name}`, ruleProps);
    for (const [letter, t] of Object.entries(g.tiles || {}))
      for (const k of Object.keys(t)) check(k, `${g.name}'s tile ${letter}`, tileProps);
  }
} else {
  problems.push('fields.js: the tessera binary was not given (argument 2): the games data is unchecked');
}

// 4. the Carcassonne state: protocol.md's example, field by field, in stdio.md
const carc = protocol.slice(protocol.indexOf('\n## Carcassonne'));
const block = /- \*\*state\*\*:\s*```json\n([\s\S]*?)```/.exec(carc);
if (!block) {
  problems.push('docs/protocol.md: no Carcassonne state example under ## Carcassonne');
} else {
  const keys = new Set([...block[1].matchAll(/"([a-z_]+)":/g)].map((m) => m[1]));
  for (const k of keys)
    if (!named(stdio, k))
      problems.push(`docs/stdio.md: the Carcassonne state's field \`${k}\` (protocol.md) is not named`);
}

for (const p of problems) console.log(p);
if (problems.length) {
  console.log(`${problems.length} problem(s)`);
  process.exit(1);
}
console.log('fields.js: every field is named where its reader looks');
