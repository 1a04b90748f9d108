import { conflict, badRequest, rejected } from '../domain/errors';
import { CURRENCY_CODE, pairCode, type Currency, type Pair } from '../domain/market';
import { pairRuleViolation, type PairRequest } from '../domain/pair-rules';
import type { MarketStore } from './market-store';

export type { PairRequest };

/** The spot pair listing of docs/api-contract.md#operator-routes (`GET /api/currencies/pairs`). */
export type SpotPairDto = Pick<
  Pair,
  'baseCurrencyCode' | 'quoteCurrencyCode' | 'digitsPrice' | 'digitsAmount' | 'minBaseAmount' | 'minQuoteAmount' | 'makerFee' | 'takerFee'
> & { currencyPairCode: string };

/** Currencies and pairs: validation of new ones (admin, seeding) and the public listings. */
export class MarketService {
  constructor(private readonly store: MarketStore) {}

  async createCurrency(c: Currency): Promise<{ created: boolean; currency: Currency }> {
    if (!CURRENCY_CODE.test(c.code)) throw badRequest('INVALID_CURRENCY_CODE', `Bad currency code ${c.code}`);
    const created = await this.store.createCurrency(c);
    return { created, currency: (await this.store.getCurrency(c.code)) as Currency };
  }

  async createPair(req: PairRequest): Promise<{ created: boolean; pair: Pair }> {
    const [base, quote] = await Promise.all([
      this.store.getCurrency(req.baseCurrencyCode),
      this.store.getCurrency(req.quoteCurrencyCode),
    ]);
    if (!base || !quote) {
      throw badRequest('UNKNOWN_CURRENCY', 'Both currencies must exist before the pair', [
        { path: base ? 'quoteCurrencyCode' : 'baseCurrencyCode', message: 'no such currency' },
      ]);
    }
    const violation = pairRuleViolation(req, base, quote);
    if (violation) throw violation;
    const code = pairCode(base.code, quote.code);
    const pair: Omit<Pair, 'id'> = {
      ...req,
      engineShard: await this.shardFor(req),
      code,
      isActive: true,
      baseDecimals: base.decimals,
      quoteDecimals: quote.decimals,
    };
    const { created } = await this.store.createPair(pair);
    if (!created) {
      const existing = (await this.store.getPair(req.kind, code)) as Pair;
      return { created, pair: existing };
    }
    return { created, pair: (await this.store.getPair(req.kind, code)) as Pair };
  }

  /**
   * The shard a new market runs on, spot or futures alike: the one asked for (0..ENGINE_SHARDS-1),
   * else the shard with the fewest markets (docs/architecture.md, "Engine shards: money").
   */
  private async shardFor(req: PairRequest): Promise<number> {
    const count = this.store.shardCount;
    if (req.engineShard !== undefined && req.engineShard >= count) {
      throw rejected('ENGINE_SHARD_UNKNOWN', `engineShard must be below ENGINE_SHARDS (${count}), got ${req.engineShard}`);
    }
    if (req.engineShard !== undefined) return req.engineShard;
    if (count === 1) return 0;
    const perShard = await this.store.marketsPerShard();
    return perShard.indexOf(Math.min(...perShard));
  }

  async createPairOrConflict(req: PairRequest): Promise<Pair> {
    const { created, pair } = await this.createPair(req);
    if (!created) throw conflict('PAIR_EXISTS', `Pair ${pair.code} already exists`);
    return pair;
  }

  async createCurrencyOrConflict(c: Currency): Promise<Currency> {
    const { created, currency } = await this.createCurrency(c);
    if (!created) throw conflict('CURRENCY_EXISTS', `Currency ${c.code} already exists`);
    return currency;
  }

  listCurrencies(): Promise<Currency[]> {
    return this.store.listCurrencies();
  }

  async listSpotPairs(): Promise<SpotPairDto[]> {
    return (await this.store.listPairs('spot')).map(spotPairDto);
  }
}

export function spotPairDto(p: Pair): SpotPairDto {
  return {
    currencyPairCode: p.code,
    baseCurrencyCode: p.baseCurrencyCode,
    quoteCurrencyCode: p.quoteCurrencyCode,
    digitsPrice: p.digitsPrice,
    digitsAmount: p.digitsAmount,
    minBaseAmount: p.minBaseAmount,
    minQuoteAmount: p.minQuoteAmount,
    makerFee: p.makerFee,
    takerFee: p.takerFee,
  };
}
