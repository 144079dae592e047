'use strict';
/*
 * course_lib.js — helpers of the classroom tests over the protocol: submit
 * files as a student, poll a view until a condition holds, read CSV.
 */
const fs = require('node:fs');
const path = require('node:path');

/* A submission's reply may take the server's python3 check of it, up to
 * CLASS_CHECK_MS (10 s, classroom.h): seconds on a loaded machine. */
const SLOW = process.env.TESSERA_SANITIZED === '1' ? 3 : 1;
const SUBMIT_MS = 20000 * SLOW;

/* Submit files (paths; the first is the one to run) as the student with
 * token tok. Resolves with the reply; rejects on an error reply unless
 * allowError, or when none comes within timeout ms. */
async function submitBot(c, tok, files, allowError = false, kind = 'python', timeout = SUBMIT_MS) {
  const msg = {
    type: 'course_submit', token: tok, kind, main: path.basename(files[0]),
    files: files.map((f) => ({ name: path.basename(f), data: fs.readFileSync(f).toString('base64') })),
  };
  const r = await c.request(msg, undefined, timeout);
  if (!allowError && r.type !== 'course_submitted')
    throw new Error('submit ' + files[0] + ': ' + JSON.stringify(r));
  return r;
}

/* Upload buf (a Buffer) as file `name` in course_upload chunks of at most
 * `chunk` bytes (the server's chunk_bytes by default), commit it, and
 * resolve with its id. */
async function uploadFile(c, tok, name, buf, chunk = 0) {
  const crypto = require('node:crypto');
  const sha256 = crypto.createHash('sha256').update(buf).digest('hex');
  const b = await c.request({ type: 'course_upload', op: 'begin', token: tok, name, bytes: buf.length, sha256 });
  if (b.type !== 'course_upload')
    throw new Error('upload begin ' + name + ': ' + JSON.stringify(b));
  const step = chunk || b.chunk_bytes;
  for (let off = 0; off < buf.length; off += step) {
    const r = await c.request({ type: 'course_upload', op: 'chunk', upload: b.upload, offset: off,
      data: buf.subarray(off, off + step).toString('base64') });
    if (r.type !== 'course_upload' || r.received !== Math.min(buf.length, off + step))
      throw new Error('upload chunk ' + name + ': ' + JSON.stringify(r));
  }
  const m = await c.request({ type: 'course_upload', op: 'commit', upload: b.upload });
  if (m.type !== 'course_upload' || m.sha256 !== sha256)
    throw new Error('upload commit ' + name + ': ' + JSON.stringify(m));
  return b.upload;
}

/* Send msg every half second until ok(reply); the last reply. */
async function waitFor(c, msg, ok, timeoutMs) {
  const end = Date.now() + timeoutMs;
  let last;
  for (;;) {
    last = await c.request({ ...msg, id: undefined });
    if (last.type === 'error')
      throw new Error(JSON.stringify(last));
    if (ok(last))
      return last;
    if (Date.now() > end)
      throw new Error('timed out; last reply: ' + JSON.stringify(last).slice(0, 2000));
    await new Promise((r) => setTimeout(r, 500));
  }
}

/* RFC 4180 rows of a CSV text (quoted fields, "" inside quotes). */
function csvRows(text) {
  const rows = [];
  let row = [], f = '', q = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (q) {
      if (ch === '"' && text[i + 1] === '"') { f += '"'; i++; } else if (ch === '"') q = false;
      else f += ch;
    } else if (ch === '"') q = true;
    else if (ch === ',') { row.push(f); f = ''; } else if (ch === '\n') { row.push(f); rows.push(row); row = []; f = ''; } else if (ch !== '\r') f += ch;
  }
  if (f !== '' || row.length) { row.push(f); rows.push(row); }
  return rows;
}

module.exports = { submitBot, uploadFile, waitFor, csvRows };
