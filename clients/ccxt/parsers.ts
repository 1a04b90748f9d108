import { Precise, type Balances, type CurrencyInterface, type Dict, type Market, type MarketInterface, type OHLCV, type Order, type Position, type Ticker, type Trade } from 'ccxt';
import { ExchangeBackendBase } from './base';

/**
 * ccxt's unified order statuses are open, closed and canceled (its validators accept no other): an
 * order the engine ended (self-trade prevention, a market order's killed rest) or refused after
 * accepting reads canceled; the service's own status stays in `info`.
 */
const SPOT_STATUS: Record<string, string> = {
  open: 'open',
  partiallyFilled: 'open',
  filled: 'closed',
  cancelled: 'canceled',
  expired: 'canceled',
};

/** Futures order statuses (docs/api-contract.md#resources). InPosition is decided per order: its rest may still rest on the book. */
const FUTURES_STATUS: Record<string, string> = { '10': 'open', '20': 'closed', '30': 'canceled', '40': 'canceled' };

/** The service's records as ccxt structures. Numbers arrive as JSON numbers; ccxt keeps them exact as strings. */
export class ExchangeBackendParsers extends ExchangeBackendBase {
  /** A row of GET /api/currencies/pairs. */
  parseSpotMarket(p: Dict): MarketInterface {
    const id = this.safeString(p, 'currencyPairCode') as string;
    const baseId = this.safeString(p, 'baseCurrencyCode') as string;
    const quoteId = this.safeString(p, 'quoteCurrencyCode') as string;
    const base = this.safeCurrencyCode(baseId);
    const quote = this.safeCurrencyCode(quoteId);
    return this.marketStructure({
      id, symbol: `${base}/${quote}`, base, quote, baseId, quoteId, settle: undefined, settleId: undefined,
      type: 'spot', subType: undefined, spot: true, margin: false, swap: false, future: false, option: false, contract: false,
      active: true, linear: undefined, inverse: undefined, contractSize: undefined,
      taker: this.safeNumber(p, 'takerFee'), maker: this.safeNumber(p, 'makerFee'),
      precision: {
        amount: this.parseNumber(this.parsePrecision(this.safeString(p, 'digitsAmount'))),
        price: this.parseNumber(this.parsePrecision(this.safeString(p, 'digitsPrice'))),
      },
      limits: {
        amount: { min: this.safeNumber(p, 'minBaseAmount'), max: undefined },
        price: { min: undefined, max: undefined },
        cost: { min: this.safeNumber(p, 'minQuoteAmount'), max: undefined },
        leverage: { min: undefined, max: undefined },
      },
      created: undefined,
      marginModes: { cross: false, isolated: false },
      info: p,
    });
  }

  /** A row of GET /api/futures/exchange-data/pairs (OpenAPI `FuturesPairInfo`: the pair code's first letter is Cyrillic). */
  parseFuturesMarket(p: Dict): MarketInterface {
    const id = (this.safeString(p, '\u0441urrencyPairCode') ?? this.safeString(p, 'currencyPairCode')) as string;
    const sep = id.indexOf('_');
    const baseId = id.slice(0, sep);
    const quoteId = id.slice(sep + 1);
    const base = this.safeCurrencyCode(baseId);
    const quote = this.safeCurrencyCode(quoteId);
    return this.marketStructure({
      id, symbol: `${base}/${quote}:${quote}`, base, quote, settle: quote, baseId, quoteId, settleId: quoteId,
      type: 'swap', subType: 'linear', spot: false, margin: false, swap: true, future: false, option: false, contract: true,
      active: this.safeBool(p, 'isActive'), linear: true, inverse: false,
      contractSize: this.safeNumber(p, 'contractValue'),
      // extensions of `FuturesPairInfo` (docs/futures.md)
      taker: this.safeNumber(p, 'takerFee'), maker: this.safeNumber(p, 'makerFee'),
      precision: {
        amount: this.parseNumber(this.parsePrecision(this.safeString(p, 'quantityPrecision'))),
        price: this.parseNumber(this.parsePrecision(this.safeString(p, 'basePricePrecision'))),
      },
      limits: {
        amount: { min: this.safeNumber(p, 'lotSize'), max: undefined },
        price: { min: undefined, max: undefined },
        cost: { min: undefined, max: undefined },
        leverage: { min: 1, max: this.safeNumber(p, 'maxLeverage') },
      },
      created: undefined,
      // every futures order is its own isolated position
      marginModes: { cross: false, isolated: true },
      info: p,
    });
  }

  /** ccxt's market structure with every field filled in. */
  private marketStructure(m: Dict): MarketInterface {
    return this.safeMarketStructure(m) as MarketInterface;
  }

  /** A row of GET /api/currencies. Money arrives by the operators' deposits; there are no withdrawals. */
  parseServiceCurrency(c: Dict): CurrencyInterface {
    const id = this.safeString(c, 'code') as string;
    return this.safeCurrencyStructure({
      id, code: this.safeCurrencyCode(id), name: this.safeString(c, 'name'),
      precision: this.parseNumber(this.parsePrecision(this.safeString(c, 'decimals'))),
      active: true, deposit: true, withdraw: false, fee: undefined, networks: {},
      limits: { amount: { min: undefined, max: undefined }, withdraw: { min: undefined, max: undefined } },
      type: 'crypto', info: c,
    });
  }

  /** ccxt's order, its cost left unset while nothing filled (its validators want a cost above zero). */
  private unifiedOrder(order: Dict, market: Market): Order {
    const out = this.safeOrder(order, market);
    if (out.cost === 0) out.cost = undefined;
    return out;
  }

  /** A spot order (docs/spot.md). The fee is in the currency received: base for a buy, quote for a sell. */
  parseSpotOrder(o: Dict, market?: Market): Order {
    market = this.safeMarket(this.safeString(o, 'currencyPairCode'), market, undefined, 'spot');
    const side = this.safeString(o, 'side');
    const type = this.safeString(o, 'type');
    const postOnly = this.safeBool(o, 'postOnly');
    const timestamp = this.parse8601(this.safeString(o, 'createTimestamp'));
    return this.unifiedOrder({
      id: this.safeString(o, 'id'), clientOrderId: this.safeString(o, 'clientOrderId'),
      timestamp, datetime: this.iso8601(timestamp),
      lastTradeTimestamp: undefined,
      lastUpdateTimestamp: this.parse8601(this.safeString(o, 'updateTimestamp')),
      symbol: market.symbol, type, side,
      timeInForce: type === 'market' ? 'IOC' : 'GTC', postOnly,
      price: this.safeString(o, 'price'), amount: this.safeString(o, 'amount'),
      filled: this.safeString(o, 'filled'), cost: this.safeString(o, 'filledQuote'),
      remaining: undefined, average: undefined, triggerPrice: undefined, trades: undefined,
      status: SPOT_STATUS[this.safeString(o, 'status') as string],
      fee: { cost: this.safeNumber(o, 'fee'), currency: side === 'buy' ? market.base : market.quote },
      reduceOnly: undefined,
      info: o,
    }, market);
  }

  /** A futures order / position record (OpenAPI `FuturesOrder`). */
  parseFuturesOrder(o: Dict, market?: Market): Order {
    market = this.safeMarket(this.safeString(o, 'currencyPairCode'), market, undefined, 'swap');
    const isMarket = this.safeBool(o, 'isMarket');
    const filled = this.safeNumber(o, 'filled') ?? 0;
    const amount = this.safeNumber(o, 'amount') ?? 0;
    const status = this.safeString(o, 'futuresOrderStatus') as string;
    // InPosition (50): the order is done when it filled whole or was a market order (its rest was killed)
    const orderStatus = status === '50' ? (filled < amount && !isMarket ? 'open' : 'closed') : FUTURES_STATUS[status];
    const timestamp = this.parse8601(this.safeString(o, 'createTimestamp'));
    const price = this.safeString(o, 'price');
    return this.unifiedOrder({
      id: this.safeString(o, 'id'), clientOrderId: this.safeString(o, 'clientOrderId'),
      timestamp, datetime: this.iso8601(timestamp), lastTradeTimestamp: undefined,
      lastUpdateTimestamp: this.parse8601(this.safeString(o, 'updateTimestamp')),
      symbol: market.symbol, type: isMarket ? 'market' : 'limit', side: this.safeBool(o, 'isLong') ? 'buy' : 'sell',
      timeInForce: isMarket ? 'IOC' : 'GTC', postOnly: undefined,
      // `price` is the average entry once anything filled, else the limit price
      price: filled > 0 ? undefined : price, average: filled > 0 ? price : undefined,
      amount: this.safeString(o, 'amount'), filled: this.safeString(o, 'filled'),
      remaining: undefined, cost: undefined, trades: undefined, triggerPrice: undefined,
      stopLossPrice: this.omitZero(this.safeString(o, 'stopLoss')),
      takeProfitPrice: this.omitZero(this.safeString(o, 'takeProfit')),
      status: orderStatus,
      fee: { cost: this.safeNumber(o, 'fee'), currency: this.safeCurrencyCode(this.safeString(o, 'feeAsset')) },
      reduceOnly: false,
      info: o,
    }, market);
  }

  /**
   * A trade: spot public `{id, timestamp, price, amount, side}` (side of the taker), spot own
   * (plus orderId, takerOrMaker, fee, feeCurrencyCode), futures deals (OpenAPI `FuturesDeal`, `FuturesUserDeal`).
   */
  override parseTrade(t: Dict, market?: Market): Trade {
    const futures = this.isFutures(market) || t.isLong !== undefined;
    market = this.safeMarket(this.safeString(t, 'currencyPairCode'), market, undefined, futures ? 'swap' : 'spot');
    const timestamp = this.parse8601(this.safeString(t, 'timestamp'));
    const orderSide = this.safeString(t, 'orderSide');
    const side = orderSide !== undefined ? (orderSide === '1' ? 'buy' : 'sell') : this.safeString(t, 'side');
    const tradeType = this.safeString(t, 'tradeType');
    const takerOrMaker = this.safeString(t, 'takerOrMaker') ?? (tradeType === '1' ? 'maker' : tradeType ? 'taker' : undefined);
    const feeCost = this.safeString(t, 'fee');
    const feeCode = this.safeString2(t, 'feeCurrencyCode', 'feeAsset');
    return this.safeTrade({
      id: this.safeString(t, 'id'), order: this.safeString(t, 'orderId'),
      timestamp, datetime: this.iso8601(timestamp), symbol: market.symbol, type: undefined,
      side, takerOrMaker, price: this.safeString(t, 'price'), amount: this.safeString(t, 'amount'), cost: undefined,
      fee: feeCost === undefined ? undefined : { cost: feeCost, currency: this.safeCurrencyCode(feeCode) },
      info: t,
    }, market);
  }

  /**
   * A futures position: an order that filled (one order, one isolated position; docs/futures.md).
   * notional = contracts × contractSize × mark; the initial margin is 1/leverage of it at entry, the
   * maintenance margin the pair's rate of the notional; marginRatio = maintenance margin / the
   * position's equity (its margin plus unrealized pnl), as Binance states an isolated position's.
   */
  override parsePosition(p: Dict, market?: Market): Position {
    market = this.safeMarket(this.safeString(p, 'currencyPairCode'), market, undefined, 'swap');
    const timestamp = this.parse8601(this.safeString(p, 'createTimestamp'));
    const contracts = this.safeString(p, 'amountInPosition');
    const mark = this.omitZero(this.safeString(p, 'markPrice'));
    const size = this.numberToString(market.contractSize ?? 1);
    const notional = contracts !== undefined && mark !== undefined ? Precise.stringMul(Precise.stringMul(contracts, size), mark) : undefined;
    const mmr = this.safeString(market.info as Dict, 'maintenanceMarginRate');
    const maintenance = notional !== undefined && mmr !== undefined ? Precise.stringMul(notional, mmr) : undefined;
    const leverage = this.safeString(p, 'leverage');
    const equity = Precise.stringAdd(this.safeString(p, 'currentMargin', '0'), this.safeString(p, 'unRealizedPnl', '0'));
    return this.safePosition({
      id: this.safeString(p, 'id'), symbol: market.symbol, timestamp, datetime: this.iso8601(timestamp),
      lastUpdateTimestamp: this.parse8601(this.safeString(p, 'updateTimestamp')),
      side: this.safeBool(p, 'isLong') ? 'long' : 'short',
      contracts: this.parseNumber(contracts), contractSize: market.contractSize,
      entryPrice: this.safeNumber(p, 'price'), markPrice: this.parseNumber(mark), notional: this.parseNumber(notional),
      leverage: this.parseNumber(leverage), collateral: this.safeNumber(p, 'currentMargin'),
      initialMargin: this.safeNumber(p, 'initialMargin'),
      initialMarginPercentage: leverage === undefined ? undefined : this.parseNumber(Precise.stringDiv('1', leverage, 8)),
      maintenanceMargin: this.parseNumber(maintenance),
      maintenanceMarginPercentage: this.parseNumber(mmr),
      marginRatio:
        maintenance !== undefined && Precise.stringGt(equity, '0') ? this.parseNumber(Precise.stringDiv(maintenance, equity, 8)) : undefined,
      unrealizedPnl: this.safeNumber(p, 'unRealizedPnl'), realizedPnl: this.safeNumber(p, 'realizedPnl'),
      liquidationPrice: this.nonZero(p, 'liquidationPrice'),
      percentage: this.safeNumber(p, 'unRealizedPnlPercentage'),
      stopLossPrice: this.nonZero(p, 'stopLoss'),
      takeProfitPrice: this.nonZero(p, 'takeProfit'),
      marginMode: 'isolated', hedged: true, info: p,
    });
  }

  /** A spot row of aggregator B's summary (CoinMarketCap's fields), or a futures contract (CoinGecko's). */
  override parseTicker(t: Dict, market?: Market): Ticker {
    const futures = this.isFutures(market);
    const id = this.safeString2(t, 'trading_pairs', 'ticker_id');
    market = this.safeMarket(id, market, undefined, futures ? 'swap' : 'spot');
    // the feeds write 0 where nothing exists (no trade yet, an empty side of the book)
    const price = (...keys: string[]) => this.omitZero(this.safeStringN(t, keys));
    return this.safeTicker({
      symbol: market.symbol, timestamp: undefined, datetime: undefined,
      high: price('highest_price_24h', 'high'), low: price('lowest_price_24h', 'low'),
      bid: price('highest_bid', 'bid'), ask: price('lowest_ask', 'ask'),
      bidVolume: undefined, askVolume: undefined, vwap: undefined, open: undefined,
      close: price('last_price'), last: price('last_price'), previousClose: undefined, change: undefined,
      percentage: this.safeString(t, 'price_change_percent_24h'), average: undefined,
      baseVolume: this.safeString(t, 'base_volume'), quoteVolume: this.safeString2(t, 'quote_volume', 'target_volume'),
      indexPrice: this.safeString(t, 'index_price'), markPrice: undefined,
      info: t,
    }, market);
  }

  /** A candle (OpenAPI `Candle`) as [open time, open, high, low, close, base volume]. */
  override parseOHLCV(c: Dict, _market?: Market): OHLCV {
    return [
      this.parse8601(this.safeString(c, 'openTimestamp')) as number,
      this.safeNumber(c, 'openPrice') as number,
      this.safeNumber(c, 'maxPrice') as number,
      this.safeNumber(c, 'minPrice') as number,
      this.safeNumber(c, 'closePrice') as number,
      this.safeNumber(c, 'volumeBase') as number,
    ];
  }

  /** Wallet rows `{currencyCode, available, reserved}` (docs/api-contract.md#operator-routes). */
  parseWalletBalance(rows: Dict[]): Balances {
    const result: Dict = { info: rows };
    for (const r of rows) {
      const account = this.account();
      account.free = this.safeString(r, 'available');
      account.used = this.safeString(r, 'reserved');
      result[this.safeCurrencyCode(this.safeString(r, 'currencyCode')) as string] = account;
    }
    return this.safeBalance(result);
  }

  /** Futures accounts `{currencyCode, balance, available, usedMargin, equity}`, summed per currency. */
  parseFuturesBalance(rows: Dict[]): Balances {
    const result: Dict = { info: rows };
    for (const r of rows) {
      const code = this.safeCurrencyCode(this.safeString(r, 'currencyCode')) as string;
      const account = (result[code] as Dict | undefined) ?? { free: '0', used: '0' };
      result[code] = {
        free: Precise.stringAdd(account.free, this.safeString(r, 'available', '0')),
        used: Precise.stringAdd(account.used, this.safeString(r, 'usedMargin', '0')),
      };
    }
    return this.safeBalance(result);
  }

  /** A number field where 0 means unset (TP, SL and liquidation price of OpenAPI `FuturesOrder`). */
  protected nonZero(d: Dict, key: string): number | undefined {
    const v = this.safeNumber(d, key);
    return v === 0 ? undefined : v;
  }
}
