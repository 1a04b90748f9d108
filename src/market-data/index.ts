import type { MarketStore } from '../markets';
import type { PlatformDeps } from '../platform/deps';
import { BookReader } from './book-reader';
import { CandleService } from './candle.service';
import { MarketDataService } from './market-data.service';
import { MarketTickerService } from './market-ticker.service';
import { TradeHistory } from './trade-history';
import { TradeReader } from './trade-reader';

export { BookReader } from './book-reader';
export { CandleService } from './candle.service';
export { candleDto, type CandleDto } from './candle-dto';
export { MarketDataService, type BookLevelDto, type OrderBookDto } from './market-data.service';
export { MarketTickerService, TICKER_WINDOW_MS, depthPerSide, type MarketTicker } from './market-ticker.service';
export { TradeHistory, type HistoryTrade, type UserHistoryTrade, type IdRange } from './trade-history';
export { TradeReader, MAX_TRADE_PAGE, tradeRecord, type TradeRecord, type TradePage, type TradePageQuery } from './trade-reader';
export { startCandlesWorker, type ProcessorOptions } from './candles.worker';
export { moveLegacyCandles } from './candle-store-move';
export { spotMarketDataRoutes } from './http/spot-market-data.routes';
export { exchangeDataRoutes } from './http/exchange-data.routes';
export { bookLevelDtoSchema } from './http/market-data-dto.schema';

/** Market data derived from the engine: books, recent trades, candles and 24-hour tickers. */
export interface MarketData {
  books: BookReader;
  service: MarketDataService;
  candles: CandleService;
  tickers: MarketTickerService;
  /** Every trade of every market for TRADE_HISTORY_DAYS (docs/market-data.md). */
  history: TradeHistory;
  trades: TradeReader;
}

export function createMarketData(
  deps: Pick<PlatformDeps, 'redis' | 'keys' | 'shards' | 'scripts' | 'config' | 'log'> & { markets: MarketStore },
): MarketData {
  const { redis, keys, scripts, markets } = deps;
  const books = new BookReader(keys, scripts);
  const history = new TradeHistory(redis, keys, scripts);
  // the engine scripts trim by it; until it lands they keep the default 7 days
  history.setRetentionDays(deps.config.tradeHistoryDays).catch((err: Error) => deps.log.warn({ err }, 'trade history retention not set'));
  return {
    books,
    service: new MarketDataService(markets, books, history),
    candles: new CandleService(redis, deps.shards, scripts, markets),
    tickers: new MarketTickerService(redis, keys, markets, books),
    history,
    trades: new TradeReader(history),
  };
}
