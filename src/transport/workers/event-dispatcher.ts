import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Queue } from 'bullmq';
import type { AppContext } from '../context';
import { blockingRead } from '../../platform/redis/blocking-read';
import { createRedis, type RedisClient } from '../../platform/redis/connection';
import { ReadLoop } from '../../platform/redis/read-loop';
import type { MarketKind } from '../../platform/redis/keys';
import { PairAnnouncements, type PairAnnouncement } from '../../markets';
import { parseEntry } from '../../platform/market-event';
import { streamJobId, type StreamJob } from '../../platform/queues';
import type { StreamRoute } from './stream-routes';

export interface DispatcherOptions {
  /** Pending entries idle this long belong to a dispatcher presumed dead and are claimed. */
  claimIdleMs: number;
  /** How often pending entries are looked for. */
  claimEveryMs: number;
  /** Longest wait of one read; a market announced meanwhile joins the read after it. */
  blockMs: number;
  batch: number;
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

/** Consumer group every dispatcher joins; each entry goes to one member of the group. */
export const DISPATCH_GROUP = 'dispatch';

interface MarketStream {
  kind: MarketKind;
  pair: string;
  key: string;
}

type RawEntry = [string, string[] | null];

/**
 * Moves market stream entries into BullMQ: XREADGROUP over every market stream, one job per route
 * and entry with the job id derived from the entry id, XACK only once the jobs are added. Entries a
 * crashed dispatcher read but never acknowledged are taken over with XAUTOCLAIM; because job ids
 * repeat, handing an entry over twice adds nothing twice.
 */
export class EventDispatcher {
  readonly consumer = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  private readonly conn: RedisClient;
  private readonly loop: ReadLoop;
  private readonly announcements: PairAnnouncements;
  private streams: MarketStream[] = [];
  private lastRefresh = 0;
  private lastClaim = 0;

  constructor(
    private readonly ctx: AppContext,
    private readonly routes: StreamRoute[],
    private readonly queues: Map<string, Queue<StreamJob>>,
    private readonly opts: DispatcherOptions = DISPATCHER_DEFAULTS,
  ) {
    this.conn = createRedis({
      url: ctx.config.redisUrl,
      cluster: ctx.config.redisCluster,
      blocking: true,
      name: 'dispatcher',
      log: ctx.log,
    });
    this.loop = new ReadLoop(this.conn, ctx.log, 'dispatcher', 500);
    const announcementsConn = createRedis({
      url: ctx.config.redisUrl,
      cluster: ctx.config.redisCluster,
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
    this.loop.start(() => this.tick());
  }

  async stop(): Promise<void> {
    await Promise.all([this.announcements.stop(), this.loop.stop()]);
  }

  private async tick(): Promise<void> {
    const now = Date.now();
    if (now - this.lastRefresh >= this.opts.refreshPairsMs) await this.refresh();
    if (now - this.lastClaim >= this.opts.claimEveryMs) await this.claimAbandoned();
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

  /** Learns the markets from the store (the fallback for a missed announcement). */
  private async refresh(): Promise<void> {
    this.lastRefresh = Date.now();
    for (const kind of ['spot', 'futures'] as const) {
      for (const p of await this.ctx.markets.store.listPairs(kind)) await this.follow(kind, p.code);
    }
  }

  /** A market created at run time: its stream joins the next read. */
  private async onAnnounced(a: PairAnnouncement): Promise<void> {
    await this.follow(a.kind, a.code);
  }

  /** Reads a market's stream from now on (pairs are never removed), the group made sure of first. */
  private async follow(kind: MarketKind, pair: string): Promise<void> {
    if (!this.routes.some((r) => r.kinds.includes(kind))) return;
    const key = this.ctx.keys.events(kind, pair);
    if (this.streams.some((x) => x.key === key)) return;
    try {
      // From the stream's start: a market's history is dispatched once, whoever comes first.
      await this.ctx.redis.xgroup('CREATE', key, DISPATCH_GROUP, '0', 'MKSTREAM');
    } catch (err) {
      if (!String((err as Error).message).includes('BUSYGROUP')) throw err;
    }
    if (!this.streams.some((x) => x.key === key)) this.streams = [...this.streams, { kind, pair, key }];
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
          this.ctx.log.warn(
            { stream: s.key, count: entries.length },
            'dispatcher: took over pending entries',
          );
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
      for (const route of this.routes) {
        if (!route.kinds.includes(s.kind)) continue;
        if (route.events && !entry.events.some((e) => route.events!.includes(e.e))) continue;
        const data: StreamJob = {
          kind: s.kind,
          pair: s.pair,
          entryId: id,
          ts: entry.ts,
          events: entry.events,
        };
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
