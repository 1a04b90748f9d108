import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';

/** Wall-clock ms with sub-ms precision, comparable to a server's Date.now(). */
export const wallClock = () => performance.timeOrigin + performance.now();

/**
 * A minimal websocket client on a raw socket: the handshake, the opening frames given, then it
 * hands each text frame's payload (with the time it arrived) to `onText` and answers pings. Cheap
 * enough that thousands in one process measure the server rather than the client.
 */
export class RawWsClient {
  frames = 0;
  closed = false;
  private buf = Buffer.alloc(0);
  private upgraded = false;
  private readonly socket: Socket;

  constructor(
    port: number,
    path: string,
    opening: string[],
    private readonly onText: ((payload: Buffer, now: number) => void) | null,
    onOpen: () => void,
  ) {
    this.socket = connect(port, '127.0.0.1');
    this.socket.setNoDelay(true);
    this.socket.on('connect', () => {
      const key = randomBytes(16).toString('base64');
      this.socket.write(
        `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
      );
    });
    this.socket.on('data', (chunk) => {
      this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
      if (!this.upgraded) {
        const end = this.buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        this.upgraded = true;
        this.buf = this.buf.subarray(end + 4);
        for (const text of opening) this.send(text);
        onOpen();
      }
      this.parse();
    });
    this.socket.on('close', () => (this.closed = true));
    this.socket.on('error', () => (this.closed = true));
  }

  send(text: string): void {
    this.socket.write(maskedFrame(0x1, Buffer.from(text)));
  }

  private parse(): void {
    const now = wallClock();
    let b = this.buf;
    for (;;) {
      if (b.length < 2) break;
      const op = b[0] & 0x0f;
      let len = b[1] & 0x7f;
      let off = 2;
      if (len === 126) {
        if (b.length < 4) break;
        len = b.readUInt16BE(2);
        off = 4;
      } else if (len === 127) {
        if (b.length < 10) break;
        len = Number(b.readBigUInt64BE(2));
        off = 10;
      }
      if (b.length < off + len) break;
      const payload = b.subarray(off, off + len);
      if (op === 0x9) this.socket.write(maskedFrame(0xa, Buffer.from(payload)));
      else if (op === 0x8) this.closed = true;
      else if (op === 0x1) {
        this.frames++;
        this.onText?.(payload, now);
      }
      b = b.subarray(off + len);
    }
    this.buf = b.length ? Buffer.from(b) : Buffer.alloc(0);
  }

  close(): void {
    this.socket.destroy();
  }
}

/** A masked client frame (RFC 6455 requires masking from client to server). */
function maskedFrame(opcode: number, payload: Buffer): Buffer {
  const mask = randomBytes(4);
  const head =
    payload.length < 126
      ? Buffer.from([0x80 | opcode, 0x80 | payload.length])
      : Buffer.from([0x80 | opcode, 0x80 | 126, payload.length >> 8, payload.length & 0xff]);
  const body = Buffer.alloc(payload.length);
  for (let i = 0; i < payload.length; i++) body[i] = payload[i] ^ mask[i % 4];
  return Buffer.concat([head, mask, body]);
}
