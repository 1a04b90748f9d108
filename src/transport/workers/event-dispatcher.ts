import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Queue } from 'bullmq';
import type { AppContext } from '../context';
import { createRedis } from '../../platform/redis/connection';
import type { MarketKind } from '../../platform/redis/keys';
import { shardOfPair } from '../../domain/market';
import { PairAnnouncements, type PairAnnouncement } from '../../markets';
import type { StreamJob } from '../../platform/queues';
import type { StreamRoute } from './stream-routes';
import { DISPATCH_GROUP, ShardDispatchReader, type DispatchReaderOptions } from './shard-dispatch-reader';

export { DISPATCH_GROUP };

export interface DispatcherOptions extends DispatchReaderOptions {
  /** How often the market list is read again: a fallback, new markets are announced and picked up at once. */
  refreshPairsMs: number;
}

export const DISPATCHER_DEFAULTS: DispatcherOptions = {
  claimIdleMs: 30_000,
  claimEveryMs: 5_000,
  blockMs: 500,
  batch: 200,
  refreshPairsMs: 10_000,
};

/**
 * Moves market stream entries into BullMQ, one reader per engine shard (shard-dispatch-reader.ts):
 * a shard's streams share its slot, so each reader's XREADGROUP names keys of one slot, and a busy
 * shard never delays another's. This class finds the markets (the store, then announcements) and
 * gives each to the reader of its shard. `queues` holds every route's queue of every shard
 * (queueName(route, shard)).
 */
export class EventDispatcher {
  readonly consumer = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  private readonly readers: ShardDispatchReader[];
  private readonly announcements: PairAnnouncements;
  private lastRefresh = 0;

  constructor(
    private readonly ctx: AppContext,
    routes: StreamRoute[],
    queues: Queue<StreamJob>[],
    private readonly opts: DispatcherOptions = DISPATCHER_DEFAULTS,
  ) {
    this.readers = ctx.shards
      .all()
      .map((k) => new ShardDispatchReader(ctx, k.shard, this.consumer, routes, queues, opts, () => this.refreshDue()));
    const announcementsConn = createRedis({
      url: ctx.config.redisUrl,
      cluster: ctx.config.redisCluster,
      natMap: ctx.config.redisClusterNatMap,
      blocking: true,
      name: 'dispatcher-markets',
      log: ctx.log,
    });
    this.announcements = new PairAnnouncements(announcementsConn, ctx.keys.marketsStream(), (a) => this.onAnnounced(a), ctx.log);
  }

  async start(): Promise<void> {
    const announced = await PairAnnouncements.position(this.ctx.redis, this.ctx.keys.marketsStream());
    await this.refresh();
    this.announcements.start(announced);
    for (const r of this.readers) r.start();
  }

  async stop(): Promise<void> {
    await Promise.all([this.announcements.stop(), ...this.readers.map((r) => r.stop())]);
  }

  private async refreshDue(): Promise<void> {
    if (Date.now() - this.lastRefresh >= this.opts.refreshPairsMs) await this.refresh();
  }

  /** Learns the markets from the store (the fallback for a missed announcement). */
  private async refresh(): Promise<void> {
    this.lastRefresh = Date.now();
    for (const kind of ['spot', 'futures'] as const) {
      for (const p of await this.ctx.markets.store.listPairs(kind)) await this.follow(kind, p.code);
    }
  }

  /** A market created at run time: its stream joins its shard reader's next read. */
  private async onAnnounced(a: PairAnnouncement): Promise<void> {
    await this.follow(a.kind, a.code);
  }

  private async follow(kind: MarketKind, code: string): Promise<void> {
    const pair = await this.ctx.markets.store.getPair(kind, code);
    if (!pair) return;
    const reader = this.readers[shardOfPair(pair)];
    if (reader) await reader.follow(kind, code);
    else this.ctx.log.warn({ kind, pair: code, shard: shardOfPair(pair) }, 'dispatcher: market on an engine shard beyond ENGINE_SHARDS');
  }
}
