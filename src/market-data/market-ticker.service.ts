import BigNumber from 'bignumber.js';
import { candleOpen } from '../domain/candle';
import { decimal } from '../domain/decimal';
import type { Pair } from '../domain/market';
import type { BookReader } from './book-reader';
import type { MarketStore } from '../markets';
import type { RedisClient } from '../platform/redis/connection';
import type { Keys, MarketKind } from '../platform/redis/keys';
import type { StoredCandle } from './candle-dto';

/** Length of the rolling window of the 24 h statistics, and the candle period it is summed from. */
export const TICKER_WINDOW_MS = 24 * 3600 * 1000;
const MINUTE = 60;
const WINDOW_MINUTES = TICKER_WINDOW_MS / (MINUTE * 1000);

/**
 * One market's 24 h statistics and top of book, in pair units (exact decimals). Every aggregator
 * feed, spot and futures, formats this one record; null where nothing exists (no trade yet, an
 * empty side of the book, no trade in the window).
 */
export interface MarketTicker {
  pair: Pair;
  /** The last trade ever, not only within the window (engine state, so never behind). */
  last: BigNumber | null;
  /** First trade price within the window, the reference of `changePercent`. */
  open: BigNumber | null;
  high: BigNumber | null;
  low: BigNumber | null;
  baseVolume: BigNumber;
  quoteVolume: BigNumber;
  changePercent: BigNumber | null;
  bid: BigNumber | null;
  ask: BigNumber | null;
}

export type { TradeRecord } from './trade-reader';

const units = (p: Pair) => ({
  price: (ticks: BigNumber.Value) => new BigNumber(ticks).shiftedBy(-p.digitsPrice),
  /** lots to base units; a futures lot is contractValue of base */
  amount: (lots: BigNumber.Value) => new BigNumber(lots).shiftedBy(-p.digitsAmount).times(decimal(p.contractValue ?? 1)),
});

/**
 * The ticker computation behind every aggregator feed. Volumes, high, low and the open come from
 * the one-minute candles (the durable record of every trade, kept by the candles worker) over the
 * last 24 h at minute granularity: the minute in progress and the 1439 before it. Last price is the
 * engine's own, bid and ask the book's best levels.
 */
export class MarketTickerService {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
    private readonly markets: MarketStore,
    private readonly books: BookReader,
  ) {}

  async ticker(kind: MarketKind, pair: Pair, now = Date.now()): Promise<MarketTicker> {
    const u = units(pair);
    const lastMinute = candleOpen(now, MINUTE);
    const fields: string[] = [];
    for (let i = WINDOW_MINUTES - 1; i >= 0; i--) fields.push(`${MINUTE}:${lastMinute - i * MINUTE * 1000}`);
    const [raw, last, snap] = await Promise.all([
      this.redis.hmget(this.keys.candles(kind, pair.code), ...fields),
      this.redis.get(this.markets.knownKeysOf(kind, pair.code).lastPrice(kind, pair.code)),
      this.books.snapshot(kind, pair.code, 1),
    ]);

    let open: BigNumber | null = null;
    let high: BigNumber | null = null;
    let low: BigNumber | null = null;
    let lots = new BigNumber(0);
    let ticksLots = new BigNumber(0);
    for (const json of raw) {
      if (!json) continue;
      const c = JSON.parse(json) as StoredCandle;
      open ??= new BigNumber(c.o);
      if (!high || high.lt(c.h)) high = new BigNumber(c.h);
      if (!low || low.gt(c.l)) low = new BigNumber(c.l);
      lots = lots.plus(c.v);
      ticksLots = ticksLots.plus(c.q);
    }
    const lastPrice = last ? u.price(last) : null;
    const openPrice = open ? u.price(open) : null;
    const cv = decimal(pair.contractValue ?? 1);
    return {
      pair,
      last: lastPrice,
      open: openPrice,
      high: high ? u.price(high) : null,
      low: low ? u.price(low) : null,
      baseVolume: u.amount(lots),
      quoteVolume: ticksLots.shiftedBy(-(pair.digitsPrice + pair.digitsAmount)).times(cv),
      changePercent:
        openPrice && lastPrice && openPrice.gt(0) ? lastPrice.minus(openPrice).div(openPrice).times(100) : null,
      bid: snap.bids.length ? u.price(snap.bids[0][0]) : null,
      ask: snap.asks.length ? u.price(snap.asks[0][0]) : null,
    };
  }

  /** Tickers of every market of a kind, in pair id order. */
  async tickers(kind: MarketKind, now = Date.now()): Promise<MarketTicker[]> {
    const pairs = await this.markets.listPairs(kind);
    return Promise.all(pairs.map((p) => this.ticker(kind, p, now)));
  }
}

/** The aggregator standards' depth: 0 is the full book, else half of it on each side (odd rounds up). */
export const depthPerSide = (depth: number): number => (depth > 0 ? Math.ceil(depth / 2) : 0);
