import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';

/** What the proxy does to the next command that carries a marker, once. */
export type Fault =
  /** Redis runs the command; its reply is swallowed and the connection cut (a lost reply). */
  | 'drop-reply'
  /** Half the command's bytes reach Redis, then the connection is cut (Redis runs nothing). */
  | 'cut-mid-command'
  /** The reply is held back this long before it is passed on (past the command timeout). */
  | { delayReplyMs: number }
  /**
   * The command, and everything after it on its connection, is held this long before it reaches
   * Redis: a server (or network) that stalls with the command in its buffer, then wakes.
   */
  | { holdCommandMs: number };

/**
 * A TCP proxy between the service and Redis that injects one fault into the connection carrying
 * the next command whose bytes contain `marker` (e.g. a script name): the fault-injection tests'
 * stand-in for a network that loses replies, resets connections or stalls.
 */
export class FaultProxy {
  private server?: Server;
  private armed?: { marker: Buffer; fault: Fault; hit: () => void };
  /** Until when (performance.now()) new connections are refused: Redis unreachable. */
  private downUntil = 0;
  readonly sockets = new Set<Socket>();
  /** Links to Redis holding a stalled command: no outage cuts them, the command reaches Redis when the stall ends. */
  private readonly stalled = new Set<Socket>();
  /** What Redis answered on links whose client had gone (a stalled command's late reply): the tests read it. */
  readonly orphanReplies: Buffer[] = [];
  url = '';

  constructor(private readonly target: URL) {}

  async start(): Promise<this> {
    this.server = createServer((client) => this.pipe(client));
    await new Promise<void>((r) => this.server?.listen(0, '127.0.0.1', r));
    this.url = `redis://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /**
   * Arms one fault; resolves when it has been applied. `thenDownMs`: right as it is applied, Redis
   * becomes unreachable for that long (every connection cut, new ones refused), so the service
   * cannot ask what happened either.
   */
  arm(marker: string, fault: Fault, thenDownMs = 0): Promise<void> {
    return new Promise((resolve) => {
      const hit = () => {
        if (thenDownMs > 0) this.outage(thenDownMs);
        resolve();
      };
      this.armed = { marker: Buffer.from(marker), fault, hit };
    });
  }

  /** Drops an armed fault that has not struck (its promise never resolves). */
  disarm(): void {
    this.armed = undefined;
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise((r) => this.server?.close(r));
  }

  /** Cuts every connection and refuses new ones for `ms`: Redis unreachable. */
  outage(ms: number): void {
    this.downUntil = performance.now() + ms;
    for (const s of this.sockets) if (!this.stalled.has(s)) s.destroy();
  }

  private pipe(client: Socket): void {
    if (performance.now() < this.downUntil) {
      client.destroy();
      return;
    }
    const upstream = connect(Number(this.target.port), this.target.hostname);
    this.sockets.add(client).add(upstream);
    let onReply: ((chunk: Buffer) => boolean) | undefined;
    let held: Buffer[] | undefined;
    const cut = () => {
      client.destroy();
      // a stalled command is in the server's buffer already: it still arrives when the stall ends
      if (!held) upstream.destroy();
    };
    client.on('close', cut).on('error', cut);
    upstream.on('close', cut).on('error', cut);
    client.on('data', (chunk: Buffer) => {
      if (held) {
        held.push(chunk);
        return;
      }
      const a = this.armed;
      if (a && chunk.includes(a.marker)) {
        this.armed = undefined;
        if (a.fault === 'cut-mid-command') {
          upstream.write(chunk.subarray(0, Math.floor(chunk.length / 2)), () => {
            setTimeout(cut, 20);
            a.hit();
          });
          return;
        }
        const fault = a.fault;
        if (typeof fault === 'object' && 'holdCommandMs' in fault) {
          const stalled = (held = [chunk]);
          this.stalled.add(upstream);
          a.hit();
          setTimeout(() => {
            held = undefined;
            this.stalled.delete(upstream);
            for (const c of stalled) if (upstream.writable) upstream.write(c);
            if (client.destroyed) upstream.end();
          }, fault.holdCommandMs);
          return;
        }
        onReply = (reply) => {
          a.hit();
          if (fault === 'drop-reply') {
            onReply = undefined;
            cut();
            return true;
          }
          // replies after it wait behind it, in order, as on a connection that stalls
          const late = [reply];
          onReply = (next) => late.push(next) > 0;
          setTimeout(() => {
            onReply = undefined;
            for (const r of late) if (client.writable) client.write(r);
          }, fault.delayReplyMs);
          return true;
        };
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (onReply?.(chunk)) return;
      if (client.writable) client.write(chunk);
      else this.orphanReplies.push(chunk);
    });
  }
}
