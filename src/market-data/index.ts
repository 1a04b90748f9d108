import type { MarketStore } from '../markets';
import type { PlatformDeps } from '../platform/deps';
import { BookReader } from './book-reader';
import { CandleService } from './candle.service';
import { MarketDataService } from './market-data.service';
import { MarketTickerService } from './market-ticker.service';

export { BookReader } from './book-reader';
export { CandleService } from './candle.service';
export { candleDto, type CandleDto } from './candle-dto';
export { MarketDataService, type BookLevelDto, type OrderBookDto } from './market-data.service';
export { MarketTickerService, TICKER_WINDOW_MS, depthPerSide, type MarketTicker, type TradeRecord } from './market-ticker.service';
export { startCandlesWorker, type ProcessorOptions } from './candles.worker';
export { spotMarketDataRoutes } from './http/spot-market-data.routes';
export { exchangeDataRoutes } from './http/exchange-data.routes';
export { bookLevelDtoSchema } from './http/market-data-dto.schema';

/** Market data derived from the engine: books, recent trades, candles and 24-hour tickers. */
export interface MarketData {
  books: BookReader;
  service: MarketDataService;
  candles: CandleService;
  tickers: MarketTickerService;
}

export function createMarketData(deps: Pick<PlatformDeps, 'redis' | 'keys' | 'scripts'> & { markets: MarketStore }): MarketData {
  const { redis, keys, scripts, markets } = deps;
  const books = new BookReader(keys, scripts);
  return {
    books,
    service: new MarketDataService(redis, keys, markets, books),
    candles: new CandleService(redis, keys, scripts, markets),
    tickers: new MarketTickerService(redis, keys, markets, books),
  };
}
