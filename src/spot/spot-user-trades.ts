import { fromMinor } from '../domain/decimal';
import type { Pair } from '../domain/market';
import type { MarketStore } from '../markets';
import { requirePair } from '../markets';
import type { TradeHistory, UserHistoryTrade } from '../market-data';

/** One fill of one of the caller's spot orders, from the caller's side. */
export interface SpotUserTradeDto {
  id: number;
  orderId: number;
  timestamp: string;
  price: number;
  amount: number;
  currencyPairCode: string;
  side: 'buy' | 'sell';
  takerOrMaker: 'taker' | 'maker';
  fee: number;
  feeCurrencyCode: string;
}

export interface SpotUserTradesQuery {
  limit: number;
  since?: Date;
  beforeId?: number;
}

/**
 * The caller's spot fills on one market, newest first, from the market's trade history and the
 * caller's index in it (kept TRADE_HISTORY_DAYS): one page of `limit`, at or after `since`, below
 * `beforeId` (the last id read pages on).
 */
export class SpotUserTrades {
  constructor(
    private readonly history: TradeHistory,
    private readonly markets: MarketStore,
  ) {}

  async list(userId: string, pairCode: string, q: SpotUserTradesQuery): Promise<SpotUserTradeDto[]> {
    const pair = await requirePair(this.markets, 'spot', pairCode, 'path');
    const range = await this.history.idRange('spot', pair.code, q.since?.getTime());
    if (q.beforeId !== undefined) range.max = Math.min(range.max, q.beforeId - 1);
    const source = this.history.userSource('spot', pair.code, userId, range);
    // a self-trade is two fills of the caller's, the taker's first (it happened last); one more is
    // read so a page never ends between them, which beforeId (by trade id) would then skip
    const fills = await this.history.userTrades('spot', [pair.code], [source], 0, q.limit + 1);
    const cut = fills.length > q.limit && fills[q.limit].trade.id !== fills[q.limit - 1].trade.id ? q.limit : fills.length;
    return fills.slice(0, cut).map((f) => fill(f, pair));
  }
}

function fill({ trade: t, role }: UserHistoryTrade, pair: Pair): SpotUserTradeDto {
  const side = role === 'taker' ? t.side : t.side === 'buy' ? 'sell' : 'buy';
  // each side pays its fee in the currency it receives (docs/spot.md)
  const feeInBase = side === 'buy';
  return {
    id: t.id,
    orderId: Number(role === 'taker' ? t.tk : t.mk),
    timestamp: new Date(t.ts).toISOString(),
    price: fromMinor(t.p, pair.digitsPrice),
    amount: fromMinor(t.q, pair.digitsAmount),
    currencyPairCode: pair.code,
    side,
    takerOrMaker: role,
    fee: fromMinor(role === 'taker' ? t.tf : t.mf, feeInBase ? pair.baseDecimals : pair.quoteDecimals),
    feeCurrencyCode: feeInBase ? pair.baseCurrencyCode : pair.quoteCurrencyCode,
  };
}
