import type { Currency, Pair } from '../domain/market';
import type { RedisClient } from '../platform/redis/connection';
import type { Keys, MarketKind } from '../platform/redis/keys';
import type { Scripts } from '../platform/redis/scripts';

const NUMERIC_PAIR_FIELDS = [
  'id', 'digitsPrice', 'digitsAmount', 'minBaseAmount', 'minQuoteAmount', 'makerFee', 'takerFee',
  'baseDecimals', 'quoteDecimals', 'contractValue', 'lotSize', 'maxLeverage', 'maintenanceMarginRate',
] as const;

function decodePair(h: Record<string, string>): Pair {
  const out: Record<string, unknown> = { ...h, isActive: h.isActive !== '0' };
  // the futures engine's packed copy of the pair's parameters (lua/includes/futures/context.lua)
  delete out.futParams;
  for (const f of NUMERIC_PAIR_FIELDS) if (h[f] !== undefined && h[f] !== '') out[f] = Number(h[f]);
  return out as unknown as Pair;
}

/**
 * Currencies and pairs in Redis, with a read-through cache: pairs never change once created, so a
 * cached pair is always right, and a pair another instance created is found on the first miss.
 */
export class MarketStore {
  private pairs = new Map<string, Pair>();
  private currencies = new Map<string, Currency>();

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
    private readonly scripts: Scripts,
  ) {}

  async createCurrency(c: Currency): Promise<boolean> {
    const [status] = await this.scripts.run<string[]>(
      'createCurrency',
      [this.keys.currencies(), this.keys.currency(c.code)],
      [c.code, c.name, c.decimals],
    );
    return status === 'OK';
  }

  async createPair(p: Omit<Pair, 'id'>): Promise<{ created: boolean; id: number }> {
    const fields: (string | number)[] = [];
    for (const [k, v] of Object.entries(p)) {
      if (v === undefined || k === 'isActive') continue;
      fields.push(k, String(v));
    }
    fields.push('isActive', p.isActive ? '1' : '0');
    const [status, id] = await this.scripts.run<string[]>(
      'createPair',
      [this.keys.pairs(p.kind), this.keys.pair(p.kind, p.code), this.keys.pairIds(), this.keys.marketsStream()],
      [p.code, ...fields],
    );
    return { created: status === 'OK', id: Number(id) };
  }

  async getCurrency(code: string): Promise<Currency | undefined> {
    const hit = this.currencies.get(code);
    if (hit) return hit;
    const h = await this.redis.hgetall(this.keys.currency(code));
    if (!h.code) return undefined;
    const c = { code: h.code, name: h.name, decimals: Number(h.decimals) };
    this.currencies.set(code, c);
    return c;
  }

  async listCurrencies(): Promise<Currency[]> {
    const codes = (await this.redis.smembers(this.keys.currencies())).sort();
    const out = await Promise.all(codes.map((c) => this.getCurrency(c)));
    return out.filter((c): c is Currency => !!c);
  }

  async getPair(kind: MarketKind, code: string): Promise<Pair | undefined> {
    const cacheKey = `${kind}:${code}`;
    const hit = this.pairs.get(cacheKey);
    if (hit) return hit;
    const h = await this.redis.hgetall(this.keys.pair(kind, code));
    if (!h.code) return undefined;
    const p = decodePair(h);
    this.pairs.set(cacheKey, p);
    return p;
  }

  async listPairs(kind: MarketKind): Promise<Pair[]> {
    const codes = await this.redis.smembers(this.keys.pairs(kind));
    const out = await Promise.all(codes.map((c) => this.getPair(kind, c)));
    return out.filter((p): p is Pair => !!p).sort((a, b) => a.id - b.id);
  }
}
