import type { MarketKind } from '../domain/market';
import type { Logger } from '../platform/config/logger';
import { blockingRead } from '../platform/redis/blocking-read';
import type { RedisClient } from '../platform/redis/connection';
import { ReadLoop } from '../platform/redis/read-loop';

/** One pair creation, as createPair appends it to the markets stream. */
export interface PairAnnouncement {
  kind: MarketKind;
  code: string;
  id: number;
}

export type AnnouncementHandler = (a: PairAnnouncement) => Promise<void>;

/**
 * Follows the markets stream (XREAD BLOCK on a connection of its own) and hands each new pair to
 * the reader the moment it is created, so nobody waits for a periodic refresh. A handler that
 * fails is retried with the same announcement: the position only moves past what was handled.
 */
export class PairAnnouncements {
  private readonly loop: ReadLoop;
  private last = '$';

  constructor(
    private readonly conn: RedisClient,
    private readonly key: string,
    private readonly onPair: AnnouncementHandler,
    log: Logger,
    private readonly blockMs = 5000,
  ) {
    this.loop = new ReadLoop(conn, log, 'pair announcements', 500);
  }

  /**
   * Where the stream stands now. Take it before listing the pairs and start from it: a pair
   * created in between is then both listed and announced, never neither.
   */
  static async position(redis: RedisClient, key: string): Promise<string> {
    const [newest] = await redis.xrevrange(key, '+', '-', 'COUNT', 1);
    return newest ? newest[0] : '0-0';
  }

  /** Hands on every announcement after `fromId`. */
  start(fromId: string): void {
    this.last = fromId;
    this.loop.start(() => this.readOnce());
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  private async readOnce(): Promise<void> {
    const res = (await blockingRead(
      this.conn,
      () => this.conn.xread('COUNT', 100, 'BLOCK', this.blockMs, 'STREAMS', this.key, this.last),
      this.blockMs + 5000,
    )) as [string, [string, string[]][]][] | null;
    if (!res || !this.loop.active) return;
    for (const [, entries] of res) {
      for (const [id, fields] of entries) {
        const a = parseAnnouncement(fields);
        if (a) await this.onPair(a);
        this.last = id;
      }
    }
  }
}

/** An entry of the markets stream, or null for one this version does not understand. */
export function parseAnnouncement(fields: string[]): PairAnnouncement | null {
  const f: Record<string, string> = {};
  for (let i = 0; i + 1 < fields.length; i += 2) f[fields[i]] = fields[i + 1];
  if ((f.kind !== 'spot' && f.kind !== 'futures') || !f.code) return null;
  return { kind: f.kind, code: f.code, id: Number(f.id) };
}
