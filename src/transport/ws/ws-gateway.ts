import uWS from 'uWebSockets.js';
import type { AppContext } from '../context';
import { createRedis } from '../../platform/redis/connection';
import type { MarketKind } from '../../platform/redis/keys';
import { shardOfPair } from '../../domain/market';
import { candleDto, type StoredCandle } from '../../market-data/candle-dto';
import { fieldValue, parseEntry } from '../../platform/market-event';
import { PairAnnouncements, parseAnnouncement } from '../../markets';
import { MarketFeed } from './market-feed';
import { errorMessage, parseRequest, type ClientRequest } from './protocol';
import { StreamTail } from './stream-tail';
import { topicOf, type Publisher } from './topics';
import { tokenVerifier } from './user-auth';
import { UserFeed } from './user-feed';
import { registerUserStream } from './user-gateway';
import { UserStateReader } from './user-state';

export interface GatewayOptions {
  port: number;
  /** Bytes a client may have queued; past it the client is dropped, the others never wait. */
  maxBackpressure: number;
  /** Seconds without traffic before a client is dropped; pings are sent automatically before that. */
  idleTimeoutSec: number;
  maxSubscriptions: number;
  /** Fallback only: new markets are announced (markets stream) and picked up at once. */
  refreshPairsMs: number;
  /** Shortest time between two publishing batches, so the longest a message waits for its batch. */
  batchMs: number;
}

export const GATEWAY_DEFAULTS: Omit<GatewayOptions, 'port'> = {
  maxBackpressure: 1024 * 1024,
  idleTimeoutSec: 60,
  maxSubscriptions: 200,
  refreshPairsMs: 10_000,
  batchMs: 20,
};

interface Client {
  subs: Set<string>;
  closed: boolean;
}

type Socket = uWS.WebSocket<Client>;

type CandleUpdate = StoredCandle & { period: string; t: string };

/**
 * The market-data websocket (docs/market-data.md#websocket-gateway-ws-role) on uWebSockets.js: subscriptions become uWS topics, and each
 * market's feed publishes into them from the streams this gateway tails itself. It reads market data
 * only: it carries no orders, and a client that leaves changes nothing but its own subscriptions.
 */
export class WsGateway {
  private readonly app = uWS.App();
  private readonly feeds = new Map<string, MarketFeed>();
  private readonly byEventStream = new Map<string, MarketFeed>();
  private readonly byCandleStream = new Map<string, MarketFeed>();
  /**
   * One pair of tails per engine shard: its markets' event streams (the engine's slot) and their
   * candle update streams (the shard's candle slot), so no read names keys of two slots.
   */
  private readonly tails: { engine: StreamTail; candles: StreamTail }[];
  /** Pair creations: followed by shard 0's engine tail with its event streams (one slot), so a new market joins its next read. */
  private readonly marketsKey: string;
  /** Markets being set up: a refresh, an announcement and a subscribe may ask for one at once. */
  private readonly adding = new Map<string, Promise<MarketFeed | undefined>>();
  private readonly sockets = new Set<Socket>();
  /** The private user stream (/ws/user): fed from the same tails as the market feeds, plus each shard's user events. */
  private readonly userFeed: UserFeed;
  private readonly userStream: ReturnType<typeof registerUserStream>;
  /** Each shard's user event stream, to its shard. */
  private readonly userEventsKeys: Map<string, number>;
  private listenSocket?: uWS.us_listen_socket;
  private refreshTimer?: NodeJS.Timeout;
  private outbox: [string, string][] = [];
  /** Client frames that came while a batch was waiting: handled right after it goes out (onFrame). */
  private afterFlush: (() => void)[] = [];
  private flushTimer?: NodeJS.Timeout;
  private lastFlush = 0;
  /**
   * Publishing happens at most once per `batchMs`: a message goes out at once (after the rest of
   * the current read) when the last batch left long enough ago, else with the next batch. uWS
   * then writes everything one client is owed in one syscall instead of one per message, which
   * is what keeps 2,000 clients at hundreds of updates a second affordable. Order is kept.
   */
  private readonly publisher: Publisher = {
    publish: (topic, message) => {
      this.outbox.push([topic, message]);
      this.flushTimer ??= setTimeout(
        () => this.flush(),
        Math.max(0, this.lastFlush + this.opts.batchMs - Date.now()),
      );
    },
    hasSubscribers: (topic) => this.app.numSubscribers(topic) > 0,
  };

  constructor(
    private readonly ctx: AppContext,
    private readonly opts: GatewayOptions,
  ) {
    const conn = (name: string) =>
      createRedis({ url: ctx.config.redisUrl, cluster: ctx.config.redisCluster, natMap: ctx.config.redisClusterNatMap, blocking: true, name, log: ctx.log });
    this.marketsKey = ctx.keys.marketsStream();
    this.userFeed = new UserFeed(new UserStateReader(ctx), ctx.log);
    // each shard's user event stream is read by that shard's engine tail (its slot)
    this.userEventsKeys = new Map(ctx.shards.all().map((k) => [k.userEvents(), k.shard]));
    this.tails = ctx.shards.all().map(({ shard }) => ({
      engine: new StreamTail(conn(`ws-events-${shard}`), (key, id, fields) => this.onEngineEntry(key, id, fields), ctx.log),
      candles: new StreamTail(conn(`ws-candles-${shard}`), (key, _id, fields) => this.onCandles(key, fields), ctx.log),
    }));
    this.app.ws<Client>('/ws', {
      maxPayloadLength: 4096,
      idleTimeout: opts.idleTimeoutSec,
      sendPingsAutomatically: true,
      maxBackpressure: opts.maxBackpressure,
      closeOnBackpressureLimit: 1,
      open: (ws) => {
        Object.assign(ws.getUserData(), { subs: new Set<string>(), closed: false });
        this.sockets.add(ws);
      },
      message: (ws, message) => this.onFrame(ws, Buffer.from(message).toString('utf8')),
      close: (ws) => {
        ws.getUserData().closed = true;
        this.sockets.delete(ws);
      },
    });
    this.userStream = registerUserStream(this.app, this.userFeed, tokenVerifier(ctx.config), opts, ctx.log);
    this.app.any('/*', (res) => {
      res.writeStatus('404 Not Found').end('websocket endpoints are /ws (market data) and /ws/user (private)');
    });
  }

  /** One entry of an engine stream: a pair announcement, a user event, or a market's (both feeds read it). */
  private onEngineEntry(key: string, id: string, fields: string[]): void | Promise<void> {
    if (key === this.marketsKey) return this.onAnnounced(fields);
    const userShard = this.userEventsKeys.get(key);
    if (userShard !== undefined) return this.userFeed.onUserEntry(parseEntry(id, fields), userShard);
    const feed = this.byEventStream.get(key);
    if (!feed) return;
    const entry = parseEntry(id, fields);
    feed.onEntry(entry);
    this.userFeed.onMarketEntry(feed.kind, feed.pair, entry, shardOfPair(feed.pair));
  }

  /**
   * Hands the waiting messages to uWS (which sends them at the end of this loop iteration), then
   * answers the client frames that waited for them.
   */
  private flush(): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    this.lastFlush = Date.now();
    const out = this.outbox;
    this.outbox = [];
    for (const [topic, message] of out) this.app.publish(topic, message);
    const frames = this.afterFlush;
    this.afterFlush = [];
    for (const handle of frames) handle();
  }

  /**
   * A client frame waits for the batch in flight, if there is one. A subscribe must follow every
   * message published before its snapshot (uWS drains a topic before a socket joins it), and
   * flushing early for it costs a write to every other subscriber: a burst of clients
   * reconnecting to a busy market would flush once each instead of once per `batchMs`. The
   * answer comes at most `batchMs` later, and a client's frames keep their order.
   */
  private onFrame(ws: Socket, text: string): void {
    if (this.outbox.length === 0) return this.onMessage(ws, text);
    this.afterFlush.push(() => {
      if (!ws.getUserData().closed) ws.cork(() => this.onMessage(ws, text));
    });
  }

  /** Snapshots every market, starts tailing, then listens; resolves with the port. */
  async start(): Promise<number> {
    // where the announcements stand before the pairs are listed: a pair created in between is in both
    this.tails[0].engine.follow(this.marketsKey, await PairAnnouncements.position(this.ctx.redis, this.marketsKey));
    // a private stream client gets a snapshot when it subscribes: user events from before are in it
    for (const k of this.ctx.shards.all()) {
      this.tails[k.shard].engine.follow(k.userEvents(), await lastEntryId(this.ctx.redis, k.userEvents()));
    }
    await this.refreshMarkets();
    for (const t of this.tails) {
      t.engine.start();
      t.candles.start();
    }
    this.refreshTimer = setInterval(() => {
      this.refreshMarkets().catch((err) => this.ctx.log.error({ err }, 'ws: market refresh failed'));
    }, this.opts.refreshPairsMs);
    this.refreshTimer.unref();
    return new Promise((resolve, reject) => {
      // exclusive: Linux's SO_REUSEPORT would otherwise let a second process share a port in use
      this.app.listen(this.opts.port, 1 as uWS.ListenOptions /* LIBUS_LISTEN_EXCLUSIVE_PORT */, (ls) => {
        if (!ls) return reject(Object.assign(new Error(`websocket gateway cannot listen on port ${this.opts.port}`), { code: 'EADDRINUSE' }));
        this.listenSocket = ls;
        resolve(uWS.us_socket_local_port(ls));
      });
    });
  }

  async stop(): Promise<void> {
    clearInterval(this.refreshTimer);
    clearTimeout(this.flushTimer);
    this.afterFlush = [];
    if (this.listenSocket) uWS.us_listen_socket_close(this.listenSocket);
    for (const ws of [...this.sockets]) ws.close();
    this.userStream.closeAll();
    await Promise.all(this.tails.flatMap((t) => [t.engine.stop(), t.candles.stop()]));
  }

  get connections(): number {
    return this.sockets.size + this.userStream.connections();
  }

  private async refreshMarkets(): Promise<void> {
    for (const kind of ['spot', 'futures'] as const) {
      for (const pair of await this.ctx.markets.store.listPairs(kind)) await this.marketOf(kind, pair.code);
    }
  }

  /** A pair was created: its market is set up before the engine tail reads again, so it is in that read. */
  private async onAnnounced(fields: string[]): Promise<void> {
    const a = parseAnnouncement(fields);
    if (a) await this.marketOf(a.kind, a.code);
  }

  /** A market's feed, set up on first need; undefined for a market the store does not know. */
  private marketOf(kind: MarketKind, code: string): Promise<MarketFeed | undefined> {
    const key = `${kind}/${code}`;
    const ready = this.feeds.get(key);
    if (ready) return Promise.resolve(ready);
    let pending = this.adding.get(key);
    if (!pending) {
      pending = this.addMarket(kind, code).finally(() => this.adding.delete(key));
      this.adding.set(key, pending);
    }
    return pending;
  }

  /** Snapshots the market and follows its streams; subscribers see it once it is whole. */
  private async addMarket(kind: MarketKind, code: string): Promise<MarketFeed | undefined> {
    const pair = await this.ctx.markets.store.getPair(kind, code);
    if (!pair) return undefined;
    const tails = this.tails[shardOfPair(pair)];
    if (!tails) {
      this.ctx.log.warn({ kind, pair: code, shard: shardOfPair(pair) }, 'ws: market on an engine shard beyond ENGINE_SHARDS');
      return undefined;
    }
    const k = this.ctx.shards.keysOf(pair);
    const feed = new MarketFeed(kind, pair, this.ctx.marketData.books, this.publisher, this.ctx.log);
    const eventsKey = k.events(kind, pair.code);
    this.byEventStream.set(eventsKey, feed);
    tails.engine.follow(eventsKey, await feed.resync());
    feed.seedLastPrice(await this.ctx.redis.get(k.lastPrice(kind, pair.code)));
    const candlesKey = k.candleEvents(kind, pair.code);
    this.byCandleStream.set(candlesKey, feed);
    tails.candles.follow(candlesKey, await lastEntryId(this.ctx.redis, candlesKey));
    this.feeds.set(`${kind}/${pair.code}`, feed);
    return feed;
  }

  private onCandles(key: string, fields: string[]): void {
    const feed = this.byCandleStream.get(key);
    const ev = fieldValue(fields, 'ev');
    if (!feed || !ev) return;
    for (const c of JSON.parse(ev) as CandleUpdate[]) {
      const period = Number(c.period);
      const topic = topicOf('candles', feed.kind, feed.pair.code, period);
      if (!this.publisher.hasSubscribers(topic)) continue;
      this.publisher.publish(
        topic,
        JSON.stringify({
          channel: 'candles',
          market: feed.pair.code,
          kind: feed.kind,
          period,
          candle: candleDto(feed.pair, period, Number(c.t), c),
        }),
      );
    }
  }

  private onMessage(ws: Socket, text: string): void {
    const parsed = parseRequest(text);
    if ('error' in parsed) return void ws.send(errorMessage(parsed.error));
    const req = parsed.request;
    const feed = this.feeds.get(`${req.kind}/${req.market}`);
    if (feed) return this.onRequest(ws, req, feed);
    // Not seen here yet (created a moment ago, say): the store decides before the client is refused.
    this.marketOf(req.kind, req.market)
      .catch((err) => void this.ctx.log.error({ err }, 'ws: market lookup failed'))
      .then((found) => {
        if (ws.getUserData().closed) return;
        ws.cork(() => {
          if (found) this.onRequest(ws, req, found);
          else ws.send(errorMessage(`unknown ${req.kind} market ${req.market}`));
        });
      });
  }

  private onRequest(ws: Socket, req: ClientRequest, feed: MarketFeed): void {
    const topic = topicOf(req.channel, req.kind, req.market, req.period);
    const subs = ws.getUserData().subs;
    const ack = (op: string) =>
      JSON.stringify({
        op,
        channel: req.channel,
        market: req.market,
        kind: req.kind,
        ...(req.period ? { period: req.period } : {}),
      });
    if (req.op === 'unsubscribe') {
      if (!subs.delete(topic))
        return void ws.send(errorMessage(`not subscribed to ${req.channel} of ${req.kind} ${req.market}`));
      ws.unsubscribe(topic);
      return void ws.send(ack('unsubscribed'));
    }
    if (!subs.has(topic) && subs.size >= this.opts.maxSubscriptions) {
      return void ws.send(errorMessage(`at most ${this.opts.maxSubscriptions} subscriptions per connection`));
    }
    // Subscribing again is how a client that saw a sequence gap asks for a fresh snapshot. What
    // is waiting goes out first: uWS drains a topic's published messages before a socket joins it,
    // so the new client gets none from before its snapshot and every one after it. (Only a
    // subscribe whose market was looked up first finds a batch waiting: onFrame holds the others.)
    if (this.outbox.length > 0) this.flush();
    subs.add(topic);
    ws.subscribe(topic);
    ws.cork(() => {
      ws.send(ack('subscribed'));
      if (req.channel === 'orderbook') {
        const snap = feed.snapshotMessage();
        if (snap) ws.send(snap);
      } else if (req.channel === 'ticker') {
        ws.send(feed.tickerMessage());
      }
    });
    if (req.channel === 'candles') this.sendCurrentCandle(ws, feed, req);
  }

  private sendCurrentCandle(ws: Socket, feed: MarketFeed, req: ClientRequest): void {
    this.ctx.marketData.candles
      .current(feed.kind, feed.pair, req.period!)
      .then((candle) => {
        if (!candle || ws.getUserData().closed) return;
        ws.cork(() =>
          ws.send(
            JSON.stringify({
              channel: 'candles',
              market: req.market,
              kind: req.kind,
              period: req.period,
              candle,
            }),
          ),
        );
      })
      .catch((err) => this.ctx.log.error({ err }, 'ws: reading the current candle failed'));
  }
}

/** The id of a stream's last entry ('0-0' when it has none): reading after it gets only what comes next. */
async function lastEntryId(redis: AppContext['redis'], key: string): Promise<string> {
  const [last] = await redis.xrevrange(key, '+', '-', 'COUNT', 1);
  return last ? last[0] : '0-0';
}
