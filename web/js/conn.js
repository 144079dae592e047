// One WebSocket to the server, speaking docs/protocol.md. It says hello, keeps
// itself alive, and when it drops it reconnects with a growing delay; each time
// it is ready again (welcome received) it fires 'ready', so views re-subscribe
// (spectate again, or resume a seat) and resynchronise from the full state.

export class Connection extends EventTarget {
  constructor(url, client = 'tessera-web/1') {
    super();
    this.url = url;
    this.client = client;
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
    ws.onopen = () => {
      ws.send(JSON.stringify({type: 'hello', protocol: 1, client: this.client}));
    };
    ws.onmessage = (ev) => {
      let m;
      try { m = JSON.parse(ev.data); } catch { return; }
      this.lastHeard = performance.now();
      if (m.type === 'welcome') {
        this.ready = true;
        this.welcome = m;
        this.attempt = 0;
        this.lastError = '';
        const again = this.everReady;
        this.everReady = true;
        this.startKeepalive();
        this.emit('status');
        this.emit('ready', {reconnected: again});
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
      if (!this.closedByUs) this.scheduleRetry();
    };
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
