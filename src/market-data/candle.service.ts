import BigNumber from 'bignumber.js';
import { CANDLE_PERIODS, candleOpen } from '../domain/candle';
import { badRequest } from '../domain/errors';
import type { Pair } from '../domain/market';
import { unknownPair, type MarketStore } from '../markets';
import type { RedisClient } from '../platform/redis/connection';
import type { EngineShards } from '../platform/redis/engine-shards';
import type { MarketKind } from '../platform/redis/keys';
import type { Scripts } from '../platform/redis/scripts';
import { candleDto, type CandleDto, type StoredCandle } from './candle-dto';
import type { MarketEntry } from '../platform/market-event';

export interface CandleQuery {
  currencyPair?: string;
  /** Our extension: which market of a pair code both kinds list; futures when omitted. */
  kind?: MarketKind;
  candleTimePeriod: number;
  dateFrom?: Date;
  dateTo?: Date;
}

/** Most candles one request returns per pair; a longer range is cut after this many periods. */
export const MAX_CANDLES = 1000;
/** Candles one request returns when DateFrom is not given: the latest this many periods. */
export const DEFAULT_CANDLES = 500;
/** How far behind the newest applied entry an applied one is remembered, so replaying it changes nothing. */
const APPLIED_MEMORY_MS = 7 * 24 * 3600 * 1000;
const UPDATE_STREAM_MAXLEN = 10000;

/** Candles of every period of the exchange-data routes (docs/market-data.md#candles), built from the market streams' trades and read back for REST. */
export class CandleService {
  constructor(
    private readonly redis: RedisClient,
    /** A market's candles live with its engine shard's candle tag (Keys.candles). */
    private readonly shards: EngineShards,
    private readonly scripts: Scripts,
    private readonly markets: MarketStore,
  ) {}

  /** Folds one stream entry's trades in; false when it holds none, was applied before, or names no market. */
  async apply(kind: MarketKind, pairCode: string, entry: MarketEntry): Promise<boolean> {
    const trades: string[] = [];
    for (const e of entry.events) {
      if (e.e !== 'trade') continue;
      trades.push(e.id, e.p, e.q, new BigNumber(e.p).times(e.q).toFixed(0));
    }
    if (trades.length === 0) return false;
    const pair = await this.markets.getPair(kind, pairCode);
    if (!pair) return false;
    const k = this.shards.keysOf(pair);
    const applied = await this.scripts.run<number>(
      'applyCandleTrades',
      [k.candlesApplied(kind, pairCode), k.candles(kind, pairCode), k.candleEvents(kind, pairCode)],
      [
        entry.id,
        entry.ts,
        APPLIED_MEMORY_MS,
        UPDATE_STREAM_MAXLEN,
        CANDLE_PERIODS.length,
        ...CANDLE_PERIODS,
        ...trades,
      ],
    );
    return applied === 1;
  }

  /**
   * the exchange-data routes (docs/market-data.md#candles): the pair named (its futures market when there is one, else spot, unless `kind`
   * says) or every futures pair; the candles whose [open, close) meets [DateFrom, DateTo), oldest first; periods without
   * trades are left out.
   */
  async query(q: CandleQuery): Promise<CandleDto[]> {
    const period = q.candleTimePeriod;
    const len = period * 1000;
    const to = (q.dateTo ?? new Date()).getTime();
    const last = candleOpen(to - 1, period);
    const first = q.dateFrom ? candleOpen(q.dateFrom.getTime(), period) : last - (DEFAULT_CANDLES - 1) * len;
    if (q.dateFrom && q.dateFrom.getTime() >= to) {
      throw badRequest('INVALID_DATE_RANGE', 'DateFrom must be before DateTo', [
        { path: 'DateFrom', message: 'must be before DateTo' },
      ]);
    }
    const opens: number[] = [];
    for (let t = first; t <= last && opens.length < MAX_CANDLES; t += len) opens.push(t);

    const out: CandleDto[] = [];
    for (const { kind, pair } of await this.pairsFor(q.currencyPair, q.kind)) {
      if (opens.length === 0) break;
      const raw = await this.redis.hmget(
        this.shards.keysOf(pair).candles(kind, pair.code),
        ...opens.map((t) => `${period}:${t}`),
      );
      raw.forEach((json, i) => {
        if (json) out.push(candleDto(pair, period, opens[i], JSON.parse(json) as StoredCandle));
      });
    }
    return out;
  }

  /** The candle of `period` open now, if it has trades: what a websocket subscriber starts from. */
  async current(kind: MarketKind, pair: Pair, period: number): Promise<CandleDto | null> {
    const open = candleOpen(Date.now(), period);
    const json = await this.redis.hget(this.shards.keysOf(pair).candles(kind, pair.code), `${period}:${open}`);
    return json ? candleDto(pair, period, open, JSON.parse(json) as StoredCandle) : null;
  }

  private async pairsFor(code?: string, only?: MarketKind): Promise<{ kind: MarketKind; pair: Pair }[]> {
    if (!code) {
      const kind = only ?? 'futures';
      return (await this.markets.listPairs(kind)).map((pair) => ({ kind, pair }));
    }
    for (const kind of only ? [only] : (['futures', 'spot'] as const)) {
      const pair = await this.markets.getPair(kind, code);
      if (pair) return [{ kind, pair }];
    }
    throw unknownPair(code, { kind: only, namedIn: 'query', field: 'CurrencyPair' });
  }
}
