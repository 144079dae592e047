/*
 * upload.js — a student's files sent to the server in course_upload chunks
 * (docs/classroom.md, "Uploads"): each file is read a chunk at a time
 * (never encoded whole), its SHA-256 declared at begin and checked by the
 * server at commit; a chunk refused as out of place (bad_chunk) is sent
 * again from where the server says; past the connection's burst, chunks are
 * paced under its message rate (the server drops what exceeds it, without an
 * id), and one without a reply is sent again. Progress is reported in bytes.
 * An upload under way is remembered in local storage (its id, by the file's
 * name, size and SHA-256): after a reload or a dropped connection the same
 * file chosen again is resumed (op resume) from what the server has.
 */

/** SHA-256 of an ArrayBuffer, as hex: the browser's own in a secure context, else ours. */
export async function sha256Hex(buf) {
  if (globalThis.crypto?.subtle) {
    const d = await crypto.subtle.digest('SHA-256', buf);
    return [...new Uint8Array(d)].map((b) => b.toString(16).padStart(2, '0')).join('');
  }
  return sha256Plain(new Uint8Array(buf));
}

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2]);

/** SHA-256 (FIPS 180-4) in plain JavaScript: for pages served over http to another host. */
export function sha256Plain(bytes) {
  const n = bytes.length;
  const padded = new Uint8Array(((n + 9 + 63) >> 6) << 6);
  padded.set(bytes);
  padded[n] = 0x80;
  const dv = new DataView(padded.buffer);
  dv.setUint32(padded.length - 8, Math.floor(n / 0x20000000));
  dv.setUint32(padded.length - 4, (n * 8) >>> 0);
  const H = new Uint32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
  const w = new Uint32Array(64);
  const rotr = (x, r) => (x >>> r) | (x << (32 - r));
  for (let off = 0; off < padded.length; off += 64) {
    for (let i = 0; i < 16; i++) w[i] = dv.getUint32(off + 4 * i);
    for (let i = 16; i < 64; i++) {
      const s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >>> 3);
      const s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) >>> 0;
    }
    let [a, b, c, d, e, f, g, hh] = H;
    for (let i = 0; i < 64; i++) {
      const t1 = (hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i]) >>> 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
      hh = g; g = f; f = e; e = (d + t1) >>> 0; d = c; c = b; b = a; a = (t1 + t2) >>> 0;
    }
    H[0] += a; H[1] += b; H[2] += c; H[3] += d; H[4] += e; H[5] += f; H[6] += g; H[7] += hh;
  }
  return [...H].map((x) => x.toString(16).padStart(8, '0')).join('');
}

function b64(bytes) {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Send one File as a course_upload: begin, chunks, commit. progress(sent)
 * is called after each chunk. Resolves with the upload's id; rejects with
 * an Error whose reply is the server's refusal.
 */
export async function uploadFile(conn, token, file, progress) {
  const buf = await file.arrayBuffer();
  const sha256 = await sha256Hex(buf);
  const fail = (r) => Object.assign(new Error(r.reason ? `${file.name}: ${r.message} (${r.reason})` : `${file.name}: ${r.message}`), {reply: r});
  const key = `tessera.upload.${file.name}.${file.size}.${sha256}`;
  let b = null, off = 0;
  const kept = localStorage.getItem(key);
  if (kept) { /* begun before a reload or a dropped connection: on from what the server has */
    const r = await conn.request({type: 'course_upload', op: 'resume', token, upload: kept}, 60000);
    if (r.type !== 'error' && r.bytes === file.size && r.sha256 === sha256) {
      b = r;
      off = r.received;
      progress?.(off, true);
      if (r.committed) { localStorage.removeItem(key); return r.upload; }
    } else {
      localStorage.removeItem(key); /* gone (idle, submitted): begin again */
    }
  }
  if (!b) {
    b = await conn.request({type: 'course_upload', op: 'begin', token, name: file.name, bytes: file.size, sha256}, 60000);
    if (b.type === 'error') throw fail(b);
    try { localStorage.setItem(key, b.upload); } catch { /* no storage: no resume */ }
  }
  const bytes = new Uint8Array(buf);
  /* the server drops messages past its rate (a bucket of `burst`, refilled at
   * messages_per_second) without an id: past the burst, chunks are paced to 80% of the rate */
  const lim = conn.welcome?.limits || {};
  const gap = 1000 / (0.8 * (lim.messages_per_second || 50));
  const free = Math.max(0, (lim.burst || 100) - 20);
  let tries = 0, n = 0, last = 0;
  while (off < bytes.length) {
    if (++n > free) { const wait = last + gap - performance.now(); if (wait > 0) await sleep(wait); }
    last = performance.now();
    let r;
    try {
      r = await conn.request({type: 'course_upload', op: 'chunk', upload: b.upload, offset: off,
        data: b64(bytes.subarray(off, off + b.chunk_bytes))}, 10000);
    } catch (e) {
      /* no reply: dropped (rate) or lost; send it again — if it had arrived, the server says
       * bad_chunk with where it is */
      if (++tries > 20 || !conn.ready) throw e;
      continue;
    }
    if (r.type === 'error') {
      if (++tries > 20) throw fail(r);
      if (r.reason === 'bad_chunk' && typeof r.expected === 'number') off = r.expected;
      else throw fail(r);
      continue;
    }
    tries = 0;
    off = r.received;
    progress?.(off);
  }
  const c = await conn.request({type: 'course_upload', op: 'commit', upload: b.upload}, 60000);
  localStorage.removeItem(key);
  if (c.type === 'error') throw fail(c);
  return b.upload;
}
