import { fitsEngine, fromMinor, minorString, ppmToRate, toMinorDown } from '../domain/decimal';
import { rejected } from '../domain/errors';
import type { FuturesEngine } from './futures-engine';
import { OrderSide, TradeType } from '../domain/futures';
import type { Pair } from '../domain/market';
import type { MarketStore } from '../markets';
import type { RedisClient } from '../platform/redis/connection';
import type { Keys } from '../platform/redis/keys';
import type { BookLevelDto, MarketDataService } from '../market-data';
import { parseEntry } from '../platform/market-event';
import type { FuturesPriceService } from './futures-price.service';

/** SPEC 2.13; the first letter of `сurrencyPairCode` is Cyrillic U+0441, as SPEC spells it. */
export interface FuturesPairInfoDto {
  id: number;
  сurrencyPairCode: string;
  isActive: boolean;
  basePricePrecision: number;
  quantityPrecision: number;
  quotePricePrecision: number;
  contractValue: number;
  fundingRate: number;
  lotSize: number;
  fundingRateStartTimestamp: string;
  fundingRateFinishTimestamp: string;
}

export interface FuturesBookDto {
  currencyPairCode: string;
  asks: BookLevelDto[];
  bids: BookLevelDto[];
}

/** SPEC 2.14 */
export interface FuturesDealDto {
  timestamp: string;
  price: number;
  amount: number;
  currencyPairCode: string;
  isLong: boolean;
  orderSide: number;
}

/** SPEC 2.15 */
export interface FuturesUserDealDto extends FuturesDealDto {
  id: number;
  fee: number;
  feeAsset: string;
  realizedPnl: number;
  tradeType: number;
  orderId: number;
}

export interface DealsQuery {
  CurrencyPair?: string;
  Page: number;
  PageSize: number;
  DateFrom?: Date;
  DateTo?: Date;
}

/** Public futures market data: pairs, the book, and deals read from the market streams. */
export class FuturesMarketService {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
    private readonly markets: MarketStore,
    private readonly marketData: MarketDataService,
    private readonly prices: FuturesPriceService,
    private readonly engine: FuturesEngine,
  ) {}

  /**
   * basePricePrecision = digitsPrice, quantityPrecision = digitsAmount, quotePricePrecision = the
   * margin currency's decimals; fundingRate = the rate of the round in progress, which settles at
   * fundingRateFinishTimestamp.
   */
  async pairs(now = Date.now()): Promise<FuturesPairInfoDto[]> {
    const { start, finish } = this.prices.fundingRound(now);
    const pairs = await this.markets.listPairs('futures');
    return Promise.all(
      pairs.map(async (p) => ({
        id: p.id,
        сurrencyPairCode: p.code,
        isActive: p.isActive,
        basePricePrecision: p.digitsPrice,
        quantityPrecision: p.digitsAmount,
        quotePricePrecision: p.quoteDecimals,
        contractValue: p.contractValue ?? 1,
        fundingRate: ppmToRate(await this.prices.fundingRatePpm(p)),
        lotSize: p.lotSize ?? 0,
        fundingRateStartTimestamp: new Date(start).toISOString(),
        fundingRateFinishTimestamp: new Date(finish).toISOString(),
      })),
    );
  }

  /** Admin: the index price of a futures pair (used where no spot market gives one). */
  async setIndexPrice(code: string, price: number): Promise<{ currencyPairCode: string; price: number }> {
    const pair = await this.marketData.pairOr404('futures', code);
    const ticks = toMinorDown(price, pair.digitsPrice);
    if (ticks.lte(0) || !fitsEngine(ticks)) {
      throw rejected('PRICE_OUT_OF_RANGE', `price must be positive at ${pair.digitsPrice} digits and fit the engine`);
    }
    await this.engine.setIndexPrice(code, minorString(ticks), Date.now());
    return { currencyPairCode: code, price: fromMinor(minorString(ticks), pair.digitsPrice) };
  }

  async orderBook(code: string, depth: number): Promise<FuturesBookDto> {
    const { currencyPairCode, asks, bids } = await this.marketData.orderBook('futures', code, depth);
    return { currencyPairCode, asks, bids };
  }

  async deals(q: DealsQuery): Promise<{ totalCount: number; items: FuturesDealDto[] }> {
    const all: FuturesDealDto[] = [];
    await this.scanTrades(q, (pair, ts, t) => {
      all.push({
        timestamp: ts,
        price: fromMinor(t.p, pair.digitsPrice),
        amount: fromMinor(t.q, pair.digitsAmount),
        currencyPairCode: pair.code,
        isLong: t.side === 'buy',
        orderSide: t.side === 'buy' ? OrderSide.Buy : OrderSide.Sell,
      });
    });
    return page(all, q);
  }

  /** One deal per side the user was on: a trade between two of the user's orders gives two. */
  async userDeals(userId: string, q: DealsQuery): Promise<{ totalCount: number; items: FuturesUserDealDto[] }> {
    const all: FuturesUserDealDto[] = [];
    await this.scanTrades(q, (pair, ts, t) => {
      const sides: ['t' | 'm', string][] = [
        ['t', t.side],
        ['m', t.side === 'buy' ? 'sell' : 'buy'],
      ];
      for (const [who, side] of sides) {
        if (t[`${who}u`] !== userId) continue;
        all.push({
          id: Number(t.id),
          timestamp: ts,
          price: fromMinor(t.p, pair.digitsPrice),
          amount: fromMinor(t.q, pair.digitsAmount),
          currencyPairCode: pair.code,
          isLong: t[`${who}l`] === '1',
          fee: fromMinor(t[`${who}f`], pair.quoteDecimals),
          feeAsset: pair.quoteCurrencyCode,
          realizedPnl: fromMinor(t[`${who}pnl`], pair.quoteDecimals),
          tradeType: who === 'm' ? TradeType.Maker : Number(t.tt ?? TradeType.Taker),
          orderId: Number(t[`${who}pos`]),
          orderSide: side === 'buy' ? OrderSide.Buy : OrderSide.Sell,
        });
      }
    });
    return page(all, q);
  }

  /** Trades of the markets asked for, newest first, within the dates (as far back as the streams keep). */
  private async scanTrades(
    q: DealsQuery,
    visit: (pair: Pair, timestamp: string, trade: Record<string, string>) => void,
  ): Promise<void> {
    const pairs = q.CurrencyPair
      ? [await this.marketData.pairOr404('futures', q.CurrencyPair)]
      : await this.markets.listPairs('futures');
    const from = q.DateFrom?.getTime() ?? 0;
    const to = q.DateTo?.getTime() ?? Number.MAX_SAFE_INTEGER;
    const found: { ts: number; seq: number; pair: Pair; t: Record<string, string> }[] = [];
    for (const pair of pairs) {
      // entry ids are Redis's clock, the `ts` field the command's: a minute of slack each side
      const entries = await this.redis.xrange(
        this.keys.events('futures', pair.code),
        q.DateFrom ? String(Math.max(0, from - 60_000)) : '-',
        q.DateTo ? String(to + 60_000) : '+',
      );
      for (const [id, fields] of entries) {
        const e = parseEntry(id, fields);
        if (e.ts < from || e.ts > to) continue;
        for (const t of e.events) if (t.e === 'trade') found.push({ ts: e.ts, seq: Number(t.id), pair, t });
      }
    }
    found.sort((a, b) => b.ts - a.ts || b.seq - a.seq);
    for (const f of found) visit(f.pair, new Date(f.ts).toISOString(), f.t);
  }
}

function page<T>(all: T[], q: DealsQuery): { totalCount: number; items: T[] } {
  const start = (q.Page - 1) * q.PageSize;
  return { totalCount: all.length, items: all.slice(start, start + q.PageSize) };
}
