import { fitsEngine, fromMinor, minorString, ppmToRate, toMinorDown } from '../domain/decimal';
import { rejected } from '../domain/errors';
import type { FuturesEngine } from './futures-engine';
import { OrderSide, TradeType } from '../domain/futures';
import type { Pair } from '../domain/market';
import type { MarketStore } from '../markets';
import type { BookLevelDto, MarketDataService } from '../market-data';
import type { TradeHistory, IdRange } from '../market-data';
import type { FuturesPriceService } from './prices/futures-price.service';

/** OpenAPI `FuturesPairInfo`; the first letter of `сurrencyPairCode` is Cyrillic U+0441, as the contract spells it (docs/api-contract.md#resources). */
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
  /** Extensions of `FuturesPairInfo`: the pair's fee rates as fractions (0.001 = 0.1 %), as spot pairs show them. */
  makerFee: number;
  takerFee: number;
  /** Extensions: the highest leverage and the maintenance margin rate (a fraction), so clients can value positions. */
  maxLeverage: number;
  maintenanceMarginRate: number;
}

export interface FuturesBookDto {
  currencyPairCode: string;
  asks: BookLevelDto[];
  bids: BookLevelDto[];
}

/** OpenAPI `FuturesDeal` */
export interface FuturesDealDto {
  timestamp: string;
  price: number;
  amount: number;
  currencyPairCode: string;
  isLong: boolean;
  orderSide: number;
}

/** OpenAPI `FuturesUserDeal` */
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

/** Public futures market data: pairs, the book, and deals read from the trade history. */
export class FuturesMarketService {
  constructor(
    private readonly history: TradeHistory,
    private readonly markets: MarketStore,
    private readonly marketData: MarketDataService,
    private readonly prices: FuturesPriceService,
    private readonly engine: FuturesEngine,
  ) {}

  /**
   * basePricePrecision = digitsPrice, quantityPrecision = digitsAmount, quotePricePrecision = the
   * margin currency's decimals; fundingRate = the rate of the round in progress, which settles at
   * fundingRateFinishTimestamp; makerFee / takerFee, maxLeverage and
   * maintenanceMarginRate extend 2.13 so clients can read the fees and value positions.
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
        makerFee: p.makerFee,
        takerFee: p.takerFee,
        maxLeverage: p.maxLeverage ?? 1,
        maintenanceMarginRate: p.maintenanceMarginRate ?? 0,
      })),
    );
  }

  /**
   * Admin: one index source's price of a futures pair (`source` defaults to admin); the index is the
   * median of the fresh sources, and the mark is refreshed at once from it.
   */
  async setIndexPrice(code: string, price: number, source = 'admin'): Promise<{ currencyPairCode: string; price: number }> {
    const pair = await this.marketData.pairOr404('futures', code);
    const ticks = toMinorDown(price, pair.digitsPrice);
    if (ticks.lte(0) || !fitsEngine(ticks)) {
      throw rejected('PRICE_OUT_OF_RANGE', `price must be positive at ${pair.digitsPrice} digits and fit the engine`);
    }
    const now = Date.now();
    await this.prices.recordIndexSource(pair, source, minorString(ticks), now);
    await this.prices.refreshMark(pair, now);
    return { currencyPairCode: code, price: fromMinor(minorString(ticks), pair.digitsPrice) };
  }

  async orderBook(code: string, depth: number): Promise<FuturesBookDto> {
    const { currencyPairCode, asks, bids } = await this.marketData.orderBook('futures', code, depth);
    return { currencyPairCode, asks, bids };
  }

  /** Market-wide deals newest first: one page, found by rank (O(log n + page)), with the total. */
  async deals(q: DealsQuery): Promise<{ totalCount: number; items: FuturesDealDto[] }> {
    const { pairs, sources } = await this.sources(q, (code, range) => this.history.marketSource('futures', code, range));
    const [totalCount, found] = await Promise.all([
      this.history.count(sources),
      this.history.tradesFrom(sources, (q.Page - 1) * q.PageSize, q.PageSize),
    ]);
    const items = found.map(({ trade: t, source }) => {
      const pair = pairs[source];
      return {
        timestamp: new Date(t.ts).toISOString(),
        price: fromMinor(t.p, pair.digitsPrice),
        amount: fromMinor(t.q, pair.digitsAmount),
        currencyPairCode: pair.code,
        isLong: t.side === 'buy',
        orderSide: t.side === 'buy' ? OrderSide.Buy : OrderSide.Sell,
      };
    });
    return { totalCount, items };
  }

  /** One deal per side the user was on: a trade between two of the user's orders gives two. */
  async userDeals(userId: string, q: DealsQuery): Promise<{ totalCount: number; items: FuturesUserDealDto[] }> {
    const { pairs, sources } = await this.sources(q, (code, range) => this.history.userSource('futures', code, userId, range));
    const offset = (q.Page - 1) * q.PageSize;
    const codes = pairs.map((p) => p.code);
    const [totalCount, found] = await Promise.all([
      this.history.count(sources),
      this.history.userTrades('futures', codes, sources, offset, q.PageSize),
    ]);
    const byCode = new Map(pairs.map((p) => [p.code, p]));
    const items = found.map(({ trade: t, role, pair: code }) => {
      const pair = byCode.get(code) as Pair;
      const who = role === 'taker' ? 't' : 'm';
      const side = role === 'taker' ? t.side : t.side === 'buy' ? 'sell' : 'buy';
      return {
        id: t.id,
        timestamp: new Date(t.ts).toISOString(),
        price: fromMinor(t.p, pair.digitsPrice),
        amount: fromMinor(t.q, pair.digitsAmount),
        currencyPairCode: pair.code,
        isLong: (who === 't' ? t.tl : t.ml) === '1',
        fee: fromMinor(who === 't' ? t.tf : t.mf, pair.quoteDecimals),
        feeAsset: pair.quoteCurrencyCode,
        realizedPnl: fromMinor(who === 't' ? t.tpnl : t.mpnl, pair.quoteDecimals),
        tradeType: who === 'm' ? TradeType.Maker : Number(t.tt || TradeType.Taker),
        orderId: Number(who === 't' ? t.tpos : t.mpos),
        orderSide: side === 'buy' ? OrderSide.Buy : OrderSide.Sell,
      };
    });
    return { totalCount, items };
  }

  /** The markets asked for and, per market, its history (or index) bounded to the dates asked for. */
  private async sources<S>(q: DealsQuery, source: (code: string, range: IdRange) => S): Promise<{ pairs: Pair[]; sources: S[] }> {
    const pairs = q.CurrencyPair
      ? [await this.marketData.pairOr404('futures', q.CurrencyPair)]
      : await this.markets.listPairs('futures');
    const from = q.DateFrom?.getTime();
    const to = q.DateTo?.getTime();
    const sources = await Promise.all(pairs.map(async (p) => source(p.code, await this.history.idRange('futures', p.code, from, to))));
    return { pairs, sources };
  }
}
