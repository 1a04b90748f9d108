import type { Logger } from '../../platform/config/logger';
import { blockingRead } from '../../platform/redis/blocking-read';
import type { RedisClient } from '../../platform/redis/connection';
import { ReadLoop } from '../../platform/redis/read-loop';

/** A handler that returns a promise holds the next read until it settles (a new market joins it). */
export type EntryHandler = (key: string, id: string, fields: string[]) => void | Promise<void>;

/**
 * Follows a changing set of streams with plain XREAD BLOCK (every gateway sees every entry, unlike
 * a consumer group), each from its own last id, and hands entries on in stream order. All keys of
 * one tail must share a cluster slot.
 */
export class StreamTail {
  private readonly last = new Map<string, string>();
  private readonly loop: ReadLoop;

  constructor(
    private readonly conn: RedisClient,
    private readonly onEntry: EntryHandler,
    log: Logger,
    private readonly blockMs = 1000,
  ) {
    this.loop = new ReadLoop(conn, log, 'stream tail', 200);
  }

  /** Follows `key` from after `fromId` (kept if the key is followed already). */
  follow(key: string, fromId: string): void {
    if (!this.last.has(key)) this.last.set(key, fromId);
  }

  start(): void {
    this.loop.start(() => this.readOnce());
  }

  stop(): Promise<void> {
    return this.loop.stop();
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
    if (!res || !this.loop.active) return;
    for (const [key, entries] of res) {
      for (const [id, fields] of entries) {
        this.last.set(key, id);
        const handled = this.onEntry(key, id, fields);
        if (handled) await handled;
      }
    }
  }
}
