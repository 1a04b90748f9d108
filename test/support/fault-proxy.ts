import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';

/** What the proxy does to the next command that carries a marker, once. */
export type Fault =
  /** Redis runs the command; its reply is swallowed and the connection cut (a lost reply). */
  | 'drop-reply'
  /** Half the command's bytes reach Redis, then the connection is cut (Redis runs nothing). */
  | 'cut-mid-command'
  /** The reply is held back this long before it is passed on (past the command timeout). */
  | { delayReplyMs: number };

/**
 * A TCP proxy between the service and Redis that injects one fault into the connection carrying
 * the next command whose bytes contain `marker` (e.g. a script name): the fault-injection tests'
 * stand-in for a network that loses replies, resets connections or stalls.
 */
export class FaultProxy {
  private server?: Server;
  private armed?: { marker: Buffer; fault: Fault; hit: () => void };
  readonly sockets = new Set<Socket>();
  url = '';

  constructor(private readonly target: URL) {}

  async start(): Promise<this> {
    this.server = createServer((client) => this.pipe(client));
    await new Promise<void>((r) => this.server?.listen(0, '127.0.0.1', r));
    this.url = `redis://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** Arms one fault; resolves when it has been applied. */
  arm(marker: string, fault: Fault): Promise<void> {
    return new Promise((hit) => {
      this.armed = { marker: Buffer.from(marker), fault, hit };
    });
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise((r) => this.server?.close(r));
  }

  private pipe(client: Socket): void {
    const upstream = connect(Number(this.target.port), this.target.hostname);
    this.sockets.add(client).add(upstream);
    const cut = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', cut).on('error', cut);
    upstream.on('close', cut).on('error', cut);
    let onReply: ((chunk: Buffer) => boolean) | undefined;
    client.on('data', (chunk: Buffer) => {
      const a = this.armed;
      if (a && chunk.includes(a.marker)) {
        this.armed = undefined;
        if (a.fault === 'cut-mid-command') {
          upstream.write(chunk.subarray(0, Math.floor(chunk.length / 2)), () => setTimeout(cut, 20));
          a.hit();
          return;
        }
        const fault = a.fault;
        onReply = (reply) => {
          onReply = undefined;
          a.hit();
          if (fault === 'drop-reply') {
            cut();
          } else {
            setTimeout(() => client.writable && client.write(reply), fault.delayReplyMs);
          }
          return true;
        };
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (onReply?.(chunk)) return;
      client.write(chunk);
    });
  }
}
