import type { Queue } from 'bullmq';
import type { AppContext } from '../context';
import { blockingRead } from '../../platform/redis/blocking-read';
import { createRedis, type RedisClient } from '../../platform/redis/connection';
import { ReadLoop } from '../../platform/redis/read-loop';
import type { MarketKind } from '../../platform/redis/keys';
import { parseEntry, withoutOrderStates } from '../../platform/market-event';
import { queueName, streamJobId, type StreamJob } from '../../platform/queues';
import type { StreamRoute } from './stream-routes';

export interface DispatchReaderOptions {
  /** Pending entries idle this long belong to a dispatcher presumed dead and are claimed. */
  claimIdleMs: number;
  /** How often pending entries are looked for. */
  claimEveryMs: number;
  /** Longest wait of one read; a market announced meanwhile joins the read after it. */
  blockMs: number;
  batch: number;
}

/** Consumer group every dispatcher joins; each entry goes to one member of the group. */
export const DISPATCH_GROUP = 'dispatch';

interface MarketStream {
  kind: MarketKind;
  pair: string;
  key: string;
}

type RawEntry = [string, string[] | null];

/**
 * The dispatcher's reader of one engine shard: XREADGROUP over the event streams of that shard's
 * markets (one slot, one blocking connection of its own), one job per route and entry on the
 * shard's own queues with the job id derived from the entry id, XACK only once the jobs are added.
 * Entries a crashed dispatcher read but never acknowledged are taken over with XAUTOCLAIM; because
 * job ids repeat, handing an entry over twice adds nothing twice.
 */
export class ShardDispatchReader {
  private readonly conn: RedisClient;
  private readonly loop: ReadLoop;
  private readonly queues = new Map<string, Queue<StreamJob>>();
  private streams: MarketStream[] = [];
  private lastClaim = 0;

  constructor(
    private readonly ctx: AppContext,
    readonly shard: number,
    private readonly consumer: string,
    private readonly routes: StreamRoute[],
    queues: Queue<StreamJob>[],
    private readonly opts: DispatchReaderOptions,
    /** Runs before each read (the dispatcher's fallback refresh of the market list). */
    private readonly beforeRead: () => Promise<void>,
  ) {
    for (const route of routes) {
      const queue = queues.find((q) => q.name === queueName(route.queue, shard));
      if (!queue) throw new Error(`dispatcher: no queue ${queueName(route.queue, shard)} for engine shard ${shard}`);
      this.queues.set(route.queue, queue);
    }
    this.conn = createRedis({
      url: ctx.config.redisUrl,
      cluster: ctx.config.redisCluster,
      natMap: ctx.config.redisClusterNatMap,
      blocking: true,
      name: `dispatcher-${shard}`,
      log: ctx.log,
    });
    this.loop = new ReadLoop(this.conn, ctx.log, `dispatcher shard ${shard}`, 500);
  }

  start(): void {
    this.loop.start(() => this.tick());
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** Reads a market's stream from now on (pairs are never removed), the group made sure of first. */
  async follow(kind: MarketKind, pair: string): Promise<void> {
    if (!this.routes.some((r) => r.kinds.includes(kind))) return;
    const key = this.ctx.shards.keys(this.shard).events(kind, pair);
    if (this.streams.some((x) => x.key === key)) return;
    try {
      // From the stream's start: a market's history is dispatched once, whoever comes first.
      await this.ctx.redis.xgroup('CREATE', key, DISPATCH_GROUP, '0', 'MKSTREAM');
    } catch (err) {
      if (!String((err as Error).message).includes('BUSYGROUP')) throw err;
    }
    if (!this.streams.some((x) => x.key === key)) this.streams = [...this.streams, { kind, pair, key }];
  }

  private async tick(): Promise<void> {
    await this.beforeRead();
    if (Date.now() - this.lastClaim >= this.opts.claimEveryMs) await this.claimAbandoned();
    if (this.streams.length === 0) {
      await new Promise((r) => setTimeout(r, this.opts.blockMs));
      return;
    }
    const keys = this.streams.map((s) => s.key);
    const res = (await blockingRead(
      this.conn,
      () =>
        this.conn.xreadgroup(
          'GROUP',
          DISPATCH_GROUP,
          this.consumer,
          'COUNT',
          this.opts.batch,
          'BLOCK',
          this.opts.blockMs,
          'STREAMS',
          ...keys,
          ...keys.map(() => '>'),
        ),
      this.opts.blockMs + 5_000,
    )) as [string, RawEntry[]][] | null;
    if (!res || !this.loop.active) return;
    for (const [key, entries] of res) {
      const stream = this.streams.find((s) => s.key === key);
      if (stream) await this.handOver(stream, entries);
    }
  }

  private async claimAbandoned(): Promise<void> {
    this.lastClaim = Date.now();
    for (const s of this.streams) {
      let cursor = '0-0';
      do {
        const [next, entries] = (await this.ctx.redis.xautoclaim(
          s.key,
          DISPATCH_GROUP,
          this.consumer,
          this.opts.claimIdleMs,
          cursor,
          'COUNT',
          this.opts.batch,
        )) as [string, RawEntry[], string[]?];
        if (entries.length)
          this.ctx.log.warn({ stream: s.key, count: entries.length }, 'dispatcher: took over pending entries');
        await this.handOver(s, entries);
        cursor = next;
      } while (cursor !== '0-0');
    }
  }

  private async handOver(s: MarketStream, entries: RawEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const byQueue = new Map<string, { name: string; data: StreamJob; opts: { jobId: string } }[]>();
    for (const [id, fields] of entries) {
      if (!fields) continue; // trimmed away while pending: nothing left to hand over
      const entry = parseEntry(id, fields);
      // the private stream's order states are no worker's business: jobs stay as small as before
      const events = withoutOrderStates(entry.events);
      for (const route of this.routes) {
        if (!route.kinds.includes(s.kind)) continue;
        if (route.events && !entry.events.some((e) => route.events!.includes(e.e))) continue;
        const data: StreamJob = { kind: s.kind, pair: s.pair, entryId: id, ts: entry.ts, events };
        if (this.shard !== 0) data.shard = this.shard;
        if (entry.seq !== undefined) data.seq = entry.seq;
        const list = byQueue.get(route.queue) ?? [];
        list.push({ name: 'entry', data, opts: { jobId: streamJobId(s.kind, s.pair, id) } });
        byQueue.set(route.queue, list);
      }
    }
    for (const [queue, jobs] of byQueue) await this.queues.get(queue)!.addBulk(jobs);
    await this.ctx.redis.xack(s.key, DISPATCH_GROUP, ...entries.map(([id]) => id));
  }
}
