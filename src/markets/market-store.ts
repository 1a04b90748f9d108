import { shardOfPair, type Currency, type Pair } from '../domain/market';
import { shardIdBase } from '../domain/shard-ids';
import type { RedisClient } from '../platform/redis/connection';
import type { EngineShards } from '../platform/redis/engine-shards';
import type { Keys, MarketKind } from '../platform/redis/keys';
import type { Scripts } from '../platform/redis/scripts';

const NUMERIC_PAIR_FIELDS = [
  'id', 'digitsPrice', 'digitsAmount', 'minBaseAmount', 'minQuoteAmount', 'makerFee', 'takerFee',
  'baseDecimals', 'quoteDecimals', 'contractValue', 'lotSize', 'maxLeverage', 'maintenanceMarginRate', 'engineShard',
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
 * The registry lives on shard 0; a market of another shard also gets a copy of its pair hash there
 * (lua/markets/installPair-3.lua), the reference data its own scripts read.
 */
export class MarketStore {
  private pairs = new Map<string, Pair>();
  private currencies = new Map<string, Currency>();

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
    private readonly scripts: Scripts,
    private readonly shards: EngineShards,
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
    // the stored pair wins: a second creation of an existing pair keeps its first shard
    const stored = await this.getPair(p.kind, p.code);
    if (stored && shardOfPair(stored) !== 0) await this.installOnShard(stored);
    return { created: status === 'OK', id: Number(id) };
  }

  /** Copies the pair hash to its market's shard and starts that shard's id counters (idempotent). */
  private async installOnShard(pair: Pair): Promise<void> {
    const shard = shardOfPair(pair);
    const k = this.shards.keys(shard);
    const raw = await this.redis.hgetall(this.keys.pair(pair.kind, pair.code));
    await this.scripts.run(
      'installPair',
      [k.pair(pair.kind, pair.code), k.orderIds(), k.tradeIds()],
      [shardIdBase(shard), ...Object.entries(raw).flat()],
    );
  }

  /** How many markets of either kind each shard runs, shard 0 first. */
  async marketsPerShard(): Promise<number[]> {
    const counts = new Array<number>(this.shards.count).fill(0);
    for (const kind of ['spot', 'futures'] as const) {
      for (const p of await this.listPairs(kind)) counts[shardOfPair(p)] = (counts[shardOfPair(p)] ?? 0) + 1;
    }
    return counts;
  }

  get shardCount(): number {
    return this.shards.count;
  }

  /** The keys of the shard that runs a market (shard 0's for a market not created yet). */
  async keysOf(kind: MarketKind, code: string): Promise<Keys> {
    return this.shards.keysOf((await this.getPair(kind, code)) ?? {});
  }

  /**
   * keysOf for a market this process has read before (callers check the pair first): synchronous,
   * for builders of reads that take no await. A market never read is a bug, not shard 0.
   */
  knownKeysOf(kind: MarketKind, code: string): Keys {
    const pair = this.pairs.get(`${kind}:${code}`);
    if (!pair) throw new Error(`${kind} pair ${code} was not read before its keys were asked for`);
    return this.shards.keysOf(pair);
  }

  /** Every engine shard's keys, shard 0 first. */
  allKeys(): readonly Keys[] {
    return this.shards.all();
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
