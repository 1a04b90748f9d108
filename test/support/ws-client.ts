import WebSocket from 'ws';

/** A data message has a `channel` and no `op`; acks and errors carry `op`. */
export type Msg = Record<string, unknown> & { channel?: string; op?: string; type?: string; seq?: number };

/** A `ws` test client that keeps every message it receives and can wait for one. */
export class WsClient {
  readonly messages: Msg[] = [];
  private waiters: (() => void)[] = [];
  closed = false;
  /** The close code the server sent (4401: unauthorized on the private stream). */
  closeCode?: number;

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => {
      this.messages.push(JSON.parse(data.toString()) as Msg);
      for (const w of this.waiters) w();
    });
    socket.on('close', (code) => {
      this.closed = true;
      this.closeCode = code;
      for (const w of this.waiters) w();
    });
  }

  static async connect(port: number, options?: WebSocket.ClientOptions, path = '/ws'): Promise<WsClient> {
    const socket = new WebSocket(`ws://127.0.0.1:${port}${path}`, options);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    return new WsClient(socket);
  }

  send(body: unknown): void {
    this.socket.send(typeof body === 'string' ? body : JSON.stringify(body));
  }

  /** Resolves with the first message (from index `from`) matching, or fails after `ms`. */
  async waitFor(match: (m: Msg) => boolean, ms = 10_000, from = 0): Promise<Msg> {
    const deadline = Date.now() + ms;
    for (;;) {
      const found = this.messages.slice(from).find(match);
      if (found) return found;
      if (Date.now() > deadline)
        throw new Error(
          `no matching message within ${ms} ms; last: ${JSON.stringify(this.messages.slice(-3))}`,
        );
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, 50);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
      this.waiters = [];
    }
  }

  close(): void {
    this.socket.close();
  }
}

type Level = [number, number];

/** A client-side book: a snapshot with the updates applied, as docs/market-data.md#websocket-gateway-ws-role tells a client to. */
export function bookFrom(messages: Msg[], market: string, kind = 'spot') {
  const bids = new Map<number, number>();
  const asks = new Map<number, number>();
  let seq = -1;
  const seqs: number[] = [];
  for (const m of messages) {
    if (m.op || m.channel !== 'orderbook' || m.market !== market || m.kind !== kind) continue;
    if (m.type === 'snapshot') {
      bids.clear();
      asks.clear();
    } else if (m.seq !== seq + 1) {
      throw new Error(`sequence gap: had ${seq}, got ${m.seq}`);
    }
    const apply = (side: Map<number, number>, levels: Level[]) => {
      for (const [p, q] of levels) {
        if (q === 0) side.delete(p);
        else side.set(p, q);
      }
    };
    apply(bids, m.bids as Level[]);
    apply(asks, m.asks as Level[]);
    seq = m.seq as number;
    seqs.push(seq);
  }
  const side = (m: Map<number, number>, dir: number) =>
    [...m.entries()].sort(([a], [b]) => dir * (a - b)).map(([price, quantity]) => ({ price, quantity }));
  return { seq, seqs, bids: side(bids, -1), asks: side(asks, 1) };
}
