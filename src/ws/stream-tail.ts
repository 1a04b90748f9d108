import type { Logger } from '../config/logger';
import { blockingRead } from '../redis/blocking-read';
import type { RedisClient } from '../redis/connection';

export type EntryHandler = (key: string, id: string, fields: string[]) => void;

/**
 * Follows a changing set of streams with plain XREAD BLOCK (every gateway sees every entry, unlike
 * a consumer group), each from its own last id, and hands entries on in stream order. All keys of
 * one tail must share a cluster slot.
 */
export class StreamTail {
  private readonly last = new Map<string, string>();
  private running = false;
  private loop?: Promise<void>;

  constructor(
    private readonly conn: RedisClient,
    private readonly onEntry: EntryHandler,
    private readonly log: Logger,
    private readonly blockMs = 1000,
  ) {}

  /** Follows `key` from after `fromId` (kept if the key is followed already). */
  follow(key: string, fromId: string): void {
    if (!this.last.has(key)) this.last.set(key, fromId);
  }

  start(): void {
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.conn.disconnect();
    await this.loop;
  }

  private async run(): Promise<void> {
    while (this.running) {
      try {
        await this.readOnce();
      } catch (err) {
        if (!this.running) break;
        this.log.error({ err }, 'stream tail: read failed, retrying');
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  }

  private async readOnce(): Promise<void> {
    if (this.last.size === 0) {
      await new Promise((r) => setTimeout(r, this.blockMs));
      return;
    }
    const keys = [...this.last.keys()];
    const ids = keys.map((k) => this.last.get(k)!);
    const res = (await blockingRead(
      this.conn,
      () => this.conn.xread('COUNT', 1000, 'BLOCK', this.blockMs, 'STREAMS', ...keys, ...ids),
      this.blockMs + 5000,
    )) as [string, [string, string[]][]][] | null;
    if (!res || !this.running) return;
    for (const [key, entries] of res) {
      for (const [id, fields] of entries) {
        this.last.set(key, id);
        this.onEntry(key, id, fields);
      }
    }
  }
}
