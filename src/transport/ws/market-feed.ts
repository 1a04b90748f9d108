import type { Logger } from '../../platform/config/logger';
import { fromMinor } from '../../domain/decimal';
import type { Pair } from '../../domain/market';
import type { BookReader } from '../../market-data/book-reader';
import type { BookSide, MarketKind } from '../../platform/redis/keys';
import type { MarketEntry } from '../../platform/market-event';
import { MarketBook } from './market-book';
import { compareIds } from './stream-ids';
import { topicOf, type Publisher } from './topics';

type Level = [number, number];

/**
 * One market as a gateway sees it: the book rebuilt from a snapshot plus the stream after it, the
 * last trade, and the messages of the orderbook, deals and ticker channels. Every gateway applies
 * the same entries to the same snapshot state, so all of them publish the same `seq` sequence.
 *
 * While a snapshot is being fetched (at start, or after a sequence gap) the entries that arrive
 * are held, and those after the snapshot's stream id are applied once it lands.
 */
export class MarketFeed {
  private readonly book = new MarketBook();
  private seq = 0;
  /** Stream id the book reflects; entries up to here are already in it. */
  private bookId = '0-0';
  private held: MarketEntry[] | null = [];
  private lastPrice?: number;
  private lastTs?: number;
  /** Futures only: the mark and index prices as the mark tick last announced them (docs/futures.md). */
  private markPrice?: number;
  private indexPrice?: number;
  private readonly topics;
  /**
   * The snapshot and ticker messages as last built, or null once the book or a price changed: a
   * burst of subscribers (every client of a restarted gateway reconnecting at once) shares one
   * serialization instead of sorting and stringifying the whole book once each.
   */
  private snapshotText: string | null = null;
  private tickerText: string | null = null;

  constructor(
    readonly kind: MarketKind,
    readonly pair: Pair,
    private readonly books: BookReader,
    private readonly out: Publisher,
    private readonly log: Logger,
  ) {
    const t = (c: 'orderbook' | 'deals' | 'ticker') => topicOf(c, kind, pair.code);
    this.topics = { orderbook: t('orderbook'), deals: t('deals'), ticker: t('ticker') };
  }

  /** The last price as the engine keeps it (ticks), so a ticker has one before the next trade. */
  seedLastPrice(ticks: string | null): void {
    if (ticks && this.lastPrice === undefined) {
      this.lastPrice = fromMinor(ticks, this.pair.digitsPrice);
      this.tickerText = null;
    }
  }

  /** Takes a fresh snapshot; returns its stream id, from where the stream must be read. */
  async resync(): Promise<string> {
    this.held ??= [];
    const snap = await this.books.snapshot(this.kind, this.pair.code, 0);
    this.book.reset(snap.bids, snap.asks);
    this.bookChanged();
    this.seq = snap.seq;
    this.bookId = snap.streamId;
    const held = this.held;
    this.held = null;
    this.publish(this.topics.orderbook, () => this.snapshotMessage()!);
    for (const e of held) this.takeBook(e);
    return snap.streamId;
  }

  onEntry(entry: MarketEntry): void {
    this.takeMark(entry);
    this.publishDeals(entry);
    if (entry.seq !== undefined) this.takeBook(entry);
  }

  /** Holds the entry while a snapshot is on its way (a gap may start one mid-way), else applies it. */
  private takeBook(entry: MarketEntry): void {
    if (this.held) this.held.push(entry);
    else this.applyBook(entry);
  }

  /** The whole book as of now, or null while a snapshot is on its way (it is published when it lands). */
  snapshotMessage(): string | null {
    if (this.held) return null;
    return (this.snapshotText ??= JSON.stringify({
      channel: 'orderbook',
      type: 'snapshot',
      market: this.pair.code,
      kind: this.kind,
      seq: this.seq,
      bids: this.book.levels('bids').map(this.level),
      asks: this.book.levels('asks').map(this.level),
    }));
  }

  tickerMessage(): string {
    if (this.tickerText !== null) return this.tickerText;
    const bid = this.book.best('bids');
    const ask = this.book.best('asks');
    return (this.tickerText = JSON.stringify({
      channel: 'ticker',
      market: this.pair.code,
      kind: this.kind,
      last: this.lastPrice ?? null,
      lastTimestamp: this.lastTs ? new Date(this.lastTs).toISOString() : null,
      bestBid: bid ? this.level(bid) : null,
      bestAsk: ask ? this.level(ask) : null,
      ...(this.kind === 'futures' ? { markPrice: this.markPrice ?? null, indexPrice: this.indexPrice ?? null } : {}),
    }));
  }

  /** The book moved: both cached messages describe it. */
  private bookChanged(): void {
    this.snapshotText = null;
    this.tickerText = null;
  }

  /** A futures mark tick's announcement: the ticker carries mark and index (published at once). */
  private takeMark(entry: MarketEntry): void {
    const mark = entry.events.filter((e) => e.e === 'mark').pop();
    if (!mark) return;
    this.markPrice = fromMinor(mark.p, this.pair.digitsPrice);
    if (mark.i) this.indexPrice = fromMinor(mark.i, this.pair.digitsPrice);
    this.tickerText = null;
    this.publish(this.topics.ticker, () => this.tickerMessage());
  }

  private applyBook(entry: MarketEntry): void {
    if (compareIds(entry.id, this.bookId) <= 0) return;
    if (entry.seq !== this.seq + 1) {
      this.log.warn(
        { market: this.pair.code, kind: this.kind, have: this.seq, got: entry.seq },
        'ws: book sequence gap, resyncing',
      );
      this.held = [entry];
      this.resync().catch((err) => this.log.error({ err }, 'ws: resync failed'));
      return;
    }
    const diff: Record<BookSide, Level[]> = { bids: [], asks: [] };
    for (const e of entry.events) {
      if (e.e !== 'book') continue;
      const side = e.side as BookSide;
      this.book.set(side, e.p, e.q);
      diff[side].push(this.level([e.p, e.q]));
    }
    this.seq = entry.seq;
    this.bookId = entry.id;
    this.bookChanged();
    this.publish(this.topics.orderbook, () =>
      JSON.stringify({
        channel: 'orderbook',
        type: 'update',
        market: this.pair.code,
        kind: this.kind,
        seq: this.seq,
        ts: entry.ts,
        bids: diff.bids,
        asks: diff.asks,
      }),
    );
    this.publish(this.topics.ticker, () => this.tickerMessage());
  }

  private publishDeals(entry: MarketEntry): void {
    const trades = entry.events.filter((e) => e.e === 'trade');
    if (trades.length === 0) return;
    const last = trades[trades.length - 1];
    this.lastPrice = fromMinor(last.p, this.pair.digitsPrice);
    this.lastTs = entry.ts;
    this.tickerText = null;
    this.publish(this.topics.deals, () =>
      JSON.stringify({
        channel: 'deals',
        market: this.pair.code,
        kind: this.kind,
        ts: entry.ts,
        deals: trades.map((t) => ({
          id: Number(t.id),
          price: fromMinor(t.p, this.pair.digitsPrice),
          amount: fromMinor(t.q, this.pair.digitsAmount),
          side: t.side,
          timestamp: new Date(entry.ts).toISOString(),
        })),
      }),
    );
    if (entry.seq === undefined) this.publish(this.topics.ticker, () => this.tickerMessage());
  }

  private readonly level = ([p, q]: [string, string]): Level => [
    fromMinor(p, this.pair.digitsPrice),
    fromMinor(q, this.pair.digitsAmount),
  ];

  /** Builds the message only when someone listens: most markets have few subscribers. */
  private publish(topic: string, message: () => string): void {
    if (this.out.hasSubscribers(topic)) this.out.publish(topic, message());
  }
}
