#!/usr/bin/env node
// links.js SOURCE_DIR — every reference in the repository resolves inside it.
//
// 1. Markdown links: in every .md file (README.md, docs/, bench/, tests/, ...;
//    not node_modules or build folders), each inline link [text](target) and
//    each reference definition [label]: target that is not a URL must name a
//    file or folder that exists, and a #fragment must be an anchor of the
//    target Markdown file: a heading's GitHub slug or an explicit
//    <a id="..."> / <a name="...">. Code spans and fenced code are skipped.
// 2. Citations: no text file cites the design notes outside the repository
//    (DESIGN.md, STYLE.md, ../shared) or a paper by its seed number
//    ("seed 002", "seeds 000/004"); papers are cited by short name from
//    docs/references.md, which must hold the five anchors.
// Prints every problem as FILE:LINE: what, and exits 1 if there is any.
'use strict';
const fs = require('fs');
const path = require('path');

const root = path.resolve(process.argv[2] || path.join(__dirname, '..', '..'));
const SKIP_DIRS = new Set(['.git', 'node_modules']);
const TEXT_EXT = new Set(['.md', '.c', '.h', '.js', '.sh', '.cmake', '.txt', '.html', '.css', '.json']);
const problems = [];
const self = path.resolve(__filename);

function walk(dir, out) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) {
      // build folders: build, build-asan, build-ci, ... (anything with a CMakeCache)
      if (SKIP_DIRS.has(e.name) || e.name.startsWith('build') ||
          fs.existsSync(path.join(dir, e.name, 'CMakeCache.txt')))
        continue;
      walk(path.join(dir, e.name), out);
    } else if (e.isFile() || e.isSymbolicLink()) {
      out.push(path.join(dir, e.name));
    }
  }
  return out;
}

const rel = (f) => path.relative(root, f);

// GitHub's heading anchor: lower case, drop everything but letters, digits,
// spaces, '-' and '_', spaces become '-'; repeats get -1, -2, ...
function slug(text) {
  const plain = text
    .replace(/`([^`]*)`/g, '$1')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .trim()
    .toLowerCase();
  return plain.replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-');
}

const anchorCache = new Map();
function anchors(file) {
  if (anchorCache.has(file)) return anchorCache.get(file);
  const set = new Set();
  const seen = new Map();
  let fence = null;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const f = line.match(/^\s*(```|~~~)/);
    if (f) {
      fence = fence === null ? f[1] : fence === f[1] ? null : fence;
      continue;
    }
    if (fence) continue;
    const h = line.match(/^#{1,6}\s+(.*?)\s*#*\s*$/);
    if (h) {
      let s = slug(h[1]);
      const n = seen.get(s) || 0;
      seen.set(s, n + 1);
      if (n) s = `${s}-${n}`;
      set.add(s);
    }
    for (const m of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) set.add(m[1]);
  }
  anchorCache.set(file, set);
  return set;
}

function checkTarget(file, lineNo, target) {
  target = target.trim().replace(/^<|>$/g, '');
  const sp = target.search(/\s/); // [x](file "title")
  if (sp >= 0) target = target.slice(0, sp);
  if (!target || /^[a-z][a-z0-9+.-]*:/i.test(target)) return; // http:, mailto:, data: ...
  const hash = target.indexOf('#');
  const pathPart = decodeURI(hash >= 0 ? target.slice(0, hash) : target);
  const frag = hash >= 0 ? target.slice(hash + 1) : '';
  const dest = pathPart ? path.resolve(path.dirname(file), pathPart) : file;
  if (!dest.startsWith(root + path.sep) && dest !== root) {
    problems.push(`${rel(file)}:${lineNo}: link '${target}' leaves the repository`);
    return;
  }
  if (!fs.existsSync(dest)) {
    problems.push(`${rel(file)}:${lineNo}: link '${target}': no such file ${rel(dest)}`);
    return;
  }
  if (frag) {
    if (!dest.endsWith('.md'))
      problems.push(`${rel(file)}:${lineNo}: link '${target}': an anchor into a non-Markdown file`);
    else if (!anchors(dest).has(decodeURIComponent(frag)))
      problems.push(`${rel(file)}:${lineNo}: link '${target}': ${rel(dest)} has no anchor '${frag}'`);
  }
}

function checkMarkdown(file) {
  let fence = null;
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  lines.forEach((raw, i) => {
    const f = raw.match(/^\s*(```|~~~)/);
    if (f) {
      fence = fence === null ? f[1] : fence === f[1] ? null : fence;
      return;
    }
    if (fence) return;
    const line = raw.replace(/`[^`]*`/g, '``'); // code spans hold no links
    const def = line.match(/^\s{0,3}\[[^\]]+\]:\s*(\S+)/);
    if (def) checkTarget(file, i + 1, def[1]);
    for (const m of line.matchAll(/\]\(([^)\s]+(?:\s+"[^"]*")?)\)/g)) checkTarget(file, i + 1, m[1]);
  });
}

const CITATIONS = [
  [/\bDESIGN\.md\b/, 'cites DESIGN.md, which is not in the repository (docs/ARCHITECTURE.md, docs/rules.md, ...)'],
  [/\bSTYLE\.md\b/, 'cites STYLE.md, which is not in the repository (docs/style.md)'],
  [/\.\.\/shared\b/, 'cites ../shared, outside the repository'],
  [/\bseeds?\s+0{2}[0-4]\b|\bseeds?\s+\(?0{2}[0-4][/,]/i, 'cites a paper by seed number; use its short name (docs/references.md)'],
];

const files = walk(root, []);
for (const file of files) {
  if (path.resolve(file) === self) continue;
  const ext = path.extname(file);
  if (ext === '.md') checkMarkdown(file);
  if (!TEXT_EXT.has(ext) && path.basename(file) !== 'CMakeLists.txt' && path.basename(file) !== '.clang-format')
    continue;
  if (/\/tests\/(fuzz|protocol)\/.*(corpus|cases)\//.test(file)) continue; // data, not prose
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    continue;
  }
  text.split('\n').forEach((line, i) => {
    for (const [re, what] of CITATIONS)
      if (re.test(line)) problems.push(`${rel(file)}:${i + 1}: ${what}: ${line.trim().slice(0, 100)}`);
  });
}

const refs = path.join(root, 'docs', 'references.md');
if (!fs.existsSync(refs)) problems.push('docs/references.md is missing');
else
  for (const a of ['siea-mcts', 'evomcts', 'muller-thesis', 'comp424-report', 'es-mcts', 'authors-code'])
    if (!anchors(refs).has(a)) problems.push(`docs/references.md: no anchor '${a}'`);

for (const p of problems) console.log(p);
if (problems.length) {
  console.log(`links.js: ${problems.length} problem(s)`);
  process.exit(1);
}
console.log(`links.js: every link and citation resolves (${files.filter((f) => f.endsWith('.md')).length} Markdown files)`);
