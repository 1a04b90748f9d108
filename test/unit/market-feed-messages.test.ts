import { createLogger } from '../../src/platform/config/logger';
import type { Pair } from '../../src/domain/market';
import type { BookReader, BookSnapshot } from '../../src/market-data/book-reader';
import type { MarketEntry } from '../../src/platform/market-event';
import { MarketFeed } from '../../src/transport/ws/market-feed';
import type { Publisher } from '../../src/transport/ws/topics';

// The feed keeps its snapshot and ticker messages until the book or a price moves (one
// serialization for a burst of subscribers): every change must show in the next one.

const pair: Pair = {
  id: 1, kind: 'spot', code: 'BTC_USDT', baseCurrencyCode: 'BTC', quoteCurrencyCode: 'USDT',
  digitsPrice: 2, digitsAmount: 4, minBaseAmount: 0, minQuoteAmount: 0, makerFee: 0, takerFee: 0,
  isActive: true, baseDecimals: 8, quoteDecimals: 6,
};

function feedOver(snapshots: BookSnapshot[], published: [string, string][] = []) {
  const books = { snapshot: async () => snapshots.shift()! } as unknown as BookReader;
  const out: Publisher = { publish: (topic, message) => void published.push([topic, message]), hasSubscribers: () => true };
  return new MarketFeed('spot', pair, books, out, createLogger('silent'));
}

const entry = (n: number, seq: number | undefined, events: MarketEntry['events']): MarketEntry => ({
  id: `${1000 + n}-0`, ts: 1_700_000_000_000 + n, ...(seq === undefined ? {} : { seq }), events,
});

const parsed = (text: string | null) => JSON.parse(text as string) as Record<string, unknown>;

describe('market feed messages', () => {
  test('a snapshot and a ticker follow every book change, trade and resync', async () => {
    const feed = feedOver([
      { seq: 7, streamId: '999-0', bids: [['500000', '20000']], asks: [['500100', '10000']] },
      { seq: 20, streamId: '2000-0', bids: [['400000', '30000']], asks: [] },
    ]);
    await feed.resync();
    const first = feed.snapshotMessage();
    expect(parsed(first)).toMatchObject({ seq: 7, bids: [[5000, 2]], asks: [[5001, 1]] });
    // nothing changed: the same text again
    expect(feed.snapshotMessage()).toBe(first);
    const ticker = feed.tickerMessage();
    expect(feed.tickerMessage()).toBe(ticker);

    feed.onEntry(entry(1, 8, [{ e: 'book', side: 'bids', p: '500050', q: '5000' }]));
    expect(parsed(feed.snapshotMessage())).toMatchObject({ seq: 8, bids: [[5000.5, 0.5], [5000, 2]] });
    expect(parsed(feed.tickerMessage())).toMatchObject({ bestBid: [5000.5, 0.5], last: null });

    // a trade that leaves the book as it was (seq absent) still moves the ticker's last price
    feed.onEntry(entry(2, undefined, [{ e: 'trade', id: '1', p: '500100', q: '1000', side: 'buy' }]));
    expect(parsed(feed.tickerMessage())).toMatchObject({ last: 5001, bestAsk: [5001, 1] });
    expect(parsed(feed.snapshotMessage())).toMatchObject({ seq: 8 });

    // a gap: no snapshot while the fresh one is on its way, then the fresh book
    feed.onEntry(entry(3, 10, [{ e: 'book', side: 'asks', p: '500100', q: '0' }]));
    expect(feed.snapshotMessage()).toBeNull();
    await new Promise((r) => setImmediate(r));
    expect(parsed(feed.snapshotMessage())).toMatchObject({ seq: 20, bids: [[4000, 3]], asks: [] });
    expect(parsed(feed.tickerMessage())).toMatchObject({ bestBid: [4000, 3], bestAsk: null });
  });

  test('a seeded last price shows in the ticker built before it', async () => {
    const feed = feedOver([{ seq: 1, streamId: '1-0', bids: [], asks: [] }]);
    await feed.resync();
    expect(parsed(feed.tickerMessage())).toMatchObject({ last: null });
    feed.seedLastPrice('123456');
    expect(parsed(feed.tickerMessage())).toMatchObject({ last: 1234.56 });
  });
});
