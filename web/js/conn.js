// One WebSocket to the server, speaking docs/protocol.md. It says hello, keeps
// itself alive, and when it drops it reconnects with a growing delay; each time
// it is ready again (welcome received) it fires 'ready', so views re-subscribe
// (spectate again, or resume a seat) and resynchronise from the full state.
//
// On a cluster (docs/scaling.md, "Routing clients to the owner") a reply may
// name the server that plays the match (owner_url): follow(url) opens a socket
// there beside the current one and, once it says welcome, puts it in the
// current one's place ('ready' again, {moved: true}) — the match's moves then
// cross no second server. Only addresses of the page's own origin are followed
// (the proxy's ws://HOST/?server=NAME): the page's Content-Security-Policy lets
// it open WebSockets to its own origin alone, and a server refuses pages of
// other origins. An address of another origin, or one that does not answer,
// is not followed: the page keeps the connection it has, whose server
// forwards. A followed connection that drops is made again at the page's own
// address (its server may be the one that died), not at the followed one.

const FOLLOW_WAIT_MS = 5000;        // a followed address that has not said welcome by then is given up
const FOLLOW_RETRY_MS = 60000;      // ... and not tried again for this long
const FOLLOW_MAX = 4;               // follows a minute at most: two servers that disagree cannot bounce us

export class Connection extends EventTarget {
  constructor(url, client = 'tessera-web/1') {
    super();
    this.url = url;
    this.home = url;             // the page's own address: where a lost connection is made again
    this.client = client;
    this.candidate = null;       // the socket being opened at a followed address
    this.follows = [];           // when each follow began (FOLLOW_MAX a minute)
    this.unreachable = new Map(); // address -> until when it is not tried again
    this.route = null;           // the last follow: {url, result: 'moved'|'other-origin'|'no-answer'|'limit'}
    this.ws = null;
    this.ready = false;
    this.welcome = null;
    this.attempt = 0;
    this.nextId = 1;
    this.pending = new Map();   // id -> {resolve, reject, timer}
    this.everReady = false;
    this.closedByUs = false;
    this.lastError = '';
  }

  get state() { return this.ready ? 'open' : (this.ws ? 'connecting' : 'down'); }

  connect() {
    this.closedByUs = false;
    clearTimeout(this.retryTimer);
    this.dropCandidate();
    let ws;
    try {
      ws = new WebSocket(this.url);
    } catch (e) {
      this.lastError = String(e.message || e);
      this.scheduleRetry();
      return;
    }
    this.ws = ws;
    this.emit('status');
    this.wire(ws);
  }

  /** The handlers of the current socket (connect, or a followed one once it took over). */
  wire(ws) {
    ws.onopen = () => {
      ws.send(JSON.stringify({type: 'hello', protocol: 1, client: this.client}));
    };
    ws.onmessage = (ev) => {
      let m;
      try { m = JSON.parse(ev.data); } catch { return; }
      this.lastHeard = performance.now();
      if (m.type === 'welcome') {
        this.welcomed(m, {reconnected: this.everReady});
        return;
      }
      if (m.id !== undefined && this.pending.has(String(m.id))) {
        const p = this.pending.get(String(m.id));
        this.pending.delete(String(m.id));
        clearTimeout(p.timer);
        p.resolve(m);
      }
      this.emit('message', m);
    };
    ws.onerror = () => { this.lastError = 'connection error'; };
    ws.onclose = (ev) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.ready = false;
      this.stopKeepalive();
      for (const [, p] of this.pending) { clearTimeout(p.timer); p.reject(new Error('connection lost')); }
      this.pending.clear();
      if (!this.lastError) this.lastError = ev.reason || `closed (${ev.code})`;
      this.emit('status');
      this.emit('down');
      this.url = this.home; // a followed server may be the one that went: the page's own address forwards
      if (!this.closedByUs) this.scheduleRetry();
    };
  }

  welcomed(m, detail) {
    this.ready = true;
    this.welcome = m;
    this.attempt = 0;
    this.lastError = '';
    this.everReady = true;
    this.startKeepalive();
    this.emit('status');
    this.emit('ready', detail);
  }

  /**
   * Move to url, where the match shown is played (a reply's owner_url). The
   * current connection stays until the new one is ready, and stays for good if
   * url is of another origin or does not answer. Returns whether it tries.
   */
  follow(url) {
    if (!this.ready || url === this.url || this.candidate) return false;
    const result = (r) => { this.route = {url, result: r}; this.emit('route', this.route); return false; };
    let u;
    try { u = new URL(url, this.home); } catch { return result('other-origin'); }
    const home = new URL(this.home);
    if (u.protocol !== home.protocol || u.host !== home.host) return result('other-origin');
    if ((this.unreachable.get(url) || 0) > Date.now()) return result('no-answer');
    const now = Date.now();
    this.follows = this.follows.filter((t) => now - t < 60000);
    if (this.follows.length >= FOLLOW_MAX) return result('limit');
    this.follows.push(now);
    let ws;
    try { ws = new WebSocket(url); } catch { this.unreachable.set(url, now + FOLLOW_RETRY_MS); return result('no-answer'); }
    this.candidate = ws;
    const fail = () => {
      if (this.candidate !== ws) return;
      this.dropCandidate();
      this.unreachable.set(url, Date.now() + FOLLOW_RETRY_MS);
      result('no-answer');
    };
    this.candidateTimer = setTimeout(fail, FOLLOW_WAIT_MS);
    ws.onopen = () => ws.send(JSON.stringify({type: 'hello', protocol: 1, client: this.client}));
    ws.onclose = fail;
    ws.onmessage = (ev) => {
      let m;
      try { m = JSON.parse(ev.data); } catch { return; }
      if (m.type !== 'welcome' || this.candidate !== ws) return;
      clearTimeout(this.candidateTimer);
      this.candidate = null;
      // the old socket goes quietly: what it still had to say (a seat_taken
      // once the seat is resumed on the new one) is no longer ours
      const old = this.ws;
      if (old) { old.onmessage = old.onclose = old.onerror = null; old.close(1000); }
      for (const [, p] of this.pending) { clearTimeout(p.timer); p.reject(new Error('connection moved')); }
      this.pending.clear();
      this.ws = ws;
      this.url = url;
      this.wire(ws);
      this.lastHeard = performance.now();
      this.route = {url, result: 'moved'};
      this.emit('route', this.route);
      this.welcomed(m, {reconnected: true, moved: true});
    };
    return true;
  }

  dropCandidate() {
    const ws = this.candidate;
    if (!ws) return;
    this.candidate = null;
    clearTimeout(this.candidateTimer);
    ws.onopen = ws.onmessage = ws.onclose = ws.onerror = null;
    try { ws.close(); } catch { /* not open yet */ }
  }

  scheduleRetry() {
    this.attempt++;
    const delay = Math.min(5000, 250 * 2 ** Math.min(this.attempt, 5));
    this.retryAt = Date.now() + delay;
    this.emit('status');
    this.retryTimer = setTimeout(() => this.connect(), delay);
  }

  /** Reconnect now (the "retry" link). */
  retryNow() {
    if (this.ws) return;
    clearTimeout(this.retryTimer);
    this.connect();
  }

  /** Send a message; false when not connected (the caller waits for 'ready'). */
  send(msg) {
    if (!this.ready || !this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(msg));
    return true;
  }

  /** Send with an id and resolve with the direct reply (an error reply resolves too). */
  request(msg, timeoutMs = 15000) {
    return new Promise((resolve, reject) => {
      const id = 'w' + (this.nextId++);
      if (!this.send({...msg, id})) { reject(new Error('not connected')); return; }
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error('no reply'));
      }, timeoutMs);
      this.pending.set(id, {resolve, reject, timer});
    });
  }

  /** request(), for a caller that shows the reply: a reply lost with its
   *  connection (dropped, moved to the match's owner), a socket not connected
   *  or no reply in time resolves as an error reply of its own
   *  ({type: 'error', code: 'no_reply', message}) instead of rejecting — the
   *  page says what happened rather than staying at "sending…". Whether the
   *  server acted on the message is not known then: the caller's view, read
   *  again, tells. */
  ask(msg, timeoutMs) {
    return this.request(msg, timeoutMs).catch((err) => ({type: 'error', code: 'no_reply',
      message: `no answer from the server (${err.message || err}): look again before you repeat it`}));
  }

  /** Wait until connected (resolves at once if it is). */
  whenReady() {
    if (this.ready) return Promise.resolve();
    return new Promise((resolve) => this.addEventListener('ready', () => resolve(), {once: true}));
  }

  startKeepalive() {
    this.stopKeepalive();
    // an application ping every 15 s; no traffic at all for 40 s means the
    // link is dead even if the socket has not noticed: drop it and reconnect
    this.keepalive = setInterval(() => {
      if (!this.ready) return;
      if (performance.now() - (this.lastHeard || 0) > 40000) { this.ws?.close(); return; }
      this.send({type: 'ping'});
    }, 15000);
  }

  stopKeepalive() { clearInterval(this.keepalive); }

  /** Drop the socket as if the network failed (used by tests and the UI's own checks). */
  drop() { this.ws?.close(); }

  emit(type, detail) { this.dispatchEvent(new CustomEvent(type, {detail})); }
}
