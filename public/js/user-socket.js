// The private user stream (/ws/user, docs/market-data.md): signs in with a JWT in the first frame,
// subscribes to orders and fills, checks the per-connection seq, and reconnects (a fresh
// snapshot) after a drop or a gap. A 4401 close (token refused or expired) ends it: no retry.

const UNAUTHORIZED = 4401;

export class UserSocket {
  /**
   * @param {string} url ws://host:port/ws/user
   * @param {string} token a JWT, as the REST API takes it
   * @param {{ onMessage(msg: object): void, onState(state: string, detail?: string): void }} handlers
   */
  constructor(url, token, handlers) {
    this.url = url;
    this.token = token;
    this.handlers = handlers;
    this.ws = null;
    this.seq = 0;
    this.failures = 0;
    this.stopped = false;
  }

  connect() {
    this.handlers.onState('connecting');
    const ws = new WebSocket(this.url);
    this.ws = ws;
    this.seq = 0;
    ws.onopen = () => ws.send(JSON.stringify({ op: 'auth', token: this.token }));
    ws.onmessage = (ev) => {
      const msg = JSON.parse(ev.data);
      if (msg.seq !== this.seq + 1) return ws.close(); // a frame went missing: start over from a snapshot
      this.seq = msg.seq;
      if (msg.op === 'auth' && msg.ok) {
        this.failures = 0;
        this.handlers.onState('live', msg.userId);
        for (const channel of ['orders', 'fills']) ws.send(JSON.stringify({ op: 'subscribe', channel }));
      } else if (msg.op === 'error') {
        this.handlers.onState('error', msg.message);
      } else if (!msg.op) {
        this.handlers.onMessage(msg);
      }
    };
    ws.onclose = (ev) => {
      if (this.ws !== ws || this.stopped) return;
      if (ev.code === UNAUTHORIZED) return this.handlers.onState('signed out', ev.reason || 'token refused');
      this.failures++;
      const delay = Math.min(10_000, 500 * 2 ** Math.min(this.failures - 1, 5));
      this.handlers.onState('reconnecting', `retry in ${Math.round(delay / 100) / 10} s`);
      setTimeout(() => this.connect(), delay);
    };
  }

  close() {
    this.stopped = true;
    this.ws?.close();
  }
}
