// One websocket to the market-data gateway (docs/market-data.md#websocket-gateway-ws-role): keeps the set of subscriptions, sends them
// again after every reconnect, and reconnects with backoff when the connection drops.

const key = (s) => `${s.channel}/${s.kind}/${s.market}/${s.period ?? ''}`;

export class MarketSocket {
  /**
   * @param {string} url ws://host:port/ws
   * @param {{ onMessage(msg: object): void, onState(state: string, detail?: string): void, onReconnect(): void }} handlers
   */
  constructor(url, handlers) {
    this.url = url;
    this.handlers = handlers;
    this.subs = new Map();
    this.ws = null;
    this.failures = 0;
    this.reconnects = 0;
  }

  connect() {
    this.handlers.onState(this.reconnects ? 'reconnecting' : 'connecting');
    const ws = new WebSocket(this.url);
    this.ws = ws;
    ws.onopen = () => {
      this.failures = 0;
      this.handlers.onState('live');
      if (this.reconnects > 0) this.handlers.onReconnect();
      for (const s of this.subs.values()) this.send({ op: 'subscribe', ...s });
    };
    ws.onmessage = (ev) => {
      let msg;
      try {
        msg = JSON.parse(ev.data);
      } catch {
        return;
      }
      if (msg.op === 'error') this.handlers.onState('live', `server: ${msg.message}`);
      else if (!msg.op) this.handlers.onMessage(msg);
    };
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.reconnects++;
      this.failures++;
      const delay = Math.min(10_000, 500 * 2 ** Math.min(this.failures - 1, 5));
      this.handlers.onState('reconnecting', `retry in ${Math.round(delay / 100) / 10} s`);
      setTimeout(() => this.connect(), delay);
    };
  }

  subscribe(sub) {
    this.subs.set(key(sub), sub);
    this.send({ op: 'subscribe', ...sub });
  }

  unsubscribe(sub) {
    if (this.subs.delete(key(sub))) this.send({ op: 'unsubscribe', ...sub });
  }

  /** Subscribing again is how a client asks the gateway for a fresh snapshot after a seq gap. */
  resubscribe(sub) {
    this.send({ op: 'subscribe', ...sub });
  }

  send(msg) {
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(msg));
  }
}
